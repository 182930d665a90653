/* SPDX-License-Identifier: MIT */
/*
 * A stream of a timeline's movie, NAME.mov (movie.c): the header
 * eng_mov_build made (media/mov.h), served from memory, in front of the
 * player's file NAME.  Movie byte off is header byte off below
 * m->head_len, else byte off - m->head_len of NAME.  Only a request's
 * timeline bytes reach the player, at their offsets in NAME: a reader
 * probing the header (the moov, a gap's black picture, at any time) costs
 * no backing read and moves no play head, clock or seek count, so the
 * stream of NAME.mov is paced, read and counted as a stream of NAME reading
 * the same timeline bytes.  A request across the boundary is one reply
 * (cached mode takes a short reply for the end of the file); once the
 * stream has played the timeline's first bytes (up to cfg.max_request,
 * kept in memory), such a request is served from that copy like a header
 * probe: it is the kernel's readahead around the black picture a player
 * reads at a gap, however late, not the reader going back to frame 0.  The header's
 * bytes count in the stream's bytes, a request of header bytes only in
 * its requests.
 */
#ifndef ENG_MOVIE_H
#define ENG_MOVIE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "media/mov.h"
#include "play/player.h"

/* Make cfg (a stream's player configuration) fit a movie stream: its
 * replies take one piece (iovec) more than the player's, the header's, so
 * the player keeps to cfg->max_pieces - 1 (where there is a limit). */
void eng_movie_config(struct eng_player_config *cfg);

/* eng_player_serve() of the movie: [off, off + len) of m's movie, its
 * header bytes as ans->head (into m->head), the rest from p (a player
 * created with eng_movie_config) at off - m->head_len.  Returns the number
 * of bytes (0 at or past m->size) as eng_player_serve() does (a request of
 * header bytes only is a ring answer, and leaves the player's choice of
 * zero copy to the first request with timeline bytes): end it with
 * eng_player_answered().  Errors as eng_player_serve(), with no lock
 * held. */
ssize_t eng_movie_serve(struct eng_player *p, const struct eng_mov *m,
			uint64_t off, size_t len, struct eng_answer *ans);

#endif /* ENG_MOVIE_H */
