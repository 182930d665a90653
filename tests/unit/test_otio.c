/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the OpenTimelineIO parser: every public sample in
 * ../shared/samples (TLFS_SHARED), the fixtures in tests/fixtures/otio, and
 * one inline case per error (line, JSON path and reason).  Expected frame
 * positions are worked out by hand in the comments.
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

#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/otio.h"
#include "util/diag.h"
#include "parser_check.h"
#include "seq_check.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------ */
/* Helpers                                                              */

static int parse_len(const char *text, size_t len, int strict,
		     struct eng_timeline **tl, struct eng_diag *d)
{
	struct eng_load_options o;

	eng_load_options_default(&o);
	o.strict = strict;
	return eng_otio_parse("t.otio", "t", text, len, &o, tl, d);
}

static int parse_str(const char *text, int strict, struct eng_timeline **tl,
		     struct eng_diag *d)
{
	return parse_len(text, strlen(text), strict, tl, d);
}

static int parse_fixture(const char *file, int strict,
			 struct eng_timeline **tl, struct eng_diag *d)
{
	char path[256], *text;
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "tests/fixtures/otio/%s", file);
	rc = eng_read_file(path, &text, &len);
	if (rc < 0)
		fail_msg("cannot read %s (run from the repository root)", path);
	rc = parse_len(text, len, strict, tl, d);
	free(text);
	if (rc < 0)
		print_diag(d);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Public samples                                                       */

struct sample_case {
	const char *file;	/* in $TLFS_SHARED/samples */
	uint32_t fps_num, fps_den;
	int64_t frames;
	const char *tracks;
	size_t nclips;
	struct want_seg segs[8];
};

static const struct sample_case samples[] = {
	/* 24 fps from the first clip (no global_start_time).  Clip-001
	 * titles src 3 (avail 0) for 3 at 0; Clip-002 wind-up src 2 for 6
	 * at 3; Clip-003 punchline src 0 for 4 at 9; Clip-004 credits has
	 * no source_range: its available_range 100..106, src 100-100 = 0,
	 * 6 frames at 13; end 19.  Clip objects open on lines 11, 51, 91,
	 * 131. */
	{ .file = "OpenTimelineIO__sample_data__simple_cut.otio",
	  .fps_num = 24, .fps_den = 1, .frames = 19, .tracks = "V:4",
	  .nclips = 4,
	  .segs = { { "V", 0, "titles", 3, 0, 3, 11 },
	    { "V", 1, "wind-up", 2, 3, 6, 51 },
	    { "V", 2, "punchline", 0, 9, 4, 91 },
	    { "V", 3, "credits", 0, 13, 6, 131 } } },
	/* 24 from global_start_time.  titles 3 for 3 at 0; wind-up 2 for 6
	 * at 3 (3..9); transition at the cut 9, in 2, out 3; punchline
	 * source 3 - available 1 = 2 for 4 at 9, extended back by 2: src 0
	 * for 6 at 7, which leaves wind-up 3..7 (4 frames) on V; Vx carries
	 * wind-up over 9-2 = 7 .. 9+3 = 12: src 2 + (7-3) = 6 for 5;
	 * credits 0 for 6 at 13; end 19.  The transition is on line 108. */
	{ .file = "OpenTimelineIO__sample_data__transition.otio",
	  .fps_num = 24, .fps_den = 1, .frames = 19, .tracks = "V:4 Vx:1",
	  .nclips = 4,
	  .segs = { { "V", 0, "titles", 3, 0, 3, 28 },
	    { "V", 1, "wind-up", 2, 3, 4, 68 },
	    { "V", 2, "punchline", 0, 7, 6, 124 },
	    { "V", 3, "credits", 0, 13, 6, 164 },
	    { "Vx", 0, "wind-up", 6, 7, 5, 108 } } },
	/* Track-001: titles 3 for 3 at 0, wind-up 2 for 6 at 3, gap 4
	 * (9..13), credits 100-100 = 0 for 6 at 13: 19.  Track-002: gap 7,
	 * punchline 100-100 = 0 for 9 at 7.  Track-003: its source_range
	 * starts at -7 (16 long), so its clip at internal 0 shows at 7:
	 * punchline 0 for 9 at 7, like Track-002. */
	{ .file = "OpenTimelineIO__sample_data__multiple_track.otio",
	  .fps_num = 24, .fps_den = 1, .frames = 19,
	  .tracks = "V:3 V2:1 V3:1", .nclips = 4,
	  .segs = { { "V", 0, "titles", 3, 0, 3, 28 },
	    { "V", 1, "wind-up", 2, 3, 6, 68 },
	    { "V", 2, "credits", 0, 13, 6, 129 },
	    { "V2", 0, "punchline", 0, 7, 9, 202 },
	    { "V3", 0, "punchline", 0, 7, 9, 266 } } },
	/* Metadata full of huge integers, Inf, -Infinity, NaN (ignored).
	 * global_start_time null: 24.0 from the clip.  source 1 - available
	 * 1 = 0 for 24 frames; target_url "black.mov". */
	{ .file = "OpenTimelineIO__sample_data__big_int.otio",
	  .fps_num = 24, .fps_den = 1, .frames = 24, .tracks = "V:1",
	  .nclips = 1,
	  .segs = { { "V", 0, "black", 0, 0, 24, 24 } } },
};

static void test_sample(void **state)
{
	const struct sample_case *c = *state;
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char *path, *text;
	size_t len;
	int rc;

	path = sample_read(c->file, &text, &len);
	eng_load_options_default(&o);
	o.strict = 1;		/* nothing in the samples is skipped */
	rc = eng_otio_parse(path, "sample", text, len, &o, &tl, &d);
	if (rc != 0)
		print_diag(&d);
	assert_int_equal(rc, 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(tl->fps.num, c->fps_num);
	assert_int_equal(tl->fps.den, c->fps_den);
	assert_int_equal(tl->frames, c->frames);
	assert_int_equal(tl->nclips, c->nclips);
	check_tracks(tl, c->tracks);
	check_segs(tl, c->segs, N(c->segs));
	check_read_once(tl);
	eng_tl_free(tl);
	free(text);
	free(path);
}

/* ------------------------------------------------------------------ */
/* Fixtures                                                             */

struct fixture_case {
	const char *file;
	int strict;
	uint32_t fps_num, fps_den;
	int64_t frames;
	const char *tracks;
	struct want_seg segs[8];
};

static const struct fixture_case fixtures[] = {
	/* ImageSequenceReferences (test_sequences has their fields): 24 fps
	 * from global_start_time.  A001C003 source 86402 - available 86400
	 * = image 2 for 10 at 0; "every other" 4@48 = 2 for 6 at 10; the
	 * third's prefix is A001C003 too, but other images: A001C003~2, 3
	 * at 16; the fourth is the first's images from another mount: the
	 * same clip, image 40 for 2 at 19; on V2 after a gap, the
	 * ExternalReference A001C003.mov is neither sequence: A001C003~3, 2
	 * at 21 (a track of its own: a movie's stand-in, raw, does not play
	 * on a track of sequences). */
	{ .file = "sequences.otio", .fps_num = 24, .fps_den = 1, .frames = 23,
	  .tracks = "V:4 V2:1",
	  .segs = { { "V", 0, "A001C003", 2, 0, 10, 0 },
	    { "V", 1, "comp", 2, 10, 6, 0 },
	    { "V", 2, "A001C003~2", 0, 16, 3, 0 },
	    { "V", 3, "A001C003", 40, 19, 2, 0 },
	    { "V2", 0, "A001C003~3", 0, 21, 2, 0 } } },
	/* Clip.2: key "high" -> "file:///media/My%20Clip.mov" = "My Clip",
	 * source 10 for 20 at 0.  The second clip has no key: DEFAULT_MEDIA
	 * "file://server/media/other%2Dtake.v2.mov?x=1#f": host, query and
	 * fragment off, %2D = '-', last extension off = "other-take.v2";
	 * source 86410 - available 86400 = 10 for 12 at 20; end 32. */
	{ .file = "clip2.otio", .fps_num = 24, .fps_den = 1, .frames = 32,
	  .tracks = "V:2",
	  .segs = { { "V", 0, "My Clip", 10, 0, 20, 22 },
	    { "V", 1, "other-take.v2", 10, 20, 12, 81 } } },
	/* Timeline at 48 (global_start_time).  a @24: source 5 -> 10, 10 ->
	 * 20 frames at 0.  b @30 (MissingReference: its name): start 3*48/30
	 * = 4.8 -> 5, duration 7*48/30 = 11.2 -> 11 at 20.  Gap 1 @96 = 0.5
	 * -> 1 (half away from zero): 31..32.  c @48000: 48000 -> 48, 24000
	 * -> 24 frames at 32, name from a plain absolute path.  "half": 2.5
	 * @24 (doubles) = 5 exactly, src 5 - 0.0 = 5, 5 frames at 56.
	 * Audio: d 96000 @48000 = 96 frames at 0: the longest track. */
	{ .file = "rates.otio", .fps_num = 48, .fps_den = 1, .frames = 96,
	  .tracks = "V:4 A1:1",
	  .segs = { { "V", 0, "a", 10, 0, 20, 0 },
	    { "V", 1, "b", 5, 20, 11, 0 },
	    { "V", 2, "c", 48, 32, 24, 0 },
	    { "V", 3, "half", 5, 56, 5, 0 },
	    { "A1", 0, "d", 0, 0, 96, 0 } } },
	/* Track 0: a disabled (5 frames of nothing), b 0 for 5 at 5.
	 * Track 1 disabled: dropped, so track 2 is V2: gap 2, c src 1 for
	 * 3 at 2.  Disabled audio dropped, the next is A1: e 0 for 4.  The
	 * disabled clips are not even registered: 3 clips. */
	{ .file = "disabled.otio", .fps_num = 24, .fps_den = 1, .frames = 10,
	  .tracks = "V:1 V2:1 A1:1",
	  .segs = { { "V", 0, "b", 0, 5, 5, 0 },
	    { "V2", 0, "c", 1, 2, 3, 0 },
	    { "A1", 0, "e", 0, 0, 4, 0 } } },
	/* a src 10 for 10 at 0; cut 10, in 3 out 2: b (src 20 for 10 at
	 * 10) extended back 3 to src 17 at 7, a ends at 7 on V, Vx: a over
	 * 7..12 = src 17 for 5.  Cut 20, in 5 out 1: c (src 5 for 4 at 20)
	 * extended back 5 to src 0 for 9 at 15; b ends at 15 on V, Vx: b
	 * over 15..21 = src 20 + 5 = 25 for 6.  V: a 0..7, b 7..15 (src 17,
	 * 8), c 15..24.  Audio: d 0..4, in 0 out 2: e stays at 4, A1x d src
	 * 4 for 2 at 4.  Nothing is skipped: strict. */
	{ .file = "transition.otio", .strict = 1, .fps_num = 24,
	  .fps_den = 1,
	  .frames = 24, .tracks = "V:3 Vx:2 A1:2 A1x:1",
	  .segs = { { "V", 0, "a", 10, 0, 7, 0 },
	    { "V", 1, "b", 17, 7, 8, 0 },
	    { "V", 2, "c", 0, 15, 9, 0 },
	    { "Vx", 0, "a", 17, 7, 5, 0 },
	    { "Vx", 1, "b", 25, 15, 6, 0 },
	    { "A1", 1, "e", 0, 4, 4, 0 },
	    { "A1x", 0, "d", 4, 4, 2, 0 } } },
	/* Fades, each side black once (the mount reads them too, in
	 * test_edl_otio.sh).  Gap 0..5; cut 5, in 3 out 2: a (src 10 for 20
	 * at 5) extended back 3 to src 7 at 2.  Cut 25, in 4 out 4 into a
	 * gap: a ends at 21 on V, Vx a src 7 + 19 = 26 for 8 at 21..29.  Gap
	 * 25..35, b src 0 at 35; at the end in 5 out 0: b ends at 40 on V,
	 * Vx b src 5 for 5 at 40.  A1: d 0..8, at the end in 2 out 2: d
	 * 0..6, A1x d src 6 for 4 at 6. */
	{ .file = "fades.otio", .strict = 1, .fps_num = 24, .fps_den = 1,
	  .frames = 45, .tracks = "V:2 Vx:2 A1:1 A1x:1",
	  .segs = { { "V", 0, "a", 7, 2, 19, 0 },
	    { "V", 1, "b", 0, 35, 5, 0 },
	    { "Vx", 0, "a", 26, 21, 8, 0 },
	    { "Vx", 1, "b", 5, 40, 5, 0 },
	    { "A1", 0, "d", 0, 0, 6, 0 },
	    { "A1x", 0, "d", 6, 6, 4, 0 } } },
	/* a 0 for 4 at 0.  Stack at 4 (6 long): lower track b 0 for 6 at
	 * 4..10, upper track gap 2 then c src 5 for 2 at 6..8 on top: b
	 * 4..6, c 6..8, b src 4 at 8..10.  Stack at 10 trimmed to 1..4 of
	 * its content: d src 1 for 3 at 10.  e 0 for 2 at 13; end 15. */
	{ .file = "nested.otio", .fps_num = 24, .fps_den = 1, .frames = 15,
	  .tracks = "V:6",
	  .segs = { { "V", 0, "a", 0, 0, 4, 0 },
	    { "V", 1, "b", 0, 4, 2, 0 },
	    { "V", 2, "c", 5, 6, 2, 0 },
	    { "V", 3, "b", 4, 8, 2, 0 },
	    { "V", 4, "d", 1, 10, 3, 0 },
	    { "V", 5, "e", 0, 13, 2, 0 } } },
	/* NaN/Inf/-Inf/Infinity and huge integers in metadata, "{" inside a
	 * string (lines stay right: clips on 14, 24, 33, 51).  URLs:
	 * "file:///media/../../etc/passwd.mov" -> "passwd" (basename only);
	 * "%2E%2E%2F%2E%2E%2Fsecret.mov" decodes to "../../secret.mov" ->
	 * "secret"; the plain path "..\..\Media\take%201.mxf" is not
	 * decoded -> "take%201".  bars (GeneratorReference): a 3-frame gap
	 * at 6; lost (null reference): its name, src 7 for 2 at 9. */
	{ .file = "special.otio", .strict = 1, .fps_num = 24, .fps_den = 1,
	  .frames = 11, .tracks = "V:4",
	  .segs = { { "V", 0, "passwd", 0, 0, 2, 14 },
	    { "V", 1, "secret", 0, 2, 2, 24 },
	    { "V", 2, "take%201", 0, 4, 2, 33 },
	    { "V", 3, "lost", 7, 9, 2, 51 } } },
};

static void test_fixture(void **state)
{
	const struct fixture_case *c = *state;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	assert_int_equal(parse_fixture(c->file, c->strict, &tl, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(tl->fps.num, c->fps_num);
	assert_int_equal(tl->fps.den, c->fps_den);
	assert_int_equal(tl->frames, c->frames);
	check_tracks(tl, c->tracks);
	check_segs(tl, c->segs, N(c->segs));
	check_read_once(tl);
	for (i = 0; i < tl->nclips; i++)
		assert_null(strchr(tl->clips[i].name, '/'));
	eng_tl_free(tl);
}

static void test_fixture_details(void **state)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	int t;

	(void)state;
	/* the target_url's file name is kept for media.c (its basename,
	 * extension kept), and the clip's timecode is its available_range
	 * start, or 0 without one */
	assert_int_equal(parse_fixture("special.otio", 1, &tl, &d), 0);
	assert_string_equal(tl->clips[0].file, "passwd.mov");
	assert_string_equal(tl->clips[1].file, "secret.mov");
	assert_string_equal(tl->clips[2].file, "take%201.mxf");
	assert_null(tl->clips[3].file);
	assert_int_equal(tl->clips[0].tc_set, 1);
	eng_tl_free(tl);
	/* rates: the audio track has the audio rate and alignment */
	assert_int_equal(parse_fixture("rates.otio", 0, &tl, &d), 0);
	t = eng_tl_find_track(tl, "A1");
	assert_true(t >= 0);
	assert_int_equal(tl->tracks[t].rate, 144000);
	assert_int_equal(tl->tracks[t].align, 3);
	t = eng_tl_find_track(tl, "V");
	assert_int_equal(tl->tracks[t].rate, 18000000);
	assert_int_equal(tl->tracks[t].align, 1);
	eng_tl_free(tl);
	/* disabled clips read nothing and are not clips of the timeline */
	assert_int_equal(parse_fixture("disabled.otio", 0, &tl, &d), 0);
	assert_int_equal(tl->nclips, 3);
	eng_tl_free(tl);
	/* Vx has the rate of V and comes right after it */
	assert_int_equal(parse_fixture("transition.otio", 0, &tl, &d), 0);
	assert_string_equal(tl->tracks[1].name, "Vx");
	assert_int_equal(tl->tracks[1].rate, tl->tracks[0].rate);
	assert_string_equal(tl->tracks[3].name, "A1x");
	assert_int_equal(tl->tracks[3].align, 3);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* ------------------------------------------------------------------ */
/* Inline cases                                                         */

#define RT(v, r) "{\"OTIO_SCHEMA\": \"RationalTime.1\", \"rate\": " #r \
	", \"value\": " #v "}"
#define TR(s, d) "{\"OTIO_SCHEMA\": \"TimeRange.1\", \"start_time\": " \
	RT(s, 24) ", \"duration\": " RT(d, 24) "}"
#define CLIP(name, s, d) "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"" name \
	"\", \"source_range\": " TR(s, d) "}"
#define EXT(name, url, s, d) "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"" \
	name "\", \"source_range\": " TR(s, d) ", \"media_reference\": " \
	"{\"OTIO_SCHEMA\": \"ExternalReference.1\", \"target_url\": \"" url \
	"\"}}"
#define TRANS(i, o) "{\"OTIO_SCHEMA\": \"Transition.1\", \"in_offset\": " \
	RT(i, 24) ", \"out_offset\": " RT(o, 24) "}"
#define GAP(d) "{\"OTIO_SCHEMA\": \"Gap.1\", \"source_range\": " TR(0, d) "}"
/* The items of one video track start on line 4, one per line. */
#define HEAD "{\"OTIO_SCHEMA\": \"Timeline.1\",\n" \
	"\"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\", \"children\": [\n" \
	"{\"OTIO_SCHEMA\": \"Track.1\", \"kind\": \"Video\", \"children\": [\n"
#define TAIL "\n]}]}}\n"
#define P0 "tracks.children[0].children[0]"
#define P1 "tracks.children[0].children[1]"

struct err_case {
	const char *name;
	const char *text;
	int strict;
	const char *msg;	/* expected in one message, with line */
	size_t nmsgs;		/* 0: not checked */
};

static const struct err_case errors[] = {
	{ "malformed", "{\n\"OTIO_SCHEMA\": \"Timeline.1\",\n\"tracks\": [1, 2\n"
	  "}\n", 0, "t.otio:4: invalid JSON: ", 1 },
	{ "truncated", "{\n\"OTIO_SCHEMA\": \"Timeline.1\",\n", 0,
	  "t.otio:3: invalid JSON: unexpected end of file", 1 },
	{ "empty", "", 0, "t.otio:1: invalid JSON: unexpected end", 1 },
	{ "trailing", HEAD CLIP("a", 0, 5) TAIL "\n{}", 0,
	  "t.otio:7: invalid JSON: data after the top-level value", 1 },
	{ "not a timeline", "{\n\"OTIO_SCHEMA\": \"Clip.1\"}", 0,
	  "t.otio:1: (top): not an OpenTimelineIO timeline", 1 },
	{ "root array", "[1]", 0, "not an OpenTimelineIO timeline", 1 },
	{ "tracks not a stack", "{\"OTIO_SCHEMA\": \"Timeline.1\",\n"
	  "\"tracks\": {\"OTIO_SCHEMA\": \"Track.1\"}}", 0,
	  "t.otio:2: tracks: timeline needs \"tracks\": a Stack.1", 1 },
	{ "clip in the stack", "{\"OTIO_SCHEMA\": \"Timeline.1\",\n"
	  "\"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\", \"children\": [\n"
	  CLIP("a", 0, 5) "]}}", 0,
	  "t.otio:3: tracks.children[0]: expected Track.1 in the timeline's "
	  "stack, found Clip.1", 1 },
	{ "bad kind", "{\"OTIO_SCHEMA\": \"Timeline.1\",\n"
	  "\"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\", \"children\": [\n"
	  "{\"OTIO_SCHEMA\": \"Track.1\", \"kind\": \"Data\"}]}}", 0,
	  "t.otio:3: tracks.children[0]: unsupported track kind \"Data\"", 1 },
	{ "unknown schema", HEAD CLIP("a", 0, 5) ",\n{\"OTIO_SCHEMA\": "
	  "\"Foo.1\"}" TAIL, 0,
	  "t.otio:5: " P1 ": unsupported schema Foo.1", 1 },
	{ "no schema", HEAD "{\"name\": \"x\"}" TAIL, 0,
	  "t.otio:4: " P0 ": object has no OTIO_SCHEMA", 1 },
	{ "item not an object", HEAD "42" TAIL, 0,
	  "t.otio:3: " P0 ": expected an OTIO object", 1 },
	{ "clip version", HEAD "{\"OTIO_SCHEMA\": \"Clip.7\"}" TAIL, 0,
	  "t.otio:4: " P0 ": unsupported schema version Clip.7", 1 },
	{ "no range", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\"}"
	  TAIL, 0, "t.otio:4: " P0 ": clip has neither source_range", 1 },
	{ "range not an object", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", "
	  "\"name\": \"a\", \"source_range\": 5}" TAIL, 0,
	  "t.otio:4: " P0 ".source_range: expected a TimeRange.1 object", 1 },
	{ "range schema", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\","
	  " \"source_range\": " RT(0, 24) "}" TAIL, 0,
	  "t.otio:4: " P0 ".source_range: expected TimeRange.1, found "
	  "RationalTime.1", 1 },
	{ "missing duration", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": "
	  "\"a\", \"source_range\": {\"start_time\": " RT(0, 24) "}}" TAIL, 0,
	  "t.otio:4: " P0 ".source_range.duration: missing", 1 },
	{ "missing rate", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
	  "\"source_range\": {\"start_time\": " RT(0, 24) ", \"duration\": "
	  "{\"value\": 5}}}" TAIL, 0,
	  "t.otio:4: " P0 ".source_range.duration: \"rate\" is missing", 1 },
	{ "value string", HEAD CLIP("a", 0, "5") TAIL, 0,
	  "t.otio:4: " P0 ".source_range.duration: \"value\" is not a "
	  "number", 1 },
	{ "value NaN", HEAD CLIP("a", 0, NaN) TAIL, 0,
	  "t.otio:4: " P0 ".source_range.duration: value NaN at rate 24 is "
	  "out of range", 1 },
	{ "value Inf", HEAD CLIP("a", Inf, 5) TAIL, 0,
	  "t.otio:4: " P0 ".source_range.start_time: value Infinity", 1 },
	{ "value 1e30", HEAD CLIP("a", 0, 1e30) TAIL, 0,
	  "out of range", 1 },
	{ "value big int", HEAD CLIP("a", 0,
		170141183460469231731687303715884105728) TAIL, 0,
	  "t.otio:4: " P0 ".source_range.duration: value "
	  "18446744073709551615 is too large", 1 },
	{ "value negative big int", HEAD CLIP("a", -92233720368547758090, 5)
	  TAIL, 0, "is too large", 1 },
	/* 2^62 fits an int64 but not the model: an error, not a wrap */
	{ "value 2^62", HEAD CLIP("a", 0, 4611686018427387904) TAIL, 0,
	  "out of range", 1 },
	{ "rate zero", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
	  "\"source_range\": {\"start_time\": " RT(0, 24) ", \"duration\": "
	  RT(5, 0) "}}" TAIL, 0, "rate 0 is not a usable frame rate", 1 },
	{ "rate Infinity", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": "
	  "\"a\", \"source_range\": {\"start_time\": " RT(0, Infinity)
	  ", \"duration\": " RT(5, 24) "}}" TAIL, 0,
	  "rate inf is not a usable frame rate", 1 },
	{ "negative duration", HEAD CLIP("a", 0, -5) TAIL, 0,
	  "t.otio:4: " P0 ".source_range: negative duration", 1 },
	{ "before available", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": "
	  "\"a\", \"source_range\": " TR(5, 5) ", \"media_reference\": "
	  "{\"OTIO_SCHEMA\": \"ExternalReference.1\", \"target_url\": \"a\", "
	  "\"available_range\": " TR(15, 100) "}}" TAIL, 0,
	  "t.otio:4: " P0 ": source_range starts 10 frames before the media's "
	  "first frame", 1 },
	{ "negative source", HEAD CLIP("a", -3, 5) TAIL, 0,
	  "source_range starts 3 frames before", 1 },
	{ "Clip.2 key", HEAD "{\"OTIO_SCHEMA\": \"Clip.2\", \"name\": \"a\", "
	  "\"source_range\": " TR(0, 5) ", \"active_media_reference_key\": "
	  "\"nope\", \"media_references\": {\"DEFAULT_MEDIA\": "
	  "{\"OTIO_SCHEMA\": \"MissingReference.1\"}}}" TAIL, 0,
	  "t.otio:4: " P0 ": media_references has no key \"nope\"", 1 },
	{ "Clip.2 key type", HEAD "{\"OTIO_SCHEMA\": \"Clip.2\", \"name\": "
	  "\"a\", \"source_range\": " TR(0, 5) ", "
	  "\"active_media_reference_key\": 3}" TAIL, 0,
	  "active_media_reference_key is not a string", 1 },
	{ "no url", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
	  "\"source_range\": " TR(0, 5) ", \"media_reference\": "
	  "{\"OTIO_SCHEMA\": \"ExternalReference.1\"}}" TAIL, 0,
	  "t.otio:4: " P0 ": ExternalReference has no target_url string", 1 },
	{ "url without name", HEAD EXT("a", "file:///media/", 0, 5) TAIL, 0,
	  "target_url has no file name: \"file:///media/\"", 1 },
	{ "url dot dot", HEAD EXT("a", "file:///media/..", 0, 5) TAIL, 0,
	  "t.otio:4: " P0 ": \".\" cannot be a clip name", 1 },
	{ "url %00", HEAD EXT("a", "file:///media/a%00b.mov", 0, 5) TAIL, 0,
	  "target_url holds %00", 1 },
	{ "name with slash", HEAD CLIP("shots/a", 0, 5) TAIL, 0,
	  "\"shots/a\" cannot be a clip name", 1 },
	/* a hostile name is told escaped, JSON escapes decoded first */
	{ "hostile name", HEAD CLIP("x/\\u001b[2J\\u009b\\r\351", 0, 5) TAIL, 0,
	  "\"x/\\x1b[2J\\xc2\\x9b\\r\\xe9\" cannot be a clip name", 1 },
	{ "enabled type", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
	  "\"enabled\": \"yes\", \"source_range\": " TR(0, 5) "}" TAIL, 0,
	  "t.otio:4: " P0 ": \"enabled\" must be true or false", 1 },
	{ "track enabled type", "{\"OTIO_SCHEMA\": \"Timeline.1\",\n"
	  "\"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\", \"children\": [\n"
	  "{\"OTIO_SCHEMA\": \"Track.1\", \"enabled\": 1, \"children\": ["
	  CLIP("a", 0, 5) "]}]}}", 0,
	  "t.otio:3: tracks.children[0]: \"enabled\" must be true", 1 },
	{ "transition enabled type", HEAD CLIP("a", 0, 5) ",\n"
	  "{\"OTIO_SCHEMA\": \"Transition.1\", \"enabled\": 0, "
	  "\"in_offset\": " RT(1, 24) ", \"out_offset\": " RT(1, 24) "}"
	  TAIL, 0, "t.otio:5: " P1 ": \"enabled\" must be true", 1 },
	/* the rate search must not report what the clip reports */
	{ "Clip.2 no range, bad key", HEAD "{\"OTIO_SCHEMA\": \"Clip.2\", "
	  "\"name\": \"a\", \"active_media_reference_key\": \"x\", "
	  "\"media_references\": {}}" TAIL, 0,
	  "t.otio:4: " P0 ": media_references has no key \"x\"", 1 },
	{ "gap without range", HEAD "{\"OTIO_SCHEMA\": \"Gap.1\"}" TAIL, 0,
	  "t.otio:4: " P0 ": gap has no source_range", 1 },
	{ "transition offset", HEAD CLIP("a", 0, 5) ",\n{\"OTIO_SCHEMA\": "
	  "\"Transition.1\", \"in_offset\": " RT(-1, 24) ", \"out_offset\": "
	  RT(1, 24) "}" TAIL, 0,
	  "t.otio:5: " P1 ": negative transition offset", 1 },
	{ "transition missing offset", HEAD CLIP("a", 0, 5) ",\n"
	  "{\"OTIO_SCHEMA\": \"Transition.1\", \"in_offset\": " RT(1, 24) "}"
	  TAIL, 0, "t.otio:5: " P1 ".out_offset: missing", 1 },
	/* Regression: b's source starts at 3, the transition wants 15
	 * frames of it before the cut: its frame -12.  It was shortened
	 * silently (and a read twice on V and Vx); now an error whatever
	 * the mode, as a source frame before the media's first is. */
	{ "transition before media start", HEAD CLIP("a", 10, 20) ",\n"
	  TRANS(15, 0) ",\n" CLIP("b", 3, 10) TAIL, 0,
	  "t.otio:6: tracks.children[0].children[2]: transition needs 12 "
	  "frames of clip \"b\" before the media's first frame (in_offset "
	  "15, the clip starts at media frame 3)", 1 },
	{ "transition before available range", HEAD CLIP("a", 10, 20) ",\n"
	  TRANS(15, 0) ",\n{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"b\", "
	  "\"source_range\": " TR(103, 10) ", \"media_reference\": "
	  "{\"OTIO_SCHEMA\": \"ExternalReference.1\", \"target_url\": "
	  "\"b.mov\", \"available_range\": " TR(100, 100) "}}" TAIL, 1,
	  "t.otio:6: tracks.children[0].children[2]: transition needs 12 "
	  "frames of clip \"b\"", 1 },
	{ "transition in a stack", HEAD "{\"OTIO_SCHEMA\": \"Stack.1\", "
	  "\"children\": [\n{\"OTIO_SCHEMA\": \"Transition.1\"}]}" TAIL, 0,
	  "t.otio:5: " P0 ".children[0]: Transition.1 directly in a Stack",
	  1 },
	{ "children not an array", HEAD "{\"OTIO_SCHEMA\": \"Stack.1\", "
	  "\"children\": {}}" TAIL, 0,
	  "t.otio:4: " P0 ": \"children\" is not an array", 1 },
	{ "time effect strict", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": "
	  "\"a\", \"source_range\": " TR(0, 5) ", \"effects\": [\n"
	  "{\"OTIO_SCHEMA\": \"LinearTimeWarp.1\", \"time_scalar\": 2}]}"
	  TAIL, 1, "t.otio:5: " P0 ": effects[0]: time effect "
	  "LinearTimeWarp.1 is not supported", 1 },
#define SEQ(f) HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", " \
	"\"source_range\": " TR(0, 5) ", \"media_reference\": {\n" \
	"\"OTIO_SCHEMA\": \"ImageSequenceReference.1\", " f "}}" TAIL
#define SEQ_AR(f) SEQ("\"available_range\": " TR(0, 10) ", " f)
	{ "seq step 0", SEQ("\"frame_step\": 0"), 0,
	  "t.otio:4: " P0 ": ImageSequenceReference frame_step 0: must be 1 "
	  "or more", 1 },
	{ "seq padding", SEQ("\"frame_zero_padding\": 65"), 0,
	  "ImageSequenceReference frame_zero_padding 65: must be 0 to 64", 1 },
	{ "seq padding -1", SEQ("\"frame_zero_padding\": -1"), 0,
	  "frame_zero_padding -1: must be 0 to 64", 1 },
	{ "seq policy", SEQ("\"missing_frame_policy\": \"zzz\""), 0,
	  "unknown missing_frame_policy \"zzz\" (error, hold or black)", 1 },
	{ "seq policy case", SEQ("\"missing_frame_policy\": \"Hold\""), 0,
	  "unknown missing_frame_policy \"Hold\"", 1 },
	{ "seq start type", SEQ("\"start_frame\": \"1001\""), 0,
	  "ImageSequenceReference start_frame is not an integer", 1 },
	{ "seq prefix type", SEQ("\"name_prefix\": 7"), 0,
	  "ImageSequenceReference name_prefix is not a string", 1 },
	{ "seq prefix slash", SEQ("\"name_prefix\": \"x/a.\""), 0,
	  "t.otio:4: " P0 ": ImageSequenceReference: a '/' in the name prefix "
	  "or suffix", 1 },
	{ "seq base up", SEQ("\"target_url_base\": \"/a/..//\", "
			     "\"name_prefix\": \"a.\""), 0,
	  "ImageSequenceReference: a folder of the pattern leaves the media "
	  "folder", 1 },
	{ "seq base %00", SEQ("\"target_url_base\": \"file:///a%00/\""), 0,
	  "target_url_base holds %00: \"file:///a%00/\"", 1 },
	{ "seq rate", SEQ_AR("\"rate\": 25, \"name_prefix\": \"a.\""), 0,
	  "t.otio:4: " P0 ": ImageSequenceReference rate 25 over frame_step 1 "
	  "is 25 images a second, not the timeline's 24/1 frames: each frame "
	  "plays one image", 1 },
	{ "seq rate step", SEQ_AR("\"rate\": 24, \"frame_step\": 2"), 0,
	  "rate 24 over frame_step 2 is 12 images a second", 1 },
	{ "seq rate 0", SEQ_AR("\"rate\": 0"), 0,
	  "ImageSequenceReference rate 0 is not a usable frame rate", 1 },
	{ "seq no name", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"source_range\": "
	  TR(0, 5) ", \"media_reference\": {\n\"OTIO_SCHEMA\": "
	  "\"ImageSequenceReference.1\", \"name_prefix\": \"._\"}}" TAIL, 0,
	  "ImageSequenceReference has no name_prefix, folder or clip name", 1 },
#undef SEQ_AR
#undef SEQ
	/* a duplicate key drops an object from the tree: no line rather
	 * than a wrong one, the path still tells where */
	{ "duplicate key", HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
	  "\"source_range\": " TR(0, 5) ", \"source_range\": 7}" TAIL, 0,
	  "t.otio: " P0 ".source_range: expected a TimeRange.1 object", 1 },
	{ "every error", HEAD CLIP("a", 0, -5) ",\n" CLIP("b", 0, NaN) ",\n"
	  "{\"OTIO_SCHEMA\": \"Bar.1\"}" TAIL, 0,
	  "t.otio:6: tracks.children[0].children[2]: unsupported schema", 3 },
	{ "no enabled track", "{\"OTIO_SCHEMA\": \"Timeline.1\",\n"
	  "\"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\", \"children\": [\n"
	  "{\"OTIO_SCHEMA\": \"Track.1\", \"enabled\": false}]}}", 0,
	  "t.otio: no track", 1 },
	{ "only gaps", HEAD "{\"OTIO_SCHEMA\": \"Gap.1\", \"source_range\": "
	  TR(0, 5) "}" TAIL, 0, "timeline has no event", 1 },
};

static void test_error(void **state)
{
	const struct err_case *c = *state;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	assert_int_equal(parse_str(c->text, c->strict, &tl, &d), -EINVAL);
	assert_null(tl);
	assert_msg(&d, c->msg);
	if (c->nmsgs && d.n != c->nmsgs) {
		print_diag(&d);
		fail_msg("%zu messages, want %zu", d.n, c->nmsgs);
	}
	for (i = 0; i < d.n; i++)
		assert_true(strncmp(d.msgs[i], "t.otio", 6) == 0);
	eng_diag_free(&d);
}

/* sequences.otio's references (the fixture case has its segments). */
static void test_sequences(void **state)
{
	static const struct {
		const char *clip;
		struct want_seq seq;
		uint32_t rate_num;
		const char *dir;	/* target_url_base's full path */
	} want[] = {
		{ "A001C003", { "A001C003", "A001C003.", ".dpx", 86400, 1, 7,
		  ENG_SEQ_MISS_ERROR }, 24, "/Volumes/DI/A001C003" },
		{ "comp", { "shot%201", "comp_", ".exr", -3, 2, 4,
		  ENG_SEQ_MISS_HOLD }, 48, NULL },
		/* no available_range: the rate (OTIO's default 1) unused */
		{ "A001C003~2", { "A001C003", "A001C003_", ".tif", 1, 1, 4,
		  ENG_SEQ_MISS_BLACK }, 0, "/elsewhere/A001C003" },
	};
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	(void)state;
	assert_int_equal(parse_fixture("sequences.otio", 1, &tl, &d), 0);
	assert_int_equal(tl->nclips, 4);
	for (i = 0; i < N(want); i++) {
		const struct eng_clip *cl = &tl->clips[i];
		const struct eng_seq_ref *r = cl->seq;

		assert_string_equal(cl->name, want[i].clip);
		check_seq(r, &want[i].seq);
		assert_int_equal(r->rate.num, want[i].rate_num);
		assert_int_equal(r->origin, 0);
		assert_true(r->line > 0);
		if (want[i].dir)
			assert_string_equal(r->dir, want[i].dir);
		else
			assert_null(r->dir);
	}
	/* the ExternalReference keeps its file, and no sequence */
	assert_string_equal(tl->clips[3].name, "A001C003~3");
	assert_null(tl->clips[3].seq);
	assert_string_equal(tl->clips[3].file, "A001C003.mov");
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* What strict mode turns into errors is accepted otherwise. */
static void test_lenient(void **state)
{
	static const char *const ok[] = {
		HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
		"\"source_range\": " TR(0, 5) ", \"effects\": [\n"
		"{\"OTIO_SCHEMA\": \"LinearTimeWarp.1\"}, {\"OTIO_SCHEMA\": "
		"\"FreezeFrame.1\"}]}" TAIL,
		HEAD "{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
		"\"source_range\": " TR(0, 5) ", \"media_reference\": "
		"{\"OTIO_SCHEMA\": \"ImageSequenceReference.1\"}}" TAIL,
	};
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	(void)state;
	for (i = 0; i < N(ok); i++) {
		assert_int_equal(parse_str(ok[i], 0, &tl, &d), 0);
		assert_int_equal(d.n, 0);
		assert_int_equal(tl->frames, 5);
		assert_string_equal(tl->clips[0].name, "a");
		eng_tl_free(tl);
	}
}

/* ------------------------------------------------------------------ */
/* Transitions beside a gap or a track's edge                           */

/* Regression: a Transition.1 next to a Gap or at either end of a track
 * read the outgoing clip twice.  Clip a (src 10, 20 frames), Transition
 * in 5 out 0 at the end of the track gave "V a 10 20 @0" and "Vx a 25 5
 * @15": V and Vx both read a's frames 25..29 at 15..19.  As for an EDL
 * dissolve to or from black (BL), the black side reads nothing: the
 * outgoing clip leaves the main track where the transition starts and
 * plays on Tx only, the incoming clip alone is extended backwards. */
struct trans_case {
	const char *name;
	const char *text;
	int64_t frames;
	const char *tracks;
	struct want_seg segs[4];
};

static const struct trans_case transitions[] = {
	/* fade out at the end: V a 10..25 at 0..15, Vx a 25..30 at 15..20 */
	{ "clip to end of track", HEAD CLIP("a", 10, 20) ",\n" TRANS(5, 0)
	  TAIL, 20, "V:1 Vx:1",
	  { { "V", 0, "a", 10, 0, 15, 4 },
	    { "Vx", 0, "a", 25, 15, 5, 5 } } },
	/* out 5 past the last clip: Vx carries a on to 25 */
	{ "clip to end of track, out 5", HEAD CLIP("a", 10, 20) ",\n"
	  TRANS(5, 5) TAIL, 25, "V:1 Vx:1",
	  { { "V", 0, "a", 10, 0, 15, 4 },
	    { "Vx", 0, "a", 25, 15, 10, 5 } } },
	/* cut at 20, gap 20..30, c at 30: V black over 15..30, Vx a 25 for
	 * 10 at 15 */
	{ "clip to gap", HEAD CLIP("a", 10, 20) ",\n" TRANS(5, 5) ",\n"
	  GAP(10) ",\n" CLIP("c", 0, 10) TAIL, 40, "V:2 Vx:1",
	  { { "V", 0, "a", 10, 0, 15, 4 },
	    { "V", 1, "c", 0, 30, 10, 7 },
	    { "Vx", 0, "a", 25, 15, 10, 5 } } },
	/* a disabled clip is black like a gap */
	{ "clip to disabled clip", HEAD CLIP("a", 10, 20) ",\n" TRANS(5, 5)
	  ",\n{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"b\", \"enabled\": "
	  "false, \"source_range\": " TR(20, 10) "}" TAIL, 25, "V:1 Vx:1",
	  { { "V", 0, "a", 10, 0, 15, 4 },
	    { "Vx", 0, "a", 25, 15, 10, 5 } } },
	/* fade in: gap 0..10, cut 10; b (src 20 at 10) extended back 5 to
	 * src 15 at 5; nothing on Vx */
	{ "gap to clip", HEAD GAP(10) ",\n" TRANS(5, 5) ",\n"
	  CLIP("b", 20, 20) TAIL, 30, "V:1",
	  { { "V", 0, "b", 15, 5, 25, 6 } } },
	/* at the start of the track: b from its own first frame */
	{ "start of track to clip", HEAD TRANS(0, 5) ",\n" CLIP("b", 20, 20)
	  TAIL, 20, "V:1",
	  { { "V", 0, "b", 20, 0, 20, 5 } } },
	/* in_offset before the track's start: nothing to read there */
	{ "start of track to clip, in 5", HEAD TRANS(5, 5) ",\n"
	  CLIP("b", 3, 20) TAIL, 20, "V:1",
	  { { "V", 0, "b", 3, 0, 20, 5 } } },
	/* control: cut 20, b (src 20) from 15 at src 15, a on Vx 15..25 */
	{ "clip to clip", HEAD CLIP("a", 10, 20) ",\n" TRANS(5, 5) ",\n"
	  CLIP("b", 20, 20) TAIL, 40, "V:2 Vx:1",
	  { { "V", 0, "a", 10, 0, 15, 4 },
	    { "V", 1, "b", 15, 15, 25, 6 },
	    { "Vx", 0, "a", 25, 15, 10, 5 } } },
	/* gap, clip, gap: both sides black in turn */
	{ "gap to clip to gap", HEAD GAP(10) ",\n" TRANS(2, 2) ",\n"
	  CLIP("b", 20, 10) ",\n" TRANS(3, 3) ",\n" GAP(10) TAIL, 23,
	  "V:1 Vx:1",
	  { { "V", 0, "b", 18, 8, 9, 6 },
	    { "Vx", 0, "b", 27, 17, 6, 7 } } },
};

static void test_transition(void **state)
{
	const struct trans_case *c = *state;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	int strict;

	for (strict = 0; strict < 2; strict++) {
		if (parse_str(c->text, strict, &tl, &d) != 0) {
			print_diag(&d);
			fail_msg("%s does not load (strict %d)", c->name,
				 strict);
		}
		assert_int_equal(d.n, 0);
		assert_int_equal(tl->frames, c->frames);
		check_tracks(tl, c->tracks);
		check_segs(tl, c->segs, N(c->segs));
		check_read_once(tl);
		eng_tl_free(tl);
	}
}

static void test_nul(void **state)
{
	static const char text[] = HEAD CLIP("a", 0, 5) "\n\0" TAIL;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(parse_len(text, sizeof(text) - 1, 0, &tl, &d),
			 -EINVAL);
	assert_null(tl);
	assert_msg(&d, "t.otio:5: NUL byte");
	eng_diag_free(&d);
}

/* Rates: the first video clip beats an audio clip, opt->fps is the last
 * resort, NTSC decimals become N*1000/1001. */
static void test_rates(void **state)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	/* only an audio clip at 48000: opt->fps 30000/1001; 48000 samples =
	 * 1 s = 29.97 frames -> 30 */
	assert_int_equal(parse_str("{\"OTIO_SCHEMA\": \"Timeline.1\", "
		"\"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\", \"children\": ["
		"{\"OTIO_SCHEMA\": \"Track.1\", \"kind\": \"Audio\", "
		"\"children\": [{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
		"\"source_range\": {\"start_time\": " RT(0, 48000)
		", \"duration\": " RT(48000, 48000) "}}]}]}}", 0, &tl, &d), 0);
	assert_int_equal(tl->fps.num, 30000);
	assert_int_equal(tl->fps.den, 1001);
	assert_int_equal(tl->frames, 30);
	check_tracks(tl, "A1:1");
	eng_tl_free(tl);
	/* audio first, video second: the video clip's 23.976 wins; 1001
	 * @23.976 = 1001 frames exactly; audio 48048 @48000 = 1.001 s =
	 * 24 frames at 24000/1001 */
	assert_int_equal(parse_str("{\"OTIO_SCHEMA\": \"Timeline.1\", "
		"\"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\", \"children\": ["
		"{\"OTIO_SCHEMA\": \"Track.1\", \"kind\": \"Audio\", "
		"\"children\": [{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"a\", "
		"\"source_range\": {\"start_time\": " RT(0, 48000)
		", \"duration\": " RT(48048, 48000) "}}]}, "
		"{\"OTIO_SCHEMA\": \"Track.1\", \"children\": ["
		"{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"v\", "
		"\"source_range\": {\"start_time\": " RT(0, 23.976)
		", \"duration\": " RT(1001, 23.976) "}}]}]}}", 0, &tl, &d), 0);
	assert_int_equal(tl->fps.num, 24000);
	assert_int_equal(tl->fps.den, 1001);
	check_tracks(tl, "A1:1 V:1");
	assert_int_equal(tl->tracks[0].segs[0].frames, 24);
	assert_int_equal(tl->tracks[1].segs[0].frames, 1001);
	eng_tl_free(tl);
	/* 12.5 fps -> 25/2; 29.97 -> 30000/1001 at the timeline */
	assert_int_equal(parse_str("{\"OTIO_SCHEMA\": \"Timeline.1\", "
		"\"global_start_time\": " RT(0, 12.5) ", \"tracks\": "
		"{\"OTIO_SCHEMA\": \"Stack.1\", \"children\": ["
		"{\"OTIO_SCHEMA\": \"Track.1\", \"children\": ["
		"{\"OTIO_SCHEMA\": \"Clip.1\", \"name\": \"v\", "
		"\"source_range\": {\"start_time\": " RT(0, 29.97)
		", \"duration\": " RT(100, 29.97) "}}]}]}}", 0, &tl, &d), 0);
	/* 100 frames @30000/1001 in 25/2: 100 * 25 * 1001 / (2 * 30000) =
	 * 41.708 -> 42 */
	assert_int_equal(tl->fps.num, 25);
	assert_int_equal(tl->fps.den, 2);
	assert_int_equal(tl->frames, 42);
	eng_tl_free(tl);
	assert_int_equal(d.n, 0);
}

/* A caller's fps of 0 with nothing in the file to replace it. */
static void test_zero_fps(void **state)
{
	static const char text[] = HEAD CLIP("a", 0, 5) TAIL;
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	eng_load_options_default(&o);
	o.fps.num = 0;
	/* CLIP has rate 24: the file wins */
	assert_int_equal(eng_otio_parse("t.otio", "t", text, strlen(text), &o,
					&tl, &d), 0);
	assert_int_equal(tl->fps.num, 24);
	eng_tl_free(tl);
	o.fps.den = 0;
	o.fps.num = 25;
	assert_int_equal(eng_otio_parse("t.otio", "t", "{\"OTIO_SCHEMA\": "
		"\"Timeline.1\", \"tracks\": {\"OTIO_SCHEMA\": \"Stack.1\"}}",
		strlen("{\"OTIO_SCHEMA\": \"Timeline.1\", \"tracks\": "
		       "{\"OTIO_SCHEMA\": \"Stack.1\"}}"), &o, &tl, &d),
		-EINVAL);
	assert_null(tl);
	assert_msg(&d, "no frame rate");
	eng_diag_free(&d);
}

/* Track names: V, V2 ... and A1 ... in document order, at most 99. */
static void test_track_names(void **state)
{
#define TRK(kind) "{\"OTIO_SCHEMA\": \"Track.1\", \"kind\": \"" kind \
	"\", \"children\": [" CLIP("a", 0, 1) "]}"
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char *text;
	size_t n, i;
	FILE *f;

	(void)state;
	for (n = 3; n <= 100; n += 97) {
		f = open_memstream(&text, &i);
		assert_non_null(f);
		fputs("{\"OTIO_SCHEMA\": \"Timeline.1\", \"tracks\": "
		      "{\"OTIO_SCHEMA\": \"Stack.1\", \"children\": [", f);
		for (i = 0; i < n; i++) {
			fputs(i ? "," : "", f);
			fputs(i % 2 ? TRK("Audio") : TRK("Video"), f);
			fputs("," TRK("Video"), f);
		}
		fputs("]}}", f);
		fclose(f);
		if (n == 3) {
			assert_int_equal(parse_str(text, 0, &tl, &d), 0);
			check_tracks(tl, "V:1 V2:1 A1:1 V3:1 V4:1 V5:1");
			eng_tl_free(tl);
		} else {
			/* 150 video tracks: the 100th is refused */
			assert_int_equal(parse_str(text, 0, &tl, &d), -EINVAL);
			assert_msg(&d, "more than 99 video tracks");
			eng_diag_free(&d);
		}
		free(text);
	}
#undef TRK
}

/* The loader picks this parser by extension. */
static void test_load(void **state)
{
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	(void)state;
	eng_load_options_default(&o);
	assert_int_equal(eng_timeline_load("tests/fixtures/otio/nested.otio",
					   &o, &tl, &d), 0);
	assert_string_equal(tl->name, "nested");
	assert_int_equal(tl->frames, 15);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

int main(void)
{
	struct CMUnitTest tests[N(samples) + N(fixtures) + N(errors) +
				N(transitions) + 10];
	size_t n = 0, i;

	for (i = 0; i < N(samples); i++) {
		struct CMUnitTest t = {
			.name = samples[i].file,
			.test_func = test_sample,
			.initial_state = (void *)&samples[i],
		};

		tests[n++] = t;
	}
	for (i = 0; i < N(fixtures); i++) {
		struct CMUnitTest t = {
			.name = fixtures[i].file,
			.test_func = test_fixture,
			.initial_state = (void *)&fixtures[i],
		};

		tests[n++] = t;
	}
	for (i = 0; i < N(errors); i++) {
		struct CMUnitTest t = {
			.name = errors[i].name,
			.test_func = test_error,
			.initial_state = (void *)&errors[i],
		};

		tests[n++] = t;
	}
	for (i = 0; i < N(transitions); i++) {
		struct CMUnitTest t = {
			.name = transitions[i].name,
			.test_func = test_transition,
			.initial_state = (void *)&transitions[i],
		};

		tests[n++] = t;
	}
#define T(f) tests[n++] = (struct CMUnitTest)cmocka_unit_test(f)
	T(test_fixture_details);
	T(test_sequences);
	T(test_lenient);
	T(test_nul);
	T(test_rates);
	T(test_zero_fps);
	T(test_track_names);
	T(test_load);
#undef T
	return _cmocka_run_group_tests("otio", tests, n, NULL, NULL);
}
