/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player (fake clock, fake backing I/O: player_fake.h):
 * the ring's plan and memory: a file server's window, the memory a player
 * takes and its check (engine/play/player.c).
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

/* Only smbd gets a window: a dd or a player keeps the ring it had. */
static void test_window_of(void **state)
{
	struct eng_timeline *tl = simple_tl(600, 300);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_REALTIME, 1,
						ENG_BACKING_BUFFERED, SMB_REQ);
	uint64_t plain, smb;

	(void)state;
	assert_int_equal(eng_player_window("smbd"), ENG_PLAYER_WINDOW_SMB);
	assert_int_equal(eng_player_window("dd"), 0);
	assert_int_equal(eng_player_window("smbd-notifyd"), 0);
	assert_int_equal(eng_player_window(NULL), 0);
	assert_int_equal(eng_player_mem(tl, &cfg, NULL, &plain), 0);
	cfg.window = 2 * SMB_CHUNK;
	assert_int_equal(eng_player_mem(tl, &cfg, NULL, &smb), 0);
	/* slots for 2 requests + 16384 bytes of 600-byte frames against
	 * 2 requests': ceil(18432 / 600) - ceil(2048 / 600) = 31 - 4 */
	assert_int_equal(smb - plain, 27);
	fake_free(f);
	eng_tl_free(tl);
}

/* A timeline of V at `video` bytes a second and two 48 kHz 24-bit audio
 * tracks at 29.97 fps, 100 frames of one clip. */
static struct eng_timeline *rate_tl(uint64_t video)
{
	struct tl_spec sp = {
		30000, 1001,
		{ { "V", video, 1, 0 }, { "A1", 144000, 3, 0 },
		  { "A2", 144000, 3, 0 } },
		{ { "V", "c", 0, 0, 100 }, { "A1", "c", 0, 0, 100 },
		  { "A2", "c", 0, 0, 100 } },
	};

	return make_tl(&sp);
}

/* eng_player_mem is what eng_player_new allocates: the ring (slots of the
 * largest frame), the bounce buffer for O_DIRECT, the zero-copy pipes,
 * little else; cfg.mem_max refuses a player past it with -EFBIG. */
static void test_mem(void **state)
{
	static const struct {
		enum eng_pace_mode mode;
		enum eng_backing backing;
		int filler, zero_copy;
		unsigned buffer;
		uint64_t slots;		/* frames_spanned(2 * 3000) = 8 */
	} cases[] = {
		{ ENG_PACE_OFF, ENG_BACKING_BUFFERED, 0, 0, 4, 8 },
		{ ENG_PACE_OFF, ENG_BACKING_BUFFERED, 0, 0, 20, 20 },
		{ ENG_PACE_REALTIME, ENG_BACKING_BUFFERED, 1, 0, 4, 12 },
		{ ENG_PACE_REALTIME, ENG_BACKING_DIRECT, 1, 0, 4, 12 },
		{ ENG_PACE_OFF, ENG_BACKING_BUFFERED, 1, 1, 4, 8 },
	};
	struct eng_timeline *tl = simple_tl(1000, 20);
	struct fake *f = fake_new();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_player_config cfg = make_cfg(f, cases[i].buffer,
							cases[i].mode, 1,
							cases[i].backing,
							3000);
		struct eng_player *p = NULL;
		uint64_t mem, slots, ring;

		cfg.filler = cases[i].filler;
		cfg.zero_copy = cases[i].zero_copy;
		assert_int_equal(eng_player_mem(tl, &cfg, &mem, &slots), 0);
		assert_int_equal(slots, cases[i].slots);
		ring = slots * tl->frame_bytes_max;
		assert_true(mem > ring);
		if (cases[i].backing == ENG_BACKING_DIRECT)
			/* the bounce buffer: the frame and 2 pages, aligned */
			assert_true(mem - ring > 3 * 4096);
		else if (cases[i].zero_copy)
			/* a pipe per slot, of whole pages */
			assert_true(mem - ring > slots * 4096);
		else
			/* the player, a byte and an iovec per slot, a fd */
			assert_true(mem - ring < 4096);
		/* exactly at the limit it is made, a byte over it is not */
		cfg.mem_max = mem;
		p = new_player(tl, &cfg);
		assert_int_equal(eng_player_slots(p), slots);
		eng_player_free(p);
		cfg.mem_max = mem - 1;
		assert_int_equal(eng_player_new(tl, &cfg, &p), -EFBIG);
		assert_null(p);
		cfg.buffer = 0;
		assert_int_equal(eng_player_mem(tl, &cfg, &mem, &slots),
				 -EINVAL);
	}
	/* frames_in_flight: a filled player's loaders take a bounce each
	 * and each slot its rows; a request-driven player keeps one */
	for (i = 0; i < 2; i++) {
		struct eng_player_config cfg = make_cfg(
			f, 4, i ? ENG_PACE_OFF : ENG_PACE_REALTIME, 1,
			ENG_BACKING_DIRECT, 3000);
		uint64_t one, four, slots;
		struct eng_player *p = NULL;

		cfg.filler = 1;
		assert_int_equal(eng_player_mem(tl, &cfg, &one, &slots), 0);
		cfg.frames_in_flight = 4;
		assert_int_equal(eng_player_mem(tl, &cfg, &four, &slots), 0);
		if (i)
			assert_int_equal(four, one);
		else	/* 3 more bounces of the 1000-byte frame + 2 pages */
			assert_true(four - one >= 3 * 3 * 4096);
		cfg.mem_max = four;
		p = new_player(tl, &cfg);
		eng_player_free(p);
		cfg.mem_max = 0;
		cfg.frames_in_flight = ENG_PLAYER_IN_FLIGHT_MAX + 1;
		assert_int_equal(eng_player_mem(tl, &cfg, &four, &slots),
				 -EINVAL);
		assert_int_equal(eng_player_new(tl, &cfg, &p), -EINVAL);
		assert_null(p);
	}
	fake_free(f);
	eng_tl_free(tl);
}

/* Regression (issue 17, defect 5): -o buffer=10000, or a typo such as
 * video_rate=18G, made every open allocate and touch gigabytes (its ring)
 * and ended in the OOM killer.  The mount's check names the timeline, the
 * bytes a stream needs, how, the limit and what to change.  The default
 * limit holds every timelinefs-gen --format preset at buffer=8, with room
 * to spare, and refuses those two. */
static void test_mem_check(void **state)
{
	static const struct {
		uint64_t video;
		unsigned buffer;
		enum eng_pace_mode mode;
		int rc;
		const char *say;	/* in the message */
	} cases[] = {
		/* the seed: 14 slots of 610212 bytes, 8.7 MiB */
		{ 18000000, 8, ENG_PACE_REALTIME, 0, NULL },
		{ 18000000, 8, ENG_PACE_OFF, 0, NULL },
		/* 10006 slots: 6106570910 bytes */
		{ 18000000, 10000, ENG_PACE_REALTIME, -EFBIG,
		  "a ring of 10006 frames of up to 595.9 KiB, buffer=10000" },
		{ 18000000, 10000, ENG_PACE_OFF, -EFBIG,
		  "a ring of 10000 frames" },
		/* frames of 600609612 bytes, 3 of a request and 8 */
		{ 18000000000ULL, 8, ENG_PACE_REALTIME, -EFBIG,
		  "a ring of 11 frames of up to 572.8 MiB, buffer=8" },
	};
	size_t i, n;
	const struct eng_gen_format *fm = eng_gen_formats(&n);

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_timeline *tl = rate_tl(cases[i].video);
		struct eng_player_config cfg = {
			.buffer = cases[i].buffer,
			.pace = { cases[i].mode, 1 },
			.backing = ENG_BACKING_DIRECT,
			.max_request = 1 << 20,
			.filler = 1,
		};
		struct eng_diag diag = { 0 };
		uint64_t mem, slots;
		char want[64];

		assert_int_equal(eng_player_mem(tl, &cfg, &mem, NULL), 0);
		assert_int_equal(eng_player_mem_check(tl, &cfg,
						      ENG_PLAYER_MEM_DEFAULT,
						      &diag), cases[i].rc);
		if (!cases[i].rc) {
			assert_int_equal(diag.n, 0);
			assert_true(mem < (16ULL << 20));
		} else {
			assert_int_equal(diag.n, 1);
			snprintf(want, sizeof(want), "needs %" PRIu64 " bytes",
				 mem);
			assert_non_null(strstr(diag.msgs[0], want));
			assert_non_null(strstr(diag.msgs[0], cases[i].say));
			assert_true(strncmp(diag.msgs[0], "t.tl: ", 6) == 0);
			assert_non_null(strstr(diag.msgs[0],
					       "more than stream_mem=268435456 "
					       "(256.0 MiB); raise -o "
					       "stream_mem"));
		}
		/* what fits a limit fits it exactly */
		eng_diag_free(&diag);
		assert_int_equal(eng_player_mem_check(tl, &cfg, mem, &diag), 0);
		assert_int_equal(eng_player_mem_check(tl, &cfg, mem - 1,
						      &diag), -EFBIG);
		/* and the figures counted once, compared with a limit */
		assert_int_equal(eng_player_mem(tl, &cfg, &mem, &slots), 0);
		assert_int_equal(eng_player_mem_fits(tl, &cfg, mem, slots,
						     mem, &diag), 0);
		assert_int_equal(eng_player_mem_fits(tl, &cfg, mem, slots,
						     mem - 1, &diag), -EFBIG);
		assert_int_equal(diag.n, 2);
		assert_string_equal(diag.msgs[0], diag.msgs[1]);
		eng_diag_free(&diag);
		eng_tl_free(tl);
	}
	/* the presets, paced and unpaced with zero copy: at most a third of
	 * the default (the largest, v210-1080p, is 63.5 and 42.6 MiB) */
	for (i = 0; i < n; i++) {
		struct tl_spec sp = {
			fm[i].fps.num, fm[i].fps.den,
			{ { "V", fm[i].video_rate, 1, 0 },
			  { "A1", fm[i].audio_rate, 3, 0 },
			  { "A2", fm[i].audio_rate, 3, 0 },
			  { "A3", fm[i].audio_rate, 3, 0 } },
			{ { "V", "c", 0, 0, 10 }, { "A1", "c", 0, 0, 10 } },
		};
		struct eng_timeline *tl = make_tl(&sp);
		struct eng_player_config cfg = {
			.buffer = 8,
			.pace = { ENG_PACE_REALTIME, 1 },
			.backing = ENG_BACKING_DIRECT,
			.max_request = 1 << 20,
			.filler = 1,
		};
		uint64_t paced, unpaced;

		assert_int_equal(eng_player_mem(tl, &cfg, &paced, NULL), 0);
		cfg.pace.mode = ENG_PACE_OFF;
		cfg.backing = ENG_BACKING_BUFFERED;
		cfg.zero_copy = 1;
		assert_int_equal(eng_player_mem(tl, &cfg, &unpaced, NULL), 0);
		assert_true(paced <= ENG_PLAYER_MEM_DEFAULT / 3);
		assert_true(unpaced <= ENG_PLAYER_MEM_DEFAULT / 3);
		eng_tl_free(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_of),
		cmocka_unit_test(test_mem),
		cmocka_unit_test(test_mem_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
