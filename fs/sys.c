/* SPDX-License-Identifier: MIT */
/* Facts about the host for the run row and the readers (the host probe,
 * engine/probe/hostfacts.h, reads the files), and the mount's readahead
 * knob and open file limit. */
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

/* The host probe's real I/O, for the calls below */
static const struct eng_probe_io *real_io(struct eng_probe_io *io)
{
	eng_probe_io_real(io);
	return io;
}

char *fs_machine_id(void)
{
	struct eng_probe_io io;

	return eng_probe_machine_id(real_io(&io));
}

void fs_reader_of(pid_t tid, struct fs_reader *r)
{
	pid_t sid = tid > 0 ? getsid(tid) : -1;
	struct eng_probe_io io;

	real_io(&io);
	r->tid = tid;
	r->pid = tid > 0 ? (pid_t)eng_probe_tgid(&io, tid) : 0;
	/* 0 is a real answer (a reader in a container whose session
	 * leader we cannot see; CI runners are), not "unknown" */
	r->sid = sid >= 0 ? sid : -1;
	/* the process's name, not the thread's: a player's reading thread
	 * names itself ("vlc:demux"); the thread's when the process is
	 * unknown */
	eng_probe_comm(&io, r->pid ? r->pid : tid, r->comm, sizeof(r->comm));
}

/* The kernel only lets FUSE lower its readahead at init (it takes the min
 * of ours and the bdi default, 128 KiB), so raise it through the mount's
 * bdi in sysfs.  The bdi is found in mountinfo (eng_probe_readahead_file),
 * not by stat()ing the mount point: that would send us a request before
 * the loop serves any. */
int fs_set_readahead(const char *mountpoint, unsigned kb)
{
	struct eng_probe_io io;
	char path[128], line[32];
	int rc, fd;

	rc = eng_probe_readahead_file(real_io(&io), mountpoint, path,
				      sizeof(path));
	if (rc < 0)
		return rc;
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
	struct eng_probe_io io;

	return eng_probe_pipe_max(real_io(&io));
}

unsigned long fs_splice_pipe_need(size_t len)
{
	/* libfuse 3.14 fuse_send_data_iov_splice: pagesize * (header iov
	 * + buffers + 1) + header + data, which it must get from
	 * F_SETPIPE_SZ or else it copies into a buffer it allocates per
	 * reply.  Buffers: a movie's header and the player's reply pipe. */
	unsigned long need = 4096UL * (1 + ENG_ZC_PIECES + 1 + 1) + 16 + len;
	unsigned long p = 4096;

	while (p < need)
		p <<= 1;
	return p;
}

int fs_splice_pieces(size_t len)
{
	/* a reply of len bytes spliced from n pieces of files at any
	 * offsets takes up to len / 4096 + 2n pages and the header's of the
	 * pipe of fs_splice_pipe_need(len), at least twice len: the rest
	 * spilled, libfuse copies the reply */
	size_t n = (fs_splice_pipe_need(len) / 4096 - len / 4096 - 1) / 2;

	return n < ENG_FD_PIECES ? (int)n : ENG_FD_PIECES;
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
