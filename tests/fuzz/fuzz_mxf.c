/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the MXF reader (engine/media/mxf.c): any bytes
 * give the file's streams or an error, never a crash, undefined
 * behaviour or a read outside the file, and every frame and chunk found
 * lies inside the file.
 *   make fuzz (tests/run-fuzz.sh) builds and runs it on
 *   build/fuzz/seed/mxf (tests/fuzz/corpus/mxf: small ffmpeg-made files)
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "media/mfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct mem {
	const uint8_t *data;
	size_t size;
};

static long read_mem(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;

	if (off > m->size)
		__builtin_trap();	/* the reader asked past the end */
	if (len > m->size - off)
		len = m->size - off;
	memcpy(buf, m->data + off, len);
	return (long)len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mem m = { data, size };
	struct eng_src src = { "fuzz.mxf", size, read_mem, &m };
	struct eng_diag diag = { 0 };
	struct eng_mfile *mf = calloc(1, sizeof(*mf));

	if (!mf)
		return 0;
	if (eng_mfile_read_mxf(&src, mf, &diag) == 0) {
		for (size_t i = 0; i < mf->nstreams; i++) {
			const struct eng_essence *e = &mf->streams[i];

			for (int64_t k = 0; k < e->nframes; k++)
				if (e->off[k] > size || e->len[k] > size -
				    e->off[k] || (e->dep && (e->dep[k] < 0 ||
				    e->dep[k] >= e->nframes)))
					__builtin_trap();
			for (size_t c = 0; c < e->nchunks; c++)
				if (e->chunks[c].off > size ||
				    (uint64_t)e->chunks[c].count * e->block >
				    size - e->chunks[c].off)
					__builtin_trap();
		}
	} else if (mf->nstreams || mf->streams || mf->format) {
		__builtin_trap();	/* an error leaves *out empty */
	}
	eng_mfile_free(mf);
	eng_diag_free(&diag);
	return 0;
}
