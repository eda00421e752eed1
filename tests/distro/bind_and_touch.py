# SPDX-License-Identifier: GPL-2.0
"""Bind this process's memory to one NUMA node (MPOL_BIND), then make the
kernel allocate there for it: page tables for a sparse 8 GiB mapping touched
once per 2 MiB, and slab objects (pipes). Usage: bind_and_touch.py NODE."""
import ctypes
import mmap
import os
import sys

MPOL_BIND = 2
SYS_SET_MEMPOLICY = 238  # x86_64
MAP_NORESERVE = 0x4000  # not in every Python's mmap module


def main():
    node = int(sys.argv[1])
    libc = ctypes.CDLL(None, use_errno=True)
    mask = ctypes.c_ulong(1 << node)
    if libc.syscall(SYS_SET_MEMPOLICY, MPOL_BIND, ctypes.byref(mask), 64) != 0:
        sys.exit(f"set_mempolicy: {os.strerror(ctypes.get_errno())}")
    size = 8 << 30
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | MAP_NORESERVE)
    m.madvise(mmap.MADV_NOHUGEPAGE)  # one PTE table per 2 MiB, not a THP
    for off in range(0, size, 2 << 20):
        m[off] = 1
    pipes = [os.pipe() for _ in range(200)]
    for r, w in pipes:
        os.write(w, b"x" * 4096)
    print(f"touched {size >> 21} 2 MiB ranges and {len(pipes)} pipes on node {node}")


if __name__ == "__main__":
    main()
