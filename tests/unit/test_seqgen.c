/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for image sequence files (seqgen.h, issue 22): the presets'
 * real frame sizes, sizes refused, the DPX 10-bit word and EXR half of a
 * pixel of the overlay (a code cell), the TIFF strips one after another,
 * PIZ left to OpenEXR's library (its size and plain kind),
 * and the same frame rendered twice the same bytes.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "media/seqgen.h"
#include "media/picture.h"

static const struct eng_fps fps24 = {24, 1};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[1] << 8 | p[0];
}

static void test_sizes(void **state)
{
	static const struct {
		const char *name;
		uint64_t bytes;
	} want[] = {
	    {"dpx10-hd", 2048 + 1920 * 1080 * 4},
	    {"dpx10-2k", 2048 + 2048 * 1080 * 4},
	    {"dpx10-2k-full", 2048 + 2048 * 1556 * 4},
	    {"dpx10-uhd", 2048 + 3840 * 2160 * 4},
	    {"dpx10-4k", 2048 + 4096 * 2160 * 4},
	    {"dpx10-4k-full", 2048 + 4096 * 3112 * 4},
	    {"dpx16-2k", 2048 + 2048 * 1080 * 6},
	    {"frametest-2k", 2048 * 1080 * 3},
	};
	struct eng_seqgen_image big = {ENG_SEQGEN_DPX16, 16385, 16};
	struct eng_seqgen_image zero = {ENG_SEQGEN_TIFF16, 0, 240};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct eng_seqgen_format *f =
		    eng_seqgen_format_find(want[i].name);

		assert_non_null(f);
		assert_int_equal(eng_seqgen_file_bytes(&f->im), want[i].bytes);
	}
	assert_null(eng_seqgen_format_find("dpx10"));
	/* sides up to 16384, as pictures' */
	assert_int_equal(eng_seqgen_file_bytes(&big), 0);
	assert_int_equal(eng_seqgen_file_bytes(&zero), 0);
	assert_int_equal(eng_seqgen_render(&zero, 1, 1, 0, 0, fps24, NULL),
			 -EINVAL);
}

/* PIZ is OpenEXR's library's to write (gen/exr.c): here its picture is
 * the uncompressed kind's, its size varies, and it is not rendered. */
static void test_piz(void **state)
{
	const struct eng_seqgen_format *f =
	    eng_seqgen_format_find("exr-piz-hd");
	const struct eng_seqgen_format *a =
	    eng_seqgen_format_find("exr-rgba-piz-4k");
	struct eng_seqgen_image plain;
	unsigned char b[1];

	(void)state;
	assert_non_null(f);
	assert_non_null(a);
	assert_int_equal(eng_seqgen_plain(f->im.kind), ENG_SEQGEN_EXR_RGB);
	assert_int_equal(eng_seqgen_plain(a->im.kind), ENG_SEQGEN_EXR_RGBA);
	assert_int_equal(eng_seqgen_plain(ENG_SEQGEN_EXR_RGB_ZIP), 0);
	assert_int_equal(eng_seqgen_fixed(f->im.kind), 0);
	assert_string_equal(eng_seqgen_ext(f->im.kind), "exr");
	/* at most: the header (with OpenEXRCore's type attribute, 29 bytes)
	 * and a table entry and chunk header for each 32 lines, the lines
	 * stored */
	plain = f->im;
	plain.kind = ENG_SEQGEN_EXR_RGB;
	assert_int_equal(eng_seqgen_header_bytes(&f->im),
			 eng_seqgen_header_bytes(&plain) - 8 * 1080 + 29 +
			     8 * 34);
	assert_int_equal(eng_seqgen_file_bytes(&f->im),
			 eng_seqgen_header_bytes(&f->im) + 34 * 8 +
			     1920 * 1080 * 6);
	assert_int_equal(eng_seqgen_render(&f->im, 1, 1, 0, 0, fps24, b),
			 -ENOTSUP);
}

/* Pixel (x, y) in the middle of code cell c of row 0 of a 320x240
 * picture, and whether that cell is white. */
static void cell(uint32_t c, uint32_t *x, uint32_t *y, int *white)
{
	struct eng_picture p = {ENG_PIX_2VUY, 320, 240};
	struct eng_pic_layout l;

	eng_pic_layout(&p, &l);
	*x = 6 * (l.code_x + c * l.cell_w + l.cell_w / 2);
	*y = l.cell_h / 2;
	*white = (int)(eng_pic_code(7, 3) >> (63 - c)) & 1;
}

static void test_pixels(void **state)
{
	struct eng_seqgen_image dpx = {ENG_SEQGEN_DPX10, 320, 240};
	struct eng_seqgen_image exr = {ENG_SEQGEN_EXR_RGB, 320, 240};
	unsigned char *a = malloc(eng_seqgen_file_bytes(&dpx));
	unsigned char *b = malloc(eng_seqgen_file_bytes(&exr));
	uint32_t c, x, y, k;
	int white;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(eng_seqgen_render(&dpx, 5, 7, 3, 86403, fps24, a),
			 (int64_t)eng_seqgen_file_bytes(&dpx));
	assert_int_equal(eng_seqgen_render(&exr, 5, 7, 3, 86403, fps24, b),
			 (int64_t)eng_seqgen_file_bytes(&exr));
	assert_memory_equal(a, "SDPX", 4);
	assert_int_equal(be32(a + 1920), 0x01000003); /* 01:00:00:03 */
	for (c = 0; c < 8; c++) {
		uint64_t head = eng_seqgen_header_bytes(&exr), off;
		uint32_t w;

		cell(c, &x, &y, &white);
		w = be32(a + 2048 + 4 * (y * 320 + x));
		for (k = 0; k < 3; k++) {
			uint32_t v = (w >> (22 - 10 * k)) & 0x3ff;

			if (white)
				assert_in_range(v, 896, 959);
			else
				assert_in_range(v, 64, 127);
		}
		/* EXR: chunk y, after its y and size, channel B */
		off = head + (uint64_t)y * (8 + 6 * 320);
		assert_int_equal(le32(b + off), y);
		w = b[off + 8 + 2 * x] | b[off + 9 + 2 * x] << 8;
		/* half of 896/1024 ..959/1024, of 64/1024 .. 127/1024 */
		if (white)
			assert_in_range(w, 0x3b00, 0x3b7c);
		else
			assert_in_range(w, 0x2c00, 0x2ff0);
	}
	free(a);
	free(b);
}

static void test_tiff_strips(void **state)
{
	struct eng_seqgen_image t = {ENG_SEQGEN_TIFF16, 320, 40};
	uint64_t n = eng_seqgen_file_bytes(&t),
		 head = eng_seqgen_header_bytes(&t);
	unsigned char *a = malloc(n), *b = malloc(n);
	uint32_t i;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(n, head + 320 * 40 * 6);
	assert_int_equal(eng_seqgen_render(&t, 1, 2, 0, 0, fps24, a),
			 (int64_t)eng_seqgen_file_bytes(&t));
	assert_int_equal(eng_seqgen_render(&t, 1, 2, 0, 0, fps24, b),
			 (int64_t)eng_seqgen_file_bytes(&t));
	assert_memory_equal(a, b, n);
	assert_memory_equal(a, "II*\0", 4);
	/* 3 strips (16, 16, 8 rows), one after another from head */
	for (i = 0; i < 3; i++) {
		assert_int_equal(le32(a + 192 + 4 * i), head + i * 16 * 1920);
		assert_int_equal(le32(a + 204 + 4 * i),
				 (i < 2 ? 16 : 8) * 1920);
	}
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_piz),
	    cmocka_unit_test(test_pixels),
	    cmocka_unit_test(test_tiff_strips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
