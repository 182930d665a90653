/* SPDX-License-Identifier: MIT */
/*
 * A recording repaired at start whose killed run is in this database:
 * its record stream row, left without its totals by the kill, gets what
 * the repair kept (store.h, store_stream_repaired).
 */
#include <errno.h>

#include "store_i.h"

/* The killed run's last record stream of the file still open (a name is
 * recorded by one stream at a time, so that one was open at the kill):
 * closed at its last committed access row (its open when it has none). */
#define REPAIRED_SQL                                                           \
	"UPDATE stream SET frames = ?3, bytes = ?4, closed_ns = "              \
	"coalesce((SELECT max(a.done_ns) FROM access a "                       \
	"WHERE a.stream_id = stream.id), opened_ns) "                          \
	"WHERE id = (SELECT s.id FROM stream s JOIN run r "                    \
	"ON r.id = s.run_id WHERE r.uuid = ?1 AND s.kind = 'record' "          \
	"AND s.file = ?2 AND s.closed_ns IS NULL ORDER BY s.id DESC "          \
	"LIMIT 1)"

int store_stream_repaired(struct store *st, const char *run_uuid,
			  const char *file, int64_t frames, uint64_t bytes)
{
	sqlite3_stmt *s = NULL;
	char *msg = NULL;
	int rc, n = 0;

	if (!st->run_id || st->started || st->run_ended || !run_uuid || !file ||
	    frames < 0)
		return -EINVAL;
	rc = sqlite3_prepare_v2(st->db, REPAIRED_SQL, -1, &s, NULL);
	if (rc != SQLITE_OK)
		msg = store_fmt_msg("cannot prepare the repaired stream's "
				    "update: %s",
				    sqlite3_errmsg(st->db));
	store_bind_text(s, 1, run_uuid, &rc);
	store_bind_text(s, 2, file, &rc);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(s, 3, frames);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(s, 4, (int64_t)bytes);
	if (s && !msg)
		store_step_done(st->db, s, "update the repaired stream's row",
				&rc, &msg);
	if (rc == SQLITE_OK)
		n = sqlite3_changes(st->db);
	sqlite3_finalize(s);
	if (rc != SQLITE_OK) {
		store_keep_error(st, msg);
		return -EIO;
	}
	return n ? 0 : -ENOENT;
}
