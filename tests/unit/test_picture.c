/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for pictures in the model (issue 20): the frame sizes of 2vuy
 * and v210, the .tl picture track line (parsed, refused with file, line
 * and reason, written back), and the closed form giving every frame
 * exactly its size up to the boundary eng_tl_finalize enforces.
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

#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"

static int parse(const char *text, struct eng_timeline **tl,
		 struct eng_diag *d)
{
	return eng_tl_parse("p.tl", "p", text, strlen(text), tl, d);
}

static void test_sizes(void **state)
{
	struct eng_picture p = {ENG_PIX_2VUY, 720, 486};

	(void)state;
	assert_int_equal(eng_picture_bytes(&p), 699840);
	p.height = 576;
	assert_int_equal(eng_picture_bytes(&p), 829440);
	p = (struct eng_picture){ENG_PIX_V210, 1920, 1080};
	assert_int_equal(eng_picture_bytes(&p), 5120 * 1080);
	/* 720 pixels: 15 groups of 48, 1920 bytes a row */
	p.width = 720;
	p.height = 486;
	assert_int_equal(eng_picture_bytes(&p), 1920 * 486);
	/* a partial group is padded to 128 bytes */
	p.width = 50;
	p.height = 1;
	assert_int_equal(eng_picture_bytes(&p), 256);
	p.pix = ENG_PIX_NONE;
	assert_int_equal(eng_picture_bytes(&p), 0);
}

static void test_parse_write(void **state)
{
	static const char text[] = "fps 30000/1001\n"
				   "track V 2vuy 720x486\n"
				   "track V2 v210 1920x1080\n"
				   "track A1 144000 align=3\n"
				   "event V,V2,A1 c 0 100\n";
	struct eng_timeline *tl, *tl2;
	struct eng_diag d = {0};
	char *out, *out2;
	size_t len, len2;
	int64_t k;

	(void)state;
	assert_int_equal(parse(text, &tl, &d), 0);
	assert_int_equal(tl->tracks[0].pic.pix, ENG_PIX_2VUY);
	assert_int_equal(tl->tracks[0].pic.width, 720);
	assert_int_equal(tl->tracks[0].align, 699840);
	/* ceil(699840 * 30000 / 1001) */
	assert_int_equal(tl->tracks[0].rate, 20974226);
	assert_int_equal(tl->tracks[1].pic.pix, ENG_PIX_V210);
	assert_int_equal(tl->tracks[2].pic.pix, ENG_PIX_NONE);
	for (k = 0; k < 100; k++) {
		assert_int_equal(eng_upto(tl, 0, k + 1) - eng_upto(tl, 0, k),
				 699840);
		assert_int_equal(eng_upto(tl, 1, k + 1) - eng_upto(tl, 1, k),
				 5529600);
	}
	assert_int_equal(eng_tl_write(tl, 0, &out, &len, &d), 0);
	assert_non_null(strstr(out, "\ntrack V 2vuy 720x486\n"));
	assert_non_null(strstr(out, "\ntrack V2 v210 1920x1080\n"));
	assert_non_null(strstr(out, "\ntrack A1 144000 align=3\n"));
	assert_int_equal(eng_tl_parse("p.tl", "p", out, len, &tl2, &d), 0);
	assert_int_equal(tl2->bytes, tl->bytes);
	assert_memory_equal(&tl2->tracks[1].pic, &tl->tracks[1].pic,
			    sizeof(tl->tracks[1].pic));
	assert_int_equal(eng_tl_write(tl2, 0, &out2, &len2, &d), 0);
	assert_string_equal(out, out2);
	free(out);
	free(out2);
	eng_tl_free(tl);
	eng_tl_free(tl2);
	eng_diag_free(&d);
}

static void expect_bad(const char *track_line, const char *want)
{
	char text[256];
	struct eng_timeline *tl;
	struct eng_diag d = {0};

	snprintf(text, sizeof(text), "fps 25\n%s\nevent V c 0 10\n",
		 track_line);
	assert_int_equal(parse(text, &tl, &d), -EINVAL);
	assert_null(tl);
	assert_true(d.n >= 1);
	if (!strstr(d.msgs[0], want))
		fail_msg("'%s': got '%s', want '%s'", track_line, d.msgs[0],
			 want);
	eng_diag_free(&d);
}

static void test_bad(void **state)
{
	(void)state;
	expect_bad("track V yuv2 720x486",
		   "p.tl:2: track 'V' picture 'yuv2 720x486': unknown picture format");
	expect_bad("track V 2vuy 721x486", "p.tl:2: track 'V' picture '2vuy 721x486': picture width must be even");
	expect_bad("track V v210 0x486", "p.tl:2: track 'V' picture 'v210 0x486': picture width and height must be 1 to 16384");
	expect_bad("track V 2vuy 720x0", "must be 1 to 16384");
	expect_bad("track V 2vuy 16386x16", "must be 1 to 16384");
	expect_bad("track V 2vuy 720x99999999999999999999", "must be 1 to 16384");
	expect_bad("track V 2vuy 720x486 align=2", "p.tl:2: unexpected 'align=2' after picture size");
	expect_bad("track V 2vuy", "p.tl:2: missing WIDTHxHEIGHT after picture format '2vuy'");
	/* A size typed with a capital X or a '*' after a known format is a
	 * bad picture size, not a bad rate '2vuy' (found as a user, issue
	 * 20: 'track V 2vuy 720X486' said "bad rate '2vuy'" and "unexpected
	 * '720X486' after RATE") */
	expect_bad("track V 2vuy 720X486", "p.tl:2: track 'V' picture '2vuy 720X486': bad picture size: WIDTHxHEIGHT, e.g. 720x486");
	expect_bad("track V v210 1920*1080", "p.tl:2: track 'V' picture 'v210 1920*1080': bad picture size");
	/* today's rate lines keep their messages */
	expect_bad("track V 18M 720x486x", "unexpected '720x486x' after RATE");
}

/* A transition track plays its main track's files (Vx reads V's): a clip
 * there of another picture than V's, or of a picture where V has none,
 * or none where V has one, is refused at its line, naming the clip and
 * both pictures.  Found by issue 20: before, a .tl could cut V's
 * 720x486 frames as 1920x1080 ones on Vx and mount (test_parse_write did
 * exactly that). */
static void test_two_sizes(void **state)
{
	static const struct {
		const char *v, *vx, *want;
	} cases[] = {
		{ "2vuy 720x486", "2vuy 1920x1080",
		  "p.tl:5: clip b on track Vx: 2vuy 1920x1080, but it plays the "
		  "files of track V, whose frames are 2vuy 720x486: a clip of two "
		  "picture sizes" },
		{ "2vuy 720x486", "v210 720x486",
		  "p.tl:5: clip b on track Vx: v210 720x486, but it plays the "
		  "files of track V, whose frames are 2vuy 720x486" },
		{ "18M", "2vuy 720x486",
		  "p.tl:5: clip b on track Vx: 2vuy 720x486, but it plays the "
		  "files of track V, whose frames are no picture (18000000 bytes "
		  "a second)" },
		{ "2vuy 64x48", "18M",
		  "p.tl:5: clip b on track Vx: no picture (18000000 bytes a "
		  "second), but it plays the files of track V, whose frames are "
		  "2vuy 64x48" },
		{ "2vuy 64x48", "2vuy 64x48", NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		struct eng_timeline *tl;
		struct eng_diag d = {0};

		snprintf(text, sizeof(text),
			 "fps 25\ntrack V %s\ntrack Vx %s\n"
			 "event V a 0 10\nevent Vx b 3 4 @5\n",
			 cases[i].v, cases[i].vx);
		if (!cases[i].want) {
			assert_int_equal(parse(text, &tl, &d), 0);
			eng_tl_free(tl);
			continue;
		}
		assert_int_equal(parse(text, &tl, &d), -EINVAL);
		assert_null(tl);
		assert_int_equal(d.n, 1);
		if (!strstr(d.msgs[0], cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, d.msgs[0],
				 cases[i].want);
		eng_diag_free(&d);
	}
}

/* -o picture= and timelinefs-gen --picture: FORMAT:WIDTHxHEIGHT or none,
 * the reasons in eng_picture_parse's words. */
static void test_option(void **state)
{
	static const struct {
		const char *s;
		uint32_t pix, w, h;
		const char *why;	/* NULL: valid */
	} cases[] = {
		{ "2vuy:720x486", ENG_PIX_2VUY, 720, 486, NULL },
		{ "v210:1920x1080", ENG_PIX_V210, 1920, 1080, NULL },
		{ "none", ENG_PIX_NONE, 0, 0, NULL },
		{ "2vuy", 0, 0, 0, "expected FORMAT:WIDTHxHEIGHT, e.g. 2vuy:720x486" },
		{ "720x486", 0, 0, 0, "expected FORMAT:WIDTHxHEIGHT" },
		{ "", 0, 0, 0, "expected FORMAT:WIDTHxHEIGHT" },
		{ "verylongformat:2x2", 0, 0, 0, "expected FORMAT:WIDTHxHEIGHT" },
		{ "yuv2:720x486", 0, 0, 0, "unknown picture format (2vuy or v210)" },
		{ "2vuy:721x486", 0, 0, 0, "picture width must be even for 4:2:2" },
		{ "2vuy:720x", 0, 0, 0, "bad picture size" },
		{ "2vuy:720x486:", 0, 0, 0, "bad picture size" },
		{ "v210:16386x2", 0, 0, 0, "must be 1 to 16384" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_picture p;
		char why[128] = "";
		int rc = eng_picture_option_parse(cases[i].s, &p, why,
						  sizeof(why));

		if (!cases[i].why) {
			assert_int_equal(rc, 0);
			assert_int_equal(p.pix, cases[i].pix);
			assert_int_equal(p.width, cases[i].w);
			assert_int_equal(p.height, cases[i].h);
			continue;
		}
		assert_int_equal(rc, -EINVAL);
		assert_int_equal(p.pix, ENG_PIX_NONE);
		if (!strstr(why, cases[i].why))
			fail_msg("'%s': got '%s', want '%s'", cases[i].s, why,
				 cases[i].why);
	}
}

/* An EDL and an OTIO file loaded with a picture (the mount's -o
 * picture=): every video track, the transition tracks too, is a picture
 * track at the file's own rate (the EDL 25 fps, the OTIO 24), audio as
 * before; without one, video_rate as before. */
static void test_edl_otio(void **state)
{
	static const struct {
		const char *path;
		uint32_t fps;
		const char *video[3];
	} cases[] = {
		{ "tests/fixtures/edl/transitions.edl", 25, { "V", "Vx" } },
		{ "tests/fixtures/otio/transition.otio", 24, { "V", "Vx" } },
	};
	size_t i, t, v;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_load_options o, o2;
		struct eng_timeline *tl;
		struct eng_diag d = {0};
		char why[128];

		eng_load_options_default(&o);
		assert_int_equal(eng_load_options_for(cases[i].path, &o, &o2,
						      NULL, &d, NULL), 0);
		assert_int_equal(eng_picture_option_parse("2vuy:64x48",
							  &o2.picture, why,
							  sizeof(why)), 0);
		if (eng_timeline_load(cases[i].path, &o2, &tl, &d) < 0) {
			for (t = 0; t < d.n; t++)
				print_message("%s\n", d.msgs[t]);
			fail_msg("%s does not load", cases[i].path);
		}
		assert_int_equal(tl->fps.num, cases[i].fps);
		for (v = 0; cases[i].video[v]; v++) {
			int k = eng_tl_find_track(tl, cases[i].video[v]);
			int64_t f;

			assert_true(k >= 0);
			assert_int_equal(tl->tracks[k].pic.pix, ENG_PIX_2VUY);
			assert_int_equal(tl->tracks[k].pic.width, 64);
			assert_int_equal(tl->tracks[k].align, 6144);
			for (f = 0; f < tl->frames; f++)
				assert_int_equal(eng_upto(tl, (size_t)k, f),
						 (uint64_t)f * 6144);
		}
		for (t = 0; t < tl->ntracks; t++)
			if (tl->tracks[t].name[0] == 'A') {
				assert_int_equal(tl->tracks[t].pic.pix,
						 ENG_PIX_NONE);
				assert_int_equal(tl->tracks[t].rate, 144000);
			}
		eng_tl_free(tl);
		/* none: the rate */
		o2.picture.pix = ENG_PIX_NONE;
		assert_int_equal(eng_timeline_load(cases[i].path, &o2, &tl, &d),
				 0);
		assert_int_equal(tl->tracks[0].pic.pix, ENG_PIX_NONE);
		assert_int_equal(tl->tracks[0].rate, o2.video_rate);
		eng_tl_free(tl);
		eng_diag_free(&d);
	}
}

/* 2x2 2vuy (8 bytes) at 30000/1001: rate ceil(240000/1001) = 240,
 * excess 240 * 1001 - 8 * 30000 = 240, so frames stay whole while
 * k * 240 < 240000: up to frame 999. */
static void test_boundary(void **state)
{
	struct eng_timeline *tl;
	struct eng_diag d = {0};
	int64_t k;

	(void)state;
	assert_int_equal(parse("fps 30000/1001\ntrack V 2vuy 2x2\n"
			       "event V c 0 999\n", &tl, &d), 0);
	assert_int_equal(tl->tracks[0].rate, 240);
	for (k = 0; k < 999; k++)
		assert_int_equal(eng_upto(tl, 0, k + 1) - eng_upto(tl, 0, k), 8);
	assert_int_equal(tl->bytes, 999 * 8);
	/* the unchecked closed form at 1000 would make frame 999 16 bytes */
	assert_int_equal(eng_upto(tl, 0, 1000) - eng_upto(tl, 0, 999), 16);
	eng_tl_free(tl);
	assert_int_equal(parse("fps 30000/1001\ntrack V 2vuy 2x2\n"
			       "event V c 0 1000\n", &tl, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0],
			    "p.tl:3: track V: 2vuy 2x2 frames at 30000/1001 fps "
			    "stay whole only up to frame 999, the timeline reaches frame 1000");
	eng_diag_free(&d);
	/* a source frame counts as much as a record frame */
	assert_int_equal(parse("fps 30000/1001\ntrack V 2vuy 2x2\n"
			       "event V c 990 10\n", &tl, &d), -EINVAL);
	eng_diag_free(&d);
	/* exact rates have no bound: 25 fps */
	assert_int_equal(parse("fps 25\ntrack V 2vuy 2x2\n"
			       "event V c 1000000000 1000000000\n", &tl, &d), 0);
	assert_int_equal(tl->bytes, 8000000000ULL);
	eng_tl_free(tl);
	/* 720x486 at 30000/1001: excess 226, whole to frame 92899115
	 * (36 days) */
	assert_int_equal(parse("fps 30000/1001\ntrack V 2vuy 720x486\n"
			       "event V c 0 92899115\n", &tl, &d), 0);
	assert_int_equal(eng_upto(tl, 0, 92899115), 92899115ULL * 699840);
	eng_tl_free(tl);
	assert_int_equal(parse("fps 30000/1001\ntrack V 2vuy 720x486\n"
			       "event V c 0 92899116\n", &tl, &d), -EINVAL);
	eng_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_parse_write),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_boundary),
		cmocka_unit_test(test_two_sizes),
		cmocka_unit_test(test_option),
		cmocka_unit_test(test_edl_otio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
