#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted, paced: edit while ingest (issue 23).  A timeline plays clip cam1
# while the mount records it (MOUNTPOINT/ingest/cam1, the seed preset):
# the frames recorded before they were due play on time, without waiting;
# those the writer held back (it pauses after frame 14) are waited for,
# frame 15 with an await row, and are late; the reader gets the writer's bytes
# exactly.  A timeline playing cam1 past what was recorded fails there
# with EIO at once, not waiting, once the recording is closed.  Before
# edit while ingest: the mount refused the short recording ("too short")
# and a read of a short clip failed at once.  Then a recorded clip (.tl
# 'record cam1'), the workflow: the mount starts with no cam1 anywhere,
# cam1 is recorded through it while the edit plays it (frame 6, held
# back, late for the recording; past its end EIO once closed); refused
# with -o ingest=off or under a preset's file name, and without the line
# the absent clip is refused.  About 7 s.
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

need_tools python3 sqlite3 cmp
M=$T/media
"$GEN" --clips 1 --clip-seconds 1 --timelines 1 --events 1 \
	--min-seconds 1 --max-seconds 1 --seed 23 "$M" >/dev/null
# -o ingest_reserve: what this suite writes (96 MiB at most, measured), not
# the default 1 GiB, so that it runs wherever that much is free
RES=ingest_reserve=32Mi
mkdir "$T/tlA" "$T/tlB"
head='fps 30000/1001
track V 2vuy 640x480
track A1 144000 align=3
track A2 144000 align=3'
# the take a camera sends: clip0001's 30 frames in the interleave
printf '%s\nevent V,A1,A2 clip0001 0 30\n' "$head" >"$T/tlA/src.tl"
# the edit: cam1 as it is being recorded; edit40 runs past its end
printf '%s\nevent V,A1,A2 cam1 0 30\n' "$head" >"$T/tlB/edit.tl"
printf '%s\nevent V,A1,A2 cam1 0 40\n' "$head" >"$T/tlB/edit40.tl"

# OFF K: the writer's (and the timeline's) byte offset of frame K:
# 614400 bytes of 2vuy 640x480, and 1601.6 samples of 3 bytes a track
off() {
	python3 -c 'import sys; k = int(sys.argv[1])
print(k * 614400 + 2 * (k * 144000 * 1001 // (30000 * 3)) * 3)' "$1"
}
FRAME=614400

# record TAKE K PAUSE: TAKE's bytes to MOUNT/ingest/cam1, frames 0..K-1
# at the capture clock, a pause of PAUSE s, the rest (accepted at once:
# their arrival is past); WRITER its pid
record() {
	ok_=$(off "$2")
	{
		head -c "$ok_" "$1"
		sleep "$3"
		tail -c +$((ok_ + 1)) "$1"
	} >"$T/mnt/ingest/cam1" &
	WRITER=$!
}
# fails_eio DESC TIMELINE: reading MOUNT/TIMELINE fails with EIO
fails_eio() {
	rc=0
	dd if="$T/mnt/$2" of="$T/out.$2" bs=1M status=none 2>"$T/err.$2" ||
		rc=$?
	# shellcheck disable=SC2016 # expanded by the inner sh
	check "$1" sh -c '[ "$1" -ne 0 ] && grep -q "Input/output error" "$2"' \
		sh "$rc" "$T/err.$2"
}
# stream_of TIMELINE: the id of its (one) stream
stream_of() {
	q "select s.id from stream s join timeline t on t.id = s.timeline_id
		where t.name = '$1'"
}
# until_recorded FILE N: until FILE (a V track file) holds N frames
until_recorded() {
	i=0
	while [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -lt \
		$(($2 * FRAME)) ]; do
		i=$((i + 1))
		[ $i -lt 200 ] ||
			{ echo "cam1 not recorded after 10 s" >&2; exit 1; }
		sleep 0.05
	done
}

# mount A, unpaced: the take's bytes, and a first take of cam1 (2
# frames) that the edit's mount finds short and replaces
mount_fs "$M" "$T/mnt" -o "timelines=$T/tlA,pace=off,db=$T/a.db,$RES"
cat "$T/mnt/src" >"$T/take"
check_eq "the take is 30 frames" "$(off 30)" "$(wc -c <"$T/take")"
head -c "$(off 2)" "$T/take" >"$T/mnt/ingest/cam1"
umount_fs "$T/mnt"
check_eq "the first take holds 2 frames of video" $((2 * FRAME)) \
	"$(wc -c <"$M/ingest/cam1.V.raw")"

# mount B: the edit resolves the short recording
DB=$T/b.db
check "a timeline of a short recording mounts" \
	mount_fs "$M" "$T/mnt" -o "timelines=$T/tlB,ingest_replace,db=$DB,$RES"
# the writer: frames 0..14, a pause of 1.2 s, the rest
record "$T/take" 15 1.2
# the reader starts once 8 frames are on storage: frame k is written
# about 8 frames before it is issued, 16 before it is due
until_recorded "$M/ingest/cam1.V.raw" 8
rc=0
dd if="$T/mnt/edit" of="$T/out" bs=1M status=none 2>"$T/err" || rc=$?
wait "$WRITER"
check_eq "the reader reads the edit through: $(cat "$T/err")" 0 "$rc"
check "the reader got the writer's bytes" cmp -s "$T/take" "$T/out"

# past what was recorded: EIO at frame 30, at once once there
fails_eio "edit40 fails past the recording" edit40
umount_fs "$T/mnt"

# the edit's stream: its rows by frame
s=$(stream_of edit)
late() {
	q "select count(*) from (select frame from access where stream_id = $s
		and played = 1 and frame $1 group by frame
		having max(done_ns > due_ns))"
}
awaits() {
	q "select count(*) from access where stream_id = $s and op = 10
		and frame $1"
}
check_eq "frames 0..14, recorded before due: none late" 0 "$(late '< 15')"
# (0..6 were whole on storage when the reader started: the others are
# very likely too, but a loaded machine may delay a write that much)
check_eq "frames 0..6: none waited for" 0 "$(awaits '< 7')"
# (how many after 15 are late depends on when the reader started: all
# of them on an idle machine)
check "frames 15..29, held back by the writer: late from frame 15 on" \
	test "$(late '= 15')" -eq 1 -a "$(late '>= 15')" -ge 1
check_eq "frame 15 waited for once" 1 "$(awaits '= 15')"
check_eq "frame 15 is late for the recording" recording \
	"$(q "select cause from late_frame where stream_id = $s and frame = 15")"
check_eq "every await got its bytes" 0 \
	"$(q "select count(*) from access where stream_id = $s and op = 10
		and (errno != 0 or done_ns < issued_ns)")"
check_eq "each await is before its frame's read, which is done after it" 0 \
	"$(q "select count(*) from access w join access r
		on r.stream_id = w.stream_id and r.frame = w.frame
		and r.track = w.track and r.op = 0 and r.played = w.played
		where w.stream_id = $s and w.op = 10
		and (r.id < w.id or r.done_ns < w.done_ns)")"
check_eq "the edit's stream failed no frame" 0 \
	"$(q "select failed_frames from stream where id = $s")"
s40=$(stream_of edit40)
check_eq "edit40: frame 30's reads short (EIO), not waited for" "5 5 0" \
	"$(q "select min(errno), max(errno), sum(op = 10) from access
		where stream_id = $s40 and frame = 30" | tr '|' ' ')"

# A recorded clip (record cam1): the mount starts with no cam1 anywhere
# (a media folder without ingest/), cam1 is then recorded through it
# while the edit plays it.  Without the line the absent clip is refused.
M2=$T/media2
mkdir "$M2" "$T/tlC" "$T/tlD" "$T/tlE"
printf '%s\nrecord cam1\nevent V,A1,A2 cam1 0 10\n' "$head" >"$T/tlC/rec.tl"
printf '%s\nrecord cam1\nevent V,A1,A2 cam1 0 12\n' "$head" >"$T/tlC/rec12.tl"
printf '%s\nevent V,A1,A2 cam1 0 20\n' "$head" >"$T/tlD/plain.tl"
printf '%s\nrecord cam1.sd-pal\nevent V cam1.sd-pal 0 1\n' "$head" \
	>"$T/tlE/preset.tl"
try_mount "an absent clip without a record line is refused" \
	"plain.tl:5: clip cam1 track V: no media file" -- \
	-o "timelines=$T/tlD,db=$T/d.db" "$M2" "$T/mnt"
try_mount "a recorded clip with -o ingest=off is refused" \
	"rec.tl:5: clip 'cam1' is recorded through the mount's ingest" \
	"-o ingest=off" -- \
	-o "timelines=$T/tlC,ingest=off,db=$T/d.db" "$M2" "$T/mnt"
try_mount "a recorded clip named as a preset's file is refused" \
	"preset.tl:5: clip 'cam1.sd-pal' cannot be recorded under that name" \
	-- -o "timelines=$T/tlE,db=$T/d.db" "$M2" "$T/mnt"

DB=$T/c.db
check "a timeline of a recorded clip with no file mounts" \
	mount_fs "$M2" "$T/mnt" -o "timelines=$T/tlC,db=$DB,$RES"
head -c "$(off 10)" "$T/take" >"$T/take10"
# the writer: frames 0..5, a pause of 0.8 s, 6..9
record "$T/take10" 6 0.8
# the reader starts once 3 frames are on storage
until_recorded "$M2/ingest/cam1.V.raw" 3
rc=0
dd if="$T/mnt/rec" of="$T/outC" bs=1M status=none 2>"$T/errC" || rc=$?
wait "$WRITER"
check_eq "recorded clip: the reader reads the edit through: $(cat "$T/errC")" \
	0 "$rc"
check "recorded clip: the reader got the writer's bytes" \
	cmp -s "$T/take10" "$T/outC"
# the recording closes once FUSE's release is done (after close(2))
i=0
until grep -qx 'state closed' "$M2/ingest/cam1.rec" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || break
	sleep 0.05
done
# tlexpect.py reads a recorded clip from the recording too
check_eq "recorded clip: tlexpect.py's bytes are the reader's" \
	"$(sha256sum <"$T/outC" | cut -d' ' -f1)" \
	"$($EXPECT sha256 "$T/tlC/rec.tl" "$M2")"
fails_eio "recorded clip: past what was recorded fails (EIO) once closed" \
	rec12
umount_fs "$T/mnt"
s=$(stream_of rec)
check_eq "recorded clip: frames 0..2, on storage at the start: no wait" 0 \
	"$(awaits '< 3')"
check_eq "recorded clip: frame 6, held back, is late for the recording" \
	recording "$(q "select cause from late_frame where stream_id = $s
		and frame = 6")"
check_eq "recorded clip: frame 6 waited for once, and got its bytes" "1 0" \
	"$(q "select count(*), sum(errno != 0) from access
		where stream_id = $s and op = 10 and frame = 6" | tr '|' ' ')"
check_eq "recorded clip: no frame failed" 0 \
	"$(q "select failed_frames from stream where id = $s")"
s12=$(stream_of rec12)
check_eq "recorded clip: frame 10's reads short (EIO), not waited for" \
	"5 5 0" "$(q "select min(errno), max(errno), sum(op = 10) from access
		where stream_id = $s12 and frame = 10" | tr '|' ' ')"
finish
