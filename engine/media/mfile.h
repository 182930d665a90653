/* SPDX-License-Identifier: MIT */
/*
 * Media files (mfile.c, readers.c): the contract between the readers of
 * real media (QuickTime/MP4 through libavformat: avindex.c; MXF OP1a/
 * OP-Atom index tables: mxf.c; WAV/BWF and AIFF headers: pcm.c) and their
 * callers: the naming rules that pick a file and a stream for a (clip,
 * track) (media.c) and the tools.  A reader fills a struct eng_mfile, one
 * struct eng_essence (timeline/essence.h) a stream.
 *
 * Readers take the file through struct eng_src (no fd, no path): the mount
 * reads through pread, the fuzzers and unit tests from memory.
 */
#ifndef ENG_MEDIA_MFILE_H
#define ENG_MEDIA_MFILE_H

#include <stddef.h>
#include <stdint.h>

#include "timeline/essence.h"
#include "util/diag.h"
#include "util/values.h"

/* A media file to read an index from: read_at returns bytes read (short
 * only at the end of the file) or -errno. */
struct eng_src {
	const char *name;	/* for messages: as the user knows the file */
	uint64_t size;		/* bytes of the file */
	long (*read_at)(void *ctx, uint64_t off, void *buf, size_t len);
	void *ctx;
};

/* A media file's streams, as a reader found them. */
struct eng_mfile {
	char *format;		/* "mov", "mp4", "mxf-op1a", "mxf-opatom",
				 * "wav", "aiff" */
	struct eng_essence *streams;
	size_t nstreams;
	/* MXF: the file's source package UMID (32 bytes, hex), matching
	 * OP-Atom files of one clip; "" otherwise */
	char package[65];
	/* The clip's name as the file says it (MXF material package name,
	 * QuickTime reel name), "" when none */
	char clip_name[128];
	struct eng_start_tc tc;	/* the file's start timecode */
	/* Streams a reader left out of streams[] and why ("stream 2:
	 * unknown 'abcd' audio"), "" when none:
	 * for the message when a track asks for one. */
	char skipped[256];
	/* Bytes the reader read of the file (headers and indexes). */
	uint64_t bytes_read;
};

/* Frees what mf holds and leaves it zeroed (a reader's failure path);
 * eng_mfile_free also frees mf itself (calloc'ed by the caller). */
void eng_mfile_clear(struct eng_mfile *mf);
void eng_mfile_free(struct eng_mfile *mf);

/* A reader's failure: adds "SRC->NAME: reason" to diag, returns -EINVAL. */
int eng_mfile_bad(struct eng_diag *diag, const struct eng_src *src,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A file in memory (the fuzzers, unit tests, a header already read):
 * eng_src_mem points src at buf[0..len), through mem (both the caller's,
 * alive while src is used). */
struct eng_mem {
	const unsigned char *buf;
	size_t len;
};
void eng_src_mem(struct eng_src *src, struct eng_mem *mem, const char *name,
		 const void *buf, size_t len);

/* Readers.  Each fills *out (zeroed first), returns 0, -EINVAL with one
 * message in diag naming src->name and the reason (truncated file, no
 * moov, no index, an index past the end of the file, an unknown codec),
 * -ENOTSUP when the file is not of the reader's format (no message: the
 * caller tries another), or -ENOMEM.  Never decode; read only headers and
 * indexes. */
int eng_mfile_read_av(const struct eng_src *src, struct eng_mfile *out,
		      struct eng_diag *diag);	/* QuickTime, MP4 */
int eng_mfile_read_mxf(const struct eng_src *src, struct eng_mfile *out,
		       struct eng_diag *diag);	/* MXF OP1a, OP-Atom */
int eng_mfile_read_pcm(const struct eng_src *src, struct eng_mfile *out,
		       struct eng_diag *diag);	/* WAV/BWF/RF64, AIFF */
/* The reader by the file's first bytes: tries each; -EINVAL with a
 * message for a file no reader takes. */
int eng_mfile_read(const struct eng_src *src, struct eng_mfile *out,
		   struct eng_diag *diag);

/*
 * H.264 stored as Annex B (MXF, OP-Atom: start codes, the parameter sets
 * in band) has no avcC: its decoder setup is the sequence and picture
 * parameter sets (NAL types 7 and 8) before the first picture of
 * buf[0..len) (an access unit's start, as a key frame's bytes are), kept
 * as libavformat keeps an Annex B stream's extradata: each set after a
 * 4-byte start code, in the order found.  *out is malloc'ed (the caller
 * frees it).  0; -ENOENT when buf has no SPS or no PPS before its first
 * picture; -ENOMEM.
 */
int eng_h264_parameter_sets(const unsigned char *buf, size_t len,
			    unsigned char **out, size_t *out_len);

#endif /* ENG_MEDIA_MFILE_H */
