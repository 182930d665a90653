/* SPDX-License-Identifier: MIT */
/*
 * The identities and times the rows carry: a run's or an experiment's
 * UUID (random, version 4; or made from a hash, version 8, by merge.c)
 * and the UTC ISO-8601 time of started_at and ended_at.  One writer of
 * each for run.c, experiment.c, merge.c and the launcher (launcher/).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "store_i.h"

void store_iso_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

void store_uuid_format(unsigned char b[16], int version, char out[37])
{
	int i, k = 0;

	b[6] = (unsigned char)((b[6] & 0x0f) | (version << 4));
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			out[k++] = '-';
		snprintf(out + k, 3, "%02x", b[i]);
		k += 2;
	}
	out[k] = '\0';
}

int store_uuid_random(char out[37])
{
	unsigned char b[16];
	ssize_t n = getrandom(b, sizeof(b), 0);
	int fd;

	/* /dev/urandom where the kernel has no getrandom */
	if (n != (ssize_t)sizeof(b)) {
		fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		n = read(fd, b, sizeof(b));
		close(fd);
		if (n != (ssize_t)sizeof(b))
			return -EIO;
	}
	store_uuid_format(b, 4, out);
	return 0;
}
