#!/bin/sh
# SPDX-License-Identifier: MIT
# Faults while playing: a clip file deleted, truncated or made unreadable
# (mode 000) while its stream reads it.  That reader gets EIO (never wrong
# bytes, never a hang), its access rows carry the errno, its stream counts
# failed frames; a bystander stream plays on exactly and the mount keeps
# serving.  Then -o inject: injected delays and errors are recorded as such.
. "$(dirname "$0")/lib.sh"

M=$T/media
"$GEN" --clips 8 --clip-seconds 4 --timelines 1 --events 2 --min-seconds 2 \
	--max-seconds 2 --video-rate 1M --seed 9 "$M" >/dev/null
rm -f "$M"/timelines/*.tl
# each victim plays clip A for 2 s then clip B; the fault hits clip A
# while it is open (fd held by the player), 0.4 s in at pace=2
mk() {
	{
		echo "fps 30000/1001"
		echo "track V 1000000"
		echo "track A1 144000 align=3"
		echo "track A2 144000 align=3"
		echo "event V,A1,A2 $2 0 60"
		echo "event V,A1,A2 $3 0 60"
	} >"$M/timelines/$1.tl"
}
mk del clip0001 clip0002
mk trunc clip0003 clip0004
mk perm clip0005 clip0006
mk ok clip0007 clip0008
DB=$T/t.db
injected=0
survived=0

mount_fs "$M" "$T/mnt" -o db="$DB",label=faults,pace=2
cp -a "$M" "$T/media.orig"
for n in del trunc perm ok; do
	(
		rc=0
		dd if="$T/mnt/$n" of="$T/$n.out" bs=64k status=none \
			2>"$T/$n.err" || rc=$?
		date +%s%N >"$T/$n.end"
		exit $rc
	) &
	eval "pid_$n=\$!"
done
sleep 0.4
start=$(date +%s%N)
rm "$M/clip0001.V.raw"
: >"$M/clip0003.A1.wav"
chmod 000 "$M/clip0005.V.raw"
injected=3
# shellcheck disable=SC2154
for n in del trunc perm; do
	eval "p=\$pid_$n"
	if wait "$p"; then rc=0; else rc=$?; fi
	ms=$(( ($(cat "$T/$n.end") - start) / 1000000 ))
	got=$(stat -c %s "$T/$n.out")
	echo "# $n: dd exit $rc after $ms ms, $got bytes read: $(cat "$T/$n.err")"
	check "$n: reader fails" test "$rc" -ne 0
	check "$n: with EIO" grep -q "Input/output error" "$T/$n.err"
	# not a hang: the kernel retries the failed pages, each retry plays
	# (and fails) one more frame at pace, so this is seconds, not forever
	check "$n: fails within 10 s of the fault ($ms ms)" test "$ms" -lt 10000
	$EXPECT bytes "$M/timelines/$n.tl" "$M" --length "$got" >"$T/$n.exp" 2>/dev/null ||
		cp "$T/$n.out" "$T/$n.exp"
	check "$n: the $got bytes it got are exact" cmp -s "$T/$n.exp" "$T/$n.out"
done
# shellcheck disable=SC2154
wait "$pid_ok"
rc=$?
check_eq "bystander stream plays to the end" 0 "$rc"
check_eq "bystander bytes exact" "$($EXPECT sha256 "$M/timelines/ok.tl" "$M")" \
	"$(sha256sum <"$T/ok.out" | cut -d' ' -f1)" && survived=$((survived + 1))
check "mount still serving: ls" ls "$T/mnt/ok" >/dev/null
s=$(cat "$T/mnt/ok" | sha256sum | cut -d' ' -f1)
check_eq "mount still serving: a new full read is exact" \
	"$($EXPECT sha256 "$M/timelines/ok.tl" "$M")" "$s" && survived=$((survived + 1))
umount_fs "$T/mnt"
# the errno of each fault: deleted 2 (ENOENT), truncated 5 (EIO: short
# read), mode 000 13 (EACCES)
for x in "del clip0001 V 2" "trunc clip0003 A1 5" "perm clip0005 V 13"; do
	set -- $x
	r=$(q "select count(*) from access a join stream s on s.id = a.stream_id
	       join timeline t on t.id = s.timeline_id
	       where t.name = '$1' and a.clip = '$2' and a.track = '$3' and a.errno = $4")
	f=$(q "select s.failed_frames from stream s join timeline t on t.id = s.timeline_id
	       where t.name = '$1'")
	echo "# $1: $r access rows with errno $4, $f failed frames"
	check "$1: access rows carry errno $4 ($r)" test "$r" -ge 1
	check "$1: stream counts failed frames ($f)" test "${f:-0}" -ge 1
done
check_eq "bystander streams: no failed read" 0 \
	"$(q "select count(*) from access a join stream s on s.id = a.stream_id
	      join timeline t on t.id = s.timeline_id where t.name = 'ok' and a.errno != 0")"
check_eq "integrity" ok "$(q 'pragma integrity_check')"
echo "# faults injected: $injected (delete, truncate, chmod 000 while open); survived: mount served $survived exact reads after them"

rm -rf "$M"
mv "$T/media.orig" "$M"

# -o inject: 2 % EIO on clip0007's audio, 2 ms on clip0008's video
mount_fs "$M" "$T/mnt" -o db="$DB",label=inject,pace=off \
	-o "inject=clip=clip0007:track=A*:error=EIO@0.02" \
	-o "inject=clip=clip0008:track=V:delay=1ms-3ms:seed=3"
tries=0 failed=0
while [ $tries -lt 10 ]; do
	cat "$T/mnt/ok" >/dev/null 2>&1 || failed=$((failed + 1))
	tries=$((tries + 1))
done
umount_fs "$T/mnt"
r=$(q "select count(*), sum((injected & 1) != 0), sum((injected & 2) != 0),
	      sum(errno = 5 and (injected & 2) != 0), sum(errno != 0 and (injected & 2) = 0),
	      sum((injected & 2) != 0 and not (clip = 'clip0007' and track like 'A%')),
	      sum((injected & 1) != 0 and not (clip = 'clip0008' and track = 'V')),
	      sum(injected = 0 and clip = 'clip0008' and track = 'V')
	from access a join stream s on s.id = a.stream_id join run r on r.id = s.run_id
	where r.label = 'inject'")
echo "# inject: $tries reads, $failed failed; rows, delayed, errors, EIO errors, uninjected errors, stray errors, stray delays, undelayed: $r"
IFS='|' read -r rows del err eio other serr sdel undel <<EOF
$r
EOF
check "inject: some reads delayed ($del)" test "${del:-0}" -gt 0
check "inject: some reads failed ($err)" test "${err:-0}" -gt 0
check_eq "inject: every injected error is an EIO row" "$err" "$eio"
check_eq "inject: no error that was not injected" 0 "${other:-0}"
check_eq "inject: errors only where the rule matches" 0 "${serr:-0}"
check_eq "inject: delays only where the rule matches" 0 "${sdel:-0}"
check_eq "inject: every matching read delayed" 0 "${undel:-0}"
check "inject: readers saw the errors ($failed of $tries)" test "$failed" -gt 0
check_eq "inject: mount options recorded" 1 \
	"$(q "select count(*) from run where label = 'inject' and options like '%inject=clip=clip0007%'")"
echo "# inject: $rows access rows, $err injected errors, $del injected delays"
finish
