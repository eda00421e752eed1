# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the ASI drgn scripts in debug/ (not a script itself).

Page tables: Layout (where things live in the kernel half), walk(),
walk_range(), lookup() and describe() over a pgd. Memory: asi_mode() (how the
page allocator runs ASI) and MemMap, which reads sections, pageblock flags
and struct pages in bulk: under TCG one drgn Object per page is far too slow.
The scripts import this from their own directory, where drgn puts it on
sys.path; everything takes the drgn Program, or a Layout or MemMap holding it.
"""
import struct
import sys

from drgn import FaultError, TypeKind, offsetof, sizeof
from drgn.helpers.linux.nodemask import for_each_online_node

PAGE_SHIFT = 12
PAGE_SIZE = 1 << PAGE_SHIFT
PTRS = 512
PRESENT, PSE, NX = 1 << 0, 1 << 7, 1 << 63
PFN_MASK = ((1 << 52) - 1) & ~((1 << PAGE_SHIFT) - 1)
LEVEL_NAMES = {1: "4K", 2: "2M", 3: "1G"}


def has(prog, name):
    try:
        prog[name]
        return True
    except KeyError:
        return False


def run(main):
    """Run main(argv); a sys.exit("message") prints it and exits with 2."""
    try:
        main(sys.argv[1:])
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise


def human(size):
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{size} B"
        size /= 1024


# ---- Page tables ---------------------------------------------------------

class Layout:
    """Where things live in the kernel half of this kernel's address space."""

    def __init__(self, prog):
        self.prog = prog
        self.l5 = bool(prog["__pgtable_l5_enabled"].value_()) \
            if has(prog, "__pgtable_l5_enabled") else False
        self.top = 5 if self.l5 else 4
        self.bits = 57 if self.l5 else 48
        self.page_offset = prog["page_offset_base"].value_()
        self.vmalloc = prog["vmalloc_base"].value_()
        self.vmalloc_end = self.vmalloc + ((12800 if self.l5 else 32) << 40)
        self.direct_end = self.page_offset + (prog["max_pfn"].value_() << PAGE_SHIFT)
        sym = lambda name: prog.symbol(name).address
        self.text = (sym("_text"), sym("_etext"))
        self.image = (sym("_text"), sym("_end"))
        self.kernel_map = 0xFFFFFFFF80000000
        self.percpu = []
        if has(prog, "pcpu_unit_size"):
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
        if va & (1 << (self.bits - 1)):
            va |= ((1 << 64) - 1) ^ ((1 << self.bits) - 1)
        return va

    def level_shift(self, level):
        return PAGE_SHIFT + 9 * (level - 1)


def read_table(layout, table_va):
    return struct.unpack("<512Q", layout.prog.read(table_va, 8 * PTRS))


def is_leaf(entry, level):
    return bool(entry & PRESENT) and (level == 1 or (level <= 3 and entry & PSE))


def table_va(layout, entry):
    return layout.page_offset + (entry & PFN_MASK)


def walk(layout, pgd_va, first=PTRS // 2, last=PTRS):
    """Yield (va, level, entry) for every leaf under pgd slots [first, last)."""
    shift = layout.level_shift(layout.top)
    yield from _walk(layout, pgd_va, first << shift, last << shift)


def walk_range(layout, pgd_va, start, end):
    """Yield (va, level, entry) for every leaf overlapping [start, end)."""
    lo = start & ((1 << layout.bits) - 1)
    yield from _walk(layout, pgd_va, lo, lo + (end - start))


def _walk(layout, pgd_va, lo, hi):
    """Leaves overlapping [lo, hi), addresses without their sign extension."""
    def rec(tva, level, base):
        entries = read_table(layout, tva)
        shift = layout.level_shift(level)
        first = (max(lo, base) - base) >> shift
        last = min(PTRS, ((min(hi, base + (PTRS << shift)) - base - 1) >> shift) + 1)
        for i in range(first, last):
            e = entries[i]
            if not e & PRESENT:
                continue
            va = base | (i << shift)
            if is_leaf(e, level):
                yield layout.canonical(va), level, e
            elif level > 1:
                yield from rec(table_va(layout, e), level - 1, va)
    yield from rec(pgd_va, layout.top, 0)


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


def leaf_phys(layout, level, entry, va):
    size = 1 << layout.level_shift(level)
    return (entry & PFN_MASK & ~(size - 1)) + (va & (size - 1))


def describe(layout, pgd, va):
    """'not mapped' or 'mapped (4K page, phys 0x..., rw nx)'."""
    try:
        hit = lookup(layout, pgd, va)
    except FaultError as err:
        return f"unreadable ({err})"
    if not hit:
        return "not mapped"
    level, e = hit
    rw = "rw" if e & 2 else "ro"
    nx = "nx" if e & NX else "x"
    phys = leaf_phys(layout, level, e, va)
    return f"mapped ({LEVEL_NAMES[level]} page, phys {phys:#x}, {rw} {nx})"


def asi_pgd(prog):
    """The global nonsensitive pgd, or None when ASI is off."""
    if not has(prog, "asi_global_nonsensitive"):
        return None
    return prog["asi_global_nonsensitive"].pgd.value_() or None


def direct_map_state(layout, pgd, max_pfn):
    """bytearray, one byte per pfn below max_pfn: 0 when the restricted tables
    do not map its direct-map address, 1 when they map it to that pfn, 2 when
    to another physical page."""
    state = bytearray(max_pfn)
    for va, level, e in walk_range(layout, pgd, layout.page_offset, layout.direct_end):
        n = 1 << (9 * (level - 1))
        pfn = (va - layout.page_offset) >> PAGE_SHIFT
        good = leaf_phys(layout, level, e, va) >> PAGE_SHIFT == pfn
        end = min(pfn + n, max_pfn)
        state[pfn:end] = (b"\1" if good else b"\2") * (end - pfn)
    return state


# ---- Page allocator ------------------------------------------------------

def static_key_on(prog, name):
    return has(prog, name) and prog[name].key.enabled.counter.value_() > 0


def asi_mode(prog):
    """'off', 'freelist', 'pageflag', or 'none' (ASI on, no allocator mode)."""
    if asi_pgd(prog) is None:
        return "off"
    if static_key_on(prog, "asi_freelist_key"):
        return "freelist"
    if static_key_on(prog, "asi_pageflag_key"):
        return "pageflag"
    return "none"


def require_asi(prog, script):
    """The allocator mode; exits (status 2) when ASI is off or has no mode."""
    mode = asi_mode(prog)
    if mode == "off":
        sys.exit(f"{script}: ASI is off in this kernel (boot with asi=on)")
    if mode == "none":
        sys.exit(f"{script}: ASI is on but the page allocator has no ASI mode "
                 "(kernel without asi_freelist_key/asi_pageflag_key?)")
    return mode


def vmcoreinfo(prog):
    """The kernel's VMCOREINFO as a dict, e.g. 'NUMBER(SECTION_SIZE_BITS)': '27'."""
    try:
        text = prog.read(prog["vmcoreinfo_data"].value_(),
                         prog["vmcoreinfo_size"].value_()).decode(errors="replace")
    except (KeyError, FaultError):
        return {}
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def zones(prog):
    """Every populated struct zone."""
    if has(prog, "node_data"):
        pgdats = [prog["node_data"][nid] for nid in for_each_online_node(prog)]
    else:
        pgdats = [prog["contig_page_data"].address_of_()]
    for pgdat in pgdats:
        for i in range(pgdat.node_zones.type_.length):
            zone = pgdat.node_zones[i]
            if zone.present_pages.value_():
                yield zone


def zone_span(zone):
    start = zone.zone_start_pfn.value_()
    return start, start + zone.spanned_pages.value_()


class MemMap:
    """Sections, pageblock flags and struct pages of all pfns below max_pfn,
    read a section at a time (SPARSEMEM, VMEMMAP for struct pages)."""

    def __init__(self, prog):
        self.prog = prog
        info = vmcoreinfo(prog)
        self.section_shift = int(info.get("NUMBER(SECTION_SIZE_BITS)", 27)) - PAGE_SHIFT
        self.per_section = 1 << self.section_shift
        self.max_pfn = prog["max_pfn"].value_()
        # pageblock_order is a constant (9 with THP on x86) unless
        # CONFIG_HUGETLB_PAGE_SIZE_VARIABLE makes it a variable.
        self.block_order = prog["pageblock_order"].value_() \
            if has(prog, "pageblock_order") else 9
        self.block_pages = 1 << self.block_order
        self.pb_bits = prog["NR_PAGEBLOCK_BITS"].value_()
        self.mt_mask = (1 << (prog["PB_migrate_end"].value_() + 1)) - 1
        self.pb_ns = 1 << prog["PB_nonsensitive"].value_() if has(prog, "PB_nonsensitive") else 0
        names = prog["migratetype_names"]
        self.mt_names = [names[i].string_().decode() for i in range(names.type_.length)]

        page = prog.type("struct page")
        self.page_size = sizeof(page)
        self.vmemmap = prog["vmemmap"].value_()
        self.off = {m: offsetof(page, m) for m in
                    ("flags", "compound_head", "private", "page_type", "_refcount", "buddy_list")}
        self.pg = {n: 1 << prog["PG_" + n].value_() for n in ("reserved", "head")}
        self.pg_asi = 1 << prog["PG_asi_nonsensitive"].value_() \
            if has(prog, "PG_asi_nonsensitive") else 0
        self.nr_pageflags = prog["__NR_PAGEFLAGS"].value_()
        self.pgty_buddy = prog["PGTY_buddy"].value_() if has(prog, "PGTY_buddy") else 0xf0

        ms = prog["mem_section"]
        self.extreme = ms.type_.kind == TypeKind.POINTER
        self.per_root = PAGE_SIZE // sizeof(prog.type("struct mem_section")) \
            if self.extreme else 1
        self.has_mem_map = 1 << (prog["SECTION_HAS_MEM_MAP_BIT"].value_()
                                 if has(prog, "SECTION_HAS_MEM_MAP_BIT") else 1)
        self._sections = {}
        self._pages = {}
        self._blocks = None

    # Sections and pageblocks.
    def section(self, nr):
        """struct mem_section * of section nr, or None if it has no memmap."""
        if nr not in self._sections:
            root, idx = divmod(nr, self.per_root)
            ms, s = self.prog["mem_section"], None
            if not self.extreme:
                s = ms[root][idx].address_of_()
            elif ms and ms[root]:
                s = ms[root] + idx
            if s is not None and not s.section_mem_map.value_() & self.has_mem_map:
                s = None
            self._sections[nr] = s
        return self._sections[nr]

    def valid(self, pfn):
        return 0 <= pfn < self.max_pfn and self.section(pfn >> self.section_shift) is not None

    def sections(self):
        """(first pfn, number of pfns) of every section with a memmap."""
        for nr in range((self.max_pfn + self.per_section - 1) >> self.section_shift):
            if self.section(nr) is not None:
                base = nr << self.section_shift
                yield base, min(self.per_section, self.max_pfn - base)

    def holes(self):
        """(first pfn, number of pfns) of every section without a memmap."""
        for nr in range((self.max_pfn + self.per_section - 1) >> self.section_shift):
            if self.section(nr) is None:
                base = nr << self.section_shift
                yield base, min(self.per_section, self.max_pfn - base)

    def block_flags(self):
        """List, one entry per pageblock below max_pfn: its flag bits, or
        None if its section has no memmap. Read once per MemMap."""
        if self._blocks is not None:
            return self._blocks
        per_sec = self.per_section >> self.block_order
        nblocks = (self.max_pfn + self.block_pages - 1) >> self.block_order
        out = [None] * nblocks
        for base, _ in self.sections():
            usage = self.section(base >> self.section_shift).usage
            bitmap = int.from_bytes(self.prog.read(usage.pageblock_flags.address_,
                                                   per_sec * self.pb_bits // 8), "little")
            first = base >> self.block_order
            for i in range(min(per_sec, nblocks - first)):
                out[first + i] = (bitmap >> (i * self.pb_bits)) & ((1 << self.pb_bits) - 1)
        self._blocks = out
        return out

    def block_char(self, flags):
        """One character: migratetype initial, lowercase when nonsensitive."""
        if flags is None:
            return "-"
        mt = flags & self.mt_mask
        c = self.mt_names[mt][0].upper() if mt < len(self.mt_names) else "?"
        return c.lower() if flags & self.pb_ns else c

    # Struct pages.
    def flag_names(self, flags):
        """'PG_a|PG_b' for the page-flag bits of flags, one (the first) name
        per bit although enum pageflags has aliases; '(none)' if none."""
        if not hasattr(self, "_flag_names"):
            self._flag_names = {}
            for name, value in self.prog.type("enum pageflags").enumerators:
                if value < self.nr_pageflags and not name.startswith("__"):
                    self._flag_names.setdefault(value, name)
        names = [n for bit, n in sorted(self._flag_names.items()) if flags >> bit & 1]
        return "|".join(names) or "(none)"

    def section_pages(self, base):
        """memoryview of u64 words over the struct pages of the section at pfn base."""
        if base not in self._pages:
            n = min(self.per_section, self.max_pfn - base)
            data = self.prog.read(self.vmemmap + base * self.page_size, n * self.page_size)
            self._pages[base] = memoryview(data).cast("Q")
        return self._pages[base]

    def field(self, pfn, name):
        """A struct page field of pfn (u64 words; 32-bit fields masked)."""
        q = self.section_pages(pfn & ~(self.per_section - 1))
        off = self.off[name]
        word = q[(pfn & (self.per_section - 1)) * (self.page_size // 8) + off // 8]
        if name in ("page_type", "_refcount"):
            word = (word >> ((off % 8) * 8)) & 0xffffffff
            if name == "_refcount" and word & 0x80000000:
                word -= 1 << 32
        return word

    def column(self, base, name):
        """A field of every page of the section at base, as a list (raw u64 words)."""
        q = self.section_pages(base)
        return q[self.off[name] // 8::self.page_size // 8].tolist()

    def head_pfn(self, pfn):
        """pfn of the compound head for a tail page, else pfn."""
        head = self.field(pfn, "compound_head")
        return (head - 1 - self.vmemmap) // self.page_size if head & 1 else pfn

    def is_buddy(self, pfn):
        return self.field(pfn, "page_type") >> 24 == self.pgty_buddy

    def pfn_of_page(self, addr):
        return (addr - self.vmemmap) // self.page_size
