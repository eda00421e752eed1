#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Read a file back in odd-sized chunks and check every byte.

    file-read.py DIR [--mib M] [--chunk C] [--passes P] [--threaded]

Writes a file of M MiB less 1,000 bytes (so its last page is partial) in
DIR whose every 8-byte word holds its own offset, then reads it P times with pread() into one buffer that is touched first (so
that a copy into it never faults), in chunks of C bytes that start at odd
offsets and so straddle pages. With --threaded a second thread sleeps
meanwhile. Prints, for the reading alone:

    file-read: R reads of B bytes over N pages intact; local maps L, page-fault exits X; huge K kB

N counts each page once per read that copies from it; K is how much
ShmemHugePages in /proc/meminfo grew while the file was written (tmpfs
huge pages). Exits 0, or names the first bad chunk and exits 1. The
counters come from /proc/vmstat; where they are missing (ASI compiled out)
L and X read -1.
"""
import argparse
import array
import os
import sys
import threading

PAGE = 4096


def counter(path: str, key: str) -> int:
    """A /proc/vmstat or /proc/meminfo value; -1 if it is missing."""
    with open(path) as f:
        for line in f:
            fields = line.replace(":", " ").split()
            if fields[0] == key:
                return int(fields[1])
    return -1


def vmstat(key: str) -> int:
    return counter("/proc/vmstat", key)


def shmem_huge_kb() -> int:
    return counter("/proc/meminfo", "ShmemHugePages")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("dir")
    ap.add_argument("--mib", type=int, default=4)
    ap.add_argument("--chunk", type=int, default=3 * PAGE + 123)
    ap.add_argument("--passes", type=int, default=4)
    ap.add_argument("--threaded", action="store_true")
    args = ap.parse_args()
    if not 1 <= args.mib <= 256 or not 1 <= args.chunk <= 1 << 20 or args.passes < 1:
        ap.error("--mib must be 1..256, --chunk 1..1048576, --passes at least 1")
    size = (args.mib << 20) - 1000
    # Built in one C loop: a Python object per word would take tens of
    # MiB of heap, and seconds to fault in under TCG.
    # size is a multiple of 8: exactly size // 8 words.
    words = array.array("Q", range(0, size, 8))
    if sys.byteorder != "little":
        words.byteswap()
    data = words.tobytes()
    del words
    path = os.path.join(args.dir, f"file-read.{os.getpid()}")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        huge = shmem_huge_kb()
        if os.write(fd, data) != size:
            print("file-read: FAIL: short write")
            return 1
        huge = shmem_huge_kb() - huge
        buf = bytearray(b"\xa5" * args.chunk)
        # Compared through views: no copy allocates (and faults in) memory.
        view, expect = memoryview(buf), memoryview(data)
        stop = threading.Event()
        if args.threaded:
            threading.Thread(target=stop.wait, daemon=True).start()
        reads = nbytes = pages = 0
        l0, x0 = vmstat("asi_local_map"), vmstat("asi_exit_page_fault")
        for p in range(args.passes):
            off = 1 + 8 * p
            while off < size:
                n = os.preadv(fd, [view], off)
                want = min(args.chunk, size - off)
                if n != want or view[:n] != expect[off:off + n]:
                    print(f"file-read: FAIL: pass {p}: {n} bytes at offset {off} "
                          f"(expected {want}) differ from the file")
                    return 1
                reads += 1
                nbytes += n
                pages += (off + n - 1) // PAGE - off // PAGE + 1
                off += n
        l1, x1 = vmstat("asi_local_map"), vmstat("asi_exit_page_fault")
        locals_ = l1 - l0 if min(l0, l1) >= 0 else -1
        exits = x1 - x0 if min(x0, x1) >= 0 else -1
        stop.set()
    finally:
        os.close(fd)
        os.unlink(path)
    print(f"file-read: {reads} reads of {nbytes} bytes over {pages} pages intact; "
          f"local maps {locals_}, page-fault exits {exits}; huge {huge} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
