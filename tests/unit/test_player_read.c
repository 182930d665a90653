/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player (fake clock, fake backing I/O: player_fake.h): a
 * request on the fake clock: the clock, seeks, gaps, reads out of order,
 * pacing, read errors, O_DIRECT (engine/play/player_read.c, player_load.c).
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
#include "play/evict.h"
#include "play/movie.h"
#include "play/player.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#include "player_fake.h"

/* Issue and due times are exact: period(k) = floor(k * den * 1e9 / num). */
static void test_clock_exact(void **state)
{
	static const struct {
		uint32_t num, den;
		uint64_t period[6];	/* period(k) for k = 0..5 */
		uint64_t lead;		/* period(buffer = 8) */
	} cases[] = {
		{ 30000, 1001,
		  { 0, 33366666, 66733333, 100100000, 133466666, 166833333 },
		  266933333 },
		{ 25, 1, { 0, 40 * MS, 80 * MS, 120 * MS, 160 * MS, 200 * MS },
		  320 * MS },
	};
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tl_spec sp = {
			cases[c].num, cases[c].den,
			{ { "V", 1000000, 1, 0 }, { "A1", 144000, 3, 44 } },
			{ { "V", "c0", 3, 0, 10 }, { "A1", "c0", 3, 0, 10 } },
		};
		struct eng_timeline *tl = make_tl(&sp);
		unsigned char *want = expected_file(tl, NULL);
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(
			f, 8, ENG_PACE_REALTIME, 0, ENG_BACKING_BUFFERED,
			1 << 20);
		struct eng_player *p = new_player(tl, &cfg);
		struct eng_player_stats st;
		int64_t k;

		f->latency = 1 * MS;
		for (k = 0; k < 6; k++)
			read_frame(p, tl, want, k);
		assert_int_equal(f->log.n, 12);
		for (k = 0; k < 6; k++) {
			const struct eng_access *v = &f->log.a[2 * k];
			const struct eng_access *a = &f->log.a[2 * k + 1];
			uint64_t sched = T0 + cases[c].period[k];

			assert_int_equal(v->frame, k);
			assert_int_equal(v->track, 0);
			assert_int_equal(a->frame, k);
			assert_int_equal(a->track, 1);
			assert_int_equal(v->sched_ns, sched);
			assert_int_equal(a->sched_ns, sched);
			assert_int_equal(v->due_ns, sched + cases[c].lead);
			assert_int_equal(a->due_ns, sched + cases[c].lead);
			/* slept until the issue time, then back to back */
			assert_int_equal(v->issued_ns, sched);
			assert_int_equal(v->done_ns, sched + 1 * MS);
			assert_int_equal(a->issued_ns, sched + 1 * MS);
			assert_int_equal(a->done_ns, sched + 2 * MS);
			assert_int_equal(v->err, 0);
		}
		/* frame 0 starts the clock; frames 1..5 wait for it */
		assert_int_equal(f->sleeps, 5);
		assert_int_equal(f->bad_sleeps, 0);
		eng_player_stats(p, &st);
		assert_int_equal(st.late_frames, 0);
		assert_int_equal(st.seeks, 0);
		assert_int_equal(st.frames, 6);
		assert_int_equal(st.worst_ns, 1 * MS);
		eng_player_free(p);
		fake_free(f);
		free(want);
		eng_tl_free(tl);
	}
}

/* Three tracks, gaps, an L-cut and an overwrite: the storage sees one
 * pread per non-gap slice whatever the reader's block size. */
static const struct tl_spec edit_spec = {
	30000, 1001,
	{ { "V", 299999, 1, 0 }, { "A1", 144000, 3, 44 },
	  { "A2", 144000, 3, 44 } },
	{
		{ "V", "cA", 10, 0, 40 },
		{ "V", "cB", 0, 50, 60 },	/* gap 40..50 */
		{ "A1", "cA", 10, 0, 45 },	/* L-cut: audio runs on */
		{ "A1", "cB", 5, 45, 65 },
		{ "A2", "cA", 10, 0, 40 },
		{ "A2", "cC", 100, 60, 30 },	/* gaps 40..60, 90..110 */
		{ "V", "cC", 0, 20, 5 },	/* overwrites cA */
	},
};

static void test_one_pread_per_slice(void **state)
{
	static const struct {
		size_t bs;
		enum eng_pace_mode pace;
	} cases[] = {
		{ 512, ENG_PACE_OFF },	 { 4096, ENG_PACE_OFF },
		{ 1 << 20, ENG_PACE_OFF }, { 777, ENG_PACE_OFF },
		{ 65537, ENG_PACE_OFF }, { 4096, ENG_PACE_REALTIME },
		{ 65537, ENG_PACE_REALTIME },
	};
	struct eng_timeline *tl = make_tl(&edit_spec);
	size_t nslices, c;
	unsigned char *want = expected_file(tl, &nslices);
	unsigned char *got = malloc(tl->bytes);

	(void)state;
	assert_non_null(got);
	assert_int_equal(tl->frames, 110);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(
			f, 8, cases[c].pace, 1, ENG_BACKING_BUFFERED,
			cases[c].bs);
		struct eng_player *p = new_player(tl, &cfg);
		struct eng_player_stats st;
		uint64_t off = 0;
		ssize_t r;
		size_t i;
		int64_t k;
		size_t t;

		memset(got, 0xa5, tl->bytes);
		while ((r = eng_player_copy(p, got + off, cases[c].bs, off)) > 0)
			off += (uint64_t)r;
		assert_int_equal(r, 0);
		assert_int_equal(off, tl->bytes);
		assert_memory_equal(got, want, tl->bytes);
		assert_int_equal(f->log.n, nslices);
		assert_int_equal(f->preads, nslices);
		/* in play order, each the slice the layout defines */
		i = 0;
		for (k = 0; k < tl->frames; k++)
			for (t = 0; t < tl->ntracks; t++) {
				struct eng_slice s;
				const struct eng_access *a;

				eng_slice_get(tl, k, t, &s);
				if (!s.seg || !s.len)
					continue;
				a = &f->log.a[i++];
				assert_int_equal(a->frame, k);
				assert_int_equal(a->track, t);
				assert_int_equal(a->clip, s.seg->clip);
				assert_int_equal(a->file_offset, s.file_off);
				assert_int_equal(a->length, s.len);
				assert_int_equal(a->err, 0);
			}
		eng_player_stats(p, &st);
		assert_int_equal(st.accesses, nslices);
		assert_int_equal(st.bytes, tl->bytes);
		assert_int_equal(st.frames, tl->frames);
		assert_int_equal(st.head, tl->frames);
		assert_int_equal(st.seeks, 0);
		if (cases[c].pace == ENG_PACE_OFF)
			assert_int_equal(f->sleeps, 0);
		assert_int_equal(f->bad_sleeps, 0);
		eng_player_free(p);
		/* every media fd closed, each file opened once */
		assert_int_equal(f->closes, f->opens);
		assert_int_equal(f->opens, 7);
		fake_free(f);
	}
	free(got);
	free(want);
	eng_tl_free(tl);
}

/* A frame is late when its last read completes after its due time. */
static void test_late_frames(void **state)
{
	static const struct {
		uint64_t latency;
		int64_t late;
		/* handed to the reader after due: a request of a reader
		 * behind schedule also loads the frames already due after
		 * it (up to buffer) before it is answered, so frames 0 and
		 * 1 too reach it late */
		int64_t reader_late;
	} cases[] = {
		{ 0, 0, 0 },
		{ 39 * MS, 0, 0 },	/* keeps up with 40 ms frames */
		{ 100 * MS, 18, 20 },	/* done 100(k+1) > due 40k+160 for k>1 */
		{ 161 * MS, 20, 20 },	/* over the 160 ms lead at once */
	};
	struct eng_timeline *tl = simple_tl(1000, 20);
	unsigned char *want = expected_file(tl, NULL);
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(
			f, 4, ENG_PACE_REALTIME, 1, ENG_BACKING_BUFFERED, 1000);
		struct eng_player *p = new_player(tl, &cfg);
		struct eng_player_stats st;
		int64_t k, late = 0;
		size_t i;

		f->latency = cases[c].latency;
		for (k = 0; k < tl->frames; k++)
			read_frame(p, tl, want, k);
		assert_int_equal(f->log.n, 20);
		for (i = 0; i < f->log.n; i++) {
			const struct eng_access *a = &f->log.a[i];

			late += a->done_ns > a->due_ns;
			/* never issued before its time */
			assert_true(a->issued_ns >= a->sched_ns);
		}
		eng_player_stats(p, &st);
		assert_int_equal(st.late_frames, cases[c].late);
		assert_int_equal(late, cases[c].late);
		/* a reader that keeps up is not late to itself */
		assert_int_equal(st.reader_late_frames, cases[c].reader_late);
		assert_int_equal(st.handed_frames, 20);
		check_played(f, p);
		assert_int_equal(st.worst_ns, cases[c].latency);
		assert_int_equal(st.frames, 20);
		eng_player_free(p);
		fake_free(f);
	}
	free(want);
	eng_tl_free(tl);
}

/*
 * A reader that asks for more frames at once than the lead: the request is
 * answered when its last frame has been read on the clock, so the frames
 * more than `buffer` before that one reach the reader after they were due,
 * though it keeps up and the storage is instant.  smbclient's 8 MiB reads
 * of SD frames (11.8 frames a read, buffer 8) make 19 of a 60-frame
 * timeline's frames late to it this way, as measured over SMB.
 */
static void test_reader_late_by_request_size(void **state)
{
	struct eng_timeline *tl = simple_tl(1000, 20);
	unsigned char *want = expected_file(tl, NULL);
	unsigned char *buf = malloc(tl->bytes);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_REALTIME, 1,
						ENG_BACKING_BUFFERED, 12000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;

	(void)state;
	assert_non_null(buf);
	/* frames 0..11, answered once frame 11 is read: 0..6 are more than
	 * 4 frames before it */
	assert_int_equal(eng_player_copy(p, buf, 12000, 0), 12000);
	/* frames 12..19, answered with frame 19: 12..14 */
	assert_int_equal(eng_player_copy(p, buf + 12000, 8000, 12000), 8000);
	assert_memory_equal(buf, want, tl->bytes);
	eng_player_stats(p, &st);
	assert_int_equal(st.late_frames, 0);
	assert_int_equal(st.handed_frames, 20);
	assert_int_equal(st.reader_late_frames, 7 + 3);
	eng_player_free(p);
	fake_free(f);
	free(buf);
	free(want);
	eng_tl_free(tl);
}

/* One slow read makes the following frames late but moves no schedule. */
static void test_clock_anchored(void **state)
{
	struct eng_timeline *tl = simple_tl(1000, 30);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_REALTIME, 1,
						ENG_BACKING_BUFFERED, 1000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;
	int64_t k;

	(void)state;
	f->slow_read = 2;	/* frame 2: done at 80 + 500 ms */
	f->slow_ns = 500 * MS;
	for (k = 0; k < tl->frames; k++)
		read_frame(p, tl, want, k);
	assert_int_equal(f->log.n, 30);
	for (k = 0; k < tl->frames; k++) {
		const struct eng_access *a = &f->log.a[k];

		assert_int_equal(a->frame, k);
		assert_int_equal(a->sched_ns, T0 + (uint64_t)k * 40 * MS);
		assert_int_equal(a->due_ns, T0 + (uint64_t)(k + 4) * 40 * MS);
		if (k > 2 && k <= 14)	/* behind: issued as soon as possible */
			assert_int_equal(a->issued_ns, T0 + 580 * MS);
		else			/* on time */
			assert_int_equal(a->issued_ns, a->sched_ns);
	}
	eng_player_stats(p, &st);
	/* 2 (due 240) .. 10 (due 560) miss 580 ms; 11 (due 600) makes it */
	assert_int_equal(st.late_frames, 9);
	assert_int_equal(st.worst_ns, 500 * MS);
	assert_int_equal(st.seeks, 0);
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* A read far from the play head re-anchors the clock there; what is still
 * in the ring costs no read. */
static void test_seek(void **state)
{
	/* 1000 B frames, max_request 4000: 10 slots, seek gap 16 frames */
	struct eng_timeline *tl = simple_tl(1000, 200);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_REALTIME, 1,
						ENG_BACKING_BUFFERED, 4000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;
	uint64_t t1, t2;
	int64_t k;

	(void)state;
	read_frame(p, tl, want, 0);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 0);	/* the first anchoring is no seek */
	assert_int_equal(f->log.a[0].sched_ns, T0);

	f->now += 10000 * MS;		/* the reader paused */
	t1 = f->now;
	read_frame(p, tl, want, 100);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 1);
	assert_int_equal(f->log.n, 2);
	assert_int_equal(f->log.a[1].frame, 100);
	assert_int_equal(f->log.a[1].sched_ns, t1);
	assert_int_equal(f->log.a[1].due_ns, t1 + 160 * MS);

	read_frame(p, tl, want, 101);
	assert_int_equal(f->log.n, 3);
	assert_int_equal(f->log.a[2].sched_ns, t1 + 40 * MS);
	assert_int_equal(f->log.a[2].issued_ns, t1 + 40 * MS);

	read_frame(p, tl, want, 100);	/* in the ring */
	assert_int_equal(f->log.n, 3);

	/* a short jump ahead plays the frames in between */
	read_frame(p, tl, want, 105);
	assert_int_equal(f->log.n, 7);
	for (k = 102; k <= 105; k++)
		assert_int_equal(f->log.a[3 + k - 102].sched_ns,
				 t1 + (uint64_t)(k - 100) * 40 * MS);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 1);
	assert_int_equal(st.head, 106);

	/* backwards past the ring */
	t2 = f->now;
	read_frame(p, tl, want, 50);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 2);
	assert_int_equal(f->log.a[7].frame, 50);
	assert_int_equal(f->log.a[7].sched_ns, t2);

	/* play 51..62 (10 slots hold 53..62), then 51 has been evicted */
	for (k = 51; k <= 62; k++)
		read_frame(p, tl, want, k);
	assert_int_equal(f->log.n, 20);
	read_frame(p, tl, want, 60);	/* still there */
	assert_int_equal(f->log.n, 20);
	/* 51 is 2 frames behind the ring: read again, on the same clock,
	 * not a seek and not played twice */
	eng_player_stats(p, &st);
	k = st.frames;
	read_frame(p, tl, want, 51);
	/* 51, and 52..55 (buffer 4) that are already due */
	assert_int_equal(f->log.n, 25);
	assert_int_equal(f->log.a[20].frame, 51);
	assert_int_equal(f->log.a[20].sched_ns, t2 + 40 * MS);
	assert_int_equal(f->log.a[24].frame, 55);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 2);
	assert_int_equal(st.frames, k);
	assert_int_equal(st.head, 63);
	/* far behind the ring (more than the seek gap of 16): a seek */
	read_frame(p, tl, want, 20);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 3);
	assert_int_equal(st.frames, k + 1);
	assert_int_equal(f->bad_sleeps, 0);
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* A reader that skips frames holding nothing but gaps plays on: a movie
 * player reads a video gap as the header's black picture, so it never
 * asks for the gap's zero slices of NAME and its next read of NAME is the
 * frame after the gap.  Regression (issue 20, found with ffmpeg and mpv
 * on a hand-written movie, 20 frames cut, 20 of gap, 20 cut): that jump was
 * a seek, the clock re-anchored at frame 40, so the stream played 20
 * frames short in 1.41 s of its 2.0 s with 1 seek and 44 frames; dd of
 * NAME counts 60 frames and no seek.  The gap frames now play (no read,
 * counted), frame 40 is issued at its time on the first clock.  A jump
 * past a frame that holds bytes is still a seek. */
static void test_gap_skip(void **state)
{
	/* 1000 B frames at 25 fps, max_request 4000: seek gap 16 frames */
	struct tl_spec sp = {
		25, 1, { { "V", 25000, 1, 0 } },
		{ { "V", "c0", 0, 0, 20 }, { "V", "c0", 20, 40, 20 },
		  { "V", "c0", 40, 100, 20 } },
	};
	struct eng_timeline *tl = make_tl(&sp);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_REALTIME, 1,
						ENG_BACKING_BUFFERED, 4000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;
	int64_t k;

	(void)state;
	for (k = 0; k < 20; k++)
		read_frame(p, tl, want, k);
	read_frame(p, tl, want, 40);	/* the gap 20..39 skipped */
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 0);
	assert_int_equal(st.frames, 41);
	assert_int_equal(f->log.a[20].frame, 40);
	assert_int_equal(f->log.a[20].sched_ns, T0 + 40 * 40 * MS);
	for (k = 41; k < 60; k++)
		read_frame(p, tl, want, k);
	/* 60..99 is a gap too, but the jump from 59 skips frames 100..119
	 * that hold bytes: a seek */
	read_frame(p, tl, want, 119);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 1);
	assert_int_equal(f->bad_sleeps, 0);
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* Cached mode under load: readahead requests for one stream are served
 * out of order, so one may ask for frames the ring has already evicted.
 * Those are read again without moving the clock, and every frame counts
 * as played once: frames == timeline frames, no seek, no extra late. */
static void test_out_of_order(void **state)
{
	/* 1000 B frames, max_request 4000: 10 slots, seek gap 16 frames */
	struct eng_timeline *tl = simple_tl(1000, 60);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED, 4000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;
	/* requests of 4 frames; each pair swapped, and every third block
	 * arrives after the two blocks that follow it */
	static const int64_t order[] = { 0, 8, 4, 12, 20, 16, 24, 36, 28, 32,
					 44, 40, 48, 56, 52 };
	size_t i, reads = 0;
	int64_t k;

	(void)state;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		unsigned char buf[4000];
		uint64_t off = eng_frame_offset(tl, order[i]);

		assert_int_equal(eng_player_copy(p, buf, 4000, off), 4000);
		assert_memory_equal(buf, want + off, 4000);
	}
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 0);
	assert_int_equal(st.frames, 60);
	assert_int_equal(st.head, 60);
	assert_int_equal(st.late_frames, 0);
	/* re-reads are real I/O: recorded, with the one clock's schedule */
	for (k = 0; k < (int64_t)f->log.n; k++) {
		assert_int_equal(f->log.a[k].sched_ns,
				 T0 + (uint64_t)f->log.a[k].frame * 40 * MS);
		reads++;
	}
	assert_true(reads > 60);
	assert_int_equal(st.accesses, (int64_t)reads);
	/* one track: every read past the 60 frames is a frame loaded again */
	assert_int_equal(st.reloads, (int64_t)reads - 60);
	assert_int_equal(st.requests, 15);
	check_played(f, p);
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* A mount whose requests are smaller than its readahead window (512 KiB
 * requests under 1 MiB of readahead at the stock pipe-max-size): each
 * window is two requests, the next window's are in flight with them, and
 * a window's second request can come after the next window's two.  The
 * ring holds two windows: every frame read once, no reload.  Sized by
 * the request alone (readahead 0), the ring had let those frames go:
 * read again, counted as reloads (test_edl_otio's access rows on a stock
 * host). */
static void test_readahead_window(void **state)
{
	/* 1000 B frames, requests of 4 frames, windows of 8: frame 4 is
	 * asked for after frames 8-15, 12 frames behind the play head */
	static const int64_t order[] = { 0, 8, 12, 4, 16, 24, 28, 20, 32, 40,
					 44, 36, 48, 56, 52 };
	int c;

	(void)state;
	for (c = 0; c < 2; c++) {
		struct eng_timeline *tl = simple_tl(1000, 60);
		unsigned char *want = expected_file(tl, NULL);
		struct fake *f = fake_new();
		struct eng_player_config cfg =
			make_cfg(f, 4, ENG_PACE_OFF, 1, ENG_BACKING_BUFFERED,
				 4000);
		struct eng_player *p;
		struct eng_player_stats st;
		size_t i;

		cfg.readahead = c == 0 ? 8000 : 0;
		p = new_player(tl, &cfg);
		for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			unsigned char buf[4000];
			uint64_t off = eng_frame_offset(tl, order[i]);

			assert_int_equal(eng_player_copy(p, buf, 4000, off),
					 4000);
			assert_memory_equal(buf, want + off, 4000);
		}
		eng_player_stats(p, &st);
		assert_int_equal(st.seeks, 0);
		assert_int_equal(st.frames, 60);
		if (c == 0) {
			assert_true(eng_player_slots(p) >= 18);
			assert_int_equal(st.reloads, 0);
			assert_int_equal(f->log.n, 60);
		} else {
			assert_true(st.reloads > 0);
		}
		eng_player_free(p);
		fake_free(f);
		free(want);
		eng_tl_free(tl);
	}
}

/*
 * A reader going backwards, a request at a time (tac, a reverse pread
 * loop): every request is before the frame the clock was anchored at, so
 * it is a seek that plays its frames on a fresh clock.  Regression: such
 * requests were within the seek gap of the ring and taken for re-reads;
 * the stream counted 1 frame played and the rest as reloads, and their
 * reads, due on the first clock, were issued at once (no pacing).
 */
static void test_backwards(void **state)
{
	/* 1000 B frames, max_request 4000: seek gap 16 frames */
	struct eng_timeline *tl = simple_tl(1000, 60);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_REALTIME, 1,
						ENG_BACKING_BUFFERED, 4000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;
	unsigned char buf[4000];
	uint64_t t;
	int64_t a, k;
	size_t n;

	(void)state;
	for (a = 56; a >= 0; a -= 4) {
		uint64_t off = eng_frame_offset(tl, a);

		t = f->now;
		n = f->log.n;
		assert_int_equal(eng_player_copy(p, buf, 4000, off), 4000);
		assert_memory_equal(buf, want + off, 4000);
		/* the request's 4 frames, paced from the seek on */
		assert_int_equal(f->log.n, n + 4);
		for (k = 0; k < 4; k++) {
			assert_int_equal(f->log.a[n + k].frame, a + k);
			assert_int_equal(f->log.a[n + k].sched_ns,
					 t + (uint64_t)k * 40 * MS);
		}
	}
	eng_player_stats(p, &st);
	assert_int_equal(st.frames, 60);
	assert_int_equal(st.reloads, 0);
	assert_int_equal(st.seeks, 14);
	assert_int_equal(st.late_frames, 0);
	assert_int_equal(st.accesses, 60);
	assert_int_equal(f->bad_sleeps, 0);

	/* then forward again from 0: frames 4..11 were played, on the
	 * clocks before: read again, they are reloads */
	for (a = 4; a < 12; a += 4)
		assert_int_equal(eng_player_copy(p, buf, 4000,
						 eng_frame_offset(tl, a)),
				 4000);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 14);
	assert_int_equal(st.frames, 60);
	assert_int_equal(st.reloads, 8);
	/* a jump back to frames played long ago, as a loop does, plays
	 * them again */
	assert_int_equal(eng_player_copy(p, buf, 4000,
					 eng_frame_offset(tl, 40)), 4000);
	assert_int_equal(eng_player_copy(p, buf, 4000,
					 eng_frame_offset(tl, 0)), 4000);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 16);
	assert_int_equal(st.frames, 68);
	assert_int_equal(st.reloads, 8);
	eng_player_free(p);

	/* Two requests of one backwards step served out of order (the
	 * later frames first), as concurrent kernel requests can be: still
	 * every frame played once */
	p = new_player(tl, &cfg);
	n = f->log.n;
	for (a = 52; a >= 4; a -= 8) {
		assert_int_equal(eng_player_copy(p, buf, 4000,
						 eng_frame_offset(tl, a)),
				 4000);
		assert_int_equal(eng_player_copy(p, buf, 4000,
						 eng_frame_offset(tl, a - 4)),
				 4000);
	}
	eng_player_stats(p, &st);
	assert_int_equal(st.frames, 56);	/* 0..55 */
	assert_int_equal(st.reloads, 0);
	assert_int_equal(f->log.n - n, 56);
	eng_player_free(p);

	/* Requests that overlap by a frame, as the kernel's do: 4000 bytes
	 * from the middle of frame a cover a..a+4, and the next request
	 * back ends in the frame the one before began with.  That frame is
	 * read again (the seek restarts the ring) but was played already:
	 * a reload.  Every frame is played once. */
	p = new_player(tl, &cfg);
	n = f->log.n;
	for (a = 52; a >= 0; a -= 4) {
		uint64_t off = eng_frame_offset(tl, a) + 500;

		assert_int_equal(eng_player_copy(p, buf, 4000, off), 4000);
		assert_memory_equal(buf, want + off, 4000);
	}
	eng_player_stats(p, &st);
	assert_int_equal(st.frames, 57);	/* 0..56 */
	assert_int_equal(st.seeks, 13);
	assert_int_equal(st.reloads, 13);
	assert_int_equal(st.accesses, 70);
	assert_int_equal(f->log.n - n, 70);
	assert_int_equal(st.late_frames, 0);
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/*
 * Frames of 0 bytes (a track slower than one sample unit a frame) bound
 * the ring by the rate, and by the timeline, not by the smallest frame.
 * Regression: a ring of max_request / 1 frames, 2 M slots of 1000 bytes
 * (2 GB of RSS) for each open of such a timeline.
 */
static void test_empty_frames(void **state)
{
	/* 100 bytes/s at 25 fps in units of 1000: frame 250 holds the
	 * track's only 1000 bytes, every other frame none */
	struct tl_spec sp = {
		25, 1, { { "V", 100, 1000, 0 } },
		{ { "V", "c0", 0, 0, 300 } },
	};
	struct eng_timeline *tl = make_tl(&sp);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 8, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED,
						1 << 20);
	struct eng_player *p;
	unsigned char buf[4096];

	(void)state;
	assert_int_equal(tl->bytes, 1000);
	assert_int_equal(tl->frame_bytes_min, 0);
	p = new_player(tl, &cfg);
	assert_true(eng_player_slots(p) <= 300 + 2 + 8);
	assert_int_equal(eng_player_copy(p, buf, sizeof(buf), 0), 1000);
	assert_memory_equal(buf, want, 1000);
	eng_player_free(p);
	eng_tl_free(tl);

	/* and with bytes in every frame, the smallest frame still rules: 1000
	 * B frames, max_request 4000 -> 8000 / 1000 + 2 slots */
	tl = simple_tl(1000, 60);
	cfg.max_request = 4000;
	p = new_player(tl, &cfg);
	assert_int_equal(eng_player_slots(p), 10);
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* The iovecs eng_player_read() should give for [off, off + len) of a
 * player of nslots slots: a frame joins the one before it in the ring
 * when that one fills its slot and did not end the ring; at most max, the
 * rest copied into the last. */
static int pieces_expected(const struct eng_timeline *tl, size_t nslots,
			   uint64_t off, size_t len, int max)
{
	int64_t f = eng_frame_at(tl, off), last = eng_frame_at(tl, off + len - 1);
	int n = 0, joins = 0;

	for (; f <= last; f++) {
		if (eng_frame_size(tl, f) == 0)
			continue;
		if (n && joins && f % (int64_t)nslots != 0)
			;	/* contiguous with the piece before */
		else
			n++;
		joins = eng_frame_size(tl, f) == tl->frame_bytes_max;
	}
	return n < max ? n : max;
}

/*
 * Frames small and of varying sizes: a request spans more frames than the
 * caller's reply takes pieces (cfg.max_pieces).  Regression for issue 17
 * defect 1: 800-byte audio frames, a 1 MiB request of 1310 frames and an
 * iovec limit of 1024 gave -E2BIG (the reader's dd failed), or at exactly
 * 1024 a reply the kernel refused unread.  Every request now fits in
 * max_pieces, bytes exact, the tail copied; without max_pieces the old
 * -E2BIG stays, and returns unlocked.
 */
static void test_small_frames(void **state)
{
	static const struct {
		const char *what;
		struct tl_spec sp;
		int64_t frames;
	} tls[] = {
		/* 266.1 units of 3 bytes a frame: 798 B, 801 B one in ten */
		{ "audio", { 30, 1, { { "A1", 23949, 3, 44 } },
			     { { "A1", "c0", 0, 0, 400 } } }, 400 },
		/* 1.001 bytes a frame: 1 B, 2 B one in a thousand */
		{ "byte", { 30000, 1001, { { "V", 30, 1, 0 } },
			    { { "V", "c0", 5, 0, 20000 } } }, 20000 },
	};
	static const size_t sizes[] = { 512, 4096, 65535, 65536 };
	enum { MAXP = 16 };
	struct iovec iov[MAXP];
	size_t t, z;

	(void)state;
	for (t = 0; t < sizeof(tls) / sizeof(tls[0]); t++) {
		struct eng_timeline *tl = make_tl(&tls[t].sp);
		unsigned char *want = expected_file(tl, NULL);
		unsigned char *got = malloc(65536);
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(f, 8, ENG_PACE_OFF, 1,
							ENG_BACKING_BUFFERED,
							65536);
		struct eng_player *p;
		int spilled = 0, cnt, i;

		assert_non_null(got);
		assert_int_equal(tl->frames, tls[t].frames);
		assert_true(tl->frame_bytes_min < tl->frame_bytes_max);
		/* the limit is the player's to meet */
		cfg.max_pieces = MAXP;
		p = new_player(tl, &cfg);
		for (z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
			uint64_t off;

			/* a whole pass (a seek back to 0 first), from an odd
			 * offset so requests start inside frames */
			for (off = z; off < tl->bytes; off += sizes[z]) {
				size_t len = sizes[z], at = 0;
				ssize_t n;

				if (len > tl->bytes - off)
					len = (size_t)(tl->bytes - off);
				n = eng_player_read(p, off, sizes[z], iov, MAXP,
						    &cnt);
				assert_int_equal(n, (ssize_t)len);
				assert_int_equal(cnt, pieces_expected(tl,
						 eng_player_slots(p), off, len,
						 MAXP));
				for (i = 0; i < cnt; i++) {
					memcpy(got + at, iov[i].iov_base,
					       iov[i].iov_len);
					at += iov[i].iov_len;
				}
				eng_player_unlock(p);
				assert_int_equal(at, len);
				assert_memory_equal(got, want + off, len);
				if (pieces_expected(tl, eng_player_slots(p), off,
						    len, INT32_MAX) > MAXP)
					spilled++;
			}
		}
		/* the copy was needed, and taken */
		assert_true(spilled > 0);
		eng_player_free(p);

		/* no limit given, no spill: more pieces than iovmax is
		 * -E2BIG, with the locks released */
		cfg.max_pieces = 0;
		p = new_player(tl, &cfg);
		assert_int_equal(eng_player_read(p, 0, 65536, iov, MAXP, &cnt),
				 -E2BIG);
		assert_int_equal(eng_player_copy(p, got, 100, 0), 100);
		assert_memory_equal(got, want, 100);
		eng_player_free(p);
		fake_free(f);
		free(got);
		free(want);
		eng_tl_free(tl);
	}
}

/* pace=off never sleeps and still records the speed-1 schedule. */
static void test_pace_off(void **state)
{
	struct eng_timeline *tl = simple_tl(1000, 20);
	unsigned char *want = expected_file(tl, NULL);
	unsigned char *got = malloc(tl->bytes);
	struct fake *f = fake_new();
	/* the speed field is ignored for off */
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 7,
						ENG_BACKING_BUFFERED, 4000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;
	uint64_t off;
	int64_t k;

	(void)state;
	assert_non_null(got);
	f->latency = 1 * MS;
	for (off = 0; off < tl->bytes; off += 4000)
		assert_int_equal(eng_player_copy(p, got + off, 4000, off), 4000);
	assert_memory_equal(got, want, tl->bytes);
	assert_int_equal(f->sleeps, 0);
	assert_int_equal(f->log.n, 20);
	for (k = 0; k < 20; k++) {
		const struct eng_access *a = &f->log.a[k];

		assert_int_equal(a->sched_ns, T0 + (uint64_t)k * 40 * MS);
		assert_int_equal(a->due_ns, a->sched_ns + 160 * MS);
		assert_int_equal(a->issued_ns, T0 + (uint64_t)k * MS);
	}
	eng_player_stats(p, &st);
	assert_int_equal(st.late_frames, 0);
	eng_player_free(p);
	fake_free(f);
	free(got);
	free(want);
	eng_tl_free(tl);
}

/* pace=N divides every period by N, the lead included. */
static void test_pace_factor(void **state)
{
	static const struct {
		uint32_t num, den;
		double speed;
		uint64_t period[6];
		uint64_t lead;	/* buffer 4 */
	} cases[] = {
		{ 25, 1, 2, { 0, 20 * MS, 40 * MS, 60 * MS, 80 * MS, 100 * MS },
		  80 * MS },
		{ 25, 1, 0.5,
		  { 0, 80 * MS, 160 * MS, 240 * MS, 320 * MS, 400 * MS },
		  320 * MS },
		{ 25, 1, 1, { 0, 40 * MS, 80 * MS, 120 * MS, 160 * MS, 200 * MS },
		  160 * MS },
		{ 30000, 1001, 2,
		  { 0, 16683333, 33366666, 50050000, 66733333, 83416666 },
		  66733333 },
	};
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct tl_spec sp = {
			cases[c].num, cases[c].den, { { "V", 30000, 1, 0 } },
			{ { "V", "c0", 0, 0, 10 } },
		};
		struct eng_timeline *tl = make_tl(&sp);
		unsigned char *want = expected_file(tl, NULL);
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(
			f, 4, ENG_PACE_FACTOR, cases[c].speed,
			ENG_BACKING_BUFFERED, 4000);
		struct eng_player *p = new_player(tl, &cfg);
		int64_t k;

		for (k = 0; k < 6; k++)
			read_frame(p, tl, want, k);
		assert_int_equal(f->log.n, 6);
		for (k = 0; k < 6; k++) {
			const struct eng_access *a = &f->log.a[k];

			assert_int_equal(a->sched_ns, T0 + cases[c].period[k]);
			assert_int_equal(a->issued_ns, a->sched_ns);
			assert_int_equal(a->due_ns,
					 a->sched_ns + cases[c].lead);
		}
		assert_int_equal(f->sleeps, 5);
		eng_player_free(p);
		fake_free(f);
		free(want);
		eng_tl_free(tl);
	}
}

/* A failed or short read is an EIO for the frames it belongs to, recorded
 * in its access; the player goes on with the next frame. */
static void test_read_errors(void **state)
{
	struct eng_timeline *tl = simple_tl(1000, 20);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED, 3000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;
	unsigned char buf[3000];

	(void)state;
	f->fail_read = 3;
	f->fail_err = ENXIO;
	f->short_read = 5;
	read_frame(p, tl, want, 0);
	read_frame(p, tl, want, 1);
	read_frame(p, tl, want, 2);
	assert_int_equal(eng_player_copy(p, buf, 1000, 3000), -EIO);
	assert_int_equal(f->log.n, 4);
	assert_int_equal(f->log.a[3].frame, 3);
	assert_int_equal(f->log.a[3].err, ENXIO);
	eng_player_stats(p, &st);
	assert_int_equal(st.failed_frames, 1);

	read_frame(p, tl, want, 4);	/* the next frame works (unlocked too) */
	/* the failed frame stays failed, without another read */
	assert_int_equal(eng_player_copy(p, buf, 1000, 3000), -EIO);
	assert_int_equal(eng_player_copy(p, buf, 3000, 2000), -EIO);
	assert_int_equal(eng_player_copy(p, buf, 500, 3500), -EIO);
	assert_int_equal(f->log.n, 5);

	assert_int_equal(eng_player_copy(p, buf, 1000, 5000), -EIO);
	assert_int_equal(f->log.a[5].frame, 5);
	assert_int_equal(f->log.a[5].err, EIO);	/* short */
	read_frame(p, tl, want, 6);
	eng_player_stats(p, &st);
	assert_int_equal(st.failed_frames, 2);
	assert_int_equal(st.frames, 7);
	/* only served bytes count */
	assert_int_equal(st.bytes, 5000);
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* A clip file that cannot be opened fails its frames and is retried. */
static void test_open_error(void **state)
{
	struct tl_spec sp = {
		25, 1, { { "V", 25000, 1, 0 } },
		{ { "V", "cA", 0, 0, 2 }, { "V", "cB", 0, 2, 2 },
		  { "V", "cA", 2, 4, 2 } },
	};
	struct eng_timeline *tl = make_tl(&sp);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED, 1000);
	struct eng_player *p = new_player(tl, &cfg);
	struct eng_player_stats st;
	unsigned char buf[1000];

	(void)state;
	f->fail_open = "cB.V";
	read_frame(p, tl, want, 0);
	read_frame(p, tl, want, 1);
	assert_int_equal(eng_player_copy(p, buf, 1000, 2000), -EIO);
	assert_int_equal(eng_player_copy(p, buf, 1000, 3000), -EIO);
	assert_int_equal(f->log.n, 4);
	assert_int_equal(f->log.a[2].err, ENOENT);
	assert_int_equal(f->log.a[3].err, ENOENT);
	assert_int_equal(f->log.a[3].clip, 1);
	read_frame(p, tl, want, 4);
	assert_int_equal(f->opens, 3);	/* cA once, cB twice */
	eng_player_stats(p, &st);
	assert_int_equal(st.failed_frames, 2);
	eng_player_free(p);
	assert_int_equal(f->closes, 1);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* backing=direct on an O_DIRECT fd: aligned preads into an aligned bounce
 * buffer, logical offsets in the record, the right bytes out. */
static void test_direct(void **state)
{
	static const struct {
		int can_direct;
		enum eng_backing backing;
	} cases[] = {
		{ 1, ENG_BACKING_DIRECT },
		{ 0, ENG_BACKING_DIRECT },	/* refused: buffered */
		{ 1, ENG_BACKING_BUFFERED },
		{ 1, ENG_BACKING_DONTNEED },
	};
	struct tl_spec sp = {
		25, 1, { { "V", 250000, 1, 0 }, { "A1", 144000, 3, 44 } },
		{ { "V", "c0", 7, 0, 30 }, { "A1", "c0", 7, 0, 30 } },
	};
	struct eng_timeline *tl = make_tl(&sp);
	size_t nslices, c;
	unsigned char *want = expected_file(tl, &nslices);
	unsigned char *got = malloc(tl->bytes);

	(void)state;
	assert_non_null(got);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct fake *f = fake_new();
		struct eng_player_config cfg = make_cfg(
			f, 8, ENG_PACE_OFF, 1, cases[c].backing, 4096);
		struct eng_player *p = new_player(tl, &cfg);
		uint64_t off = 0;
		long unaligned_logical = 0, nd;
		ssize_t r;
		size_t i;

		f->can_direct = cases[c].can_direct;
		/* the files end exactly where the edit does, so the last
		 * aligned read runs into EOF */
		fake_file_get(f, "c0.V")->size = eng_upto(tl, 0, 37);
		fake_file_get(f, "c0.A1")->size = 44 + eng_upto(tl, 1, 37);
		memset(got, 0x5a, tl->bytes);
		while ((r = eng_player_copy(p, got + off, 4096, off)) > 0)
			off += (uint64_t)r;
		assert_int_equal(r, 0);
		assert_memory_equal(got, want, tl->bytes);
		assert_int_equal(f->log.n, nslices);
		assert_int_equal(f->preads, nslices);
		assert_int_equal(f->unaligned_direct, 0);
		for (i = 0; i < f->log.n; i++) {
			const struct eng_access *a = &f->log.a[i];
			const struct io_call *rd = &f->reads[i];
			struct eng_slice s;

			eng_slice_get(tl, a->frame, a->track, &s);
			assert_int_equal(a->file_offset, s.file_off);
			assert_int_equal(a->length, s.len);
			assert_int_equal(a->err, 0);
			unaligned_logical += s.file_off % 4096 != 0;
			if (cases[c].can_direct &&
			    cases[c].backing == ENG_BACKING_DIRECT) {
				assert_int_equal(rd->off % 4096, 0);
				assert_int_equal(rd->len % 4096, 0);
				assert_int_equal(rd->buf % 4096, 0);
				assert_true(rd->off <= s.file_off);
				assert_true(rd->off + rd->len >=
					    s.file_off + s.len);
				assert_true(rd->len < s.len + 8192);
			} else {
				assert_int_equal(rd->off, s.file_off);
				assert_int_equal(rd->len, s.len);
			}
		}
		assert_true(unaligned_logical > 0);	/* the case is real */
		/* dontneed after every buffered read unless plain buffered */
		if (cases[c].backing == ENG_BACKING_BUFFERED ||
		    (cases[c].can_direct &&
		     cases[c].backing == ENG_BACKING_DIRECT)) {
			assert_int_equal(f->dontneeds, 0);
		} else {
			assert_int_equal(f->dontneeds, f->preads);
			for (i = 0; i < (size_t)f->dontneeds; i++) {
				assert_int_equal(f->dn[i].fd, f->reads[i].fd);
				assert_int_equal(f->dn[i].off,
						 f->log.a[i].file_offset);
				assert_int_equal(f->dn[i].len,
						 f->log.a[i].length);
			}
		}
		nd = f->dontneeds;
		eng_player_free(p);
		assert_int_equal(f->closes, 2);
		/* and each file whole at close: readahead past the last
		 * read would stay cached */
		if (nd) {
			assert_int_equal(f->dontneeds, nd + 2);
			for (i = (size_t)nd; i < (size_t)f->dontneeds; i++) {
				assert_int_equal(f->dn[i].off, 0);
				assert_int_equal(f->dn[i].len, 0);
			}
		} else {
			assert_int_equal(f->dontneeds, 0);
		}
		fake_free(f);
	}
	free(got);
	free(want);
	eng_tl_free(tl);
}

/* The iovecs point into the ring, one per frame covered; bounds. */
/* A cached stream's answers name the page cache its reader has passed
 * (cfg.drop_passed), in the file's bytes: whole pages, from where the
 * last range ended, never within ENG_EVICT_KEEP of the request, in steps
 * of ENG_EVICT_STEP, never a movie's header (keep_head, its pages); no
 * range without drop_passed. */
static void test_drop_passed(void **state)
{
	struct eng_timeline *tl = simple_tl(1 << 20, 100);	/* 100 MiB */
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED, 1 << 20);
	struct iovec iov[8];
	const uint64_t mib = 1 << 20;
	int c;

	(void)state;
	for (c = 0; c < 3; c++) {
		struct eng_answer ans = { .iov = iov, .iovmax = 8 };
		struct eng_player *p;
		uint64_t off, at = 0, from = 0, len = 0;
		int drops = 0;

		cfg.drop_passed = c > 0;
		cfg.keep_head = c == 2 ? 12345 : 0;
		p = new_player(tl, &cfg);
		for (off = 0; off < tl->bytes; off += mib) {
			assert_int_equal(eng_player_serve(p, off, mib, &ans),
					 mib);
			assert_int_equal(ans.pipe, -1);
			eng_player_answered(p, &ans, 1);
			if (!ans.drop_len)
				continue;
			drops++;
			at = off;
			from = ans.drop_off;
			len = ans.drop_len;
		}
		assert_int_equal(drops, c ? 1 : 0);
		if (c == 1) {
			/* 64 MiB dropped once the reader is 8 past them */
			assert_int_equal(at, ENG_EVICT_STEP + ENG_EVICT_KEEP);
			assert_int_equal(from, 0);
			assert_int_equal(len, ENG_EVICT_STEP);
		} else if (c == 2) {
			/* from the header's last page on, a step later */
			assert_int_equal(at, 73 * mib);
			assert_int_equal(from, 16384);
			assert_int_equal(len, 65 * mib - 16384);
		}
		eng_player_free(p);
	}
	fake_free(f);
	eng_tl_free(tl);
}

static void test_read_api(void **state)
{
	struct eng_timeline *tl = simple_tl(1000, 40);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED, 4000);
	struct eng_player *p = new_player(tl, &cfg), *q = NULL;
	struct eng_player_stats st;
	struct iovec iov[8];
	unsigned char buf[4001];
	int cnt = -1, i;

	(void)state;
	/* invalid configurations */
	cfg.buffer = 0;
	assert_int_equal(eng_player_new(tl, &cfg, &q), -EINVAL);
	cfg.buffer = 4;
	cfg.max_request = 0;
	assert_int_equal(eng_player_new(tl, &cfg, &q), -EINVAL);
	cfg.max_request = 4000;
	cfg.pace = (struct eng_pace){ ENG_PACE_FACTOR, 0 };
	assert_int_equal(eng_player_new(tl, &cfg, &q), -EINVAL);
	cfg.pace.speed = NAN;
	assert_int_equal(eng_player_new(tl, &cfg, &q), -EINVAL);
	assert_null(q);

	/* frames of one size fill their slots: one iovec for three frames
	 * (more pieces, and the limit on them: test_small_frames) */
	assert_int_equal(eng_player_read(p, 500, 2500, iov, 8, &cnt), 2500);
	assert_int_equal(cnt, 1);
	assert_int_equal(iov[0].iov_len, 2500);
	assert_memory_equal(iov[0].iov_base, want + 500, 2500);
	eng_player_unlock(p);

	/* each of these returns unlocked: the next read would hang if not */
	assert_int_equal(eng_player_read(p, 0, 4001, iov, 8, &cnt), -E2BIG);
	assert_int_equal(eng_player_read(p, 0, 10, NULL, 8, &cnt), -EINVAL);
	assert_int_equal(eng_player_copy(p, buf, 4001, 0), -E2BIG);

	/* at or past the end: 0, locked */
	assert_int_equal(eng_player_read(p, tl->bytes, 100, iov, 8, &cnt), 0);
	assert_int_equal(cnt, 0);
	eng_player_unlock(p);
	assert_int_equal(eng_player_read(p, 0, 0, iov, 8, &cnt), 0);
	assert_int_equal(cnt, 0);
	eng_player_unlock(p);
	/* a read across the end is clamped */
	assert_int_equal(eng_player_copy(p, buf, 1000, tl->bytes - 100), 100);
	assert_memory_equal(buf, want + tl->bytes - 100, 100);

	eng_player_stats(p, &st);
	assert_int_equal(st.bytes, 2600);
	/* the two that served bytes, not the errors nor the ends of file */
	assert_int_equal(st.requests, 2);
	assert_int_equal(st.reloads, 0);
	assert_int_equal(st.seeks, 1);	/* the jump to the last frame */
	/* the ring answered the rereads: frames 0..2 and 39 only */
	assert_int_equal(f->log.n, 4);
	for (i = 0; i < 3; i++)
		assert_int_equal(f->log.a[i].frame, i);
	assert_int_equal(f->log.a[3].frame, 39);
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* Two streams of one timeline keep their own clocks and counts. */
static void test_two_players(void **state)
{
	struct eng_timeline *tl = simple_tl(1000, 20);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct acc_log log2 = { calloc(MAX_LOG, sizeof(struct eng_access)),
				0, 0 };
	struct eng_player_config c1 = make_cfg(f, 4, ENG_PACE_REALTIME, 1,
					       ENG_BACKING_BUFFERED, 1000);
	struct eng_player_config c2 = c1;
	struct eng_player *p1, *p2;
	struct eng_player_stats s1, s2;
	int64_t k;

	(void)state;
	assert_non_null(log2.a);
	c2.record_ctx = &log2;
	p1 = new_player(tl, &c1);
	p2 = new_player(tl, &c2);
	read_frame(p1, tl, want, 0);
	f->now += 1000 * MS;
	read_frame(p2, tl, want, 0);
	/* behind: loads 1..4 at once (4 slots, none of them evicting 1) */
	read_frame(p1, tl, want, 1);
	read_frame(p2, tl, want, 1);	/* on time: sleeps to 1040 ms */

	assert_int_equal(f->log.n, 5);
	for (k = 0; k < 5; k++) {
		assert_int_equal(f->log.a[k].frame, k);
		assert_int_equal(f->log.a[k].sched_ns,
				 T0 + (uint64_t)k * 40 * MS);
	}
	assert_int_equal(log2.n, 2);
	for (k = 0; k < 2; k++) {
		assert_int_equal(log2.a[k].sched_ns,
				 T0 + 1000 * MS + (uint64_t)k * 40 * MS);
		assert_int_equal(log2.a[k].issued_ns, log2.a[k].sched_ns);
	}
	eng_player_stats(p1, &s1);
	eng_player_stats(p2, &s2);
	assert_int_equal(s1.frames, 5);
	assert_int_equal(s1.late_frames, 4);
	assert_int_equal(s1.accesses, 5);
	assert_int_equal(s1.bytes, 2000);
	assert_int_equal(s2.frames, 2);
	assert_int_equal(s2.late_frames, 0);
	assert_int_equal(s2.accesses, 2);
	assert_int_equal(s2.bytes, 2000);
	assert_int_equal(s1.seeks + s2.seeks, 0);
	assert_int_equal(f->opens, 2);	/* each stream has its own fd */
	eng_player_free(p1);
	eng_player_free(p2);
	assert_int_equal(f->files[0].open, 0);
	free(log2.a);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

/* Readers on several threads share one player (FUSE readahead). */
struct reader_arg {
	struct eng_player *p;
	const struct eng_timeline *tl;
	const unsigned char *want;
	size_t bs;
	long mismatches;
};

static void *reader(void *arg)
{
	struct reader_arg *r = arg;
	unsigned char *buf = malloc(r->bs);
	uint64_t off;
	ssize_t n;

	if (!buf) {
		r->mismatches = -1;
		return NULL;
	}
	for (off = 0; off < r->tl->bytes; off += (uint64_t)n) {
		n = eng_player_copy(r->p, buf, r->bs, off);
		if (n <= 0 || memcmp(buf, r->want + off, (size_t)n) != 0) {
			r->mismatches++;
			break;
		}
	}
	free(buf);
	return NULL;
}

static void test_threads(void **state)
{
	struct eng_timeline *tl = make_tl(&edit_spec);
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg = make_cfg(f, 8, ENG_PACE_OFF, 1,
						ENG_BACKING_BUFFERED, 65536);
	struct eng_player *p = new_player(tl, &cfg);
	struct reader_arg args[4];
	pthread_t th[4];
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		args[i] = (struct reader_arg){ p, tl, want,
					       (size_t)(4096 + 8191 * i), 0 };
		assert_int_equal(pthread_create(&th[i], NULL, reader, &args[i]),
				 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(args[i].mismatches, 0);
	}
	eng_player_free(p);
	fake_free(f);
	free(want);
	eng_tl_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock_exact),
		cmocka_unit_test(test_one_pread_per_slice),
		cmocka_unit_test(test_late_frames),
		cmocka_unit_test(test_reader_late_by_request_size),
		cmocka_unit_test(test_clock_anchored),
		cmocka_unit_test(test_seek),
		cmocka_unit_test(test_gap_skip),
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_readahead_window),
		cmocka_unit_test(test_backwards),
		cmocka_unit_test(test_empty_frames),
		cmocka_unit_test(test_small_frames),
		cmocka_unit_test(test_pace_off),
		cmocka_unit_test(test_pace_factor),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_open_error),
		cmocka_unit_test(test_direct),
		cmocka_unit_test(test_read_api),
		cmocka_unit_test(test_drop_passed),
		cmocka_unit_test(test_two_players),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
