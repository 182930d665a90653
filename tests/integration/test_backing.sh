#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: what -o backing= promises, checked from outside the daemon.
# backing=direct opens the clip files O_DIRECT on a disk file system
# (/proc/PID/fdinfo while a reader holds the timeline open); where the
# media's file system refuses O_DIRECT (ramfs; tmpfs before Linux 6.6) the
# daemon says so at start and reads buffered.  backing=dontneed leaves no
# page of the clips in the page cache once the stream is over (mincore),
# where backing=buffered leaves them.  And a timeline past 4 GiB reads
# byte for byte around 2^32, cached and under -o direct_io.  Bytes are
# checked against tests/tools/tlexpect.py.  Needs root for the loop image
# (when TMPDIR is not on a disk) and for ramfs; a part that cannot run
# is a skip (lib.sh's skip_case: under CI=true it fails).
. "$(dirname "$0")/lib.sh"

PC="python3 $TOP/tests/tools/pagecache.py"
X=$(mktemp -d "${TMPDIR:-/tmp}/tlfs-backing.XXXXXX")
XMOUNTS=
# the daemons (lib.sh's cleanup) first: they hold files on X's mounts
cleanup_backing() {
	cleanup
	for m in $XMOUNTS; do
		umount "$m" 2>/dev/null
	done
	rm -rf "$X"
}
trap cleanup_backing EXIT

# direct_ok DIR: a file in DIR opens with O_DIRECT
direct_ok() {
	: >"$1/probe"
	python3 -c 'import os, sys
os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT))' "$1/probe" \
		2>/dev/null
	r=$?
	rm -f "$1/probe"
	return $r
}

# a disk file system for the media: TMPDIR's where it is one, else a small
# ext4 image on a loop device (tmpfs takes O_DIRECT too since Linux 6.6,
# but it is memory: the test would prove nothing)
DISK=
fstype=$(stat -f -c %T "$X")
case $fstype in
tmpfs | ramfs) ;;
*) direct_ok "$X" && DISK=$X/disk && mkdir "$DISK" ;;
esac
if [ -z "$DISK" ] && [ "$(id -u)" -eq 0 ] && command -v mkfs.ext4 >/dev/null; then
	truncate -s 64M "$X/ext4.img"
	mkdir "$X/disk"
	if mkfs.ext4 -q -F "$X/ext4.img" >/dev/null 2>&1 &&
		mount -o loop "$X/ext4.img" "$X/disk"; then
		XMOUNTS="$XMOUNTS $X/disk"
		DISK=$X/disk
		fstype="ext4 on a loop device ($fstype below)"
	fi
fi

# clip_fds: "ALL DIRECT", the daemon's open fds on clip files of $M
# and how many of them have O_DIRECT (040000) in their fdinfo flags
clip_fds() {
	all=0
	dir=0
	for fd in /proc/"$DAEMON"/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in
		"$M"/clip*) ;;
		*) continue ;;
		esac
		flags=$(sed -n 's/^flags:[[:space:]]*//p' \
			"/proc/$DAEMON/fdinfo/${fd##*/}" 2>/dev/null)
		[ -n "$flags" ] || continue
		all=$((all + 1))
		[ $((0$flags & 040000)) -eq 0 ] || dir=$((dir + 1))
	done
	echo "$all $dir"
}

# hold_read NAME: read timeline01 whole (dd bs=1M) through a descriptor
# this shell keeps open, so that the stream and its clip fds live on; sets
# SHA and FDS (clip_fds while it is open); closes it
hold_read() {
	exec 3<"$T/mnt/timeline01"
	SHA=$(dd bs=1M <&3 2>/dev/null | sha256sum | cut -d' ' -f1)
	FDS=$(clip_fds)
	exec 3<&-
}

# gen_media DIR [OPTION...]: two clips of 3 s at 4 MB/s, one 4 s timeline
# of both (three tracks: six clip files)
gen_media() {
	dir=$1
	shift
	"$GEN" --clips 2 --clip-seconds 3 --timelines 1 --events 2 \
		--min-seconds 2 --max-seconds 2 --video-rate 4M --seed 13 \
		"$@" "$dir" >/dev/null
}

# clips_of: the clip files $TL plays in $M, one word each
clips_of() {
	sed -n 's/^event [^ ]* \([^ ]*\) .*/\1/p' "$TL" | sort -u |
		while read -r c; do printf '%s ' "$M/$c".*; done
}

# ---- backing=direct on a disk, backing=dontneed, backing=buffered
if [ -n "$DISK" ]; then
	echo "# media on $fstype"
	M=$DISK/media
	gen_media "$M"
	TL=$M/timelines/timeline01.tl
	want=$($EXPECT sha256 "$TL" "$M")
	CLIPS=$(clips_of)
	nfiles=$(echo "$CLIPS" | wc -w)

	DB=$T/direct.db
	mount_fs "$M" "$T/mnt" -o db="$DB",backing=direct,pace=off
	hold_read
	check_eq "direct: bytes exact" "$want" "$SHA"
	check_eq "direct: all $nfiles clip files open, every one O_DIRECT (open, O_DIRECT: $FDS)" \
		"$nfiles $nfiles" "$FDS"
	check "direct: no O_DIRECT warning" \
		test -z "$(grep 'refuses O_DIRECT' "$T/daemon.log")"
	umount_fs "$T/mnt"

	# resident MODE: drop the clips' page cache, play the timeline with
	# backing=MODE, end the stream (unmount) and print the clips' bytes
	# in the page cache, then their size (CLIPS: one word per file)
	# shellcheck disable=SC2086
	resident() {
		$PC drop $CLIPS
		DB=$T/$1.db
		mount_fs "$M" "$T/mnt" -o db="$DB",backing="$1",pace=off
		SHA=$(dd if="$T/mnt/timeline01" bs=1M 2>/dev/null |
			sha256sum | cut -d' ' -f1)
		umount_fs "$T/mnt"
		$PC resident $CLIPS
	}
	r=$(resident buffered)
	check_eq "buffered: bytes exact" "$want" "$SHA"
	# what a full read touched stays (here 2 of the 3 s of each clip,
	# and the readahead around it)
	check "buffered: the clips stay in the page cache (${r% *} of ${r#* } bytes)" \
		test "${r% *}" -ge $((${r#* } / 3))
	r=$(resident dontneed)
	check_eq "dontneed: bytes exact" "$want" "$SHA"
	# nothing, but a page per file would be no regression
	check "dontneed: the clips are out of the page cache (${r% *} of ${r#* } bytes)" \
		test "${r% *}" -le $((nfiles * 4096))
else
	skip_case "backing=direct and dontneed on a disk: $X is $fstype and no loop image could be made (needs root and mkfs.ext4)"
fi

# ---- backing=direct where O_DIRECT is refused: a warning, buffered reads
R=
if [ "$(id -u)" -eq 0 ]; then
	for fs in tmpfs ramfs; do
		mkdir -p "$X/$fs"
		mount -t "$fs" -o size=64m "tlfs-backing-$fs" "$X/$fs" ||
			continue
		XMOUNTS="$XMOUNTS $X/$fs"
		if ! direct_ok "$X/$fs"; then
			R=$X/$fs
			break
		fi
		umount "$X/$fs"
	done
fi
if [ -n "$R" ]; then
	echo "# media on ${R##*/}, which refuses O_DIRECT"
	M=$R/media
	# ramfs says 0 bytes free
	gen_media "$M" --force
	TL=$M/timelines/timeline01.tl
	nfiles=$(clips_of | wc -w)
	DB=$T/refused.db
	mount_fs "$M" "$T/mnt" -o db="$DB",backing=direct,pace=off
	check "refused: the daemon warns at start" \
		grep -q "warning: $M refuses O_DIRECT; using backing=buffered" \
		"$T/daemon.log"
	hold_read
	check_eq "refused: bytes exact" "$($EXPECT sha256 "$TL" "$M")" "$SHA"
	check_eq "refused: all $nfiles clip files open, buffered (open, O_DIRECT: $FDS)" \
		"$nfiles 0" "$FDS"
	umount_fs "$T/mnt"
else
	skip_case "backing=direct where O_DIRECT is refused: needs root to mount a ramfs"
fi

# ---- a timeline past 4 GiB: one 7-frame clip 629 times (4.4 GB from
# 7 MB); frames of 1005763 bytes, so that 2^32 falls inside a frame and no
# offset modulo 2^32 reads the same bytes
B=$T/big
mkdir -p "$B"
{
	echo "fps 25"
	echo "track V 25000075"
	echo "track A1 144000 align=3"
	i=0
	while [ $i -lt 629 ]; do
		echo "event V,A1 loop 0 7"
		i=$((i + 1))
	done
} >"$B/huge.tl"
"$GEN" --for "$B/huge.tl" "$B/media" >/dev/null
M=$B/media
TL=$M/timelines/huge.tl
G4=4294967296
size=$($EXPECT size "$TL")
# the first frame boundary past 2^32
fb=$(python3 -c 'import sys
sys.path.insert(0, sys.argv[1])
import tlexpect
tl = tlexpect.parse_tl(sys.argv[2])
print(tl.offset(tlexpect.first_frame(tl, 1 << 32) + 1))' \
	"$TOP/tests/tools" "$TL")
check "huge: the timeline is past 4 GiB ($size bytes)" test "$size" -gt $((G4 + 8 * 1048576))

# reads at offsets around 2^32: NAME OFFSET LENGTH BS; the expected bytes
# of each from tlexpect, once
READS="just_below_2^32 $((G4 - 65536)) 65536 64k
across_2^32 $((G4 - 1000)) 5000 4k
1_MiB_across_2^32 $((G4 - 524288)) 1048576 1M
just_above_2^32 $((G4 + 12345)) 100000 512
from_the_first_frame_boundary_past_2^32 $fb 1048576 1M
across_that_frame_boundary $((fb - 3)) 10 4k"
i=0
echo "$READS" | while read -r _ off len _; do
	i=$((i + 1))
	$EXPECT bytes "$TL" "$M" --offset "$off" --length "$len" >"$T/want$i"
done
for mode in cached direct_io; do
	DB=$T/huge-$mode.db
	o=db="$DB",pace=off
	[ $mode = cached ] || o=$o,direct_io
	mount_fs "$M" "$T/mnt" -o "$o"
	check_eq "huge $mode: size" "$size" "$(stat -c %s "$T/mnt/huge")"
	i=0
	while read -r name off len bs; do
		i=$((i + 1))
		dd if="$T/mnt/huge" of="$T/got" bs="$bs" skip="$off" \
			count="$len" iflag=skip_bytes,count_bytes 2>/dev/null
		check "huge $mode: $(echo "$name" | tr _ ' ') (offset $off, $len bytes, bs=$bs) bytes exact" \
			cmp -s "$T/want$i" "$T/got"
	done <<EOF2
$READS
EOF2
	umount_fs "$T/mnt"
done
finish
