/* SPDX-License-Identifier: MIT */
/*
 * The run environment: the host's facts that can decide an A/B result
 * (engine/probe/hostfacts.c finds them) and the mount's own (versions,
 * options), one run_env row per fact; and the tick rate, measured while
 * the mount serves.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

/* How long the tick rate is measured for: 200 ms of CLOCK_MONOTONIC at
 * start, off the read path, stretched to at most 1 s where readings of
 * timer_list are slow (a loaded machine) so that the rate is known within
 * 0.25 Hz and rounds right (engine/probe/env.c). */
#define ENV_HZ_INTERVAL_NS 200000000ULL

struct env {
	struct store *st;
	int rc; /* the first store error */
};

/* One row, its value cut at 4095 bytes as every fact's (hostfacts.c) */
static void put(struct env *e, const char *key, const char *value)
{
	char v[4096];

	if (e->rc < 0)
		return;
	snprintf(v, sizeof(v), "%s", value);
	e->rc = store_env_add(e->st, key, v);
}

/* ---------------------------------------------------------------- all */

static int put_option(void *ctx, const char *key, const char *value)
{
	struct env *e = ctx;
	char k[64];

	snprintf(k, sizeof(k), "opt.%s", key);
	put(e, k, value);
	return e->rc;
}

/* A fact of the host probe, as a row */
static int put_fact(void *ctx, const char *key, const char *value)
{
	struct env *e = ctx;

	put(e, key, value);
	return e->rc;
}

int fs_env_record(struct store *st, const struct fs_config *cfg,
		  const struct fuse_cmdline_opts *fo,
		  const char *release,
		  const struct fs_kconfig *kc)
{
	struct env e = {.st = st, .rc = 0};
	struct eng_probe_io io;
	int lab;

	eng_probe_io_real(&io);
	eng_probe_facts(&io, release, kc ? kc->text : NULL, kc ? kc->len : 0,
			kc ? kc->from : NULL, cfg->media_dir, put_fact, &e,
			&lab);
	/* the page cache would serve what the limits are there to hold */
	if (lab && cfg->backing_v != ENG_BACKING_DIRECT)
		fuse_log(FUSE_LOG_WARNING,
			 "timelinefs: %s is read through a block cgroup's "
			 "limits (run_env lab_*) but backing=%s: page-cache "
			 "hits pass them; backing=direct reads every frame "
			 "from the storage\n",
			 cfg->media_dir,
			 cfg->backing ? cfg->backing : "direct");
	put(&e, "timelinefs_version", TLFS_VERSION);
	put(&e, "fuse_version", fuse_pkgversion());
	put(&e, "sqlite_version", store_sqlite_version());
	if (e.rc == 0) {
		struct fs_config run = *cfg;

		/* -o max_threads= and max_idle_threads= as in effect: -s
		 * runs one thread, whatever they say */
		if (fo && fo->singlethread) {
			run.max_threads = 1;
			run.max_idle_threads = 0;
		}
		fs_config_each(&run, put_option, &e);
	}
	/* libfuse's own, which decide how many threads serve the readers */
	if (fo) {
		put(&e, "opt.single_threaded", fo->singlethread ? "on" : "off");
		put(&e, "opt.clone_fd", fo->clone_fd ? "on" : "off");
	}
	return e.rc;
}

/* ---------------------------------------------------------------- tick */

/* The tick rate as the kernel runs it: jiffies counted over 200 ms or
 * more (root only: timer_list is 0400; /proc/stat counts USER_HZ, always
 * 100, not jiffies).  Measured on a thread of its own while the mount
 * serves, and recorded when the run ends: measured before the mount it
 * held every start back by 250-550 ms (a mount of two clips: 30-90 ms
 * before run_env, 275-560 ms with the measurement in line). */
static void *hz_main(void *arg)
{
	struct fs_env_hz *h = arg;

	h->rc = eng_probe_measure_hz(h->io, ENV_HZ_INTERVAL_NS, &h->hz);
	return NULL;
}

void fs_env_hz_start(struct fs_env_hz *h, const struct eng_io *io)
{
	memset(h, 0, sizeof(*h));
	h->io = io;
	h->rc = -ESRCH;
	h->started = pthread_create(&h->thread, NULL, hz_main, h) == 0;
}

int fs_env_hz_record(struct fs_env_hz *h, struct store *st)
{
	char v[32], from[96];
	int rc;

	if (!h->started)
		return 0;
	pthread_join(h->thread, NULL);
	h->started = 0;
	if (h->rc < 0 || !st)
		return 0;
	snprintf(v, sizeof(v), "%.0f", h->hz);
	snprintf(from, sizeof(from),
		 ENG_PROBE_HZ_FROM " over %llu ms or more",
		 ENV_HZ_INTERVAL_NS / 1000000);
	rc = store_env_add_ended(st, "config_hz_measured", v);
	if (rc == 0)
		rc = store_env_add_ended(st, "config_hz_measured_from", from);
	return rc;
}
