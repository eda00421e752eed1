# SPDX-License-Identifier: GPL-2.0
"""Fault in one page of anonymous memory, print its physical address, then
hold it until killed (or SECONDS pass), so that another tool can inspect it.

    python3 debug/hold_anon_page.py [SECONDS]     (needs root to see PFNs)
"""
import ctypes
import mmap
import struct
import sys
import time

PAGE = mmap.PAGESIZE
buf = mmap.mmap(-1, PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
buf[:8] = b"secret!!"
va = ctypes.addressof(ctypes.c_char.from_buffer(buf))
with open("/proc/self/pagemap", "rb") as f:
    f.seek(va // PAGE * 8)
    entry = struct.unpack("<Q", f.read(8))[0]
pfn = entry & ((1 << 55) - 1)
if not entry >> 63 or not pfn:
    sys.exit("hold_anon_page: no PFN in /proc/self/pagemap (not root?)")
print(hex(pfn * PAGE), flush=True)
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 600)
