/* SPDX-License-Identifier: MIT */
/* Unit tests of the store: schema, summaries with hand-computed percentiles,
 * the batched recorder under contention, durability, and its error paths. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "play/player.h"
#include "store.h"

#define EPOCH 1000000000000ull	/* a monotonic time, ns */
#define SEC 1000000000ull

/* ---------------------------------------------------------------- helpers */

struct tmp {
	char dir[64];
	char db[96];
};

/* Setup: a private directory per test; teardown removes it even when
 * the test failed. */
static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	strcpy(t->dir, "/tmp/test_store-XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	snprintf(t->db, sizeof(t->db), "%s/run.db", t->dir);
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
		if (unlink(path))
			rmdir(path);
	}
	if (d)
		closedir(d);
	rc = rmdir(t->dir);
	free(t);
	return rc;
}

/* A second connection, as a user's sqlite3 shell would be. */
static sqlite3 *raw_open(const char *path)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE,
					 NULL),
			 SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
	char *err = NULL;
	int rc = sqlite3_exec(db, sql, NULL, NULL, &err);

	if (rc != SQLITE_OK)
		fail_msg("%s: %s", sql, err ? err : "?");
}

/* A database file as an older timelinefs left it: sql run in a new file
 * at path (the migration tests' starting point). */
static void old_file(const char *path, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	raw_exec(db, sql);
	sqlite3_close(db);
}

static sqlite3_stmt *q_row(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
	if (sqlite3_step(s) != SQLITE_ROW)
		fail_msg("%s: no row (%s)", sql, sqlite3_errmsg(db));
	return s;
}

static int64_t q_i64(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = q_row(db, sql);
	int64_t v;

	if (sqlite3_column_type(s, 0) != SQLITE_INTEGER)
		fail_msg("%s: not an integer", sql);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* Compare a text column byte for byte (and that it is TEXT). */
static void q_text_eq(sqlite3 *db, const char *sql, const char *want)
{
	sqlite3_stmt *s = q_row(db, sql);
	const void *got;
	int n;

	assert_int_equal(sqlite3_column_type(s, 0), SQLITE_TEXT);
	got = sqlite3_column_blob(s, 0);
	n = sqlite3_column_bytes(s, 0);
	if (n != (int)strlen(want) || memcmp(got, want, (size_t)n))
		fail_msg("%s:\n got  '%.*s'\n want '%s'", sql, n,
			 (const char *)got, want);
	sqlite3_finalize(s);
}

static const struct store_run_info run_info = {
	.label = "test",
	.kernel = "6.1.0-test",
	.config_hz = 1000,
	.host = "testhost",
	.options = "db=run.db",
	.media_dir = "/srv/media",
};

static struct store *open_ok(const char *path, unsigned cap)
{
	struct store *st = NULL;
	char *msg = NULL;
	int rc = store_open(path, cap, &st, &msg);

	if (rc)
		fail_msg("store_open %s: %d %s", path, rc, msg ? msg : "");
	assert_null(msg);
	assert_non_null(st);
	return st;
}

/* Open, begin a run with one timeline, start the recorder. */
static struct store *start_ok(const char *path, unsigned cap,
			      const struct store_run_info *info, int64_t *tl)
{
	struct store_timeline_info ti = {
		.name = "tl1", .path = "/srv/media/tl1.tl",
		.fps_num = 25, .fps_den = 1, .frames = 100, .bytes = 123456,
	};
	struct store *st = open_ok(path, cap);

	assert_int_equal(store_run_begin(st, info, EPOCH), 0);
	assert_true(store_run_id(st) > 0);
	assert_int_equal(store_timeline_add(st, &ti, tl), 0);
	assert_true(*tl > 0);
	assert_int_equal(store_start(st), 0);
	return st;
}

static struct store_access mk_access(int64_t frame, uint64_t issued,
				     uint64_t lat, uint64_t due, int err)
{
	struct store_access a = {
		.frame = frame, .track = "V", .clip = "clip0001",
		.file_offset = (uint64_t)frame * 4096, .length = 4096,
		.sched_ns = issued, .due_ns = due, .issued_ns = issued,
		.done_ns = issued + lat, .err = err,
	};

	return a;
}

/* store_stream_open for a reader that opened from its main thread, in no
 * session of note. */
static int stream_open(struct store *st, int64_t tl, pid_t pid,
		       const char *comm, uint64_t opened_ns,
		       struct store_stream **out)
{
	struct store_reader who = { .pid = pid, .tid = pid, .comm = comm };

	return store_stream_open(st, tl, &who, opened_ns, out);
}

/* Close a stream with the totals most tests care about (the rest 0). */
static void close_ring(struct store_stream *ss, uint64_t closed_ns,
		       uint64_t bytes, int64_t frames, int64_t late_frames,
		       int64_t failed_frames, int64_t ring_frames)
{
	struct store_stream_totals t = {
		.closed_ns = closed_ns, .bytes = bytes, .frames = frames,
		.late_frames = late_frames, .failed_frames = failed_frames,
		.ring_frames = ring_frames,
	};

	store_stream_close(ss, &t);
}

static void close_stream(struct store_stream *ss, uint64_t closed_ns,
			 uint64_t bytes, int64_t frames, int64_t late_frames,
			 int64_t failed_frames)
{
	close_ring(ss, closed_ns, bytes, frames, late_frames, failed_frames,
		   0);
}

/* ---------------------------------------------------------------- schema */

static const struct {
	const char *table;
	const char *cols;	/* every column, in order */
} schema_cases[] = {
	{ "run", "id label started_at ended_at kernel config_hz host options "
		 "media_dir queue_full_waits rows_lost duration_ns uuid "
		 "t0_unix_ns host_id" },
	{ "experiment", "id uuid started_at ended_at ranks machines command "
			"plan max_lo max_hi verdict" },
	{ "host", "id experiment_id rank name machine_id boot_id "
		  "offset_start_ns rtt_start_ns t_start_ns offset_end_ns "
		  "rtt_end_ns t_end_ns sync sync_error_us complete reason" },
	{ "bench_step", "id run_id label workstations repetition started_ns "
			"ended_ns wall_s reader experiment_id step_no "
			"total_workstations planned_unix_ns" },
	{ "bench_client", "step_id stream_id workstation address via client "
			  "wall_s bytes dropped_frames buffering_waits "
			  "exit_status" },
	{ "timeline", "id run_id name path fps_num fps_den frames bytes" },
	{ "problem", "id run_id message" },
	{ "run_env", "run_id key value" },
	{ "stream", "id run_id timeline_id pid comm opened_ns closed_ns bytes "
		    "frames late_frames failed_frames requests reloads seeks "
		    "tid sid file kind writer_drops reader_late_frames ring_frames" },
	{ "access", "id stream_id frame track clip file_offset length "
		    "sched_ns due_ns issued_ns done_ns errno injected played "
		    "dep op image wake_ns ring_fill" },
	{ "op", "id name" },
	{ "access_v", "id stream_id run_id frame track clip file_offset "
		      "length sched_ns due_ns issued_ns done_ns errno "
		      "latency_ns late dep op image kind" },
	{ "op_summary", "run_id stream_id op accesses bytes errors "
			"late_accesses mean_us max_us kind" },
	{ "stream_summary",
	  "stream_id run_id label timeline pid comm opened_ns closed_ns "
	  "duration_s bytes mb_s frames late_frames failed_frames accesses "
	  "errors late_accesses p50_us p95_us p99_us max_us requests "
	  "kib_per_request reloads seeks tid sid dep_accesses opens "
	  "header_reads closes kind file writer_drops writes awaits "
	  "reader_late_frames headroom_min_us headroom_p1_us headroom_p5_us headroom_p50_us" },
	{ "run_summary",
	  "id label started_at kernel config_hz streams bytes duration_s mb_s "
	  "frames late_frames failed_frames accesses errors late_accesses "
	  "p50_us p95_us p99_us max_us queue_full_waits rows_lost problems "
	  "dep_accesses opens header_reads closes play_streams play_frames "
	  "play_mb_s play_p99_us record_streams record_frames dropped_frames "
	  "writer_drops record_mb_s record_p99_us missed_frames "
	  "headroom_min_us headroom_p1_us headroom_p5_us headroom_p50_us" },
	{ "late_access",
	  "run_id stream_id timeline frame track clip file_offset length "
	  "due_ns done_ns latency_us late_by_us new_file after_cut errno "
	  "issue_delay_us played sched_ns cause dep op image kind "
	  "wake_delay_us ring_fill ring_frames idle_us timer_idle_us "
	  "reader_idle_us" },
	{ "frame_headroom",
	  "run_id stream_id frame sched_ns due_ns done_ns headroom_ns late" },
	{ "late_frame",
	  "run_id stream_id timeline frame due_ns tracks clips late_by_us "
	  "new_file after_cut issue_delay_us cause kind wake_delay_us "
	  "ring_fill ring_frames idle_us timer_idle_us reader_idle_us" },
	{ "timeseries",
	  "run_id second accesses bytes mb_s late_accesses late_frames "
	  "streams read_bytes write_bytes dropped_frames record_streams" },
	{ "bench_step_summary",
	  "step_id run_id label workstations repetition kernel config_hz "
	  "streams wall_s bytes mb_s frames late_frames failed_frames "
	  "accesses errors late_accesses p50_us p95_us p99_us max_us reader "
	  "play_streams play_mb_s play_p99_us record_streams record_frames "
	  "dropped_frames writer_drops record_mb_s record_p99_us "
	  "headroom_min_us headroom_p1_us headroom_p5_us headroom_p50_us" },
	{ "track_latency",
	  "run_id stream_id track accesses errors late_accesses mean_us "
	  "p50_us p90_us p95_us p99_us p99_9_us max_us kind" },
	{ "run_track_latency",
	  "run_id track accesses errors late_accesses mean_us p50_us p90_us "
	  "p95_us p99_us p99_9_us max_us kind" },
};

static void check_columns(sqlite3 *db, const char *table, const char *want)
{
	char sql[128], got[1024] = "";
	sqlite3_stmt *s;
	int i;

	snprintf(sql, sizeof(sql), "SELECT * FROM %s LIMIT 0", table);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	for (i = 0; i < sqlite3_column_count(s); i++) {
		if (i)
			strcat(got, " ");
		strcat(got, sqlite3_column_name(s, i));
	}
	sqlite3_finalize(s);
	assert_string_equal(got, want);
}

/* Every table and view has the columns of schema_cases, in order. */
static void check_schema(sqlite3 *db)
{
	size_t i;

	for (i = 0; i < sizeof(schema_cases) / sizeof(schema_cases[0]); i++)
		check_columns(db, schema_cases[i].table, schema_cases[i].cols);
}

/* The schema text itself: applies twice (idempotent) and has every name. */
static void test_schema_text(void **state)
{
	sqlite3 *db = NULL;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	raw_exec(db, store_schema_sql);
	raw_exec(db, store_schema_sql);
	check_schema(db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM sqlite_schema WHERE "
				   "type = 'index' AND tbl_name = 'access' "
				   "AND sql LIKE '%(stream_id)%'"),
			 1);
	sqlite3_close(db);
}

/* A whole run on ":memory:", observed through the counters. */
static void test_memory_run(void **state)
{
	struct store_stream *ss;
	struct store_stats stats;
	struct store *st;
	struct store_access a;
	int64_t tl;
	int i;

	(void)state;
	st = start_ok(":memory:", 0, &run_info, &tl);
	assert_int_equal(store_start(st), -EINVAL);	/* only once */
	assert_int_equal(stream_open(st, tl, 42, "dd", EPOCH + SEC, &ss),
			 0);
	for (i = 0; i < 1000; i++) {
		a = mk_access(i, EPOCH + SEC + (uint64_t)i, 1000,
			      EPOCH + 2 * SEC, 0);
		store_access_add(ss, &a);
	}
	close_stream(ss, EPOCH + 2 * SEC, 1000 * 4096, 1000, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + 3 * SEC), 0);
	assert_int_equal(store_run_end(st, EPOCH + 3 * SEC), 0); /* no-op */
	store_get_stats(st, &stats);
	assert_int_equal(stats.rows_queued, 1000);
	assert_int_equal(stats.rows_written, 1000);
	assert_int_equal(stats.rows_lost, 0);
	assert_true(stats.commits >= 1);
	assert_int_equal(stats.last_error, 0);
	assert_null(store_errmsg(st));
	store_close(st);
}

static void test_call_order(void **state)
{
	struct store_timeline_info ti = { .name = "x" };
	struct store *st = open_ok(":memory:", 0);
	int64_t id;

	(void)state;
	assert_int_equal(store_start(st), -EINVAL);	/* no run yet */
	assert_int_equal(store_timeline_add(st, &ti, &id), -EINVAL);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), -EINVAL);
	assert_int_equal(store_start(st), 0);
	assert_int_equal(store_timeline_add(st, &ti, &id), -EINVAL);
	store_close(st);	/* ends the run itself */
}

/* ---------------------------------------------------------------- summaries */

/*
 * Stream A: 20 accesses, sorted latencies r * 1000 + 456 ns (r = 1..20),
 * queued shuffled; due 15 us after issue, so r = 15..20 are late (6).
 *   nearest rank: p50 = rank 10 = 10456 ns -> 10.5 us (interpolation
 *   would give 10.956 -> 11.0), p95 = rank 19 -> 19.5, p99 = rank 20 ->
 *   20.5, max 20.5.  Open 1 s to 3.5 s, 50e6 bytes: 20.0 MB/s over 2.5 s.
 * Stream B: 7 accesses of 100..600 us and 7 ms, due 500 us after issue
 *   (2 late: the one done exactly at its due time is not), one EIO.
 *   p50 = rank 4 = 400.0, p95 = p99 = max = rank 7 = 7000.0.
 *   Open 2 s to 6 s, 30e6 bytes: 7.5 MB/s over 4.0 s.
 * Run: 27 latencies, A's 20 below B's 7.  p50 = rank 14 = A's 14th =
 *   14456 -> 14.5, p95 = rank 26 = B's 6th = 600.0, p99 = rank 27 =
 *   7000.0, max 7000.0.  1 s to 6 s = 5.0 s, 80e6 bytes: 16.0 MB/s.
 */
static const unsigned perm_a[20] = {
	7, 19, 2, 11, 0, 15, 4, 9, 18, 1, 13, 6, 17, 3, 10, 16, 5, 12, 8, 14,
};
static const uint64_t lat_b[7] = {
	300000, 7000000, 100000, 500000, 200000, 600000, 400000,
};

#define SA "stream_summary WHERE pid = 100"
#define SB "stream_summary WHERE pid = 200"
#define RS "run_summary"

static const struct summary_case {
	const char *from;
	const char *col;
	double want;		/* integers too: exact in a double */
	int type;		/* SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT */
	const char *text;
} summary_cases[] = {
	{ SA, "p50_us", 10.5, SQLITE_FLOAT, NULL },
	{ SA, "p95_us", 19.5, SQLITE_FLOAT, NULL },
	{ SA, "p99_us", 20.5, SQLITE_FLOAT, NULL },
	{ SA, "max_us", 20.5, SQLITE_FLOAT, NULL },
	{ SA, "mb_s", 20.0, SQLITE_FLOAT, NULL },
	{ SA, "duration_s", 2.5, SQLITE_FLOAT, NULL },
	{ SA, "bytes", 50000000, SQLITE_INTEGER, NULL },
	{ SA, "accesses", 20, SQLITE_INTEGER, NULL },
	{ SA, "errors", 0, SQLITE_INTEGER, NULL },
	{ SA, "late_accesses", 6, SQLITE_INTEGER, NULL },
	{ SA, "late_frames", 2, SQLITE_INTEGER, NULL },
	{ SA, "opened_ns", 1e9, SQLITE_INTEGER, NULL },
	{ SA, "timeline", 0, SQLITE_TEXT, "tl1" },
	{ SA, "label", 0, SQLITE_TEXT, "test" },
	{ SA, "comm", 0, SQLITE_TEXT, "dd" },
	{ SA, "requests", 50, SQLITE_INTEGER, NULL },
	{ SA, "kib_per_request", 976.6, SQLITE_FLOAT, NULL }, /* 976.5625 */
	{ SA, "reloads", 3, SQLITE_INTEGER, NULL },
	{ SA, "seeks", 1, SQLITE_INTEGER, NULL },
	{ SB, "p50_us", 400.0, SQLITE_FLOAT, NULL },
	{ SB, "p95_us", 7000.0, SQLITE_FLOAT, NULL },
	{ SB, "p99_us", 7000.0, SQLITE_FLOAT, NULL },
	{ SB, "max_us", 7000.0, SQLITE_FLOAT, NULL },
	{ SB, "mb_s", 7.5, SQLITE_FLOAT, NULL },
	{ SB, "duration_s", 4.0, SQLITE_FLOAT, NULL },
	{ SB, "errors", 1, SQLITE_INTEGER, NULL },
	{ SB, "late_accesses", 2, SQLITE_INTEGER, NULL },
	{ SB, "late_frames", 1, SQLITE_INTEGER, NULL },
	{ SB, "failed_frames", 1, SQLITE_INTEGER, NULL },
	{ SB, "requests", 0, SQLITE_INTEGER, NULL },
	{ SB, "kib_per_request", 0, SQLITE_NULL, NULL },	/* no request */
	{ RS, "streams", 2, SQLITE_INTEGER, NULL },
	{ RS, "bytes", 80000000, SQLITE_INTEGER, NULL },
	{ RS, "duration_s", 5.0, SQLITE_FLOAT, NULL },
	{ RS, "mb_s", 16.0, SQLITE_FLOAT, NULL },
	{ RS, "frames", 27, SQLITE_INTEGER, NULL },
	{ RS, "late_frames", 3, SQLITE_INTEGER, NULL },
	{ RS, "failed_frames", 1, SQLITE_INTEGER, NULL },
	{ RS, "accesses", 27, SQLITE_INTEGER, NULL },
	{ RS, "errors", 1, SQLITE_INTEGER, NULL },
	{ RS, "late_accesses", 8, SQLITE_INTEGER, NULL },
	{ RS, "p50_us", 14.5, SQLITE_FLOAT, NULL },
	{ RS, "p95_us", 600.0, SQLITE_FLOAT, NULL },
	{ RS, "p99_us", 7000.0, SQLITE_FLOAT, NULL },
	{ RS, "max_us", 7000.0, SQLITE_FLOAT, NULL },
	{ RS, "config_hz", 1000, SQLITE_INTEGER, NULL },
	{ RS, "kernel", 0, SQLITE_TEXT, "6.1.0-test" },
	{ RS, "queue_full_waits", 0, SQLITE_INTEGER, NULL },
};

static void check_summary(sqlite3 *db, const struct summary_case *c)
{
	char sql[256];
	sqlite3_stmt *s;
	double got;

	snprintf(sql, sizeof(sql), "SELECT %s FROM %s", c->col, c->from);
	s = q_row(db, sql);
	if (sqlite3_column_type(s, 0) != c->type)
		fail_msg("%s: type %d, want %d", sql,
			 sqlite3_column_type(s, 0), c->type);
	if (c->text) {
		sqlite3_finalize(s);
		q_text_eq(db, sql, c->text);
		return;
	}
	got = sqlite3_column_double(s, 0);
	sqlite3_finalize(s);
	/* exact: the views round, and every expected value is exact */
	if (got != c->want)
		fail_msg("%s: %.17g, want %.17g", sql, got, c->want);
}

static void test_summaries(void **state)
{
	struct store_stream *sa, *sb;
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	unsigned i;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 100, "dd", EPOCH + SEC, &sa),
			 0);
	assert_int_equal(stream_open(st, tl, 200, "cat",
					   EPOCH + 2 * SEC, &sb),
			 0);
	for (i = 0; i < 20; i++) {
		uint64_t issued = EPOCH + SEC + i * 10000000ull;
		uint64_t lat = (perm_a[i] + 1) * 1000ull + 456;

		a = mk_access(i, issued, lat, issued + 15000, 0);
		store_access_add(sa, &a);
	}
	for (i = 0; i < 7; i++) {
		uint64_t issued = EPOCH + 2 * SEC + i * 10000000ull;

		a = mk_access(i, issued, lat_b[i], issued + 500000,
			      i == 3 ? EIO : 0);
		store_access_add(sb, &a);
	}
	/* sa: 50 requests of 10^6 B, 3 frames loaded again, one seek */
	store_stream_close(sa, &(struct store_stream_totals){
				       .closed_ns = EPOCH + 3 * SEC + SEC / 2,
				       .bytes = 50000000, .frames = 20,
				       .late_frames = 2, .requests = 50,
				       .reloads = 3, .seeks = 1 });
	close_stream(sb, EPOCH + 6 * SEC, 30000000, 7, 1, 1);
	assert_int_equal(store_run_end(st, EPOCH + 7 * SEC), 0);
	store_close(st);

	db = raw_open(t->db);
	/* times are relative to the epoch */
	assert_int_equal(q_i64(db, "SELECT opened_ns FROM stream "
				   "WHERE pid = 100"),
			 SEC);
	assert_int_equal(q_i64(db, "SELECT issued_ns FROM access_v WHERE "
				   "run_id = 1 ORDER BY id LIMIT 1"),
			 SEC);
	assert_int_equal(q_i64(db, "SELECT latency_ns FROM access_v "
				   "ORDER BY id LIMIT 1"),
			 8456);
	assert_int_equal(q_i64(db, "SELECT duration_ns FROM run"), 7 * SEC);
	assert_int_equal(q_i64(db, "SELECT sum(late) FROM access_v "
				   "WHERE stream_id = 1"),
			 6);
	assert_int_equal(q_i64(db, "SELECT sum(late) FROM access_v "
				   "WHERE stream_id = 2"),
			 2);

	for (i = 0; i < sizeof(summary_cases) / sizeof(summary_cases[0]); i++)
		check_summary(db, &summary_cases[i]);
	sqlite3_close(db);
}

/* ---------------------------------------------------------------- recorder */

#define PRODUCERS 4
#define PER_PRODUCER 25000

struct producer {
	struct store *st;
	int64_t tl;
	int id;
	int rc;
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	struct store_stream *ss;
	struct store_access a;
	int i;

	p->rc = stream_open(p->st, p->tl, 1000 + p->id, "producer",
				  EPOCH, &ss);
	if (p->rc)
		return NULL;
	for (i = 0; i < PER_PRODUCER; i++) {
		a = mk_access(i, EPOCH + (uint64_t)i * 1000, 500,
			      EPOCH + (uint64_t)i * 1000 + 1000, 0);
		store_access_add(ss, &a);
	}
	close_stream(ss, EPOCH + SEC, PER_PRODUCER * 4096ull,
	     PER_PRODUCER, 0, 0);
	return NULL;
}

/* 100k rows through a 64-entry queue: nothing lost, per-stream order kept,
 * the full queue counted, and rows batched into far fewer commits. */
static void test_batching(void **state)
{
	struct producer p[PRODUCERS];
	pthread_t th[PRODUCERS];
	struct store_stats stats;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	int i;

	st = start_ok(t->db, 64, &run_info, &tl);
	for (i = 0; i < PRODUCERS; i++) {
		p[i] = (struct producer){ .st = st, .tl = tl, .id = i };
		assert_int_equal(pthread_create(&th[i], NULL, produce, &p[i]),
				 0);
	}
	for (i = 0; i < PRODUCERS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(p[i].rc, 0);
	}
	assert_int_equal(store_run_end(st, EPOCH + 2 * SEC), 0);
	store_get_stats(st, &stats);
	store_close(st);

	assert_int_equal(stats.rows_queued, PRODUCERS * PER_PRODUCER);
	assert_int_equal(stats.rows_written, PRODUCERS * PER_PRODUCER);
	assert_int_equal(stats.rows_lost, 0);
	assert_true(stats.queue_full_waits > 0);
	assert_true(stats.commits < PRODUCERS * PER_PRODUCER);
	/* a batch never exceeds the queue: at least rows / 64 commits */
	assert_true(stats.commits >= PRODUCERS * PER_PRODUCER / 64);

	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access"),
			 PRODUCERS * PER_PRODUCER);
	assert_int_equal(q_i64(db, "SELECT count(DISTINCT stream_id) "
				   "FROM access"),
			 PRODUCERS);
	assert_int_equal(q_i64(db, "SELECT min(c) FROM (SELECT count(*) AS c "
				   "FROM access GROUP BY stream_id)"),
			 PER_PRODUCER);
	/* each producer's rows are in its queue order */
	assert_int_equal(q_i64(db, "SELECT count(*) FROM (SELECT frame, "
				   "lag(frame) OVER (PARTITION BY stream_id "
				   "ORDER BY id) AS prev FROM access) "
				   "WHERE prev >= frame"),
			 0);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM stream WHERE "
				   "frames = 25000 AND closed_ns = 1000000000"),
			 PRODUCERS);
	assert_int_equal(q_i64(db, "SELECT queue_full_waits FROM run"),
			 (int64_t)stats.queue_full_waits);
	assert_int_equal(q_i64(db, "SELECT rows_lost FROM run"), 0);
	sqlite3_close(db);
}

/*
 * A VFS that passes everything to the default one and counts the statement
 * journals SQLite opens.  A multi-row INSERT that may abort needs one, and
 * it cost the recorder a 4 KiB write per row once several streams' index
 * entries grew side by side (see ACCESS_INSERT in store.c).
 */
static sqlite3_vfs *base_vfs;
static int subjournals;

static int count_open(sqlite3_vfs *vfs, sqlite3_filename name,
		      sqlite3_file *f, int flags, int *out)
{
	(void)vfs;
	if (flags & SQLITE_OPEN_SUBJOURNAL)
		subjournals++;
	return base_vfs->xOpen(base_vfs, name, f, flags, out);
}

/* Sixteen streams' rows interleaved frame by frame, as players write them:
 * every row arrives, in multi-row statements, without a statement journal. */
static void test_no_statement_journal(void **state)
{
#define JSTREAMS 16
#define JFRAMES 400
	struct store_stream *ss[JSTREAMS];
	struct store_stats stats;
	struct store *st;
	struct tmp *t = *state;
	sqlite3_vfs vfs;
	sqlite3 *db;
	int64_t tl;
	int i, k;

	base_vfs = sqlite3_vfs_find(NULL);
	assert_non_null(base_vfs);
	vfs = *base_vfs;
	vfs.zName = "count-subjournal";
	vfs.xOpen = count_open;
	assert_int_equal(sqlite3_vfs_register(&vfs, 1), SQLITE_OK);
	subjournals = 0;

	st = start_ok(t->db, 4096, &run_info, &tl);
	for (k = 0; k < JSTREAMS; k++)
		assert_int_equal(stream_open(st, tl, 2000 + k, "ws", EPOCH,
						   &ss[k]),
				 0);
	for (i = 0; i < JFRAMES; i++)
		for (k = 0; k < JSTREAMS; k++) {
			struct store_access a = mk_access(
				i, EPOCH + (uint64_t)i * 1000, 500,
				EPOCH + SEC, 0);

			store_access_add(ss[k], &a);
		}
	for (k = 0; k < JSTREAMS; k++)
		close_stream(ss[k], EPOCH + SEC, JFRAMES * 4096ull,
			     JFRAMES, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + 2 * SEC), 0);
	store_get_stats(st, &stats);
	store_close(st);
	sqlite3_vfs_register(base_vfs, 1);
	sqlite3_vfs_unregister(&vfs);

	assert_int_equal(stats.rows_written, JSTREAMS * JFRAMES);
	/* multi-row statements were used: far fewer commits than rows */
	assert_true(stats.commits < JSTREAMS * JFRAMES / 32);
	assert_int_equal(subjournals, 0);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access"),
			 JSTREAMS * JFRAMES);
	sqlite3_close(db);
#undef JSTREAMS
#undef JFRAMES
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One row becomes visible to another connection within the commit interval
 * (checked with slack), without a full batch and before the run ends. */
static void test_commit_interval(void **state)
{
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	uint64_t t0, waited;
	int64_t tl, n = 0;

	st = start_ok(t->db, 0, &run_info, &tl);
	db = raw_open(t->db);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	t0 = now_ms();
	store_access_add(ss, &a);
	while ((waited = now_ms() - t0) < 2000) {
		n = q_i64(db, "SELECT count(*) FROM access");
		if (n)
			break;
		usleep(2000);
	}
	assert_int_equal(n, 1);
	assert_true(waited < 10 * STORE_COMMIT_INTERVAL_MS);
	close_stream(ss, EPOCH + SEC, 4096, 1, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	sqlite3_close(db);
}

/* Rows queued right before store_run_end are written by it. */
static void test_flush_on_end(void **state)
{
	struct store_stream *ss;
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	int i;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	for (i = 0; i < 500; i++) {
		a = mk_access(i, EPOCH + (uint64_t)i, 10, EPOCH + SEC, 0);
		store_access_add(ss, &a);
	}
	close_stream(ss, EPOCH + SEC, 500 * 4096, 500, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + 2 * SEC), 0);
	/* the data is on disk before store_close */
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access"), 500);
	assert_int_equal(q_i64(db, "SELECT frames FROM stream"), 500);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run WHERE "
				   "ended_at IS NOT NULL"),
			 1);
	sqlite3_close(db);
	store_close(st);
}

/* Calls after the run ended neither hang nor write; they are counted. */
static void test_after_end(void **state)
{
	struct store_stream *ss, *ss2 = NULL;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store_stats stats;
	struct store *st;
	int64_t tl;

	(void)state;
	st = start_ok(":memory:", 4, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	store_access_add(ss, &a);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_access_add(ss, &a);
	close_stream(ss, EPOCH + SEC, 0, 0, 0, 0);
	assert_int_equal(stream_open(st, tl, 2, "dd", EPOCH, &ss2),
			 -ESHUTDOWN);
	assert_null(ss2);
	store_get_stats(st, &stats);
	assert_int_equal(stats.rows_queued, 2);
	assert_int_equal(stats.rows_written, 1);
	assert_int_equal(stats.rows_lost, 1);
	store_close(st);
}

/* A stream never closed before the run ends is freed by store_close. */
static void test_unclosed_stream(void **state)
{
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store *st;
	int64_t tl;

	(void)state;
	st = start_ok(":memory:", 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	store_access_add(ss, &a);
	store_close(st);	/* leak checked by the sanitizer build */
}

/* ---------------------------------------------------------------- files */

static void one_run(const char *path, const char *label)
{
	struct store_run_info info = run_info;
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store *st;
	int64_t tl;

	info.label = label;
	st = start_ok(path, 0, &info, &tl);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	store_access_add(ss, &a);
	close_stream(ss, EPOCH + SEC, 4096, 1, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
}

#define D "[0-9]"
#define ISO_GLOB D D D D "-" D D "-" D D "T" D D ":" D D ":" D D "." D D D "Z"

/* Each open appends a run to the same file; the file is 0600, WAL. */
static void test_two_runs_file(void **state)
{
	struct stat sb;
	struct tmp *t = *state;
	sqlite3 *db;
	mode_t old = umask(022);

	one_run(t->db, "a");
	assert_int_equal(stat(t->db, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	one_run(t->db, "b");
	umask(old);

	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run"), 2);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run_summary "
				   "WHERE streams = 1 AND accesses = 1"),
			 2);
	assert_int_equal(q_i64(db, "SELECT count(DISTINCT run_id) "
				   "FROM stream"),
			 2);
	q_text_eq(db, "SELECT group_concat(label, ',') FROM "
		      "(SELECT label FROM run ORDER BY id)", "a,b");
	q_text_eq(db, "PRAGMA journal_mode", "wal");
	assert_int_equal(q_i64(db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	/* 2026-12-02T14:45:26.123Z */
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run WHERE "
				   "started_at GLOB '" ISO_GLOB "' AND "
				   "ended_at GLOB '" ISO_GLOB "' AND "
				   "ended_at >= started_at"),
			 2);
	sqlite3_close(db);
}

/* A run killed while it recorded leaves its record stream row open; the
 * next run's repair gives it the frames and bytes kept, closed at its
 * last committed access row.  Another run's uuid finds nothing. */
static void test_stream_repaired(void **state)
{
	struct tmp *t = *state;
	struct store_run_info info = run_info;
	struct store_reader who = { .pid = 1, .tid = 1, .sid = -1,
				    .comm = "dd", .file = "ingest/cam1",
				    .record = 1 };
	struct store_access a = mk_access(0, EPOCH + 5, 10, EPOCH + 100, 0);
	struct store_stream *ss;
	struct store *st;
	sqlite3 *db;

	(void)state;
	info.uuid = "11111111-2222-4333-8444-555555555555";
	st = open_ok(t->db, 0);
	assert_int_equal(store_run_begin(st, &info, EPOCH), 0);
	assert_int_equal(store_start(st), 0);
	assert_int_equal(store_stream_open(st, 0, &who, EPOCH, &ss), 0);
	a.op = 9;	/* receive */
	store_access_add(ss, &a);
	/* killed: the row stays open, the run unended */
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(sqlite3_exec(db, "UPDATE stream SET closed_ns = NULL, "
				      "frames = NULL, bytes = NULL",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);

	info.uuid = NULL;
	st = open_ok(t->db, 0);
	assert_int_equal(store_stream_repaired(st, "x", "ingest/cam1", 3, 9),
			 -EINVAL);
	assert_int_equal(store_run_begin(st, &info, EPOCH), 0);
	assert_int_equal(store_stream_repaired(st, "no-such-run",
					       "ingest/cam1", 3, 9),
			 -ENOENT);
	assert_int_equal(store_stream_repaired(st, "11111111-2222-4333-8444-555555555555",
					       "ingest/cam1", 3, 1872),
			 0);
	assert_int_equal(store_start(st), 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	q_text_eq(db, "SELECT closed_ns || ',' || frames || ',' || bytes "
		      "FROM stream", "15,3,1872");
	sqlite3_close(db);
}

/* An existing file keeps its mode (we only choose it when creating). */
static void test_existing_mode(void **state)
{
	struct store *st;
	struct stat sb;
	struct tmp *t = *state;
	FILE *f;

	f = fopen(t->db, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(chmod(t->db, 0640), 0);
	st = open_ok(t->db, 0);
	store_close(st);
	assert_int_equal(stat(t->db, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0640);
}

/* A database whose access table predates the injected column gets it at
 * store_open (once: a second open does not fail on a duplicate column),
 * and injected bits are recorded. */
static void test_migrate_injected(void **state)
{
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;

	assert_int_equal(sqlite3_open(t->db, &db), SQLITE_OK);
	raw_exec(db, "CREATE TABLE access (id INTEGER PRIMARY KEY, "
		     "stream_id INTEGER NOT NULL, frame INTEGER, track TEXT, "
		     "clip TEXT, file_offset INTEGER, length INTEGER, "
		     "sched_ns INTEGER, due_ns INTEGER, issued_ns INTEGER, "
		     "done_ns INTEGER, errno INTEGER NOT NULL DEFAULT 0)");
	sqlite3_close(db);
	st = open_ok(t->db, 0);
	store_close(st);
	st = open_ok(t->db, 0);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	assert_int_equal(store_start(st), 0);
	assert_int_equal(stream_open(st, 0, 1, "dd", EPOCH, &ss), 0);
	a.injected = 3;
	store_access_add(ss, &a);
	close_stream(ss, EPOCH + 200, 0, 1, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + 300), 0);
	store_close(st);
	assert_int_equal(sqlite3_open(t->db, &db), SQLITE_OK);
	assert_int_equal(q_i64(db, "SELECT sum(injected) FROM access"), 3);
	sqlite3_close(db);
}

/* A refused mount's run: its problems in order, counted by run_summary;
 * problem rows only in the header, like timeline rows. */
static void test_problems(void **state)
{
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;

	st = open_ok(t->db, 0);
	assert_int_equal(store_problem_add(st, "x.tl:1: early"), -EINVAL);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	assert_int_equal(store_problem_add(st, "a.tl:3: unknown directive"),
			 0);
	assert_int_equal(store_problem_add(st, "b.edl:12: bad timecode 'it''s'"),
			 0);
	assert_int_equal(store_run_end(st, EPOCH + 1000), 0);
	assert_int_equal(store_problem_add(st, "c.tl:1: late"), -EINVAL);
	store_close(st);
	/* a run that mounted has none, and cannot add any once started */
	st = start_ok(t->db, 0, &run_info, &(int64_t){ 0 });
	assert_int_equal(store_problem_add(st, "d.tl:1: started"), -EINVAL);
	assert_int_equal(store_run_end(st, EPOCH + 1000), 0);
	store_close(st);

	db = raw_open(t->db);
	q_text_eq(db, "SELECT group_concat(message, '|') FROM (SELECT message "
		      "FROM problem WHERE run_id = 1 ORDER BY id)",
		  "a.tl:3: unknown directive|b.edl:12: bad timecode 'it''s'");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM problem"), 2);
	assert_int_equal(q_i64(db, "SELECT problems FROM run_summary "
				   "WHERE id = 1"),
			 2);
	assert_int_equal(q_i64(db, "SELECT problems FROM run_summary "
				   "WHERE id = 2"),
			 0);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run WHERE id = 1 "
				   "AND ended_at IS NOT NULL"),
			 1);
	sqlite3_close(db);
}

/* Open an older file twice, as two mounts would: the first open upgrades
 * it, the second must find nothing to do.  Each run records one stream
 * read by who, with the totals tot. */
static void open_twice(const char *path, const struct store_reader *who,
		       const struct store_stream_totals *tot)
{
	struct store_stream *ss;
	struct store *st;
	int i;

	for (i = 0; i < 2; i++) {
		st = open_ok(path, 0);
		assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
		assert_int_equal(store_start(st), 0);
		assert_int_equal(store_stream_open(st, 0, who, EPOCH, &ss), 0);
		store_stream_close(ss, tot);
		assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
		store_close(st);
	}
}

/* A version 1 file (stream without requests, reloads, seeks; its own
 * stream_summary): store_open adds the columns and replaces the view, a
 * stream's totals land in them, and opening again changes nothing. */
static void test_migrate_v2(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db;

	old_file(t->db, "CREATE TABLE stream (id INTEGER PRIMARY KEY, "
			"run_id INTEGER NOT NULL, timeline_id INTEGER, pid "
			"INTEGER, comm TEXT, opened_ns INTEGER, closed_ns "
			"INTEGER, bytes INTEGER, frames INTEGER, late_frames "
			"INTEGER, failed_frames INTEGER);"
			"INSERT INTO stream (run_id, pid, frames) "
			"VALUES (7, 1, 9);"
			"CREATE VIEW stream_summary AS SELECT id AS stream_id "
			"FROM stream;"
			"CREATE VIEW run_summary AS SELECT 1 AS id;"
			"CREATE VIEW late_access AS SELECT 1 AS frame;"
			"CREATE VIEW late_frame AS SELECT frame FROM "
			"late_access;"
			"PRAGMA user_version = 1");
	open_twice(t->db,
		   &(struct store_reader){ .pid = 2, .tid = 2, .comm = "dd" },
		   &(struct store_stream_totals){ .closed_ns = EPOCH + SEC,
						  .bytes = 4096, .frames = 1,
						  .requests = 2, .reloads = 1,
						  .seeks = 1 });
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	/* version 13: the bench's calibration table, in an older file too */
	assert_int_equal(q_i64(db, "SELECT count(*) FROM "
				   "pragma_table_info('calibration') WHERE "
				   "name IN ('readers', 'block_bytes', "
				   "'bytes_per_s', 'reads_per_s')"),
			 4);
	/* version 3: the late views say why a read was late */
	assert_int_equal(q_i64(db, "SELECT count(*) FROM "
				   "pragma_table_info('late_frame') WHERE "
				   "name IN ('cause', 'issue_delay_us')"),
			 2);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM "
				   "pragma_table_info('late_access') WHERE "
				   "name IN ('cause', 'issue_delay_us')"),
			 2);
	check_schema(db);
	/* the old row kept, its new columns NULL */
	assert_int_equal(q_i64(db, "SELECT frames FROM stream WHERE pid = 1"),
			 9);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM stream WHERE pid = 1 "
				   "AND requests IS NULL"),
			 1);
	assert_int_equal(q_i64(db, "SELECT sum(requests) + sum(reloads) + "
				   "sum(seeks) FROM stream WHERE pid = 2"),
			 8);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM stream_summary "
				   "WHERE kib_per_request = 2.0"),
			 2);
	sqlite3_close(db);
}

/* Who read: the process, the thread that opened and the session, each
 * NULL when unknown (pid, tid 0; sid -1); a session 0 (its leader outside
 * the daemon's PID namespace, as in a CI container) is recorded as 0;
 * comm as given, "" for none. */
static void test_reader_ids(void **state)
{
	static const struct store_reader who[] = {
		{ .pid = 300, .tid = 301, .sid = 250, .comm = "mpv" },
		{ .pid = 0, .tid = 401, .sid = -1, .comm = NULL },
		{ .pid = 500, .tid = 500, .sid = 0, .comm = "dd" },
	};
	struct store_stream *ss;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	size_t i;

	st = start_ok(t->db, 0, &run_info, &tl);
	for (i = 0; i < sizeof(who) / sizeof(who[0]); i++) {
		assert_int_equal(store_stream_open(st, tl, &who[i], EPOCH,
						   &ss),
				 0);
		close_stream(ss, EPOCH + SEC, 1, 1, 0, 0);
	}
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	q_text_eq(db, "SELECT group_concat(coalesce(pid, 'null') || ' ' || "
		      "coalesce(tid, 'null') || ' ' || coalesce(sid, 'null') "
		      "|| ' ' || quote(comm), '|') FROM (SELECT * FROM stream "
		      "ORDER BY id)",
		  "300 301 250 'mpv'|null 401 null ''|500 500 0 'dd'");
	q_text_eq(db, "SELECT group_concat(tid || ' ' || coalesce(sid, 'null'),"
		      " '|') FROM (SELECT * FROM stream_summary ORDER BY "
		      "stream_id)",
		  "301 250|401 null|500 0");
	sqlite3_close(db);
}

/*
 * A version 3 file, as timelinefs wrote it before streams had tid and sid
 * (its pid was FUSE's: the opening thread's id), built by hand from that
 * version's tables and views: store_open adds the columns, copies the old
 * pid into tid, recreates stream_summary with them, keeps everything else
 * (rows, the other views), and a new stream gets all three; opening again
 * changes nothing.
 */
static void test_migrate_v4(void **state)
{
	struct store_reader who = {
		.pid = 500, .tid = 501, .sid = 400, .comm = "ffmpeg",
	};
	struct tmp *t = *state;
	sqlite3 *db;

	old_file(t->db, "CREATE TABLE run (id INTEGER PRIMARY KEY, label TEXT, "
			"started_at TEXT NOT NULL, ended_at TEXT, kernel TEXT, "
			"config_hz INTEGER, host TEXT, options TEXT, media_dir "
			"TEXT, queue_full_waits INTEGER NOT NULL DEFAULT 0, "
			"rows_lost INTEGER NOT NULL DEFAULT 0, duration_ns "
			"INTEGER);"
			"CREATE TABLE stream (id INTEGER PRIMARY KEY, "
			"run_id INTEGER NOT NULL, timeline_id INTEGER, pid "
			"INTEGER, comm TEXT, opened_ns INTEGER, closed_ns "
			"INTEGER, bytes INTEGER, frames INTEGER, late_frames "
			"INTEGER, failed_frames INTEGER, requests INTEGER, "
			"reloads INTEGER, seeks INTEGER);"
			"INSERT INTO run (id, label, started_at) VALUES "
			"(1, 'old', '2026-01-01T00:00:00.000Z');"
			"INSERT INTO stream (run_id, pid, comm, opened_ns, "
			"closed_ns, bytes, frames) VALUES "
			"(1, 77, 'vlc:demux', 0, 2000000000, 4000000, 50);"
			/* version 3's stream_summary, abridged: no tid,
			 * sid */
			"CREATE VIEW stream_summary AS SELECT "
			"s.id AS stream_id, s.run_id, s.pid, s.comm, s.bytes, "
			"s.requests, s.reloads, s.seeks FROM stream AS s;"
			"PRAGMA user_version = 3");
	open_twice(t->db, &who,
		   &(struct store_stream_totals){ .closed_ns = EPOCH + SEC,
						  .bytes = 4096, .frames = 1 });
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	check_schema(db);
	/* the old row: its thread id in tid as well, no session known;
	 * the new ones as given */
	q_text_eq(db, "SELECT group_concat(pid || ' ' || tid || ' ' || "
		      "coalesce(sid, 'null') || ' ' || comm || ' ' || bytes, "
		      "'|') FROM (SELECT * FROM stream_summary ORDER BY "
		      "stream_id)",
		  "77 77 null vlc:demux 4000000|500 501 400 ffmpeg 4096|"
		  "500 501 400 ffmpeg 4096");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run"), 3);
	q_text_eq(db, "SELECT label FROM run_summary WHERE id = 1", "old");
	sqlite3_close(db);
}

/* Quotes, %, UTF-8 and invalid UTF-8 come back byte for byte. */
static void test_text_roundtrip(void **state)
{
	/* quotes, printf and SQL syntax, UTF-8 (e acute, check mark), then
	 * invalid UTF-8: 0xff, 0xfe, a truncated two-byte sequence */
	static const char odd[] = "it's \"100%\" %s %n; DROP TABLE run;-- "
				  "\xc3\xa9t\xc3\xa9 \xe2\x9c\x93 "
				  "\xff\xfe\xc3(";
	struct store_run_info info = run_info;
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;

	info.label = odd;
	info.options = odd;
	info.config_hz = -1;
	info.host = NULL;
	st = start_ok(t->db, 0, &info, &tl);
	assert_int_equal(stream_open(st, tl, 7, odd, EPOCH, &ss), 0);
	a.track = odd;
	a.clip = odd;
	store_access_add(ss, &a);
	close_stream(ss, EPOCH + SEC, 1, 1, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);

	db = raw_open(t->db);
	q_text_eq(db, "SELECT label FROM run", odd);
	q_text_eq(db, "SELECT options FROM run", odd);
	q_text_eq(db, "SELECT comm FROM stream", odd);
	q_text_eq(db, "SELECT track FROM access", odd);
	q_text_eq(db, "SELECT clip FROM access_v", odd);
	q_text_eq(db, "SELECT comm FROM stream_summary", odd);
	q_text_eq(db, "SELECT label FROM run_summary", odd);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run WHERE config_hz "
				   "IS NULL AND host IS NULL"),
			 1);
	sqlite3_close(db);
}

/* ---------------------------------------------------------------- errors */

static void expect_open_error(const char *path, int want, const char *part)
{
	struct store *st = (struct store *)&st;
	char *msg = NULL;

	assert_int_equal(store_open(path, 0, &st, &msg), want);
	assert_null(st);
	assert_non_null(msg);
	if (!strstr(msg, path) || !strstr(msg, part))
		fail_msg("message \"%s\" lacks \"%s\" or \"%s\"", msg, path,
			 part);
	assert_non_null(strstr(msg, "cannot open database"));
	free(msg);
	/* errmsg is optional */
	assert_int_equal(store_open(path, 0, &st, NULL), want);
}

static void test_open_errors(void **state)
{
	struct tmp *t = *state;
	char path[160];
	sqlite3 *db;
	FILE *f;

	snprintf(path, sizeof(path), "%s/no/such/dir.db", t->dir);
	expect_open_error(path, -ENOENT, "No such file or directory");
	expect_open_error(t->dir, -EISDIR, "Is a directory");

	f = fopen(t->db, "w");
	assert_non_null(f);
	fputs("this is not a database, it is a text file long enough to hold "
	      "a header of one hundred bytes............................\n", f);
	fclose(f);
	expect_open_error(t->db, -EIO, "not a database");
	unlink(t->db);

	/* a database from a future version is refused, not upgraded */
	store_close(open_ok(t->db, 0));
	db = raw_open(t->db);
	{
		char sql[64], part[64];

		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			 STORE_SCHEMA_VERSION + 1);
		raw_exec(db, sql);
		sqlite3_close(db);
		snprintf(part, sizeof(part), "schema version %d is newer",
			 STORE_SCHEMA_VERSION + 1);
		expect_open_error(t->db, -ENOTSUP, part);
	}
}

/* The run table dropped behind the store's back: -EIO with the reason. */
static void test_run_begin_error(void **state)
{
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;

	st = open_ok(t->db, 0);
	db = raw_open(t->db);
	raw_exec(db, "DROP VIEW run_summary; DROP VIEW stream_summary; "
		     "DROP TABLE run");
	sqlite3_close(db);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), -EIO);
	assert_non_null(store_errmsg(st));
	assert_non_null(strstr(store_errmsg(st), "cannot insert run row"));
	assert_non_null(strstr(store_errmsg(st), "no such table: run"));
	assert_int_equal(store_start(st), -EINVAL);
	store_close(st);
}

/* ---------------------------------------------------------------- hold */

/* The store's outage messages, collected. */
struct notes {
	pthread_mutex_t lock;
	int n;
	char msg[16][512];
};

static void note(void *ctx, const char *msg)
{
	struct notes *nt = ctx;

	pthread_mutex_lock(&nt->lock);
	if (nt->n < 16)
		snprintf(nt->msg[nt->n], sizeof(nt->msg[0]), "%s", msg);
	nt->n++;
	pthread_mutex_unlock(&nt->lock);
}

/* How many messages contain part; the last one in *last if not NULL. */
static int notes_with(struct notes *nt, const char *part, char *last)
{
	int i, k = 0;

	pthread_mutex_lock(&nt->lock);
	for (i = 0; i < nt->n && i < 16; i++)
		if (strstr(nt->msg[i], part)) {
			k++;
			if (last)
				strcpy(last, nt->msg[i]);
		}
	pthread_mutex_unlock(&nt->lock);
	return k;
}

/* Like start_ok, with a hold bound and the messages collected. */
static struct store *start_hold(const char *path, unsigned cap, uint64_t hold,
				struct notes *nt, int64_t *tl)
{
	struct store_timeline_info ti = {
		.name = "tl1", .path = "/srv/media/tl1.tl",
		.fps_num = 25, .fps_den = 1, .frames = 100, .bytes = 123456,
	};
	struct store *st = open_ok(path, cap);

	pthread_mutex_init(&nt->lock, NULL);
	nt->n = 0;
	assert_int_equal(store_set_hold(st, hold), 0);
	assert_int_equal(store_set_notify(st, note, nt), 0);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	assert_int_equal(store_timeline_add(st, &ti, tl), 0);
	assert_int_equal(store_start(st), 0);
	assert_int_equal(store_set_hold(st, hold), -EINVAL);
	return st;
}

static uint64_t stat_held(const struct store_stats *s) { return s->rows_held; }
static uint64_t stat_lost(const struct store_stats *s) { return s->rows_lost; }
static uint64_t stat_written(const struct store_stats *s)
{
	return s->rows_written;
}

static uint64_t stat_recovered(const struct store_stats *s)
{
	return s->outages && !s->in_outage;
}

/* Wait up to 5 s for field(stats) >= n. */
static void wait_stat(struct store *st, uint64_t (*field)(const struct
							 store_stats *),
		      uint64_t n, const char *what)
{
	struct store_stats stats;
	uint64_t t0 = now_ms();

	do {
		store_get_stats(st, &stats);
		if (field(&stats) >= n)
			return;
		usleep(2000);
	} while (now_ms() - t0 < 5000);
	fail_msg("%s %llu, want %llu", what,
		 (unsigned long long)field(&stats), (unsigned long long)n);
}

static void wait_written(struct store *st, uint64_t n)
{
	wait_stat(st, stat_written, n, "rows_written");
}

/* notes_with, once at least n messages contain part or 5 s have passed:
 * the recorder says what happened after the counters show it. */
static int wait_notes(struct notes *nt, const char *part, int n, char *last)
{
	uint64_t t0 = now_ms();
	int k;

	while ((k = notes_with(nt, part, last)) < n && now_ms() - t0 < 5000)
		usleep(2000);
	return k;
}

/*
 * The database refuses writes (its access table dropped behind the store's
 * back) and takes them again (the table back): every row queued meanwhile
 * arrives once, in order, the stream closed during the outage gets its
 * totals, the stream opened in the refused batch gets one row (buggy: a
 * second row, or its rolled-back row id reused by stream 3), producers
 * never block on the outage (a 64-row queue, 1010 rows), and the outage is
 * said once (not per retry) and its end once, with the count.
 */
static void test_hold_recover(void **state)
{
	struct store_stream *ss, *ss2, *ss3;
	struct store_access a;
	struct store_stats stats;
	struct notes nt;
	struct store *st;
	struct tmp *t = *state;
	char last[512] = "";
	sqlite3 *db;
	int64_t tl;
	int i;

	st = start_hold(t->db, 64, STORE_DEFAULT_HOLD, &nt, &tl);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	for (i = 0; i < 10; i++) {
		a = mk_access(i, EPOCH + (uint64_t)i, 10, EPOCH + SEC, 0);
		store_access_add(ss, &a);
	}
	wait_written(st, 10);

	db = raw_open(t->db);
	raw_exec(db, "DROP TABLE access");
	assert_int_equal(stream_open(st, tl, 2, "dd", EPOCH, &ss2), 0);
	for (i = 10; i < 1010; i++) {
		a = mk_access(i, EPOCH + (uint64_t)i, 10, EPOCH + SEC, 0);
		store_access_add(ss, &a);
	}
	a = mk_access(0, EPOCH, 10, EPOCH + SEC, 0);
	store_access_add(ss2, &a);
	close_stream(ss, EPOCH + SEC, 1010 * 4096ull, 1010, 3, 0);
	wait_stat(st, stat_held, 1001, "rows_held");
	usleep(4 * STORE_COMMIT_INTERVAL_MS * 1000);	/* several retries */
	store_get_stats(st, &stats);
	assert_int_equal(stats.rows_lost, 0);
	assert_int_equal(stats.in_outage, 1);
	assert_int_equal(stats.outages, 1);
	assert_int_equal(notes_with(&nt, "refuses writes", last), 1);
	if (!strstr(last, t->db) || !strstr(last, "no such table: access"))
		fail_msg("outage message: %s", last);
	assert_int_equal(notes_with(&nt, "accepts writes again", NULL), 0);

	raw_exec(db, store_schema_sql);	/* the table is back */
	wait_written(st, 1011);
	assert_int_equal(wait_notes(&nt, "accepts writes again", 1, last), 1);
	if (!strstr(last, ": 1001 held access rows written, 0 lost"))
		fail_msg("recovery message: %s", last);
	assert_int_equal(stream_open(st, tl, 3, "dd", EPOCH, &ss3), 0);
	store_access_add(ss2, &a);
	for (i = 0; i < 5; i++)
		store_access_add(ss3, &a);
	close_stream(ss2, EPOCH + SEC, 0, 2, 0, 0);
	close_stream(ss3, EPOCH + SEC, 0, 5, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + 2 * SEC), 0);
	store_get_stats(st, &stats);
	store_close(st);
	assert_int_equal(stats.rows_queued, 1017);
	assert_int_equal(stats.rows_written, 1017);
	assert_int_equal(stats.rows_lost, 0);
	assert_int_equal(stats.rows_held, 0);
	assert_int_equal(stats.in_outage, 0);
	assert_int_equal(stats.last_error, 0);

	/* the 10 rows before the drop went with the table */
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access"), 1007);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access JOIN stream "
				   "ON stream.id = stream_id WHERE pid = 1 "
				   "AND frame BETWEEN 10 AND 1009"),
			 1000);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM (SELECT frame, "
				   "lag(frame) OVER (ORDER BY id) AS prev "
				   "FROM access WHERE stream_id = (SELECT id "
				   "FROM stream WHERE pid = 1)) "
				   "WHERE prev >= frame"),
			 0);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM stream WHERE pid = 1 "
				   "AND closed_ns = 1000000000 AND "
				   "frames = 1010 AND late_frames = 3"),
			 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM stream WHERE pid = 2"),
			 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access JOIN stream "
				   "ON stream.id = stream_id WHERE pid = 2"),
			 2);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access JOIN stream "
				   "ON stream.id = stream_id WHERE pid = 3"),
			 5);
	assert_int_equal(q_i64(db, "SELECT rows_lost FROM run"), 0);
	sqlite3_close(db);
}

/*
 * An outage longer than a hold of 20 rows: the rows beyond it are lost,
 * counted (stats and run row) and said once; the 20 held are written when
 * the database comes back, and store_run_end reports the loss.
 */
static void test_hold_bound(void **state)
{
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store_stats stats;
	struct notes nt;
	struct store *st;
	struct tmp *t = *state;
	char last[512] = "";
	sqlite3 *db;
	int64_t tl;
	int i;

	st = start_hold(t->db, 0, 20, &nt, &tl);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	for (i = 0; i < 5; i++)
		store_access_add(ss, &a);
	wait_written(st, 5);
	db = raw_open(t->db);
	raw_exec(db, "DROP TABLE access");
	for (i = 0; i < 50; i++)
		store_access_add(ss, &a);
	wait_stat(st, stat_lost, 30, "rows_lost");
	store_get_stats(st, &stats);
	assert_int_equal(stats.rows_held, 20);
	assert_int_equal(stats.rows_lost, 30);
	assert_int_equal(wait_notes(&nt, "the hold is full", 1, last), 1);
	if (!strstr(last, "hold=20"))
		fail_msg("hold message: %s", last);

	raw_exec(db, store_schema_sql);
	wait_written(st, 25);
	assert_int_equal(wait_notes(&nt, "accepts writes again", 1, last), 1);
	if (!strstr(last, ": 20 held access rows written, 30 lost"))
		fail_msg("recovery message: %s", last);
	close_stream(ss, EPOCH + SEC, 0, 55, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), -EIO);
	store_get_stats(st, &stats);
	store_close(st);
	assert_int_equal(stats.rows_written + stats.rows_lost, 55);
	assert_int_equal(stats.rows_lost, 30);
	assert_int_equal(stats.last_error, -EIO);
	assert_int_equal(q_i64(db, "SELECT rows_lost FROM run"), 30);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access"), 20);
	assert_int_equal(q_i64(db, "SELECT frames FROM stream"), 55);
	q_text_eq(db, "PRAGMA integrity_check", "ok");
	sqlite3_close(db);
}

/*
 * The database still refuses at the run's end: after one last attempt the
 * held rows are lost and counted, the run row (its table still takes
 * writes) gets rows_lost, store_run_end says -EIO with the first error.
 */
static void test_hold_end_in_outage(void **state)
{
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store_stats stats;
	struct notes nt;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	int i;

	st = start_hold(t->db, 0, STORE_DEFAULT_HOLD, &nt, &tl);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	for (i = 0; i < 10; i++)
		store_access_add(ss, &a);
	wait_written(st, 10);
	db = raw_open(t->db);
	raw_exec(db, "DROP TABLE access");
	for (i = 0; i < 10; i++)
		store_access_add(ss, &a);
	close_stream(ss, EPOCH + SEC, 0, 20, 0, 0);
	wait_stat(st, stat_held, 10, "rows_held");
	assert_int_equal(store_run_end(st, EPOCH + SEC), -EIO);
	store_get_stats(st, &stats);
	assert_int_equal(stats.rows_queued, 20);
	assert_int_equal(stats.rows_written, 10);
	assert_int_equal(stats.rows_lost, 10);
	assert_int_equal(stats.rows_held, 0);
	assert_int_equal(stats.stream_rows_lost, 1);	/* the totals */
	assert_int_equal(stats.last_error, -EIO);
	assert_non_null(store_errmsg(st));
	if (!strstr(store_errmsg(st), "cannot insert access row: "
				      "no such table: access"))
		fail_msg("errmsg: %s", store_errmsg(st));
	assert_int_equal(notes_with(&nt, "refuses writes", NULL), 1);
	store_close(st);
	assert_int_equal(q_i64(db, "SELECT rows_lost FROM run"), 10);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run WHERE "
				   "ended_at IS NOT NULL"),
			 1);
	sqlite3_close(db);
}

/* hold=0: refused access rows are lost at once (stream rows still held). */
static void test_hold_zero(void **state)
{
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store_stats stats;
	struct notes nt;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	int i;

	st = start_hold(t->db, 0, 0, &nt, &tl);
	db = raw_open(t->db);
	raw_exec(db, "DROP TABLE access");
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	for (i = 0; i < 10; i++)
		store_access_add(ss, &a);
	wait_stat(st, stat_lost, 10, "rows_lost");
	raw_exec(db, store_schema_sql);
	/* the held stream row ends the outage; rows after it are written */
	wait_stat(st, stat_recovered, 1, "recoveries");
	for (i = 0; i < 4; i++)
		store_access_add(ss, &a);
	wait_written(st, 4);
	close_stream(ss, EPOCH + SEC, 0, 14, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), -EIO);
	store_get_stats(st, &stats);
	store_close(st);
	assert_int_equal(stats.rows_lost, 10);
	assert_int_equal(stats.rows_written, 4);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access"), 4);
	assert_int_equal(q_i64(db, "SELECT frames FROM stream"), 14);
	assert_int_equal(q_i64(db, "SELECT rows_lost FROM run"), 10);
	sqlite3_close(db);
}

/* Without store_start, store_run_end writes what was queued itself. */
static void test_end_without_start(void **state)
{
	struct store_stream *ss;
	struct store_access a = mk_access(0, EPOCH, 10, EPOCH + 100, 0);
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int i;

	st = open_ok(t->db, 0);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	assert_int_equal(stream_open(st, 0, 1, "dd", EPOCH, &ss), 0);
	for (i = 0; i < 100; i++)
		store_access_add(ss, &a);
	close_stream(ss, EPOCH + SEC, 1, 1, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access"), 100);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM stream WHERE "
				   "timeline_id IS NULL AND "
				   "closed_ns = 1000000000"),
			 1);
	sqlite3_close(db);
}

/* The run and timeline rows reach other readers together, at store_start,
 * so a mount never shows up with a run missing or half its timelines. */
static void test_header_one_transaction(void **state)
{
	struct store_timeline_info ti = { .name = "tl", .frames = 1 };
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t id;
	int i;

	st = open_ok(t->db, 0);
	db = raw_open(t->db);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(store_timeline_add(st, &ti, &id), 0);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run"), 0);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM timeline"), 0);
	assert_int_equal(store_start(st), 0);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run"), 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM timeline"), 3);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	sqlite3_close(db);
}

/* A run whose mount failed is taken back, before or after store_start;
 * the next run of the file is as any other. */
static void test_discard(void **state)
{
	struct store_timeline_info ti = { .name = "tl", .frames = 1 };
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t id;
	int started;

	for (started = 0; started < 2; started++) {
		st = open_ok(t->db, 0);
		assert_int_equal(store_run_discard(st), -EINVAL);
		assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
		assert_int_equal(store_timeline_add(st, &ti, &id), 0);
		assert_int_equal(store_env_add(st, "config_hz", "250"), 0);
		if (started)
			assert_int_equal(store_start(st), 0);
		assert_int_equal(store_run_discard(st), 0);
		assert_int_equal(store_run_discard(st), -EINVAL);
		assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
		store_close(st);
		db = raw_open(t->db);
		assert_int_equal(q_i64(db, "SELECT count(*) FROM run"), 0);
		assert_int_equal(q_i64(db, "SELECT count(*) FROM timeline"),
				 0);
		assert_int_equal(q_i64(db, "SELECT count(*) FROM run_env"), 0);
		sqlite3_close(db);
	}
	one_run(t->db, "after");
	db = raw_open(t->db);
	q_text_eq(db, "SELECT label FROM run", "after");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM timeline"), 1);
	sqlite3_close(db);
}

/* Once a stream was opened the run is real: discard refuses, keeps all. */
static void test_discard_after_stream(void **state)
{
	struct store_stream *ss;
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t tl;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 1, "dd", EPOCH, &ss), 0);
	assert_int_equal(store_run_discard(st), -EBUSY);
	close_stream(ss, EPOCH + SEC, 0, 0, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run WHERE "
				   "ended_at IS NOT NULL"),
			 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM stream"), 1);
	sqlite3_close(db);
}

/* run_env: the facts of each run, in the header transaction (seen with
 * the run row or not at all), a key given again replacing its value;
 * refused out of order and reported when the table is gone. */
static void test_env_rows(void **state)
{
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t tl;

	st = open_ok(t->db, 0);
	assert_int_equal(store_env_add(st, "config_hz", "250"), -EINVAL);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	assert_int_equal(store_env_add(st, "config_hz", "100"), 0);
	assert_int_equal(store_env_add(st, "config_hz", "250"), 0);
	assert_int_equal(store_env_add(st, "clocksource", "tsc"), 0);
	assert_int_equal(store_env_add(st, NULL, "x"), -EINVAL);
	assert_int_equal(store_env_add(st, "x", NULL), -EINVAL);
	/* not committed yet: another connection sees no row */
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run_env"), 0);
	assert_int_equal(store_start(st), 0);
	assert_int_equal(store_env_add(st, "late", "1"), -EINVAL);
	/* a fact measured while the run played: only once it has ended */
	assert_int_equal(store_env_add_ended(st, "measured", "250"), -EINVAL);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	assert_int_equal(store_env_add_ended(st, "measured", "250"), 0);
	assert_int_equal(store_env_add_ended(st, NULL, "1"), -EINVAL);
	store_close(st);
	q_text_eq(db, "SELECT group_concat(key || '=' || value, ' ') FROM "
		      "(SELECT * FROM run_env WHERE run_id = (SELECT max(id) "
		      "FROM run) ORDER BY key)",
		  "clocksource=tsc config_hz=250 measured=250");
	/* a second run has rows of its own */
	st = start_ok(t->db, 0, &run_info, &tl);
	store_close(st);
	assert_int_equal(q_i64(db, "SELECT count(DISTINCT run_id) FROM "
				   "run_env"),
			 1);
	raw_exec(db, "DROP TABLE run_env");
	sqlite3_close(db);
	st = open_ok(t->db, 0);
	db = raw_open(t->db);
	raw_exec(db, "DROP TABLE run_env");
	sqlite3_close(db);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	assert_int_equal(store_env_add(st, "k", "v"), -EIO);
	assert_non_null(strstr(store_errmsg(st), "cannot insert run_env row"));
	store_close(st);
	assert_non_null(strchr(store_sqlite_version(), '.'));
}

/* A version 4 file (no run_env): opened, it gets the table and version
 * 5, its runs are kept, and a new run records its environment. */
static void test_migrate_v5(void **state)
{
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;

	store_close(open_ok(t->db, 0));
	db = raw_open(t->db);
	raw_exec(db, "DROP TABLE run_env; INSERT INTO run (label, "
		     "started_at) VALUES ('old', 'x'); PRAGMA user_version = 4");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM sqlite_schema WHERE "
				   "name = 'run_env'"),
			 0);
	sqlite3_close(db);
	st = open_ok(t->db, 0);
	assert_int_equal(store_run_begin(st, &run_info, EPOCH), 0);
	assert_int_equal(store_env_add(st, "config_hz", "250"), 0);
	assert_int_equal(store_start(st), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run"), 2);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run_env r JOIN run "
				   "ON run.id = r.run_id WHERE label IS NOT "
				   "'old' AND value = '250'"),
			 1);
	check_columns(db, "run_env", "run_id key value");
	sqlite3_close(db);
}

/* A version 5 file (streams without file): opened, its streams get their
 * timeline's name (before version 6 NAME was the only file), and a new
 * stream records the file it opened, NAME.mov or none. */
static void test_migrate_v6(void **state)
{
	struct store_reader who = { .pid = 9, .tid = 9, .comm = "ffmpeg",
				    .file = "tl1.mov" };
	struct store_stream *ss;
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t tl;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 7, "dd", EPOCH, &ss), 0);
	close_stream(ss, EPOCH + SEC, 1, 1, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	/* version 5's stream_summary did not show the file */
	raw_exec(db, "DROP VIEW stream_summary; "
		     "ALTER TABLE stream DROP COLUMN file; "
		     "PRAGMA user_version = 5");
	sqlite3_close(db);
	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(store_stream_open(st, tl, &who, EPOCH, &ss), 0);
	close_stream(ss, EPOCH + SEC, 1, 1, 0, 0);
	assert_int_equal(stream_open(st, tl, 8, "cat", EPOCH, &ss), 0);
	close_stream(ss, EPOCH + SEC, 1, 1, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	q_text_eq(db, "SELECT group_concat(comm || ' ' || coalesce(file, "
		      "'null'), '|') FROM (SELECT * FROM stream ORDER BY id)",
		  "dd tl1|ffmpeg tl1.mov|cat null");
	sqlite3_close(db);
}

/*
 * late_frame agrees with the stream row's late_frames (issue 20): a
 * played frame with a late read is one late frame, once per play (a loop
 * plays frame 2 twice, late both times: two), and a late read that did
 * not play its frame (access.played 0: a reload, a load a seek dropped)
 * is a late read but no late frame.  Regression: the view grouped every
 * late read by frame; a stream read through smbd listed 86 late frames
 * where its row, which counts the played ones, said 0.  Here it listed
 * 4 (frames 1, 2, 5, 6) for the row's 3 (1, and 2 twice).
 */
static void test_late_frame_played(void **state)
{
	static const struct {
		int64_t frame;
		uint64_t due_s;		/* due at this second */
		int late;
		uint8_t played;
	} rows[] = {
		{ 0, 20, 0, 1 },
		{ 1, 5, 1, 1 },
		{ 1, 5, 1, 0 },		/* reloaded, late again */
		{ 2, 6, 1, 1 },
		{ 2, 8, 1, 1 },		/* played again on a new clock */
		{ 5, 7, 1, 0 },		/* a load a seek dropped */
		{ 6, 7, 1, 0 },		/* a reload */
	};
	struct store_stream *ss;
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	size_t i;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 100, "smbd", EPOCH, &ss), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		/* issued (and scheduled) at i s, done at 10 s */
		a = mk_access(rows[i].frame, EPOCH + i * SEC, (10 - i) * SEC,
			      EPOCH + rows[i].due_s * SEC, 0);
		a.played = rows[i].played;
		store_access_add(ss, &a);
	}
	close_stream(ss, EPOCH + 11 * SEC, 1000, 4, 3, 0);
	assert_int_equal(store_run_end(st, EPOCH + 12 * SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM late_access"), 6);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM late_frame"),
			 q_i64(db, "SELECT late_frames FROM stream"));
	assert_int_equal(q_i64(db, "SELECT late_frames FROM stream_summary"),
			 3);
	assert_int_equal(q_i64(db, "SELECT late_frames FROM run_summary"), 3);
	assert_int_equal(q_i64(db, "SELECT sum(played) FROM access"), 4);
	sqlite3_close(db);
}

/* The late frames of the stream of reader pid, "FRAME CAUSE|...". */
static void late_causes_eq(sqlite3 *db, int pid, const char *want)
{
	char sql[200];

	snprintf(sql, sizeof(sql),
		 "SELECT group_concat(frame || ' ' || cause, '|') FROM "
		 "late_frame WHERE stream_id = (SELECT id FROM stream "
		 "WHERE pid = %d)", pid);
	q_text_eq(db, sql, want);
}

/*
 * The cause of a read issued late (schema version 14), 25 fps, due two
 * frames after its issue time.  Stream 1 reads from a storage that runs
 * out: each read takes 50 ms for a frame's 40, the player issues each
 * frame when the read before it is done, and from frame 4 on the frames
 * are late though no read took the 80 ms its frame allowed: a backlog
 * of the storage, cause 'storage'.  Stream 2's filler woke 260 ms late
 * for frame 1 (its frame 0 done 295 ms before), and frames 2 and 3 were
 * issued behind it, each read 5 ms: late because of that wake, cause
 * 'issue'.  Before, late_frame said "4 issue|5 issue" for stream 1.
 */
static void test_late_cause_backlog(void **state)
{
	static const struct {
		int sid;		/* 1, 2 or 3 */
		int64_t frame;
		uint64_t issued_ms, lat_ms;
	} rows[] = {
		{ 1, 0, 0, 50 },   { 1, 1, 50, 50 },  { 1, 2, 100, 50 },
		{ 1, 3, 150, 50 }, { 1, 4, 200, 50 }, { 1, 5, 250, 50 },
		{ 2, 0, 0, 5 },	   { 2, 1, 300, 5 },  { 2, 2, 305, 5 },
		{ 2, 3, 310, 5 },
		/* frame 1 issued 100 ms after frame 0 was done, which was
		 * after frame 1's schedule: the 100 ms are idle, not the
		 * storage's (issued - last_done) */
		{ 3, 0, 0, 50 },   { 3, 1, 150, 5 },
	};
	const uint64_t ms = 1000000, period = 40 * ms;
	struct store_stream *ss[3];
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	size_t i;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 100, "nle", EPOCH, &ss[0]), 0);
	assert_int_equal(stream_open(st, tl, 101, "nle", EPOCH, &ss[1]), 0);
	assert_int_equal(stream_open(st, tl, 102, "nle", EPOCH, &ss[2]), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t sched = EPOCH + (uint64_t)rows[i].frame * period;

		a = mk_access(rows[i].frame, EPOCH + rows[i].issued_ms * ms,
			      rows[i].lat_ms * ms, sched + 2 * period, 0);
		a.sched_ns = sched;
		a.played = 1;
		store_access_add(ss[rows[i].sid - 1], &a);
	}
	close_stream(ss[0], EPOCH + SEC, 1000, 6, 2, 0);
	close_stream(ss[1], EPOCH + SEC, 1000, 4, 3, 0);
	close_stream(ss[2], EPOCH + SEC, 1000, 2, 1, 0);
	assert_int_equal(store_run_end(st, EPOCH + 2 * SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	late_causes_eq(db, 100, "4 storage|5 storage");
	late_causes_eq(db, 101, "1 issue|2 issue|3 issue");
	late_causes_eq(db, 102, "1 issue");
	sqlite3_close(db);
}

/* An old file made by sql, opened by the store: at today's version.
 * Returns it opened raw. */
static sqlite3 *upgraded(const char *path, const char *sql)
{
	sqlite3 *db;

	old_file(path, sql);
	store_close(open_ok(path, 0));
	db = raw_open(path);
	assert_int_equal(q_i64(db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	return db;
}

/*
 * The causes of an issue delay from its evidence (schema version 16),
 * the streams of test_late_cause_backlog's stream 2 (frame 1 issued 260
 * ms after its schedule, frames 2 and 3 behind it, late all three; a
 * ring of 8 frames):
 *   pid 110: the filler woke 260 ms late for frame 1 (wake_ns): 'timer'
 *   pid 111: it waited for room, the ring full (ring_fill 8): 'reader'
 *   pid 112: both, a 20 ms late wake into a full ring: 240 ms of the
 *            idle time are the reader's, 'reader'
 *   pid 113: full ring but a 200 ms late wake: 'timer'
 *   pid 114: no evidence (NULL: a row of an older timelinefs), or a
 *            ring with room and no late wake: 'issue' as before
 * Before (version 15) every one of them was 'issue'.
 */
static void test_late_cause_evidence(void **state)
{
	static const struct {
		pid_t pid;
		uint32_t wake_ms, fill;	/* of frame 1 */
		const char *want;
	} cases[] = {
		{ 110, 260, 3, "1 timer|2 timer|3 timer" },
		{ 111, 0, 8, "1 reader|2 reader|3 reader" },
		{ 112, 20, 8, "1 reader|2 reader|3 reader" },
		{ 113, 200, 8, "1 timer|2 timer|3 timer" },
		{ 114, UINT32_MAX, UINT32_MAX, "1 issue|2 issue|3 issue" },
		{ 115, 0, 5, "1 issue|2 issue|3 issue" },
	};
	static const uint64_t issued_ms[] = { 0, 300, 305, 310 };
	const uint64_t ms = 1000000, period = 40 * ms;
	struct store_stream *ss;
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	size_t c, k;
	char sql[160];

	st = start_ok(t->db, 0, &run_info, &tl);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		assert_int_equal(stream_open(st, tl, cases[c].pid, "nle",
					     EPOCH, &ss), 0);
		for (k = 0; k < 4; k++) {
			uint64_t sched = EPOCH + k * period;

			a = mk_access((int64_t)k, EPOCH + issued_ms[k] * ms,
				      5 * ms, sched + 2 * period, 0);
			a.sched_ns = sched;
			a.played = 1;
			a.wake_ns = 0;
			a.ring_fill = 2;
			if (k == 1) {
				a.wake_ns = cases[c].wake_ms == UINT32_MAX ?
					    STORE_NONE32 :
					    cases[c].wake_ms * (uint32_t)ms;
				a.ring_fill = cases[c].fill;
			}
			if (cases[c].fill == UINT32_MAX)
				a.wake_ns = a.ring_fill = STORE_NONE32;
			store_access_add(ss, &a);
		}
		close_ring(ss, EPOCH + SEC, 1000, 4, 3, 0, 8);
	}
	assert_int_equal(store_run_end(st, EPOCH + 2 * SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		snprintf(sql, sizeof(sql),
			 "SELECT group_concat(frame || ' ' || cause, '|') FROM "
			 "late_frame WHERE stream_id = (SELECT id FROM stream "
			 "WHERE pid = %d)", (int)cases[c].pid);
		q_text_eq(db, sql, cases[c].want);
	}
	/* the evidence beside the cause */
	q_text_eq(db, "SELECT wake_delay_us || ' ' || ring_fill || '/' || "
		      "ring_frames || ' ' || timer_idle_us || ' ' || "
		      "reader_idle_us FROM late_frame WHERE frame = 1 AND "
		      "stream_id = (SELECT id FROM stream WHERE pid = 112)",
		  "20000.0 8/8 20000.0 240000.0");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access WHERE "
				   "wake_ns IS NULL"), 4);
	sqlite3_close(db);
}

/*
 * A backlog ends at a read issued on time, within 1 ms of its schedule:
 * a filler's wake-up is never exact.  One stream, 25 fps, due two frames
 * after its issue time: a full ring holds frame 1 for 300 ms (frames 1
 * .. 3 late, 'reader'); frames 10 .. 29 are issued 50 us after their
 * schedule, on time; the filler wakes 60 ms late for frame 30, read in
 * 25 ms: late, 'timer'.  Before, only a read issued at or before its
 * schedule ended a backlog, so the stream's whole play was one: frame
 * 30's idle time held the reader's 300 ms, and it was 'reader'.
 */
static void test_late_cause_jitter(void **state)
{
	const uint64_t ms = 1000000, us = 1000, period = 40 * ms;
	struct store_stream *ss;
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl, k;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 120, "nle", EPOCH, &ss), 0);
	for (k = 0; k <= 30; k++) {
		uint64_t sched = EPOCH + (uint64_t)k * period, issued, lat;

		if (k > 3 && k < 10)
			continue;
		issued = sched + 50 * us;
		lat = 5 * ms;
		if (k >= 1 && k <= 3)
			issued = EPOCH + (295 + 5 * (uint64_t)k) * ms;
		if (k == 30) {
			issued = sched + 60 * ms;
			lat = 25 * ms;
		}
		a = mk_access(k, issued, lat, sched + 2 * period, 0);
		a.sched_ns = sched;
		a.played = 1;
		a.wake_ns = k == 30 ? 60 * (uint32_t)ms : 0;
		a.ring_fill = k == 1 ? 8 : 2;
		store_access_add(ss, &a);
	}
	close_ring(ss, EPOCH + 2 * SEC, 1000, 24, 4, 0, 8);
	assert_int_equal(store_run_end(st, EPOCH + 3 * SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	q_text_eq(db, "SELECT group_concat(frame || ' ' || cause, '|') FROM "
		      "late_frame",
		  "1 reader|2 reader|3 reader|30 timer");
	sqlite3_close(db);
}

/*
 * Headroom (schema version 16): stream 1 plays 200 frames, frame k's
 * last read done 10 - k ms before its due time (its V read; its A1 read
 * done earlier), so headroom -10 .. 189 ms, and a reload of frame 0
 * (played 0) done 1 s late; stream 2 plays 1 frame with 500 ms.
 * Nearest-rank from the least: stream 1, n = 200: min -10 ms, p1 rank 2
 * = -9 ms, p5 rank 10 = -1 ms, p50 rank 100 = 89 ms; the run, n = 201:
 * p1 rank 3 = -8 ms, p5 rank 11 = 0, p50 rank 101 = 90 ms.  Before, the
 * views had no headroom (the columns did not exist).
 */
static void test_headroom(void **state)
{
	const uint64_t ms = 1000000, due0 = EPOCH + SEC;
	struct store_stream *ss, *s2;
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl, k;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 130, "nle", EPOCH, &ss), 0);
	assert_int_equal(stream_open(st, tl, 131, "nle", EPOCH, &s2), 0);
	for (k = 0; k < 200; k++) {
		uint64_t due = due0 + (uint64_t)k * 40 * ms;
		uint64_t done = due + 10 * ms - (uint64_t)k * ms;

		/* one load: one schedule for both tracks' reads */
		a = mk_access(k, done - 2 * ms, 2 * ms, due, 0);
		a.sched_ns = due - 80 * ms;
		a.played = 1;
		store_access_add(ss, &a);
		a = mk_access(k, done - 50 * ms, 1 * ms, due, 0);
		a.sched_ns = due - 80 * ms;
		a.track = "A1";
		a.played = 1;
		store_access_add(ss, &a);
	}
	a = mk_access(0, due0, SEC, due0, 0);
	a.played = 0;
	store_access_add(ss, &a);
	a = mk_access(0, due0 - 600 * ms, 100 * ms, due0, 0);
	a.played = 1;
	store_access_add(s2, &a);
	close_stream(ss, EPOCH + 20 * SEC, 1000, 200, 10, 0);
	close_stream(s2, EPOCH + 20 * SEC, 1000, 1, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + 21 * SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	q_text_eq(db, "SELECT headroom_min_us || ' ' || headroom_p1_us || ' ' "
		      "|| headroom_p5_us || ' ' || headroom_p50_us FROM "
		      "stream_summary WHERE pid = 130",
		  "-10000.0 -9000.0 -1000.0 89000.0");
	q_text_eq(db, "SELECT headroom_min_us || ' ' || headroom_p1_us || ' ' "
		      "|| headroom_p5_us || ' ' || headroom_p50_us FROM "
		      "stream_summary WHERE pid = 131",
		  "500000.0 500000.0 500000.0 500000.0");
	q_text_eq(db, "SELECT headroom_min_us || ' ' || headroom_p1_us || ' ' "
		      "|| headroom_p5_us || ' ' || headroom_p50_us FROM "
		      "run_summary",
		  "-10000.0 -8000.0 0.0 90000.0");
	/* late frames are those below 0, as late_frame counts them */
	assert_int_equal(q_i64(db, "SELECT count(*) FROM frame_headroom "
				   "WHERE headroom_ns < 0"),
			 q_i64(db, "SELECT count(*) FROM late_frame"));
	assert_int_equal(q_i64(db, "SELECT count(*) FROM frame_headroom"),
			 201);
	sqlite3_close(db);
}

/* bench_client_play: a client in time where it exited 0 and its stream's
 * span is within its timeline's duration (3 s: 90 frames at 30 fps),
 * 10 % and 0.5 s more (3.8 s); its own start and connection (wall_s) are
 * not held. */
static void test_bench_client_play(void **state)
{
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t tl;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	raw_exec(db, "INSERT INTO timeline (id, run_id, name, fps_num, fps_den, "
		     "frames, bytes) VALUES (7, 1, 't', 30, 1, 90, 1);"
		     "INSERT INTO stream (id, run_id, timeline_id, opened_ns, "
		     "closed_ns, late_frames) VALUES "
		     "(1, 1, 7, 0, 3800000000, 0), (2, 1, 7, 0, 3800000001, 0),"
		     "(3, 1, 7, 0, 3000000000, 2), (4, 1, 7, 0, NULL, 0);"
		     "INSERT INTO bench_step (id, run_id, workstations, "
		     "repetition, wall_s) VALUES (1, 1, 6, 1, 5.0);"
		     "INSERT INTO bench_client (step_id, stream_id, workstation, "
		     "via, client, wall_s, exit_status) VALUES "
		     "(1, 1, 1, 'smb', 'smbclient', 4.9, 0),"
		     "(1, 2, 2, 'smb', 'smbclient', 3.9, 0),"
		     "(1, 3, 3, 'smb', 'smbclient', 3.1, 0),"
		     "(1, 3, 4, 'smb', 'smbclient', 3.1, 1),"
		     "(1, 4, 5, 'smb', 'smbclient', 3.1, 0),"
		     "(1, NULL, 6, 'smb', 'smbclient', NULL, NULL)");
	q_text_eq(db, "SELECT group_concat(workstation || ':' || in_time || ':' "
		      "|| coalesce(span_s, '-') || ':' || coalesce(duration_s, "
		      "'-'), ' ') FROM (SELECT * FROM bench_client_play "
		      "ORDER BY workstation)",
		  "1:1:3.8:3.0 2:0:3.800000001:3.0 3:1:3.0:3.0 4:0:3.0:3.0 "
		  "5:0:-:3.0 6:0:-:-");
	/* its late frames are the stream's, for the bench's rule */
	assert_int_equal(q_i64(db, "SELECT late_frames FROM bench_client_play "
				   "WHERE workstation = 3"),
			 2);
	sqlite3_close(db);
}

/* A file of schema version 15 gets version 16's late_access, late_frame
 * and summaries, in place of its own. */
static void test_migrate_v16(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db;

	db = upgraded(t->db, "CREATE VIEW late_access AS SELECT 1 AS old;"
			     "CREATE VIEW late_frame AS SELECT 1 AS old;"
			     "CREATE VIEW stream_summary AS SELECT 1 AS old;"
			     "CREATE VIEW run_summary AS SELECT 1 AS old;"
			     "CREATE VIEW bench_step_summary AS SELECT 1 AS old;"
			     "PRAGMA user_version = 15");
	check_schema(db);
	sqlite3_close(db);
}

/* A file of schema version 13 gets version 14's late_access and
 * late_frame (the backlog's cause), in place of its own. */
static void test_migrate_v14(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db;

	db = upgraded(t->db, "CREATE VIEW late_access AS SELECT 1 AS old;"
			     "CREATE VIEW late_frame AS SELECT 1 AS old;"
			     "PRAGMA user_version = 13");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM pragma_table_info("
				   "'late_access') WHERE name IN ('old', "
				   "'cause')"),
			 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM sqlite_master WHERE "
				   "name = 'late_access' AND sql LIKE "
				   "'%idle_ns%'"),
			 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM pragma_table_info("
				   "'late_frame') WHERE name = 'old'"),
			 0);
	sqlite3_close(db);
}

/* Schema 15: a play stream's frames handed to its reader after they were
 * due (stream.reader_late_frames) go from the totals to the row and
 * stream_summary; a version 14 file gets the column (NULL in its old
 * rows), the view and the bench's bench_client table. */
static void test_migrate_v15(void **state)
{
	struct tmp *t = *state;
	struct store_stream *ss;
	struct store *st;
	sqlite3 *db;
	int64_t tl;

	old_file(t->db, "CREATE TABLE stream (id INTEGER PRIMARY KEY, "
			"run_id INTEGER NOT NULL, timeline_id INTEGER, "
			"pid INTEGER, comm TEXT, opened_ns INTEGER, "
			"closed_ns INTEGER, bytes INTEGER, frames INTEGER, "
			"late_frames INTEGER, failed_frames INTEGER, "
			"requests INTEGER, reloads INTEGER, seeks INTEGER, "
			"tid INTEGER, sid INTEGER, file TEXT, "
			"kind TEXT NOT NULL DEFAULT 'play', "
			"writer_drops INTEGER);"
			"INSERT INTO stream (id, run_id, opened_ns, closed_ns, "
			"frames, late_frames) VALUES (1, 1, 0, 10, 3, 1);"
			"CREATE VIEW stream_summary AS SELECT 1 AS old;"
			"PRAGMA user_version = 14");
	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 100, "smbd", EPOCH + SEC, &ss),
			 0);
	store_stream_close(ss, &(struct store_stream_totals){
				       .closed_ns = EPOCH + 2 * SEC,
				       .frames = 105, .late_frames = 0,
				       .reader_late_frames = 77 });
	assert_int_equal(store_run_end(st, EPOCH + 3 * SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	q_text_eq(db, "SELECT group_concat(coalesce(reader_late_frames, "
		      "'null'), '|') FROM stream_summary",
		  "null|77");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM pragma_table_info("
				   "'bench_client') WHERE name IN "
				   "('workstation', 'dropped_frames', "
				   "'buffering_waits')"),
			 3);
	sqlite3_close(db);
}

/* The access table of schema version 6, without its closing ")". */
#define ACCESS_V6 "CREATE TABLE access (id INTEGER PRIMARY KEY, " \
		  "stream_id INTEGER NOT NULL, frame INTEGER, track TEXT, " \
		  "clip TEXT, file_offset INTEGER, length INTEGER, " \
		  "sched_ns INTEGER, due_ns INTEGER, issued_ns INTEGER, " \
		  "done_ns INTEGER, errno INTEGER NOT NULL DEFAULT 0, " \
		  "injected INTEGER NOT NULL DEFAULT 0"

/* An old file made by sql, opened by the store: at today's version, its
 * access table of today's columns.  Returns it opened raw. */
static sqlite3 *migrated(const char *path, const char *sql)
{
	sqlite3 *db = upgraded(path, sql);

	check_columns(db, "access", "id stream_id frame track clip "
		      "file_offset length sched_ns due_ns issued_ns done_ns "
		      "errno injected played dep op image wake_ns ring_fill");
	return db;
}

/* A file of schema version 6 gets access.played (NULL in its old rows:
 * taken as played) and the late_frame of version 7. */
static void test_migrate_v7(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db;

	db = migrated(t->db, ACCESS_V6 ");"
		      "INSERT INTO access (stream_id, frame, due_ns, "
		      "issued_ns, done_ns) VALUES (1, 3, 10, 5, 20);"
		      "CREATE VIEW late_frame AS SELECT 1 AS old;"
		      "PRAGMA user_version = 6");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM pragma_table_info("
				   "'late_frame') WHERE name = 'old'"),
			 0);
	/* the old late read is a late frame */
	raw_exec(db, "INSERT INTO run (id, started_at) VALUES (1, 'x');"
		     "INSERT INTO stream (id, run_id) VALUES (1, 1)");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM late_frame"), 1);
	sqlite3_close(db);
}

/* Decoding dependency reads (issue 21, schema version 8): access.dep as
 * the player flagged them, counted apart in stream_summary and
 * run_summary (dep_accesses) and shown in access_v and late_access. */
static void test_dep_reads(void **state)
{
	struct store_stream *ss;
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	int64_t tl;
	int i;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 100, "ffplay", EPOCH, &ss), 0);
	for (i = 0; i < 5; i++) {
		/* frame 0: two dependencies, then its read; 1, 2 on time */
		a = mk_access(i < 3 ? 0 : i - 2, EPOCH + (uint64_t)i * SEC, SEC,
			      EPOCH + 10 * SEC, 0);
		a.played = 1;
		a.dep = i < 2;
		store_access_add(ss, &a);
	}
	close_stream(ss, EPOCH + 11 * SEC, 1000, 3, 0, 0);
	assert_int_equal(store_run_end(st, EPOCH + 12 * SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT sum(dep) FROM access"), 2);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access_v "
				   "WHERE dep AND frame = 0"), 2);
	assert_int_equal(q_i64(db, "SELECT accesses FROM stream_summary"), 5);
	assert_int_equal(q_i64(db, "SELECT dep_accesses FROM stream_summary"),
			 2);
	assert_int_equal(q_i64(db, "SELECT dep_accesses FROM run_summary"), 2);
	sqlite3_close(db);
}

/* A file of schema version 7 gets access.dep (0 in its old rows) and the
 * views that show it. */
static void test_migrate_v8(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db;

	db = migrated(t->db, ACCESS_V6 ", played INTEGER);"
		      "INSERT INTO access (stream_id, frame, due_ns, "
		      "issued_ns, done_ns, played) VALUES (1, 3, 10, 5, 20, 1);"
		      "CREATE VIEW access_v AS SELECT 1 AS old;"
		      "CREATE VIEW stream_summary AS SELECT 1 AS old;"
		      "CREATE VIEW run_summary AS SELECT 1 AS old;"
		      "PRAGMA user_version = 7");
	raw_exec(db, "INSERT INTO run (id, started_at) VALUES (1, 'x');"
		     "INSERT INTO stream (id, run_id) VALUES (1, 1)");
	assert_int_equal(q_i64(db, "SELECT dep FROM access_v"), 0);
	assert_int_equal(q_i64(db, "SELECT dep_accesses FROM stream_summary"),
			 0);
	assert_int_equal(q_i64(db, "SELECT dep_accesses FROM run_summary"), 0);
	sqlite3_close(db);
}

/* An image sequence's operations (issue 22, schema version 10): each
 * row's op and image as the player made them (a frame's open, header
 * read, data read, close; a missing image's open, ENOENT), NULL image for
 * other media; access_v and late_access name the op (the op table holds
 * eng_op_name's names), stream_summary and run_summary count opens,
 * header reads and closes apart, op_summary has a row per (stream, op)
 * with its count, bytes, errors, late ones, mean and max latency. */
static void test_seq_ops(void **state)
{
	static const struct {
		uint8_t op;
		uint64_t len, lat;
		int err;
	} rows[] = {
		{ ENG_OP_OPEN, 0, 3000, 0 },	{ ENG_OP_HEADER, 4096, 1000, 0 },
		{ ENG_OP_READ, 8192, 2000, 0 }, { ENG_OP_CLOSE, 0, 500, 0 },
		{ ENG_OP_OPEN, 0, 7000, ENOENT },
	};
	struct store_stream *ss;
	struct store_access a;
	struct store *st;
	struct tmp *t = *state;
	sqlite3 *db;
	char sql[160];
	int64_t tl;
	uint32_t op;
	size_t i;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(stream_open(st, tl, 100, "resolve", EPOCH, &ss), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		/* the last open's frame is due before it is done */
		a = mk_access(i < 4 ? 0 : 1, EPOCH + (uint64_t)i * SEC,
			      rows[i].lat, EPOCH + (i < 4 ? 10 : 4) * SEC,
			      rows[i].err);
		a.length = rows[i].len;
		a.op = rows[i].op;
		a.is_image = 1;
		a.image = 86400 + (i < 4 ? 0 : 1);
		a.played = 1;
		store_access_add(ss, &a);
	}
	a = mk_access(2, EPOCH + 6 * SEC, 1000, EPOCH + 10 * SEC, 0);
	store_access_add(ss, &a);	/* a read of other media */
	close_stream(ss, EPOCH + 11 * SEC, 1000, 3, 1, 1);
	assert_int_equal(store_run_end(st, EPOCH + 12 * SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	for (op = 0; eng_op_name(op); op++) {
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM op WHERE "
			 "id = %u AND name = '%s'", op, eng_op_name(op));
		assert_int_equal(q_i64(db, sql), 1);
	}
	assert_int_equal(q_i64(db, "SELECT count(*) FROM op"), op);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access_v WHERE "
				   "op = 'open' AND image = 86400 AND "
				   "file_offset = 0 AND length = 0"), 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access_v WHERE "
				   "op = 'header' AND image = 86400 AND "
				   "length = 4096"), 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access WHERE "
				   "image IS NULL AND op = 0"), 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM late_access WHERE "
				   "op = 'open' AND image = 86401 AND "
				   "errno = 2"), 1);
	assert_int_equal(q_i64(db, "SELECT accesses FROM stream_summary"), 6);
	assert_int_equal(q_i64(db, "SELECT opens FROM stream_summary"), 2);
	assert_int_equal(q_i64(db, "SELECT header_reads FROM stream_summary"),
			 1);
	assert_int_equal(q_i64(db, "SELECT closes FROM stream_summary"), 1);
	assert_int_equal(q_i64(db, "SELECT opens + header_reads + closes "
				   "FROM run_summary"), 4);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM op_summary"), 4);
	assert_int_equal(q_i64(db, "SELECT accesses * 1000 + errors * 100 + "
				   "late_accesses FROM op_summary WHERE "
				   "op = 'open'"), 2101);
	/* 5.0 and 7.0 us */
	assert_int_equal(q_i64(db, "SELECT CAST(mean_us * 10 AS INTEGER) "
				   "FROM op_summary WHERE op = 'open'"), 50);
	assert_int_equal(q_i64(db, "SELECT CAST(max_us * 10 AS INTEGER) "
				   "FROM op_summary WHERE op = 'open'"), 70);
	assert_int_equal(q_i64(db, "SELECT accesses * 100000 + bytes FROM "
				   "op_summary WHERE op = 'read'"),
			 2 * 100000 + 8192 + 4096);
	sqlite3_close(db);
}

/* A file of schema version 9 gets access.op (0: a read, in its old rows)
 * and access.image (NULL), the op table and the views that show them. */
static void test_migrate_v10(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db;

	db = migrated(t->db, ACCESS_V6 ", played INTEGER, "
		      "dep INTEGER NOT NULL DEFAULT 0);"
		      "INSERT INTO access (stream_id, frame, due_ns, "
		      "issued_ns, done_ns, played) VALUES (1, 3, 10, 5, 20, 1);"
		      "CREATE VIEW access_v AS SELECT 1 AS old;"
		      "CREATE VIEW stream_summary AS SELECT 1 AS old;"
		      "CREATE VIEW run_summary AS SELECT 1 AS old;"
		      "CREATE VIEW late_access AS SELECT 1 AS old;"
		      "PRAGMA user_version = 9");
	raw_exec(db, "INSERT INTO run (id, started_at) VALUES (1, 'x');"
		     "INSERT INTO stream (id, run_id) VALUES (1, 1)");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM access_v WHERE "
				   "op = 'read' AND image IS NULL"), 1);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM late_access WHERE "
				   "op = 'read'"), 1);
	assert_int_equal(q_i64(db, "SELECT opens FROM stream_summary"), 0);
	assert_int_equal(q_i64(db, "SELECT closes FROM run_summary"), 0);
	assert_int_equal(q_i64(db, "SELECT accesses FROM op_summary"), 1);
	sqlite3_close(db);
}

/* One access row of the ingest tests: times in ms after EPOCH + SEC;
 * played 0 for a last partial frame's (engine/ingest/ingest.h). */
static void ingest_row_p(struct store_stream *ss, int64_t frame, uint8_t op,
			 const char *track, uint64_t len, double sched,
			 double due, double issued, double done, int played)
{
	struct store_access a = {
		.frame = frame, .track = track, .clip = "cam1",
		.file_offset = (uint64_t)frame * len, .length = len,
		.op = op, .played = (uint8_t)played,
	};

	a.sched_ns = EPOCH + SEC + (uint64_t)(sched * 1e6);
	a.due_ns = EPOCH + SEC + (uint64_t)(due * 1e6);
	a.issued_ns = EPOCH + SEC + (uint64_t)(issued * 1e6);
	a.done_ns = EPOCH + SEC + (uint64_t)(done * 1e6);
	store_access_add(ss, &a);
}

static void ingest_row(struct store_stream *ss, int64_t frame, uint8_t op,
		       const char *track, uint64_t len, double sched,
		       double due, double issued, double done)
{
	ingest_row_p(ss, frame, op, track, len, sched, due, issued, done, 1);
}

/*
 * Ingest (issue 23, schema version 11): a record stream (kind 'record',
 * file "ingest/cam1", no timeline, writer_drops at close) of 5 frames at
 * 25 fps with a capture buffer of 2 (frame k arrives at A(k) = 40k ms,
 * due by A(k + 2)): per frame a receive row (V) and a write per track
 * (V 1000 bytes, A1 200); frame 2's bytes come 150 ms after its arrival
 * (its receive row is late: dropped by the writer), frame 3's V write
 * takes 100 ms (dropped by the storage), a late fsync is no dropped
 * frame, nor is a last partial frame's (frame 5, 300 bytes of V, played
 * 0: the recorder counts it in no total).  Beside it a play stream of 4 frames: frame 1's read takes
 * 50 ms (late: storage), frame 2 waits 60 ms for the recording (an await
 * row, late: cause 'recording').  The views show play and record apart
 * and together, the waits (receive 150 ms, await 60 ms) in no
 * percentile.
 */
static void test_ingest_views(void **state)
{
	struct store_reader rec = { .pid = 5, .tid = 5, .comm = "dd",
				    .file = "ingest/cam1", .record = 1 };
	struct store_stream_totals rt = {
		.closed_ns = EPOCH + 2 * SEC, .bytes = 5 * 1200, .frames = 5,
		.late_frames = 2, .requests = 10, .writer_drops = 1,
	};
	struct store_stream *rs, *ps;
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t tl, k;
	double a;

	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(store_stream_open(st, 0, &rec, EPOCH + SEC, &rs), 0);
	assert_int_equal(stream_open(st, tl, 6, "mpv", EPOCH + SEC, &ps), 0);
	ingest_row(rs, 0, ENG_OP_OPEN, "V", 0, 0, 80, 0, 0.1);
	ingest_row(rs, 0, ENG_OP_OPEN, "A1", 0, 0, 80, 0.1, 0.2);
	for (k = 0; k < 5; k++) {
		double got = k == 2 ? 150 : 5, vlat = k == 3 ? 100 : 2;

		a = 40.0 * (double)k;
		ingest_row(rs, k, ENG_OP_RECEIVE, "V", 1200, a, a + 80, a,
			   a + got);
		ingest_row(rs, k, ENG_OP_WRITE, "V", 1000, a, a + 80, a + got,
			   a + got + vlat);
		ingest_row(rs, k, ENG_OP_WRITE, "A1", 200, a, a + 80,
			   a + got + vlat, a + got + vlat + 1);
	}
	ingest_row_p(rs, 5, ENG_OP_RECEIVE, "V", 300, 200, 280, 200, 290, 0);
	ingest_row_p(rs, 5, ENG_OP_WRITE, "V", 300, 200, 280, 290, 291, 0);
	ingest_row(rs, 4, ENG_OP_FSYNC, "V", 0, 160, 240, 230, 250);
	ingest_row(rs, 4, ENG_OP_CLOSE, "V", 0, 160, 240, 250, 251);
	ingest_row(rs, 4, ENG_OP_CLOSE, "A1", 0, 160, 240, 251, 252);
	store_stream_close(rs, &rt);
	for (k = 0; k < 4; k++) {
		a = 40.0 * (double)k;
		if (k == 2)	/* waits for the recording, then reads */
			ingest_row(ps, k, ENG_OP_AWAIT, "V", 4096, a, a + 40,
				   a, a + 60);
		ingest_row(ps, k, ENG_OP_READ, "V", 4096, a, a + 40,
			   k == 2 ? a + 60 : a, a + (k == 1 ? 50 : k == 2 ?
						     61 : 1));
	}
	close_stream(ps, EPOCH + 2 * SEC, 4 * 4096, 4, 2, 0);
	assert_int_equal(store_run_end(st, EPOCH + 3 * SEC), 0);
	store_close(st);

	db = raw_open(t->db);
	q_text_eq(db, "SELECT group_concat(kind || ' ' || coalesce(file, '-') "
		      "|| ' ' || coalesce(timeline_id, 'null') || ' ' || "
		      "writer_drops, '|') FROM (SELECT * FROM stream "
		      "ORDER BY id)", "record ingest/cam1 null 1|play - 1 0");
	/* the record stream: 2 opens, 6 receives, 11 writes, an fsync and
	 * 2 closes; its slowest operation the 100 ms write, not frame 2's
	 * 150 ms receive */
	q_text_eq(db, "SELECT kind || ' ' || accesses || ' ' || writes || ' ' "
		      "|| awaits || ' ' || late_frames || ' ' || writer_drops "
		      "|| ' ' || max_us || ' ' || coalesce(timeline, 'null') "
		      "FROM stream_summary WHERE stream_id = 1",
		  "record 22 11 0 2 1 100000.0 null");
	/* the play stream: its slowest read 50 ms, not the 60 ms await */
	q_text_eq(db, "SELECT kind || ' ' || accesses || ' ' || awaits || ' ' "
		      "|| max_us FROM stream_summary WHERE stream_id = 2",
		  "play 5 1 50000.0");
	q_text_eq(db, "SELECT streams || ' ' || frames || ' ' || play_streams "
		      "|| ' ' || play_frames || ' ' || late_frames || ' ' || "
		      "record_streams || ' ' || record_frames || ' ' || "
		      "dropped_frames || ' ' || writer_drops || ' ' || "
		      "missed_frames || ' ' || max_us || ' ' || play_p99_us "
		      "|| ' ' || record_p99_us FROM run_summary",
		  "2 9 1 4 2 1 5 2 1 4 100000.0 50000.0 100000.0");
	/* each kind's bytes over its own span: 6000 bytes in 1 s */
	q_text_eq(db, "SELECT record_mb_s || ' ' || play_mb_s FROM "
		      "run_summary", "0.006 0.016");
	/* the dropped frames as the recorder counts them, with cause (a
	 * late fsync or close, after frame 4's due time, drops none) */
	q_text_eq(db, "SELECT group_concat(stream_id || ':' || frame || ' ' || "
		      "cause || ' ' || kind, '|') FROM late_frame",
		  "1:2 writer record|1:3 storage record|"
		  "2:1 storage play|2:2 recording play");
	q_text_eq(db, "SELECT group_concat(op || ' ' || cause, '|') FROM "
		      "(SELECT * FROM late_access WHERE stream_id = 1 AND "
		      "frame IN (2, 4) ORDER BY frame, op)",
		  "receive writer|write storage|write storage|"
		  "close storage|close storage|fsync storage");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM late_access WHERE "
				   "op = 'await' AND cause = 'recording'"), 1);
	/* the storage's bytes (a receive's are written again), apart */
	q_text_eq(db, "SELECT second || ' ' || bytes || ' ' || read_bytes || "
		      "' ' || write_bytes || ' ' || late_frames || ' ' || "
		      "dropped_frames || ' ' || streams || ' ' || "
		      "record_streams FROM timeseries",
		  "1 22684 16384 6300 2 2 2 1");
	q_text_eq(db, "SELECT group_concat(op || ' ' || accesses || ' ' || "
		      "bytes || ' ' || late_accesses || ' ' || kind, '|') FROM "
		      "op_summary WHERE stream_id = 1",
		  "open 2 0 0 record|close 2 0 2 record|write 11 6300 5 "
		  "record|fsync 1 0 1 record|receive 6 6300 2 record");
	/* per track, no receive row: V's open, 6 writes, fsync, close */
	assert_int_equal(q_i64(db, "SELECT accesses FROM track_latency WHERE "
				   "stream_id = 1 AND track = 'V'"), 9);
	/* per run, a track's reads apart from its writes */
	q_text_eq(db, "SELECT group_concat(kind || ' ' || track || ' ' || "
		      "accesses || ' ' || max_us, '|') FROM run_track_latency",
		  "play V 4 50000.0|record A1 7 1000.0|record V 9 100000.0");
	/* the cost of cuts: the play stream's 4 reads, not its await */
	assert_int_equal(q_i64(db, "SELECT sum(accesses) FROM cut_latency"),
			 4);
	raw_exec(db, "INSERT INTO bench_step (id, run_id, workstations, "
		     "repetition, wall_s) VALUES (1, 1, 1, 1, 1.0);"
		     "INSERT INTO bench_stream VALUES (1, 1), (1, 2)");
	q_text_eq(db, "SELECT streams || ' ' || late_frames || ' ' || "
		      "play_streams || ' ' || record_streams || ' ' || "
		      "record_frames || ' ' || dropped_frames || ' ' || "
		      "writer_drops || ' ' || record_mb_s || ' ' || "
		      "record_p99_us || ' ' || play_p99_us FROM "
		      "bench_step_summary",
		  "2 2 1 1 5 2 1 0.006 100000.0 50000.0");
	sqlite3_close(db);
}

/* A file of schema version 10 (no stream.kind, no writer_drops, the op
 * table of 5 operations, views without them): its streams become play
 * streams with no writer drops, the op table gets the ingest operations
 * and the views their new columns. */
static void test_migrate_v11(void **state)
{
	struct tmp *t = *state;
	sqlite3 *db;
	uint32_t op;

	db = migrated(t->db, ACCESS_V6 ", played INTEGER, "
		      "dep INTEGER NOT NULL DEFAULT 0, "
		      "op INTEGER NOT NULL DEFAULT 0, image INTEGER);"
		      "CREATE TABLE stream (id INTEGER PRIMARY KEY, "
		      "run_id INTEGER NOT NULL, timeline_id INTEGER, "
		      "pid INTEGER, comm TEXT, opened_ns INTEGER, "
		      "closed_ns INTEGER, bytes INTEGER, frames INTEGER, "
		      "late_frames INTEGER, failed_frames INTEGER, "
		      "requests INTEGER, reloads INTEGER, seeks INTEGER, "
		      "tid INTEGER, sid INTEGER, file TEXT);"
		      "CREATE TABLE op (id INTEGER PRIMARY KEY, "
		      "name TEXT NOT NULL UNIQUE);"
		      "INSERT INTO op VALUES (0, 'read'), (1, 'open'), "
		      "(2, 'header'), (3, 'close'), (4, 'stat');"
		      "INSERT INTO stream (id, run_id, opened_ns, closed_ns, "
		      "frames, late_frames) VALUES (1, 1, 0, 10, 3, 1), "
		      "(2, 1, 0, NULL, NULL, NULL);"
		      "INSERT INTO access (stream_id, frame, due_ns, "
		      "issued_ns, done_ns, played) VALUES (1, 3, 10, 5, 20, 1);"
		      "CREATE VIEW access_v AS SELECT 1 AS old;"
		      "CREATE VIEW stream_summary AS SELECT 1 AS old;"
		      "CREATE VIEW run_summary AS SELECT 1 AS old;"
		      "CREATE VIEW op_summary AS SELECT 1 AS old;"
		      "CREATE VIEW timeseries AS SELECT 1 AS old;"
		      "CREATE VIEW late_frame AS SELECT 1 AS old;"
		      "CREATE VIEW bench_step_summary AS SELECT 1 AS old;"
		      "PRAGMA user_version = 10");
	raw_exec(db, "INSERT INTO run (id, started_at) VALUES (1, 'x')");
	check_schema(db);
	q_text_eq(db, "SELECT group_concat(kind || ' ' || "
		      "coalesce(writer_drops, 'null'), '|') FROM stream",
		  "play 0|play null");
	for (op = 0; eng_op_name(op); op++)
		;
	assert_int_equal(q_i64(db, "SELECT count(*) FROM op"), op);
	q_text_eq(db, "SELECT name FROM op WHERE id = 10", "await");
	q_text_eq(db, "SELECT late_frames || ' ' || dropped_frames || ' ' || "
		      "play_streams || ' ' || record_streams FROM run_summary",
		  "1 0 2 0");
	q_text_eq(db, "SELECT kind || ' ' || cause FROM late_frame",
		  "play issue");
	sqlite3_close(db);
}

/* Schema 12 (many hosts): a run without a uuid gets a random one (a
 * version 4 UUID, another per run), t0_unix_ns as given (0: NULL), and a
 * host row of its own: one per host name and machine, reused by the next
 * run of the same host and machine, another for another machine. */
static void test_run_host_own(void **state)
{
	struct store_run_info ri = run_info;
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t tl;
	int i;

	ri.machine_id = "0123456789abcdef0123456789abcdef";
	ri.t0_unix_ns = 1765000000123456789LL;
	for (i = 0; i < 3; i++) {
		if (i == 2) {
			ri.machine_id = NULL;
			ri.t0_unix_ns = 0;
		}
		st = start_ok(t->db, 0, &ri, &tl);
		assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
		store_close(st);
	}
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run WHERE uuid LIKE "
				   "'________-____-4___-____-____________'"),
			 3);
	assert_int_equal(q_i64(db, "SELECT count(DISTINCT uuid) FROM run"), 3);
	q_text_eq(db, "SELECT group_concat(coalesce(t0_unix_ns, 'null') || "
		      "' ' || host_id, '|') FROM run",
		  "1765000000123456789 1|1765000000123456789 1|null 2");
	q_text_eq(db, "SELECT group_concat(id || ' ' || name || ' ' || "
		      "coalesce(machine_id, 'null') || ' ' || "
		      "coalesce(experiment_id, 'null') || ' ' || "
		      "coalesce(rank, 'null') || ' ' || complete, '|') FROM host",
		  "1 testhost 0123456789abcdef0123456789abcdef null null 1|"
		  "2 testhost null null null 1");
	sqlite3_close(db);
}

/* A run given its uuid keeps it; with -o experiment=,rank= it names the
 * host row timelinefs-hosts wrote for that rank, and adds none; a rank
 * the experiment has no row for refuses the run, saying so. */
static void test_run_host_experiment(void **state)
{
	static const char exp[] = "0f8fad5b-d9cb-469f-a165-70867728950e";
	struct store_run_info ri = run_info;
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t tl;

	store_close(open_ok(t->db, 0));
	db = raw_open(t->db);
	raw_exec(db, "INSERT INTO experiment (id, uuid, started_at, ranks, "
		     "plan) VALUES (7, '0f8fad5b-d9cb-469f-a165-70867728950e', "
		     "'x', 2, 'list');"
		     "INSERT INTO host (id, experiment_id, rank, name) VALUES "
		     "(4, 7, 0, 'a'), (5, 7, 1, 'b')");
	sqlite3_close(db);
	ri.uuid = "11111111-2222-4333-8444-555555555555";
	ri.experiment = exp;
	ri.rank = 1;
	st = start_ok(t->db, 0, &ri, &tl);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);

	ri.uuid = NULL;
	ri.rank = 2;
	st = open_ok(t->db, 0);
	assert_int_equal(store_run_begin(st, &ri, EPOCH), -EIO);
	assert_non_null(strstr(store_errmsg(st), "no host row for rank 2 of "
				"experiment 0f8fad5b-d9cb-469f-a165-"
				"70867728950e"));
	store_close(st);
	ri.rank = -1;
	st = open_ok(t->db, 0);
	assert_int_equal(store_run_begin(st, &ri, EPOCH), -EINVAL);
	store_close(st);

	db = raw_open(t->db);
	q_text_eq(db, "SELECT group_concat(uuid || ' ' || host_id, '|') "
		      "FROM run",
		  "11111111-2222-4333-8444-555555555555 5");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM host"), 2);
	sqlite3_close(db);
}

/* A file of schema version 11 gets version 12's columns (NULL in its old
 * rows), the experiment and host tables, and a new run in it its uuid
 * and host; its old views are replaced, a view of the user's own stays. */
static void test_migrate_v12(void **state)
{
	struct tmp *t = *state;
	struct store *st;
	sqlite3 *db;
	int64_t tl;

	old_file(t->db, "CREATE TABLE run (id INTEGER PRIMARY KEY, label TEXT, "
		 "started_at TEXT NOT NULL, ended_at TEXT, kernel TEXT, "
		 "config_hz INTEGER, host TEXT, options TEXT, media_dir TEXT, "
		 "queue_full_waits INTEGER NOT NULL DEFAULT 0, "
		 "rows_lost INTEGER NOT NULL DEFAULT 0, duration_ns INTEGER);"
		 "CREATE TABLE bench_step (id INTEGER PRIMARY KEY, "
		 "run_id INTEGER NOT NULL REFERENCES run(id), label TEXT, "
		 "workstations INTEGER NOT NULL, repetition INTEGER NOT NULL, "
		 "started_ns INTEGER, ended_ns INTEGER, wall_s REAL, "
		 "reader TEXT);"
		 "INSERT INTO run (id, started_at) VALUES (1, 'old');"
		 "INSERT INTO bench_step (run_id, workstations, repetition) "
		 "VALUES (1, 2, 1);"
		 "CREATE VIEW bench_step_summary AS SELECT 1 AS old;"
		 "CREATE VIEW run_summary AS SELECT 1 AS old;"
		 "CREATE VIEW mine AS SELECT 1 AS old;"
		 "PRAGMA user_version = 11");
	st = start_ok(t->db, 0, &run_info, &tl);
	assert_int_equal(store_run_end(st, EPOCH + SEC), 0);
	store_close(st);
	db = raw_open(t->db);
	assert_int_equal(q_i64(db, "PRAGMA user_version"),
			 STORE_SCHEMA_VERSION);
	check_schema(db);
	q_text_eq(db, "SELECT group_concat(coalesce(uuid, 'null') || ' ' || "
		      "coalesce(host_id, 'null'), '|') FROM run "
		      "WHERE id = 1", "null null");
	assert_int_equal(q_i64(db, "SELECT count(*) FROM run WHERE id = 2 AND "
				   "length(uuid) = 36 AND host_id = 1"), 1);
	q_text_eq(db, "SELECT coalesce(experiment_id, 'null') || ' ' || "
		      "coalesce(step_no, 'null') FROM bench_step",
		  "null null");
	assert_int_equal(q_i64(db, "SELECT old FROM mine"), 1);
	sqlite3_close(db);
}

/* a test that gets a private directory as *state */
#define TMP_TEST(f) cmocka_unit_test_setup_teardown(f, tmp_setup, tmp_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schema_text),
		cmocka_unit_test(test_memory_run),
		TMP_TEST(test_env_rows),
		TMP_TEST(test_migrate_v5),
		TMP_TEST(test_migrate_v6),
		TMP_TEST(test_late_frame_played),
		TMP_TEST(test_late_cause_backlog),
		TMP_TEST(test_migrate_v14),
		TMP_TEST(test_late_cause_evidence),
		TMP_TEST(test_late_cause_jitter),
		TMP_TEST(test_headroom),
		TMP_TEST(test_bench_client_play),
		TMP_TEST(test_migrate_v15),
		TMP_TEST(test_migrate_v16),
		TMP_TEST(test_migrate_v7),
		TMP_TEST(test_dep_reads),
		TMP_TEST(test_migrate_v8),
		TMP_TEST(test_seq_ops),
		TMP_TEST(test_migrate_v10),
		TMP_TEST(test_ingest_views),
		TMP_TEST(test_migrate_v11),
		TMP_TEST(test_run_host_own),
		TMP_TEST(test_run_host_experiment),
		TMP_TEST(test_migrate_v12),
		cmocka_unit_test(test_call_order),
		TMP_TEST(test_summaries),
		TMP_TEST(test_batching),
		TMP_TEST(test_no_statement_journal),
		TMP_TEST(test_commit_interval),
		TMP_TEST(test_flush_on_end),
		cmocka_unit_test(test_after_end),
		cmocka_unit_test(test_unclosed_stream),
		TMP_TEST(test_two_runs_file),
		TMP_TEST(test_existing_mode),
		TMP_TEST(test_stream_repaired),
		TMP_TEST(test_migrate_injected),
		TMP_TEST(test_migrate_v2),
		TMP_TEST(test_reader_ids),
		TMP_TEST(test_migrate_v4),
		TMP_TEST(test_problems),
		TMP_TEST(test_text_roundtrip),
		TMP_TEST(test_open_errors),
		TMP_TEST(test_run_begin_error),
		TMP_TEST(test_hold_recover),
		TMP_TEST(test_hold_bound),
		TMP_TEST(test_hold_end_in_outage),
		TMP_TEST(test_hold_zero),
		TMP_TEST(test_end_without_start),
		TMP_TEST(test_header_one_transaction),
		TMP_TEST(test_discard),
		TMP_TEST(test_discard_after_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
