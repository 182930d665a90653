/* SPDX-License-Identifier: MIT */
/*
 * experiment.h (hosts_step_*): the launcher's own queries of a host's
 * database (the timelines' play times, a step's repetition, its late
 * frames by cause, the copy sent to rank 0).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "experiment.h"

#define BUSY_MS 5000

static void set_err(char **errmsg, const char *fmt, ...)
{
	va_list ap;

	if (!errmsg)
		return;
	free(*errmsg);
	*errmsg = NULL;
	va_start(ap, fmt);
	if (vasprintf(errmsg, fmt, ap) < 0)
		*errmsg = NULL;
	va_end(ap);
}

static int open_db(const char *db, int flags, sqlite3 **out, char **errmsg)
{
	sqlite3 *c = NULL;
	int rc = sqlite3_open_v2(db, &c, flags, NULL);

	if (rc != SQLITE_OK) {
		set_err(errmsg, "cannot open database %s: %s", db,
			c ? sqlite3_errmsg(c) : sqlite3_errstr(rc));
		sqlite3_close(c);
		return rc == SQLITE_CANTOPEN ? -ENOENT : -EIO;
	}
	sqlite3_busy_timeout(c, BUSY_MS);
	*out = c;
	return 0;
}

static int fail(sqlite3 *c, const char *db, const char *what, char **errmsg)
{
	set_err(errmsg, "%s: %s: %s", db, what, sqlite3_errmsg(c));
	return -EIO;
}

/* db opened (flags) with sql prepared in *st: 0, or open_db's error or
 * -EIO (the file and what failed said; nothing left open). */
static int open_stmt(const char *db, int flags, const char *sql,
		     const char *what, sqlite3 **c, sqlite3_stmt **st,
		     char **errmsg)
{
	int rc = open_db(db, flags, c, errmsg);

	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(*c, sql, -1, st, NULL) != SQLITE_OK) {
		rc = fail(*c, db, what, errmsg);
		sqlite3_close(*c);
		*c = NULL;
		*st = NULL;
	}
	return rc;
}

int hosts_step_timelines(const char *db, double *sec, size_t cap, size_t *n,
			 char **errmsg)
{
	sqlite3 *c = NULL;
	sqlite3_stmt *st = NULL;
	int rc, found = 0;
	size_t k = 0;

	/* the bench's order: its timelines sorted with LC_ALL=C sort, which
	 * is SQLite's BINARY collation */
	rc = open_stmt(db, SQLITE_OPEN_READONLY,
		       "SELECT r.id, t.name, 1.0 * t.frames * t.fps_den / "
		       "t.fps_num FROM (SELECT max(id) AS id FROM run WHERE "
		       "ended_at IS NULL) r LEFT JOIN timeline t ON t.run_id = "
		       "r.id ORDER BY t.name",
		       "cannot read the timelines", &c, &st, errmsg);
	if (rc < 0)
		return rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			break;
		found = 1;
		if (sqlite3_column_type(st, 1) == SQLITE_NULL)
			continue;
		if (k < cap)
			sec[k++] = sqlite3_column_double(st, 2);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		rc = fail(c, db, "cannot read the timelines", errmsg);
		goto out;
	}
	if (!found) {
		set_err(errmsg, "%s: no open run (is the mount there?)", db);
		rc = -ENOENT;
		goto out;
	}
	*n = k;
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(c);
	return rc;
}

int hosts_step_repetition(const char *db, int64_t run_id, int64_t after_step,
			  int rep, char **errmsg)
{
	sqlite3 *c = NULL;
	sqlite3_stmt *st = NULL;
	int rc;

	rc = open_stmt(db, SQLITE_OPEN_READWRITE,
		       "UPDATE bench_step SET repetition = ? WHERE run_id = ? "
		       "AND id > ?",
		       "cannot set the step's repetition", &c, &st, errmsg);
	if (rc < 0)
		return rc;
	sqlite3_bind_int(st, 1, rep);
	sqlite3_bind_int64(st, 2, run_id);
	sqlite3_bind_int64(st, 3, after_step);
	if (sqlite3_step(st) != SQLITE_DONE) {
		rc = fail(c, db, "cannot set the step's repetition", errmsg);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(c);
	return rc;
}

int hosts_step_late_causes(const char *db, int64_t experiment_id, int step_no,
			   const char *const *causes, size_t n, int64_t *counts,
			   char **errmsg)
{
	sqlite3 *c = NULL;
	sqlite3_stmt *st = NULL;
	const char *cause;
	size_t i;
	int rc;

	/* the play streams' late frames, as the step's late_frames count
	 * them; a recording's dropped frames are no late frame of a play */
	rc = open_stmt(db, SQLITE_OPEN_READONLY,
		       "SELECT f.cause, count(*) FROM late_frame f JOIN "
		       "bench_stream b ON b.stream_id = f.stream_id JOIN "
		       "bench_step s ON s.id = b.step_id WHERE "
		       "s.experiment_id = ? AND s.step_no = ? AND f.kind = "
		       "'play' GROUP BY f.cause",
		       "cannot read the late frames' causes", &c, &st, errmsg);
	if (rc < 0)
		return rc;
	sqlite3_bind_int64(st, 1, experiment_id);
	sqlite3_bind_int(st, 2, step_no);
	for (i = 0; i < n; i++)
		counts[i] = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cause = (const char *)sqlite3_column_text(st, 0);
		for (i = 0; cause && i < n; i++)
			if (!strcmp(cause, causes[i]))
				counts[i] = sqlite3_column_int64(st, 1);
	}
	if (rc != SQLITE_DONE) {
		rc = fail(c, db, "cannot read the late frames' causes", errmsg);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(c);
	return rc;
}

int hosts_step_snapshot(const char *db, const char *out, char **errmsg)
{
	sqlite3 *c = NULL;
	sqlite3_stmt *st = NULL;
	int rc;

	rc = open_stmt(db, SQLITE_OPEN_READONLY, "VACUUM INTO ?",
		       "cannot copy the database", &c, &st, errmsg);
	if (rc < 0)
		return rc;
	sqlite3_bind_text(st, 1, out, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE) {
		set_err(errmsg, "cannot copy database %s to %s: %s", db, out,
			sqlite3_errmsg(c));
		rc = -EIO;
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(c);
	return rc;
}
