/* SPDX-License-Identifier: MIT */
/*
 * Generated pictures and tones (picture.h): noise from the seeded stream,
 * then the overlay written over it, row by row, in 6-pixel groups.
 */
#include <errno.h>
#include <string.h>

#include "media/picture.h"
#include "util/rng.h"

/* Levels of the overlay; a value keeps its random low bits (4 of 8, 6 of
 * 10) so that what is flat to the eye is not flat to a compressor. */
#define LEV_KEEP ENG_PIC_KEEP
#define LEV_BLACK ENG_PIC_BLACK
#define LEV_WHITE ENG_PIC_WHITE
#define Y8_BLACK 0x10u
#define Y8_WHITE 0xe0u
#define C8_GREY 0x80u
#define LOW8 0x0fu
#define Y10_BLACK 0x040u
#define Y10_WHITE 0x380u
#define C10_GREY 0x200u
#define LOW10 0x03fu
#define NOISE_DOMAIN 0x70696374ULL /* "pict" */

/* 7-segment glyphs: bits a (top), b, c, d (bottom), e, f, g (middle). */
#define SEG_A 1u
#define SEG_B 2u
#define SEG_C 4u
#define SEG_D 8u
#define SEG_E 16u
#define SEG_F 32u
#define SEG_G 64u
static const unsigned char digit_segs[10] = {
    SEG_A | SEG_B | SEG_C | SEG_D | SEG_E | SEG_F,
    SEG_B | SEG_C,
    SEG_A | SEG_B | SEG_D | SEG_E | SEG_G,
    SEG_A | SEG_B | SEG_C | SEG_D | SEG_G,
    SEG_B | SEG_C | SEG_F | SEG_G,
    SEG_A | SEG_C | SEG_D | SEG_F | SEG_G,
    SEG_A | SEG_C | SEG_D | SEG_E | SEG_F | SEG_G,
    SEG_A | SEG_B | SEG_C,
    SEG_A | SEG_B | SEG_C | SEG_D | SEG_E | SEG_F | SEG_G,
    SEG_A | SEG_B | SEG_C | SEG_D | SEG_F | SEG_G,
};
#define GLYPH_C (SEG_A | SEG_D | SEG_E | SEG_F)
#define GLYPH_F (SEG_A | SEG_E | SEG_F | SEG_G)

static uint32_t max_u32(uint32_t a, uint32_t b)
{
	return a > b ? a : b;
}

void eng_pic_layout(const struct eng_picture *p, struct eng_pic_layout *l)
{
	uint32_t w = p->width, h = p->height, adv;

	memset(l, 0, sizeof(*l));
	l->groups = w / 6;
	if (l->groups < 32 || h < 96)
		return;
	l->cell_w = l->groups / 32;
	l->code_x = (l->groups - 32 * l->cell_w) / 2;
	l->cell_h = h / 24;
	/* digits a sixth of the height (a monitor's reading size is an
	 * eighth), 0.55 as wide, strokes a quarter of the width */
	l->glyph_h = (h / 6) & ~1u;
	l->glyph_w = max_u32(3, l->glyph_h * 11 / 20 / 6);
	l->stroke_w = max_u32(1, (l->glyph_w + 2) / 4);
	l->stroke_h = l->stroke_w * 6;
	if (l->stroke_h > l->glyph_h / 5)
		l->stroke_h = l->glyph_h / 5;
	adv = l->glyph_w + l->stroke_w;
	l->box_x = l->code_x;
	l->box_w = ENG_PIC_GLYPHS * adv + l->stroke_w;
	l->text_x = l->box_x + l->stroke_w;
	l->box_y = 2 * l->cell_h + l->cell_h / 2;
	l->line_y[0] = l->box_y + l->stroke_h;
	l->line_y[1] = l->line_y[0] + l->glyph_h + l->stroke_h;
	l->box_h = 3 * l->stroke_h + 2 * l->glyph_h;
	l->bar_h = max_u32(4, h / 16);
	l->bar_y = h - l->bar_h;
	l->bar_w = 2 * l->stroke_w;
	l->bar_steps = l->groups / l->bar_w;
	l->ok =
	    l->box_x + l->box_w <= l->groups && l->box_y + l->box_h <= l->bar_y;
}

/* FNV-1a-64 of a name, folded to 16 bits. */
static uint32_t name_hash16(const char *s)
{
	uint64_t v = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		v ^= (unsigned char)*s;
		v *= 0x100000001b3ULL;
	}
	v ^= v >> 32;
	return (uint32_t)((v ^ (v >> 16)) & 0xffff);
}

uint32_t eng_pic_clip_id(const char *name)
{
	const char *s;
	uint32_t n = 0;

	if (strncmp(name, "clip", 4) != 0 || !name[4])
		return name_hash16(name);
	for (s = name + 4; *s; s++) {
		if (*s < '0' || *s > '9')
			return name_hash16(name);
		n = n * 10 + (uint32_t)(*s - '0');
		if (n > 0xffff)
			return name_hash16(name);
	}
	return n;
}

uint64_t eng_pic_code(uint32_t clip_id, uint64_t frame)
{
	uint64_t v = (uint64_t)(clip_id & 0xffff) << 24 | (frame & 0xffffff);
	uint64_t check = (v * 0x9e3779b97f4a7c15ULL) >> 48;

	return (uint64_t)ENG_PIC_MAGIC << 56 | v << 16 | check;
}

static void fill(unsigned char *lev, uint32_t from, uint32_t n, unsigned char v)
{
	memset(lev + from, v, n);
}

/* One glyph's row yy (0 <= yy < glyph_h) from group gx on. */
static void glyph_row(const struct eng_pic_layout *l, unsigned segs,
		      uint32_t yy, uint32_t gx, unsigned char *lev)
{
	uint32_t w = l->glyph_w, sw = l->stroke_w, sh = l->stroke_h;
	uint32_t mid = l->glyph_h / 2, gy = mid - sh / 2;
	int upper = yy <= mid, lower = yy >= mid;

	if (((segs & SEG_A) && yy < sh) ||
	    ((segs & SEG_D) && yy >= l->glyph_h - sh) ||
	    ((segs & SEG_G) && yy >= gy && yy < gy + sh)) {
		fill(lev, gx, w, LEV_WHITE);
		return;
	}
	if (((segs & SEG_F) && upper) || ((segs & SEG_E) && lower))
		fill(lev, gx, sw, LEV_WHITE);
	if (((segs & SEG_B) && upper) || ((segs & SEG_C) && lower))
		fill(lev, gx + w - sw, sw, LEV_WHITE);
}

/* The glyphs of line i: "C" and 5 digits of the clip id, "F" and 6 of
 * the frame number. */
static void line_glyphs(uint32_t clip_id, uint64_t frame, int i,
			unsigned char g[ENG_PIC_GLYPHS])
{
	uint64_t v = i ? frame % 1000000 : clip_id;
	int n = i ? 6 : 5, j;

	memset(g, 0, ENG_PIC_GLYPHS);
	g[0] = i ? GLYPH_F : GLYPH_C;
	for (j = n; j >= 1; j--) {
		g[j] = digit_segs[v % 10];
		v /= 10;
	}
}

/* The overlay's levels of row y, per group; 0 when the row has none. */
static int row_levels(const struct eng_pic_layout *l, uint64_t code,
		      const unsigned char glyphs[2][ENG_PIC_GLYPHS],
		      uint64_t frame, uint32_t y, unsigned char *lev)
{
	uint32_t c, j;
	int i;

	if (y < 2 * l->cell_h) {
		uint32_t r = y / l->cell_h;

		memset(lev, LEV_KEEP, l->groups);
		for (c = 0; c < 32; c++) {
			int bit = (int)(code >> (63 - (r * 32 + c))) & 1;

			fill(lev, l->code_x + c * l->cell_w, l->cell_w,
			     bit ? LEV_WHITE : LEV_BLACK);
		}
		return 1;
	}
	if (y >= l->box_y && y < l->box_y + l->box_h) {
		memset(lev, LEV_KEEP, l->groups);
		fill(lev, l->box_x, l->box_w, LEV_BLACK);
		for (i = 0; i < 2; i++) {
			if (y < l->line_y[i] || y >= l->line_y[i] + l->glyph_h)
				continue;
			for (j = 0; j < ENG_PIC_GLYPHS; j++)
				glyph_row(l, glyphs[i][j], y - l->line_y[i],
					  l->text_x +
					      j * (l->glyph_w + l->stroke_w),
					  lev);
		}
		return 1;
	}
	if (y >= l->bar_y) {
		memset(lev, LEV_BLACK, l->groups);
		fill(lev, (uint32_t)(frame % l->bar_steps) * l->bar_w, l->bar_w,
		     LEV_WHITE);
		return 1;
	}
	return 0;
}

int eng_pic_overlay_row(const struct eng_pic_layout *l, uint32_t clip_id,
			uint64_t frame, uint32_t y, unsigned char *lev)
{
	unsigned char glyphs[2][ENG_PIC_GLYPHS];

	if (!l->ok)
		return 0;
	line_glyphs(clip_id, frame, 0, glyphs[0]);
	line_glyphs(clip_id, frame, 1, glyphs[1]);
	return row_levels(l, eng_pic_code(clip_id, frame), glyphs, frame, y,
			  lev);
}

/* A group of the overlay is one level: each 32-bit word of it (2vuy: U Y
 * V Y; v210: three 10-bit values) becomes (word & keep) | set, with keep
 * the random low bits and set the level's high bits, built as bytes so
 * that the host's byte order does not matter. */
struct put_words {
	uint32_t keep;
	uint32_t set[3][4]; /* per level, per word of a v210 group */
};

static uint32_t word_of(const unsigned char b[4])
{
	uint32_t w;

	memcpy(&w, b, 4);
	return w;
}

static void le_bytes(uint32_t v, unsigned char b[4])
{
	b[0] = v & 0xff;
	b[1] = (v >> 8) & 0xff;
	b[2] = (v >> 16) & 0xff;
	b[3] = (v >> 24) & 0xff;
}

/* Which of the 12 components of a v210 group (4 words x 3) are luma:
 * Cb Y Cr | Y Cb Y | Cr Y Cb | Y Cr Y. */
static const unsigned char v210_luma[12] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};

static void put_words_init(uint32_t pix, struct put_words *pw)
{
	unsigned char b[4];
	int lev, k, c;

	if (pix == ENG_PIX_V210) {
		le_bytes(LOW10 | LOW10 << 10 | LOW10 << 20, b);
		pw->keep = word_of(b);
	} else {
		memset(b, LOW8, 4);
		pw->keep = word_of(b);
	}
	for (lev = LEV_BLACK; lev <= LEV_WHITE; lev++)
		for (k = 0; k < 4; k++) {
			uint32_t v = 0;

			if (pix == ENG_PIX_V210) {
				uint32_t y =
				    lev == LEV_WHITE ? Y10_WHITE : Y10_BLACK;

				for (c = 0; c < 3; c++)
					v |= (v210_luma[3 * k + c] ? y
								   : C10_GREY)
					     << (10 * c);
				le_bytes(v, b);
			} else {
				b[0] = b[2] = C8_GREY;
				b[1] = b[3] =
				    lev == LEV_WHITE ? Y8_WHITE : Y8_BLACK;
			}
			pw->set[lev][k] = word_of(b);
		}
}

/* One row: a group is 3 words of 2vuy, 4 of v210. */
static void put_row(unsigned char *row, const unsigned char *lev,
		    uint32_t groups, int words, const struct put_words *pw)
{
	uint32_t g, w;
	int k;

	for (g = 0; g < groups; g++, row += 4 * words) {
		if (lev[g] == LEV_KEEP)
			continue;
		for (k = 0; k < words; k++) {
			memcpy(&w, row + 4 * k, 4);
			w = (w & pw->keep) | pw->set[lev[g]][k];
			memcpy(row + 4 * k, &w, 4);
		}
	}
}

static uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t row_bytes(const struct eng_picture *p)
{
	return p->height ? eng_picture_bytes(p) / p->height : 0;
}

void eng_pic_render(const struct eng_picture *p, const struct eng_pic_layout *l,
		    uint64_t seed, uint32_t clip_id, uint64_t frame,
		    unsigned char *out)
{
	unsigned char glyphs[2][ENG_PIC_GLYPHS], lev[ENG_PICTURE_MAX / 6];
	uint64_t n = eng_picture_bytes(p), stride = row_bytes(p), i;
	uint64_t code = eng_pic_code(clip_id, frame);
	struct put_words pw;
	struct eng_rng r;
	uint32_t y;

	eng_rng_seed(&r, eng_rng_derive(seed, frame, NOISE_DOMAIN));
	eng_rng_fill(&r, out, n);
	/* v210's words hold three 10-bit values and two bits that must
	 * be zero (a v210 frame is a whole number of 16-byte groups) */
	if (p->pix == ENG_PIX_V210) {
		static const unsigned char m[8] = {0xff, 0xff, 0xff, 0x3f,
						   0xff, 0xff, 0xff, 0x3f};
		uint64_t mask, w;

		memcpy(&mask, m, 8);
		for (i = 0; i + 8 <= n; i += 8) {
			memcpy(&w, out + i, 8);
			w &= mask;
			memcpy(out + i, &w, 8);
		}
	}
	if (!l->ok)
		return;
	put_words_init(p->pix, &pw);
	line_glyphs(clip_id, frame, 0, glyphs[0]);
	line_glyphs(clip_id, frame, 1, glyphs[1]);
	for (y = 0; y < p->height; y++) {
		if (!row_levels(l, code, glyphs, frame, y, lev))
			continue;
		put_row(out + y * stride, lev, l->groups,
			p->pix == ENG_PIX_V210 ? 4 : 3, &pw);
	}
}

/* The 6 luma values of group (g, y), scaled to 10 bits. */
static void group_luma(const struct eng_picture *p, const unsigned char *in,
		       uint32_t g, uint32_t y, uint32_t luma[6])
{
	const unsigned char *q = in + y * row_bytes(p);
	int k, c, n = 0;

	if (p->pix == ENG_PIX_V210) {
		q += 16 * (uint64_t)g;
		for (k = 0; k < 4; k++) {
			uint32_t w = get_le32(q + 4 * k);

			for (c = 0; c < 3; c++)
				if (v210_luma[3 * k + c])
					luma[n++] = (w >> (10 * c)) & 0x3ff;
		}
		return;
	}
	q += 12 * (uint64_t)g;
	for (k = 0; k < 6; k++)
		luma[k] = (uint32_t)q[2 * k + 1] << 2;
}

int eng_pic_light(const struct eng_picture *p, const unsigned char *in,
		  uint32_t g, uint32_t y)
{
	uint32_t luma[6];
	int k, light = 0;

	group_luma(p, in, g, y, luma);
	for (k = 0; k < 6; k++)
		light += luma[k] >= 512;
	return light == 6 ? 1 : light == 0 ? 0 : -1;
}

int eng_pic_decode(const struct eng_picture *p, const struct eng_pic_layout *l,
		   const unsigned char *in, uint32_t *clip_id, uint32_t *frame)
{
	uint64_t code = 0;
	uint32_t r, c, luma[6], g, y;
	int s, v, k, pure = 1;

	if (!l->ok)
		return -EINVAL;
	for (r = 0; r < 2; r++)
		for (c = 0; c < 32; c++) {
			g = l->code_x + c * l->cell_w + l->cell_w / 2;
			v = -2;
			/* two rows of the cell, a quarter in from each edge */
			for (s = 0; s < 2; s++) {
				int b;

				y = r * l->cell_h + l->cell_h / 4 +
				    s * (l->cell_h / 2);
				b = eng_pic_light(p, in, g, y);
				if (b < 0 || (v >= 0 && b != v))
					return -EINVAL;
				v = b;
				group_luma(p, in, g, y, luma);
				for (k = 0; k < 6; k++)
					pure &= luma[k] == 64;
			}
			code = code << 1 | (uint64_t)v;
		}
	if (code == 0)
		return pure ? -ENODATA : -EINVAL;
	if (code != eng_pic_code((uint32_t)(code >> 40) & 0xffff,
				 (code >> 16) & 0xffffff))
		return -EINVAL;
	*clip_id = (uint32_t)(code >> 40) & 0xffff;
	*frame = (uint32_t)(code >> 16) & 0xffffff;
	return 0;
}

uint32_t eng_tone_hz(uint32_t clip_id)
{
	return 200 + 25 * (clip_id % 32);
}

/* splitmix64's finalizer of seed + (i + 1) * golden: sample i's hash. */
static uint64_t sample_hash(uint64_t seed, uint64_t i)
{
	uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int32_t eng_tone_sample(uint64_t seed, uint32_t clip_id, uint32_t rate,
			uint64_t i)
{
	uint32_t step, phase;
	int64_t x, y;

	if (!rate)
		return 0;
	/* integer arithmetic only, so every machine makes the same bytes */
	step = (uint32_t)(((uint64_t)eng_tone_hz(clip_id) << 32) / rate);
	phase = (uint32_t)i * step;
	x = (int64_t)(int32_t)phase;
	/* a parabola per half period: 4x(1-|x|) on [-1, 1) */
	y = x * ((INT64_C(1) << 31) - (x < 0 ? -x : x));
	y >>= 39;
	return (int32_t)((y & ~INT64_C(0xfff)) |
			 (int64_t)(sample_hash(seed, i) & 0xfff));
}

void eng_tone_render(uint64_t seed, uint32_t clip_id, uint32_t rate,
		     uint64_t first, size_t n, unsigned char *out)
{
	size_t k;

	for (k = 0; k < n; k++, out += 3) {
		uint32_t v =
		    (uint32_t)eng_tone_sample(seed, clip_id, rate, first + k);

		out[0] = v & 0xff;
		out[1] = (v >> 8) & 0xff;
		out[2] = (v >> 16) & 0xff;
	}
}
