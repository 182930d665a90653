/* SPDX-License-Identifier: MIT */
/*
 * One transaction of queued entries: stream rows inserted and updated,
 * access rows inserted STORE_MULTI at a time with the bindings that did
 * not change left in place.
 */
#include <errno.h>
#include <stdlib.h>

#include "store_i.h"

static int insert_stream(struct store *st, struct store_stream *ss,
			 char **msg)
{
	sqlite3_stmt *s = st->stmt[STMT_STREAM];
	int rc = SQLITE_OK;

	store_bind_i64(s, 1, st->run_id, &rc);
	if (ss->timeline_id > 0)
		store_bind_i64(s, 2, ss->timeline_id, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 2);
	store_bind_id(s, 3, ss->pid, &rc);
	store_bind_text(s, 4, ss->comm, &rc);
	store_bind_i64(s, 5, store_rel_ns(st, ss->opened_ns), &rc);
	store_bind_id(s, 6, ss->tid, &rc);
	if (ss->sid >= 0)
		store_bind_i64(s, 7, ss->sid, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 7);
	if (ss->file)
		store_bind_text(s, 8, ss->file, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 8);
	store_bind_text(s, 9, ss->record ? "record" : "play", &rc);
	store_step_done(st->db, s, "insert stream row", &rc, msg);
	if (rc == SQLITE_OK)
		ss->row_id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

/*
 * Bind one access row's values from parameter k + 1 on.  Bindings survive
 * sqlite3_reset, so a value equal to the one bound last time in that slot
 * (the stream, the clip, errno and injected nearly always are; a text by
 * pointer: SQLITE_STATIC strings the model keeps) is not bound again:
 * binding was an eighth of the recorder's time.  sh is the statement's
 * shadow of its bound values.
 */
static void bind_access(struct store *st, sqlite3_stmt *s,
			struct access_shadow *sh, int k, int64_t stream_id,
			const struct store_access *a, int *rc)
{
	const int64_t v[STORE_ACCESS_COLS] = {
		stream_id, a->frame,
		(int64_t)(intptr_t)a->track, (int64_t)(intptr_t)a->clip,
		(int64_t)a->file_offset, (int64_t)a->length,
		store_rel_ns(st, a->sched_ns), store_rel_ns(st, a->due_ns),
		store_rel_ns(st, a->issued_ns), store_rel_ns(st, a->done_ns),
		a->err, a->injected, a->played, a->dep, a->op,
		/* NULL for media other than sequences: its shadow is a
		 * number no image has (start + i * step of 64 bits) */
		a->is_image ? a->image : INT64_MIN,
		/* NULL where STORE_NONE32, likewise: no ns count or fill
		 * is INT64_MIN */
		a->wake_ns == STORE_NONE32 ? INT64_MIN : a->wake_ns,
		a->ring_fill == STORE_NONE32 ? INT64_MIN : a->ring_fill,
	};
	int64_t *old = sh->v + k;
	int i;

	for (i = 0; i < STORE_ACCESS_COLS && *rc == SQLITE_OK; i++) {
		if (sh->valid && old[i] == v[i])
			continue;
		if (i == 2)
			store_bind_text(s, k + 3, a->track, rc);
		else if (i == 3)
			store_bind_text(s, k + 4, a->clip, rc);
		else if (v[i] == INT64_MIN && i >= 15 && *rc == SQLITE_OK)
			*rc = sqlite3_bind_null(s, k + i + 1);
		else
			store_bind_i64(s, k + i + 1, v[i], rc);
		old[i] = v[i];
	}
}

/*
 * Insert the access rows at e[0..]: STORE_MULTI at once when that many
 * consecutive entries are accesses of streams with a row, else one.
 * Returns how many entries it consumed (rows in *written) and sets *rc.
 */
static size_t insert_accesses(struct store *st, const struct entry *e,
			      size_t n, uint64_t *written, int *rc,
			      char **msg)
{
	struct access_shadow *sh;
	sqlite3_stmt *s;
	size_t i, k = 0;

	while (k < n && k < STORE_MULTI && e[k].kind == ENTRY_ACCESS &&
	       e[k].ss->row_id > 0)
		k++;
	if (k < STORE_MULTI)
		k = 1;
	s = st->stmt[k == 1 ? STMT_ACCESS : STMT_ACCESS_MULTI];
	sh = &st->shadow[k == 1 ? 0 : 1];
	for (i = 0; i < k; i++)
		bind_access(st, s, sh, (int)i * STORE_ACCESS_COLS,
			    e[i].ss->row_id, &e[i].u.acc, rc);
	/* after a failed bind the statement's values are unknown */
	sh->valid = *rc == SQLITE_OK;
	store_step_done(st->db, s, "insert access row", rc, msg);
	*written += k;
	return k;
}

static int update_stream(struct store *st, const struct entry *e, char **msg)
{
	sqlite3_stmt *s = st->stmt[STMT_STREAM_CLOSE];
	int rc = SQLITE_OK;

	store_bind_i64(s, 1, store_rel_ns(st, e->u.close.closed_ns), &rc);
	store_bind_i64(s, 2, (int64_t)e->u.close.bytes, &rc);
	store_bind_i64(s, 3, e->u.close.frames, &rc);
	store_bind_i64(s, 4, e->u.close.late_frames, &rc);
	store_bind_i64(s, 5, e->u.close.failed_frames, &rc);
	store_bind_i64(s, 6, e->u.close.requests, &rc);
	store_bind_i64(s, 7, e->u.close.reloads, &rc);
	store_bind_i64(s, 8, e->u.close.seeks, &rc);
	store_bind_i64(s, 9, e->u.close.writer_drops, &rc);
	store_bind_i64(s, 10, e->u.close.reader_late_frames, &rc);
	if (e->u.close.ring_frames > 0)
		store_bind_i64(s, 11, e->u.close.ring_frames, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 11);
	store_bind_i64(s, 12, e->ss->row_id, &rc);
	store_step_done(st->db, s, "update stream row", &rc, msg);
	return rc;
}

/*
 * Write n entries in one transaction.  Returns SQLITE_OK with the counters
 * updated and the handles of the streams closed here freed; or a SQLite
 * code with the transaction rolled back, the stream rows it inserted
 * forgotten (their entries are written again on a retry) and the reason
 * in *msg.  Called without st->lock.
 */
int store_write_chunk(struct store *st, const struct entry *e, size_t n,
			     char **msg)
{
	uint64_t written = 0, lost = 0;
	int rc = SQLITE_OK;
	size_t i;

	store_step_done(st->db, st->stmt[STMT_BEGIN], "begin transaction", &rc,
			msg);
	for (i = 0; i < n && rc == SQLITE_OK; i++) {
		struct store_stream *ss = e[i].ss;

		switch (e[i].kind) {
		case ENTRY_OPEN:
			rc = insert_stream(st, ss, msg);
			break;
		case ENTRY_ACCESS:
			if (ss->row_id <= 0) {
				lost++;
				break;
			}
			i += insert_accesses(st, e + i, n - i, &written, &rc,
					     msg) - 1;
			break;
		case ENTRY_CLOSE:
			if (ss->row_id > 0)
				rc = update_stream(st, &e[i], msg);
			break;
		}
	}
	store_step_done(st->db, st->stmt[STMT_COMMIT], "commit", &rc, msg);
	if (rc != SQLITE_OK) {
		store_rollback_open(st);
		for (i = 0; i < n; i++)
			if (e[i].kind == ENTRY_OPEN)
				e[i].ss->row_id = 0;
		if (!*msg)
			*msg = store_fmt_msg("cannot write batch: %s",
					     sqlite3_errstr(rc));
		return rc;
	}

	pthread_mutex_lock(&st->lock);
	st->stats.rows_written += written;
	st->stats.rows_lost += lost;
	st->stats.commits++;
	if (lost && !st->stats.last_error)
		st->stats.last_error = -EIO;
	for (i = 0; i < n; i++) {
		if (e[i].kind == ENTRY_CLOSE) {
			store_unlink_stream(st, e[i].ss);
			free(e[i].ss);
		}
	}
	pthread_mutex_unlock(&st->lock);
	return SQLITE_OK;
}
