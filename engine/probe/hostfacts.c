/* SPDX-License-Identifier: MIT */
/*
 * The host probe (hostfacts.h): which /proc and /sys files tell the facts
 * that can decide an A/B result, read through struct eng_probe_io and
 * parsed by env.c.  The media's disk is followed down what stacks on it
 * (a partition's disk, device-mapper and md slaves, a loop device's file)
 * to whole disks, and the block cgroup's read limits on it are read from
 * this process's group and its ancestors.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/env.h"
#include "probe/hostfacts.h"
#include "probe/kconfig.h"
#include "util/values.h"

/* Disks under a device-mapper or md device, and how deep they stack. */
#define ENV_MAX_DISKS 16
#define ENV_MAX_DEPTH 4

struct env {
	const struct eng_probe_io *io;
	eng_fact_fn *fn;
	void *ctx;
	int rc; /* fn's first error */
};

static void put(struct env *e, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void put(struct env *e, const char *key, const char *fmt, ...)
{
	char v[4096];
	va_list ap;

	if (e->rc < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	e->rc = e->fn(e->ctx, key, v);
}

int eng_probe_line(const struct eng_probe_io *io, const char *path, char *buf,
		   size_t len)
{
	size_t n;
	char *t = io->read(io->ctx, path, 65536, &n);

	if (!t)
		return -EIO;
	while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
		t[--n] = '\0';
	snprintf(buf, len, "%s", t);
	free(t);
	return buf[0] ? 0 : -ENODATA;
}

/* Whether a file can be read (sysfs's flag files: "partition") */
static int exists(const struct eng_probe_io *io, const char *path)
{
	size_t n;
	char *t = io->read(io->ctx, path, 4096, &n);

	free(t);
	return t != NULL;
}

int eng_probe_mount_of(const struct eng_probe_io *io, const char *path,
		       struct eng_mount *m)
{
	size_t n;
	char *t = io->read(io->ctx, "/proc/self/mountinfo", 64u << 20, &n);
	int rc;

	if (!t)
		return -EIO;
	rc = eng_env_mountinfo(t, n, path, m);
	free(t);
	return rc;
}

int eng_probe_readahead_file(const struct eng_probe_io *io,
			     const char *mountpoint, char *path, size_t len)
{
	struct eng_mount *m = malloc(sizeof(*m));
	int rc = m ? eng_probe_mount_of(io, mountpoint, m) : -ENOMEM;

	/* the mount itself, not one it is on */
	if (rc == 0 && strcmp(m->mount_point, mountpoint) != 0)
		rc = -ENOENT;
	if (rc == 0)
		snprintf(path, len, "/sys/class/bdi/%u:%u/read_ahead_kb",
			 m->major, m->minor);
	free(m);
	return rc;
}

int eng_probe_boot_id(const struct eng_probe_io *io, char *buf, size_t len)
{
	return eng_probe_line(io, "/proc/sys/kernel/random/boot_id", buf, len);
}

/* One line of 32 hex digits (machine-id(5)); NULL otherwise. */
static char *machine_id(const struct eng_probe_io *io, const char *path)
{
	char buf[64];
	size_t n, i;
	char *t = io->read(io->ctx, path, sizeof(buf) - 1, &n);

	if (!t)
		return NULL;
	snprintf(buf, sizeof(buf), "%s", t);
	free(t);
	buf[strcspn(buf, "\n")] = '\0';
	if (strlen(buf) != 32)
		return NULL;
	for (i = 0; i < 32; i++)
		if (!strchr("0123456789abcdefABCDEF", buf[i]))
			return NULL;
	return strdup(buf);
}

char *eng_probe_machine_id(const struct eng_probe_io *io)
{
	char *id = machine_id(io, "/etc/machine-id");

	return id ? id : machine_id(io, "/var/lib/dbus/machine-id");
}

int eng_probe_proc_start(const struct eng_probe_io *io, int64_t pid,
			 uint64_t *start)
{
	char path[64], *t;
	size_t n;
	int rc;

	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
	t = io->read(io->ctx, path, 4096, &n);
	if (!t)
		return -ENOENT;
	rc = eng_env_proc_start(t, n, start);
	free(t);
	return rc;
}

int64_t eng_probe_tgid(const struct eng_probe_io *io, int64_t tid)
{
	char path[64], *t;
	const char *v;
	long long tgid = 0;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%lld/status", (long long)tid);
	t = io->read(io->ctx, path, 65536, &n);
	if (!t)
		return 0;
	v = strstr(t, "\nTgid:");
	if (v && sscanf(v + 6, "%lld", &tgid) != 1)
		tgid = 0;
	free(t);
	return tgid > 0 ? tgid : 0;
}

void eng_probe_comm(const struct eng_probe_io *io, int64_t pid, char *buf,
		    size_t len)
{
	char path[64], *t;
	size_t n;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%lld/comm", (long long)pid);
	t = io->read(io->ctx, path, 4096, &n);
	if (t && n > 0) {
		t[strcspn(t, "\n")] = '\0';
		snprintf(buf, len, "%s", t);
	}
	free(t);
}

unsigned long eng_probe_pipe_max(const struct eng_probe_io *io)
{
	char v[64];

	return eng_probe_line(io, "/proc/sys/fs/pipe-max-size", v,
			      sizeof(v)) == 0 ? strtoul(v, NULL, 10) : 0;
}

/*
 * The running kernel's own config (/proc/config.gz, CONFIG_IKCONFIG_PROC)
 * or else the one installed beside it (/boot/config-RELEASE): the first
 * that reads and has a CONFIG_HZ line.  Capped: a config is a few hundred
 * KiB.
 */
char *eng_probe_kernel_config(const struct eng_probe_io *io,
			      const char *release, size_t *len, char *from,
			      size_t fromlen)
{
	char boot[512];
	const char *paths[] = { "/proc/config.gz", boot };
	size_t i;

	snprintf(boot, sizeof(boot), "/boot/config-%s", release);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char *text = io->read_gz(io->ctx, paths[i], 16u << 20, len);

		if (text && eng_kconfig_hz(text, *len) != -ENOENT) {
			snprintf(from, fromlen, "%s", paths[i]);
			return text;
		}
		free(text);
	}
	return NULL;
}

/* ---------------------------------------------------------------- kernel */

/* The preemption model running now, where debugfs shows it; else the one
 * the config (and preempt= of a PREEMPT_DYNAMIC kernel) starts with. */
static void preempt_facts(struct env *e, const char *config, size_t clen,
			  const char *from, const char *cmd)
{
	char t[256], m[32];
	int dyn;

	if (eng_probe_line(e->io, "/sys/kernel/debug/sched/preempt", t,
			   sizeof(t)) == 0 &&
	    eng_env_selected(t, strlen(t), m, sizeof(m)) == 0) {
		put(e, "preempt", "%s", m);
		put(e, "preempt_from", "/sys/kernel/debug/sched/preempt");
	} else if (config &&
		   eng_env_preempt(config, clen, cmd, m, sizeof(m), &dyn) == 0) {
		put(e, "preempt", "%s", m);
		if (dyn)
			put(e, "preempt_from", "preempt= of "
			    "/proc/cmdline (CONFIG_PREEMPT_DYNAMIC)");
		else
			put(e, "preempt_from", "CONFIG_PREEMPT* of %s", from);
	}
}

static void kernel_facts(struct env *e, const char *release,
			 const char *config, size_t clen, const char *from)
{
	char buf[4096], cmd[4096] = "";
	int hz;

	put(e, "kernel_release", "%s", release);
	if (e->io->kernel_version(e->io->ctx, buf, sizeof(buf)) == 0)
		put(e, "kernel_version", "%s", buf);
	if (eng_probe_line(e->io, "/proc/cmdline", cmd, sizeof(cmd)) == 0)
		put(e, "kernel_cmdline", "%s", cmd);
	from = from ? from : "";
	hz = config ? eng_kconfig_hz(config, clen) : -ENOENT;
	if (hz > 0) {
		put(e, "config_hz", "%d", hz);
		put(e, "config_hz_from", "%s", from);
	}
	preempt_facts(e, config, clen, from, cmd);
	if (eng_probe_line(e->io, "/sys/devices/system/clocksource/"
			   "clocksource0/current_clocksource", buf,
			   sizeof(buf)) == 0)
		put(e, "clocksource", "%s", buf);
	/* which boot: runs of one label on two boots are two sessions of
	 * the machine (timelinefs-report --compare counts them) */
	if (eng_probe_line(e->io, "/proc/sys/kernel/random/boot_id", buf,
			   sizeof(buf)) == 0)
		put(e, "boot_id", "%s", buf);
}

/* ---------------------------------------------------------------- host */

static void host_facts(struct env *e)
{
	char model[256], gov[512] = "", path[96], g[64];
	unsigned count = 0, i;
	uint64_t kb;
	size_t n;
	char *t;
	int cpus;

	t = e->io->read(e->io->ctx, "/proc/cpuinfo", 16u << 20, &n);
	if (t) {
		int rc = eng_env_cpuinfo(t, n, model, sizeof(model), &count);

		if (rc == 0)
			put(e, "cpu_model", "%s", model);
		if (count)
			put(e, "cpu_count", "%u", count);
		free(t);
	}
	/* taskset or a cgroup may give the daemon fewer */
	cpus = e->io->cpus_allowed(e->io->ctx);
	if (cpus >= 0)
		put(e, "cpus_allowed", "%d", cpus);
	/* the governors in use, each once, in CPU order */
	for (i = 0; i < count && i < 4096; i++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/cpufreq/"
			 "scaling_governor", i);
		if (eng_probe_line(e->io, path, g, sizeof(g)) < 0)
			continue;
		if (!strstr(gov, g) &&
		    strlen(gov) + strlen(g) + 2 < sizeof(gov)) {
			if (gov[0])
				strcat(gov, ",");
			strcat(gov, g);
		}
	}
	if (gov[0])
		put(e, "cpu_governor", "%s", gov);
	t = e->io->read(e->io->ctx, "/proc/meminfo", 1u << 20, &n);
	if (t) {
		if (eng_env_meminfo(t, n, "MemTotal", &kb) == 0)
			put(e, "mem_total_kb", "%llu", (unsigned long long)kb);
		free(t);
	}
}

/* ---------------------------------------------------------------- media */

struct disks {
	char name[ENV_MAX_DISKS][64];
	char sched[ENV_MAX_DISKS][64];
	char rot[ENV_MAX_DISKS][8];
	int n;
	char loop_backing[PATH_MAX];
};

/* strlcpy: a sysfs name too long for its field is cut, not overrun */
static void copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The sysfs folder of block device major:minor, into out[PATH_MAX]. */
static int sysfs_dev(const struct eng_probe_io *io, unsigned ma, unsigned mi,
		     char *out)
{
	char link[64];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", ma, mi);
	return io->resolve(io->ctx, link, out, PATH_MAX);
}

static void add_disks(const struct eng_probe_io *io, const char *sys,
		      int depth, struct disks *ds);

/* A slave of a stacked device: its disks. */
struct slaves {
	const struct eng_probe_io *io;
	const char *dir;
	int depth;
	struct disks *ds;
	int any;
};

static void add_slave(void *arg, const char *name)
{
	struct slaves *s = arg;
	char q[PATH_MAX + 300], d[PATH_MAX];

	snprintf(q, sizeof(q), "%s/%s", s->dir, name);
	if (s->io->resolve(s->io->ctx, q, d, sizeof(d)) == 0) {
		add_disks(s->io, d, s->depth + 1, s->ds);
		s->any = 1;
	}
}

/* A whole disk's name, I/O scheduler and rotational flag, once. */
static void add_disk(const struct eng_probe_io *io, const char *disk,
		     struct disks *ds)
{
	char p[PATH_MAX + 32], v[PATH_MAX];
	const char *name = strrchr(disk, '/');
	int i;

	name = name ? name + 1 : disk;
	for (i = 0; i < ds->n; i++)
		if (strcmp(ds->name[i], name) == 0)
			return;
	i = ds->n++;
	copy(ds->name[i], sizeof(ds->name[i]), name);
	snprintf(p, sizeof(p), "%s/queue/scheduler", disk);
	if (eng_probe_line(io, p, v, sizeof(v)) < 0 ||
	    eng_env_selected(v, strlen(v), ds->sched[i],
			     sizeof(ds->sched[i])) < 0)
		snprintf(ds->sched[i], sizeof(ds->sched[i]), "?");
	snprintf(p, sizeof(p), "%s/queue/rotational", disk);
	if (eng_probe_line(io, p, ds->rot[i], sizeof(ds->rot[i])) < 0)
		snprintf(ds->rot[i], sizeof(ds->rot[i]), "?");
}

/* The whole disk of a block device's sysfs folder: a partition's parent
 * (the folder that holds it); then what stacks under it (slaves of
 * device-mapper and md, the file behind a loop device) down to disks. */
static void add_disks(const struct eng_probe_io *io, const char *sys,
		      int depth, struct disks *ds)
{
	char p[PATH_MAX + 32], disk[PATH_MAX], d[PATH_MAX], v[PATH_MAX];
	struct slaves sl = { io, p, depth, ds, 0 };
	struct eng_probe_stat sb;

	if (depth > ENV_MAX_DEPTH || ds->n >= ENV_MAX_DISKS)
		return;
	copy(disk, sizeof(disk), sys);
	snprintf(p, sizeof(p), "%s/partition", sys);
	if (exists(io, p)) {
		char *slash = strrchr(disk, '/');

		if (slash)
			*slash = '\0';
	}
	/* stacked: device-mapper (LVM, crypt), md RAID */
	snprintf(p, sizeof(p), "%s/slaves", disk);
	io->list(io->ctx, p, add_slave, &sl);
	if (sl.any)
		return;
	/* a loop device: the disk of the file system of its file */
	snprintf(p, sizeof(p), "%s/loop/backing_file", disk);
	if (eng_probe_line(io, p, v, sizeof(v)) == 0) {
		if (!ds->loop_backing[0])
			copy(ds->loop_backing, sizeof(ds->loop_backing), v);
		if (io->stat(io->ctx, v, &sb) == 0 && sb.dev_major != 0 &&
		    sysfs_dev(io, sb.dev_major, sb.dev_minor, d) == 0)
			add_disks(io, d, depth + 1, ds);
		return;
	}
	add_disk(io, disk, ds);
}

/* The smallest limit on major:minor of the group dir and its ancestors up
 * to root (a group's reads are held to every ancestor's limit too): file
 * is blkio.throttle.read_bps_device / read_iops_device (key NULL) or
 * io.max (key rbps / riops).  0 and *value, or -ENOENT. */
static int group_limit(const struct eng_probe_io *io, const char *root,
		       const char *dir, const char *file, const char *key,
		       unsigned ma, unsigned mi, uint64_t *value)
{
	char d[PATH_MAX], p[PATH_MAX + 64];
	size_t rlen = strlen(root);
	int found = -ENOENT;

	copy(d, sizeof(d), dir);
	for (;;) {
		size_t n;
		char *t;
		uint64_t v;

		snprintf(p, sizeof(p), "%s/%s", d, file);
		t = io->read(io->ctx, p, 1u << 20, &n);
		if (t && eng_env_throttle(t, n, ma, mi, key, &v) == 0 &&
		    (found < 0 || v < *value)) {
			*value = v;
			found = 0;
		}
		free(t);
		if (strlen(d) <= rlen)
			break;
		t = strrchr(d, '/');
		if (!t || (size_t)(t - d) < rlen)
			break;
		*t = '\0';
	}
	return found;
}

/* Undo the octal escapes of a /proc/self/mounts field (\040 a blank) in
 * place, as getmntent does. */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Whether the comma-separated options hold opt (alone or opt=...), as
 * hasmntopt finds it. */
static int has_opt(const char *opts, const char *opt)
{
	size_t n = strlen(opt);
	const char *p = opts;

	while (p && *p) {
		if (strncmp(p, opt, n) == 0 &&
		    (p[n] == '\0' || p[n] == ',' || p[n] == '='))
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/* The mount point of the block cgroup hierarchy (/proc/self/mounts): v1's
 * with blkio among its options, or v2's */
static int blkcg_root(const struct eng_probe_io *io, int v2, char *out,
		      size_t len)
{
	size_t n, i = 0, ln;
	char *t = io->read(io->ctx, "/proc/self/mounts", 64u << 20, &n);
	const char *line;
	int rc = -ENOENT;

	while (t && rc < 0 && (line = eng_next_line(t, n, &i, &ln))) {
		char l[8192], dir[4096], type[64], opts[4096];

		if (ln >= sizeof(l))
			continue;
		memcpy(l, line, ln);
		l[ln] = '\0';
		/* SOURCE DIR TYPE OPTIONS FREQ PASSNO */
		if (sscanf(l, "%*s %4095s %63s %4095s", dir, type, opts) != 3)
			continue;
		if (v2 ? strcmp(type, "cgroup2") == 0 :
			 strcmp(type, "cgroup") == 0 && has_opt(opts, "blkio")) {
			unescape(dir);
			copy(out, len, dir);
			rc = 0;
		}
	}
	free(t);
	return rc;
}

/* A storage of known capacity (timelinefs-lab, or any throttled group):
 * the read limits the kernel holds this process to on the media's disk
 * (the whole disk of sys: the block cgroup throttles disks), read from
 * the group the process is in, which no option or variable can misstate.
 * 1 when there are limits, else 0. */
static int lab_facts(struct env *e, const char *sys)
{
	char p[PATH_MAX + 32], v[64], cg[PATH_MAX], root[PATH_MAX];
	char dir[2 * PATH_MAX];
	const struct eng_probe_io *io = e->io;
	unsigned ma, mi;
	uint64_t bps = 0, iops = 0;
	int v2, has_bps, has_iops;
	size_t n;
	char *t;

	snprintf(p, sizeof(p), "%s/partition", sys);
	snprintf(p, sizeof(p), exists(io, p) ? "%s/../dev" : "%s/dev", sys);
	if (eng_probe_line(io, p, v, sizeof(v)) < 0 ||
	    sscanf(v, "%u:%u", &ma, &mi) != 2)
		return 0;
	t = io->read(io->ctx, "/proc/self/cgroup", 1u << 20, &n);
	if (!t || eng_env_blkcg(t, n, cg, sizeof(cg), &v2) < 0 ||
	    blkcg_root(io, v2, root, sizeof(root)) < 0) {
		free(t);
		return 0;
	}
	free(t);
	snprintf(dir, sizeof(dir), "%s%s", root, strcmp(cg, "/") ? cg : "");
	has_bps = group_limit(io, root, dir,
			      v2 ? "io.max" : "blkio.throttle.read_bps_device",
			      v2 ? "rbps" : NULL, ma, mi, &bps) == 0;
	has_iops = group_limit(io, root, dir,
			       v2 ? "io.max" :
				    "blkio.throttle.read_iops_device",
			       v2 ? "riops" : NULL, ma, mi, &iops) == 0;
	if (!has_bps && !has_iops)
		return 0;
	put(e, "lab_cgroup", "%s:%s", v2 ? "io" : "blkio", cg);
	put(e, "lab_device", "%u:%u", ma, mi);
	if (has_bps)
		put(e, "lab_read_bps", "%llu", (unsigned long long)bps);
	if (has_iops)
		put(e, "lab_read_iops", "%llu", (unsigned long long)iops);
	return 1;
}

/* "a,b,c" of the disks' field */
static void join(char *out, size_t len, const struct disks *ds, int field)
{
	size_t o = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < ds->n && o < len; i++) {
		const char *v = field == 0 ? ds->name[i] :
				field == 1 ? ds->sched[i] : ds->rot[i];

		o += (size_t)snprintf(out + o, len - o, "%s%s", i ? "," : "",
				      v);
	}
}

/* The media's block device's sysfs folder into sys[PATH_MAX]: its number
 * in mountinfo, or (btrfs shows an anonymous 0:N) the device file named
 * as the source; tmpfs, NFS, overlay and FUSE have none (-ENODEV). */
static int media_dev(const struct eng_probe_io *io, const struct eng_mount *m,
		     char *sys)
{
	struct eng_probe_stat sb;

	if (m->major != 0)
		return sysfs_dev(io, m->major, m->minor, sys);
	if (strncmp(m->source, "/dev/", 5) == 0 &&
	    io->stat(io->ctx, m->source, &sb) == 0 && sb.blk)
		return sysfs_dev(io, sb.rdev_major, sb.rdev_minor, sys);
	return -ENODEV;
}

/* The media's disk facts; 1 when it is read through a limited block
 * cgroup */
static int disk_facts(struct env *e, const char *sys, struct disks *ds)
{
	char p[PATH_MAX + 32], v[64], out[2048];
	const char *name = strrchr(sys, '/');
	int lab;

	put(e, "media_device", "%s", name ? name + 1 : sys);
	/* the page cache reads ahead by the device's own queue; a
	 * partition has none and uses its disk's */
	snprintf(p, sizeof(p), "%s/queue/read_ahead_kb", sys);
	if (eng_probe_line(e->io, p, v, sizeof(v)) < 0) {
		snprintf(p, sizeof(p), "%s/../queue/read_ahead_kb", sys);
		if (eng_probe_line(e->io, p, v, sizeof(v)) < 0)
			v[0] = '\0';
	}
	if (v[0])
		put(e, "media_read_ahead_kb", "%s", v);
	lab = lab_facts(e, sys);
	add_disks(e->io, sys, 0, ds);
	if (ds->loop_backing[0])
		put(e, "media_loop_file", "%s", ds->loop_backing);
	if (ds->n) {
		join(out, sizeof(out), ds, 0);
		put(e, "media_disk", "%s", out);
		join(out, sizeof(out), ds, 1);
		put(e, "media_io_scheduler", "%s", out);
		join(out, sizeof(out), ds, 2);
		put(e, "media_rotational", "%s", out);
	}
	return lab;
}

/* 1 when the media's disk is read through a limited block cgroup */
static int media_facts(struct env *e, const char *media_dir)
{
	struct eng_mount *m = malloc(sizeof(*m));
	struct disks *ds = calloc(1, sizeof(*ds));
	char sys[PATH_MAX];
	int lab = 0;

	if (!m || !ds || eng_probe_mount_of(e->io, media_dir, m) < 0)
		goto out;
	put(e, "media_fs_type", "%s", m->fstype);
	put(e, "media_mount_point", "%s", m->mount_point);
	put(e, "media_mount_source", "%s", m->source);
	put(e, "media_mount_options", "%s", m->options);
	if (media_dev(e->io, m, sys) == 0)
		lab = disk_facts(e, sys, ds);
out:
	free(m);
	free(ds);
	return lab;
}

int eng_probe_facts(const struct eng_probe_io *io, const char *release,
		    const char *config, size_t clen, const char *config_from,
		    const char *media_dir, eng_fact_fn *fn, void *ctx,
		    int *lab)
{
	struct env e = { .io = io, .fn = fn, .ctx = ctx, .rc = 0 };

	kernel_facts(&e, release ? release : "?", config, clen, config_from);
	host_facts(&e);
	*lab = media_facts(&e, media_dir);
	return e.rc;
}
