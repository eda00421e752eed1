# SPDX-License-Identifier: GPL-2.0
"""Inspect ASI restricted page tables of a kernel (drgn script).

In the guest, on the running kernel; or on a dump (make vmcore):

    drgn -q -k -s build/out-asi/vmlinux debug/asi_pgtable.py ranges
    drgn -q -k -s build/out-asi/vmlinux debug/asi_pgtable.py addr _stext phys:0x1234000
    drgn -q -c build/vmcore/vmcore -s build/vmcore/vmlinux debug/asi_pgtable.py ranges

ranges  walks a restricted pgd and prints its mapped ranges grouped by kind
        (text, data, modules, vmalloc, percpu, direct map, other).
addr    tells, for each address, whether it is mapped in the restricted and in
        the unrestricted tables. An address is a number (a virtual address),
        phys:<number> (its direct-map address) or a kernel symbol.

--mm PID --class kvm|userspace picks a process's restricted space instead of
the global nonsensitive one. Exit status: 0 on success; 2 when ASI is
off, the kernel has no debug info, the requested space does not exist or
the arguments are bad.
"""
import argparse
import sys

from drgn.helpers.linux.pid import find_task

from asi_drgn_common import (LEVEL_NAMES, Layout, asi_pgd, describe, human, require_asi, run,
                             summary, walk)

prog = globals()["prog"]


def restricted_pgd(args: argparse.Namespace) -> tuple:
    """(pgd, what to call it) of the restricted space args ask for."""
    require_asi(prog, "asi_pgtable", need_mode=False)
    pgd = asi_pgd(prog)
    if args.mm is None:
        return pgd, "global nonsensitive"
    task = find_task(prog, args.mm)
    if not task or not task.mm:
        sys.exit(f"asi_pgtable: no process {args.mm} with an mm")
    class_id = prog[f"ASI_CLASS_{args.asi_class.upper()}"].value_()
    asi = task.mm.asi[class_id]
    if not asi:
        sys.exit(f"asi_pgtable: process {args.mm} has no {args.asi_class} restricted space")
    return asi.pgd.value_(), f"pid {args.mm} {args.asi_class}"


def cmd_ranges(layout: Layout, pgd: int, what: str, args: argparse.Namespace) -> None:
    # Merge leaves into ranges contiguous in virtual address and of one kind.
    ranges = []
    for va, level, _ in walk(layout, pgd):
        size = 1 << layout.level_shift(level)
        kind = layout.kind(va)
        if ranges and ranges[-1][1] == va and ranges[-1][2] == kind:
            ranges[-1][1] += size
            ranges[-1][3].add(LEVEL_NAMES[level])
        else:
            ranges.append([va, va + size, kind, {LEVEL_NAMES[level]}])
    print(f"restricted space: {what} (pgd {pgd:#x}, {layout.top}-level paging)")
    kinds = {}
    for r in ranges:
        kinds.setdefault(r[2], []).append(r)
    for kind in ("text", "data", "modules", "vmalloc", "percpu", "direct map", "vmemmap",
                 "other"):
        rs = kinds.get(kind, [])
        total = sum(e - s for s, e, _, _ in rs)
        print(f"{kind}: {len(rs)} ranges, {human(total)}")
        shown = rs if args.all else rs[:args.limit]
        for s, e, _, sizes in shown:
            print(f"  {s:#018x}-{e:#018x} {human(e - s):>10} [{','.join(sorted(sizes))}]")
        if len(shown) < len(rs):
            print(f"  ... {len(rs) - len(shown)} more (--all shows them)")


def parse_addr(layout: Layout, text: str) -> int:
    if text.startswith("phys:"):
        return layout.page_offset + int(text[5:], 0)
    try:
        return int(text, 0)
    except ValueError:
        try:
            return prog.symbol(text).address
        except LookupError:
            sys.exit(f"asi_pgtable: '{text}' is not a number, phys:<number> or a kernel symbol")


def cmd_addr(layout: Layout, pgd: int, what: str, args: argparse.Namespace) -> None:
    unrestricted = prog["init_mm"].pgd.value_()
    for text in args.addresses:
        va = parse_addr(layout, text)
        print(f"{text} = {va:#x} [{layout.kind(va)}]")
        print(f"  restricted ({what}): {describe(layout, pgd, va)}")
        print(f"  unrestricted: {describe(layout, unrestricted, va)}")


def main(argv: list) -> None:
    p = argparse.ArgumentParser(prog="asi_pgtable.py", description=summary(__doc__))
    p.add_argument("--mm", type=int, metavar="PID", help="use this process's restricted space")
    p.add_argument("--class", dest="asi_class", choices=("kvm", "userspace"), default="kvm")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("ranges", help="mapped ranges of the restricted space, by kind")
    r.add_argument("--limit", type=int, default=8, help="ranges listed per kind (default 8)")
    r.add_argument("--all", action="store_true", help="list every range")
    a = sub.add_parser("addr", help="is each address mapped, restricted and unrestricted?")
    a.add_argument("addresses", nargs="+")
    args = p.parse_args(argv)

    pgd, what = restricted_pgd(args)
    layout = Layout(prog)
    {"ranges": cmd_ranges, "addr": cmd_addr}[args.cmd](layout, pgd, what, args)


if __name__ == "__main__":
    run(main)
