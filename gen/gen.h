/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen's front end (gen/): what the command line does with the
 * engine's generator (engine/media/gen.h).  The plans are the engine's,
 * pure and unit-tested; here are the arguments (main.c), the messages and
 * tables printed (print.c), the file I/O (files.c) and the runs that tie
 * them together: random timelines (random.c) and --for/--dump-tl (for.c).
 * Not FUSE: fs/ is the daemon only.  Private to gen/.
 */
#ifndef GEN_H
#define GEN_H

#include <stddef.h>
#include <stdint.h>

#include "media/gen.h"
#include "media/picture.h"
#include "timeline/load.h"
#include "util/diag.h"
#include "util/values.h"

#define PROG "timelinefs-gen"
#define BLOCK (1u << 20) /* fill and write unit: a multiple of 8 */
#define EXIT_USAGE 2
#define EXIT_IO 1

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
};

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
int gen_run_random(const char *dir, const struct eng_gen_config *c,
		   int force);
/* timelinefs-gen --for T [--for T ...] DIR */
int gen_run_for(const char *dir, const char **paths, size_t n,
		const struct for_opts *fo);
/* timelinefs-gen --dump-tl T: the resolved edit as .tl on stdout. */
int gen_run_dump(const char *path, const struct for_opts *fo);

#endif /* GEN_H */
