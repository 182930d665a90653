/* SPDX-License-Identifier: MIT */
/*
 * The native .tl format: its parser (tl_parse.c) and writer (tl_write.c).
 * Owns the .tl spelling of a clip name (%XX escapes), so that writing a
 * parsed timeline and parsing it again gives the same timeline.
 */
#ifndef ENG_TL_H
#define ENG_TL_H

#include <stddef.h>

#include "timeline/model.h"

/* Native .tl (docs/design.md).  `path` names the file in messages, `name` is
 * the timeline's name; text[0..len) need not be NUL-terminated.  '#' at
 * the start of a word begins a comment (so a clip may be named "take#2").
 * In a clip word %XX (two hex digits) is the byte XX, as eng_tl_write
 * spells a blank, '#' or '%' ("shot%20one" is the clip "shot one"); a '%'
 * not followed by two hex digits is itself.  The decoded name is the one
 * checked ("a%2Fb" holds a '/': refused).  "seq CLIP PATTERN first=N
 * [step=S] [missing=error|hold|black]" makes CLIP an image sequence
 * (docs/formats.md "Sequence clips"; eng_tl_clip_seq): in PATTERN one
 * %0Nd or %d is the number, %% a '%', %20 a blank, %23 a '#'; a seq line
 * for a clip no event plays is an error.  "record CLIP" says CLIP is
 * recorded through the mount's ingest folder (eng_clip.record; media.h
 * rule 4): refused twice, for a sequence clip or one no event plays.
 * "clip CLIP [file=NAME] [origin=HH:MM:SS:FF]" names the clip's media
 * file (eng_clip.file, %XX decoded) and the timecode of its source frame
 * 0 (eng_clip.tc); an event's SRC_IN may be a timecode (HH:MM:SS:FF, ';'
 * before FF drop frame, at the timeline's rate): the clip then counts its
 * source as an EDL clip does, from origin= or else from the earliest of
 * its timecode SRC_INs, which become source frames from it (one before
 * origin= is an error); refused twice, saying nothing, or for a clip no
 * event plays.
 * Every problem found is added to diag; returns 0, -EINVAL (diag has the
 * reasons) or -ENOMEM; *out is NULL on failure. */
int eng_tl_parse(const char *path, const char *name, const char *text,
		 size_t len, struct eng_timeline **out, struct eng_diag *diag);

/* The .tl text (tl_write.c) of a finalized timeline from any
 * parser: a comment line naming it, fps, the tracks in order, a seq line
 * per sequence clip played (first= the number of the image its source
 * frame 0 plays, so that the files are the same) or a record line per
 * recorded clip played, a clip line per clip played whose file or origin
 * the media need (all clips with one, before eng_media_resolve; after
 * it, file= where a track plays the named file and origin= where a
 * track's media have a start timecode, the SRC_INs of such a clip
 * written as timecodes, origin= left out where a segment plays its
 * source frame 0), so that the dump reads the same media frames; then per
 * track one "event TRACK CLIP SRC FRAMES @REC" per resolved segment, in
 * record order.  Parsing it gives the same tracks, segments and clip
 * names (lines aside), hence the same virtual file, and writing that
 * again gives the same text.  In a .tl clip word %XX is the byte XX
 * (eng_tl_parse), so every '%' of a name is written %25.  A clip whose
 * name has no plain .tl spelling (a blank in it, or a leading '#') is one
 * message each and -EINVAL, unless flags has ENG_TL_WRITE_ESCAPE: then
 * every blank and '#' is written %XX too (upper-case hex); a second
 * comment line says so when a name was escaped.  *text is malloc'ed and
 * NUL-terminated (*len excludes the NUL; NULL on failure); returns 0,
 * -EINVAL or -ENOMEM. */
#define ENG_TL_WRITE_ESCAPE 1u
int eng_tl_write(const struct eng_timeline *tl, unsigned flags, char **text,
		 size_t *len, struct eng_diag *diag);

#endif /* ENG_TL_H */
