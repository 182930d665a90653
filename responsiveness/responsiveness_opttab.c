/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-probe's options, one row each (util/optdoc.h): -h's list,
 * the man page's OPTIONS items (make docs-options), getopt's table and
 * the period's and program's defaults come from these rows.
 */
#include <stdio.h>
#include <stdlib.h>

#include "responsiveness.h"

const struct eng_optdoc probe_optdocs[] = {
    {"period", "MS", ENG_OT_UINT, NULL, 100, 0, 0,
     "the period in milliseconds, at least 1", NULL, 0, PROBE_OPT_PERIOD},
    {"exec", "PROGRAM", ENG_OT_TEXT, "/bin/true", 0, 0, 0,
     "the program started each period, an absolute path", NULL, 0,
     PROBE_OPT_EXEC},
    {"duration", "SECONDS", ENG_OT_TEXT, "0: at a signal", 0, 0, 0,
     "stop after this long", NULL, 0, PROBE_OPT_DURATION},
    {"-h, --help", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
     "print this help and exit", NULL, 0, 'h'},
    {"-V, --version", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
     "print the version and exit", NULL, 0, 'V'},
};
const size_t probe_noptdocs = sizeof(probe_optdocs) / sizeof(probe_optdocs[0]);

static const struct eng_optdoc_style style = {"--", ' ', 2, 22, NULL};

const struct eng_optdoc *probe_optdoc(const char *name)
{
	return eng_optdoc_find(probe_optdocs, probe_noptdocs, name);
}

/* b's text on f, freed: 0, or -1 said */
static int put(struct eng_strbuf *b, FILE *f)
{
	int rc = b->err ? -1 : 0;

	if (rc)
		fprintf(stderr, PROBE_PROG ": out of memory\n");
	else if (b->p)
		fputs(b->p, f);
	free(b->p);
	return rc;
}

void probe_usage(FILE *f)
{
	struct eng_strbuf b = {0};
	size_t i;

	/* clang-format off */
	eng_strbuf_printf(&b,
"usage: " PROBE_PROG " [--period MS] [--exec PROGRAM] [--duration SECONDS] DIR\n"
"Every period, start PROGRAM and wait for it, then stat every file of DIR;\n"
"print a line per sample on stdout:\n"
"  KIND START_UNIX_NS LATENCY_NS ITEMS OK\n"
"KIND spawn (fork, exec, exit) or walk (readdir and stat of DIR's files,\n"
"ITEMS of them); START on CLOCK_REALTIME, LATENCY on CLOCK_MONOTONIC; OK 1,\n"
"or 0 when the program failed or a file could not be read.  The periods\n"
"are deadlines (a late sample does not shift the next); a period a sample\n"
"overran is skipped.  Runs until SIGTERM or SIGINT, or --duration.\n");
	/* clang-format on */
	for (i = 0; i < probe_noptdocs; i++)
		eng_optdoc_usage(&b, &probe_optdocs[i], &style);
	eng_strbuf_printf(&b,
			  "Exit status: 0 done, 1 failure, 2 usage error.\n");
	put(&b, f);
}

int probe_doc_options(const char *what)
{
	struct eng_strbuf b = {0};

	if (eng_optdoc_write(&b, probe_optdocs, probe_noptdocs, what, &style) <
	    0) {
		fprintf(stderr,
			PROBE_PROG ": --doc-options=%s: expected man or list\n",
			what);
		return -1;
	}
	return put(&b, stdout);
}

const struct option *probe_long_options(void)
{
	static struct option
	    opts[sizeof(probe_optdocs) / sizeof(probe_optdocs[0]) + 4];

	if (!opts[0].name)
		eng_optdoc_longopts(probe_optdocs, probe_noptdocs,
				    PROBE_OPT_DOC, opts);
	return opts;
}
