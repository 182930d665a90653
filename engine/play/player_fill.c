/* SPDX-License-Identifier: MIT */
/*
 * The filler of a paced stream: a thread that loads each frame at its
 * issue time, ahead of the requests, so that a reader never waits for a
 * backing read it could have had earlier.  With cfg.frames_in_flight N
 * above 1 it reads nothing itself: it hands each frame, at its issue time,
 * to a free one of N loader threads, as an application's reader threads
 * take frames, so a stalled frame holds up only its own loader.  Its
 * step, eng_player_fill, is callable alone for tests with a fake clock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>

#include "play/player_i.h"

/* A loader thread free for frame p->next, or NULL: none is, or the
 * frame's slot is still another frame's (read, or waiting to be
 * published: the ring restarted under it, or a frame one ring behind is
 * being recorded), or a request loads a frame itself (no filler thread;
 * the threads' loads are the ones in fifo and the one published). */
static struct loader *free_loader(struct eng_player *p)
{
	unsigned i;

	if (eng_pl_load_of(p, p->next)->state != LD_IDLE ||
	    p->loading > (int)p->nfifo + p->publishing)
		return NULL;
	for (i = 0; i < p->nld; i++)
		if (!p->ld[i].cur)
			return &p->ld[i];
	return NULL;
}

/* The filler waits for something other than the time: a wake-up
 * from a timed wait is no more that wait's. */
static int idle(struct eng_player *p)
{
	p->wake_at = 0;
	return ENG_FILL_IDLE;
}

/* The filler's step, with the lock held (dropped only around the preads
 * of a frame it loads itself). */
static int fill_locked(struct eng_player *p, uint64_t *next_ns)
{
	const struct eng_io *io = p->cfg.io;
	struct loader *ld = &p->ld[0];
	struct load *l;
	uint64_t sched, now;
	int64_t fill = p->next - p->need_lo;

	if (fill < 0)
		fill = 0;
	/* The ring's room ends where a slot still holds a frame at or above
	 * the request's first frame, or one not yet published: those are
	 * never evicted.  No room: the reader's fill is the evidence of a
	 * frame issued late for it (fill_seen). */
	if (!p->anchored || p->next >= p->tl->frames)
		return idle(p);
	if (p->next >= p->need_lo + (int64_t)p->nslots ||
	    p->next >= p->head + (int64_t)p->nslots) {
		p->fill_seen = fill;
		return idle(p);
	}
	/* (without loader threads: a request loads its frames itself, its
	 * filler not yet started; one frame at a time) */
	if (p->loaders_on ? !(ld = free_loader(p)) : p->loading > 0)
		return idle(p);
	sched = issue_ns(p, p->next);
	now = io->now(io->ctx);
	/* a frame its slot still holds was played: no read to schedule */
	if (now < sched && !still_held(p, p->next)) {
		*next_ns = p->wake_at = sched;
		return ENG_FILL_AT;
	}
	l = eng_pl_load_begin(p, ld);
	l->filled = 1;
	/* woken by its timed wait for this frame, or by a signal (room,
	 * a seek): how late it reads from then, or from the frame's time
	 * if later (eng_pl_keep, at its first read's issue) */
	l->wake_at = p->wake_at && p->wake_at < sched ? sched : p->wake_at;
	l->ring_fill = p->fill_seen >= 0 ? p->fill_seen : fill;
	p->wake_at = 0;
	p->fill_seen = -1;
	/* it runs straight on: late from here on if it does not (the
	 * daemon's own delay, wake_at) */
	if (p->loaders_on) {
		ld->cur = l;
		p->fifo[p->nfifo++] = (size_t)(l - p->loads);
		pthread_cond_broadcast(&p->work_cv);
		p->wake_at = now;
		return ENG_FILL_LOADED;
	}
	pthread_mutex_unlock(&p->lock);
	eng_pl_load_read(p, l);
	pthread_mutex_lock(&p->lock);
	eng_pl_load_end(p, l);
	eng_pl_load_finish(p, l);
	p->wake_at = l->last_done ? l->last_done : io->now(io->ctx);
	return ENG_FILL_LOADED;
}

/* A loader thread: reads the frames the filler hands it, and publishes
 * (load_publish) what is read in order.  A frame handed to it before a
 * stop is read first.  Free again as soon as its frame is read: a frame
 * waiting for the ones before it holds its load, not its loader. */
static void *loader_main(void *arg)
{
	struct loader *ld = arg;
	struct eng_player *p = ld->p;
	struct load *l;

	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	/* named, so that top -H, perf and a test's cgroup find it */
	prctl(PR_SET_NAME, (unsigned long)"tlfs-load", 0UL, 0UL, 0UL);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!ld->cur && !p->loaders_stop)
			pthread_cond_wait(&p->work_cv, &p->lock);
		l = ld->cur;
		if (!l)
			break;
		pthread_mutex_unlock(&p->lock);
		eng_pl_load_read(p, l);
		pthread_mutex_lock(&p->lock);
		l->state = LD_DONE;
		ld->cur = NULL;
		eng_pl_wake_filler(p, 0);
		eng_pl_load_publish(p);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Stop and join the loader threads (lock not held): each reads the frame
 * it has first, and the last frames are published. */
static void loaders_stop(struct eng_player *p)
{
	unsigned i;

	pthread_mutex_lock(&p->lock);
	if (!p->loaders_on) {
		pthread_mutex_unlock(&p->lock);
		return;
	}
	p->loaders_stop = 1;
	pthread_cond_broadcast(&p->work_cv);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i < p->nld; i++)
		pthread_join(p->ld[i].thread, NULL);
	pthread_mutex_lock(&p->lock);
	p->loaders_on = 0;
	p->loaders_stop = 0;
	pthread_mutex_unlock(&p->lock);
}

/* A thread of the player's (its filler, a loader) on a small stack: 100+
 * streams, and each needs a few KiB, not 8 MiB.  0 or an errno. */
static int start_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);

	if (rc)
		return rc;
	rc = pthread_attr_setstacksize(&attr, ENG_FILLER_STACK);
	if (!rc)
		rc = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return rc;
}

int eng_player_start_loaders(struct eng_player *p)
{
	unsigned i, n;
	int rc = 0;

	if (!p)
		return -EINVAL;
	if (!p->filled || p->nld < 2)
		return 0;
	pthread_mutex_lock(&p->lock);
	if (p->loaders_on) {
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	for (n = 0; n < p->nld; n++) {
		rc = start_thread(&p->ld[n].thread, loader_main, &p->ld[n]);
		if (rc)
			break;	/* n: the threads started */
	}
	if (rc) {
		/* the ones started end at once: nothing was handed out */
		p->loaders_stop = 1;
		pthread_cond_broadcast(&p->work_cv);
		pthread_mutex_unlock(&p->lock);
		for (i = 0; i < n; i++)
			pthread_join(p->ld[i].thread, NULL);
		pthread_mutex_lock(&p->lock);
		p->loaders_stop = 0;
	} else {
		p->loaders_on = 1;
	}
	pthread_mutex_unlock(&p->lock);
	return -rc;
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
	prctl(PR_SET_NAME, (unsigned long)"tlfs-fill", 0UL, 0UL, 0UL);
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
	int rc;

	if (!p)
		return -EINVAL;
	if (!p->filled)
		return 0;
	rc = eng_player_start_loaders(p);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&p->lock);
	if (p->filler_on) {
		pthread_mutex_unlock(&p->lock);
		return 0;
	}
	rc = start_thread(&p->filler, filler_main, p);
	if (!rc)
		p->filler_on = 1;
	pthread_mutex_unlock(&p->lock);
	if (rc)
		loaders_stop(p);
	return -rc;
}

void eng_player_stop(struct eng_player *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	/* frames replied from the files: recorded with what went */
	eng_pl_fdr_flush(p);
	if (!p->filler_on) {
		pthread_mutex_unlock(&p->lock);
		loaders_stop(p);
		pthread_mutex_lock(&p->lock);
		pthread_cond_broadcast(&p->ready_cv);
		pthread_mutex_unlock(&p->lock);
		return;
	}
	p->stop = 1;
	pthread_cond_signal(&p->fill_cv);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->filler, NULL);
	/* after the filler: it hands out no frame to a stopped loader */
	loaders_stop(p);
	pthread_mutex_lock(&p->lock);
	p->filler_on = 0;
	p->stop = 0;
	/* a request still waiting loads its frames itself from now on */
	pthread_cond_broadcast(&p->ready_cv);
	pthread_mutex_unlock(&p->lock);
}

void eng_player_cancel(struct eng_player *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->cancelled = 1;
	pthread_cond_broadcast(&p->ready_cv);
	pthread_mutex_unlock(&p->lock);
}

/* Wake the filler when it waits for something a request just changed;
 * from now on it is late (wake_at) if it does not run. */
void eng_pl_wake_filler(struct eng_player *p, int reanchored)
{
	const struct eng_io *io = p->cfg.io;

	if (p->fill_waiting == ENG_FILL_IDLE ||
	    (reanchored && p->fill_waiting == ENG_FILL_AT)) {
		p->wake_at = io->now(io->ctx);
		pthread_cond_signal(&p->fill_cv);
	}
}
