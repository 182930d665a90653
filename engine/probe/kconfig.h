/* SPDX-License-Identifier: MIT */
/*
 * The kernel build config (kconfig.c): what /proc/config.gz or
 * /boot/config-RELEASE holds, given as text (the caller reads and inflates
 * it).  Only parsing: no file is opened here.
 */
#ifndef ENG_KCONFIG_H
#define ENG_KCONFIG_H

#include <stddef.h>

/* Kernel build config text (kconfig.c): what /proc/config.gz holds
 * decompressed, or /boot/config-RELEASE; len bytes, NUL not needed; lines
 * end LF or CRLF.  The value of the line "KEY=VALUE" (the first such),
 * as written (a string keeps its quotes), copied NUL-terminated into
 * buf[buflen].  Returns 0, -ENOENT when no such line ("# KEY is not set"
 * is none) or -ERANGE when the value does not fit. */
int eng_kconfig_get(const char *text, size_t len, const char *key,
		    char *buf, size_t buflen);
/* CONFIG_HZ of a kernel build config, the tick rate of its timer: > 0, or
 * -ENOENT when the text has no CONFIG_HZ line, -EINVAL when its value is
 * not a positive decimal of at most 1000000. */
int eng_kconfig_hz(const char *text, size_t len);

#endif /* ENG_KCONFIG_H */
