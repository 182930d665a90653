/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player (fake clock, fake backing I/O: player_fake.h):
 * replies from the clips' files (engine/play/player_fdr.c): the bytes
 * the pieces name, the access rows timed by the replies, the frames late
 * by them, and what is recorded of a frame the reader did not take
 * whole.
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

#include "io/io.h"
#include "play/player.h"
#include "timeline/layout.h"
#include "timeline/model.h"

#include "player_fake.h"

struct fx {
	struct eng_timeline *tl;
	unsigned char *want, *got;
	size_t nslices;
	struct fake *f;
	struct eng_player_config cfg;
	struct eng_player *p;
	struct eng_fdpiece fdp[ENG_FD_PIECES];
	struct iovec iov[64];
};

static void fx_init(struct fx *x, enum eng_pace_mode pace)
{
	x->tl = zc_tl();
	x->want = expected_file(x->tl, &x->nslices);
	x->got = calloc(1, x->tl->bytes);
	assert_non_null(x->got);
	x->f = fake_new();
	fake_zero_copy(x->f);
	x->f->io.size = fake_size;
	x->cfg = zc_cfg(x->f);
	x->cfg.zero_copy = ENG_ZC_FILES;
	if (pace != ENG_PACE_OFF) {
		x->cfg.pace.mode = pace;
		x->cfg.filler = 1;
	}
	x->p = new_player(x->tl, &x->cfg);
}

static void fx_free(struct fx *x)
{
	eng_player_free(x->p);
	fake_free(x->f);
	free(x->got);
	free(x->want);
	eng_tl_free(x->tl);
}

/* Request [off, off + len) served into ans; its bytes, as a splice of
 * its pieces would give them, into x->got. */
static ssize_t serve(struct fx *x, uint64_t off, size_t len,
		     struct eng_answer *ans)
{
	uint64_t at = off;
	ssize_t n;
	int i;

	memset(ans, 0, sizeof(*ans));
	ans->iov = x->iov;
	ans->iovmax = 64;
	ans->pipes = 1;
	ans->fdp = x->fdp;
	ans->fdmax = ENG_FD_PIECES;
	n = eng_player_serve(x->p, off, len, ans);
	if (n <= 0)
		return n;
	assert_int_equal(ans->pipe, -1);
	assert_int_equal(ans->iovcnt, 0);
	assert_true(ans->nfd > 0 && ans->nfd <= ans->fdmax);
	for (i = 0; i < ans->nfd; i++) {
		const struct eng_fdpiece *pc = &ans->fdp[i];

		if (pc->fd < 0) {
			assert_non_null(pc->mem);
			memcpy(x->got + at, pc->mem, pc->len);
		} else {
			struct fake_file *ff = file_of(x->f, pc->fd);

			assert_non_null(ff);
			bytes_at(ff->name, pc->off, x->got + at, pc->len);
		}
		at += pc->len;
	}
	assert_int_equal(at - off, (uint64_t)n);
	return n;
}

/* Whole reads at several request sizes: the file's bytes, not one read
 * or pipe of the player's own, and every row recorded once with its
 * frame's counts as the pipes' path gives them. */
static void test_fdr_play(void **state)
{
	static const size_t sizes[] = { 4096, 131072, 1 << 20, 333333 };
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct eng_player_stats st;
		struct eng_answer ans;
		struct fx x;
		uint64_t off = 0;
		ssize_t n;

		fx_init(&x, ENG_PACE_OFF);
		while ((n = serve(&x, off, sizes[k], &ans)) > 0) {
			eng_player_answered(x.p, &ans, 1);
			off += (uint64_t)n;
		}
		/* the end: no pieces, the request ended all the same */
		assert_int_equal(n, 0);
		assert_int_equal(ans.nfd, 0);
		eng_player_answered(x.p, &ans, 1);
		assert_memory_equal(x.got, x.want, x.tl->bytes);
		assert_int_equal(x.f->preads, 0);
		assert_int_equal(x.f->npipes, 0);
		/* every frame's bytes went: all recorded before the end */
		assert_int_equal(x.f->log.n, x.nslices);
		eng_player_stats(x.p, &st);
		assert_int_equal(st.frames, x.tl->frames);
		assert_int_equal(st.bytes, x.tl->bytes);
		assert_int_equal(st.accesses, (int64_t)x.nslices);
		assert_int_equal(st.late_frames, 0);
		eng_player_stop(x.p);
		assert_int_equal(x.f->log.n, x.nslices);
		check_played(x.f, x.p);
		fx_free(&x);
	}
}

/* A row is done when the reply that carried its track's last byte of
 * the frame is written: not at the load, not at a reply of only part of
 * it; and its frame is late when that is after the frame's due time. */
static void test_fdr_row_times(void **state)
{
	struct eng_player_stats st;
	struct eng_answer a1, a2;
	struct fx x;
	uint64_t t_load, half;
	size_t i;

	(void)state;
	fx_init(&x, ENG_PACE_OFF);
	/* frame 0: video 200000 bytes then its audio; the first half */
	half = 100000;
	t_load = x.f->now;
	assert_int_equal(serve(&x, 0, half, &a1), (ssize_t)half);
	x.f->now += 5 * MS;
	eng_player_answered(x.p, &a1, 1);
	/* its video's bytes have not all gone */
	assert_int_equal(x.f->log.n, 0);
	/* the rest of frame 0, replied late: 1 s on */
	assert_true(serve(&x, half, eng_frame_offset(x.tl, 1) - half, &a2) > 0);
	x.f->now += 1000 * MS;
	eng_player_answered(x.p, &a2, 1);
	assert_int_equal(x.f->log.n, 2);
	for (i = 0; i < x.f->log.n; i++) {
		const struct eng_access *a = &x.f->log.a[i];

		assert_int_equal(a->frame, 0);
		assert_int_equal(a->issued_ns, t_load);
		assert_int_equal(a->done_ns, x.f->now);
		assert_true(a->done_ns > a->due_ns);
		assert_int_equal(a->played, 1);
	}
	eng_player_stats(x.p, &st);
	assert_int_equal(st.late_frames, 1);
	assert_int_equal(st.accesses, 2);
	assert_int_equal(st.worst_ns, x.f->now - t_load);
	fx_free(&x);
}

/* A frame the reader leaves in its middle (the stream ends): its rows
 * are recorded at the stop, a track whose bytes went in part ending at
 * that reply, one with none of its bytes gone where it began. */
static void test_fdr_stop_records(void **state)
{
	struct eng_player_stats st;
	struct eng_answer a;
	struct fx x;
	uint64_t t_load, t_reply;
	size_t i;

	(void)state;
	fx_init(&x, ENG_PACE_OFF);
	t_load = x.f->now;
	assert_int_equal(serve(&x, 0, 4096, &a), 4096);
	x.f->now += 3 * MS;
	t_reply = x.f->now;
	eng_player_answered(x.p, &a, 1);
	assert_int_equal(x.f->log.n, 0);
	x.f->now += 50 * MS;
	eng_player_stop(x.p);
	assert_int_equal(x.f->log.n, 2);
	for (i = 0; i < 2; i++) {
		const struct eng_access *r = &x.f->log.a[i];

		assert_int_equal(r->issued_ns, t_load);
		assert_int_equal(r->done_ns,
				 r->track == 0 ? t_reply : t_load);
	}
	eng_player_stats(x.p, &st);
	assert_int_equal(st.accesses, 2);
	assert_int_equal(st.late_frames, 0);
	fx_free(&x);
}

/* A reply that failed (the reader went) ends no row. */
static void test_fdr_failed_reply(void **state)
{
	struct eng_answer a;
	struct fx x;
	uint64_t t_load;

	(void)state;
	fx_init(&x, ENG_PACE_OFF);
	t_load = x.f->now;
	assert_true(serve(&x, 0, eng_frame_offset(x.tl, 1), &a) > 0);
	x.f->now += 3 * MS;
	eng_player_answered(x.p, &a, 0);
	assert_int_equal(x.f->log.n, 0);
	eng_player_stop(x.p);
	assert_int_equal(x.f->log.n, 2);
	assert_int_equal(x.f->log.a[0].done_ns, t_load);
	fx_free(&x);
}

/* A clip shorter than its slice: the frame fails (-EIO, as a short
 * read), its row says EIO, and nothing of it is replied. */
static void test_fdr_short_clip(void **state)
{
	struct eng_answer a;
	struct fx x;
	struct fake_file *ff;

	(void)state;
	fx_init(&x, ENG_PACE_OFF);
	ff = fake_file_get(x.f, x.tl->clips[0].media[0].file);
	assert_non_null(ff);
	ff->size = 1000;
	assert_int_equal(serve(&x, 0, 4096, &a), -EIO);
	assert_true(x.f->log.n >= 1);
	assert_int_equal(x.f->log.a[0].err, EIO);
	fx_free(&x);
}

/* A caller with no room for pieces (a movie's), or less than a request
 * of the player's may need (a frame of 2 tracks: 2 at least), gets the
 * pipes. */
static void test_fdr_not_taken(void **state)
{
	static const int room[] = { 0, 1 };
	struct eng_answer ans;
	struct fx x;
	ssize_t n;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(room) / sizeof(room[0]); k++) {
		fx_init(&x, ENG_PACE_OFF);
		memset(&ans, 0, sizeof(ans));
		ans.iov = x.iov;
		ans.iovmax = 64;
		ans.pipes = 1;
		ans.fdp = room[k] ? x.fdp : NULL;
		ans.fdmax = room[k];
		n = eng_player_serve(x.p, 0, 1 << 20, &ans);
		assert_int_equal(n, 1 << 20);
		assert_true(ans.pipe >= 0);
		assert_int_equal(ans.nfd, 0);
		assert_true(x.f->npipes > 0);
		assert_int_equal(zc_reply(x.f, x.p, &ans, x.got, n), n);
		assert_memory_equal(x.got, x.want, (size_t)n);
		fx_free(&x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fdr_play),
		cmocka_unit_test(test_fdr_row_times),
		cmocka_unit_test(test_fdr_stop_records),
		cmocka_unit_test(test_fdr_failed_reply),
		cmocka_unit_test(test_fdr_short_clip),
		cmocka_unit_test(test_fdr_not_taken),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
