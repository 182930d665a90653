/* SPDX-License-Identifier: MIT */
/*
 * timelinefs engine: timeline model, byte layout, parsers, media resolution,
 * the per-stream player and the generator's logic.  Pure C: no FUSE, no
 * SQLite, no globals; time and backing I/O come through struct eng_io.
 *
 * Conventions: functions return 0 (or a count) on success and a negative
 * errno on failure; results come back through out-parameters.  Problems in
 * user input are added to a struct eng_diag as "FILE:LINE: reason" so that a
 * caller can print every problem found, not just the first.
 */
#ifndef ENGINE_H
#define ENGINE_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#define ENG_TRACK_NAME_MAX 16	/* including the NUL: "V", "A1" .. "A99" */
#define ENG_NS_PER_SEC 1000000000ULL

/* ------------------------------------------------------------------ */
/* Diagnostics                                                          */

/* A growable list of messages, each "FILE:LINE: reason" (or "FILE: reason"
 * when line is 0), escaped with eng_escape() as a whole: the file names,
 * clip names and other input text in it reach a terminal or log as one
 * printable line.  Owned by the caller; free with eng_diag_free(). */
struct eng_diag {
	char **msgs;
	size_t n;
	size_t cap;
};

/* Append one message; on allocation failure the message is dropped and
 * diag->n is left unchanged (the caller still sees the earlier ones). */
void eng_diag_add(struct eng_diag *diag, const char *file, unsigned line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void eng_diag_vadd(struct eng_diag *diag, const char *file, unsigned line,
		   const char *fmt, va_list ap);
void eng_diag_free(struct eng_diag *diag);

/* A printable copy of s[0..len) for messages, in the manner of ls -b: a
 * backslash is doubled, newline, CR and tab become \n \r \t, and every
 * other byte that a terminal could act on or that is not text becomes
 * \xNN (lower-case hex): C0 controls, NUL, DEL, the bytes of invalid
 * UTF-8 (stray continuation bytes, overlong forms, surrogates, past
 * U+10FFFF, truncated sequences), and every byte of the valid UTF-8 of a
 * C1 control (U+0080-U+009F: 0xc2 0x9b is a CSI to some terminals), a
 * line or paragraph separator (U+2028/9) or a bidirectional control
 * (U+200E/F, U+202A-E, U+2066-9: they reorder what a reader sees).  Other
 * UTF-8 ("café") is kept.  s is only read: names stay byte-exact where
 * they are stored.  Returns a malloc'ed NUL-terminated string (at most
 * 4 * len + 1 bytes), NULL on ENOMEM. */
char *eng_escape(const char *s, size_t len);

/* A parser's problem counter: every problem is added to diag (which may
 * be NULL) and counted in n, so that a parser knows it failed even when
 * a message could not be stored. */
struct eng_problems {
	struct eng_diag *diag;
	const char *path;	/* names the file in every message */
	unsigned n;
};
void eng_problem(struct eng_problems *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void eng_vproblem(struct eng_problems *p, unsigned line, const char *fmt,
		  va_list ap);

/* ------------------------------------------------------------------ */
/* Value parsing shared by the parsers, options and the generator       */

struct eng_fps {
	uint32_t num;
	uint32_t den;
};

/* "30000/1001", "25", "29.97", "23.976", "59.94" (the NTSC decimals map to
 * N*1000/1001).  Returns 0 or -EINVAL. */
int eng_parse_fps(const char *s, struct eng_fps *out);

/* Byte counts and rates: "18000000", "18M" (powers of 1000: K M G T),
 * "18Mi" (powers of 1024: Ki Mi Gi Ti), optional trailing "B".
 * Returns 0, -EINVAL, or -ERANGE on overflow. */
int eng_parse_size(const char *s, uint64_t *out);

/* A non-negative decimal integer that fits in int64_t; 0 or -EINVAL. */
int eng_parse_int(const char *s, int64_t *out);

/* The value of hex digit c (0-9, a-f, A-F), or -1: the %XX escapes of
 * .tl clip words and of OTIO file URLs. */
int eng_hex_digit(char c);

/* Greatest common divisor (Euclid); gcd(a, 0) = a, gcd(0, 0) = 0. */
uint64_t eng_gcd64(uint64_t a, uint64_t b);

/* The next line of text[*i..len): its start, its length without the line
 * end (LF or CRLF) in *n; NULL at the end.  For the /proc, /sys and config
 * texts of kconfig.c and env.c. */
const char *eng_next_line(const char *text, size_t len, size_t *i, size_t *n);

/* Kernel build config text (engine/kconfig.c): what /proc/config.gz holds
 * decompressed, or /boot/config-RELEASE; len bytes, NUL not needed; lines
 * end LF or CRLF.  The value of the line "KEY=VALUE" (the first such),
 * as written (a string keeps its quotes), copied NUL-terminated into
 * buf[buflen].  Returns 0, -ENOENT when no such line ("# KEY is not set"
 * is none) or -ERANGE when the value does not fit. */
int eng_kconfig_get(const char *text, size_t len, const char *key,
		    char *buf, size_t buflen);
/* CONFIG_HZ of a kernel build config, the tick rate of its timer: > 0, or
 * -ENOENT when the text has no CONFIG_HZ line, -EINVAL when its value is
 * not a positive decimal of at most 1000000. */
int eng_kconfig_hz(const char *text, size_t len);

/* ------------------------------------------------------------------ */
/* Run environment (engine/env.c): parsers of /proc and /sys texts of len
 * bytes (no NUL needed; lines end LF or CRLF), for the run_env rows. */

/* /proc/cpuinfo: the CPU model (x86 "model name", else "Processor", "cpu
 * model", "cpu", "CPU part"), blanks trimmed, into model[mlen], and the
 * number of "processor" lines into *count.  0, -ENOENT (processors but no
 * model line: *count is set), -EINVAL (neither), -ERANGE (too long). */
int eng_env_cpuinfo(const char *text, size_t len, char *model, size_t mlen,
		    unsigned *count);
/* /proc/meminfo: "KEY:   N kB" into *kb.  0, -ENOENT, -EINVAL. */
int eng_env_meminfo(const char *text, size_t len, const char *key,
		    uint64_t *kb);
/* /proc/timer_list: the line "jiffies: N" into *jiffies.  0, -ENOENT,
 * -EINVAL. */
int eng_env_jiffies(const char *text, size_t len, uint64_t *jiffies);
/* A choice among words, the chosen one marked ("none [mq-deadline] kyber"
 * in sysfs, "none voluntary (full)" in debugfs) or alone ("none"): the
 * chosen word into buf[buflen].  0, -EINVAL, -ERANGE. */
int eng_env_selected(const char *text, size_t len, char *buf,
		     size_t buflen);
/* The kernel command line's KEY=VALUE (the last one, as the kernel takes
 * it; nothing after " -- ", which is init's): VALUE into buf[buflen].  0,
 * -ENOENT, -ERANGE. */
int eng_env_cmdline_get(const char *cmdline, const char *key, char *buf,
			size_t buflen);
/* The preemption model a kernel config (and command line, may be NULL)
 * gives: "rt", "lazy", "full", "voluntary" or "none" from CONFIG_PREEMPT*
 * (what debugfs sched/preempt would show, where it is not readable); a
 * CONFIG_PREEMPT_DYNAMIC kernel booted with preempt=X runs X
 * (*from_cmdline set).  0, -ENOENT, -ERANGE. */
int eng_env_preempt(const char *config, size_t len, const char *cmdline,
		    char *buf, size_t buflen, int *from_cmdline);

/* The mount (of /proc/self/mountinfo's text) that holds the canonical
 * absolute path: the longest mount point that is path or a parent of it,
 * the last of equal ones (mounted over the others).  Escapes (\040) are
 * undone.  options is the mount's own options, a blank, then the super
 * block's. */
struct eng_mount {
	char mount_point[4096];
	char fstype[64];
	char source[4096];
	char options[1024];
	unsigned major, minor;
};
/* 0, or -ENOENT when no line holds path. */
int eng_env_mountinfo(const char *text, size_t len, const char *path,
		      struct eng_mount *m);

/* The timer's tick rate measured: jiffies read through read() (0 or
 * -errno) at 4 consecutive changes at each end of an interval of
 * interval_ns (io's now and sleep_until), each change placed midway
 * between the readings around it (readings more than 1 ms apart are not
 * used), the least late change of each end (a tick is never early) giving
 * the rate.  The interval is stretched (to 5 x interval_ns at most) until
 * the readings' gaps leave an error within 0.25 Hz: the rate rounds to
 * the right whole Hz.  0 and *hz, -ETIMEDOUT (no change of jiffies read
 * closely within 1 s), read()'s error, -EINVAL. */
typedef int eng_jiffies_fn(void *ctx, uint64_t *jiffies);
struct eng_io;
int eng_env_measure_hz(const struct eng_io *io, eng_jiffies_fn *read,
		       void *ctx, uint64_t interval_ns, double *hz);

/* ------------------------------------------------------------------ */
/* Timeline model                                                       */

/* One edit on one track: timeline frames [rec_in, rec_in + frames) play
 * source frames [src_in, src_in + frames) of clip `clip`. */
struct eng_segment {
	uint32_t clip;		/* index into eng_timeline.clips */
	int64_t src_in;
	int64_t rec_in;
	int64_t frames;
	unsigned line;		/* defining line of the timeline file */
};

/* The file that holds one clip's essence for one track. */
struct eng_media {
	char *file;		/* name inside MEDIA_DIR; NULL: not used */
	uint64_t header;	/* offset of the essence: WAV data chunk, 0 raw */
	uint64_t size;		/* essence bytes available after header */
};

struct eng_track {
	char name[ENG_TRACK_NAME_MAX];
	/* The track whose media files this one reads: its own name, except
	 * for a transition track "Tx" added after a track "T" (the outgoing
	 * side of a dissolve or wipe, see edl_parse.c): that reads T's
	 * files, since it plays the same clips' essence. */
	char media[ENG_TRACK_NAME_MAX];
	uint64_t rate;		/* bytes of essence per second */
	uint32_t align;		/* bytes per sample unit (>= 1) */
	struct eng_segment *segs; /* after finalize: sorted, disjoint */
	size_t nsegs;
	size_t cap;
};

struct eng_clip {
	char *name;
	unsigned line;		/* first line that uses the clip */
	struct eng_media *media; /* [ntracks] after eng_media_resolve */
};

struct eng_timeline {
	char *name;		/* file name without extension */
	char *path;		/* the timeline file, as given */
	struct eng_fps fps;
	struct eng_track *tracks;
	size_t ntracks;
	struct eng_clip *clips;
	size_t nclips;
	/* Filled by eng_tl_finalize(): */
	int64_t frames;		/* length of the longest track */
	uint64_t bytes;		/* size of the virtual file */
	uint64_t frame_bytes_min; /* smallest and largest frame of the file */
	uint64_t frame_bytes_max;
};

/* Create an empty timeline; name and path are copied.  NULL on ENOMEM. */
struct eng_timeline *eng_tl_new(const char *name, const char *path);
void eng_tl_free(struct eng_timeline *tl);

/* Whether name is a valid track name: 1..15 of [A-Za-z0-9_]. */
int eng_track_name_valid(const char *name);
/* Add a track; returns its index, -EEXIST (same name), -EINVAL (bad name:
 * must be 1..15 of [A-Za-z0-9_], rate 0 or align 0) or -ENOMEM. */
int eng_tl_add_track(struct eng_timeline *tl, const char *name,
		     uint64_t rate, uint32_t align);
/* Index of the named track or -ENOENT. */
int eng_tl_find_track(const struct eng_timeline *tl, const char *name);
/* Index of the named clip, adding it (with `line`) if new; -ENOMEM, or
 * -EINVAL when the name could leave the media folder or break a file name
 * (empty, ".", "..", contains '/', NUL or a control character). */
int eng_tl_clip(struct eng_timeline *tl, const char *name, unsigned line);
/* Append a segment in definition order (overlaps are resolved by
 * eng_tl_finalize: the later one wins).  -EINVAL for frames <= 0 or a
 * negative src_in/rec_in, -ENOMEM. */
int eng_tl_add_segment(struct eng_timeline *tl, size_t track, uint32_t clip,
		       int64_t src_in, int64_t rec_in, int64_t frames,
		       unsigned line);
/* End (exclusive) of the last frame defined so far on a track: where an
 * appended event starts. */
int64_t eng_tl_track_end(const struct eng_timeline *tl, size_t track);
/* Resolve overlaps (later definition wins; an overlapped segment is trimmed
 * or split, its src_in moved accordingly), sort, and compute frames, bytes
 * and frame sizes.  Adds a message and returns -EINVAL for a timeline with
 * no track or no frame; -ENOMEM. */
int eng_tl_finalize(struct eng_timeline *tl, struct eng_diag *diag);

/* ------------------------------------------------------------------ */
/* Byte layout (DESIGN.md): closed forms, no per-frame tables           */

/* Bytes of a track of `rate`/`align` before frame k at `fps`:
 * floor(k * rate * den / (num * align)) * align. */
uint64_t eng_upto_rate(uint64_t rate, uint32_t align, struct eng_fps fps,
		       int64_t k);
/* Bytes of track t before frame k. */
uint64_t eng_upto(const struct eng_timeline *tl, size_t t, int64_t k);
/* Offset in the virtual file of frame k (k may equal tl->frames). */
uint64_t eng_frame_offset(const struct eng_timeline *tl, int64_t k);
/* Size of frame k (all tracks). */
uint64_t eng_frame_size(const struct eng_timeline *tl, int64_t k);
/* The frame holding byte `off` (off < tl->bytes): binary search,
 * O(log frames). */
int64_t eng_frame_at(const struct eng_timeline *tl, uint64_t off);
/* The segment of track t covering frame k, or NULL for a gap:
 * binary search, O(log segments).  Needs a finalized timeline. */
const struct eng_segment *eng_segment_at(const struct eng_track *trk,
					 int64_t k);

/* Frame k's slice of track t. */
struct eng_slice {
	int64_t frame;
	size_t track;
	uint64_t pos;		/* offset in the virtual file */
	uint64_t len;		/* upto(t, k+1) - upto(t, k); may be 0 */
	const struct eng_segment *seg; /* NULL: a gap, zeros, no read */
	uint64_t file_off;	/* header + upto(t, src_in + k - rec_in) */
};
void eng_slice_get(const struct eng_timeline *tl, int64_t k, size_t t,
		   struct eng_slice *out);

/* ------------------------------------------------------------------ */
/* Timeline parsers: text in, finalized timeline out                   */

/* Native .tl (DESIGN.md).  `path` names the file in messages, `name` is
 * the timeline's name; text[0..len) need not be NUL-terminated.  '#' at
 * the start of a word begins a comment (so a clip may be named "take#2").
 * In a clip word %XX (two hex digits) is the byte XX, as eng_tl_write
 * spells a blank, '#' or '%' ("shot%20one" is the clip "shot one"); a '%'
 * not followed by two hex digits is itself.  The decoded name is the one
 * checked ("a%2Fb" holds a '/': refused).
 * Every problem found is added to diag; returns 0, -EINVAL (diag has the
 * reasons) or -ENOMEM; *out is NULL on failure. */
int eng_tl_parse(const char *path, const char *name, const char *text,
		 size_t len, struct eng_timeline **out, struct eng_diag *diag);

/* A growable NUL-terminated text (the .tl writers).  Start zeroed; after
 * an allocation failure err is -ENOMEM and further appends do nothing, so
 * a writer checks once at the end.  The caller frees p. */
struct eng_strbuf {
	char *p;
	size_t len;
	size_t cap;
	int err;
};
void eng_strbuf_printf(struct eng_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Read a whole file into a NUL-terminated buffer (for the parsers); the
 * caller frees *text.  Returns 0 or -errno; -EFBIG over 64 MiB (a timeline
 * is text: that is a mistake, not an edit); -EISDIR for a folder and
 * -EINVAL for another file that is not a regular file (a FIFO, device or
 * socket), which is opened non-blocking and never read: a FIFO without a
 * writer would block its reader for ever.  *len excludes the NUL. */
int eng_read_file(const char *path, char **text, size_t *len);

/* A SMPTE timecode as written (engine/timecode.c). */
struct eng_tc {
	unsigned hh, mm, ss, ff;
	int drop;		/* the separator before FF is ';', '.' or ',' */
	char text[16];		/* as written, for messages */
};

/* "HH:MM:SS:FF": two digits a field (FF three above 99 fps), each
 * separator one of ':' ';' '.' ','; the one before FF other than ':'
 * marks drop frame (01:00:00;00).  No blanks, signs or junk.  Returns 0,
 * -EINVAL for another form, -ERANGE for minutes or seconds above 59 (*tc
 * is filled but for that). */
int eng_tc_parse(const char *s, struct eng_tc *tc);
/* Timecode frames per second: the rate rounded, 30 at 30000/1001; 0 for
 * a rate with den 0. */
unsigned eng_tc_nominal(struct eng_fps fps);
/* Whether fps has drop-frame timecode: 29.97 and 59.94 (N*1000/1001). */
int eng_tc_drop_rate(struct eng_fps fps);
/* The frame count of tc at fps, counted drop frame (frame numbers 0-1, at
 * 59.94 0-3, skipped at every minute not divisible by ten) when tc->drop
 * or drop (an EDL's FCM: DROP FRAME).  Returns 0; -ERANGE when FF is not
 * below the nominal rate; -ENOTSUP for drop frame at a rate that has
 * none; -ENOENT for a timecode that drop frame skips. */
int eng_tc_frames(const struct eng_tc *tc, struct eng_fps fps, int drop,
		  int64_t *frames);

/* What formats that carry no rates need to build a timeline (EDL, OTIO).
 * The .tl format declares its own and ignores these. */
struct eng_load_options {
	struct eng_fps fps;	/* EDL frame rate: default 30000/1001 */
	uint64_t video_rate;	/* bytes/s of V tracks: default 18000000 */
	uint64_t audio_rate;	/* bytes/s of A tracks: default 144000 */
	uint32_t audio_align;	/* default 3 (24-bit mono) */
	enum {
		ENG_EDL_ORIGIN_MIN,	/* earliest source TC used = frame 0 */
		ENG_EDL_ORIGIN_ZERO,	/* 00:00:00:00 = frame 0 */
		ENG_EDL_ORIGIN_TC,	/* edl_origin_tc = frame 0 */
	} edl_origin;
	/* for ENG_EDL_ORIGIN_TC: counted by each EDL at its own rate (its
	 * sidecar or FPS comment), drop frame when written so or when the
	 * EDL's first event is under FCM: DROP FRAME */
	struct eng_tc edl_origin_tc;
	int strict;		/* skipped constructs become errors */
};

/* Fill o with the defaults above. */
void eng_load_options_default(struct eng_load_options *o);

/* The value of the mount's -o edl_origin= and timelinefs-gen
 * --edl-origin: "min", "zero" or a timecode (eng_tc_parse), into
 * o->edl_origin and o->edl_origin_tc.  Whether the timecode's frame
 * exists depends on each EDL's rate, so the EDL parser tells that.
 * Returns 0, or -EINVAL with the reason (lower case, no option name) in
 * why[len]. */
int eng_edl_origin_parse(const char *s, struct eng_load_options *o,
			 char *why, size_t len);

/* Whether `rate` bytes per second is an audio rate of an EDL/OTIO audio
 * track of `align`-byte mono samples (audio_align, 3): positive, whole
 * samples per second (a multiple of align), and a sample rate a WAVE
 * header can hold.  The mount's -o audio_rate= and timelinefs-gen's
 * --audio-rate both refuse what this refuses, with its reason.  Returns 0,
 * or -EINVAL with the reason (lower case, no option name) in why[len]. */
int eng_audio_rate_check(uint64_t rate, uint32_t align, char *why,
			 size_t len);

/* CMX 3600 EDL (engine/edl_parse.c); same contract as eng_tl_parse. */
int eng_edl_parse(const char *path, const char *name, const char *text,
		  size_t len, const struct eng_load_options *opt,
		  struct eng_timeline **out, struct eng_diag *diag);

/* OpenTimelineIO JSON (engine/otio_parse.c); same contract. */
int eng_otio_parse(const char *path, const char *name, const char *text,
		   size_t len, const struct eng_load_options *opt,
		   struct eng_timeline **out, struct eng_diag *diag);

/* Load a timeline file by its extension (.tl, .edl, .otio, in any case);
 * the timeline's name is the file name without directory and extension
 * ("REEL1.EDL" is "REEL1").  -ENOTSUP for an unknown extension, -EINVAL
 * for a path that is not a regular file (never opened: a FIFO would block
 * the load), each with a message; else as the parsers. */
int eng_timeline_load(const char *path, const struct eng_load_options *opt,
		      struct eng_timeline **out, struct eng_diag *diag);

/* Whether the mount loads the file `name` of its timelines folder: not
 * hidden, extension .tl, .edl or .otio in any case (Avid and others write
 * "REEL1.EDL"), as eng_timeline_load reads them.  timelinefs-gen --for
 * uses it to find the timelines already in DIR/timelines. */
int eng_timeline_listed(const char *name);

/* The names of the files of folder dir that eng_timeline_listed takes,
 * in strcmp order.  A listed name that is not a regular file once links
 * are followed (a FIFO, device, socket or folder named x.tl) is left out
 * with a note "DIR/NAME: skipped: ..." added to notes (may be NULL): such
 * a file would block or fail the load, and a folder is no place for it to
 * stop a mount.  Returns 0 with *names (NULL when there are none) and *n
 * set, to be freed with eng_names_free; or opendir's negative errno, or
 * -ENOMEM. */
int eng_timeline_names(const char *dir, char ***names, size_t *n,
		       struct eng_diag *notes);
void eng_names_free(char **names, size_t n);

/* The i-th spelling of a sidecar's suffix, ".fps" first (i = 0), then
 * ".fpS" ... ".FPS"; NULL past the last.  The sidecar of timeline PATH is
 * PATH followed by any one of them ("REEL1.EDL.fps" or "REEL1.EDL.FPS"),
 * as the extension of the timeline itself is read in any case. */
const char *eng_sidecar_ext(unsigned i);

/* The load options for the timeline file `path`: *def, with the frame rate
 * of a sidecar file PATH.fps ("NAME.edl.fps" holding e.g. "25", "23.976"
 * or "24000/1001"; ".fps" in any case, see eng_sidecar_ext) when one can
 * be read.  The rate is the first word after any UTF-8 BOM, blanks and
 * line ends; what follows it is ignored.  The mount and timelinefs-gen
 * --for both use it, so they load a timeline alike.  When sidecar is not
 * NULL, *sidecar is that word, malloc'ed (what --for writes beside the
 * copy), or NULL when there is no sidecar.  A sidecar that is not a
 * regular file (a FIFO, a device) is skipped, never opened blocking,
 * with a note added to notes (may be NULL).  Returns 0, -EINVAL for a
 * sidecar with no or a bad rate (one message naming its file and line
 * and quoting the word) or for two sidecars of one timeline (one message
 * naming both; *out is then *def), or -ENOMEM. */
int eng_load_options_for(const char *path, const struct eng_load_options *def,
			 struct eng_load_options *out, char **sidecar,
			 struct eng_diag *diag, struct eng_diag *notes);

/* The .tl text (engine/tl_write.c) of a finalized timeline from any
 * parser: a comment line naming it, fps, the tracks in order, then per
 * track one "event TRACK CLIP SRC FRAMES @REC" per resolved segment, in
 * record order.  Parsing it gives the same tracks, segments and clip
 * names (lines aside), hence the same virtual file, and writing that
 * again gives the same text.  In a .tl clip word %XX is the byte XX
 * (eng_tl_parse), so every '%' of a name is written %25.  A clip whose
 * name has no plain .tl spelling (a blank in it, or a leading '#') is one
 * message each and -EINVAL, unless flags has ENG_TL_WRITE_ESCAPE: then
 * every blank and '#' is written %XX too (upper-case hex); a second
 * comment line says so when a name was escaped.  *text is malloc'ed and
 * NUL-terminated (*len excludes the NUL; NULL on failure); returns 0,
 * -EINVAL or -ENOMEM. */
#define ENG_TL_WRITE_ESCAPE 1u
int eng_tl_write(const struct eng_timeline *tl, unsigned flags, char **text,
		 size_t *len, struct eng_diag *diag);

/* ------------------------------------------------------------------ */
/* Media                                                                */

/* How far into a .wav file the mount looks for its data chunk. */
#define ENG_WAV_HEAD_MAX 65536

/* Find the data chunk of a RIFF/WAVE header held in buf[0..len): sets the
 * offset of the first essence byte and the chunk's size.  -EINVAL when it is
 * not RIFF/WAVE or has no data chunk within len bytes. */
int eng_wav_data(const unsigned char *buf, size_t len, uint64_t *offset,
		 uint64_t *size);

/* Resolve every (clip, track) that a segment uses to the single file
 * MEDIA_DIR/NAME.TRACK.* in the directory open as dirfd (media_dir names it
 * in messages), find its essence offset, and check that it is long enough
 * for every segment.  Only regular files directly in the directory match
 * (symlinks are not followed; a non-regular match is named in the "no media
 * file" message); names never leave it.  *.wav (any case) is RIFF/WAVE: the
 * data chunk must be in its first 64 KiB.  dirfd is neither closed nor
 * moved.  Each missing, ambiguous, unreadable or short file is one message
 * naming timeline, line (of the first use; of the segment needing most for
 * a short file), clip and path.  Fills every clip's media[ntracks] (file
 * NULL where unused or unresolved; a second call starts over); returns 0,
 * -EINVAL or -ENOMEM. */
int eng_media_resolve(struct eng_timeline *tl, int dirfd,
		      const char *media_dir, struct eng_diag *diag);

/* Bytes of essence (after the header) that segment s of track t needs in
 * its clip file: the largest end over its frames of the slice at the
 * source frame's offset with the timeline frame's length (DESIGN.md), the
 * rule eng_media_resolve() checks files by and timelinefs-gen --for sizes
 * them by.  0, or -ERANGE when the need does not fit 64 bits. */
int eng_segment_bytes_needed(const struct eng_timeline *tl, size_t t,
			     const struct eng_segment *s, uint64_t *need);

/* ------------------------------------------------------------------ */
/* Injected clock and backing I/O                                       */

struct eng_io {
	/* CLOCK_MONOTONIC in ns */
	uint64_t (*now)(void *ctx);
	/* Sleep until now() >= ns (absolute). */
	void (*sleep_until)(void *ctx, uint64_t ns);
	/* Open a media file by name inside the media folder, read-only.
	 * With direct set, try O_DIRECT; *is_direct tells what was got.
	 * Returns an fd or -errno. */
	int (*open)(void *ctx, const char *file, int direct, int *is_direct);
	/* pread; returns bytes read or -errno. */
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len,
			 uint64_t off);
	/* Drop [off, off+len) of fd from the page cache, whole pages
	 * included: the pages it starts and ends in too (len 0: to the end
	 * of the file). */
	void (*dontneed)(void *ctx, int fd, uint64_t off, uint64_t len);
	void (*close)(void *ctx, int fd);
	void *ctx;
	/* Optional (NULL: never checked).  Is fd, got from open(file), still
	 * the readable regular file that `file` names?  The player calls it
	 * right after each open and then at most every ENG_MEDIA_CHECK_NS per
	 * open fd, so that a clip deleted, replaced (a symlink swapped in) or
	 * made unreadable while it is played fails its reads instead of
	 * serving the old inode.  0, or -ENOENT (deleted or renamed away),
	 * -ESTALE (the name now holds another file), -ELOOP (now a symlink),
	 * -EACCES (no read permission bit left), other -errno. */
	int (*check)(void *ctx, int fd, const char *file);
	/* Optional: pread that also says which faults were injected into it
	 * (ENG_INJECT_* bits, 0 for none); the player prefers it to pread. */
	ssize_t (*pread_ex)(void *ctx, int fd, void *buf, size_t len,
			    uint64_t off, unsigned *injected);
	/* Optional, all or none: zero copy (cfg.zero_copy).  A pipe is two
	 * ints the player keeps per ring slot and hands back; a backing read
	 * moves the file's pages into it instead of copying them into the
	 * ring, and the caller replies from it (see eng_player_read_zc).
	 * pipe_new: a pipe that holds `bytes` of data in page-sized pieces,
	 * fds[0] read end, fds[1] write end; -errno if it cannot be had.
	 * splice_in: pread of fd into write end wr; bytes moved or -errno.
	 * pipe_zero: len zero bytes into wr; len or -errno.
	 * pipe_skip: discard len bytes at the read end rd (SIZE_MAX: all it
	 * holds); 0, or -errno (-EIO: it held fewer than len).
	 * pipe_avail: the bytes the read end rd holds, or -errno.
	 * Nothing of these blocks. */
	int (*pipe_new)(void *ctx, size_t bytes, int fds[2]);
	void (*pipe_free)(void *ctx, const int fds[2]);
	ssize_t (*splice_in)(void *ctx, int fd, uint64_t off, size_t len,
			     int wr);
	ssize_t (*pipe_zero)(void *ctx, int wr, size_t len);
	int (*pipe_skip)(void *ctx, int rd, size_t len);
	ssize_t (*pipe_avail)(void *ctx, int rd);
};

/* How often the player re-checks an open media fd (struct eng_io.check). */
#define ENG_MEDIA_CHECK_NS (100 * 1000 * 1000ULL)

/* The real clock and I/O on the media folder open as dirfd (engine/io_real.c).
 * open() takes a plain file name (no '/', not "." or ".."; -EINVAL) and
 * resolves it with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the
 * kernel has it, else openat(O_NOFOLLOW); a symlink is -ELOOP, anything but
 * a regular file -EINVAL.  check() compares the fd with what the name holds
 * now (fstat vs fstatat) and treats a mode without any read bit as -EACCES
 * even for root.  One serves every player's filler at once: it holds no state
 * but the dirfd and two flags that any thread may set, atomic (no lock:
 * each says only itself, and a thread that misses a set one just finds it
 * again).  `warned_direct` is set when an O_DIRECT open was refused and a
 * buffered fd was returned. */
struct eng_io_real {
	int dirfd;		/* set by eng_io_real_init, read-only after */
	atomic_int warned_direct;
	atomic_int no_openat2;	/* the kernel has no openat2: O_NOFOLLOW */
};
void eng_io_real_init(struct eng_io *io, struct eng_io_real *real, int dirfd);

/* ------------------------------------------------------------------ */
/* Playback                                                             */

enum eng_pace_mode {
	ENG_PACE_REALTIME,	/* speed 1 */
	ENG_PACE_FACTOR,	/* speed N */
	ENG_PACE_OFF,		/* no waiting; deadlines still at speed 1 */
};

struct eng_pace {
	enum eng_pace_mode mode;
	double speed;		/* 1 for realtime and off */
};

/* "realtime", "off" or a positive factor ("2", "0.5").  0 or -EINVAL. */
int eng_pace_parse(const char *s, struct eng_pace *out);

enum eng_backing {
	ENG_BACKING_DIRECT,	/* O_DIRECT through an aligned bounce buffer */
	ENG_BACKING_BUFFERED,
	ENG_BACKING_DONTNEED,	/* buffered, then POSIX_FADV_DONTNEED */
};

/* "direct", "buffered", "dontneed".  0 or -EINVAL. */
int eng_backing_parse(const char *s, enum eng_backing *out);

/* One backing read, as the player issued it.  Times are now() values. */
struct eng_access {
	int64_t frame;
	uint32_t track;
	uint32_t clip;
	uint64_t file_offset;
	uint64_t length;
	uint64_t sched_ns;	/* when the player meant to issue it */
	uint64_t due_ns;	/* the frame's presentation time */
	uint64_t issued_ns;
	uint64_t done_ns;
	int err;		/* 0 or a positive errno */
	unsigned injected;	/* ENG_INJECT_* bits: faults injected into it */
};

typedef void (*eng_record_fn)(void *ctx, const struct eng_access *a);

struct eng_player_config {
	unsigned buffer;	/* frames of lead: due = issue + buffer/fps */
	struct eng_pace pace;
	enum eng_backing backing;
	size_t max_request;	/* largest read the caller will ask for */
	const struct eng_io *io;
	eng_record_fn record;	/* called once per backing read; may be NULL;
				 * from the filler thread when one runs */
	void *record_ctx;
	/* Paced players only (ignored for pace=off, which stays driven by
	 * the requests): frames are loaded on schedule by eng_player_fill(),
	 * which the thread of eng_player_start() runs, instead of by the
	 * request that needs them. */
	int filler;
	/* Let the player move frames through pipes (io->pipe_new ...) rather
	 * than its ring, so the caller can splice replies with no copy of
	 * the data in user space.  Taken only where a pipe's FIFO order fits:
	 * pace=off, buffered backing, frames large enough that a request
	 * spans at most ENG_ZC_MAX_SLOTS ring slots, and a first request of
	 * at least ENG_ZC_MIN_REQUEST bytes (a small-block reader is served
	 * best by a copy).  Decided at the first read, for the stream's
	 * life. */
	int zero_copy;
	/* The most pieces (iovecs) the caller's reply takes, 0 for no
	 * limit.  Where a request of max_request bytes could need more
	 * (frames of under max_request / max_pieces bytes whose sizes
	 * vary), the player keeps a spill buffer for the tail of such a
	 * request (struct eng_pieces), allocated here, never on the read
	 * path. */
	int max_pieces;
	/* Media files (one per (clip, track) played) the stream keeps open
	 * at once; past it the least recently used one is closed, and
	 * opened again when played again (counted in reopens).  An open
	 * that fails with EMFILE or ENFILE closes the least recently used
	 * ones and tries again, until none of the stream's is left: then
	 * the read fails with that errno (its frame with -EIO).  0: no
	 * limit but the process's. */
	unsigned max_files;
	/* Bytes of memory the stream may take (eng_player_mem); 0: no
	 * limit.  eng_player_new refuses more with -EFBIG. */
	uint64_t mem_max;
};

/* Defaults of the mount's -o stream_mem and -o stream_files.  Memory:
 * eng_player_mem at buffer=8 and 1 MiB requests is 8.7 MiB for the seed
 * preset (frames of 610 KB) and 63.5 MiB for the largest of
 * timelinefs-gen --format, v210-1080p (5.5 MB frames, 11 slots), 85 MiB
 * unpaced with zero copy: 256 MiB is three times that, and refuses what
 * would take gigabytes (buffer=10000: 6.1 GB a stream of the seed;
 * video_rate=18G: 7.2 GB).  Files: a frame holds one file per track open
 * (3 in the seed, 5 in the other presets); 64 keeps a stream's recent
 * clips open, and 64 per stream is 16384 streams under a hard
 * RLIMIT_NOFILE of 1048576 (the daemon raises its soft limit to it). */
#define ENG_PLAYER_MEM_DEFAULT (256ULL << 20)
#define ENG_PLAYER_FILES_DEFAULT 64
/* Where the open file limit is lower, the default shrinks so that
 * ENG_PLAYER_STREAMS_EXPECTED streams (the paced streams README
 * "Performance" measured on 2 cores) fit beside ENG_PLAYER_FDS_OWN fds of
 * the daemon's own, but to no fewer than ENG_PLAYER_FILES_MIN (the tracks
 * of a frame of any preset open at once). */
#define ENG_PLAYER_STREAMS_EXPECTED 128
#define ENG_PLAYER_FDS_OWN 64
#define ENG_PLAYER_FILES_MIN 8
/* The default -o stream_files under an open file limit of nofile:
 * (nofile - ENG_PLAYER_FDS_OWN) / ENG_PLAYER_STREAMS_EXPECTED, within
 * [ENG_PLAYER_FILES_MIN, ENG_PLAYER_FILES_DEFAULT] (1024: 7, so 8;
 * 20000: 155, so 64). */
unsigned eng_player_files_default(uint64_t nofile);

#define ENG_ZC_MIN_REQUEST (64 * 1024)
#define ENG_ZC_MAX_SLOTS 16

/* The pieces (iovecs) of one reply, built a part at a time, for a caller
 * whose reply takes at most max pieces (engine/pieces.c).  A part that
 * starts where the piece before it ends joins that piece (frames of one
 * size fill the ring without holes: at most 2 pieces, at its wrap).  A
 * part that would make max + 1 pieces turns the last piece into a copy
 * in spill, and every later part is copied after it: the first max - 1
 * pieces stay where they are, only the tail of a reply of many small
 * parts is copied. */
struct eng_pieces {
	struct iovec *iov;	/* [max]; iov[0..n) are the pieces */
	int max;
	int n;
	unsigned char *spill;	/* [spill_cap], may be NULL */
	size_t spill_cap;
	size_t spilled;		/* bytes in spill: 0 until it is used */
};
void eng_pieces_init(struct eng_pieces *pb, struct iovec *iov, int max,
		     void *spill, size_t spill_cap);
/* Append len bytes at base (not copied unless they spill).  0, or
 * -E2BIG: more than max pieces and the spill cannot hold the tail (then
 * the pieces are as they were before the call). */
int eng_pieces_add(struct eng_pieces *pb, const void *base, size_t len);
/* The spill eng_pieces_add() can need for a reply of up to len bytes
 * whose parts, but for the first and the last, are at least part_min
 * bytes each (whole frames: tl->frame_bytes_min), with max pieces.  0:
 * such a reply never spills. */
size_t eng_pieces_spill_need(size_t len, size_t part_min, int max);

struct eng_player;

/* Create a player (one stream) over a finalized, media-resolved timeline.
 * All buffers are allocated here, none on the read path.  The clock starts
 * at the first read.  Returns 0, -EINVAL (buffer 0, max_request 0),
 * -EFBIG (more memory than cfg->mem_max), -ENOMEM. */
int eng_player_new(const struct eng_timeline *tl,
		   const struct eng_player_config *cfg,
		   struct eng_player **out);
/* The memory a player of tl with cfg takes, allocated and touched at
 * eng_player_new, for as long as the stream is open: its ring of *slots
 * frames of tl->frame_bytes_max bytes (the frames a request and a
 * concurrent readahead window span, plus cfg->buffer for a filled player),
 * the O_DIRECT bounce buffer, the zero-copy pipes' pages where zero copy
 * may be taken (they are kernel memory, as much as the ring again) and
 * the tables per slot and per (clip, track).  Saturates at UINT64_MAX.
 * Needs only tl, buffer, max_request, pace, backing, filler and
 * zero_copy of cfg.  0, or -EINVAL as eng_player_new. */
int eng_player_mem(const struct eng_timeline *tl,
		   const struct eng_player_config *cfg, uint64_t *bytes,
		   uint64_t *slots);
/* Whether a stream of tl fits in limit bytes (a mount's -o stream_mem):
 * 0, or -EFBIG with one message naming the timeline's file, the bytes a
 * stream needs, how (frames of the ring, their size, the buffer) and the
 * limit, and the options that change either; -EINVAL as eng_player_mem. */
int eng_player_mem_check(const struct eng_timeline *tl,
			 const struct eng_player_config *cfg, uint64_t limit,
			 struct eng_diag *diag);
/* Stop the filler (eng_player_stop), close the player's media fds, free it. */
void eng_player_free(struct eng_player *p);

/* Serve [off, off+len) of the virtual file and point iov[0..*iovcnt) into
 * the player's ring.  The first read anchors the clock (t0), a read far
 * from the play head re-anchors it (a seek), a read a little behind the
 * ring reads those frames again on the same clock.
 * Without a filler (pace=off, cfg.filler unset, or no filler thread
 * running) the read loads the frames it covers itself (sleeping through
 * io->sleep_until until each frame's issue time, one pread per non-gap
 * slice), and the frames already due after them.  With a filler thread it
 * waits until the filler has loaded them.
 * Returns the number of bytes (0 at or past the end) with the player's
 * request lock HELD: other requests wait, the filler goes on but never
 * evicts the request's frames, so the iovecs stay valid until
 * eng_player_unlock().  Frames contiguous in the ring are one iovec; with
 * iovmax at least cfg.max_pieces, a request that would need more iovecs
 * than that has its tail copied (struct eng_pieces).  Returns -EIO (a
 * backing read failed or came up short), -E2BIG (len > max_request, or
 * more than iovmax iovecs needed and no spill sized for iovmax: iovmax
 * below cfg.max_pieces, or max_pieces 0),
 * -EXDEV (a zero-copy player: see eng_player_read_zc) or -EINVAL, with
 * the request lock released. */
ssize_t eng_player_read(struct eng_player *p, uint64_t off, size_t len,
			struct iovec *iov, int iovmax, int *iovcnt);
/* A piece of a zero-copy reply: len bytes at the read end fd of a pipe. */
struct eng_piece {
	int fd;
	size_t len;
};
/* eng_player_read() for a zero-copy player: the frames' bytes wait in the
 * pieces' pipes, in order; the caller moves exactly those bytes out (one
 * splice reply) and then calls eng_player_zc_done(), which releases the
 * request lock.  The first read decides: -EXDEV (no lock held) when the
 * player uses its ring, and from then on; call eng_player_read() instead.
 * A request that starts before what a pipe still holds (bytes already
 * handed out) reads those frames again, as for a re-read behind the ring.
 * Other returns as eng_player_read(). */
ssize_t eng_player_read_zc(struct eng_player *p, uint64_t off, size_t len,
			   struct eng_piece *pc, int pcmax, int *pccnt);
/* End of a zero-copy request.  consumed: the reply says it took every
 * byte of the pieces, which the player checks against what the pipes
 * still hold (io->pipe_avail); 0, or pipes that disagree (a failed reply,
 * how far it got unknown), empties every pipe so that the next request
 * reads its frames again. */
void eng_player_zc_done(struct eng_player *p, int consumed);
/* eng_player_read() that does not wait for the filler: for a filled player
 * whose frames are not all loaded yet it returns -EAGAIN (request lock
 * released) after positioning the clock and the ring as the read would,
 * and never loads frames itself.  For tests that drive eng_player_fill(). */
ssize_t eng_player_try_read(struct eng_player *p, uint64_t off, size_t len,
			    struct iovec *iov, int iovmax, int *iovcnt);
void eng_player_unlock(struct eng_player *p);

/* What eng_player_fill() did, or what the filler waits for. */
enum eng_fill {
	ENG_FILL_LOADED = 1,	/* loaded a frame: call again at once */
	ENG_FILL_AT,		/* the next frame is issued at *next_ns */
	ENG_FILL_IDLE,		/* no clock yet, the ring is full up to the
				 * latest request, or the timeline is done:
				 * wait for a request */
};
/* One step of the filler of a filled player (cfg.filler, paced): load the
 * next frame if the clock is anchored, its issue time has come and the
 * ring has room.  Never sleeps; does the frame's preads without the
 * player's locks.  Returns an ENG_FILL_*, or -EINVAL (not a filled
 * player).  Not to be called while the filler thread runs. */
int eng_player_fill(struct eng_player *p, uint64_t *next_ns);
/* Stack of a filler thread: it reads into the ring, records, nothing more. */
#define ENG_FILLER_STACK (256 * 1024)
/* Start the filler thread of a filled player: it runs eng_player_fill()
 * and waits on CLOCK_MONOTONIC (the clock eng_io.now must be) until the
 * next issue time, or until a request anchors, seeks or makes room.  0
 * (also for a player without a filler, or one already started) or -errno
 * from pthread_create.  Call before the first read. */
int eng_player_start(struct eng_player *p);
/* Stop and join the filler thread (a frame it is reading is finished and
 * recorded first); no-op when none runs.  No record callback runs after it
 * returns. */
void eng_player_stop(struct eng_player *p);

/* eng_player_read() then copy into buf and unlock: for tests and callers
 * that want one contiguous buffer. */
ssize_t eng_player_copy(struct eng_player *p, void *buf, size_t len,
			uint64_t off);

struct eng_player_stats {
	uint64_t bytes;		/* bytes served to the reader */
	int64_t frames;		/* frames loaded (played) */
	int64_t late_frames;	/* frames whose last read was done after due */
	int64_t failed_frames;	/* frames with a failed read */
	uint64_t accesses;	/* backing reads issued */
	int64_t requests;	/* reads answered with data (FUSE requests) */
	int64_t reloads;	/* played frames loaded again (their reads are
				 * accesses; not played or late twice) */
	int64_t seeks;		/* re-anchorings after the first */
	int64_t head;		/* next frame to load */
	uint64_t worst_ns;	/* largest done - issued */
	uint64_t opens;		/* media files opened (successfully) */
	uint64_t reopens;	/* of those, files the stream had open before
				 * and closed (cfg.max_files, an EMFILE, a
				 * failed io->check) */
	uint64_t open_retries;	/* opens that failed with EMFILE/ENFILE and
				 * were tried again after closing one */
	unsigned files_open;	/* media files open now */
	unsigned files_peak;	/* most open at once */
};
void eng_player_stats(struct eng_player *p, struct eng_player_stats *st);
/* Frames the player's ring holds (fixed at eng_player_new). */
size_t eng_player_slots(const struct eng_player *p);

/* ------------------------------------------------------------------ */
/* Fault injection (engine/inject.c): an eng_io wrapper, unreliablefs-style */

#define ENG_INJECT_DELAY 1u	/* the read was delayed */
#define ENG_INJECT_ERROR 2u	/* the read failed with an injected errno */
#define ENG_INJECT_MAX_RULES 32

/*
 * A spec is rules separated by ';' or '+'; a rule is ':'-separated
 * key=value fields (',' is never used: mount options split on it):
 *     clip=GLOB        clip name (fnmatch; default *)
 *     track=GLOB       track name (V, A1, A*; default *)
 *     delay=D[-D][@P]  sleep D (or uniform in [D1, D2]) before the read;
 *                      D is a number with unit ns, us, ms or s
 *     error=E[@P]      fail the read with errno E (EIO, ENOSPC, ETIMEDOUT,
 *                      EACCES, ENOENT, ESTALE, ENXIO, ENODATA or a number)
 *     seed=N           seed of the random choices (default 1; any rule)
 * P is the probability per read: 0.01, 1% (default 1).  A rule needs a
 * delay or an error.  Every rule matching a read applies: delays add up,
 * the first matching error wins.
 * Example: "clip=clip000*:track=V:delay=1ms-20ms;track=A1:error=EIO@0.01".
 */
struct eng_inject;

/* Parse spec.  Each problem is added to diag as "inject:RULE: reason"
 * (RULE counts from 1); returns 0, -EINVAL (diag says why) or -ENOMEM;
 * *out is NULL on failure.  Free with eng_inject_free(). */
int eng_inject_parse(const char *spec, struct eng_inject **out,
		     struct eng_diag *diag);
/* Number of rules of a parsed spec. */
size_t eng_inject_rules(const struct eng_inject *inj);
/* Make *out an eng_io that forwards to *inner (which must outlive it, as
 * must inj) with the faults of inj on the reads of the files whose names
 * match (media file NAME.TRACK.EXT, as eng_media_resolve names them).
 * Delays sleep with inner's clock; choices come from a seeded eng_rng, so
 * a single-threaded sequence of reads is reproducible.  Thread-safe.
 * 0, or -EINVAL when inner lacks pread/open/close/now/sleep_until. */
int eng_inject_wrap(struct eng_inject *inj, const struct eng_io *inner,
		    struct eng_io *out);

struct eng_inject_stats {
	uint64_t reads;		/* preads through the wrapper */
	uint64_t matched;	/* reads of a file some rule matches */
	uint64_t delayed;	/* reads delayed */
	uint64_t delay_ns;	/* total injected delay */
	uint64_t errors;	/* reads failed by injection */
};
void eng_inject_stats(struct eng_inject *inj, struct eng_inject_stats *st);
void eng_inject_free(struct eng_inject *inj);

/* ------------------------------------------------------------------ */
/* Generator (logic of timelinefs-gen)                                  */

/* A fast seeded PRNG (splitmix64 seeding xoshiro256**). */
struct eng_rng {
	uint64_t s[4];
};
void eng_rng_seed(struct eng_rng *r, uint64_t seed);
uint64_t eng_rng_next(struct eng_rng *r);
/* Uniform integer in [lo, hi] (inclusive). */
uint64_t eng_rng_range(struct eng_rng *r, uint64_t lo, uint64_t hi);
/* Fill buf with pseudo-random bytes (never long runs of zeros). */
void eng_rng_fill(struct eng_rng *r, void *buf, size_t len);

/* Write a 44-byte canonical PCM WAVE header for `data_bytes` of essence:
 * one channel of `bits`-bit samples at `sample_rate` Hz. */
void eng_wav_header(unsigned char out[44], uint32_t sample_rate,
		    uint16_t bits, uint64_t data_bytes);

/* The generator's plan (engine/gen.c): pure logic, the CLI fs/gen_main.c
 * does the file I/O.  Streams: eng_rng_next() is xoshiro256**, seeded by
 * eng_rng_seed() through splitmix64.  eng_rng_fill() stores each 64-bit
 * output little-endian, replacing an all-zero word by a fixed non-zero one,
 * so no run of zero bytes is longer than 14; filling a then b bytes (a a
 * multiple of 8) gives the same bytes as filling a + b; a tail shorter
 * than 8 takes the low bytes of one more output. */

/* The one version of timelinefs: VERSION in the Makefile, passed to every
 * compile as -DTLFS_VERSION. */
#ifndef TLFS_VERSION
#error "TLFS_VERSION comes from the Makefile: build with make"
#endif
#define ENG_GEN_VERSION TLFS_VERSION
#define ENG_GEN_AUDIO_ALIGN 3	/* generated audio is 24-bit mono PCM */
#define ENG_GEN_WAV_HEADER 44

/* One well-mixed seed from (seed, a, b), for independent streams: the CLI
 * uses (seed, clip, track) per clip file (track 0 = V, t = At) and
 * (seed, ENG_GEN_TIMELINE_DOMAIN | timeline, 0) per timeline plan. */
uint64_t eng_rng_derive(uint64_t seed, uint64_t a, uint64_t b);
#define ENG_GEN_TIMELINE_DOMAIN (1ULL << 63)

/* Seconds as written on a command line ("8", "3.5", "0.25"; at most 6
 * decimals) in microseconds.  0, -EINVAL, or -ERANGE (over 10^12 s). */
int eng_gen_parse_seconds(const char *s, int64_t *us);
/* The shortest decimal form of us microseconds: "8", "3.5"; always
 * NUL-terminated, truncated to len. */
void eng_gen_seconds_str(int64_t us, char *buf, size_t len);
/* round(us * fps / 10^6), halves rounding up; us >= 0. */
int64_t eng_gen_frames(int64_t us, struct eng_fps fps);

/* What timelinefs-gen makes (its options; lengths in microseconds). */
struct eng_gen_config {
	uint32_t clips;		/* clip0001 .. */
	int64_t clip_us;	/* length of every clip */
	uint32_t timelines;	/* timelines/timeline01.tl .. */
	uint32_t events;	/* per timeline */
	int64_t min_us;		/* event length, uniform in frames over */
	int64_t max_us;		/* [frames(min_us), frames(max_us)] */
	struct eng_fps fps;
	uint64_t video_rate;	/* bytes per second of track V */
	uint32_t audio_tracks;	/* A1 .. AN; 0 is allowed */
	uint64_t audio_rate;	/* bytes per second per audio track */
	uint64_t seed;
};

/* The seed scenario: 24 clips of 8 s, 15 timelines of 21 events of 3-5 s,
 * 30000/1001 fps, V at 18000000 B/s, 2 audio tracks at 144000 B/s, seed 1. */
void eng_gen_config_default(struct eng_gen_config *c);

/* A format preset of timelinefs-gen --format NAME: a frame rate, the video
 * track's data rate and the audio tracks of one real-world format.
 * frame_bytes is the fixed size of one video frame for the formats that
 * have one (uncompressed, DNxHD/DNxHR), else 0 (ProRes: a target rate);
 * video_rate is then frame_bytes * fps rounded down.  source says where
 * the data rate comes from. */
struct eng_gen_format {
	const char *name;	/* "prores-hq-1080p29.97" */
	const char *summary;	/* one line: raster, sampling, codec */
	const char *source;	/* document the data rate is taken from */
	struct eng_fps fps;
	uint64_t frame_bytes;	/* 0 when the format has no fixed size */
	uint64_t video_rate;	/* bytes per second of track V */
	uint32_t audio_tracks;	/* >= 2, each 48 kHz 24-bit mono */
	uint64_t audio_rate;	/* 144000 */
};

/* The presets in listing order (the first is the seed scenario, equal to
 * eng_gen_config_default's values); *n is set to their count.  The table
 * is static and constant. */
const struct eng_gen_format *eng_gen_formats(size_t *n);
/* The preset named `name` (exact, case-sensitive), or NULL. */
const struct eng_gen_format *eng_gen_format_find(const char *name);
/* Set c's fps, video_rate, audio_tracks and audio_rate from f; the other
 * fields (clips, lengths, timelines, seed) are left as they are. */
void eng_gen_format_apply(struct eng_gen_config *c,
			  const struct eng_gen_format *f);

/* Sizes derived from a valid config. */
struct eng_gen_sizes {
	int64_t clip_frames;	/* frames(clip_us) */
	int64_t min_frames;	/* >= 1 */
	int64_t max_frames;	/* <= clip_frames */
	uint32_t sample_rate;	/* audio_rate / 3 */
	uint64_t video_bytes;	/* size of clipNNNN.V.raw */
	uint64_t audio_bytes;	/* essence of clipNNNN.At.wav (after header) */
	uint64_t audio_file;	/* its file size: header, essence, RIFF pad */
	uint64_t media_bytes;	/* all clip files together */
	uint64_t media_files;	/* clips * (1 + audio_tracks) */
};

/* Validate a config and compute its sizes.  Each problem is added to diag
 * as "timelinefs-gen: --max-seconds 6 is longer than --clip-seconds 5"
 * (option names as on the command line); returns 0 or -EINVAL. */
int eng_gen_check(const struct eng_gen_config *c, struct eng_gen_sizes *out,
		  struct eng_diag *diag);

/* One event of a generated timeline, on every track (V, A1..AN) at once,
 * appended after the previous one. */
struct eng_gen_event {
	uint32_t clip;		/* 0-based: file clip%04u of clip + 1 */
	int64_t src_in;		/* in [0, clip_frames - frames] */
	int64_t frames;		/* in [min_frames, max_frames] */
};

/* Plan timeline `index` (0-based) of a config that passed eng_gen_check:
 * fills ev[0 .. c->events) from its own stream, so the same config and
 * index give the same plan; *frames is the timeline's length.  Returns 0,
 * or -EINVAL for a config that fails the check or index >= c->timelines. */
int eng_gen_plan(const struct eng_gen_config *c, uint32_t index,
		 struct eng_gen_event *ev, int64_t *frames);

/* Bytes of the virtual file of a generated timeline of `frames` frames. */
uint64_t eng_gen_timeline_bytes(const struct eng_gen_config *c,
				int64_t frames);

/* "clip0007" for clip index 6, "timeline01" for timeline index 0
 * (without extension); NUL-terminated, truncated to len. */
void eng_gen_clip_name(uint32_t clip, char *buf, size_t len);
void eng_gen_timeline_name(uint32_t index, char *buf, size_t len);

/* The .tl text of a planned timeline (DESIGN.md format): a comment line
 * with the generator's version, options and the timeline's place, then
 * fps, the tracks and one appending "event V,A1,.. clipNNNN SRC FRAMES"
 * per event.  *text is malloc'ed and NUL-terminated (*len excludes the
 * NUL); the caller frees it.  0, -EINVAL (as eng_gen_plan) or -ENOMEM. */
int eng_gen_tl_text(const struct eng_gen_config *c, uint32_t index,
		    const struct eng_gen_event *ev, char **text, size_t *len);

/* timelinefs-gen --for: the clip files that existing timelines need.  A
 * track whose name starts with 'A' (A1, A2, A1x ...) is audio and gets a
 * WAVE file CLIP.TRACK.wav with the 44-byte header (one channel, sample
 * rate rate/align, align*8 bits; raw when those do not fit a WAVE header),
 * every other track (V, V2, Vx ...) raw essence CLIP.TRACK.raw.  The
 * essence is the stream eng_rng_fill() gives from eng_gen_media_seed(),
 * the same bytes whatever its length, so that files for more timelines
 * only grow. */
struct eng_gen_media {
	char *clip;		/* clip name */
	char *file;		/* "CLIP.TRACK.raw" or "CLIP.TRACK.wav" */
	char track[ENG_TRACK_NAME_MAX];
	int wav;		/* header: sample_rate, bits */
	int too_big;		/* an event needs more than 2^64 bytes */
	uint32_t sample_rate;
	uint16_t bits;
	uint64_t bytes;		/* essence: the most any segment needs */
	uint64_t had;		/* essence of the file already there, or 0 */
	uint64_t seed;		/* of its stream */
};

struct eng_gen_media_plan {
	struct eng_gen_media *files;	/* in order of first use */
	size_t n;
	size_t cap;
};

/* Add what the finalized timeline tl needs to the plan (zero-initialized
 * before the first call): each (clip, track) its segments play, with the
 * essence length the largest eng_segment_bytes_needed() over them and over
 * the timelines added before.  A file whose need passes 2^64 bytes is one
 * message naming timeline, line, clip and track, and -EINVAL (the rest is
 * still added); -ENOMEM. */
int eng_gen_media_add(struct eng_gen_media_plan *p,
		      const struct eng_timeline *tl, uint64_t seed,
		      struct eng_diag *diag);
/* Grow the files already in the plan to what the finalized timeline tl
 * needs of them too (a timeline already in DIR/timelines that shares
 * clips with the ones --for writes for); pairs of tl that are not planned
 * are left alone.  Returns how many planned files tl reads (0: none),
 * -EINVAL for a need past 2^64 bytes (one message, as eng_gen_media_add)
 * or -ENOMEM. */
int eng_gen_media_widen(struct eng_gen_media_plan *p,
			const struct eng_timeline *tl, struct eng_diag *diag);
/* The file m names is already there: head[0..n) is its beginning (64 KiB
 * is plenty for our header), size its length.  m->had becomes the essence
 * it holds (after the WAVE header, bounded by the file as the mount bounds
 * it) and m->bytes at least that, so a file is never written shorter than
 * it was: a timeline already there that plays it still plays.  (Its stream
 * depends on the seed, clip and track only, so with the same --seed the
 * grown file begins with the bytes it had.)  A WAVE file must have the
 * format m would write (PCM, one channel, m->sample_rate, m->bits),
 * else -EINVAL with the reason in why[len] ("is a WAVE file of ...") and
 * m unchanged: rewriting it would change what it was made for.  Returns 0
 * or -EINVAL. */
int eng_gen_media_existing(struct eng_gen_media *m, const unsigned char *head,
			   size_t n, uint64_t size, char *why, size_t len);
void eng_gen_media_free(struct eng_gen_media_plan *p);
/* Size of the whole file: essence, plus header and RIFF pad for WAVE. */
uint64_t eng_gen_media_file_bytes(const struct eng_gen_media *m);
/* eng_rng_derive(seed, FNV-1a-64(clip), FNV-1a-64(track)). */
uint64_t eng_gen_media_seed(uint64_t seed, const char *clip,
			    const char *track);
/* 1 for an audio track name ("A..."), else 0. */
int eng_gen_track_is_audio(const char *track);

/* ------------------------------------------------------------------ */
/* Live status (the mount's hidden .status file)                        */

struct eng_status_row {
	const char *timeline;
	const char *comm;	/* reader's command name */
	int pid;
	int64_t frames_played;	/* the player's head */
	int64_t frames_total;
	uint64_t bytes;		/* served to the reader */
	uint64_t elapsed_ns;	/* since the stream opened */
	int64_t late_frames;
	int64_t failed_frames;
	uint64_t worst_ns;	/* largest read latency */
};

/* Format a table, one line per row plus a header and a totals line, into
 * buf (always NUL-terminated when cap > 0).  Returns the length the whole
 * text needs, like snprintf. */
size_t eng_status_format(char *buf, size_t cap,
			 const struct eng_status_row *rows, size_t n);

/* ------------------------------------------------------------------ */
/* Cached mode: the page cache a reader has passed (engine/evict.c)     */

/* Never drop within ENG_EVICT_KEEP behind the newest request: under load a
 * reader can be several readahead windows behind it, and a page dropped
 * before it was copied is read again (a re-read of frames already
 * played).  Unpaced streams drop in 64 MiB steps: each drop runs in the
 * worker that serves the stream, between its replies, and one unpaced
 * stream read 1.16x faster at bs=1M with 64 MiB steps than with 8 MiB
 * (tests/bench/xport.sh, idle machine).  Paced streams drop in 8 MiB
 * steps: readers started together reach each step together, and 50 paced
 * streams dropping 64 MiB each at once stalled their fillers for up to
 * 0.7 s (11 and 80 late frames in two runs, 7512 and 14217 at 75
 * streams; with 8 MiB steps 0 and 0, 88 and 0).  Bound on the page cache
 * of one cached stream: keep + step (72 or 16 MiB) plus its readahead. */
#define ENG_EVICT_KEEP (8ULL << 20)
#define ENG_EVICT_STEP (64ULL << 20)
#define ENG_EVICT_STEP_PACED (8ULL << 20)
#define ENG_EVICT_PAGE 4096ULL

struct eng_evict {
	uint64_t done;		/* [0, done) was handed out to be dropped */
	uint64_t step;
	uint64_t keep;
};

void eng_evict_init(struct eng_evict *ev, int paced);
/* A request at offset off is being served: the range [*from, *from + n)
 * to drop now, n the return value; 0 when nothing is due (then *from is
 * left alone).  Ranges are whole pages, each starts where the last one
 * ended, and none comes within keep of off. */
uint64_t eng_evict_passed(struct eng_evict *ev, uint64_t off, uint64_t *from);

#endif /* ENGINE_H */
