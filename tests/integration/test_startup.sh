#!/bin/sh
# SPDX-License-Identifier: MIT
# What the daemon finds out and decides at start (issue 17):
#  - defect 6: the run row's config_hz is the running kernel's CONFIG_HZ,
#    from /proc/config.gz or else /boot/config-RELEASE (it was read from
#    /boot only: NULL on a kernel with /proc/config.gz alone), NULL when
#    neither gives it.
#  - defect 8: started in / (as mount(8) and systemd start it) without an
#    absolute db=, the mount is refused with a message saying why (it
#    wrote /timelinefs.db).  Nothing is left in /: a /timelinefs.db the
#    unfixed daemon makes is removed, one that was there before is kept.
. "$(dirname "$0")/lib.sh"

M=$T/media
DB=$T/s.db
"$GEN" --clips 1 --clip-seconds 1 --timelines 1 --events 1 \
	--min-seconds 0.5 --max-seconds 0.5 --video-rate 1M "$M" >/dev/null
mkdir -p "$T/mnt"

# 1. config_hz as the kernel's own config says
want=
if [ -r /proc/config.gz ]; then
	want=$(gzip -dc /proc/config.gz | sed -n 's/^CONFIG_HZ=//p' | head -1)
fi
if [ -z "$want" ] && [ -r "/boot/config-$(uname -r)" ]; then
	want=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" | head -1)
fi
echo "# CONFIG_HZ of this kernel: ${want:-none found}"
mount_fs "$M" "$T/mnt" -o db="$DB",label=hz
umount_fs "$T/mnt"
check_eq "run.config_hz is the kernel's CONFIG_HZ (empty: NULL)" "$want" \
	"$(q "select config_hz from run where label = 'hz'")"

# 2. started in / with a relative database
stray=
for f in /timelinefs.db /rel.db; do
	[ -e "$f" ] || stray="$stray $f"
done
# the daemons below must not leave these behind, whatever they do
remove_stray() {
	for f in $stray; do
		rm -f "$f" "$f-journal" "$f-wal" "$f-shm"
	done
}

# from_root NAME [options]: run the daemon in / in the foreground; its exit
# code, or "mounted" (then unmounted) when it mounts
from_root() {
	log=$T/$1.log
	shift
	(cd / && exec "$BIN" -f "$@" "$M" "$T/mnt") >"$log" 2>&1 &
	pid=$!
	PIDS="$PIDS $pid"
	MOUNTS="$MOUNTS $T/mnt"
	i=0
	while kill -0 $pid 2>/dev/null && ! is_mounted "$T/mnt" && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if is_mounted "$T/mnt"; then
		fusermount3 -u "$T/mnt"
		wait_daemon $pid
		echo mounted
	else
		wait $pid 2>/dev/null && echo 0 || echo $?
	fi
}

got=$(from_root nodb)
check_eq "in /, no db=: refused" 1 "$got"
check "in /, no db=: the message says why and what to give" \
	grep -q "no -o db= and the working directory is / .*give -o db=/" \
	"$T/nodb.log"
got=$(from_root reldb -o db=rel.db)
check_eq "in /, relative db=rel.db: refused" 1 "$got"
check "in /, relative db=: the message names it" \
	grep -q "relative db=rel.db and the working directory is /" \
	"$T/reldb.log"
check "in /: no /timelinefs.db nor /rel.db made" sh -c '
	for f in $1; do [ ! -e "$f" ] || exit 1; done' sh "$stray"
remove_stray
# the background mode, as mount(8) runs it: the parent's exit code
rc=0
(cd / && exec "$BIN" "$M" "$T/mnt") >"$T/bg.log" 2>&1 || rc=$?
# (mounted: the daemon is not ours to wait for; timelinefs-umount finds it)
if is_mounted "$T/mnt"; then
	sh "$TOP/mount-scripts/timelinefs-umount" "$T/mnt" 20 ||
		fusermount3 -u -z "$T/mnt"
fi
check_eq "in /, in the background, no db=: exit 1" 1 "$rc"
check "in /, in the background: the message on stderr" \
	grep -q "no -o db= and the working directory is /" "$T/bg.log"
check "in the background: no /timelinefs.db made" sh -c '
	for f in $1; do [ ! -e "$f" ] || exit 1; done' sh "$stray"
remove_stray
got=$(from_root absdb -o db="$DB",label=abs)
check_eq "in /, absolute db=: mounts" mounted "$got"
check_eq "in /, absolute db=: the run is in it" 1 \
	"$(q "select count(*) from run where label = 'abs'")"
# elsewhere the default stays ./timelinefs.db
(cd "$T" && exec "$BIN" -f "$M" "$T/mnt") >"$T/cwd.log" 2>&1 &
DAEMON=$!
PIDS="$PIDS $DAEMON"
i=0
while ! is_mounted "$T/mnt" && kill -0 $DAEMON 2>/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
umount_fs "$T/mnt"
check "outside /, no db=: ./timelinefs.db of the working directory" \
	test -s "$T/timelinefs.db"
finish
