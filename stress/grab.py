#!/usr/bin/env python3
"""Take user memory until the OOM killer stops this process.

Maps and touches anonymous memory STEP MiB at a time and prints the MiB held
after each step, so that whoever reads its output knows how much it had
obtained when it was killed. Makes itself the OOM killer's first choice.
Usage: grab.py [STEP_MIB]
"""
import mmap
import sys

MIB = 1 << 20


def main() -> int:
    step = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    if step <= 0:
        print("usage: grab.py [STEP_MIB > 0]", file=sys.stderr)
        return 2
    with open("/proc/self/oom_score_adj", "w") as f:
        f.write("1000")
    held, total = [], 0
    fill = b"\1" * (step * MIB)
    while True:
        m = mmap.mmap(-1, step * MIB, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        m[:] = fill	# one copy faults in every page
        held.append(m)
        total += step
        print(total, flush=True)


if __name__ == "__main__":
    sys.exit(main())
