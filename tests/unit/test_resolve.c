/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the naming rules of real media (media.c, docs/formats.md
 * "Media files") against a fake reader: files whose first bytes name a
 * hand-made struct eng_mfile, so that the rules, the origin by start
 * timecode and the checks at mount are tested without the real readers.
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

#include "media/mfile.h"
#include "media/media.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"

#include "media_env.h"

/* A stream of a fake file. */
struct fstream {
	uint32_t kind;
	uint32_t fps;		/* video: frames per second */
	int64_t n;		/* frames or sample frames */
	uint32_t sr, ch, bits;	/* audio */
	int64_t tc;		/* start timecode frame, -1 none */
	struct eng_fps tc_rate;
};

struct ffile {
	const char *format;
	const char *clip_name;
	const char *package;
	int refuse;		/* the reader says why it does not take it */
	size_t n;
	struct fstream s[4];
	int64_t tc;		/* the file's start timecode, -1 none */
	struct eng_fps tc_rate;
	const char *skipped;	/* streams the reader left out, or NULL */
};

#define V25(n) { ENG_ESS_VIDEO, 25, (n), 0, 0, 0, -1, { 0, 0 } }
#define A48(n, ch, bits) { ENG_ESS_AUDIO, 0, (n), 48000, (ch), (bits), -1, \
			   { 0, 0 } }

static const struct ffile fakes[] = {
	/* 0: a camera .mov: one video, two mono 24-bit audio streams */
	{ "mov", "", "", 0, 3, { V25(100), A48(192000, 1, 24),
				 A48(192000, 1, 24) }, -1, { 0, 0 }, NULL },
	/* 1: audio only */
	{ "wav", "", "", 0, 1, { A48(48000, 1, 24) }, -1, { 0, 0 }, NULL },
	/* 2: a file no reader takes */
	{ "mov", "", "", 1, 0, { V25(1) }, -1, { 0, 0 }, NULL },
	/* 3: 24 fps video */
	{ "mov", "", "", 0, 1, { { ENG_ESS_VIDEO, 24, 100, 0, 0, 0, -1,
				   { 0, 0 } } }, -1, { 0, 0 }, NULL },
	/* 4: 16-bit stereo */
	{ "wav", "", "", 0, 1, { A48(48000, 2, 16) }, -1, { 0, 0 }, NULL },
	/* 5: video starting at 01:00:00:00 less 10 frames (25 fps) */
	{ "mov", "", "", 0, 1, { V25(100) }, 90000 - 10, { 25, 1 }, NULL },
	/* 6: BWF audio at 01:00:00:00 (time reference in samples) */
	{ "wav", "", "", 0, 1, { { ENG_ESS_AUDIO, 0, 96000, 48000, 1, 24,
				   3600LL * 48000, { 48000, 1 } } },
	  -1, { 0, 0 }, NULL },
	/* 7, 8: an OP-Atom set of clip "shot"; 9 another clip's; 10 one
	 * by its package UMID */
	{ "mxf-opatom", "shot", "", 0, 1, { V25(50) }, -1, { 0, 0 }, NULL },
	{ "mxf-opatom", "shot", "", 0, 1, { A48(96000, 1, 24) }, -1,
	  { 0, 0 }, NULL },
	{ "mxf-opatom", "other", "", 0, 1, { A48(96000, 1, 24) }, -1,
	  { 0, 0 }, NULL },
	{ "mxf-opatom", "", "060A2B340101010501010D1213000000",
	  0, 1, { A48(96000, 1, 24) }, -1, { 0, 0 }, NULL },
	/* 11: OP1a */
	{ "mxf-op1a", "shot", "", 0, 1, { V25(50) }, -1, { 0, 0 }, NULL },
	/* 12: H.264 and AAC: the reader leaves the AAC stream out */
	{ "mp4", "", "", 0, 1, { V25(100) }, -1, { 0, 0 },
	  "stream 1: aac audio (not PCM: it cannot be read by samples)" },
};

static unsigned nreads[sizeof(fakes) / sizeof(*fakes)];

static int fake_read(const struct eng_src *src, struct eng_mfile *out,
		     struct eng_diag *diag)
{
	const struct ffile *f;
	unsigned char head[5];
	size_t i;
	int64_t k;

	memset(out, 0, sizeof(*out));
	if (src->read_at(src->ctx, 0, head, 5) != 5 ||
	    memcmp(head, "FAKE", 4) != 0 ||
	    head[4] >= sizeof(fakes) / sizeof(*fakes)) {
		eng_diag_add(diag, src->name, 0, "not a media file "
			     "timelinefs reads (QuickTime, MP4, MXF, WAV or "
			     "AIFF)");
		return -EINVAL;
	}
	f = &fakes[head[4]];
	nreads[head[4]]++;
	if (f->refuse) {
		eng_diag_add(diag, src->name, 0, "no moov atom (a truncated "
			     "file?)");
		return -EINVAL;
	}
	out->format = strdup(f->format);
	out->streams = calloc(f->n, sizeof(*out->streams));
	assert_non_null(out->format);
	assert_non_null(out->streams);
	out->nstreams = f->n;
	snprintf(out->clip_name, sizeof(out->clip_name), "%s", f->clip_name);
	snprintf(out->package, sizeof(out->package), "%s", f->package);
	if (f->skipped)
		snprintf(out->skipped, sizeof(out->skipped), "%s",
			 f->skipped);
	if (f->tc >= 0) {
		out->tc.present = 1;
		out->tc.frame = f->tc;
		out->tc.rate = f->tc_rate;
	}
	for (i = 0; i < f->n; i++) {
		const struct fstream *s = &f->s[i];
		struct eng_essence *e = &out->streams[i];

		e->kind = s->kind;
		e->index = (int)i;
		if (s->tc >= 0) {
			e->tc.present = 1;
			e->tc.frame = s->tc;
			e->tc.rate = s->tc_rate;
		}
		if (s->kind == ENG_ESS_VIDEO) {
			e->fps.num = s->fps;
			e->fps.den = 1;
			e->nframes = s->n;
			e->off = calloc((size_t)s->n, sizeof(*e->off));
			e->len = calloc((size_t)s->n, sizeof(*e->len));
			assert_non_null(e->off);
			assert_non_null(e->len);
			for (k = 0; k < s->n; k++) {
				e->off[k] = 4096 + (uint64_t)k * 1000;
				e->len[k] = 900 + (uint32_t)(k % 7);
			}
			continue;
		}
		e->sample_rate = s->sr;
		e->channels = s->ch;
		e->bits = s->bits;
		e->block = s->ch * s->bits / 8;
		e->nsamples = s->n;
		e->chunks = calloc(1, sizeof(*e->chunks));
		assert_non_null(e->chunks);
		e->nchunks = 1;
		e->chunks[0].off = 512;
		e->chunks[0].count = (uint32_t)s->n;
	}
	return 0;
}

static const struct eng_media_readers fake = { .read = fake_read };

static int resolve(const struct env *e, struct eng_timeline *tl,
		   struct eng_diag *d)
{
	return eng_media_resolve_with(tl, e->dfd, e->dir, &fake, d);
}

static int env_setup(void **state)
{
	memset(nreads, 0, sizeof(nreads));
	return env_open(state, "/tmp/test_resolve.XXXXXX");
}

/* A fake media file of len bytes: "FAKE" and the index of its struct
 * ffile. */
static void put_fake(struct env *e, const char *name, unsigned which,
		     uint64_t len)
{
	unsigned char b[5] = { 'F', 'A', 'K', 'E', (unsigned char)which };

	put(e, name, b, sizeof(b), len);
}

/* Each of want[] is in some message (with "DIR" standing for the
 * folder), and there are exactly n messages. */
static void expect_in(const struct env *e, const struct eng_diag *d,
		      const char *const *want, size_t n)
{
	char buf[1024];
	size_t i, j;

	if (d->n != n) {
		print_diag(d);
		fail_msg("%zu messages, want %zu", d->n, n);
	}
	for (i = 0; i < n; i++) {
		const char *w = want[i], *dir;
		size_t k = 0;

		/* every "DIR" stands for the folder */
		while ((dir = strstr(w, "DIR")) && k < sizeof(buf)) {
			k += (size_t)snprintf(buf + k, sizeof(buf) - k,
					      "%.*s%s", (int)(dir - w), w,
					      e->dir);
			w = dir + 3;
		}
		if (k < sizeof(buf))
			snprintf(buf + k, sizeof(buf) - k, "%s", w);
		for (j = 0; j < d->n; j++)
			if (strstr(d->msgs[j], buf))
				break;
		if (j == d->n) {
			print_diag(d);
			fail_msg("no message has '%s'", buf);
		}
	}
}

static const struct eng_essence *stream(const struct eng_timeline *tl,
					size_t mfile, size_t s)
{
	assert_true(mfile < tl->nmfiles);
	assert_true(s < tl->mfiles[mfile]->nstreams);
	return &tl->mfiles[mfile]->streams[s];
}

/* A clip's one file: V its video stream, A1 and A2 its audio streams in
 * order, the file read once; the file the timeline names wins over
 * NAME.mov; raw NAME.T.* files still play as raw essence. */
static void test_whole_file(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 25\n"
		"track V 1000\n"
		"track A1 144000 align=3\n"
		"track A2 144000 align=3\n"
		"event V,A1,A2 c1 10 20\n"
		"event V c2 0 5\n"
		"event V,A1 named 0 5\n");
	struct eng_diag d = { 0 };
	const struct eng_media *m;

	put_fake(e, "c1.mov", 0, 5);
	put_fake(e, "c2.V.raw", 0, 200); /* raw: never read by a reader */
	put_fake(e, "named.mov", 2, 5);	/* the timeline names another */
	put_fake(e, "named take 2.MXF", 0, 5);
	tl->clips[2].file = strdup("named take 2.MXF");
	assert_int_equal(resolve(e, tl, &d), 0);
	print_diag(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(nreads[0], 2);	/* c1.mov, named take 2.MXF */
	assert_int_equal(nreads[2], 0);
	assert_int_equal(tl->nmfiles, 2);
	assert_non_null(tl->media_free);
	m = tl->clips[0].media;
	assert_string_equal(m[0].file, "c1.mov");
	assert_string_equal(m[1].file, "c1.mov");
	assert_ptr_equal(m[0].ess, stream(tl, 0, 0));
	assert_ptr_equal(m[1].ess, stream(tl, 0, 1));
	assert_ptr_equal(m[2].ess, stream(tl, 0, 2));
	assert_int_equal(m[0].origin, 0);
	/* one run of samples: the closed form's header and size */
	assert_int_equal(m[1].header, 512);
	assert_int_equal(m[1].size, 192000 * 3);
	m = tl->clips[1].media;
	assert_string_equal(m[0].file, "c2.V.raw");
	assert_null(m[0].ess);
	assert_int_equal(m[0].size, 200);
	m = tl->clips[2].media;
	assert_string_equal(m[0].file, "named take 2.MXF");
	assert_ptr_equal(m[0].ess, stream(tl, 1, 0));
	assert_ptr_equal(m[1].ess, stream(tl, 1, 1));
	/* a second call starts over: the files are read again */
	assert_int_equal(resolve(e, tl, &d), 0);
	assert_int_equal(tl->nmfiles, 2);
	assert_int_equal(nreads[0], 4);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* Every bad input is one message naming timeline, line, clip, file and
 * reason; a file no reader takes is told once, with the reader's reason. */
static void test_bad_input(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 25\n"
		"track V 1000\n"
		"track A1 144000 align=3\n"
		"track A3 144000 align=3\n"
		"event V,A1 audio 0 5\n"	/* 5 */
		"event V,A1 bad 0 5\n"		/* 6 */
		"event V two 0 5\n"		/* 7 */
		"event A3 cam 0 5\n"		/* 8 */
		"event V fps24 0 5\n"		/* 9 */
		"event A1 mono 0 5\n"		/* 10 */
		"event A1 stereo 0 5\n"		/* 11 */
		"event V cam 95 5\n"		/* 12 */
		"event V cam 90 11\n"		/* 13: one past the end */
		"event A1 mono 10 10\n"		/* 14: 38400 samples of 48000 */
		"event A1 mono 20 6\n"		/* 15: 48000 + 1920 */
		"event V none 0 1\n"		/* 16 */
		"event A1 aac 0 1\n");		/* 17 */
	struct eng_diag d = { 0 };
	static const char *const want[] = {
		"t.tl:5: clip audio track V: DIR/audio.V.wav holds 0 video "
		"and 1 audio stream: none of the video a track V plays",
		"t.tl:6: clip bad track V: DIR/bad.mov: no moov atom",
		"t.tl:7: clip two track V: ambiguous: DIR/two.mov, DIR/two.mxf",
		"t.tl:8: clip cam track A3: DIR/cam.mov holds 1 video and 2 "
		"audio streams: none for track A3 (an audio track is a stream, "
		"of however many channels)",
		"t.tl:9: clip fps24 track V: DIR/fps24.mov: video of 24/1 fps "
		"on a timeline of 25/1 fps",
		"t.tl:11: clip stereo track A1: DIR/stereo.A1.wav is 48000 Hz "
		"2x16-bit audio, clip audio's DIR/audio.A1.wav on this track "
		"48000 Hz 1x24-bit: a track's clips share one sample format",
		"t.tl:13: clip cam track V: DIR/cam.mov: the edit reaches past "
		"the clip's last frame: needs media frames 90..100, the media "
		"has 100",
		"t.tl:15: clip mono track A1: DIR/mono.A1.wav: the edit reaches "
		"past the clip's last sample: needs media samples 0..49919, the "
		"media has 48000",
		"t.tl:16: clip none track V: no media file DIR/none.V.* (nor "
		"none.mov, .mp4, .mxf or an OP-Atom file of the clip)",
		"t.tl:17: clip aac track A1: DIR/aac.mp4 holds 1 video and 0 "
		"audio streams: none for track A1 (left out: stream 1: aac "
		"audio (not PCM: it cannot be read by samples))",
		"t.tl:6: clip bad track A1: no media file",
	};

	put_fake(e, "audio.V.wav", 1, 5);
	put_fake(e, "audio.A1.wav", 1, 5);
	put_fake(e, "bad.mov", 2, 5);
	put_fake(e, "two.mov", 0, 5);
	put_fake(e, "two.mxf", 0, 5);
	put_fake(e, "cam.mov", 0, 5);
	put_fake(e, "fps24.mov", 3, 5);
	put_fake(e, "mono.A1.wav", 1, 5);
	put_fake(e, "stereo.A1.wav", 4, 5);
	put_fake(e, "aac.mp4", 12, 5);
	assert_int_equal(resolve(e, tl, &d), -EINVAL);
	/* bad.mov: told once for V, none for A1 (the same file) */
	expect_in(e, &d, want, sizeof(want) / sizeof(*want) - 1);
	assert_int_equal(nreads[2], 1);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* A refused file's name is escaped once in the message: the reader's
 * message is escaped already (a backslash shown as two, not four). */
static void test_escaped(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 25\n"
		"track V 1000\n"
		"event V weird 0 5\n");
	struct eng_diag d = { 0 };
	static const char *const want[] = {
		"t.tl:3: clip weird track V: DIR/we\\\\ird.mov: no moov atom "
		"(a truncated file?)",
	};

	put_fake(e, "we\\ird.mov", 2, 5);
	tl->clips[0].file = strdup("we\\ird.mov");
	assert_int_equal(resolve(e, tl, &d), -EINVAL);
	expect_in(e, &d, want, 1);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* A source timecode means the media's frame where the media has a start
 * timecode: video by frames, BWF audio by its time reference in samples;
 * an edit before the media's first frame or past its last is told in the
 * media's frames and timecodes (a BWF's at the timeline's rate). */
static void test_origin(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 25\n"
		"track V 1000\n"
		"track A1 144000 align=3\n"
		"event V tc 0 20\n"
		"event A1 bwf 0 25\n"
		"event V notc 0 5\n"
		"event V early 0 5\n"
		"event V late 85 10\n"
		"event A1 bwf2 0 25\n");
	struct eng_diag d = { 0 };
	static const char *const want[] = {
		"t.tl:7: clip early track V: DIR/early.V.mov: the edit starts "
		"5 frames before the clip's first frame (source frame 0 is "
		"media frame -5, 00:59:59:10, by its start timecode)",
		"t.tl:8: clip late track V: DIR/late.V.mov: the edit reaches "
		"past the clip's last frame: needs media frames 95..104 "
		"(01:00:03:10..01:00:03:19), the media has 100 "
		"(00:59:59:15..01:00:03:14)",
		"t.tl:9: clip bwf2 track A1: DIR/bwf2.A1.wav: the edit reaches "
		"past the clip's last sample: needs media samples "
		"57600..105599 (01:00:01:05..01:00:02:04), the media has 96000 "
		"(01:00:00:00..01:00:01:24)",
	};

	put_fake(e, "tc.V.mov", 5, 5);
	put_fake(e, "bwf.A1.wav", 6, 5);
	put_fake(e, "notc.V.mov", 0, 5);
	put_fake(e, "early.V.mov", 5, 5);
	put_fake(e, "late.V.mov", 5, 5);
	put_fake(e, "bwf2.A1.wav", 6, 5);
	/* as an EDL keeps them: 01:00:00:00, 01:00:00:10 and 00:59:59:15 */
	tl->clips[0].tc_set = tl->clips[1].tc_set = tl->clips[2].tc_set = 1;
	tl->clips[3].tc_set = tl->clips[4].tc_set = tl->clips[5].tc_set = 1;
	tl->clips[0].tc = 90000;
	tl->clips[1].tc = 90010;
	tl->clips[2].tc = 90000;	/* no timecode in the media: 0 */
	tl->clips[3].tc = 90000 - 15;
	tl->clips[4].tc = 90000;	/* media frame 10 */
	tl->clips[5].tc = 90030;	/* sample 57600 */
	assert_int_equal(resolve(e, tl, &d), -EINVAL);
	expect_in(e, &d, want, 3);
	assert_int_equal(tl->clips[0].media[0].origin, 10);
	assert_int_equal(tl->clips[1].media[1].origin, 10 * 48000 / 25);
	assert_int_equal(tl->clips[2].media[0].origin, 0);
	assert_int_equal(tl->clips[3].media[0].origin, -5);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* OP-Atom: a clip's set by material package name or UMID; V its video
 * file, An the n-th audio file by name; another clip's file and an OP1a
 * file of the same name are not in the set. */
static void test_opatom(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 25\n"
		"track V 1000\n"
		"track A1 144000 align=3\n"
		"track A2 144000 align=3\n"
		"event V,A1,A2 shot 0 10\n"
		"event A1 060a2b340101010501010d1213000000 0 10\n"
		"event A2 lonely 0 10\n");
	struct eng_diag d = { 0 };
	static const char *const want[] = {
		"t.tl:7: clip lonely track A2: no media file DIR/lonely.A2.*",
	};
	const struct eng_media *m;

	put_fake(e, "V01.mxf", 7, 5);
	put_fake(e, "A02.mxf", 8, 5);
	put_fake(e, "A01.mxf", 8, 5);
	put_fake(e, "A09.mxf", 9, 5);
	put_fake(e, "umid.mxf", 10, 5);
	put_fake(e, "op1a.mxf", 11, 5);
	put_fake(e, "junk.mxf", 2, 5);	/* refused: not of any clip */
	assert_int_equal(resolve(e, tl, &d), -EINVAL);
	expect_in(e, &d, want, 1);
	m = tl->clips[0].media;
	assert_string_equal(m[0].file, "V01.mxf");
	assert_string_equal(m[1].file, "A01.mxf");
	assert_string_equal(m[2].file, "A02.mxf");
	assert_non_null(m[0].ess);
	assert_int_equal(m[0].ess->kind, ENG_ESS_VIDEO);
	assert_int_equal(m[2].ess->kind, ENG_ESS_AUDIO);
	assert_string_equal(tl->clips[1].media[1].file, "umid.mxf");
	/* each read once */
	assert_int_equal(nreads[7], 1);
	assert_int_equal(nreads[8], 2);
	assert_int_equal(nreads[2], 1);
	eng_diag_free(&d);

	/* two video files of one clip are ambiguous */
	put_fake(e, "V02.mxf", 7, 5);
	unlinkat(e->dfd, "A09.mxf", 0);
	put_fake(e, "lonely.A2.raw", 0, 57600);
	assert_int_equal(resolve(e, tl, &d), -EINVAL);
	{
		static const char *const amb[] = {
			"t.tl:5: clip shot track V: ambiguous: DIR/V01.mxf, "
			"DIR/V02.mxf are both OP-Atom video of clip shot",
		};

		expect_in(e, &d, amb, 1);
	}
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* An audio track of real audio takes its media's sample format: the
 * track's rate and align, and with them the timeline's size. */
static void test_audio_format(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 25\n"
		"track A1 144000 align=3\n"
		"event A1 st 0 25\n");
	struct eng_diag d = { 0 };

	put_fake(e, "st.A1.wav", 4, 5);
	assert_int_equal(tl->bytes, 144000);
	assert_int_equal(resolve(e, tl, &d), 0);
	print_diag(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(tl->tracks[0].rate, 192000);
	assert_int_equal(tl->tracks[0].align, 4);
	assert_int_equal(tl->bytes, 192000);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* Every clip's video of one rate that is not the timeline's: one message
 * saying what to do, by the timeline's format, and none of the edits past
 * the clips' ends that the wrong rate makes (b reaches past its 100). */
static void test_one_other_rate(void **state)
{
	static const char *const path[] = { "t.tl", "t.EDL" };
	static const char *const want[] = {
		"t.tl: every clip's video is 24/1 fps, the timeline 25/1 fps: "
		"make its fps line 'fps 24'",
		"t.EDL: every clip's video is 24/1 fps, the timeline 25/1 fps: "
		"mount with -o fps=24 or write 24 in t.EDL.fps",
	};
	struct env *e = *state;
	struct eng_diag d = { 0 };
	size_t i;

	put_fake(e, "a.mov", 3, 5);
	put_fake(e, "b.mov", 3, 5);
	for (i = 0; i < 2; i++) {
		struct eng_timeline *tl = tl_from(
			"fps 25\n"
			"track V 1000\n"
			"event V a 0 5\n"
			"event V b 95 10\n");

		free(tl->path);
		tl->path = strdup(path[i]);
		assert_non_null(tl->path);
		assert_int_equal(resolve(e, tl, &d), -EINVAL);
		expect_in(e, &d, &want[i], 1);
		eng_diag_free(&d);
		eng_tl_free(tl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_whole_file, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_escaped, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_origin, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_opatom, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_audio_format, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_one_other_rate, env_setup,
						env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
