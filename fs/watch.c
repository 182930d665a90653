/* SPDX-License-Identifier: MIT */
/*
 * The session's end, seen while readers still wait.  An unmount (the
 * kernel aborts the connection: a worker's read of /dev/fuse gets ENODEV)
 * or SIGTERM/INT/HUP (libfuse's handler) ends the session, and
 * fuse_session_loop_mt then joins every worker.  A worker whose paced
 * read waits for its next frame would hold that join for the frame's
 * issue time: tens of seconds at a slow pace, for ever on a clock that
 * does not run; and a killed reader's readahead request stays with the
 * daemon after the reader is gone.  libfuse says nothing at that moment
 * (no callback before the join), so a thread looks at
 * fuse_session_exited every FS_WATCH_MS and cancels every stream's
 * requests (eng_player_cancel) once it is set.  Their rows are recorded
 * as ever when main closes the streams.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "fs.h"

/* How long an ended session's waiting reads may wait still; the idle
 * daemon wakes this often (a check of one flag). */
#define FS_WATCH_MS 100

/* Under fs->lock: cancel every stream's requests from now on. */
static void cancel_streams(struct fs *fs)
{
	struct fs_stream *s;

	fs->ending = 1;
	for (s = fs->streams.next; s != &fs->streams; s = s->next)
		eng_player_cancel(s->player);
}

static void *watch_main(void *arg)
{
	struct fs *fs = arg;
	struct timespec ts;

	pthread_mutex_lock(&fs->lock);
	while (!fs->watch.stop && !fuse_session_exited(fs->se)) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += FS_WATCH_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&fs->watch.cv, &fs->lock, &ts);
	}
	cancel_streams(fs);
	pthread_mutex_unlock(&fs->lock);
	return NULL;
}

int fs_watch_start(struct fs *fs)
{
	pthread_condattr_t ca;
	int rc;

	fs->watch.stop = 0;
	rc = pthread_condattr_init(&ca);
	if (rc)
		goto out;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!rc)
		rc = pthread_cond_init(&fs->watch.cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		goto out;
	rc = pthread_create(&fs->watch.thread, NULL, watch_main, fs);
	if (rc)
		pthread_cond_destroy(&fs->watch.cv);
out:
	if (rc)
		fuse_log(FUSE_LOG_ERR, "timelinefs: cannot start the thread "
			 "that sees the session end: %s\n", strerror(rc));
	fs->watch.on = !rc;
	return -rc;
}

void fs_watch_stop(struct fs *fs)
{
	if (!fs->watch.on)
		return;
	pthread_mutex_lock(&fs->lock);
	fs->watch.stop = 1;
	pthread_cond_signal(&fs->watch.cv);
	pthread_mutex_unlock(&fs->lock);
	pthread_join(fs->watch.thread, NULL);
	pthread_cond_destroy(&fs->watch.cv);
	fs->watch.on = 0;
}
