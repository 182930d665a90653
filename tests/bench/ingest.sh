#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench, section 11: ingest beside playback (issue 23).  15 paced
# players (timelinefs-bench, one repetition, page-cached media) with 0, 2,
# 4 and 8 record streams of the seed preset beside them (--ingest): late
# frames on the players' side, dropped frames on the recorders' (of them
# the writers'), which side came first; the writer's own rate (to
# /dev/null and to a tmpfs file, against the stream's); and the daemon's
# CPU per GB written by one unpaced recorder against dd writing the same
# track files directly.  Appends key=value lines to RESULTS (bench.sh's),
# prints what it does on stderr (alone: to $TLFS_BUILD/bench-ingest.results).
# Small, to prove it works (about a minute):
#   INGEST_PLAYERS=2 INGEST_STEPS="0 1" INGEST_SECONDS=2 \
#   INGEST_GEN="--clips 2 --clip-seconds 2 --timelines 2 --events 2 --min-seconds 1 --max-seconds 1" \
#   TLFS_BUILD=build sh tests/bench/ingest.sh /tmp/r
set -eu

: "${TLFS_BUILD:?set by make bench}"
TOP=${TLFS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
DAEMON=
# shellcheck source=tests/bench/mount.sh
. "$TOP/tests/bench/mount.sh"
section_paths ingest bench-ingest-media "${1:-}"
BENCH=$TOP/mount-scripts/timelinefs-bench
: "${INGEST_PLAYERS:=15}"
: "${INGEST_STEPS:=0 2 4 8}"
# seconds of the unpaced recording whose CPU is measured (374 MB of seed)
: "${INGEST_SECONDS:=20}"
# 15 timelines of 10 s over 6 clips of 10 s (1.1 GB), as bench.sh's
: "${INGEST_GEN:=--clips 6 --clip-seconds 10 --timelines 15 --events 4 --min-seconds 2.5 --max-seconds 2.5 --seed 7}"

section_setup ingest

gen_media "$INGEST_GEN"
rm -rf "$M/ingest"

# ------------------------------------------------- the writer's own rate
# x the stream's rate, from its own line: "... N x the stream's R MB/s"
writer_x() {
	"$GEN" --ingest 10 "$1" 2>&1 >/dev/null |
		sed -n "s/.* \([0-9.]*\) x the stream's \([0-9.]*\) MB\/s$/\1 \2/p"
}
say "bench: 11. the writer (timelinefs-gen --ingest, seed preset, a write a frame)"
# shellcheck disable=SC2046 # "rate stream", two words
set -- $(writer_x /dev/null)
put writer_null_x "$1"
put stream_mbs "$2"
shm=/dev/shm
[ -d "$shm" ] && [ -w "$shm" ] || shm=$W
# shellcheck disable=SC2046 # the same
set -- $(writer_x "$shm/tlfs-bench-ingest.$$")
rm -f "$shm/tlfs-bench-ingest.$$"
put writer_tmpfs_x "$1"
say "  to /dev/null $(sed -n 's/^ingest_writer_null_x=//p' "$R") x the stream's $(sed -n 's/^ingest_stream_mbs=//p' "$R") MB/s, to a tmpfs file $1 x"

# -------------------------------- players and recorders: who drops first
steps=
for n in $INGEST_STEPS; do
	rw=recorders
	[ "$n" -ne 1 ] || rw=recorder
	say "bench: 11. $INGEST_PLAYERS paced players, $n $rw beside them (timelinefs-bench --ingest $n)"
	set -- --media "$M" --workstations "$INGEST_PLAYERS" --repeat 1 --warmup 0 \
		--cache prime --db "$BENCH_DB" --label "ingest$n" --mount-opts backing=buffered
	[ "$n" -eq 0 ] || set -- "$@" --ingest "$n"
	TIMELINEFS_BIN_DIR=$TLFS_BUILD TMPDIR=$W sh "$BENCH" "$@" >"$W/bench$n.out" 2>"$W/bench$n.err" ||
		{ cat "$W/bench$n.err" >&2; exit 1; }
	# late:play frames:dropped:writer drops:recorded frames (bench_step_summary)
	s=$(q "select late_frames || ':' || (frames - record_frames) || ':' || dropped_frames || ':' ||
		writer_drops || ':' || record_frames from bench_step_summary where label = 'ingest$n'")
	# and which side missed a due time first: the bench's table says (its
	# last column; no such table without recorders)
	first=$(awk '/^players and recorders:/ { t = 1; next } t && $3 == "1" { print $NF; exit }' "$W/bench$n.out")
	s="$s:${first:-neither}"
	say "  late $(echo "$s" | cut -d: -f1) of $(echo "$s" | cut -d: -f2) play frames, dropped $(echo "$s" | cut -d: -f3) of $(echo "$s" | cut -d: -f5) recorded (the writers $(echo "$s" | cut -d: -f4)), first: $(echo "$s" | cut -d: -f6)"
	steps="$steps $n:$s"
done
put players "$INGEST_PLAYERS"
put steps "${steps# }"

# ------------------------- CPU per GB written: the daemon against dd
# One recorder unpaced (pace=off: the writer's bytes as fast as they come),
# the daemon's CPU over the bytes it wrote; then dd writes the very track
# files (read from the page cache) beside them, its own CPU over the same
# bytes: what writing them costs without FUSE and the recorder.
say "bench: 11. daemon CPU per GB written (one unpaced recorder) against dd"
mount_fs pace=off
cpu=0 wall=0 dcpu=0 dwall=0 bytes=0
for i in 1 2 3; do
	c0=$(cpu_of "$DAEMON")
	s=$(now)
	"$GEN" --ingest "$INGEST_SECONDS" --seed "$i" "$MNT/ingest/cpu$i" 2>/dev/null
	e=$(now)
	c1=$(cpu_of "$DAEMON")
	# the track files, whole once the writer's close returned
	bytes=$(cat "$M/ingest/cpu$i".V.raw "$M/ingest/cpu$i".A*.wav | wc -c)
	cpu=$(echo "$cpu $c0 $c1" | awk '{ print $1 + $3 - $2 }')
	wall=$(echo "$wall $s $e" | awk '{ print $1 + $3 - $2 }')
	mkdir -p "$W/dd"
	for f in "$M/ingest/cpu$i".V.raw "$M/ingest/cpu$i".A*.wav; do
		cat "$f" >/dev/null
	done
	# dd's CPU: the shell's children's user + system time (times, run
	# in this shell: a subshell's children start at 0)
	times >"$W/times"
	t0=$(sed -n 2p "$W/times")
	s=$(now)
	for f in "$M/ingest/cpu$i".V.raw "$M/ingest/cpu$i".A*.wav; do
		dd if="$f" of="$W/dd/$(basename "$f")" bs=1M status=none
	done
	e=$(now)
	times >"$W/times"
	t1=$(sed -n 2p "$W/times")
	dcpu=$(echo "$dcpu $t0 $t1" | awk '
		function s(x) { split(x, a, "m"); return a[1] * 60 + a[2] }
		{ print $1 + s($4) + s($5) - s($2) - s($3) }')
	dwall=$(echo "$dwall $s $e" | awk '{ print $1 + $3 - $2 }')
	rm -rf "$W/dd" "$M/ingest/cpu$i".*
done
umount_fs
rm -rf "$M/ingest"
put written_bytes "$bytes"
put cpu_per_gb "$(echo "$cpu $bytes" | awk '{ printf "%.3f", $1 / (3 * $2 / 1e9) }')"
put mbs "$(echo "$wall $bytes" | awk '{ printf "%.1f", 3 * $2 / $1 / 1e6 }')"
put dd_cpu_per_gb "$(echo "$dcpu $bytes" | awk '{ printf "%.3f", $1 / (3 * $2 / 1e9) }')"
put dd_mbs "$(echo "$dwall $bytes" | awk '{ printf "%.1f", 3 * $2 / $1 / 1e6 }')"
say "  daemon $(sed -n 's/^ingest_cpu_per_gb=//p' "$R") s/GB at $(sed -n 's/^ingest_mbs=//p' "$R") MB/s, dd $(sed -n 's/^ingest_dd_cpu_per_gb=//p' "$R") s/GB at $(sed -n 's/^ingest_dd_mbs=//p' "$R") MB/s"
