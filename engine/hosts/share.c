/* SPDX-License-Identifier: MIT */
/*
 * A step's workstations over the live hosts, and the hosts that straggled
 * (hosts/hosts.h says the rules).
 */
#include <stddef.h>
#include <stdint.h>

#include "hosts/hosts.h"

unsigned eng_hosts_share(unsigned total, unsigned live, unsigned k)
{
	if (live == 0 || k >= live)
		return 0;
	return total / live + (k < total % live);
}

/* v(i): host i's end, or its step time when start is given. */
static int64_t value(const int64_t *start, const int64_t *end, size_t i)
{
	return start ? end[i] - start[i] : end[i];
}

/* The lower median of v(i) over the i with played[i]: the value with
 * (m - 1) / 2 of the m others below it, counting ties in index order.  By
 * counting, not sorting: no copy to allocate (nor an error to return), and
 * hosts are few (10^6 steps for a thousand hosts, once per step). */
static int64_t lower_median(const int64_t *start, const int64_t *end,
			    const int *played, size_t n, size_t m)
{
	size_t want = (m - 1) / 2, i, j, below;
	int64_t vi, vj;

	for (i = 0; i < n; i++) {
		if (!played[i])
			continue;
		vi = value(start, end, i);
		below = 0;
		for (j = 0; j < n; j++) {
			if (!played[j])
				continue;
			vj = value(start, end, j);
			below += vj < vi || (vj == vi && j < i);
		}
		if (below == want)
			return vi;
	}
	return 0; /* not reached with m >= 1 */
}

unsigned eng_hosts_stragglers(const int64_t *start_ns, const int64_t *end_ns,
			      const int *played, size_t n, int64_t min_ns,
			      double frac, int *straggle, int64_t *lag_ns)
{
	int64_t med_end, med_dur, margin;
	unsigned count = 0;
	size_t i, m = 0;
	double by_frac;

	for (i = 0; i < n; i++) {
		if (straggle)
			straggle[i] = 0;
		if (lag_ns)
			lag_ns[i] = 0;
		m += played[i] != 0;
	}
	if (m == 0)
		return 0;
	med_end = lower_median(NULL, end_ns, played, n, m);
	med_dur = lower_median(start_ns, end_ns, played, n, m);
	/* A negative or NaN fraction or minimum is no margin at all, not a
	 * margin that makes every host straggle. */
	margin = min_ns > 0 ? min_ns : 0;
	by_frac = frac > 0 && med_dur > 0 ? frac * (double)med_dur : 0;
	if (by_frac > (double)margin)
		margin = by_frac >= 9.2e18 ? INT64_MAX : (int64_t)by_frac;
	for (i = 0; i < n; i++) {
		if (!played[i])
			continue;
		if (lag_ns)
			lag_ns[i] = end_ns[i] - med_end;
		if (end_ns[i] - med_end > margin) {
			if (straggle)
				straggle[i] = 1;
			count++;
		}
	}
	return count;
}

void eng_hosts_text(char *field, size_t size)
{
	size_t i;

	if (!size)
		return;
	field[size - 1] = '\0';
	for (i = 0; field[i]; i++)
		if ((unsigned char)field[i] < 0x20 || field[i] == 0x7f)
			field[i] = ' ';
}
