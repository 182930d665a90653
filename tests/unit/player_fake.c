/* SPDX-License-Identifier: MIT */
/*
 * The fakes and timelines that the player's unit tests (test_player_*.c)
 * share: player_fake.h says what each does.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <cmocka.h>

#include "io/io.h"
#include "media/mfile.h"
#include "media/genplan.h"
#include "media/media.h"
#include "media/mov.h"
#include "play/movie.h"
#include "play/player.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#include "player_fake.h"

static uint64_t name_hash(const char *name)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 1099511628211ULL;
	return h;
}

static unsigned char hashed_byte(uint64_t h, uint64_t off)
{
	uint64_t x = (off + h) * 0x9E3779B97F4A7C15ULL;

	x ^= x >> 31;
	x *= 0xBF58476D1CE4E5B9ULL;
	return (unsigned char)(x >> 56);
}

unsigned char byte_at(const char *name, uint64_t off)
{
	return hashed_byte(name_hash(name), off);
}

void bytes_at(const char *name, uint64_t off, unsigned char *out, size_t n)
{
	uint64_t h = name_hash(name);
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = hashed_byte(h, off + i);
}

uint64_t size_now(const struct fake *f, const struct fake_file *ff)
{
	uint64_t t = f->now < f->grow_end ? f->now : f->grow_end, n;

	if (!f->grow_name || strcmp(ff->name, f->grow_name) != 0)
		return ff->size;
	n = t < f->grow_t0 ? 0 : (t - f->grow_t0) / f->grow_period + 1;
	return n * f->grow_bytes < ff->size ? n * f->grow_bytes : ff->size;
}

struct fake_file *file_of(struct fake *f, int fd)
{
	int i = fd - 100;

	if (i < 0 || i >= f->nfiles || !f->files[i].open)
		return NULL;
	return &f->files[i];
}

int fake_size(void *ctx, int fd, uint64_t *bytes)
{
	struct fake *f = ctx;
	struct fake_file *ff = file_of(f, fd);

	if (!ff)
		return -EBADF;
	*bytes = size_now(f, ff);
	return 0;
}

static uint64_t fake_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static void fake_sleep_until(void *ctx, uint64_t ns)
{
	struct fake *f = ctx;

	f->sleeps++;
	if (ns <= f->now)
		f->bad_sleeps++;	/* the player must not sleep for nothing */
	else
		f->now = ns;
}

struct fake_file *fake_file_get(struct fake *f, const char *name)
{
	int i;

	for (i = 0; i < f->nfiles; i++)
		if (strcmp(f->files[i].name, name) == 0)
			return &f->files[i];
	if (f->nfiles == MAX_FILES)
		return NULL;
	i = f->nfiles++;
	snprintf(f->files[i].name, sizeof(f->files[i].name), "%s", name);
	f->files[i].size = 1ULL << 40;
	return &f->files[i];
}

static int fake_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct fake *f = ctx;
	struct fake_file *ff;

	f->opens++;
	if (f->fail_open && strcmp(file, f->fail_open) == 0)
		return -ENOENT;
	if (f->open_limit && f->open_now >= f->open_limit) {
		f->emfiles++;
		return -EMFILE;
	}
	ff = fake_file_get(f, file);
	if (!ff)
		return -EMFILE;
	ff->open++;
	if (++f->open_now > f->open_peak)
		f->open_peak = f->open_now;
	ff->direct = direct && f->can_direct;
	*is_direct = ff->direct;
	return 100 + (int)(ff - f->files);
}

static ssize_t fake_pread(void *ctx, int fd, void *buf, size_t len,
			  uint64_t off)
{
	struct fake *f = ctx;
	struct fake_file *ff = file_of(f, fd);
	long idx = f->preads++;
	unsigned char *d = buf;
	uint64_t n, size;

	if (idx < MAX_LOG)
		f->reads[idx] = (struct io_call){ fd, off, len, (uintptr_t)buf };
	if (f->on_pread)
		f->on_pread(f, idx);
	if (!ff)
		return -EBADF;
	if (ff->direct && (off % 4096 || len % 4096 || (uintptr_t)buf % 4096))
		f->unaligned_direct++;
	f->now += idx == f->slow_read ? f->slow_ns : f->latency;
	if (idx == f->fail_read)
		return -f->fail_err;
	size = size_now(f, ff);
	n = off >= size ? 0 : size - off < len ? size - off : len;
	if (idx == f->short_read)
		n /= 2;
	bytes_at(ff->name, off, d, n);
	return (ssize_t)n;
}

static void fake_dontneed(void *ctx, int fd, uint64_t off, uint64_t len)
{
	struct fake *f = ctx;

	if (f->dontneeds < MAX_LOG)
		f->dn[f->dontneeds] = (struct io_call){ fd, off, len, 0 };
	f->dontneeds++;
}

static void fake_close(void *ctx, int fd)
{
	struct fake *f = ctx;
	struct fake_file *ff = file_of(f, fd);

	f->closes++;
	if (ff) {
		ff->open--;
		f->open_now--;
	}
}

static struct fake_pipe *pipe_of(struct fake *f, int fd, int end)
{
	int i = fd - 1000;

	if (i < 0 || i % 2 != end || i / 2 >= f->npipes ||
	    !f->pipes[i / 2].open)
		return NULL;
	return &f->pipes[i / 2];
}

static int fake_pipe_new(void *ctx, size_t bytes, int fds[2])
{
	struct fake *f = ctx;
	struct fake_pipe *fp;

	if (f->npipes == MAX_PIPES || f->npipes == f->pipe_fail_at)
		return -EMFILE;
	if (f->pipe_max && bytes > f->pipe_max)
		return -EPERM;	/* as F_SETPIPE_SZ past fs.pipe-max-size */
	fp = &f->pipes[f->npipes];
	fp->buf = malloc(bytes);
	assert_non_null(fp->buf);
	fp->cap = bytes;
	fp->head = fp->len = 0;
	fp->open = 1;
	fds[0] = 1000 + 2 * f->npipes;
	fds[1] = 1001 + 2 * f->npipes;
	f->npipes++;
	return 0;
}

static void fake_pipe_free(void *ctx, const int fds[2])
{
	struct fake_pipe *fp = pipe_of(ctx, fds[0], 0);

	assert_non_null(fp);
	assert_ptr_equal(fp, pipe_of(ctx, fds[1], 1));
	free(fp->buf);
	fp->buf = NULL;
	fp->open = 0;
}

/* n bytes from src at spos to dst at dpos, each a ring of its cap
 * (SIZE_MAX: flat), in as few memcpy as the wraps allow: a byte at a
 * time, the sanitizers' builds spent a minute in these fakes. */
static void ring_copy(unsigned char *dst, size_t dcap, size_t dpos,
		      const unsigned char *src, size_t scap, size_t spos,
		      size_t n)
{
	while (n) {
		size_t d = dpos % dcap, s = spos % scap, k = n;

		if (k > dcap - d)
			k = dcap - d;
		if (k > scap - s)
			k = scap - s;
		memcpy(dst + d, src + s, k);
		dpos = d + k;
		spos = s + k;
		n -= k;
	}
}

static void pipe_push(struct fake_pipe *fp, const unsigned char *d,
		      size_t n)
{
	/* the player sizes its pipes for a whole frame: never overfilled */
	assert_true(fp->len + n <= fp->cap);
	ring_copy(fp->buf, fp->cap, fp->head + fp->len, d, SIZE_MAX, 0, n);
	fp->len += n;
}

/* The pread fake (clock, failures, log), its bytes into the pipe. */
static ssize_t fake_splice_in(void *ctx, int fd, uint64_t off, size_t len,
			      int wr)
{
	struct fake_pipe *fp = pipe_of(ctx, wr, 1);
	unsigned char *tmp = malloc(len ? len : 1);
	ssize_t n;

	assert_non_null(fp);
	assert_non_null(tmp);
	n = fake_pread(ctx, fd, tmp, len, off);
	if (n > 0)
		pipe_push(fp, tmp, (size_t)n);
	free(tmp);
	return n;
}

static ssize_t fake_pipe_zero(void *ctx, int wr, size_t len)
{
	struct fake_pipe *fp = pipe_of(ctx, wr, 1);
	unsigned char *z = calloc(1, len ? len : 1);

	assert_non_null(fp);
	assert_non_null(z);
	pipe_push(fp, z, len);
	free(z);
	return (ssize_t)len;
}

size_t pipe_pop(struct fake *f, int rd, unsigned char *out, size_t n)
{
	struct fake_pipe *fp = pipe_of(f, rd, 0);

	assert_non_null(fp);
	if (n > fp->len)
		n = fp->len;
	if (out)
		ring_copy(out, SIZE_MAX, 0, fp->buf, fp->cap, fp->head, n);
	fp->head = (fp->head + n) % fp->cap;
	fp->len -= n;
	return n;
}

static int fake_pipe_skip(void *ctx, int rd, size_t len)
{
	struct fake *f = ctx;

	f->pipe_skips++;
	if (f->pipe_skip_fail > 0) {
		f->pipe_skip_fail--;
		return -EIO;
	}
	if (pipe_pop(f, rd, NULL, len) < len && len != SIZE_MAX)
		return -EIO;
	return 0;
}

static ssize_t fake_pipe_avail(void *ctx, int rd)
{
	struct fake_pipe *fp = pipe_of(ctx, rd, 0);

	assert_non_null(fp);
	return (ssize_t)fp->len;
}

/* tee(2), or splice(2) between pipes when move: up to what wr holds */
static ssize_t fake_pipe_pass(struct fake *f, int rd, int wr, size_t len,
			      int move)
{
	struct fake_pipe *from = pipe_of(f, rd, 0), *to = pipe_of(f, wr, 1);

	assert_non_null(from);
	assert_non_null(to);
	if (len > from->len)
		len = from->len;
	if (len > to->cap - to->len)
		len = to->cap - to->len;
	ring_copy(to->buf, to->cap, to->head + to->len, from->buf, from->cap,
		  from->head, len);
	to->len += len;
	if (move)
		pipe_pop(f, rd, NULL, len);
	return (ssize_t)len;
}

static ssize_t fake_pipe_tee(void *ctx, int rd, int wr, size_t len)
{
	struct fake *f = ctx;

	if (f->pipe_tee_fail > 0) {
		f->pipe_tee_fail--;
		return -EIO;
	}
	return fake_pipe_pass(ctx, rd, wr, len, 0);
}

static ssize_t fake_pipe_move(void *ctx, int rd, int wr, size_t len)
{
	return fake_pipe_pass(ctx, rd, wr, len, 1);
}

void fake_zero_copy(struct fake *f)
{
	f->io.pipe_new = fake_pipe_new;
	f->io.pipe_free = fake_pipe_free;
	f->io.splice_in = fake_splice_in;
	f->io.pipe_zero = fake_pipe_zero;
	f->io.pipe_skip = fake_pipe_skip;
	f->io.pipe_avail = fake_pipe_avail;
	f->io.pipe_tee = fake_pipe_tee;
	f->io.pipe_move = fake_pipe_move;
}

void log_record(void *ctx, const struct eng_access *a)
{
	struct acc_log *l = ctx;

	if (l->n == MAX_LOG) {
		l->dropped++;
		return;
	}
	l->a[l->n++] = *a;
}

struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->now = T0;
	f->slow_read = f->fail_read = f->short_read = -1;
	f->pipe_fail_at = -1;
	f->log.a = calloc(MAX_LOG, sizeof(*f->log.a));
	assert_non_null(f->log.a);
	f->io = (struct eng_io){
		.now = fake_now, .sleep_until = fake_sleep_until,
		.open = fake_open, .pread = fake_pread,
		.dontneed = fake_dontneed, .close = fake_close, .ctx = f,
	};
	return f;
}

void fake_free(struct fake *f)
{
	int i;

	/* a player frees the pipes it made */
	for (i = 0; i < f->npipes; i++)
		assert_false(f->pipes[i].open);
	free(f->log.a);
	free(f);
}

void fake_resolve(struct eng_timeline *tl, const uint64_t *headers)
{
	size_t i, t;

	for (i = 0; i < tl->nclips; i++) {
		tl->clips[i].media = calloc(tl->ntracks, sizeof(struct eng_media));
		assert_non_null(tl->clips[i].media);
		for (t = 0; t < tl->ntracks; t++) {
			struct eng_media *m = &tl->clips[i].media[t];

			assert_true(asprintf(&m->file, "%s.%s", tl->clips[i].name,
					     tl->tracks[t].name) > 0);
			m->header = headers ? headers[t] : 0;
			m->size = 1ULL << 40;
		}
	}
}

struct eng_timeline *make_tl(const struct tl_spec *sp)
{
	uint64_t headers[4];
	struct eng_timeline *tl = eng_tl_new("t", "t.tl");
	struct eng_diag diag = { 0 };
	size_t i, t;

	assert_non_null(tl);
	tl->fps.num = sp->num;
	tl->fps.den = sp->den;
	for (i = 0; i < 4 && sp->tracks[i].name; i++)
		assert_int_equal(eng_tl_add_track(tl, sp->tracks[i].name,
						  sp->tracks[i].rate,
						  sp->tracks[i].align), (int)i);
	for (i = 0; i < 12 && sp->segs[i].clip; i++) {
		int tr = eng_tl_find_track(tl, sp->segs[i].tracks);
		int c = eng_tl_clip(tl, sp->segs[i].clip, (unsigned)i + 1);

		assert_true(tr >= 0 && c >= 0);
		assert_int_equal(eng_tl_add_segment(tl, (size_t)tr, (uint32_t)c,
						    sp->segs[i].src,
						    sp->segs[i].rec,
						    sp->segs[i].frames,
						    (unsigned)i + 1), 0);
	}
	assert_int_equal(eng_tl_finalize(tl, &diag), 0);
	eng_diag_free(&diag);
	for (t = 0; t < tl->ntracks; t++)
		headers[t] = sp->tracks[t].header;
	fake_resolve(tl, headers);
	return tl;
}

unsigned char *expected_file(const struct eng_timeline *tl,
			     size_t *nslices)
{
	unsigned char *buf = calloc(1, tl->bytes);
	int64_t k;
	size_t t, n = 0;
	uint64_t at;
	int e;

	assert_non_null(buf);
	for (k = 0; k < tl->frames; k++)
		for (t = 0; t < tl->ntracks; t++) {
			struct eng_slice s;

			eng_slice_get(tl, k, t, &s);
			if (!s.seg || !s.len)
				continue;
			n += (size_t)s.next;
			for (e = 0, at = s.pos; e < s.next; e++) {
				bytes_at(tl->clips[s.seg->clip].media[t].file,
					 s.ext[e].off, buf + at, s.ext[e].len);
				at += s.ext[e].len;
			}
		}
	if (nslices)
		*nslices = n;
	return buf;
}

struct eng_timeline *simple_tl(uint64_t bpf, int64_t frames)
{
	struct tl_spec sp = {
		25, 1, { { "V", bpf * 25, 1, 0 } },
		{ { "V", "c0", 0, 0, frames } },
	};

	return make_tl(&sp);
}

struct eng_player_config make_cfg(struct fake *f, unsigned buffer,
				  enum eng_pace_mode mode, double speed,
				  enum eng_backing backing,
				  size_t max_request)
{
	return (struct eng_player_config){
		.buffer = buffer,
		.pace = { mode, speed },
		.backing = backing,
		.max_request = max_request,
		.io = &f->io,
		.record = log_record,
		.record_ctx = &f->log,
	};
}

struct eng_player *new_player(const struct eng_timeline *tl,
			      const struct eng_player_config *cfg)
{
	struct eng_player *p = NULL;

	assert_int_equal(eng_player_new(tl, cfg, &p), 0);
	assert_non_null(p);
	return p;
}

void read_frame(struct eng_player *p, const struct eng_timeline *tl,
		const unsigned char *want, int64_t k)
{
	uint64_t off = eng_frame_offset(tl, k), len = eng_frame_size(tl, k);
	unsigned char *buf = malloc(len);

	assert_non_null(buf);
	assert_int_equal(eng_player_copy(p, buf, len, off), (ssize_t)len);
	assert_memory_equal(buf, want + off, len);
	free(buf);
}

void check_played(const struct fake *f, const struct eng_player *pc)
{
	struct eng_player_stats st;
	int64_t plays = 0, late = 0;
	size_t i, j;

	eng_player_stats((struct eng_player *)pc, &st);
	for (i = 0; i < f->log.n; i++) {
		const struct eng_access *a = &f->log.a[i];
		int first = 1, any_late = 0;

		assert_true(a->played == 0 || a->played == 1);
		if (!a->played)
			continue;
		for (j = 0; j < f->log.n; j++) {
			const struct eng_access *b = &f->log.a[j];

			if (!b->played || b->frame != a->frame ||
			    b->due_ns != a->due_ns)
				continue;
			if (j < i)
				first = 0;
			any_late |= b->done_ns > b->due_ns;
		}
		if (!first)
			continue;
		plays++;
		late += any_late;
	}
	assert_int_equal(plays, st.frames);
	assert_int_equal(late, st.late_frames);
}

size_t smb_order(uint64_t bytes, uint64_t p0, uint64_t p1,
		 int b_first, uint64_t *off, size_t max)
{
	size_t n = 0;
	uint64_t pr, i;
	int side;

	for (pr = p0; pr < p1; pr++)
		for (i = 0; i < 8; i++)
			for (side = 0; side < 2; side++) {
				/* b_first: B0 A0 A1 B1 B2 A2 ...: the
				 * threads' requests race */
				int s = (b_first && pr == p0 &&
					 (i % 2 == 0)) ? 1 - side : side;
				uint64_t o = (2 * pr + (uint64_t)s) *
					     SMB_CHUNK + i * SMB_REQ;

				if (o < bytes && n < max)
					off[n++] = o;
			}
	return n;
}

uint64_t mono_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t mt_now(void *ctx)
{
	struct mt *m = ctx;
	uint64_t v;

	pthread_mutex_lock(&m->mu);
	v = m->real ? mono_now(NULL) : m->now;
	if (!pthread_equal(pthread_self(), m->test)) {
		m->loader_nows++;
		pthread_cond_broadcast(&m->cv);
	}
	pthread_mutex_unlock(&m->mu);
	return v;
}

static void mt_sleep_until(void *ctx, uint64_t ns)
{
	struct mt *m = ctx;

	pthread_mutex_lock(&m->mu);
	if (ns > m->now)
		m->now = ns;
	pthread_mutex_unlock(&m->mu);
}

/* The files: c0.V (fd 100) and c1.V (fd 101), one track's clips. */
static const char *const mt_files[] = { "c0.V", "c1.V" };

static int mt_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct mt *m = ctx;
	int i;

	(void)direct;
	*is_direct = 0;
	pthread_mutex_lock(&m->mu);
	if (m->stall_open && strcmp(file, m->stall_open) == 0)
		while (m->now < m->stall_until)
			pthread_cond_wait(&m->cv, &m->mu);
	pthread_mutex_unlock(&m->mu);
	for (i = 0; i < 2; i++)
		if (strcmp(file, mt_files[i]) == 0)
			return 100 + i;
	return -ENOENT;
}

static void mt_close(void *ctx, int fd)
{
	(void)ctx;
	(void)fd;
}

/* The first read, m->mu held: wait until another read is in flight, or
 * 10 s (a player that never reads two at once: the test's inflight_peak
 * check fails, it does not hang). */
static void mt_hold_first(struct mt *m)
{
	struct timespec ts;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	while (m->inflight < 2 && rc == 0)
		rc = pthread_cond_timedwait(&m->cv, &m->mu, &ts);
}

static ssize_t mt_pread(void *ctx, int fd, void *buf, size_t len,
			uint64_t off)
{
	struct mt *m = ctx;
	unsigned char *d = buf;
	size_t i;

	if (fd != 100 && fd != 101)
		return -EBADF;
	pthread_mutex_lock(&m->mu);
	if (++m->inflight > m->inflight_peak)
		m->inflight_peak = m->inflight;
	pthread_cond_broadcast(&m->cv);
	if (m->hold_first && m->reads++ == 0)
		mt_hold_first(m);
	if (off == m->stall_off) {
		if (pthread_equal(pthread_self(), m->test) &&
		    m->now < m->stall_until)
			m->now = m->stall_until;
		m->stall_in = 1;
		pthread_cond_broadcast(&m->cv);
		while (m->now < m->stall_until)
			pthread_cond_wait(&m->cv, &m->mu);
		m->stall_in = 0;
	}
	pthread_mutex_unlock(&m->mu);
	if (m->delay_ns) {
		struct timespec ts = { 0, (long)m->delay_ns };

		nanosleep(&ts, NULL);
	}
	for (i = 0; i < len; i++)
		d[i] = byte_at(mt_files[fd - 100], off + i);
	pthread_mutex_lock(&m->mu);
	m->inflight--;
	pthread_mutex_unlock(&m->mu);
	return (ssize_t)len;
}

void mt_record(void *ctx, const struct eng_access *a)
{
	struct mt *m = ctx;

	pthread_mutex_lock(&m->mu);
	if (m->nlog < sizeof(m->log) / sizeof(m->log[0]))
		m->log[m->nlog++] = *a;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

void mt_init(struct mt *m)
{
	memset(m, 0, sizeof(*m));
	m->stall_off = UINT64_MAX;
	assert_int_equal(pthread_mutex_init(&m->mu, NULL), 0);
	assert_int_equal(pthread_cond_init(&m->cv, NULL), 0);
	m->test = pthread_self();
	m->now = T0;
	m->stall_off = UINT64_MAX;
	m->io = (struct eng_io){
		.now = mt_now, .sleep_until = mt_sleep_until,
		.open = mt_open, .pread = mt_pread, .close = mt_close,
		.ctx = m,
	};
}

void mt_destroy(struct mt *m)
{
	pthread_cond_destroy(&m->cv);
	pthread_mutex_destroy(&m->mu);
}

struct eng_timeline *zc_tl(void)
{
	struct tl_spec sp = {
		25, 1, { { "V", 200000 * 25, 1, 0 }, { "A1", 144000, 3, 44 } },
		{ { "V", "c0", 7, 0, 20 }, { "V", "c1", 0, 23, 17 },
		  { "A1", "c0", 7, 0, 40 } },
	};

	return make_tl(&sp);
}

struct eng_player_config zc_cfg(struct fake *f)
{
	struct eng_player_config cfg = make_cfg(f, 8, ENG_PACE_OFF, 0,
						ENG_BACKING_BUFFERED, 1 << 20);

	cfg.zero_copy = 1;
	return cfg;
}

ssize_t zc_reply(struct fake *f, struct eng_player *p,
		 const struct eng_answer *ans, unsigned char *out, ssize_t n)
{
	size_t got = ans->head.iov_len;
	int i;

	if (got)
		memcpy(out, ans->head.iov_base, got);
	if (ans->pipe >= 0) {
		assert_int_equal(ans->iovcnt, 0);
		assert_int_equal(pipe_pop(f, ans->pipe, out + got,
					  ans->pipe_len), ans->pipe_len);
		got += ans->pipe_len;
	}
	for (i = 0; i < ans->iovcnt; i++) {
		memcpy(out + got, ans->iov[i].iov_base, ans->iov[i].iov_len);
		got += ans->iov[i].iov_len;
	}
	assert_int_equal(got, (size_t)n);
	eng_player_answered(p, ans, 1);
	return n;
}

struct eng_answer zc_answer(struct iovec *iov)
{
	return (struct eng_answer){ .iov = iov, .iovmax = ENG_ZC_MAX_SLOTS,
				    .pipes = 1 };
}

ssize_t zc_read(struct fake *f, struct eng_player *p,
		unsigned char *out, uint64_t off, size_t len)
{
	struct iovec iov[ENG_ZC_MAX_SLOTS];
	struct eng_answer ans = zc_answer(iov);
	ssize_t n;

	n = eng_player_serve(p, off, len, &ans);
	if (n < 0)
		return n;
	assert_true(n == 0 || ans.pipe >= 0);
	return zc_reply(f, p, &ans, out, n);
}

void zc_read_rest(struct fake *f, struct eng_player *p,
		  const struct eng_timeline *tl, unsigned char *got,
		  uint64_t off, size_t step)
{
	ssize_t n;

	while ((n = zc_read(f, p, got + off, off, step)) > 0)
		off += (uint64_t)n;
	assert_int_equal(n, 0);
	assert_int_equal(off, tl->bytes);
}
