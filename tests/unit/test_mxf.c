/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/media/mxf.c on MXF files made here byte by byte:
 * a header partition pack, header metadata (packages, tracks, a timecode,
 * picture and sound descriptors), an index table segment of a long-GOP
 * stream (temporal and key frame offsets), frame-wrapped elements and a
 * footer found from the header (no random index pack).  Checked: frames
 * in presentation order with decode order and dependencies, audio chunks,
 * timecode, package and clip name; BER lengths of 1 to 8 bytes and a run-in;
 * each damage gives its message naming the file; every truncation of the
 * file fails cleanly.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "media/mfile.h"

struct buf {
	unsigned char d[16384];
	size_t n;
};

/* how the file is made */
struct shape {
	size_t runin;		/* junk bytes before the header */
	int ber;		/* bytes of an element's BER length (1 short) */
	int no_index;
	int64_t duration;	/* IndexDuration (3) */
	int repeat;		/* then the first 2 entries again, as a
				 * second segment */
	int cbr;		/* pictures of 100 bytes, an index of
				 * EditUnitByteCount and no duration, and
				 * fill after the last edit unit */
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->d));
	memcpy(b->d + b->n, p, n);
	b->n += n;
}

static void put_be(struct buf *b, uint64_t v, int n)
{
	unsigned char x[8];

	for (int i = 0; i < n; i++)
		x[i] = (unsigned char)(v >> (8 * (n - 1 - i)));
	put(b, x, (size_t)n);
}

/* a KLV with a BER length of ber bytes (1: the short form) */
static void klv(struct buf *b, const unsigned char *key, const void *v,
		size_t n, int ber)
{
	put(b, key, 16);
	if (ber <= 1 && n < 0x80) {
		put_be(b, n, 1);
	} else {
		put_be(b, 0x80 | (unsigned)(ber - 1), 1);
		put_be(b, n, ber - 1);
	}
	put(b, v, n);
}

static void item(struct buf *b, unsigned tag, const void *v, size_t n)
{
	put_be(b, tag, 2);
	put_be(b, n, 2);
	put(b, v, n);
}

static void item_be(struct buf *b, unsigned tag, uint64_t v, int n)
{
	put_be(b, tag, 2);
	put_be(b, (uint64_t)n, 2);
	put_be(b, v, n);
}

static void uid(unsigned char *u, int n)
{
	memset(u, 0, 16);
	u[0] = 0xa0;
	u[15] = (unsigned char)n;
}

static void set(struct buf *b, unsigned type, struct buf *items, int n)
{
	unsigned char key[16] = { 0x06, 0x0e, 0x2b, 0x34, 0x02, 0x53, 0x01,
				  0x01, 0x0d, 0x01, 0x01, 0x01, 0x01, 0x01 };
	unsigned char u[16];
	struct buf *s = calloc(1, sizeof(*s));

	assert_non_null(s);
	key[14] = (unsigned char)type;
	uid(u, n);
	item(s, 0x3c0a, u, 16);
	put(s, items->d, items->n);
	klv(b, key, s->d, s->n, 4);
	free(s);
	items->n = 0;
}

static void refs(struct buf *b, unsigned tag, const int *ids, int n)
{
	put_be(b, tag, 2);
	put_be(b, 8 + 16 * (uint64_t)n, 2);
	put_be(b, (uint64_t)n, 4);
	put_be(b, 16, 4);
	for (int i = 0; i < n; i++) {
		unsigned char u[16];

		uid(u, ids[i]);
		put(b, u, 16);
	}
}

static void pack(struct buf *b, unsigned kind, uint64_t this, uint64_t prev,
		 uint64_t footer, uint64_t hbc, uint64_t ibc, uint32_t isid,
		 uint32_t bsid)
{
	unsigned char key[16] = { 0x06, 0x0e, 0x2b, 0x34, 0x02, 0x05, 0x01,
				  0x01, 0x0d, 0x01, 0x02, 0x01, 0x01 };
	static const unsigned char op1a[16] = {
		0x06, 0x0e, 0x2b, 0x34, 0x04, 0x01, 0x01, 0x01,
		0x0d, 0x01, 0x02, 0x01, 0x01, 0x01, 0x09, 0x00 };
	struct buf v = { .n = 0 };

	key[13] = (unsigned char)kind;
	key[14] = 0x04;		/* closed complete */
	put_be(&v, 1, 2);
	put_be(&v, 3, 2);
	put_be(&v, 1, 4);	/* KAG */
	put_be(&v, this, 8);
	put_be(&v, prev, 8);
	put_be(&v, footer, 8);
	put_be(&v, hbc, 8);
	put_be(&v, ibc, 8);
	put_be(&v, isid, 4);
	put_be(&v, 0, 8);	/* BodyOffset */
	put_be(&v, bsid, 4);
	put(&v, op1a, 16);
	put_be(&v, 0, 4);	/* no essence container labels */
	put_be(&v, 16, 4);
	klv(b, key, v.d, v.n, 4);
}

static const uint32_t V_NUMBER = 0x15010501, A_NUMBER = 0x16010101;
/* stored order: I (shown 0), P (shown 2), B (shown 1) */
static const uint32_t V_LEN[3] = { 100, 50, 70 };

static void header_metadata(struct buf *b)
{
	static const unsigned char mpeg2[16] = {
		0x06, 0x0e, 0x2b, 0x34, 0x04, 0x01, 0x01, 0x03,
		0x04, 0x01, 0x02, 0x02, 0x01, 0x04, 0x03, 0x00 };
	struct buf it = { .n = 0 };
	unsigned char umid[32];
	static const unsigned char name[] = { 0, 'C', 0, '1' };
	int mt[] = { 10 }, st[] = { 20, 21 }, comps[] = { 12 };

	for (int i = 0; i < 32; i++)
		umid[i] = (unsigned char)i;
	item(&it, 0x4401, umid, 32);
	item(&it, 0x4402, name, sizeof(name));
	refs(&it, 0x4403, mt, 1);
	set(b, 0x36, &it, 1);
	umid[31] = 0xee;
	item(&it, 0x4401, umid, 32);
	refs(&it, 0x4403, st, 2);
	item(&it, 0x4701, umid, 16);
	set(b, 0x37, &it, 2);
	/* the material package's timecode track */
	item_be(&it, 0x4801, 1, 4);
	item_be(&it, 0x4804, 0, 4);
	item_be(&it, 0x4b01, 25ull << 32 | 1, 8);
	uid(umid, 11);
	item(&it, 0x4803, umid, 16);
	set(b, 0x3b, &it, 10);
	refs(&it, 0x1001, comps, 1);
	set(b, 0x0f, &it, 11);
	item_be(&it, 0x1501, 90000, 8);
	item_be(&it, 0x1502, 25, 2);
	item_be(&it, 0x1503, 0, 1);
	set(b, 0x14, &it, 12);
	/* the file package's tracks and descriptors */
	item_be(&it, 0x4801, 2, 4);
	item_be(&it, 0x4804, V_NUMBER, 4);
	item_be(&it, 0x4b01, 25ull << 32 | 1, 8);
	set(b, 0x3b, &it, 20);
	item_be(&it, 0x4801, 3, 4);
	item_be(&it, 0x4804, A_NUMBER, 4);
	item_be(&it, 0x4b01, 25ull << 32 | 1, 8);
	set(b, 0x3b, &it, 21);
	item_be(&it, 0x3006, 2, 4);
	item(&it, 0x3201, mpeg2, 16);
	item_be(&it, 0x3203, 64, 4);
	item_be(&it, 0x3202, 48, 4);
	set(b, 0x51, &it, 30);
	item_be(&it, 0x3006, 3, 4);
	item_be(&it, 0x3d03, 48000ull << 32 | 1, 8);
	item_be(&it, 0x3d07, 1, 4);
	item_be(&it, 0x3d01, 16, 4);
	item_be(&it, 0x3d0a, 2, 2);
	set(b, 0x48, &it, 31);
}

/* each edit unit: the picture, then 8 samples of 16 bits */
static uint32_t pic_len(const struct shape *sh, int i)
{
	return sh->cbr ? 100 : V_LEN[i];
}

static size_t unit_len(const struct shape *sh, int i)
{
	int kl = 16 + (sh->ber <= 1 ? 1 : sh->ber);

	return (size_t)(kl + (int)pic_len(sh, i) + kl + 16);
}

/* a fill item of n >= 17 bytes in all */
static void fill(struct buf *b, size_t n)
{
	static const unsigned char key[16] = {
		0x06, 0x0e, 0x2b, 0x34, 0x01, 0x01, 0x01, 0x02,
		0x03, 0x01, 0x02, 0x10, 0x01, 0x00, 0x00, 0x00 };
	unsigned char z[64] = { 0 };

	assert_true(n >= 17 && n - 17 <= sizeof(z));
	klv(b, key, z, n - 17, 1);
}

static void index_segment(struct buf *b, const struct shape *sh, int n)
{
	static const unsigned char key[16] = {
		0x06, 0x0e, 0x2b, 0x34, 0x02, 0x53, 0x01, 0x01,
		0x0d, 0x01, 0x02, 0x01, 0x01, 0x10, 0x01, 0x00 };
	static const signed char to[3] = { 0, 1, -1 }, kfo[3] = { 0, -1, -2 };
	static const unsigned char flags[3] = { 0xc0, 0x22, 0x33 };
	struct buf v = { .n = 0 };
	uint64_t so = 0;

	item_be(&v, 0x3f0b, 25ull << 32 | 1, 8);
	item_be(&v, 0x3f0c, 0, 8);
	item_be(&v, 0x3f0d, sh->cbr ? 0 : n == 3 ? (uint64_t)sh->duration :
		(uint64_t)n, 8);
	item_be(&v, 0x3f05, sh->cbr ? unit_len(sh, 0) : 0, 4);
	item_be(&v, 0x3f06, 2, 4);
	item_be(&v, 0x3f07, 1, 4);
	if (sh->cbr)
		goto out;
	put_be(&v, 0x3f0a, 2);
	put_be(&v, 8 + (uint64_t)n * 11, 2);
	put_be(&v, (uint64_t)n, 4);
	put_be(&v, 11, 4);
	for (int i = 0; i < n; i++) {
		put_be(&v, (unsigned char)to[i], 1);
		put_be(&v, (unsigned char)kfo[i], 1);
		put_be(&v, flags[i], 1);
		put_be(&v, so, 8);
		so += unit_len(sh, i);
	}
out:
	klv(b, key, v.d, v.n, 4);
}

/* the file, and where its elements' values are (from the file's start) */
static void make(struct buf *f, const struct shape *sh, uint64_t voff[3],
		 uint64_t aoff[3])
{
	unsigned char ekey[16] = { 0x06, 0x0e, 0x2b, 0x34, 0x01, 0x02, 0x01,
				   0x01, 0x0d, 0x01, 0x03, 0x01 };
	struct buf *md = calloc(1, sizeof(*md)), *ix = calloc(1, sizeof(*ix));
	unsigned char pic[100], snd[16];
	uint64_t footer;
	size_t packlen = 16 + 4 + 88;
	int kl = 16 + (sh->ber <= 1 ? 1 : sh->ber);

	assert_non_null(md);
	assert_non_null(ix);
	header_metadata(md);
	if (!sh->no_index)
		index_segment(ix, sh, 3);
	if (sh->repeat)
		index_segment(ix, sh, 2);
	footer = packlen + md->n + ix->n;
	for (int i = 0; i < 3; i++)
		footer += unit_len(sh, i);
	if (sh->cbr)
		footer += 40;
	f->n = 0;
	for (size_t i = 0; i < sh->runin; i++)
		put_be(f, 0x55, 1);
	pack(f, 2, 0, 0, footer, md->n, ix->n, sh->no_index ? 0 : 2, 1);
	put(f, md->d, md->n);
	put(f, ix->d, ix->n);
	memset(pic, 0x11, sizeof(pic));
	memset(snd, 0x22, sizeof(snd));
	for (int i = 0; i < 3; i++) {
		for (int j = 0; j < 4; j++)
			ekey[12 + j] = (unsigned char)(V_NUMBER >> (24 - 8 * j));
		voff[i] = f->n + (uint64_t)kl;
		klv(f, ekey, pic, pic_len(sh, i), sh->ber);
		for (int j = 0; j < 4; j++)
			ekey[12 + j] = (unsigned char)(A_NUMBER >> (24 - 8 * j));
		aoff[i] = f->n + (uint64_t)kl;
		klv(f, ekey, snd, sizeof(snd), sh->ber);
	}
	if (sh->cbr)
		fill(f, 40);
	assert_int_equal(f->n - sh->runin, footer);
	pack(f, 4, footer, 0, footer, 0, 0, 0, 0);
	free(md);
	free(ix);
}

static long read_mem(void *ctx, uint64_t off, void *p, size_t len)
{
	const struct buf *b = ctx;

	assert_true(off <= b->n);
	if (len > b->n - off)
		len = b->n - off;
	memcpy(p, b->d + off, len);
	return (long)len;
}

static int read(struct buf *f, struct eng_mfile *mf, struct eng_diag *diag)
{
	struct eng_src src = { "t.mxf", f->n, read_mem, f };

	memset(diag, 0, sizeof(*diag));
	return eng_mfile_read_mxf(&src, mf, diag);
}

static void check_file(const struct shape *sh)
{
	struct buf *f = calloc(1, sizeof(*f));
	struct eng_mfile *mf = calloc(1, sizeof(*mf));
	struct eng_diag diag;
	uint64_t voff[3], aoff[3];
	const struct eng_essence *v, *a;

	assert_non_null(f);
	assert_non_null(mf);
	make(f, sh, voff, aoff);
	assert_int_equal(read(f, mf, &diag), 0);
	assert_int_equal(diag.n, 0);
	assert_string_equal(mf->format, "mxf-op1a");
	assert_string_equal(mf->clip_name, "C1");
	assert_string_equal(mf->package, "000102030405060708090A0B0C0D0E0F"
			    "101112131415161718191A1B1C1D1EEE");
	assert_true(mf->tc.present);
	assert_int_equal(mf->tc.frame, 90000);
	assert_int_equal(mf->tc.rate.num, 25);
	assert_int_equal(mf->nstreams, 2);
	v = &mf->streams[0];
	a = &mf->streams[1];
	assert_int_equal(v->kind, ENG_ESS_VIDEO);
	assert_string_equal(v->codec, "mpeg2video");
	assert_int_equal(v->width, 64);
	assert_int_equal(v->nframes, 3);
	/* shown 0 1 2 = stored 0 2 1 */
	assert_int_equal(v->off[0], voff[0]);
	assert_int_equal(v->off[1], voff[2]);
	assert_int_equal(v->off[2], voff[1]);
	assert_int_equal(v->len[1], V_LEN[2]);
	assert_non_null(v->decode);
	assert_int_equal(v->decode[1], 2);
	assert_int_equal(v->decode[2], 1);
	assert_int_equal(v->dep[1], 0);
	assert_int_equal(v->dep[2], 0);
	assert_int_equal(v->len_min, 50);
	assert_int_equal(v->len_max, 100);
	assert_int_equal(a->kind, ENG_ESS_AUDIO);
	assert_string_equal(a->codec, "pcm_s16le");
	assert_int_equal(a->block, 2);
	assert_int_equal(a->nsamples, 24);
	assert_int_equal(a->nchunks, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(a->chunks[i].off, aoff[i]);
		assert_int_equal(a->chunks[i].first, 8 * i);
		assert_int_equal(a->chunks[i].count, 8);
	}
	eng_mfile_free(mf);
	eng_diag_free(&diag);
	free(f);
}

static void test_long_gop(void **state)
{
	struct shape sh = { .duration = 3 };

	(void)state;
	check_file(&sh);
}

static void test_ber_lengths(void **state)
{
	(void)state;
	for (int ber = 2; ber <= 9; ber++) {
		struct shape sh = { .ber = ber, .duration = 3 };

		check_file(&sh);
	}
}

/* a CBR index of no duration (the container's length counts the edit
 * units) and fill after the last edit unit: 3 frames, not 4 */
static void test_cbr_trailing_fill(void **state)
{
	struct buf *f = calloc(1, sizeof(*f));
	struct eng_mfile *mf = calloc(1, sizeof(*mf));
	struct shape sh = { .cbr = 1 };
	struct eng_diag diag;
	uint64_t voff[3], aoff[3];
	const struct eng_essence *v;

	(void)state;
	assert_non_null(f);
	assert_non_null(mf);
	make(f, &sh, voff, aoff);
	assert_int_equal(read(f, mf, &diag), 0);
	v = &mf->streams[0];
	assert_int_equal(v->nframes, 3);
	assert_null(v->decode);
	assert_null(v->dep);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(v->off[i], voff[i]);
		assert_int_equal(v->len[i], 100);
	}
	assert_int_equal(mf->streams[1].nsamples, 24);
	eng_mfile_free(mf);
	eng_diag_free(&diag);
	free(f);
}

/* a second segment repeating part of the first (as a footer may) */
static void test_repeated_segment(void **state)
{
	struct shape sh = { .duration = 3, .repeat = 1 };

	(void)state;
	check_file(&sh);
}

static void test_run_in(void **state)
{
	struct shape sh = { .runin = 100, .duration = 3 };

	(void)state;
	check_file(&sh);
}

/* make(sh), then the reader's one message, which must hold want */
static void refused(const struct shape *sh, void (*damage)(struct buf *),
		    const char *want)
{
	struct buf *f = calloc(1, sizeof(*f));
	struct eng_mfile *mf = calloc(1, sizeof(*mf));
	struct eng_diag diag;
	uint64_t voff[3], aoff[3];

	assert_non_null(f);
	assert_non_null(mf);
	make(f, sh, voff, aoff);
	if (damage)
		damage(f);
	assert_int_equal(read(f, mf, &diag), -EINVAL);
	assert_int_equal(diag.n, 1);
	if (!strstr(diag.msgs[0], want) || strncmp(diag.msgs[0], "t.mxf: ", 7))
		fail_msg("got '%s', expected 't.mxf: ...%s'", diag.msgs[0],
			 want);
	assert_null(mf->streams);
	eng_mfile_free(mf);
	eng_diag_free(&diag);
	free(f);
}

static void ber_of_9(struct buf *f)
{
	/* the first element's BER length: 0x88 -> 0x89 (9 bytes) */
	static const unsigned char k[12] = { 0x06, 0x0e, 0x2b, 0x34, 0x01,
					     0x02, 0x01, 0x01, 0x0d, 0x01,
					     0x03, 0x01 };
	for (size_t i = 0; i + 17 < f->n; i++)
		if (!memcmp(f->d + i, k, 12)) {
			f->d[i + 16] = 0x89;
			return;
		}
	fail();
}

static void footer_moved(struct buf *f)
{
	/* the last byte of the footer's ThisPartition: the pack is the
	 * file's last 108 bytes, its value after a key and 4 length bytes */
	f->d[f->n - 108 + 20 + 15] ^= 1;
}

static void test_refused(void **state)
{
	struct shape sh = { .duration = 3 }, noidx = { .no_index = 1,
						       .duration = 3 };
	struct shape dur = { .duration = 4 }, ber9 = { .ber = 9, .duration = 3 };

	(void)state;
	refused(&noidx, NULL, "no index table segments");
	refused(&dur, NULL, "3 entries for an IndexDuration of 4");
	refused(&ber9, ber_of_9, "not a BER length of up to 8 bytes");
	refused(&sh, footer_moved, "says it is at byte");
}

static void test_not_mxf(void **state)
{
	struct buf *f = calloc(1, sizeof(*f));
	struct eng_mfile *mf = calloc(1, sizeof(*mf));
	struct eng_diag diag;

	(void)state;
	assert_non_null(f);
	assert_non_null(mf);
	put(f, "RIFF\0\0\0\0WAVEfmt ", 16);
	assert_int_equal(read(f, mf, &diag), -ENOTSUP);
	assert_int_equal(diag.n, 0);
	f->n = 0;
	put(f, "\x06\x0e\x2b\x34\x01\x01\x01\x01", 8);	/* a key, not a pack */
	put(f, "\x0d\x01\x02\x01\x01\x02\x04\x00\x00", 9);
	assert_int_equal(read(f, mf, &diag), -ENOTSUP);
	assert_int_equal(diag.n, 0);
	eng_mfile_free(mf);
	free(f);
}

/* every prefix of the file: -ENOTSUP (too short to be MXF) or -EINVAL
 * with one message, never a read outside it (read_mem asserts) */
static void test_truncated(void **state)
{
	struct buf *f = calloc(1, sizeof(*f));
	struct eng_mfile *mf = calloc(1, sizeof(*mf));
	struct shape sh = { .duration = 3 };
	uint64_t voff[3], aoff[3];
	size_t full;

	(void)state;
	assert_non_null(f);
	assert_non_null(mf);
	make(f, &sh, voff, aoff);
	full = f->n;
	for (size_t n = 0; n < full; n++) {
		struct eng_diag diag;
		int rc;

		f->n = n;
		rc = read(f, mf, &diag);
		assert_true(rc == -ENOTSUP || rc == -EINVAL);
		assert_int_equal(diag.n, rc == -EINVAL);
		assert_null(mf->streams);
		eng_diag_free(&diag);
	}
	eng_mfile_free(mf);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_gop),
		cmocka_unit_test(test_ber_lengths),
		cmocka_unit_test(test_repeated_segment),
		cmocka_unit_test(test_cbr_trailing_fill),
		cmocka_unit_test(test_run_in),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_not_mxf),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
