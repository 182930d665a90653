/* SPDX-License-Identifier: MIT */
/*
 * A request of the virtual file: position the ring (play on, a re-read a
 * little behind it, or a seek on a fresh clock), get the request's frames
 * loaded (by the filler, or by the request itself), and count the frames
 * it hands to the reader.  serve.c answers it from them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "play/player_i.h"
#include "timeline/layout.h"

/* Frames [lo, hi) were played: add them to the seen ones where the two
 * meet, else they become the seen ones. */
static void join_seen(struct eng_player *p, int64_t lo, int64_t hi)
{
	if (p->seen_hi > p->seen_lo && p->seen_lo <= hi && lo <= p->seen_hi) {
		if (lo < p->seen_lo)
			p->seen_lo = lo;
		if (hi > p->seen_hi)
			p->seen_hi = hi;
	} else {
		p->seen_lo = lo;
		p->seen_hi = hi;
	}
}

/*
 * The anchor moves back to a (a file server's first requests came out of
 * order): the frames of the old ring in flight, [head, next), are frames
 * the new ring reaches too, on the same clock.  Dropped, each would be
 * read again (a preroll's burst has one in flight at almost every
 * anchoring).  Instead they are kept (load_end puts them in their slots
 * and counts them played) and join the seen frames, so that the new ring
 * takes them from their slots (still_held) with no second read.  Safe: the
 * new ring reserves a frame only once its slot's load is done
 * (free_loader; one load at a time without loader threads).  Only those
 * below a + nslots, whose slots no frame of the new ring before them
 * takes.  Returns one past the last one kept, or hwm.  Lock held.
 */
static int64_t keep_in_flight(struct eng_player *p, int64_t a)
{
	int64_t k, hi = p->hwm;

	if (!p->held || p->zc > 0)
		return hi;
	for (k = p->head; k < p->next && k < a + (int64_t)p->nslots; k++) {
		struct load *l = eng_pl_load_of(p, k);

		if (l->state == LD_IDLE || l->k != k || l->epoch != p->epoch)
			break;
		l->kept = 1;
		if (k + 1 > hi)
			hi = k + 1;
	}
	return hi;
}

/*
 * A seek to frames [a, b]: a reader going backwards asks, a request at a
 * time, for the frames just before those it had (the kernel's requests
 * overlap them by a frame, may come out of order, and the filler had read
 * on past them).  Where the request ends at or in the ring, the ring's
 * frames join the played ones; anything else (a jump forward, or back to
 * frames played long ago, as a loop does) plays its frames again.
 */
static void seen_after(struct eng_player *p, int64_t a, int64_t b)
{
	if (!p->anchored || a >= p->lo || b + 1 < p->lo) {
		p->seen_lo = p->seen_hi = 0;
		return;
	}
	join_seen(p, p->lo, p->head);
}

/*
 * The frames whose last byte the request [off, off + len) of frames [a, b]
 * hands to the reader: each counted once (p->handed), and late to the
 * reader when that is after the frame was due on the stream's clock.  A
 * frame of no bytes (a gap) has no last byte to hand.  Lock held.
 */
static void count_handed(struct eng_player *p, uint64_t off, size_t len,
			 int64_t a, int64_t b)
{
	const struct eng_io *io = p->cfg.io;
	uint64_t now = 0, fo, fe;
	int64_t f, handed = 0, late = 0;

	for (f = a; f <= b; f++) {
		size_t slot = (size_t)(f % (int64_t)p->nslots);

		fo = eng_frame_offset(p->tl, f);
		fe = eng_frame_offset(p->tl, f + 1);
		if (fe == fo || fe <= off || fe > off + len ||
		    p->handed[slot] == f)
			continue;
		p->handed[slot] = f;
		if (!now)
			now = io->now(io->ctx);
		handed++;
		if (now > clock_ns(p, f) + period_ns(p, p->cfg.buffer))
			late++;
	}
	if (!handed)
		return;
	pthread_mutex_lock(&p->stats_lock);
	p->st.handed_frames += handed;
	p->st.reader_late_frames += late;
	pthread_mutex_unlock(&p->stats_lock);
}

/* Where a request of frames [a, b] puts the ring: a re-read close
 * behind it, a file server's out-of-order start, a seek on a fresh
 * clock, or nothing.  1 if the ring restarts (epoch bumped, next at the
 * head), else 0.  Lock held. */
static int place(struct eng_player *p, int64_t a, int64_t b)
{
	const struct eng_timeline *tl = p->tl;
	const struct eng_io *io = p->cfg.io;
	int restarted = 0;

	/* A little behind what the ring holds: concurrent readahead requests
	 * served out of order, or the reader faulting again pages the kernel
	 * dropped.  Not a seek: keep the clock, restart the ring at a and
	 * read those frames again (load_end does not count them twice).
	 * Only frames played since the clock was anchored can be read
	 * again: a reader going backwards (tac, a reverse pread loop, J-K-L
	 * reverse play) asks for frames before the anchor, never played;
	 * taken for re-reads they were counted as reloads and not played,
	 * and on the old clock already due, so not paced either. */
	if (p->anchored && a < p->lo && a + p->seek_gap >= p->lo &&
	    a >= p->anchor_frame) {
		p->lo = p->head = a;
		restarted = 1;
	} else if (p->anchored && p->cfg.window && a < p->anchor_frame &&
		   a + p->seek_gap >= p->anchor_frame &&
		   p->hwm <= p->anchor_frame + p->seek_gap) {
		/* A file server's requests of one seek (or of the start),
		 * served out of order: the first to arrive was one further
		 * on.  Not a second seek: the clock moves back to a at the
		 * same instant, and the frames played from the old anchor on
		 * are not played again (nor read again while their slots
		 * hold them), nor those in flight (keep_in_flight). */
		join_seen(p, p->anchor_frame, keep_in_flight(p, a));
		pthread_mutex_lock(&p->stats_lock);
		p->st.head = a;
		pthread_mutex_unlock(&p->stats_lock);
		p->lo = p->head = p->hwm = a;
		p->anchor_frame = a;
		restarted = 1;
	} else if (!p->anchored || a < p->lo ||
		   (a > p->head + p->seek_gap &&
		    a > eng_next_segment_frame(tl, p->head) + p->seek_gap)) {
		/* Far from the play head: the workstation jumped; play from
		 * there on a fresh clock.  Frames that are gaps on every
		 * track do not count in how far: they hold nothing to read,
		 * and a movie player, which shows a video gap as the
		 * header's black picture, skips them and plays on. */
		pthread_mutex_lock(&p->stats_lock);
		if (p->anchored)
			p->st.seeks++;
		p->st.head = a;
		pthread_mutex_unlock(&p->stats_lock);
		seen_after(p, a, b);
		p->anchored = 1;
		p->lo = p->head = p->hwm = a;
		p->anchor_ns = io->now(io->ctx);
		p->anchor_frame = a;
		restarted = 1;
	} else if (p->zc == 1 && eng_pl_zc_gone(p, a, b)) {
		/* a frame's bytes already moved out to a reply: a re-read */
		p->lo = p->head = a;
		restarted = 1;
	}
	if (restarted) {
		/* frames in flight for the old ring are read but not
		 * published (load_end), and no new one is handed out until
		 * they are done (free_loader) */
		p->epoch++;
		p->next = p->head;
		/* what the filler waited for was the old ring's frame's */
		p->wake_at = 0;
		p->fill_seen = -1;
	}
	return restarted;
}

/* Frames [a, b] of a request in their slots: a filled player's filler
 * (or loaders) brings them, an unfilled one loads them here.  0,
 * -EAGAIN (nonblock, not there yet) or -EINTR (the stream ends).  Lock
 * held (released while waiting). */
static int await_frames(struct eng_player *p, int64_t a, int64_t b,
			int nonblock, int restarted)
{
	const struct eng_timeline *tl = p->tl;
	const struct eng_io *io = p->cfg.io;

	if (p->filled) {
		/* the request's frames are pinned from here on; those below
		 * are free for the filler to reuse */
		p->need_lo = a;
		eng_pl_wake_filler(p, restarted);
		while (p->head <= b) {
			if (p->cancelled) {
				/* the stream ends (eng_player_cancel): its
				 * frames may never come */
				return -EINTR;
			}
			if (p->filler_on) {
				if (nonblock) {
					return -EAGAIN;
				}
				p->waiters++;
				pthread_cond_wait(&p->ready_cv, &p->lock);
				p->waiters--;
			} else if (nonblock) {
				return -EAGAIN;
			} else if (p->loading) {
				/* loader threads with no filler (a test's,
				 * or stopped): their frames first */
				p->waiters++;
				pthread_cond_wait(&p->ready_cv, &p->lock);
				p->waiters--;
			} else {
				/* no filler (not started, or stopped): the
				 * request loads its frames, as unfilled */
				eng_pl_load_frame(p);
			}
		}
	} else {
		/* frames between the head and a are played too, as a player
		 * would */
		while (p->head <= b)
			eng_pl_load_frame(p);
		/* A reader behind schedule: load what is already due, without
		 * sleeping and without evicting anything this request needs. */
		if (p->cfg.pace.mode != ENG_PACE_OFF)
			while (p->head < tl->frames &&
			       p->head <= b + (int64_t)p->cfg.buffer &&
			       p->head - a < (int64_t)p->nslots &&
			       issue_ns(p, p->head) <= io->now(io->ctx))
				eng_pl_load_frame(p);
	}

	return 0;
}

int eng_pl_position(struct eng_player *p, uint64_t off, size_t *lenp,
		    int64_t *ap, int64_t *bp, int nonblock)
{
	const struct eng_timeline *tl = p->tl;
	size_t len = *lenp;
	int64_t a, b, f;
	int rc;

	if (len == 0 || off >= tl->bytes)
		return 0;
	if (len > tl->bytes - off)
		len = (size_t)(tl->bytes - off);
	a = eng_frame_at(tl, off);
	b = eng_frame_at(tl, off + len - 1);
	rc = await_frames(p, a, b, nonblock, place(p, a, b));
	if (rc < 0)
		return rc;
	for (f = a; f <= b; f++)
		if (p->failed[f % (int64_t)p->nslots])
			return -EIO;
	count_handed(p, off, len, a, b);
	*lenp = len;
	*ap = a;
	*bp = b;
	return 1;
}
