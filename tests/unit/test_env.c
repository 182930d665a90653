/* SPDX-License-Identifier: MIT */
/* Unit tests for engine/probe/env.c: the parsers of the run environment's /proc
 * and /sys texts (fixtures copied from real machines, then the edge cases)
 * and the tick rate measured from jiffies on a fake clock. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "probe/env.h"
#include "io/io.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ mountinfo */

/* this machine's (a VM on virtio), with a bind mount, an escaped space,
 * a mount over another and optional fields (shared:N) added */
static const char mountinfo[] =
    "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
    "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict\n"
    "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683664k\n"
    "30 25 0:27 / /dev/shm rw,nosuid - tmpfs shm rw,size=65536k\n"
    "41 27 8:17 /srv /media/my\\040disk rw,noatime shared:5 master:1 - "
    "xfs /dev/sdb1 rw,attr2,inode64\n"
    "42 41 253:0 / /media/my\\040disk/raid rw shared:7 - btrfs "
    "/dev/mapper/vg-raid rw,ssd,space_cache=v2\n"
    "50 27 0:50 / /mnt/x rw - fuse.sshfs user@host:/ rw,user_id=0\r\n"
    "garbage line\n"
    "60 27 7:0 / /loopy rw - ext4 /dev/loop0\n";

static void test_mountinfo(void **state)
{
	static const struct {
		const char *path;
		int rc;
		const char *mp, *fstype, *source, *options;
		unsigned major, minor;
	} cases[] = {
	    {"/work/media", 0, "/", "ext4", "/dev/vda",
	     "rw,relatime rw,discard,resv_strict", 254, 0},
	    {"/", 0, "/", "ext4", "/dev/vda",
	     "rw,relatime rw,discard,resv_strict", 254, 0},
	    /* /proc holds /proc/x, not /procfoo */
	    {"/proc/self", 0, "/proc", "proc", "proc", "rw,relatime rw", 0, 21},
	    {"/procfoo", 0, "/", "ext4", "/dev/vda",
	     "rw,relatime rw,discard,resv_strict", 254, 0},
	    /* two mounts on /dev/shm: the later one is seen */
	    {"/dev/shm/m", 0, "/dev/shm", "tmpfs", "shm",
	     "rw,nosuid rw,size=65536k", 0, 27},
	    /* escapes undone; optional fields skipped */
	    {"/media/my disk/clips", 0, "/media/my disk", "xfs", "/dev/sdb1",
	     "rw,noatime rw,attr2,inode64", 8, 17},
	    {"/media/my disk/raid/a", 0, "/media/my disk/raid", "btrfs",
	     "/dev/mapper/vg-raid", "rw rw,ssd,space_cache=v2", 253, 0},
	    /* a CRLF line end is no part of the options */
	    {"/mnt/x/y", 0, "/mnt/x", "fuse.sshfs", "user@host:/",
	     "rw rw,user_id=0", 0, 50},
	    /* no super options field */
	    {"/loopy", 0, "/loopy", "ext4", "/dev/loop0", "rw", 7, 0},
	};
	struct eng_mount m;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int rc = eng_env_mountinfo(mountinfo, strlen(mountinfo),
					   cases[i].path, &m);

		if (rc != cases[i].rc)
			fail_msg("case %zu %s: rc %d", i, cases[i].path, rc);
		assert_string_equal(m.mount_point, cases[i].mp);
		assert_string_equal(m.fstype, cases[i].fstype);
		assert_string_equal(m.source, cases[i].source);
		assert_string_equal(m.options, cases[i].options);
		assert_int_equal(m.major, cases[i].major);
		assert_int_equal(m.minor, cases[i].minor);
	}
	/* no root mount: nothing holds /a */
	assert_int_equal(
	    eng_env_mountinfo(mountinfo,
			      (size_t)(strchr(mountinfo, '\n') - mountinfo + 1),
			      "/a", &m),
	    -ENOENT);
	assert_int_equal(eng_env_mountinfo("", 0, "/", &m), -ENOENT);
	/* a line without its " - " separator is skipped */
	{
		const char *bad = "1 1 8:1 / / rw ext4 /dev/sda rw\n";

		assert_int_equal(eng_env_mountinfo(bad, strlen(bad), "/", &m),
				 -ENOENT);
	}
}

/* ------------------------------------------------------------ cpuinfo */

static const char cpuinfo_x86[] =
    "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
    "model\t\t: 167\nmodel name\t: Intel(R) Xeon(R) Processor\n"
    "cpu MHz\t\t: 2599.998\n\n"
    "processor\t: 1\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
    "model\t\t: 167\nmodel name\t: Intel(R) Xeon(R) Processor\n";
static const char cpuinfo_arm64[] =
    "processor\t: 0\nBogoMIPS\t: 48.00\nCPU implementer\t: 0x41\n"
    "CPU part\t: 0xd0c\n\nprocessor\t: 1\nBogoMIPS\t: 48.00\n"
    "CPU part\t: 0xd0c\n\nprocessor\t: 2\nCPU part\t: 0xd0c\n";
static const char cpuinfo_power[] =
    "processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n"
    "clock\t\t: 2300.000000MHz\n";

static void test_cpuinfo(void **state)
{
	static const struct {
		const char *text;
		int rc;
		const char *model;
		unsigned count;
	} cases[] = {
	    {cpuinfo_x86, 0, "Intel(R) Xeon(R) Processor", 2},
	    {cpuinfo_arm64, 0, "0xd0c", 3},
	    {cpuinfo_power, 0, "POWER9 (raw), altivec supported", 1},
	    {"processor\t: 0\n", -ENOENT, "", 1},
	    {"", -EINVAL, "", 0},
	    /* "processors" is no processor line */
	    {"processors: 4\nmodel name: X\n", 0, "X", 0},
	};
	char model[64];
	unsigned count;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int rc;

		model[0] = '\0';
		rc = eng_env_cpuinfo(cases[i].text, strlen(cases[i].text),
				     model, sizeof(model), &count);
		if (rc != cases[i].rc || count != cases[i].count ||
		    (rc == 0 && strcmp(model, cases[i].model) != 0))
			fail_msg("case %zu: rc %d count %u model '%s'", i, rc,
				 count, model);
	}
	assert_int_equal(eng_env_cpuinfo(cpuinfo_x86, strlen(cpuinfo_x86),
					 model, 10, &count),
			 -ERANGE);
}

/* ------------------------------------------------------------ meminfo */

static void test_meminfo(void **state)
{
	static const char mem[] = "MemTotal:       24683664 kB\n"
				  "MemFree:        22411552 kB\n"
				  "HugePages_Total:       0\n"
				  "Bad:        12x kB\n";
	uint64_t kb = 0;

	(void)state;
	assert_int_equal(eng_env_meminfo(mem, strlen(mem), "MemTotal", &kb), 0);
	assert_true(kb == 24683664);
	assert_int_equal(eng_env_meminfo(mem, strlen(mem), "MemFree", &kb), 0);
	assert_true(kb == 22411552);
	/* no unit is a count, taken as it is */
	assert_int_equal(
	    eng_env_meminfo(mem, strlen(mem), "HugePages_Total", &kb), 0);
	assert_true(kb == 0);
	assert_int_equal(eng_env_meminfo(mem, strlen(mem), "Bad", &kb),
			 -EINVAL);
	assert_int_equal(eng_env_meminfo(mem, strlen(mem), "Mem", &kb),
			 -ENOENT);
	assert_int_equal(eng_env_meminfo(mem, strlen(mem), "SwapTotal", &kb),
			 -ENOENT);
}

/* ------------------------------------------------------------ timer_list */

static void test_jiffies(void **state)
{
	/* this machine's, shortened: the per-CPU .idle_jiffies and
	 * .last_jiffies come before the line that counts */
	static const char tl[] =
	    "Timer List Version: v0.10\nHRTIMER_MAX_CLOCK_BASES: 8\n"
	    "now at 1004862963144 nsecs\n\ncpu: 0\n clock 0:\n"
	    "  .idle_jiffies   : 4295133643\n"
	    "  .last_jiffies   : 4295140815\n"
	    "jiffies: 4295142795\n\ncpu: 1\njiffies: 4295142796\n";
	uint64_t j = 0;

	(void)state;
	assert_int_equal(eng_env_jiffies(tl, strlen(tl), &j), 0);
	assert_true(j == 4295142795ULL);
	assert_int_equal(eng_env_jiffies("now at 5 nsecs\n", 15, &j), -ENOENT);
	assert_int_equal(eng_env_jiffies("jiffies: x\n", 11, &j), -EINVAL);
	assert_int_equal(eng_env_jiffies("jiffies: 12 34\n", 15, &j), -EINVAL);
}

/* ------------------------------------------------------------ choices */

static void test_selected(void **state)
{
	static const struct {
		const char *text;
		int rc;
		const char *want;
	} cases[] = {
	    {"none [mq-deadline] kyber bfq \n", 0, "mq-deadline"},
	    {"[none] mq-deadline\n", 0, "none"},
	    {"none voluntary (full) lazy\n", 0, "full"},
	    {"none\n", 0, "none"},
	    {"tsc\n", 0, "tsc"},
	    {"performance", 0, "performance"},
	    {"none [mq-deadline\n", -EINVAL, ""},
	    {"a b\n", -EINVAL, ""},
	    {"\n", -EINVAL, ""},
	};
	char buf[32];
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int rc = eng_env_selected(cases[i].text, strlen(cases[i].text),
					  buf, sizeof(buf));

		if (rc != cases[i].rc ||
		    (rc == 0 && strcmp(buf, cases[i].want)))
			fail_msg("case %zu '%s': rc %d '%s'", i, cases[i].text,
				 rc, rc == 0 ? buf : "");
	}
}

static void test_cmdline(void **state)
{
	const char *c = "console=ttyS0 quiet preempt=full root=/dev/vda "
			"preempt=voluntary -- --init preempt=none\n";
	char buf[16];

	(void)state;
	/* the last before " -- " */
	assert_int_equal(eng_env_cmdline_get(c, "preempt", buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "voluntary");
	assert_int_equal(eng_env_cmdline_get(c, "root", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/dev/vda");
	assert_int_equal(eng_env_cmdline_get(c, "quiet", buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(eng_env_cmdline_get(c, "init", buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(eng_env_cmdline_get(c, "root", buf, 8), -ERANGE);
}

static void test_preempt(void **state)
{
	/* this machine's config: PREEMPT_DYNAMIC with none by default */
	static const char dyn[] =
	    "CONFIG_PREEMPT_BUILD=y\n"
	    "CONFIG_PREEMPT_NONE=y\n"
	    "# CONFIG_PREEMPT_VOLUNTARY is not set\n"
	    "# CONFIG_PREEMPT is not set\n"
	    "CONFIG_PREEMPT_COUNT=y\nCONFIG_PREEMPTION=y\n"
	    "CONFIG_PREEMPT_DYNAMIC=y\n";
	static const struct {
		const char *config, *cmdline;
		int rc, from;
		const char *want;
	} cases[] = {
	    {dyn, "quiet", 0, 0, "none"},
	    {dyn, NULL, 0, 0, "none"},
	    {dyn, "quiet preempt=full", 0, 1, "full"},
	    {"CONFIG_PREEMPT_VOLUNTARY=y\n", "preempt=full", 0, 0, "voluntary"},
	    {"CONFIG_PREEMPT=y\nCONFIG_PREEMPT_RT=y\n", "", 0, 0, "rt"},
	    {"CONFIG_PREEMPT=y\n", "", 0, 0, "full"},
	    {"CONFIG_PREEMPT_LAZY=y\nCONFIG_PREEMPT=y\n", "", 0, 0, "lazy"},
	    {"# CONFIG_PREEMPT is not set\n", "", -ENOENT, 0, ""},
	};
	char buf[16];
	size_t i;
	int from;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int rc =
		    eng_env_preempt(cases[i].config, strlen(cases[i].config),
				    cases[i].cmdline, buf, sizeof(buf), &from);

		if (rc != cases[i].rc ||
		    (rc == 0 &&
		     (from != cases[i].from || strcmp(buf, cases[i].want))))
			fail_msg("case %zu: rc %d from %d '%s'", i, rc, from,
				 rc == 0 ? buf : "");
	}
}

/* ------------------------------------------------------------ measured */

/* A fake clock and a jiffies counter ticking at hz from a phase; each
 * reading takes read_ns; once, a reading is delayed by stall_ns (the
 * daemon preempted). */
struct fake {
	uint64_t now;
	double hz;
	uint64_t phase;
	uint64_t read_ns;
	uint64_t stall_ns;
	unsigned stall_at, reads;
	int fail;
	int frozen;
	uint64_t jitter_ns; /* readings take read_ns + up to this */
	uint32_t seed;
	/* ticks late: late_pct % of them by up to late_max_ns (past a tick:
	 * jiffies catches up by two), the others by up to 20 us */
	unsigned late_pct;
	uint64_t late_max_ns;
};

static uint32_t mix(uint64_t k, uint32_t salt)
{
	uint64_t x = (k + salt) * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (uint32_t)(x >> 32);
}

/* jiffies at t of a tick ticking at hz, tick k seen at k / hz + its
 * lateness: the last tick seen by then */
static uint64_t ticks_at(const struct fake *f, uint64_t t)
{
	double p = 1e9 / f->hz;
	uint64_t k = (uint64_t)((double)t / p), i;

	if (!f->late_pct)
		return k;
	for (i = 0; i < 4 && i <= k; i++) {
		uint64_t kk = k - i;
		uint64_t late = mix(kk, 1) % 100 < f->late_pct
				    ? mix(kk, 2) % f->late_max_ns
				    : mix(kk, 3) % 20000;

		if ((double)kk * p + (double)late <= (double)t)
			return kk;
	}
	return k - i;
}

static uint64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static void fake_sleep(void *ctx, uint64_t ns)
{
	struct fake *f = ctx;

	if (ns > f->now)
		f->now = ns;
}

static int fake_read(void *ctx, uint64_t *j)
{
	struct fake *f = ctx;
	uint64_t len = f->read_ns;

	if (f->fail)
		return f->fail;
	if (f->jitter_ns) {
		f->seed = f->seed * 1103515245u + 12345u;
		len += (f->seed >> 8) % f->jitter_ns;
	}
	f->now += len / 2;
	if (++f->reads == f->stall_at)
		f->now += f->stall_ns;
	*j = f->frozen ? 1000 : 4294967296ULL + ticks_at(f, f->now + f->phase);
	f->now += len - len / 2;
	return 0;
}

static void test_measure(void **state)
{
	static const struct {
		double hz;
		uint64_t phase, read_ns, stall_ns;
		unsigned stall_at;
	} cases[] = {
	    {100, 0, 50000, 0, 0},
	    {250, 1234567, 50000, 0, 0},
	    {300, 777, 200000, 0, 0},
	    {1000, 999999, 50000, 0, 0},
	    {1000, 0, 400000, 0, 0},
	    /* a stall of 3 ms across the first edge: not taken for it */
	    {250, 0, 50000, 3000000, 5},
	    {100, 5000000, 50000, 30000000, 20},
	};
	struct eng_io io = {.now = fake_now, .sleep_until = fake_sleep};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct fake f = {.now = 1000000000,
				 .hz = cases[i].hz,
				 .phase = cases[i].phase,
				 .read_ns = cases[i].read_ns,
				 .stall_ns = cases[i].stall_ns,
				 .stall_at = cases[i].stall_at};
		double hz = 0;
		int rc;

		io.ctx = &f;
		rc = eng_env_measure_hz(&io, fake_read, &f, 200000000, &hz);
		/* a reading's length over 200 ms: 0.2 % at 400 us */
		if (rc != 0 || fabs(hz - cases[i].hz) >
				   cases[i].hz * (double)cases[i].read_ns / 2e8)
			fail_msg("case %zu: rc %d, %.3f Hz, expected %.0f", i,
				 rc, hz, cases[i].hz);
		/* the interval was slept, not spun, and not much longer:
		 * 200 ms, or what holds the error within 0.25 Hz where that
		 * is more (gaps of a reading each: 4 read_ns hz), 1 s at
		 * most, plus the ticks waited for */
		{
			double w = 4.0 * (double)cases[i].read_ns * cases[i].hz;
			uint64_t base = w > 1e9	  ? 1000000000
					: w > 2e8 ? (uint64_t)w
						  : 200000000;

			assert_true(f.now - 1000000000 >= 200000000);
			/* up to 4 changes read at each end, and once more
			 * where the interval was stretched */
			uint64_t tick = (uint64_t)(1e9 / cases[i].hz);

			if (f.now - 1000000000 >=
			    base + 12 * tick + cases[i].stall_ns + 1000000)
				fail_msg(
				    "case %zu took %llu ns", i,
				    (unsigned long long)(f.now - 1000000000));
		}
	}
	/* a loaded machine: readings of 30 us to 930 us, at random; the
	 * edge read most closely of four, and an interval stretched to hold
	 * the error within 0.25 Hz (1 s at most), round to the right rate
	 * at 250 and 1000 Hz (one edge each over 200 ms, as first written:
	 * 249.338 Hz for 250, seed 1) */
	for (i = 0; i < 40; i++) {
		double want = i % 2 ? 1000 : 250;
		struct fake f = {.now = 1000000000 + i * 777777,
				 .hz = want,
				 .read_ns = 30000,
				 .jitter_ns = 900000,
				 .seed = (uint32_t)i / 2 + 1};
		double hz = 0;

		io.ctx = &f;
		assert_int_equal(
		    eng_env_measure_hz(&io, fake_read, &f, 200000000, &hz), 0);
		if (fabs(hz - want) >= 0.5 || lround(hz) != (long)want)
			fail_msg("seed %zu: %.3f Hz, expected %.0f", i / 2 + 1,
				 hz, want);
	}
	/* a virtual machine's late ticks: a third of them late by up to 6 ms
	 * (a tick and a half at 250 Hz, six at 1000 Hz: jiffies catches up
	 * by several); the least late of four changes at each end is on
	 * time (the first change at each end: 249.103 Hz for 250, seed 1) */
	for (i = 0; i < 40; i++) {
		double want = i % 2 ? 1000 : 250;
		struct fake f = {.now = 1000000000 + i * 777777,
				 .hz = want,
				 .read_ns = 30000,
				 .late_pct = 33,
				 .late_max_ns = 6000000,
				 .seed = (uint32_t)i / 2 + 1};
		double hz = 0;

		f.phase = (uint64_t)mix(i, 9) % 100000000;
		io.ctx = &f;
		assert_int_equal(
		    eng_env_measure_hz(&io, fake_read, &f, 200000000, &hz), 0);
		if (fabs(hz - want) >= 0.5 || lround(hz) != (long)want)
			fail_msg("late ticks, seed %zu: %.3f Hz, expected %.0f",
				 i / 2 + 1, hz, want);
	}
	{
		struct fake f = {
		    .now = 1, .hz = 250, .read_ns = 50000, .frozen = 1};
		double hz;

		io.ctx = &f;
		assert_int_equal(
		    eng_env_measure_hz(&io, fake_read, &f, 200000000, &hz),
		    -ETIMEDOUT);
		f.fail = -EACCES;
		assert_int_equal(
		    eng_env_measure_hz(&io, fake_read, &f, 200000000, &hz),
		    -EACCES);
	}
}

/* ------------------------------------------------------------ proc */

static void test_proc_start(void **state)
{
#define TAIL " S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 0 98765 4096 7\n"
	static const struct {
		const char *text;
		int rc;
		uint64_t start;
	} cases[] = {
	    {"1234 (bash)" TAIL, 0, 98765},
	    /* the command is anything: its ") " is not the end of it */
	    {"42 (a) b 1 2) 3)" TAIL, 0, 98765},
	    {"42 (x) S 1 2 3\n", -EINVAL, 0},
	    {"42 bash S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 0 98765\n",
	     -EINVAL, 0},
	    {"42 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 0 \n",
	     -EINVAL, 0},
	    {"", -EINVAL, 0},
	};
#undef TAIL
	/* only len bytes are read: the field cut after its first digit */
	static const char cut[] = "1 (c) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 "
				  "15 16 17 0 98765 4096\n";
	uint64_t start;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		start = 0;
		assert_int_equal(eng_env_proc_start(cases[i].text,
						    strlen(cases[i].text),
						    &start),
				 cases[i].rc);
		assert_int_equal(start, cases[i].start);
	}
	assert_int_equal(eng_env_proc_start(cut, strstr(cut, "98765") + 1 - cut,
					    &start),
			 0);
	assert_int_equal(start, 9);
}

/* ------------------------------------------------------------ cgroup */

static void test_blkcg(void **state)
{
	/* a v1 machine (this project's): blkio among others, the v2 line of
	 * the unified hierarchy beside it */
	static const char v1[] = "12:pids:/\n"
				 "5:cpu,cpuacct:/user.slice\n"
				 "4:blkio,net_cls:/timelinefs-lab-42\n"
				 "0::/init.scope\n";
	static const char v2only[] = "0::/timelinefs-lab/timelinefs-lab-42\n";
	static const char neither[] = "3:memory:/\n";
	static const char blkiox[] = "4:blkiox:/no\n";
	char p[64];
	int v2 = -1;

	(void)state;
	assert_int_equal(eng_env_blkcg(v1, strlen(v1), p, sizeof(p), &v2), 0);
	assert_string_equal(p, "/timelinefs-lab-42");
	assert_int_equal(v2, 0);
	assert_int_equal(
	    eng_env_blkcg(v2only, strlen(v2only), p, sizeof(p), &v2), 0);
	assert_string_equal(p, "/timelinefs-lab/timelinefs-lab-42");
	assert_int_equal(v2, 1);
	assert_int_equal(
	    eng_env_blkcg(neither, strlen(neither), p, sizeof(p), &v2),
	    -ENOENT);
	/* a name that begins with blkio is not blkio */
	assert_int_equal(
	    eng_env_blkcg(blkiox, strlen(blkiox), p, sizeof(p), &v2), -ENOENT);
	assert_int_equal(eng_env_blkcg(v1, strlen(v1), p, 8, &v2), -ERANGE);
}

static void test_throttle(void **state)
{
	static const char v1[] = "8:0 1048576\n7:0 20971520\n";
	static const char iomax[] =
	    "8:0 rbps=max wbps=max riops=100 wiops=max\n"
	    "7:0 rbps=20971520 wbps=max riops=max wiops=max\n";
	static const char bad[] = "7:0 lots\n";
	static const char badkey[] = "7:0 rbps=12x\n";
	uint64_t v = 0;

	(void)state;
	assert_int_equal(eng_env_throttle(v1, strlen(v1), 7, 0, NULL, &v), 0);
	assert_int_equal(v, 20971520);
	assert_int_equal(eng_env_throttle(v1, strlen(v1), 7, 1, NULL, &v),
			 -ENOENT);
	assert_int_equal(eng_env_throttle("", 0, 7, 0, NULL, &v), -ENOENT);
	assert_int_equal(
	    eng_env_throttle(iomax, strlen(iomax), 7, 0, "rbps", &v), 0);
	assert_int_equal(v, 20971520);
	/* "max" is no limit; riops=100 is another device's */
	assert_int_equal(
	    eng_env_throttle(iomax, strlen(iomax), 7, 0, "riops", &v), -ENOENT);
	assert_int_equal(
	    eng_env_throttle(iomax, strlen(iomax), 8, 0, "riops", &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(eng_env_throttle(bad, strlen(bad), 7, 0, NULL, &v),
			 -EINVAL);
	assert_int_equal(
	    eng_env_throttle(badkey, strlen(badkey), 7, 0, "rbps", &v),
	    -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mountinfo), cmocka_unit_test(test_cpuinfo),
	    cmocka_unit_test(test_meminfo),   cmocka_unit_test(test_jiffies),
	    cmocka_unit_test(test_selected),  cmocka_unit_test(test_cmdline),
	    cmocka_unit_test(test_preempt),   cmocka_unit_test(test_measure),
	    cmocka_unit_test(test_proc_start),
	    cmocka_unit_test(test_blkcg),     cmocka_unit_test(test_throttle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
