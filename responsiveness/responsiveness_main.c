/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-probe: how long interactive work takes beside playback.
 * Every period (--period) it starts a small program and waits for it (fork,
 * exec, exit) and stats every file of a folder (a file manager's listing
 * of a project), each timed on CLOCK_MONOTONIC, one line a sample on
 * stdout; timelinefs-bench runs it beside the streams of each step.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "responsiveness.h"

#define PROG PROBE_PROG
#define NS 1000000000LL

struct probe {
	const char *dir;  /* the folder walked */
	const char *prog; /* the program started */
	int64_t period_ns;
	int64_t duration_ns; /* 0: until SIGTERM or SIGINT */
	int64_t unix_off_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
	long missed;	     /* periods skipped: a sample overran them */
	int failed_spawn, failed_walk; /* said once each on stderr */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

/* Start p->prog and wait for it: 1 when it exited 0. */
static int spawn_once(const struct probe *p)
{
	pid_t pid;
	int status, rc;

	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		char *const argv[] = {(char *)p->prog, NULL};

		execv(p->prog, argv);
		_exit(127);
	}
	/* a signal to stop must not leave the child unreaped */
	do
		rc = waitpid(pid, &status, 0);
	while (rc < 0 && errno == EINTR);
	return rc == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* Read DIR and stat each of its entries: 1 when all could be; *items the
 * entries stat'ed. */
static int walk_once(const struct probe *p, long *items)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int ok = 1;

	*items = 0;
	d = opendir(p->dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' &&
		    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			ok = 0;
		else
			(*items)++;
	}
	closedir(d);
	return ok;
}

/* One period's samples, each printed with its start and latency. */
static void sample(struct probe *p)
{
	int64_t t0, t1, t2;
	long items;
	int ok;

	t0 = mono_ns();
	ok = spawn_once(p);
	t1 = mono_ns();
	printf("spawn %lld %lld 1 %d\n", (long long)(t0 + p->unix_off_ns),
	       (long long)(t1 - t0), ok);
	if (!ok && !p->failed_spawn++)
		fprintf(stderr, PROG ": %s did not run to a 0 exit status\n",
			p->prog);
	ok = walk_once(p, &items);
	t2 = mono_ns();
	printf("walk %lld %lld %ld %d\n", (long long)(t1 + p->unix_off_ns),
	       (long long)(t2 - t1), items, ok);
	if (!ok && !p->failed_walk++)
		fprintf(stderr, PROG ": cannot read every file of %s\n",
			p->dir);
}

/* The deadline after *next, whose samples ended at now: the next period's,
 * or, when the samples overran it too, the first of the same grid still
 * ahead (the skipped ones counted): a late sample shifts no later one. */
static void advance(struct probe *p, int64_t *next, int64_t now)
{
	int64_t k;

	*next += p->period_ns;
	if (*next > now)
		return;
	k = (now - *next) / p->period_ns + 1;
	*next += k * p->period_ns;
	p->missed += k;
}

static int run(struct probe *p)
{
	struct timespec ts;
	int64_t start, next, end;

	clock_gettime(CLOCK_REALTIME, &ts);
	start = mono_ns();
	p->unix_off_ns = (int64_t)ts.tv_sec * NS + ts.tv_nsec - start;
	next = start;
	end = p->duration_ns ? start + p->duration_ns : INT64_MAX;
	while (!stop && next < end) {
		ts.tv_sec = next / NS;
		ts.tv_nsec = next % NS;
		/* EINTR: a signal to stop, which the loop sees */
		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				    NULL) != 0)
			continue;
		sample(p);
		advance(p, &next, mono_ns());
	}
	if (p->missed)
		fprintf(stderr,
			PROG ": %ld periods skipped: a sample overran them\n",
			p->missed);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, PROG ": cannot write the samples: %s\n",
			strerror(errno));
		return 1;
	}
	return 0;
}

/* A decimal number >= 0 of unit_ns units (fractions allowed), as ns. */
static int parse_time(const char *s, double unit_ns, int64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v * unit_ns > 1e18)
		return -EINVAL;
	*out = (int64_t)(v * unit_ns);
	return 0;
}

/* The folder and the program: 0, or 1 with the reason said. */
static int check_args(const struct probe *p)
{
	struct stat st;

	if (stat(p->dir, &st) < 0) {
		fprintf(stderr, PROG ": %s: %s\n", p->dir, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, PROG ": %s: not a folder\n", p->dir);
		return 1;
	}
	if (p->prog[0] != '/') {
		fprintf(stderr, PROG ": --exec %s: expected an absolute path\n",
			p->prog);
		return 1;
	}
	if (access(p->prog, X_OK) < 0) {
		fprintf(stderr, PROG ": --exec %s: %s\n", p->prog,
			strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* the defaults: the table's */
	struct probe p = {
	    .prog = probe_optdoc("exec")->def,
	    .period_ns = (int64_t)probe_optdoc("period")->def_n * 1000000,
	};
	struct sigaction sa;
	pid_t parent = getppid();
	int c;

	while ((c = getopt_long(argc, argv, "hV", probe_long_options(),
				NULL)) != -1) {
		switch (c) {
		case PROBE_OPT_PERIOD:
			if (parse_time(optarg, 1e6, &p.period_ns) < 0 ||
			    p.period_ns < 1000000) {
				fprintf(stderr,
					PROG
					": invalid --period '%s': expected "
					"milliseconds, at least 1\n",
					optarg);
				return 2;
			}
			break;
		case PROBE_OPT_EXEC:
			p.prog = optarg;
			break;
		case PROBE_OPT_DURATION:
			if (parse_time(optarg, 1e9, &p.duration_ns) < 0) {
				fprintf(stderr,
					PROG ": invalid --duration '%s': "
					     "expected seconds\n",
					optarg);
				return 2;
			}
			break;
		case PROBE_OPT_DOC:
			return probe_doc_options(optarg) < 0 ? 2 : 0;
		case 'h':
			probe_usage(stdout);
			return 0;
		case 'V':
			puts(PROG " " TLFS_VERSION);
			return 0;
		default:
			fputs("Try '" PROG " --help'.\n", stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": %s\nTry '" PROG " --help'.\n",
			optind == argc ? "missing DIR" : "one DIR only");
		return 2;
	}
	p.dir = argv[optind];
	if (check_args(&p))
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	/* no SA_RESTART: the sleep returns at once to a signal */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* A bench killed with -9 cannot stop its probe: the probe ends with
	 * its parent (SIGTERM: what it has is written) rather than sample
	 * for ever; a parent gone before this call is seen by getppid. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() != parent)
		return 0;
	return run(&p);
}
