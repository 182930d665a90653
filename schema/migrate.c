/* SPDX-License-Identifier: MIT */
/*
 * The schema's versions: applies the .sql files of schema/ (compiled in)
 * to a new or older database file and upgrades what CREATE ... IF NOT
 * EXISTS cannot (added columns, changed views); refuses a newer file.
 */
#include <stdio.h>
#include <string.h>

#include "store_i.h"

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
		/* version 6 */
		{ "stream", "file", "TEXT" },
		/* version 7 */
		{ "access", "played", "INTEGER" },
		/* version 8 */
		{ "access", "dep", "INTEGER NOT NULL DEFAULT 0" },
		/* version 10 */
		{ "access", "op", "INTEGER NOT NULL DEFAULT 0" },
		{ "access", "image", "INTEGER" },
		/* version 11 */
		{ "stream", "kind", "TEXT NOT NULL DEFAULT 'play'" },
		{ "stream", "writer_drops", "INTEGER" },
		/* version 12: many hosts */
		{ "run", "uuid", "TEXT" },
		{ "run", "t0_unix_ns", "INTEGER" },
		{ "run", "host_id", "INTEGER REFERENCES host(id)" },
		{ "bench_step", "experiment_id",
		  "INTEGER REFERENCES experiment(id)" },
		{ "bench_step", "step_no", "INTEGER" },
		{ "bench_step", "total_workstations", "INTEGER" },
		{ "bench_step", "planned_unix_ns", "INTEGER" },
		/* version 15 */
		{ "stream", "reader_late_frames", "INTEGER" },
		/* version 16: the evidence */
		{ "access", "wake_ns", "INTEGER" },
		{ "access", "ring_fill", "INTEGER" },
		{ "stream", "ring_frames", "INTEGER" },
	};
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < sizeof(cols) / sizeof(cols[0]) && rc == SQLITE_OK; i++)
		rc = add_column(db, cols[i][0], cols[i][1], cols[i][2]);
	return rc;
}

/* Drop every view the schema creates (their names from its text, "CREATE
 * VIEW IF NOT EXISTS name"): a view of the user's own stays. */
static int drop_views(sqlite3 *db)
{
	static const char key[] = "CREATE VIEW IF NOT EXISTS ";
	const char *p = store_schema_sql, *e;
	char sql[128];
	int rc = SQLITE_OK;

	while (rc == SQLITE_OK && (p = strstr(p, key))) {
		p += sizeof(key) - 1;
		for (e = p; *e && *e != ' ' && *e != '\n'; e++)
			;
		if ((size_t)(e - p) > sizeof(sql) - 32)
			return SQLITE_ERROR;
		snprintf(sql, sizeof(sql), "DROP VIEW IF EXISTS %.*s",
			 (int)(e - p), p);
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	}
	return rc;
}

int store_migrate(sqlite3 *db, int *newer)
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
		/* before NAME.mov every stream read its timeline's file */
		{ 6, "UPDATE stream SET file = (SELECT name FROM timeline "
		     "WHERE timeline.id = stream.timeline_id) "
		     "WHERE file IS NULL" },
		/* late_access shows access.played; late_frame and
		 * timeseries count the played frames' late reads, once per
		 * play */
		{ 7, "DROP VIEW IF EXISTS late_frame;"
		     "DROP VIEW IF EXISTS late_access;"
		     "DROP VIEW IF EXISTS timeseries" },
		/* access_v, late_access show access.dep; the summaries
		 * count decoding dependency reads apart (dep_accesses) */
		{ 8, "DROP VIEW IF EXISTS late_frame;"
		     "DROP VIEW IF EXISTS late_access;"
		     "DROP VIEW IF EXISTS stream_summary;"
		     "DROP VIEW IF EXISTS run_summary;"
		     "DROP VIEW IF EXISTS access_v" },
		/* access_v, late_access show access.op and image; the
		 * summaries count opens, header reads and closes apart */
		{ 10, "DROP VIEW IF EXISTS late_frame;"
		      "DROP VIEW IF EXISTS late_access;"
		      "DROP VIEW IF EXISTS stream_summary;"
		      "DROP VIEW IF EXISTS run_summary;"
		      "DROP VIEW IF EXISTS access_v" },
		/* ingest: stream.kind and writer_drops shown, play and
		 * record apart, receive and await rows out of the
		 * percentiles (late_access selects from access_cut, so both
		 * go, and cut_latency); an older file's streams were all
		 * play streams, none of whose frames a writer dropped */
		{ 11, "DROP VIEW IF EXISTS late_frame;"
		      "DROP VIEW IF EXISTS late_access;"
		      "DROP VIEW IF EXISTS cut_latency;"
		      "DROP VIEW IF EXISTS access_cut;"
		      "DROP VIEW IF EXISTS timeseries;"
		      "DROP VIEW IF EXISTS track_latency;"
		      "DROP VIEW IF EXISTS run_track_latency;"
		      "DROP VIEW IF EXISTS bench_step_summary;"
		      "DROP VIEW IF EXISTS op_summary;"
		      "DROP VIEW IF EXISTS stream_summary;"
		      "DROP VIEW IF EXISTS run_summary;"
		      "DROP VIEW IF EXISTS access_v;"
		      "UPDATE stream SET writer_drops = 0 "
		      "WHERE writer_drops IS NULL AND closed_ns IS NOT NULL" },
		/* a late read issued late behind the stream's own late
		 * reads (a backlog) is the storage's, not the issue's */
		{ 14, "DROP VIEW IF EXISTS late_frame;"
		      "DROP VIEW IF EXISTS late_access" },
		/* stream_summary shows reader_late_frames; bench_client is
		 * a table the schema makes in an older file as it is */
		{ 15, "DROP VIEW IF EXISTS stream_summary" },
		/* the causes timer and reader from the evidence;
		 * the frames' headroom in the summaries */
		{ 16, "DROP VIEW IF EXISTS late_frame;"
		      "DROP VIEW IF EXISTS late_access;"
		      "DROP VIEW IF EXISTS bench_step_summary;"
		      "DROP VIEW IF EXISTS stream_summary;"
		      "DROP VIEW IF EXISTS run_summary" },
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
	/* versions 13 and 17 added tables (calibration, bench_probe) and
	 * a view of its own (bench_probe_summary), which the schema's
	 * CREATE ... IF NOT EXISTS above makes in an older file: nothing of
	 * them to change; so is bench_client_play, a view of columns every
	 * file has had since version 15, added at 17 */
	/* version 12 (many hosts) changed views of every file (the runs'
	 * hosts and times on one axis, the experiments' steps): all of an
	 * older file's views go, whichever they were, and come back from the
	 * schema; a view is only a query, so nothing of the data is lost */
	if (rc == SQLITE_OK && version < 12) {
		rc = drop_views(db);
		again = 1;
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
