/* SPDX-License-Identifier: MIT */
/*
 * A sequence clip's reference against what a test wants (test_tl.c,
 * test_otio.c, test_edl.c): the fields every parser sets.  Include after
 * <cmocka.h> and timeline/model.h.
 */
#ifndef SEQ_CHECK_H
#define SEQ_CHECK_H

struct want_seq {
	const char *base, *prefix, *suffix;
	int64_t start, step;	/* start INT64_MIN: not checked */
	int padding;
	uint32_t missing;
};

static inline void check_seq(const struct eng_seq_ref *r,
			     const struct want_seq *w)
{
	assert_non_null(r);
	assert_string_equal(r->base, w->base);
	assert_string_equal(r->prefix, w->prefix);
	assert_string_equal(r->suffix, w->suffix);
	if (w->start != INT64_MIN)
		assert_int_equal(r->start, w->start);
	assert_int_equal(r->step, w->step);
	assert_int_equal(r->padding, w->padding);
	assert_int_equal(r->missing, w->missing);
}

#endif /* SEQ_CHECK_H */
