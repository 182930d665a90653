/* SPDX-License-Identifier: MIT */
/*
 * A recording's note, NAME.rec (ingest.h): a few lines of text that say
 * what its track files are (the preset) and whether they were closed, so
 * that the repair and a person need nothing else.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest.h"

#define NOTE_HEAD "# timelinefs recording (docs/formats.md \"Ingest\")\n"

int eng_ingest_note_text(const struct eng_ingest_format *f,
			 const char *state, int64_t frames, char **text)
{
	return eng_ingest_note_text_owned(f, state, frames, NULL, text);
}

int eng_ingest_note_text_owned(const struct eng_ingest_format *f,
			       const char *state, int64_t frames,
			       const struct eng_ingest_owner *o, char **text)
{
	char *s, owner[512];
	int n;

	if (eng_ingest_owner_text(o, owner, sizeof(owner)) < 0)
		return -EINVAL;
	if (frames < 0)
		n = asprintf(&s, NOTE_HEAD "preset %s\nstate %s\n%s",
			     f->preset, state, owner);
	else
		n = asprintf(&s,
			     NOTE_HEAD "preset %s\nstate %s\nframes %" PRId64
				       "\n%s",
			     f->preset, state, frames, owner);
	if (n < 0)
		return -ENOMEM;
	*text = s;
	return 0;
}

static int is_word(const char *line, size_t n, const char *w, size_t *rest)
{
	size_t wl = strlen(w);

	if (n <= wl + 1 || memcmp(line, w, wl) != 0 || line[wl] != ' ')
		return 0;
	*rest = wl + 1;
	return 1;
}

int eng_ingest_note_parse(const char *file, const char *text, size_t len,
			  struct eng_ingest_format *f, char state[16],
			  struct eng_diag *diag)
{
	static const char *const states[] = { "recording", "closed",
					      "repaired", "failed" };
	const size_t nstates = sizeof(states) / sizeof(states[0]);
	int have_preset = 0, have_state = 0, bad = 0;
	char val[80];
	size_t i = 0, n, r, s;
	unsigned lineno = 0;
	const char *line;
	int64_t frames;

	while ((line = eng_next_line(text, len, &i, &n))) {
		lineno++;
		/* whose it is: read by eng_ingest_note_owner */
		if (n == 0 || line[0] == '#' || eng_ingest_owner_word(line, n))
			continue;
		if (is_word(line, n, "preset", &r) ||
		    is_word(line, n, "state", &r) ||
		    is_word(line, n, "frames", &r)) {
			if (n - r >= sizeof(val) || memchr(line + r, 0, n - r)) {
				eng_diag_add(diag, file, lineno,
					     "the value is too long");
				bad = 1;
				continue;
			}
			memcpy(val, line + r, n - r);
			val[n - r] = '\0';
		} else {
			eng_diag_add(diag, file, lineno,
				     "not a line of a note: '%.*s'",
				     (int)(n > 40 ? 40 : n), line);
			bad = 1;
			continue;
		}
		if (line[0] == 'p') {
			if (eng_ingest_format_of(val, f, NULL) < 0) {
				eng_diag_add(diag, file, lineno,
					     "no preset '%s' (timelinefs-gen "
					     "--format list)", val);
				bad = 1;
			}
			have_preset = 1;
		} else if (line[0] == 's') {
			for (s = 0; s < nstates; s++)
				if (strcmp(val, states[s]) == 0)
					break;
			if (s == nstates) {
				eng_diag_add(diag, file, lineno,
					     "no state '%s' (recording, "
					     "closed, repaired, failed)", val);
				bad = 1;
			} else {
				strcpy(state, states[s]);
			}
			have_state = 1;
		} else if (eng_parse_int(val, &frames) < 0) {
			eng_diag_add(diag, file, lineno,
				     "frames '%s' is not a count", val);
			bad = 1;
		}
	}
	if (!have_preset)
		eng_diag_add(diag, file, 0, "no preset line");
	if (!have_state)
		eng_diag_add(diag, file, 0, "no state line");
	return bad || !have_preset || !have_state ? -EINVAL : 0;
}
