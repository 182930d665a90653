#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Page cache of files, seen from outside the daemon, for the mounted tests.

  pagecache.py resident FILE...   bytes of the files' pages in the page cache
                                  (mincore of a private mapping, which reads
                                  nothing), then their total size
  pagecache.py drop FILE...       write the files' dirty pages and drop
                                  them all (fsync, POSIX_FADV_DONTNEED), so
                                  that a test does not depend on what ran
                                  before it

Exit 1 on an error, 2 on usage.
"""

import ctypes
import mmap
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                      ctypes.c_int, ctypes.c_int, ctypes.c_long)
libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
MAP_FAILED = ctypes.c_void_p(-1).value


def resident(path):
    """(resident bytes, size) of one file."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return 0, 0
        base = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
        if base in (None, MAP_FAILED):
            raise OSError(ctypes.get_errno(), "mmap %s" % path)
        try:
            page = mmap.PAGESIZE
            vec = (ctypes.c_ubyte * ((size + page - 1) // page))()
            if libc.mincore(base, size, vec) != 0:
                raise OSError(ctypes.get_errno(), "mincore %s" % path)
            return min(sum(v & 1 for v in vec) * page, size), size
        finally:
            libc.munmap(base, size)
    finally:
        os.close(fd)


def main(argv):
    if len(argv) < 2 or argv[0] not in ("resident", "drop"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        if argv[0] == "drop":
            for path in argv[1:]:
                fd = os.open(path, os.O_RDONLY)
                try:
                    # dirty pages are not dropped: write them first
                    os.fsync(fd)
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)
        else:
            res = size = 0
            for path in argv[1:]:
                r, s = resident(path)
                res += r
                size += s
            print(res, size)
    except OSError as e:
        print("pagecache: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
