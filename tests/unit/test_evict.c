/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/play/evict.c: which page cache a cached reader has
 * passed.  Nothing within keep of the newest request, whole pages, steps
 * of 64 MiB unpaced and 8 MiB paced, ranges that follow one another, and
 * nothing for requests behind what was dropped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "play/evict.h"
#include "play/player.h"

#define MiB (1ULL << 20)

static void test_unpaced_steps(void **state)
{
	struct eng_evict ev;
	uint64_t from = 12345, n;

	(void)state;
	eng_evict_init(&ev, 0, 0);
	assert_int_equal(ev.step, 64 * MiB);
	assert_int_equal(ev.keep, 8 * MiB);
	/* below keep, and less than a step past keep: nothing, from untouched */
	assert_int_equal(eng_evict_passed(&ev, 0, &from), 0);
	assert_int_equal(eng_evict_passed(&ev, 8 * MiB - 1, &from), 0);
	assert_int_equal(eng_evict_passed(&ev, 72 * MiB - 1, &from), 0);
	assert_int_equal(from, 12345);
	/* exactly a step past keep */
	n = eng_evict_passed(&ev, 72 * MiB, &from);
	assert_int_equal(from, 0);
	assert_int_equal(n, 64 * MiB);
	/* the next range starts where this one ended */
	assert_int_equal(eng_evict_passed(&ev, 136 * MiB - 4096, &from), 0);
	n = eng_evict_passed(&ev, 200 * MiB + 100, &from);
	assert_int_equal(from, 64 * MiB);
	assert_int_equal(n, 128 * MiB);
}

/* smbd's reads in flight (issue 20): a request 16 MiB ahead of another
 * still being served must not drop the other's pages, so a stream with
 * a window keeps that much more. */
static void test_window(void **state)
{
	struct eng_evict ev;
	uint64_t from = 0;

	(void)state;
	eng_evict_init(&ev, 1, 16 * MiB);
	assert_int_equal(ev.keep, 24 * MiB);
	assert_int_equal(eng_evict_passed(&ev, 32 * MiB - 1, &from), 0);
	assert_int_equal(eng_evict_passed(&ev, 32 * MiB, &from), 8 * MiB);
	assert_int_equal(from, 0);
}

static void test_paced_steps(void **state)
{
	struct eng_evict ev;
	uint64_t from = 0, n, off, end = 0;

	(void)state;
	eng_evict_init(&ev, 1, 0);
	assert_int_equal(ev.step, 8 * MiB);
	assert_int_equal(eng_evict_passed(&ev, 16 * MiB - 1, &from), 0);
	n = eng_evict_passed(&ev, 16 * MiB, &from);
	assert_int_equal(from, 0);
	assert_int_equal(n, 8 * MiB);
	/* a reader going on in 1 MiB requests plus an odd byte: ranges of at
	 * least a step, contiguous, page-aligned, never within keep */
	end = 8 * MiB;
	for (off = 16 * MiB; off < 400 * MiB; off += MiB + 1) {
		n = eng_evict_passed(&ev, off, &from);
		if (!n)
			continue;
		assert_int_equal(from, end);
		assert_true(n >= 8 * MiB);
		assert_int_equal((from + n) % ENG_EVICT_PAGE, 0);
		assert_true(from + n + 8 * MiB <= off);
		end = from + n;
	}
	assert_true(end > 380 * MiB);
}

static void test_unaligned_request(void **state)
{
	struct eng_evict ev;
	uint64_t from = 0, n;

	(void)state;
	eng_evict_init(&ev, 1, 0);
	/* 16 MiB + 4095: the page below the keep line is the last one */
	n = eng_evict_passed(&ev, 16 * MiB + 4095, &from);
	assert_int_equal(n, 8 * MiB);
	n = eng_evict_passed(&ev, 24 * MiB + 4096 + 17, &from);
	assert_int_equal(from, 8 * MiB);
	assert_int_equal(n, 8 * MiB + 4096);
}

static void test_behind(void **state)
{
	struct eng_evict ev;
	uint64_t from = 7, n;

	(void)state;
	eng_evict_init(&ev, 0, 0);
	n = eng_evict_passed(&ev, 500 * MiB, &from);
	assert_int_equal(n, 492 * MiB);
	/* a seek back, or a re-read behind what was dropped: nothing, and
	 * no wrap-around into a huge range */
	from = 7;
	assert_int_equal(eng_evict_passed(&ev, 100 * MiB, &from), 0);
	assert_int_equal(eng_evict_passed(&ev, 0, &from), 0);
	assert_int_equal(from, 7);
	/* going on from there: only past the old end plus a step */
	assert_int_equal(eng_evict_passed(&ev, 560 * MiB - 1, &from), 0);
	n = eng_evict_passed(&ev, 564 * MiB, &from);
	assert_int_equal(from, 492 * MiB);
	assert_int_equal(n, 64 * MiB);
	/* near the top of the range: no overflow */
	n = eng_evict_passed(&ev, UINT64_MAX, &from);
	assert_int_equal(from, 556 * MiB);
	assert_int_equal((from + n) % ENG_EVICT_PAGE, 0);
	assert_true(from + n <= UINT64_MAX - 8 * MiB);
}

/* A movie's header is read again at every gap: its pages stay, and the
 * first range starts on the page after it. */
static void test_keep_head(void **state)
{
	struct eng_evict ev;
	uint64_t from = 7, n;

	(void)state;
	eng_evict_init(&ev, 1, 0);
	eng_evict_keep_head(&ev, 700416 + 1);
	/* 8 MiB of keep + 8 MiB of step past the head's end */
	assert_int_equal(eng_evict_passed(&ev, 16 * MiB, &from), 0);
	n = eng_evict_passed(&ev, 16 * MiB + 704512, &from);
	assert_int_equal(from, 704512);
	assert_int_equal(n, 8 * MiB);
	/* a head that is a whole number of pages: the next page */
	eng_evict_init(&ev, 1, 0);
	eng_evict_keep_head(&ev, 8192);
	n = eng_evict_passed(&ev, 17 * MiB, &from);
	assert_int_equal(from, 8192);
	assert_int_equal(from + n, 9 * MiB);
	/* no head: from 0, as before */
	eng_evict_init(&ev, 1, 0);
	eng_evict_keep_head(&ev, 0);
	assert_int_equal(eng_evict_passed(&ev, 16 * MiB, &from), 8 * MiB);
	assert_int_equal(from, 0);
}

/* How the mount opens a stream (eng_open_mode), every case fs_open had
 * written out: the first reader of an inode gets cached mode, every other
 * concurrent one and every one under -o direct_io goes direct with
 * keep_cache; zero copy in both, a cached stream's whatever its first
 * request's size (ENG_ZC_ANY_REQUEST), but not a cached file server's;
 * a file server's window. */
static void test_open_mode(void **state)
{
	static const struct {
		const char *what;
		int direct_io, held, zc;	/* -o direct_io, the inode's
						 * cached mode taken, fs->zc */
		const char *comm;
		int cached, fuse_direct, keep_cache, zero_copy, held_after;
		uint64_t window;
	} cases[] = {
		{ "first reader", 0, 0, ENG_SPLICE_AUTO, "dd", 1, 0, 0,
		  ENG_ZC_FILES, 1, 0 },
		{ "first reader, -o splice=pipes", 0, 0, ENG_SPLICE_PIPES, "dd",
		  1, 0, 0, ENG_ZC_ANY_REQUEST, 1, 0 },
		{ "second reader, -o splice=pipes", 0, 1, ENG_SPLICE_PIPES,
		  "dd", 0, 1, 1, 1, 1, 0 },
		{ "smbd first, -o splice=pipes", 0, 0, ENG_SPLICE_PIPES, "smbd",
		  1, 0, 0, 0, 1, ENG_PLAYER_WINDOW_SMB },
		{ "first reader, no zero copy", 0, 0, 0, "dd", 1, 0, 0, 0, 1,
		  0 },
		{ "second reader", 0, 1, 1, "dd", 0, 1, 1, 1, 1, 0 },
		{ "second reader, no zero copy", 0, 1, 0, "dd", 0, 1, 1, 0, 1,
		  0 },
		{ "-o direct_io, first", 1, 0, 1, "dd", 0, 1, 1, 1, 0, 0 },
		{ "-o direct_io, no zero copy", 1, 0, 0, "dd", 0, 1, 1, 0, 0,
		  0 },
		{ "smbd first", 0, 0, 1, "smbd", 1, 0, 0, 0, 1,
		  ENG_PLAYER_WINDOW_SMB },
		{ "smbd second", 0, 1, 1, "smbd", 0, 1, 1, 1, 1,
		  ENG_PLAYER_WINDOW_SMB },
		{ "a reader gone (no name)", 0, 0, 1, NULL, 1, 0, 0,
		  ENG_ZC_FILES, 1, 0 },
	};
	struct eng_open_mode m;
	size_t i;
	int held;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		held = cases[i].held;
		memset(&m, 0xa5, sizeof(m));
		eng_open_mode(cases[i].direct_io, &held, cases[i].zc,
			      cases[i].comm, &m);
		print_message("%s\n", cases[i].what);
		assert_int_equal(m.cached, cases[i].cached);
		assert_int_equal(m.direct_io, cases[i].fuse_direct);
		assert_int_equal(m.keep_cache, cases[i].keep_cache);
		assert_int_equal(m.zero_copy, cases[i].zero_copy);
		assert_int_equal(m.window, cases[i].window);
		assert_int_equal(held, cases[i].held_after);
	}
}

/* NAME and NAME.mov are two inodes, each with its own page cache: the
 * first reader of each is cached, the second of each direct; and once
 * the cached one is gone (its flag given back) the next is cached. */
static void test_open_mode_inodes(void **state)
{
	struct eng_open_mode m;
	int held[2] = { 0, 0 };

	(void)state;
	eng_open_mode(0, &held[0], 1, "mpv", &m);
	assert_true(m.cached);
	eng_open_mode(0, &held[1], 1, "mpv", &m);
	assert_true(m.cached);
	eng_open_mode(0, &held[1], 1, "mpv", &m);
	assert_false(m.cached);
	assert_true(m.direct_io && m.keep_cache && m.zero_copy);
	held[0] = 0;
	eng_open_mode(0, &held[0], 1, "mpv", &m);
	assert_true(m.cached);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unpaced_steps),
		cmocka_unit_test(test_paced_steps),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_unaligned_request),
		cmocka_unit_test(test_behind),
		cmocka_unit_test(test_keep_head),
		cmocka_unit_test(test_open_mode),
		cmocka_unit_test(test_open_mode_inodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
