/* SPDX-License-Identifier: MIT */
/* ceiling: the simplest FUSE server that serves timelinefs's bytes, the
 * bench's upper bound.  A read-only passthrough of the regular files of
 * one folder, plus files made of a timelinefs stream's backing reads (a
 * fio iolog from timelinefs-export: the timeline's very bytes, taken from
 * the same clip pages).  Each read is one fuse_reply_data of the source
 * file descriptors at their offsets, spliced to the kernel when the
 * pipes allow (as libfuse's passthrough_hp), with timelinefs's own
 * connection settings: max_read, readahead, background limit, async
 * reads, no splice of requests, no attribute checks on read. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"

/* A piece of a map: LEN bytes of a source file at OFF, served at AT. */
struct ceil_ext {
	int fd;
	uint64_t at;
	uint64_t off;
	uint64_t len;
};

/* One served file: a source file (fd), or a map of extents (ext). */
struct ceil_file {
	char *name;
	uint64_t size;
	int fd;		      /* -1 for a map */
	struct ceil_ext *ext; /* a map's extents, in served order */
	size_t next;
};

struct ceil {
	struct ceil_file *files;
	size_t nfiles;
	int *srcfds; /* a map's source files, opened once */
	size_t nsrc;
	/* options */
	char *src;
	char *maps; /* each -o map=FILE, ':' between them */
	char *splice_arg;
	int direct_io;
	int keep_cache;
	unsigned readahead_kb;
	unsigned max_background;
	int splice;
};

static struct ceil *ceil_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

static int add_file(struct ceil *c, const char *name, uint64_t size, int fd,
		    struct ceil_ext *ext, size_t next)
{
	struct ceil_file *f = realloc(c->files,
				      (c->nfiles + 1) * sizeof(*c->files));

	if (!f)
		return -ENOMEM;
	c->files = f;
	f = &c->files[c->nfiles];
	f->name = strdup(name);
	if (!f->name)
		return -ENOMEM;
	f->size = size;
	f->fd = fd;
	f->ext = ext;
	f->next = next;
	c->nfiles++;
	return 0;
}

/* Every regular file at the top of SRC. */
static int load_src(struct ceil *c)
{
	DIR *d = opendir(c->src);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		rc = -errno;
		fprintf(stderr, "ceiling: cannot open %s: %s\n", c->src,
			strerror(-rc));
		return rc;
	}
	while (rc == 0 && (de = readdir(d))) {
		struct stat st;
		int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		rc = add_file(c, de->d_name, (uint64_t)st.st_size, fd, NULL, 0);
		if (rc < 0)
			close(fd);
	}
	closedir(d);
	return rc;
}

static int src_fd(struct ceil *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int *a;

	if (fd < 0)
		return -errno;
	a = realloc(c->srcfds, (c->nsrc + 1) * sizeof(*a));
	if (!a) {
		close(fd);
		return -ENOMEM;
	}
	c->srcfds = a;
	a[c->nsrc++] = fd;
	return fd;
}

static int add_ext(struct ceil_ext **ext, size_t *n, size_t *cap,
		   struct ceil_ext e)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 1024;
		struct ceil_ext *x = realloc(*ext, ncap * sizeof(**ext));

		if (!x)
			return -ENOMEM;
		*ext = x;
		*cap = ncap;
	}
	(*ext)[(*n)++] = e;
	return 0;
}

/* The map's name: the log's base name less .iolog. */
static void map_name(const char *log, char *name, size_t len)
{
	const char *slash = strrchr(log, '/');
	char *dot;

	snprintf(name, len, "%s", slash ? slash + 1 : log);
	dot = strstr(name, ".iolog");
	if (dot)
		*dot = '\0';
}

/* A fio v3 iolog's reads, concatenated, as a file of their own.  Lines
 * "T PATH read OFFSET LENGTH"; the others (add, open, close) skipped. */
static int load_map(struct ceil *c, const char *log)
{
	char line[PATH_MAX + 128], path[PATH_MAX], last[PATH_MAX] = "";
	char name[NAME_MAX + 1];
	struct ceil_ext *ext = NULL;
	size_t n = 0, cap = 0, lineno = 0;
	uint64_t at = 0, off, len;
	int fd = -1, rc = 0;
	FILE *f = fopen(log, "re");

	if (!f) {
		rc = -errno;
		fprintf(stderr, "ceiling: cannot open %s: %s\n", log,
			strerror(-rc));
		return rc;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		lineno++;
		if (sscanf(line, "%*s %4095s read %" SCNu64 " %" SCNu64, path,
			   &off, &len) != 3)
			continue;
		if (strcmp(path, last) != 0) {
			fd = src_fd(c, path);
			if (fd < 0) {
				rc = fd;
				fprintf(stderr, "ceiling: %s:%zu: cannot "
					"open %s: %s\n", log, lineno, path,
					strerror(-rc));
				break;
			}
			snprintf(last, sizeof(last), "%s", path);
		}
		rc = add_ext(&ext, &n, &cap,
			     (struct ceil_ext){ fd, at, off, len });
		at += len;
	}
	fclose(f);
	if (rc == 0 && n == 0) {
		fprintf(stderr, "ceiling: %s: no reads in it\n", log);
		rc = -EINVAL;
	}
	map_name(log, name, sizeof(name));
	if (rc == 0)
		rc = add_file(c, name, at, -1, ext, n);
	if (rc < 0)
		free(ext);
	return rc;
}

static struct ceil_file *file_of(struct ceil *c, fuse_ino_t ino)
{
	return ino >= 2 && ino - 2 < c->nfiles ? &c->files[ino - 2] : NULL;
}

static void fill_stat(struct ceil *c, fuse_ino_t ino, struct stat *st)
{
	struct ceil_file *f = file_of(c, ino);

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	if (!f) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
		return;
	}
	st->st_mode = S_IFREG | 0444;
	st->st_nlink = 1;
	st->st_size = (off_t)f->size;
}

static void ceil_init(void *userdata, struct fuse_conn_info *conn)
{
	struct ceil *c = userdata;

	/* timelinefs's fs_init, less what only it needs */
	if (c->splice && (conn->capable & FUSE_CAP_SPLICE_WRITE))
		conn->want |= FUSE_CAP_SPLICE_WRITE;
	conn->max_readahead = UINT32_MAX;
	conn->max_read = FS_MAX_READ;
	conn->want |= FUSE_CAP_ASYNC_READ;
	conn->max_background = c->max_background;
	conn->congestion_threshold = c->max_background * 3 / 4;
	conn->want &= ~FUSE_CAP_SPLICE_READ;
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
}

static void ceil_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct ceil *c = ceil_of(req);
	struct fuse_entry_param e;
	size_t i;

	memset(&e, 0, sizeof(e));
	for (i = 0; parent == FUSE_ROOT_ID && i < c->nfiles; i++)
		if (strcmp(c->files[i].name, name) == 0) {
			e.ino = i + 2;
			e.attr_timeout = e.entry_timeout = 3600;
			fill_stat(c, e.ino, &e.attr);
			fuse_reply_entry(req, &e);
			return;
		}
	fuse_reply_err(req, ENOENT);
}

static void ceil_getattr(fuse_req_t req, fuse_ino_t ino,
			 struct fuse_file_info *fi)
{
	struct stat st;

	(void)fi;
	fill_stat(ceil_of(req), ino, &st);
	fuse_reply_attr(req, &st, 3600);
}

static void ceil_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			 off_t off, struct fuse_file_info *fi)
{
	struct ceil *c = ceil_of(req);
	char *buf;
	size_t used = 0, i;

	(void)fi;
	if (ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	buf = calloc(1, size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (i = (size_t)off; i < c->nfiles; i++) {
		struct stat st;
		size_t n;

		fill_stat(c, i + 2, &st);
		n = fuse_add_direntry(req, buf + used, size - used,
				      c->files[i].name, &st, (off_t)i + 1);
		if (n > size - used)
			break;
		used += n;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void ceil_open(fuse_req_t req, fuse_ino_t ino,
		      struct fuse_file_info *fi)
{
	struct ceil *c = ceil_of(req);

	if (!file_of(c, ino)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
		return;
	}
	/* keep_cache 0 by default, as timelinefs's cached open: every open
	 * reads through the daemon again (passthrough_hp keeps the cache,
	 * and a re-read of the same file may not reach it at all) */
	fi->direct_io = c->direct_io;
	fi->keep_cache = c->keep_cache;
	fuse_reply_open(req, fi);
}

/* The extent holding byte AT of a map: the last one starting at or
 * before it. */
static size_t ext_at(const struct ceil_file *f, uint64_t at)
{
	size_t lo = 0, hi = f->next;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->ext[mid].at <= at)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* A map's bytes [at, end) as one buffer per extent, each the source
 * file's descriptor at its offset; NULL without memory. */
static struct fuse_bufvec *map_bufs(const struct ceil_file *f, uint64_t at,
				    uint64_t end)
{
	size_t i = ext_at(f, at), n = 1, k;
	struct fuse_bufvec *bv;

	while (i + n < f->next && f->ext[i + n].at < end)
		n++;
	bv = calloc(1, sizeof(*bv) + n * sizeof(bv->buf[0]));
	if (!bv)
		return NULL;
	bv->count = n;
	for (k = 0; k < n; k++) {
		const struct ceil_ext *e = &f->ext[i + k];
		uint64_t from = at > e->at ? at : e->at;
		uint64_t to = e->at + e->len < end ? e->at + e->len : end;

		bv->buf[k].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
		bv->buf[k].fd = e->fd;
		bv->buf[k].pos = (off_t)(e->off + from - e->at);
		bv->buf[k].size = to - from;
	}
	return bv;
}

static void ceil_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct ceil *c = ceil_of(req);
	struct ceil_file *f = file_of(c, ino);
	enum fuse_buf_copy_flags fl = c->splice ? 0 : FUSE_BUF_NO_SPLICE;
	struct fuse_bufvec one, *bv;
	uint64_t at = (uint64_t)off, end;

	(void)fi;
	if (!f || off < 0) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	end = at + size < f->size ? at + size : f->size;
	if (at >= end) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (!f->ext) {
		one = (struct fuse_bufvec)FUSE_BUFVEC_INIT(end - at);
		one.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
		one.buf[0].fd = f->fd;
		one.buf[0].pos = off;
		fuse_reply_data(req, &one, fl);
		return;
	}
	bv = map_bufs(f, at, end);
	if (!bv) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	fuse_reply_data(req, bv, fl);
	free(bv);
}

static const struct fuse_lowlevel_ops ceil_ops = {
	.init = ceil_init,
	.lookup = ceil_lookup,
	.getattr = ceil_getattr,
	.readdir = ceil_readdir,
	.open = ceil_open,
	.read = ceil_read,
};

#define CEIL_OPT(t, p, v) { t, offsetof(struct ceil, p), v }
#define CEIL_KEY_MAP 1
static const struct fuse_opt ceil_opts[] = {
	CEIL_OPT("direct_io", direct_io, 1),
	CEIL_OPT("keep_cache", keep_cache, 1),
	CEIL_OPT("splice=%s", splice_arg, 0),
	CEIL_OPT("readahead=%u", readahead_kb, 0),
	CEIL_OPT("max_background=%u", max_background, 0),
	FUSE_OPT_KEY("map=", CEIL_KEY_MAP),
	FUSE_OPT_END
};

/* SRC, the first argument that is not an option; and -o map=FILE, as
 * often as given */
static int opt_proc(void *data, const char *arg, int key,
		    struct fuse_args *outargs)
{
	struct ceil *c = data;
	size_t have = c->maps ? strlen(c->maps) + 1 : 0;
	const char *file = arg + strlen("map=");
	char *m;

	(void)outargs;
	if (key == FUSE_OPT_KEY_NONOPT && !c->src) {
		c->src = strdup(arg);
		return c->src ? 0 : -1;
	}
	if (key != CEIL_KEY_MAP)
		return 1;
	m = realloc(c->maps, have + strlen(file) + 1);
	if (!m)
		return -1;
	if (have)
		m[have - 1] = ':';
	strcpy(m + have, file);
	c->maps = m;
	return 0;
}

static void usage(const char *prog)
{
	printf("usage: %s [options] SRC MOUNTPOINT\n"
	       "Serve the regular files of SRC read-only over a connection "
	       "set as timelinefs's.\n"
	       "    -o direct_io          every open uses direct_io\n"
	       "    -o keep_cache         an open keeps the pages of the "
	       "last (passthrough_hp)\n"
	       "    -o splice=on|off      replies spliced from the source "
	       "files (on)\n"
	       "    -o readahead=KB       readahead of the mount (1024, as "
	       "timelinefs)\n"
	       "    -o max_background=N   background requests (1024)\n"
	       "    -o map=DIR/NAME.iolog also NAME: that fio iolog's reads, "
	       "in order\n",
	       prog);
	fuse_cmdline_help();
}

static int load_maps(struct ceil *c)
{
	char *m = c->maps, *colon;
	int rc = 0;

	while (m && *m && rc == 0) {
		colon = strchr(m, ':');
		if (colon)
			*colon = '\0';
		rc = load_map(c, m);
		m = colon ? colon + 1 : NULL;
	}
	return rc;
}

static int run(struct ceil *c, struct fuse_args *args,
	       struct fuse_cmdline_opts *opts)
{
	struct fuse_loop_config *lc;
	struct fuse_session *se;
	int ret = 1;

	se = fuse_session_new(args, &ceil_ops, sizeof(ceil_ops), c);
	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se) != 0)
		goto out_session;
	if (fuse_session_mount(se, opts->mountpoint) != 0)
		goto out_signals;
	if (!c->direct_io && c->readahead_kb &&
	    fs_set_readahead(opts->mountpoint, c->readahead_kb) < 0)
		fprintf(stderr, "ceiling: cannot set the readahead\n");
	if (fuse_daemonize(opts->foreground) != 0)
		goto out_unmount;
	lc = fuse_loop_cfg_create();
	if (lc) {
		fuse_loop_cfg_set_clone_fd(lc, opts->clone_fd);
		/* timelinefs's defaults */
		fuse_loop_cfg_set_idle_threads(lc, FS_IDLE_THREADS);
		fuse_loop_cfg_set_max_threads(lc, FS_MAX_THREADS);
		ret = fuse_session_loop_mt(se, lc) ? 1 : 0;
		fuse_loop_cfg_destroy(lc);
	}
out_unmount:
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_session:
	fuse_session_destroy(se);
	return ret;
}

static void ceil_free(struct ceil *c)
{
	size_t i;

	for (i = 0; i < c->nfiles; i++) {
		if (c->files[i].fd >= 0)
			close(c->files[i].fd);
		free(c->files[i].name);
		free(c->files[i].ext);
	}
	for (i = 0; i < c->nsrc; i++)
		close(c->srcfds[i]);
	free(c->files);
	free(c->srcfds);
	free(c->src);
	free(c->maps);
	free(c->splice_arg);
}

int main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	struct ceil c;
	uint64_t nofile;
	int ret = 1;

	memset(&c, 0, sizeof(c));
	memset(&opts, 0, sizeof(opts));
	c.readahead_kb = 1024;
	c.max_background = FS_MAX_BACKGROUND;
	if (fuse_opt_parse(&args, &c, ceil_opts, opt_proc) != 0 ||
	    fuse_opt_add_arg(&args, "-omax_read=1048576") != 0 ||
	    fuse_parse_cmdline(&args, &opts) != 0)
		goto out;
	if (opts.show_help) {
		usage(argv[0]);
		ret = 0;
		goto out;
	}
	if (!c.src || !opts.mountpoint) {
		fprintf(stderr, "ceiling: give SRC and MOUNTPOINT (--help)\n");
		goto out;
	}
	if (c.splice_arg && strcmp(c.splice_arg, "on") != 0 &&
	    strcmp(c.splice_arg, "off") != 0) {
		fprintf(stderr, "ceiling: splice=%s: give on or off\n",
			c.splice_arg);
		goto out;
	}
	c.splice = !c.splice_arg || strcmp(c.splice_arg, "on") == 0;
	if (c.max_background < 2)
		c.max_background = 2;
	/* a map of many clips holds a descriptor for each */
	(void)fs_raise_nofile(&nofile);
	if (load_src(&c) < 0 || load_maps(&c) < 0)
		goto out;
	ret = run(&c, &args, &opts);
out:
	ceil_free(&c);
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
