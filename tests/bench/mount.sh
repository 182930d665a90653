# SPDX-License-Identifier: MIT
# Sourced by bench.sh, xport.sh and players.sh: mount the daemon under
# test in the foreground on generated media with buffered backing (every
# backing read a page-cache hit), and unmount it.  Needs BIN, M, MNT, W
# and BENCH_DB.

# mount_fs OPTS: OPTS are added after db= and backing=buffered
mount_fs() {
	"$BIN" -f -o "db=$BENCH_DB,backing=buffered,$1" "$M" "$MNT" \
		>"$W/daemon.log" 2>&1 &
	DAEMON=$!
	i=0
	while ! grep -q " $MNT fuse" /proc/mounts; do
		kill -0 "$DAEMON" 2>/dev/null ||
			{ cat "$W/daemon.log" >&2; exit 1; }
		i=$((i + 1))
		[ $i -lt 100 ] ||
			{ echo "$(basename "$0"): mount timed out" >&2; exit 1; }
		sleep 0.1
	done
}

umount_fs() {
	fusermount3 -u "$MNT"
	while kill -0 "$DAEMON" 2>/dev/null; do sleep 0.1; done
	wait "$DAEMON" 2>/dev/null || true
	DAEMON=
}

# cleanup_fs: an EXIT trap's work: the mount and the daemon gone, W removed
cleanup_fs() {
	set +e
	grep -q " $MNT fuse" /proc/mounts && fusermount3 -u -z "$MNT"
	[ -n "$DAEMON" ] && kill "$DAEMON" 2>/dev/null && wait "$DAEMON"
	rm -rf "$W"
}
