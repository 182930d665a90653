/* SPDX-License-Identifier: MIT */
/*
 * WAV/BWF/RF64 and AIFF/AIFC (mfile.h): one PCM stream whose samples
 * are one run of bytes, found by walking the file's chunk headers (no
 * sample is read).  A BWF's bext TimeReference is its start timecode, in
 * samples since midnight.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media/mfile.h"

/* A file with more chunks than this before its samples is not one a
 * recorder or an editor wrote. */
#define PCM_CHUNKS_MAX 4096
/* A chunk covers at most this many sample frames (count is 32 bits). */
#define PCM_CHUNK_FRAMES (1u << 30)

#define FOURCC(a, b, c, d)                                                     \
	((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 |            \
	 (uint32_t)(d) << 24)

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static uint16_t be16(const unsigned char *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Exactly n bytes at off, or -1 (past the end, a read error). */
static int rd(const struct eng_src *src, uint64_t off, void *buf, size_t n)
{
	if (off > src->size || n > src->size - off)
		return -1;
	return src->read_at(src->ctx, off, buf, n) == (long)n ? 0 : -1;
}

/* What the samples are, checked, and the one stream of data bytes at
 * off: fills out's stream. */
static int stream(const struct eng_src *src, struct eng_mfile *mf,
		  const char *format, uint32_t rate, uint32_t channels,
		  uint32_t bits, int be, int flt, uint64_t off, uint64_t size,
		  struct eng_diag *diag)
{
	struct eng_essence *e;
	int64_t first = 0;
	const char *endian;
	uint64_t n;
	size_t i, nch;
	char kind;

	if (!channels || !rate)
		return eng_mfile_bad(diag, src,
				     "no channels or no sample rate in its "
				     "header");
	if (flt ? bits != 32 && bits != 64
		: bits != 8 && bits != 16 && bits != 24 && bits != 32)
		return eng_mfile_bad(
		    diag, src,
		    "%u-bit %s samples are not PCM "
		    "timelinefs reads (8, 16, 24, 32 bits; float 32, "
		    "64)",
		    bits, flt ? "float" : "integer");
	if (off > src->size || size > src->size - off)
		return eng_mfile_bad(diag, src,
				     "its samples (%" PRIu64
				     " bytes at %" PRIu64
				     ") run past the end of the file (%" PRIu64
				     " bytes): truncated file or bad header",
				     size, off, src->size);
	mf->format = strdup(format);
	mf->streams = calloc(1, sizeof(*mf->streams));
	if (!mf->format || !mf->streams)
		return -ENOMEM;
	e = mf->streams;
	mf->nstreams = 1;
	e->kind = ENG_ESS_AUDIO;
	e->sample_rate = rate;
	e->channels = channels;
	e->bits = bits;
	e->block = channels * (bits / 8);
	e->big_endian = be && bits > 8;
	e->is_float = flt;
	/* libavcodec's names: pcm_u8 (WAV), pcm_s8 (AIFF), pcm_s24le ... */
	kind = flt ? 'f' : bits == 8 && !be ? 'u' : 's';
	endian = bits == 8 ? "" : e->big_endian ? "be" : "le";
	snprintf(e->codec, sizeof(e->codec), "pcm_%c%u%s", kind, bits, endian);
	if (flt)
		e->fourcc = bits == 32 ? FOURCC('f', 'l', '3', '2')
				       : FOURCC('f', 'l', '6', '4');
	else if (bits == 8)
		e->fourcc = FOURCC('r', 'a', 'w', ' ');
	else if (bits == 16)
		e->fourcc = be ? FOURCC('t', 'w', 'o', 's')
			       : FOURCC('s', 'o', 'w', 't');
	else
		e->fourcc = bits == 24 ? FOURCC('i', 'n', '2', '4')
				       : FOURCC('i', 'n', '3', '2');
	n = size / e->block;
	nch = (size_t)((n + PCM_CHUNK_FRAMES - 1) / PCM_CHUNK_FRAMES);
	if (nch) {
		e->chunks = calloc(nch, sizeof(*e->chunks));
		if (!e->chunks)
			return -ENOMEM;
	}
	for (i = 0; i < nch; i++) {
		uint64_t c = n - (uint64_t)first;

		e->chunks[i].off = off + (uint64_t)first * e->block;
		e->chunks[i].first = first;
		e->chunks[i].count =
		    (uint32_t)(c > PCM_CHUNK_FRAMES ? PCM_CHUNK_FRAMES : c);
		first += e->chunks[i].count;
	}
	e->nchunks = nch;
	e->nsamples = (int64_t)n;
	return 0;
}

/* ---------------------------------------------------------------- WAV */

static int wav(const struct eng_src *src, struct eng_mfile *mf, int rf64,
	       struct eng_diag *diag)
{
	unsigned char h[8], f[40], ds[24];
	uint64_t pos = 12, ds_data = UINT64_MAX, data_off = 0, data_size = 0;
	uint32_t rate = 0, bits = 0, channels = 0, blk = 0;
	int have_fmt = 0, have_data = 0, flt = 0, n;
	uint16_t tag = 0;

	for (n = 0; n < PCM_CHUNKS_MAX && pos + 8 <= src->size; n++) {
		uint32_t cs;
		uint64_t size;

		if (rd(src, pos, h, 8) < 0)
			break;
		cs = le32(h + 4);
		size = cs;
		if (memcmp(h, "ds64", 4) == 0 && cs >= 24 &&
		    rd(src, pos + 8, ds, 24) == 0) {
			ds_data = le64(ds + 8);
		} else if (memcmp(h, "fmt ", 4) == 0) {
			size_t want = cs < sizeof(f) ? cs : sizeof(f);

			if (cs < 16 || rd(src, pos + 8, f, want) < 0)
				return eng_mfile_bad(diag, src,
						     "its fmt chunk is "
						     "short or truncated");
			tag = le16(f);
			channels = le16(f + 2);
			rate = le32(f + 4);
			blk = le16(f + 12);
			bits = le16(f + 14);
			if (tag == 0xfffe && cs >= 40 && le16(f + 16) >= 22)
				tag = le16(f + 24); /* SubFormat GUID */
			have_fmt = 1;
		} else if (memcmp(h, "bext", 4) == 0 && cs >= 346 &&
			   rd(src, pos + 8 + 338, ds, 8) == 0) {
			mf->tc.frame = (int64_t)(le64(ds) & INT64_MAX);
			mf->tc.present = 1;
		} else if (memcmp(h, "data", 4) == 0 && !have_data) {
			data_off = pos + 8;
			if (rf64 && cs == UINT32_MAX && ds_data != UINT64_MAX)
				size = ds_data;
			else if (cs == UINT32_MAX || (cs == 0 && !rf64))
				/* a streaming writer's: to the end */
				size = src->size - data_off;
			data_size = size;
			have_data = 1;
		}
		/* chunks are padded to an even length */
		pos += 8 + size + (size & 1);
	}
	if (!have_fmt)
		return eng_mfile_bad(diag, src,
				     "a RIFF/WAVE file without a fmt chunk");
	if (!have_data)
		return eng_mfile_bad(diag, src,
				     "a RIFF/WAVE file without a data chunk");
	if (tag == 3)
		flt = 1;
	else if (tag != 1)
		return eng_mfile_bad(diag, src,
				     "its samples are not PCM (WAVE format "
				     "tag 0x%04x)",
				     tag);
	if (bits % 8 || !channels || blk != channels * (bits / 8))
		return eng_mfile_bad(diag, src,
				     "its fmt chunk's block of %u bytes is "
				     "not %u channels of %u bits",
				     blk, channels, bits);
	if (mf->tc.present) {
		mf->tc.rate.num = rate;
		mf->tc.rate.den = 1;
	}
	return stream(src, mf, "wav", rate, channels, bits, 0, flt, data_off,
		      data_size, diag);
}

/* ---------------------------------------------------------------- AIFF */

/* An 80-bit IEEE extended sample rate that is a whole number, or 0. */
static uint32_t ext80(const unsigned char *p)
{
	int exp = (be16(p) & 0x7fff) - 16383;
	uint64_t mant = (uint64_t)be32(p + 2) << 32 | be32(p + 6);

	if (p[0] & 0x80 || exp < 0 || exp > 31 ||
	    mant << (exp + 1) != 0) /* a fraction of a hertz */
		return 0;
	return (uint32_t)(mant >> (63 - exp));
}

static int aiff(const struct eng_src *src, struct eng_mfile *mf, int aifc,
		struct eng_diag *diag)
{
	unsigned char h[8], c[22], s[8];
	uint64_t pos = 12, data_off = 0, data_size = 0, frames = 0;
	uint32_t rate = 0, bits = 0, channels = 0;
	int have_comm = 0, have_ssnd = 0, be = 1, flt = 0, n;

	for (n = 0; n < PCM_CHUNKS_MAX && pos + 8 <= src->size; n++) {
		uint32_t cs;

		if (rd(src, pos, h, 8) < 0)
			break;
		cs = be32(h + 4);
		if (memcmp(h, "COMM", 4) == 0) {
			if (cs < (aifc ? 22u : 18u) ||
			    rd(src, pos + 8, c, aifc ? 22 : 18) < 0)
				return eng_mfile_bad(diag, src,
						     "its COMM chunk is "
						     "short or truncated");
			channels = be16(c);
			frames = be32(c + 2);
			bits = be16(c + 6);
			rate = ext80(c + 8);
			if (!rate)
				return eng_mfile_bad(
				    diag, src,
				    "its sample rate is "
				    "not a whole number of hertz");
			if (aifc) {
				uint32_t t = le32(c + 18);

				if (t == FOURCC('s', 'o', 'w', 't'))
					be = 0;
				else if (t == FOURCC('f', 'l', '3', '2') ||
					 t == FOURCC('F', 'L', '3', '2') ||
					 t == FOURCC('f', 'l', '6', '4') ||
					 t == FOURCC('F', 'L', '6', '4'))
					flt = 1;
				else if (t != FOURCC('N', 'O', 'N', 'E') &&
					 t != FOURCC('t', 'w', 'o', 's') &&
					 t != FOURCC('i', 'n', '2', '4') &&
					 t != FOURCC('i', 'n', '3', '2'))
					return eng_mfile_bad(
					    diag, src,
					    "AIFC "
					    "compression '%.4s' is "
					    "not PCM",
					    c + 18);
			}
			have_comm = 1;
		} else if (memcmp(h, "SSND", 4) == 0 && !have_ssnd) {
			if (cs < 8 || rd(src, pos + 8, s, 8) < 0)
				return eng_mfile_bad(diag, src,
						     "its SSND chunk is "
						     "short or truncated");
			if (be32(s) > cs - 8)
				return eng_mfile_bad(diag, src,
						     "its SSND offset %u is "
						     "past the chunk's end",
						     be32(s));
			data_off = pos + 16 + be32(s);
			data_size = cs - 8 - be32(s);
			have_ssnd = 1;
		}
		pos += 8 + (uint64_t)cs + (cs & 1);
	}
	if (!have_comm)
		return eng_mfile_bad(diag, src,
				     "an AIFF file without a COMM chunk");
	if (!have_ssnd)
		return eng_mfile_bad(diag, src,
				     "an AIFF file without a SSND chunk");
	/* round the sample size up to whole bytes (AIFF's rule) */
	bits = (bits + 7) / 8 * 8;
	if (channels && bits && frames < data_size / (channels * (bits / 8)))
		data_size = frames * channels * (bits / 8);
	return stream(src, mf, "aiff", rate, channels, bits, be, flt, data_off,
		      data_size, diag);
}

int eng_mfile_read_pcm(const struct eng_src *src, struct eng_mfile *out,
		       struct eng_diag *diag)
{
	unsigned char h[12];
	int rc;

	memset(out, 0, sizeof(*out));
	if (rd(src, 0, h, 12) < 0)
		return -ENOTSUP;
	if ((memcmp(h, "RIFF", 4) == 0 || memcmp(h, "RF64", 4) == 0 ||
	     memcmp(h, "BW64", 4) == 0) &&
	    memcmp(h + 8, "WAVE", 4) == 0)
		rc = wav(src, out, memcmp(h, "RIFF", 4) != 0, diag);
	else if (memcmp(h, "FORM", 4) == 0 && (memcmp(h + 8, "AIFF", 4) == 0 ||
					       memcmp(h + 8, "AIFC", 4) == 0))
		rc = aiff(src, out, h[11] == 'C', diag);
	else
		return -ENOTSUP;
	if (rc == 0)
		out->streams[0].tc = out->tc;
	else
		eng_mfile_clear(out);
	return rc;
}
