/* SPDX-License-Identifier: MIT */
/*
 * The load options of the formats that carry no rates (EDL, OTIO): their
 * defaults and the checks of the values the mount and timelinefs-gen share.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "timeline/load.h"
#include "timeline/timecode.h"

void eng_load_options_default(struct eng_load_options *o)
{
	memset(o, 0, sizeof(*o));
	o->fps.num = 30000;
	o->fps.den = 1001;
	o->video_rate = 18000000;
	o->audio_rate = 144000;
	o->audio_align = 3;
	o->edl_origin = ENG_EDL_ORIGIN_MIN;
	o->strict = 0;
}

int eng_audio_rate_check(uint64_t rate, uint32_t align, char *why,
			 size_t len)
{
	if (rate == 0) {
		snprintf(why, len, "must be positive (144000 is 48 kHz)");
		return -EINVAL;
	}
	if (align == 0 || rate % align) {
		snprintf(why, len,
			 "not a multiple of %" PRIu32 ": audio tracks hold "
			 "whole %" PRIu32 "-bit samples (144000 is 48 kHz)",
			 align, align * 8);
		return -EINVAL;
	}
	if (rate / align > UINT32_MAX) {
		snprintf(why, len,
			 "more than %" PRIu32 " samples per second, the most "
			 "a WAVE file can declare",
			 UINT32_MAX);
		return -EINVAL;
	}
	return 0;
}

int eng_picture_option_parse(const char *s, struct eng_picture *out,
			     char *why, size_t len)
{
	const char *colon = strchr(s, ':'), *reason;
	char format[8];

	memset(out, 0, sizeof(*out));
	if (strcmp(s, "none") == 0)
		return 0;
	if (!colon || (size_t)(colon - s) >= sizeof(format)) {
		snprintf(why, len, "expected FORMAT:WIDTHxHEIGHT, e.g. "
			 "2vuy:720x486 or v210:1920x1080, or none");
		return -EINVAL;
	}
	memcpy(format, s, (size_t)(colon - s));
	format[colon - s] = '\0';
	if (eng_picture_parse(format, colon + 1, out, &reason) < 0) {
		memset(out, 0, sizeof(*out));
		snprintf(why, len, "%s", reason);
		return -EINVAL;
	}
	return 0;
}

int eng_edl_origin_parse(const char *s, struct eng_load_options *o, char *why,
			 size_t len)
{
	struct eng_tc tc;
	int rc;

	if (strcmp(s, "min") == 0) {
		o->edl_origin = ENG_EDL_ORIGIN_MIN;
		return 0;
	}
	if (strcmp(s, "zero") == 0) {
		o->edl_origin = ENG_EDL_ORIGIN_ZERO;
		return 0;
	}
	rc = eng_tc_parse(s, &tc);
	if (rc == -ERANGE) {
		snprintf(why, len, "minutes and seconds must be below 60");
		return -EINVAL;
	}
	if (rc < 0) {
		snprintf(why, len,
			 "expected min, zero or HH:MM:SS:FF "
			 "(HH:MM:SS;FF drop frame)");
		return -EINVAL;
	}
	o->edl_origin = ENG_EDL_ORIGIN_TC;
	o->edl_origin_tc = tc;
	return 0;
}
