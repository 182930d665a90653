/* SPDX-License-Identifier: MIT */
/* Diagnostics: collect every "FILE:LINE: reason" so a mount can report all. */
#include <stdio.h>
#include <stdlib.h>

#include "engine.h"

void eng_diag_vadd(struct eng_diag *diag, const char *file, unsigned line,
		   const char *fmt, va_list ap)
{
	char reason[1024], *msg;
	int n;

	if (!diag)
		return;
	vsnprintf(reason, sizeof(reason), fmt, ap);
	if (line)
		n = asprintf(&msg, "%s:%u: %s", file ? file : "?", line, reason);
	else
		n = asprintf(&msg, "%s: %s", file ? file : "?", reason);
	if (n < 0)
		return;
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
