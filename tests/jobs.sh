# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Sourced by tests/run-unit.sh and tests/run-integration.sh: jobs, how
# many they run at a time: TLFS_JOBS, else the CPUs; anything but a
# number above 0 stops the runner (exit 2) saying so.
jobs=${TLFS_JOBS:-$(nproc 2>/dev/null || echo 1)}
case $jobs in
'' | *[!0-9]* | 0) echo "TLFS_JOBS must be a number above 0, not '$jobs'" >&2; exit 2 ;;
esac
