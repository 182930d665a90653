/* SPDX-License-Identifier: MIT */
/*
 * A growable text (strbuf.c) for the writers of .tl text.  Owns one rule:
 * a writer checks for allocation failure once, at the end.
 */
#ifndef ENG_STRBUF_H
#define ENG_STRBUF_H

/* A growable NUL-terminated text (the .tl writers).  Start zeroed; after
 * an allocation failure err is -ENOMEM and further appends do nothing, so
 * a writer checks once at the end.  The caller frees p. */
struct eng_strbuf {
	char *p;
	size_t len;
	size_t cap;
	int err;
};
void eng_strbuf_printf(struct eng_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* ENG_STRBUF_H */
