#!/bin/sh
# SPDX-License-Identifier: MIT
# mount -t fuse.timelinefs and an /etc/fstab line, for real: mount(8) runs
# mount.fuse3, which runs 'timelinefs MEDIA MNT -o OPTIONS' through /bin/sh
# in / with no PATH (mount(8) drops it), so sh's default PATH must find
# timelinefs.  The test runs in a private mount namespace where this
# build's binary is bound over /usr/local/sbin; nothing outside sees it.
# Each mount reads a timeline byte-exact (tlexpect.py), is unmounted with
# umount(8), and its daemon writes the run and exits.  Checked too: the
# fstab words mount(8) and mount.fuse3 pass on (relatime, defaults, x-*,
# comment=, nofail ...) are accepted by the daemon run by hand; a relative
# db= under mount(8) is refused with the message; the example systemd units
# in mount-scripts/ pass systemd-analyze verify.
# Before issue 19: relatime, nofail, defaults, x-systemd.* and comment=
# given to the daemon failed the mount ("fuse: unknown option(s)").
set -eu
if [ -z "${TLFS_FSTAB_NS-}" ]; then
	if ! command -v unshare >/dev/null 2>&1 || ! unshare -m true 2>/dev/null; then
		echo "skip: cannot make a private mount namespace (unshare -m)"
		exit 77
	fi
	TLFS_FSTAB_NS=1 exec unshare -m --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

if ! command -v mount.fuse3 >/dev/null 2>&1; then
	echo "skip: no mount.fuse3"
	exit 77
fi
mkdir "$T/sbin"
ln -s "$BIN" "$T/sbin/timelinefs"
mount --bind "$T/sbin" /usr/local/sbin

M=$T/media
"$GEN" --clips 2 --clip-seconds 2 --timelines 1 --events 3 \
	--min-seconds 0.5 --max-seconds 1 --seed 19 "$M" >/dev/null
TL=$M/timelines/timeline01.tl
want=$($EXPECT sha256 "$TL" "$M")
MNT=$T/mnt
mkdir "$MNT"
# lib.sh unmounts it at exit
# shellcheck disable=SC2034
MOUNTS="$MNT"

# daemon_of MNT: the pid of the timelinefs serving MNT (it went to the
# background: mount(8) returns when the mount is there)
daemon_of() {
	ps -eo pid=,args= | awk -v m="$1" \
		'$2 ~ /(^|\/)timelinefs$/ { for (i = 3; i <= NF; i++) if ($i == m) print $1 }'
}

# through NAME DB: after a mount(8) of MNT that wrote to DB: the type and
# options in /proc/mounts, the bytes of the timeline, umount, the daemon's
# exit and its run in DB
through() {
	what=$1
	DB=$2
	if ! is_mounted "$MNT"; then
		not_ok "$what: mounted"
		return
	fi
	ok "$what: mounted"
	check_eq "$what: type fuse.timelinefs" "fuse.timelinefs" \
		"$(awk -v m="$MNT" '$2 == m { print $3 }' /proc/mounts)"
	pid=$(daemon_of "$MNT")
	check "$what: one daemon" test "$(echo "$pid" | wc -w)" -eq 1
	PIDS="$PIDS $pid"
	got=$(sha256sum "$MNT/timeline01" | cut -d' ' -f1)
	check_eq "$what: bytes exact" "$want" "$got"
	umount "$MNT"
	check "$what: daemon exits after umount" wait_daemon "$pid"
	check_eq "$what: run recorded, its stream closed" "1|1" \
		"$(q "SELECT count(*), (SELECT count(*) FROM stream WHERE closed_ns IS NOT NULL) FROM run")"
}

# ---- mount -t fuse.timelinefs, from / as systemd does
opts="db=$T/t.db,pace=off,defaults,nosuid,nodev,noatime,_netdev,nofail,x-systemd.automount"
(cd / && mount -t fuse.timelinefs "$M" "$MNT" -o "$opts") >"$T/out" 2>&1 ||
	cat "$T/out"
check "mount -t: nosuid,nodev,noatime reach the kernel" \
	grep -q " $MNT fuse.timelinefs rw,nosuid,nodev,noatime," /proc/mounts
through "mount -t fuse.timelinefs" "$T/t.db"

# ---- an fstab line, mount --fstab FILE MNT
printf '# a test fstab\n%s %s fuse.timelinefs %s 0 0\n' "$M" "$MNT" \
	"db=$T/f.db,pace=off,noauto,nofail,_netdev,relatime,x-systemd.requires=a.service,comment=tlfs" \
	>"$T/fstab"
(cd / && mount --fstab "$T/fstab" "$MNT") >"$T/out" 2>&1 || cat "$T/out"
through "fstab line" "$T/f.db"

# ---- the older form: type fuse, source timelinefs#MEDIA
(cd / && mount -t fuse "timelinefs#$M" "$MNT" -o "db=$T/h.db,pace=off") \
	>"$T/out" 2>&1 || cat "$T/out"
through "mount -t fuse timelinefs#MEDIA" "$T/h.db"

# ---- a relative db= under mount(8), which runs the daemon in /: refused
printf '%s %s fuse.timelinefs db=rel.db,pace=off 0 0\n' "$M" "$MNT" >"$T/fstab"
rc=0
(cd / && mount --fstab "$T/fstab" "$MNT") >"$T/out" 2>&1 || rc=$?
check "relative db= under mount(8): mount fails" test "$rc" -ne 0
check "relative db= under mount(8): not mounted" sh -c "! grep -q ' $MNT fuse' /proc/mounts"
check "relative db= under mount(8): says why" \
	grep -q "relative db=rel.db and the working directory is /" "$T/out"
check "relative db= under mount(8): no /rel.db" test ! -e /rel.db

# ---- the daemon by hand with every fstab word mount(8) or mount.fuse3
# may pass on (as mount.fuse3 run by hand, or an older mount, does)
words="rw,nosuid,nodev,noexec,noatime,defaults,auto,noauto,nofail,user,users,nouser,owner,group,_netdev"
words="$words,relatime,strictatime,lazytime,nodiratime,comment=x,x-systemd.automount,x-systemd.requires=a.service,x-gvfs-show"
DB=$T/w.db
if mount_fs "$M" "$MNT" -o "db=$DB,pace=off,$words"; then
	ok "fstab words given to the daemon: mounted"
	check_eq "fstab words: bytes exact" "$want" \
		"$(sha256sum "$MNT/timeline01" | cut -d' ' -f1)"
	umount_fs "$MNT"
else
	not_ok "fstab words given to the daemon: $(cat "$T/daemon.log")"
fi
rc=0
"$BIN" -f -o "db=$DB,x-bad,xfoo" "$M" "$MNT" >"$T/out" 2>&1 || rc=$?
check "an unknown word is still an error" test "$rc" -ne 0

# ---- the example systemd units
if command -v systemd-analyze >/dev/null 2>&1; then
	mkdir "$T/units"
	cp "$TOP/mount-scripts/mnt-timelines.mount" "$T/units/"
	# verify wants ExecStart's program to exist
	sed "s|/usr/local/bin/timelinefs|$BIN|" "$TOP/mount-scripts/timelinefs@.service" \
		>"$T/units/timelinefs@mnt-timelines.service"
	for u in mnt-timelines.mount timelinefs@mnt-timelines.service; do
		rc=0
		(cd "$T/units" && systemd-analyze verify --man=no "./$u") \
			>"$T/out" 2>&1 || rc=$?
		if [ "$rc" -eq 0 ] && [ ! -s "$T/out" ]; then
			ok "systemd-analyze verify $u"
		else
			not_ok "systemd-analyze verify $u: $(cat "$T/out")"
		fi
	done
else
	echo "# no systemd-analyze: the units are not checked"
fi

check_none "no mount left" "$(grep " $T/" /proc/mounts || true)"
finish
