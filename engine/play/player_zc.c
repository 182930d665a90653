/* SPDX-License-Identifier: MIT */
/*
 * Zero copy: with cfg.zero_copy and buffered backing, each ring slot is a
 * pipe that the backing read (the request's, or a paced stream's
 * filler's or loaders') splices the page cache's pages into, and a
 * request's reply is put together in a reply pipe of its own
 * by reference (tee of the slot's pipe, its frame's bytes before the
 * request skipped): no copy of the data in user space.  A slot's pipe
 * keeps its frame until the slot is loaded again, as the ring does, so a
 * request behind another (readahead out of order, a re-read) is served
 * from it with no second read.  But an unpaced direct_io stream's request
 * that takes a frame's last bytes moves them out instead (its reader
 * reads in order: teeing each page and letting the frame go at its slot's
 * next load cost 10 % of such a stream's MB/s); a request that needs such
 * a frame again reads it again, as a re-read behind the ring does.  A
 * paced stream's frames stay (its filler reads ahead on the clock: a
 * frame gone from its slot would be a read the clock never issued).  A
 * frame larger than the pipes the host allows (2K DPX) is held in
 * several pipes of its slot, each piece of a reply teed from the one
 * that holds it.
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

/* The reply pipe's bytes: a request's len in pages, and each of the at
 * most span frames it spans its part pages (as a slot's, and two more at
 * each of its k pipes' ends).  Sized by the frames a request can span,
 * not by the ring: at the stock pipe-max-size (1 MiB) a 512 KiB reply
 * over two video frames fits, over the ring's 16 slots' part pages it
 * would not. */
size_t eng_pl_zc_reply_bytes(const struct eng_timeline *tl, size_t span,
			     size_t k, size_t max_request)
{
	size_t ext = tl->slice_extents_max ? tl->slice_extents_max : 1;

	return ((max_request + 4095) / 4096 + 1 +
		span * (2 * tl->ntracks * ext + 2 * k)) * 4096;
}

/* Pipes a slot may use at most: a 2K DPX frame (8.85 MB) in 1 MiB pipes
 * takes 9; past this a frame is too large for pipes at all. */
#define ZC_MAX_K 32

/* The pipe of a slot that holds the slot's byte at (< the slot's fill). */
static int *zc_pipe(const struct eng_player *p, size_t slot, size_t at)
{
	return p->zc_fds[slot * p->zc_k + at / p->zc_budget];
}

/* The room of the pipe that takes the slot's next byte. */
static size_t zc_room(const struct eng_player *p, size_t slot)
{
	return p->zc_budget - p->zc_fill[slot] % p->zc_budget;
}

/* A slot's pipe that could not be emptied: its frames fail until it is */
#define ZC_BAD SIZE_MAX
/* A slot's frame moved out to a reply (keep 0): the pipe is empty */
#define ZC_GONE (SIZE_MAX - 1)

/* Empty slot's pipes of its last frame, before the slot is loaded again:
 * those that hold any of it, or all of them when that is not known. */
void eng_pl_zc_reset_slot(struct eng_player *p, size_t slot)
{
	const struct eng_io *io = p->cfg.io;
	size_t fill = p->zc_fill[slot], at;

	if (fill == ZC_GONE)
		fill = 0;
	if (fill == ZC_BAD)
		fill = p->zc_k * p->zc_budget;	/* unknown: try each */
	for (at = 0; at < fill; at += p->zc_budget)
		if (io->pipe_skip(io->ctx, zc_pipe(p, slot, at)[0],
				  SIZE_MAX) < 0) {
			p->zc_fill[slot] = ZC_BAD;
			return;
		}
	p->zc_fill[slot] = 0;
}

/* A gap's zero bytes into the slot's pipe; if the pipe refuses them the
 * frame cannot be served and fails, like a frame with a failed read. */
void eng_pl_zc_zero(struct eng_player *p, struct load *l, size_t len)
{
	const struct eng_io *io = p->cfg.io;
	size_t *fill = &p->zc_fill[l->slot];

	while (len) {
		size_t n = len < zc_room(p, l->slot) ? len :
			   zc_room(p, l->slot);
		ssize_t r;

		if (*fill == ZC_BAD || *fill + n > p->zc_k * p->zc_budget) {
			l->failed = 1;
			return;
		}
		r = io->pipe_zero(io->ctx, zc_pipe(p, l->slot, *fill)[1], n);
		if (r > 0)
			*fill += (size_t)r;
		if (r < 0 || (size_t)r < n) {
			l->failed = 1;
			return;
		}
		len -= n;
	}
}

void eng_pl_zeros(struct eng_player *p, struct load *l, unsigned char *at,
		  size_t len)
{
	/* replies from the files: a gap's zeros are the reply's own */
	if (p->zc == 1)
		eng_pl_zc_zero(p, l, len);
	else if (p->zc != ENG_PL_ZC_FILES)
		memset(at, 0, len);
}

/* The pipes of a slot: one of the frame's bytes, or, where the host
 * refuses a pipe that large (fs.pipe-max-size; a 2K DPX frame is 8.85
 * MB), as few smaller ones as it allows, each of a k-th of the frame.
 * The first one made is the test; its fds in fds, the bytes of each in
 * *bytes, the pipes in *k; -1 when not even ZC_MAX_K do. */
static int zc_first_pipe(struct eng_player *p, int fds[2], size_t *bytes,
			 size_t *k)
{
	const struct eng_io *io = p->cfg.io;

	for (*k = 1; *k <= ZC_MAX_K; ++*k) {
		p->zc_budget = (p->slot_bytes + *k - 1) / *k;
		if (*k > 1)	/* each but the last pipe holds it whole */
			p->zc_budget = (p->zc_budget + 4095) & ~(size_t)4095;
		*bytes = eng_pl_zc_pipe_bytes(p->tl, p->zc_budget);
		if (io->pipe_new(io->ctx, *bytes, fds) == 0)
			return 0;
	}
	return -1;
}

/* A reply pipe, sized by eng_pl_zc_reply_bytes: 0 or -1. */
static int zc_reply_new(struct eng_player *p, int fds[2])
{
	const struct eng_io *io = p->cfg.io;

	return io->pipe_new(io->ctx,
			    eng_pl_zc_reply_bytes(p->tl, p->zc_span, p->zc_k,
						  p->cfg.max_request),
			    fds);
}

int eng_pl_zc_reply_get(struct eng_player *p)
{
	size_t i;

	pthread_mutex_lock(&p->zc_lock);
	for (;;) {
		for (i = 0; i < p->zc_nreply; i++)
			if (!(p->zc_busy & 1u << i))
				goto take;
		/* a pipe more only where requests overlap: most streams
		 * never have two replies on the way */
		if (i < ENG_ZC_REPLIES && !p->zc_nomore) {
			if (zc_reply_new(p, p->zc_replies[i]) == 0) {
				p->zc_nreply++;
				goto take;
			}
			p->zc_nomore = 1;
		}
		pthread_cond_wait(&p->zc_cv, &p->zc_lock);
	}
take:
	p->zc_busy |= 1u << i;
	p->zc_cur = (int)i;
	pthread_mutex_unlock(&p->zc_lock);
	return p->zc_replies[i][0];
}

void eng_pl_zc_reply_put(struct eng_player *p, int rd, int empty)
{
	const struct eng_io *io = p->cfg.io;
	size_t i;

	/* bytes a failed reply left would open the next reply */
	if (!empty)
		io->pipe_skip(io->ctx, rd, SIZE_MAX);
	pthread_mutex_lock(&p->zc_lock);
	for (i = 0; i < p->zc_nreply; i++)
		if (p->zc_replies[i][0] == rd)
			p->zc_busy &= ~(1u << i);
	pthread_cond_signal(&p->zc_cv);
	pthread_mutex_unlock(&p->zc_lock);
}

/* Zero copy for this player?  Decided once, at the first request, with
 * the lock held (a filler starts only when the request anchors it):
 * replies from the clips' files where the caller takes them (fdmax
 * pieces) and the player may (eng_pl_fdr_decide), else the slots' pipes
 * and the scratch and reply pipes (all, or none: the ring). */
void eng_pl_zc_decide(struct eng_player *p, size_t len, int fdmax)
{
	const struct eng_io *io = p->cfg.io;
	size_t i = 0, bytes, n;

	if (p->zc)
		return;
	p->zc = -1;
	if (fdmax > 0 && p->cfg.zero_copy == ENG_ZC_FILES &&
	    eng_pl_fdr_decide(p, fdmax)) {
		p->zc = ENG_PL_ZC_FILES;
		return;
	}
	if (!p->cfg.zero_copy || !io->pipe_new || !io->pipe_free ||
	    !io->splice_in || !io->pipe_zero || !io->pipe_skip ||
	    !io->pipe_avail || !io->pipe_tee || !io->pipe_move ||
	    /* a frame read ahead as another's decoding dependency (long-GOP
	     * media with B frames) is copied into its slot at its turn
	     * (load_kept): memory, which no pipe holds */
	    p->nahead ||
	    p->cfg.backing != ENG_BACKING_BUFFERED ||
	    (len < ENG_ZC_MIN_REQUEST &&
	     p->cfg.zero_copy < ENG_ZC_ANY_REQUEST) ||
	    p->nslots > ENG_ZC_MAX_SLOTS)
		return;
	p->zc_fill = calloc(p->nslots, sizeof(*p->zc_fill));
	if (!p->zc_fill)
		return;
	p->zc_fds = calloc(p->nslots * ZC_MAX_K, sizeof(*p->zc_fds));
	if (!p->zc_fds || zc_first_pipe(p, p->zc_fds[0], &bytes, &p->zc_k))
		goto undo;
	n = p->nslots * p->zc_k;
	for (i = 1; i < n; i++)
		if (io->pipe_new(io->ctx, bytes, p->zc_fds[i]) < 0)
			goto undo;
	/* a pipe's bytes up to the request's end (scratch), a reply's */
	if (io->pipe_new(io->ctx, bytes, p->zc_scratch) < 0)
		goto undo;
	if (zc_reply_new(p, p->zc_replies[0]) < 0) {
		io->pipe_free(io->ctx, p->zc_scratch);
		goto undo;
	}
	p->zc_nreply = 1;
	p->zc = 1;
	return;
undo:
	while (p->zc_fds && i-- > 0)
		io->pipe_free(io->ctx, p->zc_fds[i]);
	free(p->zc_fds);
	free(p->zc_fill);
	p->zc_fds = NULL;
	p->zc_fill = NULL;
}

/* Does a request of frames [a, b] need a frame whose bytes were moved
 * out (lock held)?  Only frames the ring holds, [lo, head). */
int eng_pl_zc_gone(const struct eng_player *p, int64_t a, int64_t b)
{
	int64_t f, from = a > p->lo ? a : p->lo;
	int64_t to = b < p->head - 1 ? b : p->head - 1;

	for (f = from; f <= to; f++)
		if (p->zc_fill[f % (int64_t)p->nslots] == ZC_GONE)
			return 1;
	return 0;
}

/* A frame's last bytes [from, fill) moved out of its slot's pipe into the
 * reply, the pipe emptied: 0 or -EIO (the frame gone either way). */
static int zc_move_tail(struct eng_player *p, size_t slot, size_t from,
			size_t part)
{
	const struct eng_io *io = p->cfg.io;
	int rd = p->zc_fds[slot][0];

	p->zc_fill[slot] = ZC_GONE;
	if (from && io->pipe_skip(io->ctx, rd, from) < 0)
		return -EIO;
	return io->pipe_move(io->ctx, rd, p->zc_replies[p->zc_cur][1],
			     part) == (ssize_t)part ? 0 : -EIO;
}

/* Bytes [from, from + part) of one pipe, appended to the reply pipe by
 * reference: tee of its first from + part bytes into the scratch pipe,
 * the first from let go, the rest moved on; from its start, teed
 * straight into the reply (a reader in order starts most pieces there).
 * 0 or -EIO. */
static int zc_tee(struct eng_player *p, int rd, size_t from, size_t part)
{
	const struct eng_io *io = p->cfg.io;
	int *sc = p->zc_scratch, wr = p->zc_replies[p->zc_cur][1];

	if (!from)
		return io->pipe_tee(io->ctx, rd, wr, part) == (ssize_t)part ?
			       0 : -EIO;
	if (io->pipe_tee(io->ctx, rd, sc[1], from + part) !=
	    (ssize_t)(from + part))
		return -EIO;
	if (io->pipe_skip(io->ctx, sc[0], from) < 0)
		return -EIO;
	if (io->pipe_move(io->ctx, sc[0], wr, part) != (ssize_t)part)
		return -EIO;
	return 0;
}

/* Bytes [from, from + part) of a slot's frame, appended to the reply
 * pipe: from each of its pipes that holds some (zc_tee); an unpaced
 * direct_io stream's frame's last bytes, in one pipe, moved out
 * (zc_move_tail).  0 or -EIO. */
int eng_pl_zc_take(struct eng_player *p, size_t slot, size_t from,
		   size_t part)
{
	size_t fill = p->zc_fill[slot], b = p->zc_budget;

	if (fill >= ZC_GONE || from + part > fill)
		return -EIO;	/* never: a loaded frame is whole */
	if (p->cfg.zero_copy < ENG_ZC_ANY_REQUEST && !p->filled &&
	    p->zc_k == 1 && from + part == fill)
		return zc_move_tail(p, slot, from, part);
	while (part) {
		size_t in = from % b, n = b - in < part ? b - in : part;

		if (zc_tee(p, zc_pipe(p, slot, from)[0], in, n) < 0)
			return -EIO;
		from += n;
		part -= n;
	}
	return 0;
}

/* The scratch pipe and the reply pipe being filled emptied: nothing of
 * one request is left for the next. */
void eng_pl_zc_clear(struct eng_player *p)
{
	const struct eng_io *io = p->cfg.io;

	io->pipe_skip(io->ctx, p->zc_scratch[0], SIZE_MAX);
	io->pipe_skip(io->ctx, p->zc_replies[p->zc_cur][0], SIZE_MAX);
}

/* The page cache's pages of [off, off + len) of fd go into the slot of
 * a->frame's pipes, uncopied: the same read of the storage as a copy into
 * the ring, timed the same way; fills the times and err of a. */
ssize_t eng_pl_zc_splice(struct eng_player *p, int fd, uint64_t off,
			 uint64_t len, struct eng_access *a)
{
	const struct eng_io *io = p->cfg.io;
	size_t slot = (size_t)(a->frame % (int64_t)p->nslots);
	size_t *fill = &p->zc_fill[slot];
	ssize_t r = 0, got = 0;

	a->issued_ns = io->now(io->ctx);
	while ((uint64_t)got < len) {
		size_t n = zc_room(p, slot);

		if (n > len - (uint64_t)got)
			n = (size_t)(len - (uint64_t)got);
		if (*fill == ZC_BAD || *fill + n > p->zc_k * p->zc_budget) {
			r = -EIO;
			break;
		}
		r = io->splice_in(io->ctx, fd, off + (uint64_t)got, n,
				  zc_pipe(p, slot, *fill)[1]);
		if (r <= 0)
			break;
		*fill += (size_t)r;
		got += r;
		if ((size_t)r < n)
			break;	/* the file's end */
	}
	a->done_ns = io->now(io->ctx);
	if (r < 0) {
		a->err = (int)-r;
		return r;
	}
	if ((uint64_t)got < len)
		a->err = EIO;
	return got;
}

/* The pipes of a zero-copy player, at its end. */
void eng_pl_zc_free(struct eng_player *p)
{
	const struct eng_io *io = p->cfg.io;
	size_t i;

	if (p->zc == 1) {
		for (i = 0; i < p->nslots * p->zc_k; i++)
			io->pipe_free(io->ctx, p->zc_fds[i]);
		io->pipe_free(io->ctx, p->zc_scratch);
		for (i = 0; i < p->zc_nreply; i++)
			io->pipe_free(io->ctx, p->zc_replies[i]);
	}
	free(p->zc_fds);
	free(p->zc_fill);
}
