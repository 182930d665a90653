/* SPDX-License-Identifier: MIT */
/*
 * The native .tl timeline format (docs/design.md "Native format .tl"): fps,
 * track, event, seq and record lines.  Every problem is reported, not just the
 * first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline/model.h"
#include "timeline/timecode.h"
#include "timeline/tl.h"
#include "util/diag.h"
#include "util/values.h"

#define TL_MAX_TOKENS 8		/* an event has at most 6 */

/* A segment whose SRC_IN was a timecode: it holds the timecode's frame
 * count until its clip's origin is known (tc_origins). */
struct tl_tcseg {
	size_t track, seg;
	uint32_t clip;
	int drop;
	unsigned line;
	char text[16];
};

/* A clip line: its clip, line and whether it gave origin=. */
struct tl_clipline {
	uint32_t clip;
	unsigned line;
	int origin;
};

struct tl_state {
	struct eng_problems pb;
	struct eng_timeline *tl;
	unsigned fps_line;	/* first fps line, 0 before it */
	int order_told;		/* "X before fps" was reported */
	/* per declared track: its line and where an appended event starts */
	unsigned *track_line;
	int64_t *track_end;
	size_t *listed;		/* scratch: the tracks of one event */
	size_t cap;
	struct tl_tcseg *tcsegs;
	size_t ntcsegs, tccap;
	struct tl_clipline *clines;
	size_t nclines, clcap;
};

static void need_fps(struct tl_state *st, unsigned line, const char *what)
{
	/* once: every later line would say the same */
	if (!st->fps_line && !st->order_told) {
		eng_problem(&st->pb, line, "%s before fps", what);
		st->order_told = 1;
	}
}

static void do_fps(struct tl_state *st, unsigned line, char **tok, int n)
{
	struct eng_fps fps;

	if (st->fps_line) {
		eng_problem(&st->pb, line, "fps given twice (first on line %u)",
			    st->fps_line);
		return;
	}
	/* even a bad fps line is the fps line: no "no fps" cascade */
	st->fps_line = line;
	if (n < 2) {
		eng_problem(&st->pb, line, "missing frame rate after 'fps'");
		return;
	}
	if (eng_parse_fps(tok[1], &fps) < 0)
		eng_problem(&st->pb, line,
			    "bad frame rate '%s' (e.g. 25, 30000/1001 or 29.97)",
			    tok[1]);
	else
		st->tl->fps = fps;
	if (n > 2)
		eng_problem(&st->pb, line,
			    "unexpected '%s' after frame rate", tok[2]);
}

static int grow_tracks(struct tl_state *st)
{
	size_t cap = st->cap ? st->cap * 2 : 8;
	unsigned *l;
	int64_t *e;
	size_t *x;

	l = realloc(st->track_line, cap * sizeof(*l));
	if (!l)
		return -ENOMEM;
	st->track_line = l;
	e = realloc(st->track_end, cap * sizeof(*e));
	if (!e)
		return -ENOMEM;
	st->track_end = e;
	x = realloc(st->listed, cap * sizeof(*x));
	if (!x)
		return -ENOMEM;
	st->listed = x;
	st->cap = cap;
	return 0;
}

/* Add a checked track line's track: of pictures pic, else of rate/align. */
static int add_track(struct tl_state *st, unsigned line, const char *name,
		     uint64_t rate, uint32_t align,
		     const struct eng_picture *pic)
{
	int rc;

	if (st->tl->ntracks == st->cap && (rc = grow_tracks(st)) < 0)
		return rc;
	rc = pic ? eng_tl_add_picture_track(st->tl, name, pic)
		 : eng_tl_add_track(st->tl, name, rate, align);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		eng_problem(&st->pb, line, "cannot add track '%s'", name);
		return 0;
	}
	st->track_line[rc] = line;
	st->track_end[rc] = 0;
	return 0;
}

/* "track NAME FORMAT WIDTHxHEIGHT" (docs/formats.md): its frames are
 * pictures, each exactly their size; nothing may follow. */
static int do_picture_track(struct tl_state *st, unsigned line, char **tok,
			    int n, unsigned before)
{
	struct eng_picture pic;
	const char *why;

	if (eng_picture_parse(tok[2], tok[3], &pic, &why) < 0)
		eng_problem(&st->pb, line, "track '%s' picture '%s %s': %s",
			    tok[1], tok[2], tok[3], why);
	if (n > 4)
		eng_problem(&st->pb, line,
			    "unexpected '%s' after picture size (a picture track "
			    "has no RATE or align)",
			    tok[4]);
	if (st->pb.n != before || !st->fps_line || !st->tl->fps.num)
		return 0;
	return add_track(st, line, tok[1], 0, 0, &pic);
}

static int do_track(struct tl_state *st, unsigned line, char **tok, int n)
{
	uint64_t rate = 0;
	int64_t align = 1;
	int have_align = 0, i, t, rc;
	unsigned before;

	/* a misplaced line is still used, so its names do not cascade */
	need_fps(st, line, "track");
	before = st->pb.n;
	if (n < 2) {
		eng_problem(&st->pb, line, "missing track NAME");
		return 0;
	}
	if (!eng_track_name_valid(tok[1])) {
		eng_problem(&st->pb, line,
			    "bad track name '%s': must be 1-%d letters, digits or '_'",
			    tok[1], ENG_TRACK_NAME_MAX - 1);
	} else if ((t = eng_tl_find_track(st->tl, tok[1])) >= 0) {
		eng_problem(&st->pb, line,
			    "duplicate track '%s' (first on line %u)",
			    tok[1], st->track_line[t]);
	}
	if (n < 3) {
		eng_problem(&st->pb, line,
			    "missing RATE (bytes per second) for track '%s'",
			    tok[1]);
		return 0;
	}
	/* "track NAME FORMAT WxH": a picture; a size word never follows a
	 * RATE (only align=N does), so the two forms cannot be confused.  A
	 * picture format is no RATE either: after one, a bad size ('720X486')
	 * is told as that, not as a bad rate. */
	if (n >= 4 && (eng_picture_size_word(tok[3]) ||
		       eng_pix_find(tok[2]) != ENG_PIX_NONE))
		return do_picture_track(st, line, tok, n, before);
	if (n == 3 && eng_pix_find(tok[2]) != ENG_PIX_NONE) {
		eng_problem(&st->pb, line,
			    "missing WIDTHxHEIGHT after picture format '%s'",
			    tok[2]);
		return 0;
	}
	rc = eng_parse_size(tok[2], &rate);
	if (rc == -ERANGE)
		eng_problem(&st->pb, line, "rate '%s' is too large", tok[2]);
	else if (rc < 0)
		eng_problem(&st->pb, line,
			    "bad rate '%s': bytes per second, e.g. 144000 or 18M",
			    tok[2]);
	else if (rate == 0)
		eng_problem(&st->pb, line,
			    "bad rate '%s': must be positive", tok[2]);
	for (i = 3; i < n; i++) {
		if (strncmp(tok[i], "align=", 6) != 0) {
			eng_problem(&st->pb, line,
				    "unexpected '%s' after RATE (only align=N may follow)",
				    tok[i]);
		} else if (have_align++) {
			eng_problem(&st->pb, line, "align given twice");
		} else if (eng_parse_int(tok[i] + 6, &align) < 0 || align == 0 ||
			   align > UINT32_MAX) {
			eng_problem(&st->pb, line,
				    "bad align '%s': must be a positive integer (bytes per sample)",
				    tok[i] + 6);
		}
	}
	if (st->pb.n != before)
		return 0;
	return add_track(st, line, tok[1], rate, (uint32_t)align, NULL);
}

/* Resolve "V,A1,A2" into st->listed; returns how many, problems reported. */
static size_t event_tracks(struct tl_state *st, unsigned line, char *list)
{
	size_t n = 0, j;
	char *p = list, *comma;
	int t;

	for (;;) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		if (!*p) {
			eng_problem(&st->pb, line,
				    "empty track name in track list");
		} else if ((t = eng_tl_find_track(st->tl, p)) < 0) {
			eng_problem(&st->pb, line,
				    "track '%s' not declared", p);
		} else {
			for (j = 0; j < n && st->listed[j] != (size_t)t; j++)
				;
			if (j < n)
				eng_problem(&st->pb, line,
					    "track '%s' listed twice", p);
			else
				st->listed[n++] = (size_t)t;
		}
		if (!comma)
			break;
		*comma = ',';
		p = comma + 1;
	}
	return n;
}

/*
 * A clip word with every %XX (two hex digits) made the byte XX, in place:
 * the spelling eng_tl_write gives a blank, '#' or '%' that a .tl word
 * cannot hold.  A '%' not followed by two hex digits is itself.  Returns
 * -EINVAL for %00, which would cut the name short (the word stays as it
 * was, for the message).
 */
static int unescape_clip(char *w)
{
	char *in, *out;
	int hi, lo;

	for (in = w; *in; in++)
		if (in[0] == '%' && eng_hex_digit(in[1]) == 0 &&
		    eng_hex_digit(in[2]) == 0)
			return -EINVAL;
	for (in = out = w; *in; out++) {
		if (in[0] == '%' && (hi = eng_hex_digit(in[1])) >= 0 &&
		    (lo = eng_hex_digit(in[2])) >= 0) {
			*out = (char)(hi << 4 | lo);
			in += 3;
		} else {
			*out = *in++;
		}
	}
	*out = '\0';
	return 0;
}

/* The clip a clip word names (an event's or a seq line's), added if new;
 * checked decoded (%2F is a '/'), told as written.  Its index, -EINVAL
 * (told) or -ENOMEM. */
static int clip_word(struct tl_state *st, unsigned line, const char *word)
{
	char *name = strdup(word);
	int clip;

	if (!name)
		return -ENOMEM;
	clip = unescape_clip(name) < 0 ? -EINVAL
				       : eng_tl_clip(st->tl, name, line);
	free(name);
	if (clip < 0 && clip != -ENOMEM)
		eng_problem(&st->pb, line,
			    "clip name '%s' not allowed (no '/', control characters, '.' or '..')",
			    word);
	return clip;
}

/* A frame number: non-negative, small enough that sums cannot overflow. */
static int frame_number(const char *s, int64_t *out)
{
	if (eng_parse_int(s, out) < 0)
		return -EINVAL;
	return *out > INT64_MAX / 4 ? -ERANGE : 0;
}

/* A timecode at the timeline's rate (an event's SRC_IN, a clip line's
 * origin=): its frame count, or a problem told naming `what`. */
static int tc_word(struct tl_state *st, unsigned line, const char *what,
		   const char *w, int64_t *frames, struct eng_tc *tc)
{
	int rc = eng_tc_parse(w, tc);

	if (rc == 0 && !st->tl->fps.num)
		return -EINVAL;		/* told: before fps, or a bad fps */
	if (rc == 0)
		rc = eng_tc_frames(tc, st->tl->fps, 0, frames);
	if (rc == 0)
		return 0;
	eng_problem(&st->pb, line, "bad %s '%s': %s", what, w,
		    rc == -ENOTSUP ? "drop frame (';' before the frames) at a "
				     "rate without it"
		    : rc == -ENOENT ? "a timecode that drop frame skips"
		    : rc == -ERANGE ? "minutes, seconds or frames out of range "
				      "at the timeline's rate"
				    : "a timecode is HH:MM:SS:FF");
	return -EINVAL;
}

/* An event's SRC_IN: a source frame (1) or the media's timecode (2, *tc
 * set; *src_in its frame count until tc_origins), 0 when told bad. */
static int src_in_word(struct tl_state *st, unsigned line, const char *w,
		       int64_t *src_in, struct eng_tc *tc)
{
	int rc;

	if (strpbrk(w, ":;.,"))
		return tc_word(st, line, "SRC_IN", w, src_in, tc) < 0 ? 0 : 2;
	rc = frame_number(w, src_in);
	if (rc == 0)
		return 1;
	if (rc == -ERANGE)
		eng_problem(&st->pb, line, "SRC_IN '%s' is too large", w);
	else
		eng_problem(&st->pb, line,
			    "bad SRC_IN '%s': a source frame (a non-negative "
			    "integer) or a timecode HH:MM:SS:FF", w);
	return 0;
}

/* Room in the array that arrp points to (a T **: *cap items of size sz,
 * n used) for one more, doubling from `first`.  0 or -ENOMEM. */
static int room_for_one(void *arrp, size_t n, size_t *cap, size_t sz,
			size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *old, *x;

	if (n < *cap)
		return 0;
	memcpy(&old, arrp, sizeof(old));
	x = realloc(old, c * sz);
	if (!x)
		return -ENOMEM;
	memcpy(arrp, &x, sizeof(x));
	*cap = c;
	return 0;
}

/* Remember that segment seg of track t holds a timecode's frame count. */
static int add_tcseg(struct tl_state *st, size_t t, uint32_t clip,
		     unsigned line, const struct eng_tc *tc)
{
	struct tl_tcseg *x;

	if (room_for_one(&st->tcsegs, st->ntcsegs, &st->tccap,
			 sizeof(*x), 16) < 0)
		return -ENOMEM;
	x = &st->tcsegs[st->ntcsegs++];
	x->track = t;
	x->seg = st->tl->tracks[t].nsegs - 1;
	x->clip = clip;
	x->drop = tc->drop;
	x->line = line;
	memcpy(x->text, tc->text, sizeof(x->text));
	return 0;
}

static int do_event(struct tl_state *st, unsigned line, char **tok, int n)
{
	static const char *const missing[] = {
		"TRACKS", "CLIP", "SRC_IN", "FRAMES",
	};
	int64_t src_in = 0, frames = 0, rec_in = -1;
	struct eng_tc tc;
	size_t ntr = 0, i;
	int clip = -1, rc, src_form = 0;
	unsigned before;

	need_fps(st, line, "event");
	before = st->pb.n;
	if (n > 1)
		ntr = event_tracks(st, line, tok[1]);
	if (n > 2 && (clip = clip_word(st, line, tok[2])) == -ENOMEM)
		return clip;
	if (n > 3)
		src_form = src_in_word(st, line, tok[3], &src_in, &tc);
	if (n > 4) {
		rc = frame_number(tok[4], &frames);
		if (rc == -ERANGE)
			eng_problem(&st->pb, line,
				    "frame count '%s' is too large", tok[4]);
		else if (rc < 0 || frames == 0)
			eng_problem(&st->pb, line,
				    "bad frame count '%s': must be a positive integer",
				    tok[4]);
	}
	if (n > 5) {
		if (tok[5][0] != '@')
			eng_problem(&st->pb, line,
				    "unexpected '%s' after FRAMES (REC_IN is written @N)",
				    tok[5]);
		else if ((rc = frame_number(tok[5] + 1, &rec_in)) == -ERANGE)
			eng_problem(&st->pb, line,
				    "REC_IN '%s' is too large", tok[5]);
		else if (rc < 0)
			eng_problem(&st->pb, line,
				    "bad REC_IN '%s': must be @ and a non-negative integer",
				    tok[5]);
	}
	if (n > 6)
		eng_problem(&st->pb, line,
			    "unexpected '%s' after @REC_IN", tok[6]);
	if (n < 5)
		eng_problem(&st->pb, line, "missing %s", missing[n - 1]);
	if (st->pb.n != before)
		return 0;

	/* Without @ the event starts where the latest of its tracks ends, so
	 * that tracks listed together stay in sync. */
	if (rec_in < 0)
		for (rec_in = 0, i = 0; i < ntr; i++)
			if (st->track_end[st->listed[i]] > rec_in)
				rec_in = st->track_end[st->listed[i]];
	for (i = 0; i < ntr; i++) {
		size_t t = st->listed[i];

		rc = eng_tl_add_segment(st->tl, t, (uint32_t)clip, src_in,
					rec_in, frames, line);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0) {
			eng_problem(&st->pb, line,
				    "event ends too far (frame %lld)",
				    (long long)rec_in + frames);
			return 0;
		}
		if (src_form == 2 &&
		    (rc = add_tcseg(st, t, (uint32_t)clip, line, &tc)) < 0)
			return rc;
		if (rec_in + frames > st->track_end[t])
			st->track_end[t] = rec_in + frames;
	}
	return 0;
}

/*
 * A sequence's PATTERN (docs/formats.md "Sequence clips"), in place:
 * FOLDER/PREFIX%0Nd SUFFIX or %d; "%%" is a '%', "%20" a blank and "%23"
 * a '#' (eng_tl_write's spelling of what a .tl word cannot hold; no other
 * %XX, which "%07d" or "%7d" would read as).  The decoded pattern is split
 * at its number: buf[0..*pre) the folder and prefix, buf[*pre..) the
 * suffix.  *why for a bad one.
 */
static int seq_pattern_parse(char *buf, const char *pat, size_t *pre,
			     int *padding, const char **why)
{
	const char *p = pat;
	char *o = buf;
	int seen = 0;

	*why = NULL;
	while (*p) {
		if (*p != '%') {
			*o++ = *p++;
			continue;
		}
		if (p[1] == '%') {
			*o++ = '%';
			p += 2;
		} else if (p[1] == '2' && (p[2] == '0' || p[2] == '3')) {
			*o++ = p[2] == '0' ? ' ' : '#';
			p += 3;
		} else if (p[1] == 'd' || p[1] == '0') {
			int n = 0;

			if (seen++) {
				*why = "more than one frame number";
				return -EINVAL;
			}
			*pre = (size_t)(o - buf);
			if (p[1] == 'd') {
				*padding = 0;
				p += 2;
				continue;
			}
			for (p += 2; *p >= '0' && *p <= '9'; p++)
				if (n <= 64)
					n = n * 10 + (*p - '0');
			if (*p != 'd' || n == 0) {
				*why = "the frame number must be %0Nd (N "
				       "digits, zero-padded) or %d";
				return -EINVAL;
			}
			p++;
			if (n > 64) {
				*why = "padding above 64";
				return -EINVAL;
			}
			*padding = n;
		} else {
			*why = "a '%' that is not %0Nd, %d, %%, %20 or %23";
			return -EINVAL;
		}
	}
	*o = '\0';
	if (!seen) {
		*why = "no frame number (%0Nd or %d)";
		return -EINVAL;
	}
	if (strchr(buf + *pre, '/')) {
		*why = "a '/' after the frame number";
		return -EINVAL;
	}
	return 0;
}

/* A sequence's first= number: an integer of either sign. */
static int seq_number(const char *s, int64_t *out)
{
	int neg = *s == '-';

	if (eng_parse_int(s + neg, out) < 0)
		return -EINVAL;
	if (neg)
		*out = -*out;
	return 0;
}

/* "seq CLIP PATTERN first=N [step=S] [missing=POLICY]": the clip's video
 * is an image sequence (docs/formats.md "Sequence clips"). */
static int do_seq(struct tl_state *st, unsigned line, char **tok, int n)
{
	static char none[] = "", root[] = "/"; /* copied, never written */
	struct eng_seq_ref ref = { .step = 1, .line = line };
	const char *why;
	char *buf = NULL, *sfx = NULL, *slash;
	int clip = -1, have_first = 0, have_step = 0, have_missing = 0, i, rc;
	size_t pre = 0;
	unsigned before = st->pb.n;

	if (n < 2) {
		eng_problem(&st->pb, line, "missing CLIP after 'seq'");
		return 0;
	}
	clip = clip_word(st, line, tok[1]);
	if (clip == -ENOMEM)
		return clip;
	if (n < 3) {
		eng_problem(&st->pb, line,
			    "missing PATTERN for sequence clip '%s' (e.g. "
			    "A001C003/A001C003.%%07d.dpx)", tok[1]);
		return 0;
	}
	buf = malloc(strlen(tok[2]) + 1);
	if (!buf)
		return -ENOMEM;
	if (seq_pattern_parse(buf, tok[2], &pre, &ref.padding, &why) < 0)
		eng_problem(&st->pb, line,
			    "sequence clip '%s' pattern '%s': %s", tok[1],
			    tok[2], why);
	for (i = 3; i < n; i++) {
		char *w = tok[i];

		if (strncmp(w, "first=", 6) == 0) {
			if (have_first++)
				eng_problem(&st->pb, line, "first= given twice");
			else if (seq_number(w + 6, &ref.start) < 0)
				eng_problem(&st->pb, line,
					    "bad first '%s': the number of the "
					    "clip's first image, e.g. 86400",
					    w + 6);
		} else if (strncmp(w, "step=", 5) == 0) {
			if (have_step++)
				eng_problem(&st->pb, line, "step= given twice");
			else if (eng_parse_int(w + 5, &ref.step) < 0 ||
				 ref.step < 1)
				eng_problem(&st->pb, line,
					    "bad step '%s': must be a positive "
					    "integer", w + 5);
		} else if (strncmp(w, "missing=", 8) == 0) {
			rc = eng_seq_missing_find(w + 8);
			if (have_missing++)
				eng_problem(&st->pb, line,
					    "missing= given twice");
			else if (rc < 0)
				eng_problem(&st->pb, line,
					    "bad missing '%s': error, hold or "
					    "black", w + 8);
			else
				ref.missing = (uint32_t)rc;
		} else {
			eng_problem(&st->pb, line,
				    "unexpected '%s' after PATTERN (first=N, "
				    "step=S or missing=error|hold|black)", w);
		}
	}
	rc = 0;
	if (!have_first)
		eng_problem(&st->pb, line,
			    "missing first=N (the number of sequence clip "
			    "'%s''s first image)", tok[1]);
	if (st->pb.n != before)
		goto out;
	/* buf[0..pre) is FOLDER/PREFIX, its last '/' the split */
	sfx = strdup(buf + pre);
	rc = -ENOMEM;
	if (!sfx)
		goto out;
	ref.suffix = sfx;
	buf[pre] = '\0';
	slash = strrchr(buf, '/');
	ref.base = none;
	ref.prefix = buf;
	if (slash) {
		*slash = '\0';
		/* "/x%d": the folder is "" but the pattern was absolute */
		ref.base = slash == buf ? root : buf;
		ref.prefix = slash + 1;
	}
	if (st->tl->clips[clip].record) {
		eng_problem(&st->pb, line,
			    "sequence clip '%s' is recorded through the mount "
			    "(record on line %u): a recording is no image "
			    "sequence", tok[1], st->tl->clips[clip].record);
		rc = 0;
		goto out;
	}
	rc = eng_tl_clip_seq(st->tl, (uint32_t)clip, &ref, &why);
	if (rc == -ENOMEM)
		goto out;
	if (rc == -EEXIST)
		eng_problem(&st->pb, line,
			    "sequence clip '%s' given twice (first on line %u)",
			    tok[1], st->tl->clips[clip].seq->line);
	else if (rc < 0)
		eng_problem(&st->pb, line,
			    "sequence clip '%s' pattern '%s': %s", tok[1],
			    tok[2], why);
	rc = 0;
out:
	free(buf);
	free(sfx);
	return rc;
}

/* "record CLIP": the clip is recorded through the mount's ingest folder
 * (docs/formats.md "Media files", rule 4), so its files may be absent or
 * short at mount.  A line, not a guess from a missing file: a misspelt
 * clip must stay a refused mount, not become a silent wait. */
static int do_record(struct tl_state *st, unsigned line, char **tok, int n)
{
	struct eng_clip *c;
	int clip;

	if (n < 2) {
		eng_problem(&st->pb, line, "missing CLIP after 'record'");
		return 0;
	}
	if (n > 2)
		eng_problem(&st->pb, line,
			    "unexpected '%s' after recorded clip '%s'", tok[2],
			    tok[1]);
	clip = clip_word(st, line, tok[1]);
	if (clip < 0)
		return clip == -ENOMEM ? clip : 0;
	c = &st->tl->clips[clip];
	if (c->record)
		eng_problem(&st->pb, line,
			    "recorded clip '%s' given twice (first on line %u)",
			    tok[1], c->record);
	else if (c->seq)
		eng_problem(&st->pb, line,
			    "recorded clip '%s' is a sequence clip (seq on "
			    "line %u): a recording is no image sequence",
			    tok[1], c->seq->line);
	else
		c->record = line;
	return 0;
}

/* The clip line of clip, or NULL. */
static const struct tl_clipline *clip_line_of(const struct tl_state *st,
					      uint32_t clip)
{
	size_t i;

	for (i = 0; i < st->nclines; i++)
		if (st->clines[i].clip == clip)
			return &st->clines[i];
	return NULL;
}

/* origin=TIMECODE of a clip line: the clip counts its source from it.
 * 1 when set, 0 when told bad. */
static int clip_origin(struct tl_state *st, unsigned line, uint32_t clip,
		       const char *w)
{
	struct eng_clip *c = &st->tl->clips[clip];
	struct eng_tc tc;
	int64_t f;

	if (tc_word(st, line, "origin", w, &f, &tc) < 0)
		return 0;
	c->tc = f;
	c->tc_set = 1;
	c->tc_drop = tc.drop;
	return 1;
}

/* file=NAME of a clip line, %XX decoded as in a clip word. */
static int clip_file(struct tl_state *st, unsigned line, uint32_t clip,
		     const char *w)
{
	char *name = strdup(w);
	int rc;

	if (!name)
		return -ENOMEM;
	rc = unescape_clip(name) < 0 ? -EINVAL
				     : eng_tl_clip_file(st->tl, clip, name);
	free(name);
	if (rc == -EINVAL)
		eng_problem(&st->pb, line,
			    "file name '%s' not allowed (a name in the media "
			    "folder: no '/', control characters, '.' or '..')",
			    w);
	return rc == -ENOMEM ? rc : 0;
}

/* "clip CLIP [file=NAME] [origin=TIMECODE]": the clip's media file (as an
 * EDL's SOURCE FILE comment names it) and the timecode of its source
 * frame 0 (docs/formats.md "Timelines (.tl)"). */
static int do_clip(struct tl_state *st, unsigned line, char **tok, int n)
{
	const struct tl_clipline *prev;
	int clip, have_file = 0, have_origin = 0, origin = 0, i, rc;

	if (n < 2) {
		eng_problem(&st->pb, line, "missing CLIP after 'clip'");
		return 0;
	}
	clip = clip_word(st, line, tok[1]);
	if (clip < 0)
		return clip == -ENOMEM ? clip : 0;
	if ((prev = clip_line_of(st, (uint32_t)clip))) {
		eng_problem(&st->pb, line,
			    "clip line for '%s' given twice (first on line %u)",
			    tok[1], prev->line);
		return 0;
	}
	if (n < 3)
		eng_problem(&st->pb, line,
			    "clip line for '%s' says nothing (file=NAME or "
			    "origin=HH:MM:SS:FF)", tok[1]);
	for (i = 2; i < n; i++) {
		if (strncmp(tok[i], "file=", 5) == 0 && !have_file++) {
			if ((rc = clip_file(st, line, (uint32_t)clip,
					    tok[i] + 5)) < 0)
				return rc;
		} else if (strncmp(tok[i], "origin=", 7) == 0 &&
			   !have_origin++) {
			need_fps(st, line, "clip origin");
			origin = clip_origin(st, line, (uint32_t)clip,
					     tok[i] + 7);
		} else {
			eng_problem(&st->pb, line,
				    "unexpected '%s' after clip '%s' (file=NAME "
				    "or origin=HH:MM:SS:FF, once each)",
				    tok[i], tok[1]);
		}
	}
	if (room_for_one(&st->clines, st->nclines, &st->clcap,
			 sizeof(*st->clines), 8) < 0)
		return -ENOMEM;
	st->clines[st->nclines++] =
		(struct tl_clipline){ (uint32_t)clip, line, origin };
	return 0;
}

/* The timecode SRC_INs made source frames: from the clip line's origin,
 * else from the earliest timecode the clip's events give (as an EDL's
 * edl_origin=min), so that the media's frame is the timecode's.  One
 * before an origin= is told. */
static void tc_origins(struct tl_state *st)
{
	struct eng_timeline *tl = st->tl;
	const struct tl_clipline *l;
	size_t i;

	for (i = 0; i < st->ntcsegs; i++) {
		const struct tl_tcseg *x = &st->tcsegs[i];
		struct eng_clip *c = &tl->clips[x->clip];
		int64_t f = tl->tracks[x->track].segs[x->seg].src_in;

		l = clip_line_of(st, x->clip);
		if (l && l->origin)
			continue;
		if (!c->tc_set || f < c->tc) {
			c->tc = f;
			c->tc_drop = x->drop;
		}
		c->tc_set = 1;
	}
	for (i = 0; i < st->ntcsegs; i++) {
		const struct tl_tcseg *x = &st->tcsegs[i];
		const struct eng_clip *c = &tl->clips[x->clip];
		struct eng_segment *s = &tl->tracks[x->track].segs[x->seg];

		if (s->src_in >= c->tc) {
			s->src_in -= c->tc;
			continue;
		}
		l = clip_line_of(st, x->clip);
		eng_problem(&st->pb, x->line,
			    "source timecode %s of clip '%s' is before its "
			    "origin (clip line %u)", x->text, c->name,
			    l ? l->line : 0);
	}
}

/* A seq or record line for a clip no event plays is most likely a
 * misspelt clip name (the events' clip would then be looked for as
 * files): told. */
static void unused_seqs(struct tl_state *st)
{
	const struct eng_timeline *tl = st->tl;
	unsigned char *used;
	size_t t, i;

	used = calloc(tl->nclips + 1, 1);
	if (!used)
		return;
	for (t = 0; t < tl->ntracks; t++)
		for (i = 0; i < tl->tracks[t].nsegs; i++)
			used[tl->tracks[t].segs[i].clip] = 1;
	for (i = 0; i < tl->nclips; i++)
		if (tl->clips[i].seq && !used[i])
			eng_problem(&st->pb, tl->clips[i].seq->line,
				    "sequence clip '%s' is played by no event",
				    tl->clips[i].name);
		else if (tl->clips[i].record && !used[i])
			eng_problem(&st->pb, tl->clips[i].record,
				    "recorded clip '%s' is played by no event",
				    tl->clips[i].name);
	for (i = 0; i < st->nclines; i++)
		if (!used[st->clines[i].clip])
			eng_problem(&st->pb, st->clines[i].line,
				    "clip line for '%s', which no event plays",
				    tl->clips[st->clines[i].clip].name);
	free(used);
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Split a line in place; a token starting with '#' starts a comment. */
static int tokenize(char *s, char **tok)
{
	int n = 0;

	for (;;) {
		while (is_blank(*s))
			s++;
		if (!*s || *s == '#')
			break;
		if (n < TL_MAX_TOKENS)
			tok[n] = s;
		n++;
		while (*s && !is_blank(*s))
			s++;
		if (!*s)
			break;
		*s++ = '\0';
	}
	return n < TL_MAX_TOKENS ? n : TL_MAX_TOKENS;
}

int eng_tl_parse(const char *path, const char *name, const char *text,
		 size_t len, struct eng_timeline **out, struct eng_diag *diag)
{
	struct tl_state st = { .pb = { .diag = diag, .path = path } };
	char *buf = NULL, *line, *next, *tok[TL_MAX_TOKENS];
	unsigned lineno = 0;
	int rc = -ENOMEM, n;

	*out = NULL;
	st.tl = eng_tl_new(name, path);
	buf = malloc(len + 1);
	if (!st.tl || !buf)
		goto out;
	memcpy(buf, text, len);
	buf[len] = '\0';

	for (line = buf; line < buf + len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(buf + len - line));

		next = nl ? nl + 1 : buf + len;
		if (nl)
			*nl = '\0';
		lineno++;
		if (memchr(line, '\0', (size_t)(next - line) - (nl ? 1 : 0))) {
			eng_problem(&st.pb, lineno, "NUL byte in line");
			continue;
		}
		n = tokenize(line, tok);
		if (n == 0)
			continue;
		if (strcmp(tok[0], "fps") == 0) {
			do_fps(&st, lineno, tok, n);
			rc = 0;
		} else if (strcmp(tok[0], "track") == 0) {
			rc = do_track(&st, lineno, tok, n);
		} else if (strcmp(tok[0], "event") == 0) {
			rc = do_event(&st, lineno, tok, n);
		} else if (strcmp(tok[0], "seq") == 0) {
			rc = do_seq(&st, lineno, tok, n);
		} else if (strcmp(tok[0], "record") == 0) {
			rc = do_record(&st, lineno, tok, n);
		} else if (strcmp(tok[0], "clip") == 0) {
			rc = do_clip(&st, lineno, tok, n);
		} else {
			eng_problem(&st.pb, lineno,
				    "unknown directive '%s' (expected fps, track, event, clip, seq or record)",
				    tok[0]);
			rc = 0;
		}
		if (rc < 0)
			goto out;
	}
	if (!st.fps_line)
		eng_problem(&st.pb, 0, "no fps line (e.g. 'fps 30000/1001')");
	tc_origins(&st);
	unused_seqs(&st);
	rc = -EINVAL;
	if (st.pb.n)
		goto out;
	rc = eng_tl_finalize(st.tl, diag);
	if (rc < 0)
		goto out;
	*out = st.tl;
	st.tl = NULL;
out:
	eng_tl_free(st.tl);
	free(buf);
	free(st.track_line);
	free(st.track_end);
	free(st.listed);
	free(st.tcsegs);
	free(st.clines);
	return rc;
}

