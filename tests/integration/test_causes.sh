#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted, paced: the causes of a late frame made to happen and named
# right by late_frame, with their evidence (schema version 16):
#   storage: -o inject delays every video read by 50 ms, more than a
#            frame's 33 ms: the stream falls behind its storage;
#   timer:   the stream's filler thread in a cpu cgroup allowed 5 % of the
#            CPU a CPU hog spins on: it wakes late (wake_delay_us).
# (reader, a reader that stops reading: test_realtime's paused reader.)
# Before the evidence (schema 14) the timer's late frames were 'issue'.
# Wall-clock: in TLFS_ALONE.
. "$(dirname "$0")/lib.sh"

M=$T/media
# 2 timelines of 3 events of 1 s: 90 frames, 3.0 s each at 29.97
"$GEN" --clips 3 --clip-seconds 3 --timelines 2 --events 3 \
	--min-seconds 1 --max-seconds 1 --seed 5 "$M" >/dev/null
DB=$T/t.db
# the page cache: late frames here are the causes', not this disk's
cat "$M"/clip* >/dev/null

CG=
HOG=
causes_cleanup() {
	set +e
	[ -z "$HOG" ] || kill "$HOG" 2>/dev/null
	if [ -n "$CG" ] && [ -d "$CG" ]; then
		# whatever is still in the group goes back to the root group
		while read -r p; do
			echo "$p" >/sys/fs/cgroup/cpu/cgroup.procs
		done <"$CG/cgroup.procs"
		rmdir "$CG"
	fi
	cleanup
}
trap causes_cleanup EXIT

# causes LABEL: the run's late frames by cause, "cause count" a line,
# the most first
causes() {
	q "select cause || ' ' || count(*) from late_frame f join run r
	   on r.id = f.run_id where r.label = '$1' group by cause
	   order by count(*) desc, cause"
}

# storage: every video read 50 ms, a frame 33 ms
mount_fs "$M" "$T/mnt" -o db="$DB",label=storage,backing=buffered \
	-o "inject=track=V:delay=50ms"
dd if="$T/mnt/timeline01" of=/dev/null bs=64k status=none
umount_fs "$T/mnt"
echo "# storage: $(causes storage | tr '\n' ' ')"
# on a loaded machine a frame may also wait for the CPU (timer, issue):
# rightly so, and rare; the storage's must be nearly all
check "slow storage: more than 10 late frames, 90 % of them storage" \
	test "$(q "select count(*) > 10 and sum(cause = 'storage') >= 0.9 * count(*)
		   from late_frame f join run r on r.id = f.run_id
		   where r.label = 'storage'")" = 1

# timer: the daemon's filler starved of CPU.  The stream's filler
# thread (tlfs-fill) and a busy loop share a cpu cgroup allowed 5 ms of
# each 100 ms, and one CPU: a filler that should wake at a frame's issue
# time runs when the group next gets CPU, up to 95 ms later, where a
# frame allows 33 ms (buffer=1).  On two CPUs the group's 5 ms went to
# whichever CPU asked first at each period's start and stayed there, so
# in some runs the filler's CPU kept it and hardly a frame was late (3
# of 90, against 59 in the next run); on the hog's CPU the hog spends
# each period's 5 ms and the filler waits for the next.  The daemon's
# other threads stay out of it: starved too, its FUSE threads would hand
# the reader its frames late, the ring would fill and the reader,
# rightly, be the cause.
if [ "$(id -u)" -ne 0 ] || [ ! -w /sys/fs/cgroup/cpu/tasks ]; then
	skip_case "timer: no cpu cgroup (v1) to starve the filler in"
	finish
	exit
fi
mount_fs "$M" "$T/mnt" -o db="$DB",label=timer,backing=buffered,buffer=1
CG=/sys/fs/cgroup/cpu/tlfs-timer.$$
mkdir "$CG"
echo 100000 >"$CG/cpu.cfs_period_us"
echo 5000 >"$CG/cpu.cfs_quota_us"
# the first CPU this test may use
CPU=$(awk '/^Cpus_allowed_list:/ { split($2, c, /[-,]/); print c[1] }' /proc/$$/status)
taskset -c "$CPU" sh -c 'while :; do :; done' &
HOG=$!
echo "$HOG" >"$CG/cgroup.procs"
dd if="$T/mnt/timeline02" of=/dev/null bs=64k status=none &
reader=$!
filler=
i=0
while [ -z "$filler" ] && [ $i -lt 200 ]; do
	filler=$(grep -l '^tlfs-fill$' /proc/"$DAEMON"/task/*/comm 2>/dev/null |
		 head -1 | cut -d/ -f5)
	i=$((i + 1))
	[ -n "$filler" ] || sleep 0.01
done
if [ -n "$filler" ]; then
	taskset -p -c "$CPU" "$filler" >/dev/null
	echo "$filler" >"$CG/tasks"
fi
wait "$reader"
check "starved filler: the stream's filler thread was found (tlfs-fill)" \
	test -n "$filler"
# back to the root group (a thread's own move), then the group goes
[ -z "$filler" ] || echo "$filler" >/sys/fs/cgroup/cpu/tasks 2>/dev/null || :
kill "$HOG"
wait "$HOG" 2>/dev/null || :
HOG=
rmdir "$CG"
CG=
umount_fs "$T/mnt"
echo "# timer: $(causes timer | tr '\n' ' ')$(q "select 'wake delays up to ' ||
	(max(wake_ns) / 1000000) || ' ms' from access a join stream s on s.id = a.stream_id
	join run r on r.id = s.run_id where r.label = 'timer'")"
# With the filler on the hog's CPU a third to four fifths of the frames
# are late (35 to 60 of 90 in eight runs alone, 54 to 74 in 13 beside
# one or two busy loops), all of them timer.  A read the group's
# throttle stopped halfway (the filler reads the frame itself) is the
# storage's by its times (done - issued), which no row tells from a slow
# disk (design.md): rare, but the check leaves it a tenth.  None may be called issue (as all were
# before the evidence) or reader.
check "starved filler: at least 20 late frames, 90 % of them timer, none issue or reader" \
	test "$(q "select count(*) >= 20 and sum(cause = 'timer') >= 0.9 * count(*)
		   and sum(cause not in ('timer', 'storage')) = 0
		   from late_frame f join run r on r.id = f.run_id
		   where r.label = 'timer'")" = 1
check "starved filler: timer frames carry a wake delay over a frame's 33 ms" \
	test "$(q "select count(*) from late_frame f join run r on r.id = f.run_id
		   where r.label = 'timer' and cause = 'timer'
		   and wake_delay_us > 33367")" -gt 0
finish
