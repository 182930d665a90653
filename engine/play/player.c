/* SPDX-License-Identifier: MIT */
/*
 * The per-stream player (DESIGN.md "Playback"): an anchored frame clock, a
 * ring of frame slots filled with one pread per (frame, track), and one
 * access record per backing read.  Time and I/O come through struct eng_io.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>

#include "io/io.h"
#include "play/pieces.h"
#include "play/player.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#define DIRECT_ALIGN 4096ULL
#define RING_HUGE (2u << 20)

struct media_fd {
	int fd;			/* -1: not open (yet, or closed again) */
	int direct;		/* the fd really is O_DIRECT */
	int opened;		/* was open once: opening it again is a reopen */
	/* the open ones, most recently used first (indices into fds, -1
	 * ends): the least recently used is closed past cfg.max_files */
	int32_t newer, older;
	uint64_t checked_ns;	/* last io->check of fd */
};

struct eng_player {
	/* Held by a request from eng_player_read() to eng_player_unlock():
	 * one request at a time, and its frames stay in the ring while the
	 * caller replies from them.  The filler never takes it. */
	pthread_mutex_t req_lock;
	/* The ring's state; held only briefly (never across a pread or a
	 * sleep), so a reply never delays an issue. */
	pthread_mutex_t lock;
	pthread_cond_t fill_cv;	/* the filler waits: time, room, anchoring */
	pthread_cond_t ready_cv; /* requests wait for the filler's frames */
	/* Set at creation, read-only afterwards. */
	const struct eng_timeline *tl;
	struct eng_player_config cfg;
	long double speed;	/* 1 for realtime and off */
	size_t nslots;
	size_t slot_bytes;	/* tl->frame_bytes_max */
	int64_t seek_gap;	/* frames past head still read as "play on" */
	int filled;		/* paced with cfg.filler: frames come from the
				 * filler, not from the request */
	/* Everything below is protected by lock.  The ring slots, fds and
	 * bounce buffer are written only by the one loader (the filler, or
	 * the request when no filler runs) between load_begin and load_end,
	 * without the lock. */
	unsigned char *ring;	/* [nslots * slot_bytes], frame f in f % nslots */
	unsigned char *failed;	/* [nslots]: the slot's frame had a failed read */
	struct iovec *copy_iov;	/* [nslots] for eng_player_copy(); req_lock */
	/* The copied tail of a request of more pieces than cfg.max_pieces
	 * (NULL where none can need it); req_lock */
	unsigned char *spill;
	size_t spill_bytes;
	struct media_fd *fds;	/* [nclips * ntracks], opened lazily */
	int32_t lru_new, lru_old; /* the open fds' list ends, -1: none */
	/* the loader's counts of its fds, into st at load_end */
	unsigned nopen, open_peak;
	uint64_t opens, reopens, open_retries;
	void *bounce;		/* aligned, for O_DIRECT reads */
	size_t bounce_bytes;
	int64_t lo, head;	/* the ring holds frames [lo, head) */
	/* One past the newest frame played since the clock was anchored:
	 * frames below it that are loaded again are re-reads, not played
	 * (counted) a second time. */
	int64_t hwm;
	/* Frames played on the clocks before the latest seek, when the
	 * seek went back to just before them (seen_after).  Loaded again on
	 * the new clock they are re-reads, not played twice. */
	int64_t seen_lo, seen_hi;
	/* First frame of the latest request: the filler never evicts it or
	 * anything above it, so that request (and a re-read of it) is
	 * served from the ring. */
	int64_t need_lo;
	/* Bumped whenever the ring restarts (seek, re-read behind it): a load
	 * reserved before is not published. */
	uint64_t epoch;
	int loading;		/* a frame is reserved and being read */
	int waiters;		/* requests waiting on ready_cv */
	int anchored;
	uint64_t anchor_ns;
	int64_t anchor_frame;
	/* the filler thread */
	pthread_t filler;
	int filler_on;		/* started and not yet joined */
	int stop;		/* asked to stop */
	int fill_waiting;	/* 0, or the ENG_FILL_* it waits on */
	/* st is written under lock and stats_lock, read under stats_lock
	 * alone: a status reader must not wait for a player sleeping until
	 * its next frame is due. */
	pthread_mutex_t stats_lock;
	struct eng_player_stats st;
	/* Zero copy: 0 undecided (no read yet), 1 the slots' bytes are in
	 * pipes, -1 in the ring.  Per slot (zc > 0): its pipe, the bytes the
	 * loader put in and the bytes handed out of it, all of the one
	 * loader and the request holding req_lock (pace=off: the same). */
	int zc;
	int (*zc_fds)[2];
	size_t *zc_fill, *zc_pos;
	/* the slots the request holding req_lock handed out, for
	 * eng_player_zc_done to see that their pipes were emptied */
	size_t zc_used[ENG_ZC_MAX_SLOTS];
	int zc_nused;
};

/* Duration of k frames at the player's speed, in ns.  At speed 1 the
 * integer form is exact, so that schedules can be checked to the ns. */
static uint64_t period_ns(const struct eng_player *p, int64_t k)
{
	const struct eng_fps *fps = &p->tl->fps;
	long double v;

	if (k <= 0)
		return 0;
	if (p->speed == 1.0L)
		return (uint64_t)((unsigned __int128)k * fps->den *
				  ENG_NS_PER_SEC / fps->num);
	v = (long double)k * fps->den * 1e9L / fps->num / p->speed;
	/* keep the clock sane even for absurdly slow factors */
	return v >= 9e18L ? (uint64_t)9e18 : (uint64_t)v;
}

static uint64_t issue_ns(const struct eng_player *p, int64_t k)
{
	return p->anchor_ns + period_ns(p, k - p->anchor_frame);
}

static void record(const struct eng_player *p, const struct eng_access *a)
{
	if (p->cfg.record)
		p->cfg.record(p->cfg.record_ctx, a);
}

/* Close a clip's fd.  Where the page cache must not hide the storage
 * (dontneed, and a direct open that fell back to buffered), drop the whole
 * file first: each read drops only its own range, and the kernel's
 * readahead past the last one (read_ahead_kb, megabytes) and the WAV
 * header read at load would stay cached after the stream. */
static void close_media(const struct eng_player *p, const struct media_fd *m)
{
	const struct eng_io *io = p->cfg.io;

	if (p->cfg.backing != ENG_BACKING_BUFFERED && !m->direct &&
	    io->dontneed)
		io->dontneed(io->ctx, m->fd, 0, 0);
	io->close(io->ctx, m->fd);
}

/* The open fds are a list, most recently used first; only the loader
 * touches it (as the fds themselves). */
static void lru_unlink(struct eng_player *p, int32_t i)
{
	struct media_fd *m = &p->fds[i];

	if (m->newer >= 0)
		p->fds[m->newer].older = m->older;
	else
		p->lru_new = m->older;
	if (m->older >= 0)
		p->fds[m->older].newer = m->newer;
	else
		p->lru_old = m->newer;
	m->newer = m->older = -1;
}

static void lru_push(struct eng_player *p, int32_t i)
{
	struct media_fd *m = &p->fds[i];

	m->newer = -1;
	m->older = p->lru_new;
	if (p->lru_new >= 0)
		p->fds[p->lru_new].newer = i;
	else
		p->lru_old = i;
	p->lru_new = i;
}

static void fd_close(struct eng_player *p, int32_t i)
{
	lru_unlink(p, i);
	close_media(p, &p->fds[i]);
	p->fds[i].fd = -1;
	p->nopen--;
}

/* Close the least recently used open fd; 0 when there is none. */
static int fd_close_lru(struct eng_player *p)
{
	if (p->lru_old < 0)
		return 0;
	fd_close(p, p->lru_old);
	return 1;
}

/* Open (clip, track)'s file within the stream's budget of fds: past
 * cfg.max_files, and on EMFILE/ENFILE (the process's or the system's
 * limit, which other streams share), the least recently used fd goes
 * first.  A feature-length EDL plays thousands of clip files; holding
 * them all open ran a stream into EMFILE mid-play. */
static int fd_open(struct eng_player *p, const char *file, int *is_direct)
{
	const struct eng_io *io = p->cfg.io;
	int fd;

	if (p->cfg.max_files)
		while (p->nopen >= p->cfg.max_files && fd_close_lru(p))
			;
	for (;;) {
		fd = io->open(io->ctx, file,
			      p->cfg.backing == ENG_BACKING_DIRECT,
			      is_direct);
		if ((fd != -EMFILE && fd != -ENFILE) || !fd_close_lru(p))
			return fd;
		p->open_retries++;
	}
}

/* The fd of (clip, track), opened on first use.  -errno if it cannot be
 * opened; the next frame tries again.  With io->check, the name is checked
 * right after the open and then at most every ENG_MEDIA_CHECK_NS: a file
 * deleted, replaced or made unreadable while open fails (and is closed, so
 * that the next frame opens the name again) instead of serving the old
 * inode.  Checking per open and per interval, not per slice, keeps it to
 * two stat calls per fd per 100 ms. */
static int media_fd(struct eng_player *p, uint32_t clip, size_t t,
		    int *direct)
{
	const struct eng_timeline *tl = p->tl;
	const struct eng_io *io = p->cfg.io;
	int32_t i = (int32_t)((size_t)clip * tl->ntracks + t);
	struct media_fd *m = &p->fds[i];
	const char *file;
	int is_direct = 0, fd, rc;
	uint64_t now = 0;

	if (!tl->clips[clip].media || !tl->clips[clip].media[t].file)
		return -ENOENT;
	file = tl->clips[clip].media[t].file;
	if (io->check)
		now = io->now(io->ctx);
	if (m->fd < 0) {
		fd = fd_open(p, file, &is_direct);
		if (fd < 0)
			return fd;
		m->fd = fd;
		m->direct = p->cfg.backing == ENG_BACKING_DIRECT && is_direct;
		m->checked_ns = now - ENG_MEDIA_CHECK_NS;
		p->opens++;
		if (m->opened)
			p->reopens++;
		m->opened = 1;
		if (++p->nopen > p->open_peak)
			p->open_peak = p->nopen;
	} else {
		lru_unlink(p, i);
	}
	lru_push(p, i);
	if (io->check && now - m->checked_ns >= ENG_MEDIA_CHECK_NS) {
		rc = io->check(io->ctx, m->fd, file);
		if (rc < 0) {
			fd_close(p, i);
			return rc;
		}
		m->checked_ns = now;
	}
	*direct = m->direct;
	return m->fd;
}

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

	fd = media_fd(p, s->seg->clip, s->track, &direct);
	if (fd < 0) {
		a->issued_ns = a->done_ns = io->now(io->ctx);
		a->err = -fd;
		goto fail;
	}
	if (p->zc > 0) {
		/* the page cache's pages go into the slot's pipe, uncopied:
		 * the same read of the storage, timed the same way */
		size_t slot = (size_t)(a->frame % (int64_t)p->nslots);

		a->issued_ns = io->now(io->ctx);
		r = io->splice_in(io->ctx, fd, off, (size_t)len,
				  p->zc_fds[slot][1]);
		a->done_ns = io->now(io->ctx);
		if (r < 0) {
			a->err = (int)-r;
		} else {
			p->zc_fill[slot] += (size_t)r;
			if ((uint64_t)r < len)
				a->err = EIO;
		}
		/* a failed frame fails its requests; what it left in the
		 * pipe is discarded when the slot is reused */
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

/* Empty slot's pipe of what its last frame left: bytes never asked for
 * (frames played past on the way to a request, a failed frame).  Reading
 * in order consumes every byte, so this costs nothing then. */
static void zc_reset_slot(struct eng_player *p, size_t slot)
{
	const struct eng_io *io = p->cfg.io;

	/* all it holds, not fill - pos: a count gone wrong must not leave
	 * old bytes ahead of the next frame's */
	if (p->zc_fill[slot] > p->zc_pos[slot])
		io->pipe_skip(io->ctx, p->zc_fds[slot][0], SIZE_MAX);
	p->zc_fill[slot] = p->zc_pos[slot] = 0;
}

/* One frame being loaded: reserved under the lock (load_begin), read with
 * the lock released (load_read), published under the lock (load_end). */
struct load {
	int64_t k;
	size_t slot;
	uint64_t epoch;		/* p->epoch at reservation */
	uint64_t sched, due;
	uint64_t last_done, worst;
	int reads, failed;
};

/* Reserve frame p->head, evicting the oldest frame if the ring is full.
 * The slot is outside [lo, head) from here on, so no request is served
 * from it while it is written. */
static void load_begin(struct eng_player *p, struct load *l)
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
	if (p->zc > 0)
		zc_reset_slot(p, l->slot);
}

/* A gap's zero bytes into the slot's pipe; if the pipe refuses them the
 * frame cannot be served and fails, like a frame with a failed read. */
static void zc_zero(struct eng_player *p, struct load *l, size_t len)
{
	const struct eng_io *io = p->cfg.io;
	ssize_t r = io->pipe_zero(io->ctx, p->zc_fds[l->slot][1], len);

	if (r > 0)
		p->zc_fill[l->slot] += (size_t)r;
	if (r < 0 || (size_t)r < len)
		l->failed = 1;
}

/* The preads of a reserved frame, one per non-gap slice.  Runs without the
 * player lock: it touches only the reserved slot, the media fds and the
 * bounce buffer, which only the one loader (the filler, or the request
 * holding req_lock when there is none) uses. */
static void load_read(struct eng_player *p, struct load *l)
{
	const struct eng_timeline *tl = p->tl;
	unsigned char *dst = p->ring + l->slot * p->slot_bytes;
	uint64_t base = eng_frame_offset(tl, l->k);
	size_t t;

	for (t = 0; t < tl->ntracks; t++) {
		struct eng_slice s;
		struct eng_access a;

		eng_slice_get(tl, l->k, t, &s);
		if (s.len == 0)
			continue;
		if (!s.seg) {
			if (p->zc > 0)
				zc_zero(p, l, (size_t)s.len);
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
		record(p, &a);
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
static void load_end(struct eng_player *p, const struct load *l)
{
	int publish = l->epoch == p->epoch;
	/* a re-read is real I/O (recorded, counted in accesses) but the
	 * frame was already played: it is not played, nor late, twice */
	int replay = l->k < p->hwm ||
		     (l->k >= p->seen_lo && l->k < p->seen_hi);

	p->loading = 0;
	if (publish) {
		p->failed[l->slot] = (unsigned char)l->failed;
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
	if (publish && !replay) {
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
	if (p->seen_hi > p->seen_lo && p->seen_lo <= p->head &&
	    p->lo <= p->seen_hi) {
		if (p->lo < p->seen_lo)
			p->seen_lo = p->lo;
		if (p->head > p->seen_hi)
			p->seen_hi = p->head;
	} else {
		p->seen_lo = p->lo;
		p->seen_hi = p->head;
	}
}

/* Reader-driven load of frame p->head (pace=off, or no filler running):
 * sleeps until the frame's issue time unless pace is off.  Called and
 * returns with the lock held; drops it while sleeping and reading. */
static void load_frame(struct eng_player *p)
{
	const struct eng_io *io = p->cfg.io;
	struct load l;

	load_begin(p, &l);
	pthread_mutex_unlock(&p->lock);
	/* A late clock is not waited for and not moved: the player drops
	 * frames, it does not slip. */
	if (p->cfg.pace.mode != ENG_PACE_OFF && io->now(io->ctx) < l.sched)
		io->sleep_until(io->ctx, l.sched);
	load_read(p, &l);
	pthread_mutex_lock(&p->lock);
	load_end(p, &l);
}

/* The filler's step, with the lock held (dropped only around the preads
 * of a frame it loads). */
static int fill_locked(struct eng_player *p, uint64_t *next_ns)
{
	const struct eng_io *io = p->cfg.io;
	struct load l;
	uint64_t sched;

	/* The ring's room ends where a slot still holds a frame at or above
	 * the request's first frame: those are never evicted. */
	/* (loading: a request loads its frames itself, its filler not yet
	 * started; there is one loader at a time) */
	if (!p->anchored || p->loading || p->head >= p->tl->frames ||
	    p->head >= p->need_lo + (int64_t)p->nslots)
		return ENG_FILL_IDLE;
	sched = issue_ns(p, p->head);
	if (io->now(io->ctx) < sched) {
		*next_ns = sched;
		return ENG_FILL_AT;
	}
	load_begin(p, &l);
	pthread_mutex_unlock(&p->lock);
	load_read(p, &l);
	pthread_mutex_lock(&p->lock);
	load_end(p, &l);
	return ENG_FILL_LOADED;
}

int eng_player_fill(struct eng_player *p, uint64_t *next_ns)
{
	uint64_t dummy;
	int rc;

	if (!p || !p->filled)
		return -EINVAL;
	pthread_mutex_lock(&p->lock);
	rc = fill_locked(p, next_ns ? next_ns : &dummy);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static void ts_of(uint64_t ns, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ns / ENG_NS_PER_SEC);
	ts->tv_nsec = (long)(ns % ENG_NS_PER_SEC);
}

/* The filler thread: the step function in a loop, sleeping on fill_cv so
 * that a seek, a close or a request freeing room wakes it at once. */
static void *filler_main(void *arg)
{
	struct eng_player *p = arg;
	struct timespec ts;
	uint64_t next = 0;
	int rc;

	/* the default 50 us of timer slack would be a quarter of the
	 * pacing error we aim for */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		rc = fill_locked(p, &next);
		if (rc == ENG_FILL_LOADED || p->stop)
			continue;
		p->fill_waiting = rc;
		if (rc == ENG_FILL_AT) {
			ts_of(next, &ts);
			pthread_cond_timedwait(&p->fill_cv, &p->lock, &ts);
		} else {
			pthread_cond_wait(&p->fill_cv, &p->lock);
		}
		p->fill_waiting = 0;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

int eng_player_start(struct eng_player *p)
{
	pthread_attr_t attr;
	int rc;

	if (!p)
		return -EINVAL;
	if (!p->filled)
		return 0;
	pthread_mutex_lock(&p->lock);
	if (p->filler_on) {
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	rc = pthread_attr_init(&attr);
	if (!rc) {
		/* 100+ streams: a filler needs a few KiB, not 8 MiB */
		rc = pthread_attr_setstacksize(&attr, ENG_FILLER_STACK);
		if (!rc)
			rc = pthread_create(&p->filler, &attr, filler_main, p);
		pthread_attr_destroy(&attr);
	}
	if (!rc)
		p->filler_on = 1;
	pthread_mutex_unlock(&p->lock);
	return -rc;
}

void eng_player_stop(struct eng_player *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	if (!p->filler_on) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	p->stop = 1;
	pthread_cond_signal(&p->fill_cv);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->filler, NULL);
	pthread_mutex_lock(&p->lock);
	p->filler_on = 0;
	p->stop = 0;
	/* a request still waiting loads its frames itself from now on */
	pthread_cond_broadcast(&p->ready_cv);
	pthread_mutex_unlock(&p->lock);
}

/* Wake the filler when it waits for something a request just changed. */
static void wake_filler(struct eng_player *p, int reanchored)
{
	if (p->fill_waiting == ENG_FILL_IDLE ||
	    (reanchored && p->fill_waiting == ENG_FILL_AT))
		pthread_cond_signal(&p->fill_cv);
}

/* The locks and condition variables; fill_cv waits on CLOCK_MONOTONIC, the
 * clock of eng_io.now.  0 or -errno, nothing left initialized. */
static int init_sync(struct eng_player *p)
{
	pthread_condattr_t ca;
	int rc, done = 0;

	rc = pthread_condattr_init(&ca);
	if (rc)
		return -rc;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!rc && !(rc = pthread_mutex_init(&p->req_lock, NULL)))
		done++;
	if (!rc && !(rc = pthread_mutex_init(&p->lock, NULL)))
		done++;
	if (!rc && !(rc = pthread_mutex_init(&p->stats_lock, NULL)))
		done++;
	if (!rc && !(rc = pthread_cond_init(&p->fill_cv, &ca)))
		done++;
	if (!rc && !(rc = pthread_cond_init(&p->ready_cv, NULL)))
		done++;
	pthread_condattr_destroy(&ca);
	if (!rc)
		return 0;
	if (done > 3)
		pthread_cond_destroy(&p->fill_cv);
	if (done > 2)
		pthread_mutex_destroy(&p->stats_lock);
	if (done > 1)
		pthread_mutex_destroy(&p->lock);
	if (done > 0)
		pthread_mutex_destroy(&p->req_lock);
	return -rc;
}

/*
 * How many frames a window of w bytes can touch, plus 2: w / (the
 * smallest frame) + 2.  Where frames can be empty (every track slower
 * than one sample unit a frame: align=1000 at 100 bytes a second) that
 * was w + 2 frames, a ring of 2 M slots for a file of no bytes (2 GB of
 * RSS per open).  Any n whole frames hold at least n * R - A bytes (R the
 * bytes a frame of all tracks, A their sample units), so then w bytes
 * touch at most (w + A) / R + 2 frames; and never more than the timeline.
 */
static uint64_t frames_spanned(const struct eng_timeline *tl, uint64_t w)
{
	long double r = 0, a = 0, n;
	size_t t;

	if (tl->frame_bytes_min)
		return (w + tl->frame_bytes_min - 1) / tl->frame_bytes_min + 2;
	for (t = 0; t < tl->ntracks; t++) {
		r += (long double)tl->tracks[t].rate * tl->fps.den /
		     tl->fps.num;
		a += tl->tracks[t].align;
	}
	n = r > 0 ? floorl(((long double)w + a) / r) + 3 : 0;
	if (r <= 0 || n > (long double)tl->frames + 2)
		n = (long double)tl->frames + 2;
	return (uint64_t)n;
}

size_t eng_player_slots(const struct eng_player *p)
{
	return p ? p->nslots : 0;
}

/* What a player of tl with cfg allocates: its ring and the rest, so that
 * eng_player_mem tells what eng_player_new will take. */
struct ring_plan {
	int filled;
	uint64_t nslots;
	uint64_t seek_gap;
	unsigned __int128 ring_bytes;
	size_t bounce_bytes;
	size_t spill_bytes;	/* eng_pieces' spill, 0 for none */
	size_t nfds;
	unsigned __int128 mem;	/* everything, as eng_player_mem */
};

/* The O_DIRECT bounce buffer of a frame of slot_bytes, aligned. */
static size_t bounce_size(size_t slot_bytes)
{
	return (size_t)((slot_bytes + 2 * DIRECT_ALIGN + DIRECT_ALIGN - 1) &
			~(DIRECT_ALIGN - 1));
}

/* The zero-copy pipes' bytes per slot (zc_decide): a slice spliced from
 * an unaligned offset starts and ends in part pages, and each pipe buffer
 * holds at most one page. */
static size_t zc_pipe_bytes(const struct eng_timeline *tl, size_t slot_bytes)
{
	return ((slot_bytes + 4095) / 4096 + 2 * tl->ntracks + 1) * 4096;
}

static int plan_ring(const struct eng_timeline *tl,
		     const struct eng_player_config *cfg, struct ring_plan *rp)
{
	uint64_t gap;

	memset(rp, 0, sizeof(*rp));
	if (!tl || !cfg || cfg->buffer == 0 || cfg->max_request == 0 ||
	    tl->frames <= 0 || tl->ntracks == 0 || tl->fps.num == 0 ||
	    tl->fps.den == 0 || tl->frame_bytes_max == 0)
		return -EINVAL;
	if (cfg->pace.mode == ENG_PACE_FACTOR &&
	    !(isfinite(cfg->pace.speed) && cfg->pace.speed > 0))
		return -EINVAL;
	/* a request far larger than any frame ring could hold is a bug in
	 * the caller, not something to allocate for */
	if (cfg->max_request > (1ULL << 40))
		return -EINVAL;
	/* the fds' list links are int32_t */
	if (tl->nclips > INT32_MAX / tl->ntracks)
		return -EINVAL;
	rp->filled = cfg->filler && cfg->pace.mode != ENG_PACE_OFF;
	/* a request plus one concurrent readahead window always fit */
	rp->nslots = frames_spanned(tl, 2 * (uint64_t)cfg->max_request);
	/* The filler runs ahead of the requests: it needs `buffer` frames of
	 * lead on top of a request and a concurrent readahead window.  A
	 * request-driven ring refills behind the request instead. */
	if (rp->filled)
		rp->nslots += cfg->buffer;
	else if (rp->nslots < cfg->buffer)
		rp->nslots = cfg->buffer;
	gap = frames_spanned(tl, 4 * (uint64_t)cfg->max_request) - 2;
	rp->seek_gap = gap > cfg->buffer ? gap : cfg->buffer;
	rp->ring_bytes = (unsigned __int128)rp->nslots * tl->frame_bytes_max;
	rp->nfds = tl->nclips * tl->ntracks;
	rp->mem = rp->ring_bytes + sizeof(struct eng_player) +
		  (unsigned __int128)rp->nslots *
		  (1 + sizeof(struct iovec)) +
		  (unsigned __int128)(rp->nfds ? rp->nfds : 1) *
		  sizeof(struct media_fd);
	/* Frames of one size fill their slots: a request is at most 2
	 * pieces (the ring's wrap).  Others may need more than the caller's
	 * reply takes (800-byte audio frames: 1310 in 1 MiB). */
	if (cfg->max_pieces > 0 &&
	    !(tl->frame_bytes_min == tl->frame_bytes_max &&
	      cfg->max_pieces >= 2))
		rp->spill_bytes = eng_pieces_spill_need(cfg->max_request,
							tl->frame_bytes_min,
							cfg->max_pieces);
	rp->mem += rp->spill_bytes;
	if (tl->frame_bytes_max > SIZE_MAX / 4)
		return 0;	/* more than any ring can be: mem says so */
	if (cfg->backing == ENG_BACKING_DIRECT) {
		rp->bounce_bytes = bounce_size((size_t)tl->frame_bytes_max);
		rp->mem += rp->bounce_bytes;
	}
	if (cfg->zero_copy && cfg->pace.mode == ENG_PACE_OFF &&
	    cfg->backing == ENG_BACKING_BUFFERED &&
	    rp->nslots <= ENG_ZC_MAX_SLOTS)
		rp->mem += (unsigned __int128)rp->nslots *
			   (zc_pipe_bytes(tl, (size_t)tl->frame_bytes_max) +
			    sizeof(int[2]) + 2 * sizeof(size_t));
	return 0;
}

int eng_player_mem(const struct eng_timeline *tl,
		   const struct eng_player_config *cfg, uint64_t *bytes,
		   uint64_t *slots)
{
	struct ring_plan rp;
	int rc = plan_ring(tl, cfg, &rp);

	if (rc < 0)
		return rc;
	if (bytes)
		*bytes = rp.mem > UINT64_MAX ? UINT64_MAX : (uint64_t)rp.mem;
	if (slots)
		*slots = rp.nslots;
	return 0;
}

/* "1.5 GiB", "600 KiB": a figure a reader takes in at a glance, beside
 * the exact byte count. */
static void human_bytes(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB",
					    "TiB", "PiB", "EiB" };
	long double v = (long double)n;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " bytes", n);
	else
		snprintf(buf, len, "%.1Lf %s", v, unit[u]);
}

int eng_player_mem_check(const struct eng_timeline *tl,
			 const struct eng_player_config *cfg, uint64_t limit,
			 struct eng_diag *diag)
{
	char need_h[32], lim_h[32], frame_h[32];
	uint64_t need, slots;
	int rc = eng_player_mem(tl, cfg, &need, &slots);

	if (rc < 0)
		return rc;
	if (need <= limit)
		return 0;
	human_bytes(need, need_h, sizeof(need_h));
	human_bytes(limit, lim_h, sizeof(lim_h));
	human_bytes(tl->frame_bytes_max, frame_h, sizeof(frame_h));
	eng_diag_add(diag, tl->path, 0,
		     "each stream of this timeline needs %" PRIu64 " bytes "
		     "(%s: a ring of %" PRIu64 " frames of up to %s, buffer="
		     "%u), more than stream_mem=%" PRIu64 " (%s); raise -o "
		     "stream_mem, or lower -o buffer or the timeline's track "
		     "rates", need, need_h, slots, frame_h, cfg->buffer, limit,
		     lim_h);
	return -EFBIG;
}

unsigned eng_player_files_default(uint64_t nofile)
{
	uint64_t n = nofile > ENG_PLAYER_FDS_OWN ?
		     (nofile - ENG_PLAYER_FDS_OWN) /
		     ENG_PLAYER_STREAMS_EXPECTED : 0;

	if (n < ENG_PLAYER_FILES_MIN)
		return ENG_PLAYER_FILES_MIN;
	return n > ENG_PLAYER_FILES_DEFAULT ? ENG_PLAYER_FILES_DEFAULT :
					      (unsigned)n;
}

int eng_player_new(const struct eng_timeline *tl,
		   const struct eng_player_config *cfg,
		   struct eng_player **out)
{
	struct eng_player *p;
	struct ring_plan rp;
	unsigned __int128 ring_bytes;
	size_t nfds, i;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!cfg || !cfg->io || !cfg->io->now || !cfg->io->sleep_until ||
	    !cfg->io->open || !cfg->io->pread || !cfg->io->close)
		return -EINVAL;
	rc = plan_ring(tl, cfg, &rp);
	if (rc < 0)
		return rc;
	if (cfg->mem_max && rp.mem > cfg->mem_max)
		return -EFBIG;
	ring_bytes = rp.ring_bytes;
	if (ring_bytes > SIZE_MAX / 2 || rp.nslots > INT32_MAX)
		return -ENOMEM;

	rc = -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tl = tl;
	p->cfg = *cfg;
	p->speed = cfg->pace.mode == ENG_PACE_FACTOR ? cfg->pace.speed : 1.0L;
	p->slot_bytes = tl->frame_bytes_max;
	p->filled = rp.filled;
	p->seek_gap = (int64_t)rp.seek_gap;
	p->nslots = (size_t)rp.nslots;
	nfds = rp.nfds;
	p->lru_new = p->lru_old = -1;

	/* A ring of several MiB: in 2 MiB pages where the kernel has them
	 * (THP "madvise"), 512 times fewer page faults when it is touched
	 * below, which 15 streams opening at once otherwise pay in the first
	 * frames of the streams already playing. */
	if (ring_bytes >= RING_HUGE) {
		if (posix_memalign((void **)&p->ring, RING_HUGE,
				   (size_t)ring_bytes))
			p->ring = NULL;
		else
			madvise(p->ring, (size_t)ring_bytes, MADV_HUGEPAGE);
	} else {
		p->ring = malloc((size_t)ring_bytes);
	}
	p->failed = calloc(p->nslots, 1);
	p->copy_iov = calloc(p->nslots, sizeof(*p->copy_iov));
	p->fds = calloc(nfds ? nfds : 1, sizeof(*p->fds));
	if (!p->ring || !p->failed || !p->copy_iov || !p->fds)
		goto err_free;
	p->spill_bytes = rp.spill_bytes;
	if (p->spill_bytes) {
		p->spill = malloc(p->spill_bytes);
		if (!p->spill)
			goto err_free;
	}
	/* touch the whole ring now: otherwise the first pass of a stream
	 * takes a page fault per 4 KiB inside its backing reads (seen: 5 %
	 * of the daemon's CPU on 10 s timelines) */
	memset(p->ring, 0, (size_t)ring_bytes);
	for (i = 0; i < nfds; i++) {
		p->fds[i].fd = -1;
		p->fds[i].newer = p->fds[i].older = -1;
	}
	if (cfg->backing == ENG_BACKING_DIRECT) {
		p->bounce_bytes = rp.bounce_bytes;
		if (posix_memalign(&p->bounce, DIRECT_ALIGN, p->bounce_bytes)) {
			p->bounce = NULL;
			goto err_free;
		}
	}
	rc = init_sync(p);
	if (rc)
		goto err_free;
	p->st.head = p->head;
	*out = p;
	return 0;
err_free:
	free(p->spill);
	free(p->bounce);
	free(p->fds);
	free(p->copy_iov);
	free(p->failed);
	free(p->ring);
	free(p);
	return rc;
}

void eng_player_free(struct eng_player *p)
{
	size_t i, nfds;

	if (!p)
		return;
	eng_player_stop(p);
	nfds = p->tl->nclips * p->tl->ntracks;
	for (i = 0; i < nfds; i++)
		if (p->fds[i].fd >= 0)
			close_media(p, &p->fds[i]);
	if (p->zc > 0)
		for (i = 0; i < p->nslots; i++)
			p->cfg.io->pipe_free(p->cfg.io->ctx, p->zc_fds[i]);
	free(p->zc_fds);
	free(p->zc_fill);
	free(p->zc_pos);
	pthread_cond_destroy(&p->ready_cv);
	pthread_cond_destroy(&p->fill_cv);
	pthread_mutex_destroy(&p->stats_lock);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->req_lock);
	free(p->spill);
	free(p->bounce);
	free(p->fds);
	free(p->copy_iov);
	free(p->failed);
	free(p->ring);
	free(p);
}

/* Zero copy for this player?  Decided once, at the first request, with
 * the lock held; creates the slots' pipes (all, or none: the ring). */
static void zc_decide(struct eng_player *p, size_t len)
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
	bytes = zc_pipe_bytes(p->tl, p->slot_bytes);
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

/* The part of frame f (starting at byte fo of the file) that the request
 * [off, off + len) covers: from byte *from of the frame, 0 bytes if none. */
static size_t frame_part(const struct eng_player *p, int64_t f, uint64_t off,
			 size_t len, uint64_t *fo, uint64_t *from)
{
	uint64_t s, e, fe;

	*fo = eng_frame_offset(p->tl, f);
	fe = eng_frame_offset(p->tl, f + 1);
	s = off > *fo ? off : *fo;
	e = off + len < fe ? off + len : fe;
	*from = s - *fo;
	return e > s ? (size_t)(e - s) : 0;
}

/* Zero copy: a pipe hands its bytes out once.  A request that starts
 * before what frame f's pipe still holds needs f read again. */
static int zc_behind(const struct eng_player *p, uint64_t off, int64_t a,
		     int64_t b)
{
	int64_t f, from = a > p->lo ? a : p->lo;
	int64_t to = b < p->head - 1 ? b : p->head - 1;

	for (f = from; f <= to; f++) {
		uint64_t fo, st;

		frame_part(p, f, off, 1, &fo, &st);
		if (p->zc_pos[f % (int64_t)p->nslots] > st)
			return 1;
	}
	return 0;
}

/* A request: position the ring (play on, re-read or seek) and get frames
 * [*a, *b] loaded.  Returns 1 with both locks held and *len clipped to
 * the file, 0 (nothing to read: req_lock held) or -errno (no lock held).
 * nonblock: -EAGAIN rather than wait for the filler.  zc: the request is
 * a zero-copy one (-EXDEV if the player uses its ring), else a ring one
 * (-EXDEV if it uses pipes). */
static int player_prepare(struct eng_player *p, uint64_t off, size_t *lenp,
			  int64_t *ap, int64_t *bp, int nonblock, int zc)
{
	const struct eng_timeline *tl = p->tl;
	const struct eng_io *io = p->cfg.io;
	size_t len = *lenp;
	int64_t a, b, f;
	int rc, restarted = 0;

	pthread_mutex_lock(&p->req_lock);
	pthread_mutex_lock(&p->lock);
	if (len > p->cfg.max_request) {
		rc = -E2BIG;
		goto out_unlock;
	}
	if (zc)
		zc_decide(p, len);
	else if (!p->zc)
		p->zc = -1;
	if ((p->zc > 0) != !!zc) {
		rc = -EXDEV;
		goto out_unlock;
	}
	if (len == 0 || off >= tl->bytes) {
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	if (len > tl->bytes - off)
		len = (size_t)(tl->bytes - off);
	a = eng_frame_at(tl, off);
	b = eng_frame_at(tl, off + len - 1);

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
	} else if (!p->anchored || a < p->lo || a > p->head + p->seek_gap) {
		/* Far from the play head: the workstation jumped; play from
		 * there on a fresh clock. */
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
	} else if (p->zc > 0 && zc_behind(p, off, a, b)) {
		/* bytes already handed out of a pipe: a re-read */
		p->lo = p->head = a;
		restarted = 1;
	}
	if (restarted)
		p->epoch++;
	if (p->filled) {
		/* the request's frames are pinned from here on; those below
		 * are free for the filler to reuse */
		p->need_lo = a;
		wake_filler(p, restarted);
		while (p->head <= b) {
			if (p->filler_on) {
				if (nonblock) {
					rc = -EAGAIN;
					goto out_unlock;
				}
				p->waiters++;
				pthread_cond_wait(&p->ready_cv, &p->lock);
				p->waiters--;
			} else if (nonblock) {
				rc = -EAGAIN;
				goto out_unlock;
			} else {
				/* no filler (not started, or stopped): the
				 * request loads its frames, as unfilled */
				load_frame(p);
			}
		}
	} else {
		/* frames between the head and a are played too, as a player
		 * would */
		while (p->head <= b)
			load_frame(p);
		/* A reader behind schedule: load what is already due, without
		 * sleeping and without evicting anything this request needs. */
		if (p->cfg.pace.mode != ENG_PACE_OFF)
			while (p->head < tl->frames &&
			       p->head <= b + (int64_t)p->cfg.buffer &&
			       p->head - a < (int64_t)p->nslots &&
			       issue_ns(p, p->head) <= io->now(io->ctx))
				load_frame(p);
	}

	for (f = a; f <= b; f++)
		if (p->failed[f % (int64_t)p->nslots]) {
			rc = -EIO;
			goto out_unlock;
		}
	*lenp = len;
	*ap = a;
	*bp = b;
	return 1;
out_unlock:
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->req_lock);
	return rc;
}

/* The bytes handed to the reader; then the request's lock stays held. */
static ssize_t served(struct eng_player *p, size_t len)
{
	pthread_mutex_lock(&p->stats_lock);
	p->st.bytes += len;
	p->st.requests++;
	pthread_mutex_unlock(&p->stats_lock);
	pthread_mutex_unlock(&p->lock);
	return (ssize_t)len;
}

static ssize_t player_read(struct eng_player *p, uint64_t off, size_t len,
			   struct iovec *iov, int iovmax, int *iovcnt,
			   int nonblock)
{
	struct eng_pieces pb;
	uint64_t fo, from;
	int64_t a, b, f;
	int rc;
	size_t part;

	if (!p || !iovcnt || (len && (!iov || iovmax <= 0)))
		return -EINVAL;
	*iovcnt = 0;
	rc = player_prepare(p, off, &len, &a, &b, nonblock, 0);
	if (rc <= 0)
		return rc;
	/* The request's frames stay put while req_lock is held: a spill's
	 * copy is made without the ring's lock, which the filler needs. */
	pthread_mutex_unlock(&p->lock);
	eng_pieces_init(&pb, iov, iovmax, p->spill, p->spill_bytes);
	for (f = a; f <= b; f++) {
		size_t slot = (size_t)(f % (int64_t)p->nslots);

		part = frame_part(p, f, off, len, &fo, &from);
		if (!part)
			continue;
		if (eng_pieces_add(&pb, p->ring + slot * p->slot_bytes + from,
				   part) < 0) {
			pthread_mutex_unlock(&p->req_lock);
			return -E2BIG;
		}
	}
	*iovcnt = pb.n;
	pthread_mutex_lock(&p->lock);
	return served(p, len);
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
	rc = player_prepare(p, off, &len, &a, &b, 0, 1);
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

		part = frame_part(p, f, off, len, &fo, &from);
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
	return served(p, len);
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

ssize_t eng_player_read(struct eng_player *p, uint64_t off, size_t len,
			struct iovec *iov, int iovmax, int *iovcnt)
{
	return player_read(p, off, len, iov, iovmax, iovcnt, 0);
}

ssize_t eng_player_try_read(struct eng_player *p, uint64_t off, size_t len,
			    struct iovec *iov, int iovmax, int *iovcnt)
{
	return player_read(p, off, len, iov, iovmax, iovcnt, 1);
}

void eng_player_unlock(struct eng_player *p)
{
	pthread_mutex_unlock(&p->req_lock);
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

void eng_player_stats(struct eng_player *p, struct eng_player_stats *st)
{
	pthread_mutex_lock(&p->stats_lock);
	*st = p->st;
	pthread_mutex_unlock(&p->stats_lock);
}
