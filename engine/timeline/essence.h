/* SPDX-License-Identifier: MIT */
/*
 * A media stream's index: where one stream's frames and samples really are
 * in its file, as the container's own index says (docs/formats.md "Real
 * media").  The media readers (media/mfile.h) fill it; the layout of the
 * virtual file (layout.c), the player's reads and the movie's sample
 * tables read it.
 *
 * A video stream is a table of frames (offset, size), one per frame in
 * presentation order; an audio stream of PCM is a run of sample frames of
 * one size (channels x bytes) in chunks (a container interleaves them with
 * video), so that a timeline frame's audio is the byte range of its
 * samples whatever the chunking; compressed audio (AAC ...) is a table of
 * packets (offset, size, time), a timeline frame's audio the packets of
 * its time.  Raw essence (NAME.T.raw) needs none: it keeps the closed
 * form of layout.h (struct eng_media with essence NULL).
 */
#ifndef ENG_TIMELINE_ESSENCE_H
#define ENG_TIMELINE_ESSENCE_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/timecode.h"
#include "util/values.h"

/* One run of bytes of a file. */
struct eng_extent {
	uint64_t off;
	uint64_t len;
};

enum eng_ess_kind {
	ENG_ESS_VIDEO = 1,	/* frames: off[], len[] */
	ENG_ESS_AUDIO,		/* sample frames in chunks[] */
};

/* A start timecode: the media's first frame is `frame` frames after
 * 00:00:00:00 counted at `rate` (drop frame already applied). */
struct eng_start_tc {
	int present;
	int64_t frame;
	struct eng_fps rate;
	int drop;
};

/* Audio: a chunk of consecutive sample frames stored contiguously. */
struct eng_chunk {
	uint64_t off;		/* file offset of its first sample frame */
	int64_t first;		/* index of its first sample frame */
	uint32_t count;		/* sample frames in it (>= 1) */
};

/* One stream of a media file. */
struct eng_essence {
	uint32_t kind;		/* enum eng_ess_kind */
	int index;		/* the stream's index in its file (0 for a
				 * file of one stream: WAV, OP-Atom) */
	/* What the samples are: a QuickTime sample description's four
	 * characters ('apcn', 'AVdn', 'avc1', 'mp4v', '2vuy', 'in24',
	 * 'sowt', 'twos', 'lpcm' ...), 0 where none fits; codec is
	 * libavcodec's name ("prores", "dnxhd", "h264", "pcm_s24le"),
	 * for messages and for telling codecs apart. */
	uint32_t fourcc;
	char codec[32];
	/* Decoder setup as the container holds it (avcC, hvcC, ...): the
	 * movie copies it into its own sample description.  May be NULL. */
	unsigned char *extradata;
	size_t extradata_len;

	/* ENG_ESS_VIDEO */
	uint32_t width, height;
	struct eng_fps fps;	/* frame rate of the stream */
	int64_t nframes;
	uint64_t *off;		/* [nframes] in presentation order */
	uint32_t *len;		/* [nframes] */
	/* [nframes] or NULL (every frame a key frame: intra-only codecs):
	 * the first frame, in decode order, that decoding frame k needs:
	 * a reader starting at k reads the frames from there (its decoding
	 * dependencies) first.  dep[k] <= k for a closed GOP. */
	int64_t *dep;
	/* [nframes] or NULL (decode order = presentation order): decode
	 * order position of each frame, for long-GOP streams with B
	 * frames; reads follow decode order within a GOP. */
	int64_t *decode;
	uint64_t len_min, len_max; /* smallest and largest frame */

	/* ENG_ESS_AUDIO */
	uint32_t sample_rate;
	uint32_t channels;
	uint32_t bits;		/* per sample of one channel */
	uint32_t block;		/* bytes per sample frame: channels x bytes */
	int big_endian;		/* AIFF, 'twos', 'in24' without enda */
	int is_float;
	int64_t nsamples;
	struct eng_chunk *chunks; /* [nchunks], ordered by first */
	size_t nchunks;
	/* Compressed audio (AAC, ...: codec names it, block is 0, no
	 * chunks): packets of their own sizes, read as video frames are.
	 * off[npackets], len[npackets] (the video fields) in presentation
	 * order, pts[npackets] each packet's time in sample frames from the
	 * stream's start (the priming packet an encoder puts first may be
	 * below 0); nsamples is where the last one ends.  NULL and 0 for
	 * PCM. */
	int64_t npackets;
	int64_t *pts;

	struct eng_start_tc tc;	/* the media's start timecode */
};

/* The extents of sample frames [first, first + n) of an audio stream:
 * at most max extents into out (one per chunk crossed, adjacent chunks
 * joined); returns how many, or -ERANGE when the samples are not all in
 * the stream, -E2BIG when more than max are needed. */
int eng_essence_samples(const struct eng_essence *e, int64_t first,
			int64_t n, struct eng_extent *out, int max);

/* Compressed audio (e->pts): the extents of the packets whose time
 * falls in sample frames [s0, s1) (a packet before 0 counts as at 0), in
 * order, adjacent ones joined: at most max into out; returns how many
 * (0 for none), -E2BIG when more than max are needed; *bytes their sum.
 * Binary search: O(log packets + packets in the range). */
int eng_essence_packets(const struct eng_essence *e, int64_t s0, int64_t s1,
			struct eng_extent *out, int max, uint64_t *bytes);
/* The first packet whose time (below 0 counted as 0) is s or later
 * (npackets: none): the packets of [s0, s1) are [at(s0), at(s1)). */
int64_t eng_essence_packet_at(const struct eng_essence *e, int64_t s);

#endif /* ENG_TIMELINE_ESSENCE_H */
