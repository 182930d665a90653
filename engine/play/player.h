/* SPDX-License-Identifier: MIT */
/*
 * The player (player*.c): one stream of a timeline, paced at its frame
 * rate.  Owns the ring of frames, the clock of the stream (anchored at the
 * first read, re-anchored at a seek), the filler thread of a paced stream,
 * the stream's media fds and the zero-copy pipes.  Every backing read is
 * recorded once (struct eng_access).  Its memory is allocated at
 * eng_player_new (the zero-copy pipes at the first read, which decides
 * zero copy), never per request; time and I/O come through cfg.io.
 */
#ifndef ENG_PLAYER_H
#define ENG_PLAYER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "io/io.h"
#include "timeline/model.h"
#include "play/cause.h"
#include "util/diag.h"

/* One backing read, as the player issued it.  Times are now() values. */
struct eng_access {
	int64_t frame;
	uint32_t track;
	uint32_t clip;
	uint64_t file_offset;
	uint64_t length;
	uint64_t sched_ns;	/* when the player meant to issue it */
	uint64_t due_ns;	/* the frame's presentation time */
	uint64_t issued_ns;
	uint64_t done_ns;
	int err;		/* 0 or a positive errno */
	unsigned injected;	/* ENG_INJECT_* bits: faults injected into it */
	/* 1: its frame counted as played (in frames, and in late_frames
	 * when late); 0: a re-read of a frame already played (a reload), or
	 * a load that a seek or a re-read behind the ring discarded.  The
	 * player's late frames are the late reads' frames with played 1. */
	int played;
	/* 1: a decoding dependency read (long-GOP media): a frame the
	 * reader's decoder needs before the one played (in decode order),
	 * where a run of the media starts (a cut, a seek) or, with B
	 * frames, the frame shown after them (kept, and not read again at
	 * its turn); its bytes are not the played frame's, its time counts
	 * toward the frame's (lateness) */
	int dep;
	/* What the operation was (enum eng_op): a read, or for an image
	 * sequence each image's open, header reads, data reads and close,
	 * each its own row with its own times (access.op, schema 10).
	 * file_offset and length are the read's; 0 for open and close. */
	uint32_t op;
	/* An image sequence's row: the image's file number (start + i *
	 * step, the number in its name: access.image), with is_image 1;
	 * 0 for other media. */
	int is_image;
	int64_t image;
	/* Why it was issued when it was, for a frame the filler issued
	 * (filled 1; 0: a request's own load, an ingest row: no evidence).
	 * wake_ns: the daemon's own delay before this read (the timer and
	 * the scheduler): for the frame's first read, how much later the
	 * filler issued it than it should have run: at the end of its timed
	 * wait for the frame, at the signal that woke it (room in the ring,
	 * a seek) or at the end of the frame before when it ran straight on,
	 * if the frame's time was earlier: woken late, or given the CPU late
	 * (0 after a wait for a loader); for a later read of the frame, its
	 * issue after the
	 * frame's read before it, which its loader waits for nothing
	 * between.  ring_fill: the frames of the ring
	 * the reader had not yet taken when the filler last found no room
	 * for this frame (eng_player_slots(): the ring was full, the frame
	 * waited for the reader), or at its issue if it always had room. */
	int filled;
	uint64_t wake_ns;
	int64_t ring_fill;
};

/* access.op.  The numbers are the database's (schema/10-tables.sql's op
 * table): never renumbered, new ones appended (ingest's write, fsync). */
enum eng_op {
	ENG_OP_READ = 0,	/* a read of media data (every medium) */
	ENG_OP_OPEN,		/* an image file's open */
	ENG_OP_HEADER,		/* a read of an image file's header */
	ENG_OP_CLOSE,		/* an image file's close */
	ENG_OP_STAT,		/* reserved: a stat */
	/* schema 11: ingest (engine/ingest/ingest.h) and edit while ingest */
	ENG_OP_WRITE,		/* a pwrite of a record stream's track file */
	ENG_OP_FSYNC,		/* its fsync (-o ingest_fsync) */
	ENG_OP_FALLOCATE,	/* its preallocation (-o ingest_prealloc) */
	ENG_OP_TRUNCATE,	/* its ftruncate at close (a preallocation's
				 * blocks given back, a repair) */
	ENG_OP_RECEIVE,		/* a record frame's bytes from the writer:
				 * issued at its first byte accepted, done at
				 * its last; late: the writer's drop */
	ENG_OP_AWAIT,		/* a play of a clip still being recorded,
				 * waiting for its frame to be written:
				 * issued when the read came short, done when
				 * the bytes were there (or given up) */
};
/* "read", "open", "header", "close", "stat", "write", "fsync",
 * "fallocate", "truncate", "receive", "await"; NULL for another. */
const char *eng_op_name(uint32_t op);

typedef void (*eng_record_fn)(void *ctx, const struct eng_access *a);

struct eng_player_config {
	unsigned buffer;	/* frames of lead: a frame is due buffer/fps
				 * after its clock time (its issue time but
				 * for a preroll) */
	/* Frames a reader may read ahead of the clock (a player's preroll):
	 * at each anchoring (the first read, a seek) frames [a, a + preroll)
	 * are issued at once, a burst, and frame k after them preroll
	 * frames before its clock time t0 + (k - a)/fps/speed.  Due times
	 * stay on the clock (t0 + (k - a + buffer)/fps/speed), so a reader
	 * that reads ahead finishes that much sooner and late frames count
	 * as without it.  0: issued at their clock time (dd of NAME).  A
	 * filled player's ring has that many slots more (eng_player_mem). */
	unsigned preroll;
	struct eng_pace pace;
	enum eng_backing backing;
	size_t max_request;	/* largest read the caller will ask for */
	/* The kernel's readahead window of a cached stream, in bytes, where
	 * it is larger than max_request (a mount at the stock pipe-max-size
	 * asks for 512 KiB requests under 1 MiB of readahead): a window is
	 * then several requests in flight, the next window's too, and they
	 * arrive out of order over two windows.  0: max_request. */
	uint64_t readahead;
	const struct eng_io *io;
	eng_record_fn record;	/* called once per backing read, after its
				 * frame's last read (when played is known),
				 * in frame order, one call at a time; may be
				 * NULL; from the filler thread or a loader
				 * thread when they run */
	void *record_ctx;
	/* Paced players only (ignored for pace=off, which stays driven by
	 * the requests): frames are loaded on schedule by eng_player_fill(),
	 * which the thread of eng_player_start() runs, instead of by the
	 * request that needs them. */
	int filler;
	/* Let the player move frames through pipes (io->pipe_new ...) rather
	 * than its ring, so the caller can splice replies with no copy of
	 * the data in user space; paced or not (a filler's loads go into
	 * the pipes as a request's do).  Taken only with buffered
	 * backing, pipes of a frame's bytes that the host allows
	 * (fs.pipe-max-size), no frames read ahead for their turn (B frames
	 * of long-GOP media), a ring of at most ENG_ZC_MAX_SLOTS slots
	 * (frames large enough, buffer and preroll short), and a first request of
	 * at least ENG_ZC_MIN_REQUEST bytes (a small-block reader is served
	 * best by a copy) unless ENG_ZC_ANY_REQUEST (a cached stream: its
	 * requests are the kernel's readahead, whose first is small whatever
	 * the reader's block).  Decided at the first read, for the stream's
	 * life.  ENG_ZC_FILES: an unpaced stream (no filler) whose caller
	 * gives its answers room for them (eng_answer.fdp) has no pipes of
	 * its own either: each reply is pieces of the clips' files, spliced
	 * by the caller, and a frame's access rows time those replies
	 * (eng_player_answered); where its requests' pieces would not fit
	 * ENG_FD_PIECES, or it has image sequences or a filler, as
	 * ENG_ZC_ANY_REQUEST. */
	int zero_copy;
	/* A cached stream (the FUSE file's page cache holds what its reader
	 * read): each answer names the page cache the reader has passed,
	 * to be dropped (eng_answer.drop_len, evict.h), never the file's
	 * first keep_head bytes (a movie's header). */
	int drop_passed;
	uint64_t keep_head;
	/* The most pieces (iovecs) the caller's reply takes, 0 for no
	 * limit.  Where a request of max_request bytes could need more
	 * (frames of under max_request / max_pieces bytes whose sizes
	 * vary), the player keeps a spill buffer for the tail of such a
	 * request (struct eng_pieces), allocated here, never on the read
	 * path. */
	int max_pieces;
	/* Media files (one per (clip, track) played) the stream keeps open
	 * at once; past it the least recently used one is closed, and
	 * opened again when played again (counted in reopens).  An open
	 * that fails with EMFILE or ENFILE closes the least recently used
	 * ones and tries again, until none of the stream's is left: then
	 * the read fails with that errno (its frame with -EIO).  0: no
	 * limit but the process's. */
	unsigned max_files;
	/* Bytes of memory the stream may take (eng_player_mem); 0: no
	 * limit.  eng_player_new refuses more with -EFBIG. */
	uint64_t mem_max;
	/* Bytes of reads the reader keeps in flight at once, beyond a
	 * request and the kernel's readahead window: a file server serves a
	 * client's concurrent reads on several threads, so its requests
	 * arrive out of order over that many bytes (smbd: two 8 MiB SMB2
	 * READs, ENG_PLAYER_WINDOW_SMB).  The ring holds them, requests up to
	 * that far ahead of the play head wait for their frames rather than
	 * seek, and a seek's requests that arrive after one further on
	 * join its clock.  0: a reader of one read at a time (dd, a player). */
	uint64_t window;
	/* Frames whose reads may be in flight at once (-o
	 * frames_in_flight=, an application's reader threads: a grading
	 * application reads 4 to 16 image files at a time): a frame's
	 * reads start at its issue time, or when one of the N frames
	 * before it is done, whichever is later, so that a stall on one
	 * frame (a slow open) delays only the frames that wait for its
	 * reader.  Frames are still published (served) in order.  0 or 1:
	 * one frame at a time, as before.  For every medium, not only
	 * sequences.  Only a filled player (cfg.filler, paced) reads N at
	 * once, on N loader threads (eng_player_start); a player whose
	 * requests load their frames (pace=off, no filler thread running)
	 * and so a zero-copy one keep 1.  At most
	 * ENG_PLAYER_IN_FLIGHT_MAX (eng_player_new: -EINVAL). */
	unsigned frames_in_flight;
	/* Optional (NULL: never): is the media file `file` (the name
	 * io->open was given) being recorded now by a record stream of the
	 * mount?  A read of such a file that comes short (its frame not yet
	 * written) waits for it, one ENG_OP_AWAIT row, instead of failing:
	 * edit while ingest (docs/design.md "Ingest"). */
	int (*growing)(void *ctx, const char *file);
	void *growing_ctx;
	/* Where the player says what its rows cannot: an image of a
	 * sequence whose header is malformed or whose pixel data differ in
	 * size from the mount's (its frame fails, the row that found it
	 * says EIO), one line naming the file and the reason, the first
	 * such image of the stream only (a damaged clip would say it every
	 * frame).  From the loader's thread; NULL: not said. */
	void (*say)(void *ctx, const char *msg);
	void *say_ctx;
};

/* The most frames_in_flight (-o frames_in_flight=): frametest's and the
 * grading applications' reader threads are 4 to 16; 64 is room above. */
#define ENG_PLAYER_IN_FLIGHT_MAX 64

/* smbd, measured serving `smbclient get` from a cached timeline: two
 * 8 MiB preads in flight on two of its aio threads, each one split by
 * the kernel into 1 MiB FUSE requests served in any order (docs/network.md). */
#define ENG_PLAYER_WINDOW_SMB (16ULL << 20)
/* The window (eng_player_config.window) of a reader by its command name:
 * ENG_PLAYER_WINDOW_SMB for a file server's (smbd), 0 for any other.  A
 * guess by name, so that a dd or a player does not pay a server's ring. */
uint64_t eng_player_window(const char *comm);

/* Defaults of the mount's -o stream_mem and -o stream_files.  Memory:
 * eng_player_mem at buffer=8 and 1 MiB requests is 8.9 MiB for the seed
 * preset (frames of 624 KB) and 63.5 MiB for the largest of
 * timelinefs-gen --format, v210-1080p (5.5 MB frames, 11 slots), 42.6
 * MiB unpaced with zero copy: 256 MiB is four times that, and refuses what
 * would take gigabytes (buffer=10000: 6.1 GB a stream of the seed;
 * video_rate=18G: 7.2 GB).  Files: a frame holds one file per track open
 * (3 in the seed, 5 in the other presets); 64 keeps a stream's recent
 * clips open, and 64 per stream is 16384 streams under a hard
 * RLIMIT_NOFILE of 1048576 (the daemon raises its soft limit to it). */
#define ENG_PLAYER_MEM_DEFAULT (256ULL << 20)
#define ENG_PLAYER_FILES_DEFAULT 64
/* Where the open file limit is lower, the default shrinks so that
 * ENG_PLAYER_STREAMS_EXPECTED streams (the paced streams docs/performance.md
 * "Performance" measured on 2 cores) fit beside ENG_PLAYER_FDS_OWN fds of
 * the daemon's own, but to no fewer than ENG_PLAYER_FILES_MIN (the tracks
 * of a frame of any preset open at once). */
#define ENG_PLAYER_STREAMS_EXPECTED 128
#define ENG_PLAYER_FDS_OWN 64
#define ENG_PLAYER_FILES_MIN 8
/* The default -o stream_files under an open file limit of nofile:
 * (nofile - ENG_PLAYER_FDS_OWN) / ENG_PLAYER_STREAMS_EXPECTED, within
 * [ENG_PLAYER_FILES_MIN, ENG_PLAYER_FILES_DEFAULT] (1024: 7, so 8;
 * 20000: 155, so 64). */
unsigned eng_player_files_default(uint64_t nofile);

/* The frames of tl that ns of play take, rounded up (a preroll of 0.5 s
 * is 13 frames at 25 fps, 15 at 29.97); at most UINT_MAX. */
unsigned eng_player_frames_of(const struct eng_timeline *tl, uint64_t ns);

#define ENG_ZC_MIN_REQUEST (64 * 1024)
#define ENG_ZC_ANY_REQUEST 2	/* cfg.zero_copy: whatever the first size */
/* cfg.zero_copy: as ENG_ZC_ANY_REQUEST, and an unpaced stream's replies
 * come from the clips' files themselves (eng_answer.fdp) */
#define ENG_ZC_FILES 3
/* The most pieces of an answer from the clips' files (eng_answer.fdmax
 * says how many its caller takes): a player takes that way only where
 * its largest request's pieces fit. */
#define ENG_FD_PIECES 64
#define ENG_ZC_MAX_SLOTS 16
/* the pipes of a zero-copy answer: one of the player's reply pipes */
#define ENG_ZC_PIECES 1
/* A zero-copy player's reply pipes: the requests it answers at once */
#define ENG_ZC_REPLIES 4

struct eng_player;

/* Create a player (one stream) over a finalized, media-resolved timeline.
 * All buffers are allocated here, none on the read path.  The clock starts
 * at the first read.  Returns 0, -EINVAL (buffer 0, max_request 0),
 * -EFBIG (more memory than cfg->mem_max), -ENOMEM. */
int eng_player_new(const struct eng_timeline *tl,
		   const struct eng_player_config *cfg,
		   struct eng_player **out);
/* The memory a player of tl with cfg takes, allocated and touched at
 * eng_player_new, for as long as the stream is open: its ring of *slots
 * frames of tl->frame_bytes_max bytes (the frames two readahead windows
 * span, each the larger of cfg->max_request and cfg->readahead, plus
 * cfg->window, plus cfg->buffer and cfg->preroll
 * for a filled player),
 * the O_DIRECT bounce buffer (also taken, of the largest decoding
 * dependency frame, for long-GOP media; with B frames, also the frames
 * read before their turn: tl->dep_ahead_max + 1 a track that reorders,
 * one more a loader, each of the largest dependency frame) and the table
 * of a frame's reads
 * (a row per extent and per decoding dependency of each track; of an
 * image sequence's, its image's open, header reads, reads and close, and
 * a held image's too), both once per frame in flight
 * (cfg->frames_in_flight of a filled player; not the loader threads'
 * stacks), the zero-copy pipes' pages where zero copy may be taken (they
 * are kernel memory, as much as the ring again) and the tables per slot
 * and per (clip, track).
 * Not the timeline's own per-frame tables of real media (eng_track.upto,
 * 8 bytes a frame of a variable track: 691 KB an hour at 24 fps), which
 * every stream of it shares.  Saturates at UINT64_MAX.
 * Needs only tl, buffer, preroll, max_request, pace, backing, filler,
 * zero_copy and frames_in_flight of cfg.  0, or -EINVAL as eng_player_new. */
int eng_player_mem(const struct eng_timeline *tl,
		   const struct eng_player_config *cfg, uint64_t *bytes,
		   uint64_t *slots);
/* Whether a stream of tl fits in limit bytes (a mount's -o stream_mem):
 * 0, or -EFBIG with one message naming the timeline's file, the bytes a
 * stream needs, how (frames of the ring, their size, the buffer) and the
 * limit, and the options that change either; -EINVAL as eng_player_mem. */
int eng_player_mem_check(const struct eng_timeline *tl,
			 const struct eng_player_config *cfg, uint64_t limit,
			 struct eng_diag *diag);
/* eng_player_mem_check of a stream's figures already counted (need and
 * slots as eng_player_mem gives them), for a caller that compares them
 * with more than one limit: 0, or -EFBIG with the same message. */
int eng_player_mem_fits(const struct eng_timeline *tl,
			const struct eng_player_config *cfg, uint64_t need,
			uint64_t slots, uint64_t limit, struct eng_diag *diag);
struct eng_gen_format;
/* eng_player_mem of a timeline of preset f (timelinefs-gen --format:
 * its picture or video rate, its audio tracks) with cfg: what a stream
 * of the preset's timelines takes, for the figures -h and the docs give.
 * 0, -EINVAL (as eng_player_mem) or -ENOMEM. */
int eng_player_mem_preset(const struct eng_gen_format *f,
			  const struct eng_player_config *cfg, uint64_t *bytes);
/* Stop the filler (eng_player_stop), close the player's media fds, free it. */
void eng_player_free(struct eng_player *p);

/* The answer to one request (eng_player_serve): its bytes, in order,
 * are head's (memory: a movie's header bytes; iov_len 0 for none), then
 * the player's: pipe_len bytes waiting in the read end `pipe` of one of
 * the player's reply pipes, the request's own until it is answered (a
 * zero-copy player: the slots' pipes teed into it, the slots keep their
 * frames for the requests after, as the ring does), to be moved out
 * whole by one splice, or else iov[0..iovcnt) into the player's ring.
 * drop_len bytes of the file's page cache from drop_off the reader has
 * passed (a player with cfg.drop_passed): the caller drops
 * them after the reply, holding no lock (the kernel may wait there for
 * pages of requests queued behind the stream's). */
struct eng_answer {
	/* set by the caller */
	struct iovec *iov;	/* room for iovmax pieces */
	int iovmax;
	int pipes;		/* the caller can reply from a pipe: the
				 * player decides zero copy at its first
				 * request (cfg.zero_copy); 0: its ring */
	/* set by the player */
	struct iovec head;
	int iovcnt;
	int pipe;		/* -1: none */
	size_t pipe_len;
	uint64_t drop_off, drop_len;
	/* set by the caller: room for fdmax pieces (at most
	 * ENG_FD_PIECES), NULL for none (cfg.zero_copy ENG_ZC_FILES); by
	 * the player: nfd pieces of the
	 * answer, in order, fd -1 for zeros at mem (a gap); the answer holds
	 * each piece's file open until eng_player_answered(), and the
	 * request's range [fd_off, fd_off + fd_len) */
	struct eng_fdpiece {
		int fd;
		uint32_t clip, track;
		uint64_t off, len;
		const void *mem;
	} *fdp;
	int fdmax;
	int nfd;
	uint64_t fd_off, fd_len;
};

/* Serve [off, off+len) of the virtual file: the one way a request goes
 * down to the frames and back.  The first read anchors the clock (t0), a
 * read far from the play head re-anchors it (a seek), a read a little
 * behind the ring reads those frames again on the same clock.
 * Without a filler (pace=off, cfg.filler unset, or no filler thread
 * running) the read loads the frames it covers itself (sleeping through
 * io->sleep_until until each frame's issue time, one pread per non-gap
 * slice), and the frames already due after them.  With a filler thread it
 * waits until the filler has loaded them.
 * Returns the number of bytes (0 at or past the end), *ans filled.  An
 * answer from the ring holds the player's request lock until
 * eng_player_answered(): other requests wait, the filler goes on but
 * never evicts the request's frames, so the answer stays valid.  An
 * answer from a pipe (ans->pipe >= 0) holds references to the pages
 * instead: the request lock is let go at once, and the next request is
 * served while this one's reply is written (up to ENG_ZC_REPLIES at a
 * time); the pipe is the request's until eng_player_answered().  An
 * answer of the clips' files (ans->nfd > 0) holds the files open itself:
 * the request lock is let go at once too.  Frames
 * contiguous in the ring are one iovec; with iovmax at least
 * cfg.max_pieces, a request that would need more
 * iovecs than that has its tail copied (struct eng_pieces).  Returns -EIO
 * (a backing read failed or came up short), -E2BIG (len > max_request, or
 * more than iovmax iovecs needed and no spill sized for iovmax: iovmax
 * below cfg.max_pieces, or max_pieces 0), -EXDEV (ans->pipes 0 for a
 * player that took zero copy), -EINTR (its frames not loaded and the
 * stream cancelled: eng_player_cancel) or -EINVAL, with the request lock
 * released. */
ssize_t eng_player_serve(struct eng_player *p, uint64_t off, size_t len,
			 struct eng_answer *ans);
/* The end of the request answered by ans (NULL: a ring answer): releases
 * the request lock, or gives back the answer's pipe.  consumed: the reply
 * says it took every byte, which for a pipe answer the player checks
 * against what the pipe still holds (io->pipe_avail); 0, or bytes left
 * (a failed reply, how far it got unknown), empties the pipe.  An
 * answer of the clips' files gives them back, and its bytes end the
 * access rows of each (frame, track) whose last byte it carried: a row
 * of that path is done when its bytes have gone to the reader, and a
 * frame is late when that is after its due time (recorded then). */
void eng_player_answered(struct eng_player *p, const struct eng_answer *ans,
			 int consumed);

/* eng_player_serve() of the ring, ans->iov = iov: for tests and callers
 * with no pipes.  Returns as eng_player_serve(), the lock held until
 * eng_player_unlock(). */
ssize_t eng_player_read(struct eng_player *p, uint64_t off, size_t len,
			struct iovec *iov, int iovmax, int *iovcnt);
/* eng_player_read() that does not wait for the filler: for a filled player
 * whose frames are not all loaded yet it returns -EAGAIN (request lock
 * released) after positioning the clock and the ring as the read would,
 * and never loads frames itself.  For tests that drive eng_player_fill(). */
ssize_t eng_player_try_read(struct eng_player *p, uint64_t off, size_t len,
			    struct iovec *iov, int iovmax, int *iovcnt);
/* eng_player_answered(p, NULL, 1) */
void eng_player_unlock(struct eng_player *p);

/* What eng_player_fill() did, or what the filler waits for. */
enum eng_fill {
	ENG_FILL_LOADED = 1,	/* loaded a frame: call again at once */
	ENG_FILL_AT,		/* the next frame is issued at *next_ns */
	ENG_FILL_IDLE,		/* no clock yet, the ring is full up to the
				 * latest request, or the timeline is done:
				 * wait for a request */
};
/* One step of the filler of a filled player (cfg.filler, paced): load the
 * next frame if the clock is anchored, its issue time has come and the
 * ring has room.  Never sleeps; does the frame's preads without the
 * player's locks.  With loader threads running (cfg.frames_in_flight > 1,
 * eng_player_start_loaders) it hands the frame to a free one instead and
 * returns ENG_FILL_LOADED at once (the frame is published when it and
 * the frames before it are read); ENG_FILL_IDLE also when no loader is
 * free.  Returns an ENG_FILL_*, or -EINVAL (not a filled player).  Not to
 * be called while the filler thread runs. */
int eng_player_fill(struct eng_player *p, uint64_t *next_ns);
/* Stack of a filler thread: it reads into the ring, records, nothing more. */
#define ENG_FILLER_STACK (256 * 1024)
/* Start the filler thread of a filled player: it runs eng_player_fill()
 * and waits on CLOCK_MONOTONIC (the clock eng_io.now must be) until the
 * next issue time, or until a request anchors, seeks or makes room.  0
 * (also for a player without a filler, or one already started) or -errno
 * from pthread_create.  Call before the first read.  With
 * cfg.frames_in_flight > 1 it starts the loader threads first
 * (eng_player_start_loaders). */
int eng_player_start(struct eng_player *p);
/* Start only the cfg.frames_in_flight loader threads of a filled player,
 * which read the frames eng_player_fill() hands them: for tests that drive
 * eng_player_fill() with a fake clock.  0 (also for a player of one frame
 * in flight, or without a filler, or when they run already) or -errno
 * from pthread_create (none left running).  eng_player_stop() joins
 * them. */
int eng_player_start_loaders(struct eng_player *p);
/* Stop and join the filler thread and the loader threads (the frames they
 * are reading are finished and recorded first), and record the frames
 * of replies from the clips' files whose bytes have not all gone (the
 * stream's end); no thread to join: no-op but that.  No record callback
 * runs after it returns. */
void eng_player_stop(struct eng_player *p);

/* The stream's end, whatever its clock does (the mount ends, the daemon
 * is told to stop): a request waiting for the filler's frames returns
 * -EINTR (request lock released) at once, and so does every request from
 * then on that would wait for a frame not yet loaded.  The frames loaded
 * are published and recorded as ever (eng_player_stop still joins the
 * filler).  Without it a paced request waits for its frames' issue
 * times, seconds away at a slow pace, for ever on a clock that does not
 * run. */
void eng_player_cancel(struct eng_player *p);

/* eng_player_read() then copy into buf and unlock: for tests and callers
 * that want one contiguous buffer. */
ssize_t eng_player_copy(struct eng_player *p, void *buf, size_t len,
			uint64_t off);

struct eng_player_stats {
	uint64_t bytes;		/* bytes served to the reader */
	int64_t frames;		/* frames loaded (played) */
	int64_t late_frames;	/* frames whose last read was done after due */
	/* Frames whose last byte a request handed to the reader after the
	 * frame was due, each counted once however often it is read: the
	 * reader's side of lateness.  A reader that cannot take its frames
	 * in time (a slow network, a client that stalls) is late by this
	 * count whatever the storage did, while late_frames, the storage's
	 * side, sees reads that were done long before (the filler had read
	 * them into the ring). */
	int64_t reader_late_frames;
	int64_t handed_frames;	/* frames handed whole, counted so */
	int64_t failed_frames;	/* frames with a failed read */
	uint64_t accesses;	/* backing reads issued */
	int64_t requests;	/* reads answered with data (FUSE requests) */
	int64_t reloads;	/* played frames loaded again (their reads are
				 * accesses; not played or late twice) */
	int64_t seeks;		/* re-anchorings after the first */
	int64_t head;		/* next frame to load */
	uint64_t worst_ns;	/* largest done - issued */
	uint64_t opens;		/* media files opened (successfully) */
	uint64_t reopens;	/* of those, files the stream had open before
				 * and closed (cfg.max_files, an EMFILE, a
				 * failed io->check) */
	uint64_t open_retries;	/* opens that failed with EMFILE/ENFILE and
				 * were tried again after closing one */
	unsigned files_open;	/* media files open now */
	unsigned files_peak;	/* most open at once */
	/* Opens of a sequence's image that found no file (-ENOENT), each
	 * handled by its clip's policy (error, hold, black) */
	uint64_t missing_images;
	/* late_frames by cause (enum eng_cause: the database's rule on
	 * the rows as recorded, play/cause.h), and the played frames'
	 * headroom: the live metrics' */
	int64_t late_causes[ENG_CAUSE_N];
	struct eng_headroom headroom;
};
void eng_player_stats(struct eng_player *p, struct eng_player_stats *st);
/* Frames the player's ring holds (fixed at eng_player_new). */
size_t eng_player_slots(const struct eng_player *p);

#endif /* ENG_PLAYER_H */
