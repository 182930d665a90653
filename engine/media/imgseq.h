/* SPDX-License-Identifier: MIT */
/*
 * Image sequences (imgseq.c, issue 22): the name of frame k of a sequence
 * clip by OpenTimelineIO's ImageSequenceReference formula, and where a
 * frame file's pixel data is, from its header as a grading or VFX
 * application reads it (DPX, TIFF, OpenEXR scanline).  The header is read
 * through struct eng_src, in reads an application's reader would make, so
 * that the caller can record each (open, header reads, data, close).
 */
#ifndef ENG_IMGSEQ_H
#define ENG_IMGSEQ_H

#include <stddef.h>
#include <stdint.h>

#include "media/essence.h"

/* An ImageSequenceReference's naming fields: strings borrowed. */
struct eng_seq_name {
	const char *base;	/* target_url_base ("" for none) */
	const char *prefix;	/* name_prefix */
	const char *suffix;	/* name_suffix */
	int64_t start;		/* start_frame: the number of image 0 */
	int64_t step;		/* frame_step (OTIO allows any, even 0) */
	int padding;		/* frame_zero_padding: digits, 0 for none */
};

/*
 * The file name of image k (0 = the first) into buf[len]: base, a '/'
 * where base is not empty and does not end in one, prefix, '-' for a
 * negative number, the number's absolute value zero-padded to padding
 * digits (more digits are kept: 9999 -> 10000 at padding 4), suffix;
 * OTIO's target_url_for_image_number.  Returns the name's length,
 * -ERANGE where start + k * step overflows 64 bits or padding is outside
 * 0..64, -ENAMETOOLONG where it does not fit (buf then holds "").
 */
int eng_seq_name_of(const struct eng_seq_name *s, int64_t k, char *buf,
		    size_t len);

/* Frame file formats a sequence may hold. */
enum eng_seq_fmt {
	ENG_SEQ_DPX = 1,
	ENG_SEQ_TIFF,
	ENG_SEQ_EXR,
};

/* At most this many runs of pixel data a frame (TIFF strips that are not
 * adjacent), as many as a slice carries (layout.h ENG_SLICE_EXTENTS). */
#define ENG_SEQ_EXTENTS 4

/* Where a frame file's pixel data is. */
struct eng_seq_pixels {
	uint32_t fmt;		/* enum eng_seq_fmt */
	int n;			/* runs in ext[], adjacent ones joined */
	struct eng_extent ext[ENG_SEQ_EXTENTS];
	uint64_t bytes;		/* their sum */
};

/* A frame file's header is read ENG_SEQ_HEADER_READ bytes at a time (one
 * read for a DPX, an EXR of up to some 400 chunks; a TIFF whose IFD is
 * after its strips, as libtiff and FFmpeg write it, one more at the IFD). */
#define ENG_SEQ_HEADER_READ 4096

/*
 * The pixel data of the frame file src, from its header, read through
 * src->read_at as a reader does (*reads: how many reads it made, each
 * ENG_SEQ_HEADER_READ bytes or the field it needs, from where it is):
 *  DPX: "SDPX" (big-endian) or "XPDS" (little-endian) at 0, the image
 *   data offset at 4: the data runs from there to the end of the file.
 *  TIFF: "II*\0" or "MM\0*", the first IFD's StripOffsets and
 *   StripByteCounts (or TileOffsets and TileByteCounts).
 *  EXR: magic 76 2f 31 01, a single-part scanline file; the header's
 *   compression and dataWindow give the number of chunks, the offset
 *   table after the header where they are: the data runs from the first
 *   chunk to the end of the file.
 * Returns 0 with *out filled; a read's -errno; -ENOMEM; -EINVAL with one
 * message in diag naming the file and the reason (not a known format, a
 * field past the end of the file, tiled, multi-part or deep EXR, chunks
 * not in file order, BigTIFF, more than ENG_SEQ_EXTENTS runs).
 */
int eng_seq_pixels_of(const struct eng_src *src, struct eng_seq_pixels *out,
		      int *reads, struct eng_diag *diag);

#endif /* ENG_IMGSEQ_H */
