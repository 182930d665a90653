#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 21: a timeline of real media is read where its frames are.  An
# H.264 MOV with B frames and PCM audio (ffmpeg makes it here) played from
# inside a group of pictures, cut to another: the access rows of a full
# read are, in order, per frame: where a run of the media starts, the
# frames its decoder needs (dep 1, from the group's key frame, in decode
# order, each packet once: a P frame shown after B frames is read ahead of
# its turn, dep 1, and not again at its turn), then the video frame, then
# the audio's extents (its samples in
# the container's chunks, adjacent ones joined), each (offset, length) as
# ffprobe -show_packets gives them, computed here independently.  The
# timeline file is the sum of the real sizes, and its bytes are the media's
# bytes at those extents.  Skipped (77) without ffmpeg.
. "$(dirname "$0")/lib.sh"

need_tools ffmpeg ffprobe sqlite3 python3
M=$T/media
mkdir -p "$M/timelines"
ffmpeg -nostdin -v error -y -f lavfi -i testsrc=size=160x120:rate=25 \
	-f lavfi -i sine=r=48000 -t 2 -c:v libx264 -bf 2 -g 12 \
	-pix_fmt yuv420p -c:a pcm_s16le "$M/b.mov"
# media frames 5..14 (inside the first GOP, across the second's key frame),
# then 20..29 (a cut into the second GOP); A1 under both
cat >"$M/timelines/t.tl" <<'EOF'
fps 25
track V 1000
track A1 96000 align=2
event V,A1 b 5 10 @0
event V,A1 b 20 10 @10
EOF
ffprobe -v error -select_streams 0 -show_entries packet=pts,pos,size,flags \
	-of csv=p=0 "$M/b.mov" >"$T/v.csv"
ffprobe -v error -select_streams 1 -show_entries packet=pts,duration,pos,size \
	-of csv=p=0 "$M/b.mov" >"$T/a.csv"

# the rows a full read must make, "frame|track|offset|length|dep"
python3 - "$T/v.csv" "$T/a.csv" "$T/played" >"$T/want" <<'EOF'
import sys
v = [l.strip().split(',') for l in open(sys.argv[1]) if l.strip()]
dec = [(int(p[0]), int(p[1]), int(p[2]), 'K' in p[3]) for p in v]  # pts size pos key
pres = sorted(range(len(dec)), key=lambda i: dec[i][0])  # presentation -> decode index
a = []
for l in open(sys.argv[2]):
    p = l.strip().split(',')
    if p[0]:
        a.append((int(p[0]), int(p[1]), int(p[2]), int(p[3])))  # pts dur size pos
a.sort()
segs = [(5, 0, 10), (20, 10, 10)]  # src, rec, frames
prev = None
nxt = 0         # the decoder's next packet, in decode order
played = open(sys.argv[3], 'w')
for src, rec, n in segs:
    for k in range(rec, rec + n):
        j = src + k - rec
        d = pres[j]
        if prev != j - 1:
            nxt = max(i for i in range(d + 1) if dec[i][3])
        prev = j
        # each packet once, in decode order: those before d are the
        # frame's dependencies (or frames shown later, read ahead: dep);
        # a frame read ahead earlier is not read again at its turn
        while nxt <= d:
            print('%d|V|%d|%d|%d' % (k, dec[nxt][2], dec[nxt][1],
                                     0 if nxt == d else 1))
            nxt += 1
        played.write('%d %d\n' % (dec[d][2], dec[d][1]))
        # 96000 bytes a second at 25 fps: 1920 samples of 2 bytes a frame
        s, e, ext = 1920 * j, 1920 * (j + 1), []
        for pts, dur, size, pos in a:
            lo, hi = max(s, pts), min(e, pts + dur)
            if lo >= hi:
                continue
            off, ln = pos + (lo - pts) * 2, (hi - lo) * 2
            if ext and ext[-1][0] + ext[-1][1] == off:
                ext[-1][1] += ln
            else:
                ext.append([off, ln])
        for off, ln in ext:
            print('%d|A1|%d|%d|0' % (k, off, ln))
            played.write('%d %d\n' % (off, ln))
EOF

DB=$T/t.db
mount_fs "$M" "$T/mnt" -o db="$DB",pace=off,backing=buffered
size=$(stat -c %s "$T/mnt/t")
dd if="$T/mnt/t" of="$T/got" bs=1M 2>/dev/null
umount_fs "$T/mnt"

q "select frame || '|' || track || '|' || file_offset || '|' || length || '|' || dep
	from access order by id" >"$T/rows"
check "rows: every extent and decoding dependency ffprobe gives, in order ($(wc -l <"$T/want") rows)" \
	cmp -s "$T/want" "$T/rows"
cmp -s "$T/want" "$T/rows" || diff "$T/want" "$T/rows" | head -10
# the reads before a frame's turn: 5 before media frame 5 and 8 before
# 20 (from each group's key frame, in decode order), and the P frames
# shown after B frames, read once ahead of their turn
check_eq "dependency reads: the model's (decode order, each packet once)" \
	"$(grep -c '|1$' "$T/want")" "$(q "select dep_accesses from stream_summary")"
check_eq "the file's size is the played extents'" "$size" \
	"$(awk '{ n += $2 } END { print n }' "$T/played")"
# the file's bytes are the media's at the played extents, in edit order
python3 - "$M/b.mov" "$T/played" >"$T/want.bin" <<'EOF'
import sys
f = open(sys.argv[1], 'rb')
out = sys.stdout.buffer
for l in open(sys.argv[2]):
    off, ln = l.split()
    f.seek(int(off))
    out.write(f.read(int(ln)))
EOF
check "bytes: the media's at every extent" cmp -s "$T/want.bin" "$T/got"
finish
