/* SPDX-License-Identifier: MIT */
/*
 * A program's options as one table, a row each (name, argument, type,
 * default, range, help), as fio's options.c holds them, and the texts
 * printed from it: the -h list, the man page's OPTIONS items (roff) and a
 * README's list (Markdown).  timelinefs (fs/fs_opttab.c), timelinefs-gen
 * (gen/gen_opttab.c), timelinefs-hosts (launcher/launcher_opttab.c),
 * timelinefs-merge (merge/merge_opttab.c) and timelinefs-probe
 * (responsiveness/responsiveness_opttab.c) keep their rows; the words are
 * written once, here.
 */
#ifndef ENG_OPTDOC_H
#define ENG_OPTDOC_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>

#include "util/strbuf.h"

enum eng_opt_type {
	ENG_OT_FLAG,	/* no value */
	ENG_OT_TEXT,	/* a word or a value of its own rules; def */
	ENG_OT_UINT,	/* a whole number in [lo, hi]; def_n unless def */
	ENG_OT_BYTES,	/* a size (K/M/G, Ki/Mi/Gi); def_n */
	ENG_OT_MS,	/* seconds to the ms; def_n, lo and hi in ms */
	ENG_OT_SWITCH,	/* another program's or a bare switch: name as shown */
	ENG_OT_HEADING,	/* no option: name heads the rows after it ("each
			 * host"), said "each host:" in -h, "Each host:" in
			 * the man page and a README */
};
#define ENG_OD_GENERAL 1 /* in -h's second list ("general options") */
#define ENG_OD_README 2	 /* in the README's short list */
#define ENG_OD_SHORT 4	 /* key is a letter, the option's -KEY too */

/* One option.  Help texts take *word* (bold in the man page, code in
 * Markdown, plain in -h) and {KEY}, filled by the style's fill. */
struct eng_optdoc {
	const char *name;	/* NAME (-o NAME=, --NAME), or the switch */
	const char *arg;	/* ARG of NAME=ARG / --NAME ARG; NULL: a flag */
	enum eng_opt_type type;
	const char *def;	/* the default as said, or NULL: def_n */
	uint64_t def_n;
	uint64_t lo, hi;	/* hi 0: no range said */
	const char *help;	/* -h, the man page and a README */
	const char *more;	/* the man page's further sentences, or NULL */
	unsigned flags;		/* ENG_OD_* */
	int key;		/* the program's own: getopt's val, or 0 */
};

/* How a program writes its options. */
struct eng_optdoc_style {
	const char *prefix;	/* "-o " or "--" */
	char sep;		/* between NAME and ARG: '=' or ' ' */
	unsigned indent;	/* of -h's rows */
	unsigned col;		/* of -h's help texts */
	/* {KEY} of a help text into buf (may be NULL: none taken) */
	void (*fill)(const char *key, char *buf, size_t len);
};

/* The option named name of rows[0..n) (a heading is none), or NULL. */
const struct eng_optdoc *eng_optdoc_find(const struct eng_optdoc *rows,
					 size_t n, const char *name);
/* getopt_long's table of rows[0..n) into opts, which has room for n + 4:
 * each option's NAME (not a switch, not a heading), its ARG required, its
 * key the value; then --doc-options=WHAT (doc_key), --help ('h'),
 * --version ('V') and the end. */
void eng_optdoc_longopts(const struct eng_optdoc *rows, size_t n,
			 int doc_key, struct option *opts);
/* The default of o as said ("256Mi", "0.5", "8", o->def) into buf: 1, or
 * 0 when it has none. */
int eng_optdoc_default(const struct eng_optdoc *o, char *buf, size_t len);
/* o as a row of -h, an item of the man page's OPTIONS (.TP), a Markdown
 * list item; appended to b (its err says an allocation failed).  A
 * heading row is its heading, after a blank line (.PP). */
void eng_optdoc_usage(struct eng_strbuf *b, const struct eng_optdoc *o,
		      const struct eng_optdoc_style *st);
void eng_optdoc_man(struct eng_strbuf *b, const struct eng_optdoc *o,
		    const struct eng_optdoc_style *st);
void eng_optdoc_md(struct eng_strbuf *b, const struct eng_optdoc *o,
		   const struct eng_optdoc_style *st);

/* what "man": the man page's items of rows[0..n); "list": a line per
 * option (not a switch, not a heading), NAME, a tab and its default as
 * said or "-"; appended to b.  0, or -EINVAL: what is neither. */
int eng_optdoc_write(struct eng_strbuf *b, const struct eng_optdoc *rows,
		     size_t n, const char *what,
		     const struct eng_optdoc_style *st);

#endif /* ENG_OPTDOC_H */
