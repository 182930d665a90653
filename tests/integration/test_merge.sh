#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-merge (issue 24) on databases of real mounts: two hosts'
# databases (one mount of its own; one mounted again as rank 1 of an
# experiment, with its clock made 3 s late by the test hook) and one of
# schema version 11 holding a third mount's rows are merged: every stream
# and access row once, each run with its host; merged again: nothing
# added, the merged database byte for byte the same (.dump); the
# experiment's shares (experiment_share) once under its merged id.  A missing
# file, a text file and a database cut short: each named with its reason,
# exit 1, the merged database unchanged; an input list broken in the
# middle keeps the inputs before it.  On the way, what the daemon writes
# for many hosts: .status's host line, run.uuid, t0_unix_ns, the host row
# (its own, or the experiment's rank), and a bad clock hook refused.  A
# host whose daemon was killed: its rows in the -wal are merged.
# --experiment: only that experiment's rows of b (by uuid or its first 8
# characters, again nothing added); an input without it, or of schema 11:
# named with the uuid, exit 1, the merged database unchanged; a bad value:
# usage error; then without it: b's own run.
. "$(dirname "$0")/lib.sh"

MERGE=$TLFS_BUILD/timelinefs-merge
EXP=0f8fad5b-d9cb-469f-a165-70867728950e
M=$T/media
"$GEN" --clips 3 --clip-seconds 2 --timelines 2 --events 3 \
	--min-seconds 0.3 --max-seconds 0.5 --video-rate 2M --seed 5 "$M" >/dev/null
MACHINE=$(cat /etc/machine-id 2>/dev/null || cat /var/lib/dbus/machine-id 2>/dev/null || echo '?')
SHORT=$(printf '%.8s' "$MACHINE")
HOST=$(hostname)

# qdb DB SQL
qdb() { sqlite3 -batch -noheader -cmd ".timeout 5000" "$1" "$2"; }

# play MNT: read both timelines to the end (real reads, unpaced)
play() {
	dd if="$1/timeline01" of=/dev/null bs=64k status=none &&
		dd if="$1/timeline02" of=/dev/null bs=64k status=none
}

# 1. host a: a mount of its own
A=$T/a.db
mount_fs "$M" "$T/mnt" -o db="$A",label=a,pace=off,backing=buffered
check ".status: the local host and its machine, first" \
	test "$(head -1 "$T/mnt/.status")" = "host $HOST, machine $SHORT"
check "host a: both timelines read" play "$T/mnt"
umount_fs "$T/mnt"
check_eq "host a: its run has a random (version 4) uuid" 1 \
	"$(qdb "$A" "select count(*) from run where uuid like '________-____-4___-____-____________'")"
check_eq "host a: a host row of its own, name and machine" "$HOST|$MACHINE||" \
	"$(qdb "$A" "select h.name || '|' || h.machine_id || '|' || coalesce(h.experiment_id, '') ||
		'|' || coalesce(h.rank, '') from run r join host h on h.id = r.host_id")"

# 2. host b: mounted once on its own, then as rank 1 of an experiment (the
# rows timelinefs-hosts writes before it mounts), its clock 3 s late
B=$T/b.db
mount_fs "$M" "$T/mnt" -o db="$B",label=b,pace=off,backing=buffered
check "host b, first run: both timelines read" play "$T/mnt"
umount_fs "$T/mnt"
qdb "$B" "insert into experiment (id, uuid, started_at, ranks, plan)
	values (5, '$EXP', '2026-12-05T22:00:00.000Z', 2, 'list');
	insert into host (id, experiment_id, rank, name, machine_id, complete)
	values (9, 5, 1, '$HOST', '$MACHINE', 1);
	insert into experiment_share (experiment_id, step_no, rank, workstations, repetition,
		total_workstations, planned_unix_ns)
	values (5, 1, 0, 1, 1, 2, 10), (5, 1, 1, 1, 1, 2, 10), (5, 2, 0, 1, 1, 1, 20), (5, 2, 1, 0, 1, 1, 20)"
before=$(date +%s%N)
export TIMELINEFS_TEST_CLOCK_OFFSET_NS=-3000000000
mount_fs "$M" "$T/mnt" -o db="$B",label=b2,pace=off,backing=buffered,experiment=$EXP,rank=1
unset TIMELINEFS_TEST_CLOCK_OFFSET_NS
after=$(date +%s%N)
check ".status: the rank of the experiment" \
	test "$(head -1 "$T/mnt/.status")" = "host $HOST, machine $SHORT, rank 1 of experiment $EXP"
check "host b, second run: both timelines read" play "$T/mnt"
umount_fs "$T/mnt"
check_eq "host b: the experiment's run names rank 1's host row" 9 \
	"$(qdb "$B" "select host_id from run where label = 'b2'")"
t0=$(qdb "$B" "select t0_unix_ns from run where label = 'b2'")
check "host b: t0_unix_ns is the mount's realtime, 3 s early" \
	test "$t0" -ge $((before - 3000000000)) -a "$t0" -le $((after - 3000000000))
check_eq "host b: two runs, two uuids" 2 "$(qdb "$B" "select count(distinct uuid) from run")"
export TIMELINEFS_TEST_CLOCK_OFFSET_NS=3s
try_mount "a bad clock hook is refused, naming it" \
	"timelinefs: bad TIMELINEFS_TEST_CLOCK_OFFSET_NS '3s' in the environment" -- \
	-o db="$T/bad.db" "$M" "$T/mnt"
unset TIMELINEFS_TEST_CLOCK_OFFSET_NS
try_mount "a rank of an experiment without its host row is refused" \
	"no host row for rank 2 of experiment $EXP" -- \
	-o db="$B",experiment=$EXP,rank=2 "$M" "$T/mnt"

# 3. a database of schema version 11 (timelinefs before many hosts): the
# tables of that version (schema-v11.sql) holding a third mount's rows,
# each table's columns of version 11
X=$T/x.db
mount_fs "$M" "$T/mnt" -o db="$X",label=old,pace=off,backing=buffered
check "host c: both timelines read" play "$T/mnt"
umount_fs "$T/mnt"
C=$T/c.db
sqlite3 "$C" <"$TOP/tests/integration/schema-v11.sql"
copy="attach '$X' as x;"
for t in run run_env problem timeline media stream access; do
	cols=$(qdb "$C" "select group_concat(name, ', ') from pragma_table_info('$t')")
	copy="$copy insert into $t ($cols) select $cols from x.$t;"
done
qdb "$C" "$copy"
check_eq "the old database: schema version 11, no run.uuid" "11|0" \
	"$(qdb "$C" "select user_version || '|' || (select count(*) from pragma_table_info('run')
		where name = 'uuid') from pragma_user_version")"
check_eq "the old database holds the third mount's streams and accesses" \
	"$(qdb "$X" "select count(*) || ' ' || (select count(*) from access) from stream")" \
	"$(qdb "$C" "select count(*) || ' ' || (select count(*) from access) from stream")"

# 4. the merge, twice
OUT=$T/out.db
sum() { # sum SQL: over a, b and c
	echo $(($(qdb "$A" "$1") + $(qdb "$B" "$1") + $(qdb "$C" "$1")))
}
rc=0
"$MERGE" "$OUT" "$A" "$B" "$C" >"$T/m1" 2>"$T/m1.err" || rc=$?
check_eq "merge: exit 0, nothing on stderr" "0|" "$rc|$(cat "$T/m1.err")"
check_eq "merge: per input, the runs added" \
	"$A: 1 run added, 0 already merged|$B: 2 runs added, 0 already merged|$C: 1 run added, 0 already merged" \
	"$(sed 's/ (.*//' "$T/m1" | paste -sd '|')"
for what in run stream access timeline media run_env; do
	check_eq "merged: every $what row once" "$(sum "select count(*) from $what")" \
		"$(qdb "$OUT" "select count(*) from $what")"
done
check_eq "merged: the access rows themselves (sum of done_ns - issued_ns + file_offset)" \
	"$(sum "select coalesce(sum(done_ns - issued_ns + file_offset), 0) from access")" \
	"$(qdb "$OUT" "select sum(done_ns - issued_ns + file_offset) from access")"
na=$(qdb "$A" "select count(*) from access")
nb1=$(qdb "$B" "select count(*) from access where stream_id in (select id from stream where run_id = 1)")
nb2=$(qdb "$B" "select count(*) from access where stream_id in (select id from stream where run_id = 2)")
nc=$(qdb "$C" "select count(*) from access")
check_eq "merged: each run's accesses under it (per label)" "a $na b $nb1 b2 $nb2 old $nc" \
	"$(qdb "$OUT" "select group_concat(label || ' ' || n, ' ') from (select r.label, count(*) n
		from access a join stream s on s.id = a.stream_id join run r on r.id = s.run_id
		group by r.id order by r.id)")"
check_eq "merged: the runs' uuids kept, the old one's derived (version 8)" \
	"$(qdb "$A" "select uuid from run") $(qdb "$B" "select group_concat(uuid, ' ') from run") 8" \
	"$(qdb "$OUT" "select group_concat(case when label = 'old' then substr(uuid, 15, 1) else uuid end, ' ') from run")"
check_eq "merged: hosts: a's and b's own (one row: same name and machine), rank 1, the old run's (no machine)" \
	"a $HOST $MACHINE -|b $HOST $MACHINE -|b2 $HOST $MACHINE 1|old $HOST - -" \
	"$(qdb "$OUT" "select group_concat(r.label || ' ' || h.name || ' ' || coalesce(h.machine_id, '-') ||
		' ' || coalesce(h.rank, '-'), '|') from run r join host h on h.id = r.host_id")"
check_eq "merged: 3 host rows" 3 "$(qdb "$OUT" "select count(*) from host")"
check_eq "merged: the experiment once, rank 1's row in it" "$EXP 1" \
	"$(qdb "$OUT" "select e.uuid || ' ' || h.rank from experiment e join host h on h.experiment_id = e.id")"
# (b's experiment is 5 there, 1 in the merged database)
check_eq "merged: what rank 0 gave each rank (experiment_share), each row once, under the merged experiment's id" \
	"4|$EXP 1 0 1 10|$EXP 1 1 1 10|$EXP 2 0 1 20|$EXP 2 1 0 20" \
	"$(qdb "$OUT" "select (select count(*) from experiment_share) || '|' || group_concat(e.uuid || ' ' ||
		s.step_no || ' ' || s.rank || ' ' || s.workstations || ' ' || s.planned_unix_ns, '|')
		from (select * from experiment_share order by step_no, rank) s
		join experiment e on e.id = s.experiment_id and e.id <> 5")"
qdb "$OUT" .dump >"$T/dump1"
rc=0
"$MERGE" "$OUT" "$C" "$B" "$A" >"$T/m2" 2>&1 || rc=$?
check_eq "merged again: exit 0, nothing added" \
	"0|$C: 0 runs added, 1 already merged|$B: 0 runs added, 2 already merged|$A: 0 runs added, 1 already merged" \
	"$rc|$(paste -sd '|' "$T/m2")"
qdb "$OUT" .dump >"$T/dump2"
check "merged again: the database is the same (.dump)" cmp -s "$T/dump1" "$T/dump2"
check "the inputs are not changed (the old one's version, no -wal or -shm made)" \
	test ! -e "$C-wal" -a ! -e "$C-shm" -a "$(qdb "$C" "pragma user_version")" = 11

# 5. bad inputs: named, exit 1, the merged database unchanged
printf 'not a database, a text file long enough for a header of one hundred bytes ..........................\n' >"$T/text.db"
head -c $(($(stat -c %s "$A") / 2)) "$A" >"$T/cut.db"
for bad in "$T/nosuch.db:No such file or directory" \
	"$T/text.db:not a timelinefs database: file is not a database" \
	"$T/cut.db:damaged (" "$OUT:is the database merged into"; do
	f=${bad%%:*}
	why=${bad#*:}
	rc=0
	"$MERGE" "$OUT" "$f" >"$T/out" 2>&1 || rc=$?
	check_eq "$(basename "$f"): exit 1" 1 "$rc"
	check "$(basename "$f"): the message names the file and why" \
		grep -qF "timelinefs-merge: $f: $why" "$T/out"
	qdb "$OUT" .dump >"$T/dump3"
	check "$(basename "$f"): the merged database unchanged" cmp -s "$T/dump1" "$T/dump3"
done
# a list broken in the middle: the inputs before the bad one stay merged
rc=0
"$MERGE" "$T/out2.db" "$A" "$T/cut.db" "$B" >"$T/out" 2>&1 || rc=$?
check_eq "a bad input among good ones: exit 1" 1 "$rc"
check "a bad input among good ones: says what the output keeps" \
	grep -qF "timelinefs-merge: $T/out2.db keeps the 1 input merged before it" "$T/out"
check_eq "a bad input among good ones: the one before it merged, none after" \
	"$(qdb "$A" "select uuid from run")" "$(qdb "$T/out2.db" "select group_concat(uuid) from run")"

# 6. a host whose daemon was killed (kill -9): its last rows are in the
# database's -wal, which the merge reads (read-only, not immutable)
D=$T/d.db
mount_fs "$M" "$T/mnt" -o db="$D",label=killed,pace=off,backing=buffered
check "host d: both timelines read" play "$T/mnt"
sleep 0.5	# the recorder's commit interval is 50 ms
kill -9 "$DAEMON"
wait_daemon "$DAEMON"
fusermount3 -u -z "$T/mnt"
check "host d: its -wal is left" test -s "$D-wal"
rc=0
"$MERGE" "$T/out3.db" "$D" >"$T/out" 2>&1 || rc=$?
check_eq "host d merged: exit 0" 0 "$rc"
check "host d merged: its run is said not ended" \
	grep -qF "$D: 1 of the runs added had not ended" "$T/out"
check_eq "host d merged: every stream and access row of its -wal" \
	"$(qdb "$D" "select count(*) || ' ' || (select count(*) from access) from stream")" \
	"$(qdb "$T/out3.db" "select count(*) || ' ' || (select count(*) from access) from stream")"
check "host d: the accesses of both timelines' reads are there" \
	test "$(qdb "$T/out3.db" "select count(*) from access")" -gt 0

# 7. --experiment: b holds a mount of its own and the experiment's rank 1
O4=$T/out4.db
rc=0
"$MERGE" --experiment $EXP "$O4" "$B" >"$T/out" 2>&1 || rc=$?
check_eq "--experiment: exit 0, b's run of the experiment only" \
	"0|$B: 1 run added, 0 already merged" "$rc|$(sed 's/ (.*//' "$T/out" | paste -sd '|')"
check_eq "--experiment: the run b2 with its accesses, rank 1's host row, the experiment once" \
	"b2 $nb2|1 $EXP|1 1|4" \
	"$(qdb "$O4" "select (select group_concat(r.label || ' ' || (select count(*) from access a
		join stream s on s.id = a.stream_id where s.run_id = r.id)) from run r) || '|' ||
		(select count(*) || ' ' || group_concat(uuid) from experiment) || '|' ||
		(select count(*) || ' ' || group_concat(rank) from host) || '|' ||
		(select count(*) from experiment_share)")"
qdb "$O4" .dump >"$T/dump4"
rc=0
"$MERGE" -e "$(printf '%.8s' $EXP)" "$O4" "$B" >"$T/out" 2>&1 || rc=$?
check_eq "--experiment by its first 8 characters, again: nothing added" \
	"0|$B: 0 runs added, 1 already merged" "$rc|$(paste -sd '|' "$T/out")"
for bad in "$B:11111111-2222-4333-8444-555555555555:has no experiment 11111111-2222-4333-8444-555555555555" \
	"$A:$EXP:has no experiment $EXP" \
	"$C:$EXP:has no experiment $EXP (a database from before schema 12"; do
	f=${bad%%:*}
	rest=${bad#*:}
	u=${rest%%:*}
	why=${rest#*:}
	rc=0
	"$MERGE" --experiment "$u" "$O4" "$f" >"$T/out" 2>&1 || rc=$?
	check_eq "--experiment, $(basename "$f") without $u: exit 1" 1 "$rc"
	check "--experiment, $(basename "$f") without $u: the message names the file and the uuid" \
		grep -qF "timelinefs-merge: $f: $why" "$T/out"
	qdb "$O4" .dump >"$T/dump5"
	check "--experiment, $(basename "$f") without $u: the merged database unchanged" \
		cmp -s "$T/dump4" "$T/dump5"
done
for u in 0f8fad5 0f8fad5b-xyz; do
	rc=0
	"$MERGE" --experiment $u "$O4" "$B" >"$T/out" 2>&1 || rc=$?
	check_eq "--experiment $u: usage error (2), said" "2|1" \
		"$rc|$(grep -cF "timelinefs-merge: --experiment $u: not a uuid" "$T/out")"
done
rc=0
"$MERGE" "$O4" "$B" >"$T/out" 2>&1 || rc=$?
check_eq "then without --experiment: b's own run only" \
	"0|$B: 1 run added, 1 already merged" "$rc|$(sed 's/ (.*//' "$T/out" | paste -sd '|')"

# an OUT that is another program's SQLite database: refused, untouched
# (the schema was written into it, exit 0)
qdb "$T/other.db" "create table notes (x); insert into notes values ('mine')"
cp "$T/other.db" "$T/other.copy"
rc=0
"$MERGE" "$T/other.db" "$B" >"$T/out" 2>&1 || rc=$?
check_eq "OUT another program's database: exit 1" 1 "$rc"
check "OUT another program's database: said, naming it" \
	grep -qF "timelinefs-merge: cannot open database $T/other.db: not a timelinefs database" "$T/out"
check "OUT another program's database: left as it was" cmp -s "$T/other.db" "$T/other.copy"

rc=0
"$MERGE" "$OUT" >/dev/null 2>&1 || rc=$?
check_eq "no input: usage error (2)" 2 "$rc"
check "--help says the usage" sh -c "'$MERGE' --help | grep -q '^usage: timelinefs-merge'"
finish
