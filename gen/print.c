/* SPDX-License-Identifier: MIT */
/*
 * timelinefs-gen: sizes, durations and rates as printed, and the
 * engine's messages on stderr.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

/* Human sizes in powers of 1000, as disks are sold: "3.51 GB". */
void gen_fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const unit[] = {"kB", "MB", "GB", "TB", "PB"};
	double v = (double)b;
	int u = -1;

	if (b < 1000) {
		snprintf(buf, len, "%" PRIu64 " B", b);
		return;
	}
	while (v >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, "%.2f %s", v, unit[u]);
}

/* Play time of `frames`: "2.47s" under a minute, else rounded to the
 * second: "1m24s", "1h02m03s". */
void gen_fmt_duration(int64_t frames, struct eng_fps fps, char *buf,
			 size_t len)
{
	uint64_t s =
	    (uint64_t)(((unsigned __int128)frames * fps.den * 2 + fps.num) /
		       (2 * (uint64_t)fps.num));

	if (s < 60)
		snprintf(buf, len, "%.2fs", (double)frames * fps.den / fps.num);
	else if (s >= 3600)
		snprintf(buf, len, "%" PRIu64 "h%02" PRIu64 "m%02" PRIu64 "s",
			 s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%" PRIu64 "m%02" PRIu64 "s", s / 60,
			 s % 60);
}

/* "29.97", "25", "23.976": at most 3 decimals, trailing zeros dropped. */
void gen_fmt_fps(struct eng_fps fps, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%.3f", (double)fps.num / fps.den);
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

void gen_print_diag(const struct eng_diag *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		fprintf(stderr, "%s\n", d->msgs[i]);
}

/* What was skipped (a FIFO named like a timeline or a sidecar), as the
 * mount will skip it; frees them. */
void gen_print_notes(struct eng_diag *notes)
{
	size_t i;

	for (i = 0; i < notes->n; i++)
		fprintf(stderr, PROG ": note: %s\n", notes->msgs[i]);
	eng_diag_free(notes);
}
