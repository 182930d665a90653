/* SPDX-License-Identifier: MIT */
/* Facts about the host for the run row, and the mount's readahead knob. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "fs.h"

char *fs_kernel_release(void)
{
	struct utsname u;

	return uname(&u) == 0 ? strdup(u.release) : strdup("?");
}

char *fs_host_name(void)
{
	char h[256];

	if (gethostname(h, sizeof(h)) < 0)
		return strdup("?");
	h[sizeof(h) - 1] = '\0';
	return strdup(h);
}

/* CONFIG_HZ from the kernel's build config, the figure behind the 100 Hz vs
 * 1000 Hz question; -1 when the config is not installed. */
int fs_config_hz(const char *release)
{
	char path[512], line[256];
	int hz = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "CONFIG_HZ=", 10) == 0) {
			hz = atoi(line + 10);
			break;
		}
	fclose(f);
	return hz > 0 ? hz : -1;
}

void fs_comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		snprintf(buf, len, "?");
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/* The kernel only lets FUSE lower its readahead at init (it takes the min
 * of ours and the bdi default, 128 KiB), so raise it through the mount's
 * bdi in sysfs.  The bdi is found in mountinfo, not by stat()ing the mount
 * point: that would send us a request before the loop serves any. */
int fs_set_readahead(const char *mountpoint, unsigned kb)
{
	char line[4096], dev[64] = "", path[128];
	int rc = -ENOENT, fd;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char d[64], mp[2048];

		/* id parent major:minor root mountpoint ... */
		if (sscanf(line, "%*s %*s %63s %*s %2047s", d, mp) == 2 &&
		    strcmp(mp, mountpoint) == 0)
			snprintf(dev, sizeof(dev), "%s", d);
	}
	fclose(f);
	if (!dev[0])
		return rc;
	snprintf(path, sizeof(path), "/sys/class/bdi/%s/read_ahead_kb", dev);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(line, sizeof(line), "%u\n", kb);
	rc = write(fd, line, strlen(line)) < 0 ? -errno : 0;
	close(fd);
	return rc;
}

unsigned long fs_pipe_max(void)
{
	unsigned long v = 0;
	FILE *f = fopen("/proc/sys/fs/pipe-max-size", "re");

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

unsigned long fs_splice_pipe_need(size_t len)
{
	/* libfuse 3.14 fuse_send_data_iov_splice: pagesize * (header iov
	 * + buffers + 1) + header + data, which it must get from
	 * F_SETPIPE_SZ or else it copies into a buffer it allocates per
	 * reply.  Buffers are up to ENG_ZC_MAX_SLOTS pieces. */
	unsigned long need = 4096UL * (1 + ENG_ZC_MAX_SLOTS + 1) + 16 + len;
	unsigned long p = 4096;

	while (p < need)
		p <<= 1;
	return p;
}

/* Each stream opens a file per clip and track it plays (a 21-clip edit of
 * video and two audio tracks: 63), plus a pipe pair per ring slot with
 * zero copy: a few dozen streams pass the usual soft limit of 1024, and
 * the frames of the next would fail with EMFILE.  The hard limit is the
 * administrator's; the soft one is ours to raise up to it. */
int fs_raise_nofile(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return -1;
	if (r.rlim_cur >= r.rlim_max)
		return 0;
	r.rlim_cur = r.rlim_max;
	return setrlimit(RLIMIT_NOFILE, &r);
}
