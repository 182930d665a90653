/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the record stream (engine/ingest/rec.c) with a fake clock
 * and fake files.  The fake clock is a small discrete-event simulation of
 * the stream's two threads: the test's (the writer) moves time by
 * sleeping, and only once the write thread is idle or stalled; a write
 * thread's stalled pwrite is done when the writer's time passes its end,
 * or at its end when the writer waits for the stream (a full buffer, the
 * close).  So every time in the rows is exact, whatever the scheduler.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "ingest/ingest.h"
#include "io/inject.h"
#include "media/media.h"
#include "play/player.h"
#include "util/diag.h"

#define MS 1000000ULL
#define T0 5000000000ULL
#define P40 (40 * MS)		/* sd-pal's frame period */
#define MAX_FILES 24
#define MAX_ROWS 20000

/* The writer's byte `off`: any misplaced byte shows. */
static unsigned char byte_at(uint64_t off)
{
	uint64_t x = (off + 12345) * 0x9E3779B97F4A7C15ULL;

	x ^= x >> 29;
	return (unsigned char)(x >> 40);
}

struct ffile {
	char name[256];
	unsigned char *data;
	uint64_t size, cap;
	uint64_t falloc;	/* bytes fallocated (KEEP_SIZE) */
	int open;		/* opens not yet closed: the fd is the file's
				 * index, one for all of them */
	int fsyncs, truncs;
	int locked;		/* an OFD lock is held (fk_oflock), until
				 * its last close */
};

struct fk {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t test;
	uint64_t now;
	struct eng_rec *r;	/* the stream: the simulation's predicates */
	int closing;		/* the test is in eng_rec_close */
	int stalled;		/* the write thread waits for `release` */
	uint64_t release;
	/* a delay on the pwrites of track file `stall_file` whose offset
	 * is stall_off (UINT64_MAX: none) */
	const char *stall_file;
	uint64_t stall_off, stall_ns;
	long fail_write;	/* this data pwrite (0-based) fails: EIO */
	int fail_fsync;		/* every fsync fails: EIO */
	const char *fail_create; /* this file's create fails: EIO */
	int lock_busy;		/* every lock is another's: EAGAIN */
	long pwrites, data_pwrites, sleeps;
	int64_t space;		/* free bytes; files growing take them */
	long nspace;		/* io->space calls */
	struct eng_ingest_space *sp; /* the mount's reservation */
	struct ffile files[MAX_FILES];
	int nfiles;
	pthread_mutex_t rmu;	/* the rows and notices */
	struct eng_access *rows;
	size_t nrows;
	char notices[8][512];
	int nnotices;
	struct eng_io io;
};

static void fk_lock(struct fk *f)
{
	pthread_mutex_lock(&f->mu);
}

static void fk_unlock(struct fk *f)
{
	pthread_mutex_unlock(&f->mu);
}

/* Wait 1 ms (real) for a change: the stream's own waits say nothing to
 * the fake, so their states are polled. */
static void fk_poll(struct fk *f)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	pthread_cond_timedwait(&f->cv, &f->mu, &ts);
}

/* The write thread has nothing to do now: every whole frame received is
 * written (or failed), or it is stalled. */
static int wt_quiet(struct fk *f)
{
	struct eng_rec_stats st;

	if (f->stalled || !f->r)
		return 1;
	eng_rec_stats(f->r, &st);
	return st.frames == st.written + st.failed;
}

/* The writer waits for the stream. */
static int writer_blocked(struct fk *f)
{
	struct eng_rec_stats st;

	if (f->closing)
		return 1;
	eng_rec_stats(f->r, &st);
	return st.waiting;
}

static uint64_t fk_now(void *ctx)
{
	struct fk *f = ctx;
	uint64_t v;

	fk_lock(f);
	v = f->now;
	fk_unlock(f);
	return v;
}

static void fk_sleep_until(void *ctx, uint64_t ns)
{
	struct fk *f = ctx;

	fk_lock(f);
	f->sleeps++;
	for (;;) {
		if (f->stalled && f->release <= ns) {
			uint64_t rel = f->release;

			if (f->now < rel)
				f->now = rel;
			pthread_cond_broadcast(&f->cv);
			while (f->stalled && f->release == rel)
				fk_poll(f);
			continue;
		}
		if (!wt_quiet(f)) {
			fk_poll(f);
			continue;
		}
		break;
	}
	if (ns > f->now)
		f->now = ns;
	fk_unlock(f);
}

static struct ffile *file_of(struct fk *f, int fd)
{
	int i = fd - 100;

	return i >= 0 && i < f->nfiles && f->files[i].open ? &f->files[i]
							    : NULL;
}

static struct ffile *find(struct fk *f, const char *name)
{
	int i;

	for (i = 0; i < f->nfiles; i++)
		if (strcmp(f->files[i].name, name) == 0)
			return &f->files[i];
	return NULL;
}

/* The blocks a file takes: its size or its preallocation. */
static uint64_t held(const struct ffile *ff)
{
	return ff->size > ff->falloc ? ff->size : ff->falloc;
}

static int fk_create(void *ctx, const char *file, int replace,
		     unsigned *injected)
{
	struct fk *f = ctx;
	struct ffile *ff;

	if (injected)
		*injected = 0;
	fk_lock(f);
	if (f->fail_create && strcmp(file, f->fail_create) == 0) {
		fk_unlock(f);
		return -EIO;
	}
	ff = find(f, file);
	if ((ff && !replace) || (!ff && replace == ENG_IO_CREATE_KEEP)) {
		fk_unlock(f);
		return ff ? -EEXIST : -ENOENT;
	}
	if (!ff) {
		assert_true(f->nfiles < MAX_FILES);
		ff = &f->files[f->nfiles++];
		memset(ff, 0, sizeof(*ff));
		snprintf(ff->name, sizeof(ff->name), "%s", file);
	} else if (replace == 1) {
		f->space += (int64_t)held(ff);
		ff->size = 0;
		ff->falloc = 0;
	}
	ff->open++;
	fk_unlock(f);
	return 100 + (int)(ff - f->files);
}

static void grow(struct fk *f, struct ffile *ff, uint64_t end)
{
	if (end > ff->cap) {
		uint64_t cap = ff->cap ? ff->cap : 65536;

		while (cap < end)
			cap *= 2;
		ff->data = realloc(ff->data, cap);
		assert_non_null(ff->data);
		memset(ff->data + ff->cap, 0, cap - ff->cap);
		ff->cap = cap;
	}
	if (end > ff->size) {
		uint64_t old = held(ff);

		ff->size = end;
		f->space -= (int64_t)(held(ff) - old);
	}
}

static ssize_t fk_pwrite(void *ctx, int fd, const void *buf, size_t len,
			 uint64_t off, unsigned *injected)
{
	struct fk *f = ctx;
	struct ffile *ff;
	int data;

	if (injected)
		*injected = 0;
	fk_lock(f);
	ff = file_of(f, fd);
	assert_non_null(ff);
	f->pwrites++;
	/* the essence of a track file (not a header, a patch, a note) */
	data = !strstr(ff->name, ".rec") &&
	       (strstr(ff->name, ".V.raw") || off >= ENG_INGEST_WAV_DATA);
	if (data && f->data_pwrites++ == f->fail_write) {
		fk_unlock(f);
		return -EIO;
	}
	if (f->stall_file && strcmp(ff->name, f->stall_file) == 0 &&
	    off == f->stall_off) {
		if (injected)
			*injected = ENG_INJECT_DELAY;
		if (pthread_equal(pthread_self(), f->test)) {
			f->now += f->stall_ns;
		} else {
			f->release = f->now + f->stall_ns;
			f->stalled = 1;
			pthread_cond_broadcast(&f->cv);
			while (f->now < f->release) {
				if (writer_blocked(f)) {
					f->now = f->release;
					break;
				}
				fk_poll(f);
			}
			f->stalled = 0;
			pthread_cond_broadcast(&f->cv);
		}
	}
	grow(f, ff, off + len);
	memcpy(ff->data + off, buf, len);
	fk_unlock(f);
	return (ssize_t)len;
}

static int fk_fsync(void *ctx, int fd, unsigned *injected)
{
	struct fk *f = ctx;
	int rc;

	if (injected)
		*injected = 0;
	fk_lock(f);
	file_of(f, fd)->fsyncs++;
	rc = f->fail_fsync ? -EIO : 0;
	fk_unlock(f);
	return rc;
}

static int fk_fallocate(void *ctx, int fd, uint64_t off, uint64_t len,
			unsigned *injected)
{
	struct fk *f = ctx;

	if (injected)
		*injected = 0;
	struct ffile *ff;
	uint64_t old;

	fk_lock(f);
	ff = file_of(f, fd);
	old = held(ff);
	if (off + len > ff->falloc)
		ff->falloc = off + len;
	f->space -= (int64_t)(held(ff) - old);
	fk_unlock(f);
	return 0;
}

static int fk_ftruncate(void *ctx, int fd, uint64_t len)
{
	struct fk *f = ctx;
	struct ffile *ff;

	uint64_t old;

	fk_lock(f);
	ff = file_of(f, fd);
	if (len > ff->size)
		grow(f, ff, len);
	old = held(ff);
	ff->size = len;
	ff->falloc = 0;		/* KEEP_SIZE blocks past the end go too */
	f->space += (int64_t)(old - held(ff));
	ff->truncs++;
	fk_unlock(f);
	return 0;
}

static int fk_space(void *ctx, uint64_t *bytes)
{
	struct fk *f = ctx;

	fk_lock(f);
	*bytes = f->space > 0 ? (uint64_t)f->space : 0;
	f->nspace++;
	fk_unlock(f);
	return 0;
}

/* Unlink: the file's name goes (its slot stays, open or not). */
static int fk_remove(void *ctx, const char *file, int fd)
{
	struct fk *f = ctx;
	struct ffile *ff;
	int rc = 0;

	fk_lock(f);
	ff = find(f, file);
	if (!ff)
		rc = -ENOENT;
	else if (ff != file_of(f, fd))
		rc = -ESTALE;
	else
		ff->name[0] = '\0';
	fk_unlock(f);
	return rc;
}

static void fk_close(void *ctx, int fd)
{
	struct fk *f = ctx;

	struct ffile *ff;

	fk_lock(f);
	ff = file_of(f, fd);
	assert_non_null(ff);
	if (--ff->open == 0)
		ff->locked = 0;
	fk_unlock(f);
}

/* An OFD lock: one holder a file. */
static int fk_oflock(void *ctx, int fd)
{
	struct fk *f = ctx;
	struct ffile *ff;
	int rc;

	fk_lock(f);
	ff = file_of(f, fd);
	assert_non_null(ff);
	rc = ff->locked || f->lock_busy ? -EAGAIN : 0;
	ff->locked |= !f->lock_busy;
	fk_unlock(f);
	return rc;
}

/* open, pread and size: for the repair of what a recorder left */
static int fk_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct fk *f = ctx;
	struct ffile *ff;

	(void)direct;
	*is_direct = 0;
	fk_lock(f);
	ff = find(f, file);
	if (ff)
		ff->open++;
	fk_unlock(f);
	return ff ? 100 + (int)(ff - f->files) : -ENOENT;
}

static ssize_t fk_pread(void *ctx, int fd, void *buf, size_t len,
			uint64_t off)
{
	struct fk *f = ctx;
	struct ffile *ff;

	fk_lock(f);
	ff = file_of(f, fd);
	if (off >= ff->size)
		len = 0;
	else if (len > ff->size - off)
		len = (size_t)(ff->size - off);
	memcpy(buf, ff->data + off, len);
	fk_unlock(f);
	return (ssize_t)len;
}

static int fk_size(void *ctx, int fd, uint64_t *bytes)
{
	struct fk *f = ctx;

	fk_lock(f);
	*bytes = file_of(f, fd)->size;
	fk_unlock(f);
	return 0;
}

static void fk_record(void *ctx, const struct eng_access *a)
{
	struct fk *f = ctx;

	pthread_mutex_lock(&f->rmu);
	assert_true(f->nrows < MAX_ROWS);
	f->rows[f->nrows++] = *a;
	pthread_mutex_unlock(&f->rmu);
}

static void fk_notice(void *ctx, const char *msg)
{
	struct fk *f = ctx;

	pthread_mutex_lock(&f->rmu);
	if (f->nnotices < 8)
		snprintf(f->notices[f->nnotices], sizeof(f->notices[0]), "%s",
			 msg);
	f->nnotices++;
	pthread_mutex_unlock(&f->rmu);
}

static struct fk *fk_new(void)
{
	struct fk *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	pthread_mutex_init(&f->mu, NULL);
	pthread_mutex_init(&f->rmu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->test = pthread_self();
	f->now = T0;
	f->fail_write = -1;
	f->stall_off = UINT64_MAX;
	f->space = INT64_MAX / 2;
	assert_int_equal(eng_ingest_space_new(&f->sp), 0);
	f->rows = calloc(MAX_ROWS, sizeof(*f->rows));
	assert_non_null(f->rows);
	f->io = (struct eng_io){
		.now = fk_now, .sleep_until = fk_sleep_until, .open = fk_open,
		.pread = fk_pread, .close = fk_close, .ctx = f,
		.create = fk_create, .pwrite = fk_pwrite, .fsync = fk_fsync,
		.fallocate = fk_fallocate, .ftruncate = fk_ftruncate,
		.space = fk_space, .size = fk_size, .lock = fk_oflock,
		.remove = fk_remove,
	};
	return f;
}

static void fk_free(struct fk *f)
{
	int i;

	for (i = 0; i < f->nfiles; i++)
		free(f->files[i].data);
	free(f->rows);
	eng_ingest_space_free(f->sp);
	pthread_mutex_destroy(&f->mu);
	pthread_mutex_destroy(&f->rmu);
	pthread_cond_destroy(&f->cv);
	free(f);
}

static void config(struct fk *f, struct eng_rec_config *c, const char *preset,
		   unsigned buffer, enum eng_pace_mode pace)
{
	memset(c, 0, sizeof(*c));
	assert_int_equal(eng_ingest_format_of(preset, &c->fmt, NULL), 0);
	c->buffer = buffer;
	c->pace.mode = pace;
	c->pace.speed = 1;
	c->io = &f->io;
	c->space = f->sp;
	c->record = fk_record;
	c->record_ctx = f;
	c->notice = fk_notice;
	c->notice_ctx = f;
}

static struct eng_rec *rec_new(struct fk *f, const struct eng_rec_config *c,
			       const char *name)
{
	struct eng_diag d = { 0 };
	struct eng_rec *r = NULL;
	int rc = eng_rec_new(c, name, &r, &d);

	if (rc != 0)
		fail_msg("eng_rec_new: %d %s", rc, d.n ? d.msgs[0] : "");
	fk_lock(f);
	f->r = r;
	fk_unlock(f);
	return r;
}

static int rec_close(struct fk *f, struct eng_rec *r, struct eng_rec_stats *st)
{
	int rc;

	fk_lock(f);
	f->closing = 1;
	fk_unlock(f);
	rc = eng_rec_close(r, st);
	fk_lock(f);
	f->closing = 0;
	f->r = NULL;
	fk_unlock(f);
	eng_rec_free(r);
	return rc;
}

/* Write the writer's bytes [from, to) in calls of bs bytes. */
static void feed(struct eng_rec *r, uint64_t from, uint64_t to, size_t bs)
{
	static unsigned char buf[3 << 20];
	uint64_t off;
	size_t n, i;

	assert_true(bs <= sizeof(buf));
	for (off = from; off < to; off += n) {
		n = to - off < bs ? (size_t)(to - off) : bs;
		for (i = 0; i < n; i++)
			buf[i] = byte_at(off + i);
		assert_int_equal(eng_rec_write(r, buf, n, off), (ssize_t)n);
	}
}

/* Each track file holds exactly its slices of the writer's first `total`
 * bytes, a WAV behind its patched header, with its pad. */
static void check_files(struct fk *f, const struct eng_ingest_format *fmt,
			const char *name, uint64_t total)
{
	int64_t k = eng_ingest_frame_at(fmt, total), j;
	uint64_t pos, a, b, n, ess[ENG_INGEST_TRACKS_MAX] = { 0 }, i, off,
		size;
	char file[300];
	uint32_t t;

	for (j = 0; j <= k; j++) {
		pos = eng_ingest_frame_offset(fmt, j);
		for (t = 0; t < fmt->ntracks && pos < total; t++) {
			struct ffile *ff;
			uint64_t at;

			eng_ingest_track_file(fmt, t, name, file, sizeof(file));
			ff = find(f, file);
			assert_non_null(ff);
			a = eng_ingest_upto(fmt, t, j);
			b = eng_ingest_upto(fmt, t, j + 1);
			n = b - a < total - pos ? b - a : total - pos;
			at = (t ? ENG_INGEST_WAV_DATA : 0) + a;
			assert_true(at + n <= ff->size);
			for (i = 0; i < n; i++)
				if (ff->data[at + i] != byte_at(pos + i))
					fail_msg("%s byte %" PRIu64 " (frame %"
						 PRId64 ")", file, at + i, j);
			ess[t] = a + n;
			pos += n;
		}
	}
	for (t = 0; t < fmt->ntracks; t++) {
		struct ffile *ff;

		eng_ingest_track_file(fmt, t, name, file, sizeof(file));
		ff = find(f, file);
		assert_non_null(ff);
		assert_false(ff->open);
		if (t == 0) {
			assert_int_equal(ff->size, ess[0]);
			continue;
		}
		assert_int_equal(ff->size, ENG_INGEST_WAV_DATA + ess[t] +
						   (ess[t] & 1));
		assert_int_equal(eng_wav_data(ff->data, ENG_INGEST_WAV_DATA,
					      &off, &size), 0);
		assert_int_equal(off, ENG_INGEST_WAV_DATA);
		assert_int_equal(size, ess[t]);
		if (ess[t] & 1)
			assert_int_equal(ff->data[ff->size - 1], 0);
	}
}

static const char *note_of(struct fk *f, const char *name)
{
	static char text[512];
	char file[300];
	struct ffile *ff;

	snprintf(file, sizeof(file), "ingest/%s.rec", name);
	ff = find(f, file);
	assert_non_null(ff);
	assert_true(ff->size < sizeof(text));
	memcpy(text, ff->data, ff->size);
	text[ff->size] = '\0';
	return text;
}

/* ---------------------------------------------------------------- bytes */

/* What the writer sent is what lands in each track file, whatever its
 * write size: 512, 4096, 1 MiB, odd, straddling frames; and a last
 * frame cut inside A1 with an odd number of bytes. */
static void test_bytes_exact(void **state)
{
	static const size_t sizes[] = { 512, 4096, 1 << 20, 4093, 333333,
					840961, 1261440 };
	struct eng_ingest_format fmt;
	struct eng_rec_config c;
	struct eng_rec_stats st;
	uint64_t total;
	size_t i;

	(void)state;
	assert_int_equal(eng_ingest_format_of("sd-pal", &fmt, NULL), 0);
	/* 4 frames, then V of frame 4 and 7 bytes of its A1 */
	total = eng_ingest_frame_offset(&fmt, 4) + 829440 + 7;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct fk *f = fk_new();
		struct eng_rec *r;

		config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
		r = rec_new(f, &c, "cam1");
		feed(r, 0, total, sizes[i]);
		assert_int_equal(rec_close(f, r, &st), 0);
		assert_int_equal(st.bytes, total);
		assert_int_equal(st.frames, 4);
		assert_int_equal(st.written, 4);
		assert_int_equal(st.dropped, 0);
		check_files(f, &fmt, "cam1", total);
		assert_non_null(strstr(note_of(f, "cam1"),
				       "preset sd-pal\nstate closed\n"
				       "frames 4\n"));
		/* pace=off never waits */
		assert_int_equal(f->sleeps, 0);
		fk_free(f);
	}
}

/* ingest_write=BYTES: pieces of at most that many bytes, in order. */
static void test_write_pieces(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	uint64_t total, next[3] = { 0, 4096, 4096 };
	size_t i, n = 0;

	(void)state;
	config(f, &c, "sd-pal", 4, ENG_PACE_OFF);
	c.write_bytes = 65536;
	r = rec_new(f, &c, "p");
	total = eng_ingest_frame_offset(&c.fmt, 3);
	feed(r, 0, total, 1 << 20);
	assert_int_equal(rec_close(f, r, &st), 0);
	for (i = 0; i < f->nrows; i++) {
		const struct eng_access *a = &f->rows[i];

		if (a->op != ENG_OP_WRITE || !a->played)
			continue;
		assert_true(a->length <= 65536);
		assert_int_equal(a->file_offset, next[a->track]);
		next[a->track] += a->length;
		n++;
	}
	/* V: 829440 = 12 pieces and 43008 a frame; A: 5760 = 1 */
	assert_int_equal(n, 3 * (13 + 1 + 1));
	assert_int_equal(next[0], 3 * 829440);
	check_files(f, &c.fmt, "p", total);
	fk_free(f);
}

/* ---------------------------------------------------------------- clock */

static int count_rows(struct fk *f, uint32_t op, int64_t k)
{
	size_t i;
	int n = 0;

	for (i = 0; i < f->nrows; i++)
		if (f->rows[i].op == op && (k < 0 || f->rows[i].frame == k))
			n++;
	return n;
}

static const struct eng_access *row_of(struct fk *f, uint32_t op, int64_t k,
				       uint32_t t)
{
	size_t i;

	for (i = 0; i < f->nrows; i++)
		if (f->rows[i].op == op && f->rows[i].frame == k &&
		    f->rows[i].track == t && f->rows[i].played)
			return &f->rows[i];
	fail_msg("no row op %u frame %" PRId64 " track %u", op, k, t);
	return NULL;
}

/* The write of frame 5's V slice takes `stall` ns; a writer on time (one
 * frame a call, pace realtime), B = 4, 16 frames.  Returns the stats. */
static void stalled_run(struct fk *f, uint64_t stall, int stop,
			struct eng_rec_stats *st, int *eio_at)
{
	struct eng_rec_config c;
	struct eng_rec *r;
	static unsigned char buf[900000];
	uint64_t a, b, i;
	ssize_t n;
	int64_t k;

	config(f, &c, "sd-pal", 4, ENG_PACE_REALTIME);
	c.stop_on_drop = stop;
	f->stall_file = "ingest/s.V.raw";
	f->stall_off = 5 * 829440ULL;
	f->stall_ns = stall;
	r = rec_new(f, &c, "s");
	*eio_at = -1;
	for (k = 0; k < 16; k++) {
		a = eng_ingest_frame_offset(&c.fmt, k);
		b = eng_ingest_frame_offset(&c.fmt, k + 1);
		for (i = a; i < b; i++)
			buf[i - a] = byte_at(i);
		n = eng_rec_write(r, buf, b - a, a);
		if (n == -EIO) {
			*eio_at = (int)k;
			break;
		}
		assert_int_equal(n, (ssize_t)(b - a));
	}
	rec_close(f, r, st);
}

/* A delay on one frame's writes drops exactly the frames the buffer
 * cannot absorb: frame 5 + i is due at A(9 + i) and written at A(5) +
 * stall, so a stall of 6.5 periods drops 5, 6, 7, all the storage's;
 * 3.5 periods drop none.  The writer, held while the buffer was full, is
 * not made late, and t0 does not move. */
static void test_stall_drops(void **state)
{
	static const struct {
		uint64_t stall;
		int64_t dropped;
	} cases[] = {
		{ 3 * P40 + P40 / 2, 0 },
		{ 4 * P40, 0 },		/* done exactly when due: on time */
		{ 4 * P40 + 1, 1 },
		{ 6 * P40 + P40 / 2, 3 },
		{ 12 * P40, 8 },
	};
	struct eng_rec_stats st;
	size_t i;
	int64_t k;
	int eio;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fk *f = fk_new();
		const struct eng_access *w, *rc;
		uint64_t t_w = T0 + 5 * P40 + cases[i].stall;

		stalled_run(f, cases[i].stall, 0, &st, &eio);
		assert_int_equal(st.frames, 16);
		assert_int_equal(st.written, 16);
		if (st.dropped != cases[i].dropped)
			fail_msg("stall %" PRIu64 ": %" PRId64 " dropped, not %"
				 PRId64, cases[i].stall, st.dropped,
				 cases[i].dropped);
		assert_int_equal(st.dropped_writer, 0);
		for (k = 0; k < 16; k++) {
			uint64_t due = T0 + (uint64_t)(k + 4) * P40, done;

			rc = row_of(f, ENG_OP_RECEIVE, k, 0);
			w = row_of(f, ENG_OP_WRITE, k, 0);
			/* the clock: A(k) = t0 + k periods, never moved */
			assert_int_equal(rc->sched_ns, T0 + (uint64_t)k * P40);
			assert_int_equal(rc->due_ns, due);
			assert_int_equal(w->sched_ns, rc->sched_ns);
			assert_int_equal(w->due_ns, due);
			/* the writer is never late */
			assert_true(rc->done_ns <= rc->due_ns);
			done = k < 5 ? T0 + (uint64_t)k * P40
				     : t_w > T0 + (uint64_t)k * P40
					   ? t_w
					   : T0 + (uint64_t)k * P40;
			if (w->done_ns != done)
				fail_msg("stall %" PRIu64 " frame %" PRId64
					 ": V written at %" PRIu64
					 ", not %" PRIu64,
					 cases[i].stall, k, w->done_ns - T0,
					 done - T0);
			assert_int_equal(w->done_ns > w->due_ns,
					 k >= 5 && k < 5 + cases[i].dropped);
		}
		/* the stalled write says so */
		w = row_of(f, ENG_OP_WRITE, 5, 0);
		assert_int_equal(w->issued_ns, T0 + 5 * P40);
		assert_int_equal(w->injected, ENG_INJECT_DELAY);
		fk_free(f);
	}
}

/* ingest_on_drop=stop: the write after the drop was seen fails with
 * EIO, and it is said once. */
static void test_stop_on_drop(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_stats st;
	int eio;

	(void)state;
	stalled_run(f, 6 * P40 + P40 / 2, 1, &st, &eio);
	/* frame 9 waited for frame 5's slot: the drop was known when it
	 * was accepted, so frame 10's write fails */
	assert_int_equal(eio, 10);
	assert_int_equal(st.frames, 10);
	assert_int_equal(f->nnotices, 1);
	assert_string_equal(f->notices[0],
			    "s: frame 5 dropped (storage): the writer's next "
			    "write fails (ingest_on_drop=stop)");
	fk_free(f);
}

/* A writer that falls behind: frames 5.. come 6.5 periods late.  Its
 * frames 5, 6, 7 miss their due time by its doing (late receive rows,
 * cause writer); the clock does not wait for it: frame 12 is accepted
 * at t0 + 12 periods exactly. */
static void test_slow_writer(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	const struct eng_access *rc;
	uint64_t a;
	int64_t k;

	(void)state;
	config(f, &c, "sd-pal", 4, ENG_PACE_REALTIME);
	r = rec_new(f, &c, "w");
	feed(r, 0, eng_ingest_frame_offset(&c.fmt, 5), 1 << 20);
	f->io.sleep_until(f, T0 + 11 * P40 + P40 / 2);
	feed(r, eng_ingest_frame_offset(&c.fmt, 5),
	     eng_ingest_frame_offset(&c.fmt, 14), 1 << 20);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_int_equal(st.frames, 14);
	assert_int_equal(st.dropped, 3);
	assert_int_equal(st.dropped_writer, 3);
	for (k = 0; k < 14; k++) {
		rc = row_of(f, ENG_OP_RECEIVE, k, 0);
		a = T0 + (uint64_t)k * P40;
		assert_int_equal(rc->sched_ns, a);
		assert_int_equal(rc->done_ns > rc->due_ns, k >= 5 && k <= 7);
		if (k >= 5 && k <= 11)
			assert_int_equal(rc->issued_ns, T0 + 11 * P40 + P40 / 2);
		else
			assert_int_equal(rc->issued_ns, a);
	}
	fk_free(f);
}

/* Rows: the opens and headers, each frame's receive then its writes in
 * track order, then the close's patch, pad and close; one row an
 * operation. */
static void test_rows_in_order(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	const struct eng_access *a;
	int64_t next_write[3] = { 0, 0, 0 }, next_recv = 0;
	size_t i;

	(void)state;
	config(f, &c, "sd-pal", 2, ENG_PACE_REALTIME);
	r = rec_new(f, &c, "o");
	assert_int_equal(f->nrows, 5);
	assert_int_equal(f->rows[0].op, ENG_OP_OPEN);
	assert_int_equal(f->rows[1].op, ENG_OP_OPEN);
	assert_int_equal(f->rows[1].track, 1);
	assert_int_equal(f->rows[2].op, ENG_OP_WRITE);	/* A1's header */
	assert_int_equal(f->rows[2].length, ENG_INGEST_WAV_DATA);
	assert_int_equal(f->rows[2].played, 0);
	assert_int_equal(f->rows[4].op, ENG_OP_WRITE);	/* A2's */
	feed(r, 0, eng_ingest_frame_offset(&c.fmt, 6) + 1, 840960);
	assert_int_equal(rec_close(f, r, &st), 0);
	for (i = 5; i < f->nrows; i++) {
		a = &f->rows[i];
		if (a->op == ENG_OP_RECEIVE) {
			assert_int_equal(a->frame, next_recv++);
			continue;
		}
		if (a->op != ENG_OP_WRITE || !a->played)
			break;
		/* a frame's writes follow its receive, track by track */
		assert_true(a->frame < next_recv);
		assert_int_equal(a->frame, next_write[a->track]++);
		if (a->track > 0)
			assert_int_equal(next_write[a->track - 1],
					 next_write[a->track]);
		assert_int_equal(a->sched_ns, T0 + (uint64_t)a->frame * P40);
		assert_int_equal(a->due_ns, a->sched_ns + 2 * P40);
	}
	/* the partial frame 6: a receive row of 1 byte and a write of it,
	 * neither played; then patch, size (and no pad: A1 is empty of
	 * frame 6) and close for each track */
	assert_int_equal(next_recv, 7);
	a = &f->rows[i - 1];
	assert_true(a->op == ENG_OP_WRITE || a->op == ENG_OP_RECEIVE);
	assert_int_equal(count_rows(f, ENG_OP_RECEIVE, 6), 1);
	assert_int_equal(count_rows(f, ENG_OP_WRITE, 6), 1 + 2 * 2);
	assert_int_equal(count_rows(f, ENG_OP_CLOSE, 6), 3);
	assert_int_equal(f->rows[f->nrows - 1].op, ENG_OP_CLOSE);
	assert_int_equal(count_rows(f, ENG_OP_FSYNC, -1), 0);
	assert_int_equal(st.frames, 6);
	assert_int_equal(st.written, 6);
	fk_free(f);
}

/* pace=off: no waiting; frame k arrives with its last byte and is due B
 * periods (at speed 1) after. */
static void test_pace_off(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	const struct eng_access *a;
	int64_t k;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	r = rec_new(f, &c, "q");
	feed(r, 0, eng_ingest_frame_offset(&c.fmt, 20), 1 << 20);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_int_equal(f->sleeps, 0);
	assert_int_equal(st.frames, 20);
	for (k = 0; k < 20; k++) {
		a = row_of(f, ENG_OP_RECEIVE, k, 0);
		assert_int_equal(a->sched_ns, a->done_ns);
		assert_int_equal(a->due_ns, a->sched_ns + 3 * P40);
	}
	fk_free(f);
}

/* pace=2: frame k arrives at t0 + k periods / 2. */
static void test_pace_factor(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	int64_t k;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_FACTOR);
	c.pace.speed = 2;
	r = rec_new(f, &c, "q");
	feed(r, 0, eng_ingest_frame_offset(&c.fmt, 6), 1 << 20);
	assert_int_equal(rec_close(f, r, &st), 0);
	for (k = 0; k < 6; k++) {
		assert_int_equal(row_of(f, ENG_OP_RECEIVE, k, 0)->sched_ns,
				 T0 + (uint64_t)k * P40 / 2);
		assert_int_equal(row_of(f, ENG_OP_RECEIVE, k, 0)->due_ns,
				 T0 + (uint64_t)(k + 3) * P40 / 2);
	}
	fk_free(f);
}

/* ---------------------------------------------------------------- policy */

static void test_fsync_prealloc(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	struct ffile *v, *a1;
	uint64_t total;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	c.fsync = ENG_INGEST_FSYNC_EVERY;
	c.fsync_every = 2;
	c.prealloc_frames = 750;	/* 30 s */
	r = rec_new(f, &c, "fp");
	v = find(f, "ingest/fp.V.raw");
	a1 = find(f, "ingest/fp.A1.wav");
	assert_int_equal(v->falloc, 750 * 829440ULL);
	assert_int_equal(a1->falloc, ENG_INGEST_WAV_DATA + 750 * 5760ULL);
	assert_int_equal(count_rows(f, ENG_OP_FALLOCATE, 0), 3);
	total = eng_ingest_frame_offset(&c.fmt, 5) + 100;
	feed(r, 0, total, 1 << 20);
	assert_int_equal(rec_close(f, r, &st), 0);
	/* after frames 1 and 3, and at close */
	assert_int_equal(count_rows(f, ENG_OP_FSYNC, 1), 3);
	assert_int_equal(count_rows(f, ENG_OP_FSYNC, 3), 3);
	assert_int_equal(count_rows(f, ENG_OP_FSYNC, 5), 3);
	assert_int_equal(count_rows(f, ENG_OP_FSYNC, -1), 9);
	assert_int_equal(v->fsyncs, 3);
	/* the preallocation given back: each file ends where its data do */
	assert_int_equal(count_rows(f, ENG_OP_TRUNCATE, 5), 3);
	assert_int_equal(v->truncs, 1);
	assert_int_equal(v->falloc, 0);
	check_files(f, &c.fmt, "fp", total);
	fk_free(f);

	f = fk_new();
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	c.fsync = ENG_INGEST_FSYNC_CLOSE;
	r = rec_new(f, &c, "fc");
	feed(r, 0, eng_ingest_frame_offset(&c.fmt, 5), 1 << 20);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_int_equal(count_rows(f, ENG_OP_FSYNC, -1), 3);
	assert_int_equal(count_rows(f, ENG_OP_FSYNC, 4), 3);
	assert_int_equal(count_rows(f, ENG_OP_TRUNCATE, -1), 0);
	fk_free(f);

	/* a failed fsync fails the recording: said once, EIO */
	f = fk_new();
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	c.fsync = ENG_INGEST_FSYNC_CLOSE;
	f->fail_fsync = 1;
	r = rec_new(f, &c, "fe");
	feed(r, 0, eng_ingest_frame_offset(&c.fmt, 2), 1 << 20);
	assert_int_equal(rec_close(f, r, &st), -EIO);
	assert_int_equal(f->nnotices, 1);
	assert_string_equal(f->notices[0], "cannot fsync ingest/fe.V.raw: "
					   "Input/output error");
	fk_free(f);
}

/* The reserve: a frame that would take the file system under it gets
 * ENOSPC, nothing of it accepted, said once; new refuses under it. */
static void test_reserve(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	struct eng_diag d = { 0 };
	uint64_t fr = 840960, f3;
	unsigned char b[16] = { 0 };
	static unsigned char big[840960];
	int64_t room;
	ssize_t n;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	c.write_bytes = 4096;
	c.reserve = 1000000000;
	f->space = (int64_t)(c.reserve - 1);
	assert_int_equal(eng_rec_new(&c, "x", &r, &d), -ENOSPC);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "under the reserve of 1000000000"));
	eng_diag_free(&d);
	assert_int_equal(f->nfiles, 0);
	/* the mount's reservation is required */
	c.space = NULL;
	f->space = INT64_MAX / 2;
	assert_int_equal(eng_rec_new(&c, "x", &r, &d), -EINVAL);
	eng_diag_free(&d);
	assert_int_equal(f->nfiles, 0);
	c.space = f->sp;
	/* room for 3 frames and a half above the reserve and the slack of
	 * its 3 tracks: a write of frame 3 takes what fits, the next none */
	f->space = (int64_t)(c.reserve + 2 * ENG_INGEST_WAV_DATA +
			     3 * ENG_INGEST_SPACE_SLACK + 3 * fr + fr / 2);
	r = rec_new(f, &c, "x");
	f3 = eng_ingest_frame_offset(&c.fmt, 3);
	feed(r, 0, f3, fr);
	/* frames 0-2 on the files and given back: what fits is then exactly
	 * the free bytes above the reserve and the slack (a take made while
	 * the write thread had written a slice but not yet given it back got
	 * less, and the next write the difference) */
	do
		eng_rec_stats(r, &st);
	while (st.written < 3);
	fk_lock(f);
	room = f->space - (int64_t)(c.reserve + 3 * ENG_INGEST_SPACE_SLACK);
	fk_unlock(f);
	assert_int_equal(eng_ingest_space_pending(f->sp), 0);
	assert_true(room > 0 && room < (int64_t)fr / 2);
	n = eng_rec_write(r, big, fr, f3);
	assert_int_equal(n, room);
	assert_int_equal(eng_rec_write(r, b, sizeof(b), f3 + (uint64_t)n),
			 -ENOSPC);
	assert_int_equal(eng_rec_write(r, b, sizeof(b), f3 + (uint64_t)n),
			 -ENOSPC);
	assert_int_equal(f->nnotices, 1);
	assert_non_null(strstr(f->notices[0], "cannot record frame 3 of x: "));
	/* the refusal is not kept: space freed, the next write is taken */
	fk_lock(f);
	f->space += 2 * (int64_t)fr;
	fk_unlock(f);
	assert_int_equal(eng_rec_write(r, b, sizeof(b), f3 + (uint64_t)n), 16);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_int_equal(st.frames, 3);
	assert_int_equal(st.bytes, f3 + (uint64_t)n + 16);
	fk_free(f);

	/* preallocated frames are written into blocks the recording holds:
	 * with the file system at the reserve after the preallocation of 5
	 * frames, those 5 are taken and the 6th is refused */
	f = fk_new();
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	c.reserve = 1000000000;
	c.prealloc_frames = 5;
	f->space = (int64_t)(c.reserve + 2 * ENG_INGEST_WAV_DATA + 5 * fr);
	r = rec_new(f, &c, "y");
	/* at the reserve, less the note's few bytes */
	assert_true(f->space < (int64_t)c.reserve &&
		    f->space > (int64_t)c.reserve - 200);
	feed(r, 0, eng_ingest_frame_offset(&c.fmt, 5), fr);
	assert_int_equal(eng_rec_write(r, b, sizeof(b),
				       eng_ingest_frame_offset(&c.fmt, 5)),
			 -ENOSPC);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_int_equal(st.frames, 5);
	assert_true(f->space < (int64_t)c.reserve &&
		    f->space > (int64_t)c.reserve - 200);
	fk_free(f);
}

/* A failed write: said once, the writer's next write fails with EIO,
 * nothing after it is written (no hole), the close says it. */
static void test_write_error(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	unsigned char b[16] = { 0 };
	uint64_t f2;
	size_t i;
	int bad = 0;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	f->fail_write = 4;	/* frame 1's A1 */
	r = rec_new(f, &c, "e");
	f2 = eng_ingest_frame_offset(&c.fmt, 2);
	feed(r, 0, f2, 1 << 20);
	/* wait for the thread to have met it */
	do {
		eng_rec_stats(r, &st);
	} while (st.written + st.failed < 2);
	assert_int_equal(eng_rec_write(r, b, sizeof(b), f2), -EIO);
	/* the writer's flush and fsync say it (close(2) and fsync(2)) */
	assert_int_equal(eng_rec_sync(r, 0), -EIO);
	assert_int_equal(eng_rec_sync(r, 1), -EIO);
	assert_int_equal(rec_close(f, r, &st), -EIO);
	assert_int_equal(st.error, -EIO);
	assert_int_equal(st.written, 1);
	assert_int_equal(st.failed, 1);
	assert_int_equal(f->nnotices, 1);
	assert_string_equal(f->notices[0],
			    "cannot write ingest/e.A1.wav: Input/output error");
	for (i = 0; i < f->nrows; i++)
		if (f->rows[i].err)
			bad++;
	assert_int_equal(bad, 1);
	/* A2 of frame 1 was not written: no hole after the failure */
	assert_int_equal(find(f, "ingest/e.A2.wav")->size,
			 ENG_INGEST_WAV_DATA + 5760);
	/* the note says failed, and the frames that are whole */
	assert_non_null(strstr(note_of(f, "e"), "state failed\nframes 1\n"));
	fk_free(f);
}

/* A writer's fsync: every byte it was told was written is on the track
 * files, the frame it is in the middle of too (the rest follows), each
 * track fsynced; the writer goes on after it. */
static void test_sync(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	uint64_t f1, f3, held_b;
	int i;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	r = rec_new(f, &c, "s");
	f1 = eng_ingest_frame_offset(&c.fmt, 1);
	f3 = eng_ingest_frame_offset(&c.fmt, 3);
	feed(r, 0, f1 + f1 / 2, 100003);
	assert_int_equal(eng_rec_sync(r, 1), 0);
	fk_lock(f);
	held_b = find(f, "ingest/s.V.raw")->size +
		 find(f, "ingest/s.A1.wav")->size +
		 find(f, "ingest/s.A2.wav")->size - 2 * ENG_INGEST_WAV_DATA;
	for (i = 0; i < f->nfiles; i++)
		if (!strstr(f->files[i].name, ".rec"))
			assert_int_equal(f->files[i].fsyncs, 1);
	fk_unlock(f);
	assert_int_equal(held_b, f1 + f1 / 2);
	feed(r, f1 + f1 / 2, f3, 100003);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_int_equal(st.written, 3);
	check_files(f, &c.fmt, "s", f3);
	fk_free(f);
}

/* One reservation for the mount: bytes one recorder took are not free
 * for another until written (or given back). */
static int sp_free;
static int sp_space(void *ctx, uint64_t *bytes)
{
	(void)ctx;
	*bytes = (uint64_t)sp_free;
	return 0;
}

static void test_space_shared(void **state)
{
	struct eng_io io = { .space = sp_space };
	struct eng_ingest_space *s;
	uint64_t fb, held_b;

	(void)state;
	assert_int_equal(eng_ingest_space_new(&s), 0);
	sp_free = 1000;
	assert_int_equal(eng_ingest_space_take(s, &io, 100, 600, NULL, NULL),
			 600);
	/* another recorder: 1000 free, less the reserve and the 600 */
	assert_int_equal(eng_ingest_space_take(s, &io, 100, 600, &fb, &held_b),
			 300);
	assert_int_equal(fb, 1000);
	assert_int_equal(held_b, 600);
	assert_int_equal(eng_ingest_space_take(s, &io, 100, 1, NULL, NULL), 0);
	/* 500 written: the file system has 500 less, the pending 500 less */
	sp_free = 500;
	eng_ingest_space_give(s, 500);
	assert_int_equal(eng_ingest_space_take(s, &io, 100, 1, NULL, NULL), 0);
	eng_ingest_space_give(s, 400);	/* given back: never written */
	assert_int_equal(eng_ingest_space_pending(s), 0);
	/* each track recorded keeps its slack free */
	eng_ingest_space_tracks(s, 1, 0);
	sp_free = (int)(100 + ENG_INGEST_SPACE_SLACK + 10);
	assert_int_equal(eng_ingest_space_take(s, &io, 100, 50, NULL, NULL),
			 10);
	eng_ingest_space_tracks(s, 0, 1);
	eng_ingest_space_free(s);
}

/* The reservation is asked once a frame: the first write of a frame
 * takes up to its end, the frame's later writes use that credit; what a
 * frame cut short at close did not use is given back. */
static void test_space_once_a_frame(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	uint64_t fr;
	long n0;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	r = rec_new(f, &c, "s");
	fr = eng_ingest_frame_offset(&c.fmt, 1);
	n0 = f->nspace;
	feed(r, 0, fr, 4096);
	assert_int_equal(f->nspace - n0, 1);
	feed(r, fr, 2 * fr + fr / 3, 4096);
	assert_int_equal(f->nspace - n0, 3);
	/* frame 2's credit still pending, for every recorder to see */
	assert_true(eng_ingest_space_pending(f->sp) >= fr - fr / 3);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_int_equal(st.bytes, 2 * fr + fr / 3);
	assert_int_equal(eng_ingest_space_pending(f->sp), 0);
	fk_free(f);
}

/* A create's preallocation is taken through the mount's reservation:
 * with another recorder's bytes pending and its tracks' slack, a create
 * whose preallocation fits only above the reserve is refused. */
static void test_reserve_create_shared(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c, c2;
	struct eng_rec_stats st;
	struct eng_diag d = { 0 };
	struct eng_rec *r, *r2 = NULL;
	uint64_t fr, pre, held;
	unsigned char b[4096] = { 0 };
	uint32_t t;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	c.reserve = 1000000000;
	r = rec_new(f, &c, "a");
	fr = eng_ingest_frame_offset(&c.fmt, 1);
	assert_int_equal(eng_rec_write(r, b, sizeof(b), 0), sizeof(b));
	held = eng_ingest_space_pending(f->sp);
	assert_true(held >= sizeof(b) && held <= fr);
	c2 = c;
	c2.prealloc_frames = 2;
	for (pre = 0, t = 0; t < c2.fmt.ntracks; t++)
		pre += eng_ingest_upto(&c2.fmt, t, 2);
	fk_lock(f);
	f->space = (int64_t)(c.reserve + pre + 1000);
	fk_unlock(f);
	assert_int_equal(eng_rec_new(&c2, "b", &r2, &d), -ENOSPC);
	assert_null(r2);
	assert_int_equal(d.n, 1);
	assert_non_null(strstr(d.msgs[0], "under the reserve of 1000000000"));
	eng_diag_free(&d);
	assert_null(find(f, "ingest/b.V.raw"));
	assert_int_equal(eng_ingest_space_pending(f->sp), held);
	/* room for the other's bytes and slack too: created, and the
	 * preallocation's take given back once it is fallocated */
	fk_lock(f);
	f->space += (int64_t)(held + 3 * ENG_INGEST_SPACE_SLACK);
	fk_unlock(f);
	r2 = rec_new(f, &c2, "b");
	assert_int_equal(eng_ingest_space_pending(f->sp), held);
	assert_int_equal(rec_close(f, r2, &st), 0);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_int_equal(eng_ingest_space_pending(f->sp), 0);
	fk_free(f);
}

static void test_exists_and_order(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_rec *r;
	struct eng_diag d = { 0 };
	unsigned char b[16] = { 0 };
	int fd;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	r = rec_new(f, &c, "n");
	assert_int_equal(eng_rec_write(r, b, sizeof(b), 1), -ESPIPE);
	assert_int_equal(eng_rec_write(r, b, sizeof(b), 0), 16);
	assert_int_equal(eng_rec_write(r, b, sizeof(b), 0), -ESPIPE);
	assert_int_equal(rec_close(f, r, &st), 0);
	assert_non_null(strstr(note_of(f, "n"), "state closed\nframes 0\n"));
	/* a second recording of the name: EEXIST, unless replace */
	assert_int_equal(eng_rec_new(&c, "n", &r, &d), -EEXIST);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0], "ingest/n.V.raw: cannot create it: "
				       "File exists (-o ingest_replace)");
	eng_diag_free(&d);
	/* a create that fails at its note (there is one, someone else's)
	 * takes back the track files it made, and leaves the note */
	c.replace = 0;
	fd = f->io.create(f, "ingest/u.rec", 0, NULL);
	assert_true(fd >= 0);
	fk_close(f, fd);
	assert_int_equal(eng_rec_new(&c, "u", &r, &d), -EEXIST);
	eng_diag_free(&d);
	assert_null(find(f, "ingest/u.V.raw"));
	assert_null(find(f, "ingest/u.A1.wav"));
	assert_null(find(f, "ingest/u.A2.wav"));
	assert_non_null(find(f, "ingest/u.rec"));
	c.replace = 1;
	r = rec_new(f, &c, "n");
	assert_non_null(strstr(note_of(f, "n"), "state recording\n"));
	assert_int_equal(find(f, "ingest/n.V.raw")->size, 0);
	assert_int_equal(rec_close(f, r, &st), 0);
	fk_free(f);
}

/* kill -9 mid-recording, then the repair: the files as a recorder left
 * them (its whole frames written, the last one cut inside V, WAV sizes
 * all ones, the note in state recording) are cut to the last frame all
 * tracks hold, and read back as a closed recording of as many frames
 * would be. */
static void test_killed_then_repaired(void **state)
{
	struct fk *f = fk_new(), *g = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_ingest_repair rep;
	struct eng_diag d = { 0 };
	struct eng_rec *r;
	uint64_t total;
	int i;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	r = rec_new(f, &c, "k");
	total = eng_ingest_frame_offset(&c.fmt, 4);
	feed(r, 0, total, 1 << 20);
	do
		eng_rec_stats(r, &st);
	while (st.written < 4);
	/* the daemon dies: what is on storage now, frame 3's V half
	 * written (its audio not yet) */
	fk_lock(f);
	for (i = 0; i < f->nfiles; i++) {
		struct ffile *ff = &g->files[g->nfiles++];

		*ff = f->files[i];
		ff->data = malloc(ff->cap);
		assert_non_null(ff->data);
		memcpy(ff->data, f->files[i].data, ff->cap);
		ff->open = 0;
	}
	fk_unlock(f);
	assert_non_null(strstr(note_of(g, "k"), "state recording\n"));
	find(g, "ingest/k.V.raw")->size = 3 * 829440 + 829440 / 2;
	find(g, "ingest/k.A1.wav")->size -= 5760;
	find(g, "ingest/k.A2.wav")->size -= 5760;
	assert_int_equal(eng_ingest_repair(&g->io, NULL, "ingest/k.rec", &rep,
					   &d),
			 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(rep.repaired, 1);
	assert_int_equal(rep.frames, 3);
	assert_int_equal(rep.cut, 829440 / 2);
	assert_int_equal(find(g, "ingest/k.V.raw.partial")->size, 829440 / 2);
	check_files(g, &c.fmt, "k", eng_ingest_frame_offset(&c.fmt, 3));
	assert_non_null(strstr(note_of(g, "k"),
			       "state repaired\nframes 3\n"));
	assert_int_equal(rec_close(f, r, &st), 0);
	fk_free(f);
	fk_free(g);
}

/* The note names the daemon that records (host, boot, pid, run) and is
 * locked while it records: another mount's replace of the recording is
 * EBUSY, its track files untouched; closed, the owner lines stay. */
static void test_note_owner_and_lock(void **state)
{
	static const struct eng_ingest_owner me = {
		.host = "ws1", .boot = "b-1", .pid = 4242, .pid_start = 99,
		.lock_shared = 1, .run = "r-uuid",
	};
	struct fk *f = fk_new();
	struct eng_rec_config c, c2;
	struct eng_rec_stats st;
	struct eng_diag d = { 0 };
	struct eng_rec *r, *r2 = NULL;
	uint64_t total;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	c.owner = &me;
	r = rec_new(f, &c, "o");
	total = eng_ingest_frame_offset(&c.fmt, 2);
	feed(r, 0, total, 1 << 20);
	do
		eng_rec_stats(r, &st);
	while (st.written < 2);
	assert_true(find(f, "ingest/o.rec")->locked);
	assert_string_equal(strstr(note_of(f, "o"), "state"),
			    "state recording\nhost ws1\nboot b-1\n"
			    "pid 4242 99\nlock shared\nrun r-uuid\n");
	c2 = c;
	c2.replace = 1;
	assert_int_equal(eng_rec_new(&c2, "o", &r2, &d), -EBUSY);
	assert_null(r2);
	assert_string_equal(d.msgs[0], "ingest/o.rec: another mount records "
				       "it now");
	eng_diag_free(&d);
	assert_int_equal(find(f, "ingest/o.V.raw")->size, 2 * 829440);
	assert_int_equal(rec_close(f, r, &st), 0);
	check_files(f, &c.fmt, "o", total);
	assert_string_equal(strstr(note_of(f, "o"), "state"),
			    "state closed\nframes 2\nhost ws1\nboot b-1\n"
			    "pid 4242 99\nlock shared\nrun r-uuid\n");
	/* a file system that cannot lock: recorded, its note says so */
	f->io.lock = NULL;
	c.replace = 1;
	r = rec_new(f, &c, "o");
	assert_non_null(strstr(note_of(f, "o"), "\nlock local\n"));
	assert_int_equal(rec_close(f, r, &st), 0);
	fk_free(f);
}

/* A failed create takes back the note it made and locked, but a note it
 * only claimed to replace stays, as it was, its lock released. */
static void test_failed_create_note(void **state)
{
	struct fk *f = fk_new();
	struct eng_rec_config c;
	struct eng_rec_stats st;
	struct eng_diag d = { 0 };
	struct eng_rec *r = NULL;

	(void)state;
	config(f, &c, "sd-pal", 3, ENG_PACE_OFF);
	r = rec_new(f, &c, "p");
	assert_int_equal(rec_close(f, r, &st), 0);
	c.replace = 1;
	f->fail_create = "ingest/p.A2.wav";
	assert_int_equal(eng_rec_new(&c, "p", &r, &d), -EIO);
	eng_diag_free(&d);
	assert_non_null(find(f, "ingest/p.rec"));
	assert_non_null(strstr(note_of(f, "p"), "state closed\nframes 0\n"));
	assert_false(find(f, "ingest/p.rec")->locked);
	assert_null(find(f, "ingest/p.V.raw"));
	assert_null(find(f, "ingest/p.A1.wav"));
	/* made, then its lock refused: the note goes with the tracks */
	f->fail_create = NULL;
	f->lock_busy = 1;
	c.replace = 0;
	assert_int_equal(eng_rec_new(&c, "q", &r, &d), -EBUSY);
	eng_diag_free(&d);
	assert_null(find(f, "ingest/q.rec"));
	assert_null(find(f, "ingest/q.V.raw"));
	assert_null(find(f, "ingest/q.A2.wav"));
	fk_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_exact),
		cmocka_unit_test(test_write_pieces),
		cmocka_unit_test(test_stall_drops),
		cmocka_unit_test(test_stop_on_drop),
		cmocka_unit_test(test_slow_writer),
		cmocka_unit_test(test_rows_in_order),
		cmocka_unit_test(test_pace_off),
		cmocka_unit_test(test_pace_factor),
		cmocka_unit_test(test_fsync_prealloc),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_sync),
		cmocka_unit_test(test_space_shared),
		cmocka_unit_test(test_space_once_a_frame),
		cmocka_unit_test(test_reserve_create_shared),
		cmocka_unit_test(test_exists_and_order),
		cmocka_unit_test(test_killed_then_repaired),
		cmocka_unit_test(test_note_owner_and_lock),
		cmocka_unit_test(test_failed_create_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
