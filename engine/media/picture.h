/* SPDX-License-Identifier: MIT */
/*
 * What timelinefs-gen writes into a picture track's and an audio track's
 * clip files (picture.c) so that a person watching the movie sees the edit
 * and a test can decode it: every frame shows its clip and frame number in
 * large 7-segment digits, carries them in a row of black/white blocks (the
 * code) and moves a bar one step per frame; every audio sample is a
 * per-clip tone in its high bits and a seeded code in its low bits.  The
 * rest of each frame is seeded noise, and the overlay keeps random low
 * bits, so the bytes stay incompressible.  Every frame and every sample is
 * a pure function of (media seed, clip id, index): files only grow, and
 * any frame can be made alone.  docs/formats.md "Generated media" is the
 * layout, for decoders written without this file (tests/tools/tlcode.py).
 */
#ifndef ENG_PICTURE_H
#define ENG_PICTURE_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/model.h"

/* Where the overlay sits in a picture, in 6-pixel groups across (the
 * v210 unit: 4 words; 12 bytes of 2vuy) and rows down.  ok 0: the picture
 * is smaller than 192x96 and is noise only. */
struct eng_pic_layout {
	int ok;
	uint32_t groups;       /* width / 6 */
	uint32_t code_x;       /* first group of the code */
	uint32_t cell_w;       /* groups per code cell */
	uint32_t cell_h;       /* rows per code row (2 rows of 32 cells) */
	uint32_t box_x, box_y; /* black box behind the digits */
	uint32_t box_w, box_h; /* groups, rows */
	uint32_t glyph_w;      /* groups */
	uint32_t glyph_h;      /* rows */
	uint32_t stroke_w;     /* groups */
	uint32_t stroke_h;     /* rows */
	uint32_t text_x;       /* first group of the first glyph */
	uint32_t line_y[2];    /* first rows of "C" + clip and "F" + frame */
	uint32_t bar_y, bar_h; /* the moving bar's band (rows) */
	uint32_t bar_w;	       /* groups */
	uint32_t bar_steps;    /* positions: frame % bar_steps */
};

#define ENG_PIC_CODE_BITS 64
#define ENG_PIC_MAGIC 0xa5u
#define ENG_PIC_GLYPHS 7 /* "C" + 5 digits, "F" + 6 digits */

/* The layout of p (a picture track's, pix not ENG_PIX_NONE). */
void eng_pic_layout(const struct eng_picture *p, struct eng_pic_layout *l);

/* The 16-bit id that stands for a clip in the code and on screen: N for
 * "clipN" (digits only, N < 65536: timelinefs-gen's clip0007 is 7), else
 * FNV-1a-64 of the name folded to 16 bits. */
uint32_t eng_pic_clip_id(const char *name);

/* The code word of a frame: magic 0xa5 (8 bits), clip id (16), frame
 * number (24, modulo 2^24), check (16), most significant bit first. */
uint64_t eng_pic_code(uint32_t clip_id, uint64_t frame);

/* Render frame `frame` of a clip into out[eng_picture_bytes(p)]: noise
 * seeded by (seed, frame), then the overlay. */
void eng_pic_render(const struct eng_picture *p, const struct eng_pic_layout *l,
		    uint64_t seed, uint32_t clip_id, uint64_t frame,
		    unsigned char *out);

/* The overlay alone, for pictures of other pixel formats (RGB image
 * sequences, seqgen.h): the level of each 6-pixel group of row y of frame
 * `frame`, into lev[l->groups]: ENG_PIC_KEEP (the noise), ENG_PIC_BLACK
 * or ENG_PIC_WHITE.  Returns 0 (lev untouched) for a row without overlay
 * or a layout without one, else 1. */
#define ENG_PIC_KEEP 0
#define ENG_PIC_BLACK 1
#define ENG_PIC_WHITE 2
int eng_pic_overlay_row(const struct eng_pic_layout *l, uint32_t clip_id,
			uint64_t frame, uint32_t y, unsigned char *lev);

/* Read the code of a rendered frame.  0 with *clip_id and *frame set;
 * -ENODATA for a black frame (every code cell black: a gap); -EINVAL for
 * a code that does not decode (a cell neither black nor white, the magic
 * or the check wrong) or a layout without one. */
int eng_pic_decode(const struct eng_picture *p, const struct eng_pic_layout *l,
		   const unsigned char *in, uint32_t *clip_id, uint32_t *frame);

/* The pixel group (g, y): 1 light (every luma above the middle), 0 dark
 * (every one below), -1 mixed. */
int eng_pic_light(const struct eng_picture *p, const unsigned char *in,
		  uint32_t g, uint32_t y);

/* The tone's frequency of a clip: 200 + 25 * (clip_id % 32) Hz. */
uint32_t eng_tone_hz(uint32_t clip_id);

/* Sample i (24-bit, signed) of a clip's audio track: the tone, a
 * parabolic sine at eng_tone_hz() of amplitude 2^21 (-12 dBFS) in bits
 * 12-23, and bits 0-11 of a hash of (seed, i): 0-7 the code a test
 * checks, 8-11 noise. */
int32_t eng_tone_sample(uint64_t seed, uint32_t clip_id, uint32_t rate,
			uint64_t i);

/* n samples from sample `first`, 3 bytes each little-endian, into out. */
void eng_tone_render(uint64_t seed, uint32_t clip_id, uint32_t rate,
		     uint64_t first, size_t n, unsigned char *out);

#endif /* ENG_PICTURE_H */
