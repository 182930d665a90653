#!/bin/sh
# SPDX-License-Identifier: MIT
# Two builds' read paths against each other, alternated so that the
# host's drift falls on both: sh tests/bench/ab-builds.sh OLD_BUILD
# NEW_BUILD [MEDIA].  Each round mounts OLD, then NEW (-o pace=off,
# backing=buffered, page-cached media), and reads timeline01 three times
# with dd; ROUNDS (4) rounds, each of BS (1M 4k) and cached and direct_io.
# Prints per case the mean MB/s, standard deviation and n of each build,
# and NEW - OLD in %.  A refactor that must not change the read path
# (make bench's single-stream ratios move by 10-20 % between runs of one
# build) is checked with this.  MEDIA: a timelinefs-gen folder (default:
# NEW_BUILD/resolve-media from make bench-resolve, else generated there).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OLD_BUILD NEW_BUILD [MEDIA]" >&2; exit 2; }
OLD=$(cd "$1" && pwd)
NEW=$(cd "$2" && pwd)
M=${3:-$NEW/resolve-media}
: "${ROUNDS:=4}"
for b in "$OLD" "$NEW"; do
	[ -x "$b/timelinefs" ] || { echo "$0: no $b/timelinefs (make first)" >&2; exit 1; }
done
if [ ! -d "$M/timelines" ]; then
	"$NEW/timelinefs-gen" --clips 12 --timelines 4 --events 12 --min-seconds 3.8 \
		--max-seconds 4.6 "$M" >/dev/null
fi
W=$(mktemp -d "${TMPDIR:-/tmp}/ab-builds.XXXXXX")
mnt=$W/mnt
mkdir "$mnt"
daemon=
cleanup() {
	grep -q " $mnt fuse" /proc/mounts && fusermount3 -u -z "$mnt"
	[ -z "$daemon" ] || kill "$daemon" 2>/dev/null || :
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
find "$M" -maxdepth 1 -type f \( -name '*.raw' -o -name '*.wav' \) -exec cat {} + >/dev/null
for mode in cached direct_io; do
	for bs in 1M 4k; do
		r=1
		while [ "$r" -le "$ROUNDS" ]; do
			for b in "$OLD" "$NEW"; do
				# a database per build: an older build refuses
				# a newer schema's file (and would never mount)
				opts=pace=off,backing=buffered,db=$W/$([ "$b" = "$OLD" ] && echo old || echo new).db
				[ $mode = cached ] || opts=$opts,direct_io
				"$b/timelinefs" -f -o "$opts" "$M" "$mnt" >/dev/null 2>&1 &
				daemon=$!
				until grep -q " $mnt fuse" /proc/mounts; do
					kill -0 "$daemon" 2>/dev/null || {
						echo "$0: $b/timelinefs did not mount $M" >&2
						exit 1
					}
					sleep 0.05
				done
				for _ in 1 2 3; do
					dd if="$mnt/timeline01" of=/dev/null bs=$bs 2>&1 |
						awk -v k="$mode bs=$bs" -v b="$([ "$b" = "$OLD" ] && echo old || echo new)" \
						'/copied/ { print k "|" b "|" $1 / $(NF-3) / 1e6 }'
				done
				fusermount3 -u "$mnt"
				wait "$daemon" || :
				daemon=
			done
			r=$((r + 1))
		done
	done
done | awk -F'|' '
{ k[$1] = 1; s[$1, $2] += $3; ss[$1, $2] += $3 * $3; n[$1, $2]++ }
function sd(c, b,   m) { m = s[c, b] / n[c, b]; return sqrt((ss[c, b] - n[c, b] * m * m) / (n[c, b] - 1)) }
END {
	printf "%-18s %22s %22s %9s\n", "case", "old MB/s (sd, n)", "new MB/s (sd, n)", "new-old"
	for (c in k) {
		mo = s[c, "old"] / n[c, "old"]; mn = s[c, "new"] / n[c, "new"]
		printf "%-18s %10.0f (%4.0f, %2d) %10.0f (%4.0f, %2d) %+8.1f%%\n", c, mo, sd(c, "old"), n[c, "old"],
		    mn, sd(c, "new"), n[c, "new"], (mn - mo) / mo * 100
	}
}'
