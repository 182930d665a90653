#!/bin/sh
# SPDX-License-Identifier: MIT
# The run environment (issue 18): each mount writes run_env rows of what can
# decide an A/B result, checked here against the system's own tools:
# config_hz against `gzip -dc /proc/config.gz`, the measured tick rate
# within 2 % of it, the clocksource against sysfs, the media's file system
# type, mount point and options against findmnt, its disk against lsblk,
# CPU and memory against /proc, the versions against timelinefs -V and
# sqlite3, the options in effect against those given.  Media on tmpfs has
# no block device rows.  timelinefs-report --compare of two runs, one
# edited with sqlite3, prints what differs first.  Before this change there was no run_env table.
. "$(dirname "$0")/lib.sh"

M=$T/media
DB=$T/e.db
"$GEN" --clips 1 --clip-seconds 1 --timelines 1 --events 1 \
	--min-seconds 0.5 --max-seconds 0.5 --video-rate 1M "$M" >/dev/null

mount_fs "$M" "$T/mnt" -o db="$DB",label=env,backing=buffered,buffer=5
umount_fs "$T/mnt"
run=$(q "select max(id) from run")
# zero copy's requests, where the host allows no pipe for 1 MiB (its
# start says so), and so the readahead in effect, not given
ra=$(request_kb "$DAEMON_LOG")
envv() {
	q "select value from run_env where run_id = $run and key = '$1'"
}

check_eq "a run_env table with rows of this run" 1 \
	"$(q "select count(*) > 20 from run_env where run_id = $run")"

# kernel
check_eq "kernel_release is uname -r" "$(uname -r)" "$(envv kernel_release)"
check_eq "kernel_cmdline is /proc/cmdline" "$(cat /proc/cmdline)" \
	"$(envv kernel_cmdline)"
want=
from=
if [ -r /proc/config.gz ]; then
	want=$(gzip -dc /proc/config.gz | sed -n 's/^CONFIG_HZ=//p' | head -1)
	from=/proc/config.gz
fi
if [ -z "$want" ] && [ -r "/boot/config-$(uname -r)" ]; then
	want=$(sed -n 's/^CONFIG_HZ=//p' "/boot/config-$(uname -r)" | head -1)
	from=/boot/config-$(uname -r)
fi
echo "# CONFIG_HZ of this kernel: ${want:-none found} ($from)"
check_eq "config_hz is the config's CONFIG_HZ" "$want" "$(envv config_hz)"
check_eq "config_hz_from names the file" "$from" "$(envv config_hz_from)"
if [ -r /proc/timer_list ] && [ -n "$want" ]; then
	got=$(envv config_hz_measured)
	echo "# measured: $got jiffies per second"
	check "config_hz_measured ($got) within 2 % of CONFIG_HZ $want" \
		awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= w * 0.02) }'
else
	echo "# skip: /proc/timer_list unreadable or no CONFIG_HZ"
fi
case $(envv preempt) in
none | voluntary | full | rt | lazy) ok "preempt is a model: $(envv preempt) ($(envv preempt_from))" ;;
*) not_ok "preempt '$(envv preempt)'" ;;
esac
check_eq "clocksource as sysfs says" \
	"$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)" \
	"$(envv clocksource)"
check_eq "boot_id: this boot's, as /proc says" \
	"$(cat /proc/sys/kernel/random/boot_id)" "$(envv boot_id)"

# host
check_eq "cpu_count: processors of /proc/cpuinfo" \
	"$(grep -c '^processor' /proc/cpuinfo)" "$(envv cpu_count)"
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
if [ -n "$model" ]; then
	check_eq "cpu_model" "$model" "$(envv cpu_model)"
fi
check_eq "cpus_allowed: nproc" "$(nproc)" "$(envv cpus_allowed)"
check_eq "mem_total_kb: MemTotal" \
	"$(awk '$1 == "MemTotal:" { print $2 }' /proc/meminfo)" \
	"$(envv mem_total_kb)"
gov=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
if [ -r $gov ]; then
	check "cpu_governor holds cpu0's" sh -c "echo '$(envv cpu_governor)' | grep -q '$(cat $gov)'"
else
	check_none "no cpufreq: no cpu_governor row" "$(envv cpu_governor)"
fi

# the media's file system and disk; findmnt -T lists every mount stacked
# on the media's mount point (/dev/shm is two tmpfs mounts on some
# machines), the last the one its files are on
top() { findmnt -n -T "$M" "$@" | tail -n 1; }
if command -v findmnt >/dev/null 2>&1; then
	check_eq "media_fs_type is findmnt's for MEDIA_DIR" \
		"$(top -o FSTYPE)" "$(envv media_fs_type)"
	check_eq "media_mount_point is findmnt's" \
		"$(top -o TARGET)" "$(envv media_mount_point)"
	check_eq "media_mount_options: findmnt's VFS then FS options" \
		"$(top -o VFS-OPTIONS,FS-OPTIONS | awk '{ print $1 " " $2 }')" \
		"$(envv media_mount_options)"
fi
check_eq "media_fs_type agrees with stat -f" \
	"$(stat -f -c %T "$M" | sed 's,ext2/ext3,ext4,')" \
	"$(envv media_fs_type | sed 's,ext[234],ext4,')"
# disk_under DEV: the whole disk that holds block device DEV's data: a
# partition's disk, a loop device's backing file's disk (none where that
# file is on a file system of no block device: a loop over a tmpfs file)
disk_under() {
	if [ -r "/sys/block/$1/loop/backing_file" ]; then
		under=$(stat -c '%Hd:%Ld' "$(cat "/sys/block/$1/loop/backing_file")")
		if [ -e "/sys/dev/block/$under" ]; then
			disk_under "$(basename "$(readlink -f "/sys/dev/block/$under")")"
		fi
		return
	fi
	pk=$(lsblk -n -d -o PKNAME "/dev/$1" 2>/dev/null || true)
	echo "${pk:-$1}"
}
dev=$(top -o MAJ:MIN 2>/dev/null | tr -d ' ' || true)
if [ -e "/sys/dev/block/$dev" ]; then
	name=$(basename "$(readlink -f "/sys/dev/block/$dev")")
	check_eq "media_device: the block device of the mount" "$name" \
		"$(envv media_device)"
	disk=$(disk_under "$name")
	case $(envv media_disk) in
	*"$disk"*) ok "media_disk holds the whole disk '$disk'" ;;
	*) not_ok "media_disk '$(envv media_disk)' lacks '$disk'" ;;
	esac
	if [ -r "/sys/block/$disk/queue/scheduler" ] && [ "$disk" = "$(envv media_disk)" ]; then
		check_eq "media_io_scheduler: the [chosen] one" \
			"$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$disk/queue/scheduler")" \
			"$(envv media_io_scheduler)"
		check_eq "media_rotational" "$(cat "/sys/block/$disk/queue/rotational")" \
			"$(envv media_rotational)"
		check_eq "media_read_ahead_kb" "$(cat "/sys/block/$disk/queue/read_ahead_kb")" \
			"$(envv media_read_ahead_kb)"
	fi
else
	echo "# skip: MEDIA_DIR is on no block device ($dev)"
fi

# versions and options
check_eq "timelinefs_version as -V says" \
	"$("$BIN" -V | sed -n 's/^timelinefs //p')" \
	"$(envv timelinefs_version)"
check_eq "fuse_version as -V says" \
	"$("$BIN" -V | sed -n 's/^libfuse //p')" \
	"$(envv fuse_version)"
check "sqlite_version is a version" sh -c "echo '$(envv sqlite_version)' | grep -Eq '^3\.[0-9]+\.[0-9]+'"
check_eq "sqlite_version as -V says" \
	"$("$BIN" -V | sed -n 's/^SQLite //p')" \
	"$(envv sqlite_version)"
check_eq "options given: backing, buffer, label" "buffered|5|env" \
	"$(envv opt.backing)|$(envv opt.buffer)|$(envv opt.label)"
check_eq "options by default: pace, record, readahead (in effect: the requests' size or 1024)" "realtime|all|$ra" \
	"$(envv opt.pace)|$(envv opt.record)|$(envv opt.readahead)"
check_eq "every timelinefs option of -h has a row" \
	"$("$BIN" -h | sed -n '/^timelinefs options/,/^general options/s/^    -o \([a-z_]*\).*/\1/p' |
		sort -u | tr '\n' ' ')" \
	"$(q "select substr(key, 5) from run_env where run_id = $run and key like 'opt.%'
		and key not in ('opt.single_threaded', 'opt.clone_fd', 'opt.max_idle_threads',
		'opt.max_threads') order by 1" | tr '\n' ' ')"
check_eq "libfuse's options: -s, clone_fd, threads in effect" "off|off|64|512" \
	"$(envv opt.single_threaded)|$(envv opt.clone_fd)|$(envv opt.max_idle_threads)|$(envv opt.max_threads)"

# -o max_threads= reaches libfuse's loop (it was parsed and dropped: always
# 512 threads): 8 paced readers at once each hold a worker while their
# frames are not due, yet the daemon keeps to 3 workers beside its own
# threads (main, store, one filler a stream); the run says 3 and 2
"$GEN" --clips 1 --clip-seconds 2 --timelines 1 --events 1 \
	--min-seconds 2 --max-seconds 2 --video-rate 1M "$T/m2" >/dev/null
mount_fs "$T/m2" "$T/mnt" -o db="$DB",label=threads,backing=buffered,direct_io,max_threads=3,max_idle_threads=2
# most_threads N: the most threads the daemon had in N samples 25 ms apart
most_threads() {
	m=0
	k=0
	while [ $k -lt "$1" ]; do
		c=$(find "/proc/$DAEMON/task" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
		[ "$c" -gt "$m" ] && m=$c
		sleep 0.025
		k=$((k + 1))
	done
	echo "$m"
}
# the daemon's threads at rest: the most of 10 samples over 0.25 s, as
# one taken at once can come before a thread of its own has started (a
# clean-clone run's TSan pass counted 6, then 17 under load, where its
# other passes counted 7 and 16)
idle=$(most_threads 10)
pids=
for _ in 1 2 3 4 5 6 7 8; do
	dd if="$T/mnt/timeline01" of=/dev/null bs=4k status=none &
	pids="$pids $!"
done
most=$(most_threads 40)
# shellcheck disable=SC2086 # the readers' pids
wait $pids
umount_fs "$T/mnt"
run3=$(q "select max(id) from run")
check_eq "-o max_threads=3,max_idle_threads=2 in the run" "3|2" \
	"$(q "select group_concat(value, '|') from (select value from run_env where run_id = $run3 and key in ('opt.max_threads', 'opt.max_idle_threads') order by key desc)")"
check "-o max_threads=3: at most 3 workers for 8 paced readers ($most threads at most, $idle idle with 1 worker, 8 fillers)" \
	test "$most" -le $((idle - 1 + 8 + 3))
# -s runs one thread whatever -o max_threads= says: the run records 1 and 0
mount_fs "$M" "$T/mnt" -s -o db="$DB",label=single,max_threads=3,max_idle_threads=2
umount_fs "$T/mnt"
run4=$(q "select max(id) from run")
check_eq "-s: one thread in the run (max_threads=3 given), none idle" "on|1|0" \
	"$(q "select group_concat(value, '|') from (select value from run_env where run_id = $run4 and key in ('opt.single_threaded', 'opt.max_threads', 'opt.max_idle_threads') order by key desc)")"

# timelinefs-report --compare of two real runs whose environments differ:
# a second mount with other options, its config_hz edited as if it had
# booted another kernel; the differences come first
mount_fs "$M" "$T/mnt" -o db="$DB",label=env2
umount_fs "$T/mnt"
run2=$(q "select max(id) from run")
hz=$(envv config_hz)
q "update run_env set value = '100' where run_id = $run2 and key = 'config_hz'"
"$TOP/mount-scripts/timelinefs-report" "$DB" --compare env env2 >"$T/cmp"
check_eq "--compare: the environments first, config_hz as edited" \
	"environment (run_env): what differs between A (env) and B (env2)|  config_hz              ${hz:-(none)} | 100" \
	"$(sed -n 1,2p "$T/cmp" | paste -sd '|')"
ra_diff=
[ "$ra" = 1024 ] || ra_diff=" opt.readahead $ra | 1024"
check_eq "--compare: the options that differ, nothing else" \
	"opt.buffer 5 | 8 opt.backing buffered | direct$ra_diff" \
	"$(sed -n '3,/^$/p' "$T/cmp" | awk 'NF { $1 = $1; print }' | paste -sd ' ')"

# media on a loop device (an ext4 image in a file): the device is the loop
# device, read_ahead_kb its queue's, and the disk the one that holds the
# image file, with that disk's scheduler (this kernel has no partition
# table parser, device-mapper nor md to try the others)
LOOP=
loop_cleanup() {
	set +e
	grep -q " $T/loopmnt " /proc/mounts && umount "$T/loopmnt"
	[ -z "$LOOP" ] || losetup -d "$LOOP"
	cleanup
}
trap loop_cleanup EXIT
if command -v losetup >/dev/null 2>&1 && command -v mkfs.ext4 >/dev/null 2>&1 &&
	[ -e "/sys/dev/block/$dev" ] && truncate -s 64M "$T/img" &&
	mkfs.ext4 -q -F "$T/img" 2>/dev/null && LOOP=$(losetup -f --show "$T/img" 2>/dev/null) &&
	mkdir -p "$T/loopmnt" && mount "$LOOP" "$T/loopmnt" 2>/dev/null; then
	cp -r "$M/." "$T/loopmnt/"
	mount_fs "$T/loopmnt" "$T/mnt" -o db="$DB",label=loop
	umount_fs "$T/mnt"
	run=$(q "select max(id) from run")
	lname=$(basename "$LOOP")
	check_eq "loop media: device, file, disk under it" \
		"$lname|$T/img|$disk" \
		"$(envv media_device)|$(envv media_loop_file)|$(envv media_disk)"
	sched='' rot=''
	if [ -n "$disk" ]; then
		sched=$(sed 's/.*\[\(.*\)\].*/\1/' "/sys/block/$disk/queue/scheduler")
		rot=$(cat "/sys/block/$disk/queue/rotational")
	fi
	check_eq "loop media: the disk's scheduler and rotational, the loop's read_ahead_kb" \
		"$sched|$rot|$(cat "/sys/block/$lname/queue/read_ahead_kb")" \
		"$(envv media_io_scheduler)|$(envv media_rotational)|$(envv media_read_ahead_kb)"
	check_eq "loop media: fs type and mount point" "ext4|$T/loopmnt" \
		"$(envv media_fs_type)|$(envv media_mount_point)"
	umount "$T/loopmnt"
	losetup -d "$LOOP"
	LOOP=
else
	echo "# skip: no loop device to mount an image on"
fi

# media on tmpfs: no block device rows
if [ -d /dev/shm ] && [ "$(findmnt -n -o FSTYPE -T /dev/shm 2>/dev/null)" = tmpfs ]; then
	S=$(mktemp -d /dev/shm/tlfs-env.XXXXXX)
	cp -r "$M/." "$S/"
	mount_fs "$S" "$T/mnt" -o db="$DB",label=shm
	umount_fs "$T/mnt"
	rm -rf "$S"
	run=$(q "select max(id) from run")
	check_eq "tmpfs media: fs type tmpfs, no device, disk nor scheduler" "tmpfs|0" \
		"$(envv media_fs_type)|$(q "select count(*) from run_env where run_id = $run
			and key in ('media_device', 'media_disk', 'media_io_scheduler', 'media_rotational')")"
fi
finish
