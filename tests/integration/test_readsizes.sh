#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: every read size works for every frame size.  Regression for
# issue 17 defect 1: a timeline of 800-byte audio frames under -o direct_io,
# `dd bs=1M` failed at once with E2BIG (a 1 MiB reply of 1310 frames took
# more iovecs than writev's 1024), and a read of exactly 1024 frames hung:
# its reply took 1025 iovecs with libfuse's header, writev refused it
# (EINVAL), the daemon ignored that and the request was never answered.
# Expected now: bytes exact against tlexpect.py for frames of ~800 bytes,
# of 1 byte and of 6 MB, read with dd bs=512, 4k, 1M and 8M, cached and
# direct_io, and no reply the daemon failed to send.
. "$(dirname "$0")/lib.sh"

M=$T/media
mkdir -p "$T/src"
# the issue's audio-only timeline: 24000 B/s in 3-byte units at 29.97,
# frames of 798 and (mostly) 801 bytes
cat >"$T/src/audio.tl" <<'TL'
fps 30000/1001
track A1 24000 align=3
event A1 a 0 1500
TL
# frames of 798 bytes, 801 one in ten: few fill their ring slot, so a
# 1 MiB request stays ~1180 iovecs even where neighbours join
cat >"$T/src/audio_odd.tl" <<'TL'
fps 30
track A1 23949 align=3
event A1 b 0 1500
TL
# one byte of video a frame, two one frame in a thousand
cat >"$T/src/byte.tl" <<'TL'
fps 30000/1001
track V 30
event V c 0 6000
TL
# exactly one byte every frame
cat >"$T/src/byte30.tl" <<'TL'
fps 30
track V 30
event V c 0 3000
TL
# frames of 6 MB, larger than any request
cat >"$T/src/big.tl" <<'TL'
fps 25
track V 150M
event V d 0 4
TL
"$GEN" --for "$T/src/audio.tl" --for "$T/src/audio_odd.tl" \
	--for "$T/src/byte.tl" --for "$T/src/byte30.tl" --for "$T/src/big.tl" \
	"$M" >/dev/null
NAMES="audio audio_odd byte byte30 big"
for n in $NAMES; do
	$EXPECT sha256 "$M/timelines/$n.tl" "$M" >"$T/$n.sha"
done
# result OUT: sha256 of OUT, or what went wrong with the reader
result() {
	if [ -e "$T/hung" ]; then
		echo hung
	elif [ -s "$1.err" ]; then
		echo "failed: $(head -1 "$1.err")"
	else
		sha256sum <"$1" | cut -d' ' -f1
	fi
}

# bytes of the first 1024 frames of audio.tl: upto(1024), docs/design.md
FRAMES1024=$(python3 -c 'print(1024 * 24000 * 1001 // (30000 * 3) * 3)')

LOGS=$T/daemons.log
: >"$LOGS"
DB=$T/r.db

# remount: a fresh daemon with $OPTS after one was killed
remount() {
	cat "$T/daemon.log" >>"$LOGS"
	mount_fs "$M" "$T/mnt" -o "$OPTS"
}

# within SECONDS OUT CMD...: CMD's output into OUT, its errors into
# OUT.err; its status, or 1 and a file $T/hung if it has not ended within
# SECONDS.  A request never answered holds its reader in an
# uninterruptible sleep that not even SIGKILL ends: then kill the daemon,
# which aborts the connection and frees the reader, and mount again for
# the checks that follow.
within() {
	secs=$1
	out=$2
	shift 2
	rm -f "$T/hung"
	"$@" >"$out" 2>"$out.err" &
	rp=$!
	i=0
	while kill -0 "$rp" 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -gt $((secs * 10)) ]; then
			: >"$T/hung"
			kill -9 "$DAEMON"
			fusermount3 -u -z "$T/mnt"
			wait "$rp" 2>/dev/null
			wait_daemon "$DAEMON" 5
			remount
			return 1
		fi
		sleep 0.1
	done
	wait "$rp"
}

for mode in cached direct_io; do
	OPTS=pace=off,backing=buffered,record=off,db=$DB
	[ "$mode" = direct_io ] && OPTS=$OPTS,direct_io
	mount_fs "$M" "$T/mnt" -o "$OPTS"
	for n in $NAMES; do
		for bs in 512 4k 1M 8M; do
			within 20 "$T/out" \
				dd if="$T/mnt/$n" bs=$bs status=none || true
			got=$(result "$T/out")
			check_eq "$mode: dd bs=$bs of $n: bytes" "$(cat "$T/$n.sha")" "$got"
		done
	done
	if [ "$mode" = direct_io ]; then
		# one request of exactly 1024 frames (FS_IOV_MAX + 1 iovecs
		# with the header, before the fix)
		want=$($EXPECT bytes "$M/timelines/audio.tl" "$M" \
			--length "$FRAMES1024" | sha256sum | cut -d' ' -f1)
		within 20 "$T/out" python3 -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
sys.stdout.buffer.write(os.pread(fd, int(sys.argv[2]), 0))
' "$T/mnt/audio" "$FRAMES1024" || true
		got=$(result "$T/out")
		check_eq "$mode: one read of 1024 frames of audio: bytes" "$want" "$got"
	fi
	umount_fs "$T/mnt"
	cat "$T/daemon.log" >>"$LOGS"
done

check_none "every reply was sent (daemon logs)" \
	"$(grep -E 'cannot reply|cannot send|writing device|Sanitizer|runtime error' "$LOGS" | sort | uniq -c)"
finish
