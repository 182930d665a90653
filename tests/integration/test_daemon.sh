#!/bin/sh
# SPDX-License-Identifier: MIT
# The mount and its run row: whoever sees the mount point mounted finds the
# run and all its timelines in the database (a script polling /proc/mounts
# after starting timelinefs -f, or the shell after a background mount
# returned).  The background mode: the parent exits 0 only once the child is
# mounted and recording, 1 with the child's message when it fails; a mount
# that fails leaves no run behind; a signal while starting; the open file
# limit.
. "$(dirname "$0")/lib.sh"

M=$T/media
DB=$T/d.db
NTL=150
# many timelines: their rows take a while to write, the window to catch
"$GEN" --clips 2 --clip-seconds 2 --timelines $NTL --events 2 \
	--min-seconds 0.2 --max-seconds 0.4 --video-rate 1M "$M" >/dev/null
mkdir -p "$T/mnt"

runs() {
	q "select count(*) from run"
}

# 1. foreground: at the first sight of the mount, the run and all its rows
for i in 1 2 3; do
	before=$(runs 2>/dev/null || echo 0)
	"$BIN" -f -o db="$DB",label="fg$i" "$M" "$T/mnt" >"$T/fg$i.log" 2>&1 &
	DAEMON=$!
	PIDS="$PIDS $DAEMON"
	watch_daemon "$DAEMON" "$T/fg$i.log"
	MOUNTS="$MOUNTS $T/mnt"
	n=0
	# no sleep: look as often as the shell can
	while ! is_mounted "$T/mnt" && kill -0 $DAEMON 2>/dev/null; do
		n=$((n + 1))
		[ $n -lt 200000 ] || break
	done
	got=$(q "select count(*) || '|' || (select count(*) from timeline
		where run_id = r.id) from run r where label = 'fg$i'")
	check_eq "foreground $i: mounted, and the run with its $NTL timelines already there" \
		"1|$NTL" "$got"
	check_eq "foreground $i: one run more" $((before + 1)) "$(runs)"
	umount_fs "$T/mnt"
done

# 2. background: when the command returns, mounted and recorded
rc=0
"$BIN" -o db="$DB",label=bg "$M" "$T/mnt" >"$T/bg.out" 2>"$T/bg.err" || rc=$?
MOUNTS="$MOUNTS $T/mnt"
check_eq "background: exits 0" 0 "$rc"
check "background: mounted when it returns" is_mounted "$T/mnt"
check_eq "background: the run and its timelines recorded when it returns" \
	"1|$NTL|1" "$(q "select count(*) || '|' || (select count(*) from timeline
		where run_id = r.id) || '|' || (ended_at is null) from run r
		where label = 'bg'")"
# (timelines of --video-rate have no picture: no NAME.mov, said once)
check_eq "background: nothing on stdout or stderr but one note of no NAME.mov" \
	"timelinefs: note: no NAME.mov for $NTL timelines ($M/timelines/timeline01.tl, $M/timelines/timeline02.tl, $M/timelines/timeline03.tl ...): track V has no picture format" \
	"$(cat "$T/bg.out" "$T/bg.err")"
bgpid=$(pgrep -f "timelinefs -o db=$DB,label=bg" || true)
check "background: the daemon runs" test -n "$bgpid"
PIDS="$PIDS $bgpid"
check_eq "background: its working directory is /" / \
	"$(readlink "/proc/$bgpid/cwd" 2>/dev/null || echo gone)"
check_eq "background: in its own session" "$bgpid" \
	"$(ps -o sid= -p "$bgpid" 2>/dev/null | tr -d ' ')"
want=$(q "select bytes from timeline t join run r on r.id = t.run_id
	where r.label = 'bg' and t.name = 'timeline01'")
check "background: the timeline's size is known ($want)" test "${want:-0}" -gt 0
got=$(dd if="$T/mnt/timeline01" of=/dev/null bs=1M 2>&1 | sed -n 's/^\([0-9]*\) bytes.*/\1/p')
check_eq "background: reads through the mount" "$want" "$got"
fusermount3 -u "$T/mnt"
check "background: the daemon exits at unmount" wait_daemon "$bgpid"
check_eq "background: the run ended, its stream recorded" "1|1" \
	"$(q "select ended_at is not null, (select count(*) from stream
		where run_id = r.id) from run r where label = 'bg'")"

# 3. a mount that fails after the run was recorded leaves no run behind:
# user nobody may not mount on a folder it cannot write (fusermount3 says
# so), a failure that only the mount itself finds
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 711 "$T"
	mkdir -p "$T/udb" "$T/umnt"
	chmod 777 "$T/udb"
	UDB=$T/udb/u.db
	for mode in -f background; do
		fg=
		[ $mode = background ] || fg=-f
		rc=0
		# shellcheck disable=SC2086
		timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$BIN" $fg -o db="$UDB",label="bad$mode" "$M" "$T/umnt" \
			>"$T/bad.err" 2>&1 || rc=$?
		check_eq "failed mount ($mode): exits 1" 1 "$rc"
		check "failed mount ($mode): the message names the mount point" \
			grep -q "$T/umnt" "$T/bad.err"
		check_eq "failed mount ($mode): the database has no run" 0 \
			"$(sqlite3 "$UDB" 'select count(*) from run' 2>&1)"
		check "failed mount ($mode): no daemon left" \
			sh -c "! pgrep -f 'timelinef[s] .*label=bad$mode.* $T/' >/dev/null"
		check "failed mount ($mode): not mounted" \
			sh -c "! grep -q ' $T/umnt fuse' /proc/mounts"
	done
else
	skip_case "failed-mount cases need root and setpriv"
fi

# 4. background with a database it cannot open: exit 1, the reason, no mount
rc=0
timeout 20 "$BIN" -o db="$T/no/such/dir/x.db" "$M" "$T/mnt" >"$T/db.err" 2>&1 || rc=$?
check_eq "background, bad database: exits 1" 1 "$rc"
check "background, bad database: says why" grep -q "cannot open database $T/no/such/dir/x.db" "$T/db.err"
check "background, bad database: not mounted" sh -c "! grep -q ' $T/mnt fuse' /proc/mounts"

# 5. Stopped while starting: another connection holds the WAL database's
# write lock for 2 s (within the busy timeout) and the daemon waits for
# it; SIGTERM then (to the waiting parent in background mode, which passes
# it on) ends it with 1 and a reason, not mounted, no run, no process.
# (SIGTERM, not SIGINT: a script's & jobs ignore SIGINT; Ctrl-C at a
# terminal takes the same path.)
if command -v python3 >/dev/null; then
	for mode in -f background; do
		fg=
		[ $mode = background ] || fg=-f
		IDB=$T/int$mode.db
		python3 -c '
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute("PRAGMA journal_mode=WAL")
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
time.sleep(2)
c.execute("COMMIT")' "$IDB" "$T/locked$mode" &
		locker=$!
		PIDS="$PIDS $locker"
		n=0
		while [ ! -e "$T/locked$mode" ] && [ $n -lt 100 ]; do
			sleep 0.05
			n=$((n + 1))
		done
		# shellcheck disable=SC2086
		"$BIN" $fg -o db="$IDB",label="int$mode" "$M" "$T/mnt" \
			>"$T/int.err" 2>&1 &
		starter=$!
		PIDS="$PIDS $starter"
		MOUNTS="$MOUNTS $T/mnt"
		# TERM once it is caught (SigCgt bit 14), not only after a
		# fixed 0.5 s: a daemon under ThreadSanitizer on a busy machine
		# was not that far yet, and TERM's default action killed it
		# (143).  Then 0.5 s: libfuse drops a signal that comes after
		# its handler is set but before it records the session (once
		# here, under TSan: the daemon mounted and ran on)
		n=0
		while [ $n -lt 100 ]; do
			cgt=$(awk '$1 == "SigCgt:" { print $2 }' \
				"/proc/$starter/status" 2>/dev/null)
			[ $(( 0x${cgt:-0} & 0x4000 )) -eq 0 ] || break
			sleep 0.05
			n=$((n + 1))
		done
		sleep 0.5
		kill -TERM $starter
		rc=0
		wait $starter || rc=$?
		wait $locker 2>/dev/null || true
		check_eq "interrupted while starting ($mode): exits 1" 1 "$rc"
		check "interrupted while starting ($mode): says so" \
			grep -q "interrupted while starting; $T/mnt unmounted, no run recorded" "$T/int.err"
		i=0
		while pgrep -f "timelinef[s] .*label=int$mode.* $T/" >/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		check "interrupted while starting ($mode): no daemon left" \
			sh -c "! pgrep -f 'timelinef[s] .*label=int$mode.* $T/' >/dev/null"
		check "interrupted while starting ($mode): not mounted" \
			sh -c "! grep -q ' $T/mnt fuse' /proc/mounts"
		check_eq "interrupted while starting ($mode): no run" 0 \
			"$(DB=$IDB q 'select count(*) from run')"
	done
else
	echo "# no python3: the interrupted start is not checked"
fi

# 6. The open file limit: started with a soft limit of 40, the daemon
# raises it to the hard one, so that 4 streams of 12-event edits (up to
# 36 media files each, kept open as they play) all read without EMFILE
F=$T/fds
"$GEN" --clips 12 --clip-seconds 1 --timelines 4 --events 12 \
	--min-seconds 0.2 --max-seconds 0.3 --video-rate 1M "$F" >/dev/null
FDB=$T/fds.db
# mount_fs through a wrapper that lowers the limit and execs the daemon
# (DAEMON is then the daemon's pid)
printf '#!/bin/sh\nulimit -Sn 40 && exec "%s" "$@"\n' "$BIN" >"$T/lowfd"
chmod +x "$T/lowfd"
real_bin=$BIN
BIN=$T/lowfd
mount_fs "$F" "$T/mnt" -o db="$FDB",pace=off,backing=buffered
BIN=$real_bin
hard=$(ulimit -Hn)
check_eq "open file limit: raised to the hard limit ($hard)" "$hard $hard" \
	"$(awk '/^Max open files/ { print $4, $5 }' "/proc/$DAEMON/limits")"
fails=0
for i in 1 2 3 4; do
	dd if="$T/mnt/timeline0$i" of=/dev/null bs=1M 2>"$T/fds$i.err" &
	eval "r$i=\$!"
done
for i in 1 2 3 4; do
	eval "wait \$r$i" || fails=$((fails + 1))
done
check_eq "open file limit: 4 streams read" 0 "$fails"
umount_fs "$T/mnt"
# the files the streams held open at once, well above the 40
files=$(DB=$FDB q "select sum(n) from (select count(distinct clip || track) n
	from access group by stream_id)")
check "open file limit: the streams held $files media files" test "$files" -gt 80
check_eq "open file limit: no failed access" 0 \
	"$(DB=$FDB q "select sum(errno <> 0) from access")"

finish
