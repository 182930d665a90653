/* SPDX-License-Identifier: MIT */
/*
 * SMPTE timecode (timecode.c): the one parser of "HH:MM:SS:FF" for the EDL
 * parser, the mount's -o edl_origin= and timelinefs-gen, and drop-frame
 * counting.
 */
#ifndef ENG_TIMECODE_H
#define ENG_TIMECODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/values.h"

/* A SMPTE timecode as written (timecode.c). */
struct eng_tc {
	unsigned hh, mm, ss, ff;
	int drop;		/* the separator before FF is ';', '.' or ',' */
	char text[16];		/* as written, for messages */
};

/* "HH:MM:SS:FF": two digits a field (FF three above 99 fps), each
 * separator one of ':' ';' '.' ','; the one before FF other than ':'
 * marks drop frame (01:00:00;00).  No blanks, signs or junk.  Returns 0,
 * -EINVAL for another form, -ERANGE for minutes or seconds above 59 (*tc
 * is filled but for that). */
int eng_tc_parse(const char *s, struct eng_tc *tc);
/* Timecode frames per second: the rate rounded, 30 at 30000/1001; 0 for
 * a rate with den 0. */
unsigned eng_tc_nominal(struct eng_fps fps);
/* Whether fps has drop-frame timecode: 29.97 and 59.94 (N*1000/1001). */
int eng_tc_drop_rate(struct eng_fps fps);
/* The frame count of tc at fps, counted drop frame (frame numbers 0-1, at
 * 59.94 0-3, skipped at every minute not divisible by ten) when tc->drop
 * or drop (an EDL's FCM: DROP FRAME).  Returns 0; -ERANGE when FF is not
 * below the nominal rate; -ENOTSUP for drop frame at a rate that has
 * none; -ENOENT for a timecode that drop frame skips. */
int eng_tc_frames(const struct eng_tc *tc, struct eng_fps fps, int drop,
		  int64_t *frames);

/* "HH:MM:SS:FF" (';' '.' ',' before FF: drop frame) as the frame count
 * at fps: eng_tc_parse then eng_tc_frames, drop frame as written, for the
 * media readers' start timecodes.  Sets *drop to whether it was counted
 * drop frame.  0, or -EINVAL/-ERANGE/-ENOTSUP/-ENOENT as eng_tc_parse and
 * eng_tc_frames return them. */
int eng_tc_text_frames(const char *s, struct eng_fps fps, int64_t *frames,
		       int *drop);

/* The timecode of frame count `frames` (>= 0) at fps, drop frame when
 * drop (and fps has it): the inverse of eng_tc_frames, written
 * "HH:MM:SS:FF" (";" before FF for drop frame) into buf[len], hours
 * modulo 24 as a timecode wraps.  Returns 0; -ENOTSUP for drop frame at
 * a rate without it, -EINVAL for a negative count or len < 16. */
int eng_tc_format(int64_t frames, struct eng_fps fps, int drop, char *buf,
		  size_t len);

/* As eng_tc_format, but the hours are not wrapped: 00 to 99, as
 * eng_tc_parse reads them (-ERANGE past 99 hours), for a timecode that
 * must read back as the same frame count (a .tl source timecode). */
int eng_tc_format_exact(int64_t frames, struct eng_fps fps, int drop,
			char *buf, size_t len);

#endif /* ENG_TIMECODE_H */
