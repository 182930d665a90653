/* SPDX-License-Identifier: MIT */
/*
 * CMX 3600 EDL parser: a lenient, token-based reader of edit decision lists
 * that builds the timeline an NLE would play from them (timeline/model.h).
 *
 * How an EDL maps onto the timeline model (docs/formats.md has a copy):
 *
 *  - Lines: "TITLE:", "FCM: DROP FRAME" / "FCM: NON-DROP FRAME" (applies to
 *    the events after it), event lines "NNN REEL CHANNEL TRANSITION
 *    [DURATION] SRC_IN SRC_OUT REC_IN REC_OUT" (3 to 6 digit event number,
 *    reel up to 128 bytes), "M2 REEL SPEED TC", "AUD 3 [4]", comments
 *    ("* ..."; "REM ..."), "EFFECTS NAME IS ...".  Line ends LF, CRLF or CR;
 *    blank lines anywhere; bytes >= 0x80 (ISO-8859-1) are kept as they are.
 *    Any other line is ignored, or an error with opt->strict.
 *  - Frame rate: opt->fps, unless a "* FPS: RATE" comment before the first
 *    event says otherwise.  Timecodes count nominal frames (30 at 29.97);
 *    one whose last separator is ';', '.' or ',', or any timecode under
 *    "FCM: DROP FRAME", is drop-frame: frame numbers 0-1 (0-3 at 59.94) are
 *    skipped at every minute not divisible by ten.  Drop frame needs 29.97
 *    or 59.94 fps; a timecode that does not exist is an error.
 *  - Tracks: channel V -> V; A -> A1; A2 -> A2; AN -> AN (N <= 99);
 *    AA -> A1+A2; B -> V+A1; combinations with '/' (A2/V -> V+A2, AA/V ->
 *    V+A1+A2); "AUD 3 4" adds A3, A4 to the event before it (both lines of
 *    a transition).  NONE: the event is skipped.  Only tracks used are
 *    declared, in this order: V, A1, A2, ..., then the transition tracks
 *    (below).  Rates: opt->video_rate (align 1) for video, or a picture
 *    track of opt->picture where one is given; opt->audio_rate and
 *    opt->audio_align for audio; transition tracks as their main track.
 *  - Record: the timeline starts at the earliest record-in of the EDL (so
 *    an edit recorded from 01:00:00:00 plays from frame 0); every event is
 *    placed by its record timecodes, whatever the order of the lines, and
 *    where events overlap on a track the later line wins.  Generator reels
 *    BL, BLK, BLACK, BARS are gaps (no segment, no read); as the model's
 *    timeline ends with its last segment, black at the very end is dropped.
 *  - Source: the clip is named by the event's "* SOURCE FILE:", else
 *    "* FROM CLIP:" / "* FROM FILE:", else "* FROM CLIP NAME:", else the
 *    reel.  Comment names lose any directory ('/' or '\') and their
 *    extension (a last ".EXT" of 1-5 letters/digits holding a letter):
 *    "* SOURCE FILE: /Volumes/media/A001C003.mov" -> clip A001C003; a
 *    reel is used as it is.  A comment belongs to the event line before
 *    it (but see Transitions).  The
 *    source timecode maps to a file frame by opt->edl_origin: MIN (default)
 *    makes the earliest source timecode the EDL uses for that clip frame 0;
 *    ZERO makes 00:00:00:00 frame 0; TC makes opt->edl_origin_tc frame 0
 *    (a source timecode before it is an error), counted as this EDL counts
 *    its timecodes: at its rate (FPS comment or opt->fps), drop frame when
 *    written with ';' or when its first event is under FCM: DROP FRAME.
 *  - Image sequences: a name comment whose file name is a sequence form
 *    (NAME.[START-END].EXT, NAME.%07d.EXT, NAME.#######.EXT, or an image
 *    file with a seven-digit number, see seq_place) makes the event's clip
 *    a sequence (model.h struct eng_seq_ref), named by NAME less its
 *    trailing separators, its folder the last one of the comment's path.
 *    Its source timecode is its file number (clip_seq), unless a
 *    [START-END] does not hold the event's source timecodes: then source
 *    in is file START, as OTIO's cmx_3600 adapter reads it.
 *  - Durations: an event plays its record duration.  When the source
 *    duration differs (and no M2 line applies) the record duration wins;
 *    with opt->strict it is an error.  An event with record out <= record
 *    in is an error, except the zero-length outgoing side of a transition.
 *  - Transitions: a dissolve "D NNN" or wipe "WCCC NNN" is two event lines
 *    with one event number: a cut from the outgoing source (usually zero
 *    length), then the incoming source.  As in an NLE both sources are read
 *    during the NNN transition frames: the incoming one on the main track
 *    (its record range), the outgoing one, continuing past its out point,
 *    on a parallel track named after the main one with an "x" (Vx, A1x, ...)
 *    from the incoming record in for NNN frames (at most the incoming
 *    event's length).  "* FROM CLIP NAME:" after the incoming line names
 *    the outgoing clip, "* TO CLIP NAME:" (TO CLIP:, TO FILE:) the
 *    incoming one.  A transition line without such a cut before it is an
 *    error.  Keys (K, KB, KO) are not modelled: the key line is read as a
 *    cut (an error with opt->strict).
 *  - Speed "M2 REEL SPEED TC" (SPEED in frames per second of timecode, e.g.
 *    25.0 is normal speed at 25 fps, 30.0 at 29.97): timeline frame k of the
 *    event reads source frame in + floor(k * |SPEED| / nominal fps); 0
 *    freezes on the source in; a negative speed plays the same span
 *    backwards, from its last frame down to the source in (how Premiere
 *    writes reverse events); the M2 timecode is checked, not used.  Since
 *    a segment reads consecutive frames, such
 *    an event becomes one segment per run of consecutive source frames (a
 *    freeze: one per frame); more than 100000 of them in one EDL is an error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "timeline/edl.h"
#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/timecode.h"
#include "util/diag.h"
#include "util/values.h"

#define EDL_REEL_MAX 128
#define EDL_AUDIO_MAX 99	/* A1 .. A99 */
/* Segments M2 events may make (the fuzz targets build with this too). */
#define EDL_SPEED_SEGS_MAX 100000
#define EDL_MAX_TOKENS 24	/* an event line has at most 11 */
#define EDL_SPEED_MAX 100000	/* fps: more is a typo, not an effect */

enum edl_trans { EDL_CUT, EDL_DISSOLVE, EDL_WIPE, EDL_KEY };

/* Priority of the comment that named an event's clip (higher wins). */
enum edl_name_prio {
	EDL_NAME_NONE,
	EDL_NAME_CLIP_NAME,	/* FROM CLIP NAME, TO CLIP NAME */
	EDL_NAME_CLIP_FILE,	/* FROM CLIP, FROM FILE, TO CLIP, TO FILE */
	EDL_NAME_SOURCE_FILE,	/* SOURCE FILE */
};

/* An image sequence a name comment gave (seq_form). */
struct edl_seq {
	char *base, *prefix, *suffix;
	int padding;
	int64_t start;		/* the number of a file it names */
	int has_start;		/* 0: %d / #### forms, which name none */
	int64_t end;		/* [START-END]'s END; has_end 0: no range */
	int has_end;
};

struct edl_event {
	unsigned line;
	unsigned num;
	char *reel;
	char *clip;		/* from a comment; NULL: the reel names it */
	char *file;		/* that comment's file name with its
				 * extension, NULL when it had none */
	struct edl_seq *seq;	/* that comment named an image sequence */
	enum edl_name_prio prio;
	int generator;		/* BL, BLACK, BARS: a gap */
	int none;		/* channel NONE: skipped */
	int video;
	unsigned __int128 audio; /* bit n: track An */
	enum edl_trans trans;
	int64_t tdur;		/* transition frames */
	int64_t src_in, src_out, rec_in, rec_out; /* timecode frames */
	int src_drop;		/* src_in counted drop frame */
	int speed;		/* an M2 line applies */
	int64_t speed_milli;	/* fps * 1000, negative: reverse */
	long partner;		/* other line of a transition, -1 none */
	int outgoing;		/* the cut before a transition's line */
	int clip_idx;		/* after clip resolution; -1 none */
};

struct edl_state {
	struct eng_problems pb;
	const struct eng_load_options *opt;
	struct eng_timeline *tl;
	struct eng_fps fps;
	unsigned nominal;	/* timecode frames per second: 30 at 29.97 */
	int fcm_drop;		/* FCM: DROP FRAME in effect */
	int events_seen;	/* an event line was read */
	int origin_drop;	/* FCM: DROP FRAME at the first event */
	int df_told;		/* drop frame at a wrong rate reported */
	unsigned fps_line;	/* the FPS comment, 0 none */
	struct edl_event *ev;
	size_t nev;
	size_t cap;
	size_t speed_segs;	/* segments made for M2 events so far */
	int64_t *clip_origin;	/* [nclips]: timecode frame of file frame 0 */
	size_t norigin;
	/* track indices, -1 unused */
	int vtrack, vxtrack;
	int atrack[EDL_AUDIO_MAX + 1], axtrack[EDL_AUDIO_MAX + 1];
};

/* A construct that is read but not modelled, or ignored: silent unless
 * the caller asked for strict parsing. */
static void __attribute__((format(printf, 3, 4)))
skipped(struct edl_state *st, unsigned line, const char *fmt, ...)
{
	va_list ap;

	if (!st->opt->strict)
		return;
	va_start(ap, fmt);
	eng_vproblem(&st->pb, line, fmt, ap);
	va_end(ap);
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!eng_is_digit(*s))
			return 0;
	return 1;
}

/* Only space and tab separate fields: bytes >= 0x80 are text. */
static int is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static int tokenize(char *s, char **tok, int max)
{
	int n = 0;

	for (;;) {
		while (is_blank(*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s && !is_blank(*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static char *trim(char *s)
{
	char *e;

	while (is_blank(*s))
		s++;
	e = s + strlen(s);
	while (e > s && is_blank(e[-1]))
		*--e = '\0';
	return s;
}

/* ------------------------------------------------------------------ */
/* Timecodes                                                           */

/* The problem of timecode s (as written) that eng_tc_parse or
 * eng_tc_frames refused with rc.  Drop frame at a rate without it is told
 * once: every timecode after it would say the same.  Returns -EINVAL. */
static int tc_problem(struct edl_state *st, unsigned line, const char *what,
		      const char *s, const struct eng_tc *tc, int rc)
{
	switch (rc) {
	case -ERANGE:
		if (tc->mm > 59 || tc->ss > 59)
			eng_problem(&st->pb, line, "%sbad timecode '%s': "
				    "minutes and seconds must be below 60",
				    what, s);
		else
			eng_problem(&st->pb, line, "%sbad timecode '%s': "
				    "frame %u at %u frames per second", what,
				    s, tc->ff, st->nominal);
		break;
	case -ENOTSUP:
		if (!st->df_told)
			eng_problem(&st->pb, line, "%sdrop-frame timecode "
				    "'%s' at %u/%u fps (drop frame needs "
				    "29.97 or 59.94)", what, s, st->fps.num,
				    st->fps.den);
		st->df_told = 1;
		break;
	case -ENOENT:
		eng_problem(&st->pb, line, "%stimecode '%s' does not exist in "
			    "drop frame (frames 00-%02u are skipped at minute "
			    "%02u)", what, s, st->nominal / 15 - 1, tc->mm);
		break;
	default:
		eng_problem(&st->pb, line, "%sbad timecode '%s' (expected "
			    "HH:MM:SS:FF)", what, s);
	}
	return -EINVAL;
}

/* "HH:MM:SS:FF" (or with ';', '.', ',' before FF, or under FCM: DROP
 * FRAME: drop frame) to a frame count at the EDL's nominal rate.  Reports
 * and returns -EINVAL. */
static int parse_tc(struct edl_state *st, unsigned line, const char *s,
		    int64_t *out)
{
	struct eng_tc tc;
	int rc = eng_tc_parse(s, &tc);

	if (rc == 0)
		rc = eng_tc_frames(&tc, st->fps, st->fcm_drop, out);
	return rc < 0 ? tc_problem(st, line, "", s, &tc, rc) : 0;
}

/* "[+-]DIGITS[.DIGITS]" frames per second, to thousandths (further
 * decimals are truncated). */
static int parse_speed(const char *s, int64_t *milli)
{
	int neg = 0, decimals = -1, digits = 0;
	int64_t v = 0;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (; *s; s++) {
		if (*s == '.' && decimals < 0) {
			decimals = 0;
			continue;
		}
		if (!eng_is_digit(*s))
			return -EINVAL;
		digits++;
		if (decimals >= 3)
			continue;
		if (decimals >= 0)
			decimals++;
		v = v * 10 + (*s - '0');
		if (v > (int64_t)EDL_SPEED_MAX * 1000)
			return -EINVAL;
	}
	if (!digits)
		return -EINVAL;
	for (decimals = decimals < 0 ? 0 : decimals; decimals < 3; decimals++)
		v *= 10;
	if (v > (int64_t)EDL_SPEED_MAX * 1000)
		return -EINVAL;
	*milli = neg ? -v : v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Event lines                                                         */

static int is_generator(const char *reel)
{
	return strcasecmp(reel, "BL") == 0 || strcasecmp(reel, "BLK") == 0 ||
	       strcasecmp(reel, "BLACK") == 0 || strcasecmp(reel, "BARS") == 0;
}

/* "V", "A", "A2", "AA", "B", "NONE" and '/' combinations such as "AA/V". */
static int parse_channel(struct edl_event *e, char *s)
{
	char *part, *save = NULL;

	if (strcasecmp(s, "NONE") == 0) {
		e->none = 1;
		return 0;
	}
	if (!*s || s[strlen(s) - 1] == '/' || *s == '/')
		return -EINVAL;
	for (part = strtok_r(s, "/", &save); part;
	     part = strtok_r(NULL, "/", &save)) {
		if (strcasecmp(part, "V") == 0) {
			e->video = 1;
		} else if (strcasecmp(part, "A") == 0) {
			e->audio |= (unsigned __int128)1 << 1;
		} else if (strcasecmp(part, "AA") == 0) {
			e->audio |= (unsigned __int128)3 << 1;
		} else if (strcasecmp(part, "B") == 0) {
			e->video = 1;
			e->audio |= (unsigned __int128)1 << 1;
		} else if ((part[0] == 'A' || part[0] == 'a') &&
			   all_digits(part + 1) && strlen(part + 1) <= 2 &&
			   atoi(part + 1) >= 1) {
			e->audio |= (unsigned __int128)1 << atoi(part + 1);
		} else {
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_tdur(struct edl_state *st, unsigned line, const char *s,
		      int64_t *out)
{
	if (!all_digits(s) || strlen(s) > 5) {
		eng_problem(&st->pb, line,
			    "bad transition duration '%s' (expected "
			    "frames, e.g. 030)", s);
		return -EINVAL;
	}
	*out = atol(s);
	return 0;
}

/* The tokens between the channel and the timecodes: C | D NNN | WCCC NNN
 * | K [B|O] [NNN] | KB [NNN] | KO [NNN]. */
static int parse_transition(struct edl_state *st, unsigned line,
			    struct edl_event *e, char **m, int nm)
{
	const char *t = m[0];
	int i = 1;

	if (strcasecmp(t, "C") == 0) {
		e->trans = EDL_CUT;
	} else if (strcasecmp(t, "D") == 0) {
		e->trans = EDL_DISSOLVE;
		if (nm < 2) {
			eng_problem(&st->pb, line,
				    "dissolve without a duration "
				    "(expected 'D NNN')");
			return -EINVAL;
		}
		if (parse_tdur(st, line, m[i++], &e->tdur) < 0)
			return -EINVAL;
	} else if ((t[0] == 'W' || t[0] == 'w') &&
		   (t[1] == '\0' || all_digits(t + 1))) {
		e->trans = EDL_WIPE;
		if (t[1] == '\0' && nm > 2 && all_digits(m[1]))
			i++;	/* "W 001 030": the wipe code apart */
		if (nm <= i) {
			eng_problem(&st->pb, line, "wipe without a duration "
				    "(expected 'WCCC NNN')");
			return -EINVAL;
		}
		if (parse_tdur(st, line, m[i++], &e->tdur) < 0)
			return -EINVAL;
	} else if (strcasecmp(t, "K") == 0 || strcasecmp(t, "KB") == 0 ||
		   strcasecmp(t, "KO") == 0) {
		e->trans = EDL_KEY;
		if (strcasecmp(t, "K") == 0 && nm > i &&
		    (strcasecmp(m[i], "B") == 0 || strcasecmp(m[i], "O") == 0))
			i++;
		if (nm > i && parse_tdur(st, line, m[i++], &e->tdur) < 0)
			return -EINVAL;
		skipped(st, line, "key transitions are not supported (read "
			"as a cut)");
	} else {
		eng_problem(&st->pb, line,
			    "unknown transition '%s' (expected C, D, "
			    "W or K)", t);
		return -EINVAL;
	}
	if (i < nm) {
		eng_problem(&st->pb, line,
			    "unexpected '%s' after the transition", m[i]);
		return -EINVAL;
	}
	return 0;
}

static int push_event(struct edl_state *st, const struct edl_event *e)
{
	if (st->nev == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 64;
		struct edl_event *n = realloc(st->ev, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		st->ev = n;
		st->cap = cap;
	}
	st->ev[st->nev++] = *e;
	return 0;
}

/* The line of a transition pairs with the cut line just before it that
 * has the same event number. */
static void pair_transition(struct edl_state *st, struct edl_event *e)
{
	struct edl_event *prev = st->nev ? &st->ev[st->nev - 1] : NULL;

	if (!prev || prev->num != e->num || prev->trans != EDL_CUT ||
	    prev->outgoing || prev->none || e->none) {
		eng_problem(&st->pb, e->line,
			    "%s of event %03u has no outgoing source "
			    "(a cut line with the same event number must come "
			    "just before it)",
			    e->trans == EDL_WIPE ? "wipe" : "dissolve", e->num);
		return;
	}
	prev->outgoing = 1;
	prev->partner = (long)st->nev;
	e->partner = (long)st->nev - 1;
}

static int do_event(struct edl_state *st, unsigned line, char **tok, int n)
{
	struct edl_event e = { .line = line, .partner = -1, .clip_idx = -1 };
	int bad = 0, rc;

	if (strlen(tok[0]) < 3 || strlen(tok[0]) > 6) {
		eng_problem(&st->pb, line,
			    "event number '%s' must have 3 to 6 digits",
			    tok[0]);
		return 0;
	}
	if (n < 8 || n > EDL_MAX_TOKENS) {
		eng_problem(&st->pb, line,
			    "bad event line (expected NNN REEL CHANNEL "
			    "TRANSITION [DURATION] SRC_IN SRC_OUT REC_IN REC_OUT)");
		return 0;
	}
	e.num = (unsigned)atoi(tok[0]);
	if (strlen(tok[1]) > EDL_REEL_MAX) {
		eng_problem(&st->pb, line,
			    "reel name longer than %d characters",
			    EDL_REEL_MAX);
		bad = 1;
	}
	e.generator = is_generator(tok[1]);
	if (parse_channel(&e, tok[2]) < 0) {
		eng_problem(&st->pb, line,
			    "unknown channel '%s' (expected V, A, A2, "
			    "AA, B, AA/V, A2/V, AN or NONE)", tok[2]);
		bad = 1;
	}
	if (parse_transition(st, line, &e, tok + 3, n - 7) < 0)
		bad = 1;
	/* the origin timecode is counted as the first event's */
	if (!st->events_seen)
		st->origin_drop = st->fcm_drop;
	st->events_seen = 1;
	if (parse_tc(st, line, tok[n - 4], &e.src_in) < 0 ||
	    parse_tc(st, line, tok[n - 3], &e.src_out) < 0 ||
	    parse_tc(st, line, tok[n - 2], &e.rec_in) < 0 ||
	    parse_tc(st, line, tok[n - 1], &e.rec_out) < 0)
		bad = 1;
	/* as parse_tc counted it: FCM or a drop separator before FF */
	e.src_drop = st->fcm_drop || strpbrk(tok[n - 4], ";.,") != NULL;
	if (bad)
		return 0;
	if (e.trans == EDL_DISSOLVE || e.trans == EDL_WIPE)
		pair_transition(st, &e);
	if (e.none)
		skipped(st, line, "event %03u has channel NONE: skipped",
			e.num);
	e.reel = strdup(tok[1]);
	if (!e.reel)
		return -ENOMEM;
	rc = push_event(st, &e);
	if (rc < 0)
		free(e.reel);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Comments, M2, AUD, FCM                                              */

static struct edl_event *last_event(struct edl_state *st)
{
	return st->nev ? &st->ev[st->nev - 1] : NULL;
}

/* Directory and extension off a name from a comment: "S:\a\b.take.exr"
 * -> "b.take"; an image sequence number like ".0001" is no extension. */
static char *clip_name_from(const char *v)
{
	const char *b = v, *p, *dot = NULL;
	size_t n;
	int letter = 0;

	for (p = v; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	n = strlen(b);
	p = strrchr(b, '.');
	if (p && p > b && strlen(p + 1) >= 1 && strlen(p + 1) <= 5) {
		const char *q;

		dot = p;
		for (q = p + 1; *q; q++) {
			if ((*q | 0x20) >= 'a' && (*q | 0x20) <= 'z')
				letter = 1;
			else if (!eng_is_digit(*q))
				dot = NULL;
		}
		if (dot && letter)
			n = (size_t)(dot - b);
	}
	while (n > 0 && is_blank(b[n - 1]))
		n--;
	return strndup(b, n);
}

/* The last path component of a comment's value, blanks trimmed: the
 * file name the editing application wrote, for media.c to look for. */
static char *file_name_from(const char *v)
{
	const char *b = v, *p;
	size_t n;

	for (p = v; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	n = strlen(b);
	while (n > 0 && is_blank(b[n - 1]))
		n--;
	return strndup(b, n);
}

static void seq_free(struct edl_seq *q)
{
	if (!q)
		return;
	free(q->base);
	free(q->prefix);
	free(q->suffix);
	free(q);
}

/* A decimal number of n digits at s (n >= 1): 0, or -ERANGE. */
static int digits_value(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v > (INT64_MAX - 9) / 10)
			return -ERANGE;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

static size_t digit_run(const char *s)
{
	size_t n = 0;

	while (eng_is_digit(s[n]))
		n++;
	return n;
}

/* The image file extensions whose headers media/imgseq.c reads. */
static int image_ext(const char *ext)
{
	return strcasecmp(ext, "dpx") == 0 || strcasecmp(ext, "exr") == 0 ||
	       strcasecmp(ext, "tif") == 0 || strcasecmp(ext, "tiff") == 0;
}

/*
 * Where file name f (no folder) names an image sequence, its number's
 * place: f[0..*pre) the prefix, f[*post..) the suffix.  The forms
 * editors write (docs/formats.md "Sequence clips"):
 *  NAME.[START-END].EXT  OTIO's cmx_3600 adapter and DaVinci Resolve's
 *                        clip names; padding = START's digits
 *  NAME.%07d.EXT, %d     printf, as Nuke, Hiero and OTIO patterns write it
 *  NAME.#######.EXT      one '#' a digit (Nuke, Hiero, Flame, RV)
 *  NAME.0086400.EXT      an image's file: seven or more digits (a
 *                        timecode's frame number, as Apple Color and Cinema
 *                        Tools want DPX scans named: "fileName_0632368.dpx",
 *                        "fileName0632368.dpx") before a .dpx, .exr, .tif or
 *                        .tiff extension; padding = their number.  Fewer
 *                        digits ("take_1.0001.exr", Avid's and Premiere's
 *                        FROM CLIP in OTIO's samples) name one file, as
 *                        before: a render's frame number is no timecode
 * Returns 1 with *padding, *start and *has_start set, or 0.
 */
static int seq_place(const char *f, size_t *pre, size_t *post, int *padding,
		     int64_t *start, int *has_start, int64_t *end)
{
	const char *p, *q, *dot;
	size_t n;

	*has_start = 0;
	*end = -1;
	p = strrchr(f, '[');
	if (p && (n = digit_run(p + 1)) > 0 && p[1 + n] == '-' &&
	    (q = strchr(p, ']')) && q == p + 2 + n + digit_run(p + 2 + n) &&
	    q > p + 2 + n && n <= 64 &&
	    digits_value(p + 1, n, start) == 0 &&
	    digits_value(p + 2 + n, (size_t)(q - p - 2 - n), end) == 0) {
		*pre = (size_t)(p - f);
		*post = (size_t)(q + 1 - f);
		*padding = (int)n;
		*has_start = 1;
		return 1;
	}
	p = strchr(f, '%');
	if (p && !strchr(p + 1, '%')) {
		if (p[1] == 'd') {
			*pre = (size_t)(p - f);
			*post = *pre + 2;
			*padding = 0;
			return 1;
		}
		if (p[1] != '0')
			return 0;
		n = digit_run(p + 2);
		if (n > 0 && n <= 2 && p[2] != '0' &&
		    p[2 + n] == 'd' && digits_value(p + 2, n, end) == 0 &&
		    *end <= 64) {
			*pre = (size_t)(p - f);
			*post = *pre + 3 + n;
			*padding = (int)*end;
			*end = -1;
			return 1;
		}
		return 0;
	}
	p = strchr(f, '#');
	if (p) {
		for (q = p; *q == '#'; q++)
			;
		if (!strchr(q, '#') && (*q == '.' || *q == '_' || !*q) &&
		    q - p <= 64) {
			*pre = (size_t)(p - f);
			*post = (size_t)(q - f);
			*padding = (int)(q - p);
			return 1;
		}
		return 0;
	}
	dot = strrchr(f, '.');
	if (!dot || !image_ext(dot + 1))
		return 0;
	for (p = dot; p > f && eng_is_digit(p[-1]); p--)
		;
	n = (size_t)(dot - p);
	if (n < 7 || n > 64 || digits_value(p, n, start) < 0)
		return 0;
	*pre = (size_t)(p - f);
	*post = (size_t)(dot - f);
	*padding = (int)n;
	*has_start = 1;
	return 1;
}

/*
 * The image sequence a comment's value names (seq_place), into *out
 * (malloc'ed), and the clip name it gives into *name: the prefix less its
 * trailing '.', '_', '-' and blanks ("A001C003." -> A001C003, as
 * timelinefs-gen and OTIO's ImageSequenceReference name it), else the
 * folder, else NULL (the reel names it).  The folder is the last one of
 * the value's path, "" without one.  Returns 1, 0 (no sequence) or
 * -ENOMEM.
 */
static int seq_form(const char *v, struct edl_seq **out, char **name)
{
	const char *f = v, *p, *b, *e;
	struct edl_seq *q;
	size_t pre, post, n;
	char *file;
	int padding, has_start;
	int64_t start = 0, end;

	*out = NULL;
	*name = NULL;
	for (p = v; *p; p++)
		if (*p == '/' || *p == '\\')
			f = p + 1;
	file = strdup(f);
	if (!file)
		return -ENOMEM;
	for (n = strlen(file); n > 0 && is_blank(file[n - 1]); n--)
		file[n - 1] = '\0';
	if (!seq_place(file, &pre, &post, &padding, &start, &has_start,
		       &end)) {
		free(file);
		return 0;
	}
	/* the folder: the component before the file name */
	for (e = f; e > v && (e[-1] == '/' || e[-1] == '\\'); e--)
		;
	for (b = e; b > v && b[-1] != '/' && b[-1] != '\\'; b--)
		;
	if (e - b == 1 && *b == '.')
		b = e;
	q = calloc(1, sizeof(*q));
	if (!q)
		goto nomem;
	q->base = strndup(b, (size_t)(e - b));
	q->prefix = strndup(file, pre);
	q->suffix = strdup(file + post);
	q->padding = padding;
	q->start = start;
	q->has_start = has_start;
	q->end = end;
	q->has_end = end >= 0;
	if (!q->base || !q->prefix || !q->suffix)
		goto nomem;
	for (n = pre; n > 0 && strchr("._- \t", file[n - 1]); n--)
		;
	if (n)
		*name = strndup(file, n);
	else if (*q->base)
		*name = strdup(q->base);
	if ((n || *q->base) && !*name)
		goto nomem;
	free(file);
	*out = q;
	return 1;
nomem:
	seq_free(q);
	free(file);
	return -ENOMEM;
}

/* The event's clip as a comment of priority prio names it (owned). */
static int put_name(struct edl_event *e, char *name, char *file,
		    struct edl_seq *seq, enum edl_name_prio prio)
{
	free(e->clip);
	free(e->file);
	seq_free(e->seq);
	e->clip = name;
	e->file = file;
	e->seq = seq;
	e->prio = prio;
	return 0;
}

static int set_clip_name(struct edl_event *e, const char *value,
			 enum edl_name_prio prio)
{
	struct edl_seq *seq;
	char *name, *file;
	int rc;

	if (prio < e->prio)
		return 0;
	rc = seq_form(value, &seq, &name);
	if (rc < 0)
		return rc;
	/* a sequence is its images, no one file: the clip is named by the
	 * sequence, or by the reel where that gives none */
	if (rc > 0)
		return put_name(e, name, NULL, seq, prio);
	name = clip_name_from(value);
	file = file_name_from(value);
	if (!name || !file) {
		free(name);
		free(file);
		return -ENOMEM;
	}
	if (!*name) {
		free(name);
		free(file);
		return 0;
	}
	/* "A001C003.mov" names a file; "A001C003" only the clip, which
	 * NAME.TRACK.* and NAME.mov find anyway */
	if (strcmp(file, name) == 0) {
		free(file);
		file = NULL;
	}
	return put_name(e, name, file, NULL, prio);
}

/* Uppercase and single-spaced, for matching comment keys (trimmed). */
static void normalize_key(char *s)
{
	char *w = s;
	int blank = 0;

	for (; *s; s++) {
		if (is_blank(*s)) {
			blank = 1;
			continue;
		}
		if (blank)
			*w++ = ' ';
		blank = 0;
		*w++ = (*s >= 'a' && *s <= 'z') ? (char)(*s - 32) : *s;
	}
	*w = '\0';
}

static const struct {
	const char *key;
	int to;			/* the incoming side of a transition */
	enum edl_name_prio prio;
} name_keys[] = {
	{ "FROM CLIP NAME", 0, EDL_NAME_CLIP_NAME },
	{ "FROM CLIP", 0, EDL_NAME_CLIP_FILE },
	{ "FROM FILE", 0, EDL_NAME_CLIP_FILE },
	{ "SOURCE FILE", 0, EDL_NAME_SOURCE_FILE },
	{ "TO CLIP NAME", 1, EDL_NAME_CLIP_NAME },
	{ "TO CLIP", 1, EDL_NAME_CLIP_FILE },
	{ "TO FILE", 1, EDL_NAME_CLIP_FILE },
};

/* "KEY: value" of a comment (without the '*').  Returns 1 when the key
 * names a clip (and applies it), 0 when it is no such key. */
static int do_name_key(struct edl_state *st, unsigned line, char *key,
		       char *value, int *rc)
{
	struct edl_event *e = last_event(st);
	size_t i;

	*rc = 0;
	for (i = 0; i < sizeof(name_keys) / sizeof(name_keys[0]); i++)
		if (strcmp(key, name_keys[i].key) == 0)
			break;
	if (i == sizeof(name_keys) / sizeof(name_keys[0]))
		return 0;
	if (!e) {
		skipped(st, line, "'%s' comment before any event", key);
		return 1;
	}
	if (name_keys[i].to) {
		/* only the incoming line of a transition has a TO side */
		if (e->partner < 0 || e->outgoing) {
			skipped(st, line, "'%s' comment not after a transition",
				key);
			return 1;
		}
	} else if (e->partner >= 0 && !e->outgoing) {
		/* FROM after a transition's line names its outgoing side */
		e = &st->ev[e->partner];
	}
	*rc = set_clip_name(e, value, name_keys[i].prio);
	return 1;
}

static void do_fps_comment(struct edl_state *st, unsigned line, char *value)
{
	struct eng_fps fps;

	if (st->nev) {
		skipped(st, line, "FPS comment after the first event is "
			"ignored");
		return;
	}
	if (st->fps_line)
		skipped(st, line, "FPS comment given twice (first on line %u)",
			st->fps_line);
	if (eng_parse_fps(value, &fps) < 0 || eng_tc_nominal(fps) == 0) {
		eng_problem(&st->pb, line,
			    "bad frame rate '%s' (e.g. 25, 30000/1001 "
			    "or 29.97)", value);
		return;
	}
	st->fps = fps;
	st->nominal = (unsigned)eng_tc_nominal(fps);
	st->fps_line = line;
}

/* A line that may carry "KEY: value"; `comment` tells whether it began
 * with '*' (then an unknown key is just a remark). */
static int do_comment(struct edl_state *st, unsigned line, char *s,
		      int comment)
{
	char *colon = strchr(s, ':'), *key, *value;
	int rc;

	if (!colon)
		goto other;
	*colon = '\0';
	key = trim(s);
	value = trim(colon + 1);
	normalize_key(key);
	if (do_name_key(st, line, key, value, &rc))
		return rc;
	if (comment && strcmp(key, "FPS") == 0) {
		do_fps_comment(st, line, value);
		return 0;
	}
other:
	if (!comment)
		skipped(st, line, "unknown line ignored");
	return 0;
}

static void do_fcm(struct edl_state *st, unsigned line, char *value)
{
	char *w = value, *r;

	for (r = value; *r; r++)
		if (!is_blank(*r) && *r != '-')
			*w++ = (*r >= 'a' && *r <= 'z') ? (char)(*r - 32) : *r;
	*w = '\0';
	if (strcmp(value, "DROPFRAME") == 0)
		st->fcm_drop = 1;
	else if (strcmp(value, "NONDROPFRAME") == 0)
		st->fcm_drop = 0;
	else
		eng_problem(&st->pb, line,
			    "unknown FCM (expected DROP FRAME or "
			    "NON-DROP FRAME)");
}

static void do_m2(struct edl_state *st, unsigned line, char **tok, int n)
{
	struct edl_event *e = last_event(st);
	int64_t milli, tc;

	if (n != 4) {
		eng_problem(&st->pb, line,
			    "bad M2 line (expected M2 REEL SPEED TC)");
		return;
	}
	if (parse_speed(tok[2], &milli) < 0) {
		eng_problem(&st->pb, line,
			    "bad M2 speed '%s' (expected frames per "
			    "second, e.g. 050.0, 000.0 or -025.0)", tok[2]);
		return;
	}
	if (parse_tc(st, line, tok[3], &tc) < 0)
		return;
	if (!e) {
		skipped(st, line, "M2 line before any event is ignored");
		return;
	}
	/* a speed after a transition belongs to the side with that reel */
	if (strcmp(e->reel, tok[1]) != 0 && e->partner >= 0 && !e->outgoing &&
	    strcmp(st->ev[e->partner].reel, tok[1]) == 0)
		e = &st->ev[e->partner];
	else if (strcmp(e->reel, tok[1]) != 0)
		skipped(st, line, "M2 reel '%s' is not the reel of event %03u",
			tok[1], e->num);
	e->speed = 1;
	e->speed_milli = milli;
}

static void do_aud(struct edl_state *st, unsigned line, char **tok, int n)
{
	struct edl_event *e = last_event(st);
	unsigned __int128 add = 0;
	int i;

	for (i = 1; i < n; i++) {
		if (!all_digits(tok[i]) || strlen(tok[i]) > 2 ||
		    atoi(tok[i]) < 1) {
			eng_problem(&st->pb, line,
				    "bad AUD channel '%s' (expected 1 "
				    "to %d)", tok[i], EDL_AUDIO_MAX);
			return;
		}
		add |= (unsigned __int128)1 << atoi(tok[i]);
	}
	if (n < 2) {
		eng_problem(&st->pb, line, "AUD line without a channel");
		return;
	}
	if (!e) {
		skipped(st, line, "AUD line before any event is ignored");
		return;
	}
	e->audio |= add;
	if (e->partner >= 0)
		st->ev[e->partner].audio |= add;
}

static int do_line(struct edl_state *st, unsigned line, char *s)
{
	char *tok[EDL_MAX_TOKENS + 1], *copy;
	int n, rc;

	s = trim(s);
	if (!*s)
		return 0;
	if (*s == '*')
		return do_comment(st, line, s + 1, 1);
	if (strncasecmp(s, "TITLE:", 6) == 0)
		return 0;
	if (strncasecmp(s, "FCM:", 4) == 0) {
		do_fcm(st, line, s + 4);
		return 0;
	}
	if (strncasecmp(s, "REM", 3) == 0 && (!s[3] || is_blank(s[3])))
		return 0;
	if (strncasecmp(s, "EFFECTS NAME IS", 15) == 0)
		return 0;
	/* tokenize a copy: a line that is no directive is read as a
	 * "KEY: value" line in full */
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	n = tokenize(copy, tok, EDL_MAX_TOKENS);
	rc = 0;
	if (all_digits(tok[0]))
		rc = do_event(st, line, tok, n);
	else if (strcasecmp(tok[0], "M2") == 0)
		do_m2(st, line, tok, n);
	else if (strcasecmp(tok[0], "AUD") == 0)
		do_aud(st, line, tok, n > EDL_MAX_TOKENS ? EDL_MAX_TOKENS : n);
	else
		rc = do_comment(st, line, s, 0);
	free(copy);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Building the timeline                                               */

static int64_t event_len(const struct edl_event *e)
{
	return e->rec_out - e->rec_in;
}

/* Frames of the outgoing source read during a transition on x tracks. */
static int64_t extension(const struct edl_state *st,
			 const struct edl_event *e)
{
	const struct edl_event *in;

	if (!e->outgoing)
		return 0;
	in = &st->ev[e->partner];
	return in->tdur < event_len(in) ? in->tdur : event_len(in);
}

static void check_events(struct edl_state *st)
{
	size_t i;

	for (i = 0; i < st->nev; i++) {
		const struct edl_event *e = &st->ev[i];
		int64_t len = event_len(e);

		if (e->none)
			continue;
		if (len < 0 || (len == 0 && !e->outgoing)) {
			eng_problem(&st->pb, e->line,
				    "event %03u has no length (record "
				    "out is not after record in)", e->num);
			continue;
		}
		if (!e->speed && !e->generator &&
		    e->src_out - e->src_in != len)
			skipped(st, e->line, "event %03u: source duration %lld "
				"frames differs from record duration %lld "
				"frames", e->num,
				(long long)(e->src_out - e->src_in),
				(long long)len);
		if ((e->trans == EDL_DISSOLVE || e->trans == EDL_WIPE) &&
		    e->partner >= 0 && e->tdur > len)
			skipped(st, e->line, "event %03u: transition of %lld "
				"frames is longer than the event (%lld frames)",
				e->num, (long long)e->tdur, (long long)len);
	}
}

/* Does the event read any source frame? */
static int reads(const struct edl_state *st, const struct edl_event *e)
{
	return !e->none && !e->generator &&
	       (event_len(e) > 0 || extension(st, e) > 0);
}

/* The frame of opt->edl_origin_tc at this EDL's rate (its sidecar or
 * FPS comment may differ from -o fps=), counted as its first event's
 * timecodes; -1, told once, when it has no such frame. */
static int64_t origin_frame(struct edl_state *st)
{
	const struct eng_tc *tc = &st->opt->edl_origin_tc;
	int64_t f;
	int rc;

	if (st->opt->edl_origin != ENG_EDL_ORIGIN_TC)
		return 0;
	rc = eng_tc_frames(tc, st->fps, st->origin_drop, &f);
	if (rc < 0) {
		tc_problem(st, 0, "edl_origin: ", tc->text, tc, rc);
		return -1;
	}
	return f;
}

/* A stand-in for the number of the first image of a sequence whose form
 * names none (%07d, ####): resolve_clips makes it the clip's origin. */
#define EDL_NO_START INT64_MIN

/*
 * Event e's image sequence made clip c's.  A sequence's source timecode is
 * its file number (01:00:00:00 at 24 fps is file 86400, as DI tools name
 * scans: Apple Color, Cinema Tools, DaVinci Resolve), shifted by d frames
 * (timecode = file + d): 0, unless a [START-END] range does not hold the
 * event's source timecodes, which then count from its START (OTIO's
 * cmx_3600 adapter reads the range as the event's own images: d = source
 * in - START).  A clip is one sequence with one d, whatever number its
 * events' comments name; kept in the reference's origin until
 * seq_origins.  Problems told; -ENOMEM.
 */
static int clip_seq(struct edl_state *st, const struct edl_event *e, int c)
{
	const struct edl_seq *q = e->seq;
	struct eng_seq_ref ref = {
		.base = q->base, .prefix = q->prefix, .suffix = q->suffix,
		.start = q->has_start ? q->start : EDL_NO_START, .step = 1,
		.padding = q->padding, .missing = ENG_SEQ_MISS_ERROR,
		.line = e->line,
	};
	int64_t d = 0;
	struct eng_seq_ref *have = st->tl->clips[c].seq;
	char a[512], b[512];
	const char *why;
	int rc;

	if (q->has_end && (e->src_in < q->start || e->src_out - 1 > q->end))
		d = e->src_in - q->start;
	ref.origin = d;
	if (have) {
		if (strcmp(have->base, q->base) == 0 &&
		    strcmp(have->prefix, q->prefix) == 0 &&
		    strcmp(have->suffix, q->suffix) == 0 &&
		    have->padding == q->padding) {
			if (have->start == EDL_NO_START && q->has_start)
				have->start = q->start;
			if (have->origin != d)
				eng_problem(&st->pb, e->line,
					    "event %03u: clip '%s': its source "
					    "timecode is its file number %+lld "
					    "here but %+lld on line %u "
					    "([START-END] against the source "
					    "timecodes)", e->num,
					    st->tl->clips[c].name, (long long)d,
					    (long long)have->origin, have->line);
			return 0;
		}
		if (eng_seq_pattern(have, a, sizeof(a)) < 0)
			snprintf(a, sizeof(a), "(too long)");
		if (eng_seq_pattern(&ref, b, sizeof(b)) < 0)
			snprintf(b, sizeof(b), "(too long)");
		eng_problem(&st->pb, e->line,
			    "event %03u: clip '%s' is the image sequence %s "
			    "here but %s on line %u", e->num,
			    st->tl->clips[c].name, b, a, have->line);
		return 0;
	}
	rc = eng_tl_clip_seq(st->tl, (uint32_t)c, &ref, &why);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		eng_problem(&st->pb, e->line,
			    "event %03u: image sequence of clip '%s': %s",
			    e->num, st->tl->clips[c].name, why);
	return 0;
}

/* Source frame f of a sequence clip (timecode tc + f, file tc + f - d,
 * clip_seq) is image tc + f - d - start: its origin is tc - d - start; a
 * form that names no number starts at the clip's origin. */
static void seq_origins(struct edl_state *st)
{
	size_t c;

	for (c = 0; c < st->tl->nclips; c++) {
		struct eng_seq_ref *r = st->tl->clips[c].seq;

		if (!r)
			continue;
		if (r->start == EDL_NO_START)
			r->start = st->tl->clips[c].tc - r->origin;
		r->origin = st->tl->clips[c].tc - r->origin - r->start;
	}
}

static int resolve_clips(struct edl_state *st)
{
	int64_t *o, origin = origin_frame(st);
	size_t i;

	for (i = 0; i < st->nev; i++) {
		struct edl_event *e = &st->ev[i];
		const char *name = e->clip ? e->clip : e->reel;
		int c;

		if (!reads(st, e))
			continue;
		c = eng_tl_clip(st->tl, name, e->line);
		if (c == -ENOMEM)
			return c;
		if (c < 0) {
			eng_problem(&st->pb, e->line,
				    "clip name '%s' cannot name a "
				    "media file", name);
			continue;
		}
		e->clip_idx = c;
		if (e->seq && clip_seq(st, e, c) < 0)
			return -ENOMEM;
		if (e->file && !st->tl->clips[c].file) {
			st->tl->clips[c].file = strdup(e->file);
			if (!st->tl->clips[c].file)
				return -ENOMEM;
		}
		if ((size_t)c >= st->norigin) {
			o = realloc(st->clip_origin,
				    st->tl->nclips * sizeof(*o));
			if (!o)
				return -ENOMEM;
			st->clip_origin = o;
			st->norigin = st->tl->nclips;
			o[c] = e->src_in;
			st->tl->clips[c].tc_drop = e->src_drop;
		}
		st->tl->clips[c].tc_set = 1;
		switch (st->opt->edl_origin) {
		case ENG_EDL_ORIGIN_MIN:
			if (e->src_in < st->clip_origin[c]) {
				st->clip_origin[c] = e->src_in;
				st->tl->clips[c].tc_drop = e->src_drop;
			}
			break;
		case ENG_EDL_ORIGIN_ZERO:
			st->clip_origin[c] = 0;
			st->tl->clips[c].tc_drop = st->origin_drop;
			break;
		case ENG_EDL_ORIGIN_TC:
			/* a bad origin is told; read as zero meanwhile */
			st->clip_origin[c] = origin < 0 ? 0 : origin;
			st->tl->clips[c].tc_drop =
			    st->origin_drop || st->opt->edl_origin_tc.drop;
			if (origin >= 0 && e->src_in < origin)
				eng_problem(&st->pb, e->line,
					    "event %03u: source in is "
					    "before the source origin %s "
					    "(frame %lld)", e->num,
					    st->opt->edl_origin_tc.text,
					    (long long)origin);
			break;
		}
		st->tl->clips[c].tc = st->clip_origin[c];
	}
	seq_origins(st);
	return 0;
}

static int add_tracks(struct edl_state *st)
{
	unsigned __int128 audio = 0, xaudio = 0;
	int video = 0, xvideo = 0, n, x;
	char name[ENG_TRACK_NAME_MAX];
	size_t i;

	for (i = 0; i < st->nev; i++) {
		const struct edl_event *e = &st->ev[i];

		if (e->none)
			continue;
		video |= e->video;
		audio |= e->audio;
		if (reads(st, e) && extension(st, e) > 0) {
			xvideo |= e->video;
			xaudio |= e->audio;
		}
	}
	st->vtrack = st->vxtrack = -1;
	for (n = 0; n <= EDL_AUDIO_MAX; n++)
		st->atrack[n] = st->axtrack[n] = -1;
	for (x = 0; x < 2; x++) {
		int v = x ? xvideo : video;
		unsigned __int128 a = x ? xaudio : audio;
		int *slot = x ? &st->vxtrack : &st->vtrack;

		if (v) {
			const char *nm = x ? "Vx" : "V";

			*slot = st->opt->picture.pix != ENG_PIX_NONE ?
				eng_tl_add_picture_track(st->tl, nm,
							 &st->opt->picture) :
				eng_tl_add_track(st->tl, nm,
						 st->opt->video_rate, 1);
			if (*slot < 0)
				return *slot;
		}
		for (n = 1; n <= EDL_AUDIO_MAX; n++) {
			int *as = x ? &st->axtrack[n] : &st->atrack[n];

			if (!(a & ((unsigned __int128)1 << n)))
				continue;
			snprintf(name, sizeof(name), "A%d%s", n, x ? "x" : "");
			*as = eng_tl_add_track(st->tl, name,
					       st->opt->audio_rate,
					       st->opt->audio_align);
			if (*as < 0)
				return *as;
		}
	}
	return 0;
}

/* Which source frame offset k (from the event's record in) reads. */
struct edl_read {
	int64_t base;		/* file frame of the source in */
	int64_t p, q;		/* source frames per timeline frame: p/q */
	int reverse;
	int64_t span;		/* reverse: frames of source covered */
};

static int64_t read_at(const struct edl_read *r, int64_t k)
{
	int64_t adv = r->p == r->q ? k : k * r->p / r->q;

	return r->reverse ? r->base + r->span - 1 - adv : r->base + adv;
}

/*
 * The end (exclusive, at most k1) of the run of consecutive source frames
 * that offset k starts.  Worked out rather than stepped frame by frame: a
 * speed a hair off normal (25.001 at 25) makes one segment per 25000
 * frames, and stepping 30 such day-long events on 26 tracks took minutes
 * (the fuzz target, under ASan).  Forward, read_at(k) - base - k is
 * g(k) = floor(k (p - q) / q), monotonic: the run goes on while g stays.
 * Backwards or frozen, no two frames are consecutive.
 */
static int64_t run_end(const struct edl_read *r, int64_t k, int64_t k1)
{
	int64_t next, d, g;

	if (r->reverse || r->p == 0)
		next = k + 1;
	else if (r->p > r->q) {
		/* g(k) = floor(k d / q) grows past g at ceil((g + 1) q / d) */
		d = r->p - r->q;
		g = k * d / r->q;
		next = ((g + 1) * r->q + d - 1) / d;
	} else {
		/* g(k) = -ceil(k d / q) falls at floor(c q / d) + 1 */
		d = r->q - r->p;
		g = (k * d + r->q - 1) / r->q;
		next = g * r->q / d + 1;
	}
	return next < k1 ? next : k1;
}

/* Timeline frames rec0.. play offsets [k0, k1) of the event on a track. */
static int emit(struct edl_state *st, const struct edl_event *e, int track,
		const struct edl_read *r, int64_t k0, int64_t k1, int64_t rec0)
{
	int64_t k, end;
	int rc;

	if (track < 0 || k1 <= k0)
		return 0;
	if (!r->reverse && r->p == r->q)
		return eng_tl_add_segment(st->tl, (size_t)track,
					  (uint32_t)e->clip_idx,
					  read_at(r, k0), rec0, k1 - k0,
					  e->line);
	for (k = k0; k < k1; k = end) {
		end = run_end(r, k, k1);
		if (++st->speed_segs > EDL_SPEED_SEGS_MAX) {
			eng_problem(&st->pb, e->line,
				    "speed effects need more than %d "
				    "segments (one per jump of the source frame)",
				    EDL_SPEED_SEGS_MAX);
			return -EINVAL;
		}
		rc = eng_tl_add_segment(st->tl, (size_t)track,
					(uint32_t)e->clip_idx, read_at(r, k),
					rec0 + (k - k0), end - k, e->line);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int emit_tracks(struct edl_state *st, const struct edl_event *e,
		       int x, const struct edl_read *r, int64_t k0, int64_t k1,
		       int64_t rec0)
{
	int n, rc;

	if (e->video) {
		rc = emit(st, e, x ? st->vxtrack : st->vtrack, r, k0, k1, rec0);
		if (rc < 0)
			return rc;
	}
	for (n = 1; n <= EDL_AUDIO_MAX; n++) {
		if (!(e->audio & ((unsigned __int128)1 << n)))
			continue;
		rc = emit(st, e, x ? st->axtrack[n] : st->atrack[n], r, k0, k1,
			  rec0);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int add_segments(struct edl_state *st, int64_t rec_origin)
{
	size_t i;
	int rc;

	for (i = 0; i < st->nev; i++) {
		const struct edl_event *e = &st->ev[i];
		int64_t len = event_len(e), ext = extension(st, e);
		struct edl_read r = { .p = 1, .q = 1 };

		if (!reads(st, e) || e->clip_idx < 0)
			continue;
		r.base = e->src_in - st->clip_origin[e->clip_idx];
		if (r.base < 0)
			continue;	/* reported by resolve_clips */
		if (e->speed) {
			r.p = e->speed_milli < 0 ? -e->speed_milli :
						   e->speed_milli;
			r.q = (int64_t)st->nominal * 1000;
			r.reverse = e->speed_milli < 0;
			r.span = (len + ext - 1) * r.p / r.q + 1;
		}
		rc = emit_tracks(st, e, 0, &r, 0, len, e->rec_in - rec_origin);
		if (rc == 0 && ext > 0)
			rc = emit_tracks(st, e, 1, &r, len, len + ext,
					 st->ev[e->partner].rec_in -
						 rec_origin);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int build(struct edl_state *st)
{
	int64_t rec_origin = INT64_MAX;
	size_t i;
	int rc;

	check_events(st);
	for (i = 0; i < st->nev; i++)
		if (!st->ev[i].none && st->ev[i].rec_in < rec_origin)
			rec_origin = st->ev[i].rec_in;
	if (rec_origin == INT64_MAX) {
		eng_problem(&st->pb, 0, "no event in the EDL");
		return -EINVAL;
	}
	if (st->pb.n)
		return -EINVAL;
	/* a picture track's rate is of the timeline's frame rate */
	st->tl->fps = st->fps;
	rc = add_tracks(st);
	if (rc == 0)
		rc = resolve_clips(st);
	if (rc < 0 || st->pb.n)
		return rc < 0 ? rc : -EINVAL;
	rc = add_segments(st, rec_origin);
	if (rc < 0)
		return rc;
	return eng_tl_finalize(st->tl, st->pb.diag);
}

int eng_edl_parse(const char *path, const char *name, const char *text,
		  size_t len, const struct eng_load_options *opt,
		  struct eng_timeline **out, struct eng_diag *diag)
{
	struct eng_load_options defaults;
	struct edl_state st = { .pb = { .diag = diag, .path = path } };
	char *buf = NULL, *line, *end, *next;
	unsigned lineno = 0;
	size_t i;
	int rc = -ENOMEM;

	*out = NULL;
	if (!opt) {
		eng_load_options_default(&defaults);
		opt = &defaults;
	}
	st.opt = opt;
	st.fps = opt->fps;
	if (st.fps.den == 0 || eng_tc_nominal(st.fps) == 0) {
		eng_problem(&st.pb, 0,
			    "bad frame rate %u/%u", st.fps.num, st.fps.den);
		return -EINVAL;
	}
	st.nominal = (unsigned)eng_tc_nominal(st.fps);
	st.tl = eng_tl_new(name, path);
	buf = malloc(len + 1);
	if (!st.tl || !buf)
		goto out;
	memcpy(buf, text, len);
	buf[len] = '\0';

	for (line = buf; line < buf + len; line = next) {
		/* LF, CRLF and (old Mac) CR all end a line */
		for (end = line; end < buf + len; end++)
			if (*end == '\n' || *end == '\r')
				break;
		next = end + 1;
		if (end < buf + len && *end == '\r' && next < buf + len &&
		    *next == '\n')
			next++;
		lineno++;
		if (memchr(line, '\0', (size_t)(end - line))) {
			eng_problem(&st.pb, lineno, "NUL byte in line");
			continue;
		}
		*end = '\0';
		rc = do_line(&st, lineno, line);
		if (rc < 0)
			goto out;
	}
	rc = build(&st);
	if (rc < 0)
		goto out;
	*out = st.tl;
	st.tl = NULL;
out:
	eng_tl_free(st.tl);
	for (i = 0; i < st.nev; i++) {
		free(st.ev[i].reel);
		free(st.ev[i].clip);
		free(st.ev[i].file);
		seq_free(st.ev[i].seq);
	}
	free(st.ev);
	free(st.clip_origin);
	free(buf);
	return rc;
}
