/* SPDX-License-Identifier: MIT */
/*
 * The run environment: reads the /proc and /sys files that can decide an
 * A/B result (kernel, tick rate, preemption, clocksource, CPU, memory, the
 * media's file system and disk, the read limits of a block cgroup on that
 * disk, versions, options) and writes one run_env
 * row per fact.  engine/probe/env.c parses; a fact that cannot be read has no
 * row, so that a missing value never reads as a value.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fs.h"

/* How long the tick rate is measured for: 200 ms of CLOCK_MONOTONIC at
 * start, off the read path, stretched to at most 1 s where readings of
 * timer_list are slow (a loaded machine) so that the rate is known within
 * 0.25 Hz and rounds right (engine/probe/env.c). */
#define ENV_HZ_INTERVAL_NS 200000000ULL
/* Disks under a device-mapper or md device, and how deep they stack. */
#define ENV_MAX_DISKS 16
#define ENV_MAX_DEPTH 4

struct env {
	struct store *st;
	int rc; /* the first store error */
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
	e->rc = store_env_add(e->st, key, v);
}

/* The whole of a /proc or /sys file (a NUL after it), up to max bytes;
 * NULL when it cannot be read.  The caller frees it. */
static char *read_all(const char *path, size_t max, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t r = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || !buf)
		goto fail;
	for (;;) {
		if (n + 1 >= cap) {
			if (cap >= max)
				break;
			p = realloc(buf, cap * 2);
			if (!p)
				goto fail;
			buf = p;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (r < 0)
		goto fail;
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

char *fs_read_file(const char *path, size_t max, size_t *len)
{
	return read_all(path, max, len);
}

/* fs.h */
int fs_read_line(const char *path, char *buf, size_t len)
{
	size_t n;
	char *t = read_all(path, 65536, &n);

	if (!t)
		return -errno ? -errno : -EIO;
	while (n && (t[n - 1] == '\n' || t[n - 1] == ' '))
		t[--n] = '\0';
	snprintf(buf, len, "%s", t);
	free(t);
	return buf[0] ? 0 : -ENODATA;
}

/* ---------------------------------------------------------------- kernel */

/* jiffies from /proc/timer_list, for eng_env_measure_hz: the file is read
 * only as far as its first "jiffies:" line (after the first CPU's
 * timers), so that a machine of many CPUs reads as quickly as this one. */
struct jiffies_src {
	int fd;
	char buf[65536];
};

static int read_jiffies(void *ctx, uint64_t *j)
{
	struct jiffies_src *s = ctx;
	size_t n = 0;
	ssize_t r;

	if (lseek(s->fd, 0, SEEK_SET) < 0)
		return -errno;
	while (n < sizeof(s->buf)) {
		const char *at;

		r = read(s->fd, s->buf + n, sizeof(s->buf) - n);
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
		at = memmem(s->buf, n, "\njiffies:", 9);
		if (at && memchr(at + 1, '\n', (size_t)(s->buf + n - at - 1)))
			break;
	}
	return eng_env_jiffies(s->buf, n, j);
}

static void kernel_facts(struct env *e, const char *release,
			 const struct fs_kconfig *kc)
{
	char buf[4096], cmd[4096] = "";
	const char *config, *from;
	struct utsname u;
	size_t clen;
	int hz, dyn;

	put(e, "kernel_release", "%s", release);
	if (uname(&u) == 0)
		put(e, "kernel_version", "%s", u.version);
	if (fs_read_line("/proc/cmdline", cmd, sizeof(cmd)) == 0)
		put(e, "kernel_cmdline", "%s", cmd);

	config = kc ? kc->text : NULL;
	clen = kc ? kc->len : 0;
	from = kc ? kc->from : "";
	hz = config ? eng_kconfig_hz(config, clen) : -ENOENT;
	if (hz > 0) {
		put(e, "config_hz", "%d", hz);
		put(e, "config_hz_from", "%s", from);
	}

	/* the model running now, where debugfs shows it; else the one the
	 * config (and preempt= of a PREEMPT_DYNAMIC kernel) starts with */
	{
		char t[256], m[32];

		if (fs_read_line("/sys/kernel/debug/sched/preempt", t,
			      sizeof(t)) == 0 &&
		    eng_env_selected(t, strlen(t), m, sizeof(m)) == 0) {
			put(e, "preempt", "%s", m);
			put(e, "preempt_from",
			    "/sys/kernel/debug/sched/preempt");
		} else if (config && eng_env_preempt(config, clen, cmd, m,
						     sizeof(m), &dyn) == 0) {
			put(e, "preempt", "%s", m);
			if (dyn)
				put(e, "preempt_from",
				    "preempt= of "
				    "/proc/cmdline (CONFIG_PREEMPT_DYNAMIC)");
			else
				put(e, "preempt_from", "CONFIG_PREEMPT* of %s",
				    from);
		}
	}

	if (fs_read_line("/sys/devices/system/clocksource/clocksource0/"
		      "current_clocksource",
		      buf, sizeof(buf)) == 0)
		put(e, "clocksource", "%s", buf);
	/* which boot: runs of one label on two boots are two sessions of
	 * the machine (timelinefs-report --compare counts them) */
	if (fs_read_line("/proc/sys/kernel/random/boot_id", buf, sizeof(buf)) == 0)
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
	cpu_set_t set;

	t = read_all("/proc/cpuinfo", 16u << 20, &n);
	if (t) {
		int rc = eng_env_cpuinfo(t, n, model, sizeof(model), &count);

		if (rc == 0)
			put(e, "cpu_model", "%s", model);
		if (count)
			put(e, "cpu_count", "%u", count);
		free(t);
	}
	/* taskset or a cgroup may give the daemon fewer */
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		put(e, "cpus_allowed", "%d", CPU_COUNT(&set));
	/* the governors in use, each once, in CPU order */
	for (i = 0; i < count && i < 4096; i++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%u/"
			 "cpufreq/scaling_governor",
			 i);
		if (fs_read_line(path, g, sizeof(g)) < 0)
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
	t = read_all("/proc/meminfo", 1u << 20, &n);
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

static int sysfs_dev(dev_t d, char *out)
{
	char link[64];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(d),
		 minor(d));
	return realpath(link, out) ? 0 : -errno;
}

static void add_disks(const char *sys, int depth, struct disks *ds);

/* The whole disk of a block device's sysfs folder: a partition's parent
 * (the folder that holds it); then what stacks under it (slaves of
 * device-mapper and md, the file behind a loop device) down to disks. */
static void add_disks(const char *sys, int depth, struct disks *ds)
{
	char p[PATH_MAX + 32], disk[PATH_MAX], d[PATH_MAX], v[PATH_MAX];
	struct stat sb;
	const char *name;
	int i;

	if (depth > ENV_MAX_DEPTH || ds->n >= ENV_MAX_DISKS)
		return;
	copy(disk, sizeof(disk), sys);
	snprintf(p, sizeof(p), "%s/partition", sys);
	if (access(p, F_OK) == 0) {
		char *slash = strrchr(disk, '/');

		if (slash)
			*slash = '\0';
	}
	/* stacked: device-mapper (LVM, crypt), md RAID */
	snprintf(p, sizeof(p), "%s/slaves", disk);
	{
		DIR *dir = opendir(p);
		struct dirent *de;
		int any = 0;

		while (dir && (de = readdir(dir))) {
			char q[PATH_MAX + 300];

			if (de->d_name[0] == '.')
				continue;
			snprintf(q, sizeof(q), "%s/%s", p, de->d_name);
			if (realpath(q, d)) {
				add_disks(d, depth + 1, ds);
				any = 1;
			}
		}
		if (dir)
			closedir(dir);
		if (any)
			return;
	}
	/* a loop device: the disk of the file system of its file */
	snprintf(p, sizeof(p), "%s/loop/backing_file", disk);
	if (fs_read_line(p, v, sizeof(v)) == 0) {
		if (!ds->loop_backing[0])
			copy(ds->loop_backing, sizeof(ds->loop_backing), v);
		if (stat(v, &sb) == 0 && major(sb.st_dev) != 0 &&
		    sysfs_dev(sb.st_dev, d) == 0)
			add_disks(d, depth + 1, ds);
		return;
	}
	name = strrchr(disk, '/');
	name = name ? name + 1 : disk;
	for (i = 0; i < ds->n; i++)
		if (strcmp(ds->name[i], name) == 0)
			return;
	i = ds->n++;
	copy(ds->name[i], sizeof(ds->name[i]), name);
	snprintf(p, sizeof(p), "%s/queue/scheduler", disk);
	if (fs_read_line(p, v, sizeof(v)) < 0 ||
	    eng_env_selected(v, strlen(v), ds->sched[i], sizeof(ds->sched[i])) <
		0)
		snprintf(ds->sched[i], sizeof(ds->sched[i]), "?");
	snprintf(p, sizeof(p), "%s/queue/rotational", disk);
	if (fs_read_line(p, ds->rot[i], sizeof(ds->rot[i])) < 0)
		snprintf(ds->rot[i], sizeof(ds->rot[i]), "?");
}

/* The smallest limit on major:minor of the group dir and its ancestors up
 * to root (a group's reads are held to every ancestor's limit too): file
 * is blkio.throttle.read_bps_device / read_iops_device (key NULL) or
 * io.max (key rbps / riops).  0 and *value, or -ENOENT. */
static int group_limit(const char *root, const char *dir, const char *file,
		       const char *key, unsigned ma, unsigned mi,
		       uint64_t *value)
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
		t = read_all(p, 1u << 20, &n);
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

/* The mount point of the block cgroup hierarchy: v1's with blkio among
 * its options, or v2's */
static int blkcg_root(int v2, char *out, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "r");
	struct mntent *m;
	int rc = -ENOENT;

	while (f && (m = getmntent(f))) {
		if (v2 ? strcmp(m->mnt_type, "cgroup2") == 0
		       : strcmp(m->mnt_type, "cgroup") == 0 &&
			     hasmntopt(m, "blkio")) {
			copy(out, len, m->mnt_dir);
			rc = 0;
			break;
		}
	}
	if (f)
		endmntent(f);
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
	unsigned ma, mi;
	uint64_t bps = 0, iops = 0;
	int v2, has_bps, has_iops;
	size_t n;
	char *t;

	snprintf(p, sizeof(p), "%s/partition", sys);
	snprintf(p, sizeof(p), access(p, F_OK) == 0 ? "%s/../dev" : "%s/dev",
		 sys);
	if (fs_read_line(p, v, sizeof(v)) < 0 || sscanf(v, "%u:%u", &ma, &mi) != 2)
		return 0;
	t = read_all("/proc/self/cgroup", 1u << 20, &n);
	if (!t || eng_env_blkcg(t, n, cg, sizeof(cg), &v2) < 0 ||
	    blkcg_root(v2, root, sizeof(root)) < 0) {
		free(t);
		return 0;
	}
	free(t);
	snprintf(dir, sizeof(dir), "%s%s", root, strcmp(cg, "/") ? cg : "");
	has_bps = group_limit(root, dir,
			      v2 ? "io.max" : "blkio.throttle.read_bps_device",
			      v2 ? "rbps" : NULL, ma, mi, &bps) == 0;
	has_iops =
	    group_limit(root, dir,
			v2 ? "io.max" : "blkio.throttle.read_iops_device",
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
		const char *v = field == 0   ? ds->name[i]
				: field == 1 ? ds->sched[i]
					     : ds->rot[i];

		o +=
		    (size_t)snprintf(out + o, len - o, "%s%s", i ? "," : "", v);
	}
}

/* 1 when the media's disk is read through a limited block cgroup */
static int media_facts(struct env *e, const char *media_dir)
{
	struct eng_mount *m = malloc(sizeof(*m));
	struct disks *ds = calloc(1, sizeof(*ds));
	char sys[PATH_MAX], p[PATH_MAX + 32], v[64], out[2048];
	struct stat sb;
	dev_t dev = 0;
	size_t n;
	char *t = read_all("/proc/self/mountinfo", 64u << 20, &n);
	int lab = 0;

	if (!t || !m || !ds || eng_env_mountinfo(t, n, media_dir, m) < 0)
		goto out;
	put(e, "media_fs_type", "%s", m->fstype);
	put(e, "media_mount_point", "%s", m->mount_point);
	put(e, "media_mount_source", "%s", m->source);
	put(e, "media_mount_options", "%s", m->options);
	/* a block device: its number in mountinfo, or (btrfs shows an
	 * anonymous 0:N) the device file named as the source; tmpfs, NFS,
	 * overlay and FUSE have none */
	if (m->major != 0)
		dev = makedev(m->major, m->minor);
	else if (strncmp(m->source, "/dev/", 5) == 0 &&
		 stat(m->source, &sb) == 0 && S_ISBLK(sb.st_mode))
		dev = sb.st_rdev;
	if (!dev || sysfs_dev(dev, sys) < 0)
		goto out;
	{
		const char *name = strrchr(sys, '/');

		put(e, "media_device", "%s", name ? name + 1 : sys);
	}
	/* the page cache reads ahead by the device's own queue; a
	 * partition has none and uses its disk's */
	snprintf(p, sizeof(p), "%s/queue/read_ahead_kb", sys);
	if (fs_read_line(p, v, sizeof(v)) < 0) {
		snprintf(p, sizeof(p), "%s/../queue/read_ahead_kb", sys);
		if (fs_read_line(p, v, sizeof(v)) < 0)
			v[0] = '\0';
	}
	if (v[0])
		put(e, "media_read_ahead_kb", "%s", v);
	lab = lab_facts(e, sys);
	add_disks(sys, 0, ds);
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
out:
	free(t);
	free(m);
	free(ds);
	return lab;
}

/* ---------------------------------------------------------------- all */

static int put_option(void *ctx, const char *key, const char *value)
{
	struct env *e = ctx;
	char k[64];

	snprintf(k, sizeof(k), "opt.%s", key);
	put(e, k, "%s", value);
	return e->rc;
}

int fs_env_record(struct store *st, const struct fs_config *cfg,
		  const struct fuse_cmdline_opts *fo,
		  const char *release,
		  const struct fs_kconfig *kc)
{
	struct env e = {.st = st, .rc = 0};

	kernel_facts(&e, release ? release : "?", kc);
	host_facts(&e);
	/* the page cache would serve what the limits are there to hold */
	if (media_facts(&e, cfg->media_dir) &&
	    cfg->backing_v != ENG_BACKING_DIRECT)
		fuse_log(FUSE_LOG_WARNING,
			 "timelinefs: %s is read through a block cgroup's "
			 "limits (run_env lab_*) but backing=%s: page-cache "
			 "hits pass them; backing=direct reads every frame "
			 "from the storage\n",
			 cfg->media_dir,
			 cfg->backing ? cfg->backing : "direct");
	put(&e, "timelinefs_version", "%s", TLFS_VERSION);
	put(&e, "fuse_version", "%s", fuse_pkgversion());
	put(&e, "sqlite_version", "%s", store_sqlite_version());
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
		put(&e, "opt.single_threaded", "%s",
		    fo->singlethread ? "on" : "off");
		put(&e, "opt.clone_fd", "%s", fo->clone_fd ? "on" : "off");
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
	struct jiffies_src *s = malloc(sizeof(*s));

	h->rc = -ENOMEM;
	if (!s)
		return NULL;
	s->fd = open("/proc/timer_list", O_RDONLY | O_CLOEXEC);
	h->rc = s->fd < 0 ? -errno :
		eng_env_measure_hz(h->io, read_jiffies, s, ENV_HZ_INTERVAL_NS,
				   &h->hz);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
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
		 "/proc/timer_list jiffies over %llu ms or more",
		 ENV_HZ_INTERVAL_NS / 1000000);
	rc = store_env_add_ended(st, "config_hz_measured", v);
	if (rc == 0)
		rc = store_env_add_ended(st, "config_hz_measured_from", from);
	return rc;
}
