/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player (fake clock, fake backing I/O: player_fake.h): a
 * clip still being recorded (a growing file): reads that wait for its bytes
 * (engine/play/player_load.c).
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

/* cfg.growing: grow_name until grow_end */
static int fake_growing(void *ctx, const char *file)
{
	struct fake *f = ctx;

	return f->grow_name && strcmp(file, f->grow_name) == 0 &&
	       f->now < f->grow_end;
}

/* The fake of a clip being recorded: file `name`, frame k of `bytes`
 * landing at T0 + lag_ns + k * 40 ms (a negative lag: before the player
 * starts), recorded until T0 + end_ns; cfg.growing and io->size. */
static void growing_setup(struct fake *f, struct eng_player_config *cfg,
			  const char *name, int64_t lag_ns, uint64_t bytes,
			  uint64_t end_ns)
{
	f->grow_name = name;
	f->grow_t0 = (uint64_t)((int64_t)T0 + lag_ns);
	f->grow_period = 40 * MS;
	f->grow_bytes = bytes;
	f->grow_end = T0 + end_ns;
	f->io.size = fake_size;
	cfg->growing = fake_growing;
	cfg->growing_ctx = f;
}

/*
 * Edit while ingest (issue 23): a paced read of a clip still being
 * recorded that comes short waits for the frame, one await row (issued
 * when the read came short, done when the bytes landed, polled every
 * quarter frame: 10 ms at 25 fps) and then the read's row; the frame is
 * late only when its bytes landed after due.  A recording that closes
 * short ends the wait (await ENODATA) and its frames fail (EIO) as a short
 * clip's; once closed a short read is not waited for.  Before the player
 * waited, every short read failed at once: 0 awaits, each frame failed.
 */
static void test_growing_await(void **state)
{
	static const struct {
		int64_t lag_ms;		/* frame k lands at sched(k) + lag */
		unsigned buffer;
		uint64_t end_ms;	/* the recording closes */
		int awaited;		/* frames waited for */
		int late, failed;
		int gave_up;		/* the frame whose await ENODATA, -1 */
	} cases[] = {
		{ -200, 3, 10000, 0, 0, 0, -1 },	/* ahead of the edit */
		{ 100, 3, 10000, 10, 0, 0, -1 },	/* landed before due */
		{ 100, 2, 10000, 10, 10, 0, -1 },	/* after due: late */
		{ 100, 3, 301, 7, 0, 4, 6 },		/* closed after 0..5 */
	};
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct eng_timeline *tl = simple_tl(1000, 10);
		unsigned char *want = expected_file(tl, NULL);
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(
			f, cases[c].buffer, ENG_PACE_REALTIME, 1,
			ENG_BACKING_BUFFERED, 1 << 20);
		struct eng_player *p;
		struct eng_player_stats st;
		unsigned char buf[1000];
		int awaited = 0;
		size_t i = 0;
		int64_t k;

		growing_setup(f, &cfg, "c0.V", cases[c].lag_ms * (int64_t)MS,
			      1000, cases[c].end_ms * MS);
		p = new_player(tl, &cfg);
		for (k = 0; k < 10; k++) {
			uint64_t sched = T0 + (uint64_t)k * 40 * MS;
			uint64_t lands = (uint64_t)((int64_t)sched +
						    cases[c].lag_ms *
						    (int64_t)MS);
			int fails = cases[c].gave_up >= 0 &&
				    k >= cases[c].gave_up;
			const struct eng_access *a;

			if (fails)
				assert_int_equal(eng_player_copy(p, buf, 1000,
								 (uint64_t)k *
								 1000),
						 -EIO);
			else
				read_frame(p, tl, want, k);
			assert_true(i < f->log.n);
			a = &f->log.a[i++];
			assert_int_equal(a->frame, k);
			assert_int_equal(a->sched_ns, sched);
			if (a->op == ENG_OP_AWAIT) {
				awaited++;
				assert_int_equal(a->file_offset, k * 1000);
				assert_int_equal(a->length, 1000);
				assert_true(a->issued_ns >= sched);
				if (k == cases[c].gave_up) {
					/* noticed at the next step */
					assert_int_equal(a->err, ENODATA);
					assert_int_equal(a->done_ns,
							 a->issued_ns +
							 10 * MS);
				} else {
					assert_int_equal(a->err, 0);
					assert_int_equal(a->done_ns, lands);
				}
				assert_true(i < f->log.n);
				a = &f->log.a[i++];
				assert_int_equal(a->frame, k);
				assert_true(a->issued_ns >= lands ||
					    k == cases[c].gave_up);
			}
			assert_int_equal(a->op, ENG_OP_READ);
			assert_int_equal(a->err, fails ? EIO : 0);
			assert_int_equal(a->done_ns > a->due_ns,
					 !fails && cases[c].late);
		}
		assert_int_equal(i, f->log.n);
		assert_int_equal(awaited, cases[c].awaited);
		assert_int_equal(f->bad_sleeps, 0);
		eng_player_stats(p, &st);
		assert_int_equal(st.frames, 10);
		assert_int_equal(st.late_frames, cases[c].late);
		assert_int_equal(st.failed_frames, cases[c].failed);
		/* an await is no backing read */
		assert_int_equal(st.accesses, 10);
		check_played(f, p);
		eng_player_free(p);
		fake_free(f);
		free(want);
		eng_tl_free(tl);
	}
}

/* A short read of a file that is not being recorded fails at once, as a
 * short clip's (no cfg.growing; cfg.growing saying no; no io->size to see
 * the file grow): no await row, no wait. */
static void test_growing_not_recorded(void **state)
{
	int c;

	(void)state;
	for (c = 0; c < 3; c++) {
		struct eng_timeline *tl = simple_tl(1000, 10);
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(
			f, 3, ENG_PACE_OFF, 1, ENG_BACKING_BUFFERED, 1 << 20);
		struct eng_player *p;
		unsigned char buf[1000];

		growing_setup(f, &cfg, "c0.V", 100 * (int64_t)MS, 1000,
			      10000 * MS);
		if (c == 0)
			cfg.growing = NULL;
		else if (c == 1)
			f->grow_end = T0;	/* closed */
		else
			f->io.size = NULL;
		p = new_player(tl, &cfg);
		assert_int_equal(eng_player_copy(p, buf, 1000, 0), -EIO);
		assert_int_equal(f->log.n, 1);
		assert_int_equal(f->log.a[0].op, ENG_OP_READ);
		assert_int_equal(f->log.a[0].err, EIO);
		assert_int_equal(f->sleeps, 0);
		eng_player_free(p);
		fake_free(f);
		eng_tl_free(tl);
	}
}

/* Zero copy (pace=off): a read that came short left part of the slice in
 * the pipe; after the wait the rest is spliced in behind it, and the
 * reader gets the file's bytes.  A recorder's frame of 150000 bytes
 * against the edit's 200000 makes reads that come back part full. */
static void test_growing_zc(void **state)
{
	struct eng_timeline *tl = simple_tl(200000, 10);
	unsigned char *want = expected_file(tl, NULL);
	unsigned char *got = calloc(1, tl->bytes);
	struct fake *f = fake_new();
	struct eng_player_config cfg;
	struct eng_player *p;
	struct eng_player_stats st;
	size_t i, awaits = 0, parts = 0;

	(void)state;
	assert_non_null(got);
	fake_zero_copy(f);
	cfg = zc_cfg(f);
	growing_setup(f, &cfg, "c0.V", 100 * (int64_t)MS, 150000,
		      10000 * MS);
	p = new_player(tl, &cfg);
	zc_read_rest(f, p, tl, got, 0, 1 << 20);
	assert_memory_equal(got, want, tl->bytes);
	for (i = 0; i < f->log.n; i++) {
		const struct eng_access *a = &f->log.a[i];

		if (a->op != ENG_OP_AWAIT)
			continue;
		awaits++;
		assert_int_equal(a->err, 0);
		assert_true(i + 1 < f->log.n);
		assert_int_equal(f->log.a[i + 1].op, ENG_OP_READ);
		assert_int_equal(f->log.a[i + 1].err, 0);
		/* frame k lands whole with the recorder's frame that ends
		 * past it */
		assert_int_equal(a->done_ns,
				 T0 + 100 * MS +
				 ((a->frame + 1) * 200000 - 1) / 150000 *
				 40 * MS);
	}
	/* every frame waited; a splice of part of it first for those whose
	 * start had landed */
	assert_int_equal(awaits, 10);
	for (i = 0; i < (size_t)f->preads && i < MAX_LOG; i++)
		parts += f->reads[i].len < 200000;
	assert_true(parts > 0);
	eng_player_stats(p, &st);
	assert_int_equal(st.failed_frames, 0);
	/* nothing left in the scratch and reply pipes (the last two) */
	assert_true(f->npipes > 2);
	for (i = (size_t)f->npipes - 2; i < (size_t)f->npipes; i++)
		assert_int_equal(f->pipes[i].len, 0);
	eng_player_free(p);
	fake_free(f);
	free(got);
	free(want);
	eng_tl_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_growing_await),
		cmocka_unit_test(test_growing_not_recorded),
		cmocka_unit_test(test_growing_zc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
