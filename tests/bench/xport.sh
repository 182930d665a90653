#!/bin/sh
# SPDX-License-Identifier: MIT
# The transport alone: one unpaced stream through the mount as a ratio of dd
# of a clip file at the same bs, cached and -o direct_io, best of N.  Small
# enough (seconds) to repeat A B A B when comparing two builds or options:
#   TLFS_BUILD=build sh tests/bench/xport.sh [-n N] [-o OPTS] [-b BS] [LABEL]
# -o adds mount options (both modes), -b the block sizes of cached mode and
# -d of direct_io (default "4k 1M" for both).
# Prints one line: label, load, and per case MB/s and ratio.  Not part of
# make test; media as make bench makes it (6 clips of 10 s), shared with it
# when TLFS_MEDIA points at the same folder.
set -eu

: "${TLFS_BUILD:?set TLFS_BUILD to a build folder}"
BIN=$TLFS_BUILD/timelinefs
GEN=${TLFS_GEN:-$TLFS_BUILD/timelinefs-gen}
M=${TLFS_MEDIA:-$TLFS_BUILD/bench-media}
W=$(mktemp -d "${TMPDIR:-/tmp}/xport.XXXXXX")
MNT=$W/mnt
N=3
OPTS=
BSS="4k 1M"
DBSS="4k 1M"
while getopts n:o:b:d: c; do
	case $c in
	n) N=$OPTARG ;;
	o) OPTS=,$OPTARG ;;
	b) BSS=$OPTARG ;;
	d) DBSS=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
LABEL=${1:-$(basename "$TLFS_BUILD")}

DAEMON=
BENCH_DB=$W/x.db
# shellcheck source=tests/bench/mount.sh
. "$(dirname "$0")/mount.sh"
trap cleanup_fs EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mkdir -p "$MNT"

GEN_OPTS="--clips 6 --clip-seconds 10 --timelines 100 --events 4 --min-seconds 2.5 --max-seconds 2.5 --seed 7"
if [ "$(cat "$M/.gen-opts" 2>/dev/null)" != "$GEN_OPTS" ]; then
	rm -rf "$M"
	echo "xport: generating media in $M" >&2
	# shellcheck disable=SC2086
	"$GEN" $GEN_OPTS "$M" >/dev/null
	echo "$GEN_OPTS" >"$M/.gen-opts"
fi
cat "$M"/clip* >/dev/null
BASEF=$M/clip0001.V.raw

TICK=$(getconf CLK_TCK)
# CPU ticks (user + system) of a process, all its threads, past and present
ticks_of() { [ -n "$1" ] && awk '{ print $14 + $15 }' "/proc/$1/stat" || echo 0; }
# best_mbs FILE BS [PID]: "best MB/s of N dd runs, CPU s/GB of dd and PID"
best_mbs() {
	best=0
	cpu=0
	bytes=0
	i=0
	t0=$(ticks_of "${3:-}")
	while [ $i -lt "$N" ]; do
		LC_ALL=C /usr/bin/time -f "cpu %U %S" dd if="$1" of=/dev/null \
			bs="$2" 2>"$W/dd.err"
		r=$(awk -v b="$best" -v c="$cpu" -v n="$bytes" '
			/bytes/ && /copied/ {
				for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i - 1)
				m = $1 / s / 1e6; b = m > b ? m : b; n += $1 }
			$1 == "cpu" { c += $2 + $3 }
			END { print b, c, n }' "$W/dd.err")
		best=${r%% *}
		r=${r#* }
		cpu=${r%% *}
		bytes=${r#* }
		i=$((i + 1))
	done
	t1=$(ticks_of "${3:-}")
	echo "$best $cpu $bytes $t0 $t1" |
		awk -v t="$TICK" '{ printf "%s %.3f", $1, ($2 + ($5 - $4) / t) / ($3 / 1e9) }'
}


out="$LABEL load=$(cut -d' ' -f1 /proc/loadavg)"
for mode in cached direct; do
	if [ $mode = cached ]; then mount_fs "pace=off$OPTS"; else mount_fs "pace=off,direct_io$OPTS"; fi
	[ $mode = cached ] && list=$BSS || list=$DBSS
	for bs in $list; do
		base=$(best_mbs "$BASEF" "$bs")
		ours=$(best_mbs "$MNT/timeline01" "$bs" "$DAEMON")
		# ratio of best MB/s, then CPU s/GB of reader + daemon (and of
		# dd of the clip file)
		out="$out $(echo "$ours $base" | awk -v m=$mode -v bs="$bs" \
			'{ printf "%s%s=%.3f(%.0f/%.0f,cpu %.2f/%.2f)", m, bs, $1 / $3, $1, $3, $2, $4 }')"
	done
	umount_fs
done
echo "$out"
