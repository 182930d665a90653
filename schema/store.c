/* SPDX-License-Identifier: MIT */
/*
 * The store: opens the database, applies the schema, inserts run and
 * timeline rows, and runs the recorder (one writer thread fed by a bounded
 * queue, committing in batches).  The only file that includes <sqlite3.h>.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store.h"

#define STORE_DEFAULT_QUEUE_CAP 65536
/* Largest transaction: big enough to amortise the commit, small enough
 * that producers blocked on a full queue get room back quickly. */
#define STORE_BATCH_MAX 16384
#define STORE_BUSY_TIMEOUT_MS 5000
/* The first write of the hold after a refusal: small, so that retrying
 * every commit interval through a long outage costs little. */
#define STORE_RETRY_ROWS 256
/* WAL checkpoints: the checkpointer thread is asked for one once the WAL
 * holds STORE_CKPT_PAGES frames (SQLite's own default threshold); should
 * it fall behind, the writer checkpoints itself at STORE_CKPT_PAGES_MAX,
 * so the WAL stays bounded as with SQLite's autocheckpoint. */
#define STORE_CKPT_PAGES 1000
#define STORE_CKPT_PAGES_MAX 8000

enum entry_kind {
	ENTRY_OPEN,
	ENTRY_ACCESS,
	ENTRY_CLOSE,
};

struct entry {
	enum entry_kind kind;
	struct store_stream *ss;
	union {
		struct store_access acc;
		struct store_stream_totals close;
	} u;
};

/* the README's memory cost of the hold, per row */
_Static_assert(sizeof(struct entry) <= STORE_HOLD_ROW_BYTES,
	       "struct entry outgrew STORE_HOLD_ROW_BYTES");

struct store_stream {
	struct store *st;
	struct store_stream *prev, *next;	/* st->streams, st->lock */
	int64_t timeline_id;
	uint64_t opened_ns;
	/* Writer only: 0 before its row is inserted, the row id after,
	 * -1 when the row was lost (its accesses count in rows_lost). */
	int64_t row_id;
	pid_t pid, tid, sid;
	char comm[];
};

enum {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_RUN,
	STMT_RUN_END,
	STMT_TIMELINE,
	STMT_TIMELINE_DEL,
	STMT_PROBLEM,
	STMT_PROBLEM_DEL,
	STMT_ENV,
	STMT_ENV_DEL,
	STMT_RUN_DEL,
	STMT_STREAM,
	STMT_STREAM_CLOSE,
	STMT_ACCESS,
	STMT_ACCESS_MULTI,	/* built at open: STORE_MULTI rows of VALUES */
	STMT_N
};

/* Access rows per multi-row INSERT: one statement step per STORE_MULTI
 * rows instead of per row halves the recorder's CPU per row (the VDBE's
 * per-statement setup, cursor open and close dominate a one-row insert);
 * beyond 32 the gain is lost in the noise. */
#define STORE_MULTI 32
#define STORE_ACCESS_COLS 12
/*
 * OR FAIL, not the default ABORT: a multi-row INSERT that may abort must be
 * able to undo its own first rows, so SQLite writes the pre-image of every
 * page it touches to a statement journal (a temporary file) before
 * changing it.  With several streams their access(stream_id) index entries
 * grow at as many places in the index, every statement touches pages the
 * transaction already changed, and that journal was a 4 KiB write per row
 * (strace: 326 k pwrite for 300 k rows of 16 streams, 16 k for one
 * stream).  FAIL keeps the rows before a failing one, which costs nothing
 * here: any error rolls the whole transaction back (write_chunk).
 */
#define ACCESS_INSERT "INSERT OR FAIL INTO access (stream_id, frame, " \
		      "track, clip, file_offset, length, sched_ns, due_ns, " \
		      "issued_ns, done_ns, errno, injected) VALUES "
#define ACCESS_VALUES "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

static const char *const stmt_sql[STMT_N] = {
	/* IMMEDIATE: take the write lock up front, so a competing writer
	 * makes us wait in the busy handler instead of failing mid-batch */
	[STMT_BEGIN] = "BEGIN IMMEDIATE",
	[STMT_COMMIT] = "COMMIT",
	[STMT_ROLLBACK] = "ROLLBACK",
	[STMT_RUN] = "INSERT INTO run (label, started_at, kernel, config_hz, "
		     "host, options, media_dir) VALUES (?, ?, ?, ?, ?, ?, ?)",
	[STMT_RUN_END] = "UPDATE run SET ended_at = ?, duration_ns = ?, "
			 "queue_full_waits = ?, rows_lost = ? WHERE id = ?",
	[STMT_TIMELINE] = "INSERT INTO timeline (run_id, name, path, fps_num, "
			  "fps_den, frames, bytes) "
			  "VALUES (?, ?, ?, ?, ?, ?, ?)",
	[STMT_TIMELINE_DEL] = "DELETE FROM timeline WHERE run_id = ?",
	[STMT_PROBLEM] = "INSERT INTO problem (run_id, message) VALUES (?, ?)",
	[STMT_PROBLEM_DEL] = "DELETE FROM problem WHERE run_id = ?",
	/* a key given twice keeps its last value */
	[STMT_ENV] = "INSERT OR REPLACE INTO run_env (run_id, key, value) "
		     "VALUES (?, ?, ?)",
	[STMT_ENV_DEL] = "DELETE FROM run_env WHERE run_id = ?",
	[STMT_RUN_DEL] = "DELETE FROM run WHERE id = ?",
	[STMT_STREAM] = "INSERT INTO stream (run_id, timeline_id, pid, comm, "
			"opened_ns, tid, sid) VALUES (?, ?, ?, ?, ?, ?, ?)",
	[STMT_STREAM_CLOSE] = "UPDATE stream SET closed_ns = ?, bytes = ?, "
			      "frames = ?, late_frames = ?, "
			      "failed_frames = ?, requests = ?, reloads = ?, "
			      "seeks = ? WHERE id = ?",
	[STMT_ACCESS] = ACCESS_INSERT ACCESS_VALUES,
};

/* The values bound to an access INSERT, to skip binding them again. */
struct access_shadow {
	int valid;
	int64_t v[STORE_MULTI * STORE_ACCESS_COLS];
};

struct store {
	/* The connection is used by one thread at a time: the caller until
	 * store_start, the writer until it is joined, then the caller again
	 * (pthread_create/join order the accesses), hence NOMUTEX. */
	sqlite3 *db;
	sqlite3_stmt *stmt[STMT_N];
	int64_t run_id;		/* 0 before store_run_begin */
	uint64_t epoch_ns;
	int started;		/* writer thread running (caller only) */
	int run_ended;		/* store_run_end done (caller only) */
	/* The transaction of the run and timeline rows is open: they are
	 * seen together, at store_start, or not at all (caller only). */
	int header_open;
	int any_stream;		/* a stream was opened (under lock) */
	pthread_t thread;
	/* The checkpointer: its own connection (NULL: none, the writer
	 * checkpoints inline) and thread, started and joined with the
	 * writer's; ckpt_wanted and ckpt_stop are under lock. */
	sqlite3 *ckpt_db;
	pthread_t ckpt_thread;
	pthread_cond_t ckpt_cond;
	int ckpt_wanted, ckpt_stop;

	pthread_mutex_t lock;
	pthread_cond_t nonempty;	/* writer waits; CLOCK_MONOTONIC */
	pthread_cond_t notfull;		/* producers wait */
	/* Everything below up to batch is protected by lock. */
	struct entry *ring;
	size_t cap, head, count;
	size_t wake_at;		/* producers signal nonempty at this count */
	uint64_t oldest_ns;	/* when the queue last became non-empty */
	unsigned full_waiters;
	int stopping;		/* store_run_end asked the writer to finish */
	int ended;		/* no more entries accepted */
	struct store_stream *streams;	/* handles not yet freed */
	struct store_stats stats;
	char *errmsg;		/* the first failure's message */

	/* Set before store_start. */
	char *path;		/* for messages */
	store_notify_fn *notify;
	void *notify_ctx;
	uint64_t hold_max;	/* access rows the hold may keep */

	/* Writer only (or the caller once the writer is joined). */
	struct entry *batch;
	size_t batch_cap;
	struct access_shadow shadow[2];	/* STMT_ACCESS, STMT_ACCESS_MULTI */
	/* The hold: entries the database refused, oldest first, written
	 * before anything newer once it accepts writes again. */
	struct entry *held;
	size_t nheld, held_cap;
	size_t held_rows;	/* access entries in held */
	int outage;		/* the hold is not empty */
	int hold_full_said;	/* this outage overflowed the hold */
	int final_tried;	/* the run's end made its last attempt */
	uint64_t outage_ns;	/* when this outage began */
	uint64_t retry_ns;	/* next attempt at writing the hold */
	uint64_t outage_lost;	/* access rows lost in this outage */
	uint64_t outage_written; /* held access rows written in this outage */
};

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* UTC ISO-8601 with milliseconds: 2026-12-02T14:45:26.123Z */
static void iso_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* Times are stored relative to the run's epoch; a time before it (never
 * from the engine) comes out negative rather than wrapped. */
static int64_t rel_ns(const struct store *st, uint64_t t)
{
	return (int64_t)(t - st->epoch_ns);
}

static char *fmt_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static char *fmt_msg(const char *fmt, ...)
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
static void keep_error(struct store *st, char *msg)
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

/*
 * Sticky helpers: each is a no-op once *rc is not SQLITE_OK, so a sequence
 * of binds and a step needs one check at the end.
 */
static void bind_i64(sqlite3_stmt *s, int i, int64_t v, int *rc)
{
	if (*rc == SQLITE_OK)
		*rc = sqlite3_bind_int64(s, i, v);
}

/* A process, thread or session id; 0 (unknown) is NULL. */
static void bind_id(sqlite3_stmt *s, int i, pid_t v, int *rc)
{
	if (*rc == SQLITE_OK)
		*rc = v > 0 ? sqlite3_bind_int64(s, i, v) :
			      sqlite3_bind_null(s, i);
}

/* Strings outlive the statement's use of them (the caller's, the model's,
 * or the stream handle's), hence SQLITE_STATIC: no copy per row. */
static void bind_text(sqlite3_stmt *s, int i, const char *v, int *rc)
{
	if (*rc != SQLITE_OK)
		return;
	if (v)
		*rc = sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		*rc = sqlite3_bind_null(s, i);
}

/* Step a statement that returns no row, then reset it.  On failure the
 * reason is formatted into *msg (first failure only) before the reset. */
static void step_done(sqlite3 *db, sqlite3_stmt *s, const char *what,
		      int *rc, char **msg)
{
	int r;

	if (*rc == SQLITE_OK) {
		r = sqlite3_step(s);
		if (r != SQLITE_DONE)
			*rc = r == SQLITE_ROW ? SQLITE_MISUSE : r;
	}
	if (*rc != SQLITE_OK && msg && !*msg)
		*msg = fmt_msg("cannot %s: %s", what, sqlite3_errmsg(db));
	sqlite3_reset(s);
}

/* ---------------------------------------------------------------- open */

static int read_user_version(sqlite3 *db, int *version)
{
	sqlite3_stmt *s = NULL;
	int rc;

	rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			*version = sqlite3_column_int(s, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(s);
	return rc;
}

/* Add table.col (declared decl) unless the table has it: a database made
 * before the column existed keeps its old table under CREATE TABLE IF NOT
 * EXISTS.  Names are ours, not input. */
static int add_column(sqlite3 *db, const char *table, const char *col,
		      const char *decl)
{
	sqlite3_stmt *s = NULL;
	char sql[160];
	int rc, found = 0;

	rc = sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?) "
				"WHERE name = ?", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(s, 2, col, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		found = rc == SQLITE_ROW;
		rc = rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_OK || found)
		return rc;
	snprintf(sql, sizeof(sql), "ALTER TABLE %s ADD COLUMN %s %s", table,
		 col, decl);
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* The columns added since the first schema, in every file (idempotent). */
static int add_columns(sqlite3 *db)
{
	static const char *const cols[][3] = {
		{ "access", "injected", "INTEGER NOT NULL DEFAULT 0" },
		/* version 2 */
		{ "stream", "requests", "INTEGER" },
		{ "stream", "reloads", "INTEGER" },
		{ "stream", "seeks", "INTEGER" },
		/* version 4 */
		{ "stream", "tid", "INTEGER" },
		{ "stream", "sid", "INTEGER" },
	};
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < sizeof(cols) / sizeof(cols[0]) && rc == SQLITE_OK; i++)
		rc = add_column(db, cols[i][0], cols[i][1], cols[i][2]);
	return rc;
}

/* Apply the schema in one transaction, refusing a newer schema version
 * (*newer is set to it).  Returns a SQLite code; on failure the
 * transaction is left open so that the caller can read the message before
 * rolling back. */
static int apply_schema(sqlite3 *db, int *newer)
{
	static const struct {
		int version;	/* the version that changed them */
		const char *sql;	/* what upgrades an older file */
	} changed[] = {
		{ 2, "DROP VIEW IF EXISTS stream_summary;"
		     "DROP VIEW IF EXISTS run_summary" },
		/* late_frame selects from late_access: dropped first */
		{ 3, "DROP VIEW IF EXISTS late_frame;"
		     "DROP VIEW IF EXISTS late_access" },
		/* pid was the opening thread's id (FUSE's), which is tid now;
		 * it stays in pid, the process's for a reader that opened from
		 * its main thread (which an old row cannot tell) */
		{ 4, "DROP VIEW IF EXISTS stream_summary;"
		     "UPDATE stream SET tid = pid WHERE tid IS NULL" },
	};
	char sql[64];
	int rc, version = 0, again = 0;
	size_t i;

	rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = read_user_version(db, &version);
	if (rc == SQLITE_OK && version > STORE_SCHEMA_VERSION) {
		*newer = version;
		rc = SQLITE_ERROR;
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, store_schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = add_columns(db);
	/* views changed since: CREATE VIEW IF NOT EXISTS keeps an older
	 * file's, so drop them and apply the schema again */
	for (i = 0; i < sizeof(changed) / sizeof(changed[0]); i++) {
		if (rc == SQLITE_OK && version < changed[i].version) {
			rc = sqlite3_exec(db, changed[i].sql, NULL, NULL,
					  NULL);
			again = 1;
		}
	}
	if (rc == SQLITE_OK && again)
		rc = sqlite3_exec(db, store_schema_sql, NULL, NULL, NULL);
	if (rc == SQLITE_OK && version < STORE_SCHEMA_VERSION) {
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			 STORE_SCHEMA_VERSION);
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	return rc;
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

/*
 * After each commit (in the committing thread: the writer, or the caller
 * before store_start and after the writer is joined).  Replaces SQLite's
 * autocheckpoint, which would copy the WAL into the database inside the
 * writer's commit: that was a seventh of the recorder's time, and on two
 * cores the checkpointer's connection can do it beside the writer.
 */
static int wal_hook(void *arg, sqlite3 *db, const char *name, int pages)
{
	struct store *st = arg;

	if (pages < STORE_CKPT_PAGES)
		return SQLITE_OK;
	if (!st->ckpt_db || pages >= STORE_CKPT_PAGES_MAX) {
		/* errors (a full disk) are retried at the next commit */
		sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE,
					  NULL, NULL);
		return SQLITE_OK;
	}
	pthread_mutex_lock(&st->lock);
	st->ckpt_wanted = 1;
	pthread_cond_signal(&st->ckpt_cond);
	pthread_mutex_unlock(&st->lock);
	return SQLITE_OK;
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
		src = apply_schema(st->db, &newer);
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
		sqlite3_wal_hook(st->db, wal_hook, st);
	if (newer) {
		rc = -ENOTSUP;
		msg = fmt_msg("cannot open database %s: schema version %d is "
			      "newer than this timelinefs supports (%d)",
			      path, newer, STORE_SCHEMA_VERSION);
	} else if (src != SQLITE_OK) {
		rc = st->db ? rc_errno(st->db, src) : -ENOMEM;
		why = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(src);
		msg = fmt_msg("cannot open database %s: %s", path, why);
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
		msg = fmt_msg("cannot open database %s: %s", path ? path : "",
			      why ? why : strerror(-rc));
	if (errmsg)
		*errmsg = msg;
	else
		free(msg);
	return rc;
}

/* ---------------------------------------------------------------- run */

/* Roll back the connection's transaction, if one is still open (some
 * errors, SQLITE_FULL or IOERR, roll back by themselves). */
static void rollback_open(struct store *st)
{
	int rc = SQLITE_OK;

	if (!sqlite3_get_autocommit(st->db))
		step_done(st->db, st->stmt[STMT_ROLLBACK], "rollback", &rc,
			  NULL);
}

int store_run_begin(struct store *st, const struct store_run_info *info,
		    uint64_t epoch_ns)
{
	sqlite3_stmt *s = st->stmt[STMT_RUN];
	char started[40];
	char *msg = NULL;
	int rc = SQLITE_OK;

	if (st->run_id || st->started)
		return -EINVAL;
	iso_now(started, sizeof(started));
	step_done(st->db, st->stmt[STMT_BEGIN], "begin transaction", &rc,
		  &msg);
	bind_text(s, 1, info->label, &rc);
	bind_text(s, 2, started, &rc);
	bind_text(s, 3, info->kernel, &rc);
	if (info->config_hz >= 0)
		bind_i64(s, 4, info->config_hz, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 4);
	bind_text(s, 5, info->host, &rc);
	bind_text(s, 6, info->options, &rc);
	bind_text(s, 7, info->media_dir, &rc);
	step_done(st->db, s, "insert run row", &rc, &msg);
	if (rc != SQLITE_OK) {
		rollback_open(st);
		keep_error(st, msg);
		return -EIO;
	}
	st->run_id = sqlite3_last_insert_rowid(st->db);
	st->epoch_ns = epoch_ns;
	st->header_open = 1;
	return 0;
}

/* Commit the run and timeline rows, so that readers of the database see
 * them (all of them at once).  0 or -EIO, the rows then gone. */
static int commit_header(struct store *st)
{
	char *msg = NULL;
	int rc = SQLITE_OK;

	if (!st->header_open)
		return 0;
	st->header_open = 0;
	step_done(st->db, st->stmt[STMT_COMMIT], "commit the run row", &rc,
		  &msg);
	if (rc != SQLITE_OK) {
		rollback_open(st);
		keep_error(st, msg);
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
	bind_i64(s, 1, st->run_id, &rc);
	bind_text(s, 2, tl->name, &rc);
	bind_text(s, 3, tl->path, &rc);
	bind_i64(s, 4, tl->fps_num, &rc);
	bind_i64(s, 5, tl->fps_den, &rc);
	bind_i64(s, 6, tl->frames, &rc);
	bind_i64(s, 7, (int64_t)tl->bytes, &rc);
	step_done(st->db, s, "insert timeline row", &rc, &msg);
	if (rc != SQLITE_OK) {
		keep_error(st, msg);
		return -EIO;
	}
	*id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

/* A header row of the run (its id, then one or two texts) in the header
 * transaction: 0, -EINVAL out of order, -EIO with the reason kept. */
static int header_row(struct store *st, int stmt, const char *what,
		      const char *a, const char *b)
{
	sqlite3_stmt *s = st->stmt[stmt];
	char *msg = NULL;
	int rc = SQLITE_OK;

	if (!st->run_id || st->started || st->run_ended)
		return -EINVAL;
	bind_i64(s, 1, st->run_id, &rc);
	bind_text(s, 2, a, &rc);
	if (b)
		bind_text(s, 3, b, &rc);
	step_done(st->db, s, what, &rc, &msg);
	if (rc != SQLITE_OK) {
		keep_error(st, msg);
		return -EIO;
	}
	return 0;
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
	sqlite3_stmt *s = st->stmt[STMT_ENV];
	char *msg = NULL;
	int rc = SQLITE_OK;

	/* the writer is stopped by store_run_end: the connection is ours */
	if (!key || !value || !st->run_id || !st->run_ended)
		return -EINVAL;
	bind_i64(s, 1, st->run_id, &rc);
	bind_text(s, 2, key, &rc);
	bind_text(s, 3, value, &rc);
	step_done(st->db, s, "insert run_env row", &rc, &msg);
	if (rc != SQLITE_OK) {
		keep_error(st, msg);
		return -EIO;
	}
	return 0;
}

const char *store_sqlite_version(void)
{
	return sqlite3_libversion();
}

/* ---------------------------------------------------------------- writer */

static int insert_stream(struct store *st, struct store_stream *ss,
			 char **msg)
{
	sqlite3_stmt *s = st->stmt[STMT_STREAM];
	int rc = SQLITE_OK;

	bind_i64(s, 1, st->run_id, &rc);
	if (ss->timeline_id > 0)
		bind_i64(s, 2, ss->timeline_id, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 2);
	bind_id(s, 3, ss->pid, &rc);
	bind_text(s, 4, ss->comm, &rc);
	bind_i64(s, 5, rel_ns(st, ss->opened_ns), &rc);
	bind_id(s, 6, ss->tid, &rc);
	if (ss->sid >= 0)
		bind_i64(s, 7, ss->sid, &rc);
	else if (rc == SQLITE_OK)
		rc = sqlite3_bind_null(s, 7);
	step_done(st->db, s, "insert stream row", &rc, msg);
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
		rel_ns(st, a->sched_ns), rel_ns(st, a->due_ns),
		rel_ns(st, a->issued_ns), rel_ns(st, a->done_ns),
		a->err, a->injected,
	};
	int64_t *old = sh->v + k;
	int i;

	for (i = 0; i < STORE_ACCESS_COLS && *rc == SQLITE_OK; i++) {
		if (sh->valid && old[i] == v[i])
			continue;
		if (i == 2)
			bind_text(s, k + 3, a->track, rc);
		else if (i == 3)
			bind_text(s, k + 4, a->clip, rc);
		else
			bind_i64(s, k + i + 1, v[i], rc);
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
	step_done(st->db, s, "insert access row", rc, msg);
	*written += k;
	return k;
}

static int update_stream(struct store *st, const struct entry *e, char **msg)
{
	sqlite3_stmt *s = st->stmt[STMT_STREAM_CLOSE];
	int rc = SQLITE_OK;

	bind_i64(s, 1, rel_ns(st, e->u.close.closed_ns), &rc);
	bind_i64(s, 2, (int64_t)e->u.close.bytes, &rc);
	bind_i64(s, 3, e->u.close.frames, &rc);
	bind_i64(s, 4, e->u.close.late_frames, &rc);
	bind_i64(s, 5, e->u.close.failed_frames, &rc);
	bind_i64(s, 6, e->u.close.requests, &rc);
	bind_i64(s, 7, e->u.close.reloads, &rc);
	bind_i64(s, 8, e->u.close.seeks, &rc);
	bind_i64(s, 9, e->ss->row_id, &rc);
	step_done(st->db, s, "update stream row", &rc, msg);
	return rc;
}

/* Under st->lock. */
static void unlink_stream(struct store *st, struct store_stream *ss)
{
	if (ss->prev)
		ss->prev->next = ss->next;
	else
		st->streams = ss->next;
	if (ss->next)
		ss->next->prev = ss->prev;
}

/*
 * Write n entries in one transaction.  Returns SQLITE_OK with the counters
 * updated and the handles of the streams closed here freed; or a SQLite
 * code with the transaction rolled back, the stream rows it inserted
 * forgotten (their entries are written again on a retry) and the reason
 * in *msg.  Called without st->lock.
 */
static int write_chunk(struct store *st, const struct entry *e, size_t n,
		       char **msg)
{
	uint64_t written = 0, lost = 0;
	int rc = SQLITE_OK;
	size_t i;

	step_done(st->db, st->stmt[STMT_BEGIN], "begin transaction", &rc, msg);
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
	step_done(st->db, st->stmt[STMT_COMMIT], "commit", &rc, msg);
	if (rc != SQLITE_OK) {
		/* some errors (SQLITE_FULL, IOERR) roll back by themselves */
		if (!sqlite3_get_autocommit(st->db)) {
			int rrc = SQLITE_OK;

			step_done(st->db, st->stmt[STMT_ROLLBACK], "rollback",
				  &rrc, NULL);
		}
		for (i = 0; i < n; i++)
			if (e[i].kind == ENTRY_OPEN)
				e[i].ss->row_id = 0;
		if (!*msg)
			*msg = fmt_msg("cannot write batch: %s",
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
			unlink_stream(st, e[i].ss);
			free(e[i].ss);
		}
	}
	pthread_mutex_unlock(&st->lock);
	return SQLITE_OK;
}

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
	st->outage_ns = mono_now();
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
static void hold_flush(struct store *st)
{
	size_t done = 0, k;
	uint64_t rows = 0, written = 0;
	char *msg = NULL;
	size_t i;

	while (done < st->nheld) {
		k = st->nheld - done;
		if (k > (done ? st->batch_cap : STORE_RETRY_ROWS))
			k = done ? st->batch_cap : STORE_RETRY_ROWS;
		if (write_chunk(st, st->held + done, k, &msg) != SQLITE_OK)
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
		st->retry_ns = mono_now() +
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
	       (double)(mono_now() - st->outage_ns) / 1e9,
	       (unsigned long long)written,
	       (unsigned long long)st->outage_lost);
}

/*
 * Write the n entries of st->batch, or hold them: while the hold is not
 * empty they go behind it (order is kept), and the hold is retried once
 * its retry time has come, or at once with force (the run is ending).
 */
static void write_or_hold(struct store *st, size_t n, int force)
{
	char *msg = NULL;

	if (!st->outage) {
		if (!n || write_chunk(st, st->batch, n, &msg) == SQLITE_OK)
			return;
		outage_begin(st, msg);
		hold_append(st, st->batch, n);
		st->retry_ns = mono_now() +
			       (uint64_t)STORE_COMMIT_INTERVAL_MS * 1000000u;
		return;
	}
	hold_append(st, st->batch, n);
	if (force || mono_now() >= st->retry_ns)
		hold_flush(st);
}

/* At the end of the run: whatever is still held is lost, and counted. */
static void hold_give_up(struct store *st)
{
	size_t i;

	for (i = 0; i < st->nheld; i++)
		drop_entry(st, &st->held[i]);
	free(st->held);
	st->held = NULL;
	st->nheld = st->held_cap = st->held_rows = 0;
	held_publish(st);
}

/* Move up to batch_cap entries from the ring to st->batch.  Under lock. */
static size_t take_batch(struct store *st)
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
	       mono_now() < deadline)
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
		n = take_batch(st);
		backlog = st->count > 0;
		stopping = st->stopping;
		/* ending: one last attempt, not one per batch */
		force = stopping && !st->final_tried;
		pthread_mutex_unlock(&st->lock);
		write_or_hold(st, n, force && !backlog);
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
static void drain_sync(struct store *st)
{
	size_t n;

	pthread_mutex_lock(&st->lock);
	while (st->count) {
		n = take_batch(st);
		pthread_mutex_unlock(&st->lock);
		write_or_hold(st, n, 0);
		pthread_mutex_lock(&st->lock);
	}
	pthread_mutex_unlock(&st->lock);
	if (st->outage && !st->final_tried)
		hold_flush(st);
	st->final_tried = 1;
	if (st->outage)
		hold_give_up(st);
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

/* PASSIVE checkpoints when the writer's WAL hook asks: never waits for
 * the writer, copies what is committed, lets the next write transaction
 * start the WAL over once everything is copied. */
static void *ckpt_main(void *arg)
{
	struct store *st = arg;

	pthread_mutex_lock(&st->lock);
	for (;;) {
		while (!st->ckpt_wanted && !st->ckpt_stop)
			pthread_cond_wait(&st->ckpt_cond, &st->lock);
		if (st->ckpt_stop)
			break;
		st->ckpt_wanted = 0;
		pthread_mutex_unlock(&st->lock);
		sqlite3_wal_checkpoint_v2(st->ckpt_db, NULL,
					  SQLITE_CHECKPOINT_PASSIVE, NULL,
					  NULL);
		pthread_mutex_lock(&st->lock);
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

/* Start the checkpointer; without it (an in-memory database, or a failure
 * here) the writer checkpoints inline, as SQLite would: not an error. */
static void ckpt_start(struct store *st)
{
	sqlite3 *db = NULL;
	const char *file = sqlite3_db_filename(st->db, "main");

	if (!file || !*file)
		return;		/* :memory: */
	if (sqlite3_open_v2(file, &db, SQLITE_OPEN_READWRITE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		sqlite3_close(db);
		return;
	}
	st->ckpt_db = db;
	st->ckpt_stop = st->ckpt_wanted = 0;
	if (pthread_create(&st->ckpt_thread, NULL, ckpt_main, st)) {
		st->ckpt_db = NULL;
		sqlite3_close(db);
	}
}

/* After the writer is joined. */
static void ckpt_stop(struct store *st)
{
	sqlite3 *db = st->ckpt_db;

	if (!db)
		return;
	pthread_mutex_lock(&st->lock);
	st->ckpt_stop = 1;
	pthread_cond_signal(&st->ckpt_cond);
	pthread_mutex_unlock(&st->lock);
	pthread_join(st->ckpt_thread, NULL);
	st->ckpt_db = NULL;
	sqlite3_close(db);
}

int store_start(struct store *st)
{
	int rc;

	if (!st->run_id || st->started || st->run_ended)
		return -EINVAL;
	if (commit_header(st) < 0)
		return -EIO;
	ckpt_start(st);
	rc = pthread_create(&st->thread, NULL, writer_main, st);
	if (rc) {
		ckpt_stop(st);
		return -rc;
	}
	st->started = 1;
	return 0;
}

/* ---------------------------------------------------------------- producers */

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
			unlink_stream(st, e->ss);
			free(e->ss);
		}
		pthread_mutex_unlock(&st->lock);
		return -ESHUTDOWN;
	}
	if (!st->count)
		st->oldest_ns = mono_now();
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
	size_t len;
	int rc;

	*out = NULL;
	len = strlen(comm);
	ss = malloc(sizeof(*ss) + len + 1);
	if (!ss)
		return -ENOMEM;
	ss->st = st;
	ss->timeline_id = timeline_id;
	ss->opened_ns = opened_ns;
	ss->row_id = 0;
	ss->pid = who->pid;
	ss->tid = who->tid;
	ss->sid = who->sid;
	memcpy(ss->comm, comm, len + 1);
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
		unlink_stream(st, ss);
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

/* ---------------------------------------------------------------- end */

/* Let the writer finish what is queued and join it (and the
 * checkpointer); the caller owns the connection again after. */
static void stop_writer(struct store *st)
{
	if (!st->started)
		return;
	pthread_mutex_lock(&st->lock);
	st->stopping = 1;
	pthread_cond_signal(&st->nonempty);
	pthread_mutex_unlock(&st->lock);
	pthread_join(st->thread, NULL);
	st->started = 0;
	ckpt_stop(st);
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
	hdr = commit_header(st);
	stop_writer(st);
	/* Refuse new entries and wake producers still blocked on a full
	 * queue, then write what they queued after the writer's last look. */
	pthread_mutex_lock(&st->lock);
	st->ended = 1;
	pthread_cond_broadcast(&st->notfull);
	pthread_mutex_unlock(&st->lock);
	if (hdr == 0)
		drain_sync(st);
	st->run_ended = 1;
	if (hdr < 0)
		return -EIO;
	if (!st->run_id)
		return 0;

	store_get_stats(st, &stats);
	iso_now(ended, sizeof(ended));
	bind_text(s, 1, ended, &rc);
	bind_i64(s, 2, rel_ns(st, end_ns), &rc);
	bind_i64(s, 3, (int64_t)stats.queue_full_waits, &rc);
	bind_i64(s, 4, (int64_t)stats.rows_lost, &rc);
	bind_i64(s, 5, st->run_id, &rc);
	step_done(st->db, s, "update run row", &rc, &msg);
	if (rc != SQLITE_OK) {
		keep_error(st, msg);
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
	stop_writer(st);
	pthread_mutex_lock(&st->lock);
	st->ended = 1;
	pthread_mutex_unlock(&st->lock);
	st->run_ended = 1;
	if (st->header_open) {
		/* never committed: nobody saw the rows */
		st->header_open = 0;
		rollback_open(st);
		st->run_id = 0;
		return 0;
	}
	step_done(st->db, st->stmt[STMT_BEGIN], "begin transaction", &rc,
		  &msg);
	bind_i64(st->stmt[STMT_TIMELINE_DEL], 1, st->run_id, &rc);
	step_done(st->db, st->stmt[STMT_TIMELINE_DEL], "delete timeline rows",
		  &rc, &msg);
	bind_i64(st->stmt[STMT_PROBLEM_DEL], 1, st->run_id, &rc);
	step_done(st->db, st->stmt[STMT_PROBLEM_DEL], "delete problem rows",
		  &rc, &msg);
	bind_i64(st->stmt[STMT_ENV_DEL], 1, st->run_id, &rc);
	step_done(st->db, st->stmt[STMT_ENV_DEL], "delete run_env rows", &rc,
		  &msg);
	bind_i64(st->stmt[STMT_RUN_DEL], 1, st->run_id, &rc);
	step_done(st->db, st->stmt[STMT_RUN_DEL], "delete run row", &rc,
		  &msg);
	step_done(st->db, st->stmt[STMT_COMMIT], "commit", &rc, &msg);
	st->run_id = 0;
	if (rc != SQLITE_OK) {
		rollback_open(st);
		keep_error(st, msg);
		return -EIO;
	}
	return 0;
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
		store_run_end(st, mono_now());
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
