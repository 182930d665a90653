/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the native .tl parser, eng_read_file and
 * eng_timeline_load: a full valid file, one case per problem (line and
 * reason), and a file with several problems that must all be reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"
#include "seq_check.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int parse(const char *text, struct eng_timeline **tl,
		 struct eng_diag *d)
{
	return eng_tl_parse("t.tl", "t", text, strlen(text), tl, d);
}

/* text, which must parse (else its messages are printed). */
static struct eng_timeline *parse_ok(const char *text)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	if (parse(text, &tl, &d) < 0) {
		for (i = 0; i < d.n; i++)
			print_message("%s\n", d.msgs[i]);
		fail();
	}
	eng_diag_free(&d);
	return tl;
}

struct want_seg {
	const char *clip;
	int64_t src_in, rec_in, frames;
	unsigned line;
};

static void check_track(const struct eng_timeline *tl, const char *name,
			uint64_t rate, uint32_t align,
			const struct want_seg *w, size_t n)
{
	int t = eng_tl_find_track(tl, name);
	const struct eng_track *tr;
	size_t i;

	assert_true(t >= 0);
	tr = &tl->tracks[t];
	assert_int_equal(tr->rate, rate);
	assert_int_equal(tr->align, align);
	if (tr->nsegs != n)
		fail_msg("track %s: %zu segments, want %zu", name, tr->nsegs, n);
	for (i = 0; i < n; i++) {
		const struct eng_segment *s = &tr->segs[i];

		if (strcmp(tl->clips[s->clip].name, w[i].clip) != 0 ||
		    s->src_in != w[i].src_in || s->rec_in != w[i].rec_in ||
		    s->frames != w[i].frames || s->line != w[i].line)
			fail_msg("track %s seg %zu: %s src %lld rec %lld frames %lld line %u",
				 name, i, tl->clips[s->clip].name,
				 (long long)s->src_in, (long long)s->rec_in,
				 (long long)s->frames, s->line);
	}
}

static void test_valid(void **state)
{
	static const char text[] =
		"# a comment line\n"				/* 1 */
		"fps 30000/1001\r\n"				/* 2 */
		"track V  18874368            # bytes per second\n" /* 3 */
		"track A1 144000 align=3      # 48 kHz, 24-bit mono\n"
		"\ttrack\tA2 144K align=3\n"			/* 5 */
		"\n"						/* 6 */
		"   # indented comment\r\n"			/* 7 */
		"event V,A1,A2 clip0007 0   120\n"		/* 8 */
		"event V,A1,A2 clip0012 300 90\n"		/* 9 */
		"event A1      clip0003 40  30 @200\n"		/* 10 */
		"event A2 clip0003 0 10\n"			/* 11 */
		"event A2,V take#2 5 10 # V stays in sync\n"	/* 12 */
		"event V clip0007 0 1 @300";			/* 13, no \n */
	static const struct want_seg v[] = {
		{ "clip0007", 0, 0, 120, 8 },
		{ "clip0012", 300, 120, 90, 9 },
		{ "take#2", 5, 220, 10, 12 },
		{ "clip0007", 0, 300, 1, 13 },
	};
	static const struct want_seg a1[] = {
		{ "clip0007", 0, 0, 120, 8 },
		{ "clip0012", 300, 120, 80, 9 },	/* trimmed by line 10 */
		{ "clip0003", 40, 200, 30, 10 },
	};
	static const struct want_seg a2[] = {
		{ "clip0007", 0, 0, 120, 8 },
		{ "clip0012", 300, 120, 90, 9 },
		{ "clip0003", 0, 210, 10, 11 },
		{ "take#2", 5, 220, 10, 12 },
	};
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(parse(text, &tl, &d), 0);
	for (i = 0; i < d.n; i++)
		print_message("%s\n", d.msgs[i]);
	assert_int_equal(d.n, 0);
	assert_non_null(tl);
	assert_string_equal(tl->name, "t");
	assert_string_equal(tl->path, "t.tl");
	assert_int_equal(tl->fps.num, 30000);
	assert_int_equal(tl->fps.den, 1001);
	assert_int_equal(tl->ntracks, 3);
	assert_string_equal(tl->tracks[0].name, "V");
	assert_string_equal(tl->tracks[1].name, "A1");
	assert_string_equal(tl->tracks[2].name, "A2");
	check_track(tl, "V", 18874368, 1, v, N(v));
	check_track(tl, "A1", 144000, 3, a1, N(a1));
	check_track(tl, "A2", 144000, 3, a2, N(a2));
	assert_int_equal(tl->nclips, 4);
	assert_string_equal(tl->clips[0].name, "clip0007");
	assert_int_equal(tl->clips[0].line, 8);
	assert_string_equal(tl->clips[2].name, "clip0003");
	assert_int_equal(tl->clips[2].line, 10);
	assert_int_equal(tl->frames, 301);
	assert_int_equal(tl->bytes, eng_frame_offset(tl, 301));
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* Every problem: the line it is reported on and part of the reason. */
static void test_bad(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *reason;
		size_t nmsgs;
	} cases[] = {
#define H "fps 25\ntrack V 1000\n"	/* lines 1-2 */
		{ H "evnt V c 0 1\n", 3, "unknown directive 'evnt'", 1 },
		{ H "Event V c 0 1\n", 3, "unknown directive 'Event'", 1 },
		{ H "event A3 c 0 1\n", 3, "track 'A3' not declared", 1 },
		{ H "event V,A3 c 0 1\n", 3, "track 'A3' not declared", 1 },
		{ "fps 25\nfps 30\n", 2, "fps given twice (first on line 1)", 1 },
		{ "fps\n", 1, "missing frame rate", 1 },
		{ "fps abc\ntrack V 1\nevent V c 0 1\n", 1,
		  "bad frame rate 'abc'", 1 },
		{ "fps 0\ntrack V 1\nevent V c 0 1\n", 1, "bad frame rate '0'", 1 },
		{ "fps 25 x\ntrack V 1\nevent V c 0 1\n", 1,
		  "unexpected 'x' after frame rate", 1 },
		{ "track V 1000\nfps 25\nevent V c 0 1\n", 1, "track before fps", 1 },
		{ "\nevent V c 0 1\nfps 25\ntrack V 1\n", 2, "event before fps", 2 },
		{ "track V 1000\nevent V c 0 1\n", 1, "track before fps", 2 },
		{ "", 0, "no fps line", 1 },
		{ "# nothing\n\n", 0, "no fps line", 1 },
		{ "fps 25\n", 0, "no track", 1 },
		{ H, 0, "timeline has no event", 1 },
		{ H "event V c 0 0\n", 3,
		  "bad frame count '0': must be a positive integer", 1 },
		{ H "event V c 0 -1\n", 3, "bad frame count '-1'", 1 },
		{ H "event V c 0 1.5\n", 3, "bad frame count '1.5'", 1 },
		{ H "event V c 0 4611686018427387904\n", 3,
		  "frame count '4611686018427387904' is too large", 1 },
		{ H "event V c 0 1\nevent V c 0 2305843009213693951\n"
		    "event V c 0 1\n", 5, "event ends too far", 1 },
		{ H "track V 1000\n", 3, "duplicate track 'V' (first on line 2)", 1 },
		{ H "event V ../x 0 1\n", 3, "clip name '../x' not allowed", 1 },
		{ H "event V .. 0 1\n", 3, "clip name '..' not allowed", 1 },
		{ H "event V\n", 3, "missing CLIP", 1 },
		{ H "event\n", 3, "missing TRACKS", 1 },
		{ H "event V c\n", 3, "missing SRC_IN", 1 },
		{ H "event V c 0\n", 3, "missing FRAMES", 1 },
		{ H "event V c 0 # 5\n", 3, "missing FRAMES", 1 },
		{ H "event V c x 5\n", 3, "bad SRC_IN 'x'", 1 },
		{ H "event V c -3 5\n", 3, "bad SRC_IN '-3'", 1 },
		{ H "event V c 99999999999999999999 5\n", 3,
		  "bad SRC_IN '99999999999999999999'", 1 },
		{ H "event V c 0 5 foo\n", 3, "unexpected 'foo' after FRAMES", 1 },
		{ H "event V c 0 5 @3 foo\n", 3, "unexpected 'foo' after @REC_IN",
		  1 },
		{ H "event V c 0 5 @x\n", 3, "bad REC_IN '@x'", 1 },
		{ H "event V c 0 5 @\n", 3, "bad REC_IN '@'", 1 },
		{ H "event V c 0 5 @-1\n", 3, "bad REC_IN '@-1'", 1 },
		{ H "event ,V c 0 5\n", 3, "empty track name", 1 },
		{ H "event V, c 0 5\n", 3, "empty track name", 1 },
		{ H "event V,V c 0 5\n", 3, "track 'V' listed twice", 1 },
		{ H "track A1\n", 3, "missing RATE", 1 },
		{ H "track\n", 3, "missing track NAME", 1 },
		{ H "track A-1 100\n", 3, "bad track name 'A-1'", 1 },
		{ H "track ABCDEFGHIJKLMNOP 100\n", 3,
		  "bad track name 'ABCDEFGHIJKLMNOP'", 1 },
		{ H "track A1 0\n", 3, "bad rate '0': must be positive", 1 },
		{ H "track A1 12Q\n", 3, "bad rate '12Q'", 1 },
		{ H "track A1 99999999999999999999\n", 3,
		  "rate '99999999999999999999' is too large", 1 },
		{ H "track A1 100 align=0\n", 3, "bad align '0'", 1 },
		{ H "track A1 100 align=\n", 3, "bad align ''", 1 },
		{ H "track A1 100 align=4294967296\n", 3,
		  "bad align '4294967296'", 1 },
		{ H "track A1 100 align=3 align=3\n", 3, "align given twice", 1 },
		{ H "track A1 100 foo\n", 3, "unexpected 'foo' after RATE", 1 },
		{ H "track A1 100 align 3\n", 3, "unexpected 'align' after RATE",
		  2 },
		{ H "event V c\0 0 1\n", 3, "NUL byte", 1 },
#define E "event V c 0 1\n"	/* line 3 */
		{ H E "seq\n", 4, "missing CLIP after 'seq'", 1 },
		{ H E "seq c\n", 4, "missing PATTERN for sequence clip 'c'", 1 },
		{ H E "seq c c.%07d.dpx\n", 4,
		  "missing first=N (the number of sequence clip 'c''s", 1 },
		{ H E "seq c c.dpx first=1\n", 4,
		  "sequence clip 'c' pattern 'c.dpx': no frame number", 1 },
		{ H E "seq c c.%07d.%d.dpx first=1\n", 4,
		  "more than one frame number", 1 },
		{ H E "seq c c.%7d.dpx first=1\n", 4,
		  "a '%' that is not %0Nd, %d, %%, %20 or %23", 1 },
		{ H E "seq c c.%0d.dpx first=1\n", 4,
		  "the frame number must be %0Nd", 1 },
		{ H E "seq c c.%07.dpx first=1\n", 4,
		  "the frame number must be %0Nd", 1 },
		{ H E "seq c c.%065d.dpx first=1\n", 4, "padding above 64", 1 },
		{ H E "seq c c.%07d/x.dpx first=1\n", 4,
		  "a '/' after the frame number", 1 },
		{ H E "seq c ../c/c.%07d.dpx first=1\n", 4,
		  "pattern '../c/c.%07d.dpx': a folder of the pattern leaves "
		  "the media folder", 1 },
		{ H E "seq c /abs/c.%07d.dpx first=1\n", 4,
		  "a folder of the pattern leaves the media folder", 1 },
		{ H E "seq c /c.%07d.dpx first=1\n", 4,
		  "a folder of the pattern leaves the media folder", 1 },
		{ H E "seq c a//c.%07d.dpx first=1\n", 4,
		  "a folder of the pattern leaves the media folder", 1 },
		{ H E "seq c c%1F.%07d.dpx first=1\n", 4,
		  "a '%' that is not", 1 },
		{ H E "seq c c%7d.dpx first=1\n", 4, "a '%' that is not", 1 },
		{ H E "seq c c\x01.%07d.dpx first=1\n", 4, "a control character",
		  1 },
		{ H E "seq c c.%07d.dpx first=x\n", 4, "bad first 'x'", 1 },
		{ H E "seq c c.%07d.dpx first=\n", 4, "bad first ''", 1 },
		{ H E "seq c c.%07d.dpx first=--1\n", 4, "bad first '--1'", 1 },
		{ H E "seq c c.%07d.dpx first=1 first=2\n", 4,
		  "first= given twice", 1 },
		{ H E "seq c c.%07d.dpx first=1 step=0\n", 4,
		  "bad step '0': must be a positive integer", 1 },
		{ H E "seq c c.%07d.dpx first=1 step=-2\n", 4, "bad step '-2'",
		  1 },
		{ H E "seq c c.%07d.dpx first=1 step=1 step=1\n", 4,
		  "step= given twice", 1 },
		{ H E "seq c c.%07d.dpx first=1 missing=skip\n", 4,
		  "bad missing 'skip': error, hold or black", 1 },
		{ H E "seq c c.%07d.dpx first=1 missing=hold missing=hold\n", 4,
		  "missing= given twice", 1 },
		{ H E "seq c c.%07d.dpx first=1 pad=7\n", 4,
		  "unexpected 'pad=7' after PATTERN", 1 },
		{ H E "seq c c.%07d.dpx first=1\nseq c d.%d.dpx first=1\n", 5,
		  "sequence clip 'c' given twice (first on line 4)", 1 },
		{ H E "seq ../c c.%07d.dpx first=1\n", 4,
		  "clip name '../c' not allowed", 1 },
		{ H E "seq d d.%07d.dpx first=1\n", 4,
		  "sequence clip 'd' is played by no event", 1 },
		{ H "seq c c.%07d.dpx first=1\n" "seq d d.%d.dpx first=1\n"
		    "event V c 0 1\n", 4,
		  "sequence clip 'd' is played by no event", 1 },
		/* record lines: refused as seq lines are */
		{ H E "record\n", 4, "missing CLIP after 'record'", 1 },
		{ H E "record c d\n", 4,
		  "unexpected 'd' after recorded clip 'c'", 1 },
		{ H E "record c\nrecord c\n", 5,
		  "recorded clip 'c' given twice (first on line 4)", 1 },
		{ H E "record ../c\n", 4, "clip name '../c' not allowed", 1 },
		{ H E "record c%2Fx\n", 4, "clip name 'c%2Fx' not allowed", 1 },
		{ H E "record d\n", 4,
		  "recorded clip 'd' is played by no event", 1 },
		{ H E "seq c c.%07d.dpx first=1\nrecord c\n", 5,
		  "recorded clip 'c' is a sequence clip (seq on line 4)", 1 },
		{ H E "record c\nseq c c.%07d.dpx first=1\n", 5,
		  "sequence clip 'c' is recorded through the mount (record "
		  "on line 4)", 1 },
		/* timecode SRC_INs and clip lines */
		{ H "event V c 01:00:00:25 5\n", 3, "bad SRC_IN '01:00:00:25': "
		  "minutes, seconds or frames out of range", 1 },
		{ H "event V c 01:00:00;00 5\n", 3, "bad SRC_IN '01:00:00;00': "
		  "drop frame (';' before the frames) at a rate without it",
		  1 },
		{ H "event V c 1:00:00:00 5\n", 3,
		  "bad SRC_IN '1:00:00:00': a timecode is HH:MM:SS:FF", 1 },
		{ H "event V c 1.5 5\n", 3, "bad SRC_IN '1.5'", 1 },
		{ H "clip c origin=01:00:00:00\nevent V c 00:59:59:24 5\n", 4,
		  "source timecode 00:59:59:24 of clip 'c' is before its "
		  "origin (clip line 3)", 1 },
		{ H E "clip\n", 4, "missing CLIP after 'clip'", 1 },
		{ H E "clip c\n", 4, "clip line for 'c' says nothing", 1 },
		{ H E "clip c file=a.mov\nclip c origin=00:00:00:00\n", 5,
		  "clip line for 'c' given twice (first on line 4)", 1 },
		{ H E "clip c file=a%2Fb.mov\n", 4,
		  "file name 'a%2Fb.mov' not allowed", 1 },
		{ H E "clip c file=..\n", 4, "file name '..' not allowed", 1 },
		{ H E "clip c origin=1h\n", 4,
		  "bad origin '1h': a timecode is HH:MM:SS:FF", 1 },
		{ H E "clip c tc=01:00:00:00\n", 4,
		  "unexpected 'tc=01:00:00:00' after clip 'c'", 1 },
		{ H E "clip c file=a.mov file=b.mov\n", 4,
		  "unexpected 'file=b.mov' after clip 'c'", 1 },
		{ H E "clip d file=a.mov\n", 4,
		  "clip line for 'd', which no event plays", 1 },
		{ "clip c origin=01:00:00:00\nfps 25\ntrack V 1\n"
		  "event V c 0 1\n", 1, "clip origin before fps", 1 },
#undef E
#undef H
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct eng_timeline *tl = (struct eng_timeline *)&tl;
		struct eng_diag d = { 0 };
		char prefix[32];
		size_t len = strlen(cases[i].text);
		int rc;

		/* the NUL case: the text goes on after the NUL */
		if (strstr(cases[i].reason, "NUL"))
			len += strlen(cases[i].text + len + 1) + 1;
		rc = eng_tl_parse("t.tl", "t", cases[i].text, len, &tl, &d);
		if (cases[i].line)
			snprintf(prefix, sizeof(prefix), "t.tl:%u: ",
				 cases[i].line);
		else
			snprintf(prefix, sizeof(prefix), "t.tl: ");
		if (rc != -EINVAL || tl != NULL || d.n != cases[i].nmsgs ||
		    strncmp(d.msgs[0], prefix, strlen(prefix)) != 0 ||
		    !strstr(d.msgs[0], cases[i].reason)) {
			for (j = 0; j < d.n; j++)
				print_message("  got: %s\n", d.msgs[j]);
			fail_msg("case %zu (%s%s): rc %d, %zu messages", i, prefix,
				 cases[i].reason, rc, d.n);
		}
		eng_diag_free(&d);
	}
}

/* record lines: before or after the events of the clip, %XX read as in
 * events; other clips are not recorded. */
static void test_record(void **state)
{
	static const char text[] =
		"fps 25\n"				/* 1 */
		"track V 1000\n"			/* 2 */
		"record cam1\n"				/* 3 */
		"event V cam1 0 10\n"			/* 4 */
		"event V c%20two 0 5\n"			/* 5 */
		"event V plain 0 5\n"			/* 6 */
		"record c%20two   # a comment\n";	/* 7 */
	struct eng_timeline *tl = parse_ok(text);

	(void)state;
	assert_int_equal(tl->nclips, 3);
	assert_string_equal(tl->clips[0].name, "cam1");
	assert_int_equal(tl->clips[0].record, 3);
	assert_int_equal(tl->clips[0].line, 3);
	assert_string_equal(tl->clips[1].name, "c two");
	assert_int_equal(tl->clips[1].record, 7);
	assert_string_equal(tl->clips[2].name, "plain");
	assert_int_equal(tl->clips[2].record, 0);
	assert_null(tl->clips[0].seq);
	eng_tl_free(tl);
}

/* Timecode SRC_INs count from the clip's origin: its clip line's
 * origin=, else the earliest of them; frame SRC_INs of such a clip count
 * from it too; a clip line names the clip's file (%XX read as in a clip
 * word) and may come after the events. */
static void test_clip_lines(void **state)
{
	static const char text[] =
		"fps 25\n"					/* 1 */
		"track V 1000\n"				/* 2 */
		"track A1 144000 align=3\n"			/* 3 */
		"clip a file=A%20001.mov origin=01:00:00:00\n"	/* 4 */
		"event V,A1 a 01:00:00:10 5\n"			/* 5 */
		"event V a 3 2\n"				/* 6 */
		"event V b 01:00:01:00 5\n"			/* 7 */
		"event V b 01:00:00:20 5 @20\n"			/* 8 */
		"event V plain 7 1\n"				/* 9 */
		"clip plain file=p.mxf\n";			/* 10 */
	static const struct want_seg v[] = {
		{ "a", 10, 0, 5, 5 }, { "a", 3, 5, 2, 6 },
		{ "b", 5, 7, 5, 7 }, { "b", 0, 20, 5, 8 },
		{ "plain", 7, 25, 1, 9 },
	};
	static const struct want_seg a1[] = { { "a", 10, 0, 5, 5 } };
	struct eng_timeline *tl = parse_ok(text), *df;

	(void)state;
	check_track(tl, "V", 1000, 1, v, N(v));
	check_track(tl, "A1", 144000, 3, a1, N(a1));
	assert_string_equal(tl->clips[0].file, "A 001.mov");
	assert_true(tl->clips[0].tc_set && tl->clips[0].tc == 90000);
	assert_null(tl->clips[1].file);
	assert_true(tl->clips[1].tc_set && tl->clips[1].tc == 90020);
	assert_string_equal(tl->clips[2].file, "p.mxf");
	assert_false(tl->clips[2].tc_set);
	eng_tl_free(tl);
	/* drop frame, as written */
	df = parse_ok("fps 29.97\ntrack V 1000\n"
		      "clip d origin=01:00:00;00\nevent V d 01:00:00;10 5\n");
	assert_true(df->clips[0].tc_set && df->clips[0].tc_drop);
	assert_int_equal(df->clips[0].tc, 107892);
	assert_int_equal(df->tracks[0].segs[0].src_in, 10);
	eng_tl_free(df);
}

/* seq lines: each field, defaults, escapes, a seq before or after the
 * events that play its clip, a negative first image. */
static void test_seq(void **state)
{
	static const char text[] =
		"fps 24\n"						/* 1 */
		"track V 1000\n"					/* 2 */
		"seq A001C003 A001C003/A001C003.%07d.dpx first=86400\n" /* 3 */
		"event V A001C003 0 10\n"				/* 4 */
		"event V s%20two 2 5\n"					/* 5 */
		"event V neg 0 3\n"					/* 6 */
		"seq s%20two a/b%20c/s%23%%%%_%d first=-3 step=2 "
		"missing=HOLD\n"					/* 7 */
		"seq neg neg.%04d.exr first=-2 missing=black step=1\n"; /* 8 */
	static const struct {
		const char *clip;
		struct want_seq seq;
		unsigned line;
		const char *pattern;
	} want[] = {
		{ "A001C003", { "A001C003", "A001C003.", ".dpx", 86400, 1, 7,
		  ENG_SEQ_MISS_ERROR }, 3, "A001C003/A001C003.%07d.dpx" },
		{ "s two", { "a/b c", "s#%%_", "", -3, 2, 0,
		  ENG_SEQ_MISS_HOLD }, 7, "a/b c/s#%%%%_%d" },
		{ "neg", { "", "neg.", ".exr", -2, 1, 4, ENG_SEQ_MISS_BLACK },
		  8, "neg.%04d.exr" },
	};
	struct eng_timeline *tl = parse_ok(text);
	char pat[256];
	size_t i;
	int c;

	(void)state;
	assert_int_equal(tl->nclips, 3);
	for (i = 0; i < N(want); i++) {
		const struct eng_seq_ref *r;

		for (c = 0; c < (int)tl->nclips; c++)
			if (strcmp(tl->clips[c].name, want[i].clip) == 0)
				break;
		assert_true(c < (int)tl->nclips);
		r = tl->clips[c].seq;
		check_seq(r, &want[i].seq);
		assert_int_equal(r->origin, 0);
		assert_int_equal(r->rate.num, 0);
		assert_int_equal(r->line, want[i].line);
		assert_true(eng_seq_pattern(r, pat, sizeof(pat)) > 0);
		assert_string_equal(pat, want[i].pattern);
	}
	/* the clip's line is its first use: the seq line for A001C003 */
	assert_int_equal(tl->clips[0].line, 3);
	eng_tl_free(tl);
}

/* Problems do not stop the parse: every one is reported, in line order. */
static void test_all_reported(void **state)
{
	static const char text[] =
		"fps 25\n"			/* 1 */
		"fps 30\n"			/* 2: twice */
		"track V 1000\n"		/* 3 */
		"track V 2000\n"		/* 4: duplicate */
		"evnt V c 0 1\n"		/* 5: unknown */
		"event A9 c 0 1\n"		/* 6: not declared */
		"event V c 0 0\n"		/* 7: frame count */
		"event V c 0 5\n"		/* 8: fine */
		"track A1 x\n"			/* 9: rate */
		"event V,A1 c 0 5 @2 x\n";	/* 10: A1 and x */
	static const char *const want[] = {
		"t.tl:2: fps given twice (first on line 1)",
		"t.tl:4: duplicate track 'V' (first on line 3)",
		"t.tl:5: unknown directive 'evnt'",
		"t.tl:6: track 'A9' not declared",
		"t.tl:7: bad frame count '0': must be a positive integer",
		"t.tl:9: bad rate 'x'",
		"t.tl:10: track 'A1' not declared",
		"t.tl:10: unexpected 'x' after @REC_IN",
	};
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(parse(text, &tl, &d), -EINVAL);
	assert_null(tl);
	for (i = 0; i < d.n || i < N(want); i++)
		if (i >= d.n || i >= N(want) ||
		    strncmp(d.msgs[i], want[i], strlen(want[i])) != 0)
			fail_msg("message %zu: '%s', want '%s'", i,
				 i < d.n ? d.msgs[i] : "(none)",
				 i < N(want) ? want[i] : "(none)");
	eng_diag_free(&d);
}

/* The text need not be NUL-terminated: only len bytes are read. */
static void test_len_bounded(void **state)
{
	static const char text[] = "fps 25\ntrack V 100\nevent V c 0 5\nGARBAGE";
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char *copy = malloc(sizeof(text) - 1);

	(void)state;
	memcpy(copy, text, sizeof(text) - 1);
	assert_int_equal(eng_tl_parse("t.tl", "t", copy, sizeof(text) - 8, &tl,
				      &d), 0);
	assert_int_equal(tl->frames, 5);
	eng_tl_free(tl);
	assert_int_equal(eng_tl_parse("t.tl", "t", copy, sizeof(text) - 1, &tl,
				      &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0],
			    "t.tl:4: unknown directive 'GARBAGE' (expected fps, track, event, clip, seq or record)");
	free(copy);
	eng_diag_free(&d);
}

/* No message holds a byte that a terminal acts on. */
static void assert_printable(const struct eng_diag *d)
{
	size_t i, k;

	for (i = 0; i < d->n; i++)
		for (k = 0; d->msgs[i][k]; k++)
			if ((unsigned char)d->msgs[i][k] < 0x20 ||
			    d->msgs[i][k] == 0x7f)
				fail_msg("raw control byte in '%s'", d->msgs[i]);
}

/* Hostile clip names: names with an escape sequence or DEL are refused
 * and told escaped; a legal name of invalid UTF-8 and a C1 control (0xc2
 * 0x9b, CSI) is kept byte for byte in the timeline but escaped in a
 * message that quotes it; the file path is input too. */
static void test_hostile_names(void **state)
{
	static const char legal[] = "caf\351\302\233x";
	static const char text[] =
		"fps 25\ntrack V 1000\n"
		"event V esc\033[2Jx 0 1\n"			/* 3 */
		"event V del\177x\302\233 0 1\n"		/* 4 */
		"event V caf\351\302\233x 0 1 \033]0;t\a\n";	/* 5 */
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char ok[64];

	(void)state;
	assert_int_equal(eng_tl_parse("t\n.tl", "t", text, strlen(text), &tl,
				      &d), -EINVAL);
	assert_null(tl);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.msgs[0], "t\\n.tl:3: clip name 'esc\\x1b[2Jx' "
			    "not allowed (no '/', control characters, '.' or "
			    "'..')");
	assert_string_equal(d.msgs[1], "t\\n.tl:4: clip name 'del\\x7fx\\xc2\\x9b' "
			    "not allowed (no '/', control characters, '.' or "
			    "'..')");
	assert_string_equal(d.msgs[2], "t\\n.tl:5: unexpected "
			    "'\\x1b]0;t\\x07' after FRAMES (REC_IN is written "
			    "@N)");
	assert_printable(&d);
	eng_diag_free(&d);

	snprintf(ok, sizeof(ok), "fps 25\ntrack V 1000\nevent V %s 0 1\n",
		 legal);
	assert_int_equal(parse(ok, &tl, &d), 0);
	assert_int_equal(tl->nclips, 1);
	assert_memory_equal(tl->clips[0].name, legal, sizeof(legal));
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/*
 * Regression: %XX in a clip name is the byte XX, the escape --dump-tl
 * writes (eng_tl_write, ENG_TL_WRITE_ESCAPE) for a blank, '#' or '%'.
 * The parser took "shot%20one" literally, so a dump named files
 * shot%20one.V.* that do not exist, and re-dumped it as shot%2520one.
 * The decoded name is the one checked: %2F is a '/', %00 a NUL.
 */
static void test_escaped_names(void **state)
{
	static const struct {
		const char *word;
		const char *name;	/* NULL: refused */
	} cases[] = {
		{ "shot%20one", "shot one" },
		{ "%231", "#1" },
		{ "50%25%23", "50%#" },
		{ "a%2cb%2C", "a,b," },		/* either case */
		{ "caf%C3%A9", "caf\303\251" },
		{ "100%", "100%" },		/* no two hex digits: itself */
		{ "%4", "%4" },
		{ "%zz%2", "%zz%2" },
		{ "%%41", "%A" },
		{ "a%2Fb", NULL },		/* a '/' */
		{ "%2E%2e", NULL },		/* ".." */
		{ "x%00y", NULL },		/* a NUL */
		{ "x%1by", NULL },		/* a control character */
	};
	char text[128];
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		struct eng_timeline *tl = NULL;
		struct eng_diag d = { 0 };
		char want[128];

		snprintf(text, sizeof(text),
			 "fps 25\ntrack V 1000\nevent V %s 0 1\n",
			 cases[i].word);
		if (cases[i].name) {
			if (parse(text, &tl, &d) != 0)
				fail_msg("'%s': %s", cases[i].word,
					 d.n ? d.msgs[0] : "?");
			assert_int_equal(tl->nclips, 1);
			assert_string_equal(tl->clips[0].name, cases[i].name);
		} else {
			assert_int_equal(parse(text, &tl, &d), -EINVAL);
			assert_int_equal(d.n, 1);
			/* quoted as written */
			snprintf(want, sizeof(want),
				 "t.tl:3: clip name '%s' not allowed",
				 cases[i].word);
			if (!strstr(d.msgs[0], want))
				fail_msg("'%s': %s", cases[i].word, d.msgs[0]);
		}
		eng_tl_free(tl);
		eng_diag_free(&d);
	}
}

struct tmp {
	char dir[64];
	char path[128];
};

static const char *tmp_file(struct tmp *t, const char *name, const char *text)
{
	FILE *f;

	snprintf(t->path, sizeof(t->path), "%s/%s", t->dir, name);
	f = fopen(t->path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return t->path;
}

static int tmp_setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	strcpy(t->dir, "/tmp/test_tl.XXXXXX");
	if (!mkdtemp(t->dir)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int tmp_teardown(void **state)
{
	struct tmp *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		return -1;
	free(t);
	return 0;
}

static void test_read_file(void **state)
{
	struct tmp *t = *state;
	char *text = NULL;
	size_t len = 0;
	int fd;

	tmp_file(t, "a.tl", "hello\nworld");
	assert_int_equal(eng_read_file(t->path, &text, &len), 0);
	assert_int_equal(len, 11);
	assert_string_equal(text, "hello\nworld");
	free(text);

	tmp_file(t, "empty.tl", "");
	assert_int_equal(eng_read_file(t->path, &text, &len), 0);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);

	/* over 64 MiB: refused without reading it (a sparse file) */
	snprintf(t->path, sizeof(t->path), "%s/huge.tl", t->dir);
	fd = open(t->path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (64 << 20) + 1), 0);
	close(fd);
	assert_int_equal(eng_read_file(t->path, &text, &len), -EFBIG);

	assert_int_equal(eng_read_file(t->dir, &text, &len), -EISDIR);
	snprintf(t->path, sizeof(t->path), "%s/none.tl", t->dir);
	assert_int_equal(eng_read_file(t->path, &text, &len), -ENOENT);
}

static void test_load(void **state)
{
	struct tmp *t = *state;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char want[256];
	const char *p;

	p = tmp_file(t, "timeline07.tl", "fps 25\ntrack V 100\nevent V c 0 5\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), 0);
	assert_string_equal(tl->name, "timeline07");
	assert_string_equal(tl->path, p);
	assert_int_equal(tl->frames, 5);
	eng_tl_free(tl);

	p = tmp_file(t, "my.cut.TL", "fps 25\ntrack V 100\nevent V c 0 5\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), 0);
	assert_string_equal(tl->name, "my.cut");
	eng_tl_free(tl);
	assert_int_equal(d.n, 0);

	/* messages name the file as given */
	p = tmp_file(t, "bad.tl", "fps 25\ntrack V 100\nevent X c 0 5\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), -EINVAL);
	assert_null(tl);
	snprintf(want, sizeof(want), "%s:3: track 'X' not declared", p);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0], want);
	eng_diag_free(&d);

	p = tmp_file(t, "notes.txt", "fps 25\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), -ENOTSUP);
	snprintf(want, sizeof(want),
		 "%s: unsupported timeline format (expected .tl, .edl or .otio)",
		 p);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0], want);
	eng_diag_free(&d);

	p = tmp_file(t, "noext", "fps 25\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), -ENOTSUP);
	assert_int_equal(d.n, 1);
	eng_diag_free(&d);
	p = tmp_file(t, ".tl", "fps 25\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), -ENOTSUP);
	eng_diag_free(&d);

	snprintf(t->path, sizeof(t->path), "%s/missing.tl", t->dir);
	assert_int_equal(eng_timeline_load(t->path, NULL, &tl, &d), -ENOENT);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "cannot read timeline"));
	eng_diag_free(&d);

	/* .edl and .otio go to their parsers, whatever those make of it */
	p = tmp_file(t, "x.edl", "garbage\n");
	assert_int_not_equal(eng_timeline_load(p, NULL, &tl, &d), -ENOTSUP);
	eng_tl_free(tl);
	tl = NULL;
	p = tmp_file(t, "x.otio", "garbage\n");
	assert_int_not_equal(eng_timeline_load(p, NULL, &tl, &d), -ENOTSUP);
	eng_tl_free(tl);
	for (size_t i = 0; i < d.n; i++)
		assert_null(strstr(d.msgs[i], "unsupported timeline format"));
	eng_diag_free(&d);
}

/* The timeline files of a folder, as the mount and --for list them:
 * listed names only, in name order; a missing folder is its errno. */
static void test_names(void **state)
{
	struct tmp *t = *state;
	char **names;
	size_t n;

	tmp_file(t, "b.edl", "");
	tmp_file(t, "a.tl", "");
	tmp_file(t, "c.otio", "");
	tmp_file(t, ".hidden.tl", "");
	tmp_file(t, "notes.txt", "");
	assert_int_equal(eng_timeline_names(t->dir, &names, &n, NULL), 0);
	assert_int_equal(n, 3);
	assert_string_equal(names[0], "a.tl");
	assert_string_equal(names[1], "b.edl");
	assert_string_equal(names[2], "c.otio");
	eng_names_free(names, n);

	snprintf(t->path, sizeof(t->path), "%s/none", t->dir);
	assert_int_equal(eng_timeline_names(t->path, &names, &n, NULL), -ENOENT);
	assert_null(names);
	assert_int_equal(n, 0);
}

/*
 * Regression (issue 17, defect 2): "REEL1.EDL", as Avid exports it, was
 * not listed (extensions compared in lower case only) while --for and
 * --dump-tl loaded it, so --for said "mount them" and the mount found "no
 * timeline".  Every extension is listed in any case, as it is loaded.
 */
static void test_names_any_case(void **state)
{
	static const char *const files[] = {
		"REEL1.EDL", "a.TL", "b.Otio", "c.tl", "d.eDl", "e.OTIO",
		".HIDDEN.TL", "notes.TXT", "f.tl.bak", "REEL1.EDL.fps",
	};
	static const char *const want[] = {
		"REEL1.EDL", "a.TL", "b.Otio", "c.tl", "d.eDl", "e.OTIO",
	};
	struct tmp *t = *state;
	char **names;
	size_t n, i;

	for (i = 0; i < N(files); i++)
		tmp_file(t, files[i], "");
	assert_int_equal(eng_timeline_names(t->dir, &names, &n, NULL), 0);
	assert_int_equal(n, N(want));
	for (i = 0; i < N(want); i++) {
		assert_string_equal(names[i], want[i]);
		assert_true(eng_timeline_listed(want[i]));
	}
	eng_names_free(names, n);
	/* one table of formats: what is listed is what is loaded, and the
	 * resolver's and the mount's messages ask it too */
	assert_int_equal(eng_timeline_format("t/REEL1.EDL"), ENG_TL_EDL);
	assert_int_equal(eng_timeline_format("a.TL"), ENG_TL_TL);
	assert_int_equal(eng_timeline_format("/x.y/b.Otio"), ENG_TL_OTIO);
	assert_int_equal(eng_timeline_format("f.tl.bak"), ENG_TL_NONE);
	assert_int_equal(eng_timeline_format("dir.tl/f"), ENG_TL_NONE);
	assert_int_equal(eng_timeline_format("t/.tl"), ENG_TL_NONE);
	assert_int_equal(eng_timeline_format("notes"), ENG_TL_NONE);
}

/*
 * Regression (issue 17, defect 3): a FIFO named x.tl in the timelines
 * folder hung the mount at start: eng_read_file opened it blocking, and a
 * FIFO's open waits for a writer.  A listed name that is not a regular
 * file (FIFO, folder, device, link to one) is left out with a note naming
 * it; eng_read_file and eng_timeline_load refuse one without blocking.
 * alarm() turns the old hang into a failure.
 */
static void test_not_regular(void **state)
{
	struct tmp *t = *state;
	struct eng_timeline *tl = NULL;
	struct eng_diag notes = { 0 }, d = { 0 };
	char fifo[160], want[256], *text = NULL;
	char **names;
	size_t n, i;
	int found;

	alarm(10);
	tmp_file(t, "ok.tl", "fps 25\ntrack V 100\nevent V c 0 5\n");
	snprintf(fifo, sizeof(fifo), "%s/x.tl", t->dir);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	snprintf(t->path, sizeof(t->path), "%s/dir.edl", t->dir);
	assert_int_equal(mkdir(t->path, 0755), 0);
	snprintf(t->path, sizeof(t->path), "%s/null.otio", t->dir);
	assert_int_equal(symlink("/dev/null", t->path), 0);

	assert_int_equal(eng_read_file(fifo, &text, &n), -EINVAL);
	assert_int_equal(eng_read_file("/dev/null", &text, &n), -EINVAL);
	assert_null(text);
	assert_int_equal(eng_timeline_load(fifo, NULL, &tl, &d), -EINVAL);
	assert_null(tl);
	assert_int_equal(d.n, 1);
	snprintf(want, sizeof(want),
		 "%s: cannot read timeline: a FIFO, not a regular file", fifo);
	assert_string_equal(d.msgs[0], want);
	eng_diag_free(&d);
	assert_int_equal(eng_timeline_load(t->path, NULL, &tl, &d), -EINVAL);
	assert_non_null(strstr(d.msgs[0], "a character device"));
	eng_diag_free(&d);

	assert_int_equal(eng_timeline_names(t->dir, &names, &n, &notes), 0);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "ok.tl");
	eng_names_free(names, n);
	assert_int_equal(notes.n, 3);
	snprintf(want, sizeof(want),
		 "%s: skipped: a FIFO, not a regular file", fifo);
	for (found = 0, i = 0; i < notes.n; i++)
		found += strcmp(notes.msgs[i], want) == 0 ||
			 strstr(notes.msgs[i], "/dir.edl: skipped: a directory") ||
			 strstr(notes.msgs[i],
				"/null.otio: skipped: a character device");
	assert_int_equal(found, 3);
	eng_diag_free(&notes);
	alarm(0);
}

/*
 * A UTF-8 byte-order mark before the first line is not text of it, in
 * every format.  Regression: an EDL starting "\xEF\xBB\xBF001 ..." lost
 * its first event without a message (the line was no event line), and
 * the second event moved to record frame 0; a .tl read the mark as part
 * of its first directive and an .otio was "invalid JSON".
 */
static void test_bom(void **state)
{
	struct tmp *t = *state;
	struct eng_diag d = { 0 };
	struct eng_timeline *tl = NULL;
	const char *p;

	p = tmp_file(t, "bom.edl",
		     "\xEF\xBB\xBF"
		     "001  R1 V C 01:00:00:00 01:00:01:00 01:00:00:00 01:00:01:00\n"
		     "002  R2 V C 01:00:00:00 01:00:01:00 01:00:01:00 01:00:02:00\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(tl->ntracks, 1);
	assert_int_equal(tl->tracks[0].nsegs, 2);
	assert_string_equal(tl->clips[tl->tracks[0].segs[0].clip].name, "R1");
	assert_int_equal(tl->tracks[0].segs[0].rec_in, 0);
	assert_string_equal(tl->clips[tl->tracks[0].segs[1].clip].name, "R2");
	assert_int_equal(tl->tracks[0].segs[1].rec_in, 30);
	eng_tl_free(tl);
	tl = NULL;

	p = tmp_file(t, "bom.tl",
		     "\xEF\xBB\xBF# a comment\nfps 25\ntrack V 100\nevent V c 0 5\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(tl->frames, 5);
	eng_tl_free(tl);
	tl = NULL;

	p = tmp_file(t, "bom.otio",
		     "\xEF\xBB\xBF{\"OTIO_SCHEMA\": \"Timeline.1\", \"name\": \"b\","
		     " \"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\", \"children\": [],"
		     " \"source_range\": null}}\n");
	eng_timeline_load(p, NULL, &tl, &d);
	for (size_t i = 0; i < d.n; i++)
		assert_null(strstr(d.msgs[i], "invalid JSON"));
	eng_tl_free(tl);
	eng_diag_free(&d);

	/* a mark anywhere else is still text */
	p = tmp_file(t, "mid.tl",
		     "fps 25\n\xEF\xBB\xBFtrack V 100\nevent V c 0 5\n");
	assert_int_equal(eng_timeline_load(p, NULL, &tl, &d), -EINVAL);
	assert_int_equal(d.n, 2);
	assert_non_null(strstr(d.msgs[0], ":2: "));
	eng_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_all_reported),
		cmocka_unit_test(test_len_bounded),
		cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_escaped_names),
		cmocka_unit_test(test_seq),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_clip_lines),
		cmocka_unit_test_setup_teardown(test_read_file, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_names, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_names_any_case, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_not_regular, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_bom, tmp_setup,
						tmp_teardown),
		cmocka_unit_test_setup_teardown(test_load, tmp_setup,
						tmp_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
