#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: a cached reader's page cache is let go of behind it, in 8 MiB
# steps for paced streams and 64 MiB steps for unpaced ones
# (engine/play/evict.c), and letting go costs no re-read: every frame is loaded
# once and the bytes are exact.
. "$(dirname "$0")/lib.sh"

M=$T/media
# one 10 s timeline: 183 MB
"$GEN" --clips 2 --clip-seconds 6 --timelines 1 --events 2 \
	--min-seconds 5 --max-seconds 5 --seed 5 "$M" >/dev/null
TL=$M/timelines/timeline01.tl
want=$($EXPECT sha256 "$TL" "$M")

# resident.py FILE: read FILE to the end in 1 MiB reads, as dd bs=1M does,
# then, the file still open (a second open would drop its pages), count
# its pages in the page cache (mincore of a private mapping, which reads
# nothing); prints "sha256 resident_bytes"
cat >"$T/resident.py" <<'PY'
import ctypes, hashlib, mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
h = hashlib.sha256()
while True:
    b = os.read(fd, 1 << 20)
    if not b:
        break
    h.update(b)
size = os.fstat(fd).st_size
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long)
libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
base = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
if base in (None, ctypes.c_void_p(-1).value):
    sys.exit("mmap: " + os.strerror(ctypes.get_errno()))
page = mmap.PAGESIZE
vec = (ctypes.c_ubyte * ((size + page - 1) // page))()
if libc.mincore(base, size, vec) != 0:
    sys.exit("mincore: " + os.strerror(ctypes.get_errno()))
print(h.hexdigest(), sum(v & 1 for v in vec) * page)
PY

MiB=1048576
# check_cache NAME PACE LIMIT_MIB
check_cache() {
	DB=$T/$1.db
	mount_fs "$M" "$T/mnt" -o db="$DB",backing=buffered,pace="$2"
	r=$(python3 "$T/resident.py" "$T/mnt/timeline01") || r="read-failed -1"
	umount_fs "$T/mnt"
	sha=${r% *}
	res=${r#* }
	check_eq "$1: bytes exact" "$want" "$sha"
	check "$1: at most $3 MiB of the timeline left in the page cache ($((res / MiB)) MiB)" \
		test "$res" -ge 0 -a "$res" -le $(($3 * MiB))
	check_eq "$1: every frame loaded once (no re-read)" \
		"$(q "select count(*) from access a join stream s on s.id = a.stream_id where a.track = 'V'")" \
		"$(q "select count(distinct a.frame) from access a where a.track = 'V'")"
	check_eq "$1: one stream, all its frames played" "1|0" \
		"$(q "select count(*), sum(frames <> (select max(frame) + 1 from access)) from stream")"
	check_eq "$1: the stream row says no frame was loaded again" 0 \
		"$(q "select reloads from stream")"
	# the kernel's readahead came in large requests (1 MiB windows;
	# congestion made them 20 KiB once, see -o max_background)
	kib=$(q "select cast(kib_per_request as int) from stream_summary")
	check "$1: readahead requests of ${kib:-?} KiB on average (>= 256)" \
		test "${kib:-0}" -ge 256
}

# paced: keep 8 + step 8 MiB + the readahead in flight
check_cache paced 4 20
# unpaced: keep 8 + step 64 MiB + readahead; 183 MB would be all of it
check_cache unpaced off 76

# direct_io: no page cache, every read() is one request (max_read 1 MiB)
DB=$T/direct.db
mount_fs "$M" "$T/mnt" -o db="$DB",direct_io,pace=off
size=$(stat -c %s "$T/mnt/timeline01")
sha=$(dd if="$T/mnt/timeline01" bs=1M 2>/dev/null | sha256sum | cut -d' ' -f1)
umount_fs "$T/mnt"
check_eq "direct_io: bytes exact" "$want" "$sha"
check_eq "direct_io: one request per 1 MiB read" \
	"$(((size + MiB - 1) / MiB))|$size|0" \
	"$(q "select requests, bytes, reloads from stream")"
finish
