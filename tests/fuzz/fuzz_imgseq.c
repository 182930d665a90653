/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for engine/media/imgseq.c over a file in memory: any
 * bytes give the pixel data of a DPX, TIFF or EXR frame or an error with a
 * message, never a crash, a leak or undefined behaviour; every run of
 * pixel data lies inside the file, and the runs add up to their bytes,
 * never 0; a failure is one message (the reader allocates nothing).
 * The input's first 20 bytes also make a name (start, step, padding):
 * a name or -ERANGE/-ENAMETOOLONG, its length what it returns.
 *   make fuzz (tests/run-fuzz.sh) builds and runs it on
 *   build/fuzz/seed/imgseq (tests/fuzz/corpus/imgseq: files ffmpeg made,
 *   and headers claiming huge or empty tables: strips50m.tif, rows50m.exr,
 *   strips3000.tif, zerostrips.tif, dataend.dpx)
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "media/imgseq.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const uint8_t *data, size_t size)
{
	struct eng_seq_name s = { "base", "p.", ".dpx", 0, 1, 0 };
	char buf[48];
	int64_t k;
	int n;

	if (size < 21)
		return;
	memcpy(&s.start, data, 8);
	memcpy(&s.step, data + 8, 4);	/* steps of 32 bits: k * step can
					 * still overflow with start */
	s.step = (int32_t)s.step;
	memcpy(&k, data + 12, 8);
	s.padding = data[20] % 80;
	n = eng_seq_name_of(&s, k, buf, sizeof(buf));
	if (n >= 0 ? (size_t)n != strlen(buf) || memcmp(buf, "base/p.", 7) :
	    (n != -ERANGE && n != -ENAMETOOLONG) || buf[0])
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eng_mem m;
	struct eng_src src;
	struct eng_diag d = { 0 };
	struct eng_seq_pixels px;
	uint64_t sum = 0;
	int reads, rc;

	check_name(data, size);
	eng_src_mem(&src, &m, "fuzz.0001.dpx", data, size);
	rc = eng_seq_pixels_of(&src, &px, &reads, &d);
	if (rc == 0) {
		if (px.n < 1 || px.n > ENG_SEQ_EXTENTS || d.n)
			__builtin_trap();
		for (int i = 0; i < px.n; i++) {
			if (px.ext[i].off > size ||
			    px.ext[i].len > size - px.ext[i].off)
				__builtin_trap();
			sum += px.ext[i].len;
		}
		if (sum != px.bytes || !px.bytes)
			__builtin_trap();
	} else if (d.n != 1) {
		__builtin_trap(); /* a failure says why, once */
	}
	eng_diag_free(&d);
	return 0;
}
