/* SPDX-License-Identifier: MIT */
/*
 * Zero copy: with cfg.zero_copy, pace=off and buffered backing, each ring
 * slot is a pipe that the backing read splices the page cache's pages into,
 * and a request hands out pieces of those pipes for the caller to splice to
 * its reply: no copy of the data in user space.  A pipe hands its bytes
 * out once, so a request behind what a pipe holds reads its frames again.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>

#include "play/player_i.h"

/* The zero-copy pipes' bytes per slot (zc_decide): an extent spliced from
 * an unaligned offset starts and ends in part pages, and each pipe buffer
 * holds at most one page. */
size_t eng_pl_zc_pipe_bytes(const struct eng_timeline *tl, size_t slot_bytes)
{
	size_t ext = tl->slice_extents_max ? tl->slice_extents_max : 1;

	return ((slot_bytes + 4095) / 4096 + 2 * tl->ntracks * ext + 1) *
	       4096;
}

/* Empty slot's pipe of what its last frame left: bytes never asked for
 * (frames played past on the way to a request, a failed frame).  Reading
 * in order consumes every byte, so this costs nothing then. */
void eng_pl_zc_reset_slot(struct eng_player *p, size_t slot)
{
	const struct eng_io *io = p->cfg.io;

	/* all it holds, not fill - pos: a count gone wrong must not leave
	 * old bytes ahead of the next frame's */
	if (p->zc_fill[slot] > p->zc_pos[slot])
		io->pipe_skip(io->ctx, p->zc_fds[slot][0], SIZE_MAX);
	p->zc_fill[slot] = p->zc_pos[slot] = 0;
}

/* A gap's zero bytes into the slot's pipe; if the pipe refuses them the
 * frame cannot be served and fails, like a frame with a failed read. */
void eng_pl_zc_zero(struct eng_player *p, struct load *l, size_t len)
{
	const struct eng_io *io = p->cfg.io;
	ssize_t r = io->pipe_zero(io->ctx, p->zc_fds[l->slot][1], len);

	if (r > 0)
		p->zc_fill[l->slot] += (size_t)r;
	if (r < 0 || (size_t)r < len)
		l->failed = 1;
}

void eng_pl_zeros(struct eng_player *p, struct load *l, unsigned char *at,
		  size_t len)
{
	if (p->zc > 0)
		eng_pl_zc_zero(p, l, len);
	else
		memset(at, 0, len);
}

/* Zero copy for this player?  Decided once, at the first request, with
 * the lock held; creates the slots' pipes (all, or none: the ring). */
void eng_pl_zc_decide(struct eng_player *p, size_t len)
{
	const struct eng_io *io = p->cfg.io;
	size_t i = 0, bytes;

	if (p->zc)
		return;
	p->zc = -1;
	if (!p->cfg.zero_copy || !io->pipe_new || !io->pipe_free ||
	    !io->splice_in || !io->pipe_zero || !io->pipe_skip ||
	    !io->pipe_avail || p->cfg.pace.mode != ENG_PACE_OFF || p->filled ||
	    p->cfg.backing != ENG_BACKING_BUFFERED ||
	    len < ENG_ZC_MIN_REQUEST || p->nslots > ENG_ZC_MAX_SLOTS)
		return;
	bytes = eng_pl_zc_pipe_bytes(p->tl, p->slot_bytes);
	p->zc_fds = calloc(p->nslots, sizeof(*p->zc_fds));
	p->zc_fill = calloc(p->nslots, sizeof(*p->zc_fill));
	p->zc_pos = calloc(p->nslots, sizeof(*p->zc_pos));
	if (!p->zc_fds || !p->zc_fill || !p->zc_pos)
		goto undo;
	for (i = 0; i < p->nslots; i++)
		if (io->pipe_new(io->ctx, bytes, p->zc_fds[i]) < 0)
			goto undo;
	p->zc = 1;
	return;
undo:
	while (p->zc_fds && i-- > 0)
		io->pipe_free(io->ctx, p->zc_fds[i]);
	free(p->zc_fds);
	free(p->zc_fill);
	free(p->zc_pos);
	p->zc_fds = NULL;
	p->zc_fill = p->zc_pos = NULL;
}

/* Zero copy: a pipe hands its bytes out once.  A request that starts
 * before what frame f's pipe still holds needs f read again. */
int eng_pl_zc_behind(const struct eng_player *p, uint64_t off, int64_t a,
		     int64_t b)
{
	int64_t f, from = a > p->lo ? a : p->lo;
	int64_t to = b < p->head - 1 ? b : p->head - 1;

	for (f = from; f <= to; f++) {
		uint64_t fo, st;

		eng_pl_frame_part(p, f, off, 1, &fo, &st);
		if (p->zc_pos[f % (int64_t)p->nslots] > st)
			return 1;
	}
	return 0;
}

/* Empty every pipe and forget what the ring held, lock held: the next
 * request reads its frames again. */
static void zc_drop(struct eng_player *p)
{
	const struct eng_io *io = p->cfg.io;
	size_t i;

	for (i = 0; i < p->nslots; i++) {
		io->pipe_skip(io->ctx, p->zc_fds[i][0], SIZE_MAX);
		p->zc_fill[i] = p->zc_pos[i] = 0;
	}
	p->lo = p->head;
	p->epoch++;
	p->zc_nused = 0;
}

ssize_t eng_player_read_zc(struct eng_player *p, uint64_t off, size_t len,
			   struct eng_piece *pc, int pcmax, int *pccnt)
{
	const struct eng_io *io;
	uint64_t fo, from;
	int64_t a, b, f;
	int n = 0, rc;
	size_t part;

	if (!p || !pccnt || (len && (!pc || pcmax <= 0)))
		return -EINVAL;
	*pccnt = 0;
	io = p->cfg.io;
	rc = eng_pl_prepare(p, off, &len, &a, &b, 0, 1);
	if (rc <= 0)
		return rc;
	/* first see that it fits: the pipes are not touched on failure */
	if (b - a + 1 > pcmax || b - a + 1 > ENG_ZC_MAX_SLOTS) {
		rc = -E2BIG;
		goto out_unlock;
	}
	p->zc_nused = 0;
	for (f = a; f <= b; f++) {
		size_t slot = (size_t)(f % (int64_t)p->nslots);

		part = eng_pl_frame_part(p, f, off, len, &fo, &from);
		if (!part)
			continue;
		/* a request starting inside a frame (after a seek, say):
		 * what comes before it is not the reader's */
		if (p->zc_pos[slot] < from) {
			rc = io->pipe_skip(io->ctx, p->zc_fds[slot][0],
					   (size_t)from - p->zc_pos[slot]);
			if (rc < 0) {
				rc = -EIO;
				goto out_drop;
			}
			p->zc_pos[slot] = (size_t)from;
		}
		if (p->zc_pos[slot] + part > p->zc_fill[slot]) {
			rc = -EIO;	/* never: a loaded frame is whole */
			goto out_drop;
		}
		pc[n].fd = p->zc_fds[slot][0];
		pc[n].len = part;
		p->zc_pos[slot] += part;
		p->zc_used[n] = slot;
		n++;
	}
	*pccnt = n;
	p->zc_nused = n;
	return eng_pl_served(p, len);
out_drop:
	/* the pieces before this one count as handed out: they are not */
	zc_drop(p);
out_unlock:
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->req_lock);
	return rc;
}

/* Is every pipe the last request used holding what the counts say is
 * left in it?  req_lock held: pace=off, so nothing else touches them. */
static int zc_pipes_agree(struct eng_player *p)
{
	const struct eng_io *io = p->cfg.io;
	int i;

	for (i = 0; i < p->zc_nused; i++) {
		size_t slot = p->zc_used[i];
		ssize_t left = io->pipe_avail(io->ctx, p->zc_fds[slot][0]);

		if (left < 0 ||
		    (size_t)left != p->zc_fill[slot] - p->zc_pos[slot])
			return 0;
	}
	return 1;
}

void eng_player_zc_done(struct eng_player *p, int consumed)
{
	/* The reply's word is not enough: libfuse answers some failures
	 * (no memory for its copy path) with an error reply and returns 0,
	 * having taken none or part of the bytes.  Bytes left behind would
	 * be handed out later as another part of the file. */
	if (p->zc > 0 && (!consumed || !zc_pipes_agree(p))) {
		pthread_mutex_lock(&p->lock);
		zc_drop(p);
		pthread_mutex_unlock(&p->lock);
	}
	p->zc_nused = 0;
	pthread_mutex_unlock(&p->req_lock);
}

/* The page cache's pages of [off, off + len) of fd go into the slot of
 * a->frame's pipe, uncopied: the same read of the storage as a copy into
 * the ring, timed the same way; fills the times and err of a. */
ssize_t eng_pl_zc_splice(struct eng_player *p, int fd, uint64_t off,
			 uint64_t len, struct eng_access *a)
{
	const struct eng_io *io = p->cfg.io;
	size_t slot = (size_t)(a->frame % (int64_t)p->nslots);
	ssize_t r;

	a->issued_ns = io->now(io->ctx);
	r = io->splice_in(io->ctx, fd, off, (size_t)len, p->zc_fds[slot][1]);
	a->done_ns = io->now(io->ctx);
	if (r < 0) {
		a->err = (int)-r;
	} else {
		p->zc_fill[slot] += (size_t)r;
		if ((uint64_t)r < len)
			a->err = EIO;
	}
	return r;
}

/* The pipes of a zero-copy player, at its end. */
void eng_pl_zc_free(struct eng_player *p)
{
	size_t i;

	if (p->zc > 0)
		for (i = 0; i < p->nslots; i++)
			p->cfg.io->pipe_free(p->cfg.io->ctx, p->zc_fds[i]);
	free(p->zc_fds);
	free(p->zc_fill);
	free(p->zc_pos);
}
