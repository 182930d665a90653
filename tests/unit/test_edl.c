/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the CMX 3600 EDL parser: every public sample in
 * ../shared/samples (TLFS_SHARED), the hand-written fixtures in
 * tests/fixtures/edl, and one case per error (line and reason).
 * Expected frame positions are worked out by hand in the comments.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "timeline/edl.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"
#include "parser_check.h"
#include "seq_check.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

static void options(struct eng_load_options *o, const char *fps, int strict)
{
	eng_load_options_default(o);
	if (fps)
		assert_int_equal(eng_parse_fps(fps, &o->fps), 0);
	o->strict = strict;
}

static int parse_opt(const char *text, size_t len,
		     const struct eng_load_options *o,
		     struct eng_timeline **tl, struct eng_diag *d)
{
	return eng_edl_parse("t.edl", "t", text, len, o, tl, d);
}

static int parse(const char *text, const char *fps, int strict,
		 struct eng_timeline **tl, struct eng_diag *d)
{
	struct eng_load_options o;

	options(&o, fps, strict);
	return parse_opt(text, strlen(text), &o, tl, d);
}

/* ------------------------------------------------------------------ */
/* Public samples                                                       */

struct sample_case {
	const char *file;	/* in $TLFS_SHARED/samples, without prefix */
	const char *fps;
	int strict;
	int rc;
	int64_t frames;
	const char *tracks;
	size_t nclips;
	struct want_seg segs[6];
	const char *msgs[3];	/* expected messages (for failures) */
	size_t nmsgs;
};

static const struct sample_case samples[] = {
	/* 25 fps: 001 rec 0 + 06:11 = 6*25+11 = 161; 002 200 frames at 161;
	 * 003 03:11 = 86 at 361; 004 01:24 = 49 at 14:11+... = 17:22 =
	 * 17*25+22 = 447; end 19:21 = 496. */
	{ .file = "otio-cmx3600-adapter__sample_data__25fps.edl",
	  .fps = "25", .strict = 0, .rc = 0,
	  .frames = 496, .tracks = "V:4", .nclips = 4,
	  .segs = { { "V", 0, "sq001_s001", 0, 0, 161 },
	    { "V", 1, "sq001_s002", 0, 161, 200 },
	    { "V", 3, "sq001_s004", 0, 447, 49 } } },
	/* 29.97 NDF (30 per second): record starts 00:59:53:11 = frame 0;
	 * 001 src 04:05..05:12 = 162-125 = 37 frames; 002 at 54:18 - 53:11
	 * = 1638-1601 = 37, 08:15-06:13 = 255-193 = 62 frames; end 99.
	 * Names from "* FROM CLIP: S:\path\to\ZZ100_501.take_1.0001.exr":
	 * directory and ".exr" off, ".0001" is no extension. */
	{ .file = "otio-cmx3600-adapter__sample_data__avid_example.edl",
	  .fps = NULL, .strict = 1, .rc = 0,
	  .frames = 99, .tracks = "V:2", .nclips = 2,
	  .segs = { { "V", 0, "ZZ100_501.take_1.0001", 0, 0, 37 },
	    { "V", 1, "ZZ100_502A.take_2.0101", 0, 37, 62 } } },
	/* same through "* FROM FILE:" */
	{ .file = "otio-cmx3600-adapter__sample_data__nucoda_example.edl",
	  .fps = NULL, .strict = 1, .rc = 0,
	  .frames = 99, .tracks = "V:2", .nclips = 2,
	  .segs = { { "V", 0, "ZZ100_501.take_1.0001", 0, 0, 37 },
	    { "V", 1, "ZZ100_502A.take_2.0101", 0, 37, 62 } } },
	/* same through "* FROM CLIP NAME: ZZ100_501.take_1.0001.exr" */
	{ .file = "otio-cmx3600-adapter__sample_data__premiere_example.edl",
	  .fps = NULL, .strict = 1, .rc = 0,
	  .frames = 99, .tracks = "V:2", .nclips = 2,
	  .segs = { { "V", 0, "ZZ100_501.take_1.0001", 0, 0, 37 },
	    { "V", 1, "ZZ100_502A.take_2.0101", 0, 37, 62 } } },
	/* 29.97: clip_A 04:05..04:14 = 9 frames at 0; event 002 = zero
	 * length cut of clip_A at 04:14 + "D 010" to clip_B 08:08..08:18 at
	 * rec 9: clip_B (origin 08:08) src 0 at 9 for 10 on V, clip_A
	 * continues on Vx: src 04:14-04:05 = 9 at 9 for 10; 003 clip_B
	 * src 08:18-08:08 = 10 at 19 for 1; end 20. */
	{ .file = "otio-cmx3600-adapter__sample_data__dissolve_test.edl",
	  .fps = NULL, .strict = 1, .rc = 0,
	  .frames = 20, .tracks = "V:3 Vx:1", .nclips = 2,
	  .segs = { { "V", 0, "clip_A", 0, 0, 9 },
	    { "V", 1, "clip_B", 0, 9, 10 },
	    { "V", 2, "clip_B", 10, 19, 1 },
	    { "Vx", 0, "clip_A", 9, 9, 10 } } },
	/* the same with "W001 010" */
	{ .file = "otio-cmx3600-adapter__sample_data__wipe_test.edl",
	  .fps = NULL, .strict = 1, .rc = 0,
	  .frames = 20, .tracks = "V:3 Vx:1", .nclips = 2,
	  .segs = { { "V", 1, "clip_B", 0, 9, 10 },
	    { "Vx", 0, "clip_A", 9, 9, 10 } } },
	/* 24 fps (timecodes only fit 24): Clip_A 03:23..06:12 = 95..156 =
	 * 61 at 0; 002 Clip_B zero length at 06:00 (its only use: src 0),
	 * D 030 Clip_C 33:22..35:04 = 814..844 at rec 02:13 = 61; Clip_B
	 * on Vx at 61 for 30; 003 Clip_D 00:00..01:22 = 46 at 03:19 = 91;
	 * end 137.  ".mov" off the FROM CLIP NAME comments. */
	{ .file = "otio-cmx3600-adapter__sample_data__dissolve_test_3.edl",
	  .fps = "24", .strict = 1, .rc = 0,
	  .frames = 137, .tracks = "V:3 Vx:1", .nclips = 4,
	  .segs = { { "V", 0, "Clip_A", 0, 0, 61 },
	    { "V", 1, "Clip_C", 0, 61, 30 },
	    { "V", 2, "Clip_D", 0, 91, 46 },
	    { "Vx", 0, "Clip_B", 0, 61, 30 } } },
	/* 24 fps, no comments: reels name the clips.  Record origin
	 * 01:04:11:17 = 281 frames into the hour.  003: ABC0020. is used at
	 * 08:18 = 210 (outgoing) and 06:22 = 166 (incoming): origin 166;
	 * incoming at 15:02 = 362-281 = 81 for 18:11-15:02 = 443-362 = 81;
	 * outgoing on Vx: src 210-166 = 44 at 81 for 35.  004: ABC0030.
	 * origin 06:10 = 154, outgoing 10:07 = 247 -> 93, at 443-281 = 162
	 * for 64.  060 ends at 31:14 = 758: 758-281 = 477 frames. */
	{ .file = "otio-cmx3600-adapter__sample_data__dissolve_test_4.edl",
	  .fps = "24", .strict = 1, .rc = 0,
	  .frames = 477, .tracks = "V:6 Vx:2", .nclips = 6,
	  .segs = { { "V", 0, "ABC0000.", 0, 0, 30 },
	    { "V", 2, "ABC0020.", 0, 81, 81 },
	    { "V", 5, "ABC0050.", 0, 342, 135 },
	    { "Vx", 0, "ABC0020.", 44, 81, 35 },
	    { "Vx", 1, "ABC0030.", 93, 162, 64 } } },
	/* the D line's event number 002 differs from the cut before it
	 * (001): no outgoing side; that zero-length 001 is then an error */
	{ .file = "otio-cmx3600-adapter__sample_data__dissolve_test_fail.edl",
	  .fps = NULL, .strict = 0, .rc = -EINVAL,
	  .msgs = { ":6: dissolve of event 002 has no outgoing source",
	    ":5: event 001 has no length" },
	  .nmsgs = 2 },
	/* FROM CLIP NAME without '*'; 001 at 0 for 30, 002 at 01:16 = 46,
	 * 003 at 04:06 = 126; end 156 */
	{ .file = "otio-cmx3600-adapter__sample_data__gap_test.edl",
	  .fps = NULL, .strict = 0, .rc = 0,
	  .frames = 156, .tracks = "V:3", .nclips = 3,
	  .segs = { { "V", 0, "shot1", 0, 0, 30 },
	    { "V", 1, "shot2", 0, 46, 30 },
	    { "V", 2, "shot3", 0, 126, 30 } } },
	/* AA + "AUD 3": A1 A2 A3, 56:55:22 = 56*1800 + 55*30 + 22 = 102472 */
	{ .file = "otio-cmx3600-adapter__sample_data__multi_audio.edl",
	  .fps = NULL, .strict = 1, .rc = 0,
	  .frames = 102472, .tracks = "A1:1 A2:1 A3:1", .nclips = 1,
	  .segs = { { "A1", 0, "AX", 0, 0, 102472 },
	    { "A3", 0, "AX", 0, 0, 102472 } } },
	/* lenient: 004 has 01:24 = 49 source but 19:19-17:22 = 494-447 =
	 * 47 record frames: 47 are played; 005 starts at 19:21 = 496 (two
	 * frames of gap); the end is 01:11:14 = 71*25+14 = 1789 */
	{ .file = "otio-cmx3600-adapter__sample_data__timecode_mismatch.edl",
	  .fps = "25", .strict = 0, .rc = 0,
	  .frames = 1789, .tracks = "V:20", .nclips = 19,
	  .segs = { { "V", 3, "sq001_s004", 0, 447, 47 },
	    { "V", 4, "sq001_s005", 0, 496, 56 },
	    { "V", 19, "sq001_s0020", 0, 1726, 63 } } },
	/* strict: every mismatch is an error (004, 005, 009, 010) */
	{ .file = "otio-cmx3600-adapter__sample_data__timecode_mismatch.edl",
	  .fps = "25", .strict = 1, .rc = -EINVAL,
	  .msgs = { ":13: event 004: source duration 49 frames differs "
		    "from record "
	    "duration 47 frames",
	    ":16: event 005: source duration 31 frames differs from record "
	    "duration 56 frames" },
	  .nmsgs = 4 },
	/* 23.976 (nominal 24): record origin 01:00:06:20.  002 at
	 * (94*24+6) - (6*24+20) = 2098 for 17.  003 at 101*24+13-164 =
	 * 2273 for 42:14-41:13 = 25 frames with M2 31.7 fps: source frame
	 * floor(k*31.7/24): 0 1 2 3 | 5 6 7 | 9 10 11 | 13 14 15 | 17 18 19
	 * | 21 22 23 | 25 26 27 | 29 30 31: 8 runs.  End 2273+25 = 2298. */
	{ .file = "pycmx__edls__ISSUE_14_conform_edl_issue_01.edl",
	  .fps = "23.976", .strict = 1, .rc = 0,
	  .frames = 2298, .tracks = "V:10", .nclips = 3,
	  .segs = { { "V", 0, "13A-1-C", 0, 0, 50 },
	    { "V", 1, "111B-1-B", 0, 2098, 17 },
	    { "V", 2, "102C-2-B", 0, 2273, 4 },
	    { "V", 3, "102C-2-B", 5, 2277, 3 },
	    { "V", 9, "102C-2-B", 29, 2295, 3 } } },
	/* 24 fps (FRMC DURATION:102): 6-digit event number, comment
	 * "*FROM CLIP NAME:" without a space, no final newline.  Source
	 * 41:59:15 .. 42:03:21 = 4 s 6 f = 102 frames. */
	{ .file = "pycmx__edls__cdl_frmc_example01.edl",
	  .fps = "24", .strict = 1, .rc = 0,
	  .frames = 102, .tracks = "V:1", .nclips = 1,
	  .segs = { { "V", 0, "QTLF_101_010_113_BG_01_V001", 0, 0, 102 } } },
	/* 25 fps (the frames field reaches 24, so not 24 fps).
	 * V: 001 0..1499 (59:24 = 59*25+24); 003 "clip -3" at 1499 for 751
	 * (+ AUD 3 4); 005 replaces 004 at 1:30:00 = 2250 for 617; 007 at
	 * 2:01:10 = 3035 for 125; 008 "Jellyfish" 10:14 = 264 - its only
	 * origin 264 -> 0 at 3160 for 111; 009 reverse -25.0 at 2:10:21 =
	 * 3271, 751 frames: source 750 down to 0, one segment each:
	 * 5 + 751 = 756.  A1/A2: 002 + 010 reverse = 752.  006: zero-length
	 * "Test rename" 29:01 = 726 then a wipe of 25 frames to BL: A1x/A2x
	 * 726 at 1:59:01 = 2976 for 25, BL is a gap.  End 2:40:22 = 4022. */
	{ .file = "pycmx__edls__test_24psf.edl",
	  .fps = "25", .strict = 1, .rc = 0,
	  .frames = 4022, .nclips = 8,
	  .tracks = "V:756 A1:752 A2:752 A3:1 A4:1 A1x:1 A2x:1",
	  .segs = { { "V", 2, "clip &5", 0, 2250, 617 },
	    { "V", 4, "Jellyfish", 0, 3160, 111 },
	    { "V", 5, "Test rename", 750, 3271, 1 },
	    { "V", 755, "Test rename", 0, 4021, 1 },
	    { "A1x", 0, "Test rename", 726, 2976, 25 },
	    { "A3", 0, "clip -3", 0, 1499, 751 } } },
	/* 25 fps.  Jellyfish is used at 01:00:00:00 = 90000, 00:59:58:21 =
	 * 89971 and 01:00:10:14 = 90264: origin 89971, so 001 reads from 29
	 * and 009 from 293.  005: zero-length "Test rename" at 24:17 = 617
	 * then D 070 to Jellyfish at 1:54:17 = 2867: Vx 617 at 2867 for 70.
	 * 007: wipe to BL: A1x/A2x "Test rename" 726 at 2976 for 25.
	 * V: 001 003 004 005 008 009 + 751 reverse = 757; A1: 002 006 + 751
	 * = 753.  End 2:40:22 = 4022. */
	{ .file = "pycmx__edls__test_25.edl",
	  .fps = "25", .strict = 1, .rc = 0,
	  .frames = 4022, .nclips = 4,
	  .tracks = "V:757 A1:753 A2:753 A3:1 A4:1 Vx:1 A1x:1 A2x:1",
	  .segs = { { "V", 0, "Jellyfish", 29, 0, 1499 },
	    { "V", 3, "Jellyfish", 0, 2867, 168 },
	    { "V", 5, "Jellyfish", 293, 3160, 111 },
	    { "Vx", 0, "Test rename", 617, 2867, 70 },
	    { "A1x", 0, "Test rename", 726, 2976, 25 },
	    { "A2", 1, "Test rename", 0, 2250, 726 } } },
};

static void test_sample(void **state)
{
	const struct sample_case *c = *state;
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char *path, *text;
	size_t len, i;
	int rc;

	path = sample_read(c->file, &text, &len);
	options(&o, c->fps, c->strict);
	rc = eng_edl_parse(path, "sample", text, len, &o, &tl, &d);
	if (rc != c->rc)
		print_diag(&d);
	assert_int_equal(rc, c->rc);
	if (rc == 0) {
		assert_int_equal(d.n, 0);
		assert_int_equal(tl->fps.num, o.fps.num);
		assert_int_equal(tl->fps.den, o.fps.den);
		assert_int_equal(tl->frames, c->frames);
		assert_int_equal(tl->nclips, c->nclips);
		check_tracks(tl, c->tracks);
		check_segs(tl, c->segs, N(c->segs));
		check_read_once(tl);
	} else {
		assert_null(tl);
		assert_int_equal(d.n, c->nmsgs);
		for (i = 0; i < N(c->msgs) && c->msgs[i]; i++)
			assert_msg(&d, c->msgs[i]);
		/* every message names the file */
		for (i = 0; i < d.n; i++)
			assert_true(strncmp(d.msgs[i], path, strlen(path)) == 0);
	}
	eng_tl_free(tl);
	eng_diag_free(&d);
	free(text);
	free(path);
}

/* ------------------------------------------------------------------ */
/* Hand-written fixtures (tests/fixtures/edl)                           */

static int parse_fixture(const char *file, const struct eng_load_options *o,
			 struct eng_timeline **tl, struct eng_diag *d)
{
	char path[256], *text;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "tests/fixtures/edl/%s", file);
	rc = eng_read_file(path, &text, &len);
	if (rc < 0)
		fail_msg("cannot read %s (run from the repository root)", path);
	rc = eng_edl_parse(path, "fixture", text, len, o, tl, d);
	free(text);
	return rc;
}

/* 29.97 DF.  001 (FCM DROP, ':' separators): 00:00:59:28 = 59*30+28 =
 * 1798; its out 00:01:00:02 = 1800+2 - 2*1 = 1800, so 2 frames (frame
 * numbers 00 and 01 of minute 1 do not exist).  002: 00:09:59:29 =
 * 599*30+29 - 2*9 = 17981; 00:10:00:01 = 18000+1 - 2*9 = 17983 (minute
 * 10 keeps its 00 and 01).  003 (FCM NON-DROP, but ';'): 00:01:00;02 =
 * 1800.  004 (NDF ':'): 00:01:00:00 = 1800.  Record 01:00:00:00 DF =
 * 108000 - 2*(60-6) = 107892 is frame 0; every event is 2 frames. */
static void test_drop_frame(void **state)
{
	static const struct want_seg w[] = {
		{ "V", 0, "df_a", 1798, 0, 2, 0 },
		{ "V", 1, "TAPE2", 17981, 2, 2, 0 },
		{ "V", 2, "TAPE3", 1800, 4, 2, 0 },
		{ "V", 3, "TAPE4", 1800, 6, 2, 0 },
	};
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	options(&o, "29.97", 1);
	o.edl_origin = ENG_EDL_ORIGIN_ZERO;
	assert_int_equal(parse_fixture("drop_frame.edl", &o, &tl, &d), 0);
	assert_int_equal(tl->frames, 8);
	check_tracks(tl, "V:4");
	check_segs(tl, w, N(w));
	eng_tl_free(tl);
	/* each clip's origin timecode, counted as its source in was: TAPE3
	 * drop frame by its ';', TAPE4 not (FCM: NON-DROP FRAME) */
	o.edl_origin = ENG_EDL_ORIGIN_MIN;
	assert_int_equal(parse_fixture("drop_frame.edl", &o, &tl, &d), 0);
	assert_int_equal(tl->nclips, 4);
	assert_int_equal(tl->clips[0].tc, 1798);
	assert_int_equal(tl->clips[0].tc_drop, 1);
	assert_int_equal(tl->clips[1].tc, 17981);
	assert_int_equal(tl->clips[2].tc, 1800);
	assert_int_equal(tl->clips[2].tc_drop, 1);
	assert_int_equal(tl->clips[3].tc, 1800);
	assert_int_equal(tl->clips[3].tc_drop, 0);
	assert_int_equal(tl->clips[3].tc_set, 1);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* 59.94 DF drops 4 frame numbers: 00:01:00;04 = 3600+4 - 4 = 3600;
 * 00:10:00;00 = 36000 - 4*9 = 35964; 01:00:00;00 = 216000 - 4*54 =
 * 215784.  00:01:00;03 does not exist; at 29.97 00:01:00;02 does. */
static void test_drop_frame_5994(void **state)
{
	static const char text[] =
		"001  R  V  C  00:01:00;04 00:01:00;06 00:00:00;00 00:00:00;02\n"
		"002  S  V  C  00:10:00;00 00:10:00;02 00:00:00;02 00:00:00;04\n"
		"003  T  V  C  01:00:00;00 01:00:00;02 00:00:00;04 00:00:00;06\n";
	static const struct want_seg w[] = {
		{ "V", 0, "R", 3600, 0, 2, 0 },
		{ "V", 1, "S", 35964, 2, 2, 0 },
		{ "V", 2, "T", 215784, 4, 2, 0 },
	};
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	options(&o, "59.94", 1);
	o.edl_origin = ENG_EDL_ORIGIN_ZERO;
	assert_int_equal(parse_opt(text, strlen(text), &o, &tl, &d), 0);
	check_segs(tl, w, N(w));
	eng_tl_free(tl);
	assert_int_equal(parse("001 R V C 00:01:00;03 00:01:00;05 "
			       "00:00:00:00 00:00:00:02\n", "59.94", 0, &tl,
			       &d), -EINVAL);
	assert_msg(&d, "t.edl:1: timecode '00:01:00;03' does not exist");
	eng_diag_free(&d);
}

/* M2 at 25 fps (from "* FPS: 25", opt says 29.97).  001 freeze: 5
 * segments of FRZ frame 0.  002 at 50 fps: frame 2k, 10 segments at
 * 5..14.  003 reverse -25: span 4, frames 3 2 1 0 at 15..18.  004 at
 * 37.5 fps: floor(1.5k) = 0 1 3 4: runs [0 1] at 19 and [3 4] at 21. */
static void test_speed(void **state)
{
	static const struct want_seg w[] = {
		{ "V", 0, "FRZ", 0, 0, 1, 0 },
		{ "V", 4, "FRZ", 0, 4, 1, 0 },
		{ "V", 5, "FAST", 0, 5, 1, 0 },
		{ "V", 6, "FAST", 2, 6, 1, 0 },
		{ "V", 14, "FAST", 18, 14, 1, 0 },
		{ "V", 15, "reverse", 3, 15, 1, 0 },
		{ "V", 18, "reverse", 0, 18, 1, 0 },
		{ "V", 19, "SLOW", 0, 19, 2, 0 },
		{ "V", 20, "SLOW", 3, 21, 2, 0 },
	};
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	options(&o, NULL, 1);
	assert_int_equal(parse_fixture("speed.edl", &o, &tl, &d), 0);
	assert_int_equal(tl->fps.num, 25);
	assert_int_equal(tl->fps.den, 1);
	assert_int_equal(tl->frames, 23);
	check_tracks(tl, "V:21");
	check_segs(tl, w, N(w));
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* M2 at the nominal rate is normal speed: one segment.  A freeze longer
 * than 100000 frames is refused (25 fps: 01:06:40:01 = 100001). */
static void test_speed_limits(void **state)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(parse("001 R V C 00:00:01:00 00:00:02:00 00:00:00:00 "
			       "00:00:01:00\nM2 R 025.0 00:00:01:00\n", "25",
			       1, &tl, &d), 0);
	check_tracks(tl, "V:1");
	eng_tl_free(tl);
	assert_int_equal(parse("TITLE: long freeze\n"
			       "001 R V C 00:00:01:00 00:00:01:01 00:00:00:00 "
			       "01:06:40:01\nM2 R 0 00:00:01:00\n", "25", 0,
			       &tl, &d), -EINVAL);
	assert_null(tl);
	assert_msg(&d, "t.edl:2: speed effects need more than 100000");
	eng_diag_free(&d);
}

/* A speed a hair off normal at 25 fps reads source frame floor(k p / q)
 * at offset k (q = 25000), in long runs found without stepping frames.
 * 25.001: floor(k / 25000) extra frames, a jump of one at 25000 and
 * 50000: [0, 25000) from 0, [25000, 50000) from 25001, the rest from
 * 50002.  24.999: k - ceil(k / 25000), so offsets 0 and 1 both read 0,
 * 1..25000 read 0..24999, 25001 repeats 24999 (25001 - 2) and 50001
 * repeats 49998 (50001 - 3). */
static void test_speed_runs(void **state)
{
	static const struct want_seg fast[] = {
		{ "V", 0, "R", 0, 0, 25000, 0 },
		{ "V", 1, "R", 25001, 25000, 25000, 0 },
		{ "V", 2, "R", 50002, 50000, 10000, 0 },
	};
	static const struct want_seg slow[] = {
		{ "V", 0, "R", 0, 0, 1, 0 },
		{ "V", 1, "R", 0, 1, 25000, 0 },
		{ "V", 2, "R", 24999, 25001, 25000, 0 },
		{ "V", 3, "R", 49998, 50001, 1, 0 },
	};
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(parse("001 R V C 00:00:01:00 00:40:01:00 00:00:00:00 "
			       "00:40:00:00\nM2 R 025.001 00:00:01:00\n",
			       "25", 0, &tl, &d), 0);
	check_tracks(tl, "V:3");
	check_segs(tl, fast, N(fast));
	eng_tl_free(tl);
	tl = NULL;
	assert_int_equal(parse("001 R V C 00:00:01:00 00:33:21:02 00:00:00:00 "
			       "00:33:20:02\nM2 R 024.999 00:00:01:00\n",
			       "25", 0, &tl, &d), 0);
	check_tracks(tl, "V:4");
	check_segs(tl, slow, N(slow));
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* B = V+A1, A2/V, AA/V, A + "AUD 3 4", NONE skipped, A2 + "AUD 3".
 * 29.97 NDF: 001 at 0 for 30, the others 10 each from 30; 005 (NONE)
 * and 006 share 2:00 = 60. */
static void test_channels(void **state)
{
	static const struct want_seg w[] = {
		{ "V", 0, "R1", 30, 0, 30, 0 },
		{ "A1", 0, "R1", 30, 0, 30, 0 },
		{ "V", 1, "R2", 0, 30, 10, 0 },
		{ "A2", 0, "R2", 0, 30, 10, 0 },
		{ "A1", 2, "R4", 0, 50, 10, 0 },
		{ "A4", 0, "R4", 0, 50, 10, 0 },
		{ "A3", 1, "R6", 150, 60, 10, 0 },
	};
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	(void)state;
	options(&o, NULL, 0);
	o.edl_origin = ENG_EDL_ORIGIN_ZERO;
	assert_int_equal(parse_fixture("channels.edl", &o, &tl, &d), 0);
	assert_int_equal(tl->frames, 70);
	check_tracks(tl, "V:3 A1:3 A2:3 A3:2 A4:1");
	check_segs(tl, w, N(w));
	for (i = 0; i < tl->ntracks; i++) {
		const struct eng_track *tr = &tl->tracks[i];

		assert_int_equal(tr->rate, i == 0 ? o.video_rate : o.audio_rate);
		assert_int_equal(tr->align, i == 0 ? 1 : o.audio_align);
	}
	eng_tl_free(tl);
	/* strict: the NONE event is reported */
	o.strict = 1;
	assert_int_equal(parse_fixture("channels.edl", &o, &tl, &d), -EINVAL);
	assert_msg(&d, "channels.edl:9: event 005 has channel NONE");
	eng_diag_free(&d);
}

/* CRLF, ISO-8859-1 bytes (kept in names), blank lines, BL / BLACK /
 * BARS as gaps.  25 fps: record origin 10:00:00:00 (the leading BL);
 * 002 at 25 for 50, named by SOURCE FILE (beats FROM CLIP NAME, path
 * and ".mov" off); 003 BLACK is a gap at 75..100; 004 at 100 for 25;
 * the trailing BARS adds nothing: 125 frames. */
static void test_crlf_latin1(void **state)
{
	static const struct want_seg w[] = {
		{ "V", 0, "A001C003", 0, 25, 50, 0 },
		{ "V", 1, "Caf\xe9 cr\xe8me", 0, 100, 25, 0 },
	};
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	options(&o, "25", 1);
	assert_int_equal(parse_fixture("crlf_latin1.edl", &o, &tl, &d), 0);
	assert_int_equal(tl->frames, 125);
	assert_int_equal(tl->nclips, 2);
	check_tracks(tl, "V:2");
	check_segs(tl, w, N(w));
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* 25 fps.  001: from BL (a gap: no Vx) dissolve to shot_a on AA/V:
 * shot_a (origin 10:00 = 250) at 0 for 50 on V A1 A2.  002: zero-length
 * shot_a at 12:00 (= 300 - 250 = 50), wipe of 20 to shot_b ("TO CLIP:
 * C:\media\shot_b.mxf"): Vx shot_a 50 at 50 for 20.  003: dissolve of
 * 50 frames into a 25-frame event: clamped, Vx shot_b 1525-1500 = 25
 * at 75 for 25; FROM/TO after the line name both sides. */
static void test_transitions(void **state)
{
	static const struct want_seg w[] = {
		{ "V", 0, "shot_a", 0, 0, 50, 0 },
		{ "A2", 0, "shot_a", 0, 0, 50, 0 },
		{ "V", 1, "shot_b", 0, 50, 25, 0 },
		{ "V", 2, "shot_c", 0, 75, 25, 0 },
		{ "Vx", 0, "shot_a", 50, 50, 20, 0 },
		{ "Vx", 1, "shot_b", 25, 75, 25, 0 },
	};
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	options(&o, NULL, 0);
	assert_int_equal(parse_fixture("transitions.edl", &o, &tl, &d), 0);
	assert_int_equal(tl->frames, 100);
	check_tracks(tl, "V:3 A1:1 A2:1 Vx:2");
	check_segs(tl, w, N(w));
	check_read_once(tl);
	assert_int_equal(tl->tracks[3].rate, o.video_rate);
	eng_tl_free(tl);
	o.strict = 1;
	assert_int_equal(parse_fixture("transitions.edl", &o, &tl, &d),
			 -EINVAL);
	assert_int_equal(d.n, 1);
	assert_msg(&d, "transitions.edl:11: event 003: transition of 50 "
		   "frames is longer than the event (25 frames)");
	eng_diag_free(&d);
}

/* Events out of record order, overlaps (the later line wins, the
 * earlier one is trimmed and its source moves), FCM changes. */
static void test_record_order(void **state)
{
	static const char text[] =
		"001  A  V  C  00:00:00:00 00:00:00:10 00:00:00:10 00:00:00:20\n"
		"002  B  V  C  00:00:00:00 00:00:00:10 00:00:00:00 00:00:00:10\n"
		"003  C  V  C  00:00:00:00 00:00:00:10 00:00:00:05 00:00:00:15\n";
	static const struct want_seg w[] = {
		{ "V", 0, "B", 0, 0, 5, 0 },
		{ "V", 1, "C", 0, 5, 10, 0 },
		{ "V", 2, "A", 5, 15, 5, 0 },
	};
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(parse(text, "25", 1, &tl, &d), 0);
	assert_int_equal(tl->frames, 20);
	check_segs(tl, w, N(w));
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* opt->edl_origin: MIN (earliest source of the clip in the EDL), ZERO,
 * TC (here 01:00:00:00 at 25 = 90000), set as the mount and
 * timelinefs-gen set it, by eng_edl_origin_parse. */
static void test_origin(void **state)
{
	static const char text[] =
		"001  R  V  C  01:00:02:00 01:00:03:00 00:00:00:00 00:00:01:00\n"
		"002  R  V  C  01:00:01:00 01:00:02:00 00:00:01:00 00:00:02:00\n";
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	const struct {
		const char *origin;
		int64_t src0, src1;
	} cases[] = {
		{ "min", 25, 0 },
		{ "zero", 90050, 90025 },
		{ "01:00:00:00", 50, 25 },
	};
	char why[128];
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		options(&o, "25", 1);
		assert_int_equal(eng_edl_origin_parse(cases[i].origin, &o, why,
						      sizeof(why)), 0);
		assert_int_equal(parse_opt(text, strlen(text), &o, &tl, &d), 0);
		assert_int_equal(tl->tracks[0].segs[0].src_in, cases[i].src0);
		assert_int_equal(tl->tracks[0].segs[1].src_in, cases[i].src1);
		/* the clip keeps its origin's timecode: timelinefs-gen
		 * --codec writes it into the media it makes */
		assert_int_equal(tl->clips[0].tc_set, 1);
		assert_int_equal(tl->clips[0].tc, 90025 - cases[i].src1);
		assert_int_equal(tl->clips[0].tc_drop, 0);
		eng_tl_free(tl);
	}
	/* a source before the TC origin */
	assert_int_equal(eng_edl_origin_parse("01:00:01:01", &o, why,
					      sizeof(why)), 0);
	assert_int_equal(parse_opt(text, strlen(text), &o, &tl, &d), -EINVAL);
	assert_msg(&d, "t.edl:2: event 002: source in is before the source "
		   "origin 01:00:01:01 (frame 90026)");
	assert_int_equal(d.n, 1);
	eng_diag_free(&d);
}

/*
 * Issue 17 defect 7: the origin timecode is read by the one timecode
 * parser, at the EDL's own rate and drop frame.  Before, the mount counted
 * it once, at -o fps= and without drop frame: 01:00:00;00 at 29.97 was
 * frame 108000 where the EDL's 01:00:00;00 is 107892 (every source "before
 * the origin"), and an EDL at 25 fps by its FPS comment was given the
 * origin counted at 30 frames per second.
 */
static void test_origin_rate(void **state)
{
	static const struct {
		const char *text;
		const char *fps;	/* the mount's -o fps= */
		const char *origin;
		int rc;
		int64_t src0;		/* of the first segment */
		const char *msg;
	} cases[] = {
		/* drop frame written in the origin and the EDL: 10 frames */
		{ "001  R  V  C  01:00:00;10 01:00:01;00 00:00:00:00 "
		  "00:00:00:20\n", "29.97", "01:00:00;00", 0, 10, NULL },
		/* FCM: DROP FRAME counts the ':' origin drop frame too */
		{ "FCM: DROP FRAME\n"
		  "001  R  V  C  01:00:00:10 01:00:01:00 00:00:00:00 "
		  "00:00:00:20\n", "29.97", "01:00:00:00", 0, 10, NULL },
		/* drop frame across minute 1: 00:01:00;02 is frame 1800 */
		{ "001  R  V  C  00:01:00;02 00:01:00;12 00:00:00:00 "
		  "00:00:00:10\n", "29.97", "00:00:00;00", 0, 1800, NULL },
		/* the EDL's FPS comment: the origin counted at 25 */
		{ "* FPS: 25\n"
		  "001  R  V  C  01:00:00:10 01:00:01:00 00:00:00:00 "
		  "00:00:00:15\n", "29.97", "01:00:00:00", 0, 10, NULL },
		/* a frame the EDL's rate has not */
		{ "* FPS: 25\n"
		  "001  R  V  C  01:00:00:10 01:00:01:00 00:00:00:00 "
		  "00:00:00:15\n", "29.97", "01:00:00:27", -EINVAL, 0,
		  "t.edl: edl_origin: bad timecode '01:00:00:27': frame 27 "
		  "at 25 frames per second" },
		/* drop frame at 25 */
		{ "001  R  V  C  01:00:00:10 01:00:01:00 00:00:00:00 "
		  "00:00:00:15\n", "25", "01:00:00;00", -EINVAL, 0,
		  "t.edl: edl_origin: drop-frame timecode '01:00:00;00' at "
		  "25/1 fps" },
		/* a timecode drop frame skips */
		{ "001  R  V  C  01:01:00;10 01:01:01;00 00:00:00:00 "
		  "00:00:00:15\n", "29.97", "01:01:00;00", -EINVAL, 0,
		  "t.edl: edl_origin: timecode '01:01:00;00' does not exist "
		  "in drop frame" },
	};
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char why[128];
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		options(&o, cases[i].fps, 0);
		assert_int_equal(eng_edl_origin_parse(cases[i].origin, &o, why,
						      sizeof(why)), 0);
		if (parse_opt(cases[i].text, strlen(cases[i].text), &o, &tl,
			      &d) != cases[i].rc)
			fail_msg("case %zu: rc %d, %s", i, cases[i].rc,
				 d.n ? d.msgs[0] : "no message");
		if (cases[i].rc == 0)
			assert_int_equal(tl->tracks[0].segs[0].src_in,
					 cases[i].src0);
		else
			assert_msg(&d, cases[i].msg);
		eng_tl_free(tl);
		tl = NULL;
		eng_diag_free(&d);
	}
}

/* Which comment names the clip, and how a name becomes a clip name. */
static void test_clip_names(void **state)
{
	static const struct {
		const char *comments;
		const char *clip;
		const char *file;	/* eng_clip.file, NULL none */
	} cases[] = {
		{ "", "REEL", NULL },
		{ "* FROM CLIP NAME:  My Clip.mov  \n", "My Clip",
		  "My Clip.mov" },
		{ "* SOURCE FILE: /a/b/A001C003.MOV\n"
		  "* FROM CLIP NAME: other.mov\n", "A001C003", "A001C003.MOV" },
		{ "* FROM CLIP NAME: other.mov\n"
		  "* FROM FILE: C:\\x\\y\\shot.0001.dpx\n", "shot.0001",
		  "shot.0001.dpx" },
		{ "* FROM CLIP: name.tar.gz\n", "name.tar", "name.tar.gz" },
		{ "* FROM CLIP NAME: take.0001\n", "take.0001", NULL },
		{ "* from   clip   name: lower\n", "lower", NULL },
		{ "FROM CLIP NAME: bare\n", "bare", NULL },
		{ "* FROM CLIP NAME:\n", "REEL", NULL },
		{ "* a plain remark: with a colon\n* FPS: 24\n", "REEL", NULL },
	};
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char text[512];
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		snprintf(text, sizeof(text), "001  REEL  V  C  00:00:00:00 "
			 "00:00:01:00 00:00:00:00 00:00:01:00\n%s",
			 cases[i].comments);
		if (parse(text, "25", 0, &tl, &d) != 0) {
			print_diag(&d);
			fail_msg("case %zu", i);
		}
		assert_string_equal(tl->clips[0].name, cases[i].clip);
		if (cases[i].file)
			assert_string_equal(tl->clips[0].file, cases[i].file);
		else
			assert_null(tl->clips[0].file);
		eng_tl_free(tl);
	}
	/* a reel of 128 bytes is fine, 129 is not */
	memset(text, 'R', 128);
	snprintf(text + 128, sizeof(text) - 128, " V C 00:00:00:00 "
		 "00:00:01:00 00:00:00:00 00:00:01:00\n");
	memmove(text + 4, text, strlen(text) + 1);
	memcpy(text, "001 ", 4);
	assert_int_equal(parse(text, "25", 1, &tl, &d), 0);
	assert_int_equal(strlen(tl->clips[0].name), 128);
	eng_tl_free(tl);
	memmove(text + 5, text + 4, strlen(text + 4) + 1);
	text[4] = 'R';
	assert_int_equal(parse(text, "25", 1, &tl, &d), -EINVAL);
	assert_msg(&d, "t.edl:1: reel name longer than 128 characters");
	eng_diag_free(&d);
}

/* Image sequences in name comments (docs/formats.md "Sequence clips"):
 * each form, its folder, the clip it names, and which file the event's
 * source in plays.  Event: source 01:00:00:02 (86402 at 24) for 10. */
static void test_sequences(void **state)
{
	static const struct {
		const char *comments;
		const char *clip, *base, *prefix, *suffix;
		int padding;
		int64_t file;	/* of source frame 0; -1: no sequence */
	} cases[] = {
		/* DaVinci Resolve's clip name: the clip's whole range */
		{ "* FROM CLIP NAME: A001C003.[0086400-0086500].dpx\n",
		  "A001C003", "", "A001C003.", ".dpx", 7, 86402 },
		{ "* FROM CLIP: /Volumes/DI/A001C003/A001C003.[0086400-"
		  "0086500].dpx  \n", "A001C003", "A001C003", "A001C003.",
		  ".dpx", 7, 86402 },
		{ "* SOURCE FILE: /mnt/A001C003/A001C003.%07d.dpx\n",
		  "A001C003", "A001C003", "A001C003.", ".dpx", 7, 86402 },
		{ "* SOURCE FILE: D:\\scans\\R1\\r1_%d.tif\n", "r1", "R1",
		  "r1_", ".tif", 0, 86402 },
		{ "* FROM FILE: A001C003/./A001C003.#######.dpx\n",
		  "A001C003", "", "A001C003.", ".dpx", 7, 86402 },
		/* an image's file, seven digits: a timecode's frame */
		{ "* FROM CLIP NAME: A001C003.0086400.DPX\n", "A001C003", "",
		  "A001C003.", ".DPX", 7, 86402 },
		/* Apple Color: seven digits right after the name */
		{ "* FROM CLIP NAME: fileName0632368.dpx\n", "fileName", "",
		  "fileName", ".dpx", 7, 86402 },
		{ "* FROM CLIP NAME: 0086400.exr\n", "REEL", "", "", ".exr", 7,
		  86402 },
		/* OTIO's cmx_3600 adapter: the range is the event's own
		 * images, the timecode not their numbers: source in is 1001 */
		{ "* FROM CLIP: /var/tmp/clip1.[1001-1020].exr\n", "clip1",
		  "tmp", "clip1.", ".exr", 4, 1001 },
		{ "* FROM CLIP NAME: shot_[1-100].tif\n", "shot", "", "shot_",
		  ".tif", 1, 1 },
		{ "* FROM CLIP NAME: shot_[86400-86500].tif\n", "shot", "",
		  "shot_", ".tif", 5, 86402 },
		/* not sequences: a render's frame (OTIO's avid sample) */
		{ "* FROM CLIP: S:\\path\\ZZ100_501.take_1.0001.exr\n",
		  "ZZ100_501.take_1.0001", NULL, NULL, NULL, 0, -1 },
		{ "* FROM CLIP NAME: A001C003.dpx\n", "A001C003", NULL, NULL,
		  NULL, 0, -1 },
		{ "* FROM CLIP NAME: take#2.mov\n", "take#2", NULL, NULL, NULL,
		  0, -1 },
		{ "* SOURCE FILE: x.%7d.dpx\n", "x.%7d", NULL, NULL, NULL, 0,
		  -1 },
		/* a '%' that ends the name (fuzz_edl: read past its end) */
		{ "* SOURCE FILE: take%\n", "take%", NULL, NULL, NULL, 0, -1 },
		{ "* FROM CLIP NAME: r_[1-].dpx\n", "r_[1-]", NULL, NULL, NULL,
		  0, -1 },
		/* the name comment that wins names no sequence */
		{ "* FROM CLIP NAME: A001C003.[0086400-0086500].dpx\n"
		  "* SOURCE FILE: /x/A001C003.mov\n", "A001C003", NULL, NULL,
		  NULL, 0, -1 },
	};
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char text[512];
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		const struct eng_seq_ref *r;

		snprintf(text, sizeof(text), "001  REEL  V  C  01:00:00:02 "
			 "01:00:00:12 01:00:00:00 01:00:00:10\n%s",
			 cases[i].comments);
		if (parse(text, "24", 1, &tl, &d) != 0) {
			print_diag(&d);
			fail_msg("case %zu", i);
		}
		r = tl->clips[0].seq;
		if (strcmp(tl->clips[0].name, cases[i].clip) != 0 ||
		    (cases[i].file < 0) != (r == NULL))
			fail_msg("case %zu: clip '%s', %s sequence", i,
				 tl->clips[0].name, r ? "a" : "no");
		if (r) {
			struct want_seq w = {
				cases[i].base, cases[i].prefix, cases[i].suffix,
				INT64_MIN, 1, cases[i].padding,
				ENG_SEQ_MISS_ERROR,
			};

			assert_null(tl->clips[0].file);
			check_seq(r, &w);
			assert_int_equal(tl->tracks[0].segs[0].src_in, 0);
			if (r->start + r->origin != cases[i].file)
				fail_msg("case %zu: source in plays file %lld",
					 i, (long long)(r->start + r->origin));
		}
		eng_tl_free(tl);
	}
	eng_diag_free(&d);
}

/* Old Mac CR line ends count lines too; no options means the defaults
 * (29.97); a key is read as a cut when not strict. */
static void test_misc(void **state)
{
	static const char mac[] = "TITLE: x\r001 R V C 00:00:00:00 "
		"00:00:00:29 00:00:00:00 00:00:00:29\r* FROM CLIP NAME: mac\r";
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(eng_edl_parse("t.edl", "t", mac, strlen(mac), NULL,
				       &tl, &d), 0);
	assert_string_equal(tl->clips[0].name, "mac");
	assert_int_equal(tl->fps.num, 30000);
	assert_int_equal(tl->fps.den, 1001);
	assert_int_equal(tl->frames, 29);
	eng_tl_free(tl);
	assert_int_equal(parse("TITLE: x\r\r002 R V Z 00:00:00:00 00:00:00:01 "
			       "00:00:00:00 00:00:00:01\r", NULL, 0, &tl, &d),
			 -EINVAL);
	assert_msg(&d, "t.edl:3: unknown transition 'Z'");
	eng_diag_free(&d);
	/* key: a cut when lenient, an error when strict */
	assert_int_equal(parse("001 R V K B 00:00:00:00 00:00:01:00 "
			       "00:00:00:00 00:00:01:00\n", "25", 0, &tl, &d),
			 0);
	check_tracks(tl, "V:1");
	eng_tl_free(tl);
	assert_int_equal(parse("001 R V KB 010 00:00:00:00 00:00:01:00 "
			       "00:00:00:00 00:00:01:00\n", "25", 1, &tl, &d),
			 -EINVAL);
	assert_msg(&d, "t.edl:1: key transitions are not supported");
	eng_diag_free(&d);
	/* the NONE event does not move the record origin */
	assert_int_equal(parse("001 R NONE C 00:00:00:00 00:00:01:00 "
			       "00:00:00:00 00:00:01:00\n002 S V C 00:00:00:00 "
			       "00:00:01:00 00:00:05:00 00:00:06:00\n", "25",
			       0, &tl, &d), 0);
	assert_int_equal(tl->tracks[0].segs[0].rec_in, 0);
	assert_int_equal(tl->nclips, 1);
	eng_tl_free(tl);
	assert_int_equal(d.n, 0);
	/* drop frame at a rate without it is told once, not per timecode */
	assert_int_equal(parse("FCM: DROP FRAME\n"
			       "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 "
			       "00:00:01:00\n"
			       "002 R V C 00:00:01:00 00:00:02:00 00:00:01:00 "
			       "00:00:02:00\n", "25", 0, &tl, &d), -EINVAL);
	assert_int_equal(d.n, 2);	/* and "no event" */
	assert_msg(&d, "t.edl:2: drop-frame timecode '00:00:00:00' at 25/1");
	assert_msg(&d, "t.edl: no event in the EDL");
	eng_diag_free(&d);
}

/* One case per error: the message names file and line. */
static const struct err_case {
	const char *text;
	const char *fps;
	int strict;
	const char *msg;
} errors[] = {
	{ "001 R V C 01:00:00:00 01:00:00:05 00:00:00:00 00:00:00:05\n"
	  "* FROM CLIP NAME: A001C003.[0086400-0086500].dpx\n"
	  "002 R V C 01:00:00:00 01:00:00:05 00:00:00:05 00:00:00:10\n"
	  "* FROM CLIP NAME: A001C003_%04d.exr\n", "24", 0,
	  "t.edl:3: event 002: clip 'A001C003' is the image sequence "
	  "A001C003_%04d.exr here but A001C003.%07d.dpx on line 1" },
	{ "001 R V C 01:00:00:00 01:00:00:05 00:00:00:00 00:00:00:05\n"
	  "* FROM CLIP NAME: A001C003.[0086400-0086500].dpx\n"
	  "002 R V C 01:00:01:00 01:00:01:05 00:00:00:05 00:00:00:10\n"
	  "* FROM CLIP NAME: A001C003.[0000001-0000010].dpx\n", "24", 0,
	  "t.edl:3: event 002: clip 'A001C003': its source timecode is its "
	  "file number +86423 here but +0 on line 1" },
	{ "001 R V C 01:00:00:00 01:00:00:05 00:00:00:00 00:00:00:05\n"
	  "* FROM CLIP: ../x.[1-9].dpx\n", "24", 0,
	  "t.edl:1: event 001: image sequence of clip 'x': a folder of the "
	  "pattern leaves the media folder" },
	{ "001 R V C 00:01:00;00 00:01:00;05 00:00:00:00 00:00:00:05\n",
	  "29.97", 0, "t.edl:1: timecode '00:01:00;00' does not exist in drop "
	  "frame" },
	{ "TITLE: x\nFCM: DROP FRAME\n001 R V C 00:11:00:01 00:11:00:05 "
	  "00:00:00:00 00:00:00:04\n", "29.97", 0,
	  "t.edl:3: timecode '00:11:00:01' does not exist" },
	{ "001 R V C 00:00:00;00 00:00:00;05 00:00:00:00 00:00:00:05\n", "25",
	  0, "t.edl:1: drop-frame timecode '00:00:00;00' at 25/1 fps" },
	{ "FCM: DROP FRAME\n001 R V C 00:00:00:00 00:00:00:05 00:00:00:00 "
	  "00:00:00:05\n", "24", 0, "t.edl:2: drop-frame timecode" },
	{ "001 R V C 00:00:00:00 00:00:00:30 00:00:00:00 00:00:01:00\n",
	  "29.97", 0, "t.edl:1: bad timecode '00:00:00:30': frame 30 at 30" },
	{ "\n001 R V C 00:00:00:00 00:00:00:25 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:2: bad timecode '00:00:00:25': frame 25 at 25" },
	{ "001 R V C 1:00:00:00 01:00:01:00 00:00:00:00 00:00:01:00\n", "25",
	  0, "t.edl:1: bad timecode '1:00:00:00'" },
	{ "001 R V C 00:60:00:00 01:00:01:00 00:00:00:00 00:00:01:00\n", "25",
	  0, "t.edl:1: bad timecode '00:60:00:00': minutes and seconds" },
	{ "01 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n", "25",
	  0, "t.edl:1: event number '01' must have 3 to 6 digits" },
	{ "1234567 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:1: event number '1234567'" },
	{ "001 R V C 00:00:00:00 00:00:01:00\n", "25", 0,
	  "t.edl:1: bad event line" },
	{ "001 R X C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n", "25",
	  0, "t.edl:1: unknown channel 'X'" },
	{ "001 R A100 C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:1: unknown channel 'A100'" },
	{ "001 R V/ C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:1: unknown channel 'V/'" },
	{ "001 R V C 00:00:00:00 00:00:00:00 00:00:00:00 00:00:00:00\n"
	  "002 S V D 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n", "25",
	  0, "t.edl:2: dissolve without a duration" },
	{ "001 R V C 00:00:00:00 00:00:00:00 00:00:00:00 00:00:00:00\n"
	  "001 S V W001 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:2: wipe without a duration" },
	{ "001 R V D 0x1 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:1: bad transition duration '0x1'" },
	{ "001 R V C X 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:1: unexpected 'X' after the transition" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "002 R V C 00:00:00:00 00:00:00:00 00:00:01:00 00:00:01:00\n", "25",
	  0, "t.edl:2: event 002 has no length" },
	{ "\n\n001 R V C 00:00:00:00 00:00:01:00 00:00:02:00 00:00:01:00\n",
	  "25", 0, "t.edl:3: event 001 has no length" },
	{ "001 R V C 00:00:00:00 00:00:00:00 00:00:00:00 00:00:00:00\n"
	  "002 S V D 010 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:2: dissolve of event 002 has no outgoing source" },
	{ "001 R V D 010 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:1: dissolve of event 001 has no outgoing source" },
	{ "001 R V C 00:00:00:00 00:00:00:00 00:00:00:00 00:00:00:00\n"
	  "001 S V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "001 T V W002 010 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl:1: event 001 has no length" },
	/* a hostile clip name is told escaped (the FROM CLIP NAME path is
	 * cut at its last slash) */
	{ "001 R\033[2J V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "* FROM CLIP NAME: a/\033]0;x\a\351\n", "25", 0,
	  "t.edl:1: clip name '\\x1b]0;x\\x07\\xe9' cannot name a media "
	  "file" },
	{ "* FPS: fast\n", "25", 0, "t.edl:1: bad frame rate 'fast'" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "M2 R quick 00:00:00:00\n", "25", 0, "t.edl:2: bad M2 speed 'quick'" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "M2 R 050.0\n", "25", 0, "t.edl:2: bad M2 line" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "M2 R 050.0 00:00:00:99\n", "25", 0, "t.edl:2: bad timecode" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "AUD 0\n", "25", 0, "t.edl:2: bad AUD channel '0'" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "AUD\n", "25", 0, "t.edl:2: AUD line without a channel" },
	{ "TITLE: nothing\n* just a remark\n", "25", 0,
	  "t.edl: no event in the EDL" },
	{ "001 R NONE C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl: no event in the EDL" },
	{ "001 BL V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 0, "t.edl: timeline has no event" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "* FROM CLIP NAME: ..\n", "25", 0,
	  "t.edl:1: clip name '..' cannot name a media file" },
	{ "FCM: SOMETIMES\n", "25", 0, "t.edl:1: unknown FCM" },
	/* strict only */
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "SPLIT: AUDIO DELAY= 00:00:00:08\n", "25", 1,
	  "t.edl:2: unknown line ignored" },
	{ "001 R V C 00:00:00:00 00:00:00:10 00:00:00:00 00:00:00:05\n", "25",
	  1, "t.edl:1: event 001: source duration 10 frames differs from "
	  "record duration 5 frames" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "M2 Q 050.0 00:00:00:00\n", "25", 1,
	  "t.edl:2: M2 reel 'Q' is not the reel of event 001" },
	{ "M2 R 050.0 00:00:00:00\n", "25", 1,
	  "t.edl:1: M2 line before any event" },
	{ "AUD 3\n", "25", 1, "t.edl:1: AUD line before any event" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "* FPS: 24\n", "25", 1,
	  "t.edl:2: FPS comment after the first event is ignored" },
	{ "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
	  "* TO CLIP NAME: x\n", "25", 1,
	  "t.edl:2: 'TO CLIP NAME' comment not after a transition" },
	{ "* FROM CLIP NAME: x\n", "25", 1,
	  "t.edl:1: 'FROM CLIP NAME' comment before any event" },
	{ "* FPS: 25\n* FPS: 24\n"
	  "001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n",
	  "25", 1, "t.edl:2: FPS comment given twice (first on line 1)" },
};

static void test_errors(void **state)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;
	int rc;

	(void)state;
	for (i = 0; i < N(errors); i++) {
		rc = parse(errors[i].text, errors[i].fps, errors[i].strict, &tl,
			   &d);
		if (rc != -EINVAL || !has_msg(&d, errors[i].msg)) {
			print_diag(&d);
			fail_msg("case %zu: rc %d, want -EINVAL and '%s'", i,
				 rc, errors[i].msg);
		}
		assert_null(tl);
		eng_diag_free(&d);
		/* the strict-only ones parse when lenient */
		if (errors[i].strict) {
			int has_event = strstr(errors[i].text, "001 ") != NULL;

			rc = parse(errors[i].text, errors[i].fps, 0, &tl, &d);
			if (has_event) {
				assert_int_equal(rc, 0);
				assert_int_equal(d.n, 0);
			} else {
				/* nothing but the missing event is told */
				assert_int_equal(rc, -EINVAL);
				assert_int_equal(d.n, 1);
				assert_msg(&d, "no event in the EDL");
			}
			eng_tl_free(tl);
			tl = NULL;
			eng_diag_free(&d);
		}
	}
}

/* Every problem is reported, each with its line; a NUL byte is one. */
static void test_many_errors(void **state)
{
	static const char text[] =
		"TITLE: several problems\n"				/* 1 */
		"001 R V C 00:00:00:00 00:00:01:00 00:00:00:00 00:00:01:00\n"
		"002 R Q C 00:00:00:00 00:00:01:00 00:00:01:00 00:00:02:00\n"
		"003 R V C 00:00:00:00 00:00:01:00 00:00:02:00 00:00:02:00\n"
		"004 R V C 00:00:00:00 00:00:01:00 00:00:03:00 00:00:04\0:00\n"
		"005 R V C 00:00:00:00 00:00:01:99 00:00:04:00 00:00:05:00\n";
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	options(&o, "25", 0);
	assert_int_equal(parse_opt(text, sizeof(text) - 1, &o, &tl, &d),
			 -EINVAL);
	assert_null(tl);
	assert_int_equal(d.n, 4);
	assert_msg(&d, "t.edl:3: unknown channel 'Q'");
	assert_msg(&d, "t.edl:5: NUL byte in line");
	assert_msg(&d, "t.edl:6: bad timecode '00:00:01:99'");
	assert_msg(&d, "t.edl:4: event 003 has no length");
	eng_diag_free(&d);
}

/* eng_timeline_load dispatches .edl (any case) here */
static void test_load(void **state)
{
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	options(&o, NULL, 0);
	assert_int_equal(eng_timeline_load("tests/fixtures/edl/speed.edl", &o,
					   &tl, &d), 0);
	assert_string_equal(tl->name, "speed");
	assert_int_equal(tl->frames, 23);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

int main(void)
{
	struct CMUnitTest tests[N(samples) + 20];
	size_t n = 0, i;

	for (i = 0; i < N(samples); i++) {
		struct CMUnitTest t = {
			.name = samples[i].file,
			.test_func = test_sample,
			.initial_state = (void *)&samples[i],
		};

		tests[n++] = t;
	}
#define T(f) tests[n++] = (struct CMUnitTest)cmocka_unit_test(f)
	T(test_drop_frame);
	T(test_drop_frame_5994);
	T(test_speed);
	T(test_speed_limits);
	T(test_speed_runs);
	T(test_channels);
	T(test_crlf_latin1);
	T(test_transitions);
	T(test_record_order);
	T(test_origin);
	T(test_origin_rate);
	T(test_clip_names);
	T(test_sequences);
	T(test_misc);
	T(test_errors);
	T(test_many_errors);
	T(test_load);
#undef T
	return _cmocka_run_group_tests("edl", tests, n, NULL, NULL);
}
