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

/* The timer's tick rate measured on the real clock io from
 * /proc/timer_list's jiffies (eng_env_measure_hz over interval_ns, root
 * only: the file is 0400): 0 and *hz, or -errno (hostread.c).  What the
 * rate is measured from, for its row: ENG_PROBE_HZ_FROM. */
struct eng_io;
int eng_probe_measure_hz(const struct eng_io *io, uint64_t interval_ns,
			 double *hz);
#define ENG_PROBE_HZ_FROM "/proc/timer_list jiffies"

/* A fact: 0, or a negative errno that stops the probe (returned). */
typedef int eng_fact_fn(void *ctx, const char *key, const char *value);

/* A one-line file (sysfs, /proc/sys) read through io, line end and blanks
 * trimmed, into buf[len]: 0, -errno (-EIO: unreadable), -ENODATA (empty). */
int eng_probe_line(const struct eng_probe_io *io, const char *path, char *buf,
		   size_t len);

/* The mount (eng_env_mountinfo of /proc/self/mountinfo) that holds the
 * canonical absolute path: 0, -ENOENT (none), -EIO (unreadable). */
struct eng_mount;
int eng_probe_mount_of(const struct eng_probe_io *io, const char *path,
		       struct eng_mount *m);
/* The sysfs file of the readahead window of the mount at mountpoint (its
 * bdi, /sys/class/bdi/MAJ:MIN/read_ahead_kb) into path[len]: 0 or
 * -ENOENT (no such mount), -EIO. */
int eng_probe_readahead_file(const struct eng_probe_io *io,
			     const char *mountpoint, char *path, size_t len);
/* This boot's id (/proc/sys/kernel/random/boot_id) into buf[len]: 0 or
 * -errno. */
int eng_probe_boot_id(const struct eng_probe_io *io, char *buf, size_t len);
/* The machine's id (/etc/machine-id, else /var/lib/dbus/machine-id: one
 * line of 32 hex digits, machine-id(5)), malloc'ed; NULL when neither
 * reads as one. */
char *eng_probe_machine_id(const struct eng_probe_io *io);
/* Process pid's start (/proc/PID/stat starttime, clock ticks after boot):
 * 0, -ENOENT (no such process), -EINVAL. */
int eng_probe_proc_start(const struct eng_probe_io *io, int64_t pid,
			 uint64_t *start);
/* The thread group (process) of thread tid (/proc/TID/status "Tgid:"; a
 * thread that is not its process's main one has a /proc entry too,
 * unlisted): 0 when the thread is gone. */
int64_t eng_probe_tgid(const struct eng_probe_io *io, int64_t tid);
/* The command name of process pid (/proc/PID/comm's line) into buf[len],
 * "?" when it cannot be read. */
void eng_probe_comm(const struct eng_probe_io *io, int64_t pid, char *buf,
		    size_t len);
/* /proc/sys/fs/pipe-max-size in bytes, 0 when unknown. */
unsigned long eng_probe_pipe_max(const struct eng_probe_io *io);

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
