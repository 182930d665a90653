/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the player's image sequence reads (engine/play/
 * player_seq.c, issue 22) with a fake clock and fake files in memory: per
 * frame of a sequence clip the image's open, header reads, data reads and
 * close, each its own row (op, image number) with its own times, in that
 * order; lateness by the close; the missing-image policies (error, hold,
 * black); the header check (pixel data of another size, a malformed
 * header: a failed frame, said once); O_DIRECT.  The timelines' sequence
 * media are built here by hand (struct eng_seqmedia), as the mount's
 * resolution (media.c) would make them.
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

#include "io/inject.h"
#include "io/io.h"
#include "media/mfile.h"
#include "media/imgseq.h"
#include "media/seqgen.h"
#include "play/player.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/diag.h"

#define MS 1000000ULL
#define T0 7000000000ULL /* the fake clock's start: not 0 on purpose */
#define MAX_FILES 32
#define MAX_ROWS 1024
#define MAX_CALLS 1024

/* ------------------------------------------------------------ fakes */

struct sfile {
	char name[96];
	unsigned char *data;
	uint64_t size;
	int open;
};

/* One call of the io, in order. */
struct call {
	char op; /* 'o' open, 'r' pread, 'c' close, 's' size */
	int fd;
	uint64_t off, len;
};

struct sfake {
	uint64_t now;
	/* each operation advances the clock by its latency */
	uint64_t open_ns, read_ns, close_ns;
	/* and the one operation of (stall_name, stall_op) by stall_ns */
	const char *stall_name;
	char stall_op;
	uint64_t stall_ns;
	int can_direct, direct_opens;
	long unaligned; /* direct preads O_DIRECT would refuse */
	struct sfile files[MAX_FILES];
	int nfiles;
	struct call calls[MAX_CALLS];
	int ncalls;
	struct eng_access rows[MAX_ROWS];
	size_t nrows;
	int says;
	char said[512];
	struct eng_io io;
};

static struct sfile *sfile_of(struct sfake *f, int fd)
{
	int i = fd - 100;

	assert_true(i >= 0 && i < f->nfiles && f->files[i].open);
	return &f->files[i];
}

static void log_call(struct sfake *f, char op, int fd, uint64_t off,
		     uint64_t len)
{
	assert_true(f->ncalls < MAX_CALLS);
	f->calls[f->ncalls++] = (struct call){ op, fd, off, len };
}

/* Frame k's issue time after the clock's start, at 24 fps. */
static uint64_t per(int64_t k)
{
	return (uint64_t)k * 1000000000ULL / 24;
}

/* An operation's time; the stall, once. */
static void take(struct sfake *f, const struct sfile *ff, char op, uint64_t ns)
{
	f->now += ns;
	if (ff && f->stall_name && op == f->stall_op &&
	    strcmp(ff->name, f->stall_name) == 0) {
		f->now += f->stall_ns;
		f->stall_name = NULL;
	}
}

static uint64_t s_now(void *ctx)
{
	return ((struct sfake *)ctx)->now;
}

static void s_sleep_until(void *ctx, uint64_t ns)
{
	struct sfake *f = ctx;

	if (ns > f->now)
		f->now = ns;
}

static int s_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct sfake *f = ctx;
	int i;

	for (i = 0; i < f->nfiles; i++)
		if (strcmp(f->files[i].name, file) == 0)
			break;
	log_call(f, 'o', i < f->nfiles ? 100 + i : -1, 0, 0);
	take(f, i < f->nfiles ? &f->files[i] : NULL, 'o', f->open_ns);
	if (i == f->nfiles || !f->files[i].data)
		return -ENOENT;
	f->files[i].open++;
	*is_direct = direct && f->can_direct;
	f->direct_opens += *is_direct;
	return 100 + i;
}

static ssize_t s_pread(void *ctx, int fd, void *buf, size_t len, uint64_t off)
{
	struct sfake *f = ctx;
	struct sfile *ff = sfile_of(f, fd);
	size_t n;

	log_call(f, 'r', fd, off, len);
	take(f, ff, 'r', f->read_ns);
	if (f->can_direct && ((off | len | (uintptr_t)buf) & 4095))
		f->unaligned++;
	if (off >= ff->size)
		return 0;
	n = ff->size - off < len ? (size_t)(ff->size - off) : len;
	memcpy(buf, ff->data + off, n);
	return (ssize_t)n;
}

static void s_close(void *ctx, int fd)
{
	struct sfake *f = ctx;
	struct sfile *ff = sfile_of(f, fd);

	log_call(f, 'c', fd, 0, 0);
	take(f, ff, 'c', f->close_ns);
	ff->open--;
}

static int s_size(void *ctx, int fd, uint64_t *bytes)
{
	struct sfake *f = ctx;

	log_call(f, 's', fd, 0, 0);
	*bytes = sfile_of(f, fd)->size;
	return 0;
}

static void s_record(void *ctx, const struct eng_access *a)
{
	struct sfake *f = ctx;

	assert_true(f->nrows < MAX_ROWS);
	f->rows[f->nrows++] = *a;
}

static void s_say(void *ctx, const char *msg)
{
	struct sfake *f = ctx;

	f->says++;
	snprintf(f->said, sizeof(f->said), "%s", msg);
}

/* Zero copy: pipe i is fds 1000 + 2i (read end), 1001 + 2i (write end),
 * a buffer its bytes are appended to and taken from the front of. */
struct spipe {
	unsigned char *buf;
	size_t cap, len;
};
static struct spipe pipes[32];
static int npipes;

static struct spipe *spipe_of(int fd)
{
	assert_true(fd >= 1000 && (fd - 1000) / 2 < npipes);
	return &pipes[(fd - 1000) / 2];
}

static int s_pipe_new(void *ctx, size_t bytes, int fds[2])
{
	(void)ctx;
	assert_true(npipes < 32);
	pipes[npipes].buf = malloc(bytes);
	assert_non_null(pipes[npipes].buf);
	pipes[npipes].cap = bytes;
	pipes[npipes].len = 0;
	fds[0] = 1000 + 2 * npipes;
	fds[1] = 1001 + 2 * npipes;
	npipes++;
	return 0;
}

static void s_pipe_free(void *ctx, const int fds[2])
{
	(void)ctx;
	free(spipe_of(fds[0])->buf);
	spipe_of(fds[0])->buf = NULL;
}

static ssize_t s_splice_in(void *ctx, int fd, uint64_t off, size_t len,
			   int wr)
{
	struct spipe *sp = spipe_of(wr);
	ssize_t n;

	assert_true(sp->len + len <= sp->cap);
	n = s_pread(ctx, fd, sp->buf + sp->len, len, off);
	if (n > 0)
		sp->len += (size_t)n;
	return n;
}

static ssize_t s_pipe_zero(void *ctx, int wr, size_t len)
{
	struct spipe *sp = spipe_of(wr);

	(void)ctx;
	assert_true(sp->len + len <= sp->cap);
	memset(sp->buf + sp->len, 0, len);
	sp->len += len;
	return (ssize_t)len;
}

/* n bytes from the front of pipe rd into out (NULL: dropped); how many */
static size_t spipe_take(int rd, unsigned char *out, size_t n)
{
	struct spipe *sp = spipe_of(rd);

	if (n > sp->len)
		n = sp->len;
	if (out)
		memcpy(out, sp->buf, n);
	memmove(sp->buf, sp->buf + n, sp->len - n);
	sp->len -= n;
	return n;
}

static int s_pipe_skip(void *ctx, int rd, size_t len)
{
	(void)ctx;
	if (spipe_take(rd, NULL, len) < len && len != SIZE_MAX)
		return -EIO;
	return 0;
}

static ssize_t s_pipe_avail(void *ctx, int rd)
{
	(void)ctx;
	return (ssize_t)spipe_of(rd)->len;
}

/* tee(2), or splice(2) between pipes when move: up to what wr holds */
static ssize_t s_pipe_pass(int rd, int wr, size_t len, int move)
{
	struct spipe *from = spipe_of(rd), *to = spipe_of(wr);

	if (len > from->len)
		len = from->len;
	if (len > to->cap - to->len)
		len = to->cap - to->len;
	memcpy(to->buf + to->len, from->buf, len);
	to->len += len;
	if (move)
		spipe_take(rd, NULL, len);
	return (ssize_t)len;
}

static ssize_t s_pipe_tee(void *ctx, int rd, int wr, size_t len)
{
	(void)ctx;
	return s_pipe_pass(rd, wr, len, 0);
}

static ssize_t s_pipe_move(void *ctx, int rd, int wr, size_t len)
{
	(void)ctx;
	return s_pipe_pass(rd, wr, len, 1);
}

static struct sfake *sfake_new(void)
{
	struct sfake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->now = T0;
	f->io = (struct eng_io){
		.now = s_now,
		.sleep_until = s_sleep_until,
		.open = s_open,
		.pread = s_pread,
		.close = s_close,
		.size = s_size,
		.ctx = f,
	};
	return f;
}

static void sfake_free(struct sfake *f)
{
	int i;

	for (i = 0; i < f->nfiles; i++) {
		assert_int_equal(f->files[i].open, 0); /* every open closed */
		free(f->files[i].data);
	}
	free(f);
}

/* A file of the fake media folder; data NULL: a name with no file. */
static void sfile_add(struct sfake *f, const char *name, unsigned char *data,
		      uint64_t size)
{
	struct sfile *ff;

	assert_true(f->nfiles < MAX_FILES);
	ff = &f->files[f->nfiles++];
	snprintf(ff->name, sizeof(ff->name), "%s", name);
	ff->data = data;
	ff->size = size;
}

/* ------------------------------------------------------------ timelines */

/* A sequence clip as the mount would resolve it: image i's file, its
 * pixel data (by its own header), the clip's ref. */
struct seqclip {
	struct eng_seq_ref ref;
	struct eng_seqmedia sm;
	int64_t n;		/* images */
	char name[16][96];	/* image i's file */
	unsigned char *pix[16]; /* its pixel data, as played */
};

/* Images 0..n-1 of kind (seqgen) at w x h, in folder base as
 * base/PREFIX NUMBER SUFFIX from start by step at padding; those in
 * missing (a bit per image) have no file. */
static void seq_make(struct sfake *f, struct seqclip *sc, uint32_t kind,
		     uint32_t w, uint32_t h, const char *base,
		     const char *prefix, int64_t start, int64_t step,
		     int padding, uint32_t policy, int64_t n, unsigned missing)
{
	struct eng_seqgen_image im = { kind, w, h };
	uint64_t cap = eng_seqgen_file_bytes(&im);
	struct eng_seq_name nm;
	char suffix[8];
	int64_t i;

	memset(sc, 0, sizeof(*sc));
	snprintf(suffix, sizeof(suffix), ".%s", eng_seqgen_ext(kind));
	assert_true(n <= 16);
	sc->n = n;
	sc->ref = (struct eng_seq_ref){
		.base = strdup(base),
		.prefix = strdup(prefix),
		.suffix = strdup(suffix),
		.start = start,
		.step = step,
		.padding = padding,
		.missing = policy,
	};
	nm = (struct eng_seq_name){ sc->ref.base, sc->ref.prefix,
				    sc->ref.suffix, start, step, padding };
	sc->sm.name = nm;
	sc->sm.missing = policy;
	sc->sm.ess.kind = ENG_ESS_VIDEO;
	strcpy(sc->sm.ess.codec, "dpx");
	sc->sm.ess.nframes = n;
	sc->sm.ess.off = calloc((size_t)n, sizeof(uint64_t));
	sc->sm.ess.len = calloc((size_t)n, sizeof(uint32_t));
	assert_true(sc->sm.ess.off && sc->sm.ess.len);
	sc->sm.ess.len_min = UINT64_MAX;
	for (i = 0; i < n; i++) {
		unsigned char *b = malloc(cap);
		struct eng_seq_pixels px;
		struct eng_diag d = { 0 };
		struct eng_mem mem;
		struct eng_src src;
		int64_t len;
		uint64_t pos = 0;
		int j;

		assert_non_null(b);
		len = eng_seqgen_render(&im, 1, 7, (uint64_t)i,
					start + i * step,
					(struct eng_fps){ 24, 1 }, b);
		assert_true(len > 0);
		assert_true(eng_seq_name_of(&nm, i, sc->name[i],
					    sizeof(sc->name[i])) > 0);
		eng_src_mem(&src, &mem, sc->name[i], b, (size_t)len);
		assert_int_equal(eng_seq_pixels_of(&src, &px, NULL, &d), 0);
		eng_diag_free(&d);
		sc->sm.fmt = px.fmt;
		sc->sm.ess.off[i] = px.ext[0].off;
		sc->sm.ess.len[i] = (uint32_t)px.bytes;
		if (px.bytes < sc->sm.ess.len_min)
			sc->sm.ess.len_min = px.bytes;
		if (px.bytes > sc->sm.ess.len_max)
			sc->sm.ess.len_max = px.bytes;
		sc->pix[i] = malloc(px.bytes);
		assert_non_null(sc->pix[i]);
		for (j = 0; j < px.n; j++) {
			memcpy(sc->pix[i] + pos, b + px.ext[j].off,
			       px.ext[j].len);
			pos += px.ext[j].len;
		}
		if (missing & (1u << i)) {
			free(b);
			sfile_add(f, sc->name[i], NULL, 0);
		} else {
			sfile_add(f, sc->name[i], b, (uint64_t)len);
		}
	}
}

static void seq_free(struct seqclip *sc)
{
	int64_t i;

	for (i = 0; i < sc->n; i++)
		free(sc->pix[i]);
	free(sc->sm.ess.off);
	free(sc->sm.ess.len);
	free(sc->ref.base);
	free(sc->ref.prefix);
	free(sc->ref.suffix);
}

/* A timeline "t" at 24 fps of one video track V playing the clips in
 * turn: clip c's images src[c] .. src[c] + frames[c] - 1. */
static struct eng_timeline *seq_tl(struct seqclip *sc, int nclips,
				   const int64_t *src, const int64_t *frames)
{
	struct eng_timeline *tl = eng_tl_new("t", "t.tl");
	struct eng_diag d = { 0 };
	int64_t rec = 0;
	int c;

	assert_non_null(tl);
	tl->fps = (struct eng_fps){ 24, 1 };
	assert_int_equal(eng_tl_add_track(tl, "V", 24000, 1), 0);
	for (c = 0; c < nclips; c++) {
		char name[8];

		snprintf(name, sizeof(name), "c%d", c);
		assert_int_equal(eng_tl_clip(tl, name, (unsigned)c + 1), c);
		assert_int_equal(eng_tl_add_segment(tl, 0, (uint32_t)c, src[c],
						    rec, frames[c],
						    (unsigned)c + 1),
				 0);
		rec += frames[c];
	}
	assert_int_equal(eng_tl_finalize(tl, &d), 0);
	for (c = 0; c < nclips; c++) {
		struct eng_media *m;

		tl->clips[c].media = calloc(1, sizeof(struct eng_media));
		assert_non_null(tl->clips[c].media);
		m = &tl->clips[c].media[0];
		m->file = strdup("pattern");
		m->seq = &sc[c].sm;
		m->ess = &sc[c].sm.ess;
	}
	assert_int_equal(eng_tl_layout_media(tl, &d), 0);
	eng_diag_free(&d);
	return tl;
}

static struct eng_player *seq_player(struct sfake *f,
				     const struct eng_timeline *tl,
				     enum eng_backing backing)
{
	struct eng_player_config cfg = {
		.buffer = 2,
		.pace = { ENG_PACE_REALTIME, 0 },
		.backing = backing,
		.max_request = 1 << 20,
		.io = &f->io,
		.record = s_record,
		.record_ctx = f,
		.say = s_say,
		.say_ctx = f,
	};
	struct eng_player *p = NULL;

	assert_int_equal(eng_player_new(tl, &cfg, &p), 0);
	return p;
}

/* The end of a test: its player, timeline, n clips and fake folder. */
static void seq_done(struct eng_player *p, struct eng_timeline *tl,
		     struct seqclip *sc, int n, struct sfake *f)
{
	int c;

	eng_player_free(p);
	eng_tl_free(tl);
	for (c = 0; c < n; c++)
		seq_free(&sc[c]);
	sfake_free(f);
}

/* Read frame k whole: its bytes into buf (of its size), the return. */
static ssize_t read_k(struct eng_player *p, const struct eng_timeline *tl,
		      int64_t k, unsigned char *buf)
{
	return eng_player_copy(p, buf, (size_t)eng_frame_size(tl, k),
			       eng_frame_offset(tl, k));
}

/* Row r is (op, frame, image) of a sequence's image, timed exactly:
 * issued at `at`, done after lat. */
static void check_row(const struct eng_access *a, uint32_t op, int64_t frame,
		      int64_t image, uint64_t at, uint64_t lat, int err)
{
	if (a->op != op || a->frame != frame || a->image != image ||
	    !a->is_image || a->issued_ns != at || a->done_ns != at + lat ||
	    a->err != err)
		fail_msg("row (%s, frame %" PRId64 ", image %" PRId64
			 ", %" PRIu64 "..%" PRIu64 ", err %d), want (%s, "
			 "frame %" PRId64 ", image %" PRId64 ", %" PRIu64
			 "..%" PRIu64 ", err %d)",
			 eng_op_name(a->op), a->frame, a->image, a->issued_ns,
			 a->done_ns, a->err, eng_op_name(op), frame, image, at,
			 at + lat, err);
	assert_int_equal(a->sched_ns, T0 + per(frame));
	assert_int_equal(a->due_ns, T0 + per(frame) + per(2));
}

/* ------------------------------------------------------------ tests */

static void test_op_names(void **state)
{
	(void)state;
	assert_string_equal(eng_op_name(ENG_OP_READ), "read");
	assert_string_equal(eng_op_name(ENG_OP_OPEN), "open");
	assert_string_equal(eng_op_name(ENG_OP_HEADER), "header");
	assert_string_equal(eng_op_name(ENG_OP_CLOSE), "close");
	assert_string_equal(eng_op_name(ENG_OP_STAT), "stat");
	assert_string_equal(eng_op_name(ENG_OP_WRITE), "write");
	assert_string_equal(eng_op_name(ENG_OP_FSYNC), "fsync");
	assert_string_equal(eng_op_name(ENG_OP_FALLOCATE), "fallocate");
	assert_string_equal(eng_op_name(ENG_OP_TRUNCATE), "truncate");
	assert_string_equal(eng_op_name(ENG_OP_RECEIVE), "receive");
	assert_string_equal(eng_op_name(ENG_OP_AWAIT), "await");
	assert_int_equal(ENG_OP_AWAIT, 10);	/* the op table's ids */
	assert_null(eng_op_name(ENG_OP_AWAIT + 1));
}

/* A DPX sequence from 86400 at padding 7, played from its image 1: per
 * frame the open of the name by OTIO's formula, one header read (4 KiB or
 * the file), one read of the pixel data (from the image data offset to
 * the end), the close, each row timed by its own operation, back to back
 * from the frame's issue time; the frame's bytes the pixel data. */
static void test_rows_in_order(void **state)
{
	struct sfake *f = sfake_new();
	struct seqclip sc;
	const int64_t src[] = { 1 }, frames[] = { 3 };
	struct eng_timeline *tl;
	struct eng_player *p;
	struct eng_player_stats st;
	unsigned char buf[4096];
	int64_t k;

	(void)state;
	seq_make(f, &sc, ENG_SEQGEN_DPX10, 16, 8, "A001C003", "A001C003.",
		 86400, 1, 7, ENG_SEQ_MISS_ERROR, 4, 0);
	tl = seq_tl(&sc, 1, src, frames);
	f->open_ns = 3 * MS;
	f->read_ns = 1 * MS;
	f->close_ns = 2 * MS;
	p = seq_player(f, tl, ENG_BACKING_BUFFERED);
	for (k = 0; k < 3; k++) {
		assert_int_equal(read_k(p, tl, k, buf), 16 * 8 * 4);
		assert_memory_equal(buf, sc.pix[k + 1], 16 * 8 * 4);
	}
	assert_int_equal(f->nrows, 12);
	for (k = 0; k < 3; k++) {
		const struct eng_access *a = &f->rows[4 * k];
		uint64_t at = T0 + per(k);
		int64_t img = 86400 + k + 1;

		check_row(&a[0], ENG_OP_OPEN, k, img, at, 3 * MS, 0);
		check_row(&a[1], ENG_OP_HEADER, k, img, at + 3 * MS, 1 * MS, 0);
		check_row(&a[2], ENG_OP_READ, k, img, at + 4 * MS, 1 * MS, 0);
		check_row(&a[3], ENG_OP_CLOSE, k, img, at + 5 * MS, 2 * MS, 0);
		/* open and close: no bytes; the header read from 0, 4 KiB
		 * or the whole (small) file; the data from the offset */
		assert_int_equal(a[0].length, 0);
		assert_int_equal(a[3].length, 0);
		assert_int_equal(a[1].file_offset, 0);
		assert_int_equal(a[1].length, 2048 + 16 * 8 * 4);
		assert_int_equal(a[2].file_offset, 2048);
		assert_int_equal(a[2].length, 16 * 8 * 4);
		assert_true(a[0].played && a[3].played);
	}
	/* the files opened, by name, each closed after its reads */
	assert_string_equal(f->files[1].name, "A001C003/A001C003.0086401.dpx");
	assert_int_equal(f->calls[0].op, 'o');
	assert_int_equal(f->calls[0].fd, 101);
	assert_int_equal(f->calls[f->ncalls - 1].op, 'c');
	assert_int_equal(f->calls[f->ncalls - 1].fd, 103);
	eng_player_stats(p, &st);
	assert_int_equal(st.frames, 3);
	assert_int_equal(st.late_frames, 0);
	assert_int_equal(st.failed_frames, 0);
	assert_int_equal(st.accesses, 12);
	assert_int_equal(st.worst_ns, 3 * MS);
	assert_int_equal(st.missing_images, 0);
	assert_int_equal(f->says, 0);
	seq_done(p, tl, &sc, 1, f);
}

/* A frame is late when its last operation, the close, is done after the
 * frame's due time: a stall on the open of image 2 (its file) past due
 * makes frame 1 late, every row after the stall late too, and only that
 * frame; a stall on a close alone does the same for its frame. */
static void test_late_by_close(void **state)
{
	static const struct {
		char op;
		const char *file;
		int64_t late_frame;
	} cases[] = {
		{ 'o', "s/s.0002.dpx", 1 },
		{ 'c', "s/s.0003.dpx", 2 },
		{ 'r', "s/s.0001.dpx", 0 },
	};
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct sfake *f = sfake_new();
		struct seqclip sc;
		const int64_t src[] = { 1 }, frames[] = { 4 };
		struct eng_timeline *tl;
		struct eng_player *p;
		struct eng_player_stats st;
		unsigned char buf[4096];
		size_t r;
		int64_t k;

		seq_make(f, &sc, ENG_SEQGEN_DPX10, 16, 8, "s", "s.", 0, 1, 4,
			 ENG_SEQ_MISS_ERROR, 5, 0);
		tl = seq_tl(&sc, 1, src, frames);
		f->open_ns = f->read_ns = f->close_ns = 1 * MS;
		f->stall_name = cases[c].file;
		f->stall_op = cases[c].op;
		/* past the frame's 2 periods of lead, within 3 */
		f->stall_ns = per(2);
		p = seq_player(f, tl, ENG_BACKING_BUFFERED);
		for (k = 0; k < 4; k++)
			assert_int_equal(read_k(p, tl, k, buf), 512);
		eng_player_stats(p, &st);
		assert_int_equal(st.late_frames, 1);
		assert_int_equal(f->nrows, 16);
		for (r = 0; r < f->nrows; r++) {
			const struct eng_access *a = &f->rows[r];
			int late = a->done_ns > a->due_ns;

			/* the late frame's close is late; rows of other
			 * frames are not */
			if (a->frame != cases[c].late_frame)
				assert_false(late);
			else if (a->op == ENG_OP_CLOSE)
				assert_true(late);
		}
		seq_done(p, tl, &sc, 1, f);
	}
}

/* missing=error: the open that found no file is the image's only row
 * (ENOENT), the frame fails (EIO to the reader), the frames around it
 * play. */
static void test_missing_error(void **state)
{
	struct sfake *f = sfake_new();
	struct seqclip sc;
	const int64_t src[] = { 0 }, frames[] = { 3 };
	struct eng_timeline *tl;
	struct eng_player *p;
	struct eng_player_stats st;
	unsigned char buf[4096];

	(void)state;
	seq_make(f, &sc, ENG_SEQGEN_DPX10, 16, 8, "", "m.", 10, 2, 3,
		 ENG_SEQ_MISS_ERROR, 3, 1u << 1);
	tl = seq_tl(&sc, 1, src, frames);
	f->open_ns = f->read_ns = f->close_ns = 1 * MS;
	p = seq_player(f, tl, ENG_BACKING_BUFFERED);
	assert_int_equal(read_k(p, tl, 0, buf), 512);
	assert_int_equal(read_k(p, tl, 1, buf), -EIO);
	assert_int_equal(read_k(p, tl, 2, buf), 512);
	assert_memory_equal(buf, sc.pix[2], 512);
	assert_int_equal(f->nrows, 9);
	check_row(&f->rows[4], ENG_OP_OPEN, 1, 12, T0 + per(1), 1 * MS, ENOENT);
	check_row(&f->rows[5], ENG_OP_OPEN, 2, 14, T0 + per(2), 1 * MS, 0);
	assert_string_equal(f->files[1].name, "m.012.dpx");
	eng_player_stats(p, &st);
	assert_int_equal(st.failed_frames, 1);
	assert_int_equal(st.missing_images, 1);
	assert_int_equal(f->says, 0);
	seq_done(p, tl, &sc, 1, f);
}

/* missing=black: zeros, no read: the open's row (ENOENT) and nothing
 * more; not a failed frame.  missing=hold: the open's row, then the last
 * image the stream read, again (its open, header, data and close rows,
 * its number), its bytes; with nothing read yet, zeros. */
static void test_missing_black_hold(void **state)
{
	static const unsigned policies[] = { ENG_SEQ_MISS_BLACK,
					    ENG_SEQ_MISS_HOLD };
	size_t c;

	(void)state;
	for (c = 0; c < 2; c++) {
		struct sfake *f = sfake_new();
		struct seqclip sc;
		const int64_t src[] = { 0 }, frames[] = { 4 };
		struct eng_timeline *tl;
		struct eng_player *p;
		struct eng_player_stats st;
		unsigned char buf[4096], zero[512] = { 0 };
		int hold = policies[c] == ENG_SEQ_MISS_HOLD;
		uint64_t at = T0 + per(2), at3 = T0 + per(3);

		/* images 0, 2 and 3 missing: 0 before anything was read */
		seq_make(f, &sc, ENG_SEQGEN_DPX10, 16, 8, "h", "h_", 1, 1, 0,
			 policies[c], 4, 1u | 1u << 2 | 1u << 3);
		tl = seq_tl(&sc, 1, src, frames);
		f->open_ns = f->read_ns = f->close_ns = 1 * MS;
		p = seq_player(f, tl, ENG_BACKING_BUFFERED);
		assert_int_equal(read_k(p, tl, 0, buf), 512);
		assert_memory_equal(buf, zero, 512);
		assert_int_equal(read_k(p, tl, 1, buf), 512);
		assert_memory_equal(buf, sc.pix[1], 512);
		assert_int_equal(read_k(p, tl, 2, buf), 512);
		assert_memory_equal(buf, hold ? sc.pix[1] : zero, 512);
		assert_int_equal(read_k(p, tl, 3, buf), 512);
		assert_memory_equal(buf, hold ? sc.pix[1] : zero, 512);
		/* frame 0: the open; frame 1: 4 rows; frames 2, 3: the
		 * open, and under hold image 1's 4 rows again */
		assert_int_equal(f->nrows,
				 hold ? 1 + 4 + 5 + 5 : 1 + 4 + 1 + 1);
		check_row(&f->rows[0], ENG_OP_OPEN, 0, 1, T0, 1 * MS, ENOENT);
		check_row(&f->rows[5], ENG_OP_OPEN, 2, 3, at, 1 * MS, ENOENT);
		if (hold) {
			check_row(&f->rows[6], ENG_OP_OPEN, 2, 2, at + 1 * MS,
				  1 * MS, 0);
			check_row(&f->rows[7], ENG_OP_HEADER, 2, 2, at + 2 * MS,
				  1 * MS, 0);
			check_row(&f->rows[8], ENG_OP_READ, 2, 2, at + 3 * MS,
				  1 * MS, 0);
			check_row(&f->rows[9], ENG_OP_CLOSE, 2, 2, at + 4 * MS,
				  1 * MS, 0);
			check_row(&f->rows[10], ENG_OP_OPEN, 3, 4, at3, 1 * MS,
				  ENOENT);
			check_row(&f->rows[14], ENG_OP_CLOSE, 3, 2,
				  at3 + 4 * MS, 1 * MS, 0);
		} else {
			check_row(&f->rows[6], ENG_OP_OPEN, 3, 4, at3, 1 * MS,
				  ENOENT);
		}
		eng_player_stats(p, &st);
		assert_int_equal(st.frames, 4);
		assert_int_equal(st.failed_frames, 0);
		assert_int_equal(st.missing_images, 3);
		seq_done(p, tl, &sc, 1, f);
	}
}

/* hold across images of other sizes (EXR with ZIP: sizes vary per
 * image): the held image's pixel data are cut at the slice's length or
 * padded with zeros to it, and its data read is the bytes kept. */
static void test_hold_fit(void **state)
{
	/* images 1, 2 and 5 missing; of those rendered here image 0 is
	 * longer than 1 and shorter than 2, 4 longer than 5 */
	const unsigned missing = 1u << 1 | 1u << 2 | 1u << 5;
	struct sfake *f = sfake_new();
	struct seqclip sc;
	const int64_t src[] = { 0 }, frames[] = { 8 };
	struct eng_timeline *tl;
	struct eng_player *p;
	struct eng_player_stats st;
	unsigned char *buf = malloc(1 << 16);
	uint32_t *len;
	int64_t k, held = 0, held_of[8];
	int cut = 0, padded = 0;
	size_t r;

	(void)state;
	assert_non_null(buf);
	seq_make(f, &sc, ENG_SEQGEN_EXR_RGB_ZIP, 64, 48, "z", "z.", 0, 1, 4,
		 ENG_SEQ_MISS_HOLD, 8, missing);
	len = sc.sm.ess.len;
	tl = seq_tl(&sc, 1, src, frames);
	p = seq_player(f, tl, ENG_BACKING_BUFFERED);
	for (k = 0; k < 8; k++) {
		uint64_t n = len[k], h;

		assert_int_equal(read_k(p, tl, k, buf), (ssize_t)n);
		if (!(missing & 1u << k)) {
			assert_memory_equal(buf, sc.pix[k], n);
			held = held_of[k] = k;
			continue;
		}
		held_of[k] = held;
		h = len[held];
		cut += h > n;
		padded += h < n;
		assert_memory_equal(buf, sc.pix[held], n < h ? n : h);
		for (r = h; r < n; r++)
			assert_int_equal(buf[r], 0);
	}
	assert_int_equal(cut, 2);
	assert_int_equal(padded, 1);
	/* the held image's rows: its number; data no more than the slice */
	for (r = 0; r < f->nrows; r++) {
		const struct eng_access *a = &f->rows[r];

		if (a->op == ENG_OP_READ)
			assert_true(a->length <= len[a->frame]);
		if (a->op != ENG_OP_OPEN || !a->err)
			assert_int_equal(a->image, held_of[a->frame]);
	}
	eng_player_stats(p, &st);
	assert_int_equal(st.failed_frames, 0);
	assert_int_equal(st.missing_images, 3);
	seq_done(p, tl, &sc, 1, f);
	free(buf);
}

/* The header check: an image whose pixel data differ in size from what
 * the mount found (a DPX longer by 4 bytes), or whose header is not one
 * (zeros), fails its frame (EIO): its open and header rows, the header
 * row EIO, no data read, its close; one message naming the file, for the
 * first such image of the stream only. */
static void test_header_check(void **state)
{
	struct sfake *f = sfake_new();
	struct seqclip sc;
	const int64_t src[] = { 0 }, frames[] = { 4 };
	struct eng_timeline *tl;
	struct eng_player *p;
	struct eng_player_stats st;
	unsigned char buf[4096];
	struct sfile *longer, *junk;
	size_t r;

	(void)state;
	seq_make(f, &sc, ENG_SEQGEN_DPX10, 16, 8, "b", "b.", 0, 1, 2,
		 ENG_SEQ_MISS_ERROR, 4, 0);
	longer = &f->files[1];
	longer->data = realloc(longer->data, longer->size + 4);
	assert_non_null(longer->data);
	longer->size += 4;
	junk = &f->files[3];
	memset(junk->data, 0, (size_t)junk->size);
	tl = seq_tl(&sc, 1, src, frames);
	f->open_ns = f->read_ns = f->close_ns = 1 * MS;
	p = seq_player(f, tl, ENG_BACKING_BUFFERED);
	assert_int_equal(read_k(p, tl, 0, buf), 512);
	assert_int_equal(read_k(p, tl, 1, buf), -EIO);
	assert_int_equal(f->says, 1);
	assert_non_null(strstr(f->said, "b/b.01.dpx: 516 bytes of pixel data"));
	assert_int_equal(read_k(p, tl, 2, buf), 512);
	assert_int_equal(read_k(p, tl, 3, buf), -EIO);
	assert_int_equal(f->says, 1); /* once a stream */
	assert_int_equal(f->nrows, 4 + 3 + 4 + 3);
	check_row(&f->rows[4], ENG_OP_OPEN, 1, 1, T0 + per(1), 1 * MS, 0);
	check_row(&f->rows[5], ENG_OP_HEADER, 1, 1, T0 + per(1) + 1 * MS,
		  1 * MS, EIO);
	check_row(&f->rows[6], ENG_OP_CLOSE, 1, 1, T0 + per(1) + 2 * MS, 1 * MS,
		  0);
	check_row(&f->rows[12], ENG_OP_HEADER, 3, 3, T0 + per(3) + 1 * MS,
		  1 * MS, EIO);
	for (r = 0; r < f->nrows; r++)
		if (f->rows[r].frame & 1)
			assert_int_not_equal(f->rows[r].op, ENG_OP_READ);
	eng_player_stats(p, &st);
	assert_int_equal(st.failed_frames, 2);
	assert_int_equal(st.missing_images, 0);
	seq_done(p, tl, &sc, 1, f);
}

/* TIFF (its IFD after the strips: a second header read) and EXR (the
 * header, then the chunks to the end): the header reads are the ones
 * eng_seq_pixels_of makes, from where it makes them, then one read a
 * run; the bytes the pixel data. */
static void test_formats(void **state)
{
	static const uint32_t kinds[] = { ENG_SEQGEN_TIFF16,
					  ENG_SEQGEN_EXR_RGB,
					  ENG_SEQGEN_DPX16 };
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(kinds) / sizeof(kinds[0]); c++) {
		struct sfake *f = sfake_new();
		struct seqclip sc;
		const int64_t src[] = { 0 }, frames[] = { 2 };
		struct eng_timeline *tl;
		struct eng_player *p;
		unsigned char *buf = malloc(1 << 16);
		int64_t k;
		size_t r = 0;

		assert_non_null(buf);
		seq_make(f, &sc, kinds[c], 64, 48, "f", "f.", 5, 1, 1,
			 ENG_SEQ_MISS_ERROR, 2, 0);
		tl = seq_tl(&sc, 1, src, frames);
		p = seq_player(f, tl, ENG_BACKING_BUFFERED);
		for (k = 0; k < 2; k++) {
			struct sfile *ff = &f->files[k];
			struct eng_seq_pixels px;
			struct eng_diag d = { 0 };
			struct eng_mem mem;
			struct eng_src s;
			int reads, j;

			assert_int_equal(read_k(p, tl, k, buf),
					 (ssize_t)sc.sm.ess.len[k]);
			assert_memory_equal(buf, sc.pix[k], sc.sm.ess.len[k]);
			eng_src_mem(&s, &mem, ff->name, ff->data,
				    (size_t)ff->size);
			assert_int_equal(eng_seq_pixels_of(&s, &px, &reads, &d),
					 0);
			assert_true(reads >= 1);
			assert_int_equal(f->rows[r++].op, ENG_OP_OPEN);
			for (j = 0; j < reads; j++)
				assert_int_equal(f->rows[r++].op,
						 ENG_OP_HEADER);
			for (j = 0; j < px.n; j++, r++) {
				assert_int_equal(f->rows[r].op, ENG_OP_READ);
				assert_int_equal(f->rows[r].file_offset,
						 px.ext[j].off);
				assert_int_equal(f->rows[r].length,
						 px.ext[j].len);
			}
			assert_int_equal(f->rows[r++].op, ENG_OP_CLOSE);
			assert_int_equal(f->rows[r - 1].image, 5 + k);
		}
		assert_int_equal(f->nrows, r);
		seq_done(p, tl, &sc, 1, f);
		free(buf);
	}
}

/* O_DIRECT: the header and data reads are aligned (offset, length,
 * buffer) supersets, the rows say what the reader asked for, the bytes
 * are right. */
static void test_direct(void **state)
{
	struct sfake *f = sfake_new();
	struct seqclip sc;
	const int64_t src[] = { 0 }, frames[] = { 3 };
	struct eng_timeline *tl;
	struct eng_player *p;
	unsigned char *buf = malloc(1 << 16);
	int64_t k;

	(void)state;
	assert_non_null(buf);
	seq_make(f, &sc, ENG_SEQGEN_TIFF16, 64, 48, "d", "d.", 0, 1, 1,
		 ENG_SEQ_MISS_ERROR, 3, 0);
	tl = seq_tl(&sc, 1, src, frames);
	f->can_direct = 1;
	p = seq_player(f, tl, ENG_BACKING_DIRECT);
	for (k = 0; k < 3; k++) {
		assert_int_equal(read_k(p, tl, k, buf),
				 (ssize_t)sc.sm.ess.len[k]);
		assert_memory_equal(buf, sc.pix[k], sc.sm.ess.len[k]);
	}
	assert_int_equal(f->direct_opens, 3);
	assert_int_equal(f->unaligned, 0);
	/* the pixel data start inside a block: read aligned all the same */
	assert_int_equal(f->rows[2].op, ENG_OP_READ);
	assert_int_not_equal(f->rows[2].file_offset % 4096, 0);
	seq_done(p, tl, &sc, 1, f);
	free(buf);
}

/* Two clips cut together: each frame's rows name its clip and image; a
 * hold after the cut plays the other clip's last image. */
static void test_cut(void **state)
{
	struct sfake *f = sfake_new();
	struct seqclip sc[2];
	const int64_t src[] = { 2, 0 }, frames[] = { 2, 2 };
	struct eng_timeline *tl;
	struct eng_player *p;
	unsigned char buf[4096];
	size_t r;

	(void)state;
	seq_make(f, &sc[0], ENG_SEQGEN_DPX10, 16, 8, "a", "a.", 100, 1, 4,
		 ENG_SEQ_MISS_ERROR, 4, 0);
	seq_make(f, &sc[1], ENG_SEQGEN_DPX10, 16, 8, "b", "b.", -1, 1, 4,
		 ENG_SEQ_MISS_HOLD, 2, 1u);
	tl = seq_tl(sc, 2, src, frames);
	p = seq_player(f, tl, ENG_BACKING_BUFFERED);
	assert_int_equal(read_k(p, tl, 0, buf), 512);
	assert_int_equal(read_k(p, tl, 1, buf), 512);
	assert_memory_equal(buf, sc[0].pix[3], 512);
	assert_int_equal(read_k(p, tl, 2, buf), 512); /* held: a.0103 */
	assert_memory_equal(buf, sc[0].pix[3], 512);
	assert_int_equal(read_k(p, tl, 3, buf), 512);
	assert_memory_equal(buf, sc[1].pix[1], 512);
	assert_int_equal(f->nrows, 4 + 4 + 5 + 4);
	assert_int_equal(f->rows[8].clip, 1);
	assert_int_equal(f->rows[8].image, -1); /* b.-0001.dpx */
	assert_int_equal(f->rows[8].err, ENOENT);
	/* the rows of the held image are its clip's */
	for (r = 9; r < 13; r++) {
		assert_int_equal(f->rows[r].clip, 0);
		assert_int_equal(f->rows[r].image, 103);
	}
	assert_int_equal(f->rows[13].image, 0);
	seq_done(p, tl, sc, 2, f);
}

/* -o inject on an image's open or close (file=GLOB:op=open|close): the
 * delay is in that row's time, the row says it was injected (the io's
 * open_ex and close_ex); an injected error on an open is that row's
 * errno and a failed frame whatever the policy (only a missing file is
 * the policy's). */
static void test_injected(void **state)
{
	struct sfake *f = sfake_new();
	struct seqclip sc;
	const int64_t src[] = { 0 }, frames[] = { 4 };
	struct eng_inject *inj = NULL;
	struct eng_diag d = { 0 };
	struct eng_timeline *tl;
	struct eng_player *p;
	struct eng_player_stats st;
	struct eng_io inner;
	unsigned char buf[4096];
	size_t r;

	(void)state;
	seq_make(f, &sc, ENG_SEQGEN_DPX10, 16, 8, "i", "i.", 1, 1, 1,
		 ENG_SEQ_MISS_HOLD, 4, 0);
	tl = seq_tl(&sc, 1, src, frames);
	f->open_ns = f->read_ns = f->close_ns = 1 * MS;
	assert_int_equal(eng_inject_parse("file=i/i.2.dpx:op=open:delay=10ms;"
					  "file=i/*.3.dpx:op=close:delay=5ms;"
					  "file=i/i.4.dpx:op=open:error=EACCES",
					  &inj, &d),
			 0);
	inner = f->io;
	assert_int_equal(eng_inject_wrap(inj, &inner, &f->io), 0);
	p = seq_player(f, tl, ENG_BACKING_BUFFERED);
	assert_int_equal(read_k(p, tl, 0, buf), 512);
	assert_int_equal(read_k(p, tl, 1, buf), 512);
	assert_int_equal(read_k(p, tl, 2, buf), 512);
	assert_int_equal(read_k(p, tl, 3, buf), -EIO);
	assert_int_equal(f->nrows, 4 + 4 + 4 + 1);
	check_row(&f->rows[4], ENG_OP_OPEN, 1, 2, T0 + per(1), 11 * MS, 0);
	check_row(&f->rows[11], ENG_OP_CLOSE, 2, 3, T0 + per(2) + 3 * MS,
		  6 * MS, 0);
	check_row(&f->rows[12], ENG_OP_OPEN, 3, 4, T0 + per(3), 0, EACCES);
	for (r = 0; r < f->nrows; r++)
		assert_int_equal(f->rows[r].injected,
				 r == 4 || r == 11 ? ENG_INJECT_DELAY :
				 r == 12	   ? ENG_INJECT_ERROR :
						     0);
	eng_player_stats(p, &st);
	assert_int_equal(st.failed_frames, 1);
	assert_int_equal(st.missing_images, 0);
	eng_player_free(p);
	eng_inject_free(inj);
	f->io = inner;
	seq_done(NULL, tl, &sc, 1, f);
}

/* Zero copy (pace=off, a reader of 64 KiB requests): the image's data
 * reads are spliced into the slot's pipe, a held image's cut or padded
 * there, a black frame's zeros too; the bytes as through the ring. */
static void test_zero_copy(void **state)
{
	const unsigned missing = 1u << 1 | 1u << 2 | 1u << 5 | 1u << 7;
	struct sfake *f = sfake_new();
	struct seqclip sc[2];
	const int64_t src[] = { 0, 0 }, frames[] = { 8, 2 };
	struct eng_timeline *tl;
	struct eng_player_config cfg;
	struct eng_player *p = NULL;
	struct eng_player_stats st;
	unsigned char *want, *got;
	uint64_t at = 0, off = 0;
	int64_t k, held = 0;
	ssize_t n;

	(void)state;
	seq_make(f, &sc[0], ENG_SEQGEN_EXR_RGB_ZIP, 64, 48, "z", "z.", 0, 1,
		 4, ENG_SEQ_MISS_HOLD, 8, missing);
	seq_make(f, &sc[1], ENG_SEQGEN_EXR_RGB_ZIP, 64, 48, "k", "k.", 0, 1,
		 4, ENG_SEQ_MISS_BLACK, 2, 1u);
	tl = seq_tl(sc, 2, src, frames);
	want = calloc(1, tl->bytes);
	got = calloc(1, tl->bytes);
	assert_true(want && got);
	for (k = 0; k < 8; k++) {
		uint64_t len = sc[0].sm.ess.len[k], h;

		if (!(missing & 1u << k))
			held = k;
		h = sc[0].sm.ess.len[held];
		memcpy(want + at, sc[0].pix[held], len < h ? len : h);
		at += len;
	}
	/* frame 8: black (zeros, calloc'ed); frame 9: k.0001 */
	at += sc[1].sm.ess.len[0];
	memcpy(want + at, sc[1].pix[1], sc[1].sm.ess.len[1]);
	assert_int_equal(at + sc[1].sm.ess.len[1], tl->bytes);
	f->io.pipe_new = s_pipe_new;
	f->io.pipe_free = s_pipe_free;
	f->io.splice_in = s_splice_in;
	f->io.pipe_zero = s_pipe_zero;
	f->io.pipe_skip = s_pipe_skip;
	f->io.pipe_avail = s_pipe_avail;
	f->io.pipe_tee = s_pipe_tee;
	f->io.pipe_move = s_pipe_move;
	npipes = 0;
	cfg = (struct eng_player_config){
		.buffer = 2,
		.pace = { ENG_PACE_OFF, 0 },
		.backing = ENG_BACKING_BUFFERED,
		.max_request = 1 << 16,
		.io = &f->io,
		.record = s_record,
		.record_ctx = f,
		.zero_copy = 1,
	};
	assert_int_equal(eng_player_new(tl, &cfg, &p), 0);
	do {
		struct iovec iov[ENG_ZC_MAX_SLOTS];
		struct eng_answer ans = { .iov = iov,
					  .iovmax = ENG_ZC_MAX_SLOTS,
					  .pipes = 1 };

		n = eng_player_serve(p, off, 1 << 16, &ans);
		assert_true(n >= 0);
		assert_true(n == 0 || ans.pipe >= 0);
		if (n)
			assert_int_equal(spipe_take(ans.pipe, got + off,
						    ans.pipe_len),
					 ans.pipe_len);
		assert_int_equal(ans.pipe_len, (size_t)n);
		/* ends the request, the last (0 bytes) too */
		eng_player_answered(p, &ans, 1);
		off += (uint64_t)n;
	} while (n > 0);
	assert_int_equal(off, tl->bytes);
	assert_memory_equal(got, want, tl->bytes);
	assert_true(npipes > 0);
	eng_player_stats(p, &st);
	assert_int_equal(st.frames, 10);
	assert_int_equal(st.failed_frames, 0);
	assert_int_equal(st.missing_images, 5);
	seq_done(p, tl, sc, 2, f);
	free(want);
	free(got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_op_names),
		cmocka_unit_test(test_rows_in_order),
		cmocka_unit_test(test_late_by_close),
		cmocka_unit_test(test_missing_error),
		cmocka_unit_test(test_missing_black_hold),
		cmocka_unit_test(test_hold_fit),
		cmocka_unit_test(test_header_check),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_direct),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_injected),
		cmocka_unit_test(test_zero_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
