#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: -o record=all|streams|off decides which rows a stream writes.
# streams keeps the stream rows (with their totals) but no access row; off
# keeps only the run and timeline rows; the bytes read are the same.
. "$(dirname "$0")/lib.sh"

M=$T/media
"$GEN" --clips 2 --clip-seconds 1 --timelines 2 --events 2 \
	--min-seconds 0.5 --max-seconds 0.5 --seed 5 "$M" >/dev/null
want=$($EXPECT sha256 "$M/timelines/timeline01.tl" "$M")

for mode in all streams off; do
	DB=$T/$mode.db
	mount_fs "$M" "$T/mnt" -o db="$DB",pace=off,record=$mode
	got=$(sha256sum <"$T/mnt/timeline01" | cut -d' ' -f1)
	check_eq "record=$mode: bytes exact" "$want" "$got"
	umount_fs "$T/mnt"
	eval "rows_$mode=\"\$(q 'select (select count(*) from run), (select count(*) from stream), (select count(*) from access)')\""
done
slices=$($EXPECT slices "$M/timelines/timeline01.tl" | sed -n 1p)
# shellcheck disable=SC2154 # set by the eval above
check_eq "record=all: run, stream and every access row" "1|1|$slices" "$rows_all"
# shellcheck disable=SC2154
check_eq "record=streams: run and stream rows, no access row" "1|1|0" "$rows_streams"
DB=$T/streams.db
check_eq "record=streams: the stream row has its totals" \
	"$($EXPECT size "$M/timelines/timeline01.tl")|0" \
	"$(q "select bytes, late_frames from stream")"
# shellcheck disable=SC2154
check_eq "record=off: the run row only" "1|0|0" "$rows_off"
DB=$T/off.db
check_eq "record=off: the run row names the option" 1 \
	"$(q "select options like '%record=off%' from run")"

if "$BIN" -f -o record=some "$M" "$T/mnt" >"$T/bad.log" 2>&1; then
	not_ok "record=some is refused"
else
	check "record=some is refused with a reason" grep -q "bad record 'some'" "$T/bad.log"
fi
finish
