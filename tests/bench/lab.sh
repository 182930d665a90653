#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench, section 13: timelinefs's answers against a storage of known
# capacity (timelinefs-lab, docs/lab.md), at full size:
#   1 and 6: bandwidth-bound find-max on each file system (ext4, xfs,
#      btrfs where mkfs.btrfs is present): N against floor(0.9 B_cal / r)
#      .. ceil(B_cal / r), the late frames at N + 2 and their causes; and
#      the file systems compared (pace=off sessions, --compare);
#   2: IOPS-bound find-max (a reads/s limit, small frames): N against the
#      same rule for the calibrated reads/s over a stream's;
#   3: the seed's experiment (its preset, 5, 6, 10 and 15 workstations) on
#      a storage like its RAID, LAB_SEED_LIMITS (250 MB/s, 1,500 reads/s):
#      late frames per count and their causes;
#   4: a storage change, the seed's way: B and 0.94 B, pace=off, as
#      sequential sessions A B B A A B and as --ab-lab legs: the report's
#      verdict on MB/s and whether its interval holds the change the
#      calibrations predict for a step (the report's, from
#      --calibrate-work: LAB_AB_WS readers, each a stream's bytes);
#   net: the seed's experiment over SMB: part 3's storage, counts and
#      streams, each workstation a network namespace reading with
#      smbclient through its own link (LAB_NET_WS) and the server's
#      (LAB_NET_SERVER, 1 Gbit/s: about what 2 cores carry over SMB);
#      per count the storage's late frames by cause, the frames late to
#      the readers and how many clients were done in real time, beside
#      part 3's counts on the server itself: what the network adds;
#   5: players on the lab storage: LAB_PLAYERS (3 and 6) mpv and `ffmpeg
#      -re` players of NAME.mov at LAB_PLAYER_BPS (about 4.5 seed streams),
#      below and above capacity: per player its own evidence (wall time
#      against the movie's duration; mpv's dropped frames and its waits for
#      the cache, by a script) beside timelinefs's late frames of its
#      stream.
# Appends lab_KEY=VALUE lines to
# RESULTS (bench.sh's) and prints what it measures on stderr; alone:
#   TLFS_BUILD=$PWD/build sh tests/bench/lab.sh [RESULTS]
# The LAB_* variables below make it smaller, e.g.
#   LAB_FS=ext4 LAB_PARTS="1 2" LAB_SECONDS=4 TLFS_BUILD=build sh tests/bench/lab.sh
# Needs root (loop devices, mount, the block cgroup).  The lab images go
# to LAB_TMP (TMPDIR, else /tmp): each the media's size and a quarter.
set -eu

: "${TLFS_BUILD:?set by make bench}"
# absolute: the mount points are looked up in /proc/mounts
TLFS_BUILD=$(cd "$TLFS_BUILD" && pwd)
TOP=${TLFS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
GEN=$TLFS_BUILD/timelinefs-gen
BENCH="env TIMELINEFS_BIN_DIR=$TLFS_BUILD sh $TOP/mount-scripts/timelinefs-bench"
REPORT=$TOP/mount-scripts/timelinefs-report
PY=/usr/bin/python3
W=${LAB_WORK:-$TLFS_BUILD/bench-lab-work}
R=${1:-$TLFS_BUILD/bench-lab.results}
: "${LAB_TMP:=${TMPDIR:-/tmp}}"
: "${LAB_PARTS:=1 2 3 net 4 5}"
: "${LAB_FS:=ext4 xfs btrfs}"
# 1, 3, 4 and 6: the seed preset's streams (18.7 MB/s each), LAB_SECONDS
# a timeline; 1: B
: "${LAB_SECONDS:=10}"
: "${LAB_BPS:=100M}"
# 2: a reads/s limit and frames of 13 kB (400 kB/s, no audio: one read a
# frame, about 30 reads/s a stream)
: "${LAB_IOPS:=400}"
# 3: the seed's RAID: about 250 MB/s (238 MiB/s) and 1,500 reads/s
: "${LAB_SEED_LIMITS:=read-bps=238M,read-iops=1500}"
: "${LAB_SEED_COUNTS:=5,6,10,15}"
: "${LAB_SEED_REPEAT:=2}"
# net: the links of the seed's experiment over SMB (tc rates)
: "${LAB_NET_SERVER:=1gbit}"
: "${LAB_NET_WS:=1gbit}"
# 4: B and 0.94 B, workstations, repetitions of a session and legs
: "${LAB_AB_BPS:=100M 94M}"
: "${LAB_AB_WS:=6}"
: "${LAB_AB_REPEAT:=5}"
# 5: players, the counts below and above capacity, and the lab's limit
: "${LAB_PLAYERS:=3,6}"
: "${LAB_PLAYER_BPS:=80M}"

[ "$(id -u)" -eq 0 ] || { echo "bench lab: needs root (loop devices, mount, cgroups)" >&2; exit 1; }
for c in fio sqlite3 losetup mkfs.ext4 "$PY"; do
	command -v "$c" >/dev/null 2>&1 || { echo "bench lab: no $c (make deps)" >&2; exit 1; }
done
rm -rf "$W"
mkdir -p "$W"
touch "$R"
put() { echo "lab_$1=$2" >>"$R"; }
say() { printf '%s\n' "$*" >&2; }
q() { sqlite3 -batch -noheader -cmd '.timeout 5000' "$DB" "$1"; }
put load_start "$(cut -d' ' -f1 /proc/loadavg)"

# bench ARGS...: timelinefs-bench with the lab's images in LAB_TMP, its
# output shown when it fails
bench() {
	# shellcheck disable=SC2086 # BENCH: a command line
	if ! TMPDIR=$LAB_TMP $BENCH "$@" >"$W/bench.out" 2>&1; then
		sed 's/^/  /' "$W/bench.out" >&2
		say "bench lab: timelinefs-bench $* failed"
		exit 1
	fi
}

# rule N CAL PER: "LO HI ok|outside": floor(0.9 CAL / PER) <= N <=
# ceil(CAL / PER)
rule() {
	awk -v n="$1" -v c="$2" -v r="$3" 'BEGIN {
		x = c / r; lo = int(0.9 * x); hi = int(x); if (hi < x) hi++
		print lo, hi, (n >= lo && n <= hi) ? "ok" : "outside" }'
}

# late RUN: "LATE STORAGE ISSUE", the run's late frames and their causes
late() {
	q "select (select coalesce(sum(late_frames), 0) from bench_step_summary
		where run_id = $1 and repetition > 0),
		(select count(*) from late_frame where run_id = $1 and cause = 'storage'),
		(select count(*) from late_frame where run_id = $1 and cause = 'issue')" | tr '|' ' '
}

# mb_s_row JSON [WS]: the --compare --json's MB/s row: "diff % | 95 %
# interval in % | verdict", with WS the change the report's calibrations
# predict for WS workstations and whether the interval holds it
mb_s_row() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
r = [c for c in d["comparisons"] if c["metric"] == "mb_s"][0]
lo, hi = r["ci_low_pct"], r["ci_high_pct"]
out = "%.2f | [%.2f, %.2f] | %s" % (r["diff_pct"], lo or 0, hi or 0, r["verdict"])
if len(sys.argv) > 2:
    p = [c for c in d["calibrated"] if c["workstations"] == int(sys.argv[2])]
    if not p or p[0]["predicted_pct"] is None:
        out += " | predicted: none (%s)" % (p[0]["why_none"] if p else "no --calibrate-work rows")
    else:
        p = p[0]
        c = p["predicted_pct"]
        out += " | predicted %.2f: %s (their ratio %.2f; the steps\x27 s not the storage\x27s %.3f at A, %.3f at B)" % (
            c, "held" if lo is not None and lo <= c <= hi else "missed", p["calibration_ratio_pct"],
            p["not_storage_s_a"], p["not_storage_s_b"])
print(out)' "$@"
}

# find_max NAME LAB MEDIA: find-max in a lab, then N + 2 in a lab alike;
# the read-iops rule where LAB limits reads/s, else the bytes rule
find_max() {
	p=$1 lab=$2 media=$3
	DB=$W/$p.db
	bench --lab "$lab" --media "$media" --find-max --from 2 --repeat 1 \
		--warmup 0 --db "$DB" --label "$p" --calibrate 4
	n=$(q "select max_lo from experiment")
	hi=$(q "select coalesce(max_hi, '') from experiment")
	case $lab in
	*read-iops=*)
		cal=$(q "select reads_per_s from calibration")
		# a stream's backing reads over its play time, in steps with
		# no late frame
		per=$(q "select avg(1.0 * x.n * t.fps_num / (t.frames * t.fps_den)) from
			(select s.timeline_id, count(*) as n from access a
			 join stream s on s.id = a.stream_id where a.op = 0 and s.id in
			 (select bs.stream_id from bench_stream bs join bench_step_summary b
			  on b.step_id = bs.step_id where b.late_frames = 0)
			 group by s.id) x join timeline t on t.id = x.timeline_id") ;;
	*)
		cal=$(q "select bytes_per_s from calibration")
		per=$(q "select avg(1.0 * bytes * fps_num / (frames * fps_den)) from timeline
			where run_id = (select min(id) from run)") ;;
	esac
	# shellcheck disable=SC2046 # three words
	set -- $(rule "$n" "$cal" "$per")
	bench --lab "$lab" --media "$media" --workstations $((n + 2)) --repeat 1 \
		--warmup 0 --db "$DB" --label "$p+2"
	# shellcheck disable=SC2046 # three numbers
	set -- "$@" $(late "$(q "select max(id) from run")")
	put "${p}" "calibrated $cal, a stream $per: N in [$1, $2]; find-max [$n, $hi] ($3); at N + 2: $4 late frames, $5 storage, $6 issue"
	say "lab $p ($lab): calibrated $cal, a stream $per: N in [$1, $2]; find-max [$n, $hi] ($3); at N + 2: $4 late frames, $5 storage, $6 issue"
}

half=$(awk -v s="$LAB_SECONDS" 'BEGIN { print s / 2 }')
M1=$W/media-seed
"$GEN" --format seed --clips 4 --clip-seconds "$LAB_SECONDS" --timelines 16 --events 2 \
	--min-seconds "$half" --max-seconds "$half" "$M1" >/dev/null
fs_done=
for part in $LAB_PARTS; do
	case $part in
	1)
		# ------------------------------ 1 and 6: bandwidth-bound, per fs
		for fs in $LAB_FS; do
			if ! command -v "mkfs.$fs" >/dev/null 2>&1; then
				say "lab: no mkfs.$fs: $fs left out"
				put "gt1_$fs" "left out: no mkfs.$fs"
				continue
			fi
			find_max "gt1_$fs" "fs=$fs,read-bps=$LAB_BPS" "$M1"
			DB=$W/fs.db
			bench --lab "fs=$fs,read-bps=$LAB_BPS" --media "$M1" --pace off \
				--workstations "$LAB_AB_WS" --repeat 3 --db "$DB" --label "fs-$fs" \
				--calibrate 4
			fs_done="$fs_done $fs"
		done
		# 6: each file system against the first, pace=off
		first=
		for fs in $fs_done; do
			if [ -z "$first" ]; then
				first=$fs
				continue
			fi
			"$REPORT" "$W/fs.db" --compare "fs-$first" "fs-$fs" --json >"$W/fs-$fs.json"
			v=$(mb_s_row "$W/fs-$fs.json")
			put "gt6_${first}_$fs" "$v"
			say "lab 6: $fs against $first, pace=off, MB/s: diff % | 95 % interval in % | verdict: $v"
		done ;;
	2)
		# ------------------------------------------ 2: IOPS-bound
		M2=$W/media-small
		"$GEN" --clips 2 --clip-seconds "$LAB_SECONDS" --timelines 40 --events 1 \
			--min-seconds "$LAB_SECONDS" --max-seconds "$LAB_SECONDS" \
			--video-rate 400K --audio-tracks 0 "$M2" >/dev/null
		find_max gt2 "fs=ext4,read-iops=$LAB_IOPS" "$M2" ;;
	3)
		# --------------------------- 3: the seed's experiment, its RAID
		DB=$W/seed.db
		bench --lab "fs=ext4,$LAB_SEED_LIMITS" --media "$M1" \
			--workstations "$LAB_SEED_COUNTS" --repeat "$LAB_SEED_REPEAT" \
			--db "$DB" --label seed --calibrate 8
		run=$(q "select max(id) from run")
		put seed_cal "$(q "select printf('%.1f MB/s, %.0f reads/s of %d bytes', bytes_per_s / 1e6, reads_per_s, block_bytes) from calibration")"
		# a stream's backing reads a second, over the streams of the
		# smallest count
		put seed_reads_per_stream "$(q "with s as (select s.id, 1.0 * t.frames * t.fps_den / t.fps_num as secs
			from stream s join timeline t on t.id = s.timeline_id
			join bench_stream bs on bs.stream_id = s.id join bench_step b on b.id = bs.step_id
			where s.run_id = $run and b.repetition > 0
			and b.workstations = (select min(workstations) from bench_step where run_id = $run))
			select printf('%.1f', (select count(*) from access a where a.op = 0
				and a.stream_id in (select id from s)) / (select sum(secs) from s))")"
		q "select b.workstations, sum(b.late_frames), sum(b.frames), round(avg(b.mb_s), 1),
			(select count(*) from late_frame l join bench_stream bs on bs.stream_id = l.stream_id
			 join bench_step x on x.id = bs.step_id where x.run_id = $run
			 and x.workstations = b.workstations and x.repetition > 0 and l.cause = 'storage'),
			(select count(*) from late_frame l join bench_stream bs on bs.stream_id = l.stream_id
			 join bench_step x on x.id = bs.step_id where x.run_id = $run
			 and x.workstations = b.workstations and x.repetition > 0 and l.cause = 'issue')
			from bench_step_summary b where b.run_id = $run and b.repetition > 0
			group by b.workstations order by b.workstations" >"$W/seed.rows"
		while IFS='|' read -r ws nlate frames mbs st is; do
			put "seed_$ws" "$nlate late of $frames frames, $mbs MB/s; causes: storage $st, issue $is"
			say "lab 3: $ws workstations: $nlate late frames of $frames, $mbs MB/s; causes: storage $st, issue $is"
		done <"$W/seed.rows" ;;
	net)
		# ------------------ net: the seed's experiment over SMB
		DB=$W/seednet.db
		max=$(echo "$LAB_SEED_COUNTS" | tr ',' '\n' | sort -n | tail -1)
		bench --lab "fs=ext4,$LAB_SEED_LIMITS,server-link=$LAB_NET_SERVER,ws-link=$LAB_NET_WS,state-dir=$W/net-state" \
			--via smb --media "$M1" --workstations "$LAB_SEED_COUNTS" --repeat 1 \
			--warmup 0 --db "$DB" --label seed-smb --calibrate "$max"
		put seednet_links "server $LAB_NET_SERVER, workstations $LAB_NET_WS each; $(q "select group_concat(printf('%s %.1f MB/s', tool_name, bytes_per_s / 1e6), ', ')
			from (select case when block_bytes = 0 then 'network' else 'storage' end as tool_name, bytes_per_s from calibration)")"
		# a client plays when in time (the bench's own rule for --via
		# smb, the schema's bench_client_play)
		q "select b.workstations, count(*), sum(p.in_time),
			round(max(p.wall_s), 1), round(max(p.duration_s), 1),
			sum(p.late_frames), sum(p.reader_late_frames), sum(s.frames),
			(select group_concat(cause || ' ' || n, ', ') from (select l.cause, count(*) as n
			 from late_frame l join bench_client x on x.stream_id = l.stream_id
			 where x.step_id in (select id from bench_step where workstations = b.workstations
			 and run_id = b.run_id) group by l.cause))
			from bench_client_play p join bench_step b on b.id = p.step_id
			join stream s on s.id = p.stream_id
			group by b.workstations order by b.workstations" >"$W/seednet.rows"
		while IFS='|' read -r ws n ok wall dur late rlate frames causes; do
			put "seednet_$ws" "$ok of $n clients in real time (slowest $wall s for $dur s); $late late of $frames frames (causes: ${causes:-none}), $rlate late to the readers"
			say "lab net: $ws workstations over SMB: $ok of $n clients in real time (slowest $wall s for $dur s); $late late of $frames frames (causes: ${causes:-none}), $rlate late to the readers"
		done <"$W/seednet.rows" ;;
	4)
		# ---------------------- 4: a storage change, B and 0.94 B
		ba=${LAB_AB_BPS% *} bb=${LAB_AB_BPS#* }
		DB=$W/change.db
		# sequential sessions, each a bench in a lab of its own
		for s in A B B A A B; do
			b=$ba
			[ $s = A ] || b=$bb
			bench --lab "fs=ext4,read-bps=$b" --media "$M1" --pace off \
				--workstations "$LAB_AB_WS" --repeat "$LAB_AB_REPEAT" \
				--db "$DB" --label "seq-$s" --calibrate "$LAB_AB_WS" --calibrate-work
		done
		# alternating legs of one session, one lab
		bench --lab "fs=ext4,read-bps=$ba" --ab-lab "read-bps=$ba" "read-bps=$bb" \
			--media "$M1" --pace off --workstations "$LAB_AB_WS" \
			--repeat "$LAB_AB_REPEAT" --db "$DB" --label ab --calibrate "$LAB_AB_WS" \
			--calibrate-work
		for pair in seq-A,seq-B ab:A,ab:B; do
			la=${pair%,*} lb=${pair#*,}
			"$REPORT" "$DB" --compare "$la" "$lb" --json >"$W/change.json"
			v=$(mb_s_row "$W/change.json" "$LAB_AB_WS")
			put "gt4_${la%%[-:]*}" "$v"
			say "lab 4 ($la against $lb): MB/s diff % | 95 % interval in % | verdict | the change the calibrations predict: $v"
		done ;;
	5)
		# ----------------------------- 5: players on the lab storage
		if ! command -v mpv >/dev/null 2>&1 || ! command -v ffmpeg >/dev/null 2>&1; then
			say "lab: part 5 needs mpv and ffmpeg (make deps)"
			put gt5 "left out: no mpv or ffmpeg"
			continue
		fi
		# mpv's own counts at the end of the file: frames dropped, and
		# the times it paused to wait for its cache (buffering)
		cat >"$W/count.lua" <<'EOF'
local drop, ddrop, waits, was, name = 0, 0, 0, false, "?"
mp.register_event("file-loaded", function()
	name = mp.get_property("filename") or name
end)
mp.observe_property("time-pos", "number", function()
	drop = mp.get_property_number("frame-drop-count") or drop
	ddrop = mp.get_property_number("decoder-frame-drop-count") or ddrop
end)
mp.observe_property("paused-for-cache", "bool", function(_, v)
	if v and not was then waits = waits + 1 end
	was = v or false
end)
mp.register_event("end-file", function(e)
	io.stderr:write(string.format("player mpv %s end=%s dropped=%d decoder_dropped=%d cache_waits=%d\n",
		name, e.reason, drop, ddrop, waits))
end)
EOF
		# each player's wall time, start to exit, by a wrapper:
		# wall.sh LOG NAME FILE CMD...
		cat >"$W/wall.sh" <<'EOF'
log=$1 name=$2 f=$3
shift 3
t0=$(date +%s%N)
rc=0
"$@" 2>>"$log" || rc=$?
t1=$(date +%s%N)
echo "player $name $(basename "$f") wall_ms=$(((t1 - t0) / 1000000)) rc=$rc" >>"$log"
exit $rc
EOF
		DB=$W/players.db
		for player in mpv ffmpeg; do
			: >"$W/$player.log"
			case $player in
			mpv) rd="sh $W/wall.sh $W/mpv.log mpv {} mpv --no-config --vo=null --ao=null --really-quiet --script=$W/count.lua {}" ;;
			*) rd="sh $W/wall.sh $W/ffmpeg.log ffmpeg {} ffmpeg -nostdin -v error -re -i {} -f null -" ;;
			esac
			bench --lab "fs=ext4,read-bps=$LAB_PLAYER_BPS" --media "$M1" --movie \
				--reader "$rd" --workstations "$LAB_PLAYERS" --repeat 1 --warmup 0 \
				--db "$DB" --label "$player"
		done
		# per step and player: the players' evidence beside timelinefs's
		q "select b.label, b.workstations, t.name, round(1.0 * t.frames * t.fps_den / t.fps_num, 2),
			sum(s.late_frames), sum(s.frames)
			from bench_step b join bench_stream bs on bs.step_id = b.id
			join stream s on s.id = bs.stream_id join timeline t on t.id = s.timeline_id
			where b.repetition > 0 group by b.id, t.name order by b.id, t.name" >"$W/players.rows"
		"$PY" - "$W/players.rows" "$W/mpv.log" "$W/ffmpeg.log" >"$W/players.txt" <<'EOF'
import re, sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1])]
walls, mpvs = {}, {}
for path in sys.argv[2:]:
    for l in open(path):
        m = re.match(r"player (\S+) (\S+?)(\.mov)? (.*)", l)
        if not m:
            continue
        kv = dict(x.split("=", 1) for x in m.group(4).split())
        # a player's lines in the order of its plays (one a step)
        (walls if "wall_ms" in kv else mpvs).setdefault((m.group(1), m.group(2)), []).append(kv)
seen = {}
for label, ws, name, dur, late, fr in rows:
    k = (label, name)
    i = seen.get(k, 0)
    seen[k] = i + 1
    w = walls[k][i] if i < len(walls.get(k, [])) else {}
    mv = mpvs[k][i] if i < len(mpvs.get(k, [])) else {}
    wall = int(w.get("wall_ms", 0)) / 1000
    own = ("mpv dropped %s (decoder %s), cache waits %s" % (
        mv.get("dropped", "?"), mv.get("decoder_dropped", "?"), mv.get("cache_waits", "?"))
        if label == "mpv" else "exit %s" % w.get("rc", "?"))
    print("%s, %s players, %s: wall %.2f s for %s s (%+.2f s); %s; timelinefs: %s late of %s frames"
          % (label, ws, name, wall, dur, wall - float(dur), own, late, fr))
EOF
		i=0
		while IFS= read -r line; do
			i=$((i + 1))
			put "gt5_$i" "$line"
			say "lab 5: $line"
		done <"$W/players.txt" ;;
	*) say "lab: no part '$part' (1 2 3 4 5)"; exit 2 ;;
	esac
done
put load_end "$(cut -d' ' -f1 /proc/loadavg)"
