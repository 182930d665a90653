/* SPDX-License-Identifier: MIT */
/*
 * The exchange between rank 0 and every other rank, point to point: hello
 * (host facts), the plan (experiment uuid, label), the clock ping-pong at
 * start and end, the mount's verdict, per step a command and a result, and
 * at the end each database in chunks.  Rank 0 waits for a rank up to a
 * deadline and calls it dead after (docs/design.md "Many hosts"); a rank
 * waits for rank 0 up to the time rank 0 said it could take.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher.h"
#include "store.h"

#define S_NS 1000000000LL
#define MS_NS 1000000LL
/* waits of the start and end, for a rank to answer at all */
#define WAIT_HELLO_NS (60 * S_NS)
#define WAIT_PONG_NS (10 * S_NS)
#define WAIT_MOUNT_NS (60 * S_NS)
#define WAIT_CHUNK_NS (120 * S_NS)

/* ------------------------------------------------------------ a rank */

/* Answer rank 0's ping-pong: rounds pings, then the verdict.  The first
 * ping may come late (rank 0 measures the ranks one after the other). */
static int pong(unsigned rounds, int64_t first_wait, struct hl_sync *s)
{
	unsigned i;
	int64_t seq, t;
	int rc;

	for (i = 0; i < rounds; i++) {
		rc = i ? hl_recv_busy(0, HL_TAG_PING, &seq, sizeof(seq),
				      hl_now_mono() + WAIT_PONG_NS)
		       : hl_recv(0, HL_TAG_PING, &seq, sizeof(seq),
				 hl_now_mono() + first_wait);
		if (rc < 0)
			return rc;
		t = hl_now_rt();
		rc = hl_send(0, HL_TAG_PONG, &t, sizeof(t),
			     hl_now_mono() + WAIT_PONG_NS);
		if (rc < 0)
			return rc;
	}
	return hl_recv(0, HL_TAG_SYNC, s, sizeof(*s),
		       hl_now_mono() + WAIT_PONG_NS);
}

/* A wait for rank 0 that failed: stop, say why, the exit status. */
static int rank_gone(struct hl_host *h, int rc, const char *what)
{
	char why[256];

	if (rc == -EINTR)
		snprintf(why, sizeof(why), "stopped by %s",
			 hl_sig_name(hl_stop_signal));
	else if (rc == -ETIME)
		snprintf(why, sizeof(why),
			 "no answer in step %d within %.0f s: its bench did "
			 "not end",
			 h->cur.step_no, h->cur.within_s);
	else if (!strcmp(what, "stopped the experiment"))
		snprintf(why, sizeof(why), "rank 0 stopped the experiment");
	else
		snprintf(why, sizeof(why), "rank 0 %s %s",
			 rc == -ETIMEDOUT ? "silent in" : "lost in", what);
	hl_host_stop(h, why);
	if (rc != -EINTR)
		fprintf(stderr, "%s: rank %d (%s): %s\n", HL_PROG, h->rank,
			h->id.name, why);
	return rc == -EINTR ? 128 + hl_stop_signal : 1;
}

/* Rank 0's STOP: every rank stops, or rank 0 has left this one out (its
 * result came after the step's deadline, or none came), said as rank 0
 * says it and then: "its bench did not end" while it plays, else "left
 * out by rank 0".  The exit status. */
static int rank_stopped(struct hl_host *h, struct hl_cmd *cmd, const char *then)
{
	char why[320];

	eng_hosts_text(cmd->why, sizeof(cmd->why));
	if (!cmd->why[0])
		return rank_gone(h, -ETIMEDOUT, "stopped the experiment");
	snprintf(why, sizeof(why), "%s: %s", cmd->why, then);
	hl_host_stop(h, why);
	fprintf(stderr, "%s: rank %d (%s): %s\n", HL_PROG, h->rank, h->id.name,
		why);
	return 1;
}

static int send_file(const char *path, int64_t size)
{
	static char buf[HL_CHUNK];
	int64_t left = size;
	int fd = -1, rc = 0;

	if (path && size >= 0)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		size = -1;
	rc = hl_send(0, HL_TAG_DBSIZE, &size, sizeof(size),
		     hl_now_mono() + 600 * S_NS);
	while (rc == 0 && left > 0 && fd >= 0) {
		size_t n = left > HL_CHUNK ? HL_CHUNK : (size_t)left;
		ssize_t got = read(fd, buf, n);

		if (got <= 0) {
			/* rank 0 counts on size bytes: pad (it fails the
			 * copy's check later) */
			memset(buf, 0, n);
			got = (ssize_t)n;
		}
		rc = hl_send(0, HL_TAG_DBCHUNK, buf, (size_t)got,
			     hl_now_mono() + WAIT_CHUNK_NS);
		left -= got;
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int hl_rank_other(struct hl_host *h)
{
	struct hl_hello hello;
	struct hl_plan plan;
	struct hl_sync s;
	static struct hl_mounted m;
	struct hl_cmd cmd;
	struct hl_result res;
	int64_t wait_ns, limit, size = -1;
	char *copy = NULL;
	struct stat st;
	int rc, status, ended;

	hello = h->id;
	rc = hl_send(0, HL_TAG_HELLO, &hello, sizeof(hello),
		     hl_now_mono() + WAIT_HELLO_NS);
	if (rc == 0)
		rc = hl_recv(0, HL_TAG_PLAN, &plan, sizeof(plan),
			     hl_now_mono() + 2 * WAIT_HELLO_NS);
	if (rc < 0)
		return rank_gone(h, rc, "the start");
	eng_hosts_text(plan.uuid, sizeof(plan.uuid));
	eng_hosts_text(plan.label, sizeof(plan.label));
	snprintf(h->uuid, sizeof(h->uuid), "%s", plan.uuid);
	snprintf(h->label, sizeof(h->label), "%s", plan.label);
	rc = pong(plan.rounds, plan.wait_ms * MS_NS, &s);
	if (rc < 0)
		return rank_gone(h, rc, "the clock measurement at the start");
	h->line.t_start = s.t_host_ns;
	h->line.offset_start = s.offset_ns;
	h->rtt_start = s.rtt_ns;
	hl_host_mount(h, &m);
	if (hl_stop_signal)
		return rank_gone(h, -EINTR, "");
	rc = hl_send(0, HL_TAG_MOUNTED, &m, sizeof(m),
		     hl_now_mono() + WAIT_MOUNT_NS);
	if (rc < 0)
		return rank_gone(h, rc, "the mount");
	wait_ns = plan.wait_ms * MS_NS;
	for (;;) {
		rc = hl_recv(0, HL_TAG_CMD, &cmd, sizeof(cmd),
			     hl_now_mono() + wait_ns);
		if (rc < 0)
			return rank_gone(h, rc, "between steps");
		if (cmd.kind == HL_CMD_STOP)
			return rank_stopped(h, &cmd, "left out by rank 0");
		if (cmd.kind == HL_CMD_END) {
			h->no_finalize = cmd.no_finalize;
			break;
		}
		wait_ns = cmd.wait_ms * MS_NS;
		limit = hl_now_mono() + cmd.limit_ms * MS_NS;
		if (hl_host_step_start(h, &cmd) < 0) {
			memset(&res, 0, sizeof(res));
			res.step_no = cmd.step_no;
			res.status = HL_FAILED;
			snprintf(res.err, sizeof(res.err), "%s", h->reason);
		} else {
			status = 0;
			ended = 0;
			while (h->bench_pid > 0 &&
			       !(ended = hl_reap(h->bench_pid, &status))) {
				if (hl_stop_signal)
					return rank_gone(h, -EINTR, "");
				/* rank 0 may stop the experiment mid-step */
				if (hl_pending(0, HL_TAG_CMD))
					break;
				/* rank 0 has given up on this rank: its
				 * bench is stopped, the rank with it */
				if (hl_now_mono() > limit)
					return rank_gone(h, -ETIME, "");
				hl_sleep_ms(5);
			}
			if (h->bench_pid > 0 && hl_pending(0, HL_TAG_CMD)) {
				memset(&cmd, 0, sizeof(cmd));
				hl_recv(0, HL_TAG_CMD, &cmd, sizeof(cmd),
					hl_now_mono() + S_NS);
				return rank_stopped(h, &cmd,
						    ended ? "left out by rank 0"
							  : "its bench did not "
							    "end");
			}
			hl_host_step_finish(h, status, &res);
		}
		rc = hl_send(0, HL_TAG_RESULT, &res, sizeof(res),
			     hl_now_mono() + WAIT_PONG_NS);
		if (rc < 0)
			return rank_gone(h, rc, "a step's result");
	}
	rc = pong(plan.rounds, WAIT_HELLO_NS, &s);
	if (rc == -EINTR)
		return rank_gone(h, rc, "");
	if (rc == 0 && s.ok) {
		h->line.t_end = s.t_host_ns;
		h->line.offset_end = s.offset_ns;
		h->rtt_end = s.rtt_ns;
	}
	hl_host_end(h, rc == 0 && s.ok, &copy);
	if (copy && stat(copy, &st) == 0)
		size = st.st_size;
	rc = send_file(copy, size);
	if (copy) {
		unlink(copy);
		free(copy);
	}
	if (rc == -EINTR)
		return 128 + hl_stop_signal;
	if (rc < 0) {
		fprintf(stderr, "%s: rank %d (%s): cannot send %s to rank 0\n",
			HL_PROG, h->rank, h->id.name, h->db);
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------ rank 0 */

struct peer {
	int alive;	    /* answers */
	int live;	    /* mounted, plays */
	int dead;	    /* no answer: marked in the merged database */
	struct hl_hello id; /* its HELLO (sync_error_us < 0: unknown) */
	struct eng_clock_line line;
	int64_t rtt_start, rtt_end;
	uint32_t n_tl;
	float prefmax[HL_MAX_TL];
	float max_all;
	char reason[1024];
	/* this step */
	struct hl_result res;
	int answered, in_step;
	unsigned share;
	int64_t deadline;
	MPI_Request req;
};

struct step_row {
	int step_no, rep;
	unsigned total, hosts;
	int64_t frames, late, bytes;
	double mbs, spread_ms;
	int complete;
	char straggler[HL_NAME + 32];
};

struct coord {
	struct hl_host *h;
	const struct hl_opts *o;
	struct peer *p;
	int n;
	int step_no;
	struct step_row *rows;
	size_t n_rows, cap_rows;
	int stopped;  /* a signal came */
	int failures; /* hosts that died or failed */
};

static void kill_peer(struct coord *c, int r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void kill_peer(struct coord *c, int r, const char *fmt, ...)
{
	struct peer *p = &c->p[r];
	va_list ap;

	if (!p->alive)
		return;
	p->alive = p->live = 0;
	p->dead = 1;
	c->failures++;
	va_start(ap, fmt);
	vsnprintf(p->reason, sizeof(p->reason), fmt, ap);
	va_end(ap);
	printf("rank %d (%s): %s: left out from here on\n", r, p->id.name,
	       p->reason);
	fflush(stdout);
}

/* The ping-pong with rank r: its offset to rank 0 (host minus rank 0). */
static int measure(struct coord *c, int r, int64_t *off, int64_t *rtt,
		   int64_t *t_host)
{
	struct eng_clock_sample s[256];
	unsigned i, n = c->o->sync_rounds;
	struct hl_sync out;
	int64_t seq;
	int rc = 0;

	memset(&out, 0, sizeof(out));
	for (i = 0; i < n && rc == 0; i++) {
		seq = i;
		s[i].t_send = hl_now_rt();
		rc = hl_send(r, HL_TAG_PING, &seq, sizeof(seq),
			     hl_now_mono() + WAIT_PONG_NS);
		if (rc == 0)
			rc = hl_recv_busy(r, HL_TAG_PONG, &s[i].t_host,
					  sizeof(s[i].t_host),
					  hl_now_mono() + WAIT_PONG_NS);
		s[i].t_recv = hl_now_rt();
	}
	if (rc == 0 && eng_clock_offset(s, n, off, rtt) == 0) {
		out.ok = 1;
		out.offset_ns = *off;
		out.rtt_ns = *rtt;
		out.t_host_ns = s[n - 1].t_host;
		*t_host = out.t_host_ns;
	}
	if (rc == 0)
		rc = hl_send(r, HL_TAG_SYNC, &out, sizeof(out),
			     hl_now_mono() + WAIT_PONG_NS);
	if (rc == 0 && !out.ok)
		rc = -EINVAL;
	return rc;
}

static unsigned n_live(const struct coord *c)
{
	unsigned k = 0;
	int r;

	for (r = 0; r < c->n; r++)
		k += c->p[r].live;
	return k;
}

static double expected_s(const struct coord *c, const struct peer *p,
			 unsigned share)
{
	double t;

	if (!share || c->o->speed <= 0)
		return 0;
	t = share <= p->n_tl && share <= HL_MAX_TL ? p->prefmax[share - 1]
						   : p->max_all;
	return t / c->o->speed;
}

static void add_row(struct coord *c, const struct step_row *row)
{
	if (c->n_rows == c->cap_rows) {
		size_t cap = c->cap_rows ? c->cap_rows * 2 : 16;
		struct step_row *n = realloc(c->rows, cap * sizeof(*n));

		if (!n)
			return;
		c->rows = n;
		c->cap_rows = cap;
	}
	c->rows[c->n_rows++] = *row;
}

/* What each rank is given in this step, 0 too (a dead or unmounted rank,
 * or fewer workstations than hosts), into rank 0's database before the
 * step is sent: the views count a host as missing a step only when it was
 * given workstations (experiment_share).  A failure is said, not fatal:
 * the step's rows are still recorded, only the views' rule falls back to
 * every host row. */
static void record_shares(struct coord *c, unsigned total, int rep, int64_t t0)
{
	struct hosts_db *d = NULL;
	char *err = NULL;
	int r, rc;

	rc = hosts_db_open(c->h->db, &d, &err);
	for (r = 0; r < c->n && rc == 0; r++)
		rc = hosts_share_put(d, c->h->experiment_id, c->step_no, r,
				     (int)c->p[r].share, rep, (int)total, t0,
				     &err);
	if (d)
		hosts_db_close(d);
	if (rc < 0) {
		fprintf(stderr,
			"%s: warning: step %d's shares not recorded: %s\n",
			HL_PROG, c->step_no, err ? err : strerror(-rc));
		free(err);
	}
}

/* A step's instants: t0 on the real-time clock that every host starts
 * at, and the same instant as this host's monotonic clock read then. */
struct step_time {
	int64_t t0, now, mono, max_exp_ns;
};

/* Each peer's share of total and its deadline. */
static void step_plan(struct coord *c, unsigned total, struct step_time *t)
{
	unsigned live = n_live(c), k = 0;
	double exp;
	int r;

	t->now = hl_now_rt();
	t->mono = hl_now_mono();
	t->t0 = t->now + (int64_t)(c->o->start_margin * S_NS);
	t->max_exp_ns = 0;
	for (r = 0; r < c->n; r++) {
		struct peer *p = &c->p[r];

		p->in_step = p->alive;
		p->answered = 0;
		p->share = p->live ? eng_hosts_share(total, live, k++) : 0;
		exp = expected_s(c, p, p->share);
		if ((int64_t)(exp * S_NS) > t->max_exp_ns)
			t->max_exp_ns = (int64_t)(exp * S_NS);
		p->deadline = t->mono + (t->t0 - t->now) +
			      (int64_t)(exp * S_NS) +
			      (int64_t)(c->o->step_timeout * S_NS);
	}
}

/* The step's command to each other rank, and rank 0's own share started. */
static void step_send(struct coord *c, unsigned total, int rep,
		      const struct step_time *t)
{
	struct hl_cmd cmd;
	int r;

	for (r = 1; r < c->n; r++) {
		struct peer *p = &c->p[r];

		if (!p->in_step)
			continue;
		memset(&cmd, 0, sizeof(cmd));
		cmd.kind = HL_CMD_STEP;
		cmd.step_no = c->step_no;
		cmd.rep = rep;
		cmd.share = p->share;
		cmd.total = total;
		cmd.t0_ns = t->t0;
		cmd.limit_ms = (p->deadline - t->mono) / MS_NS;
		cmd.within_s = (double)(p->deadline - t->mono -
					(t->t0 - t->now)) / S_NS;
		cmd.wait_ms = ((t->t0 - t->now) + t->max_exp_ns +
			       (int64_t)(c->o->step_timeout * S_NS)) / MS_NS +
			      120000;
		if (hl_send(r, HL_TAG_CMD, &cmd, sizeof(cmd),
			    hl_now_mono() + WAIT_PONG_NS) < 0) {
			kill_peer(c, r, "no answer in step %d", c->step_no);
			p->in_step = 0; /* no receive posted */
			continue;
		}
		MPI_Irecv(&p->res, sizeof(p->res), MPI_BYTE, r, HL_TAG_RESULT,
			  MPI_COMM_WORLD, &p->req);
	}
	memset(&cmd, 0, sizeof(cmd));
	cmd.kind = HL_CMD_STEP;
	cmd.step_no = c->step_no;
	cmd.rep = rep;
	cmd.share = c->p[0].share;
	cmd.total = total;
	cmd.t0_ns = t->t0;
	if (hl_host_step_start(c->h, &cmd) < 0) {
		hl_host_step_finish(c->h, 1 << 8, &c->p[0].res);
		snprintf(c->p[0].res.err, sizeof(c->p[0].res.err), "%s",
			 c->h->reason);
		c->p[0].answered = 1;
	}
}

/* Seconds a peer was given, for its message. */
static double step_within_s(const struct peer *p, int64_t t0)
{
	return (double)(p->deadline - (hl_now_mono() - (hl_now_rt() - t0))) /
	       S_NS;
}

/* Rank 0's own bench: 1 while it plays, 0 once it answered. */
static int step_poll_self(struct coord *c, int64_t mono, int64_t t0)
{
	struct peer *p = &c->p[0];
	int status = 0;

	if (c->h->bench_pid <= 0 || hl_reap(c->h->bench_pid, &status)) {
		hl_host_step_finish(c->h, c->h->bench_pid <= 0 ? 0 : status,
				    &p->res);
		p->answered = 1;
		return 0;
	}
	if (mono <= p->deadline)
		return 1;
	hl_kill_group(c->h->bench_pid, 3000);
	c->h->bench_pid = -1;
	p->answered = 1;
	memset(&p->res, 0, sizeof(p->res));
	p->res.status = HL_FAILED;
	snprintf(p->res.err, sizeof(p->res.err),
		 "its bench did not end in step %d within %.0f s", c->step_no,
		 step_within_s(p, t0));
	return 0;
}

/* Rank r's result: 1 while it is awaited, 0 once it answered or was
 * given up. */
static int step_poll_peer(struct coord *c, int r, int64_t mono, int64_t t0)
{
	struct peer *p = &c->p[r];
	int done = 0;

	if (MPI_Test(&p->req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
		p->in_step = 0;
		kill_peer(c, r, "lost in step %d", c->step_no);
		return 0;
	}
	if (done) {
		p->answered = 1;
		eng_hosts_text(p->res.err, sizeof(p->res.err));
		return 0;
	}
	if (mono <= p->deadline)
		return 1;
	MPI_Cancel(&p->req);
	MPI_Request_free(&p->req);
	p->in_step = 0;
	kill_peer(c, r, "no answer in step %d within %.0f s", c->step_no,
		  step_within_s(p, t0));
	return 0;
}

/* Until every rank in the step answered or was given up: 0, or -EINTR on
 * a stop signal (the receives still posted cancelled). */
static int step_wait(struct coord *c, int64_t t0)
{
	int r, pending;

	for (;;) {
		int64_t mono = hl_now_mono();

		pending = 0;
		for (r = 0; r < c->n; r++) {
			if (!c->p[r].in_step || c->p[r].answered)
				continue;
			pending += r == 0 ? step_poll_self(c, mono, t0) :
					    step_poll_peer(c, r, mono, t0);
		}
		if (!pending)
			return 0;
		if (hl_stop_signal)
			break;
		hl_sleep_ms(2);
	}
	for (r = 1; r < c->n; r++) {
		struct peer *p = &c->p[r];

		if (p->in_step && !p->answered) {
			MPI_Cancel(&p->req);
			MPI_Request_free(&p->req);
		}
	}
	return -EINTR;
}

/* The ranks' results of a step, as they are added up. */
struct step_tally {
	int64_t *st, *en, *lag;	/* start and end on rank 0's axis */
	int *pl, *strag;	/* played, straggled */
	char line[4096];	/* each rank's late frames */
	size_t ll;
	unsigned played;
	int passed;
	/* --late-causes: the late frames judged, those of the other causes
	 * and these by cause */
	int64_t judged, other, by_cause[ENG_CAUSE_N];
};

static void tally_free(struct step_tally *t)
{
	free(t->st);
	free(t->en);
	free(t->lag);
	free(t->pl);
	free(t->strag);
}

static int tally_new(struct step_tally *t, int n)
{
	memset(t, 0, sizeof(*t));
	t->st = calloc((size_t)n, sizeof(*t->st));
	t->en = calloc((size_t)n, sizeof(*t->en));
	t->lag = calloc((size_t)n, sizeof(*t->lag));
	t->pl = calloc((size_t)n, sizeof(*t->pl));
	t->strag = calloc((size_t)n, sizeof(*t->strag));
	if (!t->st || !t->en || !t->lag || !t->pl || !t->strag) {
		tally_free(t);
		return -ENOMEM;
	}
	t->ll = (size_t)snprintf(t->line, sizeof(t->line), " (");
	t->passed = 1;
	return 0;
}

/* Append to the step's line: ", " between ranks. */
static void tally_say(struct step_tally *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->ll >= sizeof(t->line))
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->line + t->ll, sizeof(t->line) - t->ll, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->ll += (size_t)n;
}

/* Rank r's result into the tally and the row. */
static void tally_rank(struct coord *c, int r, struct step_tally *t,
		       struct step_row *row)
{
	struct peer *p = &c->p[r];
	struct hosts_step_result *x = &p->res.r;
	const char *sep = t->ll > 2 ? ", " : "";
	struct eng_step_late l;
	int64_t judged, other;
	int i;

	if (!p->in_step || !p->answered) {
		t->passed = 0;
		row->complete = 0;
		tally_say(t, "%srank %d: no answer", sep, r);
		return;
	}
	if (p->res.status == HL_FAILED) {
		t->passed = 0;
		row->complete = 0;
		if (p->live) {
			p->live = 0;
			c->failures++;
			snprintf(p->reason, sizeof(p->reason), "%s",
				 p->res.err);
			printf("rank %d (%s): %s: left out from here on\n", r,
			       p->id.name, p->res.err);
		}
		tally_say(t, "%srank %d: failed", sep, r);
		return;
	}
	if (p->res.status != HL_PLAYED)
		return;
	t->played++;
	row->frames += x->frames;
	row->late += x->late_frames;
	row->bytes += x->bytes;
	memset(&l, 0, sizeof(l));
	l.late = x->late_frames;
	memcpy(l.by_cause, p->res.by_cause, sizeof(l.by_cause));
	l.dropped = x->dropped_frames;
	l.failed = x->failed_frames;
	if (!eng_findmax_judge(&l, c->o->late_causes, &judged, &other))
		t->passed = 0;
	t->judged += judged;
	t->other += other;
	for (i = 0; i < ENG_CAUSE_N; i++)
		if (!(c->o->late_causes & (1u << i)))
			t->by_cause[i] += p->res.by_cause[i];
	tally_say(t, "%srank %d: %lld", sep, r, (long long)judged);
	if (x->dropped_frames || x->failed_frames)
		tally_say(t, " +%lld dropped/failed",
			  (long long)(x->dropped_frames + x->failed_frames));
	t->pl[r] = 1;
	t->st[r] = eng_clock_axis(&p->line, x->start_unix_ns);
	t->en[r] = eng_clock_axis(&p->line, x->end_unix_ns);
}

/* The row's spread of starts, MB/s over the step and its stragglers. */
static void tally_row(const struct coord *c, struct step_tally *t,
		      struct step_row *row)
{
	int64_t start_min = INT64_MAX, start_max = INT64_MIN;
	int64_t end_max = INT64_MIN;
	size_t sl = 0;
	int r;

	for (r = 0; r < c->n; r++) {
		if (!t->pl[r])
			continue;
		if (t->st[r] < start_min)
			start_min = t->st[r];
		if (t->st[r] > start_max)
			start_max = t->st[r];
		if (t->en[r] > end_max)
			end_max = t->en[r];
	}
	row->hosts = t->played;
	row->spread_ms = t->played ? (double)(start_max - start_min) / 1e6 : 0;
	row->mbs = t->played && end_max > start_min ?
			   row->bytes / 1e6 /
				   ((double)(end_max - start_min) / 1e9) :
			   0;
	snprintf(row->straggler, sizeof(row->straggler), "none");
	if (t->played > 1 &&
	    eng_hosts_stragglers(t->st, t->en, t->pl, (size_t)c->n,
				 500 * MS_NS, 0.1, t->strag, t->lag) > 0)
		for (r = 0; r < c->n; r++)
			if (t->strag[r] && sl < sizeof(row->straggler))
				sl += (size_t)snprintf(
				    row->straggler + sl,
				    sizeof(row->straggler) - sl,
				    "%srank %d +%.2f s", sl ? ", " : "", r,
				    (double)t->lag[r] / 1e9);
}

/* " of cause storage", " of causes storage,timer": the causes find-max
 * judges by, as its lines say them; "" for every cause. */
static void causes_words(unsigned mask, char *buf, size_t len)
{
	char list[128];

	if (mask == ENG_CAUSES_ALL) {
		snprintf(buf, len, "%s", "");
		return;
	}
	eng_late_causes_text(mask, list, sizeof(list));
	snprintf(buf, len, " of cause%s %s", strchr(list, ',') ? "s" : "",
		 list);
}

/* The step's late frames in words: all of them and each rank's, or with
 * --late-causes those judged and each rank's, then those of the other
 * causes by cause. */
static void step_late_words(const struct coord *c, const struct step_tally *y,
			    const struct step_row *row, char *buf, size_t len)
{
	char causes[160];
	size_t n;
	int i, k = 0;

	if (c->o->late_causes == ENG_CAUSES_ALL) {
		snprintf(buf, len, "%lld late frame%s%s", (long long)row->late,
			 row->late == 1 ? "" : "s", y->line);
		return;
	}
	causes_words(c->o->late_causes, causes, sizeof(causes));
	n = (size_t)snprintf(buf, len, "%lld late frame%s%s%s, %lld of other "
			     "causes", (long long)y->judged,
			     y->judged == 1 ? "" : "s", causes, y->line,
			     (long long)y->other);
	for (i = 0; i < ENG_CAUSE_N && n < len; i++) {
		if (!y->by_cause[i])
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%s %lld",
				      k++ ? ", " : " (", eng_cause_names[i],
				      (long long)y->by_cause[i]);
	}
	if (k && n < len)
		snprintf(buf + n, len - n, ")");
}

/* One step of total workstations (repetition rep, 0 a warm-up) over the
 * live hosts: every host starts its share at one instant; the step's line
 * printed and its row kept.  1: it played with 0 late, dropped and failed
 * frames on every host that was given a share, 0 not (or no memory to
 * add it up), -EINTR a stop signal. */
static int step(struct coord *c, unsigned total, int rep)
{
	struct step_time t;
	struct step_tally y;
	struct step_row row;
	char what[32], late[4400];
	int r;

	if (!n_live(c))
		return 0;
	c->step_no++;
	memset(&row, 0, sizeof(row));
	row.step_no = c->step_no;
	row.rep = rep;
	row.total = total;
	row.complete = 1;
	step_plan(c, total, &t);
	record_shares(c, total, rep, t.t0);
	step_send(c, total, rep, &t);
	if (step_wait(c, t.t0) < 0)
		return -EINTR;
	if (tally_new(&y, c->n) < 0) {
		fprintf(stderr, "%s: step %d: out of memory\n", HL_PROG,
			c->step_no);
		return 0;
	}
	for (r = 0; r < c->n; r++)
		if (c->p[r].share)
			tally_rank(c, r, &y, &row);
	tally_row(c, &y, &row);
	tally_say(&y, ")");
	/* a warm-up is repetition 0: no number ("warm-up0" before) */
	if (rep)
		snprintf(what, sizeof(what), "repetition %d", rep);
	else
		snprintf(what, sizeof(what), "warm-up");
	step_late_words(c, &y, &row, late, sizeof(late));
	printf("step %d: %u workstation%s (%s) over %u host%s: %s, %.1f MB/s, "
	       "start spread %.1f ms, straggler: %s%s\n",
	       c->step_no, total, total == 1 ? "" : "s", what, y.played,
	       y.played == 1 ? "" : "s", late, row.mbs, row.spread_ms,
	       row.straggler, row.complete ? "" : "; incomplete");
	fflush(stdout);
	add_row(c, &row);
	tally_free(&y);
	return y.passed;
}

/* R repetitions of total after the warm-ups; 1: every one passed (with
 * find-max, the first failure ends the count), 0, -EINTR. */
static int count(struct coord *c, unsigned total, int stop_at_fail,
		 unsigned *reps_passed)
{
	unsigned w, rep;
	int rc, all = 1;

	*reps_passed = 0;
	for (w = 0; w < c->o->warmup; w++)
		if ((rc = step(c, total, 0)) < 0)
			return rc;
	for (rep = 1; rep <= c->o->repeat; rep++) {
		rc = step(c, total, (int)rep);
		if (rc < 0)
			return rc;
		if (rc)
			(*reps_passed)++;
		else
			all = 0;
		if (!rc && stop_at_fail)
			break;
		if (!n_live(c))
			return 0;
	}
	return all;
}

/* PATH.part made new for writing: a file or link planted there (the
 * folder may be shared) is removed, never followed or written through. */
static int open_part(const char *path, char *tmp, size_t len)
{
	int fd;

	if ((size_t)snprintf(tmp, len, "%s.part", path) >= len)
		return -ENAMETOOLONG;
	if (unlink(tmp) < 0 && errno != ENOENT)
		return -errno;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	return fd < 0 ? -errno : fd;
}

/* PATH.part written whole: renamed to path (a link there replaced, not
 * followed); else removed.  rc: the write's result. */
static int close_part(int fd, const char *tmp, const char *path, int rc)
{
	if (close(fd) < 0 && rc == 0)
		rc = -EIO;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

static int copy_file(const char *from, const char *to)
{
	char buf[1 << 16], tmp[PATH_MAX + 16];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, rc = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open_part(to, tmp, sizeof(tmp));
	if (out < 0) {
		close(in);
		return out;
	}
	while (rc == 0 && (n = read(in, buf, sizeof(buf))) != 0)
		if (n < 0 || write(out, buf, (size_t)n) != n)
			rc = -EIO;
	close(in);
	return close_part(out, tmp, to, rc);
}

/* OUT.hosts/RANK-HOST.db */
static char *copy_path(const struct coord *c, int r)
{
	char name[HL_NAME], *p;
	size_t i;

	snprintf(name, sizeof(name), "%s", c->p[r].id.name);
	for (i = 0; name[i]; i++)
		if (name[i] == '/')
			name[i] = '_';
	if (asprintf(&p, "%s.hosts/%d-%s.db", c->o->out, r, name) < 0)
		return NULL;
	return p;
}

/* Rank r's database into path.  The size is the other rank's word: one
 * the folder's file system cannot hold is refused before a byte is
 * written (-EFBIG; the rank's sends then time out). */
static int recv_file(struct coord *c, int r, const char *path)
{
	static char buf[HL_CHUNK];
	int64_t size, left;
	char tmp[PATH_MAX + 16];
	struct statvfs vfs;
	int fd, rc;

	rc = hl_recv(r, HL_TAG_DBSIZE, &size, sizeof(size),
		     hl_now_mono() + 120 * S_NS +
			 (int64_t)(c->o->step_timeout * S_NS));
	if (rc < 0)
		return rc;
	if (size < 0)
		return -ENOENT;
	fd = open_part(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	if (fstatvfs(fd, &vfs) == 0 &&
	    (uint64_t)size / vfs.f_frsize >= (uint64_t)vfs.f_bavail) {
		fprintf(stderr,
			"%s: rank %d (%s) says its database is %lld bytes: "
			"more than %s has free\n",
			HL_PROG, r, c->p[r].id.name, (long long)size, tmp);
		return close_part(fd, tmp, path, -EFBIG);
	}
	for (left = size; left > 0 && rc == 0;) {
		size_t n = left > HL_CHUNK ? HL_CHUNK : (size_t)left;

		rc = hl_recv(r, HL_TAG_DBCHUNK, buf, n,
			     hl_now_mono() + WAIT_CHUNK_NS);
		if (rc == 0 && write(fd, buf, n) != (ssize_t)n)
			rc = -EIO;
		left -= (int64_t)n;
	}
	return close_part(fd, tmp, path, rc);
}

static void print_tables(const struct coord *c)
{
	size_t i;
	int r;

	if (c->n_rows)
		printf("\n%5s %12s %6s %6s %10s %11s %9s %10s  %s\n", "step",
		       "workstations", "rep", "hosts", "frames", "late frames",
		       "MB/s", "spread ms", "straggler");
	for (i = 0; i < c->n_rows; i++) {
		const struct step_row *w = &c->rows[i];
		char rep[16];

		snprintf(rep, sizeof(rep), "%d", w->rep);
		printf("%5d %12u %6s %6u %10lld %11lld %9.1f %10.1f  %s%s\n",
		       w->step_no, w->total, w->rep ? rep : "warm", w->hosts,
		       (long long)w->frames, (long long)w->late, w->mbs,
		       w->spread_ms, w->straggler,
		       w->complete ? "" : " (incomplete)");
	}
	printf("\n%5s %-20s %-10s %14s %9s %14s %-15s %s\n", "rank", "host",
	       "machine", "offset ms", "rtt us", "end offset ms", "sync",
	       "complete");
	for (r = 0; r < c->n; r++) {
		const struct peer *p = &c->p[r];
		char end[32];

		if (p->line.has_end)
			snprintf(end, sizeof(end), "%.3f",
				 (double)p->line.offset_end / 1e6);
		else
			snprintf(end, sizeof(end), "-");
		printf("%5d %-20s %-10.8s %14.3f %9.1f %14s %-15s %s%s%s\n", r,
		       p->id.name, p->id.machine_id[0] ? p->id.machine_id : "?",
		       (double)p->line.offset_start / 1e6,
		       (double)p->rtt_start / 1e3, end,
		       p->id.sync[0] ? p->id.sync : "?",
		       p->reason[0] ? "no: " : "yes", p->reason, "");
	}
}

static int distinct_machines(const struct coord *c)
{
	int r, q, n = 0, known = 0;

	for (r = 0; r < c->n; r++) {
		if (!c->p[r].id.machine_id[0]) {
			n++;
			continue;
		}
		known = 1;
		for (q = 0; q < r; q++)
			if (!strcmp(c->p[q].id.machine_id,
				    c->p[r].id.machine_id))
				break;
		if (q == r)
			n++;
	}
	return known ? n : -1;
}

static void stop_all(struct coord *c)
{
	struct hl_cmd cmd;
	int r;

	memset(&cmd, 0, sizeof(cmd));
	cmd.kind = HL_CMD_STOP;
	for (r = 1; r < c->n; r++) {
		MPI_Request req;

		if (!c->p[r].alive)
			continue;
		/* no wait: a rank that is gone must not hold this up */
		if (MPI_Isend(&cmd, sizeof(cmd), MPI_BYTE, r, HL_TAG_CMD,
			      MPI_COMM_WORLD, &req) == MPI_SUCCESS)
			MPI_Request_free(&req);
	}
}

/* The host row of rank r, which rank 0 gave up on, in the merged
 * database: incomplete, with everything rank 0 measured of it (its row
 * from its own database, when that came, keeps what it holds). */
static int mark_incomplete(struct coord *c, struct hosts_db *d, int64_t exp_id,
			   int r, char **err)
{
	const struct peer *p = &c->p[r];
	struct hosts_host x;

	hl_row_fill(&x, r, &p->id, &p->line, p->rtt_start, p->rtt_end);
	x.experiment_id = exp_id;
	x.reason = p->reason[0] ? p->reason : "incomplete";
	return hosts_mark_incomplete(d, &x, err);
}

/* The rows of the hosts that are not complete, in the merged database:
 * those rank 0 gave up on, and every one when the steps played nothing
 * (no host mounted, more workstations than timelines): such an
 * experiment is no host's complete one. */
static int mark_all_incomplete(struct coord *c, struct hosts_db *d,
			       int64_t exp_id, const char *verdict,
			       int says_nothing, char **err)
{
	int r, rc = 0, played = 0;
	size_t i;

	for (i = 0; i < c->n_rows && !played; i++)
		played = c->rows[i].hosts > 0;
	for (r = 0; r < c->n && !played; r++)
		if (!c->p[r].reason[0])
			snprintf(
			    c->p[r].reason, sizeof(c->p[r].reason), "%s%s",
			    says_nothing ? "" : "nothing played: ", verdict);
	for (r = 0; rc == 0 && r < c->n; r++)
		if (c->p[r].dead || !played)
			rc = mark_incomplete(c, d, exp_id, r, err);
	return rc;
}

/* The end: each rank's clock again, its database to rank 0, the merge.
 * says_nothing: the verdict says that nothing played (the hosts' reasons
 * then are the verdict as it is).  The exit status. */
/* The END to each other rank and its clock measured again: 0, or
 * -EINTR with every rank stopped. */
static int finish_ranks(struct coord *c)
{
	struct hl_cmd cmd;
	int64_t off, rtt, th;
	char why[64];
	int r, rc;

	memset(&cmd, 0, sizeof(cmd));
	cmd.kind = HL_CMD_END;
	for (r = 1; r < c->n; r++)
		if (c->p[r].dead)
			cmd.no_finalize = 1;
	for (r = 1; r < c->n; r++) {
		struct peer *p = &c->p[r];

		if (!p->alive)
			continue;
		rc = hl_send(r, HL_TAG_CMD, &cmd, sizeof(cmd),
			     hl_now_mono() + WAIT_PONG_NS);
		if (rc == 0)
			rc = measure(c, r, &off, &rtt, &th);
		if (rc == -EINTR) {
			snprintf(why, sizeof(why), "stopped by %s",
				 hl_sig_name(hl_stop_signal));
			stop_all(c);
			hl_host_stop(c->h, why);
			return rc;
		}
		if (rc < 0) {
			kill_peer(c, r, "no answer at the end");
			continue;
		}
		p->line.has_end = 1;
		p->line.offset_end = off;
		p->line.t_end = th;
		p->rtt_end = rtt;
	}
	for (r = 1; r < c->n; r++)
		if (c->p[r].dead)
			c->h->no_finalize = 1;
	c->h->line.t_end = hl_now_rt();
	c->h->line.offset_end = 0;
	c->p[0].line = c->h->line;
	c->p[0].line.has_end = 1;
	return 0;
}

/* Rank r's database into path (rank 0's from its copy) and this
 * experiment's rows of it into d (if open): 0, 1 if something went
 * wrong (said), -EINTR. */
static int gather_one(struct coord *c, int r, const char *copy,
		      const char *path, struct hosts_db *d)
{
	struct peer *p = &c->p[r];
	struct hosts_merge_stats ms;
	char *err = NULL;
	int rc;

	rc = r == 0 ? (copy ? copy_file(copy, path) : -ENOENT) :
		      recv_file(c, r, path);
	if (rc == -EINTR)
		return rc;
	if (rc < 0) {
		fprintf(stderr, "%s: rank %d (%s): its database did not reach "
				"rank 0: %s\n", HL_PROG, r, p->id.name,
			rc == -ETIMEDOUT ? "no answer" : strerror(-rc));
		if (!p->reason[0])
			snprintf(p->reason, sizeof(p->reason),
				 "its database did not reach rank 0");
		p->dead = 1;
		return 1;
	}
	if (!d)
		return 0;
	memset(&ms, 0, sizeof(ms));
	/* this experiment's rows only: a host's database keeps every
	 * experiment run there (and its plain mounts), its copy in
	 * OUT.hosts/ stays whole */
	rc = hosts_merge_experiment(d, path, c->h->uuid, &ms, &err);
	if (rc < 0) {
		fprintf(stderr, "%s: cannot merge %s: %s\n", HL_PROG, path,
			err ? err : strerror(-rc));
		free(err);
		return 1;
	}
	return 0;
}

/* Every live rank's database gathered into OUT.hosts/ and merged into d:
 * 1 if something went wrong (said), else 0. */
static int gather(struct coord *c, const char *copy, struct hosts_db *d)
{
	char *path;
	int r, rc, bad = 0;

	for (r = 0; r < c->n; r++) {
		if (!c->p[r].alive)
			continue;
		path = copy_path(c, r);
		if (!path)
			continue;
		rc = gather_one(c, r, copy, path, d);
		free(path);
		if (rc < 0)
			break;
		bad |= rc;
	}
	return bad;
}

/* The experiment's row, and each incomplete host marked, in d: 1 if it
 * could not be written (said), else 0. */
static int record_experiment(struct coord *c, struct hosts_db *d,
			     const char *verdict, int says_nothing,
			     int machines, int64_t lo, int64_t hi)
{
	struct hosts_experiment e;
	int64_t exp_id = 0;
	char at[40], *err = NULL;
	int rc;

	memset(&e, 0, sizeof(e));
	e.uuid = c->h->uuid;
	hl_iso_time(hl_now_rt(), at, sizeof(at));
	e.ended_at = at;
	e.ranks = c->n;
	e.machines = machines;
	e.command = c->o->command;
	e.plan = c->o->find_max ? "find-max" : "list";
	e.max_lo = lo;
	e.max_hi = hi;
	e.verdict = verdict;
	rc = hosts_experiment_put(d, &e, &exp_id, &err);
	if (rc == 0)
		rc = mark_all_incomplete(c, d, exp_id, verdict, says_nothing,
					 &err);
	if (rc < 0)
		fprintf(stderr, "%s: %s: %s\n", HL_PROG, c->o->out,
			err ? err : strerror(-rc));
	free(err);
	return rc < 0;
}

static int finish(struct coord *c, const char *verdict, int says_nothing,
		  int64_t lo, int64_t hi)
{
	struct hosts_db *d = NULL;
	char *copy = NULL, *err = NULL, dir[PATH_MAX + 8];
	int r, rc, bad = 0, machines;

	if (finish_ranks(c) < 0)
		return 128 + hl_stop_signal;
	hl_host_end(c->h, 1, &copy);
	if (c->h->failed && !c->p[0].reason[0])
		snprintf(c->p[0].reason, sizeof(c->p[0].reason), "%s",
			 c->h->reason);
	snprintf(dir, sizeof(dir), "%s.hosts", c->o->out);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "%s: cannot create %s: %s\n", HL_PROG, dir,
			strerror(errno));
		bad = 1;
	}
	rc = hosts_db_open(c->o->out, &d, &err);
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", HL_PROG, err ? err : strerror(-rc));
		free(err);
		d = NULL;
		bad = 1;
	}
	bad |= gather(c, copy, d);
	if (copy) {
		unlink(copy);
		free(copy);
	}
	machines = distinct_machines(c);
	if (d) {
		bad |= record_experiment(c, d, verdict, says_nothing, machines,
					 lo, hi);
		hosts_db_close(d);
	}
	if (hl_stop_signal) {
		fprintf(stderr,
			"%s: stopped by %s while gathering the databases\n",
			HL_PROG, hl_sig_name(hl_stop_signal));
		return 128 + hl_stop_signal;
	}
	print_tables(c);
	printf("\n%s\n", verdict);
	if (machines == 1 && c->n > 1)
		printf("machines: 1 (%d ranks on one physical host: not a "
		       "scale-out measurement)\n",
		       c->n);
	else if (machines > 1)
		printf("machines: %d\n", machines);
	for (r = 0; r < c->n; r++)
		if (c->p[r].reason[0])
			bad = 1;
	printf("database: %s (each host's copy in %s.hosts/)\n", c->o->out,
	       c->o->out);
	fflush(stdout);
	return bad ? 1 : 0;
}

/* Each other rank's HELLO, cleaned: 0, or -EINTR. */
static int rank0_hellos(struct coord *c)
{
	struct hl_hello hello;
	int r, rc;

	for (r = 1; r < c->n; r++) {
		rc = hl_recv(r, HL_TAG_HELLO, &hello, sizeof(hello),
			     hl_now_mono() + WAIT_HELLO_NS);
		if (rc == -EINTR)
			return rc;
		if (rc < 0)
			memset(&hello, 0, sizeof(hello));
		eng_hosts_text(hello.name, sizeof(hello.name));
		eng_hosts_text(hello.machine_id, sizeof(hello.machine_id));
		eng_hosts_text(hello.boot_id, sizeof(hello.boot_id));
		eng_hosts_text(hello.sync, sizeof(hello.sync));
		if (!hello.name[0])
			snprintf(hello.name, sizeof(hello.name), "?");
		if (rc != 0)
			hello.sync_error_us = -1;
		c->p[r].id = hello;
		c->p[r].alive = 1;
		if (rc < 0)
			kill_peer(c, r, "no answer at the start");
	}
	return 0;
}

/* The plan to each other rank, then each one's clock measured against
 * rank 0's, one after the other: 0, or -EINTR. */
static int rank0_sync(struct coord *c)
{
	struct hl_host *h = c->h;
	struct hl_plan plan;
	int64_t off, rtt, th;
	int r, rc;

	memset(&plan, 0, sizeof(plan));
	snprintf(plan.uuid, sizeof(plan.uuid), "%s", h->uuid);
	snprintf(plan.label, sizeof(plan.label), "%s", h->label);
	plan.rounds = c->o->sync_rounds;
	/* the others are measured one after the other, then rank 0 mounts
	 * before it waits for their mounts */
	plan.wait_ms = 120000 + (int64_t)c->n * 10000;
	printf("experiment %s: %d rank%s, label '%s', media %s\n", h->uuid,
	       c->n, c->n == 1 ? "" : "s", h->label, c->o->media);
	fflush(stdout);
	for (r = 1; r < c->n; r++)
		if (c->p[r].alive &&
		    hl_send(r, HL_TAG_PLAN, &plan, sizeof(plan),
			    hl_now_mono() + WAIT_PONG_NS) < 0)
			kill_peer(c, r, "no answer at the start");
	h->line.t_start = hl_now_rt();
	for (r = 1; r < c->n; r++) {
		if (!c->p[r].alive)
			continue;
		rc = measure(c, r, &off, &rtt, &th);
		if (rc == -EINTR)
			return rc;
		if (rc < 0) {
			kill_peer(c, r, "no answer in the clock measurement "
					"at the start");
			continue;
		}
		c->p[r].line.t_start = th;
		c->p[r].line.offset_start = off;
		c->p[r].rtt_start = rtt;
		printf("rank %d (%s): clock offset %+.3f ms (round trip %.1f "
		       "us)\n", r, c->p[r].id.name, (double)off / 1e6,
		       (double)rtt / 1e3);
	}
	return 0;
}

/* Rank 0 mounts, then each other rank's mount is awaited; *min_tl the
 * fewest timelines a live host has.  0, or -EINTR. */
static int rank0_mounts(struct coord *c, unsigned *min_tl)
{
	static struct hl_mounted m;
	int r, rc;

	hl_host_mount(c->h, &m);
	if (hl_stop_signal)
		return -EINTR;
	c->p[0].line = c->h->line;
	for (r = 0; r < c->n; r++) {
		struct peer *p = &c->p[r];

		if (!p->alive)
			continue;
		if (r > 0) {
			rc = hl_recv(r, HL_TAG_MOUNTED, &m, sizeof(m),
				     hl_now_mono() + WAIT_MOUNT_NS);
			if (rc == -EINTR)
				return rc;
			if (rc < 0) {
				kill_peer(c, r, "no answer to the mount");
				continue;
			}
			eng_hosts_text(m.reason, sizeof(m.reason));
		}
		if (!m.ok) {
			snprintf(p->reason, sizeof(p->reason), "%s", m.reason);
			c->failures++;
			printf("rank %d (%s): %s\n", r, p->id.name, m.reason);
			continue;
		}
		p->live = 1;
		p->n_tl = m.n_tl;
		memcpy(p->prefmax, m.prefmax, sizeof(p->prefmax));
		p->max_all = m.max_all;
		if (m.n_tl < *min_tl)
			*min_tl = m.n_tl;
	}
	return 0;
}

/* Why nothing can play (no host mounted, a count the hosts' timelines
 * cannot play: each workstation its own timeline on its host), said
 * before any step; 0 if something can. */
static int rank0_nothing(struct coord *c, unsigned min_tl, char *verdict,
			 size_t len)
{
	const struct hl_opts *o = c->o;
	unsigned live = n_live(c), most;
	size_t i;
	int r;

	if (!live) {
		snprintf(verdict, len, "no host could mount: nothing played");
		fprintf(stderr, "%s: no host could mount", HL_PROG);
		for (r = 0; r < c->n; r++)
			if (c->p[r].reason[0])
				fprintf(stderr, "%s rank %d (%s): %s",
					r ? ";" : ":", r, c->p[r].id.name,
					c->p[r].reason);
		fprintf(stderr, "\n");
		return 1;
	}
	printf("%u of %d host%s mounted, %u timelines each at least\n", live,
	       c->n, c->n == 1 ? "" : "s", min_tl);
	fflush(stdout);
	for (i = 0; !o->find_max && i < o->n_ws; i++) {
		most = (o->ws[i] + live - 1) / live;
		if (most <= min_tl)
			continue;
		snprintf(verdict, len,
			 "--workstations %u needs %u timelines on each of %u "
			 "host%s, a host has %u: nothing played",
			 o->ws[i], most, live, live == 1 ? "" : "s", min_tl);
		fprintf(stderr, "%s: %s\n", HL_PROG, verdict);
		return 1;
	}
	return 0;
}

/* The --workstations counts, each its warm-ups and repetitions: 0, or
 * -EINTR. */
static int rank0_counts(struct coord *c, char *verdict, size_t len)
{
	unsigned reps_ok;
	int64_t late = 0;
	size_t i;
	int rc;

	for (i = 0; i < c->o->n_ws; i++) {
		rc = count(c, c->o->ws[i], 0, &reps_ok);
		if (rc < 0)
			return rc;
		if (!n_live(c))
			break;
	}
	for (i = 0; i < c->n_rows; i++)
		if (c->rows[i].rep)
			late += c->rows[i].late;
	snprintf(verdict, len,
		 "%zu step%s over %u host%s: %lld late frame%s in the "
		 "repetitions%s",
		 c->n_rows, c->n_rows == 1 ? "" : "s", n_live(c),
		 n_live(c) == 1 ? "" : "s", (long long)late,
		 late == 1 ? "" : "s",
		 c->failures ? "; some hosts incomplete (below)" : "");
	return 0;
}

/* --find-max over the live hosts: 0 with *lo and *hi its bracket (-1:
 * none), 1 if there was no count to try, -EINTR. */
static int rank0_find_max(struct coord *c, unsigned min_tl, char *verdict,
			  size_t len, int64_t *lo, int64_t *hi)
{
	const struct hl_opts *o = c->o;
	unsigned n, hosts = n_live(c), blo = 0, bhi = 0, cap, from, reps_ok;
	struct eng_findmax fm;
	char causes[160];
	int rc;

	cap = hosts * min_tl;
	if (o->max && o->max < cap)
		cap = o->max;
	from = o->from ? o->from : hosts;
	if (from > cap)
		from = cap;
	if (!cap || eng_findmax_init(&fm, from, cap) < 0) {
		snprintf(verdict, len,
			 "find-max: no workstation count to try (%u hosts "
			 "with %u timelines each)", hosts, min_tl);
		return 1;
	}
	while ((n = eng_findmax_next(&fm)) != 0) {
		rc = count(c, n, 1, &reps_ok);
		if (rc < 0)
			return rc;
		eng_findmax_result(&fm, n, rc);
		if (!n_live(c))
			break;
	}
	eng_findmax_bracket(&fm, &blo, &bhi);
	hosts = n_live(c);
	causes_words(o->late_causes, causes, sizeof(causes));
	if (blo == 0)
		snprintf(verdict, len,
			 "not even 1 workstation over %u host%s plays with 0 "
			 "late frames%s", hosts, hosts == 1 ? "" : "s", causes);
	else if (bhi == 0)
		snprintf(verdict, len,
			 "at least %u workstations over %u host%s play with 0 "
			 "late frames%s in %u of %u repetitions: the cap (%s); "
			 "more need more timelines or hosts",
			 blo, hosts, hosts == 1 ? "" : "s", causes, o->repeat,
			 o->repeat,
			 o->max && o->max == cap ? "--max" :
						   "the hosts' timelines");
	else
		snprintf(verdict, len,
			 "%u workstation%s over %u host%s play%s with 0 late "
			 "frames%s in %u of %u repetitions; %u do%s not",
			 blo, blo == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s",
			 blo == 1 ? "s" : "", causes, o->repeat, o->repeat, bhi,
			 bhi == 1 ? "es" : "");
	*lo = blo;
	*hi = bhi ? (int64_t)bhi : -1;
	if (c->failures)
		snprintf(verdict + strlen(verdict), len - strlen(verdict),
			 "; some hosts incomplete (below)");
	return 0;
}

/* Each rank left out, told so at the end.  No answer may be a late one:
 * a rank whose result came after the step's deadline is alive and waits
 * for a next command that never comes (rank 0 sends none to a rank left
 * out, not even the END), minutes until its own deadline, and mpirun
 * --enable-recovery waits for it.  Told only now, rank 0's tables and
 * verdict printed: a rank that ends with a failure makes a plain mpirun
 * abort the job, rank 0 with it.  No wait (a dead rank never reads it): the
 * messages stay for MPI to send after this returns. */
static void release_left_out(const struct coord *c)
{
	static struct hl_cmd *bye;
	MPI_Request req;
	int r;

	if (bye || !(bye = calloc((size_t)c->n, sizeof(*bye))))
		return;
	for (r = 1; r < c->n; r++) {
		if (!c->p[r].dead)
			continue;
		bye[r].kind = HL_CMD_STOP;
		bye[r].step_no = c->step_no;
		snprintf(bye[r].why, sizeof(bye[r].why), "%.*s",
			 (int)sizeof(bye[r].why) - 1, c->p[r].reason);
		if (MPI_Isend(&bye[r], sizeof(bye[r]), MPI_BYTE, r, HL_TAG_CMD,
			      MPI_COMM_WORLD, &req) == MPI_SUCCESS)
			MPI_Request_free(&req);
	}
}

int hl_rank0(struct hl_host *h)
{
	const struct hl_opts *o = h->o;
	struct coord c;
	struct utsname u;
	char verdict[1024], why[64];
	unsigned min_tl = UINT32_MAX;
	int64_t lo = -1, hi = -1;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	c.h = h;
	c.o = o;
	c.n = h->size;
	c.p = calloc((size_t)c.n, sizeof(*c.p));
	if (!c.p)
		return 1;
	if (store_uuid_random(h->uuid) < 0) {
		fprintf(stderr,
			"%s: cannot make the experiment's uuid: no random "
			"bytes (getrandom, /dev/urandom)\n",
			HL_PROG);
		free(c.p);
		return 1;
	}
	if (o->label)
		snprintf(h->label, sizeof(h->label), "%s", o->label);
	else if (uname(&u) == 0)
		snprintf(h->label, sizeof(h->label), "%s", u.release);
	c.p[0].alive = 1;
	c.p[0].id = h->id;
	if (rank0_hellos(&c) < 0 || rank0_sync(&c) < 0 ||
	    rank0_mounts(&c, &min_tl) < 0)
		goto stopped;
	if (rank0_nothing(&c, min_tl, verdict, sizeof(verdict))) {
		finish(&c, verdict, 1, -1, -1);
		rc = 1;
		goto out;
	}
	rc = o->find_max ? rank0_find_max(&c, min_tl, verdict,
					   sizeof(verdict), &lo, &hi) :
			   rank0_counts(&c, verdict, sizeof(verdict));
	if (rc < 0)
		goto stopped;
	if (rc > 0) {	/* find-max had no count to try */
		finish(&c, verdict, 0, -1, -1);
		rc = 1;
		goto out;
	}
	rc = finish(&c, verdict, 0, lo, hi);
	goto out;
stopped:
	snprintf(why, sizeof(why), "stopped by %s",
		 hl_sig_name(hl_stop_signal));
	fprintf(stderr, "%s: %s: stopping every rank\n", HL_PROG, why);
	stop_all(&c);
	hl_host_stop(h, why);
	rc = 128 + hl_stop_signal;
out:
	release_left_out(&c);
	free(c.rows);
	free(c.p);
	return rc;
}
