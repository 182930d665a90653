/* SPDX-License-Identifier: MIT */
/*
 * The player's media fds: one per (clip, track) played, opened on first
 * use, kept in a least-recently-used list within cfg.max_files and the
 * process's limit, and checked (io->check) so that a file deleted or
 * replaced while it plays fails instead of serving the old inode.  The
 * loaders share them under fd_lock; an fd a loader reads through (users)
 * is never closed under it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "play/player_i.h"

/* Close a clip's fd.  Where the page cache must not hide the storage
 * (dontneed, and a direct open that fell back to buffered), drop the whole
 * file first: each read drops only its own range, and the kernel's
 * readahead past the last one (read_ahead_kb, megabytes) and the WAV
 * header read at load would stay cached after the stream. */
static void close_media(const struct eng_player *p, const struct media_fd *m)
{
	const struct eng_io *io = p->cfg.io;

	if (p->cfg.backing != ENG_BACKING_BUFFERED && !m->direct &&
	    io->dontneed)
		io->dontneed(io->ctx, m->fd, 0, 0);
	io->close(io->ctx, m->fd);
}

/* The open fds are a list, most recently used first (fd_lock). */
static void lru_unlink(struct eng_player *p, int32_t i)
{
	struct media_fd *m = &p->fds[i];

	if (m->newer >= 0)
		p->fds[m->newer].older = m->older;
	else
		p->lru_new = m->older;
	if (m->older >= 0)
		p->fds[m->older].newer = m->newer;
	else
		p->lru_old = m->newer;
	m->newer = m->older = -1;
}

static void lru_push(struct eng_player *p, int32_t i)
{
	struct media_fd *m = &p->fds[i];

	m->newer = -1;
	m->older = p->lru_new;
	if (p->lru_new >= 0)
		p->fds[p->lru_new].newer = i;
	else
		p->lru_old = i;
	p->lru_new = i;
}

static void fd_close(struct eng_player *p, int32_t i)
{
	lru_unlink(p, i);
	close_media(p, &p->fds[i]);
	p->fds[i].fd = -1;
	p->nopen--;
}

/* Close the least recently used open fd that no loader reads through; 0
 * when there is none. */
static int fd_close_lru(struct eng_player *p)
{
	int32_t i;

	for (i = p->lru_old; i >= 0; i = p->fds[i].newer)
		if (!p->fds[i].users) {
			fd_close(p, i);
			return 1;
		}
	return 0;
}

/* Open (clip, track)'s file within the stream's budget of fds: past
 * cfg.max_files, and on EMFILE/ENFILE (the process's or the system's
 * limit, which other streams share), the least recently used fd goes
 * first.  A feature-length EDL plays thousands of clip files; holding
 * them all open ran a stream into EMFILE mid-play.  fd_lock held, dropped
 * around io->open: a slow open (a stalled metadata server) holds up only
 * the loaders that need this file (m->opening), not every loader's
 * reads.  Its place in nopen is taken before, so that opens at once keep
 * within max_files. */
static int fd_open(struct eng_player *p, struct media_fd *m,
		   const char *file, int *is_direct)
{
	const struct eng_io *io = p->cfg.io;
	int fd;

	if (p->cfg.max_files)
		while (p->nopen >= p->cfg.max_files && fd_close_lru(p))
			;
	p->nopen++;
	m->opening = 1;
	for (;;) {
		pthread_mutex_unlock(&p->fd_lock);
		fd = io->open(io->ctx, file,
			      p->cfg.backing == ENG_BACKING_DIRECT,
			      is_direct);
		pthread_mutex_lock(&p->fd_lock);
		if ((fd != -EMFILE && fd != -ENFILE) || !fd_close_lru(p))
			break;
		p->open_retries++;
	}
	m->opening = 0;
	pthread_cond_broadcast(&p->fd_cv);
	if (fd < 0)
		p->nopen--;
	return fd;
}

/* The fd of (clip, track), opened on first use.  -errno if it cannot be
 * opened; the next frame tries again.  With io->check, the name is checked
 * right after the open and then at most every ENG_MEDIA_CHECK_NS: a file
 * deleted, replaced or made unreadable while open fails (and is closed, so
 * that the next frame opens the name again) instead of serving the old
 * inode.  Checking per open and per interval, not per slice, keeps it to
 * two stat calls per fd per 100 ms.  A check that fails while other
 * loaders read through the fd fails this read and leaves the close to
 * the next check when none does. */
int eng_pl_media_fd(struct eng_player *p, uint32_t clip, size_t t,
		    int *direct)
{
	const struct eng_timeline *tl = p->tl;
	const struct eng_io *io = p->cfg.io;
	int32_t i = (int32_t)((size_t)clip * tl->ntracks + t);
	struct media_fd *m = &p->fds[i];
	const char *file;
	int is_direct = 0, fd, rc;
	uint64_t now = 0;

	if (!tl->clips[clip].media || !tl->clips[clip].media[t].file)
		return -ENOENT;
	file = tl->clips[clip].media[t].file;
	if (io->check)
		now = io->now(io->ctx);
	pthread_mutex_lock(&p->fd_lock);
	while (m->opening)
		pthread_cond_wait(&p->fd_cv, &p->fd_lock);
	if (m->fd < 0) {
		fd = fd_open(p, m, file, &is_direct);
		if (fd < 0) {
			pthread_mutex_unlock(&p->fd_lock);
			return fd;
		}
		m->fd = fd;
		m->direct = p->cfg.backing == ENG_BACKING_DIRECT && is_direct;
		m->checked_ns = now - ENG_MEDIA_CHECK_NS;
		p->opens++;
		if (m->opened)
			p->reopens++;
		m->opened = 1;
		if (p->nopen > p->open_peak)
			p->open_peak = p->nopen;
	} else {
		lru_unlink(p, i);
	}
	lru_push(p, i);
	if (io->check && now - m->checked_ns >= ENG_MEDIA_CHECK_NS) {
		rc = io->check(io->ctx, m->fd, file);
		if (rc < 0) {
			if (!m->users)
				fd_close(p, i);
			pthread_mutex_unlock(&p->fd_lock);
			return rc;
		}
		m->checked_ns = now;
	}
	*direct = m->direct;
	m->users++;
	fd = m->fd;
	pthread_mutex_unlock(&p->fd_lock);
	return fd;
}

void eng_pl_media_put(struct eng_player *p, uint32_t clip, size_t t)
{
	struct media_fd *m = &p->fds[(size_t)clip * p->tl->ntracks + t];

	pthread_mutex_lock(&p->fd_lock);
	m->users--;
	pthread_mutex_unlock(&p->fd_lock);
}

/* Close every media fd the stream has open, at its end. */
void eng_pl_fds_close(struct eng_player *p)
{
	size_t i, nfds = p->tl->nclips * p->tl->ntracks;

	for (i = 0; i < nfds; i++)
		if (p->fds[i].fd >= 0)
			close_media(p, &p->fds[i]);
}
