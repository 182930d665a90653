/* SPDX-License-Identifier: MIT */
/*
 * The WAVE header of an audio track file (ingest.h): written whole at
 * open with unknown sizes, as FFmpeg's wavenc writes to a file it cannot
 * seek back in, and patched at close or by the repair.  Essence starts at
 * ENG_INGEST_WAV_DATA so that the audio is 4 KiB aligned.
 */
#include <string.h>

#include "ingest/ingest.h"
#include "media/media.h"

#define WAV_BITS 24
#define WAV_BLOCK (WAV_BITS / 8)	/* one channel */
/* where the chunks are (ingest.h's table) */
#define AT_DS64 12
#define AT_FMT 48
#define AT_PAD 72
#define DS64_BYTES 28
#define PATCH_BYTES (AT_DS64 + 8 + DS64_BYTES)

static void le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void le32(unsigned char *p, uint32_t v)
{
	le16(p, (uint16_t)v);
	le16(p + 2, (uint16_t)(v >> 16));
}

static void le64(unsigned char *p, uint64_t v)
{
	le32(p, (uint32_t)v);
	le32(p + 4, (uint32_t)(v >> 32));
}

static void chunk(unsigned char *p, const char *tag, uint32_t size)
{
	memcpy(p, tag, 4);
	le32(p + 4, size);
}

void eng_ingest_wav_header(unsigned char out[ENG_INGEST_WAV_DATA],
			   uint32_t sample_rate)
{
	memset(out, 0, ENG_INGEST_WAV_DATA);
	chunk(out, "RIFF", UINT32_MAX);
	memcpy(out + 8, "WAVE", 4);
	/* wavenc's room for a ds64 chunk, should the file pass 4 GiB */
	chunk(out + AT_DS64, "JUNK", DS64_BYTES);
	chunk(out + AT_FMT, "fmt ", 16);
	le16(out + AT_FMT + 8, 1);		/* WAVE_FORMAT_PCM */
	le16(out + AT_FMT + 10, 1);		/* channels */
	le32(out + AT_FMT + 12, sample_rate);
	le32(out + AT_FMT + 16, sample_rate * WAV_BLOCK);
	le16(out + AT_FMT + 20, WAV_BLOCK);
	le16(out + AT_FMT + 22, WAV_BITS);
	chunk(out + AT_PAD, "JUNK", ENG_INGEST_WAV_DATA - 8 - AT_PAD - 8);
	chunk(out + ENG_INGEST_WAV_DATA - 8, "data", UINT32_MAX);
}

/* The RIFF size of a file of `essence` bytes and its pad: file - 8. */
static uint64_t riff_size(uint64_t essence)
{
	return ENG_INGEST_WAV_DATA - 8 + essence + (essence & 1);
}

void eng_ingest_wav_patch(unsigned char out[80], size_t *len,
			  uint32_t sample_rate, uint64_t essence, int *pad)
{
	uint64_t riff = riff_size(essence);

	(void)sample_rate;
	memset(out, 0, PATCH_BYTES);
	memcpy(out + 8, "WAVE", 4);
	/* the first 48 bytes whole, whatever they held: a repair of a file
	 * patched before leaves what this close would */
	if (riff < UINT32_MAX) {
		chunk(out, "RIFF", (uint32_t)riff);
		chunk(out + AT_DS64, "JUNK", DS64_BYTES);
	} else {
		/* EBU Tech 3306: the 32-bit sizes stay all ones */
		chunk(out, "RF64", UINT32_MAX);
		chunk(out + AT_DS64, "ds64", DS64_BYTES);
		le64(out + AT_DS64 + 8, riff);
		le64(out + AT_DS64 + 16, essence);
		le64(out + AT_DS64 + 24, essence / WAV_BLOCK);
		/* table length 0 */
	}
	*len = PATCH_BYTES;
	*pad = (int)(essence & 1);
}

void eng_ingest_wav_patch_data(unsigned char out[4], uint64_t essence)
{
	le32(out, riff_size(essence) < UINT32_MAX ? (uint32_t)essence
						   : UINT32_MAX);
}

uint64_t eng_ingest_track_essence(const unsigned char *head, size_t n,
				  uint64_t file_size)
{
	uint64_t off, size;

	if (eng_wav_data(head, n, &off, &size) < 0)
		return file_size;
	if (file_size <= off)
		return 0;
	return size < file_size - off ? size : file_size - off;
}
