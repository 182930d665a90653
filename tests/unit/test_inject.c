/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of engine/io/inject.c (the -o inject parser and the eng_io fault
 * wrapper, over a fake io with a fake clock) and of the player's use of
 * io->check (a clip deleted while played) and of injected-fault records.
 * Issue 23: op=write, fsync and fallocate on ingest's track files
 * ("ingest/NAME.V.raw", chosen by clip=, track= or file=), and a create
 * as an open; before, op=write was refused and the wrapper had no write
 * ops.
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

#include "io/inject.h"
#include "io/io.h"
#include "play/player.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

#define MS 1000000ULL

/* ------------------------------------------------------------ fake io */

#define NAMES 8

struct fake {
	uint64_t now;
	uint64_t latency;	/* each pread advances the clock */
	const char *names[NAMES]; /* fd 10 + i */
	int open[NAMES];
	long preads, checks;
	long creates, pwrites, fsyncs, fallocates, ftruncates;
	int check_err;		/* io->check returns -check_err */
	struct eng_io io;
};

static uint64_t f_now(void *ctx)
{
	return ((struct fake *)ctx)->now;
}

static void f_sleep_until(void *ctx, uint64_t ns)
{
	struct fake *f = ctx;

	if (ns > f->now)
		f->now = ns;
}

static int f_open(void *ctx, const char *file, int direct, int *is_direct)
{
	struct fake *f = ctx;
	int i;

	(void)direct;
	*is_direct = 0;
	for (i = 0; i < NAMES; i++)
		if (!f->names[i]) {
			f->names[i] = file;
			f->open[i] = 1;
			return 10 + i;
		} else if (strcmp(f->names[i], file) == 0 && !f->open[i]) {
			f->open[i] = 1;
			return 10 + i;
		}
	return -EMFILE;
}

static ssize_t f_pread(void *ctx, int fd, void *buf, size_t len, uint64_t off)
{
	struct fake *f = ctx;

	if (fd < 10 || fd >= 10 + NAMES || !f->open[fd - 10])
		return -EBADF;
	f->preads++;
	f->now += f->latency;
	memset(buf, (int)(off & 0x7f) + 1, len);
	return (ssize_t)len;
}

static void f_close(void *ctx, int fd)
{
	struct fake *f = ctx;

	if (fd >= 10 && fd < 10 + NAMES)
		f->open[fd - 10] = 0;
}

static int f_check(void *ctx, int fd, const char *file)
{
	struct fake *f = ctx;

	(void)fd, (void)file;
	f->checks++;
	return -f->check_err;
}

/* ingest's write ops: a create is an open of the name, writes only
 * counted (and advance the clock by latency) */
static int f_create(void *ctx, const char *file, int replace,
		    unsigned *injected)
{
	int d;

	(void)replace;
	((struct fake *)ctx)->creates++;
	*injected = 0;
	return f_open(ctx, file, 0, &d);
}

static ssize_t f_pwrite(void *ctx, int fd, const void *buf, size_t len,
			uint64_t off, unsigned *injected)
{
	struct fake *f = ctx;

	(void)buf, (void)off;
	*injected = 0;
	if (fd < 10 || fd >= 10 + NAMES || !f->open[fd - 10])
		return -EBADF;
	f->pwrites++;
	f->now += f->latency;
	return (ssize_t)len;
}

static int f_fsync(void *ctx, int fd, unsigned *injected)
{
	(void)fd;
	*injected = 0;
	((struct fake *)ctx)->fsyncs++;
	return 0;
}

static int f_fallocate(void *ctx, int fd, uint64_t off, uint64_t len,
		       unsigned *injected)
{
	(void)fd, (void)off, (void)len;
	*injected = 0;
	((struct fake *)ctx)->fallocates++;
	return 0;
}

static int f_ftruncate(void *ctx, int fd, uint64_t len)
{
	(void)fd, (void)len;
	((struct fake *)ctx)->ftruncates++;
	return 0;
}

static int f_space(void *ctx, uint64_t *bytes)
{
	(void)ctx;
	*bytes = 12345;
	return 0;
}

/* the fake with ingest's write ops */
static void fake_writes(struct fake *f)
{
	f->io.create = f_create;
	f->io.pwrite = f_pwrite;
	f->io.fsync = f_fsync;
	f->io.fallocate = f_fallocate;
	f->io.ftruncate = f_ftruncate;
	f->io.space = f_space;
}

static void fake_init(struct fake *f)
{
	memset(f, 0, sizeof(*f));
	f->now = 1000 * MS;
	f->io.now = f_now;
	f->io.sleep_until = f_sleep_until;
	f->io.open = f_open;
	f->io.pread = f_pread;
	f->io.close = f_close;
	f->io.ctx = f;
}

/* -------------------------------------------------------------- parser */

static const struct parse_case {
	const char *spec;
	int rc;
	size_t rules;
	const char *msg;	/* substring of the first message */
} parse_cases[] = {
	{ "delay=5ms", 0, 1, NULL },
	{ "clip=clip0001:track=V:delay=20ms", 0, 1, NULL },
	{ "delay=1ms-20ms", 0, 1, NULL },
	{ "delay=1.5ms@0.5", 0, 1, NULL },
	{ "error=EIO@0.01", 0, 1, NULL },
	{ "error=EIO@1%", 0, 1, NULL },
	{ "error=5", 0, 1, NULL },
	{ "track=A*:error=ENOSPC;clip=x:delay=1s", 0, 2, NULL },
	{ "delay=1us+error=ETIMEDOUT", 0, 2, NULL },
	{ "seed=7;delay=10ns", 0, 1, NULL },
	{ ";;delay=1ms;", 0, 1, NULL },
	{ "delay=5", -EINVAL, 0, "inject:1: bad delay '5'" },
	{ "delay=5xs", -EINVAL, 0, "bad delay" },
	{ "delay=20ms-1ms", -EINVAL, 0, "bad delay" },
	{ "delay=2h", -EINVAL, 0, "bad delay" },
	{ "delay=4000s", -EINVAL, 0, "at most 1 hour" },
	{ "delay=1ms@0", -EINVAL, 0, "bad probability" },
	{ "delay=1ms@1.5", -EINVAL, 0, "bad probability" },
	{ "error=EFOO", -EINVAL, 0, "bad error 'EFOO'" },
	{ "error=0", -EINVAL, 0, "bad error" },
	{ "delay=1ms;dealy=2ms", -EINVAL, 0, "inject:2: unknown key 'dealy'" },
	{ "clip=a", -EINVAL, 0, "inject:1: rule 'clip=a' injects nothing" },
	{ "clip=:delay=1ms", -EINVAL, 0, "empty clip glob" },
	{ "delay", -EINVAL, 0, "'delay' is not key=value" },
	{ "", -EINVAL, 0, "has no rule" },
	{ "seed=x:delay=1ms", -EINVAL, 0, "bad seed 'x'" },
	{ "file=A001/*.dpx:op=open:delay=5ms", 0, 1, NULL },
	{ "file=*.0086401.dpx:op=open:error=ENOENT;op=close:delay=1ms", 0, 2,
	  NULL },
	{ "op=read:error=EIO", 0, 1, NULL },
	{ "op=write:delay=1ms", 0, 1, NULL },
	{ "clip=cam1:op=fsync:error=EIO@0.5;op=fallocate:error=ENOSPC", 0, 2,
	  NULL },
	{ "op=truncate:delay=1ms", -EINVAL, 0, "inject:1: bad op 'truncate': "
	  "expected read, open, close, write, fsync or fallocate" },
	{ "op=close:error=EIO", -EINVAL, 0, "fails a close: a close returns "
	  "no error to fail, use delay=" },
	{ "file=:delay=1ms", -EINVAL, 0, "empty file glob" },
};

static void test_parse(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(parse_cases) / sizeof(parse_cases[0]); i++) {
		const struct parse_case *c = &parse_cases[i];
		struct eng_diag diag = { 0 };
		struct eng_inject *inj = (struct eng_inject *)&diag;
		int rc = eng_inject_parse(c->spec, &inj, &diag);

		if (rc != c->rc)
			fail_msg("'%s': rc %d, expected %d (%s)", c->spec, rc,
				 c->rc, diag.n ? diag.msgs[0] : "");
		if (rc == 0) {
			assert_int_equal(eng_inject_rules(inj), c->rules);
			assert_int_equal(diag.n, 0);
		} else {
			assert_null(inj);
			assert_true(diag.n >= 1);
			if (!strstr(diag.msgs[0], c->msg))
				fail_msg("'%s': message '%s' lacks '%s'",
					 c->spec, diag.msgs[0], c->msg);
		}
		eng_inject_free(inj);
		eng_diag_free(&diag);
	}
}

/* Every bad rule is reported, not only the first. */
static void test_parse_all_errors(void **state)
{
	struct eng_diag diag = { 0 };
	struct eng_inject *inj;

	(void)state;
	assert_int_equal(eng_inject_parse("delay=x;error=EFOO;delay=1ms",
					  &inj, &diag), -EINVAL);
	assert_int_equal(diag.n, 2);
	assert_non_null(strstr(diag.msgs[0], "inject:1:"));
	assert_non_null(strstr(diag.msgs[1], "inject:2:"));
	eng_diag_free(&diag);
}

/* ------------------------------------------------------------- wrapper */

struct wrapped {
	struct fake f;
	struct eng_inject *inj;
	struct eng_io io;
};

static void wrap(struct wrapped *w, const char *spec)
{
	struct eng_diag diag = { 0 };

	fake_init(&w->f);
	if (eng_inject_parse(spec, &w->inj, &diag) != 0)
		fail_msg("'%s': %s", spec, diag.n ? diag.msgs[0] : "?");
	assert_int_equal(eng_inject_wrap(w->inj, &w->f.io, &w->io), 0);
	eng_diag_free(&diag);
}

static int wopen(struct wrapped *w, const char *file)
{
	int d, fd = w->io.open(w->io.ctx, file, 0, &d);

	assert_true(fd >= 0);
	return fd;
}

static ssize_t wread(struct wrapped *w, int fd, unsigned *inj)
{
	char buf[64];

	return w->io.pread_ex(w->io.ctx, fd, buf, sizeof(buf), 0, inj);
}

static void test_fixed_delay_and_match(void **state)
{
	struct eng_inject_stats st;
	struct wrapped w;
	unsigned inj = 99;
	uint64_t t0;
	int v, a1, other;

	(void)state;
	wrap(&w, "clip=clip000*:track=V:delay=5ms");
	v = wopen(&w, "clip0001.V.raw");
	a1 = wopen(&w, "clip0001.A1.wav");
	other = wopen(&w, "clip0010.V.raw");
	t0 = w.f.now;
	assert_int_equal(wread(&w, v, &inj), 64);
	assert_int_equal(inj, ENG_INJECT_DELAY);
	assert_int_equal(w.f.now - t0, 5 * MS);
	t0 = w.f.now;
	assert_int_equal(wread(&w, a1, &inj), 64);
	assert_int_equal(inj, 0);
	assert_int_equal(wread(&w, other, &inj), 64);
	assert_int_equal(inj, 0);
	assert_int_equal(w.f.now, t0);
	/* the plain pread goes through the same faults */
	assert_int_equal(w.io.pread(w.io.ctx, v, (char[8]){ 0 }, 8, 0), 8);
	assert_int_equal(w.f.now - t0, 5 * MS);
	eng_inject_stats(w.inj, &st);
	assert_int_equal(st.reads, 4);
	assert_int_equal(st.matched, 2);
	assert_int_equal(st.delayed, 2);
	assert_int_equal(st.delay_ns, 10 * MS);
	assert_int_equal(st.errors, 0);
	assert_int_equal(w.f.preads, 4);
	/* a closed fd number reused for another file loses the rule */
	w.io.close(w.io.ctx, v);
	v = wopen(&w, "clip0020.V.raw");
	t0 = w.f.now;
	assert_int_equal(wread(&w, v, &inj), 64);
	assert_int_equal(inj, 0);
	assert_int_equal(w.f.now, t0);
	eng_inject_free(w.inj);
}

/* A clip name with dots still splits into clip and track. */
static void test_dotted_clip(void **state)
{
	struct wrapped w;
	unsigned inj;
	int fd;

	(void)state;
	wrap(&w, "clip=take.2:track=A1:error=EIO");
	fd = wopen(&w, "take.2.A1.wav");
	assert_int_equal(wread(&w, fd, &inj), -EIO);
	assert_int_equal(inj, ENG_INJECT_ERROR);
	fd = wopen(&w, "take.2.V.raw");
	assert_int_equal(wread(&w, fd, &inj), 64);
	eng_inject_free(w.inj);
}

static void test_delay_range(void **state)
{
	struct wrapped w;
	uint64_t t0, d, lo = UINT64_MAX, hi = 0;
	unsigned inj;
	int fd, i;

	(void)state;
	wrap(&w, "delay=1ms-20ms");
	fd = wopen(&w, "c.V.raw");
	for (i = 0; i < 2000; i++) {
		t0 = w.f.now;
		assert_int_equal(wread(&w, fd, &inj), 64);
		d = w.f.now - t0;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	assert_true(lo >= 1 * MS && lo < 2 * MS);
	assert_true(hi <= 20 * MS && hi > 19 * MS);
	eng_inject_free(w.inj);
}

/* error=EIO@0.01 fails about 1 % of the reads, without reading; the same
 * seed gives the same sequence, another seed another one. */
static long count_errors(const char *spec, int n, unsigned char *pattern)
{
	struct eng_inject_stats st;
	struct wrapped w;
	long errors = 0;
	unsigned inj;
	int fd, i;
	ssize_t r;

	wrap(&w, spec);
	fd = wopen(&w, "c.V.raw");
	for (i = 0; i < n; i++) {
		r = wread(&w, fd, &inj);
		if (r == -EIO) {
			assert_int_equal(inj, ENG_INJECT_ERROR);
			errors++;
		} else {
			assert_int_equal(r, 64);
			assert_int_equal(inj, 0);
		}
		if (pattern)
			pattern[i] = r < 0;
	}
	eng_inject_stats(w.inj, &st);
	assert_int_equal(st.errors, errors);
	assert_int_equal(w.f.preads, n - errors);
	eng_inject_free(w.inj);
	return errors;
}

static void test_error_rate(void **state)
{
	static unsigned char a[20000], b[20000], c[20000];
	long e;

	(void)state;
	e = count_errors("error=EIO@0.01", 20000, a);
	assert_true(e > 140 && e < 260);	/* 200 +- 4 sigma */
	assert_int_equal(count_errors("error=EIO@0.01", 20000, b), e);
	assert_memory_equal(a, b, sizeof(a));
	count_errors("seed=2:error=EIO@0.01", 20000, c);
	assert_memory_not_equal(a, c, sizeof(a));
	assert_int_equal(count_errors("error=EIO", 100, NULL), 100);
}

/* Delays of every matching rule add up; the first error wins. */
static void test_rules_combine(void **state)
{
	struct wrapped w;
	unsigned inj;
	uint64_t t0;
	int fd;

	(void)state;
	wrap(&w, "delay=2ms;track=V:delay=3ms:error=ENOSPC;error=EIO");
	fd = wopen(&w, "c.V.raw");
	t0 = w.f.now;
	assert_int_equal(wread(&w, fd, &inj), -ENOSPC);
	assert_int_equal(inj, ENG_INJECT_DELAY | ENG_INJECT_ERROR);
	assert_int_equal(w.f.now - t0, 5 * MS);
	fd = wopen(&w, "c.A1.wav");
	assert_int_equal(wread(&w, fd, &inj), -EIO);
	eng_inject_free(w.inj);
}

/* file= and op= (issue 22): an image sequence's images chosen by their
 * path ('*' crosses '/'), faults on the open (a delay before it, an error
 * instead of it: no fd) and a delay on the close; the reads of a file
 * only rules of op=read touch.  A rule of no clip= or track= matches any
 * name, NAME.mov too. */
static void test_file_op(void **state)
{
	struct eng_inject_stats st;
	struct wrapped w;
	unsigned inj;
	uint64_t t0;
	int d, fd;

	(void)state;
	wrap(&w, "file=A001/A001.0086401.dpx:op=open:delay=7ms;"
		 "file=*.0086402.dpx:op=open:error=ENOENT;"
		 "file=A001/*:op=close:delay=2ms;"
		 "file=*0086403*:delay=1ms");
	/* image 0: only the close is delayed */
	t0 = w.f.now;
	fd = wopen(&w, "A001/A001.0086400.dpx");
	assert_int_equal(wread(&w, fd, &inj), 64);
	assert_int_equal(inj, 0);
	assert_int_equal(w.f.now, t0);
	w.io.close(w.io.ctx, fd);
	assert_int_equal(w.f.now - t0, 2 * MS);
	/* image 1: the open 7 ms, its reads not */
	t0 = w.f.now;
	fd = wopen(&w, "A001/A001.0086401.dpx");
	assert_int_equal(w.f.now - t0, 7 * MS);
	assert_int_equal(wread(&w, fd, &inj), 64);
	assert_int_equal(inj, 0);
	assert_int_equal(w.f.now - t0, 7 * MS);
	w.io.close(w.io.ctx, fd);
	/* image 2: the open fails, the file is never opened */
	assert_int_equal(w.io.open(w.io.ctx, "A001/A001.0086402.dpx", 0, &d),
			 -ENOENT);
	for (int i = 0; i < NAMES; i++)
		assert_true(!w.f.names[i] ||
			    !strstr(w.f.names[i], "0086402"));
	/* image 3: its reads (op=read, the default) 1 ms each */
	fd = wopen(&w, "A001/A001.0086403.dpx");
	t0 = w.f.now;
	assert_int_equal(wread(&w, fd, &inj), 64);
	assert_int_equal(inj, ENG_INJECT_DELAY);
	assert_int_equal(w.f.now - t0, 1 * MS);
	w.io.close(w.io.ctx, fd);
	/* the _ex forms say what was injected: the open and close rows */
	t0 = w.f.now;
	fd = w.io.open_ex(w.io.ctx, "A001/A001.0086401.dpx", 0, &d, &inj);
	assert_true(fd >= 0);
	assert_int_equal(inj, ENG_INJECT_DELAY);
	assert_int_equal(w.io.open_ex(w.io.ctx, "A001/A001.0086402.dpx", 0,
				      &d, &inj), -ENOENT);
	assert_int_equal(inj, ENG_INJECT_ERROR);
	w.io.close_ex(w.io.ctx, fd, &inj);
	assert_int_equal(inj, ENG_INJECT_DELAY);
	fd = w.io.open_ex(w.io.ctx, "B/B.1.dpx", 0, &d, &inj);
	assert_int_equal(inj, 0);
	w.io.close_ex(w.io.ctx, fd, &inj);
	assert_int_equal(inj, 0);
	assert_int_equal(w.f.now - t0, (7 + 2) * MS);
	eng_inject_stats(w.inj, &st);
	st.opens -= 3;
	st.closes -= 2;
	st.errors -= 1;
	st.delayed -= 2;
	st.delay_ns -= 9 * MS;
	assert_int_equal(st.opens, 4);
	assert_int_equal(st.closes, 3);
	assert_int_equal(st.reads, 3);
	assert_int_equal(st.matched, 1);
	assert_int_equal(st.errors, 1);
	assert_int_equal(st.delayed, 5);	/* 3 closes, 1 open, 1 read */
	assert_int_equal(st.delay_ns, (3 * 2 + 7 + 1) * MS);
	eng_inject_free(w.inj);
	/* a bare rule: every file, a clip's NAME.mov as well */
	wrap(&w, "delay=3ms");
	fd = wopen(&w, "A001C003.mov");
	t0 = w.f.now;
	assert_int_equal(wread(&w, fd, &inj), 64);
	assert_int_equal(inj, ENG_INJECT_DELAY);
	assert_int_equal(w.f.now - t0, 3 * MS);
	eng_inject_free(w.inj);
}

/* Ingest's writes (issue 23): op=write, fsync and fallocate pick the
 * track files by clip= and track= (of "ingest/NAME.TRACK.EXT") or file=;
 * a delay comes before the operation, an error instead of it (nothing
 * written); a create is an open (op=open); reads' rules leave writes
 * alone; ftruncate and space pass through. */
static void test_write_ops(void **state)
{
	struct eng_inject_stats st;
	struct wrapped w;
	unsigned inj = 99;
	uint64_t t0, space = 0;
	long n;
	int v, a1, v2;

	(void)state;
	wrap(&w, "clip=cam1:track=V:op=write:delay=5ms;"
		 "file=ingest/cam1.A1.wav:op=fsync:error=EIO;"
		 "clip=cam2:op=fallocate:error=ENOSPC;"
		 "file=ingest/bad*:op=open:error=EACCES;"
		 "clip=cam*:delay=100ms");
	/* without the inner's write ops, the wrapper has none */
	assert_null(w.io.create);
	fake_writes(&w.f);
	assert_int_equal(eng_inject_wrap(w.inj, &w.f.io, &w.io), 0);
	assert_non_null(w.io.create);
	t0 = w.f.now;
	v = w.io.create(w.io.ctx, "ingest/cam1.V.raw", 0, &inj);
	assert_true(v >= 0);
	assert_int_equal(inj, 0);
	a1 = w.io.create(w.io.ctx, "ingest/cam1.A1.wav", 0, &inj);
	assert_true(a1 >= 0);
	v2 = w.io.create(w.io.ctx, "ingest/cam2.V.raw", 1, &inj);
	assert_true(v2 >= 0);
	assert_int_equal(w.f.now, t0);
	/* the create of a file op=open picks fails: never made */
	assert_int_equal(w.io.create(w.io.ctx, "ingest/bad.V.raw", 0, &inj),
			 -EACCES);
	assert_int_equal(inj, ENG_INJECT_ERROR);
	assert_int_equal(w.f.creates, 3);
	/* writes: cam1's V delayed, its A1 and cam2's not */
	assert_int_equal(w.io.pwrite(w.io.ctx, v, "x", 1, 0, &inj), 1);
	assert_int_equal(inj, ENG_INJECT_DELAY);
	assert_int_equal(w.f.now - t0, 5 * MS);
	t0 = w.f.now;
	assert_int_equal(w.io.pwrite(w.io.ctx, a1, "x", 1, 0, &inj), 1);
	assert_int_equal(inj, 0);
	assert_int_equal(w.io.pwrite(w.io.ctx, v2, "x", 1, 0, &inj), 1);
	assert_int_equal(inj, 0);
	assert_int_equal(w.f.now, t0);
	assert_int_equal(w.f.pwrites, 3);
	/* fsync: A1's fails without reaching the file, V's does not */
	assert_int_equal(w.io.fsync(w.io.ctx, a1, &inj), -EIO);
	assert_int_equal(inj, ENG_INJECT_ERROR);
	assert_int_equal(w.f.fsyncs, 0);
	assert_int_equal(w.io.fsync(w.io.ctx, v, &inj), 0);
	assert_int_equal(inj, 0);
	assert_int_equal(w.f.fsyncs, 1);
	/* fallocate: cam2's fails */
	assert_int_equal(w.io.fallocate(w.io.ctx, v2, 0, 1 << 20, &inj),
			 -ENOSPC);
	assert_int_equal(inj, ENG_INJECT_ERROR);
	assert_int_equal(w.io.fallocate(w.io.ctx, v, 0, 1 << 20, &inj), 0);
	assert_int_equal(w.f.fallocates, 1);
	/* as they are */
	assert_int_equal(w.io.ftruncate(w.io.ctx, v, 0), 0);
	assert_int_equal(w.f.ftruncates, 1);
	assert_int_equal(w.io.space(w.io.ctx, &space), 0);
	assert_int_equal(space, 12345);
	/* NULL injected is fine */
	assert_int_equal(w.io.pwrite(w.io.ctx, v, "x", 1, 1, NULL), 1);
	assert_int_equal(w.io.fsync(w.io.ctx, v, NULL), 0);
	assert_int_equal(w.f.now - t0, 5 * MS);
	w.io.close(w.io.ctx, v);
	w.io.close(w.io.ctx, a1);
	w.io.close(w.io.ctx, v2);
	eng_inject_stats(w.inj, &st);
	assert_int_equal(st.opens, 4);
	assert_int_equal(st.closes, 3);
	assert_int_equal(st.writes, 4);
	assert_int_equal(st.fsyncs, 3);
	assert_int_equal(st.fallocates, 2);
	assert_int_equal(st.reads, 0);
	assert_int_equal(st.errors, 3);
	assert_int_equal(st.delayed, 2);
	assert_int_equal(st.delay_ns, 10 * MS);
	eng_inject_free(w.inj);
	/* a rate: error=EIO@0.5 on writes fails about half, each unwritten */
	wrap(&w, "op=write:error=EIO@0.5");
	fake_writes(&w.f);
	assert_int_equal(eng_inject_wrap(w.inj, &w.f.io, &w.io), 0);
	v = w.io.create(w.io.ctx, "ingest/x.V.raw", 0, &inj);
	for (n = 0; n < 1000; n++)
		if (w.io.pwrite(w.io.ctx, v, "x", 1, 0, &inj) == -EIO)
			assert_int_equal(inj, ENG_INJECT_ERROR);
	eng_inject_stats(w.inj, &st);
	assert_true(st.errors > 400 && st.errors < 600);
	assert_int_equal(w.f.pwrites, 1000 - (long)st.errors);
	eng_inject_free(w.inj);
}

static void test_wrap_errors(void **state)
{
	struct eng_diag diag = { 0 };
	struct eng_inject *inj;
	struct eng_io bad, out;
	struct fake f;

	(void)state;
	fake_init(&f);
	assert_int_equal(eng_inject_parse("delay=1ms", &inj, &diag), 0);
	bad = f.io;
	bad.pread = NULL;
	assert_int_equal(eng_inject_wrap(inj, &bad, &out), -EINVAL);
	assert_int_equal(eng_inject_wrap(NULL, &f.io, &out), -EINVAL);
	/* check and dontneed are forwarded only when the inner io has them */
	assert_int_equal(eng_inject_wrap(inj, &f.io, &out), 0);
	assert_null(out.check);
	assert_null(out.dontneed);
	f.io.check = f_check;
	assert_int_equal(eng_inject_wrap(inj, &f.io, &out), 0);
	f.check_err = ESTALE;
	assert_int_equal(out.check(out.ctx, 3, "x"), -ESTALE);
	eng_inject_free(inj);
}

/* ---------------------------------------------------------- the player */

struct rec {
	long n, injected, failed;
	int last_err;
};

static void on_access(void *ctx, const struct eng_access *a)
{
	struct rec *r = ctx;

	r->n++;
	if (a->injected)
		r->injected++;
	if (a->err) {
		r->failed++;
		r->last_err = a->err;
	}
}

/* One clip of 100 frames of 1000 bytes at 25 fps on track V. */
static struct eng_timeline *one_clip(void)
{
	struct eng_diag diag = { 0 };
	struct eng_timeline *tl = eng_tl_new("t", "t.tl");
	int c;

	assert_non_null(tl);
	assert_int_equal(eng_tl_add_track(tl, "V", 25000, 1), 0);
	c = eng_tl_clip(tl, "clip0001", 1);
	assert_int_equal(c, 0);
	assert_int_equal(eng_tl_add_segment(tl, 0, 0, 0, 0, 100, 1), 0);
	tl->fps.num = 25;
	tl->fps.den = 1;
	assert_int_equal(eng_tl_finalize(tl, &diag), 0);
	tl->clips[0].media = calloc(1, sizeof(struct eng_media));
	assert_non_null(tl->clips[0].media);
	tl->clips[0].media[0].file = strdup("clip0001.V.raw");
	tl->clips[0].media[0].size = 100000;
	eng_diag_free(&diag);
	return tl;
}

static struct eng_player *player(struct eng_timeline *tl,
				 const struct eng_io *io, struct rec *r)
{
	struct eng_player_config pc = {
		.buffer = 4,
		.pace = { ENG_PACE_OFF, 1 },
		.backing = ENG_BACKING_BUFFERED,
		.max_request = 4000,
		.io = io,
		.record = on_access,
		.record_ctx = r,
	};
	struct eng_player *p;

	assert_int_equal(eng_player_new(tl, &pc, &p), 0);
	return p;
}

/* A clip deleted while it plays: the checks (one at open, then one per
 * 100 ms of the fake clock, not one per read) catch it, the reader gets
 * EIO and the access the errno; the fd is closed and reopened. */
static void test_player_check(void **state)
{
	struct eng_timeline *tl = one_clip();
	struct eng_player_stats st;
	struct rec r = { 0 };
	struct eng_player *p;
	char buf[1000];
	struct fake f;
	int k;

	(void)state;
	fake_init(&f);
	f.io.check = f_check;
	f.latency = 10 * MS;	/* 50 reads: 500 ms */
	p = player(tl, &f.io, &r);
	for (k = 0; k < 50; k++)
		assert_int_equal(eng_player_copy(p, buf, 1000, k * 1000ULL),
				 1000);
	assert_true(f.checks >= 5 && f.checks <= 7);
	f.check_err = ENOENT;
	f.now += ENG_MEDIA_CHECK_NS;
	assert_int_equal(eng_player_copy(p, buf, 1000, 50 * 1000ULL), -EIO);
	assert_int_equal(r.last_err, ENOENT);
	assert_int_equal(f.open[0], 0);		/* closed on failure */
	eng_player_stats(p, &st);
	assert_true(st.failed_frames >= 1);
	/* the file is back (restored): the next frame reopens it */
	f.check_err = 0;
	assert_int_equal(eng_player_copy(p, buf, 1000, 60 * 1000ULL), 1000);
	assert_int_equal(f.open[0], 1);
	eng_player_free(p);
	eng_tl_free(tl);
}

/* Injected faults reach the access records: delays as bit 1, errors as
 * bit 2 with the errno, and the reader sees EIO for an injected error. */
static void test_player_injected(void **state)
{
	struct eng_timeline *tl = one_clip();
	struct rec r = { 0 };
	struct eng_player *p;
	struct wrapped w;
	char buf[1000];
	int k, eio = 0;
	ssize_t n;

	(void)state;
	wrap(&w, "clip=clip0001:track=V:delay=1ms;error=ETIMEDOUT@0.1");
	p = player(tl, &w.io, &r);
	for (k = 0; k < 100; k++) {
		n = eng_player_copy(p, buf, 1000, k * 1000ULL);
		if (n == -EIO)
			eio++;
		else
			assert_int_equal(n, 1000);
	}
	assert_int_equal(r.injected, r.n);	/* every read was delayed */
	assert_true(r.failed > 0 && r.failed < 30);
	assert_int_equal(r.last_err, ETIMEDOUT);
	assert_true(eio >= r.failed);
	eng_player_free(p);
	eng_tl_free(tl);
	eng_inject_free(w.inj);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_all_errors),
		cmocka_unit_test(test_fixed_delay_and_match),
		cmocka_unit_test(test_dotted_clip),
		cmocka_unit_test(test_delay_range),
		cmocka_unit_test(test_error_rate),
		cmocka_unit_test(test_rules_combine),
		cmocka_unit_test(test_file_op),
		cmocka_unit_test(test_write_ops),
		cmocka_unit_test(test_wrap_errors),
		cmocka_unit_test(test_player_check),
		cmocka_unit_test(test_player_injected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
