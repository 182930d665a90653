#!/bin/sh
# SPDX-License-Identifier: MIT
# Ground truth 1, bandwidth-bound: a lab storage of B = 20 MiB/s read
# (timelinefs-lab), 10 timelines whose streams each read r (about 4.3 MB/s
# at real time), B_cal what fio's O_DIRECT readers of the media got in the
# same run (timelinefs-bench --calibrate).  timelinefs-bench --find-max
# (timelinefs-hosts' search on this host) must return N with
# floor(0.9 B_cal / r) <= N <= ceil(B_cal / r), N must have played with 0
# late frames, and N + 2 workstations must be late, most of those late
# frames (more than half) with cause 'storage' in the late_frame view: a
# stream behind its own slow reads is the storage's backlog (schema
# version 14; before, all 378 were 'issue').  Before --find-max the bench
# refused the option.  Then ground truth 4 (a storage change: B and
# 0.94 B as sequential sessions and as --ab-lab legs, the report's verdict
# and interval against the change the calibrations predict) and ground truth 2
# (IOPS-bound: find-max within the same rule for reads/s).  In both
# labs, after find-max, the report's forecast from steps at up to 70 % of
# its bracket: the calibration's count within 20 % of the bracket, the
# headroom's estimate within it too or none with its reason (before the
# forecast the report's JSON had no forecast: KeyError).  Measures
# rates: in TLFS_ALONE.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "skip: not root (loop devices, mount, cgroups)"; exit 77; }
need_tools losetup mkfs.ext4 mkfs.xfs fio sqlite3
trap lab_cleanup EXIT
L=$T/lab
BENCH="env TIMELINEFS_BIN_DIR=$TLFS_BUILD TMPDIR=$T sh $TOP/mount-scripts/timelinefs-bench"
DB=$T/truth.db

check "a lab of 20 MiB/s" lab storage up "$L" --fs ext4 --size 128M --read-bps 20M \
	--image "$T/lab.img"
"$GEN" --clips 2 --clip-seconds 3 --timelines 10 --events 1 --min-seconds 3 \
	--max-seconds 3 --video-rate 4M "$L/media" >/dev/null
sync
# ground truth 4's media, in the lab and outside it (for --ab-lab's own
# lab)
"$GEN" --clips 2 --clip-seconds 2 --timelines 6 --events 1 --min-seconds 2 \
	--max-seconds 2 --video-rate 4M "$L/media4" >/dev/null
cp -a "$L/media4" "$L.media4"
# find_max LAB LABEL WHAT: the bench's --find-max inside LAB over its
# media, calibrated after; n and hi its bracket in DB
find_max() {
	rc=0
	# shellcheck disable=SC2086 # BENCH: a command line
	lab run "$1" -- $BENCH --media "$1/media" --find-max --from 2 --repeat 1 \
		--warmup 0 --db "$DB" --label "$2" --calibrate 4 --calibrate-time 2 \
		>"$T/fm.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/fm.out"
	check_eq "--find-max in $3: done" 0 "$rc"
	n=$(q "select max_lo from experiment")
	hi=$(q "select max_hi from experiment")
}
# forecast LAB COUNTS WHAT LABEL: the report's forecast for find-max's
# label LABEL from a run of its own at COUNTS (each at most 70 % of the
# capacity find-max found, checked), with find-max's calibration: the
# forecast by the calibration within 20 % of find-max's bracket [n, hi]
# (n played with 0 late frames, hi did not: the headroom reaches zero
# between); the one from the headroom's trend either within it too, or
# its 95 % interval reaching into the bracket, or none with its reason
# (on the lab's throttle the steps below 70 % show no trend: docs/lab.md).
# After every check on find-max's own rows.
forecast() {
	check "$3: the forecast's counts $2 at most 70 % of find-max's bracket [$n, $hi]" \
		awk -v c="$2" -v h="$hi" 'BEGIN { k = split(c, a, ","); exit !(h != "" && a[k] <= 0.7 * h) }'
	rc=0
	# shellcheck disable=SC2086 # BENCH: a command line
	lab run "$1" -- $BENCH --media "$1/media" --workstations "$2" --repeat 1 \
		--warmup 0 --db "$DB" --label "$4" >"$T/fc.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/fc.out"
	check_eq "$3: the steps at $2 done" 0 "$rc"
	"$REPORT" "$DB" "$(q "select max(id) from run")" --json >"$T/fc.json" 2>"$T/fc.err" ||
		sed 's/^/# /' "$T/fc.err"
	fc=$(/usr/bin/python3 -c '
import json, sys
f = [f for f in json.load(open(sys.argv[1]))["forecast"] if f["label"] == sys.argv[2]][0]
print("|".join("" if f[k] is None else str(f[k])
               for k in ("by_calibration", "estimate", "lo", "hi", "reason")))' \
		"$T/fc.json" "$4" 2>"$T/fc.perr") || sed 's/^/# /' "$T/fc.perr"
	echo "# $3: forecast from $2 (by the calibration|from the headroom, its interval|reason): $fc; find-max [$n, $hi]"
	check "$3: the forecast by the calibration (${fc%%|*}) within 20 % of find-max's [$n, $hi]" \
		awk -v x="${fc%%|*}" -v a="$n" -v b="$hi" \
		'BEGIN { exit !(x ~ /^[0-9.]+$/ && x >= 0.8 * a && x <= 1.2 * b) }'
	est=$(echo "$fc" | cut -d'|' -f2)
	# an estimate from three steps' trend: 6.07 [4.99, 8.31] against [4, 5]
	# in one clean-clone run; its 95 % interval must reach the bracket
	# where the estimate is off by more than 20 %.  An interval wholly past
	# the calibration's count is none, said why (16.3 [10.2, 60.7] against
	# [6, 7] and 6.7 in another: the host's CPU's trend, not the storage's)
	check "$3: the headroom's forecast within 20 % of [$n, $hi], or its interval reaching into it, or none with its reason ($est)" \
		awk -v x="$est" -v a="$n" -v b="$hi" -v r="$(echo "$fc" | cut -d'|' -f5)" \
		-v l="$(echo "$fc" | cut -d'|' -f3)" -v h="$(echo "$fc" | cut -d'|' -f4)" \
		'BEGIN { exit !(x == "" ? r != "" : x ~ /^[0-9.]+$/ &&
		        (x >= 0.8 * a && x <= 1.2 * b || l != "" && h != "" && l <= b + 0 && h >= a + 0)) }'
}
REPORT=$TOP/mount-scripts/timelinefs-report
find_max "$L" truth "the lab"
bcal=$(q "select bytes_per_s from calibration")
# r: a stream's bytes over its play time, the timelines' mean
r=$(q "select avg(1.0 * bytes * fps_num / (frames * fps_den)) from timeline
	where run_id = (select min(id) from run)")
lo_n=$(awk -v b="$bcal" -v r="$r" 'BEGIN { x = 0.9 * b / r; printf "%d", x }')
hi_n=$(awk -v b="$bcal" -v r="$r" 'BEGIN { x = b / r; y = int(x); if (y < x) y++; print y }')
echo "# B_cal $bcal B/s, r $r B/s: N in [$lo_n, $hi_n]; find-max's bracket [$n, $hi]"
check "find-max's N within floor(0.9 B_cal / r) .. ceil(B_cal / r) ($lo_n <= $n <= $hi_n)" \
	awk -v n="$n" -v a="$lo_n" -v b="$hi_n" 'BEGIN { exit !(n != "" && n >= a && n <= b) }'
check_eq "N played with 0 late frames (its step's row)" 0 \
	"$(q "select sum(late_frames) from bench_step_summary where workstations = $n")"
check "calibration within 10 % of the lab's 20 MiB/s ($bcal)" \
	awk -v b="$bcal" 'BEGIN { exit !(b > 0.9 * 20971520 && b < 1.1 * 20971520) }'

m=$((n + 2))
rc=0
# shellcheck disable=SC2086 # BENCH: a command line
lab run "$L" -- $BENCH --media "$L/media" --workstations "$m" --repeat 1 \
	--warmup 0 --db "$DB" --label "truth+2" >"$T/m.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/m.out"
run=$(q "select max(id) from run")
late=$(q "select coalesce(sum(late_frames), 0) from bench_step_summary where run_id = $run")
storage=$(q "select count(*) from late_frame where run_id = $run and cause = 'storage'")
issue=$(q "select count(*) from late_frame where run_id = $run and cause = 'issue'")
check "N + 2 = $m workstations: late frames ($late)" [ "$late" -gt 0 ]
echo "# at N + 2: $late late frames, $storage of them with cause storage, $issue issue"
check "most late frames at N + 2 have cause storage ($storage storage, $issue issue)" \
	[ "$((2 * storage))" -gt "$((storage + issue))" ]
forecast "$L" 1,2,3 "bandwidth-bound" truth

# --- Ground truth 4, a storage change the seed's way: B = 20 MiB/s and
# 0.94 B, pace=off, 6 workstations of 2-s timelines (52 MB, about 2.6 s a
# step; with 3 workstations a step's MB/s varied more under load).  The report's
# --compare must never call B faster, and its interval of the MB/s
# difference (in % of A), at 99.9 % (below), must hold the change the
# storage's own predicts for the steps (the report's: the calibrations'
# extra seconds at B for a step's bytes, added to A's mean step; the
# calibration rows of each label: --calibrate-work, 6 readers each
# reading a stream's bytes, a step's own work).  Not the calibrations'
# ratio itself: a step's time has a part that is not the storage's, the
# same at both limits (0.20-0.24 s of 2.6 s on a slower host), so the
# steps saw -6.9 % where the calibrations saw -7.5 %, every run
# (docs/lab.md).  Whether it calls B slower and significant is said.
DB=$T/gt4.db
# gt4 LABEL_A LABEL_B WHAT: the checks on the comparison of two labels
gt4() {
	"$REPORT" "$DB" --compare "$1" "$2" --json >"$T/cmp.json" 2>"$T/cmp.err" ||
		sed 's/^/# /' "$T/cmp.err"
	# the MB/s row: its verdict, interval in %, samples
	# and the same interval at 99.9 % (its Welch df and standard error)
	row=$(/usr/bin/python3 -c '
import json, sys
from scipy.stats import t
d = json.load(open(sys.argv[1]))
r = [c for c in d["comparisons"] if c["metric"] == "mb_s"][0]
w = ""
if r["ci_low_pct"] is not None and r["df"]:
    se = (r["ci_high_pct"] - r["ci_low_pct"]) / (2 * t.ppf(0.975, r["df"]))
    h = t.ppf(0.9995, r["df"]) * se
    w = "%s|%s" % (r["diff_pct"] - h, r["diff_pct"] + h)
print("%s|%s|%s|%s|%s|%s|%s" % (r["verdict"], r["ci_low_pct"], r["ci_high_pct"],
      r["diff_pct"], r["unit"], r["n_a"], w))' "$T/cmp.json")
	# the report's change the calibrations predict for the 6
	# workstations: predicted|the calibrations' ratio|A's mean step|the
	# steps' time not the storage's at A|at B
	cc=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [c for c in d["calibrated"] if c["workstations"] == 6]
print("|".join("" if r[0][k] is None else str(r[0][k]) for k in ("predicted_pct",
      "calibration_ratio_pct", "step_s_a", "not_storage_s_a", "not_storage_s_b")) if r else "")' "$T/cmp.json")
	cal=${cc%%|*}
	echo "# $3: MB/s B - A: ${row#*|} (verdict|ci low %|ci high %|diff %|unit|n|99.9 % low|high); predicted by the calibrations|their ratio|A's step s|not the storage's at A|at B: $cc"
	# a step is never faster than the storage's own time for its bytes:
	# a faster one read a cache, not the lab's storage
	check "$3: the steps take at least the calibrations' time for their bytes ($(echo "$cc" | cut -d'|' -f4,5) s more)" \
		awk -v a="$(echo "$cc" | cut -d'|' -f4)" -v b="$(echo "$cc" | cut -d'|' -f5)" \
		'BEGIN { exit !(a != "" && b != "" && a + 0 >= 0 && b + 0 >= 0) }'
	# Called slower and significant in most runs of this size, not in
	# all: sessions 'not significant' at [-9.05, +0.24] % in 1 of 4
	# clean-clone and loaded runs, legs in 1 of 4 under load (3
	# sessions or 4 legs a label hold a 6 % change near the interval's
	# width).  What holds in every run is asserted: never called
	# faster, and the interval holds the predicted change; make bench's
	# section 13 asks the verdict at full size.
	case ${row%%|*} in
	"significant: B lower (worse)") ;;
	*) echo "# $3: MB/s not called significant at this size: ${row%%|*}" ;;
	esac
	# shellcheck disable=SC2016 # $1 is the inner sh's
	check "$3: the report never calls B faster (MB/s: ${row%%|*})" \
		sh -c 'case $1 in *better* | *"B higher"*) exit 1 ;; esac' sh "${row%%|*}"
	# At 99.9 %, not the report's 95 %: a 95 % interval misses the truth
	# one time in 20 by its construction, and this test asks two a run
	# (the legs' [-6.97, -6.76] % missed -7.06 in a clean-clone run, the
	# part not the storage's 0.218 s at A and 0.212 at B, within its
	# steps' spread)
	check "$3: its 99.9 % interval [$(echo "$row" | cut -d'|' -f7), $(echo "$row" | cut -d'|' -f8)] % (95 %: [$(echo "$row" | cut -d'|' -f2), $(echo "$row" | cut -d'|' -f3)]) holds the change the calibrations predict, $cal %" \
		awk -v lo="$(echo "$row" | cut -d'|' -f7)" -v hi="$(echo "$row" | cut -d'|' -f8)" \
		-v c="$cal" 'BEGIN { exit !(c != "" && lo != "" && lo + 0 <= c + 0 && c + 0 <= hi + 0) }'
}
# sequential sessions in the order A B B A A B, the lab's limit changed
# between them (one bench a session, each a mount: the unit is the
# session; with 2 a label, a step slowed by other work on the machine
# left the difference not significant)
for s in A B B A A B; do
	bps=20M
	[ $s = A ] || bps=18.8M
	lab storage limit "$L" --read-bps "$bps" >/dev/null
	rc=0
	# shellcheck disable=SC2086 # BENCH: a command line
	lab run "$L" -- $BENCH --media "$L/media4" --workstations 6 --repeat 2 \
		--warmup 0 --pace off --db "$DB" --label "seq-$s" --calibrate 6 \
		--calibrate-work >"$T/seq.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/seq.out"
	check_eq "sequential session $s at $bps: done" 0 "$rc"
done
gt4 seq-A seq-B "sequential sessions A B B A A B"
check "down" lab down "$L"

# alternating legs of one session (--ab-lab), a lab made by the bench
rc=0
# shellcheck disable=SC2086 # BENCH: a command line
$BENCH --lab "fs=ext4,read-bps=20M,state-dir=$T/state" \
	--ab-lab 'read-bps=20M' 'read-bps=18.8M' --media "$L.media4" \
	--workstations 6 --repeat 4 --warmup 0 --pace off --db "$DB" --label ab \
	--calibrate 6 --calibrate-work >"$T/ab.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/ab.out"
check_eq "--ab-lab legs at B and 0.94 B: done" 0 "$rc"
gt4 ab:A ab:B "alternating --ab-lab legs"

# --- Ground truth 2, IOPS-bound: a lab limited to 200 reads/s (no bytes
# limit) and small frames (400 kB/s of video, no audio: about one read of
# 13 kB a frame), so that a stream's reads/s, r_ops, run the storage out
# long before its bytes do.  find-max's N must be within
# floor(0.9 IOPS_cal / r_ops) .. ceil(IOPS_cal / r_ops), IOPS_cal fio's
# reads/s at the run's read size.  On xfs (mkfs.xfs wants 300 MB at
# least; the image is sparse), where ground truth 1 is on ext4: the
# checks on both file systems (ground truth 6), with no run more.
L2=$T/lab2
check "a lab of 200 reads/s, on xfs" lab storage up "$L2" --fs xfs --size 320M \
	--read-iops 200 --image "$T/lab2.img"
"$GEN" --clips 2 --clip-seconds 3 --timelines 12 --events 1 --min-seconds 3 \
	--max-seconds 3 --video-rate 400K --audio-tracks 0 "$L2/media" >/dev/null
sync
DB=$T/iops.db
find_max "$L2" iops "the IOPS-bound lab"
ical=$(q "select reads_per_s from calibration")
# r_ops: a stream's backing reads over its timeline's play time, the mean
# over the streams of the steps with no late frame (a late stream reads
# the same frames over a longer time)
rops=$(q "select avg(1.0 * n * t.fps_num / (t.frames * t.fps_den)) from
	(select s.timeline_id, count(*) as n from access a join stream s on s.id = a.stream_id
	 where a.op = 0 and s.id in (select bs.stream_id from bench_stream bs
		join bench_step_summary b on b.step_id = bs.step_id where b.late_frames = 0)
	 group by s.id) x join timeline t on t.id = x.timeline_id")
lo_n=$(awk -v b="$ical" -v r="$rops" 'BEGIN { x = 0.9 * b / r; printf "%d", x }')
hi_n=$(awk -v b="$ical" -v r="$rops" 'BEGIN { x = b / r; y = int(x); if (y < x) y++; print y }')
echo "# IOPS_cal $ical reads/s, r_ops $rops reads/s: N in [$lo_n, $hi_n]; find-max's bracket [$n, $hi]"
check "IOPS-bound: find-max's N within floor(0.9 IOPS_cal / r_ops) .. ceil(IOPS_cal / r_ops) ($lo_n <= $n <= $hi_n)" \
	awk -v n="$n" -v a="$lo_n" -v b="$hi_n" 'BEGIN { exit !(n != "" && n >= a && n <= b) }'
check "IOPS-bound: the calibration within 10 % of the lab's 200 reads/s ($ical)" \
	awk -v b="$ical" 'BEGIN { exit !(b > 180 && b < 220) }'
check_eq "IOPS-bound: the runs recorded 200 reads/s and no bytes limit" "200|" \
	"$(q "select group_concat(distinct coalesce(i.value, '-')) || '|' ||
		coalesce(group_concat(distinct b.value), '') from run r
		left join run_env i on i.run_id = r.id and i.key = 'lab_read_iops'
		left join run_env b on b.run_id = r.id and b.key = 'lab_read_bps'")"
check_eq "IOPS-bound: the runs recorded their media on xfs" xfs \
	"$(q "select group_concat(distinct value) from run_env where key = 'media_fs_type'")"
forecast "$L2" 1,2,4 "IOPS-bound" iops
check "down the IOPS lab" lab down "$L2"
finish
