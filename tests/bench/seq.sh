#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench, section 10: image sequence playback (issue 22).  2K DPX
# (timelinefs-gen --format dpx10-2k: 2048x1080 10-bit RGB, 8849408 bytes a
# frame) at 24 fps, page-cached: how many paced streams play with 0 late
# frames (each frame an open, a header read, a data read and a close), and
# what the daemon costs a frame against a plain `cat` of the same files,
# pace=off.  Appends key=value lines to RESULTS (bench.sh's), prints what
# it does on stderr (alone: to $TLFS_BUILD/bench-seq.results).  Small: SEQ_SIZE=256x135 SEQ_STEPS="1 2"
# TLFS_BUILD=build sh tests/bench/seq.sh /tmp/r (SEQ_SIZE changes the
# frames' size, not their number).
set -eu

: "${TLFS_BUILD:?set by make bench}"
TOP=${TLFS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
DAEMON=
# shellcheck source=tests/bench/mount.sh
. "$TOP/tests/bench/mount.sh"
section_paths seq bench-dpx "${1:-}"
TLEXPECT="python3 $TOP/tests/tools/tlexpect.py"
NCPU=$(nproc)
: "${SEQ_SIZE:=}"
# paced steps: stop at the first with late frames (16 timelines)
: "${SEQ_STEPS:=1 2 4 6 8 12 16}"

section_setup seq

# 4 clips of 2 s (1.7 GB at 2K) and 16 timelines of 4 events of 1-2 s
# over them; kept while the generator and the options are the same
GEN_OPTS="--format dpx10-2k --clips 4 --clip-seconds 2 --timelines 16 --events 4 --seed 7${SEQ_SIZE:+ --size $SEQ_SIZE}"
gen_media "$GEN_OPTS"
cat "$M"/clip*/* >/dev/null
cat "$M"/clip*/* >/dev/null
put frame_bytes "$(stat -c %s "$M/clip0001/clip0001.0086400.dpx")"

# ------------------------------------------ paced streams, 0 late frames
# paced KEY OPTS: the steps on a mount with OPTS, up to the first with late
# frames; KEY_steps and KEY_best_n
paced() {
	say "bench: 10. paced realtime streams of 2K DPX at 24 fps (dd bs=1M), cached${2:+, $2}"
	mount_fs "pace=realtime${2:+,$2}"
	best_n=0
	steps=
	for n in $SEQ_STEPS; do
		before=$(last_stream)
		r=$(parallel "$n" 1M)
		late=$(late_after "$before" "$n")
		frames=$(q "select coalesce(sum(frames), 0) from stream where id > $before")
		cpu=$(echo "$r" | awk -v c="$NCPU" '{ printf "%.1f", 100 * $3 / $2 / c }')
		# the slowest open of the step (op 1: schema 10's op table)
		openmax=$(q "select coalesce(max(done_ns - issued_ns), 0) / 1000 from access where stream_id > $before and op = 1")
		say "  N=$n: late frames $late of $frames, daemon $cpu % of the machine, slowest open $openmax us"
		steps="$steps $n:$late:$frames:$cpu:$openmax"
		[ "$late" = 0 ] || break
		best_n=$n
	done
	put "${1}steps" "${steps# }"
	put "${1}best_n" "$best_n"
	umount_fs
}
# one frame in flight, as a player that reads a frame at a time; 4, as
# grading applications' reader threads do (where the build has it)
paced "" ""
if "$BIN" -h 2>&1 | grep -q frames_in_flight; then
	paced fif4_ frames_in_flight=4
fi

# ------------------------------------- a frame's cost against cat's, unpaced
say "bench: 10. one timeline unpaced: the mount (dd bs=1M) against cat of its files"
$TLEXPECT seqframes "$M/timelines/timeline01.tl" "$M" |
	awk -v m="$M" '{ print m "/" $5 }' >"$W/files"
nframes=$(wc -l <"$W/files")
put frames "$nframes"
mount_fs pace=off
bm=999 bc=999 cpu=0
for _ in 1 2 3; do
	c0=$(cpu_of "$DAEMON")
	s=$(now)
	dd if="$MNT/timeline01" of=/dev/null bs=1M status=none
	e=$(now)
	c1=$(cpu_of "$DAEMON")
	bm=$(echo "$s $e $bm" | awk '{ t = $2 - $1; print (t < $3 ? t : $3) }')
	cpu=$(echo "$c0 $c1 $cpu" | awk '{ print $3 + ($2 - $1) / 3 }')
	s=$(now)
	xargs cat <"$W/files" >/dev/null
	e=$(now)
	bc=$(echo "$s $e $bc" | awk '{ t = $2 - $1; print (t < $3 ? t : $3) }')
done
sid=$(last_stream)
# each operation's mean and largest latency, of the last read
q "select op, count(*), avg(done_ns - issued_ns) / 1000, max(done_ns - issued_ns) / 1000 from access where stream_id = $sid group by op order by op" |
	while IFS='|' read -r op cnt mean mx; do
		echo "seq_op${op}=$cnt:$mean:$mx"
	done >>"$R"
umount_fs
put mount_us_per_frame "$(echo "$bm $nframes" | awk '{ printf "%.1f", 1e6 * $1 / $2 }')"
put cat_us_per_frame "$(echo "$bc $nframes" | awk '{ printf "%.1f", 1e6 * $1 / $2 }')"
put daemon_cpu_us_per_frame "$(echo "$cpu $nframes" | awk '{ printf "%.1f", 1e6 * $1 / $2 }')"
say "  $nframes frames: mount $(echo "$bm $nframes" | awk '{ printf "%.0f", 1e6 * $1 / $2 }') us a frame, cat $(echo "$bc $nframes" | awk '{ printf "%.0f", 1e6 * $1 / $2 }') us, daemon CPU $(echo "$cpu $nframes" | awk '{ printf "%.0f", 1e6 * $1 / $2 }') us"
