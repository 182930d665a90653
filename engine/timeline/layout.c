/* SPDX-License-Identifier: MIT */
/*
 * Byte layout of a timeline file (docs/design.md): for each frame, the slice of
 * every track in declared order.  Everything is a closed form of
 * upto(t, k); offsets map back to frames by binary search.
 */
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/values.h"

uint64_t eng_upto_rate(uint64_t rate, uint32_t align, struct eng_fps fps,
		       int64_t k)
{
	unsigned __int128 n, d;

	if (k <= 0)
		return 0;
	n = (unsigned __int128)k * rate * fps.den;
	d = (unsigned __int128)fps.num * align;
	return (uint64_t)(n / d) * align;
}

uint64_t eng_upto(const struct eng_timeline *tl, size_t t, int64_t k)
{
	return eng_upto_rate(tl->tracks[t].rate, tl->tracks[t].align, tl->fps,
			     k);
}

uint64_t eng_frame_offset(const struct eng_timeline *tl, int64_t k)
{
	uint64_t off = 0;
	size_t t;

	for (t = 0; t < tl->ntracks; t++)
		off += eng_upto(tl, t, k);
	return off;
}

uint64_t eng_frame_size(const struct eng_timeline *tl, int64_t k)
{
	return eng_frame_offset(tl, k + 1) - eng_frame_offset(tl, k);
}

int64_t eng_frame_at(const struct eng_timeline *tl, uint64_t off)
{
	int64_t lo = 0, hi = tl->frames; /* offset(lo) <= off < offset(hi) */

	if (off >= tl->bytes)
		return tl->frames;
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;

		if (eng_frame_offset(tl, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

const struct eng_segment *eng_segment_at(const struct eng_track *trk,
					 int64_t k)
{
	size_t lo = 0, hi = trk->nsegs; /* first segment with rec_in > k */
	const struct eng_segment *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (trk->segs[mid].rec_in <= k)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	s = &trk->segs[lo - 1];
	return k < s->rec_in + s->frames ? s : NULL;
}

int64_t eng_next_segment_frame(const struct eng_timeline *tl, int64_t k)
{
	int64_t next = tl->frames;
	size_t t;

	for (t = 0; t < tl->ntracks && next > k; t++) {
		const struct eng_track *trk = &tl->tracks[t];
		size_t lo = 0, hi = trk->nsegs; /* first ending after k */

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (trk->segs[mid].rec_in + trk->segs[mid].frames <= k)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < trk->nsegs) {
			int64_t f = trk->segs[lo].rec_in > k ?
				    trk->segs[lo].rec_in : k;

			if (f < next)
				next = f;
		}
	}
	return next;
}

void eng_slice_get(const struct eng_timeline *tl, int64_t k, size_t t,
		   struct eng_slice *out)
{
	const struct eng_segment *seg;
	size_t u;

	out->frame = k;
	out->track = t;
	out->pos = eng_frame_offset(tl, k);
	for (u = 0; u < t; u++)
		out->pos += eng_upto(tl, u, k + 1) - eng_upto(tl, u, k);
	out->len = eng_upto(tl, t, k + 1) - eng_upto(tl, t, k);
	seg = eng_segment_at(&tl->tracks[t], k);
	out->seg = seg;
	out->file_off = 0;
	if (seg) {
		const struct eng_clip *c = &tl->clips[seg->clip];

		out->file_off = eng_upto(tl, t, seg->src_in + k - seg->rec_in);
		if (c->media)
			out->file_off += c->media[t].header;
	}
}
