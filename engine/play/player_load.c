/* SPDX-License-Identifier: MIT */
/*
 * Loading one frame into its ring slot: reserved under the lock, read with
 * the lock released (one pread per extent of each non-gap slice, after the
 * decoding dependencies of long-GOP media where a run of it starts; each
 * recorded), published
 * under the lock unless a seek restarted the ring meanwhile.  The clock:
 * each frame's issue time is the anchor plus its period (player_i.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

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

ssize_t eng_pl_pread(struct eng_player *p, void *bounce, int fd, int direct,
		     void *dst, size_t len, uint64_t off,
		     struct eng_access *a)
{
	const struct eng_io *io = p->cfg.io;
	uint64_t start = off & ~(DIRECT_ALIGN - 1);
	uint64_t end = (off + len + DIRECT_ALIGN - 1) & ~(DIRECT_ALIGN - 1);
	ssize_t r;

	if (!direct) {
		a->issued_ns = io->now(io->ctx);
		r = io_pread(io, fd, dst ? dst : bounce, len, off, a);
		a->done_ns = io->now(io->ctx);
		return r;
	}
	if (!bounce || end - start > p->bounce_bytes) {
		a->issued_ns = a->done_ns = io->now(io->ctx);
		return -EFBIG;
	}
	a->issued_ns = io->now(io->ctx);
	r = io_pread(io, fd, bounce, (size_t)(end - start), start, a);
	a->done_ns = io->now(io->ctx);
	if (r < 0)
		return r;
	r = (uint64_t)r > off - start ? r - (ssize_t)(off - start) : 0;
	if ((size_t)r > len)
		r = (ssize_t)len;
	if (dst)
		memcpy(dst, (unsigned char *)bounce + (off - start), (size_t)r);
	return r;
}

long eng_pl_keep(struct load *l, const struct eng_access *a)
{
	/* kept whether recorded or not: the live causes read them */
	long row = (long)l->npend;

	l->pend[l->npend++] = *a;
	/* the daemon's own delay before this read: its first read's issue
	 * after the filler's timed wait for the frame ended (woken late,
	 * or given the CPU late after it woke), a later read's after the
	 * frame's read before it (its loader waits for nothing between) */
	if (l->filled && !l->wake_known) {
		l->wake_known = 1;
		l->pend[row].wake_ns = l->wake_at &&
				       a->issued_ns > l->wake_at ?
				       a->issued_ns - l->wake_at : 0;
	} else if (l->filled) {
		l->pend[row].wake_ns = a->issued_ns > l->last_done ?
				       a->issued_ns - l->last_done : 0;
	}
	if (a->done_ns - a->issued_ns > l->worst)
		l->worst = a->done_ns - a->issued_ns;
	l->last_done = a->done_ns;
	l->reads++;
	return row;
}

/* The bytes [off, off + len) of fd once, from got on (a zero-copy
 * slot's pipe holds the first got already; the ring is read whole):
 * a's times, bytes read (short at the file's end) or -errno. */
static ssize_t read_once(struct eng_player *p, struct loader *ld, int fd,
			 int direct, unsigned char *dst, uint64_t off,
			 uint64_t len, uint64_t got, int kept,
			 struct eng_access *a)
{
	ssize_t r;

	if (p->zc > 0 && dst && !kept) {
		/* a failed frame fails its requests; what it left in the
		 * pipe is discarded when the slot is reused */
		r = eng_pl_zc_splice(p, fd, off + got, len - got, a);
		return r < 0 ? r : (ssize_t)got + r;
	}
	return eng_pl_pread(p, ld->bounce, fd, direct, dst, (size_t)len, off,
			    a);
}

/* The wait of a loader for a file still being recorded, in steps of at
 * most a quarter frame: no step lets the bytes' arrival go unseen for
 * longer, and a recorder writes no faster than one frame a period. */
static uint64_t await_step(const struct eng_player *p)
{
	uint64_t q = period_ns(p, 1) / 4;

	return q ? q : 1;
}

/*
 * Edit while ingest (docs/design.md "Ingest"): read a of frame l->k came
 * short of end, the byte after its extent.  When cfg.growing says the
 * clip's file is being recorded, wait until the file reaches end: one
 * ENG_OP_AWAIT row (issued when the read came short, done when the bytes
 * were there or the wait was given up, err ENODATA then), kept before the
 * read's.  Given up: the recording closed short of end, the stream stops,
 * or a seek restarted the ring (the frame will not be played).  1: the
 * bytes are there (read them again), 0: not waited for or given up (the
 * read fails, EIO, as a short clip's).
 */
int eng_pl_await_bytes(struct eng_player *p, struct load *l, int fd,
		       const char *file, uint64_t end,
		       const struct eng_access *a)
{
	const struct eng_io *io = p->cfg.io;
	struct eng_access w = *a;
	uint64_t size = 0;
	int rec, stop;

	if (!p->cfg.growing || !io->size ||
	    !p->cfg.growing(p->cfg.growing_ctx, file))
		return 0;
	w.op = ENG_OP_AWAIT;
	w.issued_ns = a->done_ns;
	w.injected = 0;
	w.err = 0;
	for (;;) {
		/* growing first: bytes written before the recording closed
		 * are seen by the size that follows */
		rec = p->cfg.growing(p->cfg.growing_ctx, file);
		if (io->size(io->ctx, fd, &size) == 0 && size >= end)
			break;
		pthread_mutex_lock(&p->lock);
		stop = p->stop || p->loaders_stop || l->epoch != p->epoch;
		pthread_mutex_unlock(&p->lock);
		if (!rec || stop) {
			w.err = ENODATA;
			break;
		}
		io->sleep_until(io->ctx, io->now(io->ctx) + await_step(p));
	}
	w.done_ns = io->now(io->ctx);
	/* not a backing read: no access counted, no latency the worst */
	l->pend[l->npend++] = w;
	return !w.err;
}

/* One backing read: len bytes at off of (clip, track)'s file into dst
 * (a ring slot, or a frame kept for its turn: kept), or, for a decoding
 * dependency (dst NULL), into the loader's bounce buffer, whose bytes are
 * not served; a short read of a clip being
 * recorded waits for its bytes where awaitable (await_bytes).  Fills the
 * times and err of a. */
static void read_extent(struct eng_player *p, struct load *l, uint32_t clip,
			size_t t, uint64_t off, uint64_t len,
			unsigned char *dst, int kept, int awaitable,
			struct eng_access *a)
{
	const struct eng_io *io = p->cfg.io;
	int zc = p->zc > 0 && dst && !kept, direct = 0, fd;
	ssize_t r;

	/* a dependency larger than eng_tl_layout_media saw (a reader's
	 * len_max gone wrong) is not read past the buffer */
	if ((!dst || kept) && len + 2 * DIRECT_ALIGN > p->bounce_bytes) {
		a->issued_ns = a->done_ns = io->now(io->ctx);
		a->err = EFBIG;
		return;
	}
	fd = eng_pl_media_fd(p, clip, t, &direct);
	if (fd < 0) {
		a->issued_ns = a->done_ns = io->now(io->ctx);
		a->err = -fd;
		if (dst)
			memset(dst, 0, (size_t)len);
		return;
	}
	if (p->zc == ENG_PL_ZC_FILES && dst && !kept) {
		/* the replies read it (player_fdr.c); a decoder's
		 * dependency, never served, is read here */
		eng_pl_fdr_extent(p, l, fd, p->tl->clips[clip].media[t].file,
				  off, len, awaitable, a);
		eng_pl_media_put(p, clip, t);
		return;
	}
	r = read_once(p, l->ld, fd, direct, dst, off, len, 0, kept, a);
	if (r >= 0 && (uint64_t)r < len && awaitable &&
	    eng_pl_await_bytes(p, l, fd, p->tl->clips[clip].media[t].file,
			       off + len, a)) {
		a->err = 0;
		r = read_once(p, l->ld, fd, direct, dst, off, len, (uint64_t)r,
			      kept, a);
	}
	if (r < 0)
		a->err = (int)-r;
	else if ((uint64_t)r < len)
		a->err = EIO;
	/* a direct open that fell back to buffered still must not let the
	 * page cache hide the storage */
	if (!zc && !direct &&
	    p->cfg.backing != ENG_BACKING_BUFFERED && io->dontneed)
		io->dontneed(io->ctx, fd, off, len);
	eng_pl_media_put(p, clip, t);
	/* never leave stale bytes of another frame behind (a pipe's are
	 * discarded when its slot is reused) */
	if (a->err && dst && !zc)
		memset(dst, 0, (size_t)len);
}

/* One read of frame l->k's track t: its access row kept for recording,
 * its time and failure the frame's; kept: dst is a frame kept for its
 * turn (a dependency read whose bytes are served later).  0, or the
 * read's errno. */
static int load_extent(struct eng_player *p, struct load *l,
		       const struct eng_slice *s, uint64_t off, uint64_t len,
		       unsigned char *dst, int dep, int kept)
{
	struct eng_access a;

	eng_pl_row_init(l, &a);
	a.track = (uint32_t)s->track;
	a.clip = s->seg->clip;
	a.file_offset = off;
	a.length = len;
	a.dep = dep;
	/* raw essence is one extent a slice: one await row a track at
	 * most (eng_pl_reads_max) */
	read_extent(p, l, s->seg->clip, s->track, off, len, dst, kept,
		    !dep && s->next == 1, &a);
	eng_pl_keep(l, &a);
	if (a.err)
		l->failed = 1;
	return a.err;
}

void eng_pl_row_init(const struct load *l, struct eng_access *a)
{
	memset(a, 0, sizeof(*a));
	a->frame = l->k;
	a->sched_ns = l->sched;
	a->due_ns = l->due;
	a->filled = l->filled;
	a->ring_fill = l->ring_fill;
}

/* Track t's kept frame i (lock). */
static struct ahead *ahead_at(struct eng_player *p, size_t t, size_t i)
{
	return &p->ahead[t * p->nahead + i];
}

/* A cut or seek on track t: the kept frames nobody will play are
 * dropped (lock); one still being read is freed when its read is done. */
static void ahead_drop(struct eng_player *p, size_t t)
{
	size_t i;

	for (i = 0; i < p->nahead; i++) {
		struct ahead *a = ahead_at(p, t, i);

		if (a->state == AH_FREE || a->claimed)
			continue;
		if (a->state == AH_READY)
			a->state = AH_FREE;
		else
			a->orphan = 1;
	}
}

/* Reserve a kept frame for media frame src of m, read by l (lock): its
 * index, -1 when all are taken (src is then read again at its turn). */
static long ahead_reserve(struct eng_player *p, const struct load *l,
			  size_t t, const void *m, int64_t src)
{
	size_t i;

	for (i = 0; p->ahead && p->ahead[t * p->nahead].buf && i < p->nahead;
	     i++) {
		struct ahead *a = ahead_at(p, t, i);

		if (a->state != AH_FREE)
			continue;
		memset(a, 0, offsetof(struct ahead, buf));
		a->media = m;
		a->src = src;
		a->owner = l;
		a->state = AH_READING;
		return (long)i;
	}
	return -1;
}

/* The kept frame of media frame src of m that load owner is to read
 * (orphaned or not: its read frees it then), or, owner NULL, one read or
 * being read that nobody has claimed yet and a cut has not orphaned
 * (lock); -1 none. */
static long ahead_find(struct eng_player *p, size_t t, const void *m,
		       int64_t src, const struct load *owner)
{
	size_t i;

	for (i = 0; p->ahead && i < p->nahead; i++) {
		const struct ahead *a = ahead_at(p, t, i);

		if (a->state == AH_FREE || a->media != m || a->src != src)
			continue;
		if (owner ? a->owner == owner && a->state == AH_READING :
			    !a->orphan && !a->claimed)
			return (long)i;
	}
	return -1;
}

/* Long-GOP media: what each track of frame l->k reads, in decode order,
 * each frame once, as a decoder reads it: where a run starts (a cut, a
 * seek, the first read) from its key frame; played on, from the decoder's
 * next frame; the frames shown after l->k among them kept for their
 * turn; a frame read so before its turn is not read again.  Decided as
 * the frames are reserved, in order, whichever loader reads them. */
static void plan_deps(struct eng_player *p, struct load *l)
{
	const struct eng_timeline *tl = p->tl;
	size_t t;

	for (t = 0; t < tl->ntracks; t++) {
		struct dec_state *d = &p->dec[t];
		struct dec_plan *pl = &l->plan[t];
		struct eng_slice s;
		const void *m;
		int64_t src, ds;
		uint32_t c;
		int i, n;

		memset(pl, 0, sizeof(*pl));
		pl->copy = -1;
		eng_slice_get(tl, l->k, t, &s);
		/* (an image sequence's slice is no decoder's: load_read
		 * gives it to player_seq.c) */
		if (s.len == 0 || !s.seg || s.next == 0 ||
		    tl->clips[s.seg->clip].media[t].seq)
			continue;
		src = eng_slice_src(tl, t, s.seg, l->k);
		if (src < 0)
			continue;
		c = s.seg->clip;
		m = &tl->clips[c].media[t];
		if (!(d->media == m && d->src + 1 == src)) {
			ahead_drop(p, t);
			d->next = eng_slice_run_start(tl, c, t, src);
		}
		d->media = m;
		d->src = src;
		ds = eng_slice_dpos(tl, c, t, src);
		pl->from = d->next;
		if (ds < d->next) {
			/* read ahead by an earlier frame: its copy, or,
			 * where none was kept, the frame again */
			pl->copy = ahead_find(p, t, m, src, NULL);
			if (pl->copy >= 0)
				ahead_at(p, t, (size_t)pl->copy)->claimed = 1;
			pl->own = pl->copy < 0;
			pl->from = ds;
			continue;
		}
		pl->own = 1;
		n = l->ld->deps ? eng_slice_decode_reads(tl, c, t, d->next,
				  src, l->ld->deps, l->ld->which,
				  tl->dep_reads_max) : 0;
		for (i = 0; i < n; i++)
			if (l->ld->which[i] > src)
				(void)ahead_reserve(p, l, t, m, l->ld->which[i]);
		d->next = ds + 1;
	}
}

/* The decoder reads of slice s before its own that plan_deps found,
 * each one read, the frames shown later into their kept buffers. */
static void load_deps(struct eng_player *p, struct load *l,
		      const struct eng_slice *s)
{
	const struct eng_timeline *tl = p->tl;
	const struct dec_plan *pl = &l->plan[s->track];
	struct loader *ld = l->ld;
	const void *m = &tl->clips[s->seg->clip].media[s->track];
	int64_t src;
	int i, n, err, kept;

	if (!ld->deps || !pl->own)
		return;
	src = eng_slice_src(tl, s->track, s->seg, l->k);
	n = eng_slice_decode_reads(tl, s->seg->clip, s->track, pl->from, src,
				   ld->deps, ld->which, tl->dep_reads_max);
	for (i = 0; i < n; i++) {
		struct ahead *a = NULL;
		long k = -1;

		if (ld->which[i] > src) {
			pthread_mutex_lock(&p->lock);
			k = ahead_find(p, s->track, m, ld->which[i], l);
			pthread_mutex_unlock(&p->lock);
		}
		if (k >= 0)
			a = ahead_at(p, s->track, (size_t)k);
		/* a frame larger than the layout saw (a reader's len_max
		 * gone wrong) is not kept: its turn fails */
		kept = a && ld->deps[i].len <= p->tl->dep_bytes_max;
		err = load_extent(p, l, s, ld->deps[i].off, ld->deps[i].len,
				  kept ? a->buf : NULL, 1, kept);
		if (!a)
			continue;
		pthread_mutex_lock(&p->lock);
		a->failed = err != 0 || !kept;
		a->state = a->orphan ? AH_FREE : AH_READY;
		pthread_cond_broadcast(&p->ready_cv);
		pthread_mutex_unlock(&p->lock);
	}
}

/* Slice s's bytes from the frame an earlier load read ahead for it:
 * waits for that read, copies, frees the kept frame. */
static void load_kept(struct eng_player *p, struct load *l,
		      const struct eng_slice *s, unsigned char *at)
{
	struct ahead *a = ahead_at(p, s->track,
				   (size_t)l->plan[s->track].copy);

	pthread_mutex_lock(&p->lock);
	while (a->state == AH_READING)
		pthread_cond_wait(&p->ready_cv, &p->lock);
	pthread_mutex_unlock(&p->lock);
	if (a->failed || s->len > p->tl->dep_bytes_max) {
		memset(at, 0, (size_t)s->len);
		l->failed = 1;
	} else {
		memcpy(at, a->buf, (size_t)s->len);
	}
	pthread_mutex_lock(&p->lock);
	a->state = AH_FREE;
	a->claimed = 0;
	pthread_mutex_unlock(&p->lock);
}

/* Reserve frame p->next, evicting the oldest frame if the ring is full.
 * The slot is outside [lo, head) from here on, so no request is served
 * from it while it is written. */
struct load *eng_pl_load_begin(struct eng_player *p, struct loader *ld)
{
	struct load *l = eng_pl_load_of(p, p->next);
	struct eng_access *pend = l->pend;
	struct dec_plan *plan = l->plan;

	memset(l, 0, sizeof(*l));
	l->pend = pend;
	l->plan = plan;
	l->state = LD_READING;
	l->ld = ld;
	l->k = p->next++;
	l->slot = (size_t)(l->k % (int64_t)p->nslots);
	l->epoch = p->epoch;
	l->sched = issue_ns(p, l->k);
	l->due = clock_ns(p, l->k) + period_ns(p, p->cfg.buffer);
	if (l->k - p->lo == (int64_t)p->nslots)
		p->lo++;
	p->loading++;
	/* a re-read is real I/O (recorded, counted in accesses) but the
	 * frame was already played: it is not played, nor late, twice */
	l->replay = replayed(p, l->k);
	/* ... and where its slot still holds it (the ring restarted below
	 * it: a request of a file server's that came late), not read twice
	 * either */
	l->held = still_held(p, l->k);
	if (p->held && !l->held)
		p->held[l->slot] = -1;
	if (p->zc == 1)
		eng_pl_zc_reset_slot(p, l->slot);
	if (!l->held && p->tl->dep_reads_max)
		plan_deps(p, l);
	return l;
}

/* The preads of a reserved frame, one per extent of each non-gap slice.
 * Runs without the player lock: it touches only the reserved slot, its
 * loader's buffers (l->ld) and the media fds (under their own lock). */
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
		unsigned char *at;
		int i;

		eng_slice_get(tl, l->k, t, &s);
		if (s.len == 0)
			continue;
		at = dst + (s.pos - base);
		if (!s.seg || s.next == 0) {
			/* a gap; or media without these bytes, which
			 * eng_tl_layout_media refuses: never served */
			eng_pl_zeros(p, l, at, (size_t)s.len);
			if (s.seg)
				l->failed = 1;
			continue;
		}
		if (tl->clips[s.seg->clip].media[t].seq) {
			/* an image file a frame (player_seq.c) */
			eng_pl_seq_read(p, l, &s, at);
			continue;
		}
		if (p->nahead && l->plan[t].copy >= 0) {
			load_kept(p, l, &s, at);
			continue;
		}
		load_deps(p, l, &s);
		for (i = 0; i < s.next; i++) {
			(void)load_extent(p, l, &s, s.ext[i].off,
					  s.ext[i].len, at, 0, 0);
			at += s.ext[i].len;
		}
	}
}

/* Publish a loaded frame, unless a seek or re-read restarted the ring
 * meanwhile: then the reads were real I/O (recorded, counted) but the
 * frame belongs to a ring that no longer exists; but for a kept one
 * (l->kept), which is played into its slot for the new ring to take. */
enum eng_cause eng_pl_rows_cause(struct eng_player *p,
				 const struct eng_access *rows, size_t n)
{
	enum eng_cause c, worst = ENG_CAUSE_NONE;
	size_t i;

	for (i = 0; i < n; i++) {
		c = eng_cause_row(&p->cause, &rows[i], p->nslots);
		if (c > worst)
			worst = c;
	}
	return worst;
}

void eng_pl_count_timed(struct eng_player *p, int played, int reads,
			uint64_t worst, uint64_t last_done, uint64_t due,
			enum eng_cause cause)
{
	p->st.accesses += reads;
	if (worst > p->st.worst_ns)
		p->st.worst_ns = worst;
	if (!played || !reads)
		return;
	if (last_done > due) {
		p->st.late_frames++;
		p->st.late_causes[cause ? cause : ENG_CAUSE_ISSUE]++;
	}
	eng_headroom_add(&p->st.headroom, (int64_t)due - (int64_t)last_done);
}

void eng_pl_load_end(struct eng_player *p, struct load *l)
{
	int publish = l->epoch == p->epoch;
	/* a kept frame of the ring restarted under it (l->kept) is played
	 * here, into its slot; the new ring takes it from there (held) */
	int live = publish || l->kept;
	int replay = l->replay && !l->held;
	/* replies from the files: its rows are done, and it is late or
	 * not, when its bytes have gone (player_fdr.c) */
	int files = p->zc == ENG_PL_ZC_FILES;
	enum eng_cause cause = files ? ENG_CAUSE_NONE :
			       eng_pl_rows_cause(p, l->pend, l->npend);

	l->played = live && !l->replay;
	if (live && !l->held) {
		p->failed[l->slot] = (unsigned char)l->failed;
		if (p->held)
			p->held[l->slot] = l->k;
	}
	if (publish) {
		/* frames are published in the order they were reserved */
		p->head++;
		if (p->head > p->hwm)
			p->hwm = p->head;
	}
	pthread_mutex_lock(&p->stats_lock);
	if (!files)
		eng_pl_count_timed(p, live && !l->replay, l->reads, l->worst,
				   l->last_done, l->due, cause);
	if (live && replay)
		p->st.reloads++;
	if (live && !l->replay) {
		p->st.frames++;
		if (l->failed)
			p->st.failed_frames++;
	}
	p->st.head = p->hwm;
	pthread_mutex_lock(&p->fd_lock);
	p->st.opens = p->opens;
	p->st.reopens = p->reopens;
	p->st.open_retries = p->open_retries;
	p->st.files_open = p->nopen;
	p->st.files_peak = p->open_peak;
	pthread_mutex_unlock(&p->fd_lock);
	pthread_mutex_unlock(&p->stats_lock);
	if (files)
		eng_pl_fdr_publish(p, l, live);
	if (p->waiters)
		pthread_cond_broadcast(&p->ready_cv);
}

void eng_pl_load_finish(struct eng_player *p, struct load *l)
{
	struct eng_access *pend = l->pend;
	size_t i;

	if (l->npend && p->cfg.record) {
		pthread_mutex_unlock(&p->lock);
		for (i = 0; i < l->npend; i++) {
			pend[i].played = l->played;
			record(p, &pend[i]);
		}
		pthread_mutex_lock(&p->lock);
	}
	p->loading--;
	l->state = LD_IDLE;
	/* a request whose frames loader threads were reading loads the
	 * rest itself once none is (no filler) */
	if (!p->loading && p->waiters)
		pthread_cond_broadcast(&p->ready_cv);
}

/* The next load of fifo to publish or drop: a frame of a ring that
 * restarted as soon as it is read (it is not published, and a frame of
 * the new ring must not wait behind its stall), else the first of the
 * current ring once it is read.  -1: none yet. */
static ssize_t next_done(const struct eng_player *p)
{
	const struct load *l;
	size_t i;

	for (i = 0; i < p->nfifo; i++) {
		l = &p->loads[p->fifo[i]];
		if (l->epoch == p->epoch)
			return l->state == LD_DONE ? (ssize_t)i : -1;
		if (l->state == LD_DONE)
			return (ssize_t)i;
	}
	return -1;
}

/* The loader threads' frames are published in the order they were
 * reserved: a frame read early waits for the ones before it.  One
 * thread publishes at a time, so that rows are recorded in frame order
 * (a ring's; a dropped frame's rows come when it is read); another
 * finishing meanwhile leaves its frame to it. */
void eng_pl_load_publish(struct eng_player *p)
{
	struct load *l;
	ssize_t i;

	while (!p->publishing && (i = next_done(p)) >= 0) {
		l = &p->loads[p->fifo[i]];
		memmove(p->fifo + i, p->fifo + i + 1,
			(p->nfifo - (size_t)i - 1) * sizeof(p->fifo[0]));
		p->nfifo--;
		p->publishing = 1;
		eng_pl_load_end(p, l);
		eng_pl_load_finish(p, l);
		p->publishing = 0;
		/* its load free: the filler may reserve that slot again */
		eng_pl_wake_filler(p, 0);
	}
}

/* Reader-driven load of frame p->head (pace=off, or no filler running):
 * sleeps until the frame's issue time unless pace is off.  Called and
 * returns with the lock held; drops it while sleeping and reading. */
void eng_pl_load_frame(struct eng_player *p)
{
	const struct eng_io *io = p->cfg.io;
	struct load *l = eng_pl_load_begin(p, &p->ld[0]);

	pthread_mutex_unlock(&p->lock);
	/* A late clock is not waited for and not moved: the player drops
	 * frames, it does not slip. */
	if (p->cfg.pace.mode != ENG_PACE_OFF && !l->held &&
	    io->now(io->ctx) < l->sched)
		io->sleep_until(io->ctx, l->sched);
	eng_pl_load_read(p, l);
	pthread_mutex_lock(&p->lock);
	eng_pl_load_end(p, l);
	eng_pl_load_finish(p, l);
}
