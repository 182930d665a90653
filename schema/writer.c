/* SPDX-License-Identifier: MIT */
/*
 * The writer thread: takes batches from the queue once a full batch is
 * queued or its oldest entry is STORE_COMMIT_INTERVAL_MS old, writes or
 * holds them; at the run's end it is stopped and the caller drains what
 * is left.
 */
#include <errno.h>
#include <stdint.h>

#include "store_i.h"

/* Wait, under lock, until a full batch is queued, deadline (monotonic ns)
 * has passed, or the run ends. */
static void wait_until(struct store *st, uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline / 1000000000u),
		.tv_nsec = (long)(deadline % 1000000000u),
	};

	st->wake_at = st->batch_cap;
	while (!st->stopping && st->count < st->batch_cap &&
	       store_mono_now() < deadline)
		if (pthread_cond_timedwait(&st->nonempty, &st->lock, &ts) ==
		    ETIMEDOUT)
			break;
}

static void *writer_main(void *arg)
{
	struct store *st = arg;
	int backlog = 0, stopping, force;
	size_t n;

	pthread_mutex_lock(&st->lock);
	for (;;) {
		while (!st->count && !st->stopping && !st->outage) {
			st->wake_at = 1;
			pthread_cond_wait(&st->nonempty, &st->lock);
		}
		if (!st->count && !st->outage)
			break;
		/* With a backlog oldest_ns is stale and the rows are old
		 * already: write them now.  In an outage, wake at the next
		 * retry, or to move a full batch from the queue to the hold
		 * (so producers never wait on the outage). */
		if (st->outage && !st->stopping)
			wait_until(st, st->retry_ns);
		else if (!backlog && !st->stopping)
			wait_until(st, st->oldest_ns +
				       (uint64_t)STORE_COMMIT_INTERVAL_MS *
					       1000000u);
		st->wake_at = SIZE_MAX;
		n = store_queue_take(st);
		backlog = st->count > 0;
		stopping = st->stopping;
		/* ending: one last attempt, not one per batch */
		force = stopping && !st->final_tried;
		pthread_mutex_unlock(&st->lock);
		store_write_or_hold(st, n, force && !backlog);
		pthread_mutex_lock(&st->lock);
		if (force && !backlog)
			st->final_tried = 1;
		/* nothing left to take: store_run_end gives up on the hold
		 * (looping on would spin, stopping skips the waits) */
		if (st->final_tried && st->outage && !st->count)
			break;
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

/* Write whatever is queued in the caller's thread (no writer running),
 * then give up on what the database still refuses. */
void store_drain_sync(struct store *st)
{
	size_t n;

	pthread_mutex_lock(&st->lock);
	while (st->count) {
		n = store_queue_take(st);
		pthread_mutex_unlock(&st->lock);
		store_write_or_hold(st, n, 0);
		pthread_mutex_lock(&st->lock);
	}
	pthread_mutex_unlock(&st->lock);
	if (st->outage && !st->final_tried)
		store_hold_flush(st);
	st->final_tried = 1;
	if (st->outage)
		store_hold_give_up(st);
}

int store_start(struct store *st)
{
	int rc;

	if (!st->run_id || st->started || st->run_ended)
		return -EINVAL;
	if (store_header_commit(st) < 0)
		return -EIO;
	store_ckpt_start(st);
	rc = pthread_create(&st->thread, NULL, writer_main, st);
	if (rc) {
		store_ckpt_stop(st);
		return -rc;
	}
	st->started = 1;
	return 0;
}

/* Let the writer finish what is queued and join it (and the
 * checkpointer); the caller owns the connection again after. */
void store_writer_stop(struct store *st)
{
	if (!st->started)
		return;
	pthread_mutex_lock(&st->lock);
	st->stopping = 1;
	pthread_cond_signal(&st->nonempty);
	pthread_mutex_unlock(&st->lock);
	pthread_join(st->thread, NULL);
	st->started = 0;
	store_ckpt_stop(st);
}
