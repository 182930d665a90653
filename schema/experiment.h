/* SPDX-License-Identifier: MIT */
/*
 * Many hosts, the experiment schema: the rows of an experiment in a
 * host's database (experiment.c), the launcher's own queries of a host's
 * database (hosts_step.c), and the merge of many hosts' databases into
 * one (merge.c).
 * Like store.c, the only code that speaks SQL for them; the launcher
 * (launcher/, timelinefs-hosts) and timelinefs-merge (merge/) call
 * these.  Each call opens its own connection (busy timeout 5 s: the
 * daemon writes the same file) and applies the schema, so an older
 * database is upgraded first.
 * Errors: -errno style codes, and a malloc'ed message in *errmsg (may be
 * NULL) that names the file and the reason.
 */
#ifndef STORE_EXPERIMENT_H
#define STORE_EXPERIMENT_H

#include <stddef.h>
#include <stdint.h>

struct hosts_db;

/* Open (create when absent) and upgrade a timelinefs database.  -EINVAL:
 * the file is neither empty nor a timelinefs database (no table run, or a
 * schema version below 1): nothing is written into it; -ENOTSUP: a newer
 * schema; -EIO: SQLite failed. */
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

/* What rank 0 gave rank `rank` in step step_no of the experiment (its
 * workstations, 0 included: a rank left without any, or left out after
 * it died), the step's repetition, total over all ranks and planned start
 * (rank 0's CLOCK_REALTIME ns), in the experiment_share row of (experiment,
 * step, rank), inserted or replaced.  Rank 0 writes every rank's row into
 * its own database before it sends the step: the views count a rank given
 * workstations > 0 with no bench_step row of the step as having missed it.
 * -EINVAL: experiment_id < 1, step_no < 0, rank < 0, a negative count. */
int hosts_share_put(struct hosts_db *h, int64_t experiment_id, int step_no,
		    int rank, int workstations, int repetition,
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
 * their ids renumbered; its experiment (by uuid), its experiment_share
 * rows (by experiment, step and rank: those h holds kept) and host rows (by
 * experiment and rank: a complete one, or one with an end measurement,
 * wins over one without; a host row without an experiment by name and
 * machine); run.host_id pointing at the host's row in h.  A run of src
 * without a uuid (a database from before schema version 12) gets one
 * derived from its host, started_at and id, the same at every merge.  One
 * transaction: src is merged whole or not at all; src is not modified.
 * Merging the same file again adds nothing.  -EINVAL: src is no database
 * timelinefs wrote (no table run, a schema version below 1, ids below 1 or
 * above 2^53, a table it has but cannot be read), or -EFBIG the target has
 * no room for its ids: the message names src and why. */
struct hosts_merge_stats {
	int64_t runs_added, runs_present;
	/* of runs_added, those without ended_at (a mount still running, or
	 * a daemon that died): merged as they are, never again */
	int64_t runs_unended;
	int64_t streams_added, access_added, steps_added;
	int64_t hosts_added, hosts_updated;
	int64_t shares_added; /* experiment_share rows new to h */
};
int hosts_merge(struct hosts_db *h, const char *src,
		struct hosts_merge_stats *stats, char **errmsg);

/* hosts_merge of one experiment of src: its experiment row (uuid
 * experiment_uuid, or the one src holds whose uuid starts with it, 8
 * characters or more), its experiment_share rows, its host rows and the
 * runs whose host_id is one of them, with their rows; nothing else of src
 * (its other experiments, runs outside any: a host's own database keeps
 * every experiment run there, and plain mounts).  NULL: hosts_merge.
 * -ENOENT: src has no such experiment; -EINVAL: a prefix that more than
 * one of its experiments starts with (the message names src and the
 * uuid). */
int hosts_merge_experiment(struct hosts_db *h, const char *src,
			   const char *experiment_uuid,
			   struct hosts_merge_stats *stats, char **errmsg);

/* What timelinefs-hosts needs of a host's database beside its rows
 * (hosts_step.c): the play times of the mount's timelines (a step's
 * expected length and find-max's cap), a step's repetition number in the
 * experiment, its late frames by cause, and a copy of the database in
 * one file to send to rank 0.
 * These take the database's path (each call its own connection, as
 * above). */

/* The play time in seconds (frames * fps_den / fps_num) of each timeline
 * of the newest run that has not ended, in the order timelinefs-bench
 * gives them to its workstations (by name, byte order): sec[0..*n-1], at
 * most cap of them.  -ENOENT: no open run. */
int hosts_step_timelines(const char *db, double *sec, size_t cap, size_t *n,
			 char **errmsg);

/* Set the repetition of the bench_step rows of run_id with id > after_step
 * (timelinefs-bench always writes 1 for its one repetition: the
 * experiment's is rep, 0 for a warm-up). */
int hosts_step_repetition(const char *db, int64_t run_id, int64_t after_step,
			  int rep, char **errmsg);

/* The late frames of the play streams of experiment step step_no (its
 * bench_step rows, as hosts_step_result counts their late_frames) by the
 * late_frame view's cause: counts[i] gets those of cause causes[i] (0
 * when none; a cause not among causes is not counted).  The view weighs
 * every access row of the database: a query for a step that had late
 * frames, not for every step.  On error counts may be partly set. */
int hosts_step_late_causes(const char *db, int64_t experiment_id,
			   int step_no, const char *const *causes, size_t n,
			   int64_t *counts, char **errmsg);

/* A consistent copy of db in the one file out (VACUUM INTO: the WAL's
 * pages included, none of another writer's half-done transaction); out
 * must not exist. */
int hosts_step_snapshot(const char *db, const char *out, char **errmsg);

/* Mark the host row (host->experiment_id, host->rank) incomplete with
 * host->reason, creating it from host when the merged database has none
 * (a host whose database never reached rank 0); a row there keeps what it
 * holds and gets what it lacks of host's measurements (machine, boot,
 * clock at start and end, sync): nothing rank 0 measured is lost.
 * -EINVAL: no experiment, rank or reason. */
int hosts_mark_incomplete(struct hosts_db *h, const struct hosts_host *host,
			  char **errmsg);

#endif
