#!/bin/sh
# SPDX-License-Identifier: MIT
# MOUNT/.metrics/timelinefs.prom: the live metrics in Prometheus's text
# format, as a real node_exporter's textfile collector publishes them.
# node_exporter (Debian prometheus-node-exporter) on a loopback port with
# --collector.textfile.directory=MOUNT/.metrics is scraped with curl while
# a stream plays and after; the scrape is parsed by the Prometheus
# client's parser (python3-prometheus-client) and its values checked
# against the database: streams, frames, bytes, late frames by cause (a
# paused reader: reader), the headroom's least and median (within its
# 12 %), the recorder's rows.  Before, the mount had no such file.
. "$(dirname "$0")/lib.sh"

NE=/usr/bin/prometheus-node-exporter
PY=/usr/bin/python3
[ -x "$NE" ] || { echo "skip: no $NE (make deps installs prometheus-node-exporter)"; exit 77; }
"$PY" -c 'import prometheus_client' 2>/dev/null ||
	{ echo "skip: no python3-prometheus-client (make deps installs it)"; exit 77; }
need_tools curl

M=$T/media
"$GEN" --clips 3 --clip-seconds 3 --timelines 2 --events 3 \
	--min-seconds 1 --max-seconds 1 --seed 5 "$M" >/dev/null
DB=$T/t.db
cat "$M"/clip* >/dev/null
mount_fs "$M" "$T/mnt" -o db="$DB",label=metrics,backing=buffered

NEPID=
metrics_cleanup() {
	set +e
	[ -z "$NEPID" ] || { kill "$NEPID"; wait "$NEPID"; } 2>/dev/null
	cleanup
}
trap metrics_cleanup EXIT

check "the file is there, hidden: .metrics lists timelinefs.prom" sh -c "
	ls '$T/mnt/.metrics' | grep -qx timelinefs.prom && ! ls -a '$T/mnt' | grep -q metrics"

# a free loopback port: the kernel's choice
port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$NE" --web.listen-address="127.0.0.1:$port" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$T/mnt/.metrics" \
	>"$T/ne.log" 2>&1 &
NEPID=$!
i=0
until curl -sf "http://127.0.0.1:$port/metrics" >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 100 ] || break
	sleep 0.1
done

# parse NAME FILE: the samples of the scrape FILE whose name starts
# timelinefs_ (and node_textfile_scrape_error), "name{labels} value" a line
parse() {
	"$PY" - "$1" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
for fam in text_string_to_metric_families(open(sys.argv[1]).read()):
    for s in fam.samples:
        if s.name.startswith("timelinefs_") or s.name == "node_textfile_scrape_error":
            labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
            print("%s{%s} %r" % (s.name, labels, s.value))
PY
}
# v NAME{LABELS}: its value in the parsed scrape $T/p
v() {
	awk -v k="$1" '$1 == k { print $2 }' "$T/p"
}

# a reader that pauses 1.5 s a third of the way in, scraped during
paused_read "$T/mnt/timeline01" &
reader=$!
sleep 1
curl -sf "http://127.0.0.1:$port/metrics" >"$T/during" || :
wait "$reader"
parse "$T/during" >"$T/p"
check_eq "during: node_exporter read the file (no scrape error)" "0.0" \
	"$(v 'node_textfile_scrape_error{}')"
check_eq "during: one play stream open" "1.0" "$(v 'timelinefs_streams{kind=play}')"
check "during: frames played so far" awk -v f="$(v 'timelinefs_frames_total{kind=play}')" \
	'BEGIN { exit !(f > 0 && f < 90) }'

# after: the stream closed, its rows committed (the recorder flushes
# within 50 ms; wait until the database has the stream's close)
i=0
while [ "$(q "select count(*) from stream where closed_ns is not null")" != 1 ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || break
	sleep 0.1
done
sleep 0.2
curl -sf "http://127.0.0.1:$port/metrics" >"$T/after" || :
parse "$T/after" >"$T/p"
echo "# after: $(grep -E 'late_frames|headroom|frames_total|pending' "$T/p" | tr '\n' ' ')"
check_eq "after: no stream open" "0.0" "$(v 'timelinefs_streams{kind=play}')"
check_eq "after: streams opened, as the database's" \
	"$(q "select count(*) from stream").0" "$(v 'timelinefs_streams_opened_total{kind=play}')"
check_eq "after: frames, as the stream's row" \
	"$(q "select frames from stream").0" "$(v 'timelinefs_frames_total{kind=play}')"
check_eq "after: bytes, as the stream's row" \
	"$(q "select bytes from stream").0" "$(v 'timelinefs_bytes_total{kind=play}')"
for c in issue timer reader storage recording; do
	check_eq "after: late frames of cause $c, as late_frame's" \
		"$(q "select count(*) from late_frame where cause = '$c'").0" \
		"$(v "timelinefs_late_frames_total{cause=$c}")"
done
check "after: the paused reader's late frames are counted (reader)" \
	awk -v n="$(v 'timelinefs_late_frames_total{cause=reader}')" 'BEGIN { exit !(n > 0) }'
check_eq "after: headroom count, as frame_headroom's" \
	"$(q "select count(*) from frame_headroom").0" "$(v 'timelinefs_headroom_seconds_count{}')"
# exact in ns against the view's value rounded to 0.1 us: within half
# of it (printed to 0.1 us both, a least headroom of ...50 ns rounded
# apart, SQLite's round() half away from zero, printf's by its binary)
check "after: the least headroom, exact (to the view's 0.1 us)" awk \
	-v db="$(q "select headroom_min_us / 1e6 from stream_summary")" \
	-v m="$(v 'timelinefs_headroom_seconds{quantile=0}')" \
	'BEGIN { d = m - db; exit !(db != "" && m != "" && d <= 5.001e-8 && d >= -5.001e-8) }'
check "after: the headroom's sum, as frame_headroom's" awk \
	-v db="$(q "select sum(headroom_ns) / 1e9 from frame_headroom")" \
	-v m="$(v 'timelinefs_headroom_seconds_sum{}')" \
	'BEGIN { d = m - db; exit !(d < 1e-6 && d > -1e-6) }'
check "after: the median headroom within 12 % of stream_summary's" \
	awk -v db="$(q "select headroom_p50_us / 1e6 from stream_summary")" \
	-v m="$(v 'timelinefs_headroom_seconds{quantile=0.5}')" \
	'BEGIN { d = m - db; if (d < 0) d = -d; if (db < 0) db = -db; exit !(d <= 0.12 * db + 1e-6) }'
check_eq "after: the recorder's rows all committed" \
	"0.0 $(q "select count(*) from access").0" \
	"$(v 'timelinefs_recorder_rows_pending{}') $(v 'timelinefs_recorder_rows_written_total{}')"
umount_fs "$T/mnt"
finish
