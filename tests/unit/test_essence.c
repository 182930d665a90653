/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/media/pcm.c (WAV/BWF/RF64 and AIFF/AIFC headers,
 * built here byte by byte) and engine/media/readers.c (the reader by a
 * file's first bytes, a run of audio sample frames as file extents over
 * chunks with holes, joins and too many extents).  The QuickTime/MP4 reader
 * is checked against ffprobe in tests/integration/test_index.sh.
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
#include "util/diag.h"

#include "sparse_src.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* A file in memory, built by the put_* helpers. */
struct mem {
	unsigned char b[4096];
	size_t n;
};

static void put(struct mem *m, const void *p, size_t n)
{
	assert_true(m->n + n <= sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put_le(struct mem *m, uint64_t v, int bytes)
{
	while (bytes--) {
		unsigned char c = (unsigned char)v;

		put(m, &c, 1);
		v >>= 8;
	}
}

static void put_be(struct mem *m, uint64_t v, int bytes)
{
	while (bytes--) {
		unsigned char c = (unsigned char)(v >> (8 * bytes));

		put(m, &c, 1);
	}
}

/* read NAME from m: the reader's rc, its one message (or none) */
static int read_mem(struct mem *m, struct eng_mfile *mf, char *msg,
		    size_t len)
{
	struct eng_diag d = { 0 };
	struct eng_mem mem;
	struct eng_src src;
	int rc;

	eng_src_mem(&src, &mem, "clip.wav", m->b, m->n);
	rc = eng_mfile_read(&src, mf, &d);

	assert_true(d.n <= 1);
	snprintf(msg, len, "%s", d.n ? d.msgs[0] : "");
	eng_diag_free(&d);
	return rc;
}

enum { FMT_PCM, FMT_FLOAT, FMT_EXT_PCM, FMT_EXT_FLOAT, FMT_ADPCM };

struct wav_case {
	const char *what;
	int rf64, fmt, bext, junk, nofmt, nodata;
	unsigned channels, bits, block;
	uint32_t data;		/* data chunk size as written */
	uint32_t have;		/* data bytes in the file */
	int rc;
	const char *codec, *msg;
	int64_t nsamples;
	uint64_t off;
};

/* A WAV file of c: RIFF or RF64 header, [ds64], [junk of 3 bytes],
 * [bext], fmt, data. */
static void wav_of(struct mem *m, const struct wav_case *c)
{
	uint16_t tag = c->fmt == FMT_FLOAT ? 3 : c->fmt == FMT_ADPCM ? 2
		     : c->fmt >= FMT_EXT_PCM ? 0xfffe : 1;
	unsigned i;

	m->n = 0;
	put(m, c->rf64 ? "RF64" : "RIFF", 4);
	put_le(m, c->rf64 ? 0xffffffff : 0, 4);	/* readers ignore it */
	put(m, "WAVE", 4);
	if (c->rf64) {
		put(m, "ds64", 4);
		put_le(m, 28, 4);
		put_le(m, 0, 8);
		put_le(m, c->have, 8);	/* data size */
		put_le(m, 0, 8);
		put_le(m, 0, 4);
	}
	if (c->junk) {
		put(m, "JUNK", 4);
		put_le(m, 3, 4);
		put(m, "abc\0", 4);	/* padded to even */
	}
	if (c->bext) {
		put(m, "bext", 4);
		put_le(m, 602, 4);
		for (i = 0; i < 338; i++)
			put(m, "", 1);
		put_le(m, 172800000, 8);	/* TimeReference */
		for (i = 346; i < 602; i++)
			put(m, "", 1);
	}
	if (!c->nofmt) {
		put(m, "fmt ", 4);
		put_le(m, c->fmt >= FMT_EXT_PCM ? 40 : 16, 4);
		put_le(m, tag, 2);
		put_le(m, c->channels, 2);
		put_le(m, 48000, 4);
		put_le(m, 48000 * c->block, 4);
		put_le(m, c->block, 2);
		put_le(m, c->bits, 2);
		if (c->fmt >= FMT_EXT_PCM) {
			put_le(m, 22, 2);
			put_le(m, c->bits, 2);
			put_le(m, 3, 4);
			put_le(m, c->fmt == FMT_EXT_FLOAT ? 3 : 1, 2);
			put(m, "\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71", 14);
		}
	}
	if (!c->nodata) {
		put(m, "data", 4);
		put_le(m, c->data, 4);
		for (i = 0; i < c->have; i++)
			put_le(m, i, 1);
	}
}

static void test_wav(void **state)
{
	static const struct wav_case cases[] = {
		{ "pcm 16 stereo", 0, FMT_PCM, 0, 0, 0, 0, 2, 16, 4, 400, 400,
		  0, "pcm_s16le", "", 100, 44 },
		{ "24-bit bwf", 0, FMT_PCM, 1, 0, 0, 0, 1, 24, 3, 300, 300, 0,
		  "pcm_s24le", "", 100, 44 + 610 },
		{ "odd junk padded", 0, FMT_PCM, 0, 1, 0, 0, 1, 16, 2, 20, 20,
		  0, "pcm_s16le", "", 10, 56 },
		{ "extensible pcm", 0, FMT_EXT_PCM, 0, 0, 0, 0, 2, 24, 6, 60,
		  60, 0, "pcm_s24le", "", 10, 68 },
		{ "extensible float", 0, FMT_EXT_FLOAT, 0, 0, 0, 0, 1, 32, 4,
		  40, 40, 0, "pcm_f32le", "", 10, 68 },
		{ "plain float", 0, FMT_FLOAT, 0, 0, 0, 0, 1, 32, 4, 40, 40, 0,
		  "pcm_f32le", "", 10, 44 },
		{ "rf64", 1, FMT_PCM, 0, 0, 0, 0, 2, 16, 4, 0xffffffff, 400, 0,
		  "pcm_s16le", "", 100, 80 },
		{ "streamed: size all ones", 0, FMT_PCM, 0, 0, 0, 0, 1, 16, 2,
		  0xffffffff, 64, 0, "pcm_s16le", "", 32, 44 },
		{ "a part frame at the end", 0, FMT_PCM, 0, 0, 0, 0, 2, 16, 4,
		  402, 402, 0, "pcm_s16le", "", 100, 44 },
		{ "data past the end", 0, FMT_PCM, 0, 0, 0, 0, 1, 16, 2, 4000,
		  20, -EINVAL, NULL, "clip.wav: its samples (4000 bytes at 44) "
		  "run past the end of the file (64 bytes): truncated file or "
		  "bad header", 0, 0 },
		{ "no fmt", 0, FMT_PCM, 0, 0, 1, 0, 1, 16, 2, 20, 20, -EINVAL,
		  NULL, "clip.wav: a RIFF/WAVE file without a fmt chunk", 0,
		  0 },
		{ "no data", 0, FMT_PCM, 0, 0, 0, 1, 1, 16, 2, 0, 0, -EINVAL,
		  NULL, "clip.wav: a RIFF/WAVE file without a data chunk", 0,
		  0 },
		{ "adpcm", 0, FMT_ADPCM, 0, 0, 0, 0, 1, 4, 2, 20, 20, -EINVAL,
		  NULL, "clip.wav: its samples are not PCM (WAVE format tag "
		  "0x0002)", 0, 0 },
		{ "block not channels x bytes", 0, FMT_PCM, 0, 0, 0, 0, 2, 16,
		  2, 20, 20, -EINVAL, NULL, "clip.wav: its fmt chunk's block "
		  "of 2 bytes is not 2 channels of 16 bits", 0, 0 },
		{ "12-bit", 0, FMT_PCM, 0, 0, 0, 0, 1, 12, 0, 20, 20, -EINVAL,
		  NULL, "clip.wav: its fmt chunk's block of 0 bytes is not 1 "
		  "channels of 12 bits", 0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		const struct wav_case *c = &cases[i];
		struct eng_mfile mf;
		struct mem m;
		char msg[256];
		int rc;

		wav_of(&m, c);
		rc = read_mem(&m, &mf, msg, sizeof(msg));
		print_message("%s: %d %s\n", c->what, rc, msg);
		assert_int_equal(rc, c->rc);
		assert_string_equal(msg, c->msg);
		if (rc < 0) {
			assert_int_equal(mf.nstreams, 0);
			assert_null(mf.streams);
			assert_null(mf.format);
			continue;
		}
		assert_string_equal(mf.format, "wav");
		assert_int_equal(mf.nstreams, 1);
		assert_int_equal(mf.streams[0].kind, ENG_ESS_AUDIO);
		assert_string_equal(mf.streams[0].codec, c->codec);
		assert_int_equal(mf.streams[0].block, c->block);
		assert_int_equal(mf.streams[0].channels, c->channels);
		assert_int_equal(mf.streams[0].sample_rate, 48000);
		assert_int_equal(mf.streams[0].nsamples, c->nsamples);
		assert_int_equal(mf.streams[0].nchunks, 1);
		assert_int_equal(mf.streams[0].chunks[0].off, c->off);
		assert_int_equal(mf.streams[0].chunks[0].first, 0);
		assert_int_equal(mf.streams[0].chunks[0].count, c->nsamples);
		assert_int_equal(mf.tc.present, c->bext);
		assert_int_equal(mf.streams[0].tc.present, c->bext);
		if (c->bext) {
			assert_int_equal(mf.tc.frame, 172800000);
			assert_int_equal(mf.tc.rate.num, 48000);
			assert_int_equal(mf.tc.rate.den, 1);
		}
		eng_mfile_clear(&mf);
		assert_null(mf.streams);
	}
}

struct aiff_case {
	const char *what;
	int aifc;
	const char *comp;	/* AIFC compression type */
	uint16_t exp;		/* the rate's 80-bit exponent and mantissa */
	uint64_t mant;
	uint32_t frames;	/* COMM's sample frames */
	uint32_t ssnd_off;
	int rc;
	const char *codec, *msg;
	int64_t nsamples;
	int be;
};

static void aiff_of(struct mem *m, const struct aiff_case *c)
{
	unsigned i;

	m->n = 0;
	put(m, "FORM", 4);
	put_be(m, 0, 4);
	put(m, c->aifc ? "AIFC" : "AIFF", 4);
	put(m, "COMM", 4);
	put_be(m, c->aifc ? 24 : 18, 4);
	put_be(m, 2, 2);		/* channels */
	put_be(m, c->frames, 4);
	put_be(m, 16, 2);		/* bits */
	put_be(m, c->exp, 2);
	put_be(m, c->mant, 8);
	if (c->aifc) {
		put(m, c->comp, 4);
		put(m, "\0\0", 2);	/* an empty name, padded */
	}
	put(m, "SSND", 4);
	put_be(m, 8 + c->ssnd_off + 40, 4);
	put_be(m, c->ssnd_off, 4);
	put_be(m, 0, 4);
	for (i = 0; i < c->ssnd_off + 40; i++)
		put_be(m, i, 1);
}

static void test_aiff(void **state)
{
	static const struct aiff_case cases[] = {
		{ "aiff 44100", 0, NULL, 0x400e, 0xac44000000000000ull, 10, 0,
		  0, "pcm_s16be", "", 10, 1 },
		{ "ssnd offset", 0, NULL, 0x400e, 0xbb80000000000000ull, 10, 4,
		  0, "pcm_s16be", "", 10, 1 },
		{ "fewer frames than bytes", 0, NULL, 0x400e,
		  0xbb80000000000000ull, 3, 0, 0, "pcm_s16be", "", 3, 1 },
		{ "aifc sowt", 1, "sowt", 0x400e, 0xbb80000000000000ull, 10, 0,
		  0, "pcm_s16le", "", 10, 0 },
		{ "aifc none", 1, "NONE", 0x400e, 0xbb80000000000000ull, 10, 0,
		  0, "pcm_s16be", "", 10, 1 },
		{ "aifc ima4", 1, "ima4", 0x400e, 0xbb80000000000000ull, 10, 0,
		  -EINVAL, NULL, "clip.wav: AIFC compression 'ima4' is not "
		  "PCM", 0, 0 },
		{ "a fraction of a hertz", 0, NULL, 0x400e,
		  0xac44800000000000ull, 10, 0, -EINVAL, NULL,
		  "clip.wav: its sample rate is not a whole number of hertz",
		  0, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		const struct aiff_case *c = &cases[i];
		struct eng_mfile mf;
		struct mem m;
		char msg[256];
		int rc;

		aiff_of(&m, c);
		rc = read_mem(&m, &mf, msg, sizeof(msg));
		print_message("%s: %d %s\n", c->what, rc, msg);
		assert_int_equal(rc, c->rc);
		assert_string_equal(msg, c->msg);
		if (rc < 0)
			continue;
		assert_string_equal(mf.format, "aiff");
		assert_string_equal(mf.streams[0].codec, c->codec);
		assert_int_equal(mf.streams[0].big_endian, c->be);
		assert_int_equal(mf.streams[0].sample_rate,
				 c->mant >> 48 == 0xac44 ? 44100 : 48000);
		assert_int_equal(mf.streams[0].nsamples, c->nsamples);
		assert_int_equal(mf.streams[0].chunks[0].off,
				 12 + 8 + (c->aifc ? 24 : 18) + 16 +
					 c->ssnd_off);
		eng_mfile_clear(&mf);
	}
}

/*
 * WAV headers at the start of 450 MB sparse files (sparse_src.h): what
 * the chunks claim drives no allocation or read beyond a bounded walk
 * (pcm.c was already so: this guards it).  A data chunk to the file's
 * end is one chunk of the index, read with a few small reads; an RF64
 * size of 2^62 is refused; zeros after RIFF WAVE are walked 4096 chunks
 * at most.
 */
static void test_wav_sparse(void **state)
{
	static const struct wav_case to_end = {
		"to the end", 0, FMT_PCM, 0, 0, 0, 0, 2, 24, 6, 450000000,
		0, 0, NULL, NULL, 0, 0
	};
	struct {
		struct mem m;
		uint64_t size;	/* the sparse file's */
		int rc;
		const char *msg;
		uint64_t bytes;	/* read at most */
	} cases[3] = {
		{ .size = 450000000, .rc = 0, .msg = "", .bytes = 1024 },
		{ .size = 450000000, .rc = -EINVAL,
		  .msg = "past the end of the file", .bytes = 1024 },
		{ .size = 450000000, .rc = -EINVAL,
		  .msg = "without a fmt chunk", .bytes = 12 + 4096 * 8 + 1024 },
	};
	struct wav_case r = to_end;

	(void)state;
	wav_of(&cases[0].m, &to_end);
	cases[0].size += cases[0].m.n;
	r.rf64 = 1;		/* ds64's data size 2^62 */
	r.data = UINT32_MAX;
	wav_of(&cases[1].m, &r);
	for (int i = 0; i < 8; i++)
		cases[1].m.b[28 + i] = (unsigned char)((1ull << 62) >> (8 * i));
	put(&cases[2].m, "RIFF\0\0\0\0WAVE", 12);
	for (size_t i = 0; i < N(cases); i++) {
		struct eng_diag d = { 0 };
		struct eng_mfile mf;
		struct eng_src src;
		struct sparse s;
		char msg[256];
		int rc;

		sparse_src(&src, &s, "clip.wav", cases[i].m.b, cases[i].m.n,
			   cases[i].size);
		rc = eng_mfile_read(&src, &mf, &d);
		assert_true(d.n <= 1);
		sparse_msg(&d, msg, sizeof(msg));
		assert_int_equal(rc, cases[i].rc);
		assert_non_null(strstr(msg, cases[i].msg));
		assert_true(s.bytes <= cases[i].bytes && s.largest <= 64);
		if (rc < 0)
			continue;
		assert_int_equal(mf.streams[0].nsamples, 75000000);
		assert_int_equal(mf.streams[0].nchunks, 1);
		eng_mfile_clear(&mf);
	}
}

/* Files no reader takes: -EINVAL and one message naming the file;
 * a cut header too. */
static void test_not_media(void **state)
{
#define F(s) { s, sizeof(s) - 1 }
	static const struct {
		const char *b;
		size_t n;
	} files[] = {
		F(""), F("RIFF"), F("RIFF\0\0\0\0WAVX"), F("FORM\0\0\0\0AIFX"),
		F("garbage garbage garbage"), F("\0\0\0\x10junkjunkjunkjunk"),
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(files); i++) {
		struct eng_mfile mf;
		struct mem m = { .n = 0 };
		char msg[256];

		put(&m, files[i].b, files[i].n);
		assert_int_equal(read_mem(&m, &mf, msg, sizeof(msg)), -EINVAL);
		assert_string_equal(msg, "clip.wav: not a media file "
				    "timelinefs reads (QuickTime, MP4, MXF, "
				    "WAV or AIFF)");
	}
}

/* chunks: [0,10) at 1000, [10,20) at 1040 (joins it: 4-byte frames),
 * [20,30) at 5000, hole [30,40), [40,50) at 9000 */
static const struct eng_chunk chunks[] = {
	{ 1000, 0, 10 }, { 1040, 10, 10 }, { 5000, 20, 10 }, { 9000, 40, 10 },
};

static void test_samples(void **state)
{
	static const struct {
		int64_t first, n;
		int max, rc;
		struct eng_extent ext[3];
	} cases[] = {
		{ 0, 10, 4, 1, { { 1000, 40 } } },
		{ 5, 10, 4, 1, { { 1020, 40 } } },	/* joined */
		{ 0, 30, 4, 2, { { 1000, 80 }, { 5000, 40 } } },
		{ 15, 10, 1, -E2BIG, { { 0, 0 } } },
		{ 15, 10, 2, 2, { { 1060, 20 }, { 5000, 20 } } },
		{ 25, 10, 4, -ERANGE, { { 0, 0 } } },	/* the hole */
		{ 40, 10, 4, 1, { { 9000, 40 } } },
		{ 45, 6, 4, -ERANGE, { { 0, 0 } } },	/* past the end */
		{ -1, 2, 4, -ERANGE, { { 0, 0 } } },
		{ 50, 0, 4, 0, { { 0, 0 } } },
		{ 3, -1, 4, -ERANGE, { { 0, 0 } } },
		{ 0, 0, 0, 0, { { 0, 0 } } },
		/* first + n overflowed in the first version (UBSan) */
		{ 1, INT64_MAX, 4, -ERANGE, { { 0, 0 } } },
	};
	struct eng_essence e = { 0 };
	size_t i;

	(void)state;
	e.kind = ENG_ESS_AUDIO;
	e.block = 4;
	e.nsamples = 50;
	e.chunks = (struct eng_chunk *)chunks;
	e.nchunks = N(chunks);
	for (i = 0; i < N(cases); i++) {
		struct eng_extent out[4];
		int rc, k;

		memset(out, 0, sizeof(out));
		rc = eng_essence_samples(&e, cases[i].first, cases[i].n, out,
					 cases[i].max);
		print_message("case %zu: %d\n", i, rc);
		assert_int_equal(rc, cases[i].rc);
		for (k = 0; k < rc; k++) {
			assert_int_equal(out[k].off, cases[i].ext[k].off);
			assert_int_equal(out[k].len, cases[i].ext[k].len);
		}
	}
	/* a stream whose first chunk does not start at sample 0 */
	e.chunks = (struct eng_chunk *)chunks + 1;
	e.nchunks = N(chunks) - 1;
	assert_int_equal(eng_essence_samples(&e, 0, 5, NULL, 0), -ERANGE);
	/* none at all */
	e.nchunks = 0;
	assert_int_equal(eng_essence_samples(&e, 0, 5, NULL, 0), -ERANGE);
}

/* H.264 parameter sets from an Annex B access unit's start: SPS and PPS
 * (4- or 3-byte start codes, an AUD and SEI skipped, trailing zeros cut)
 * up to the first picture; none, or no PPS, is -ENOENT. */
static void test_h264_sets(void **state)
{
	static const struct {
		const char *in;
		size_t len;
		const char *want;	/* NULL: -ENOENT */
		size_t want_len;
	} cases[] = {
		{"\0\0\0\1\x09\xf0" "\0\0\0\1\x67\x64\0\x1f\0\0\0\1\x68\xee"
		 "\0\0\1\x06\x05\x01" "\0\0\1\x65\x88\x84",
		 32, "\0\0\0\1\x67\x64\0\x1f\0\0\0\1\x68\xee", 14},
		/* trailing_zero_8bits before the next start code */
		{"\0\0\1\x67\x42\0\x0a\0\0\0\0\1\x68\xce\0\0\1\x25\x88", 19,
		 "\0\0\0\1\x67\x42\0\x0a\0\0\0\1\x68\xce", 14},
		/* a set after the first picture is not its setup */
		{"\0\0\0\1\x67\x64\0\x1f\0\0\0\1\x65\x88\0\0\0\1\x68\xee", 20,
		 NULL, 0},
		{"\0\0\0\1\x41\x9a\0\0\0\1\x67\x64", 12, NULL, 0},
		{"\x67\x64\0\x1f", 4, NULL, 0},
	};
	unsigned char *out;
	size_t i, len;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		int rc = eng_h264_parameter_sets(
		    (const unsigned char *)cases[i].in, cases[i].len, &out,
		    &len);

		if (!cases[i].want) {
			assert_int_equal(rc, -ENOENT);
			assert_null(out);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(len, cases[i].want_len);
		assert_memory_equal(out, cases[i].want, len);
		free(out);
	}
}

/* Compressed audio: the packets of a range of sample frames, by their
 * times (the priming packet before 0 counted at 0), adjacent ones joined,
 * too many refused. */
static void test_packets(void **state)
{
	/* 1024 samples each from -1024; 3 at 100, 4 at 400 (after 77
	 * bytes of something else), 2 at 800 */
	uint64_t off[9] = {100, 110, 120, 407, 417, 427, 437, 800, 810};
	uint32_t len[9] = {10, 10, 10, 10, 10, 10, 10, 10, 10};
	int64_t pts[9];
	struct eng_essence e = {.kind = ENG_ESS_AUDIO, .npackets = 9,
				.off = off, .len = len, .pts = pts,
				.nsamples = 8 * 1024};
	struct eng_extent x[4];
	uint64_t b;
	int i;

	(void)state;
	for (i = 0; i < 9; i++)
		pts[i] = (i - 1) * 1024;
	/* [0, 1920): the priming packet, the ones at 0 and 1024, joined */
	assert_int_equal(eng_essence_packets(&e, 0, 1920, x, 4, &b), 1);
	assert_int_equal(x[0].off, 100);
	assert_int_equal(x[0].len, 30);
	assert_int_equal(b, 30);
	/* [1000, 3000): the ones at 1024 (120) and 2048 (407): two runs */
	assert_int_equal(eng_essence_packets(&e, 1000, 3000, x, 4, &b), 2);
	assert_int_equal(x[0].off, 120);
	assert_int_equal(x[1].off, 407);
	assert_int_equal(b, 20);
	/* everything: three runs; not in two */
	assert_int_equal(eng_essence_packets(&e, 0, 1 << 20, x, 4, &b), 3);
	assert_int_equal(x[2].off, 800);
	assert_int_equal(b, 90);
	assert_int_equal(eng_essence_packets(&e, 0, 1 << 20, x, 2, &b),
			 -E2BIG);
	/* none: between two, past the end, an empty range */
	assert_int_equal(eng_essence_packets(&e, 1, 1000, x, 4, &b), 0);
	assert_int_equal(b, 0);
	assert_int_equal(eng_essence_packets(&e, 9000, 9999, x, 4, &b), 0);
	assert_int_equal(eng_essence_packets(&e, 5, 5, x, 4, &b), 0);
	assert_int_equal(eng_essence_packet_at(&e, 0), 0);
	assert_int_equal(eng_essence_packet_at(&e, 1), 2);
	assert_int_equal(eng_essence_packet_at(&e, 99999), 9);
}

static void test_tc_text(void **state)
{
	const struct eng_fps ntsc = { 30000, 1001 }, pal = { 25, 1 };
	int64_t f;
	int drop;

	(void)state;
	assert_int_equal(eng_tc_text_frames("01:00:10:05", pal, &f, &drop), 0);
	assert_int_equal(f, 90255);
	assert_int_equal(drop, 0);
	assert_int_equal(eng_tc_text_frames("01:00:00;00", ntsc, &f, &drop),
			 0);
	assert_int_equal(f, 107892);
	assert_int_equal(drop, 1);
	assert_int_equal(eng_tc_text_frames("01:00:00;00", pal, &f, &drop),
			 -ENOTSUP);
	assert_int_equal(eng_tc_text_frames("1:00:00:00", pal, &f, &drop),
			 -EINVAL);
	assert_int_equal(eng_tc_text_frames("00:00:00:25", pal, &f, &drop),
			 -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wav),
		cmocka_unit_test(test_aiff),
		cmocka_unit_test(test_wav_sparse),
		cmocka_unit_test(test_not_media),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_tc_text),
		cmocka_unit_test(test_h264_sets),
		cmocka_unit_test(test_packets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
