/* SPDX-License-Identifier: MIT */
/*
 * A host's clock offset to rank 0 from ping-pong samples, and a time of one
 * clock on the other's axis (hosts/hosts.h says the rules).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "hosts/hosts.h"

int eng_clock_offset(const struct eng_clock_sample *s, size_t n,
		     int64_t *offset_ns, int64_t *rtt_ns)
{
	int64_t best_off = 0, best_rtt = 0, rtt, off;
	int found = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		/* A sample whose arithmetic overflows is as useless as one
		 * that came back before it left: garbage from the wire. */
		if (s[i].t_recv < s[i].t_send ||
		    __builtin_sub_overflow(s[i].t_recv, s[i].t_send, &rtt))
			continue;
		/* t_send + rtt / 2 is (t_send + t_recv) / 2 without the sum
		 * that overflows for times near INT64_MAX. */
		if (__builtin_sub_overflow(s[i].t_host, s[i].t_send + rtt / 2,
					   &off))
			continue;
		/* The first of equal round trips: the earliest, taken before
		 * any drift since. */
		if (!found || rtt < best_rtt) {
			best_rtt = rtt;
			best_off = off;
			found = 1;
		}
	}
	if (!found)
		return -EINVAL;
	*offset_ns = best_off;
	*rtt_ns = best_rtt;
	return 0;
}

/* Whether the line has an interval to interpolate over.  An end at or
 * before the start, or one whose offset changes as fast as the clock runs
 * (a drift of 100 %, no real clock), leaves the start's offset: the
 * interpolation would divide by zero or stop being invertible. */
static int has_interval(const struct eng_clock_line *l)
{
	__int128 span = (__int128)l->t_end - l->t_start;
	__int128 drift = (__int128)l->offset_end - l->offset_start;

	return l->has_end && span > 0 && drift < span && -drift < span;
}

/* q = a / b rounded to the nearest, halves away from zero; b > 0. */
static __int128 div_round(__int128 a, __int128 b)
{
	return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

int64_t eng_clock_axis(const struct eng_clock_line *l, int64_t t)
{
	__int128 span, off;

	if (!has_interval(l) || t <= l->t_start)
		return t - l->offset_start;
	if (t >= l->t_end)
		return t - l->offset_end;
	/* 128 bits: a drift of a ms over an hour is 3.6e21 before the
	 * division, past int64_t. */
	span = (__int128)l->t_end - l->t_start;
	off = l->offset_start +
	      div_round(((__int128)l->offset_end - l->offset_start) *
			    ((__int128)t - l->t_start),
			span);
	return (int64_t)(t - off);
}

int64_t eng_clock_local(const struct eng_clock_line *l, int64_t t0)
{
	__int128 span, drift, u;

	/* t - offset(t) rises with t (has_interval keeps the drift under
	 * the clock's rate), so rank 0's time t0 falls in one of the three
	 * pieces: before the start, after the end, or between. */
	if (!has_interval(l) || t0 <= l->t_start - l->offset_start)
		return t0 + l->offset_start;
	if (t0 >= l->t_end - l->offset_end)
		return t0 + l->offset_end;
	/* Between: with u = t - t_start, span and drift as below,
	 * u - drift * u / span = t0 + offset_start - t_start. */
	span = (__int128)l->t_end - l->t_start;
	drift = (__int128)l->offset_end - l->offset_start;
	u = div_round(((__int128)t0 + l->offset_start - l->t_start) * span,
		      span - drift);
	if (u < 0)
		u = 0;
	if (u > span)
		u = span;
	return (int64_t)(l->t_start + u);
}
