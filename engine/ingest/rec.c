/* SPDX-License-Identifier: MIT */
/*
 * The record stream (ingest.h): a writer's bytes taken in on a capture
 * card's clock into a capture buffer of B frame slots, and written track
 * by track by one write thread, every operation an access row.  No io
 * call is made with the lock held: a test's fake clock may wait for this
 * stream's threads inside one.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"

enum slot_state { SLOT_EMPTY, SLOT_FILLING, SLOT_FULL, SLOT_WRITING };

/* One frame of the capture buffer. */
struct slot {
	enum slot_state state;
	int64_t k;
	uint64_t len;		/* bytes received */
	uint64_t sched, due;	/* A(k), A(k + B) */
	uint64_t issued;	/* its receive row's */
	int late;		/* its receive was done after due: the
				 * writer's drop */
	int partial;		/* the last frame, cut short at close */
	uint64_t wlen;		/* bytes written already (a sync wrote a
				 * frame still being received) */
	uint64_t owed;		/* bytes of the mount's reservation it
				 * holds: given back as they are written */
	unsigned char *buf;
};

struct eng_rec {
	struct eng_rec_config cfg;
	char name[256];
	uint32_t nt;
	int fd[ENG_INGEST_TRACKS_MAX];
	char file[ENG_INGEST_TRACKS_MAX][300];
	uint64_t data_at[ENG_INGEST_TRACKS_MAX]; /* essence start */
	uint64_t essence[ENG_INGEST_TRACKS_MAX]; /* bytes written; write
						   * thread, then close */
	int note_fd;
	/* the note is this create's: made by it, or a claimed note it has
	 * begun to rewrite; a failed create removes only such a note */
	int note_ours;
	char note[300];
	/* the note's owner lines (cfg.owner's, the lock's reach as got) */
	struct eng_ingest_owner owner;
	int owned;
	unsigned nslots;
	struct slot *slots;
	unsigned char *mem;

	pthread_mutex_t wlock;	/* one eng_rec_write or close at a time:
				 * the writer's fields below */
	int started;
	uint64_t t0;
	uint64_t debt;		/* ns a full buffer held the writer */
	int64_t cur;		/* the frame being received */
	uint64_t cur_start, cur_end; /* its bytes in the writer's stream */
	struct eng_ingest_space *space;	/* cfg.space */
	uint64_t credit;	/* bytes taken of the mount's reservation
				 * past the last accepted, to the end of
				 * its frame: pending, the frame's next
				 * writes use them without asking */
	uint64_t pre_end;	/* the writer's bytes of the preallocated
				 * frames: already the recording's blocks */
	uint64_t pre_held;	/* the preallocation's take, until its
				 * fallocates are done (create) */

	pthread_mutex_t lock;	/* the fields below and the slots' state */
	pthread_cond_t slot_cv;	/* a slot freed (the writer waits) */
	pthread_cond_t work_cv;	/* a slot full, or stop (the thread) */
	int64_t next_write;	/* the frame the write thread writes next */
	int stop;
	int stopped;		/* a drop under stop_on_drop */
	uint64_t wbytes;	/* bytes of frames written or failed */
	struct eng_rec_stats st;
	unsigned said;		/* SAID_* bits: each notice once */
	pthread_t thread;
	int thread_on;

	pthread_mutex_t rec_lock; /* one record call at a time */
	int closed;
};

#define SAID_RESERVE 1u
#define SAID_ERROR 2u
#define SAID_DROP 4u
#define SAID_PREALLOC 8u

/* Duration of k frames at the stream's speed, in ns; exact at speed 1
 * (the player's period_ns). */
static uint64_t period(const struct eng_rec *r, int64_t k, int at_speed)
{
	const struct eng_fps *fps = &r->cfg.fmt.fps;
	long double v;

	if (k <= 0)
		return 0;
	if (!at_speed || r->cfg.pace.mode != ENG_PACE_FACTOR ||
	    r->cfg.pace.speed == 1.0)
		return (uint64_t)((unsigned __int128)k * fps->den *
				  ENG_NS_PER_SEC / fps->num);
	v = (long double)k * fps->den * 1e9L / fps->num / r->cfg.pace.speed;
	return v >= 9e18L ? (uint64_t)9e18 : (uint64_t)v;
}

static uint64_t now(const struct eng_rec *r)
{
	return r->cfg.io->now(r->cfg.io->ctx);
}

static void say(struct eng_rec *r, unsigned bit, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void say(struct eng_rec *r, unsigned bit, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int first;

	pthread_mutex_lock(&r->lock);
	first = !(r->said & bit);
	r->said |= bit;
	pthread_mutex_unlock(&r->lock);
	if (!first || !r->cfg.notice)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->cfg.notice(r->cfg.notice_ctx, msg);
}

/* One row.  A frame's rows carry its sched and due; the rows of no frame
 * (open, the header, prealloc, the close's) sched = issued, due = done:
 * they are never late. */
static void row(struct eng_rec *r, uint32_t op, int64_t k, uint32_t t,
		uint64_t off, uint64_t len, const struct slot *s,
		uint64_t issued, uint64_t done, int rc, unsigned injected)
{
	struct eng_access a;

	if (!r->cfg.record)
		return;
	memset(&a, 0, sizeof(a));
	a.op = op;
	a.frame = k;
	a.track = t;
	a.file_offset = off;
	a.length = len;
	a.sched_ns = s ? s->sched : issued;
	a.due_ns = s ? s->due : done;
	a.issued_ns = issued;
	a.done_ns = done;
	a.err = rc < 0 ? -rc : 0;
	a.injected = injected;
	a.played = s && !s->partial;
	pthread_mutex_lock(&r->rec_lock);
	r->cfg.record(r->cfg.record_ctx, &a);
	pthread_mutex_unlock(&r->rec_lock);
}

/* A pwrite with its row; 0 or -errno. */
static int put(struct eng_rec *r, uint32_t t, const void *buf, uint64_t len,
	       uint64_t off, int64_t k, const struct slot *s)
{
	const struct eng_io *io = r->cfg.io;
	unsigned inj = 0;
	uint64_t t1, t2;
	ssize_t n;
	int rc;

	t1 = now(r);
	n = io->pwrite(io->ctx, r->fd[t], buf, len, off, &inj);
	t2 = now(r);
	rc = n < 0 ? (int)n : (uint64_t)n == len ? 0 : -EIO;
	row(r, ENG_OP_WRITE, k, t, off, len, s, t1, t2, rc, inj);
	pthread_mutex_lock(&r->lock);
	r->st.writes++;
	if (t2 - t1 > r->st.max_write_ns)
		r->st.max_write_ns = t2 - t1;
	if (rc < 0 && !r->st.error)
		r->st.error = rc;
	pthread_mutex_unlock(&r->lock);
	if (rc < 0)
		say(r, SAID_ERROR, "cannot write %s: %s", r->file[t],
		    strerror(-rc));
	return rc;
}

static int track_op(struct eng_rec *r, uint32_t op, uint32_t t, int64_t k,
		    const struct slot *s, uint64_t arg)
{
	const struct eng_io *io = r->cfg.io;
	unsigned inj = 0;
	uint64_t t1, t2;
	int rc;

	t1 = now(r);
	if (op == ENG_OP_FSYNC)
		rc = io->fsync(io->ctx, r->fd[t], &inj);
	else if (op == ENG_OP_TRUNCATE)
		rc = io->ftruncate(io->ctx, r->fd[t], arg);
	else
		rc = io->fallocate(io->ctx, r->fd[t], r->data_at[t], arg,
				   &inj);
	t2 = now(r);
	row(r, op, k, t, op == ENG_OP_FALLOCATE ? r->data_at[t] : arg,
	    op == ENG_OP_FALLOCATE ? arg : 0, s, t1, t2, rc, inj);
	return rc;
}

/* An fsync that fails is the recording's failure: what it wrote may
 * not be on storage. */
static void fsync_track(struct eng_rec *r, uint32_t t, int64_t k,
			const struct slot *s)
{
	int rc = track_op(r, ENG_OP_FSYNC, t, k, s, 0);

	if (rc == 0)
		return;
	pthread_mutex_lock(&r->lock);
	if (!r->st.error)
		r->st.error = rc;
	pthread_mutex_unlock(&r->lock);
	say(r, SAID_ERROR, "cannot fsync %s: %s", r->file[t], strerror(-rc));
}

static int failed(struct eng_rec *r)
{
	int e;

	pthread_mutex_lock(&r->lock);
	e = r->st.error;
	pthread_mutex_unlock(&r->lock);
	return e;
}

/* Bytes a slot held of the mount's reservation, written or never to be. */
static void give(struct eng_rec *r, struct slot *s, uint64_t n)
{
	if (n > s->owed)
		n = s->owed;
	s->owed -= n;
	eng_ingest_space_give(r->space, n);
}

/* Frame s->k's slices from its byte s->wlen on, track by track, in
 * pieces of at most write_bytes.  The time of its last write in *last; 0
 * or the first failure. */
static int write_frame(struct eng_rec *r, struct slot *s, uint64_t *last)
{
	const struct eng_ingest_format *f = &r->cfg.fmt;
	uint64_t pos = 0, a, b, n, piece, at;
	uint32_t t;
	int rc = 0;

	*last = 0;
	for (t = 0; t < r->nt && pos < s->len; t++) {
		a = eng_ingest_upto(f, t, s->k);
		b = eng_ingest_upto(f, t, s->k + 1);
		n = b - a;
		if (n > s->len - pos)
			n = s->len - pos;	/* a partial frame */
		at = s->wlen > pos ? s->wlen - pos : 0;
		for (at = at < n ? at : n; at < n && rc == 0; at += piece) {
			piece = n - at;
			if (r->cfg.write_bytes && piece > r->cfg.write_bytes)
				piece = r->cfg.write_bytes;
			rc = put(r, t, s->buf + pos + at, piece,
				 r->data_at[t] + a + at, s->k, s);
			if (rc == 0)
				r->essence[t] = a + at + piece;
			give(r, s, piece);
			pthread_mutex_lock(&r->lock);
			r->wbytes += piece;
			pthread_mutex_unlock(&r->lock);
		}
		pos += n;
		if (rc < 0)
			break;
	}
	if (rc == 0)
		s->wlen = s->len;
	*last = now(r);
	return rc;
}

static void *write_thread(void *arg)
{
	struct eng_rec *r = arg;
	struct slot *s;
	uint64_t last;
	int rc, drop, writer;
	uint32_t t;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		s = &r->slots[r->next_write % r->nslots];
		while (!(s->state == SLOT_FULL && s->k == r->next_write) &&
		       !r->stop)
			pthread_cond_wait(&r->work_cv, &r->lock);
		if (!(s->state == SLOT_FULL && s->k == r->next_write))
			break;
		s->state = SLOT_WRITING;
		pthread_mutex_unlock(&r->lock);
		/* after a failed write no more: a track file must not get
		 * a hole where the failed bytes were */
		rc = failed(r) ? -EIO : write_frame(r, s, &last);
		drop = rc == 0 && !s->partial && last > s->due;
		writer = drop && s->late;
		if (rc == 0 && !s->partial &&
		    r->cfg.fsync == ENG_INGEST_FSYNC_EVERY &&
		    r->cfg.fsync_every &&
		    (s->k + 1) % r->cfg.fsync_every == 0)
			for (t = 0; t < r->nt; t++)
				fsync_track(r, t, s->k, s);
		if (drop && r->cfg.stop_on_drop)
			say(r, SAID_DROP,
			    "%s: frame %" PRId64 " dropped (%s): the writer's "
			    "next write fails (ingest_on_drop=stop)",
			    r->name, s->k, writer ? "writer" : "storage");
		give(r, s, s->owed);	/* a failed frame's: never written */
		pthread_mutex_lock(&r->lock);
		if (rc < 0)
			r->wbytes = r->st.bytes;	/* none will be */
		if (!s->partial) {
			if (rc < 0)
				r->st.failed++;
			else
				r->st.written++;
			r->st.dropped += drop;
			r->st.dropped_writer += writer;
		}
		if (drop && r->cfg.stop_on_drop)
			r->stopped = 1;
		s->state = SLOT_EMPTY;
		r->next_write++;
		pthread_cond_broadcast(&r->slot_cv);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* ------------------------------------------------------------ the writer */

/* Take the mount's reservation for the writer's len bytes at off: the
 * bytes that may be accepted (those of preallocated frames need none).
 * The reservation is asked once a frame (io->space is a server call on
 * NFS, under a lock every recorder of the mount shares): a take reaches
 * to the end of the frame the write ends in, and the frame's later
 * writes use that credit.  A refusal is asked anew by the next write:
 * space freed meanwhile counts. */
static size_t space_take(struct eng_rec *r, size_t len, uint64_t off)
{
	const struct eng_ingest_format *fmt = &r->cfg.fmt;
	uint64_t from = off > r->pre_end ? off : r->pre_end, need, got, end;
	uint64_t free_b = 0, held = 0;

	if (off + len <= r->pre_end)
		return len;
	need = off + len - from;
	if (r->credit >= need) {
		r->credit -= need;
		return len;
	}
	from += r->credit;
	need -= r->credit;
	r->credit = 0;
	end = off + len <= r->cur_end
		      ? r->cur_end
		      : eng_ingest_frame_offset(
				fmt, eng_ingest_frame_at(fmt, off + len - 1) + 1);
	got = eng_ingest_space_take(r->space, r->cfg.io, r->cfg.reserve,
				    end - from, &free_b, &held);
	if (got >= need) {
		r->credit = got - need;
		return len;
	}
	say(r, SAID_RESERVE,
	    "cannot record frame %" PRId64 " of %s: %" PRIu64 " bytes free on "
	    "the media file system, under the reserve of %" PRIu64 " and the "
	    "%" PRIu64 " bytes the mount's recordings hold in their buffers "
	    "and keep for their track files",
	    eng_ingest_frame_at(fmt, from + got), r->name, free_b,
	    r->cfg.reserve, held);
	return (size_t)(from - off + got);
}

/* The first byte of frame r->cur: wait for its arrival (pace) and for its
 * slot.  The slot. */
static struct slot *frame_begin(struct eng_rec *r)
{
	const struct eng_io *io = r->cfg.io;
	int64_t k = r->cur;
	struct slot *s = &r->slots[k % r->nslots];
	uint64_t t, a = 0, ta;
	int waited = 0;

	t = now(r);
	if (r->cfg.pace.mode != ENG_PACE_OFF) {
		a = r->t0 + period(r, k, 1);
		if (t < a) {
			io->sleep_until(io->ctx, a);
			t = now(r);
		}
	}
	pthread_mutex_lock(&r->lock);
	if (s->state != SLOT_EMPTY) {
		r->st.waiting = 1;
		while (s->state != SLOT_EMPTY)
			pthread_cond_wait(&r->slot_cv, &r->lock);
		r->st.waiting = 0;
		waited = 1;
	}
	s->state = SLOT_FILLING;
	pthread_mutex_unlock(&r->lock);
	ta = waited ? now(r) : t;
	s->k = k;
	s->len = 0;
	s->wlen = 0;
	s->owed = 0;
	s->late = 0;
	s->partial = 0;
	if (r->cfg.pace.mode != ENG_PACE_OFF) {
		/* the receive row is the writer's: the time a full buffer
		 * (the storage) held it is not its lateness */
		r->debt += ta - t;
		s->sched = a;
		s->due = r->t0 + period(r, k + r->cfg.buffer, 1);
		s->issued = ta - r->debt > a ? ta - r->debt : a;
	} else {
		s->issued = ta;
	}
	return s;
}

/* pace=off: frame s arrives at t (with its last byte, or a sync that
 * writes it now), due B periods after. */
static void arrived_at(struct eng_rec *r, struct slot *s, uint64_t t)
{
	s->sched = t;
	s->due = t + period(r, r->cfg.buffer, 0);
}

/* Frame s's last byte: its receive row, and the slot to the thread. */
static void frame_end(struct eng_rec *r, struct slot *s, int partial)
{
	uint64_t t = now(r), done;

	if (r->cfg.pace.mode != ENG_PACE_OFF) {
		done = t - r->debt > s->issued ? t - r->debt : s->issued;
	} else {
		done = t;
		arrived_at(r, s, t);
	}
	s->late = done > s->due;
	s->partial = partial;
	row(r, ENG_OP_RECEIVE, s->k, 0, 0, s->len, s, s->issued, done, 0, 0);
	pthread_mutex_lock(&r->lock);
	s->state = SLOT_FULL;
	if (!partial)
		r->st.frames++;
	pthread_cond_broadcast(&r->work_cv);
	pthread_mutex_unlock(&r->lock);
}

static void next_frame(struct eng_rec *r)
{
	r->cur++;
	r->cur_start = r->cur_end;
	r->cur_end = eng_ingest_frame_offset(&r->cfg.fmt, r->cur + 1);
}

/* The recorder's failure as the writer's error: a failed write's
 * -errno, EIO for a drop under stop_on_drop or a closed recorder; 0. */
static int write_refused(struct eng_rec *r)
{
	int rc;

	pthread_mutex_lock(&r->lock);
	rc = r->st.error ? r->st.error
	     : r->stopped || r->closed ? -EIO : 0;
	pthread_mutex_unlock(&r->lock);
	return rc;
}

ssize_t eng_rec_write(struct eng_rec *r, const void *buf, size_t len,
		      uint64_t off)
{
	const unsigned char *p = buf;
	struct slot *s;
	size_t done = 0, n;
	int rc;

	pthread_mutex_lock(&r->wlock);
	rc = write_refused(r);
	if (rc == 0 && off != r->st.bytes)
		rc = -ESPIPE;
	if (rc < 0 || len == 0)
		goto out;
	/* nothing is accepted that the file system has not room for */
	len = space_take(r, len, off);
	if (len == 0) {
		rc = -ENOSPC;
		goto out;
	}
	if (!r->started) {
		r->started = 1;
		r->t0 = now(r);
	}
	while (done < len) {
		s = &r->slots[r->cur % r->nslots];
		if (off + done == r->cur_start)
			s = frame_begin(r);
		n = len - done;
		if (n > r->cur_end - (off + done))
			n = (size_t)(r->cur_end - (off + done));
		memcpy(s->buf + s->len, p + done, n);
		s->len += n;
		/* the taken bytes each frame holds, given back as written */
		if (off + done + n > r->pre_end) {
			uint64_t o = off + done + n - r->pre_end;

			s->owed += o < n ? o : n;
		}
		done += n;
		pthread_mutex_lock(&r->lock);
		r->st.bytes += n;
		pthread_mutex_unlock(&r->lock);
		if (off + done == r->cur_end) {
			frame_end(r, s, 0);
			next_frame(r);
		}
	}
out:
	pthread_mutex_unlock(&r->wlock);
	return done ? (ssize_t)done : rc < 0 ? rc : 0;
}

void eng_rec_stats(struct eng_rec *r, struct eng_rec_stats *st)
{
	pthread_mutex_lock(&r->lock);
	*st = r->st;
	pthread_mutex_unlock(&r->lock);
}

/* ------------------------------------------------------------ open, close */

static int note_put(struct eng_rec *r, const char *state, int64_t frames)
{
	const struct eng_io *io = r->cfg.io;
	char *text;
	size_t len;
	ssize_t n;
	int rc;

	rc = eng_ingest_note_text_owned(&r->cfg.fmt, state, frames,
					r->owned ? &r->owner : NULL, &text);
	if (rc < 0)
		return rc;
	len = strlen(text);
	n = io->pwrite(io->ctx, r->note_fd, text, len, 0, NULL);
	free(text);
	if (n < 0)
		return (int)n;
	return io->ftruncate(io->ctx, r->note_fd, len);
}

static void close_fd(struct eng_rec *r, int fd, uint32_t t, int64_t k,
		     int with_row)
{
	const struct eng_io *io = r->cfg.io;
	unsigned inj = 0;
	uint64_t t1, t2;

	t1 = now(r);
	if (io->close_ex)
		io->close_ex(io->ctx, fd, &inj);
	else
		io->close(io->ctx, fd);
	t2 = now(r);
	if (with_row)
		row(r, ENG_OP_CLOSE, k, t, 0, 0, NULL, t1, t2, 0, inj);
}

static void rec_destroy(struct eng_rec *r)
{
	pthread_mutex_destroy(&r->wlock);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->rec_lock);
	pthread_cond_destroy(&r->slot_cv);
	pthread_cond_destroy(&r->work_cv);
	free(r->slots);
	free(r->mem);
	free(r);
}

/* Take the note's lock, held while it records (every mount of the folder
 * sees the recording live); a file system that cannot lock records all
 * the same, its note saying the lock does not reach the storage.  0, or
 * -EBUSY: another mount holds it. */
static int note_lock(struct eng_rec *r, struct eng_diag *diag)
{
	const struct eng_io *io = r->cfg.io;
	int rc = io->lock ? io->lock(io->ctx, r->note_fd) : -ENOLCK;

	if (rc == -EAGAIN) {
		eng_diag_add(diag, r->note, 0, "another mount records it now");
		return -EBUSY;
	}
	if (r->cfg.owner) {
		r->owner = *r->cfg.owner;
		r->owner.lock_shared = rc == 0 && r->cfg.owner->lock_shared;
		r->owned = 1;
	}
	return 0;
}

/* With replace, the note of the recording replaced is claimed (its lock
 * taken) before its track files are emptied: one that another mount
 * records now is -EBUSY, untouched.  0 or -errno. */
static int note_claim(struct eng_rec *r, struct eng_diag *diag)
{
	const struct eng_io *io = r->cfg.io;

	r->note_fd = io->create(io->ctx, r->note, ENG_IO_CREATE_KEEP, NULL);
	if (r->note_fd == -ENOENT)
		return 0;	/* nothing to replace: made after the tracks */
	if (r->note_fd < 0) {
		eng_diag_add(diag, r->note, 0, "cannot open it: %s",
			     strerror(-r->note_fd));
		return r->note_fd;
	}
	return note_lock(r, diag);
}

/* The note (made unless claimed), locked, in state recording.  A note
 * not claimed is made exclusively, even with replace (the claim found
 * none): one that appeared since is another mount's, never ours to
 * empty or, on failure, to remove. */
static int note_open(struct eng_rec *r, struct eng_diag *diag)
{
	const struct eng_io *io = r->cfg.io;
	int rc;

	if (r->note_fd < 0) {
		r->note_fd = io->create(io->ctx, r->note, 0, NULL);
		if (r->note_fd < 0) {
			eng_diag_add(diag, r->note, 0, "cannot create it: %s",
				     strerror(-r->note_fd));
			return r->note_fd;
		}
		r->note_ours = 1;
		rc = note_lock(r, diag);
		if (rc < 0)
			return rc;
	}
	/* a claimed note rewritten names this recording, no longer the one
	 * replaced */
	r->note_ours = 1;
	rc = note_put(r, "recording", -1);
	if (rc < 0)
		eng_diag_add(diag, r->note, 0, "cannot write it: %s",
			     strerror(-rc));
	return rc;
}

/* A create that failed takes back what it made: its track files and
 * note, each only while the name is still the file it opened.  A note
 * it only claimed (replace, not yet rewritten) is left, its lock
 * released by the close. */
static void unmake(struct eng_rec *r)
{
	const struct eng_io *io = r->cfg.io;
	uint32_t t;

	if (r->note_fd >= 0) {
		if (io->remove && r->note_ours)
			io->remove(io->ctx, r->note, r->note_fd);
		close_fd(r, r->note_fd, 0, 0, 0);
	}
	for (t = 0; t < r->nt; t++) {
		if (r->fd[t] < 0)
			continue;
		if (io->remove)
			io->remove(io->ctx, r->file[t], r->fd[t]);
		close_fd(r, r->fd[t], t, 0, 1);
	}
}

/* Create track t's file: its open row, the WAV header, the prealloc. */
static int track_open(struct eng_rec *r, uint32_t t, struct eng_diag *diag)
{
	const struct eng_io *io = r->cfg.io;
	unsigned char head[ENG_INGEST_WAV_DATA];
	unsigned inj = 0;
	uint64_t t1, t2, pre;
	int fd, rc;

	eng_ingest_track_file(&r->cfg.fmt, t, r->name, r->file[t],
			      sizeof(r->file[t]));
	t1 = now(r);
	fd = io->create(io->ctx, r->file[t], r->cfg.replace, &inj);
	t2 = now(r);
	row(r, ENG_OP_OPEN, 0, t, 0, 0, NULL, t1, t2, fd < 0 ? fd : 0, inj);
	if (fd < 0) {
		eng_diag_add(diag, r->file[t], 0, "cannot create it: %s%s",
			     strerror(-fd),
			     fd == -EEXIST ? " (-o ingest_replace)" : "");
		return fd;
	}
	r->fd[t] = fd;
	if (t > 0) {
		r->data_at[t] = ENG_INGEST_WAV_DATA;
		eng_ingest_wav_header(head, r->cfg.fmt.sample_rate);
		rc = put(r, t, head, sizeof(head), 0, 0, NULL);
		if (rc < 0) {
			eng_diag_add(diag, r->file[t], 0,
				     "cannot write its header: %s",
				     strerror(-rc));
			return rc;
		}
	}
	if (r->cfg.prealloc_frames > 0) {
		pre = eng_ingest_upto(&r->cfg.fmt, t, r->cfg.prealloc_frames);
		rc = track_op(r, ENG_OP_FALLOCATE, t, 0, NULL, pre);
		/* a file system without fallocate records all the same */
		if (rc < 0)
			say(r, SAID_PREALLOC, "cannot preallocate %s: %s",
			    r->file[t], strerror(-rc));
	}
	return 0;
}

int eng_rec_new(const struct eng_rec_config *cfg, const char *name,
		struct eng_rec **out, struct eng_diag *diag)
{
	const struct eng_io *io = cfg->io;
	uint64_t slot, free_b, held, pre = 0;
	struct eng_rec *r;
	uint32_t t;
	unsigned i;
	int rc;

	*out = NULL;
	if (!io->create || !io->pwrite || !io->fsync || !io->fallocate ||
	    !io->ftruncate || !io->space) {
		eng_diag_add(diag, name, 0, "cannot record: no write I/O");
		return -ENOSYS;
	}
	if (!cfg->space || cfg->buffer < 1 || cfg->fmt.ntracks < 1 ||
	    cfg->fmt.ntracks > ENG_INGEST_TRACKS_MAX ||
	    strlen(name) >= sizeof(r->name)) {
		eng_diag_add(diag, name, 0, "cannot record: bad configuration");
		return -EINVAL;
	}
	for (t = 0; t < cfg->fmt.ntracks && cfg->prealloc_frames > 0; t++)
		pre += eng_ingest_upto(&cfg->fmt, t, cfg->prealloc_frames);
	/* the preallocation is taken through the mount's reservation, so
	 * that another recorder's take sees it pending until fallocated */
	if (eng_ingest_space_claim(cfg->space, io, cfg->reserve, pre, &free_b,
				   &held) < 0) {
		eng_diag_add(diag, name, 0,
			     "cannot record: %" PRIu64 " bytes free on the "
			     "media file system, under the reserve of %" PRIu64
			     " (-o ingest_reserve)%s and the %" PRIu64 " bytes "
			     "the mount's recordings hold",
			     free_b, cfg->reserve,
			     pre ? ", the preallocation" : "", held);
		return -ENOSPC;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		eng_ingest_space_give(cfg->space, pre);
		return -ENOMEM;
	}
	r->pre_held = pre;
	r->cfg = *cfg;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->nt = cfg->fmt.ntracks;
	r->nslots = cfg->buffer;
	r->note_fd = -1;
	for (t = 0; t < ENG_INGEST_TRACKS_MAX; t++)
		r->fd[t] = -1;
	r->cur_end = eng_ingest_frame_offset(&cfg->fmt, 1);
	if (cfg->prealloc_frames > 0)
		r->pre_end = eng_ingest_frame_offset(&cfg->fmt,
						     cfg->prealloc_frames);
	slot = eng_ingest_frame_max(&cfg->fmt);
	pthread_mutex_init(&r->wlock, NULL);
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->rec_lock, NULL);
	pthread_cond_init(&r->slot_cv, NULL);
	pthread_cond_init(&r->work_cv, NULL);
	r->slots = calloc(r->nslots, sizeof(*r->slots));
	r->space = cfg->space;
	/* one allocation, touched only as frames fill it */
	r->mem = slot && r->nslots <= SIZE_MAX / slot
			 ? malloc((size_t)slot * r->nslots)
			 : NULL;
	if (!r->slots || !r->mem) {
		eng_diag_add(diag, name, 0,
			     "cannot record: no memory for %u frames of %" PRIu64
			     " bytes", r->nslots, slot);
		rc = -ENOMEM;
		goto err;
	}
	for (i = 0; i < r->nslots; i++)
		r->slots[i].buf = r->mem + (size_t)slot * i;
	snprintf(r->note, sizeof(r->note), "%s/%s%s", ENG_INGEST_DIR, name,
		 ENG_INGEST_NOTE_EXT);
	if (cfg->replace && (rc = note_claim(r, diag)) < 0)
		goto err;
	/* the tracks first, then the note that claims them: a track file
	 * that is someone else's (EEXIST) is never named by a note, which
	 * the repair would truncate it by */
	for (t = 0; t < r->nt; t++) {
		rc = track_open(r, t, diag);
		if (rc < 0)
			goto err;
	}
	/* fallocated: the file system's free bytes count them now */
	eng_ingest_space_give(r->space, r->pre_held);
	r->pre_held = 0;
	rc = note_open(r, diag);
	if (rc < 0)
		goto err;
	rc = -pthread_create(&r->thread, NULL, write_thread, r);
	if (rc < 0) {
		eng_diag_add(diag, name, 0, "cannot start its write thread: %s",
			     strerror(-rc));
		goto err;
	}
	r->thread_on = 1;
	eng_ingest_space_tracks(r->space, r->nt, 0);
	*out = r;
	return 0;
err:
	eng_ingest_space_give(r->space, r->pre_held);
	unmake(r);
	rec_destroy(r);
	return rc;
}

/* Under wlock: wait until the write thread has taken every whole frame
 * received. */
static void drain(struct eng_rec *r)
{
	pthread_mutex_lock(&r->lock);
	while (r->next_write < r->cur && r->thread_on)
		pthread_cond_wait(&r->slot_cv, &r->lock);
	pthread_mutex_unlock(&r->lock);
}

/* Under wlock, drained: the bytes received of the frame being received
 * go to their tracks now (the write thread writes the rest once it is
 * whole), so that what a writer was told was written is on the files. */
static void write_partial(struct eng_rec *r)
{
	struct slot *s = &r->slots[r->cur % r->nslots];
	uint64_t last;

	if (r->st.bytes <= r->cur_start || s->wlen == s->len || failed(r))
		return;
	/* as frame_end will say */
	if (r->cfg.pace.mode == ENG_PACE_OFF)
		arrived_at(r, s, now(r));
	write_frame(r, s, &last);
}

int eng_rec_sync(struct eng_rec *r, int durable)
{
	uint32_t t;
	int rc;

	pthread_mutex_lock(&r->wlock);
	if (!r->closed) {
		drain(r);
		write_partial(r);
		for (t = 0; durable && !failed(r) && t < r->nt; t++)
			fsync_track(r, t, r->cur, NULL);
	}
	rc = failed(r);
	pthread_mutex_unlock(&r->wlock);
	return rc;
}

int eng_rec_close(struct eng_rec *r, struct eng_rec_stats *st)
{
	unsigned char patch[80], size4[4], zero = 0;
	int64_t last;
	uint64_t end;
	size_t plen;
	uint32_t t;
	int pad, rc, e;

	pthread_mutex_lock(&r->wlock);
	if (r->closed) {
		pthread_mutex_unlock(&r->wlock);
		goto done;
	}
	r->closed = 1;
	/* the credit of a frame cut short: never to be accepted */
	eng_ingest_space_give(r->space, r->credit);
	r->credit = 0;
	/* a last frame cut short: its bytes go to their tracks as they are */
	if (r->st.bytes > r->cur_start)
		frame_end(r, &r->slots[r->cur % r->nslots], 1);
	pthread_mutex_lock(&r->lock);
	r->stop = 1;
	pthread_cond_broadcast(&r->work_cv);
	pthread_mutex_unlock(&r->lock);
	if (r->thread_on) {
		pthread_join(r->thread, NULL);
		eng_ingest_space_tracks(r->space, 0, r->nt);
	}
	pthread_mutex_lock(&r->lock);
	r->thread_on = 0;
	pthread_mutex_unlock(&r->lock);
	last = r->st.bytes > r->cur_start ? r->cur
		: r->cur > 0 ? r->cur - 1 : 0;
	for (t = 0; t < r->nt; t++) {
		end = r->data_at[t] + r->essence[t];
		if (t > 0) {
			eng_ingest_wav_patch(patch, &plen, r->cfg.fmt.sample_rate,
					     r->essence[t], &pad);
			eng_ingest_wav_patch_data(size4, r->essence[t]);
			rc = put(r, t, patch, plen, 0, last, NULL);
			if (rc == 0)
				rc = put(r, t, size4, 4,
					 ENG_INGEST_WAV_DATA_SIZE_AT, last,
					 NULL);
			if (rc == 0 && pad)
				rc = put(r, t, &zero, 1, end, last, NULL);
			end += (uint64_t)pad;
		}
		/* the preallocated blocks past the end given back */
		if (r->cfg.prealloc_frames > 0 &&
		    (rc = track_op(r, ENG_OP_TRUNCATE, t, last, NULL, end)) <
			0)
			say(r, SAID_ERROR, "cannot truncate %s: %s",
			    r->file[t], strerror(-rc));
		if (r->cfg.fsync != ENG_INGEST_FSYNC_OFF)
			fsync_track(r, t, last, NULL);
		close_fd(r, r->fd[t], t, last, 1);
		r->fd[t] = -1;
	}
	/* after a failure the note says so, and the frames that are whole */
	e = note_put(r, failed(r) ? "failed" : "closed", r->st.written);
	if (e < 0)
		say(r, SAID_ERROR, "cannot write %s: %s", r->note,
		    strerror(-e));
	close_fd(r, r->note_fd, 0, 0, 0);
	r->note_fd = -1;
	pthread_mutex_unlock(&r->wlock);
done:
	pthread_mutex_lock(&r->lock);
	if (st)
		*st = r->st;
	rc = r->st.error;
	pthread_mutex_unlock(&r->lock);
	return rc;
}

void eng_rec_free(struct eng_rec *r)
{
	if (!r)
		return;
	if (!r->closed)
		eng_rec_close(r, NULL);
	rec_destroy(r);
}
