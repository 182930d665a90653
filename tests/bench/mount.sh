# SPDX-License-Identifier: MIT
# Sourced by bench.sh, seq.sh, ingest.sh, ceiling.sh, xport.sh and players.sh: mount the daemon
# under test in the foreground on generated media with buffered backing
# (every backing read a page-cache hit), and unmount it.  Needs BIN, M,
# MNT, W and BENCH_DB.  And the clocks they read: now, cpu_of; their
# media, gen_media; N readers at once, parallel; the database, q,
# last_stream, late_after.

now() { date +%s.%N; }
# CPU seconds (user + system) of a process, all its threads, past and present
cpu_of() {
	awk -v t="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$1/stat"
}

# mount_fs OPTS: OPTS are added after db= and backing=buffered
mount_fs() {
	"$BIN" -f -o "db=$BENCH_DB,backing=buffered,$1" "$M" "$MNT" \
		>"$W/daemon.log" 2>&1 &
	DAEMON=$!
	wait_mounted "$MNT" "$DAEMON" "$W/daemon.log"
}

# wait_mounted MNT PID LOG: until MNT is mounted; exit, showing LOG, if
# PID dies first or 10 s pass
wait_mounted() {
	i=0
	while ! grep -q " $1 fuse" /proc/mounts; do
		kill -0 "$2" 2>/dev/null || { cat "$3" >&2; exit 1; }
		i=$((i + 1))
		[ $i -lt 100 ] ||
			{ echo "$(basename "$0"): mount timed out" >&2; exit 1; }
		sleep 0.1
	done
}

umount_fs() {
	fusermount3 -u "$MNT"
	while kill -0 "$DAEMON" 2>/dev/null; do sleep 0.1; done
	wait "$DAEMON" 2>/dev/null || true
	DAEMON=
}

# cleanup_fs: an EXIT trap's work: the mount and the daemon gone, W removed
cleanup_fs() {
	set +e
	grep -q " $MNT fuse" /proc/mounts && fusermount3 -u -z "$MNT"
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON"
	rm -rf "$W"
}

# section_paths NAME MEDIA [RESULTS]: the paths of a section of its own
# (seq.sh, ingest.sh, ceiling.sh, paced.sh), all under TLFS_BUILD (made
# absolute: the mount points are looked up in /proc/mounts): BIN, GEN,
# W=bench-NAME-work, M=MEDIA, MNT, BENCH_DB and R (RESULTS, or
# bench-NAME.results)
# shellcheck disable=SC2034 # read by the scripts that source this one
section_paths() {
	TLFS_BUILD=$(cd "$TLFS_BUILD" && pwd)
	BIN=$TLFS_BUILD/timelinefs
	GEN=$TLFS_BUILD/timelinefs-gen
	W=$TLFS_BUILD/bench-$1-work
	M=$TLFS_BUILD/$2
	MNT=$W/mnt
	BENCH_DB=$W/$1.db
	R=${3:-$TLFS_BUILD/bench-$1.results}
}

# section_setup PREFIX: the start of a section of its own (seq.sh,
# ingest.sh): the EXIT trap of cleanup_fs, W and MNT made anew, RESULTS ($R)
# there; then put KEY VALUE appends PREFIX_KEY=VALUE to it and say prints
# on stderr (bench.sh has its own put, without a prefix)
section_setup() {
	trap cleanup_fs EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	rm -rf "$W"
	mkdir -p "$W" "$MNT"
	touch "$R"
	put_prefix=$1
	put() { echo "${put_prefix}_$1=$2" >>"$R"; }
	say() { printf '%s\n' "$*" >&2; }
}

# The bench's media (bench.sh, ceiling.sh): 6 clips of 10 s (1.1 GB) and
# 200 timelines of 10 s that edit them
# shellcheck disable=SC2034 # read by the scripts that source this one
BENCH_GEN_OPTS="--clips 6 --clip-seconds 10 --timelines 200 --events 4 --min-seconds 2.5 --max-seconds 2.5 --seed 7"

# gen_media OPTS: timelinefs-gen OPTS into M, unless this timelinefs-gen
# made M with these OPTS already (it is seeded: the same bytes).  Needs
# GEN and say.
gen_media() {
	key="$1 $(cksum <"$GEN")"
	[ "$(cat "$M/.gen-opts" 2>/dev/null)" != "$key" ] || return 0
	rm -rf "$M"
	say "bench: generating media in $M"
	# shellcheck disable=SC2086 # OPTS are words
	"$GEN" $1 "$M" >/dev/null
	echo "$key" >"$M/.gen-opts"
}

# parallel N BS [FIRST]: N dd readers of timelines FIRST.. at once; prints
# "bytes wall_seconds daemon_cpu_seconds"
parallel() {
	n=$1
	bs=$2
	first=${3:-1}
	c0=$(cpu_of "$DAEMON")
	s=$(now)
	pids=
	i=0
	while [ $i -lt "$n" ]; do
		f=$(printf 'timeline%02d' $((first + i)))
		LC_ALL=C dd if="$MNT/$f" of=/dev/null bs="$bs" 2>"$W/p$i.err" &
		pids="$pids $!"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086 # the daemon is a child too
	wait $pids
	e=$(now)
	c1=$(cpu_of "$DAEMON")
	bytes=$(cat "$W"/p*.err | awk '/copied/ { b += $1 } END { printf "%.0f", b }')
	rm -f "$W"/p*.err
	echo "$bytes $s $e $c0 $c1" | awk '{ printf "%s %.4f %.2f\n", $1, $3 - $2, $5 - $4 }'
}

q() { sqlite3 -batch -noheader "$BENCH_DB" "$1"; }
last_stream() { q "select coalesce(max(id), 0) from stream"; }
# late_after ID N: the late frames of the N streams after stream ID, once
# their rows are there (written at close, by the recorder: waited for)
late_after() {
	i=0
	while [ "$(q "select count(*) from stream where id > $1 and closed_ns is not null")" -lt "$2" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	q "select coalesce(sum(late_frames), -1) from stream where id > $1"
}
