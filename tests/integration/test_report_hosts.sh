#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-report and the views of many hosts (issue 24) on a merged
# database built from real mounts: two experiments, each rank its own
# mount of a tiny generated media and its own database, timelinefs-bench
# on each mount for each step, then timelinefs-merge.  What the launcher
# (timelinefs-hosts) writes is written here by sqlite3 instead, and said
# so below: the experiment and host rows before each mount (with a clock
# offset of 2.5 s "measured" for rank 1, whose daemon runs with
# TIMELINEFS_TEST_CLOCK_OFFSET_NS=2500000000: its clock really is 2.5 s
# ahead), what rank 0 gave each rank in each step (experiment_share, as
# hosts_share_put writes it into rank 0's database, a share of 0 too) and
# the step tags of each bench call (as hosts_tag_steps does).
# Checked against independent SQL over the raw tables: per host and in
# total, a step rank 2 missed (incomplete, left out of the means), the
# steps after it (rank 2 given 0, "dead": complete) and a step of 1
# workstation over 2 hosts (the other given 0: complete), the
# "one physical host" line, the offset correction (two opens 0.1 ms apart
# on two mounts land within 1 ms of each other on the axis), --compare in
# total and per host, --csv and --json.
. "$(dirname "$0")/lib.sh"

need_tools sqlite3 python3
BENCH="$TOP/mount-scripts/timelinefs-bench"
REPORT="$TOP/mount-scripts/timelinefs-report"
PLOT="$TOP/mount-scripts/timelinefs-plot"
MERGE=$TLFS_BUILD/timelinefs-merge
[ -x "$MERGE" ] || { echo "missing $MERGE: run make first" >&2; exit 1; }
export TIMELINEFS_BIN_DIR="$TLFS_BUILD"
export TMPDIR="$T"
OFF=2500000000
UA=11111111-2222-4333-8444-555555555555
UB=11111111-2222-4333-8444-666666666666
MACHINE=$(cat /etc/machine-id 2>/dev/null || echo test-machine)

"$GEN" --clips 4 --clip-seconds 2 --timelines 3 --events 4 --min-seconds 0.3 \
	--max-seconds 0.6 --video-rate 2M "$T/media" >/dev/null

now_ns() { date +%s%N; }

# host_db DB UUID RANKS RANK OFFSET_NS: what the launcher writes into a
# rank's database before it mounts (here by hand): the schema, the
# experiment row and this rank's host row, its offset measured "at the
# start" 1 s ago and "at the end" 99 s later with 0.1 ms more (1 ppm of
# drift; rank 0: 0 and 0), each at the host's own clock (rank 0's + the
# offset)
host_db() {
	cat "$TOP"/schema/*.sql | sqlite3 "$1"
	t=$(( $(now_ns) + $5 ))
	sqlite3 "$1" "insert into experiment (id, uuid, started_at, ranks, machines,
		command, plan, max_lo, max_hi, verdict)
		values (1, '$2', '2026-12-05T22:00:00.000Z', $3, 1, 'test_report_hosts.sh',
		'find-max', 3, 4, 'the most that played: 3 workstations');
		insert into host (experiment_id, rank, name, machine_id, offset_start_ns,
		rtt_start_ns, t_start_ns, offset_end_ns, rtt_end_ns, t_end_ns, sync,
		complete, reason)
		values (1, $4, 'host$4', '$MACHINE', $5, 40000, $((t - 1000000000)),
		$(($5 + ($4 > 0 ? 100000 : 0))), 50000, $((t + 99000000000)), 'synchronized',
		$([ "$4" = 2 ] && [ "$2" = $UA ] && echo "0, 'no answer in step 2 within 60 s'" || echo "1, null"))"
}

# mount_host N DB LABEL UUID RANK [OFFSET_NS]: rank RANK's mount $T/mN
mount_host() {
	if [ -n "${6:-}" ]; then
		export TIMELINEFS_TEST_CLOCK_OFFSET_NS="$6"
	fi
	mount_fs "$T/media" "$T/m$1" -o "db=$2,label=$3,pace=off,experiment=$4,rank=$5"
	unset TIMELINEFS_TEST_CLOCK_OFFSET_NS
	eval "D$1=\$DAEMON"
}

# step EXP STEP_NO TOTAL DB0 SHARES N:DB:SHARE...: one experiment step:
# what rank 0 gave every rank (SHARES "RANK:N ...", a share of 0 too)
# written into rank 0's database DB0 as hosts_share_put does, then a
# bench on each mount N at once (SHARE workstations), then its bench_step
# rows tagged as hosts_tag_steps does (by hand here)
step() {
	exp=$1
	no=$2
	total=$3
	db0=$4
	shares=$5
	shift 5
	planned=$(now_ns)
	for s in $shares; do
		sqlite3 -cmd ".timeout 5000" "$db0" "insert or replace into experiment_share
			(experiment_id, step_no, rank, workstations, repetition, total_workstations,
			planned_unix_ns) values (1, $no, ${s%%:*}, ${s#*:}, 1, $total, $planned)"
	done
	pids=
	for h in "$@"; do
		n=${h%%:*}
		rest=${h#*:}
		db=${rest%:*}
		share=${rest##*:}
		last=$(sqlite3 -cmd ".timeout 5000" "$db" "select coalesce(max(id), 0) from bench_step")
		echo "$last" >"$T/last.$n"
		"$BENCH" --media "$T/media" --mountpoint "$T/m$n" --db "$db" \
			--workstations "$share" --repeat 1 --warmup 0 --cache keep \
			>"$T/bench.$n" 2>&1 &
		pids="$pids $!"
	done
	rc=0
	for p in $pids; do
		wait "$p" || rc=1
	done
	check_eq "experiment $exp step $no: every bench runs" 0 "$rc"
	[ "$rc" = 0 ] || cat "$T"/bench.*
	for h in "$@"; do
		n=${h%%:*}
		rest=${h#*:}
		db=${rest%:*}
		sqlite3 -cmd ".timeout 5000" "$db" "update bench_step set experiment_id = 1,
			step_no = $no, total_workstations = $total, planned_unix_ns = $planned
			where id > $(cat "$T/last.$n")"
	done
}

# experiment A (label a): 3 ranks; rank 1's clock 2.5 s ahead; rank 2
# plays step 1, is given 1 workstation in step 2 and does not play it (it
# "died": its host row incomplete), and is given 0 in step 3, which ranks
# 0 and 1 play (2 + 1): step 3 is complete
for r in 0 1 2; do
	off=0
	[ $r != 1 ] || off=$OFF
	host_db "$T/a$r.db" $UA 3 $r $off
done
mount_host 0 "$T/a0.db" a $UA 0
mount_host 1 "$T/a1.db" a $UA 1 $OFF
mount_host 2 "$T/a2.db" a $UA 2
step A 1 3 "$T/a0.db" "0:1 1:1 2:1" "0:$T/a0.db:1" "1:$T/a1.db:1" "2:$T/a2.db:1"
step A 2 3 "$T/a0.db" "0:1 1:1 2:1" "0:$T/a0.db:1" "1:$T/a1.db:1"
step A 3 3 "$T/a0.db" "0:2 1:1 2:0" "0:$T/a0.db:2" "1:$T/a1.db:1"
# an open on rank 0's mount and one on rank 1's, each between two reads
# of this process's clock (rank 0's: no hook here)
python3 -c '
import os, sys, time
for p in sys.argv[1:]:
    t = time.time_ns()
    fd = os.open(p, os.O_RDONLY)
    print(t, time.time_ns())
    os.read(fd, 1)
    os.close(fd)
' "$T/m0/timeline01" "$T/m1/timeline01" >"$T/opens"
for n in 0 1 2; do
	fusermount3 -u "$T/m$n"
	eval "wait_daemon \$D$n"
done

# experiment B (label b): 2 ranks, 2 steps of 3 workstations (2 + 1),
# then a step of 1 workstation: rank 1 given 0 (find-max from 1 on 2
# hosts), complete with rank 0 alone
for r in 0 1; do
	host_db "$T/b$r.db" $UB 2 $r 0
done
mount_host 3 "$T/b0.db" b $UB 0
mount_host 4 "$T/b1.db" b $UB 1
step B 1 3 "$T/b0.db" "0:2 1:1" "3:$T/b0.db:2" "4:$T/b1.db:1"
step B 2 3 "$T/b0.db" "0:2 1:1" "3:$T/b0.db:2" "4:$T/b1.db:1"
step B 3 1 "$T/b0.db" "0:1 1:0" "3:$T/b0.db:1"
for n in 3 4; do
	fusermount3 -u "$T/m$n"
	eval "wait_daemon \$D$n"
done

DB=$T/merged.db
rc=0
"$MERGE" "$DB" "$T/a0.db" "$T/a1.db" "$T/a2.db" "$T/b0.db" "$T/b1.db" >"$T/merge.out" 2>&1 || rc=$?
check_eq "timelinefs-merge of the five databases" 0 "$rc"
[ "$rc" = 0 ] || cat "$T/merge.out"

check_eq "merged: 2 experiments, 5 hosts, 5 runs each on its host" "2|5|5|0" \
	"$(q "select (select count(*) from experiment), (select count(*) from host),
		(select count(*) from run), (select count(*) from run where host_id is null)")"

# ---- the views against the raw tables
check_eq "experiment_summary: ranks, machines, note, hosts, complete hosts, steps, complete steps" \
	"3|1|one physical host|3|2|3|2 2|1|one physical host|2|2|3|3" \
	"$(q "select group_concat(x, ' ') from (select ranks || '|' || machines || '|' || note || '|' ||
		hosts || '|' || complete_hosts || '|' || steps || '|' || complete_steps as x
		from experiment_summary order by uuid)")"
EA=$(q "select id from experiment where uuid = '$UA'")
EB=$(q "select id from experiment where uuid = '$UB'")
check_eq "merged: what rank 0 gave each rank (experiment_share), every row once, under the merged experiments' ids" \
	"$(sqlite3 "$T/a0.db" "select count(*) from experiment_share")|$(sqlite3 "$T/b0.db" "select count(*) from experiment_share")|0" \
	"$(q "select (select count(*) from experiment_share where experiment_id = $EA) || '|' ||
		(select count(*) from experiment_share where experiment_id = $EB) || '|' ||
		(select count(*) from experiment_share where experiment_id not in ($EA, $EB))")"

# the offset correction: rank 1's daemon read its clock 2.5 s ahead;
# its host row says so; on the axis its open lands next to rank 0's
raw=$(q "select (select r.t0_unix_ns + s.opened_ns from stream s join run r on r.id = s.run_id
		join host h on h.id = r.host_id where h.experiment_id = $EA and h.rank = 1
		and s.id not in (select stream_id from bench_stream))
	- (select r.t0_unix_ns + s.opened_ns from stream s join run r on r.id = s.run_id
		join host h on h.id = r.host_id where h.experiment_id = $EA and h.rank = 0
		and s.id not in (select stream_id from bench_stream))")
# less the time between the two opens as this process saw it (between
# the first's earliest and the second's latest clock read: under load
# the second came 13 ms after the first), within 1 ms
check "the two opens: 2.5 s apart on the hosts' own clocks, less the time between them (the hook worked: $raw ns)" \
	awk -v d="$raw" -v off="$OFF" 'NR == 1 { a0 = $1; a1 = $2 }
		NR == 2 { lo = $1 - a1; hi = $2 - a0 }
		END { exit !(d - off > lo - 1e6 && d - off < hi + 1e6) }' "$T/opens"
for r in 0 1; do
	axis=$(q "select x.t0_axis_ns + s.opened_ns from stream s join run_axis x on x.run_id = s.run_id
		where x.experiment_id = $EA and x.rank = $r and s.id not in (select stream_id from bench_stream)")
	check "rank $r's open on rank 0's axis (run_axis) within 1 ms of when it was made ($(sed -n "$((r + 1))p" "$T/opens"); $axis)" \
		awk -v a="$axis" -v r=$((r + 1)) 'NR == r { f = a > $1 - 1e6 && a < $2 + 1e6 } END { exit !f }' "$T/opens"
done
# run_axis interpolates the offset between start and end (1 ppm here):
# independently, offset_start + drift * (t0 - t_start) / span
check_eq "run_axis: the offset at the run's t0, interpolated (independent formula, to 1 ns)" "0" \
	"$(q "select count(*) from run_axis x join run r on r.id = x.run_id join host h on h.id = r.host_id
		where abs(x.offset_ns - (h.offset_start_ns + (h.offset_end_ns - h.offset_start_ns) *
		(r.t0_unix_ns - h.t_start_ns) * 1.0 / (h.t_end_ns - h.t_start_ns))) > 1
		or (h.rank > 0 and x.offset_ns = h.offset_start_ns)")"

check_eq "host_summary: rank, offset start/end ms, drift ppm, complete, runs, steps (experiment A)" \
	"0|0.0|0.0|0.0|1|1|3 1|2500.0|2500.1|1.0|1|1|3 2|0.0|0.1|1.0|0|1|1" \
	"$(q "select group_concat(x, ' ') from (select rank || '|' || offset_start_ms || '|' ||
		offset_end_ms || '|' || drift_ppm || '|' || complete || '|' || runs || '|' || steps as x
		from host_summary where experiment_id = $EA order by rank)")"
check_eq "host_summary: frames, late frames and bytes as the raw stream rows of each host's steps" "0" \
	"$(q "select count(*) from host_summary h where h.frames <> (select sum(s.frames) from stream s
		join bench_stream x on x.stream_id = s.id join bench_step b on b.id = x.step_id
		join run r on r.id = b.run_id where r.host_id = h.host_id)
		or h.late_frames <> (select sum(s.late_frames) from stream s join bench_stream x on x.stream_id = s.id
		join bench_step b on b.id = x.step_id join run r on r.id = b.run_id where r.host_id = h.host_id)
		or h.bytes <> (select sum(s.bytes) from stream s join bench_stream x on x.stream_id = s.id
		join bench_step b on b.id = x.step_id join run r on r.id = b.run_id where r.host_id = h.host_id)")"

# an experiment step in total, from the raw tables: streams, frames,
# bytes, and the wall time on the axis (the offsets interpolated here
# independently of run_axis)
cat >"$T/raw.sql" <<'EOF'
create temp view raw_host_step as
select b.experiment_id, b.step_no, r.host_id, h.rank,
       count(*) as streams, sum(s.frames) as frames, sum(s.late_frames) as late,
       sum(s.bytes) as bytes,
       min(r.t0_unix_ns - (h.offset_start_ns + (h.offset_end_ns - h.offset_start_ns) *
	   (r.t0_unix_ns - h.t_start_ns) * 1.0 / (h.t_end_ns - h.t_start_ns)) + b.started_ns) as st,
       max(r.t0_unix_ns - (h.offset_start_ns + (h.offset_end_ns - h.offset_start_ns) *
	   (r.t0_unix_ns - h.t_start_ns) * 1.0 / (h.t_end_ns - h.t_start_ns)) + b.ended_ns) as en
from bench_step b join run r on r.id = b.run_id join host h on h.id = r.host_id
join bench_stream x on x.step_id = b.id join stream s on s.id = x.stream_id
where b.experiment_id is not null
group by b.experiment_id, b.step_no, r.host_id;
create temp view raw_step as
select experiment_id, step_no, count(*) as hosts, sum(streams) as streams,
       sum(frames) as frames, sum(late) as late, sum(bytes) as bytes,
       (max(en) - min(st)) / 1e9 as wall, (max(st) - min(st)) / 1e6 as spread
from raw_host_step group by experiment_id, step_no;
EOF
rq() {
	sqlite3 -batch -noheader -cmd ".timeout 5000" -cmd ".read $T/raw.sql" "$DB" "$1"
}
check_eq "experiment_step_summary: hosts played/expected, complete, streams per step" \
	"1|3|3|1|3 2|2|3|0|2 3|2|2|1|3" \
	"$(q "select group_concat(x, ' ') from (select step_no || '|' || hosts_played || '|' ||
		hosts_expected || '|' || complete || '|' || streams as x
		from experiment_step_summary where experiment_id = $EA order by step_no)")"
check_eq "experiment_step_summary of B: step 3, 1 workstation, rank 1 given 0: 1/1 hosts, complete" \
	"3|1|1|1|1|0" \
	"$(q "select step_no || '|' || total_workstations || '|' || hosts_played || '|' || hosts_expected || '|' ||
		complete || '|' || hosts_missed from experiment_step_summary where experiment_id = $EB and step_no = 3")"
check_eq "host_summary: the steps each host missed, and since when it missed every one (A's host2: step 2)" \
	"A0 0 - A1 0 - A2 1 2 B0 0 - B1 0 -" \
	"$(q "select group_concat(x, ' ') from (select case experiment_id when $EA then 'A' else 'B' end ||
		rank || ' ' || missed_steps || ' ' || coalesce(out_since_step, '-') as x
		from host_summary where experiment_id in ($EA, $EB) order by experiment_id = $EB, rank)")"
check_eq "experiment_step_summary: frames, late frames, bytes, wall on the axis (1 ms), spread (1 ms), MB/s (0.1 %) as the raw rows" \
	"0|6" \
	"$(rq "select count(*) filter (where e.frames <> w.frames or e.late_frames <> w.late
		or e.bytes <> w.bytes or abs(e.wall_s - w.wall) > 0.001 or abs(e.start_spread_ms - w.spread) > 1
		or abs(e.mb_s - w.bytes / 1e6 / w.wall) > 0.001 * e.mb_s), count(*)
		from experiment_step_summary e join raw_step w on w.experiment_id = e.experiment_id
		and w.step_no = e.step_no")"
check_eq "experiment_step_summary: the straggler is the host whose end is latest on the axis" "0" \
	"$(rq "select count(*) from experiment_step_summary e where e.straggler_host_id <>
		(select host_id from raw_host_step w where w.experiment_id = e.experiment_id
		 and w.step_no = e.step_no order by en desc limit 1)")"

# (p50 here: the smallest latency with at least ceil(n / 2) at or below it)
check_eq "experiment_step_latency: accesses, max and p50 over every host's reads of the step" "0|6" \
	"$(q "with acc as (select b.experiment_id as e, b.step_no as s, a.done_ns - a.issued_ns as lat
		from access a join bench_stream x on x.stream_id = a.stream_id
		join bench_step b on b.id = x.step_id where a.op not in (9, 10)),
	w as (select e, s, count(*) as n, max(lat) as mx from acc group by e, s)
	select count(*) filter (where l.accesses <> w.n or l.max_us <> round(w.mx / 1e3, 1)
		or l.p50_us <> round((select min(a1.lat) from acc a1 where a1.e = w.e and a1.s = w.s
			and (select count(*) from acc a2 where a2.e = a1.e and a2.s = a1.s
			     and a2.lat <= a1.lat) >= (w.n + 1) / 2) / 1e3, 1)), count(*)
	from experiment_step_latency l join w on w.e = l.experiment_id and w.s = l.step_no")"

# ---- the report
rc=0
sh "$REPORT" "$DB" >"$T/rep" 2>"$T/rep.err" || rc=$?
check_eq "report runs" "0|" "$rc|$(cat "$T/rep.err")"
check_eq "report: the one-physical-host line, once per experiment" "1|1" \
	"$(grep -c '^3 ranks on 1 machine: one physical host, not a scale-out measurement$' "$T/rep")|$(grep -c '^2 ranks on 1 machine: one physical host, not a scale-out measurement$' "$T/rep")"
check "report: find-max's bracket" \
	grep -q '^find-max: 3 workstations played with 0 late frames in every repetition, 4 did not: bracket \[3, 4\]$' "$T/rep"
check "report: the hosts of experiment A with the reason of the incomplete one" \
	grep -Eq "^$EA +2 +host2 .* 0 +no answer in step 2 within 60 s " "$T/rep"
check_eq "report: experiment A's step 2 in total: 2/3 hosts, not complete; host2 missed it" "1|1" \
	"$(grep -Ec "^$EA +2 +\(total\) +3 +1 +2/3 +no " "$T/rep")|$(grep -Ec "^$EA +2 +host2 +2 +1 +missed" "$T/rep")"
check_eq "report: the missed rows: host2 in step 2 only (given 1; in step 3 given 0, B's rank 1 in its step 3 likewise: neither missed)" \
	"$EA,2,host2,1" \
	"$(sh "$REPORT" "$DB" --exp-steps --csv | awk -F, '$7 == "missed" { printf "%s%s,%s,%s,%s", n++ ? " " : "", $1, $2, $3, $5 }')"
sh "$REPORT" "$DB" --exp-steps --csv >"$T/steps.csv"
check_eq "--exp-steps --csv: the total rows' streams and frames as the raw rows, per step" \
	"$(rq "select group_concat(experiment_id || ',' || step_no || ',' || streams || ',' || frames, ' ')
		from (select * from raw_step order by experiment_id, step_no)")" \
	"$(awk -F, '$3 == "(total)" { printf "%s%s,%s,%s,%s", n++ ? " " : "", $1, $2, $9, $12 }' "$T/steps.csv")"
check_eq "--exp-steps --csv: each host's rows as the raw rows" \
	"$(rq "select group_concat(experiment_id || ',' || step_no || ',' || rank || ',' || streams || ',' || frames, ' ')
		from (select * from raw_host_step order by experiment_id, step_no, rank)")" \
	"$(awk -F, '$7 == "played" { printf "%s%s,%s,%s,%s,%s", n++ ? " " : "", $1, $2, $4, $9, $12 }' "$T/steps.csv")"
# the means of experiment A's 3 workstations: steps 1 and 3 only
sh "$REPORT" "$DB" --exp-means --csv >"$T/means.csv"
want=$(rq "select printf('%.3f', avg(round(wall, 3))) from raw_step where experiment_id = $EA and step_no in (1, 3)")
check_eq "--exp-means: experiment A, 3 workstations: 2 complete steps, 1 incomplete, mean wall of steps 1 and 3 only" \
	"2|1|$want" \
	"$(awk -F, -v e="$EA" '$1 == e && $3 == "(total)" { printf "%s|%s|%.3f", $5, $6, $7 }' "$T/means.csv")"
want=$(rq "select printf('%.3f', avg(round(b.wall_s, 3))) from bench_step b join run r on r.id = b.run_id
	join host h on h.id = r.host_id where h.experiment_id = $EA and h.rank = 2")
check_eq "--exp-means: host2's mean over the complete steps (it played step 1 of them)" "1|$want" \
	"$(awk -F, -v e="$EA" '$1 == e && $3 == "host2" { printf "%s|%.3f", $5, $7 }' "$T/means.csv")"
check_eq "report --steps: each bench step with its host, rank and experiment step" "0" \
	"$(sh "$REPORT" "$DB" --steps --csv | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["host"] !~ /^host[0-2]$/ || $c["rank"] == "" || $c["exp_step"] == "" { n++ } END { print n + 0 }')"
# (columns by their names: the steps table grows)
# a bench step's id is one host's part: step 1 of three hosts read as
# "step" 1, 2, 3; the rows of one experiment step go together
sh "$REPORT" "$DB" --steps --csv >"$T/bsteps.csv"
check_eq "report --steps: the id column named bench_step, the rows in experiment, exp_step, rank order" "bench_step|0" \
	"$(head -n 1 "$T/bsteps.csv" | cut -d, -f1)|$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = sprintf("%06d %06d %06d", $c["experiment"], $c["exp_step"], $c["rank"]); if (k < last) n++; last = k } END { print n + 0 }' "$T/bsteps.csv")"
check "report --json: valid, with the experiments' tables first" \
	sh -c "sh '$REPORT' '$DB' --json | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(list(d)[:4] != [\"experiments\", \"hosts\", \"exp_steps\", \"exp_means\"] or len(d[\"hosts\"]) != 5)'"

# (A: rank 0 played 1 workstation in steps 1 and 2, 2 in step 3; B:
# rank 0 2 in steps 1 and 2, 1 in step 3)
check_eq "--spread: a group per host (label, rank, name), its own steps (by label and its workstations)" \
	"a rank 0 (host0)|2 a rank 1 (host1)|3 a rank 2 (host2)|1 a rank 0 (host0)|1 b rank 0 (host0)|1 b rank 1 (host1)|2 b rank 0 (host0)|2" \
	"$(sh "$REPORT" "$DB" --spread --csv | awk -F, '$3 == "wall_s" { gsub(/"/, "", $1); printf "%s%s|%s", n++ ? " " : "", $1, $4 }')"

# merged again (by hand after a partial failure, say): nothing added, the
# report the same
rc=0
"$MERGE" "$DB" "$T/a2.db" "$T/a0.db" "$T/b1.db" "$T/a1.db" "$T/b0.db" >"$T/merge2.out" 2>&1 || rc=$?
sh "$REPORT" "$DB" >"$T/rep2" 2>&1
check_eq "merged again: the report is the same" "0|" "$rc|$(diff "$T/rep" "$T/rep2")"
check_eq "merged again: no share row added" "$(($(sqlite3 "$T/a0.db" "select count(*) from experiment_share") + $(sqlite3 "$T/b0.db" "select count(*) from experiment_share")))" \
	"$(q "select count(*) from experiment_share")"

# ---- --compare: in total and per host
rc=0
sh "$REPORT" "$DB" --compare a b --csv >"$T/cmp.csv" 2>"$T/cmp.err" || rc=$?
check_eq "--compare a b --csv runs" 0 "$rc"
check "--compare --csv: the scope column" grep -q ',method,scope$' "$T/cmp.csv"
wa=$(rq "select avg(wall) from raw_step where experiment_id = $EA and step_no in (1, 3)")
wb=$(rq "select avg(wall) from raw_step where experiment_id = $EB and step_no in (1, 2)")
check "--compare in total: 2 complete steps a side (A's step 3 of 2 hosts, host2 given 0, among them), mean wall on the axis as the raw rows (1 ms)" \
	awk -F, -v a="$wa" -v b="$wb" '$1 == 3 && $2 == "wall_s" && $NF == "\"in total\"" {
		f = $3 == 2 && $6 == 2 && ($4 - a) ^ 2 < 1e-6 && ($7 - b) ^ 2 < 1e-6 }
		END { exit !f }' "$T/cmp.csv"
wa=$(rq "select avg(b.wall_s) from bench_step b join run r on r.id = b.run_id join host h on h.id = r.host_id
	where h.experiment_id = $EA and h.rank = 0 and b.step_no in (1, 3)")
check "--compare per host: rank 0's own steps, the complete ones (2: step 2 left out)" \
	awk -F, -v a="$wa" '$1 == 3 && $2 == "wall_s" && $NF == "\"rank 0 (host0)\"" {
		f = $3 == 2 && $6 == 2 && ($4 - a) ^ 2 < 1e-9 } END { exit !f }' "$T/cmp.csv"
sh "$REPORT" "$DB" --compare a b >"$T/cmp.txt" 2>&1
check "--compare text: rank 2 only in A, said" \
	sh -c "grep -A1 '^rank 2 (host2), 3 workstations in total: A 1 repetition, B 0 repetitions\$' '$T/cmp.txt' | grep -q 'only a has this count'"
check_eq "--compare text: both experiments said to be one physical host (docs/hosts.md: every report)" \
	"experiment $EA (a): 3 ranks on 1 machine: one physical host, not a scale-out measurement|experiment $EB (b): 2 ranks on 1 machine: one physical host, not a scale-out measurement" \
	"$(grep '^experiment .* on 1 machine: one physical host' "$T/cmp.txt" | paste -sd '|')"
check_eq "--compare text: the hosts' own opt.db, opt.rank and opt.experiment are no difference nor warning" "0" \
	"$(grep -Ec '^(  |warning: .*)opt\.(db|rank|experiment)' "$T/cmp.txt")"
check "--compare text: in total first, then per host" \
	awk '/^in total, 3 workstations: A 2 repetitions, B 2 repetitions$/ { t = NR }
		/^rank 0 \(host0\), 3 workstations in total: A 2 repetitions, B 2 repetitions$/ { h = NR }
		END { exit !(t && h > t) }' "$T/cmp.txt"
check "--compare --json: valid, every comparison scoped" \
	sh -c "sh '$REPORT' '$DB' --compare a b --json | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(not d[\"comparisons\"] or any(\"scope\" not in c for c in d[\"comparisons\"] + d[\"bootstrap\"]))'"

# ---- timelinefs-plot per host: a series and a histogram per host, on
# rank 0's axis
if "${TLFS_PYTHON:-/usr/bin/python3}" -c 'import matplotlib' 2>/dev/null; then
	rc=0
	sh "$PLOT" "$DB" --experiment "$EA" "$T/exp.png" >"$T/plot.out" 2>&1 || rc=$?
	n=$(q "select count(*) from access a join stream s on s.id = a.stream_id join run r on r.id = s.run_id
		join host h on h.id = r.host_id where h.experiment_id = $EA and a.done_ns is not null and a.op not in (9, 10)")
	check_eq "plot --experiment: every host's reads, 3 hosts" \
		"0|wrote $T/exp.png: experiment $EA, $n reads of 3 hosts" \
		"$rc|$(sed 's/, [0-9]* late.*//' "$T/plot.out")"
	check "plot --experiment: a PNG" sh -c "head -c 8 '$T/exp.png' | od -An -c | grep -q 'P   N   G'"
	rc=0
	sh "$PLOT" "$DB" --experiment "$EA" "$T/exp2.png" --exp-step 2 >"$T/plot.out" 2>&1 || rc=$?
	check_eq "plot --exp-step 2: the 2 hosts that played it" "0|2" \
		"$rc|$(sed -n 's/.* reads of \([0-9]*\) hosts.*/\1/p' "$T/plot.out")"
	rc=0
	sh "$PLOT" "$DB" --experiment 99 "$T/x.png" >"$T/plot.out" 2>&1 || rc=$?
	check_eq "plot --experiment 99: no such experiment, exit 1" "1|1" \
		"$rc|$(grep -c 'no experiment 99' "$T/plot.out")"
	rc=0
	sh "$PLOT" "$DB" --experiment "$EA" "$T/x.png" --step 1 >"$T/plot.out" 2>&1 || rc=$?
	check_eq "plot --experiment with a run's --step: usage error" 2 "$rc"
	# --html of labels with experiment steps: an experiment's picture once
	# for its hosts' runs, the comparisons in total and per host, each
	# experiment said to be one physical host
	rc=0
	sh "$REPORT" "$DB" --compare a b --html "$T/exp.html" >/dev/null 2>"$T/html.err" || rc=$?
	check_eq "--html of experiments: 2 pictures (one an experiment), in total and per host, one physical host said" \
		"0|plot-experiment-$EA plot-experiment-$EB|1|1|2" \
		"$rc|$(grep -o 'id="plot-[^"]*"' "$T/exp.html" | sed 's/id="//; s/"//' | paste -sd ' ')|$(grep -c '<h4>in total, 3 workstations: A 2 repetitions, B 2 repetitions</h4>' "$T/exp.html")|$(grep -c '<h4>rank 0 (host0), 3 workstations in total: A 2 repetitions, B 2 repetitions</h4>' "$T/exp.html")|$(grep -c 'on 1 machine: one physical host, not a scale-out measurement</p>' "$T/exp.html")"
else
	skip_case "no matplotlib (make deps installs python3-matplotlib)"
fi

# ---- a database of one host keeps its report: no experiment section
"$BENCH" --media "$T/media" --workstations 1 --repeat 1 --warmup 0 --pace off \
	--db "$T/one.db" --label one >/dev/null 2>&1
check_eq "a database of one host: no experiment, no host columns" "0|run,label" \
	"$(sh "$REPORT" "$T/one.db" | grep -c -e '^experiment ' -e 'one physical host')|$(sh "$REPORT" "$T/one.db" --runs --csv | head -1 | cut -d, -f1,2)"
check_eq "a database of one host: --hosts says it has no experiment (exit 1)" "1" \
	"$(sh "$REPORT" "$T/one.db" --hosts >/dev/null 2>&1 || echo $?)"

if command -v shellcheck >/dev/null 2>&1; then
	check "shellcheck timelinefs-report" shellcheck "$REPORT"
fi
finish
