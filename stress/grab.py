#!/usr/bin/env python3
"""Take user memory until the OOM killer stops this process, or LIMIT MiB.

Maps and touches anonymous memory STEP MiB at a time and prints the MiB held
after each step, so that whoever reads its output knows how much it had
obtained when it was killed. Makes itself the OOM killer's first choice.
With LIMIT_MIB it exits (0) once it holds that much: every page of it
touched, however long that takes, where a stressor would stop on time.
With --hold as well, it then keeps the memory until a signal ends it.
Usage: grab.py [--hold] [STEP_MIB [LIMIT_MIB]]
"""
import mmap
import signal
import sys

MIB = 1 << 20


def main() -> int:
    args = sys.argv[1:]
    hold = "--hold" in args
    if hold:
        args.remove("--hold")
    try:
        step = int(args[0]) if len(args) > 0 else 4
        limit = int(args[1]) if len(args) > 1 else 0
    except ValueError:
        step = limit = -1
    if step <= 0 or limit < 0 or len(args) > 2 or (hold and not limit):
        print("usage: grab.py [--hold] [STEP_MIB > 0 [LIMIT_MIB >= 0, 0: no limit]]"
              " (--hold wants a limit)", file=sys.stderr)
        return 2
    with open("/proc/self/oom_score_adj", "w") as f:
        f.write("1000")
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
