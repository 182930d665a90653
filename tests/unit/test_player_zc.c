/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player (fake clock, fake backing I/O: player_fake.h):
 * zero copy: the slots' pipes and the replies from them
 * (engine/play/player_zc.c).
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

/* The setup most zero-copy tests share: the file's expected bytes (and
 * its slice count), a buffer for what is read, a fake with zero copy and
 * its player. */
struct zc_fix {
	struct eng_timeline *tl;
	unsigned char *want, *got;
	size_t nslices;
	struct fake *f;
	struct eng_player_config cfg;
	struct eng_player *p;
};

/* All but the player, whose config (cfg) the test may change first */
static void zc_fix_begin(struct zc_fix *z)
{
	z->tl = zc_tl();
	z->want = expected_file(z->tl, &z->nslices);
	z->got = calloc(1, z->tl->bytes);
	assert_non_null(z->got);
	z->f = fake_new();
	fake_zero_copy(z->f);
	z->cfg = zc_cfg(z->f);
}

/* zero_copy: 1 (a direct_io stream's: a frame's last bytes moved out) or
 * ENG_ZC_ANY_REQUEST (a cached stream's: every frame kept) */
static void zc_fix_init_as(struct zc_fix *z, int zero_copy)
{
	zc_fix_begin(z);
	z->cfg.zero_copy = zero_copy;
	z->p = new_player(z->tl, &z->cfg);
}

static void zc_fix_init(struct zc_fix *z)
{
	zc_fix_init_as(z, 1);
}

static void zc_fix_free(struct zc_fix *z)
{
	eng_player_free(z->p);
	fake_free(z->f);
	free(z->got);
	free(z->want);
	eng_tl_free(z->tl);
}

/* Sequential reads of several sizes, as a direct_io stream and as a
 * cached one: the same bytes, the same one backing read per slice as the
 * ring, and nothing left behind in the scratch and reply pipes (made
 * after the slots' pipes: the last two). */
static void test_zc_play(void **state)
{
	static const size_t sizes[] = { 65536, 131072, 1 << 20, 1000000 };
	size_t k;

	(void)state;
	for (k = 0; k < 2 * sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct zc_fix z;
		struct eng_player_stats st;
		int i;

		zc_fix_init_as(&z, k % 2 ? ENG_ZC_ANY_REQUEST : 1);
		zc_read_rest(z.f, z.p, z.tl, z.got, 0, sizes[k / 2]);
		assert_memory_equal(z.got, z.want, z.tl->bytes);
		assert_int_equal(z.f->log.n, z.nslices);
		assert_int_equal(z.f->preads, (long)z.nslices);
		eng_player_stats(z.p, &st);
		assert_int_equal(st.frames, z.tl->frames);
		assert_int_equal(st.bytes, z.tl->bytes);
		assert_int_equal(st.seeks, 0);
		assert_true(z.f->npipes > 2 &&
			    z.f->npipes <= ENG_ZC_MAX_SLOTS + 2);
		for (i = z.f->npipes - 2; i < z.f->npipes; i++)
			assert_int_equal(z.f->pipes[i].len, 0);
		/* the ring is not for this player any more */
		assert_int_equal(eng_player_copy(z.p, z.got, 10, 0), -EXDEV);
		zc_fix_free(&z);
	}
}

/* A paced player (here without a filler thread: each request waits for
 * its frames' issue times on the fake clock) plays by zero copy too: the
 * same bytes, one backing read a slice, on the clock. */
static void test_zc_paced(void **state)
{
	struct zc_fix z;
	uint64_t t0;

	(void)state;
	zc_fix_begin(&z);
	z.cfg.pace.mode = ENG_PACE_REALTIME;
	z.p = new_player(z.tl, &z.cfg);
	t0 = z.f->now;
	zc_read_rest(z.f, z.p, z.tl, z.got, 0, 1 << 20);
	assert_memory_equal(z.got, z.want, z.tl->bytes);
	assert_int_equal(z.f->preads, (long)z.nslices);
	assert_true(z.f->npipes > 2);
	/* the last frame is issued on the clock: 40 ms a frame at 25 fps,
	 * buffer (8) frames ahead of its turn */
	assert_true(z.f->now - t0 >=
		    (uint64_t)(z.tl->frames - 1 - 8) * 40000000ULL);
	zc_fix_free(&z);
}

/* This process's resident bytes (/proc/self/statm). */
static uint64_t resident(void)
{
	FILE *fp = fopen("/proc/self/statm", "r");
	unsigned long size = 0, res = 0;

	assert_non_null(fp);
	assert_int_equal(fscanf(fp, "%lu %lu", &size, &res), 2);
	fclose(fp);
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* A stream that may take zero copy holds its frames in pipes, not in its
 * ring: the ring's pages are not touched at creation, only once the
 * first request declines zero copy (a small-block reader), and the
 * memory counted for it is the larger of ring and pipes, not both. */
static void test_zc_ring_untouched(void **state)
{
	struct eng_timeline *tl = simple_tl(2 << 20, 40);	/* 2 MiB frames */
	unsigned char *want = expected_file(tl, NULL);
	struct fake *f = fake_new();
	struct eng_player_config cfg;
	uint64_t ring, zc_mem, ring_mem, slots, before;
	struct eng_player *p;
	unsigned char *buf = malloc(4096);

	(void)state;
	assert_non_null(buf);
	fake_zero_copy(f);
	cfg = zc_cfg(f);
	cfg.zero_copy = 0;
	assert_int_equal(eng_player_mem(tl, &cfg, &ring_mem, &slots), 0);
	ring = slots * (2 << 20);
	assert_true(ring >= 16 << 20);
	cfg.zero_copy = 1;
	assert_int_equal(eng_player_mem(tl, &cfg, &zc_mem, NULL), 0);
	assert_true(zc_mem > ring_mem);
	assert_true(zc_mem < ring_mem + ring / 4);

	before = resident();
	p = new_player(tl, &cfg);
	assert_true(resident() < before + ring / 4);
	/* a 4 KiB first request declines zero copy: the ring is touched */
	assert_int_equal(eng_player_copy(p, buf, 4096, 0), 4096);
	assert_memory_equal(buf, want, 4096);
	assert_true(resident() >= before + ring * 3 / 4);
	eng_player_free(p);
	fake_free(f);
	free(buf);
	free(want);
	eng_tl_free(tl);
}

/* Where zero copy is not taken, the player answers a zero-copy caller
 * from its ring, for good, and no pipe is left open. */
static void test_zc_not_taken(void **state)
{
	int c;

	(void)state;
	for (c = 0; c < 6; c++) {
		struct eng_timeline *tl = c == 4 ? simple_tl(1000, 100) :
						   zc_tl();
		unsigned char *want = expected_file(tl, NULL);
		struct fake *f = fake_new();
		struct eng_player_config cfg;
		struct eng_player *p;
		struct iovec iov[ENG_ZC_MAX_SLOTS];
		struct eng_answer ans = zc_answer(iov);
		unsigned char *got = malloc(1 << 20);
		size_t first = 1 << 20;
		ssize_t n;
		int k;

		fake_zero_copy(f);
		cfg = zc_cfg(f);
		if (c == 0)
			cfg.zero_copy = 0;
		else if (c == 1)
			first = 4096;	/* a small-block reader */
		else if (c == 2)
			cfg.backing = ENG_BACKING_DIRECT;
		else if (c == 3)
			f->pipe_fail_at = 3;	/* out of pipes midway */
		/* c == 4: 1000-byte frames, a request spans too many */
		p = new_player(tl, &cfg);
		if (c == 5)	/* read from the ring first: it stays there */
			read_frame(p, tl, want, 0);
		assert_non_null(got);
		for (k = 0; k < 2; k++) {
			n = eng_player_serve(p, 0, k ? 1 << 20 : first, &ans);
			assert_true(n > 0);
			assert_int_equal(ans.pipe, -1);
			assert_true(ans.iovcnt > 0);
			zc_reply(f, p, &ans, got, n);
			assert_memory_equal(got, want, (size_t)n);
		}
		free(got);
		read_frame(p, tl, want, 0);
		read_frame(p, tl, want, 1);
		/* only the failing case made pipes (and freed them) */
		assert_int_equal(f->npipes, c == 3 ? 3 : 0);
		eng_player_free(p);
		fake_free(f);
		free(want);
		eng_tl_free(tl);
	}
}

/* A reply that says it took every byte but took none or part of them
 * (libfuse answers a failed copy with an error reply and returns 0), and
 * a request that failed inside the pipes (a tee refused): the reply pipe
 * is emptied, and the requests after it, on past the failed range, get
 * the file's own bytes, not the leftovers. */
static void test_zc_reply_short(void **state)
{
	int c;

	(void)state;
	for (c = 0; c < 3; c++) {
		struct zc_fix z;
		struct iovec iov[ENG_ZC_MAX_SLOTS];
		struct eng_answer ans = zc_answer(iov);
		uint64_t off = 300000, f5;

		zc_fix_init(&z);
		f5 = eng_frame_offset(z.tl, 5);
		assert_int_equal(zc_read(z.f, z.p, z.got, 0, off), off);
		if (c < 2) {
			assert_int_equal(eng_player_serve(z.p, off, 300000,
							  &ans), 300000);
			assert_true(ans.pipe >= 0);
			assert_int_equal(ans.pipe_len, 300000);
			if (c == 1)	/* part of the pipe's bytes */
				pipe_pop(z.f, ans.pipe, NULL,
					 ans.pipe_len / 2);
			eng_player_answered(z.p, &ans, 1);
			off += 300000;
		} else {
			z.f->pipe_tee_fail = 1;
			assert_int_equal(eng_player_serve(z.p, f5 + 1234,
							  65536, &ans), -EIO);
			assert_int_equal(z.f->pipe_tee_fail, 0);
		}
		zc_read_rest(z.f, z.p, z.tl, z.got, off, 65536);
		assert_memory_equal(z.got, z.want, 300000);
		assert_memory_equal(z.got + 600000, z.want + 600000,
				    z.tl->bytes - 600000);
		zc_fix_free(&z);
	}
}

/* A direct_io stream's frame whose last bytes a reply took is gone from
 * its pipe: reading it again reads it again from the storage (not played
 * twice), and the bytes are the file's. */
static void test_zc_reread_moved(void **state)
{
	struct zc_fix z;
	struct eng_player_stats st;
	long reads;

	(void)state;
	zc_fix_init(&z);
	assert_int_equal(zc_read(z.f, z.p, z.got, 0, 300000), 300000);
	reads = z.f->preads;
	memset(z.got, 0, 300000);
	assert_int_equal(zc_read(z.f, z.p, z.got, 0, 300000), 300000);
	assert_memory_equal(z.got, z.want, 300000);
	assert_true(z.f->preads > reads);
	eng_player_stats(z.p, &st);
	assert_int_equal(st.seeks, 0);
	assert_int_equal(st.frames, 2);
	/* on from there: the bytes after are the file's too */
	zc_read_rest(z.f, z.p, z.tl, z.got, 300000, 65536);
	assert_memory_equal(z.got + 300000, z.want + 300000,
			    z.tl->bytes - 300000);
	zc_fix_free(&z);
}

/* A cached stream's slot's pipe keeps its frame, as the ring does:
 * reading its bytes again reads nothing from the storage (nor plays them
 * twice); a request inside a frame skips what is before it; after a
 * failed reply the next request still gets its bytes; a failed read is
 * EIO and only for its frame. */
static void test_zc_reread(void **state)
{
	struct zc_fix z;
	struct eng_player_stats st;
	struct iovec iov[ENG_ZC_MAX_SLOTS];
	struct eng_answer ans = zc_answer(iov);
	uint64_t f5, f9;
	long reads;

	(void)state;
	zc_fix_init_as(&z, ENG_ZC_ANY_REQUEST);
	f5 = eng_frame_offset(z.tl, 5);
	f9 = eng_frame_offset(z.tl, 9);
	assert_int_equal(zc_read(z.f, z.p, z.got, 0, 300000), 300000);
	assert_memory_equal(z.got, z.want, 300000);
	reads = z.f->preads;
	/* again from 0: frames 0 and 1 come from their slots' pipes */
	assert_int_equal(zc_read(z.f, z.p, z.got, 0, 300000), 300000);
	assert_memory_equal(z.got, z.want, 300000);
	assert_int_equal(z.f->preads, reads);
	/* the rest of frame 1, then a jump into the middle of frame 5 */
	assert_int_equal(zc_read(z.f, z.p, z.got, 300000, 100000), 100000);
	assert_memory_equal(z.got, z.want + 300000, 100000);
	assert_int_equal(zc_read(z.f, z.p, z.got, f5 + 1234, 70000), 70000);
	assert_memory_equal(z.got, z.want + f5 + 1234, 70000);
	assert_true(z.f->pipe_skips > 0);
	/* a reply that failed: the next request still gets its bytes */
	assert_true(eng_player_serve(z.p, f5 + 71234, 65536, &ans) == 65536);
	assert_true(ans.pipe >= 0);
	eng_player_answered(z.p, &ans, 0);
	assert_int_equal(zc_read(z.f, z.p, z.got, f5 + 71234, 65536), 65536);
	assert_memory_equal(z.got, z.want + f5 + 71234, 65536);
	eng_player_stats(z.p, &st);
	assert_int_equal(st.seeks, 0);
	assert_int_equal(st.frames, 6);	/* 0..5, each played once */
	/* frame 9's video read fails (6..8 come first, two reads each): its
	 * frame is EIO, the one after not */
	z.f->fail_read = z.f->preads + 6;
	z.f->fail_err = EIO;
	assert_int_equal(zc_read(z.f, z.p, z.got, f9, 65536), -EIO);
	assert_int_equal(zc_read(z.f, z.p, z.got, eng_frame_offset(z.tl, 10),
				 65536),
			 65536);
	assert_memory_equal(z.got, z.want + eng_frame_offset(z.tl, 10), 65536);
	/* the gap (frames 20..22 of the video) comes out as zeros */
	assert_int_equal(zc_read(z.f, z.p, z.got, eng_frame_offset(z.tl, 19),
				 (size_t)(eng_frame_offset(z.tl, 24) -
					  eng_frame_offset(z.tl, 19))),
			 (ssize_t)(eng_frame_offset(z.tl, 24) -
				   eng_frame_offset(z.tl, 19)));
	assert_memory_equal(z.got, z.want + eng_frame_offset(z.tl, 19),
			    eng_frame_offset(z.tl, 24) -
				    eng_frame_offset(z.tl, 19));
	zc_fix_free(&z);
}

/* A cached stream's slot's pipe that cannot be emptied before its next
 * frame (the drain refused): that frame fails, with EIO, rather than hand
 * out the old frame's bytes ahead of its own; the frame after it is
 * served. */
static void test_zc_reset_fails(void **state)
{
	struct zc_fix z;
	uint64_t f18, f19, f20, off = 0;
	ssize_t n;

	(void)state;
	zc_fix_init_as(&z, ENG_ZC_ANY_REQUEST);
	f18 = eng_frame_offset(z.tl, 18);
	f19 = eng_frame_offset(z.tl, 19);
	f20 = eng_frame_offset(z.tl, 20);
	/* frames 0..17: every slot (at most 16) has held a frame */
	while (off < f18) {
		n = zc_read(z.f, z.p, z.got + off, off,
			    f18 - off < 65536 ? (size_t)(f18 - off) : 65536);
		assert_true(n > 0);
		off += (uint64_t)n;
	}
	assert_memory_equal(z.got, z.want, f18);
	z.f->pipe_skip_fail = 1;
	assert_int_equal(zc_read(z.f, z.p, z.got, f18, (size_t)(f19 - f18)),
			 -EIO);
	assert_int_equal(z.f->pipe_skip_fail, 0);
	assert_int_equal(zc_read(z.f, z.p, z.got + f19, f19,
				 (size_t)(f20 - f19)),
			 (ssize_t)(f20 - f19));
	assert_memory_equal(z.got + f19, z.want + f19, f20 - f19);
	zc_fix_free(&z);
}

/* A frame larger than the pipes the host allows goes into several pipes
 * of its slot (a 2K DPX frame in 1 MiB pipes): here frames of 205 KB in
 * pipes of at most 192 KiB (2 a slot), requests up to 64 KiB.  Read
 * whole at several sizes, as a direct_io stream (no tail moved out of a
 * split frame) and as a cached one: the same bytes, one backing read a
 * slice; then a re-read across a frame's two pipes. */
static void test_zc_split(void **state)
{
	static const struct {
		int zero_copy;
		size_t step;
	} cases[] = {
		{ 1, 65536 },
		{ ENG_ZC_ANY_REQUEST, 65536 },
		{ ENG_ZC_ANY_REQUEST, 40000 },
		{ ENG_ZC_ANY_REQUEST, 4096 },
	};
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct zc_fix z;
		uint64_t at;

		zc_fix_begin(&z);
		z.f->pipe_max = 192 * 1024;
		z.cfg.max_request = 65536;
		z.cfg.zero_copy = cases[c].zero_copy;
		z.p = new_player(z.tl, &z.cfg);
		zc_read_rest(z.f, z.p, z.tl, z.got, 0, cases[c].step);
		assert_memory_equal(z.got, z.want, z.tl->bytes);
		/* one access row a slice (a slice across a frame's two pipes
		 * is one row, two splices) */
		assert_int_equal(z.f->log.n, z.nslices);
		/* two pipes a slot, and the scratch and reply pipes */
		assert_true(z.f->npipes >= 2 * 8 + 2);
		/* a re-read of a frame's middle, across its two pipes */
		at = eng_frame_offset(z.tl, 30) + 100000;
		assert_int_equal(zc_read(z.f, z.p, z.got, at, 20000), 20000);
		assert_memory_equal(z.got, z.want + at, 20000);
		zc_fix_free(&z);
	}
}

/* The reply pipe holds one request's bytes and the part pages of the
 * frames it spans, not of every slot: requests of 512 KiB (what a mount
 * at the stock pipe-max-size asks for) over a ring of 16 slots get a
 * reply pipe smaller than the ring's part pages would make it, and every
 * reply fits it. */
static void test_zc_reply_span(void **state)
{
	struct zc_fix z;
	size_t req = 512 * 1024, ring_sized, reply;

	(void)state;
	zc_fix_begin(&z);
	z.cfg.buffer = 16;
	z.cfg.max_request = req;
	z.p = new_player(z.tl, &z.cfg);
	zc_read_rest(z.f, z.p, z.tl, z.got, 0, req);
	assert_memory_equal(z.got, z.want, z.tl->bytes);
	assert_int_equal(z.f->npipes, 16 + 2);
	/* the reply pipe: made last; 2 tracks of one extent a slice */
	reply = z.f->pipes[z.f->npipes - 1].cap;
	ring_sized = (req / 4096 + 1 + 16 * (2 * 2 + 2)) * 4096;
	assert_true(reply >= req);
	assert_true(reply < ring_sized);
	zc_fix_free(&z);
}

/* A request of one stream served on a thread of its own, as a FUSE
 * worker serves it: done once eng_player_serve returned. */
struct zc_req {
	struct zc_fix *z;
	struct iovec iov[ENG_ZC_MAX_SLOTS];
	struct eng_answer ans;
	uint64_t off;
	ssize_t n;
	int done;
};

#define ZC_REQ 100000

static void *zc_req_serve(void *arg)
{
	struct zc_req *r = arg;

	r->ans = zc_answer(r->iov);
	r->n = eng_player_serve(r->z->p, r->off, ZC_REQ, &r->ans);
	__atomic_store_n(&r->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* The reply of r: its pipe's bytes into z->got at its offset, answered. */
static void zc_req_reply(struct zc_req *r)
{
	assert_int_equal(r->n, ZC_REQ);
	assert_true(r->ans.pipe >= 0);
	assert_int_equal(pipe_pop(r->z->f, r->ans.pipe, r->z->got + r->off,
				  ZC_REQ), ZC_REQ);
	eng_player_answered(r->z->p, &r->ans, 1);
}

/* r served on a thread of its own that must wait: not done 100 ms on
 * (a thread that did not wait would be done long before). */
static void zc_req_waits(struct zc_req *r, pthread_t *t)
{
	const struct timespec tick = { 0, 100 * 1000 * 1000 };

	assert_int_equal(pthread_create(t, NULL, zc_req_serve, r), 0);
	nanosleep(&tick, NULL);
	assert_int_equal(__atomic_load_n(&r->done, __ATOMIC_SEQ_CST), 0);
}

/* Requests of one stream answered from pipes overlap, as the kernel sends
 * them (readahead, a direct_io read cut into requests): each gets a reply
 * pipe of its own, made as they overlap, and the request lock is free
 * while its reply is written.  Replies taken in any order have the
 * file's bytes; a request past ENG_ZC_REPLIES waits for a pipe to be
 * given back and gets that one; where the host refuses a second reply
 * pipe, requests take turns on the one there is.  No frame read twice. */
static void test_zc_overlap(void **state)
{
	static const int order[] = { 1, 3, 4, 2, 0 };
	int c, i;

	(void)state;
	for (c = 0; c < 2; c++) {
		struct zc_fix z;
		struct zc_req r[ENG_ZC_REPLIES + 1];
		int inflight = c == 0 ? ENG_ZC_REPLIES : 1, base;
		pthread_t t;

		zc_fix_init_as(&z, ENG_ZC_ANY_REQUEST);
		memset(r, 0, sizeof(r));
		for (i = 0; i <= inflight; i++) {
			r[i].z = &z;
			r[i].off = (uint64_t)i * ZC_REQ;
		}
		zc_req_serve(&r[0]);
		base = z.f->npipes;
		if (c == 1)
			z.f->pipe_fail_at = base;
		for (i = 1; i < inflight; i++) {
			zc_req_serve(&r[i]);
			assert_int_equal(r[i].n, ZC_REQ);
			assert_true(r[i].ans.pipe != r[i - 1].ans.pipe);
		}
		assert_int_equal(z.f->npipes, base + inflight - 1);
		/* one more: no pipe free */
		zc_req_waits(&r[inflight], &t);
		zc_req_reply(&r[inflight - 1]);
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_int_equal(r[inflight].ans.pipe,
				 r[inflight - 1].ans.pipe);
		for (i = 0; i < 5; i++)
			if (order[i] <= inflight && order[i] != inflight - 1)
				zc_req_reply(&r[order[i]]);
		assert_int_equal(z.f->npipes, base + inflight - 1);
		zc_read_rest(z.f, z.p, z.tl, z.got,
			     (uint64_t)(inflight + 1) * ZC_REQ, 65536);
		assert_memory_equal(z.got, z.want, z.tl->bytes);
		assert_int_equal(z.f->log.n, z.nslices);
		for (i = base - 2; i < z.f->npipes; i++)
			assert_int_equal(z.f->pipes[i].len, 0);
		zc_fix_free(&z);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zc_play),
		cmocka_unit_test(test_zc_not_taken),
		cmocka_unit_test(test_zc_ring_untouched),
		cmocka_unit_test(test_zc_paced),
		cmocka_unit_test(test_zc_reread),
		cmocka_unit_test(test_zc_reread_moved),
		cmocka_unit_test(test_zc_reply_short),
		cmocka_unit_test(test_zc_reset_fails),
		cmocka_unit_test(test_zc_reply_span),
		cmocka_unit_test(test_zc_split),
		cmocka_unit_test(test_zc_overlap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
