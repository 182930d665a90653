/* SPDX-License-Identifier: MIT */
/*
 * Checks shared by the EDL and OTIO parser tests (test_edl.c, test_otio.c):
 * the public samples under ../shared/samples, tracks and segments against a
 * table, and messages.  Include after <cmocka.h> and the parser headers.
 */
#ifndef PARSER_CHECK_H
#define PARSER_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct want_seg {
	const char *track;
	size_t idx;		/* index among the track's sorted segments */
	const char *clip;
	int64_t src_in, rec_in, frames;
	unsigned line;		/* 0: not checked */
};

/* "V:3 A1:1 Vx:1": the declared tracks in order with their segment
 * counts. */
static inline void check_tracks(const struct eng_timeline *tl,
				const char *want)
{
	char got[512] = "";
	size_t t, n = 0;

	for (t = 0; t < tl->ntracks && n < sizeof(got); t++)
		n += (size_t)snprintf(got + n, sizeof(got) - n, "%s%s:%zu",
				      t ? " " : "", tl->tracks[t].name,
				      tl->tracks[t].nsegs);
	assert_string_equal(got, want);
}

/* Each w[i] (up to n, or the first without a track) is segment w[i].idx
 * of its track. */
static inline void check_segs(const struct eng_timeline *tl,
			      const struct want_seg *w, size_t n)
{
	size_t i;

	for (i = 0; i < n && w[i].track; i++) {
		int t = eng_tl_find_track(tl, w[i].track);
		const struct eng_segment *s;

		if (t < 0)
			fail_msg("no track %s", w[i].track);
		if (w[i].idx >= tl->tracks[t].nsegs)
			fail_msg("track %s has %zu segments, want index %zu",
				 w[i].track, tl->tracks[t].nsegs, w[i].idx);
		s = &tl->tracks[t].segs[w[i].idx];
		if (strcmp(tl->clips[s->clip].name, w[i].clip) != 0 ||
		    s->src_in != w[i].src_in || s->rec_in != w[i].rec_in ||
		    s->frames != w[i].frames ||
		    (w[i].line && s->line != w[i].line))
			fail_msg("track %s seg %zu: '%s' src %lld rec %lld "
				 "frames %lld line %u; want '%s' src %lld rec "
				 "%lld frames %lld line %u", w[i].track, w[i].idx,
				 tl->clips[s->clip].name, (long long)s->src_in,
				 (long long)s->rec_in, (long long)s->frames,
				 s->line, w[i].clip, (long long)w[i].src_in,
				 (long long)w[i].rec_in, (long long)w[i].frames,
				 w[i].line);
	}
}

/* Every source frame is read once per record frame: a transition track
 * "Tx" never reads, at some frame, the clip frame its main track "T"
 * reads there (the outgoing side of a transition belongs on Tx only). */
static inline void check_read_once(const struct eng_timeline *tl)
{
	size_t t, i, j;

	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *m = &tl->tracks[t], *x;
		char xname[ENG_TRACK_NAME_MAX + 1];
		int xt;

		snprintf(xname, sizeof(xname), "%sx", m->name);
		xt = eng_tl_find_track(tl, xname);
		if (xt < 0)
			continue;
		x = &tl->tracks[xt];
		for (i = 0; i < m->nsegs; i++)
			for (j = 0; j < x->nsegs; j++) {
				const struct eng_segment *a = &m->segs[i];
				const struct eng_segment *b = &x->segs[j];
				int64_t lo = a->rec_in > b->rec_in ? a->rec_in
								   : b->rec_in;
				int64_t hi = a->rec_in + a->frames <
						     b->rec_in + b->frames
						 ? a->rec_in + a->frames
						 : b->rec_in + b->frames;

				if (a->clip == b->clip && lo < hi &&
				    a->src_in - a->rec_in ==
					b->src_in - b->rec_in)
					fail_msg("%s and %s both read '%s' "
						 "source %lld at frames "
						 "%lld..%lld",
						 m->name, x->name,
						 tl->clips[a->clip].name,
						 (long long)(a->src_in + lo -
							     a->rec_in),
						 (long long)lo,
						 (long long)hi - 1);
			}
	}
}

static inline int has_msg(const struct eng_diag *d, const char *want)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strstr(d->msgs[i], want))
			return 1;
	return 0;
}

static inline void print_diag(const struct eng_diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		print_message("  diag: %s\n", d->msgs[i]);
}

static inline void assert_msg(const struct eng_diag *d, const char *want)
{
	if (!has_msg(d, want)) {
		print_diag(d);
		fail_msg("no message containing '%s'", want);
	}
}

/* Read the public sample FILE from $TLFS_SHARED/samples (default
 * ../shared/samples, the checkout's sibling) into *text; returns its
 * malloc'ed path.  Skips the test when the sample is not there, so that
 * a tree without the shared folder still runs the rest. */
static inline char *sample_read(const char *file, char **text, size_t *len)
{
	const char *shared = getenv("TLFS_SHARED");
	char *path;

	if (!shared)
		shared = "../shared";
	assert_true(asprintf(&path, "%s/samples/%s", shared, file) > 0);
	if (access(path, R_OK) != 0) {
		print_message("skip: %s not found (set TLFS_SHARED)\n", path);
		free(path);
		skip();
	}
	assert_int_equal(eng_read_file(path, text, len), 0);
	return path;
}

#endif /* PARSER_CHECK_H */
