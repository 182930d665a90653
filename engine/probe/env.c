/* SPDX-License-Identifier: MIT */
/*
 * The run environment: parsers of the /proc and /sys texts that can decide
 * an A/B result (mountinfo, cpuinfo, meminfo, timer_list, a scheduler
 * choice, the kernel command line, the block cgroup and its read limits)
 * and the measurement of the timer's tick
 * rate from jiffies.  Texts and time come in; hostfacts.c reads the files.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/env.h"
#include "probe/kconfig.h"
#include "io/io.h"
#include "util/values.h"

/* Copy n bytes NUL-terminated into buf[len], trimming blanks at both
 * ends; -ERANGE when they do not fit. */
static int copy_trim(const char *s, size_t n, char *buf, size_t len)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n >= len)
		return -ERANGE;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

/* "KEY<blanks>: VALUE" lines (cpuinfo, meminfo, timer_list): the value of
 * the first line whose key is key, or NULL; *vn its length. */
static const char *colon_value(const char *text, size_t len, const char *key,
			       size_t *vn)
{
	size_t i = 0, n, klen = strlen(key);
	const char *line;

	while ((line = eng_next_line(text, len, &i, &n))) {
		size_t k = klen;

		if (n < klen || memcmp(line, key, klen) != 0)
			continue;
		while (k < n && (line[k] == ' ' || line[k] == '\t'))
			k++;
		if (k == n || line[k] != ':')
			continue;
		*vn = n - k - 1;
		return line + k + 1;
	}
	return NULL;
}

/* A decimal of at most n bytes after blanks, then blanks or unit: 0 or
 * -EINVAL. */
static int parse_u64(const char *s, size_t n, uint64_t *out, const char *unit)
{
	char buf[32];
	int64_t v;
	size_t k = 0, u = unit ? strlen(unit) : 0;

	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (k < n && s[k] >= '0' && s[k] <= '9')
		k++;
	if (!k || k >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, k);
	buf[k] = '\0';
	s += k;
	n -= k;
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	if (n && !(u && n == u && memcmp(s, unit, u) == 0))
		return -EINVAL;
	if (eng_parse_int(buf, &v) < 0)
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

int eng_env_cpuinfo(const char *text, size_t len, char *model, size_t mlen,
		    unsigned *count)
{
	/* x86 "model name"; arm64 has no model line but "CPU part";
	 * older arm "Processor", POWER "cpu", s390 "processor 0: ..." */
	static const char *const keys[] = {"model name", "Processor",
					   "cpu model", "cpu", "CPU part"};
	size_t i = 0, n, k, vn;
	const char *line, *v = NULL;
	unsigned c = 0;

	while ((line = eng_next_line(text, len, &i, &n))) {
		k = strlen("processor");
		if (n > k && memcmp(line, "processor", k) == 0 &&
		    (line[k] == ' ' || line[k] == '\t' || line[k] == ':'))
			c++;
	}
	*count = c;
	for (k = 0; k < sizeof(keys) / sizeof(keys[0]) && !v; k++)
		v = colon_value(text, len, keys[k], &vn);
	if (!v)
		return c ? -ENOENT : -EINVAL;
	return copy_trim(v, vn, model, mlen);
}

int eng_env_meminfo(const char *text, size_t len, const char *key, uint64_t *kb)
{
	size_t vn;
	const char *v = colon_value(text, len, key, &vn);

	if (!v)
		return -ENOENT;
	return parse_u64(v, vn, kb, "kB");
}

int eng_env_jiffies(const char *text, size_t len, uint64_t *jiffies)
{
	size_t vn;
	/* "jiffies: N" at the start of a line; ".idle_jiffies   : N" and
	 * the like are indented, and colon_value wants the key first */
	const char *v = colon_value(text, len, "jiffies", &vn);

	if (!v)
		return -ENOENT;
	return parse_u64(v, vn, jiffies, NULL);
}

int eng_env_selected(const char *text, size_t len, char *buf, size_t buflen)
{
	const char *s = text, *e, *end = text + len;

	/* "none [mq-deadline] kyber" (sysfs), "none voluntary (full)"
	 * (debugfs sched/preempt) */
	while (s < end && *s != '[' && *s != '(')
		s++;
	if (s < end) {
		char close = *s == '[' ? ']' : ')';

		e = memchr(s + 1, close, (size_t)(end - s - 1));
		if (!e)
			return -EINVAL;
		return copy_trim(s + 1, (size_t)(e - s - 1), buf, buflen);
	}
	/* one word alone is the choice ("none" where there is no other) */
	e = memchr(text, '\n', len);
	if (e)
		len = (size_t)(e - text);
	if (copy_trim(text, len, buf, buflen) < 0)
		return -ERANGE;
	if (!buf[0] || strpbrk(buf, " \t"))
		return -EINVAL;
	return 0;
}

int eng_env_cmdline_get(const char *cmdline, const char *key, char *buf,
			size_t buflen)
{
	size_t klen = strlen(key);
	const char *s = cmdline, *e;
	int rc = -ENOENT;

	/* the kernel takes the last of repeated parameters; what follows
	 * " -- " is init's, not the kernel's */
	while (*s) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			break;
		e = s + strcspn(s, " \t\n");
		if (e - s == 2 && s[0] == '-' && s[1] == '-')
			break;
		if ((size_t)(e - s) > klen && memcmp(s, key, klen) == 0 &&
		    s[klen] == '=') {
			size_t n = (size_t)(e - s) - klen - 1;

			if (n >= buflen)
				return -ERANGE;
			memcpy(buf, s + klen + 1, n);
			buf[n] = '\0';
			rc = 0;
		}
		s = e;
	}
	return rc;
}

int eng_env_preempt(const char *config, size_t len, const char *cmdline,
		    char *buf, size_t buflen, int *from_cmdline)
{
	/* in the order the kernel's Kconfig lets them coexist: RT selects
	 * PREEMPTION too, LAZY is a choice beside the others */
	static const struct {
		const char *key;
		const char *model;
	} models[] = {
	    {"CONFIG_PREEMPT_RT", "rt"},
	    {"CONFIG_PREEMPT_LAZY", "lazy"},
	    {"CONFIG_PREEMPT", "full"},
	    {"CONFIG_PREEMPT_VOLUNTARY", "voluntary"},
	    {"CONFIG_PREEMPT_NONE", "none"},
	};
	char v[16];
	size_t i;

	*from_cmdline = 0;
	/* a PREEMPT_DYNAMIC kernel starts with the model preempt= names */
	if (cmdline &&
	    eng_kconfig_get(config, len, "CONFIG_PREEMPT_DYNAMIC", v,
			    sizeof(v)) == 0 &&
	    strcmp(v, "y") == 0 &&
	    eng_env_cmdline_get(cmdline, "preempt", buf, buflen) == 0 &&
	    buf[0]) {
		*from_cmdline = 1;
		return 0;
	}
	for (i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		if (eng_kconfig_get(config, len, models[i].key, v, sizeof(v)) ==
			0 &&
		    strcmp(v, "y") == 0) {
			if (strlen(models[i].model) >= buflen)
				return -ERANGE;
			strcpy(buf, models[i].model);
			return 0;
		}
	}
	return -ENOENT;
}

/* Undo mountinfo's octal escapes (\040 space, \011 tab, \012 newline,
 * \134 backslash) of the n bytes at s into buf[len]. */
static int unescape(const char *s, size_t n, char *buf, size_t len)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		char c = s[i];

		if (c == '\\' && i + 3 < n && s[i + 1] >= '0' &&
		    s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			c = (char)((s[i + 1] - '0') * 64 +
				   (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
			i += 3;
		}
		if (o + 1 >= len)
			return -ERANGE;
		buf[o++] = c;
	}
	buf[o] = '\0';
	return 0;
}

/* Split a line into blank-separated fields: up to max, *nf set. */
static void fields(const char *line, size_t n, const char **f, size_t *fl,
		   size_t max, size_t *nf)
{
	size_t i = 0;

	*nf = 0;
	while (i < n && *nf < max) {
		while (i < n && line[i] == ' ')
			i++;
		if (i == n)
			break;
		f[*nf] = line + i;
		while (i < n && line[i] != ' ')
			i++;
		fl[*nf] = (size_t)(line + i - f[*nf]);
		(*nf)++;
	}
}

/* Does the mount point mp hold path (both absolute and canonical)? */
static int holds(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return path[0] == '/';
	return strncmp(mp, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int eng_env_mountinfo(const char *text, size_t len, const char *path,
		      struct eng_mount *m)
{
	size_t i = 0, n, best = 0;
	const char *line;
	struct eng_mount cur;
	int found = 0;

	while ((line = eng_next_line(text, len, &i, &n))) {
		const char *f[64];
		size_t fl[64], nf, k, sep;
		char opt[sizeof(cur.options)];

		/* id parent MAJ:MIN root mount_point options [tag...] -
		 * fstype source super_options */
		fields(line, n, f, fl, 64, &nf);
		for (sep = 6; sep < nf; sep++)
			if (fl[sep] == 1 && f[sep][0] == '-')
				break;
		if (nf < 6 || sep + 3 > nf)
			continue;
		memset(&cur, 0, sizeof(cur));
		if (unescape(f[4], fl[4], cur.mount_point,
			     sizeof(cur.mount_point)) < 0 ||
		    !holds(cur.mount_point, path))
			continue;
		k = strlen(cur.mount_point);
		/* the longest mount point holding path; of equal ones the
		 * last, mounted on top of the others */
		if (found && k < best)
			continue;
		{
			char dev[32];
			char *colon, *end;
			unsigned long ma, mi;

			if (fl[2] >= sizeof(dev))
				continue;
			memcpy(dev, f[2], fl[2]);
			dev[fl[2]] = '\0';
			ma = strtoul(dev, &colon, 10);
			if (colon == dev || *colon != ':')
				continue;
			mi = strtoul(colon + 1, &end, 10);
			if (end == colon + 1 || *end)
				continue;
			cur.major = (unsigned)ma;
			cur.minor = (unsigned)mi;
		}
		if (unescape(f[sep + 1], fl[sep + 1], cur.fstype,
			     sizeof(cur.fstype)) < 0 ||
		    unescape(f[sep + 2], fl[sep + 2], cur.source,
			     sizeof(cur.source)) < 0 ||
		    unescape(f[5], fl[5], cur.options, sizeof(cur.options)) < 0)
			continue;
		/* the mount's own options, then the super block's: "rw,
		 * relatime" and "rw,discard" read "rw,relatime rw,discard" */
		if (sep + 3 < nf) {
			if (unescape(f[sep + 3], fl[sep + 3], opt,
				     sizeof(opt)) < 0 ||
			    strlen(cur.options) + 1 + strlen(opt) >=
				sizeof(cur.options))
				continue;
			strcat(cur.options, " ");
			strcat(cur.options, opt);
		}
		*m = cur;
		best = k;
		found = 1;
	}
	return found ? 0 : -ENOENT;
}

/* One reading of jiffies, placed at the middle of the call. */
static int sample(const struct eng_io *io, eng_jiffies_fn *read, void *ctx,
		  uint64_t *j, uint64_t *at)
{
	uint64_t t0 = io->now(io->ctx), t1;
	int rc = read(ctx, j);

	t1 = io->now(io->ctx);
	*at = t0 + (t1 - t0) / 2;
	return rc;
}

/* The moment jiffies next changes: *at between the last reading of the
 * old value and the first of the new one (*gap apart), *j the new value.
 * Readings further apart than max_gap (the daemon was preempted between
 * them) give no edge: the next one is waited for.  -ETIMEDOUT when
 * jiffies does not change within limit_ns. */
static int edge(const struct eng_io *io, eng_jiffies_fn *read, void *ctx,
		uint64_t limit_ns, uint64_t max_gap, uint64_t *j, uint64_t *at,
		uint64_t *gap)
{
	uint64_t pj, pt, nj, nt, start;
	int rc = sample(io, read, ctx, &pj, &pt);

	start = pt;
	while (rc == 0) {
		rc = sample(io, read, ctx, &nj, &nt);
		if (rc < 0)
			break;
		if (nj != pj && nt - pt <= max_gap) {
			*j = nj;
			*at = pt + (nt - pt) / 2;
			*gap = nt - pt;
			return 0;
		}
		if (nt - start > limit_ns)
			return -ETIMEDOUT;
		pj = nj;
		pt = nt;
	}
	return rc;
}

/* A change of jiffies: the new value, when (midway between the readings
 * around it), and those readings' distance. */
struct jedge {
	uint64_t j, t, gap;
};

/* ENV_EDGES consecutive changes (one tick apart, or more where a late
 * tick caught up). */
#define ENV_EDGES 4
static int edges(const struct eng_io *io, eng_jiffies_fn *read, void *ctx,
		 uint64_t limit_ns, uint64_t max_gap, struct jedge *e)
{
	int i, rc = 0;

	for (i = 0; i < ENV_EDGES && rc == 0; i++)
		rc = edge(io, read, ctx, limit_ns, max_gap, &e[i].j, &e[i].t,
			  &e[i].gap);
	return rc > 0 ? -EIO : rc;
}

/* The least late of a set of changes at period p ns: a tick is never
 * early, but a virtual machine's or a busy CPU's can be late by a
 * fraction of a tick or more (then jiffies catches up by two), and so is
 * the change seen.  Each change's phase t - (j - jr) p; the smallest. */
static int least_late(const struct jedge *e, double p, uint64_t jr, uint64_t tr)
{
	double best = 0;
	int i, b = 0;

	for (i = 0; i < ENV_EDGES; i++) {
		double ph = ((double)e[i].t - (double)tr) -
			    ((double)e[i].j - (double)jr) * p;

		if (i == 0 || ph < best) {
			best = ph;
			b = i;
		}
	}
	return b;
}

int eng_env_measure_hz(const struct eng_io *io, eng_jiffies_fn *read, void *ctx,
		       uint64_t interval_ns, double *hz)
{
	/* the slowest kernel tick is 100 Hz (10 ms): 100 of them without
	 * a change read closely is no ticking jiffies counter, or a machine
	 * too loaded to say (at a load of 16 on 2 CPUs, 200 ms was not
	 * always enough to find one) */
	const uint64_t limit = 1000000000, max_gap = 1000000;
	struct jedge e0[ENV_EDGES], e1[ENV_EDGES];
	uint64_t need = interval_ns, span;
	int rc, b0 = 0, b1 = 0, k;
	double p = 0, rate, want;

	rc = edges(io, read, ctx, limit, max_gap, e0);
	if (rc < 0)
		return rc;
	/* the interval's end falls within a tick: the changes after it
	 * are found by reading, as the first ones were.  The rate is
	 * within hz (g0 + g1) / 2 / T of the truth (each change placed
	 * within half its readings' gap) plus the lateness of the two
	 * changes used, the least late at each end: T is stretched until
	 * the first is a quarter of a Hz (at most to 5 times interval_ns),
	 * so that the rate rounds to the right whole Hz on a loaded
	 * machine too */
	for (;;) {
		io->sleep_until(io->ctx, e0[0].t + need);
		rc = edges(io, read, ctx, limit, max_gap, e1);
		if (rc < 0)
			return rc;
		if (e1[ENV_EDGES - 1].j <= e0[0].j ||
		    e1[ENV_EDGES - 1].t <= e0[0].t)
			return -EINVAL;
		/* the period from the outermost changes, then from the
		 * least late ones it picks, until they stay the same */
		p = (double)(e1[ENV_EDGES - 1].t - e0[0].t) /
		    (double)(e1[ENV_EDGES - 1].j - e0[0].j);
		for (k = 0; k < 4; k++) {
			b0 = least_late(e0, p, e0[0].j, e0[0].t);
			b1 = least_late(e1, p, e0[0].j, e0[0].t);
			if (e1[b1].j <= e0[b0].j || e1[b1].t <= e0[b0].t)
				return -EINVAL;
			p = (double)(e1[b1].t - e0[b0].t) /
			    (double)(e1[b1].j - e0[b0].j);
		}
		rate = 1e9 / p;
		span = e1[b1].t - e0[b0].t;
		want = 2.0 * (double)(e0[b0].gap + e1[b1].gap) * rate;
		if ((double)span >= want || span >= 5 * interval_ns)
			break;
		need = want < 5.0 * (double)interval_ns ? (uint64_t)want
							: 5 * interval_ns;
	}
	*hz = rate;
	return 0;
}

/* ---------------------------------------------------------------- cgroup */

int eng_env_blkcg(const char *text, size_t len, char *path, size_t plen,
		  int *v2)
{
	const char *s = text, *end = text + len, *v2_path = NULL;
	size_t v2_len = 0;

	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		const char *c1, *c2;

		if (!eol)
			eol = end;
		c1 = memchr(s, ':', (size_t)(eol - s));
		c2 = c1 ? memchr(c1 + 1, ':', (size_t)(eol - c1 - 1)) : NULL;
		if (c2 && c2 == c1 + 1 && c1 - s == 1 && *s == '0') {
			v2_path = c2 + 1;
			v2_len = (size_t)(eol - c2 - 1);
		} else if (c2) {
			/* "blkio" as one of the comma-separated names */
			const char *w = c1 + 1;

			while (w < c2) {
				const char *comma =
				    memchr(w, ',', (size_t)(c2 - w));
				const char *we = comma ? comma : c2;

				if (we - w == 5 && memcmp(w, "blkio", 5) == 0) {
					*v2 = 0;
					return copy_trim(c2 + 1,
							 (size_t)(eol - c2 - 1),
							 path, plen);
				}
				w = we + 1;
			}
		}
		s = eol + 1;
	}
	if (!v2_path)
		return -ENOENT;
	*v2 = 1;
	return copy_trim(v2_path, v2_len, path, plen);
}

/* "rbps=V" among the words of [s, e): V into *value; -ENOENT for "max"
 * or no such word */
static int throttle_key(const char *s, const char *e, const char *key,
			uint64_t *value)
{
	size_t klen = strlen(key);

	while (s < e) {
		const char *w = s, *we;
		char num[32];
		char *end;

		while (w < e && *w == ' ')
			w++;
		we = w;
		while (we < e && *we != ' ')
			we++;
		if ((size_t)(we - w) > klen && memcmp(w, key, klen) == 0 &&
		    w[klen] == '=') {
			size_t n = (size_t)(we - w) - klen - 1;

			if (n == 3 && memcmp(w + klen + 1, "max", 3) == 0)
				return -ENOENT;
			if (n == 0 || n >= sizeof(num))
				return -EINVAL;
			memcpy(num, w + klen + 1, n);
			num[n] = '\0';
			errno = 0;
			*value = strtoull(num, &end, 10);
			if (errno || *end || num[0] == '-')
				return -EINVAL;
			return 0;
		}
		s = we;
	}
	return -ENOENT;
}

/* v1's " VALUE" after MAJ:MIN */
static int throttle_v1(const char *v, uint64_t *value)
{
	char *end;

	while (*v == ' ')
		v++;
	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	*value = strtoull(v, &end, 10);
	if (errno || (*end && *end != ' '))
		return -EINVAL;
	return 0;
}

int eng_env_throttle(const char *text, size_t len, unsigned major,
		     unsigned minor, const char *key, uint64_t *value)
{
	const char *s = text, *end = text + len;

	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		unsigned ma, mi;
		int used = 0;
		char line[256];
		size_t n;

		if (!eol)
			eol = end;
		n = (size_t)(eol - s);
		if (n >= sizeof(line))
			return -EINVAL;
		memcpy(line, s, n);
		line[n] = '\0';
		s = eol + 1;
		if (!line[0])
			continue;
		if (sscanf(line, "%u:%u%n", &ma, &mi, &used) != 2)
			return -EINVAL;
		if (ma != major || mi != minor)
			continue;
		if (key)
			return throttle_key(line + used, line + n, key, value);
		return throttle_v1(line + used, value);
	}
	return -ENOENT;
}

int eng_env_proc_start(const char *text, size_t len, uint64_t *start)
{
	size_t i = len, f;
	uint64_t v = 0;
	int digits = 0;

	/* the fields after the command's last ")": the command may hold
	 * ") " itself */
	while (i > 0 && text[i - 1] != ')')
		i--;
	if (i == 0)
		return -EINVAL;
	/* starttime, field 22, after the 20th space past the ")" */
	for (f = 0; i < len && f < 20; i++)
		if (text[i] == ' ')
			f++;
	for (; f == 20 && i < len && text[i] >= '0' && text[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(text[i] - '0');
		digits = 1;
	}
	if (!digits)
		return -EINVAL;
	*start = v;
	return 0;
}
