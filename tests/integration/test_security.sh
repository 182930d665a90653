#!/bin/sh
# SPDX-License-Identifier: MIT
# Security: clip names and media references that could leave MEDIA_DIR
# ('..', absolute paths, '/', NUL and newline bytes, symlinks pointing
# outside) are refused with a clear error; a symlink swapped in after
# mount is refused at read time (EIO, errno ELOOP in the row); odd but
# legal names (quotes, %, UTF-8, invalid UTF-8) reach the database intact;
# every write-side operation is EROFS but a create in the ingest folder,
# where names are confined to MEDIA_DIR/ingest (no control characters, no
# track file names, no symlinks), a recording is never overwritten unless
# -o ingest_replace, nor read, nor written by two writers at once, every
# other operation is EPERM, and a write that would take the media file
# system under -o ingest_reserve fails with ENOSPC, said once; allow_other
# brings default_permissions; the database is created mode 0600.
. "$(dirname "$0")/lib.sh"

M=$T/media
"$GEN" --clips 3 --clip-seconds 2 --timelines 1 --events 1 --min-seconds 1 \
	--max-seconds 1 --video-rate 1M --seed 4 "$M" >/dev/null
rm -f "$M"/timelines/*.tl
head='fps 30000/1001
track V 1000000
track A1 144000 align=3
track A2 144000 align=3'
DB=$T/t.db
# -o ingest_reserve: what this suite writes (12 MiB at most, measured), not
# the default 1 GiB, so that it runs wherever that much is free
RES=ingest_reserve=32Mi
tried=0 refused=0

# refuse DIR WHAT: mounting a timelines folder must fail, naming the problem
refuse() {
	tried=$((tried + 1))
	if "$BIN" -f -o db="$DB",timelines="$1" "$M" "$T/mnt" >"$T/out" 2>&1; then
		not_ok "$2: mounted"
		fusermount3 -u "$T/mnt" 2>/dev/null
		return
	fi
	if grep -q "$3" "$T/out"; then
		refused=$((refused + 1))
		ok "$2 refused: $(head -1 "$T/out" | sed "s|$T|\$T|g" | cut -c1-110)"
	else
		not_ok "$2: message lacks '$3': $(cat "$T/out")"
	fi
}
mkdir -p "$T/mnt"
n=0
for name in '../clip0001' '/etc/passwd' 'a/../../clip0001' '..' '.' \
	"$(printf 'ctl\001x')" "$(printf 'del\177x')" "$(printf 'esc\033[2Jx')"; do
	n=$((n + 1))
	mkdir -p "$T/tl$n"
	printf '%s\nevent V,A1,A2 %s 0 10\n' "$head" "$name" >"$T/tl$n/bad.tl"
	refuse "$T/tl$n" "clip name '$(printf '%s' "$name" | tr -c '[:print:]' '?')'" "not allowed"
done
# a NUL byte inside a .tl line
mkdir -p "$T/tlnul"
{ printf '%s\n' "$head"; printf 'event V,A1,A2 clip0001\000../x 0 10\n'; } >"$T/tlnul/bad.tl"
refuse "$T/tlnul" "NUL byte in a clip name" "bad.tl:5"
# OTIO media references: newline and NUL escapes, '..' after decoding
otio() {
	cat <<EOF
{"OTIO_SCHEMA": "Timeline.1", "name": "x", "tracks": {"OTIO_SCHEMA": "Stack.1",
 "children": [{"OTIO_SCHEMA": "Track.1", "kind": "Video", "children": [
  {"OTIO_SCHEMA": "Clip.1", "name": "c",
   "source_range": {"OTIO_SCHEMA": "TimeRange.1",
    "start_time": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": 0},
    "duration": {"OTIO_SCHEMA": "RationalTime.1", "rate": 24, "value": 2}},
   "media_reference": {"OTIO_SCHEMA": "ExternalReference.1",
    "target_url": "$1"}}]}]}}
EOF
}
for url in 'file:///m/clip%0A0001.mov' 'file:///m/clip%000001.mov' \
	'file:///m/..' 'clip\n0001.mov'; do
	n=$((n + 1))
	mkdir -p "$T/tl$n"
	otio "$url" >"$T/tl$n/bad.otio"
	refuse "$T/tl$n" "OTIO target_url $url" "bad.otio"
done
# a symlink in MEDIA_DIR pointing outside it is not a media file
mkdir -p "$T/tlsym" "$T/outside"
cp "$M/clip0001.V.raw" "$T/outside/secret.raw"
ln -s "$T/outside/secret.raw" "$M/evil.V.raw"
cp "$M/clip0001.A1.wav" "$M/evil.A1.wav"
cp "$M/clip0001.A2.wav" "$M/evil.A2.wav"
printf '%s\nevent V,A1,A2 evil 0 10\n' "$head" >"$T/tlsym/sym.tl"
refuse "$T/tlsym" "symlink to a file outside MEDIA_DIR" "no media file"
rm -f "$M"/evil.*
echo "# bad names and references tried: $tried, refused with a message: $refused"
check_eq "every bad input refused" "$tried" "$refused"

# odd but legal names go through the database byte for byte
odd="it's \"100%\" %s %n;DROP TABLE run;--$(printf '\303\251t\303\251\342\234\223\377\376\303(')"
for t in V.raw A1.wav A2.wav; do
	cp "$M/clip0002.$t" "$M/$odd.$t"
done
{
	printf '%s\n' "$head"
	printf 'event V,A1,A2 clip0001 0 30\n'
	printf 'event V,A1,A2 %s 0 30\n' "$(printf '%s' "$odd" | tr ' ' '_')"
} >/dev/null
# the .tl format splits on blanks: use the name without spaces
odd2=$(printf '%s' "$odd" | tr ' ' '_')
for t in V.raw A1.wav A2.wav; do
	mv "$M/$odd.$t" "$M/$odd2.$t"
done
tlname="q'uote%d-$(printf '\303\251\377')"
{
	printf '%s\n' "$head"
	printf 'event V,A1,A2 clip0001 0 30\n'
	printf 'event V,A1,A2 %s 0 30\n' "$odd2"
	printf 'event V,A1,A2 clip0003 0 30\n'
} >"$M/timelines/$tlname.tl"
mount_fs "$M" "$T/mnt" -o db="$DB",label=sec,pace=off,$RES
check "odd timeline name listed" test -e "$T/mnt/$tlname"
check_eq "odd names: bytes exact" "$($EXPECT sha256 "$M/timelines/$tlname.tl" "$M")" \
	"$(sha256sum <"$T/mnt/$tlname" | cut -d' ' -f1)"
check_eq "database file created mode 0600" 600 "$(stat -c %a "$DB")"

# a symlink swapped in after mount is refused at read time
mkdir -p "$T/swap"
printf '%s\nevent V,A1,A2 clip0001 0 30\nevent V,A1,A2 clip0003 0 30\n' "$head" \
	>"$M/timelines/swap.tl"
fusermount3 -u "$T/mnt"
wait_daemon "$DAEMON"
mount_fs "$M" "$T/mnt" -o db="$DB",label=swap,pace=off,$RES
cp "$M/clip0003.V.raw" "$T/outside/c3.raw"
rm "$M/clip0003.V.raw"
ln -s "$T/outside/c3.raw" "$M/clip0003.V.raw"
if cat "$T/mnt/swap" >/dev/null 2>"$T/swap.err"; then rc=0; else rc=$?; fi
check "swapped-in symlink: reader fails" test "$rc" -ne 0
check "swapped-in symlink: with EIO" grep -q "Input/output error" "$T/swap.err"

# tryops.run(OPS): each (name, op) tried, "name: ok" or "name: ERRNO"
cat >"$T/tryops.py" <<'EOF'
import errno
def run(ops):
    for name, op in ops:
        try:
            op()
            print("%s: ok" % name)
        except OSError as e:
            print("%s: %s" % (name, errno.errorcode.get(e.errno, e.errno)))
EOF
# every write-side operation is EROFS
python3 - "$T/mnt" "$T" >"$T/py.out" 2>&1 <<'EOF' || true
import os, sys
sys.path.insert(0, sys.argv[2])
from tryops import run
m = sys.argv[1]
f = os.path.join(m, "swap")
ops = [
    ("write", lambda: os.write(os.open(f, os.O_WRONLY), b"x")),
    ("open O_RDWR", lambda: os.open(f, os.O_RDWR)),
    ("create", lambda: os.open(os.path.join(m, "new"), os.O_CREAT | os.O_WRONLY, 0o644)),
    ("mkdir", lambda: os.mkdir(os.path.join(m, "d"))),
    ("unlink", lambda: os.unlink(f)),
    ("rename", lambda: os.rename(f, os.path.join(m, "other"))),
    ("truncate", lambda: os.truncate(f, 0)),
    ("chmod", lambda: os.chmod(f, 0o666)),
    ("chown", lambda: os.chown(f, 1, 1)),
    ("utime", lambda: os.utime(f, (0, 0))),
    ("setxattr", lambda: os.setxattr(f, "user.x", b"1")),
    ("removexattr", lambda: os.removexattr(f, "user.x")),
    ("symlink", lambda: os.symlink("swap", os.path.join(m, "ln"))),
    ("link", lambda: os.link(f, os.path.join(m, "hard"))),
    ("mknod", lambda: os.mknod(os.path.join(m, "fifo"), 0o600 | 0o010000)),
]
run(ops)
EOF
n=0
while IFS= read -r line; do
	n=$((n + 1))
	case $line in
	*": EROFS") ok "$line" ;;
	*) not_ok "expected EROFS: $line" ;;
	esac
done <"$T/py.out"
# (rmdir is not in the list: the kernel answers ENOTDIR for a file
# itself, and the only directory is the mount's root)
check_eq "write-side operations tried" 15 "$n"

# the ingest folder: what a writer may and may not do there
printf 'secret' >"$T/outside/target"
mkdir -p "$M/ingest"
ln -s "$T/outside/target" "$M/ingest/evil.V.raw"
python3 - "$T/mnt/ingest" "$T" >"$T/ing.out" 2>&1 <<'EOF'
import errno, os, sys, time
sys.path.insert(0, sys.argv[2])
from tryops import run
d = sys.argv[1]
def p(n):
    return os.path.join(d, n)
def create(n, flags=0):
    return os.open(p(n), os.O_WRONLY | os.O_CREAT | flags, 0o644)
fd = create("rec")
os.write(fd, b"x" * 1000)
def closed():
    os.close(fd)
    # the release comes after close returns: wait until it has
    for _ in range(100):
        try:
            os.close(create("rec"))
        except OSError as e:
            if e.errno == errno.EEXIST:
                return
        time.sleep(0.05)
ops = [
    ("a second writer at once", lambda: create("rec")),
    ("close", closed),
    ("create again", lambda: create("rec")),
    ("create O_EXCL", lambda: create("rec", os.O_EXCL)),
    ("open O_TRUNC", lambda: os.open(p("rec"), os.O_WRONLY | os.O_TRUNC)),
    ("read", lambda: os.read(os.open(p("rec"), os.O_RDONLY), 10)),
    ("name with a control character", lambda: create("a\x01b")),
    ("name with an escape", lambda: create("a\x1b[2Jb")),
    ("name of a track file", lambda: create("x.V.raw")),
    ("name of a WAV track file", lambda: create("x.A1.wav")),
    ("a name of 201 bytes", lambda: create("n" * 201)),
    ("a track file that is a symlink", lambda: create("evil")),
    ("unlink", lambda: os.unlink(p("rec"))),
    ("rename", lambda: os.rename(p("rec"), p("other"))),
    ("mkdir", lambda: os.mkdir(p("sub"))),
    ("symlink", lambda: os.symlink("/etc/passwd", p("ln"))),
    ("link", lambda: os.link(p("rec"), p("hard"))),
    ("mknod", lambda: os.mknod(p("fifo"), 0o600 | 0o010000)),
    ("truncate", lambda: os.truncate(p("rec"), 5)),
    ("chmod", lambda: os.chmod(p("rec"), 0o666)),
    ("utime", lambda: os.utime(p("rec"), (0, 0))),
    ("setxattr", lambda: os.setxattr(p("rec"), "user.x", b"1")),
]
run(ops)
EOF
for line in "a second writer at once: EBUSY" "close: ok" "create again: EEXIST" \
	"create O_EXCL: EEXIST" "open O_TRUNC: EEXIST" "read: EACCES" \
	"name with a control character: EINVAL" "name with an escape: EINVAL" \
	"name of a track file: EINVAL" "name of a WAV track file: EINVAL" \
	"a name of 201 bytes: EINVAL" "a track file that is a symlink: ELOOP" \
	"unlink: EPERM" "rename: EPERM" "mkdir: EPERM" "symlink: EPERM" \
	"link: EPERM" "mknod: EPERM" "truncate: EPERM" "chmod: EPERM" \
	"utime: EPERM" "setxattr: EPERM"; do
	if grep -qxF -- "$line" "$T/ing.out"; then
		ok "ingest/: $line"
	else
		not_ok "ingest/: expected $line: $(grep -F -- "${line%%:*}:" "$T/ing.out" | head -1)"
	fi
done
check_eq "a symlinked track file's target is untouched" secret "$(cat "$T/outside/target")"
check_eq "the recording kept its bytes" 1000 "$(stat -c %s "$M/ingest/rec.V.raw")"
check_none "no file of a refused name in MEDIA_DIR/ingest" \
	"$(ls "$M/ingest" | grep -v -e '^rec\.' -e '^evil\.V\.raw$')"
check "no allow_other unless asked" sh -c "! grep ' $T/mnt fuse' /proc/mounts | grep -q allow_other"
umount_fs "$T/mnt"
rows=$(q "select count(*) from access a join stream s on s.id = a.stream_id
	  join run r on r.id = s.run_id where r.label = 'swap' and a.errno = 40")
check "swapped-in symlink: access rows carry ELOOP ($rows)" test "$rows" -ge 1
check_eq "odd clip name intact in the database" \
	"$(printf '%s' "$odd2" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" \
	"$(q "select distinct hex(clip) from access where clip not like 'clip000%' and stream_id in (select id from stream where kind = 'play')")"
check_eq "odd timeline name intact in the database" \
	"$(printf '%s' "$tlname" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" \
	"$(q "select hex(name) from timeline where name like 'q%'  limit 1")"

rm "$M/clip0003.V.raw"
mv "$T/outside/c3.raw" "$M/clip0003.V.raw"

# MEDIA_DIR/ingest a symlink: the mount is refused, naming it
rm -rf "$M/ingest"
mkdir -p "$T/elsewhere"
ln -s "$T/elsewhere" "$M/ingest"
try_mount "ingest folder a symlink" "ingest is not a folder" -- \
	-o db="$DB" "$M" "$T/mnt"
rm "$M/ingest"
# -o ingest=off: no folder, so nowhere to create
mount_fs "$M" "$T/mnt" -o db="$DB",label=off,ingest=off
check "ingest=off: no ingest folder" test ! -e "$T/mnt/ingest"
check "ingest=off: a create at the root is EROFS" sh -c \
	"! touch '$T/mnt/x' 2>/dev/null"
umount_fs "$T/mnt"

# The reserve and ingest_replace, on a file system of its own: of 32 MiB
# a reserve of 24 MiB leaves some 7 MB to record, and a writer of 16 MB is
# stopped with ENOSPC before that, said once in the log
if mkdir -p "$T/small" && mount -t tmpfs -o size=32m tmpfs "$T/small" 2>/dev/null; then
	# (lib.sh's trap unmounts FUSE mounts only; set -e holds in a trap)
	trap 'umount -l "$T/small" 2>/dev/null || :; cleanup || exit 1' EXIT
	mkdir "$T/small/timelines"
	cp "$M"/clip0001.* "$T/small/"
	printf '%s\nevent V,A1,A2 clip0001 0 30\n' "$head" >"$T/small/timelines/one.tl"
	mount_fs "$T/small" "$T/mnt" -o db="$DB",label=reserve,pace=off,ingest_reserve=24Mi,ingest_replace
	# ingest_replace: a new recording of the name replaces the old one
	printf 'first' >"$T/mnt/ingest/again"
	i=0
	while ! grep -q '^state closed' "$T/small/ingest/again.rec" 2>/dev/null &&
		[ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	printf 'second!' >"$T/mnt/ingest/again"
	i=0
	while [ "$(cat "$T/small/ingest/again.V.raw")" != 'second!' ] &&
		[ $i -lt 100 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	check_eq "ingest_replace: a recording is replaced when asked" 'second!' \
		"$(cat "$T/small/ingest/again.V.raw")"
	python3 - "$T/mnt/ingest/big" >"$T/res.out" 2>&1 <<'EOF' || true
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)
n = 0
try:
    while n < 16 << 20:
        n += os.write(fd, bytes(65536))
    print("wrote %d: no ENOSPC" % n)
except OSError as e:
    print("%s after %d" % (errno.errorcode.get(e.errno, e.errno), n))
os.close(fd)
EOF
	echo "# reserve: $(cat "$T/res.out")"
	check "reserve: the writer is stopped with ENOSPC" grep -q '^ENOSPC after' "$T/res.out"
	avail=$(df -B1 --output=avail "$T/small" | tail -1)
	check "reserve: the file system keeps its 24 MiB ($avail bytes free)" \
		test "$avail" -ge $((24 * 1024 * 1024))
	check_eq "reserve: said once in the log, naming the recording" 1 \
		"$(grep -c 'ingest/big: .*reserve' "$DAEMON_LOG")"
	check_eq "reserve: df of the mount says what is left above it" \
		$(((avail - 24 * 1024 * 1024) / 4096 * 4096)) \
		"$(df -B1 --output=avail "$T/mnt" | tail -1)"
	umount_fs "$T/mnt"
	umount "$T/small"
	trap 'cleanup || exit 1' EXIT
else
	skip_case "the reserve needs a tmpfs of its own (mount -t tmpfs)"
fi
# allow_other: only when asked, and then with default_permissions
if grep -q '^user_allow_other' /etc/fuse.conf 2>/dev/null || [ "$(id -u)" = 0 ]; then
	mount_fs "$M" "$T/mnt" -o db="$DB",label=other,allow_other,$RES
	opts=$(grep " $T/mnt fuse" /proc/mounts | cut -d' ' -f4)
	echo "# allow_other mount options: $opts"
	check "allow_other mount has allow_other" sh -c "echo '$opts' | grep -q allow_other"
	check "allow_other mount has default_permissions" sh -c "echo '$opts' | grep -q default_permissions"
	umount_fs "$T/mnt"
fi
finish
