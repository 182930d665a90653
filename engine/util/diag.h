/* SPDX-License-Identifier: MIT */
/*
 * Diagnostics (diag.c): the list of problems a parser or a check found,
 * each "FILE:LINE: reason", and eng_escape() that makes input text printable
 * in them.  Owns the rule that every problem in user input is reported, not
 * just the first, and that no input byte reaches a terminal raw.
 */
#ifndef ENG_DIAG_H
#define ENG_DIAG_H

#include <stdarg.h>
#include <stddef.h>

/* A growable list of messages, each "FILE:LINE: reason" (or "FILE: reason"
 * when line is 0), escaped with eng_escape() as a whole: the file names,
 * clip names and other input text in it reach a terminal or log as one
 * printable line.  Owned by the caller; free with eng_diag_free(). */
struct eng_diag {
	char **msgs;
	size_t n;
	size_t cap;
};

/* Append one message; on allocation failure the message is dropped and
 * diag->n is left unchanged (the caller still sees the earlier ones). */
void eng_diag_add(struct eng_diag *diag, const char *file, unsigned line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void eng_diag_vadd(struct eng_diag *diag, const char *file, unsigned line,
		   const char *fmt, va_list ap);
void eng_diag_free(struct eng_diag *diag);
/* Append "FILE:LINE: PREFIX ESCAPED": the prefix from fmt escaped as
 * eng_diag_add escapes, then `escaped`, a message of another diag that is
 * escaped already (a reader's "FILE: reason"), as it is: through
 * eng_diag_add its backslashes would be doubled again. */
void eng_diag_add_escaped(struct eng_diag *diag, const char *file,
			  unsigned line, const char *escaped,
			  const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* A printable copy of s[0..len) for messages, in the manner of ls -b: a
 * backslash is doubled, newline, CR and tab become \n \r \t, and every
 * other byte that a terminal could act on or that is not text becomes
 * \xNN (lower-case hex): C0 controls, NUL, DEL, the bytes of invalid
 * UTF-8 (stray continuation bytes, overlong forms, surrogates, past
 * U+10FFFF, truncated sequences), and every byte of the valid UTF-8 of a
 * C1 control (U+0080-U+009F: 0xc2 0x9b is a CSI to some terminals), a
 * line or paragraph separator (U+2028/9) or a bidirectional control
 * (U+200E/F, U+202A-E, U+2066-9: they reorder what a reader sees).  Other
 * UTF-8 ("café") is kept.  s is only read: names stay byte-exact where
 * they are stored.  Returns a malloc'ed NUL-terminated string (at most
 * 4 * len + 1 bytes), NULL on ENOMEM. */
char *eng_escape(const char *s, size_t len);

/* A parser's problem counter: every problem is added to diag (which may
 * be NULL) and counted in n, so that a parser knows it failed even when
 * a message could not be stored. */
struct eng_problems {
	struct eng_diag *diag;
	const char *path;	/* names the file in every message */
	unsigned n;
};
void eng_problem(struct eng_problems *p, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void eng_vproblem(struct eng_problems *p, unsigned line, const char *fmt,
		  va_list ap);

#endif /* ENG_DIAG_H */
