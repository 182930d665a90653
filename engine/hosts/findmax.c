/* SPDX-License-Identifier: MIT */
/*
 * The search for the most workstations that play with no late frame:
 * doubling from `from` to the first failure or the cap, then bisecting
 * (hosts/hosts.h says the rules), and a step's verdict by the causes of
 * its late frames.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "hosts/hosts.h"

int eng_findmax_init(struct eng_findmax *f, unsigned from, unsigned cap)
{
	if (!f || from < 1 || cap < from)
		return -EINVAL;
	*f = (struct eng_findmax){.from = from, .cap = cap, .next = from};
	return 0;
}

unsigned eng_findmax_next(const struct eng_findmax *f)
{
	return f ? f->next : 0;
}

/* The count after the verdicts so far, 0 when the bracket is found. */
static unsigned plan_next(const struct eng_findmax *f)
{
	if (f->hi == 0) {
		/* Nothing failed yet: double, but not past the cap; the cap
		 * passing ends it ("at least cap"). */
		if (f->lo >= f->cap)
			return 0;
		return f->lo > f->cap / 2 ? f->cap : 2 * f->lo;
	}
	/* Between the largest that passed and the smallest that failed
	 * (lo 0 when `from` failed: down towards 1). */
	if (f->hi - f->lo <= 1)
		return 0;
	return f->lo + (f->hi - f->lo) / 2;
}

int eng_findmax_result(struct eng_findmax *f, unsigned count, int passed)
{
	if (!f || f->next == 0 || count != f->next)
		return -EINVAL;
	if (passed)
		f->lo = count;
	else
		f->hi = count;
	f->probes++;
	f->next = plan_next(f);
	return 0;
}

int eng_findmax_bracket(const struct eng_findmax *f, unsigned *lo, unsigned *hi)
{
	if (lo)
		*lo = f->lo;
	if (hi)
		*hi = f->hi;
	return f->next == 0;
}

const char *const eng_cause_names[ENG_CAUSE_N] = {
    [ENG_CAUSE_STORAGE] = "storage",	 [ENG_CAUSE_ISSUE] = "issue",
    [ENG_CAUSE_TIMER] = "timer",	 [ENG_CAUSE_READER] = "reader",
    [ENG_CAUSE_RECORDING] = "recording", [ENG_CAUSE_WRITER] = "writer",
};

static int cause_of(const char *name, size_t len)
{
	int i;

	for (i = 0; i < ENG_CAUSE_N; i++)
		if (strlen(eng_cause_names[i]) == len &&
		    !strncmp(name, eng_cause_names[i], len))
			return i;
	return -1;
}

int eng_late_causes_parse(const char *list, unsigned *mask)
{
	unsigned m = 0;
	const char *p = list;
	int c;

	if (!list || !mask)
		return -EINVAL;
	if (!strcmp(list, "all")) {
		*mask = ENG_CAUSES_ALL;
		return 0;
	}
	for (;;) {
		size_t l = strcspn(p, ",");

		c = cause_of(p, l);
		if (c < 0 || (m & (1u << c)))
			return -EINVAL;
		m |= 1u << c;
		if (!p[l])
			break;
		p += l + 1;
	}
	*mask = m;
	return 0;
}

int eng_late_causes_text(unsigned mask, char *buf, size_t len)
{
	size_t n = 0;
	int i, w;

	if ((mask & ENG_CAUSES_ALL) == ENG_CAUSES_ALL)
		return snprintf(buf, len, "all");
	if (len)
		buf[0] = '\0';
	for (i = 0; i < ENG_CAUSE_N; i++) {
		if (!(mask & (1u << i)))
			continue;
		w = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
			     "%s%s", n ? "," : "", eng_cause_names[i]);
		if (w > 0)
			n += (size_t)w;
	}
	return (int)n;
}

int eng_findmax_judge(const struct eng_step_late *s, unsigned mask,
		      int64_t *judged, int64_t *other)
{
	int64_t listed = 0, rest = 0, unknown;
	int i;

	if ((mask & ENG_CAUSES_ALL) == ENG_CAUSES_ALL) {
		listed = s->late;
	} else {
		for (i = 0; i < ENG_CAUSE_N; i++) {
			if (mask & (1u << i))
				listed += s->by_cause[i];
			else
				rest += s->by_cause[i];
		}
		/* the late frames late_frame names no cause of */
		unknown = s->late - listed - rest;
		if (unknown > 0)
			listed += unknown;
	}
	*judged = listed;
	if (other)
		*other = rest;
	return listed == 0 && s->dropped == 0 && s->failed == 0;
}
