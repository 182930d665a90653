/* SPDX-License-Identifier: MIT */
/*
 * Image sequence files (seqgen.h): headers from the formats'
 * specifications, pixels a row at a time.  Every component is first made
 * on a 16-bit scale (noise, the overlay's black 0x1000-0x1fff and white
 * 0xe000-0xefff keeping 12 random low bits) and then stored as the kind
 * stores it: its top 10 bits (DPX 10-bit), all 16, its top 8, or half
 * floats of its top 10 bits / 1024 (EXR), so that one reading (a
 * component at or over half scale is light) decodes them all.
 */
#include <errno.h>
#include <string.h>

#include <stdlib.h>
#include <zlib.h>

#include "media/seqgen.h"
#include "media/picture.h"
#include "util/rng.h"

#define NOISE_DOMAIN 0x72676273ULL /* "rgbs" */
#define SIZE_MAX_SIDE 16384u
#define BLACK16 0x1000u
#define WHITE16 0xe000u
#define LOW16 0x0fffu
#define EXR_HALF_ONE 0x3c00u
#define EXR_ZIP_LINES 16
#define EXR_ZIP 3
#define EXR_PIZ 4
#define EXR_PIZ_LINES 32
/* deflate level of ZIP chunks: see the commit that chose it */
#define EXR_ZIP_LEVEL 4

/* clang-format off */
#define DPX_SRC "SMPTE ST 268:2014 (DPX 2.0): 2048-byte header, RGB " \
	"10-bit packed in 32-bit words (method A) or 16-bit"
#define TIFF_SRC "TIFF 6.0 (Adobe, 1992): baseline RGB, uncompressed, " \
	"16 rows a strip"
#define EXR_SRC "OpenEXR file layout (openexr.com): scanline, half, " \
	"NO_COMPRESSION, one line a chunk"
#define EXRZ_SRC "OpenEXR file layout and ImfZip (openexr.com): " \
	"scanline, half, ZIP: zlib of 16 lines, sizes vary per frame"
#define EXRP_SRC "OpenEXR file layout (openexr.com), written by " \
	"OpenEXRCore: scanline, half, PIZ: wavelet and Huffman of 32 lines, " \
	"sizes vary per frame"
#define TFT_SRC "tframetest profile.c (github.com/tuxera/tframetest): " \
	"width x height x 3 bytes, no header"
static const struct eng_seqgen_format formats[] = {
    {"dpx10-hd", "DPX 10-bit RGB 1920x1080 (HD, SMPTE ST 274)", DPX_SRC,
     {ENG_SEQGEN_DPX10, 1920, 1080}},
    {"dpx10-2k", "DPX 10-bit RGB 2048x1080 (2K DCI)", DPX_SRC,
     {ENG_SEQGEN_DPX10, 2048, 1080}},
    {"dpx10-2k-full", "DPX 10-bit RGB 2048x1556 (2K full aperture scan)",
     DPX_SRC, {ENG_SEQGEN_DPX10, 2048, 1556}},
    {"dpx10-uhd", "DPX 10-bit RGB 3840x2160 (UHD, ITU-R BT.2020)", DPX_SRC,
     {ENG_SEQGEN_DPX10, 3840, 2160}},
    {"dpx10-4k", "DPX 10-bit RGB 4096x2160 (4K DCI)", DPX_SRC,
     {ENG_SEQGEN_DPX10, 4096, 2160}},
    {"dpx10-4k-full", "DPX 10-bit RGB 4096x3112 (4K full aperture scan)",
     DPX_SRC, {ENG_SEQGEN_DPX10, 4096, 3112}},
    {"dpx16-hd", "DPX 16-bit RGB 1920x1080", DPX_SRC,
     {ENG_SEQGEN_DPX16, 1920, 1080}},
    {"dpx16-2k", "DPX 16-bit RGB 2048x1080", DPX_SRC,
     {ENG_SEQGEN_DPX16, 2048, 1080}},
    {"dpx16-4k", "DPX 16-bit RGB 4096x2160", DPX_SRC,
     {ENG_SEQGEN_DPX16, 4096, 2160}},
    {"tiff16-hd", "TIFF 16-bit RGB 1920x1080", TIFF_SRC,
     {ENG_SEQGEN_TIFF16, 1920, 1080}},
    {"tiff16-uhd", "TIFF 16-bit RGB 3840x2160", TIFF_SRC,
     {ENG_SEQGEN_TIFF16, 3840, 2160}},
    {"exr-hd", "OpenEXR half RGB 1920x1080, uncompressed", EXR_SRC,
     {ENG_SEQGEN_EXR_RGB, 1920, 1080}},
    {"exr-rgba-hd", "OpenEXR half RGBA 1920x1080, uncompressed", EXR_SRC,
     {ENG_SEQGEN_EXR_RGBA, 1920, 1080}},
    {"exr-uhd", "OpenEXR half RGB 3840x2160, uncompressed", EXR_SRC,
     {ENG_SEQGEN_EXR_RGB, 3840, 2160}},
    {"exr-rgba-4k", "OpenEXR half RGBA 4096x2160, uncompressed", EXR_SRC,
     {ENG_SEQGEN_EXR_RGBA, 4096, 2160}},
    {"exr-zip-hd", "OpenEXR half RGB 1920x1080, ZIP", EXRZ_SRC,
     {ENG_SEQGEN_EXR_RGB_ZIP, 1920, 1080}},
    {"exr-zip-uhd", "OpenEXR half RGB 3840x2160, ZIP", EXRZ_SRC,
     {ENG_SEQGEN_EXR_RGB_ZIP, 3840, 2160}},
    {"exr-rgba-zip-4k", "OpenEXR half RGBA 4096x2160, ZIP", EXRZ_SRC,
     {ENG_SEQGEN_EXR_RGBA_ZIP, 4096, 2160}},
    {"exr-piz-hd", "OpenEXR half RGB 1920x1080, PIZ", EXRP_SRC,
     {ENG_SEQGEN_EXR_RGB_PIZ, 1920, 1080}},
    {"exr-piz-uhd", "OpenEXR half RGB 3840x2160, PIZ", EXRP_SRC,
     {ENG_SEQGEN_EXR_RGB_PIZ, 3840, 2160}},
    {"exr-rgba-piz-4k", "OpenEXR half RGBA 4096x2160, PIZ", EXRP_SRC,
     {ENG_SEQGEN_EXR_RGBA_PIZ, 4096, 2160}},
    {"frametest-sd", "tframetest -w SD-24bit: 720x480 8-bit RGB", TFT_SRC,
     {ENG_SEQGEN_RAW8, 720, 480}},
    {"frametest-hd", "tframetest -w HD-24bit: 1280x720 8-bit RGB", TFT_SRC,
     {ENG_SEQGEN_RAW8, 1280, 720}},
    {"frametest-fullhd", "tframetest -w FULLHD-24bit: 1920x1080 8-bit RGB",
     TFT_SRC, {ENG_SEQGEN_RAW8, 1920, 1080}},
    {"frametest-2k", "tframetest -w 2K-24bit: 2048x1080 8-bit RGB", TFT_SRC,
     {ENG_SEQGEN_RAW8, 2048, 1080}},
    {"frametest-4k", "tframetest -w 4K-24bit: 3840x2160 8-bit RGB", TFT_SRC,
     {ENG_SEQGEN_RAW8, 3840, 2160}},
    {"frametest-8k", "tframetest -w 8K-24bit: 7680x4320 8-bit RGB", TFT_SRC,
     {ENG_SEQGEN_RAW8, 7680, 4320}},
};
/* clang-format on */

const struct eng_seqgen_format *eng_seqgen_formats(size_t *n)
{
	*n = sizeof(formats) / sizeof(formats[0]);
	return formats;
}

const struct eng_seqgen_format *eng_seqgen_format_find(const char *name)
{
	size_t i, n;

	eng_seqgen_formats(&n);
	for (i = 0; i < n; i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

static int is_zip(uint32_t kind)
{
	return kind == ENG_SEQGEN_EXR_RGB_ZIP ||
	       kind == ENG_SEQGEN_EXR_RGBA_ZIP;
}

static int is_piz(uint32_t kind)
{
	return kind == ENG_SEQGEN_EXR_RGB_PIZ ||
	       kind == ENG_SEQGEN_EXR_RGBA_PIZ;
}

static int is_exr(uint32_t kind)
{
	return kind == ENG_SEQGEN_EXR_RGB || kind == ENG_SEQGEN_EXR_RGBA ||
	       is_zip(kind) || is_piz(kind);
}

int eng_seqgen_fixed(uint32_t kind)
{
	return !is_zip(kind) && !is_piz(kind);
}

uint32_t eng_seqgen_plain(uint32_t kind)
{
	if (kind == ENG_SEQGEN_EXR_RGB_PIZ)
		return ENG_SEQGEN_EXR_RGB;
	if (kind == ENG_SEQGEN_EXR_RGBA_PIZ)
		return ENG_SEQGEN_EXR_RGBA;
	return 0;
}

const char *eng_seqgen_ext(uint32_t kind)
{
	switch (kind) {
	case ENG_SEQGEN_DPX10:
	case ENG_SEQGEN_DPX16:
		return "dpx";
	case ENG_SEQGEN_TIFF16:
		return "tif";
	case ENG_SEQGEN_EXR_RGB:
	case ENG_SEQGEN_EXR_RGBA:
	case ENG_SEQGEN_EXR_RGB_ZIP:
	case ENG_SEQGEN_EXR_RGBA_ZIP:
	case ENG_SEQGEN_EXR_RGB_PIZ:
	case ENG_SEQGEN_EXR_RGBA_PIZ:
		return "exr";
	default:
		return "raw";
	}
}

static uint32_t channels(uint32_t kind)
{
	return kind == ENG_SEQGEN_EXR_RGBA || kind == ENG_SEQGEN_EXR_RGBA_ZIP ||
		       kind == ENG_SEQGEN_EXR_RGBA_PIZ
		   ? 4
		   : 3;
}

/* Bytes of one row of pixel data (an EXR chunk's, without its 8). */
static uint64_t row_data(const struct eng_seqgen_image *im)
{
	uint64_t w = im->width;

	switch (im->kind) {
	case ENG_SEQGEN_DPX10:
		return 4 * w;
	case ENG_SEQGEN_DPX16:
	case ENG_SEQGEN_TIFF16:
		return 6 * w;
	case ENG_SEQGEN_EXR_RGB:
	case ENG_SEQGEN_EXR_RGBA:
	case ENG_SEQGEN_EXR_RGB_ZIP:
	case ENG_SEQGEN_EXR_RGBA_ZIP:
	case ENG_SEQGEN_EXR_RGB_PIZ:
	case ENG_SEQGEN_EXR_RGBA_PIZ:
		return 2 * w * channels(im->kind);
	default:
		return 3 * w;
	}
}

static uint32_t exr_lines(uint32_t kind)
{
	return is_zip(kind) ? EXR_ZIP_LINES : is_piz(kind) ? EXR_PIZ_LINES : 1;
}

static uint32_t exr_chunks(const struct eng_seqgen_image *im)
{
	uint32_t n = exr_lines(im->kind);

	return (im->height + n - 1) / n;
}

static uint32_t tiff_strips(const struct eng_seqgen_image *im)
{
	return (im->height + ENG_SEQGEN_TIFF_ROWS - 1) / ENG_SEQGEN_TIFF_ROWS;
}

/* A byte writer that only counts when out is NULL. */
struct put {
	unsigned char *out;
	uint64_t at;
};

static void put_bytes(struct put *p, const void *b, size_t n)
{
	if (p->out)
		memcpy(p->out + p->at, b, n);
	p->at += n;
}

static void put_le(struct put *p, uint64_t v, int n)
{
	unsigned char b[8];
	int i;

	for (i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	put_bytes(p, b, (size_t)n);
}

static void be_at(unsigned char *o, uint64_t at, uint32_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		o[at + (uint64_t)i] = (unsigned char)(v >> (8 * (n - 1 - i)));
}

static void le_at(unsigned char *o, uint64_t at, uint32_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		o[at + (uint64_t)i] = (unsigned char)(v >> (8 * i));
}

/* The header's compression: ZIP, PIZ or NONE. */
static uint32_t exr_compression(uint32_t kind)
{
	return is_zip(kind) ? EXR_ZIP : is_piz(kind) ? EXR_PIZ : 0;
}

/* The EXR header and offset table (counted when out is NULL). */
static uint64_t exr_header(const struct eng_seqgen_image *im,
			   unsigned char *out)
{
	static const char *const rgb[] = {"B", "G", "R"};
	static const char *const rgba[] = {"A", "B", "G", "R"};
	const char *const *ch = channels(im->kind) == 4 ? rgba : rgb;
	uint32_t n = channels(im->kind), i;
	struct put p = {out, 0};
	uint64_t first, chunk = 8 + row_data(im);

	put_le(&p, 0x01312f76u, 4); /* magic 76 2f 31 01 */
	put_le(&p, 2, 4);	    /* version 2, scanline, short names */
	/* OpenEXRCore (PIZ) names a part's type, single part or not */
	if (is_piz(im->kind)) {
		put_bytes(&p, "type\0string", 12);
		put_le(&p, 13, 4);
		put_bytes(&p, "scanlineimage", 13);
	}
	put_bytes(&p, "channels\0chlist", 16);
	put_le(&p, 18 * n + 1, 4);
	for (i = 0; i < n; i++) {
		put_bytes(&p, ch[i], 2);
		put_le(&p, 1, 4); /* HALF */
		put_le(&p, 0, 4); /* pLinear, reserved */
		put_le(&p, 1, 4); /* x sampling */
		put_le(&p, 1, 4); /* y sampling */
	}
	put_bytes(&p, "", 1);
	put_bytes(&p, "compression\0compression", 24);
	put_le(&p, 1, 4);
	put_le(&p, exr_compression(im->kind), 1);
	for (i = 0; i < 2; i++) {
		put_bytes(&p, i ? "displayWindow" : "dataWindow", i ? 14 : 11);
		put_bytes(&p, "box2i", 6);
		put_le(&p, 16, 4);
		put_le(&p, 0, 4);
		put_le(&p, 0, 4);
		put_le(&p, im->width - 1, 4);
		put_le(&p, im->height - 1, 4);
	}
	put_bytes(&p, "lineOrder\0lineOrder", 20);
	put_le(&p, 1, 4);
	put_bytes(&p, "", 1); /* INCREASING_Y */
	put_bytes(&p, "pixelAspectRatio\0float", 23);
	put_le(&p, 4, 4);
	put_le(&p, 0x3f800000u, 4); /* 1.0f */
	put_bytes(&p, "screenWindowCenter\0v2f", 23);
	put_le(&p, 8, 4);
	put_le(&p, 0, 8);
	put_bytes(&p, "screenWindowWidth\0float", 24);
	put_le(&p, 4, 4);
	put_le(&p, 0x3f800000u, 4);
	put_bytes(&p, "", 1); /* end of header */
	/* ZIP's offsets are filled in as its chunks are made */
	first = p.at + 8 * (uint64_t)exr_chunks(im);
	for (i = 0; i < exr_chunks(im); i++)
		put_le(&p, eng_seqgen_fixed(im->kind) ? first + i * chunk : 0,
		       8);
	return p.at;
}

static uint64_t tiff_header(const struct eng_seqgen_image *im)
{
	/* 8, the IFD (2 + 13 entries + 4 = 162), bits (6), two
	 * rationals (16), strip offsets and counts; data on 16 bytes */
	return (192 + 8 * (uint64_t)tiff_strips(im) + 15) & ~(uint64_t)15;
}

uint64_t eng_seqgen_header_bytes(const struct eng_seqgen_image *im)
{
	if (!im->width || !im->height || im->width > SIZE_MAX_SIDE ||
	    im->height > SIZE_MAX_SIDE)
		return 0;
	switch (im->kind) {
	case ENG_SEQGEN_DPX10:
	case ENG_SEQGEN_DPX16:
		return ENG_SEQGEN_DPX_HEADER;
	case ENG_SEQGEN_TIFF16:
		return tiff_header(im);
	case ENG_SEQGEN_EXR_RGB:
	case ENG_SEQGEN_EXR_RGBA:
	case ENG_SEQGEN_EXR_RGB_ZIP:
	case ENG_SEQGEN_EXR_RGBA_ZIP:
	case ENG_SEQGEN_EXR_RGB_PIZ:
	case ENG_SEQGEN_EXR_RGBA_PIZ:
		return exr_header(im, NULL);
	case ENG_SEQGEN_RAW8:
		return 0;
	default:
		return 0;
	}
}

uint64_t eng_seqgen_file_bytes(const struct eng_seqgen_image *im)
{
	uint64_t head = eng_seqgen_header_bytes(im), rows = im->height, n;
	int exr = is_exr(im->kind);

	if (!head && im->kind != ENG_SEQGEN_RAW8)
		return 0;
	if (!im->width || !im->height || im->width > SIZE_MAX_SIDE ||
	    im->height > SIZE_MAX_SIDE)
		return 0;
	/* a ZIP or PIZ chunk that would not shrink is stored */
	n = head + rows * row_data(im) +
	    (exr ? 8 * (uint64_t)exr_chunks(im) : 0);
	if (!exr && im->kind != ENG_SEQGEN_RAW8 && n > UINT32_MAX)
		return 0;
	return n;
}

static uint32_t bcd2(uint32_t v)
{
	return (v / 10) << 4 | (v % 10);
}

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static void dpx_header(const struct eng_seqgen_image *im, int64_t number,
		       struct eng_fps fps, unsigned char *o)
{
	int bits16 = im->kind == ENG_SEQGEN_DPX16;
	uint32_t size = (uint32_t)eng_seqgen_file_bytes(im);
	uint32_t rate = fps.den ? (fps.num + fps.den / 2) / fps.den : 0;
	float f = fps.den ? (float)fps.num / (float)fps.den : 0.0f;
	uint32_t tc = 0xffffffffu;
	const uint64_t e = 780; /* image element 1 */

	/* undefined fields are all ones (ST 268), strings NUL */
	memset(o, 0xff, ENG_SEQGEN_DPX_HEADER);
	memset(o + 8, 0, 8);	  /* version */
	memset(o + 36, 0, 624);	  /* file name .. copyright */
	memset(o + 1432, 0, 188); /* orientation's strings */
	memset(o + 1664, 0, 48);  /* film codes, format */
	memset(o + 1732, 0, 132); /* frame id, slate */
	memcpy(o, "SDPX", 4);
	be_at(o, 4, ENG_SEQGEN_DPX_HEADER, 4);
	memcpy(o + 8, "V2.0", 4);
	be_at(o, 16, size, 4);
	be_at(o, 20, 1, 4);    /* ditto key: new frame */
	be_at(o, 24, 1664, 4); /* generic header */
	be_at(o, 28, 384, 4);  /* industry header */
	be_at(o, 32, 0, 4);    /* user data */
	memcpy(o + 160, "timelinefs-gen", 14);
	be_at(o, 768, 0, 2); /* orientation: left to right, top down */
	be_at(o, 770, 1, 2); /* one image element */
	be_at(o, 772, im->width, 4);
	be_at(o, 776, im->height, 4);
	be_at(o, e + 0, 0, 4);			    /* unsigned */
	be_at(o, e + 4, 0, 4);			    /* reference low */
	be_at(o, e + 12, bits16 ? 65535 : 1023, 4); /* reference high */
	o[e + 20] = 50;				    /* RGB */
	o[e + 21] = 2;				    /* linear */
	o[e + 22] = 2;				    /* linear */
	o[e + 23] = bits16 ? 16 : 10;
	be_at(o, e + 24, bits16 ? 0 : 1, 2); /* packing: method A */
	be_at(o, e + 26, 0, 2);		     /* no encoding */
	be_at(o, e + 28, ENG_SEQGEN_DPX_HEADER, 4);
	be_at(o, e + 32, 0, 4); /* end-of-line padding */
	be_at(o, e + 36, 0, 4); /* end-of-image padding */
	memset(o + e + 40, 0, 32);
	if (number >= 0) {
		be_at(o, 1712, (uint32_t)number, 4); /* frame position */
		if (rate) {
			uint64_t n = (uint64_t)number, fr = n % rate,
				 s = n / rate;

			tc = bcd2((uint32_t)(s / 3600 % 24)) << 24 |
			     bcd2((uint32_t)(s / 60 % 60)) << 16 |
			     bcd2((uint32_t)(s % 60)) << 8 |
			     bcd2((uint32_t)(fr % 100));
		}
	}
	if (rate) {
		be_at(o, 1724, float_bits(f), 4); /* film frame rate */
		be_at(o, 1940, float_bits(f), 4); /* TV frame rate */
	}
	be_at(o, 1920, tc, 4);
	be_at(o, 1924, 0, 4); /* user bits */
}

static void tiff_ifd(const struct eng_seqgen_image *im, unsigned char *o)
{
	static const uint16_t tags[13] = {256, 257, 258, 259, 262, 273, 277,
					  278, 279, 282, 283, 284, 296};
	uint32_t ns = tiff_strips(im), i, data = (uint32_t)tiff_header(im);
	uint32_t strip = (uint32_t)(ENG_SEQGEN_TIFF_ROWS * row_data(im));
	uint32_t so = 192, sc = 192 + 4 * ns;
	/* type (3 SHORT, 4 LONG, 5 RATIONAL), count, value or offset */
	uint32_t ty[13] = {4, 4, 3, 3, 3, 4, 3, 4, 4, 5, 5, 3, 3};
	uint32_t cn[13] = {1, 1, 3, 1, 1, ns, 1, 1, ns, 1, 1, 1, 1};
	uint32_t va[13] = {im->width, im->height,	    170, 1,   2,   so,
			   3,	      ENG_SEQGEN_TIFF_ROWS, sc,	 176, 184, 1,
			   2};
	uint64_t at = 10;

	memset(o, 0, data);
	memcpy(o, "II*\0", 4);
	le_at(o, 4, 8, 4);
	le_at(o, 8, 13, 2);
	if (ns == 1) { /* a value of 4 bytes or less is in its entry */
		va[5] = data;
		va[8] = (uint32_t)(row_data(im) * im->height);
	}
	for (i = 0; i < 13; i++, at += 12) {
		le_at(o, at, tags[i], 2);
		le_at(o, at + 2, ty[i], 2);
		le_at(o, at + 4, cn[i], 4);
		le_at(o, at + 8, va[i], ty[i] == 3 && cn[i] == 1 ? 2 : 4);
	}
	le_at(o, at, 0, 4); /* no next IFD */
	for (i = 0; i < 3; i++)
		le_at(o, 170 + 2 * i, 16, 2);
	le_at(o, 176, 72, 4);
	le_at(o, 180, 1, 4);
	le_at(o, 184, 72, 4);
	le_at(o, 188, 1, 4);
	for (i = 0; ns > 1 && i < ns; i++) {
		uint32_t rows = im->height - i * ENG_SEQGEN_TIFF_ROWS;

		if (rows > ENG_SEQGEN_TIFF_ROWS)
			rows = ENG_SEQGEN_TIFF_ROWS;
		le_at(o, so + 4 * i, data + i * strip, 4);
		le_at(o, sc + 4 * i, (uint32_t)(rows * row_data(im)), 4);
	}
}

/* The half float of c / 1024 (c a 10-bit value): exact. */
static uint16_t half_of10(uint32_t c)
{
	uint32_t e = 9;

	if (!c)
		return 0;
	while (!(c >> e))
		e--;
	return (uint16_t)((e + 5) << 10 | ((c - (1u << e)) << (10 - e)));
}

/* Row y's components on the 16-bit scale, R G B per pixel. */
static void row_values(const struct eng_seqgen_image *im,
		       const struct eng_pic_layout *l, struct eng_rng *r,
		       uint32_t clip_id, uint64_t frame, uint32_t y,
		       uint16_t *v, unsigned char *lev)
{
	uint32_t n = 3 * im->width, i, x;
	unsigned char *b = (unsigned char *)v;

	/* bytes from the stream, read in a fixed byte order */
	eng_rng_fill(r, b, 2 * (size_t)n);
	for (i = n; i-- > 0;)
		v[i] = (uint16_t)(b[2 * i] | b[2 * i + 1] << 8);
	if (!eng_pic_overlay_row(l, clip_id, frame, y, lev))
		return;
	for (x = 0; x < 6 * l->groups; x++) {
		unsigned char lv = lev[x / 6];

		if (lv == ENG_PIC_KEEP)
			continue;
		for (i = 3 * x; i < 3 * x + 3; i++)
			v[i] = (uint16_t)((v[i] & LOW16) |
					  (lv == ENG_PIC_WHITE ? WHITE16
							       : BLACK16));
	}
}

static void put_row(const struct eng_seqgen_image *im, const uint16_t *v,
		    uint32_t y, unsigned char *o)
{
	uint32_t x, c, w = im->width, nc = channels(im->kind);

	switch (im->kind) {
	case ENG_SEQGEN_DPX10:
		for (x = 0; x < w; x++)
			be_at(o, 4 * (uint64_t)x,
			      (uint32_t)(v[3 * x] >> 6) << 22 |
				  (uint32_t)(v[3 * x + 1] >> 6) << 12 |
				  (uint32_t)(v[3 * x + 2] >> 6) << 2,
			      4);
		break;
	case ENG_SEQGEN_DPX16:
		for (x = 0; x < 3 * w; x++)
			be_at(o, 2 * (uint64_t)x, v[x], 2);
		break;
	case ENG_SEQGEN_TIFF16:
		for (x = 0; x < 3 * w; x++)
			le_at(o, 2 * (uint64_t)x, v[x], 2);
		break;
	case ENG_SEQGEN_EXR_RGB:
	case ENG_SEQGEN_EXR_RGBA:
	case ENG_SEQGEN_EXR_RGB_ZIP:
	case ENG_SEQGEN_EXR_RGBA_ZIP:
		(void)y;
		/* channels in name order: (A) B G R, each a whole line */
		for (c = 0; c < nc; c++) {
			uint32_t rgb = nc == 4 ? (c ? 3 - c : 3) : 2 - c;

			for (x = 0; x < w; x++)
				le_at(o, 2 * ((uint64_t)c * w + x),
				      rgb == 3 ? EXR_HALF_ONE
					       : half_of10(v[3 * x + rgb] >> 6),
				      2);
		}
		break;
	default:
		for (x = 0; x < 3 * w; x++)
			o[x] = (unsigned char)(v[x] >> 8);
	}
}

/* ZIP of one chunk's raw bytes (OpenEXR's ImfZip): the bytes split into
 * the even ones then the odd ones, each then the difference to the one
 * before plus 128, deflated.  The deflated bytes at dst, their count;
 * the raw bytes stored instead (their count) when that is not smaller. */
static uint64_t exr_zip(const unsigned char *raw, uint64_t n,
			unsigned char *tmp, unsigned char *dst)
{
	uint64_t i, half = (n + 1) / 2;
	uLongf dl = (uLongf)(n - 1);
	int p, d;

	for (i = 0; i < n; i++)
		tmp[(i & 1) ? half + i / 2 : i / 2] = raw[i];
	for (i = 1, p = tmp[0]; i < n; i++) {
		d = (int)tmp[i] - p + (128 + 256);
		p = tmp[i];
		tmp[i] = (unsigned char)d;
	}
	if (n > 1 &&
	    compress2(dst, &dl, tmp, (uLong)n, EXR_ZIP_LEVEL) == Z_OK && dl < n)
		return dl;
	memcpy(dst, raw, n);
	return n;
}

/* The chunks of an EXR file after its header: y, size, data. */
static int64_t exr_body(const struct eng_seqgen_image *im,
			const struct eng_pic_layout *l, struct eng_rng *r,
			uint32_t clip_id, uint64_t frame, uint16_t *v,
			unsigned char *lev, unsigned char *out)
{
	uint64_t head = eng_seqgen_header_bytes(im), at = head,
		 rd = row_data(im);
	uint64_t table = head - 8 * (uint64_t)exr_chunks(im), n;
	uint32_t lines = exr_lines(im->kind), c, y, k;
	unsigned char *raw = NULL, *tmp = NULL;

	if (is_zip(im->kind)) {
		raw = malloc(lines * rd);
		tmp = malloc(lines * rd);
		if (!raw || !tmp) {
			free(raw);
			free(tmp);
			return -ENOMEM;
		}
	}
	for (c = 0, y = 0; c < exr_chunks(im); c++) {
		unsigned char *data = raw ? raw : out + at + 8;

		for (k = 0; k < lines && y < im->height; k++, y++) {
			row_values(im, l, r, clip_id, frame, y, v, lev);
			put_row(im, v, y, data + k * rd);
		}
		n = raw ? exr_zip(raw, k * rd, tmp, out + at + 8) : k * rd;
		le_at(out, table + 8 * (uint64_t)c, (uint32_t)at, 4);
		le_at(out, table + 8 * (uint64_t)c + 4, (uint32_t)(at >> 32),
		      4);
		le_at(out, at, y - k, 4);
		le_at(out, at + 4, (uint32_t)n, 4);
		at += 8 + n;
	}
	free(raw);
	free(tmp);
	return (int64_t)at;
}

int64_t eng_seqgen_render(const struct eng_seqgen_image *im, uint64_t seed,
			  uint32_t clip_id, uint64_t frame, int64_t number,
			  struct eng_fps fps, unsigned char *out)
{
	uint16_t v[3 * SIZE_MAX_SIDE];
	unsigned char lev[SIZE_MAX_SIDE / 6 + 1];
	struct eng_picture pic = {ENG_PIX_2VUY, im->width, im->height};
	uint64_t head = eng_seqgen_header_bytes(im), at, stride;
	struct eng_pic_layout l;
	struct eng_rng r;
	uint32_t y;

	if (!eng_seqgen_file_bytes(im))
		return -EINVAL;
	if (eng_seqgen_plain(im->kind))
		return -ENOTSUP;
	eng_pic_layout(&pic, &l);
	eng_rng_seed(&r, eng_rng_derive(seed, frame, NOISE_DOMAIN));
	if (is_exr(im->kind)) {
		exr_header(im, out);
		return exr_body(im, &l, &r, clip_id, frame, v, lev, out);
	}
	if (im->kind == ENG_SEQGEN_DPX10 || im->kind == ENG_SEQGEN_DPX16)
		dpx_header(im, number, fps, out);
	else if (im->kind == ENG_SEQGEN_TIFF16)
		tiff_ifd(im, out);
	stride = row_data(im);
	for (y = 0, at = head; y < im->height; y++, at += stride) {
		row_values(im, &l, &r, clip_id, frame, y, v, lev);
		put_row(im, v, y, out + at);
	}
	return (int64_t)at;
}
