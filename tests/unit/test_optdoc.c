/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for util/optdoc.c, the texts of an option table: defaults as
 * the options take them (256Mi, 0.5), a row of -h with its default and
 * range wrapped under its help column, a man page item (escaped dashes,
 * bold markup, no line starting as a request) and a Markdown item; a
 * {KEY} filled and kept on one line; a heading row in each, and never
 * found as an option; getopt's table of the options alone.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/optdoc.h"

static void fill(const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%s is 8.9 MiB", key);
}

static const struct eng_optdoc_style fuse = { "-o ", '=', 4, 26, fill };
static const struct eng_optdoc_style longs = { "--", ' ', 2, 23, NULL };

static const struct eng_optdoc rows[] = {
	{ "mem", "BYTES", ENG_OT_BYTES, NULL, 256ULL << 20, 0, 0,
	  "memory of one *stream* ({seed})", NULL, 0, 0 },
	{ "preroll", "SECONDS", ENG_OT_MS, NULL, 500, 0, 10000,
	  "ahead of the clock, in a help long enough to fill a row",
	  ".a sentence that starts with a dot", 0, 0 },
	{ "buffer", "FRAMES", ENG_OT_UINT, NULL, 8, 1, 10000,
	  "player read-ahead; a frame is due this many frames after its "
	  "reads are issued", NULL, 0, 0 },
	{ "strict", NULL, ENG_OT_FLAG, NULL, 0, 0, 0, "errors", NULL, 0, 0 },
};

static void test_default(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(eng_optdoc_default(&rows[0], buf, sizeof(buf)), 1);
	assert_string_equal(buf, "256Mi");
	assert_int_equal(eng_optdoc_default(&rows[1], buf, sizeof(buf)), 1);
	assert_string_equal(buf, "0.5");
	assert_int_equal(eng_optdoc_default(&rows[2], buf, sizeof(buf)), 1);
	assert_string_equal(buf, "8");
	assert_int_equal(eng_optdoc_default(&rows[3], buf, sizeof(buf)), 0);
	assert_ptr_equal(eng_optdoc_find(rows, 4, "buffer"), &rows[2]);
	assert_null(eng_optdoc_find(rows, 4, "buf"));
}

static void test_usage(void **state)
{
	struct eng_strbuf b = { 0 };

	(void)state;
	eng_optdoc_usage(&b, &rows[2], &fuse);
	eng_optdoc_usage(&b, &rows[3], &longs);
	assert_int_equal(b.err, 0);
	assert_string_equal(b.p,
		"    -o buffer=FRAMES      player read-ahead; a frame is due "
		"this many frames\n"
		"                          after its reads are issued (8, 1 to "
		"10000)\n"
		"  --strict             errors\n");
	free(b.p);
}

static void test_man_md(void **state)
{
	struct eng_strbuf b = { 0 };

	(void)state;
	eng_optdoc_man(&b, &rows[0], &fuse);
	eng_optdoc_man(&b, &rows[1], &longs);
	eng_optdoc_md(&b, &rows[0], &fuse);
	assert_int_equal(b.err, 0);
	assert_string_equal(b.p,
		".TP\n.BI \"\\-o mem=\" \"BYTES\"\n"
		"memory of one \\fBstream\\fR (seed is 8.9 MiB) (256Mi).\n"
		".TP\n.BI \"\\-\\-preroll \" \"SECONDS\"\n"
		"ahead of the clock, in a help long enough to fill a row (0.5, "
		"0 to 10).\n"
		"\\&.a sentence that starts with a dot\n"
		"- `-o mem=BYTES`: memory of one `stream` (seed is 8.9 MiB) "
		"(256Mi)\n");
	free(b.p);
}

static void test_heading(void **state)
{
	static const struct eng_optdoc h[] = {
		{ "each host", NULL, ENG_OT_HEADING, NULL, 0, 0, 0, NULL, NULL,
		  0, 0 },
		{ "movie", NULL, ENG_OT_FLAG, NULL, 0, 0, 0, "a *movie*", NULL,
		  0, 0 },
	};
	struct eng_strbuf b = { 0 };

	(void)state;
	assert_null(eng_optdoc_find(h, 2, "each host"));
	assert_ptr_equal(eng_optdoc_find(h, 2, "movie"), &h[1]);
	eng_optdoc_usage(&b, &h[0], &longs);
	eng_optdoc_usage(&b, &h[1], &longs);
	eng_optdoc_man(&b, &h[0], &longs);
	eng_optdoc_man(&b, &h[1], &longs);
	eng_optdoc_md(&b, &h[0], &longs);
	eng_optdoc_md(&b, &h[1], &longs);
	assert_int_equal(b.err, 0);
	assert_string_equal(b.p,
		"\neach host:\n"
		"  --movie              a movie\n"
		".PP\nEach host:\n"
		".TP\n.B \\-\\-movie\na \\fBmovie\\fR.\n"
		"\nEach host:\n\n"
		"- `--movie`: a `movie`\n");
	free(b.p);
}

static void test_longopts(void **state)
{
	static const struct eng_optdoc r[] = {
		{ "plan", NULL, ENG_OT_HEADING, NULL, 0, 0, 0, NULL, NULL, 0,
		  0 },
		{ "repeat", "R", ENG_OT_UINT, NULL, 3, 1, 1000, "reps", NULL,
		  0, 300 },
		{ "-h, --help", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0, "help",
		  NULL, 0, 'h' },
		{ "movie", NULL, ENG_OT_FLAG, NULL, 0, 0, 0, "movie", NULL, 0,
		  301 },
	};
	struct option o[8];

	(void)state;
	memset(o, 0xff, sizeof(o));
	eng_optdoc_longopts(r, 4, 302, o);
	assert_string_equal(o[0].name, "repeat");
	assert_int_equal(o[0].has_arg, required_argument);
	assert_null(o[0].flag);
	assert_int_equal(o[0].val, 300);
	assert_string_equal(o[1].name, "movie");
	assert_int_equal(o[1].has_arg, no_argument);
	assert_int_equal(o[1].val, 301);
	assert_string_equal(o[2].name, "doc-options");
	assert_int_equal(o[2].has_arg, required_argument);
	assert_int_equal(o[2].val, 302);
	assert_string_equal(o[3].name, "help");
	assert_int_equal(o[3].val, 'h');
	assert_string_equal(o[4].name, "version");
	assert_int_equal(o[4].val, 'V');
	assert_null(o[5].name);
	assert_int_equal(o[5].val, 0);
}

/* a row with its short option too (-e), in -h and the man page; the
 * man items and the list of eng_optdoc_write, and a what it refuses */
static void test_short_write(void **state)
{
	static const struct eng_optdoc r[] = {
		{ "experiment", "UUID", ENG_OT_TEXT, NULL, 0, 0, 0,
		  "only that experiment", NULL, ENG_OD_SHORT, 'e' },
		{ "period", "MS", ENG_OT_UINT, NULL, 100, 0, 0, "the period",
		  NULL, 0, 1 },
		{ "-h, --help", NULL, ENG_OT_SWITCH, NULL, 0, 0, 0, "help",
		  NULL, 0, 'h' },
	};
	struct eng_strbuf b = { 0 };

	(void)state;
	eng_optdoc_usage(&b, &r[0], &longs);
	assert_int_equal(eng_optdoc_write(&b, r, 3, "man", &longs), 0);
	assert_int_equal(eng_optdoc_write(&b, r, 3, "list", &longs), 0);
	assert_int_equal(eng_optdoc_write(&b, r, 3, "md", &longs), -EINVAL);
	assert_int_equal(b.err, 0);
	assert_string_equal(b.p,
		"  -e, --experiment UUID\n"
		"                       only that experiment\n"
		".TP\n.BI \"\\-e, \\-\\-experiment \" \"UUID\"\n"
		"only that experiment.\n"
		".TP\n.BI \"\\-\\-period \" \"MS\"\n"
		"the period (100).\n"
		".TP\n.B \\-h, \\-\\-help\n"
		"help.\n"
		"experiment\t-\nperiod\t100\n");
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_man_md),
		cmocka_unit_test(test_heading),
		cmocka_unit_test(test_longopts),
		cmocka_unit_test(test_short_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
