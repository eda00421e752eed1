# SPDX-License-Identifier: GPL-2.0
"""Search what the restricted address spaces map for given bytes (drgn script).

In the guest, on the running kernel; or on a dump (make vmcore):

    drgn -q -k -s build/out-asi/vmlinux debug/asi_find.py [--stdin] [PATTERN...]

Reads every RAM page that a leaf of the kernel half of the global
nonsensitive pgd, or of a per-mm restricted pgd, maps (image, vmalloc and
vmap, percpu, direct map, entry area: each physical page once however many
leaves map it) and prints where each PATTERN occurs:

    asi_find: PATTERN: N hits in P pages (searched M MiB)
      pfn 0x1234: 3 hits, free nonsensitive, pcp, mapped at 0xff...234000 (direct map)

A PATTERN is text, or hex:<digits> for raw bytes. A marker that a process
keeps in its own memory (environment, heap) must not be found: the user
halves (a process's own memory, which its space maps by design) and the
per-CPU local-map slots (one page a CPU copies from, mapped for that copy)
are not read. Pages that are not "System RAM" (ioremap; also memory whose
"System RAM" resource is not a top-level one, such as virtio-mem's) are not
read either. The pages are read through the unrestricted direct map (on a
live kernel, /proc/kcore), which reads a page it cannot copy (offline,
poisoned, or missing from the unrestricted tables) as zeroes: a restricted
mapping the unrestricted tables lack is for debug/asi_check.py to find.
With --stdin the patterns on each further line of standard input are
searched too, with a fresh page-table walk each time, and each search ends
with the line "asi_find: searched": a test can start drgn first, make the
kernel copy its marker, then ask, so that drgn's own start-up does not
reuse the pages it is looking for.

Exit status: 1 when a pattern was found, 0 when none was; 2 when ASI is
off, the kernel has no debug info or the arguments are bad.
"""
import argparse
import sys

from asi_drgn_common import (FREE_BUDDY, FREE_NS, FREE_PCP, PAGE_SHIFT, PTRS, Layout, MemMap,
                             asi_pgd, leaf_phys_base, read_table, require_asi, restricted_spaces,
                             run, summary, system_ram, walk)

prog = globals()["prog"]
CHUNK = 1 << 20
MAX_PAGES = 20   # pages printed per pattern; all are counted


def parse_pattern(text: str) -> bytes:
    if text.startswith("hex:"):
        try:
            data = bytes.fromhex(text[4:])
        except ValueError:
            sys.exit(f"asi_find: '{text}' is not hex:<pairs of hex digits>")
    else:
        data = text.encode()
    if len(data) < 4:
        sys.exit(f"asi_find: '{text}' is shorter than 4 bytes: it would match everywhere")
    return data


def mapped_ram(layout: Layout) -> tuple:
    """(sorted, merged [start, end) physical ranges of RAM that the kernel
    halves map; sorted (phys, size, va, region) of each leaf, to name a hit)."""
    top = asi_pgd(prog)
    shift = layout.level_shift(layout.top)
    local = (layout.local_entry[0] >> shift) & (PTRS - 1)
    walks = [(top, range(PTRS // 2, PTRS))]
    glob = read_table(layout, top)
    for _, pgd, _, _ in restricted_spaces(prog):
        # Kernel-half slots that are the global space's are walked once.
        own = read_table(layout, pgd)
        walks.append((pgd, [i for i in range(PTRS // 2, PTRS) if own[i] != glob[i]]))
    leaves = []
    for pgd, slots in walks:
        for slot in slots:
            if slot == local:
                continue
            for va, level, e in walk(layout, pgd, slot, slot + 1):
                leaves.append((leaf_phys_base(layout, level, e),
                               1 << layout.level_shift(level), va, layout.region(va)))
    leaves.sort()
    ram = [(s << PAGE_SHIFT, e << PAGE_SHIFT) for s, e in system_ram(prog)]
    clipped = sorted((max(phys, rs), min(phys + size, re_))
                     for phys, size, _, _ in leaves for rs, re_ in ram
                     if max(phys, rs) < min(phys + size, re_))
    merged = []
    for s, e in clipped:
        if merged and s <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], e)
        else:
            merged.append([s, e])
    return merged, leaves


def read_phys(layout: Layout, phys: int, size: int) -> bytes:
    """size bytes at phys through the direct map; a page that cannot be read
    (offline, poisoned) reads as zeroes."""
    try:
        return prog.read(layout.page_offset + phys, size)
    except Exception:   # FaultError, or a dump without that page
        pages = []
        for off in range(0, size, 1 << PAGE_SHIFT):
            try:
                pages.append(prog.read(layout.page_offset + phys + off, 1 << PAGE_SHIFT))
            except Exception:
                pages.append(bytes(1 << PAGE_SHIFT))
        return b"".join(pages)[:size]


def search(layout: Layout, needles: list) -> tuple:
    """({needle: [physical address of each hit]}, the leaves, bytes read)."""
    merged, leaves = mapped_ram(layout)
    hits = {n: [] for n in needles}
    overlap = max(len(n) for n in needles) - 1
    total = 0
    for start, end in merged:
        total += end - start
        for pos in range(start, end, CHUNK):
            data = read_phys(layout, pos, min(CHUNK + overlap, end - pos))
            for n in needles:
                i = data.find(n)
                while i >= 0 and i < CHUNK:
                    hits[n].append(pos + i)
                    i = data.find(n, i + 1)
    return hits, leaves, total


def describe_page(layout: Layout, leaves: list, states: bytearray, pfn: int) -> str:
    """Whether pfn is free (which lists) and where the kernel halves map it."""
    st = states[pfn] if pfn < len(states) else 0
    if not st:
        what = "allocated"
    else:
        what = "free " + ("nonsensitive" if st & FREE_NS else "sensitive") + \
               (", pcp" if st & FREE_PCP else ", buddy" if st & FREE_BUDDY else "")
    phys = pfn << PAGE_SHIFT
    where = [f"{va + phys - lphys:#x} ({region})" for lphys, size, va, region in leaves
             if lphys <= phys < lphys + size]
    return f"{what}, mapped at " + ", ".join(where[:3]) + (" ..." if len(where) > 3 else "")


def report(layout: Layout, texts: list) -> bool:
    needles = [parse_pattern(t) for t in texts]
    hits, leaves, total = search(layout, needles)
    states = MemMap(prog).free_state() if any(hits.values()) else bytearray()
    for text, n in zip(texts, needles):
        pages = {}
        for phys in hits[n]:
            pages[phys >> PAGE_SHIFT] = pages.get(phys >> PAGE_SHIFT, 0) + 1
        print(f"asi_find: {text}: {len(hits[n])} hits in {len(pages)} pages "
              f"(searched {total >> 20} MiB)")
        for pfn in sorted(pages)[:MAX_PAGES]:
            print(f"  pfn {pfn:#x}: {pages[pfn]} hits, "
                  + describe_page(layout, leaves, states, pfn))
        if len(pages) > MAX_PAGES:
            print(f"  ... and {len(pages) - MAX_PAGES} more pages")
    sys.stdout.flush()
    return any(hits.values())


def main(argv: list) -> None:
    p = argparse.ArgumentParser(prog="asi_find.py", description=summary(__doc__))
    p.add_argument("--stdin", action="store_true",
                   help="then search the patterns of each line of standard input")
    p.add_argument("patterns", nargs="*", metavar="PATTERN", help="text, or hex:<digits>")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        sys.exit(e.code and "asi_find: bad arguments (see above)")
    if not args.patterns and not args.stdin:
        sys.exit("asi_find: give a PATTERN, or --stdin")
    require_asi(prog, "asi_find", need_mode=False)
    layout = Layout(prog)
    found = bool(args.patterns) and report(layout, args.patterns)
    if args.stdin:
        print("asi_find: ready", flush=True)
        for line in sys.stdin:
            try:
                if line.split():
                    found |= report(layout, line.split())
            except SystemExit as e:   # a bad pattern: say so, keep reading
                print(e, file=sys.stderr, flush=True)
            print("asi_find: searched", flush=True)
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    run(main)
