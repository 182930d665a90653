# SPDX-License-Identifier: MIT
# Shared helpers of the mounted tests (sourced): a private temporary
# directory, mounts that are always unmounted (EXIT trap), daemons that are
# always stopped and whose log is shown when they die on their own, and
# ok/not ok/skip accounting ending in "N passed, N failed" (", N skipped"
# after it when something was skipped).
set -eu

: "${TLFS_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$TLFS_BUILD/timelinefs
GEN=$TLFS_BUILD/timelinefs-gen
EXPECT="python3 $TOP/tests/tools/tlexpect.py"
PASS=0
FAIL=0
SKIP=0
MOUNTS=
PIDS=
WATCHED=	# PID:LOG of every daemon that must not die on its own
STOPPED=	# daemons whose exit the test waited for (wait_daemon)
NDAEMON=0

# NO_MOUNT=1: a test that mounts nothing (test_runners.sh) and needs
# neither FUSE nor the binaries
if [ "${NO_MOUNT:-0}" != 1 ]; then
	if [ ! -e /dev/fuse ] || ! command -v fusermount3 >/dev/null 2>&1; then
		echo "skip: no /dev/fuse or fusermount3"
		exit 77
	fi
	for f in "$BIN" "$GEN"; do
		[ -x "$f" ] || { echo "missing $f: run make first" >&2; exit 1; }
	done
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/tlfs-test.XXXXXX")

# python3 is Debian's, the one make deps provisions (TLFS_PYTHON: another),
# for the tests' own scripts and what they run, whatever comes first on
# PATH: a pyenv shim there took 0.35 s a start, 0.8 s under a test's load
if [ -x "${TLFS_PYTHON:-/usr/bin/python3}" ]; then
	mkdir "$T/.python"
	ln -s "${TLFS_PYTHON:-/usr/bin/python3}" "$T/.python/python3"
	PATH=$T/.python:$PATH
	export PATH
fi

# exited PID: no such process, or a zombie (a daemonized one is
# nobody's child)
exited() {
	[ -n "$1" ] || return 1
	st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1) || st=
	[ -z "$st" ] || [ "$st" = Z ]
}

# sanitizer_report LOG: an ASan, LSan, UBSan or TSan report in LOG
sanitizer_report() {
	grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:|WARNING: ThreadSanitizer' "$1" 2>/dev/null
}

# watch_daemon PID LOG: a daemon that must not die before the test stops
# it (wait_daemon) or unmounts it (exit 0), nor print a sanitizer report.
# mount_fs watches its daemon; a test that starts one itself may call this.
watch_daemon() {
	WATCHED="$WATCHED $1:$2"
}

# check_daemons: a not_ok, with the daemon's log (which goes with $T),
# for every watched daemon that died on its own or reported a sanitizer
# error; each is judged once.  finish runs it, and the EXIT trap for a
# test that stops early (set -e: a daemon gone makes a kill fail).
check_daemons() {
	left=
	for w in $WATCHED; do
		p=${w%%:*}
		l=${w#*:}
		why=
		if sanitizer_report "$l"; then
			why="a sanitizer report"
		elif ! case " $STOPPED " in *" $p "*) true ;; *) false ;; esac &&
			exited "$p"; then
			st=0
			wait "$p" 2>/dev/null || st=$?
			# 127: not this shell's child any more (waited for)
			[ "$st" -eq 0 ] || [ "$st" -eq 127 ] ||
				why="died on its own (exit status $st)"
		fi
		if [ -z "$why" ]; then
			left="$left $w"
			continue
		fi
		not_ok "daemon $p: $why; its log $l:"
		sed 's/^/#   /' "$l" 2>/dev/null
	done
	WATCHED=$left
}

# stop_all: unmount every mount, stop every daemon (TERM, KILL after 5 s)
# and the readers the test started (its children); safe to call twice
stop_all() {
	for m in $MOUNTS; do
		grep -q " $m fuse" /proc/mounts && fusermount3 -u -z "$m"
	done
	for p in $PIDS; do
		kill "$p" 2>/dev/null
	done
	for p in $PIDS; do
		i=0
		while kill -0 "$p" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$p" 2>/dev/null
	done
	pkill -P $$ 2>/dev/null
	STOPPED="$STOPPED $PIDS"
	return 0
}

# The EXIT trap: a test that stopped early (set -e) is told why a daemon
# died before the others are stopped; those report leaks as they exit.
# 1 when that found a failure the exit status does not show yet.
cleanup() {
	rc=$?
	set +e
	before=$FAIL
	check_daemons
	stop_all
	check_daemons
	rm -rf "$T"
	[ "$FAIL" -eq "$before" ] || [ "$rc" -ne 0 ]
}
trap 'cleanup || exit 1' EXIT
trap 'echo "interrupted (INT)" >&2; exit 130' INT
trap 'echo "interrupted (TERM)" >&2; exit 143' TERM

ok() {
	PASS=$((PASS + 1))
	echo "ok - $*"
}

not_ok() {
	FAIL=$((FAIL + 1))
	echo "not ok - $*"
}

# need_tools TOOL...: the whole test needs these programs (make deps
# installs them): without one it is a skip (exit 77, a failure under
# CI=true, where the runner fails it)
need_tools() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 ||
			{ echo "skip: no $tool (make deps installs it)"; exit 77; }
	done
}

# skip_case WHY: a part of the test that cannot run here (it needs root
# or a tool): a skip; under CI=true a failure, since CI has them all (the
# runner fails a test that exits 77 there too)
skip_case() {
	if [ "${CI:-}" = true ]; then
		not_ok "skipped, and CI=true: $*"
	else
		SKIP=$((SKIP + 1))
		echo "skip - $*"
	fi
}

# skip_sample WHY: a part that needs the sample files of ../shared/samples
# (TLFS_SHARED), which a plain clone lacks: a skip, under CI=true too
skip_sample() {
	SKIP=$((SKIP + 1))
	echo "skip - $*"
}

# check NAME COMMAND...: ok when the command succeeds
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# check_eq NAME EXPECTED ACTUAL
# check_eq NAME EXPECTED GOT.  Both empty is a failure: an expected value
# computed by a query or a command that printed nothing (a typo in its SQL,
# a file not there) would otherwise pass against a GOT that failed the same
# way.  A check that wants nothing says so: check_none.
check_eq() {
	if [ -z "$2" ] && [ -z "$3" ]; then
		not_ok "$1: both sides empty (nothing compared: check_none checks for nothing)"
	elif [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1: expected '$2', got '$3'"
	fi
}

# check_none NAME GOT: GOT is empty (no leftover file, no warning, ...)
check_none() {
	if [ -z "$2" ]; then
		ok "$1"
	else
		not_ok "$1: expected nothing, got '$2'"
	fi
}

# finish: the daemons' verdicts (stopped here, so that a leak they report
# as they exit is counted), then the summary line
finish() {
	check_daemons
	set +e
	stop_all
	set -e
	check_daemons
	if [ "$SKIP" -eq 0 ]; then
		echo "$PASS passed, $FAIL failed"
	else
		echo "$PASS passed, $FAIL failed, $SKIP skipped"
	fi
	[ "$FAIL" -eq 0 ]
}

# request_kb LOG: the requests' size in KiB a daemon's start says it
# took for zero copy (the host allows no pipe for 1 MiB), else 1024
request_kb() {
	kb=$(sed -n 's/.*zero copy (-o splice=auto) with requests of \([0-9]*\) KiB.*/\1/p' "$1")
	echo "${kb:-1024}"
}

is_mounted() {
	grep -q " $1 fuse" /proc/mounts
}

# mount_fs MEDIA MNT [timelinefs options...]: start the daemon in the
# foreground (so its pid is known), wait until the mount is there.
# Sets DAEMON to its pid.
mount_fs() {
	media=$1
	mnt=$2
	shift 2
	mkdir -p "$mnt"
	NDAEMON=$((NDAEMON + 1))
	DAEMON_LOG=$T/daemon.$NDAEMON.log
	# $T/daemon.log: the newest daemon's
	ln -sf "daemon.$NDAEMON.log" "$T/daemon.log"
	"$BIN" -f "$@" "$media" "$mnt" >"$DAEMON_LOG" 2>&1 &
	DAEMON=$!
	PIDS="$PIDS $DAEMON"
	watch_daemon "$DAEMON" "$DAEMON_LOG"
	MOUNTS="$MOUNTS $mnt"
	i=0
	while ! is_mounted "$mnt"; do
		if ! kill -0 "$DAEMON" 2>/dev/null; then
			echo "daemon exited:" >&2
			cat "$DAEMON_LOG" >&2
			STOPPED="$STOPPED $DAEMON"	# said here
			return 1
		fi
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "mount timed out" >&2; return 1; }
		sleep 0.1
	done
}

# wait_daemon PID [seconds]: wait for a daemon to exit; 1 if it does not.
# Its exit is expected from then on (kill -9 included).
wait_daemon() {
	STOPPED="$STOPPED $1"
	i=0
	lim=$(( ${2:-20} * 10 ))
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt "$lim" ] || return 1
		sleep 0.1
	done
	wait "$1" 2>/dev/null || true
}

# umount_fs MNT: unmount and wait for the daemon to flush and exit.
umount_fs() {
	fusermount3 -u "$1"
	wait_daemon "$DAEMON"
}

# wait_note MEDIA NAME STATE: until MEDIA/ingest/NAME.rec says state
# STATE, up to 20 s (a writer's close is released asynchronously; under
# TSan a slow recording closes some 5 s after its writer); 1 if never.
wait_note() {
	i=0
	while ! grep -q "^state $3\$" "$1/ingest/$2.rec" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 400 ] || return 1
		sleep 0.05
	done
}

q() {
	sqlite3 -batch -noheader -cmd ".timeout 5000" "$DB" "$1"
}

# paused_read FILE: read FILE whole in 64 KiB preads, stopping 1.5 s a
# third of the way in (a reader that pauses: its stream's clock goes on)
paused_read() {
	python3 - "$1" <<'PY'
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
size, off = os.fstat(fd).st_size, 0
while off < size:
    if off >= size // 3 and off - 65536 < size // 3:
        time.sleep(1.5)
    off += len(os.pread(fd, 65536, off))
PY
}

# try_mount NAME EXPECTED_SUBSTRING... -- ARGS: timelinefs -f ARGS (the
# mount point $T/mnt among them) must fail, saying every substring
try_mount() {
	name=$1
	shift
	pats=
	while [ "$1" != "--" ]; do
		pats="$pats
$1"
		shift
	done
	shift
	rc=0
	timeout 20 "$BIN" -f "$@" >"$T/out" 2>&1 || rc=$?
	if is_mounted "$T/mnt"; then
		fusermount3 -u -z "$T/mnt"
		not_ok "$name: mounted"
		return
	fi
	if [ "$rc" -eq 0 ]; then
		not_ok "$name: exit 0"
		return
	fi
	missing=
	echo "$pats" | while IFS= read -r p; do
		[ -z "$p" ] && continue
		grep -qF -- "$p" "$T/out" || echo "$p"
	done >"$T/missing"
	if [ -s "$T/missing" ]; then
		not_ok "$name: message lacks '$(head -1 "$T/missing")': $(cat "$T/out")"
	else
		ok "$name (exit $rc)"
	fi
}

# The storage and network labs (timelinefs-lab) with this test's own state
# folder: lab ARGS... runs it; lab_cleanup, a test's EXIT trap, takes
# every lab of that folder down, then cleans up as cleanup does.
LABSH=$TOP/mount-scripts/timelinefs-lab
lab() {
	sh "$LABSH" --state-dir "$T/state" "$@"
}
lab_cleanup() {
	set +e
	lab down --all >/dev/null 2>&1
	cleanup
}
