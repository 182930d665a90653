/* SPDX-License-Identifier: MIT */
/*
 * The filler of a paced stream: a thread that loads each frame at its
 * issue time, ahead of the requests, so that a reader never waits for a
 * backing read it could have had earlier.  Its step, eng_player_fill, is
 * callable alone for tests with a fake clock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <time.h>

#include "play/player_i.h"

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
	/* a frame its slot still holds was played: no read to schedule */
	if (io->now(io->ctx) < sched && !still_held(p, p->head)) {
		*next_ns = sched;
		return ENG_FILL_AT;
	}
	eng_pl_load_begin(p, &l);
	pthread_mutex_unlock(&p->lock);
	eng_pl_load_read(p, &l);
	pthread_mutex_lock(&p->lock);
	eng_pl_load_end(p, &l);
	eng_pl_load_finish(p, &l);
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
void eng_pl_wake_filler(struct eng_player *p, int reanchored)
{
	if (p->fill_waiting == ENG_FILL_IDLE ||
	    (reanchored && p->fill_waiting == ENG_FILL_AT))
		pthread_cond_signal(&p->fill_cv);
}
