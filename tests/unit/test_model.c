/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for overlap resolution in eng_tl_finalize(): random small
 * tracks against a per-frame reference (paint each frame in definition
 * order), and a 100000-segment track that must finalize in well under 1 s.
 * And a sequence clip's reference (eng_tl_clip_seq, eng_seq_pattern).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#define SPAN 64		/* record frames of the random tracks */
#define MAX_DEFS 40

struct def {
	uint32_t clip;
	int64_t src_in, rec_in, frames;
};

/* A deterministic LCG: the failing case number reproduces the track. */
static uint32_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(*s >> 33);
}

static struct eng_timeline *new_tl(unsigned nclips)
{
	struct eng_timeline *tl = eng_tl_new("m", "m.tl");
	char name[16];
	unsigned i;

	assert_non_null(tl);
	tl->fps = (struct eng_fps){ 25, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 100, 1), 0);
	for (i = 0; i < nclips; i++) {
		snprintf(name, sizeof(name), "c%u", i);
		assert_int_equal(eng_tl_clip(tl, name, 1), (int)i);
	}
	return tl;
}

/*
 * The reference: the owner of each frame is the last definition covering
 * it; the expected pieces are the maximal runs of one owner, each with the
 * owner's clip and line and the source frame of its first frame.
 */
static void check_against_paint(const struct def *defs, size_t n,
				const struct eng_track *tr, unsigned seed)
{
	int owner[SPAN * 2];
	size_t i, p = 0;
	int64_t k, end = 0;

	for (k = 0; k < SPAN * 2; k++)
		owner[k] = -1;
	for (i = 0; i < n; i++)
		for (k = defs[i].rec_in; k < defs[i].rec_in + defs[i].frames; k++)
			owner[k] = (int)i;
	for (k = 0; k < SPAN * 2; k++)
		if (owner[k] >= 0)
			end = k + 1;
	for (k = 0; k < end;) {
		const struct def *d;
		const struct eng_segment *s;
		int64_t run = k;

		if (owner[k] < 0) {
			k++;
			continue;
		}
		while (run < end && owner[run] == owner[k])
			run++;
		d = &defs[owner[k]];
		if (p >= tr->nsegs)
			fail_msg("case %u: piece %zu at %lld missing", seed, p,
				 (long long)k);
		s = &tr->segs[p];
		if (s->clip != d->clip || s->rec_in != k ||
		    s->frames != run - k ||
		    s->src_in != d->src_in + (k - d->rec_in) ||
		    s->line != (unsigned)owner[k] + 1)
			fail_msg("case %u: piece %zu is clip %u src %lld rec %lld "
				 "frames %lld line %u, want clip %u src %lld rec "
				 "%lld frames %lld line %d",
				 seed, p, s->clip, (long long)s->src_in,
				 (long long)s->rec_in, (long long)s->frames,
				 s->line, d->clip,
				 (long long)(d->src_in + (k - d->rec_in)),
				 (long long)k, (long long)(run - k),
				 owner[k] + 1);
		p++;
		k = run;
	}
	if (p != tr->nsegs)
		fail_msg("case %u: %zu pieces, want %zu", seed, tr->nsegs, p);
}

/* A transition track "Tx" declared after "T" reads T's media files; a
 * track that merely ends in x, or comes first, keeps its own. */
static void test_transition_track_media(void **state)
{
	static const struct {
		const char *names[4];
		const char *media[4];
	} cases[] = {
		{ { "V", "Vx", "A1", "A1x" }, { "V", "V", "A1", "A1" } },
		{ { "Vx", "V", NULL }, { "Vx", "V", NULL } },
		{ { "x", "Ax", NULL }, { "x", "Ax", NULL } },
		{ { "A2", "A2x", "A2xx", NULL }, { "A2", "A2", "A2", NULL } },
	};
	size_t i, t;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_timeline *tl = eng_tl_new("m", "m.tl");

		assert_non_null(tl);
		for (t = 0; t < 4 && cases[i].names[t]; t++)
			assert_int_equal(eng_tl_add_track(tl, cases[i].names[t],
							  1000, 1),
					 (int)t);
		for (t = 0; t < 4 && cases[i].names[t]; t++)
			assert_string_equal(tl->tracks[t].media,
					    cases[i].media[t]);
		eng_tl_free(tl);
	}
}

static void test_random_against_paint(void **state)
{
	unsigned seed;

	(void)state;
	for (seed = 0; seed < 3000; seed++) {
		struct def defs[MAX_DEFS];
		struct eng_diag d = { 0 };
		struct eng_timeline *tl = new_tl(3);
		uint64_t s = seed;
		size_t n = 1 + lcg(&s) % MAX_DEFS, i;
		/* short spans make heavy overlap, long ones make gaps */
		int64_t maxlen = 1 + lcg(&s) % 24;

		for (i = 0; i < n; i++) {
			/* few clips and sources near each other, so that
			 * neighbouring pieces often continue one another */
			defs[i].clip = lcg(&s) % 3;
			defs[i].src_in = lcg(&s) % 4 ? (int64_t)(lcg(&s) % 8) : 0;
			defs[i].rec_in = lcg(&s) % SPAN;
			defs[i].frames = 1 + lcg(&s) % maxlen;
			assert_int_equal(eng_tl_add_segment(tl, 0, defs[i].clip,
							    defs[i].src_in,
							    defs[i].rec_in,
							    defs[i].frames,
							    (unsigned)i + 1),
					 0);
		}
		assert_int_equal(eng_tl_finalize(tl, &d), 0);
		check_against_paint(defs, n, &tl->tracks[0], seed);
		eng_tl_free(tl);
		eng_diag_free(&d);
	}
}

/* Two definitions of one clip that continue each other stay two pieces
 * (each keeps its line); one definition cut apart and uncovered again
 * cannot happen, but one split by a later one is two pieces. */
static void test_continuous_definitions_kept(void **state)
{
	struct eng_timeline *tl = new_tl(2);
	struct eng_diag d = { 0 };
	const struct eng_segment *s;

	(void)state;
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0, 10, 1), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 10, 10, 10, 2), 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 1, 0, 5, 2, 3), 0);
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	assert_int_equal(tl->tracks[0].nsegs, 4);
	s = tl->tracks[0].segs;
	assert_int_equal(s[0].line, 1);
	assert_int_equal(s[0].frames, 5);
	assert_int_equal(s[1].line, 3);
	assert_int_equal(s[2].line, 1);
	assert_int_equal(s[2].src_in, 7);
	assert_int_equal(s[2].rec_in, 7);
	assert_int_equal(s[2].frames, 3);
	assert_int_equal(s[3].line, 2);
	assert_int_equal(s[3].rec_in, 10);
	assert_int_equal(tl->frames, 20);
	/* a second finalize leaves a resolved track as it is */
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	assert_int_equal(tl->tracks[0].nsegs, 4);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Regression: the first flatten() cut each new segment out of every piece
 * laid down before it, quadratic in the segments of a track: an EDL whose
 * M2 effects make 100000 segments took about 7 s to finalize (30-40 s
 * under ASan).  Here 100000 overlapping segments, the last one over the
 * middle of the track, must take well under a second.
 */
static void test_100000_segments_fast(void **state)
{
	struct eng_timeline *tl = new_tl(2);
	struct eng_diag d = { 0 };
	const struct eng_track *tr;
	uint64_t s = 12345;
	double t0, t;
	int64_t i;
	size_t k;

	(void)state;
	for (i = 0; i < 100000; i++)
		assert_int_equal(eng_tl_add_segment(tl, 0, (uint32_t)(i & 1),
						    lcg(&s) % 1000, 2 * i,
						    1 + lcg(&s) % 8,
						    (unsigned)i + 1),
				 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 50000, 100000,
					    100001),
			 0);
	t0 = cpu_seconds();
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	t = cpu_seconds() - t0;
	tr = &tl->tracks[0];
	for (k = 1; k < tr->nsegs; k++)
		assert_true(tr->segs[k - 1].rec_in + tr->segs[k - 1].frames <=
			    tr->segs[k].rec_in);
	assert_non_null(eng_segment_at(tr, 100000));
	assert_int_equal(eng_segment_at(tr, 100000)->line, 100001);
	assert_int_equal(eng_segment_at(tr, 100000)->src_in, 0);
	assert_int_equal(eng_segment_at(tr, 100000)->rec_in, 50000);
	if (t >= 1.0)
		fail_msg("finalize of 100001 segments took %.2f s CPU", t);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* eng_tl_clip_seq: what a sequence clip may be, each refusal's reason. */
static const struct seq_case {
	const char *base, *prefix, *suffix;
	int64_t step;
	int padding;
	uint32_t missing;
	int rc;
	const char *why;	/* NULL: accepted */
	const char *pattern;	/* eng_seq_pattern of an accepted one */
} seq_cases[] = {
	{ "A001C003", "A001C003.", ".dpx", 1, 7, ENG_SEQ_MISS_ERROR, 0, NULL,
	  "A001C003/A001C003.%07d.dpx" },
	{ "", "shot_", ".exr", 2, 4, ENG_SEQ_MISS_HOLD, 0, NULL,
	  "shot_%04d.exr" },
	{ "reel 1/sc%1", "p%", "", 1, 0, ENG_SEQ_MISS_BLACK, 0, NULL,
	  "reel 1/sc%%1/p%%%d" },
	{ "a/b/c", "", ".tif", 1, 64, 0, 0, NULL, "a/b/c/%064d.tif" },
	{ "../up", "x.", ".dpx", 1, 7, 0, -EINVAL,
	  "a folder of the pattern leaves the media folder", NULL },
	{ "a/../b", "x.", ".dpx", 1, 7, 0, -EINVAL,
	  "a folder of the pattern leaves the media folder", NULL },
	{ "/abs", "x.", ".dpx", 1, 7, 0, -EINVAL,
	  "a folder of the pattern leaves the media folder", NULL },
	{ "a/", "x.", ".dpx", 1, 7, 0, -EINVAL,
	  "a folder of the pattern leaves the media folder", NULL },
	{ "a//b", "x.", ".dpx", 1, 7, 0, -EINVAL,
	  "a folder of the pattern leaves the media folder", NULL },
	{ ".", "x.", ".dpx", 1, 7, 0, -EINVAL,
	  "a folder of the pattern leaves the media folder", NULL },
	{ "a", "x/", ".dpx", 1, 7, 0, -EINVAL,
	  "a '/' in the name prefix or suffix", NULL },
	{ "a", "x.", "/.dpx", 1, 7, 0, -EINVAL,
	  "a '/' in the name prefix or suffix", NULL },
	{ "a", "x.", ".dpx", 0, 7, 0, -EINVAL, "step must be 1 or more",
	  NULL },
	{ "a", "x.", ".dpx", -2, 7, 0, -EINVAL, "step must be 1 or more",
	  NULL },
	{ "a", "x.", ".dpx", 1, 65, 0, -EINVAL, "padding above 64", NULL },
	{ "a", "x\n", ".dpx", 1, 7, 0, -EINVAL, "a control character", NULL },
	{ "a\x7f", "x", ".dpx", 1, 7, 0, -EINVAL, "a control character",
	  NULL },
	{ "a", "x.", ".dpx", 1, 7, 3, -EINVAL,
	  "unknown missing frame policy", NULL },
};

static void test_clip_seq(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(seq_cases) / sizeof(seq_cases[0]); i++) {
		const struct seq_case *k = &seq_cases[i];
		struct eng_timeline *tl = new_tl(1);
		struct eng_seq_ref r = {
			.base = (char *)k->base, .prefix = (char *)k->prefix,
			.suffix = (char *)k->suffix, .start = -86400,
			.step = k->step, .padding = k->padding,
			.missing = k->missing, .origin = 3,
			.rate = { 24, 1 }, .line = 7,
		};
		const struct eng_seq_ref *got;
		const char *why = "unset";
		char buf[256];
		int rc;

		rc = eng_tl_clip_seq(tl, 0, &r, &why);
		if (rc != k->rc || (k->why ? !why || strcmp(why, k->why) != 0
					   : why != NULL))
			fail_msg("case %zu: rc %d why '%s', expected %d '%s'", i,
				 rc, why ? why : "(null)", k->rc,
				 k->why ? k->why : "(null)");
		if (rc < 0) {
			assert_null(tl->clips[0].seq);
			eng_tl_free(tl);
			continue;
		}
		got = tl->clips[0].seq;
		assert_non_null(got);
		/* copied, not borrowed */
		assert_ptr_not_equal(got->base, k->base);
		assert_string_equal(got->prefix, k->prefix);
		assert_int_equal(got->start, -86400);
		assert_int_equal(got->origin, 3);
		assert_int_equal(got->rate.num, 24);
		assert_int_equal(got->line, 7);
		rc = eng_seq_pattern(got, buf, sizeof(buf));
		assert_int_equal(rc, (int)strlen(k->pattern));
		assert_string_equal(buf, k->pattern);
		/* exactly fitting, then one byte short */
		assert_int_equal(eng_seq_pattern(got, buf, (size_t)rc + 1), rc);
		assert_int_equal(eng_seq_pattern(got, buf, (size_t)rc),
				 -ENAMETOOLONG);
		assert_string_equal(buf, "");
		r.line = 9;
		assert_int_equal(eng_tl_clip_seq(tl, 0, &r, &why), -EEXIST);
		assert_int_equal(tl->clips[0].seq->line, 7);
		eng_tl_free(tl); /* frees the copy: ASan's leak check */
	}
}

static void test_seq_missing_names(void **state)
{
	(void)state;
	assert_string_equal(eng_seq_missing_name(ENG_SEQ_MISS_ERROR), "error");
	assert_string_equal(eng_seq_missing_name(ENG_SEQ_MISS_HOLD), "hold");
	assert_string_equal(eng_seq_missing_name(ENG_SEQ_MISS_BLACK), "black");
	assert_null(eng_seq_missing_name(3));
	assert_int_equal(eng_seq_missing_find("error"), ENG_SEQ_MISS_ERROR);
	assert_int_equal(eng_seq_missing_find("Hold"), ENG_SEQ_MISS_HOLD);
	assert_int_equal(eng_seq_missing_find("BLACK"), ENG_SEQ_MISS_BLACK);
	assert_int_equal(eng_seq_missing_find("skip"), -1);
	assert_int_equal(eng_seq_missing_find(""), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transition_track_media),
		cmocka_unit_test(test_random_against_paint),
		cmocka_unit_test(test_continuous_definitions_kept),
		cmocka_unit_test(test_100000_segments_fast),
		cmocka_unit_test(test_clip_seq),
		cmocka_unit_test(test_seq_missing_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
