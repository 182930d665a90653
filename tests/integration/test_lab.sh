#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-lab: a storage of known capacity.  The throttle holds (a
# direct read in the lab's group runs within 10 % of --read-bps, 4 KiB
# direct reads within 10 % of --read-iops, the same read outside the group
# runs faster), down leaves no loop device, mount, group, image or state
# record, down --all does so after a kill -9 of a run whose command left a
# process in the group, a kernel or system without a piece is refused by
# the piece's name with nothing made, and every failure on the way up
# (each step in turn, and a real mkfs.xfs refusing a small image) removes
# what was made.  timelinefs started with run in the lab records the
# group's limits in run_env (lab_*, from its own block cgroup) and its
# reads (backing=direct) take at least 90 % of the limit's time; outside
# the group no lab rows, and faster; backing=buffered in the lab is warned
# of.  Before the script existed every case failed (no such command);
# before fs/run_env.c read the group, the run_env check got nothing.
# Wall-clock rates: in TLFS_ALONE.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "skip: not root (loop devices, mount, cgroups)"; exit 77; }
need_tools losetup mkfs.ext4 dd
# labenv VAR=VALUE ARGS...: the same with a test hook in its environment
labenv() {
	e=$1
	shift
	env "$e" sh "$LABSH" --state-dir "$T/state" "$@"
}
L=$T/lab
IMG=$T/lab.img

trap lab_cleanup EXIT

# left DIR IMAGE: what a lab at DIR over IMAGE left behind, one a line.
# Its group only (timelinefs-lab-CKSUM, CKSUM of DIR's path): another
# lab on this machine (a user's, another test's) is not this one's
left() {
	[ -z "$(losetup -j "$2" 2>/dev/null)" ] || echo "loop device over $2"
	! grep -q " $1 " /proc/mounts || echo "mount at $1"
	[ ! -e "$2" ] || echo "image $2"
	[ ! -e "$1" ] || echo "folder $1"
	set -- "$1" "$2" "$(printf '%s' "$1" | cksum)"
	for g in "/sys/fs/cgroup/blkio/timelinefs-lab-${3%% *}" \
		"/sys/fs/cgroup/timelinefs-lab/timelinefs-lab-${3%% *}" "$T"/state/*; do
		[ ! -e "$g" ] || echo "left: $g"
	done
}

# dd_secs ERR: "BYTES SECONDS" of what dd said ("N bytes ... copied, S s")
dd_secs() {
	sed -n 's/^\([0-9]*\) bytes.* copied, \([0-9.e-]*\) s.*/\1 \2/p' "$1" | tail -n 1
}

# within NAME GOT WANT PCT: GOT is within PCT % of WANT
within() {
	check "$1 ($2 for $3, within $4 %)" awk -v g="$2" -v w="$3" -v p="$4" \
		'BEGIN { d = (g - w) / w * 100; exit !(d <= p && d >= -p) }'
}

# --- usage errors and refusals: nothing made
st=0
lab storage up "$L" --fs zfs --size 100M 2>"$T/err" || st=$?
check_eq "--fs zfs: a usage error naming the choices" "2 1" \
	"$st $(grep -c "ext4, xfs or btrfs, not 'zfs'" "$T/err")"
st=0
lab storage up "$L" --fs ext4 2>"$T/err" || st=$?
check_eq "no --size nor --device: a usage error" "2" "$st"

# a system without a piece: a copy of /proc's and /dev's files the checks
# read, with the piece taken out (TIMELINEFS_LAB_SYSROOT)
R=$T/root
mkdir -p "$R/proc" "$R/dev"
cp /proc/filesystems "$R/proc/filesystems"
: >"$R/dev/loop-control"
grep -v '^cgroup2\? ' /proc/mounts >"$R/proc/mounts"
echo "cgroup /sys/fs/cgroup/blkio cgroup rw,blkio 0 0" >>"$R/proc/mounts"
mkdir -p "$R/sys/fs/cgroup/blkio"
: >"$R/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device"

# refused PIECE WORDS...: storage up in the fake root refuses, naming it
refused() {
	what=$1
	shift
	st=0
	labenv TIMELINEFS_LAB_SYSROOT="$R" storage up "$L" --fs "${FS:-ext4}" --size 100M \
		--image "$IMG" 2>"$T/err" || st=$?
	check_eq "no $what: refused (exit 1) saying '$*'" "1 1" \
		"$st $(grep -c "$*" "$T/err")"
	check_none "no $what: nothing made" "$(left "$L" "$IMG")"
}
mv "$R/dev/loop-control" "$R/dev/loop-control.x"
refused "loop devices" "has no loop devices"
mv "$R/dev/loop-control.x" "$R/dev/loop-control"
rm "$R/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device"
refused "block cgroup controller" "no block cgroup controller"
: >"$R/sys/fs/cgroup/blkio/blkio.throttle.read_bps_device"
grep -vw xfs /proc/filesystems >"$R/proc/filesystems"
FS=xfs refused "xfs in the kernel" "has no xfs file system"
cp /proc/filesystems "$R/proc/filesystems"
# mkfs.btrfs missing: a PATH of every tool but it
mkdir "$T/bin"
for t in sh losetup mount umount mountpoint awk cksum sed grep cat readlink \
	truncate mkdir rmdir rm id dirname basename tail cut sleep mkfs.ext4; do
	ln -s "$(command -v "$t")" "$T/bin/$t"
done
st=0
env PATH="$T/bin" TIMELINEFS_LAB_SYSROOT="$R" sh "$LABSH" --state-dir "$T/state" storage up "$L" --fs btrfs --size 100M \
	--image "$IMG" 2>"$T/err" || st=$?
check_eq "no mkfs.btrfs: refused naming the package" "1 1" \
	"$st $(grep -c "no mkfs.btrfs .*btrfs-progs" "$T/err")"
check_none "no mkfs.btrfs: nothing made" "$(left "$L" "$IMG")"

# --- every failure on the way up removes what was made
for step in image loop mkfs mount cgroup limits; do
	st=0
	labenv TIMELINEFS_LAB_FAIL_AFTER="$step" storage up "$L" --fs ext4 --size 64M \
		--read-bps 10M --image "$IMG" >/dev/null 2>"$T/err" || st=$?
	check_eq "a failure after step $step: exit 1" 1 "$st"
	check_none "a failure after step $step: nothing left" "$(left "$L" "$IMG")"
done
if command -v mkfs.xfs >/dev/null 2>&1; then
	st=0
	lab storage up "$L" --fs xfs --size 64M --image "$IMG" >/dev/null 2>"$T/err" || st=$?
	check_eq "mkfs.xfs refusing a 64 MiB image: exit 1, said" "1 1" \
		"$st $(grep -c "mkfs.xfs on /dev/loop[0-9]* failed" "$T/err")"
	check_none "mkfs.xfs refusing: nothing left" "$(left "$L" "$IMG")"
else
	skip_case "no mkfs.xfs (xfsprogs)"
fi

# --- the throttle holds: 20 MiB/s and 400 reads/s
BPS=20971520
IOPS=400
check "storage up: ext4 on a loop device at 20M and 400 reads/s" \
	lab storage up "$L" --fs ext4 --size 160M --read-bps 20M --read-iops $IOPS \
	--image "$IMG"
rec() { sed -n "s/^$1=//p" "$T"/state/*.lab; }
loopdev=$(rec loop)
check_eq "the state record: fs, limits, the loop device's number" \
	"ext4 $BPS $IOPS $(cat "/sys/block/${loopdev#/dev/}/dev")" \
	"$(rec fs) $(rec read_bps) $(rec read_iops) $(rec majmin)"
check_eq "the group's limits on the loop device" \
	"$(rec majmin) $BPS|$(rec majmin) $IOPS" \
	"$(cat "$(rec cgroup)/blkio.throttle.read_bps_device")|$(cat "$(rec cgroup)/blkio.throttle.read_iops_device")"
dd if=/dev/zero of="$L/f" bs=1M count=80 conv=fsync 2>/dev/null
lab run "$L" -- dd if="$L/f" of=/dev/null bs=1M iflag=direct 2>"$T/dd"
r=$(dd_secs "$T/dd")
within "dd iflag=direct bs=1M in the group: bytes/s" \
	"$(awk -v b="${r% *}" -v s="${r#* }" 'BEGIN { printf "%.0f", b / s }')" $BPS 10
lab run "$L" -- dd if="$L/f" of=/dev/null bs=4k count=1600 iflag=direct 2>"$T/dd"
r=$(dd_secs "$T/dd")
within "dd iflag=direct bs=4k in the group: reads/s" \
	"$(awk -v s="${r#* }" 'BEGIN { printf "%.0f", 1600 / s }')" $IOPS 10
dd if="$L/f" of=/dev/null bs=1M iflag=direct 2>"$T/dd"
r=$(dd_secs "$T/dd")
check "the same read outside the group: faster than twice the limit" \
	awk -v b="${r% *}" -v s="${r#* }" -v w=$BPS 'BEGIN { exit !(b / s > 2 * w) }'
# --- storage limit: the same lab at other limits, in place (a fraction
# with a unit: 37.6M is 0.94 of 40M); read-iops absent is none
check "storage limit --read-bps 37.6M (iops none)" lab storage limit "$L" --read-bps 37.6M
check_eq "storage limit: the group's limits and the record's" \
	"$(rec majmin) 39426457||39426457 0" \
	"$(cat "$(rec cgroup)/blkio.throttle.read_bps_device")|$(cat "$(rec cgroup)/blkio.throttle.read_iops_device")|$(rec read_bps | tail -n 1) $(rec read_iops | tail -n 1)"
lab run "$L" -- dd if="$L/f" of=/dev/null bs=1M iflag=direct 2>"$T/dd"
r=$(dd_secs "$T/dd")
within "dd iflag=direct bs=1M at the new limit: bytes/s" \
	"$(awk -v b="${r% *}" -v s="${r#* }" 'BEGIN { printf "%.0f", b / s }')" 39426457 10
st=0
lab storage limit "$L" --read-bps 1.5 2>"$T/err" || st=$?
check_eq "storage limit --read-bps 1.5 (a fraction of a byte): a usage error" 2 "$st"
check "storage limit back to 20M and $IOPS reads/s" \
	lab storage limit "$L" --read-bps 20M --read-iops $IOPS
# --- the daemon in the lab: its run_env rows say so (from its own group),
# and its reads (O_DIRECT: backing=direct, the default) are throttled
"$GEN" --clips 1 --clip-seconds 2 --timelines 1 --events 1 --min-seconds 2 \
	--max-seconds 2 --video-rate 5M "$L/media" >/dev/null
tl=$(find "$L/media/timelines" -name '*.tl' | head -n 1)
tl=$(basename "$tl" .tl)
printf '#!/bin/sh\nexec sh "%s" --state-dir "%s" run "%s" -- "%s" "$@"\n' \
	"$LABSH" "$T/state" "$L" "$BIN" >"$T/labfs"
chmod +x "$T/labfs"
DB=$T/lab.db
REALBIN=$BIN
BIN=$T/labfs
mount_fs "$L/media" "$T/mnt" -o db="$DB",label=lab,pace=off
BIN=$REALBIN
sz=$(stat -c %s "$T/mnt/$tl")
t0=$(date +%s%N)
dd if="$T/mnt/$tl" of=/dev/null bs=1M 2>/dev/null
t1=$(date +%s%N)
umount_fs "$T/mnt"
run=$(q "select max(id) from run")
envv() {
	q "select value from run_env where run_id = $run and key = '$1'"
}
check_eq "run_env in the lab: its group, the loop device's number, the limits" \
	"blkio:/$(basename "$(rec cgroup)") $(rec majmin) $BPS $IOPS" \
	"$(envv lab_cgroup) $(envv lab_device) $(envv lab_read_bps) $(envv lab_read_iops)"
check_eq "run_env in the lab: the file system, the device, backing=direct" \
	"ext4 ${loopdev#/dev/} direct" \
	"$(envv media_fs_type) $(envv media_device) $(envv opt.backing)"
check "the daemon's reads in the lab throttled: $sz bytes in $(((t1 - t0) / 1000000)) ms, at least 90 % of the limit's time" \
	awk -v b="$sz" -v ns="$((t1 - t0))" -v w=$BPS 'BEGIN { exit !(ns / 1e9 >= 0.9 * b / w) }'
BIN=$T/labfs
mount_fs "$L/media" "$T/mnt" -o db="$DB",label=buffered,backing=buffered
BIN=$REALBIN
umount_fs "$T/mnt"
check_eq "backing=buffered in the lab: the daemon warns that the page cache passes the limits" 1 \
	"$(grep -c "read through a block cgroup's limits (run_env lab_\*) but backing=buffered" "$DAEMON_LOG")"
mount_fs "$L/media" "$T/mnt" -o db="$DB",label=nolab,pace=off
t0=$(date +%s%N)
dd if="$T/mnt/$tl" of=/dev/null bs=1M 2>/dev/null
t1=$(date +%s%N)
umount_fs "$T/mnt"
run=$(q "select max(id) from run")
check_none "run_env outside the group: no lab rows" \
	"$(q "select key from run_env where run_id = $run and key like 'lab_%'")"
check "the same daemon outside the group: faster than the limit ($(((t1 - t0) / 1000000)) ms)" \
	awk -v b="$sz" -v ns="$((t1 - t0))" -v w=$BPS 'BEGIN { exit !(ns / 1e9 < 0.9 * b / w) }'

# --- the calibration: the bench run in the lab measures with fio what the
# storage gives at the run's read size, into its own table
BENCH="env TIMELINEFS_BIN_DIR=$TLFS_BUILD sh $TOP/mount-scripts/timelinefs-bench"
# shellcheck disable=SC2086 # BENCH: a command line
lab run "$L" -- $BENCH --media "$L/media" \
	--workstations 1 --repeat 1 --warmup 0 --pace off --db "$T/cal.db" \
	--label cal --calibrate 2 --calibrate-time 2 >"$T/bench.out" 2>&1 ||
	sed 's/^/# /' "$T/bench.out"
DB=$T/cal.db
# the read size by what it is (the run's mean read rounded up to 4 KiB),
# not by the bench's formula again: whole 4 KiB blocks, not below the
# mean, less than one block above it
check_eq "--calibrate: one row, 2 readers, of whole 4 KiB, not below the run's mean read, less than 4 KiB above" \
	"1 2 1 1 1" \
	"$(q "select count(*), max(c.readers), max(c.block_bytes) % 4096 = 0,
		max(c.block_bytes) >= m.mean, max(c.block_bytes) - m.mean < 4096
		from calibration c, (select cast(avg(length) as integer) as mean
		from access where op = 0 and length > 0) m" | tr '|' ' ')"
cal=$(q "select cast(bytes_per_s as integer) from calibration")
within "--calibrate in the lab: bytes/s" "$cal" $BPS 10
check "--calibrate: reads/s are bytes/s over the read size (within 2 %)" \
	awk -v r="$(q "select reads_per_s * block_bytes / bytes_per_s from calibration")" \
	'BEGIN { exit !(r > 0.98 && r < 1.02) }'
check_eq "--calibrate: the bench prints it" 1 \
	"$(grep -c '^calibration: 2 readers of [0-9]* bytes: [0-9.]* MB/s' "$T/bench.out")"

# --calibrate-work: each reader reads what a stream of the run read from
# the storage and stops; its rate over that fixed work is the lab's too
# shellcheck disable=SC2086 # BENCH: a command line
lab run "$L" -- $BENCH --media "$L/media" \
	--workstations 1 --repeat 1 --warmup 0 --pace off --db "$T/calw.db" \
	--label calw --calibrate 2 --calibrate-work >"$T/benchw.out" 2>&1 ||
	sed 's/^/# /' "$T/benchw.out"
DB=$T/calw.db
# each reader's bytes by what they are: not below a stream's backing
# bytes (the mean), less than one read above them
check_eq "--calibrate-work: one row, 2 readers, each of a stream's backing bytes (up to a read more)" \
	"1 2 1 1" \
	"$(q "select count(*), max(c.readers),
		max(c.read_bytes) / max(c.readers) >= w.bytes,
		max(c.read_bytes) / max(c.readers) - w.bytes < max(c.block_bytes)
		from calibration c, (select avg(b) as bytes from (select sum(length) b
		from access where op = 0 group by stream_id)) w" | tr '|' ' ')"
# shellcheck disable=SC2016 # $1 is the inner sh's
check "--calibrate-work: fio with --io_size, not timed" \
	sh -c 'case $1 in *--io_size=*) case $1 in *--time_based*) exit 1 ;; esac ;; *) exit 1 ;; esac' sh \
	"$(q "select tool from calibration")"
cal=$(q "select cast(bytes_per_s as integer) from calibration")
within "--calibrate-work in the lab: bytes/s" "$cal" $BPS 10
check_eq "--calibrate-work: the bench prints it" 1 \
	"$(grep -c '^calibration: 2 O_DIRECT readers of [0-9]* bytes of [0-9]* bytes each' "$T/benchw.out")"

check "down" lab down "$L"
check_none "down: no loop device, mount, group, image, folder or record" \
	"$(left "$L" "$IMG")"

# --- kill -9 of a run whose command left a process in the group
check "storage up again" lab storage up "$L" --fs ext4 --size 64M --read-bps 10M \
	--image "$IMG"
sh "$LABSH" --state-dir "$T/state" run "$L" -- sh -c 'sleep 300 & exec sleep 300' &
run=$!
cg=$(rec cgroup)
i=0
while [ "$(wc -l <"$cg/cgroup.procs")" -lt 2 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
check_eq "run: its command and its child in the group" 2 "$(wc -l <"$cg/cgroup.procs")"
orphan=$(grep -vx "$run" "$cg/cgroup.procs")
kill -9 "$run"
wait "$run" 2>/dev/null || true
check "after kill -9: down --all" lab down --all
check_none "down --all: no loop device, mount, group, image, folder or record" \
	"$(left "$L" "$IMG")"
check_eq "down --all: the process the command left is gone" gone \
	"$(exited "$orphan" && echo gone)"

# --- kill -9 of a storage up half way (during mkfs): down --all removes
# what its record names, and the loop device over its image unrecorded
sh "$LABSH" --state-dir "$T/state" storage up "$L" --fs ext4 --size 512M \
	--image "$IMG" >/dev/null 2>&1 &
up=$!
sleep 0.1
kill -9 "$up" 2>/dev/null || true
wait "$up" 2>/dev/null || true
check "after kill -9 of storage up: down --all" lab down --all
check_none "down --all after a half storage up: nothing left" "$(left "$L" "$IMG")"

# --- timelinefs-bench --lab: the bench in a lab it makes, the media copied
# in, the lab gone after
"$GEN" --clips 1 --clip-seconds 2 --timelines 1 --events 1 --min-seconds 2 \
	--max-seconds 2 --video-rate 5M "$T/media2" >/dev/null
# labbench WHAT ARGS...: the bench with its lab in T, checked done
labbench() {
	w=$1
	shift
	rc=0
	# shellcheck disable=SC2086 # BENCH: a command line
	TMPDIR=$T $BENCH "$@" >"$T/bench2.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || sed 's/^/# /' "$T/bench2.out"
	check_eq "$w: done" 0 "$rc"
}
labbench "bench --lab" --lab "fs=ext4,read-bps=20M,read-iops=$IOPS,state-dir=$T/state2" \
	--media "$T/media2" --workstations 1 --repeat 1 --warmup 0 --pace off \
	--db "$T/lab2.db" --label lab2 --calibrate 2 --calibrate-time 2
DB=$T/lab2.db
run=$(q "select max(id) from run")
check_eq "bench --lab: the run's run_env has the lab's limits and file system" \
	"$BPS $IOPS ext4" "$(envv lab_read_bps) $(envv lab_read_iops) $(envv media_fs_type)"
within "bench --lab --calibrate: bytes/s" \
	"$(q "select cast(bytes_per_s as integer) from calibration where run_id = $run")" $BPS 10
check_none "bench --lab: the lab is gone after (record, group, folder)" \
	"$(find "$T/state2" -type f 2>/dev/null; ls -d /sys/fs/cgroup/blkio/timelinefs-lab-* "$T"/timelinefs-lab.* 2>/dev/null)"

# --- --ab-lab: legs at two limits of one lab, A B A B, each leg's run
# with its own limits in run_env and its own calibration
labbench "bench --ab-lab" --lab "fs=ext4,read-bps=20M,state-dir=$T/state2" \
	--ab-lab 'read-bps=20M' 'read-bps=10M,read-iops=300' \
	--media "$T/media2" --workstations 1 --repeat 2 --warmup 0 --pace off \
	--db "$T/ab.db" --label ab --calibrate 2 --calibrate-time 1
DB=$T/ab.db
check_eq "--ab-lab: the legs alternate, each its own run (labels by run id)" \
	"ab:A ab:B ab:A ab:B" "$(q "select group_concat(label, ' ') from (select label from run order by id)")"
check_eq "--ab-lab: each leg's run_env has its side's limits" \
	"ab:A 20971520 - ab:B 10485760 300 ab:A 20971520 - ab:B 10485760 300" \
	"$(q "select group_concat(x, ' ') from (select r.label || ' ' ||
		coalesce((select value from run_env where run_id = r.id and key = 'lab_read_bps'), '-') || ' ' ||
		coalesce((select value from run_env where run_id = r.id and key = 'lab_read_iops'), '-') as x
		from run r order by r.id)")"
check_eq "--ab-lab: a calibration per leg, tied to its run and labelled" \
	"ab:A ab:B ab:A ab:B" "$(q "select group_concat(c.label, ' ') from (select c.label from calibration c
		join run r on r.id = c.run_id and r.label = c.label order by c.run_id) c")"
for side in A:20971520 B:10485760; do
	within "--ab-lab: leg ${side%:*}'s calibration (the mean of 2)" \
		"$(q "select cast(avg(bytes_per_s) as integer) from calibration where label = 'ab:${side%:*}'")" \
		"${side#*:}" 10
done
# the report shows the calibrations beside the runs: text and --json
REPORT=$TOP/mount-scripts/timelinefs-report
"$REPORT" "$DB" >"$T/rep.txt" 2>&1
check_eq "report (text): a calibration table after the runs, a row a leg" \
	"runs calibration 4" \
	"$(awk '/^runs \(/ { r = "runs" } /^calibration \(/ { c = "calibration"; in_c = 1 }
		in_c && /^$/ { in_c = 0 }
		in_c && /^[0-9]+ +[0-9]+ +ab:[AB] / { n++ }
		END { print r, c, n + 0 }' "$T/rep.txt")"
"$REPORT" "$DB" --json >"$T/rep.json" 2>&1
check_eq "report --json: calibration, each row its run's label and the lab's bytes limit" \
	"ab:A 20971520;ab:B 10485760;ab:A 20971520;ab:B 10485760" \
	"$(/usr/bin/python3 -c 'import json, sys
print(";".join("%s %s" % (c["label"], c["lab_read_bps"]) for c in json.load(open(sys.argv[1]))["calibration"]))' "$T/rep.json")"
check_eq "report --calibration --csv: the header and 4 rows" \
	"calibration,run,label,readers,block_bytes,seconds,mb_s,reads_per_s,lab_read_bps,lab_read_iops,of_limit_pct 5" \
	"$("$REPORT" "$DB" --calibration --csv | sed -n '1p;$=' | tr '\n' ' ' | sed 's/ $//')"
check "--ab-lab: the calibrations printed, one a leg" \
	[ "$(grep -c '^calibration: .*(ab:[AB])$' "$T/bench2.out")" -eq 4 ]
check_none "--ab-lab: the lab is gone after (record, group, folder)" \
	"$(find "$T/state2" -type f 2>/dev/null; ls -d "$T"/timelinefs-lab.* 2>/dev/null)"
st=0
# shellcheck disable=SC2086 # BENCH: a command line
TMPDIR=$T $BENCH --ab-lab 'read-bps=20M' 'read-bps=10M' --media "$T/media2" \
	--db "$T/lab3.db" >"$T/err" 2>&1 || st=$?
check_eq "--ab-lab without --lab: a usage error saying so" "2 1" \
	"$st $(grep -c "ab-lab goes with --lab" "$T/err")"
st=0
# shellcheck disable=SC2086 # BENCH: a command line
TMPDIR=$T $BENCH --lab "fs=ext4,state-dir=$T/state2" --ab-lab 'fs=xfs' 'read-bps=10M' \
	--media "$T/media2" --db "$T/lab3.db" >"$T/err" 2>&1 || st=$?
check_eq "--ab-lab 'fs=xfs': refused (legs share one lab), nothing made" "2 1 0" \
	"$st $(grep -c "read-bps= and read-iops= only" "$T/err") $(find "$T/state2" -type f 2>/dev/null | wc -l)"

rc=0
# shellcheck disable=SC2086 # BENCH: a command line
TMPDIR=$T $BENCH --lab "fs=zfs,state-dir=$T/state2" --media "$T/media2" \
	--workstations 1 --db "$T/lab3.db" >"$T/bench3.out" 2>&1 || rc=$?
check_eq "bench --lab fs=zfs: refused, saying why, nothing left" "1 1" \
	"$rc $(grep -c "ext4, xfs or btrfs, not 'zfs'" "$T/bench3.out")"
check_none "bench --lab refused: nothing left" \
	"$(find "$T/state2" -type f 2>/dev/null; ls -d /sys/fs/cgroup/blkio/timelinefs-lab-* "$T"/timelinefs-lab.* 2>/dev/null)"

# --- the other file systems come up and go down
for fs in xfs btrfs; do
	if ! command -v "mkfs.$fs" >/dev/null 2>&1; then
		skip_case "no mkfs.$fs"
		continue
	fi
	check "$fs: storage up" lab storage up "$L" --fs $fs --size 320M --read-bps 10M \
		--image "$IMG"
	check_eq "$fs: mounted as $fs" $fs "$(awk -v d="$L" '$2 == d { print $3 }' /proc/mounts)"
	check "$fs: down" lab down "$L"
	check_none "$fs: nothing left" "$(left "$L" "$IMG")"
done
finish
