#!/bin/sh
# SPDX-License-Identifier: MIT
# Run every tests/integration/test_*.sh (TLFS_BUILD names the build).  Each
# prints "N passed, N failed" or "N passed, N failed, N skipped" last, or
# exits 77 when it cannot run here at all (no /dev/fuse, not root, a tool
# missing).  A test that prints no summary (it died), ran and skipped no
# check, or exits non-zero with no failed check is one failure more.  A test skipped
# whole is one skip; under CI=true it is a failure instead: CI has FUSE,
# root and every tool (make deps), so a skip there means nothing was
# tested.  Prints "integration: N passed, N failed, N skipped" last and
# exits non-zero on any failure.  TLFS_EXCLUDE names tests this build
# leaves out (the Makefile says why).
#
# TLFS_JOBS tests (default: the CPUs) run at a time, each with its own
# temporary folders and mounts: most of a mounted test's time is a paced
# player's or a daemon's waiting, which a second test fills.  A test's
# output is shown whole when it ends (the order is the order they end in).
# The tests of TLFS_ALONE (default: ALONE below) run one by one after the
# others, nothing beside them: their checks are wall-clock margins that a
# second test on the CPUs would eat into, or they take the CPUs
# themselves.  TLFS_JOBS=1 runs every test in name order, one at a time.
# TLFS_TOGETHER_ONLY=1 (make check) leaves the TLFS_ALONE tests out,
# saying so: they are make test's.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# test_realtime, test_players: no late frame at real time; test_bench:
# 8 paced streams read to the end; test_smb: smbd's paced read within 8 %
# of the timeline (7.2 s for 6.0 s beside another test at load 17, where
# it allows 7.0); test_limits, test_dbfull: timings of the
# store's writer and queue; test_sequences: the late frames a stall of a
# known length makes; test_pictures: real decoders at real time;
# test_ingest, test_edit_ingest: the capture clock's drops, to tens of ms;
# test_fuzz: FUZZ_JOBS (the CPUs) fuzz targets at once; test_hosts: three
# MPI ranks' steps started together (within 50 ms on the common axis) and
# each rank's answer within seconds of its step's expected end, and
# test_hosts_faults the same deadlines and find-max's late frames;
# test_lab: throttled reads within 10 % of the lab's limits; test_lab_seed:
# the seed's counts and players at real time on lab storages; test_lab_truth:
# find-max's count against a lab storage's calibrated capacity, a storage
# change's verdict against the change its calibrations predict;
# test_lab_net: 20 workstation namespaces within 10 s, a shaped link's rate;
# test_lab_net_truth: find-max over SMB against a link's calibrated rate;
# test_causes: late frames of a known cause (a CPU hog of its own, and a
# second test's load would be a cause too); test_faults: its faults land
# 0.4 s into three paced readers' play, before they reach the clips it
# breaks (beside five other tests, make check's, the chmod reader had
# already opened its clip and read on: 0 of 4 perm checks).
ALONE="test_realtime test_players test_bench test_smb test_limits test_dbfull \
test_sequences test_pictures test_ingest test_edit_ingest test_fuzz test_hosts_faults test_hosts \
test_lab test_lab_truth test_lab_seed test_lab_net test_lab_net_truth test_causes test_faults"
alone=" ${TLFS_ALONE-$ALONE} "
# shellcheck source=tests/jobs.sh
. "$here/jobs.sh"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT

# run_one NAME: run the test, then show its output and verdict (one test at
# a time: the lock) and write "PASSED FAILED SKIPPED" to $dir/NAME.count
run_one() {
	name=$1
	out=$dir/$name.out
	t0=$(date +%s)
	timeout 600 sh "$here/integration/$name.sh" >"$out" 2>&1
	rc=$?
	took=$(($(date +%s) - t0))
	until mkdir "$dir/lock" 2>/dev/null; do sleep 0.1; done
	echo "== $name"
	cat "$out"
	# what each suite costs, for CI's time (docs/development.md)
	echo "# $name took $took s"
	verdict "$name" "$rc" "$out" >"$dir/$name.count"
	rmdir "$dir/lock"
}

# verdict NAME RC OUT: the test's counts on stdout, what is wrong on stderr
verdict() {
	last=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$3" |
		tail -1)
	if [ "$2" -eq 77 ]; then
		if [ "${CI:-}" = true ]; then
			echo "$1: skipped, and CI=true: a failure" >&2
			echo "0 1 0"
		else
			echo "0 0 1"
		fi
		return
	fi
	if [ -z "$last" ]; then
		echo "$1: no summary line: it died (exit $2)" >&2
		echo "0 1 0"
		return
	fi
	p=${last%% passed*}
	f=${last#* passed, }
	f=${f%% failed*}
	s=0
	case $last in
	*skipped)
		s=${last##*failed, }
		s=${s%% skipped}
		;;
	esac
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "$1: exited $2" >&2
		f=1
	elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		echo "$1: ran no check" >&2
		f=1
	fi
	echo "$p $f $s"
}

names='' together='' by_one=''
for t in "$here"/integration/test_*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	case " ${TLFS_EXCLUDE:-} " in
	*" $name "*)
		echo "== $name: left out of this build (TLFS_EXCLUDE)"
		continue
		;;
	esac
	case $alone in
	*" $name "*)
		if [ "${TLFS_TOGETHER_ONLY:-}" = 1 ]; then
			echo "== $name: left out: it runs alone (make test)"
			continue
		fi
		names="$names $name"
		by_one="$by_one $name"
		;;
	*)
		names="$names $name"
		together="$together $name"
		;;
	esac
done
if [ "$jobs" -eq 1 ]; then
	together='' by_one=$names
fi

# TLFS_JOBS workers take the tests in name order, each the next one that
# no other took (mkdir is atomic)
worker() {
	for name in $together; do
		mkdir "$dir/$name.taken" 2>/dev/null || continue
		run_one "$name"
	done
}
if [ -n "$together" ]; then
	i=0
	while [ "$i" -lt "$jobs" ]; do
		worker &
		i=$((i + 1))
	done
	wait
fi
for name in $by_one; do
	run_one "$name"
done

pass=0 fail=0 skip=0
for name in $names; do
	# no counts: its worker died before the test's verdict
	if ! read -r p f s <"$dir/$name.count" 2>/dev/null; then
		echo "$name: its runner died before its verdict: a failure" >&2
		p=0 f=1 s=0
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
done
echo "integration: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
