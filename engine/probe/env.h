/* SPDX-License-Identifier: MIT */
/*
 * The run environment (env.c): parsers of /proc and /sys texts for the run
 * and run_env rows, and the measured timer rate.  The caller (the host
 * probe, hostfacts.h) reads the files; these only parse what it passes,
 * so each is unit-tested on saved texts.
 */
#ifndef ENG_ENV_H
#define ENG_ENV_H

#include <stddef.h>
#include <stdint.h>

/* /proc/cpuinfo: the CPU model (x86 "model name", else "Processor", "cpu
 * model", "cpu", "CPU part"), blanks trimmed, into model[mlen], and the
 * number of "processor" lines into *count.  0, -ENOENT (processors but no
 * model line: *count is set), -EINVAL (neither), -ERANGE (too long). */
int eng_env_cpuinfo(const char *text, size_t len, char *model, size_t mlen,
		    unsigned *count);
/* /proc/meminfo: "KEY:   N kB" into *kb.  0, -ENOENT, -EINVAL. */
int eng_env_meminfo(const char *text, size_t len, const char *key,
		    uint64_t *kb);
/* /proc/timer_list: the line "jiffies: N" into *jiffies.  0, -ENOENT,
 * -EINVAL. */
int eng_env_jiffies(const char *text, size_t len, uint64_t *jiffies);
/* A choice among words, the chosen one marked ("none [mq-deadline] kyber"
 * in sysfs, "none voluntary (full)" in debugfs) or alone ("none"): the
 * chosen word into buf[buflen].  0, -EINVAL, -ERANGE. */
int eng_env_selected(const char *text, size_t len, char *buf,
		     size_t buflen);
/* The kernel command line's KEY=VALUE (the last one, as the kernel takes
 * it; nothing after " -- ", which is init's): VALUE into buf[buflen].  0,
 * -ENOENT, -ERANGE. */
int eng_env_cmdline_get(const char *cmdline, const char *key, char *buf,
			size_t buflen);
/* The preemption model a kernel config (and command line, may be NULL)
 * gives: "rt", "lazy", "full", "voluntary" or "none" from CONFIG_PREEMPT*
 * (what debugfs sched/preempt would show, where it is not readable); a
 * CONFIG_PREEMPT_DYNAMIC kernel booted with preempt=X runs X
 * (*from_cmdline set).  0, -ENOENT, -ERANGE. */
int eng_env_preempt(const char *config, size_t len, const char *cmdline,
		    char *buf, size_t buflen, int *from_cmdline);

/* The mount (of /proc/self/mountinfo's text) that holds the canonical
 * absolute path: the longest mount point that is path or a parent of it,
 * the last of equal ones (mounted over the others).  Escapes (\040) are
 * undone.  options is the mount's own options, a blank, then the super
 * block's. */
struct eng_mount {
	char mount_point[4096];
	char fstype[64];
	char source[4096];
	char options[1024];
	unsigned major, minor;
};
/* 0, or -ENOENT when no line holds path. */
int eng_env_mountinfo(const char *text, size_t len, const char *path,
		      struct eng_mount *m);

/* /proc/PID/stat: the process's start (field 22, starttime, clock ticks
 * after boot; the fields counted after the last ')', the command being
 * anything) into *start.  0, or -EINVAL. */
int eng_env_proc_start(const char *text, size_t len, uint64_t *start);

/* /proc/self/cgroup: this process's group in the block controller's
 * hierarchy, the path of the v1 line "N:CONTROLLERS:PATH" whose
 * controllers name blkio, else of the v2 line "0::PATH" (*v2 set), into
 * path[plen].  0, -ENOENT (neither line), -ERANGE. */
int eng_env_blkcg(const char *text, size_t len, char *path, size_t plen,
		  int *v2);
/* A group's read limit on the device major:minor, from v1
 * blkio.throttle.read_bps_device or read_iops_device ("MAJ:MIN VALUE"
 * lines; key NULL) or v2 io.max ("MAJ:MIN rbps=V wbps=max riops=V
 * wiops=max"; key "rbps" or "riops", where "max" is no limit).  0 and
 * *value, -ENOENT (no limit on that device), -EINVAL (a line unreadable). */
int eng_env_throttle(const char *text, size_t len, unsigned major,
		     unsigned minor, const char *key, uint64_t *value);

/* The timer's tick rate measured: jiffies read through read() (0 or
 * -errno) at 4 consecutive changes at each end of an interval of
 * interval_ns (io's now and sleep_until), each change placed midway
 * between the readings around it (readings more than 1 ms apart are not
 * used), the least late change of each end (a tick is never early) giving
 * the rate.  The interval is stretched (to 5 x interval_ns at most) until
 * the readings' gaps leave an error within 0.25 Hz: the rate rounds to
 * the right whole Hz.  0 and *hz, -ETIMEDOUT (no change of jiffies read
 * closely within 1 s), read()'s error, -EINVAL. */
typedef int eng_jiffies_fn(void *ctx, uint64_t *jiffies);
struct eng_io;
int eng_env_measure_hz(const struct eng_io *io, eng_jiffies_fn *read,
		       void *ctx, uint64_t interval_ns, double *hz);

#endif /* ENG_ENV_H */
