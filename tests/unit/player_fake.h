/* SPDX-License-Identifier: MIT */
/*
 * The player's unit tests' fakes and timelines (tests/unit/test_player_*.c,
 * player_fake.c): a fake clock and backing I/O that log every call, the
 * timelines the tests play, and a fake of many loader threads (struct mt).
 */
#ifndef PLAYER_FAKE_H
#define PLAYER_FAKE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/io.h"
#include "play/player.h"
#include "timeline/model.h"

#define MS 1000000ULL
#define T0 5000000000ULL	/* the fake clock's start: not 0 on purpose */
#define MAX_FILES 64
#define MAX_LOG 100000
#define MAX_PIPES 64

/* Deterministic content of byte `off` of file `name`: any offset error
 * shows up as different bytes. */
unsigned char byte_at(const char *name, uint64_t off);
/* byte_at of n bytes from off, into out */
void bytes_at(const char *name, uint64_t off, unsigned char *out, size_t n);

struct acc_log {
	struct eng_access *a;
	size_t n;
	size_t dropped;
};

struct io_call {
	int fd;
	uint64_t off;
	uint64_t len;
	uintptr_t buf;
};

struct fake_file {
	char name[64];
	uint64_t size;
	int direct;
	int open;		/* open fds of this file */
};

struct fake {
	uint64_t now;
	uint64_t latency;	/* every pread advances the clock by this */
	long slow_read;		/* this pread (0-based) takes slow_ns; -1 none */
	uint64_t slow_ns;
	long fail_read;		/* this pread fails with -fail_err */
	int fail_err;
	long short_read;	/* this pread returns half the bytes */
	const char *fail_open;	/* open of this name fails with -ENOENT */
	int open_limit;		/* fds open at once, as RLIMIT_NOFILE: past
				 * it open fails with -EMFILE; 0 none */
	int open_now, open_peak;
	long emfiles;		/* opens refused for open_limit */
	int can_direct;
	/* called at the start of each pread: a filled player reads without
	 * its locks, so a hook may make requests meanwhile */
	void (*on_pread)(struct fake *f, long idx);
	void *hook_arg;
	struct fake_file files[MAX_FILES];
	int nfiles;
	long sleeps, bad_sleeps, opens, closes, preads, dontneeds;
	long unaligned_direct;	/* direct preads that O_DIRECT would refuse */
	struct io_call reads[MAX_LOG];
	struct io_call dn[MAX_LOG];
	struct acc_log log;
	struct eng_io io;
	/* zero copy: in-memory FIFOs; pipe i is fds 1000 + 2i (read) and
	 * 1001 + 2i (write) */
	struct fake_pipe {
		unsigned char *buf;
		size_t cap, head, len;
		int open;
	} pipes[MAX_PIPES];
	int npipes, pipe_fail_at;	/* pipe_new number that fails, -1 */
	size_t pipe_max;		/* pipe_new refuses more bytes; 0 any */
	long pipe_skips;
	int pipe_skip_fail;		/* the next n pipe_skips fail (EIO) */
	int pipe_tee_fail;		/* the next n pipe_tees fail (EIO) */
	/* Edit while ingest: file grow_name is being recorded until
	 * grow_end (cfg.growing says so), frame k of grow_bytes landing at
	 * grow_t0 + k * grow_period: it holds the frames landed by now (and
	 * by grow_end, after it) */
	const char *grow_name;
	uint64_t grow_t0, grow_period, grow_bytes, grow_end;
};

/* The bytes of ff now: a recording's grow as its frames land. */
uint64_t size_now(const struct fake *f, const struct fake_file *ff);

/* The open file of fd (100 + its index), or NULL. */
struct fake_file *file_of(struct fake *f, int fd);

/* io->size of a fake (ctx): the file's bytes now (size_now), as fstat
 * gives them; -EBADF for an fd not open. */
int fake_size(void *ctx, int fd, uint64_t *bytes);

/* The file called name, added (1 TiB) if it is not there yet; NULL
 * past MAX_FILES. */
struct fake_file *fake_file_get(struct fake *f, const char *name);

/* Take n bytes out of pipe rd (into out unless NULL); how many it had. */
size_t pipe_pop(struct fake *f, int rd, unsigned char *out, size_t n);

/* f's io gets the pipe calls of zero copy (splice_in, pipe_new ...). */
void fake_zero_copy(struct fake *f);

/* The player's record callback: each row into the struct acc_log ctx
 * (a fake's log), counted as dropped past MAX_LOG. */
void log_record(void *ctx, const struct eng_access *a);

/* A fake io on the fake clock at T0, its log and files empty; free it
 * with fake_free. */
struct fake *fake_new(void);

void fake_free(struct fake *f);

struct track_spec {
	const char *name;
	uint64_t rate;
	uint32_t align;
	uint64_t header;	/* of every clip's file for this track */
};

struct seg_spec {
	const char *tracks;	/* one track name */
	const char *clip;
	int64_t src, rec, frames;
};

struct tl_spec {
	uint32_t num, den;
	struct track_spec tracks[4];
	struct seg_spec segs[12];
};

/* What eng_media_resolve would find for a finalized tl: NAME.TRACK files
 * of 1 TiB, the essence of track t at headers[t] (headers NULL: 0). */
void fake_resolve(struct eng_timeline *tl, const uint64_t *headers);

/* The timeline sp describes, finalized, its media faked (fake_resolve). */
struct eng_timeline *make_tl(const struct tl_spec *sp);

/* The whole virtual file as the layout defines it (gaps are zeros);
 * *nslices: the reads of it, one per extent of a slice. */
unsigned char *expected_file(const struct eng_timeline *tl,
			     size_t *nslices);

/* One video track of `bpf` bytes per frame at 25 fps, one clip. */
struct eng_timeline *simple_tl(uint64_t bpf, int64_t frames);

/* A player's configuration over f's io, its rows into f's log. */
struct eng_player_config make_cfg(struct fake *f, unsigned buffer,
				  enum eng_pace_mode mode, double speed,
				  enum eng_backing backing,
				  size_t max_request);

/* eng_player_new, which must succeed. */
struct eng_player *new_player(const struct eng_timeline *tl,
			      const struct eng_player_config *cfg);

/* Read frame k whole through eng_player_copy and check its bytes. */
void read_frame(struct eng_player *p, const struct eng_timeline *tl,
		const unsigned char *want, int64_t k);

/* The rows agree with the stats (issue 20): the played rows' plays (by
 * frame and sched_ns, as the late_frame view groups them) are the frames,
 * the late ones among them the late frames, and a frame with no played
 * row is no play. */
void check_played(const struct fake *f, const struct eng_player *pc);

#define SMB_REQ 1024
#define SMB_CHUNK (8 * SMB_REQ)

/* The requests of chunk pairs [p0, p1) as smbd's two threads make them;
 * b_first: the pair's second chunk's first request comes first. */
size_t smb_order(uint64_t bytes, uint64_t p0, uint64_t p1,
		 int b_first, uint64_t *off, size_t max);

/* CLOCK_MONOTONIC in ns (ctx unused): the real clock for a fake io. */
uint64_t mono_now(void *ctx);

/* A fake io for loader threads (cfg.frames_in_flight): every call under
 * one mutex.  The clock moves only when the test moves it (mt_set_now),
 * except that a stalled read on the test's thread (no loader threads)
 * moves it itself, as fake_pread's slow_read.  The read at stall_off is
 * done at stall_until: on a loader thread it blocks until the test's
 * clock gets there (stall_in while it does).  With hold_first, the first
 * read waits (up to 10 s of real time) until a second one has started:
 * readers that overlap are made to, whatever the machine's load, and a
 * player that reads one frame at a time keeps inflight_peak at 1. */
struct mt {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t test;		/* the test's thread: its now() calls are not
				 * a loader's */
	uint64_t now;
	int real;		/* now() is CLOCK_MONOTONIC (mono_now) */
	uint64_t stall_off, stall_until;
	const char *stall_open;	/* the open of this name is done then */
	long loader_nows;	/* now() calls of loader threads */
	int inflight, inflight_peak;
	int stall_in;		/* the read at stall_off waits in mt_pread */
	int hold_first;
	long reads;		/* mt_pread calls */
	uint64_t delay_ns;	/* real time every read takes (nanosleep) */
	struct eng_access log[256];
	size_t nlog;
	struct eng_io io;
};

/* struct mt's record callback: rows into m->log, waking mt's waiters. */
void mt_record(void *ctx, const struct eng_access *a);

/* m on the fake clock at T0, nothing stalled; mt_destroy frees it. */
void mt_init(struct mt *m);

void mt_destroy(struct mt *m);

/* Video of 200000 bytes a frame, one audio track, a gap of 3 frames in the
 * video: 40 frames at 25 fps.  A 1 MiB request spans at most 12 slots. */
struct eng_timeline *zc_tl(void);

/* make_cfg unpaced, buffer 8, requests up to 1 MiB, zero copy on. */
struct eng_player_config zc_cfg(struct fake *f);

/* The reply of an answer of n bytes (eng_player_serve), as a splice
 * reply takes it: its header bytes, then its pipe's bytes taken out of
 * the pipe or its iovecs' copied, into out; the request ended.  Returns
 * n. */
ssize_t zc_reply(struct fake *f, struct eng_player *p,
		 const struct eng_answer *ans, unsigned char *out, ssize_t n);

/* One request of a zero-copy caller (ans.pipes on), answered from a pipe
 * (checked), into out.  Returns the count or the error. */
ssize_t zc_read(struct fake *f, struct eng_player *p,
		unsigned char *out, uint64_t off, size_t len);

/* A zero-copy caller's answer: pipes on, iov (ENG_ZC_MAX_SLOTS of them)
 * for a player that answers from its ring. */
struct eng_answer zc_answer(struct iovec *iov);

/* Zero-copy requests of step bytes from off to the end of the file, into
 * got at their offsets. */
void zc_read_rest(struct fake *f, struct eng_player *p,
		  const struct eng_timeline *tl, unsigned char *got,
		  uint64_t off, size_t step);

#endif
