/* SPDX-License-Identifier: MIT */
/*
 * The seeded random streams (rng.c) of the generator and of fault
 * injection: xoshiro256** seeded through splitmix64.  Same seed, same bytes,
 * on every machine: generated media and injected faults are reproducible.
 */
#ifndef ENG_RNG_H
#define ENG_RNG_H

#include <stddef.h>
#include <stdint.h>

/* A fast seeded PRNG (splitmix64 seeding xoshiro256**). */
struct eng_rng {
	uint64_t s[4];
};
void eng_rng_seed(struct eng_rng *r, uint64_t seed);
uint64_t eng_rng_next(struct eng_rng *r);
/* Uniform integer in [lo, hi] (inclusive). */
uint64_t eng_rng_range(struct eng_rng *r, uint64_t lo, uint64_t hi);
/* Fill buf with pseudo-random bytes (never long runs of zeros). */
void eng_rng_fill(struct eng_rng *r, void *buf, size_t len);

/* Streams: eng_rng_next() is xoshiro256**, seeded by eng_rng_seed()
 * through splitmix64.  eng_rng_fill() stores each 64-bit output
 * little-endian, replacing an all-zero word by a fixed non-zero one, so no
 * run of zero bytes is longer than 14; filling a then b bytes (a a multiple
 * of 8) gives the same bytes as filling a + b; a tail shorter than 8 takes
 * the low bytes of one more output. */

/* One well-mixed seed from (seed, a, b), for independent streams: the CLI
 * uses (seed, clip, track) per clip file (track 0 = V, t = At) and
 * (seed, ENG_GEN_TIMELINE_DOMAIN | timeline, 0) per timeline plan. */
uint64_t eng_rng_derive(uint64_t seed, uint64_t a, uint64_t b);

#endif /* ENG_RNG_H */
