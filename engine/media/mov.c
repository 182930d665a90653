/* SPDX-License-Identifier: MIT */
/*
 * The QuickTime header of a timeline movie (mov.h).  The moov's size does
 * not depend on the offsets it holds, so it is built three times: to learn
 * whether offsets need co64, to learn the header's size with that choice,
 * and for real with the offsets known.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media/mov.h"
#include "timeline/layout.h"
#include "timeline/model.h"

/* A growable byte buffer; after a failed allocation err is set and
 * further writes do nothing, checked once at the end. */
struct bbuf {
	uint8_t *p;
	size_t len, cap;
	int err;
};

static uint8_t *room(struct bbuf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return NULL;
	if (b->len + n > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->err = -ENOMEM;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	p = b->p + b->len;
	b->len += n;
	return p;
}

static void put_be(struct bbuf *b, uint64_t v, int bytes)
{
	uint8_t *p = room(b, (size_t)bytes);
	int i;

	if (p)
		for (i = 0; i < bytes; i++)
			p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static void u8(struct bbuf *b, uint64_t v) { put_be(b, v, 1); }
static void u16(struct bbuf *b, uint64_t v) { put_be(b, v, 2); }
static void u32(struct bbuf *b, uint64_t v) { put_be(b, v, 4); }
static void u64(struct bbuf *b, uint64_t v) { put_be(b, v, 8); }

static void fourcc(struct bbuf *b, const char *c)
{
	uint8_t *p = room(b, 4);

	if (p)
		memcpy(p, c, 4);
}

static void zeros(struct bbuf *b, size_t n)
{
	uint8_t *p = room(b, n);

	if (p)
		memset(p, 0, n);
}

/* Open a box: its size is patched by box_end. */
static size_t box(struct bbuf *b, const char *type)
{
	size_t at = b->len;

	u32(b, 0);
	fourcc(b, type);
	return at;
}

static void box_end(struct bbuf *b, size_t at)
{
	uint64_t n = b->len - at;
	int i;

	if (b->err)
		return;
	for (i = 0; i < 4; i++)
		b->p[at + (size_t)i] = (uint8_t)(n >> (8 * (3 - i)));
}

/* Version and flags of a full box. */
static void full(struct bbuf *b, unsigned version, unsigned flags)
{
	u32(b, (uint64_t)version << 24 | flags);
}

static void matrix(struct bbuf *b)
{
	u32(b, 0x10000);
	u32(b, 0);
	u32(b, 0);
	u32(b, 0);
	u32(b, 0x10000);
	u32(b, 0);
	u32(b, 0);
	u32(b, 0);
	u32(b, 0x40000000);
}

/* What each track of the movie is. */
struct mtrack {
	int video;
	uint32_t timescale;	/* fps.num for video, the sample rate */
	uint64_t duration;	/* in timescale */
	uint64_t black;		/* movie offset of its black picture; 0 none */
	int gaps;
};

struct movie {
	const struct eng_timeline *tl;
	struct mtrack *tr;
	int co64;
	uint64_t base;		/* movie offset of timeline byte 0 */
};

static int is_audio(const struct eng_track *t)
{
	return t->pic.pix == ENG_PIX_NONE && t->align == 3 && t->rate % 3 == 0 &&
	       t->rate / 3 < 65536;
}

static void put_vdesc(struct bbuf *b, const struct eng_track *t)
{
	size_t e = box(b, t->pic.pix == ENG_PIX_2VUY ? "2vuy" : "v210");
	size_t c;
	int hd = t->pic.height > 576;
	const char *name = t->pic.pix == ENG_PIX_2VUY ? "Component Y'CbCr 8-bit 4:2:2"
						      : "Component Y'CbCr 10-bit 4:2:2";
	size_t nl = strlen(name);
	uint8_t *p;

	zeros(b, 6);
	u16(b, 1);		/* data reference */
	u16(b, 0);		/* version */
	u16(b, 0);		/* revision */
	u32(b, 0);		/* vendor */
	u32(b, 0);		/* temporal quality */
	u32(b, 0x200);		/* spatial quality: lossless */
	u16(b, t->pic.width);
	u16(b, t->pic.height);
	u32(b, 72u << 16);
	u32(b, 72u << 16);
	u32(b, 0);		/* data size */
	u16(b, 1);		/* frames per sample */
	u8(b, nl);		/* compressor name: a Pascal string in 32 */
	p = room(b, 31);
	if (p) {
		memset(p, 0, 31);
		memcpy(p, name, nl);
	}
	u16(b, 24);		/* depth */
	u16(b, 0xffff);		/* no color table */
	/* ITU-R BT.601 for SD (6/1/6), BT.709 for HD (1/1/1) */
	c = box(b, "colr");
	fourcc(b, "nclc");
	u16(b, hd ? 1 : 6);
	u16(b, 1);
	u16(b, hd ? 1 : 6);
	box_end(b, c);
	c = box(b, "fiel");	/* progressive */
	u8(b, 1);
	u8(b, 0);
	box_end(b, c);
	c = box(b, "pasp");
	u32(b, 1);
	u32(b, 1);
	box_end(b, c);
	box_end(b, e);
}

static void put_adesc(struct bbuf *b, const struct eng_track *t)
{
	size_t e = box(b, "in24"), w, c;

	zeros(b, 6);
	u16(b, 1);		/* data reference */
	u16(b, 1);		/* version 1: the four fields below */
	u16(b, 0);
	u32(b, 0);
	u16(b, 1);		/* channels */
	u16(b, 16);		/* sample size (v1: the fields below rule) */
	u16(b, 0);		/* compression id */
	u16(b, 0);		/* packet size */
	u32(b, (t->rate / 3) << 16);
	u32(b, 1);		/* samples per packet */
	u32(b, 3);		/* bytes per packet */
	u32(b, 3);		/* bytes per frame */
	u32(b, 2);		/* bytes per sample */
	w = box(b, "wave");
	c = box(b, "frma");
	fourcc(b, "in24");
	box_end(b, c);
	c = box(b, "enda");
	u16(b, 1);		/* little-endian, as WAV essence is */
	box_end(b, c);
	u32(b, 8);		/* terminator */
	u32(b, 0);
	box_end(b, w);
	box_end(b, e);
}

/* Movie offset of track t's chunk of frame k; a video gap is its black
 * picture. */
static uint64_t chunk_off(const struct movie *mv, size_t t, int64_t k,
			  uint64_t frame_off)
{
	const struct eng_timeline *tl = mv->tl;
	size_t u;

	if (mv->tr[t].video && !eng_segment_at(&tl->tracks[t], k))
		return mv->tr[t].black;
	for (u = 0; u < t; u++)
		frame_off += eng_upto(tl, u, k + 1) - eng_upto(tl, u, k);
	return mv->base + frame_off;
}

static void put_stbl(struct bbuf *b, const struct movie *mv, size_t t)
{
	const struct eng_timeline *tl = mv->tl;
	const struct eng_track *tr = &tl->tracks[t];
	size_t s = box(b, "stbl"), c, cnt_at;
	uint64_t prev = 0, n = 0;
	int64_t k;

	c = box(b, "stsd");
	full(b, 0, 0);
	u32(b, 1);
	if (mv->tr[t].video)
		put_vdesc(b, tr);
	else
		put_adesc(b, tr);
	box_end(b, c);

	c = box(b, "stts");
	full(b, 0, 0);
	u32(b, 1);
	if (mv->tr[t].video) {
		u32(b, (uint64_t)tl->frames);
		u32(b, tl->fps.den);
	} else {
		u32(b, eng_upto(tl, t, tl->frames) / 3);
		u32(b, 1);
	}
	box_end(b, c);

	/* one chunk per frame: video one sample, audio the frame's samples,
	 * one entry per run of equal counts */
	c = box(b, "stsc");
	full(b, 0, 0);
	cnt_at = b->len;
	u32(b, 0);
	for (k = 0; k < tl->frames; k++) {
		uint64_t per = mv->tr[t].video
				       ? 1
				       : (eng_upto(tl, t, k + 1) -
					  eng_upto(tl, t, k)) / 3;

		if (k == 0 || per != prev) {
			u32(b, (uint64_t)k + 1);
			u32(b, per);
			u32(b, 1);
			n++;
			prev = per;
		}
	}
	if (!b->err)
		for (k = 0; k < 4; k++)
			b->p[cnt_at + (size_t)k] = (uint8_t)(n >> (8 * (3 - k)));
	box_end(b, c);

	c = box(b, "stsz");
	full(b, 0, 0);
	if (mv->tr[t].video) {
		u32(b, tr->align);
		u32(b, (uint64_t)tl->frames);
	} else {
		u32(b, 3);
		u32(b, eng_upto(tl, t, tl->frames) / 3);
	}
	box_end(b, c);

	c = box(b, mv->co64 ? "co64" : "stco");
	full(b, 0, 0);
	u32(b, (uint64_t)tl->frames);
	for (k = 0; k < tl->frames; k++) {
		uint64_t off = chunk_off(mv, t, k, eng_frame_offset(tl, k));

		if (mv->co64)
			u64(b, off);
		else
			u32(b, off);
	}
	box_end(b, c);
	box_end(b, s);
}

/* mvhd, tkhd and mdhd: version 1 (64-bit times) only where needed. */
static void times(struct bbuf *b, int v1, uint64_t ts_or_id, uint64_t dur,
		  int with_id)
{
	if (v1) {
		u64(b, 0);
		u64(b, 0);
	} else {
		u32(b, 0);
		u32(b, 0);
	}
	u32(b, ts_or_id);
	if (with_id)
		u32(b, 0);	/* reserved */
	if (v1)
		u64(b, dur);
	else
		u32(b, dur);
}

static void put_trak(struct bbuf *b, const struct movie *mv, size_t t,
		     uint64_t mdur)
{
	const struct eng_track *tr = &mv->tl->tracks[t];
	const struct mtrack *m = &mv->tr[t];
	size_t k = box(b, "trak"), c, md, mi, di;
	int v1 = mdur > UINT32_MAX;

	c = box(b, "tkhd");
	full(b, v1, 0xf);	/* enabled, in movie, preview, poster */
	times(b, v1, t + 1, mdur, 1);
	zeros(b, 8);
	u16(b, 0);		/* layer */
	u16(b, 0);		/* alternate group */
	u16(b, m->video ? 0 : 0x100);
	u16(b, 0);
	matrix(b);
	u32(b, m->video ? (uint64_t)tr->pic.width << 16 : 0);
	u32(b, m->video ? (uint64_t)tr->pic.height << 16 : 0);
	box_end(b, c);

	md = box(b, "mdia");
	v1 = m->duration > UINT32_MAX;
	c = box(b, "mdhd");
	full(b, v1, 0);
	times(b, v1, m->timescale, m->duration, 0);
	u16(b, 0);		/* language */
	u16(b, 0);		/* quality */
	box_end(b, c);
	c = box(b, "hdlr");
	full(b, 0, 0);
	fourcc(b, "mhlr");
	fourcc(b, m->video ? "vide" : "soun");
	zeros(b, 12);
	u8(b, 0);		/* name: empty Pascal string */
	box_end(b, c);

	mi = box(b, "minf");
	if (m->video) {
		c = box(b, "vmhd");
		full(b, 0, 1);
		u16(b, 0x40);	/* graphics mode: copy */
		zeros(b, 6);
	} else {
		c = box(b, "smhd");
		full(b, 0, 0);
		zeros(b, 4);
	}
	box_end(b, c);
	c = box(b, "hdlr");
	full(b, 0, 0);
	fourcc(b, "dhlr");
	fourcc(b, "alis");
	zeros(b, 12);
	u8(b, 0);
	box_end(b, c);
	di = box(b, "dinf");
	c = box(b, "dref");
	full(b, 0, 0);
	u32(b, 1);
	{
		size_t a = box(b, "alis");

		full(b, 0, 1);	/* the data is in this file */
		box_end(b, a);
	}
	box_end(b, c);
	box_end(b, di);
	put_stbl(b, mv, t);
	box_end(b, mi);
	box_end(b, md);
	box_end(b, k);
}

static void put_moov(struct bbuf *b, const struct movie *mv)
{
	const struct eng_timeline *tl = mv->tl;
	uint64_t mdur = (uint64_t)tl->frames * tl->fps.den;
	int v1 = mdur > UINT32_MAX;
	size_t m = box(b, "moov"), c, t;

	c = box(b, "mvhd");
	full(b, v1, 0);
	times(b, v1, tl->fps.num, mdur, 0);
	u32(b, 0x10000);	/* rate */
	u16(b, 0x100);		/* volume */
	zeros(b, 10);
	matrix(b);
	zeros(b, 24);		/* preview, poster, selection, current */
	u32(b, tl->ntracks + 1);
	box_end(b, c);
	for (t = 0; t < tl->ntracks; t++)
		put_trak(b, mv, t, mdur);
	box_end(b, m);
}

static void put_ftyp(struct bbuf *b)
{
	size_t c = box(b, "ftyp");

	fourcc(b, "qt  ");
	u32(b, 0x200);
	fourcc(b, "qt  ");
	box_end(b, c);
}

/* One black picture: 2vuy Cb Y Cr Y = 80 10 80 10; v210 the packing of
 * Y 64, Cb and Cr 512 (10-bit), words alternating 0x20010200 0x04080040
 * little-endian (a row is a multiple of 128 bytes, so of two words). */
static void put_black(struct bbuf *b, const struct eng_picture *p)
{
	uint64_t n = eng_picture_bytes(p), i;
	uint8_t *q = room(b, n);
	static const uint8_t v210[8] = {0x00, 0x02, 0x01, 0x20,
					0x40, 0x00, 0x08, 0x04};

	if (!q)
		return;
	for (i = 0; i < n; i++)
		q[i] = p->pix == ENG_PIX_2VUY ? (i & 1 ? 0x10 : 0x80)
					      : v210[i & 7];
}

/* Check the tracks; fill mv->tr.  0 or -EINVAL with why. */
static int classify(struct movie *mv, char *why, size_t whylen)
{
	const struct eng_timeline *tl = mv->tl;
	size_t t;
	int64_t k;

	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *tr = &tl->tracks[t];
		struct mtrack *m = &mv->tr[t];

		if (tr->pic.pix != ENG_PIX_NONE) {
			m->video = 1;
			m->timescale = tl->fps.num;
			m->duration = (uint64_t)tl->frames * tl->fps.den;
			for (k = 0; k < tl->frames && !m->gaps; k++)
				m->gaps = !eng_segment_at(tr, k);
		} else if (is_audio(tr)) {
			m->timescale = (uint32_t)(tr->rate / 3);
			m->duration = eng_upto(tl, t, tl->frames) / 3;
			for (k = 0; k < tl->frames; k++)
				if (eng_upto(tl, t, k + 1) == eng_upto(tl, t, k)) {
					snprintf(why, whylen,
						 "track %s: frame %" PRId64
						 " has no audio sample",
						 tr->name, k);
					return -EINVAL;
				}
		} else {
			/* audio tracks are the ones named A... (formats.md) */
			snprintf(why, whylen,
				 tr->align == 3 ? "track %s: audio rate not 3 bytes times a sample rate below 65536"
				 : tr->name[0] == 'A' ? "track %s: audio not of 24-bit samples (align=3)"
						      : "track %s has no picture format",
				 tr->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* The black mdat: one picture per distinct picture of tracks with gaps;
 * sets each such track's black offset (at = movie offset of the box). */
static void put_blacks(struct bbuf *b, struct movie *mv, uint64_t at)
{
	const struct eng_timeline *tl = mv->tl;
	size_t c, t, u;

	for (t = 0; t < tl->ntracks && !mv->tr[t].gaps; t++)
		;
	if (t == tl->ntracks)
		return;		/* no gap, no black picture */
	c = box(b, "mdat");
	for (t = 0; t < tl->ntracks; t++) {
		if (!mv->tr[t].gaps)
			continue;
		for (u = 0; u < t; u++)
			if (mv->tr[u].gaps &&
			    !memcmp(&tl->tracks[u].pic, &tl->tracks[t].pic,
				    sizeof(tl->tracks[t].pic)))
				break;
		if (u < t) {
			mv->tr[t].black = mv->tr[u].black;
			continue;
		}
		mv->tr[t].black = at + (b->len - c);
		put_black(b, &tl->tracks[t].pic);
	}
	box_end(b, c);
}

/* Header size for a choice of co64 (the offsets' values do not matter). */
static int layout(struct movie *mv, struct bbuf *b)
{
	uint64_t big;

	b->len = 0;
	put_ftyp(b);
	put_moov(b, mv);
	put_blacks(b, mv, b->len);
	big = 8 + mv->tl->bytes > UINT32_MAX;
	if (big) {
		u32(b, 1);
		fourcc(b, "mdat");
		u64(b, 16 + mv->tl->bytes);
	} else {
		u32(b, 8 + mv->tl->bytes);
		fourcc(b, "mdat");
	}
	return b->err;
}

int eng_mov_build(const struct eng_timeline *tl, struct eng_mov *out,
		  char *why, size_t whylen)
{
	struct movie mv = {.tl = tl};
	struct bbuf b = {0};
	int rc;

	memset(out, 0, sizeof(*out));
	mv.tr = calloc(tl->ntracks, sizeof(*mv.tr));
	if (!mv.tr)
		return -ENOMEM;
	rc = classify(&mv, why, whylen);
	if (rc < 0)
		goto out;
	/* stsz and stts hold 32-bit counts */
	rc = -EFBIG;
	if ((uint64_t)tl->frames > UINT32_MAX) {
		snprintf(why, whylen, "%" PRId64 " frames: too many for a movie",
			 tl->frames);
		goto out;
	}
	for (size_t t = 0; t < tl->ntracks; t++)
		if (!mv.tr[t].video && mv.tr[t].duration > UINT32_MAX) {
			snprintf(why, whylen,
				 "track %s: too many audio samples for a movie",
				 tl->tracks[t].name);
			goto out;
		}
	/* pass 1: with stco, would the last offset fit 32 bits? */
	if ((rc = layout(&mv, &b)) < 0)
		goto out;
	mv.co64 = b.len + tl->bytes > UINT32_MAX;
	/* pass 2: the size with that choice, then the real offsets */
	if ((rc = layout(&mv, &b)) < 0)
		goto out;
	mv.base = b.len;
	if ((rc = layout(&mv, &b)) < 0)
		goto out;
	out->head = b.p;
	out->head_len = b.len;
	out->size = b.len + tl->bytes;
	b.p = NULL;
	rc = 0;
out:
	free(b.p);
	free(mv.tr);
	return rc;
}

void eng_mov_free(struct eng_mov *m)
{
	free(m->head);
	memset(m, 0, sizeof(*m));
}

int eng_mov_map(const struct eng_mov *m, uint64_t off, uint64_t *tl_off,
		uint64_t *n)
{
	if (off >= m->size)
		return -ERANGE;
	if (off < m->head_len) {
		*n = m->head_len - off;
		return 1;
	}
	*tl_off = off - m->head_len;
	*n = m->size - off;
	return 0;
}
