/* SPDX-License-Identifier: MIT */
/*
 * What timelinefs-merge's files share: its options as one table
 * (util/optdoc.h, merge_opttab.c), from which its -h, the man page's
 * OPTIONS items (make docs-options) and getopt's table come.
 */
#ifndef MERGE_H
#define MERGE_H

#include <getopt.h>
#include <stdio.h>

#include "util/optdoc.h"

#define MERGE_PROG "timelinefs-merge"

enum merge_opt {
	MERGE_OPT_DOC = 256, /* --doc-options=man|list, for make docs-options */
};

extern const struct eng_optdoc merge_optdocs[];
extern const size_t merge_noptdocs;

/* -h's text on f */
void merge_usage(FILE *f);
/* --doc-options=WHAT on stdout: 0, or -1 said (exit status 2) */
int merge_doc_options(const char *what);
/* getopt_long's table of the rows */
const struct option *merge_long_options(void);

#endif /* MERGE_H */
