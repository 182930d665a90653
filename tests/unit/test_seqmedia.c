/* SPDX-License-Identifier: MIT */
/*
 * Sequence clips resolved at mount (seqmedia.c, media.c, issue 22): a
 * folder of tiny DPX, EXR and headerless images made here, a .tl
 * timeline whose clip is made a sequence as the parsers make it
 * (eng_tl_clip_seq), then eng_media_resolve and
 * eng_tl_layout_media: the images as a video stream (the header of the
 * first image the edit plays, a compressed sequence's sizes by stat), the
 * slices of the virtual file, the media's pattern and codec, the movie's
 * refusal, and each refusal at mount naming the file and the reason.
 */
#include <dlfcn.h>
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
#include "media/imgseq.h"
#include "media/media.h"
#include "media/mov.h"
#include "media/seqgen.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"

#include "media_env.h"

static int setup(void **state)
{
	return env_open(state, "/tmp/tlfs-seqmedia-XXXXXX");
}

/* Clip `name` of tl made a sequence, as the parsers make it
 * (eng_tl_clip_seq; freed with the timeline). */
static void seq(struct eng_timeline *tl, const char *name, const char *base,
		const char *prefix, const char *suffix, int64_t start,
		int64_t step, int padding, int64_t origin)
{
	struct eng_seq_ref r = {
		.base = (char *)base, .prefix = (char *)prefix,
		.suffix = (char *)suffix, .start = start, .step = step,
		.padding = padding, .origin = origin, .line = 1,
	};
	const char *why = NULL;
	size_t c;

	for (c = 0; c < tl->nclips; c++)
		if (strcmp(tl->clips[c].name, name) == 0)
			break;
	assert_true(c < tl->nclips);
	if (eng_tl_clip_seq(tl, (uint32_t)c, &r, &why) != 0)
		fail_msg("eng_tl_clip_seq: %s", why ? why : "?");
}

/* A DPX image of `pixels` bytes after a 2048-byte header. */
static void dpx(struct env *e, const char *name, uint64_t pixels)
{
	unsigned char h[8] = { 'S', 'D', 'P', 'X', 0, 0, 8, 0 };

	put(e, name, h, sizeof(h), 2048 + pixels);
}

static void le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A scanline EXR of 32 rows, compression comp (3: ZIP, 16 rows a chunk),
 * its chunks from `first` on, `tail` bytes of them: the header and table
 * are the same for every image, the size is not. */
static uint64_t exr(struct env *e, const char *name, unsigned comp,
		    uint64_t tail)
{
	unsigned char b[512];
	size_t n = 0, chunks = comp == 3 ? 2 : 32;
	uint64_t first;

#define PUT(p, len) (memcpy(b + n, (p), (len)), n += (len))
	PUT("\x76\x2f\x31\x01\x02\0\0\0", 8);
	PUT("compression\0compression\0\x01\0\0\0", 28);
	b[n++] = (unsigned char)comp;
	PUT("dataWindow\0box2i\0\x10\0\0\0", 21);
	memset(b + n, 0, 16);
	le(b + n + 12, 31, 4);
	n += 16;
	b[n++] = 0;
#undef PUT
	first = n + 8 * chunks;
	for (size_t i = 0; i < chunks; i++) {
		le(b + n, first + 8 * i, 8);
		n += 8;
	}
	put(e, name, b, n, first + tail);
	return first;
}

static int resolve(struct eng_timeline *tl, struct env *e,
		   struct eng_diag *d)
{
	int rc = eng_media_resolve(tl, e->dfd, "DIR", d);

	if (rc == 0)
		rc = eng_tl_layout_media(tl, d);
	print_diag(d);
	return rc;
}

static const struct eng_media *media(const struct eng_timeline *tl,
				     const char *clip, const char *track)
{
	int t = eng_tl_find_track(tl, track);
	size_t c;

	assert_true(t >= 0);
	for (c = 0; c < tl->nclips; c++)
		if (strcmp(tl->clips[c].name, clip) == 0)
			return &tl->clips[c].media[t];
	fail_msg("no clip %s", clip);
	return NULL;
}

/* A DPX sequence from 86400 at padding 7 in a folder: the images the edit
 * plays (2..4, then 0..1) as frames of 600 bytes from 2048; the header
 * read is the first the edit plays (image 2, not 0); the audio of the
 * clip by the usual rules; the movie refused with the reason. */
static void test_dpx(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 24\n"
		"track V 1000\n"
		"track A1 144000 align=3\n"
		"event V,A1 a 2 3\n"
		"event V,A1 a 0 2\n");
	const struct eng_media *m;
	const struct eng_seqmedia *sm;
	struct eng_diag d = { 0 };
	struct eng_slice s;
	struct eng_mov mov;
	char name[64], why[256];
	int i;

	assert_int_equal(mkdirat(e->dfd, "A001", 0755), 0);
	/* image 0 is damaged: never read, the edit's first is image 2 */
	put(e, "A001/A001.0086400.dpx", "junk", 4, 4096);
	for (i = 1; i < 5; i++) {
		snprintf(name, sizeof(name), "A001/A001.%07d.dpx", 86400 + i);
		dpx(e, name, 600);
	}
	put(e, "a.A1.raw", NULL, 0, 30000);
	seq(tl, "a", "A001", "A001.", ".dpx", 86400, 1, 7, 0);
	assert_int_equal(resolve(tl, e, &d), 0);
	assert_int_equal(d.n, 0);
	m = media(tl, "a", "V");
	sm = m->seq;
	assert_non_null(sm);
	assert_ptr_equal(m->ess, &sm->ess);
	assert_string_equal(m->file, "A001/A001.%07d.dpx");
	assert_int_equal(m->origin, 0);
	assert_int_equal(sm->fmt, ENG_SEQ_DPX);
	assert_int_equal(sm->image, 2);
	assert_int_equal(sm->varies, 0);
	assert_string_equal(sm->ess.codec, "dpx");
	assert_int_equal(sm->ess.kind, ENG_ESS_VIDEO);
	assert_int_equal(sm->ess.nframes, 5);
	assert_int_equal(sm->ess.fps.num, 24);
	for (i = 0; i < 5; i++) {
		assert_int_equal(sm->ess.off[i], 2048);
		assert_int_equal(sm->ess.len[i], 600);
	}
	assert_int_equal(eng_seqmedia_name(sm, 3, name, sizeof(name)), 21);
	assert_string_equal(name, "A001/A001.0086403.dpx");
	assert_int_equal(eng_seqmedia_number(sm, 3), 86403);
	/* the audio: a.A1.raw, raw essence */
	assert_null(media(tl, "a", "A1")->seq);
	assert_string_equal(media(tl, "a", "A1")->file, "a.A1.raw");
	/* the virtual file: 600 bytes a frame of V, each the image's pixel
	 * data; frame k plays image 2 + k, then 0, 1 */
	assert_int_equal(tl->tracks[0].align, 600);
	for (i = 0; i < 5; i++) {
		eng_slice_get(tl, i, 0, &s);
		assert_non_null(s.seg);
		assert_int_equal(s.len, 600);
		assert_int_equal(s.next, 1);
		assert_int_equal(s.ext[0].off, 2048);
		assert_int_equal(s.ext[0].len, 600);
		assert_int_equal(eng_slice_src(tl, 0, s.seg, i),
				 i < 3 ? 2 + i : i - 3);
	}
	assert_int_equal(tl->bytes, 5 * (600 + 6000));
	/* no NAME.mov: said why */
	assert_int_equal(eng_mov_build(tl, &mov, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "track V: clip a: an image sequence (dpx): no "
			    "QuickTime mapping: dpx of 0 element(s), "
			    "descriptor 0, encoding 0: only one element of RGB "
			    "(50), unencoded, has a QuickTime mapping");
	/* a second resolution starts over (ASan: the first's freed) */
	assert_int_equal(resolve(tl, e, &d), 0);
	assert_non_null(media(tl, "a", "V")->seq);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* A DPX image header (SMPTE 268M) of one RGB element, w x h, `bits` per
 * sample, `packing`, big- or little-endian, then `pixels` bytes. */
static void dpxh(struct env *e, const char *name, int little, uint32_t w,
		 uint32_t h, unsigned bits, unsigned packing, uint64_t pixels)
{
	unsigned char b[2048] = { 0 };
	int i;

#define F(at, v, n) \
	for (i = 0; i < (n); i++) \
		b[(at) + (little ? i : (n) - 1 - i)] = \
			(unsigned char)((v) >> (8 * i))
	memcpy(b, little ? "XPDS" : "SDPX", 4);
	F(4, 2048u, 4);
	F(770, 1u, 2);
	F(772, w, 4);
	F(776, h, 4);
	b[800] = 50;
	b[803] = (unsigned char)bits;
	F(804, packing, 2);
#undef F
	put(e, name, b, sizeof(b), 2048 + pixels);
}

/* What the movie makes of a sequence (seqmedia.c's fourcc or reason):
 * tl a one-clip timeline of clip s, s.1.SUFFIX the image. */
static void movie_of(struct env *e, const char *suffix, const char *fourcc,
		     uint32_t w, uint32_t h, const char *nomovie)
{
	struct eng_timeline *tl = tl_from("fps 24\n"
					  "track V 1000\n"
					  "event V s 0 1\n");
	const struct eng_seqmedia *sm;
	struct eng_diag d = { 0 };
	struct eng_mov mov = { 0 };
	char why[512], want[512];
	uint32_t fc;

	seq(tl, "s", "", "s.", suffix, 1, 1, 0, 0);
	assert_int_equal(resolve(tl, e, &d), 0);
	sm = media(tl, "s", "V")->seq;
	fc = fourcc ? (uint32_t)fourcc[0] << 24 | (uint32_t)fourcc[1] << 16 |
		      (uint32_t)fourcc[2] << 8 | (uint32_t)fourcc[3] : 0;
	assert_int_equal(sm->ess.fourcc, fc);
	if (fourcc) {
		const uint8_t *p;

		assert_int_equal(sm->ess.width, w);
		assert_int_equal(sm->ess.height, h);
		assert_string_equal(sm->nomovie, "");
		assert_int_equal(eng_mov_build(tl, &mov, why, sizeof(why)), 0);
		/* the sample description: its four characters, then the
		 * picture's width and height 24 and 26 bytes into it */
		p = memmem(mov.head, mov.head_len, "stsd", 4);
		assert_non_null(p);
		assert_memory_equal(p + 16, fourcc, 4);
		assert_int_equal(p[44] << 8 | p[45], w);
		assert_int_equal(p[46] << 8 | p[47], h);
		eng_mov_free(&mov);
	} else {
		assert_string_equal(sm->nomovie, nomovie);
		assert_int_equal(eng_mov_build(tl, &mov, why, sizeof(why)),
				 -EINVAL);
		snprintf(want, sizeof(want), "track V: clip s: an image "
			 "sequence (%s): no QuickTime mapping: %s",
			 sm->ess.codec, nomovie);
		assert_string_equal(why, want);
	}
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* The movie of a sequence: DPX 10-bit RGB packed in method A big-endian
 * is R10k, 16-bit b48r, frametest's headerless 8-bit RGB 'raw ' at the
 * size its bytes tell; the rest refused, each with its reason. */
static void test_movie(void **state)
{
	struct env *e = *state;
	const struct eng_seqgen_format *f;
	size_t n, i, raws = 0;

	dpxh(e, "s.1.dpx", 0, 64, 48, 10, 1, 64 * 48 * 4);
	movie_of(e, ".dpx", "R10k", 64, 48, NULL);
	dpxh(e, "s.1.dpx", 0, 64, 48, 16, 0, 64 * 48 * 6);
	movie_of(e, ".dpx", "b48r", 64, 48, NULL);
	/* every frametest size timelinefs-gen writes (sparse files) */
	f = eng_seqgen_formats(&n);
	for (i = 0; i < n; i++) {
		if (f[i].im.kind != ENG_SEQGEN_RAW8)
			continue;
		put(e, "s.1.raw", NULL, 0,
		    (uint64_t)f[i].im.width * f[i].im.height * 3);
		movie_of(e, ".raw", "raw ", f[i].im.width, f[i].im.height,
			 NULL);
		raws++;
	}
	assert_int_equal(raws, 6);
	put(e, "s.1.raw", NULL, 0, 64 * 48 * 3);
	movie_of(e, ".raw", NULL, 0, 0, "headerless images of 9216 bytes: "
		 "not one of frametest's 8-bit RGB sizes, so of no known "
		 "width and height");
	dpxh(e, "s.1.dpx", 1, 64, 48, 10, 1, 64 * 48 * 4);
	movie_of(e, ".dpx", NULL, 0, 0, "little-endian dpx: QuickTime's "
		 "R10k and b48r samples are big-endian");
	dpxh(e, "s.1.dpx", 0, 64, 48, 10, 0, 64 * 48 * 4);
	movie_of(e, ".dpx", NULL, 0, 0, "dpx of 10-bit RGB, packing 0: only "
		 "10-bit packed in method A (1) (R10k) and 16-bit (b48r) "
		 "have a QuickTime mapping");
	dpxh(e, "s.1.dpx", 0, 64, 48, 12, 1, 64 * 48 * 6);
	movie_of(e, ".dpx", NULL, 0, 0, "dpx of 12-bit RGB, packing 1: only "
		 "10-bit packed in method A (1) (R10k) and 16-bit (b48r) "
		 "have a QuickTime mapping");
	dpxh(e, "s.1.dpx", 0, 64, 48, 10, 1, 64 * 47 * 4);
	movie_of(e, ".dpx", NULL, 0, 0, "dpx of 64x48 with 12032 bytes of "
		 "pixel data: not a movie's picture (12288 bytes)");
	exr(e, "s.1.exr", 0, 1000);
	movie_of(e, ".exr", NULL, 0, 0, "openexr: its half floats are "
		 "stored a channel a line, as no QuickTime sample is");
}

/* Compressed EXR: every played image's size by stat (its file less the
 * header and table of the first), a missing one keeps the first's; the
 * track then a table of sizes.  A missing image is the player's (the
 * clip's policy), not the mount's. */
static void test_exr_zip(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 24\n"
		"track V 1000\n"
		"event V z 0 4\n");
	const struct eng_seqmedia *sm;
	struct eng_diag d = { 0 };
	struct eng_slice s;
	uint64_t first;

	assert_int_equal(mkdirat(e->dfd, "z", 0755), 0);
	first = exr(e, "z/z.0001.exr", 3, 1000);
	assert_int_equal(exr(e, "z/z.0002.exr", 3, 1500), first);
	/* z.0003 missing */
	assert_int_equal(exr(e, "z/z.0004.exr", 3, 700), first);
	seq(tl, "z", "z", "z.", ".exr", 1, 1, 4, 0);
	assert_int_equal(resolve(tl, e, &d), 0);
	sm = media(tl, "z", "V")->seq;
	assert_non_null(sm);
	assert_int_equal(sm->varies, 1);
	assert_int_equal(sm->compression, 3);
	assert_string_equal(sm->ess.codec, "exr-zip");
	assert_int_equal(sm->ess.len[0], 1000);
	assert_int_equal(sm->ess.len[1], 1500);
	assert_int_equal(sm->ess.len[2], 1000);
	assert_int_equal(sm->ess.len[3], 700);
	assert_int_equal(sm->ess.len_min, 700);
	assert_int_equal(sm->ess.len_max, 1500);
	assert_non_null(tl->tracks[0].upto);
	assert_int_equal(tl->bytes, 1000 + 1500 + 1000 + 700);
	eng_slice_get(tl, 1, 0, &s);
	assert_int_equal(s.pos, 1000);
	assert_int_equal(s.len, 1500);
	assert_int_equal(s.ext[0].off, first);
	/* uncompressed EXR: one header, one size */
	eng_tl_free(tl);
	tl = tl_from("fps 24\ntrack V 1000\nevent V u 0 2\n");
	first = exr(e, "u.1.exr", 0, 3200);
	seq(tl, "u", "", "u.", ".exr", 1, 1, 0, 0);
	assert_int_equal(resolve(tl, e, &d), 0);
	sm = media(tl, "u", "V")->seq;
	assert_int_equal(sm->varies, 0);
	assert_string_equal(sm->ess.codec, "exr");
	assert_string_equal(media(tl, "u", "V")->file, "u.%d.exr");
	assert_int_equal(tl->tracks[0].align, 3200);
	eng_slice_get(tl, 1, 0, &s);
	assert_int_equal(s.ext[0].off, first);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* Headerless frames (*.raw): the whole file, no header; step 2 at
 * padding 4 across 9998 -> 10000 (OTIO's rate 50 over the step 2: the
 * timeline's 25); the edit from image 1. */
static void test_raw(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 25\n"
		"track V 1000\n"
		"event V r 1 2\n");
	const struct eng_seqmedia *sm;
	struct eng_diag d = { 0 };
	struct eng_slice s;

	put(e, "r.10000.raw", NULL, 0, 3 * 64 * 48);
	seq(tl, "r", "", "r.", ".raw", 9998, 2, 4, 0);
	/* OTIO's rate of a step-2 sequence: 50 over 2 at 25 fps */
	tl->clips[0].seq->rate = (struct eng_fps){ 50, 1 };
	assert_int_equal(resolve(tl, e, &d), 0);
	sm = media(tl, "r", "V")->seq;
	assert_int_equal(sm->fmt, ENG_SEQ_RAW);
	assert_int_equal(sm->image, 1);
	assert_int_equal(eng_seqmedia_number(sm, 2), 10002);
	assert_string_equal(sm->ess.codec, "raw");
	assert_string_equal(media(tl, "r", "V")->file, "r.%04d.raw");
	eng_slice_get(tl, 0, 0, &s);
	assert_int_equal(s.ext[0].off, 0);
	assert_int_equal(s.len, 3 * 64 * 48);
	assert_int_equal(eng_slice_src(tl, 0, s.seg, 0), 1);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* Each refusal at mount: one message naming timeline, line, clip,
 * track, the file and the reason. */
static void test_refusals(void **state)
{
	static const struct {
		const char *base, *suffix;
		int64_t origin;
		struct eng_fps rate;
		const char *want;
	} cases[] = {
		/* the first image the edit plays is missing */
		{ "B", ".dpx", 5, { 0, 0 }, "t.tl:3: clip b track V: cannot "
		  "open DIR/B/b.0105.dpx, the first image the edit plays: No "
		  "such file or directory" },
		/* before image 0 */
		{ "B", ".dpx", -2, { 0, 0 }, "t.tl:3: clip b track V: the "
		  "edit plays image -2 of the sequence, 2 before its first, "
		  "DIR/B/b.0100.dpx (source frame 0 is image -2)" },
		/* not an image its reader knows */
		{ "B", ".tif", 0, { 0, 0 }, "t.tl:3: clip b track V: "
		  "DIR/B/b.0100.tif: not a dpx, tiff or exr file (first "
		  "bytes 52 49 46 46)" },
		/* OTIO's rate over the step against the timeline's (48
		 * over step 1; the right one, 50 over 2 at 25 fps, in test_raw) */
		{ "B", ".dpx", 0, { 48, 1 }, "t.tl:1: clip b track V: "
		  "DIR/B/b.%04d.dpx: images at rate 48/1 over step 1 are not "
		  "the timeline's 24/1 frames a second: a frame plays one "
		  "image" },
		/* a folder that is a symlink: never followed */
		{ "L", ".dpx", 0, { 0, 0 }, "t.tl:3: clip b track V: cannot "
		  "open DIR/L/b.0100.dpx, the first image the edit plays: Too "
		  "many levels of symbolic links" },
		/* the first image a folder */
		{ "B", ".dir", 0, { 0, 0 }, "t.tl:3: clip b track V: "
		  "DIR/B/b.0100.dir, the first image the edit plays, is not "
		  "a regular file" },
	};
	struct env *e = *state;
	size_t i;

	assert_int_equal(mkdirat(e->dfd, "B", 0755), 0);
	assert_int_equal(symlinkat("B", e->dfd, "L"), 0);
	dpx(e, "B/b.0100.dpx", 600);
	dpx(e, "B/b.0101.dpx", 600);
	put(e, "B/b.0100.tif", "RIFF....", 8, 64);
	assert_int_equal(mkdirat(e->dfd, "B/b.0100.dir", 0755), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct eng_timeline *tl = tl_from(
			"fps 24\n"
			"track V 1000\n"
			"event V b 0 2\n");
		struct eng_diag d = { 0 };

		seq(tl, "b", cases[i].base, "b.", cases[i].suffix, 100, 1, 4,
		    cases[i].origin);
		tl->clips[0].seq->rate = cases[i].rate;
		if (eng_media_resolve(tl, e->dfd, "DIR", &d) != -EINVAL ||
		    d.n != 1 || strcmp(d.msgs[0], cases[i].want)) {
			print_diag(&d);
			fail_msg("case %zu: want %s", i, cases[i].want);
		}
		eng_diag_free(&d);
		eng_tl_free(tl);
	}
}

/* Compressed TIFF: its strips differ in size frame to frame and the IFD
 * may follow them, so a stat cannot size a frame: refused by name. */
static void test_tiff_compressed(void **state)
{
	/* II*\0, IFD at 8: Compression 8, StripOffsets 100, counts 50 */
	static const unsigned char tif[] = {
		'I', 'I', 42, 0, 8, 0, 0, 0,
		3, 0,
		3, 1, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0,
		17, 1, 4, 0, 1, 0, 0, 0, 100, 0, 0, 0,
		23, 1, 4, 0, 1, 0, 0, 0, 50, 0, 0, 0,
		0, 0, 0, 0,
	};
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 24\n"
		"track V 1000\n"
		"event V t 0 1\n");
	struct eng_diag d = { 0 };

	put(e, "t.0.tif", tif, sizeof(tif), 150);
	seq(tl, "t", "", "t.", ".tif", 0, 1, 0, 0);
	assert_int_equal(eng_media_resolve(tl, e->dfd, "DIR", &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0], "t.tl:3: clip t track V: DIR/t.0.tif: "
			    "compressed tiff (compression 8): its strips "
			    "differ frame to frame, only uncompressed tiff "
			    "sequences are read");
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* A sequence and raw media on one video track: refused by the layout,
 * naming both kinds. */
static void test_mixed(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(
		"fps 24\n"
		"track V 24000\n"
		"event V a 0 1\n"
		"event V r 0 1\n");
	struct eng_diag d = { 0 };

	dpx(e, "a.1.dpx", 600);
	put(e, "r.V.raw", NULL, 0, 1000);
	seq(tl, "a", "", "a.", ".dpx", 1, 1, 0, 0);
	assert_int_equal(eng_media_resolve(tl, e->dfd, "DIR", &d), 0);
	assert_int_equal(eng_tl_layout_media(tl, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0], "t.tl:4: clip r on track V is raw "
			    "media (24000 bytes a second, align 1), but clip "
			    "a (line 3) is an image sequence (dpx): one track "
			    "plays one kind of media");
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* Where a sequence's folder is looked for: an OTIO target_url_base that
 * names, by its full path, a folder inside the media folder (or the media
 * folder itself) there first, then by its last component; a pattern
 * without a folder (an EDL's name) in the media folder, then in
 * MEDIA_DIR/CLIP/, where timelinefs-gen writes sequences.  The clip's
 * pattern becomes the folder found (the media table, --dump-tl). */
/* realpath of the media folder, counted: a resolve asks it once, not once
 * a sequence clip (an interposer before libc's). */
static const char *counted_dir;
static int realpath_calls;

char *realpath(const char *path, char *resolved)
{
	char *(*real)(const char *, char *) =
		(char *(*)(const char *, char *))dlsym(RTLD_NEXT, "realpath");

	if (counted_dir && strcmp(path, counted_dir) == 0)
		realpath_calls++;
	return real(path, resolved);
}

static void test_seq_folders(void **state)
{
	struct env *e = *state;
	static const char text[] =
		"fps 24\n"
		"track V 1000\n"
		"event V a 0 1\n"
		"event V b 0 1\n"
		"event V c 0 1\n"
		"event V d 0 1\n";
	struct eng_timeline *tl = tl_from(text);
	char a001[] = "A001", pre[] = "A001.", dpre[] = "d.", sfx[] = ".dpx",
	     none[] = "", out[] = "/renders/A001";
	struct eng_seq_ref r = { .prefix = pre, .suffix = sfx, .start = 1,
				 .step = 1, .padding = 7, .line = 1 };
	struct eng_diag d = { 0 };
	char full[128], root[128], *slash;
	const char *why;

	assert_int_equal(mkdirat(e->dfd, "shots", 0755), 0);
	assert_int_equal(mkdirat(e->dfd, "shots/A001", 0755), 0);
	assert_int_equal(mkdirat(e->dfd, "A001", 0755), 0);
	assert_int_equal(mkdirat(e->dfd, "d", 0755), 0);
	dpx(e, "shots/A001/A001.0000001.dpx", 600);
	dpx(e, "A001/A001.0000001.dpx", 800);
	dpx(e, "A001.0000001.dpx", 700);
	dpx(e, "d/d.0000001.dpx", 500);
	/* a: file:///MEDIA/shots/A001/, b: the media folder itself, c: a
	 * folder outside it, d: no folder, found in d/ */
	snprintf(full, sizeof(full), "%s/shots/A001/", e->dir);
	snprintf(root, sizeof(root), "%s", e->dir);
	slash = strrchr(root, '/');
	r.base = a001;
	r.dir = full;
	assert_int_equal(eng_tl_clip_seq(tl, 0, &r, &why), 0);
	r.base = slash + 1;
	r.dir = root;
	assert_int_equal(eng_tl_clip_seq(tl, 1, &r, &why), 0);
	r.base = a001;
	r.dir = out;
	assert_int_equal(eng_tl_clip_seq(tl, 2, &r, &why), 0);
	r.base = none;
	r.dir = NULL;
	r.prefix = dpre;
	assert_int_equal(eng_tl_clip_seq(tl, 3, &r, &why), 0);
	counted_dir = e->dir;
	realpath_calls = 0;
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), 0);
	counted_dir = NULL;
	assert_int_equal(realpath_calls, 1);
	print_diag(&d);
	assert_string_equal(media(tl, "a", "V")->file,
			    "shots/A001/A001.%07d.dpx");
	assert_int_equal(media(tl, "a", "V")->seq->ess.len[0], 600);
	assert_string_equal(media(tl, "b", "V")->file, "A001.%07d.dpx");
	assert_int_equal(media(tl, "b", "V")->seq->ess.len[0], 700);
	assert_string_equal(media(tl, "c", "V")->file, "A001/A001.%07d.dpx");
	assert_int_equal(media(tl, "c", "V")->seq->ess.len[0], 800);
	assert_string_equal(media(tl, "d", "V")->file, "d/d.%07d.dpx");
	assert_int_equal(media(tl, "d", "V")->seq->ess.len[0], 500);
	assert_string_equal(tl->clips[3].seq->base, "d");
	/* a second resolution finds the same */
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), 0);
	assert_string_equal(media(tl, "a", "V")->file,
			    "shots/A001/A001.%07d.dpx");
	eng_diag_free(&d);
	eng_tl_free(tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dpx, setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_exr_zip, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_raw, setup, env_teardown),
		cmocka_unit_test_setup_teardown(test_movie, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_tiff_compressed, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_seq_folders, setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_mixed, setup,
						env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
