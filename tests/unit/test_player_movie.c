/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player (fake clock, fake backing I/O: player_fake.h): a
 * timeline read as a QuickTime movie (engine/play/movie.c).
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

/* A movie's timeline: V a picture of w x h 2vuy (2wh bytes a frame) with a
 * cut and a gap (frames 20-22), A1 48 kHz in24 over all 40 frames, at 25
 * fps; media resolved as make_tl does. */
static struct eng_timeline *movie_tl(uint32_t w, uint32_t h)
{
	struct eng_timeline *tl = eng_tl_new("m", "m.tl");
	struct eng_picture pic = { ENG_PIX_2VUY, w, h };
	struct eng_diag diag = { 0 };
	int c0, c1;

	assert_non_null(tl);
	tl->fps.num = 25;
	tl->fps.den = 1;
	assert_int_equal(eng_tl_add_picture_track(tl, "V", &pic), 0);
	assert_int_equal(eng_tl_add_track(tl, "A1", 144000, 3), 1);
	c0 = eng_tl_clip(tl, "c0", 1);
	c1 = eng_tl_clip(tl, "c1", 2);
	assert_true(c0 >= 0 && c1 >= 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, (uint32_t)c0, 7, 0, 20, 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, (uint32_t)c1, 0, 23, 17, 2), 0);
	assert_int_equal(eng_tl_add_segment(tl, 1, (uint32_t)c0, 7, 0, 40, 3), 0);
	assert_int_equal(eng_tl_finalize(tl, &diag), 0);
	eng_diag_free(&diag);
	fake_resolve(tl, NULL);
	return tl;
}

/* The movie a reader must get: the header, then NAME's bytes. */
static unsigned char *movie_want(const struct eng_mov *m,
				 const struct eng_timeline *tl)
{
	unsigned char *file = expected_file(tl, NULL);
	unsigned char *w = malloc(m->size);

	assert_non_null(w);
	memcpy(w, m->head, m->head_len);
	memcpy(w + m->head_len, file, tl->bytes);
	free(file);
	return w;
}

/* One request of the movie through eng_movie_serve (its ring), copied to
 * out; the header and iovecs are checked against iovmax (the header a
 * piece of them, as a reply's) and the request lock released. */
static ssize_t movie_copy(struct eng_player *p, const struct eng_mov *m,
			  unsigned char *out, uint64_t off, size_t len,
			  int iovmax)
{
	struct iovec iov[64];
	struct eng_answer ans = { .iov = iov, .iovmax = iovmax - 1 };
	ssize_t n;
	size_t got;
	int i;

	assert_true(iovmax <= 64);
	n = eng_movie_serve(p, m, off, len, &ans);
	if (n < 0)
		return n;
	assert_int_equal(ans.pipe, -1);
	assert_true(ans.iovcnt >= 0 &&
		    ans.iovcnt + (ans.head.iov_len > 0) <= iovmax);
	got = ans.head.iov_len;
	if (got)
		memcpy(out, ans.head.iov_base, got);
	for (i = 0; i < ans.iovcnt; i++) {
		memcpy(out + got, iov[i].iov_base, iov[i].iov_len);
		got += iov[i].iov_len;
	}
	assert_int_equal(got, (size_t)n);
	eng_player_unlock(p);
	return n;
}

/* The access rows of two streams are the same reads (frame, track, clip,
 * offset, length), in order; times too where `times`. */
static void same_accesses(const struct acc_log *a, const struct acc_log *b,
			  int times)
{
	size_t i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		const struct eng_access *x = &a->a[i], *y = &b->a[i];

		assert_int_equal(x->frame, y->frame);
		assert_int_equal(x->track, y->track);
		assert_int_equal(x->clip, y->clip);
		assert_int_equal(x->file_offset, y->file_offset);
		assert_int_equal(x->length, y->length);
		if (!times)
			continue;
		assert_int_equal(x->sched_ns, y->sched_ns);
		assert_int_equal(x->due_ns, y->due_ns);
		assert_int_equal(x->issued_ns, y->issued_ns);
		assert_int_equal(x->done_ns, y->done_ns);
	}
}

/* NAME.mov read whole at many request sizes (across the header's end at
 * every alignment the sizes give, and at exactly the header's size, one
 * less and one more): the header's bytes, then NAME's, and exactly the
 * backing reads a whole read of NAME makes; header bytes are in the
 * stream's bytes.  Requests at and past the end return 0. */
static void test_movie_read(void **state)
{
	struct eng_timeline *tl = movie_tl(100, 50);
	struct eng_mov m;
	char why[128];
	unsigned char *want, *got;
	struct fake *ref = fake_new();
	struct eng_player_config rcfg = make_cfg(ref, 8, ENG_PACE_OFF, 0,
						 ENG_BACKING_BUFFERED, 1 << 20);
	struct eng_player *rp = new_player(tl, &rcfg);
	size_t sizes[9] = { 4093, 4096, 65536, 1 << 20, 999, 0, 0, 0, 7 };
	size_t k;
	uint64_t off;

	(void)state;
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	assert_true(m.head_len > 1000 && m.head_len < tl->bytes);
	sizes[5] = (size_t)m.head_len;
	sizes[6] = (size_t)m.head_len - 1;
	sizes[7] = (size_t)m.head_len + 1;
	want = movie_want(&m, tl);
	got = malloc(m.size);
	assert_non_null(got);
	/* the reference: NAME read whole */
	for (off = 0; off < tl->bytes; off += 65536)
		assert_true(eng_player_copy(rp, got, 65536, off) > 0);
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct fake *f = fake_new();
		struct eng_player_config cfg = rcfg;
		struct eng_player *p;
		struct eng_player_stats st;
		ssize_t n;

		cfg.io = &f->io;
		cfg.record_ctx = &f->log;
		cfg.max_pieces = 8;
		eng_movie_config(&cfg);
		assert_int_equal(cfg.max_pieces, 7);
		p = new_player(tl, &cfg);
		memset(got, 0xee, m.size);
		for (off = 0; (n = movie_copy(p, &m, got + off, off, sizes[k],
					      8)) > 0;)
			off += (uint64_t)n;
		assert_int_equal(n, 0);
		assert_int_equal(off, m.size);
		assert_memory_equal(got, want, m.size);
		assert_int_equal(movie_copy(p, &m, got, m.size + 5, 10, 8), 0);
		same_accesses(&ref->log, &f->log, 0);
		eng_player_stats(p, &st);
		assert_int_equal(st.bytes, m.size);
		assert_int_equal(st.frames, tl->frames);
		assert_int_equal(st.seeks, 0);
		assert_int_equal(st.reloads, 0);
		/* every request answered with data is counted once */
		assert_int_equal(st.requests, (m.size + sizes[k] - 1) / sizes[k]);
		eng_player_free(p);
		fake_free(f);
	}
	eng_player_free(rp);
	fake_free(ref);
	free(got);
	free(want);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

/* A paced stream of NAME.mov whose reader probes the header (before its
 * first frame, after a long pause, from offset 0 while the play head is
 * far on, the gap's black picture) plays exactly as a stream of NAME
 * making the same timeline requests at the same times: the same reads at
 * the same scheduled, due, issue and done times, no seek, the same late
 * frames.  A header read before the first frame does not start the
 * clock.  Failed before the movie layer existed: there was none. */
static void test_movie_probe_clock(void **state)
{
	/* wait ns, then a request: movie offset (H: header bytes) */
	static const struct step {
		uint64_t wait;
		int head;		/* 1: header offset, 0: timeline */
		uint64_t off;		/* header: fraction of head_len in
					 * 1/100; timeline: frame */
		size_t len;		/* header bytes, or frames */
	} steps[] = {
		{ 0, 1, 0, 4096 },		/* probe before any frame */
		{ 3000 * MS, 1, 50, 700 },	/* ... and 3 s later */
		{ 0, 0, 0, 2 },			/* play from frame 0 */
		{ 10 * MS, 1, 0, 100 },
		{ 0, 0, 2, 6 },
		{ 500 * MS, 1, 99, 1 },		/* the black picture */
		{ 0, 0, 8, 12 },
		{ 900 * MS, 1, 0, 8192 },	/* a pause, then offset 0 */
		{ 0, 0, 20, 10 },		/* late after the pause */
		{ 0, 1, 10, 3000 },
		{ 0, 0, 30, 10 },
	};
	struct eng_timeline *tl = movie_tl(100, 50);
	struct eng_mov m;
	struct fake *fa = fake_new(), *fb = fake_new();
	struct eng_player_config ca = make_cfg(fa, 4, ENG_PACE_REALTIME, 0,
					       ENG_BACKING_BUFFERED, 1 << 20);
	struct eng_player_config cb = make_cfg(fb, 4, ENG_PACE_REALTIME, 0,
					       ENG_BACKING_BUFFERED, 1 << 20);
	struct eng_player *pa, *pb;
	struct eng_player_stats sa, sb;
	unsigned char *want, *buf;
	uint64_t head_bytes = 0;
	int64_t head_only = 0;
	char why[128];
	size_t i;

	(void)state;
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	want = movie_want(&m, tl);
	buf = malloc(m.size);
	assert_non_null(buf);
	fa->latency = fb->latency = 2 * MS;
	eng_movie_config(&cb);
	pa = new_player(tl, &ca);
	pb = new_player(tl, &cb);
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		const struct step *s = &steps[i];

		fa->now += s->wait;
		fb->now += s->wait;
		if (s->head) {
			uint64_t off = m.head_len * s->off / 100;
			size_t len = s->len;

			if (len > m.head_len - off)
				len = (size_t)(m.head_len - off);
			assert_int_equal(movie_copy(pb, &m, buf, off, len, 8),
					 (ssize_t)len);
			assert_memory_equal(buf, want + off, len);
			head_bytes += len;
			head_only++;
		} else {
			uint64_t off = eng_frame_offset(tl, (int64_t)s->off);
			size_t len = (size_t)(eng_frame_offset(tl, (int64_t)
							       (s->off + s->len)) - off);

			assert_int_equal(eng_player_copy(pa, buf, len, off),
					 (ssize_t)len);
			assert_int_equal(movie_copy(pb, &m, buf, m.head_len + off,
						    len, 8), (ssize_t)len);
			assert_memory_equal(buf, want + m.head_len + off, len);
		}
		assert_int_equal(fa->now, fb->now);
	}
	same_accesses(&fa->log, &fb->log, 1);
	/* frame 0 was scheduled at the first timeline read, not the probe */
	assert_int_equal(fb->log.a[0].sched_ns, T0 + 3000 * MS);
	eng_player_stats(pa, &sa);
	eng_player_stats(pb, &sb);
	assert_int_equal(sb.seeks, 0);
	assert_int_equal(sb.seeks, sa.seeks);
	assert_int_equal(sb.reloads, sa.reloads);
	assert_int_equal(sb.frames, sa.frames);
	assert_true(sa.late_frames > 0);	/* the pause made some late */
	assert_int_equal(sb.late_frames, sa.late_frames);
	assert_int_equal(sb.head, sa.head);
	assert_int_equal(sb.bytes, sa.bytes + head_bytes);
	assert_int_equal(sb.requests, sa.requests + head_only);
	eng_player_free(pa);
	eng_player_free(pb);
	fake_free(fa);
	fake_free(fb);
	free(buf);
	free(want);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

/* The kernel's readahead around the header's black picture, read by a
 * player at a gap or a transition track long after the start, asks for
 * the header's end and the timeline's first bytes in one request.
 * Regression (issue 20, found with ffmpeg -f null and mpv of hand-written
 * movies with a gap and a Vx track, cached mode): that request moved the
 * play head back to frame 0 (a seek) and the next one forward again (a
 * second seek, frames counted twice: 62 of 60 frames, 2 seeks; with
 * -o direct_io, 60 and none).  The timeline's first bytes, served once,
 * are served again from memory: no seek, no backing read, no frame. */
static void test_movie_probe_spill(void **state)
{
	struct eng_timeline *tl = movie_tl(100, 50);
	struct eng_mov m;
	struct fake *f = fake_new();
	/* requests of 32 KiB at most: a ring of a few frames of 15.8 KB,
	 * frame 0 long gone when frame 30 plays */
	struct eng_player_config cfg = make_cfg(f, 4, ENG_PACE_REALTIME, 1,
						ENG_BACKING_BUFFERED, 32768);
	struct eng_player *p;
	struct eng_player_stats st;
	unsigned char *want, *buf;
	uint64_t off, end;
	size_t n, acc;
	int64_t k;
	char why[128];

	(void)state;
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	want = movie_want(&m, tl);
	buf = malloc(m.size);
	assert_non_null(buf);
	eng_movie_config(&cfg);
	p = new_player(tl, &cfg);
	/* the header, then frames 0..29 in requests of 3000 bytes */
	assert_int_equal(movie_copy(p, &m, buf, 0, m.head_len, 8),
			 (ssize_t)m.head_len);
	end = m.head_len + eng_frame_offset(tl, 30);
	for (off = m.head_len; off < end; off += n) {
		n = end - off < 3000 ? (size_t)(end - off) : 3000;
		assert_int_equal(movie_copy(p, &m, buf, off, n, 8), (ssize_t)n);
		assert_memory_equal(buf, want + off, n);
	}
	eng_player_stats(p, &st);
	assert_int_equal(st.frames, 30);
	acc = f->log.n;
	/* the spill: the header's last 4096 bytes and frame 0 */
	off = m.head_len - 4096;
	n = 4096 + (size_t)eng_frame_offset(tl, 1);
	assert_int_equal(movie_copy(p, &m, buf, off, n, 8), (ssize_t)n);
	assert_memory_equal(buf, want + off, n);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 0);
	assert_int_equal(st.reloads, 0);
	assert_int_equal(f->log.n, acc);
	/* and playing on from frame 30 is no seek either */
	for (k = 30; k < tl->frames; k++) {
		off = m.head_len + eng_frame_offset(tl, k);
		n = (size_t)eng_frame_size(tl, k);
		assert_int_equal(movie_copy(p, &m, buf, off, n, 8), (ssize_t)n);
		assert_memory_equal(buf, want + off, n);
	}
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 0);
	assert_int_equal(st.frames, tl->frames);
	eng_player_free(p);
	/* a stream that never played the start: the player serves it, a
	 * seek as before */
	p = new_player(tl, &cfg);
	for (k = 20; k < 30; k++) {
		off = m.head_len + eng_frame_offset(tl, k);
		n = (size_t)eng_frame_size(tl, k);
		assert_int_equal(movie_copy(p, &m, buf, off, n, 8), (ssize_t)n);
	}
	off = m.head_len - 4096;
	n = 4096 + (size_t)eng_frame_offset(tl, 1);
	assert_int_equal(movie_copy(p, &m, buf, off, n, 8), (ssize_t)n);
	assert_memory_equal(buf, want + off, n);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, 1);
	eng_player_free(p);
	/* the first bytes served out of order (requests under load): kept
	 * all the same.  Found by make test on a loaded machine (vx: 62
	 * frames, 2 seeks, as before the copy) */
	p = new_player(tl, &cfg);
	{
		static const uint64_t order[][2] = {
			{ 0, 3000 }, { 6000, 9000 }, { 3000, 6000 },
		};
		size_t i;

		for (i = 0; i < 3; i++) {
			off = m.head_len + order[i][0];
			n = (size_t)(order[i][1] - order[i][0]);
			assert_int_equal(movie_copy(p, &m, buf, off, n, 8),
					 (ssize_t)n);
			assert_memory_equal(buf, want + off, n);
		}
	}
	end = m.head_len + eng_frame_offset(tl, 30);
	for (off = m.head_len + 9000; off < end; off += n) {
		n = end - off < 3000 ? (size_t)(end - off) : 3000;
		assert_int_equal(movie_copy(p, &m, buf, off, n, 8), (ssize_t)n);
	}
	eng_player_stats(p, &st);
	k = st.seeks;
	off = m.head_len - 4096;
	n = 4096 + 9000 + 3000;
	assert_int_equal(movie_copy(p, &m, buf, off, n, 8), (ssize_t)n);
	assert_memory_equal(buf, want + off, n);
	eng_player_stats(p, &st);
	assert_int_equal(st.seeks, k);
	eng_player_free(p);
	fake_free(f);
	free(buf);
	free(want);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

/* One request of a zero-copy caller of the movie, into out: the header
 * part, then the pipe's or the ring's.  *ring (if not NULL): the player's
 * bytes came from its ring. */
static ssize_t movie_zc(struct fake *f, struct eng_player *p,
			const struct eng_mov *m, unsigned char *out,
			uint64_t off, size_t len, int *ring)
{
	struct iovec iov[ENG_ZC_MAX_SLOTS];
	struct eng_answer ans = zc_answer(iov);
	ssize_t n;

	n = eng_movie_serve(p, m, off, len, &ans);
	if (n < 0)
		return n;
	if (ring)
		*ring = ans.pipe < 0 && ans.iovcnt > 0;
	return zc_reply(f, p, &ans, out, n);
}

/* Zero copy: a small header probe first leaves the choice to the first
 * request with timeline bytes (a 1 MiB read across the header's end takes
 * zero copy); the movie's bytes, NAME's backing reads, and a header probe
 * in the middle that the pipes do not notice.  A stream whose first
 * timeline request is small takes the ring, for good. */
static void test_movie_zc(void **state)
{
	struct eng_timeline *tl = movie_tl(500, 200);	/* 200000 B frames */
	struct eng_mov m;
	struct fake *f = fake_new(), *ref = fake_new();
	struct eng_player_config cfg = zc_cfg(f), rcfg = zc_cfg(ref);
	struct eng_player *p, *rp;
	unsigned char *want, *got;
	char why[128];
	uint64_t off;
	ssize_t n;
	int ring, pipes;

	(void)state;
	assert_int_equal(eng_mov_build(tl, &m, why, sizeof(why)), 0);
	want = movie_want(&m, tl);
	got = malloc(m.size);
	assert_non_null(got);
	fake_zero_copy(f);
	fake_zero_copy(ref);
	eng_movie_config(&cfg);
	p = new_player(tl, &cfg);
	rp = new_player(tl, &rcfg);
	zc_read_rest(ref, rp, tl, got, 0, 1 << 20);

	assert_int_equal(movie_zc(f, p, &m, got, 0, 1000, &ring), 1000);
	assert_int_equal(ring, 0);
	assert_int_equal(f->npipes, 0);		/* not decided yet */
	for (off = 0;
	     (n = movie_zc(f, p, &m, got + off, off, 1 << 20, &ring)) > 0;) {
		assert_true(f->npipes > 0);
		assert_int_equal(ring, 0);
		off += (uint64_t)n;
		if (off > m.head_len && off < m.size / 2) {
			/* a probe of the moov meanwhile */
			unsigned char h[64];

			assert_int_equal(movie_zc(f, p, &m, h, 8, 64, NULL),
					 64);
			assert_memory_equal(h, want + 8, 64);
		}
	}
	assert_int_equal(n, 0);
	assert_int_equal(off, m.size);
	assert_memory_equal(got, want, m.size);
	same_accesses(&ref->log, &f->log, 0);
	/* nothing left in the scratch and reply pipes (the last two) */
	assert_true(f->npipes > 2);
	assert_int_equal(f->pipes[f->npipes - 1].len, 0);
	assert_int_equal(f->pipes[f->npipes - 2].len, 0);
	eng_player_free(p);

	/* a small first timeline request: the ring, for good */
	pipes = f->npipes;
	p = new_player(tl, &cfg);
	assert_int_equal(movie_zc(f, p, &m, got, m.head_len - 10, 100, &ring),
			 100);
	assert_int_equal(ring, 1);
	assert_memory_equal(got, want + m.head_len - 10, 100);
	assert_int_equal(movie_zc(f, p, &m, got, 0, 100, NULL), 100);
	assert_memory_equal(got, want, 100);
	assert_int_equal(movie_zc(f, p, &m, got, m.head_len + 1000, 1 << 20,
				  &ring), 1 << 20);
	assert_int_equal(ring, 1);
	assert_memory_equal(got, want + m.head_len + 1000, 1 << 20);
	assert_int_equal(f->npipes, pipes);
	eng_player_free(p);
	eng_player_free(rp);
	fake_free(f);
	fake_free(ref);
	free(got);
	free(want);
	eng_mov_free(&m);
	eng_tl_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_movie_read),
		cmocka_unit_test(test_movie_probe_clock),
		cmocka_unit_test(test_movie_probe_spill),
		cmocka_unit_test(test_movie_zc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
