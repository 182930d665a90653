#!/bin/sh
# SPDX-License-Identifier: MIT
# Zero copy against the ring on the same media: two mounts of MEDIA
# (pace=off, backing=buffered, OPTS), one -o splice=auto and one
# splice=off, each reading timeline01 whole with dd bs=1M in turn
# (auto then off, then off then auto, ...), ROUNDS rounds (6); per round
# each side's MB/s and its daemon's CPU per GB; then cmp of the two
# files.  Not part of make bench: for media the bench's ceiling cannot
# serve (image sequences):
# TLFS_BUILD=build sh tests/bench/splice-ab.sh MEDIA [OPTS [ROUNDS]]
set -eu

: "${TLFS_BUILD:?the build folder}"
TLFS_BUILD=$(cd "$TLFS_BUILD" && pwd)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
M=$(cd "${1:?usage: splice-ab.sh MEDIA [OPTS [ROUNDS]]}" && pwd)
OPTS=${2:-}
ROUNDS=${3:-6}
W=$(mktemp -d /tmp/splice-ab.XXXXXX)
A=''
B=''
done_ab() {
	set +e
	for m in a b; do
		grep -q " $W/$m fuse" /proc/mounts && fusermount3 -u -z "$W/$m"
	done
	[ -z "$A" ] || kill "$A" 2>/dev/null
	[ -z "$B" ] || kill "$B" 2>/dev/null
	wait
	rm -rf "$W"
}
trap done_ab EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$W/a" "$W/b"
# wait_mounted, cpu_of, now
# shellcheck source=tests/bench/mount.sh
. "$TOP/tests/bench/mount.sh"
# the media into the page cache (a clip of a sequence is a folder)
find "$M" -path "$M/clip*" -type f -exec cat {} + >/dev/null
# mount SIDE SPLICE: the daemon's pid
mount_side() {
	"$TLFS_BUILD/timelinefs" -f -o "db=$W/$1.db,pace=off,backing=buffered,splice=$2${OPTS:+,$OPTS}" \
		"$M" "$W/$1" >"$W/$1.log" 2>&1 &
	echo $!
}
A=$(mount_side a auto)
B=$(mount_side b off)
wait_mounted "$W/a" "$A" "$W/a.log"
wait_mounted "$W/b" "$B" "$W/b.log"
# rd SIDE PID: "MB/s CPU-s/GB" of one whole read
rd() {
	c0=$(cpu_of "$2")
	s=$(now)
	LC_ALL=C dd if="$W/$1/timeline01" of=/dev/null bs=1M 2>"$W/dd.err"
	e=$(now)
	c1=$(cpu_of "$2")
	echo "$(awk '/copied/ { print $1 }' "$W/dd.err") $s $e $c0 $c1" |
		awk '{ printf "%.0f %.3f", $1 / ($3 - $2) / 1e6, ($5 - $4) / ($1 / 1e9) }'
}
r=1
while [ $r -le "$ROUNDS" ]; do
	if [ $((r % 2)) = 1 ]; then x=$(rd a "$A"); y=$(rd b "$B"); else y=$(rd b "$B"); x=$(rd a "$A"); fi
	echo "round $r: splice=auto ${x% *} MB/s ${x#* } s/GB, splice=off ${y% *} MB/s ${y#* } s/GB"
	r=$((r + 1))
done
if ! cmp -s "$W/a/timeline01" "$W/b/timeline01"; then
	echo "splice=auto and splice=off differ" >&2
	exit 1
fi
echo "the same bytes"
grep -h "zero copy" "$W/a.log" || true
