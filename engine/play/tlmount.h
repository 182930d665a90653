/* SPDX-License-Identifier: MIT */
/*
 * A mount's timelines, made as the mount makes them, in one call: the
 * timelines folder opened with its load options, each timeline's media
 * resolved and its layout made (eng_tl_open_folder), the caller's own
 * checks of them, each one's NAME.mov built where it can be one, and the
 * memory every stream of each will take checked against the limits.  The
 * mount (fs/fs_main.c) and timelinefs-gen --for's check of what it wrote
 * (gen/for.c) both call eng_tlm_open, so that --for refuses what the mount
 * would, by construction.  And the mount's memory rule at each open, an
 * open's share of -o streams_mem (eng_tlm_reserve).
 */
#ifndef ENG_TLMOUNT_H
#define ENG_TLMOUNT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "media/mov.h"
#include "play/player.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "util/diag.h"

/* What sizes a stream of a mount with its default options: -o buffer=,
 * -o frames_in_flight= and -o preroll= (ms; what mpv, ffplay, ffmpeg -re
 * and GStreamer need to start playing a movie at once, docs/playback.md
 * "Players as readers"), the largest request the mount serves (its -o
 * max_read) and the iovecs of a reply (writev takes IOV_MAX and
 * fuse_reply_iov adds the header's: a 1 MiB request of 800-byte audio
 * frames spans 1310 frames, the player copies what does not fit). */
#define ENG_TLM_BUFFER 8
#define ENG_TLM_IN_FLIGHT 1
#define ENG_TLM_PREROLL_MS 500
#define ENG_TLM_MAX_REQUEST (1024 * 1024)
/* -o readahead= (KiB): the kernel's readahead of a cached stream */
#define ENG_TLM_READAHEAD_KB 1024
#define ENG_TLM_IOV_MAX (IOV_MAX - 1)

/* One timeline of the set, and its movie. */
struct eng_tlm_file {
	struct eng_timeline *tl;
	struct eng_mov mov;	/* head NULL: no NAME.mov */
	char *mov_name;		/* "NAME.mov", with mov */
	/* malloc'ed, NULL where there is nothing to say: why it has no
	 * movie (eng_mov_build's reason, or the timeline whose own name
	 * NAME.mov is), and the tracks its movie left out */
	char *no_movie;
	char *mov_note;
};

struct eng_tlm {
	struct eng_tlm_file *files;	/* in name order */
	size_t n;
};

struct eng_tlm_config {
	const struct eng_load_options *load;
	int media_fd;		/* the media folder, named media_dir */
	const char *media_dir;
	/* The streams' player configuration (buffer, pace, backing,
	 * request size, zero copy as it may be used; no io needed), the
	 * bytes one stream may take (-o stream_mem; 0: no memory check)
	 * and all of them together (-o streams_mem; 0: not checked), and a
	 * NAME.mov reader's preroll in ns (-o preroll). */
	struct eng_player_config player;
	uint64_t stream_mem;
	uint64_t streams_mem;
	uint64_t preroll_ns;
	/* NULL, or called once the timelines are placed, before their
	 * movies and memory: the caller's checks (each problem added to
	 * diag) and probes, which may change player (the backing the media
	 * file system allows).  0, or a negative errno: stop there. */
	int (*placed)(void *ctx, const struct eng_tlm *set,
		      struct eng_tlm_config *cfg, struct eng_diag *diag);
	void *placed_ctx;
};

/* The memory check of a mount with the default options into c: the
 * player configuration (buffer, pace realtime, backing direct, a filler,
 * the request size and iovecs above, zero copy as -o splice=auto allows,
 * the default stream_mem and stream_files), stream_mem and the preroll.
 * streams_mem (half the memory of the machine that mounts), the load
 * options, the media folder and the hook are left 0 for the caller. */
void eng_tlm_defaults(struct eng_tlm_config *c);

/* The timelines of folder tldir as the mount makes them (above), into
 * *set (the caller's to eng_tlm_free, also on failure: it holds those
 * that opened).  Returns 0; -EINVAL with every problem in diag (of the
 * folder, a timeline, the placed hook, a stream too big for stream_mem
 * or, where none is, for streams_mem); -ENOMEM; the hook's error.  notes
 * gets the files the folder skipped (may be NULL). */
int eng_tlm_open(const char *tldir, struct eng_tlm_config *cfg,
		 struct eng_tlm *set, struct eng_diag *diag,
		 struct eng_diag *notes);
void eng_tlm_free(struct eng_tlm *set);

/* An open's share of the mount's -o streams_mem: a stream of tl with *pc
 * needs need_full bytes (eng_player_mem) and left is the budget not yet
 * taken.  Where it does not fit, a file server's window (pc->window:
 * smbd's reads in flight) is given up first (pc->window 0, *window the
 * one given up): a name any process can take must not cost more than the
 * budget.  0 with *need the bytes to take; -ENOMEM with *need the bytes
 * it is refused on (without the window, where one was asked for: the
 * refusal says that need, not the window's; pc as it was). */
int eng_tlm_reserve(const struct eng_timeline *tl,
		    struct eng_player_config *pc, uint64_t need_full,
		    uint64_t left, uint64_t *need, uint64_t *window);

/* A reader of tl's NAME.mov's player configuration from a stream's pc:
 * its movie's pieces (eng_movie_config) and a preroll of preroll_ns in
 * frames. */
void eng_tlm_movie_config(const struct eng_timeline *tl, uint64_t preroll_ns,
			  struct eng_player_config *pc);

#endif /* ENG_TLMOUNT_H */
