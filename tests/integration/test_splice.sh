#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: -o splice=auto moves an unpaced reader's frames from the page
# cache through pipes to the kernel (no copy in the daemon), direct_io or
# cached, where libfuse's pipe can hold a whole reply: where the daemon
# can have 2 MiB pipes (fs.pipe-max-size >= 2 MiB, or CAP_SYS_RESOURCE).
# A cached reader's readahead requests come out of order on the worker
# threads: its slots' pipes keep their frames, so each slice is still read
# once.  The bytes and the access rows are those of splice=off either way.
# Raises pipe-max-size for the test when it can (root) and restores it.
. "$(dirname "$0")/lib.sh"

PMS=/proc/sys/fs/pipe-max-size
old_pms=$(cat "$PMS" 2>/dev/null || echo)
restore_pms() {
	[ -n "$old_pms" ] && [ "$(cat "$PMS")" != "$old_pms" ] &&
		echo "$old_pms" >"$PMS" 2>/dev/null
	cleanup
}
trap restore_pms EXIT

M=$T/media
"$GEN" --clips 2 --clip-seconds 2 --timelines 1 --events 3 \
	--min-seconds 1 --max-seconds 1 --seed 11 "$M" >/dev/null
TL=$M/timelines/timeline01.tl
want=$($EXPECT sha256 "$TL" "$M")
slices=$($EXPECT slices "$TL" | sed -n 1p)
size=$($EXPECT size "$TL")

# reads NAME: sha256 of the file read whole at several block sizes, and
# of a read that starts inside a frame; all must be the file's own
reads() {
	for bs in 1M 300001 64k 4k; do
		check_eq "$1: bs=$bs bytes exact" "$want" \
			"$(dd if="$T/mnt/timeline01" bs=$bs 2>/dev/null | sha256sum | cut -d' ' -f1)"
	done
	check_eq "$1: a read from inside a frame" \
		"$(head -c "$size" "$T/mnt/timeline01" | tail -c +777778 | head -c 1000000 | sha256sum)" \
		"$(dd if="$T/mnt/timeline01" bs=1000000 skip=777777 iflag=skip_bytes count=1 2>/dev/null | sha256sum)"
}

# splices OPTS: mount, read with dd bs=1M under strace, print how many
# splice calls the daemon made, then the other reads; unmount
HAVE_STRACE=
command -v strace >/dev/null 2>&1 && HAVE_STRACE=1
run() {
	name=$1
	DB=$T/$name.db
	mount_fs "$M" "$T/mnt" -o db="$DB",pace=off,backing=buffered,"$2"
	n=-
	if [ -n "$HAVE_STRACE" ]; then
		strace -f -qq -e trace=splice -o "$T/$name.strace" -p "$DAEMON" &
		st=$!
		sleep 0.5	# attached to every thread
		dd if="$T/mnt/timeline01" of=/dev/null bs=1M 2>/dev/null
		kill "$st"
		wait "$st" 2>/dev/null || true
		n=$(grep -c "splice(" "$T/$name.strace" || true)
	fi
	reads "$name"
	umount_fs "$T/mnt"
	cp "$T/daemon.log" "$T/$name.log"
	eval "splices_$name=\$n"
	# only streams that read the whole file: the pipeline in reads() ends
	# its first reader by SIGPIPE, after as many frames as timing allows
	r=$(q "select count(*), sum(errno <> 0) from access
		where stream_id in (select id from stream where bytes = $size)")
	eval "rows_$name=\$r"
}

if [ -n "$old_pms" ] && echo 4194304 >"$PMS" 2>/dev/null; then
	run on "direct_io,splice=auto"
	run cached "splice=auto"
	run off "direct_io,splice=off"
	echo "$old_pms" >"$PMS"
	run small "direct_io,splice=auto"
	# what the daemon will get: pipe-max-size binds only without
	# CAP_SYS_RESOURCE, which the test shares with it
	small_pipes=$(python3 -c 'import fcntl, os
r, w = os.pipe()
try:
    print(int(fcntl.fcntl(r, 1031, 2 << 20) >= 2 << 20))  # F_SETPIPE_SZ
except OSError:
    print(0)')
	if [ "$small_pipes" = 1 ]; then
		check "2 MiB pipes to be had: no note about zero copy" \
			sh -c "! grep -q 'zero copy' '$T/small.log'"
	else
		check "2 MiB pipes refused: the start says zero copy is off and the sysctl that turns it on" \
			grep -q "note: zero copy (-o splice=auto) is off: a pipe of 2097152 bytes is refused (fs.pipe-max-size $old_pms, no CAP_SYS_RESOURCE); as root, sysctl fs.pipe-max-size=2097152 turns it on" "$T/small.log"
	fi
	# shellcheck disable=SC2154 # set by run's eval
	echo "# access rows of whole reads (count|failed): splice=off $rows_off, splice=auto $rows_on"
	check_eq "splice=auto: no failed access row" 0 "${rows_on#*|}"
	# a re-read adds rows (seen once under load: one frame more than
	# splice=off); a read that skipped a slice would lose one
	check "splice=auto: at least the access rows of splice=off" \
		test "${rows_on%|*}" -ge "${rows_off%|*}"
	check_eq "the strace read and the reads in reads(): every slice" \
		"$slices" "$(DB=$T/on.db q "select count(*) from access where stream_id = 1")"
	# shellcheck disable=SC2154 # set by run's eval
	check_eq "cached, splice=auto: no failed access row" 0 "${rows_cached#*|}"
	check_eq "cached, splice=auto: the strace read reads every slice once (readahead out of order served from the pipes)" \
		"$slices" "$(DB=$T/cached.db q "select count(*) from access where stream_id = 1")"
	if [ -n "$HAVE_STRACE" ]; then
		# shellcheck disable=SC2154 # set by run's eval
		check "splice=auto, pipe-max-size 4 MiB: replies are spliced ($splices_on calls)" \
			test "$splices_on" -gt 100
		# shellcheck disable=SC2154
		check "cached, splice=auto, pipe-max-size 4 MiB: replies are spliced ($splices_cached calls)" \
			test "$splices_cached" -gt 100
		# shellcheck disable=SC2154
		check_eq "splice=off: no splice" 0 "$splices_off"
		# shellcheck disable=SC2154
		if [ "$small_pipes" = 1 ]; then
			check "pipe-max-size $old_pms but a 2 MiB pipe is ours (CAP_SYS_RESOURCE): replies are spliced ($splices_small calls)" \
				test "$splices_small" -gt 100
		else
			check_eq "pipe-max-size $old_pms: no splice (libfuse would copy)" 0 "$splices_small"
		fi
	else
		echo "# no strace: whether replies were spliced is not checked"
	fi
else
	echo "# cannot raise $PMS (not root?): splice=auto is only read through"
	run small "direct_io,splice=auto"
fi

if "$BIN" -f -o splice=sometimes "$M" "$T/mnt" >"$T/bad.log" 2>&1; then
	not_ok "splice=sometimes is refused"
else
	check "splice=sometimes is refused with a reason" \
		grep -q "bad splice 'sometimes'" "$T/bad.log"
fi
finish
