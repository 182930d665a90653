/* SPDX-License-Identifier: MIT */
/*
 * What timelinefs-hosts (hosts/) needs of a host's database beside the
 * rows of schema/hosts.h: the play times of the mount's timelines (a
 * step's expected length and find-max's cap), a step's repetition number
 * in the experiment, and a copy of the database in one file to send to
 * rank 0.  Each call opens its own connection (busy timeout 5 s: the
 * daemon may write the same file).  Errors: -errno style codes and a
 * malloc'ed message in *errmsg (may be NULL) naming the file and reason.
 */
#ifndef STORE_HOSTS_STEP_H
#define STORE_HOSTS_STEP_H

#include <stddef.h>
#include <stdint.h>

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

/* A consistent copy of db in the one file out (VACUUM INTO: the WAL's
 * pages included, none of another writer's half-done transaction); out
 * must not exist. */
int hosts_step_snapshot(const char *db, const char *out, char **errmsg);

#endif
