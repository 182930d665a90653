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

/* A note's words: the owner's lines (eng_ingest_owner_text) first. */
enum { W_HOST, W_MACHINE, W_BOOT, W_PID, W_LOCK, W_RUN, W_PRESET, W_STATE,
       W_FRAMES, W_N };
static const char *const words[W_N] = { "host", "machine", "boot",
					"pid",  "lock",    "run",
					"preset", "state", "frames" };

/* The word line (n bytes) begins with: its W_*, its value's start in
 * *rest; -1 for none. */
static int word_of(const char *line, size_t n, size_t *rest)
{
	size_t wl;
	int w;

	for (w = 0; w < W_N; w++) {
		wl = strlen(words[w]);
		if (n > wl + 1 && memcmp(line, words[w], wl) == 0 &&
		    line[wl] == ' ') {
			*rest = wl + 1;
			return w;
		}
	}
	return -1;
}

/* Owner line w's value v into o (a value that does not fit its field
 * is left out, as a pid line that is not two numbers). */
static void owner_line(struct eng_ingest_owner *o, int w, const char *v)
{
	char *field[] = { [W_HOST] = o->host, [W_MACHINE] = o->machine,
			  [W_BOOT] = o->boot, [W_RUN] = o->run };
	size_t size[] = { [W_HOST] = sizeof(o->host),
			  [W_MACHINE] = sizeof(o->machine),
			  [W_BOOT] = sizeof(o->boot),
			  [W_RUN] = sizeof(o->run) };
	long long pid;
	unsigned long long start;

	if (w == W_PID) {
		if (sscanf(v, "%lld %llu", &pid, &start) == 2 && pid > 0) {
			o->pid = pid;
			o->pid_start = start;
		}
	} else if (w == W_LOCK) {
		o->lock_shared = strcmp(v, "shared") == 0;
	} else if (strlen(v) < size[w]) {
		strcpy(field[w], v);
	}
}

/* The preset, state or frames line w's value v: 0, or 1 (said). */
static int note_line(const char *file, unsigned lineno, int w,
		     const char *v, struct eng_ingest_format *f,
		     char state[16], struct eng_diag *diag)
{
	static const char *const states[] = { "recording", "closed",
					      "repaired", "failed" };
	const size_t nstates = sizeof(states) / sizeof(states[0]);
	int64_t frames;
	size_t s;

	if (w == W_PRESET) {
		if (eng_ingest_format_of(v, f, NULL) == 0)
			return 0;
		eng_diag_add(diag, file, lineno,
			     "no preset '%s' (timelinefs-gen --format list)",
			     v);
		return 1;
	}
	if (w == W_STATE) {
		for (s = 0; s < nstates; s++)
			if (strcmp(v, states[s]) == 0)
				break;
		if (s < nstates) {
			strcpy(state, states[s]);
			return 0;
		}
		eng_diag_add(diag, file, lineno,
			     "no state '%s' (recording, closed, repaired, "
			     "failed)", v);
		return 1;
	}
	if (eng_parse_int(v, &frames) == 0)
		return 0;
	eng_diag_add(diag, file, lineno, "frames '%s' is not a count", v);
	return 1;
}

int eng_ingest_note_parse(const char *file, const char *text, size_t len,
			  struct eng_ingest_format *f, char state[16],
			  struct eng_ingest_owner *owner,
			  struct eng_diag *diag)
{
	int have_preset = 0, have_state = 0, bad = 0, w, fits;
	char val[80];
	size_t i = 0, n, r = 0;
	unsigned lineno = 0;
	const char *line;

	if (owner)
		memset(owner, 0, sizeof(*owner));
	while ((line = eng_next_line(text, len, &i, &n))) {
		lineno++;
		if (n == 0 || line[0] == '#')
			continue;
		w = word_of(line, n, &r);
		if (w < 0) {
			eng_diag_add(diag, file, lineno,
				     "not a line of a note: '%.*s'",
				     (int)(n > 40 ? 40 : n), line);
			bad = 1;
			continue;
		}
		fits = n - r < sizeof(val) && !memchr(line + r, 0, n - r);
		if (fits) {
			memcpy(val, line + r, n - r);
			val[n - r] = '\0';
		}
		/* whose it is: a value that does not fit is no owner's */
		if (w < W_PRESET) {
			if (owner && fits)
				owner_line(owner, w, val);
			continue;
		}
		if (!fits) {
			eng_diag_add(diag, file, lineno,
				     "the value is too long");
			bad = 1;
			continue;
		}
		have_preset |= w == W_PRESET;
		have_state |= w == W_STATE;
		bad |= note_line(file, lineno, w, val, f, state, diag);
	}
	if (!have_preset)
		eng_diag_add(diag, file, 0, "no preset line");
	if (!have_state)
		eng_diag_add(diag, file, 0, "no state line");
	return bad || !have_preset || !have_state ? -EINVAL : 0;
}
