#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: what timelinefs costs, measured against dd, a pread loop and
# fio on the same page-cached media, in one run; and what a timeline's
# movie (NAME.mov) costs dd and ffmpeg beside NAME; paced streams and the
# seed case (6, paced.sh); real media (9) and
# image sequences (10, seq.sh); ingest beside playback (11, ingest.sh);
# every read figure against the simplest server of the same bytes (12,
# ceiling.sh); answers against a storage of known capacity (13, lab.sh,
# as root).
# Prints a table and
# writes $TLFS_BUILD/bench.json.  Not part of make test.
set -eu

: "${TLFS_BUILD:?set by make bench}"
# absolute: the mount points are looked up in /proc/mounts
TLFS_BUILD=$(cd "$TLFS_BUILD" && pwd)
TOP=${TLFS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=$TLFS_BUILD/timelinefs
GEN=$TLFS_BUILD/timelinefs-gen
TLB=$TLFS_BUILD/tests/bench/tlbench
EXPORT=$TOP/mount-scripts/timelinefs-export
W=$TLFS_BUILD/bench-work
M=$TLFS_BUILD/bench-media
MNT=$W/mnt
R=$W/results		# key=value, one a line, read by report.py
NCPU=$(nproc)
# paced steps: stop at the first with late frames
: "${BENCH_STEPS:=15 25 50 75 100 125 150 200}"

if [ ! -e /dev/fuse ] || ! command -v fusermount3 >/dev/null 2>&1; then
	echo "bench: no /dev/fuse or fusermount3" >&2
	exit 1
fi
for f in "$BIN" "$GEN" "$TLB"; do
	[ -x "$f" ] || { echo "bench: missing $f" >&2; exit 1; }
done

DAEMON=
PMS=/proc/sys/fs/pipe-max-size
PMS_RESTORE=
cleanup() {
	set +e
	[ -n "$PMS_RESTORE" ] && echo "$PMS_RESTORE" >"$PMS"
	grep -q " $MNT fuse" /proc/mounts && fusermount3 -u -z "$MNT"
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null
	pkill -P $$ 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rm -rf "$W"
mkdir -p "$W" "$MNT"
: >"$R"
put() { echo "$1=$2" >>"$R"; }
say() { printf '%s\n' "$*" >&2; }
# shellcheck source=tests/bench/mount.sh
. "$TOP/tests/bench/mount.sh"

# ---------------------------------------------------------------- media
# 6 clips of 10 s (1.1 GB) and 200 timelines of 10 s that edit them: the
# same bytes every time (seeded); regenerated when missing or made by
# another timelinefs-gen (the seed preset became a 640x480 picture: media
# kept from before had no picture, and section 8 no movie to read).
gen_media "$BENCH_GEN_OPTS"
# into the page cache, twice to be sure
cat "$M"/clip* >/dev/null
cat "$M"/clip* >/dev/null
put kernel "$(uname -r)"
# other work on the machine skews every figure: say how much there was
put load_start "$(cut -d' ' -f1 /proc/loadavg)"
put ncpu "$NCPU"
put media_bytes "$(cat "$M"/clip* | wc -c)"

# ---------------------------------------------------------------- helpers
# dd_run FILE BS [COUNT]: "bytes seconds" of one dd
dd_run() {
	if [ -n "${3:-}" ]; then
		LC_ALL=C dd if="$1" of=/dev/null bs="$2" count="$3" 2>"$W/dd.err"
	else
		LC_ALL=C dd if="$1" of=/dev/null bs="$2" 2>"$W/dd.err"
	fi
	awk '/bytes/ && /copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i - 1); print $1, s }' "$W/dd.err"
}
# best_mbs FILE BS [COUNT]: best MB/s of 3 dd runs
best_mbs() {
	best=0
	for _ in 1 2 3; do
		r=$(dd_run "$@")
		best=$(echo "$r $best" | awk '{ m = $1 / $2 / 1e6; print (m > $3 ? m : $3) }')
	done
	echo "$best"
}

BENCH_DB=$W/bench.db


# ------------------------------------------------- 1. baselines, no FUSE
say "bench: 1. baselines (dd on the clip files, pread loop)"
BASEF=$M/clip0001.V.raw
for bs in 512 4k 1M; do
	put "base_dd_$bs" "$(best_mbs "$BASEF" $bs)"
done

# ----------------------------------------- 2. one unpaced stream, cached
say "bench: 2. one unpaced stream (cached, direct_io)"
mount_fs pace=off
TL=$MNT/timeline01
for bs in 512 4k 1M; do
	put "cached_$bs" "$(best_mbs "$TL" $bs)"
done
# the trace of one bs=1M stream, for the pread loop and fio (7.)
dd_run "$TL" 1M >/dev/null
SID=$(last_stream)
# CPU per GB of one stream, over 5 sequential reads (10 ms ticks)
c0=$(cpu_of "$DAEMON")
s0=$(now)
for _ in 1 2 3 4 5; do dd_run "$TL" 1M >/dev/null; done
s1=$(now)
c1=$(cpu_of "$DAEMON")
tlbytes=$(stat -c %s "$TL")
put tl_bytes "$tlbytes"
put ours_cpu_per_gb "$(echo "$c0 $c1 $tlbytes" | awk '{ printf "%.3f", ($2 - $1) / (5 * $3 / 1e9) }')"
put ours_5x_mbs "$(echo "$s0 $s1 $tlbytes" | awk '{ printf "%.1f", 5 * $3 / ($2 - $1) / 1e6 }')"

# ----------------------------------------- 3. 1, 4, 16 parallel, unpaced
say "bench: 3. 1, 4 and 16 unpaced streams"
for n in 1 4 16; do
	r=$(parallel $n 1M)
	put "par${n}_mbs" "$(echo "$r" | awk '{ printf "%.1f", $1 / $2 / 1e6 }')"
	put "par${n}_cpu_per_gb" "$(echo "$r" | awk '{ printf "%.3f", $3 / ($1 / 1e9) }')"
done
umount_fs

DB_ACC=$W/bench.db
"$EXPORT" --fio-iolog "$DB_ACC" "$SID" "$W/trace.iolog"
put trace_reads "$(grep -c ' read ' "$W/trace.iolog")"
# our latency p99 for that stream (done - issued of every access row: a
# cached unpaced stream's end at the reply that carried their bytes)
put ours_lat_p99_us "$(q "select (done_ns - issued_ns) / 1000.0 from access where stream_id = $SID order by done_ns - issued_ns" |
	awk '{ v[NR] = $1 } END { i = int(NR * 0.99); if (i < 1) i = 1; printf "%.1f", v[i] }')"
r=$("$TLB" preadloop "$W/trace.iolog")
put preadloop_mbs "$(echo "$r" | tr ' ' '\n' | awk -F= '$1 == "bytes" { b = $2 } $1 == "seconds" { s = $2 } END { printf "%.1f", b / s / 1e6 }')"

say "bench: 2. one unpaced stream, -o direct_io"
mount_fs pace=off,direct_io,splice=off
put direct_512 "$(best_mbs "$TL" 512 32768)"	# 16 MiB: 30 µs a request
put direct_4k "$(best_mbs "$TL" 4k)"
put direct_1M_copy "$(best_mbs "$TL" 1M)"
umount_fs
# splice=auto needs libfuse's pipe to hold a 1 MiB reply: pipe-max-size
# >= 2 MiB.  Raised for this one step when we may (root), put back after
# (and by cleanup, should the bench die here).
put pipe_max_host "$(cat "$PMS")"
if [ "$(cat "$PMS")" -lt 2097152 ] && echo 4194304 >"$PMS" 2>/dev/null; then
	PMS_RESTORE=$(sed -n 's/^pipe_max_host=//p' "$R")
fi
put pipe_max_bench "$(cat "$PMS")"
mount_fs pace=off,direct_io,splice=auto
put direct_1M "$(best_mbs "$TL" 1M)"
umount_fs
if [ -n "$PMS_RESTORE" ]; then
	echo "$PMS_RESTORE" >"$PMS"
	PMS_RESTORE=
fi

# ------------------------------------------ 4. record=all, streams and off
# 4 streams, best of 3 per mode, the modes taken in turn (all, streams,
# off, all ...) each on a mount of its own: measured one after the other,
# the drift of a shared host between them read as the recorder's cost
say "bench: 4. record=all, record=streams and record=off"
: >"$W/rec.txt"
for _ in 1 2 3; do
	for mode in all streams off; do
		mount_fs "pace=off,record=$mode"
		# bytes seconds cpu -> mode MB/s s/GB
		parallel 4 1M 20 | awk -v m=$mode \
			'{ printf "%s %.1f %.3f\n", m, $1 / $2 / 1e6, $3 / ($1 / 1e9) }' \
			>>"$W/rec.txt"
		umount_fs
	done
done
for mode in all streams off; do
	r=$(awk -v m=$mode '$1 == m && $2 > b { b = $2; c = $3 }
		END { print b, c }' "$W/rec.txt")
	put "rec_${mode}_mbs" "${r% *}"
	put "rec_${mode}_cpu_per_gb" "${r#* }"
done

# -------------------------------------------------- 5. the recorder alone
say "bench: 5. the recorder alone"
# 16 streams interleaved (a run's shape, and the target's figure), then one
# stream alone (its index entries all grow at one end: the cheap case)
for n in 16 1; do
	r=$("$TLB" recorder "$W/rec.db" 1000000 $n)
	put "recorder_rows_per_s_$n" "$(echo "$r" | tr ' ' '\n' | awk -F= '$1 == "rows_per_s" { print $2 }')"
	rm -f "$W"/rec.db*
done

# ----------------------------------------------------- 6. paced, realtime
sh "$TOP/tests/bench/paced.sh" "$R"

# ------------------------------------------- 7. fio replays the same trace
say "bench: 7. fio --read_iolog on the same trace"
fio --name=replay --read_iolog="$W/trace.iolog" --replay_no_stall=1 \
	--ioengine=psync --direct=0 --loops=5 --output-format=json \
	--output="$W/fio.json" >/dev/null 2>"$W/fio.err" ||
	{ cat "$W/fio.err" >&2; exit 1; }
python3 - "$W/fio.json" >>"$R" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
rd = j["read"]
cpu = (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * j["job_runtime"] / 1000.0
gb = rd["io_bytes"] / 1e9
print("fio_cpu_per_gb=%.3f" % (cpu / gb))
print("fio_mbs=%.1f" % (rd["io_bytes"] / (j["job_runtime"] / 1000.0) / 1e6))
print("fio_lat_p99_us=%.1f" % (rd["clat_ns"]["percentile"]["99.000000"] / 1000.0))
PY

# ------------------------------------- 8. NAME.mov, by dd and by ffmpeg
# The movie beside timeline01 (issue 20), on a pace=off mount: the backing
# reads of one whole read of NAME by dd, of NAME.mov by dd and by ffmpeg
# -f null (counts and bytes, printed against NAME's: they should be the
# same, never asserted here), then the speeds, best of 3 alternated: dd
# bs=1M of NAME.mov against NAME, and ffmpeg through the mount against
# ffmpeg on a plain copy of the movie in the page cache.
say "bench: 8. NAME.mov read by dd and by ffmpeg -f null beside NAME"
mount_fs pace=off
MOV=$MNT/timeline01.mov
# reads_of CMD...: "reads bytes" of the backing reads of the streams CMD opens
reads_of() {
	before=$(last_stream)
	"$@" >/dev/null 2>&1 || { say "bench: failed: $*"; exit 1; }
	i=0
	while [ "$(q "select count(*) = count(closed_ns) and count(*) > 0 from stream where id > $before")" != 1 ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	q "select count(*) || ' ' || coalesce(sum(length), 0) from access where stream_id > $before"
}
# wall_mbs BYTES CMD...: MB/s of BYTES in CMD's wall time, best of 3
if [ ! -f "$MOV" ]; then
	say "bench: 8. skipped: the mount shows no $MOV (the seed media's timelines have no picture format)"
	put mov_skipped 1
elif ! command -v ffmpeg >/dev/null 2>&1; then
	say "bench: 8. skipped: no ffmpeg (make deps installs it)"
	put mov_skipped 1
else
	put mov_skipped 0
	put mov_head "$(($(stat -c %s "$MOV") - $(stat -c %s "$TL")))"
	# shellcheck disable=SC2046 # "reads bytes", two words
	set -- $(reads_of dd if="$TL" of=/dev/null bs=1M)
	put mov_name_reads "$1"
	put mov_name_bytes "$2"
	# shellcheck disable=SC2046 # "reads bytes", two words
	set -- $(reads_of dd if="$MOV" of=/dev/null bs=1M)
	put mov_dd_reads "$1"
	put mov_dd_bytes "$2"
	# shellcheck disable=SC2046 # "reads bytes", two words
	set -- $(reads_of ffmpeg -nostdin -v error -i "$MOV" -f null -)
	put mov_ffmpeg_reads "$1"
	put mov_ffmpeg_bytes "$2"
	# the movie as a plain file, in the page cache, for ffmpeg's own cost
	cat "$MOV" >"$W/plain.mov"
	cat "$W/plain.mov" >/dev/null
	movbytes=$(stat -c %s "$MOV")
	# ffmpeg_s FILE [OPTION...]: seconds of ffmpeg -f null of FILE
	ffmpeg_s() {
		f=$1
		shift
		s=$(now)
		ffmpeg -nostdin -v error -i "$f" "$@" -f null - >/dev/null 2>&1
		echo "$s $(now)" | awk '{ printf "%.4f", $2 - $1 }'
	}
	# ffmpeg's startup (start, probe, one frame), in both wall times:
	# about 70 ms, half of a plain run of a 10 s SD movie (docs/performance.md)
	bn=0 bm=0 fm=0 fp=0 fs=9999
	for _ in 1 2 3; do
		bn=$(dd_run "$TL" 1M | awk -v b="$bn" '{ m = $1 / $2 / 1e6; print (m > b ? m : b) }')
		bm=$(dd_run "$MOV" 1M | awk -v b="$bm" '{ m = $1 / $2 / 1e6; print (m > b ? m : b) }')
		fm=$(ffmpeg_s "$MOV" | awk -v n="$movbytes" -v b="$fm" '{ m = n / $1 / 1e6; print (m > b ? m : b) }')
		fp=$(ffmpeg_s "$W/plain.mov" | awk -v n="$movbytes" -v b="$fp" '{ m = n / $1 / 1e6; print (m > b ? m : b) }')
		fs=$(ffmpeg_s "$W/plain.mov" -frames:v 1 | awk -v b="$fs" '{ m = $1 * 1000; print (m < b ? m : b) }')
	done
	rm -f "$W/plain.mov"
	put mov_name_dd_1M "$bn"
	put mov_dd_1M "$bm"
	put mov_ffmpeg_mbs "$fm"
	put mov_ffmpeg_plain_mbs "$fp"
	put mov_ffmpeg_start_ms "$fs"
	put mov_bytes "$movbytes"
fi
umount_fs

# --------------------------- 9. real media: a ProRes edit (variable sizes)
# An EDL over ProRes MOV clips that timelinefs-gen --codec makes (issue 21):
# every frame read where the file's sample table says, each its own size.
# The cost of a whole read of the timeline (dd bs=1M, pace=off, cached)
# against a pread loop of the very same reads (the stream's trace, as in
# 2.), best of 3 alternated; and what the per-frame tables cost at mount:
# the time to mount a 2-hour edit of the same clips and the daemon's
# memory with it, against a mount of the short edit alone.
say "bench: 9. a ProRes edit: dd through the mount against the same preads"
VM=$TLFS_BUILD/bench-prores
VW=$W/vbr
mkdir -p "$VW"
# vbr.edl: 60 s of 3 s events over 6 clips of 10 s; vbr2h.edl: 2 hours of
# 10 s events over the same clips (215784 frames at 29.97)
edl_of() {
	awk -v n="$1" -v secs="$2" -v title="$3" 'BEGIN {
		fps = 30; print "TITLE: " title; print "FCM: NON-DROP FRAME"
		for (i = 0; i < n; i++) {
			c = i % 6 + 1; off = (secs < 10) ? (i * 7) % (10 - secs) : 0
			rec = i * secs * fps; len = secs * fps
			printf "%03d  AX       B     C        %s %s %s %s\n* FROM CLIP NAME: c%02d.mov\n",
				(i % 999) + 1, tc(3600 * fps + off * fps), tc(3600 * fps + off * fps + len),
				tc(rec), tc(rec + len), c
		}
	}
	function tc(f) { return sprintf("%02d:%02d:%02d:%02d", int(f / 108000), int(f / 1800) % 60, int(f / 30) % 60, f % 30) }'
}
edl_of 20 3 vbr >"$VW/vbr.edl"
edl_of 720 10 vbr2h >"$VW/vbr2h.edl"
vkey=$(cat "$GEN" "$VW/vbr.edl" "$VW/vbr2h.edl" | cksum | cut -d' ' -f1)
if [ "$(cat "$VM/.key" 2>/dev/null)" != "$vkey" ]; then
	rm -rf "$VM"
	mkdir -p "$VM"
	"$GEN" --for "$VW/vbr.edl" --for "$VW/vbr2h.edl" --fps 30000/1001 \
		--picture 2vuy:640x480 --codec prores "$VM" >"$VW/gen.log" 2>&1 ||
		{ cat "$VW/gen.log" >&2; exit 1; }
	echo "$vkey" >"$VM/.key"
fi
cat "$VM"/*.mov >/dev/null
mkdir -p "$VW/short/timelines" "$VW/long/timelines"
cp "$VM/timelines/vbr.edl"* "$VW/short/timelines/"
cp "$VM/timelines/vbr2h.edl"* "$VW/long/timelines/"
MS=$M
M=$VM
s=$(now)
mount_fs "pace=off,timelines=$VW/short/timelines"
VTL=$MNT/vbr
while [ ! -e "$VTL" ]; do sleep 0.01; done
e=$(now)
put vbr_mount_s "$(echo "$s $e" | awk '{ printf "%.3f", $2 - $1 }')"
put vbr_bytes "$(stat -c %s "$VTL")"
dd_run "$VTL" 1M >/dev/null
VSID=$(last_stream)
put vbr_reads "$(q "select count(*) from access where stream_id = $VSID")"
put vbr_size_min "$(q "select min(length) from access where stream_id = $VSID and track = 'V'")"
put vbr_size_max "$(q "select max(length) from access where stream_id = $VSID and track = 'V'")"
"$EXPORT" --fio-iolog "$BENCH_DB" "$VSID" "$VW/trace.iolog"
pl_mbs() {
	"$TLB" preadloop "$VW/trace.iolog" | tr ' ' '\n' |
		awk -F= '$1 == "bytes" { b = $2 } $1 == "seconds" { s = $2 } END { printf "%.1f", b / s / 1e6 }'
}
bd=0 bp=0
for _ in 1 2 3; do
	bd=$(dd_run "$VTL" 1M | awk -v b="$bd" '{ m = $1 / $2 / 1e6; print (m > b ? m : b) }')
	bp=$(pl_mbs | awk -v b="$bp" '{ print ($1 > b ? $1 : b) }')
done
put vbr_dd_mbs "$bd"
put vbr_preadloop_mbs "$bp"
rss_short=$(awk '/^VmRSS/ { print $2 }' "/proc/$DAEMON/status")
umount_fs
# the 2-hour edit: from the daemon's start to the timeline's file listed
s=$(now)
mount_fs "pace=off,timelines=$VW/long/timelines"
while [ ! -e "$MNT/vbr2h" ]; do sleep 0.01; done
e=$(now)
put vbr2h_mount_s "$(echo "$s $e" | awk '{ printf "%.3f", $2 - $1 }')"
put vbr2h_bytes "$(stat -c %s "$MNT/vbr2h")"
rss_long=$(awk '/^VmRSS/ { print $2 }' "/proc/$DAEMON/status")
put vbr2h_rss_delta_kb "$((rss_long - rss_short))"
umount_fs
M=$MS

# ---------------------------------- 10. image sequences: 2K DPX at 24 fps
sh "$TOP/tests/bench/seq.sh" "$R"

# ------------------------- 11. ingest: record streams beside 15 players
sh "$TOP/tests/bench/ingest.sh" "$R"

# ------------------ 12. the ceiling: the simplest server of the same bytes
sh "$TOP/tests/bench/ceiling.sh" "$R"
# --------------- 13. the lab: answers against a storage of known capacity
if [ "${BENCH_LAB:-on}" = off ]; then
	say "bench: section 13 (the lab) left out: BENCH_LAB=off"
	put lab_left_out "BENCH_LAB=off"
elif [ "$(id -u)" -eq 0 ]; then
	sh "$TOP/tests/bench/lab.sh" "$R"
else
	say "bench: section 13 (the lab) needs root: left out"
	put lab_left_out "not root"
fi

put load_end "$(cut -d' ' -f1 /proc/loadavg)"
python3 "$TOP/tests/bench/report.py" "$R" "$TLFS_BUILD/bench.json"
