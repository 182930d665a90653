/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-hosts, the MPI launcher (docs/design.md "Many
 * hosts", docs/hosts.md): the modules of the program and what they share.
 *
 * launcher_main.c: options, MPI's start and end, rank 0's plan and its
 *                  report
 * launcher_opttab.c: the options, one row each: -h, the man page's
 *                  items, getopt's table, defaults and ranges
 * coord.c:         rank 0: the messages to and from every other rank (the
 *                  clock ping-pong, the steps, the databases), each wait
 *                  bounded
 * host.c:          what every rank does on its host: facts, rows, mount,
 *                  steps
 * comm.c:          point-to-point messages with deadlines (no collective
 *                  after MPI_Init: a dead rank must not hang the others)
 * proc.c:          clocks, processes (the daemon, the bench), signals,
 *                  mounts
 */
#ifndef LAUNCHER_H
#define LAUNCHER_H

#include <getopt.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <mpi.h>

#include "hosts/hosts.h"
#include "experiment.h"
#include "util/optdoc.h"

#define HL_PROG "timelinefs-hosts"
#define HL_MAX_WS 256	    /* counts of --workstations */
#define HL_MAX_TL 1024	    /* timelines whose play time rank 0 learns */
#define HL_CHUNK (4u << 20) /* a database is sent in chunks of this */
#define HL_NAME 256
#define HL_MAX_COUNT 100000 /* workstations of a step, in total */

/* ------------------------------------------------------------ options */

struct hl_opts {
	const char *media;
	unsigned ws[HL_MAX_WS]; /* --workstations */
	size_t n_ws;
	int find_max;
	unsigned from, max; /* 0: default */
	unsigned repeat, warmup;
	unsigned late_causes; /* find-max judges late frames of these
			       * (1u << enum eng_cause bits) */
	const char *cache;    /* drop prime keep */
	const char *pace;     /* realtime off FACTOR */
	double speed;	      /* 1, FACTOR, 0 for off */
	const char *reader;
	int movie;
	const char *mount_opts;		   /* NULL: none */
	const char *label;		   /* NULL: uname -r of rank 0 */
	const char *db, *out, *mountpoint; /* mountpoint NULL: private */
	double start_margin, step_timeout;
	unsigned sync_rounds;
	char *command; /* argv joined, for the experiment row */
};

/* launcher_opttab.c: the options, one row each (util/optdoc.h) under
 * headings; a row's key is its getopt value. */
enum {
	HL_OPT_MEDIA = 256,
	HL_OPT_WS,
	HL_OPT_FINDMAX,
	HL_OPT_FROM,
	HL_OPT_MAX,
	HL_OPT_LATE_CAUSES,
	HL_OPT_REPEAT,
	HL_OPT_WARMUP,
	HL_OPT_CACHE,
	HL_OPT_PACE,
	HL_OPT_READER,
	HL_OPT_MOVIE,
	HL_OPT_MOUNTOPTS,
	HL_OPT_LABEL,
	HL_OPT_DB,
	HL_OPT_OUT,
	HL_OPT_MNT,
	HL_OPT_MARGIN,
	HL_OPT_TIMEOUT,
	HL_OPT_ROUNDS,
	HL_OPT_DOC, /* --doc-options=WHAT: make docs-options */
};
extern const struct eng_optdoc hl_optdocs[];
extern const size_t hl_noptdocs;

/* The row of getopt value key (every HL_OPT_ but HL_OPT_DOC has one). */
const struct eng_optdoc *hl_optdoc(int key);
/* -h: the usage, the rows under their headings, the exit status. */
void hl_usage(void);
/* --doc-options=WHAT on stdout: man, the man page's OPTIONS items; list,
 * NAME<TAB>DEFAULT ("-" none) a line (test_man.sh): 0, or -1 said. */
int hl_doc_options(const char *what);
/* getopt_long's table of the rows, --doc-options, --help, --version. */
const struct option *hl_long_options(void);

/* ------------------------------------------------------------ messages */

enum hl_tag {
	HL_TAG_HELLO = 1,
	HL_TAG_PLAN,
	HL_TAG_PING,
	HL_TAG_PONG,
	HL_TAG_SYNC,
	HL_TAG_MOUNTED,
	HL_TAG_CMD,
	HL_TAG_RESULT,
	HL_TAG_DBSIZE,
	HL_TAG_DBCHUNK,
};

/* Every message is a fixed struct sent as MPI_BYTE: the hosts of one
 * experiment run one build of one architecture (docs/hosts.md). */
/* A host's identity: its HELLO to rank 0, and embedded in struct hl_host
 * (its own) and coord.c's struct peer (rank 0's of each rank). */
struct hl_hello {
	char name[HL_NAME];
	char machine_id[64];
	char boot_id[64];
	char sync[32]; /* adjtimex: synchronized or not, "" unreadable */
	int64_t sync_error_us; /* < 0: unreadable */
};

struct hl_plan {
	char uuid[40];
	char label[HL_NAME];
	unsigned rounds; /* ping-pong rounds */
	int64_t wait_ms; /* the longest until rank 0's next message */
};

struct hl_sync {
	int64_t offset_ns, rtt_ns, t_host_ns;
	int ok;
};

struct hl_mounted {
	int ok;
	char reason[1024];
	uint32_t n_tl;		  /* timelines of the mount */
	float prefmax[HL_MAX_TL]; /* longest play time among the
				   * first k + 1 (s) */
	float max_all;
};

enum { HL_CMD_STEP = 1, HL_CMD_END, HL_CMD_STOP };

struct hl_cmd {
	int kind;
	int step_no, rep;
	unsigned share, total;
	int64_t t0_ns;	  /* the start on rank 0's clock */
	int64_t wait_ms;  /* the longest until rank 0's next message
			   * after this rank's result */
	int no_finalize;  /* HL_CMD_END: a rank died: MPI_Finalize would
			   * wait for it forever */
	int64_t limit_ms; /* rank 0 waits this long for the result:
			   * the rank stops its bench after it */
	double within_s;  /* the same deadline in s after the step's
			   * start, as rank 0 says it */
	char why[256];	  /* HL_CMD_STOP to one rank at the end: rank 0
			   * left it out, for this reason; "": every
			   * rank stops */
};

enum { HL_PLAYED = 0, HL_IDLE = 1, HL_FAILED = -1 };

struct hl_result {
	int step_no;
	int status; /* HL_PLAYED, HL_IDLE, HL_FAILED */
	char err[1024];
	struct hosts_step_result r;
	/* r.late_frames by late_frame's cause; asked only when find-max
	 * judges some causes and there were late frames, else all 0 */
	int64_t by_cause[ENG_CAUSE_N];
};

/* ------------------------------------------------------------ comm.c */

/* 0; -ETIMEDOUT past deadline (CLOCK_MONOTONIC ns); -EINTR a stop signal
 * came; -EIO MPI failed (the peer is gone).  hl_recv_poll: busy polling
 * (for the ping-pong's round trips), else a millisecond between tests. */
int hl_send(int dest, int tag, const void *buf, size_t len, int64_t deadline);
int hl_recv(int src, int tag, void *buf, size_t len, int64_t deadline);
int hl_recv_busy(int src, int tag, void *buf, size_t len, int64_t deadline);
/* A message of tag from src waiting (0 or 1), without taking it. */
int hl_pending(int src, int tag);

/* ------------------------------------------------------------ proc.c */

extern volatile sig_atomic_t hl_stop_signal; /* the signal that came */

int hl_clock_init(void); /* TIMELINEFS_TEST_CLOCK_OFFSET_NS */
int64_t hl_now_rt(void); /* CLOCK_REALTIME ns, hook added */
int64_t hl_now_mono(void);
void hl_iso_time(int64_t ns, char *buf, size_t len);
void hl_signals(void);
const char *hl_sig_name(int sig); /* "SIGTERM" */
void hl_sleep_ms(unsigned ms);

/* A child in a process group of its own (the rank kills the group), that
 * gets SIGTERM if the rank dies (PR_SET_PDEATHSIG: a kill -9 of the rank
 * must not leave a daemon or a bench), output appended to log. */
pid_t hl_spawn(const char *const argv[], const char *log);
/* waitpid without blocking: 1 and *status when it ended, 0 not yet. */
int hl_reap(pid_t pid, int *status);
/* TERM to the group, KILL after grace_ms; waits for it. */
void hl_kill_group(pid_t pid, unsigned grace_ms);
int hl_mounted(const char *mnt);
/* fusermount3 -u, tried up to tries times 50 ms apart; -z when it stays
 * busy. */
void hl_unmount(const char *mnt, int tries);
/* The last line of a file (for a failure's reason) into buf. */
void hl_tail(const char *path, char *buf, size_t len, int lines);
/* The binary NAME: TIMELINEFS_BIN_DIR, next to this program, its
 * ../mount-scripts and ../build (a checkout), PATH.  malloc'ed. */
char *hl_find_bin(const char *name);

/* ------------------------------------------------------------ host.c */

/* One rank's host: its facts, its database and mount, its steps. */
struct hl_host {
	const struct hl_opts *o;
	int rank, size;
	struct hl_hello id; /* who it is: what it says to rank 0 */
	char *db, *mnt, *log_daemon, *log_bench;
	int own_mnt_dir;    /* the mount point was made here */
	char *tlfs, *bench; /* binaries */
	char uuid[40];
	char label[HL_NAME];
	int64_t experiment_id, host_id;
	struct eng_clock_line line;
	int64_t rtt_start, rtt_end;
	pid_t daemon;
	int mounted;
	pid_t bench_pid;
	int64_t step_after; /* hosts_last_step before the bench */
	struct hl_cmd cur;  /* the step running */
	int failed;	    /* a step failed or the mount: incomplete */
	int no_finalize;    /* a rank died: no MPI_Finalize */
	char reason[1024];
};

int hl_host_init(struct hl_host *h, const struct hl_opts *o, int rank,
		 int size);
/* The experiment and host rows (running), then the mount; on failure
 * h->reason says why and m->ok is 0. */
void hl_host_mount(struct hl_host *h, struct hl_mounted *m);
/* Start the bench of cmd (nothing for a share of 0): 0, or HL_FAILED
 * with h->reason. */
int hl_host_step_start(struct hl_host *h, const struct hl_cmd *cmd);
/* The bench has ended with status (or the step had no share): tag the
 * rows, fill res; a failure's reason in words (the daemon ended under
 * it, the bench killed, or its last lines). */
void hl_host_step_finish(struct hl_host *h, int status, struct hl_result *res);
/* The end: unmount, the host row complete or not (reason), a copy of the
 * database to send in *copy (malloc'ed path; NULL on failure). */
void hl_host_end(struct hl_host *h, int has_end, char **copy);
/* A stop signal (or rank 0 gone): the bench and its readers killed, the
 * host row says why, unmounted, and the daemon waited for (3 s, then
 * killed): nothing of the run outlives the rank.  Open MPI kills the rank
 * odls_base_sigkill_timeout after its SIGTERM (timelinefs-hosts-run: 5 s). */
void hl_host_stop(struct hl_host *h, const char *why);
void hl_host_free(struct hl_host *h);
int hl_host_row(struct hl_host *h, int complete, const char *reason);
/* A host row (experiment, complete and reason left 0) of what is known of
 * a host: its facts (id) and its clock line ("" facts NULL; the start's
 * measurement when line->t_start is set).  The strings are borrowed. */
void hl_row_fill(struct hosts_host *x, int rank, const struct hl_hello *id,
		 const struct eng_clock_line *line, int64_t rtt_start,
		 int64_t rtt_end);

/* ------------------------------------------------------------ coord.c */

/* Rank 0's experiment, and every other rank's part: the exit status. */
int hl_rank0(struct hl_host *h);
int hl_rank_other(struct hl_host *h);

#endif
