#!/bin/sh
# SPDX-License-Identifier: MIT
# Regression (issue 17, defect 5): a stream's memory and open files had no
# bound.  Its ring is frame_bytes_max x (spanned + buffer), touched at
# open, so -o buffer=10000 or a typo like video_rate=18G mounted and then
# cost gigabytes per open (the OOM killer, not an error); now the mount is
# refused at start, naming the timeline, the bytes a stream needs and
# -o stream_mem.  And a stream kept every clip file it played open: 300
# clips (600 files) under a low `ulimit -n` failed with EIO mid-play once
# EMFILE came; now at most -o stream_files stay open, an EMFILE closes the
# least recently used and retries, and the bytes are exact (tlexpect.py).
. "$(dirname "$0")/lib.sh"

M=$T/media
mkdir -p "$T/mnt"
# V a rate track of 18 MB/s, the seed before it had pictures: the sizes
# below are its frames'
"$GEN" --clips 2 --clip-seconds 2 --timelines 1 --events 2 \
	--min-seconds 0.5 --max-seconds 1 --video-rate 18M "$M" >/dev/null

# refused NAME DB PATTERN... -- ARGS: the mount must fail at start, with
# every pattern in its message, and record the refusal in DB
refused() {
	name=$1
	db=$2
	shift 2
	n=$FAIL
	try_mount "$name" "$@" -o db="$db" "$T/mnt"
	[ "$FAIL" -eq "$n" ] || return 0
	DB=$db
	check_eq "$name: recorded as the run's problem" \
		"$(grep -F "needs" "$T/out")" "$(q "select message from problem")"
}

TL=$M/timelines/timeline01.tl
# 18 MB/s frames are 610212 bytes; 10006 of them (and the tables, and 8
# bytes a slot for the frames handed to the reader) a stream
refused "buffer=10000 is refused at start" "$T/buf.db" \
	"$TL: each stream of this timeline needs 61066" \
	"a ring of 10006 frames of up to 595.9 KiB, buffer=10000" \
	"more than stream_mem=268435456 (256.0 MiB); raise -o stream_mem" \
	"not mounting" -- -o buffer=10000 "$M"
refused "a lower stream_mem refuses buffer=100" "$T/low.db" \
	"$TL: each stream" "stream_mem=33554432 (32.0 MiB)" -- \
	-o buffer=100,stream_mem=32Mi "$M"
# a stream that fits stream_mem but not all of streams_mem: its own message
# (each stream's memory counted once, compared with both limits)
try_mount "streams_mem below a stream is refused at start" \
	"$TL: no stream of this timeline fits streams_mem=1048576; raise -o streams_mem" \
	"not mounting" -- -o streams_mem=1Mi,db="$T/all.db" "$M" "$T/mnt"
# a reader of NAME.mov prerolls: its ring has the preroll's frames more
# (10 s: 300 frames of 609 KiB at 30 fps: 187.5 MiB), and a stream_mem that
# holds a stream of NAME (8.9 MiB) but not that is refused at start, not
# at the player's open
P=$T/pic
"$GEN" --clips 2 --clip-seconds 2 --timelines 1 --events 2 \
	--min-seconds 0.5 --max-seconds 1 "$P" >/dev/null
try_mount "a preroll whose ring does not fit stream_mem is refused at start" \
	"$P/timelines/timeline01.tl: each reader of its timeline01.mov needs" \
	"buffer=8 and a preroll of 300 frames" "lower -o preroll" \
	"not mounting" -- -o preroll=10,stream_mem=64Mi,db="$T/pre.db" "$P" "$T/mnt"
if mount_fs "$P" "$T/mnt" -o preroll=10,stream_mem=256Mi,pace=off,db="$T/pre.db"; then
	# tests/tools/tlmov writes the same movie from the clip files
	"$TLFS_BUILD/tests/tools/tlmov" "$P" "$P/timelines/timeline01.tl" \
		"$T/pre.mov" >/dev/null
	check_eq "the same preroll under a stream_mem that holds it plays, bytes exact" \
		"$(sha256sum <"$T/pre.mov" | cut -d' ' -f1)" \
		"$(sha256sum <"$T/mnt/timeline01.mov" | cut -d' ' -f1)"
	umount_fs "$T/mnt"
else
	not_ok "preroll=10 under stream_mem=256Mi mounts"
fi
rm -rf "$P"

# video_rate=18G (18 GB/s) in an EDL: frames of 600 MB.  The clip file is
# sparse, long enough for the edit, so that only the memory is wrong.
E=$T/edl
mkdir -p "$E/timelines"
cat >"$E/timelines/reel1.edl" <<'EDL'
TITLE: reel1
FCM: NON-DROP FRAME
001  clipa    V     C        00:00:00:00 00:00:00:10 00:00:00:00 00:00:00:10
EDL
truncate -s 7G "$E/clipa.V.raw"
refused "video_rate=18G is refused at start" "$T/rate.db" \
	"$E/timelines/reel1.edl: each stream of this timeline needs" \
	"a ring of 11 frames of up to 572.8 MiB, buffer=8" \
	"raise -o stream_mem" -- -o video_rate=18G "$E"
rm -f "$E/clipa.V.raw"

# what the limit allows mounts, and plays
if mount_fs "$M" "$T/mnt" -o buffer=100,stream_mem=128Mi,pace=off,db="$T/ok.db"; then
	check_eq "buffer=100 under stream_mem=128Mi plays, bytes exact" \
		"$($EXPECT sha256 "$TL" "$M")" \
		"$(sha256sum <"$T/mnt/timeline01" | cut -d' ' -f1)"
	umount_fs "$T/mnt"
else
	not_ok "buffer=100 under stream_mem=128Mi mounts"
fi

# -o streams_mem: one budget for every stream of the mount.  Before it
# nothing bounded the total, and any process named smbd (prctl
# PR_SET_NAME, as here) got a 16 MiB window a stream (16 such streams took
# 362 MB against 118 MB named dd).  need: one dd stream's bytes, from a
# refusal's figure; the budget holds 2.5 of them: 2 opens fit, the third
# gets ENOMEM and a log line, a close makes room; a process named smbd
# beside one stream gets its stream without the window (it would not
# fit), saying so; a second smbd stream fits not even so, and its refusal
# names its need without the window, the figure it was refused on.
# A close is released asynchronously: the open after one may reach the
# daemon before the release has given the memory back (some 2-5 ms for a
# stream not read, 70 ms for one read at the realtime pace), and fail
# there, as it would with ext4 or tmpfs media alike; so the opens after a
# close try again on ENOMEM, for up to 10 s, saying how long they took.
try_mount "stream_mem=1 says a stream's need" "each stream of this timeline needs" -- \
	-o stream_mem=1,db="$T/need.db" "$M" "$T/mnt"
need=$(sed -n 's/.*each stream of this timeline needs \([0-9]*\) bytes.*/\1/p' "$T/out" | head -1)
if [ -n "$need" ] && mount_fs "$M" "$T/mnt" -o streams_mem=$((need * 5 / 2)),db="$T/sm.db"; then
	python3 - "$T/mnt/timeline01" "$T/waits" >"$T/opens" 2>&1 <<'PY'
import ctypes, errno, os, sys, time
def try_open():
    try:
        return os.open(sys.argv[1], os.O_RDONLY)
    except OSError as e:
        return -e.errno
def after_close(what):
    t = time.monotonic()
    fd = try_open()
    while fd == -errno.ENOMEM and time.monotonic() - t < 10:
        time.sleep(0.005)
        fd = try_open()
    with open(sys.argv[2], "a") as w:
        w.write("%s: %.1f ms\n" % (what, (time.monotonic() - t) * 1000))
    return fd
a, b, c = try_open(), try_open(), try_open()
print("dd-like: %s %s %s" % (a >= 0, b >= 0, errno.errorcode.get(-c, c) if c < 0 else c))
if b >= 0:
    os.close(b)
d = after_close("after a close")
print("after a close: %s" % (d >= 0))
if d >= 0:
    os.close(d)
ctypes.CDLL(None).prctl(15, b"smbd", 0, 0, 0)
e = after_close("as smbd")
print("as smbd beside one: %s" % (e >= 0))
# past the daemon's one refusal line a second
time.sleep(1.1)
f = try_open()
print("a second smbd: %s" % (errno.errorcode.get(-f, f) if f < 0 else f))
for fd in (a, e, f):
    if fd >= 0:
        os.close(fd)
PY
	check_eq "streams_mem=2.5 streams: 2 opens, the third ENOMEM, one after a close, smbd's without its window, a second smbd's ENOMEM" \
		"dd-like: True True ENOMEM|after a close: True|as smbd beside one: True|a second smbd: ENOMEM" \
		"$(tr '\n' '|' <"$T/opens" | sed 's/|$//')"
	sed 's/^/# an open /' "$T/waits"
	umount_fs "$T/mnt"
	check "the refusal's log line names the file, reader, need and budget" \
		grep -q "cannot open timeline01 for python3\[[0-9]*\]: its stream needs [0-9.]* MiB and the open streams take [0-9.]* MiB of streams_mem=[0-9.]* MiB (ENOMEM; 1 open refused so); raise -o streams_mem" "$T/daemon.log"
	check "smbd's window given up, said" \
		grep -q "timeline01 by smbd\[[0-9]*\]: no 16 MiB window of reads in flight .*: served as one read at a time" "$T/daemon.log"
	# the window given up, a smbd stream takes what a dd stream does
	check "a second smbd's refusal says the need it was refused on, $need bytes without the window" \
		grep -q "cannot open timeline01 for smbd\[[0-9]*\]: its stream needs $(awk "BEGIN { printf \"%.1f\", $need / 1048576 }") MiB and the open streams take " "$T/daemon.log"
else
	not_ok "a stream's need from stream_mem=1 ($need), and a mount with streams_mem"
fi

# frames_in_flight=4: four loader threads read the frames, still served
# byte-exact, and every frame played once, its rows recorded in order
if mount_fs "$M" "$T/mnt" -o frames_in_flight=4,pace=4,backing=buffered,db="$T/fif.db"; then
	check_eq "frames_in_flight=4 plays, bytes exact" \
		"$($EXPECT sha256 "$TL" "$M")" \
		"$(sha256sum <"$T/mnt/timeline01" | cut -d' ' -f1)"
	umount_fs "$T/mnt"
	DB=$T/fif.db
	check_eq "frames_in_flight=4: rows in frame order, each frame played once" \
		"0 $(q "select frames from stream")" \
		"$(q "select count(*) from access a join access b on b.id = a.id + 1 where b.frame < a.frame") $(q "select count(distinct frame) from access where played = 1")"
else
	not_ok "frames_in_flight=4 mounts"
fi

bad=0
for o in stream_mem=0 stream_mem=lots stream_files=0 stream_files=x \
	frames_in_flight=0 frames_in_flight=65 frames_in_flight=4x; do
	timeout 20 "$BIN" -f -o "$o,db=$T/bad.db" "$M" "$T/mnt" \
		>"$T/out" 2>&1 && bad=1
	grep -qF "bad ${o%%=*} '${o#*=}'" "$T/out" || bad=1
done
check_eq "bad stream_mem, stream_files and frames_in_flight are refused, named" 0 "$bad"

# 300 clips, 2 frames each on V and A1, then 30 of them again: 600 files
C=$T/clips
mkdir -p "$C/timelines"
awk 'BEGIN {
	print "fps 25"
	print "track V 25000"
	print "track A1 2400 align=3"
	for (i = 1; i <= 300; i++)
		printf "event V,A1 c%03d 0 2\n", i
	for (i = 1; i <= 300; i += 10)
		printf "event V,A1 c%03d 0 2\n", i
}' >"$C/timelines/many.tl"
"$GEN" --for "$C/timelines/many.tl" "$C" >/dev/null
check_eq "the timeline plays 600 clip files" 600 \
	"$(find "$C" -maxdepth 1 -name 'c*.*' | wc -l)"
WANT=$($EXPECT sha256 "$C/timelines/many.tl" "$C")

# play_many LABEL DB N: read /many N times at once (the first in cached
# mode, the others with direct_io), compare each, check no access failed
play_many() {
	DB=$2
	pids=
	i=1
	while [ "$i" -le "$3" ]; do
		dd if="$T/mnt/many" bs=$((i * 64))k 2>/dev/null |
			sha256sum >"$T/r$i.sum" &
		pids="$pids $!"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086
	wait $pids
	i=1
	while [ "$i" -le "$3" ]; do
		check_eq "$1: reader $i's bytes are exact" "$WANT  -" \
			"$(cat "$T/r$i.sum")"
		i=$((i + 1))
	done
	umount_fs "$T/mnt"
	check_eq "$1: every access succeeded, none failed" "$3|0|0" \
		"$(q "select count(*), sum(failed_frames),
			(select count(*) from access where errno != 0)
			from stream")"
}

if mount_fs "$C" "$T/mnt" -o stream_files=4,pace=off,backing=buffered,db="$T/m1.db"; then
	play_many "stream_files=4" "$T/m1.db" 2
else
	not_ok "stream_files=4 mounts"
fi

# The daemon under a low open file limit, hard too so that it cannot
# raise it: about 37 fds left for streams.
cat >"$T/lowfd" <<EOF
#!/bin/sh
ulimit -n 48
exec "$BIN" "\$@"
EOF
chmod +x "$T/lowfd"
REAL=$BIN
# lowfd_mount DB[,OPTIONS]: 0 when mounted
lowfd_mount() {
	BIN=$T/lowfd
	rc=0
	mount_fs "$C" "$T/mnt" -o pace=off,backing=buffered,db="$1" || rc=1
	BIN=$REAL
	[ "$rc" -eq 0 ] || not_ok "mount under ulimit -n 48 with $1"
	return "$rc"
}

# the default under that limit: 8 files a stream, so 3 streams fit
if lowfd_mount "$T/m3.db"; then
	check_eq "the daemon runs under ulimit -n 48" 48 \
		"$(sed -n 's/^Max open files *\([0-9]*\) .*/\1/p' "/proc/$DAEMON/limits")"
	play_many "ulimit -n 48, the default stream_files" "$T/m3.db" 3
	check "ulimit -n 48, the default stream_files: the limit was not met" \
		sh -c "! grep -q 'open file limit' '$T/daemon.log'"
fi

# stream_files above it: the stream meets EMFILE, closes its own least
# recently used files and retries, and the daemon says so at its close
if lowfd_mount "$T/m2.db",stream_files=1000; then
	play_many "ulimit -n 48, stream_files=1000" "$T/m2.db" 1
	check "ulimit -n 48, stream_files=1000: the daemon says the limit was met" \
		grep -q "a stream of many met the open file limit [0-9]* times (EMFILE)" \
		"$T/daemon.log"
fi

finish
