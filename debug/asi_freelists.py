# SPDX-License-Identifier: GPL-2.0
"""Inspect the ASI page allocator of a kernel: free lists by sensitivity,
pageblocks, single pages (drgn script).

In the guest, on the running kernel; or on a dump (make vmcore):

    drgn -q -k -s build/out-asi/vmlinux debug/asi_freelists.py lists
    drgn -q -k -s build/out-asi/vmlinux debug/asi_freelists.py blocks --zone DMA32
    drgn -q -k -s build/out-asi/vmlinux debug/asi_freelists.py pfn 0x1234 phys:0x1234000
    drgn -q -c build/vmcore/vmcore -s build/vmcore/vmlinux debug/asi_freelists.py lists

lists   (the default) per populated zone, free-list entries by order, for
        each migratetype and sensitivity ("/ns" rows: nonsensitive), like
        /proc/pagetypeinfo; the free pages of each sensitivity, the zone's
        nr_free_nonsensitive counter, and entries whose pageblock's
        sensitivity disagrees with their list ("misplaced"); then the
        page allocator's ASI event counters (flips, TLB flushes, ...).
blocks  one character per pageblock, 64 to a line after the line's first
        pfn: the migratetype's initial, uppercase for a sensitive block,
        lowercase for a nonsensitive one, '-' without a memmap; then counts.
pfn     for each pfn (a number, or phys:<address>): page flags, refcount,
        whether it is free (and in which buddy), its pageblock's migratetype
        and sensitivity, PG_asi_nonsensitive, and whether the restricted
        (global nonsensitive) tables map its direct-map address.

Exit status: 0 on success; 2 when ASI is off, the kernel has no debug
info or the arguments are bad.
"""
import argparse
import sys

from asi_drgn_common import (PAGE_SHIFT, TRANSITION_EVENTS, Layout, MemMap, asi_pgd,
                             asi_vm_events, describe, has, human, require_asi, run, summary,
                             zone_span, zones)

prog = globals()["prog"]
LIST_CAP = 100000   # entries counted per list, as /proc/pagetypeinfo caps


def cmd_lists(mm: MemMap, mode: str, args: argparse.Namespace) -> None:
    free_list = prog.type("struct free_area").member("free_list").type
    nr_mt, nr_sens = free_list.length, free_list.type.length
    blocks = mm.block_flags()
    ns_item = prog["NR_FREE_NONSENSITIVE"].value_()
    print(f"mode: {mode}")
    for zone in zones(prog):
        start, end = zone_span(zone)
        orders = zone.free_area.type_.length
        print(f"\nzone {zone.name.string_().decode()} (pfn {start:#x}-{end:#x})")
        print(f"{'type':<16}" + "".join(f"{o:>7}" for o in range(orders)))
        pages, misplaced = [0] * nr_sens, 0
        for sens in range(nr_sens):
            for mt in range(nr_mt):
                row = []
                for order in range(orders):
                    head = zone.free_area[order].free_list[mt][sens].address_of_().value_()
                    pfns = mm.list_pfns(head, cap=LIST_CAP)
                    row.append(len(pfns))
                    pages[sens] += len(pfns) << order
                    for pfn in pfns:
                        flags = blocks[pfn >> mm.block_order] if mm.valid(pfn) else None
                        want = mode == "freelist" and flags is not None and flags & mm.pb_ns
                        misplaced += flags is None or bool(want) != bool(sens)
                name = mm.mt_names[mt] + ("/ns" if sens else "")
                print(f"{name:<16}" + "".join(f"{n:>7}" for n in row))
        counter = zone.vm_stat[ns_item].counter.value_()
        for sens, what in enumerate(("sensitive", "nonsensitive")[:nr_sens]):
            print(f"{what} free: {pages[sens]} pages ({human(pages[sens] << PAGE_SHIFT)})")
        print(f"nr_free_nonsensitive (zone counter): {counter}")
        print(f"misplaced entries: {misplaced}")
    total = prog["vm_zone_stat"][ns_item].counter.value_()
    print(f"\nnr_free_nonsensitive (/proc/vmstat): {total}")
    if mode == "pageflag" and has(prog, "asi_pageflag_queued"):
        print(f"pageflag: {prog['asi_pageflag_queued'].counter.value_()} pages queued for unmap")
    for enumerator, name, total in asi_vm_events(prog):
        if not enumerator.startswith(TRANSITION_EVENTS):
            print(f"{name:<36} {total:>12}")


def cmd_blocks(mm: MemMap, mode: str, args: argparse.Namespace) -> None:
    chosen = [z for z in zones(prog)
              if not args.zone or args.zone.lower() == z.name.string_().decode().lower()]
    if not chosen:
        names = ", ".join(z.name.string_().decode() for z in zones(prog))
        sys.exit(f"asi_freelists: no populated zone '{args.zone}' (zones: {names})")
    blocks = mm.block_flags()
    legend = ", ".join(f"{mm.block_char(mt)}/{mm.block_char(mt | mm.pb_ns)} {name}"
                       for mt, name in enumerate(mm.mt_names))
    print(f"mode: {mode}; one character per pageblock of {mm.block_pages} pages")
    print(f"legend: {legend}; uppercase sensitive, lowercase nonsensitive, - no memmap")
    for zone in chosen:
        start, end = zone_span(zone)
        first = start >> mm.block_order
        last = min((end + mm.block_pages - 1) >> mm.block_order, len(blocks))
        print(f"\nzone {zone.name.string_().decode()} (pfn {start:#x}-{end:#x})")
        counts = {}
        for line in range(first, last, 64):
            s = "".join(mm.block_char(blocks[b]) for b in range(line, min(line + 64, last)))
            for c in s:
                counts[c] = counts.get(c, 0) + 1
            print(f"{line << mm.block_order:#010x} {s}")
        ns = sum(n for c, n in counts.items() if c.islower())
        sens = sum(n for c, n in counts.items() if c.isupper())
        print(f"blocks: {sens} sensitive, {ns} nonsensitive, {counts.get('-', 0)} without memmap; "
              + " ".join(f"{c}:{n}" for c, n in sorted(counts.items())))


def parse_pfn(text: str) -> int:
    try:
        if text.startswith("phys:"):
            return int(text[5:], 0) >> PAGE_SHIFT
        return int(text, 0)
    except ValueError:
        sys.exit(f"asi_freelists: '{text}' is not a pfn or phys:<address>")


def cmd_pfn(mm: MemMap, mode: str, args: argparse.Namespace) -> None:
    layout = Layout(prog)
    pgd = asi_pgd(prog)
    pfns = [parse_pfn(t) for t in args.pfns]
    for pfn in pfns:
        if not mm.valid(pfn):
            sys.exit(f"asi_freelists: pfn {pfn:#x} has no struct page (max_pfn {mm.max_pfn:#x})")
    blocks = mm.block_flags()
    zone_of = {}
    for zone in zones(prog):
        zone_of[zone_span(zone)] = zone.name.string_().decode()
    for pfn in pfns:
        zname = next((n for (s, e), n in zone_of.items() if s <= pfn < e), "none")
        print(f"pfn {pfn:#x} (phys {pfn << PAGE_SHIFT:#x}, zone {zname})")
        if not mm.online(pfn):
            print("  section: offline (its memmap is poisoned)")
            print_block_and_mapping(mm, blocks, layout, pgd, pfn)
            continue
        print(f"  flags: {mm.flag_names(mm.field(pfn, 'flags'))}")
        print(f"  refcount: {mm.field(pfn, '_refcount')}")
        head = mm.head_pfn(pfn)
        if head != pfn:
            print(f"  compound: tail of {head:#x}")
        elif mm.field(pfn, "flags") & mm.pg["head"]:
            print(f"  compound: head, order {mm.field(pfn + 1, 'flags') & 0xff}")
        buddy = mm.buddy_of(pfn)
        if buddy and buddy[0] == pfn:
            print(f"  free: yes, buddy head, order {buddy[1]}")
        elif buddy:
            print(f"  free: yes, in buddy {buddy[0]:#x} order {buddy[1]}")
        elif mm.field(pfn, "_refcount") > 0:
            print("  free: no (allocated)")
        else:
            print("  free: no buddy, refcount 0 (a tail page, on a per-cpu list or being freed)")
        if mm.pg_asi:
            own = "yes" if mm.field(pfn, "flags") & mm.pg_asi else "no"
            line = f"  PG_asi_nonsensitive: {own}"
            if head != pfn:
                line += f" (head {'yes' if mm.field(head, 'flags') & mm.pg_asi else 'no'})"
            print(line)
        print_block_and_mapping(mm, blocks, layout, pgd, pfn)


def print_block_and_mapping(mm: MemMap, blocks: list, layout: Layout, pgd: int,
                            pfn: int) -> None:
    """The pfn's pageblock (migratetype, sensitivity) and its restricted
    direct-map entry."""
    first = pfn & ~(mm.block_pages - 1)
    flags = blocks[pfn >> mm.block_order]
    mt = flags & mm.mt_mask
    mt_name = mm.mt_names[mt] if mt < len(mm.mt_names) else f"type {mt}"
    sens = "nonsensitive" if flags & mm.pb_ns else "sensitive"
    print(f"  pageblock {first:#x}-{first + mm.block_pages - 1:#x}: {mt_name}, {sens}")
    va = layout.page_offset + (pfn << PAGE_SHIFT)
    print(f"  restricted: {describe(layout, pgd, va)}")


def main(argv: list) -> None:
    p = argparse.ArgumentParser(prog="asi_freelists.py", description=summary(__doc__))
    sub = p.add_subparsers(dest="cmd")
    sub.add_parser("lists", help="free-list entries by order, migratetype and sensitivity")
    b = sub.add_parser("blocks", help="one character per pageblock")
    b.add_argument("--zone", metavar="NAME", help="only this zone (e.g. DMA32)")
    f = sub.add_parser("pfn", help="describe pages")
    f.add_argument("pfns", nargs="+", metavar="PFN")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        sys.exit(e.code and "asi_freelists: bad arguments (see above)")
    mode = require_asi(prog, "asi_freelists")
    mm = MemMap(prog)
    {"lists": cmd_lists, None: cmd_lists, "blocks": cmd_blocks, "pfn": cmd_pfn}[args.cmd](
        mm, mode, args)


if __name__ == "__main__":
    run(main)
