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

#include "media/mfile.h"
#include "media/mov.h"
#include "timeline/layout.h"
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

/* The box at path sub of track trak ("mdia/mdhd"). */
static struct box trak_box(const struct eng_mov *m, int trak,
			   const char *sub)
{
	char p[128];

	snprintf(p, sizeof(p), "moov/trak#%d/%s", trak, sub);
	return path(m, p);
}

/* Track trak's media header: its time scale, and its duration in it. */
static void check_mdhd(const struct eng_mov *m, int trak, uint64_t scale,
		       uint64_t duration)
{
	struct box b = trak_box(m, trak, "mdia/mdhd");

	assert_int_equal(be(b.p + 12, 4), scale);
	assert_int_equal(be(b.p + 16, 4), duration);
}

/* Track trak's time-to-sample table: one entry, `count` samples of
 * `delta` each. */
static void check_stts(const struct eng_mov *m, int trak, uint64_t count,
		       uint64_t delta)
{
	struct box b = trak_box(m, trak, "mdia/minf/stbl/stts");

	assert_int_equal(be(b.p + 4, 4), 1);
	assert_int_equal(be(b.p + 8, 4), count);
	assert_int_equal(be(b.p + 12, 4), delta);
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
	check_mdhd(&m, 0, 30000, 60 * 1001);
	check_stts(&m, 0, 60, 1001);
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
	check_mdhd(&m, 1, 48000, samples(60));
	check_stts(&m, 1, samples(60), 1);
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

/* Real media by hand (issue 21): clip c's stream on track t is e, as
 * media resolution would set it. */
static void use(struct eng_timeline *tl, const char *clip, size_t t,
		const struct eng_essence *e, int64_t origin)
{
	size_t c;

	for (c = 0; c < tl->nclips && strcmp(tl->clips[c].name, clip); c++)
		;
	assert_true(c < tl->nclips);
	if (!tl->clips[c].media)
		tl->clips[c].media = calloc(tl->ntracks,
					    sizeof(*tl->clips[c].media));
	assert_non_null(tl->clips[c].media);
	tl->clips[c].media[t].ess = e;
	tl->clips[c].media[t].origin = origin;
}

#define FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			    (uint32_t)(c) << 8 | (uint32_t)(d))

/* A stream of nframes (at most 64) frames of 8x8 2vuy's 128 bytes, one
 * after another in its file: the layout reads its frames where off and
 * len say. */
static struct eng_essence video(uint32_t fourcc, const char *codec,
				int64_t nframes)
{
	static uint64_t off[64];
	static uint32_t len[64];
	struct eng_essence e = {.kind = ENG_ESS_VIDEO, .fourcc = fourcc,
				.width = 8, .height = 8, .fps = {25, 1},
				.nframes = nframes, .off = off, .len = len,
				.len_min = 128, .len_max = 128};
	int64_t k;

	assert_true(nframes <= 64);
	for (k = 0; k < 64; k++) {
		off[k] = 4096 + 128 * (uint64_t)k;
		len[k] = 128;
	}
	snprintf(e.codec, sizeof(e.codec), "%s", codec);
	return e;
}

/* tl is no movie, for that reason. */
static void refused(struct eng_timeline *tl, const char *reason)
{
	struct eng_mov m;
	char why[256];

	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, reason);
	assert_null(m.head);
}

/* ProRes clips on a track: the sources' sample description, no
 * uncompressed picture's colr/fiel, sizes and offsets as the layout's. */
static void test_prores(void **state)
{
	struct eng_timeline *tl = parse("fps 25\ntrack V 2vuy 8x8\n"
					"event V a 0 3\nevent V b 5 2\n");
	struct eng_essence a = video(FOURCC('a', 'p', 'c', 'n'), "prores", 10);
	/* b's fourcc as libavformat's codec_tag: first character low */
	struct eng_essence b = video(FOURCC('n', 'c', 'p', 'a'), "prores", 10);
	struct eng_mov m;
	struct box x, c;
	char why[256];
	int64_t k;

	(void)state;
	use(tl, "a", 0, &a, 0);
	use(tl, "b", 0, &b, 0);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stsd");
	assert_int_equal(be(x.p - 4, 4), 1);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stsd/apcn");
	assert_memory_equal(x.p + 12, "appl", 4);
	assert_int_equal(be(x.p + 24, 2), 8);
	assert_int_equal(be(x.p + 26, 2), 8);
	assert_int_equal(x.p[42], strlen("Apple ProRes 422"));
	assert_memory_equal(x.p + 43, "Apple ProRes 422", 16);
	assert_false(child(x.p + 78, x.len - 78, "colr", 0, &c));
	assert_false(child(x.p + 78, x.len - 78, "fiel", 0, &c));
	assert_true(child(x.p + 78, x.len - 78, "pasp", 0, &c));
	x = path(&m, "moov/trak#0/tkhd");
	assert_int_equal(be(x.p + 76, 4), 8u << 16);
	/* intra-only: no sync table, no composition offsets, no edits */
	x = path(&m, "moov/trak#0/mdia/minf/stbl");
	assert_false(child(x.p, x.len, "stss", 0, &c));
	assert_false(child(x.p, x.len, "ctts", 0, &c));
	assert_false(child(path(&m, "moov/trak#0").p,
			   path(&m, "moov/trak#0").len, "edts", 0, &c));
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stsz");
	assert_int_equal(be(x.p + 4, 4), 128);
	assert_int_equal(be(x.p + 8, 4), 5);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stco");
	for (k = 0; k < 5; k++)
		assert_int_equal(be(x.p + 8 + 4 * k, 4), m.head_len + 128 * k);
	/* no gap: no black picture */
	assert_int_equal(path(&m, "mdat").p - m.head, m.head_len);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

/* One codec and picture format a track, a gap has no picture: NAME only,
 * and why, naming the track, the clips and both formats. */
static void test_real_refused(void **state)
{
	struct eng_essence a = video(FOURCC('a', 'p', 'c', 'n'), "prores", 10);
	struct eng_essence h = video(FOURCC('a', 'p', 'c', 'h'), "prores", 10);
	struct eng_essence d = video(FOURCC('A', 'V', 'd', 'n'), "dnxhd", 10);
	struct eng_essence u = video(FOURCC('m', 'p', '4', 'v'), "mpeg4", 10);
	struct eng_essence x = video(FOURCC('a', 'v', 'c', '1'), "h264", 10);
	/* a media file's 'raw ' may be of any depth: only an image
	 * sequence's is described (seqmedia.c) */
	struct eng_essence r = video(FOURCC('r', 'a', 'w', ' '), "rawvideo",
				     10);
	unsigned char avcc[2][8] = {{1, 0x64, 0, 0x1f, 0xff, 0xe1, 0, 0},
				    {1, 0x64, 0, 0x28, 0xff, 0xe1, 0, 0}};
	unsigned char annexb[8] = {0, 0, 0, 1, 0x67, 0x64, 0, 0x1f};
	struct eng_essence y = x;
	struct eng_mov m;
	struct box x2, c2;
	char why[256];
	static const struct {
		const char *tl;
		int which;	/* b's stream */
		const char *why;
	} cases[] = {
		{"event V a 0 3\nevent V b 0 3\n", 1,
		 "track V mixes formats: clip a prores apcn 8x8, clip b "
		 "prores apch 8x8"},
		{"event V a 0 3\nevent V b 0 3\n", 2,
		 "track V mixes formats: clip a prores apcn 8x8, clip b "
		 "dnxhd AVdn 8x8"},
		{"event V a 0 3\nevent V b 0 3\n", 0,
		 "track V mixes formats: clip a prores apcn 8x8, clip b raw "
		 "2vuy 8x8"},
		{"event V a 0 3\nevent V b 0 3 @5\n", 3,
		 "track V: a gap at frame 3: no picture of prores to show "
		 "for it"},
		{"event V a 0 3\nevent V b 0 3\n", 4,
		 "track V: clip b: mpeg4 (mp4v) is not a codec the movie "
		 "carries"},
		{"event V a 0 3\nevent V b 0 3\n", 5,
		 "track V: clip b: rawvideo (raw ) is not a codec the movie "
		 "carries from a media file"},
	};
	struct eng_timeline *tl;
	char text[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct eng_essence *b[] = {NULL, &h, &d, &a, &u, &r};

		snprintf(text, sizeof(text), "fps 25\ntrack V 2vuy 8x8\n%s",
			 cases[i].tl);
		tl = parse(text);
		use(tl, "a", 0, &a, 0);
		if (b[cases[i].which])
			use(tl, "b", 0, b[cases[i].which], 0);
		else
			use(tl, "b", 0, NULL, 0);
		refused(tl, cases[i].why);
		eng_tl_free(tl);
	}
	/* the same codec and size with another decoder setup (avcC) */
	x.extradata = avcc[0];
	x.extradata_len = 8;
	y.extradata = avcc[1];
	y.extradata_len = 8;
	tl = parse("fps 25\ntrack V 2vuy 8x8\nevent V a 0 3\nevent V b 0 3\n");
	use(tl, "a", 0, &x, 0);
	use(tl, "b", 0, &y, 0);
	refused(tl, "track V mixes formats: clip a h264 avc1 8x8, clip b "
		"h264 avc1 8x8 (another decoder setup)");
	/* H.264 as Annex B (MXF): its parameter sets are its setup, the
	 * avcC box carries them as they are */
	y.extradata = annexb;
	use(tl, "a", 0, &y, 0);
	use(tl, "b", 0, &y, 0);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	x2 = path(&m, "moov/trak#0/mdia/minf/stbl/stsd/avc1");
	assert_true(child(x2.p + 78, x2.len - 78, "avcC", 0, &c2));
	assert_int_equal(c2.len, 8);
	assert_memory_equal(c2.p, annexb, 8);
	eng_mov_free(&m);
	/* none found in its first frame */
	y.extradata = NULL;
	y.extradata_len = 0;
	use(tl, "a", 0, &y, 0);
	use(tl, "b", 0, &y, 0);
	refused(tl, "track V: clip a: its H.264 has no decoder setup (no "
		"avcC, and no sequence and picture parameter sets at the start "
		"of its first frame): players could not decode it");
	eng_tl_free(tl);
}

/* H.264 in closed groups of 4 (I B B P, decoded I P B B): presentation
 * index -> decode position, and the first frame each needs. */
static const int64_t gop_decode[12] = {0, 2, 3, 1, 4, 6, 7, 5, 8, 10, 11, 9};
static const int64_t gop_dep[12] = {0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8};

/* avc1 with the sources' avcC; samples in decode order (stco, stsz),
 * sync samples (stss), composition offsets (ctts) moved up by one frame
 * and an edit list moving them back; a cut into a group is refused. */
static void test_avc1(void **state)
{
	unsigned char avcc[11] = {1, 0x64, 0, 0x1f, 0xff, 0xe1, 0, 3,
				  0x67, 0x64, 0};
	struct eng_essence e = video(FOURCC('a', 'v', 'c', '1'), "h264", 12);
	/* source frames 4..11, then 0..3 */
	struct eng_timeline *tl =
		parse("fps 24000/1001\ntrack V 2vuy 8x8\nevent V a 4 8\n"
		      "event V a 0 4 @8\n");
	static const int64_t order[12] = {0, 3, 1, 2, 4, 7, 5, 6,
					  8, 11, 9, 10};
	static const uint32_t ctts[][2] = {{1, 1}, {1, 3}, {2, 0}, {1, 1},
					   {1, 3}, {2, 0}, {1, 1}, {1, 3},
					   {2, 0}};
	struct eng_mov m;
	struct box x;
	char why[256];
	int64_t i;

	(void)state;
	e.extradata = avcc;
	e.extradata_len = sizeof(avcc);
	e.decode = (int64_t *)gop_decode;
	e.dep = (int64_t *)gop_dep;
	use(tl, "a", 0, &e, 0);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stsd/avc1");
	{
		struct box c;

		assert_true(child(x.p + 78, x.len - 78, "avcC", 0, &c));
		assert_int_equal(c.len, sizeof(avcc));
		assert_memory_equal(c.p, avcc, sizeof(avcc));
	}
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stss");
	assert_int_equal(be(x.p + 4, 4), 3);
	assert_int_equal(be(x.p + 8, 4), 1);
	assert_int_equal(be(x.p + 12, 4), 5);
	assert_int_equal(be(x.p + 16, 4), 9);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/ctts");
	assert_int_equal(be(x.p + 4, 4), 9);
	for (i = 0; i < 9; i++) {
		assert_int_equal(be(x.p + 8 + 8 * i, 4), ctts[i][0]);
		assert_int_equal(be(x.p + 12 + 8 * i, 4), ctts[i][1] * 1001);
	}
	x = path(&m, "moov/trak#0/edts/elst");
	assert_int_equal(be(x.p + 4, 4), 1);
	assert_int_equal(be(x.p + 8, 4), 12 * 1001);
	assert_int_equal(be(x.p + 12, 4), 1001);
	assert_int_equal(be(x.p + 16, 4), 0x10000);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stco");
	for (i = 0; i < 12; i++)
		assert_int_equal(be(x.p + 8 + 4 * i, 4),
				 m.head_len + 128 * order[i]);
	eng_mov_free(&m);
	eng_tl_free(tl);

	/* cuts into a group: at a B frame, and before the P frame that a
	 * B frame of the clip needs */
	tl = parse("fps 25\ntrack V 2vuy 8x8\nevent V a 1 3\n");
	use(tl, "a", 0, &e, 0);
	refused(tl, "track V: clip a cut at frames 1..3 inside a group of "
		"pictures (h264): its samples would not decode on their own");
	eng_tl_free(tl);
	tl = parse("fps 25\ntrack V 2vuy 8x8\nevent V a 4 2\n");
	use(tl, "a", 0, &e, 0);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "frames 4..5 inside a group"));
	eng_tl_free(tl);
	/* whole groups decode: I P only (no B frames) keeps decode order,
	 * stss without ctts; origin 4: the clip's frame 0 is stream
	 * frame 4 */
	e.decode = NULL;
	tl = parse("fps 25\ntrack V 2vuy 8x8\nevent V a 0 8\n");
	use(tl, "a", 0, &e, 4);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stss");
	assert_int_equal(be(x.p + 4, 4), 2);
	x = path(&m, "moov/trak#0/mdia/minf/stbl");
	{
		struct box c;

		assert_false(child(x.p, x.len, "ctts", 0, &c));
	}
	eng_mov_free(&m);
	eng_tl_free(tl);
}

static struct eng_essence pcm(uint32_t bits, uint32_t channels, int big,
			      int flt)
{
	struct eng_essence e = {.kind = ENG_ESS_AUDIO, .sample_rate = 48000,
				.channels = channels, .bits = bits,
				.block = channels * bits / 8,
				.big_endian = big, .is_float = flt,
				.nsamples = 48000};

	snprintf(e.codec, sizeof(e.codec), "pcm_%s%u%s", flt ? "f" : "s",
		 bits, big ? "be" : "le");
	return e;
}

/* Real PCM: the sample description of its sample format and byte order;
 * two formats on a track are refused. */
static void test_pcm(void **state)
{
	static const struct {
		uint32_t bits, channels;
		int big, flt;
		const char *fourcc;
		int version, enda;
	} cases[] = {
		{16, 2, 0, 0, "sowt", 0, 0},
		{16, 1, 1, 0, "twos", 0, 0},
		{24, 2, 0, 0, "in24", 1, 1},
		{24, 2, 1, 0, "in24", 1, 0},
		{32, 2, 0, 0, "in32", 1, 1},
		{32, 1, 0, 1, "fl32", 1, 1},
	};
	struct eng_timeline *tl;
	struct eng_essence e, f;
	struct eng_mov m;
	struct box x, w;
	char why[256], text[128], p[16];
	size_t i;
	int64_t k;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		e = pcm(cases[i].bits, cases[i].channels, cases[i].big,
			cases[i].flt);
		snprintf(text, sizeof(text), "fps 25\ntrack A1 %u align=%u\n"
			 "event A1 a 0 5\n", 48000 * e.block, e.block);
		tl = parse(text);
		use(tl, "a", 0, &e, 0);
		assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
		snprintf(p, sizeof(p), "%s", cases[i].fourcc);
		x = path(&m, "moov/trak#0/mdia/minf/stbl/stsd");
		assert_memory_equal(x.p + 4, p, 4);
		x.p += 8;
		x.len -= 8;
		assert_int_equal(be(x.p + 8, 2), cases[i].version);
		assert_int_equal(be(x.p + 16, 2), cases[i].channels);
		assert_int_equal(be(x.p + 24, 4), 48000u << 16);
		if (cases[i].version) {
			assert_int_equal(be(x.p + 32, 4), cases[i].bits / 8);
			assert_int_equal(be(x.p + 36, 4), e.block);
		}
		assert_int_equal(child(x.p + 28 + 16 * cases[i].version,
				       x.len - 28 - 16 * cases[i].version,
				       "wave", 0, &w), cases[i].enda);
		check_mdhd(&m, 0, 48000, 5 * 1920);
		x = path(&m, "moov/trak#0/mdia/minf/stbl/stsz");
		assert_int_equal(be(x.p + 4, 4), e.block);
		assert_int_equal(be(x.p + 8, 4), 5 * 1920);
		x = path(&m, "moov/trak#0/mdia/minf/stbl/stsc");
		assert_int_equal(be(x.p + 4, 4), 1);
		assert_int_equal(be(x.p + 12, 4), 1920);
		x = path(&m, "moov/trak#0/mdia/minf/stbl/stco");
		for (k = 0; k < 5; k++)
			assert_int_equal(be(x.p + 8 + 4 * k, 4),
					 m.head_len + 1920 * e.block * k);
		eng_mov_free(&m);
		eng_tl_free(tl);
	}
	e = pcm(16, 2, 0, 0);
	f = pcm(16, 2, 1, 0);
	tl = parse("fps 25\ntrack A1 192000 align=4\nevent A1 a 0 5\n"
		   "event A1 b 0 5\n");
	use(tl, "a", 0, &e, 0);
	use(tl, "b", 0, &f, 0);
	refused(tl, "track A1 mixes formats: clip a pcm_s16le sowt 48000 Hz "
		"2 ch, clip b pcm_s16be twos 48000 Hz 2 ch");
	eng_tl_free(tl);
}

/* 40 AAC packets of 1024 samples at 48 kHz from -1024 (the priming
 * packet), 300 + i bytes each, back to back from 8192. */
static struct eng_essence aac(const char *codec)
{
	static uint64_t off[40];
	static uint32_t len[40];
	static int64_t pts[40];
	static unsigned char asc[2] = {0x11, 0x90};
	struct eng_essence e = {.kind = ENG_ESS_AUDIO, .sample_rate = 48000,
				.channels = 2, .npackets = 40, .off = off,
				.len = len, .pts = pts, .nsamples = 39 * 1024,
				.extradata = asc, .extradata_len = 2};
	uint64_t at = 8192;
	int i;

	for (i = 0; i < 40; i++) {
		off[i] = at;
		len[i] = 300 + (uint32_t)i;
		pts[i] = (i - 1) * 1024;
		at += len[i];
	}
	snprintf(e.codec, sizeof(e.codec), "%s", codec);
	return e;
}

/* Compressed audio in the movie: AAC as mp4a with an esds holding the
 * source's AudioSpecificConfig, a sample a packet (stsz, stco at each
 * packet's place in its frame's slice, stts from the packets' times);
 * MP3 has no description timelinefs writes: its track is left out, the
 * movie made, and why says so. */
static void test_packets(void **state)
{
	static const unsigned char esds[] = {
		0x03, 25, 0, 0, 0,
		/* bufferSizeDB: the largest packet it plays, 323 */
		0x04, 17, 0x40, 0x15, 0, 1, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
		0x05, 2, 0x11, 0x90,
		0x06, 1, 2};
	struct eng_essence a = aac("aac"), v, mp3;
	struct eng_timeline *tl;
	struct eng_diag d = {0};
	struct eng_mov m;
	struct box x, e;
	char why[256];
	uint64_t pos;
	int64_t i;

	(void)state;
	tl = parse("fps 25\ntrack A1 144000 align=3\nevent A1 a 2 10\n");
	use(tl, "a", 0, &a, 0);
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	assert_string_equal(why, "");
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stsd/mp4a");
	assert_int_equal(be(x.p + 16, 2), 2);
	assert_int_equal(be(x.p + 24, 4), 48000u << 16);
	assert_true(child(x.p + 28, x.len - 28, "esds", 0, &e));
	assert_int_equal(e.len, 4 + sizeof(esds));
	assert_memory_equal(e.p + 4, esds, sizeof(esds));
	/* frames 2..11: samples 3840..23040, packets at 4096..22528:
	 * indexes 5..23 */
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stsz");
	assert_int_equal(be(x.p + 4, 4), 0);
	assert_int_equal(be(x.p + 8, 4), 19);
	for (i = 0; i < 19; i++)
		assert_int_equal(be(x.p + 12 + 4 * i, 4), 305 + i);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stco");
	assert_int_equal(be(x.p + 4, 4), 19);
	for (i = 0, pos = m.head_len; i < 19; i++) {
		assert_int_equal(be(x.p + 8 + 4 * i, 4), pos);
		pos += 305 + (uint64_t)i;
	}
	assert_int_equal(pos, m.head_len + tl->bytes);
	check_stts(&m, 0, 19, 1024);
	check_mdhd(&m, 0, 48000, 19 * 1024);
	eng_mov_free(&m);
	eng_tl_free(tl);

	/* at 60 fps a frame (800 samples) may hold no packet: the packets
	 * carry the time; a gap is left out, saying so */
	tl = parse("fps 60\ntrack A1 144000 align=3\nevent A1 a 0 40\n"
		   "event A1 a 0 5 @45\n");
	use(tl, "a", 0, &a, 0);
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "track A1 left out: a gap at frame 40: no "
			    "aac to play for it (its time would be lost to the "
			    "track)");
	eng_tl_free(tl);
	tl = parse("fps 60\ntrack A1 144000 align=3\nevent A1 a 0 40\n");
	use(tl, "a", 0, &a, 0);
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	/* 40 frames of 800 samples: 32000, packets from -1024 to 31744 */
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stsz");
	assert_int_equal(be(x.p + 8, 4), 33);
	eng_mov_free(&m);
	eng_tl_free(tl);

	v = video(FOURCC('a', 'p', 'c', 'n'), "prores", 20);
	mp3 = aac("mp3");
	tl = parse("fps 25\ntrack V 2vuy 8x8\ntrack A1 144000 align=3\n"
		   "event V,A1 a 0 10\n");
	use(tl, "a", 0, &v, 0);
	use(tl, "a", 1, &mp3, 0);
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	assert_string_equal(why, "track A1 left out: clip a: its mp3 audio "
			    "has no sample description timelinefs writes "
			    "(AAC only)");
	x = path(&m, "moov");
	assert_true(child(x.p, x.len, "trak", 0, &e));
	assert_false(child(x.p, x.len, "trak", 1, &e));
	eng_mov_free(&m);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* ProRes of variable frame sizes (issue 21): the layout's table (helper
 * A's eng_tl_layout_media) gives each frame the size of the source frame
 * it plays; stsz lists them one a sample in edit order and the chunk
 * offsets follow, co64 once they pass 4 GiB. */
static void test_prores_sizes(void **state)
{
	struct eng_timeline *tl = parse("fps 25\ntrack V 2vuy 8x8\n"
					"event V a 2 30\nevent V b 0 20\n"
					"event V a 40 10\n");
	struct eng_essence a = video(FOURCC('a', 'p', 'c', 'h'), "prores", 60);
	struct eng_essence b = video(FOURCC('a', 'p', 'c', 'h'), "prores", 60);
	uint64_t aoff[60], boff[60], want[60], off;
	uint32_t alen[60], blen[60];
	struct eng_diag d = {0};
	struct eng_mov m;
	struct box x;
	char why[256];
	int64_t k;

	(void)state;
	/* 100 MB frames and a little: 60 frames pass 4 GiB at frame 43 */
	for (k = 0; k < 60; k++) {
		alen[k] = 100000000u + (uint32_t)(k * 7919 % 5000);
		blen[k] = 90000000u + (uint32_t)(k * 104729 % 7000);
		aoff[k] = 4096 + (uint64_t)k * 100005000u;
		boff[k] = 4096 + (uint64_t)k * 90007000u;
	}
	a.off = aoff;
	a.len = alen;
	b.off = boff;
	b.len = blen;
	a.len_min = b.len_min = UINT32_MAX;
	a.len_max = b.len_max = 0;
	for (k = 0; k < 60; k++) {
		a.len_min = alen[k] < a.len_min ? alen[k] : a.len_min;
		a.len_max = alen[k] > a.len_max ? alen[k] : a.len_max;
		b.len_min = blen[k] < b.len_min ? blen[k] : b.len_min;
		b.len_max = blen[k] > b.len_max ? blen[k] : b.len_max;
	}
	use(tl, "a", 0, &a, 0);
	use(tl, "b", 0, &b, 0);
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	for (k = 0; k < 60; k++)
		want[k] = k < 30 ? alen[2 + k] : k < 50 ? blen[k - 30]
							: alen[40 + k - 50];
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/stsz");
	assert_int_equal(be(x.p + 4, 4), 0);
	assert_int_equal(be(x.p + 8, 4), 60);
	for (k = 0; k < 60; k++)
		assert_int_equal(be(x.p + 12 + 4 * k, 4), want[k]);
	x = path(&m, "moov/trak#0/mdia/minf/stbl/co64");
	assert_int_equal(be(x.p + 4, 4), 60);
	for (k = 0, off = m.head_len; k < 60; off += want[k++])
		assert_int_equal(be(x.p + 8 + 8 * k, 8), off);
	assert_true(off - m.head_len > UINT32_MAX);
	assert_int_equal(m.size, off);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

/*
 * A header past what players read is no movie (issue: a 45-byte .tl of
 * 50 M frames took 6 s and 421 MB to mount for a 400 MB header, with box
 * sizes written as 32 bits unchecked): a moov over ENG_MOV_MOOV_MAX is
 * refused with why, the absurd ones before anything is built.  Before:
 * 50 M frames built a 200 MB header (0), 800000 frames of V, A1, A2 at
 * 29.97 a 38 MB one.
 */
/* text's timeline is no movie: -EFBIG, no header, why as want */
static void too_big(const char *text, const char *want)
{
	struct eng_timeline *tl = parse(text);
	struct eng_mov m;
	char why[256];

	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), -EFBIG);
	assert_string_equal(why, want);
	assert_null(m.head);
	eng_tl_free(tl);
}

static void test_header_limit(void **state)
{
	struct eng_timeline *tl;
	struct eng_mov m;
	struct box b;
	char why[256];

	(void)state;
	too_big("fps 25\ntrack V 2vuy 2x2\nevent V a 0 1 @49999999\n",
		"50000000 frames on 1 track need a movie header (moov) over "
		"25 MiB, more than players read");
	/* 29.97 with two audio tracks: stsc runs of one frame; the tables'
	 * least (4 bytes a frame a track) passes, the header does not */
	too_big("fps 30000/1001\ntrack V 2vuy 720x486\n"
		"track A1 144000 align=3\ntrack A2 144000 align=3\n"
		"event V,A1,A2 a 0 800000\n",
		"800000 frames on 3 tracks need a movie header (moov) over "
		"25 MiB, more than players read");
	tl = parse("fps 30000/1001\ntrack V 2vuy 720x486\n"
		   "track A1 144000 align=3\ntrack A2 144000 align=3\n"
		   "event V,A1,A2 a 0 500000\n");
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	b = path(&m, "moov");
	assert_true(b.len + 8 <= ENG_MOV_MOOV_MAX);
	assert_true(b.len + 8 > ENG_MOV_MOOV_MAX / 2);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

/*
 * The header holds one black picture per picture size with gaps: a
 * 60-byte .tl of a 16384x16384 v210 track with a gap asked for a 717 MB
 * header in memory, three 8K sizes 283 MB.  Past ENG_MOV_BLACK_MAX no
 * movie, and why, before anything is built.  Before: both built (0).
 */
static void test_black_limit(void **state)
{
	(void)state;
	too_big("fps 25\ntrack V v210 16384x16384\nevent V a 0 1 @10\n",
		"gaps need black pictures of 717225984 bytes in the movie "
		"header (track V v210 16384x16384): more than 256 MiB");
	/* three 8K sizes of 94 MB each: the pictures together */
	too_big("fps 25\ntrack V v210 8192x4320\ntrack V2 v210 8190x4320\n"
		"track V3 v210 8192x4318\nevent V,V2,V3 a 0 1 @10\n",
		"gaps need black pictures of 283624704 bytes in the movie "
		"header (track V3 v210 8192x4318): more than 256 MiB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ntsc),
		cmocka_unit_test(test_co64),
		cmocka_unit_test(test_not_movie),
		cmocka_unit_test(test_map),
		cmocka_unit_test(test_prores),
		cmocka_unit_test(test_real_refused),
		cmocka_unit_test(test_avc1),
		cmocka_unit_test(test_pcm),
		cmocka_unit_test(test_packets),
		cmocka_unit_test(test_prores_sizes),
		cmocka_unit_test(test_header_limit),
		cmocka_unit_test(test_black_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
