/* SPDX-License-Identifier: MIT */
/*
 * Image sequences as cameras, scanners and VFX write them, for
 * timelinefs-gen (seqgen.c): one file per frame, DPX, TIFF, OpenEXR or
 * headerless RGB, with the headers the formats' specifications give and
 * the generated picture's overlay (picture.h: code, digits, bar) in RGB.
 * Pure: a frame's whole file is rendered into memory; timelinefs-gen
 * writes it.  docs/formats.md "Image sequences" is the layout, for
 * readers written without this file (tests/tools/tlexpect.py, tlcode.py).
 */
#ifndef ENG_SEQGEN_H
#define ENG_SEQGEN_H

#include <stddef.h>
#include <stdint.h>

#include "util/values.h"

enum eng_seqgen_kind {
	ENG_SEQGEN_DPX10 = 1,	/* DPX 2.0, RGB 10-bit, packed method A, BE */
	ENG_SEQGEN_DPX16,	/* DPX 2.0, RGB 16-bit, BE */
	ENG_SEQGEN_TIFF16,	/* baseline TIFF, RGB 16-bit, LE, strips */
	ENG_SEQGEN_EXR_RGB,	/* OpenEXR scanline, half B G R, uncompressed */
	ENG_SEQGEN_EXR_RGBA,	/* the same with A (1.0) */
	ENG_SEQGEN_RAW8,	/* 8-bit RGB, no header (tframetest's frames) */
	ENG_SEQGEN_EXR_RGB_ZIP, /* OpenEXR half B G R, ZIP (16 lines) */
	ENG_SEQGEN_EXR_RGBA_ZIP, /* the same with A */
	ENG_SEQGEN_EXR_RGB_PIZ,	 /* OpenEXR half B G R, PIZ (32 lines) */
	ENG_SEQGEN_EXR_RGBA_PIZ, /* the same with A */
};

/* One frame's image: what its file is. */
struct eng_seqgen_image {
	uint32_t kind; /* enum eng_seqgen_kind */
	uint32_t width, height;
};

#define ENG_SEQGEN_TIFF_ROWS 16 /* rows per TIFF strip */
#define ENG_SEQGEN_DPX_HEADER 2048

/* A --format preset of a sequence: a kind at a real frame size. */
struct eng_seqgen_format {
	const char *name;    /* "dpx10-2k" */
	const char *summary; /* one line */
	const char *source;  /* where the size comes from */
	struct eng_seqgen_image im;
};

/* The presets in listing order; *n their count.  Static and constant. */
const struct eng_seqgen_format *eng_seqgen_formats(size_t *n);
/* The preset named `name` (exact), or NULL. */
const struct eng_seqgen_format *eng_seqgen_format_find(const char *name);
/* 1 when every frame of the kind is eng_seqgen_file_bytes() long, 0 when
 * the size varies per frame (EXR ZIP). */
int eng_seqgen_fixed(uint32_t kind);
/* The uncompressed kind whose file holds the picture of a kind that
 * OpenEXR's library compresses (PIZ): engine/ does not link it, so
 * timelinefs-gen renders that kind and encodes its lines (gen/exr.c).
 * 0 for a kind rendered here. */
uint32_t eng_seqgen_plain(uint32_t kind);
/* The file name extension of a kind, without the dot: "dpx". */
const char *eng_seqgen_ext(uint32_t kind);

/* Bytes before the pixel data (DPX: the image data offset; TIFF: up to
 * the first strip; EXR: the header and offset table, up to the first
 * chunk), and of the whole file (EXR ZIP: the most it can be, every
 * chunk stored, the sizes varying per frame; PIZ: the header OpenEXR's
 * library writes, the same attributes). 0 for an image that is not
 * valid (a side of 0 or over 16384). */
uint64_t eng_seqgen_header_bytes(const struct eng_seqgen_image *im);
uint64_t eng_seqgen_file_bytes(const struct eng_seqgen_image *im);

/* Render the file of frame `frame` (from 0) of a clip into
 * out[eng_seqgen_file_bytes(im)]: the pixels are noise from (seed, frame)
 * with the overlay of clip_id and frame over it; `number` (the file's
 * frame number) and fps go into the DPX header's frame position,
 * timecode and frame rate.  Returns the file's length (EXR ZIP: up to
 * eng_seqgen_file_bytes), -EINVAL for an image that is not valid,
 * -ENOTSUP for a kind eng_seqgen_plain() names another for, or
 * -ENOMEM. */
int64_t eng_seqgen_render(const struct eng_seqgen_image *im, uint64_t seed,
			  uint32_t clip_id, uint64_t frame, int64_t number,
			  struct eng_fps fps, unsigned char *out);

#endif /* ENG_SEQGEN_H */
