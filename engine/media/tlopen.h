/* SPDX-License-Identifier: MIT */
/*
 * Opening timelines as the mount opens them: a file's load options (its
 * .fps sidecar), the file, and, once its media is there, the media
 * resolved and the byte layout made; a folder of them with the rule of
 * one timeline per name.  The mount and timelinefs-gen --for's last check
 * open a folder through eng_tlm_open (play/tlmount.h), which calls these;
 * --for's loading before the media is written and --dump-tl (gen/for.c)
 * call them directly, so that what gen checks is what the mount will do,
 * by construction.
 */
#ifndef ENG_TLOPEN_H
#define ENG_TLOPEN_H

#include <stddef.h>

#include "timeline/load.h"
#include "timeline/model.h"
#include "util/diag.h"

/* Load the timeline file path with the load options *def and its sidecar
 * (eng_load_options_for: *sidecar as there, may be NULL), then, when
 * media_fd >= 0, place it (eng_tl_place) against the media folder
 * media_fd, named media_dir in messages.  *out is the timeline (NULL on
 * failure, the caller's to eng_tl_free; on a failed placing it is freed).
 * Returns 0, or a negative errno with the problems added to diag (notes:
 * skipped sidecars, may be NULL); -ENOMEM alone may come with none. */
int eng_tl_open(const char *path, const struct eng_load_options *def,
		int media_fd, const char *media_dir, char **sidecar,
		struct eng_timeline **out, struct eng_diag *diag,
		struct eng_diag *notes);

/* A loaded timeline's media resolved in media_fd (eng_media_resolve) and
 * its byte layout made from it (eng_tl_layout_media).  0, or a negative
 * errno with the problems in diag. */
int eng_tl_place(struct eng_timeline *tl, int media_fd, const char *media_dir,
		 struct eng_diag *diag);

/* The index in tls[0..n) of a timeline named as tl (the mount shows each
 * as /NAME: two of one name cannot both be there), or -1. */
long eng_tl_same_name(struct eng_timeline *const *tls, size_t n,
		      const struct eng_timeline *tl);

/* Every timeline of folder tldir (eng_timeline_names) opened and placed
 * with eng_tl_open, in name order; a second of one name is a problem
 * ("same name as FIRST: both would be /NAME").  Returns 0 with *tls (an
 * array of *n, to be freed with eng_tl_free_all) when every one opened;
 * otherwise -EINVAL with every problem in diag (an unreadable folder, an
 * empty one, each timeline's), *tls holding those that opened, or -ENOMEM.
 * notes gets what was skipped (may be NULL). */
int eng_tl_open_folder(const char *tldir, const struct eng_load_options *def,
		       int media_fd, const char *media_dir,
		       struct eng_timeline ***tls, size_t *n,
		       struct eng_diag *diag, struct eng_diag *notes);
void eng_tl_free_all(struct eng_timeline **tls, size_t n);

#endif /* ENG_TLOPEN_H */
