/* SPDX-License-Identifier: MIT */
/*
 * The store's handle: opens the database (a file of ours, WAL, the schema
 * brought up to date by migrate.c, every statement prepared once), hands
 * out its statistics and first error, and closes it; and the helpers that
 * every file of the store shares.  store_i.h says which file does what.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_i.h"

#define STORE_DEFAULT_QUEUE_CAP 65536
/* Largest transaction: big enough to amortise the commit, small enough
 * that producers blocked on a full queue get room back quickly. */
#define STORE_BATCH_MAX 16384
#define STORE_BUSY_TIMEOUT_MS 5000

/*
 * OR FAIL, not the default ABORT: a multi-row INSERT that may abort must be
 * able to undo its own first rows, so SQLite writes the pre-image of every
 * page it touches to a statement journal (a temporary file) before
 * changing it.  With several streams their access(stream_id) index entries
 * grow at as many places in the index, every statement touches pages the
 * transaction already changed, and that journal was a 4 KiB write per row
 * (strace: 326 k pwrite for 300 k rows of 16 streams, 16 k for one
 * stream).  FAIL keeps the rows before a failing one, which costs nothing
 * here: any error rolls the whole transaction back (store_write_chunk).
 */
#define ACCESS_INSERT "INSERT OR FAIL INTO access (stream_id, frame, " \
		      "track, clip, file_offset, length, sched_ns, due_ns, " \
		      "issued_ns, done_ns, errno, injected, played, dep, " \
		      "op, image, wake_ns, ring_fill) VALUES "
#define ACCESS_VALUES "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, " \
		      "?, ?)"

static const char *const stmt_sql[STMT_N] = {
	/* IMMEDIATE: take the write lock up front, so a competing writer
	 * makes us wait in the busy handler instead of failing mid-batch */
	[STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",
	[STMT_RUN] = "INSERT INTO run (label, started_at, kernel, config_hz, "
		     "host, options, media_dir, uuid, t0_unix_ns, host_id) "
		     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	/* -o experiment=UUID,rank=R: the row timelinefs-hosts wrote */
	[STMT_HOST_OF_RANK] = "SELECT host.id FROM host JOIN experiment "
			      "ON host.experiment_id = experiment.id "
			      "WHERE experiment.uuid = ? AND host.rank = ?",
	/* a mount of its own: its host row, one per name and machine */
	[STMT_HOST_OWN] = "SELECT id FROM host WHERE experiment_id IS NULL "
			  "AND rank IS NULL AND name = ? AND machine_id IS ? "
			  "ORDER BY id LIMIT 1",
	[STMT_HOST_ADD] = "INSERT INTO host (name, machine_id, complete) "
			  "VALUES (?, ?, 1)",
	[STMT_RUN_END] = "UPDATE run SET ended_at = ?, duration_ns = ?, "
			 "queue_full_waits = ?, rows_lost = ? WHERE id = ?",
	[STMT_TIMELINE] = "INSERT INTO timeline (run_id, name, path, fps_num, "
			  "fps_den, frames, bytes) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?)",
	[STMT_TIMELINE_DEL] = "DELETE FROM timeline WHERE run_id = ?",
	[STMT_MEDIA] = "INSERT OR REPLACE INTO media (timeline_id, clip, track, "
		       "file, codec, stream) VALUES (?, ?, ?, ?, ?, ?)",
	[STMT_MEDIA_DEL] = "DELETE FROM media WHERE timeline_id IN "
			   "(SELECT id FROM timeline WHERE run_id = ?)",
	[STMT_PROBLEM] = "INSERT INTO problem (run_id, message) VALUES (?, ?)",
	[STMT_PROBLEM_DEL] = "DELETE FROM problem WHERE run_id = ?",
	/* a key given twice keeps its last value */
	[STMT_ENV] = "INSERT OR REPLACE INTO run_env (run_id, key, value) "
		     "VALUES (?, ?, ?)",
	[STMT_ENV_DEL] = "DELETE FROM run_env WHERE run_id = ?",
	[STMT_RUN_DEL] = "DELETE FROM run WHERE id = ?",
	[STMT_STREAM] = "INSERT INTO stream (run_id, timeline_id, pid, comm, "
			"opened_ns, tid, sid, file, kind) "
			"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
	[STMT_STREAM_CLOSE] = "UPDATE stream SET closed_ns = ?, bytes = ?, "
			      "frames = ?, late_frames = ?, "
			      "failed_frames = ?, requests = ?, reloads = ?, "
			      "seeks = ?, writer_drops = ?, "
			      "reader_late_frames = ?, ring_frames = ? "
			      "WHERE id = ?",
	[STMT_ACCESS] = ACCESS_INSERT ACCESS_VALUES,
};

char *store_fmt_msg(const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : msg;
}

/* Map a SQLite result code to -errno at the store_open boundary. */
static int rc_errno(sqlite3 *db, int rc)
{
	int e;

	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return -ENOMEM;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_PERM:
	case SQLITE_AUTH:
		return -EACCES;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_CANTOPEN:
		e = db ? sqlite3_system_errno(db) : 0;
		return e > 0 ? -e : -EIO;
	default:
		return -EIO;
	}
}

/* Keep the first failure (message and -EIO); msg is taken over. */
void store_keep_error(struct store *st, char *msg)
{
	pthread_mutex_lock(&st->lock);
	if (!st->stats.last_error)
		st->stats.last_error = -EIO;
	if (!st->errmsg) {
		st->errmsg = msg;
		msg = NULL;
	}
	pthread_mutex_unlock(&st->lock);
	free(msg);
}

/* Step a statement that returns no row, then reset it.  On failure the
 * reason is formatted into *msg (first failure only) before the reset. */
void store_step_done(sqlite3 *db, sqlite3_stmt *s, const char *what,
			    int *rc, char **msg)
{
	int r;

	if (*rc == SQLITE_OK) {
		r = sqlite3_step(s);
		if (r != SQLITE_DONE)
			*rc = r == SQLITE_ROW ? SQLITE_MISUSE : r;
	}
	if (*rc != SQLITE_OK && msg && !*msg)
		*msg = store_fmt_msg("cannot %s: %s", what, sqlite3_errmsg(db));
	sqlite3_reset(s);
}

/* Roll back the connection's transaction, if one is still open (some
 * errors, SQLITE_FULL or IOERR, roll back by themselves). */
void store_rollback_open(struct store *st)
{
	int rc = SQLITE_OK;

	if (!sqlite3_get_autocommit(st->db))
		store_step_done(st->db, st->stmt[STMT_ROLLBACK], "rollback",
				&rc, NULL);
}

/* Create the file ourselves so that it is 0600 (SQLite would use 0644
 * less umask); its -wal and -shm files copy the database's mode. */
static int create_file(const char *path)
{
	int fd;

	if (!strcmp(path, ":memory:"))
		return 0;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* The multi-row access INSERT: ACCESS_INSERT and STORE_MULTI groups. */
static int build_multi(char *buf, size_t len)
{
	size_t n = strlen(ACCESS_INSERT);
	int i;

	if (n >= len)
		return SQLITE_NOMEM;
	memcpy(buf, ACCESS_INSERT, n);
	for (i = 0; i < STORE_MULTI; i++) {
		int w = snprintf(buf + n, len - n, "%s" ACCESS_VALUES,
				 i ? ", " : "");

		if (w < 0 || (size_t)w >= len - n)
			return SQLITE_NOMEM;
		n += (size_t)w;
	}
	return SQLITE_OK;
}

int store_open(const char *path, unsigned queue_cap, struct store **out,
	       char **errmsg)
{
	char multi[sizeof(ACCESS_INSERT) +
		   STORE_MULTI * (sizeof(ACCESS_VALUES) + 2)];
	pthread_condattr_t ca;
	struct store *st;
	const char *why = NULL;
	char *msg = NULL;
	int rc, src = SQLITE_OK, newer = 0, i;

	*out = NULL;
	if (errmsg)
		*errmsg = NULL;
	if (!path) {
		rc = -EINVAL;
		why = "no path";
		goto err;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		rc = -ENOMEM;
		goto err;
	}
	pthread_mutex_init(&st->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->nonempty, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&st->notfull, NULL);
	pthread_cond_init(&st->ckpt_cond, NULL);
	st->hold_max = STORE_DEFAULT_HOLD;
	st->path = strdup(path ? path : "");
	st->cap = queue_cap ? queue_cap : STORE_DEFAULT_QUEUE_CAP;
	st->batch_cap = st->cap < STORE_BATCH_MAX ? st->cap : STORE_BATCH_MAX;
	st->wake_at = 1;
	st->ring = malloc(st->cap * sizeof(*st->ring));
	st->batch = malloc(st->batch_cap * sizeof(*st->batch));
	if (!st->ring || !st->batch || !st->path) {
		rc = -ENOMEM;
		goto err_store;
	}

	rc = create_file(path);
	if (rc < 0) {
		why = strerror(-rc);
		goto err_store;
	}
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	src = sqlite3_open_v2(path, &st->db,
			      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
				      SQLITE_OPEN_NOMUTEX,
			      NULL);
	if (src == SQLITE_OK)
		src = sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
	/* synchronous=NORMAL in WAL: a commit does not fsync; power loss
	 * may lose the last commits but never corrupts the file.
	 * foreign_keys stays OFF (SQLite's default): this connection is the
	 * only writer and inserts stream ids it just got from SQLite, and the
	 * parent lookup per access row was 10 % of the recorder's
	 * instructions (callgrind, tlbench recorder).  The REFERENCES clauses
	 * still document the relations for readers. */
	if (src == SQLITE_OK)
		src = sqlite3_exec(st->db,
				   "PRAGMA journal_mode = WAL;"
				   "PRAGMA synchronous = NORMAL;"
				   "PRAGMA foreign_keys = OFF;",
				   NULL, NULL, NULL);
	if (src == SQLITE_OK)
		src = store_migrate(st->db, &newer);
	for (i = 0; i < STMT_N && src == SQLITE_OK; i++) {
		if (i == STMT_ACCESS_MULTI)
			src = build_multi(multi, sizeof(multi));
		if (src == SQLITE_OK)
			src = sqlite3_prepare_v3(st->db, i == STMT_ACCESS_MULTI ?
						 multi : stmt_sql[i], -1,
						 SQLITE_PREPARE_PERSISTENT,
						 &st->stmt[i], NULL);
	}
	if (src == SQLITE_OK)
		store_ckpt_hook(st);
	if (newer) {
		rc = -ENOTSUP;
		msg = store_fmt_msg("cannot open database %s: schema version "
				    "%d is newer than this timelinefs "
				    "supports (%d)", path, newer,
				    STORE_SCHEMA_VERSION);
	} else if (src != SQLITE_OK) {
		rc = st->db ? rc_errno(st->db, src) : -ENOMEM;
		why = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(src);
		msg = store_fmt_msg("cannot open database %s: %s", path, why);
		why = NULL;	/* dies with the connection */
	}
	if (src != SQLITE_OK) {
		if (st->db && !sqlite3_get_autocommit(st->db))
			sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		goto err_store;
	}
	*out = st;
	return 0;

err_store:
	store_close(st);
err:
	if (!msg)
		msg = store_fmt_msg("cannot open database %s: %s",
				    path ? path : "",
				    why ? why : strerror(-rc));
	if (errmsg)
		*errmsg = msg;
	else
		free(msg);
	return rc;
}

const char *store_sqlite_version(void)
{
	return sqlite3_libversion();
}

void store_get_stats(struct store *st, struct store_stats *out)
{
	pthread_mutex_lock(&st->lock);
	*out = st->stats;
	pthread_mutex_unlock(&st->lock);
}

const char *store_errmsg(const struct store *st)
{
	return st->errmsg;
}

void store_close(struct store *st)
{
	struct store_stream *ss;
	int i;

	if (!st)
		return;
	if (st->db && !st->run_ended && (st->run_id || st->started))
		store_run_end(st, store_mono_now());
	while ((ss = st->streams)) {
		st->streams = ss->next;
		free(ss);
	}
	for (i = 0; i < STMT_N; i++)
		sqlite3_finalize(st->stmt[i]);
	/* every statement is finalized, so this cannot be SQLITE_BUSY */
	sqlite3_close(st->db);
	pthread_cond_destroy(&st->notfull);
	pthread_cond_destroy(&st->ckpt_cond);
	pthread_cond_destroy(&st->nonempty);
	pthread_mutex_destroy(&st->lock);
	free(st->ring);
	free(st->batch);
	free(st->held);
	free(st->path);
	free(st->errmsg);
	free(st);
}
