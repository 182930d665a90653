#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Read a file to the end from a thread other than the main one, as players
and ffmpeg do: the FUSE request then carries that thread's id, not the
process's.  The thread names itself 'tlreader' (its /proc comm), so that a
test can tell the process's command name (python3) from the thread's.

usage: thread_reader.py FILE [BLOCK_BYTES]"""
import ctypes
import sys
import threading

PR_SET_NAME = 15


def read_all(path, block, result):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_NAME, b"tlreader", 0, 0, 0)
    n = 0
    with open(path, "rb", buffering=0) as f:
        while True:
            b = f.read(block)
            if not b:
                break
            n += len(b)
    result.append(n)


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__.splitlines()[-1])
    block = int(sys.argv[2]) if len(sys.argv) == 3 else 1 << 20
    result = []
    t = threading.Thread(target=read_all, args=(sys.argv[1], block, result))
    t.start()
    t.join()
    if not result:
        sys.exit("thread_reader.py: the reading thread failed")


if __name__ == "__main__":
    main()
