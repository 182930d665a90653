/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/hosts/ (issue 24, many hosts): the clock offset
 * from ping-pong samples and the common axis (clock.c), the share of a
 * step and the stragglers (share.c), the find-max search and a step's
 * verdict by the causes of its late frames (findmax.c), on made-up
 * samples and verdicts.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "hosts/hosts.h"
#include "util/rng.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define MS 1000000LL
#define US 1000LL
#define SEC 1000000000LL

static int64_t abs64(int64_t v)
{
	return v < 0 ? -v : v;
}

/* ------------------------------------------------------------ clock.c */

/* One exchange: rank 0 sends at t_send, the request takes `out` ns, the
 * host reads its clock (true time + offset), the answer takes `back` ns. */
static struct eng_clock_sample exchange(int64_t t_send, int64_t out,
					int64_t back, int64_t offset)
{
	return (struct eng_clock_sample){
	    .t_send = t_send,
	    .t_host = t_send + out + offset,
	    .t_recv = t_send + out + back,
	};
}

static void test_offset_one(void **state)
{
	struct eng_clock_sample s =
	    exchange(1000 * SEC, 50 * US, 50 * US, -7 * MS);
	int64_t off = 1, rtt = 1;

	(void)state;
	assert_int_equal(eng_clock_offset(&s, 1, &off, &rtt), 0);
	assert_int_equal(off, -7 * MS); /* symmetric: exact */
	assert_int_equal(rtt, 100 * US);
}

/* An injected offset of +2.5 s, 16 rounds with jittered, asymmetric
 * delays: the sample with the shortest round trip is the one taken, and
 * its error is within half its round trip (NTP's bound). */
static void test_offset_jitter(void **state)
{
	const int64_t offset = 2500 * MS;
	struct eng_clock_sample s[16];
	struct eng_rng r;
	int64_t off, rtt, min_rtt = INT64_MAX, min_off = 0;
	int64_t t = 1700000000LL * SEC;
	unsigned seed;
	size_t i;

	(void)state;
	for (seed = 1; seed <= 50; seed++) {
		eng_rng_seed(&r, seed);
		min_rtt = INT64_MAX;
		for (i = 0; i < N(s); i++) {
			/* out 20 us .. 5 ms, back 20 us .. 20 ms: a
			 * congested return path, unlike the way out */
			int64_t out =
			    20 * US + (int64_t)(eng_rng_next(&r) % (5 * MS));
			int64_t back =
			    20 * US + (int64_t)(eng_rng_next(&r) % (20 * MS));

			s[i] = exchange(t, out, back, offset);
			if (out + back < min_rtt) {
				min_rtt = out + back;
				min_off = s[i].t_host - s[i].t_send -
					  (out + back) / 2;
			}
			t += 10 * MS + out + back;
		}
		assert_int_equal(eng_clock_offset(s, N(s), &off, &rtt), 0);
		assert_int_equal(rtt, min_rtt);
		assert_int_equal(off, min_off);
		assert_true(abs64(off - offset) <= rtt / 2 + 1);
	}
}

/* The shortest round trip wins even when it is not the most symmetric: a
 * 1 ms round trip all on the way out errs by 0.5 ms, and is taken over a
 * symmetric 3 ms one (exact). */
static void test_offset_min_rtt(void **state)
{
	struct eng_clock_sample s[] = {
	    exchange(10 * SEC, 1500 * US, 1500 * US, 2500 * MS),
	    exchange(11 * SEC, 1 * MS, 0, 2500 * MS),
	    exchange(12 * SEC, 2 * MS, 2 * MS, 2500 * MS),
	};
	int64_t off, rtt;

	(void)state;
	assert_int_equal(eng_clock_offset(s, N(s), &off, &rtt), 0);
	assert_int_equal(rtt, 1 * MS);
	assert_int_equal(off, 2500 * MS + 500 * US);
}

static void test_offset_invalid(void **state)
{
	struct eng_clock_sample bad[] = {
	    {.t_send = 100, .t_host = 50, .t_recv = 99},
	    {.t_send = INT64_MAX, .t_host = 0, .t_recv = INT64_MAX - 1},
	    /* a round trip past int64_t: garbage, not a wrap */
	    {.t_send = INT64_MIN, .t_host = 0, .t_recv = INT64_MAX},
	};
	struct eng_clock_sample mixed[] = {
	    {.t_send = 100, .t_host = 5000, .t_recv = 90},
	    {.t_send = 200, .t_host = 5000, .t_recv = 230},
	    {.t_send = 300, .t_host = 5000, .t_recv = 299},
	};
	/* negative times are still times: only the order matters */
	struct eng_clock_sample neg = {-1000, -400, -800};
	int64_t off = 42, rtt = 43;

	(void)state;
	assert_int_equal(eng_clock_offset(bad, N(bad), &off, &rtt), -EINVAL);
	assert_int_equal(off, 42); /* untouched */
	assert_int_equal(rtt, 43);
	assert_int_equal(eng_clock_offset(bad, 0, &off, &rtt), -EINVAL);
	assert_int_equal(eng_clock_offset(NULL, 0, &off, &rtt), -EINVAL);
	assert_int_equal(eng_clock_offset(mixed, N(mixed), &off, &rtt), 0);
	assert_int_equal(rtt, 30);
	assert_int_equal(off, 5000 - 215);
	assert_int_equal(eng_clock_offset(&neg, 1, &off, &rtt), 0);
	assert_int_equal(rtt, 200);
	assert_int_equal(off, -400 - (-900));
	/* a zero round trip is a sample (same clock, coarse reads) */
	{
		struct eng_clock_sample z = {5, 9, 5};

		assert_int_equal(eng_clock_offset(&z, 1, &off, &rtt), 0);
		assert_int_equal(rtt, 0);
		assert_int_equal(off, 4);
	}
	/* near INT64_MAX the midpoint does not overflow */
	{
		struct eng_clock_sample h = {INT64_MAX - 10, INT64_MAX - 5,
					     INT64_MAX};

		assert_int_equal(eng_clock_offset(&h, 1, &off, &rtt), 0);
		assert_int_equal(rtt, 10);
		assert_int_equal(off, 0);
	}
}

/* A host whose offset drifts from +2.5 s to +2.5 s + 3 ms over an hour. */
static const struct eng_clock_line DRIFT = {
    .t_start = 1700000000LL * SEC,
    .offset_start = 2500 * MS,
    .t_end = 1700000000LL * SEC + 3600 * SEC,
    .offset_end = 2503 * MS,
    .has_end = 1,
};

static void test_axis(void **state)
{
	struct eng_clock_line l = DRIFT, dead = DRIFT, back = DRIFT,
			      flat = DRIFT;
	int64_t ts = l.t_start, te = l.t_end;

	(void)state;
	/* the ends and outside them: the nearer one's offset */
	assert_int_equal(eng_clock_axis(&l, ts), ts - 2500 * MS);
	assert_int_equal(eng_clock_axis(&l, te), te - 2503 * MS);
	assert_int_equal(eng_clock_axis(&l, ts - 100 * SEC),
			 ts - 100 * SEC - 2500 * MS);
	assert_int_equal(eng_clock_axis(&l, te + 100 * SEC),
			 te + 100 * SEC - 2503 * MS);
	/* between: linear (a 128-bit product: 3 ms * 1800 s) */
	assert_int_equal(eng_clock_axis(&l, ts + 1800 * SEC),
			 ts + 1800 * SEC - 2501500 * US);
	assert_int_equal(eng_clock_axis(&l, ts + 1200 * SEC),
			 ts + 1200 * SEC - 2501 * MS);
	/* a drift the other way */
	back.offset_end = 2497 * MS;
	assert_int_equal(eng_clock_axis(&back, ts + 1800 * SEC),
			 ts + 1800 * SEC - 2498500 * US);
	/* no end (a host that died): the start's offset everywhere */
	dead.has_end = 0;
	dead.t_end = 0;
	dead.offset_end = 999 * SEC;
	assert_int_equal(eng_clock_axis(&dead, ts + 1800 * SEC),
			 ts + 1800 * SEC - 2500 * MS);
	assert_int_equal(eng_clock_axis(&dead, te + 1800 * SEC),
			 te + 1800 * SEC - 2500 * MS);
	/* an end at the start: the start's offset, no division by 0 */
	flat.t_end = flat.t_start;
	assert_int_equal(eng_clock_axis(&flat, ts + SEC), ts + SEC - 2500 * MS);
	/* a negative offset (the host behind rank 0) */
	l.offset_start = -40 * MS;
	l.offset_end = -20 * MS;
	assert_int_equal(eng_clock_axis(&l, ts + 1800 * SEC),
			 ts + 1800 * SEC + 30 * MS);
}

/* eng_clock_local is eng_clock_axis's inverse, to the ns of rounding. */
static void test_local_roundtrip(void **state)
{
	struct eng_clock_line lines[4] = {DRIFT, DRIFT, DRIFT, DRIFT};
	struct eng_rng r;
	size_t i, k;

	(void)state;
	lines[1].offset_end = 2497 * MS;
	lines[2].has_end = 0;
	lines[3].offset_start = -3 * SEC;
	lines[3].offset_end = 4 * SEC; /* 7 s in an hour: absurd, exact */
	eng_rng_seed(&r, 24);
	for (k = 0; k < N(lines); k++) {
		const struct eng_clock_line *l = &lines[k];

		for (i = 0; i < 2000; i++) {
			/* rank 0's times from 10 min before to 10 min
			 * after the host's measurements */
			int64_t t0 = l->t_start - 600 * SEC +
				     (int64_t)(eng_rng_next(&r) %
					       (uint64_t)(4800 * SEC));
			int64_t t = eng_clock_local(l, t0);

			assert_true(abs64(eng_clock_axis(l, t) - t0) <= 1);
		}
		/* and the pieces' corners */
		assert_int_equal(
		    eng_clock_local(l, l->t_start - l->offset_start),
		    l->t_start);
		if (l->has_end)
			assert_int_equal(
			    eng_clock_local(l, l->t_end - l->offset_end),
			    l->t_end);
	}
	/* a step at rank 0's t0 starts on a host 2.5 s ahead at t0 + 2.5 s */
	assert_int_equal(eng_clock_local(&lines[2], 1800000000LL * SEC),
			 1800000000LL * SEC + 2500 * MS);
}

/* ------------------------------------------------------------ share.c */

static void test_share(void **state)
{
	unsigned total, live, k, sum, s, lo, hi;

	(void)state;
	for (total = 0; total <= 300; total++) {
		for (live = 1; live <= 40; live++) {
			sum = 0;
			lo = ~0u;
			hi = 0;
			for (k = 0; k < live; k++) {
				s = eng_hosts_share(total, live, k);
				sum += s;
				lo = s < lo ? s : lo;
				hi = s > hi ? s : hi;
				/* the first ones get the remainder */
				if (k > 0)
					assert_true(s <=
						    eng_hosts_share(total, live,
								    k - 1));
			}
			assert_int_equal(sum, total);
			assert_true(hi - lo <= 1);
			/* a host past the live ones plays nothing */
			assert_int_equal(eng_hosts_share(total, live, live), 0);
		}
		assert_int_equal(eng_hosts_share(total, 0, 0), 0);
	}
	assert_int_equal(eng_hosts_share(10, 3, 0), 4);
	assert_int_equal(eng_hosts_share(10, 3, 1), 3);
	assert_int_equal(eng_hosts_share(10, 3, 2), 3);
	assert_int_equal(eng_hosts_share(2, 3, 2), 0);
	assert_int_equal(eng_hosts_share(UINT32_MAX, 1, 0), UINT32_MAX);
}

struct strag_case {
	const char *what;
	size_t n;
	int64_t start[6], end[6];
	int played[6];
	int64_t min_ns;
	double frac;
	unsigned count;
	int straggle[6];
	int64_t lag[6];
};

static void test_stragglers(void **state)
{
	static const struct strag_case cases[] = {
	    {"one host: never its own straggler",
	     1,
	     {0},
	     {60 * SEC},
	     {1},
	     100 * MS,
	     0.05,
	     0,
	     {0},
	     {0}},
	    {"two hosts: the later one against the earlier",
	     2,
	     {0, 0},
	     {60 * SEC, 64 * SEC},
	     {1, 1},
	     100 * MS,
	     0.05,
	     1,
	     {0, 1},
	     {0, 4 * SEC}},
	    {"two hosts within the margin (5 % of 60 s)",
	     2,
	     {0, 0},
	     {60 * SEC, 62 * SEC},
	     {1, 1},
	     100 * MS,
	     0.05,
	     0,
	     {0, 0},
	     {0, 2 * SEC}},
	    {"three hosts, one late",
	     3,
	     {0, 0, 0},
	     {61 * SEC, 60 * SEC, 70 * SEC},
	     {1, 1, 1},
	     100 * MS,
	     0.05,
	     1,
	     {0, 0, 1},
	     {0, -1 * SEC, 9 * SEC}},
	    {"odd: five, two late (the median holds)",
	     5,
	     {0, 0, 0, 0, 0},
	     {80 * SEC, 60 * SEC, 61 * SEC, 90 * SEC, 60 * SEC},
	     {1, 1, 1, 1, 1},
	     100 * MS,
	     0.05,
	     2,
	     {1, 0, 0, 1, 0},
	     {19 * SEC, -1 * SEC, 0, 29 * SEC, -1 * SEC}},
	    {"even: four, the lower median",
	     4,
	     {0, 0, 0, 0},
	     {60 * SEC, 70 * SEC, 61 * SEC, 75 * SEC},
	     {1, 1, 1, 1},
	     100 * MS,
	     0.05,
	     2,
	     {0, 1, 0, 1},
	     {-1 * SEC, 9 * SEC, 0, 14 * SEC}},
	    {"a host that played nothing is left out",
	     3,
	     {0, 0, 0},
	     {60 * SEC, 0, 65 * SEC},
	     {1, 0, 1},
	     100 * MS,
	     0.05,
	     1,
	     {0, 0, 1},
	     {0, 0, 5 * SEC}},
	    {"nobody played",
	     2,
	     {0, 0},
	     {5, 6},
	     {0, 0},
	     0,
	     0.05,
	     0,
	     {0, 0},
	     {0, 0}},
	    {"short steps: the minimum (100 ms), not 5 % (55 ms)",
	     4,
	     {0, 0, 0, 0},
	     {1 * SEC, 1 * SEC + 90 * MS, 1 * SEC + 170 * MS,
	      1 * SEC + 250 * MS},
	     {1, 1, 1, 1},
	     100 * MS,
	     0.05,
	     1,
	     {0, 0, 0, 1},
	     {-90 * MS, 0, 80 * MS, 160 * MS}},
	    {"a later start, the same step time: a straggler all the same",
	     2,
	     {0, 5 * SEC},
	     {60 * SEC, 65 * SEC},
	     {1, 1},
	     100 * MS,
	     0.05,
	     1,
	     {0, 1},
	     {0, 5 * SEC}},
	    {"negative margin and fraction are none: later at all",
	     2,
	     {0, 0},
	     {60 * SEC, 60 * SEC + 1},
	     {1, 1},
	     -5,
	     -1.0,
	     1,
	     {0, 1},
	     {0, 1}},
	    {"equal ends: nobody",
	     3,
	     {0, 0, 0},
	     {9, 9, 9},
	     {1, 1, 1},
	     0,
	     0,
	     0,
	     {0, 0, 0},
	     {0, 0, 0}},
	};
	size_t i, j;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		const struct strag_case *c = &cases[i];
		int straggle[6];
		int64_t lag[6];
		unsigned got;

		memset(straggle, 0x55, sizeof(straggle));
		memset(lag, 0x55, sizeof(lag));
		got = eng_hosts_stragglers(c->start, c->end, c->played, c->n,
					   c->min_ns, c->frac, straggle, lag);
		if (got != c->count)
			fail_msg("%s: %u stragglers, expected %u", c->what, got,
				 c->count);
		for (j = 0; j < c->n; j++) {
			if (straggle[j] != c->straggle[j] ||
			    lag[j] != c->lag[j])
				fail_msg("%s: host %zu straggle %d lag %lld, "
					 "expected %d %lld",
					 c->what, j, straggle[j],
					 (long long)lag[j], c->straggle[j],
					 (long long)c->lag[j]);
		}
		/* lag_ns may be NULL */
		assert_int_equal(
		    eng_hosts_stragglers(c->start, c->end, c->played, c->n,
					 c->min_ns, c->frac, straggle, NULL),
		    c->count);
	}
	assert_int_equal(
	    eng_hosts_stragglers(NULL, NULL, NULL, 0, 0, 0, NULL, NULL), 0);
}

/* ------------------------------------------------------------ findmax.c */

/* The search against a system that plays every count up to `limit` and
 * fails above it; the bracket it ends with and how many probes it took. */
static void run_findmax(unsigned from, unsigned cap, unsigned limit,
			unsigned *lo, unsigned *hi, unsigned *probes)
{
	struct eng_findmax f;
	unsigned count, seen_pass = 0, steps = 0;

	assert_int_equal(eng_findmax_init(&f, from, cap), 0);
	assert_int_equal(eng_findmax_next(&f), from);
	assert_int_equal(eng_findmax_bracket(&f, NULL, NULL), 0);
	while ((count = eng_findmax_next(&f)) != 0) {
		assert_true(count >= 1 && count <= cap);
		/* never a count known already: above a failure, at or
		 * below a pass */
		assert_true(f.hi == 0 || count < f.hi);
		assert_true(count > seen_pass || seen_pass == 0);
		/* a count other than the next one is refused, unchanged */
		assert_int_equal(eng_findmax_result(&f, count + 1, 1), -EINVAL);
		assert_int_equal(eng_findmax_result(&f, count, count <= limit),
				 0);
		if (count <= limit)
			seen_pass = count;
		assert_true(++steps <= 200);
	}
	assert_int_equal(eng_findmax_bracket(&f, lo, hi), 1);
	/* done: no more verdicts */
	assert_int_equal(eng_findmax_result(&f, 0, 1), -EINVAL);
	assert_int_equal(eng_findmax_result(&f, *lo ? *lo : 1, 1), -EINVAL);
	*probes = f.probes;
	assert_int_equal(f.probes, steps);
}

static unsigned log2_ceil(unsigned v)
{
	unsigned b = 0;

	while ((1u << b) < v)
		b++;
	return b;
}

static void test_findmax_limits(void **state)
{
	static const unsigned froms[] = {1, 3, 8};
	static const unsigned caps[] = {1,   2,	  7,   8,   50,
					100, 199, 200, 256, 1000};
	unsigned L, fi, ci, lo, hi, probes, from, cap;

	(void)state;
	for (L = 0; L <= 200; L++) {
		for (fi = 0; fi < N(froms); fi++) {
			for (ci = 0; ci < N(caps); ci++) {
				from = froms[fi];
				cap = caps[ci];
				if (cap < from)
					continue;
				run_findmax(from, cap, L, &lo, &hi, &probes);
				if (cap <= L) {
					/* even the cap played */
					assert_int_equal(lo, cap);
					assert_int_equal(hi, 0);
				} else {
					assert_int_equal(lo, L);
					assert_int_equal(hi, L + 1);
				}
				/* doubling then bisecting: logarithmic */
				if (probes > 2 * log2_ceil(cap) + 2)
					fail_msg("from %u cap %u limit %u: "
						 "%u probes",
						 from, cap, L, probes);
			}
		}
	}
}

static void test_findmax_cases(void **state)
{
	struct eng_findmax f;
	unsigned lo = 9, hi = 9;

	(void)state;
	/* the exact sequence: from 3, limit 20, cap 100 */
	{
		static const unsigned seq[] = {3, 6, 12, 24, 18, 21, 19, 20};
		size_t i;

		assert_int_equal(eng_findmax_init(&f, 3, 100), 0);
		for (i = 0; i < N(seq); i++) {
			assert_int_equal(eng_findmax_next(&f), seq[i]);
			assert_int_equal(
			    eng_findmax_result(&f, seq[i], seq[i] <= 20), 0);
		}
		assert_int_equal(eng_findmax_next(&f), 0);
		assert_int_equal(eng_findmax_bracket(&f, &lo, &hi), 1);
		assert_int_equal(lo, 20);
		assert_int_equal(hi, 21);
		assert_int_equal(f.probes, N(seq));
	}
	/* the cap when doubling would pass it */
	assert_int_equal(eng_findmax_init(&f, 3, 10), 0);
	assert_int_equal(eng_findmax_result(&f, 3, 1), 0);
	assert_int_equal(eng_findmax_next(&f), 6);
	assert_int_equal(eng_findmax_result(&f, 6, 1), 0);
	assert_int_equal(eng_findmax_next(&f), 10);
	assert_int_equal(eng_findmax_result(&f, 10, 1), 0);
	assert_int_equal(eng_findmax_bracket(&f, &lo, &hi), 1);
	assert_int_equal(lo, 10);
	assert_int_equal(hi, 0);
	/* from = cap = 1, failing: not even 1 */
	assert_int_equal(eng_findmax_init(&f, 1, 1), 0);
	assert_int_equal(eng_findmax_result(&f, 1, 0), 0);
	assert_int_equal(eng_findmax_bracket(&f, &lo, &hi), 1);
	assert_int_equal(lo, 0);
	assert_int_equal(hi, 1);
	/* a large cap does not overflow the doubling */
	assert_int_equal(eng_findmax_init(&f, UINT32_MAX / 2 + 1, UINT32_MAX),
			 0);
	assert_int_equal(eng_findmax_result(&f, UINT32_MAX / 2 + 1, 1), 0);
	assert_int_equal(eng_findmax_next(&f), UINT32_MAX);
	/* a partial bracket before the end */
	assert_int_equal(eng_findmax_init(&f, 4, 64), 0);
	assert_int_equal(eng_findmax_result(&f, 4, 1), 0);
	assert_int_equal(eng_findmax_bracket(&f, &lo, &hi), 0);
	assert_int_equal(lo, 4);
	assert_int_equal(hi, 0);
}

static void test_findmax_einval(void **state)
{
	struct eng_findmax f = {0};

	(void)state;
	assert_int_equal(eng_findmax_init(&f, 0, 10), -EINVAL);
	assert_int_equal(eng_findmax_init(&f, 5, 4), -EINVAL);
	assert_int_equal(eng_findmax_init(NULL, 1, 4), -EINVAL);
	assert_int_equal(eng_findmax_result(NULL, 1, 1), -EINVAL);
	assert_int_equal(eng_findmax_next(NULL), 0);
	assert_int_equal(eng_findmax_init(&f, 2, 4), 0);
	assert_int_equal(eng_findmax_result(&f, 1, 1), -EINVAL);
	assert_int_equal(eng_findmax_result(&f, 4, 1), -EINVAL);
	assert_int_equal(eng_findmax_result(&f, 0, 1), -EINVAL);
	/* the refused verdicts changed nothing */
	assert_int_equal(f.probes, 0);
	assert_int_equal(f.lo, 0);
	assert_int_equal(f.hi, 0);
	assert_int_equal(eng_findmax_next(&f), 2);
}

/* --late-causes: "all", or names each once; anything else refused with
 * the mask untouched; the text says it back as parsed. */
static void test_late_causes_parse(void **state)
{
	static const struct {
		const char *in;
		int rc;
		unsigned mask;
		const char *text;
	} cases[] = {
	    {"all", 0, ENG_CAUSES_ALL, "all"},
	    {"storage", 0, 1u << ENG_CAUSE_STORAGE, "storage"},
	    {"timer,storage", 0,
	     1u << ENG_CAUSE_STORAGE | 1u << ENG_CAUSE_TIMER, "storage,timer"},
	    {"storage,issue,timer,reader,recording,writer", 0, ENG_CAUSES_ALL,
	     "all"},
	    {"writer,recording", 0,
	     1u << ENG_CAUSE_RECORDING | 1u << ENG_CAUSE_WRITER,
	     "recording,writer"},
	    {"", -EINVAL, 0, NULL},
	    {"disk", -EINVAL, 0, NULL},
	    {"storage,", -EINVAL, 0, NULL},
	    {",storage", -EINVAL, 0, NULL},
	    {"storage,,timer", -EINVAL, 0, NULL},
	    {"storage,storage", -EINVAL, 0, NULL},
	    {"all,storage", -EINVAL, 0, NULL},
	    {"Storage", -EINVAL, 0, NULL},
	    {"stor", -EINVAL, 0, NULL},
	    {"storages", -EINVAL, 0, NULL},
	};
	char buf[64];
	unsigned mask;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		mask = 0xdead;
		assert_int_equal(eng_late_causes_parse(cases[i].in, &mask),
				 cases[i].rc);
		if (cases[i].rc) {
			assert_int_equal(mask, 0xdead);
			continue;
		}
		assert_int_equal(mask, cases[i].mask);
		assert_int_equal(eng_late_causes_text(mask, buf, sizeof(buf)),
				 (int)strlen(cases[i].text));
		assert_string_equal(buf, cases[i].text);
	}
	assert_int_equal(eng_late_causes_parse(NULL, &mask), -EINVAL);
	/* a short buffer: cut, ended, the whole length returned */
	assert_int_equal(eng_late_causes_text(1u << ENG_CAUSE_STORAGE |
						  1u << ENG_CAUSE_TIMER,
					      buf, 6),
			 13);
	assert_string_equal(buf, "stora");
	assert_int_equal(eng_late_causes_text(0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

/* A step's verdict by causes: the late frames of the causes judged fail
 * it, the others are counted; a late frame late_frame gives no cause is
 * judged; dropped and failed frames fail it whatever the causes; all
 * causes is the plain late count, by_cause unread. */
static void test_findmax_judge(void **state)
{
	const unsigned st = 1u << ENG_CAUSE_STORAGE;
	static const struct {
		const char *what;
		int64_t late, by[ENG_CAUSE_N], dropped, failed;
		unsigned mask;
		int passed;
		int64_t judged, other;
	} cases[] = {
	    /* late: storage issue timer reader recording writer */
	    {"none late", 0, {0}, 0, 0, 1u << ENG_CAUSE_STORAGE, 1, 0, 0},
	    {"issue and timer only, storage judged", 7, {0, 4, 3}, 0, 0,
	     1u << ENG_CAUSE_STORAGE, 1, 0, 7},
	    {"one of storage", 8, {1, 4, 3}, 0, 0, 1u << ENG_CAUSE_STORAGE,
	     0, 1, 7},
	    {"issue judged too", 7, {0, 4, 3}, 0, 0,
	     1u << ENG_CAUSE_STORAGE | 1u << ENG_CAUSE_ISSUE, 0, 4, 3},
	    {"two without a cause", 9, {0, 4, 3}, 0, 0,
	     1u << ENG_CAUSE_STORAGE, 0, 2, 7},
	    {"dropped fail it", 3, {0, 0, 0, 3}, 1, 0,
	     1u << ENG_CAUSE_STORAGE, 0, 0, 3},
	    {"failed fail it", 0, {0}, 0, 2, 1u << ENG_CAUSE_STORAGE, 0, 0,
	     0},
	    {"all: the late count", 5, {0}, 0, 0, ENG_CAUSES_ALL, 0, 5, 0},
	    {"all: by_cause not read", 0, {9, 9}, 0, 0, ENG_CAUSES_ALL, 1, 0,
	     0},
	    {"all: failed", 0, {0}, 0, 1, ENG_CAUSES_ALL, 0, 0, 0},
	};
	struct eng_step_late s;
	int64_t judged, other;
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		memset(&s, 0, sizeof(s));
		s.late = cases[i].late;
		memcpy(s.by_cause, cases[i].by, sizeof(s.by_cause));
		s.dropped = cases[i].dropped;
		s.failed = cases[i].failed;
		judged = other = -1;
		print_message("%s\n", cases[i].what);
		assert_int_equal(eng_findmax_judge(&s, cases[i].mask, &judged,
						   &other),
				 cases[i].passed);
		assert_int_equal(judged, cases[i].judged);
		assert_int_equal(other, cases[i].other);
	}
	/* other may be NULL */
	memset(&s, 0, sizeof(s));
	s.late = 2;
	s.by_cause[ENG_CAUSE_TIMER] = 2;
	assert_int_equal(eng_findmax_judge(&s, st, &judged, NULL), 1);
	assert_int_equal(judged, 0);
}

/* A text field from another rank: one that fills its size without a NUL
 * (read past by %s before) ends within it; control characters blank; a
 * plain one is kept as it is. */
static void test_text(void **state)
{
	static const struct {
		const char *in;
		size_t size;
		const char *want;
	} cases[] = {
	    {"vm", 8, "vm"},
	    {"abcdefgh", 8, "abcdefg"},
	    {"a\nb\tc\033d", 16, "a b c d"},
	    {"del\177x", 8, "del x"},
	    {"", 4, ""},
	};
	char buf[16];
	size_t i;

	(void)state;
	for (i = 0; i < N(cases); i++) {
		memset(buf, 'Z', sizeof(buf));
		memcpy(buf, cases[i].in,
		       strlen(cases[i].in) < cases[i].size
			   ? strlen(cases[i].in) + 1
			   : cases[i].size);
		eng_hosts_text(buf, cases[i].size);
		assert_string_equal(buf, cases[i].want);
		assert_true(strlen(buf) < cases[i].size);
	}
	/* size 0: nothing written */
	buf[0] = 'Q';
	eng_hosts_text(buf, 0);
	assert_int_equal(buf[0], 'Q');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_offset_one),
	    cmocka_unit_test(test_offset_jitter),
	    cmocka_unit_test(test_offset_min_rtt),
	    cmocka_unit_test(test_offset_invalid),
	    cmocka_unit_test(test_axis),
	    cmocka_unit_test(test_local_roundtrip),
	    cmocka_unit_test(test_share),
	    cmocka_unit_test(test_stragglers),
	    cmocka_unit_test(test_findmax_limits),
	    cmocka_unit_test(test_findmax_cases),
	    cmocka_unit_test(test_findmax_einval),
	    cmocka_unit_test(test_late_causes_parse),
	    cmocka_unit_test(test_findmax_judge),
	    cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
