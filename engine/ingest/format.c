/* SPDX-License-Identifier: MIT */
/*
 * The format of a record stream (ingest.h): a timelinefs-gen preset as
 * tracks V, A1 .., the names writers create, and the interleave's sizes,
 * by the virtual file's own closed form so that a recording plays as a
 * clip of a timeline of that preset byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "ingest/ingest.h"
#include "media/genplan.h"
#include "media/picture.h"
#include "timeline/layout.h"

int eng_ingest_format_of(const char *name, struct eng_ingest_format *f,
			 struct eng_diag *diag)
{
	const struct eng_gen_format *g;
	uint64_t pic;
	uint32_t t;
	size_t n;

	if (!name || !*name)
		g = eng_gen_formats(&n);
	else
		g = eng_gen_format_find(name);
	if (!g) {
		eng_diag_add(diag, "ingest", 0,
			     "no preset '%s' (timelinefs-gen --format list)",
			     name);
		return -ENOENT;
	}
	if (g->audio_tracks > ENG_INGEST_TRACKS_MAX - 1) {
		eng_diag_add(diag, "ingest", 0,
			     "preset '%s' has %u audio tracks, more than %d",
			     g->name, g->audio_tracks,
			     ENG_INGEST_TRACKS_MAX - 1);
		return -EINVAL;
	}
	memset(f, 0, sizeof(*f));
	snprintf(f->preset, sizeof(f->preset), "%s", g->name);
	f->fps = g->fps;
	f->ntracks = 1 + g->audio_tracks;
	/* track V as timelinefs-gen writes it (its .tl "track V" line and
	 * clip files): a picture's bytes for an uncompressed preset, else
	 * a rate of align 1.  DNxHD's fixed frame size is not an align: its
	 * rate is rounded down, so that align would make frame 0 empty. */
	pic = eng_picture_bytes(&g->pic);
	strcpy(f->track[0], "V");
	f->rate[0] = g->video_rate;
	f->align[0] = pic ? (uint32_t)pic : 1;
	for (t = 1; t < f->ntracks; t++) {
		snprintf(f->track[t], sizeof(f->track[t]), "A%u", t);
		f->rate[t] = g->audio_rate;
		f->align[t] = ENG_GEN_AUDIO_ALIGN;
	}
	f->sample_rate = (uint32_t)(g->audio_rate / ENG_GEN_AUDIO_ALIGN);
	return 0;
}

/* A track file's own suffix: ".V.raw", ".A<digits>.wav".  A writer's
 * name that ends so would read as another recording's track file. */
static int track_suffix(const char *s, size_t n)
{
	size_t i;

	if (n >= 6 && memcmp(s + n - 6, ".V.raw", 6) == 0)
		return 1;
	if (n < 7 || memcmp(s + n - 4, ".wav", 4) != 0)
		return 0;
	i = n - 4;
	while (i > 0 && eng_is_digit(s[i - 1]))
		i--;
	return i < n - 4 && i >= 2 && s[i - 1] == 'A' && s[i - 2] == '.';
}

/* The rules of a recording's name s[0..n): 0 or the reason. */
static const char *name_problem(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return "the name is empty";
	if ((n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
		return "the name is . or ..";
	for (i = 0; i < n; i++) {
		if (s[i] == '/')
			return "the name has a '/'";
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return "the name has a control character";
	}
	if (track_suffix(s, n))
		return "the name ends as a track file (.V.raw, .A<n>.wav)";
	return NULL;
}

int eng_ingest_name(const char *file, const struct eng_ingest_format *dflt,
		    char *name, size_t len, struct eng_ingest_format *f,
		    const char **why)
{
	size_t n = strnlen(file, 256), i, np, best = 0, cnt;
	const struct eng_gen_format *g = eng_gen_formats(&cnt);
	const char *p;

	if (n > 200) {
		*why = "the name is longer than 200 bytes";
		return -EINVAL;
	}
	*why = name_problem(file, n);
	if (*why)
		return -EINVAL;
	/* the longest preset that ends the name after a '.' */
	for (i = 0; i < cnt; i++) {
		np = strlen(g[i].name);
		if (np + 1 < n && np > best && file[n - np - 1] == '.' &&
		    memcmp(file + n - np, g[i].name, np) == 0)
			best = np;
	}
	np = best ? n - best - 1 : n;
	if (best) {
		*why = name_problem(file, np);
		if (*why)
			return -EINVAL;
	}
	if (np + 1 > len) {
		*why = "the name is too long";
		return -EINVAL;
	}
	memcpy(name, file, np);
	name[np] = '\0';
	if (!best) {
		*f = *dflt;
		return 0;
	}
	p = file + np + 1;
	if (eng_ingest_format_of(p, f, NULL) < 0) {
		*why = "the name's preset has too many audio tracks";
		return -EINVAL;
	}
	return 0;
}

uint64_t eng_ingest_upto(const struct eng_ingest_format *f, uint32_t t,
			 int64_t k)
{
	return eng_upto_rate(f->rate[t], f->align[t], f->fps, k);
}

uint64_t eng_ingest_frame_offset(const struct eng_ingest_format *f, int64_t k)
{
	uint64_t off = 0;
	uint32_t t;

	for (t = 0; t < f->ntracks; t++)
		off += eng_ingest_upto(f, t, k);
	return off;
}

/* Bytes of track t before frame k; t ALL: of every track. */
#define ALL UINT32_MAX
static uint64_t bytes_before(const struct eng_ingest_format *f, uint32_t t,
			     int64_t k)
{
	return t == ALL ? eng_ingest_frame_offset(f, k)
			: eng_ingest_upto(f, t, k);
}

/* The last k whose bytes_before is <= off: they grow with k. */
static int64_t last_frame(const struct eng_ingest_format *f, uint32_t t,
			  uint64_t off)
{
	int64_t lo = 0, hi = 1, mid;

	while (hi < (INT64_C(1) << 40) && bytes_before(f, t, hi) <= off)
		hi *= 2;
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (bytes_before(f, t, mid) <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int64_t eng_ingest_frame_at(const struct eng_ingest_format *f, uint64_t off)
{
	return last_frame(f, ALL, off);
}

int64_t eng_ingest_frames_in(const struct eng_ingest_format *f, uint32_t t,
			     uint64_t bytes)
{
	return last_frame(f, t, bytes);
}

uint64_t eng_ingest_frame_max(const struct eng_ingest_format *f)
{
	unsigned __int128 num, den;
	uint64_t sum = 0;
	uint32_t t;

	/* each frame of t holds floor(q) or ceil(q) units of align */
	for (t = 0; t < f->ntracks; t++) {
		num = (unsigned __int128)f->rate[t] * f->fps.den;
		den = (unsigned __int128)f->fps.num * f->align[t];
		sum += (uint64_t)((num + den - 1) / den) * f->align[t];
	}
	return sum;
}

void eng_ingest_track_file(const struct eng_ingest_format *f, uint32_t t,
			   const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.%s.%s", ENG_INGEST_DIR, name, f->track[t],
		 t == 0 ? "raw" : "wav");
}
