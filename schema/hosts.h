/* SPDX-License-Identifier: MIT */
/*
 * Many hosts (issue 24): the rows of an experiment in a host's database
 * (hosts.c), and the merge of many hosts' databases into one (merge.c).
 * Like store.c, the only code that speaks SQL for them; the launcher
 * (hosts/, timelinefs-hosts) and timelinefs-merge call these.  Each call
 * opens its own connection (busy timeout 5 s: the daemon writes the same
 * file) and applies the schema, so an older database is upgraded first.
 * Errors: -errno style codes, and a malloc'ed message in *errmsg (may be
 * NULL) that names the file and the reason.
 */
#ifndef STORE_HOSTS_H
#define STORE_HOSTS_H

#include <stdint.h>

struct hosts_db;

int hosts_db_open(const char *path, struct hosts_db **out, char **errmsg);
void hosts_db_close(struct hosts_db *h);

/* The experiment row (uuid unique: a second call with the same uuid
 * updates ended_at, machines, max_lo, max_hi and verdict where not NULL /
 * negative).  *id gets its row id. */
struct hosts_experiment {
	const char *uuid;
	const char *started_at;	/* NULL: now */
	const char *ended_at;	/* NULL: not ended */
	int ranks;
	int machines;		/* < 0: unknown (NULL) */
	const char *command;
	const char *plan;	/* "list" or "find-max" */
	int64_t max_lo, max_hi;	/* < 0: NULL */
	const char *verdict;
};
int hosts_experiment_put(struct hosts_db *h, const struct hosts_experiment *e,
			 int64_t *id, char **errmsg);

/* The host row of (experiment, rank), inserted or replaced whole, in
 * place (its id kept: run.host_id may name it); with experiment_id 0 or
 * rank < 0, the row of the same experiment, rank, name and machine_id
 * (a mount's own, as the store makes it).  *id gets its row id.  has_*
 * 0: the column is NULL.  timelinefs-hosts writes the experiment and this
 * row in each host's database before it mounts there with -o
 * experiment=UUID,rank=R: the daemon refuses a rank without its row. */
struct hosts_host {
	int64_t experiment_id;	/* 0: NULL (a host outside an experiment) */
	int rank;		/* < 0: NULL */
	const char *name;
	const char *machine_id, *boot_id;
	int has_start;
	int64_t offset_start_ns, rtt_start_ns, t_start_ns;
	int has_end;
	int64_t offset_end_ns, rtt_end_ns, t_end_ns;
	const char *sync;	/* NULL: unreadable */
	int64_t sync_error_us;	/* < 0: NULL */
	int complete;
	const char *reason;	/* NULL when complete */
};
int hosts_host_put(struct hosts_db *h, const struct hosts_host *host,
		   int64_t *id, char **errmsg);

/* The newest run of the database that has not ended (the mount's;
 * -ENOENT: none), and the largest bench_step id so far (0: none). */
int hosts_open_run(struct hosts_db *h, int64_t *run_id, char **errmsg);
int hosts_last_step(struct hosts_db *h, int64_t *step_id, char **errmsg);

/* Tag the bench_step rows of run_id with id > after_step (the step(s) one
 * timelinefs-bench call wrote) as step step_no of the experiment, and set
 * run.host_id of run_id. */
int hosts_tag_steps(struct hosts_db *h, int64_t run_id, int64_t after_step,
		    int64_t experiment_id, int64_t host_id, int step_no,
		    int total_workstations, int64_t planned_unix_ns,
		    char **errmsg);

/* What a host played in one experiment step: the sums over its
 * bench_step rows tagged step_no (as bench_step_summary counts them), and the first open
 * and last close as CLOCK_REALTIME ns of this host (run.t0_unix_ns +
 * started_ns / ended_ns).  -ENOENT: no such step row. */
struct hosts_step_result {
	int workstations;
	int64_t frames, late_frames, dropped_frames, failed_frames;
	int64_t bytes;
	double wall_s;
	int64_t start_unix_ns, end_unix_ns;
};
int hosts_step_result(struct hosts_db *h, int64_t experiment_id, int step_no,
		      struct hosts_step_result *r, char **errmsg);

/* Merge the database at src into the one open in h (merge.c): every run
 * of src whose run.uuid h does not hold yet, with its rows (run_env,
 * problem, timeline, media, stream, access, bench_step, bench_stream),
 * their ids renumbered; its experiment (by uuid) and host rows (by
 * experiment and rank: a complete one, or one with an end measurement,
 * wins over one without; a host row without an experiment by name and
 * machine); run.host_id pointing at the host's row in h.  A run of src
 * without a uuid (a database from before schema version 12) gets one
 * derived from its host, started_at and id, the same at every merge.  One
 * transaction: src is merged whole or not at all; src is not modified.
 * Merging the same file again adds nothing. */
struct hosts_merge_stats {
	int64_t runs_added, runs_present;
	/* of runs_added, those without ended_at (a mount still running, or
	 * a daemon that died): merged as they are, never again */
	int64_t runs_unended;
	int64_t streams_added, access_added, steps_added;
	int64_t hosts_added, hosts_updated;
};
int hosts_merge(struct hosts_db *h, const char *src,
		struct hosts_merge_stats *stats, char **errmsg);

/* Mark the host row (experiment, rank) incomplete with reason, creating it
 * (name given) when the merged database has none (a host whose database
 * never reached rank 0). */
int hosts_mark_incomplete(struct hosts_db *h, int64_t experiment_id, int rank,
			  const char *name, const char *reason, char **errmsg);

#endif
