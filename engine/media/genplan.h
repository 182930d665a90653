/* SPDX-License-Identifier: MIT */
/*
 * The generator's logic (genplan.c): what timelinefs-gen makes, pure.  A
 * config is checked and planned here; the front end writes the files (it
 * does the file I/O).  Same config and seed, same bytes: media and
 * timelines are reproducible.
 */
#ifndef ENG_GENPLAN_H
#define ENG_GENPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/model.h"
#include "util/diag.h"
#include "util/rng.h"
#include "util/values.h"

/* Write a 44-byte canonical PCM WAVE header for `data_bytes` of essence:
 * one channel of `bits`-bit samples at `sample_rate` Hz. */
void eng_wav_header(unsigned char out[44], uint32_t sample_rate,
		    uint16_t bits, uint64_t data_bytes);

/* The one version of timelinefs: VERSION in the Makefile, passed to every
 * compile as -DTLFS_VERSION. */
#ifndef TLFS_VERSION
#error "TLFS_VERSION comes from the Makefile: build with make"
#endif
#define ENG_GEN_VERSION TLFS_VERSION
#define ENG_GEN_AUDIO_ALIGN 3	/* generated audio is 24-bit mono PCM */
#define ENG_GEN_WAV_HEADER 44

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
	/* Track V's picture (an uncompressed preset's), ENG_PIX_NONE for a
	 * rate track; with one, video_rate is eng_gen_picture_rate()'s. */
	struct eng_picture pic;
};

/* The seed scenario: 24 clips of 8 s, 15 timelines of 21 events of 3-5 s,
 * 30000/1001 fps, V pictures of 640x480 2vuy (18413587 B/s), 2 audio
 * tracks at 144000 B/s, seed 1. */
void eng_gen_config_default(struct eng_gen_config *c);
/* eng_gen_config_default's values, which timelinefs-gen -h and its man
 * page say (gen/gen_opttab.c); its video rate is the seed picture's. */
#define ENG_GEN_CLIPS 24
#define ENG_GEN_CLIP_MS 8000
#define ENG_GEN_TIMELINES 15
#define ENG_GEN_EVENTS 21
#define ENG_GEN_MIN_MS 3000
#define ENG_GEN_MAX_MS 5000
#define ENG_GEN_FPS_NUM 30000
#define ENG_GEN_FPS_DEN 1001
#define ENG_GEN_AUDIO_TRACKS 2
#define ENG_GEN_AUDIO_RATE 144000
#define ENG_GEN_SEED 1

/* A format preset of timelinefs-gen --format NAME: a frame rate, the video
 * track's data rate and the audio tracks of one real-world format.
 * frame_bytes is the fixed size of one video frame for the formats that
 * have one (uncompressed, DNxHD/DNxHR), else 0 (ProRes: a target rate);
 * video_rate is then frame_bytes * fps rounded down, or for the
 * uncompressed presets, which carry their picture, rounded up (the
 * picture track's rate: every frame exactly one picture).  source says where
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
	struct eng_picture pic;	/* uncompressed presets: what a frame is */
};

/* The presets in listing order (the first is the seed scenario, equal to
 * eng_gen_config_default's values); *n is set to their count.  The table
 * is static and constant. */
const struct eng_gen_format *eng_gen_formats(size_t *n);
/* The preset named `name` (exact, case-sensitive), or NULL. */
const struct eng_gen_format *eng_gen_format_find(const char *name);
/* Set c's fps, video_rate, audio_tracks, audio_rate and pic from f; the
 * other fields (clips, lengths, timelines, seed) are left as they are. */
void eng_gen_format_apply(struct eng_gen_config *c,
			  const struct eng_gen_format *f);

/* The rate of a picture track of p at fps: ceil(bytes * num / den), the
 * model's (eng_tl_add_picture_track), so that a frame is one picture. */
uint64_t eng_gen_picture_rate(const struct eng_picture *p, struct eng_fps fps);

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

/* The .tl text of a planned timeline (docs/design.md format): a comment line
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
 * essence is a picture track's pictures and, in a timeline with one, the
 * audio's tone (engine/media/picture.h), else the stream eng_rng_fill()
 * gives, all from eng_gen_media_seed(): the same bytes whatever its
 * length, so that files for more timelines only grow. */
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
	/* What the essence is (engine/media/picture.h): the pictures of a
	 * picture track; a tone for a 24-bit WAVE of a timeline with a
	 * picture track; else (both unset) the random stream. */
	struct eng_picture pic;
	int tone;
};

struct eng_gen_media_plan {
	struct eng_gen_media *files;	/* in order of first use */
	size_t n;
	size_t cap;
};

/* Add what the finalized timeline tl needs to the plan (zero-initialized
 * before the first call): each (clip, track) its segments play (but a
 * sequence clip's video tracks: its images are no file of one; and a
 * recorded clip's, .tl record: the mount records it), with the
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

#endif /* ENG_GENPLAN_H */
