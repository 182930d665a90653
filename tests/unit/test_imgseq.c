/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for engine/media/imgseq.c: OTIO's ImageSequenceReference name
 * formula (start 86400 at padding 7, padding 4 with step 2 across the
 * 9999 -> 10000 roll-over, negative frame numbers, the base's '/') and the
 * pixel data of DPX (both byte orders), TIFF (strips adjacent, apart,
 * inline, short and long) and OpenEXR scanline headers built here byte by
 * byte, each read as a reader does (the reads counted: 4 KiB from the
 * start, more where a field is elsewhere), and headers claiming tables
 * larger than a frame holds (sparse files of 450 MB).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "media/imgseq.h"
#include "util/diag.h"

#include "sparse_src.h"

/* A file in memory, built by the put_* helpers. */
struct mem {
	unsigned char b[65536];
	size_t n;
};

static void put(struct mem *m, const void *p, size_t n)
{
	assert_true(m->n + n <= sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put_int(struct mem *m, uint64_t v, int bytes, int be)
{
	for (int i = 0; i < bytes; i++) {
		int sh = be ? 8 * (bytes - 1 - i) : 8 * i;
		unsigned char c = (unsigned char)(v >> sh);

		put(m, &c, 1);
	}
}

static void pad_to(struct mem *m, size_t n)
{
	assert_true(n <= sizeof(m->b) && n >= m->n);
	memset(m->b + m->n, 0x5a, n - m->n);
	m->n = n;
}

static void set_int(struct mem *m, size_t at, uint64_t v, int bytes, int be)
{
	size_t n = m->n;

	m->n = at;
	put_int(m, v, bytes, be);
	m->n = n;
}

/* m as a frame file whose reads are counted and checked: each inside the
 * file, none past its end */
struct counted {
	struct mem *m;
	int reads;
	uint64_t last_off;
	size_t last_len;
};

static long counted_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct counted *c = ctx;

	assert_true(off <= c->m->n && len <= c->m->n - off);
	assert_true(len > 0);
	c->reads++;
	c->last_off = off;
	c->last_len = len;
	memcpy(buf, c->m->b + off, len);
	return (long)len;
}

/* m's pixel data as the reader reads it: the number of header reads in
 * *reads (the parser's count, checked against the file's), the message
 * (or "") in msg */
static int pixels(struct mem *m, struct eng_seq_pixels *px, int *reads,
		  char *msg, size_t len)
{
	struct eng_diag d = { 0 };
	struct counted c = { .m = m };
	struct eng_src src = { "f.0001", m->n, counted_read, &c };
	int rc = eng_seq_pixels_of(&src, px, reads, &d);

	assert_int_equal(*reads, c.reads);
	snprintf(msg, len, "%s", d.n ? d.msgs[0] : "");
	assert_int_equal(d.n, rc ? 1 : 0);
	eng_diag_free(&d);
	return rc;
}

/* m reads as one run of pixel data of format fmt at [off, off + len)
 * in `reads` header reads */
static void one_run(struct mem *m, uint32_t fmt, uint64_t off, uint64_t len,
		    int reads)
{
	struct eng_seq_pixels px;
	char msg[256];
	int got;

	assert_int_equal(pixels(m, &px, &got, msg, sizeof(msg)), 0);
	assert_int_equal(px.fmt, fmt);
	assert_int_equal(px.n, 1);
	assert_int_equal(px.ext[0].off, off);
	assert_int_equal(px.ext[0].len, len);
	assert_int_equal(px.bytes, len);
	assert_int_equal(got, reads);
}

static void name_is(const struct eng_seq_name *s, int64_t k, const char *want)
{
	char buf[256];
	int n = eng_seq_name_of(s, k, buf, sizeof(buf));

	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

static void test_names(void **state)
{
	struct eng_seq_name s = { "", "A001C003.", ".dpx", 86400, 1, 7 };
	char small[8];

	(void)state;
	name_is(&s, 0, "A001C003.0086400.dpx");
	name_is(&s, 23, "A001C003.0086423.dpx");
	/* a base gets its '/', a base ending in one gets no second */
	s.base = "/media/reel1";
	name_is(&s, 1, "/media/reel1/A001C003.0086401.dpx");
	s.base = "/media/reel1/";
	name_is(&s, 1, "/media/reel1/A001C003.0086401.dpx");
	/* padding 4, step 2: 9996 9998 10000, more digits kept */
	s = (struct eng_seq_name){ "", "sh010.", ".exr", 9996, 2, 4 };
	name_is(&s, 0, "sh010.9996.exr");
	name_is(&s, 1, "sh010.9998.exr");
	name_is(&s, 2, "sh010.10000.exr");
	/* negative numbers: the sign before the zeros, as OTIO writes */
	s = (struct eng_seq_name){ "", "neg.", ".tif", -3, 1, 4 };
	name_is(&s, 0, "neg.-0003.tif");
	name_is(&s, 2, "neg.-0001.tif");
	name_is(&s, 3, "neg.0000.tif");
	s.step = -2;
	name_is(&s, 500, "neg.-1003.tif");
	s.padding = 0;
	name_is(&s, 0, "neg.-3.tif");
	s = (struct eng_seq_name){ "", "", "", 5, 1, 0 };
	name_is(&s, 0, "5");
	/* the extremes: no overflow read as a name */
	s = (struct eng_seq_name){ "", "x", "", INT64_MIN, 1, 0 };
	name_is(&s, 0, "x-9223372036854775808");
	assert_int_equal(eng_seq_name_of(&s, -1, small, sizeof(small)),
			 -ERANGE);
	s = (struct eng_seq_name){ "", "x", "", 0, INT64_MAX, 0 };
	assert_int_equal(eng_seq_name_of(&s, 2, small, sizeof(small)),
			 -ERANGE);
	s.padding = 65;
	assert_int_equal(eng_seq_name_of(&s, 0, small, sizeof(small)),
			 -ERANGE);
	s = (struct eng_seq_name){ "", "A001C003.", ".dpx", 86400, 1, 7 };
	assert_int_equal(eng_seq_name_of(&s, 0, small, sizeof(small)),
			 -ENAMETOOLONG);
	assert_string_equal(small, "");
}

/* a DPX of `size` bytes, image data at `off` */
static void dpx(struct mem *m, int be, uint32_t off, size_t size)
{
	m->n = 0;
	put(m, be ? "SDPX" : "XPDS", 4);
	put_int(m, off, 4, be);
	put(m, "V2.0", 4);
	pad_to(m, size);
}

static void test_dpx(void **state)
{
	struct mem m;
	struct eng_seq_pixels px;
	char msg[256];
	int reads;

	(void)state;
	for (int be = 0; be < 2; be++) {
		dpx(&m, be, 2048, 6144);
		one_run(&m, ENG_SEQ_DPX, 2048, 4096, 1);
	}
	/* an offset inside the generic header or past the end */
	dpx(&m, 1, 100, 6144);
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "f.0001: dpx image data offset 100"));
	dpx(&m, 0, 7000, 6144);
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	/* a file too short for any header, and not an image */
	m.n = 3;
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "f.0001: 3 bytes: no image header");
	m.n = 0;
	put(&m, "RIFF....", 8);
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "not a dpx, tiff or exr file"));
}

/* TIFF IFD entry */
static void ifd_entry(struct mem *m, int be, unsigned tag, unsigned type,
		      uint32_t count, uint32_t value)
{
	put_int(m, tag, 2, be);
	put_int(m, type, 2, be);
	put_int(m, count, 4, be);
	if (type == 3 && count == 1) {	/* a short sits left in its field */
		put_int(m, value, 2, be);
		put_int(m, 0, 2, be);
	} else {
		put_int(m, value, 4, be);
	}
}

/*
 * A TIFF with two strips of 3000 and 3200 bytes: offsets (long) at 200,
 * byte counts (short, both inline); strip 2 at 3200 + gap.  The IFD is
 * put after the pixels (as libtiff writes it) when ifd_last.
 */
static void tiff2(struct mem *m, int be, unsigned gap, int ifd_last)
{
	uint32_t ifd = ifd_last ? 6400 + gap : 8;

	m->n = 0;
	put(m, be ? "MM\0*" : "II*\0", 4);
	put_int(m, ifd, 4, be);
	if (ifd_last)
		pad_to(m, ifd);
	put_int(m, 4, 2, be);
	ifd_entry(m, be, 256, 3, 1, 64);	/* ImageWidth */
	ifd_entry(m, be, 273, 4, 2, ifd_last ? 100 : 80);
	ifd_entry(m, be, 278, 3, 1, 8);		/* RowsPerStrip */
	ifd_entry(m, be, 279, 3, 2, 0);		/* counts: set below */
	put_int(m, 0, 4, be);			/* no next IFD */
	set_int(m, ifd + 2 + 36 + 8, be ? 3000u << 16 | 3200 :
		3200u << 16 | 3000, 4, be);
	if (ifd_last) {
		size_t end = m->n;

		m->n = 100;
		put_int(m, 200, 4, be);
		put_int(m, 3200 + gap, 4, be);
		m->n = end;
	} else {
		pad_to(m, 80);
		put_int(m, 200, 4, be);
		put_int(m, 3200 + gap, 4, be);
		pad_to(m, 6400 + gap);
	}
}

static void test_tiff(void **state)
{
	struct mem m;
	struct eng_seq_pixels px;
	char msg[256];
	int reads;

	(void)state;
	for (int be = 0; be < 2; be++) {
		/* strips adjacent: one run */
		tiff2(&m, be, 0, 0);
		one_run(&m, ENG_SEQ_TIFF, 200, 6200, 1);
		/* apart: two runs, in strip order */
		tiff2(&m, be, 16, 1);
		assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
				 0);
		assert_int_equal(px.n, 2);
		assert_int_equal(px.ext[0].off, 200);
		assert_int_equal(px.ext[0].len, 3000);
		assert_int_equal(px.ext[1].off, 3216);
		assert_int_equal(px.ext[1].len, 3200);
		assert_int_equal(px.bytes, 6200);
		/* the IFD after the strips: a second read from it, a
		 * third back at its offsets table (before the strips) */
		assert_int_equal(reads, 3);
	}
	/* a strip past the end names the file */
	tiff2(&m, 0, 0, 0);
	m.n = 5000;
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "f.0001: pixel data at 3200 of 3200 bytes"
			       " is past the end"));
	/* BigTIFF is refused by name */
	m.n = 0;
	put(&m, "II+\0\x08\0\0\0", 8);
	pad_to(&m, 64);
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "f.0001: bigtiff is not read");
}

static void exr_attr(struct mem *m, const char *name, const char *type,
		     const void *v, uint32_t size)
{
	put(m, name, strlen(name) + 1);
	put(m, type, strlen(type) + 1);
	put_int(m, size, 4, 0);
	put(m, v, size);
}

/* A scanline EXR of rows 10..10+rows-1 at compression comp, each chunk
 * 8 + 40 bytes, the table `shuffle`d when asked; returns its first
 * chunk's offset. */
static size_t exr(struct mem *m, uint32_t version, unsigned comp, int rows,
		  int shuffle)
{
	static const unsigned lines[] = { 1, 1, 1, 16, 32 };
	unsigned char c = (unsigned char)comp, chl[18] = "R";
	struct mem box = { .n = 0 };
	size_t table, first, chunks;

	m->n = 0;
	put(m, "\x76\x2f\x31\x01", 4);
	put_int(m, version, 4, 0);
	chl[2] = 1;	/* R: half, then the list's end */
	exr_attr(m, "channels", "chlist", chl, 18);
	exr_attr(m, "compression", "compression", &c, 1);
	put_int(&box, 0, 4, 0);
	put_int(&box, 10, 4, 0);
	put_int(&box, 3, 4, 0);
	put_int(&box, 10 + rows - 1, 4, 0);
	exr_attr(m, "dataWindow", "box2i", box.b, 16);
	exr_attr(m, "displayWindow", "box2i", box.b, 16);
	put(m, "", 1);
	table = m->n;
	chunks = ((size_t)rows + lines[comp] - 1) / lines[comp];
	first = table + 8 * chunks;
	for (size_t i = 0; i < chunks; i++)
		put_int(m, first + 48 * (shuffle && i == 1 ? 0 : i), 8, 0);
	for (size_t i = 0; i < chunks; i++) {
		put_int(m, 10 + i * lines[comp], 4, 0);
		put_int(m, 40, 4, 0);
		pad_to(m, m->n + 40);
	}
	return first;
}

static void test_exr(void **state)
{
	struct mem m;
	struct eng_seq_pixels px;
	char msg[256];
	int reads;
	size_t first;

	(void)state;
	/* uncompressed: one chunk a row; ZIP: 16 rows; PIZ: 32 */
	for (unsigned comp = 0; comp <= 4; comp += 2) {
		unsigned c = comp == 2 ? 3 : comp;

		/* the chunks from the first to the file's end (a count of
		 * chunks not the compression's reads rows as offsets) */
		first = exr(&m, 2, c, 40, 0);
		one_run(&m, ENG_SEQ_EXR, first, m.n - first, 1);
	}
	/* 600 rows uncompressed: a table of 4800 bytes, read from where
	 * the header ends in a second read */
	first = exr(&m, 2, 0, 600, 0);
	one_run(&m, ENG_SEQ_EXR, first, m.n - first, 2);
	/* a table not in file order, tiled and multi-part files: refused */
	exr(&m, 2, 0, 4, 1);
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "f.0001: exr chunks out of order"));
	exr(&m, 2 | 0x200, 0, 4, 0);
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "exr is tiled"));
	exr(&m, 2 | 0x1000, 0, 4, 0);
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "exr is multi-part"));
	/* cut inside its header, inside its table */
	exr(&m, 2, 0, 4, 0);
	m.n = 40;
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "f.0001: exr "));
	first = exr(&m, 2, 0, 4, 0);
	m.n = first - 8;
	assert_int_equal(pixels(&m, &px, &reads, msg, sizeof(msg)),
			 -EINVAL);
	assert_non_null(strstr(msg, "offset table of 4 chunks"));
}

/* m at the start of a sparse file of `size` bytes (sparse_src.h) */
static int sparse_pixels(struct mem *m, uint64_t size, struct sparse *s,
			 struct eng_seq_pixels *px, char *msg, size_t len)
{
	struct eng_diag d = { 0 };
	struct eng_src src;
	int rc;

	sparse_src(&src, s, "f.0001", m->b, m->n, size);
	rc = eng_seq_pixels_of(&src, px, NULL, &d);
	assert_int_equal(d.n, rc ? 1 : 0);
	sparse_msg(&d, msg, len);
	return rc;
}

/* A TIFF whose IFD at 8 has `strips` strips: offsets (long) at offs,
 * byte counts (short or long) at cnts. */
static void tiff_tables(struct mem *m, uint32_t strips, uint32_t offs,
			unsigned cnt_type, uint32_t cnts)
{
	m->n = 0;
	put(m, "II*\0", 4);
	put_int(m, 8, 4, 0);
	put_int(m, 2, 2, 0);
	ifd_entry(m, 0, 273, 4, strips, offs);
	ifd_entry(m, 0, 279, cnt_type, strips, cnts);
	put_int(m, 0, 4, 0);
}

/* m at the start of a 450 MB sparse file: refused saying `claim` and
 * the limit, having read no more than one window */
static void refused_unread(struct mem *m, const char *claim)
{
	struct sparse s;
	struct eng_seq_pixels px;
	char msg[256], want[160];

	assert_int_equal(sparse_pixels(m, 450000000, &s, &px, msg,
				       sizeof(msg)), -EINVAL);
	snprintf(want, sizeof(want), "f.0001: %s: more than %u", claim,
		 ENG_SEQ_TABLE_MAX);
	assert_non_null(strstr(msg, want));
	assert_true(s.bytes <= ENG_SEQ_HEADER_READ);
}

/*
 * Headers that claim more than a frame holds (issue: a 450 MB sparse
 * TIFF of 50 M strips took the daemon to 613 MB, then served a 0-byte
 * timeline): a table beyond ENG_SEQ_TABLE_MAX entries is refused naming
 * the file before it is read, one within it is read 4 KiB at a time
 * (never a read or a buffer the size of the table), and a header whose
 * pixel data is 0 bytes is refused.  Before: the TIFF returned 0 with 0
 * bytes after reading 400 MB, the EXR read 400 MB, the 3000-strip TIFF
 * read its 12000-byte table in one read, the IFD of 65535 entries in one
 * read of 786420 bytes, the empty strips and DPX returned 0.
 */
static void test_hostile(void **state)
{
	struct mem m;
	struct sparse s;
	struct eng_seq_pixels px;
	char msg[256];
	unsigned char box[16] = { 0 }, c = 0;

	(void)state;
	tiff_tables(&m, 50000000, 4096, 4, 4096 + 200000000);
	refused_unread(&m, "tiff has 50000000 strips");

	/* 3000 adjacent strips of 10 bytes: one run, read 4 KiB at a time */
	tiff_tables(&m, 3000, 64, 3, 64 + 12000);
	pad_to(&m, 64);
	for (uint32_t i = 0; i < 3000; i++)
		put_int(&m, 18064 + 10 * i, 4, 0);
	for (uint32_t i = 0; i < 3000; i++)
		put_int(&m, 10, 2, 0);
	pad_to(&m, 18064 + 30000);
	assert_int_equal(sparse_pixels(&m, m.n, &s, &px, msg, sizeof(msg)),
			 0);
	assert_int_equal(px.n, 1);
	assert_int_equal(px.ext[0].off, 18064);
	assert_int_equal(px.bytes, 30000);
	assert_true(s.largest <= ENG_SEQ_HEADER_READ);

	/* strips of 0 bytes: no pixel data, not an empty frame */
	tiff_tables(&m, 2, 64, 3, 0);	/* counts inline: 0, 0 */
	pad_to(&m, 64);
	put_int(&m, 100, 4, 0);
	put_int(&m, 100, 4, 0);
	pad_to(&m, 256);
	assert_int_equal(sparse_pixels(&m, m.n, &s, &px, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "f.0001: tiff header gives no pixel data "
			    "(0 bytes)");

	/* an IFD of 65535 entries (all tag 0) is read 4 KiB at a time */
	m.n = 0;
	put(&m, "II*\0", 4);
	put_int(&m, 8, 4, 0);
	put_int(&m, 65535, 2, 0);
	assert_int_equal(sparse_pixels(&m, 1000000, &s, &px, msg,
				       sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "tiff has 0 strip offsets"));
	assert_true(s.largest <= ENG_SEQ_HEADER_READ);

	/* an EXR of 50 M rows, uncompressed: 50 M chunks */
	m.n = 0;
	put(&m, "\x76\x2f\x31\x01", 4);
	put_int(&m, 2, 4, 0);
	exr_attr(&m, "compression", "compression", &c, 1);
	for (int i = 0; i < 4; i++)	/* ymax 49999999 */
		box[12 + i] = (unsigned char)(49999999 >> (8 * i));
	exr_attr(&m, "dataWindow", "box2i", box, 16);
	put(&m, "", 1);
	refused_unread(&m, "exr has 50000000 chunks");

	/* 1000 rows: a table of 8000 bytes read 4 KiB at a time */
	exr(&m, 2, 0, 1000, 0);
	assert_int_equal(sparse_pixels(&m, m.n, &s, &px, msg, sizeof(msg)),
			 0);
	assert_int_equal(px.n, 1);
	assert_true(s.largest <= ENG_SEQ_HEADER_READ);

	/* a DPX whose image data starts at its end */
	dpx(&m, 1, 6144, 6144);
	assert_int_equal(sparse_pixels(&m, m.n, &s, &px, msg, sizeof(msg)),
			 -EINVAL);
	assert_string_equal(msg, "f.0001: dpx header gives no pixel data "
			    "(0 bytes)");
}

static void codec_is(struct mem *m, uint32_t comp, const char *want)
{
	struct eng_seq_pixels px;
	char msg[256], codec[32];
	int reads;

	assert_int_equal(pixels(m, &px, &reads, msg, sizeof(msg)), 0);
	assert_int_equal(px.compression, comp);
	eng_seq_codec(&px, codec, sizeof(codec));
	assert_string_equal(codec, want);
}

/* The compression a header says (a compressed sequence's frames differ
 * in size: the mount stats each) and the media table's codec; headerless
 * frames by their suffix, all of the file their pixel data, no read. */
static void test_codec_raw(void **state)
{
	struct eng_diag d = { 0 };
	struct eng_seq_pixels px;
	struct mem m;
	char codec[32];

	(void)state;
	dpx(&m, 1, 2048, 6144);
	codec_is(&m, 0, "dpx");
	exr(&m, 2, 0, 40, 0);
	codec_is(&m, 0, "exr");
	exr(&m, 2, 3, 40, 0);
	codec_is(&m, 3, "exr-zip");
	exr(&m, 2, 4, 40, 0);
	codec_is(&m, 4, "exr-piz");
	for (int be = 0; be < 2; be++) {
		tiff2(&m, be, 0, 0);
		codec_is(&m, 1, "tiff");
		/* ImageWidth's entry made Compression 8 (deflate) */
		set_int(&m, 10, 259, 2, be);
		set_int(&m, 18, 8, 2, be);
		codec_is(&m, 8, "tiff-8");
	}
	assert_true(eng_seq_headerless(".raw"));
	assert_true(eng_seq_headerless("_rgb.RAW"));
	assert_false(eng_seq_headerless(".dpx"));
	assert_false(eng_seq_headerless("raw"));
	assert_false(eng_seq_headerless(NULL));
	assert_int_equal(eng_seq_raw_pixels("f.0001.raw", 1036800, &px, &d),
			 0);
	assert_int_equal(px.fmt, ENG_SEQ_RAW);
	assert_int_equal(px.n, 1);
	assert_int_equal(px.ext[0].off, 0);
	assert_int_equal(px.ext[0].len, 1036800);
	assert_int_equal(px.bytes, 1036800);
	eng_seq_codec(&px, codec, sizeof(codec));
	assert_string_equal(codec, "raw");
	assert_int_equal(d.n, 0);
	assert_int_equal(eng_seq_raw_pixels("f.0002.raw", 0, &px, &d),
			 -EINVAL);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.msgs[0], "f.0002.raw: an empty file: no pixel "
			    "data");
	eng_diag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_dpx),
		cmocka_unit_test(test_tiff),
		cmocka_unit_test(test_exr),
		cmocka_unit_test(test_codec_raw),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
