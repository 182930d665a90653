/* SPDX-License-Identifier: MIT */
/*
 * A movie stream's requests (movie.h): the header's part of a request is
 * answered from memory here, the timeline's part by the player at its
 * offset in NAME.  A request of header bytes only never reaches the
 * player's positioning (eng_pl_prepare): it takes the request lock, so
 * that the stream's requests stay one at a time as the player's contract
 * says, and counts what it served.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "play/movie.h"
#include "play/player_i.h"

void eng_movie_config(struct eng_player_config *cfg)
{
	if (cfg->max_pieces > 1)
		cfg->max_pieces--;
}

/* The header's bytes of a request in the stream's totals; request: it had
 * no timeline bytes (else the player counted it). */
static void head_served(struct eng_player *p, size_t n, int request)
{
	pthread_mutex_lock(&p->lock);
	pthread_mutex_lock(&p->stats_lock);
	p->st.bytes += n;
	p->st.requests += request;
	pthread_mutex_unlock(&p->stats_lock);
	pthread_mutex_unlock(&p->lock);
}

/* Clip [off, off + *len) to the movie; the header's part of it. */
static size_t head_part(const struct eng_mov *m, uint64_t off, size_t *len)
{
	if (off >= m->size) {
		*len = 0;
		return 0;
	}
	if (*len > m->size - off)
		*len = (size_t)(m->size - off);
	if (off >= m->head_len)
		return 0;
	return m->head_len - off < *len ? (size_t)(m->head_len - off) : *len;
}

ssize_t eng_movie_read(struct eng_player *p, const struct eng_mov *m,
		       uint64_t off, size_t len, struct iovec *iov, int iovmax,
		       int *iovcnt)
{
	ssize_t n;
	size_t h;

	if (!p || !m || !iovcnt || (len && (!iov || iovmax <= 0)))
		return -EINVAL;
	*iovcnt = 0;
	if (len > p->cfg.max_request)
		return -E2BIG;
	h = head_part(m, off, &len);
	if (h == len) {
		/* header bytes only, or nothing: the player is not asked */
		pthread_mutex_lock(&p->req_lock);
		if (h) {
			iov[0].iov_base = m->head + off;
			iov[0].iov_len = h;
			*iovcnt = 1;
			head_served(p, h, 1);
		}
		return (ssize_t)h;
	}
	if (!h)
		return eng_player_read(p, off - m->head_len, len, iov, iovmax,
				       iovcnt);
	if (iovmax < 2)
		return -E2BIG;
	n = eng_player_read(p, 0, len - h, iov + 1, iovmax - 1, iovcnt);
	if (n < 0)
		return n;
	iov[0].iov_base = m->head + off;
	iov[0].iov_len = h;
	(*iovcnt)++;
	head_served(p, h, 0);
	return (ssize_t)h + n;
}

ssize_t eng_movie_read_zc(struct eng_player *p, const struct eng_mov *m,
			  uint64_t off, size_t len, struct iovec *head,
			  struct eng_piece *pc, int pcmax, int *pccnt)
{
	ssize_t n;
	size_t h;

	if (!p || !m || !head || !pccnt)
		return -EINVAL;
	*pccnt = 0;
	head->iov_base = NULL;
	head->iov_len = 0;
	if (len > p->cfg.max_request)
		return -E2BIG;
	h = head_part(m, off, &len);
	if (h == len) {
		pthread_mutex_lock(&p->req_lock);
		pthread_mutex_lock(&p->lock);
		if (p->zc < 0) {
			/* as the player answers once it chose its ring */
			pthread_mutex_unlock(&p->lock);
			pthread_mutex_unlock(&p->req_lock);
			return -EXDEV;
		}
		pthread_mutex_unlock(&p->lock);
		if (h) {
			head->iov_base = m->head + off;
			head->iov_len = h;
			head_served(p, h, 1);
		}
		return (ssize_t)h;
	}
	if (!h)
		return eng_player_read_zc(p, off - m->head_len, len, pc, pcmax,
					  pccnt);
	n = eng_player_read_zc(p, 0, len - h, pc, pcmax, pccnt);
	if (n < 0)
		return n;
	head->iov_base = m->head + off;
	head->iov_len = h;
	head_served(p, h, 0);
	return (ssize_t)h + n;
}
