/* SPDX-License-Identifier: MIT */
/*
 * Ingest (docs/design.md "Ingest"): a record stream takes a
 * writer's bytes, frames of a timeline file's interleave (frame k's V
 * slice, then its audio slices), on a capture card's clock, and writes each
 * track to its own file beneath the media folder, every operation an
 * access row.  Pure: clock and file I/O come through struct eng_io (its
 * write ops), rows through eng_record_fn, so every rule of the clock, the
 * drops, the track files and the repair is unit-tested with a fake clock
 * and fake files.
 *
 * format.c: the format of a record stream (a timelinefs-gen preset).
 * rec.c: the record stream (its clock, capture buffer and write thread).
 * wav.c: the WAVE header of an audio track file, and its patch at close.
 * note.c: the recording's note (NAME.rec): its format and state.
 * live.c: whose a recording is (the note's owner lines) and whether it
 * is still being recorded.
 * repair.c: a recording cut short (kill -9) made whole up to its last
 * complete frame.
 */
#ifndef ENG_INGEST_H
#define ENG_INGEST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io/io.h"
#include "play/player.h"
#include "timeline/model.h"
#include "util/diag.h"
#include "util/values.h"

/* The folder beneath the media folder that recordings go to, and the
 * mount's folder that writers create files in: MOUNTPOINT/ingest/NAME is
 * recorded as MEDIA_DIR/ingest/NAME.V.raw, NAME.A1.wav ... */
#define ENG_INGEST_DIR "ingest"
/* The most tracks a record stream has: V and up to 16 audio tracks. */
#define ENG_INGEST_TRACKS_MAX 17
/* Where a track file's essence starts: 0 for the raw video file (the
 * clip files timelinefs-gen writes are headerless, and 0 is aligned for
 * O_DIRECT), ENG_INGEST_WAV_DATA for a WAVE file (its header padded with
 * a JUNK chunk, as Avid's OP-Atom and bmx align audio essence to 4 KiB). */
#define ENG_INGEST_WAV_DATA 4096

/* What a record stream's frames are: a timelinefs-gen --format preset
 * (engine/media/genplan.h), track 0 "V" then "A1" ... */
struct eng_ingest_format {
	char preset[64];	/* the preset's name */
	struct eng_fps fps;
	uint32_t ntracks;	/* 1 + the preset's audio tracks */
	char track[ENG_INGEST_TRACKS_MAX][ENG_TRACK_NAME_MAX];
	/* Bytes of track t before frame k: eng_upto_rate(rate[t],
	 * align[t], fps, k) (timeline/layout.h), the virtual file's own
	 * rule, so that a recording plays back as a clip byte for byte.
	 * V: align = the picture's bytes for an uncompressed preset (every
	 * frame one picture), else 1 (as timelinefs-gen's "track V RATE":
	 * DNxHD/DNxHR's rate is its frame size rounded down, so an align of
	 * the frame size would leave frame 0 empty);
	 * audio: align 3 (24-bit mono), sample_rate 48000. */
	uint64_t rate[ENG_INGEST_TRACKS_MAX];
	uint32_t align[ENG_INGEST_TRACKS_MAX];
	uint32_t sample_rate;
};

/* The format of preset `name`; "" or NULL is the seed preset (the first
 * of eng_gen_formats()).  0, or -ENOENT (no such preset) or -EINVAL (more
 * audio tracks than ENG_INGEST_TRACKS_MAX - 1), with a reason in diag
 * ("ingest: no preset 'x' (timelinefs-gen --format list)"). */
int eng_ingest_format_of(const char *name, struct eng_ingest_format *f,
			 struct eng_diag *diag);
/* The recording's name and format for a file a writer creates in the
 * mount's ingest folder: a name that ends in ".PRESET" (a preset's name,
 * the longest that matches) records in that preset under the name before
 * it ("cam1.prores-hq-1080p29.97" -> "cam1"); any other name records in
 * the mount's format `dflt` under the whole name.  The name must be a
 * plain file name: no '/', no control character, not "." or "..", at
 * most 200 bytes, and not itself end in ".V.raw" or ".A<n>.wav".
 * 0, or -EINVAL with the reason in *why (static). */
int eng_ingest_name(const char *file, const struct eng_ingest_format *dflt,
		    char *name, size_t len, struct eng_ingest_format *f,
		    const char **why);
/* Bytes of track t before frame k; of all tracks before frame k (the
 * writer's offset of frame k); the frame holding the writer's byte off. */
uint64_t eng_ingest_upto(const struct eng_ingest_format *f, uint32_t t,
			 int64_t k);
uint64_t eng_ingest_frame_offset(const struct eng_ingest_format *f,
				 int64_t k);
int64_t eng_ingest_frame_at(const struct eng_ingest_format *f, uint64_t off);
/* The whole frames of track t that its first `bytes` bytes of essence
 * hold (added: the repair's k*). */
int64_t eng_ingest_frames_in(const struct eng_ingest_format *f, uint32_t t,
			     uint64_t bytes);
/* The most bytes one frame of f holds (all tracks): a capture buffer
 * slot. */
uint64_t eng_ingest_frame_max(const struct eng_ingest_format *f);
/* The file of track t of recording `name`, relative to the media folder:
 * "ingest/NAME.V.raw", "ingest/NAME.A1.wav".  Truncated to len. */
void eng_ingest_track_file(const struct eng_ingest_format *f, uint32_t t,
			   const char *name, char *buf, size_t len);

/*
 * An audio track file (wav.c): a WAVE file whose essence starts at
 * ENG_INGEST_WAV_DATA, as FFmpeg's wavenc writes a file it cannot seek
 * back in, sizes 0xFFFFFFFF until the close patches them:
 *   0     "RIFF" 0xFFFFFFFF "WAVE"
 *   12    "JUNK" 28, 28 zero bytes (where RF64's ds64 goes: EBU Tech 3306)
 *   48    "fmt " 16, PCM, 1 channel, sample_rate, 24 bits
 *   72    "JUNK" 4008, zeros
 *   4088  "data" 0xFFFFFFFF
 *   4096  essence
 * At close (or repair) with `essence` bytes: a file of up to 4 GiB gets
 * its RIFF size (file - 8) and data size; a larger one becomes RF64 (the
 * first JUNK becomes "ds64" with the 64-bit RIFF and data sizes and a
 * sample count; the 32-bit sizes stay 0xFFFFFFFF).  An odd essence gets
 * a pad byte after it, as RIFF's chunks do.
 */
void eng_ingest_wav_header(unsigned char out[ENG_INGEST_WAV_DATA],
			   uint32_t sample_rate);
/* The bytes to write at offset 0 (*len of them, at most 80) to make a
 * header of eng_ingest_wav_header whole for `essence` bytes, and whether
 * the file needs the pad byte (written by the caller at 4096 + essence).
 */
void eng_ingest_wav_patch(unsigned char out[80], size_t *len,
			  uint32_t sample_rate, uint64_t essence, int *pad);
/* The data chunk's 32-bit size, 4 bytes to write at
 * ENG_INGEST_WAV_DATA_SIZE_AT (beyond the 80 bytes at 0): essence, or
 * 0xFFFFFFFF for RF64. */
#define ENG_INGEST_WAV_DATA_SIZE_AT (ENG_INGEST_WAV_DATA - 4)
void eng_ingest_wav_patch_data(unsigned char out[4], uint64_t essence);
/* The essence bytes a track file of file_size bytes holds, from its
 * first n bytes, head: a WAV's data chunk (media.h's eng_wav_data), to the
 * file's end while its size is unpatched (0xFFFFFFFF) and never past it;
 * anything else (the raw video file) its size.  What `ls` of the mount's
 * ingest folder counts. */
uint64_t eng_ingest_track_essence(const unsigned char *head, size_t n,
				  uint64_t file_size);

/*
 * Whose a recording is (live.c): the daemon that records it, named in its
 * note so that every mount of the folder, on this host or another, can
 * tell a live recording from one its daemon left (docs/design.md
 * "Ingest", the rule in eng_ingest_life).  Lines of the note:
 *   host NAME            gethostname
 *   machine ID           /etc/machine-id (may be absent)
 *   boot ID              /proc/sys/kernel/random/boot_id
 *   pid PID START        the daemon and its start (/proc/PID/stat
 *                        starttime: a pid used again is another process)
 *   lock shared|local    whether the recorder's lock on the note reaches
 *                        the storage, where other hosts see it (it took
 *                        it, and its file system passes locks:
 *                        eng_ingest_locks_shared)
 *   run UUID             the run (run.uuid) whose record stream it is
 * While it records, the recorder holds an open-file-description lock on
 * the note (struct eng_io.lock), released when it closes the note.
 */
struct eng_ingest_owner {
	char host[80];
	char machine[40];
	char boot[40];
	int64_t pid;		/* 0: none */
	uint64_t pid_start;
	int lock_shared;
	char run[40];		/* "": none */
};
/* The owner's lines, as above, into buf[len] ("" for NULL or an empty
 * owner; the lock line only with a host or boot).  0, or -ERANGE. */
int eng_ingest_owner_text(const struct eng_ingest_owner *o, char *buf,
			  size_t len);
/* Does a file system (mountinfo's type and options) pass an OFD lock to
 * every host that sees the files?  1 for a local disk's (ext4, xfs, btrfs,
 * tmpfs, zfs ...: other hosts reach it through this kernel's NFS or SMB
 * server, whose locks conflict with ours) and a cluster file system's
 * (gfs2, ocfs2); NFS unless local_lock=posix|all or nolock; SMB (cifs,
 * smb3) unless nobrl; 0 for the rest (FUSE, overlay, unknown). */
int eng_ingest_locks_shared(const char *fstype, const char *options);

/* What this mount knows to judge another daemon's recording by. */
struct eng_ingest_self {
	struct eng_ingest_owner me;	/* this daemon (run unused) */
	int locks_shared;	/* this mount's file system passes locks
				 * (eng_ingest_locks_shared) */
	/* Is process pid, started at `start` (its /proc stat starttime),
	 * running on this host: 1, 0 (gone, or its pid is another
	 * process's now), -errno (cannot tell).  NULL: cannot tell. */
	int (*running)(void *ctx, int64_t pid, uint64_t start);
	void *ctx;
};
enum eng_ingest_life {
	ENG_INGEST_DEAD = 0,	/* provably stopped: repair it */
	ENG_INGEST_LIVE,	/* recorded now: leave it */
	ENG_INGEST_UNKNOWN,	/* not provably stopped: leave it */
};
/* The rule (docs/design.md "Ingest"), for a note in state recording with
 * owner o, whose lock this mount tried to take (lock: 0 taken, -EAGAIN
 * another holds it, other -errno cannot be told):
 *   lock held                                    live
 *   no host nor boot line (an older timelinefs)  dead
 *   this boot: the daemon runs (pid and start)   live
 *              gone, or lock taken               dead
 *   this host (name and machine id), other boot  dead
 *   another host: lock taken, its lock shared
 *     and this mount's locks shared              dead
 *   otherwise                                    unknown
 * The reason (naming host and pid) in why[len]. */
enum eng_ingest_life eng_ingest_life(const struct eng_ingest_owner *o,
				     const struct eng_ingest_self *self,
				     int lock, char *why, size_t len);

/*
 * The space of a mount's record streams (space.c): a write() that returns
 * success has its bytes reserved, one reservation for every recorder of
 * the mount, counting every frame any of them holds in its capture
 * buffer.  A take is granted while the media file system's free bytes
 * (eng_io.space) stay at or above the reserve, the bytes pending (taken,
 * not yet written) and ENG_INGEST_SPACE_SLACK for each track file being
 * recorded (the block a track's next bytes may start, and a file
 * system's own blocks for it: its statvfs falls by more than the bytes
 * written).  Thread-safe.
 */
struct eng_ingest_space;
#define ENG_INGEST_SPACE_SLACK (256 * 1024ULL)
/* 0 or -ENOMEM. */
int eng_ingest_space_new(struct eng_ingest_space **out);
void eng_ingest_space_free(struct eng_ingest_space *s);
/* A recorder's `add` track files begin, or `drop` end: their slack. */
void eng_ingest_space_tracks(struct eng_ingest_space *s, uint32_t add,
			     uint32_t drop);
/* Take up to len bytes: the bytes granted (0: none; len when io->space
 * cannot say), pending until given back.  free_b, held (may be NULL): the
 * free bytes io->space said (UINT64_MAX: it could not), and the bytes
 * pending and slack before this take. */
uint64_t eng_ingest_space_take(struct eng_ingest_space *s,
			       const struct eng_io *io, uint64_t reserve,
			       uint64_t len, uint64_t *free_b,
			       uint64_t *held);
/* Take all of len bytes or none: 0, or -ENOSPC when the free bytes are
 * under the reserve, the bytes pending and slack, and len (0 when
 * io->space cannot say).  free_b, held: as eng_ingest_space_take's. */
int eng_ingest_space_claim(struct eng_ingest_space *s,
			   const struct eng_io *io, uint64_t reserve,
			   uint64_t len, uint64_t *free_b, uint64_t *held);
/* Bytes taken that are written now, or never will be. */
void eng_ingest_space_give(struct eng_ingest_space *s, uint64_t len);
/* The bytes pending (a test's, .status's). */
uint64_t eng_ingest_space_pending(struct eng_ingest_space *s);

/* How a record stream writes (-o ingest_*; defaults: docs/design.md). */
enum eng_ingest_fsync {
	ENG_INGEST_FSYNC_OFF = 0,	/* never (FFmpeg, OBS, bmx, sox) */
	ENG_INGEST_FSYNC_CLOSE,		/* each track file once, at close */
	ENG_INGEST_FSYNC_EVERY,		/* every `fsync_every` frames and at
					 * close */
};
struct eng_rec_config {
	struct eng_ingest_format fmt;
	unsigned buffer;	/* B: frame k must be written before frame
				 * k + B arrives (-o ingest_buffer=, 8) */
	struct eng_pace pace;	/* realtime or a speed: frame k is accepted
				 * no earlier than its arrival; off: no wait */
	uint64_t write_bytes;	/* 0: one pwrite per track per frame, else
				 * pwrites of at most this many bytes */
	enum eng_ingest_fsync fsync;
	unsigned fsync_every;	/* frames, with ENG_INGEST_FSYNC_EVERY */
	int64_t prealloc_frames; /* 0: none; else each track file's bytes
				 * of that many frames are fallocated
				 * (KEEP_SIZE) at open, given back at close */
	int stop_on_drop;	/* 1: a drop fails the writer's next write
				 * with EIO (-o ingest_on_drop=stop) */
	uint64_t reserve;	/* bytes that must stay free on the media
				 * file system (-o ingest_reserve=) */
	/* the mount's one reservation (required); every recorder of a
	 * mount names the same */
	struct eng_ingest_space *space;
	int replace;		/* an existing recording may be replaced
				 * (-o ingest_replace); else -EEXIST */
	const struct eng_io *io; /* clock, create/pwrite/... and close */
	/* The daemon that records, written into the note (NULL: no owner
	 * lines); its lock_shared says this mount's file system passes
	 * locks, and the note says "lock shared" only where the note's lock
	 * was taken too. */
	const struct eng_ingest_owner *owner;
	eng_record_fn record;	/* every operation, one row each, in order
				 * of completion; from the write thread or
				 * the writer's thread, one call at a time */
	void *record_ctx;
	/* Said once per stream, naming the recording and the reason (a
	 * failed write, the reserve): the mount's log. */
	void (*notice)(void *ctx, const char *msg);
	void *notice_ctx;
};

/*
 * The clock (docs/design.md "Ingest"): t0 is the time of the first byte
 * the writer gives; frame k arrives at A(k) = t0 + k / fps / speed and is
 * due on storage by A(k + B).  t0 never moves: a writer that falls behind
 * does not move the deadlines, so a slow writer cannot hide a slow
 * storage.  Rows, all with frame k's sched_ns = A(k), due_ns = A(k + B),
 * clip = the recording's name, track = the track's (the receive row: "V"):
 *   receive   the writer's bytes of frame k: issued when its first byte
 *             was accepted (after the wait for A(k) under pace), done at
 *             its last; length the frame's bytes
 *   write     each pwrite of frame k's slice of a track (file_offset in
 *             the track file)
 *   fsync     per track file, as cfg.fsync says (frame: the last written)
 *   open, fallocate, truncate, close: per track file (frame 0 at open,
 *             the last frame at close)
 * Frame k is dropped (an overrun) when its last write is done after
 * A(k + B): with cause "writer" when its bytes were not all received by
 * A(k + B) (its receive row is late), else "storage".  Its bytes are
 * still written: a track file always holds what the writer sent.
 * The capture buffer is B slots of one frame: the writer's bytes of frame
 * k wait (the writer blocks) while frame k - B is not yet written, so
 * memory is bounded and a storage stall shows as drops, not as a writer
 * that is made to look late.  pace=off: A(k) is when frame k's last byte
 * came, and it is due B frame periods later.
 * As built (rec.c):
 * - A receive row's times are the writer's: real time less the time a
 *   full buffer held it (under pace), so the frames a writer held by a
 *   stalled storage gives late are the storage's drops, not the writer's;
 *   they are never before A(k).
 * - Rows of no frame's clock (open, the WAV header and the close's patch
 *   and pad writes, fallocate, the close's truncate and fsync, close) have
 *   sched_ns = issued_ns and due_ns = done_ns: never late; played 0.  A
 *   whole frame's receive, write and fsync rows have played 1, a last
 *   partial frame's 0 (nor is it counted in frames or dropped).
 * - struct eng_access.clip is 0 in every row (the stream's one clip:
 *   the recording, whose name the caller gives the store).
 * - ingest_write=BYTES cuts each track's slice of a frame from its start.
 * - After a failed write nothing more is written (no hole in a track):
 *   the frames after it count as failed, the writer's writes, flush and
 *   fsync get its -errno.
 * - eng_rec_write after eng_rec_close: -EIO.
 * - The track files are made first, then the note: a track file that is
 *   already there (EEXIST) is never named by a note of ours, which the
 *   repair would cut it by.  The note's fd stays open to rewrite it.
 */
struct eng_rec;

/* Create the track files of recording `name` (eng_ingest_track_file,
 * each an open row; the WAV headers written), its note (state
 * recording) and the write thread.  The
 * clock starts at the first eng_rec_write.  0, -EINVAL (no cfg->space, or
 * a bad configuration), -EEXIST (a track file is
 * there and cfg->replace is 0), -EBUSY (replace: another mount records
 * it, its note's lock held), -ENOSPC (the preallocation does not fit
 * above the reserve and what cfg->space holds for the mount's other
 * recordings), -ENOMEM or
 * the create's -errno, with a reason in diag naming the file.  A create
 * that fails removes the files it made (io->remove), its note too once
 * it made or rewrote it, never a note it only claimed to replace (its
 * lock released). */
int eng_rec_new(const struct eng_rec_config *cfg, const char *name,
		struct eng_rec **out, struct eng_diag *diag);
/* The writer's len bytes at its offset off, which must be the bytes
 * received so far (a writer writes in order; -ESPIPE otherwise).  Blocks
 * until the bytes are accepted (each frame's arrival under pace; a free
 * capture buffer slot).  Every byte accepted has its space taken from
 * cfg.space first (the bytes of preallocated frames excepted; asked once
 * a frame, the first write of a frame taking to its end): the bytes
 * accepted (fewer than len when only so many fit), or -ENOSPC (none fit:
 * nothing accepted; the next write asks again), the failed track write's
 * -errno (and every write after it), -EIO (a drop with stop_on_drop, or
 * closed), -ESPIPE. */
ssize_t eng_rec_write(struct eng_rec *r, const void *buf, size_t len,
		      uint64_t off);
/* The totals so far (thread-safe: .status reads them while it records). */
struct eng_rec_stats {
	uint64_t bytes;		/* received from the writer */
	int64_t frames;		/* whole frames received */
	int64_t written;	/* whole frames on storage */
	int64_t dropped;	/* frames written after their due time */
	int64_t dropped_writer;	/* of those, the writer's (late receive) */
	uint64_t writes;	/* pwrite calls */
	uint64_t max_write_ns;	/* the slowest pwrite */
	int error;		/* 0 or the first failure's -errno */
	/* added by the record stream's implementation: */
	int64_t failed;		/* whole frames not written: a write of
				 * theirs, or one before them, failed */
	int waiting;		/* 1: the writer waits for a free slot (the
				 * storage is B frames behind) */
};
void eng_rec_stats(struct eng_rec *r, struct eng_rec_stats *st);
/* A writer's flush or fsync: wait until every whole frame received is
 * written (or failed), write the bytes received of the frame being
 * received (the rest follows once it is whole), and with durable fsync
 * each track file (fsync rows).  0 or the recording's first failure's
 * -errno: what a writer was told was written is on the track files
 * unless this says otherwise. */
int eng_rec_sync(struct eng_rec *r, int durable);
/* Write what is left (a last partial frame's bytes go to their tracks as
 * they are), fsync as cfg says, give back preallocated blocks, patch the
 * WAV headers, close the files (rows for each), set the note to closed
 * (failed after a failure: a write, an fsync; its frames the whole frames
 * written before it), stop the thread.  Returns
 * 0 or the first failure's -errno; st (may be NULL) gets the totals. */
int eng_rec_close(struct eng_rec *r, struct eng_rec_stats *st);
/* Free a closed recorder. */
void eng_rec_free(struct eng_rec *r);

/*
 * The recording's note, "ingest/NAME.rec" (written by eng_rec_new,
 * rewritten by eng_rec_close and the repair), text, so that the repair and
 * a person know what the track files are:
 *   # timelinefs recording (docs/formats.md "Ingest")
 *   preset seed
 *   state recording          (closed, failed, repaired)
 *   frames 1234              (closed, failed and repaired: whole
 *                             frames)
 *   host ... run ...         its owner (struct eng_ingest_owner)
 */
#define ENG_INGEST_NOTE_EXT ".rec"
/* Its text for a recording of f; frames < 0: state recording, no frames
 * line; *text malloc'ed.  0 or -ENOMEM. */
int eng_ingest_note_text(const struct eng_ingest_format *f,
			 const char *state, int64_t frames, char **text);
/* The same with owner o's lines after them (o may be NULL). */
int eng_ingest_note_text_owned(const struct eng_ingest_format *f,
			       const char *state, int64_t frames,
			       const struct eng_ingest_owner *o, char **text);
/* Parse a note: the preset's format and the state ("recording",
 * "closed", "failed", "repaired"; copied to state[16]) and, when owner
 * is not NULL, its owner lines in the same pass (fields empty, pid 0,
 * where absent or too long).  0, or -EINVAL with "FILE:LINE: reason" in
 * diag. */
int eng_ingest_note_parse(const char *file, const char *text, size_t len,
			  struct eng_ingest_format *f, char state[16],
			  struct eng_ingest_owner *owner,
			  struct eng_diag *diag);

/*
 * Repair (repair.c): a recording its daemon did not close (kill -9, a
 * crash) has its note in state recording, WAV sizes 0xFFFFFFFF and tracks
 * that may end inside a frame.  The repair first takes the note's lock
 * (the note opened with create(ENG_IO_CREATE_KEEP), struct eng_io.lock,
 * held to the end) and reads the note again under it; a recording that
 * eng_ingest_life does not find dead is left as it is (out->left, the
 * reason in out->why).  Else k* is the last frame every present track
 * holds whole (a missing track file is skipped: it is not made, and it
 * never takes the others below what they hold); the bytes past
 * its essence start + eng_ingest_upto(t, k*) are copied to
 * "NAME.TRACK.partial" beside the track (replaced if there; fsynced)
 * before the track is truncated there; each WAV header patched
 * (eng_ingest_wav_patch; a WAV cut inside its header gets it again) and
 * the note set to state repaired, frames k*, its owner lines kept.  A
 * note in another state (closed, failed: closed after a failure, its
 * tracks possibly holding bytes past its frames; repaired) is left as
 * it is, unjudged.  Every file is opened with
 * create(ENG_IO_CREATE_KEEP), which refuses a symlink, a file that is not
 * regular and one with more than one link (io.h): any such track file
 * refuses the whole repair, nothing cut.  The mount repairs every
 * recording of MEDIA_DIR/ingest at start, before it serves, and says each
 * repair on stderr and as a run_env row ingest_repaired (a problem row
 * would mark the run refused: the team's decision).
 */
struct eng_ingest_repair {
	char name[256];		/* the recording */
	int64_t frames;		/* k*: whole frames kept; a whole
				 * recording's note's frames (-1: none) */
	uint64_t bytes;		/* the writer's bytes of k* frames
				 * (eng_ingest_frame_offset) */
	uint64_t cut;		/* bytes cut, all tracks: set aside */
	uint32_t missing;	/* track files missing (bit t) */
	int repaired;		/* 0: it was whole, or left */
	int left;		/* 1: not provably dead: left as it is */
	char why[400];		/* with left: the reason */
	char run[40];		/* the note's run uuid ("": none) */
};
/* Repair the recording whose note is `note_file` (relative to the media
 * folder, "ingest/NAME.rec"), through io (open, pread, size, create,
 * pwrite, fsync, ftruncate, close, lock), judged by self.  0 (repaired,
 * whole, or left), or -errno with the reason in diag naming the file. */
int eng_ingest_repair(const struct eng_io *io,
		      const struct eng_ingest_self *self,
		      const char *note_file, struct eng_ingest_repair *out,
		      struct eng_diag *diag);

#endif /* ENG_INGEST_H */
