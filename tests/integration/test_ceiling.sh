#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: the bench's ceiling (tests/bench/ceiling.c, make bench section
# 12) serves exactly timelinefs's bytes: a timeline's map (its stream's
# backing reads, from timelinefs-export --fio-iolog) reads as the timeline
# and a clip file as itself, at several block sizes and from inside a
# frame, cached and direct_io, spliced and copied.  Replies that libfuse's
# pipe holds at the stock pipe-max-size splice (direct_io reads of 64 KiB
# and 300001 bytes, cached with readahead=128); larger ones are copied
# (the test leaves the machine-wide sysctl alone: other tests raise and
# restore it).  A map naming a missing file is refused at start, naming
# the log and its line.
. "$(dirname "$0")/lib.sh"

CEIL=$TLFS_BUILD/tests/bench/ceiling
[ -x "$CEIL" ] || { echo "missing $CEIL: make $CEIL" >&2; exit 1; }

M=$T/media
"$GEN" --clips 2 --clip-seconds 2 --timelines 1 --events 3 \
	--min-seconds 1 --max-seconds 1 --seed 11 "$M" >/dev/null
TL=$M/timelines/timeline01.tl
want=$($EXPECT sha256 "$TL" "$M")
size=$($EXPECT size "$TL")
clip=$(sha256sum <"$M/clip0001.V.raw" | cut -d' ' -f1)

# the map: one whole read of the timeline through timelinefs
DB=$T/t.db
mount_fs "$M" "$T/mnt" -o db="$DB",pace=off,backing=buffered
dd if="$T/mnt/timeline01" of=/dev/null bs=1M 2>/dev/null
umount_fs "$T/mnt"
sid=$(q "select id from stream where bytes = $size order by id limit 1")
"$TOP/mount-scripts/timelinefs-export" --fio-iolog "$DB" "$sid" \
	"$T/timeline01.iolog"

sha() { dd if="$1" bs="$2" 2>/dev/null | sha256sum | cut -d' ' -f1; }

# run NAME OPTS: mount the ceiling with OPTS and the map, check its bytes
run() {
	tlfs=$BIN
	BIN=$CEIL
	mount_fs "$M" "$T/mnt" -o "map=$T/timeline01.iolog${2:+,$2}"
	BIN=$tlfs
	for bs in 1M 300001 64k 4k; do
		check_eq "$1: the map at bs=$bs is the timeline's bytes" \
			"$want" "$(sha "$T/mnt/timeline01" $bs)"
	done
	check_eq "$1: the map from inside a frame" \
		"$(head -c "$size" "$T/mnt/timeline01" | tail -c +777778 | head -c 1000000 | sha256sum)" \
		"$(dd if="$T/mnt/timeline01" bs=1000000 skip=777777 iflag=skip_bytes count=1 2>/dev/null | sha256sum)"
	for bs in 1M 4k; do
		check_eq "$1: a clip file at bs=$bs is itself" "$clip" \
			"$(sha "$T/mnt/clip0001.V.raw" $bs)"
	done
	check_eq "$1: the map's size" "$size" \
		"$(stat -c %s "$T/mnt/timeline01")"
	umount_fs "$T/mnt"
}

run cached ""
run cached-ra128 "readahead=128"
run cached-copy "splice=off"
run direct_io "direct_io"
run direct_io-copy "direct_io,splice=off"

# a map whose source is gone: refused at start, naming the log and line
sed 's|clip0001.V.raw read|nosuch.raw read|' "$T/timeline01.iolog" \
	>"$T/bad.iolog"
line=$(grep -n 'nosuch.raw read' "$T/bad.iolog" | head -1 | cut -d: -f1)
rc=0
timeout 20 "$CEIL" -f -o "map=$T/bad.iolog" "$M" "$T/mnt" >"$T/out" 2>&1 ||
	rc=$?
check "a missing source: not mounted" sh -c "! grep -q ' $T/mnt fuse' /proc/mounts"
check "a missing source: exit status not 0 ($rc)" test "$rc" -ne 0
check "a missing source: says the log, its line and the file" \
	grep -q "bad.iolog:$line: cannot open .*nosuch.raw: No such file" "$T/out"

finish
