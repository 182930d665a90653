/* SPDX-License-Identifier: MIT */
/*
 * Replies from the clips' files (cfg.zero_copy ENG_ZC_FILES, an unpaced
 * stream): a request's answer is the pieces of the clips' files its
 * bytes are (each extent of each track's slice of its frames, a gap's
 * zeros), which the caller splices to the reader; no pipe or ring of the
 * player holds a frame.  The ring's positioning is as for any stream (the
 * clock, seeks, re-reads, what is played), and a frame is still loaded
 * once, in order: its load checks that each extent's bytes are in its
 * file (a clip being recorded is waited for, as a read of it would be)
 * and keeps its access rows in its slot.  The storage is read when the
 * replies splice the bytes, so a row is done when the reply that carried
 * its track's last byte of the frame has been written
 * (eng_pl_fdr_answered): the frame's rows are recorded then, and the
 * frame is late when that is after its due time.  A frame the reader did
 * not take whole (a seek from its middle, the stream's end) is recorded
 * when its slot is loaded again or the stream stops, its rows ending at
 * the last reply that carried any of their bytes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "play/player_i.h"
#include "timeline/layout.h"

/* Zero bytes a gap's piece points at; never written.  Gaps longer than
 * this are several pieces. */
#define FDR_ZERO (1u << 20)
static unsigned char fdr_zeros[FDR_ZERO];

/* The pieces a frame may need at most: each track's extents, or a gap's
 * zero pieces. */
static size_t frame_pieces(const struct eng_player *p)
{
	const struct eng_timeline *tl = p->tl;
	size_t ext = tl->slice_extents_max ? tl->slice_extents_max : 1;
	size_t zero = p->slot_bytes / FDR_ZERO + 1;

	return tl->ntracks * (ext > zero ? ext : zero);
}

int eng_pl_fdr_decide(struct eng_player *p, int fdmax)
{
	const struct eng_timeline *tl = p->tl;
	size_t i, rows = eng_pl_reads_max(tl);
	unsigned char *mem;

	/* an io that does not splice from files (-o inject's, whose
	 * faults are its preads') reads them itself */
	if (!p->cfg.io->splice_in ||
	    p->filled || p->nahead || eng_pl_seq_any(tl) ||
	    p->cfg.backing != ENG_BACKING_BUFFERED || !p->zc_span ||
	    p->zc_span * frame_pieces(p) > (size_t)fdmax)
		return 0;
	p->fdr = calloc(p->nslots, sizeof(*p->fdr));
	mem = calloc(p->nslots, rows * sizeof(struct eng_access) +
				tl->ntracks * 2 * sizeof(uint64_t));
	if (!p->fdr || !mem) {
		free(p->fdr);
		free(mem);
		p->fdr = NULL;
		return 0;
	}
	p->fdr_mem = mem;
	for (i = 0; i < p->nslots; i++) {
		struct fdr_slot *s = &p->fdr[i];

		s->k = -1;
		s->rows = (struct eng_access *)(void *)mem;
		mem += rows * sizeof(struct eng_access);
		s->left = (uint64_t *)(void *)mem;
		s->last = s->left + tl->ntracks;
		mem += tl->ntracks * 2 * sizeof(uint64_t);
	}
	return 1;
}

void eng_pl_fdr_free(struct eng_player *p)
{
	free(p->fdr);
	free(p->fdr_mem);
	p->fdr = NULL;
	p->fdr_mem = NULL;
}

void eng_pl_fdr_extent(struct eng_player *p, struct load *l, int fd,
		       const char *file, uint64_t off, uint64_t len,
		       int awaitable, struct eng_access *a)
{
	const struct eng_io *io = p->cfg.io;
	uint64_t size;

	a->issued_ns = a->done_ns = io->now(io->ctx);
	if (!io->size)
		return;
	if (io->size(io->ctx, fd, &size) < 0) {
		a->err = EIO;
		return;
	}
	if (size >= off + len)
		return;
	if (awaitable && eng_pl_await_bytes(p, l, fd, file, off + len, a) &&
	    io->size(io->ctx, fd, &size) == 0 && size >= off + len)
		return;
	a->err = EIO;
}

/* Rows of track t of slot s not yet done end at `at` (lock held). */
static void track_done(struct fdr_slot *s, size_t t, uint64_t at)
{
	size_t i;

	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].track == t && s->rows[i].op != ENG_OP_AWAIT &&
		    !s->rows[i].dep && !s->rows[i].done_ns)
			s->rows[i].done_ns = at > s->rows[i].issued_ns ?
					     at : s->rows[i].issued_ns;
}

/* Slot's frame ended: its rows' times known (those whose bytes did not
 * all go end at the last reply that carried any, or where they began),
 * counted in the stream's figures and recorded (lock held). */
static void finish(struct eng_player *p, size_t slot)
{
	struct fdr_slot *s = &p->fdr[slot];
	enum eng_cause cause;
	uint64_t last = 0, worst = 0;
	size_t i, t;

	if (s->k < 0)
		return;
	for (t = 0; t < p->tl->ntracks; t++)
		track_done(s, t, s->last[t]);
	cause = eng_pl_rows_cause(p, s->rows, s->nrows);
	for (i = 0; i < s->nrows; i++) {
		const struct eng_access *a = &s->rows[i];

		if (a->op == ENG_OP_AWAIT)
			continue;
		if (a->done_ns > last)
			last = a->done_ns;
		if (a->done_ns - a->issued_ns > worst)
			worst = a->done_ns - a->issued_ns;
	}
	pthread_mutex_lock(&p->stats_lock);
	eng_pl_count_timed(p, s->played, s->reads, worst, last, s->due, cause);
	pthread_mutex_unlock(&p->stats_lock);
	for (i = 0; i < s->nrows; i++) {
		s->rows[i].played = s->played;
		record(p, &s->rows[i]);
	}
	s->k = -1;
	s->nrows = 0;
}

void eng_pl_fdr_publish(struct eng_player *p, struct load *l, int live)
{
	const struct eng_timeline *tl = p->tl;
	struct fdr_slot *s = &p->fdr[l->slot];
	size_t t, i, pending = 0;

	finish(p, l->slot);
	s->k = l->k;
	s->due = l->due;
	s->played = l->played;
	s->reads = l->reads;
	s->nrows = l->npend;
	memcpy(s->rows, l->pend, l->npend * sizeof(*l->pend));
	l->npend = 0;	/* recorded from the slot (eng_pl_load_finish) */
	for (t = 0; t < tl->ntracks; t++) {
		struct eng_slice sl;

		eng_slice_get(tl, l->k, t, &sl);
		s->left[t] = sl.seg ? sl.len : 0;
		s->last[t] = 0;
		pending += s->left[t] != 0;
	}
	/* a wait and a decoder's dependency were timed at the load */
	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].op != ENG_OP_AWAIT && !s->rows[i].dep)
			s->rows[i].done_ns = 0;
	/* no bytes to wait for: a gap, a failed frame (its requests fail),
	 * a frame of a ring restarted under it */
	if (!pending || l->failed || !live)
		finish(p, l->slot);
}

void eng_pl_fdr_flush(struct eng_player *p)
{
	size_t i;

	if (!p->fdr)
		return;
	for (i = 0; i < p->nslots; i++)
		finish(p, i);
}

/* A piece of the answer: merged with the one before where it goes on in
 * the same file (its file reference given back); -E2BIG past the room. */
static int add_piece(struct eng_player *p, struct eng_answer *ans,
		     const struct eng_fdpiece *pc)
{
	struct eng_fdpiece *prev = ans->nfd ? &ans->fdp[ans->nfd - 1] : NULL;

	if (prev && pc->fd >= 0 && prev->fd == pc->fd &&
	    prev->off + prev->len == pc->off) {
		prev->len += pc->len;
		eng_pl_media_put(p, pc->clip, pc->track);
		return 0;
	}
	if (ans->nfd == ans->fdmax) {
		if (pc->fd >= 0)
			eng_pl_media_put(p, pc->clip, pc->track);
		return -E2BIG;
	}
	ans->fdp[ans->nfd++] = *pc;
	return 0;
}

/* Slice s's bytes of [off, end) as pieces of its clip's file, or zeros. */
static int slice_pieces(struct eng_player *p, const struct eng_slice *s,
			uint64_t off, uint64_t end, struct eng_answer *ans)
{
	uint64_t pos = s->pos, a, b;
	int e, rc = 0, direct;

	if (!s->seg) {
		a = pos > off ? pos : off;
		b = pos + s->len < end ? pos + s->len : end;
		while (a < b && rc == 0) {
			uint64_t n = b - a < FDR_ZERO ? b - a : FDR_ZERO;

			rc = add_piece(p, ans, &(struct eng_fdpiece){
				.fd = -1, .len = n, .mem = fdr_zeros });
			a += n;
		}
		return rc;
	}
	for (e = 0; e < s->next && rc == 0; e++) {
		uint64_t elen = s->ext[e].len;

		a = pos > off ? pos : off;
		b = pos + elen < end ? pos + elen : end;
		if (a < b) {
			int fd = eng_pl_media_fd(p, s->seg->clip, s->track,
						 &direct);

			if (fd < 0)
				return fd;
			rc = add_piece(p, ans, &(struct eng_fdpiece){
				.fd = fd, .clip = s->seg->clip,
				.track = (uint32_t)s->track,
				.off = s->ext[e].off + (a - pos),
				.len = b - a });
		}
		pos += elen;
	}
	return rc;
}

/* The answer's files given back. */
static void put_pieces(struct eng_player *p, const struct eng_answer *ans)
{
	int i;

	for (i = 0; i < ans->nfd; i++)
		if (ans->fdp[i].fd >= 0)
			eng_pl_media_put(p, ans->fdp[i].clip,
					 ans->fdp[i].track);
}

int eng_pl_fdr_answer(struct eng_player *p, uint64_t off, size_t len,
		      int64_t a, int64_t b, struct eng_answer *ans)
{
	const struct eng_timeline *tl = p->tl;
	uint64_t end = off + len;
	int64_t f;
	size_t t;
	int rc = 0;

	ans->nfd = 0;
	for (f = a; f <= b && rc == 0; f++)
		for (t = 0; t < tl->ntracks && rc == 0; t++) {
			struct eng_slice s;

			eng_slice_get(tl, f, t, &s);
			if (s.len && s.pos < end && s.pos + s.len > off)
				rc = slice_pieces(p, &s, off, end, ans);
		}
	if (rc < 0) {
		put_pieces(p, ans);
		ans->nfd = 0;
		/* a file that would not open now fails the request, as a
		 * read of it would */
		return rc == -E2BIG ? rc : -EIO;
	}
	ans->fd_off = off;
	ans->fd_len = len;
	return 0;
}

void eng_pl_fdr_answered(struct eng_player *p, const struct eng_answer *ans,
			 int consumed)
{
	const struct eng_timeline *tl = p->tl;
	const struct eng_io *io = p->cfg.io;
	uint64_t off = ans->fd_off, end = off + ans->fd_len, now;
	int64_t f, a, b;
	size_t t;

	put_pieces(p, ans);
	/* a reply that failed carried nothing: its frames' rows wait */
	if (!consumed || !ans->fd_len)
		return;
	a = eng_frame_at(tl, off);
	b = eng_frame_at(tl, end - 1);
	pthread_mutex_lock(&p->lock);
	now = io->now(io->ctx);
	for (f = a; f <= b; f++) {
		size_t slot = (size_t)(f % (int64_t)p->nslots);
		struct fdr_slot *s = &p->fdr[slot];
		int pending = 0;

		if (s->k != f)
			continue;	/* recorded already */
		for (t = 0; t < tl->ntracks; t++) {
			struct eng_slice sl;
			uint64_t x, y;

			if (!s->left[t])
				continue;
			eng_slice_get(tl, f, t, &sl);
			x = sl.pos > off ? sl.pos : off;
			y = sl.pos + sl.len < end ? sl.pos + sl.len : end;
			if (y > x) {
				s->left[t] -= y - x < s->left[t] ?
					      y - x : s->left[t];
				s->last[t] = now;
				if (!s->left[t])
					track_done(s, t, now);
			}
			pending += s->left[t] != 0;
		}
		if (!pending)
			finish(p, slot);
	}
	pthread_mutex_unlock(&p->lock);
}
