/* SPDX-License-Identifier: MIT */
/*
 * The per-stream player (docs/design.md "Playback"): an anchored frame clock, a
 * ring of frame slots filled with one pread per (frame, track), and one
 * access record per backing read.  Time and I/O come through struct eng_io.
 * This file: the ring's plan (its memory, told before it is taken), creating
 * and freeing a player, its stats.  player_i.h says where the rest is.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "media/genplan.h"
#include "play/pieces.h"
#include "play/player_i.h"
#include "timeline/layout.h"

/* A ring of this size or more is allocated in huge pages (eng_player_new). */
#define RING_HUGE (2u << 20)

/* The locks and condition variables; fill_cv waits on CLOCK_MONOTONIC, the
 * clock of eng_io.now.  0 or -errno, nothing left initialized. */
static int init_sync(struct eng_player *p)
{
	pthread_condattr_t ca;
	int rc, done = 0;

	rc = pthread_condattr_init(&ca);
	if (rc)
		return -rc;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!rc && !(rc = pthread_mutex_init(&p->req_lock, NULL)))
		done++;
	if (!rc && !(rc = pthread_mutex_init(&p->lock, NULL)))
		done++;
	if (!rc && !(rc = pthread_mutex_init(&p->stats_lock, NULL)))
		done++;
	if (!rc && !(rc = pthread_cond_init(&p->fill_cv, &ca)))
		done++;
	if (!rc && !(rc = pthread_cond_init(&p->ready_cv, NULL)))
		done++;
	if (!rc && !(rc = pthread_cond_init(&p->work_cv, NULL)))
		done++;
	if (!rc && !(rc = pthread_mutex_init(&p->fd_lock, NULL)))
		done++;
	if (!rc && !(rc = pthread_cond_init(&p->fd_cv, NULL)))
		done++;
	if (!rc && !(rc = pthread_mutex_init(&p->zc_lock, NULL)))
		done++;
	if (!rc && !(rc = pthread_cond_init(&p->zc_cv, NULL)))
		done++;
	pthread_condattr_destroy(&ca);
	if (!rc)
		return 0;
	if (done > 8)
		pthread_mutex_destroy(&p->zc_lock);
	if (done > 7)
		pthread_cond_destroy(&p->fd_cv);
	if (done > 6)
		pthread_mutex_destroy(&p->fd_lock);
	if (done > 5)
		pthread_cond_destroy(&p->work_cv);
	if (done > 4)
		pthread_cond_destroy(&p->ready_cv);
	if (done > 3)
		pthread_cond_destroy(&p->fill_cv);
	if (done > 2)
		pthread_mutex_destroy(&p->stats_lock);
	if (done > 1)
		pthread_mutex_destroy(&p->lock);
	if (done > 0)
		pthread_mutex_destroy(&p->req_lock);
	return -rc;
}

/*
 * How many frames a window of w bytes can touch, plus 2: w / (the
 * smallest frame) + 2.  Where frames can be empty (every track slower
 * than one sample unit a frame: align=1000 at 100 bytes a second) that
 * was w + 2 frames, a ring of 2 M slots for a file of no bytes (2 GB of
 * RSS per open).  Any n whole frames hold at least n * R - A bytes (R the
 * bytes a frame of all tracks, A their sample units), so then w bytes
 * touch at most (w + A) / R + 2 frames; and never more than the timeline.
 */
/* The same, frame by frame, for a timeline with a table of frame sizes
 * (real media, eng_track.upto): its smallest frame (a tiny P frame, an
 * empty gap frame) says nothing of the frames around it.  The most frames
 * any w bytes touch: a window starting at the last byte of frame a ends
 * in frame_at(offset(a + 1) + w - 2), which never goes back as a grows.
 * O(frames x tracks), at open and at mount. */
static uint64_t frames_spanned_table(const struct eng_timeline *tl,
				     uint64_t w)
{
	uint64_t most = 1, end;
	int64_t a, b = 0;

	for (a = 0; a < tl->frames; a++) {
		uint64_t next = eng_frame_offset(tl, a + 1);

		if (next == eng_frame_offset(tl, a))
			continue;	/* no byte of it starts a request */
		end = w > tl->bytes - next + 1 ? tl->bytes - 1 : next + w - 2;
		if (b < a)
			b = a;
		while (b + 1 < tl->frames &&
		       eng_frame_offset(tl, b + 1) <= end)
			b++;
		if ((uint64_t)(b - a + 1) > most)
			most = (uint64_t)(b - a + 1);
	}
	return most + 1;
}

static uint64_t frames_spanned(const struct eng_timeline *tl, uint64_t w)
{
	long double r = 0, a = 0, n;
	size_t t;

	for (t = 0; t < tl->ntracks; t++)
		if (tl->tracks[t].upto)
			return frames_spanned_table(tl, w);
	if (tl->frame_bytes_min)
		return (w + tl->frame_bytes_min - 1) / tl->frame_bytes_min + 2;
	for (t = 0; t < tl->ntracks; t++) {
		r += (long double)tl->tracks[t].rate * tl->fps.den /
		     tl->fps.num;
		a += tl->tracks[t].align;
	}
	n = r > 0 ? floorl(((long double)w + a) / r) + 3 : 0;
	if (r <= 0 || n > (long double)tl->frames + 2)
		n = (long double)tl->frames + 2;
	return (uint64_t)n;
}

unsigned eng_player_frames_of(const struct eng_timeline *tl, uint64_t ns)
{
	unsigned __int128 d, n;

	if (!tl || !tl->fps.num || !tl->fps.den)
		return 0;
	d = (unsigned __int128)tl->fps.den * ENG_NS_PER_SEC;
	n = ((unsigned __int128)ns * tl->fps.num + d - 1) / d;
	return n > UINT_MAX ? UINT_MAX : (unsigned)n;
}

uint64_t eng_player_window(const char *comm)
{
	/* Samba's file server; each client connection is a process of that
	 * name.  ksmbd and the kernel's nfsd read from kernel threads that
	 * FUSE does not name as a process, and are not handled. */
	return comm && strcmp(comm, "smbd") == 0 ? ENG_PLAYER_WINDOW_SMB : 0;
}

size_t eng_player_slots(const struct eng_player *p)
{
	return p ? p->nslots : 0;
}

/* What a player of tl with cfg allocates: its ring and the rest, so that
 * eng_player_mem tells what eng_player_new will take. */
struct ring_plan {
	int filled;
	unsigned nld;		/* loaders */
	uint64_t nslots;
	uint64_t seek_gap;
	unsigned __int128 ring_bytes;
	size_t bounce_bytes;
	size_t spill_bytes;	/* eng_pieces' spill, 0 for none */
	size_t nfds;
	/* the most frames one request spans, with zero copy: the reply
	 * pipe holds their part pages; 0 without */
	uint64_t zc_span;
	int zc_able;		/* the first request may take zero copy */
	unsigned __int128 mem;	/* everything, as eng_player_mem */
};

/* The O_DIRECT bounce buffer of a frame of slot_bytes, aligned. */
static size_t bounce_size(size_t slot_bytes)
{
	return (size_t)((slot_bytes + 2 * DIRECT_ALIGN + DIRECT_ALIGN - 1) &
			~(DIRECT_ALIGN - 1));
}

/* The frames kept between their read and their turn (struct ahead): per
 * track that reorders, dep_ahead_max for the frames a decoder reads ahead,
 * plus one a loader whose load may still hold its claim, plus one.  Past
 * that (loads far ahead of a stalled one), a frame is read again at its
 * turn: a frame of each load in flight would take some hundred frames of
 * H.264 a stream. */
static size_t ahead_count(const struct eng_timeline *tl, unsigned nld)
{
	return tl->dep_ahead_max ? (size_t)tl->dep_ahead_max + nld + 1 : 0;
}

static unsigned __int128 ahead_mem(const struct eng_timeline *tl,
				   unsigned nld)
{
	unsigned __int128 n = ahead_count(tl, nld), m;
	size_t t;

	m = n * tl->ntracks * sizeof(struct ahead);
	for (t = 0; n && t < tl->ntracks; t++)
		if (eng_track_reorders(tl, t))
			m += n * tl->dep_bytes_max;
	return m;
}


static int plan_ring(const struct eng_timeline *tl,
		     const struct eng_player_config *cfg, struct ring_plan *rp)
{
	uint64_t gap, ra;

	memset(rp, 0, sizeof(*rp));
	if (!tl || !cfg || cfg->buffer == 0 || cfg->max_request == 0 ||
	    tl->frames <= 0 || tl->ntracks == 0 || tl->fps.num == 0 ||
	    tl->fps.den == 0 || tl->frame_bytes_max == 0)
		return -EINVAL;
	if (cfg->frames_in_flight > ENG_PLAYER_IN_FLIGHT_MAX)
		return -EINVAL;
	if (cfg->pace.mode == ENG_PACE_FACTOR &&
	    !(isfinite(cfg->pace.speed) && cfg->pace.speed > 0))
		return -EINVAL;
	/* a request far larger than any frame ring could hold is a bug in
	 * the caller, not something to allocate for */
	if (cfg->max_request > (1ULL << 40))
		return -EINVAL;
	/* the fds' list links are int32_t */
	if (tl->nclips > INT32_MAX / tl->ntracks)
		return -EINVAL;
	rp->filled = cfg->filler && cfg->pace.mode != ENG_PACE_OFF;
	/* frames in flight need a filler to issue them: a request loads
	 * its frames one at a time */
	rp->nld = rp->filled && cfg->frames_in_flight > 1 ?
		  cfg->frames_in_flight : 1;
	/* a readahead window and the next one in flight always fit (a
	 * window's requests can arrive after the next window's: frames of
	 * the first read again, not played, where the ring held less), and
	 * the reads a file server keeps in flight (cfg->window) */
	if (cfg->window > (1ULL << 40) || cfg->readahead > (1ULL << 40))
		return -EINVAL;
	ra = cfg->readahead > cfg->max_request ? cfg->readahead :
						 cfg->max_request;
	rp->nslots = frames_spanned(tl, 2 * ra + cfg->window);
	/* The filler runs ahead of the requests: it needs `buffer` frames of
	 * lead on top of a request and a concurrent readahead window, and
	 * with a preroll it issues `preroll` frames further ahead of the
	 * clock: without their slots it would take those of frames a reader
	 * at its clock (a player slowed down, the kernel's readahead out of
	 * order) still asks for, and read them again.  A request-driven ring
	 * refills behind the request instead. */
	if (rp->filled)
		rp->nslots += (uint64_t)cfg->buffer + cfg->preroll;
	else if (rp->nslots < cfg->buffer)
		rp->nslots = cfg->buffer;
	gap = frames_spanned(tl, 4 * ra + cfg->window) - 2;
	rp->seek_gap = gap > cfg->buffer ? gap : cfg->buffer;
	rp->ring_bytes = (unsigned __int128)rp->nslots * tl->frame_bytes_max;
	rp->nfds = tl->nclips * tl->ntracks;
	rp->mem = rp->ring_bytes + sizeof(struct eng_player) +
		  (unsigned __int128)rp->nslots *
		  (1 + sizeof(struct iovec) + sizeof(int64_t) +
		   (cfg->window ? sizeof(int64_t) : 0)) +
		  (unsigned __int128)rp->nld *
		  (sizeof(struct loader) + (unsigned __int128)tl->dep_reads_max *
		   sizeof(struct eng_slice_ext)) +
		  (unsigned __int128)(rp->nld > 1 ? rp->nslots : 1) *
		  (sizeof(struct load) + sizeof(size_t) + tl->ntracks +
		   (unsigned __int128)eng_pl_reads_max(tl) *
		   sizeof(struct eng_access)) +
		  (unsigned __int128)(rp->nfds ? rp->nfds : 1) *
		  sizeof(struct media_fd) +
		  (unsigned __int128)tl->ntracks * (sizeof(struct dec_state) +
		  sizeof(struct dec_plan) * (rp->nld > 1 ? rp->nslots : 1)) +
		  ahead_mem(tl, rp->nld) +
		  eng_pl_seq_mem(tl);
	/* Frames of one size fill their slots: a request is at most 2
	 * pieces (the ring's wrap).  Others may need more than the caller's
	 * reply takes (800-byte audio frames: 1310 in 1 MiB). */
	if (cfg->max_pieces > 0 &&
	    !(tl->frame_bytes_min == tl->frame_bytes_max &&
	      cfg->max_pieces >= 2))
		rp->spill_bytes = eng_pieces_spill_need(cfg->max_request,
							tl->frame_bytes_min,
							cfg->max_pieces);
	rp->mem += rp->spill_bytes;
	if (tl->frame_bytes_max > SIZE_MAX / 4)
		return 0;	/* more than any ring can be: mem says so */
	/* decoding dependency reads go there too, in every backing: their
	 * bytes are read, not served */
	if (cfg->backing == ENG_BACKING_DIRECT || tl->dep_bytes_max) {
		uint64_t most = tl->frame_bytes_max > tl->dep_bytes_max ?
				tl->frame_bytes_max : tl->dep_bytes_max;

		if (most > SIZE_MAX / 4)
			return 0;
		rp->bounce_bytes = bounce_size((size_t)most);
		/* one per loader */
		rp->mem += (unsigned __int128)rp->nld * rp->bounce_bytes;
	}
	if (cfg->zero_copy && cfg->backing == ENG_BACKING_BUFFERED &&
	    rp->nslots <= ENG_ZC_MAX_SLOTS) {
		/* the slots' pipes; the scratch and reply pipes hold
		 * only tees of their pages, no page of their own.  A
		 * stream holds its pipes' pages or its ring's, not both:
		 * the ring is touched only once the first request declines
		 * zero copy (eng_pl_ring_touch). */
		unsigned __int128 pipes = (unsigned __int128)rp->nslots *
			(eng_pl_zc_pipe_bytes(tl, (size_t)tl->frame_bytes_max) +
			 sizeof(int[2]) + sizeof(size_t));

		if (pipes > rp->ring_bytes)
			rp->mem += pipes - rp->ring_bytes;
		rp->zc_able = 1;
		rp->zc_span = frames_spanned(tl, cfg->max_request);
		if (rp->zc_span > rp->nslots)
			rp->zc_span = rp->nslots;
	}
	return 0;
}

int eng_player_mem(const struct eng_timeline *tl,
		   const struct eng_player_config *cfg, uint64_t *bytes,
		   uint64_t *slots)
{
	struct ring_plan rp;
	int rc = plan_ring(tl, cfg, &rp);

	if (rc < 0)
		return rc;
	if (bytes)
		*bytes = rp.mem > UINT64_MAX ? UINT64_MAX : (uint64_t)rp.mem;
	if (slots)
		*slots = rp.nslots;
	return 0;
}

/* "1.5 GiB", "600 KiB": a figure a reader takes in at a glance, beside
 * the exact byte count. */
static void human_bytes(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB",
					    "TiB", "PiB", "EiB" };
	long double v = (long double)n;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " bytes", n);
	else
		snprintf(buf, len, "%.1Lf %s", v, unit[u]);
}

int eng_player_mem_check(const struct eng_timeline *tl,
			 const struct eng_player_config *cfg, uint64_t limit,
			 struct eng_diag *diag)
{
	uint64_t need, slots;
	int rc = eng_player_mem(tl, cfg, &need, &slots);

	if (rc < 0)
		return rc;
	return eng_player_mem_fits(tl, cfg, need, slots, limit, diag);
}

int eng_player_mem_fits(const struct eng_timeline *tl,
			const struct eng_player_config *cfg, uint64_t need,
			uint64_t slots, uint64_t limit, struct eng_diag *diag)
{
	char need_h[32], lim_h[32], frame_h[32];

	if (need <= limit)
		return 0;
	human_bytes(need, need_h, sizeof(need_h));
	human_bytes(limit, lim_h, sizeof(lim_h));
	human_bytes(tl->frame_bytes_max, frame_h, sizeof(frame_h));
	if (cfg->preroll)	/* a player's of the timeline's movie */
		eng_diag_add(diag, tl->path, 0,
			     "each reader of its %s.mov needs %" PRIu64
			     " bytes (%s: a ring of %" PRIu64 " frames of up "
			     "to %s, buffer=%u and a preroll of %u frames), "
			     "more than stream_mem=%" PRIu64 " (%s); raise -o "
			     "stream_mem, or lower -o preroll", tl->name, need,
			     need_h, slots, frame_h, cfg->buffer, cfg->preroll,
			     limit, lim_h);
	else
		eng_diag_add(diag, tl->path, 0,
			     "each stream of this timeline needs %" PRIu64
			     " bytes (%s: a ring of %" PRIu64 " frames of up "
			     "to %s, buffer=%u), more than stream_mem=%" PRIu64
			     " (%s); raise -o stream_mem, or lower -o buffer or "
			     "the timeline's track rates", need, need_h, slots,
			     frame_h, cfg->buffer, limit, lim_h);
	return -EFBIG;
}

int eng_player_mem_preset(const struct eng_gen_format *f,
			  const struct eng_player_config *cfg, uint64_t *bytes)
{
	struct eng_timeline *tl;
	char name[16];
	uint32_t i;
	int rc = -ENOMEM, t;

	if (!f || !cfg || !bytes)
		return -EINVAL;
	tl = eng_tl_new("preset", "preset.tl");
	if (!tl)
		return -ENOMEM;
	tl->fps = f->fps;
	/* one clip of 100 frames on every track, as timelinefs-gen writes
	 * the preset's: a picture, else its rate, and its audio */
	t = f->pic.pix != ENG_PIX_NONE ?
	    eng_tl_add_picture_track(tl, "V", &f->pic) :
	    eng_tl_add_track(tl, "V", f->video_rate, 1);
	for (i = 0; t >= 0 && i < f->audio_tracks; i++) {
		snprintf(name, sizeof(name), "A%u", (unsigned)(i + 1));
		t = eng_tl_add_track(tl, name, f->audio_rate, 3);
	}
	if (t >= 0)
		t = eng_tl_clip(tl, "preset", 0);
	for (i = 0; t >= 0 && i < tl->ntracks; i++)
		t = eng_tl_add_segment(tl, i, 0, 0, 0, 100, 0);
	if (t >= 0 && eng_tl_finalize(tl, NULL) == 0)
		rc = eng_player_mem(tl, cfg, bytes, NULL);
	else if (t < 0)
		rc = t;
	else
		rc = -EINVAL;
	eng_tl_free(tl);
	return rc;
}

unsigned eng_player_files_default(uint64_t nofile)
{
	uint64_t n = nofile > ENG_PLAYER_FDS_OWN ?
		     (nofile - ENG_PLAYER_FDS_OWN) /
		     ENG_PLAYER_STREAMS_EXPECTED : 0;

	if (n < ENG_PLAYER_FILES_MIN)
		return ENG_PLAYER_FILES_MIN;
	return n > ENG_PLAYER_FILES_DEFAULT ? ENG_PLAYER_FILES_DEFAULT :
					      (unsigned)n;
}

/* A loader's buffers; 0 or -ENOMEM (what it got is freed with p). */
static int loader_new(struct eng_player *p, struct loader *ld)
{
	const struct eng_timeline *tl = p->tl;

	ld->p = p;
	if (tl->dep_reads_max) {
		ld->deps = calloc(tl->dep_reads_max, sizeof(*ld->deps));
		ld->which = calloc(tl->dep_reads_max, sizeof(*ld->which));
		if (!ld->deps || !ld->which)
			return -ENOMEM;
	}
	if (p->bounce_bytes &&
	    posix_memalign(&ld->bounce, DIRECT_ALIGN, p->bounce_bytes)) {
		ld->bounce = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* A load's tables; 0 or -ENOMEM (what it got is freed with p). */
static int load_new(struct eng_player *p, struct load *l)
{
	l->pend = calloc(eng_pl_reads_max(p->tl), sizeof(*l->pend));
	l->plan = calloc(p->tl->ntracks, sizeof(*l->plan));
	return l->pend && l->plan ? 0 : -ENOMEM;
}

static int ahead_new(struct eng_player *p)
{
	const struct eng_timeline *tl = p->tl;
	size_t t, i;

	p->nahead = ahead_count(tl, p->nld);
	if (!p->nahead)
		return 0;
	p->ahead = calloc(p->nahead * tl->ntracks, sizeof(*p->ahead));
	if (!p->ahead)
		return -ENOMEM;
	for (t = 0; t < tl->ntracks; t++)
		for (i = 0; eng_track_reorders(tl, t) && i < p->nahead; i++) {
			p->ahead[t * p->nahead + i].buf =
			    malloc((size_t)tl->dep_bytes_max);
			if (!p->ahead[t * p->nahead + i].buf)
				return -ENOMEM;
		}
	return 0;
}

/* The memory eng_player_new allocated, and p. */
static void free_mem(struct eng_player *p)
{
	unsigned i;
	size_t j;

	eng_pl_seq_free(p->seq);
	for (i = 0; p->ld && i < p->nld; i++) {
		free(p->ld[i].deps);
		free(p->ld[i].which);
		free(p->ld[i].bounce);
	}
	for (j = 0; p->loads && j < p->nloads; j++) {
		free(p->loads[j].pend);
		free(p->loads[j].plan);
	}
	for (j = 0; p->ahead && j < p->nahead * p->tl->ntracks; j++)
		free(p->ahead[j].buf);
	free(p->ahead);
	free(p->ld);
	free(p->loads);
	free(p->fifo);
	free(p->mov_start);
	free(p->spill);
	free(p->fds);
	free(p->copy_iov);
	free(p->dec);
	free(p->held);
	free(p->handed);
	free(p->failed);
	free(p->ring);
	free(p);
}

void eng_pl_ring_touch(struct eng_player *p)
{
	/* the whole ring at once: otherwise the first pass of a stream
	 * takes a page fault per 4 KiB inside its backing reads (seen: 5 %
	 * of the daemon's CPU on 10 s timelines) */
	if (!p->ring_touched)
		memset(p->ring, 0, p->nslots * p->slot_bytes);
	p->ring_touched = 1;
}

int eng_player_new(const struct eng_timeline *tl,
		   const struct eng_player_config *cfg,
		   struct eng_player **out)
{
	struct eng_player *p;
	struct ring_plan rp;
	unsigned __int128 ring_bytes;
	size_t nfds, i;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!cfg || !cfg->io || !cfg->io->now || !cfg->io->sleep_until ||
	    !cfg->io->open || !cfg->io->pread || !cfg->io->close)
		return -EINVAL;
	rc = plan_ring(tl, cfg, &rp);
	if (rc < 0)
		return rc;
	if (cfg->mem_max && rp.mem > cfg->mem_max)
		return -EFBIG;
	ring_bytes = rp.ring_bytes;
	if (ring_bytes > SIZE_MAX / 2 || rp.nslots > INT32_MAX)
		return -ENOMEM;

	rc = -ENOMEM;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->tl = tl;
	p->cfg = *cfg;
	p->speed = cfg->pace.mode == ENG_PACE_FACTOR ? cfg->pace.speed : 1.0L;
	p->slot_bytes = tl->frame_bytes_max;
	p->filled = rp.filled;
	p->seek_gap = (int64_t)rp.seek_gap;
	p->nslots = (size_t)rp.nslots;
	p->zc_span = (size_t)rp.zc_span;
	if (cfg->drop_passed) {
		eng_evict_init(&p->evict, cfg->pace.mode != ENG_PACE_OFF,
			       cfg->window);
		eng_evict_keep_head(&p->evict, cfg->keep_head);
	}
	nfds = rp.nfds;
	p->lru_new = p->lru_old = -1;
	p->fill_seen = -1;

	/* A ring of several MiB: in 2 MiB pages where the kernel has them
	 * (THP "madvise"), 512 times fewer page faults when it is touched
	 * below, which 15 streams opening at once otherwise pay in the first
	 * frames of the streams already playing. */
	if (ring_bytes >= RING_HUGE) {
		if (posix_memalign((void **)&p->ring, RING_HUGE,
				   (size_t)ring_bytes))
			p->ring = NULL;
		else
			madvise(p->ring, (size_t)ring_bytes, MADV_HUGEPAGE);
	} else {
		p->ring = malloc((size_t)ring_bytes);
	}
	p->failed = calloc(p->nslots, 1);
	if (cfg->window)
		p->held = malloc(p->nslots * sizeof(*p->held));
	p->handed = malloc(p->nslots * sizeof(*p->handed));
	p->dec = calloc(tl->ntracks, sizeof(*p->dec));
	p->nld = rp.nld;
	p->ld = calloc(p->nld, sizeof(*p->ld));
	p->nloads = p->nld > 1 ? p->nslots : 1;
	p->loads = calloc(p->nloads, sizeof(*p->loads));
	p->fifo = calloc(p->nloads, sizeof(*p->fifo));
	p->copy_iov = calloc(p->nslots, sizeof(*p->copy_iov));
	p->fds = calloc(nfds ? nfds : 1, sizeof(*p->fds));
	if (!p->ring || !p->failed || (cfg->window && !p->held) || !p->handed ||
	    !p->dec || !p->ld || !p->loads || !p->fifo || !p->copy_iov ||
	    !p->fds)
		goto err_free;
	p->bounce_bytes = rp.bounce_bytes;
	for (i = 0; i < p->nld; i++)
		if (loader_new(p, &p->ld[i]) < 0)
			goto err_free;
	for (i = 0; i < p->nloads; i++)
		if (load_new(p, &p->loads[i]) < 0)
			goto err_free;
	if (ahead_new(p) < 0)
		goto err_free;
	for (i = 0; p->held && i < p->nslots; i++)
		p->held[i] = -1;
	for (i = 0; i < p->nslots; i++)
		p->handed[i] = -1;
	p->spill_bytes = rp.spill_bytes;
	if (p->spill_bytes) {
		p->spill = malloc(p->spill_bytes);
		if (!p->spill)
			goto err_free;
	}
	if (!rp.zc_able)
		eng_pl_ring_touch(p);
	for (i = 0; i < nfds; i++) {
		p->fds[i].fd = -1;
		p->fds[i].newer = p->fds[i].older = -1;
	}
	rc = eng_pl_seq_new(p);
	if (rc)
		goto err_free;
	rc = init_sync(p);
	if (rc)
		goto err_free;
	p->st.head = p->head;
	*out = p;
	return 0;
err_free:
	free_mem(p);
	return rc;
}

void eng_player_free(struct eng_player *p)
{
	if (!p)
		return;
	eng_player_stop(p);
	eng_pl_fds_close(p);
	eng_pl_zc_free(p);
	eng_pl_fdr_free(p);
	pthread_cond_destroy(&p->zc_cv);
	pthread_mutex_destroy(&p->zc_lock);
	pthread_cond_destroy(&p->fd_cv);
	pthread_mutex_destroy(&p->fd_lock);
	pthread_cond_destroy(&p->work_cv);
	pthread_cond_destroy(&p->ready_cv);
	pthread_cond_destroy(&p->fill_cv);
	pthread_mutex_destroy(&p->stats_lock);
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->req_lock);
	free_mem(p);
}

void eng_player_stats(struct eng_player *p, struct eng_player_stats *st)
{
	pthread_mutex_lock(&p->stats_lock);
	*st = p->st;
	pthread_mutex_unlock(&p->stats_lock);
}
