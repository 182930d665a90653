#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench, section 12: timelinefs against its ceiling, the simplest
# FUSE server of the same bytes (tests/bench/ceiling.c: timeline01's
# backing reads served as one file, from the same page-cached clip
# pages, on a connection set as timelinefs's).  Both are mounted at once;
# rounds alternate the two (ceiling then timelinefs, then timelinefs then
# ceiling, ...: a host that drifts or a neighbour's burst falls on both
# alike), each side reading the whole timeline CEIL_READS times with dd,
# in cached mode (the default) and under -o direct_io, at bs=1M and 4k,
# and "stock": -o direct_io with timelinefs started under the stock
# pipe-max-size (CEIL_STOCK_PIPE_MAX, 1 MiB: it splices 512 KiB requests)
# against the ceiling's raised pipes, at bs=1M.
# Per round: each side's MB/s and its daemon's CPU per GB (/proc/PID/stat,
# user + system), and timelinefs's ratio to the ceiling in that round.
# pipe-max-size is raised to CEIL_PIPE_MAX for the section (root; "host"
# leaves it), so that 1 MiB replies can splice.  Appends key=value lines to
# RESULTS (bench.sh's; alone: $TLFS_BUILD/bench-ceil.results).  Small:
# CEIL_ROUNDS=3 CEIL_READS=1 CEIL_GEN="--clips 2 --clip-seconds 4
# --timelines 1 --events 2 --min-seconds 2 --max-seconds 2"
# TLFS_BUILD=build sh tests/bench/ceiling.sh /tmp/r
set -eu

: "${TLFS_BUILD:?set by make bench}"
TOP=${TLFS_TOP:-$(cd "$(dirname "$0")/../.." && pwd)}
DAEMON=
# shellcheck source=tests/bench/mount.sh
. "$TOP/tests/bench/mount.sh"
section_paths ceil bench-media "${1:-}"
CEIL=$TLFS_BUILD/tests/bench/ceiling
EXPORT=$TOP/mount-scripts/timelinefs-export
CMNT=$W/cmnt
: "${CEIL_ROUNDS:=7}"
: "${CEIL_READS:=4}"
: "${CEIL_CASES:=cached:1M cached:4k direct_io:1M direct_io:4k stock:1M}"
# more options for one side, to find what moves the ratio (e.g.
# CEIL_OPTS=readahead=128 or splice=off; TLFS_OPTS=readahead=128)
: "${CEIL_OPTS:=}"
: "${TLFS_OPTS:=}"
: "${CEIL_PIPE_MAX:=4194304}"
: "${CEIL_STOCK_PIPE_MAX:=1048576}"
: "${CEIL_GEN:=}"

[ -x "$CEIL" ] || { echo "ceiling.sh: missing $CEIL" >&2; exit 1; }
CDAEMON=
PMS=/proc/sys/fs/pipe-max-size
PMS_RESTORE=
section_setup ceil
ceil_cleanup() {
	set +e
	[ -n "$PMS_RESTORE" ] && echo "$PMS_RESTORE" >"$PMS"
	grep -q " $CMNT fuse" /proc/mounts && fusermount3 -u -z "$CMNT"
	[ -n "$CDAEMON" ] && kill "$CDAEMON" 2>/dev/null && wait "$CDAEMON"
	cleanup_fs
}
trap ceil_cleanup EXIT
mkdir -p "$CMNT"

gen_media "${CEIL_GEN:-$BENCH_GEN_OPTS}"
# into the page cache (a clip of an image sequence is a folder of images)
find "$M" -path "$M/clip*" -type f -exec cat {} + >/dev/null
find "$M" -path "$M/clip*" -type f -exec cat {} + >/dev/null

# the map: the backing reads of one whole read of timeline01, recorded
# whatever TLFS_OPTS records (TLFS_OPTS=record=streams measures what the
# access rows cost)
say "bench: 12. the ceiling: timeline01's reads, served as one file"
mount_fs "pace=off${TLFS_OPTS:+,$TLFS_OPTS},record=all"
LC_ALL=C dd if="$MNT/timeline01" of=/dev/null bs=1M 2>/dev/null
sid=$(last_stream)
umount_fs
"$EXPORT" --served --fio-iolog "$BENCH_DB" "$sid" "$W/timeline01.iolog"

put pipe_max_host "$(cat "$PMS")"
if [ "$CEIL_PIPE_MAX" != host ] && [ "$(cat "$PMS")" != "$CEIL_PIPE_MAX" ] &&
	echo "$CEIL_PIPE_MAX" >"$PMS" 2>/dev/null; then
	PMS_RESTORE=$(sed -n 's/^ceil_pipe_max_host=//p' "$R" | tail -1)
fi
put pipe_max "$(cat "$PMS")"
put rounds "$CEIL_ROUNDS"
put reads "$CEIL_READS"
put opts "${CEIL_OPTS:--}"
put tlfs_opts "${TLFS_OPTS:--}"

# cmount OPTS: the ceiling on CMNT
cmount() {
	"$CEIL" -f -o "map=$W/timeline01.iolog${1:+,$1}${CEIL_OPTS:+,$CEIL_OPTS}" \
		"$M" "$CMNT" >"$W/ceil.log" 2>&1 &
	CDAEMON=$!
	wait_mounted "$CMNT" "$CDAEMON" "$W/ceil.log"
}
cumount() {
	fusermount3 -u "$CMNT"
	wait "$CDAEMON" 2>/dev/null || true
	CDAEMON=
}
# ra_of MNT: the mount's readahead in KiB (its bdi's read_ahead_kb)
ra_of() {
	dev=$(awk -v m="$1" '$5 == m { print $3 }' /proc/self/mountinfo)
	cat "/sys/class/bdi/$dev/read_ahead_kb"
}
# reads PID FILE BS COUNT: CEIL_READS dd of FILE (COUNT blocks, or all);
# "MB/s CPU-s/GB READER-CPU-s/GB" of them: the CPU PID's, and the dd's
# own (user + system of the dd processes, which a sh of their own waits
# for: /proc/PID/stat cutime + cstime).  The reader's side is where a
# kernel's page-cache drop at open is paid (the ceiling's keep_cache 0),
# timelinefs's behind the reader is paid in its daemon: the sum compares
# the whole cost of a byte.
reads() {
	c0=$(cpu_of "$1")
	: >"$W/dd.err"
	s=$(now)
	# shellcheck disable=SC2016 # the inner sh's own $$ and arguments
	rt=$(sh -c 'i=0
		while [ $i -lt "$1" ]; do
			LC_ALL=C dd if="$2" of=/dev/null bs="$3" ${4:+count=$4} 2>>"$5"
			i=$((i + 1))
		done
		cut -d" " -f16,17 /proc/$$/stat' sh "$CEIL_READS" "$2" "$3" "${4:-}" "$W/dd.err")
	e=$(now)
	c1=$(cpu_of "$1")
	b=$(awk '/copied/ { b += $1 } END { printf "%.0f", b }' "$W/dd.err")
	echo "$b $s $e $c0 $c1 $rt $(getconf CLK_TCK)" |
		awk '{ printf "%.1f %.4f %.4f", $1 / ($3 - $2) / 1e6,
			($5 - $4) / ($1 / 1e9), ($6 + $7) / $8 / ($1 / 1e9) }'
}
steal() { awk '$1 == "cpu" { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }

st0=$(steal)
put load_start "$(cut -d' ' -f1 /proc/loadavg)"
for mode in cached direct_io stock; do
	case " $CEIL_CASES " in *" $mode:"*) ;; *) continue ;; esac
	o=
	[ $mode = cached ] || o=direct_io
	if [ $mode = stock ]; then
		# timelinefs sizes its requests to the pipes it gets at start
		pms=$(cat "$PMS")
		[ -n "$PMS_RESTORE" ] || PMS_RESTORE=$pms
		echo "$CEIL_STOCK_PIPE_MAX" >"$PMS" || exit 1
		mount_fs "pace=off${o:+,$o}${TLFS_OPTS:+,$TLFS_OPTS}"
		echo "$pms" >"$PMS"
		put stock_pipe_max "$CEIL_STOCK_PIPE_MAX"
		# its note says the request size zero copy got, if any
		put stock_note "$(grep -o 'zero copy.*requests of [0-9]* KiB\|zero copy.* is off' \
			"$W/daemon.log" | head -1 | sed 's/ (-o splice=auto)//')"
	else
		mount_fs "pace=off${o:+,$o}${TLFS_OPTS:+,$TLFS_OPTS}"
	fi
	cmount "$o"
	# the same bytes, or nothing here is worth reading
	if ! cmp -s "$MNT/timeline01" "$CMNT/timeline01"; then
		say "bench: 12. the ceiling's timeline01 is not timelinefs's"
		exit 1
	fi
	if [ $mode = cached ]; then
		put ra_kb "$(ra_of "$MNT") $(ra_of "$CMNT")"
	fi
	for bs in 1M 4k; do
		case " $CEIL_CASES " in *" $mode:$bs "*) ;; *) continue ;; esac
		# one FUSE request per 4 KiB under direct_io: 32 MiB of it
		n=
		[ "$mode:$bs" != direct_io:4k ] || n=8192
		key=${mode}_$bs
		cm="" cc="" cr="" tm="" tc="" tr=""
		r=1
		while [ $r -le "$CEIL_ROUNDS" ]; do
			order="c t"
			[ $((r % 2)) = 1 ] || order="t c"
			for side in $order; do
				if [ "$side" = c ]; then
					# shellcheck disable=SC2046 # three words
					set -- $(reads "$CDAEMON" "$CMNT/timeline01" $bs $n)
					cm="$cm:$1" cc="$cc:$2" cr="$cr:$3"
				else
					# shellcheck disable=SC2046
					set -- $(reads "$DAEMON" "$MNT/timeline01" $bs $n)
					tm="$tm:$1" tc="$tc:$2" tr="$tr:$3"
				fi
			done
			r=$((r + 1))
		done
		say "  $mode bs=$bs MB/s ceiling ${cm#:}, timelinefs ${tm#:}"
		put "${key}_c_mbs" "${cm#:}"
		put "${key}_c_cpu" "${cc#:}"
		put "${key}_t_mbs" "${tm#:}"
		put "${key}_t_cpu" "${tc#:}"
		put "${key}_c_rcpu" "${cr#:}"
		put "${key}_t_rcpu" "${tr#:}"
	done
	cumount
	umount_fs
done
st1=$(steal)
put steal_pct "$(echo "$st0 $st1" | awk '{ printf "%.1f", ($4 > $2) ? 100 * ($3 - $1) / ($4 - $2) : 0 }')"
put load_end "$(cut -d' ' -f1 /proc/loadavg)"
if [ -n "$PMS_RESTORE" ]; then
	echo "$PMS_RESTORE" >"$PMS"
	PMS_RESTORE=
fi
