/* SPDX-License-Identifier: MIT */
/*
 * OpenEXR files whose compression only OpenEXR's own C library makes
 * (PIZ: a wavelet and Huffman coder too long to keep a copy of): the
 * picture of the uncompressed kind (engine/media/seqgen.h
 * eng_seqgen_plain), its lines given to OpenEXRCore, which writes the
 * file into memory.  Here, not in engine/, so that only timelinefs-gen
 * links the library.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openexr.h>

#include "gen.h"

/* The file in memory that OpenEXRCore writes. */
struct mem_file {
	unsigned char *out;
	uint64_t cap, len;
};

static int64_t mem_write(exr_const_context_t ctxt, void *user, const void *buf,
			 uint64_t sz, uint64_t offset,
			 exr_stream_error_func_ptr_t error_cb)
{
	struct mem_file *m = user;

	if (offset > m->cap || sz > m->cap - offset) {
		error_cb(ctxt, EXR_ERR_WRITE_IO,
			 "file larger than its most of %llu bytes",
			 (unsigned long long)m->cap);
		return -1;
	}
	memcpy(m->out + offset, buf, sz);
	if (offset + sz > m->len)
		m->len = offset + sz;
	return (int64_t)sz;
}

/* The library's messages go to stderr, ours first. */
static void exr_error(exr_const_context_t ctxt, exr_result_t code,
		      const char *msg)
{
	(void)ctxt;
	fprintf(stderr, PROG ": openexr: %s: %s\n",
		exr_get_error_code_as_string(code), msg);
}

static exr_compression_t compression_of(uint32_t kind)
{
	switch (kind) {
	case ENG_SEQGEN_EXR_RGB_PIZ:
	case ENG_SEQGEN_EXR_RGBA_PIZ:
		return EXR_COMPRESSION_PIZ;
	default:
		return EXR_COMPRESSION_LAST_TYPE;
	}
}

/* The part: the channels and attributes seqgen.c writes itself for the
 * other EXR kinds, in the same order of names (A) B G R. */
static exr_result_t define_part(exr_context_t ctxt,
				const struct eng_seqgen_image *im, uint32_t nc)
{
	static const char *const names[] = {"A", "B", "G", "R"};
	exr_result_t rc;
	int part;
	uint32_t c;

	rc = exr_add_part(ctxt, NULL, EXR_STORAGE_SCANLINE, &part);
	if (rc == EXR_ERR_SUCCESS)
		rc = exr_initialize_required_attr_simple(
		    ctxt, part, (int32_t)im->width, (int32_t)im->height,
		    compression_of(im->kind));
	for (c = 4 - nc; rc == EXR_ERR_SUCCESS && c < 4; c++)
		rc = exr_add_channel(ctxt, part, names[c], EXR_PIXEL_HALF,
				     EXR_PERCEPTUALLY_LOGARITHMIC, 1, 1);
	if (rc == EXR_ERR_SUCCESS)
		rc = exr_write_header(ctxt);
	return rc;
}

/* Each chunk's lines from the plain file: line y's data is at
 * head + y * (8 + row) + 8, its channels one after another. */
static exr_result_t write_chunks(exr_context_t ctxt,
				 const struct eng_seqgen_image *im,
				 const unsigned char *plain, uint64_t head,
				 uint32_t nc)
{
	exr_encode_pipeline_t enc = EXR_ENCODE_PIPELINE_INITIALIZER;
	uint64_t row = 2 * (uint64_t)im->width * nc, at;
	exr_chunk_info_t ci;
	exr_result_t rc = EXR_ERR_SUCCESS;
	int32_t y = 0, made = 0, c;

	while (rc == EXR_ERR_SUCCESS && y < (int32_t)im->height) {
		rc = exr_write_scanline_chunk_info(ctxt, 0, y, &ci);
		if (rc != EXR_ERR_SUCCESS)
			break;
		rc = made ? exr_encoding_update(ctxt, 0, &ci, &enc)
			  : exr_encoding_initialize(ctxt, 0, &ci, &enc);
		if (rc != EXR_ERR_SUCCESS)
			break;
		at = head + (uint64_t)ci.start_y * (8 + row) + 8;
		for (c = 0; c < enc.channel_count; c++) {
			exr_coding_channel_info_t *ch = &enc.channels[c];

			ch->encode_from_ptr =
			    plain + at + 2 * (uint64_t)c * im->width;
			ch->user_pixel_stride = 2;
			ch->user_line_stride = (int32_t)(8 + row);
			ch->user_bytes_per_element = 2;
			ch->user_data_type = EXR_PIXEL_HALF;
		}
		if (!made)
			rc =
			    exr_encoding_choose_default_routines(ctxt, 0, &enc);
		made = 1;
		if (rc == EXR_ERR_SUCCESS)
			rc = exr_encoding_run(ctxt, 0, &enc);
		y = ci.start_y + ci.height;
	}
	if (made)
		exr_encoding_destroy(ctxt, &enc);
	return rc;
}

int64_t gen_seq_render(const struct eng_seqgen_image *im, uint64_t seed,
		       uint32_t clip_id, uint64_t frame, int64_t number,
		       struct eng_fps fps, unsigned char *out)
{
	exr_context_initializer_t init = EXR_DEFAULT_CONTEXT_INITIALIZER;
	struct eng_seqgen_image plain = *im;
	struct mem_file m = {out, eng_seqgen_file_bytes(im), 0};
	exr_context_t ctxt = NULL;
	unsigned char *raw;
	exr_result_t rc;
	int64_t len;
	uint32_t nc;

	plain.kind = eng_seqgen_plain(im->kind);
	if (!plain.kind)
		return eng_seqgen_render(im, seed, clip_id, frame, number, fps,
					 out);
	if (!m.cap)
		return -EINVAL;
	raw = malloc(eng_seqgen_file_bytes(&plain));
	if (!raw)
		return -ENOMEM;
	len = eng_seqgen_render(&plain, seed, clip_id, frame, number, fps, raw);
	if (len < 0) {
		free(raw);
		return len;
	}
	nc = plain.kind == ENG_SEQGEN_EXR_RGBA ? 4 : 3;
	init.user_data = &m;
	init.write_fn = mem_write;
	init.error_handler_fn = exr_error;
	rc =
	    exr_start_write(&ctxt, "frame.exr", EXR_WRITE_FILE_DIRECTLY, &init);
	if (rc == EXR_ERR_SUCCESS)
		rc = define_part(ctxt, im, nc);
	if (rc == EXR_ERR_SUCCESS)
		rc = write_chunks(ctxt, im, raw,
				  eng_seqgen_header_bytes(&plain), nc);
	/* the offset table is written at the finish */
	if (ctxt && exr_finish(&ctxt) != EXR_ERR_SUCCESS &&
	    rc == EXR_ERR_SUCCESS)
		rc = EXR_ERR_WRITE_IO;
	free(raw);
	if (rc == EXR_ERR_OUT_OF_MEMORY)
		return -ENOMEM;
	if (rc != EXR_ERR_SUCCESS)
		return -EIO;
	return (int64_t)m.len;
}
