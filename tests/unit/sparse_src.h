/* SPDX-License-Identifier: MIT */
/*
 * A header at the start of a large sparse file (zeros after it, as
 * truncate makes one, no disk blocks) as a struct eng_src for the media
 * readers' tests (test_imgseq.c, test_essence.c): what a reader reads of
 * it and its largest read, so that a header claiming huge tables or
 * chunks is seen to cost little.  Include after <cmocka.h>,
 * media/mfile.h and util/diag.h.
 */
#ifndef SPARSE_SRC_H
#define SPARSE_SRC_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct sparse {
	const unsigned char *head;	/* the bytes at 0 */
	size_t n;			/* how many */
	uint64_t size;			/* the file's size */
	uint64_t bytes;			/* read so far */
	size_t largest;			/* the largest read */
};

static inline long sparse_read(void *ctx, uint64_t off, void *buf,
			       size_t len)
{
	struct sparse *s = ctx;
	size_t have = off < s->n ? s->n - (size_t)off : 0;

	assert_true(off <= s->size && len <= s->size - off);
	if (have > len)
		have = len;
	if (have)
		memcpy(buf, s->head + off, have);
	memset((unsigned char *)buf + have, 0, len - have);
	s->bytes += len;
	if (len > s->largest)
		s->largest = len;
	return (long)len;
}

/* src reading s: head[0..n) at the start of a file of size bytes */
static inline void sparse_src(struct eng_src *src, struct sparse *s,
			      const char *name, const void *head, size_t n,
			      uint64_t size)
{
	*s = (struct sparse){ .head = head, .n = n, .size = size };
	*src = (struct eng_src){ name, size, sparse_read, s };
}

/* The reader's one message (or "") into msg[len]; d freed */
static inline void sparse_msg(struct eng_diag *d, char *msg, size_t len)
{
	snprintf(msg, len, "%s", d->n ? d->msgs[0] : "");
	eng_diag_free(d);
}

#endif /* SPARSE_SRC_H */
