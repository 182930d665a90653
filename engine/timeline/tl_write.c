/* SPDX-License-Identifier: MIT */
/*
 * Serialize a finalized timeline (from any parser) as .tl text with an
 * explicit @REC for every segment: the resolved edit, readable by the .tl
 * parser and by tests/tools/tlexpect.py, which only know .tl.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/model.h"
#include "timeline/timecode.h"
#include "timeline/tl.h"
#include "util/diag.h"
#include "util/strbuf.h"


static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' ||
	       c == '\n';
}

/* A .tl word ends at a blank and one starting with '#' is a comment
 * (engine/timeline/tl_parse.c): such clip names have no plain .tl spelling. */
static int tl_word_ok(const char *s)
{
	if (*s == '#')
		return 0;
	for (; *s; s++)
		if (is_blank(*s))
			return 0;
	return 1;
}

static int needs_escape(const char *s)
{
	for (; *s; s++)
		if (is_blank(*s) || *s == '#' || *s == '%')
			return 1;
	return 0;
}

/* The parser reads %XX in a clip word as the byte XX, so a '%' is always
 * written %25; blanks and '#' only when asked (else they were refused). */
static void put_name(struct eng_strbuf *b, const char *name, unsigned flags)
{
	const char *s;

	for (s = name; *s && !b->err; s++)
		if (*s == '%' || ((flags & ENG_TL_WRITE_ESCAPE) &&
				  (is_blank(*s) || *s == '#')))
			eng_strbuf_printf(b, "%%%02X", (unsigned char)*s);
		else
			eng_strbuf_printf(b, "%c", *s);
}

/* The path in the header comment, with line breaks made harmless. */
static void put_comment_path(struct eng_strbuf *b, const char *path)
{
	const char *s;

	for (s = path; *s && !b->err; s++)
		eng_strbuf_printf(b, "%c", *s == '\n' || *s == '\r' ? '?' : *s);
}

/*
 * "seq CLIP PATTERN first=N [step=S] [missing=P]" for each sequence clip a
 * segment plays, in clip order.  A .tl sequence's source frame 0 is its
 * image 0 (origin 0), so first= is the number of the image the clip's
 * source frame 0 plays (an EDL's origin folded in): the same files.  In
 * the pattern '%' is %% (eng_seq_pattern), a blank %20 and '#' %23, which
 * tl_parse.c reads back.  And "record CLIP" for each recorded clip a
 * segment plays (never a sequence): the dump of a timeline cutting a
 * recording mounts as it did.
 */
static int put_seqs(struct eng_strbuf *b, const struct eng_timeline *tl,
		    const unsigned char *used, unsigned flags,
		    struct eng_diag *diag)
{
	char *pat = NULL;
	size_t i, n;
	int64_t first;
	int rc = 0;
	const char *p;

	for (i = 0; i < tl->nclips; i++) {
		const struct eng_seq_ref *r = tl->clips[i].seq;

		if (used[i] && tl->clips[i].record) {
			eng_strbuf_printf(b, "record ");
			put_name(b, tl->clips[i].name, flags);
			eng_strbuf_printf(b, "\n");
		}
		if (!r || !used[i])
			continue;
		/* every '%' doubled, a '/' and the number's "%064d" */
		n = 2 * (strlen(r->base) + strlen(r->prefix) +
			 strlen(r->suffix)) + 8;
		free(pat);
		pat = malloc(n);
		if (!pat) {
			rc = -ENOMEM;
			break;
		}
		if (eng_seq_pattern(r, pat, n) < 0 ||
		    __builtin_mul_overflow(r->origin, r->step, &first) ||
		    __builtin_add_overflow(first, r->start, &first)) {
			eng_diag_add(diag, tl->path, r->line,
				     "sequence clip '%s' cannot be written "
				     "as .tl: its first image's number is "
				     "out of range",
				     tl->clips[i].name);
			rc = -EINVAL;
			continue;
		}
		eng_strbuf_printf(b, "seq ");
		put_name(b, tl->clips[i].name, flags);
		eng_strbuf_printf(b, " ");
		for (p = pat; *p; p++)
			if (*p == ' ' || *p == '#')
				eng_strbuf_printf(b, "%%%02X", (unsigned char)*p);
			else
				eng_strbuf_printf(b, "%c", *p);
		eng_strbuf_printf(b, " first=%" PRId64, first);
		if (r->step != 1)
			eng_strbuf_printf(b, " step=%" PRId64, r->step);
		if (r->missing != ENG_SEQ_MISS_ERROR)
			eng_strbuf_printf(b, " missing=%s",
					  eng_seq_missing_name(r->missing));
		eng_strbuf_printf(b, "\n");
	}
	free(pat);
	return rc;
}

/* What a clip line says of a clip (tl_clip_says). */
enum {
	SAYS_FILE = 1,		/* file=: its media are the file it names */
	SAYS_ORIGIN = 2,	/* origin=: its source counts from a timecode */
	SAYS_TC = 4,		/* its SRC_INs as its media's timecodes */
};

/*
 * The clip line a clip needs for its dump to mount as the same edit.  Of
 * a timeline whose media are resolved (eng_media_resolve): file= where a
 * track plays the file the timeline names, origin= where a track's media
 * have a start timecode, and then SRC_INs as that timecode (a number
 * anyone can find in the media).  Unresolved, what the timeline says:
 * the media may be either.
 */
static unsigned tl_clip_says(const struct eng_timeline *tl, size_t c)
{
	const struct eng_clip *cl = &tl->clips[c];
	int named = 0, timed = 0;
	unsigned says = 0;
	size_t t;

	for (t = 0; cl->media && t < tl->ntracks; t++) {
		const struct eng_media *m = &cl->media[t];

		timed |= m->start_tc != NULL;
		named |= cl->file && m->file && !m->seq &&
			 strcmp(m->file, cl->file) == 0;
	}
	if (cl->file && (!cl->media || named))
		says |= SAYS_FILE;
	if (cl->tc_set && (!cl->media || timed))
		says |= SAYS_ORIGIN | (timed ? SAYS_TC : 0);
	return says;
}

/* used[c]: a segment plays clip c (USED_CLIP), its source frame 0 among
 * them (USED_FRAME0: then the earliest of its timecode SRC_INs is its
 * origin, and origin= need not be written). */
enum { USED_CLIP = 1, USED_FRAME0 = 2 };

/* "clip CLIP [file=NAME] [origin=TC]" for each clip a segment plays that
 * needs one (tl_clip_says); says[c] what it said. */
static int put_clips(struct eng_strbuf *b, const struct eng_timeline *tl,
		     const unsigned char *used, unsigned char *says,
		     unsigned flags, struct eng_diag *diag)
{
	char tc[16];
	size_t i;
	int rc = 0;

	for (i = 0; i < tl->nclips; i++) {
		const struct eng_clip *cl = &tl->clips[i];

		says[i] = used[i] ? (unsigned char)tl_clip_says(tl, i) : 0;
		if ((says[i] & SAYS_TC) && (used[i] & USED_FRAME0))
			says[i] &= (unsigned char)~SAYS_ORIGIN;
		if (!(says[i] & (SAYS_FILE | SAYS_ORIGIN)))
			continue;
		if ((says[i] & SAYS_ORIGIN) &&
		    eng_tc_format_exact(cl->tc, tl->fps, cl->tc_drop, tc,
					sizeof(tc)) < 0) {
			eng_diag_add(diag, tl->path, cl->line,
				     "clip '%s' cannot be written as .tl: its "
				     "origin (frame %lld) is no timecode of "
				     "00 to 99 hours", cl->name,
				     (long long)cl->tc);
			rc = -EINVAL;
			continue;
		}
		eng_strbuf_printf(b, "clip ");
		put_name(b, cl->name, flags);
		if (says[i] & SAYS_FILE) {
			eng_strbuf_printf(b, " file=");
			put_name(b, cl->file, flags | ENG_TL_WRITE_ESCAPE);
		}
		if (says[i] & SAYS_ORIGIN)
			eng_strbuf_printf(b, " origin=%s", tc);
		eng_strbuf_printf(b, "\n");
	}
	return rc;
}

/* An event's SRC_IN: the media's timecode where the clip says so and it
 * can be written (within 99 hours), else the source frame. */
static void put_src(struct eng_strbuf *b, const struct eng_timeline *tl,
		    const struct eng_segment *s, unsigned says)
{
	const struct eng_clip *cl = &tl->clips[s->clip];
	char tc[16];

	if ((says & SAYS_TC) && s->src_in <= INT64_MAX / 4 &&
	    eng_tc_format_exact(cl->tc + s->src_in, tl->fps, cl->tc_drop, tc,
				sizeof(tc)) == 0)
		eng_strbuf_printf(b, " %s", tc);
	else
		eng_strbuf_printf(b, " %" PRId64, s->src_in);
}

int eng_tl_write(const struct eng_timeline *tl, unsigned flags, char **text,
		 size_t *len, struct eng_diag *diag)
{
	struct eng_strbuf b = {0};
	unsigned char *told = NULL, *used = NULL, *says = NULL;
	size_t t, i, nbad = 0, nesc = 0;
	int rc;

	*text = NULL;
	*len = 0;
	told = calloc(tl->nclips + 1, 1);
	if (!told)
		return -ENOMEM;
	for (t = 0; t < tl->ntracks; t++)
		for (i = 0; i < tl->tracks[t].nsegs; i++) {
			const struct eng_segment *s = &tl->tracks[t].segs[i];
			const char *name = tl->clips[s->clip].name;

			if (told[s->clip])
				continue;
			told[s->clip] = 1;
			if (flags & ENG_TL_WRITE_ESCAPE) {
				nesc += needs_escape(name);
				continue;
			}
			nesc += strchr(name, '%') != NULL;
			if (tl_word_ok(name))
				continue;
			nbad++;
			eng_diag_add(diag, tl->path, s->line,
				     "clip '%s' cannot be written as .tl: its "
				     "name has a blank or starts with '#'",
				     name);
		}
	free(told);
	if (nbad)
		return -EINVAL;

	eng_strbuf_printf(&b, "# %s resolved from ", tl->name);
	put_comment_path(&b, tl->path);
	eng_strbuf_printf(&b,
		  ": %" PRId64 " frames, every segment at its record frame\n",
		  tl->frames);
	if (nesc)
		eng_strbuf_printf(&b, "# in clip names %%XX is the byte a blank, '#' "
			      "or '%%' was\n");
	eng_strbuf_printf(&b, "fps %" PRIu32 "/%" PRIu32 "\n", tl->fps.num,
		  tl->fps.den);
	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *tr = &tl->tracks[t];

		if (tr->pic.pix != ENG_PIX_NONE)
			eng_strbuf_printf(&b, "track %s %s %" PRIu32 "x%" PRIu32,
					  tr->name, eng_pix_name(tr->pic.pix),
					  tr->pic.width, tr->pic.height);
		else
			eng_strbuf_printf(&b, "track %s %" PRIu64, tr->name,
					  tr->rate);
		if (tr->pic.pix == ENG_PIX_NONE && tr->align != 1)
			eng_strbuf_printf(&b, " align=%" PRIu32, tr->align);
		/* real media of variable frame sizes (eng_tl_layout_media):
		 * no rate says its bytes, the media does */
		if (tr->upto)
			eng_strbuf_printf(&b, " # frames of its media's sizes, "
					  "%" PRIu64 " bytes: the rate is "
					  "their average", tr->upto[tl->frames]);
		eng_strbuf_printf(&b, "\n");
	}
	used = calloc(tl->nclips + 1, 1);
	says = calloc(tl->nclips + 1, 1);
	rc = -ENOMEM;
	if (!used || !says)
		goto out;
	for (t = 0; t < tl->ntracks; t++)
		for (i = 0; i < tl->tracks[t].nsegs; i++) {
			const struct eng_segment *s = &tl->tracks[t].segs[i];

			used[s->clip] |= USED_CLIP |
					 (s->src_in == 0 ? USED_FRAME0 : 0);
		}
	rc = put_clips(&b, tl, used, says, flags, diag);
	if (rc == 0)
		rc = put_seqs(&b, tl, used, flags, diag);
	if (rc < 0)
		goto out;
	for (t = 0; t < tl->ntracks; t++) {
		const struct eng_track *tr = &tl->tracks[t];

		for (i = 0; i < tr->nsegs; i++) {
			const struct eng_segment *s = &tr->segs[i];

			eng_strbuf_printf(&b, "event %s ", tr->name);
			put_name(&b, tl->clips[s->clip].name, flags);
			put_src(&b, tl, s, says[s->clip]);
			eng_strbuf_printf(&b, " %" PRId64 " @%" PRId64 "\n",
					  s->frames, s->rec_in);
		}
	}
	rc = b.err;
	if (rc == 0) {
		*text = b.p;
		*len = b.len;
		b.p = NULL;
	}
out:
	free(b.p);
	free(used);
	free(says);
	return rc;
}
