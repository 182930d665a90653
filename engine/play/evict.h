/* SPDX-License-Identifier: MIT */
/*
 * Cached mode (evict.c): which stream of a file gets it (how the mount
 * opens a stream), and which page cache its reader has passed and may be
 * dropped, in steps that keep a stream's page cache bounded.
 */
#ifndef ENG_EVICT_H
#define ENG_EVICT_H

#include <stdint.h>

/* Never drop within ENG_EVICT_KEEP behind the newest request: under load a
 * reader can be several readahead windows behind it, and a page dropped
 * before it was copied is read again (a re-read of frames already
 * played).  Unpaced streams drop in 64 MiB steps: each drop runs in the
 * worker that serves the stream, between its replies, and one unpaced
 * stream read 1.16x faster at bs=1M with 64 MiB steps than with 8 MiB
 * (tests/bench/xport.sh, idle machine).  Paced streams drop in 8 MiB
 * steps: readers started together reach each step together, and 50 paced
 * streams dropping 64 MiB each at once stalled their fillers for up to
 * 0.7 s (11 and 80 late frames in two runs, 7512 and 14217 at 75
 * streams; with 8 MiB steps 0 and 0, 88 and 0).  Bound on the page cache
 * of one cached stream: keep + step (72 or 16 MiB) plus its readahead. */
#define ENG_EVICT_KEEP (8ULL << 20)
#define ENG_EVICT_STEP (64ULL << 20)
#define ENG_EVICT_STEP_PACED (8ULL << 20)
#define ENG_EVICT_PAGE 4096ULL

struct eng_evict {
	uint64_t done;		/* [0, done) was handed out to be dropped */
	uint64_t step;
	uint64_t keep;
};

/* window: the bytes of reads the reader keeps in flight
 * (eng_player_config.window): they are kept too, since its requests
 * arrive out of order over that many bytes. */
void eng_evict_init(struct eng_evict *ev, int paced, uint64_t window);
/* Never drop the first `head` bytes: a movie's header (NAME.mov's moov
 * and a gap's black picture), which a player reads again at every gap,
 * at any time.  Dropped, its pages were asked for again after the play
 * head had moved on, and the kernel's readahead around them asked for
 * timeline bytes far behind it (test_movie: ffmpeg's stream of a movie
 * with a gap counted 3 seeks and 63 frames of 60 in a CI run).  Call
 * after eng_evict_init. */
void eng_evict_keep_head(struct eng_evict *ev, uint64_t head);
/* A request at offset off is being served: the range [*from, *from + n)
 * to drop now, n the return value; 0 when nothing is due (then *from is
 * left alone).  Ranges are whole pages, each starts where the last one
 * ended, and none comes within keep of off. */
uint64_t eng_evict_passed(struct eng_evict *ev, uint64_t off, uint64_t *from);

/* How the mount opens a stream (eng_open_mode). */
struct eng_open_mode {
	int cached;	/* owns its inode's page cache (and evicts it) */
	int direct_io;	/* FUSE direct_io: reads bypass the page cache */
	int keep_cache;	/* FUSE keep_cache: the open leaves the page cache
			 * another stream fills alone */
	int zero_copy;	/* its player may splice its replies: its
			 * eng_player_config.zero_copy */
	uint64_t window; /* eng_player_config.window (eng_player_window) */
};

/* The open of an inode by a reader named comm (NULL: unknown): the first
 * reader of the inode gets cached mode, its reads served from the page
 * cache that kernel readahead fills from the ring.  Any other concurrent
 * open, and every open under -o direct_io (direct_io_opt), bypasses the
 * cache so that each stream sees only its own reads; keep_cache stops
 * that open from dropping the first stream's pages.  *held is the
 * inode's "cached mode taken" (NAME and NAME.mov are two inodes, each
 * with its own page cache and its own first reader): set here when this
 * open takes it, the caller's to clear when the stream goes; the caller
 * holds the lock that guards it.  Zero copy (zc: replies can be spliced)
 * in either mode (but a cached file server's, whose ring keeps frames in
 * flight for its late requests): the kernel's readahead requests of one
 * stream come on several worker threads, out of order, and are served
 * from the slots' pipes, which keep their frames as the ring does (a pipe
 * that handed its bytes out once had the player read 305 frames of 300 in
 * 4 of 9 unpaced runs of tests/integration/test_cache.sh).  zc is -o
 * splice's: ENG_SPLICE_AUTO lets a cached stream's replies come from the
 * clips' files where the player may (ENG_ZC_FILES), ENG_SPLICE_PIPES
 * keeps them in its pipes, 0 no splice. */
#define ENG_SPLICE_AUTO 1
#define ENG_SPLICE_PIPES 2
void eng_open_mode(int direct_io_opt, int *held, int zc, const char *comm,
		   struct eng_open_mode *m);

#endif /* ENG_EVICT_H */
