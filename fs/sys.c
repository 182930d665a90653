/* SPDX-License-Identifier: MIT */
/* Facts about the host for the run row, and the mount's readahead knob. */
#include <ctype.h>
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

/* One line of 32 hex digits (machine-id(5)); NULL otherwise. */
static char *read_machine_id(const char *path)
{
	char buf[64];
	size_t n, i;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (strlen(buf) != 32)
		return NULL;
	for (i = 0; i < 32; i++)
		if (!isxdigit((unsigned char)buf[i]))
			return NULL;
	return strdup(buf);
}

char *fs_machine_id(void)
{
	char *id = read_machine_id("/etc/machine-id");

	return id ? id : read_machine_id("/var/lib/dbus/machine-id");
}

/* The whole of a small file, through the host probe's real I/O. */
char *fs_read_file(const char *path, size_t max, size_t *len)
{
	struct eng_probe_io io;

	eng_probe_io_real(&io);
	return io.read(io.ctx, path, max, len);
}

int fs_read_line(const char *path, char *buf, size_t len)
{
	struct eng_probe_io io;

	eng_probe_io_real(&io);
	return eng_probe_line(&io, path, buf, len);
}

/* The first line of /proc/PID/FILE (no newline) into buf, or "?". */
static void proc_line(pid_t pid, const char *file, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(buf, len, "?");
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
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

/* The thread group of a thread: /proc/TID/status "Tgid:" (a thread that
 * is not its process's main one has a /proc entry too, unlisted).  0 when
 * the thread is gone. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[128];
	pid_t tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid > 0 ? tgid : 0;
}

void fs_reader_of(pid_t tid, struct fs_reader *r)
{
	pid_t sid = tid > 0 ? getsid(tid) : -1;

	r->tid = tid;
	r->pid = tid > 0 ? tgid_of(tid) : 0;
	/* 0 is a real answer (a reader in a container whose session
	 * leader we cannot see; CI runners are), not "unknown" */
	r->sid = sid >= 0 ? sid : -1;
	/* the process's name, not the thread's: a player's reading thread
	 * names itself ("vlc:demux"); the thread's when the process is
	 * unknown */
	proc_line(r->pid ? r->pid : tid, "comm", r->comm, sizeof(r->comm));
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
int fs_raise_nofile(uint64_t *soft)
{
	struct rlimit r;
	int rc = 0;

	*soft = 1024;	/* the usual soft limit, should getrlimit fail */
	if (getrlimit(RLIMIT_NOFILE, &r) < 0)
		return -1;
	if (r.rlim_cur < r.rlim_max) {
		rlim_t was = r.rlim_cur;

		r.rlim_cur = r.rlim_max;
		rc = setrlimit(RLIMIT_NOFILE, &r);
		if (rc < 0)
			r.rlim_cur = was;
	}
	*soft = r.rlim_cur == RLIM_INFINITY ? UINT64_MAX :
					      (uint64_t)r.rlim_cur;
	return rc;
}
