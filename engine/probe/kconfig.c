/* SPDX-License-Identifier: MIT */
/*
 * Kernel build config text (/proc/config.gz decompressed, or
 * /boot/config-RELEASE): the values a run records about the kernel it ran
 * on.  Parsing only; hostfacts.c reads the files.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "probe/kconfig.h"
#include "util/values.h"

int eng_kconfig_get(const char *text, size_t len, const char *key, char *buf,
		    size_t buflen)
{
	size_t klen = strlen(key), i = 0, n;
	const char *line;

	while ((line = eng_next_line(text, len, &i, &n))) {
		/* "KEY=", not "KEY_250=y" nor "# KEY is not set" */
		if (n <= klen || memcmp(line, key, klen) != 0 ||
		    line[klen] != '=')
			continue;
		n -= klen + 1;
		if (n >= buflen)
			return -ERANGE;
		memcpy(buf, line + klen + 1, n);
		buf[n] = '\0';
		return 0;
	}
	return -ENOENT;
}

int eng_kconfig_hz(const char *text, size_t len)
{
	char v[32];
	int64_t hz;
	int rc = eng_kconfig_get(text, len, "CONFIG_HZ", v, sizeof(v));

	if (rc == -ENOENT)
		return rc;
	/* the kernel's choices are 100 to 1200; a tick past a million per
	 * second is not a config but a corrupt file */
	if (rc < 0 || eng_parse_int(v, &hz) < 0 || hz <= 0 || hz > 1000000)
		return -EINVAL;
	return (int)hz;
}
