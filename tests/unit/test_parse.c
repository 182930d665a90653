/* SPDX-License-Identifier: MIT */
/* Unit tests for the value parsers: fps, sizes, integers, pace, backing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "timeline/load.h"
#include "util/values.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_fps(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint32_t num, den;
	} cases[] = {
		{ "30000/1001", 0, 30000, 1001 },
		{ "24000/1001", 0, 24000, 1001 },
		{ "25", 0, 25, 1 },
		{ "24", 0, 24, 1 },
		{ "50/2", 0, 25, 1 },		/* reduced */
		{ "29.97", 0, 30000, 1001 },
		{ "29.970", 0, 30000, 1001 },
		{ "23.976", 0, 24000, 1001 },
		{ "23.98", 0, 24000, 1001 },
		{ "59.94", 0, 60000, 1001 },
		{ "47.952", 0, 48000, 1001 },
		{ "119.88", 0, 120000, 1001 },
		{ "12.5", 0, 25, 2 },		/* exact, not NTSC */
		{ "12.50", 0, 25, 2 },
		{ "25.0", 0, 25, 1 },
		{ "30.00", 0, 30, 1 },
		{ "119.9", 0, 1199, 10 },	/* one decimal: exact */
		{ "1/1000", 0, 1, 1000 },
		{ "4294967295", 0, 4294967295u, 1 },
		{ "4294967296", -EINVAL, 0, 0 },
		{ "0", -EINVAL, 0, 0 },
		{ "0/1", -EINVAL, 0, 0 },
		{ "1/0", -EINVAL, 0, 0 },
		{ "0.0", -EINVAL, 0, 0 },
		{ "0.00", -EINVAL, 0, 0 },
		{ "-25", -EINVAL, 0, 0 },
		{ "+25", -EINVAL, 0, 0 },
		{ " 25", -EINVAL, 0, 0 },
		{ "25 ", -EINVAL, 0, 0 },
		{ "25fps", -EINVAL, 0, 0 },
		{ "25/", -EINVAL, 0, 0 },
		{ "/25", -EINVAL, 0, 0 },
		{ "25/1/1", -EINVAL, 0, 0 },
		{ "25.", -EINVAL, 0, 0 },
		{ ".5", -EINVAL, 0, 0 },
		{ "29.97x", -EINVAL, 0, 0 },
		{ "2.5.1", -EINVAL, 0, 0 },
		{ "1e2", -EINVAL, 0, 0 },
		{ "0x19", -EINVAL, 0, 0 },
		{ "nan", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
		{ "1.0000000001", -EINVAL, 0, 0 }, /* den would not fit */
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct eng_fps f = { 7, 7 };
		int rc = eng_parse_fps(cases[i].in, &f);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc,
				 cases[i].rc);
		if (rc == 0 && (f.num != cases[i].num || f.den != cases[i].den))
			fail_msg("'%s': %u/%u, want %u/%u", cases[i].in, f.num,
				 f.den, cases[i].num, cases[i].den);
	}
	assert_int_equal(eng_parse_fps(NULL, &(struct eng_fps){ 0, 0 }),
			 -EINVAL);
}

static void test_size(void **state)
{
	static const struct {
		const char *in;
		int rc;
		uint64_t v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "18000000", 0, 18000000 },
		{ "18M", 0, 18000000 },
		{ "18MB", 0, 18000000 },
		{ "18Mi", 0, 18u << 20 },
		{ "18MiB", 0, 18u << 20 },
		{ "1K", 0, 1000 },
		{ "1k", 0, 1000 },
		{ "1Ki", 0, 1024 },
		{ "2G", 0, 2000000000ull },
		{ "2Gi", 0, 2ull << 30 },
		{ "3T", 0, 3000000000000ull },
		{ "3Ti", 0, 3ull << 40 },
		{ "512B", 0, 512 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999999", -ERANGE, 0 },
		{ "18446744T", 0, 18446744000000000000ull },
		{ "18446745T", -ERANGE, 0 },
		{ "16777216Ti", -ERANGE, 0 },	/* exactly 2^64 */
		{ "16777215Ti", 0, 16777215ull << 40 },
		{ "", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "1.5M", -EINVAL, 0 },
		{ "1X", -EINVAL, 0 },
		{ "1MM", -EINVAL, 0 },
		{ "1iB", -EINVAL, 0 },
		{ "1Mib", -EINVAL, 0 },
		{ "1BB", -EINVAL, 0 },
		{ "1mi", -EINVAL, 0 },
		{ "1P", -EINVAL, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		uint64_t v = 12345;
		int rc = eng_parse_size(cases[i].in, &v);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc,
				 cases[i].rc);
		if (rc == 0 && v != cases[i].v)
			fail_msg("'%s': %llu, want %llu", cases[i].in,
				 (unsigned long long)v,
				 (unsigned long long)cases[i].v);
	}
}

static void test_int(void **state)
{
	static const struct {
		const char *in;
		int rc;
		int64_t v;
	} cases[] = {
		{ "0", 0, 0 },
		{ "7", 0, 7 },
		{ "007", 0, 7 },
		{ "9223372036854775807", 0, INT64_MAX },
		{ "9223372036854775808", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "1x", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1.0", -EINVAL, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int64_t v = -5;
		int rc = eng_parse_int(cases[i].in, &v);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc,
				 cases[i].rc);
		if (rc == 0 && v != cases[i].v)
			fail_msg("'%s': %lld, want %lld", cases[i].in,
				 (long long)v, (long long)cases[i].v);
		if (rc != 0 && v != -5)
			fail_msg("'%s': output written on failure", cases[i].in);
	}
}

static void test_pace(void **state)
{
	static const struct {
		const char *in;
		int rc;
		enum eng_pace_mode mode;
		double speed;
	} cases[] = {
		{ "realtime", 0, ENG_PACE_REALTIME, 1 },
		{ "off", 0, ENG_PACE_OFF, 1 },
		{ "2", 0, ENG_PACE_FACTOR, 2 },
		{ "0.5", 0, ENG_PACE_FACTOR, 0.5 },
		{ ".25", 0, ENG_PACE_FACTOR, 0.25 },
		{ "10.", 0, ENG_PACE_FACTOR, 10 },
		{ "1", 0, ENG_PACE_FACTOR, 1 },
		{ "0", -EINVAL, 0, 0 },
		{ "0.0", -EINVAL, 0, 0 },
		{ "-1", -EINVAL, 0, 0 },
		{ "nan", -EINVAL, 0, 0 },
		{ "inf", -EINVAL, 0, 0 },
		{ "infinity", -EINVAL, 0, 0 },
		{ "1e3", -EINVAL, 0, 0 },
		{ "0x2", -EINVAL, 0, 0 },
		{ "2x", -EINVAL, 0, 0 },
		{ " 2", -EINVAL, 0, 0 },
		{ ".", -EINVAL, 0, 0 },
		{ "1..2", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
		{ "Realtime", -EINVAL, 0, 0 },
		{ "offx", -EINVAL, 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct eng_pace p = { ENG_PACE_OFF, -1 };
		int rc = eng_pace_parse(cases[i].in, &p);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc,
				 cases[i].rc);
		if (rc == 0 && (p.mode != cases[i].mode ||
				p.speed != cases[i].speed))
			fail_msg("'%s': mode %d speed %g, want %d %g",
				 cases[i].in, p.mode, p.speed, cases[i].mode,
				 cases[i].speed);
	}
}

static void test_backing(void **state)
{
	static const struct {
		const char *in;
		int rc;
		enum eng_backing b;
	} cases[] = {
		{ "direct", 0, ENG_BACKING_DIRECT },
		{ "buffered", 0, ENG_BACKING_BUFFERED },
		{ "dontneed", 0, ENG_BACKING_DONTNEED },
		{ "Direct", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "direct ", -EINVAL, 0 },
		{ "o_direct", -EINVAL, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		enum eng_backing b = (enum eng_backing)99;
		int rc = eng_backing_parse(cases[i].in, &b);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc,
				 cases[i].rc);
		if (rc == 0 && b != cases[i].b)
			fail_msg("'%s': %d, want %d", cases[i].in, b,
				 cases[i].b);
	}
}

static void test_load_defaults(void **state)
{
	struct eng_load_options o;

	(void)state;
	memset(&o, 0xa5, sizeof(o));
	eng_load_options_default(&o);
	assert_int_equal(o.fps.num, 30000);
	assert_int_equal(o.fps.den, 1001);
	assert_int_equal(o.video_rate, 18000000);
	assert_int_equal(o.audio_rate, 144000);
	assert_int_equal(o.audio_align, 3);
	assert_int_equal(o.edl_origin, ENG_EDL_ORIGIN_MIN);
	assert_int_equal(o.edl_origin_tc.hh, 0);
	assert_int_equal(o.edl_origin_tc.ff, 0);
	assert_int_equal(o.strict, 0);
}

/* The audio rate rule the mount and timelinefs-gen share: whole samples,
 * a sample rate a WAVE header holds. */
static void test_audio_rate_check(void **state)
{
	static const struct {
		uint64_t rate;
		uint32_t align;
		const char *why;	/* NULL: accepted */
	} cases[] = {
		{ 144000, 3, NULL },
		{ 3, 3, NULL },
		{ 4800, 3, NULL },
		{ 3ULL * UINT32_MAX, 3, NULL },
		{ 96000, 2, NULL },
		{ 100, 3, "not a multiple of 3: audio tracks hold whole 24-bit samples (144000 is 48 kHz)" },
		{ 1, 3, "not a multiple of 3: audio tracks hold whole 24-bit samples (144000 is 48 kHz)" },
		{ 3, 2, "not a multiple of 2: audio tracks hold whole 16-bit samples (144000 is 48 kHz)" },
		{ 0, 3, "must be positive (144000 is 48 kHz)" },
		{ 3ULL * UINT32_MAX + 3, 3, "more than 4294967295 samples per second, the most a WAVE file can declare" },
	};
	char why[128];
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		strcpy(why, "untouched");
		if (!cases[i].why) {
			assert_int_equal(eng_audio_rate_check(cases[i].rate,
							      cases[i].align,
							      why, sizeof(why)),
					 0);
			assert_string_equal(why, "untouched");
			continue;
		}
		assert_int_equal(eng_audio_rate_check(cases[i].rate,
						      cases[i].align, why,
						      sizeof(why)),
				 -EINVAL);
		assert_string_equal(why, cases[i].why);
	}
}

static void test_gcd(void **state)
{
	static const struct {
		uint64_t a, b, want;
	} cases[] = {
		{ 0, 0, 0 }, { 7, 0, 7 }, { 0, 7, 7 }, { 12, 18, 6 },
		{ 30000, 1001, 1 }, { 48000, 1000, 1000 },
		{ UINT64_MAX, UINT64_MAX - 1, 1 },
		{ UINT64_MAX, 5, 5 }, /* 2^64 - 1 = 3 * 5 * 17 * ... */
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		assert_int_equal(eng_gcd64(cases[i].a, cases[i].b),
				 cases[i].want);
		assert_int_equal(eng_gcd64(cases[i].b, cases[i].a),
				 cases[i].want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fps),
		cmocka_unit_test(test_audio_rate_check),
		cmocka_unit_test(test_gcd),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_pace),
		cmocka_unit_test(test_backing),
		cmocka_unit_test(test_load_defaults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
