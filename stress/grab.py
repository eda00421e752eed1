#!/usr/bin/env python3
"""Take user memory until the OOM killer stops this process, or LIMIT MiB.

Maps and touches anonymous memory STEP MiB at a time and prints the MiB held
after each step, so that whoever reads its output knows how much it had
obtained when it was killed. Makes itself the OOM killer's first choice.
With LIMIT_MIB it exits (0) once it holds that much: every page of it
touched, however long that takes, where a stressor would stop on time.
With --hold as well, it then keeps the memory until a signal ends it.
With --pin, its pages stay where they were first put: locked (no reclaim;
no compaction either once vm.compact_unevictable_allowed is 0) and never
collapsed into huge pages, so what the kernel gave it can be inspected.
Usage: grab.py [--hold] [--pin] [STEP_MIB [LIMIT_MIB]]
"""
import ctypes
import mmap
import os
import signal
import sys

MIB = 1 << 20
MCL_CURRENT, MCL_FUTURE = 1, 2
PR_SET_THP_DISABLE = 41


def pin() -> None:
    """Lock this process's memory, present and future, and keep THP off it."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) or libc.mlockall(MCL_CURRENT | MCL_FUTURE):
        err = ctypes.get_errno()
        sys.exit(f"grab.py: --pin: {os.strerror(err)} (mlockall needs CAP_IPC_LOCK"
                 " or a large enough RLIMIT_MEMLOCK)")


def main() -> int:
    args = sys.argv[1:]
    hold, pinned = "--hold" in args, "--pin" in args
    for opt in ("--hold", "--pin"):
        if opt in args:
            args.remove(opt)
    try:
        step = int(args[0]) if len(args) > 0 else 4
        limit = int(args[1]) if len(args) > 1 else 0
    except ValueError:
        step = limit = -1
    if step <= 0 or limit < 0 or len(args) > 2 or (hold and not limit):
        print("usage: grab.py [--hold] [--pin] [STEP_MIB > 0 [LIMIT_MIB >= 0, 0: no limit]]"
              " (--hold wants a limit)", file=sys.stderr)
        return 2
    with open("/proc/self/oom_score_adj", "w") as f:
        f.write("1000")
    if pinned:
        pin()
    held, total = [], 0
    fill = b"\1" * (step * MIB)
    while not limit or total < limit:
        m = mmap.mmap(-1, step * MIB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        m[:] = fill	# one copy faults in every page
        held.append(m)
        total += step
        print(total, flush=True)
    while hold:
        signal.pause()
    return 0


if __name__ == "__main__":
    sys.exit(main())
