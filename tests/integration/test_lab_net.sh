#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-lab net: workstations across a network on one machine.  A
# server namespace and N workstation namespaces joined through a bridge in
# a namespace of the lab's own, links shaped with tbf, smbd in the server
# namespace sharing a timelinefs mount.  Checked: usage errors; a kernel
# without network namespaces, veth, the bridge, tbf or netem refused by
# the piece's name with nothing made; each step of up made to fail, a
# kill -9 of up half way and of a run whose command left a process behind:
# nothing left after down --all (no namespace, state record, smbd or its
# folder; the host's links as they were); 20 workstations up and down
# within 10 s; a link shaped to 200 Mbit/s carries within -15..+5 % of it
# (iperf3); smbclient in two workstations reads a timeline byte-exact over
# the lab's network and each stream's smbd pid names its workstation;
# behind a 100 Mbit/s link a 170 Mbit/s stream's row says that its reader
# got most frames late (stream.reader_late_frames), though the storage's
# late_frames, the only count before, stays below it.  NFS: nfs-ganesha
# in the server namespace exports the mount, nfs-cp reads it byte-exact.
# Before timelinefs-lab-net existed every case failed (no command 'net').
# Wall-clock figures: in TLFS_ALONE.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "skip: not root (network namespaces)"; exit 77; }
need_tools ip tc iperf3 smbd smbclient
# the lab's name: its namespaces are NAME-hub, NAME-srv, NAME-wsK
N=${TLFS_NET_PREFIX:-tlnet}$$
labenv() {
	e=$1
	shift
	env "$e" TMPDIR="$T" sh "$LABSH" --state-dir "$T/state" "$@"
}
trap lab_cleanup EXIT
links0=$(ip -o link | wc -l)

# left: what a lab named $N left behind, one a line
left() {
	ip netns list | awk -v n="$N-" 'index($1, n) == 1 { print "namespace " $1 }'
	ip netns list | awk 'index($1, "tlfsbench") == 1 { print "bench namespace " $1 }'
	[ ! -e "$T/state" ] || find "$T/state" -mindepth 1 -printf 'left: %p\n'
	find "$T" -maxdepth 1 -name "timelinefs-net-$N.*" -printf 'smbd folder %p\n'
	pgrep -f "timelinefs-net-$N" | sed 's/^/process /'
	[ "$(ip -o link | wc -l)" -eq "$links0" ] || echo "host links: $(ip -o link | wc -l), were $links0"
}

# kill9_after PID TEST...: once TEST holds (5 s at most), kill -9 PID
kill9_after() {
	p=$1
	shift
	i=0
	until "$@" || [ $i -ge 100 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	kill -9 "$p"
	wait "$p" 2>/dev/null || true
}

# --- usage errors: nothing made
st=0
lab net up --name "$N" --workstations 0 2>"$T/err" || st=$?
check_eq "--workstations 0: a usage error" 2 "$st"
st=0
lab net up --name "$N" --workstations 2 --ws-link 10mb 2>"$T/err" || st=$?
check_eq "--ws-link 10mb: a usage error naming the units" "2 1" \
	"$st $(grep -c "a rate like 1gbit or 100mbit, not '10mb'" "$T/err")"
st=0
lab net up --name "$N" --workstations 2 --jitter 1ms 2>"$T/err" || st=$?
check_eq "--jitter without --delay: a usage error" 2 "$st"
st=0
lab net up --name "bad/name" --workstations 2 2>"$T/err" || st=$?
check_eq "a name with '/': a usage error" 2 "$st"

# --- a kernel without a piece: refused by name, nothing made
R=$T/root
mkdir -p "$R/proc/self/ns"
st=0
labenv TIMELINEFS_LAB_SYSROOT="$R" net up --name "$N" --workstations 2 2>"$T/err" || st=$?
check_eq "no network namespaces: refused by name" "1 1" \
	"$st $(grep -c 'this kernel has no network namespaces' "$T/err")"
check_none "no network namespaces: nothing made" "$(left)"
for p in veth bridge tbf netem; do
	st=0
	labenv TIMELINEFS_LAB_NET_MISSING=$p net up --name "$N" --workstations 2 \
		--ws-link 100mbit --delay 1ms 2>"$T/err" || st=$?
	check_eq "no $p: refused by name" "1 1" \
		"$st $(grep -c "this kernel has no $p" "$T/err")"
	check_none "no $p: nothing left" "$(left)"
done
# netem for real: this project's kernels have none (CONFIG_NET_SCH_NETEM
# is not set); where there is one, its qdisc is on the link
st=0
lab net up --name "$N" --workstations 1 --delay 0.2ms >"$T/out" 2>"$T/err" || st=$?
if [ $st -eq 0 ]; then
	check "--delay 0.2ms: netem on workstation 1's link" \
		sh -c "lab() { sh '$LABSH' --state-dir '$T/state' \"\$@\"; }
			lab net run --name $N 1 -- tc qdisc show dev eth0 | grep -q 'netem.*delay 200us'"
	lab net down --name "$N"
else
	check_eq "--delay on a kernel without netem: refused naming it" "1 1" \
		"$st $(grep -c 'this kernel has no netem' "$T/err")"
fi
check_none "--delay: nothing left" "$(left)"

# --- every step of up made to fail: nothing left
for step in hub server workstations; do
	st=0
	labenv TIMELINEFS_LAB_FAIL_AFTER=$step net up --name "$N" --workstations 3 \
		--server-link 1gbit --ws-link 100mbit >/dev/null 2>"$T/err" || st=$?
	check_eq "up failing after '$step': status 1" 1 "$st"
	check_none "up failing after '$step': nothing left" "$(left)"
done

# --- 20 workstations up and down
t0=$(date +%s%N)
lab net up --name "$N" --workstations 20 --server-link 1gbit --ws-link 1gbit >/dev/null
t1=$(date +%s%N)
check_eq "20 workstations: 22 namespaces (hub, server, 20)" 22 \
	"$(ip netns list | awk -v n="$N-" 'index($1, n) == 1' | wc -l)"
check_eq "workstation 20 has its address" "10.201.1.20" \
	"$(lab net run --name "$N" 20 -- ip -4 -o addr show dev eth0 | awk '{ sub(/\/.*/, "", $4); print $4 }')"
check "workstation 20 reaches the server through the bridge" \
	lab net run --name "$N" 20 -- /usr/bin/python3 -c '
import socket, sys
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("10.201.0.1", 1))
except ConnectionRefusedError:
    sys.exit(0)   # the server answered: reached
sys.exit(1)'
check_eq "the server's link is shaped with tbf at 1 Gbit/s" 1 \
	"$(lab net run --name "$N" server -- tc qdisc show dev eth0 | grep -c 'tbf.*rate 1Gbit')"
check "status names the lab's 20 workstations" \
	grep -q '^workstations=20$' "$T/state/timelinefs-net-$N.net"
t2=$(date +%s%N)
lab net down --name "$N"
t3=$(date +%s%N)
echo "# 20 workstations: up $(( (t1 - t0) / 1000000 )) ms, down $(( (t3 - t2) / 1000000 )) ms"
check "20 workstations up and down within 10 s ($(( (t1 - t0 + t3 - t2) / 1000000 )) ms)" \
	test $(( (t1 - t0 + t3 - t2) / 1000000 )) -lt 10000
check_none "down: nothing left" "$(left)"

# --- kill -9 of up half way, then down --all (the lab's own process:
# not a function's subshell)
sh "$LABSH" --state-dir "$T/state" net up --name "$N" --workstations 40 >/dev/null 2>&1 &
kill9_after $! test -e "/run/netns/$N-ws5"
check "kill -9 of up half way left namespaces to remove" test -n "$(left)"
lab down --all
check_none "kill -9 of up, down --all: nothing left" "$(left)"

# --- kill -9 of a run whose command left a process in a workstation
lab net up --name "$N" --workstations 2 >/dev/null
sh "$LABSH" --state-dir "$T/state" net run --name "$N" 2 -- \
	sh -c 'sleep 300 & echo $! >'"$T/bg"'; wait' &
kill9_after $! test -s "$T/bg"
bg=$(cat "$T/bg")
check "the run's child lives on in workstation 2" kill -0 "$bg"
lab down --all
check "down --all: the run's child is gone" exited "$bg"
check_none "kill -9 of run, down --all: nothing left" "$(left)"

# --- a shaped link measured: iperf3 from the server to workstation 1
lab net up --name "$N" --workstations 2 --server-link 200mbit --ws-link 1gbit >/dev/null
port=5201
lab net run --name "$N" server -- iperf3 -s -1 -p $port >/dev/null 2>&1 &
i=0
until lab net run --name "$N" server -- sh -c "ss -ltn | grep -q ':$port '" || [ $i -ge 50 ]; do
	i=$((i + 1))
	sleep 0.1
done
bps=$(lab net run --name "$N" 1 -- iperf3 -c 10.201.0.1 -p $port -R -t 2 -J |
	/usr/bin/python3 -c 'import json, sys; print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))')
echo "# server link 200mbit: iperf3 carried $bps bit/s"
check "the 200 Mbit/s link carries within -15..+5 % of it ($bps bit/s)" \
	awk -v b="$bps" 'BEGIN { exit !(b > 170e6 && b < 210e6) }'
lab net down --name "$N"
check_none "iperf3: nothing left" "$(left)"

# --- smbd in the server namespace, smbclient in the workstations
# An SD edit of 3 s (90 frames, about 21 MB/s), paced at real time.
M=$T/media
"$GEN" --format sd-ntsc --clips 1 --clip-seconds 3 --timelines 2 \
	--events 1 --min-seconds 3 --max-seconds 3 --seed 7 "$M" >/dev/null
DB=$T/t.db
chmod 711 "$T"
mount_fs "$M" "$T/mnt" -o db="$DB",label=net,backing=buffered,allow_other
cat "$M"/clip* >/dev/null
st=0
labenv TIMELINEFS_LAB_FAIL_AFTER=smbd net up --name "$N" --workstations 2 \
	--share "$T/mnt" --smb-port 4446 >/dev/null 2>&1 || st=$?
check_eq "up failing after smbd: status 1" 1 "$st"
check_none "up failing after smbd: nothing left (smbd stopped)" "$(left)"
$EXPECT bytes "$M/timelines/timeline01.tl" "$M" >"$T/want"
frames=$(q "select frames from timeline where name = 'timeline01'")
# wait_streams N: until N streams are closed (10 s at most)
wait_streams() {
	i=0
	until [ "$(q "select count(closed_ns) from stream")" -ge "$1" ] || [ $i -ge 100 ]; do
		i=$((i + 1))
		sleep 0.1
	done
}
# get K FILE: workstation K reads timeline01 over SMB into FILE
get() {
	lab net run --name "$N" "$1" -- smbclient -N -p 4446 //10.201.0.1/timelines \
		-c "get timeline01 $2" >"$T/smb$1" 2>&1
}
labenv X=1 net up --name "$N" --workstations 2 --share "$T/mnt" --smb-port 4446 >/dev/null
for k in 1 2; do
	get $k "$T/got$k"
	check "workstation $k reads the timeline byte-exact over SMB" cmp -s "$T/want" "$T/got$k"
done
wait_streams 2
lab net clients --name "$N" >"$T/clients"
check_eq "each stream's smbd names its workstation (net clients)" "1 2" \
	"$(q "select pid from stream order by id" | while read -r p; do
		awk -v p="$p" '$1 == p { print $2 }' "$T/clients"; done | tr '\n' ' ' | sed 's/ $//')"
check_eq "net env: the lab's settings as run_env rows" \
	"net_lab=$N|net_workstations=2|net_ws_link_bps=0|net_smb=//10.201.0.1:4446/timelines" \
	"$(lab net env --name "$N" | grep -E '^net_(lab|workstations|ws_link_bps|smb)=' | tr '\n' '|' | sed 's/|$//')"
# On links that carry the stream: the figure the slow link's is held
# against below (smbclient's own pace makes some frames late to smbd)
row=$(q "select group_concat(frames || ' ' || late_frames || ' ' || reader_late_frames, ', ') from stream")
echo "# unshaped links: frames, late, late to the reader: $row"
fast=$(q "select max(reader_late_frames) from stream")
lab down --all
check_none "smbd's lab down --all: nothing left" "$(left)"

# The issue's case: a workstation behind a link slower than the stream
# (100 Mbit/s for about 170 Mbit/s).  The storage read every frame in
# time into the ring; the reader got most of them late (but the first
# ones: smbd reads up to 16 MiB ahead of what it has sent).  Before the
# stream row carried the reader's side (stream.reader_late_frames), its
# late_frames said 0 of 105 for a play of 2.4 times the edit's length.
lab net up --name "$N" --workstations 1 --ws-link 100mbit --share "$T/mnt" \
	--smb-port 4446 >/dev/null
s0=$(date +%s%N)
get 1 "$T/got.slow"
s1=$(date +%s%N)
check "behind 100 Mbit/s: byte-exact" cmp -s "$T/want" "$T/got.slow"
wait_streams 3
row=$(q "select frames || ' ' || late_frames || ' ' || reader_late_frames from stream where id = 3")
echo "# 100 Mbit/s: smbclient $(( (s1 - s0) / 1000000 )) ms for a 3 s edit; frames, late, late to the reader: $row"
# shellcheck disable=SC2086 # its three words
set -- $row
check "behind 100 Mbit/s: the reader got more than half the frames late ($3 of $1)" \
	test "$3" -gt $(( frames / 2 ))
check "behind 100 Mbit/s: more late to the reader than on unshaped links ($3, $fast)" \
	test "$3" -gt "$fast"
check "behind 100 Mbit/s: the storage's late frames do not show it ($2 of $1)" \
	test "$2" -lt "$3"
lab down --all
check_none "the slow link's lab: nothing left" "$(left)"

# NFS: this kernel has no nfs client (nor cifs), so nfs-ganesha (FSAL VFS)
# in the server namespace exports the mount over NFSv4 and libnfs's
# nfs-cp reads it from a workstation
if ! command -v ganesha.nfsd >/dev/null 2>&1 || ! command -v nfs-cp >/dev/null 2>&1; then
	skip_case "no ganesha.nfsd or nfs-cp (nfs-ganesha, nfs-ganesha-vfs, libnfs-utils)"
else
	had=0
	[ ! -e /var/lib/nfs/ganesha ] || had=1
	lab net up --name "$N" --workstations 1 --share "$T/mnt" --smb-port 4446 --nfs >/dev/null
	check_eq "--nfs: net env names the export" "net_nfs=nfs://10.201.0.1/timelines?version=4" \
		"$(lab net env --name "$N" | grep '^net_nfs=')"
	lab net run --name "$N" 1 -- nfs-cp "nfs://10.201.0.1/timelines/timeline01?version=4" \
		"$T/got.nfs" >"$T/nfs.out" 2>&1 || cat "$T/nfs.out"
	check "workstation 1 reads the timeline byte-exact over NFS (nfs-cp)" cmp -s "$T/want" "$T/got.nfs"
	lab down --all
	check_none "the NFS lab: nothing left, no ganesha" "$(left; pgrep -f "ganesha.nfsd -F -f $T" || :)"
	wait_streams 4
	check_eq "ganesha's stream: every frame played once" "ganesha.nfsd $frames" \
		"$(q "select comm || ' ' || frames from stream where id = 4")"
	[ "$had" -eq 1 ] || check_none "ganesha's recovery state stayed in the lab's folder" \
		"$(ls -d /var/lib/nfs/ganesha 2>/dev/null || :)"
fi
umount_fs "$T/mnt"

# --- timelinefs-bench --via smb: each workstation reads from its own
# namespace through smbd; the client's counts beside its stream
BENCH=$TOP/mount-scripts/timelinefs-bench
TIMELINEFS_BIN_DIR=$TLFS_BUILD TMPDIR=$T sh "$BENCH" --media "$M" --via smb \
	--lab "ws-link=100mbit,state-dir=$T/state" --workstations 2 --repeat 1 \
	--warmup 0 --db "$T/b.db" >"$T/bench.out" 2>&1 || { tail -n 20 "$T/bench.out"; false; }
DB=$T/b.db
check_eq "--via smb: a client row a workstation, each its own smbd's stream" \
	"1 10.201.1.1 smbclient 1|2 10.201.1.2 smbclient 1" \
	"$(q "select c.workstation || ' ' || c.address || ' ' || c.client || ' ' ||
		(s.comm = 'smbd' and s.pid is not null) from bench_client c
		join stream s on s.id = c.stream_id order by c.workstation" | tr '\n' '|' | sed 's/|$//')"
check_eq "--via smb: smbclient got every byte, and exited 0" \
	"$(q "select group_concat(bytes || ' 0', '|') from (select bytes from timeline order by name)")" \
	"$(q "select group_concat(c.bytes || ' ' || c.exit_status, '|') from bench_client c order by c.workstation")"
check_eq "--via smb: the network's settings in run_env" "100000000|2" \
	"$(q "select (select value from run_env where key = 'net_ws_link_bps') || '|' ||
		(select value from run_env where key = 'net_workstations')")"
check "--via smb: the bench prints each workstation's client" \
	grep -q "late to reader" "$T/bench.out"
check_none "--via smb: nothing of the lab left" "$(left)"

# --player mpv: NAME.mov from smbclient into mpv in workstation 1, its
# dropped frames and buffering waits recorded
if command -v mpv >/dev/null 2>&1; then
	TIMELINEFS_BIN_DIR=$TLFS_BUILD TMPDIR=$T sh "$BENCH" --media "$M" --via smb \
		--player mpv --lab "ws-link=100mbit,state-dir=$T/state" --workstations 1 \
		--repeat 1 --warmup 0 --db "$T/m.db" >"$T/mpv.out" 2>&1 ||
		{ tail -n 20 "$T/mpv.out"; false; }
	DB=$T/m.db
	row=$(q "select s.file || ' ' || c.exit_status || ' ' || (c.dropped_frames is not null) ||
		' ' || (c.buffering_waits is not null) from bench_client c join stream s on s.id = c.stream_id")
	echo "# mpv behind 100 Mbit/s: $(q "select 'wall ' || round(c.wall_s, 2) || ' s, dropped ' ||
		c.dropped_frames || ', buffering waits ' || c.buffering_waits || '; stream: late ' ||
		s.late_frames || ', late to reader ' || s.reader_late_frames || ' of ' || s.frames
		from bench_client c join stream s on s.id = c.stream_id")"
	check_eq "--player mpv: it played timeline01.mov, its counts recorded" \
		"timeline01.mov 0 1 1" "$row"
	check_none "--player mpv: nothing of the lab left" "$(left)"
else
	skip_case "no mpv: --player mpv not run"
fi
finish
