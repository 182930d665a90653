/* SPDX-License-Identifier: MIT */
/*
 * The real clock and backing I/O behind struct eng_io: CLOCK_MONOTONIC,
 * absolute sleeps, and reads of the media folder's files.
 */
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

static uint64_t real_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * ENG_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void real_sleep_until(void *ctx, uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / ENG_NS_PER_SEC),
		.tv_nsec = (long)(ns % ENG_NS_PER_SEC),
	};

	(void)ctx;
	/* absolute: a signal does not stretch the wait */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static int real_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct eng_io_real *real = ctx;
	int flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW;
	int fd;

	if (is_direct)
		*is_direct = 0;
	if (direct) {
		fd = openat(real->dirfd, file, flags | O_DIRECT);
		if (fd >= 0) {
			if (is_direct)
				*is_direct = 1;
			return fd;
		}
		if (errno != EINVAL)
			return -errno;
		/* tmpfs and some FUSE file systems refuse O_DIRECT */
		real->warned_direct = 1;
	}
	fd = openat(real->dirfd, file, flags);
	return fd < 0 ? -errno : fd;
}

static ssize_t real_pread(void *ctx, int fd, void *buf, size_t len,
			  uint64_t off)
{
	size_t done = 0;
	ssize_t r;

	(void)ctx;
	while (done < len) {
		r = pread(fd, (char *)buf + done, len - done,
			  (off_t)(off + done));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (ssize_t)done;
}

static void real_dontneed(void *ctx, int fd, uint64_t off, uint64_t len)
{
	(void)ctx;
	posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_DONTNEED);
}

static void real_close(void *ctx, int fd)
{
	(void)ctx;
	close(fd);
}

void eng_io_real_init(struct eng_io *io, struct eng_io_real *real, int dirfd)
{
	real->dirfd = dirfd;
	real->warned_direct = 0;
	io->now = real_now;
	io->sleep_until = real_sleep_until;
	io->open = real_open;
	io->pread = real_pread;
	io->dontneed = real_dontneed;
	io->close = real_close;
	io->ctx = real;
}
