/* SPDX-License-Identifier: MIT */
/*
 * The player's internals, shared by its files and by nothing else.  One job
 * a file:
 *   player.c       a player's life: the ring's plan and memory, new, free
 *   player_load.c  loading a frame into its ring slot: the clock, the
 *                  preads, publishing the frame (frames in order, however
 *                  many loaders read at once)
 *   serve.c        a request's one way down and back: the lock, zero
 *                  copy's decision, its frames' parts into the answer
 *                  (ring iovecs or a reply pipe), the page cache passed
 *   player_read.c  a request's positioning of the ring (play on,
 *                  re-read, seek), waiting for or loading its frames
 *   player_fill.c  the filler thread of a paced stream, and its loader
 *                  threads (cfg.frames_in_flight)
 *   player_fds.c   the stream's cache of open media fds (LRU, limits)
 *   player_zc.c    zero copy: the slots' pipes, the reply pipes teed from
 *                  them
 * Locks: struct eng_player's fields name theirs; the functions below say
 * which they need.
 */
#ifndef ENG_PLAYER_I_H
#define ENG_PLAYER_I_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "io/io.h"
#include "media/imgseq.h"
#include "play/evict.h"
#include "play/player.h"
#include "timeline/layout.h"
#include "timeline/model.h"
#include "util/values.h"

/* O_DIRECT's alignment of offset, length and buffer. */
#define DIRECT_ALIGN 4096ULL

/* Fields of the fds below are protected by eng_player.fd_lock. */
struct media_fd {
	int fd;			/* -1: not open (yet, or closed again) */
	/* loaders reading through fd now: it is never closed (LRU, a
	 * failed check) while one is */
	unsigned users;
	int opening;		/* a loader opens it now (fd_open) */
	int direct;		/* the fd really is O_DIRECT */
	int opened;		/* was open once: opening it again is a reopen */
	/* the open ones, most recently used first (indices into fds, -1
	 * ends): the least recently used is closed past cfg.max_files */
	int32_t newer, older;
	uint64_t checked_ns;	/* last io->check of fd */
};

/* What the reader's decoder of one track last read: where the next
 * read follows it (the same media, its next frame) it needs no
 * decoding dependencies. */
struct dec_state {
	const void *media;	/* the eng_media read, NULL: none yet */
	int64_t src;		/* its media frame */
	int64_t next;		/* the decode position it reads next */
};

/* What a load reads of one track's long-GOP media (decided at its
 * reservation): the frames at decode positions [from, its frame's), then
 * its frame (own), or none and its frame's bytes from p->ahead[copy], where
 * an earlier load that read it ahead keeps it. */
struct dec_plan {
	int64_t from;
	int own;		/* 0: no decoder reads (raw, intra, a gap) */
	long copy;		/* -1: none */
};

/* A frame read before its turn (B frames: the P frame shown after them),
 * kept until its load copies it (lock): reserved by the load that reads it
 * (owner), claimed by the one that plays it; orphan once a cut or seek
 * leaves it unplayed (freed when its read is done). */
enum { AH_FREE, AH_READING, AH_READY };
struct ahead {
	const void *media;
	int64_t src;
	const struct load *owner;
	int state, claimed, orphan, failed;
	unsigned char *buf;	/* [tl->dep_bytes_max] */
};

/* A load's state (lock): free, or its frame reserved and being read, or
 * read and waiting for the frames before it to be published. */
enum { LD_IDLE, LD_READING, LD_DONE };

/* One frame being loaded: reserved under the lock (load_begin), read with
 * the lock released (load_read), published under the lock (load_end).
 * Its rows wait in pend until then: one load per ring slot where loader
 * threads read (a frame read early waits for the ones before it without
 * holding a loader), else one (p->loads[0]). */
struct load {
	/* [eng_pl_reads_max]: the reads of its frame, recorded once it is
	 * known whether it was played (eng_pl_load_finish) */
	struct eng_access *pend;
	/* [ntracks]: what its frame's decoders read, decided at
	 * reservation (in frame order, p->dec) */
	struct dec_plan *plan;
	int state;		/* LD_*; lock */
	struct loader *ld;	/* the loader that reads it (its buffers) */
	int64_t k;
	size_t slot;
	uint64_t epoch;		/* p->epoch at reservation */
	uint64_t sched, due;
	/* the issue's evidence (eng_access.filled, wake_ns, ring_fill):
	 * wake_at when the filler should have run to issue it (its timed
	 * wait's end, or the signal that woke it if the frame's time was
	 * earlier; 0: it ran straight on); wake_known: its first read was
	 * kept (its wake_ns measured from wake_at, the others' from the
	 * read before) */
	int filled, wake_known;
	uint64_t wake_at;
	int64_t ring_fill;
	uint64_t last_done, worst;
	int reads, failed;
	int replay;		/* played before: not played (counted) twice */
	int played;		/* published and not a replay (load_end) */
	size_t npend;		/* its reads in pend */
	int held;		/* its slot holds it still: no read */
	/* in flight when a file server's first requests moved the anchor
	 * back (player_read.c): published into its slot, not dropped, though
	 * its ring was restarted */
	int kept;
};

/* One loader: the buffers a frame's reads need while they are read, so
 * that cfg.frames_in_flight frames are read at once, each by its own
 * loader.  Loader 0 serves the one-at-a-time loads (a request's, the
 * filler's own without loader threads); with loader threads running,
 * loader i is thread i's. */
struct loader {
	struct eng_player *p;
	/* [tl->dep_reads_max] or NULL: a frame's decoding dependencies
	 * (eng_slice_deps) */
	struct eng_slice_ext *deps;
	int64_t *which;		/* [tl->dep_reads_max]: their media frames */
	/* aligned, p->bounce_bytes, for O_DIRECT reads and decoding
	 * dependency reads (whose bytes are not served); or NULL */
	void *bounce;
	struct load *cur;	/* the load it reads, NULL: free; lock */
	pthread_t thread;
};

/* A frame whose replies come from the clips' files (player_fdr.c), its
 * access rows kept until the bytes of each track have gone: k -1 none. */
struct fdr_slot {
	int64_t k;
	uint64_t due;
	int played;
	int reads;		/* its backing accesses (no waits) */
	size_t nrows;
	struct eng_access *rows;	/* [eng_pl_reads_max] */
	uint64_t *left;		/* [ntracks] bytes not yet replied */
	uint64_t *last;		/* [ntracks] its last reply's time, or 0 */
};

/* p->zc: the replies are pieces of the clips' files (player_fdr.c) */
#define ENG_PL_ZC_FILES 2

struct eng_player {
	/* Held by a request from eng_player_serve() to eng_player_answered()
	 * (a ring answer: its frames stay in the ring while the caller
	 * replies from them) or to the end of eng_player_serve() (a pipe
	 * answer, which holds its pages itself): one request served at a
	 * time.  The filler never takes it. */
	pthread_mutex_t req_lock;
	/* The ring's state; held only briefly (never across a pread or a
	 * sleep), so a reply never delays an issue. */
	pthread_mutex_t lock;
	pthread_cond_t fill_cv;	/* the filler waits: time, room, anchoring */
	pthread_cond_t ready_cv; /* requests wait for the filler's frames */
	/* Set at creation, read-only afterwards. */
	const struct eng_timeline *tl;
	struct eng_player_config cfg;
	long double speed;	/* 1 for realtime and off */
	size_t nslots;
	size_t slot_bytes;	/* tl->frame_bytes_max */
	int64_t seek_gap;	/* frames past head still read as "play on" */
	int filled;		/* paced with cfg.filler: frames come from the
				 * filler, not from the request */
	/* Everything below is protected by lock.  A reserved ring slot and
	 * its loader's buffers are written only by that loader between
	 * load_begin and load_end, without the lock. */
	unsigned char *ring;	/* [nslots * slot_bytes], frame f in f % nslots */
	int ring_touched;	/* eng_pl_ring_touch */
	unsigned char *failed;	/* [nslots]: the slot's frame had a failed read */
	/* [nslots]: the frame whose bytes the slot holds, -1 none.  It
	 * stays valid after the ring restarts below it, so that a played
	 * frame loaded again while its slot still holds it costs no second
	 * read of the storage (only in the ring: a pipe gives its bytes
	 * once).  NULL without cfg.window (still_held). */
	int64_t *held;
	/* [nslots]: the frame whose last byte a request handed out of each
	 * slot (-1: none yet), so that a frame read again (a reload, a
	 * file server's overlapping requests) counts once in
	 * st.handed_frames and st.reader_late_frames (count_handed) */
	int64_t *handed;
	/* [ntracks]: what each track's decoder last read, as the frames
	 * are reserved (in order), whoever reads them */
	struct dec_state *dec;
	/* [ntracks * nahead] (lock): frames read before their turn, nahead
	 * a track (tl->dep_ahead_max + nld + 1 where the track reorders, its
	 * buffers NULL otherwise); full, a frame is read again at its turn */
	struct ahead *ahead;
	size_t nahead;
	/* [nld] loaders: cfg.frames_in_flight for a filled player, else 1
	 * (set at creation) */
	struct loader *ld;
	unsigned nld;
	/* [nloads]: nslots with loader threads possible (nld > 1), else 1;
	 * eng_pl_load_of */
	struct load *loads;
	size_t nloads;
	/* Loader threads (eng_player_start, eng_player_start_loaders):
	 * the loads reserved, in the order they were reserved (indices
	 * into loads), published in that order (load_publish). */
	size_t *fifo;
	size_t nfifo;
	int publishing;		/* a loader publishes and records now */
	int loaders_on;		/* loader threads started, not joined */
	int loaders_stop;	/* asked to stop */
	pthread_cond_t work_cv;	/* loaders wait for a reserved frame */
	struct iovec *copy_iov;	/* [nslots] for eng_player_copy(); req_lock */
	/* cfg.drop_passed: the page cache passed and not yet dropped;
	 * req_lock */
	struct eng_evict evict;
	/* The copied tail of a request of more pieces than cfg.max_pieces
	 * (NULL where none can need it); req_lock */
	unsigned char *spill;
	size_t spill_bytes;
	/* A movie stream's first timeline bytes as it played them (up to
	 * cfg.max_request; movie.c): the kernel's readahead around the
	 * header's end asks for them again long after, and they are served
	 * from here, moving no play head.  req_lock */
	unsigned char *mov_start;
	size_t mov_start_len;	/* bytes from 0 kept (mov_iv[0]) */
	/* the ranges kept, disjoint and sorted: requests come out of order
	 * under load, and those beyond a hole join once it fills */
	size_t mov_iv[8][2];
	int mov_niv;
	/* The fds and their counts (into st at load_end): shared by the
	 * loaders, under fd_lock, which is taken alone or inside lock,
	 * never around it, and never held across an open or a read. */
	pthread_mutex_t fd_lock;
	pthread_cond_t fd_cv;	/* a loader waits for another's open */
	struct media_fd *fds;	/* [nclips * ntracks], opened lazily */
	int32_t lru_new, lru_old; /* the open fds' list ends, -1: none */
	unsigned nopen, open_peak;
	uint64_t opens, reopens, open_retries;
	size_t bounce_bytes;	/* each loader's bounce, 0: none */
	int64_t lo, head;	/* the ring holds frames [lo, head) */
	/* The next frame to reserve: frames [head, next) are being loaded
	 * (at most nld); next is head whenever the ring restarts and none
	 * is. */
	int64_t next;
	/* One past the newest frame played since the clock was anchored:
	 * frames below it that are loaded again are re-reads, not played
	 * (counted) a second time. */
	int64_t hwm;
	/* Frames played on the clocks before the latest seek, when the
	 * seek went back to just before them (seen_after).  Loaded again on
	 * the new clock they are re-reads, not played twice. */
	int64_t seen_lo, seen_hi;
	/* First frame of the latest request: the filler never evicts it or
	 * anything above it, so that request (and a re-read of it) is
	 * served from the ring. */
	int64_t need_lo;
	/* Bumped whenever the ring restarts (seek, re-read behind it): a load
	 * reserved before is not published. */
	uint64_t epoch;
	int loading;		/* frames reserved and not yet finished */
	int waiters;		/* requests waiting on ready_cv */
	int anchored;
	uint64_t anchor_ns;
	int64_t anchor_frame;
	/* the filler thread */
	pthread_t filler;
	int filler_on;		/* started and not yet joined */
	int stop;		/* asked to stop */
	/* eng_player_cancel: requests stop waiting for frames (-EINTR) */
	int cancelled;
	int fill_waiting;	/* 0, or the ENG_FILL_* it waits on */
	/* the live causes' backlog (play/cause.h), of the rows in the
	 * order they are published */
	struct eng_cause_state cause;
	/* What the filler last waited for before frame next: when it
	 * should run, the end of its timed wait, the signal that woke it,
	 * or the end of its frame before when it runs straight on (0: it
	 * waits for room or a loader), and the ring's fill (next - need_lo)
	 * when it found no room (-1: it had room) */
	uint64_t wake_at;
	int64_t fill_seen;
	/* st is written under lock and stats_lock, read under stats_lock
	 * alone: a status reader must not wait for a player sleeping until
	 * its next frame is due. */
	pthread_mutex_t stats_lock;
	struct eng_player_stats st;
	/* Zero copy: 0 undecided (no read yet), 1 the slots' bytes are in
	 * pipes, -1 in the ring, ENG_PL_ZC_FILES (2) nowhere: the replies
	 * are the clips' files (fdr).  Per slot (zc > 0): its pipe and the bytes
	 * the loader put in, of the one loader and the request holding
	 * req_lock (pace=off: the same).  The scratch pipe is the request's
	 * holding req_lock. */
	int zc;
	size_t zc_span;	/* the most frames a request spans (set at creation) */
	/* Pipes a slot (zc_k: 1, or more where a frame is larger than a
	 * pipe the host allows) and the bytes each holds before the next
	 * takes over (zc_budget); the slot's j-th is zc_fds[slot * zc_k + j]
	 * (set at the decision, read-only afterwards) */
	size_t zc_k, zc_budget;
	int (*zc_fds)[2];
	size_t *zc_fill;
	int zc_scratch[2];
	/* Reply pipes: a request's frames are teed into a free one with
	 * req_lock held, and the caller replies from it with req_lock let
	 * go, so that one stream's replies (the kernel's copy of their
	 * pages, most of a reply's time) run side by side where the kernel
	 * sends requests together (readahead, a direct_io read larger than
	 * a request).  The first made at the decision, more as requests
	 * overlap, up to ENG_ZC_REPLIES (zc_nomore: the host refused one);
	 * zc_cur, the one being filled, under req_lock; the rest under
	 * zc_lock, whose zc_cv wakes a request waiting for a free one. */
	int zc_replies[ENG_ZC_REPLIES][2];
	size_t zc_nreply;
	unsigned zc_busy;
	int zc_nomore, zc_cur;
	pthread_mutex_t zc_lock;
	pthread_cond_t zc_cv;
	/* Replies from the clips' files (zc == ENG_PL_ZC_FILES,
	 * player_fdr.c): per slot, its frame's rows until its bytes have
	 * gone to the reader (lock); fdr_mem holds their arrays */
	struct fdr_slot *fdr;
	void *fdr_mem;
	/* A timeline of image sequences: the images each track last read
	 * (hold) under its own lock (player_seq.c); NULL for others */
	struct eng_pl_seq *seq;
};

/* Duration of k frames at the player's speed, in ns.  At speed 1 the
 * integer form is exact, so that schedules can be checked to the ns. */
static inline uint64_t period_ns(const struct eng_player *p, int64_t k)
{
	const struct eng_fps *fps = &p->tl->fps;
	long double v;

	if (k <= 0)
		return 0;
	if (p->speed == 1.0L)
		return (uint64_t)((unsigned __int128)k * fps->den *
				  ENG_NS_PER_SEC / fps->num);
	v = (long double)k * fps->den * 1e9L / fps->num / p->speed;
	/* keep the clock sane even for absurdly slow factors */
	return v >= 9e18L ? (uint64_t)9e18 : (uint64_t)v;
}

/* Frame k's time on the stream's clock: its presentation is due
 * cfg.buffer frames after it.  Late frames are counted from here. */
static inline uint64_t clock_ns(const struct eng_player *p, int64_t k)
{
	return p->anchor_ns + period_ns(p, k - p->anchor_frame);
}

/* When frame k's reads are issued: cfg.preroll frames ahead of its clock
 * time, so the preroll's frames are all issued at the anchoring, at once
 * (period_ns is 0 for them), as an application reads before it plays. */
static inline uint64_t issue_ns(const struct eng_player *p, int64_t k)
{
	return p->anchor_ns +
	       period_ns(p, k - p->anchor_frame - (int64_t)p->cfg.preroll);
}

/* Frame k was played on the current clock, or on one before it that the
 * latest seek went back to (seen_after): loaded again it is a re-read,
 * not played (counted) twice.  Lock held. */
static inline int replayed(const struct eng_player *p, int64_t k)
{
	return k < p->hwm || (k >= p->seen_lo && k < p->seen_hi);
}

/* Frame k, played, is still in its slot (the ring restarted below it):
 * loaded again it costs no read.  Only for a reader of many reads in
 * flight (cfg.window), whose late requests restart the ring by design;
 * a one-read reader going back re-reads as the workstation would (the
 * accounting docs/playback.md gives for dd).  Lock held. */
static inline int still_held(const struct eng_player *p, int64_t k)
{
	size_t slot = (size_t)(k % (int64_t)p->nslots);

	return p->held && p->zc <= 0 && replayed(p, k) &&
	       p->held[slot] == k && !p->failed[slot];
}

static inline void record(const struct eng_player *p, const struct eng_access *a)
{
	if (p->cfg.record)
		p->cfg.record(p->cfg.record_ctx, a);
}

/* The most backing reads of one frame: each track's slice in up to
 * tl->slice_extents_max extents, and where the frame starts a run of its
 * media (a cut, a seek), its decoding dependencies: up to
 * tl->dep_reads_max. */
/* A header of more reads than this fails its frame (player_seq.c). */
#define ENG_PL_SEQ_HEADER_READS 16
/* The most rows of a slice of an image sequence: a missing image's open,
 * then the held image's open, header reads, a read per run, close. */
#define ENG_PL_SEQ_ROWS (1 + 1 + ENG_PL_SEQ_HEADER_READS + ENG_SEQ_EXTENTS + 1)
/* Has any (clip, track) of tl an image sequence (eng_media.seq)? */
int eng_pl_seq_any(const struct eng_timeline *tl);

/* (and one ENG_OP_AWAIT row a track: a slice of a clip still being
 * recorded, cfg.growing, is one read of raw essence, waited for once) */
static inline size_t eng_pl_reads_max(const struct eng_timeline *tl)
{
	size_t ext = tl->slice_extents_max ? tl->slice_extents_max : 1;
	size_t per = ext + (size_t)tl->dep_reads_max;

	if (per < ENG_PL_SEQ_ROWS && eng_pl_seq_any(tl))
		per = ENG_PL_SEQ_ROWS;
	return tl->ntracks * (per + 1);
}

/* player_fds.c: the loaders call these, without the lock. */
/* The fd of (clip, track), opened on first use (see player_fds.c), in
 * use until eng_pl_media_put. */
int eng_pl_media_fd(struct eng_player *p, uint32_t clip, size_t t,
		    int *direct);
/* The read through eng_pl_media_fd's fd is done. */
void eng_pl_media_put(struct eng_player *p, uint32_t clip, size_t t);
/* Close every media fd the stream has open, at its end. */
void eng_pl_fds_close(struct eng_player *p);

/* player_load.c */
/* A short read of a clip being recorded: wait for its bytes up to end
 * (one ENG_OP_AWAIT row in l->pend); 1 when they are there. */
int eng_pl_await_bytes(struct eng_player *p, struct load *l, int fd,
		       const char *file, uint64_t end,
		       const struct eng_access *a);
/* The load of frame k. */
static inline struct load *eng_pl_load_of(struct eng_player *p, int64_t k)
{
	return &p->loads[p->nloads == 1 ? 0 : (size_t)(k % (int64_t)p->nslots)];
}
/* Reserve frame p->next in its load, to be read with ld's buffers (lock
 * held); the load is left LD_READING. */
struct load *eng_pl_load_begin(struct eng_player *p, struct loader *ld);
/* The cause of a frame of rows[0..n) (lock held, frames in the order
 * their rows end): the greatest of its rows', each row through the
 * stream's backlog. */
enum eng_cause eng_pl_rows_cause(struct eng_player *p,
				 const struct eng_access *rows, size_t n);
/* A frame's reads timed into the stream's figures: its reads and worst
 * read; where played, late (by cause) when last_done is past due, and
 * its headroom (stats_lock held). */
void eng_pl_count_timed(struct eng_player *p, int played, int reads,
			uint64_t worst, uint64_t last_done, uint64_t due,
			enum eng_cause cause);
/* A row of l's frame: zeroed, its frame, schedule, due time and issue
 * evidence set. */
void eng_pl_row_init(const struct load *l, struct eng_access *a);
/* Its preads, without the lock. */
void eng_pl_load_read(struct eng_player *p, struct load *l);
/* One timed read of len bytes at off of fd into dst (NULL: into bounce,
 * bytes not kept: a decoding dependency), a's issue and done times and
 * injected faults filled; where direct, the aligned superset O_DIRECT
 * wants is read into bounce and the bytes copied out.  Bytes of [off,
 * off + len) read (short at the file's end) or -errno (-EFBIG: more than
 * bounce holds).  The loader's: bounce is its buffer. */
ssize_t eng_pl_pread(struct eng_player *p, void *bounce, int fd, int direct,
		     void *dst, size_t len, uint64_t off,
		     struct eng_access *a);
/* Keep row a of the reserved frame l for recording (cfg.record) and its
 * live cause, its time the frame's: the slowest, the last done, the
 * reads.  Returns its index in l->pend. */
long eng_pl_keep(struct load *l, const struct eng_access *a);
/* Publish it (lock held); the loader stays reserved until finish. */
void eng_pl_load_end(struct eng_player *p, struct load *l);
/* Record its reads, now that played is known (lock held, dropped while
 * recording: a full recorder queue blocks), and end the reservation. */
void eng_pl_load_finish(struct eng_player *p, struct load *l);
/* Reader-driven load of frame p->head (none in flight): lock held,
 * dropped while sleeping and reading. */
void eng_pl_load_frame(struct eng_player *p);
/* Publish and record the loader threads' frames read so far, in order
 * (lock held, dropped while recording). */
void eng_pl_load_publish(struct eng_player *p);

/* player.c */
/* Touch the ring's pages once (lock held): at creation, or where the
 * stream may take zero copy (whose pipes hold its frames, the ring none)
 * at the first request that declines it. */
void eng_pl_ring_touch(struct eng_player *p);

/* player_read.c */
/* Position the ring for a request [off, off + *lenp) and get its frames
 * [*ap, *bp] loaded, with both locks held (the lock released while
 * waiting): 1 (*lenp clipped to the file), 0 (nothing to read) or
 * -errno; the locks stay held in every case. */
int eng_pl_position(struct eng_player *p, uint64_t off, size_t *lenp,
		    int64_t *ap, int64_t *bp, int nonblock);

/* serve.c */
/* eng_player_serve() of [off, off + len) of the timeline, which is byte
 * at of the file the reader reads (a movie's header before it); ans's
 * drop range in the file's bytes. */
ssize_t eng_pl_serve(struct eng_player *p, uint64_t off, size_t len,
		     struct eng_answer *ans, int nonblock, uint64_t at);
/* ans's player-set fields: nothing to answer. */
void eng_pl_answer_init(struct eng_answer *ans);
/* The page cache passed by the reader at byte at of the file, into ans
 * (req_lock held). */
void eng_pl_drop(struct eng_player *p, uint64_t at, struct eng_answer *ans);

/* player_fill.c */
/* Wake the filler when it waits for something a request just changed
 * (lock held). */
void eng_pl_wake_filler(struct eng_player *p, int reanchored);

/* player_seq.c */
/* The bytes eng_pl_seq_new takes for tl (0: no sequence). */
size_t eng_pl_seq_mem(const struct eng_timeline *tl);
/* p->seq for a timeline of sequences (else left NULL): 0 or -ENOMEM. */
int eng_pl_seq_new(struct eng_player *p);
void eng_pl_seq_free(struct eng_pl_seq *q);
/* Slice s of the reserved frame l, whose media is an image sequence,
 * into at (zero copy: the slot's pipe): its image's open, header reads,
 * data reads and close, each a row in l->pend; a missing image by its
 * clip's policy; l->failed where the frame fails.  The loader's (l->ld's
 * bounce buffer). */
void eng_pl_seq_read(struct eng_player *p, struct load *l,
		     const struct eng_slice *s, unsigned char *at);

/* player_zc.c */
/* The bytes of a zero-copy player's pipe for slot_bytes of a frame, and
 * of its reply pipe (span frames, k pipes a slot). */
size_t eng_pl_zc_pipe_bytes(const struct eng_timeline *tl, size_t slot_bytes);
size_t eng_pl_zc_reply_bytes(const struct eng_timeline *tl, size_t span,
			     size_t k, size_t max_request);
/* Decide zero copy at the first request (lock held); fdmax: the pieces
 * of the clips' files the caller's answers take (eng_answer.fdp), 0
 * none. */
void eng_pl_zc_decide(struct eng_player *p, size_t len, int fdmax);
/* Empty slot's pipe of what its last frame left (the loader). */
void eng_pl_zc_reset_slot(struct eng_player *p, size_t slot);
/* A gap's zero bytes into the reserved slot's pipe (the loader). */
void eng_pl_zc_zero(struct eng_player *p, struct load *l, size_t len);
/* len zero bytes of the reserved frame l at at, or into its slot's pipe
 * for a zero-copy player (the loader). */
void eng_pl_zeros(struct eng_player *p, struct load *l, unsigned char *at,
		  size_t len);
/* One backing read into a slot's pipe (the loader): a's times and err
 * (EIO when short); the bytes put in the pipe, or -errno. */
ssize_t eng_pl_zc_splice(struct eng_player *p, int fd, uint64_t off,
			 uint64_t len, struct eng_access *a);
/* A free reply pipe for the request holding req_lock, made if none is
 * and ENG_ZC_REPLIES allow, else waited for: it becomes zc_cur, and the
 * request's until eng_pl_zc_reply_put().  Its read end. */
int eng_pl_zc_reply_get(struct eng_player *p);
/* The reply pipe whose read end is rd given back, emptied first unless
 * `empty` (the reply took every byte and the pipe holds none). */
void eng_pl_zc_reply_put(struct eng_player *p, int rd, int empty);
/* Bytes [from, from + part) of slot's frame appended to the reply pipe
 * zc_cur (req_lock held): 0 or -EIO. */
int eng_pl_zc_take(struct eng_player *p, size_t slot, size_t from,
		   size_t part);
/* The scratch pipe and the reply pipe zc_cur emptied (req_lock held). */
void eng_pl_zc_clear(struct eng_player *p);
/* Does a request of frames [a, b] need a frame moved out (lock held)? */
int eng_pl_zc_gone(const struct eng_player *p, int64_t a, int64_t b);
/* The pipes of a zero-copy player, at its end. */
void eng_pl_zc_free(struct eng_player *p);

/* player_fdr.c */
/* Replies from the clips' files for this player, its caller taking
 * answers of fdmax pieces (lock held, at the first request)?  1: its
 * slots' rows allocated, else 0. */
int eng_pl_fdr_decide(struct eng_player *p, int fdmax);
/* Its slots' rows, at its end. */
void eng_pl_fdr_free(struct eng_player *p);
/* The load's check of one extent of fd (the loader): are its bytes in
 * the file (a clip being recorded waited for where awaitable)?  a's
 * issue time, and err EIO where they are not. */
void eng_pl_fdr_extent(struct eng_player *p, struct load *l, int fd,
		       const char *file, uint64_t off, uint64_t len,
		       int awaitable, struct eng_access *a);
/* A loaded frame's rows into its slot, recorded once its bytes have gone
 * (l->npend 0 after); the slot's frame before it recorded now (lock). */
void eng_pl_fdr_publish(struct eng_player *p, struct load *l, int live);
/* Every slot's frame recorded, whatever went (lock held; the end). */
void eng_pl_fdr_flush(struct eng_player *p);
/* Request [off, off + len) of frames [a, b] as pieces of the clips'
 * files into ans (req_lock held): 0, -EIO or -E2BIG. */
int eng_pl_fdr_answer(struct eng_player *p, uint64_t off, size_t len,
		      int64_t a, int64_t b, struct eng_answer *ans);
/* ans's reply written (consumed: whole): its files given back, the
 * rows of the tracks whose last bytes it carried done (no lock held). */
void eng_pl_fdr_answered(struct eng_player *p, const struct eng_answer *ans,
			 int consumed);

#endif /* ENG_PLAYER_I_H */
