/* SPDX-License-Identifier: MIT */
/*
 * Media resolution (media.c): each (clip, track) a timeline plays to one
 * file of the media folder and, for real media (mfile.h), the stream in
 * it; its essence offset and the checks that every edit is in its media.
 * Owns the naming rules (docs/formats.md "Media files") and the rule that a
 * name never leaves the media folder.
 */
#ifndef ENG_MEDIA_H
#define ENG_MEDIA_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline/model.h"
#include "util/diag.h"

/* How far into a .wav file the mount looks for its data chunk. */
#define ENG_WAV_HEAD_MAX 65536

/* Edit while ingest: the folder of the media folder that the mount's
 * recordings are in, where a recording's WAV essence starts, and its
 * note's extension: engine/ingest/ingest.h's ENG_INGEST_DIR,
 * ENG_INGEST_WAV_DATA and ENG_INGEST_NOTE_EXT, which media/ cannot
 * include (it comes before play/ and ingest/; test_media checks that
 * they agree). */
#define ENG_MEDIA_INGEST_DIR "ingest"
#define ENG_MEDIA_INGEST_WAV_DATA 4096
#define ENG_MEDIA_INGEST_NOTE_EXT ".rec"

/* Find the data chunk of a RIFF/WAVE header held in buf[0..len): sets the
 * offset of the first essence byte and the chunk's size, UINT64_MAX ("to
 * the end of the file") where a streaming writer left it 0 or 0xFFFFFFFF
 * (a recording before its close, RF64).  -EINVAL when it is not RIFF/WAVE
 * or has no data chunk within len bytes. */
int eng_wav_data(const unsigned char *buf, size_t len, uint64_t *offset,
		 uint64_t *size);

/*
 * Resolve every (clip, track) that a segment uses to one file of the
 * directory open as dirfd (media_dir names it in messages), by the naming
 * rules of docs/formats.md "Media files", first that applies:
 *  1. the single regular file NAME.T.* (T the track's media name: a
 *     transition track Vx reads V's).  A .mov/.mp4/.mxf/.wav/.aif (any
 *     case, mfile.h's readers) plays its one stream of the track's kind
 *     (V* video, A* audio); any other is raw essence: the closed form of
 *     layout.h from byte 0, or from a .wav's data chunk (in its first 64
 *     KiB) where no reader indexes it;
 *  2. the file the timeline names for the clip (eng_clip.file: an EDL
 *     comment, an OTIO target_url), else the single NAME.mov/.qt/.mp4/
 *     .m4v/.mxf: V plays its first video stream, An its n-th audio stream
 *     (a stream of several channels is one track);
 *  3. the OP-Atom files of the folder whose package name or UMID is NAME:
 *     V the one holding video, An the n-th holding audio by file name;
 *  4. a recording of the mount's (edit while ingest): ingest/NAME.V.raw
 *     (raw from byte 0) or ingest/NAME.An.wav (raw from its data chunk),
 *     regular files of the folder "ingest" (not a link), or either absent
 *     while the note ingest/NAME.rec says "state recording".  Such media
 *     may be shorter than the edit needs: sized from the timeline, no
 *     "short file" message (the player waits for what is being
 *     recorded, else fails those frames); eng_media.file is
 *     "ingest/NAME.V.raw".
 * A sequence clip (eng_clip.seq) on a video track (media name V...) is
 * its images instead (eng_seqmedia_resolve below): eng_media.seq and
 * .ess its images as a video stream, .file its pattern, .origin the
 * reference's; its other tracks follow the rules above.
 * Two candidates of one rule are an error naming both.  Only regular files
 * directly in the folder are used (links are not followed; a non-regular
 * match is named in the "no media file" message); names never leave it;
 * each real file is read once (eng_mfile_read over pread) into tl->mfiles
 * (freed by tl->media_free) and eng_media.ess points at its stream, with
 * eng_media.origin the stream's frame or sample of source frame 0 by the
 * media's start timecode (eng_clip.tc).  An audio track of real audio
 * takes its sample format (rate, align), which its clips must share; the
 * timeline is finalized again when that changed it.  dirfd is neither
 * closed nor moved.  Each missing, ambiguous, unreadable, refused, wrong
 * kind, wrong frame rate, mixed sample format or short file is one message
 * naming timeline, line (of the first use; of the segment needing most for
 * a short file), clip, file and reason.  Fills every clip's media[ntracks]
 * (file NULL where unused or unresolved; a second call starts over);
 * returns 0, -EINVAL or -ENOMEM.
 */
int eng_media_resolve(struct eng_timeline *tl, int dirfd,
		      const char *media_dir, struct eng_diag *diag);

/* src reads the file open as *fd (the caller's, open while src is used)
 * through pread, name and size as given: the mount's reads of media
 * headers and indexes. */
struct eng_src;
void eng_src_fd(struct eng_src *src, int *fd, const char *name,
		uint64_t size);

/* The readers eng_media_resolve_with reads real files by: eng_mfile_read
 * for the mount, a fake for unit tests. */
struct eng_mfile;
struct eng_media_readers {
	int (*read)(const struct eng_src *src, struct eng_mfile *out,
		    struct eng_diag *diag);
};
/* eng_media_resolve with the readers rd. */
int eng_media_resolve_with(struct eng_timeline *tl, int dirfd,
			   const char *media_dir,
			   const struct eng_media_readers *rd,
			   struct eng_diag *diag);

/* Bytes of essence (after the header) that segment s of track t needs in
 * its clip file: the largest end over its frames of the slice at the
 * source frame's offset with the timeline frame's length (docs/design.md), the
 * rule eng_media_resolve() checks files by and timelinefs-gen --for sizes
 * them by.  0, or -ERANGE when the need does not fit 64 bits. */
int eng_segment_bytes_needed(const struct eng_timeline *tl, size_t t,
			     const struct eng_segment *s, uint64_t *need);

/* The media's own timecode of position pos of m's stream (a video frame,
 * an audio sample frame; from 0, its first), "HH:MM:SS:FF" into buf[len]
 * (len >= 16): its start timecode (eng_media.start_tc) plus pos, counted
 * at the start timecode's rate, or at fps (the timeline's) for one kept
 * in samples (BWF's time reference); hours wrapped as a timecode wraps.
 * Returns 0; -ENOENT for media without a start timecode (buf "") or a
 * position before 00:00:00:00; -EINVAL for len < 16. */
int eng_media_tc(const struct eng_media *m, struct eng_fps fps, int64_t pos,
		 char *buf, size_t len);
/* " (TC..TC)": the media timecodes of positions lo..hi (lo alone when
 * they are one), "" for media without a start timecode; for messages
 * that number a clip's frames as its media does. */
void eng_media_tc_span(const struct eng_media *m, struct eng_fps fps,
		       int64_t lo, int64_t hi, char *buf, size_t len);

/* Whether a picture track of resolved tl plays media whose frames are
 * their own (real media, an image sequence): the picture (-o picture=)
 * then sizes none of them. */
int eng_media_picture_unused(const struct eng_timeline *tl);

/* One problem of resolving (clip, track) of tl: "TL:LINE: clip C track
 * T: reason" into diag (which may be NULL), counted in *nerr: media.c's
 * and seqmedia.c's messages alike. */
void eng_media_vproblem(struct eng_diag *diag, unsigned *nerr,
			const struct eng_timeline *tl, unsigned line,
			size_t clip, size_t track, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));

/* The most images a sequence clip may play up to: its tables are 12 bytes
 * an image (a week at 24 fps in 200 MB). */
#define ENG_SEQ_IMAGES_MAX (1 << 24)

/*
 * Clip c's image sequence (eng_clip.seq) on video track t (seqmedia.c,
 * called by eng_media_resolve): the images its segments play (image
 * origin + source frame, from 0; none before 0, fewer than
 * ENG_SEQ_IMAGES_MAX), the header of the first the edit plays, opened
 * beneath dirfd (eng_open_beneath) and read as imgseq.h reads it (a
 * *.raw sequence is headerless: all of the file), and where compressed,
 * each played image's size by a stat.  *out: the sequence (caller frees
 * with eng_seqmedia_free; NULL when the clip plays nothing on t).  A
 * problem (an image before the first, too many, a name that overflows,
 * the first image missing, not a regular file, refused by its header,
 * compressed TIFF) is one message naming timeline, line, clip, track,
 * file and reason, counted in *nerr: -EINVAL.  0, -EINVAL or -ENOMEM.
 * media_real: media_dir's real path (realpath, asked once by the
 * caller's resolve, not once a clip), "" where it has none; a folder the
 * clip names by its full path is inside the media folder as either.
 */
struct eng_seqmedia;
int eng_seqmedia_resolve(const struct eng_timeline *tl, size_t c, size_t t,
			 int dirfd, const char *media_dir,
			 const char *media_real, struct eng_seqmedia **out,
			 unsigned *nerr, struct eng_diag *diag);

#endif /* ENG_MEDIA_H */
