/* SPDX-License-Identifier: MIT */
/*
 * Going to the background as fuse_daemonize() does (fork, setsid, chdir /,
 * stdio on /dev/null), with one difference that matters to scripts: the
 * parent waits for the child's verdict.  fuse_daemonize() runs after the
 * mount and lets the parent exit before anything that follows it, so
 * `timelinefs MEDIA MNT && sqlite3 DB 'select ... from run'` could find no
 * run yet.  Here the child records the run and mounts first, and the
 * parent exits 0 only then; if the child fails, its messages reach the
 * terminal (stderr is still the caller's) and the parent exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fs.h"

/* the child's end of the pipe to the waiting parent; -1 in foreground */
static int ready_fd = -1;

int fs_daemon_start(int foreground)
{
	ssize_t n;
	pid_t pid;
	char c;
	int p[2];

	if (foreground)
		return 0;
	if (pipe2(p, O_CLOEXEC) < 0) {
		fprintf(stderr, "timelinefs: pipe: %s\n", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "timelinefs: fork: %s\n", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid > 0) {
		int told = 0;

		/* EOF: the child exited without saying it is ready.  Ctrl-C
		 * (libfuse's handlers are in place) interrupts the wait; the
		 * child, in a session of its own, does not see it: pass it
		 * on, and the child gives up before it says it is ready. */
		close(p[1]);
		while ((n = read(p[0], &c, 1)) < 0 && errno == EINTR)
			if (!told++)
				kill(pid, SIGTERM);
		_exit(n == 1 && c == 0 ? 0 : 1);
	}
	close(p[0]);
	ready_fd = p[1];
	if (setsid() < 0) {
		fprintf(stderr, "timelinefs: setsid: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

void fs_daemon_ready(void)
{
	const char ok = 0;
	int fd;

	/* as fuse_daemonize, in foreground too: do not hold a directory */
	if (chdir("/") < 0)
		fprintf(stderr, "timelinefs: chdir /: %s\n", strerror(errno));
	if (ready_fd < 0)
		return;
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	if (write(ready_fd, &ok, 1) != 1) {
		/* the parent is gone; nobody is waiting for the verdict */
	}
	close(ready_fd);
	ready_fd = -1;
}
