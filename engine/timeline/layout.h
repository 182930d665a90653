/* SPDX-License-Identifier: MIT */
/*
 * The byte layout of the virtual file (layout.c, docs/design.md): frame k's
 * tracks one after another, each track's bytes a closed form of its rate,
 * except a track of real variable-size frames, whose bytes before each
 * frame are a table built once at mount (eng_track.upto).  Every reader of the virtual file
 * (the player, the media checks, the generator, tests/tools/tlexpect.py)
 * agrees with these functions.
 */
#ifndef ENG_LAYOUT_H
#define ENG_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/model.h"
#include "util/diag.h"

/* Bytes of a track of `rate`/`align` before frame k at `fps`:
 * floor(k * rate * den / (num * align)) * align. */
uint64_t eng_upto_rate(uint64_t rate, uint32_t align, struct eng_fps fps,
		       int64_t k);
/* The fewest and most bytes a frame of a track of the closed form holds:
 * floor and ceil of rate / fps in whole units of align, times align
 * (128 bits: a rate of 2^64 - 1 at 1/2^32 fps). */
void eng_track_frame_bytes(const struct eng_track *tr, struct eng_fps fps,
			   unsigned __int128 *lo, unsigned __int128 *hi);
/* Bytes of track t before frame k. */
uint64_t eng_upto(const struct eng_timeline *tl, size_t t, int64_t k);
/* Offset in the virtual file of frame k (k may equal tl->frames). */
uint64_t eng_frame_offset(const struct eng_timeline *tl, int64_t k);
/* Size of frame k (all tracks). */
uint64_t eng_frame_size(const struct eng_timeline *tl, int64_t k);
/* The frame holding byte `off` (off < tl->bytes): binary search,
 * O(log frames). */
int64_t eng_frame_at(const struct eng_timeline *tl, uint64_t off);
/* The segment of track t covering frame k, or NULL for a gap:
 * binary search, O(log segments).  Needs a finalized timeline. */
const struct eng_segment *eng_segment_at(const struct eng_track *trk,
					 int64_t k);
/* The first frame from k on that a track has a segment at (tl->frames:
 * none): a reader that skips only gap frames, which hold zeros and cost
 * no read, skips nothing it should have read.  O(tracks x log segments);
 * needs a finalized timeline. */
int64_t eng_next_segment_frame(const struct eng_timeline *tl, int64_t k);

/*
 * The most file extents one slice reads.  A video frame is one extent; a
 * frame's audio is one per container chunk it crosses.  Containers chunk
 * audio by a fraction of a second or by a video frame (QuickTime, MXF
 * OP1a: one chunk per frame), so a timeline frame of audio crosses 2 at
 * most where the source's frame rate is the timeline's, 3 where a frame is
 * longer than the media's chunks (a 24 fps edit of 30 fps chunked media);
 * 4 leaves one to spare.  eng_tl_layout_media refuses media that needs
 * more, naming the clip, so that a slice stays a fixed size on the stack.
 */
#define ENG_SLICE_EXTENTS 4

/* A run of bytes of a media file: timeline/essence.h's struct eng_extent,
 * which timeline/ cannot include (media/ comes after it). */
struct eng_slice_ext {
	uint64_t off;
	uint64_t len;
};

/* Frame k's slice of track t. */
struct eng_slice {
	int64_t frame;
	size_t track;
	uint64_t pos;		/* offset in the virtual file */
	uint64_t len;		/* upto(t, k+1) - upto(t, k); may be 0 */
	const struct eng_segment *seg; /* NULL: a gap, zeros, no read */
	/* ext[0].off: raw media header + upto(t, src_in + k - rec_in) */
	uint64_t file_off;
	/* Where its len bytes are in the clip's file, in order: one read
	 * each.  0 for a gap or an empty slice; also 0 with seg set and len
	 * > 0 when the media has no such samples (never for a timeline
	 * eng_tl_layout_media accepted): the player fails that frame. */
	int next;
	struct eng_slice_ext ext[ENG_SLICE_EXTENTS];
};
void eng_slice_get(const struct eng_timeline *tl, int64_t k, size_t t,
		   struct eng_slice *out);

/*
 * The frames a decoder needs before source frame src of (clip, track)'s
 * media when a reader starts there (a cut, a seek): long-GOP media whose
 * frame src is not a key frame.  Writes up to max frames (their extents)
 * into out, in decode order, and returns how many (0 for intra-only or
 * raw media, or a key frame).  Presentation frames from dep[src] with a
 * decode position below src's (ess->decode), else dep[src] .. src - 1.
 */
int eng_slice_deps(const struct eng_timeline *tl, uint32_t clip, size_t t,
		   int64_t src, struct eng_slice_ext *out, uint64_t max);
/*
 * A decoder of (clip, track)'s media, read in decode order: the decode
 * position of media frame j (j for media in presentation order), and the
 * first a run starting at src reads (its key frame's).  The frames at
 * decode positions [from, that of src), in decode order, up to max, into
 * out, their media frames into which (may be NULL); 0 for media that is
 * not long-GOP.  Frames shown after src come among them where B frames
 * are: a player keeps them (tl->dep_ahead_max) until they are shown.
 */
int64_t eng_slice_dpos(const struct eng_timeline *tl, uint32_t clip,
		       size_t t, int64_t j);
int64_t eng_slice_run_start(const struct eng_timeline *tl, uint32_t clip,
			    size_t t, int64_t src);
int eng_slice_decode_reads(const struct eng_timeline *tl, uint32_t clip,
			   size_t t, int64_t from, int64_t src,
			   struct eng_slice_ext *out, int64_t *which,
			   uint64_t max);
/* Whether a clip of track t is long-GOP media with B frames (frames a
 * player keeps between their read and their turn). */
int eng_track_reorders(const struct eng_timeline *tl, size_t t);
/* The media frame (video) a timeline frame k of segment seg on track t
 * plays: origin + src_in + k - rec_in; -1 for media that is not real
 * video. */
int64_t eng_slice_src(const struct eng_timeline *tl, size_t t,
		      const struct eng_segment *seg, int64_t k);
/* Compressed audio (m->ess->pts): the sample frames that source frames
 * [src, src + n) of media m play, [*s0, *s1) of its essence: their
 * samples at the timeline's rate, after the media's origin.  The
 * layout's bytes, a movie's sample table and the resolver's reach all
 * count them here, so that they agree. */
void eng_media_samples(const struct eng_timeline *tl,
		       const struct eng_media *m, int64_t src, int64_t n,
		       int64_t *s0, int64_t *s1);

/*
 * The layout of real media (timeline/essence.h), once eng_media_resolve has
 * set each clip's media: a video track whose clips are real video plays
 * each frame at the size of the source frame it plays (gap frames: 0
 * bytes), in eng_track.upto where sizes differ, else in the closed form
 * (rate ceil(size * fps), align the size); its rate is then derived: the
 * track's average bytes a second, rounded up, align 1 (for statements and
 * --dump-tl: upto says its bytes).  An audio track with real PCM keeps
 * the closed form at rate sample_rate x block and align block; one of
 * compressed audio (ess->pts) has a table as real video, frame k the
 * packets whose time falls in its samples (timeline/essence.h).  Recomputes
 * tl->bytes, frame_bytes_min/max, slice_extents_max, dep_reads_max,
 * dep_bytes_max and dep_ahead_max.  A track whose clips disagree (a video
 * track of real and raw media, audio of two sample rates, block sizes or
 * byte orders), a segment past its media's last frame or sample, or a
 * frame of audio in more than ENG_SLICE_EXTENTS chunks is one message
 * naming timeline, line,
 * clip and both values; a timeline whose frames hold no byte (raw media
 * or real) is "its N frames hold 0 bytes: nothing to read"; returns 0,
 * -EINVAL or -ENOMEM.  A timeline of raw media only is otherwise left as
 * it is.  Memory: 8 bytes a frame of each variable
 * track (691 KB an hour at 24 fps).
 */
int eng_tl_layout_media(struct eng_timeline *tl, struct eng_diag *diag);

#endif /* ENG_LAYOUT_H */
