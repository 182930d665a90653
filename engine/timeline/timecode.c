/* SPDX-License-Identifier: MIT */
/*
 * SMPTE timecodes: the one parser of "HH:MM:SS:FF" for EDL files, the
 * mount's -o edl_origin= and timelinefs-gen --edl-origin, so that they
 * cannot read one timecode two ways (drop frame above all).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "timeline/timecode.h"
#include "util/values.h"

static int is_sep(char c)
{
	return c == ':' || c == ';' || c == '.' || c == ',';
}

int eng_tc_parse(const char *s, struct eng_tc *tc)
{
	unsigned v[4] = {0};
	const char *p = s;
	int k, d;

	memset(tc, 0, sizeof(*tc));
	for (k = 0; k < 4; k++) {
		if (k && !is_sep(*p++))
			return -EINVAL;
		for (d = 0; eng_is_digit(p[d]); d++) {
			/* two digits, FF three above 99 fps */
			if (d == (k == 3 ? 3 : 2))
				return -EINVAL;
			v[k] = v[k] * 10 + (unsigned)(p[d] - '0');
		}
		if (d < 2)
			return -EINVAL;
		p += d;
	}
	if (*p)
		return -EINVAL;
	tc->hh = v[0];
	tc->mm = v[1];
	tc->ss = v[2];
	tc->ff = v[3];
	/* the separator before FF says drop frame: 01:00:00;00 */
	tc->drop = s[8] != ':';
	snprintf(tc->text, sizeof(tc->text), "%s", s);
	if (tc->mm > 59 || tc->ss > 59)
		return -ERANGE;
	return 0;
}

unsigned eng_tc_nominal(struct eng_fps fps)
{
	return fps.den ? (unsigned)(((uint64_t)fps.num + fps.den / 2) / fps.den)
		       : 0;
}

int eng_tc_drop_rate(struct eng_fps fps)
{
	return fps.den == 1001 && (fps.num == 30000 || fps.num == 60000);
}

int eng_tc_frames(const struct eng_tc *tc, struct eng_fps fps, int drop,
		  int64_t *frames)
{
	unsigned nominal = eng_tc_nominal(fps), skip = 0;
	int64_t minutes = (int64_t)tc->hh * 60 + tc->mm;

	if (tc->ff >= nominal)
		return -ERANGE;
	if (tc->drop || drop) {
		if (!eng_tc_drop_rate(fps))
			return -ENOTSUP;
		skip = nominal / 15; /* 2 at 29.97, 4 at 59.94 */
		if (tc->ss == 0 && tc->ff < skip && tc->mm % 10 != 0)
			return -ENOENT;
	}
	*frames = (minutes * 60 + tc->ss) * nominal + tc->ff -
		  (int64_t)skip * (minutes - minutes / 10);
	return 0;
}


int eng_tc_text_frames(const char *s, struct eng_fps fps, int64_t *frames,
		       int *drop)
{
	struct eng_tc tc;
	int rc = eng_tc_parse(s, &tc);

	if (rc == 0)
		rc = eng_tc_frames(&tc, fps, 0, frames);
	if (rc == 0)
		*drop = tc.drop;
	return rc;
}

/* wrap: hours modulo 24, as a timecode wraps; else up to 99 (-ERANGE
 * past them), as eng_tc_parse reads two digits back */
static int tc_format(int64_t frames, struct eng_fps fps, int drop, int wrap,
		     char *buf, size_t len)
{
	int64_t nominal = eng_tc_nominal(fps), skip = 0, per10, per1, d, m;

	if (frames < 0 || len < 16 || nominal == 0)
		return -EINVAL;
	if (drop) {
		if (!eng_tc_drop_rate(fps))
			return -ENOTSUP;
		/* put back the frame numbers drop frame skips: skip a minute
		 * but every tenth, so that plain counting gives the label */
		skip = nominal / 15;
		per10 = nominal * 600 - 9 * skip; /* frames in 10 minutes */
		per1 = nominal * 60 - skip;	  /* in a minute but the 1st */
		d = frames / per10;
		m = frames % per10;
		frames += 9 * skip * d;
		if (m >= skip)
			frames += skip * ((m - skip) / per1);
	}
	if (!wrap && frames / (nominal * 3600) > 99)
		return -ERANGE;
	snprintf(buf, len, "%02lld:%02lld:%02lld%c%02lld",
		 (long long)(frames / (nominal * 3600) % (wrap ? 24 : 100)),
		 (long long)(frames / (nominal * 60) % 60),
		 (long long)(frames / nominal % 60), drop ? ';' : ':',
		 (long long)(frames % nominal));
	return 0;
}

int eng_tc_format(int64_t frames, struct eng_fps fps, int drop, char *buf,
		  size_t len)
{
	return tc_format(frames, fps, drop, 1, buf, len);
}

int eng_tc_format_exact(int64_t frames, struct eng_fps fps, int drop,
			char *buf, size_t len)
{
	return tc_format(frames, fps, drop, 0, buf, len);
}
