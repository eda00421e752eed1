# SPDX-License-Identifier: GPL-2.0
"""Inspect ASI restricted page tables of a live kernel (drgn script).

Run inside the guest, against /proc/kcore and the build's vmlinux:

    drgn -q -k -s build/out-asi/vmlinux debug/asi_pgtable.py ranges
    drgn -q -k -s build/out-asi/vmlinux debug/asi_pgtable.py addr _stext phys:0x1234000

ranges  walks a restricted pgd and prints its mapped ranges grouped by kind
        (text, data, modules, vmalloc, percpu, direct map, other).
addr    tells, for each address, whether it is mapped in the restricted and in
        the unrestricted tables. An address is a number (a virtual address),
        phys:<number> (its direct-map address) or a kernel symbol.

--mm PID --class kvm|userspace picks a process's restricted space instead of
the global nonsensitive one. Exit status: 0 on success; 2 when ASI is
off, the requested space does not exist or the arguments are bad.
"""
import argparse
import struct
import sys

from drgn import FaultError, Object
from drgn.helpers.linux.pid import find_task

PAGE_SHIFT = 12
PTRS = 512
PRESENT, PSE, NX = 1 << 0, 1 << 7, 1 << 63
PFN_MASK = ((1 << 52) - 1) & ~((1 << PAGE_SHIFT) - 1)
LEVEL_NAMES = {1: "4K", 2: "2M", 3: "1G"}

prog = globals()["prog"]


class Layout:
    """Where things live in the kernel half of this kernel's address space."""

    def __init__(self):
        self.l5 = bool(prog["__pgtable_l5_enabled"].value_()) \
            if _has("__pgtable_l5_enabled") else False
        self.top = 5 if self.l5 else 4
        self.page_offset = prog["page_offset_base"].value_()
        self.vmalloc = prog["vmalloc_base"].value_()
        self.vmalloc_end = self.vmalloc + ((12800 if self.l5 else 32) << 40)
        self.direct_end = self.page_offset + (prog["max_pfn"].value_() << PAGE_SHIFT)
        sym = lambda name: prog.symbol(name).address
        self.text = (sym("_text"), sym("_etext"))
        self.image = (sym("_text"), sym("_end"))
        self.kernel_map = 0xFFFFFFFF80000000
        self.percpu = []
        if _has("pcpu_unit_size"):
            unit = prog["pcpu_unit_size"].value_()
            start = sym("__per_cpu_start")
            offsets = prog["__per_cpu_offset"]
            for cpu in range(prog["nr_cpu_ids"].value_()):
                base = offsets[cpu].value_() + start
                self.percpu.append((base, base + unit))

    def kind(self, va):
        if self.text[0] <= va < self.text[1]:
            return "text"
        if self.image[0] <= va < self.image[1]:
            return "data"
        if va >= self.kernel_map:
            return "modules"
        if any(s <= va < e for s, e in self.percpu):
            return "percpu"
        if self.vmalloc <= va < self.vmalloc_end:
            return "vmalloc"
        if self.page_offset <= va < self.direct_end:
            return "direct map"
        return "other"

    def canonical(self, va):
        bits = 57 if self.l5 else 48
        if va & (1 << (bits - 1)):
            va |= ((1 << 64) - 1) ^ ((1 << bits) - 1)
        return va

    def level_shift(self, level):
        return PAGE_SHIFT + 9 * (level - 1)


def _has(name):
    try:
        prog[name]
        return True
    except KeyError:
        return False


def read_table(layout, table_va):
    return struct.unpack("<512Q", prog.read(table_va, 8 * PTRS))


def is_leaf(entry, level):
    return bool(entry & PRESENT) and (level == 1 or (level <= 3 and entry & PSE))


def table_va(layout, entry):
    return layout.page_offset + (entry & PFN_MASK)


def walk(layout, pgd_va, first=PTRS // 2, last=PTRS):
    """Yield (va, level, entry) for every leaf under the kernel half of pgd."""
    def rec(tva, level, base, lo, hi):
        entries = read_table(layout, tva)
        shift = layout.level_shift(level)
        for i in range(lo, hi):
            e = entries[i]
            if not e & PRESENT:
                continue
            va = base | (i << shift)
            if is_leaf(e, level):
                yield layout.canonical(va), level, e
            elif level > 1:
                yield from rec(table_va(layout, e), level - 1, va, 0, PTRS)
    yield from rec(pgd_va, layout.top, 0, first, last)


def lookup(layout, pgd_va, va):
    """(level, entry) of the leaf translating va, or None."""
    tva = pgd_va
    for level in range(layout.top, 0, -1):
        idx = (va >> layout.level_shift(level)) & (PTRS - 1)
        e = read_table(layout, tva)[idx]
        if not e & PRESENT:
            return None
        if is_leaf(e, level):
            return level, e
        tva = table_va(layout, e)
    return None


def restricted_pgd(args):
    asi_on = _has("asi_global_nonsensitive") and \
        prog["asi_global_nonsensitive"].pgd.value_() != 0
    if not asi_on:
        sys.exit("asi_pgtable: ASI is off in this kernel (boot with asi=on)")
    if args.mm is None:
        return prog["asi_global_nonsensitive"].pgd.value_(), "global nonsensitive"
    task = find_task(prog, args.mm)
    if not task or not task.mm:
        sys.exit(f"asi_pgtable: no process {args.mm} with an mm")
    class_id = prog[f"ASI_CLASS_{args.asi_class.upper()}"].value_()
    asi = task.mm.asi[class_id]
    if not asi:
        sys.exit(f"asi_pgtable: process {args.mm} has no {args.asi_class} restricted space")
    return asi.pgd.value_(), f"pid {args.mm} {args.asi_class}"


def human(size):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{size} B"
        size /= 1024


def cmd_ranges(layout, pgd, what, args):
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
    for kind in ("text", "data", "modules", "vmalloc", "percpu", "direct map", "other"):
        rs = kinds.get(kind, [])
        total = sum(e - s for s, e, _, _ in rs)
        print(f"{kind}: {len(rs)} ranges, {human(total)}")
        shown = rs if args.all else rs[:args.limit]
        for s, e, _, sizes in shown:
            print(f"  {s:#018x}-{e:#018x} {human(e - s):>10} [{','.join(sorted(sizes))}]")
        if len(shown) < len(rs):
            print(f"  ... {len(rs) - len(shown)} more (--all shows them)")


def parse_addr(layout, text):
    if text.startswith("phys:"):
        return layout.page_offset + int(text[5:], 0)
    try:
        return int(text, 0)
    except ValueError:
        try:
            return prog.symbol(text).address
        except LookupError:
            sys.exit(f"asi_pgtable: '{text}' is not a number, phys:<number> or a kernel symbol")


def describe(layout, pgd, va):
    try:
        hit = lookup(layout, pgd, va)
    except FaultError as err:
        return f"unreadable ({err})"
    if not hit:
        return "not mapped"
    level, e = hit
    size = 1 << layout.level_shift(level)
    phys = (e & PFN_MASK & ~(size - 1)) + (va & (size - 1))
    rw = "rw" if e & 2 else "ro"
    nx = "nx" if e & NX else "x"
    return f"mapped ({LEVEL_NAMES[level]} page, phys {phys:#x}, {rw} {nx})"


def cmd_addr(layout, pgd, what, args):
    unrestricted = prog["init_mm"].pgd.value_()
    for text in args.addresses:
        va = parse_addr(layout, text)
        print(f"{text} = {va:#x} [{layout.kind(va)}]")
        print(f"  restricted ({what}): {describe(layout, pgd, va)}")
        print(f"  unrestricted: {describe(layout, unrestricted, va)}")


def main(argv):
    p = argparse.ArgumentParser(prog="asi_pgtable.py", description=__doc__.split("\n")[0])
    p.add_argument("--mm", type=int, metavar="PID", help="use this process's restricted space")
    p.add_argument("--class", dest="asi_class", choices=("kvm", "userspace"), default="kvm")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("ranges", help="mapped ranges of the restricted space, by kind")
    r.add_argument("--limit", type=int, default=8, help="ranges listed per kind (default 8)")
    r.add_argument("--all", action="store_true", help="list every range")
    a = sub.add_parser("addr", help="is each address mapped, restricted and unrestricted?")
    a.add_argument("addresses", nargs="+")
    args = p.parse_args(argv)

    layout = Layout()
    pgd, what = restricted_pgd(args)
    {"ranges": cmd_ranges, "addr": cmd_addr}[args.cmd](layout, pgd, what, args)


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise
