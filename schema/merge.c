/* SPDX-License-Identifier: MIT */
/*
 * Many hosts (experiment.h): one host's database merged into another, as
 * timelinefs-merge and timelinefs-hosts' rank 0 do.  The source is
 * attached read-only and copied table by table with INSERT ... SELECT (a
 * run has millions of access rows: one statement per table, never one per
 * row), each table's ids moved past the target's largest (new id = old id
 * + delta), in one transaction.  Only the few experiment and host rows
 * are looked at one by one, for their matching rules; the experiments'
 * shares go by their key (INSERT OR IGNORE).  Columns the source
 * lacks (a database of an older schema) get what the migration of such a
 * file gives them (migrate.c): their default, or the value it derives.
 * hosts_merge_experiment takes one experiment: the filter is in the maps
 * (temp.m_exp holds that experiment only, m_host its host rows, m_run
 * their runs), every table after them following the maps.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"
#include "store_i.h"

#define MERGE_COLS 64
#define MERGE_SQL 8192

struct merge {
	struct hosts_db *h;
	const char *src; /* the source's path, for messages */
	char **errmsg;
	/* hosts_merge_experiment: the one experiment's id in the source
	 * (0: every row) */
	int64_t exp_old;
	int64_t d_run, d_problem, d_tl, d_stream, d_access, d_step, d_cal;
};

/* ------------------------------------------------------------ helpers */

static int fail(struct merge *m, const char *what)
{
	if (m->errmsg && !*m->errmsg)
		*m->errmsg =
		    store_fmt_msg("cannot merge %s into %s: %s: %s", m->src,
				  m->h->path, what, sqlite3_errmsg(m->h->db));
	return -EIO;
}

/* A message about the source itself (bad input): "SRC: why". */
static int bad_src(struct merge *m, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_src(struct merge *m, int e, const char *fmt, ...)
{
	va_list ap;
	char *why = NULL;

	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		why = NULL;
	va_end(ap);
	if (m->errmsg && !*m->errmsg)
		*m->errmsg =
		    store_fmt_msg("%s: %s", m->src, why ? why : "bad input");
	free(why);
	return e;
}

static int exec(struct merge *m, const char *sql, const char *what)
{
	if (sqlite3_exec(m->h->db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	return fail(m, what);
}

/* The first n integers of the row sql returns (0 for NULL or no row). */
static int q_i64n(struct merge *m, const char *sql, int64_t *v, int n)
{
	sqlite3_stmt *s;
	int rc, i;

	for (i = 0; i < n; i++)
		v[i] = 0;
	if (sqlite3_prepare_v2(m->h->db, sql, -1, &s, NULL) != SQLITE_OK)
		return fail(m, "prepare a query");
	rc = sqlite3_step(s);
	for (i = 0; rc == SQLITE_ROW && i < n; i++)
		v[i] = sqlite3_column_int64(s, i);
	sqlite3_finalize(s);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : fail(m, sql);
}

/* The one integer sql returns. */
static int q_i64(struct merge *m, const char *sql, int64_t *v)
{
	return q_i64n(m, sql, v, 1);
}

/* The columns of schema.table in order (none: the table is absent). */
struct cols {
	int n;
	char name[MERGE_COLS][64];
};

static int columns(struct merge *m, const char *schema, const char *table,
		   struct cols *c)
{
	sqlite3_stmt *s;
	int rc;

	c->n = 0;
	if (sqlite3_prepare_v2(m->h->db,
			       "SELECT name FROM "
			       "pragma_table_info(?, ?) ORDER BY cid",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(m, "read a table's columns");
	sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, schema, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW && c->n < MERGE_COLS)
		snprintf(c->name[c->n++], sizeof(c->name[0]), "%s",
			 (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		return fail(m, "read a table's columns");
	return 0;
}

static int has(const struct cols *c, const char *name)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return 1;
	return 0;
}

/* Append to sql[len] at *used; -1 when it does not fit. */
static int app(char *sql, size_t len, size_t *used, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int app(char *sql, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sql + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used)
		return -1;
	*used += (size_t)n;
	return 0;
}

/* What a target column gets instead of the source's same column:
 * REMAP where the source has it (an id moved by a delta), FALLBACK where
 * it lacks it (what the migration derives), FORCE always. */
enum how { REMAP, FALLBACK, FORCE };
struct expr {
	const char *col;
	enum how how;
	const char *sql; /* over the source row, aliased x */
};

/* Copy the rows of src.table that where selects (over x) into the
 * target's table: one INSERT ... SELECT.  The target's columns the source
 * lacks and no expression gives keep their default.  *added: rows. */
static int copy(struct merge *m, const char *table, const struct expr *ex,
		size_t nex, const char *where, int64_t *added)
{
	struct cols tc, sc;
	char *sql;
	size_t len = MERGE_SQL, used = 0, i, k;
	const char *e;
	sqlite3_stmt *s;
	int rc, first, pass, bad;

	*added = 0;
	if (columns(m, "main", table, &tc) < 0 ||
	    columns(m, "src", table, &sc) < 0)
		return -EIO;
	if (!sc.n)
		return 0; /* the source's schema had no such table */
	sql = malloc(len);
	if (!sql)
		return -ENOMEM;
	bad = app(sql, len, &used, "INSERT INTO main.\"%s\" (", table);
	/* pass 0 names the columns, pass 1 their values */
	for (pass = 0; pass < 2 && !bad; pass++) {
		first = 1;
		for (i = 0; i < (size_t)tc.n && !bad; i++) {
			const char *c = tc.name[i];
			int src_has = has(&sc, c);
			char own[96];

			e = NULL;
			for (k = 0; k < nex; k++) {
				if (strcmp(ex[k].col, c))
					continue;
				if (ex[k].how == FORCE ||
				    (ex[k].how == REMAP && src_has) ||
				    (ex[k].how == FALLBACK && !src_has))
					e = ex[k].sql;
			}
			if (!e && src_has) {
				snprintf(own, sizeof(own), "x.\"%s\"", c);
				e = own;
			}
			if (!e)
				continue;
			bad = app(sql, len, &used, "%s%s%s%s",
				  first ? "" : ", ", pass ? "" : "\"",
				  pass ? e : c, pass ? "" : "\"");
			first = 0;
		}
		if (!bad)
			bad =
			    app(sql, len, &used, "%s", pass ? "" : ") SELECT ");
	}
	if (!bad)
		bad = app(sql, len, &used, " FROM src.\"%s\" AS x WHERE %s",
			  table, where);
	if (bad) {
		free(sql);
		return fail(m, "a statement too long");
	}
	rc = sqlite3_prepare_v2(m->h->db, sql, -1, &s, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return fail(m, table);
	{
		static const char *const names[] = {
		    ":d_run",	 ":d_problem", ":d_tl",	 ":d_stream",
		    ":d_access", ":d_step",    ":d_cal",
		};
		const int64_t v[] = {m->d_run,	  m->d_problem, m->d_tl,
				     m->d_stream, m->d_access,	m->d_step,
				     m->d_cal};
		int ix;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			ix = sqlite3_bind_parameter_index(s, names[i]);
			if (ix > 0)
				sqlite3_bind_int64(s, ix, v[i]);
		}
	}
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return fail(m, table);
	*added = sqlite3_changes(m->h->db);
	return 0;
}

/* ------------------------------------------------------------ identity */

/* 64-bit FNV-1a of a run's host, started_at and id, from basis. */
static uint64_t fnv(uint64_t basis, const unsigned char *p, size_t n)
{
	uint64_t x = basis;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= p[i];
		x *= 0x100000001b3ULL;
	}
	return x;
}

/* tlfs_old_uuid(host, started_at, id): the uuid of a run from before
 * schema 12, the same at every merge of it: a UUID of version 8 (RFC
 * 9562's "custom") from two FNV-1a hashes of the three, so that it never
 * equals a random (version 4) one. */
static void old_uuid(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	char key[512], out[40];
	unsigned char b[16];
	uint64_t a, c;
	int n, i;

	(void)argc;
	n = snprintf(key, sizeof(key), "%s|%s|%lld",
		     sqlite3_value_text(argv[0])
			 ? (const char *)sqlite3_value_text(argv[0])
			 : "",
		     sqlite3_value_text(argv[1])
			 ? (const char *)sqlite3_value_text(argv[1])
			 : "",
		     (long long)sqlite3_value_int64(argv[2]));
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(key))
		n = sizeof(key) - 1;
	a = fnv(0xcbf29ce484222325ULL, (const unsigned char *)key, (size_t)n);
	c = fnv(0x84222325cbf29ce4ULL, (const unsigned char *)key, (size_t)n);
	for (i = 0; i < 8; i++) {
		b[i] = (unsigned char)(a >> (56 - 8 * i));
		b[8 + i] = (unsigned char)(c >> (56 - 8 * i));
	}
	store_uuid_format(b, 8, out);
	sqlite3_result_text(ctx, out, -1, SQLITE_TRANSIENT);
}

/* ------------------------------------------------------------ the source */

/* "file:PATH?mode=ro...": PATH with the characters a URI gives meaning to
 * escaped.  Without a -wal beside it nothing writes the file (a daemon
 * writing has one open): immutable, so that SQLite makes no -shm; with
 * one, read-only through it, so that its last commits are seen. */
static char *src_uri(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	char *wal, *uri, *q;
	const unsigned char *p;
	struct stat sb;
	int immutable;

	if (asprintf(&wal, "%s-wal", path) < 0)
		return NULL;
	immutable = stat(wal, &sb) < 0;
	free(wal);
	uri = malloc(strlen(path) * 3 + 64);
	if (!uri)
		return NULL;
	q = uri + sprintf(uri, "file:");
	for (p = (const unsigned char *)path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#' || *p <= ' ' ||
		    *p >= 0x7f) {
			*q++ = '%';
			*q++ = hex[*p >> 4];
			*q++ = hex[*p & 15];
		} else {
			*q++ = (char)*p;
		}
	}
	strcpy(q, immutable ? "?mode=ro&immutable=1" : "?mode=ro");
	return uri;
}

/* The source failed to read: damaged (cut short, overwritten) or not a
 * database at all. */
static int not_db(struct merge *m)
{
	const char *why = sqlite3_errmsg(m->h->db);

	if ((sqlite3_extended_errcode(m->h->db) & 0xff) == SQLITE_CORRUPT)
		return bad_src(m, -EINVAL, "damaged (%s)", why);
	return bad_src(m, -EINVAL, "not a timelinefs database: %s", why);
}

/* Attach the source as "src" and check that it is a timelinefs database
 * this program can read: the reason named otherwise (-EINVAL). */
static int attach(struct merge *m, int *version)
{
	sqlite3_stmt *s = NULL;
	struct store_kind k;
	struct stat sb, tb;
	char *uri;
	int64_t v;
	int rc;

	if (stat(m->src, &sb) < 0)
		return bad_src(m, -errno, "%s", strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return bad_src(m, -EINVAL, "not a file");
	if (stat(m->h->path, &tb) == 0 && tb.st_dev == sb.st_dev &&
	    tb.st_ino == sb.st_ino)
		return bad_src(m, -EINVAL, "is the database merged into");
	uri = src_uri(m->src);
	if (!uri)
		return -ENOMEM;
	rc = sqlite3_prepare_v2(m->h->db, "ATTACH ? AS src", -1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(s, 1, uri, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	sqlite3_finalize(s);
	free(uri);
	if (rc != SQLITE_DONE)
		return not_db(m);
	/* the first read of the file: a text file fails here */
	if (store_kind_of(m->h->db, "src", &k) != SQLITE_OK)
		return not_db(m);
	v = k.version;
	if (!k.runs)
		return bad_src(m, -EINVAL,
			       "not a timelinefs database (it has "
			       "no table run)");
	/* every file timelinefs wrote says its version, from 1 */
	if (!store_kind_ours(&k))
		return bad_src(m, -EINVAL,
			       "schema version %lld: not a timelinefs "
			       "database",
			       (long long)v);
	if (v > STORE_SCHEMA_VERSION)
		return bad_src(m, -ENOTSUP,
			       "schema version %lld is newer "
			       "than this timelinefs supports (%d)",
			       (long long)v, STORE_SCHEMA_VERSION);
	*version = (int)v;
	/* A file cut short or damaged fails somewhere in the copy, with
	 * SQLite's "malformed" and no word of which file: said here first,
	 * whole (0.27 s for a file of 1 M access rows, 70 MB, here). */
	rc = sqlite3_prepare_v2(m->h->db, "PRAGMA src.quick_check(1)", -1, &s,
				NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW &&
	    strcmp((const char *)sqlite3_column_text(s, 0), "ok") != 0)
		rc = bad_src(m, -EINVAL, "damaged (%s)",
			     (const char *)sqlite3_column_text(s, 0));
	else if (rc != SQLITE_ROW)
		rc = bad_src(m, -EINVAL, "damaged (%s)",
			     sqlite3_errmsg(m->h->db));
	else
		rc = 0;
	sqlite3_finalize(s);
	return rc;
}

/* ------------------------------------------------------------ rows */

/* The source's experiments: one by uuid in the target (added, or its
 * columns the target has not yet filled, an end, a verdict, taken from
 * the source), mapped in temp.m_exp. */
static int merge_experiments(struct merge *m)
{
	sqlite3_stmt *s = NULL, *find = NULL, *add = NULL, *upd = NULL;
	char sql[96];
	int64_t old, new;
	int rc;

	struct cols ec;

	if (exec(m,
		 "CREATE TEMP TABLE m_exp (old INTEGER PRIMARY KEY, "
		 "new INTEGER)",
		 "map experiments") < 0 ||
	    columns(m, "src", "experiment", &ec) < 0)
		return -EIO;
	/* a source before schema 12 has none; one that has the table and
	 * cannot be read is bad, not old */
	if (!ec.n)
		return 0;
	if (sqlite3_prepare_v2(m->h->db,
			       "SELECT id FROM src.experiment "
			       "WHERE ?1 = 0 OR id = ?1",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(m, "read its experiments");
	sqlite3_bind_int64(s, 1, m->exp_old);
	rc = sqlite3_prepare_v2(m->h->db,
				"SELECT e.id FROM main.experiment e "
				"JOIN src.experiment x ON x.uuid = e.uuid "
				"WHERE x.id = ?",
				-1, &find, NULL);
	if (rc == SQLITE_OK)
		rc =
		    sqlite3_prepare_v2(m->h->db,
				       "INSERT INTO main.experiment "
				       "(uuid, started_at, ended_at, ranks, "
				       "machines, command, plan, max_lo, "
				       "max_hi, verdict) SELECT uuid, "
				       "started_at, ended_at, ranks, machines, "
				       "command, plan, max_lo, max_hi, verdict "
				       "FROM src.experiment WHERE id = ?",
				       -1, &add, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(
		    m->h->db,
		    "UPDATE main.experiment SET "
		    "(ended_at, machines, max_lo, max_hi, "
		    "verdict) = (SELECT coalesce("
		    "e.ended_at, x.ended_at), coalesce("
		    "e.machines, x.machines), coalesce("
		    "e.max_lo, x.max_lo), coalesce(e.max_hi, "
		    "x.max_hi), coalesce(e.verdict, "
		    "x.verdict) FROM main.experiment e, "
		    "src.experiment x WHERE e.id = ?1 AND "
		    "x.id = ?2) WHERE id = ?1",
		    -1, &upd, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		old = sqlite3_column_int64(s, 0);
		new = 0;
		sqlite3_bind_int64(find, 1, old);
		rc = sqlite3_step(find);
		if (rc == SQLITE_ROW)
			new = sqlite3_column_int64(find, 0);
		sqlite3_reset(find);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			break;
		if (new) {
			sqlite3_bind_int64(upd, 1, new);
			sqlite3_bind_int64(upd, 2, old);
			rc = sqlite3_step(upd);
			sqlite3_reset(upd);
		} else {
			sqlite3_bind_int64(add, 1, old);
			rc = sqlite3_step(add);
			sqlite3_reset(add);
			new = sqlite3_last_insert_rowid(m->h->db);
		}
		if (rc != SQLITE_DONE)
			break;
		snprintf(sql, sizeof(sql),
			 "INSERT INTO m_exp VALUES (%lld, "
			 "%lld)",
			 (long long)old, (long long)new);
		rc = sqlite3_exec(m->h->db, sql, NULL, NULL, NULL);
	}
	sqlite3_finalize(s);
	sqlite3_finalize(find);
	sqlite3_finalize(add);
	sqlite3_finalize(upd);
	return rc == SQLITE_DONE || rc == SQLITE_OK
		   ? 0
		   : fail(m, "merge experiments");
}

/* The source's experiment_share rows (rank 0's database has them), their
 * experiment mapped: by (experiment, step, rank), a row the target holds
 * kept, so that a second merge adds nothing.  A source without the table
 * (before it existed) has none. */
static int merge_shares(struct merge *m, struct hosts_merge_stats *st)
{
	struct cols sc;

	if (columns(m, "src", "experiment_share", &sc) < 0)
		return -EIO;
	if (!sc.n)
		return 0;
	if (exec(m,
		 "INSERT OR IGNORE INTO main.experiment_share (experiment_id, "
		 "step_no, rank, workstations, repetition, total_workstations, "
		 "planned_unix_ns) SELECT e.new, x.step_no, x.rank, "
		 "x.workstations, x.repetition, x.total_workstations, "
		 "x.planned_unix_ns FROM src.experiment_share x JOIN m_exp e "
		 "ON e.old = x.experiment_id",
		 "merge the experiments' shares") < 0)
		return -EIO;
	st->shares_added = sqlite3_changes(m->h->db);
	return 0;
}

/* The source's host rows, mapped in temp.m_host: by (experiment, rank),
 * or outside an experiment by (name, machine).  A host row absent from
 * the target is added; present, the source's replaces it when it knows
 * more: complete, or with an end measurement, beats neither (a rank that
 * rank 0 gave up on, whose own database says it finished). */
static int merge_hosts(struct merge *m, struct hosts_merge_stats *st)
{
	static const char cols[] = "name, machine_id, boot_id, "
				   "offset_start_ns, rtt_start_ns, t_start_ns, "
				   "offset_end_ns, rtt_end_ns, t_end_ns, sync, "
				   "sync_error_us, complete, reason";
	sqlite3_stmt *s = NULL, *find = NULL, *add = NULL, *upd = NULL;
	char sql[1024];
	int64_t old, new;
	int rc, better;

	struct cols hc;

	if (exec(m,
		 "CREATE TEMP TABLE m_host (old INTEGER PRIMARY KEY, "
		 "new INTEGER)",
		 "map hosts") < 0 ||
	    columns(m, "src", "host", &hc) < 0)
		return -EIO;
	if (!hc.n)
		return 0; /* before schema 12: no host table */
	/* the source's row, its experiment mapped, and the target's match
	 * with whether the source's knows more (2 complete + 1 an end) */
	if (sqlite3_prepare_v2(m->h->db,
			       "SELECT x.id, (SELECT h.id FROM "
			       "main.host h WHERE CASE WHEN x.experiment_id "
			       "IS NOT NULL AND x.rank IS NOT NULL THEN "
			       "h.experiment_id = (SELECT new FROM m_exp WHERE "
			       "old = x.experiment_id) AND h.rank = x.rank "
			       "ELSE h.experiment_id IS (SELECT new FROM m_exp "
			       "WHERE old = x.experiment_id) AND h.rank IS "
			       "x.rank AND h.name = x.name AND h.machine_id IS "
			       "x.machine_id END ORDER BY h.id LIMIT 1) FROM "
			       "src.host x WHERE ?1 = 0 OR x.experiment_id = "
			       "?1 ORDER BY x.id",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(m, "read its hosts");
	sqlite3_bind_int64(s, 1, m->exp_old);
	snprintf(sql, sizeof(sql),
		 "INSERT INTO main.host (experiment_id, "
		 "rank, %s) SELECT (SELECT new FROM m_exp WHERE old = "
		 "x.experiment_id), x.rank, %s FROM src.host x WHERE x.id = ?",
		 cols, cols);
	rc = sqlite3_prepare_v2(m->h->db, sql, -1, &add, NULL);
	snprintf(sql, sizeof(sql),
		 "UPDATE main.host SET (%s) = (SELECT %s "
		 "FROM src.host WHERE id = ?2) WHERE id = ?1",
		 cols, cols);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->h->db, sql, -1, &upd, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->h->db,
					"SELECT (2 * x.complete + "
					"(x.offset_end_ns IS NOT NULL)) > (2 * "
					"h.complete + (h.offset_end_ns IS NOT "
					"NULL)) FROM src.host x, main.host h "
					"WHERE x.id = ? AND h.id = ?",
					-1, &find, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		old = sqlite3_column_int64(s, 0);
		new = sqlite3_column_int64(s, 1);
		if (new) {
			sqlite3_bind_int64(find, 1, old);
			sqlite3_bind_int64(find, 2, new);
			rc = sqlite3_step(find);
			better =
			    rc == SQLITE_ROW && sqlite3_column_int(find, 0);
			sqlite3_reset(find);
			if (rc != SQLITE_ROW)
				break;
			rc = SQLITE_DONE;
			if (better) {
				sqlite3_bind_int64(upd, 1, new);
				sqlite3_bind_int64(upd, 2, old);
				rc = sqlite3_step(upd);
				sqlite3_reset(upd);
				st->hosts_updated++;
			}
		} else {
			sqlite3_bind_int64(add, 1, old);
			rc = sqlite3_step(add);
			sqlite3_reset(add);
			new = sqlite3_last_insert_rowid(m->h->db);
			st->hosts_added++;
		}
		if (rc != SQLITE_DONE)
			break;
		snprintf(sql, sizeof(sql),
			 "INSERT INTO m_host VALUES (%lld, "
			 "%lld)",
			 (long long)old, (long long)new);
		rc = sqlite3_exec(m->h->db, sql, NULL, NULL, NULL);
	}
	sqlite3_finalize(s);
	sqlite3_finalize(find);
	sqlite3_finalize(add);
	sqlite3_finalize(upd);
	return rc == SQLITE_DONE || rc == SQLITE_OK ? 0
						    : fail(m, "merge hosts");
}

/* The runs to add, in temp.m_run (old id, uuid, the target's host row):
 * those whose uuid (derived for a run from before schema 12) the target
 * does not hold.  A run with no host row (before 12) gets the host row of
 * its run.host outside any experiment, as a mount of 12 makes its own. */
static int pick_runs(struct merge *m, int src_uuid, int src_host,
		     struct hosts_merge_stats *st)
{
	sqlite3_stmt *s = NULL, *find = NULL, *add = NULL;
	char sql[512];
	int64_t all, host;
	int rc;

	if (exec(m,
		 "CREATE TEMP TABLE m_run (old INTEGER PRIMARY KEY, "
		 "uuid TEXT NOT NULL, host_new INTEGER)",
		 "map runs") < 0)
		return -EIO;
	/* the target's own runs from before 12 get theirs too: a source
	 * that is a copy of it then adds nothing */
	if (exec(m,
		 "UPDATE main.run SET uuid = tlfs_old_uuid(host, "
		 "started_at, id) WHERE uuid IS NULL",
		 "name old runs") < 0)
		return -EIO;
	/* one experiment's: the runs of its host rows (m_host holds only
	 * those then), each with its host row mapped */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO m_run SELECT x.id, %s, %s "
		 "FROM src.run x%s",
		 src_uuid ? "coalesce(x.uuid, "
			    "tlfs_old_uuid(x.host, x.started_at, x.id))"
			  : "tlfs_old_uuid(x.host, x.started_at, x.id)",
		 src_host ? "(SELECT new FROM m_host WHERE old = x.host_id)"
			  : "NULL",
		 m->exp_old && src_host
		     ? " WHERE x.host_id IN (SELECT old FROM m_host)"
		     : "");
	if (exec(m, sql, "map runs") < 0 ||
	    q_i64(m, "SELECT count(*) FROM m_run", &all) < 0 ||
	    exec(m,
		 "DELETE FROM m_run WHERE uuid IN (SELECT uuid FROM "
		 "main.run)",
		 "map runs") < 0 ||
	    q_i64(m, "SELECT count(*) FROM m_run", &st->runs_added) < 0 ||
	    q_i64(m,
		  "SELECT count(*) FROM m_run JOIN src.run x ON x.id = "
		  "m_run.old WHERE x.ended_at IS NULL",
		  &st->runs_unended) < 0)
		return -EIO;
	st->runs_present = all - st->runs_added;
	/* runs without a host row: one per host name, outside experiments */
	rc = sqlite3_prepare_v2(m->h->db,
				"SELECT DISTINCT coalesce(x.host, "
				"'?') FROM m_run JOIN src.run x ON x.id = "
				"m_run.old WHERE m_run.host_new IS NULL",
				-1, &s, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->h->db,
					"SELECT id FROM main.host "
					"WHERE experiment_id IS NULL AND rank "
					"IS NULL AND name = ? AND machine_id "
					"IS NULL ORDER BY id LIMIT 1",
					-1, &find, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(m->h->db,
					"INSERT INTO main.host (name, "
					"complete) VALUES (?, 1)",
					-1, &add, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);
		sqlite3_stmt *u = NULL;

		host = 0;
		sqlite3_bind_text(find, 1, name, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(find);
		if (rc == SQLITE_ROW)
			host = sqlite3_column_int64(find, 0);
		sqlite3_reset(find);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			break;
		if (!host) {
			sqlite3_bind_text(add, 1, name, -1, SQLITE_TRANSIENT);
			rc = sqlite3_step(add);
			sqlite3_reset(add);
			if (rc != SQLITE_DONE)
				break;
			host = sqlite3_last_insert_rowid(m->h->db);
			st->hosts_added++;
		}
		rc = sqlite3_prepare_v2(m->h->db,
					"UPDATE m_run SET host_new = "
					"? WHERE host_new IS NULL AND old IN "
					"(SELECT id FROM src.run WHERE "
					"coalesce(host, '?') = ?)",
					-1, &u, NULL);
		if (rc == SQLITE_OK) {
			sqlite3_bind_int64(u, 1, host);
			sqlite3_bind_text(u, 2, name, -1, SQLITE_TRANSIENT);
			rc = sqlite3_step(u);
			rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
		}
		sqlite3_finalize(u);
	}
	sqlite3_finalize(s);
	sqlite3_finalize(find);
	sqlite3_finalize(add);
	return rc == SQLITE_DONE || rc == SQLITE_OK ? 0 : fail(m, "map runs");
}

/* Every row of the runs in m_run, table by table, ids moved. */
static int copy_runs(struct merge *m, struct hosts_merge_stats *st)
{
#define IN_RUNS "x.run_id IN (SELECT old FROM m_run)"
	static const struct expr run[] = {
	    {"id", FORCE, "x.id + :d_run"},
	    {"uuid", FORCE, "(SELECT uuid FROM m_run WHERE old = x.id)"},
	    {"host_id", FORCE, "(SELECT host_new FROM m_run WHERE old = x.id)"},
	};
	static const struct expr env[] = {
	    {"run_id", FORCE, "x.run_id + :d_run"},
	};
	static const struct expr problem[] = {
	    {"id", FORCE, "x.id + :d_problem"},
	    {"run_id", FORCE, "x.run_id + :d_run"},
	};
	static const struct expr timeline[] = {
	    {"id", FORCE, "x.id + :d_tl"},
	    {"run_id", FORCE, "x.run_id + :d_run"},
	};
	static const struct expr media[] = {
	    {"timeline_id", FORCE, "x.timeline_id + :d_tl"},
	};
	/* the fallbacks: what migrate.c's versions 4, 6 and 11 derive */
	static const struct expr stream[] = {
	    {"id", FORCE, "x.id + :d_stream"},
	    {"run_id", FORCE, "x.run_id + :d_run"},
	    {"timeline_id", FORCE, "x.timeline_id + :d_tl"},
	    {"tid", FALLBACK, "x.pid"},
	    {"file", FALLBACK,
	     "(SELECT name FROM src.timeline t "
	     "WHERE t.id = x.timeline_id)"},
	    {"writer_drops", FALLBACK,
	     "CASE WHEN x.closed_ns IS NOT NULL THEN 0 END"},
	};
	static const struct expr access[] = {
	    {"id", FORCE, "x.id + :d_access"},
	    {"stream_id", FORCE, "x.stream_id + :d_stream"},
	};
	static const struct expr step[] = {
	    {"id", FORCE, "x.id + :d_step"},
	    {"run_id", FORCE, "x.run_id + :d_run"},
	    {"experiment_id", REMAP,
	     "(SELECT new FROM m_exp "
	     "WHERE old = x.experiment_id)"},
	};
	static const struct expr bstream[] = {
	    {"step_id", FORCE, "x.step_id + :d_step"},
	    {"stream_id", FORCE, "x.stream_id + :d_stream"},
	};
	/* the interactive work timed beside a step (schema 17) goes with
	 * its step */
	static const struct expr bprobe[] = {
	    {"step_id", FORCE, "x.step_id + :d_step"},
	};
	/* what the storage gave in the run (schema 13): the ground truth
	 * its steps are held against, so it goes where its run goes */
	static const struct expr cal[] = {
	    {"id", FORCE, "x.id + :d_cal"},
	    {"run_id", FORCE, "x.run_id + :d_run"},
	};
	int64_t n;

#define N(a) (sizeof(a) / sizeof(a[0]))
	if (copy(m, "run", run, N(run), "x.id IN (SELECT old FROM m_run)", &n) <
		0 ||
	    copy(m, "run_env", env, N(env), IN_RUNS, &n) < 0 ||
	    copy(m, "problem", problem, N(problem), IN_RUNS, &n) < 0 ||
	    copy(m, "timeline", timeline, N(timeline), IN_RUNS, &n) < 0 ||
	    copy(m, "media", media, N(media),
		 "x.timeline_id IN (SELECT id "
		 "FROM src.timeline WHERE run_id IN (SELECT old FROM m_run))",
		 &n) < 0 ||
	    copy(m, "stream", stream, N(stream), IN_RUNS, &st->streams_added) <
		0 ||
	    /* +: a scan of the source's access table in its order, not
	     * a search of its index per stream (4.2 s against 1.4 s for
	     * 1 M rows of 64 streams: the index's order is not the
	     * table's, every row a page read apart) */
	    copy(m, "access", access, N(access),
		 "+x.stream_id IN (SELECT id FROM src.stream WHERE run_id IN "
		 "(SELECT old FROM m_run))",
		 &st->access_added) < 0 ||
	    copy(m, "bench_step", step, N(step), IN_RUNS, &st->steps_added) <
		0 ||
	    copy(m, "bench_stream", bstream, N(bstream),
		 "x.step_id IN "
		 "(SELECT id FROM src.bench_step WHERE run_id IN (SELECT old "
		 "FROM m_run))",
		 &n) < 0 ||
	    copy(m, "bench_probe", bprobe, N(bprobe),
		 "x.step_id IN "
		 "(SELECT id FROM src.bench_step WHERE run_id IN (SELECT old "
		 "FROM m_run))",
		 &n) < 0 ||
	    copy(m, "calibration", cal, N(cal), IN_RUNS, &n) < 0)
		return -EIO;
#undef N
#undef IN_RUNS
	return 0;
}

/* A source's ids above this are not a database timelinefs wrote (2^53:
 * exact in a double); a target's ids past MERGE_ID_ROOM cannot take more.
 * Unchecked, a crafted id near INT64_MAX plus the delta overflowed to a
 * REAL, and every later merge into that target failed. */
#define MERGE_ID_MAX (1LL << 53)
#define MERGE_ID_ROOM (1LL << 62)

/* Each table's delta: its largest id in the target; the source's ids
 * checked against it (names are ours, not input). */
static int deltas(struct merge *m)
{
	static const char *const tables[] = {
	    "run",    "problem",    "timeline",	   "stream",
	    "access", "bench_step", "calibration",
	};
	int64_t *const d[] = {&m->d_run,    &m->d_problem, &m->d_tl,
			      &m->d_stream, &m->d_access,  &m->d_step,
			      &m->d_cal};
	char sql[96];
	struct cols sc;
	int64_t range[2], lo, hi;
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql), "SELECT max(id) FROM main.\"%s\"",
			 tables[i]);
		if (q_i64(m, sql, d[i]) < 0 ||
		    columns(m, "src", tables[i], &sc) < 0)
			return -EIO;
		if (!sc.n)
			continue;
		snprintf(sql, sizeof(sql),
			 "SELECT min(id), max(id) FROM src.\"%s\"", tables[i]);
		if (q_i64n(m, sql, range, 2) < 0)
			return -EIO;
		lo = range[0];
		hi = range[1];
		if ((lo || hi) && (lo < 1 || hi > MERGE_ID_MAX))
			return bad_src(m, -EINVAL,
				       "%s ids out of range (%lld to %lld): "
				       "not a database timelinefs wrote",
				       tables[i], (long long)lo, (long long)hi);
		if (*d[i] > MERGE_ID_ROOM - hi)
			return bad_src(m, -EFBIG,
				       "%s ids out of range: %s holds ids up "
				       "to %lld, no room for more",
				       tables[i], m->h->path, (long long)*d[i]);
	}
	return 0;
}

/* The source's experiment whose uuid is exp, or the one whose uuid
 * starts with it (8 characters or more), in m->exp_old: -ENOENT when the
 * source has none (or no experiment table: before schema 12), -EINVAL
 * when a prefix names more than one. */
static int find_experiment(struct merge *m, const char *exp)
{
	sqlite3_stmt *s = NULL;
	struct cols ec;
	int rc, n = 0;

	if (columns(m, "src", "experiment", &ec) < 0)
		return -EIO;
	if (!ec.n)
		return bad_src(m, -ENOENT,
			       "has no experiment %s (a database from "
			       "before schema 12: no experiments)",
			       exp);
	/* the whole uuid first; a prefix only when it is the one match */
	if (sqlite3_prepare_v2(m->h->db,
			       "SELECT id, lower(uuid) = lower(?1) FROM "
			       "src.experiment WHERE lower(uuid) = lower(?1) "
			       "OR (length(?1) >= 8 AND substr(lower(uuid), "
			       "1, length(?1)) = lower(?1)) ORDER BY 2 DESC, "
			       "id LIMIT 2",
			       -1, &s, NULL) != SQLITE_OK)
		return fail(m, "find the experiment");
	sqlite3_bind_text(s, 1, exp, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (n++ == 1)
			break; /* a second prefix match */
		m->exp_old = sqlite3_column_int64(s, 0);
		if (sqlite3_column_int(s, 1))
			break; /* the whole uuid */
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return fail(m, "find the experiment");
	if (!n)
		return bad_src(m, -ENOENT, "has no experiment %s", exp);
	if (n > 1)
		return bad_src(m, -EINVAL,
			       "more than one experiment's uuid "
			       "starts with %s",
			       exp);
	return 0;
}

int hosts_merge(struct hosts_db *h, const char *src,
		struct hosts_merge_stats *stats, char **errmsg)
{
	return hosts_merge_experiment(h, src, NULL, stats, errmsg);
}

int hosts_merge_experiment(struct hosts_db *h, const char *src,
			   const char *experiment_uuid,
			   struct hosts_merge_stats *stats, char **errmsg)
{
	struct merge m = {.h = h, .src = src, .errmsg = errmsg};
	struct hosts_merge_stats st = {0};
	struct cols rc_cols;
	int rc, version = 0;

	if (errmsg)
		*errmsg = NULL;
	if (sqlite3_create_function_v2(h->db, "tlfs_old_uuid", 3,
				       SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				       old_uuid, NULL, NULL, NULL) != SQLITE_OK)
		return fail(&m, "register a function");
	rc = attach(&m, &version);
	if (rc == 0)
		rc = exec(&m, "BEGIN IMMEDIATE", "begin a transaction");
	if (rc == 0)
		rc = exec(&m,
			  "DROP TABLE IF EXISTS temp.m_exp; "
			  "DROP TABLE IF EXISTS temp.m_host; "
			  "DROP TABLE IF EXISTS temp.m_run",
			  "map");
	if (rc == 0 && experiment_uuid)
		rc = find_experiment(&m, experiment_uuid);
	if (rc == 0)
		rc = columns(&m, "src", "run", &rc_cols);
	if (rc == 0)
		rc = deltas(&m);
	if (rc == 0)
		rc = merge_experiments(&m);
	if (rc == 0)
		rc = merge_shares(&m, &st);
	if (rc == 0)
		rc = merge_hosts(&m, &st);
	if (rc == 0)
		rc = pick_runs(&m, has(&rc_cols, "uuid"),
			       has(&rc_cols, "host_id"), &st);
	if (rc == 0)
		rc = copy_runs(&m, &st);
	if (rc == 0)
		rc = exec(&m,
			  "DROP TABLE temp.m_exp; DROP TABLE temp.m_host; "
			  "DROP TABLE temp.m_run; COMMIT",
			  "commit");
	if (rc != 0 && !sqlite3_get_autocommit(h->db))
		sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
	/* fails only when nothing was attached */
	sqlite3_exec(h->db, "DETACH src", NULL, NULL, NULL);
	if (rc == 0 && stats)
		*stats = st;
	return rc;
}
