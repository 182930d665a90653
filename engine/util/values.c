/* SPDX-License-Identifier: MIT */
/*
 * Value parsing shared by the timeline parsers, the mount options and the
 * generator: frame rates, byte sizes, integers, pace and backing modes, hex
 * digits, the lines of a text.
 * Strict: no leading blanks, no signs, no trailing junk.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/values.h"

int eng_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Digits only, at least one, value <= max.  Sets *end past the digits. */
static int parse_u64_prefix(const char *s, uint64_t max, uint64_t *out,
			    const char **end)
{
	uint64_t v = 0;
	const char *p = s;

	if (!eng_is_digit(*p))
		return -EINVAL;
	for (; eng_is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	*end = p;
	return 0;
}

int eng_parse_int(const char *s, int64_t *out)
{
	const char *end;
	uint64_t v;

	if (!s || parse_u64_prefix(s, INT64_MAX, &v, &end) < 0 || *end)
		return -EINVAL;
	*out = (int64_t)v;
	return 0;
}

int eng_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *end, *u;
	uint64_t v, mul = 1, base = 1000;
	int rc, i, pow;

	if (!s)
		return -EINVAL;
	rc = parse_u64_prefix(s, UINT64_MAX, &v, &end);
	if (rc < 0)
		return rc;
	if (*end && (u = strchr(units, *end == 'k' ? 'K' : *end)) != NULL) {
		pow = (int)(u - units) + 1;
		end++;
		if (*end == 'i') {
			base = 1024;
			end++;
		}
		for (i = 0; i < pow; i++)
			mul *= base;
	}
	if (*end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

uint64_t eng_gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* round(n / d), halves up. */
static uint64_t div_round(unsigned __int128 n, uint64_t d)
{
	return (uint64_t)((n + d / 2) / d);
}

/*
 * A decimal I / 10^d.  Broadcast rates are written rounded: 29.97 means
 * 30000/1001, 23.976 and 23.98 mean 24000/1001.  So a value with at least
 * two decimals that is N*1000/1001 rounded to those decimals, for an
 * integer N, is taken to be that; anything else is the exact fraction
 * (12.5 -> 25/2).  One decimal is too coarse to tell (119.9).
 */
static int fps_decimal(uint64_t ip, const char *frac, struct eng_fps *out)
{
	uint64_t scale = 1, i = ip, n, g, den;
	int d = 0;

	for (; eng_is_digit(*frac); frac++, d++) {
		if (d == 9)
			return -EINVAL; /* 10^d must fit a 32-bit denominator */
		scale *= 10;
		i = i * 10 + (uint64_t)(*frac - '0');
	}
	if (d == 0 || *frac)
		return -EINVAL;
	if (i == 0)
		return -EINVAL;
	/* i < 2^32 * 10^9 fits 64 bits; times 1001 it needs 128 */
	if (d >= 2 && i % scale != 0) {
		n = div_round((unsigned __int128)i * 1001, scale * 1000);
		if (n > 0 && n <= UINT32_MAX / 1000 &&
		    div_round((unsigned __int128)n * 1000 * scale, 1001) == i) {
			out->num = (uint32_t)(n * 1000);
			out->den = 1001;
			return 0;
		}
	}
	g = eng_gcd64(i, scale);
	n = i / g;
	den = scale / g;
	if (n > UINT32_MAX)
		return -EINVAL;
	out->num = (uint32_t)n;
	out->den = (uint32_t)den;
	return 0;
}

int eng_parse_fps(const char *s, struct eng_fps *out)
{
	const char *end;
	uint64_t n, d, g;

	if (!s || parse_u64_prefix(s, UINT32_MAX, &n, &end) < 0)
		return -EINVAL;
	if (*end == '.')
		return fps_decimal(n, end + 1, out);
	d = 1;
	if (*end == '/') {
		if (parse_u64_prefix(end + 1, UINT32_MAX, &d, &end) < 0)
			return -EINVAL;
	}
	if (*end || n == 0 || d == 0)
		return -EINVAL;
	g = eng_gcd64(n, d);
	out->num = (uint32_t)(n / g);
	out->den = (uint32_t)(d / g);
	return 0;
}

int eng_pace_parse(const char *s, struct eng_pace *out)
{
	const char *p;
	double v;
	int digits = 0, dots = 0;

	if (!s)
		return -EINVAL;
	if (strcmp(s, "realtime") == 0) {
		out->mode = ENG_PACE_REALTIME;
		out->speed = 1;
		return 0;
	}
	if (strcmp(s, "off") == 0) {
		out->mode = ENG_PACE_OFF;
		out->speed = 1;
		return 0;
	}
	/* Plain decimals only: strtod would also take "nan", "inf", hex and
	 * exponents, none of which a user means by a speed factor. */
	for (p = s; *p; p++) {
		if (eng_is_digit(*p))
			digits++;
		else if (*p == '.' && dots++ == 0)
			;
		else
			return -EINVAL;
	}
	if (!digits)
		return -EINVAL;
	v = strtod(s, NULL);
	if (!isfinite(v) || !(v > 0))
		return -EINVAL;
	out->mode = ENG_PACE_FACTOR;
	out->speed = v;
	return 0;
}

int eng_backing_parse(const char *s, enum eng_backing *out)
{
	static const struct {
		const char *name;
		enum eng_backing val;
	} names[] = {
		{ "direct", ENG_BACKING_DIRECT },
		{ "buffered", ENG_BACKING_BUFFERED },
		{ "dontneed", ENG_BACKING_DONTNEED },
	};
	size_t i;

	for (i = 0; s && i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i].name) == 0) {
			*out = names[i].val;
			return 0;
		}
	}
	return -EINVAL;
}

const char *eng_next_line(const char *text, size_t len, size_t *i, size_t *n)
{
	const char *line, *nl;

	if (*i >= len)
		return NULL;
	line = text + *i;
	nl = memchr(line, '\n', len - *i);
	*n = nl ? (size_t)(nl - line) : len - *i;
	*i += *n + 1;
	if (*n && line[*n - 1] == '\r')
		(*n)--;
	return line;
}
