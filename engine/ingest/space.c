/* SPDX-License-Identifier: MIT */
/*
 * The space the record streams of one mount have promised their writers
 * (ingest.h, struct eng_ingest_space): bytes a write() accepted that are
 * still in a capture buffer, counted once for every recorder, so that two
 * writers cannot both be told yes for the same free bytes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "ingest/ingest.h"

struct eng_ingest_space {
	pthread_mutex_t lock;	/* the fields below */
	uint64_t pending;	/* accepted, not yet written or given back */
	uint64_t slack;		/* ENG_INGEST_SPACE_SLACK a track recorded */
};

int eng_ingest_space_new(struct eng_ingest_space **out)
{
	struct eng_ingest_space *s = calloc(1, sizeof(*s));

	*out = s;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	return 0;
}

void eng_ingest_space_free(struct eng_ingest_space *s)
{
	if (!s)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void eng_ingest_space_tracks(struct eng_ingest_space *s, uint32_t add,
			     uint32_t drop)
{
	pthread_mutex_lock(&s->lock);
	s->slack += (uint64_t)add * ENG_INGEST_SPACE_SLACK;
	s->slack -= (uint64_t)drop * ENG_INGEST_SPACE_SLACK;
	pthread_mutex_unlock(&s->lock);
}

/* Under s->lock: the free bytes io->space says in *f (UINT64_MAX: it
 * could not), and the bytes a take may be granted. */
static uint64_t room(struct eng_ingest_space *s, const struct eng_io *io,
		     uint64_t reserve, uint64_t *f)
{
	uint64_t need;

	/* asked with the lock held: another recorder's take must see this
	 * one's bytes pending, or both would be given the same free bytes */
	if (io->space(io->ctx, f) < 0) {
		/* a file system that cannot say: as before the reserve */
		*f = UINT64_MAX;
		return UINT64_MAX;
	}
	need = reserve + s->pending + s->slack;
	return *f > need ? *f - need : 0;
}

uint64_t eng_ingest_space_take(struct eng_ingest_space *s,
			       const struct eng_io *io, uint64_t reserve,
			       uint64_t len, uint64_t *free_b,
			       uint64_t *held)
{
	uint64_t f, grant;

	pthread_mutex_lock(&s->lock);
	grant = room(s, io, reserve, &f);
	if (grant > len)
		grant = len;
	s->pending += grant;
	if (free_b)
		*free_b = f;
	if (held)
		*held = s->pending - grant + s->slack;
	pthread_mutex_unlock(&s->lock);
	return grant;
}

int eng_ingest_space_claim(struct eng_ingest_space *s,
			   const struct eng_io *io, uint64_t reserve,
			   uint64_t len, uint64_t *free_b, uint64_t *held)
{
	uint64_t f, grant;
	int rc = 0;

	pthread_mutex_lock(&s->lock);
	grant = room(s, io, reserve, &f);
	/* all or nothing; with len 0 still the reserve's refusal */
	if (grant < len || (f != UINT64_MAX &&
			    f < reserve + s->pending + s->slack))
		rc = -ENOSPC;
	else
		s->pending += len;
	if (free_b)
		*free_b = f;
	if (held)
		*held = s->pending - (rc ? 0 : len) + s->slack;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

void eng_ingest_space_give(struct eng_ingest_space *s, uint64_t len)
{
	if (!len)
		return;
	pthread_mutex_lock(&s->lock);
	s->pending -= len <= s->pending ? len : s->pending;
	pthread_mutex_unlock(&s->lock);
}

uint64_t eng_ingest_space_pending(struct eng_ingest_space *s)
{
	uint64_t n;

	pthread_mutex_lock(&s->lock);
	n = s->pending;
	pthread_mutex_unlock(&s->lock);
	return n;
}
