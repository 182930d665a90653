/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-merge's options, one row each (util/optdoc.h): -h's list, the
 * man page's OPTIONS items (make docs-options) and getopt's table come
 * from these rows.
 */
#include <stdio.h>
#include <stdlib.h>

#include "merge.h"

const struct eng_optdoc merge_optdocs[] = {
    {"experiment", "UUID", ENG_OT_TEXT, NULL, 0, 0, 0,
     "only that experiment of each *IN.db*: its experiment, host and "
     "share rows and the runs of its hosts (a host's own database keeps "
     "every experiment run there, and its plain mounts, as do the copies "
     "in *OUT.hosts/*); *UUID* may be the experiment's uuid or its first "
     "8 or more characters when only one experiment's starts with them; "
     "an *IN.db* without it is an error",
     "It stops the program with *IN.db: has no experiment UUID*, exit "
     "status 1.",
     ENG_OD_SHORT, 'e'},
    {"-h, --help", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
     "print this help and exit", NULL, 0, 'h'},
    {"-V, --version", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0,
     "print the version and exit", NULL, 0, 'V'},
};
const size_t merge_noptdocs = sizeof(merge_optdocs) / sizeof(merge_optdocs[0]);

static const struct eng_optdoc_style style = {"--", ' ', 2, 17, NULL};

/* b's text on f, freed: 0, or -1 said */
static int put(struct eng_strbuf *b, FILE *f)
{
	int rc = b->err ? -1 : 0;

	if (rc)
		fprintf(stderr, MERGE_PROG ": out of memory\n");
	else if (b->p)
		fputs(b->p, f);
	free(b->p);
	return rc;
}

void merge_usage(FILE *f)
{
	struct eng_strbuf b = {0};
	size_t i;

	eng_strbuf_printf(
	    &b,
	    "usage: " MERGE_PROG " [options] OUT.db IN.db...\n"
	    "Merge timelinefs databases (the hosts' of a timelinefs-hosts\n"
	    "experiment, or any) into OUT.db, created when absent: every\n"
	    "run of each IN.db that OUT.db does not hold yet (by its uuid),\n"
	    "with its streams, accesses, bench steps, experiment and host\n"
	    "rows, their ids renumbered.  Merging an input again adds\n"
	    "nothing; an input is merged whole or not at all, and never\n"
	    "changed.  Prints per input: IN: N runs added, M already "
	    "merged.\n"
	    "\n");
	for (i = 0; i < merge_noptdocs; i++)
		eng_optdoc_usage(&b, &merge_optdocs[i], &style);
	eng_strbuf_printf(
	    &b,
	    "\n"
	    "Exit status: 0 every input merged; 1 an input or OUT.db could\n"
	    "not be (the message names the file and why; the inputs before\n"
	    "it stay merged); 2 usage error.\n");
	put(&b, f);
}

int merge_doc_options(const char *what)
{
	struct eng_strbuf b = {0};

	if (eng_optdoc_write(&b, merge_optdocs, merge_noptdocs, what, &style) <
	    0) {
		fprintf(stderr,
			MERGE_PROG ": --doc-options=%s: expected man or list\n",
			what);
		return -1;
	}
	return put(&b, stdout);
}

const struct option *merge_long_options(void)
{
	static struct option
	    opts[sizeof(merge_optdocs) / sizeof(merge_optdocs[0]) + 4];

	if (!opts[0].name)
		eng_optdoc_longopts(merge_optdocs, merge_noptdocs,
				    MERGE_OPT_DOC, opts);
	return opts;
}
