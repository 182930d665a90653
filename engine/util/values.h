/* SPDX-License-Identifier: MIT */
/*
 * Value parsing shared by the parsers, the mount options and the generator
 * (values.c): frame rates, byte sizes, integers, pace and backing modes, hex
 * digits, text lines.
 * Strict: no leading blanks, no signs, no trailing junk; 0 or -EINVAL/-ERANGE.
 */
#ifndef ENG_VALUES_H
#define ENG_VALUES_H

#include <stddef.h>
#include <stdint.h>

#define ENG_NS_PER_SEC 1000000000ULL

struct eng_fps {
	uint32_t num;
	uint32_t den;
};

/* "30000/1001", "25", "29.97", "23.976", "59.94" (the NTSC decimals map to
 * N*1000/1001).  Returns 0 or -EINVAL. */
int eng_parse_fps(const char *s, struct eng_fps *out);

/* Byte counts and rates: "18000000", "18M" (powers of 1000: K M G T),
 * "18Mi" (powers of 1024: Ki Mi Gi Ti), optional trailing "B".
 * Returns 0, -EINVAL, or -ERANGE on overflow. */
int eng_parse_size(const char *s, uint64_t *out);

/* A non-negative decimal integer that fits in int64_t; 0 or -EINVAL. */
int eng_parse_int(const char *s, int64_t *out);

/* Greatest common divisor (Euclid); gcd(a, 0) = a, gcd(0, 0) = 0. */
uint64_t eng_gcd64(uint64_t a, uint64_t b);

/* The next line of text[*i..len): its start, its length without the line
 * end (LF or CRLF) in *n; NULL at the end.  For the /proc, /sys and config
 * texts of kconfig.c and env.c. */
const char *eng_next_line(const char *text, size_t len, size_t *i, size_t *n);

/* Whether c is a decimal digit: no locale, unlike isdigit(). */
static inline int eng_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* The value of hex digit c (0-9, a-f, A-F), or -1: the %XX escapes of
 * .tl clip words and of OTIO file URLs. */
int eng_hex_digit(char c);

enum eng_pace_mode {
	ENG_PACE_REALTIME,	/* speed 1 */
	ENG_PACE_FACTOR,	/* speed N */
	ENG_PACE_OFF,		/* no waiting; deadlines still at speed 1 */
};

struct eng_pace {
	enum eng_pace_mode mode;
	double speed;		/* 1 for realtime and off */
};

/* "realtime", "off" or a positive factor ("2", "0.5").  0 or -EINVAL. */
int eng_pace_parse(const char *s, struct eng_pace *out);

enum eng_backing {
	ENG_BACKING_DIRECT,	/* O_DIRECT through an aligned bounce buffer */
	ENG_BACKING_BUFFERED,
	ENG_BACKING_DONTNEED,	/* buffered, then POSIX_FADV_DONTNEED */
};

/* "direct", "buffered", "dontneed".  0 or -EINVAL. */
int eng_backing_parse(const char *s, enum eng_backing *out);

#endif /* ENG_VALUES_H */
