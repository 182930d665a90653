/* SPDX-License-Identifier: MIT */
/* Unit tests of engine/ingest's format.c (presets as track formats, the
 * names writers create, the interleave's sizes against timelinefs-gen's
 * own), wav.c (the header's bytes, read back by engine/media's WAVE
 * reader, patched and RF64) and note.c (a note's text and its parse). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/ingest.h"
#include "media/genplan.h"
#include "media/media.h"
#include "timeline/layout.h"
#include "util/diag.h"

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---------------------------------------------------------------- format */

static void test_format_seed(void **state)
{
	struct eng_ingest_format f, g;
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(eng_ingest_format_of(NULL, &f, &d), 0);
	assert_int_equal(eng_ingest_format_of("", &g, &d), 0);
	assert_memory_equal(&f, &g, sizeof(f));
	assert_string_equal(f.preset, "seed");
	assert_int_equal(f.fps.num, 30000);
	assert_int_equal(f.fps.den, 1001);
	assert_int_equal(f.ntracks, 3);
	assert_string_equal(f.track[0], "V");
	assert_string_equal(f.track[1], "A1");
	assert_string_equal(f.track[2], "A2");
	assert_int_equal(f.align[0], 614400);	/* one 640x480 2vuy picture */
	assert_int_equal(f.align[1], 3);
	assert_int_equal(f.rate[1], 144000);
	assert_int_equal(f.sample_rate, 48000);
	/* every frame of V is one picture */
	assert_int_equal(eng_ingest_upto(&f, 0, 1), 614400);
	assert_int_equal(eng_ingest_upto(&f, 0, 1000), 614400000);
	/* 48000 * 1001 / 30000 = 1601.6 samples a frame */
	assert_int_equal(eng_ingest_upto(&f, 1, 1), 1601 * 3);
	assert_int_equal(eng_ingest_upto(&f, 1, 5), 8008 * 3);
	assert_int_equal(eng_ingest_frame_offset(&f, 0), 0);
	assert_int_equal(eng_ingest_frame_offset(&f, 1), 614400 + 2 * 4803);
	assert_int_equal(d.n, 0);
}

static void test_format_unknown(void **state)
{
	struct eng_ingest_format f;
	struct eng_diag d = { 0 };

	(void)state;
	assert_int_equal(eng_ingest_format_of("nope", &f, &d), -ENOENT);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0], "ingest: no preset 'nope' "
				       "(timelinefs-gen --format list)");
	eng_diag_free(&d);
}

/* Every preset's interleave is the generated timeline file's, byte for
 * byte: a recording plays as a clip of a timeline of its preset. */
static void test_format_matches_gen(void **state)
{
	const struct eng_gen_format *g;
	struct eng_gen_config c;
	struct eng_ingest_format f;
	size_t n, i;
	int64_t k;

	(void)state;
	g = eng_gen_formats(&n);
	for (i = 0; i < n; i++) {
		eng_gen_config_default(&c);
		eng_gen_format_apply(&c, &g[i]);
		assert_int_equal(eng_ingest_format_of(g[i].name, &f, NULL), 0);
		assert_string_equal(f.preset, g[i].name);
		assert_int_equal(f.ntracks, 1 + g[i].audio_tracks);
		for (k = 0; k < 3000; k += 7)
			assert_true(eng_ingest_frame_offset(&f, k) ==
				    eng_gen_timeline_bytes(&c, k));
		/* no frame of V is empty (DNxHD's rounded-down rate with an
		 * align of its frame size would make frame 0 so) */
		assert_true(eng_ingest_upto(&f, 0, 1) > 0);
	}
}

static void test_frame_at_and_max(void **state)
{
	static const char *const presets[] = { "seed", "prores-hq-1080p25",
					       "dnxhd-220x-1080p29.97",
					       "v210-1080p29.97" };
	struct eng_ingest_format f;
	uint64_t off, next, most = 0, max;
	size_t i;
	int64_t k;

	(void)state;
	for (i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		assert_int_equal(eng_ingest_format_of(presets[i], &f, NULL),
				 0);
		max = eng_ingest_frame_max(&f);
		most = 0;
		for (k = 0; k < 5000; k++) {
			off = eng_ingest_frame_offset(&f, k);
			next = eng_ingest_frame_offset(&f, k + 1);
			assert_true(next - off <= max);
			if (next - off > most)
				most = next - off;
			assert_int_equal(eng_ingest_frame_at(&f, off), k);
			assert_int_equal(eng_ingest_frame_at(&f, next - 1), k);
			/* whole frames of a track's essence (the repair) */
			assert_int_equal(eng_ingest_frames_in(
					     &f, 1, eng_ingest_upto(&f, 1, k)),
					 k);
			if (k > 0)
				assert_int_equal(
				    eng_ingest_frames_in(
					&f, 0, eng_ingest_upto(&f, 0, k) - 1),
				    k - 1);
			if (next - off > 2)
				assert_int_equal(
				    eng_ingest_frame_at(&f, off + 1), k);
		}
		/* a frame far out */
		off = eng_ingest_frame_offset(&f, 123456789);
		assert_int_equal(eng_ingest_frame_at(&f, off), 123456789);
		assert_int_equal(eng_ingest_frame_at(&f, off - 1), 123456788);
		/* a rate track's bound is reached; a picture track's is a
		 * second picture that only a drift of days would need */
		if (f.align[0] == 1)
			assert_int_equal(most, max);
		else
			assert_true(most < max);
	}
}

static void test_track_file(void **state)
{
	struct eng_ingest_format f;
	char buf[64];

	(void)state;
	assert_int_equal(eng_ingest_format_of(NULL, &f, NULL), 0);
	eng_ingest_track_file(&f, 0, "cam1", buf, sizeof(buf));
	assert_string_equal(buf, "ingest/cam1.V.raw");
	eng_ingest_track_file(&f, 2, "cam1", buf, sizeof(buf));
	assert_string_equal(buf, "ingest/cam1.A2.wav");
	eng_ingest_track_file(&f, 1, "cam1", buf, 12);
	assert_string_equal(buf, "ingest/cam1");
}

static void test_names(void **state)
{
	static const struct {
		const char *file;
		int rc;
		const char *name;	/* or the reason */
		const char *preset;
	} cases[] = {
		{ "cam1", 0, "cam1", "sd-pal" },	/* the mount's */
		{ "cam1.prores-hq-1080p29.97", 0, "cam1",
		  "prores-hq-1080p29.97" },
		{ "a.b.seed", 0, "a.b", "seed" },
		{ "cam1.mov", 0, "cam1.mov", "sd-pal" },
		{ "cam1.seed.x", 0, "cam1.seed.x", "sd-pal" },
		{ "seed", 0, "seed", "sd-pal" },	/* nothing before */
		{ ".seed", 0, ".seed", "sd-pal" },
		{ "...seed", -EINVAL, "the name is . or ..", NULL },
		{ "", -EINVAL, "the name is empty", NULL },
		{ ".", -EINVAL, "the name is . or ..", NULL },
		{ "..", -EINVAL, "the name is . or ..", NULL },
		{ "...", 0, "...", "sd-pal" },
		{ "a/b", -EINVAL, "the name has a '/'", NULL },
		{ "a\nb", -EINVAL, "the name has a control character", NULL },
		{ "a\x7f", -EINVAL, "the name has a control character", NULL },
		{ "x.V.raw", -EINVAL,
		  "the name ends as a track file (.V.raw, .A<n>.wav)", NULL },
		{ "x.A12.wav", -EINVAL,
		  "the name ends as a track file (.V.raw, .A<n>.wav)", NULL },
		{ "x.A.wav", 0, "x.A.wav", "sd-pal" },
		{ "x.wav", 0, "x.wav", "sd-pal" },
		{ "x.A1.wav.seed", -EINVAL,
		  "the name ends as a track file (.V.raw, .A<n>.wav)", NULL },
		{ "café", 0, "café", "sd-pal" },
	};
	struct eng_ingest_format dflt, f;
	char name[256], longname[300];
	const char *why;
	size_t i;
	int rc;

	(void)state;
	assert_int_equal(eng_ingest_format_of("sd-pal", &dflt, NULL), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why = NULL;
		rc = eng_ingest_name(cases[i].file, &dflt, name, sizeof(name),
				     &f, &why);
		if (rc != cases[i].rc)
			fail_msg("%s: %d, not %d", cases[i].file, rc,
				 cases[i].rc);
		if (rc < 0) {
			assert_string_equal(why, cases[i].name);
			continue;
		}
		assert_string_equal(name, cases[i].name);
		assert_string_equal(f.preset, cases[i].preset);
	}
	/* 200 bytes at most */
	memset(longname, 'x', 200);
	longname[200] = '\0';
	assert_int_equal(eng_ingest_name(longname, &dflt, name, sizeof(name),
					 &f, &why), 0);
	longname[200] = 'x';
	longname[201] = '\0';
	assert_int_equal(eng_ingest_name(longname, &dflt, name, sizeof(name),
					 &f, &why), -EINVAL);
	assert_string_equal(why, "the name is longer than 200 bytes");
	/* the caller's buffer */
	assert_int_equal(eng_ingest_name("cam1", &dflt, name, 4, &f, &why),
			 -EINVAL);
	assert_int_equal(eng_ingest_name("cam1.seed", &dflt, name, 5, &f,
					 &why), 0);
	assert_string_equal(name, "cam1");
}

/* ---------------------------------------------------------------- wav */

static void test_wav_header(void **state)
{
	unsigned char h[ENG_INGEST_WAV_DATA];
	uint64_t off, size;
	size_t i;

	(void)state;
	memset(h, 0xee, sizeof(h));
	eng_ingest_wav_header(h, 48000);
	assert_memory_equal(h, "RIFF\xff\xff\xff\xffWAVE", 12);
	assert_memory_equal(h + 12, "JUNK\x1c\0\0\0", 8);
	for (i = 20; i < 48; i++)
		assert_int_equal(h[i], 0);
	assert_memory_equal(h + 48, "fmt \x10\0\0\0", 8);
	assert_int_equal(h[56] | h[57] << 8, 1);	/* PCM */
	assert_int_equal(h[58] | h[59] << 8, 1);	/* mono */
	assert_int_equal(rd32(h + 60), 48000);
	assert_int_equal(rd32(h + 64), 144000);
	assert_int_equal(h[68] | h[69] << 8, 3);
	assert_int_equal(h[70] | h[71] << 8, 24);
	assert_memory_equal(h + 72, "JUNK", 4);
	assert_int_equal(rd32(h + 76), 4008);
	for (i = 80; i < 4088; i++)
		assert_int_equal(h[i], 0);
	assert_memory_equal(h + 4088, "data\xff\xff\xff\xff", 8);
	/* engine/media's reader: essence at 4096, to the end of the file
	 * (FFmpeg and sox read a size of all ones so too) */
	assert_int_equal(eng_wav_data(h, sizeof(h), &off, &size), 0);
	assert_int_equal(off, 4096);
	assert_true(size == UINT64_MAX);
}

/* The header with the patch of `essence` bytes applied, as the close
 * writes it. */
static void patched(unsigned char h[ENG_INGEST_WAV_DATA], uint64_t essence,
		    int *pad)
{
	unsigned char p[80];
	size_t len = 0;

	eng_ingest_wav_header(h, 48000);
	memset(p, 0xee, sizeof(p));
	eng_ingest_wav_patch(p, &len, 48000, essence, pad);
	assert_true(len > 0 && len <= 80);
	memcpy(h, p, len);
	eng_ingest_wav_patch_data(h + ENG_INGEST_WAV_DATA_SIZE_AT, essence);
}

static void test_wav_patch(void **state)
{
	unsigned char h[ENG_INGEST_WAV_DATA], w[ENG_INGEST_WAV_DATA];
	uint64_t off, size;
	int pad;

	(void)state;
	patched(h, 1153152, &pad);
	assert_int_equal(pad, 0);
	assert_memory_equal(h, "RIFF", 4);
	assert_int_equal(rd32(h + 4), 4096 - 8 + 1153152);
	assert_int_equal(rd32(h + 4092), 1153152);
	/* only the sizes change */
	eng_ingest_wav_header(w, 48000);
	memcpy(w + 4, h + 4, 4);
	memcpy(w + 4092, h + 4092, 4);
	assert_memory_equal(h, w, sizeof(h));
	assert_int_equal(eng_wav_data(h, sizeof(h), &off, &size), 0);
	assert_int_equal(off, 4096);
	assert_int_equal(size, 1153152);
	/* an odd essence: a pad byte the RIFF size counts */
	patched(h, 4803, &pad);
	assert_int_equal(pad, 1);
	assert_int_equal(rd32(h + 4), 4096 - 8 + 4804);
	assert_int_equal(rd32(h + 4092), 4803);
	assert_int_equal(eng_wav_data(h, sizeof(h), &off, &size), 0);
	assert_int_equal(size, 4803);
	/* empty */
	patched(h, 0, &pad);
	assert_int_equal(rd32(h + 4), 4088);
	assert_int_equal(rd32(h + 4092), 0);
}

/* What `ls` of the ingest folder counts: a WAV's data chunk, to the
 * file's end while unpatched and never past it; a raw file its size. */
static void test_track_essence(void **state)
{
	unsigned char h[ENG_INGEST_WAV_DATA], raw[64];
	int pad;

	(void)state;
	eng_ingest_wav_header(h, 48000);
	/* unpatched: to the end of the file, none before the essence */
	assert_true(eng_ingest_track_essence(h, sizeof(h), 4096 + 3000) ==
		    3000);
	assert_true(eng_ingest_track_essence(h, sizeof(h), 4096) == 0);
	assert_true(eng_ingest_track_essence(h, sizeof(h), 100) == 0);
	/* patched for 999 bytes: the pad byte is not essence, and a file
	 * cut short holds only what it has */
	patched(h, 999, &pad);
	assert_true(eng_ingest_track_essence(h, sizeof(h), 4096 + 1000) ==
		    999);
	assert_true(eng_ingest_track_essence(h, sizeof(h), 4096 + 500) ==
		    500);
	/* the raw video file: its size */
	memset(raw, 0x5a, sizeof(raw));
	assert_true(eng_ingest_track_essence(raw, sizeof(raw), 123456) ==
		    123456);
	assert_true(eng_ingest_track_essence(raw, 0, 7) == 7);
}

static void test_wav_rf64(void **state)
{
	unsigned char h[ENG_INGEST_WAV_DATA];
	uint64_t off, size, big = 5000000001ULL, edge;
	int pad;

	(void)state;
	patched(h, big, &pad);
	assert_int_equal(pad, 1);
	assert_memory_equal(h, "RF64\xff\xff\xff\xffWAVE", 12);
	assert_memory_equal(h + 12, "ds64\x1c\0\0\0", 8);
	assert_true(rd64(h + 20) == 4096 - 8 + big + 1);
	assert_true(rd64(h + 28) == big);
	assert_true(rd64(h + 36) == big / 3);
	assert_int_equal(rd32(h + 44), 0);	/* no table */
	assert_memory_equal(h + 48, "fmt ", 4);
	assert_int_equal(rd32(h + 4092), UINT32_MAX);
	assert_int_equal(eng_wav_data(h, sizeof(h), &off, &size), 0);
	assert_int_equal(off, 4096);
	assert_true(size == UINT64_MAX);
	/* the last plain file: a RIFF size of 0xFFFFFFFE */
	edge = UINT32_MAX - 1 - (4096 - 8);
	patched(h, edge, &pad);
	assert_memory_equal(h, "RIFF", 4);
	assert_int_equal(rd32(h + 4), UINT32_MAX - 1);
	patched(h, edge + 2, &pad);
	assert_memory_equal(h, "RF64", 4);
	/* a repair of an RF64 file that was shorter: back to RIFF whole */
	patched(h, big, &pad);
	{
		unsigned char p[80];
		size_t len;

		eng_ingest_wav_patch(p, &len, 48000, 10, &pad);
		memcpy(h, p, len);
		eng_ingest_wav_patch_data(h + 4092, 10);
	}
	{
		unsigned char w[ENG_INGEST_WAV_DATA];

		patched(w, 10, &pad);
		assert_memory_equal(h, w, sizeof(w));
	}
}

/* ---------------------------------------------------------------- note */

static void test_note(void **state)
{
	struct eng_ingest_format f, g;
	struct eng_diag d = { 0 };
	char st[16], *text;

	(void)state;
	assert_int_equal(eng_ingest_format_of("sd-pal", &f, NULL), 0);
	assert_int_equal(eng_ingest_note_text(&f, "recording", -1, &text), 0);
	assert_string_equal(text, "# timelinefs recording (docs/formats.md "
				  "\"Ingest\")\npreset sd-pal\n"
				  "state recording\n");
	assert_int_equal(eng_ingest_note_parse("n.rec", text, strlen(text), &g,
					       st, NULL, &d), 0);
	assert_memory_equal(&f, &g, sizeof(f));
	assert_string_equal(st, "recording");
	free(text);
	assert_int_equal(eng_ingest_note_text(&f, "closed", 1234, &text), 0);
	assert_non_null(strstr(text, "state closed\nframes 1234\n"));
	assert_int_equal(eng_ingest_note_parse("n.rec", text, strlen(text), &g,
					       st, NULL, &d), 0);
	assert_string_equal(st, "closed");
	free(text);
	assert_int_equal(d.n, 0);
}

static void test_note_bad(void **state)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "preset seed\n", "n.rec: no state line" },
		{ "state closed\r\n", "n.rec: no preset line" },
		{ "preset seed\nstate open\n",
		  "n.rec:2: no state 'open' (recording, closed, repaired, "
		  "failed)" },
		{ "preset nope\nstate closed\n",
		  "n.rec:1: no preset 'nope' (timelinefs-gen --format list)" },
		{ "preset seed\nstate closed\nframes -1\n",
		  "n.rec:3: frames '-1' is not a count" },
		{ "preset seed\nstate closed\nsize 3\n",
		  "n.rec:3: not a line of a note: 'size 3'" },
		{ "preset seed\nstate\n",
		  "n.rec:2: not a line of a note: 'state'" },
	};
	struct eng_ingest_format f;
	char st[16];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_diag d = { 0 };

		assert_int_equal(eng_ingest_note_parse("n.rec", cases[i].text,
						       strlen(cases[i].text),
						       &f, st, NULL, &d),
				 -EINVAL);
		assert_true(d.n >= 1);
		assert_string_equal(d.msgs[0], cases[i].msg);
		eng_diag_free(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_seed),
		cmocka_unit_test(test_format_unknown),
		cmocka_unit_test(test_format_matches_gen),
		cmocka_unit_test(test_frame_at_and_max),
		cmocka_unit_test(test_track_file),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_wav_header),
		cmocka_unit_test(test_wav_patch),
		cmocka_unit_test(test_wav_rf64),
		cmocka_unit_test(test_track_essence),
		cmocka_unit_test(test_note),
		cmocka_unit_test(test_note_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
