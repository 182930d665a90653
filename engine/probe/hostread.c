/* SPDX-License-Identifier: MIT */
/*
 * The host probe's real I/O (hostfacts.h): files of /proc and /sys read
 * whole, a kernel config inflated with zlib (rather than by running zcat:
 * the daemon then depends on no program in PATH, forks nothing while it
 * holds FUSE and SQLite state, and a failure is a return code), links
 * resolved, folders listed, devices stat'ed; and the tick rate measured
 * from /proc/timer_list.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "probe/env.h"
#include "probe/hostfacts.h"

/* The whole of a /proc or /sys file (a NUL after it), up to max bytes;
 * NULL when it cannot be read.  The caller frees it. */
static char *real_read(void *ctx, const char *path, size_t max, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *p;
	ssize_t r = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	(void)ctx;
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

/* The whole of a file, decompressed when it is gzip (zlib's gzread passes
 * a plain file through as it is); a read error or a truncated gzip
 * stream: NULL, no half a file. */
static char *real_read_gz(void *ctx, const char *path, size_t max,
			  size_t *len)
{
	size_t cap = 1u << 18, n = 0;
	char *buf = malloc(cap), *p;
	gzFile f;
	int r;

	(void)ctx;
	if (!buf)
		return NULL;
	f = gzopen(path, "rbe");
	if (!f)
		goto fail;
	while ((r = gzread(f, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n < cap)
			continue;
		if (cap >= max)
			break;
		p = realloc(buf, cap * 2);
		if (!p)
			break;
		buf = p;
		cap *= 2;
	}
	if (gzclose(f) != Z_OK || r < 0)
		goto fail;
	*len = n;
	return buf;
fail:
	free(buf);
	return NULL;
}

static int real_resolve(void *ctx, const char *path, char *out, size_t len)
{
	char *r = realpath(path, NULL);

	(void)ctx;
	if (!r)
		return -errno;
	snprintf(out, len, "%s", r);
	free(r);
	return 0;
}

static int real_list(void *ctx, const char *dir,
		     void (*fn)(void *arg, const char *name), void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	(void)ctx;
	if (!d)
		return -errno;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			fn(arg, de->d_name);
	closedir(d);
	return 0;
}

static int real_stat(void *ctx, const char *path, struct eng_probe_stat *st)
{
	struct stat sb;

	(void)ctx;
	if (stat(path, &sb) < 0)
		return -errno;
	st->dev_major = major(sb.st_dev);
	st->dev_minor = minor(sb.st_dev);
	st->blk = S_ISBLK(sb.st_mode);
	st->rdev_major = st->blk ? major(sb.st_rdev) : 0;
	st->rdev_minor = st->blk ? minor(sb.st_rdev) : 0;
	return 0;
}

static int real_kernel_version(void *ctx, char *buf, size_t len)
{
	struct utsname u;

	(void)ctx;
	if (uname(&u) < 0)
		return -errno;
	snprintf(buf, len, "%s", u.version);
	return 0;
}

static int real_cpus_allowed(void *ctx)
{
	cpu_set_t set;

	(void)ctx;
	return sched_getaffinity(0, sizeof(set), &set) == 0 ?
		       CPU_COUNT(&set) : -errno;
}

void eng_probe_io_real(struct eng_probe_io *io)
{
	memset(io, 0, sizeof(*io));
	io->read = real_read;
	io->read_gz = real_read_gz;
	io->resolve = real_resolve;
	io->list = real_list;
	io->stat = real_stat;
	io->kernel_version = real_kernel_version;
	io->cpus_allowed = real_cpus_allowed;
}

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

int eng_probe_measure_hz(const struct eng_io *io, uint64_t interval_ns,
			 double *hz)
{
	struct jiffies_src *s = malloc(sizeof(*s));
	int rc;

	if (!s)
		return -ENOMEM;
	s->fd = open("/proc/timer_list", O_RDONLY | O_CLOEXEC);
	rc = s->fd < 0 ? -errno :
	     eng_env_measure_hz(io, read_jiffies, s, interval_ns, hz);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return rc;
}
