/* SPDX-License-Identifier: MIT */
/*
 * Sequence clips resolved (imgseq.h struct eng_seqmedia): a clip's images
 * on one video track as a video stream of their pixel data, from one
 * image's header (and, compressed, every played image's stat), for the
 * layout of real video and the player's per-image reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "media/imgseq.h"

int eng_seqmedia_name(const struct eng_seqmedia *sm, int64_t i, char *buf,
		      size_t len)
{
	return eng_seq_name_of(&sm->name, i, buf, len);
}

int64_t eng_seqmedia_number(const struct eng_seqmedia *sm, int64_t i)
{
	return sm->name.start + i * sm->name.step;
}

void eng_seqmedia_free(struct eng_seqmedia *sm)
{
	if (!sm)
		return;
	free(sm->ess.off);
	free(sm->ess.len);
	/* the name's strings are this struct's own copies */
	free((char *)sm->name.base);
	free((char *)sm->name.prefix);
	free((char *)sm->name.suffix);
	free(sm);
}
