#!/bin/sh
# SPDX-License-Identifier: MIT
# Ingest (issue 23, docs/design.md "Ingest"), mounted, in the seed preset
# (the smallest: 624 KB a frame): what a writer sends to MOUNT/ingest/NAME
# lands byte for byte in MEDIA_DIR/ingest/NAME.V.raw, NAME.A1.wav ... at
# write sizes 512, 4 KiB, 1 MiB and odd ones that straddle frames, WAV
# headers patched at close; the stream is a record stream in the database
# and .status; delays injected into the storage (-o inject=...:op=fsync
# on every 10th frame, op=write on every frame) drop exactly the frames
# the capture buffer cannot absorb; pace=realtime accepts N s of frames in
# N s; kill -9 mid-record, then a remount repairs the files to their last
# whole frame (ffprobe reads the WAV), sets aside what it cut, keeps the
# database and completes the killed run's stream row; a second mount of
# the folder started while the first records leaves that recording alone
# (it used to cut it: a frame of zeros); notes naming other daemons are
# repaired only when those are provably gone (a pid gone, another boot,
# another host whose lock reached the storage), a missing track does not
# empty the others, a hard-linked track file is refused.  About 22 s.
. "$(dirname "$0")/lib.sh"

need_tools python3 sqlite3

M=$T/media
"$GEN" --clips 1 --clip-seconds 1 --timelines 1 --events 1 --min-seconds 1 \
	--max-seconds 1 --seed 23 "$M" >/dev/null
DB=$T/t.db
# -o ingest_reserve: what this suite writes (164 MiB at most, measured), not
# the default 1 GiB, so that it runs wherever that much is free
RES=ingest_reserve=32Mi

# The seed preset's interleave (engine/media/genplan.c "seed"; the layout's
# upto, timeline/layout.c): V 640x480 UYVY, a picture a frame, then A1
# and A2, 48 kHz 24-bit mono, at 30000/1001.
cp "$TOP/tests/integration/ingest_seed.py" "$T/seed.py"

# writer FILE FRAMES BS SEED [EXTRA]: write the seeded interleave to FILE
# in writes of BS bytes; prints the seconds from the first write's call
# to the last's return
cat >"$T/writer.py" <<'EOF'
import os, sys, time
sys.path.insert(0, os.path.dirname(sys.argv[0]))
from seed import stream
path, frames, bs, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
extra = int(sys.argv[5]) if len(sys.argv) > 5 else 0
data = stream(frames, seed, extra)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
pos = 0
first = time.monotonic()
while pos < len(data):
    pos += os.write(fd, data[pos:pos + bs])
last = time.monotonic()
os.close(fd)
print("%.3f" % (last - first))
EOF

# check.py DIR NAME FRAMES SEED [EXTRA [KEPT]]: the track files hold the
# writer's bytes (FRAMES frames and EXTRA bytes; the first KEPT frames of
# them) split by track, each WAV's essence from 4096 and its header
# patched (RIFF and data sizes, the pad byte of an odd essence)
cat >"$T/check.py" <<'EOF'
import os, struct, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))
from seed import stream, split, frame_offset, TRACKS
d, name, frames, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
extra = int(sys.argv[5]) if len(sys.argv) > 5 else 0
data = stream(frames, seed, extra)
if len(sys.argv) > 6:
    # (not stream(KEPT): randbytes' last bytes depend on its length)
    data = data[:frame_offset(int(sys.argv[6]))]
want = split(data)
bad = []
for t, (tr, _, _) in enumerate(TRACKS):
    if tr == "V":
        got = open(os.path.join(d, "%s.V.raw" % name), "rb").read()
        if got != want[t]:
            bad.append("V: %d bytes, want %d" % (len(got), len(want[t])))
        continue
    f = open(os.path.join(d, "%s.%s.wav" % (name, tr)), "rb").read()
    ess = f[4096:4096 + len(want[t])]
    if ess != want[t]:
        bad.append("%s essence differs (%d bytes, want %d)" % (tr, len(ess), len(want[t])))
    riff, data = struct.unpack_from("<I", f, 4)[0], struct.unpack_from("<I", f, 4092)[0]
    pad = len(want[t]) & 1
    if f[:4] != b"RIFF" or f[8:12] != b"WAVE" or f[4088:4092] != b"data":
        bad.append("%s: not a WAVE header" % tr)
    if data != len(want[t]) or riff != len(f) - 8 or len(f) != 4096 + len(want[t]) + pad:
        bad.append("%s: sizes riff %d data %d file %d, want data %d" % (tr, riff, data, len(f), len(want[t])))
print("; ".join(bad) if bad else "ok")
EOF

# wait_closed NAME: until the recording's note says closed (lib.sh)
wait_closed() {
	wait_note "$M" "$1" closed
}

# wait_frames NAME N: until NAME.V.raw holds N frames (up to 5 s)
wait_frames() {
	i=0
	while [ "$(stat -c %s "$M/ingest/$1.V.raw" 2>/dev/null || echo 0)" -lt $(($2 * 614400)) ] &&
		[ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.05
	done
}

mount_fs "$M" "$T/mnt" -o db="$DB",label=exact,pace=off,$RES
check "the mount shows the folder ingest" test -d "$T/mnt/ingest"
check_none "ingest is empty before a recording" "$(ls "$T/mnt/ingest" 2>&1)"

# byte-exact at every write size: 12 frames and 1000 bytes of a 13th
n=0
for bs in 512 4096 1048576 100003 624001; do
	n=$((n + 1))
	python3 "$T/writer.py" "$T/mnt/ingest/bs$bs" 12 "$bs" "$n" 1000 >/dev/null
	wait_closed "bs$bs" || not_ok "bs=$bs: the note never said closed"
	check_eq "bs=$bs: each track file holds the writer's bytes" ok \
		"$(python3 "$T/check.py" "$M/ingest" "bs$bs" 12 "$n" 1000)"
done
check_eq "the raw video file has no header: 12 frames and a partial one" \
	$((12 * 614400 + 1000)) "$(stat -c %s "$M/ingest/bs512.V.raw")"
# a name that ends in a preset records in it: sd-pal is 25 fps, 829440
# bytes a picture
python3 -c 'import os,sys; fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT); os.write(fd, bytes(829440 + 2 * 5760)); os.close(fd)' \
	"$T/mnt/ingest/pal.sd-pal"
wait_closed pal || not_ok "pal: the note never said closed"
check_eq "NAME.PRESET records NAME in that preset" "sd-pal 829440" \
	"$(sed -n 's/^preset //p' "$M/ingest/pal.rec") $(stat -c %s "$M/ingest/pal.V.raw")"
check_eq "ls ingest lists the recordings" "bs100003 bs1048576 bs4096 bs512 bs624001 pal" \
	"$(LC_ALL=C ls "$T/mnt/ingest" | tr '\n' ' ' | sed 's/ $//')"
check_eq "a recording's size is the interleave it holds" \
	"$(python3 -c "import sys; sys.path.insert(0, '$T'); from seed import frame_offset; print(frame_offset(12) + 1000)")" \
	"$(stat -c %s "$T/mnt/ingest/bs4096")"

# .status shows a recording while it records (a writer that waits)
python3 - "$T/mnt/ingest/live" "$T/mnt/.status" >"$T/status.live" <<'EOF'
import os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)
os.write(fd, bytes(3 * 624000))
print(open(sys.argv[2]).read())
os.close(fd)
EOF
check "a recording's .status line says record and its frames" \
	grep -q '^ingest/live .* record 2 ' "$T/status.live"
check ".status totals say record apart" grep -q '1 record), .* dropped' "$T/status.live"
umount_fs "$T/mnt"

check_eq "record streams in the database: kind, file, frames, dropped" \
	"record|ingest/bs4096|12|0|0" \
	"$(q "select kind, file, frames, late_frames, writer_drops from stream where file = 'ingest/bs4096'")"
check_eq "a receive row a frame, a write a track a frame (and a WAV header's)" \
	"12|36|2" \
	"$(q "select sum(a.op = 9), sum(a.op = 5 and (a.track = 'V' or a.file_offset >= 4096)), sum(a.op = 5 and a.file_offset = 0 and a.length = 4096) from access a join stream s on s.id = a.stream_id where s.file = 'ingest/bs1048576' and a.frame < 12")"
check_eq "write rows name the recording and its tracks" "A1 A2 V" \
	"$(q "select distinct track from access a join stream s on s.id = a.stream_id where s.file = 'ingest/bs512' and a.op = 5 and a.clip = 'bs512' order by 1" | tr '\n' ' ' | sed 's/ $//')"

# The clock, two recordings at once at pace=0.2 (a frame period p of
# 166.8 ms; under TSan's slower code 0.1) with the default B = 8:
# - slow: every 10th frame the V track's fsync (ingest_fsync=10) takes
#   D = 12.5 p.  After the fsync of frame f, frame f+1+j is written at
#   A(f) + D and due at A(f+1+j+B): dropped while j < D/p - 1 - B = 3.5,
#   so exactly frames f+1 .. f+4, with half a period (83 ms) to spare on
#   either side.  Frames f+1 .. f+8 wait in the capture buffer, so the
#   margin is the storage's alone (with B = 3 the writer had to refill
#   slots after the stall, and on a loaded machine that took the 67 ms
#   there were and dropped f+5 too).
# - wslow: every V write takes 2.3 p, a storage slower than the clock.
#   The writes queue: frame j is written at 2.3 (j + 1) p and due at
#   (j + 8) p, late from j > 4.4 on: of 8 frames exactly 5..7, 0.5 p
#   (83 ms) to spare at frames 4 and 5; by the storage (its writer waits
#   for a slot from frame 8 on only).
speed=0.2
nm -D "$BIN" 2>/dev/null | grep -q __tsan_init && speed=0.1
d1=$(awk -v s="$speed" 'BEGIN { printf "%d", 12.5 * 1001 / 30 / s }')
d2=$(awk -v s="$speed" 'BEGIN { printf "%d", 2.3 * 1001 / 30 / s }')
DB=$T/clock.db
mount_fs "$M" "$T/mnt" -o db="$DB",label=clock,pace=$speed,ingest_fsync=10,inject=clip=slow:track=V:op=fsync:delay=${d1}ms+clip=wslow:track=V:op=write:delay=${d2}ms,$RES
python3 "$T/writer.py" "$T/mnt/ingest/slow" 15 1048576 7 >/dev/null &
w=$!
python3 "$T/writer.py" "$T/mnt/ingest/wslow" 8 1048576 6 >/dev/null
wait "$w"
wait_closed slow || not_ok "slow: the note never said closed"
wait_closed wslow || not_ok "wslow: the note never said closed"
umount_fs "$T/mnt"
# dropped frames ... of recording $1
dropped() {
	q "select distinct a.frame from access a join stream s on s.id = a.stream_id
	   where s.file = 'ingest/$1' and a.op = 5 and a.done_ns > a.due_ns order by 1" |
		tr '\n' ' ' | sed 's/ $//'
}
f=$(q "select min(frame) from access where op = 6 and track = 'V' and injected = 1")
check_eq "an fsync delayed at frame $f drops exactly frames $((f + 1))..$((f + 4))" \
	"$((f + 1)) $((f + 2)) $((f + 3)) $((f + 4))" "$(dropped slow)"
check_eq "writes delayed 2.3 frame periods each: exactly frames 5..7 drop" \
	"5 6 7" "$(dropped wslow)"
check_eq "the streams count them dropped, by the storage; every V write of wslow delayed" \
	"ingest/slow|4|0|0 ingest/wslow|3|0|8" \
	"$(q "select s.file, s.late_frames, s.writer_drops, (select count(*) from access a where a.stream_id = s.id and a.op = 5 and a.track = 'V' and a.injected = 1) from stream s where s.kind = 'record' order by 1" | tr '\n' ' ' | sed 's/ $//')"

# pace=realtime: 1.5 s of frames (45) take 1.5 s from the first write
# (frame 0 arrives at once, frame 44 at 44 periods: 1.468 s); a check of
# the clock, not of speed: the bound above is loose (under TSan looser)
late=1.80
nm -D "$BIN" 2>/dev/null | grep -q __tsan_init && late=3.0
mount_fs "$M" "$T/mnt" -o db="$T/rt.db",label=rt,pace=realtime,$RES
t=$(python3 "$T/writer.py" "$T/mnt/ingest/rt" 45 1048576 8)
check "pace=realtime: 45 frames accepted in 44 periods (1.468 s): $t s" \
	awk -v t="$t" -v l="$late" 'BEGIN { exit !(t > 1.44 && t < l) }'
umount_fs "$T/mnt"

# kill -9 while recording (an odd write size: frames end inside writes),
# then a remount repairs the files to the last whole frame
DB=$T/kill.db
mount_fs "$M" "$T/mnt" -o db="$DB",label=kill,pace=realtime,$RES
python3 "$T/writer.py" "$T/mnt/ingest/cut" 90 100003 9 >/dev/null 2>&1 &
w=$!
# until some 10 frames are on storage (0.33 s of the clock)
wait_frames cut 10
echo "# killed with $(stat -c '%n %s' "$M"/ingest/cut.* | tr '\n' ' ')"
kill -9 "$DAEMON"
wait_daemon "$DAEMON"
fusermount3 -u -z "$T/mnt"
wait "$w" 2>/dev/null || true
check "killed: the note still says recording" grep -q '^state recording' "$M/ingest/cut.rec"
# a write torn by the kill: V's next frame begun
head -c 1000 /dev/urandom >>"$M/ingest/cut.V.raw"
mkdir "$T/before"
cp "$M"/ingest/cut.V.raw "$M"/ingest/cut.A1.wav "$M"/ingest/cut.A2.wav "$T/before/"
before=$(q "select count(*) from access")
mount_fs "$M" "$T/mnt" -o db="$DB",label=after,$RES
k=$(sed -n 's/^frames //p' "$M/ingest/cut.rec")
echo "# repaired to $(stat -c '%n %s' "$M"/ingest/cut.* | tr '\n' ' ')"
check "the remount said the repair" grep -q "ingest/cut.rec: repaired" "$DAEMON_LOG"
check "repaired: the note says so, with its whole frames ($k)" \
	grep -q '^state repaired' "$M/ingest/cut.rec"
check_eq "repaired: every track ends at frame $k, bytes the writer's" ok \
	"$(python3 "$T/check.py" "$M/ingest" cut 90 9 0 "${k:-0}")"
check_eq "ffprobe reads the repaired WAV to its last whole frame" \
	"$(python3 -c "import sys; sys.path.insert(0, '$T'); from seed import upto; print(upto(1, ${k:-0}) // 3)")" \
	"$(ffprobe -v error -count_packets -select_streams a:0 -show_entries stream=duration_ts -of csv=p=0 "$M/ingest/cut.A1.wav" 2>/dev/null | head -1)"
check_eq "the run says what it repaired" "cut:$k" \
	"$(q "select value from run_env e join run r on r.id = e.run_id where r.label = 'after' and key = 'ingest_repaired'")"
check_eq "the repair is no problem of the run" 0 "$(q "select count(*) from problem")"
check "the killed run's rows stay ($before)" sh -c "test $before -gt 0 &&
	test \$(sqlite3 '$DB' \"select count(*) from access a join stream s on s.id = a.stream_id join run r on r.id = s.run_id where r.label = 'kill'\") -eq $before"
check_eq "the recording lists at its repaired size" \
	"$(python3 -c "import sys; sys.path.insert(0, '$T'); from seed import frame_offset; print(frame_offset(${k:-0}))")" \
	"$(stat -c %s "$T/mnt/ingest/cut")"
# what the repair cut is set aside beside each track, not discarded
cat >"$T/partial.py" <<'EOF'
import os, struct, sys
b, d = sys.argv[1], sys.argv[2]
bad = []
for f in ("cut.V.raw", "cut.A1.wav", "cut.A2.wav"):
    old = open(os.path.join(b, f), "rb").read()
    new = open(os.path.join(d, f), "rb").read()
    p = os.path.join(d, f + ".partial")
    part = open(p, "rb").read() if os.path.exists(p) else b""
    # a WAV's essence: its data chunk's size (a pad byte may follow)
    at = 0 if f.endswith(".raw") else 4096
    ess = len(new) if not at else struct.unpack_from("<I", new, 4092)[0]
    if old[at:] != new[at:at + ess] + part:
        bad.append("%s: %d + %d bytes, was %d" % (f, ess, len(part), len(old) - at))
print("; ".join(bad) if bad else "ok")
EOF
check_eq "what the repair cut is in NAME.TRACK.partial, byte for byte" ok \
	"$(python3 "$T/partial.py" "$T/before" "$M/ingest")"
# the killed run's record stream row gets what the repair kept
check_eq "the killed run's stream row: closed, frames and bytes kept" \
	"1|$k|$(python3 -c "import sys; sys.path.insert(0, '$T'); from seed import frame_offset; print(frame_offset(${k:-0}))")" \
	"$(q "select s.closed_ns >= s.opened_ns, s.frames, s.bytes from stream s join run r on r.id = s.run_id where r.label = 'kill' and s.file = 'ingest/cut'")"
umount_fs "$T/mnt"

# Two mounts of one media folder: a second mount started while the first
# records leaves the live recording alone (it used to repair it, cutting
# the V frame written ahead of its A1: the first mount then wrote on past
# the cut, leaving a frame of zeros).  A1's writes are delayed 25 ms a
# frame, so that V is a frame ahead most of the time.
# The writer goes on (at most 300 frames, 10 s) until the second mount
# is up: the first mount writes throughout the second's start.
cat >"$T/untilstop.py" <<'EOF'
import os, sys
sys.path.insert(0, os.path.dirname(sys.argv[0]))
from seed import stream, frame_offset
path, stop = sys.argv[1], sys.argv[2]
data = stream(300, 11)
fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
k = 0
while k < 300 and (k < 20 or not os.path.exists(stop)):
    chunk = data[frame_offset(k):frame_offset(k + 1)]
    pos = 0
    while pos < len(chunk):
        pos += os.write(fd, chunk[pos:])
    k += 1
os.close(fd)
print(k)
EOF
DB=$T/live.db
mount_fs "$M" "$T/mnt" -o db="$DB",label=live,pace=realtime,inject=clip=live2:track=A1:op=write:delay=25ms,$RES
A=$DAEMON
python3 "$T/untilstop.py" "$T/mnt/ingest/live2" "$T/stop" >"$T/live2.frames" &
w=$!
wait_frames live2 8
mount_fs "$M" "$T/mnt2" -o db="$T/second.db",label=second,$RES
B=$DAEMON
BLOG=$DAEMON_LOG
touch "$T/stop"
check "the writer's recording went on while a second mount started" wait "$w"
wait_closed live2 || not_ok "live2: the note never said closed"
n=$(cat "$T/live2.frames")
check "the second mount started while it recorded ($n frames of 300)" test "$n" -lt 300
check_eq "a second mount leaves a live recording: every byte the writer sent" ok \
	"$(python3 "$T/check.py" "$M/ingest" live2 300 11 0 "$n")"
check_none "the second mount did not repair it" \
	"$(grep "live2.rec: repaired" "$BLOG")"
check "the second mount said it left the live recording alone" \
	grep -q "ingest/live2.rec: left as it is: .*recorded now" "$BLOG"
fusermount3 -u "$T/mnt2"
wait_daemon "$B"
DAEMON=$A
umount_fs "$T/mnt"

# Notes of other daemons: repaired only when their daemon is provably
# gone.  Each a copy of bs4096 (12 frames and 1000 bytes of a 13th) with
# its note back in state recording, naming a daemon (host, boot, pid).
host=$(hostname)
boot=$(cat /proc/sys/kernel/random/boot_id)
gone=$(sh -c 'echo $$')
sleep 30 &
alive=$!
alive_start=$(sed 's/^.*) //' "/proc/$alive/stat" | cut -d' ' -f20)
# craft NAME OWNER-LINES: a recording left in state recording
craft() {
	for f in V.raw A1.wav A2.wav; do
		cp "$M/ingest/bs4096.$f" "$M/ingest/$1.$f"
	done
	printf '# timelinefs recording (docs/formats.md "Ingest")\npreset seed\nstate recording\n%s' "$2" >"$M/ingest/$1.rec"
}
craft pidgone "host $host
boot $boot
pid $gone 1
"
craft oldboot "host $host
boot 00000000-0000-4000-8000-000000000000
pid $alive $alive_start
"
craft alive "host $host
boot $boot
pid $alive $alive_start
"
craft elsewhere "host elsewhere.invalid
boot 00000000-0000-4000-8000-000000000001
pid 1 1
lock local
"
craft sharedlock "host elsewhere.invalid
boot 00000000-0000-4000-8000-000000000001
pid 1 1
lock shared
"
# a recording whose A2 file is missing keeps what V and A1 hold
craft noa2 ""
rm "$M/ingest/noa2.A2.wav"
# a track file that is a hard link to a clip outside ingest/
ln "$M/clip0001.V.raw" "$M/ingest/hl.V.raw"
printf '# timelinefs recording (docs/formats.md "Ingest")\npreset seed\nstate recording\n' >"$M/ingest/hl.rec"
clip_sum=$(sha256sum <"$M/clip0001.V.raw")
DB=$T/notes.db
if mount_fs "$M" "$T/mnt" -o db="$DB",label=notes,pace=off,$RES; then
	ok "the mount after the crafted notes serves"
else
	not_ok "the mount after the crafted notes serves"
fi
st() {
	sed -n 's/^state //p' "$M/ingest/$1.rec"
}
check_eq "same host and boot, its pid gone: repaired" repaired "$(st pidgone)"
check_eq "this host, another boot: repaired" repaired "$(st oldboot)"
check_eq "same host and boot, its daemon running: left" recording "$(st alive)"
check "... said in the log" grep -q "ingest/alive.rec: left as it is: .*pid $alive" "$DAEMON_LOG"
check_eq "another host whose lock did not reach the storage: left" recording "$(st elsewhere)"
check "... said with the host" grep -q "ingest/elsewhere.rec: left as it is: .*elsewhere.invalid" "$DAEMON_LOG"
# another host's free lock proves it gone only where this mount's locks
# reach the storage too: a local disk's file system, not an overlay's
fstype=$(findmnt -n -o FSTYPE --target "$M" | tail -n 1)
case $fstype in
ext[234] | xfs | btrfs | tmpfs | f2fs | zfs)
	check_eq "another host whose shared lock is free, on $fstype: repaired" \
		repaired "$(st sharedlock)" ;;
overlay | fuse*)
	check_eq "another host whose shared lock is free, on $fstype (locks stay on this host): left" \
		recording "$(st sharedlock)" ;;
*) skip_case "another host's shared lock: the media are on $fstype" ;;
esac
check_eq "A2 missing: V and A1 keep their 12 whole frames" "repaired 12 7372800" \
	"$(st noa2) $(sed -n 's/^frames //p' "$M/ingest/noa2.rec") $(stat -c %s "$M/ingest/noa2.V.raw")"
check_eq "a hard-linked track file is refused: the clip is unchanged" \
	"$clip_sum recording" "$(sha256sum <"$M/clip0001.V.raw") $(st hl)"
check "... said in the log" grep -q "ingest/hl.V.raw: .*link" "$DAEMON_LOG"
kill "$alive" 2>/dev/null || true
umount_fs "$T/mnt"
finish
