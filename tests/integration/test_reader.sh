#!/bin/sh
# SPDX-License-Identifier: MIT
# Mounted: who read a stream.  Regression test of issue 17, defect 4: FUSE
# names the thread that opened a file, not its process, and stream.pid was
# that thread's id (a python3 reader reading from a second thread got its
# thread's id and comm 'tlreader'); expected: pid and comm are the
# process's (its pid as the shell saw it, python3), tid the thread's, and
# sid the session the reader ran in.  Run again in a PID namespace of its
# own, where the test's session leader is outside (getsid says 0, as in a
# CI container): a sid of 0 was recorded as NULL ("unknown") and the first
# CI run on record failed on it.
. "$(dirname "$0")/lib.sh"

M=$T/media
"$GEN" --clips 2 --clip-seconds 1 --timelines 1 --events 2 \
	--min-seconds 0.3 --max-seconds 0.4 --video-rate 1M "$M" >/dev/null
DB=$T/r.db
mount_fs "$M" "$T/mnt" -o pace=off,db="$DB",label=reader

# a reader that reads from a thread of its own, which names itself
python3 "$TOP/tests/tools/thread_reader.py" "$T/mnt/timeline01" 65536 &
reader=$!
rc=0
wait $reader || rc=$?
check_eq "the threaded reader read the timeline" 0 "$rc"
# a single-threaded reader, in its own session
setsid dd if="$T/mnt/timeline01" of=/dev/null bs=64k status=none
umount_fs "$T/mnt"

sid=$(ps -o sid= -p $$ | tr -d ' ')
check_eq "threaded reader: pid is the process's, comm its command" \
	"$reader|python3" "$(q "select pid, comm from stream where id = 1")"
check_eq "threaded reader: tid is the reading thread's, not the process's" \
	"1" "$(q "select tid is not null and tid <> pid from stream where id = 1")"
check_eq "threaded reader: sid is the session it ran in (the test's)" \
	"$sid" "$(q "select sid from stream where id = 1")"
check_eq "single-threaded reader: pid = tid = its own session" \
	"dd|1" "$(q "select comm, pid = tid and sid = pid from stream where id = 2")"
check_eq "stream_summary carries tid and sid" "2" \
	"$(q "select count(*) from stream_summary where tid is not null and sid is not null")"

if [ -z "${TLFS_READER_PIDNS:-}" ]; then
	out=$(TLFS_READER_PIDNS=1 unshare --pid --fork --mount-proc \
		sh "$0" 2>&1)
	check_eq "in a PID namespace (session 0, as in a container): all pass" \
		"0|6 passed, 0 failed" \
		"$(echo "$out" | grep -c '^not ok')|$(echo "$out" | tail -1)"
	[ "$(echo "$out" | tail -1)" = "6 passed, 0 failed" ] || echo "$out"
fi
finish
