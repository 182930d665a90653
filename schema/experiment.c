/* SPDX-License-Identifier: MIT */
/*
 * Many hosts (experiment.h): the experiment and host rows of a host's database
 * as timelinefs-hosts writes them, the tags of its bench steps and what a
 * host played in a step.  Each handle is its own connection, beside the
 * daemon's on the same file: the daemon holds no long transaction (the
 * writer's are a batch), so the 5 s busy timeout covers its commits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"
#include "store_i.h"

#define HOSTS_BUSY_TIMEOUT_MS 5000

int hosts_fail(struct hosts_db *h, char **errmsg, const char *what)
{
	if (errmsg && !*errmsg)
		*errmsg = store_fmt_msg("%s: cannot %s: %s", h->path, what,
					sqlite3_errmsg(h->db));
	return -EIO;
}

/* one row of integers of SQL formatted with sch: the first n */
static int kind_row(sqlite3 *db, const char *fmt, const char *sch, int64_t *v,
		    int n)
{
	sqlite3_stmt *s = NULL;
	char *sql;
	int rc, i;

	sql = sqlite3_mprintf(fmt, sch, sch);
	if (!sql)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	sqlite3_free(sql);
	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		for (i = 0; i < n; i++)
			v[i] = sqlite3_column_int64(s, i);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	return rc;
}

int store_kind_of(sqlite3 *db, const char *sch, struct store_kind *k)
{
	int64_t v[2];
	int rc;

	*k = (struct store_kind){0};
	/* pragma_user_version() reads main's whatever its schema: the
	 * PRAGMA statement names the attached one */
	rc = kind_row(db,
		      "SELECT (SELECT count(*) FROM \"%w\".sqlite_schema), "
		      "(SELECT count(*) FROM \"%w\".sqlite_schema WHERE "
		      "type = 'table' AND name = 'run')",
		      sch, v, 2);
	if (rc != SQLITE_OK)
		return rc;
	k->objects = v[0];
	k->runs = v[1];
	return kind_row(db, "PRAGMA \"%w\".user_version", sch, &k->version, 1);
}

/* A file that is neither empty nor a timelinefs database is someone
 * else's: the schema is not written into it (store_migrate refuses a
 * newer version).  0, -EINVAL with the reason, -EIO (SQLite could not
 * read it). */
static int own_file(struct hosts_db *h, char **errmsg)
{
	struct store_kind k;

	if (store_kind_of(h->db, "main", &k) != SQLITE_OK) {
		if (errmsg)
			*errmsg = store_fmt_msg("cannot open database %s: %s",
						h->path, sqlite3_errmsg(h->db));
		return -EIO;
	}
	if (!k.objects && !k.version)
		return 0; /* empty: made here */
	if (store_kind_ours(&k))
		return 0;
	if (errmsg)
		*errmsg = store_fmt_msg(
		    k.runs ? "cannot open database %s: not a timelinefs "
			     "database (schema version %lld)"
			   : "cannot open database %s: not a timelinefs "
			     "database (it has no table run)",
		    h->path, (long long)k.version);
	return -EINVAL;
}

int hosts_db_open(const char *path, struct hosts_db **out, char **errmsg)
{
	struct hosts_db *h;
	const char *why;
	int rc, newer = 0, fd, e;

	*out = NULL;
	if (errmsg)
		*errmsg = NULL;
	h = calloc(1, sizeof(*h));
	if (!h || !(h->path = strdup(path))) {
		free(h);
		return -ENOMEM;
	}
	/* created 0600, as store_open does: the runs' command lines and
	 * hosts are no one else's business */
	fd = strcmp(path, ":memory:")
		 ? open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)
		 : -2;
	if (fd == -1) {
		e = errno;
		if (errmsg)
			*errmsg = store_fmt_msg("cannot open database %s: %s",
						path, strerror(e));
		hosts_db_close(h);
		return -e;
	}
	if (fd >= 0)
		close(fd);
	/* URIs: merge.c attaches its source read-only by one */
	rc = sqlite3_open_v2(
	    path, &h->db,
	    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_busy_timeout(h->db, HOSTS_BUSY_TIMEOUT_MS);
	/* before anything is written: WAL mode changes the header */
	if (rc == SQLITE_OK) {
		rc = own_file(h, errmsg);
		if (rc < 0) {
			hosts_db_close(h);
			return rc;
		}
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(h->db,
				  "PRAGMA journal_mode = WAL;"
				  "PRAGMA synchronous = NORMAL;",
				  NULL, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = store_migrate(h->db, &newer);
	if (rc == SQLITE_OK) {
		*out = h;
		return 0;
	}
	why = h->db ? sqlite3_errmsg(h->db) : sqlite3_errstr(rc);
	if (errmsg && newer)
		*errmsg = store_fmt_msg("cannot open database %s: schema "
					"version %d is newer than this "
					"timelinefs supports (%d)",
					path, newer, STORE_SCHEMA_VERSION);
	else if (errmsg)
		*errmsg =
		    store_fmt_msg("cannot open database %s: %s", path, why);
	if (h->db && !sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	hosts_db_close(h);
	return newer ? -ENOTSUP : -EIO;
}

void hosts_db_close(struct hosts_db *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h->path);
	free(h);
}

/* Sticky binds of what experiment.h calls "none": NULL text, v < 0. */
static void bind_i64_or_null(sqlite3_stmt *s, int i, int64_t v, int null,
			     int *rc)
{
	if (*rc == SQLITE_OK)
		*rc = null ? sqlite3_bind_null(s, i)
			   : sqlite3_bind_int64(s, i, v);
}

/* Prepare sql, or the reason in *errmsg. */
static int prep(struct hosts_db *h, const char *sql, sqlite3_stmt **s,
		char **errmsg)
{
	if (sqlite3_prepare_v2(h->db, sql, -1, s, NULL) == SQLITE_OK)
		return 0;
	*s = NULL;
	return hosts_fail(h, errmsg, "prepare a statement");
}

/* Step a statement that returns no row, finalize it. */
static int done(struct hosts_db *h, sqlite3_stmt *s, int rc, char **errmsg,
		const char *what)
{
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc != SQLITE_OK)
		hosts_fail(h, errmsg, what);
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : -EIO;
}

/* The single integer a statement returns (*v untouched for no row):
 * 0, -ENOENT (no row) or -EIO. */
static int one_i64(struct hosts_db *h, sqlite3_stmt *s, int rc, int64_t *v,
		   char **errmsg, const char *what)
{
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			*v = sqlite3_column_int64(s, 0);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		hosts_fail(h, errmsg, what);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : -EIO;
}

static int begin(struct hosts_db *h, char **errmsg)
{
	if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) ==
	    SQLITE_OK)
		return 0;
	return hosts_fail(h, errmsg, "begin a transaction");
}

static int end(struct hosts_db *h, int rc, char **errmsg)
{
	if (rc == 0 &&
	    sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = hosts_fail(h, errmsg, "commit");
	if (rc != 0 && !sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

int hosts_experiment_put(struct hosts_db *h, const struct hosts_experiment *e,
			 int64_t *id, char **errmsg)
{
	sqlite3_stmt *s;
	char now[40];
	int rc = SQLITE_OK, r;

	if (!e->uuid || !e->plan || e->ranks < 1)
		return -EINVAL;
	store_iso_now(now, sizeof(now));
	r = begin(h, errmsg);
	if (r == 0)
		r = prep(h,
			 "INSERT INTO experiment (uuid, started_at, "
			 "ended_at, ranks, machines, command, plan, max_lo, "
			 "max_hi, verdict) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
			 "?) ON CONFLICT (uuid) DO UPDATE SET "
			 "ended_at = coalesce(excluded.ended_at, ended_at), "
			 "machines = coalesce(excluded.machines, machines), "
			 "max_lo = coalesce(excluded.max_lo, max_lo), "
			 "max_hi = coalesce(excluded.max_hi, max_hi), "
			 "verdict = coalesce(excluded.verdict, verdict)",
			 &s, errmsg);
	if (r == 0) {
		store_bind_text(s, 1, e->uuid, &rc);
		store_bind_text(s, 2, e->started_at ? e->started_at : now, &rc);
		store_bind_text(s, 3, e->ended_at, &rc);
		store_bind_i64(s, 4, e->ranks, &rc);
		bind_i64_or_null(s, 5, e->machines, e->machines < 0, &rc);
		store_bind_text(s, 6, e->command, &rc);
		store_bind_text(s, 7, e->plan, &rc);
		bind_i64_or_null(s, 8, e->max_lo, e->max_lo < 0, &rc);
		bind_i64_or_null(s, 9, e->max_hi, e->max_hi < 0, &rc);
		store_bind_text(s, 10, e->verdict, &rc);
		r = done(h, s, rc, errmsg, "write the experiment row");
	}
	if (r == 0)
		r = prep(h, "SELECT id FROM experiment WHERE uuid = ?", &s,
			 errmsg);
	if (r == 0) {
		rc = SQLITE_OK;
		store_bind_text(s, 1, e->uuid, &rc);
		r = one_i64(h, s, rc, id, errmsg, "read the experiment row");
		r = r == -ENOENT ? -EIO : r;
	}
	return end(h, r, errmsg);
}

/* The columns of a host row after id, bound from host from index i. */
static void bind_host(sqlite3_stmt *s, int i, const struct hosts_host *x,
		      int *rc)
{
	bind_i64_or_null(s, i, x->experiment_id, x->experiment_id == 0, rc);
	bind_i64_or_null(s, i + 1, x->rank, x->rank < 0, rc);
	store_bind_text(s, i + 2, x->name ? x->name : "?", rc);
	store_bind_text(s, i + 3, x->machine_id, rc);
	store_bind_text(s, i + 4, x->boot_id, rc);
	bind_i64_or_null(s, i + 5, x->offset_start_ns, !x->has_start, rc);
	bind_i64_or_null(s, i + 6, x->rtt_start_ns, !x->has_start, rc);
	bind_i64_or_null(s, i + 7, x->t_start_ns, !x->has_start, rc);
	bind_i64_or_null(s, i + 8, x->offset_end_ns, !x->has_end, rc);
	bind_i64_or_null(s, i + 9, x->rtt_end_ns, !x->has_end, rc);
	bind_i64_or_null(s, i + 10, x->t_end_ns, !x->has_end, rc);
	store_bind_text(s, i + 11, x->sync, rc);
	bind_i64_or_null(s, i + 12, x->sync_error_us, x->sync_error_us < 0, rc);
	store_bind_i64(s, i + 13, x->complete ? 1 : 0, rc);
	store_bind_text(s, i + 14, x->complete ? NULL : x->reason, rc);
}

int hosts_host_put(struct hosts_db *h, const struct hosts_host *host,
		   int64_t *id, char **errmsg)
{
	sqlite3_stmt *s;
	int64_t old = 0;
	int rc = SQLITE_OK, r;

	if (!host->name)
		return -EINVAL;
	r = begin(h, errmsg);
	/* the row of (experiment, rank), or outside an experiment the one
	 * of (name, machine) as the mount's own (run.c): replaced in place,
	 * so that run.host_id still names it */
	if (r == 0 && host->experiment_id && host->rank >= 0)
		r = prep(h,
			 "SELECT id FROM host WHERE experiment_id = ? AND "
			 "rank = ?",
			 &s, errmsg);
	else if (r == 0)
		r = prep(h,
			 "SELECT id FROM host WHERE experiment_id IS ? AND "
			 "rank IS ? AND name = ? AND machine_id IS ? "
			 "ORDER BY id LIMIT 1",
			 &s, errmsg);
	if (r == 0) {
		bind_i64_or_null(s, 1, host->experiment_id,
				 host->experiment_id == 0, &rc);
		bind_i64_or_null(s, 2, host->rank, host->rank < 0, &rc);
		if (!(host->experiment_id && host->rank >= 0)) {
			store_bind_text(s, 3, host->name, &rc);
			store_bind_text(s, 4, host->machine_id, &rc);
		}
		r = one_i64(h, s, rc, &old, errmsg, "read the host row");
		if (r == -ENOENT)
			r = 0;
	}
	if (r == 0 && old)
		r = prep(h,
			 "UPDATE host SET experiment_id = ?, rank = ?, "
			 "name = ?, machine_id = ?, boot_id = ?, "
			 "offset_start_ns = ?, rtt_start_ns = ?, "
			 "t_start_ns = ?, offset_end_ns = ?, rtt_end_ns = ?, "
			 "t_end_ns = ?, sync = ?, sync_error_us = ?, "
			 "complete = ?, reason = ? WHERE id = ?",
			 &s, errmsg);
	else if (r == 0)
		r = prep(h,
			 "INSERT INTO host (experiment_id, rank, name, "
			 "machine_id, boot_id, offset_start_ns, rtt_start_ns, "
			 "t_start_ns, offset_end_ns, rtt_end_ns, t_end_ns, "
			 "sync, sync_error_us, complete, reason) VALUES (?, "
			 "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			 &s, errmsg);
	if (r == 0) {
		rc = SQLITE_OK;
		bind_host(s, 1, host, &rc);
		if (old)
			store_bind_i64(s, 16, old, &rc);
		r = done(h, s, rc, errmsg, "write the host row");
	}
	if (r == 0)
		*id = old ? old : sqlite3_last_insert_rowid(h->db);
	return end(h, r, errmsg);
}

int hosts_open_run(struct hosts_db *h, int64_t *run_id, char **errmsg)
{
	sqlite3_stmt *s;
	int r;

	r = prep(h,
		 "SELECT id FROM run WHERE ended_at IS NULL "
		 "ORDER BY id DESC LIMIT 1",
		 &s, errmsg);
	if (r == 0)
		r = one_i64(h, s, SQLITE_OK, run_id, errmsg,
			    "read the open run");
	if (r == -ENOENT && errmsg && !*errmsg)
		*errmsg = store_fmt_msg("%s: no run that has not ended (is "
					"the mount's daemon running?)",
					h->path);
	return r;
}

int hosts_last_step(struct hosts_db *h, int64_t *step_id, char **errmsg)
{
	sqlite3_stmt *s;
	int r;

	r = prep(h, "SELECT coalesce(max(id), 0) FROM bench_step", &s, errmsg);
	if (r == 0)
		r = one_i64(h, s, SQLITE_OK, step_id, errmsg,
			    "read the last bench step");
	return r;
}

int hosts_tag_steps(struct hosts_db *h, int64_t run_id, int64_t after_step,
		    int64_t experiment_id, int64_t host_id, int step_no,
		    int total_workstations, int64_t planned_unix_ns,
		    char **errmsg)
{
	sqlite3_stmt *s;
	int rc = SQLITE_OK, r;

	r = begin(h, errmsg);
	if (r == 0)
		r = prep(h,
			 "UPDATE bench_step SET experiment_id = ?, "
			 "step_no = ?, total_workstations = ?, "
			 "planned_unix_ns = ? WHERE run_id = ? AND id > ?",
			 &s, errmsg);
	if (r == 0) {
		store_bind_i64(s, 1, experiment_id, &rc);
		store_bind_i64(s, 2, step_no, &rc);
		store_bind_i64(s, 3, total_workstations, &rc);
		store_bind_i64(s, 4, planned_unix_ns, &rc);
		store_bind_i64(s, 5, run_id, &rc);
		store_bind_i64(s, 6, after_step, &rc);
		r = done(h, s, rc, errmsg, "tag the bench steps");
	}
	if (r == 0)
		r = prep(h, "UPDATE run SET host_id = ? WHERE id = ?", &s,
			 errmsg);
	if (r == 0) {
		rc = SQLITE_OK;
		store_bind_i64(s, 1, host_id, &rc);
		store_bind_i64(s, 2, run_id, &rc);
		r = done(h, s, rc, errmsg, "set the run's host");
	}
	return end(h, r, errmsg);
}

int hosts_share_put(struct hosts_db *h, int64_t experiment_id, int step_no,
		    int rank, int workstations, int repetition,
		    int total_workstations, int64_t planned_unix_ns,
		    char **errmsg)
{
	sqlite3_stmt *s;
	int rc = SQLITE_OK, r;

	if (experiment_id < 1 || step_no < 0 || rank < 0 || workstations < 0 ||
	    repetition < 0 || total_workstations < 0)
		return -EINVAL;
	/* one statement: no transaction of its own needed */
	r = prep(h,
		 "INSERT OR REPLACE INTO experiment_share (experiment_id, "
		 "step_no, rank, workstations, repetition, "
		 "total_workstations, planned_unix_ns) VALUES (?, ?, ?, ?, ?, "
		 "?, ?)",
		 &s, errmsg);
	if (r < 0)
		return r;
	store_bind_i64(s, 1, experiment_id, &rc);
	store_bind_i64(s, 2, step_no, &rc);
	store_bind_i64(s, 3, rank, &rc);
	store_bind_i64(s, 4, workstations, &rc);
	store_bind_i64(s, 5, repetition, &rc);
	store_bind_i64(s, 6, total_workstations, &rc);
	store_bind_i64(s, 7, planned_unix_ns, &rc);
	return done(h, s, rc, errmsg, "write the step's share");
}

int hosts_step_result(struct hosts_db *h, int64_t experiment_id, int step_no,
		      struct hosts_step_result *r, char **errmsg)
{
	/* the step's rows and span, from its first open to its last close
	 * on this host's realtime clock; then its streams' totals as
	 * bench_step_summary counts them (late the play streams', dropped
	 * the record streams'), summed here: the view ranks every access
	 * of every step for its percentiles, which this needs none of */
	static const char *const sql[2] = {
	    "SELECT count(*), sum(s.workstations), "
	    "min(r.t0_unix_ns + s.started_ns), "
	    "max(r.t0_unix_ns + s.ended_ns), "
	    "(max(s.ended_ns) - min(s.started_ns)) / 1e9 "
	    "FROM bench_step s JOIN run r ON r.id = s.run_id "
	    "WHERE s.experiment_id = ? AND s.step_no = ?",
	    "SELECT sum(t.frames), sum(CASE WHEN t.kind = 'play' THEN "
	    "t.late_frames END), sum(CASE WHEN t.kind = 'record' THEN "
	    "t.late_frames END), sum(t.failed_frames), sum(t.bytes) "
	    "FROM bench_step s JOIN bench_stream b ON b.step_id = s.id "
	    "JOIN stream t ON t.id = b.stream_id "
	    "WHERE s.experiment_id = ? AND s.step_no = ?",
	};
	struct hosts_step_result out;
	sqlite3_stmt *s;
	int i, rc, e;

	memset(&out, 0, sizeof(out));
	for (i = 0; i < 2; i++) {
		e = prep(h, sql[i], &s, errmsg);
		if (e < 0)
			return e;
		rc = SQLITE_OK;
		store_bind_i64(s, 1, experiment_id, &rc);
		store_bind_i64(s, 2, step_no, &rc);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(s);
		if (rc != SQLITE_ROW) {
			hosts_fail(h, errmsg, "read a step's result");
			sqlite3_finalize(s);
			return -EIO;
		}
		if (i == 0 && sqlite3_column_int64(s, 0) == 0) {
			sqlite3_finalize(s);
			if (errmsg && !*errmsg)
				*errmsg = store_fmt_msg(
				    "%s: no bench step %d of experiment "
				    "%lld",
				    h->path, step_no, (long long)experiment_id);
			return -ENOENT;
		}
		if (i == 0) {
			out.workstations = sqlite3_column_int(s, 1);
			out.start_unix_ns = sqlite3_column_int64(s, 2);
			out.end_unix_ns = sqlite3_column_int64(s, 3);
			out.wall_s = sqlite3_column_double(s, 4);
		} else {
			out.frames = sqlite3_column_int64(s, 0);
			out.late_frames = sqlite3_column_int64(s, 1);
			out.dropped_frames = sqlite3_column_int64(s, 2);
			out.failed_frames = sqlite3_column_int64(s, 3);
			out.bytes = sqlite3_column_int64(s, 4);
		}
		sqlite3_finalize(s);
	}
	*r = out;
	return 0;
}

int hosts_mark_incomplete(struct hosts_db *h, const struct hosts_host *host,
			  char **errmsg)
{
	struct hosts_host x = *host;
	sqlite3_stmt *s;
	int64_t id;
	int rc = SQLITE_OK, r;

	if (!x.experiment_id || x.rank < 0 || !x.reason)
		return -EINVAL;
	x.complete = 0;
	r = begin(h, errmsg);
	/* bind_host's order: ?1 experiment ... ?15 reason (?3 the name and
	 * ?14 complete unused: the row keeps its name, and is not) */
	if (r == 0)
		r = prep(h,
			 "UPDATE host SET complete = 0, reason = ?15, "
			 "machine_id = coalesce(machine_id, ?4), "
			 "boot_id = coalesce(boot_id, ?5), "
			 "offset_start_ns = coalesce(offset_start_ns, ?6), "
			 "rtt_start_ns = coalesce(rtt_start_ns, ?7), "
			 "t_start_ns = coalesce(t_start_ns, ?8), "
			 "offset_end_ns = coalesce(offset_end_ns, ?9), "
			 "rtt_end_ns = coalesce(rtt_end_ns, ?10), "
			 "t_end_ns = coalesce(t_end_ns, ?11), "
			 "sync = coalesce(sync, ?12), "
			 "sync_error_us = coalesce(sync_error_us, ?13) "
			 "WHERE experiment_id = ?1 AND rank = ?2",
			 &s, errmsg);
	if (r == 0) {
		bind_host(s, 1, &x, &rc);
		r = done(h, s, rc, errmsg, "mark the host incomplete");
	}
	r = end(h, r, errmsg);
	if (r == 0 && sqlite3_changes(h->db) == 0)
		r = hosts_host_put(h, &x, &id, errmsg);
	return r;
}
