/* SPDX-License-Identifier: MIT */
/* Diagnostics: collect every "FILE:LINE: reason" so a mount can report all,
 * each escaped so that input text cannot act on the terminal or log. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

/* Append msg (malloc'ed, escaped) to diag, or free it. */
static void push(struct eng_diag *diag, char *msg)
{
	if (diag->n == diag->cap) {
		size_t cap = diag->cap ? diag->cap * 2 : 8;
		char **m = realloc(diag->msgs, cap * sizeof(*m));

		if (!m) {
			free(msg);
			return;
		}
		diag->msgs = m;
		diag->cap = cap;
	}
	diag->msgs[diag->n++] = msg;
}

/* "FILE:LINE: reason" escaped, malloc'ed, or NULL. */
static char *format(const char *file, unsigned line, const char *fmt,
		    va_list ap)
{
	/* bounded: a reason quoting a 60 MB token says enough in 1 KiB */
	char reason[1024], *raw, *msg;
	int n;

	vsnprintf(reason, sizeof(reason), fmt, ap);
	if (line)
		n = asprintf(&raw, "%s:%u: %s", file ? file : "?", line, reason);
	else
		n = asprintf(&raw, "%s: %s", file ? file : "?", reason);
	if (n < 0)
		return NULL;
	/* the whole line: the path and every name in it are input */
	msg = eng_escape(raw, (size_t)n);
	free(raw);
	return msg;
}

void eng_diag_vadd(struct eng_diag *diag, const char *file, unsigned line,
		   const char *fmt, va_list ap)
{
	char *msg;

	if (!diag)
		return;
	msg = format(file, line, fmt, ap);
	if (msg)
		push(diag, msg);
}

void eng_diag_add_escaped(struct eng_diag *diag, const char *file,
			  unsigned line, const char *escaped,
			  const char *fmt, ...)
{
	char *pre, *msg;
	va_list ap;

	if (!diag)
		return;
	va_start(ap, fmt);
	pre = format(file, line, fmt, ap);
	va_end(ap);
	if (pre && asprintf(&msg, "%s %s", pre, escaped) >= 0)
		push(diag, msg);
	free(pre);
}

void eng_diag_add(struct eng_diag *diag, const char *file, unsigned line,
		  const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_diag_vadd(diag, file, line, fmt, ap);
	va_end(ap);
}

void eng_diag_free(struct eng_diag *diag)
{
	size_t i;

	if (!diag)
		return;
	for (i = 0; i < diag->n; i++)
		free(diag->msgs[i]);
	free(diag->msgs);
	diag->msgs = NULL;
	diag->n = diag->cap = 0;
}

void eng_vproblem(struct eng_problems *p, unsigned line, const char *fmt,
		  va_list ap)
{
	p->n++;
	eng_diag_vadd(p->diag, p->path, line, fmt, ap);
}

void eng_problem(struct eng_problems *p, unsigned line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	eng_vproblem(p, line, fmt, ap);
	va_end(ap);
}

/* Length of the valid UTF-8 sequence at s[0..left) and its code point;
 * 0 when s does not start one (RFC 3629: shortest form, no surrogates,
 * at most U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t left, uint32_t *cp)
{
	static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Valid, but changes how the rest of the line shows or where it ends. */
static int is_hidden_control(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x200e || c == 0x200f ||
	       c == 0x2028 || c == 0x2029 || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

char *eng_escape(const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;
	size_t i = 0, n, k;
	uint32_t c;

	if (len > (SIZE_MAX - 1) / 4)
		return NULL;
	out = malloc(4 * len + 1);
	if (!out)
		return NULL;
	o = out;
	while (i < len) {
		n = utf8_seq(p + i, len - i, &c);
		if (n == 1 && c >= 0x20 && c != 0x7f && c != '\\') {
			*o++ = (char)c;
		} else if (n == 1 && (c == '\\' || c == '\n' || c == '\r' ||
				      c == '\t')) {
			*o++ = '\\';
			*o++ = c == '\\' ? '\\' : c == '\n' ? 'n'
				: c == '\r' ? 'r' : 't';
		} else if (n > 1 && !is_hidden_control(c)) {
			memcpy(o, p + i, n);
			o += n;
		} else {
			/* a control, or the first byte of no valid
			 * sequence: escape it and look again after it */
			if (n == 0)
				n = 1;
			for (k = 0; k < n; k++) {
				*o++ = '\\';
				*o++ = 'x';
				*o++ = hex[p[i + k] >> 4];
				*o++ = hex[p[i + k] & 15];
			}
		}
		i += n;
	}
	*o = '\0';
	return out;
}
