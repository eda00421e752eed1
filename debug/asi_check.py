# SPDX-License-Identifier: GPL-2.0
"""Check ASI's restricted address spaces against their invariants (drgn script).

In the guest, on the running kernel; or on a dump (make vmcore):

    drgn -q -k -s build/out-asi/vmlinux debug/asi_check.py [--max-lines N] [--verbose]
    drgn -q -c build/vmcore/vmcore -s build/vmcore/vmlinux debug/asi_check.py

Walks every present leaf of the global nonsensitive pgd (both halves) and of
each per-mm restricted pgd of an mm some task uses (its user half, and any
kernel-half slot that is not the global one's; a userspace-class space's
user half is its mm's own memory, so instead each of its top-level user
entries must be the mm's), compares each leaf with the
unrestricted tables (init_mm for the global space, the mm's own pgd for a
per-mm one: its local-map slots are shared with that pgd, so for them only
the checks on the page and the slot apply) and classifies the pages it maps
by where the leaf is:

  image       [_text, _end) through the high kernel mapping
  vmalloc     the vmalloc area          modules     the modules area
  percpu      the first percpu chunk    direct map  the rest of the direct map
  vmemmap     the struct pages (copied for memory that is online): their
              memblock-allocated (PageReserved) pages are no violation
  entry area  the CPU entry area and the ESPFIX64 stacks, shared with
              init_mm: the entry area's first-chunk percpu pages (GDT, TSS,
              entry and exception stacks) and the image's read-only IDT are
              no violation; ESPFIX64 maps each CPU's stack page many times
  user        a per-mm user half        other       anywhere else
  local map   the top-level entry of a per-mm space's per-CPU slots
              (asi_map_local_page()): a page the process may read, mapped
              for one copy; no violation but a free page (0 pages once no
              copy is running)
  io          a page that is not RAM: pfn >= max_pfn, no struct page, or not
              "System RAM" in /proc/iomem (ioremap, MMIO); attributes only,
              and only uncached
  page table  a page that is itself one of the restricted page tables

Violations, one per page unless said otherwise:

  free page mapped              a mapped RAM page is free: in a free buddy
                                block or on a per-CPU list. asi_alloc=freelist
                                maps nonsensitive blocks whole, so pages on the
                                nonsensitive lists are no violation there
  freed image page mapped       an image page that is not PageReserved: init
                                memory, the .brk tail, __smp_locks and section
                                gaps go to the page allocator
  sensitive page mapped         a zsmalloc page (compressed user memory of
                                zram and zswap), whatever its block or flag;
                                freelist: the page's pageblock is sensitive,
                                or the page is PG_asi_lent (exempt: the
                                percpu first chunk, mapped whole, also
                                through an alias such as a
                                vmap'd IRQ stack, and PageReserved pages
                                through the direct map, which are counted);
                                pageflag: neither the page nor its compound
                                head is PG_asi_nonsensitive and it is not
                                PageReserved
  reserved page in nonsensitive block
                                (freelist) the direct map maps a PageReserved
                                page of a nonsensitive block: memblock memory
                                (initrd, swiotlb, firmware tables, boot-time
                                huge pages) that nobody allocated as
                                nonsensitive; only wholly free or page-allocator
                                blocks may become nonsensitive
  page without struct page      the direct map maps a pfn with no memmap
  differs from unrestricted     (per leaf) the unrestricted tables map the
                                leaf's range elsewhere or with other effective
                                PRESENT, RW, USER, NX, PWT, PCD, PAT or
                                encryption bits, or only part of it
  not mapped unrestricted       (per leaf) nothing there unrestricted
  user half not the mm's        (per top-level slot) a userspace-class space's
                                user entry differs from its mm's: not mirrored
  local-map slot misused        (per leaf) a leaf in the local-map entry
                                of the global space, beyond the last CPU's
                                slot, larger than 4K, user-accessible or
                                global (it would outlive the switch to
                                another space)
  cacheable io mapped           (per leaf) an io page mapped with a cache
                                mode other than UC or UC- (the kernel's PAT
                                table, __pte2cachemode_tbl): a CPU may read
                                it speculatively, and device memory can hold
                                user data. MTRRs are not read: UC- under a
                                write-combining MTRR passes here
  unreadable page table         (per table) a restricted table cannot be read
  nonsensitive block not mapped (freelist, per pageblock) not wholly mapped in
                                the restricted direct map, each page to itself
                                (a free page may be unmapped, as debug_pagealloc
                                does; an allocated one if the unrestricted
                                direct map lacks it too; a PG_asi_lent one
                                must be)
  nonsensitive page not mapped  (pageflag) PG_asi_nonsensitive (itself or its
                                head), refcount > 0, not mapped to itself
                                (pageflag: this, and a free or sensitive
                                page mapped through the direct map, counts
                                only if still so when read live again)

Neighbours with the same problem share a line (kind, space, class, virtual
range, count), described by their first page; at most --max-lines (50) lines
are printed. The running kernel runs on while it is read, so there a scan
that finds anything is repeated a second later and only what both scans saw
counts; the rest is reported as transient. A lent page found mapped
(freelist) must also be so when read live, twice 0.2 s apart, with no
flip or lend completed meanwhile: a process that keeps freeing and faulting
memory, such as this one, has the same pages freed and lent again between
a scan's page-table walk and its memmap snapshot. So a live check sees
violations that last, not one that is gone by the recheck (a dump sees
the moment it was taken). A dump is scanned once. Then
come the violations by kind, the spaces walked, the pages mapped per class,
the pages the direct map's reserved exemption let pass, first-chunk percpu
pages mapped elsewhere (the IRQ stacks), the restricted direct map's size
and, last,

    asi_check: <mode>: N violations (checked X leaves, Y pages)

--verbose adds each class's mapped ranges (at most --max-lines per class)
and the scan times. Page tables are read a table at a time and struct pages
a section at a time (MemMap), and a table reached again through another
entry is walked once (Scan._subtree(): ESPFIX64's 65,536 leaves are 32 of
one PTE table; --walk-all walks it each time, and must print the same): a
scan of a 1 GiB TCG guest takes about 6 s (16 s walking every leaf).

Exit status: the number of violations, at most 100 (0: every invariant
holds); 2 when ASI is off (the message says "ASI is off"), the kernel has
no debug info or the arguments are bad.
"""
import argparse
import bisect
import itertools
import sys
import time
from typing import Callable

from drgn import FaultError, Object
from drgn.helpers.linux.list import list_for_each_entry

from asi_drgn_common import (ENC, FREE_NS, FREE_PCP, GLOBAL_BIT, LEVEL_NAMES, NX, PAGE_SHIFT,
                             PAGE_SIZE,
                             PAT_4K, PCD, PRESENT, PTRS, PWT, RW, USER, Layout, MemMap, asi_pgd,
                             asi_vm_events, attr_names, has, human, is_leaf, is_live, leaf_attrs,
                             leaf_phys, leaf_phys_base, lookup, read_table, require_asi,
                             restricted_spaces, run, summary, system_ram, table_va)

prog = globals()["prog"]

# Violation kinds, in the order their lines are printed.
FREE = "free page mapped"
IMAGE = "freed image page mapped"
SENS = "sensitive page mapped"
NOPAGE = "page without struct page"
DIFF = "differs from unrestricted"
UNMAPPED = "not mapped unrestricted"
BADTABLE = "unreadable page table"
NS_BLOCK = "page of nonsensitive block not mapped"
NS_PAGE = "nonsensitive page not mapped"
RESV_NS = "reserved page in nonsensitive block"
USER_HALF = "user half not the mm's"
LOCAL = "local-map slot misused"
CACHED_IO = "cacheable io mapped"
KINDS = (FREE, IMAGE, SENS, RESV_NS, NOPAGE, DIFF, UNMAPPED, USER_HALF, LOCAL, CACHED_IO, BADTABLE,
         NS_BLOCK, NS_PAGE)
UNITS = {DIFF: "leaf", UNMAPPED: "leaf", USER_HALF: "slot", LOCAL: "leaf", CACHED_IO: "leaf",
         BADTABLE: "table"}
# enum page_cache_mode: the two a CPU makes no speculative load from.
UC_MINUS, UC = 2, 3
PLURAL = {"leaf": "leaves"}

REGIONS = ("image", "vmalloc", "modules", "percpu", "direct map", "vmemmap", "entry area", "user",
           "local map", "other")
CLASSES = REGIONS[:6] + ("io", "page table") + REGIONS[6:]
GLOBAL = "global"

# One byte per pfn (Scan.info): what the checks need to know about a page.
MEMMAP, RAM, RESERVED, NONSENS, FREE_OK, FREE_BAD, PGTABLE, PERCPU = 1, 2, 4, 8, 16, 32, 64, 128
# Verdict codes (verdict_table()): 0 fine, 1 fine by the direct map's
# reserved exemption, 2 + index into KINDS a violation.
OK, EXEMPT = 0, 1
# Class codes (CLASS_OF): the leaf's region, io, page table.
AS_REGION, AS_IO, AS_PGTABLE = 0, 1, 2
CLASS_OF = bytes(AS_IO if not b & MEMMAP or not b & RAM else AS_PGTABLE if b & PGTABLE
                 else AS_REGION for b in range(256))
PERCPU_OF = bytes(b & PERCPU for b in range(256))
# What the upper levels of a walk leave to a leaf, as one int (inherit()):
# RW and USER while every upper entry allows them, NX once one sets it.
ACC0 = RW | USER
LEAF, TABLE = "leaf", "table"


def verdict(mode: str, region: str, b: int) -> int | str:
    """What the page with info byte b, mapped through region, violates."""
    if not b & MEMMAP:
        return NOPAGE if region == "direct map" else OK
    if not b & RAM:
        return OK                      # io: attributes only
    if region == "image":
        return OK if b & RESERVED else IMAGE
    if region == "vmemmap" and b & RESERVED:
        return OK                      # struct pages memblock allocated at boot
    if b & FREE_BAD:
        return FREE
    if region == "local map":
        return OK                      # a page the process may read, for one copy
    if region == "entry area" and b & (PERCPU | RESERVED):
        return OK                      # per-CPU entry state, the image's read-only IDT
    if mode == "freelist":
        if region == "percpu" or b & PERCPU:
            return OK                  # the first chunk, or an alias of it
        if b & NONSENS:
            return RESV_NS if region == "direct map" and b & RESERVED else OK
    elif b & NONSENS or (b & RESERVED and region != "direct map"):
        return OK
    return EXEMPT if region == "direct map" and b & RESERVED else SENS


def verdict_table(mode: str, region: str) -> bytes:
    codes = []
    for b in range(256):
        v = verdict(mode, region, b)
        codes.append(v if isinstance(v, int) else 2 + KINDS.index(v))
    return bytes(codes)


def bytes_or(a: bytes, b: bytes) -> bytearray:
    """Bytewise a | b of two equally long byte strings, at C speed."""
    n = len(a)
    return bytearray((int.from_bytes(a, "little") | int.from_bytes(b, "little"))
                     .to_bytes(n, "little"))


def effective(layout: Layout, level: int, entry: int, acc: int) -> int:
    """leaf_attrs() with RW and USER as the upper levels allow and NX as they force."""
    a = leaf_attrs(layout, level, entry)
    return (a & ~(RW | USER)) | (a & acc & (RW | USER)) | (acc & NX)


def inherit(acc: int, entry: int) -> int:
    return (acc & ((entry & (RW | USER)) | NX)) | (entry & NX)


def differing(phys: int, attrs: int, uphys: int, uattrs: int) -> str:
    """'phys, rw' for what differs between a restricted and an unrestricted leaf."""
    names = ["phys"] if phys != uphys else []
    bits = attrs ^ uattrs
    names += [n for bit, n in ((PRESENT, "present"), (RW, "rw"), (USER, "user"), (NX, "nx"),
                               (PWT, "pwt"), (PCD, "pcd"), (PAT_4K, "pat"), (ENC, "enc"))
              if bits & bit]
    return ", ".join(names)


class Scan:
    """One pass over every restricted space: leaves, their pages, violations."""

    def __init__(self, mode, layout, walk_all=False):
        self.mode, self.layout = mode, layout
        self.mm = MemMap(prog)
        self.tables = {}
        self.pt_pfns = set()
        self.leaves = []          # (space, va, level, phys, region, attrs)
        # Tables met again (_subtree()): (space, va delta, leaves[lo:hi]) are
        # leaves too, at va + delta in space.
        self.repeats = []
        self.memo = None if walk_all else {}   # _subtree()
        # By PTE bits PAT, PCD, PWT: whether the kernel's PAT layout makes
        # the memory cacheable (__pte2cachemode_tbl).
        self.cacheable = [int(m) not in (UC_MINUS, UC) for m in prog["__pte2cachemode_tbl"]]
        self.found = {}           # (kind index, space, va, x) -> (size, region, pfn, detail)
        self.nleaves = self.npages = 0
        self.pages = dict.fromkeys(CLASSES, 0)
        self.exempt = 0
        self.aliases = 0          # first-chunk percpu pages reached elsewhere (IRQ stacks)
        self.direct = bytearray(self.mm.max_pfn)   # 1: mapped to itself, 2: elsewhere
        self.stats = {}
        self.list_of = {}         # buddy head pfn -> MemMap.buddy_list_of()
        self.spaces = []
        # The top-level entry of the local-map slots, and spaces that have them.
        self.local_slot = (layout.local[0] >> layout.level_shift(layout.top)) % PTRS
        self.local_spaces = self.local_leaves = 0
        lo = layout
        self.bounds = sorted({x for r in ([lo.image, lo.modules, (lo.vmalloc, lo.vmalloc_end),
                                           (lo.page_offset, lo.direct_end)] + lo.percpu)
                              for x in r})
        # Where Layout.region()'s answer may change.
        self.cuts = sorted({x for r in ([lo.image, lo.modules, (lo.vmalloc, lo.vmalloc_end),
                                         (lo.page_offset, lo.direct_end), lo.vmemmap, lo.cea,
                                         lo.espfix, lo.local_entry, (1 << 63, 1 << 63)]
                                        + lo.percpu) for x in r})

    # Page tables.
    def table(self, va):
        if va not in self.tables:
            try:
                self.tables[va] = read_table(self.layout, va)
            except FaultError:
                self.tables[va] = None
        return self.tables[va]

    def add(self, kind, space, va, x, size, region, pfn=None, detail=None):
        key = (KINDS.index(kind), space, va, x)
        self.found[key] = (size, region, pfn, detail)

    def walk(self, space, rpgd, upgd, slots):
        """Every present leaf of rpgd under slots, each checked against the
        unrestricted tables upgd, walked alongside."""
        top = self.layout.top
        self.pt_pfns.add((rpgd - self.layout.page_offset) >> PAGE_SHIFT)
        shadow = (TABLE, upgd, ACC0)
        self._walk(space, rpgd, top, 0, ACC0, shadow, slots)

    def _walk(self, space, rtab, level, base, racc, shadow, slots=None):
        layout = self.layout
        rents = self.table(rtab)
        if rents is None:
            va = layout.canonical(base)
            self.add(BADTABLE, space, va, level, 1 << layout.level_shift(level + 1),
                     layout.region(va), detail=f"table at {rtab:#x} (level {level})")
            return
        uents = None
        if shadow is not None and shadow[0] is TABLE:
            uents = self.table(shadow[1])
            if uents is None:
                shadow = None
        shift = layout.level_shift(level)
        present = [i for i, e in enumerate(rents) if e & PRESENT]
        if slots is not None:
            present = [i for i in present if i in slots]
        for i in present:
            e = rents[i]
            va = base | (i << shift)
            if uents is not None:
                ue = uents[i]
                if not ue & PRESENT:
                    sub = None
                elif is_leaf(ue, level):
                    sub = (LEAF, ue, level, shadow[2])
                else:
                    sub = (TABLE, table_va(layout, ue), inherit(shadow[2], ue))
            else:
                sub = shadow          # None, or a larger unrestricted leaf
            if is_leaf(e, level):
                self.leaf(space, va, level, e, racc, sub)
            elif level > 1:
                child = table_va(layout, e)
                self.pt_pfns.add((child - layout.page_offset) >> PAGE_SHIFT)
                self._subtree(space, child, level - 1, va, inherit(racc, e), sub)

    def _marks(self):
        return (len(self.leaves), len(self.repeats), len(self.found), self.nleaves, self.npages)

    def _subtree(self, space, tab, level, base, racc, shadow):
        """_walk() a table, or repeat what walking it gave the first time.
        ESPFIX64 maps its stack pages through one PTE table that all 512
        entries of a PMD table point to, and that PMD table from 4 PUD
        entries: 65,536 leaves, 60% of a scan's time if walked each time.
        The same table, reached with the same access bits over the same
        unrestricted table (or none), gives the same leaves and violations,
        only moved, where nothing depends on the address but its region:
        not in the direct map (Scan.direct) or the local map (its slot
        checks), not across a region boundary, not over a larger
        unrestricted leaf (compared at an offset)."""
        layout = self.layout
        va, span = layout.canonical(base), 1 << layout.level_shift(level + 1)
        region = None
        if self.memo is not None and (shadow is None or shadow[0] is TABLE):
            i = bisect.bisect_right(self.cuts, va)
            if i == len(self.cuts) or self.cuts[i] >= va + span:
                region = layout.region(va)
        if region in (None, "local map") or layout.page_offset <= va < layout.direct_end:
            self._walk(space, tab, level, base, racc, shadow)
            return
        key = (tab, level, racc, shadow)
        seen = self.memo.get(key)
        if seen is not None and seen[0] == region:
            self.repeat(space, base - seen[1], seen[2], seen[3])
            return
        before = self._marks()
        self._walk(space, tab, level, base, racc, shadow)
        self.memo.setdefault(key, (region, base, before, self._marks()))

    def repeat(self, space, delta, before, after):
        """Count again, delta bytes further and in space, what the walk
        between the _marks() before and after found."""
        l0, r0, f0, n0, p0 = before
        l1, r1, f1, n1, p1 = after
        self.nleaves += n1 - n0
        self.npages += p1 - p0
        self.repeats += [(space, delta, l0, l1)] + [(space, delta + d, lo, hi) for _, d, lo, hi
                                                   in self.repeats[r0:r1]]
        if f1 > f0:
            for key in list(itertools.islice(self.found, f0, f1)):
                k, _, va, x = key
                self.found[(k, space, va + delta, x)] = self.found[key]

    def leaf(self, space, va, level, e, racc, sub):
        layout = self.layout
        size = 1 << layout.level_shift(level)
        cva = layout.canonical(va)
        phys = leaf_phys_base(layout, level, e)
        attrs = effective(layout, level, e, racc)
        self.nleaves += 1
        self.npages += size >> PAGE_SHIFT
        region = layout.region(cva)
        problem, other = None, None
        if sub is None:
            problem = UNMAPPED
        elif sub[0] is LEAF:
            _, ue, ulevel, uacc = sub
            usize = 1 << layout.level_shift(ulevel)
            uphys = leaf_phys_base(layout, ulevel, ue) + (va & (usize - 1))
            uattrs = effective(layout, ulevel, ue, uacc)
            if uphys != phys or uattrs != attrs:
                problem = DIFF
                other = (f"{LEVEL_NAMES[ulevel]} {uphys:#x} {attr_names(uattrs)} "
                         f"(differ: {differing(phys, attrs, uphys, uattrs)})")
        else:
            problem, other = self.compare_under(sub, level - 1, va, size, phys, attrs)
        if region == "local map":
            # A slot holds one page for the kernel, in a per-mm space only,
            # and must not outlive a switch to another space.
            if space != GLOBAL:
                self.local_leaves += 1
            if space == GLOBAL or level != 1 or e & GLOBAL_BIT or attrs & USER \
                    or not layout.local[0] <= cva < layout.local[1]:
                self.add(LOCAL, space, cva, level, size, region, phys >> PAGE_SHIFT,
                         f"{LEVEL_NAMES[level]} entry {e:#x}")
        if problem:
            mine = f"restricted {LEVEL_NAMES[level]} {phys:#x} {attr_names(attrs)}"
            detail = mine + (f"; unrestricted {other}" if other else "")
            self.add(problem, space, cva, level, size, region, phys >> PAGE_SHIFT, detail)
        if space == GLOBAL and layout.page_offset <= cva < layout.direct_end:
            first = (cva - layout.page_offset) >> PAGE_SHIFT
            end = min(first + (size >> PAGE_SHIFT), self.mm.max_pfn)
            good = phys == (first << PAGE_SHIFT)
            self.direct[first:end] = (b"\1" if good else b"\2") * (end - first)
        self.leaves.append((space, cva, level, phys, region, attrs))

    def compare_under(self, sub, level, va, size, phys, attrs):
        """A restricted leaf over an unrestricted table: compare each
        unrestricted leaf below it. (kind or None, text about the unrestricted side)."""
        layout = self.layout
        covered, diffs, first = 0, 0, None

        def rec(tva, level, base, acc):
            nonlocal covered, diffs, first
            ents = self.table(tva)
            if ents is None:
                return
            shift = layout.level_shift(level)
            for i, ue in enumerate(ents):
                if not ue & PRESENT:
                    continue
                uva = base | (i << shift)
                if is_leaf(ue, level):
                    covered += 1 << shift
                    uattrs = effective(layout, level, ue, acc)
                    uphys = leaf_phys_base(layout, level, ue)
                    want = phys + (uva - va)
                    if uphys != want or uattrs != attrs:
                        diffs += 1
                        if first is None:
                            first = (f"+{uva - va:#x}: {LEVEL_NAMES[level]} {uphys:#x} "
                                     f"{attr_names(uattrs)}, "
                                     f"{differing(want, attrs, uphys, uattrs)} differ")
                elif level > 1:
                    rec(table_va(layout, ue), level - 1, uva, inherit(acc, ue))

        rec(sub[1], level, va, sub[2])
        if not covered:
            return UNMAPPED, None
        if diffs or covered < size:
            parts = [f"{human(size - covered)} of it not mapped"] if covered < size else []
            if first:
                parts.append(f"{diffs} smaller leaves differ, first {first}")
            return DIFF, "; ".join(parts)
        return None, None

    # Pages.
    def build_info(self, ram):
        """Scan.info: one byte per pfn below max_pfn (MEMMAP, RAM, ... bits)."""
        mm, n = self.mm, self.mm.max_pfn
        rbit = prog["PG_reserved"].value_()
        abit = prog["PG_asi_nonsensitive"].value_() if mm.pg_asi else None
        info = bytearray(n)
        lent = []
        for base, count in mm.sections():
            flags = mm.column(base, "flags")
            if self.mode == "pageflag" and abit is not None:
                row = bytearray(MEMMAP | (f >> rbit & 1) * RESERVED | (f >> abit & 1) * NONSENS
                                for f in flags)
                heads = mm.column(base, "compound_head")
                for i in [i for i, h in enumerate(heads) if h & 1]:
                    head = (heads[i] - 1 - mm.vmemmap) // mm.page_size
                    if base <= head < base + count:
                        hflags = flags[head - base]
                    elif mm.valid(head):
                        hflags = mm.field(head, "flags")
                    else:
                        continue
                    if hflags >> abit & 1:
                        row[i] |= NONSENS
            else:
                row = bytearray(MEMMAP | (f >> rbit & 1) * RESERVED for f in flags)
                if self.mode == "freelist" and abit is not None:
                    # PG_asi_lent, the same bit: lent to a sensitive request.
                    lent += [base + i for i, f in enumerate(flags) if f >> abit & 1]
            info[base:base + count] = row
        mask = bytearray(n)
        for start, end in ram:
            start, end = min(start, n), min(end, n)
            mask[start:end] = bytes((RAM,)) * (end - start)
        if self.mode == "freelist":
            set_ns = bytes(b | NONSENS for b in range(256))
            for b, flags in enumerate(mm.block_flags()):
                if flags is not None and flags & mm.pb_ns:
                    first = b << mm.block_order
                    last = min(first + mm.block_pages, n)
                    mask[first:last] = mask[first:last].translate(set_ns)
        self.free = mm.free_state()
        exempt_ns = self.mode == "freelist"
        to_bits = bytes(0 if not c else FREE_OK if exempt_ns and c & FREE_NS else FREE_BAD
                        for c in range(256))
        info = bytes_or(bytes_or(info, mask), self.free.translate(to_bits))
        for pfn in self.pt_pfns:
            if 0 <= pfn < n:
                info[pfn] |= PGTABLE
        # zsmalloc pages hold compressed user memory (zram, zswap): sensitive
        # whatever their block or flag says.
        shift = (mm.off["page_type"] % 8) * 8 + 24
        for base, count in mm.sections():
            types = mm.column(base, "page_type")
            for i in [i for i, w in enumerate(types) if (w >> shift) & 0xff == mm.pgty_zsmalloc]:
                info[base + i] &= ~NONSENS
        # A page lent from a nonsensitive block is sensitive until it is freed.
        for pfn in lent:
            info[pfn] &= ~NONSENS
        self.lent = set(lent)
        self.stats["pages lent from nonsensitive blocks"] = len(lent)
        set_percpu = bytes(b | PERCPU for b in range(256))
        for start, end in self.layout.percpu:
            first = max(0, (start - self.layout.page_offset) >> PAGE_SHIFT)
            last = min(n, (end - self.layout.page_offset + PAGE_SIZE - 1) >> PAGE_SHIFT)
            info[first:last] = info[first:last].translate(set_percpu)
        self.info = info

    def pieces(self, va, pfn, n, region):
        """(va, pfn, n, region) pieces of a leaf, split where a region (the
        image, the percpu first chunk, ...) begins or ends inside it."""
        end = va + (n << PAGE_SHIFT)
        bounds = self.bounds
        i = bisect.bisect_right(bounds, va)
        if n == 1 or i == len(bounds) or bounds[i] >= end:
            return [(va, pfn, n, region)]
        cuts = [va]
        while i < len(bounds) and bounds[i] < end:
            cuts.append(bounds[i])
            i += 1
        cuts.append(end)
        return [(a, pfn + ((a - va) >> PAGE_SHIFT), (b - a) >> PAGE_SHIFT, self.layout.region(a))
                for a, b in zip(cuts, cuts[1:])]

    def _tally(self):
        return dict(self.pages), self.exempt, self.aliases, len(self.found)

    def check_pages(self, verdicts):
        info, max_pfn, pages = self.info, self.mm.max_pfn, self.pages
        # What leaves[lo:hi] added, for the repeats: tallies at lo and hi.
        marks = {i for _, _, lo, hi in self.repeats for i in (lo, hi)}
        tallies = {}
        for i, (space, va, level, phys, region, attrs) in enumerate(self.leaves):
            if i in marks:
                tallies[i] = self._tally()
            n = 1 << (9 * (level - 1))
            cacheable = self.cacheable[(4 if attrs & PAT_4K else 0) | (2 if attrs & PCD else 0)
                                       | (1 if attrs & PWT else 0)]
            for pva, pfn, pn, preg in self.pieces(va, phys >> PAGE_SHIFT, n, region):
                table = verdicts[preg]
                k = max(0, min(pn, max_pfn - pfn))
                pages["io"] += pn - k
                chunk = info[pfn:pfn + k]
                classes = chunk.translate(CLASS_OF)
                # Device memory must be uncached: checked per leaf piece.
                if cacheable and (pn > k or AS_IO in classes):
                    self.add(CACHED_IO, space, pva, level, pn << PAGE_SHIFT, preg, pfn,
                             f"{LEVEL_NAMES[level]} {phys:#x} {attr_names(attrs)}")
                if not k:
                    continue
                if k == 1:
                    b = info[pfn]
                    cls = CLASS_OF[b]
                    if b & PERCPU and preg != "percpu":
                        self.aliases += 1
                    pages[preg if cls == AS_REGION else "io" if cls == AS_IO
                          else "page table"] += 1
                    code = table[b]
                    if code == EXEMPT:
                        self.exempt += 1
                    elif code:
                        self.add(KINDS[code - 2], space, pva, pfn, PAGE_SIZE, preg, pfn)
                    continue
                io, pt = classes.count(AS_IO), classes.count(AS_PGTABLE)
                pages["io"] += io
                pages["page table"] += pt
                pages[preg] += k - io - pt
                if preg != "percpu":
                    self.aliases += k - chunk.translate(PERCPU_OF).count(0)
                codes = chunk.translate(table)
                if codes.count(OK) == k:
                    continue
                self.exempt += codes.count(EXEMPT)
                for j, code in enumerate(codes):
                    if code > EXEMPT:
                        self.add(KINDS[code - 2], space, pva + (j << PAGE_SHIFT), pfn + j,
                                 PAGE_SIZE, preg, pfn + j)
        tallies[len(self.leaves)] = self._tally()
        keys = list(self.found)
        for space, delta, lo, hi in self.repeats:
            (p0, e0, a0, f0), (p1, e1, a1, f1) = tallies[lo], tallies[hi]
            for cls in pages:
                pages[cls] += p1[cls] - p0[cls]
            self.exempt += e1 - e0
            self.aliases += a1 - a0
            for key in keys[f0:f1]:
                k, _, va, x = key
                self.found[(k, space, va + delta, x)] = self.found[key]

    def all_leaves(self):
        """The leaves with the repeats' spelled out, in walk order."""
        out = self.leaves + [(space, va + delta, level, phys, region, attrs)
                             for space, delta, lo, hi in self.repeats
                             for _, va, level, phys, region, attrs in self.leaves[lo:hi]]
        order = {space: i for i, (space, _) in enumerate(self.spaces)}
        return sorted(out, key=lambda leaf: (order.get(leaf[0], 0), leaf[1]))

    def confirm_free_lists(self, verdicts):
        """A mapped free page of a nonsensitive block that the walk of the
        nonsensitive lists did not meet. Under stress the whole-list walks
        lose their way (the kernel edits the lists under them) and a hot
        page is free in the memmap snapshot but allocated by the walk, so
        such a page counts only on positive evidence: following its own
        links to its list's head (MemMap.buddy_list_of()) ends on a
        sensitive list. On a nonsensitive list, no longer free, or not
        followable, it is not counted (each case is reported). A free page
        that would be a violation on any list (its block is sensitive) is
        not looked at here and stays."""
        found = {"on a nonsensitive list": 0, "no longer free or not followable": 0}
        for key in [k for k in self.found if k[0] == KINDS.index(FREE)]:
            _, region, pfn, _ = self.found[key]
            if self.free[pfn] & (FREE_PCP | FREE_NS):
                continue
            if verdicts[region][(self.info[pfn] & ~FREE_BAD) | FREE_OK] != OK:
                continue        # a violation on any list
            head = (self.mm.buddy_of(pfn) or (None,))[0]
            if head not in self.list_of:
                self.list_of[head] = None if head is None else self.mm.buddy_list_of(head)
            where = self.list_of[head]
            if where is None or where[3] == 1:
                del self.found[key]
                found["on a nonsensitive list" if where else
                      "no longer free or not followable"] += 1
        for what, n in found.items():
            if n:
                self.stats[f"free pages of nonsensitive blocks the list walk missed, {what}"] = n

    # What must be mapped.
    def check_freelist_blocks(self):
        mm, state = self.mm, self.direct
        upgd, gpgd = prog["init_mm"].pgd.value_(), asi_pgd(prog)
        blocks = both = 0
        for b, flags in enumerate(mm.block_flags()):
            if flags is None or not flags & mm.pb_ns:
                continue
            blocks += 1
            first = b << mm.block_order
            last = min(first + mm.block_pages, mm.max_pfn)
            chunk = state[first:last]
            if chunk.count(1) == last - first:
                continue
            # A free page may be unmapped (debug_pagealloc unmaps free
            # pages everywhere); an allocated one only if the unrestricted
            # direct map lacks it too. The walk read the restricted entry
            # before the page's state: read it again after the unrestricted
            # one, as a page allocated in between is mapped there first.
            # Pages are reported one by one, so that only a page found
            # wrong by both scans counts, not a block with a different
            # page caught mid-allocation each time.
            for i, v in enumerate(chunk):
                pfn = first + i
                va = self.layout.page_offset + (pfn << PAGE_SHIFT)
                if v == 2:
                    self.add(NS_BLOCK, GLOBAL, va, pfn, PAGE_SIZE, "direct map", pfn,
                             "mapped to another physical page")
                elif v == 0 and pfn in self.lent:
                    continue
                elif v == 1 or self.free[pfn]:
                    both += v == 0
                elif (lookup(self.layout, upgd, va) is not None and
                      lookup(self.layout, gpgd, va) is None):
                    self.add(NS_BLOCK, GLOBAL, va, pfn, PAGE_SIZE, "direct map", pfn)
                else:
                    both += 1
        self.stats["nonsensitive blocks"] = blocks
        self.stats["nonsensitive-block pages free or unmapped in both tables"] = both

    def check_pageflag_pages(self):
        mm, state = self.mm, self.direct
        asi, head_bit = mm.pg_asi, mm.pg["head"]
        marked = dropped = 0
        for base, n in mm.sections():
            flags = mm.column(base, "flags")
            heads = mm.column(base, "compound_head")
            for i in [i for i, f in enumerate(flags) if f & asi]:
                pfn = base + i
                marked += 1
                if heads[i] & 1 or mm.field(pfn, "_refcount") <= 0:
                    continue
                nr = 1 << (flags[i + 1] & 0xff) if flags[i] & head_bit and i + 1 < n else 1
                for p in range(pfn, min(pfn + nr, base + n)):
                    if state[p] == 1:
                        continue
                    if not self.live_pageflag(NS_PAGE, p,
                                              self.layout.page_offset + (p << PAGE_SHIFT)):
                        dropped += 1
                        continue
                    self.add(NS_PAGE, GLOBAL, self.layout.page_offset + (p << PAGE_SHIFT),
                             p, PAGE_SIZE, "direct map", p)
        self.stats["PG_asi_nonsensitive pages"] = marked
        if dropped:
            self.stats["PG_asi_nonsensitive pages mapped or freed since the walk"] = dropped
        self.recheck_pageflag_mapped()

    def maps_to(self, pgd, va, pfn):
        """Whether va maps page pfn in the table at pgd, read live."""
        entry = lookup(self.layout, pgd, va)
        return entry is not None and \
            leaf_phys(self.layout, entry[0], entry[1], va) >> PAGE_SHIFT == pfn

    def live_pageflag(self, kind, pfn, va):
        """Whether page pfn, found at direct-map address va as kind (NS_PAGE,
        FREE or SENS), is still wrong when read live, in an order that a
        page changing meanwhile cannot pass. The walk read the restricted
        entry long before the memmap snapshot (minutes, under TCG and
        KASAN), and pageflag pages come and go all the time: an allocation
        marks, then maps; a free unmaps, then unmarks. NS_PAGE: marked and
        in use (its head) on both sides of a read of va that finds it not
        mapped to pfn, and still not when read last. FREE and SENS: wrong
        as the verdict saw it (unmarked; a free buddy head; a zsmalloc page)
        on both sides, and mapped to pfn both times. A read that faults
        keeps the finding."""
        prog, mm = self.mm.prog, self.mm
        gpgd = asi_pgd(prog)

        def wrong_state():
            page = mm.vmemmap + pfn * mm.page_size
            head = prog.read_u64(page + mm.off["compound_head"])
            hpage = head - 1 if head & 1 else page
            marked = bool(prog.read_u64(hpage + mm.off["flags"]) & mm.pg_asi)
            if kind == NS_PAGE:
                return marked and 0 < prog.read_u32(hpage + mm.off["_refcount"]) < 1 << 31
            pgty = mm.live_page_type(page)
            if pgty == mm.pgty_zsmalloc or not marked:
                return True
            return kind == FREE and pgty == mm.pgty_buddy

        def mapped():
            return self.maps_to(gpgd, va, pfn)

        try:
            if not wrong_state():
                return False
            m = mapped()
            if m == (kind == NS_PAGE):
                return False
            return wrong_state() and mapped() == m
        except FaultError:
            return True

    def recheck_pageflag_mapped(self):
        """Free and sensitive pages that the global walk found mapped
        through the direct map: counted only if live they are still so
        (see live_pageflag())."""
        dropped = 0
        for key in [k for k in self.found if KINDS[k[0]] in (FREE, SENS)]:
            _, space, va, _ = key
            _, region, pfn, _ = self.found[key]
            if space != GLOBAL or region != "direct map" or pfn is None:
                continue
            if not self.live_pageflag(KINDS[key[0]], pfn, va):
                del self.found[key]
                dropped += 1
        if dropped:
            self.stats["free or sensitive pages unmapped or marked since the walk"] = dropped

    def recheck_lent_mapped(self):
        """Lent pages that the global walk found mapped through the direct
        map (asi_alloc=freelist, live): counted only if, read live twice
        0.2 s apart, each is lent and mapped to itself both times while no
        memory left the restricted space (TLB flush and lend counters
        unchanged). The walk reads an entry long before the memmap snapshot:
        a page free, hence mapped, then and lent by the snapshot looks lent
        and mapped, and a process that frees and faults memory all the time
        (this one) can have the same pages lent again by the second scan. A
        lend marks the page before it unmaps it: only a read inside that
        window, twice, with the flush not yet counted, could pass as a
        violation. While memory keeps leaving, the findings stand. A page
        lent and mapped only for a while, through the walk and the snapshot
        but not through the recheck, is not reported: what this checks is
        a state that lasts, as a lent page held by a process does."""
        prog, mm = self.mm.prog, self.mm
        gpgd = asi_pgd(prog)
        keys = [k for k in self.found if KINDS[k[0]] == SENS and k[1] == GLOBAL
                and self.found[k][1] == "direct map" and self.found[k][2] in self.lent]
        if not keys:
            return
        items = ("ASI_TLB_FLUSH", "ASI_TLB_FLUSH_COALESCED", "ASI_LEND")

        def leaving():
            return sum(total for item, _, total in asi_vm_events(prog) if item in items)

        def lent_and_mapped(key):
            pfn, va = self.found[key][2], key[2]
            try:
                page = mm.vmemmap + pfn * mm.page_size
                return bool(prog.read_u64(page + mm.off["flags"]) & mm.pg_asi) and \
                    self.maps_to(gpgd, va, pfn)
            except FaultError:
                return True

        for _ in range(10):
            before = leaving()
            still = [k for k in keys if lent_and_mapped(k)]
            time.sleep(0.2)
            still = [k for k in still if lent_and_mapped(k)]
            if leaving() == before:
                break
        else:
            self.stats["lent pages found mapped, not rechecked: memory kept leaving"] = len(keys)
            return
        for key in set(keys) - set(still):
            del self.found[key]
        if len(still) < len(keys):
            self.stats["lent pages mapped, lent again or unmapped since the walk"] = \
                len(keys) - len(still)

    def check_user_half(self, space, rents, uents):
        """A userspace-class space shares its mm's user half: each top-level
        user entry must be the mm's (asi_set_user_pgtbl() mirrors them)."""
        if rents is None or uents is None:
            return
        size = 1 << self.layout.level_shift(self.layout.top)
        for i in range(PTRS // 2):
            if rents[i] != uents[i]:
                self.add(USER_HALF, space, i * size, 0, size, "user",
                         detail=f"entry {rents[i]:#x}, the mm's {uents[i]:#x}")

    def run(self, verdicts, ram):
        gpgd = asi_pgd(prog)
        upgd = prog["init_mm"].pgd.value_()
        self.spaces = [(GLOBAL, gpgd)]
        self.walk(GLOBAL, gpgd, upgd, None)
        half = PTRS // 2
        gents = self.table(gpgd) or (0,) * PTRS
        for space, rpgd, mm_pgd, cls in restricted_spaces(prog):
            self.spaces.append((space, rpgd))
            rents = self.table(rpgd)
            # The kernel half is the global one's, shared from the slots down;
            # a slot that is not must be walked too.
            own = {i for i in range(half, PTRS) if rents and rents[i] != gents[i]}
            if self.local_slot in own:
                self.local_spaces += 1
            user = set(range(half))
            if cls == "userspace":
                user = set()
                self.check_user_half(space, rents, self.table(mm_pgd))
            self.walk(space, rpgd, mm_pgd, user | own)
        self.build_info(ram)
        self.check_pages(verdicts)
        if self.mode == "freelist":
            self.confirm_free_lists(verdicts)
            self.check_freelist_blocks()
            if is_live(prog):
                self.recheck_lent_mapped()
        else:
            self.check_pageflag_pages()
        return self


# ---- Describing what was found ---------------------------------------------

class Describer:
    """Text about a page for the violation lines, computed for them only."""

    def __init__(self, scan, layout):
        self.scan, self.layout, self.mm = scan, layout, scan.mm
        self._areas = None
        # Section boundaries (linker symbols) and the variable _brk_end.
        self.marks = []
        for m in ("_text", "_etext", "__start_rodata", "__end_rodata",
                  "__end_rodata_hpage_align", "_sdata", "_edata", "__init_begin", "__init_end",
                  "__smp_locks", "__smp_locks_end", "__bss_start", "__bss_stop", "__brk_base",
                  "_end"):
            try:
                self.marks.append((prog.symbol(m).address, m))
            except LookupError:
                pass
        if has(prog, "_brk_end"):
            self.marks.append((prog["_brk_end"].value_(), "_brk_end"))
        self.marks.sort()

    def free_text(self, pfn):
        code = self.scan.free[pfn]
        if not code:
            return ""
        ns = "nonsensitive" if code & FREE_NS else "sensitive"
        if code & FREE_PCP:
            return f", free on a {ns} per-CPU list"
        mm, scan = self.mm, self.scan
        buddy = mm.buddy_of(pfn)
        if buddy is None:
            return f", free ({ns} list)"
        head, order = buddy
        text = f", free in buddy {head:#x} order {order}"
        where = None if code & FREE_NS else scan.list_of.get(head)
        if where is None:
            return text + f" ({ns} list)"
        zone, order, mt, s = where
        mt_name = mm.mt_names[mt] if mt < len(mm.mt_names) else f"type {mt}"
        return (text + f" (on the {'nonsensitive' if s else 'sensitive'} {mt_name} "
                f"order-{order} list of {zone})")

    def page(self, pfn):
        mm = self.mm
        if not mm.valid(pfn):
            return "no struct page"
        text = f"{mm.flag_names(mm.field(pfn, 'flags'))}, refcount {mm.field(pfn, '_refcount')}"
        head = mm.head_pfn(pfn)
        if head != pfn:
            text += f", tail of {head:#x}"
            if mm.field(head, "flags") & mm.pg_asi:
                text += " (PG_asi_nonsensitive)"
        text += self.free_text(pfn)
        if self.scan.info[pfn] & PERCPU:
            text += ", first percpu chunk"
        flags = mm.block_flags()[pfn >> mm.block_order]
        mt = flags & mm.mt_mask
        mt_name = mm.mt_names[mt] if mt < len(mm.mt_names) else f"type {mt}"
        return text + f"; block {mt_name}, {'nonsensitive' if flags & mm.pb_ns else 'sensitive'}"

    def image_part(self, va):
        i = bisect.bisect_right(self.marks, (va, "\x7f")) - 1
        return f"image after {self.marks[i][1]}" if i >= 0 else "image"

    def vmap_area(self, va):
        if self._areas is None:
            self._areas = []
            try:
                nodes, nr = prog["vmap_nodes"], prog["nr_vmap_nodes"].value_()
                for i in range(nr):
                    for area in list_for_each_entry("struct vmap_area",
                                                    nodes[i].busy.head.address_of_(), "list"):
                        self._areas.append((area.va_start.value_(), area.va_end.value_(),
                                            area.vm.value_()))
            except (KeyError, LookupError, FaultError):
                pass
            self._areas.sort()
        i = bisect.bisect_right(self._areas, (va, 1 << 64, 0)) - 1
        if i < 0 or not self._areas[i][0] <= va < self._areas[i][1]:
            return "no vmap area"
        start, end, vm = self._areas[i]
        if not vm:
            return f"vmap area {start:#x} +{human(end - start)}, no vm_struct (vm_map_ram)"
        vm = Object(prog, "struct vm_struct *", vm)
        caller = vm.caller.value_()
        try:
            sym = prog.symbol(caller)
            where = f"{sym.name}+{caller - sym.address:#x}"
        except LookupError:
            where = f"{caller:#x}"
        return (f"vmap area {start:#x} +{human(end - start)}, {vm.nr_pages.value_()} pages, "
                f"flags {vm.flags.value_():#x}, from {where}")

    def line(self, kind, region, va, pfn, detail):
        if detail is not None:
            return detail
        text = f"pfn {pfn:#x}: {self.page(pfn)}"
        if region == "image":
            text = f"{self.image_part(va)}; {text}"
        elif region in ("vmalloc", "modules"):
            text = f"{text}; {self.vmap_area(va)}"
        return text


def groups(found: dict, part: Callable) -> list:
    """Merge found into [kind, space, region, va, end, count, key] runs of
    neighbours: same kind, space, region and part(region, va), adjacent
    addresses."""
    out, last = [], None
    for key in sorted(found):
        k, space, va, _ = key
        size, region = found[key][:2]
        g = out[-1] if out else None
        where = part(region, va)
        if g and g[0] == k and g[1] == space and g[2] == region and g[4] == va \
                and where == last:
            g[4] += size
            g[5] += 1
        else:
            out.append([k, space, region, va, va + size, 1, key])
        last = where
    return out


def print_ranges(scan: "Scan", limit: int) -> None:
    """--verbose: the mapped ranges of each region, per space, at most limit
    lines each (ESPFIX64 alone maps 65,536 single pages, each its own range)."""
    runs = []
    for space, va, level, _, region, _ in scan.all_leaves():
        size = 1 << scan.layout.level_shift(level)
        r = runs[-1] if runs else None
        if r and r[0] == space and r[1] == region and r[3] == va:
            r[3] += size
            r[4].add(LEVEL_NAMES[level])
        else:
            runs.append([space, region, va, va + size, {LEVEL_NAMES[level]}])
    for region in REGIONS:
        rs = [r for r in runs if r[1] == region]
        if not rs:
            continue
        print(f"ranges: {region}: {len(rs)}, {human(sum(r[3] - r[2] for r in rs))}")
        for space, _, start, end, sizes in rs[:limit]:
            print(f"  {space:<10} {start:#018x}-{end - 1:#018x} {human(end - start):>10} "
                  f"[{','.join(sorted(sizes))}]")
        if len(rs) > limit:
            print(f"  ... {len(rs) - limit} more ranges (--max-lines)")


def main(argv: list) -> None:
    p = argparse.ArgumentParser(prog="asi_check.py", description=summary(__doc__),
                                epilog="Exit status: the number of violations (at most 100); "
                                       "2 when ASI is off, the kernel has no debug info or "
                                       "the arguments are bad.")
    p.add_argument("--max-lines", type=int, default=50, metavar="N",
                   help="violation lines printed, and with --verbose ranges per region "
                        "(default 50); all are counted")
    p.add_argument("--verbose", "-v", action="store_true",
                   help="also print each region's mapped ranges and the scan times")
    p.add_argument("--walk-all", action="store_true",
                   help="walk a table again each time an entry points to it, not once "
                        "(slower; the output must be the same: a check of the checker)")
    try:
        args = p.parse_args(argv)
    except SystemExit as e:
        sys.exit(e.code and "asi_check: bad arguments (see above)")
    if args.max_lines < 0:
        sys.exit("asi_check: --max-lines wants a number >= 0")
    mode = require_asi(prog, "asi_check")
    layout = Layout(prog)
    verdicts = {region: verdict_table(mode, region) for region in REGIONS}
    ram = system_ram(prog)

    t0 = time.monotonic()
    scan = Scan(mode, layout, args.walk_all).run(verdicts, ram)
    found = scan.found
    times = [time.monotonic() - t0]
    transient = set()
    if found and is_live(prog):
        time.sleep(1)
        t0 = time.monotonic()
        scan = Scan(mode, layout, args.walk_all).run(verdicts, ram)
        times.append(time.monotonic() - t0)
        transient = found.keys() ^ scan.found.keys()
        found = {key: scan.found[key] for key in found.keys() & scan.found.keys()}

    describe = Describer(scan, layout)
    lines = groups(found, lambda region, va:
                   describe.image_part(va) if region == "image" else None)
    for k, space, region, va, end, count, key in lines[:args.max_lines]:
        kind = KINDS[k]
        unit = UNITS.get(kind, "page")
        size, _, pfn, detail = found[key]
        what = f"{count} {unit if count == 1 else PLURAL.get(unit, unit + 's')}"
        print(f"{kind:<29} {space:<10} {region:<10} {va:#018x}-{end - 1:#018x} {what:>11}: "
              f"{describe.line(kind, region, va, pfn, detail)}")
    if len(lines) > args.max_lines:
        print(f"... {len(lines) - args.max_lines} more lines (--max-lines)")
    if transient:
        examples = ", ".join(f"{KINDS[k]} {space} {va:#x}"
                             for k, space, va, _ in sorted(transient)[:3])
        print(f"transient: {len(transient)} seen in one of two scans only, not counted "
              f"(e.g. {examples})")
    if args.verbose:
        print_ranges(scan, args.max_lines)
        print("scan times: " + ", ".join(f"{t:.1f} s" for t in times))

    by_kind = [0] * len(KINDS)
    for k, *_ in found:
        by_kind[k] += 1
    if found:
        print("violations: " + ", ".join(f"{n} {kind}" for kind, n in zip(KINDS, by_kind) if n))
    print("spaces: " + ", ".join(f"{space} (pgd {pgd:#x})" for space, pgd in scan.spaces))
    print(f"{'class':<12} {'pages':>9} {'size':>11}")
    for cls in CLASSES:
        n = scan.pages[cls]
        # Pages in slots have their own line below.
        if n or cls not in ("user", "local map", "other"):
            print(f"{cls:<12} {n:>9} {human(n << PAGE_SHIFT):>11}")
    what = "in sensitive blocks" if mode == "freelist" else "without PG_asi_nonsensitive"
    print(f"reserved exemption: {scan.exempt} PageReserved pages {what} mapped through the "
          "direct map, not counted")
    print(f"percpu aliases: {scan.aliases} pages of the first percpu chunk mapped outside it "
          "(the CPU entry area, vmap'd IRQ stacks), checked as what maps them")
    print("restricted direct map: " + ", ".join(
        [f"{len(scan.direct) - scan.direct.count(0)} pages mapped"]
        + [f"{n} {what}" for what, n in scan.stats.items()]))
    print(f"local map: {scan.local_spaces} spaces with slot tables, "
          f"{scan.local_leaves} pages in slots (copies in progress)")
    print(f"asi_check: {mode}: {len(found)} violations "
          f"(checked {scan.nleaves} leaves, {scan.npages} pages)")
    sys.exit(min(len(found), 100))


if __name__ == "__main__":
    run(main)
