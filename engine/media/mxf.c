/* SPDX-License-Identifier: MIT */
/* Stub until issue 21's reader lands: takes no file. */
#include <errno.h>

#include "media/essence.h"

int eng_mfile_read_mxf(const struct eng_src *src, struct eng_mfile *out,
		      struct eng_diag *diag)
{
	(void)src;
	(void)out;
	(void)diag;
	return -ENOTSUP;
}
