#!/bin/sh
# SPDX-License-Identifier: MIT
# timelinefs-gen --ingest (issue 23), the writer timelinefs-bench --ingest
# runs into a mount's ingest folder: its bytes are frames in a timeline
# file's interleave (frame k's V slice, then A1, A2 ...: each track's
# bytes the seeded stream eng_rng_derive(seed, 2^62, t), recomputed here in
# Python), the same whatever the write size, seeded, incompressible; and
# the options it refuses.  Mounts nothing.
NO_MOUNT=1
. "$(dirname "$0")/lib.sh"

G=$TLFS_BUILD/timelinefs-gen
# expect FILE SEED FRAMES NUM DEN VRATE VALIGN NAUDIO: FILE is the writer's
# bytes of FRAMES frames (eng_upto_rate per track, as layout.c)
expect() {
	python3 - "$@" <<'PY'
import sys
path, seed, frames, num, den, vrate, valign, na = sys.argv[1:9]
seed, frames, num, den, vrate, valign, na = map(int, (seed, frames, num, den, vrate, valign, na))
M = (1 << 64) - 1
def splitmix(x):
    x = (x + 0x9e3779b97f4a7c15) & M
    z = x
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return x, z ^ (z >> 31)
def derive(seed, a, b):
    x = seed
    x, z = splitmix(x); x = z ^ a
    x, z = splitmix(x); x = z ^ b
    x, z = splitmix(x)
    return z
def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M
class Stream:
    def __init__(self, seed):
        x = seed; self.s = []
        for _ in range(4):
            x, z = splitmix(x); self.s.append(z)
        self.buf = b""
    def word(self):
        s = self.s
        r = (rotl((s[1] * 5) & M, 7) * 9) & M
        t = (s[1] << 17) & M
        s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]
        s[2] ^= t; s[3] = rotl(s[3], 45)
        return r
    def take(self, n):
        out = bytearray(self.buf[:n]); self.buf = self.buf[n:]
        while len(out) < n:
            w = self.word().to_bytes(8, "little")
            k = n - len(out)
            out += w[:k]; self.buf = w[k:]
        return bytes(out)
def upto(rate, align, k):
    return (k * rate * den // (num * align)) * align
tracks = [(vrate, valign)] + [(144000, 3)] * na
streams = [Stream(derive(seed, 1 << 62, t)) for t in range(len(tracks))]
want = bytearray()
for k in range(frames):
    for t, (r, a) in enumerate(tracks):
        want += streams[t].take(upto(r, a, k + 1) - upto(r, a, k))
got = open(path, "rb").read()
if got != bytes(want):
    n = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]), min(len(got), len(want)))
    sys.exit("%s: %d bytes, expected %d; first difference at byte %d" % (path, len(got), len(want), n))
PY
}

# the seed preset (640x480 2vuy at 30000/1001, 2 audio tracks): 0.2 s is
# 6 frames; one write a frame, then sizes that cut frames and samples
$G --ingest 0.2 "$T/frame" 2>"$T/err"
check "the writer's bytes are the seed preset's interleave of seeded tracks" \
	expect "$T/frame" 1 6 30000 1001 18413587 614400 2
check "it says its rate against the stream's" \
	grep -q "^timelinefs-gen: ingest: 6 frames of seed (0.20s, 3.74 MB) to $T/frame in 6 writes of a frame: .* MB/s, .* x the stream's 18.70 MB/s$" "$T/err"
for ws in 512 4Ki 1Mi 1000001 7; do
	$G --ingest 0.2 --write-size "$ws" "$T/ws" 2>/dev/null
	check "--write-size $ws: the same bytes" cmp -s "$T/frame" "$T/ws"
done
# a preset with 4 audio tracks and a frame size of no fixed unit
$G --ingest 0.2 --format prores-hq-1080p25 --seed 9 --write-size 4Ki "$T/p" 2>/dev/null
check "prores-hq-1080p25, seed 9: its interleave (V 23 MB/s, 4 audio tracks)" \
	expect "$T/p" 9 5 25 1 23000000 1 4
$G --ingest 0.2 --seed 2 "$T/seed2" 2>/dev/null
check "another seed, other bytes" sh -c '! cmp -s "$1" "$2"' sh "$T/frame" "$T/seed2"
check "incompressible: gzip -1 saves nothing" \
	test "$(gzip -1 -c "$T/frame" | wc -c)" -ge "$(wc -c <"$T/frame")"
$G --ingest 0.2 - 2>/dev/null >"$T/stdout"
check "FILE - is stdout" cmp -s "$T/frame" "$T/stdout"

# refusals: usage errors (exit 2), each saying why
refuse() {
	want=$1
	shift
	rc=0
	$G "$@" >/dev/null 2>"$T/err" || rc=$?
	check_eq "refused: $* (exit 2)" 2 "$rc"
	check_eq "refused: $*: says" "$want" "$(head -n 1 "$T/err")"
}
refuse "timelinefs-gen: --ingest takes --format, --seed and --write-size: not --clips" \
	--ingest 1 --clips 2 "$T/x"
refuse "timelinefs-gen: --write-size is for --ingest" --write-size 4Ki "$T/x"
refuse "timelinefs-gen: invalid --ingest '0': expected seconds above 0" --ingest 0 "$T/x"
refuse "timelinefs-gen: invalid --write-size '0': expected bytes from 1 to 1Gi, like 512, 4Ki or 1Mi" \
	--ingest 1 --write-size 0 "$T/x"
refuse "timelinefs-gen: --ingest records a --format of rates: not the image sequence dpx10-2k" \
	--ingest 1 --format dpx10-2k "$T/x"
refuse "timelinefs-gen: missing FILE" --ingest 1
rc=0
$G --ingest 0.1 "$T/no/such/dir/x" 2>"$T/err" || rc=$?
check_eq "a file it cannot create: exit 1" 1 "$rc"
check_eq "and says why" "timelinefs-gen: cannot create $T/no/such/dir/x: No such file or directory" "$(cat "$T/err")"
finish
