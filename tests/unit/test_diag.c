/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/util/diag.c: eng_escape() byte by byte (controls,
 * invalid UTF-8, hidden Unicode controls, text kept), messages escaped as
 * a whole, and eng_problem() counting with and without a diag.
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

#include "util/diag.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_escape(void **state)
{
	static const struct {
		const char *in;
		size_t len;	/* 0: strlen(in) */
		const char *want;
	} cases[] = {
		{ "clip0001", 0, "clip0001" },
		{ "", 0, "" },
		{ "it's \"100%\" %s", 0, "it's \"100%\" %s" },
		{ "a\\b", 0, "a\\\\b" },
		{ "line1\nline2\r\tx", 0, "line1\\nline2\\r\\tx" },
		{ "esc\033[2Jx", 0, "esc\\x1b[2Jx" },
		{ "bel\a del\177", 0, "bel\\x07 del\\x7f" },
		{ "nul\0x", 5, "nul\\x00x" },
		/* valid UTF-8 text is kept */
		{ "caf\303\251 \342\234\223 \360\237\216\254", 0,
		  "caf\303\251 \342\234\223 \360\237\216\254" },
		/* latin-1 and stray bytes */
		{ "caf\351", 0, "caf\\xe9" },
		{ "\377\376(", 0, "\\xff\\xfe(" },
		{ "\200x", 0, "\\x80x" },
		/* truncated sequence, then text: the text survives */
		{ "\303(", 0, "\\xc3(" },
		{ "\342\234", 0, "\\xe2\\x9c" },
		/* overlong '/' and NUL, a surrogate, past U+10FFFF */
		{ "\300\257", 0, "\\xc0\\xaf" },
		{ "\340\200\257", 0, "\\xe0\\x80\\xaf" },
		{ "\355\240\200", 0, "\\xed\\xa0\\x80" },
		{ "\364\220\200\200", 0, "\\xf4\\x90\\x80\\x80" },
		{ "\364\217\277\277", 0, "\364\217\277\277" }, /* U+10FFFF */
		/* C1 CSI, line separator, right-to-left override */
		{ "a\302\233" "2Jb", 0, "a\\xc2\\x9b" "2Jb" },
		{ "a\342\200\250b", 0, "a\\xe2\\x80\\xa8b" },
		{ "txt\342\200\256gpj.exe", 0, "txt\\xe2\\x80\\xaegpj.exe" },
		{ "\342\201\246x\342\201\251", 0,
		  "\\xe2\\x81\\xa6x\\xe2\\x81\\xa9" },
		/* U+00A0 and U+2030 are plain text */
		{ "\302\240\342\200\260", 0, "\302\240\342\200\260" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].in);
		char *got = eng_escape(cases[i].in, len);

		assert_non_null(got);
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("case %zu: got '%s', want '%s'", i, got,
				 cases[i].want);
		assert_true(strlen(got) <= 4 * len);
		free(got);
	}
}

/* Every byte value alone and after a lead byte: the output is printable
 * ASCII or kept UTF-8, and never longer than 4 bytes per input byte. */
static void test_escape_all_bytes(void **state)
{
	char in[2], *got;
	unsigned a, b;
	size_t k;

	(void)state;
	for (a = 0; a < 256; a++) {
		for (b = 0; b < 256; b++) {
			in[0] = (char)a;
			in[1] = (char)b;
			got = eng_escape(in, 2);
			assert_non_null(got);
			assert_true(strlen(got) <= 8);
			for (k = 0; got[k]; k++) {
				unsigned char c = (unsigned char)got[k];

				if (c < 0x20 || c == 0x7f)
					fail_msg("%02x %02x: control %02x out",
						 a, b, c);
			}
			free(got);
		}
	}
}

static void test_diag_escaped(void **state)
{
	struct eng_diag d = { 0 };

	(void)state;
	eng_diag_add(&d, "tl\033]0;x\a/a.tl", 3, "clip name '%s' not allowed",
		     "bad\nname\r");
	eng_diag_add(&d, "a.tl", 0, "caf\303\251 \351");
	assert_int_equal(d.n, 2);
	assert_string_equal(d.msgs[0], "tl\\x1b]0;x\\x07/a.tl:3: clip name "
			    "'bad\\nname\\r' not allowed");
	assert_string_equal(d.msgs[1], "a.tl: caf\303\251 \\xe9");
	eng_diag_free(&d);
}

static void test_problem_counts(void **state)
{
	struct eng_diag d = { 0 };
	struct eng_problems p = { .diag = &d, .path = "x.edl" };
	struct eng_problems none = { .path = "y.edl" };

	(void)state;
	eng_problem(&p, 7, "bad %s", "thing");
	eng_problem(&p, 0, "no event");
	assert_int_equal(p.n, 2);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.msgs[0], "x.edl:7: bad thing");
	assert_string_equal(d.msgs[1], "x.edl: no event");
	/* no diag: still counted, so the parser still fails */
	eng_problem(&none, 1, "lost");
	assert_int_equal(none.n, 1);
	eng_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_escape_all_bytes),
		cmocka_unit_test(test_diag_escaped),
		cmocka_unit_test(test_problem_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
