#!/usr/bin/env python3
"""Print how many pages of process PID are present and a digest of where
they are (their page frame numbers, from /proc/PID/pagemap; needs root).
Two equal lines taken a while apart mean that nothing moved, swapped out or
collapsed any of its pages meanwhile.
Usage: pfn-digest.py PID
"""
import hashlib
import resource
import struct
import sys

PAGE = resource.getpagesize()
PRESENT = 1 << 63
PFN_MASK = (1 << 55) - 1


def main() -> int:
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    pid = sys.argv[1]
    digest, present, pfns = hashlib.sha256(), 0, 0
    try:
        with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/pagemap", "rb") as pagemap:
            for line in maps:
                start, end = (int(x, 16) for x in line.split()[0].split("-"))
                if line.split()[-1] == "[vsyscall]":
                    continue
                pagemap.seek(start // PAGE * 8)
                data = pagemap.read((end - start) // PAGE * 8)
                for (entry,) in struct.iter_unpack("<Q", data):
                    if entry & PRESENT:
                        present += 1
                        pfns |= entry & PFN_MASK
                        digest.update(struct.pack("<Q", entry & PFN_MASK))
    except OSError as e:
        print(f"pfn-digest.py: {e}", file=sys.stderr)
        return 1
    if not pfns:
        print(f"pfn-digest.py: no page frame number of {pid} readable (not root?)",
              file=sys.stderr)
        return 1
    print(f"{present} pages present, digest {digest.hexdigest()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
