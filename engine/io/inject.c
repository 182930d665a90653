/* SPDX-License-Identifier: MIT */
/*
 * Fault injection, unreliablefs-style: an eng_io wrapper that delays or
 * fails the reads, opens and closes of the media files a rule matches, and
 * the writes, fsyncs and fallocates of ingest's track files
 * (-o inject=SPEC).
 * Pure: time and sleep come from the wrapped io, choices from an eng_rng.
 */
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "io/inject.h"
#include "io/io.h"
#include "util/diag.h"
#include "util/rng.h"
#include "util/values.h"

#define INJECT_WHERE "inject"
#define RATE_ONE (1ULL << 32)	/* probabilities in 32.32 fixed point */

/* What a rule acts on (op=); the numbers are play/player.h's enum
 * eng_op, which io/ does not include. */
enum inject_op {
	OP_READ = 0,		/* every pread, an image's header reads too */
	OP_OPEN = 1,		/* an open, and ingest's create */
	OP_CLOSE = 3,
	OP_WRITE = 5,		/* ingest's pwrite of a track file */
	OP_FSYNC = 6,
	OP_FALLOCATE = 7,
	OP_N
};

struct inject_rule {
	char *clip;		/* glob; NULL: any */
	char *track;
	char *file;		/* glob of the name as opened; NULL: any */
	int op;			/* enum inject_op */
	int has_delay;
	uint64_t delay_lo, delay_hi; /* ns */
	uint64_t delay_rate;	/* per read, RATE_ONE = always */
	int err;		/* positive errno; 0: none */
	uint64_t err_rate;
};

struct eng_inject {
	struct inject_rule *rules;
	size_t nrules;
	uint64_t seed;
	const struct eng_io *inner;
	pthread_mutex_t lock;	/* everything below */
	struct eng_rng rng;
	uint32_t *fdmask;	/* [nfd]: rules matching the file of fd */
	uint32_t op_mask[OP_N];	/* [op]: the rules of that op (const) */
	size_t nfd;
	struct eng_inject_stats st;
};

static const struct {
	const char *name;
	int err;
} errnos[] = {
	{ "EIO", EIO },	      { "ENOSPC", ENOSPC }, { "ETIMEDOUT", ETIMEDOUT },
	{ "EACCES", EACCES }, { "ENOENT", ENOENT }, { "ESTALE", ESTALE },
	{ "ENXIO", ENXIO },   { "ENODATA", ENODATA }, { "EAGAIN", EAGAIN },
	{ "EINTR", EINTR },   { "ENOMEM", ENOMEM },
};

/* "5ms", "1.5s", "200us", "10ns": a non-negative duration in ns. */
static int parse_duration(const char *s, size_t len, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	uint64_t whole = 0, frac = 0, scale = 1;
	size_t i = 0, u;
	int digits = 0;

	while (i < len && s[i] >= '0' && s[i] <= '9') {
		if (whole > 1000000000ULL)
			return -ERANGE;
		whole = whole * 10 + (uint64_t)(s[i++] - '0');
		digits++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			if (scale < 1000000000ULL) {
				frac = frac * 10 + (uint64_t)(s[i] - '0');
				scale *= 10;
			}
			i++;
			digits++;
		}
	}
	if (!digits)
		return -EINVAL;
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (len - i == strlen(units[u].unit) &&
		    memcmp(s + i, units[u].unit, len - i) == 0)
			break;
	if (u == sizeof(units) / sizeof(units[0]))
		return -EINVAL;
	/* at most an hour: anything longer is a typo, not a test */
	if (whole * units[u].ns + frac * units[u].ns / scale >
	    3600ULL * ENG_NS_PER_SEC)
		return -ERANGE;
	*out = whole * units[u].ns + frac * units[u].ns / scale;
	return 0;
}

/* "0.01", "1%", "1": a probability in (0, 1] as 32.32 fixed point. */
static int parse_rate(const char *s, size_t len, uint64_t *out)
{
	char buf[32], *end;
	double v;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtod(buf, &end);
	if (end == buf)
		return -EINVAL;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !(v > 0 && v <= 1))
		return -EINVAL;
	*out = (uint64_t)(v * (double)RATE_ONE);
	if (*out == 0)
		*out = 1;
	return 0;
}

/* value[0..len) up to an optional "@P". */
static int split_rate(const char *v, size_t len, size_t *vlen, uint64_t *rate)
{
	const char *at = memchr(v, '@', len);

	*rate = RATE_ONE;
	*vlen = len;
	if (!at)
		return 0;
	*vlen = (size_t)(at - v);
	return parse_rate(at + 1, len - *vlen - 1, rate);
}

static int parse_errno(const char *s, size_t len, int *out)
{
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++)
		if (strlen(errnos[i].name) == len &&
		    memcmp(errnos[i].name, s, len) == 0) {
			*out = errnos[i].err;
			return 0;
		}
	if (len == 0 || len > 4)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		n = n * 10 + (s[i] - '0');
	}
	if (n <= 0 || n > 4095)
		return -EINVAL;
	*out = n;
	return 0;
}

static int is_key(const char *f, size_t klen, const char *key)
{
	return strlen(key) == klen && memcmp(f, key, klen) == 0;
}

/* One "key=value" field of rule r (number `no` in messages). */
static int parse_field(struct eng_inject *inj, struct inject_rule *r,
		       unsigned no, const char *f, size_t len,
		       struct eng_diag *diag)
{
	const char *eq = memchr(f, '=', len);
	const char *v;
	size_t klen, vlen, n;
	uint64_t rate;

	if (!eq) {
		eng_diag_add(diag, INJECT_WHERE, no, "'%.*s' is not key=value",
			     (int)len, f);
		return -EINVAL;
	}
	klen = (size_t)(eq - f);
	v = eq + 1;
	vlen = len - klen - 1;
	if (is_key(f, klen, "op")) {
		static const struct {
			const char *name;
			int op;
		} ops[] = {
			{ "read", OP_READ }, { "open", OP_OPEN },
			{ "close", OP_CLOSE }, { "write", OP_WRITE },
			{ "fsync", OP_FSYNC }, { "fallocate", OP_FALLOCATE },
		};

		for (n = 0; n < sizeof(ops) / sizeof(ops[0]); n++)
			if (is_key(v, vlen, ops[n].name)) {
				r->op = ops[n].op;
				return 0;
			}
		eng_diag_add(diag, INJECT_WHERE, no, "bad op '%.*s': expected "
			     "read, open, close, write, fsync or fallocate",
			     (int)vlen, v);
		return -EINVAL;
	}
	if (is_key(f, klen, "clip") || is_key(f, klen, "track") ||
	    is_key(f, klen, "file")) {
		char **dst = is_key(f, klen, "clip") ? &r->clip :
			     is_key(f, klen, "track") ? &r->track : &r->file;

		if (vlen == 0) {
			eng_diag_add(diag, INJECT_WHERE, no, "empty %.*s glob",
				     (int)klen, f);
			return -EINVAL;
		}
		free(*dst);
		*dst = strndup(v, vlen);
		return *dst ? 0 : -ENOMEM;
	}
	if (is_key(f, klen, "delay")) {
		const char *dash;

		if (split_rate(v, vlen, &n, &rate) < 0)
			goto bad_rate;
		dash = memchr(v, '-', n);
		if (dash) {
			if (parse_duration(v, (size_t)(dash - v),
					   &r->delay_lo) < 0 ||
			    parse_duration(dash + 1, n - (size_t)(dash - v) - 1,
					   &r->delay_hi) < 0 ||
			    r->delay_hi < r->delay_lo)
				goto bad_delay;
		} else {
			if (parse_duration(v, n, &r->delay_lo) < 0)
				goto bad_delay;
			r->delay_hi = r->delay_lo;
		}
		r->has_delay = 1;
		r->delay_rate = rate;
		return 0;
	}
	if (is_key(f, klen, "error")) {
		if (split_rate(v, vlen, &n, &rate) < 0)
			goto bad_rate;
		if (parse_errno(v, n, &r->err) < 0) {
			eng_diag_add(diag, INJECT_WHERE, no,
				     "bad error '%.*s': expected EIO, ENOSPC, "
				     "ETIMEDOUT, EACCES, ENOENT, ESTALE, ENXIO, "
				     "ENODATA, EAGAIN, EINTR, ENOMEM or a "
				     "number", (int)n, v);
			return -EINVAL;
		}
		r->err_rate = rate;
		return 0;
	}
	if (is_key(f, klen, "seed")) {
		char buf[24];
		int64_t seed;

		if (vlen == 0 || vlen >= sizeof(buf))
			goto bad_seed;
		memcpy(buf, v, vlen);
		buf[vlen] = '\0';
		if (eng_parse_int(buf, &seed) < 0)
			goto bad_seed;
		inj->seed = (uint64_t)seed;
		return 0;
	}
	eng_diag_add(diag, INJECT_WHERE, no, "unknown key '%.*s' (expected "
		     "clip, track, file, op, delay, error or seed)", (int)klen,
		     f);
	return -EINVAL;
bad_rate:
	eng_diag_add(diag, INJECT_WHERE, no, "bad probability in '%.*s': "
		     "expected @P with P in (0, 1] like @0.01 or @1%%",
		     (int)len, f);
	return -EINVAL;
bad_delay:
	eng_diag_add(diag, INJECT_WHERE, no, "bad delay '%.*s': expected a "
		     "duration like 5ms or a range like 1ms-20ms (units ns, "
		     "us, ms, s; at most 1 hour)", (int)vlen, v);
	return -EINVAL;
bad_seed:
	eng_diag_add(diag, INJECT_WHERE, no, "bad seed '%.*s'", (int)vlen,
		     v);
	return -EINVAL;
}

/* Rule text r[0..len) (number `no`). */
static int parse_rule(struct eng_inject *inj, struct inject_rule *r,
		      unsigned no, const char *s, size_t len,
		      struct eng_diag *diag)
{
	size_t i = 0, j;
	int rc = 0, frc, only_seed = 1;

	while (i <= len) {
		for (j = i; j < len && s[j] != ':'; j++)
			;
		if (j > i) {
			frc = parse_field(inj, r, no, s + i, j - i, diag);
			if (frc == -ENOMEM)
				return frc;
			if (frc < 0)
				rc = frc;
			if (!(j - i > 5 && memcmp(s + i, "seed=", 5) == 0))
				only_seed = 0;
		}
		i = j + 1;
	}
	if (rc == 0 && !r->has_delay && !r->err && !only_seed) {
		eng_diag_add(diag, INJECT_WHERE, no, "rule '%.*s' injects "
			     "nothing: add delay= or error=", (int)len, s);
		rc = -EINVAL;
	}
	if (rc == 0 && r->op == OP_CLOSE && r->err) {
		eng_diag_add(diag, INJECT_WHERE, no, "rule '%.*s' fails a "
			     "close: a close returns no error to fail, use "
			     "delay=", (int)len, s);
		rc = -EINVAL;
	}
	return rc;
}

static void free_rules(struct eng_inject *inj)
{
	size_t i;

	for (i = 0; i < inj->nrules; i++) {
		free(inj->rules[i].clip);
		free(inj->rules[i].track);
		free(inj->rules[i].file);
	}
	free(inj->rules);
}

void eng_inject_free(struct eng_inject *inj)
{
	if (!inj)
		return;
	free_rules(inj);
	free(inj->fdmask);
	pthread_mutex_destroy(&inj->lock);
	free(inj);
}

int eng_inject_parse(const char *spec, struct eng_inject **out,
		     struct eng_diag *diag)
{
	struct eng_inject *inj;
	size_t i = 0, j, len, cap = 0;
	unsigned no = 0;
	int rc = 0, rrc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!spec) {
		eng_diag_add(diag, INJECT_WHERE, 0, "no spec");
		return -EINVAL;
	}
	inj = calloc(1, sizeof(*inj));
	if (!inj)
		return -ENOMEM;
	pthread_mutex_init(&inj->lock, NULL);
	inj->seed = 1;
	len = strlen(spec);
	while (i <= len) {
		struct inject_rule r;

		for (j = i; j < len && spec[j] != ';' && spec[j] != '+'; j++)
			;
		if (j == i) {
			i = j + 1;
			continue;
		}
		no++;
		memset(&r, 0, sizeof(r));
		rrc = parse_rule(inj, &r, no, spec + i, j - i, diag);
		if (rrc == 0 && (r.has_delay || r.err)) {
			if (inj->nrules == ENG_INJECT_MAX_RULES) {
				eng_diag_add(diag, INJECT_WHERE, no, "more "
					     "than %d rules",
					     ENG_INJECT_MAX_RULES);
				rrc = -EINVAL;
			} else if (inj->nrules == cap) {
				struct inject_rule *nr;

				cap = cap ? cap * 2 : 4;
				nr = realloc(inj->rules, cap * sizeof(*nr));
				if (!nr)
					rrc = -ENOMEM;
				else
					inj->rules = nr;
			}
			if (rrc == 0) {
				inj->op_mask[r.op] |= 1u << inj->nrules;
				inj->rules[inj->nrules++] = r;
				r.clip = r.track = r.file = NULL;
			}
		}
		free(r.clip);
		free(r.track);
		free(r.file);
		if (rrc == -ENOMEM) {
			rc = rrc;
			goto err;
		}
		if (rrc < 0)
			rc = rrc;
		i = j + 1;
	}
	if (rc == 0 && inj->nrules == 0) {
		eng_diag_add(diag, INJECT_WHERE, 0, "'%s' has no rule: expected "
			     "e.g. clip=clip0001:track=V:delay=20ms", spec);
		rc = -EINVAL;
	}
	if (rc < 0)
		goto err;
	eng_rng_seed(&inj->rng, inj->seed);
	*out = inj;
	return 0;
err:
	eng_inject_free(inj);
	return rc;
}

size_t eng_inject_rules(const struct eng_inject *inj)
{
	return inj ? inj->nrules : 0;
}

static int glob_ok(const char *glob, const char *s)
{
	return !glob || fnmatch(glob, s, 0) == 0;
}

/* Does NAME.TRACK.EXT `name` split into a clip and a track that the
 * rule's globs match?  A clip name may hold dots, so every split into a
 * clip, a track ([A-Za-z0-9_]+) and the rest is tried. */
static int split_matches(const struct inject_rule *r, const char *name)
{
	char buf[512];
	size_t len = strlen(name), i, j;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, name, len + 1);
	for (i = 1; i < len; i++) {
		if (buf[i] != '.')
			continue;
		for (j = i + 1; j < len && buf[j] != '.'; j++) {
			char c = buf[j];

			if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			      (c >= '0' && c <= '9') || c == '_'))
				break;
		}
		if (j == i + 1 || j >= len || buf[j] != '.')
			continue;
		buf[i] = buf[j] = '\0';
		if (glob_ok(r->clip, buf) && glob_ok(r->track, buf + i + 1))
			return 1;
		buf[i] = buf[j] = '.';
	}
	return 0;
}

/* Does the rule match media file `file` (as opened: an image sequence's
 * path and all, ingest's "ingest/NAME.V.raw")?  file= against all of it
 * ('*' crosses '/'); clip= and track= against NAME.TRACK.EXT, the whole
 * name or the part after its last '/' (so that clip=cam1 picks
 * ingest/cam1.V.raw; a name without that form matches no clip= or
 * track=). */
static int rule_matches(const struct inject_rule *r, const char *file)
{
	const char *slash = strrchr(file, '/');

	if (!glob_ok(r->file, file))
		return 0;
	if (!r->clip && !r->track)
		return 1;
	return split_matches(r, file) || (slash && split_matches(r, slash + 1));
}

static uint64_t w_now(void *ctx)
{
	struct eng_inject *inj = ctx;

	return inj->inner->now(inj->inner->ctx);
}

static void w_sleep_until(void *ctx, uint64_t ns)
{
	struct eng_inject *inj = ctx;

	inj->inner->sleep_until(inj->inner->ctx, ns);
}

static int chance(struct eng_inject *inj, uint64_t rate);

/* The faults of the rules of mask on one operation: the delay to sleep
 * and the errno (0: none); counts them.  Under inj->lock. */
static unsigned faults(struct eng_inject *inj, uint32_t mask, uint64_t *delay,
		       int *err)
{
	unsigned what = 0;
	size_t i;

	*delay = 0;
	*err = 0;
	for (i = 0; mask && i < inj->nrules; i++) {
		const struct inject_rule *r = &inj->rules[i];

		if (!(mask & (1u << i)))
			continue;
		if (r->has_delay && chance(inj, r->delay_rate)) {
			*delay += r->delay_lo == r->delay_hi ? r->delay_lo :
				  eng_rng_range(&inj->rng, r->delay_lo,
						r->delay_hi);
			what |= ENG_INJECT_DELAY;
		}
		if (r->err && !*err && chance(inj, r->err_rate)) {
			*err = r->err;
			what |= ENG_INJECT_ERROR;
		}
	}
	if (what & ENG_INJECT_DELAY) {
		inj->st.delayed++;
		inj->st.delay_ns += *delay;
	}
	if (*err)
		inj->st.errors++;
	return what;
}

/* A fault's delay is storage latency: before the operation. */
static void pause_for(struct eng_inject *inj, uint64_t delay)
{
	const struct eng_io *in = inj->inner;

	if (delay)
		in->sleep_until(in->ctx, in->now(in->ctx) + delay);
}

/* The rules whose globs match `file`. */
static uint32_t file_mask(const struct eng_inject *inj, const char *file)
{
	uint32_t mask = 0;
	size_t i;

	for (i = 0; i < inj->nrules; i++)
		if (rule_matches(&inj->rules[i], file))
			mask |= 1u << i;
	return mask;
}

/* The faults of an open (or a create) of a file of rules `mask`: the
 * delay slept, the errno returned (0: none). */
static int open_faults(struct eng_inject *inj, uint32_t mask,
		       unsigned *injected)
{
	uint64_t delay;
	unsigned what;
	int err;

	pthread_mutex_lock(&inj->lock);
	inj->st.opens++;
	what = faults(inj, mask & inj->op_mask[OP_OPEN], &delay, &err);
	pthread_mutex_unlock(&inj->lock);
	if (injected)
		*injected = what;
	pause_for(inj, delay);
	return err;
}

/* Remember the rules of the file fd was opened from, for its operations;
 * fd, or -ENOMEM (fd closed). */
static int keep_fd(struct eng_inject *inj, int fd, uint32_t mask)
{
	pthread_mutex_lock(&inj->lock);
	if ((size_t)fd >= inj->nfd) {
		size_t n = (size_t)fd * 2 + 16;
		uint32_t *m = realloc(inj->fdmask, n * sizeof(*m));

		if (!m) {
			pthread_mutex_unlock(&inj->lock);
			inj->inner->close(inj->inner->ctx, fd);
			return -ENOMEM;
		}
		memset(m + inj->nfd, 0, (n - inj->nfd) * sizeof(*m));
		inj->fdmask = m;
		inj->nfd = n;
	}
	inj->fdmask[fd] = mask;
	pthread_mutex_unlock(&inj->lock);
	return fd;
}

/* The faults of operation op on fd, counted in *count: the delay slept,
 * the errno returned (0: none). */
static int fd_faults(struct eng_inject *inj, int fd, int op, uint64_t *count,
		     unsigned *injected)
{
	uint32_t mask = 0;
	uint64_t delay;
	unsigned what;
	int err;

	pthread_mutex_lock(&inj->lock);
	(*count)++;
	if (fd >= 0 && (size_t)fd < inj->nfd)
		mask = inj->fdmask[fd] & inj->op_mask[op];
	if (mask && op == OP_READ)
		inj->st.matched++;
	what = faults(inj, mask, &delay, &err);
	pthread_mutex_unlock(&inj->lock);
	if (injected)
		*injected = what;
	pause_for(inj, delay);
	return err;
}

static int w_open_ex(void *ctx, const char *file, int direct,
		     int *is_direct, unsigned *injected)
{
	struct eng_inject *inj = ctx;
	uint32_t mask = file_mask(inj, file);
	int fd, err;

	err = open_faults(inj, mask, injected);
	if (err) {
		if (is_direct)
			*is_direct = 0;
		return -err;
	}
	fd = inj->inner->open(inj->inner->ctx, file, direct, is_direct);
	return fd < 0 ? fd : keep_fd(inj, fd, mask);
}

static int w_open(void *ctx, const char *file, int direct, int *is_direct)
{
	return w_open_ex(ctx, file, direct, is_direct, NULL);
}

static int chance(struct eng_inject *inj, uint64_t rate)
{
	return rate >= RATE_ONE || (eng_rng_next(&inj->rng) >> 32) < rate;
}

static ssize_t w_pread_ex(void *ctx, int fd, void *buf, size_t len,
			  uint64_t off, unsigned *injected)
{
	struct eng_inject *inj = ctx;
	const struct eng_io *in = inj->inner;
	int err = fd_faults(inj, fd, OP_READ, &inj->st.reads, injected);

	if (err)
		return -err;
	if (in->pread_ex) {
		unsigned below = 0;
		ssize_t r = in->pread_ex(in->ctx, fd, buf, len, off, &below);

		if (injected)
			*injected |= below;
		return r;
	}
	return in->pread(in->ctx, fd, buf, len, off);
}

static ssize_t w_pread(void *ctx, int fd, void *buf, size_t len,
		       uint64_t off)
{
	return w_pread_ex(ctx, fd, buf, len, off, NULL);
}

/* Ingest's writes: a create is an open (op=open), its fd's writes,
 * fsyncs and fallocates the rules of op=write, fsync and fallocate; what
 * the inner io injected too is added to *injected. */
static int w_create(void *ctx, const char *file, int replace,
		    unsigned *injected)
{
	struct eng_inject *inj = ctx;
	const struct eng_io *in = inj->inner;
	uint32_t mask = file_mask(inj, file);
	unsigned below = 0;
	int fd, err;

	err = open_faults(inj, mask, injected);
	if (err)
		return -err;
	fd = in->create(in->ctx, file, replace, &below);
	if (injected)
		*injected |= below;
	return fd < 0 ? fd : keep_fd(inj, fd, mask);
}

static ssize_t w_pwrite(void *ctx, int fd, const void *buf, size_t len,
			uint64_t off, unsigned *injected)
{
	struct eng_inject *inj = ctx;
	const struct eng_io *in = inj->inner;
	unsigned below = 0;
	ssize_t r;
	int err = fd_faults(inj, fd, OP_WRITE, &inj->st.writes, injected);

	if (err)
		return -err;
	r = in->pwrite(in->ctx, fd, buf, len, off, &below);
	if (injected)
		*injected |= below;
	return r;
}

static int w_fsync(void *ctx, int fd, unsigned *injected)
{
	struct eng_inject *inj = ctx;
	const struct eng_io *in = inj->inner;
	unsigned below = 0;
	int rc, err = fd_faults(inj, fd, OP_FSYNC, &inj->st.fsyncs, injected);

	if (err)
		return -err;
	rc = in->fsync(in->ctx, fd, &below);
	if (injected)
		*injected |= below;
	return rc;
}

static int w_fallocate(void *ctx, int fd, uint64_t off, uint64_t len,
		       unsigned *injected)
{
	struct eng_inject *inj = ctx;
	const struct eng_io *in = inj->inner;
	unsigned below = 0;
	int rc, err = fd_faults(inj, fd, OP_FALLOCATE, &inj->st.fallocates,
				injected);

	if (err)
		return -err;
	rc = in->fallocate(in->ctx, fd, off, len, &below);
	if (injected)
		*injected |= below;
	return rc;
}

static int w_ftruncate(void *ctx, int fd, uint64_t len)
{
	struct eng_inject *inj = ctx;

	return inj->inner->ftruncate(inj->inner->ctx, fd, len);
}

static int w_space(void *ctx, uint64_t *bytes)
{
	struct eng_inject *inj = ctx;

	return inj->inner->space(inj->inner->ctx, bytes);
}

/* the note's lock: no fault of inject's applies to it */
static int w_lock(void *ctx, int fd)
{
	struct eng_inject *inj = ctx;

	return inj->inner->lock(inj->inner->ctx, fd);
}

static int w_remove(void *ctx, const char *file, int fd)
{
	struct eng_inject *inj = ctx;

	return inj->inner->remove(inj->inner->ctx, file, fd);
}

static void w_dontneed(void *ctx, int fd, uint64_t off, uint64_t len)
{
	struct eng_inject *inj = ctx;

	if (inj->inner->dontneed)
		inj->inner->dontneed(inj->inner->ctx, fd, off, len);
}

static void w_close_ex(void *ctx, int fd, unsigned *injected)
{
	struct eng_inject *inj = ctx;
	uint32_t mask = 0;
	uint64_t delay;
	unsigned what;
	int err;

	pthread_mutex_lock(&inj->lock);
	inj->st.closes++;
	if (fd >= 0 && (size_t)fd < inj->nfd) {
		mask = inj->fdmask[fd] & inj->op_mask[OP_CLOSE];
		inj->fdmask[fd] = 0;
	}
	what = faults(inj, mask, &delay, &err); /* err: refused at parse */
	pthread_mutex_unlock(&inj->lock);
	if (injected)
		*injected = what;
	pause_for(inj, delay);
	inj->inner->close(inj->inner->ctx, fd);
}

static void w_close(void *ctx, int fd)
{
	w_close_ex(ctx, fd, NULL);
}

static int w_check(void *ctx, int fd, const char *file)
{
	struct eng_inject *inj = ctx;

	return inj->inner->check(inj->inner->ctx, fd, file);
}

static int w_size(void *ctx, int fd, uint64_t *bytes)
{
	struct eng_inject *inj = ctx;

	return inj->inner->size(inj->inner->ctx, fd, bytes);
}

int eng_inject_wrap(struct eng_inject *inj, const struct eng_io *inner,
		    struct eng_io *out)
{
	if (!inj || !inner || !out || !inner->now || !inner->sleep_until ||
	    !inner->open || !inner->pread || !inner->close)
		return -EINVAL;
	inj->inner = inner;
	memset(out, 0, sizeof(*out));
	out->now = w_now;
	out->sleep_until = w_sleep_until;
	out->open = w_open;
	out->pread = w_pread;
	out->pread_ex = w_pread_ex;
	out->dontneed = inner->dontneed ? w_dontneed : NULL;
	out->close = w_close;
	out->open_ex = w_open_ex;
	out->close_ex = w_close_ex;
	out->check = inner->check ? w_check : NULL;
	out->size = inner->size ? w_size : NULL;
	out->lock = inner->lock ? w_lock : NULL;
	if (inner->create) {	/* all or none */
		out->create = w_create;
		out->pwrite = w_pwrite;
		out->fsync = w_fsync;
		out->fallocate = w_fallocate;
		out->ftruncate = w_ftruncate;
		out->space = w_space;
		out->remove = inner->remove ? w_remove : NULL;
	}
	out->ctx = inj;
	/* no pipe_* ops: the faults are injected into preads, so a wrapped
	 * player never takes the zero-copy path */
	return 0;
}

void eng_inject_stats(struct eng_inject *inj, struct eng_inject_stats *st)
{
	pthread_mutex_lock(&inj->lock);
	*st = inj->st;
	pthread_mutex_unlock(&inj->lock);
}
