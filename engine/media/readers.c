/* SPDX-License-Identifier: MIT */
/*
 * The media readers (mfile.h), one table: a file goes to the first reader
 * that takes its first bytes.  A reader is a file of its own behind the
 * one interface (eng_mfile_read_*), as fio's engines register their ops;
 * none calls another.
 */
#include <errno.h>
#include <stddef.h>

#include "media/mfile.h"

static const struct {
	const char *what;	/* for a reader's documentation */
	int (*read)(const struct eng_src *src, struct eng_mfile *out,
		    struct eng_diag *diag);
} readers[] = {
	/* by its header's first bytes: RIFF/RF64/FORM, then MXF's
	 * partition key, then whatever libavformat probes */
	{ "WAV/BWF/RF64, AIFF", eng_mfile_read_pcm },
	{ "MXF OP1a, OP-Atom", eng_mfile_read_mxf },
	{ "QuickTime, MP4", eng_mfile_read_av },
};

int eng_mfile_read(const struct eng_src *src, struct eng_mfile *out,
		   struct eng_diag *diag)
{
	size_t i;
	int rc;

	for (i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		rc = readers[i].read(src, out, diag);
		if (rc != -ENOTSUP)
			return rc;
	}
	eng_diag_add(diag, src->name, 0, "not a media file timelinefs reads "
		     "(QuickTime, MP4, MXF, WAV or AIFF)");
	return -EINVAL;
}
