/* SPDX-License-Identifier: MIT */
/*
 * What each rank does on its own host: its facts (name, machine-id,
 * boot_id, the kernel's clock discipline), its experiment and host rows,
 * its mount (timelinefs -f in a process group of its own), the bench of
 * each step on that mount, and the end: unmount, the host row, the copy of
 * its database for rank 0.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mpi.h>

#include "launcher.h"

/* how long a stopped rank waits for its daemon's flush before it kills it */
#define STOP_DAEMON_MS 3000

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* %h: host name, %r: rank, %%: % */
static char *expand(const char *pat, const char *host, int rank)
{
	size_t cap = strlen(pat) + strlen(host) * 4 + 64, k = 0;
	char *out = malloc(cap);
	const char *p;

	if (!out)
		return NULL;
	for (p = pat; *p && k + strlen(host) + 16 < cap; p++) {
		if (p[0] == '%' && p[1] == 'h') {
			k += (size_t)snprintf(out + k, cap - k, "%s", host);
			p++;
		} else if (p[0] == '%' && p[1] == 'r') {
			k += (size_t)snprintf(out + k, cap - k, "%d", rank);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			out[k++] = '%';
			p++;
		} else {
			out[k++] = *p;
		}
	}
	out[k] = '\0';
	return out;
}

int hl_host_init(struct hl_host *h, const struct hl_opts *o, int rank, int size)
{
	struct timex tx;
	int len = 0, st;

	memset(h, 0, sizeof(*h));
	h->o = o;
	h->rank = rank;
	h->size = size;
	h->daemon = -1;
	h->bench_pid = -1;
	h->id.sync_error_us = -1;
	if (MPI_Get_processor_name(h->id.name, &len) != MPI_SUCCESS || !len)
		gethostname(h->id.name, sizeof(h->id.name) - 1);
	read_line("/etc/machine-id", h->id.machine_id,
		  sizeof(h->id.machine_id));
	read_line("/proc/sys/kernel/random/boot_id", h->id.boot_id,
		  sizeof(h->id.boot_id));
	/* read only (modes 0): no privilege needed */
	memset(&tx, 0, sizeof(tx));
	st = adjtimex(&tx);
	if (st >= 0) {
		snprintf(h->id.sync, sizeof(h->id.sync), "%s",
			 st == TIME_ERROR || (tx.status & STA_UNSYNC)
			     ? "unsynchronized"
			     : "synchronized");
		h->id.sync_error_us = tx.esterror;
	}
	h->db = expand(o->db, h->id.name, rank);
	if (!h->db)
		return -ENOMEM;
	if (o->mountpoint) {
		h->mnt = expand(o->mountpoint, h->id.name, rank);
	} else {
		const char *tmp = getenv("TMPDIR");

		if (asprintf(&h->mnt, "%s/timelinefs-hosts-mnt.XXXXXX",
			     tmp && *tmp ? tmp : "/tmp") < 0)
			h->mnt = NULL;
	}
	if (!h->mnt || asprintf(&h->log_daemon, "%s.daemon.log", h->db) < 0 ||
	    asprintf(&h->log_bench, "%s.bench.log", h->db) < 0)
		return -ENOMEM;
	h->tlfs = hl_find_bin("timelinefs");
	h->bench = hl_find_bin("timelinefs-bench");
	return 0;
}

void hl_host_free(struct hl_host *h)
{
	free(h->db);
	free(h->mnt);
	free(h->log_daemon);
	free(h->log_bench);
	free(h->tlfs);
	free(h->bench);
}

static void fail(struct hl_host *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(struct hl_host *h, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(h->reason, sizeof(h->reason), fmt, ap);
	va_end(ap);
	h->failed = 1;
}

void hl_row_fill(struct hosts_host *x, int rank, const struct hl_hello *id,
		 const struct eng_clock_line *line, int64_t rtt_start,
		 int64_t rtt_end)
{
	memset(x, 0, sizeof(*x));
	x->rank = rank;
	x->name = id->name;
	x->machine_id = id->machine_id[0] ? id->machine_id : NULL;
	x->boot_id = id->boot_id[0] ? id->boot_id : NULL;
	x->has_start = line->t_start != 0;
	x->offset_start_ns = line->offset_start;
	x->rtt_start_ns = rtt_start;
	x->t_start_ns = line->t_start;
	x->has_end = line->has_end;
	x->offset_end_ns = line->offset_end;
	x->rtt_end_ns = rtt_end;
	x->t_end_ns = line->t_end;
	x->sync = id->sync[0] ? id->sync : NULL;
	x->sync_error_us = id->sync_error_us;
}

/* The host row as it is now: complete or not, reason. */
int hl_host_row(struct hl_host *h, int complete, const char *reason)
{
	struct hosts_db *d = NULL;
	struct hosts_host r;
	char *err = NULL;
	int rc;

	if (!h->experiment_id)
		return 0;
	hl_row_fill(&r, h->rank, &h->id, &h->line, h->rtt_start, h->rtt_end);
	r.experiment_id = h->experiment_id;
	r.complete = complete;
	r.reason = complete ? NULL : reason;
	rc = hosts_db_open(h->db, &d, &err);
	if (rc == 0)
		rc = hosts_host_put(d, &r, &h->host_id, &err);
	if (d)
		hosts_db_close(d);
	if (rc < 0)
		fprintf(
		    stderr, "%s: rank %d (%s): cannot write the host row: %s\n",
		    HL_PROG, h->rank, h->id.name, err ? err : strerror(-rc));
	free(err);
	return rc;
}

static int rows_start(struct hl_host *h)
{
	struct hosts_db *d = NULL;
	struct hosts_experiment e;
	char *err = NULL;
	int rc;

	memset(&e, 0, sizeof(e));
	e.uuid = h->uuid;
	e.ranks = h->size;
	e.machines = -1;
	e.command = h->o->command;
	e.plan = h->o->find_max ? "find-max" : "list";
	e.max_lo = e.max_hi = -1;
	rc = hosts_db_open(h->db, &d, &err);
	if (rc == 0)
		rc = hosts_experiment_put(d, &e, &h->experiment_id, &err);
	if (d)
		hosts_db_close(d);
	if (rc < 0) {
		fail(h, "cannot write the experiment row in %s: %s", h->db,
		     err ? err : strerror(-rc));
		free(err);
		return rc;
	}
	free(err);
	rc = hl_host_row(h, 0, "running");
	if (rc < 0)
		fail(h, "cannot write the host row in %s", h->db);
	return rc;
}

/* One -o value with its commas and backslashes escaped for fuse. */
static void opt_escape(const char *in, char *out, size_t len)
{
	size_t k = 0;

	for (; *in && k + 3 < len; in++) {
		if (*in == ',' || *in == '\\')
			out[k++] = '\\';
		out[k++] = *in;
	}
	out[k] = '\0';
}

void hl_host_mount(struct hl_host *h, struct hl_mounted *m)
{
	const struct hl_opts *o = h->o;
	char edb[PATH_MAX * 2], elabel[HL_NAME * 2], *opts = NULL;
	static double sec[HL_MAX_TL];
	const char *argv[8];
	char *err = NULL;
	struct stat st;
	size_t n = 0, i;
	int status, k;

	memset(m, 0, sizeof(*m));
	if (!h->tlfs || !h->bench) {
		fail(h,
		     "cannot find %s (next to timelinefs-hosts, in ../build, "
		     "../mount-scripts or PATH)",
		     h->tlfs ? "timelinefs-bench" : "timelinefs");
		goto out;
	}
	if (stat(o->media, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fail(h, "media folder %s %s", o->media,
		     errno == ENOENT || !errno ? "does not exist"
					       : "is no folder");
		goto out;
	}
	if (rows_start(h) < 0)
		goto out;
	if (o->mountpoint) {
		if (mkdir(h->mnt, 0755) == 0)
			h->own_mnt_dir = 1; /* made here: removed at the end */
		else if (errno != EEXIST) {
			fail(h, "cannot create mount point %s: %s", h->mnt,
			     strerror(errno));
			goto out;
		}
	} else {
		if (!mkdtemp(h->mnt)) {
			fail(h, "cannot create a mount point %s: %s", h->mnt,
			     strerror(errno));
			goto out;
		}
		h->own_mnt_dir = 1;
	}
	if (hl_mounted(h->mnt)) {
		fail(h, "%s is mounted already", h->mnt);
		goto out;
	}
	opt_escape(h->db, edb, sizeof(edb));
	opt_escape(h->label, elabel, sizeof(elabel));
	if (asprintf(&opts, "db=%s,label=%s,pace=%s,experiment=%s,rank=%d%s%s",
		     edb, elabel, o->pace, h->uuid, h->rank,
		     o->mount_opts ? "," : "",
		     o->mount_opts ? o->mount_opts : "") < 0) {
		fail(h, "out of memory");
		goto out;
	}
	/* the log of this experiment only */
	unlink(h->log_daemon);
	unlink(h->log_bench);
	k = 0;
	argv[k++] = h->tlfs;
	argv[k++] = "-f";
	argv[k++] = "-o";
	argv[k++] = opts;
	argv[k++] = o->media;
	argv[k++] = h->mnt;
	argv[k] = NULL;
	h->daemon = hl_spawn(argv, h->log_daemon);
	if (h->daemon < 0) {
		fail(h, "cannot start timelinefs: %s", strerror(errno));
		goto out;
	}
	/* 20 s, as timelinefs-bench waits */
	for (i = 0; i < 200 && !hl_mounted(h->mnt); i++) {
		char tail[900];

		if (hl_reap(h->daemon, &status)) {
			h->daemon = -1;
			hl_tail(h->log_daemon, tail, sizeof(tail), 3);
			fail(h, "cannot mount: timelinefs exited: %s", tail);
			goto out;
		}
		if (hl_stop_signal)
			break;
		hl_sleep_ms(100);
	}
	if (!hl_mounted(h->mnt) && hl_stop_signal) {
		hl_kill_group(h->daemon, 500);
		h->daemon = -1;
		fail(h, "stopped by %s while mounting",
		     hl_sig_name(hl_stop_signal));
		goto out;
	}
	if (!hl_mounted(h->mnt)) {
		char tail[900];

		hl_kill_group(h->daemon, 2000);
		h->daemon = -1;
		hl_tail(h->log_daemon, tail, sizeof(tail), 3);
		fail(h, "cannot mount: not mounted within 20 s: %s", tail);
		goto out;
	}
	h->mounted = 1;
	if (hosts_step_timelines(h->db, sec, HL_MAX_TL, &n, &err) < 0) {
		fail(h, "%s", err ? err : "cannot read the timelines");
		free(err);
		goto out;
	}
	m->n_tl = (uint32_t)n;
	for (i = 0; i < n; i++) {
		float v = (float)sec[i];

		m->prefmax[i] =
		    i && m->prefmax[i - 1] > v ? m->prefmax[i - 1] : v;
		if (v > m->max_all)
			m->max_all = v;
	}
	m->ok = 1;
out:
	free(opts);
	if (!m->ok) {
		snprintf(m->reason, sizeof(m->reason), "%s", h->reason);
		hl_host_row(h, 0, h->reason);
	}
}

int hl_host_step_start(struct hl_host *h, const struct hl_cmd *cmd)
{
	const struct hl_opts *o = h->o;
	struct hosts_db *d = NULL;
	char n[16], at[32], *err = NULL;
	const char *argv[32];
	int64_t t_local;
	int rc, k = 0;
	FILE *f;

	h->cur = *cmd;
	h->bench_pid = -1;
	if (!cmd->share)
		return 0;
	rc = hosts_db_open(h->db, &d, &err);
	if (rc == 0)
		rc = hosts_last_step(d, &h->step_after, &err);
	if (d)
		hosts_db_close(d);
	if (rc < 0) {
		fail(h, "step: %s", err ? err : strerror(-rc));
		free(err);
		return HL_FAILED;
	}
	/* rank 0's start on this host's clock */
	t_local = eng_clock_local(&h->line, cmd->t0_ns);
	snprintf(n, sizeof(n), "%u", cmd->share);
	snprintf(at, sizeof(at), "%lld", (long long)t_local);
	argv[k++] = h->bench;
	argv[k++] = "--mountpoint";
	argv[k++] = h->mnt;
	argv[k++] = "--db";
	argv[k++] = h->db;
	argv[k++] = "--media";
	argv[k++] = o->media;
	argv[k++] = "--workstations";
	argv[k++] = n;
	argv[k++] = "--repeat";
	argv[k++] = "1";
	argv[k++] = "--warmup";
	argv[k++] = "0";
	argv[k++] = "--cache";
	argv[k++] = o->cache;
	argv[k++] = "--pace";
	argv[k++] = o->pace;
	argv[k++] = "--reader";
	argv[k++] = o->reader;
	if (o->movie)
		argv[k++] = "--movie";
	argv[k++] = "--label";
	argv[k++] = h->label;
	argv[k++] = "--start-at";
	argv[k++] = at;
	argv[k] = NULL;
	f = fopen(h->log_bench, "a");
	if (f) {
		fprintf(f, "=== step %d: %u of %u workstations, start %s\n",
			cmd->step_no, cmd->share, cmd->total, at);
		fclose(f);
	}
	h->bench_pid = hl_spawn(argv, h->log_bench);
	if (h->bench_pid < 0) {
		fail(h, "cannot start timelinefs-bench: %s", strerror(errno));
		return HL_FAILED;
	}
	return 0;
}

/* Why a step's bench failed, in words: its mount's daemon ended under it
 * (the readers' "Transport endpoint is not connected" says only that), it
 * was killed (its log's last line is a stale progress line then), or its
 * own last words. */
static void bench_failed(struct hl_host *h, int status, struct hl_result *res)
{
	char tail[400];
	int dst;

	if (h->daemon > 0 && hl_reap(h->daemon, &dst)) {
		h->daemon = -1;
		/* killed, it said nothing: its last line is no reason */
		tail[0] = '\0';
		if (WIFEXITED(dst))
			hl_tail(h->log_daemon, tail, sizeof(tail), 1);
		snprintf(res->err, sizeof(res->err),
			 "its timelinefs daemon ended in step %d (%s %d)%s%s",
			 h->cur.step_no,
			 WIFEXITED(dst) ? "exit status" : "killed by signal",
			 WIFEXITED(dst) ? WEXITSTATUS(dst) : WTERMSIG(dst),
			 tail[0] ? ": " : "", tail);
		return;
	}
	if (!WIFEXITED(status)) {
		snprintf(res->err, sizeof(res->err),
			 "timelinefs-bench killed by signal %d in step %d",
			 WTERMSIG(status), h->cur.step_no);
		return;
	}
	hl_tail(h->log_bench, tail, sizeof(tail), 2);
	snprintf(res->err, sizeof(res->err),
		 "timelinefs-bench failed in step %d (exit status %d): %s",
		 h->cur.step_no, WEXITSTATUS(status), tail);
}

void hl_host_step_finish(struct hl_host *h, int status, struct hl_result *res)
{
	struct hosts_db *d = NULL;
	int64_t run_id = 0;
	char *err = NULL;
	int rc;

	memset(res, 0, sizeof(*res));
	res->step_no = h->cur.step_no;
	h->bench_pid = -1;
	if (!h->cur.share) {
		res->status = HL_IDLE;
		return;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		bench_failed(h, status, res);
		goto failed;
	}
	rc = hosts_db_open(h->db, &d, &err);
	if (rc == 0)
		rc = hosts_open_run(d, &run_id, &err);
	if (rc == 0)
		rc = hosts_tag_steps(d, run_id, h->step_after, h->experiment_id,
				     h->host_id, h->cur.step_no,
				     (int)h->cur.total, h->cur.t0_ns, &err);
	if (d)
		hosts_db_close(d);
	d = NULL;
	if (rc == 0)
		rc = hosts_step_repetition(h->db, run_id, h->step_after,
					   h->cur.rep, &err);
	if (rc == 0)
		rc = hosts_db_open(h->db, &d, &err);
	if (rc == 0)
		rc = hosts_step_result(d, h->experiment_id, h->cur.step_no,
				       &res->r, &err);
	if (d)
		hosts_db_close(d);
	/* the view weighs every access row: only when it decides */
	if (rc == 0 && res->r.late_frames > 0 &&
	    h->o->late_causes != ENG_CAUSES_ALL)
		rc = hosts_step_late_causes(h->db, h->experiment_id,
					    h->cur.step_no, eng_cause_names,
					    ENG_CAUSE_N, res->by_cause, &err);
	if (rc < 0) {
		snprintf(res->err, sizeof(res->err), "step %d: %s",
			 h->cur.step_no, err ? err : strerror(-rc));
		free(err);
		goto failed;
	}
	res->status = HL_PLAYED;
	return;
failed:
	res->status = HL_FAILED;
	h->failed = 1;
	snprintf(h->reason, sizeof(h->reason), "%s", res->err);
}

/* Unmount (tries: hl_unmount's), wait up to daemon_ms for the daemon
 * to flush its queue and end the run, then kill it (kill_ms: its grace
 * after SIGTERM); the mount point made here removed.  The end of the
 * experiment waits long; a stop (a signal) briefly, before Open MPI's
 * SIGKILL. */
static void unmount_wait(struct hl_host *h, int tries, unsigned daemon_ms,
			 unsigned kill_ms)
{
	int st;
	unsigned i;

	if (h->mounted)
		hl_unmount(h->mnt, tries);
	h->mounted = 0;
	if (h->daemon > 0) {
		for (i = 0; i < daemon_ms / 10; i++) {
			if (hl_reap(h->daemon, &st))
				break;
			hl_sleep_ms(10);
		}
		if (i >= daemon_ms / 10)
			hl_kill_group(h->daemon, kill_ms);
		h->daemon = -1;
	}
	if (h->own_mnt_dir) {
		rmdir(h->mnt);
		h->own_mnt_dir = 0;
	}
}

void hl_host_end(struct hl_host *h, int has_end, char **copy)
{
	char *err = NULL;
	int rc;

	*copy = NULL;
	if (h->bench_pid > 0)
		hl_kill_group(h->bench_pid, 3000);
	h->bench_pid = -1;
	unmount_wait(h, 40, 30000, 2000);
	h->line.has_end = has_end;
	if (!h->failed && !has_end)
		fail(h, "no clock measurement at the end");
	hl_host_row(h, !h->failed, h->reason);
	/* nothing was written (the media folder missing, say): nothing to
	 * send, and no "cannot open database" beside the reason */
	if (!h->experiment_id)
		return;
	if (asprintf(copy, "%s.send.%d", h->db, (int)getpid()) < 0) {
		*copy = NULL;
		return;
	}
	unlink(*copy);
	rc = hosts_step_snapshot(h->db, *copy, &err);
	if (rc < 0) {
		fprintf(stderr, "%s: rank %d (%s): %s\n", HL_PROG, h->rank,
			h->id.name, err ? err : strerror(-rc));
		free(*copy);
		*copy = NULL;
	}
	free(err);
}

void hl_host_stop(struct hl_host *h, const char *why)
{
	/* its readers too (the bench's group): the mount must be idle for
	 * its unmount, and nothing of the step is kept */
	if (h->bench_pid > 0)
		hl_kill_group(h->bench_pid, 100);
	h->bench_pid = -1;
	if (!h->failed)
		fail(h, "%s", why);
	/* the row first: Open MPI kills the rank after its SIGTERM
	 * (odls_base_sigkill_timeout, 1 s unless timelinefs-hosts-run's 5) */
	hl_host_row(h, 0, h->reason);
	/* the daemon flushes its last rows and ends (0.1-0.4 s): waited
	 * for, so that nothing of the run outlives the rank, then killed */
	unmount_wait(h, 3, STOP_DAEMON_MS, 300);
}
