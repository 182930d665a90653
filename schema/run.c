/* SPDX-License-Identifier: MIT */
/*
 * The run's rows: the header transaction (the run row, its timeline,
 * problem and run_env rows, committed together by store_start), the
 * run's end (the writer stopped, the queue drained, the run row
 * completed) and the discard of a run nobody read from.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "store_i.h"

/* The host row the run names (store.h, struct store_run_info): with an
 * experiment, the one timelinefs-hosts wrote for (experiment, rank)
 * before it mounted; without, the mount's own (experiment and rank NULL),
 * one per host name and machine, added the first time.  0, or a SQLite
 * code with the reason in *msg. */
static int run_host(struct store *st, const struct store_run_info *info,
		    int64_t *id, char **msg)
{
	const char *name = info->host ? info->host : "?";
	sqlite3_stmt *s;
	int rc = SQLITE_OK, r;

	if (info->experiment) {
		s = st->stmt[STMT_HOST_OF_RANK];
		store_bind_text(s, 1, info->experiment, &rc);
		store_bind_i64(s, 2, info->rank, &rc);
	} else {
		s = st->stmt[STMT_HOST_OWN];
		store_bind_text(s, 1, name, &rc);
		store_bind_text(s, 2, info->machine_id, &rc);
	}
	r = rc == SQLITE_OK ? sqlite3_step(s) : rc;
	if (r == SQLITE_ROW)
		*id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	if (r == SQLITE_ROW)
		return SQLITE_OK;
	if (r != SQLITE_DONE) {
		*msg = store_fmt_msg("cannot find the run's host row: %s",
				     sqlite3_errmsg(st->db));
		return r;
	}
	if (info->experiment) {
		*msg = store_fmt_msg("no host row for rank %d of experiment "
				     "%s (timelinefs-hosts writes it before "
				     "it mounts with -o experiment=,rank=)",
				     info->rank, info->experiment);
		return SQLITE_NOTFOUND;
	}
	s = st->stmt[STMT_HOST_ADD];
	store_bind_text(s, 1, name, &rc);
	store_bind_text(s, 2, info->machine_id, &rc);
	store_step_done(st->db, s, "insert host row", &rc, msg);
	if (rc == SQLITE_OK)
		*id = sqlite3_last_insert_rowid(st->db);
	return rc;
}

int store_run_begin(struct store *st, const struct store_run_info *info,
		    uint64_t epoch_ns)
{
	sqlite3_stmt *s = st->stmt[STMT_RUN];
	char started[40], uuid[37];
	char *msg = NULL;
	int64_t host_id = 0;
	int rc = SQLITE_OK;

	if (st->run_id || st->started || (info->experiment && info->rank < 0))
		return -EINVAL;
	if (!info->uuid && store_uuid_random(uuid) < 0) {
		store_keep_error(st, store_fmt_msg("cannot make the run's "
						   "uuid: no random bytes"));
		return -EIO;
	}
	store_iso_now(started, sizeof(started));
	store_step_done(st->db, st->stmt[STMT_BEGIN], "begin transaction", &rc,
			&msg);
	if (rc == SQLITE_OK)
		rc = run_host(st, info, &host_id, &msg);
	store_bind_text(s, 1, info->label, &rc);
	store_bind_text(s, 2, started, &rc);
	store_bind_text(s, 3, info->kernel, &rc);
	if (info->config_hz >= 0)
		store_bind_i64(s, 4, info->config_hz, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 4);
	store_bind_text(s, 5, info->host, &rc);
	store_bind_text(s, 6, info->options, &rc);
	store_bind_text(s, 7, info->media_dir, &rc);
	store_bind_text(s, 8, info->uuid ? info->uuid : uuid, &rc);
	if (info->t0_unix_ns)
		store_bind_i64(s, 9, info->t0_unix_ns, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 9);
	store_bind_i64(s, 10, host_id, &rc);
	store_step_done(st->db, s, "insert run row", &rc, &msg);
	if (rc != SQLITE_OK) {
		store_rollback_open(st);
		store_keep_error(st, msg);
		return -EIO;
	}
	st->run_id = sqlite3_last_insert_rowid(st->db);
	st->epoch_ns = epoch_ns;
	st->header_open = 1;
	return 0;
}

/* Commit the run and timeline rows, so that readers of the database see
 * them (all of them at once).  0 or -EIO, the rows then gone. */
int store_header_commit(struct store *st)
{
	char *msg = NULL;
	int rc = SQLITE_OK;

	if (!st->header_open)
		return 0;
	st->header_open = 0;
	store_step_done(st->db, st->stmt[STMT_COMMIT], "commit the run row",
			&rc, &msg);
	if (rc != SQLITE_OK) {
		store_rollback_open(st);
		store_keep_error(st, msg);
		st->run_id = 0;
		return -EIO;
	}
	return 0;
}

int64_t store_run_id(const struct store *st)
{
	return st->run_id;
}

int store_timeline_add(struct store *st, const struct store_timeline_info *tl,
		       int64_t *id)
{
	sqlite3_stmt *s = st->stmt[STMT_TIMELINE];
	char *msg = NULL;
	int rc = SQLITE_OK;

	/* after store_start the writer owns the connection */
	if (!st->run_id || st->started || st->run_ended)
		return -EINVAL;
	store_bind_i64(s, 1, st->run_id, &rc);
	store_bind_text(s, 2, tl->name, &rc);
	store_bind_text(s, 3, tl->path, &rc);
	store_bind_i64(s, 4, tl->fps_num, &rc);
	store_bind_i64(s, 5, tl->fps_den, &rc);
	store_bind_i64(s, 6, tl->frames, &rc);
	store_bind_i64(s, 7, (int64_t)tl->bytes, &rc);
	store_step_done(st->db, s, "insert timeline row", &rc, &msg);
	if (rc != SQLITE_OK) {
		store_keep_error(st, msg);
		return -EIO;
	}
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_media_add(struct store *st, int64_t timeline_id,
		    const struct store_media_info *m)
{
	sqlite3_stmt *s = st->stmt[STMT_MEDIA];
	char *msg = NULL;
	int rc = SQLITE_OK;

	if (!st->run_id || st->started || st->run_ended || !m || !m->clip ||
	    !m->track || !m->file)
		return -EINVAL;
	store_bind_i64(s, 1, timeline_id, &rc);
	store_bind_text(s, 2, m->clip, &rc);
	store_bind_text(s, 3, m->track, &rc);
	store_bind_text(s, 4, m->file, &rc);
	store_bind_text(s, 5, m->codec, &rc);
	if (m->stream >= 0)
		store_bind_i64(s, 6, m->stream, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 6);
	store_step_done(st->db, s, "insert media row", &rc, &msg);
	if (rc != SQLITE_OK) {
		store_keep_error(st, msg);
		return -EIO;
	}
	return 0;
}

/* A row of the run (its id, then one or two texts), by the caller's
 * thread: 0, or -EIO with the reason kept. */
static int run_row(struct store *st, int stmt, const char *what,
		   const char *a, const char *b)
{
	sqlite3_stmt *s = st->stmt[stmt];
	char *msg = NULL;
	int rc = SQLITE_OK;

	store_bind_i64(s, 1, st->run_id, &rc);
	store_bind_text(s, 2, a, &rc);
	if (b)
		store_bind_text(s, 3, b, &rc);
	store_step_done(st->db, s, what, &rc, &msg);
	if (rc != SQLITE_OK) {
		store_keep_error(st, msg);
		return -EIO;
	}
	return 0;
}

/* A row of the run in the header transaction: -EINVAL out of order. */
static int header_row(struct store *st, int stmt, const char *what,
		      const char *a, const char *b)
{
	if (!st->run_id || st->started || st->run_ended)
		return -EINVAL;
	return run_row(st, stmt, what, a, b);
}

int store_problem_add(struct store *st, const char *message)
{
	return header_row(st, STMT_PROBLEM, "insert problem row", message,
			  NULL);
}

int store_env_add(struct store *st, const char *key, const char *value)
{
	if (!key || !value)
		return -EINVAL;
	return header_row(st, STMT_ENV, "insert run_env row", key, value);
}

int store_env_add_ended(struct store *st, const char *key, const char *value)
{
	/* the writer is stopped by store_run_end: the connection is ours */
	if (!key || !value || !st->run_id || !st->run_ended)
		return -EINVAL;
	return run_row(st, STMT_ENV, "insert run_env row", key, value);
}

int store_run_end(struct store *st, uint64_t end_ns)
{
	sqlite3_stmt *s = st->stmt[STMT_RUN_END];
	struct store_stats stats;
	char ended[40];
	char *msg = NULL;
	int rc = SQLITE_OK, hdr;

	if (st->run_ended)
		return 0;
	hdr = store_header_commit(st);
	store_writer_stop(st);
	/* Refuse new entries and wake producers still blocked on a full
	 * queue, then write what they queued after the writer's last look. */
	pthread_mutex_lock(&st->lock);
	st->ended = 1;
	pthread_cond_broadcast(&st->notfull);
	pthread_mutex_unlock(&st->lock);
	if (hdr == 0)
		store_drain_sync(st);
	st->run_ended = 1;
	if (hdr < 0)
		return -EIO;
	if (!st->run_id)
		return 0;

	store_get_stats(st, &stats);
	store_iso_now(ended, sizeof(ended));
	store_bind_text(s, 1, ended, &rc);
	store_bind_i64(s, 2, store_rel_ns(st, end_ns), &rc);
	store_bind_i64(s, 3, (int64_t)stats.queue_full_waits, &rc);
	store_bind_i64(s, 4, (int64_t)stats.rows_lost, &rc);
	store_bind_i64(s, 5, st->run_id, &rc);
	store_step_done(st->db, s, "update run row", &rc, &msg);
	if (rc != SQLITE_OK) {
		store_keep_error(st, msg);
		return -EIO;
	}
	return stats.last_error ? -EIO : 0;
}

int store_run_discard(struct store *st)
{
	int any, rc = SQLITE_OK;
	char *msg = NULL;

	if (!st->run_id || st->run_ended)
		return -EINVAL;
	pthread_mutex_lock(&st->lock);
	any = st->any_stream;
	pthread_mutex_unlock(&st->lock);
	if (any)
		return -EBUSY;
	store_writer_stop(st);
	pthread_mutex_lock(&st->lock);
	st->ended = 1;
	pthread_mutex_unlock(&st->lock);
	st->run_ended = 1;
	if (st->header_open) {
		/* never committed: nobody saw the rows */
		st->header_open = 0;
		store_rollback_open(st);
		st->run_id = 0;
		return 0;
	}
	store_step_done(st->db, st->stmt[STMT_BEGIN], "begin transaction", &rc,
			&msg);
	/* the media rows first: they name the timeline rows */
	store_bind_i64(st->stmt[STMT_MEDIA_DEL], 1, st->run_id, &rc);
	store_step_done(st->db, st->stmt[STMT_MEDIA_DEL], "delete media rows",
			&rc, &msg);
	store_bind_i64(st->stmt[STMT_TIMELINE_DEL], 1, st->run_id, &rc);
	store_step_done(st->db, st->stmt[STMT_TIMELINE_DEL],
			"delete timeline rows", &rc, &msg);
	store_bind_i64(st->stmt[STMT_PROBLEM_DEL], 1, st->run_id, &rc);
	store_step_done(st->db, st->stmt[STMT_PROBLEM_DEL],
			"delete problem rows", &rc, &msg);
	store_bind_i64(st->stmt[STMT_ENV_DEL], 1, st->run_id, &rc);
	store_step_done(st->db, st->stmt[STMT_ENV_DEL], "delete run_env rows",
			&rc, &msg);
	store_bind_i64(st->stmt[STMT_RUN_DEL], 1, st->run_id, &rc);
	store_step_done(st->db, st->stmt[STMT_RUN_DEL], "delete run row", &rc,
			&msg);
	store_step_done(st->db, st->stmt[STMT_COMMIT], "commit", &rc, &msg);
	st->run_id = 0;
	if (rc != SQLITE_OK) {
		store_rollback_open(st);
		store_keep_error(st, msg);
		return -EIO;
	}
	return 0;
}
