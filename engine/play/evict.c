/* SPDX-License-Identifier: MIT */
/*
 * Cached mode: which stream of a file gets it, and which part of a
 * timeline's page cache the reader has passed and may be dropped.  The
 * kernel's readahead requests tell where the
 * reader is, give or take its readahead windows; the daemon drops
 * (fuse_lowlevel_notify_inval_inode) in steps what lies well behind them.
 */
#include "play/evict.h"
#include "play/player.h"

void eng_open_mode(int direct_io_opt, int *held, int zc, const char *comm,
		   struct eng_open_mode *m)
{
	m->cached = !direct_io_opt && !*held;
	if (m->cached)
		*held = 1;
	m->direct_io = !m->cached;
	m->keep_cache = !m->cached;
	/* a file server's reads in flight arrive out of order: its
	 * stream's ring holds them (docs/network.md) */
	m->window = eng_player_window(comm);
	/* a cached file server's stream keeps the ring: its late requests
	 * take frames kept in flight (keep_in_flight), which pipes do not;
	 * another cached stream's replies come from the clips' files unless
	 * zc says pipes (ENG_SPLICE_PIPES) */
	m->zero_copy = !zc ? 0 :
		       !m->cached ? 1 :
		       m->window ? 0 :
		       zc == ENG_SPLICE_PIPES ? ENG_ZC_ANY_REQUEST :
		       ENG_ZC_FILES;
}

void eng_evict_init(struct eng_evict *ev, int paced, uint64_t window)
{
	ev->done = 0;
	ev->keep = ENG_EVICT_KEEP + window;
	ev->step = paced ? ENG_EVICT_STEP_PACED : ENG_EVICT_STEP;
}

void eng_evict_keep_head(struct eng_evict *ev, uint64_t head)
{
	uint64_t up = (head + ENG_EVICT_PAGE - 1) & ~(ENG_EVICT_PAGE - 1);

	/* ranges start at done: the head's pages are never in one */
	if (head > UINT64_MAX - ENG_EVICT_PAGE)
		up = UINT64_MAX & ~(ENG_EVICT_PAGE - 1);
	if (ev->done < up)
		ev->done = up;
}

uint64_t eng_evict_passed(struct eng_evict *ev, uint64_t off, uint64_t *from)
{
	uint64_t upto;

	if (off < ev->keep)
		return 0;
	/* whole pages: the kernel drops the pages a range touches */
	upto = (off - ev->keep) & ~(uint64_t)(ENG_EVICT_PAGE - 1);
	/* behind what is dropped already (a re-read, a seek back) or not a
	 * step past it: nothing yet */
	if (upto < ev->done || upto - ev->done < ev->step)
		return 0;
	*from = ev->done;
	ev->done = upto;
	return upto - *from;
}
