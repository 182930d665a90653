#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench, section 6: paced realtime streams, the way a workstation
# reads.  The timer floor first (tlbench wakeup: bare threads waking at
# the frame rate, as the fillers do, on the idle machine), then
# BENCH_STEPS streams of `dd bs=1M` at once, each its own timeline, on a
# pace=realtime mount (backing=buffered), cached and then -o direct_io,
# each series up to the first step with late frames: per step the late
# frames, the daemon's share of the machine, the pacing error p99 (every
# backing read, and each frame's first read) beside bare timers woken in
# the same step, and the MB/s.  Then the seed case: 15 paced plain `dd`
# (512-byte reads).  Appends key=value lines to RESULTS (bench.sh's;
# alone: $TLFS_BUILD/bench-paced.results):
# TLFS_BUILD=build sh tests/bench/paced.sh /tmp/r
set -eu

: "${TLFS_BUILD:?set by make bench}"
TOP=${TLFS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
DAEMON=
# shellcheck source=tests/bench/mount.sh
. "$TOP/tests/bench/mount.sh"
section_paths paced bench-media "${1:-}"
TLB=$TLFS_BUILD/tests/bench/tlbench
NCPU=$(nproc)
# paced steps: stop at the first with late frames
: "${BENCH_STEPS:=15 25 50 75 100 125 150 200}"

[ -x "$TLB" ] || { echo "paced.sh: missing $TLB" >&2; exit 1; }
section_setup paced
# bench.sh's keys, as they were when this section was inline there
put() { echo "$1=$2" >>"$R"; }
gen_media "$BENCH_GEN_OPTS"
cat "$M"/clip* >/dev/null
cat "$M"/clip* >/dev/null

# p99_of SQL: the 99th percentile of the first column SQL returns
p99_of() {
	q "$1 order by 1" |
		awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; printf "%.1f", v[i] }'
}
# the floor under the pacing error: bare timers waking at the frame rate
# as the fillers do (tlbench wakeup), alone and beside each step
say "bench: 6. timer floor, no load"
put wake_idle_p99 "$("$TLB" wakeup 1 5 | tr ' ' '\n' | awk -F= '$1 == "p99_us" { print $2 }')"
# paced_series PREFIX OPTS: the paced steps on a mount with OPTS, up to
# the first with late frames; PREFIX_steps and PREFIX_best_n
paced_series() {
	mount_fs "$2"
	best_n=0
	steps=
	for n in $BENCH_STEPS; do
		before=$(last_stream)
		"$TLB" wakeup "$n" 10 >"$W/wake.txt" &
		wpid=$!
		r=$(parallel "$n" 1M)
		wait $wpid
		floor=$(tr ' ' '\n' <"$W/wake.txt" | awk -F= '$1 == "p99_us" { print $2 }')
		late=$(late_after "$before" "$n")
		# every backing read; and each frame's first read, the one the
		# clock issues (the frame's other reads follow it, after its
		# latency)
		p99=$(p99_of "select (issued_ns - sched_ns) / 1000.0 from access where stream_id > $before")
		p99f=$(p99_of "select (min(issued_ns) - min(sched_ns)) / 1000.0 from access where stream_id > $before group by stream_id, frame")
		cpu=$(echo "$r" | awk -v c="$NCPU" '{ printf "%.1f", 100 * $3 / $2 / c }')
		mbs=$(echo "$r" | awk '{ printf "%.1f", $1 / $2 / 1e6 }')
		say "  N=$n: late frames $late, daemon $cpu % of the machine, pacing p99 $p99 us (first reads $p99f, bare timers $floor), $mbs MB/s"
		steps="$steps $n:$late:$cpu:$p99:$mbs:$p99f:$floor"
		[ "$late" = 0 ] || break
		best_n=$n
	done
	put "${1}_steps" "${steps# }"
	put "${1}_best_n" "$best_n"
	umount_fs
}
say "bench: 6. paced realtime streams at 18 MB/s (dd bs=1M), cached"
paced_series paced pace=realtime
say "bench: 6. paced realtime streams at 18 MB/s (dd bs=1M), -o direct_io"
paced_series paced_dio pace=realtime,direct_io

mount_fs pace=realtime
say "bench: 6. seed case: 15 paced plain dd (512-byte reads)"
before=$(last_stream)
r=$(parallel 15 512 30)
sleep 0.5
put seed_late "$(q "select coalesce(sum(late_frames), -1) from stream where id > $before")"
put seed_cpu_pct "$(echo "$r" | awk -v c="$NCPU" '{ printf "%.1f", 100 * $3 / $2 / c }')"
put seed_pacing_p99_us "$(p99_of "select (issued_ns - sched_ns) / 1000.0 from access where stream_id > $before")"
umount_fs
