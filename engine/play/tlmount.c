/* SPDX-License-Identifier: MIT */
/*
 * A mount's timelines, made as the mount makes them (tlmount.h): one
 * sequence for the mount and timelinefs-gen --for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media/tlopen.h"
#include "play/movie.h"
#include "play/tlmount.h"
#include "util/values.h"

int eng_tlm_reserve(const struct eng_timeline *tl,
		    struct eng_player_config *pc, uint64_t need_full,
		    uint64_t left, uint64_t *need, uint64_t *window)
{
	uint64_t small = 0, win = pc->window;

	*need = need_full;
	*window = 0;
	if (need_full > left && win) {
		pc->window = 0;
		if (eng_player_mem(tl, pc, &small, NULL) == 0 &&
		    small <= left) {
			*window = win;
			*need = small;
			return 0;
		}
		pc->window = win;
		if (small)
			*need = small;
	}
	return *need <= left ? 0 : -ENOMEM;
}

void eng_tlm_movie_config(const struct eng_timeline *tl, uint64_t preroll_ns,
			  struct eng_player_config *pc)
{
	eng_movie_config(pc);
	pc->preroll = eng_player_frames_of(tl, preroll_ns);
}

void eng_tlm_defaults(struct eng_tlm_config *c)
{
	struct eng_player_config *pc = &c->player;

	memset(c, 0, sizeof(*c));
	c->media_fd = -1;
	pc->buffer = ENG_TLM_BUFFER;
	eng_pace_parse("realtime", &pc->pace);
	eng_backing_parse("direct", &pc->backing);
	pc->max_request = ENG_TLM_MAX_REQUEST;
	pc->readahead = (uint64_t)ENG_TLM_READAHEAD_KB * 1024;
	pc->max_pieces = ENG_TLM_IOV_MAX;
	pc->filler = 1;
	pc->max_files = ENG_PLAYER_FILES_DEFAULT;
	pc->mem_max = ENG_PLAYER_MEM_DEFAULT;
	pc->frames_in_flight = ENG_TLM_IN_FLIGHT;
	pc->zero_copy = 1;
	c->stream_mem = ENG_PLAYER_MEM_DEFAULT;
	c->preroll_ns = (uint64_t)ENG_TLM_PREROLL_MS * 1000000;
}

void eng_tlm_free(struct eng_tlm *set)
{
	size_t i;

	for (i = 0; set->files && i < set->n; i++) {
		eng_tl_free(set->files[i].tl);
		eng_mov_free(&set->files[i].mov);
		free(set->files[i].mov_name);
		free(set->files[i].no_movie);
		free(set->files[i].mov_note);
	}
	free(set->files);
	set->files = NULL;
	set->n = 0;
}

/* f's NAME.mov, unless it cannot be a movie or another timeline's own
 * name is NAME.mov (then no_movie says why).  0 or -ENOMEM. */
static int movie_of(struct eng_tlm *set, struct eng_tlm_file *f)
{
	char why[256];
	size_t j;
	int rc;

	rc = eng_mov_build(f->tl, &f->mov, why, sizeof(why));
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return (f->no_movie = strdup(why)) ? 0 : -ENOMEM;
	if (why[0] && !(f->mov_note = strdup(why)))	/* a track left out */
		return -ENOMEM;
	if (asprintf(&f->mov_name, "%s.mov", f->tl->name) < 0) {
		f->mov_name = NULL;
		return -ENOMEM;
	}
	for (j = 0; j < set->n; j++)
		if (strcmp(set->files[j].tl->name, f->mov_name) == 0)
			break;
	if (j == set->n)
		return 0;
	if (asprintf(&f->no_movie, "the timeline %s has that name",
		     set->files[j].tl->path) < 0) {
		f->no_movie = NULL;
		return -ENOMEM;
	}
	eng_mov_free(&f->mov);
	free(f->mov_name);
	f->mov_name = NULL;
	return 0;
}

/* A reader of f's NAME.mov prerolls: its ring holds the preroll's frames
 * more than a stream of NAME, and may not fit stream_mem where NAME's
 * does (-o preroll=10 of v210 1080p: 1.4 GB). */
static void movie_mem_fits(const struct eng_tlm_config *cfg,
			   const struct eng_tlm_file *f, struct eng_diag *diag)
{
	struct eng_player_config pc = cfg->player;
	uint64_t need, slots;

	if (!f->mov.head)
		return;
	eng_tlm_movie_config(f->tl, cfg->preroll_ns, &pc);
	if (eng_player_mem(f->tl, &pc, &need, &slots) == 0)
		eng_player_mem_fits(f->tl, &pc, need, slots, cfg->stream_mem,
				    diag);
}

/* Every open of a timeline allocates its ring (touched at once), so a
 * stream too big for stream_mem is a mount error naming the timeline,
 * not a failed open, nor the OOM killer after a few opens.  0, -EINVAL
 * (said in diag) or -ENOMEM. */
static int check_mem(const struct eng_tlm_config *cfg,
		     const struct eng_tlm *set, struct eng_diag *diag)
{
	const struct eng_player_config *pc = &cfg->player;
	size_t before = diag->n, i;
	uint64_t *need, slots;

	need = calloc(set->n ? set->n : 1, sizeof(*need));
	if (!need)
		return -ENOMEM;
	/* each timeline's stream counted once, compared with both limits
	 * (-EINVAL, a timeline of empty frames: its opens say so) */
	for (i = 0; i < set->n; i++)
		if (eng_player_mem(set->files[i].tl, pc, &need[i], &slots) < 0)
			need[i] = 0;
		else if (!eng_player_mem_fits(set->files[i].tl, pc, need[i],
					      slots, cfg->stream_mem, diag))
			movie_mem_fits(cfg, &set->files[i], diag);
	/* a stream that would not fit all of streams_mem never opens */
	for (i = 0; cfg->streams_mem && diag->n == before && i < set->n; i++)
		if (need[i] > cfg->streams_mem)
			eng_diag_add(diag, set->files[i].tl->path, 0,
				     "no stream of this timeline fits "
				     "streams_mem=%llu; raise -o streams_mem",
				     (unsigned long long)cfg->streams_mem);
	free(need);
	return diag->n > before ? -EINVAL : 0;
}

int eng_tlm_open(const char *tldir, struct eng_tlm_config *cfg,
		 struct eng_tlm *set, struct eng_diag *diag,
		 struct eng_diag *notes)
{
	struct eng_timeline **tls = NULL;
	size_t n = 0, i;
	int rc;

	set->files = NULL;
	set->n = 0;
	rc = eng_tl_open_folder(tldir, cfg->load, cfg->media_fd,
				cfg->media_dir, &tls, &n, diag, notes);
	set->files = rc == -ENOMEM ? NULL : calloc(n ? n : 1,
						   sizeof(*set->files));
	if (!set->files) {
		eng_tl_free_all(tls, n);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		set->files[set->n++].tl = tls[i];
	free(tls);
	if (rc < 0)
		return rc;
	if (cfg->placed) {
		rc = cfg->placed(cfg->placed_ctx, set, cfg, diag);
		if (rc < 0)
			return rc;
	}
	/* the movies before the memory: their readers' rings are larger */
	for (i = 0; i < set->n; i++) {
		rc = movie_of(set, &set->files[i]);
		if (rc < 0)
			return rc;
	}
	return cfg->stream_mem ? check_mem(cfg, set, diag) : 0;
}
