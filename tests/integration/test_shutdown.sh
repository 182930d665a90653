#!/bin/sh
# SPDX-License-Identifier: MIT
# Shutdown with readers active leaves a valid database: SIGTERM of the
# daemon, and a lazy unmount while a reader is still playing.  32 readers
# blocked in paced reads starve neither each other nor ls.
. "$(dirname "$0")/lib.sh"

M=$T/media
"$GEN" --clips 4 --clip-seconds 8 --timelines 2 --events 3 \
	--min-seconds 5 --max-seconds 7 --seed 5 "$M" >/dev/null
DB=$T/t.db

# 1. SIGTERM while a paced reader is in the middle of a timeline
mount_fs "$M" "$T/mnt" -o db="$DB",label=term
dd if="$T/mnt/timeline01" of=/dev/null status=none 2>/dev/null &
reader=$!
sleep 1.5
kill -TERM "$DAEMON"
check "daemon exits on SIGTERM with a reader active" wait_daemon "$DAEMON" 20
wait $reader 2>/dev/null || true
check "mount point released" sh -c "! grep -q ' $T/mnt fuse' /proc/mounts"
check_eq "integrity after SIGTERM" ok "$(q 'pragma integrity_check')"
check_eq "run ended, stream closed, rows recorded" "1|1|1" \
	"$(q "select (select ended_at is not null from run where label = 'term'),
	             (select count(*) = 1 and min(closed_ns) is not null from stream),
	             (select count(*) > 100 from access)")"
check_eq "stream frames agree with its access rows" 1 \
	"$(q "select s.frames = (select count(distinct frame) from access where stream_id = s.id)
	      from stream s")"

# 2. lazy unmount while reading: the reader finishes, then the daemon exits
mount_fs "$M" "$T/mnt" -o db="$DB",label=lazy,pace=4
dd if="$T/mnt/timeline02" of=/dev/null status=none &
reader=$!
sleep 0.5
fusermount3 -u -z "$T/mnt"
wait $reader
rc=$?
check_eq "reader of a lazily unmounted timeline completes" 0 "$rc"
check "daemon exits when the last reader closes" wait_daemon "$DAEMON" 20
check_eq "integrity after lazy unmount" ok "$(q 'pragma integrity_check')"
check_eq "second run appended to the same database" "2|1" \
	"$(q "select count(*), sum(ended_at is not null and label = 'lazy') from run")"

# 3. 32 blocked readers, then ls and stat must still answer at once
# pace=0.05: a frame every 0.67 s, so each reader holds a worker thread
# blocked in its read most of the time while the CPU stays idle; a starved
# ls would wait for a reader's frame (0.67 s) at each of its requests
mount_fs "$M" "$T/mnt" -o db="$DB",label=threads,pace=0.05
i=0
readers=
while [ $i -lt 32 ]; do
	dd if="$T/mnt/timeline0$((i % 2 + 1))" of=/dev/null bs=64k status=none 2>/dev/null &
	readers="$readers $!"
	i=$((i + 1))
done
sleep 1
s=$(date +%s%N)
ls -l "$T/mnt" >/dev/null
stat "$T/mnt/timeline01" >/dev/null
e=$(date +%s%N)
ms=$(( (e - s) / 1000000 ))
check "ls and stat with 32 blocked readers answer in under 600 ms ($ms ms)" test "$ms" -lt 600
kill -TERM "$DAEMON"
check "daemon exits with 32 readers active" wait_daemon "$DAEMON" 30
# shellcheck disable=SC2086
wait $readers 2>/dev/null || true
check_eq "32 streams recorded and closed" "32|0" \
	"$(q "select count(*), sum(closed_ns is null) from stream s join run r on r.id = s.run_id
	      where r.label = 'threads'")"
# 4. the database refuses rows mid-run (its access table dropped behind
# the daemon's back): playback goes on, the loss is counted and said
mount_fs "$M" "$T/mnt" -o db="$T/lost.db",label=lost,pace=off
dd if="$T/mnt/timeline01" of=/dev/null bs=1M count=20 status=none
sleep 0.3
sqlite3 "$T/lost.db" "drop table access"
check "playback goes on when the database refuses rows" \
	dd if="$T/mnt/timeline02" of=/dev/null bs=1M status=none
umount_fs "$T/mnt"
check "the loss is said at unmount" grep -q "access rows could not be stored: .*no such table: access" "$T/daemon.log"
check_eq "the loss is counted in the run row" 1 \
	"$(sqlite3 "$T/lost.db" "select rows_lost > 0 and ended_at is not null from run where label = 'lost'")"
finish
