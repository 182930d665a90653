/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-hosts: one experiment over many client hosts under MPI (issue
 * 24), one rank per host, each with its own mount and database; rank 0
 * plans the steps, starts them together and merges the databases.  Here:
 * the options parsed (the same on every rank: mpirun gives each the same
 * command line; their rows, defaults and ranges: launcher_opttab.c), MPI's
 * start and end.
 */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"

static int is_rank0(void)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");

	return !r || !strcmp(r, "0");
}

static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	if (is_rank0()) {
		fprintf(stderr, "%s: ", HL_PROG);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\nTry '%s --help'.\n", HL_PROG);
	}
	return 2;
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < lo || v > hi)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* a count of option key within its row's range */
static int parse_count(int key, const char *s, unsigned *out)
{
	const struct eng_optdoc *r = hl_optdoc(key);

	return parse_uint(s, (unsigned)r->lo, (unsigned)r->hi, out);
}

static int parse_secs(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !(v >= 0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

static int parse_ws(struct hl_opts *o, const char *s)
{
	const char *p = s;

	o->n_ws = 0;
	while (*p) {
		char num[16];
		size_t l = strcspn(p, ",");

		if (!l || l >= sizeof(num) || o->n_ws == HL_MAX_WS)
			return -1;
		memcpy(num, p, l);
		num[l] = '\0';
		if (parse_uint(num, 1, HL_MAX_COUNT, &o->ws[o->n_ws++]) < 0)
			return -1;
		p += l;
		if (*p == ',' && !*++p)
			return -1;
	}
	return o->n_ws ? 0 : -1;
}

/* -o options the launcher sets itself */
static const char *own_opt(const char *opts)
{
	static const char *const own[] = {"pace", "db", "label", "experiment",
					  "rank"};
	const char *p = opts;
	size_t i;

	while (*p) {
		size_t l = 0;

		/* an escaped comma separates nothing */
		while (p[l] && p[l] != ',') {
			if (p[l] == '\\' && p[l + 1])
				l++;
			l++;
		}
		for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
			size_t n = strlen(own[i]);

			if (l > n && !strncmp(p, own[i], n) && p[n] == '=')
				return own[i];
		}
		p += l;
		if (*p)
			p++;
	}
	return NULL;
}

/* --pace MODE: its speed, 1 realtime, 0 off; 0 or -1 */
static int set_pace(struct hl_opts *o, const char *a)
{
	o->pace = a;
	if (!strcmp(a, "realtime"))
		o->speed = 1;
	else if (!strcmp(a, "off"))
		o->speed = 0;
	else if (parse_secs(a, &o->speed) < 0 || o->speed <= 0)
		return -1;
	return 0;
}

/* What parse_* say of an option: */
#define PARSE_OK 0
#define PARSE_OTHER 1	/* not that parser's */
/* else usage_error's 2, or -1: answered (--help, --version) */

/* The options of numbers: counts, seconds and the pace. */
static int parse_number(struct hl_opts *o, int c, const char *a,
			int *from_set, int *max_set)
{
	switch (c) {
	case HL_OPT_FROM:
		*from_set = 1;
		if (parse_count(c, a, &o->from) < 0)
			return usage_error("invalid --from '%s': expected a "
					   "whole number from 1", a);
		return PARSE_OK;
	case HL_OPT_MAX:
		*max_set = 1;
		if (parse_count(c, a, &o->max) < 0)
			return usage_error("invalid --max '%s': expected a "
					   "whole number from 1", a);
		return PARSE_OK;
	case HL_OPT_REPEAT:
		if (parse_count(c, a, &o->repeat) < 0)
			return usage_error("invalid --repeat '%s': expected a "
					   "whole number from 1", a);
		return PARSE_OK;
	case HL_OPT_WARMUP:
		if (parse_count(c, a, &o->warmup) < 0)
			return usage_error("invalid --warmup '%s': expected a "
					   "whole number (0: none)", a);
		return PARSE_OK;
	case HL_OPT_PACE:
		if (set_pace(o, a) < 0)
			return usage_error("invalid --pace '%s': expected "
					   "realtime, off or a factor like 2",
					   a);
		return PARSE_OK;
	case HL_OPT_MARGIN:
		if (parse_secs(a, &o->start_margin) < 0)
			return usage_error("invalid --start-margin '%s': "
					   "expected seconds like 2 or 0.5", a);
		return PARSE_OK;
	case HL_OPT_TIMEOUT:
		if (parse_secs(a, &o->step_timeout) < 0 ||
		    o->step_timeout <= 0)
			return usage_error("invalid --step-timeout '%s': "
					   "expected seconds above 0", a);
		return PARSE_OK;
	case HL_OPT_ROUNDS:
		if (parse_count(c, a, &o->sync_rounds) < 0)
			return usage_error("invalid --sync-rounds '%s': "
					   "expected 1 to 256", a);
		return PARSE_OK;
	}
	return PARSE_OTHER;
}

/* The options of names: paths, commands, the cache and the label. */
static int parse_name(struct hl_opts *o, int c, const char *a)
{
	const char *bad;

	switch (c) {
	case HL_OPT_MEDIA:
		o->media = a;
		return PARSE_OK;
	case HL_OPT_CACHE:
		if (strcmp(a, "drop") && strcmp(a, "prime") && strcmp(a, "keep"))
			return usage_error("invalid --cache '%s': expected "
					   "drop, prime or keep", a);
		o->cache = a;
		return PARSE_OK;
	case HL_OPT_READER:
		if (!*a)
			return usage_error("--reader needs a command");
		o->reader = a;
		return PARSE_OK;
	case HL_OPT_MOUNTOPTS:
		bad = own_opt(a);
		if (bad)
			return usage_error("--mount-opts cannot set %s=: the "
					   "launcher sets it (--%s)", bad,
					   !strcmp(bad, "experiment") ||
						   !strcmp(bad, "rank") ?
						   "its own" : bad);
		o->mount_opts = *a ? a : NULL;
		return PARSE_OK;
	case HL_OPT_LABEL:
		o->label = a;
		return PARSE_OK;
	case HL_OPT_DB:
		if (!*a)
			return usage_error("--db needs a path");
		o->db = a;
		return PARSE_OK;
	case HL_OPT_OUT:
		if (!*a)
			return usage_error("--out needs a path");
		o->out = a;
		return PARSE_OK;
	case HL_OPT_MNT:
		if (!*a)
			return usage_error("--mountpoint needs a folder");
		o->mountpoint = a;
		return PARSE_OK;
	}
	return PARSE_OTHER;
}

/* The options that go together, after the last: 0 or usage_error's. */
static int parse_check(const struct hl_opts *o, const char *ws,
		       int from_set, int max_set, int causes_set)
{
	if (!o->media)
		return usage_error(
		    "give --media DIR (the same path on every host)");
	if (ws && o->find_max)
		return usage_error(
		    "give --workstations LIST or --find-max, not both");
	if (!ws && !o->find_max)
		return usage_error("give --workstations LIST or --find-max");
	if (from_set && !o->find_max)
		return usage_error("--from goes with --find-max");
	if (max_set && !o->find_max)
		return usage_error("--max goes with --find-max");
	if (causes_set && !o->find_max)
		return usage_error("--late-causes goes with --find-max");
	if (from_set && max_set && o->from > o->max)
		return usage_error("--from %u is above --max %u", o->from,
				   o->max);
	return 0;
}

/* The command line, as the experiment's row says it. */
static char *command_of(int argc, char **argv)
{
	size_t len = 1;
	char *cmd;
	int c;

	for (c = 0; c < argc; c++)
		len += strlen(argv[c]) + 1;
	cmd = calloc(1, len);
	if (!cmd)
		return NULL;
	for (c = 0; c < argc; c++) {
		if (c)
			strcat(cmd, " ");
		strcat(cmd, argv[c]);
	}
	return cmd;
}

/* The defaults, the rows': a said default that is no value (--label's
 * "uname -r of rank 0") is left NULL, found at the start. */
static void opts_default(struct hl_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->repeat = (unsigned)hl_optdoc(HL_OPT_REPEAT)->def_n;
	o->warmup = (unsigned)hl_optdoc(HL_OPT_WARMUP)->def_n;
	o->sync_rounds = (unsigned)hl_optdoc(HL_OPT_ROUNDS)->def_n;
	o->start_margin = (double)hl_optdoc(HL_OPT_MARGIN)->def_n / 1000;
	o->step_timeout = (double)hl_optdoc(HL_OPT_TIMEOUT)->def_n / 1000;
	o->cache = hl_optdoc(HL_OPT_CACHE)->def;
	o->reader = hl_optdoc(HL_OPT_READER)->def;
	o->db = hl_optdoc(HL_OPT_DB)->def;
	o->out = hl_optdoc(HL_OPT_OUT)->def;
	/* the rows' words, known good: test_man.sh runs -h with them */
	set_pace(o, hl_optdoc(HL_OPT_PACE)->def);
	eng_late_causes_parse(hl_optdoc(HL_OPT_LATE_CAUSES)->def,
			      &o->late_causes);
}

/* 0, 2 (a usage error, said), or -1 (answered: --help, --version). */
static int parse(int argc, char **argv, struct hl_opts *o)
{
	const char *ws = NULL;
	int c, rc, from_set = 0, max_set = 0, causes_set = 0;

	opts_default(o);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":hV", hl_long_options(),
				NULL)) != -1) {
		rc = parse_number(o, c, optarg, &from_set, &max_set);
		if (rc == PARSE_OTHER)
			rc = parse_name(o, c, optarg);
		if (rc != PARSE_OTHER) {
			if (rc != PARSE_OK)
				return rc;
			continue;
		}
		switch (c) {
		case HL_OPT_WS:
			ws = optarg;
			if (parse_ws(o, optarg) < 0)
				return usage_error(
				    "invalid --workstations '%s': expected "
				    "counts like 10,20,40", optarg);
			break;
		case HL_OPT_FINDMAX:
			o->find_max = 1;
			break;
		case HL_OPT_LATE_CAUSES:
			causes_set = 1;
			if (eng_late_causes_parse(optarg, &o->late_causes) < 0)
				return usage_error(
				    "invalid --late-causes '%s': expected all "
				    "or causes joined by commas, each once: "
				    "storage, issue, timer, reader, recording, "
				    "writer", optarg);
			break;
		case HL_OPT_MOVIE:
			o->movie = 1;
			break;
		case 'h':
			if (is_rank0())
				hl_usage();
			return -1;
		case HL_OPT_DOC:
			if (hl_doc_options(optarg) < 0)
				return 2;
			return -1;
		case 'V':
			if (is_rank0())
				printf("%s %s\n", HL_PROG, TLFS_VERSION);
			return -1;
		case ':':
			return usage_error("option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	rc = parse_check(o, ws, from_set, max_set, causes_set);
	if (rc)
		return rc;
	o->command = command_of(argc, argv);
	return o->command ? 0 : 2;
}

static int out_folder_missing(const char *out)
{
	char *copy = strdup(out), *dir;
	int bad;

	if (!copy)
		return 1;
	dir = dirname(copy);
	bad = access(dir, W_OK | X_OK) < 0;
	if (bad)
		fprintf(stderr, "%s: cannot write --out %s: %s: %s\n", HL_PROG,
			out, dir, strerror(errno));
	free(copy);
	return bad;
}

#ifdef __SANITIZE_ADDRESS__
/* Open MPI has no frame pointers: LSan's fast unwinder stops at its first
 * frame, often an unloaded component's, which tests/lsan.supp cannot name;
 * the slow one reaches libmpi's frames (a run of the launcher, not of the
 * daemon, which keeps the fast one) */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "fast_unwind_on_malloc=0";
}
#endif

#define FINALIZE_S 30
static volatile sig_atomic_t exit_rc;

static void finalize_stuck(int sig)
{
	(void)sig;
	_exit(exit_rc);
}

/* rank 0's last line on stdout: mpirun --enable-recovery exits 0
 * whatever the ranks do, so timelinefs-hosts-run reads the verdict here */
static int said(int rc)
{
	if (is_rank0()) {
		printf("%s: exit status %d\n", HL_PROG, rc);
		fflush(stdout);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct hl_opts o;
	struct hl_host h;
	int rc, rank = 0, size = 1;

	rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : said(rc);
	if (hl_clock_init() < 0) {
		fprintf(stderr,
			"%s: invalid TIMELINEFS_TEST_CLOCK_OFFSET_NS '%s': "
			"expected nanoseconds\n",
			HL_PROG, getenv("TIMELINEFS_TEST_CLOCK_OFFSET_NS"));
		return said(2);
	}
	/* rank 0 writes --out at the end: a folder that is not there is
	 * said now, not after the experiment (mpirun ends the others) */
	if (is_rank0() && out_folder_missing(o.out))
		return said(1);
	if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
		fprintf(stderr, "%s: MPI_Init failed\n", HL_PROG);
		return said(1);
	}
	/* errors come back as codes: a dead rank is an answer, not an abort */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	hl_signals();
	if (hl_host_init(&h, &o, rank, size) < 0) {
		fprintf(stderr, "%s: out of memory\n", HL_PROG);
		MPI_Abort(MPI_COMM_WORLD, 1);
		return 1;
	}
	rc = rank == 0 ? hl_rank0(&h) : hl_rank_other(&h);
	hl_host_free(&h);
	free(o.command);
	if (rank == 0)
		said(rc);
	fflush(NULL);
	/* MPI_Finalize waits for every rank (a PMIx fence), a dead one
	 * too: not after a rank died (mpirun --enable-recovery lets the
	 * others end without it), nor when stopped (a signal, rank 0 gone:
	 * mpirun ends the others); and at most FINALIZE_S otherwise */
	if (rc > 128 || (rank && rc) || h.no_finalize)
		_exit(rc);
	exit_rc = rc;
	signal(SIGALRM, finalize_stuck);
	alarm(FINALIZE_S);
	MPI_Finalize();
	alarm(0);
	return rc;
}
