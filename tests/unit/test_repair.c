/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the ingest repair (engine/ingest/repair.c) on fake files:
 * a recording cut short (kill -9: tracks ending inside a frame, WAV sizes
 * all ones, its note in state recording) is cut to the last frame every
 * track holds whole, its WAV headers patched (read back by engine/media's
 * reader), its note set to repaired; a closed one is left as it is.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ingest/ingest.h"
#include "media/media.h"
#include "util/diag.h"

#define MAX_FILES 8

struct rfile {
	char name[128];
	unsigned char *data;
	uint64_t size;
	int there, open, writable;
};

struct rfk {
	struct rfile files[MAX_FILES];
	int n;
	long writes, truncs, opens;
	struct eng_io io;
};

static struct rfile *rf_find(struct rfk *f, const char *name)
{
	int i;

	for (i = 0; i < f->n; i++)
		if (f->files[i].there && strcmp(f->files[i].name, name) == 0)
			return &f->files[i];
	return NULL;
}

static struct rfile *rf_fd(struct rfk *f, int fd)
{
	int i = fd - 100;

	assert_true(i >= 0 && i < f->n && f->files[i].open);
	return &f->files[i];
}

static void rf_resize(struct rfile *r, uint64_t size)
{
	r->data = realloc(r->data, size ? size : 1);
	assert_non_null(r->data);
	if (size > r->size)
		memset(r->data + r->size, 0, size - r->size);
	r->size = size;
}

static struct rfile *rf_put(struct rfk *f, const char *name, const void *d,
			    uint64_t size)
{
	struct rfile *r = rf_find(f, name);

	if (!r) {
		assert_true(f->n < MAX_FILES);
		r = &f->files[f->n++];
		memset(r, 0, sizeof(*r));
		snprintf(r->name, sizeof(r->name), "%s", name);
		r->there = 1;
	}
	r->size = 0;
	rf_resize(r, size);
	if (d)
		memcpy(r->data, d, size);
	return r;
}

static int rf_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_find(f, file);

	(void)direct;
	*is_direct = 0;
	if (!r)
		return -ENOENT;
	r->open = 1;
	r->writable = 0;
	f->opens++;
	return 100 + (int)(r - f->files);
}

static int rf_create(void *ctx, const char *file, int replace,
		     unsigned *injected)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_find(f, file);

	(void)injected;
	/* the repair opens what is there, as it is */
	assert_int_equal(replace, ENG_IO_CREATE_KEEP);
	if (!r)
		return -ENOENT;
	r->open = 1;
	r->writable = 1;
	return 100 + (int)(r - f->files);
}

static ssize_t rf_pread(void *ctx, int fd, void *buf, size_t len,
			uint64_t off)
{
	struct rfile *r = rf_fd(ctx, fd);

	if (off >= r->size)
		return 0;
	if (len > r->size - off)
		len = (size_t)(r->size - off);
	memcpy(buf, r->data + off, len);
	return (ssize_t)len;
}

static ssize_t rf_pwrite(void *ctx, int fd, const void *buf, size_t len,
			 uint64_t off, unsigned *injected)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_fd(f, fd);

	(void)injected;
	assert_true(r->writable);
	f->writes++;
	if (off + len > r->size)
		rf_resize(r, off + len);
	memcpy(r->data + off, buf, len);
	return (ssize_t)len;
}

static int rf_ftruncate(void *ctx, int fd, uint64_t len)
{
	struct rfk *f = ctx;
	struct rfile *r = rf_fd(f, fd);

	assert_true(r->writable);
	f->truncs++;
	rf_resize(r, len);
	return 0;
}

static int rf_size(void *ctx, int fd, uint64_t *bytes)
{
	*bytes = rf_fd(ctx, fd)->size;
	return 0;
}

static void rf_close(void *ctx, int fd)
{
	rf_fd(ctx, fd)->open = 0;
}

static int rf_unused(void *ctx, int fd, unsigned *injected)
{
	(void)ctx;
	(void)fd;
	(void)injected;
	fail_msg("the repair does not fsync");
	return -ENOSYS;
}

static int rf_unused2(void *ctx, int fd, uint64_t off, uint64_t len,
		      unsigned *injected)
{
	(void)ctx;
	(void)fd;
	(void)off;
	(void)len;
	(void)injected;
	fail_msg("the repair does not fallocate");
	return -ENOSYS;
}

static int rf_space(void *ctx, uint64_t *bytes)
{
	(void)ctx;
	*bytes = UINT64_MAX;
	return 0;
}

static void rf_init(struct rfk *f)
{
	memset(f, 0, sizeof(*f));
	f->io = (struct eng_io){
		.open = rf_open, .pread = rf_pread, .close = rf_close,
		.size = rf_size, .create = rf_create, .pwrite = rf_pwrite,
		.fsync = rf_unused, .fallocate = rf_unused2,
		.ftruncate = rf_ftruncate, .space = rf_space, .ctx = f,
	};
}

static void rf_free(struct rfk *f)
{
	int i;

	for (i = 0; i < f->n; i++)
		free(f->files[i].data);
}

static unsigned char byte_at(uint32_t t, uint64_t off)
{
	return (unsigned char)((off * 131 + t * 7 + (off >> 9)) & 0xff);
}

/* Recording `name` of preset seed as a killed daemon leaves it: track t
 * holds essence[t] bytes (UINT64_MAX: no file), WAV sizes all ones. */
static void killed(struct rfk *f, const char *name, const char *state,
		   const uint64_t essence[3])
{
	struct eng_ingest_format fmt;
	unsigned char *buf;
	char file[300], *text;
	uint64_t i, data;
	uint32_t t;

	assert_int_equal(eng_ingest_format_of("seed", &fmt, NULL), 0);
	for (t = 0; t < 3; t++) {
		if (essence[t] == UINT64_MAX)
			continue;
		data = t ? ENG_INGEST_WAV_DATA : 0;
		buf = malloc(data + essence[t] + 1);
		assert_non_null(buf);
		if (t)
			eng_ingest_wav_header(buf, 48000);
		for (i = 0; i < essence[t]; i++)
			buf[data + i] = byte_at(t, i);
		eng_ingest_track_file(&fmt, t, name, file, sizeof(file));
		rf_put(f, file, buf, data + essence[t]);
		free(buf);
	}
	assert_int_equal(eng_ingest_note_text(&fmt, state,
					      strcmp(state, "recording") ? 7
									: -1,
					      &text), 0);
	snprintf(file, sizeof(file), "ingest/%s.rec", name);
	rf_put(f, file, text, strlen(text));
	free(text);
}

/* Track t of the repaired recording: k frames of its essence, a WAV's
 * header whole for them, the pad byte. */
static void check_track(struct rfk *f, const char *name, uint32_t t,
			int64_t k)
{
	struct eng_ingest_format fmt;
	uint64_t ess, i, off, size, data = t ? ENG_INGEST_WAV_DATA : 0;
	struct rfile *r;
	char file[300];

	assert_int_equal(eng_ingest_format_of("seed", &fmt, NULL), 0);
	ess = eng_ingest_upto(&fmt, t, k);
	eng_ingest_track_file(&fmt, t, name, file, sizeof(file));
	r = rf_find(f, file);
	assert_non_null(r);
	assert_false(r->open);
	assert_int_equal(r->size, data + ess + (t ? ess & 1 : 0));
	for (i = 0; i < ess; i++)
		if (r->data[data + i] != byte_at(t, i))
			fail_msg("%s: byte %" PRIu64 " changed", file, i);
	if (!t)
		return;
	assert_int_equal(eng_wav_data(r->data, ENG_INGEST_WAV_DATA, &off,
				      &size), 0);
	assert_int_equal(off, ENG_INGEST_WAV_DATA);
	/* the reader takes a size of 0 as "to the end of the file" */
	assert_true(size == (ess ? ess : UINT64_MAX));
	assert_int_equal(r->data[4092] | r->data[4093] << 8 |
				 r->data[4094] << 16 |
				 (uint32_t)r->data[4095] << 24,
			 ess);
	assert_memory_equal(r->data, "RIFF", 4);
	assert_int_equal(r->data[4] | r->data[5] << 8 | r->data[6] << 16 |
				 (uint32_t)r->data[7] << 24,
			 r->size - 8);
}

static const char *note_text(struct rfk *f, const char *name)
{
	static char text[512];
	char file[300];
	struct rfile *r;

	snprintf(file, sizeof(file), "ingest/%s.rec", name);
	r = rf_find(f, file);
	assert_non_null(r);
	assert_true(r->size < sizeof(text));
	memcpy(text, r->data, r->size);
	text[r->size] = '\0';
	return text;
}

/* Bytes of track t (0: V, else audio) of the seed before frame k. */
static uint64_t upto(uint32_t t, int64_t k)
{
	struct eng_ingest_format fmt;

	assert_int_equal(eng_ingest_format_of("seed", &fmt, NULL), 0);
	return eng_ingest_upto(&fmt, t, k);
}

/* V holds 3 frames and some, A1 4 frames and 5 bytes, A2 2 frames and
 * 2 bytes: frames 0 and 1 are whole everywhere, so k* = 2. */
static void test_cut_to_whole_frames(void **state)
{
	const uint64_t ess[3] = { upto(0, 3) + 1000, upto(1, 4) + 5,
				  upto(2, 2) + 2 };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;
	uint64_t before = 0, after = 0;
	uint32_t t;

	(void)state;
	rf_init(&f);
	killed(&f, "cam1", "recording", ess);
	for (t = 0; t < 3; t++)
		before += ess[t] + (t ? ENG_INGEST_WAV_DATA : 0);
	assert_int_equal(eng_ingest_repair(&f.io, "ingest/cam1.rec", &rep, &d),
			 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(rep.name, "cam1");
	assert_int_equal(rep.repaired, 1);
	assert_int_equal(rep.frames, 2);
	for (t = 0; t < 3; t++) {
		check_track(&f, "cam1", t, 2);
		after += f.files[t].size;
	}
	/* upto(A, 2) = 9609 is odd: each WAV has its pad byte */
	assert_int_equal(upto(1, 2), 9609);
	assert_int_equal(rep.cut, before - after);
	assert_non_null(strstr(note_text(&f, "cam1"),
			       "preset seed\nstate repaired\nframes 2\n"));
	/* twice is once: a repaired recording is left as it is */
	f.writes = f.truncs = 0;
	assert_int_equal(eng_ingest_repair(&f.io, "ingest/cam1.rec", &rep, &d),
			 0);
	assert_int_equal(rep.repaired, 0);
	assert_int_equal(rep.frames, 2);
	assert_int_equal(f.writes + f.truncs, 0);
	rf_free(&f);
}

/* k* = 1: an odd essence (4803 bytes of 24-bit audio) gets its pad byte;
 * a track that ends exactly on a frame keeps all of it. */
static void test_odd_and_exact(void **state)
{
	/* A2: 9607 bytes, short of frame 1's end at 9609 */
	static const uint64_t ess[3] = { 614400 + 614399, 4803, 4803 + 4804 };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;
	uint32_t t;

	(void)state;
	rf_init(&f);
	killed(&f, "x", "recording", ess);
	assert_int_equal(eng_ingest_repair(&f.io, "ingest/x.rec", &rep, &d), 0);
	assert_int_equal(rep.frames, 1);
	for (t = 0; t < 3; t++)
		check_track(&f, "x", t, 1);
	/* A1 lost nothing but gained its pad: nothing counted as cut */
	assert_int_equal(rep.cut, 614399 + 4803);
	rf_free(&f);
}

/* A track that was never made holds no frame; a WAV cut inside its
 * header gets it whole again. */
static void test_missing_and_short_header(void **state)
{
	static const uint64_t ess[3] = { 5 * 614400, 5 * 4803, UINT64_MAX };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	killed(&f, "m", "recording", ess);
	assert_int_equal(eng_ingest_repair(&f.io, "ingest/m.rec", &rep, &d), 0);
	assert_int_equal(rep.frames, 0);
	check_track(&f, "m", 0, 0);
	check_track(&f, "m", 1, 0);
	assert_null(rf_find(&f, "ingest/m.A2.wav"));
	rf_free(&f);

	rf_init(&f);
	killed(&f, "h", "recording",
	       (const uint64_t[3]){ 614400, 4803, 4803 });
	rf_put(&f, "ingest/h.A2.wav", "RIFF\xff\xff", 6);
	assert_int_equal(eng_ingest_repair(&f.io, "ingest/h.rec", &rep, &d), 0);
	assert_int_equal(rep.frames, 0);
	check_track(&f, "h", 2, 0);
	assert_int_equal(rf_find(&f, "ingest/h.A2.wav")->size,
			 ENG_INGEST_WAV_DATA);
	rf_free(&f);
}

/* A recording closed cleanly is left as it is. */
static void test_closed_left_alone(void **state)
{
	static const uint64_t ess[3] = { 614400 + 5, 4803, 4803 };
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	killed(&f, "c", "closed", ess);
	assert_int_equal(eng_ingest_repair(&f.io, "ingest/c.rec", &rep, &d), 0);
	assert_int_equal(rep.repaired, 0);
	assert_int_equal(rep.frames, 7);
	assert_int_equal(f.writes + f.truncs, 0);
	assert_int_equal(rf_find(&f, "ingest/c.V.raw")->size, 614400 + 5);
	rf_free(&f);
}

static void test_bad_notes(void **state)
{
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct rfk f;

	(void)state;
	rf_init(&f);
	assert_int_equal(eng_ingest_repair(&f.io, "ingest/no.rec", &rep, &d),
			 -ENOENT);
	assert_string_equal(d.msgs[0], "ingest/no.rec: cannot open it: "
				       "No such file or directory");
	eng_diag_free(&d);
	rf_put(&f, "ingest/b.rec", "preset seed\nstate what\n", 23);
	assert_int_equal(eng_ingest_repair(&f.io, "ingest/b.rec", &rep, &d),
			 -EINVAL);
	assert_string_equal(d.msgs[0], "ingest/b.rec:2: no state 'what' "
				       "(recording, closed, repaired, failed)");
	eng_diag_free(&d);
	assert_int_equal(f.writes + f.truncs, 0);
	rf_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_to_whole_frames),
		cmocka_unit_test(test_odd_and_exact),
		cmocka_unit_test(test_missing_and_short_header),
		cmocka_unit_test(test_closed_left_alone),
		cmocka_unit_test(test_bad_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
