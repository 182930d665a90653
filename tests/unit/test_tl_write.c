/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of engine/timeline/tl_write.c: the exact text for a small edit, round
 * trips through the real .tl parser from .tl, EDL and OTIO timelines, and
 * clip names .tl cannot hold (refused, or %XX-escaped on request).
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

#include "media/mfile.h"
#include "timeline/edl.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/otio.h"
#include "timeline/tl.h"
#include "util/diag.h"
#include "util/values.h"

static void print_diag(const struct eng_diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		print_error("%s\n", d->msgs[i]);
}

/* Two sequence references that name the same file for every source
 * frame (a .tl one has origin 0: its start is the other's image origin). */
static void same_seq(const struct eng_seq_ref *a, const struct eng_seq_ref *b)
{
	if (!a || !b) {
		assert_true(!a && !b);
		return;
	}
	assert_string_equal(a->base, b->base);
	assert_string_equal(a->prefix, b->prefix);
	assert_string_equal(a->suffix, b->suffix);
	assert_int_equal(a->step, b->step);
	assert_int_equal(a->padding, b->padding);
	assert_int_equal(a->missing, b->missing);
	assert_int_equal(b->origin, 0);
	assert_int_equal(a->start + a->origin * a->step, b->start);
}

/* What a clip's dump keeps of its media, unresolved: the file its
 * timeline names and the timecode its source counts from. */
static void same_clip(const struct eng_clip *a, const struct eng_clip *b)
{
	assert_int_equal(a->tc_set, b->tc_set);
	if (a->tc_set)
		assert_int_equal(a->tc, b->tc);
	assert_string_equal(a->file ? a->file : "(none)",
			    b->file ? b->file : "(none)");
}

/* Write tl, parse the text back and check it is the same edit. */
static void round_trip(const struct eng_timeline *tl)
{
	struct eng_timeline *back = NULL;
	struct eng_diag d = { 0 };
	char *text = NULL;
	size_t len, t, i;

	assert_int_equal(eng_tl_write(tl, 0, &text, &len, &d), 0);
	assert_int_equal(strlen(text), len);
	if (eng_tl_parse("back.tl", "back", text, len, &back, &d) < 0) {
		print_diag(&d);
		fail_msg("the text does not parse:\n%s", text);
	}
	assert_int_equal(back->fps.num, tl->fps.num);
	assert_int_equal(back->fps.den, tl->fps.den);
	assert_int_equal(back->ntracks, tl->ntracks);
	assert_int_equal(back->frames, tl->frames);
	assert_true(back->bytes == tl->bytes);
	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *a = &tl->tracks[t], *b = &back->tracks[t];

		assert_string_equal(a->name, b->name);
		assert_true(a->rate == b->rate);
		assert_int_equal(a->align, b->align);
		assert_int_equal(a->nsegs, b->nsegs);
		for (i = 0; i < a->nsegs; i++) {
			assert_string_equal(tl->clips[a->segs[i].clip].name,
					    back->clips[b->segs[i].clip].name);
			assert_int_equal(a->segs[i].src_in, b->segs[i].src_in);
			assert_int_equal(a->segs[i].rec_in, b->segs[i].rec_in);
			assert_int_equal(a->segs[i].frames, b->segs[i].frames);
			same_seq(tl->clips[a->segs[i].clip].seq,
				 back->clips[b->segs[i].clip].seq);
			same_clip(&tl->clips[a->segs[i].clip],
				  &back->clips[b->segs[i].clip]);
			assert_int_equal(
				!!tl->clips[a->segs[i].clip].record,
				!!back->clips[b->segs[i].clip].record);
		}
	}
	free(text);
	eng_tl_free(back);
	eng_diag_free(&d);
}

static void test_exact_text(void **state)
{
	static const char in[] =
		"fps 25\n"
		"track V 18M\n"
		"track A1 144000 align=3\n"
		"event V,A1 c1 10 20\n"
		"event V c2 0 5 @5\n"
		"event A1 c3 7 4 @30\n";
	static const char want[] =
		"# in resolved from in.tl: 34 frames, every segment at its record frame\n"
		"fps 25/1\n"
		"track V 18000000\n"
		"track A1 144000 align=3\n"
		"event V c1 10 5 @0\n"
		"event V c2 0 5 @5\n"
		"event V c1 20 10 @10\n"
		"event A1 c1 10 20 @0\n"
		"event A1 c3 7 4 @30\n";
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char *text;
	size_t len;

	(void)state;
	assert_int_equal(eng_tl_parse("in.tl", "in", in, strlen(in), &tl, &d),
			 0);
	assert_int_equal(eng_tl_write(tl, 0, &text, &len, &d), 0);
	assert_string_equal(text, want);
	assert_int_equal(len, strlen(want));
	free(text);
	/* nothing to escape: the same text */
	assert_int_equal(eng_tl_write(tl, ENG_TL_WRITE_ESCAPE, &text, &len, &d),
			 0);
	assert_string_equal(text, want);
	free(text);
	round_trip(tl);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* in parses, and written back (after adjust, when given) it is want
 * and reads back as the same edit. */
static void expect_text(const char *in, const char *want,
			void (*adjust)(struct eng_timeline *tl))
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char *text;
	size_t len;

	if (eng_tl_parse("in.tl", "in", in, strlen(in), &tl, &d) < 0) {
		print_diag(&d);
		fail();
	}
	if (adjust)
		adjust(tl);
	assert_int_equal(eng_tl_write(tl, 0, &text, &len, &d), 0);
	if (strcmp(text, want) != 0)
		fail_msg("got:\n%s", text);
	free(text);
	round_trip(tl);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* as an EDL's would be: source frame 0 of clip 0 is image 2 */
static void origin_2(struct eng_timeline *tl)
{
	tl->clips[0].seq->origin = 2;
}

/* seq lines: written after the tracks for the clips played, first= with
 * the origin folded in, a blank and '#' as %20 and %23, '%' as %%,
 * defaults left out; and back. */
static void test_seq_text(void **state)
{
	static const char in[] =
		"fps 24\n"
		"track V 1000\n"
		"event V b 1 2\n"
		"event V a 0 3\n"
		"seq a A/a.%07d.dpx first=86400\n"
		"seq b x%20y/%23b%%.%d first=-5 step=2 missing=black\n";
	static const char want[] =
		"# in resolved from in.tl: 5 frames, every segment at its record frame\n"
		"fps 24/1\n"
		"track V 1000\n"
		"seq b x%20y/%23b%%.%d first=-1 step=2 missing=black\n"
		"seq a A/a.%07d.dpx first=86400\n"
		"event V b 1 2 @0\n"
		"event V a 0 3 @2\n";

	(void)state;
	/* source frame 0 is image 2 (file -1), so source frame 1 is file 1
	 * in both */
	expect_text(in, want, origin_2);
}

/* record lines: one for each recorded clip played, after the tracks
 * with the seq lines in clip order, a '%' as %25; and back.
 * A clip not recorded gets none. */
static void test_record_text(void **state)
{
	static const char in[] =
		"fps 25\n"
		"track V 1000\n"
		"event V cam%252 0 2\n"
		"event V s 0 1\n"
		"record cam1\n"
		"event V cam1 4 3\n"
		"event V plain 0 1\n"
		"seq s s.%d.dpx first=1\n"
		"record cam%252\n";
	static const char want[] =
		"# in resolved from in.tl: 7 frames, every segment at its record frame\n"
		"# in clip names %XX is the byte a blank, '#' or '%' was\n"
		"fps 25/1\n"
		"track V 1000\n"
		"record cam%252\n"
		"seq s s.%d.dpx first=1\n"
		"record cam1\n"
		"event V cam%252 0 2 @0\n"
		"event V s 0 1 @2\n"
		"event V cam1 4 3 @3\n"
		"event V plain 0 1 @6\n";

	(void)state;
	expect_text(in, want, NULL);
}

/* A pattern longer than any fixed buffer (a fuzzer's 5000-byte folder)
 * is written whole: the fuzz target traps when a parsed .tl cannot be
 * written back.  Failed with a 4096-byte buffer in put_seqs. */
static void test_seq_long_pattern(void **state)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char *in = malloc(6000), *text = NULL;
	size_t len;

	(void)state;
	assert_non_null(in);
	len = (size_t)snprintf(in, 6000, "fps 24\ntrack V 1000\n"
			       "event V c 0 1\nseq c ");
	memset(in + len, 'a', 5000);
	snprintf(in + len + 5000, 6000 - len - 5000, "/p.%%d.dpx first=1\n");
	if (eng_tl_parse("in.tl", "in", in, strlen(in), &tl, &d) < 0) {
		print_diag(&d);
		fail();
	}
	if (eng_tl_write(tl, 0, &text, &len, &d) < 0) {
		print_diag(&d);
		fail();
	}
	free(text);
	round_trip(tl);
	eng_tl_free(tl);
	eng_diag_free(&d);
	free(in);
}

/* Sequences from an EDL (origin folded into first=) and from OTIO write
 * and parse back as the same files for every source frame. */
static void test_seq_round_trip(void **state)
{
	static const char edl[] =
		"001  A  V  C  01:00:00:02 01:00:00:12 01:00:00:00 01:00:00:10\n"
		"* FROM CLIP NAME: A001C003.[0086400-0086500].dpx\n"
		"002  B  V  C  00:00:00:03 00:00:00:06 01:00:00:10 01:00:00:13\n"
		"* FROM CLIP: /r/clip1.[1001-1020].exr\n"
		"003  C  V  C  00:10:00:00 00:10:00:02 01:00:00:13 01:00:00:15\n"
		"* SOURCE FILE: /s/c c/c#.%d.tif\n";
	static const char otio[] =
		"{\"OTIO_SCHEMA\": \"Timeline.1\", \"tracks\": {\n"
		" \"OTIO_SCHEMA\": \"Stack.1\", \"children\": [{\n"
		"  \"OTIO_SCHEMA\": \"Track.1\", \"children\": [\n"
		"   {\"OTIO_SCHEMA\": \"Clip.1\", \"source_range\": {\n"
		"    \"start_time\": {\"value\": 5, \"rate\": 24},\n"
		"    \"duration\": {\"value\": 20, \"rate\": 24}},\n"
		"    \"media_reference\": {\"OTIO_SCHEMA\": "
		"\"ImageSequenceReference.1\", \"target_url_base\": \"s\",\n"
		"    \"name_prefix\": \"s.\", \"name_suffix\": \".exr\", "
		"\"start_frame\": -7, \"frame_step\": 3, \"rate\": 72,\n"
		"    \"frame_zero_padding\": 4, \"missing_frame_policy\": "
		"\"hold\", \"available_range\": {\n"
		"    \"start_time\": {\"value\": 3, \"rate\": 24},\n"
		"    \"duration\": {\"value\": 30, \"rate\": 24}}}}]}]}}\n";
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	eng_load_options_default(&o);
	assert_int_equal(eng_parse_fps("24", &o.fps), 0);
	if (eng_edl_parse("s.edl", "s", edl, strlen(edl), &o, &tl, &d) < 0) {
		print_diag(&d);
		fail();
	}
	assert_int_equal(tl->nclips, 3);
	assert_non_null(tl->clips[2].seq);
	round_trip(tl);
	eng_tl_free(tl);
	tl = NULL;
	if (eng_otio_parse("s.otio", "s", otio, strlen(otio), &o, &tl, &d) <
	    0) {
		print_diag(&d);
		fail();
	}
	assert_non_null(tl->clips[0].seq);
	round_trip(tl);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* An EDL dissolve (V and its Vx track) and an OTIO transition resolve to
 * segments that write and parse back as the same edit. */
static void test_round_trip_edl_otio(void **state)
{
	static const char edl[] =
		"TITLE: dissolve\n"
		"FCM: NON-DROP FRAME\n"
		"001  A        V     C        01:00:00:00 01:00:01:00 01:00:00:00 01:00:01:00\n"
		"002  A        V     C        01:00:01:00 01:00:01:00 01:00:01:00 01:00:01:00\n"
		"002  B        V     D    010 02:00:00:00 02:00:02:00 01:00:01:00 01:00:03:00\n"
		"003  C        AA    C        00:10:00:00 00:10:00:20 01:00:00:10 01:00:01:00\n";
	static const char otio[] =
		"{\"OTIO_SCHEMA\": \"Timeline.1\", \"tracks\": {\n"
		" \"OTIO_SCHEMA\": \"Stack.1\", \"children\": [{\n"
		"  \"OTIO_SCHEMA\": \"Track.1\", \"kind\": \"Video\", \"children\": [\n"
		"   {\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", \"source_range\": {\n"
		"    \"start_time\": {\"value\": 5, \"rate\": 24},\n"
		"    \"duration\": {\"value\": 20, \"rate\": 24}}},\n"
		"   {\"OTIO_SCHEMA\": \"Transition.1\",\n"
		"    \"in_offset\": {\"value\": 4, \"rate\": 24},\n"
		"    \"out_offset\": {\"value\": 4, \"rate\": 24}},\n"
		"   {\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"b\", \"source_range\": {\n"
		"    \"start_time\": {\"value\": 30, \"rate\": 24},\n"
		"    \"duration\": {\"value\": 10, \"rate\": 24}}}]}]}}\n";
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	eng_load_options_default(&o);
	if (eng_edl_parse("d.edl", "d", edl, strlen(edl), &o, &tl, &d) < 0) {
		print_diag(&d);
		fail();
	}
	assert_true(eng_tl_find_track(tl, "Vx") >= 0);
	round_trip(tl);
	eng_tl_free(tl);
	tl = NULL;
	if (eng_otio_parse("t.otio", "t", otio, strlen(otio), &o, &tl, &d) < 0) {
		print_diag(&d);
		fail();
	}
	assert_true(eng_tl_find_track(tl, "Vx") >= 0);
	round_trip(tl);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* Names with a blank or a leading '#': one message each without the flag;
 * with it every blank, '#' and '%' is %XX and the text parses. */
static void test_names(void **state)
{
	struct eng_timeline *tl = eng_tl_new("n", "n.edl"), *back = NULL;
	struct eng_diag d = { 0 };
	char *text = (char *)"x", *again = NULL;
	size_t len = 1, len2;

	(void)state;
	tl->fps = (struct eng_fps){ 25, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 1000, 1), 0);
	assert_int_equal(eng_tl_clip(tl, "My Clip", 3), 0);
	assert_int_equal(eng_tl_clip(tl, "#1", 4), 1);
	assert_int_equal(eng_tl_clip(tl, "50%#", 5), 2);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0, 2, 3), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 5, 9, 1, 3), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 1, 0, 2, 2, 4), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 2, 0, 4, 2, 5), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);

	assert_int_equal(eng_tl_write(tl, 0, &text, &len, &d), -EINVAL);
	assert_null(text);
	assert_int_equal(len, 0);
	assert_int_equal(d.n, 2);	/* "50%#" is a .tl word */
	assert_string_equal(d.msgs[0],
			    "n.edl:3: clip 'My Clip' cannot be written as .tl: its name has a blank or starts with '#'");
	assert_non_null(strstr(d.msgs[1], "n.edl:4: clip '#1'"));

	assert_int_equal(eng_tl_write(tl, ENG_TL_WRITE_ESCAPE, &text, &len, &d),
			 0);
	assert_non_null(strstr(text, "\nevent V My%20Clip 0 2 @0\n"));
	assert_non_null(strstr(text, "\nevent V %231 0 2 @2\n"));
	assert_non_null(strstr(text, "\nevent V 50%25%23 0 2 @4\n"));
	assert_non_null(strstr(text, "\nevent V My%20Clip 5 1 @9\n"));
	assert_non_null(strstr(text, "# in clip names %XX"));
	/* the parser reads %XX back: the same names, the same text again */
	assert_int_equal(eng_tl_parse("n.edl", "n", text, len, &back, &d), 0);
	assert_int_equal(back->nclips, 3);
	assert_string_equal(back->clips[0].name, "My Clip");
	assert_string_equal(back->clips[1].name, "#1");
	assert_string_equal(back->clips[2].name, "50%#");
	assert_int_equal(back->frames, 10);
	assert_int_equal(eng_tl_write(back, ENG_TL_WRITE_ESCAPE, &again, &len2,
				      &d), 0);
	assert_string_equal(again, text);
	free(again);
	free(text);
	eng_tl_free(back);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/*
 * Regression: --dump-tl of its own output was not a fixed point.  A clip
 * "shot one" dumped as shot%20one, which parsed as the name "shot%20one"
 * and dumped again as shot%2520one.  Now dump -> parse -> dump gives the
 * same text, and a '%' written without ENG_TL_WRITE_ESCAPE is %25 too, so
 * the plain text also parses back to the same names.
 */
static void test_dump_fixed_point(void **state)
{
	static const char *const names[] = {
		"shot one", "100%", "%20", "a%2Fb", "50%25", "#x%y#",
	};
	struct eng_timeline *tl = eng_tl_new("f", "f.edl"), *back = NULL;
	struct eng_diag d = { 0 };
	char *text = NULL, *again = NULL;
	size_t len, len2, i;

	(void)state;
	tl->fps = (struct eng_fps){ 25, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 1000, 1), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(eng_tl_clip(tl, names[i], 1), (int)i);
		assert_int_equal(eng_tl_add_segment(tl, 0, (uint32_t)i, 0,
						    (int64_t)i, 1, 1), 0);
	}
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	assert_int_equal(eng_tl_write(tl, ENG_TL_WRITE_ESCAPE, &text, &len, &d),
			 0);
	assert_non_null(strstr(text, "\nevent V shot%20one 0 1 @0\n"));
	assert_non_null(strstr(text, "\nevent V 100%25 0 1 @1\n"));
	assert_non_null(strstr(text, "\nevent V %2520 0 1 @2\n"));
	assert_non_null(strstr(text, "\nevent V a%252Fb 0 1 @3\n"));
	assert_int_equal(eng_tl_parse("f.edl", "f", text, len, &back, &d), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		assert_string_equal(back->clips[i].name, names[i]);
	assert_int_equal(eng_tl_write(back, ENG_TL_WRITE_ESCAPE, &again, &len2,
				      &d), 0);
	assert_string_equal(again, text);
	free(again);
	free(text);
	eng_tl_free(back);
	back = NULL;

	/* without the flag: blanks refused, every '%' still %25 */
	eng_tl_free(tl);
	tl = eng_tl_new("p", "p.edl");
	tl->fps = (struct eng_fps){ 25, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 1000, 1), 0);
	assert_int_equal(eng_tl_clip(tl, "a%41", 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0, 1, 1), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	assert_int_equal(eng_tl_write(tl, 0, &text, &len, &d), 0);
	assert_non_null(strstr(text, "\nevent V a%2541 0 1 @0\n"));
	round_trip(tl);
	free(text);
	eng_tl_free(tl);
	assert_int_equal(d.n, 0);
	eng_diag_free(&d);
}

/* Clip lines, unresolved: the file the timeline names and the timecode
 * of each clip's source frame 0, SRC_INs as source frames; and back. */
static void test_clip_text(void **state)
{
	static const char in[] =
		"fps 25\n"
		"track V 1000\n"
		"clip a file=A%20001.mov origin=01:00:00:00\n"
		"event V a 01:00:00:10 5\n"
		"event V b 01:00:00:20 5\n"
		"event V c 4 1\n";
	static const char want[] =
		"# in resolved from in.tl: 11 frames, every segment at its record frame\n"
		"fps 25/1\n"
		"track V 1000\n"
		"clip a file=A%20001.mov origin=01:00:00:00\n"
		"clip b origin=01:00:00:20\n"
		"event V a 10 5 @0\n"
		"event V b 0 5 @5\n"
		"event V c 4 1 @10\n";

	(void)state;
	expect_text(in, want, NULL);
}

/* Resolved (--dump-tl TIMELINE DIR): a clip whose media have a start
 * timecode is written in it, and origin= only where no segment plays its
 * source frame 0 (else the earliest SRC_IN is it); the file the timeline
 * names only where a track plays it; raw media without a timecode as
 * source frames, no clip line. */
static void test_media_timecodes(void **state)
{
	static const struct eng_start_tc tc = {
		.present = 1, .frame = 90000 - 10, .rate = { 25, 1 },
	};
	static const char *const in[] = {
		"fps 25\ntrack V 1000\n"
		"clip a file=A%20001.mov origin=01:00:00:00\n"
		"event V a 01:00:00:10 5\nevent V b 01:00:00:20 5\n",
		"fps 25\ntrack V 1000\n"
		"clip a file=A%20001.mov\n"
		"event V a 01:00:00:00 5\nevent V b 01:00:00:20 5\n",
	};
	static const char *const want[] = {
		"clip a file=A%20001.mov origin=01:00:00:00\n"
		"event V a 01:00:00:10 5 @0\nevent V b 0 5 @5\n",
		"clip a file=A%20001.mov\n"
		"event V a 01:00:00:00 5 @0\nevent V b 0 5 @5\n",
	};
	struct eng_timeline *tl, *back;
	struct eng_diag d = { 0 };
	char *text;
	size_t i, len;

	(void)state;
	for (i = 0; i < 2; i++) {
		tl = NULL;
		back = NULL;
		assert_int_equal(eng_tl_parse("in.tl", "in", in[i],
					      strlen(in[i]), &tl, &d), 0);
		tl->clips[0].media = calloc(1, sizeof(struct eng_media));
		tl->clips[1].media = calloc(1, sizeof(struct eng_media));
		assert_non_null(tl->clips[0].media);
		assert_non_null(tl->clips[1].media);
		tl->clips[0].media[0].file = strdup("A 001.mov");
		tl->clips[0].media[0].start_tc = &tc;
		tl->clips[1].media[0].file = strdup("b.V.raw");
		assert_int_equal(eng_tl_write(tl, 0, &text, &len, &d), 0);
		if (!strstr(text, want[i]))
			fail_msg("got:\n%s", text);
		/* back: the same source frames from the same origin */
		assert_int_equal(eng_tl_parse("b.tl", "b", text, len, &back,
					      &d), 0);
		assert_int_equal(back->clips[0].tc, tl->clips[0].tc);
		assert_int_equal(back->tracks[0].segs[0].src_in,
				 tl->tracks[0].segs[0].src_in);
		assert_false(back->clips[1].tc_set);
		assert_int_equal(back->tracks[0].segs[1].src_in, 0);
		free(text);
		eng_tl_free(back);
		eng_tl_free(tl);
	}
	eng_diag_free(&d);
}

/* A track of real variable-size frames (eng_tl_layout_media's table): the
 * written rate is their average, and the line says so in a comment that
 * parses back (issue 21's --dump-tl of a resolved timeline). */
static void test_variable_track(void **state)
{
	static const char in[] = "fps 24\ntrack V 1000\nevent V c 0 4\n";
	struct eng_timeline *tl = NULL, *back = NULL;
	struct eng_diag d = { 0 };
	char *text;
	size_t len;

	(void)state;
	assert_int_equal(eng_tl_parse("in.tl", "in", in, strlen(in), &tl, &d),
			 0);
	tl->tracks[0].upto = malloc(5 * sizeof(uint64_t));
	assert_non_null(tl->tracks[0].upto);
	memcpy(tl->tracks[0].upto, (const uint64_t[]){ 0, 10, 30, 60, 100 },
	       5 * sizeof(uint64_t));
	tl->tracks[0].rate = 600;
	assert_int_equal(eng_tl_write(tl, 0, &text, &len, &d), 0);
	assert_non_null(strstr(text, "track V 600 # frames of its media's "
				     "sizes, 100 bytes: the rate is their "
				     "average\n"));
	assert_int_equal(eng_tl_parse("b.tl", "b", text, len, &back, &d), 0);
	assert_int_equal(back->tracks[0].rate, 600);
	free(text);
	eng_tl_free(back);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_text),
		cmocka_unit_test(test_round_trip_edl_otio),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_dump_fixed_point),
		cmocka_unit_test(test_variable_track),
		cmocka_unit_test(test_clip_text),
		cmocka_unit_test(test_media_timecodes),
		cmocka_unit_test(test_seq_text),
		cmocka_unit_test(test_record_text),
		cmocka_unit_test(test_seq_round_trip),
		cmocka_unit_test(test_seq_long_pattern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
