/* SPDX-License-Identifier: MIT */
/*
 * Many hosts (schema/experiment.h): the experiment and host rows, the tags of
 * bench steps and a host's step result (experiment.c), and the merge of one
 * database into another (merge.c): ids renumbered with every reference
 * following, a second merge adding nothing, the rule of the host rows,
 * a database of an older schema, and bad inputs refused with the target
 * unchanged.  Databases are files in a private folder, made by the store
 * (as a mount makes them) or by hand (an old schema).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "experiment.h"
#include "store.h"

#define EPOCH 1000000000000ull
#define SEC 1000000000ull
#define EXP "0f8fad5b-d9cb-469f-a165-70867728950e"

struct tmp {
	char dir[64];
};

static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	strcpy(t->dir, "/tmp/test_merge-XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp *t = *state;
	char path[512];
	struct dirent *de;
	DIR *d = opendir(t->dir);
	int rc;

	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", t->dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rc = rmdir(t->dir);
	free(t);
	return rc;
}

static char *path_of(struct tmp *t, const char *name)
{
	static char p[32][160];
	static int k;

	k = (k + 1) % 32;
	snprintf(p[k], sizeof(p[k]), "%s/%s", t->dir, name);
	return p[k];
}

static void raw(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *err = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err ? err : "?");
	sqlite3_close(db);
}

/* The text of one value (as sqlite3's shell prints it; NULL "null"). */
static char *q(const char *path, const char *sql)
{
	static char out[4096];
	sqlite3_stmt *s;
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(s) != SQLITE_ROW)
		fail_msg("%s: no row", sql);
	snprintf(out, sizeof(out), "%s",
		 sqlite3_column_type(s, 0) == SQLITE_NULL
		     ? "null"
		     : (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	sqlite3_close(db);
	return out;
}

static int64_t qi(const char *path, const char *sql)
{
	return strtoll(q(path, sql), NULL, 10);
}

/* A mount's database at path: one run (host name, given uuid or a
 * random one), a timeline, `streams` streams of `rows` access rows each,
 * one bench step holding them; ended or not. */
static void make_run(const char *path, const char *host, const char *uuid,
		     int streams, int rows, int ended)
{
	struct store_run_info ri = {
	    .label = "m",
	    .kernel = "6.1",
	    .config_hz = 250,
	    .host = host,
	    .options = "",
	    .media_dir = "/m",
	    .uuid = uuid,
	    .t0_unix_ns = 1765000000000000000LL,
	    .rank = -1,
	    .machine_id = "0123456789abcdef0123456789abcdef",
	};
	struct store_timeline_info ti = {
	    .name = "tl1",
	    .path = "/m/timelines/tl1.tl",
	    .fps_num = 25,
	    .fps_den = 1,
	    .frames = 100,
	    .bytes = 1000,
	};
	struct store_reader who = {.pid = 7, .tid = 7, .comm = "dd"};
	struct store_stream_totals tot = {0};
	struct store_stream *ss;
	struct store *st = NULL;
	char *msg = NULL, sql[1024];
	int64_t tl, run;
	int i, j;

	assert_int_equal(store_open(path, 0, &st, &msg), 0);
	assert_int_equal(store_run_begin(st, &ri, EPOCH), 0);
	assert_int_equal(store_timeline_add(st, &ti, &tl), 0);
	assert_int_equal(store_start(st), 0);
	for (i = 0; i < streams; i++) {
		assert_int_equal(
		    store_stream_open(st, tl, &who, EPOCH + SEC, &ss), 0);
		for (j = 0; j < rows; j++) {
			struct store_access a = {
			    .frame = j,
			    .track = "V",
			    .clip = "c1",
			    .file_offset = (uint64_t)j * 4096,
			    .length = 4096,
			    .sched_ns = EPOCH + SEC,
			    .due_ns = EPOCH + 3 * SEC,
			    .issued_ns = EPOCH + SEC,
			    .done_ns = EPOCH + SEC + 1000 * (j + 1),
			};

			store_access_add(ss, &a);
		}
		tot.closed_ns = EPOCH + 2 * SEC;
		tot.bytes = (uint64_t)rows * 4096;
		tot.frames = rows;
		tot.late_frames = i;
		store_stream_close(ss, &tot);
	}
	run = store_run_id(st);
	if (ended)
		assert_int_equal(store_run_end(st, EPOCH + 3 * SEC), 0);
	else
		store_run_end(st, EPOCH + 3 * SEC);
	store_close(st);
	if (!ended) {
		snprintf(sql, sizeof(sql),
			 "UPDATE run SET ended_at = NULL "
			 "WHERE id = %lld",
			 (long long)run);
		raw(path, sql);
	}
	snprintf(sql, sizeof(sql),
		 "INSERT INTO bench_step (run_id, label, "
		 "workstations, repetition, started_ns, ended_ns, wall_s) "
		 "VALUES (%lld, 'm', %d, 1, 1000000000, 2000000000, 1.0);"
		 "INSERT INTO bench_stream SELECT (SELECT max(id) FROM "
		 "bench_step), id "
		 "FROM stream WHERE run_id = %lld;"
		 "INSERT INTO calibration (run_id, label, readers, "
		 "block_bytes, seconds, read_bytes, bytes_per_s, "
		 "reads_per_s) VALUES (%lld, 'm', %d, 4096, 2.0, %d, "
		 "%d.5, 7.0);"
		 "INSERT INTO bench_probe (step_id, kind, start_ns, "
		 "latency_ns, items, ok) VALUES ((SELECT max(id) FROM "
		 "bench_step), 'spawn', 1100000000, %d000, 1, 1), "
		 "((SELECT max(id) FROM bench_step), 'walk', 1100500000, "
		 "%d00, 300, 1)",
		 (long long)run, streams, (long long)run, (long long)run,
		 streams, rows * 4096, rows * 4096, streams, streams);
	raw(path, sql);
}

static struct hosts_db *open_db(const char *path)
{
	struct hosts_db *h = NULL;
	char *err = NULL;

	if (hosts_db_open(path, &h, &err) < 0)
		fail_msg("hosts_db_open %s: %s", path, err ? err : "?");
	assert_null(err);
	return h;
}

static void merge_ok(struct hosts_db *h, const char *src,
		     struct hosts_merge_stats *st)
{
	char *err = NULL;

	if (hosts_merge(h, src, st, &err) < 0)
		fail_msg("merge %s: %s", src, err ? err : "?");
	assert_null(err);
}

/* Two hosts' databases, merged: every row once, every reference to the
 * row it named in its source; merged again: nothing added. */
static void test_merge_twice(void **state)
{
	struct tmp *t = *state;
	const char *a = path_of(t, "a.db"), *b = path_of(t, "b.db");
	const char *out = path_of(t, "out.db");
	struct hosts_merge_stats st;
	struct hosts_db *h;

	make_run(a, "ws1", NULL, 2, 50, 1);
	make_run(a, "ws1", NULL, 1, 7, 1);
	make_run(b, "ws2", NULL, 3, 40, 1);
	h = open_db(out);
	merge_ok(h, a, &st);
	assert_int_equal(st.runs_added, 2);
	assert_int_equal(st.runs_present, 0);
	assert_int_equal(st.streams_added, 3);
	assert_int_equal(st.access_added, 107);
	assert_int_equal(st.steps_added, 2);
	assert_int_equal(st.hosts_added, 1);
	merge_ok(h, b, &st);
	assert_int_equal(st.runs_added, 1);
	assert_int_equal(st.access_added, 120);
	assert_int_equal(st.hosts_added, 1);
	/* again, in the other order: nothing */
	merge_ok(h, b, &st);
	assert_int_equal(st.runs_added, 0);
	assert_int_equal(st.runs_present, 1);
	assert_int_equal(st.access_added + st.streams_added + st.steps_added +
			     st.hosts_added + st.hosts_updated,
			 0);
	merge_ok(h, a, &st);
	assert_int_equal(st.runs_added, 0);
	assert_int_equal(st.runs_present, 2);
	hosts_db_close(h);

	assert_int_equal(qi(out, "SELECT count(*) FROM run"), 3);
	assert_int_equal(qi(out, "SELECT count(*) FROM stream"), 6);
	assert_int_equal(qi(out, "SELECT count(*) FROM access"), 227);
	assert_int_equal(qi(out, "SELECT count(*) FROM timeline"), 3);
	assert_int_equal(qi(out, "SELECT count(*) FROM bench_stream"), 6);
	assert_int_equal(qi(out, "SELECT count(*) FROM run_env"),
			 qi(a, "SELECT count(*) FROM run_env") +
			     qi(b, "SELECT count(*) FROM run_env"));
	/* b's run (id 1 in b) is the target's third, its rows renumbered
	 * past a's and still its own */
	assert_string_equal(q(out, "SELECT group_concat(n, ' ') FROM (SELECT "
				   "count(*) n FROM access a JOIN stream s ON "
				   "s.id = a.stream_id JOIN run r ON r.id = "
				   "s.run_id GROUP BY r.id ORDER BY r.id)"),
			    "100 7 120");
	assert_string_equal(q(out, "SELECT r.host || ' ' || h.name FROM run r "
				   "JOIN host h ON h.id = r.host_id WHERE "
				   "r.id = 3"),
			    "ws2 ws2");
	assert_int_equal(qi(out, "SELECT count(*) FROM stream s JOIN timeline "
				 "t ON t.id = s.timeline_id WHERE t.run_id <> "
				 "s.run_id"),
			 0);
	assert_int_equal(qi(out, "SELECT count(*) FROM bench_stream b JOIN "
				 "bench_step p ON p.id = b.step_id JOIN stream "
				 "s ON s.id = b.stream_id WHERE p.run_id <> "
				 "s.run_id"),
			 0);
	/* each step's probe samples go with it: b's under the target's
	 * third run (before: none was merged) */
	assert_string_equal(q(out, "SELECT group_concat(x, ' ') FROM (SELECT "
				   "b.run_id || ':' || p.kind || ':' || "
				   "p.latency_ns x FROM bench_probe p JOIN "
				   "bench_step b ON b.id = p.step_id ORDER BY "
				   "b.run_id, p.kind)"),
			    "1:spawn:2000 1:walk:200 2:spawn:1000 2:walk:100 "
			    "3:spawn:3000 3:walk:300");
	/* each run's calibration goes with it, renumbered past a's */
	assert_string_equal(q(out, "SELECT group_concat(x, ' ') FROM (SELECT "
				   "c.id || ':' || c.readers || ':' || "
				   "c.read_bytes x FROM calibration c JOIN "
				   "run r ON r.id = c.run_id ORDER BY c.id)"),
			    "1:2:204800 2:1:28672 3:3:163840");
	/* each run keeps its uuid */
	{
		char ua[256];

		snprintf(ua, sizeof(ua), "%s",
			 q(a, "SELECT group_concat(uuid, ' ') FROM run"));
		assert_string_equal(q(out, "SELECT group_concat(uuid, ' ') "
					   "FROM run WHERE id <= 2"),
				    ua);
		snprintf(ua, sizeof(ua), "%s", q(b, "SELECT uuid FROM run"));
		assert_string_equal(q(out, "SELECT uuid FROM run WHERE id = 3"),
				    ua);
	}
	/* the access rows are the source's, field for field */
	assert_string_equal(q(out, "SELECT sum(frame * 7 + file_offset + "
				   "done_ns) FROM access a JOIN stream s ON "
				   "s.id = a.stream_id WHERE s.run_id = 3"),
			    q(b, "SELECT sum(frame * 7 + file_offset + "
				 "done_ns) FROM access"));
	/* the sources are untouched */
	assert_int_equal(qi(a, "SELECT count(*) FROM run"), 2);
	assert_int_equal(qi(b, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
}

/* The rule of the host rows of an experiment: the one that knows more
 * (complete, or an end measurement) wins, in either order; a rank with no
 * database gets its row from hosts_mark_incomplete. */
static void test_host_rule(void **state)
{
	struct tmp *t = *state;
	const char *a = path_of(t, "a.db"), *b = path_of(t, "b.db");
	const char *out = path_of(t, "out.db");
	struct hosts_experiment e = {
	    .uuid = EXP,
	    .ranks = 3,
	    .machines = -1,
	    .plan = "list",
	    .max_lo = -1,
	    .max_hi = -1,
	};
	struct hosts_host host = {
	    .rank = 1,
	    .name = "ws1",
	    .machine_id = "m1",
	    .has_start = 1,
	    .offset_start_ns = 5,
	    .rtt_start_ns = 40,
	    .t_start_ns = 100,
	    .sync_error_us = -1,
	    .reason = "no answer in step 2 within 60 s",
	};
	struct hosts_merge_stats st;
	struct hosts_db *h;
	int64_t eid, hid, hid2;

	/* a: rank 1's row as rank 0 saw it (no end: it stopped answering) */
	h = open_db(a);
	assert_int_equal(hosts_experiment_put(h, &e, &eid, NULL), 0);
	host.experiment_id = eid;
	assert_int_equal(hosts_host_put(h, &host, &hid, NULL), 0);
	hosts_db_close(h);
	/* b: rank 1's own database, finished: complete, with its end */
	h = open_db(b);
	e.ended_at = "2026-12-05T23:00:00.000Z";
	e.verdict = "done";
	assert_int_equal(hosts_experiment_put(h, &e, &eid, NULL), 0);
	host.experiment_id = eid;
	host.has_end = 1;
	host.offset_end_ns = 6;
	host.rtt_end_ns = 41;
	host.t_end_ns = 900;
	host.complete = 1;
	assert_int_equal(hosts_host_put(h, &host, &hid, NULL), 0);
	/* replaced in place: the same row */
	host.sync = "synchronized";
	assert_int_equal(hosts_host_put(h, &host, &hid2, NULL), 0);
	assert_int_equal(hid, hid2);
	hosts_db_close(h);
	assert_int_equal(qi(b, "SELECT count(*) FROM host WHERE experiment_id "
			       "IS NOT NULL"),
			 1);

	h = open_db(out);
	merge_ok(h, a, &st);
	assert_int_equal(st.hosts_added, 1);
	merge_ok(h, b, &st);
	assert_int_equal(st.hosts_added, 0);
	assert_int_equal(st.hosts_updated, 1);
	/* a again: its row knows less, the complete one stays */
	merge_ok(h, a, &st);
	assert_int_equal(st.hosts_updated, 0);
	/* rank 2's database never came: its row is what rank 0 measured
	 * (the start's clock, its machine, boot and sync), kept whole;
	 * rank 1's own row keeps what it knows, its measurement too */
	{
		struct hosts_host x = {
		    .experiment_id = 1,
		    .rank = 2,
		    .name = "ws2",
		    .machine_id = "m2",
		    .boot_id = "b2",
		    .has_start = 1,
		    .offset_start_ns = 7,
		    .rtt_start_ns = 30,
		    .t_start_ns = 100,
		    .sync = "unsynchronized",
		    .sync_error_us = 16,
		    .reason = "cannot mount /mnt/x: EACCES",
		};

		assert_int_equal(hosts_mark_incomplete(h, &x, NULL), 0);
		x.rank = 1;
		x.name = "ws1";
		x.reason = "no answer at the end";
		x.offset_start_ns = 99;
		assert_int_equal(hosts_mark_incomplete(h, &x, NULL), 0);
	}
	hosts_db_close(h);
	assert_string_equal(q(out, "SELECT group_concat(rank || ' ' || name || "
				   "' ' || complete || ' ' || coalesce(reason, "
				   "'-') || ' ' || coalesce(offset_end_ns, "
				   "'-') || ' ' || coalesce(sync, '-') || ' ' "
				   "|| coalesce(machine_id, '-') || ' ' || "
				   "coalesce(boot_id, '-') || ' ' || "
				   "coalesce(offset_start_ns, '-') || ' ' || "
				   "coalesce(rtt_start_ns, '-') || ' ' || "
				   "coalesce(sync_error_us, '-'), '|') "
				   "FROM host ORDER BY rank"),
			    "1 ws1 0 no answer at the end 6 synchronized m1 b2 "
			    "5 40 16|2 ws2 0 cannot mount /mnt/x: EACCES - "
			    "unsynchronized m2 b2 7 30 16");
	/* the experiment once, the end and verdict of the one that had them */
	assert_string_equal(q(out, "SELECT count(*) || ' ' || ended_at || ' ' "
				   "|| verdict FROM experiment"),
			    "1 2026-12-05T23:00:00.000Z done");

	/* the other order: the complete row first, the lesser after */
	unlink(out);
	h = open_db(out);
	merge_ok(h, b, &st);
	merge_ok(h, a, &st);
	assert_int_equal(st.hosts_updated, 0);
	hosts_db_close(h);
	assert_string_equal(q(out, "SELECT complete || ' ' || offset_end_ns "
				   "FROM host"),
			    "1 6");
}

/* timelinefs-hosts' calls on a host's database: the open run, the last
 * step, the steps of one bench call tagged, and what the host played. */
static void test_steps(void **state)
{
	struct tmp *t = *state;
	const char *a = path_of(t, "a.db");
	struct hosts_experiment e = {
	    .uuid = EXP,
	    .ranks = 2,
	    .machines = 1,
	    .plan = "find-max",
	    .max_lo = -1,
	    .max_hi = -1,
	};
	struct hosts_host host = {
	    .rank = 0, .name = "ws0", .sync_error_us = -1};
	struct hosts_step_result r;
	struct hosts_db *h;
	int64_t eid, hid, run, last;
	char *err = NULL;

	make_run(a, "ws0", NULL, 2, 10, 1);
	h = open_db(a);
	assert_int_equal(hosts_open_run(h, &run, &err), -ENOENT);
	assert_non_null(strstr(err, "no run that has not ended"));
	free(err);
	err = NULL;
	assert_int_equal(hosts_last_step(h, &last, NULL), 0);
	assert_int_equal(last, 1);
	hosts_db_close(h);
	make_run(a, "ws0", NULL, 3, 10, 0);
	h = open_db(a);
	assert_int_equal(hosts_open_run(h, &run, NULL), 0);
	assert_int_equal(run, 2);
	assert_int_equal(hosts_experiment_put(h, &e, &eid, NULL), 0);
	host.experiment_id = eid;
	assert_int_equal(hosts_host_put(h, &host, &hid, NULL), 0);
	assert_int_equal(hosts_tag_steps(h, run, last, eid, hid, 4, 6,
					 1765000001000000000LL, NULL),
			 0);
	assert_int_equal(hosts_step_result(h, eid, 4, &r, NULL), 0);
	assert_int_equal(r.workstations, 3);
	assert_int_equal(r.frames, 30);
	assert_int_equal(r.late_frames, 0 + 1 + 2);
	assert_int_equal(r.dropped_frames, 0);
	assert_int_equal(r.bytes, 30 * 4096);
	assert_int_equal(r.start_unix_ns, 1765000001000000000LL);
	assert_int_equal(r.end_unix_ns, 1765000002000000000LL);
	assert_true(r.wall_s > 0.999 && r.wall_s < 1.001);
	assert_int_equal(hosts_step_result(h, eid, 5, &r, &err), -ENOENT);
	assert_non_null(strstr(err, "no bench step 5"));
	free(err);
	/* a second put of the experiment: its end and verdict filled */
	e.ended_at = "x";
	e.max_lo = 12;
	e.max_hi = 13;
	assert_int_equal(hosts_experiment_put(h, &e, &hid, NULL), 0);
	assert_int_equal(hid, eid);
	hosts_db_close(h);
	assert_string_equal(q(a, "SELECT ended_at || ' ' || max_lo || ' ' || "
				 "max_hi || ' ' || machines FROM experiment"),
			    "x 12 13 1");
	assert_string_equal(q(a, "SELECT group_concat(coalesce(step_no, '-') "
				 "|| ' ' || coalesce(total_workstations, '-'), "
				 "'|') FROM bench_step"),
			    "- -|4 6");
	assert_string_equal(q(a, "SELECT group_concat(host_id, ' ') FROM run"),
			    "1 2");
}

/* What rank 0 gave each rank in each step (hosts_share_put: a share of 0
 * kept, a second put of the same key replacing the first, bad arguments
 * refused), merged under the target's id of the experiment, each row once:
 * a second merge adds nothing, and a row the target holds is kept. */
static void test_shares(void **state)
{
	struct tmp *t = *state;
	const char *a = path_of(t, "a.db"), *b = path_of(t, "b.db");
	const char *out = path_of(t, "out.db");
	struct hosts_experiment e = {
	    .uuid = EXP,
	    .ranks = 3,
	    .machines = -1,
	    .plan = "find-max",
	    .max_lo = -1,
	    .max_hi = -1,
	};
	struct hosts_experiment other = e;
	struct hosts_merge_stats st;
	struct hosts_db *h;
	int64_t eid, oid;
	char *err = NULL;

	/* a: rank 0's database; step 1 one workstation each, step 2 (find-max
	 * from 1) rank 0's only, step 3 after rank 2 died: 2 + 2 + 0 */
	h = open_db(a);
	assert_int_equal(hosts_experiment_put(h, &e, &eid, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 1, 0, 1, 1, 3, 100, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 1, 1, 1, 1, 3, 100, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 1, 2, 1, 1, 3, 100, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 2, 0, 1, 1, 1, 200, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 2, 1, 0, 1, 1, 200, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 2, 2, 0, 1, 1, 200, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 3, 0, 2, 1, 4, 300, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 3, 1, 2, 1, 4, 300, NULL), 0);
	/* put first as 1 of 5, then replaced: the last put holds */
	assert_int_equal(hosts_share_put(h, eid, 3, 2, 1, 1, 5, 300, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 3, 2, 0, 1, 4, 300, NULL), 0);
	assert_int_equal(hosts_share_put(h, 0, 1, 0, 1, 1, 1, 0, &err),
			 -EINVAL);
	assert_int_equal(hosts_share_put(h, eid, 1, -1, 1, 1, 1, 0, &err),
			 -EINVAL);
	assert_int_equal(hosts_share_put(h, eid, 1, 0, -1, 1, 1, 0, &err),
			 -EINVAL);
	assert_null(err);
	hosts_db_close(h);
	assert_string_equal(q(a,
			      "SELECT group_concat(step_no || ' ' || rank || "
			      "' ' || workstations || '/' || "
			      "total_workstations || ' ' || planned_unix_ns, "
			      "'|') FROM (SELECT * FROM experiment_share "
			      "ORDER BY step_no, rank)"),
			    "1 0 1/3 100|1 1 1/3 100|1 2 1/3 100|"
			    "2 0 1/1 200|2 1 0/1 200|2 2 0/1 200|"
			    "3 0 2/4 300|3 1 2/4 300|3 2 0/4 300");
	/* b: another database of the experiment with one row a has (another
	 * value: the target's is kept) and one it has not */
	h = open_db(b);
	assert_int_equal(hosts_experiment_put(h, &e, &eid, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 1, 0, 7, 1, 7, 100, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, 4, 0, 3, 2, 3, 400, NULL), 0);
	hosts_db_close(h);

	/* the target has another experiment first: EXP's id moves to 2 */
	other.uuid = "11111111-2222-4333-8444-555555555555";
	h = open_db(out);
	assert_int_equal(hosts_experiment_put(h, &other, &oid, NULL), 0);
	assert_int_equal(oid, 1);
	merge_ok(h, a, &st);
	assert_int_equal(st.shares_added, 9);
	merge_ok(h, a, &st);
	assert_int_equal(st.shares_added, 0);
	merge_ok(h, b, &st);
	assert_int_equal(st.shares_added, 1);
	merge_ok(h, b, &st);
	assert_int_equal(st.shares_added, 0);
	hosts_db_close(h);
	assert_string_equal(q(out,
			      "SELECT count(*) || ' ' || count(DISTINCT "
			      "experiment_id) || ' ' || min(experiment_id) "
			      "|| ' ' || (SELECT id FROM experiment WHERE "
			      "uuid = '" EXP "') FROM experiment_share"),
			    "10 1 2 2");
	assert_string_equal(q(out, "SELECT workstations || '/' || "
				   "total_workstations FROM experiment_share "
				   "WHERE step_no = 1 AND rank = 0"),
			    "1/3");
	assert_string_equal(q(out,
			      "SELECT group_concat(x, '|') FROM (SELECT "
			      "step_no || ' ' || rank || ' ' || "
			      "workstations || ' ' || repetition || ' ' || "
			      "planned_unix_ns AS x FROM experiment_share "
			      "WHERE step_no IN (2, 4) ORDER BY step_no, "
			      "rank)"),
			    "2 0 1 1 200|2 1 0 1 200|2 2 0 1 200|4 0 3 2 400");
}

/* A database of an old schema (a version 3 file: no stream.tid, file,
 * kind or writer_drops, no uuid, no host table): merged with what the
 * migration would give it, a uuid derived the same at every merge, and a
 * host row of its run.host. */
static void test_old_schema(void **state)
{
	struct tmp *t = *state;
	const char *old = path_of(t, "old.db"), *out = path_of(t, "out.db");
	const char *out2 = path_of(t, "out2.db");
	struct hosts_merge_stats st;
	struct hosts_db *h;

	raw(old,
	    "CREATE TABLE run (id INTEGER PRIMARY KEY, label TEXT, "
	    "started_at TEXT NOT NULL, ended_at TEXT, kernel TEXT, "
	    "config_hz INTEGER, host TEXT, options TEXT, media_dir TEXT, "
	    "queue_full_waits INTEGER NOT NULL DEFAULT 0, rows_lost "
	    "INTEGER NOT NULL DEFAULT 0, duration_ns INTEGER);"
	    "CREATE TABLE timeline (id INTEGER PRIMARY KEY, run_id INTEGER "
	    "NOT NULL, name TEXT NOT NULL, path TEXT, fps_num INTEGER, "
	    "fps_den INTEGER, frames INTEGER, bytes INTEGER);"
	    "CREATE TABLE stream (id INTEGER PRIMARY KEY, run_id INTEGER "
	    "NOT NULL, timeline_id INTEGER, pid INTEGER, comm TEXT, "
	    "opened_ns INTEGER, closed_ns INTEGER, bytes INTEGER, frames "
	    "INTEGER, late_frames INTEGER, failed_frames INTEGER);"
	    "CREATE TABLE access (id INTEGER PRIMARY KEY, stream_id "
	    "INTEGER NOT NULL, frame INTEGER, track TEXT, clip TEXT, "
	    "file_offset INTEGER, length INTEGER, sched_ns INTEGER, "
	    "due_ns INTEGER, issued_ns INTEGER, done_ns INTEGER, errno "
	    "INTEGER);"
	    "INSERT INTO run (id, started_at, host) VALUES "
	    "(4, '2026-01-01T00:00:00.000Z', 'oldhost'), "
	    "(9, '2026-01-02T00:00:00.000Z', NULL);"
	    "INSERT INTO timeline VALUES (2, 4, 'tlA', 'p', 25, 1, 10, 9);"
	    "INSERT INTO stream (id, run_id, timeline_id, pid, closed_ns) "
	    "VALUES (5, 4, 2, 77, 10), (6, 9, NULL, 78, NULL);"
	    "INSERT INTO access (stream_id, frame, due_ns, issued_ns, "
	    "done_ns, errno) VALUES (5, 0, 1, 1, 2, 0), (5, 1, 1, 1, 2, 0), "
	    "(6, 0, 1, 1, 2, 0);"
	    "PRAGMA user_version = 3");
	make_run(out, "new", NULL, 1, 3, 1);
	h = open_db(out);
	merge_ok(h, old, &st);
	assert_int_equal(st.runs_added, 2);
	assert_int_equal(st.streams_added, 2);
	assert_int_equal(st.access_added, 3);
	assert_int_equal(st.runs_unended, 2);
	assert_int_equal(st.hosts_added, 2);
	merge_ok(h, old, &st);
	assert_int_equal(st.runs_added, 0);
	assert_int_equal(st.runs_present, 2);
	hosts_db_close(h);
	assert_string_equal(q(out,
			      "SELECT group_concat(s.tid || ' ' || "
			      "coalesce(s.file, '-') || ' ' || s.kind || "
			      "' ' || coalesce(s.writer_drops, '-') || ' ' "
			      "|| a.injected, '|') FROM stream s JOIN "
			      "access a ON a.stream_id = s.id WHERE "
			      "s.run_id > 1 AND a.frame = 0"),
			    "77 tlA play 0 0|78 - play - 0");
	assert_string_equal(q(out, "SELECT group_concat(h.name || ' ' || "
				   "(h.experiment_id IS NULL), '|') FROM run r "
				   "JOIN host h ON h.id = r.host_id WHERE "
				   "r.id > 1"),
			    "oldhost 1|? 1");
	/* the derived uuid: version 8, the same in another merge */
	assert_int_equal(qi(out, "SELECT count(*) FROM run WHERE uuid LIKE "
				 "'________-____-8___-____-____________'"),
			 2);
	h = open_db(out2);
	merge_ok(h, old, &st);
	hosts_db_close(h);
	assert_string_equal(q(out2, "SELECT group_concat(uuid) FROM run"),
			    q(out, "SELECT group_concat(uuid) FROM run "
				   "WHERE id > 1"));
	assert_string_equal(q(old, "PRAGMA user_version"), "3");
}

/* Bad inputs: a missing file, a text file, a database that is not
 * timelinefs', one of a newer schema, one cut short, the target itself:
 * each refused naming the file and the reason, the target unchanged. */
static void test_bad_input(void **state)
{
	struct tmp *t = *state;
	const char *a = path_of(t, "a.db"), *out = path_of(t, "out.db");
	const char *text = path_of(t, "text.db"), *other = path_of(t, "o.db");
	const char *newer = path_of(t, "newer.db"), *cut = path_of(t, "cut.db");
	static const struct {
		const char *name, *why;
	} cases[] = {
	    {"nosuch.db", "No such file or directory"},
	    {"text.db", "not a timelinefs database: file is not a "
			"database"},
	    {"o.db", "not a timelinefs database (it has no table run)"},
	    {"newer.db", "schema version 99 is newer than this "
			 "timelinefs supports"},
	    {"cut.db", "damaged"},
	    {"out.db", "is the database merged into"},
	};
	struct hosts_merge_stats st;
	struct hosts_db *h;
	char *err, before[64], cmd[512];
	FILE *f;
	size_t i;

	make_run(a, "ws1", NULL, 4, 3000, 1);
	f = fopen(text, "w");
	assert_non_null(f);
	fputs("this is not a database, it is a text file long enough to hold "
	      "a header of one hundred bytes............................\n",
	      f);
	fclose(f);
	raw(other, "CREATE TABLE t (x)");
	make_run(newer, "ws9", NULL, 1, 1, 1);
	raw(newer, "PRAGMA user_version = 99");
	/* the first half of a: its header says more pages than it has */
	snprintf(cmd, sizeof(cmd),
		 "head -c $(( $(stat -c %%s %s) / 2 )) %s "
		 ">%s",
		 a, a, cut);
	assert_int_equal(system(cmd), 0);

	h = open_db(out);
	merge_ok(h, a, &st);
	snprintf(before, sizeof(before), "%s",
		 q(out, "SELECT count(*) || ' ' || (SELECT count(*) FROM "
			"access) || ' ' || (SELECT count(*) FROM host) FROM "
			"run"));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = path_of(t, cases[i].name);

		err = NULL;
		if (hosts_merge(h, p, &st, &err) == 0)
			fail_msg("%s merged", cases[i].name);
		assert_non_null(err);
		if (strncmp(err, p, strlen(p)) || !strstr(err, cases[i].why))
			fail_msg("%s: message '%s'", cases[i].name, err);
		free(err);
		assert_string_equal(q(out, "SELECT count(*) || ' ' || (SELECT "
					   "count(*) FROM access) || ' ' || "
					   "(SELECT count(*) FROM host) FROM "
					   "run"),
				    before);
	}
	/* errmsg may be NULL; a good input after the bad ones still merges */
	assert_true(hosts_merge(h, text, &st, NULL) < 0);
	merge_ok(h, a, &st);
	assert_int_equal(st.runs_present, 1);
	hosts_db_close(h);
	/* a target of a newer schema is refused at open */
	err = NULL;
	assert_int_equal(hosts_db_open(newer, &h, &err), -ENOTSUP);
	assert_non_null(strstr(err, "schema version 99 is newer"));
	free(err);
}

/* An experiment of a host's database (make_run's, then tagged): its
 * experiment and host rows (rank 0 with the run, rank 1 without), its
 * shares, the run of rank 0 (hosts_tag_steps sets its host_id). */
static void tag_experiment(const char *path, const char *uuid, int step)
{
	struct hosts_experiment e = {
	    .uuid = uuid,
	    .ranks = 2,
	    .machines = -1,
	    .plan = "list",
	    .max_lo = -1,
	    .max_hi = -1,
	};
	struct hosts_host host = {
	    .rank = 0, .name = "ws1", .sync_error_us = -1};
	struct hosts_db *h;
	int64_t eid, hid, run = qi(path, "SELECT max(id) FROM run");
	int64_t last = qi(path, "SELECT max(id) FROM bench_step") - 1;

	h = open_db(path);
	assert_int_equal(hosts_experiment_put(h, &e, &eid, NULL), 0);
	host.experiment_id = eid;
	assert_int_equal(hosts_host_put(h, &host, &hid, NULL), 0);
	assert_int_equal(
	    hosts_tag_steps(h, run, last, eid, hid, step, 2, 100, NULL), 0);
	host.rank = 1;
	host.name = "ws2";
	assert_int_equal(hosts_host_put(h, &host, &hid, NULL), 0);
	assert_int_equal(hosts_share_put(h, eid, step, 0, 1, 1, 2, 100, NULL),
			 0);
	assert_int_equal(hosts_share_put(h, eid, step, 1, 1, 1, 2, 100, NULL),
			 0);
	hosts_db_close(h);
}

/* Crafted databases, as an attacker would hand them over: an input whose
 * ids are near INT64_MAX (merged, they overflowed to REAL and every later
 * merge failed "datatype mismatch"), inputs of user_version -5 and 0, an
 * input whose experiment or host table has lost a column (its rows were
 * skipped as if of an older schema): refused naming the file, the target
 * unchanged and a good input still merging after them.  A target that is
 * another program's SQLite database, or of user_version -5, is refused
 * at open and left as it was. */
static void test_crafted(void **state)
{
	struct tmp *t = *state;
	const char *a = path_of(t, "a.db"), *out = path_of(t, "out.db");
	static const struct {
		const char *name, *sql, *why;
	} cases[] = {
	    {"big.db",
	     "UPDATE stream SET run_id = 9223372036854775000;"
	     "UPDATE timeline SET run_id = 9223372036854775000;"
	     "UPDATE bench_step SET run_id = 9223372036854775000;"
	     "UPDATE run_env SET run_id = 9223372036854775000;"
	     "UPDATE run SET id = 9223372036854775000",
	     "run ids out of range"},
	    {"neg.db", "UPDATE access SET id = -id", "access ids out of range"},
	    {"minus5.db", "PRAGMA user_version = -5", "schema version -5"},
	    {"zero.db", "PRAGMA user_version = 0", "schema version 0"},
	    {"noid.db",
	     "PRAGMA legacy_alter_table = ON; ALTER TABLE experiment RENAME "
	     "COLUMN id TO eid",
	     "experiment"},
	    {"norank.db",
	     "PRAGMA legacy_alter_table = ON; ALTER TABLE host RENAME COLUMN "
	     "rank TO rnk",
	     "host"},
	};
	struct hosts_merge_stats st;
	struct hosts_db *h;
	char *err, before[64];
	size_t i;

	make_run(a, "ws1", NULL, 2, 10, 1);
	tag_experiment(a, EXP, 1);
	h = open_db(out);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = path_of(t, cases[i].name);
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "cp %s %s", a, p);
		assert_int_equal(system(cmd), 0);
		raw(p, cases[i].sql);
		snprintf(before, sizeof(before), "%s",
			 q(out, "SELECT count(*) || ' ' || (SELECT count(*) "
				"FROM host) || ' ' || (SELECT count(*) FROM "
				"experiment) FROM run"));
		err = NULL;
		if (hosts_merge(h, p, &st, &err) == 0)
			fail_msg("%s merged", cases[i].name);
		assert_non_null(err);
		if (strncmp(err, "cannot merge ", 13) &&
		    strncmp(err, p, strlen(p)))
			fail_msg("%s: message '%s'", cases[i].name, err);
		if (!strstr(err, p) || !strstr(err, cases[i].why))
			fail_msg("%s: message '%s'", cases[i].name, err);
		free(err);
		assert_string_equal(q(out, "SELECT count(*) || ' ' || (SELECT "
					   "count(*) FROM host) || ' ' || "
					   "(SELECT count(*) FROM experiment) "
					   "FROM run"),
				    before);
	}
	/* a good input merges after them, and again its ids are integers */
	merge_ok(h, a, &st);
	assert_int_equal(st.runs_added, 1);
	assert_int_equal(st.hosts_added, 3);
	hosts_db_close(h);
	assert_string_equal(q(out, "SELECT group_concat(DISTINCT typeof(id)) "
				   "FROM run"),
			    "integer");

	/* targets: another program's database, a version below 1 */
	{
		const char *other = path_of(t, "other.db");
		const char *m5 = path_of(t, "m5.db");

		raw(other, "CREATE TABLE t (x); INSERT INTO t VALUES (1)");
		err = NULL;
		assert_int_equal(hosts_db_open(other, &h, &err), -EINVAL);
		assert_non_null(err);
		if (!strstr(err, other) ||
		    !strstr(err, "not a timelinefs database"))
			fail_msg("other: message '%s'", err);
		free(err);
		assert_int_equal(qi(other, "SELECT count(*) FROM "
					   "sqlite_schema"),
				 1);
		make_run(m5, "ws1", NULL, 1, 1, 1);
		raw(m5, "PRAGMA user_version = -5");
		err = NULL;
		assert_int_equal(hosts_db_open(m5, &h, &err), -EINVAL);
		assert_non_null(err);
		if (!strstr(err, "schema version -5"))
			fail_msg("m5: message '%s'", err);
		free(err);
		assert_int_equal(qi(m5, "PRAGMA user_version"), -5);
	}

	/* a target whose access ids leave no room for the source's:
	 * refused naming the table, the target unchanged */
	{
		const char *full = path_of(t, "full.db");

		make_run(full, "ws2", NULL, 1, 2, 1);
		raw(full, "UPDATE access SET id = id + 4611686018427387900");
		h = open_db(full);
		err = NULL;
		assert_int_equal(hosts_merge(h, a, &st, &err), -EFBIG);
		assert_non_null(err);
		if (!strstr(err, "access ids out of range") ||
		    !strstr(err, "4611686018427387902, no room for more"))
			fail_msg("full: message '%s'", err);
		free(err);
		hosts_db_close(h);
		assert_int_equal(qi(full, "SELECT count(*) FROM run"), 1);
	}
}

/* A host's database that holds two experiments and a plain mount's run,
 * merged one experiment at a time (hosts_merge_experiment): each takes
 * its experiment, host, share rows and its run only; again, nothing; the
 * whole file then adds only the plain run.  A uuid the source lacks, or a
 * prefix two experiments share: refused, naming the file and the uuid,
 * the target unchanged; a prefix of one experiment names it. */
static void test_experiment(void **state)
{
	static const char e2[] = "0f8fad5b-1111-4222-8333-444444444444";
	struct tmp *t = *state;
	const char *a = path_of(t, "a.db"), *out = path_of(t, "out.db");
	const char *out2 = path_of(t, "out2.db");
	const char *old = path_of(t, "old.db");
	struct hosts_merge_stats st;
	struct hosts_db *h;
	char *err = NULL;
	char before[256];

	make_run(a, "ws1", NULL, 2, 10, 1);
	tag_experiment(a, EXP, 1);
	make_run(a, "ws1", NULL, 1, 5, 1);
	tag_experiment(a, e2, 3);
	make_run(a, "ws1", NULL, 1, 3, 1); /* a plain mount */
	assert_int_equal(qi(a, "SELECT count(*) FROM host"), 5);

	h = open_db(out);
	if (hosts_merge_experiment(h, a, EXP, &st, &err) < 0)
		fail_msg("merge %s: %s", a, err ? err : "?");
	assert_null(err);
	assert_int_equal(st.runs_added, 1);
	assert_int_equal(st.runs_present, 0);
	assert_int_equal(st.streams_added, 2);
	assert_int_equal(st.access_added, 20);
	assert_int_equal(st.steps_added, 1);
	assert_int_equal(st.hosts_added, 2);
	assert_int_equal(st.shares_added, 2);
	hosts_db_close(h);
	assert_string_equal(q(out, "SELECT group_concat(uuid) FROM experiment"),
			    EXP);
	assert_string_equal(q(out, "SELECT group_concat(h.rank || ' ' || "
				   "h.name || ' ' || e.uuid, '|') FROM host h "
				   "JOIN experiment e ON e.id = "
				   "h.experiment_id"),
			    "0 ws1 " EXP "|1 ws2 " EXP);
	assert_string_equal(q(out, "SELECT group_concat(step_no || ' ' || "
				   "rank, '|') FROM experiment_share"),
			    "1 0|1 1");
	assert_string_equal(
	    q(out, "SELECT r.uuid || ' ' || h.rank || ' ' || "
		   "b.step_no || ' ' || (b.experiment_id = "
		   "h.experiment_id) FROM run r JOIN host h ON "
		   "h.id = r.host_id JOIN bench_step b ON "
		   "b.run_id = r.id"),
	    q(a, "SELECT uuid || ' 0 1 1' FROM run WHERE id = 1"));
	assert_int_equal(qi(out, "SELECT count(*) FROM access"), 20);
	assert_int_equal(qi(out, "SELECT count(*) FROM bench_stream"), 2);

	/* again: nothing; the other experiment: its rows only */
	h = open_db(out);
	assert_int_equal(hosts_merge_experiment(h, a, EXP, &st, NULL), 0);
	assert_int_equal(st.runs_added + st.hosts_added + st.shares_added +
			     st.hosts_updated,
			 0);
	assert_int_equal(st.runs_present, 1);
	assert_int_equal(hosts_merge_experiment(h, a, e2, &st, NULL), 0);
	assert_int_equal(st.runs_added, 1);
	assert_int_equal(st.runs_present, 0);
	assert_int_equal(st.access_added, 5);
	assert_int_equal(st.hosts_added, 2);
	assert_int_equal(st.shares_added, 2);
	hosts_db_close(h);
	assert_int_equal(qi(out, "SELECT count(*) FROM experiment"), 2);
	assert_string_equal(q(out, "SELECT group_concat(b.step_no || ' ' || "
				   "e.uuid, '|') FROM bench_step b JOIN "
				   "experiment e ON e.id = b.experiment_id"),
			    "1 " EXP "|3 0f8fad5b-1111-4222-8333-444444444444");

	/* a uuid a lacks, a prefix of both: refused, out unchanged */
	snprintf(before, sizeof(before), "%s",
		 q(out, "SELECT (SELECT count(*) FROM run) || ' ' || (SELECT "
			"count(*) FROM host) || ' ' || (SELECT count(*) FROM "
			"experiment) || ' ' || (SELECT count(*) FROM "
			"experiment_share)"));
	h = open_db(out);
	assert_int_equal(
	    hosts_merge_experiment(h, a, "11111111-2222-4333-8444-555555555555",
				   &st, &err),
	    -ENOENT);
	assert_non_null(err);
	assert_non_null(strstr(err, a));
	assert_non_null(strstr(
	    err, "has no experiment 11111111-2222-4333-8444-555555555555"));
	free(err);
	err = NULL;
	assert_int_equal(hosts_merge_experiment(h, a, "0f8fad5b", &st, &err),
			 -EINVAL);
	assert_non_null(err);
	assert_non_null(strstr(err, a));
	assert_non_null(strstr(err, "starts with 0f8fad5b"));
	free(err);
	err = NULL;
	/* shorter than 8: the whole uuid only */
	assert_int_equal(hosts_merge_experiment(h, a, "0f8fad5", &st, &err),
			 -ENOENT);
	free(err);
	err = NULL;
	hosts_db_close(h);
	assert_string_equal(
	    q(out, "SELECT (SELECT count(*) FROM run) || ' ' || (SELECT "
		   "count(*) FROM host) || ' ' || (SELECT count(*) FROM "
		   "experiment) || ' ' || (SELECT count(*) FROM "
		   "experiment_share)"),
	    before);

	/* the whole file: the plain run and its host row only */
	h = open_db(out);
	merge_ok(h, a, &st);
	assert_int_equal(st.runs_added, 1);
	assert_int_equal(st.runs_present, 2);
	assert_int_equal(st.access_added, 3);
	assert_int_equal(st.hosts_added, 1);
	assert_int_equal(st.shares_added, 0);
	merge_ok(h, a, &st);
	assert_int_equal(st.runs_added + st.hosts_added + st.shares_added, 0);
	hosts_db_close(h);
	assert_int_equal(qi(out, "SELECT count(*) FROM run"), 3);
	assert_int_equal(qi(out, "SELECT count(*) FROM host"), 5);

	/* a prefix of one experiment (upper case too) names it */
	h = open_db(out2);
	assert_int_equal(hosts_merge_experiment(h, a, "0F8FAD5B-D9", &st, NULL),
			 0);
	assert_int_equal(st.runs_added, 1);
	hosts_db_close(h);
	assert_string_equal(
	    q(out2, "SELECT group_concat(uuid) FROM experiment"), EXP);

	/* a database from before experiments: none to find */
	raw(old, "CREATE TABLE run (id INTEGER PRIMARY KEY, started_at TEXT "
		 "NOT NULL, host TEXT); PRAGMA user_version = 3");
	h = open_db(out2);
	assert_int_equal(hosts_merge_experiment(h, old, EXP, &st, &err),
			 -ENOENT);
	assert_non_null(strstr(err, "has no experiment " EXP));
	free(err);
	hosts_db_close(h);
	assert_int_equal(qi(a, "SELECT count(*) FROM run"), 3);
}

#define TMP_TEST(f) cmocka_unit_test_setup_teardown(f, tmp_setup, tmp_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    TMP_TEST(test_merge_twice), TMP_TEST(test_host_rule),
	    TMP_TEST(test_steps),	TMP_TEST(test_shares),
	    TMP_TEST(test_old_schema),	TMP_TEST(test_bad_input),
	    TMP_TEST(test_experiment),	TMP_TEST(test_crafted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
