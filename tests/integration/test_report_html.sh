#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-report --html on a real database (two short bench runs, one
# a label), rendered by Debian's headless Chromium: the screenshot is no
# blank page (many colours, the tables' and the plots' own among them),
# and the browser asked the network for nothing the page holds (its net
# log, with every host name mapped to nowhere: nothing leaves).  A control
# page with one image elsewhere shows that the net log check catches a
# request.  The page's parts are checked by tests/python/test_html.py.
. "$(dirname "$0")/lib.sh"

# chromium: make deps; without it a skip, a failure under CI=true
need_tools sqlite3 chromium
PY=${TLFS_PYTHON:-/usr/bin/python3}
"$PY" -c 'import scipy, matplotlib.image' 2>/dev/null ||
	{ echo "skip: no SciPy or matplotlib in $PY (make deps)"; exit 77; }
BENCH=$TOP/mount-scripts/timelinefs-bench
REPORT=$TOP/mount-scripts/timelinefs-report
export TIMELINEFS_BIN_DIR="$TLFS_BUILD"
# the bench's private mount points and work folders go under $T
export TMPDIR="$T"
SMALL='--clips 4 --clip-seconds 2 --timelines 3 --events 4 --min-seconds 0.3 --max-seconds 0.6 --video-rate 2M'
DB=$T/r.db

# two sessions, one a label: a real run's environment, streams and reads
gen="--generate --gen-opts"
for l in base "new <b>"; do
	# shellcheck disable=SC2086 # the first bench generates the media
	if "$BENCH" $gen ${gen:+"$SMALL"} --media "$T/media" --workstations 1 --repeat 3 \
		--warmup 0 --pace off --label "$l" --db "$DB" >"$T/bench.out" 2>&1; then
		ok "bench of label '$l'"
	else
		not_ok "bench of label '$l': $(tail -n 5 "$T/bench.out")"
	fi
	gen=
done
rc=0
"$REPORT" "$DB" --html "$T/r.html" >"$T/out" 2>"$T/err" || rc=$?
check_eq "report --html: exit 0, nothing on stderr" "0|" "$rc|$(cat "$T/err")"
check_eq "the page: two runs, a comparison, two inline plots" "1|1|2" \
	"$(grep -c ', 2 runs; written' "$T/r.html")|$(grep -c 'id="compare-1"' "$T/r.html")|$(grep -o '<img [^>]*src="data:image/png;base64,' "$T/r.html" | wc -l)"

# shot PAGE PNG NETLOG: Chromium draws PAGE into PNG, logging what it
# asked the network for in NETLOG; its background services off, every
# host name resolved to nowhere (nothing leaves the machine) and its
# profile in $T (gone with it)
shot() {
	rm -rf "$T/chrome"
	timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --user-data-dir="$T/chrome" \
		--host-resolver-rules='MAP * ~NOTFOUND' --log-net-log="$3" \
		--window-size=1300,3400 --screenshot="$2" "file://$1" >"$T/chrome.log" 2>&1
}
# asked NETLOG: the URLs the page asked for (a browser's own requests,
# initiator "not an origin", are not the page's)
asked() {
	"$PY" - "$1" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
seen = set()
for e in log["events"]:
    p = e.get("params") or {}
    if names.get(e["type"]) == "URL_REQUEST_START_JOB" and "url" in p \
            and p.get("initiator") != "not an origin":
        seen.add(p.get("url"))
print("\n".join(sorted(seen)))
PY
}

t0=$(date +%s)
if shot "$T/r.html" "$T/r.png" "$T/net.json"; then
	ok "chromium drew the page ($(($(date +%s) - t0)) s)"
else
	not_ok "chromium drew the page: $(tail -n 5 "$T/chrome.log")"
fi
check_none "the page asked the network for nothing" "$(asked "$T/net.json" 2>&1)"
# the screenshot: its size, its colours (a blank page has one), the
# verdicts' cells and the plots drawn (their first stream's blue, and
# ink in the lower half, where the plots are)
check_eq "the screenshot: 1300x3400, not blank, tables and plots drawn" "ok" \
	"$("$PY" - "$T/r.png" <<'PY' 2>&1
import sys
import numpy as np
from matplotlib.image import imread
img = (imread(sys.argv[1])[:, :, :3] * 255).round().astype(int)
h, w = img.shape[:2]
flat = img.reshape(-1, 3)
colours = len(np.unique(flat[:, 0] * 65536 + flat[:, 1] * 256 + flat[:, 2]))
def near(rgb, tol=6):
    return int((np.abs(flat - rgb).max(axis=1) <= tol).sum())
ink = (img[h // 2:] < 200).any(axis=2).mean()
bad = []
if (w, h) != (1300, 3400):
    bad.append("size %dx%d" % (w, h))
if colours < 200:
    bad.append("%d colours" % colours)
if near((0xe3, 0xe7, 0xea), 0) + near((0xf8, 0xd0, 0xcc), 0) + near((0xcd, 0xec, 0xcf), 0) \
        + near((0xfb, 0xe7, 0xb5), 0) < 500:
    bad.append("no verdict cell's colour")
if near((0x1f, 0x77, 0xb4)) < 20:
    bad.append("no plot's blue")
if ink < 0.01:
    bad.append("lower half blank (%.4f ink)" % ink)
print("; ".join(bad) or "ok")
PY
)"

# the control: a page with one image elsewhere is caught asking for it
printf '<!DOCTYPE html><html><body><p>x</p><img src="http://example.invalid/x.png"></body></html>\n' \
	>"$T/ext.html"
shot "$T/ext.html" "$T/ext.png" "$T/ext.json" || :
check_eq "control: a page with an image elsewhere is caught asking for it" \
	"http://example.invalid/x.png" "$(asked "$T/ext.json" 2>&1)"
check_none "chromium left no process behind" "$(pgrep -f -- "--user-data-dir=$T/chrome" || :)"
finish
