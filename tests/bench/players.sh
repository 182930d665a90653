#!/bin/sh
# SPDX-License-Identifier: MIT
# Players as workstations against dd (issue 20): one sd-ntsc timeline of
# about 5 s, page-cached, on a pace=realtime mount; each reader plays it
# whole, the readers taken in turn ROUNDS times (dd, dd bs=1M, dd bs=1M of
# NAME.mov, ffmpeg -re, ffmpeg, mpv, gst-launch-1.0, ffprobe; ...), and
# per reader the stream rows and backing reads the daemon recorded: opens,
# backing reads and bytes (and as a ratio to plain dd's), requests, frames,
# late frames, seeks, reloads, and the play's wall time (first open to last
# close).  Not part of make test or make bench; prints a table.
#   TLFS_BUILD=$PWD/build sh tests/bench/players.sh [ROUNDS]
set -eu

: "${TLFS_BUILD:?set TLFS_BUILD to the build folder}"
ROUNDS=${1:-2}
BIN=$TLFS_BUILD/timelinefs
GEN=$TLFS_BUILD/timelinefs-gen
for c in ffmpeg ffprobe mpv gst-launch-1.0 sqlite3; do
	command -v "$c" >/dev/null 2>&1 || { echo "players: no $c (make deps)" >&2; exit 1; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/tlfs-players.XXXXXX")
M=$W/media
MNT=$W/mnt
BENCH_DB=$W/p.db
DB=$BENCH_DB
DAEMON=
# shellcheck source=tests/bench/mount.sh
. "$(dirname "$0")/mount.sh"
trap cleanup_fs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$GEN" --format sd-ntsc --clips 3 --clip-seconds 3 --timelines 1 --events 2 \
	--min-seconds 2.5 --max-seconds 2.5 --seed 9 "$M" >/dev/null
mkdir -p "$MNT"
mount_fs pace=realtime
[ -f "$MNT/timeline01.mov" ] || { echo "players: the mount shows no timeline01.mov" >&2; exit 1; }
q() { sqlite3 -batch -noheader -cmd '.timeout 5000' "$DB" "$1"; }
cat "$M"/clip* >/dev/null
cat "$M"/clip* >/dev/null

T=$MNT/timeline01
readers="dd|dd if=$T of=/dev/null status=none
dd bs=1M|dd if=$T of=/dev/null bs=1M status=none
dd bs=1M .mov|dd if=$T.mov of=/dev/null bs=1M status=none
ffmpeg -re|ffmpeg -nostdin -v error -re -i $T.mov -f null -
ffmpeg|ffmpeg -nostdin -v error -i $T.mov -f null -
mpv|mpv --no-config --vo=null --ao=null --really-quiet $T.mov
gst-launch-1.0|gst-launch-1.0 -q filesrc location=$T.mov ! qtdemux ! fakesink
ffprobe|ffprobe -v error $T.mov"
: >"$W/rows"
r=1
while [ $r -le "$ROUNDS" ]; do
	printf '%s\n' "$readers" | while IFS='|' read -r name cmd; do
		before=$(q "select coalesce(max(id), 0) from stream")
		# shellcheck disable=SC2086 # the command's words
		$cmd </dev/null >/dev/null 2>>"$W/readers.log" || { echo "players: failed: $cmd" >&2; exit 1; }
		i=0
		while [ "$(q "select count(*) > 0 and count(*) = count(closed_ns) from stream where id > $before")" != 1 ]; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "players: no closed stream for $cmd" >&2; exit 1; }
			sleep 0.1
		done
		q "select '$name', count(*), sum(requests), sum(frames), sum(late_frames), sum(seeks), sum(reloads),
			(select count(*) from access where stream_id > $before),
			(select coalesce(sum(length), 0) from access where stream_id > $before),
			printf('%.3f', (max(closed_ns) - min(opened_ns)) / 1e9)
			from stream where id > $before" >>"$W/rows"
	done
	r=$((r + 1))
done
frames=$(q "select frames from timeline where name = 'timeline01'")
dur=$(q "select printf('%.3f', 1.0 * frames * fps_den / fps_num) from timeline where name = 'timeline01'")
echo "timeline01: $frames frames, $dur s, $(stat -c %s "$T") bytes ($(stat -c %s "$T.mov") as a movie); $ROUNDS rounds, readers in turn; load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
awk -F'|' '
	!($1 in seen) { seen[$1] = 1; order[++n] = $1 }
	{ k = $1; c[k]++; opens[k] = $2; req[k] += $3; fr[k] = fr[k] " " $4; late[k] += $5
	  seeks[k] += $6; rel[k] += $7; reads[k] = $8; bytes[k] = $9
	  w = $10 + 0; if (!(k in wmin) || w < wmin[k]) wmin[k] = w; if (w > wmax[k]) wmax[k] = w }
	END {
		printf "%-15s %5s %6s %10s %6s %9s %8s %5s %5s %7s %15s\n", "reader", "opens", "reads", "bytes",
		    "/dd", "requests", "frames", "late", "seeks", "reloads", "wall s min-max"
		for (i = 1; i <= n; i++) {
			k = order[i]
			printf "%-15s %5d %6d %10d %6.3f %9.1f %8s %5d %5d %7d %7.3f-%-7.3f\n", k, opens[k], reads[k], bytes[k],
			    reads["dd"] ? reads[k] / reads["dd"] : 0, req[k] / c[k], substr(fr[k], 2), late[k], seeks[k], rel[k],
			    wmin[k], wmax[k]
		}
	}' "$W/rows"
