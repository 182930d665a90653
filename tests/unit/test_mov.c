/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/media/mov.c: the produced header is walked box by
 * box and every table checked against a layout computed here on its own
 * (frame sizes, the 1601/1602 audio cadence at 29.97, chunk offsets,
 * black-picture pointers of gaps, co64 and the 64-bit mdat past 4 GiB),
 * plus the reasons a timeline is no movie and eng_mov_map.
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

#include "media/mov.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* A box found by the walker: where its payload is and how long. */
struct box {
	const uint8_t *p;
	uint64_t len;
};

/* The n-th (0-based) box of `type` directly inside [p, p+len). */
static int child(const uint8_t *p, uint64_t len, const char *type, int n,
		 struct box *out)
{
	uint64_t at = 0;

	while (at + 8 <= len) {
		uint64_t size = be(p + at, 4), hdr = 8;

		if (size == 1) {
			size = be(p + at + 8, 8);
			hdr = 16;
		}
		assert_true(size >= hdr);
		if (!memcmp(p + at + 4, type, 4) && n-- == 0) {
			out->p = p + at + hdr;
			out->len = (at + size <= len ? size : len - at) - hdr;
			return 1;
		}
		if (at + size > len)
			return 0;
		at += size;
	}
	return 0;
}

/* Follow a path "moov/trak#1/mdia/minf/stbl/stsz" from the header. */
static struct box path(const struct eng_mov *m, const char *pathspec)
{
	struct box b = {m->head, m->head_len};
	char buf[128], *tok, *save = NULL;

	snprintf(buf, sizeof(buf), "%s", pathspec);
	for (tok = strtok_r(buf, "/", &save); tok;
	     tok = strtok_r(NULL, "/", &save)) {
		int n = 0;
		char *h = strchr(tok, '#');

		if (h) {
			n = atoi(h + 1);
			*h = '\0';
		}
		if (!child(b.p, b.len, tok, n, &b))
			fail_msg("no box %s in %s", tok, pathspec);
		/* a sample description table: version, flags, count first */
		if (!strcmp(tok, "stsd")) {
			b.p += 8;
			b.len -= 8;
		}
	}
	return b;
}

static struct eng_timeline *parse(const char *text)
{
	struct eng_timeline *tl;
	struct eng_diag d = {0};

	if (eng_tl_parse("m.tl", "m", text, strlen(text), &tl, &d) < 0)
		fail_msg("%s", d.n ? d.msgs[0] : "parse failed");
	return tl;
}

#define FS 699840		/* 720x486 2vuy */

/* Samples before frame k at 48 kHz and 30000/1001: floor(k * 1601.6). */
static uint64_t samples(int64_t k)
{
	return (uint64_t)k * 8008 / 5;
}

/* Offset in the timeline of frame k: V, then A1 and A2. */
static uint64_t frame_off(int64_t k)
{
	return (uint64_t)k * FS + 2 * 3 * samples(k);
}

static void test_ntsc(void **state)
{
	struct eng_timeline *tl =
		parse("fps 30000/1001\ntrack V 2vuy 720x486\n"
		      "track A1 144000 align=3\ntrack A2 144000 align=3\n"
		      "event V,A1,A2 a 0 30\nevent A1,A2 b 5 10\n"
		      "event V,A1,A2 b 10 20 @40\n");
	struct eng_mov m;
	struct box b, black;
	char why[128];
	int64_t k;
	uint64_t i, n, first, runs;

	(void)state;
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	assert_int_equal(tl->bytes, frame_off(60));
	assert_int_equal(m.size, m.head_len + tl->bytes);
	/* ftyp first, qt brand */
	assert_memory_equal(m.head + 4, "ftypqt  ", 8);
	/* the header ends with the mdat of the timeline: 32-bit size */
	assert_int_equal(be(m.head + m.head_len - 8, 4), 8 + tl->bytes);
	assert_memory_equal(m.head + m.head_len - 4, "mdat", 4);
	b = path(&m, "moov/mvhd");
	assert_int_equal(be(b.p + 12, 4), 30000);
	assert_int_equal(be(b.p + 16, 4), 60 * 1001);
	assert_int_equal(be(b.p + 96, 4), 4);	/* next track id */

	/* video: 2vuy 720x486, colr 6/1/6, fiel, pasp */
	b = path(&m, "moov/trak#0/mdia/minf/stbl/stsd");
	assert_int_equal(be(b.p - 4, 4), 1);
	assert_memory_equal(b.p + 4, "2vuy", 4);
	assert_int_equal(be(b.p + 32, 2), 720);
	assert_int_equal(be(b.p + 34, 2), 486);
	b = path(&m, "moov/trak#0/mdia/minf/stbl/stsd/2vuy");
	{
		struct box c;

		assert_true(child(b.p + 78, b.len - 78, "colr", 0, &c));
		assert_memory_equal(c.p, "nclc\0\6\0\1\0\6", 10);
		assert_true(child(b.p + 78, b.len - 78, "fiel", 0, &c));
		assert_memory_equal(c.p, "\1\0", 2);
		assert_true(child(b.p + 78, b.len - 78, "pasp", 0, &c));
		assert_memory_equal(c.p, "\0\0\0\1\0\0\0\1", 8);
	}
	b = path(&m, "moov/trak#0/mdia/mdhd");
	assert_int_equal(be(b.p + 12, 4), 30000);
	assert_int_equal(be(b.p + 16, 4), 60 * 1001);
	b = path(&m, "moov/trak#0/mdia/minf/stbl/stts");
	assert_int_equal(be(b.p + 4, 4), 1);
	assert_int_equal(be(b.p + 8, 4), 60);
	assert_int_equal(be(b.p + 12, 4), 1001);
	b = path(&m, "moov/trak#0/mdia/minf/stbl/stsc");
	assert_int_equal(be(b.p + 4, 4), 1);
	assert_memory_equal(b.p + 8, "\0\0\0\1\0\0\0\1\0\0\0\1", 12);
	b = path(&m, "moov/trak#0/mdia/minf/stbl/stsz");
	assert_int_equal(be(b.p + 4, 4), FS);
	assert_int_equal(be(b.p + 8, 4), 60);
	black = path(&m, "mdat");	/* the first mdat: black pictures */
	assert_int_equal(black.len, FS);
	for (i = 0; i < FS; i++)
		assert_int_equal(black.p[i], i & 1 ? 0x10 : 0x80);
	b = path(&m, "moov/trak#0/mdia/minf/stbl/stco");
	assert_int_equal(be(b.p + 4, 4), 60);
	for (k = 0; k < 60; k++) {
		uint64_t want = k >= 30 && k < 40
					? (uint64_t)(black.p - m.head)
					: m.head_len + frame_off(k);

		assert_int_equal(be(b.p + 8 + 4 * k, 4), want);
	}

	/* audio: in24 v1, 48000, wave{frma, enda 1, terminator} */
	b = path(&m, "moov/trak#1/mdia/minf/stbl/stsd/in24");
	assert_int_equal(be(b.p + 8, 2), 1);	/* version 1 */
	assert_int_equal(be(b.p + 16, 2), 1);	/* channels */
	assert_int_equal(be(b.p + 18, 2), 16);
	assert_int_equal(be(b.p + 20, 2), 0);	/* compression id */
	assert_int_equal(be(b.p + 24, 4), 48000u << 16);
	assert_int_equal(be(b.p + 28, 4), 1);
	assert_int_equal(be(b.p + 32, 4), 3);
	assert_int_equal(be(b.p + 36, 4), 3);
	assert_int_equal(be(b.p + 40, 4), 2);
	{
		struct box w, c;

		assert_true(child(b.p + 44, b.len - 44, "wave", 0, &w));
		assert_true(child(w.p, w.len, "frma", 0, &c));
		assert_memory_equal(c.p, "in24", 4);
		assert_true(child(w.p, w.len, "enda", 0, &c));
		assert_int_equal(be(c.p, 2), 1);
		assert_memory_equal(w.p + w.len - 8, "\0\0\0\x08\0\0\0\0", 8);
	}
	b = path(&m, "moov/trak#1/mdia/mdhd");
	assert_int_equal(be(b.p + 12, 4), 48000);
	assert_int_equal(be(b.p + 16, 4), samples(60));
	b = path(&m, "moov/trak#1/mdia/minf/stbl/stts");
	assert_int_equal(be(b.p + 8, 4), samples(60));
	assert_int_equal(be(b.p + 12, 4), 1);
	b = path(&m, "moov/trak#2/mdia/minf/stbl/stsz");
	assert_int_equal(be(b.p + 4, 4), 3);
	assert_int_equal(be(b.p + 8, 4), samples(60));
	/* stsc: one entry per run of equal samples per chunk, and expanding
	 * the runs gives each frame's count: 1601 or 1602 */
	b = path(&m, "moov/trak#2/mdia/minf/stbl/stsc");
	runs = be(b.p + 4, 4);
	for (i = 0, k = 0; i < runs; i++) {
		first = be(b.p + 8 + 12 * i, 4);
		n = be(b.p + 12 + 12 * i, 4);
		assert_int_equal(be(b.p + 16 + 12 * i, 4), 1);
		assert_int_equal(first, (uint64_t)k + 1);
		assert_true(n == 1601 || n == 1602);
		if (i)
			assert_int_not_equal(n, be(b.p + 12 * i, 4));
		do {
			assert_int_equal(samples(k + 1) - samples(k), n);
			k++;
		} while (i + 1 == runs ? k < 60
				       : (uint64_t)k + 1 < be(b.p + 8 + 12 * (i + 1), 4));
	}
	assert_int_equal(k, 60);
	b = path(&m, "moov/trak#2/mdia/minf/stbl/stco");
	for (k = 0; k < 60; k++)
		assert_int_equal(be(b.p + 8 + 4 * k, 4),
				 m.head_len + frame_off(k) + FS +
				 3 * (samples(k + 1) - samples(k)));
	eng_mov_free(&m);
	eng_tl_free(tl);
}

/* 6200 frames of 720x486 at 25 fps: 4.34 GB, offsets past 4 GiB. */
static void test_co64(void **state)
{
	struct eng_timeline *tl =
		parse("fps 25\ntrack V 2vuy 720x486\ntrack A1 144000 align=3\n"
		      "event V,A1 a 0 6200\n");
	struct eng_mov m;
	struct box b;
	char why[128];
	int64_t k;

	(void)state;
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	assert_int_equal(tl->bytes, 6200ULL * (FS + 5760));
	assert_true(tl->bytes > UINT32_MAX);
	/* mdat: size 1, then the 64-bit size */
	assert_int_equal(be(m.head + m.head_len - 16, 4), 1);
	assert_memory_equal(m.head + m.head_len - 12, "mdat", 4);
	assert_int_equal(be(m.head + m.head_len - 8, 8), 16 + tl->bytes);
	assert_false(child(path(&m, "moov/trak#0/mdia/minf/stbl").p,
			   path(&m, "moov/trak#0/mdia/minf/stbl").len, "stco",
			   0, &b));
	b = path(&m, "moov/trak#1/mdia/minf/stbl/co64");
	assert_int_equal(be(b.p + 4, 4), 6200);
	for (k = 0; k < 6200; k++)
		assert_int_equal(be(b.p + 8 + 8 * k, 8),
				 m.head_len + k * (FS + 5760ULL) + FS);
	/* no gap: no black picture, the first mdat is the timeline's */
	b = path(&m, "mdat");
	assert_int_equal(b.p - m.head, m.head_len);
	eng_mov_free(&m);
	eng_tl_free(tl);

	/* just below: 6100 frames, 4.27 GB of offsets < 2^32 keep stco */
	tl = parse("fps 25\ntrack V 2vuy 720x486\nevent V a 0 6100\n");
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	assert_true(m.size < UINT32_MAX);
	path(&m, "moov/trak#0/mdia/minf/stbl/stco");
	assert_int_equal(be(m.head + m.head_len - 8, 4), 8 + tl->bytes);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

static void test_not_movie(void **state)
{
	struct eng_timeline *tl;
	struct eng_mov m;
	char why[128];

	(void)state;
	tl = parse("fps 25\ntrack V 18M\ntrack A1 144000 align=3\n"
		   "event V,A1 a 0 10\n");
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "track V has no picture format");
	assert_null(m.head);
	eng_tl_free(tl);
	tl = parse("fps 25\ntrack V 2vuy 8x8\ntrack A1 144002 align=3\n"
		   "event V,A1 a 0 10\n");
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "track A1: audio rate"));
	eng_tl_free(tl);
	/* An audio track of 16-bit or unaligned samples is no picture
	 * track: the reason says what it lacks (found as a user, issue 20:
	 * 'track A1 144000' without align=3 said "track A1 has no picture
	 * format") */
	tl = parse("fps 25\ntrack V 2vuy 8x8\ntrack A1 144000\n"
		   "event V,A1 a 0 10\n");
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "track A1: audio not of 24-bit samples "
			    "(align=3)");
	eng_tl_free(tl);
}

static void test_map(void **state)
{
	struct eng_timeline *tl =
		parse("fps 25\ntrack V v210 64x2\nevent V a 0 3 @1\n");
	struct eng_mov m;
	struct box b;
	char why[128];
	uint64_t off, n, i;

	(void)state;
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	/* v210 64 wide: 2 groups, 256 bytes a row; frame 0 is a gap */
	assert_int_equal(tl->bytes, 4 * 512);
	b = path(&m, "mdat");
	assert_int_equal(b.len, 512);
	for (i = 0; i < 512; i += 8)
		assert_memory_equal(b.p + i, "\x00\x02\x01\x20\x40\x00\x08\x04", 8);
	b = path(&m, "moov/trak#0/mdia/minf/stbl/stsd/v210");
	{
		struct box c;

		assert_true(child(b.p + 78, b.len - 78, "colr", 0, &c));
		assert_memory_equal(c.p, "nclc\0\6\0\1\0\6", 10);
	}
	assert_int_equal(eng_mov_map(&m, 0, &off, &n), 1);
	assert_int_equal(n, m.head_len);
	assert_int_equal(eng_mov_map(&m, m.head_len - 1, &off, &n), 1);
	assert_int_equal(n, 1);
	assert_int_equal(eng_mov_map(&m, m.head_len, &off, &n), 0);
	assert_int_equal(off, 0);
	assert_int_equal(n, tl->bytes);
	assert_int_equal(eng_mov_map(&m, m.size - 1, &off, &n), 0);
	assert_int_equal(off, tl->bytes - 1);
	assert_int_equal(eng_mov_map(&m, m.size, &off, &n), -ERANGE);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ntsc),
		cmocka_unit_test(test_co64),
		cmocka_unit_test(test_not_movie),
		cmocka_unit_test(test_map),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
