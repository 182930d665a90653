/* SPDX-License-Identifier: MIT */
/*
 * Loading one frame into its ring slot: reserved under the lock, read with
 * the lock released (one pread per non-gap slice, each recorded), published
 * under the lock unless a seek restarted the ring meanwhile.  The clock:
 * each frame's issue time is the anchor plus its period (player_i.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "play/player_i.h"
#include "timeline/layout.h"

/* pread through pread_ex when the io reports injected faults. */
static ssize_t io_pread(const struct eng_io *io, int fd, void *buf,
			size_t len, uint64_t off, struct eng_access *a)
{
	if (io->pread_ex)
		return io->pread_ex(io->ctx, fd, buf, len, off, &a->injected);
	return io->pread(io->ctx, fd, buf, len, off);
}

/* One backing read of slice s into dst; fills the times and err of a. */
static void read_slice(struct eng_player *p, const struct eng_slice *s,
		       unsigned char *dst, struct eng_access *a)
{
	const struct eng_io *io = p->cfg.io;
	uint64_t off = s->file_off, len = s->len;
	int direct = 0, fd;
	ssize_t r;

	fd = eng_pl_media_fd(p, s->seg->clip, s->track, &direct);
	if (fd < 0) {
		a->issued_ns = a->done_ns = io->now(io->ctx);
		a->err = -fd;
		goto fail;
	}
	if (p->zc > 0) {
		/* a failed frame fails its requests; what it left in the
		 * pipe is discarded when the slot is reused */
		eng_pl_zc_splice(p, fd, off, len, a);
		return;
	}
	if (direct) {
		/* O_DIRECT wants offset, length and buffer aligned: read the
		 * aligned superset and copy the slice out of it. */
		uint64_t start = off & ~(DIRECT_ALIGN - 1);
		uint64_t end = (off + len + DIRECT_ALIGN - 1) &
			       ~(DIRECT_ALIGN - 1);
		uint64_t need = off + len - start;

		a->issued_ns = io->now(io->ctx);
		r = io_pread(io, fd, p->bounce, (size_t)(end - start), start,
			     a);
		a->done_ns = io->now(io->ctx);
		if (r < 0)
			a->err = (int)-r;
		else if ((uint64_t)r < need)
			a->err = EIO;
		else
			memcpy(dst, (unsigned char *)p->bounce + (off - start),
			       (size_t)len);
	} else {
		a->issued_ns = io->now(io->ctx);
		r = io_pread(io, fd, dst, (size_t)len, off, a);
		a->done_ns = io->now(io->ctx);
		if (r < 0)
			a->err = (int)-r;
		else if ((uint64_t)r < len)
			a->err = EIO;
		/* a direct open that fell back to buffered still must not
		 * let the page cache hide the storage */
		if (p->cfg.backing != ENG_BACKING_BUFFERED && io->dontneed)
			io->dontneed(io->ctx, fd, off, len);
	}
	if (!a->err)
		return;
fail:
	/* never leave stale bytes of another frame behind */
	memset(dst, 0, (size_t)len);
}

/* Reserve frame p->head, evicting the oldest frame if the ring is full.
 * The slot is outside [lo, head) from here on, so no request is served
 * from it while it is written. */
void eng_pl_load_begin(struct eng_player *p, struct load *l)
{
	memset(l, 0, sizeof(*l));
	l->k = p->head;
	l->slot = (size_t)(l->k % (int64_t)p->nslots);
	l->epoch = p->epoch;
	l->sched = issue_ns(p, l->k);
	l->due = l->sched + period_ns(p, p->cfg.buffer);
	if (p->head - p->lo == (int64_t)p->nslots)
		p->lo++;
	p->loading = 1;
	/* a re-read is real I/O (recorded, counted in accesses) but the
	 * frame was already played: it is not played, nor late, twice */
	l->replay = replayed(p, l->k);
	/* ... and where its slot still holds it (the ring restarted below
	 * it: a request of a file server's that came late), not read twice
	 * either */
	l->held = still_held(p, l->k);
	if (p->held && !l->held)
		p->held[l->slot] = -1;
	if (p->zc > 0)
		eng_pl_zc_reset_slot(p, l->slot);
}

/* The preads of a reserved frame, one per non-gap slice.  Runs without the
 * player lock: it touches only the reserved slot, the media fds and the
 * bounce buffer, which only the one loader (the filler, or the request
 * holding req_lock when there is none) uses. */
void eng_pl_load_read(struct eng_player *p, struct load *l)
{
	const struct eng_timeline *tl = p->tl;
	unsigned char *dst = p->ring + l->slot * p->slot_bytes;
	uint64_t base = eng_frame_offset(tl, l->k);
	size_t t;

	if (l->held)
		return;
	for (t = 0; t < tl->ntracks; t++) {
		struct eng_slice s;
		struct eng_access a;

		eng_slice_get(tl, l->k, t, &s);
		if (s.len == 0)
			continue;
		if (!s.seg) {
			if (p->zc > 0)
				eng_pl_zc_zero(p, l, (size_t)s.len);
			else
				memset(dst + (s.pos - base), 0, (size_t)s.len);
			continue;
		}
		memset(&a, 0, sizeof(a));
		a.frame = l->k;
		a.track = (uint32_t)t;
		a.clip = s.seg->clip;
		a.file_offset = s.file_off;
		a.length = s.len;
		a.sched_ns = l->sched;
		a.due_ns = l->due;
		read_slice(p, &s, dst + (s.pos - base), &a);
		if (p->cfg.record)
			p->pend[l->npend++] = a;
		if (a.done_ns - a.issued_ns > l->worst)
			l->worst = a.done_ns - a.issued_ns;
		if (a.err)
			l->failed = 1;
		l->last_done = a.done_ns;
		l->reads++;
	}
}

/* Publish a loaded frame, unless a seek or re-read restarted the ring
 * meanwhile: then the reads were real I/O (recorded, counted) but the
 * frame belongs to a ring that no longer exists. */
void eng_pl_load_end(struct eng_player *p, struct load *l)
{
	int publish = l->epoch == p->epoch;
	int replay = l->replay && !l->held;

	l->played = publish && !l->replay;
	if (publish && !l->held) {
		p->failed[l->slot] = (unsigned char)l->failed;
		if (p->held)
			p->held[l->slot] = l->k;
	}
	if (publish) {
		p->head++;
		if (p->head > p->hwm)
			p->hwm = p->head;
	}
	pthread_mutex_lock(&p->stats_lock);
	p->st.accesses += l->reads;
	if (l->worst > p->st.worst_ns)
		p->st.worst_ns = l->worst;
	if (publish && replay)
		p->st.reloads++;
	if (publish && !l->replay) {
		p->st.frames++;
		if (l->failed)
			p->st.failed_frames++;
		if (l->reads && l->last_done > l->due)
			p->st.late_frames++;
	}
	p->st.head = p->hwm;
	p->st.opens = p->opens;
	p->st.reopens = p->reopens;
	p->st.open_retries = p->open_retries;
	p->st.files_open = p->nopen;
	p->st.files_peak = p->open_peak;
	pthread_mutex_unlock(&p->stats_lock);
	if (p->waiters)
		pthread_cond_broadcast(&p->ready_cv);
}

void eng_pl_load_finish(struct eng_player *p, struct load *l)
{
	size_t i;

	if (l->npend) {
		pthread_mutex_unlock(&p->lock);
		for (i = 0; i < l->npend; i++) {
			p->pend[i].played = l->played;
			record(p, &p->pend[i]);
		}
		pthread_mutex_lock(&p->lock);
	}
	p->loading = 0;
}

/* Reader-driven load of frame p->head (pace=off, or no filler running):
 * sleeps until the frame's issue time unless pace is off.  Called and
 * returns with the lock held; drops it while sleeping and reading. */
void eng_pl_load_frame(struct eng_player *p)
{
	const struct eng_io *io = p->cfg.io;
	struct load l;

	eng_pl_load_begin(p, &l);
	pthread_mutex_unlock(&p->lock);
	/* A late clock is not waited for and not moved: the player drops
	 * frames, it does not slip. */
	if (p->cfg.pace.mode != ENG_PACE_OFF && !l.held &&
	    io->now(io->ctx) < l.sched)
		io->sleep_until(io->ctx, l.sched);
	eng_pl_load_read(p, &l);
	pthread_mutex_lock(&p->lock);
	eng_pl_load_end(p, &l);
	eng_pl_load_finish(p, &l);
}
