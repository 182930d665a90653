/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for media resolution on a real temporary folder: raw and WAV
 * files, the WAV data chunk, missing, ambiguous and non-regular matches,
 * the exact essence length each segment needs, and the mount's recordings
 * (edit while ingest).
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

#include "ingest/ingest.h"
#include "media/media.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"

#include "media_env.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static int env_setup(void **state)
{
	return env_open(state, "/tmp/test_media.XXXXXX");
}

static void le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static size_t chunk(unsigned char *p, const char *id, uint32_t size)
{
	memcpy(p, id, 4);
	le32(p + 4, size);
	return 8;
}

/* RIFF/WAVE with fmt, then an odd-sized LIST chunk (padded), then data:
 * the data starts at 12 + 24 + (8 + 5 + 1) + 8 = 58. */
#define WAV_OFF 58
static size_t wav_head(unsigned char *b, uint32_t data_size)
{
	size_t n = 0;

	n += chunk(b + n, "RIFF", 0);
	memcpy(b + n, "WAVE", 4);
	n += 4;
	n += chunk(b + n, "fmt ", 16);
	memset(b + n, 1, 16);
	n += 16;
	n += chunk(b + n, "LIST", 5);
	memcpy(b + n, "abcde", 5);
	b[n + 5] = 0;		/* the pad byte */
	n += 6;
	n += chunk(b + n, "data", data_size);
	return n;
}

/* eng_wav_data on an exact-size heap copy, so ASan sees any over-read. */
static int wav_data(const unsigned char *b, size_t len, uint64_t *off,
		    uint64_t *size)
{
	unsigned char *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, b, len);
	rc = eng_wav_data(copy, len, off, size);
	free(copy);
	return rc;
}

static void test_wav_data(void **state)
{
	unsigned char b[256];
	uint64_t off = 1, size = 1;
	size_t n;

	(void)state;
	n = wav_head(b, 1000);
	assert_int_equal(n, WAV_OFF);
	assert_int_equal(wav_data(b, n, &off, &size), 0);
	assert_int_equal(off, WAV_OFF);
	assert_int_equal(size, 1000);
	/* one byte short of the data chunk header */
	assert_int_equal(wav_data(b, n - 1, &off, &size), -EINVAL);
	assert_int_equal(wav_data(b, 12, &off, &size), -EINVAL);
	assert_int_equal(wav_data(b, 11, &off, &size), -EINVAL);
	assert_int_equal(wav_data(b, 0, &off, &size), -EINVAL);

	/* streaming writers: 0 and all ones mean "to the end of the file" */
	n = wav_head(b, 0);
	assert_int_equal(wav_data(b, n, &off, &size), 0);
	assert_int_equal(size, UINT64_MAX);
	n = wav_head(b, UINT32_MAX);
	assert_int_equal(wav_data(b, n, &off, &size), 0);
	assert_int_equal(size, UINT64_MAX);

	/* RF64 */
	memcpy(b, "RF64", 4);
	assert_int_equal(wav_data(b, n, &off, &size), 0);
	assert_int_equal(off, WAV_OFF);

	/* not RIFF/WAVE */
	memcpy(b, "RIFX", 4);
	assert_int_equal(wav_data(b, n, &off, &size), -EINVAL);
	wav_head(b, 10);
	memcpy(b + 8, "AVI ", 4);
	assert_int_equal(wav_data(b, n, &off, &size), -EINVAL);

	/* a chunk whose size points past the buffer (and past 4 GiB) */
	wav_head(b, 10);
	le32(b + 16, UINT32_MAX);
	assert_int_equal(wav_data(b, n, &off, &size), -EINVAL);
	/* LIST of 5 bytes is followed by a pad byte (found above, at 58);
	 * declared as 6 it ends at the same place, as 4 one byte early so
	 * that the walk lands inside LIST and never finds "data" */
	wav_head(b, 10);
	le32(b + 40, 6);
	assert_int_equal(wav_data(b, n, &off, &size), 0);
	assert_int_equal(off, WAV_OFF);
	le32(b + 40, 4);
	assert_int_equal(wav_data(b, n, &off, &size), -EINVAL);
	/* 3 is odd: 3 + pad also ends inside LIST */
	le32(b + 40, 3);
	assert_int_equal(wav_data(b, n, &off, &size), -EINVAL);
}

/* A recording's WAV header as ingest.h lays it out before its close:
 * RIFF and data sizes 0xFFFFFFFF, JUNK to the essence at 4096. */
static void rec_wav_head(unsigned char b[4096])
{
	size_t n = 0;

	memset(b, 0, 4096);
	n += chunk(b + n, "RIFF", UINT32_MAX);
	memcpy(b + n, "WAVE", 4);
	n += 4;
	n += chunk(b + n, "JUNK", 28) + 28;
	n += chunk(b + n, "fmt ", 16);
	b[n] = 1;			/* PCM */
	b[n + 2] = 1;			/* mono */
	le32(b + n + 4, 48000);
	le32(b + n + 8, 48000 * 3);
	b[n + 12] = 3;
	b[n + 14] = 24;
	n += 16;
	n += chunk(b + n, "JUNK", 4008) + 4008;
	assert_int_equal(n, 4088);
	chunk(b + n, "data", UINT32_MAX);
}

/* A recording's WAV (engine/ingest/ingest.h) before its close, and after
 * a close past 4 GiB made it RF64 (ds64 where the first JUNK was): the
 * essence at 4096, "to the end of the file". */
static void test_wav_recording(void **state)
{
	unsigned char b[4096];
	uint64_t off = 0, size = 0;

	(void)state;
	rec_wav_head(b);
	assert_int_equal(wav_data(b, sizeof(b), &off, &size), 0);
	assert_int_equal(off, ENG_INGEST_WAV_DATA);
	assert_int_equal(size, UINT64_MAX);
	memcpy(b, "RF64", 4);
	memcpy(b + 12, "ds64", 4);
	assert_int_equal(wav_data(b, sizeof(b), &off, &size), 0);
	assert_int_equal(off, ENG_INGEST_WAV_DATA);
	assert_int_equal(size, UINT64_MAX);
	/* media/ names ingest's folder, essence start and note as it does */
	assert_string_equal(ENG_MEDIA_INGEST_DIR, ENG_INGEST_DIR);
	assert_int_equal(ENG_MEDIA_INGEST_WAV_DATA, ENG_INGEST_WAV_DATA);
	assert_string_equal(ENG_MEDIA_INGEST_NOTE_EXT, ENG_INGEST_NOTE_EXT);
}

static void expect_msgs(const struct eng_diag *d, const char *const *want,
			size_t n)
{
	size_t i;

	if (d->n != n) {
		print_diag(d);
		fail_msg("%zu messages, want %zu", d->n, n);
	}
	for (i = 0; i < n; i++)
		if (strcmp(d->msgs[i], want[i]) != 0) {
			print_diag(d);
			fail_msg("message %zu: want '%s'", i, want[i]);
		}
}

/* 25 fps: V is 40 bytes a frame, A1 4 bytes (two 2-byte samples). */
static const char tl_basic[] =
	"fps 25\n"
	"track V 1000\n"
	"track A1 100 align=2\n"
	"event V,A1 c1 0 10\n"		/* 4: c1.V 400 B, c1.A1 40 B */
	"event V a.b 5 5\n"		/* 5: a.b.V 400 B */
	"event A1 c2 0 2\n";		/* 6: c2.A1 8 B */

static void test_resolve(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(tl_basic);
	struct eng_diag d = { 0 };
	unsigned char h[64];
	const struct eng_media *m;
	off_t pos;
	int fd;

	put(e, "c1.V.yuv", NULL, 0, 400);
	/* trailing chunks after the data do not count as essence */
	put(e, "c1.A1.wav", h, wav_head(h, 40), WAV_OFF + 40 + 60);
	put(e, "a.b.V.raw", NULL, 0, 1000);
	/* data size 0: to the end of the file */
	put(e, "c2.A1.WAV", h, wav_head(h, 0), WAV_OFF + 9);
	/* near misses that must not match */
	put(e, "c1.V", NULL, 0, 1);
	put(e, "c1.V.", NULL, 0, 1);
	put(e, "c1.Vx.yuv", NULL, 0, 1);
	put(e, "c10.V.yuv", NULL, 0, 1);
	put(e, "xc1.V.yuv", NULL, 0, 1);
	put(e, "c1..V.yuv", NULL, 0, 1);
	put(e, "a.V.yuv", NULL, 0, 1);	/* clip "a" is not used */
	put(e, "c2.V.yuv", NULL, 0, 1);	/* c2 has no V segment */
	assert_int_equal(mkdirat(e->dfd, "sub", 0755), 0);

	pos = lseek(e->dfd, 0, SEEK_CUR);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), 0);
	print_diag(&d);
	assert_int_equal(d.n, 0);
	/* the caller's dirfd is neither closed nor moved */
	assert_int_equal(lseek(e->dfd, 0, SEEK_CUR), pos);
	fd = openat(e->dfd, "c1.V.yuv", O_RDONLY);
	assert_true(fd >= 0);
	close(fd);

	m = tl->clips[0].media;		/* c1 */
	assert_string_equal(m[0].file, "c1.V.yuv");
	assert_int_equal(m[0].header, 0);
	assert_int_equal(m[0].size, 400);
	assert_string_equal(m[1].file, "c1.A1.wav");
	assert_int_equal(m[1].header, WAV_OFF);
	assert_int_equal(m[1].size, 40);
	m = tl->clips[1].media;		/* a.b */
	assert_string_equal(tl->clips[1].name, "a.b");
	assert_string_equal(m[0].file, "a.b.V.raw");
	assert_int_equal(m[0].size, 1000);
	assert_null(m[1].file);
	m = tl->clips[2].media;		/* c2: upper-case .WAV is WAV too */
	assert_null(m[0].file);
	assert_string_equal(m[1].file, "c2.A1.WAV");
	assert_int_equal(m[1].header, WAV_OFF);
	assert_int_equal(m[1].size, 9);

	/* slices now read past the WAV header */
	{
		struct eng_slice s;

		eng_slice_get(tl, 3, 1, &s);
		assert_int_equal(s.file_off, WAV_OFF + 12);
	}

	/* resolving again starts over (no leak, same result) */
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), 0);
	assert_string_equal(tl->clips[0].media[1].file, "c1.A1.wav");
	eng_tl_free(tl);
	eng_diag_free(&d);
}

/* 25 fps: V 40 bytes a frame, A1 5760 (48 kHz 24-bit mono). */
static const char tl_rec[] =
	"fps 25\n"
	"track V 1000\n"
	"track A1 144000 align=3\n"
	"event V,A1 cam 0 10\n"		/* 4: 400 B, 57600 B */
	"event V,A1 cam2 0 10 @10\n"	/* 5 */
	"event V both 0 10 @20\n"	/* 6 */
	"event V gone 0 2 @30\n";	/* 7 */

static const struct eng_media *clip_media(const struct eng_timeline *tl,
					 const char *name)
{
	size_t c;

	for (c = 0; c < tl->nclips; c++)
		if (strcmp(tl->clips[c].name, name) == 0)
			return tl->clips[c].media;
	fail_msg("no clip %s", name);
	return NULL;
}

static void put_note(struct env *e, const char *name, const char *state)
{
	char text[128];

	snprintf(text, sizeof(text),
		 "# timelinefs recording\npreset seed\nstate %s\n", state);
	put(e, name, text, strlen(text), strlen(text));
}

/*
 * Edit while ingest (issue 23): a clip that MEDIA_DIR does not hold is
 * looked for among the recordings, MEDIA_DIR/ingest/NAME.V.raw and
 * NAME.A1.wav: short ones (cam: 3 frames of video, a WAV of its header
 * and 100 bytes) and absent ones whose note says it is being recorded
 * (cam2) are sized from the timeline, not "too short"; a closed
 * recording's absent file is no media (gone); MEDIA_DIR comes first
 * (both); no link is followed, the folder's own included.  Before,
 * cam, cam2 and both's recording were "no media file".
 */
static void test_recording(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(tl_rec);
	struct eng_diag d = { 0 };
	const struct eng_media *m;
	unsigned char h[4096];
	char want[512];
	const char *wantp[3];

	assert_int_equal(mkdirat(e->dfd, "ingest", 0755), 0);
	put(e, "ingest/cam.V.raw", NULL, 0, 120);
	rec_wav_head(h);
	put(e, "ingest/cam.A1.wav", h, sizeof(h), sizeof(h) + 100);
	put_note(e, "ingest/cam.rec", "closed");
	put_note(e, "ingest/cam2.rec", "recording");
	put(e, "both.V.raw", NULL, 0, 400);
	put(e, "ingest/both.V.raw", NULL, 0, 40);
	put_note(e, "ingest/gone.rec", "closed");
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	snprintf(want, sizeof(want),
		 "t.tl:7: clip gone track V: no media file %s/gone.V.* (nor "
		 "gone.mov, .mp4, .mxf or an OP-Atom file of the clip)",
		 e->dir);
	wantp[0] = want;
	expect_msgs(&d, wantp, 1);
	eng_diag_free(&d);
	m = clip_media(tl, "cam");
	assert_string_equal(m[0].file, "ingest/cam.V.raw");
	assert_int_equal(m[0].header, 0);
	assert_int_equal(m[0].size, 400);
	assert_null(m[0].ess);
	assert_string_equal(m[1].file, "ingest/cam.A1.wav");
	assert_int_equal(m[1].header, 4096);
	assert_int_equal(m[1].size, 57600);
	assert_null(m[1].ess);
	m = clip_media(tl, "cam2");
	assert_string_equal(m[0].file, "ingest/cam2.V.raw");
	assert_int_equal(m[0].header, 0);
	assert_int_equal(m[0].size, 400);
	assert_string_equal(m[1].file, "ingest/cam2.A1.wav");
	assert_int_equal(m[1].header, 4096);
	assert_int_equal(m[1].size, 57600);
	m = clip_media(tl, "both");
	assert_string_equal(m[0].file, "both.V.raw");

	/* longer than the edit needs: its own size; the timeline resolves */
	assert_int_equal(unlinkat(e->dfd, "ingest/gone.rec", 0), 0);
	put(e, "ingest/gone.V.raw", NULL, 0, 1000);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), 0);
	assert_int_equal(d.n, 0);
	m = clip_media(tl, "gone");
	assert_string_equal(m[0].file, "ingest/gone.V.raw");
	assert_int_equal(m[0].size, 1000);

	/* a track file that is a link: refused, not followed */
	assert_int_equal(unlinkat(e->dfd, "ingest/gone.V.raw", 0), 0);
	assert_int_equal(symlinkat("../both.V.raw", e->dfd,
				   "ingest/gone.V.raw"), 0);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "clip gone track V: cannot open "));
	assert_non_null(strstr(d.msgs[0], "/ingest/gone.V.raw: Too many "
					  "levels of symbolic links"));
	eng_diag_free(&d);
	assert_int_equal(unlinkat(e->dfd, "ingest/gone.V.raw", 0), 0);

	/* the folder a link: no recording is found through it */
	assert_int_equal(renameat(e->dfd, "ingest", e->dfd, "real"), 0);
	assert_int_equal(symlinkat("real", e->dfd, "ingest"), 0);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	assert_int_equal(d.n, 5);	/* cam, cam2 (V, A1), gone */
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* 25 fps as tl_rec: cam1 and short are recorded through the mount. */
static const char tl_record[] =
	"fps 25\n"
	"track V 1000\n"
	"track A1 144000 align=3\n"
	"record cam1\n"				/* 4 */
	"event V,A1 cam1 0 10\n"			/* 5: 400 B, 57600 B */
	"event V,A1 plain 0 10 @10\n"		/* 6 */
	"record short\n"				/* 7 */
	"event V,A1 short 0 10 @20\n";		/* 8 */

/*
 * A recorded clip (a .tl record line: the mount will record it) is the
 * recording MEDIA_DIR/ingest/NAME.V.raw and .A1.wav only: absent (no
 * folder ingest, no file, no note) or short, it is sized from the
 * timeline; a file of its name in MEDIA_DIR is not it.  A clip without
 * the line stays refused when nothing holds it (a misspelt clip must not
 * become a wait).  What cannot be its recording is told: a track no
 * recording has, the folder a link, a track file not a regular file.
 * Before the record line, cam1 and short were "no media file".
 */
static void test_record_clip(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(tl_record);
	struct eng_diag d = { 0 };
	const struct eng_media *m;
	unsigned char h[4096];
	char want[2][512];
	const char *wantp[2] = { want[0], want[1] };
	const char *clip;
	int i;

	/* cam1's files in MEDIA_DIR are not its recording */
	put(e, "cam1.V.raw", NULL, 0, 4000);
	put(e, "cam1.A1.wav", NULL, 0, 4000);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	snprintf(want[0], sizeof(want[0]),
		 "t.tl:6: clip plain track V: no media file %s/plain.V.* (nor "
		 "plain.mov, .mp4, .mxf or an OP-Atom file of the clip)",
		 e->dir);
	snprintf(want[1], sizeof(want[1]),
		 "t.tl:6: clip plain track A1: no media file %s/plain.A1.* (nor "
		 "plain.mov, .mp4, .mxf or an OP-Atom file of the clip)",
		 e->dir);
	expect_msgs(&d, wantp, 2);
	eng_diag_free(&d);
	for (i = 0; i < 2; i++) {
		clip = i ? "short" : "cam1";
		m = clip_media(tl, clip);
		assert_non_null(strstr(m[0].file, clip));
		assert_int_equal(strncmp(m[0].file, "ingest/", 7), 0);
		assert_int_equal(m[0].header, 0);
		assert_int_equal(m[0].size, 400);
		assert_null(m[0].ess);
		assert_int_equal(strncmp(m[1].file, "ingest/", 7), 0);
		assert_int_equal(m[1].header, 4096);
		assert_int_equal(m[1].size, 57600);
	}
	assert_string_equal(clip_media(tl, "cam1")[1].file,
			    "ingest/cam1.A1.wav");

	/* the folder, short's recording short, plain's in MEDIA_DIR */
	assert_int_equal(mkdirat(e->dfd, "ingest", 0755), 0);
	put(e, "ingest/short.V.raw", NULL, 0, 120);
	rec_wav_head(h);
	put(e, "ingest/short.A1.wav", h, sizeof(h), sizeof(h) + 100);
	put(e, "plain.V.raw", NULL, 0, 400);
	put(e, "plain.A1.raw", NULL, 0, 57600);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), 0);
	m = clip_media(tl, "short");
	assert_string_equal(m[0].file, "ingest/short.V.raw");
	assert_int_equal(m[0].size, 400);
	assert_string_equal(m[1].file, "ingest/short.A1.wav");
	assert_int_equal(m[1].header, 4096);
	assert_int_equal(m[1].size, 57600);
	assert_string_equal(clip_media(tl, "cam1")[0].file,
			    "ingest/cam1.V.raw");

	/* a track file that is no regular file */
	assert_int_equal(mkdirat(e->dfd, "ingest/cam1.V.raw", 0755), 0);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	snprintf(want[0], sizeof(want[0]),
		 "t.tl:5: clip cam1 track V: %s/ingest/cam1.V.raw is not a "
		 "regular file", e->dir);
	expect_msgs(&d, wantp, 1);
	eng_diag_free(&d);
	assert_int_equal(unlinkat(e->dfd, "ingest/cam1.V.raw", AT_REMOVEDIR),
			 0);

	/* the folder a link: not followed, said for each recorded track */
	assert_int_equal(renameat(e->dfd, "ingest", e->dfd, "real"), 0);
	assert_int_equal(symlinkat("real", e->dfd, "ingest"), 0);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	assert_int_equal(d.n, 4);	/* cam1, short (V, A1) */
	snprintf(want[0], sizeof(want[0]),
		 "t.tl:5: clip cam1 track V: a recorded clip (record on line "
		 "4): cannot open the folder %s/ingest: a symbolic link (not "
		 "followed)", e->dir);
	assert_string_equal(d.msgs[0], want[0]);
	eng_diag_free(&d);
	eng_tl_free(tl);

	/* a track that no recording has */
	tl = tl_from("fps 25\ntrack X 1000\nrecord cam1\nevent X cam1 0 1\n");
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	snprintf(want[0], sizeof(want[0]),
		 "t.tl:4: clip cam1 track X: a recorded clip (record on line "
		 "3) plays a recording's files, %s/ingest/cam1.V.raw and "
		 ".A1.wav ..: no track of that name", e->dir);
	expect_msgs(&d, wantp, 1);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

static void test_problems(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from(tl_basic);
	struct eng_diag d = { 0 };
	unsigned char h[64];
	char want[8][512];
	const char *wantp[8];
	size_t i;

	/* c1.V: ambiguous (three); c1.A1: missing, but a directory matches;
	 * a.b.V: a symlink only; c2.A1: a .wav that is not WAV */
	put(e, "c1.V.yuv", NULL, 0, 400);
	put(e, "c1.V.raw", NULL, 0, 400);
	put(e, "c1.V.zzz", NULL, 0, 400);
	assert_int_equal(mkdirat(e->dfd, "c1.A1.d", 0755), 0);
	put(e, "target", NULL, 0, 1000);
	assert_int_equal(symlinkat("target", e->dfd, "a.b.V.yuv"), 0);
	put(e, "c2.A1.wav", "not a wav", 9, 100);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	snprintf(want[0], sizeof(want[0]),
		 "t.tl:4: clip c1 track V: ambiguous: %s/c1.V.raw, %s/c1.V.yuv and more",
		 e->dir, e->dir);
	snprintf(want[1], sizeof(want[1]),
		 "t.tl:4: clip c1 track A1: no media file: %s/c1.A1.d is a directory, only regular files are used",
		 e->dir);
	snprintf(want[2], sizeof(want[2]),
		 "t.tl:5: clip a.b track V: no media file: %s/a.b.V.yuv is a symbolic link (not followed), only regular files are used",
		 e->dir);
	snprintf(want[3], sizeof(want[3]),
		 "t.tl:6: clip c2 track A1: %s/c2.A1.wav is not a RIFF/WAVE file with a data chunk in its first 64 KiB",
		 e->dir);
	for (i = 0; i < 4; i++)
		wantp[i] = want[i];
	expect_msgs(&d, wantp, 4);
	assert_null(tl->clips[0].media[0].file);
	eng_diag_free(&d);

	/* two of them: no "and more"; nothing at all: "no media file" */
	assert_int_equal(unlinkat(e->dfd, "c1.V.zzz", 0), 0);
	assert_int_equal(unlinkat(e->dfd, "c1.A1.d", AT_REMOVEDIR), 0);
	/* a regular file beside the symlink is used, the link ignored */
	put(e, "a.b.V.raw", NULL, 0, 400);
	put(e, "c2.A1.wav", h, wav_head(h, 8), WAV_OFF + 8);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	snprintf(want[0], sizeof(want[0]),
		 "t.tl:4: clip c1 track V: ambiguous: %s/c1.V.raw, %s/c1.V.yuv",
		 e->dir, e->dir);
	snprintf(want[1], sizeof(want[1]),
		 "t.tl:4: clip c1 track A1: no media file %s/c1.A1.* (nor "
		 "c1.mov, .mp4, .mxf or an OP-Atom file of the clip)", e->dir);
	for (i = 0; i < 2; i++)
		wantp[i] = want[i];
	expect_msgs(&d, wantp, 2);
	assert_string_equal(tl->clips[1].media[0].file, "a.b.V.raw");
	assert_string_equal(tl->clips[2].media[1].file, "c2.A1.wav");
	eng_diag_free(&d);
	eng_tl_free(tl);

	/* an unreadable folder */
	tl = tl_from(tl_basic);
	assert_int_equal(eng_media_resolve(tl, -1, "/nowhere", &d), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "/nowhere: cannot read media folder"));
	eng_diag_free(&d);
	eng_tl_free(tl);
}

static uint64_t upto(const struct eng_timeline *tl, size_t t, int64_t k)
{
	return eng_upto(tl, t, k);
}

/* docs/design.md, frame by frame: slice k reads upto(src) .. + len(k). */
static uint64_t brute_need(const struct eng_timeline *tl, size_t t,
			   const struct eng_segment *s)
{
	uint64_t best = 0;
	int64_t k;

	for (k = s->rec_in; k < s->rec_in + s->frames; k++) {
		uint64_t end = upto(tl, t, s->src_in + k - s->rec_in) +
			       upto(tl, t, k + 1) - upto(tl, t, k);

		best = end > best ? end : best;
	}
	return best;
}

/*
 * The exact boundary: a file holding exactly what the segment needs
 * passes, one byte less fails, for cadences where the source and record
 * phases differ, for a track below one sample a frame (the slow path),
 * raw and WAV.
 */
static void test_too_short(void **state)
{
	static const struct {
		const char *fps, *rate;
		unsigned align;
		int64_t src, frames, rec;
	} cases[] = {
		{ "30000/1001", "144000", 3, 0, 1, 0 },
		{ "30000/1001", "144000", 3, 1, 1, 2 },	/* 4806 B from 4803 */
		{ "30000/1001", "144000", 3, 3, 7, 1 },
		{ "30000/1001", "144000", 3, 4, 3, 0 },
		{ "30000/1001", "18874368", 1, 17, 100, 3 },
		{ "24000/1001", "88200", 2, 5, 80, 41 },
		{ "24000/1001", "88200", 2, 0, 1, 79 },
		{ "25", "10", 5, 3, 100, 7 },		/* 0 or 5 B a frame */
		{ "25", "10", 5, 12, 1, 12 },		/* one 5 B slice */
		{ "25", "10", 5, 0, 12, 0 },		/* needs nothing */
		{ "30000/1001", "7", 7, 2, 3000, 5 },	/* 0 or 7 B */
		{ "60000/1001", "1000003", 1, 999, 1, 0 },
	};
	struct env *e = *state;
	unsigned char h[64];
	char text[256], want[512];
	size_t i;
	int wav;

	for (i = 0; i < N(cases); i++) {
		for (wav = 0; wav < 2; wav++) {
			struct eng_timeline *tl;
			struct eng_diag d = { 0 };
			const char *file = wav ? "c.T.wav" : "c.T.raw";
			uint64_t need, hlen = wav ? WAV_OFF : 0;

			snprintf(text, sizeof(text),
				 "fps %s\ntrack T %s align=%u\nevent T c %lld %lld @%lld\n",
				 cases[i].fps, cases[i].rate, cases[i].align,
				 (long long)cases[i].src,
				 (long long)cases[i].frames, (long long)cases[i].rec);
			tl = tl_from(text);
			need = brute_need(tl, 0, &tl->tracks[0].segs[0]);
			unlinkat(e->dfd, "c.T.wav", 0);
			unlinkat(e->dfd, "c.T.raw", 0);
			put(e, file, h, wav ? wav_head(h, 0) : 0, hlen + need);
			if (eng_media_resolve(tl, e->dfd, e->dir, &d) != 0) {
				print_diag(&d);
				fail_msg("case %zu%s: exactly %llu bytes fail", i,
					 wav ? " wav" : "",
					 (unsigned long long)need);
			}
			assert_int_equal(tl->clips[0].media[0].size, need);
			if (need == 0) {
				eng_tl_free(tl);
				continue;
			}
			put(e, file, h, wav ? wav_head(h, 0) : 0, hlen + need - 1);
			assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d),
					 -EINVAL);
			snprintf(want, sizeof(want),
				 "t.tl:3: clip c track T: %s/%s is too short: needs %llu bytes of essence, has %llu",
				 e->dir, file, (unsigned long long)need,
				 (unsigned long long)need - 1);
			if (d.n != 1 || strcmp(d.msgs[0], want) != 0) {
				print_diag(&d);
				fail_msg("case %zu%s: want '%s'", i,
					 wav ? " wav" : "", want);
			}
			eng_diag_free(&d);
			eng_tl_free(tl);
		}
	}
	/* hand-worked: 29.97, 48 kHz 24-bit, source frame 1 (at 4803) read
	 * as timeline frame 2's slice (4803 B, floor(4804.8) - floor(3203.2)
	 * samples): 9606 bytes.  Frame 1's slice would be 4806. */
	{
		struct eng_timeline *tl =
			tl_from("fps 29.97\ntrack A1 144000 align=3\n"
				"event A1 c 1 1 @2\n");

		assert_int_equal(brute_need(tl, 0, &tl->tracks[0].segs[0]), 9606);
		eng_tl_free(tl);
	}
}

/* Several segments of one file: one message, at the line that needs most;
 * and a source position past 2^64 bytes is reported, not wrapped. */
static void test_worst_segment(void **state)
{
	struct env *e = *state;
	struct eng_timeline *tl = tl_from("fps 25\ntrack V 1000\n"
					  "event V c 0 10\n"	/* 400 B */
					  "event V c 50 10\n"	/* 2400 B */
					  "event V c 20 10\n"	/* 1200 B */
					  "event V d 2305843009213693951 1\n");
	struct eng_diag d = { 0 };
	char want[2][512];
	const char *wantp[2] = { want[0], want[1] };

	put(e, "c.V.yuv", NULL, 0, 2000);
	put(e, "d.V.yuv", NULL, 0, 2000);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	snprintf(want[0], sizeof(want[0]),
		 "t.tl:4: clip c track V: %s/c.V.yuv is too short: needs 2400 bytes of essence, has 2000",
		 e->dir);
	snprintf(want[1], sizeof(want[1]),
		 "t.tl:6: clip d track V: %s/d.V.yuv is too short: the event reads past 2^64 bytes",
		 e->dir);
	expect_msgs(&d, wantp, 2);
	eng_diag_free(&d);
	eng_tl_free(tl);
}

/* A picture track's clip file is whole pictures of the track's size: one
 * that is not was made for another size or format (a 1920x1080 frame
 * where the track is 720x486, v210 where it is 2vuy, a byte too many),
 * refused at the clip's line with both sizes.  Long enough files only:
 * a short one is its own message.  Found by issue 20: before, they were
 * mounted and their frames cut across pictures. */
static void test_picture_whole(void **state)
{
	static const struct {
		const char *track;
		uint64_t size;
		const char *want;	/* NULL: fine */
	} cases[] = {
		{ "2vuy 64x48", 6144 * 10, NULL },
		{ "2vuy 64x48", 6144 * 12, NULL },
		{ "2vuy 64x48", 6144 * 10 + 1,
		  "holds 61441 bytes, not whole 2vuy 64x48 pictures of 6144 "
		  "bytes (10 pictures and 1 bytes over): a clip of another picture size "
		  "or format" },
		/* ten 1920x1080 2vuy frames on a 720x486 track */
		{ "2vuy 720x486", 41472000,
		  "holds 41472000 bytes, not whole 2vuy 720x486 pictures of "
		  "699840 bytes (59 pictures and 181440 bytes over)" },
		/* 2vuy 96x20 frames (3840 B) on a v210 96x20 track (5120 B) */
		{ "v210 96x20", 3840 * 15,
		  "holds 57600 bytes, not whole v210 96x20 pictures of 5120 "
		  "bytes (11 pictures and 1280 bytes over)" },
	};
	struct env *e = *state;
	char text[128], want[512];
	size_t i;

	for (i = 0; i < N(cases); i++) {
		struct eng_timeline *tl;
		struct eng_diag d = { 0 };

		snprintf(text, sizeof(text),
			 "fps 25\ntrack V %s\nevent V c 0 10\n", cases[i].track);
		tl = tl_from(text);
		unlinkat(e->dfd, "c.V.raw", 0);
		put(e, "c.V.raw", NULL, 0, cases[i].size);
		if (!cases[i].want) {
			if (eng_media_resolve(tl, e->dfd, e->dir, &d) != 0) {
				print_diag(&d);
				fail_msg("case %zu: refused", i);
			}
			eng_tl_free(tl);
			continue;
		}
		assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d),
				 -EINVAL);
		snprintf(want, sizeof(want), "t.tl:3: clip c track V: %s/c.V.raw %s",
			 e->dir, cases[i].want);
		if (d.n != 1 || !strstr(d.msgs[0], want)) {
			print_diag(&d);
			fail_msg("case %zu: want '%s'", i, want);
		}
		eng_diag_free(&d);
		eng_tl_free(tl);
	}
}

/* A legal but hostile clip name (invalid UTF-8, a C1 CSI, a backslash)
 * with no media: the message escapes it, the timeline keeps its bytes,
 * and its media file is found by the exact bytes. */
static void test_hostile_name(void **state)
{
	static const char name[] = "caf\351\302\233[2J\\x";
	struct env *e = *state;
	struct eng_timeline *tl;
	struct eng_diag d = { 0 };
	char text[128], file[64], want[512];
	const char *wantp[1] = { want };

	snprintf(text, sizeof(text), "fps 25\ntrack V 1000\nevent V %s 0 1\n",
		 name);
	tl = tl_from(text);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), -EINVAL);
	snprintf(want, sizeof(want),
		 "t.tl:3: clip caf\\xe9\\xc2\\x9b[2J\\\\x track V: no media "
		 "file %s/caf\\xe9\\xc2\\x9b[2J\\\\x.V.* (nor "
		 "caf\\xe9\\xc2\\x9b[2J\\\\x.mov, .mp4, .mxf or an OP-Atom "
		 "file of the clip)", e->dir);
	expect_msgs(&d, wantp, 1);
	assert_memory_equal(tl->clips[0].name, name, sizeof(name));
	eng_diag_free(&d);

	snprintf(file, sizeof(file), "%s.V.raw", name);
	put(e, file, NULL, 0, 40);
	assert_int_equal(eng_media_resolve(tl, e->dfd, e->dir, &d), 0);
	assert_string_equal(tl->clips[0].media[0].file, file);
	eng_tl_free(tl);
	eng_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wav_data),
		cmocka_unit_test(test_wav_recording),
		cmocka_unit_test_setup_teardown(test_recording, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_record_clip, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_resolve, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_problems, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_too_short, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_name, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_picture_whole, env_setup,
						env_teardown),
		cmocka_unit_test_setup_teardown(test_worst_segment, env_setup,
						env_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
