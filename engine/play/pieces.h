/* SPDX-License-Identifier: MIT */
/*
 * The pieces (iovecs) of one reply (pieces.c), for a caller whose reply
 * takes at most max pieces: contiguous parts join, the tail of a reply of
 * many small parts is copied into a spill buffer allocated up front.
 */
#ifndef ENG_PIECES_H
#define ENG_PIECES_H

#include <stddef.h>
#include <sys/uio.h>

/* The pieces (iovecs) of one reply, built a part at a time, for a caller
 * whose reply takes at most max pieces (pieces.c).  A part that
 * starts where the piece before it ends joins that piece (frames of one
 * size fill the ring without holes: at most 2 pieces, at its wrap).  A
 * part that would make max + 1 pieces turns the last piece into a copy
 * in spill, and every later part is copied after it: the first max - 1
 * pieces stay where they are, only the tail of a reply of many small
 * parts is copied. */
struct eng_pieces {
	struct iovec *iov;	/* [max]; iov[0..n) are the pieces */
	int max;
	int n;
	unsigned char *spill;	/* [spill_cap], may be NULL */
	size_t spill_cap;
	size_t spilled;		/* bytes in spill: 0 until it is used */
};
void eng_pieces_init(struct eng_pieces *pb, struct iovec *iov, int max,
		     void *spill, size_t spill_cap);
/* Append len bytes at base (not copied unless they spill).  0, or
 * -E2BIG: more than max pieces and the spill cannot hold the tail (then
 * the pieces are as they were before the call). */
int eng_pieces_add(struct eng_pieces *pb, const void *base, size_t len);
/* The spill eng_pieces_add() can need for a reply of up to len bytes
 * whose parts, but for the first and the last, are at least part_min
 * bytes each (whole frames: tl->frame_bytes_min), with max pieces.  0:
 * such a reply never spills. */
size_t eng_pieces_spill_need(size_t len, size_t part_min, int max);

struct eng_player;

#endif /* ENG_PIECES_H */
