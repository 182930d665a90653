/* SPDX-License-Identifier: MIT */
/*
 * The byte layout of the virtual file (layout.c, docs/design.md): frame k's
 * tracks one after another, each track's bytes a closed form of its rate, so
 * that no per-frame table is ever built.  Every reader of the virtual file
 * (the player, the media checks, the generator, tests/tools/tlexpect.py)
 * agrees with these functions.
 */
#ifndef ENG_LAYOUT_H
#define ENG_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/model.h"

/* Bytes of a track of `rate`/`align` before frame k at `fps`:
 * floor(k * rate * den / (num * align)) * align. */
uint64_t eng_upto_rate(uint64_t rate, uint32_t align, struct eng_fps fps,
		       int64_t k);
/* Bytes of track t before frame k. */
uint64_t eng_upto(const struct eng_timeline *tl, size_t t, int64_t k);
/* Offset in the virtual file of frame k (k may equal tl->frames). */
uint64_t eng_frame_offset(const struct eng_timeline *tl, int64_t k);
/* Size of frame k (all tracks). */
uint64_t eng_frame_size(const struct eng_timeline *tl, int64_t k);
/* The frame holding byte `off` (off < tl->bytes): binary search,
 * O(log frames). */
int64_t eng_frame_at(const struct eng_timeline *tl, uint64_t off);
/* The segment of track t covering frame k, or NULL for a gap:
 * binary search, O(log segments).  Needs a finalized timeline. */
const struct eng_segment *eng_segment_at(const struct eng_track *trk,
					 int64_t k);
/* The first frame from k on that a track has a segment at (tl->frames:
 * none): a reader that skips only gap frames, which hold zeros and cost
 * no read, skips nothing it should have read.  O(tracks x log segments);
 * needs a finalized timeline. */
int64_t eng_next_segment_frame(const struct eng_timeline *tl, int64_t k);

/* Frame k's slice of track t. */
struct eng_slice {
	int64_t frame;
	size_t track;
	uint64_t pos;		/* offset in the virtual file */
	uint64_t len;		/* upto(t, k+1) - upto(t, k); may be 0 */
	const struct eng_segment *seg; /* NULL: a gap, zeros, no read */
	uint64_t file_off;	/* header + upto(t, src_in + k - rec_in) */
};
void eng_slice_get(const struct eng_timeline *tl, int64_t k, size_t t,
		   struct eng_slice *out);

#endif /* ENG_LAYOUT_H */
