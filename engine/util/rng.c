/* SPDX-License-Identifier: MIT */
/*
 * Seeded random streams: splitmix64 seeding xoshiro256**, reproducible on
 * every machine (util/rng.h says what a stream is).
 */
#include <stdint.h>
#include <string.h>

#include "util/rng.h"

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

void eng_rng_seed(struct eng_rng *r, uint64_t seed)
{
	uint64_t x = seed;
	int i;

	/* splitmix64 never yields four zero words in a row, so the
	 * xoshiro state is never the forbidden all-zero one. */
	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

uint64_t eng_rng_derive(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t x = seed;

	/* Chain through splitmix64 so that nearby (a, b) give unrelated
	 * seeds; xor alone would make (1, 2) and (2, 1) collide. */
	x = splitmix64(&x) ^ a;
	x = splitmix64(&x) ^ b;
	return splitmix64(&x);
}

static inline uint64_t xoshiro_next(uint64_t *s)
{
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t eng_rng_next(struct eng_rng *r)
{
	return xoshiro_next(r->s);
}

uint64_t eng_rng_range(struct eng_rng *r, uint64_t lo, uint64_t hi)
{
	uint64_t span, limit, x;

	if (hi <= lo)
		return lo;
	span = hi - lo + 1;
	if (span == 0) /* the whole 64-bit range */
		return eng_rng_next(r);
	/* Reject the top partial block so every value is equally likely. */
	limit = -span % span;
	do
		x = eng_rng_next(r);
	while (x < limit);
	return lo + x % span;
}

static inline void store_le64(unsigned char *p, uint64_t w)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	memcpy(p, &w, 8);
}

void eng_rng_fill(struct eng_rng *r, void *buf, size_t len)
{
	unsigned char *p = buf;
	uint64_t s[4], w;
	size_t i, n = len / 8;

	/* A local copy of the state lets the compiler keep it in
	 * registers: this loop is what bounds the generator's speed. */
	memcpy(s, r->s, sizeof(s));
	for (i = 0; i < n; i++, p += 8) {
		w = xoshiro_next(s);
		if (!w)
			w = 0x9e3779b97f4a7c15ULL;
		store_le64(p, w);
	}
	if (len % 8) {
		unsigned char tail[8];

		w = xoshiro_next(s);
		if (!w)
			w = 0x9e3779b97f4a7c15ULL;
		store_le64(tail, w);
		memcpy(p, tail, len % 8);
	}
	memcpy(r->s, s, sizeof(s));
}
