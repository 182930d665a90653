/* SPDX-License-Identifier: MIT */
/*
 * A reply's pieces (iovecs) within a caller's limit (writev takes at most
 * IOV_MAX): parts contiguous in memory are one piece, and past the limit
 * the tail of the reply is copied into one spill piece.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "play/pieces.h"

void eng_pieces_init(struct eng_pieces *pb, struct iovec *iov, int max,
		     void *spill, size_t spill_cap)
{
	pb->iov = iov;
	pb->max = max;
	pb->n = 0;
	pb->spill = spill;
	pb->spill_cap = spill_cap;
	pb->spilled = 0;
}

int eng_pieces_add(struct eng_pieces *pb, const void *base, size_t len)
{
	struct iovec *last = pb->n ? &pb->iov[pb->n - 1] : NULL;

	if (len == 0)
		return 0;
	if (pb->spilled) {
		/* the spill is the last piece: everything after goes in */
		if (len > pb->spill_cap - pb->spilled)
			return -E2BIG;
		memcpy(pb->spill + pb->spilled, base, len);
		pb->spilled += len;
		last->iov_len = pb->spilled;
		return 0;
	}
	if (last && (const unsigned char *)last->iov_base + last->iov_len ==
		    (const unsigned char *)base) {
		last->iov_len += len;
		return 0;
	}
	if (pb->n < pb->max) {
		pb->iov[pb->n].iov_base = (void *)(uintptr_t)base;
		pb->iov[pb->n].iov_len = len;
		pb->n++;
		return 0;
	}
	/* one piece too many: the last piece and this part become a copy */
	if (!last || !pb->spill || last->iov_len > pb->spill_cap ||
	    len > pb->spill_cap - last->iov_len)
		return -E2BIG;
	memcpy(pb->spill, last->iov_base, last->iov_len);
	memcpy(pb->spill + last->iov_len, base, len);
	pb->spilled = last->iov_len + len;
	last->iov_base = pb->spill;
	last->iov_len = pb->spilled;
	return 0;
}

size_t eng_pieces_spill_need(size_t len, size_t part_min, int max)
{
	unsigned __int128 before;

	if (max < 2)
		return len;
	/* Only parts past the max-th spill.  Before it come max - 1 pieces,
	 * the first at least one byte (a request may start anywhere in a
	 * part), each of the others at least one whole part. */
	before = 1 + (unsigned __int128)(max - 2) * part_min;
	return before >= len ? 0 : len - (size_t)before;
}
