/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the media readers (engine/media/mfile.h:
 * QuickTime/MP4 through libavformat, MXF, WAV/BWF/RF64/AIFF) over a file
 * in memory: any bytes give streams or an error with a message, never a
 * crash, a leak or undefined behaviour; every frame and audio chunk a
 * reader returns lies inside the file, and a range of audio samples maps
 * to extents inside it.
 *   make fuzz (tests/run-fuzz.sh) builds and runs it on
 *   build/fuzz/seed/media (tests/fuzz/corpus/media: files ffmpeg made)
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/log.h>

#include "media/mfile.h"
#include "util/diag.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* libavformat's complaints about bad files are not findings */
	av_log_set_level(AV_LOG_QUIET);
	return 0;
}

static void check_stream(const struct eng_essence *e, uint64_t size)
{
	struct eng_extent ext[4];
	int64_t k, s = 0;
	size_t c;
	int n, i;

	if (e->kind == ENG_ESS_VIDEO) {
		for (k = 0; k < e->nframes; k++) {
			if (e->off[k] > size || e->len[k] > size - e->off[k] ||
			    e->len[k] < e->len_min || e->len[k] > e->len_max)
				__builtin_trap();
			if (e->dep &&
			    (e->dep[k] < 0 || e->dep[k] >= e->nframes))
				__builtin_trap();
			if (e->decode &&
			    (e->decode[k] < 0 || e->decode[k] >= e->nframes))
				__builtin_trap();
		}
		return;
	}
	/* compressed audio (AAC): packets of their own sizes, no block */
	if (e->kind == ENG_ESS_AUDIO && e->pts) {
		if (e->block || e->npackets < 0 || !e->off || !e->len)
			__builtin_trap();
		for (k = 0; k < e->npackets; k++)
			if (e->off[k] > size || e->len[k] > size - e->off[k])
				__builtin_trap();
		return;
	}
	if (e->kind != ENG_ESS_AUDIO || !e->block)
		__builtin_trap();
	for (c = 0; c < e->nchunks; c++) {
		const struct eng_chunk *ch = &e->chunks[c];

		if (ch->first != s || !ch->count || ch->off > size ||
		    (uint64_t)ch->count * e->block > size - ch->off)
			__builtin_trap();
		s += ch->count;
	}
	if (s != e->nsamples)
		__builtin_trap();
	/* the middle third of the samples, as a timeline frame reads them */
	n = eng_essence_samples(e, e->nsamples / 3, e->nsamples / 3, ext,
				(int)(sizeof(ext) / sizeof(ext[0])));
	for (i = 0; i < n; i++)
		if (ext[i].off > size || ext[i].len > size - ext[i].off)
			__builtin_trap();
	if (n < 0 && n != -E2BIG)
		__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eng_mem m;
	struct eng_src src;
	struct eng_diag d = {0};
	struct eng_mfile *mf = calloc(1, sizeof(*mf));
	size_t i;
	int rc;

	if (!mf)
		return 0;
	eng_src_mem(&src, &m, "fuzz.mov", data, size);
	rc = eng_mfile_read(&src, mf, &d);
	if (rc == 0) {
		for (i = 0; i < mf->nstreams; i++)
			check_stream(&mf->streams[i], size);
	} else if (rc != -ENOMEM && d.n == 0) {
		__builtin_trap(); /* a failure says why */
	} else if (mf->streams || mf->nstreams || mf->format) {
		__builtin_trap(); /* and leaves nothing behind */
	}
	eng_mfile_free(mf);
	eng_diag_free(&d);
	return 0;
}
