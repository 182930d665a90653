/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the timeline model and byte layout: upto cadences worked
 * by hand, sizes, slices, gaps, overlap resolution and offset lookups.
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
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct eng_fps ntsc = { 30000, 1001 };
static const struct eng_fps film = { 24000, 1001 };

/* 48 kHz 24-bit mono at 29.97: 1601.6 samples a frame, so slices of 4803
 * and 4806 bytes in a 5-frame pattern (8008 samples per 5 frames). */
static void test_upto_ntsc_audio(void **state)
{
	static const struct {
		int64_t k;
		uint64_t upto;
	} cases[] = {
		{ -1, 0 },	/* before the start: nothing */
		{ 0, 0 },
		{ 1, 4803 },	/* floor(1601.6) = 1601 samples */
		{ 2, 9609 },	/* floor(3203.2) = 3203 */
		{ 3, 14412 },	/* floor(4804.8) = 4804 */
		{ 4, 19218 },	/* floor(6406.4) = 6406 */
		{ 5, 24024 },	/* 8008 exactly */
		{ 6, 28827 },
		{ 1001, 4809603 },	/* floor(1603201.6) = 1603201 */
		{ 30000, 144144000 },	/* 1001 s exactly */
	};
	static const uint64_t pattern[5] = { 4803, 4806, 4803, 4806, 4806 };
	int64_t k;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++)
		if (eng_upto_rate(144000, 3, ntsc, cases[i].k) != cases[i].upto)
			fail_msg("upto(%lld) = %llu, want %llu",
				 (long long)cases[i].k,
				 (unsigned long long)eng_upto_rate(144000, 3, ntsc,
								   cases[i].k),
				 (unsigned long long)cases[i].upto);
	for (k = 0; k < 3000; k++) {
		uint64_t len = eng_upto_rate(144000, 3, ntsc, k + 1) -
			       eng_upto_rate(144000, 3, ntsc, k);

		assert_int_equal(len, pattern[k % 5]);
	}
}

/* At 23.976: 48 kHz 24-bit is 2002 samples a frame exactly (6006 bytes);
 * 44.1 kHz 16-bit mono is 1839.3375 samples, a cadence of 80 frames. */
static void test_upto_film_audio(void **state)
{
	static const struct {
		int64_t k;
		uint64_t upto;
	} cases[] = {
		{ 1, 3678 },	/* floor(1839.3375) = 1839 samples */
		{ 2, 7356 },	/* floor(3678.675) = 3678 */
		{ 3, 11036 },	/* floor(5518.0125) = 5518 */
		{ 4, 14714 },	/* floor(7357.35) = 7357 */
		{ 80, 294294 },	/* 147147 exactly */
		{ 81, 297972 },
	};
	size_t i;
	int64_t k;

	(void)state;
	for (k = 0; k < 1000; k++)
		assert_int_equal(eng_upto_rate(144000, 3, film, k), 6006 * k);
	for (i = 0; i < N(cases); i++)
		assert_int_equal(eng_upto_rate(88200, 2, film, cases[i].k),
				 cases[i].upto);
	/* every slice is a whole number of samples, 3678 or 3680 bytes */
	for (k = 0; k < 800; k++) {
		uint64_t len = eng_upto_rate(88200, 2, film, k + 1) -
			       eng_upto_rate(88200, 2, film, k);

		assert_true(len == 3678 || len == 3680);
	}
}

/* V 18874368 B/s, A1 and A2 48 kHz 24-bit at 29.97 with events on all. */
static struct eng_timeline *make_tl(int64_t frames)
{
	struct eng_timeline *tl = eng_tl_new("t", "t.tl");
	struct eng_diag d = { 0 };
	size_t t;
	int c;

	assert_non_null(tl);
	tl->fps = ntsc;
	assert_int_equal(eng_tl_add_track(tl, "V", 18874368, 1), 0);
	assert_int_equal(eng_tl_add_track(tl, "A1", 144000, 3), 1);
	assert_int_equal(eng_tl_add_track(tl, "A2", 144000, 3), 2);
	c = eng_tl_clip(tl, "c0", 1);
	assert_int_equal(c, 0);
	for (t = 0; t < 3; t++)
		assert_int_equal(eng_tl_add_segment(tl, t, 0, 10, 0, frames, 2),
				 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	assert_int_equal(d.n, 0);
	return tl;
}

/* A picture track's frames are each exactly one picture (eng_tl_finalize
 * checks it): the bounds say so, rather than two pictures (its rate is
 * rounded up from the picture's, and the rate's bound rounded that up to
 * a second whole picture: every stream's ring was twice its size). */
static void test_picture_bounds(void **state)
{
	struct eng_timeline *tl = eng_tl_new("p", "p.tl");
	struct eng_picture pic = { ENG_PIX_2VUY, 720, 486 };
	struct eng_diag diag = { 0 };
	int64_t k;
	int c;

	(void)state;
	assert_non_null(tl);
	tl->fps.num = 30000;
	tl->fps.den = 1001;
	assert_int_equal(eng_tl_add_picture_track(tl, "V", &pic), 0);
	assert_int_equal(eng_tl_add_track(tl, "A1", 144000, 3), 1);
	c = eng_tl_clip(tl, "c", 1);
	assert_true(c >= 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, (uint32_t)c, 0, 0, 300, 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 1, (uint32_t)c, 0, 0, 300, 2), 0);
	assert_int_equal(eng_tl_finalize(tl, &diag), 0);
	assert_int_equal(tl->frame_bytes_min, 699840 + 4803);
	assert_int_equal(tl->frame_bytes_max, 699840 + 4806);
	for (k = 0; k < tl->frames; k++)
		assert_true(eng_frame_size(tl, k) <= tl->frame_bytes_max);
	eng_diag_free(&diag);
	eng_tl_free(tl);
}

static void test_sizes(void **state)
{
	struct eng_timeline *tl = make_tl(100);
	uint64_t sz, seen_min = UINT64_MAX, seen_max = 0;
	int64_t k;

	(void)state;
	assert_int_equal(tl->frames, 100);
	/* V: floor(100 * 629774.7456) = 62977474; A: 160160 samples * 3 */
	assert_int_equal(tl->bytes, 62977474 + 2 * 480480);
	assert_int_equal(eng_upto(tl, 0, 1), 629774);
	assert_int_equal(eng_upto(tl, 0, 2), 1259549);
	assert_int_equal(tl->frame_bytes_min, 629774 + 2 * 4803);
	assert_int_equal(tl->frame_bytes_max, 629775 + 2 * 4806);
	for (k = 0; k < tl->frames; k++) {
		sz = eng_frame_size(tl, k);
		assert_true(sz >= tl->frame_bytes_min);
		assert_true(sz <= tl->frame_bytes_max);
		seen_min = sz < seen_min ? sz : seen_min;
		seen_max = sz > seen_max ? sz : seen_max;
	}
	/* frame 0: V 629774, A 4803 each: the minimum is reached */
	assert_int_equal(seen_min, tl->frame_bytes_min);
	assert_true(seen_max > seen_min);
	assert_int_equal(eng_frame_offset(tl, 0), 0);
	assert_int_equal(eng_frame_offset(tl, 1), 629774 + 2 * 4803);
	assert_int_equal(eng_frame_offset(tl, tl->frames), tl->bytes);
	eng_tl_free(tl);
}

static void test_slices(void **state)
{
	struct eng_timeline *tl = make_tl(40);
	struct eng_slice s;
	int64_t k;
	size_t t;

	(void)state;
	/* pretend A1 is a WAV file with a 44-byte header */
	tl->clips[0].media = calloc(3, sizeof(struct eng_media));
	assert_non_null(tl->clips[0].media);
	tl->clips[0].media[1].header = 44;
	for (k = 0; k < tl->frames; k++) {
		uint64_t pos = eng_frame_offset(tl, k);

		for (t = 0; t < tl->ntracks; t++) {
			eng_slice_get(tl, k, t, &s);
			assert_int_equal(s.frame, k);
			assert_int_equal(s.track, t);
			assert_int_equal(s.pos, pos);
			assert_int_equal(s.len,
					 eng_upto(tl, t, k + 1) - eng_upto(tl, t, k));
			assert_non_null(s.seg);
			/* the source is 10 frames into the clip */
			assert_int_equal(s.file_off, eng_upto(tl, t, k + 10) +
							     (t == 1 ? 44 : 0));
			pos += s.len;
		}
		assert_int_equal(pos, eng_frame_offset(tl, k + 1));
	}
	/* hand-worked: frame 1 of A2 plays source frame 11 */
	eng_slice_get(tl, 1, 2, &s);
	assert_int_equal(s.pos, 629774 + 2 * 4803 + 1259549 - 629774 + 4806);
	assert_int_equal(s.len, 4806);
	assert_int_equal(s.file_off, eng_upto_rate(144000, 3, ntsc, 11));
	assert_int_equal(s.file_off, 52851); /* floor(17617.6) * 3 */
	eng_tl_free(tl);
}

static void test_gaps(void **state)
{
	struct eng_timeline *tl = eng_tl_new("g", "g.tl");
	struct eng_diag d = { 0 };
	struct eng_slice s;

	(void)state;
	tl->fps = (struct eng_fps){ 25, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 1000, 1), 0);
	assert_int_equal(eng_tl_add_track(tl, "A1", 100, 2), 1);
	assert_int_equal(eng_tl_clip(tl, "c", 1), 0);
	/* V plays [10, 15) and [20, 22); A1 nothing */
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 10, 5, 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 7, 20, 2, 2), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	assert_int_equal(tl->frames, 22);
	/* 40 B of V and 4 B (2 samples of 2 B) of A1 per frame */
	assert_int_equal(tl->bytes, 22 * 44);
	eng_slice_get(tl, 0, 0, &s);
	assert_null(s.seg);
	assert_int_equal(s.file_off, 0);
	assert_int_equal(s.len, 40);
	eng_slice_get(tl, 9, 0, &s);
	assert_null(s.seg);
	eng_slice_get(tl, 10, 0, &s);
	assert_non_null(s.seg);
	assert_int_equal(s.file_off, 0);
	eng_slice_get(tl, 14, 0, &s);
	assert_int_equal(s.file_off, 4 * 40);
	eng_slice_get(tl, 15, 0, &s);
	assert_null(s.seg);
	eng_slice_get(tl, 21, 0, &s);
	assert_non_null(s.seg);
	assert_int_equal(s.file_off, 8 * 40);
	eng_slice_get(tl, 12, 1, &s);
	assert_null(s.seg);
	assert_int_equal(s.len, 4);
	assert_int_equal(s.pos, 12 * 44 + 40);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

struct want_seg {
	uint32_t clip;
	int64_t src_in, rec_in, frames;
	unsigned line;
};

static void check_segs(const struct eng_track *tr, const struct want_seg *w,
		       size_t n)
{
	size_t i;

	if (tr->nsegs != n)
		fail_msg("%zu segments, want %zu", tr->nsegs, n);
	for (i = 0; i < n; i++) {
		const struct eng_segment *s = &tr->segs[i];

		if (s->clip != w[i].clip || s->src_in != w[i].src_in ||
		    s->rec_in != w[i].rec_in || s->frames != w[i].frames ||
		    s->line != w[i].line)
			fail_msg("seg %zu: clip %u src %lld rec %lld frames %lld line %u",
				 i, s->clip, (long long)s->src_in,
				 (long long)s->rec_in, (long long)s->frames,
				 s->line);
	}
}

static void test_overlaps(void **state)
{
	static const struct {
		uint32_t clip;
		int64_t src_in, rec_in, frames;
	} adds[] = {
		{ 0, 100, 0, 100 },	/* line 1: a covers [0, 100) */
		{ 1, 0, 30, 20 },	/* line 2: b splits a */
		{ 2, 500, 90, 20 },	/* line 3: c trims a's tail */
		{ 3, 0, 200, 5 },	/* line 4: d, later fully covered */
		{ 4, 7, 198, 10 },	/* line 5: e covers d */
		{ 5, 0, 0, 10 },	/* line 6: f trims a's head */
	};
	static const struct want_seg want[] = {
		{ 5, 0, 0, 10, 6 },
		{ 0, 110, 10, 20, 1 },	/* src_in moved by the 10 cut away */
		{ 1, 0, 30, 20, 2 },
		{ 0, 150, 50, 40, 1 },	/* right part of the split */
		{ 2, 500, 90, 20, 3 },
		{ 4, 7, 198, 10, 5 },
	};
	struct eng_timeline *tl = eng_tl_new("o", "o.tl");
	struct eng_diag d = { 0 };
	char name[8];
	size_t i;
	int64_t k;

	(void)state;
	tl->fps = (struct eng_fps){ 25, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 100, 1), 0);
	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof(name), "c%zu", i);
		assert_int_equal(eng_tl_clip(tl, name, 1), (int)i);
	}
	for (i = 0; i < N(adds); i++)
		assert_int_equal(eng_tl_add_segment(tl, 0, adds[i].clip,
						    adds[i].src_in, adds[i].rec_in,
						    adds[i].frames, (unsigned)i + 1),
				 0);
	assert_int_equal(eng_tl_track_end(tl, 0), 208);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	check_segs(&tl->tracks[0], want, N(want));
	assert_int_equal(tl->frames, 208);

	/* eng_segment_at agrees with a linear scan everywhere, gaps too */
	for (k = -2; k < 215; k++) {
		const struct eng_segment *s = eng_segment_at(&tl->tracks[0], k),
					 *lin = NULL;

		for (i = 0; i < tl->tracks[0].nsegs; i++) {
			const struct eng_segment *x = &tl->tracks[0].segs[i];

			if (k >= x->rec_in && k < x->rec_in + x->frames)
				lin = x;
		}
		if (s != lin)
			fail_msg("frame %lld: segment_at %p, want %p",
				 (long long)k, (const void *)s,
				 (const void *)lin);
	}
	assert_null(eng_segment_at(&tl->tracks[0], 110));
	assert_null(eng_segment_at(&tl->tracks[0], 197));
	assert_int_equal(eng_segment_at(&tl->tracks[0], 198)->clip, 4);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* An exact repeat replaces, an inner edit on an identical range splits. */
static void test_overlap_same_range(void **state)
{
	static const struct want_seg want[] = {
		{ 1, 5, 10, 10, 2 },
	};
	static const struct want_seg want2[] = {
		{ 1, 5, 10, 3, 2 },
		{ 0, 0, 13, 1, 3 },
		{ 1, 9, 14, 6, 2 },
	};
	struct eng_timeline *tl = eng_tl_new("o", "o.tl");
	struct eng_diag d = { 0 };

	(void)state;
	tl->fps = (struct eng_fps){ 25, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 100, 1), 0);
	assert_int_equal(eng_tl_clip(tl, "a", 1), 0);
	assert_int_equal(eng_tl_clip(tl, "b", 2), 1);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 10, 10, 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 1, 5, 10, 10, 2), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	check_segs(&tl->tracks[0], want, N(want));
	/* finalize again after adding: resolution is idempotent on the rest */
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 13, 1, 3), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	check_segs(&tl->tracks[0], want2, N(want2));
	assert_int_equal(tl->frames, 20);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void check_frame_at(const struct eng_timeline *tl)
{
	uint64_t seed = 42;
	int64_t k;
	int i;

	for (k = 0; k <= tl->frames; k++) {
		uint64_t off = eng_frame_offset(tl, k);

		if (k < tl->frames && eng_frame_size(tl, k) > 0) {
			assert_int_equal(eng_frame_at(tl, off), k);
			assert_int_equal(
				eng_frame_at(tl, off + eng_frame_size(tl, k) - 1), k);
		}
		if (k > 0 && off > 0) {
			int64_t p = eng_frame_at(tl, off - 1);

			/* the last non-empty frame before k */
			assert_true(p < k);
			assert_true(eng_frame_offset(tl, p) <= off - 1);
			assert_true(eng_frame_offset(tl, p + 1) == off);
		}
	}
	assert_int_equal(eng_frame_at(tl, tl->bytes), tl->frames);
	assert_int_equal(eng_frame_at(tl, tl->bytes + 12345), tl->frames);
	for (i = 0; i < 20000; i++) {
		uint64_t off = splitmix(&seed) % tl->bytes;

		k = eng_frame_at(tl, off);
		assert_true(k >= 0 && k < tl->frames);
		assert_true(eng_frame_offset(tl, k) <= off);
		assert_true(off < eng_frame_offset(tl, k + 1));
	}
}

static void test_frame_at(void **state)
{
	struct eng_timeline *tl = make_tl(3001);
	struct eng_timeline *odd = eng_tl_new("odd", "odd.tl");
	struct eng_diag d = { 0 };

	(void)state;
	check_frame_at(tl);
	eng_tl_free(tl);

	/* a track slower than one sample a frame (slices of 0 or 5 bytes)
	 * next to 44.1 kHz at 23.976 and a prime rate */
	odd->fps = film;
	assert_int_equal(eng_tl_add_track(odd, "T", 10, 5), 0);
	assert_int_equal(eng_tl_add_track(odd, "A1", 88200, 2), 1);
	assert_int_equal(eng_tl_add_track(odd, "V", 1000003, 1), 2);
	assert_int_equal(eng_tl_clip(odd, "c", 1), 0);
	assert_int_equal(eng_tl_add_segment(odd, 0, 0, 0, 0, 1000, 1), 0);
	assert_int_equal(eng_tl_add_segment(odd, 1, 0, 0, 17, 983, 1), 0);
	assert_int_equal(eng_tl_add_segment(odd, 2, 0, 3, 500, 500, 1), 0);
	assert_int_equal(eng_tl_finalize(odd, &d), 0);
	assert_int_equal(odd->frames, 1000);
	assert_int_equal(odd->frame_bytes_min, 0 + 3678 + 41708);
	assert_int_equal(odd->frame_bytes_max, 5 + 3680 + 41709);
	check_frame_at(odd);
	eng_tl_free(odd);

	/* only the slow track: most frames are empty */
	odd = eng_tl_new("slow", "slow.tl");
	odd->fps = (struct eng_fps){ 25, 1 };
	assert_int_equal(eng_tl_add_track(odd, "T", 10, 5), 0);
	assert_int_equal(eng_tl_clip(odd, "c", 1), 0);
	assert_int_equal(eng_tl_add_segment(odd, 0, 0, 0, 0, 100, 1), 0);
	assert_int_equal(eng_tl_finalize(odd, &d), 0);
	assert_int_equal(odd->bytes, 40);	/* 4 s: 8 samples of 5 B */
	assert_int_equal(odd->frame_bytes_min, 0);
	assert_int_equal(odd->frame_bytes_max, 5);
	check_frame_at(odd);
	/* 2 samples a second: the first sample completes at frame 12.5,
	 * so frame 12 (bytes [0, 5)) is the first non-empty one */
	assert_int_equal(eng_frame_at(odd, 0), 12);
	assert_int_equal(eng_frame_at(odd, 5), 24);
	eng_tl_free(odd);
	assert_int_equal(d.n, 0);
	eng_diag_free(&d);
}

static void test_finalize_errors(void **state)
{
	struct eng_timeline *tl = eng_tl_new("e", "e.tl");
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(eng_tl_finalize(tl, &d), -EINVAL); /* no fps */
	tl->fps = ntsc;
	assert_int_equal(eng_tl_finalize(tl, &d), -EINVAL); /* no track */
	assert_int_equal(eng_tl_add_track(tl, "V", 100, 1), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), -EINVAL); /* no event */
	assert_int_equal(d.n, 3);
	assert_string_equal(d.msgs[1], "e.tl: no track");
	assert_string_equal(d.msgs[2], "e.tl: timeline has no event");

	/* model argument checks */
	assert_int_equal(eng_tl_add_track(tl, "V", 100, 1), -EEXIST);
	assert_int_equal(eng_tl_add_track(tl, "A-1", 100, 1), -EINVAL);
	assert_int_equal(eng_tl_add_track(tl, "", 100, 1), -EINVAL);
	assert_int_equal(eng_tl_add_track(tl, "A1234567890123456", 100, 1),
			 -EINVAL);
	assert_int_equal(eng_tl_add_track(tl, "A1", 0, 1), -EINVAL);
	assert_int_equal(eng_tl_add_track(tl, "A1", 1, 0), -EINVAL);
	assert_int_equal(eng_tl_find_track(tl, "A1"), -ENOENT);
	assert_int_equal(eng_tl_clip(tl, "..", 1), -EINVAL);
	assert_int_equal(eng_tl_clip(tl, "a/b", 1), -EINVAL);
	assert_int_equal(eng_tl_clip(tl, "a\nb", 1), -EINVAL);
	assert_int_equal(eng_tl_clip(tl, "", 1), -EINVAL);
	assert_int_equal(eng_tl_clip(tl, "x", 1), 0);
	assert_int_equal(eng_tl_clip(tl, "x", 9), 0);
	assert_int_equal(tl->clips[0].line, 1);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0, 0, 1), -EINVAL);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, -1, 0, 1, 1), -EINVAL);
	assert_int_equal(eng_tl_add_segment(tl, 0, 1, 0, 0, 1, 1), -EINVAL);
	assert_int_equal(eng_tl_add_segment(tl, 1, 0, 0, 0, 1, 1), -EINVAL);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* A timeline whose size does not fit an off_t must be refused, not
 * wrapped around to a small file. */
static void test_finalize_too_large(void **state)
{
	struct eng_timeline *tl = eng_tl_new("big", "big.tl");
	struct eng_diag d = { 0 };

	(void)state;
	tl->fps = (struct eng_fps){ 1, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", UINT64_C(1) << 40, 1), 0);
	assert_int_equal(eng_tl_clip(tl, "c", 1), 0);
	/* 2^24 frames of 2^40 bytes = 2^64 */
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0, INT64_C(1) << 24, 7),
			 0);
	assert_int_equal(eng_tl_finalize(tl, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "too large"));
	eng_tl_free(tl);
	eng_diag_free(&d);

	/* just under 2^63 bytes is fine */
	tl = eng_tl_new("big", "big.tl");
	tl->fps = (struct eng_fps){ 1, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", UINT64_C(1) << 40, 1), 0);
	assert_int_equal(eng_tl_clip(tl, "c", 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0,
					    (INT64_C(1) << 23) - 1, 7), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	assert_int_equal(tl->bytes, ((UINT64_C(1) << 23) - 1) << 40);
	assert_int_equal(eng_frame_at(tl, tl->bytes - 1), tl->frames - 1);
	assert_int_equal(eng_frame_at(tl, UINT64_C(5) << 40), 5);
	assert_int_equal(eng_frame_at(tl, (UINT64_C(5) << 40) - 1), 4);
	eng_tl_free(tl);

	/* a frame that alone exceeds 64 bits: 2^63 B/s at 1/4 fps */
	tl = eng_tl_new("big", "big.tl");
	tl->fps = (struct eng_fps){ 1, 4 };
	assert_int_equal(eng_tl_add_track(tl, "V", UINT64_C(1) << 63, 1), 0);
	assert_int_equal(eng_tl_clip(tl, "c", 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0, 1, 7), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	eng_tl_free(tl);
	eng_diag_free(&d);
}


/* ------------------------------------------------ real media (issue 21) */

/* A video stream of n frames of sizes 100 + 10 i at offsets 5000 + 1000 i
 * (a container's frames are not back to back), key frames every `gop`
 * (0: none needed: intra-only). */
static struct eng_essence *video_ess(int64_t n, int64_t gop)
{
	struct eng_essence *e = calloc(1, sizeof(*e));
	int64_t i;

	assert_non_null(e);
	e->kind = ENG_ESS_VIDEO;
	strcpy(e->codec, "prores");
	e->nframes = n;
	e->off = calloc((size_t)n, sizeof(*e->off));
	e->len = calloc((size_t)n, sizeof(*e->len));
	assert_true(e->off && e->len);
	for (i = 0; i < n; i++) {
		e->off[i] = 5000 + 1000 * (uint64_t)i;
		e->len[i] = 100 + 10 * (uint32_t)i;
	}
	e->len_min = 100;
	e->len_max = 100 + 10 * (uint64_t)(n - 1);
	if (gop) {
		e->dep = calloc((size_t)n, sizeof(*e->dep));
		assert_non_null(e->dep);
		for (i = 0; i < n; i++)
			e->dep[i] = i / gop * gop;
	}
	return e;
}

/* Audio of `block`-byte sample frames at rate Hz in chunks of `chunk`
 * samples, chunk c at 100000 + c * (chunk * block + 77): each chunk
 * followed by 77 bytes of something else. */
static struct eng_essence *audio_ess(uint32_t rate, uint32_t block,
				     uint32_t chunk, int64_t nsamples)
{
	struct eng_essence *e = calloc(1, sizeof(*e));
	size_t c;

	assert_non_null(e);
	e->kind = ENG_ESS_AUDIO;
	strcpy(e->codec, "pcm_s24le");
	e->sample_rate = rate;
	e->block = block;
	e->channels = block / 3;
	e->bits = 24;
	e->nsamples = nsamples;
	e->nchunks = (size_t)((nsamples + chunk - 1) / chunk);
	e->chunks = calloc(e->nchunks, sizeof(*e->chunks));
	assert_non_null(e->chunks);
	for (c = 0; c < e->nchunks; c++) {
		e->chunks[c].off = 100000 + c * ((uint64_t)chunk * block + 77);
		e->chunks[c].first = (int64_t)c * chunk;
		e->chunks[c].count = chunk;
	}
	return e;
}

static void ess_free(struct eng_essence *e)
{
	if (!e)
		return;
	free(e->off);
	free(e->len);
	free(e->dep);
	free(e->decode);
	free(e->chunks);
	free(e->pts);
	free(e);
}

/* tl with the clips' media: every clip of track t plays ess[t] at
 * origins[clip] (what eng_media_resolve sets for real media). */
static void attach(struct eng_timeline *tl, struct eng_essence **ess,
		   const int64_t *origins)
{
	size_t c, t;

	for (c = 0; c < tl->nclips; c++) {
		tl->clips[c].media = calloc(tl->ntracks, sizeof(struct eng_media));
		assert_non_null(tl->clips[c].media);
		for (t = 0; t < tl->ntracks; t++) {
			tl->clips[c].media[t].ess = ess[t];
			tl->clips[c].media[t].origin = origins ? origins[c] : 0;
		}
	}
}

/* One track of one clip "a" (frames [src, src + frames) at 0) playing e
 * at origin, laid out. */
static struct eng_timeline *one_clip(const char *track, uint64_t rate,
				     uint32_t align, struct eng_fps fps,
				     int64_t src, int64_t frames,
				     struct eng_essence *e, int64_t origin)
{
	struct eng_timeline *tl = eng_tl_new("a", "a.tl");
	struct eng_diag d = { 0 };

	assert_non_null(tl);
	tl->fps = fps;
	assert_int_equal(eng_tl_add_track(tl, track, rate, align), 0);
	assert_int_equal(eng_tl_clip(tl, "a", 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, src, 0, frames, 1), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	attach(tl, &e, &origin);
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(d.n, 0);
	eng_diag_free(&d);
	return tl;
}

/* x.tl, one track of clip a's first 5 frames, then len_b frames of clip
 * b from src_b, their media ea and eb: the layout refuses it (-EINVAL),
 * its messages in d. */
static void ab_refused(const char *track, uint64_t rate, uint32_t align,
		       struct eng_fps fps, struct eng_essence *ea,
		       struct eng_essence *eb, int64_t src_b, int64_t len_b,
		       struct eng_diag *d)
{
	struct eng_timeline *tl = eng_tl_new("x", "x.tl");

	assert_non_null(tl);
	tl->fps = fps;
	assert_int_equal(eng_tl_add_track(tl, track, rate, align), 0);
	assert_int_equal(eng_tl_clip(tl, "a", 1), 0);
	assert_int_equal(eng_tl_clip(tl, "b", 2), 1);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0, 5, 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 1, src_b, 5, len_b, 2), 0);
	assert_int_equal(eng_tl_finalize(tl, d), 0);
	attach(tl, &ea, NULL);
	tl->clips[1].media[0].ess = eb;
	assert_int_equal(eng_tl_layout_media(tl, d), -EINVAL);
	eng_tl_free(tl);
}

/* Offsets, frame_at and slices agree; slices add up to the file. */
static void check_layout(const struct eng_timeline *tl)
{
	uint64_t sum = 0, lo = UINT64_MAX, hi = 0;
	int64_t k;
	size_t t;

	for (k = 0; k < tl->frames; k++) {
		uint64_t pos = eng_frame_offset(tl, k);
		uint64_t size = eng_frame_size(tl, k);

		if (size)
			assert_int_equal(eng_frame_at(tl, pos), k);
		if (size > 1)
			assert_int_equal(eng_frame_at(tl, pos + size - 1), k);
		lo = size < lo ? size : lo;
		hi = size > hi ? size : hi;
		for (t = 0; t < tl->ntracks; t++) {
			struct eng_slice s;
			uint64_t ext = 0;
			int i;

			eng_slice_get(tl, k, t, &s);
			assert_int_equal(s.pos, pos);
			for (i = 0; i < s.next; i++)
				ext += s.ext[i].len;
			if (s.seg && s.len)
				assert_int_equal(ext, s.len);
			else
				assert_int_equal(s.next, 0);
			pos += s.len;
			sum += s.len;
		}
		assert_int_equal(pos, eng_frame_offset(tl, k + 1));
	}
	assert_int_equal(sum, tl->bytes);
	assert_int_equal(eng_frame_offset(tl, tl->frames), tl->bytes);
	assert_int_equal(tl->frame_bytes_min, lo);
	assert_int_equal(tl->frame_bytes_max, hi);
}

/* Variable frame sizes: each timeline frame of V is the size of the source
 * frame it plays, at that frame's offset; gap frames are empty.  Before
 * issue 21 a frame of a real file was read at k * rate / fps, one size. */
static void test_media_video_variable(void **state)
{
	struct eng_timeline *tl = eng_tl_new("r", "r.tl");
	struct eng_essence *v = video_ess(20, 0);
	struct eng_essence *ess[2] = { v, NULL };
	static const int64_t origins[2] = { 0, 4 };
	struct eng_diag d = { 0 };
	struct eng_slice s;
	int64_t k;

	(void)state;
	tl->fps = (struct eng_fps){ 24, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 24000, 1), 0);
	assert_int_equal(eng_tl_add_track(tl, "A1", 144000, 3), 1);
	assert_int_equal(eng_tl_clip(tl, "a", 1), 0);
	assert_int_equal(eng_tl_clip(tl, "b", 2), 1);
	/* V: a's frames 2..6 at 0..4, a gap 5..6, b's 0..2 (media 4..6) */
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 2, 0, 5, 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 1, 0, 7, 3, 2), 0);
	assert_int_equal(eng_tl_add_segment(tl, 1, 0, 0, 0, 10, 3), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	attach(tl, ess, origins);
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(d.n, 0);
	assert_non_null(tl->tracks[0].upto);
	assert_null(tl->tracks[1].upto);
	/* V: 120+130+140+150+160 + 0 + 0 + 140+150+160; A1: 6000 a frame */
	assert_int_equal(eng_upto(tl, 0, tl->frames), 1150);
	assert_int_equal(tl->bytes, 1150 + 10 * 6000);
	assert_int_equal(tl->frame_bytes_min, 6000);
	assert_int_equal(tl->frame_bytes_max, 6160);
	/* the derived rate: 1150 bytes in 10 frames at 24 fps */
	assert_int_equal(tl->tracks[0].rate, 2760);
	assert_int_equal(tl->tracks[0].align, 1);
	assert_int_equal(tl->slice_extents_max, 1);
	check_layout(tl);
	eng_slice_get(tl, 0, 0, &s);
	assert_int_equal(s.len, 120);
	assert_int_equal(s.next, 1);
	assert_int_equal(s.ext[0].off, 7000);
	assert_int_equal(s.file_off, 7000);
	eng_slice_get(tl, 5, 0, &s);	/* a gap: nothing */
	assert_null(s.seg);
	assert_int_equal(s.len, 0);
	eng_slice_get(tl, 8, 0, &s);	/* b's frame 1: media frame 5 */
	assert_int_equal(s.pos, 120 + 130 + 140 + 150 + 160 + 140 + 8 * 6000);
	assert_int_equal(s.len, 150);
	assert_int_equal(s.ext[0].off, 10000);
	/* the raw track after it keeps its closed form */
	eng_slice_get(tl, 8, 1, &s);
	assert_int_equal(s.len, 6000);
	assert_int_equal(s.file_off, 8 * 6000);
	for (k = 0; k < tl->frames; k++)
		assert_int_equal(eng_upto(tl, 0, k + 1) - eng_upto(tl, 0, k),
				 k < 5 ? 120 + 10 * (uint64_t)k :
				 k < 7 ? 0 : 140 + 10 * (uint64_t)(k - 7));
	/* a second call starts over and finds the same */
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(tl->bytes, 1150 + 10 * 6000);
	check_layout(tl);
	eng_tl_free(tl);
	ess_free(v);
	eng_diag_free(&d);
}

/* Real video of one size, no gap: the closed form, no table. */
static void test_media_video_constant(void **state)
{
	struct eng_essence *v = video_ess(20, 0);
	struct eng_timeline *tl;
	int64_t i;

	(void)state;
	for (i = 0; i < v->nframes; i++)
		v->len[i] = 4321;
	tl = one_clip("V", 1000, 1, (struct eng_fps){ 30000, 1001 }, 3, 12, v,
		      0);
	assert_null(tl->tracks[0].upto);
	assert_int_equal(tl->tracks[0].align, 4321);
	assert_int_equal(tl->bytes, 12 * 4321);
	assert_int_equal(tl->frame_bytes_min, 4321);
	assert_int_equal(tl->frame_bytes_max, 4321);
	check_layout(tl);
	eng_tl_free(tl);
	ess_free(v);
}

/* Audio by samples whatever the chunking: 48 kHz stereo 24-bit at 24 fps
 * is 2000 samples a frame; chunks of 1500 samples with 77 bytes between
 * them make a frame two or three extents. */
static void test_media_audio_chunks(void **state)
{
	struct eng_essence *a = audio_ess(48000, 6, 1500, 48000 * 3);
	struct eng_timeline *tl;
	struct eng_slice s;
	int64_t k;

	(void)state;
	/* the .tl's rate is the raw default: the media's wins */
	tl = one_clip("A1", 144000, 3, (struct eng_fps){ 24, 1 }, 1, 40, a, 700);
	assert_int_equal(tl->tracks[0].rate, 288000);
	assert_int_equal(tl->tracks[0].align, 6);
	assert_int_equal(tl->bytes, 40 * 12000);
	assert_int_equal(tl->slice_extents_max, 3);
	check_layout(tl);
	for (k = 0; k < tl->frames; k++) {
		/* samples [700 + 2000 (k + 1), + 2000) of the media */
		int64_t first = 700 + 2000 * (k + 1), smp = first;
		int i;

		eng_slice_get(tl, k, 0, &s);
		for (i = 0; i < s.next; i++) {
			int64_t c = smp / 1500;

			assert_int_equal(s.ext[i].off,
					 100000 + c * (1500 * 6 + 77) +
					 (smp - c * 1500) * 6);
			smp += (int64_t)(s.ext[i].len / 6);
			/* each extent ends a chunk, or the frame */
			assert_true(smp % 1500 == 0 || smp == first + 2000);
		}
		assert_int_equal(smp, first + 2000);
	}
	/* frame 0: samples 2700..4700: 2700..3000, 3000..4500, 4500..4700 */
	eng_slice_get(tl, 0, 0, &s);
	assert_int_equal(s.next, 3);
	assert_int_equal(s.ext[0].len, 300 * 6);
	assert_int_equal(s.ext[1].off, 100000 + 2 * 9077);
	assert_int_equal(s.ext[1].len, 1500 * 6);
	assert_int_equal(s.ext[2].len, 200 * 6);
	eng_tl_free(tl);
	ess_free(a);
}

/* AAC-like compressed audio at 48 kHz: n packets of 1024 samples from
 * -1024 (an encoder's priming packet first), 200 + i % 7 bytes each, in
 * runs of 8 back to back, 50 bytes between runs. */
static struct eng_essence *aac_ess(int64_t n)
{
	struct eng_essence *e = calloc(1, sizeof(*e));
	uint64_t at = 5000;
	int64_t i;

	assert_non_null(e);
	e->kind = ENG_ESS_AUDIO;
	strcpy(e->codec, "aac");
	e->sample_rate = 48000;
	e->channels = 2;
	e->npackets = n;
	e->off = calloc((size_t)n, sizeof(*e->off));
	e->len = calloc((size_t)n, sizeof(*e->len));
	e->pts = calloc((size_t)n, sizeof(*e->pts));
	assert_true(e->off && e->len && e->pts);
	for (i = 0; i < n; i++) {
		if (i && i % 8 == 0)
			at += 50;
		e->off[i] = at;
		e->len[i] = 200 + (uint32_t)(i % 7);
		e->pts[i] = (i - 1) * 1024;
		at += e->len[i];
	}
	e->nsamples = (n - 1) * 1024;
	return e;
}

/* Compressed audio is laid out by its packets, as real video by its
 * frames: timeline frame k holds the packets whose time falls in its
 * 1920 samples at 25 fps (the priming packet with the first), a table of
 * their sizes, each frame's extents the runs they are in.  Before, the
 * MP4 reader left such a stream out ("not PCM") and the mount refused
 * the clip.  PCM and AAC on one track are refused. */
static void test_media_packets(void **state)
{
	struct eng_essence *a = aac_ess(100), *p;
	struct eng_timeline *tl;
	struct eng_diag d = { 0 };
	struct eng_slice s;
	int64_t k, i;

	(void)state;
	/* source frames 10..29 */
	tl = one_clip("A1", 144000, 3, (struct eng_fps){ 25, 1 }, 10, 20, a,
		      0);
	assert_non_null(tl->tracks[0].upto);
	assert_int_equal(tl->tracks[0].align, 1);
	check_layout(tl);
	for (k = 0; k < tl->frames; k++) {
		int64_t s0 = (10 + k) * 1920, s1 = s0 + 1920;
		uint64_t want = 0, got = 0;
		int j;

		for (i = 0; i < a->npackets; i++)
			if ((a->pts[i] < 0 ? 0 : a->pts[i]) >= s0 &&
			    a->pts[i] < s1)
				want += a->len[i];
		eng_slice_get(tl, k, 0, &s);
		assert_int_equal(s.len, want);
		for (j = 0; j < s.next; j++)
			got += s.ext[j].len;
		assert_int_equal(got, want);
		assert_true(s.next >= 1 && s.next <= 2);
		/* the one count of a source frame's samples that the
		 * movie's table and the resolver's reach use too */
		eng_media_samples(tl, &tl->clips[0].media[0], 10 + k, 1,
				  &s0, &s1);
		assert_int_equal(s0, (10 + k) * 1920);
		assert_int_equal(s1, s0 + 1920);
	}
	{
		int64_t s0, s1;

		eng_media_samples(tl, &tl->clips[0].media[0], 10, 20, &s0,
				  &s1);
		assert_int_equal(s0, 19200);
		assert_int_equal(s1, 30 * 1920);
	}
	/* frame 0 (samples 19200..21120): packets at 19456 and 20480,
	 * indexes 20 and 21, one run */
	eng_slice_get(tl, 0, 0, &s);
	assert_int_equal(s.next, 1);
	assert_int_equal(s.ext[0].off, a->off[20]);
	assert_int_equal(s.ext[0].len, a->len[20] + a->len[21]);
	eng_tl_free(tl);
	/* from the start: the priming packet is the first frame's */
	tl = one_clip("A1", 144000, 3, (struct eng_fps){ 25, 1 }, 0, 2, a, 0);
	eng_slice_get(tl, 0, 0, &s);
	assert_int_equal(s.ext[0].off, 5000);
	assert_int_equal(s.len, a->len[0] + a->len[1] + a->len[2]);
	eng_tl_free(tl);
	/* PCM beside it on the track */
	p = audio_ess(48000, 6, 1500, 48000 * 4);
	ab_refused("A1", 144000, 3, (struct eng_fps){ 25, 1 }, a, p, 0, 5, &d);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "clip b on track A1 is real audio "
			       "(pcm_s24le, 48000 Hz, 6 bytes a sample frame, "
			       "little-endian), but clip a (line 1) is "
			       "compressed audio (aac, 48000 Hz, 2 channels)"));
	eng_diag_free(&d);
	ess_free(p);
	ess_free(a);
}

/* Real audio far into a timeline (gaps cost nothing): its sizes come
 * from the closed form, not a walk over every frame (10^12 of them). */
static void test_media_audio_far(void **state)
{
	struct eng_timeline *tl = eng_tl_new("f", "f.tl");
	struct eng_essence *a = audio_ess(48000, 6, 1500, 48000 * 3);
	struct eng_diag d = { 0 };
	struct eng_slice s;
	const int64_t far = 1000000000000LL;

	(void)state;
	tl->fps = (struct eng_fps){ 24, 1 };
	assert_int_equal(eng_tl_add_track(tl, "A1", 144000, 3), 0);
	assert_int_equal(eng_tl_clip(tl, "a", 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, far, 5, 1), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	attach(tl, &a, NULL);
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(tl->bytes, (uint64_t)(far + 5) * 12000);
	assert_int_equal(tl->frame_bytes_min, 12000);
	assert_int_equal(tl->frame_bytes_max, 12000);
	eng_slice_get(tl, far + 1, 0, &s);
	assert_int_equal(s.next, 2);	/* samples 2000..4000 */
	assert_int_equal(s.ext[0].off, 100000 + 9077 + 500 * 6);
	eng_tl_free(tl);
	ess_free(a);
	eng_diag_free(&d);
}

/* What the layout refuses, each a message naming the clip and both
 * values: a track of real and raw video, audio of two sample rates, a
 * segment past its media's end, audio in too many chunks. */
static void test_media_refused(void **state)
{
	static const struct {
		const char *what;
		int video;	/* V track, else A1 */
		uint32_t rate2;	/* clip b's audio rate, 0: raw */
		int64_t src_b;	/* b's src_in */
		uint32_t chunk;
		const char *msg;
	} cases[] = {
		{ "real and raw video", 1, 0, 0, 0,
		  "clip b on track V is raw media (24000 bytes a second, "
		  "align 1), but clip a (line 1) is real video (prores)" },
		{ "past the end", 1, 1, 15, 0,
		  "clip b on track V plays frames 15..24 of its media, "
		  "which has 20 frames" },
		{ "two sample rates", 0, 44100, 0, 1500,
		  "clip b on track A1 is real audio (pcm_s24le, 44100 Hz, 6 "
		  "bytes a sample frame, little-endian), but clip a (line 1) "
		  "is real audio (pcm_s24le, 48000 Hz" },
		{ "tiny chunks", 0, 48000, 0, 400,
		  "reads its audio in more than 4 pieces" },
		{ "audio past the end", 0, 48000, 200, 1500,
		  "plays samples its media" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct eng_essence *ea, *eb = NULL;
		struct eng_diag d = { 0 };

		if (cases[i].video) {
			ea = video_ess(20, 0);
			if (cases[i].rate2)
				eb = video_ess(20, 0);
		} else {
			ea = audio_ess(48000, 6, cases[i].chunk, 48000 * 4);
			eb = audio_ess(cases[i].rate2, 6, cases[i].chunk,
				       48000 * 4);
		}
		ab_refused(cases[i].video ? "V" : "A1", 24000, 1,
			   (struct eng_fps){ 24, 1 }, ea, eb, cases[i].src_b, 10,
			   &d);
		if (d.n < 1 || !strstr(d.msgs[0], cases[i].msg))
			fail_msg("%s: got \"%s\"", cases[i].what,
				 d.n ? d.msgs[0] : "no message");
		assert_non_null(strstr(d.msgs[0], "x.tl"));
		ess_free(ea);
		ess_free(eb);
		eng_diag_free(&d);
	}
}

/* A track of real video keeps its table's sums below 2^63: fewer than
 * 2^31 frames (frames of under 2^32 bytes), else a message. */
static void test_media_too_long(void **state)
{
	struct eng_timeline *tl = eng_tl_new("l", "l.tl");
	struct eng_essence *v = video_ess(20, 0);
	struct eng_diag d = { 0 };

	(void)state;
	tl->fps = (struct eng_fps){ 24, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 24000, 1), 0);
	assert_int_equal(eng_tl_clip(tl, "a", 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, INT32_MAX - 2, 2, 1),
			 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	attach(tl, &v, NULL);
	assert_int_equal(eng_tl_layout_media(tl, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "2147483647 frames of real video"));
	assert_null(tl->tracks[0].upto);
	eng_tl_free(tl);
	ess_free(v);
	eng_diag_free(&d);
}

/* Decoding dependencies: from the GOP's key frame, in decode order. */
static void test_media_deps(void **state)
{
	struct eng_essence *v = video_ess(12, 6);
	struct eng_timeline *tl;
	struct eng_slice_ext x[16];
	/* presentation I B B P B B, decode I P B B P' ...: 0 3 1 2 | 6 9 7 8 */
	static const int64_t decode[12] = { 0, 2, 3, 1, 5, 6, 4, 8, 9, 7,
					    11, 10 };

	(void)state;
	tl = one_clip("V", 24000, 1, (struct eng_fps){ 24, 1 }, 1, 10, v, 0);
	/* presentation order: frame 3 needs 0, 1, 2; a key frame none */
	assert_int_equal(eng_slice_deps(tl, 0, 0, 3, x, 16), 3);
	assert_int_equal(x[0].off, 5000);
	assert_int_equal(x[2].off, 7000);
	assert_int_equal(x[2].len, 120);
	assert_int_equal(eng_slice_deps(tl, 0, 0, 6, x, 16), 0);
	assert_int_equal(eng_slice_deps(tl, 0, 0, 3, x, 2), 2);
	/* the most any frame of the edit (media 1..10) needs: 5 needs 5 */
	assert_int_equal(tl->dep_reads_max, 5);
	assert_int_equal(tl->dep_bytes_max, 210);
	/* decode order */
	v->decode = malloc(sizeof(decode));
	assert_non_null(v->decode);
	memcpy(v->decode, decode, sizeof(decode));
	/* B at 2 (decode 3): I 0, P 3, B 1 */
	assert_int_equal(eng_slice_deps(tl, 0, 0, 2, x, 16), 3);
	assert_int_equal(x[0].off, 5000);
	assert_int_equal(x[1].off, 8000);
	assert_int_equal(x[2].off, 6000);
	/* P at 3 (decode 1): I only */
	assert_int_equal(eng_slice_deps(tl, 0, 0, 3, x, 16), 1);
	assert_int_equal(x[0].off, 5000);
	/* raw media, or a clip without media: none */
	assert_int_equal(eng_slice_deps(tl, 0, 0, 30, x, 16), 0);
	eng_tl_free(tl);
	ess_free(v);
}

/* A timeline of raw media is left exactly as eng_tl_finalize made it. */
static void test_media_raw_unchanged(void **state)
{
	struct eng_timeline *tl = make_tl(40);
	struct eng_diag d = { 0 };
	uint64_t bytes = tl->bytes, lo = tl->frame_bytes_min,
		 hi = tl->frame_bytes_max;

	(void)state;
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	assert_int_equal(tl->bytes, bytes);
	assert_int_equal(tl->frame_bytes_min, lo);
	assert_int_equal(tl->frame_bytes_max, hi);
	assert_int_equal(tl->slice_extents_max, 0);
	assert_null(tl->tracks[0].upto);
	eng_tl_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upto_ntsc_audio),
		cmocka_unit_test(test_upto_film_audio),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_overlaps),
		cmocka_unit_test(test_overlap_same_range),
		cmocka_unit_test(test_frame_at),
		cmocka_unit_test(test_finalize_errors),
		cmocka_unit_test(test_finalize_too_large),
		cmocka_unit_test(test_media_video_variable),
		cmocka_unit_test(test_media_video_constant),
		cmocka_unit_test(test_media_audio_chunks),
		cmocka_unit_test(test_media_packets),
		cmocka_unit_test(test_media_audio_far),
		cmocka_unit_test(test_media_refused),
		cmocka_unit_test(test_media_too_long),
		cmocka_unit_test(test_media_deps),
		cmocka_unit_test(test_media_raw_unchanged),
		cmocka_unit_test(test_picture_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
