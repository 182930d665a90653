/* SPDX-License-Identifier: MIT */
/*
 * A timeline as a QuickTime movie (mov.c; the atoms and fields
 * that FFmpeg and GStreamer were checked to need: docs/design.md): owns the
 * header that, followed by the
 * timeline's virtual file unchanged, makes a movie any player opens.  The
 * header is ftyp ('qt  '), moov (fast start: nothing needed from the end),
 * a small mdat of one black picture per picture size that has gaps, and the
 * header of the mdat whose payload is exactly tl->bytes of the interleave.
 * Video tracks (those with a picture) are one sample per frame, 2vuy or
 * v210 with colr, fiel and pasp; audio tracks (align 3: 24-bit mono at
 * rate / 3 samples a second) are in24 little-endian, one chunk per frame.
 * A video gap's samples point at the black picture (no backing read); an
 * audio gap is zeros in the interleave already (silence).
 * Tracks of real media (eng_media.ess) carry the sources' own
 * samples: one sample description a track, that of every clip on it
 * (ProRes apco..ap4x, DNxHD AVdn/AVdh, H.264 avc1 with the sources'
 * avcC, 2vuy/v210; PCM as sowt/twos, in24, in32, fl32/fl64; AAC as mp4a
 * with its esds, a sample a packet, other compressed audio left out with
 * a note), each sample's
 * size and offset the layout's (stsz one entry a sample where sizes
 * differ).  Long-GOP video: samples in decode order, stss, ctts and an
 * edit list; each clip's frames must decode on their own (cut at whole
 * groups of pictures: the movie holds only the timeline's bytes).  Mixed
 * formats on a track, a gap on a compressed track (no black picture of
 * its codec), an image sequence (DPX, TIFF, EXR pixel data have
 * no QuickTime sample description): no movie, and why.  Pure: built in
 * memory from a finalized timeline, no I/O.
 */
#ifndef ENG_MOV_H
#define ENG_MOV_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/model.h"

/* The largest moov a movie gets: GStreamer 1.22's qtdemux refuses any
 * box but mdat over 25 MiB ("This file contains no playable streams":
 * checked, a 26212628-byte moov played, a 26216628-byte one did not);
 * FFmpeg and mpv read larger.  It holds 4 bytes a frame a track at least
 * (chunk offsets): some 72 hours of one track at 25 fps, 18 of V, A1 and
 * A2 at 29.97.  No box but mdat can then pass 4 GiB, and mdat has the
 * 64-bit size form. */
#define ENG_MOV_MOOV_MAX (25u << 20)

/* The most the black pictures of a header may hold (one per picture
 * size with gaps, in memory for the mount's life): two 8K v210 ones
 * (8192x4320, 94 MB each) fit; a 16384x16384 v210 one (717 MB) does not,
 * and its timeline gets no movie. */
#define ENG_MOV_BLACK_MAX (256u << 20)

struct eng_mov {
	uint8_t *head;		/* the header bytes, malloc'ed */
	uint64_t head_len;	/* the movie's offset of timeline byte 0 */
	uint64_t size;		/* head_len + tl->bytes */
};

/* Build the header of tl's movie.  Returns 0, with in why[0..whylen)
 * the tracks it left out and why ("track A1 left out: clip c: its mp3
 * audio has no sample description timelinefs writes (AAC only)"), ""
 * when none; -EINVAL when tl cannot be a movie, with the reason in why
 * ("track V has no picture format"); -EFBIG, with why, when a table would
 * not fit its field or the moov would pass ENG_MOV_MOOV_MAX (refused
 * before building where its least, 4 bytes a frame a track, passes it:
 * memory and time stay within what a movie may hold) or its black
 * pictures ENG_MOV_BLACK_MAX (before building); -ENOMEM. */
int eng_mov_build(const struct eng_timeline *tl, struct eng_mov *out,
		  char *why, size_t whylen);
void eng_mov_free(struct eng_mov *m);

/* What byte `off` of the movie is: 1, header byte m->head[off] (*n bytes of
 * header from there); 0, timeline byte *tl_off (*n bytes of timeline from
 * there); -ERANGE at or past the end. */
int eng_mov_map(const struct eng_mov *m, uint64_t off, uint64_t *tl_off,
		uint64_t *n);

#endif /* ENG_MOV_H */
