/* SPDX-License-Identifier: MIT */
/* Unit tests of engine/media/genplan.c: PRNG streams, the WAVE header,
 * config checks, timeline planning, the .tl text (parsed back by the real
 * parser) and the clip files --for plans (checked by the real media
 * resolution); and of engine/media/picture.c: generated pictures read
 * back (code and digits) and the audio's tone and code. */
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

#include "media/genplan.h"
#include "media/media.h"
#include "media/picture.h"
#include "timeline/edl.h"
#include "timeline/layout.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"
#include "util/rng.h"
#include "util/values.h"

/* ---------------------------------------------------------------- rng */

static void test_rng_known_answers(void **state)
{
	struct eng_rng r = { .s = { 1, 2, 3, 4 } };

	(void)state;
	/* xoshiro256** reference outputs for the state {1, 2, 3, 4} */
	assert_int_equal(eng_rng_next(&r), 11520);
	assert_int_equal(eng_rng_next(&r), 0);
	assert_int_equal(eng_rng_next(&r), 1509978240);
	assert_true(eng_rng_next(&r) == 1215971899390074240ULL);
	/* splitmix64's first output from 0 seeds the first word */
	eng_rng_seed(&r, 0);
	assert_true(r.s[0] == 0xe220a8397b1dcdafULL);
}

static void test_rng_determinism(void **state)
{
	struct eng_rng a, b, c;
	int i, same = 0;

	(void)state;
	eng_rng_seed(&a, 42);
	eng_rng_seed(&b, 42);
	eng_rng_seed(&c, 43);
	for (i = 0; i < 1000; i++) {
		uint64_t x = eng_rng_next(&a);

		assert_true(x == eng_rng_next(&b));
		same += x == eng_rng_next(&c);
	}
	assert_int_equal(same, 0);
}

static void test_rng_derive(void **state)
{
	uint64_t s[6];
	int i, j;

	(void)state;
	s[0] = eng_rng_derive(1, 0, 0);
	s[1] = eng_rng_derive(1, 1, 0);
	s[2] = eng_rng_derive(1, 0, 1);
	s[3] = eng_rng_derive(1, 1, 2);
	s[4] = eng_rng_derive(1, 2, 1);
	s[5] = eng_rng_derive(2, 0, 0);
	for (i = 0; i < 6; i++)
		for (j = i + 1; j < 6; j++)
			assert_true(s[i] != s[j]);
	assert_true(eng_rng_derive(7, 3, 4) == eng_rng_derive(7, 3, 4));
}

static void test_rng_range(void **state)
{
	static const struct {
		uint64_t lo, hi;
	} cases[] = {
		{ 5, 7 }, { 0, 1 }, { 0, 9 }, { 100, 100 },
		{ UINT64_MAX - 2, UINT64_MAX },
	};
	struct eng_rng r;
	size_t i;
	int k;

	(void)state;
	eng_rng_seed(&r, 9);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t lo = cases[i].lo, hi = cases[i].hi, n = hi - lo + 1;
		int seen[10] = { 0 };

		for (k = 0; k < 10000; k++) {
			uint64_t v = eng_rng_range(&r, lo, hi);

			assert_true(v >= lo && v <= hi);
			seen[v - lo]++;
		}
		/* both ends are reached: the bounds are inclusive */
		for (k = 0; k < (int)n; k++)
			assert_true(seen[k] > 0);
	}
	/* the full range and an empty one do not hang or fail */
	(void)eng_rng_range(&r, 0, UINT64_MAX);
	assert_int_equal(eng_rng_range(&r, 8, 3), 8);
}

static size_t longest_zero_run(const unsigned char *p, size_t len)
{
	size_t best = 0, run = 0, i;

	for (i = 0; i < len; i++) {
		run = p[i] ? 0 : run + 1;
		if (run > best)
			best = run;
	}
	return best;
}

static void test_rng_fill_zero_runs(void **state)
{
	struct eng_rng r = { .s = { 1, 2, 3, 4 } };
	size_t len = 4u << 20;
	unsigned char *buf = calloc(1, len);

	(void)state;
	assert_non_null(buf);
	/* the second output of this state is 0: it must not be stored */
	eng_rng_fill(&r, buf, 16);
	assert_true(longest_zero_run(buf, 16) < 8);
	eng_rng_seed(&r, 1);
	eng_rng_fill(&r, buf, len);
	assert_true(longest_zero_run(buf, len) <= 14);
	free(buf);
}

static void test_rng_fill_stream(void **state)
{
	static const size_t lens[] = { 0, 1, 7, 8, 9, 15, 16, 1000, 4097 };
	unsigned char whole[4200], part[4200 + 8];
	struct eng_rng a, b;
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t n = lens[i], up = (n + 7) / 8 * 8;

		eng_rng_seed(&a, 5);
		eng_rng_seed(&b, 5);
		eng_rng_fill(&a, whole, up);
		memset(part, 0xa5, sizeof(part));
		eng_rng_fill(&b, part, n);
		/* a tail is the low bytes of the next output; beyond it
		 * nothing is touched */
		if (n)
			assert_memory_equal(whole, part, n);
		for (j = n; j < sizeof(part); j++)
			assert_int_equal(part[j], 0xa5);
		/* both streams advanced by the same number of outputs */
		assert_true(eng_rng_next(&a) == eng_rng_next(&b));
	}
	/* filling in blocks (multiples of 8) gives the same bytes */
	eng_rng_seed(&a, 6);
	eng_rng_fill(&a, whole, 4096);
	eng_rng_seed(&b, 6);
	eng_rng_fill(&b, part, 1024);
	eng_rng_fill(&b, part + 1024, 3072);
	assert_memory_equal(whole, part, 4096);
}

/* ---------------------------------------------------------------- wav */

static void test_wav_header_bytes(void **state)
{
	/* 48 kHz 24-bit mono, 1153152 data bytes (240 frames at 29.97) */
	static const unsigned char want[44] = {
		'R', 'I', 'F', 'F', 0xa4, 0x98, 0x11, 0x00, /* 36 + data */
		'W', 'A', 'V', 'E', 'f', 'm', 't', ' ',
		16, 0, 0, 0,		/* fmt size */
		1, 0,			/* PCM */
		1, 0,			/* mono */
		0x80, 0xbb, 0, 0,	/* 48000 Hz */
		0x80, 0x32, 0x02, 0,	/* 144000 B/s */
		3, 0,			/* block align */
		24, 0,			/* bits */
		'd', 'a', 't', 'a', 0x80, 0x98, 0x11, 0x00, /* 1153152 */
	};
	unsigned char h[44];
	uint64_t off, size;

	(void)state;
	memset(h, 0xee, sizeof(h));
	eng_wav_header(h, 48000, 24, 1153152);
	assert_memory_equal(h, want, 44);
	/* the engine's own WAVE reader finds the essence where we put it */
	assert_int_equal(eng_wav_data(h, sizeof(h), &off, &size), 0);
	assert_int_equal(off, 44);
	assert_int_equal(size, 1153152);
}

static void test_wav_header_odd_and_huge(void **state)
{
	unsigned char h[44];

	(void)state;
	/* an odd data chunk is followed by a pad byte the RIFF size counts */
	eng_wav_header(h, 44100, 24, 3);
	assert_memory_equal(h + 4, "\x28\x00\x00\x00", 4);	/* 36+3+1 */
	assert_memory_equal(h + 40, "\x03\x00\x00\x00", 4);
	assert_memory_equal(h + 24, "\x44\xac\x00\x00", 4);	/* 44100 */
	assert_memory_equal(h + 28, "\xcc\x04\x02\x00", 4);	/* 132300 */
	/* 16-bit: block align 2 */
	eng_wav_header(h, 48000, 16, 4);
	assert_memory_equal(h + 32, "\x02\x00\x10\x00", 4);
	/* sizes past 32 bits saturate */
	eng_wav_header(h, 48000, 24, 5000000000ULL);
	assert_memory_equal(h + 4, "\xff\xff\xff\xff", 4);
	assert_memory_equal(h + 40, "\xff\xff\xff\xff", 4);
}

/* ---------------------------------------------------------------- values */

static void test_parse_seconds(void **state)
{
	static const struct {
		const char *s;
		int rc;
		int64_t us;
		const char *back;	/* eng_gen_seconds_str of us */
	} cases[] = {
		{ "8", 0, 8000000, "8" },
		{ "3.5", 0, 3500000, "3.5" },
		{ "0.25", 0, 250000, "0.25" },
		{ "1.000001", 0, 1000001, "1.000001" },
		{ "0", 0, 0, "0" },
		{ "10.50", 0, 10500000, "10.5" },
		{ "1.0000001", -EINVAL, 0, NULL },
		{ "", -EINVAL, 0, NULL },
		{ ".5", -EINVAL, 0, NULL },
		{ "5.", -EINVAL, 0, NULL },
		{ "-1", -EINVAL, 0, NULL },
		{ "1e3", -EINVAL, 0, NULL },
		{ " 1", -EINVAL, 0, NULL },
		{ "2s", -EINVAL, 0, NULL },
		{ "99999999999999999999", -ERANGE, 0, NULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t us = -1;
		char buf[32];
		int rc = eng_gen_parse_seconds(cases[i].s, &us);

		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].s, rc,
				 cases[i].rc);
		if (rc)
			continue;
		assert_int_equal(us, cases[i].us);
		eng_gen_seconds_str(us, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].back);
	}
}

static void test_frames(void **state)
{
	static const struct {
		int64_t us;
		uint32_t num, den;
		int64_t frames;
	} cases[] = {
		{ 8000000, 30000, 1001, 240 },	/* 239.76 */
		{ 3000000, 30000, 1001, 90 },	/* 89.91 */
		{ 5000000, 30000, 1001, 150 },	/* 149.85 */
		{ 500000, 30000, 1001, 15 },	/* 14.985 */
		{ 20000, 25, 1, 1 },		/* 0.5 rounds up */
		{ 19999, 25, 1, 0 },
		{ 0, 25, 1, 0 },
		{ 3600000000LL, 24000, 1001, 86314 }, /* 86313.69 */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_fps f = { cases[i].num, cases[i].den };

		assert_int_equal(eng_gen_frames(cases[i].us, f),
				 cases[i].frames);
	}
}

static void test_names(void **state)
{
	char b[32];

	(void)state;
	eng_gen_clip_name(6, b, sizeof(b));
	assert_string_equal(b, "clip0007");
	eng_gen_clip_name(12344, b, sizeof(b));
	assert_string_equal(b, "clip12345");
	eng_gen_timeline_name(0, b, sizeof(b));
	assert_string_equal(b, "timeline01");
	eng_gen_timeline_name(99, b, sizeof(b));
	assert_string_equal(b, "timeline100");
}

/* ---------------------------------------------------------------- check */

/* The seed scenario with track V a rate track of 18000000 B/s, as it was
 * before it carried a picture (issue 20): the config the cases that set
 * fps or video rate by hand start from, since a picture fixes the rate. */
static void rate_config(struct eng_gen_config *c)
{
	eng_gen_config_default(c);
	c->pic.pix = ENG_PIX_NONE;
	c->video_rate = 18000000;
}

static void test_check_defaults(void **state)
{
	struct eng_gen_config c;
	struct eng_gen_sizes z;
	struct eng_diag d = { 0 };

	(void)state;
	eng_gen_config_default(&c);
	assert_int_equal(eng_gen_check(&c, &z, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(z.clip_frames, 240);
	assert_int_equal(z.min_frames, 90);
	assert_int_equal(z.max_frames, 150);
	assert_int_equal(z.sample_rate, 48000);
	/* the seed's picture (issue 20): 640x480 2vuy, 614400 bytes a
	 * frame, ceil(614400 * 30000 / 1001) B/s; 240 * 4804.8 */
	assert_int_equal(c.pic.pix, ENG_PIX_2VUY);
	assert_int_equal(c.pic.width, 640);
	assert_int_equal(c.pic.height, 480);
	assert_int_equal(c.video_rate, 18413587);
	assert_int_equal(z.video_bytes, 240 * 614400);
	assert_int_equal(z.audio_bytes, 1153152);
	assert_int_equal(z.audio_file, 1153196);
	assert_int_equal(z.media_files, 72);
	assert_int_equal(z.media_bytes, 24ULL * (147456000 + 2 * 1153196));
	/* as a rate track, 240 frames * 600600 bytes, as before */
	rate_config(&c);
	assert_int_equal(eng_gen_check(&c, &z, &d), 0);
	assert_int_equal(z.video_bytes, 144144000);
}

enum field {
	F_CLIPS, F_TIMELINES, F_EVENTS, F_AUDIO_TRACKS, F_CLIP_US, F_MIN_US,
	F_MAX_US, F_AUDIO_RATE, F_VIDEO_RATE, F_FPS_NUM,
};

static void set_field(struct eng_gen_config *c, enum field f, int64_t v)
{
	switch (f) {
	case F_CLIPS: c->clips = (uint32_t)v; break;
	case F_TIMELINES: c->timelines = (uint32_t)v; break;
	case F_EVENTS: c->events = (uint32_t)v; break;
	case F_AUDIO_TRACKS: c->audio_tracks = (uint32_t)v; break;
	case F_CLIP_US: c->clip_us = v; break;
	case F_MIN_US: c->min_us = v; break;
	case F_MAX_US: c->max_us = v; break;
	case F_AUDIO_RATE: c->audio_rate = (uint64_t)v; break;
	case F_VIDEO_RATE: c->video_rate = (uint64_t)v; break;
	case F_FPS_NUM: c->fps.num = (uint32_t)v; break;
	}
}

static void test_check_errors(void **state)
{
	static const struct {
		enum field f;
		int64_t v;
		const char *msg;	/* NULL: valid */
	} cases[] = {
		{ F_MAX_US, 6000000, NULL },	/* clip 8: still fine */
		{ F_CLIP_US, 5000000, NULL },	/* max 5 = clip 5 */
		{ F_AUDIO_TRACKS, 0, NULL },
		{ F_CLIP_US, 4500000, "timelinefs-gen: --max-seconds 5 is "
		  "longer than --clip-seconds 4.5" },
		{ F_MIN_US, 5500000, "timelinefs-gen: --min-seconds 5.5 is "
		  "longer than --max-seconds 5" },
		{ F_MIN_US, 10000, "timelinefs-gen: --min-seconds 0.01 is "
		  "less than one frame at 30000/1001 fps" },
		{ F_CLIPS, 0, "timelinefs-gen: --clips 0 is out of range "
		  "(1 to 1000000)" },
		{ F_EVENTS, 0, "timelinefs-gen: --events 0 is out of range "
		  "(1 to 10000000)" },
		{ F_TIMELINES, 0, "timelinefs-gen: --timelines 0 is out of "
		  "range (1 to 100000)" },
		{ F_AUDIO_TRACKS, 100, "timelinefs-gen: --audio-tracks 100 is "
		  "out of range (0 to 99)" },
		{ F_AUDIO_RATE, 144001, "timelinefs-gen: --audio-rate 144001: "
		  "not a multiple of 3: audio tracks hold whole 24-bit "
		  "samples (144000 is 48 kHz)" },
		{ F_AUDIO_RATE, 3 * (UINT32_MAX + 1ULL), "timelinefs-gen: "
		  "--audio-rate 12884901888: more than 4294967295 samples "
		  "per second, the most a WAVE file can declare" },
		{ F_VIDEO_RATE, 0, "timelinefs-gen: --video-rate 0 is out of "
		  "range (1 to 1000000000000)" },
		{ F_FPS_NUM, 0, "timelinefs-gen: --fps must be positive" },
	};
	struct eng_gen_event ev[32];
	int64_t frames;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_gen_config c;
		struct eng_gen_sizes z;
		struct eng_diag d = { 0 };
		int rc;

		rate_config(&c);
		set_field(&c, cases[i].f, cases[i].v);
		rc = eng_gen_check(&c, &z, &d);
		if (!cases[i].msg) {
			assert_int_equal(rc, 0);
			assert_int_equal(d.n, 0);
		} else {
			assert_int_equal(rc, -EINVAL);
			assert_int_equal(d.n, 1);
			assert_string_equal(d.msgs[0], cases[i].msg);
			/* planning refuses a config the check refuses */
			if (c.events <= 32)
				assert_int_equal(eng_gen_plan(&c, 0, ev,
							      &frames),
						 -EINVAL);
		}
		eng_diag_free(&d);
	}
}

/* ---------------------------------------------------------------- plan */

static void check_plan(const struct eng_gen_config *c,
		       const struct eng_gen_event *ev, int64_t frames)
{
	struct eng_gen_sizes z;
	int64_t sum = 0;
	uint32_t i;

	assert_int_equal(eng_gen_check(c, &z, NULL), 0);
	for (i = 0; i < c->events; i++) {
		assert_true(ev[i].clip < c->clips);
		assert_true(ev[i].frames >= z.min_frames);
		assert_true(ev[i].frames <= z.max_frames);
		assert_true(ev[i].src_in >= 0);
		assert_true(ev[i].src_in + ev[i].frames <= z.clip_frames);
		sum += ev[i].frames;
	}
	assert_int_equal(sum, frames);
}

/* Field by field: the struct has padding that memcmp would compare. */
static int same_plan(const struct eng_gen_event *a,
		     const struct eng_gen_event *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i].clip != b[i].clip || a[i].src_in != b[i].src_in ||
		    a[i].frames != b[i].frames)
			return 0;
	return 1;
}

static void test_plan_default(void **state)
{
	struct eng_gen_config c;
	struct eng_gen_event ev[21], again[21];
	int64_t frames, f2, lo = INT64_MAX, hi = 0;
	uint32_t i;

	(void)state;
	eng_gen_config_default(&c);
	for (i = 0; i < c.timelines; i++) {
		assert_int_equal(eng_gen_plan(&c, i, ev, &frames), 0);
		check_plan(&c, ev, frames);
		assert_int_equal(eng_gen_plan(&c, i, again, &f2), 0);
		assert_int_equal(frames, f2);
		assert_true(same_plan(ev, again, 21));
		if (frames < lo)
			lo = frames;
		if (frames > hi)
			hi = frames;
	}
	/* timelines are independent draws: lengths differ */
	assert_true(lo < hi);
	/* another seed, another plan */
	assert_int_equal(eng_gen_plan(&c, 0, again, &f2), 0);
	c.seed = 2;
	assert_int_equal(eng_gen_plan(&c, 0, ev, &frames), 0);
	assert_false(same_plan(ev, again, 21));
	/* and another timeline of the same seed too */
	assert_int_equal(eng_gen_plan(&c, 1, again, &f2), 0);
	assert_false(same_plan(ev, again, 21));
	assert_int_equal(eng_gen_plan(&c, c.timelines, ev, &frames), -EINVAL);
}

static void test_plan_bounds_reached(void **state)
{
	struct eng_gen_config c;
	struct eng_gen_event *ev;
	int seen_len[4] = { 0 }, seen_in0 = 0, seen_in_max = 0;
	int seen_clip[3] = { 0 };
	int64_t frames;
	uint32_t i;

	(void)state;
	rate_config(&c);
	/* 25 fps: 1 to 3 frames per event, clips of 5 frames */
	c.fps.num = 25;
	c.fps.den = 1;
	c.clips = 3;
	c.clip_us = 200000;
	c.min_us = 40000;
	c.max_us = 120000;
	c.events = 3000;
	ev = calloc(c.events, sizeof(*ev));
	assert_non_null(ev);
	assert_int_equal(eng_gen_plan(&c, 0, ev, &frames), 0);
	check_plan(&c, ev, frames);
	for (i = 0; i < c.events; i++) {
		seen_len[ev[i].frames]++;
		seen_clip[ev[i].clip]++;
		seen_in0 += ev[i].src_in == 0;
		seen_in_max += ev[i].src_in + ev[i].frames == 5;
	}
	assert_true(seen_len[1] && seen_len[2] && seen_len[3]);
	assert_true(seen_clip[0] && seen_clip[1] && seen_clip[2]);
	assert_true(seen_in0 && seen_in_max);
	free(ev);
}

/* ---------------------------------------------------------------- text */

static void check_text_parses(const struct eng_gen_config *c, uint32_t idx)
{
	struct eng_gen_event *ev = calloc(c->events, sizeof(*ev));
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	char *text = NULL, want[32];
	int64_t frames, rec = 0;
	size_t len, t, i;

	assert_non_null(ev);
	assert_int_equal(eng_gen_plan(c, idx, ev, &frames), 0);
	assert_int_equal(eng_gen_tl_text(c, idx, ev, &text, &len), 0);
	assert_int_equal(strlen(text), len);
	if (eng_tl_parse("gen.tl", "gen", text, len, &tl, &d) != 0)
		fail_msg("does not parse: %s\n%s", d.n ? d.msgs[0] : "?",
			 text);
	assert_int_equal(tl->fps.num, c->fps.num);
	assert_int_equal(tl->fps.den, c->fps.den);
	assert_int_equal(tl->ntracks, 1 + c->audio_tracks);
	assert_string_equal(tl->tracks[0].name, "V");
	assert_int_equal(tl->tracks[0].rate, c->video_rate);
	assert_int_equal(tl->tracks[0].pic.pix, c->pic.pix);
	assert_int_equal(tl->tracks[0].align,
			 c->pic.pix ? eng_picture_bytes(&c->pic) : 1);
	for (t = 1; t < tl->ntracks; t++) {
		snprintf(want, sizeof(want), "A%zu", t);
		assert_string_equal(tl->tracks[t].name, want);
		assert_int_equal(tl->tracks[t].rate, c->audio_rate);
		assert_int_equal(tl->tracks[t].align, 3);
	}
	assert_int_equal(tl->frames, frames);
	assert_int_equal(tl->bytes, eng_gen_timeline_bytes(c, frames));
	/* every event appended, on every track, in order */
	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *tr = &tl->tracks[t];

		assert_int_equal(tr->nsegs, c->events);
		for (i = 0, rec = 0; i < tr->nsegs; i++) {
			const struct eng_segment *s = &tr->segs[i];

			eng_gen_clip_name(ev[i].clip, want, sizeof(want));
			assert_string_equal(tl->clips[s->clip].name, want);
			assert_int_equal(s->rec_in, rec);
			assert_int_equal(s->src_in, ev[i].src_in);
			assert_int_equal(s->frames, ev[i].frames);
			rec += s->frames;
		}
	}
	eng_tl_free(tl);
	eng_diag_free(&d);
	free(text);
	free(ev);
}

static void test_text_parses(void **state)
{
	struct eng_gen_config c;

	(void)state;
	eng_gen_config_default(&c);
	check_text_parses(&c, 0);
	check_text_parses(&c, 14);
	rate_config(&c);
	check_text_parses(&c, 0);
	c.audio_tracks = 0;
	c.fps.num = 25;
	c.fps.den = 1;
	c.min_us = 500000;
	check_text_parses(&c, 3);
	c.audio_tracks = 8;
	c.events = 500;
	check_text_parses(&c, 1);
}

static void test_text_header(void **state)
{
	static const struct eng_gen_event ev[2] = {
		{ .clip = 6, .src_in = 123, .frames = 120 },
		{ .clip = 0, .src_in = 0, .frames = 90 },
	};
	struct eng_gen_config c;
	char *text;
	size_t len;

	(void)state;
	eng_gen_config_default(&c);
	c.events = 2;
	c.clip_us = 8500000;
	assert_int_equal(eng_gen_tl_text(&c, 2, ev, &text, &len), 0);
	assert_string_equal(text,
		"# generated by timelinefs-gen " ENG_GEN_VERSION ": timeline 3 "
		"of 15, 2 events, 210 frames\n"
		"# timelinefs-gen --seed 1 --clips 24 --clip-seconds 8.5 "
		"--timelines 15 --events 2 --min-seconds 3 --max-seconds 5 "
		"--fps 30000/1001 --format seed --audio-tracks 2 "
		"--audio-rate 144000\n"
		"fps 30000/1001\n"
		"track V 2vuy 640x480\n"
		"track A1 144000 align=3\n"
		"track A2 144000 align=3\n"
		"event V,A1,A2 clip0007 123 120\n"
		"event V,A1,A2 clip0001 0 90\n");
	free(text);
	c.clips = 0;
	assert_int_equal(eng_gen_tl_text(&c, 0, ev, &text, &len), -EINVAL);
}

/* ---------------------------------------------------------------- formats */

static void test_formats_table(void **state)
{
	const struct eng_gen_format *f;
	struct eng_gen_config c, d;
	struct eng_gen_sizes z;
	size_t i, j, n = 0;

	(void)state;
	f = eng_gen_formats(&n);
	assert_true(n >= 13);
	/* the first preset is the seed scenario: the defaults */
	eng_gen_config_default(&d);
	assert_string_equal(f[0].name, "seed");
	c = d;
	c.video_rate = 1;
	c.audio_tracks = 0;
	eng_gen_format_apply(&c, &f[0]);
	assert_memory_equal(&c, &d, sizeof(c));
	for (i = 0; i < n; i++) {
		assert_non_null(f[i].name);
		assert_true(strlen(f[i].summary) > 10);
		assert_true(strlen(f[i].source) > 10);
		/* 2 or more 48 kHz 24-bit tracks */
		assert_true(f[i].audio_tracks >= 2);
		assert_int_equal(f[i].audio_rate, 144000);
		for (j = i + 1; j < n; j++)
			assert_string_not_equal(f[i].name, f[j].name);
		assert_ptr_equal(eng_gen_format_find(f[i].name), &f[i]);
		/* every preset makes a valid config; only its four fields
		 * change */
		eng_gen_config_default(&c);
		c.clips = 3;
		c.seed = 99;
		eng_gen_format_apply(&c, &f[i]);
		assert_int_equal(c.clips, 3);
		assert_int_equal(c.seed, 99);
		assert_int_equal(c.fps.num, f[i].fps.num);
		assert_int_equal(c.video_rate, f[i].video_rate);
		assert_int_equal(eng_gen_check(&c, &z, NULL), 0);
		/* a preset with a picture: every frame exactly one, in the
		 * track line of its timelines too */
		if (f[i].pic.pix != ENG_PIX_NONE) {
			uint64_t fs = eng_picture_bytes(&f[i].pic);
			struct eng_gen_event ev = {0, 0, 10};
			char *text, want[64];
			size_t len;

			assert_int_equal(fs, f[i].frame_bytes);
			assert_int_equal(c.pic.pix, f[i].pic.pix);
			assert_int_equal(z.video_bytes, z.clip_frames * fs);
			assert_int_equal(eng_gen_timeline_bytes(&c, 1000) -
					 c.audio_tracks *
					 eng_upto_rate(c.audio_rate, 3, c.fps, 1000),
					 1000 * fs);
			c.events = 1;
			assert_int_equal(eng_gen_tl_text(&c, 0, &ev, &text, &len), 0);
			snprintf(want, sizeof(want), "\ntrack V %s %ux%u\n",
				 eng_pix_name(f[i].pic.pix), f[i].pic.width,
				 f[i].pic.height);
			assert_non_null(strstr(text, want));
			assert_non_null(strstr(text, " --format "));
			{
				struct eng_timeline *tl;
				struct eng_diag dg = {0};

				assert_int_equal(eng_tl_parse("g.tl", "g", text, len,
							      &tl, &dg), 0);
				assert_int_equal(tl->tracks[0].pic.pix, f[i].pic.pix);
				assert_int_equal(tl->bytes,
						 eng_gen_timeline_bytes(&c, 10));
				eng_tl_free(tl);
			}
			free(text);
			continue;
		}
		/* a fixed-size format reads one frame per frame, give or
		 * take the byte that the rounded-down rate loses */
		if (f[i].frame_bytes) {
			uint64_t one = eng_upto_rate(f[i].video_rate, 1,
						     f[i].fps, 1);
			uint64_t k = eng_upto_rate(f[i].video_rate, 1,
						   f[i].fps, 1000);

			assert_true(one == f[i].frame_bytes ||
				    one + 1 == f[i].frame_bytes);
			assert_true(k <= 1000 * f[i].frame_bytes &&
				    k + 1000 >= 1000 * f[i].frame_bytes);
		}
	}
}

static void test_format_rates(void **state)
{
	/* expected rates computed by hand from the sources: frame bytes
	 * x fps rounded down, or Mb/s / 8; rounded up for the presets with
	 * a picture (a picture track's rate, issue 20) */
	static const struct {
		const char *name;
		uint32_t num, den;
		uint64_t rate;
	} cases[] = {
		{ "sd-ntsc", 30000, 1001, 20974226 },	/* 720*486*2 */
		{ "sd-pal", 25, 1, 20736000 },		/* 720*576*2 */
		{ "v210-1080p29.97", 30000, 1001, 165722278 }, /* 5120*1080 */
		{ "v210-1080p25", 25, 1, 138240000 },
		{ "prores-hq-1080p29.97", 30000, 1001, 27500000 }, /* 220 */
		{ "prores-hq-1080p25", 25, 1, 23000000 },	     /* 184 */
		{ "prores-hq-uhd29.97", 30000, 1001, 110500000 },   /* 884 */
		{ "prores-hq-uhd25", 25, 1, 92125000 },	     /* 737 */
		{ "dnxhd-220x-1080p29.97", 30000, 1001, 27497622 },
		{ "dnxhd-185x-1080p25", 25, 1, 22937600 },
		{ "dnxhr-hqx-uhd29.97", 30000, 1001, 109131188 },
		{ "dnxhr-hqx-uhd25", 25, 1, 91033600 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct eng_gen_format *f =
		    eng_gen_format_find(cases[i].name);

		if (!f)
			fail_msg("no preset '%s'", cases[i].name);
		assert_int_equal(f->fps.num, cases[i].num);
		assert_int_equal(f->fps.den, cases[i].den);
		if (f->video_rate != cases[i].rate)
			fail_msg("%s: rate %llu, want %llu", cases[i].name,
				 (unsigned long long)f->video_rate,
				 (unsigned long long)cases[i].rate);
	}
	/* the SD preset is the "about 21 MB/s" of uncompressed 8-bit SD */
	assert_true(eng_gen_format_find("sd-ntsc")->video_rate / 1000000 == 20);
}

static void test_format_find_unknown(void **state)
{
	(void)state;
	assert_null(eng_gen_format_find("nope"));
	assert_null(eng_gen_format_find(""));
	assert_null(eng_gen_format_find(NULL));
	assert_null(eng_gen_format_find("SEED"));	/* case-sensitive */
	assert_null(eng_gen_format_find("list"));	/* the CLI's keyword */
}

/* ---------------------------------------------------------------- --for */

static struct eng_timeline *parse_tl_text(const char *name, const char *text)
{
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };
	size_t i;

	if (eng_tl_parse(name, name, text, strlen(text), &tl, &d) < 0)
		for (i = 0; i < d.n; i++)
			print_error("%s\n", d.msgs[i]);
	eng_diag_free(&d);
	assert_non_null(tl);
	return tl;
}

static const struct eng_gen_media *find_media(const struct eng_gen_media_plan *p,
					      const char *file)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (strcmp(p->files[i].file, file) == 0)
			return &p->files[i];
	fail_msg("no %s in the plan", file);
	return NULL;
}

/* Write the plan's files into dir the way timelinefs-gen --for does (the
 * essence length only matters here), minus `short_by` bytes for `file`. */
static void write_plan(const char *dir, const struct eng_gen_media_plan *p,
		       const char *file, uint64_t short_by)
{
	unsigned char hdr[ENG_GEN_WAV_HEADER];
	char path[512];
	size_t i;

	for (i = 0; i < p->n; i++) {
		const struct eng_gen_media *m = &p->files[i];
		uint64_t size = eng_gen_media_file_bytes(m);
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, m->file);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		assert_true(fd >= 0);
		if (m->wav) {
			eng_wav_header(hdr, m->sample_rate, m->bits, m->bytes);
			assert_int_equal(write(fd, hdr, sizeof(hdr)),
					 (ssize_t)sizeof(hdr));
		}
		if (file && strcmp(file, m->file) == 0)
			size -= short_by + (m->wav ? m->bytes & 1 : 0);
		assert_int_equal(ftruncate(fd, (off_t)size), 0);
		close(fd);
	}
}

static int resolves(struct eng_timeline *tl, const char *dir)
{
	struct eng_diag d = { 0 };
	int fd = open(dir, O_RDONLY | O_DIRECTORY), rc;

	assert_true(fd >= 0);
	rc = eng_media_resolve(tl, fd, dir, &d);
	close(fd);
	eng_diag_free(&d);
	return rc;
}

/* Two timelines sharing clips: one file per (clip, track), as long as the
 * most any segment of either needs, by the rule the mount checks with:
 * exactly long enough resolves, one byte less does not. */
static void test_media_plan(void **state)
{
	static const char one[] =
		"fps 30000/1001\n"
		"track V 18000000\n"
		"track A1 144000 align=3\n"
		"track A1x 144000 align=3\n"
		"track A9 900000 align=10000\n"	/* too wide for WAVE */
		"event V,A1 a 10 5\n"		/* V: 15 frames of 600600 */
		"event A1x b 0 1 @2\n"
		"event A9 a 0 3 @0\n"
		"event V b 3 2 @1\n";		/* overlaps a */
	static const char two[] =
		"fps 25\n"
		"track V 18000000\n"
		"track A1 144000 align=3\n"
		"event A1 a 0 1\n"		/* needs less than in one */
		"event V b 100 1 @4\n";		/* needs more than in one */
	struct eng_timeline *t1 = parse_tl_text("one.tl", one);
	struct eng_timeline *t2 = parse_tl_text("two.tl", two);
	struct eng_gen_media_plan p = { 0 };
	struct eng_diag d = { 0 };
	const struct eng_gen_media *m;
	char dir[] = "/tmp/test_genplan.XXXXXX", cmd[64];
	uint64_t need;
	size_t i;

	(void)state;
	assert_int_equal(eng_gen_media_add(&p, t1, 7, &d), 0);
	assert_int_equal(eng_gen_media_add(&p, t2, 7, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(p.n, 5);
	m = find_media(&p, "a.V.raw");
	assert_false(m->wav);
	assert_int_equal(m->bytes, 15 * 600600);
	assert_int_equal(m->seed, eng_gen_media_seed(7, "a", "V"));
	m = find_media(&p, "a.A1.wav");
	assert_true(m->wav);
	assert_int_equal(m->sample_rate, 48000);
	assert_int_equal(m->bits, 24);
	/* upto(k) = floor(k * 1601.6) * 3 at 29.97: source frames 10..14
	 * end at upto(15) = 72072 */
	assert_int_equal(m->bytes, 72072);
	assert_int_equal(eng_gen_media_file_bytes(m), 44 + 72072);
	/* the transition track A1x reads A1's file: b.A1.wav */
	m = find_media(&p, "b.A1.wav");
	/* one frame at timeline frame 2: offset upto(0), length
	 * upto(3) - upto(2) = 14412 - 9609 */
	assert_int_equal(m->bytes, 4803);
	m = find_media(&p, "a.A9.raw");
	assert_false(m->wav);
	/* 900000 B/s of 10000-byte units at 29.97: 3.003 units a frame */
	assert_int_equal(m->bytes, 90000);
	/* b on V: 5 frames of 600600 in one, frame 100 at 25 fps in two */
	m = find_media(&p, "b.V.raw");
	assert_int_equal(m->bytes, 101 * 720000);
	find_media(&p, "a.V.raw");
	for (i = 0; i < p.n; i++)
		assert_true(p.files[i].seed ==
			    eng_gen_media_seed(7, p.files[i].clip,
					       p.files[i].track));
	/* the same helper as the mount */
	assert_int_equal(eng_segment_bytes_needed(t2, 0, &t2->tracks[0].segs[0],
						  &need), 0);
	assert_int_equal(need, 101 * 720000);

	assert_non_null(mkdtemp(dir));
	write_plan(dir, &p, NULL, 0);
	assert_int_equal(resolves(t1, dir), 0);
	assert_int_equal(resolves(t2, dir), 0);
	for (i = 0; i < p.n; i++) {
		write_plan(dir, &p, p.files[i].file, 1);
		if (resolves(t1, dir) == 0 && resolves(t2, dir) == 0)
			fail_msg("%s one byte short still resolves",
				 p.files[i].file);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	eng_gen_media_free(&p);
	assert_int_equal(p.n, 0);
	eng_tl_free(t1);
	eng_tl_free(t2);
	eng_diag_free(&d);
}

static void test_media_seed(void **state)
{
	(void)state;
	/* FNV-1a-64 of "a" and of "V" */
	assert_true(eng_gen_media_seed(1, "a", "V") ==
		    eng_rng_derive(1, 0xaf63dc4c8601ec8cULL,
				   0xaf640b4c86023c69ULL));
	assert_true(eng_gen_media_seed(1, "a", "V") !=
		    eng_gen_media_seed(2, "a", "V"));
	assert_true(eng_gen_media_seed(1, "a", "V") !=
		    eng_gen_media_seed(1, "b", "V"));
	assert_true(eng_gen_media_seed(1, "a", "V") !=
		    eng_gen_media_seed(1, "a", "A1"));
	assert_true(eng_gen_track_is_audio("A1x"));
	assert_true(eng_gen_track_is_audio("A12"));
	assert_false(eng_gen_track_is_audio("V"));
	assert_false(eng_gen_track_is_audio("Vx"));
	assert_false(eng_gen_track_is_audio("V2"));
}

/* A source frame so far on that its bytes pass 2^64: one message. */
static void test_media_too_big(void **state)
{
	static const char text[] =
		"fps 1\n"
		"track V 1T\n"
		"event V huge 2000000000000000000 1\n"
		"event V huge 2000000000000000000 2\n"
		"event V ok 0 1\n";
	struct eng_timeline *tl = parse_tl_text("big.tl", text);
	struct eng_gen_media_plan p = { 0 };
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(eng_gen_media_add(&p, tl, 1, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "big.tl:3: clip huge track V"));
	assert_non_null(strstr(d.msgs[0], "2^64"));
	assert_int_equal(find_media(&p, "ok.V.raw")->bytes, 1000000000000ULL);
	eng_gen_media_free(&p);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* A recorded clip (.tl record) is no file of the plan: the mount records
 * it into MEDIA_DIR/ingest, where --for would not write, and a file in
 * MEDIA_DIR is not it.  Before, cam1.V.raw was planned. */
static void test_media_record(void **state)
{
	static const char text[] =
		"fps 25\n"
		"track V 1000\n"
		"record cam1\n"
		"event V cam1 0 10\n"
		"event V ok 0 1\n";
	struct eng_timeline *tl = parse_tl_text("rec.tl", text);
	struct eng_gen_media_plan p = { 0 };
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(eng_gen_media_add(&p, tl, 1, &d), 0);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.files[0].file, "ok.V.raw");
	eng_gen_media_free(&p);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* eng_segment_bytes_needed against the rule itself, frame by frame, on
 * random tracks: above and below one sample unit per frame (where the
 * answer is found in closed form, not by walking). */
static void test_bytes_needed_brute(void **state)
{
	static const struct eng_fps rates[] = {
		{ 25, 1 }, { 30000, 1001 }, { 24000, 1001 }, { 1, 1 }, { 7, 3 },
	};
	uint64_t x = 99;
	unsigned n;

	(void)state;
	for (n = 0; n < 4000; n++) {
		struct eng_timeline *tl = eng_tl_new("b", "b.tl");
		struct eng_diag d = { 0 };
		const struct eng_segment *s;
		uint64_t need, want = 0, rate, v;
		uint32_t align;
		int64_t k;

		assert_non_null(tl);
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		v = x >> 11;
		tl->fps = rates[v % 5];
		/* rates from far below one unit a frame to many units */
		rate = n % 2 ? 1 + (v >> 3) % 40 : 1 + (v >> 3) % 5000;
		align = 1 + (uint32_t)((v >> 20) % 7);
		assert_int_equal(eng_tl_add_track(tl, "A1", rate, align), 0);
		assert_int_equal(eng_tl_clip(tl, "c", 1), 0);
		assert_int_equal(eng_tl_add_segment(tl, 0, 0,
						    (int64_t)((v >> 24) % 200),
						    (int64_t)((v >> 32) % 200),
						    1 + (int64_t)((v >> 40) % 300),
						    1),
				 0);
		assert_int_equal(eng_tl_finalize(tl, &d), 0);
		s = &tl->tracks[0].segs[0];
		for (k = 0; k < s->frames; k++) {
			uint64_t e = eng_upto(tl, 0, s->src_in + k) +
				     eng_upto(tl, 0, s->rec_in + k + 1) -
				     eng_upto(tl, 0, s->rec_in + k);

			if (e > want)
				want = e;
		}
		assert_int_equal(eng_segment_bytes_needed(tl, 0, s, &need), 0);
		if (need != want)
			fail_msg("case %u: rate %llu align %u fps %u/%u src %lld rec %lld frames %lld: %llu, want %llu",
				 n, (unsigned long long)rate, align,
				 tl->fps.num, tl->fps.den, (long long)s->src_in,
				 (long long)s->rec_in, (long long)s->frames,
				 (unsigned long long)need,
				 (unsigned long long)want);
		eng_tl_free(tl);
		eng_diag_free(&d);
	}
}

/*
 * Regression: below one sample unit per frame the need was found by
 * walking back frame by frame to the last frame with a unit, which for
 * 1 B/s in 1 GB units is 10^9 frames: timelinefs-gen --for (and a mount
 * with the file present) hung.  Now it is closed form.
 */
static void test_bytes_needed_sparse_fast(void **state)
{
	static const char text[] =
		"fps 1\n"
		"track V 1 align=1000000000\n"
		"event V a 0 999999999\n"
		"event V a 5 1000000000 @1000000000\n";
	struct eng_timeline *tl = parse_tl_text("s.tl", text);
	uint64_t need;

	(void)state;
	/* frames 0 .. 999999998: no unit at all */
	assert_int_equal(eng_segment_bytes_needed(tl, 0,
						  &tl->tracks[0].segs[0],
						  &need), 0);
	assert_int_equal(need, 0);
	/* the unit of the last frame, 1999999999 (src 1000000004):
	 * upto(src) = 10^9, len = 10^9 */
	assert_int_equal(eng_segment_bytes_needed(tl, 0,
						  &tl->tracks[0].segs[1],
						  &need), 0);
	assert_true(need == 2000000000ULL);
	eng_tl_free(tl);
}

static struct eng_timeline *parse_edl_1m(const char *name, const char *text)
{
	struct eng_load_options o;
	struct eng_timeline *tl = NULL;
	struct eng_diag d = { 0 };

	eng_load_options_default(&o);
	o.video_rate = 1000000;
	assert_int_equal(eng_edl_parse(name, name, text, strlen(text), &o, &tl,
				       &d), 0);
	eng_diag_free(&d);
	return tl;
}

/*
 * Regression: timelinefs-gen --video-rate 1M --for one.edl m, then --for
 * two.edl m (the same clip, 10 frames instead of 60) rewrote A001.V.raw
 * to 333666 bytes, and the mount refused one.edl: "needs 2002000 bytes of
 * essence, has 333666".  The timelines already in DIR/timelines widen the
 * files the new ones share with them (2002000), and leave the others out.
 */
static void test_media_widen(void **state)
{
	static const char one[] =
		"001  A001 V C 01:00:00:00 01:00:02:00 01:00:00:00 01:00:02:00\n"
		"002  B001 V C 01:00:00:00 01:00:00:05 01:00:02:00 01:00:02:05\n";
	static const char two[] =
		"001  A001 V C 01:00:00:00 01:00:00:10 01:00:00:00 01:00:00:10\n";
	struct eng_timeline *t1 = parse_edl_1m("one.edl", one);
	struct eng_timeline *t2 = parse_edl_1m("two.edl", two);
	struct eng_gen_media_plan p = { 0 };
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(eng_gen_media_add(&p, t2, 1, &d), 0);
	assert_int_equal(p.n, 1);
	assert_true(p.files[0].bytes == 333666);
	assert_int_equal(eng_gen_media_widen(&p, t1, &d), 1);
	assert_int_equal(p.n, 1);	/* B001: not for two.edl to write */
	assert_string_equal(p.files[0].file, "A001.V.raw");
	assert_true(p.files[0].bytes == 2002000);
	/* a timeline that shares nothing changes nothing */
	eng_tl_free(t1);
	t1 = parse_edl_1m("b.edl", "001  B001 V C 00:00:00:00 00:00:09:00 "
				   "00:00:00:00 00:00:09:00\n");
	assert_int_equal(eng_gen_media_widen(&p, t1, &d), 0);
	assert_int_equal(p.n, 1);
	assert_true(p.files[0].bytes == 2002000);
	assert_int_equal(d.n, 0);
	eng_gen_media_free(&p);
	eng_tl_free(t1);
	eng_tl_free(t2);
	eng_diag_free(&d);
}

/* A file already there is never written shorter (its essence counts,
 * after a WAVE header, bounded by the file); a WAVE file of another format
 * is refused with a reason rather than rewritten. */
static void test_media_existing(void **state)
{
	static const char text[] =
		"fps 25\ntrack V 1000\ntrack A1 4800 align=3\n"
		"event V,A1 c 0 10\n";
	struct eng_timeline *tl = parse_tl_text("x.tl", text);
	struct eng_gen_media_plan p = { 0 };
	struct eng_diag d = { 0 };
	struct eng_gen_media *v, *a, save;
	unsigned char head[ENG_GEN_WAV_HEADER + 16];
	char why[256];

	(void)state;
	assert_int_equal(eng_gen_media_add(&p, tl, 1, &d), 0);
	v = &p.files[0];
	a = &p.files[1];
	assert_string_equal(v->file, "c.V.raw");
	assert_string_equal(a->file, "c.A1.wav");
	assert_true(v->bytes == 400 && a->bytes == 1920);

	/* raw: its size is its essence */
	assert_int_equal(eng_gen_media_existing(v, NULL, 0, 100, why,
						sizeof(why)), 0);
	assert_true(v->bytes == 400 && v->had == 100);
	assert_int_equal(eng_gen_media_existing(v, NULL, 0, 5000, why,
						sizeof(why)), 0);
	assert_true(v->bytes == 5000 && v->had == 5000);

	/* WAVE of our format: the data chunk, bounded by the file */
	eng_wav_header(head, 1600, 24, 3000);
	assert_int_equal(eng_gen_media_existing(a, head, sizeof(head),
						ENG_GEN_WAV_HEADER + 3000,
						why, sizeof(why)), 0);
	assert_true(a->bytes == 3000 && a->had == 3000);
	eng_wav_header(head, 1600, 24, 9000);	/* the file is shorter */
	assert_int_equal(eng_gen_media_existing(a, head, sizeof(head),
						ENG_GEN_WAV_HEADER + 6000,
						why, sizeof(why)), 0);
	assert_true(a->bytes == 6000 && a->had == 6000);

	/* another rate: refused, m unchanged */
	save = *a;
	eng_wav_header(head, 48000, 24, 300000);
	assert_int_equal(eng_gen_media_existing(a, head, sizeof(head),
						ENG_GEN_WAV_HEADER + 300000,
						why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is a WAVE file of 48000 Hz 24-bit mono, "
			    "not the 1600 Hz 24-bit mono PCM these timelines "
			    "need");
	/* stereo, not PCM (WAVE_FORMAT_EXTENSIBLE) */
	eng_wav_header(head, 1600, 24, 3000);
	head[20] = 0xfe;
	head[21] = 0xff;
	head[22] = 2;
	assert_int_equal(eng_gen_media_existing(a, head, sizeof(head),
						ENG_GEN_WAV_HEADER + 3000,
						why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "is a WAVE file of 1600 Hz 24-bit 2 channels "
			    "(format 0xfffe, not PCM), not the 1600 Hz 24-bit "
			    "mono PCM these timelines need");
	assert_true(a->bytes == save.bytes && a->had == save.had);
	/* not a WAVE file at all */
	memset(head, 'x', sizeof(head));
	assert_int_equal(eng_gen_media_existing(a, head, sizeof(head), 60000,
						why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "is not a RIFF/WAVE file"));
	assert_true(a->bytes == save.bytes);
	eng_gen_media_free(&p);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* --for and the mount load a timeline with the same options: *def, with
 * the rate of a PATH.fps sidecar when there is one. */
static void test_load_options_for(void **state)
{
	char dir[] = "/tmp/test_genplan.XXXXXX", path[64], side[80], cmd[64];
	struct eng_load_options def, o;
	struct eng_diag d = { 0 };
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.edl", dir);
	snprintf(side, sizeof(side), "%s.fps", path);
	eng_load_options_default(&def);
	def.video_rate = 1234;
	assert_int_equal(eng_load_options_for(path, &def, &o, NULL, &d, NULL), 0);
	assert_int_equal(o.fps.num, 30000);
	assert_int_equal(o.video_rate, 1234);
	f = fopen(side, "w");
	assert_non_null(f);
	fputs("25 # PAL\n", f);
	fclose(f);
	assert_int_equal(eng_load_options_for(path, &def, &o, NULL, &d, NULL), 0);
	assert_int_equal(o.fps.num, 25);
	assert_int_equal(o.fps.den, 1);
	assert_int_equal(o.video_rate, 1234);
	assert_int_equal(d.n, 0);
	f = fopen(side, "w");
	assert_non_null(f);
	fputs("fast\n", f);
	fclose(f);
	assert_int_equal(eng_load_options_for(path, &def, &o, NULL, &d, NULL), -EINVAL);
	assert_int_equal(o.fps.num, 30000);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "x.edl.fps:1: bad frame rate 'fast'"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	eng_diag_free(&d);
}

/*
 * Regression: a sidecar " 23.976" (a leading blank) was refused as
 * "side.edl.fps:1: bad frame rate ''", the value cut at its first blank.
 * Blanks, line ends and a UTF-8 BOM around the rate are skipped; a bad
 * value is quoted as found, on its line; the rate as written comes back
 * for --for to copy (one reading for the mount and the generator).
 */
static void test_sidecar_blanks(void **state)
{
	static const struct {
		const char *text;
		int rc;
		uint32_t num, den;
		const char *word;	/* as returned, or the message */
	} cases[] = {
		{ " 23.976", 0, 24000, 1001, "23.976" },
		{ "\t25\r\n", 0, 25, 1, "25" },
		{ "\xEF\xBB\xBF" "24000/1001\n", 0, 24000, 1001, "24000/1001" },
		{ "\xEF\xBB\xBF 30 # NTSC-ish\n", 0, 30, 1, "30" },
		{ "\n\n 25fps\n", -EINVAL, 0, 0,
		  "s.edl.fps:3: bad frame rate '25fps'" },
		{ " \n", -EINVAL, 0, 0, "s.edl.fps:1: no frame rate" },
		{ "\x1b[2J", -EINVAL, 0, 0, "bad frame rate '\\x1b[2J'" },
	};
	char dir[] = "/tmp/test_genplan.XXXXXX", path[64], side[80], cmd[64];
	struct eng_load_options def, o;
	struct eng_diag d = { 0 };
	char *word;
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s.edl", dir);
	snprintf(side, sizeof(side), "%s.fps", path);
	eng_load_options_default(&def);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fopen(side, "w");

		word = (char *)"x";

		assert_non_null(f);
		fputs(cases[i].text, f);
		fclose(f);
		assert_int_equal(eng_load_options_for(path, &def, &o, &word,
						      &d, NULL),
				 cases[i].rc);
		if (cases[i].rc == 0) {
			assert_int_equal(d.n, 0);
			assert_int_equal(o.fps.num, cases[i].num);
			assert_int_equal(o.fps.den, cases[i].den);
			assert_string_equal(word, cases[i].word);
			free(word);
		} else {
			assert_null(word);
			assert_int_equal(d.n, 1);
			if (!strstr(d.msgs[0], cases[i].word))
				fail_msg("case %zu: '%s'", i, d.msgs[0]);
		}
		eng_diag_free(&d);
	}
	/* no sidecar: no word, the defaults */
	unlink(side);
	word = (char *)"x";
	assert_int_equal(eng_load_options_for(path, &def, &o, &word, &d, NULL), 0);
	assert_null(word);
	assert_int_equal(o.fps.num, 30000);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	eng_diag_free(&d);
}

/*
 * Regression (issue 17, defect 2): the sidecar of "REEL1.EDL" is
 * REEL1.EDL.fps or REEL1.EDL.FPS (".fps" in any case, as the timeline's
 * own extension is read); REEL1.EDL.FPS was ignored.  Two of them are an
 * error naming both, not a rate chosen by spelling.
 */
static void test_sidecar_any_case(void **state)
{
	char dir[] = "/tmp/test_genplan.XXXXXX", path[64], up[80], low[80];
	char cmd[64];
	struct eng_load_options def, o;
	struct eng_diag d = { 0 };
	char *word = NULL;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/REEL1.EDL", dir);
	snprintf(up, sizeof(up), "%s.FPS", path);
	snprintf(low, sizeof(low), "%s.fps", path);
	eng_load_options_default(&def);

	f = fopen(up, "w");
	assert_non_null(f);
	fputs("25\n", f);
	fclose(f);
	assert_int_equal(eng_load_options_for(path, &def, &o, &word, &d, NULL),
			 0);
	assert_int_equal(o.fps.num, 25);
	assert_int_equal(o.fps.den, 1);
	assert_string_equal(word, "25");
	free(word);
	assert_int_equal(d.n, 0);

	/* both spellings: which one wins would be up to the spelling */
	f = fopen(low, "w");
	assert_non_null(f);
	fputs("24\n", f);
	fclose(f);
	assert_int_equal(eng_load_options_for(path, &def, &o, NULL, &d, NULL),
			 -EINVAL);
	assert_int_equal(o.fps.num, 30000);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "two frame-rate sidecars"));
	assert_non_null(strstr(d.msgs[0], "REEL1.EDL.fps"));
	assert_non_null(strstr(d.msgs[0], "REEL1.EDL.FPS"));
	eng_diag_free(&d);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/*
 * Regression (issue 17, defect 3): a FIFO sidecar x.edl.fps hung the load
 * of x.edl (opened blocking, waiting for a writer), so the mount never
 * started.  It is skipped with a note naming it, and x.edl takes the
 * default rate.  alarm() turns the old hang into a failure.
 */
static void test_sidecar_fifo(void **state)
{
	char dir[] = "/tmp/test_genplan.XXXXXX", path[64], side[80], cmd[64];
	struct eng_load_options def, o;
	struct eng_diag d = { 0 }, notes = { 0 };
	char *word = (char *)"x";

	(void)state;
	alarm(10);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/x.edl", dir);
	snprintf(side, sizeof(side), "%s.fps", path);
	eng_load_options_default(&def);
	assert_int_equal(mkfifo(side, 0644), 0);
	assert_int_equal(eng_load_options_for(path, &def, &o, &word, &d,
					      &notes), 0);
	assert_null(word);
	assert_int_equal(o.fps.num, 30000);
	assert_int_equal(d.n, 0);
	assert_int_equal(notes.n, 1);
	assert_non_null(strstr(notes.msgs[0], side));
	assert_non_null(strstr(notes.msgs[0], "skipped: a FIFO"));
	eng_diag_free(&notes);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	alarm(0);
}

/* ---------------------------------------------------------------- pictures */

static const unsigned char seg_digits[10] = {
	0x3f, 0x06, 0x5b, 0x4f, 0x66, 0x6d, 0x7d, 0x07, 0x7f, 0x6f,
};

/* Read glyph j of line i the way a person does: which of its 7 segments
 * are lit, sampled at each segment's middle.  A digit, 'C', 'F', or '?'. */
static char read_glyph(const struct eng_picture *p,
		       const struct eng_pic_layout *l, const unsigned char *in,
		       int i, uint32_t j)
{
	uint32_t x = l->text_x + j * (l->glyph_w + l->stroke_w);
	uint32_t y = l->line_y[i], w = l->glyph_w, h = l->glyph_h;
	uint32_t sx = l->stroke_w / 2, sy = l->stroke_h / 2;
	/* a, b, c, d, e, f, g */
	const uint32_t gx[7] = {x + w / 2, x + w - 1 - sx, x + w - 1 - sx,
				x + w / 2, x + sx, x + sx, x + w / 2};
	const uint32_t gy[7] = {y + sy, y + h / 4, y + 3 * h / 4,
				y + h - 1 - sy, y + 3 * h / 4, y + h / 4,
				y + h / 2};
	unsigned segs = 0, k;

	for (k = 0; k < 7; k++) {
		int v = eng_pic_light(p, in, gx[k], gy[k]);

		if (v < 0)
			return '?';
		segs |= (unsigned)v << k;
	}
	for (k = 0; k < 10; k++)
		if (segs == seg_digits[k])
			return (char)('0' + k);
	return segs == 0x39 ? 'C' : segs == 0x71 ? 'F' : '?';
}

static void read_line(const struct eng_picture *p,
		      const struct eng_pic_layout *l, const unsigned char *in,
		      int i, char *out)
{
	uint32_t j, n = i ? 7 : 6;

	for (j = 0; j < n; j++)
		out[j] = read_glyph(p, l, in, i, j);
	out[n] = '\0';
}

/* The group of the bar's band that is light: where the bar is. */
static uint32_t bar_at(const struct eng_picture *p,
		       const struct eng_pic_layout *l, const unsigned char *in)
{
	uint32_t g, y = l->bar_y + l->bar_h / 2;

	for (g = 0; g < l->groups; g++)
		if (eng_pic_light(p, in, g, y) == 1)
			return g;
	return UINT32_MAX;
}

static void test_picture_read_back(void **state)
{
	static const struct {
		uint32_t pix, w, h;
	} pics[] = {
		{ ENG_PIX_2VUY, 640, 480 },	/* the seed */
		{ ENG_PIX_2VUY, 720, 486 },
		{ ENG_PIX_V210, 1920, 1080 },
		{ ENG_PIX_V210, 720, 486 },
		{ ENG_PIX_2VUY, 192, 96 },	/* the smallest with text */
		{ ENG_PIX_V210, 1280, 720 },	/* rows padded to 48 pixels */
	};
	static const struct {
		uint32_t clip;
		uint64_t frame;
		const char *c, *f;
	} cases[] = {
		{ 7, 0, "C00007", "F000000" },
		{ 65535, 123456, "C65535", "F123456" },
		{ 1, 999999, "C00001", "F999999" },
		/* past 2^24 the code wraps, past 10^6 the digits do */
		{ 42, (1u << 24) + 5, "C00042", "F777221" },
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(pics) / sizeof(pics[0]); i++) {
		struct eng_picture p = { pics[i].pix, pics[i].w, pics[i].h };
		struct eng_pic_layout l;
		uint64_t fs = eng_picture_bytes(&p);
		unsigned char *a = malloc(fs), *b = malloc(fs);
		uint32_t clip, frame, bar;
		char line[8];

		assert_non_null(a);
		assert_non_null(b);
		eng_pic_layout(&p, &l);
		assert_true(l.ok);
		/* digits at least an eighth of the height */
		assert_true(l.glyph_h * 8 >= p.height);
		for (j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
			eng_pic_render(&p, &l, 99, cases[j].clip,
				       cases[j].frame, a);
			assert_int_equal(eng_pic_decode(&p, &l, a, &clip,
							&frame), 0);
			assert_int_equal(clip, cases[j].clip);
			assert_int_equal(frame, cases[j].frame & 0xffffff);
			read_line(&p, &l, a, 0, line);
			assert_string_equal(line, cases[j].c);
			read_line(&p, &l, a, 1, line);
			assert_string_equal(line, cases[j].f);
			/* the bar moves one step a frame */
			bar = bar_at(&p, &l, a);
			assert_int_equal(bar, cases[j].frame % l.bar_steps *
						      l.bar_w);
			eng_pic_render(&p, &l, 99, cases[j].clip,
				       cases[j].frame + 1, b);
			assert_int_equal(bar_at(&p, &l, b),
					 (cases[j].frame + 1) % l.bar_steps *
					     l.bar_w);
			assert_memory_not_equal(a, b, fs);
		}
		/* the same frame again: the same bytes; another seed: the
		 * same code on other noise */
		eng_pic_render(&p, &l, 99, 3, 10, a);
		eng_pic_render(&p, &l, 99, 3, 10, b);
		assert_memory_equal(a, b, fs);
		eng_pic_render(&p, &l, 100, 3, 10, b);
		assert_memory_not_equal(a, b, fs);
		assert_int_equal(eng_pic_decode(&p, &l, b, &clip, &frame), 0);
		assert_int_equal(clip, 3);
		assert_int_equal(frame, 10);
		if (p.pix == ENG_PIX_V210) {
			uint64_t k;

			for (k = 3; k < fs; k += 4)
				if (a[k] & 0xc0)
					fail_msg("v210 word %llu has its top "
						 "bits set",
						 (unsigned long long)k / 4);
		}
		free(a);
		free(b);
	}
}

/* A gap of the movie is a black picture (mov.c's: 2vuy 80 10, v210's
 * black words): -ENODATA; noise and a damaged code: -EINVAL. */
static void test_picture_black_and_bad(void **state)
{
	struct eng_picture p2 = { ENG_PIX_2VUY, 640, 480 };
	struct eng_picture pv = { ENG_PIX_V210, 720, 486 };
	struct eng_pic_layout l2, lv;
	uint64_t fs2 = eng_picture_bytes(&p2), fsv = eng_picture_bytes(&pv);
	unsigned char *a = malloc(fs2), *v = malloc(fsv);
	uint32_t clip, frame, y, g;
	struct eng_rng r;
	uint64_t k;

	(void)state;
	assert_non_null(a);
	assert_non_null(v);
	eng_pic_layout(&p2, &l2);
	eng_pic_layout(&pv, &lv);
	for (k = 0; k < fs2; k += 2) {
		a[k] = 0x80;
		a[k + 1] = 0x10;
	}
	assert_int_equal(eng_pic_decode(&p2, &l2, a, &clip, &frame), -ENODATA);
	for (k = 0; k < fsv; k += 16) {
		/* Cb Y Cr | Y Cb Y | Cr Y Cb | Y Cr Y at 512 / 64 */
		uint32_t w[4] = {
			0x200 | 0x40 << 10 | 0x200u << 20,
			0x40 | 0x200 << 10 | 0x40u << 20,
			0x200 | 0x40 << 10 | 0x200u << 20,
			0x40 | 0x200 << 10 | 0x40u << 20,
		};
		int j;

		for (j = 0; j < 4; j++) {
			v[k + 4 * j] = w[j] & 0xff;
			v[k + 4 * j + 1] = (w[j] >> 8) & 0xff;
			v[k + 4 * j + 2] = (w[j] >> 16) & 0xff;
			v[k + 4 * j + 3] = (w[j] >> 24) & 0xff;
		}
	}
	assert_int_equal(eng_pic_decode(&pv, &lv, v, &clip, &frame), -ENODATA);
	/* today's random bytes are no frame */
	eng_rng_seed(&r, 5);
	eng_rng_fill(&r, a, fs2);
	assert_int_equal(eng_pic_decode(&p2, &l2, a, &clip, &frame), -EINVAL);
	/* a frame whose code lost one cell (turned black) is refused:
	 * the check catches what the magic does not */
	eng_pic_render(&p2, &l2, 1, 12, 345, a);
	assert_int_equal(eng_pic_decode(&p2, &l2, a, &clip, &frame), 0);
	for (g = 0; g < 64; g++) {
		uint32_t r0 = g / 32, c = g % 32;
		int bit = (int)(eng_pic_code(12, 345) >> (63 - g)) & 1;

		if (!bit || g < 8)
			continue;
		for (y = r0 * l2.cell_h; y < (r0 + 1) * l2.cell_h; y++)
			for (k = 0; k < l2.cell_w * 12u; k += 2)
				a[y * 1280 + (l2.code_x + c * l2.cell_w) * 12 +
				  k + 1] = 0x10;
		assert_int_equal(eng_pic_decode(&p2, &l2, a, &clip, &frame),
				 -EINVAL);
		break;
	}
	/* too small for the overlay: noise only, and no code */
	{
		struct eng_picture t = { ENG_PIX_2VUY, 186, 96 };
		struct eng_pic_layout lt;

		eng_pic_layout(&t, &lt);
		assert_false(lt.ok);
		eng_pic_render(&t, &lt, 1, 1, 1, a);
		assert_int_equal(eng_pic_decode(&t, &lt, a, &clip, &frame),
				 -EINVAL);
	}
	free(a);
	free(v);
}

static void test_picture_clip_id(void **state)
{
	(void)state;
	assert_int_equal(eng_pic_clip_id("clip0007"), 7);
	assert_int_equal(eng_pic_clip_id("clip65535"), 65535);
	/* known answers of tests/tools/tlcode.py clipid (FNV-1a folded) */
	assert_int_equal(eng_pic_clip_id("clip65536"), 45246);
	assert_int_equal(eng_pic_clip_id("A001C003"), 37981);
	assert_true(eng_pic_clip_id("clip") < 65536);
	assert_true(eng_pic_code(7, 123456) == 0xa5000701e2401388ULL);
}

static void test_tone(void **state)
{
	/* known answers of tests/tools/tlcode.py, an independent reading
	 * of docs/formats.md */
	static const struct {
		uint64_t seed;
		uint32_t clip, rate;
		uint64_t i;
		int32_t v;
	} cases[] = {
		{ 1, 7, 48000, 0, 3265 },
		{ 1, 7, 48000, 1, 130151 },
		{ 1, 7, 48000, 12345, 818706 },
		{ 0xdeadbeef, 65535, 44100, 1000000000, 1941858 },
		{ 1, 3, 48000, 1200, -1573845 },
	};
	unsigned char buf[3 * 4800];
	int64_t crossings = 0;
	int32_t prev = 0;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(eng_tone_sample(cases[i].seed, cases[i].clip,
						 cases[i].rate, cases[i].i),
				 cases[i].v);
	/* 0.1 s of clip 7 (375 Hz): 37.5 rising zero crossings of the tone,
	 * within 24 bits; render = sample, little-endian */
	eng_tone_render(1, 7, 48000, 0, 4800, buf);
	assert_int_equal(eng_tone_hz(7), 375);
	for (i = 0; i < 4800; i++) {
		int32_t v = (int32_t)((uint32_t)buf[3 * i] |
				      (uint32_t)buf[3 * i + 1] << 8 |
				      (uint32_t)buf[3 * i + 2] << 16);

		if (v & 0x800000)
			v -= 0x1000000;
		assert_int_equal(v, eng_tone_sample(1, 7, 48000, i));
		assert_true(v >= -(1 << 21) && v < (1 << 21) + 4096);
		crossings += prev >> 12 < 0 && v >> 12 >= 0;
		prev = v;
	}
	assert_true(crossings >= 37 && crossings <= 38);
	/* the code (low bits) differs between tracks' seeds */
	assert_true((eng_tone_sample(1, 7, 48000, 5) & 0xfff) !=
		    (eng_tone_sample(2, 7, 48000, 5) & 0xfff));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng_known_answers),
		cmocka_unit_test(test_rng_determinism),
		cmocka_unit_test(test_rng_derive),
		cmocka_unit_test(test_rng_range),
		cmocka_unit_test(test_rng_fill_zero_runs),
		cmocka_unit_test(test_rng_fill_stream),
		cmocka_unit_test(test_wav_header_bytes),
		cmocka_unit_test(test_wav_header_odd_and_huge),
		cmocka_unit_test(test_parse_seconds),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_check_defaults),
		cmocka_unit_test(test_check_errors),
		cmocka_unit_test(test_plan_default),
		cmocka_unit_test(test_plan_bounds_reached),
		cmocka_unit_test(test_text_parses),
		cmocka_unit_test(test_text_header),
		cmocka_unit_test(test_formats_table),
		cmocka_unit_test(test_format_rates),
		cmocka_unit_test(test_format_find_unknown),
		cmocka_unit_test(test_media_plan),
		cmocka_unit_test(test_media_seed),
		cmocka_unit_test(test_media_too_big),
		cmocka_unit_test(test_media_record),
		cmocka_unit_test(test_bytes_needed_brute),
		cmocka_unit_test(test_bytes_needed_sparse_fast),
		cmocka_unit_test(test_media_widen),
		cmocka_unit_test(test_media_existing),
		cmocka_unit_test(test_load_options_for),
		cmocka_unit_test(test_sidecar_blanks),
		cmocka_unit_test(test_sidecar_any_case),
		cmocka_unit_test(test_sidecar_fifo),
		cmocka_unit_test(test_picture_read_back),
		cmocka_unit_test(test_picture_black_and_bad),
		cmocka_unit_test(test_picture_clip_id),
		cmocka_unit_test(test_tone),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
