/* SPDX-License-Identifier: MIT */
/*
 * The recorder's bounded queue: the readers' threads (producers) append
 * stream opens, access rows and closes, blocking while it is full; the
 * writer takes them out in batches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store_i.h"

/* Under st->lock. */
void store_unlink_stream(struct store *st, struct store_stream *ss)
{
	if (ss->prev)
		ss->prev->next = ss->next;
	else
		st->streams = ss->next;
	if (ss->next)
		ss->next->prev = ss->prev;
}

/* Move up to batch_cap entries from the ring to st->batch.  Under lock. */
size_t store_queue_take(struct store *st)
{
	size_t n = st->count < st->batch_cap ? st->count : st->batch_cap;
	size_t first = st->cap - st->head;

	if (first > n)
		first = n;
	memcpy(st->batch, st->ring + st->head, first * sizeof(*st->batch));
	memcpy(st->batch + first, st->ring, (n - first) * sizeof(*st->batch));
	st->head = (st->head + n) % st->cap;
	st->count -= n;
	if (st->full_waiters)
		pthread_cond_broadcast(&st->notfull);
	return n;
}

/* Append e, blocking while the queue is full.  -ESHUTDOWN once the run
 * ended (nothing is queued then). */
static int enqueue(struct store *st, const struct entry *e)
{
	int waited = 0;

	pthread_mutex_lock(&st->lock);
	while (st->count == st->cap && !st->ended) {
		if (!waited) {
			st->stats.queue_full_waits++;
			waited = 1;
		}
		st->full_waiters++;
		pthread_cond_wait(&st->notfull, &st->lock);
		st->full_waiters--;
	}
	if (st->ended) {
		if (e->kind == ENTRY_ACCESS) {
			st->stats.rows_queued++;
			st->stats.rows_lost++;
		} else if (e->kind == ENTRY_CLOSE) {
			store_unlink_stream(st, e->ss);
			free(e->ss);
		}
		pthread_mutex_unlock(&st->lock);
		return -ESHUTDOWN;
	}
	if (!st->count)
		st->oldest_ns = store_mono_now();
	st->ring[(st->head + st->count) % st->cap] = *e;
	st->count++;
	if (e->kind == ENTRY_ACCESS)
		st->stats.rows_queued++;
	if (st->count >= st->wake_at)
		pthread_cond_signal(&st->nonempty);
	pthread_mutex_unlock(&st->lock);
	return 0;
}

int store_stream_open(struct store *st, int64_t timeline_id,
		      const struct store_reader *who, uint64_t opened_ns,
		      struct store_stream **out)
{
	struct entry e = { .kind = ENTRY_OPEN };
	const char *comm = who->comm ? who->comm : "";
	struct store_stream *ss;
	size_t len, flen = who->file ? strlen(who->file) + 1 : 0;
	int rc;

	*out = NULL;
	len = strlen(comm);
	ss = malloc(sizeof(*ss) + len + 1 + flen);
	if (!ss)
		return -ENOMEM;
	ss->st = st;
	ss->timeline_id = timeline_id;
	ss->opened_ns = opened_ns;
	ss->row_id = 0;
	ss->pid = who->pid;
	ss->tid = who->tid;
	ss->sid = who->sid;
	ss->record = who->record;
	memcpy(ss->comm, comm, len + 1);
	ss->file = NULL;
	if (who->file)
		ss->file = memcpy(ss->comm + len + 1, who->file, flen);
	e.ss = ss;

	pthread_mutex_lock(&st->lock);
	st->any_stream = 1;
	ss->prev = NULL;
	ss->next = st->streams;
	if (st->streams)
		st->streams->prev = ss;
	st->streams = ss;
	pthread_mutex_unlock(&st->lock);

	rc = enqueue(st, &e);
	if (rc < 0) {
		pthread_mutex_lock(&st->lock);
		store_unlink_stream(st, ss);
		pthread_mutex_unlock(&st->lock);
		free(ss);
		return rc;
	}
	*out = ss;
	return 0;
}

void store_access_add(struct store_stream *ss, const struct store_access *a)
{
	struct entry e = { .kind = ENTRY_ACCESS, .ss = ss, .u.acc = *a };

	enqueue(ss->st, &e);
}

void store_stream_close(struct store_stream *ss,
			const struct store_stream_totals *t)
{
	struct entry e = {
		.kind = ENTRY_CLOSE,
		.ss = ss,
		.u.close = *t,
	};

	enqueue(ss->st, &e);
}
