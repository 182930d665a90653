/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/play/pieces.c: a reply's pieces within the caller's
 * limit.  Regression for issue 17 defect 1: a 1 MiB reply of 800-byte
 * frames took 1310 iovecs, more than writev's 1024, and failed (E2BIG, or
 * at exactly 1024 a reply the kernel never saw and a reader that hung).
 * Contiguous parts are one piece; at max + 1 pieces the tail is copied
 * into the spill, the first max - 1 pieces stay uncopied; the spill
 * eng_pieces_spill_need() sizes is always enough, and sometimes all of it
 * is needed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "play/pieces.h"

#define MAXP 8

/* A source of distinct bytes: any piece out of place shows. */
static unsigned char src[1 << 16];

static void fill_src(void)
{
	size_t i;

	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 131 + (i >> 8) * 7 + 1);
}

/* The pieces, concatenated, must be want[0..len). */
static void check_bytes(const struct eng_pieces *pb, const unsigned char *want,
			size_t len)
{
	size_t at = 0;
	int i;

	for (i = 0; i < pb->n; i++) {
		assert_true(at + pb->iov[i].iov_len <= len);
		assert_memory_equal(pb->iov[i].iov_base, want + at,
				    pb->iov[i].iov_len);
		at += pb->iov[i].iov_len;
	}
	assert_int_equal(at, len);
}

static void test_merge(void **state)
{
	struct iovec iov[MAXP];
	struct eng_pieces pb;
	int i;

	(void)state;
	fill_src();
	eng_pieces_init(&pb, iov, MAXP, NULL, 0);
	/* 100 contiguous parts of 10 bytes: one piece, nothing copied */
	for (i = 0; i < 100; i++)
		assert_int_equal(eng_pieces_add(&pb, src + 10 * i, 10), 0);
	assert_int_equal(pb.n, 1);
	assert_ptr_equal(iov[0].iov_base, src);
	assert_int_equal(iov[0].iov_len, 1000);
	assert_int_equal(pb.spilled, 0);
	/* empty parts change nothing, even past the limit */
	assert_int_equal(eng_pieces_add(&pb, src + 5000, 0), 0);
	assert_int_equal(pb.n, 1);
	/* a ring's wrap: from its end back to its start is a new piece */
	eng_pieces_init(&pb, iov, MAXP, NULL, 0);
	assert_int_equal(eng_pieces_add(&pb, src + 900, 50), 0);
	assert_int_equal(eng_pieces_add(&pb, src + 950, 50), 0);
	assert_int_equal(eng_pieces_add(&pb, src, 30), 0);
	assert_int_equal(eng_pieces_add(&pb, src + 30, 30), 0);
	assert_int_equal(pb.n, 2);
	assert_ptr_equal(iov[0].iov_base, src + 900);
	assert_int_equal(iov[0].iov_len, 100);
	assert_ptr_equal(iov[1].iov_base, src);
	assert_int_equal(iov[1].iov_len, 60);
	/* parts with holes between them (frames smaller than their slot)
	 * stay apart, as do parts in reverse order */
	eng_pieces_init(&pb, iov, MAXP, NULL, 0);
	assert_int_equal(eng_pieces_add(&pb, src + 100, 7), 0);
	assert_int_equal(eng_pieces_add(&pb, src + 108, 8), 0);
	assert_int_equal(eng_pieces_add(&pb, src + 50, 50), 0);
	assert_int_equal(pb.n, 3);
}

/*
 * Parts of 3 bytes at a stride of 4 (a hole after each, as 798-byte
 * frames in 801-byte slots): part i is a piece of its own.  Around the
 * limit: max - 1, max, max + 1, max + 2 and many more parts.
 */
static void test_limit(void **state)
{
	static const struct {
		int parts;	/* parts added */
		int n;		/* pieces */
		size_t spilled;	/* bytes in the spill */
	} cases[] = {
		{ 1, 1, 0 },
		{ MAXP - 1, MAXP - 1, 0 },
		{ MAXP, MAXP, 0 },
		{ MAXP + 1, MAXP, 6 },		/* parts max-1 and max */
		{ MAXP + 2, MAXP, 9 },
		{ 1000, MAXP, 3 * (1000 - MAXP + 1) },
	};
	unsigned char want[3 * 1000], spill[3 * 1000];
	struct iovec iov[MAXP];
	struct eng_pieces pb;
	size_t c;
	int i;

	(void)state;
	fill_src();
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		eng_pieces_init(&pb, iov, MAXP, spill, sizeof(spill));
		for (i = 0; i < cases[c].parts; i++) {
			assert_int_equal(eng_pieces_add(&pb, src + 4 * i, 3), 0);
			memcpy(want + 3 * i, src + 4 * i, 3);
		}
		assert_int_equal(pb.n, cases[c].n);
		assert_int_equal(pb.spilled, cases[c].spilled);
		check_bytes(&pb, want, 3 * (size_t)cases[c].parts);
		/* the first max - 1 pieces are never copied; the last is the
		 * spill exactly when something spilled */
		for (i = 0; i < pb.n && i < MAXP - 1; i++)
			assert_ptr_equal(iov[i].iov_base, src + 4 * i);
		if (cases[c].spilled)
			assert_ptr_equal(iov[MAXP - 1].iov_base, spill);
		else
			assert_ptr_equal(iov[pb.n - 1].iov_base,
					 src + 4 * (pb.n - 1));
	}
}

/* A spill too small, or none: -E2BIG, and the pieces stay as they were. */
static void test_spill_full(void **state)
{
	unsigned char spill[64];
	struct iovec iov[MAXP], before[MAXP];
	struct eng_pieces pb;
	int i;

	(void)state;
	fill_src();
	eng_pieces_init(&pb, iov, MAXP, NULL, 0);
	for (i = 0; i < MAXP; i++)
		assert_int_equal(eng_pieces_add(&pb, src + 4 * i, 3), 0);
	memcpy(before, iov, sizeof(iov));
	assert_int_equal(eng_pieces_add(&pb, src + 4 * MAXP, 3), -E2BIG);
	assert_int_equal(pb.n, MAXP);
	assert_memory_equal(iov, before, sizeof(iov));
	/* exactly enough for the last piece and the new part, then full */
	eng_pieces_init(&pb, iov, MAXP, spill, 6);
	for (i = 0; i < MAXP + 1; i++)
		assert_int_equal(eng_pieces_add(&pb, src + 4 * i, 3), 0);
	assert_int_equal(pb.spilled, 6);
	memcpy(before, iov, sizeof(iov));
	assert_int_equal(eng_pieces_add(&pb, src + 4 * (MAXP + 1), 1), -E2BIG);
	assert_int_equal(pb.spilled, 6);
	assert_memory_equal(iov, before, sizeof(iov));
	/* one byte short of the first spill */
	eng_pieces_init(&pb, iov, MAXP, spill, 5);
	for (i = 0; i < MAXP; i++)
		assert_int_equal(eng_pieces_add(&pb, src + 4 * i, 3), 0);
	assert_int_equal(eng_pieces_add(&pb, src + 4 * MAXP, 3), -E2BIG);
	assert_int_equal(pb.spilled, 0);
	assert_ptr_equal(iov[MAXP - 1].iov_base, src + 4 * (MAXP - 1));
	/* max 1: the second part copies the first */
	eng_pieces_init(&pb, iov, 1, spill, sizeof(spill));
	assert_int_equal(eng_pieces_add(&pb, src, 3), 0);
	assert_int_equal(eng_pieces_add(&pb, src + 10, 3), 0);
	assert_int_equal(pb.n, 1);
	assert_ptr_equal(iov[0].iov_base, spill);
	assert_int_equal(iov[0].iov_len, 6);
	assert_memory_equal(spill, src, 3);
	assert_memory_equal(spill + 3, src + 10, 3);
}

static void test_spill_need(void **state)
{
	static const struct {
		size_t len, part_min;
		int max;
		size_t need;
	} cases[] = {
		/* the mount: 1 MiB, 1023 pieces */
		{ 1 << 20, 798, 1023, (1 << 20) - 1 - 1021 * 798 },
		{ 1 << 20, 801, 1023, (1 << 20) - 1 - 1021 * 801 },
		/* frames of 1028 bytes and more never spill 1 MiB */
		{ 1 << 20, 1027, 1023, 8 },
		{ 1 << 20, 1028, 1023, 0 },
		{ 1 << 20, 6 << 20, 1023, 0 },
		/* 1-byte frames, and frames that can be empty */
		{ 1 << 20, 1, 1023, (1 << 20) - 1022 },
		{ 1 << 20, 0, 1023, (1 << 20) - 1 },
		/* a limit of 1 copies everything */
		{ 4096, 100, 1, 4096 },
		{ 0, 0, 1023, 0 },
	};
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++)
		assert_int_equal(eng_pieces_spill_need(cases[c].len,
						       cases[c].part_min,
						       cases[c].max),
				 cases[c].need);
}

/* Frames f of sizes[f] bytes in slots of slot bytes: add the parts of
 * a request of len bytes starting skip bytes into frame f; the bytes it
 * spilled. */
static size_t request(const size_t *sizes, size_t slot, int f, size_t skip,
		      size_t len)
{
	static unsigned char spill[1 << 12];
	struct iovec iov[MAXP];
	struct eng_pieces pb;

	eng_pieces_init(&pb, iov, MAXP, spill, sizeof(spill));
	for (; len; f++, skip = 0) {
		size_t part = sizes[f] - skip;

		if (part > len)
			part = len;
		assert_true((f + 1) * slot <= sizeof(src));
		assert_int_equal(eng_pieces_add(&pb, src + f * slot + skip,
						part), 0);
		len -= part;
	}
	assert_true(pb.n <= MAXP);
	return pb.spilled;
}

/*
 * Requests anywhere in frames of pmin..pmin+3 bytes, each in a slot of
 * pmin+3 (a hole after every smaller frame): what they copy never passes
 * eng_pieces_spill_need().  And the worst case needs all of it: a
 * request that starts at the last byte of a frame, then frames of the
 * smallest size.
 */
static void test_spill_need_bound(void **state)
{
	enum { LEN = 600, FRAMES = 1000 };
	size_t sizes[FRAMES], pmin, need, skip;
	unsigned seed = 1;
	int f, r;

	(void)state;
	fill_src();
	for (pmin = 1; pmin <= 9; pmin += 4) {
		need = eng_pieces_spill_need(LEN, pmin, MAXP);
		assert_true(need > 0);
		for (f = 0; f < FRAMES; f++) {
			seed = seed * 1103515245u + 12345u;
			sizes[f] = pmin + (seed >> 16) % 4;
		}
		for (r = 0; r < 500; r++) {
			seed = seed * 1103515245u + 12345u;
			f = (int)((seed >> 16) % 200);
			skip = (seed >> 4) % sizes[f];
			assert_true(request(sizes, pmin + 3, f, skip, LEN) <=
				    need);
		}
		for (f = 0; f < FRAMES; f++)
			sizes[f] = pmin;
		/* (a frame that fills its slot would join the next) */
		sizes[0] = pmin + 2;
		assert_int_equal(request(sizes, pmin + 3, 0, pmin + 1, LEN),
				 need);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_spill_full),
		cmocka_unit_test(test_spill_need),
		cmocka_unit_test(test_spill_need_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
