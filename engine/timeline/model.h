/* SPDX-License-Identifier: MIT */
/*
 * The timeline model (model.c): tracks, clips and segments, built by every
 * parser through these functions and finalized once.  Owns the rules of what
 * a timeline may hold: track names (1..15 of [A-Za-z0-9_]), clip names that
 * never leave the media folder, and "the later definition wins" for
 * overlapping segments.  After eng_tl_finalize() a timeline is read-only and
 * may be shared by every stream that plays it.
 */
#ifndef ENG_MODEL_H
#define ENG_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"
#include "util/values.h"

#define ENG_TRACK_NAME_MAX 16	/* including the NUL: "V", "A1" .. "A99" */

/* One edit on one track: timeline frames [rec_in, rec_in + frames) play
 * source frames [src_in, src_in + frames) of clip `clip`. */
struct eng_segment {
	uint32_t clip;		/* index into eng_timeline.clips */
	int64_t src_in;
	int64_t rec_in;
	int64_t frames;
	unsigned line;		/* defining line of the timeline file */
};

struct eng_essence;
struct eng_mfile;
struct eng_seqmedia;
struct eng_start_tc;

/* The file that holds one clip's essence for one track. */
struct eng_media {
	char *file;		/* name inside MEDIA_DIR; NULL: not used */
	uint64_t header;	/* offset of the essence: WAV data chunk, 0 raw */
	uint64_t size;		/* essence bytes available after header */
	/* Real media (timeline/essence.h): the stream of the file
	 * that this (clip, track) plays, its frames where the container's
	 * index says; NULL for raw essence, read by layout.h's closed form
	 * at header.  Owned by tl->mfiles. */
	const struct eng_essence *ess;
	/* The stream's frame (video) or sample frame (audio) that the
	 * clip's source frame 0 is: the media's start timecode applied
	 * (an EDL's source timecode means the media's frame), 0 without.
	 * A sequence's: the image (from 0) that source frame 0 is
	 * (eng_seq_ref.origin). */
	int64_t origin;
	/* The media's start timecode (the stream's, else its file's) that
	 * its frames are numbered by in messages and that origin counts
	 * from when the clip has a timecode (eng_clip.tc_set); NULL for
	 * media without one.  Owned by tl->mfiles. */
	const struct eng_start_tc *start_tc;
	/* An image sequence (media/imgseq.h): frame k of the
	 * media is its own file, opened, its header and pixel data read,
	 * closed, per frame.  NULL otherwise.  ess then points at
	 * seq->ess, the images' pixel data as a video stream (one frame an
	 * image: off = the bytes before the pixel data, len = their size),
	 * so that the layout of real video holds; file is the pattern
	 * (eng_seq_pattern).  Owned by the timeline's media (media.c). */
	const struct eng_seqmedia *seq;
};

/* What a video track's frames are (docs/design.md "Pictures"): an
 * uncompressed 4:2:2 format and a size.  A track with a picture gives every
 * frame exactly eng_picture_bytes() bytes: its rate is
 * ceil(bytes * fps.num / fps.den) and its align the frame size, so the one
 * closed form of layout.h holds (eng_tl_finalize checks that it stays exact
 * over the whole timeline). */
enum eng_pix {
	ENG_PIX_NONE = 0,	/* a rate track: bytes, no picture */
	ENG_PIX_2VUY,		/* 8-bit Y'CbCr 4:2:2, UYVY: w*h*2 bytes */
	ENG_PIX_V210,		/* 10-bit 4:2:2: rows of ((w+47)/48)*128 */
};
#define ENG_PICTURE_MAX 16384	/* largest width and height */
struct eng_picture {
	uint32_t pix;		/* enum eng_pix */
	uint32_t width, height;
};

/* The format named `name` ("2vuy", "v210"), or ENG_PIX_NONE. */
enum eng_pix eng_pix_find(const char *name);
/* The name of a format ("2vuy"), "" for ENG_PIX_NONE. */
const char *eng_pix_name(uint32_t pix);
/* Bytes of one frame of p; 0 for no picture. */
uint64_t eng_picture_bytes(const struct eng_picture *p);
/* A picture from its .tl words: FORMAT and WIDTHxHEIGHT.  Returns 0, or
 * -EINVAL with *why a reason naming the word (static text for the
 * message: "unknown picture format", "width must be even for 4:2:2" ...). */
int eng_picture_parse(const char *format, const char *size,
		      struct eng_picture *out, const char **why);
/* Whether a word has the form of a picture size, digits 'x' digits. */
int eng_picture_size_word(const char *s);

struct eng_track {
	char name[ENG_TRACK_NAME_MAX];
	/* The track whose media files this one reads: its own name, except
	 * for a transition track "Tx" added after a track "T" (the outgoing
	 * side of a dissolve or wipe, see edl_parse.c): that reads T's
	 * files, since it plays the same clips' essence. */
	char media[ENG_TRACK_NAME_MAX];
	uint64_t rate;		/* bytes of essence per second */
	uint32_t align;		/* bytes per sample unit (>= 1) */
	struct eng_picture pic;	/* pix ENG_PIX_NONE: no picture */
	struct eng_segment *segs; /* after finalize: sorted, disjoint */
	/* [frames + 1] or NULL: bytes of the track before each timeline
	 * frame, for a track whose frames differ in size (real compressed
	 * video: each frame the size of the source frame it plays).  NULL:
	 * the closed form of rate and align (layout.h).  Built once at
	 * mount, after media resolution (eng_tl_layout_media). */
	uint64_t *upto;
	size_t nsegs;
	size_t cap;
};

/* What a sequence clip does for an image whose file is missing when it is
 * played (OTIO's MissingFramePolicy). */
enum eng_seq_missing {
	ENG_SEQ_MISS_ERROR = 0,	/* EIO to the reader, a failed frame */
	ENG_SEQ_MISS_HOLD,	/* the last image the stream read, again */
	ENG_SEQ_MISS_BLACK,	/* zeros, no read */
};
/* "error", "hold", "black" (OTIO's names), or NULL. */
const char *eng_seq_missing_name(uint32_t m);
/* The policy named s (those names, any case), or -1. */
int eng_seq_missing_find(const char *s);

/*
 * An image sequence clip (docs/formats.md "Sequence clips"):
 * image i of the clip (from 0) is the file BASE/PREFIX NUMBER SUFFIX in
 * the media folder, NUMBER = start + i * step written as OTIO's
 * ImageSequenceReference writes it (media/imgseq.h eng_seq_name_of); a
 * folder that does not hold the first image the edit plays gives way to
 * another (eng_seqmedia_resolve: dir inside the media folder first, and
 * MEDIA_DIR/CLIP for a pattern without a folder).  A
 * sequence clip plays its images on the video tracks (a track whose media
 * name starts with 'V'); on any other track the clip is found by the
 * usual naming rules (its audio: NAME.A1.wav ...).
 */
struct eng_seq_ref {
	/* The folder inside the media folder: '/'-separated components,
	 * none empty, "." or "..", no leading '/'; "" is the media folder
	 * itself.  From .tl's PATTERN as written; from OTIO's
	 * target_url_base its last component (the media folder is where
	 * the timeline's media are, as for any clip). */
	char *base;
	/* OTIO's target_url_base as a full path ("/srv/media/shots/A001"),
	 * NULL for none or a relative one: where it names a folder inside
	 * the media folder (or the media folder itself), that folder is
	 * looked for first (media/seqmedia.c). */
	char *dir;
	char *prefix;		/* no '/' */
	char *suffix;		/* no '/', the extension: ".dpx" */
	int64_t start;		/* the number of image 0 */
	int64_t step;		/* >= 1 */
	int padding;		/* 0 (none) .. 64 */
	uint32_t missing;	/* enum eng_seq_missing */
	/* The image that the clip's source frame 0 is: source frame f
	 * plays image origin + f.  .tl: 0 (the event's SRC_IN counts
	 * images); OTIO: 0 (source times count from the available range's
	 * start, which is image 0's time); EDL: the source timecode counts
	 * file numbers (a DPX from 86400 is 01:00:00:00 at 24 fps), so
	 * its clip origin (eng_clip.tc) less start, over step. */
	int64_t origin;
	struct eng_fps rate;	/* OTIO's rate, {0, 0} when not given */
	unsigned line;		/* where it was defined */
};

struct eng_clip {
	char *name;
	unsigned line;		/* first line that uses the clip */
	struct eng_media *media; /* [ntracks] after eng_media_resolve */
	/* An EDL's source timecode of the clip's frame 0 (its origin, as
	 * edl_origin= chose it), counted as eng_tc_frames() counts (drop
	 * frame when tc_drop): the start timecode timelinefs-gen writes
	 * into real-format media (--codec), so that the EDL's source in
	 * points are the media's own frames; media.c maps it to the
	 * media's frame by the media's start timecode (eng_media.origin).
	 * An OTIO clip's is its media reference's available_range start
	 * (0 without one).  A .tl clip's is its clip line's origin=, else
	 * the earliest timecode SRC_IN of its events; tc_set 0 for a .tl
	 * clip with neither (frames count from the media's first). */
	int64_t tc;
	int tc_set;
	int tc_drop;
	/* The media file the timeline names for the clip (an EDL's
	 * "* SOURCE FILE:" or "* FROM CLIP NAME:" comment, an OTIO
	 * ExternalReference's target_url): its last path component as
	 * written, extension kept ("A001C003.mov"); a .tl clip line's
	 * file=; NULL when none.  media.c looks for it when there is no
	 * NAME.TRACK.* file. */
	char *file;
	/* An image sequence clip (see struct eng_seq_ref), NULL for a
	 * clip of one file a track.  Set by eng_tl_clip_seq, owned. */
	struct eng_seq_ref *seq;
	/* Recorded through the mount (edit while ingest): the line of its
	 * .tl `record` line, 0 for none.  Its media are only the mount's
	 * recording MEDIA_DIR/ingest/NAME.*, which may be absent or short
	 * at mount (media.h, rule 4); never a sequence clip. */
	unsigned record;
};

struct eng_timeline {
	char *name;		/* file name without extension */
	char *path;		/* the timeline file, as given */
	struct eng_fps fps;
	struct eng_track *tracks;
	size_t ntracks;
	struct eng_clip *clips;
	size_t nclips;
	/* The real media files resolved for the clips (media.c), each read
	 * once however many (clip, track)s play its streams. */
	struct eng_mfile **mfiles;
	size_t nmfiles;
	/* Frees mfiles (set by media.c, which owns them: timeline/ comes
	 * before media/ and does not call it); called by eng_tl_free. */
	void (*media_free)(struct eng_timeline *tl);
	/* Filled by eng_tl_finalize(): */
	int64_t frames;		/* length of the longest track */
	uint64_t bytes;		/* size of the virtual file */
	uint64_t frame_bytes_min; /* smallest and largest frame of the file */
	uint64_t frame_bytes_max;
	/* Filled by eng_tl_layout_media() (0 before, and for raw media):
	 * the most file extents one slice reads (audio crossing chunks,
	 * at most ENG_SLICE_EXTENTS), the most decoding dependency reads
	 * one frame of one track can need (long-GOP media) and the largest
	 * of those frames: what a player allocates for them. */
	unsigned slice_extents_max;
	uint64_t dep_reads_max;
	uint64_t dep_bytes_max;
	/* ... and the most frames a decoder reads before they are shown
	 * (B frames: the P frame after them), which a player keeps until
	 * they are played, so that each is read once. */
	uint64_t dep_ahead_max;
};

/* Create an empty timeline; name and path are copied.  NULL on ENOMEM. */
struct eng_timeline *eng_tl_new(const char *name, const char *path);
void eng_tl_free(struct eng_timeline *tl);

/* Whether name is a valid track name: 1..15 of [A-Za-z0-9_]. */
int eng_track_name_valid(const char *name);
/* Add a track; returns its index, -EEXIST (same name), -EINVAL (bad name:
 * must be 1..15 of [A-Za-z0-9_], rate 0 or align 0) or -ENOMEM. */
int eng_tl_add_track(struct eng_timeline *tl, const char *name,
		     uint64_t rate, uint32_t align);
/* Add a track of pictures p (a valid one, see eng_picture_parse) at the
 * timeline's fps, which must be set; returns as eng_tl_add_track. */
int eng_tl_add_picture_track(struct eng_timeline *tl, const char *name,
			     const struct eng_picture *p);
/* Index of the named track or -ENOENT. */
int eng_tl_find_track(const struct eng_timeline *tl, const char *name);
/* Index of the named clip, adding it (with `line`) if new; -ENOMEM, or
 * -EINVAL when the name could leave the media folder or break a file name
 * (empty, ".", "..", contains '/', NUL or a control character). */
int eng_tl_clip(struct eng_timeline *tl, const char *name, unsigned line);
/* Name the media file of clip (eng_clip.file): a file name, copied.
 * -EEXIST when the clip has one already, -EINVAL for a name that could
 * leave the media folder (as eng_tl_clip refuses), -ENOMEM. */
int eng_tl_clip_file(struct eng_timeline *tl, uint32_t clip,
		     const char *file);
/* Make clip an image sequence: ref's strings are copied.  -EEXIST when
 * the clip is one already (ref->line names the first), -ENOMEM, or
 * -EINVAL with *why a static reason ("a folder of the pattern leaves the
 * media folder", "step must be 1 or more", "padding above 64", "a '/' in
 * the name prefix or suffix", "a control character", "unknown missing
 * frame policy", "no such clip").  Parsers call it where the format
 * defines the clip's media. */
int eng_tl_clip_seq(struct eng_timeline *tl, uint32_t clip,
		    const struct eng_seq_ref *ref, const char **why);
/* Whether b is a sequence's folder inside the media folder: "" or
 * components joined by '/', none empty, "." or "..". */
int eng_seq_base_ok(const char *b);
/* The .tl pattern of a sequence, BASE/PREFIX%0Nd SUFFIX (%d without
 * padding; a '%' of the names written %%), into buf[len]: what --dump-tl
 * writes and the media table's file.  Returns its length, or
 * -ENAMETOOLONG. */
int eng_seq_pattern(const struct eng_seq_ref *ref, char *buf, size_t len);

/* Append a segment in definition order (overlaps are resolved by
 * eng_tl_finalize: the later one wins).  -EINVAL for frames <= 0 or a
 * negative src_in/rec_in, -ENOMEM. */
int eng_tl_add_segment(struct eng_timeline *tl, size_t track, uint32_t clip,
		       int64_t src_in, int64_t rec_in, int64_t frames,
		       unsigned line);
/* End (exclusive) of the last frame defined so far on a track: where an
 * appended event starts. */
int64_t eng_tl_track_end(const struct eng_timeline *tl, size_t track);

/* Resolve overlaps (later definition wins; an overlapped segment is trimmed
 * or split, its src_in moved accordingly), sort, and compute frames, bytes
 * and frame sizes.  Adds a message and returns -EINVAL for a timeline with
 * no track or no frame, or one so long that a picture track's closed form
 * would no longer give every frame exactly its size; -ENOMEM. */
int eng_tl_finalize(struct eng_timeline *tl, struct eng_diag *diag);

#endif /* ENG_MODEL_H */
