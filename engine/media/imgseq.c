/* SPDX-License-Identifier: MIT */
/*
 * Image sequences: OTIO's frame-name formula and the pixel data of a DPX,
 * TIFF or OpenEXR frame file from its header (imgseq.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "media/imgseq.h"

int eng_seq_name_of(const struct eng_seq_name *s, int64_t k, char *buf,
		    size_t len)
{
	int64_t num;
	uint64_t mag;
	char digits[24];
	int nd, pad, n;

	if (len)
		buf[0] = '\0';
	if (s->padding < 0 || s->padding > 64)
		return -ERANGE;
	if (__builtin_mul_overflow(k, s->step, &num) ||
	    __builtin_add_overflow(num, s->start, &num))
		return -ERANGE;
	/* the magnitude as unsigned: INT64_MIN has no positive int64 */
	mag = num < 0 ? 0 - (uint64_t)num : (uint64_t)num;
	nd = snprintf(digits, sizeof(digits), "%" PRIu64, mag);
	/* OTIO pads the magnitude, the sign goes before the zeros: -0012 */
	pad = s->padding > nd ? s->padding - nd : 0;
	n = snprintf(buf, len, "%s%s%s%s%.*s%s%s", s->base,
		     s->base[0] && s->base[strlen(s->base) - 1] != '/' ? "/" :
		     "", s->prefix, num < 0 ? "-" : "", pad,
		     "0000000000000000000000000000000000000000000000000000000000000000",
		     digits, s->suffix);
	if (n < 0 || (size_t)n >= len) {
		if (len)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return n;
}

static int bad(struct eng_diag *diag, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct eng_diag *diag, const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_diag_vadd(diag, name, 0, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static uint64_t get(const unsigned char *p, int bytes, int be)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)p[be ? i : bytes - 1 - i] << (8 * (bytes - 1 - i));
	return v;
}

/*
 * The header bytes read so far: one window of the file, [off, off + n).
 * A parser asks for [at, at + len), len at most ENG_SEQ_HEADER_READ (a
 * table is asked for in pieces: the window never grows with what the
 * file claims); where that is not in the window, one read of the file's
 * src (one header read, as an application's reader makes one) fills the
 * window from `at` with ENG_SEQ_HEADER_READ bytes, the file's end
 * permitting.
 */
struct win {
	const struct eng_src *src;
	unsigned char b[ENG_SEQ_HEADER_READ];
	uint64_t off;
	size_t n;
	int reads;
};

/* h: the bytes [at, at + len) of the file or NULL with *rc (-EINVAL with a
 * message: past the end; the read's -errno) */
static const unsigned char *bytes(struct win *w, uint64_t at, size_t len,
				  int *rc, struct eng_diag *diag)
{
	size_t want;
	long got;

	if (at >= w->off && at - w->off <= w->n && len <= w->n - (at - w->off))
		return w->b + (at - w->off);
	if (at > w->src->size || len > w->src->size - at) {
		*rc = bad(diag, w->src->name, "header runs past the end of the"
			  " file (%zu bytes at %" PRIu64 " of %" PRIu64 ")",
			  len, at, w->src->size);
		return NULL;
	}
	if (len > sizeof(w->b)) {
		/* a parser's own field size, never the file's claim */
		*rc = bad(diag, w->src->name, "header field of %zu bytes at %"
			  PRIu64 ": more than %zu are read at once", len, at,
			  sizeof(w->b));
		return NULL;
	}
	want = sizeof(w->b);
	if (want > w->src->size - at)
		want = (size_t)(w->src->size - at);
	w->reads++;
	got = w->src->read_at(w->src->ctx, at, w->b, want);
	if (got < 0 || (size_t)got < len) {
		w->n = 0;
		*rc = got < 0 ? (int)got :
		      bad(diag, w->src->name, "short header read: %ld of %zu "
			  "bytes at %" PRIu64, got, len, at);
		return NULL;
	}
	w->off = at;
	w->n = (size_t)got;
	return w->b;
}

/* one more run of pixel data, joined to the last where adjacent */
static int add_run(struct eng_seq_pixels *out, uint64_t off, uint64_t len,
		   uint64_t file_size, const char *name, struct eng_diag *diag)
{
	struct eng_extent *last = out->n ? &out->ext[out->n - 1] : NULL;

	if (off > file_size || len > file_size - off)
		return bad(diag, name, "pixel data at %" PRIu64 " of %" PRIu64
			   " bytes is past the end of the file (%" PRIu64
			   " bytes)", off, len, file_size);
	out->bytes += len;
	if (last && last->off + last->len == off) {
		last->len += len;
		return 0;
	}
	if (out->n == ENG_SEQ_EXTENTS)
		return bad(diag, name, "pixel data in more than %d runs: "
			   "strips not contiguous", ENG_SEQ_EXTENTS);
	out->ext[out->n].off = off;
	out->ext[out->n].len = len;
	out->n++;
	return 0;
}

static int dpx(struct win *w, const unsigned char *h,
	       struct eng_seq_pixels *out, struct eng_diag *diag)
{
	uint64_t size = w->src->size;
	uint64_t off = get(h + 4, 4, h[0] == 'S');

	/* the generic file header alone is 768 bytes: an offset inside it
	 * is a damaged file, not an image */
	if (off < 768 || off > size)
		return bad(diag, w->src->name, "dpx image data offset %" PRIu64
			   " is outside the file (%" PRIu64 " bytes, header"
			   " 768 at least)", off, size);
	out->fmt = ENG_SEQ_DPX;
	return add_run(out, off, size - off, size, w->src->name, diag);
}

/* A TIFF IFD entry's values: type 3 (SHORT) or 4 (LONG). */
struct tiff_arr {
	uint64_t at;		/* file offset of the values */
	uint32_t count;
	int size;		/* 2 or 4 */
	unsigned char inl[4];	/* values that fit in the entry itself */
};

/* The strips' runs, TIFF_BATCH strips at a time: each table's piece
 * copied out of the window (reading the other's may move it), so that a
 * table of any length costs one window and two batches of memory. */
#define TIFF_BATCH (ENG_SEQ_HEADER_READ / 4)

static int tiff_runs(struct win *w, const struct tiff_arr arr[2], int be,
		     struct eng_seq_pixels *out, struct eng_diag *diag)
{
	unsigned char t[2][TIFF_BATCH * 4];
	uint32_t count = arr[0].count, i, j, n;
	int rc = 0;

	for (i = 0; i < count && !rc; i += n) {
		n = count - i < TIFF_BATCH ? count - i : TIFF_BATCH;
		for (int k = 0; k < 2 && !rc; k++) {
			size_t sz = (unsigned)arr[k].size, len = n * sz;
			const unsigned char *p =
				(uint64_t)count * sz <= 4 ? arr[k].inl + i * sz
				: bytes(w, arr[k].at + i * sz, len, &rc, diag);

			if (p)
				memcpy(t[k], p, len);
		}
		for (j = 0; j < n && !rc; j++)
			rc = add_run(out, get(t[0] + (size_t)j * arr[0].size,
					      arr[0].size, be),
				     get(t[1] + (size_t)j * arr[1].size,
					 arr[1].size, be), w->src->size,
				     w->src->name, diag);
	}
	return rc;
}

static int tiff(struct win *w, const unsigned char *h,
		struct eng_seq_pixels *out, struct eng_diag *diag)
{
	const char *name = w->src->name;
	int be = h[0] == 'M';
	struct tiff_arr arr[2] = { { 0 }, { 0 } };	/* offsets, counts */
	const unsigned char *e;
	uint64_t ifd;
	unsigned entries;
	int rc = 0;

	if (get(h + 2, 2, be) == 43)
		return bad(diag, name, "bigtiff is not read");
	if (get(h + 2, 2, be) != 42)
		return bad(diag, name, "tiff version %" PRIu64 " is not 42",
			   get(h + 2, 2, be));
	ifd = get(h + 4, 4, be);
	if (ifd < 8)
		return bad(diag, name, "tiff first ifd at %" PRIu64
			   " is inside the file header", ifd);
	if (!(e = bytes(w, ifd, 2, &rc, diag)))
		return rc;
	entries = (unsigned)get(e, 2, be);
	for (unsigned i = 0; i < entries; i++) {
		unsigned tag, type;
		struct tiff_arr *a;

		if (!(e = bytes(w, ifd + 2 + 12u * i, 12, &rc, diag)))
			return rc;
		tag = (unsigned)get(e, 2, be);
		type = (unsigned)get(e + 2, 2, be);

		if (tag == 259) {
			/* Compression, a SHORT held in the entry (left
			 * justified: its first two bytes either order) */
			out->compression = (uint32_t)get(e + 8, type == 4 ? 4
							 : 2, be);
			continue;
		}
		if (tag == 273 || tag == 324)
			a = &arr[0];
		else if (tag == 279 || tag == 325)
			a = &arr[1];
		else
			continue;
		if (type != 3 && type != 4)
			return bad(diag, name, "tiff tag %u of type %u, not "
				   "short or long", tag, type);
		a->size = type == 3 ? 2 : 4;
		a->count = (uint32_t)get(e + 4, 4, be);
		a->at = get(e + 8, 4, be);
		memcpy(a->inl, e + 8, 4);
	}
	if (!arr[0].count || arr[0].count != arr[1].count)
		return bad(diag, name, "tiff has %" PRIu32 " strip offsets and %"
			   PRIu32 " byte counts", arr[0].count, arr[1].count);
	if (arr[0].count > ENG_SEQ_TABLE_MAX)
		return bad(diag, name, "tiff has %" PRIu32 " strips: more than "
			   "%u are read", arr[0].count, ENG_SEQ_TABLE_MAX);
	for (int k = 0; k < 2; k++)
		if ((uint64_t)arr[k].count * (unsigned)arr[k].size > 4 &&
		    (arr[k].at > w->src->size ||
		     (uint64_t)arr[k].count * (unsigned)arr[k].size >
		     w->src->size - arr[k].at))
			return bad(diag, name, "tiff table of %" PRIu32 " strip"
				   " %s at %" PRIu64 " runs past the end of the"
				   " file (%" PRIu64 " bytes)", arr[k].count,
				   k ? "byte counts" : "offsets", arr[k].at,
				   w->src->size);
	out->fmt = ENG_SEQ_TIFF;
	if (!out->compression)
		out->compression = 1;	/* the tag's default: none */
	return tiff_runs(w, arr, be, out, diag);
}

/* scanlines a chunk by EXR compression (OpenEXR's file layout) */
static int exr_lines(unsigned c)
{
	static const int lines[] = { 1, 1, 1, 16, 32, 16, 32, 32, 32, 256 };

	return c < sizeof(lines) / sizeof(lines[0]) ? lines[c] : 0;
}

/* past the NUL of the string at *p (names and types are at most 255
 * bytes in OpenEXR 2) */
static int exr_str(struct win *w, uint64_t *p, char *s, size_t cap,
		   struct eng_diag *diag)
{
	uint64_t left = w->src->size - *p;
	size_t len = left < cap ? (size_t)left : cap;
	const unsigned char *h, *z;
	int rc = 0;

	if (!(h = bytes(w, *p, len, &rc, diag)))
		return rc;
	if (!(z = memchr(h, 0, len)))
		return bad(diag, w->src->name, "exr header string at %" PRIu64
			   " has no end", *p);
	memcpy(s, h, (size_t)(z - h) + 1);
	*p += (uint64_t)(z - h) + 1;
	return 0;
}

static int exr(struct win *w, const unsigned char *h,
	       struct eng_seq_pixels *out, struct eng_diag *diag)
{
	const char *name = w->src->name;
	uint64_t p = 8, ver = get(h + 4, 4, 0), chunks, first = 0, prev = 0;
	uint64_t size = w->src->size;
	int64_t ymin = 0, ymax = -1;
	int have_dw = 0, comp = -1, rc = 0;
	char an[256], at[256];

	if (ver & 0x1a00)
		return bad(diag, name, "exr is %s: only single-part scanline "
			   "files are read", ver & 0x200 ? "tiled" :
			   ver & 0x1000 ? "multi-part" : "deep");
	/* attributes: name\0 type\0 size(4) value, up to an empty name */
	for (;;) {
		const unsigned char *v;
		uint64_t sz;

		if ((rc = exr_str(w, &p, an, sizeof(an), diag)))
			return rc;
		if (!an[0])
			break;
		if ((rc = exr_str(w, &p, at, sizeof(at), diag)))
			return rc;
		if (!(v = bytes(w, p, 4, &rc, diag)))
			return rc;
		sz = get(v, 4, 0);
		p += 4;
		if (sz > size - p)
			return bad(diag, name, "exr attribute %s of %" PRIu64
				   " bytes runs past the end of the file", an,
				   sz);
		if ((!strcmp(an, "dataWindow") && sz == 16) ||
		    (!strcmp(an, "compression") && sz == 1)) {
			if (!(v = bytes(w, p, (size_t)sz, &rc, diag)))
				return rc;
			if (sz == 1) {
				comp = v[0];
			} else {
				ymin = (int32_t)get(v + 4, 4, 0);
				ymax = (int32_t)get(v + 12, 4, 0);
				have_dw = 1;
			}
		}
		p += sz;
	}
	if (!have_dw || ymax < ymin)
		return bad(diag, name, "exr header has no dataWindow of rows");
	if (!exr_lines((unsigned)comp))
		return bad(diag, name, "exr compression %d is not known", comp);
	chunks = (uint64_t)(ymax - ymin) / (unsigned)exr_lines((unsigned)comp)
		 + 1;
	if (chunks > ENG_SEQ_TABLE_MAX)
		return bad(diag, name, "exr has %" PRIu64 " chunks: more than %u"
			   " are read", chunks, ENG_SEQ_TABLE_MAX);
	if (chunks > (size - p) / 8)
		return bad(diag, name, "exr offset table of %" PRIu64 " chunks "
			   "runs past the end of the file", chunks);
	/* the table an entry at a time: the window, not the table, in
	 * memory */
	for (uint64_t i = 0; i < chunks; i++) {
		uint64_t off;

		if (!(h = bytes(w, p + 8 * i, 8, &rc, diag)))
			return rc;
		off = get(h, 8, 0);

		/* a chunk is its y (4), its size (4) and its data */
		if (off < p + 8 * chunks || off > size - 8)
			return bad(diag, name, "exr chunk %" PRIu64 " at %"
				   PRIu64 " is outside the file's data", i,
				   off);
		if (i && off <= prev)
			return bad(diag, name, "exr chunks out of order at "
				   "chunk %" PRIu64 ": the data is read as "
				   "one run", i);
		if (!i)
			first = off;
		prev = off;
	}
	out->fmt = ENG_SEQ_EXR;
	out->compression = (uint32_t)comp;
	return add_run(out, first, size - first, size, name, diag);
}

int eng_seq_pixels_of(const struct eng_src *src, struct eng_seq_pixels *out,
		      int *reads, struct eng_diag *diag)
{
	static const unsigned char exr_magic[4] = { 0x76, 0x2f, 0x31, 0x01 };
	struct win w = { .src = src };
	const unsigned char *h;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (src->size < 8) {
		rc = bad(diag, src->name, "%" PRIu64 " bytes: no image header",
			 src->size);
		goto out;
	}
	if (!(h = bytes(&w, 0, 8, &rc, diag)))
		goto out;
	if (!memcmp(h, "SDPX", 4) || !memcmp(h, "XPDS", 4))
		rc = dpx(&w, h, out, diag);
	else if (!memcmp(h, "II", 2) || !memcmp(h, "MM", 2))
		rc = tiff(&w, h, out, diag);
	else if (!memcmp(h, exr_magic, 4))
		rc = exr(&w, h, out, diag);
	else
		rc = bad(diag, src->name, "not a dpx, tiff or exr file (first "
			 "bytes %02x %02x %02x %02x)", h[0], h[1], h[2], h[3]);
	/* strips of 0 bytes, a DPX whose data starts at its end: a frame
	 * of nothing would make a timeline of nothing, served silently */
	if (!rc && !out->bytes)
		rc = bad(diag, src->name, "%s header gives no pixel data (0 "
			 "bytes)", out->fmt == ENG_SEQ_DPX ? "dpx" :
			 out->fmt == ENG_SEQ_TIFF ? "tiff" : "exr");
out:
	if (reads)
		*reads = w.reads;
	return rc;
}

int eng_seq_headerless(const char *suffix)
{
	size_t n = suffix ? strlen(suffix) : 0;

	return n >= 4 && strcasecmp(suffix + n - 4, ".raw") == 0;
}

int eng_seq_raw_pixels(const char *name, uint64_t size,
		       struct eng_seq_pixels *out, struct eng_diag *diag)
{
	memset(out, 0, sizeof(*out));
	if (!size)
		return bad(diag, name, "an empty file: no pixel data");
	out->fmt = ENG_SEQ_RAW;
	return add_run(out, 0, size, size, name, diag);
}

void eng_seq_codec(const struct eng_seq_pixels *px, char *buf, size_t len)
{
	/* OpenEXR's compression names (ImfCompression.h), by number */
	static const char *const exr[] = {
		"exr", "exr-rle", "exr-zips", "exr-zip", "exr-piz",
		"exr-pxr24", "exr-b44", "exr-b44a", "exr-dwaa", "exr-dwab",
	};

	switch (px->fmt) {
	case ENG_SEQ_DPX:
		snprintf(buf, len, "dpx");
		break;
	case ENG_SEQ_TIFF:
		if (px->compression > 1)
			snprintf(buf, len, "tiff-%" PRIu32, px->compression);
		else
			snprintf(buf, len, "tiff");
		break;
	case ENG_SEQ_EXR:
		if (px->compression < sizeof(exr) / sizeof(exr[0]))
			snprintf(buf, len, "%s", exr[px->compression]);
		else
			snprintf(buf, len, "exr-%" PRIu32, px->compression);
		break;
	case ENG_SEQ_RAW:
		snprintf(buf, len, "raw");
		break;
	default:
		snprintf(buf, len, "unknown");
	}
}
