/* SPDX-License-Identifier: MIT */
/*
 * The outage hold: entries the database refused (a full disk, a lock
 * held too long) are kept in memory, oldest first, up to hold_max access
 * rows, and written before anything newer once it accepts writes again;
 * what cannot be held or written is counted as lost and said.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_i.h"

/* The first write of the hold after a refusal: small, so that retrying
 * every commit interval through a long outage costs little. */
#define STORE_RETRY_ROWS 256

static void notify(struct store *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void notify(struct store *st, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!st->notify)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) >= 0) {
		st->notify(st->notify_ctx, msg);
		free(msg);
	}
	va_end(ap);
}

/* Publish the hold's size to store_get_stats. */
static void held_publish(struct store *st)
{
	pthread_mutex_lock(&st->lock);
	st->stats.rows_held = st->held_rows;
	pthread_mutex_unlock(&st->lock);
}

/*
 * Give up on an entry that cannot be held (or written): an access counts
 * as lost, a stream row that never made it makes its later accesses lost.
 * A close leaves its handle to store_close: held accesses may still point
 * at it.
 */
static void drop_entry(struct store *st, const struct entry *e)
{
	pthread_mutex_lock(&st->lock);
	switch (e->kind) {
	case ENTRY_ACCESS:
		st->stats.rows_lost++;
		st->outage_lost++;
		break;
	case ENTRY_OPEN:
		e->ss->row_id = -1;
		st->stats.stream_rows_lost++;
		break;
	case ENTRY_CLOSE:
		if (e->ss->row_id > 0)
			st->stats.stream_rows_lost++;
		break;
	}
	if (!st->stats.last_error)
		st->stats.last_error = -EIO;
	pthread_mutex_unlock(&st->lock);
}

/*
 * Append n entries to the hold, in order.  Stream opens and closes are
 * always held (one each per open of a file); access rows up to hold_max,
 * beyond which they are dropped and counted, said once per outage.
 */
static void hold_append(struct store *st, const struct entry *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int full = e[i].kind == ENTRY_ACCESS &&
			   st->held_rows >= st->hold_max;

		if (!full && st->nheld == st->held_cap) {
			size_t cap = st->held_cap ? 2 * st->held_cap : 1024;
			struct entry *h = realloc(st->held, cap * sizeof(*h));

			if (h) {
				st->held = h;
				st->held_cap = cap;
			} else {
				full = 1;
			}
		}
		if (full) {
			if (!st->hold_full_said)
				notify(st, "timelinefs: %s: the hold is full "
				       "(%zu access rows in memory, hold=%llu): "
				       "access rows are lost until the "
				       "database accepts writes", st->path,
				       st->held_rows,
				       (unsigned long long)st->hold_max);
			st->hold_full_said = 1;
			drop_entry(st, &e[i]);
			continue;
		}
		st->held[st->nheld++] = e[i];
		if (e[i].kind == ENTRY_ACCESS)
			st->held_rows++;
	}
	held_publish(st);
}

/* The first refused commit of an outage: say it once, loudly. */
static void outage_begin(struct store *st, char *msg)
{
	st->outage = 1;
	st->outage_ns = store_mono_now();
	st->outage_lost = 0;
	st->hold_full_said = 0;
	pthread_mutex_lock(&st->lock);
	st->stats.outages++;
	st->stats.in_outage = 1;
	pthread_mutex_unlock(&st->lock);
	notify(st, "timelinefs: %s: the database refuses writes (%s): "
	       "holding up to %llu access rows in memory and retrying every "
	       "%d ms", st->path, msg, (unsigned long long)st->hold_max,
	       STORE_COMMIT_INTERVAL_MS);
	/* the first failure's message, but no error yet: nothing is lost */
	pthread_mutex_lock(&st->lock);
	if (!st->errmsg) {
		st->errmsg = msg;
		msg = NULL;
	}
	pthread_mutex_unlock(&st->lock);
	free(msg);
}

/*
 * Write the hold, oldest first: a small probe, then full batches, each in
 * its own transaction, stopping at the first refusal (retried at the next
 * commit interval).  Says when the hold is empty again.
 */
void store_hold_flush(struct store *st)
{
	size_t done = 0, k;
	uint64_t rows = 0, written = 0;
	char *msg = NULL;
	size_t i;

	while (done < st->nheld) {
		k = st->nheld - done;
		if (k > (done ? st->batch_cap : STORE_RETRY_ROWS))
			k = done ? st->batch_cap : STORE_RETRY_ROWS;
		if (store_write_chunk(st, st->held + done, k, &msg) !=
		    SQLITE_OK)
			break;
		for (i = done; i < done + k; i++)
			rows += st->held[i].kind == ENTRY_ACCESS;
		done += k;
	}
	free(msg);
	memmove(st->held, st->held + done,
		(st->nheld - done) * sizeof(*st->held));
	st->nheld -= done;
	st->held_rows -= rows;
	st->outage_written += rows;
	written = st->outage_written;
	if (st->nheld) {
		st->retry_ns = store_mono_now() +
			       (uint64_t)STORE_COMMIT_INTERVAL_MS * 1000000u;
		held_publish(st);
		return;
	}
	free(st->held);
	st->held = NULL;
	st->held_cap = 0;
	st->outage = 0;
	st->outage_written = 0;
	pthread_mutex_lock(&st->lock);
	st->stats.rows_held = 0;
	st->stats.in_outage = 0;
	pthread_mutex_unlock(&st->lock);
	notify(st, "timelinefs: %s: the database accepts writes again after "
	       "%.1f s: %llu held access rows written, %llu lost", st->path,
	       (double)(store_mono_now() - st->outage_ns) / 1e9,
	       (unsigned long long)written,
	       (unsigned long long)st->outage_lost);
}

/*
 * Write the n entries of st->batch, or hold them: while the hold is not
 * empty they go behind it (order is kept), and the hold is retried once
 * its retry time has come, or at once with force (the run is ending).
 */
void store_write_or_hold(struct store *st, size_t n, int force)
{
	char *msg = NULL;

	if (!st->outage) {
		if (!n ||
		    store_write_chunk(st, st->batch, n, &msg) == SQLITE_OK)
			return;
		outage_begin(st, msg);
		hold_append(st, st->batch, n);
		st->retry_ns = store_mono_now() +
			       (uint64_t)STORE_COMMIT_INTERVAL_MS * 1000000u;
		return;
	}
	hold_append(st, st->batch, n);
	if (force || store_mono_now() >= st->retry_ns)
		store_hold_flush(st);
}

/* At the end of the run: whatever is still held is lost, and counted. */
void store_hold_give_up(struct store *st)
{
	size_t i;

	for (i = 0; i < st->nheld; i++)
		drop_entry(st, &st->held[i]);
	free(st->held);
	st->held = NULL;
	st->nheld = st->held_cap = st->held_rows = 0;
	held_publish(st);
}

int store_set_hold(struct store *st, uint64_t rows)
{
	if (st->started || st->run_ended)
		return -EINVAL;
	st->hold_max = rows;
	return 0;
}

int store_set_notify(struct store *st, store_notify_fn *fn, void *ctx)
{
	if (st->started || st->run_ended)
		return -EINVAL;
	st->notify = fn;
	st->notify_ctx = ctx;
	return 0;
}
