/* SPDX-License-Identifier: MIT */
/*
 * The search for the most workstations that play with no late frame:
 * doubling from `from` to the first failure or the cap, then bisecting
 * (hosts/hosts.h says the rules).
 */
#include <errno.h>
#include <stddef.h>

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
