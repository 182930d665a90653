/* SPDX-License-Identifier: MIT */
/*
 * schema/experiment.h (hosts_step_*), timelinefs-hosts' own queries of a
 * host's database: the play times of the open run's timelines in the
 * bench's order (by name, byte order), capped; no open run (-ENOENT) and
 * a missing file refused with the file named; a step's repetition set on
 * the rows after a given step of one run only; a step's late frames by
 * the late_frame view's cause (its play streams only); the one-file copy (VACUUM
 * INTO) holding the rows, and refused onto an existing file.  Databases
 * are files in a private folder with the store's schema (store_schema_sql,
 * as a mount applies it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "experiment.h"

extern const char store_schema_sql[];

struct tmp {
	char dir[64];
	char db[128];
};

static void exec(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	sqlite3_close(db);
}

static long long scalar(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long v;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->dir, sizeof(t->dir), "/tmp/test_hosts_step.XXXXXX");
	if (!mkdtemp(t->dir))
		return -1;
	snprintf(t->db, sizeof(t->db), "%s/h.db", t->dir);
	exec(t->db, store_schema_sql);
	/* run 1 ended, run 2 open (the mount's): timelines out of order */
	exec(t->db,
	     "INSERT INTO run (id, label, started_at, ended_at) VALUES "
	     "(1, 'x', '2026-01-01T00:00:00.000Z', '2026-01-01T00:01:00.000Z'),"
	     "(2, 'x', '2026-01-01T00:02:00.000Z', NULL);"
	     "INSERT INTO timeline (run_id, name, path, fps_num, fps_den, "
	     "frames, bytes) VALUES "
	     "(1, 'a', 'a', 25, 1, 9999, 1),"
	     "(2, 'timeline10', 't', 25, 1, 50, 1),"
	     "(2, 'Timeline9', 't', 30000, 1001, 30, 1),"
	     "(2, 'timeline02', 't', 24, 1, 12, 1);");
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", t->dir);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

static void test_timelines(void **state)
{
	struct tmp *t = *state;
	double sec[8];
	size_t n = 99;
	char *err = NULL;

	assert_int_equal(hosts_step_timelines(t->db, sec, 8, &n, &err), 0);
	assert_null(err);
	/* the open run's only, in byte order: 'T' before 't' */
	assert_int_equal(n, 3);
	assert_float_equal(sec[0], 30 * 1001 / 30000.0, 1e-9);
	assert_float_equal(sec[1], 0.5, 1e-9);
	assert_float_equal(sec[2], 2.0, 1e-9);
	/* at most cap */
	assert_int_equal(hosts_step_timelines(t->db, sec, 2, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_float_equal(sec[1], 0.5, 1e-9);
}

static void test_timelines_none(void **state)
{
	struct tmp *t = *state;
	double sec[4];
	size_t n = 99;
	char *err = NULL;

	/* an open run without timelines: none */
	exec(t->db, "DELETE FROM timeline WHERE run_id = 2");
	assert_int_equal(hosts_step_timelines(t->db, sec, 4, &n, &err), 0);
	assert_int_equal(n, 0);
	/* no open run: -ENOENT, the file named */
	exec(t->db, "UPDATE run SET ended_at = 'x'");
	n = 99;
	assert_int_equal(hosts_step_timelines(t->db, sec, 4, &n, &err),
			 -ENOENT);
	assert_int_equal(n, 99);
	assert_non_null(err);
	assert_non_null(strstr(err, t->db));
	assert_non_null(strstr(err, "no open run"));
	free(err);
}

static void test_missing_file(void **state)
{
	struct tmp *t = *state;
	char path[160], *err = NULL;
	double sec[1];
	size_t n;

	snprintf(path, sizeof(path), "%s/nope.db", t->dir);
	assert_true(hosts_step_timelines(path, sec, 1, &n, &err) < 0);
	assert_non_null(err);
	assert_non_null(strstr(err, path));
	free(err);
	err = NULL;
	assert_true(hosts_step_repetition(path, 2, 0, 1, &err) < 0);
	assert_non_null(strstr(err, path));
	free(err);
	err = NULL;
	assert_true(hosts_step_late_causes(path, 1, 1, NULL, 0, NULL, &err) <
		    0);
	assert_non_null(strstr(err, path));
	free(err);
	/* not created by a failed call */
	assert_int_not_equal(access(path, F_OK), 0);
}

static void test_repetition(void **state)
{
	struct tmp *t = *state;
	char *err = NULL;

	exec(t->db, "INSERT INTO bench_step (id, run_id, label, workstations, "
		    "repetition) VALUES (1, 2, 'x', 1, 1), (2, 1, 'x', 1, 1), "
		    "(3, 2, 'x', 2, 1), (4, 2, 'x', 2, 1)");
	assert_int_equal(hosts_step_repetition(t->db, 2, 1, 0, &err), 0);
	assert_null(err);
	/* after step 1 of run 2 only: 3 and 4; run 1's row 2 kept */
	assert_int_equal(scalar(t->db, "SELECT group_concat(repetition, '') "
				       "FROM (SELECT repetition FROM "
				       "bench_step ORDER BY id)"),
			 1100);
	assert_int_equal(hosts_step_repetition(t->db, 2, 3, 7, &err), 0);
	assert_int_equal(scalar(t->db, "SELECT repetition FROM bench_step "
				       "WHERE id = 4"),
			 7);
}

/* Late frames of each cause made from access rows by the view's rules
 * (docs/database.md): a read slower than its frame (storage); one issued
 * 40 ms late with no evidence (issue), after a late wake (timer), or
 * with the ring full (reader).  Step 1 of experiment 1 has them, step 2
 * and another experiment's step 1 a storage frame each, and step 1 a
 * recording's late write (a dropped frame, no play's). */
static void test_late_causes(void **state)
{
	static const char *const names[] = {"storage", "issue", "timer",
					    "reader", "recording", "writer"};
	struct tmp *t = *state;
	int64_t n[6];
	char *err = NULL;
	int i;

	exec(t->db,
	     "INSERT INTO experiment (id, uuid, started_at, ranks, plan) "
	     "VALUES (1, 'u1', 'x', 1, 'find-max'), "
	     "(2, 'u2', 'x', 1, 'find-max');"
	     "INSERT INTO stream (id, run_id, kind, ring_frames) VALUES "
	     "(1, 2, 'play', 4), (2, 2, 'play', 4), (3, 2, 'play', 4), "
	     "(4, 2, 'play', 4), (5, 2, 'play', 4), (6, 2, 'record', NULL), "
	     "(7, 2, 'play', 4);"
	     "INSERT INTO bench_step (id, run_id, workstations, repetition, "
	     "experiment_id, step_no) VALUES (1, 2, 6, 1, 1, 1), "
	     "(2, 2, 1, 1, 1, 2), (3, 2, 1, 1, 2, 1);"
	     "INSERT INTO bench_stream VALUES (1, 1), (1, 2), (1, 3), "
	     "(1, 4), (1, 6), (2, 5), (3, 7);"
	     /* frame, sched, due, issued, done (ms), wake, ring_fill */
	     "INSERT INTO access (stream_id, frame, track, clip, "
	     "file_offset, length, sched_ns, due_ns, issued_ns, done_ns, "
	     "played, op, wake_ns, ring_fill) VALUES "
	     "(1, 0, 'V', 'c', 0, 9, 0, 33e6, 0, 50e6, 1, 0, 0, 0),"
	     "(2, 0, 'V', 'c', 0, 9, 0, 33e6, 40e6, 41e6, 1, 0, NULL, NULL),"
	     "(2, 1, 'V', 'c', 9, 9, 33e6, 66e6, 80e6, 81e6, 1, 0, NULL, "
	     "NULL),"
	     "(3, 0, 'V', 'c', 0, 9, 0, 33e6, 40e6, 41e6, 1, 0, 40e6, 0),"
	     "(4, 0, 'V', 'c', 0, 9, 0, 33e6, 40e6, 41e6, 1, 0, 0, 4),"
	     "(5, 0, 'V', 'c', 0, 9, 0, 33e6, 0, 50e6, 1, 0, 0, 0),"
	     "(6, 0, 'V', 'c', 0, 9, 0, 33e6, 0, 50e6, 1, 5, NULL, NULL),"
	     "(7, 0, 'V', 'c', 0, 9, 0, 33e6, 0, 50e6, 1, 0, 0, 0);");
	for (i = 0; i < 6; i++)
		n[i] = -1;
	assert_int_equal(hosts_step_late_causes(t->db, 1, 1, names, 6, n,
						&err),
			 0);
	assert_null(err);
	assert_int_equal(n[0], 1);
	assert_int_equal(n[1], 2);
	assert_int_equal(n[2], 1);
	assert_int_equal(n[3], 1);
	assert_int_equal(n[4], 0);
	assert_int_equal(n[5], 0);
	/* the step's own streams: step 2 a storage frame only */
	assert_int_equal(hosts_step_late_causes(t->db, 1, 2, names, 6, n,
						&err),
			 0);
	assert_int_equal(n[0] * 10 + n[1] + n[2] + n[3], 10);
	/* a cause not asked for is not counted; no such step: all 0 */
	assert_int_equal(hosts_step_late_causes(t->db, 1, 1, names + 1, 1, n,
						&err),
			 0);
	assert_int_equal(n[0], 2);
	assert_int_equal(hosts_step_late_causes(t->db, 1, 9, names, 6, n,
						&err),
			 0);
	for (i = 0; i < 6; i++)
		assert_int_equal(n[i], 0);
}

static void test_snapshot(void **state)
{
	struct tmp *t = *state;
	char out[160], *err = NULL;

	snprintf(out, sizeof(out), "%s/copy.db", t->dir);
	/* the WAL's pages too: a writer in WAL mode, its last rows there */
	exec(t->db, "PRAGMA journal_mode = WAL");
	assert_int_equal(hosts_step_snapshot(t->db, out, &err), 0);
	assert_null(err);
	assert_int_equal(scalar(out, "SELECT count(*) FROM timeline"), 4);
	assert_int_equal(scalar(out, "SELECT count(*) FROM run"), 2);
	/* never over an existing file */
	assert_true(hosts_step_snapshot(t->db, out, &err) < 0);
	assert_non_null(err);
	assert_non_null(strstr(err, out));
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_timelines, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_timelines_none, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_repetition, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_late_causes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_snapshot, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
