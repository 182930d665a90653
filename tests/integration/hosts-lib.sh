# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Shared set-up of test_hosts.sh and test_hosts_faults.sh (sourced, after
# lib.sh): timelinefs-hosts under mpirun on one machine, the media, the
# options every case passes, and the clean-up of every rank, daemon,
# bench and mount a case leaves (trap).
# shellcheck disable=SC2034 # HOSTS, MERGE, MPI, RUN, COMMON, STEP_SLACK, MPIRC: the tests' own
need_tools mpirun sqlite3
HOSTS=$TLFS_BUILD/timelinefs-hosts
[ -x "$HOSTS" ] || { echo "missing $HOSTS: run make first" >&2; exit 1; }
MERGE=$TLFS_BUILD/timelinefs-merge
export TIMELINEFS_BIN_DIR="$TLFS_BUILD"
# private mount points and the bench's work folders under $T
export TMPDIR="$T"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one machine, three ranks; TCP between them (no shared-memory segments
# left in /dev/shm by a rank killed with -9)
MPI="mpirun --oversubscribe --mca btl self,tcp"
# the documented command: mpirun --enable-recovery, exiting with rank 0's
# status (mpirun's is 0 under --enable-recovery)
RUN="sh $TOP/mount-scripts/timelinefs-hosts-run --oversubscribe --mca btl self,tcp"
SMALL='--clips 4 --clip-seconds 2 --timelines 6 --events 3 --min-seconds 0.3 --max-seconds 0.5 --video-rate 2M'
"$GEN" $SMALL "$T/media" >/dev/null
# longer timelines for the cases that stop a rank mid-step
"$GEN" --clips 4 --clip-seconds 4 --timelines 4 --events 3 --min-seconds 1 \
	--max-seconds 1.2 --video-rate 2M "$T/long" >/dev/null
# A step's deadline (--step-timeout after its expected end) also holds a
# bench's start past the start margin and its report after the play:
# under ASan beside two busy loops those took 2.7 s of test_hosts (c)'s
# 3 s on a rank that played on time, and a rank of its (a) missed 5 s.
# On a host of slower system calls (a paravirtualised kernel where one
# cached dd bs=4k gives half the MB/s) three ranks' benches on two cores
# started 0.8 s past the margin and ended their reports 2 s past (c)'s
# deadline, plain build: every build's steps get STEP_SLACK s more, an
# ASan build's 7 s more again
STEP_SLACK=4
! nm -D "$HOSTS" 2>/dev/null | grep -q __asan_init || STEP_SLACK=11
COMMON="--repeat 1 --warmup 0 --start-margin 1 --step-timeout $((5 + STEP_SLACK))"

# the mpirun of a case in the background: its pid in MPIRUN, killed (and
# its ranks) by the EXIT trap if the case does not end it
MPIRUN=
stop_mpirun() {
	[ -n "$MPIRUN" ] || return 0
	kill -TERM "$MPIRUN" 2>/dev/null
	wait "$MPIRUN" 2>/dev/null
	MPIRUN=
}
# mpirun_ended TRIES: wait up to TRIES x 0.1 s for the case's mpirun to
# end; true if it did (reaped, its status in MPIRC, MPIRUN cleared),
# false if not (the EXIT trap stops it)
mpirun_ended() {
	MPIRC=
	i=0
	while kill -0 "$MPIRUN" 2>/dev/null && [ $i -lt "$1" ]; do
		i=$((i + 1))
		sleep 0.1
	done
	! kill -0 "$MPIRUN" 2>/dev/null || return 1
	MPIRC=0
	wait "$MPIRUN" 2>/dev/null || MPIRC=$?
	MPIRUN=
}
# every process and mount of ours gone: the ranks (their args name $T),
# the probes of their benches,
# the daemons and benches they started
left_over() {
	pgrep -f "timelinefs(-hosts|-bench|-hosts-run|-probe)? .*$T/" 2>/dev/null
	grep " $T/" /proc/mounts
}
released() {
	i=0
	while [ -n "$(left_over)" ]; do
		i=$((i + 1))
		[ $i -lt "${1:-100}" ] || return 1
		sleep 0.1
	done
}
hosts_cleanup() {
	stop_mpirun
	for p in $(pgrep -f "timelinefs(-hosts|-bench|-hosts-run|-probe)? .*$T/" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
	awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/mounts |
		while IFS= read -r m; do fusermount3 -u -z "$m"; done
	# a process killed is gone only when the kernel has reaped it: one
	# still writing its database when cleanup's rm -rf ran left the
	# folder behind (seen once: a rank's s-vm-0.db after a case died)
	released 50 || :
}
trap 'hosts_cleanup; cleanup || exit 1' EXIT

sq() {
	sqlite3 -batch -noheader -cmd ".timeout 5000" "$1" "$2"
}

