# SPDX-License-Identifier: GPL-2.0
"""Check the ASI page allocator's invariants on a live kernel (drgn script).

Run inside the guest, against /proc/kcore and the build's vmlinux:

    drgn -q -k -s build/out-asi/vmlinux debug/asi_check.py [--max-lines N]

Reads the whole restricted (global nonsensitive) direct map, every pageblock's
flags and every struct page, and reports each violation of:

asi_alloc=freelist
  sensitive page mapped          a page of a sensitive pageblock is mapped
                                 and is not PageReserved
  nonsensitive block not mapped  a nonsensitive pageblock is not wholly
                                 mapped, each page to its own physical page
asi_alloc=pageflag
  sensitive page mapped          mapped, not PG_asi_nonsensitive (itself or
                                 its compound head), not PageReserved
  nonsensitive page not mapped   PG_asi_nonsensitive (itself or its head),
                                 refcount > 0, not mapped to itself

A mapped page without a struct page counts as a sensitive page mapped. Pages
count one each, blocks one each; neighbours with the same problem share a
line, described by their first page, and at most --max-lines (50) lines are
printed. The kernel runs on while it is read, so a scan that finds anything
is repeated a second later and only what both scans saw counts; the rest is
reported as transient. The last two lines are

    restricted direct map: M pages mapped, B nonsensitive blocks
                           (pageflag: F PG_asi_nonsensitive pages)
    asi_check: <mode>: N violations (checked X pages)

Exit status: the number of violations, at most 100 (0: every invariant
holds); 2 when ASI is off (the message says "ASI is off") or the arguments
are bad.
"""
import argparse
import sys
import time

from asi_drgn_common import (PAGE_SHIFT, Layout, MemMap, asi_pgd, describe, direct_map_state,
                             require_asi, run)

prog = globals()["prog"]
SENS_MAPPED = "sensitive page mapped"
NS_BLOCK = "nonsensitive block not mapped"
NS_PAGE = "nonsensitive page not mapped"


def mapped_pfns(state, first, last):
    chunk = state[first:last]
    if chunk.count(0) == len(chunk):
        return []
    return [first + i for i, v in enumerate(chunk) if v]


def scan_freelist(mm, state, stats):
    found = set()
    reserved = mm.pg["reserved"]
    for b, flags in enumerate(mm.block_flags()):
        first = b << mm.block_order
        last = min(first + mm.block_pages, mm.max_pfn)
        if flags is not None and flags & mm.pb_ns:
            stats["nonsensitive blocks"] += 1
            if state[first:last].count(1) != last - first:
                found.add((NS_BLOCK, first))
            continue
        for pfn in mapped_pfns(state, first, last):
            if flags is None or not mm.field(pfn, "flags") & reserved:
                found.add((SENS_MAPPED, pfn))
    return found


def scan_pageflag(mm, state, stats):
    found = set()
    asi, reserved, head_bit = mm.pg_asi, mm.pg["reserved"], mm.pg["head"]
    for base, n in mm.sections():
        flags = mm.column(base, "flags")
        heads = mm.column(base, "compound_head")
        for pfn in mapped_pfns(state, base, base + n):
            i = pfn - base
            f = flags[i]
            if heads[i] & 1:
                f |= mm.field(mm.head_pfn(pfn), "flags") & asi
            if not f & (asi | reserved):
                found.add((SENS_MAPPED, pfn))
        for i in (i for i, f in enumerate(flags) if f & asi):
            pfn = base + i
            stats["PG_asi_nonsensitive pages"] += 1
            if heads[i] & 1 or mm.field(pfn, "_refcount") <= 0:
                continue
            nr = 1 << (flags[i + 1] & 0xff) if flags[i] & head_bit and i + 1 < n else 1
            found.update((NS_PAGE, p) for p in range(pfn, min(pfn + nr, base + n))
                         if state[p] != 1)
    for base, n in mm.holes():
        found.update((SENS_MAPPED, pfn) for pfn in mapped_pfns(state, base, base + n))
    return found


def scan(mode, layout, pgd):
    """(violations as a set of (kind, pfn), MemMap, direct-map state, stats)."""
    mm = MemMap(prog)
    state = direct_map_state(layout, pgd, mm.max_pfn)
    stats = {"pages mapped": len(state) - state.count(0)}
    stats["nonsensitive blocks" if mode == "freelist" else "PG_asi_nonsensitive pages"] = 0
    found = (scan_freelist if mode == "freelist" else scan_pageflag)(mm, state, stats)
    stats["checked"] = sum(n for _, n in mm.sections())
    return found, mm, state, stats


def page_summary(mm, pfn):
    if not mm.valid(pfn):
        return "no struct page"
    text = f"{mm.flag_names(mm.field(pfn, 'flags'))}, refcount {mm.field(pfn, '_refcount')}"
    head = mm.head_pfn(pfn)
    if head != pfn:
        text += f", tail of {head:#x}"
        if mm.field(head, "flags") & mm.pg_asi:
            text += " (PG_asi_nonsensitive)"
    if mm.is_buddy(pfn):
        text += f", free buddy order {mm.field(pfn, 'private')}"
    flags = mm.block_flags()[pfn >> mm.block_order]
    mt = flags & mm.mt_mask
    mt_name = mm.mt_names[mt] if mt < len(mm.mt_names) else f"type {mt}"
    return text + f"; block {mt_name}, {'nonsensitive' if flags & mm.pb_ns else 'sensitive'}"


def detail(mm, state, layout, pgd, kind, pfn):
    if kind == NS_BLOCK:
        last = min(pfn + mm.block_pages, mm.max_pfn)
        chunk = state[pfn:last]
        return (f"{chunk.count(0)} of {last - pfn} pages unmapped, "
                f"{chunk.count(2)} mapped to another physical page")
    va = layout.page_offset + (pfn << PAGE_SHIFT)
    return f"{page_summary(mm, pfn)}; restricted: {describe(layout, pgd, va)}"


def runs(found, block_pages):
    """Merge (kind, pfn) into [kind, first, count] runs of neighbours."""
    out = []
    for kind, pfn in sorted(found):
        step = block_pages if kind == NS_BLOCK else 1
        if out and out[-1][0] == kind and out[-1][1] + out[-1][2] * step == pfn:
            out[-1][2] += 1
        else:
            out.append([kind, pfn, 1])
    return out


def main(argv):
    p = argparse.ArgumentParser(prog="asi_check.py", description=__doc__.split("\n")[0])
    p.add_argument("--max-lines", type=int, default=50, metavar="N",
                   help="violation lines printed (default 50); all are counted")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        sys.exit(e.code and "asi_check: bad arguments (see above)")
    mode = require_asi(prog, "asi_check")
    layout, pgd = Layout(prog), asi_pgd(prog)

    found, mm, state, stats = scan(mode, layout, pgd)
    transient = set()
    if found:
        time.sleep(1)
        again, mm, state, stats = scan(mode, layout, pgd)
        transient = found ^ again
        found &= again

    lines = runs(found, mm.block_pages)
    for kind, pfn, count in lines[:args.max_lines]:
        if kind == NS_BLOCK:
            where = f"block {pfn:#x}-{pfn + count * mm.block_pages - 1:#x}"
            what = f"{count} block{'s' if count > 1 else ''}"
        else:
            where = f"pfn {pfn:#x}" + (f"-{pfn + count - 1:#x}" if count > 1 else "")
            what = f"{count} page{'s' if count > 1 else ''}"
        print(f"{kind}: {where} ({what}): {detail(mm, state, layout, pgd, kind, pfn)}")
    if len(lines) > args.max_lines:
        print(f"... {len(lines) - args.max_lines} more lines (--max-lines)")
    if transient:
        examples = ", ".join(f"{kind} {pfn:#x}" for kind, pfn in sorted(transient)[:3])
        print(f"transient: {len(transient)} seen in one of two scans only, not counted "
              f"(e.g. {examples})")
    checked = stats.pop("checked")
    print("restricted direct map: " + ", ".join(f"{n} {what}" for what, n in stats.items()))
    print(f"asi_check: {mode}: {len(found)} violations (checked {checked} pages)")
    sys.exit(min(len(found), 100))


if __name__ == "__main__":
    run(main)
