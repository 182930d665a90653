#!/bin/sh
# SPDX-License-Identifier: MIT
# What timelinefs-merge takes for a host's database of ROWS access rows
# (1000000): sh tests/bench/merge.sh [BUILD].  The database is made with
# SQL (one run of 64 streams, as a mount of 64 workstations leaves it,
# schema applied by timelinefs-merge itself) in a temporary folder, then
# merged into an empty database, into one that already holds a copy of
# another host's (the target's index grows), and again (nothing added:
# the checks only).  Prints the seconds of each from /usr/bin/time.  Not
# part of make test.
set -eu
B=${1:-$(cd "$(dirname "$0")/../.." && pwd)/build}
MERGE=$B/timelinefs-merge
[ -x "$MERGE" ] || { echo "$0: no $MERGE (make first)" >&2; exit 1; }
: "${ROWS:=1000000}"
W=$(mktemp -d "${TMPDIR:-/tmp}/tlfs-merge-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT INT TERM

# the schema of this build: timelinefs-merge creates OUT before it looks
# at an input (here a folder, refused)
"$MERGE" "$W/a.db" "$W" 2>/dev/null || :
sqlite3 "$W/a.db" >/dev/null <<EOF
INSERT INTO host (id, name, machine_id, complete)
	VALUES (1, 'ws1', '0123456789abcdef0123456789abcdef', 1);
INSERT INTO run (id, started_at, ended_at, host, uuid, t0_unix_ns, host_id)
	VALUES (1, '2026-12-05T00:00:00.000Z', '2026-12-05T00:10:00.000Z',
		'ws1', '11111111-2222-4333-8444-555555555555',
		1765000000000000000, 1);
INSERT INTO timeline (id, run_id, name, path, fps_num, fps_den, frames, bytes)
	VALUES (1, 1, 'tl', 'p', 25, 1, 100000, 1);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 64)
INSERT INTO stream (id, run_id, timeline_id, pid, comm, opened_ns, closed_ns,
	bytes, frames, late_frames, failed_frames, tid, kind, writer_drops)
	SELECT i, 1, 1, 1000 + i, 'dd', 0, 100, 1, 1, 0, 0, 1000 + i, 'play', 0
	FROM n;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $ROWS - 1)
INSERT INTO access (stream_id, frame, track, clip, file_offset, length,
	sched_ns, due_ns, issued_ns, done_ns, errno, injected, played, dep, op)
	SELECT 1 + i % 64, i / 64, 'V', 'clip0001', i * 4096, 4096, i * 1000,
	i * 1000 + 40000000, i * 1000, i * 1000 + 300000, 0, 0, 1, 0, 0 FROM n;
PRAGMA wal_checkpoint(TRUNCATE);
EOF
# another host's: the same rows, another run
cp "$W/a.db" "$W/b.db"
sqlite3 "$W/b.db" "UPDATE run SET uuid = '22222222-2222-4333-8444-555555555555',
	host = 'ws2'; UPDATE host SET name = 'ws2'; PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
echo "input: $ROWS access rows, $(($(stat -c %s "$W/a.db") / 1000000)) MB; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
for step in "empty a.db" "holding-a b.db" "again a.db"; do
	in=${step#* }
	/usr/bin/time -f "${step% *}: %e s, %M KB max RSS" "$MERGE" "$W/out.db" "$W/$in"
done
