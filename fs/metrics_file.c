/* SPDX-License-Identifier: MIT */
/*
 * The live metrics file: its text from the counters the daemon keeps
 * (the players' and recordings' stats, the closed streams' totals, the
 * store's), formatted by the engine; no query of the database.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

void fs_metrics_opened(struct fs *fs, int record)
{
	fs->metrics.opened[record ? 1 : 0]++;
}

void fs_metrics_closed(struct fs *fs, const struct eng_player_stats *ps,
		       const struct eng_rec_stats *rs)
{
	pthread_mutex_lock(&fs->lock);
	if (ps)
		eng_metrics_add_play(&fs->metrics, ps->frames, ps->bytes,
				     ps->late_causes, &ps->headroom);
	if (rs) {
		fs->metrics.frames[1] += rs->frames;
		fs->metrics.bytes[1] += rs->bytes;
		fs->metrics.dropped += rs->dropped;
	}
	pthread_mutex_unlock(&fs->lock);
}

/* The open streams' and recordings' part of m (fs->lock held); 0 or
 * -ENOMEM. */
static int add_open(struct fs *fs, struct eng_metrics *m)
{
	struct eng_status_row *rows = NULL;
	struct eng_player_stats *ps;
	struct fs_stream *s;
	size_t n, i;
	int rc = 0;

	ps = malloc(sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	for (s = fs->streams.next; s != &fs->streams; s = s->next) {
		eng_player_stats(s->player, ps);
		eng_metrics_add_play(m, ps->frames, ps->bytes, ps->late_causes,
				     &ps->headroom);
		m->streams[0]++;
	}
	free(ps);
	pthread_mutex_lock(&fs->ingest.lock);
	n = fs_ingest_status(fs, NULL, 0, 0);
	if (n && !(rows = calloc(n, sizeof(*rows))))
		rc = -ENOMEM;
	if (!rc)
		n = fs_ingest_status(fs, rows, n, 0);
	for (i = 0; !rc && i < n; i++) {
		m->streams[1]++;
		m->frames[1] += rows[i].frames_played;
		m->bytes[1] += rows[i].bytes;
		m->dropped += rows[i].late_frames;
	}
	pthread_mutex_unlock(&fs->ingest.lock);
	free(rows);
	return rc;
}

char *fs_metrics_text(struct fs *fs, size_t *len)
{
	struct eng_metrics *m = malloc(sizeof(*m));
	struct store_stats ss;
	char *text = NULL;
	size_t need;
	int rc;

	if (!m)
		return NULL;
	pthread_mutex_lock(&fs->lock);
	*m = fs->metrics;
	rc = add_open(fs, m);
	pthread_mutex_unlock(&fs->lock);
	if (rc < 0)
		goto out;
	if (fs->store) {
		store_get_stats(fs->store, &ss);
		m->rows_queued = ss.rows_queued;
		m->rows_written = ss.rows_written;
		m->rows_lost = ss.rows_lost;
		m->rows_held = ss.rows_held;
		m->queue_full_waits = ss.queue_full_waits;
	}
	need = eng_metrics_format(NULL, 0, m);
	text = malloc(need + 1);
	if (text)
		*len = eng_metrics_format(text, need + 1, m);
out:
	free(m);
	return text;
}
