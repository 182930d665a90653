/* SPDX-License-Identifier: MIT */
/*
 * WAL checkpoints beside the writer: a thread with its own connection
 * copies the WAL into the database when the writer's commit hook asks,
 * instead of SQLite's autocheckpoint inside the writer's commit.
 */

#include "store_i.h"

/* WAL checkpoints: the checkpointer thread is asked for one once the WAL
 * holds STORE_CKPT_PAGES frames (SQLite's own default threshold); should
 * it fall behind, the writer checkpoints itself at STORE_CKPT_PAGES_MAX,
 * so the WAL stays bounded as with SQLite's autocheckpoint. */
#define STORE_CKPT_PAGES 1000
#define STORE_CKPT_PAGES_MAX 8000

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

void store_ckpt_hook(struct store *st)
{
	sqlite3_wal_hook(st->db, wal_hook, st);
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
void store_ckpt_start(struct store *st)
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
void store_ckpt_stop(struct store *st)
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
