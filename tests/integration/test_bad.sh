#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad input refuses the mount with a non-zero exit and a message naming
# the file, the line and the reason: malformed timelines, missing and short
# media, bad options.  Nothing is left mounted.
. "$(dirname "$0")/lib.sh"

M=$T/media
mkdir -p "$T/mnt"
"$GEN" --clips 2 --clip-seconds 2 --timelines 1 --events 2 \
	--min-seconds 0.5 --max-seconds 1 "$M" >/dev/null

TLD=$T/bad
mkdir -p "$TLD"
cat >"$TLD/syntax.tl" <<'TL'
fps 30000/1001
track V 18M
evnt V clip0001 0 10
event V clip0001 0 0
event A9 clip0001 0 10
TL
try_mount "syntax errors, all of them, with lines" \
	"syntax.tl:3:" "syntax.tl:4:" "syntax.tl:5:" "recorded in $T/syntax.db: run 1" -- \
	-o timelines="$TLD",db="$T/syntax.db",label=bad "$M" "$T/mnt"
# the refused mount is a run of its own: ended, no timeline nor stream,
# one problem row per message, as printed
DB=$T/syntax.db
check_eq "syntax errors recorded: the run, ended, with 3 problems and nothing else" \
	"bad|1|3|0|0" \
	"$(q "select label, ended_at is not null, (select count(*) from problem),
		(select count(*) from timeline), (select count(*) from stream) from run")"
check_eq "syntax errors recorded: each problem names the file and its line" \
	"$TLD/syntax.tl:3:|$TLD/syntax.tl:4:|$TLD/syntax.tl:5:" \
	"$(q "select group_concat(substr(message, 1, length('$TLD/syntax.tl:3:')), '|')
		from (select message from problem order by id)")"
check_eq "syntax errors recorded: the messages are stderr's" \
	"$(grep -F "$TLD/syntax.tl:" "$T/out")" \
	"$(q "select message from problem order by id")"
check_eq "run_summary counts the problems" "1|0|3" \
	"$(q "select id, streams, problems from run_summary")"

rm -f "$TLD"/*
cat >"$TLD/media.tl" <<'TL'
fps 30000/1001
track V 18M
track A1 144000 align=3
event V,A1 clip0001 0 10
event V nosuchclip 0 10
event A1 clip0002 50 100000
TL
try_mount "missing and short media name timeline, line, clip and path" \
	"media.tl:5:" "nosuchclip" "$M/nosuchclip.V" "media.tl:6:" "clip0002" "reaches past the clip's last sample" -- \
	-o timelines="$TLD",db="$T/media.db" "$M" "$T/mnt"
DB=$T/media.db
check_eq "missing and short media recorded" "2|1|1" \
	"$(q "select count(*), sum(message like '%media.tl:5:%nosuchclip%'),
		sum(message like '%media.tl:6:%clip0002%reaches past%') from problem")"

rm -f "$TLD"/*
cp "$M/timelines/timeline01.tl" "$TLD/ok.tl"
try_mount "unknown option" "unknown option" -- \
	-o timelines="$TLD",db="$T/t.db",bogus=1 "$M" "$T/mnt"
try_mount "bad pace" "bad pace 'sometimes'" -- \
	-o timelines="$TLD",db="$T/t.db",pace=sometimes "$M" "$T/mnt"
try_mount "bad backing" "bad backing" -- \
	-o timelines="$TLD",db="$T/t.db",backing=tape "$M" "$T/mnt"
try_mount "bad buffer" "bad buffer" -- \
	-o timelines="$TLD",db="$T/t.db",buffer=0 "$M" "$T/mnt"
try_mount "max_background below 1" "bad max_background '0': expected 1 to 65535" -- \
	-o timelines="$TLD",db="$T/t.db",max_background=0 "$M" "$T/mnt"
try_mount "max_background past the kernel's 16 bits" "bad max_background '65536'" -- \
	-o timelines="$TLD",db="$T/t.db",max_background=65536 "$M" "$T/mnt"
# Regression: -o audio_rate=100 (and =1) mounted while timelinefs-gen
# --audio-rate 100 refused "not a multiple of 3": both now refuse a rate
# that is not whole 24-bit samples, for the same reason in the same words.
WHY="not a multiple of 3: audio tracks hold whole 24-bit samples (144000 is 48 kHz)"
try_mount "audio_rate not whole samples" "bad audio_rate '100': $WHY" -- \
	-o timelines="$TLD",db="$T/t.db",audio_rate=100 "$M" "$T/mnt"
try_mount "audio_rate of one byte" "bad audio_rate '1': $WHY" -- \
	-o timelines="$TLD",db="$T/t.db",audio_rate=1 "$M" "$T/mnt"
for mode in "--clips 1 --timelines 1 $T/g1" "--for $TLD/ok.tl $T/g2" \
	"--dump-tl $TLD/ok.tl"; do
	# shellcheck disable=SC2086
	check "timelinefs-gen --audio-rate 100 ${mode%% *}: the same reason" sh -c "
		'$GEN' --audio-rate 100 $mode >/dev/null 2>'$T/gen.err'
		[ \$? -eq 2 ] && grep -qF \"invalid --audio-rate '100': $WHY\" '$T/gen.err'"
done
# -o ingest and ingest_* (issue 23): each bad value refused before the
# mount, the message naming the option and the value; before they were
# parsed, every one of these was libfuse's "unknown option".
bad_ingest=
for o in ingest=nosuch ingest= ingest=OFF ingest_buffer=0 \
	ingest_buffer=1025 ingest_buffer=8x ingest_write=0 ingest_write=2Gi \
	ingest_write=lots ingest_write=Frame ingest_fsync=0 \
	ingest_fsync=sometimes ingest_fsync=1000001 ingest_fsync=-1 \
	ingest_prealloc=30 ingest_prealloc=0m ingest_prealloc=25h \
	ingest_prealloc=1.5h ingest_prealloc=30ms ingest_prealloc=m \
	ingest_on_drop=pause ingest_on_drop= ingest_reserve=100% \
	ingest_reserve=0% ingest_reserve=5%% ingest_reserve=x \
	ingest_reserve=-1; do
	timeout 20 "$BIN" -f -o "$o,db=$T/t.db,timelines=$TLD" "$M" "$T/mnt" \
		>"$T/out" 2>&1 && bad_ingest="$bad_ingest $o(exit 0)"
	grep -qF "bad ${o%%=*} '${o#*=}': expected" "$T/out" ||
		bad_ingest="$bad_ingest $o:$(head -c 200 "$T/out")"
done
check_none "bad ingest options are refused, each named with its value" \
	"$bad_ingest"
# and good ones are taken: the run's options (run_env opt.*, recorded by a
# mount refused later, for its empty timelines folder) hold each as given
mkdir -p "$T/notl"
dflt=ingest=seed,ingest_buffer=8,ingest_fsync=off,ingest_on_drop=continue
dflt=$dflt,ingest_prealloc=off,ingest_replace=off,ingest_reserve=1Gi
dflt=$dflt,ingest_write=frame
bad_ingest=
for o in "" ingest=off ingest=prores-hq-1080p25,ingest_replace \
	ingest_buffer=1,ingest_write=frame,ingest_fsync=off \
	ingest_buffer=1024,ingest_write=512,ingest_fsync=close \
	ingest_write=1Gi,ingest_fsync=30,ingest_prealloc=off \
	ingest_prealloc=90s,ingest_on_drop=stop,ingest_reserve=0 \
	ingest_prealloc=24h,ingest_on_drop=continue,ingest_reserve=5% \
	ingest_prealloc=30m,ingest_reserve=99%; do
	timeout 20 "$BIN" -f -o "${o:+$o,}db=$T/ingest.db,timelines=$T/notl" \
		"$M" "$T/mnt" >"$T/out" 2>&1 || :
	DB=$T/ingest.db
	got=$(q "select group_concat(substr(key, 5) || '=' || value, ',') from
		(select key, value from run_env where key like 'opt.ingest%'
		 and run_id = (select max(id) from run) order by key)")
	if [ -z "$o" ]; then
		[ "$got" = "$dflt" ] || bad_ingest="$bad_ingest [defaults: $got]"
		continue
	fi
	for kv in $(echo "$o" | tr ',' ' '); do
		case $kv in *=*) ;; *) kv=$kv=on ;; esac
		case ",$got," in
		*",$kv,"*) ;;
		*) bad_ingest="$bad_ingest [$o: no $kv in $got]" ;;
		esac
	done
done
check_none "good ingest options are taken, the defaults without them" \
	"$bad_ingest"
try_mount "missing media folder" "$T/nope" -- "$T/nope" "$T/mnt"
try_mount "unwritable database" "cannot open database" -- \
	-o timelines="$TLD",db="$T/no/such/dir/t.db" "$M" "$T/mnt"
try_mount "empty timelines folder" "no timeline" -- \
	-o timelines="$T/mnt",db="$T/empty.db" "$M" "$T/mnt"
DB=$T/empty.db
check_eq "empty timelines folder recorded" "$T/mnt: no timeline (*.tl, *.edl, *.otio) in this folder" \
	"$(q "select message from problem")"
try_mount "one argument only" "MEDIA_DIR and MOUNTPOINT" -- "$M"
: >"$T/afile"
try_mount "mount point is a file" "mount point $T/afile: Not a directory" -- \
	-o db="$T/t.db" "$M" "$T/afile"
check "mount point is a file: not mounted on it" sh -c "! grep -q ' $T/afile fuse' /proc/mounts"
try_mount "missing mount point" "$T/nomnt" -- -o db="$T/t.db" "$M" "$T/nomnt"
# bad options stop before the database; a failed mount takes its run back
DB=$T/t.db
check_eq "no run for bad options or a failed mount" 0 \
	"$(if [ -e "$DB" ]; then q "select count(*) from run"; else echo 0; fi)"

# A frame header that claims more than a frame holds: a 450 MB sparse
# TIFF (no disk blocks) of 50 M strips named as a DPX frame.  Before: the
# mount took the daemon to 613 MB (the strip tables read whole) and served
# a 0-byte timeline without a word; now refused, naming the file and the
# limit, before the tables are read.
M6=$T/hostile
mkdir -p "$M6/timelines"
# II*, IFD at 8 of 2 entries: StripOffsets and StripByteCounts, 50000000
# LONGs each, at 4096 and 200004096
printf 'II*\000\010\000\000\000\002\000\021\001\004\000\200\360\372\002\000\020\000\000\027\001\004\000\200\360\372\002\000\322\353\013\000\000\000\000' \
	>"$M6/x.0001.dpx"
truncate -s 450000000 "$M6/x.0001.dpx"
printf 'fps 25\ntrack V 1\nseq x x.%%04d.dpx first=1\nevent V x 0 1\n' \
	>"$M6/timelines/t.tl"
# the mount's peak memory (ru_maxrss of the finished child, in KiB)
rss=$(python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as out:
    subprocess.call(sys.argv[2:], stdout=out, stderr=out)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$T/out" \
	timeout 20 "$BIN" -f -o db="$T/hostile.db" "$M6" "$T/mnt")
if is_mounted "$T/mnt"; then
	fusermount3 -u -z "$T/mnt"
	not_ok "a tiff of 50 M strips: mounted"
fi
check "a tiff of 50 M strips named as a dpx frame: refused naming the file and the limit" \
	grep -qF "t.tl:4: clip x track V: $M6/x.0001.dpx: tiff has 50000000 strips: more than 262144 are read" "$T/out"
check "a tiff of 50 M strips: the mount's peak memory under 200 MB (613 MB before): $rss KiB" \
	test "$rss" -lt 204800

# A timeline whose frames hold no byte is no timeline to serve: 10 frames
# of a 1 byte/s track at 25 fps.  Before: mounted as a 0-byte file without
# a word.
mkdir -p "$T/empty/timelines"
printf 'fps 25\ntrack V 1\nevent V a 0 10\n' >"$T/empty/timelines/z.tl"
: >"$T/empty/a.V.raw"
try_mount "a timeline of 0 bytes is refused, naming the file" \
	"$T/empty/timelines/z.tl: its 10 frames hold 0 bytes: nothing to read" -- \
	-o db="$T/empty0.db" "$T/empty" "$T/mnt"
# the rule is the engine's: timelinefs-gen resolving it says the same
# (before: --dump-tl printed it and --for wrote its clip, exit 0)
for mode in "--dump-tl $T/empty/timelines/z.tl $T/empty" \
	"--for $T/empty/timelines/z.tl $T/empty-for"; do
	# shellcheck disable=SC2086
	check "timelinefs-gen ${mode%% *}: a timeline of 0 bytes refused, the same words" sh -c "
		'$GEN' $mode >/dev/null 2>'$T/gen.err' && exit 1
		grep -qF 'z.tl: its 10 frames hold 0 bytes: nothing to read' '$T/gen.err'"
done
rm -rf "$T/empty-for"

out=$("$BIN" -h 2>&1) || true
check "-h lists every option" sh -c '
	for o in db= label= timelines= pace= buffer= backing= direct_io readahead= fps= edl_origin= video_rate= audio_rate= strict max_background= hold= splice= record= stream_mem= streams_mem= preroll= stream_files= frames_in_flight= max_threads= max_idle_threads= ingest= ingest_buffer= ingest_write= ingest_fsync= ingest_prealloc= ingest_on_drop= ingest_reserve= ingest_replace; do
		echo "$1" | grep -q -- "-o $o" || { echo "missing $o"; exit 1; }
	done' sh "$out"
# the README's and the man page's lists against the table -h is printed
# from: test_man.sh
check "-V prints the version" sh -c "'$BIN' -V | grep -q '^timelinefs [0-9]'"
finish
