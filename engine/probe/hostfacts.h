/* SPDX-License-Identifier: MIT */
/*
 * The host probe (hostfacts.c): the facts of the host that can decide an
 * A/B result (kernel, tick rate setting, preemption, clocksource, CPU,
 * memory, the media's file system and disk, the read limits of a block
 * cgroup on that disk), found by reading /proc, /sys and the media's
 * mount through an injected struct eng_probe_io (hostread.c: the real
 * one), so that the probe runs on a made-up host in tests.  Each fact is
 * handed to the caller (the mount records it as a run_env row); a fact
 * that cannot be read is not handed, so that a missing value never reads
 * as a value.
 */
#ifndef ENG_HOSTFACTS_H
#define ENG_HOSTFACTS_H

#include <stddef.h>
#include <stdint.h>

/* What eng_probe_io.stat tells of a path: the device it is on, and
 * whether it is a block device file (then the device it is). */
struct eng_probe_stat {
	unsigned dev_major, dev_minor;
	int blk;
	unsigned rdev_major, rdev_minor;
};

struct eng_probe_io {
	void *ctx;
	/* The whole of a file (a NUL after it), up to max bytes; NULL when
	 * it cannot be read.  read_gz inflates a gzip file (a plain one is
	 * read as it is).  Malloc'ed: the caller frees it. */
	char *(*read)(void *ctx, const char *path, size_t max, size_t *len);
	char *(*read_gz)(void *ctx, const char *path, size_t max,
			 size_t *len);
	/* The canonical path of path (links resolved) into out[len]: 0 or
	 * -errno. */
	int (*resolve)(void *ctx, const char *path, char *out, size_t len);
	/* Each entry of folder dir but those starting with '.': fn(arg,
	 * NAME).  0 or -errno. */
	int (*list)(void *ctx, const char *dir,
		    void (*fn)(void *arg, const char *name), void *arg);
	int (*stat)(void *ctx, const char *path, struct eng_probe_stat *st);
	/* The running kernel's version string (uname -v): 0 or -errno. */
	int (*kernel_version)(void *ctx, char *buf, size_t len);
	/* The CPUs this process may run on (taskset, a cgroup), or -errno. */
	int (*cpus_allowed)(void *ctx);
};

/* The real ones (hostread.c). */
void eng_probe_io_real(struct eng_probe_io *io);

/* A fact: 0, or a negative errno that stops the probe (returned). */
typedef int eng_fact_fn(void *ctx, const char *key, const char *value);

/* A one-line file (sysfs, /proc/sys) read through io, line end and blanks
 * trimmed, into buf[len]: 0, -errno (-EIO: unreadable), -ENODATA (empty). */
int eng_probe_line(const struct eng_probe_io *io, const char *path, char *buf,
		   size_t len);

/* The running kernel's build config: /proc/config.gz, else
 * /boot/config-RELEASE, the first that reads and has a CONFIG_HZ line;
 * malloc'ed, *len bytes, its path in from[fromlen]; NULL when neither. */
char *eng_probe_kernel_config(const struct eng_probe_io *io,
			      const char *release, size_t *len, char *from,
			      size_t fromlen);

/* Every fact of the host for a mount of media_dir (canonical, absolute)
 * on kernel release, whose config (NULL: none) was read from config_from:
 * kernel_*, config_hz*, preempt*, clocksource, boot_id, cpu_*,
 * cpus_allowed, mem_total_kb, media_* and, where the block cgroup limits
 * this process's reads of the media's disk, lab_* (*lab set to 1, else
 * 0), each to fn.  0 or fn's first error. */
int eng_probe_facts(const struct eng_probe_io *io, const char *release,
		    const char *config, size_t clen, const char *config_from,
		    const char *media_dir, eng_fact_fn *fn, void *ctx,
		    int *lab);

#endif /* ENG_HOSTFACTS_H */
