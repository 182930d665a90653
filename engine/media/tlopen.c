/* SPDX-License-Identifier: MIT */
/*
 * Opening timelines as the mount opens them (tlopen.h): one sequence for
 * the mount and timelinefs-gen.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media/media.h"
#include "media/tlopen.h"
#include "timeline/layout.h"

int eng_tl_place(struct eng_timeline *tl, int media_fd, const char *media_dir,
		 struct eng_diag *diag)
{
	int rc = eng_media_resolve(tl, media_fd, media_dir, diag);

	return rc < 0 ? rc : eng_tl_layout_media(tl, diag);
}

int eng_tl_open(const char *path, const struct eng_load_options *def,
		int media_fd, const char *media_dir, char **sidecar,
		struct eng_timeline **out, struct eng_diag *diag,
		struct eng_diag *notes)
{
	struct eng_load_options o;
	int rc;

	*out = NULL;
	rc = eng_load_options_for(path, def, &o, sidecar, diag, notes);
	if (rc == 0)
		rc = eng_timeline_load(path, &o, out, diag);
	if (rc == 0 && media_fd >= 0)
		rc = eng_tl_place(*out, media_fd, media_dir, diag);
	if (rc < 0) {
		eng_tl_free(*out);
		*out = NULL;
	}
	return rc;
}

long eng_tl_same_name(struct eng_timeline *const *tls, size_t n,
		      const struct eng_timeline *tl)
{
	size_t j;

	for (j = 0; j < n; j++)
		if (tls[j] && strcmp(tls[j]->name, tl->name) == 0)
			return (long)j;
	return -1;
}

void eng_tl_free_all(struct eng_timeline **tls, size_t n)
{
	size_t i;

	for (i = 0; tls && i < n; i++)
		eng_tl_free(tls[i]);
	free(tls);
}

int eng_tl_open_folder(const char *tldir, const struct eng_load_options *def,
		       int media_fd, const char *media_dir,
		       struct eng_timeline ***tls, size_t *n,
		       struct eng_diag *diag, struct eng_diag *notes)
{
	struct eng_timeline **v = NULL, *tl;
	size_t before = diag->n, m = 0, i;
	char **names = NULL, *path;
	long j;
	int rc;

	*tls = NULL;
	*n = 0;
	rc = eng_timeline_names(tldir, &names, &m, notes);
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0) {
		eng_diag_add(diag, tldir, 0, "cannot open the timelines "
			     "folder: %s", strerror(-rc));
		return -EINVAL;
	}
	if (m == 0) {
		eng_diag_add(diag, tldir, 0, "no timeline (*.tl, *.edl, "
			     "*.otio) in this folder");
		return -EINVAL;
	}
	v = calloc(m, sizeof(*v));
	if (!v)
		goto nomem;
	for (i = 0; i < m; i++) {
		if (asprintf(&path, "%s/%s", tldir, names[i]) < 0)
			goto nomem;
		rc = eng_tl_open(path, def, media_fd, media_dir, NULL, &tl,
				 diag, notes);
		free(path);
		if (rc == -ENOMEM)
			goto nomem;
		if (rc < 0)
			continue;
		j = eng_tl_same_name(v, *n, tl);
		if (j >= 0) {
			eng_diag_add(diag, tl->path, 0, "same name as %s: both "
				     "would be /%s", v[j]->path, tl->name);
			eng_tl_free(tl);
		} else {
			v[(*n)++] = tl;
		}
	}
	eng_names_free(names, m);
	*tls = v;
	return diag->n > before ? -EINVAL : 0;
nomem:
	eng_names_free(names, m);
	eng_tl_free_all(v, *n);
	*n = 0;
	return -ENOMEM;
}
