/* SPDX-License-Identifier: MIT */
/*
 * The texts of an option table (optdoc.h): -h rows, man page items and
 * Markdown items, wrapped and marked up alike for every program.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util/optdoc.h"

/* a space wrap does not break at ("8.9 MiB" of a fill), printed as one */
#define NBSP '\x1f'

enum style { PLAIN, MAN, MD };

const struct eng_optdoc *eng_optdoc_find(const struct eng_optdoc *rows,
					 size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].type != ENG_OT_HEADING &&
		    strcmp(rows[i].name, name) == 0)
			return &rows[i];
	return NULL;
}

void eng_optdoc_longopts(const struct eng_optdoc *rows, size_t n,
			 int doc_key, struct option *opts)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (rows[i].type == ENG_OT_SWITCH ||
		    rows[i].type == ENG_OT_HEADING)
			continue;
		opts[k++] = (struct option){ rows[i].name,
					     rows[i].arg ? required_argument :
							   no_argument,
					     NULL, rows[i].key };
	}
	opts[k++] = (struct option){ "doc-options", required_argument, NULL,
				     doc_key };
	opts[k++] = (struct option){ "help", no_argument, NULL, 'h' };
	opts[k++] = (struct option){ "version", no_argument, NULL, 'V' };
	opts[k] = (struct option){ NULL, 0, NULL, 0 };
}

/* bytes as the option takes them: 256Mi, 1Gi, or the number */
static void bytes_text(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "Ti", "Gi", "Mi", "Ki" };
	unsigned i;

	for (i = 0; n && i < 4; i++)
		if (n % (1ULL << (40 - 10 * i)) == 0) {
			snprintf(buf, len, "%" PRIu64 "%s",
				 n >> (40 - 10 * i), unit[i]);
			return;
		}
	snprintf(buf, len, "%" PRIu64, n);
}

/* ms as seconds: 0.5, 10 */
static void ms_text(uint64_t ms, char *buf, size_t len)
{
	char frac[8];
	size_t n;

	snprintf(frac, sizeof(frac), "%03u", (unsigned)(ms % 1000));
	for (n = 3; n && frac[n - 1] == '0'; n--)
		frac[n - 1] = '\0';
	snprintf(buf, len, "%" PRIu64 "%s%s", ms / 1000, n ? "." : "", frac);
}

int eng_optdoc_default(const struct eng_optdoc *o, char *buf, size_t len)
{
	if (o->def)
		snprintf(buf, len, "%s", o->def);
	else if (o->type == ENG_OT_UINT)
		snprintf(buf, len, "%" PRIu64, o->def_n);
	else if (o->type == ENG_OT_BYTES)
		bytes_text(o->def_n, buf, len);
	else if (o->type == ENG_OT_MS)
		ms_text(o->def_n, buf, len);
	else
		return 0;
	return 1;
}

/* "(DEFAULT)", "(DEFAULT, LO to HI)" or "" into buf[96] */
static void parens(const struct eng_optdoc *o, char *buf, size_t len)
{
	char def[64], lo[24], hi[24];
	int has = eng_optdoc_default(o, def, sizeof(def));

	buf[0] = '\0';
	if (o->hi && o->type == ENG_OT_MS) {
		ms_text(o->lo, lo, sizeof(lo));
		ms_text(o->hi, hi, sizeof(hi));
	} else {
		snprintf(lo, sizeof(lo), "%" PRIu64, o->lo);
		snprintf(hi, sizeof(hi), "%" PRIu64, o->hi);
	}
	/* the parts are bounded to fit */
	if (has && o->hi)
		snprintf(buf, len, "(%.40s, %.20s to %.20s)", def, lo, hi);
	else if (has)
		snprintf(buf, len, "(%.80s)", def);
}

/* s with its markup in style sy and {KEY} filled, appended to out (which
 * has room for len bytes); a fill's spaces do not break */
static void render(const char *s, enum style sy,
		   const struct eng_optdoc_style *st, char *out, size_t len)
{
	size_t n = strlen(out), k;
	int bold = 0;

	for (; *s && n + 16 < len; s++) {
		if (*s == '*') {
			const char *t = sy == MAN ? (bold ? "\\fR" : "\\fB") :
					sy == MD ? "`" : "";

			bold = !bold;
			n += (size_t)snprintf(out + n, len - n, "%s", t);
		} else if (*s == '{' && strchr(s, '}') && st->fill) {
			const char *end = strchr(s, '}');
			char key[32];

			snprintf(key, sizeof(key), "%.*s", (int)(end - s - 1),
				 s + 1);
			st->fill(key, out + n, len - n);
			for (k = n; out[k]; k++)
				if (out[k] == ' ')
					out[k] = NBSP;
			n = k;
			s = end;
		} else if (sy == MAN && (*s == '-' || *s == '\\')) {
			out[n++] = '\\';
			out[n++] = *s == '-' ? '-' : 'e';
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
}

/* text as lines of at most width columns, each after indent spaces
 * (first: the first line's column, already written); man: a line never
 * starts as a request */
static void wrap(struct eng_strbuf *b, const char *text, unsigned first,
		 unsigned indent, unsigned width, int man)
{
	unsigned col = first;
	const char *w = text;
	size_t n, i;

	while (*w) {
		n = strcspn(w, " ");
		if (col > indent && col + 1 + n > width) {
			eng_strbuf_printf(b, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			eng_strbuf_printf(b, " ");
			col++;
		}
		if (man && col == indent && (*w == '.' || *w == '\''))
			eng_strbuf_printf(b, "\\&");
		for (i = 0; i < n; i++)
			eng_strbuf_printf(b, "%c", w[i] == NBSP ? ' ' : w[i]);
		col += (unsigned)n;
		w += n;
		while (*w == ' ')
			w++;
	}
	eng_strbuf_printf(b, "\n");
}

/* "-o NAME=ARG", "--NAME ARG", "-o NAME" or the switch as written */
static void head(const struct eng_optdoc *o, const struct eng_optdoc_style *st,
		 char *buf, size_t len)
{
	char sh[8] = "";

	if (o->flags & ENG_OD_SHORT)
		snprintf(sh, sizeof(sh), "-%c, ", o->key);
	if (o->type == ENG_OT_SWITCH)
		snprintf(buf, len, "%s", o->name);
	else if (o->arg)
		snprintf(buf, len, "%s%s%s%c%s", sh, st->prefix, o->name,
			 st->sep, o->arg);
	else
		snprintf(buf, len, "%s%s%s", sh, st->prefix, o->name);
}

/* the help, then its default and range, in style sy */
static void help_text(const struct eng_optdoc *o, enum style sy,
		      const struct eng_optdoc_style *st, char *text,
		      size_t len)
{
	char p[96];

	text[0] = '\0';
	render(o->help, sy, st, text, len);
	parens(o, p, sizeof(p));
	if (p[0]) {
		strncat(text, " ", len - strlen(text) - 1);
		render(p, sy, st, text, len);
	}
}

/* a heading row: before, then "each host:" (-h) or, upper, "Each host:" */
static void heading(struct eng_strbuf *b, const struct eng_optdoc *o,
		    const char *before, int upper)
{
	char first = o->name[0];

	if (upper && first >= 'a' && first <= 'z')
		first = (char)(first - 'a' + 'A');
	eng_strbuf_printf(b, "%s%c%s:\n", before, first, o->name + 1);
}

void eng_optdoc_usage(struct eng_strbuf *b, const struct eng_optdoc *o,
		      const struct eng_optdoc_style *st)
{
	char h[64], text[2048];
	int w;

	if (o->type == ENG_OT_HEADING) {
		heading(b, o, "\n", 0);
		return;
	}
	head(o, st, h, sizeof(h));
	help_text(o, PLAIN, st, text, sizeof(text));
	w = (int)(st->indent + strlen(h));
	eng_strbuf_printf(b, "%*s%s", (int)st->indent, "", h);
	/* a head reaching the help column: its help on the next line */
	if (w >= (int)st->col)
		eng_strbuf_printf(b, "\n%*s", (int)st->col, "");
	else
		eng_strbuf_printf(b, "%*s", (int)st->col - w, "");
	wrap(b, text, st->col, st->col, 78, 0);
}

void eng_optdoc_man(struct eng_strbuf *b, const struct eng_optdoc *o,
		    const struct eng_optdoc_style *st)
{
	char text[4096], name[64] = "", arg[64] = "", pre[32] = "";

	if (o->type == ENG_OT_HEADING) {
		/* .PP after .SH renders as none: every heading has one */
		heading(b, o, ".PP\n", 1);
		return;
	}
	render(o->name, MAN, st, name, sizeof(name));
	if (o->flags & ENG_OD_SHORT)
		snprintf(pre, sizeof(pre), "\\-%c, ", o->key);
	render(st->prefix, MAN, st, pre, sizeof(pre));
	if (o->type == ENG_OT_SWITCH)
		eng_strbuf_printf(b, ".TP\n.B %s\n", name);
	else if (!o->arg)
		eng_strbuf_printf(b, ".TP\n.B %s%s\n", pre, name);
	else {
		render(o->arg, MAN, st, arg, sizeof(arg));
		eng_strbuf_printf(b, ".TP\n.BI \"%s%s%c\" \"%s\"\n", pre, name,
				  st->sep, arg);
	}
	help_text(o, MAN, st, text, sizeof(text));
	strncat(text, ".", sizeof(text) - strlen(text) - 1);
	wrap(b, text, 0, 0, 72, 1);
	/* on a line of its own: roff ends a sentence at a line's end */
	if (o->more) {
		text[0] = '\0';
		render(o->more, MAN, st, text, sizeof(text));
		wrap(b, text, 0, 0, 72, 1);
	}
}

void eng_optdoc_md(struct eng_strbuf *b, const struct eng_optdoc *o,
		   const struct eng_optdoc_style *st)
{
	char h[64], text[4096];

	if (o->type == ENG_OT_HEADING) {
		heading(b, o, "\n", 1);
		eng_strbuf_printf(b, "\n");
		return;
	}
	head(o, st, h, sizeof(h));
	help_text(o, MD, st, text, sizeof(text));
	/* an item's lines after the first indented under its text */
	eng_strbuf_printf(b, "- `%s`:", h);
	wrap(b, text, (unsigned)strlen(h) + 5, 2, 78, 0);
}

int eng_optdoc_write(struct eng_strbuf *b, const struct eng_optdoc *rows,
		     size_t n, const char *what,
		     const struct eng_optdoc_style *st)
{
	char def[64];
	size_t i;

	if (strcmp(what, "man") != 0 && strcmp(what, "list") != 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct eng_optdoc *o = &rows[i];

		if (what[0] == 'm')
			eng_optdoc_man(b, o, st);
		else if (o->type != ENG_OT_SWITCH &&
			 o->type != ENG_OT_HEADING)
			eng_strbuf_printf(b, "%s\t%s\n", o->name,
					  eng_optdoc_default(o, def,
							     sizeof(def)) ?
						  def : "-");
	}
	return 0;
}
