/* SPDX-License-Identifier: MIT */
/*
 * A media stream's index (essence.h): a range of audio sample frames, or
 * of compressed audio's packets, as file extents.
 */
#include <errno.h>
#include <stdlib.h>

#include "timeline/essence.h"

static size_t chunk_of(const struct eng_essence *e, int64_t s)
{
	size_t lo = 0, hi = e->nchunks;	/* first chunk with first > s */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (e->chunks[mid].first <= s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

int eng_essence_samples(const struct eng_essence *e, int64_t first,
			int64_t n, struct eng_extent *out, int max)
{
	int cnt = 0;

	if (first < 0 || n < 0 || first > e->nsamples - n)
		return -ERANGE;
	if (n == 0)
		return 0;
	if (!e->nchunks || e->chunks[0].first > first)
		return -ERANGE;
	while (n > 0) {
		const struct eng_chunk *c = &e->chunks[chunk_of(e, first)];
		int64_t in = first - c->first, take;
		uint64_t off;

		if (in >= c->count)	/* a hole between chunks */
			return -ERANGE;
		take = (int64_t)c->count - in;
		if (take > n)
			take = n;
		off = c->off + (uint64_t)in * e->block;
		if (cnt && out[cnt - 1].off + out[cnt - 1].len == off) {
			out[cnt - 1].len += (uint64_t)take * e->block;
		} else {
			if (cnt == max)
				return -E2BIG;
			out[cnt].off = off;
			out[cnt].len = (uint64_t)take * e->block;
			cnt++;
		}
		first += take;
		n -= take;
	}
	return cnt;
}

int64_t eng_essence_packet_at(const struct eng_essence *e, int64_t s)
{
	int64_t lo = 0, hi = e->npackets;

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if ((e->pts[mid] < 0 ? 0 : e->pts[mid]) < s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int eng_essence_packets(const struct eng_essence *e, int64_t s0, int64_t s1,
			struct eng_extent *out, int max, uint64_t *bytes)
{
	int64_t i;
	int n = 0;

	*bytes = 0;
	if (!e->pts || s1 <= s0)
		return 0;
	for (i = eng_essence_packet_at(e, s0); i < e->npackets &&
	     (e->pts[i] < 0 ? 0 : e->pts[i]) < s1; i++) {
		*bytes += e->len[i];
		if (n && out[n - 1].off + out[n - 1].len == e->off[i]) {
			out[n - 1].len += e->len[i];
			continue;
		}
		if (n == max)
			return -E2BIG;
		out[n].off = e->off[i];
		out[n].len = e->len[i];
		n++;
	}
	return n;
}
