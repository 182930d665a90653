/* SPDX-License-Identifier: MIT */
/*
 * Image sequences (imgseq.c): the name of frame k of a sequence
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

#include "media/mfile.h"

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
	/* Headerless: the whole file is the pixel data (tframetest's and
	 * timelinefs-gen's frametest-* frames, named *.raw), no header
	 * read (eng_seq_headerless, eng_seq_raw_pixels). */
	ENG_SEQ_RAW,
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
	/* The file's compression as its header says: EXR's compression
	 * attribute (0 none, 3 ZIP, 4 PIZ, 9 DWAB ...), TIFF's Compression
	 * tag (1 none, the default), 0 for DPX and raw.  A compressed
	 * frame's size is its own: a sequence's differ frame to frame. */
	uint32_t compression;
};

/* A frame file's header is read ENG_SEQ_HEADER_READ bytes at a time (one
 * read for a DPX, an EXR of up to some 400 chunks; a TIFF whose IFD is
 * after its strips, as libtiff and FFmpeg write it, one more at the IFD). */
#define ENG_SEQ_HEADER_READ 4096

/* At most this many TIFF strips (or tiles) or EXR chunks a frame: their
 * tables are refused beyond it, naming the file, before they are read.
 * The largest legitimate frames hold far fewer: an 8K (8192x4320) 16-bit
 * RGBA TIFF in strips of one row has 4320, one of 16x16 tiles (the
 * smallest TIFF allows) 138240; an EXR a chunk per row of a 65536-row
 * image 65536.  Within it a table is read ENG_SEQ_HEADER_READ bytes at a
 * time and never held: a frame's header costs one window of memory. */
#define ENG_SEQ_TABLE_MAX (1u << 18)

/*
 * The pixel data of the frame file src, from its header, read through
 * src->read_at as a reader does (*reads: how many reads it made, each
 * of ENG_SEQ_HEADER_READ bytes, the file's end permitting, from where
 * the field it needs is; tables are read in such pieces, never whole):
 *  DPX: "SDPX" (big-endian) or "XPDS" (little-endian) at 0, the image
 *   data offset at 4: the data runs from there to the end of the file.
 *  TIFF: "II*\0" or "MM\0*", the first IFD's StripOffsets and
 *   StripByteCounts (or TileOffsets and TileByteCounts).
 *  EXR: magic 76 2f 31 01, a single-part scanline file; the header's
 *   compression and dataWindow give the number of chunks, the offset
 *   table after the header where they are: the data runs from the first
 *   chunk to the end of the file.
 * Returns 0 with *out filled (out->bytes > 0); a read's -errno; -EINVAL
 * with one message in diag naming the file and the reason (not a known
 * format, a field past the end of the file, tiled, multi-part or deep
 * EXR, chunks not in file order, BigTIFF, more than ENG_SEQ_EXTENTS
 * runs, more than ENG_SEQ_TABLE_MAX strips or chunks, 0 bytes of pixel
 * data).  Allocates nothing.
 */
int eng_seq_pixels_of(const struct eng_src *src, struct eng_seq_pixels *out,
		      int *reads, struct eng_diag *diag);

/* Whether a sequence's frames are headerless by their name's suffix:
 * ".raw" (any case).  No magic tells such a file; the name does. */
int eng_seq_headerless(const char *suffix);
/* A headerless frame file of `size` bytes: one run, all of it, fmt
 * ENG_SEQ_RAW; no read.  0, or -EINVAL with a message for an empty file. */
int eng_seq_raw_pixels(const char *name, uint64_t size,
		       struct eng_seq_pixels *out, struct eng_diag *diag);
/* "dpx", "tiff", "exr", "raw"; EXR with compression: "exr-rle",
 * "exr-zips", "exr-zip", "exr-piz", "exr-pxr24", "exr-b44", "exr-b44a",
 * "exr-dwaa", "exr-dwab"; TIFF with compression "tiff-N": the media
 * table's codec of a sequence. */
void eng_seq_codec(const struct eng_seq_pixels *px, char *buf, size_t len);

/*
 * A sequence clip resolved for one video track (seqmedia.c):
 * what eng_media.seq points at.  Its images, image i (from 0) the file
 * eng_seq_name_of(&name, i) of the media folder, number name.start + i *
 * name.step, are ess's frames: ess is an ENG_ESS_VIDEO stream of nframes
 * = the last image the edit plays + 1 (eng_media.origin + source frame
 * is the image), off[i] the bytes before image i's pixel data and len[i]
 * their size, so that layout.c's real video makes the virtual file.
 * Images not played hold the resolved image's off and len.  Resolution
 * read one image's header (`image`, the first the edit plays): every
 * image of an uncompressed sequence is taken to be of its size (the
 * player checks each when it reads it); a compressed one (EXR ZIP, PIZ,
 * DWAB ...) has each played image's size from a stat (len = its size
 * less off; a missing image keeps the resolved image's).  Owned by the
 * timeline's media (media.c's media_free calls eng_seqmedia_free).
 */
struct eng_seqmedia {
	struct eng_essence ess;
	/* the naming fields, strings owned (eng_clip.seq's copies) */
	struct eng_seq_name name;
	uint32_t fmt;		/* enum eng_seq_fmt of the resolved image */
	uint32_t compression;	/* its eng_seq_pixels.compression */
	uint32_t missing;	/* timeline/model.h enum eng_seq_missing */
	int varies;		/* compressed: len[] from each image's stat */
	int64_t image;		/* the image whose header was read */
	/* its pixel data (the player's check of every other image) */
	struct eng_seq_pixels px;
	/* The movie (mov.c): ess.fourcc, width and height are set where the
	 * images' pixel data are a QuickTime sample as they are ('R10k' for
	 * DPX 10-bit RGB packed big-endian, 'b48r' DPX 16-bit RGB
	 * big-endian, 'raw ' frametest's 8-bit RGB); else fourcc is 0 and
	 * nomovie says why ("little-endian tiff: ..."). */
	char nomovie[160];
};

/* The file name of image i of sm into buf[len] (eng_seq_name_of):
 * relative to the media folder, what io->open takes. */
int eng_seqmedia_name(const struct eng_seqmedia *sm, int64_t i, char *buf,
		      size_t len);
/* The number in image i's name: name.start + i * name.step (i within
 * the sequence's images: no overflow, resolution checked). */
int64_t eng_seqmedia_number(const struct eng_seqmedia *sm, int64_t i);
/* Frees sm's strings and tables and sm itself; NULL is fine. */
void eng_seqmedia_free(struct eng_seqmedia *sm);

#endif /* ENG_IMGSEQ_H */
