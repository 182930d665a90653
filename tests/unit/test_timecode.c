/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/timeline/timecode.c, the one timecode parser of EDL files,
 * -o edl_origin= and timelinefs-gen --edl-origin (issue 17 defect 7: the
 * mount had a second one, without drop frame).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "timeline/load.h"
#include "timeline/timecode.h"
#include "util/values.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct eng_fps NTSC = { 30000, 1001 }, NTSC60 = { 60000, 1001 },
			    PAL = { 25, 1 }, FILM = { 24000, 1001 },
			    HFR = { 120, 1 };

static void test_parse(void **state)
{
	static const struct {
		const char *s;
		int rc;
		unsigned hh, mm, ss, ff;
		int drop;
	} cases[] = {
		{ "01:02:03:04", 0, 1, 2, 3, 4, 0 },
		{ "01:02:03;04", 0, 1, 2, 3, 4, 1 },
		{ "01:02:03.04", 0, 1, 2, 3, 4, 1 },
		{ "01:02:03,04", 0, 1, 2, 3, 4, 1 },
		{ "01;02;03;04", 0, 1, 2, 3, 4, 1 },
		{ "01;02;03:04", 0, 1, 2, 3, 4, 0 },	/* FF's separator */
		{ "99:59:59:29", 0, 99, 59, 59, 29, 0 },
		{ "00:00:01:119", 0, 0, 0, 1, 119, 0 },	/* 120 fps */
		{ "00:60:00:00", -ERANGE, 0, 60, 0, 0, 0 },
		{ "00:00:60:00", -ERANGE, 0, 0, 60, 0, 0 },
		{ "", -EINVAL, 0, 0, 0, 0, 0 },
		{ "1:00:00:00", -EINVAL, 0, 0, 0, 0, 0 },
		{ "001:00:00:00", -EINVAL, 0, 0, 0, 0, 0 },
		{ "00:00:00:0", -EINVAL, 0, 0, 0, 0, 0 },
		{ "00:00:00:0000", -EINVAL, 0, 0, 0, 0, 0 },
		{ "00:00:00", -EINVAL, 0, 0, 0, 0, 0 },
		{ "00:00:00:00 ", -EINVAL, 0, 0, 0, 0, 0 },
		{ " 00:00:00:00", -EINVAL, 0, 0, 0, 0, 0 },
		{ "00-00-00-00", -EINVAL, 0, 0, 0, 0, 0 },
		{ "+0:00:00:00", -EINVAL, 0, 0, 0, 0, 0 },
		{ "00:00:00:00:00", -EINVAL, 0, 0, 0, 0, 0 },
	};
	struct eng_tc tc;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int rc = eng_tc_parse(cases[i].s, &tc);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, expected %d", cases[i].s, rc,
				 cases[i].rc);
		if (rc == -EINVAL)
			continue;
		assert_int_equal(tc.hh, cases[i].hh);
		assert_int_equal(tc.mm, cases[i].mm);
		assert_int_equal(tc.ss, cases[i].ss);
		assert_int_equal(tc.ff, cases[i].ff);
		assert_int_equal(tc.drop, cases[i].drop);
		assert_string_equal(tc.text, cases[i].s);
	}
}

static void test_frames(void **state)
{
	static const struct {
		const char *s;
		const struct eng_fps *fps;
		int drop;		/* FCM: DROP FRAME */
		int rc;
		int64_t frames;
	} cases[] = {
		{ "00:00:00:00", &NTSC, 0, 0, 0 },
		{ "01:00:00:00", &NTSC, 0, 0, 108000 },	/* 30 nominal */
		{ "01:00:00;00", &NTSC, 0, 0, 107892 },	/* 108 dropped */
		{ "01:00:00:00", &NTSC, 1, 0, 107892 },	/* by the FCM */
		{ "00:00:59;29", &NTSC, 0, 0, 1799 },
		{ "00:01:00;02", &NTSC, 0, 0, 1800 },	/* 00, 01 skipped */
		{ "00:10:00;00", &NTSC, 0, 0, 17982 },	/* minute 10 keeps */
		{ "00:01:00;00", &NTSC, 0, -ENOENT, 0 },
		{ "00:01:00;01", &NTSC, 0, -ENOENT, 0 },
		{ "00:01:00;03", &NTSC60, 0, -ENOENT, 0 },
		{ "00:01:00;04", &NTSC60, 0, 0, 3600 },
		{ "01:00:00;00", &NTSC60, 0, 0, 215784 },
		{ "01:00:00:00", &PAL, 0, 0, 90000 },
		{ "00:00:00:25", &PAL, 0, -ERANGE, 0 },
		{ "00:00:00:29", &NTSC, 0, 0, 29 },
		{ "00:00:00:30", &NTSC, 0, -ERANGE, 0 },
		{ "00:00:00;00", &PAL, 0, -ENOTSUP, 0 },
		{ "00:00:00:00", &PAL, 1, -ENOTSUP, 0 },
		{ "00:00:00;00", &FILM, 0, -ENOTSUP, 0 },	/* 23.976 */
		{ "00:00:01:00", &FILM, 0, 0, 24 },
		{ "00:00:01:119", &HFR, 0, 0, 239 },
		{ "99:59:59:29", &NTSC, 0, 0, 10799999 },
	};
	struct eng_tc tc;
	int64_t f;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int rc;

		assert_int_equal(eng_tc_parse(cases[i].s, &tc), 0);
		f = -1;
		rc = eng_tc_frames(&tc, *cases[i].fps, cases[i].drop, &f);
		if (rc != cases[i].rc || (rc == 0 && f != cases[i].frames))
			fail_msg("'%s' at %u/%u: rc %d frames %lld, expected "
				 "%d %lld", cases[i].s, cases[i].fps->num,
				 cases[i].fps->den, rc, (long long)f,
				 cases[i].rc, (long long)cases[i].frames);
	}
	assert_int_equal(eng_tc_nominal(NTSC), 30);
	assert_int_equal(eng_tc_nominal(FILM), 24);
	assert_int_equal(eng_tc_nominal((struct eng_fps){ 1, 0 }), 0);
}

/* The value of -o edl_origin= and --edl-origin. */
static void test_origin_parse(void **state)
{
	struct eng_load_options o;
	char why[128];

	(void)state;
	eng_load_options_default(&o);
	assert_int_equal(eng_edl_origin_parse("zero", &o, why, sizeof(why)), 0);
	assert_int_equal(o.edl_origin, ENG_EDL_ORIGIN_ZERO);
	assert_int_equal(eng_edl_origin_parse("min", &o, why, sizeof(why)), 0);
	assert_int_equal(o.edl_origin, ENG_EDL_ORIGIN_MIN);
	assert_int_equal(eng_edl_origin_parse("01:00:00;00", &o, why,
					      sizeof(why)), 0);
	assert_int_equal(o.edl_origin, ENG_EDL_ORIGIN_TC);
	assert_int_equal(o.edl_origin_tc.hh, 1);
	assert_int_equal(o.edl_origin_tc.drop, 1);
	/* FF is checked per EDL, at its rate: 45 is a frame at 50 fps */
	assert_int_equal(eng_edl_origin_parse("01:00:00:45", &o, why,
					      sizeof(why)), 0);
	assert_int_equal(eng_edl_origin_parse("MIN", &o, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, "expected min, zero or HH:MM:SS:FF "
			    "(HH:MM:SS;FF drop frame)");
	assert_int_equal(eng_edl_origin_parse("01:60:00:00", &o, why,
					      sizeof(why)), -EINVAL);
	assert_string_equal(why, "minutes and seconds must be below 60");
	assert_int_equal(eng_edl_origin_parse("", &o, why, sizeof(why)),
			 -EINVAL);
}

/* eng_tc_format is eng_tc_frames backwards: every frame of the first 11
 * minutes and around each hour, drop and non-drop, reads back as itself
 * (timelinefs-gen writes it into media as their start timecode). */
static void test_format(void **state)
{
	static const struct {
		struct eng_fps fps;
		int drop;
	} rates[] = { { { 30000, 1001 }, 1 }, { { 30000, 1001 }, 0 },
		      { { 60000, 1001 }, 1 }, { { 25, 1 }, 0 },
		      { { 24000, 1001 }, 0 } };
	struct eng_tc tc;
	char buf[16];
	int64_t f, back;
	size_t r;

	(void)state;
	for (r = 0; r < N(rates); r++)
		for (f = 0; f < 2 * 60 * 60 * 11; f++) {
			int64_t k = f < 40000 ? f : 107000 + f;

			assert_int_equal(eng_tc_format(k, rates[r].fps,
						       rates[r].drop, buf,
						       sizeof(buf)), 0);
			assert_int_equal(eng_tc_parse(buf, &tc), 0);
			assert_int_equal(tc.drop, rates[r].drop);
			assert_int_equal(eng_tc_frames(&tc, rates[r].fps, 0,
						       &back), 0);
			assert_int_equal(back, k);
		}
	assert_int_equal(eng_tc_format(1800, NTSC, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "00:01:00;02");
	assert_int_equal(eng_tc_format(17982, NTSC, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "00:10:00;00");
	assert_int_equal(eng_tc_format(90000, PAL, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "01:00:00:00");
	assert_int_equal(eng_tc_format(1, PAL, 1, buf, sizeof(buf)), -ENOTSUP);
	assert_int_equal(eng_tc_format(-1, PAL, 0, buf, sizeof(buf)), -EINVAL);
	/* a timecode wraps at 24 hours; the exact form reads back as the
	 * same count up to 99 hours (a .tl source timecode) */
	assert_int_equal(eng_tc_format(25 * 90000, PAL, 0, buf, sizeof(buf)),
			 0);
	assert_string_equal(buf, "01:00:00:00");
	assert_int_equal(eng_tc_format_exact(25 * 90000, PAL, 0, buf,
					     sizeof(buf)), 0);
	assert_string_equal(buf, "25:00:00:00");
	assert_int_equal(eng_tc_format_exact(100 * 90000 - 1, PAL, 0, buf,
					     sizeof(buf)), 0);
	assert_string_equal(buf, "99:59:59:24");
	assert_int_equal(eng_tc_format_exact(100 * 90000, PAL, 0, buf,
					     sizeof(buf)), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_origin_parse),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
