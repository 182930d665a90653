/* SPDX-License-Identifier: MIT */
/*
 * timelinefs: mount the timelines of a media folder as files.  Everything
 * that can fail for a user's reason (options, timelines, media, database,
 * mount point) is checked before a background mount's parent exits, so the
 * exit code tells (fs/daemon.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <libavformat/avformat.h>
#include <libavutil/log.h>

#include "fs.h"
#include "media/mfile.h"
#include "media/media.h"
#include "media/tlopen.h"

/* The problems of the timelines, printed; the mount is refused. */
static void print_refusal(struct fs *fs, const struct eng_diag *diag)
{
	size_t i;

	for (i = 0; i < diag->n; i++)
		fprintf(stderr, "%s\n", diag->msgs[i]);
	fprintf(stderr, "timelinefs: %zu problem%s in the timelines of "
		"%s; not mounting\n", diag->n, diag->n == 1 ? "" : "s",
		fs->cfg.timelines);
}

/* A .tl's recorded clips (edit while ingest: record CLIP) are recorded
 * through this mount's ingest folder: without one (-o ingest=off) or
 * under a name no writer can record (a name the folder refuses, or one
 * ending in a preset, which records under the name before it), the edit
 * would wait for nothing.  Each said in *diag. */
static void ingest_records(struct fs *fs, const struct eng_timeline *tl,
			   struct eng_diag *diag)
{
	struct eng_ingest_format f;
	char name[FS_INGEST_NAME_MAX];
	const char *why;
	size_t c;

	for (c = 0; c < tl->nclips; c++) {
		const struct eng_clip *k = &tl->clips[c];

		if (!k->record)
			continue;
		if (!fs->ingest.on)
			eng_diag_add(diag, tl->path, k->record,
				     "clip '%s' is recorded through the "
				     "mount's ingest folder (record), which "
				     "-o ingest=off takes away", k->name);
		else if (eng_ingest_name(k->name, &fs->ingest.fmt, name,
					 sizeof(name), &f, &why) < 0)
			eng_diag_add(diag, tl->path, k->record,
				     "clip '%s' cannot be recorded through "
				     "the ingest folder: %s", k->name, why);
		else if (strcmp(name, k->name) != 0)
			eng_diag_add(diag, tl->path, k->record,
				     "clip '%s' cannot be recorded under that "
				     "name: ingest/%s records '%s' in preset "
				     "%s", k->name, k->name, name, f.preset);
	}
}

/* The mount's folder "ingest" takes that name: a timeline of that name
 * would be hidden; and its recorded clips (ingest_records).  Each said in
 * *diag. */
static void ingest_clash(struct fs *fs, const struct eng_tlm *set,
			 struct eng_diag *diag)
{
	size_t i;

	for (i = 0; fs->ingest.on && i < set->n; i++)
		if (strcmp(set->files[i].tl->name, ENG_INGEST_DIR) == 0)
			eng_diag_add(diag, set->files[i].tl->path, 0,
				     "the timeline's name is the ingest "
				     "folder's (-o ingest=off mounts it)");
	for (i = 0; i < set->n; i++)
		ingest_records(fs, set->files[i].tl, diag);
}

/* Zero copy needs libfuse to get a pipe for a whole reply: 2 MiB for a
 * 1 MiB request.  Where that is refused (fs.pipe-max-size is 1 MiB out
 * of the box) but a pipe for a smaller one is not, a mount that can use
 * zero copy (backing=buffered) asks the kernel for requests of that size
 * (-o max_read) and splices them: two 512 KiB replies cost less than one
 * 1 MiB reply copied.  Asked before the timelines are sized, which is
 * what max_read sizes; a user who wants zero copy hears, once, what it
 * got and what would give more. */
static void probe_pipes(struct fs *fs)
{
	/* the real I/O, under -o inject's wrapper if there is one */
	const struct eng_io *io = fs->cfg.inject_v ? &fs->io_base : &fs->io;
	unsigned long need = fs_splice_pipe_need(FS_MAX_READ);
	int wanted = fs->cfg.splice_v &&
		     fs->cfg.backing_v == ENG_BACKING_BUFFERED;
	size_t r;
	int fds[2];

	/* Asking is the test: pipe-max-size binds only processes without
	 * CAP_SYS_RESOURCE (a root daemon usually has it), and
	 * pipe-user-pages-soft may bind before it.  One pipe, now: without
	 * the capability, libfuse's pipes (one per worker thread) can still
	 * pass pipe-user-pages-soft later, and those threads then copy. */
	fs->max_read = FS_MAX_READ;
	for (r = FS_MAX_READ; r >= (wanted ? FS_MIN_ZC_READ : FS_MAX_READ);
	     r /= 2) {
		fs->pipe_ok = io->pipe_new(io->ctx, fs_splice_pipe_need(r),
					   fds) == 0;
		if (fs->pipe_ok) {
			io->pipe_free(io->ctx, fds);
			fs->max_read = r;
			break;
		}
	}
	/* A readahead window of two requests or more has them served in
	 * any order, the first window's too: its second request first
	 * anchored the stream's clock, and its first was then a seek that
	 * played the second's frames again.  Unless the user says
	 * otherwise, one request a window. */
	fs->fd_pieces = fs_splice_pieces(fs->max_read);
	if (!fs->cfg.readahead_arg &&
	    (uint64_t)fs->cfg.readahead_kb * 1024 > fs->max_read)
		fs->cfg.readahead_kb = (unsigned)(fs->max_read / 1024);
	if (!wanted || (fs->pipe_ok && fs->max_read == FS_MAX_READ))
		return;
	/* the likely cause; a user past pipe-user-pages-soft is refused too */
	if (fs->pipe_ok)
		fprintf(stderr,
			"timelinefs: note: zero copy (-o splice=auto) with "
			"requests of %zu KiB: a pipe of %lu bytes for 1 MiB "
			"is refused (fs.pipe-max-size %lu, no "
			"CAP_SYS_RESOURCE); as root, sysctl "
			"fs.pipe-max-size=%lu gives 1 MiB requests\n",
			fs->max_read / 1024, need, fs_pipe_max(), need);
	else
		fprintf(stderr,
			"timelinefs: note: zero copy (-o splice=auto) is off: "
			"a pipe of %lu bytes is refused (fs.pipe-max-size %lu, "
			"no CAP_SYS_RESOURCE); as root, sysctl "
			"fs.pipe-max-size=%lu turns it on\n",
			fs_splice_pipe_need(FS_MIN_ZC_READ), fs_pipe_max(),
			need);
}

/* backing=direct on a file system that refuses O_DIRECT (ramfs, tmpfs
 * before Linux 6.6, some FUSE and network file systems) falls back to
 * buffered reads: say so once, at mount, rather than on the read path. */
static void probe_direct(struct fs *fs, const struct eng_tlm *set)
{
	size_t i, c, t;

	if (fs->cfg.backing_v != ENG_BACKING_DIRECT)
		return;
	for (i = 0; i < set->n; i++) {
		const struct eng_timeline *tl = set->files[i].tl;

		for (c = 0; c < tl->nclips; c++)
			for (t = 0; t < tl->ntracks; t++) {
				const char *f = tl->clips[c].media ?
						tl->clips[c].media[t].file :
						NULL;
				int fd;

				if (!f)
					continue;
				/* O_NONBLOCK, O_NOFOLLOW: a FIFO or link
				 * swapped in since eng_media_resolve must
				 * not hold up the start */
				fd = openat(fs->media_fd, f, O_RDONLY |
					    O_DIRECT | O_CLOEXEC |
					    O_NONBLOCK | O_NOFOLLOW);
				if (fd >= 0) {
					close(fd);
					return;
				}
				if (errno == EINVAL) {
					fprintf(stderr, "timelinefs: warning: "
						"%s refuses O_DIRECT; using "
						"backing=buffered\n",
						fs->cfg.media_dir);
					fs->cfg.backing_v =
						ENG_BACKING_BUFFERED;
				}
				return;
			}
	}
}

/* -o picture= makes the video tracks of EDL and OTIO timelines whole
 * pictures of raw essence; a track of real media or images has its
 * media's frames and does without it, even a wrong one.  Said once, at
 * start, naming the first such timeline and how many more. */
static void say_picture_unused(const struct fs *fs, const struct eng_tlm *set)
{
	size_t i, n = 0, first = 0;

	if (!fs->cfg.picture || fs->cfg.load.picture.pix == ENG_PIX_NONE)
		return;
	for (i = 0; i < set->n; i++) {
		const struct eng_timeline *tl = set->files[i].tl;

		if (eng_timeline_format(tl->path) == ENG_TL_TL ||
		    !eng_media_picture_unused(tl))
			continue;	/* a .tl says its own pictures */
		if (!n++)
			first = i;
	}
	if (!n)
		return;
	fprintf(stderr, "timelinefs: note: -o picture=%s is not used by %s",
		fs->cfg.picture, set->files[first].tl->path);
	if (n > 1)
		fprintf(stderr, " and %zu more timelines", n - 1);
	fprintf(stderr, ": %s video tracks play real media (QuickTime, MXF, "
		"image sequences), whose frames are their own\n",
		n > 1 ? "their" : "its");
}

/* Say, once at start, what the movies left out (a track), and why
 * timelines have no NAME.mov: one note per reason, naming the timeline
 * and its file, or (a folder of many alike) the first few of them and
 * how many.  The reasons are taken (freed) as said. */
static void say_movies(struct eng_tlm *set)
{
	struct eng_tlm_file *f = set->files;
	size_t i, j, n, said;

	for (i = 0; i < set->n; i++)
		if (f[i].mov_note)
			fprintf(stderr, "timelinefs: note: %s.mov: %s: %s\n",
				f[i].tl->name, f[i].tl->path, f[i].mov_note);
	for (i = 0; i < set->n; i++) {
		if (!f[i].no_movie)
			continue;
		for (n = 0, j = i; j < set->n; j++)
			n += f[j].no_movie &&
			     strcmp(f[j].no_movie, f[i].no_movie) == 0;
		if (n == 1) {
			fprintf(stderr, "timelinefs: note: no %s.mov: %s: %s\n",
				f[i].tl->name, f[i].tl->path, f[i].no_movie);
			free(f[i].no_movie);
			f[i].no_movie = NULL;
			continue;
		}
		fprintf(stderr, "timelinefs: note: no NAME.mov for %zu "
			"timelines (", n);
		for (said = 0, j = i; j < set->n; j++) {
			if (!f[j].no_movie ||
			    (j > i && strcmp(f[j].no_movie, f[i].no_movie)))
				continue;
			if (said < 3)
				fprintf(stderr, "%s%s", said ? ", " : "",
					f[j].tl->path);
			said++;
			if (j > i) {
				free(f[j].no_movie);
				f[j].no_movie = NULL;
			}
		}
		fprintf(stderr, "%s): %s\n", n > 3 ? " ..." : "",
			f[i].no_movie);
		free(f[i].no_movie);
		f[i].no_movie = NULL;
	}
}

/* The notes of what the timelines folder left out, once: before what
 * stops the mount (a skipped FIFO may be why a timeline is missing). */
static void say_notes(struct eng_diag *notes)
{
	size_t i;

	for (i = 0; i < notes->n; i++)
		fprintf(stderr, "timelinefs: note: %s\n", notes->msgs[i]);
	eng_diag_free(notes);
}

/* eng_tlm_open's hook, once the timelines are placed: the notes so far,
 * the ingest folder's rules, -o picture's note and the O_DIRECT probe the
 * memory check is made with. */
struct placed_ctx {
	struct fs *fs;
	struct eng_diag *notes;
};

static int placed(void *ctx, const struct eng_tlm *set,
		  struct eng_tlm_config *cfg, struct eng_diag *diag)
{
	struct placed_ctx *pc = ctx;
	size_t before = diag->n;

	say_notes(pc->notes);
	ingest_clash(pc->fs, set, diag);
	if (diag->n > before)
		return -EINVAL;
	say_picture_unused(pc->fs, set);
	probe_direct(pc->fs, set);
	cfg->player.backing = pc->fs->cfg.backing_v;
	return 0;
}

/* The timelines, their movies and their streams' memory, as
 * timelinefs-gen --for checks them (eng_tlm_open), into fs->files.
 * Returns 0, or -1 with the problems printed; those of the input (not
 * "out of memory") are left in *diag for the database. */
static int load_timelines(struct fs *fs, struct eng_diag *diag)
{
	struct eng_diag notes = { 0 };
	struct placed_ctx ctx = { fs, &notes };
	struct eng_tlm_config tc = {
		.load = &fs->cfg.load,
		.media_fd = fs->media_fd,
		.media_dir = fs->cfg.media_dir,
		.stream_mem = fs->cfg.stream_mem,
		.streams_mem = fs->cfg.streams_mem,
		.preroll_ns = (uint64_t)fs->cfg.preroll_ms * 1000000,
		.placed = placed,
		.placed_ctx = &ctx,
	};
	struct eng_tlm set;
	size_t i;
	int rc;

	/* checked with zero copy as -o splice allows */
	fs_player_config(fs, &tc.player);
	tc.player.zero_copy = fs->cfg.splice_v;
	rc = eng_tlm_open(fs->cfg.timelines, &tc, &set, diag, &notes);
	say_notes(&notes);
	say_movies(&set);
	fs->files = calloc(set.n ? set.n : 1, sizeof(*fs->files));
	if (fs->files) {
		for (i = 0; i < set.n; i++) {
			fs->files[i].tl = set.files[i].tl;
			fs->files[i].mov = set.files[i].mov;
			fs->files[i].mov_name = set.files[i].mov_name;
			set.files[i].tl = NULL;
			set.files[i].mov.head = NULL;
			set.files[i].mov_name = NULL;
		}
		fs->nfiles = set.n;
	}
	if (!fs->files || rc == -ENOMEM) {
		fprintf(stderr, "timelinefs: out of memory\n");
		rc = -1;
	}
	eng_tlm_free(&set);
	if (diag->n) {
		print_refusal(fs, diag);
		rc = -1;
	}
	return rc < 0 ? -1 : 0;
}

static void free_files(struct fs *fs)
{
	size_t i;

	for (i = 0; i < fs->nfiles; i++) {
		eng_tl_free(fs->files[i].tl);
		eng_mov_free(&fs->files[i].mov);
		free(fs->files[i].mov_name);
	}
	free(fs->files);
}

/* Set when the daemon runs in the background, where fuse_daemonize has
 * pointed stderr at /dev/null: the store's messages then go to syslog
 * too, so that a database outage is never silent. */
static int store_to_syslog;

static void store_say(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void store_say(int level, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* fuse_log's levels are syslog's */
	fuse_log((enum fuse_log_level)level, "%s", msg);
	if (store_to_syslog)
		syslog(level, "%s", msg);
	free(msg);
}

/* The store's outage messages (from its recorder thread): loud, at once. */
static void store_notify_log(void *ctx, const char *msg)
{
	(void)ctx;
	store_say(LOG_ERR, "%s\n", msg);
}

/* A run that will have no mount: its rows go, and the store closes.  Says
 * so if the rows stay (the database busy past its timeout, say): the run
 * is then left without an end, for the reader of the database to see. */
static void store_abandon(struct fs *fs)
{
	int rc = store_run_discard(fs->store);

	/* -EINVAL: there was no run to remove */
	if (rc < 0 && rc != -EINVAL)
		fprintf(stderr, "timelinefs: %s: the run of this failed start "
			"could not be removed and stays without an end: %s\n",
			fs->cfg.db, store_errmsg(fs->store) ?
			store_errmsg(fs->store) : "unknown error");
	store_close(fs->store);
	fs->store = NULL;
}

/* Open the store and begin the run (its row in the header transaction). */
static int store_open_run(struct fs *fs, const char *cmdline)
{
	struct store_run_info info;
	char *err = NULL, *kernel, *host, *machine;
	struct fs_kconfig kc = { 0 };
	struct eng_probe_io pio;
	struct timespec r0, r1;
	uint64_t epoch;
	size_t n;
	int rc, hz;

	rc = store_open(fs->cfg.db, 0, &fs->store, &err);
	if (rc < 0) {
		fprintf(stderr, "timelinefs: %s\n", err ? err : strerror(-rc));
		free(err);
		return -1;
	}
	store_set_hold(fs->store, fs->cfg.hold);
	store_set_notify(fs->store, store_notify_log, NULL);
	kernel = fs_kernel_release();
	host = fs_host_name();
	memset(&info, 0, sizeof(info));
	info.label = fs->cfg.label;
	info.kernel = kernel;
	eng_probe_io_real(&pio);
	if (kernel)
		kc.text = eng_probe_kernel_config(&pio, kernel, &kc.len,
						  kc.from, sizeof(kc.from));
	hz = kc.text ? eng_kconfig_hz(kc.text, kc.len) : -ENOENT;
	info.config_hz = hz > 0 ? hz : -1;
	info.host = host;
	info.options = cmdline;
	info.media_dir = fs->cfg.media_dir;
	machine = fs_machine_id();
	info.machine_id = machine;
	/* the run that the notes of its recordings name (a repair at a
	 * later start completes its stream rows by it) */
	if (store_uuid_random(fs->ingest.self.me.run) == 0)
		info.uuid = fs->ingest.self.me.run;
	info.experiment = fs->cfg.experiment;
	info.rank = fs->cfg.rank;
	/* the .status line of the local host (docs/hosts.md) */
	n = eng_status_host(NULL, 0, host, machine, fs->cfg.experiment,
			    fs->cfg.rank);
	if (!fs->status_host && (fs->status_host = malloc(n + 1)))
		eng_status_host(fs->status_host, n + 1, host, machine,
				fs->cfg.experiment, fs->cfg.rank);
	/* The realtime clock at the run's epoch (run.t0_unix_ns), read on
	 * either side of the monotonic one: their midpoint is within half
	 * the gap (a few hundred ns) of the epoch's instant.  The test
	 * hook's offset makes this host's clock seem off by that much. */
	clock_gettime(CLOCK_REALTIME, &r0);
	epoch = fs->io.now(fs->io.ctx);
	clock_gettime(CLOCK_REALTIME, &r1);
	info.t0_unix_ns = ((int64_t)r0.tv_sec * 1000000000 + r0.tv_nsec +
			   (int64_t)r1.tv_sec * 1000000000 + r1.tv_nsec) / 2 +
			  fs->cfg.clock_offset_ns;
	rc = store_run_begin(fs->store, &info, epoch);
	/* what can decide an A/B result; a run without it is still a run;
	 * the recordings repaired at start are the run's facts, not its
	 * problems (a problem row marks a run refused) */
	if (rc == 0 && (fs_env_record(fs->store, &fs->cfg, fs->fuse_opts,
				      kernel, &kc) < 0 ||
			(fs->ingest.repaired &&
			 (store_env_add(fs->store, "ingest_repaired",
					fs->ingest.repaired) < 0 ||
			  fs_ingest_repaired_store(fs) < 0))))
		fprintf(stderr, "timelinefs: %s: cannot record the run "
			"environment: %s\n", fs->cfg.db,
			store_errmsg(fs->store) ? store_errmsg(fs->store) :
			"unknown error");
	free(kc.text);
	free(kernel);
	free(host);
	free(machine);
	return rc;
}

/* The file each (clip, track) of tl reads, as media rows. */
static int store_media_rows(struct store *st, const struct eng_timeline *tl,
			    int64_t timeline_id)
{
	size_t c, t;
	int rc = 0;

	for (c = 0; rc == 0 && c < tl->nclips; c++) {
		const struct eng_media *md = tl->clips[c].media;

		for (t = 0; md && rc == 0 && t < tl->ntracks; t++) {
			struct store_media_info m = {
				.clip = tl->clips[c].name,
				.track = tl->tracks[t].name,
				.file = md[t].file,
				.codec = md[t].ess ? md[t].ess->codec :
					 md[t].header ? "wav" : "raw",
				/* a sequence: file is its pattern, codec
				 * its images' ("dpx", "exr-zip"), no
				 * stream */
				.stream = md[t].ess && !md[t].seq ?
					  md[t].ess->index : -1,
			};

			if (m.file)
				rc = store_media_add(st, timeline_id, &m);
		}
	}
	return rc;
}

/* Open the store, begin the run and describe the timelines. */
static int store_begin(struct fs *fs, const char *cmdline)
{
	size_t i;
	int rc;

	rc = store_open_run(fs, cmdline);
	if (rc < 0 && !fs->store)
		return -1;
	for (i = 0; rc == 0 && i < fs->nfiles; i++) {
		const struct eng_timeline *tl = fs->files[i].tl;
		struct store_timeline_info ti = {
			.name = tl->name, .path = tl->path,
			.fps_num = tl->fps.num, .fps_den = tl->fps.den,
			.frames = tl->frames, .bytes = tl->bytes,
		};

		rc = store_timeline_add(fs->store, &ti,
					&fs->files[i].timeline_id);
		if (rc == 0)
			rc = store_media_rows(fs->store, tl,
					      fs->files[i].timeline_id);
	}
	if (rc == 0)
		rc = store_start(fs->store);
	if (rc < 0) {
		fprintf(stderr, "timelinefs: cannot record in %s: %s\n",
			fs->cfg.db, store_errmsg(fs->store) ?
			store_errmsg(fs->store) : strerror(-rc));
		/* no partial run (the header is one transaction) */
		store_abandon(fs);
		return -1;
	}
	return 0;
}

/*
 * The mount is refused for its input (a malformed timeline, a missing or
 * short clip): the run is still recorded, ended at once, with one problem
 * row per message, so that the database says why it holds no streams.
 * Without a database (it cannot be opened) the messages on stderr stay
 * the only record, and say so.
 */
static void store_refused(struct fs *fs, const char *cmdline,
			  const struct eng_diag *diag)
{
	size_t i;
	int rc;

	rc = store_open_run(fs, cmdline);
	if (rc < 0 && !fs->store)
		return;
	for (i = 0; rc == 0 && i < diag->n; i++)
		rc = store_problem_add(fs->store, diag->msgs[i]);
	if (rc == 0)
		rc = store_run_end(fs->store, fs->io.now(fs->io.ctx));
	if (rc < 0)
		fprintf(stderr, "timelinefs: cannot record the problems in "
			"%s: %s\n", fs->cfg.db, store_errmsg(fs->store) ?
			store_errmsg(fs->store) : strerror(-rc));
	else
		fprintf(stderr, "timelinefs: recorded in %s: run %lld, "
			"table problem\n", fs->cfg.db,
			(long long)store_run_id(fs->store));
	store_close(fs->store);
	fs->store = NULL;
}

static char *join_args(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 1; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 1; i < argc; i++) {
		if (i > 1)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}

/* timelinefs -V: the libraries it runs with, which may not be those it
 * was built against: what a bug report needs. */
static void say_version(void)
{
	unsigned av = avformat_version();

	printf("timelinefs %s\nlibfuse %s\nSQLite %s\nlibavformat %u.%u.%u\n",
	       TLFS_VERSION, fuse_pkgversion(), store_sqlite_version(),
	       av >> 16, av >> 8 & 0xff, av & 0xff);
}

/* Everything the mount needs before its session: the media folder, the
 * recordings repaired, the timelines loaded and sized, their movies.  0;
 * -1 with the media folder open (the caller frees what was made), -2
 * before it. */
static int prepare(struct fs *fs, struct eng_diag *diag, const char *cmdline)
{
	uint64_t nofile;
	int repair;

	if (fs_raise_nofile(&nofile) < 0)
		fprintf(stderr,
			"timelinefs: cannot raise the open file limit: "
			"%s (many streams may fail with EMFILE)\n",
			strerror(errno));
	/* a low limit shares its fds out among the streams expected */
	if (!fs->cfg.stream_files_arg)
		fs->cfg.stream_files = eng_player_files_default(nofile);
	fs->media_fd = open(fs->cfg.media_dir, O_RDONLY | O_DIRECTORY |
			    O_CLOEXEC);
	if (fs->media_fd < 0) {
		fprintf(stderr, "timelinefs: cannot open media folder %s: %s\n",
			fs->cfg.media_dir, strerror(errno));
		return -2;
	}
	eng_io_real_init(&fs->io, &fs->io_real, fs->media_fd);
	if (fs->cfg.inject_v) {
		/* -o inject: every player reads through the fault wrapper */
		fs->io_base = fs->io;
		if (eng_inject_wrap(fs->cfg.inject_v, &fs->io_base, &fs->io) < 0)
			return -1;
	}
	probe_pipes(fs);
	if (fs_ingest_init(fs) < 0)
		return -1;
	/* before the timelines, which may play a recording, are sized */
	repair = fs_ingest_repair_all(fs, fs->cfg.inject_v ? &fs->io_base :
					  &fs->io);
	if (repair < 0)
		fprintf(stderr, "timelinefs: cannot read %s/%s to repair its "
			"recordings: %s\n", fs->cfg.media_dir, ENG_INGEST_DIR,
			strerror(-repair));
	if (load_timelines(fs, diag) < 0) {
		if (diag->n)
			store_refused(fs, cmdline, diag);
		return -1;
	}
	fs->mount_time = (uint64_t)time(NULL);
	return 0;
}

/* The mount, once the run is recorded: 0, or -1 with the run abandoned
 * (libfuse refused, or a signal came while starting). */
static int mount_now(struct fs *fs)
{
	if (fuse_session_mount(fs->se, fs->cfg.mountpoint) != 0) {
		/* libfuse said why, but not where */
		fprintf(stderr, "timelinefs: cannot mount on %s\n",
			fs->cfg.mountpoint);
		/* no run without a mount */
		store_abandon(fs);
		return -1;
	}
	if (!fs->cfg.direct_io && fs->cfg.readahead_kb) {
		int rc = fs_set_readahead(fs->cfg.mountpoint,
					  fs->cfg.readahead_kb);

		if (rc < 0)
			fuse_log(FUSE_LOG_WARNING, "timelinefs: cannot set "
				 "readahead to %u KiB: %s (cached mode will "
				 "send smaller requests)\n",
				 fs->cfg.readahead_kb, strerror(-rc));
	}
	/* SIGINT/TERM/HUP while starting (a busy database can hold us for
	 * seconds; a background parent passes its Ctrl-C on): the mount is
	 * not what the user wants any more, nor the run that it would end
	 * at once.  Undone here, and the exit says so. */
	if (fuse_session_exited(fs->se)) {
		fprintf(stderr,
			"timelinefs: interrupted while starting; "
			"%s unmounted, no run recorded\n",
			fs->cfg.mountpoint);
		fuse_session_unmount(fs->se);
		store_abandon(fs);
		return -1;
	}
	return 0;
}

/* The session's loop, one thread (-s) or many: 0 or 1, or -1 if the
 * loop's configuration could not be made. */
static int serve(struct fs *fs, const struct fuse_cmdline_opts *opts,
		 struct fuse_loop_config **lc)
{
	int ret;

	if (opts->singlethread) {
		ret = fuse_session_loop(fs->se);
	} else {
		*lc = fuse_loop_cfg_create();
		if (!*lc)
			return -1;
		fuse_loop_cfg_set_clone_fd(*lc, opts->clone_fd);
		/* Paced readers sleep in their worker until a frame is due:
		 * every blocked reader holds one thread, so allow plenty. */
		fuse_loop_cfg_set_idle_threads(*lc, fs->cfg.max_idle_threads);
		fuse_loop_cfg_set_max_threads(*lc, fs->cfg.max_threads);
		ret = fuse_session_loop_mt(fs->se, *lc);
	}
	if (atomic_load(&fs->io_real.warned_direct))
		fuse_log(FUSE_LOG_WARNING, "timelinefs: O_DIRECT was refused "
			 "by the media file system; buffered reads were "
			 "used\n");
	return ret < 0 ? 1 : 0;
}

/* The run ended in the database, and what it could not take said, never
 * silently: 0, or 1 if the run's end could not be recorded. */
static int end_run(struct fs *fs)
{
	struct store_stats ss;
	int ret = 0;

	if (store_run_end(fs->store, fs->io.now(fs->io.ctx)) < 0)
		ret = 1;
	else if (fs_env_hz_record(&fs->hz, fs->store) < 0 ||
		 fs_ingest_record_end(fs) < 0)
		store_say(LOG_ERR, "timelinefs: %s: cannot record the "
			  "measured tick rate or the refused creates: %s\n",
			  fs->cfg.db, store_errmsg(fs->store) ?
			  store_errmsg(fs->store) : "unknown error");
	store_get_stats(fs->store, &ss);
	if (ss.rows_lost || ss.last_error)
		store_say(LOG_ERR, "timelinefs: %s: %llu of %llu access rows "
			  "could not be stored: %s\n", fs->cfg.db,
			  (unsigned long long)ss.rows_lost,
			  (unsigned long long)ss.rows_queued,
			  store_errmsg(fs->store) ?
			  store_errmsg(fs->store) : "unknown error");
	else if (ss.outages)
		store_say(LOG_WARNING, "timelinefs: %s: the database refused "
			  "writes %llu time%s; every held access row was "
			  "stored\n", fs->cfg.db,
			  (unsigned long long)ss.outages,
			  ss.outages == 1 ? "" : "s");
	if (ss.stream_rows_lost)
		store_say(LOG_ERR, "timelinefs: %s: the row or the totals of "
			  "%llu stream%s could not be stored\n", fs->cfg.db,
			  (unsigned long long)ss.stream_rows_lost,
			  ss.stream_rows_lost == 1 ? "" : "s");
	store_close(fs->store);
	return ret;
}

int main(int argc, char *argv[])
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fuse_cmdline_opts opts;
	struct fuse_loop_config *lc = NULL;
	struct eng_diag diag = { 0 };
	struct fs fs;
	char *cmdline = join_args(argc, argv);
	char max_read[32];
	int ret = 1, rc;

	memset(&fs, 0, sizeof(fs));
	memset(&opts, 0, sizeof(opts));
	fs.media_fd = -1;
	pthread_mutex_init(&fs.lock, NULL);
	pthread_mutex_init(&fs.ingest.lock, NULL);
	fs.streams.next = fs.streams.prev = &fs.streams;

	/* the media readers' libavformat would print its own lines for a
	 * file it refuses ("moov atom not found"): the mount says which
	 * file and why in its own message, once */
	av_log_set_level(AV_LOG_QUIET);
	if (fs_config_parse(&args, &fs.cfg) < 0)
		goto err_args;
	if (fs.cfg.show_help || fs.cfg.show_version || fs.cfg.show_doc) {
		if (fs.cfg.show_help)
			fs_usage(argv[0]);
		else if (fs.cfg.show_version)
			say_version();
		ret = fs.cfg.show_doc &&
		      fs_optdoc_print(fs.cfg.show_doc, stdout) < 0 ? 2 : 0;
		goto err_args;
	}
	/* libfuse's own options (-f, -d, -s, clone_fd ...) */
	if (fuse_opt_add_arg(&args, fs.cfg.mountpoint) < 0 ||
	    fuse_parse_cmdline(&args, &opts) != 0)
		goto err_args;
	fs.fuse_opts = &opts;
	rc = prepare(&fs, &diag, cmdline);
	if (rc == -2)
		goto err_args;
	/* the size prepare's probe_pipes settled on */
	snprintf(max_read, sizeof(max_read), "-omax_read=%zu", fs.max_read);
	if (rc < 0 || fuse_opt_add_arg(&args, max_read) < 0)
		goto err_files;

	fs.se = fuse_session_new(&args, &fs_ops, sizeof(fs_ops), &fs);
	if (!fs.se)
		goto err_files;
	if (fuse_set_signal_handlers(fs.se) != 0)
		goto err_session;
	/* The run and timeline rows are committed before the mount, so
	 * that whoever sees the mount point mounted (a script polling
	 * /proc/mounts, or the shell after a background mount returned)
	 * finds them in the database.  The store is opened after the fork:
	 * SQLite connections must not cross it (their POSIX locks would
	 * stay with the parent). */
	if (fs_daemon_start(opts.foreground) < 0)
		goto err_signals;
	fs_ingest_self_pid(&fs);
	if (store_begin(&fs, cmdline) < 0 || mount_now(&fs) < 0)
		goto err_signals;
	fs_daemon_ready();
	store_to_syslog = !opts.foreground;
	fs_env_hz_start(&fs.hz, &fs.io);
	fs_watch_start(&fs);
	ret = serve(&fs, &opts, &lc);
	if (ret < 0)
		ret = 1;
	fs_watch_stop(&fs);
	fs_close_all_streams(&fs);
	if (fs.store && end_run(&fs))
		ret = 1;
	fs_env_hz_record(&fs.hz, NULL);	/* joins the thread if not yet */
	fuse_session_unmount(fs.se);
err_signals:
	fuse_remove_signal_handlers(fs.se);
err_session:
	fuse_session_destroy(fs.se);
err_files:
	eng_diag_free(&diag);
	free_files(&fs);
	fs_ingest_free(&fs);
	if (fs.media_fd >= 0)
		close(fs.media_fd);
err_args:
	if (lc)
		fuse_loop_cfg_destroy(lc);
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	fs_config_free(&fs.cfg);
	free(fs.status_host);
	free(cmdline);
	pthread_mutex_destroy(&fs.ingest.lock);
	pthread_mutex_destroy(&fs.lock);
	return ret;
}
