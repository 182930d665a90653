/* SPDX-License-Identifier: MIT */
/*
 * The one way a request goes (player.h, eng_player_serve): take the
 * request lock, let the first request decide zero copy, position the ring
 * and get the request's frames (player_read.c), then take each frame's
 * part once, teed into the reply pipe (player_zc.c) or as an iovec into
 * the ring, count what was served and name the page cache the reader has
 * passed.  A pipe answer lets the request lock go at once (the pipe holds
 * the pages); the caller replies from the answer and ends the request
 * with eng_player_answered().
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "play/pieces.h"
#include "play/player_i.h"

void eng_pl_answer_init(struct eng_answer *ans)
{
	ans->head.iov_base = NULL;
	ans->head.iov_len = 0;
	ans->iovcnt = 0;
	ans->pipe = -1;
	ans->pipe_len = 0;
	ans->drop_off = 0;
	ans->drop_len = 0;
	ans->nfd = 0;
	ans->fd_off = 0;
	ans->fd_len = 0;
}

void eng_pl_drop(struct eng_player *p, uint64_t at, struct eng_answer *ans)
{
	if (p->cfg.drop_passed)
		ans->drop_len = eng_evict_passed(&p->evict, at, &ans->drop_off);
}

/* The part of frame f that the request [off, off + len) covers: from
 * byte *from of the frame, 0 bytes if none. */
static size_t frame_part(const struct eng_player *p, int64_t f,
			 uint64_t off, size_t len, uint64_t *from)
{
	uint64_t fo, s, e, fe;

	fo = eng_frame_offset(p->tl, f);
	fe = eng_frame_offset(p->tl, f + 1);
	s = off > fo ? off : fo;
	e = off + len < fe ? off + len : fe;
	*from = s - fo;
	return e > s ? (size_t)(e - s) : 0;
}

/* Frames [a, b] of the request [off, off + len) into ans: the reply pipe
 * of a zero-copy player, else iovecs into the ring.  req_lock held, not
 * the lock: the request's frames stay in their slots while req_lock is
 * held, and the filler needs the lock.  0, -EIO (a pipe failed: the
 * reply pipe emptied) or -E2BIG (more pieces than ans->iovmax). */
static int answer_frames(struct eng_player *p, uint64_t off, size_t len,
			 int64_t a, int64_t b, struct eng_answer *ans)
{
	struct eng_pieces pb;
	uint64_t from;
	int zc = p->zc > 0, rc = 0;
	int64_t f;

	eng_pieces_init(&pb, ans->iov, ans->iovmax, p->spill, p->spill_bytes);
	if (zc)
		ans->pipe = eng_pl_zc_reply_get(p);
	for (f = a; f <= b && rc == 0; f++) {
		size_t slot = (size_t)(f % (int64_t)p->nslots);
		size_t part = frame_part(p, f, off, len, &from);

		if (!part)
			continue;
		if (zc)
			rc = eng_pl_zc_take(p, slot, (size_t)from, part);
		else
			rc = eng_pieces_add(&pb, p->ring + slot * p->slot_bytes +
						 from, part);
	}
	if (rc < 0) {
		if (zc) {
			eng_pl_zc_clear(p);
			eng_pl_zc_reply_put(p, ans->pipe, 1);
			ans->pipe = -1;
		}
		return rc;
	}
	if (zc) {
		ans->pipe_len = len;
	} else {
		ans->iovcnt = pb.n;
	}
	return 0;
}

ssize_t eng_pl_serve(struct eng_player *p, uint64_t off, size_t len,
		     struct eng_answer *ans, int nonblock, uint64_t at)
{
	int64_t a = 0, b = 0;
	int rc;

	if (!p || !ans || (len && (!ans->iov || ans->iovmax <= 0)))
		return -EINVAL;
	eng_pl_answer_init(ans);
	pthread_mutex_lock(&p->req_lock);
	pthread_mutex_lock(&p->lock);
	if (len > p->cfg.max_request) {
		rc = -E2BIG;
	} else {
		if (!p->zc) {
			/* the first request decides, for good */
			if (ans->pipes)
				eng_pl_zc_decide(p, len, ans->fdp ?
						 ans->fdmax : 0);
			else
				p->zc = -1;
			if (p->zc < 0)
				eng_pl_ring_touch(p);
		}
		rc = (p->zc > 0 && !ans->pipes) ||
		     (p->zc == ENG_PL_ZC_FILES && !ans->fdp) ? -EXDEV :
		     eng_pl_position(p, off, &len, &a, &b, nonblock);
	}
	pthread_mutex_unlock(&p->lock);
	if (rc > 0 && p->zc == ENG_PL_ZC_FILES)
		rc = eng_pl_fdr_answer(p, off, len, a, b, ans);
	else if (rc > 0)
		rc = answer_frames(p, off, len, a, b, ans);
	else if (rc == 0)
		len = 0;
	if (rc < 0) {
		pthread_mutex_unlock(&p->req_lock);
		return rc;
	}
	if (len) {
		pthread_mutex_lock(&p->stats_lock);
		p->st.bytes += len;
		p->st.requests++;
		pthread_mutex_unlock(&p->stats_lock);
	}
	eng_pl_drop(p, at, ans);
	/* the pipe holds the pages, the pieces their files: the next
	 * request need not wait for this one's reply */
	if (ans->pipe >= 0 || ans->nfd)
		pthread_mutex_unlock(&p->req_lock);
	return (ssize_t)len;
}

ssize_t eng_player_serve(struct eng_player *p, uint64_t off, size_t len,
			 struct eng_answer *ans)
{
	return eng_pl_serve(p, off, len, ans, 0, off);
}

void eng_player_answered(struct eng_player *p, const struct eng_answer *ans,
			 int consumed)
{
	const struct eng_io *io = p->cfg.io;

	if (ans && ans->nfd) {
		eng_pl_fdr_answered(p, ans, consumed);
		return;
	}
	if (!ans || ans->pipe < 0) {
		pthread_mutex_unlock(&p->req_lock);
		return;
	}
	/* The reply's word is not enough: libfuse answers some failures
	 * (no memory for its copy path) with an error reply and returns 0,
	 * having taken none or part of the bytes.  Whatever is left would
	 * open the next reply; the slots keep their frames either way. */
	eng_pl_zc_reply_put(p, ans->pipe,
			    consumed &&
				    io->pipe_avail(io->ctx, ans->pipe) == 0);
}

static ssize_t ring_read(struct eng_player *p, uint64_t off, size_t len,
			 struct iovec *iov, int iovmax, int *iovcnt,
			 int nonblock)
{
	struct eng_answer ans = { .iov = iov, .iovmax = iovmax };
	ssize_t n;

	if (!p || !iovcnt)
		return -EINVAL;
	*iovcnt = 0;
	n = eng_pl_serve(p, off, len, &ans, nonblock, off);
	if (n >= 0)
		*iovcnt = ans.iovcnt;
	return n;
}

ssize_t eng_player_read(struct eng_player *p, uint64_t off, size_t len,
			struct iovec *iov, int iovmax, int *iovcnt)
{
	return ring_read(p, off, len, iov, iovmax, iovcnt, 0);
}

ssize_t eng_player_try_read(struct eng_player *p, uint64_t off, size_t len,
			    struct iovec *iov, int iovmax, int *iovcnt)
{
	return ring_read(p, off, len, iov, iovmax, iovcnt, 1);
}

void eng_player_unlock(struct eng_player *p)
{
	eng_player_answered(p, NULL, 1);
}

ssize_t eng_player_copy(struct eng_player *p, void *buf, size_t len,
			uint64_t off)
{
	unsigned char *d = buf;
	ssize_t rc;
	int cnt, i;

	if (!p || (len && !buf))
		return -EINVAL;
	/* copy_iov is only touched while the lock is held */
	rc = eng_player_read(p, off, len, p->copy_iov, (int)p->nslots, &cnt);
	if (rc < 0)
		return rc;
	for (i = 0; i < cnt; i++) {
		memcpy(d, p->copy_iov[i].iov_base, p->copy_iov[i].iov_len);
		d += p->copy_iov[i].iov_len;
	}
	eng_player_unlock(p);
	return rc;
}
