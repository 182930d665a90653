/* SPDX-License-Identifier: MIT */
/* Unit tests for engine/probe/kconfig.c: CONFIG_HZ and other values of a kernel
 * build config text.  Issue 17 defect 6: the run row's config_hz was NULL on
 * a kernel with /proc/config.gz only; the parse of the text is here, the
 * reading of the files in engine/probe/hostfacts.c. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "probe/kconfig.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_hz(void **state)
{
	static const struct {
		const char *text;
		int hz;
	} cases[] = {
		/* as /proc/config.gz of this machine: the choice lines first */
		{ "# CONFIG_HZ_PERIODIC is not set\n# CONFIG_HZ_100 is not set\n"
		  "CONFIG_HZ_250=y\n# CONFIG_HZ_1000 is not set\n"
		  "CONFIG_HZ=250\nCONFIG_SCHED_HRTICK=y\n", 250 },
		{ "CONFIG_HZ=1000\n", 1000 },
		{ "CONFIG_HZ=100", 100 },		/* no final line end */
		{ "CONFIG_HZ=300\r\n", 300 },		/* CRLF */
		{ "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n", 1000 },
		{ "", -ENOENT },
		{ "CONFIG_HZ_250=y\n", -ENOENT },	/* a choice, not the value */
		{ "# CONFIG_HZ is not set\n", -ENOENT },
		{ " CONFIG_HZ=250\n", -ENOENT },	/* not at the line start */
		{ "XCONFIG_HZ=250\n", -ENOENT },
		{ "CONFIG_HZ=\n", -EINVAL },
		{ "CONFIG_HZ=0\n", -EINVAL },
		{ "CONFIG_HZ=-250\n", -EINVAL },
		{ "CONFIG_HZ=250x\n", -EINVAL },
		{ "CONFIG_HZ=\"250\"\n", -EINVAL },
		{ "CONFIG_HZ=99999999999999999999\n", -EINVAL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int hz = eng_kconfig_hz(cases[i].text, strlen(cases[i].text));

		if (hz != cases[i].hz)
			fail_msg("case %zu '%s': got %d, expected %d", i,
				 cases[i].text, hz, cases[i].hz);
	}
}

/* len bounds the text: a CONFIG_HZ past it is not seen (the buffer of a
 * decompressed file need not end in a NUL). */
static void test_len(void **state)
{
	const char *t = "CONFIG_A=y\nCONFIG_HZ=250\n";

	(void)state;
	assert_int_equal(eng_kconfig_hz(t, 11), -ENOENT);
	assert_int_equal(eng_kconfig_hz(t, strlen(t)), 250);
	/* cut inside the value: what is there is the value */
	assert_int_equal(eng_kconfig_hz(t, 11 + 12), 25);
}

static void test_get(void **state)
{
	const char *t = "CONFIG_LOCALVERSION=\"-amd64\"\nCONFIG_PREEMPT_VOLUNTARY=y\n"
			"CONFIG_PREEMPT_VOLUNTARY=n\n";
	char buf[16];

	(void)state;
	assert_int_equal(eng_kconfig_get(t, strlen(t), "CONFIG_LOCALVERSION",
					 buf, sizeof(buf)), 0);
	assert_string_equal(buf, "\"-amd64\"");
	/* the first line wins */
	assert_int_equal(eng_kconfig_get(t, strlen(t),
					 "CONFIG_PREEMPT_VOLUNTARY", buf,
					 sizeof(buf)), 0);
	assert_string_equal(buf, "y");
	assert_int_equal(eng_kconfig_get(t, strlen(t), "CONFIG_PREEMPT", buf,
					 sizeof(buf)), -ENOENT);
	/* "\"-amd64\"" is 8 bytes: does not fit in 8 with its NUL */
	assert_int_equal(eng_kconfig_get(t, strlen(t), "CONFIG_LOCALVERSION",
					 buf, 8), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hz),
		cmocka_unit_test(test_len),
		cmocka_unit_test(test_get),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
