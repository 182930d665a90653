/* SPDX-License-Identifier: MIT */
/* A growable text buffer: what the .tl writers (generator, --dump-tl) build
 * their output in, appending with printf formats. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/strbuf.h"

void eng_strbuf_printf(struct eng_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t cap;
	char *np;
	int n;

	if (b->err)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->err = -EINVAL;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		cap = b->cap ? b->cap : 4096;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np) {
			b->err = -ENOMEM;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
}
