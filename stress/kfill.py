#!/usr/bin/env python3
"""Fill kernel memory with nonsensitive allocations and hold them.

Three kinds of kernel memory that a process can make the kernel allocate
without touching much user memory:
  - page tables: one byte read per 2 MiB of a sparse anonymous mapping
    (THP off for it), so that each read costs a page table page and maps
    the shared zero page;
  - socket buffers: data queued, unread, on AF_UNIX socket pairs;
  - inodes and dentries: empty files created in a tmpfs directory.

With --strand, every other page table is freed once all are made: the
nonsensitive pageblocks they filled stay half used, their free pages
stranded (with asi_alloc=freelist only whole free blocks flip to sensitive,
so sensitive requests reach those pages only by borrowing them).

Prints "filled <MiB>" once done (the MiB still held), holds everything until
stdin reaches end of file or a signal arrives, then frees it all at once
(exit). Usage:
  kfill.py MIB [--dir DIR] [--strand]
"""
import argparse
import mmap
import os
import resource
import shutil
import signal
import socket
import sys
import tempfile

MIB = 1 << 20


def page_tables(mib: int, ways: int = 1) -> list:
    """About mib MiB of page tables: one 4 KiB table maps 2 MiB.

    Split between ways mappings, faulted in turn, so that consecutive
    tables, which are mostly neighbours in memory, belong to different ones.
    """
    span = (mib * MIB // 4096 // ways) * (2 * MIB)
    maps = [mmap.mmap(-1, span, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS |
                      getattr(mmap, "MAP_NORESERVE", 0x4000)) for _ in range(ways)]
    for m in maps:
        m.madvise(mmap.MADV_NOHUGEPAGE)
    for off in range(0, span, 2 * MIB):
        for m in maps:
            m[off]	# a read maps the shared zero page: a table, no user page
    return maps


def socket_buffers(mib: int) -> tuple:
    """About mib MiB queued on socket pairs, never read; and the MiB queued."""
    pairs, left, chunk = [], mib * MIB, b"\0" * 65536
    while left > 0:
        try:
            a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError:	# out of descriptors: the other kinds make up
            break
        a.setblocking(False)
        queued = 0
        try:
            while queued < 4 * MIB and left > 0:
                sent = a.send(chunk)
                queued += sent
                left -= sent
        except BlockingIOError:
            pass
        if queued == 0:
            break
        pairs.append((a, b))
    return pairs, mib - max(left, 0) // MIB


def inodes(mib: int, parent: str) -> str:
    """About mib MiB of inodes and dentries: about 1 KiB per empty file."""
    d = tempfile.mkdtemp(prefix="kfill.", dir=parent)
    for i in range(mib * 1024):
        os.close(os.open(os.path.join(d, str(i)), os.O_CREAT | os.O_WRONLY, 0o600))
    return d


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mib", type=int, help="MiB of kernel memory to allocate")
    ap.add_argument("--dir", default="/tmp", help="tmpfs directory for the files")
    ap.add_argument("--strand", action="store_true",
                    help="free every other page table once all are made")
    args = ap.parse_args()
    if args.mib <= 0:
        ap.error("MIB must be positive")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # Two descriptors per socket pair, about 200 KiB queued on each.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    for limit in (1 << 16, hard):
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
            break
        except (ValueError, OSError):
            pass
    # Files are the slowest to make: a sixth; sockets a third.
    files = max(args.mib // 6, 1)
    pairs, queued = socket_buffers(max(args.mib // 3, 1))
    # Page tables make up the rest, and what the descriptors fell short of.
    table_mib = max(args.mib - files - queued, 1)
    tables = page_tables(table_mib, 2 if args.strand else 1)
    d = inodes(files, args.dir)
    held = args.mib
    if args.strand:
        tables.pop().close()	# unmapped: its tables are freed
        held -= table_mib // 2
    print(f"filled {held}", flush=True)
    try:
        sys.stdin.read()
    finally:
        shutil.rmtree(d)
    del tables, pairs
    return 0


if __name__ == "__main__":
    sys.exit(main())
