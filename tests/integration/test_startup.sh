#!/bin/sh
# SPDX-License-Identifier: MIT
# What the daemon finds out and decides at start (issue 17):
#  - defect 6: the run row's config_hz is the running kernel's CONFIG_HZ,
#    from /proc/config.gz or else /boot/config-RELEASE (it was read from
#    /boot only: NULL on a kernel with /proc/config.gz alone), NULL when
#    neither gives it.
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

finish
