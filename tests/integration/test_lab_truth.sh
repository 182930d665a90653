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
# refused the option.  Measures rates: in TLFS_ALONE.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "skip: not root (loop devices, mount, cgroups)"; exit 77; }
need_tools losetup mkfs.ext4 fio sqlite3
LABSH=$TOP/mount-scripts/timelinefs-lab
lab() {
	sh "$LABSH" --state-dir "$T/state" "$@"
}
lab_cleanup() {
	set +e
	lab down --all >/dev/null 2>&1
	cleanup
}
trap lab_cleanup EXIT
L=$T/lab
BENCH="env TIMELINEFS_BIN_DIR=$TLFS_BUILD TMPDIR=$T sh $TOP/mount-scripts/timelinefs-bench"
DB=$T/truth.db

check "a lab of 20 MiB/s" lab storage up "$L" --fs ext4 --size 128M --read-bps 20M \
	--image "$T/lab.img"
"$GEN" --clips 2 --clip-seconds 3 --timelines 10 --events 1 --min-seconds 3 \
	--max-seconds 3 --video-rate 4M "$L/media" >/dev/null
sync
rc=0
# shellcheck disable=SC2086 # BENCH: a command line
lab run "$L" -- $BENCH --media "$L/media" --find-max --from 2 --repeat 1 \
	--warmup 0 --db "$DB" --label truth --calibrate 4 --calibrate-time 2 \
	>"$T/fm.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/fm.out"
check_eq "--find-max in the lab: done" 0 "$rc"
n=$(q "select max_lo from experiment")
hi=$(q "select max_hi from experiment")
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
check "down" lab down "$L"
finish
