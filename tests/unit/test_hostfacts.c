/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/probe/hostfacts.c, the host probe, on made-up
 * hosts (a fake struct eng_probe_io of files, links, folders and
 * devices): the kernel's and the CPU's facts, the media's mount, its
 * partition's disk and queue, device-mapper slaves and a loop device's
 * file down to whole disks, a v2 and a v1 block cgroup's read limits
 * (the least of the group's and its ancestors'), a media folder on a
 * file system without a block device, and the small probes (a mount's
 * readahead file, boot and machine ids, a process's start, thread group
 * and name, the pipe limit).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probe/hostfacts.h"

/* A made-up host: "PATH=TEXT" files, "LINK>TARGET" links, "DIR/" folder
 * entries "DIR/NAME|" and "PATH@MAJ:MIN" or "PATH#MAJ:MIN" (a block
 * device file) stats. */
struct host {
	const char *const *rows;
};

static const char *find(const struct host *h, const char *path, char sep)
{
	size_t n = strlen(path), i;

	for (i = 0; h->rows[i]; i++)
		if (strncmp(h->rows[i], path, n) == 0 &&
		    h->rows[i][n] == sep)
			return h->rows[i] + n + 1;
	return NULL;
}

static char *fake_read(void *ctx, const char *path, size_t max, size_t *len)
{
	const char *t = find(ctx, path, '=');

	(void)max;
	if (!t)
		return NULL;
	*len = strlen(t);
	return strdup(t);
}

static int fake_resolve(void *ctx, const char *path, char *out, size_t len)
{
	const char *t = find(ctx, path, '>');

	if (!t)
		return -ENOENT;
	snprintf(out, len, "%s", t);
	return 0;
}

static int fake_list(void *ctx, const char *dir,
		     void (*fn)(void *arg, const char *name), void *arg)
{
	const struct host *h = ctx;
	size_t n = strlen(dir), i;
	char name[256];
	int any = 0;

	for (i = 0; h->rows[i]; i++) {
		const char *r = h->rows[i], *bar;

		if (strncmp(r, dir, n) || r[n] != '/' ||
		    !(bar = strchr(r + n + 1, '|')))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(bar - r - n - 1),
			 r + n + 1);
		fn(arg, name);
		any = 1;
	}
	return any ? 0 : -ENOENT;
}

static int fake_stat(void *ctx, const char *path, struct eng_probe_stat *st)
{
	const char *t = find(ctx, path, '@'), *b = find(ctx, path, '#');

	memset(st, 0, sizeof(*st));
	if (t && sscanf(t, "%u:%u", &st->dev_major, &st->dev_minor) == 2)
		return 0;
	if (b && sscanf(b, "%u:%u", &st->rdev_major, &st->rdev_minor) == 2) {
		st->blk = 1;
		return 0;
	}
	return -ENOENT;
}

static int fake_version(void *ctx, char *buf, size_t len)
{
	(void)ctx;
	snprintf(buf, len, "#1 SMP PREEMPT_DYNAMIC");
	return 0;
}

static int fake_cpus(void *ctx)
{
	(void)ctx;
	return 3;
}

static void fake_io(struct eng_probe_io *io, const struct host *h)
{
	io->ctx = (void *)h;
	io->read = fake_read;
	io->read_gz = fake_read;
	io->resolve = fake_resolve;
	io->list = fake_list;
	io->stat = fake_stat;
	io->kernel_version = fake_version;
	io->cpus_allowed = fake_cpus;
}

/* The facts handed, "KEY=VALUE\n" each */
struct facts {
	char text[16384];
	size_t n;
	int fail_at;	/* this fact's number fails (-EIO), 0: none */
};

static int got(void *ctx, const char *key, const char *value)
{
	struct facts *f = ctx;

	if (f->fail_at && (int)++f->n == f->fail_at)
		return -EIO;
	strcat(f->text, key);
	strcat(f->text, "=");
	strcat(f->text, value);
	strcat(f->text, "\n");
	return 0;
}

static void has(const struct facts *f, const char *row)
{
	char line[512];

	snprintf(line, sizeof(line), "\n%s\n", row);
	if (strncmp(f->text, line + 1, strlen(line + 1)) != 0 &&
	    !strstr(f->text, line))
		fail_msg("no fact %s in:\n%s", row, f->text);
}

static void hasnt(const struct facts *f, const char *key)
{
	char k[128];

	snprintf(k, sizeof(k), "%s=", key);
	if (strstr(f->text, k))
		fail_msg("fact %s in:\n%s", key, f->text);
}

#define MI "/proc/self/mountinfo="
#define SDA "/sys/devices/pci0000:00/ata1/host0/block/sda"

/* ext4 on sda1 (a partition), read through a v2 io group whose parent
 * limits the bytes and itself the reads a second; a config of 250 Hz */
static const char *const lab_host[] = {
	"/proc/cmdline=BOOT_IMAGE=/vmlinuz ro preempt=full\n",
	"/sys/devices/system/clocksource/clocksource0/current_clocksource="
	"tsc\n",
	"/proc/sys/kernel/random/boot_id=0123-4567\n",
	"/proc/cpuinfo=processor\t: 0\nmodel name\t: Test CPU 9000\n\n"
	"processor\t: 1\nmodel name\t: Test CPU 9000\n",
	"/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor=performance\n",
	"/sys/devices/system/cpu/cpu1/cpufreq/scaling_governor=powersave\n",
	"/proc/meminfo=MemTotal:       16318156 kB\nMemFree: 1 kB\n",
	MI "22 1 8:1 / /srv/media rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"23 1 0:5 / /proc rw - proc proc rw\n",
	"/sys/dev/block/8:1>" SDA "/sda1",
	SDA "/sda1/partition=1\n",
	SDA "/sda1/../dev=8:0\n",
	SDA "/sda1/../queue/read_ahead_kb=128\n",
	SDA "/queue/scheduler=none [mq-deadline] kyber\n",
	SDA "/queue/rotational=1\n",
	"/proc/self/cgroup=0::/lab/run\n",
	"/proc/self/mounts=proc /proc proc rw 0 0\n"
	"cgroup2 /sys/fs/cg\\040v2 cgroup2 rw,nosuid 0 0\n",
	"/sys/fs/cg v2/lab/run/io.max=8:0 rbps=max wbps=max riops=150 "
	"wiops=max\n",
	"/sys/fs/cg v2/lab/io.max=8:0 rbps=52428800 wbps=max riops=max "
	"wiops=max\n8:16 rbps=1 wbps=max riops=1 wiops=max\n",
	NULL
};

static const char config[] = "CONFIG_HZ_250=y\nCONFIG_HZ=250\n"
			     "CONFIG_PREEMPT_DYNAMIC=y\n"
			     "CONFIG_PREEMPT_VOLUNTARY=y\n";

static void test_lab_host(void **state)
{
	struct host h = { lab_host };
	struct eng_probe_io io;
	struct facts f = { "", 0, 0 };
	int lab = -1;

	(void)state;
	fake_io(&io, &h);
	assert_int_equal(eng_probe_facts(&io, "6.1.0-test", config,
					 strlen(config), "/boot/config-6.1",
					 "/srv/media/clips", got, &f, &lab),
			 0);
	assert_int_equal(lab, 1);
	has(&f, "kernel_release=6.1.0-test");
	has(&f, "kernel_version=#1 SMP PREEMPT_DYNAMIC");
	has(&f, "kernel_cmdline=BOOT_IMAGE=/vmlinuz ro preempt=full");
	has(&f, "config_hz=250");
	has(&f, "config_hz_from=/boot/config-6.1");
	/* no debugfs: the config's, with preempt= of the command line */
	has(&f, "preempt=full");
	has(&f, "preempt_from=preempt= of /proc/cmdline "
		"(CONFIG_PREEMPT_DYNAMIC)");
	has(&f, "clocksource=tsc");
	has(&f, "boot_id=0123-4567");
	has(&f, "cpu_model=Test CPU 9000");
	has(&f, "cpu_count=2");
	has(&f, "cpus_allowed=3");
	has(&f, "cpu_governor=performance,powersave");
	has(&f, "mem_total_kb=16318156");
	has(&f, "media_fs_type=ext4");
	has(&f, "media_mount_point=/srv/media");
	has(&f, "media_mount_source=/dev/sda1");
	has(&f, "media_device=sda1");
	has(&f, "media_read_ahead_kb=128");
	/* the group's reads, its parent's bytes; not another disk's */
	has(&f, "lab_cgroup=io:/lab/run");
	has(&f, "lab_device=8:0");
	has(&f, "lab_read_bps=52428800");
	has(&f, "lab_read_iops=150");
	has(&f, "media_disk=sda");
	has(&f, "media_io_scheduler=mq-deadline");
	has(&f, "media_rotational=1");
	hasnt(&f, "media_loop_file");

	/* the caller's error stops the probe and is returned */
	memset(&f, 0, sizeof(f));
	f.fail_at = 3;
	assert_int_equal(eng_probe_facts(&io, "6.1.0-test", config,
					 strlen(config), "/boot/config-6.1",
					 "/srv/media", got, &f, &lab),
			 -EIO);
	assert_int_equal(f.n, 3);
}

#define DM "/sys/devices/virtual/block/dm-0"
#define LOOP "/sys/devices/virtual/block/loop3"

/* xfs on dm-0 (LVM over sdb and sdc) and, below, a loop device whose
 * file is on a btrfs named by its device file (an anonymous 0:N in
 * mountinfo); a v1 blkio group limiting nothing on this disk */
static const char *const stacked_host[] = {
	MI "30 1 253:0 / /data rw - xfs /dev/mapper/vg-data rw\n"
	"31 1 0:45 / /img rw - btrfs /dev/loop3 rw\n",
	"/sys/dev/block/253:0>" DM,
	DM "/slaves/sdb|",
	DM "/slaves/sdc|",
	DM "/slaves/sdb>/sys/devices/x/block/sdb",
	DM "/slaves/sdc>/sys/devices/x/block/sdc",
	DM "/dev=253:0\n",
	DM "/queue/read_ahead_kb=4096\n",
	"/sys/devices/x/block/sdb/queue/scheduler=[none] mq-deadline\n",
	"/sys/devices/x/block/sdb/queue/rotational=0\n",
	"/sys/devices/x/block/sdc/queue/rotational=0\n",
	"/proc/self/cgroup=12:blkio:/tlfs\n0::/\n",
	"/proc/self/mounts=cgroup /sys/fs/cgroup/blkio cgroup "
	"rw,blkio 0 0\n",
	"/sys/fs/cgroup/blkio/tlfs/blkio.throttle.read_bps_device="
	"8:16 1000\n",
	"/dev/loop3#7:3",
	"/sys/dev/block/7:3>" LOOP,
	LOOP "/loop/backing_file=/srv/img/disk.img\n",
	"/srv/img/disk.img@8:2",
	"/sys/dev/block/8:2>" SDA "/sda2",
	SDA "/sda2/partition=2\n",
	SDA "/queue/scheduler=[bfq] none\n",
	SDA "/queue/rotational=1\n",
	NULL
};

static void test_stacked(void **state)
{
	struct host h = { stacked_host };
	struct eng_probe_io io;
	struct facts f = { "", 0, 0 };
	int lab = -1;

	(void)state;
	fake_io(&io, &h);
	assert_int_equal(eng_probe_facts(&io, "6.1", NULL, 0, NULL, "/data",
					 got, &f, &lab), 0);
	assert_int_equal(lab, 0);
	has(&f, "media_device=dm-0");
	has(&f, "media_read_ahead_kb=4096");
	has(&f, "media_disk=sdb,sdc");
	has(&f, "media_io_scheduler=none,?");
	has(&f, "media_rotational=0,0");
	hasnt(&f, "lab_cgroup");
	hasnt(&f, "config_hz");
	hasnt(&f, "preempt");
	hasnt(&f, "cpu_model");

	memset(&f, 0, sizeof(f));
	assert_int_equal(eng_probe_facts(&io, "6.1", NULL, 0, NULL,
					 "/img/a", got, &f, &lab), 0);
	has(&f, "media_fs_type=btrfs");
	has(&f, "media_device=loop3");
	has(&f, "media_loop_file=/srv/img/disk.img");
	has(&f, "media_disk=sda");
	has(&f, "media_io_scheduler=bfq");
	has(&f, "media_rotational=1");
}

/* tmpfs: the mount's facts, no device, no disk */
static const char *const tmpfs_host[] = {
	MI "40 1 0:50 / /dev/shm rw - tmpfs tmpfs rw,size=1g\n",
	"/sys/kernel/debug/sched/preempt=none voluntary (full) lazy\n",
	NULL
};

static void test_no_device(void **state)
{
	struct host h = { tmpfs_host };
	struct eng_probe_io io;
	struct facts f = { "", 0, 0 };
	int lab = -1;

	(void)state;
	fake_io(&io, &h);
	assert_int_equal(eng_probe_facts(&io, NULL, config, strlen(config),
					 "/proc/config.gz", "/dev/shm/m",
					 got, &f, &lab), 0);
	assert_int_equal(lab, 0);
	has(&f, "kernel_release=?");
	has(&f, "media_fs_type=tmpfs");
	has(&f, "media_mount_options=rw rw,size=1g");
	/* debugfs's model wins over the config's */
	has(&f, "preempt=full");
	has(&f, "preempt_from=/sys/kernel/debug/sched/preempt");
	hasnt(&f, "media_device");
	hasnt(&f, "media_disk");
}

/* The kernel config: /proc/config.gz first, else /boot's; one without
 * CONFIG_HZ is passed over. */
static void test_kernel_config(void **state)
{
	static const char *const both[] = {
		"/proc/config.gz=CONFIG_X=y\n",
		"/boot/config-6.1=CONFIG_HZ=100\n", NULL };
	static const char *const proc[] = {
		"/proc/config.gz=CONFIG_HZ=1000\n",
		"/boot/config-6.1=CONFIG_HZ=100\n", NULL };
	struct host h = { both };
	struct eng_probe_io io;
	char from[64], *t;
	size_t len;

	(void)state;
	fake_io(&io, &h);
	t = eng_probe_kernel_config(&io, "6.1", &len, from, sizeof(from));
	assert_non_null(t);
	assert_string_equal(from, "/boot/config-6.1");
	assert_int_equal(len, strlen("CONFIG_HZ=100\n"));
	free(t);
	h.rows = proc;
	t = eng_probe_kernel_config(&io, "6.1", &len, from, sizeof(from));
	assert_string_equal(from, "/proc/config.gz");
	free(t);
	h.rows = tmpfs_host;
	assert_null(eng_probe_kernel_config(&io, "6.1", &len, from,
					    sizeof(from)));
}

/* The small probes: a mount's readahead file (the mount itself, not the
 * one it is on), the boot and machine ids, a process's start, thread
 * group and command name, the pipe limit. */
static void test_small(void **state)
{
	static const char *const rows[] = {
		MI "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
		"50 22 0:61 / /mnt/t\\040l rw - fuse.timelinefs tl rw\n",
		"/proc/sys/kernel/random/boot_id=b00t\n",
		"/etc/machine-id=not an id\n",
		"/var/lib/dbus/machine-id=0123456789abcdef0123456789ABCDEF\n",
		"/proc/42/stat=42 (a) b) S 1 42 42 0 -1 4194560 1 0 0 0 0 0 0 "
		"0 20 0 1 0 987654 1 1\n",
		"/proc/43/status=Name:\tvlc:demux\nTgid:\t42\nPid:\t43\n",
		"/proc/42/comm=vlc\n",
		"/proc/sys/fs/pipe-max-size=1048576\n",
		NULL
	};
	struct host h = { rows };
	struct eng_probe_io io;
	char buf[128], *id;
	uint64_t start;

	(void)state;
	fake_io(&io, &h);
	assert_int_equal(eng_probe_readahead_file(&io, "/mnt/t l", buf,
						  sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/class/bdi/0:61/read_ahead_kb");
	assert_int_equal(eng_probe_readahead_file(&io, "/mnt/t l/x", buf,
						  sizeof(buf)), -ENOENT);
	assert_int_equal(eng_probe_boot_id(&io, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "b00t");
	id = eng_probe_machine_id(&io);
	assert_string_equal(id, "0123456789abcdef0123456789ABCDEF");
	free(id);
	assert_int_equal(eng_probe_proc_start(&io, 42, &start), 0);
	assert_int_equal(start, 987654);
	assert_int_equal(eng_probe_proc_start(&io, 44, &start), -ENOENT);
	assert_int_equal(eng_probe_tgid(&io, 43), 42);
	assert_int_equal(eng_probe_tgid(&io, 44), 0);
	eng_probe_comm(&io, 42, buf, sizeof(buf));
	assert_string_equal(buf, "vlc");
	eng_probe_comm(&io, 44, buf, sizeof(buf));
	assert_string_equal(buf, "?");
	assert_int_equal(eng_probe_pipe_max(&io), 1048576);
	h.rows = tmpfs_host;
	assert_null(eng_probe_machine_id(&io));
	assert_int_equal(eng_probe_pipe_max(&io), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_host),
		cmocka_unit_test(test_stacked),
		cmocka_unit_test(test_no_device),
		cmocka_unit_test(test_kernel_config),
		cmocka_unit_test(test_small),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
