/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the .tl parser: any bytes give a timeline or
 * messages, never a crash, leak, hang or undefined behaviour.  A timeline
 * that parses is also written back (eng_tl_write, plain and escaped) and
 * parsed again, which must give the same edit (and sequence clips the same
 * files, recorded clips recorded), and planned for
 * timelinefs-gen --for.
 *   make fuzz (tests/run-fuzz.sh) builds and runs it on build/fuzz/seed/tl
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "media/genplan.h"
#include "timeline/model.h"
#include "timeline/tl.h"
#include "util/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Two sequence clips (or none) that play the same files: a written
 * sequence has origin 0, its first= the image source frame 0 plays. */
static int same_seq(const struct eng_seq_ref *x, const struct eng_seq_ref *y)
{
	if (!x || !y)
		return !x && !y;
	return !strcmp(x->base, y->base) && !strcmp(x->prefix, y->prefix) &&
	       !strcmp(x->suffix, y->suffix) && x->step == y->step &&
	       x->padding == y->padding && x->missing == y->missing &&
	       y->origin == 0 && x->start + x->origin * x->step == y->start;
}

/* The same tracks and segments (clip names compared, lines aside), and
 * the same sequences and recorded clips. */
static int same_edit(const struct eng_timeline *a, const struct eng_timeline *b)
{
	size_t t, i;

	if (a->fps.num != b->fps.num || a->fps.den != b->fps.den ||
	    a->ntracks != b->ntracks || a->frames != b->frames ||
	    a->bytes != b->bytes)
		return 0;
	for (t = 0; t < a->ntracks; t++) {
		const struct eng_track *x = &a->tracks[t], *y = &b->tracks[t];

		if (strcmp(x->name, y->name) || x->rate != y->rate ||
		    x->align != y->align || x->nsegs != y->nsegs)
			return 0;
		for (i = 0; i < x->nsegs; i++)
			if (x->segs[i].src_in != y->segs[i].src_in ||
			    x->segs[i].rec_in != y->segs[i].rec_in ||
			    x->segs[i].frames != y->segs[i].frames ||
			    strcmp(a->clips[x->segs[i].clip].name,
				   b->clips[y->segs[i].clip].name) ||
			    !same_seq(a->clips[x->segs[i].clip].seq,
				      b->clips[y->segs[i].clip].seq) ||
			    !a->clips[x->segs[i].clip].record !=
				    !b->clips[y->segs[i].clip].record)
				return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eng_timeline *tl = NULL, *back = NULL;
	struct eng_gen_media_plan plan = { 0 };
	struct eng_diag d = { 0 };
	char *text = NULL;
	size_t len;

	if (eng_tl_parse("fuzz.tl", "fuzz", (const char *)data, size, &tl,
			 &d) == 0) {
		/* without escapes the names are as they were: same edit */
		if (eng_tl_write(tl, 0, &text, &len, &d) == 0) {
			if (eng_tl_parse("back.tl", "back", text, len, &back,
					 &d) != 0 ||
			    !same_edit(tl, back))
				__builtin_trap();
			free(text);
			text = NULL;
		}
		/* escaped, %XX parses back to the same names: same edit */
		if (eng_tl_write(tl, ENG_TL_WRITE_ESCAPE, &text, &len, &d) < 0)
			__builtin_trap();
		eng_tl_free(back);
		back = NULL;
		if (eng_tl_parse("esc.tl", "esc", text, len, &back, &d) != 0 ||
		    !same_edit(tl, back))
			__builtin_trap();
		eng_gen_media_add(&plan, tl, 1, &d);
	}
	free(text);
	eng_gen_media_free(&plan);
	eng_tl_free(back);
	eng_tl_free(tl);
	eng_diag_free(&d);
	return 0;
}
