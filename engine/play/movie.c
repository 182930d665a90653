/* SPDX-License-Identifier: MIT */
/*
 * A movie stream's requests (movie.h): the header's part of a request is
 * answered from memory here, the timeline's part by the player at its
 * offset in NAME.  A request of header bytes only never reaches the
 * player's positioning (eng_pl_position): it takes the request lock, so
 * that the stream's requests stay one at a time as the player's contract
 * says, and counts what it served.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* Note [s, e) of the timeline's first bytes as kept: merge it into p's
 * sorted ranges (dropped when they are full), then the prefix from 0. */
static void start_range(struct eng_player *p, size_t s, size_t e)
{
	size_t (*iv)[2] = p->mov_iv;
	int n = p->mov_niv, i, j;

	for (i = 0; i < n && iv[i][1] < s; i++)
		;
	/* iv[i..j) touch [s, e): one range with it */
	for (j = i; j < n && iv[j][0] <= e; j++) {
		if (iv[j][0] < s)
			s = iv[j][0];
		if (iv[j][1] > e)
			e = iv[j][1];
	}
	if (j == i) {
		if (n == (int)(sizeof(p->mov_iv) / sizeof(p->mov_iv[0])))
			return;
		memmove(iv + i + 1, iv + i, (size_t)(n - i) * sizeof(iv[0]));
		n++;
	} else {
		memmove(iv + i + 1, iv + j, (size_t)(n - j) * sizeof(iv[0]));
		n -= j - i - 1;
	}
	iv[i][0] = s;
	iv[i][1] = e;
	p->mov_niv = n;
	p->mov_start_len = n && iv[0][0] == 0 ? iv[0][1] : 0;
}

/* Keep the timeline's first bytes (up to cfg.max_request) that a request
 * served from off (a timeline offset) in iov[0..cnt), n bytes, where they
 * stand in the timeline.  Called with req_lock held.  Keeping nothing (no
 * memory) only leaves a later spill to the player. */
static void start_keep(struct eng_player *p, uint64_t off,
		       const struct iovec *iov, int cnt, size_t n)
{
	size_t cap = p->cfg.max_request, pos, take;
	int i;

	if (off >= cap || p->mov_start_len >= cap)
		return;
	if (!p->mov_start) {
		p->mov_start = malloc(cap);
		if (!p->mov_start)
			return;
	}
	if (n > cap - off)
		n = (size_t)(cap - off);
	pos = (size_t)off;
	for (i = 0; i < cnt && pos < off + n; i++) {
		take = iov[i].iov_len;
		if (take > off + n - pos)
			take = (size_t)(off + n - pos);
		memcpy(p->mov_start + pos, iov[i].iov_base, take);
		pos += take;
	}
	start_range(p, (size_t)off, pos);
}

/* A request the player is not asked: header bytes only (h of len), or
 * the header's end and the timeline's first bytes asked for again (the
 * kernel's readahead around the black picture a player reads at a gap,
 * long after the start), from memory, as a header probe, no play head
 * moved.  1 when answered so (req_lock then held), else 0. */
static int from_memory(struct eng_player *p, const struct eng_mov *m,
		       uint64_t off, size_t len, size_t h,
		       struct eng_answer *ans)
{
	if (!h && len)
		return 0;	/* timeline bytes only: the player's */
	pthread_mutex_lock(&p->req_lock);
	if (h < len && len - h > p->mov_start_len) {
		pthread_mutex_unlock(&p->req_lock);
		return 0;
	}
	eng_pl_answer_init(ans);
	if (h) {
		ans->head.iov_base = m->head + off;
		ans->head.iov_len = h;
	}
	if (h < len) {
		ans->iov[0].iov_base = p->mov_start;
		ans->iov[0].iov_len = len - h;
		ans->iovcnt = 1;
	}
	if (len)
		head_served(p, len, 1);
	eng_pl_drop(p, off, ans);
	return 1;
}

ssize_t eng_movie_serve(struct eng_player *p, const struct eng_mov *m,
			uint64_t off, size_t len, struct eng_answer *ans)
{
	uint64_t at = off;
	ssize_t n;
	size_t h;

	if (!p || !m || !ans || (len && (!ans->iov || ans->iovmax <= 0)))
		return -EINVAL;
	if (len > p->cfg.max_request)
		return -E2BIG;
	h = head_part(m, off, &len);
	if (from_memory(p, m, off, len, h, ans))
		return (ssize_t)len;
	off = h ? 0 : off - m->head_len;
	n = eng_pl_serve(p, off, len - h, ans, 0, at);
	if (n < 0)
		return n;
	if (ans->pipe < 0 && n > 0)
		start_keep(p, off, ans->iov, ans->iovcnt, (size_t)n);
	if (h) {
		ans->head.iov_base = m->head + at;
		ans->head.iov_len = h;
		head_served(p, h, 0);
	}
	return (ssize_t)h + n;
}
