#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: generate a small media set, mount it, play 5 timelines in
# parallel with plain dd at real time, unmount, print the per-stream table.
# The media is removed afterwards; the database stays in build/demo.db.
set -eu
B=${TLFS_BUILD:-build}
DB=$B/demo.db
W=$(mktemp -d "${TMPDIR:-/tmp}/timelinefs-demo.XXXXXX")
MNT=$W/mnt
DAEMON=
cleanup() {
	set +e
	grep -q " $MNT fuse" /proc/mounts && fusermount3 -u -z "$MNT"
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== generating media in $W (5 clips, about 370 MB)"
"$B/timelinefs-gen" --clips 5 --clip-seconds 4 --timelines 5 --events 4 \
	--min-seconds 2 --max-seconds 3 "$W/media"
rm -f "$DB" "$DB-wal" "$DB-shm"
mkdir -p "$MNT"
echo "== mounting: timelinefs -f -o db=$DB,label=demo $W/media $MNT"
"$B/timelinefs" -f -o db="$DB",label=demo "$W/media" "$MNT" &
DAEMON=$!
i=0
until grep -q " $MNT fuse" /proc/mounts; do
	kill -0 "$DAEMON" 2>/dev/null || { echo "demo: mount failed" >&2; exit 1; }
	i=$((i + 1)); [ $i -lt 100 ] || { echo "demo: mount timed out" >&2; exit 1; }
	sleep 0.1
done
ls -l "$MNT"
echo "== playing 5 timelines in parallel: dd if=$MNT/timelineNN of=/dev/null"
readers=
for n in 01 02 03 04 05; do
	dd if="$MNT/timeline$n" of=/dev/null 2>"$W/dd$n" &
	readers="$readers $!"
done
# shellcheck disable=SC2086 # the daemon is a child too: wait for readers only
wait $readers
for n in 01 02 03 04 05; do
	sed -n "s|^\(.*copied.*\)|timeline$n: \1|p" "$W/dd$n"
done
fusermount3 -u "$MNT"
wait "$DAEMON" || true
DAEMON=
echo "== per stream (sqlite3 $DB 'select * from stream_summary')"
sqlite3 -column -header "$DB" "select timeline, comm, round(duration_s, 2) as seconds,
	round(mb_s, 2) as mb_s, frames, late_frames, accesses,
	p50_us, p99_us, max_us from stream_summary order by stream_id"
echo "== the run (run_summary)"
sqlite3 -column -header "$DB" "select label, streams, round(mb_s, 1) as mb_s, frames,
	late_frames, accesses, p50_us, p99_us, max_us from run_summary"
echo "database kept: $DB"
