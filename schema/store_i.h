/* SPDX-License-Identifier: MIT */
/*
 * The store's private contract, shared by its files (store.h is the
 * public one).  Each file has one job:
 *   store.c       the handle: open (connection, statements), stats, close
 *   migrate.c     the schema: versions and the upgrade of an older file
 *   run.c         the run's rows: the header transaction (run, timelines,
 *                 problems, env rows), the run's end and its discard
 *   queue.c       the bounded queue the producers (readers) feed
 *   write.c       one transaction of queued entries (stream, access rows)
 *   hold.c        the outage hold: what the database refused, retried
 *   writer.c      the writer thread, and draining the queue at the end
 *   checkpoint.c  the WAL checkpointer thread
 *   experiment.c  many hosts (experiment.h): the experiment and host rows
 *   merge.c       many hosts: one database merged into another
 * Only files of schema/ include <sqlite3.h>.
 */
#ifndef STORE_I_H
#define STORE_I_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include <sqlite3.h>

#include "store.h"

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

/* the memory cost of the hold docs/reliability.md gives, per row */
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
	int record;		/* stream.kind: 1 'record', 0 'play' */
	const char *file;	/* in comm's block after it; NULL: none */
	char comm[];
};

enum {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_RUN,
	STMT_HOST_OF_RANK,
	STMT_HOST_OWN,
	STMT_HOST_ADD,
	STMT_RUN_END,
	STMT_TIMELINE,
	STMT_TIMELINE_DEL,
	STMT_MEDIA,
	STMT_MEDIA_DEL,
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
#define STORE_ACCESS_COLS 18
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

static inline uint64_t store_mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Times are stored relative to the run's epoch; a time before it (never
 * from the engine) comes out negative rather than wrapped. */
static inline int64_t store_rel_ns(const struct store *st, uint64_t t)
{
	return (int64_t)(t - st->epoch_ns);
}

/*
 * Sticky helpers: each is a no-op once *rc is not SQLITE_OK, so a sequence
 * of binds and a step needs one check at the end.
 */
static inline void store_bind_i64(sqlite3_stmt *s, int i, int64_t v, int *rc)
{
	if (*rc == SQLITE_OK)
		*rc = sqlite3_bind_int64(s, i, v);
}

/* A process, thread or session id; 0 (unknown) is NULL. */
static inline void store_bind_id(sqlite3_stmt *s, int i, pid_t v, int *rc)
{
	if (*rc == SQLITE_OK)
		*rc = v > 0 ? sqlite3_bind_int64(s, i, v) :
			      sqlite3_bind_null(s, i);
}

/* Strings outlive the statement's use of them (the caller's, the model's,
 * or the stream handle's), hence SQLITE_STATIC: no copy per row. */
static inline void store_bind_text(sqlite3_stmt *s, int i, const char *v,
				   int *rc)
{
	if (*rc != SQLITE_OK)
		return;
	if (v)
		*rc = sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
	else
		*rc = sqlite3_bind_null(s, i);
}

/* store.c: a message (malloc'ed, NULL when out of memory); the first
 * failure kept for store_errmsg (msg taken over, -EIO in the stats); a
 * statement that returns no row stepped and reset (sticky *rc, the reason
 * in *msg); the connection's open transaction rolled back, if any. */
char *store_fmt_msg(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void store_keep_error(struct store *st, char *msg);
void store_step_done(sqlite3 *db, sqlite3_stmt *s, const char *what,
		     int *rc, char **msg);
void store_rollback_open(struct store *st);

/* migrate.c: bring the connection's file to STORE_SCHEMA_VERSION, in one
 * transaction; a newer file is refused with *newer set to its version.
 * Returns a SQLite code; on failure the transaction is left open so that
 * the caller can read the message before rolling back. */
int store_migrate(sqlite3 *db, int *newer);

/* run.c: commit the header transaction (0, or -EIO with the rows gone). */
int store_header_commit(struct store *st);

/* queue.c: move up to batch_cap entries to st->batch (under lock),
 * returning how many; take a stream handle off st->streams (under lock). */
size_t store_queue_take(struct store *st);
void store_unlink_stream(struct store *st, struct store_stream *ss);

/* write.c: write n entries in one transaction (without lock): SQLITE_OK,
 * or a SQLite code with it rolled back and the reason in *msg. */
int store_write_chunk(struct store *st, const struct entry *e, size_t n,
		      char **msg);

/* hold.c: write st->batch's n entries or hold them (force: retry the hold
 * now); write the hold, oldest first; give up on it at the run's end.
 * Writer only, or the caller once the writer is joined. */
void store_write_or_hold(struct store *st, size_t n, int force);
void store_hold_flush(struct store *st);
void store_hold_give_up(struct store *st);

/* writer.c: stop and join the writer (and the checkpointer); write what
 * is still queued in the caller's thread, then give up on the hold. */
void store_writer_stop(struct store *st);
void store_drain_sync(struct store *st);

/* checkpoint.c: install the WAL hook on st->db (at open); start the
 * checkpointer with the writer (none for :memory: or on failure: the
 * hook then checkpoints inline); stop it after the writer is joined. */
void store_ckpt_hook(struct store *st);
void store_ckpt_start(struct store *st);
void store_ckpt_stop(struct store *st);

/* experiment.h's handle (experiment.c opens it, merge.c merges into it): a
 * connection of its own, the schema applied; path for messages. */
struct hosts_db {
	sqlite3 *db;
	char *path;
};

/* experiment.c: a message naming the database and SQLite's reason, into
 * *errmsg (when not NULL, the first only); returns -EIO. */
int hosts_fail(struct hosts_db *h, char **errmsg, const char *what);

/* experiment.c: what the database sch ("main", "src": a constant name) of db
 * holds: its objects, its tables named run (0 or 1) and its user_version.
 * A timelinefs database has a table run and a version from 1
 * (store_kind_ours); experiment.c's own_file and merge.c's attach word their
 * refusals each for its caller.  SQLITE_OK, or SQLite's code (a file that
 * is no database fails here: sqlite3_errmsg(db) says why). */
struct store_kind {
	int64_t objects, runs, version;
};
int store_kind_of(sqlite3 *db, const char *sch, struct store_kind *k);

static inline int store_kind_ours(const struct store_kind *k)
{
	return k->runs && k->version >= 1;
}

/* ids.c: started_at's and ended_at's UTC ISO-8601 with milliseconds
 * (2026-12-02T14:45:26.123Z), and a UUID from 16 bytes with its version
 * bits set (4 random, 8 a hash: merge.c's runs from before schema 12). */
void store_iso_now(char *buf, size_t len);
void store_uuid_format(unsigned char b[16], int version, char out[37]);

#endif /* STORE_I_H */
