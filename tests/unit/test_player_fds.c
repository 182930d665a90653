/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player (fake clock, fake backing I/O: player_fake.h):
 * the stream's cache of open media files and its limits
 * (engine/play/player_fds.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cmocka.h>

#include "io/io.h"
#include "media/mfile.h"
#include "media/genplan.h"
#include "media/media.h"
#include "media/mov.h"
#include "play/movie.h"
#include "play/player.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#include "player_fake.h"

/* V (1000 bytes a frame) and A1 (96) at 25 fps: clips c00..c(n-1), two
 * frames each in order, then again[] (clip numbers, -1 ends), two frames
 * each.  Many more clip files than a stream may keep open. */
static struct eng_timeline *many_clips_tl(int n, const int *again)
{
	struct eng_timeline *tl = eng_tl_new("many", "many.tl");
	struct eng_diag diag = { 0 };
	int64_t rec = 0;
	size_t t;
	int k, c;

	assert_non_null(tl);
	tl->fps.num = 25;
	tl->fps.den = 1;
	assert_int_equal(eng_tl_add_track(tl, "V", 25000, 1), 0);
	assert_int_equal(eng_tl_add_track(tl, "A1", 2400, 3), 1);
	for (k = 0; k < n || (again && again[k - n] >= 0); k++) {
		char name[16];

		snprintf(name, sizeof(name), "c%02d", k < n ? k : again[k - n]);
		c = eng_tl_clip(tl, name, (unsigned)k + 1);
		assert_true(c >= 0);
		for (t = 0; t < 2; t++)
			assert_int_equal(eng_tl_add_segment(tl, t, (uint32_t)c,
							    2 * k, rec, 2,
							    (unsigned)k + 1),
					 0);
		rec += 2;
	}
	assert_int_equal(eng_tl_finalize(tl, &diag), 0);
	eng_diag_free(&diag);
	fake_resolve(tl, NULL);
	return tl;
}

/* Read the whole file in steps of `step` bytes; its bytes must be want's. */
static void read_all(struct eng_player *p, const struct eng_timeline *tl,
		     const unsigned char *want, size_t step)
{
	unsigned char *buf = malloc(tl->bytes);
	uint64_t off;

	assert_non_null(buf);
	for (off = 0; off < tl->bytes; off += step) {
		size_t len = tl->bytes - off < step ? (size_t)(tl->bytes - off) :
						      step;

		assert_int_equal(eng_player_copy(p, buf + off, len, off),
				 (ssize_t)len);
	}
	assert_memory_equal(buf, want, tl->bytes);
	free(buf);
}

/* Regression (issue 17, defect 5): a stream kept every (clip, track) file
 * it played open, 40 here and thousands for a feature-length EDL, until
 * EMFILE failed its reads mid-play.  With max_files it keeps at most that
 * many, the least recently used closed first; the bytes stay exact and a
 * file played again after its close is opened again (a reopen). */
static void test_file_limit(void **state)
{
	static const int again[] = { 19, 0, 5, -1 };
	static const struct {
		unsigned max_files;
		int peak;		/* most fds open at once */
		long opens;
		long reopens;
	} cases[] = {
		/* no limit: every file stays open (the old behaviour) */
		{ 0, 40, 40, 0 },
		/* c19 plays on from its open files; c0 and c5 were closed */
		{ 4, 4, 44, 4 },
		{ 2, 2, 44, 4 },
		/* below the tracks of a frame: every frame reopens the file
		 * the other track closed, 2 opens for each of 46 frames */
		{ 1, 1, 92, 52 },
		{ 64, 40, 40, 0 },
	};
	struct eng_timeline *tl = many_clips_tl(20, again);
	unsigned char *want = expected_file(tl, NULL);
	size_t i;

	(void)state;
	assert_int_equal(tl->nclips * tl->ntracks, 40);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
							ENG_BACKING_BUFFERED,
							1500);
		struct eng_player *p;
		struct eng_player_stats st;
		size_t k;

		cfg.max_files = cases[i].max_files;
		p = new_player(tl, &cfg);
		read_all(p, tl, want, 1500);
		eng_player_stats(p, &st);
		assert_int_equal(f->open_peak, cases[i].peak);
		assert_int_equal(st.files_peak, (unsigned)cases[i].peak);
		assert_int_equal(st.files_open, (unsigned)f->open_now);
		assert_int_equal(f->opens, cases[i].opens);
		assert_int_equal(st.opens, (uint64_t)cases[i].opens);
		assert_int_equal(st.reopens, (uint64_t)cases[i].reopens);
		assert_int_equal(st.open_retries, 0);
		/* one pread per slice, none failed */
		assert_int_equal(st.failed_frames, 0);
		for (k = 0; k < f->log.n; k++)
			assert_int_equal(f->log.a[k].err, 0);
		eng_player_free(p);
		assert_int_equal(f->open_now, 0);
		assert_int_equal(f->closes, f->opens);
		fake_free(f);
	}
	free(want);
	eng_tl_free(tl);
}

/* EMFILE (the process's fds are shared by every stream): the stream closes
 * its least recently used files and tries again; when it has none left to
 * close, that read fails with EMFILE recorded and its reader gets EIO,
 * while the other streams play on.  The next frame tries again. */
static void test_file_emfile(void **state)
{
	struct eng_timeline *tl = many_clips_tl(20, NULL);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED, 1500);
	struct eng_player_config cfg_b;
	struct acc_log log_b = { calloc(MAX_LOG, sizeof(struct eng_access)),
				 0, 0 };
	struct eng_player *a, *b;
	struct eng_player_stats st;
	unsigned char buf[1096];
	size_t k;

	(void)state;
	assert_non_null(log_b.a);
	/* a limit of its own well above the process's */
	cfg.max_files = 64;
	f->open_limit = 3;
	a = new_player(tl, &cfg);
	read_all(a, tl, want, 1500);
	eng_player_stats(a, &st);
	assert_true(f->open_peak <= 3);
	assert_int_equal(st.files_peak, 3);
	assert_true(st.open_retries > 0);
	assert_int_equal(st.open_retries, f->emfiles);
	assert_int_equal(st.opens, 40);
	assert_int_equal(st.failed_frames, 0);
	for (k = 0; k < f->log.n; k++)
		assert_int_equal(f->log.a[k].err, 0);

	/* a holds all 3 fds: b has nothing of its own to close */
	cfg_b = cfg;
	cfg_b.record_ctx = &log_b;
	b = new_player(tl, &cfg_b);
	assert_int_equal(f->open_now, 3);
	assert_int_equal(eng_player_copy(b, buf, sizeof(buf), 0), -EIO);
	assert_int_equal(log_b.n, 2);
	assert_int_equal(log_b.a[0].err, EMFILE);
	assert_int_equal(log_b.a[1].err, EMFILE);
	eng_player_stats(b, &st);
	assert_int_equal(st.failed_frames, 1);
	assert_int_equal(st.open_retries, 0);
	/* only b's reader: a reads on, from its open files and new ones */
	f->log.n = 0;
	read_all(a, tl, want, 1500);
	eng_player_stats(a, &st);
	assert_int_equal(st.failed_frames, 0);
	/* a closes: b's next frame opens what it needs */
	eng_player_free(a);
	assert_int_equal(f->open_now, 0);
	assert_int_equal(eng_player_copy(b, buf, sizeof(buf), 1096),
			 (ssize_t)sizeof(buf));
	assert_memory_equal(buf, want + 1096, sizeof(buf));
	eng_player_free(b);
	assert_int_equal(f->open_now, 0);
	assert_int_equal(f->closes, f->opens - f->emfiles);
	free(log_b.a);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* -o stream_files by default: 64, less where the open file limit would
 * not hold 128 streams of 64 and the daemon's own 64, never below 8. */
static void test_files_default(void **state)
{
	static const struct {
		uint64_t nofile;
		unsigned files;
	} cases[] = {
		{ 0, 8 }, { 48, 8 }, { 1024, 8 }, { 2048, 15 },
		{ 8255, 63 }, { 8256, 64 }, { 20000, 64 }, { 1048576, 64 },
		{ UINT64_MAX, 64 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(eng_player_files_default(cases[i].nofile),
				 cases[i].files);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_limit),
		cmocka_unit_test(test_file_emfile),
		cmocka_unit_test(test_files_default),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
