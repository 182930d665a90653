#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-hosts (issue 24) under mpirun on one machine, three ranks each
# with its own mount and database: (a) a bench of 2 steps merged into one
# database with every rank's streams once, 3 complete hosts, machines 1,
# merged again with nothing added; (b) a clock offset injected into rank 1
# (TIMELINEFS_TEST_CLOCK_OFFSET_NS) measured within 1 ms, the step starts
# on the common axis within 50 ms while raw they are 2.5 s apart; (c) kill
# -9 of rank 2 mid-step: the others finish, rank 2 incomplete with its
# reason, nothing of ranks 0 and 1 lost; (c2) a rank whose bench hangs
# stops it itself when rank 0 has given up on it; (c3) a host that ends
# late is named the straggler; (d) SIGINT to mpirun
# mid-step: every rank stops, nothing mounted, no process left; (e) --find-max to its
# cap, and with every read late (-o inject) to "not even 1"; (f) bad
# options (exit 2 naming the option) and missing media (exit 1, nothing
# mounted); (g) a run without mpirun is one host; (h) a rank that cannot
# mount is incomplete with the daemon's message, the others play; (i) two
# experiments in a row with the same --db: each host's database keeps
# both, the second --out holds only the second (the first --out
# untouched), and timelinefs-merge --experiment takes one from a host's
# database.  Nothing is left mounted or running in any case (trap).
# shellcheck disable=SC2086 # $SMALL, $COMMON and $MPI: option lists, split on purpose
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

need_tools mpirun sqlite3
HOSTS=$TLFS_BUILD/timelinefs-hosts
[ -x "$HOSTS" ] || { echo "missing $HOSTS: run make first" >&2; exit 1; }
MERGE=$TLFS_BUILD/timelinefs-merge
export TIMELINEFS_BIN_DIR="$TLFS_BUILD"
# private mount points and the bench's work folders under $T
export TMPDIR="$T"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# one machine, three ranks; TCP between them (no shared-memory segments
# left in /dev/shm by a rank killed with -9)
MPI="mpirun --oversubscribe --mca btl self,tcp"
SMALL='--clips 4 --clip-seconds 2 --timelines 6 --events 3 --min-seconds 0.3 --max-seconds 0.5 --video-rate 2M'
"$GEN" $SMALL "$T/media" >/dev/null
# longer timelines for the cases that stop a rank mid-step
"$GEN" --clips 4 --clip-seconds 4 --timelines 4 --events 3 --min-seconds 1 \
	--max-seconds 1.2 --video-rate 2M "$T/long" >/dev/null
COMMON="--repeat 1 --warmup 0 --start-margin 1 --step-timeout 5"

# the mpirun of a case in the background: its pid in MPIRUN, killed (and
# its ranks) by the EXIT trap if the case does not end it
MPIRUN=
stop_mpirun() {
	[ -n "$MPIRUN" ] || return 0
	kill -TERM "$MPIRUN" 2>/dev/null
	wait "$MPIRUN" 2>/dev/null
	MPIRUN=
}
# every process and mount of ours gone: the ranks (their args name $T),
# the daemons and benches they started
left_over() {
	pgrep -f "timelinefs(-hosts|-bench)? .*$T/" 2>/dev/null
	grep " $T/" /proc/mounts
}
released() {
	i=0
	while [ -n "$(left_over)" ]; do
		i=$((i + 1))
		[ $i -lt "${1:-100}" ] || return 1
		sleep 0.1
	done
}
hosts_cleanup() {
	stop_mpirun
	for p in $(pgrep -f "timelinefs(-hosts|-bench)? .*$T/" 2>/dev/null); do
		kill -9 "$p" 2>/dev/null
	done
	awk -v t="$T/" 'index($2, t) == 1 { print $2 }' /proc/mounts |
		while IFS= read -r m; do fusermount3 -u -z "$m"; done
}
trap 'hosts_cleanup; cleanup || exit 1' EXIT

sq() {
	sqlite3 -batch -noheader -cmd ".timeout 5000" "$1" "$2"
}

# ------------------------------------------------------------ (a)
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --workstations 2,4 $COMMON --pace 4 \
	--db "$T/a-%h-%r.db" --mountpoint "$T/amnt-%h-%r" --out "$T/a.db" --label a \
	>"$T/a.out" 2>"$T/a.err" || rc=$?
check_eq "(a) three ranks play a bench of 2 steps: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/a.out" "$T/a.err"
check "(a) a line per step" sh -c "[ \$(grep -c '^step [12]: ' '$T/a.out') -eq 2 ]"
check "(a) step 2: 4 workstations over 3 hosts" grep -q '^step 2: 4 workstations (repetition 1) over 3 hosts: 0 late frames' "$T/a.out"
check "(a) the output says one physical host" grep -q '^machines: 1 (3 ranks on one physical host: not a scale-out measurement)' "$T/a.out"
A=$T/a.db
n_copies=0
for f in "$T"/a.db.hosts/[0-2]-*.db; do
	[ ! -f "$f" ] || n_copies=$((n_copies + 1))
done
check_eq "(a) each host's copy in OUT.hosts/RANK-HOST.db" 3 "$n_copies"
sum=0
for f in "$T"/a.db.hosts/*.db; do
	[ -f "$f" ] || continue
	sum=$((sum + $(sq "$f" "select count(*) from stream")))
done
check_eq "(a) the merged streams are the copies' streams, each once" "$sum" "$(sq "$A" "select count(*) from stream")"
check "(a) streams were played on every host" [ "$sum" -ge 6 ]
check_eq "(a) three runs, each uuid once, each its own host row" "3|3|3" \
	"$(sq "$A" "select count(*), count(distinct uuid), count(distinct host_id) from run")"
check_eq "(a) three host rows, ranks 0-2, all complete" "3|0,1,2|3" \
	"$(sq "$A" "select count(*), group_concat(rank), sum(complete) from (select * from host order by rank)")"
check_eq "(a) the experiment: 3 ranks, 1 machine, plan list" "1|3|1|list" \
	"$(sq "$A" "select count(*), ranks, machines, plan from experiment")"
check_eq "(a) each host's steps tagged 1 and 2 (total 2 on 2 hosts, then 4 on 3)" "1|2|2 2|4|3" \
	"$(sq "$A" "select group_concat(x, ' ') from (select step_no || '|' || total_workstations || '|' || count(*) as x from bench_step group by step_no order by step_no)")"
check_eq "(a) the shares of 4 workstations: 2, 1, 1" "2 1 1" \
	"$(sq "$A" "select group_concat(b.workstations, ' ') from bench_step b join run r on r.id = b.run_id join host h on h.id = r.host_id where b.step_no = 2 order by h.rank")"
amnt=0
for r in 0 1 2; do
	! grep -q "^using the mount $T/amnt-[^/]*-$r " "$T"/a-*-$r.db.bench.log || amnt=$((amnt + 1))
done
check_eq "(a) each rank its own database and mount point (--db, --mountpoint: %h %r)" 3 "$amnt"
before=$(sq "$A" "select (select count(*) from run) || '|' || (select count(*) from stream) || '|' || (select count(*) from access) || '|' || (select count(*) from host) || '|' || (select count(*) from bench_step)")
rc=0
"$MERGE" "$A" "$T"/a.db.hosts/*.db >"$T/m.out" 2>&1 || rc=$?
check_eq "(a) timelinefs-merge of the copies again: exit 0" 0 "$rc"
check_eq "(a) merging again adds nothing" "$before" \
	"$(sq "$A" "select (select count(*) from run) || '|' || (select count(*) from stream) || '|' || (select count(*) from access) || '|' || (select count(*) from host) || '|' || (select count(*) from bench_step)")"
check "(a) nothing mounted, no process left" released 50

# ------------------------------------------------------------ (b)
off=2500000000
rc=0
$MPI -np 1 "$HOSTS" --media "$T/media" --workstations 3,3 $COMMON --pace 4 \
	--db "$T/b-%h-%r.db" --out "$T/b.db" --label b : \
	-np 1 env TIMELINEFS_TEST_CLOCK_OFFSET_NS=$off "$HOSTS" --media "$T/media" \
	--workstations 3,3 $COMMON --pace 4 --db "$T/b-%h-%r.db" --out "$T/b.db" --label b : \
	-np 1 "$HOSTS" --media "$T/media" --workstations 3,3 $COMMON --pace 4 \
	--db "$T/b-%h-%r.db" --out "$T/b.db" --label b >"$T/b.out" 2>"$T/b.err" || rc=$?
check_eq "(b) a clock 2.5 s off on rank 1: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/b.out" "$T/b.err"
B=$T/b.db
check_eq "(b) rank 1's offset measured within 1 ms at start and end, the others' within 1 ms of 0" "0|1|1|0 1|1|1|1 2|1|1|0" \
	"$(sq "$B" "select group_concat(x, ' ') from (select rank || '|' ||
		(abs(offset_start_ns - case rank when 1 then $off else 0 end) < 1000000) || '|' ||
		(abs(offset_end_ns - case rank when 1 then $off else 0 end) < 1000000) || '|' ||
		(offset_start_ns > 1000000000) as x from host order by rank)")"
check "(b) the output says rank 1's offset" grep -Eq '^rank 1 \(.*\): clock offset \+(2499|2500)\.[0-9]{3} ms' "$T/b.out"
# each host's step start: raw, its own clock (run.t0_unix_ns + started_ns);
# on the common axis, minus its offset
spreads=$(sq "$B" "select group_concat(x, ' ') from (select b.step_no || ':' ||
	(max(r.t0_unix_ns + b.started_ns) - min(r.t0_unix_ns + b.started_ns)) || ':' ||
	(max(r.t0_unix_ns + b.started_ns - h.offset_start_ns) - min(r.t0_unix_ns + b.started_ns - h.offset_start_ns)) as x
	from bench_step b join run r on r.id = b.run_id join host h on h.id = r.host_id
	group by b.step_no order by b.step_no)")
check "(b) two steps, each on the three hosts" [ "$(sq "$B" "select count(*) from bench_step")" = 6 ]
check "(b) raw, the step starts differ by about 2.5 s; on the common axis by under 50 ms ($spreads)" \
	sh -c "echo '$spreads' | tr ' ' '\n' | awk -F: '{ n++; if (\$2 < 2.4e9 || \$2 > 2.6e9 || \$3 >= 5e7) bad = 1 } END { exit !(n == 2 && !bad) }'"
check "(b) nothing mounted, no process left" released 50

# ------------------------------------------------------------ (c)
# rank 2 has its own --db pattern: its pid is found by it
rm -f "$T/c.rc0"
# shellcheck disable=SC2016 # rank 0's shell keeps its exit status
$MPI --enable-recovery -np 1 sh -c '"$@"; echo $? >'"$T/c.rc0" sh "$HOSTS" \
	--media "$T/long" --workstations 3,3,3 $COMMON --step-timeout 3 \
	--db "$T/c-%h-%r.db" --out "$T/c.db" --label c : \
	-np 1 "$HOSTS" --media "$T/long" --workstations 3,3,3 $COMMON --step-timeout 3 \
	--db "$T/c-%h-%r.db" --out "$T/c.db" --label c : \
	-np 1 "$HOSTS" --media "$T/long" --workstations 3,3,3 $COMMON --step-timeout 3 \
	--db "$T/c2-%h-%r.db" --out "$T/c.db" --label c >"$T/c.out" 2>"$T/c.err" &
MPIRUN=$!
i=0
while ! grep -q '^=== step 2' "$T"/c2-*-2.db.bench.log 2>/dev/null && [ $i -lt 300 ]; do
	i=$((i + 1))
	sleep 0.1
done
sleep 0.3
r2=$(pgrep -f "^$HOSTS .*c2-%h-%r" | head -n 1)
check "(c) rank 2 found in step 2" [ -n "$r2" ]
[ -z "$r2" ] || kill -9 "$r2"
i=0
while kill -0 "$MPIRUN" 2>/dev/null && [ $i -lt 600 ]; do
	i=$((i + 1))
	sleep 0.1
done
check "(c) mpirun ends after rank 2's kill -9" sh -c "! kill -0 $MPIRUN 2>/dev/null"
wait "$MPIRUN" 2>/dev/null || :
MPIRUN=
# mpirun --enable-recovery exits 0 here whatever rank 0 says: rank 0's
# own status is the verdict
check_eq "(c) rank 0's exit status says a host is incomplete" 1 "$(cat "$T/c.rc0" 2>/dev/null)"
check "(c) rank 0 says rank 2 gave no answer in step 2" \
	grep -Eq '^rank 2 \(.*\): no answer in step 2 within [0-9]+ s: left out from here on' "$T/c.out"
check "(c) step 3 over the other 2 hosts" grep -q '^step 3: 3 workstations (repetition 1) over 2 hosts' "$T/c.out"
C=$T/c.db
check_eq "(c) merged host rows: ranks 0 and 1 complete, rank 2 not, with its reason" \
	"0|1| 1|1| 2|0|no answer in step 2" \
	"$(sq "$C" "select group_concat(x, ' ') from (select rank || '|' || complete || '|' || coalesce(substr(reason, 1, 19), '') as x from host order by rank)")"
check_eq "(c) ranks 0 and 1 have all their steps (1 2 3) and streams" "0|1,2,3|0 1|1,2,3|0" \
	"$(sq "$C" "select group_concat(x, ' ') from (select h.rank || '|' || group_concat(b.step_no) || '|' ||
		sum((select count(*) from bench_stream s where s.step_id = b.id) <> b.workstations) as x
		from bench_step b join run r on r.id = b.run_id join host h on h.id = r.host_id
		group by h.rank order by h.rank)")"
check "(c) rank 2's daemon and bench stop with it: nothing mounted, no process left" released 150
# what rank 0 gave each rank (experiment_share): rank 2 one workstation
# in steps 1 and 2, none in step 3, which the other two played whole.
# Rank 2's database never reached rank 0 (killed), so its step 1 is not
# in the merge yet: merged by hand from its disk, step 1 is whole, step 2
# stays missed, and rank 2's host row keeps rank 0's reason
steps_sql="select group_concat(x, ' ') from (select step_no || '|' || hosts_expected || '|' ||
	hosts_played || '|' || complete as x from experiment_step_summary where step_no > 0 order by step_no)"
check_eq "(c) merged steps (expected|played|complete): 1 and 2 lack rank 2, 3 whole over 2 hosts" \
	"1|3|2|0 2|3|2|0 3|2|2|1" "$(sq "$C" "$steps_sql")"
"$MERGE" "$C" "$T"/c2-*-2.db >"$T/c.merge" 2>&1
check_eq "(c) rank 2's database merged by hand: step 1 whole, step 2 still missed" \
	"1|3|3|1 2|3|2|0 3|2|2|1" "$(sq "$C" "$steps_sql")"
check_eq "(c) rank 2's host row keeps rank 0's reason" "0|no answer in step 2" \
	"$(sq "$C" "select complete || '|' || substr(reason, 1, 19) from host where rank = 2")"
"$MERGE" "$C" "$T"/c2-*-2.db >"$T/c.merge2" 2>&1
check "(c) merged by hand again: nothing added" grep -q ': 0 runs added, 1 already merged' "$T/c.merge2"
check_eq "(c) rank 2 given 1, 1, 0 in steps 1-3; every step's shares add up to 3" "1,1,0 3,3,3" \
	"$(sq "$C" "select (select group_concat(workstations) from (select workstations from experiment_share
		where rank = 2 order by step_no)) || ' ' || (select group_concat(t) from (select sum(workstations) as t
		from experiment_share group by step_no order by step_no))")"

# ------------------------------------------------------------ (c2)
# rank 2's bench hangs (SIGSTOP) in step 2: rank 0 calls it dead after
# the step's deadline, and rank 2 itself stops its bench, unmounts and
# ends when that deadline has passed, saying why in its host row
$MPI --enable-recovery -np 2 "$HOSTS" --media "$T/long" --workstations 3,3,3 \
	$COMMON --pace 4 --step-timeout 2 --db "$T/s-%h-%r.db" --out "$T/s.db" : \
	-np 1 "$HOSTS" --media "$T/long" --workstations 3,3,3 $COMMON --pace 4 \
	--step-timeout 2 --db "$T/s2-%h-%r.db" --out "$T/s.db" >"$T/s.out" 2>"$T/s.err" &
MPIRUN=$!
i=0
while ! grep -q '^=== step 2' "$T"/s2-*-2.db.bench.log 2>/dev/null && [ $i -lt 300 ]; do
	i=$((i + 1))
	sleep 0.05
done
b2=$(pgrep -f "timelinefs-bench .*$T/s2-" | head -n 1)
check "(c2) rank 2's bench found in step 2" [ -n "$b2" ]
# /usr/bin/kill: dash's cannot signal a process group
[ -z "$b2" ] || env kill -s STOP -- "-$b2"
i=0
while kill -0 "$MPIRUN" 2>/dev/null && [ $i -lt 400 ]; do
	i=$((i + 1))
	sleep 0.1
done
check "(c2) mpirun ends: rank 2 stopped its hung bench itself" sh -c "! kill -0 $MPIRUN 2>/dev/null"
wait "$MPIRUN" 2>/dev/null || :
MPIRUN=
check "(c2) rank 0 says rank 2 gave no answer in step 2" \
	grep -Eq '^rank 2 \(.*\): no answer in step 2 within [0-9]+ s' "$T/s.out"
check_eq "(c2) rank 2's own host row says its bench did not end" "0|1" \
	"$(sq "$(ls "$T"/s2-*-2.db)" "select complete, reason like 'no answer in step 2 within % s: its bench did not end' from host")"
check_eq "(c2) merged: ranks 0 and 1 complete with 3 steps each, rank 2 not" "0|1|3 1|1|3 2|0|0" \
	"$(sq "$T/s.db" "select group_concat(x, ' ') from (select h.rank || '|' || h.complete || '|' ||
		(select count(*) from bench_step b join run r on r.id = b.run_id where r.host_id = h.id) as x
		from host h order by h.rank)")"
check "(c2) nothing mounted, no process left" released 100

# ------------------------------------------------------------ (c3)
# rank 2's bench held (SIGSTOP) 2 s before it releases its readers: its
# step starts and ends late, the straggler.  (A reader paused mid-step is
# no straggler: it catches up with its paced timeline.)
$MPI -np 2 "$HOSTS" --media "$T/long" --workstations 3 $COMMON \
	--db "$T/g-%h-%r.db" --out "$T/g3.db" : \
	-np 1 "$HOSTS" --media "$T/long" --workstations 3 $COMMON \
	--db "$T/g2-%h-%r.db" --out "$T/g3.db" >"$T/g3.out" 2>"$T/g3.err" &
MPIRUN=$!
i=0
until b2=$(pgrep -f "timelinefs-bench .*$T/g2-"); do
	i=$((i + 1))
	[ $i -lt 600 ] || break
	sleep 0.02
done
check "(c3) rank 2's bench found before its start" [ -n "$b2" ]
if [ -n "$b2" ]; then
	env kill -s STOP -- "-$b2"
	sleep 2
	env kill -s CONT -- "-$b2"
fi
rc=0
wait "$MPIRUN" || rc=$?
MPIRUN=
check_eq "(c3) a straggling host: exit 0 (it played)" 0 "$rc"
# late by the hold less what was left of the start margin (1 s): at
# least the rule's 0.5 s
if grep -Eq '^step 1: .* straggler: rank 2 \+(0\.[5-9]|[12]\.)[0-9]+ s$' "$T/g3.out"; then
	ok "(c3) the step names rank 2 the straggler with its lag"
else
	not_ok "(c3) the step names rank 2 the straggler: $(grep '^step 1' "$T/g3.out")"
fi
check "(c3) nothing mounted, no process left" released 30

# ------------------------------------------------------------ (d)
$MPI -np 3 "$HOSTS" --media "$T/long" --workstations 3,3,3 $COMMON \
	--db "$T/d-%h-%r.db" --out "$T/d.db" --label d >"$T/d.out" 2>"$T/d.err" &
MPIRUN=$!
i=0
while [ "$(cat "$T"/d-*.db.bench.log 2>/dev/null | grep -c '^=== step 1')" -lt 3 ] && [ $i -lt 300 ]; do
	i=$((i + 1))
	sleep 0.1
done
sleep 0.5
check "(d) the three ranks in step 1" [ "$(cat "$T"/d-*.db.bench.log 2>/dev/null | grep -c '^=== step 1')" = 3 ]
t0=$(date +%s%N)
kill -INT "$MPIRUN"
rc=0
i=0
while kill -0 "$MPIRUN" 2>/dev/null && [ $i -lt 200 ]; do
	i=$((i + 1))
	sleep 0.1
done
wait "$MPIRUN" 2>/dev/null || rc=$?
MPIRUN=
check "(d) SIGINT to mpirun: it exits non-zero ($rc)" [ "$rc" -ne 0 ]
released 100 || :
t=$(( ($(date +%s%N) - t0) / 1000000 ))
check "(d) within 10 s, nothing mounted, no process left ($t ms)" sh -c "[ -z \"\$(pgrep -f 'timelinefs(-hosts|-bench)? .*$T/'; grep ' $T/' /proc/mounts)\" ] && [ $t -lt 10000 ]"
check_eq "(d) every host row says it stopped" "0|stopped by SIG 0|stopped by SIG 0|stopped by SIG" \
	"$(for r in 0 1 2; do sq "$(ls "$T"/d-*-$r.db)" "select complete || '|' || substr(reason, 1, 14) from host"; done | tr '\n' ' ' | sed 's/ $//')"

# ------------------------------------------------------------ (e)
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --find-max --max 6 $COMMON --pace 4 \
	--db "$T/e-%h-%r.db" --out "$T/e.db" >"$T/e.out" 2>"$T/e.err" || rc=$?
check_eq "(e) find-max to its cap: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/e.out" "$T/e.err"
check "(e) the bracket: at least the cap" grep -q '^at least 6 workstations over 3 hosts play with 0 late frames in 1 of 1 repetitions: the cap (--max)' "$T/e.out"
check_eq "(e) the steps doubled from the hosts: 3 then 6" "3 6" \
	"$(sq "$T/e.db" "select group_concat(total_workstations, ' ') from (select distinct step_no, total_workstations from bench_step order by step_no)")"
check_eq "(e) experiment: find-max, max_lo 6, max_hi NULL" "find-max|6|NULL" \
	"$(sq "$T/e.db" "select plan || '|' || max_lo || '|' || coalesce(max_hi, 'NULL') from experiment")"
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --find-max $COMMON --pace 4 \
	--mount-opts 'inject=delay=30ms' \
	--db "$T/f-%h-%r.db" --out "$T/f.db" >"$T/f.out" 2>"$T/f.err" || rc=$?
check_eq "(e) find-max with every read delayed: exit 0" 0 "$rc"
check "(e) not even 1" grep -q '^not even 1 workstation over 3 hosts plays with 0 late frames' "$T/f.out"
check_eq "(e) experiment: max_lo 0, max_hi 1; counts 3 then down to 1" "0|1|1" \
	"$(sq "$T/f.db" "select max_lo || '|' || max_hi || '|' || (select min(total_workstations) from bench_step) from experiment")"
# a bracket inside: rank 2's own mount delays every read (its --mount-opts;
# MPMD), so a count fails exactly when it gives rank 2 a workstation:
# 3 (1 each) fails, then bisecting: 1 (rank 0) and 2 (ranks 0, 1) pass
rc=0
$MPI -np 2 "$HOSTS" --media "$T/media" --find-max $COMMON --pace 4 \
	--db "$T/g2-%h-%r.db" --out "$T/g2.db" : \
	-np 1 "$HOSTS" --media "$T/media" --find-max $COMMON --pace 4 \
	--mount-opts 'inject=delay=30ms' \
	--db "$T/g2-%h-%r.db" --out "$T/g2.db" >"$T/g2.out" 2>"$T/g2.err" || rc=$?
check_eq "(e) find-max, rank 2 slow: exit 0" 0 "$rc"
check_eq "(e) rank 2 slow: counts 3, 1, 2; bracket [2, 3]" "3 1 2|2|3" \
	"$(sq "$T/g2.db" "select (select group_concat(t, ' ') from (select distinct step_no, total_workstations as t
		from bench_step order by step_no)) || '|' || max_lo || '|' || max_hi from experiment")"
check "(e) rank 2 slow: the bracket said" \
	grep -q '^2 workstations over 3 hosts play with 0 late frames in 1 of 1 repetitions; 3 do not' "$T/g2.out"
check_eq "(e) rank 2 slow: only rank 2's frames were late" "0|0 1|0 2|1" \
	"$(sq "$T/g2.db" "select group_concat(x, ' ') from (select h.rank || '|' || (sum(s.late_frames) > 0) as x
		from stream s join run r on r.id = s.run_id join host h on h.id = r.host_id group by h.rank order by h.rank)")"
check "(e) nothing mounted, no process left" released 50

# ------------------------------------------------------------ (f)
# usage_case NAME PATTERN ARGS...: exit 2, stderr names the option
usage_case() {
	name=$1
	pat=$2
	shift 2
	rc=0
	"$HOSTS" "$@" >"$T/u.out" 2>"$T/u.err" || rc=$?
	if [ "$rc" = 2 ] && grep -qF -- "$pat" "$T/u.err"; then
		ok "(f) $name: exit 2, says '$pat'"
	else
		not_ok "(f) $name: exit $rc: $(cat "$T/u.err")"
	fi
}
usage_case "--repeat 0" "invalid --repeat '0'" --media "$T/media" --workstations 2 --repeat 0
usage_case "bad --workstations" "invalid --workstations '2,,3'" --media "$T/media" --workstations 2,,3
usage_case "--workstations and --find-max" "--workstations LIST or --find-max, not both" \
	--media "$T/media" --workstations 2 --find-max
usage_case "neither" "give --workstations LIST or --find-max" --media "$T/media"
usage_case "--from without --find-max" "--from goes with --find-max" --media "$T/media" --workstations 2 --from 3
usage_case "an unknown option" "unknown option '--bogus'" --media "$T/media" --workstations 2 --bogus
usage_case "a missing value" "option '--db' needs a value" --media "$T/media" --workstations 2 --db
usage_case "--mount-opts pace=" "--mount-opts cannot set pace=" --media "$T/media" --workstations 2 --mount-opts 'ro,pace=2'
usage_case "bad --pace" "invalid --pace 'fast'" --media "$T/media" --workstations 2 --pace fast
usage_case "bad --sync-rounds" "invalid --sync-rounds '0'" --media "$T/media" --workstations 2 --sync-rounds 0
usage_case "no --media" "give --media DIR" --workstations 2
rc=0
$MPI -np 2 "$HOSTS" --media "$T/media" --workstations 2 --repeat 0 >"$T/u2.out" 2>"$T/u2.err" || rc=$?
check "(f) under mpirun: exit non-zero, the usage error said once" \
	sh -c "[ $rc -ne 0 ] && [ \$(grep -c \"invalid --repeat '0'\" '$T/u2.err') -eq 1 ]"
check "(f) --help names every option of the plan" sh -c \
	"'$HOSTS' --help | grep -q -- '--find-max' && '$HOSTS' --help | grep -q -- '--step-timeout S'"
rc=0
"$HOSTS" --media "$T/nope" --workstations 1 $COMMON --db "$T/g-%h-%r.db" \
	--out "$T/g.db" >"$T/g.out" 2>"$T/g.err" || rc=$?
check_eq "(f) missing media: exit 1" 1 "$rc"
check "(f) missing media: the folder and the reason said" grep -q "no host could mount: rank 0 (.*): media folder $T/nope does not exist" "$T/g.err"
check "(f) missing media: nothing mounted, no process left" released 30
rc=0
"$HOSTS" --media "$T/media" --workstations 2,7 $COMMON --db "$T/w-%h-%r.db" \
	--out "$T/w.db" >"$T/w.out" 2>"$T/w.err" || rc=$?
check "(f) more workstations than timelines: exit 1 before any step, said" \
	sh -c "[ $rc -eq 1 ] && grep -q -- '--workstations 7 needs 7 timelines on each of 1 host, a host has 6: nothing played' '$T/w.err' && ! grep -q '^step' '$T/w.out'"
check "(f) more workstations than timelines: nothing mounted, no process left" released 30
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --workstations 1 $COMMON --db "$T/o-%h-%r.db" \
	--out "$T/nope/o.db" >"$T/o.out" 2>"$T/o.err" || rc=$?
check "(f) --out in a folder that is not there: said before anything runs, exit non-zero" \
	sh -c "[ $rc -ne 0 ] && grep -q 'cannot write --out $T/nope/o.db: $T/nope: No such file or directory' '$T/o.err' && ! ls '$T'/o-* >/dev/null 2>&1"
check "(f) --out refused: no process left" released 30

# ------------------------------------------------------------ (h)
# rank 2 cannot mount (a bad -o inject of its own): it is incomplete with
# the daemon's message, the others play
rc=0
$MPI -np 2 "$HOSTS" --media "$T/media" --workstations 2,3 $COMMON --pace 4 \
	--db "$T/h-%h-%r.db" --out "$T/h.db" : \
	-np 1 "$HOSTS" --media "$T/media" --workstations 2,3 $COMMON --pace 4 \
	--mount-opts inject=bogus --db "$T/h-%h-%r.db" --out "$T/h.db" \
	>"$T/h.out" 2>"$T/h.err" || rc=$?
check "(h) a rank that cannot mount: exit non-zero ($rc)" [ "$rc" -ne 0 ]
check "(h) rank 0 says why, with the daemon's message" \
	grep -q "^rank 2 (.*): cannot mount: timelinefs exited: .*inject:1: 'bogus' is not key=value" "$T/h.out"
check_eq "(h) merged: ranks 0 and 1 complete, rank 2 not, with the daemon's message" \
	"0|1|0 1|1|0 2|0|1" \
	"$(sq "$T/h.db" "select group_concat(x, ' ') from (select rank || '|' || complete || '|' ||
		(coalesce(reason, '') like 'cannot mount: %bogus%') as x from host order by rank)")"
check_eq "(h) the steps played by the other two: 2 then 3 workstations" "1|2|2 2|3|2" \
	"$(sq "$T/h.db" "select group_concat(x, ' ') from (select step_no || '|' || sum(workstations) || '|' || count(*) as x
		from bench_step group by step_no order by step_no)")"
check "(h) nothing mounted, no process left" released 30

# ------------------------------------------------------------ (g)
# without mpirun: one host, one rank
rc=0
"$HOSTS" --media "$T/media" --workstations 2 $COMMON --pace 4 \
	--db "$T/one-%h-%r.db" --out "$T/one.db" >"$T/one.out" 2>"$T/one.err" || rc=$?
check_eq "(g) without mpirun: one host plays, exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/one.out" "$T/one.err"
check_eq "(g) one rank, its host row complete, the step's 2 streams" "1|1|0|1|2" \
	"$(sq "$T/one.db" "select (select ranks from experiment), count(*), min(rank), min(complete),
		(select count(*) from bench_stream) from host")"
check "(g) nothing mounted, no process left" released 30

# ------------------------------------------------------------ (i)
# two experiments in a row with the same --db: each host's database keeps
# both, each --out only its own; the first --out untouched by the second
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --workstations 3 $COMMON --pace 4 \
	--db "$T/i-%h-%r.db" --out "$T/i1.db" >"$T/i1.out" 2>"$T/i1.err" || rc=$?
check_eq "(i) a first experiment: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/i1.out" "$T/i1.err"
sq "$T/i1.db" .dump >"$T/i1.dump"
U1=$(sq "$T/i1.db" "select uuid from experiment")
rc=0
$MPI -np 3 "$HOSTS" --media "$T/media" --workstations 3 $COMMON --pace 4 \
	--db "$T/i-%h-%r.db" --out "$T/i2.db" >"$T/i2.out" 2>"$T/i2.err" || rc=$?
check_eq "(i) a second one with the same --db, another --out: exit 0" 0 "$rc"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/i2.out" "$T/i2.err"
U2=$(sq "$T/i2.db" "select group_concat(uuid) from experiment")
check "(i) the second --out's experiment is the one the second run printed" \
	sh -c "[ -n '$U2' ] && [ '$U2' != '$U1' ] && grep -q '^experiment $U2: ' '$T/i2.out'"
n2=0
for r in 0 1 2; do
	[ "$(sq "$T"/i-*-$r.db "select count(*) from experiment")" != 2 ] || n2=$((n2 + 1))
done
check_eq "(i) each host's database holds both experiments" 3 "$n2"
check_eq "(i) rank 0's copy in OUT.hosts/ is whole: both experiments" 2 \
	"$(sq "$(ls "$T"/i2.db.hosts/0-*.db)" "select count(*) from experiment")"
check_eq "(i) the second --out: 1 experiment, its 3 host rows, 3 runs all of its hosts, steps of it only" \
	"1|3|0,1,2|3|3|0" \
	"$(sq "$T/i2.db" "select (select count(*) from experiment) || '|' ||
		(select count(*) from host h join experiment e on e.id = h.experiment_id where e.uuid = '$U2') || '|' ||
		(select group_concat(rank) from (select rank from host order by rank)) || '|' ||
		(select count(*) from run) || '|' ||
		(select count(*) from run r join host h on h.id = r.host_id join experiment e on
			e.id = h.experiment_id where e.uuid = '$U2') || '|' ||
		(select count(*) from bench_step b left join experiment e on e.id = b.experiment_id
			where e.uuid is not '$U2')")"
sq "$T/i1.db" .dump >"$T/i1.dump2"
check "(i) the first --out untouched by the second experiment" cmp -s "$T/i1.dump" "$T/i1.dump2"
check_eq "(i) none of the first experiment's runs in the second --out (3 of its own)" "3|0" \
	"$(sq "$T/i2.db" "attach '$T/i1.db' as o; select count(*) || '|' ||
		(select count(*) from run where uuid in (select uuid from o.run)) from o.run")"
# by hand from rank 1's database, which holds both: the first only
R1=$(ls "$T"/i-*-1.db)
rc=0
"$MERGE" --experiment "$U1" "$T/i3.db" "$R1" >"$T/i3.out" 2>&1 || rc=$?
check_eq "(i) timelinefs-merge --experiment of the first from rank 1's database: its run only" \
	"0|$R1: 1 run added, 0 already merged" "$rc|$(sed 's/ (.*//' "$T/i3.out" | paste -sd '|')"
check_eq "(i) ... the first experiment, rank 1's host row, the run the first --out has of rank 1" \
	"$U1|1|$(sq "$T/i1.db" "select r.uuid from run r join host h on h.id = r.host_id where h.rank = 1")" \
	"$(sq "$T/i3.db" "select (select group_concat(uuid) from experiment) || '|' ||
		(select group_concat(rank) from host) || '|' || (select group_concat(uuid) from run)")"
check "(i) nothing mounted, no process left" released 30

finish
