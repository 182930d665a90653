/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen's front end (gen/): what the command line does with the
 * engine's generator (engine/media/genplan.h).  The plans are the engine's,
 * pure and unit-tested; here are the arguments (gen_main.c), the messages and
 * tables printed (print.c), the file I/O (files.c) and the runs that tie
 * them together: random timelines (random.c) and --for/--dump-tl (for.c).
 * Not FUSE: fs/ is the daemon only.  Private to gen/.
 */
#ifndef GEN_H
#define GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <getopt.h>

#include "media/genplan.h"
#include "media/seqgen.h"
#include "media/picture.h"
#include "timeline/load.h"
#include "timeline/timecode.h"
#include "util/diag.h"
#include "util/values.h"
#include "util/optdoc.h"

#define PROG "timelinefs-gen"
#define BLOCK (1u << 20) /* fill and write unit: a multiple of 8 */
#define EXIT_USAGE 2
#define EXIT_IO 1

/* encode.c: --codec and --container, real encoded media through the
 * ffmpeg program (docs/formats.md "Real-format media"). */
enum gen_codec {
	GEN_CODEC_NONE = 0, /* raw essence and WAVE, as before */
	GEN_CODEC_PRORES,
	GEN_CODEC_DNXHD,
	GEN_CODEC_H264,
	GEN_CODEC_UNCOMPRESSED,
};
enum gen_container { GEN_CONT_MOV, GEN_CONT_MP4, GEN_CONT_MXF, GEN_CONT_OPATOM };
#define GEN_ENC_MAX_AUDIO 32
struct gen_enc {
	enum gen_codec codec;
	enum gen_container cont;
	const char *profile; /* --profile, NULL: the codec's default */
	int tc_set;	     /* --timecode given: every clip's start */
	struct eng_tc tc;
};
/* One clip to write: its picture track and naudio tone tracks A1..An,
 * all as long (frames; samples of each audio track). */
struct gen_enc_clip {
	const char *clip;
	const struct eng_picture *pic;
	struct eng_fps fps;
	int64_t frames;
	uint32_t naudio;
	uint32_t sample_rate;
	uint64_t samples;
	uint64_t seed; /* --seed: each track's media seed derives from it */
	int64_t tc;    /* start timecode (frames, as eng_tc_frames) */
	int tc_drop;
	/* the name of the clip's file of several tracks, NULL: CLIP.mov
	 * (gen_enc_name) */
	const char *file;
};
int gen_codec_parse(const char *s, enum gen_codec *c);
int gen_container_parse(const char *s, enum gen_container *c);
/* "prores", "dnxhd", "h264", "uncompressed", as --codec takes it. */
const char *gen_codec_name(enum gen_codec c);
/* Whether e can write pictures pic at fps with audio_bits audio: 0, or
 * -EINVAL with the reason on stderr. */
int gen_enc_check(const struct gen_enc *e, const struct eng_picture *pic,
		  struct eng_fps fps, uint32_t audio_bits);
/* The file of (clip, track) e writes: CLIP.mov (.mp4, .mxf), or
 * CLIP.TRACK.mxf for OP-Atom. */
int gen_enc_name(const struct gen_enc *e, const char *clip, const char *track,
		 char *buf, size_t len);
/* The file the timeline names for a clip (eng_clip.file) when e writes
 * a file of that extension (any case) holding the clip's tracks: the
 * mount looks for it first.  Else NULL. */
const char *gen_enc_named(const struct gen_enc *e, const char *file);
/* Write the clip's file(s) into dir under temporary names renamed when
 * complete.  0, or -errno (reported). */
int gen_enc_write(const char *dir, const struct gen_enc *e,
		  const struct gen_enc_clip *c);

/* exr.c: eng_seqgen_render, also of the kinds OpenEXR's library
 * compresses (eng_seqgen_plain: PIZ), written by OpenEXRCore into
 * out[eng_seqgen_file_bytes(im)].  The file's length, or -EINVAL,
 * -ENOMEM, or -EIO when the library fails (its message on stderr). */
int64_t gen_seq_render(const struct eng_seqgen_image *im, uint64_t seed,
		       uint32_t clip_id, uint64_t frame, int64_t number,
		       struct eng_fps fps, unsigned char *out);

/* What --for is given besides the timelines. */
struct for_opts {
	struct eng_load_options load;
	const char *fps_arg; /* --fps as given, NULL: not given */
	const char *video_arg;
	const char *picture_arg; /* --picture as given */
	const char *audio_arg;
	const char *origin_arg; /* --edl-origin as given */
	uint64_t seed;
	int force;
	struct gen_enc enc; /* --codec: real encoded media */
};

/* files.c: all of len to fd (short writes continued, EINTR retried); 0 or
 * -errno. */
int gen_write_all(int fd, const void *buf, size_t len);

/* print.c */
/* Human sizes in powers of 1000, as disks are sold: "3.51 GB". */
void gen_fmt_bytes(uint64_t b, char *buf, size_t len);
/* Play time of `frames`: "2.47s" under a minute, else rounded to the
 * second: "1m24s", "1h02m03s". */
void gen_fmt_duration(int64_t frames, struct eng_fps fps, char *buf,
		      size_t len);
/* "29.97", "25", "23.976": at most 3 decimals, trailing zeros dropped. */
void gen_fmt_fps(struct eng_fps fps, char *buf, size_t len);
/* Every message of d on stderr, one a line. */
void gen_print_diag(const struct eng_diag *d);
/* What was skipped (a FIFO named like a timeline or a sidecar), as the
 * mount will skip it; frees them. */
void gen_print_notes(struct eng_diag *notes);

/* files.c: each failure is reported on stderr and returned as -errno. */
/* What a clip file's essence is: the seeded random stream (rate tracks,
 * as before pictures), pictures (engine/media/picture.h) or a tone. */
enum gen_src_kind { GEN_SRC_RANDOM, GEN_SRC_PICTURE, GEN_SRC_TONE };
struct gen_src {
	enum gen_src_kind kind;
	struct eng_rng rng;		/* random */
	struct eng_picture pic;		/* picture */
	struct eng_pic_layout layout;
	unsigned char *frame;		/* picture: one frame, malloc'ed */
	uint64_t seed;			/* picture, tone: the media seed */
	uint32_t clip_id;
	uint32_t rate;			/* tone: samples per second */
	uint64_t pos;			/* frames or samples made */
};
/* The random stream of seed. */
void gen_src_random(struct gen_src *s, uint64_t seed);
/* Pictures p of clip `clip` (its name) from media seed `seed`: 0, or
 * -ENOMEM (reported). */
int gen_src_picture(struct gen_src *s, const struct eng_picture *p,
		    uint64_t seed, const char *clip);
/* 24-bit samples at `rate` Hz of clip `clip` from media seed `seed`. */
void gen_src_tone(struct gen_src *s, uint32_t rate, uint64_t seed,
		  const char *clip);
void gen_src_free(struct gen_src *s);
/* The next at most `left` bytes of s, and how many (*n): a whole frame
 * of a picture (made in s->frame), else up to BLOCK made in buf. */
const unsigned char *gen_src_next(struct gen_src *s, unsigned char *buf,
				  uint64_t left, size_t *n);
/* Write `len` bytes of s after an optional header (and a RIFF pad byte
 * when pad) to DIR/NAME, under a temporary name renamed when complete;
 * buf is a BLOCK-byte scratch buffer. */
int gen_write_stream(const char *dir, const char *name, struct gen_src *s,
		     const unsigned char *hdr, size_t hdrlen, uint64_t len,
		     int pad, unsigned char *buf);
/* Write text[0..len) to DIR/NAME the same way. */
int gen_write_text(const char *dir, const char *name, const char *text,
		   size_t len);
/* mkdir that accepts a folder already there. */
int gen_make_dir(const char *path);
/* Space held by DIR/NAME, a file we are about to replace: freed as we go. */
uint64_t gen_held(const char *dir, const char *name);
/* Refuse to start a run that cannot fit, rather than fill the disk and
 * stop half way: `need` bytes are to be written, `reclaim` of them replace
 * files already there.  Returns 0 or -ENOSPC (reported). */
int gen_check_space_bytes(const char *dir, uint64_t need, uint64_t reclaim);

/* The runs; each returns the exit status (0, EXIT_IO). */
/* Random timelines and their clips into DIR (c as the options set it). */
/* seq.c: an image sequence --format (docs/formats.md "Image sequences"):
 * clips folders DIR/clipNNNN of frames files clipNNNN.%07d.EXT from
 * start, timelines of them (DIR/timelines/timelineNN.tl of seq clips,
 * clips.otio), no audio. */
struct gen_seq {
	const char *name; /* the --format preset */
	struct eng_seqgen_image im;
	uint32_t clips;
	int64_t frames; /* per clip */
	int64_t start;	/* the first file's number */
	struct eng_fps fps;
	uint64_t seed;
};
/* c's settings for timelines of s: its fps, video only, a rate of its
 * frames; events no longer than the clips unless --min-seconds or
 * --max-seconds were given (minmax_set). */
void gen_seq_config(struct gen_seq *s, struct eng_gen_config *c,
		    int minmax_set);
/* s's files and c's timelines of them: 0, or an exit status (reported). */
int gen_run_seq(const char *dir, const struct gen_seq *s,
		const struct eng_gen_config *c, int force);
/* --for's stand-ins of tl's sequence clips: each image a video track
 * plays, DIR/BASE/NAME, that is not there yet, rendered as --format
 * renders them (the kind by the suffix: .dpx DPX 10-bit, .tif TIFF
 * 16-bit, .exr EXR half, .raw headerless; the track's picture size, else
 * 64x48).  *written counts them.  0, -EINVAL (said: a suffix of no
 * kind), -EIO or -ENOMEM. */
int gen_for_seqs(const char *dir, const struct eng_timeline *tl,
		 uint64_t seed, unsigned *written);
int gen_run_random(const char *dir, const struct eng_gen_config *c,
		   int force, const struct gen_enc *enc);
/* timelinefs-gen --for T [--for T ...] DIR */
int gen_run_for(const char *dir, const char **paths, size_t n,
		const struct for_opts *fo);
/* timelinefs-gen --dump-tl T [DIR]: the resolved edit as .tl on stdout;
 * with the media folder DIR (NULL: none), its media resolved as the
 * mount resolves them, so that tracks of real media have their sizes. */
int gen_run_dump(const char *path, const char *media_dir,
		 const struct for_opts *fo);

/* timelinefs-gen --ingest SECONDS FILE (capture.c): what a capture tool
 * writes into a mount's ingest folder (docs/design.md "Ingest"). */
/* The seed domain of --ingest's track streams (clips use small indices, the
 * timeline plans ENG_GEN_TIMELINE_DOMAIN). */
#define GEN_INGEST_DOMAIN (1ULL << 62)
struct gen_ingest {
	const char *preset;	/* --format, NULL: the seed preset */
	int64_t us;		/* --ingest: seconds of frames, in us */
	uint64_t seed;		/* --seed */
	uint64_t write_size;	/* --write-size: 0 one write a frame */
};
/* Write the frames of in->us seconds of in->preset to path ("-": stdout)
 * in a timeline file's interleave (frame k's V slice, then its audio
 * slices), as fast as the file takes them, and say the time it took
 * against the stream's rate on stderr.  Track t's bytes are the seeded
 * stream eng_rng_derive(seed, GEN_INGEST_DOMAIN, t), continued across
 * frames: incompressible, and the same bytes whatever the write size.
 * 0, or -errno (said on stderr). */
int gen_run_ingest(const char *path, const struct gen_ingest *in);

/* gen_opttab.c: the options, one row each (util/optdoc.h), from which -h's
 * list, the man page's OPTIONS items and getopt's table are made; key is
 * the getopt value of the row's option. */
enum gen_opt {
	OPT_CLIPS = 256,
	OPT_CLIP_SECONDS,
	OPT_TIMELINES,
	OPT_EVENTS,
	OPT_MIN_SECONDS,
	OPT_MAX_SECONDS,
	OPT_FPS,
	OPT_VIDEO_RATE,
	OPT_AUDIO_TRACKS,
	OPT_AUDIO_RATE,
	OPT_SEED,
	OPT_FORCE,
	OPT_FORMAT,
	OPT_FOR,
	OPT_DUMP_TL,
	OPT_EDL_ORIGIN,
	OPT_STRICT,
	OPT_PICTURE,
	OPT_CODEC,
	OPT_CONTAINER,
	OPT_PROFILE,
	OPT_TIMECODE,
	OPT_SIZE,
	OPT_START_FRAME,
	OPT_INGEST,
	OPT_WRITE_SIZE,
	OPT_DOC,	/* --doc-options=WHAT: make docs-options */
};
/* a sequence's first file number: 01:00:00:00 at 24 fps */
#define GEN_SEQ_START 86400
extern const struct eng_optdoc gen_optdocs[];
extern const size_t gen_noptdocs;
/* -h's option rows, on f. */
void gen_usage_options(FILE *f);
/* --doc-options=WHAT: "man" (the OPTIONS items) or "list" (NAME TAB
 * DEFAULT-or-"-" a line) on stdout: 0, or -1 said for another word. */
int gen_doc_options(const char *what);
/* getopt_long's table of the rows, with --help and --version: static,
 * made at the first call. */
const struct option *gen_long_options(void);

#endif /* GEN_H */
