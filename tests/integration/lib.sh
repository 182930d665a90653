# SPDX-License-Identifier: MIT
# Shared helpers of the mounted tests (sourced): a private temporary
# directory, mounts that are always unmounted (EXIT trap), daemons that are
# always stopped, and ok/not ok accounting ending in "N passed, N failed".
set -eu

: "${TLFS_BUILD:=$(cd "$(dirname "$0")/../.." && pwd)/build}"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$TLFS_BUILD/timelinefs
GEN=$TLFS_BUILD/timelinefs-gen
EXPECT="python3 $TOP/tests/tools/tlexpect.py"
PASS=0
FAIL=0
MOUNTS=
PIDS=

if [ ! -e /dev/fuse ] || ! command -v fusermount3 >/dev/null 2>&1; then
	echo "skip: no /dev/fuse or fusermount3"
	exit 77
fi
for f in "$BIN" "$GEN"; do
	[ -x "$f" ] || { echo "missing $f: run make first" >&2; exit 1; }
done

T=$(mktemp -d "${TMPDIR:-/tmp}/tlfs-test.XXXXXX")

cleanup() {
	set +e
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
	# readers started by a test are its children: leave none behind
	pkill -P $$ 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
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

# check NAME COMMAND...: ok when the command succeeds
check() {
	name=$1
	shift
	if "$@"; then ok "$name"; else not_ok "$name"; fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1: expected '$2', got '$3'"
	fi
}

finish() {
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ]
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
	"$BIN" -f "$@" "$media" "$mnt" >"$T/daemon.log" 2>&1 &
	DAEMON=$!
	PIDS="$PIDS $DAEMON"
	MOUNTS="$MOUNTS $mnt"
	i=0
	while ! is_mounted "$mnt"; do
		if ! kill -0 "$DAEMON" 2>/dev/null; then
			echo "daemon exited:" >&2
			cat "$T/daemon.log" >&2
			return 1
		fi
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "mount timed out" >&2; return 1; }
		sleep 0.1
	done
}

# wait_daemon PID [seconds]: wait for a daemon to exit; 1 if it does not.
wait_daemon() {
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

q() {
	sqlite3 -batch -noheader -cmd ".timeout 5000" "$DB" "$1"
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
