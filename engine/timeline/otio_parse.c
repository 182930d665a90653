/* SPDX-License-Identifier: MIT */
/*
 * OpenTimelineIO (.otio JSON) parser: Timeline/Stack/Track/Clip/Gap/
 * Transition into the engine's timeline model, through json-c.
 *
 * Mapping (decisions the OTIO format leaves open, made here):
 *
 * Tracks.  The enabled Track.1 children of the timeline's Stack become, in
 * document order, V, V2, V3 ... (kind "Video", the default) and A1, A2 ...
 * (kind "Audio"), at most 99 of each; video tracks get opt->video_rate and
 * align 1 (or opt->picture, where one is given: picture tracks), audio
 * tracks opt->audio_rate and opt->audio_align.  A track with
 * "enabled": false is dropped and takes no name.  A disabled item (clip,
 * gap, nested stack) keeps its duration but plays nothing (as in OTIO).
 *
 * Frame rate.  The rate of the timeline's global_start_time if it has one,
 * else the rate of the first clip (document order) on a video track (its
 * source_range, else its media's available_range), else opt->fps.  Audio
 * clips are not used: their rate is often a sample rate (48000).  A double
 * rate maps to a rational: integers to N/1, the NTSC rates (23.976, 29.97,
 * 23.976023976...) to N*1000/1001, anything else to round(rate*1000)/1000.
 *
 * Times.  Every RationalTime converts on its own to frames of the timeline
 * rate: round(value * tl_rate / rate), half away from zero, computed exactly
 * in 128-bit integers when the value is integral.  An item's record position
 * is the sum of the rounded durations before it (each event is conformed on
 * its own, as an EDL would be).  Integers json-c had to clamp (beyond
 * int64), NaN, Infinity and results beyond 2^59 frames are errors, never
 * silently wrapped.  NaN/Infinity/-Infinity and OTIO's "Inf"/"-Inf" are
 * accepted as JSON (metadata often holds them); "Inf" is rewritten to
 * "Infinity" before json-c sees it, keeping every line break in place.
 *
 * Clips.  The duration is source_range.duration, else the media reference's
 * available_range.duration.  The source frame is source_range.start_time
 * minus available_range.start_time (media frame 0 is the first available
 * frame), or source_range.start_time alone without an available_range; a
 * negative source frame is an error.  The media reference is Clip.1's
 * media_reference or Clip.2's media_references[active_media_reference_key]
 * ("DEFAULT_MEDIA" when the key is absent).  ExternalReference: the clip
 * name is the target_url's last path component without its extension; URLs
 * ("file://", any "scheme://") are percent-decoded first and lose their
 * query and fragment, plain paths also split at '\'.  Only that basename is
 * used, so "../" cannot leave MEDIA_DIR.  ImageSequenceReference: a
 * sequence clip (seq_eval below; docs/formats.md "Sequence clips").
 * MissingReference, a null reference and unknown references (an error
 * when opt->strict) use the clip's "name".  GeneratorReference is a gap:
 * generated essence (bars, black) reads no storage.
 *
 * Transitions.  A Transition.1 at a cut overlaps its neighbours: from
 * cut - in_offset to cut + out_offset both sides play, and each source
 * frame is read once per record frame.  A track holds one segment per
 * frame, so the incoming clip is extended backwards by in_offset on the
 * track itself, and the outgoing clip leaves the track at cut - in_offset
 * and is carried over the whole transition (its last in_offset frames,
 * then out_offset frames past its end) on a parallel track named like the
 * main one plus "x" (Vx, A1x), created only when needed, with the main
 * track's rate and alignment, and declared right after it.  A side that is
 * a gap, a generator, a disabled clip, or the start or end of the track is
 * black, as BL in an EDL dissolve: it reads nothing, so a fade out leaves
 * the main track empty from cut - in_offset and reads the outgoing clip on
 * the x track only, and a fade in reads the incoming clip on the main
 * track only.  A nested composition on either side is neither extended
 * nor carried.  The incoming clip is not extended before the start of its
 * track.  An incoming clip that has fewer source frames before its
 * source_range than in_offset is an error, in every mode, as a
 * source_range before the media's first frame is (and as a source
 * timecode before the origin is in an EDL): the handle is not there.
 *
 * Nesting.  A Stack (or Track) inside a track is flattened into that track
 * at its position: its children are laid down in order, later (upper) ones
 * winning where they overlap, gaps letting lower ones through.  A
 * composition's source_range trims it (the timeline's Stack and the tracks
 * included: a Track starting at -7 shows its content 7 frames late).
 *
 * Not supported: time effects (LinearTimeWarp, FreezeFrame, TimeEffect) are
 * ignored, the clip plays at speed 1, and are errors when opt->strict;
 * other effects and markers are ignored.  A Transition inside a Stack, a
 * Stack directly in the timeline's Stack and unknown schemas are errors.
 *
 * Lines.  json-c keeps no positions, so a pre-scan records the line of
 * every '{' and the parsed tree is numbered in the same (document) order;
 * if the counts disagree (duplicate keys) lines fall back to 0.  Every
 * semantic message carries the JSON path of the item as well.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "timeline/load.h"
#include "timeline/model.h"
#include "timeline/otio.h"
#include "util/diag.h"
#include "util/values.h"

#define OTIO_MAX_TIME (INT64_C(1) << 59) /* any one converted time */
#define OTIO_MAX_POS (INT64_C(1) << 60)	 /* any record position */
#define OTIO_MAX_NEST 64		 /* nested compositions */
#define OTIO_JSON_DEPTH 256		 /* json-c's default, 32, is too low */
#define OTIO_MAX_TRACKS 99		 /* per kind: "A1" .. "A99" */

struct objline {
	const void *obj;
	unsigned line;
};

struct pseg {
	uint32_t clip;
	int64_t src, rec, frames;
	unsigned line;
};

struct pseglist {
	struct pseg *v;
	size_t n, cap;
};

struct otrack {
	char name[8]; /* "V", "V99", "A1" .. "A99"; "x" may follow */
	int audio;
	struct pseglist main, x;
};

/* How a composition's internal frames land on the output track: output =
 * internal + shift, kept only inside [lo, hi); mute drops everything. */
struct xform {
	int64_t shift, lo, hi;
	int mute;
};

/* A clip as evaluated, before placement. */
struct clipinfo {
	int have; /* 0: plays nothing (generator, error) */
	uint32_t clip;
	int64_t src, frames;
	unsigned line;
};

struct ctx {
	const char *path;
	const struct eng_load_options *opt;
	struct eng_diag *diag;
	struct eng_timeline *tl;
	struct eng_fps fps;
	unsigned *braces; /* line of each '{' in document order */
	size_t nbraces;
	struct objline *lines; /* sorted by obj; NULL: lines unknown */
	size_t nlines;
	struct otrack *ot;
	size_t not, capot;
	int nerr;
	int nomem;
	int depth;
	json_object *where; /* the composition being read: the line of
			     * messages about values that are no object */
	char jp[512];	    /* JSON path of the item being read */
	size_t jplen;
};

/* ------------------------------------------------------------------ */
/* Messages and JSON paths                                              */

static unsigned line_of(const struct ctx *c, const json_object *o)
{
	size_t lo = 0, hi = c->nlines;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)c->lines[mid].obj == (uintptr_t)o)
			return c->lines[mid].line;
		if ((uintptr_t)c->lines[mid].obj < (uintptr_t)o)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static void err(struct ctx *c, const json_object *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void err(struct ctx *c, const json_object *at, const char *fmt, ...)
{
	char reason[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	if (!json_object_is_type(at, json_type_object))
		at = c->where;
	eng_diag_add(c->diag, c->path, line_of(c, at), "%s: %s",
		     c->jplen ? c->jp : "(top)", reason);
	c->nerr++;
}

static size_t jp_push(struct ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static size_t jp_push(struct ctx *c, const char *fmt, ...)
{
	size_t old = c->jplen;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(c->jp + old, sizeof(c->jp) - old, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->jplen = old + (size_t)n < sizeof(c->jp) ? old + (size_t)n
							   : sizeof(c->jp) - 1;
	return old;
}

static void jp_pop(struct ctx *c, size_t old)
{
	c->jp[old] = '\0';
	c->jplen = old;
}

/* ------------------------------------------------------------------ */
/* Pre-scan: "Inf" -> "Infinity", lines of '{'                          */

static int is_ident(char ch)
{
	return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
	       (ch >= '0' && ch <= '9') || ch == '_';
}

/* One pass over the text as json-c tokenizes it (strings in either quote,
 * comments).  With out and braces NULL it only counts; returns the output
 * length, *nbraces the number of '{' outside strings and comments. */
static size_t prescan(const char *t, size_t len, char *out, unsigned *braces,
		      size_t *nbraces)
{
	size_t i = 0, o = 0, nb = 0;
	unsigned line = 1;

#define PUT(ch)                                                                \
	do {                                                                   \
		char put_ = (ch);                                              \
		if (out)                                                       \
			out[o] = put_;                                         \
		o++;                                                           \
	} while (0)
	while (i < len) {
		char ch = t[i];

		if (ch == '"' || ch == '\'') {
			char q = ch;

			PUT(t[i++]);
			while (i < len) {
				ch = t[i++];
				PUT(ch);
				if (ch == '\n')
					line++;
				if (ch == '\\' && i < len) {
					if (t[i] == '\n')
						line++;
					PUT(t[i++]);
				} else if (ch == q) {
					break;
				}
			}
		} else if (ch == '/' && i + 1 < len && t[i + 1] == '/') {
			while (i < len && t[i] != '\n')
				PUT(t[i++]);
		} else if (ch == '/' && i + 1 < len && t[i + 1] == '*') {
			PUT(t[i++]);
			PUT(t[i++]);
			while (i < len) {
				if (t[i] == '*' && i + 1 < len &&
				    t[i + 1] == '/') {
					PUT(t[i++]);
					PUT(t[i++]);
					break;
				}
				if (t[i] == '\n')
					line++;
				PUT(t[i++]);
			}
		} else if (ch == 'I' && (i == 0 || !is_ident(t[i - 1])) &&
			   len - i >= 3 && memcmp(t + i, "Inf", 3) == 0 &&
			   (len - i == 3 || !is_ident(t[i + 3]))) {
			const char *s = "Infinity";

			while (*s)
				PUT(*s++);
			i += 3;
		} else {
			if (ch == '\n')
				line++;
			if (ch == '{') {
				if (braces)
					braces[nb] = line;
				nb++;
			}
			PUT(ch);
			i++;
		}
	}
#undef PUT
	*nbraces = nb;
	return o;
}

static unsigned line_at(const char *t, size_t off)
{
	unsigned line = 1;
	size_t i;

	for (i = 0; i < off; i++)
		if (t[i] == '\n')
			line++;
	return line;
}

/* Number the objects of the tree in document order (json-c keeps keys in
 * insertion order) and pair each with the line of the matching '{'. */
static void map_objects(struct ctx *c, json_object *o, size_t *idx, int *bad)
{
	size_t i, n;

	if (*bad || !o)
		return;
	if (json_object_is_type(o, json_type_object)) {
		if (*idx >= c->nbraces) {
			*bad = 1;
			return;
		}
		c->lines[*idx].obj = o;
		c->lines[*idx].line = c->braces[*idx];
		(*idx)++;
		json_object_object_foreach(o, key, val)
		{
			(void)key;
			map_objects(c, val, idx, bad);
		}
	} else if (json_object_is_type(o, json_type_array)) {
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			map_objects(c, json_object_array_get_idx(o, i), idx,
				    bad);
	}
}

static int cmp_objline(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct objline *)a)->obj;
	uintptr_t y = (uintptr_t)((const struct objline *)b)->obj;

	return (x > y) - (x < y);
}

static int build_lines(struct ctx *c, json_object *root)
{
	size_t idx = 0;
	int bad = 0;

	if (c->nbraces == 0)
		return 0;
	c->lines = calloc(c->nbraces, sizeof(*c->lines));
	if (!c->lines)
		return -ENOMEM;
	map_objects(c, root, &idx, &bad);
	if (bad || idx != c->nbraces) {
		/* duplicate keys or a construct the scan misread: no lines
		 * rather than wrong ones */
		free(c->lines);
		c->lines = NULL;
		return 0;
	}
	qsort(c->lines, idx, sizeof(*c->lines), cmp_objline);
	c->nlines = idx;
	return 0;
}

/* ------------------------------------------------------------------ */
/* JSON access                                                          */

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v; /* NULL also for JSON null */
}

static const char *get_str(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string)
		   ? json_object_get_string(v)
		   : NULL;
}

static const char *schema_of(json_object *o)
{
	return get_str(o, "OTIO_SCHEMA");
}

/* "Clip.2" is "Clip" version 2: compare the name part only. */
static int schema_is(const char *schema, const char *name)
{
	size_t n = strlen(name);

	return schema && strncmp(schema, name, n) == 0 && schema[n] == '.';
}

/* "enabled": absent means true; anything but a boolean is an error. */
static int enabled(struct ctx *c, json_object *o)
{
	json_object *v;

	if (!json_object_object_get_ex(o, "enabled", &v) || !v)
		return 1;
	if (!json_object_is_type(v, json_type_boolean)) {
		err(c, o, "\"enabled\" must be true or false");
		return 1;
	}
	return json_object_get_boolean(v);
}

/* "enabled": false, without a message (enabled() reports the bad ones). */
static int disabled(json_object *o)
{
	json_object *v = get(o, "enabled");

	return v && json_object_is_type(v, json_type_boolean) &&
	       !json_object_get_boolean(v);
}

/* ------------------------------------------------------------------ */
/* Rates and times                                                      */

/* Rounded to nearest for 0 <= x < 2^62, without libm. */
static uint64_t round_pos(double x)
{
	return (uint64_t)(x + 0.5);
}

static int rate_to_fps(double r, struct eng_fps *f)
{
	uint64_t n, k, m, g;

	if (!(r > 0 && r <= 1e6)) /* also rejects NaN */
		return -EINVAL;
	n = round_pos(r);
	if (n >= 1 && __builtin_fabs(r - (double)n) < 1e-6) {
		f->num = (uint32_t)n;
		f->den = 1;
		return 0;
	}
	k = round_pos(r * 1.001);
	if (k >= 1 && __builtin_fabs(r - (double)k * 1000.0 / 1001.0) < 5e-4) {
		f->num = (uint32_t)(k * 1000);
		f->den = 1001;
		return 0;
	}
	m = round_pos(r * 1000);
	if (m < 1)
		return -EINVAL;
	g = eng_gcd64(m, 1000);
	f->num = (uint32_t)(m / g);
	f->den = (uint32_t)(1000 / g);
	return 0;
}

/* value (at rate r) in frames of the timeline rate, rounded to nearest. */
static int scale_int(int64_t v, struct eng_fps tl, struct eng_fps r,
		     int64_t *out)
{
	__int128 num = (__int128)v * tl.num * r.den;
	unsigned __int128 den = (unsigned __int128)tl.den * r.num;
	unsigned __int128 a =
	    num < 0 ? (unsigned __int128)-num : (unsigned __int128)num;
	unsigned __int128 q = (2 * a + den) / (2 * den);

	if (q > (unsigned __int128)OTIO_MAX_TIME)
		return -ERANGE;
	*out = num < 0 ? -(int64_t)q : (int64_t)q;
	return 0;
}

static int scale_double(double v, struct eng_fps tl, struct eng_fps r,
			int64_t *out)
{
	long double f;

	/* integral values take the exact path */
	if (v > -9.2e18 && v < 9.2e18 && (double)(int64_t)v == v)
		return scale_int((int64_t)v, tl, r, out);
	f = (long double)v * tl.num * r.den / ((long double)tl.den * r.num);
	if (!(f <= (long double)OTIO_MAX_TIME &&
	      f >= -(long double)OTIO_MAX_TIME))
		return -ERANGE;
	*out = f < 0 ? -(int64_t)(-f + 0.5L) : (int64_t)(f + 0.5L);
	return 0;
}

/* A RationalTime.1 in frames; *rate gets its own rate when not NULL. */
static int rt_frames(struct ctx *c, json_object *holder, const char *field,
		     int64_t *out, struct eng_fps *rate)
{
	size_t old = jp_push(c, ".%s", field);
	json_object *rt = get(holder, field), *val, *rv;
	const char *schema;
	struct eng_fps r;
	double d;
	int rc = -EINVAL;

	if (!rt || !json_object_is_type(rt, json_type_object)) {
		err(c, holder,
		    rt ? "expected a RationalTime.1 object"
		       : "missing (a RationalTime.1 is required)");
		goto out;
	}
	schema = schema_of(rt);
	if (get(rt, "OTIO_SCHEMA") && !schema_is(schema, "RationalTime")) {
		err(c, rt, "expected RationalTime.1, found %s",
		    schema ? schema : "a non-string schema");
		goto out;
	}
	val = get(rt, "value");
	rv = get(rt, "rate");
	if (!rv || !(json_object_is_type(rv, json_type_int) ||
		     json_object_is_type(rv, json_type_double))) {
		err(c, rt, "\"rate\" is missing or not a number");
		goto out;
	}
	d = json_object_get_double(rv);
	if (rate_to_fps(d, &r) < 0) {
		err(c, rt, "rate %g is not a usable frame rate", d);
		goto out;
	}
	if (!val) {
		err(c, rt, "\"value\" is missing");
		goto out;
	}
	if (json_object_is_type(val, json_type_int)) {
		int64_t v = json_object_get_int64(val);

		/* json-c clamps what does not fit an int64 */
		if (v == INT64_MAX || v == INT64_MIN) {
			err(c, rt, "value %s is too large",
			    json_object_to_json_string(val));
			goto out;
		}
		rc = scale_int(v, c->fps, r, out);
	} else if (json_object_is_type(val, json_type_double)) {
		rc = scale_double(json_object_get_double(val), c->fps, r, out);
	} else {
		err(c, rt, "\"value\" is not a number");
		goto out;
	}
	if (rc < 0) {
		err(c, rt, "value %s at rate %g is out of range",
		    json_object_to_json_string(val), d);
		rc = -EINVAL;
		goto out;
	}
	if (rate)
		*rate = r;
out:
	jp_pop(c, old);
	return rc;
}

/* A TimeRange.1: start_time and duration in frames. */
static int tr_frames(struct ctx *c, json_object *holder, json_object *tr,
		     const char *field, int64_t *start, int64_t *dur)
{
	size_t old = jp_push(c, ".%s", field);
	const char *schema;
	int rc = -EINVAL;

	if (!json_object_is_type(tr, json_type_object)) {
		err(c, holder, "expected a TimeRange.1 object");
		goto out;
	}
	schema = schema_of(tr);
	if (get(tr, "OTIO_SCHEMA") && !schema_is(schema, "TimeRange")) {
		err(c, tr, "expected TimeRange.1, found %s",
		    schema ? schema : "a non-string schema");
		goto out;
	}
	rc = rt_frames(c, tr, "start_time", start, NULL);
	if (rt_frames(c, tr, "duration", dur, NULL) < 0)
		rc = -EINVAL;
	if (rc == 0 && *dur < 0) {
		err(c, tr, "negative duration");
		rc = -EINVAL;
	}
out:
	jp_pop(c, old);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Clip names                                                           */

/* The path of a target_url (or target_url_base), malloc'ed into *out:
 * a URL ("file:", any "scheme://") percent-decoded without its authority,
 * query and fragment; a plain path as it is (*is_url 0).  -EINVAL with
 * *why for a %00. */
static int url_path(const char *url, char **out, int *url_form,
		    const char **why)
{
	const char *p = url, *s, *r;
	char *buf, *q;
	int is_url = 0;
	size_t n;

	*out = NULL;
	s = strstr(url, "://");
	if (s && s > url) {
		/* a scheme: letters, digits, + - . */
		for (r = url; r < s && (is_ident(*r) || *r == '+' ||
					*r == '-' || *r == '.');
		     r++)
			;
		is_url = r == s;
	}
	if (is_url) {
		p = strchr(s + 3, '/'); /* skip the authority */
		if (!p)
			p = "";
	} else if (strncmp(url, "file:", 5) == 0) {
		p = url + 5;
		is_url = 1;
	}
	n = is_url ? strcspn(p, "?#") : strlen(p);
	buf = malloc(n + 1);
	if (!buf)
		return -ENOMEM;
	q = buf;
	for (s = p; s < p + n; s++) {
		if (is_url && *s == '%' && s + 2 < p + n &&
		    eng_hex_digit(s[1]) >= 0 && eng_hex_digit(s[2]) >= 0) {
			char ch = (char)(eng_hex_digit(s[1]) * 16 +
					 eng_hex_digit(s[2]));

			if (ch == '\0') {
				free(buf);
				*why = "holds %00";
				return -EINVAL;
			}
			*q++ = ch;
			s += 2;
		} else {
			*q++ = *s;
		}
	}
	*q = '\0';
	*out = buf;
	*url_form = is_url;
	return 0;
}

/* The clip name of a target_url, malloc'ed into *out, and its file name
 * (the last path component, extension kept) into *file when that differs;
 * -EINVAL with *why. */
static int url_clip_name(const char *url, char **out, char **file,
			 const char **why)
{
	const char *base;
	char *buf, *dot;
	int is_url, rc;

	*out = NULL;
	*file = NULL;
	rc = url_path(url, &buf, &is_url, why);
	if (rc == -EINVAL)
		*why = "target_url holds %00";
	if (rc < 0)
		return rc;
	base = strrchr(buf, '/');
	base = base ? base + 1 : buf;
	if (!is_url && strrchr(base, '\\'))
		base = strrchr(base, '\\') + 1;
	dot = strrchr(base, '.');
	if (dot && dot > base) {
		*file = strdup(base);
		if (!*file) {
			free(buf);
			return -ENOMEM;
		}
		*dot = '\0';
	}
	if (!*base) {
		free(*file);
		*file = NULL;
		free(buf);
		*why = "target_url has no file name";
		return -EINVAL;
	}
	memmove(buf, base, strlen(base) + 1);
	*out = buf;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Image sequences                                                      */

/* An integer field of a reference: *out = dflt when absent; -EINVAL (told)
 * when it is not an integer. */
static int int_field(struct ctx *c, json_object *ref, const char *key,
		     int64_t dflt, int64_t *out)
{
	json_object *v = get(ref, key);

	*out = dflt;
	if (!v)
		return 0;
	if (!json_object_is_type(v, json_type_int)) {
		err(c, ref, "ImageSequenceReference %s is not an integer", key);
		return -EINVAL;
	}
	*out = json_object_get_int64(v);
	if (*out == INT64_MAX || *out == INT64_MIN) {
		err(c, ref, "ImageSequenceReference %s %s is too large", key,
		    json_object_to_json_string(v));
		return -EINVAL;
	}
	return 0;
}

/* A string field of a reference, "" when absent; NULL (told) when it is
 * not a string. */
static const char *str_field(struct ctx *c, json_object *ref,
			     const char *key)
{
	json_object *v = get(ref, key);

	if (!v)
		return "";
	if (!json_object_is_type(v, json_type_string)) {
		err(c, ref, "ImageSequenceReference %s is not a string", key);
		return NULL;
	}
	return json_object_get_string(v);
}

/* The folder of target_url_base inside the media folder: its last
 * component ("file:///renders/shotB/" -> "shotB"), "" for none or "."; the
 * media folder holds the timeline's media as it does for any clip.  And
 * into *dir the full path of a '/'-rooted one ("/renders/shotB"), NULL for
 * another: a folder inside the media folder is looked for there first
 * (eng_seq_ref.dir).  malloc'ed, NULL (told, or c->nomem) on failure. */
static char *seq_base(struct ctx *c, json_object *ref, const char *url,
		      char **dir)
{
	const char *why;
	char *buf, *e, *b;
	int is_url, rooted, rc;

	*dir = NULL;
	rc = url_path(url, &buf, &is_url, &why);
	if (rc == -ENOMEM)
		c->nomem = 1;
	if (rc == -EINVAL)
		err(c, ref, "target_url_base %s: \"%s\"", why, url);
	if (rc < 0)
		return NULL;
	rooted = buf[0] == '/';
	e = buf + strlen(buf);
	while (e > buf && (e[-1] == '/' || (!is_url && e[-1] == '\\')))
		*--e = '\0';
	if (rooted) {
		*dir = strdup(e == buf ? "/" : buf);
		if (!*dir) {
			c->nomem = 1;
			free(buf);
			return NULL;
		}
	}
	for (b = e; b > buf && b[-1] != '/' && (is_url || b[-1] != '\\'); b--)
		;
	if (strcmp(b, ".") == 0)
		b = e;
	memmove(buf, b, strlen(b) + 1);
	return buf;
}

/* Two references to the same images, played the same way. */
static int seq_same(const struct eng_seq_ref *a, const struct eng_seq_ref *b)
{
	/* dir aside: references by the last-folder rule the same images
	 * (the first's full path is the clip's) */
	return strcmp(a->base, b->base) == 0 &&
	       strcmp(a->prefix, b->prefix) == 0 &&
	       strcmp(a->suffix, b->suffix) == 0 && a->start == b->start &&
	       a->step == b->step && a->padding == b->padding &&
	       a->missing == b->missing && a->origin == b->origin &&
	       a->rate.num == b->rate.num && a->rate.den == b->rate.den;
}

/*
 * An ImageSequenceReference as OTIO reads it (imageSequenceReference.cpp):
 * target_url_base, name_prefix, name_suffix, start_frame (default 1),
 * frame_step (1), rate, frame_zero_padding (0), missing_frame_policy
 * ("error").  Image i is file start_frame + i * frame_step, at time
 * available_range.start + i * frame_step / rate (frame_for_time), so the
 * images play at rate / frame_step a second: that must be the timeline's
 * rate, since a source frame plays one image (source frame f, counted from
 * the available range's start, is image f: origin 0).  Without an
 * available_range OTIO has no image at any time and its default rate is 1:
 * the rate is then not checked and image 0 is source time 0.  The clip is
 * named by name_prefix without its trailing '.', '_', '-' or blanks
 * ("A001C003." -> A001C003, as timelinefs-gen names a sequence's folder
 * and files), else by the folder, else by the clip's name.  Returns 0 with
 * *r's strings malloc'ed and *name (malloc'ed), or -EINVAL (told).
 */
static int seq_eval(struct ctx *c, json_object *clip, json_object *ref,
		    int have_ar, struct eng_seq_ref *r, char **name)
{
	const char *url, *pre, *suf, *pol, *cn;
	json_object *rv;
	int64_t pad = 0;
	size_t n;
	int m, rc = 0;

	memset(r, 0, sizeof(*r));
	*name = NULL;
	r->line = line_of(c, ref);
	url = str_field(c, ref, "target_url_base");
	pre = str_field(c, ref, "name_prefix");
	suf = str_field(c, ref, "name_suffix");
	pol = str_field(c, ref, "missing_frame_policy");
	if (!url || !pre || !suf || !pol)
		rc = -EINVAL;
	if (int_field(c, ref, "start_frame", 1, &r->start) < 0 ||
	    int_field(c, ref, "frame_step", 1, &r->step) < 0 ||
	    int_field(c, ref, "frame_zero_padding", 0, &pad) < 0)
		rc = -EINVAL;
	if (rc == 0 && r->step < 1) {
		err(c, ref,
		    "ImageSequenceReference frame_step %lld: must be 1 or "
		    "more", (long long)r->step);
		rc = -EINVAL;
	}
	if (rc == 0 && (pad < 0 || pad > 64)) {
		err(c, ref,
		    "ImageSequenceReference frame_zero_padding %lld: must be "
		    "0 to 64", (long long)pad);
		rc = -EINVAL;
	}
	r->padding = (int)pad;
	if (pol && *pol) {
		m = eng_seq_missing_find(pol);
		if (m < 0 || strcmp(pol, eng_seq_missing_name((uint32_t)m))) {
			err(c, ref,
			    "unknown missing_frame_policy \"%s\" (error, hold "
			    "or black)", pol);
			rc = -EINVAL;
		} else {
			r->missing = (uint32_t)m;
		}
	}
	rv = get(ref, "rate");
	if (rv && have_ar) {
		double d = json_object_get_double(rv);

		if (!(json_object_is_type(rv, json_type_int) ||
		      json_object_is_type(rv, json_type_double)) ||
		    rate_to_fps(d, &r->rate) < 0) {
			err(c, ref,
			    "ImageSequenceReference rate %s is not a usable "
			    "frame rate", json_object_to_json_string(rv));
			rc = -EINVAL;
		} else if (rc == 0 &&
			   (unsigned __int128)r->rate.num * c->fps.den !=
				   (unsigned __int128)r->step * c->fps.num *
					   r->rate.den) {
			err(c, ref,
			    "ImageSequenceReference rate %g over frame_step "
			    "%lld is %g images a second, not the timeline's "
			    "%u/%u frames: each frame plays one image",
			    d, (long long)r->step, d / (double)r->step,
			    c->fps.num, c->fps.den);
			rc = -EINVAL;
		}
	}
	/* before the clip name, which it would make a path */
	if (rc == 0 && (strchr(pre, '/') || strchr(suf, '/'))) {
		err(c, ref,
		    "ImageSequenceReference: a '/' in the name prefix or "
		    "suffix");
		rc = -EINVAL;
	}
	if (rc < 0)
		return rc;
	r->base = seq_base(c, ref, url, &r->dir); /* told when NULL */
	if (!r->base)
		goto fail;
	r->prefix = strdup(pre);
	r->suffix = strdup(suf);
	if (!r->prefix || !r->suffix) {
		c->nomem = 1;
		goto fail;
	}
	for (n = strlen(pre); n > 0 && strchr("._- ", pre[n - 1]); n--)
		;
	if (n)
		*name = strndup(pre, n);
	else if (*r->base)
		*name = strdup(r->base);
	else if ((cn = get_str(clip, "name")) && *cn)
		*name = strdup(cn);
	else {
		err(c, ref,
		    "ImageSequenceReference has no name_prefix, folder or clip "
		    "name to name the clip");
		goto fail;
	}
	if (*name)
		return 0;
	c->nomem = 1;
fail:
	free(r->base);
	free(r->dir);
	free(r->prefix);
	free(r->suffix);
	memset(r, 0, sizeof(*r));
	return -EINVAL;
}

/*
 * The clip named cname for a sequence seq (NULL: any other media).  A
 * name is one media's: where cname already names a clip of other media
 * (another sequence, or a file where this is a sequence, or the reverse)
 * the clip is cname~2, cname~3 ... so that no clip plays another's
 * images.  Returns its index, -ENOMEM, or -EINVAL (*why: NULL for a bad
 * name, else eng_tl_clip_seq's reason).
 */
static int otio_clip(struct ctx *c, const char *cname,
		     const struct eng_seq_ref *seq, unsigned line,
		     const char **why)
{
	size_t len = strlen(cname) + 24, i;
	const struct eng_clip *cl;
	char *nm = malloc(len);
	unsigned k;
	int rc;

	*why = NULL;
	if (!nm)
		return -ENOMEM;
	for (k = 1;; k++) {
		if (k == 1)
			snprintf(nm, len, "%s", cname);
		else
			snprintf(nm, len, "%s~%u", cname, k);
		for (i = 0; i < c->tl->nclips; i++)
			if (strcmp(c->tl->clips[i].name, nm) == 0)
				break;
		if (i == c->tl->nclips)
			break;
		cl = &c->tl->clips[i];
		if (seq ? cl->seq && seq_same(cl->seq, seq) : !cl->seq) {
			free(nm);
			return (int)i;
		}
	}
	rc = eng_tl_clip(c->tl, nm, line);
	free(nm);
	if (rc >= 0 && seq) {
		int e = eng_tl_clip_seq(c->tl, (uint32_t)rc, seq, why);

		if (e < 0)
			return e;
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* Output tracks                                                        */

static int push_pseg(struct pseglist *l, const struct pseg *s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct pseg *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *s;
	return 0;
}

static void put_seg(struct ctx *c, struct pseglist *l, const struct xform *xf,
		    uint32_t clip, int64_t src, int64_t rec, int64_t frames,
		    unsigned line)
{
	struct pseg s = {.clip = clip, .line = line};
	int64_t end;

	if (xf->mute || frames <= 0)
		return;
	rec += xf->shift;
	end = rec + frames;
	if (rec < xf->lo) {
		src += xf->lo - rec;
		rec = xf->lo;
	}
	if (end > xf->hi)
		end = xf->hi;
	if (end <= rec)
		return;
	s.src = src;
	s.rec = rec;
	s.frames = end - rec;
	if (push_pseg(l, &s) < 0)
		c->nomem = 1;
}

static struct otrack *new_otrack(struct ctx *c, json_object *trk, int audio)
{
	unsigned nkind = 1;
	struct otrack *t;
	size_t i;

	for (i = 0; i < c->not ; i++)
		nkind += c->ot[i].audio == audio;
	if (nkind > OTIO_MAX_TRACKS) {
		err(c, trk, "more than %d %s tracks", OTIO_MAX_TRACKS,
		    audio ? "audio" : "video");
		return NULL;
	}
	if (c->not == c->capot) {
		size_t cap = c->capot ? c->capot * 2 : 8;

		t = realloc(c->ot, cap * sizeof(*t));
		if (!t) {
			c->nomem = 1;
			return NULL;
		}
		c->ot = t;
		c->capot = cap;
	}
	t = &c->ot[c->not ++];
	memset(t, 0, sizeof(*t));
	t->audio = audio;
	if (audio)
		snprintf(t->name, sizeof(t->name), "A%u", nkind);
	else if (nkind == 1)
		snprintf(t->name, sizeof(t->name), "V");
	else
		snprintf(t->name, sizeof(t->name), "V%u", nkind);
	return t;
}

/* ------------------------------------------------------------------ */
/* Items                                                                */

static void check_effects(struct ctx *c, json_object *o)
{
	json_object *fx = get(o, "effects");
	size_t i, n;

	if (!fx || !c->opt->strict || !json_object_is_type(fx, json_type_array))
		return;
	n = json_object_array_length(fx);
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(fx, i);
		const char *s = schema_of(e);

		if (schema_is(s, "LinearTimeWarp") ||
		    schema_is(s, "FreezeFrame") || schema_is(s, "TimeEffect"))
			err(c, e,
			    "effects[%zu]: time effect %s is not supported", i,
			    s);
	}
}

/* The media reference a clip plays; NULL when it has none.  Errors set
 * *bad, and are reported when c is not NULL. */
static json_object *media_ref(struct ctx *c, json_object *clip,
			      const char *schema, int *bad)
{
	json_object *refs, *key, *ref = NULL;
	const char *k = "DEFAULT_MEDIA";

	if (!schema_is(schema, "Clip") || strcmp(schema, "Clip.1") == 0)
		return get(clip, "media_reference");
	refs = get(clip, "media_references");
	key = get(clip, "active_media_reference_key");
	if (key) {
		if (!json_object_is_type(key, json_type_string)) {
			if (c)
				err(c, clip,
				    "active_media_reference_key is not "
				    "a string");
			*bad = 1;
			return NULL;
		}
		k = json_object_get_string(key);
	}
	if (!refs)
		return NULL;
	if (!json_object_is_type(refs, json_type_object)) {
		if (c)
			err(c, clip, "media_references is not an object");
		*bad = 1;
		return NULL;
	}
	if (!json_object_object_get_ex(refs, k, &ref)) {
		if (c)
			err(c, clip,
			    "media_references has no key \"%s\" "
			    "(active_media_reference_key)",
			    k);
		*bad = 1;
		return NULL;
	}
	return ref;
}

static void clip_eval(struct ctx *c, json_object *clip, const char *schema,
		      int want, int64_t *dur, struct clipinfo *ci)
{
	int64_t ar_start = 0, ar_dur = 0, sr_start = 0, sr_dur = 0;
	json_object *ref, *sr;
	const char *rs = NULL, *why = NULL, *cname;
	char *name = NULL, *file = NULL;
	int bad = 0, have_ar = 0, gen = 0, is_seq = 0, rc;
	struct eng_seq_ref seq;

	memset(ci, 0, sizeof(*ci));
	*dur = 0;
	ci->line = line_of(c, clip);
	check_effects(c, clip);
	ref = media_ref(c, clip, schema, &bad);
	if (ref && !json_object_is_type(ref, json_type_object)) {
		err(c, clip, "media reference is not an object");
		ref = NULL;
		bad = 1;
	}
	if (ref) {
		rs = schema_of(ref);
		if (get(ref, "available_range")) {
			if (tr_frames(c, ref, get(ref, "available_range"),
				      "media_reference.available_range",
				      &ar_start, &ar_dur) < 0)
				bad = 1;
			else
				have_ar = 1;
		}
	}
	sr = get(clip, "source_range");
	if (sr) {
		if (tr_frames(c, clip, sr, "source_range", &sr_start, &sr_dur) <
		    0)
			return;
	} else if (have_ar) {
		sr_start = ar_start;
		sr_dur = ar_dur;
	} else {
		if (!bad)
			err(c, clip,
			    "clip has neither source_range nor a "
			    "media reference with available_range");
		return;
	}
	*dur = sr_dur;
	if (bad)
		return;
	ci->src = sr_start - (have_ar ? ar_start : 0);
	ci->frames = sr_dur;
	if (ci->src < 0) {
		err(c, clip,
		    "source_range starts %lld frames before the "
		    "media's first frame",
		    (long long)-ci->src);
		return;
	}
	if (schema_is(rs, "ExternalReference")) {
		const char *url = get_str(ref, "target_url");

		if (!url) {
			err(c, ref,
			    "ExternalReference has no target_url string");
			return;
		}
		rc = url_clip_name(url, &name, &file, &why);
		if (rc == -ENOMEM) {
			c->nomem = 1;
			return;
		}
		if (rc < 0) {
			err(c, ref, "%s: \"%s\"", why, url);
			return;
		}
		cname = name;
	} else if (schema_is(rs, "ImageSequenceReference")) {
		if (seq_eval(c, clip, ref, have_ar, &seq, &name) < 0)
			return;
		is_seq = 1;
		cname = name;
	} else if (schema_is(rs, "GeneratorReference")) {
		gen = 1;
		cname = NULL;
	} else {
		if (ref && !schema_is(rs, "MissingReference") &&
		    c->opt->strict) {
			err(c, ref, "media reference %s is not supported",
			    rs ? rs : "without OTIO_SCHEMA");
			return;
		}
		cname = get_str(clip, "name");
		if (!cname || !*cname) {
			err(c, clip, "clip without media has no name to use");
			return;
		}
	}
	/* a muted clip is checked but not registered: it reads nothing */
	if (!gen && want && ci->frames > 0) {
		rc = otio_clip(c, cname, is_seq ? &seq : NULL, ci->line,
			       &why);
		if (rc == -ENOMEM) {
			c->nomem = 1;
		} else if (rc < 0 && why) {
			err(c, ref, "ImageSequenceReference: %s", why);
		} else if (rc < 0) {
			err(c, clip,
			    "\"%s\" cannot be a clip name "
			    "(it must be a plain file name)",
			    cname);
		} else {
			struct eng_clip *cl = &c->tl->clips[rc];

			ci->clip = (uint32_t)rc;
			ci->have = 1;
			if (file && !cl->file) {
				cl->file = file;
				file = NULL;
			}
			/* the media's time: its start timecode where
			 * available_range has one (media.c) */
			if (!cl->tc_set) {
				cl->tc_set = 1;
				cl->tc = have_ar ? ar_start : 0;
			}
		}
	}
	free(name);
	free(file);
	if (is_seq) {
		free(seq.base);
		free(seq.dir);
		free(seq.prefix);
		free(seq.suffix);
	}
}

static int add_pos(struct ctx *c, json_object *at, int64_t *pos, int64_t d)
{
	if (d > OTIO_MAX_POS - *pos) {
		err(c, at, "timeline is too long");
		return -EINVAL;
	}
	*pos += d;
	return 0;
}

static void emit_item(struct ctx *c, json_object *o, struct otrack *ot,
		      const struct xform *xf, int64_t pos, int64_t *dur,
		      struct clipinfo *ci);

/* A clip of a track whose end on the main track waits for what follows:
 * a transition after it moves its end back to where the transition
 * starts (it plays on the x track from there). */
struct pending {
	int have;
	struct clipinfo ci;
	int64_t src, rec, end; /* first source frame, record [rec, end) */
};

static void flush(struct ctx *c, struct otrack *ot, const struct xform *xf,
		  struct pending *p)
{
	if (p->have)
		put_seg(c, &ot->main, xf, p->ci.clip, p->src, p->rec,
			p->end - p->rec, p->ci.line);
	p->have = 0;
}

/* The children of a track, one after the other.  A transition at a cut
 * plays both sides from cut - in_offset to cut + out_offset, each source
 * frame once: the incoming side on the main track (a clip extended
 * backwards), the outgoing side on the x track (a clip carried over the
 * whole transition, leaving the main track where it starts).  A side that
 * is no clip (gap, generator, disabled clip, nested composition, the
 * track's start or end) is black and reads nothing. */
static void emit_track_children(struct ctx *c, json_object *trk,
				struct otrack *ot, const struct xform *xf,
				int64_t *dur)
{
	json_object *ch = get(trk, "children");
	struct pending prev = {0};
	struct clipinfo ci;
	int64_t pos = 0, pend_in = 0, d;
	int have_pend = 0;
	size_t i, n, old;

	*dur = 0;
	if (!ch)
		return;
	if (!json_object_is_type(ch, json_type_array)) {
		err(c, trk, "\"children\" is not an array");
		return;
	}
	n = json_object_array_length(ch);
	for (i = 0; i < n; i++) {
		json_object *it = json_object_array_get_idx(ch, i);
		const char *s = schema_of(it);

		old = jp_push(c, ".children[%zu]", i);
		c->where = trk;
		if (schema_is(s, "Transition")) {
			int64_t in = 0, outo = 0;

			if (rt_frames(c, it, "in_offset", &in, NULL) < 0 ||
			    rt_frames(c, it, "out_offset", &outo, NULL) < 0) {
				have_pend = 0;
			} else if (in < 0 || outo < 0) {
				err(c, it, "negative transition offset");
				have_pend = 0;
			} else {
				int on = enabled(c, it);

				if (prev.have && on) {
					int64_t st = pos - in < prev.rec
							 ? prev.rec
							 : pos - in;

					put_seg(c, &ot->x, xf, prev.ci.clip,
						prev.src + (st - prev.rec), st,
						pos + outo - st,
						line_of(c, it));
					prev.end = st;
				}
				have_pend = on;
				pend_in = in;
			}
			flush(c, ot, xf, &prev);
			jp_pop(c, old);
			continue;
		}
		/* what came before is settled: later segments win overlaps */
		flush(c, ot, xf, &prev);
		emit_item(c, it, ot, xf, pos, &d, &ci);
		if (ci.have) {
			int64_t ext = 0;

			if (have_pend) {
				/* nothing before the track's start */
				ext = pend_in < pos ? pend_in : pos;
				/* as a source_range before the media:
				 * frames that are not there */
				if (ext > ci.src) {
					err(c, it,
					    "transition needs %lld frames of "
					    "clip \"%s\" before the media's "
					    "first frame (in_offset %lld, "
					    "the clip starts at media frame "
					    "%lld)",
					    (long long)(ext - ci.src),
					    c->tl->clips[ci.clip].name,
					    (long long)pend_in,
					    (long long)ci.src);
					ext = ci.src;
				}
			}
			prev.have = 1;
			prev.ci = ci;
			prev.src = ci.src - ext;
			prev.rec = pos - ext;
			prev.end = pos + ci.frames;
		}
		have_pend = 0;
		jp_pop(c, old);
		if (add_pos(c, it, &pos, d) < 0)
			break;
	}
	flush(c, ot, xf, &prev);
	*dur = pos;
}

/* A nested composition at `pos`: its xform, then its children. */
static void emit_comp(struct ctx *c, json_object *o, const char *s,
		      struct otrack *ot, const struct xform *xf, int64_t pos,
		      int64_t *dur)
{
	struct xform in = *xf;
	json_object *sr = get(o, "source_range");
	int64_t st = 0, d = 0, nat = 0;
	int trim = 0;

	if (c->depth >= OTIO_MAX_NEST) {
		err(c, o, "compositions nested deeper than %d", OTIO_MAX_NEST);
		*dur = 0;
		return;
	}
	if (sr) {
		if (tr_frames(c, o, sr, "source_range", &st, &d) < 0) {
			*dur = 0;
			return;
		}
		trim = 1;
	}
	/* |shift| stays below 2^62: a few positions of at most 2^60 */
	in.shift = xf->shift + pos - st;
	if (in.shift > 2 * OTIO_MAX_POS || in.shift < -2 * OTIO_MAX_POS) {
		err(c, o, "time out of range");
		*dur = 0;
		return;
	}
	if (trim) {
		if (xf->shift + pos > in.lo)
			in.lo = xf->shift + pos;
		if (xf->shift + pos + d < in.hi)
			in.hi = xf->shift + pos + d;
	}
	if (!enabled(c, o))
		in.mute = 1;
	check_effects(c, o);
	c->depth++;
	if (schema_is(s, "Stack")) {
		json_object *ch = get(o, "children");
		size_t i, n;

		if (ch && !json_object_is_type(ch, json_type_array)) {
			err(c, o, "\"children\" is not an array");
			ch = NULL;
		}
		n = ch ? json_object_array_length(ch) : 0;
		for (i = 0; i < n; i++) {
			json_object *it = json_object_array_get_idx(ch, i);
			size_t old = jp_push(c, ".children[%zu]", i);
			struct clipinfo ci;
			int64_t cd;

			c->where = o;
			if (schema_is(schema_of(it), "Transition")) {
				err(c, it, "Transition.1 directly in a Stack");
			} else {
				emit_item(c, it, ot, &in, 0, &cd, &ci);
				if (ci.have)
					put_seg(c, &ot->main, &in, ci.clip,
						ci.src, 0, ci.frames, ci.line);
				if (cd > nat)
					nat = cd;
			}
			jp_pop(c, old);
		}
	} else {
		emit_track_children(c, o, ot, &in, &nat);
	}
	c->depth--;
	*dur = trim ? d : nat;
}

/* One item at internal position pos: its duration, and for a clip what to
 * place (the caller places it: transitions may extend it). */
static void emit_item(struct ctx *c, json_object *o, struct otrack *ot,
		      const struct xform *xf, int64_t pos, int64_t *dur,
		      struct clipinfo *ci)
{
	const char *s = schema_of(o);
	int64_t st;

	memset(ci, 0, sizeof(*ci));
	*dur = 0;
	if (!o || !json_object_is_type(o, json_type_object)) {
		err(c, o, "expected an OTIO object");
	} else if (!s) {
		err(c, o, "object has no OTIO_SCHEMA");
	} else if (schema_is(s, "Clip")) {
		if (strcmp(s, "Clip.1") && strcmp(s, "Clip.2")) {
			err(c, o, "unsupported schema version %s", s);
			return;
		}
		clip_eval(c, o, s, enabled(c, o) && !xf->mute, dur, ci);
	} else if (schema_is(s, "Gap") || schema_is(s, "Filler")) {
		json_object *sr = get(o, "source_range");

		if (!sr)
			err(c, o, "gap has no source_range");
		else if (tr_frames(c, o, sr, "source_range", &st, dur) < 0)
			*dur = 0;
	} else if (schema_is(s, "Stack") || schema_is(s, "Track") ||
		   schema_is(s, "Sequence")) {
		emit_comp(c, o, s, ot, xf, pos, dur);
	} else {
		err(c, o, "unsupported schema %s", s);
	}
}

/* ------------------------------------------------------------------ */
/* Timeline                                                             */

static int track_kind(struct ctx *c, json_object *trk, int *audio)
{
	json_object *k = get(trk, "kind");
	const char *s;

	*audio = 0;
	if (!k)
		return 0; /* OTIO's default kind */
	s = json_object_is_type(k, json_type_string) ? json_object_get_string(k)
						     : NULL;
	if (s && strcasecmp(s, "Video") == 0)
		return 0;
	if (s && strcasecmp(s, "Audio") == 0) {
		*audio = 1;
		return 0;
	}
	err(c, trk, "unsupported track kind %s (Video or Audio)",
	    json_object_to_json_string(k));
	return -EINVAL;
}

/* The rate of the first clip on a video track, document order. */
static int first_clip_rate(struct ctx *c, json_object *o, int depth,
			   struct eng_fps *r)
{
	const char *s = schema_of(o);
	json_object *ch, *tr, *ref;
	size_t i, n;

	if (depth > OTIO_MAX_NEST)
		return 0;
	if (schema_is(s, "Clip")) {
		int bad = 0;
		double d;

		tr = get(o, "source_range");
		if (!tr) {
			ref = media_ref(NULL, o, s, &bad);
			tr = get(ref, "available_range");
		}
		tr = get(get(tr, "duration"), "rate");
		if (!tr || !(json_object_is_type(tr, json_type_int) ||
			     json_object_is_type(tr, json_type_double)))
			return 0;
		d = json_object_get_double(tr);
		return rate_to_fps(d, r) == 0;
	}
	if (schema_is(s, "Track")) {
		const char *k = get_str(o, "kind");

		if (k && strcasecmp(k, "Audio") == 0)
			return 0;
	} else if (!schema_is(s, "Stack") && !schema_is(s, "Sequence")) {
		return 0;
	}
	ch = get(o, "children");
	if (!ch || !json_object_is_type(ch, json_type_array))
		return 0;
	n = json_object_array_length(ch);
	for (i = 0; i < n; i++)
		if (first_clip_rate(c, json_object_array_get_idx(ch, i),
				    depth + 1, r))
			return 1;
	return 0;
}

static void decide_fps(struct ctx *c, json_object *root, json_object *stack)
{
	json_object *g = get(root, "global_start_time");
	json_object *r = get(g, "rate");

	c->fps = c->opt->fps;
	if (r &&
	    (json_object_is_type(r, json_type_int) ||
	     json_object_is_type(r, json_type_double)) &&
	    rate_to_fps(json_object_get_double(r), &c->fps) == 0)
		return;
	if (!first_clip_rate(c, stack, 0, &c->fps))
		c->fps = c->opt->fps;
}

static void walk_stack(struct ctx *c, json_object *stack)
{
	struct xform xf = {.shift = 0, .lo = 0, .hi = OTIO_MAX_POS};
	json_object *ch, *sr;
	int64_t st, d;
	size_t i, n;

	sr = get(stack, "source_range");
	if (sr && tr_frames(c, stack, sr, "source_range", &st, &d) == 0) {
		xf.shift = -st;
		if (d < xf.hi)
			xf.hi = d;
	}
	check_effects(c, stack);
	ch = get(stack, "children");
	if (!ch)
		return;
	if (!json_object_is_type(ch, json_type_array)) {
		err(c, stack, "\"children\" is not an array");
		return;
	}
	n = json_object_array_length(ch);
	for (i = 0; i < n; i++) {
		json_object *trk = json_object_array_get_idx(ch, i);
		const char *s = schema_of(trk);
		size_t old = jp_push(c, ".children[%zu]", i);
		struct otrack *ot;
		struct clipinfo ci;
		int audio;

		c->where = stack;
		if (!schema_is(s, "Track") && !schema_is(s, "Sequence")) {
			err(c, trk,
			    "expected Track.1 in the timeline's stack, "
			    "found %s",
			    s ? s : "an object without OTIO_SCHEMA");
		} else if (!disabled(trk) && track_kind(c, trk, &audio) == 0 &&
			   (ot = new_otrack(c, trk, audio)) != NULL) {
			emit_item(c, trk, ot, &xf, 0, &d, &ci);
		}
		jp_pop(c, old);
		if (c->nomem)
			break;
	}
}

static int build(struct ctx *c)
{
	const struct eng_load_options *o = c->opt;
	size_t i, j, k;
	int t, rc;

	for (i = 0; i < c->not ; i++) {
		struct otrack *ot = &c->ot[i];
		uint64_t rate = ot->audio ? o->audio_rate : o->video_rate;
		uint32_t align = ot->audio ? o->audio_align : 1;

		for (k = 0; k < 2; k++) {
			struct pseglist *l = k ? &ot->x : &ot->main;
			char nm[ENG_TRACK_NAME_MAX];

			if (k && !l->n)
				continue;
			snprintf(nm, sizeof(nm), "%s%s", ot->name,
				 k ? "x" : "");
			t = !ot->audio && o->picture.pix != ENG_PIX_NONE ?
				eng_tl_add_picture_track(c->tl, nm,
							 &o->picture) :
				eng_tl_add_track(c->tl, nm, rate, align);
			if (t == -ENOMEM)
				return t;
			if (t < 0) {
				eng_diag_add(c->diag, c->path, 0,
					     "cannot add "
					     "track %s (rate %llu, align %u)",
					     nm, (unsigned long long)rate,
					     align);
				c->nerr++;
				continue;
			}
			for (j = 0; j < l->n; j++) {
				const struct pseg *s = &l->v[j];

				rc = eng_tl_add_segment(c->tl, (size_t)t,
							s->clip, s->src, s->rec,
							s->frames, s->line);
				if (rc == -ENOMEM)
					return rc;
				if (rc < 0) {
					eng_diag_add(
					    c->diag, c->path, s->line,
					    "track %s: event out of range "
					    "(source %lld, record %lld, "
					    "%lld frames)",
					    nm, (long long)s->src,
					    (long long)s->rec,
					    (long long)s->frames);
					c->nerr++;
				}
			}
		}
	}
	return 0;
}

int eng_otio_parse(const char *path, const char *name, const char *text,
		   size_t len, const struct eng_load_options *opt,
		   struct eng_timeline **out, struct eng_diag *diag)
{
	struct ctx c = {.path = path, .opt = opt, .diag = diag};
	struct json_tokener *tok = NULL;
	json_object *root = NULL, *stack;
	char *buf = NULL;
	const char *s, *nul;
	size_t blen, nb, end, i;
	int rc = -EINVAL;

	*out = NULL;
	nul = memchr(text, '\0', len);
	if (nul) {
		eng_diag_add(diag, path, line_at(text, (size_t)(nul - text)),
			     "NUL byte in a JSON file");
		goto out;
	}
	blen = prescan(text, len, NULL, NULL, &nb);
	buf = malloc(blen + 1);
	c.braces = malloc((nb ? nb : 1) * sizeof(*c.braces));
	if (!buf || !c.braces)
		goto nomem;
	prescan(text, len, buf, c.braces, &c.nbraces);
	buf[blen] = '\0';
	if (blen > INT32_MAX) {
		eng_diag_add(diag, path, 0, "file too large for json-c");
		goto out;
	}

	tok = json_tokener_new_ex(OTIO_JSON_DEPTH);
	if (!tok)
		goto nomem;
	root = json_tokener_parse_ex(tok, buf, (int)blen);
	if (!root) {
		enum json_tokener_error je = json_tokener_get_error(tok);

		if (je == json_tokener_continue || je == json_tokener_success)
			eng_diag_add(diag, path, line_at(buf, blen),
				     "invalid JSON: unexpected end of file");
		else
			eng_diag_add(
			    diag, path,
			    line_at(buf, json_tokener_get_parse_end(tok)),
			    "invalid JSON: %s", json_tokener_error_desc(je));
		goto out;
	}
	end = json_tokener_get_parse_end(tok);
	for (i = end; i < blen; i++)
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
		    buf[i] != '\r')
			break;
	if (i < blen) {
		eng_diag_add(diag, path, line_at(buf, i),
			     "invalid JSON: data after the top-level value");
		goto out;
	}
	if (build_lines(&c, root) < 0)
		goto nomem;

	s = schema_of(root);
	if (!json_object_is_type(root, json_type_object) ||
	    !schema_is(s, "Timeline")) {
		err(&c, root,
		    "not an OpenTimelineIO timeline: expected "
		    "OTIO_SCHEMA Timeline.1, found %s",
		    s ? s : "none");
		goto out;
	}
	jp_push(&c, "tracks");
	stack = get(root, "tracks");
	if (!stack || !schema_is(schema_of(stack), "Stack")) {
		err(&c, stack ? stack : root,
		    "timeline needs \"tracks\": a "
		    "Stack.1 object");
		goto out;
	}
	decide_fps(&c, root, stack);
	if (!c.fps.num || !c.fps.den) {
		/* only a caller's opt->fps can be 0: times cannot convert */
		err(&c, root, "no frame rate (the options' fps is 0)");
		goto out;
	}
	c.tl = eng_tl_new(name, path);
	if (!c.tl)
		goto nomem;
	c.tl->fps = c.fps;
	walk_stack(&c, stack);
	if (c.nomem)
		goto nomem;
	if (c.nerr)
		goto out;
	rc = build(&c);
	if (rc < 0)
		goto nomem;
	if (c.nerr) {
		rc = -EINVAL;
		goto out;
	}
	rc = eng_tl_finalize(c.tl, diag);
	if (rc < 0)
		goto out;
	*out = c.tl;
	c.tl = NULL;
	goto out;
nomem:
	rc = -ENOMEM;
out:
	for (i = 0; i < c.not ; i++) {
		free(c.ot[i].main.v);
		free(c.ot[i].x.v);
	}
	free(c.ot);
	eng_tl_free(c.tl);
	free(c.lines);
	free(c.braces);
	json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	free(buf);
	if (rc == -EINVAL && diag && diag->n == 0)
		eng_diag_add(diag, path, 0, "invalid timeline");
	return rc;
}
