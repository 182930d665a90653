/* SPDX-License-Identifier: MIT */
/*
 * The launcher's clocks, child processes, signals and mounts.  A child (the
 * daemon, a bench) runs in a process group of its own, so that the rank
 * stops all of it with one kill and Open MPI's kill of the rank's group
 * does not cut the daemon's flush short; PR_SET_PDEATHSIG stops it when the
 * rank itself dies (kill -9, Open MPI's SIGKILL a second after SIGTERM).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher.h"

volatile sig_atomic_t hl_stop_signal;
static int64_t test_offset_ns;

int hl_clock_init(void)
{
	const char *v = getenv("TIMELINEFS_TEST_CLOCK_OFFSET_NS");
	char *end;
	long long x;

	if (!v || !*v)
		return 0;
	errno = 0;
	x = strtoll(v, &end, 10);
	if (errno || *end)
		return -EINVAL;
	test_offset_ns = x;
	return 0;
}

int64_t hl_now_rt(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec + test_offset_ns;
}

int64_t hl_now_mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

void hl_iso_time(int64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000);
	struct tm tm;
	char d[32];

	gmtime_r(&s, &tm);
	strftime(d, sizeof(d), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", d, (int)(ns / 1000000 % 1000));
}

void hl_sleep_ms(unsigned ms)
{
	struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000};

	nanosleep(&t, NULL);
}

const char *hl_sig_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	case SIGHUP:
		return "SIGHUP";
	}
	return "a signal";
}

static void on_signal(int sig)
{
	if (!hl_stop_signal)
		hl_stop_signal = sig;
}

void hl_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

pid_t hl_spawn(const char *const argv[], const char *log)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	sigset_t none;
	int fd;

	if (pid != 0)
		return pid;
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, 0);
		close(fd);
	}
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, 1);
		dup2(fd, 2);
	}
	execv(argv[0], (char *const *)argv);
	fprintf(stderr, "%s: cannot run %s: %s\n", HL_PROG, argv[0],
		strerror(errno));
	_exit(127);
}

int hl_reap(pid_t pid, int *status)
{
	pid_t r = waitpid(pid, status, WNOHANG);

	if (r == pid)
		return 1;
	if (r < 0 && errno == ECHILD) {
		*status = 0;
		return 1;
	}
	return 0;
}

void hl_kill_group(pid_t pid, unsigned grace_ms)
{
	int st;
	unsigned i;

	if (pid <= 0)
		return;
	kill(-pid, SIGTERM);
	for (i = 0; i < grace_ms / 10; i++) {
		if (hl_reap(pid, &st))
			break;
		hl_sleep_ms(10);
	}
	/* the group, also what the leader left behind */
	kill(-pid, SIGKILL);
	if (i >= grace_ms / 10)
		waitpid(pid, &st, 0);
}

/* /proc/mounts escapes blanks and backslashes in octal */
static void mount_escape(const char *in, char *out, size_t len)
{
	size_t k = 0;

	for (; *in && k + 5 < len; in++) {
		if (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\\')
			k += (size_t)snprintf(out + k, len - k, "\\%03o",
					      (unsigned char)*in);
		else
			out[k++] = *in;
	}
	out[k] = '\0';
}

int hl_mounted(const char *mnt)
{
	char esc[PATH_MAX * 4], line[PATH_MAX * 4 + 256];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;
	size_t n;

	if (!f)
		return 0;
	mount_escape(mnt, esc, sizeof(esc));
	n = strlen(esc);
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ' ');

		if (p && !strncmp(p + 1, esc, n) && p[1 + n] == ' ' &&
		    !strncmp(p + 2 + n, "fuse", 4))
			found = 1;
	}
	fclose(f);
	return found;
}

static int run_wait(const char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void hl_unmount(const char *mnt, int tries)
{
	const char *u[] = {"fusermount3", "-u", mnt, NULL};
	const char *z[] = {"fusermount3", "-u", "-z", mnt, NULL};
	int i;

	for (i = 0; i < tries && hl_mounted(mnt); i++) {
		if (run_wait(u) == 0)
			return;
		hl_sleep_ms(50);
	}
	if (hl_mounted(mnt))
		run_wait(z);
}

void hl_tail(const char *path, char *buf, size_t len, int lines)
{
	char all[8192];
	FILE *f = fopen(path, "r");
	size_t n;
	long sz;
	char *p;
	int k = 0;

	buf[0] = '\0';
	if (!f)
		return;
	fseek(f, 0, SEEK_END);
	sz = ftell(f);
	if (sz > (long)sizeof(all) - 1)
		fseek(f, sz - (long)sizeof(all) + 1, SEEK_SET);
	else
		fseek(f, 0, SEEK_SET);
	n = fread(all, 1, sizeof(all) - 1, f);
	fclose(f);
	all[n] = '\0';
	while (n > 0 && (all[n - 1] == '\n' || all[n - 1] == ' '))
		all[--n] = '\0';
	p = all + n;
	while (p > all) {
		if (p[-1] == '\n' && ++k >= lines)
			break;
		p--;
	}
	snprintf(buf, len, "%s", p);
	/* one line of text for a row and a message */
	for (p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

static char *exe_in(const char *dir, const char *name)
{
	char *p;
	struct stat st;

	if (asprintf(&p, "%s/%s", dir, name) < 0)
		return NULL;
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && !access(p, X_OK))
		return p;
	free(p);
	return NULL;
}

char *hl_find_bin(const char *name)
{
	char self[PATH_MAX], dir[PATH_MAX + 32];
	const char *env = getenv("TIMELINEFS_BIN_DIR");
	const char *path = getenv("PATH");
	char *p;
	ssize_t n;

	if (env && *env && (p = exe_in(env, name)))
		return p;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		*strrchr(self, '/') = '\0';
		if ((p = exe_in(self, name)))
			return p;
		snprintf(dir, sizeof(dir), "%s/../mount-scripts", self);
		if ((p = exe_in(dir, name)))
			return p;
		snprintf(dir, sizeof(dir), "%s/../../mount-scripts", self);
		if ((p = exe_in(dir, name)))
			return p;
	}
	while (path && *path) {
		const char *c = strchr(path, ':');
		size_t l = c ? (size_t)(c - path) : strlen(path);

		snprintf(dir, sizeof(dir), "%.*s", (int)l, path);
		if (l && (p = exe_in(dir, name)))
			return p;
		path = c ? c + 1 : NULL;
	}
	return NULL;
}
