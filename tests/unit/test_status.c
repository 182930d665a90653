/* SPDX-License-Identifier: MIT */
/*
 * The .status text (engine/play/status.c): the line naming the local host
 * (many hosts, issue 24), first, before the table; and a text cut short
 * by a small buffer still says the length it needs.  The table itself is
 * checked mounted (test_realtime, test_ingest).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "play/status.h"

static void test_host_line(void **state)
{
	char buf[160];
	size_t n;

	(void)state;
	n = eng_status_host(buf, sizeof(buf), "ws07",
			    "3f2a91c0c4c5404aaa1f6d2a48adfda4", NULL, -1);
	assert_string_equal(buf, "host ws07, machine 3f2a91c0");
	assert_int_equal(n, strlen(buf));
	n = eng_status_host(buf, sizeof(buf), "ws07",
			    "3f2a91c0c4c5404aaa1f6d2a48adfda4",
			    "0f8fad5b-d9cb-469f-a165-70867728950e", 12);
	assert_string_equal(buf, "host ws07, machine 3f2a91c0, rank 12 of "
			    "experiment 0f8fad5b-d9cb-469f-a165-70867728950e");
	/* no machine id (unreadable, or empty), no name */
	eng_status_host(buf, sizeof(buf), NULL, NULL, NULL, -1);
	assert_string_equal(buf, "host ?, machine ?");
	eng_status_host(buf, sizeof(buf), "a", "", NULL, -1);
	assert_string_equal(buf, "host a, machine ?");
	/* cut short: NUL-terminated, the whole length returned */
	n = eng_status_host(buf, 8, "ws07", "3f2a91c0", NULL, -1);
	assert_string_equal(buf, "host ws");
	assert_int_equal(n, strlen("host ws07, machine 3f2a91c0"));
	assert_int_equal(eng_status_host(NULL, 0, "ws07", "3f2a91c0", NULL,
					 -1),
			 n);
}

static void test_format_host_first(void **state)
{
	const struct eng_status_row row = {
		.timeline = "timeline01", .comm = "dd", .pid = 42,
		.frames_played = 3, .frames_total = 10, .bytes = 1000000,
		.elapsed_ns = 1000000000,
	};
	char buf[1024], *nl;
	size_t n, m;

	(void)state;
	n = eng_status_format(buf, sizeof(buf), "host ws07, machine ?", &row,
			      1);
	assert_int_equal(n, strlen(buf));
	nl = strchr(buf, '\n');
	assert_non_null(nl);
	assert_int_equal(nl - buf, strlen("host ws07, machine ?"));
	assert_memory_equal(buf, "host ws07, machine ?\ntimeline ", 30);
	assert_non_null(strstr(buf, "\ntimeline01 "));
	assert_non_null(strstr(buf, "\ntotal: 1 stream, 1.00 MB/s"));
	/* without a host line: the table alone, one line shorter */
	m = eng_status_format(buf, sizeof(buf), NULL, &row, 1);
	assert_int_equal(m, n - strlen("host ws07, machine ?\n"));
	assert_memory_equal(buf, "timeline ", 9);
	assert_int_equal(eng_status_format(NULL, 0, "host x, machine ?", NULL,
					   0),
			 eng_status_format(buf, sizeof(buf), "host x, machine ?",
					   NULL, 0));
	assert_non_null(strstr(buf, "\ntotal: 0 streams,"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_line),
		cmocka_unit_test(test_format_host_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
