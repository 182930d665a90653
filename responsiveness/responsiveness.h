/* SPDX-License-Identifier: MIT */
/*
 * What timelinefs-probe's files share: its options as one table
 * (util/optdoc.h, responsiveness_opttab.c), from which its -h, the man
 * page's OPTIONS items (make docs-options), getopt's table and the
 * defaults come.
 */
#ifndef RESPONSIVENESS_H
#define RESPONSIVENESS_H

#include <getopt.h>
#include <stdio.h>

#include "util/optdoc.h"

#define PROBE_PROG "timelinefs-probe"

/* getopt's values of the options (no short forms but -h, -V) */
enum probe_opt {
	PROBE_OPT_PERIOD = 256,
	PROBE_OPT_EXEC,
	PROBE_OPT_DURATION,
	PROBE_OPT_DOC, /* --doc-options=man|list, for make docs-options */
};

extern const struct eng_optdoc probe_optdocs[];
extern const size_t probe_noptdocs;

/* The row of the option named name (it is one of the table's) */
const struct eng_optdoc *probe_optdoc(const char *name);
/* -h's text on f */
void probe_usage(FILE *f);
/* --doc-options=WHAT on stdout: 0, or -1 said (exit status 2) */
int probe_doc_options(const char *what);
/* getopt_long's table of the rows */
const struct option *probe_long_options(void);

#endif /* RESPONSIVENESS_H */
