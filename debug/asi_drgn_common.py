# SPDX-License-Identifier: GPL-2.0
"""Helpers shared by the ASI drgn scripts in debug/ (not a script itself).

Page tables: Layout (where things live in the kernel half), walk(),
walk_range(), lookup() and describe() over a pgd, leaf_attrs() (a leaf's
effective attributes), restricted_spaces() (every per-mm restricted pgd).
Memory: asi_mode() (how the page allocator runs ASI), system_ram() and
MemMap, which reads sections, pageblock flags, struct pages and free pages in
bulk: under TCG one drgn Object per page is far too slow.
Scripts: run() (one-line errors), require_asi() (a kernel with debug info
and ASI on), is_live() (the running kernel or a dump), summary() (--help's
description), asi_vm_events() (the ASI counters of /proc/vmstat).
The scripts import this from their own directory, where drgn puts it on
sys.path; everything takes the drgn Program, or a Layout or MemMap holding it,
and works on the running kernel (-k, /proc/kcore) and on a dump (-c vmcore).
"""
import os
import struct
import sys
from typing import Callable, Iterator, Optional

from drgn import FaultError, Object, Program, ProgramFlags, TypeKind, offsetof, sizeof
from drgn.helpers.linux.cpumask import for_each_possible_cpu
from drgn.helpers.linux.nodemask import for_each_online_node
from drgn.helpers.linux.percpu import per_cpu, per_cpu_ptr
from drgn.helpers.linux.pid import for_each_task

PAGE_SHIFT = 12
PAGE_SIZE = 1 << PAGE_SHIFT
PTRS = 512
PRESENT, PSE, NX = 1 << 0, 1 << 7, 1 << 63
RW, USER, PWT, PCD = 1 << 1, 1 << 2, 1 << 3, 1 << 4
GLOBAL_BIT = 1 << 8                      # kept across CR3 writes
PAT_4K, PAT_LARGE = 1 << 7, 1 << 12      # PAT moves to bit 12 in a 2M/1G leaf
ENC = 1 << 62                            # leaf_attrs()' stand-in for the C-bit
PFN_MASK = ((1 << 52) - 1) & ~((1 << PAGE_SHIFT) - 1)
LEVEL_NAMES = {1: "4K", 2: "2M", 3: "1G"}


def has(prog: Program, name: str) -> bool:
    try:
        prog[name]
        return True
    except KeyError:
        return False


def run(main: Callable[[list], None]) -> None:
    """Run main(argv); a sys.exit("message") prints it and exits with 2, and
    so does memory the kernel or the dump cannot give, in one line."""
    script = os.path.splitext(os.path.basename(sys.argv[0]))[0]
    try:
        main(sys.argv[1:])
    except FaultError as e:
        prog = main.__globals__.get("prog")
        hint = "" if prog is None or is_live(prog) else \
            " (a dump from QEMU's dump-guest-memory? run vm/fix-vmcore.py on it)"
        print(f"{script}: cannot read the kernel's memory: {e}{hint}", file=sys.stderr)
        sys.exit(2)
    except BrokenPipeError:
        # Whoever read the output stopped (| head): stop too, quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise


def summary(doc: str) -> str:
    """A script's docstring's first paragraph, for argparse's description."""
    return " ".join(doc.split("\n\n")[0].split())


def is_live(prog: Program) -> bool:
    """Whether prog is the running kernel, which changes while it is read,
    rather than a dump."""
    return bool(prog.flags & ProgramFlags.IS_LIVE)


def human(size: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{size} B"
        size /= 1024


# ---- Page tables ---------------------------------------------------------

class Layout:
    """Where things live in the kernel half of this kernel's address space."""

    def __init__(self, prog: Program):
        self.prog = prog
        self.l5 = bool(prog["__pgtable_l5_enabled"].value_()) \
            if has(prog, "__pgtable_l5_enabled") else False
        self.top = 5 if self.l5 else 4
        self.bits = 57 if self.l5 else 48
        self.page_offset = prog["page_offset_base"].value_()
        self.vmalloc = prog["vmalloc_base"].value_()
        self.vmalloc_end = self.vmalloc + ((12800 if self.l5 else 32) << 40)
        self.direct_end = self.page_offset + (prog["max_pfn"].value_() << PAGE_SHIFT)
        # struct pages of every possible pfn (MAX_PHYSMEM_BITS: 52 or 46).
        vmemmap = prog["vmemmap_base"].value_()
        self.vmemmap = (vmemmap, vmemmap + (((1 << (52 if self.l5 else 46)) >> PAGE_SHIFT)
                                            * sizeof(prog.type("struct page"))))
        sym = lambda name: prog.symbol(name).address
        self.text = (sym("_text"), sym("_etext"))
        self.image = (sym("_text"), sym("_end"))
        self.kernel_map = 0xFFFFFFFF80000000
        info = vmcoreinfo(prog)
        image_size = int(info.get("NUMBER(KERNEL_IMAGE_SIZE)", str(512 << 20)))
        self.modules = (self.kernel_map + image_size, 0xFFFFFFFFFF000000)  # MODULES_END
        self.sme_mask = prog["sme_me_mask"].value_() if has(prog, "sme_me_mask") \
            else int(info.get("NUMBER(sme_mask)", "0"))
        self.percpu = percpu_first_chunk(prog)
        # CPU_ENTRY_AREA_BASE and ESPFIX_BASE_ADDR: one p4d entry (512 GiB)
        # each with 4- and 5-level paging, both shared with init_mm.
        self.cea = (0xFFFFFE0000000000, 0xFFFFFE8000000000)
        self.espfix = (0xFFFFFF0000000000, 0xFFFFFF8000000000)
        # ASI's local-map slots (asi_map_local_page()): one page per CPU from
        # LDT_BASE_ADDR (LDT_PGD_ENTRY, -240, << PGDIR_SHIFT), in a per-mm
        # top-level entry that PTI would give the LDT.
        shift = 48 if self.l5 else 39
        local = (-240 << shift) % (1 << 64)
        self.local = (local, local + prog["nr_cpu_ids"].value_() * PAGE_SIZE)
        self.local_entry = (local, local + (1 << shift))

    def kind(self, va: int) -> str:
        if self.text[0] <= va < self.text[1]:
            return "text"
        if self.image[0] <= va < self.image[1]:
            return "data"
        if self.modules[0] <= va < self.modules[1]:
            return "modules"
        if any(s <= va < e for s, e in self.percpu):
            return "percpu"
        if self.vmalloc <= va < self.vmalloc_end:
            return "vmalloc"
        if self.page_offset <= va < self.direct_end:
            return "direct map"
        if self.vmemmap[0] <= va < self.vmemmap[1]:
            return "vmemmap"
        return "other"

    def region(self, va: int) -> str:
        """Where va is, as asi_check.py classifies pages: image, percpu (the
        first chunk), modules, vmalloc, direct map, vmemmap, entry area (the
        CPU entry area and the ESPFIX64 stacks), user (the lower half),
        local map (the top-level entry of ASI's per-CPU slots for one copy)
        or other."""
        if not va >> 63:
            return "user"
        if self.image[0] <= va < self.image[1]:
            return "image"
        if any(s <= va < e for s, e in self.percpu):
            return "percpu"
        if self.modules[0] <= va < self.modules[1]:
            return "modules"
        if self.vmalloc <= va < self.vmalloc_end:
            return "vmalloc"
        if self.page_offset <= va < self.direct_end:
            return "direct map"
        if self.vmemmap[0] <= va < self.vmemmap[1]:
            return "vmemmap"
        if self.cea[0] <= va < self.cea[1] or self.espfix[0] <= va < self.espfix[1]:
            return "entry area"
        if self.local_entry[0] <= va < self.local_entry[1]:
            return "local map"
        return "other"

    def canonical(self, va: int) -> int:
        if va & (1 << (self.bits - 1)):
            va |= ((1 << 64) - 1) ^ ((1 << self.bits) - 1)
        return va

    def level_shift(self, level: int) -> int:
        return PAGE_SHIFT + 9 * (level - 1)


def percpu_first_chunk(prog: Program) -> list:
    """[start, end) of each possible CPU's unit of the first percpu chunk, as
    asi_map_percpu_first_chunk() maps it: the static area up to the end of the
    chunk. The embedding allocator gave the rest of pcpu_unit_size back to
    memblock, so the page allocator owns it."""
    if not has(prog, "pcpu_first_chunk"):
        return []
    base = prog["pcpu_base_addr"].value_()
    offsets = prog["pcpu_unit_offsets"]
    chunk = prog["pcpu_first_chunk"]
    chunk_base = chunk.base_addr.value_()
    chunk_len = chunk.nr_pages.value_() << PAGE_SHIFT
    out = []
    for cpu in for_each_possible_cpu(prog):
        off = offsets[cpu].value_()
        out.append((base + off, chunk_base + off + chunk_len))
    return out


def read_table(layout: Layout, table_va: int) -> tuple:
    return struct.unpack("<512Q", layout.prog.read(table_va, 8 * PTRS))


def is_leaf(entry: int, level: int) -> bool:
    return bool(entry & PRESENT) and (level == 1 or (level <= 3 and entry & PSE))


def table_va(layout: Layout, entry: int) -> int:
    return layout.page_offset + (entry & PFN_MASK)


def walk(layout: Layout, pgd_va: int, first: int = PTRS // 2, last: int = PTRS) -> Iterator:
    """Yield (va, level, entry) for every leaf under pgd slots [first, last)."""
    shift = layout.level_shift(layout.top)
    yield from _walk(layout, pgd_va, first << shift, last << shift)


def walk_range(layout: Layout, pgd_va: int, start: int, end: int) -> Iterator:
    """Yield (va, level, entry) for every leaf overlapping [start, end)."""
    lo = start & ((1 << layout.bits) - 1)
    yield from _walk(layout, pgd_va, lo, lo + (end - start))


def _walk(layout: Layout, pgd_va: int, lo: int, hi: int) -> Iterator:
    """Leaves overlapping [lo, hi), addresses without their sign extension."""
    def rec(tva: int, level: int, base: int) -> Iterator:
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


def lookup(layout: Layout, pgd_va: int, va: int) -> Optional[tuple]:
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


def leaf_phys(layout: Layout, level: int, entry: int, va: int) -> int:
    """Physical address that a leaf translates va to (without the
    encryption bit, which SME and SEV set in every kernel mapping)."""
    size = 1 << layout.level_shift(level)
    return (entry & PFN_MASK & ~(size - 1) & ~layout.sme_mask) + (va & (size - 1))


def leaf_phys_base(layout: Layout, level: int, entry: int) -> int:
    """Physical address of a leaf's first byte: its address bits without the
    large-page PAT bit and the encryption bit."""
    size = 1 << layout.level_shift(level)
    return entry & PFN_MASK & ~(size - 1) & ~layout.sme_mask


def leaf_attrs(layout: Layout, level: int, entry: int) -> int:
    """The attributes of a leaf the CPU acts on, comparable across levels:
    PRESENT, RW, USER, PWT, PCD, NX as they are, PAT at bit 7 whatever the
    level, ENC when the entry has the encryption bit (sme_me_mask)."""
    attrs = entry & (PRESENT | RW | USER | PWT | PCD | NX)
    if entry & (PAT_4K if level == 1 else PAT_LARGE):
        attrs |= PAT_4K
    if entry & layout.sme_mask:
        attrs |= ENC
    return attrs


def attr_names(attrs: int) -> str:
    """'rw nx wb' style text for leaf_attrs() bits."""
    words = ["rw" if attrs & RW else "ro", "nx" if attrs & NX else "x"]
    if attrs & USER:
        words.append("user")
    cache = [n for bit, n in ((PWT, "pwt"), (PCD, "pcd"), (PAT_4K, "pat")) if attrs & bit]
    words.append("+".join(cache) if cache else "wb")
    if attrs & ENC:
        words.append("enc")
    return " ".join(words)


def describe(layout: Layout, pgd: int, va: int) -> str:
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


def asi_pgd(prog: Program) -> Optional[int]:
    """The global nonsensitive pgd, or None when ASI is off."""
    if not has(prog, "asi_global_nonsensitive"):
        return None
    return prog["asi_global_nonsensitive"].pgd.value_() or None


def asi_class_names(prog: Program) -> list:
    """['kvm', 'userspace', ...], indexed by enum asi_class_id."""
    try:
        enum = prog.type("enum asi_class_id")
    except LookupError:
        return []
    names = {v: n for n, v in enum.enumerators if n.startswith("ASI_CLASS_")}
    return [names.get(i, f"class{i}").removeprefix("ASI_CLASS_").lower()
            for i in range(max(names, default=-1) + 1)]


def restricted_spaces(prog: Program) -> list:
    """(label, restricted pgd, the mm's own pgd, class name) of every per-mm
    restricted space of an mm some task uses; the label names the mm by its
    lowest pid."""
    classes = asi_class_names(prog)
    if not classes:
        return []
    mms = {}
    for task in for_each_task(prog):
        mm = task.mm.value_()
        pid = task.pid.value_()
        if mm and (mm not in mms or pid < mms[mm]):
            mms[mm] = pid
    out = []
    for mm, pid in sorted(mms.items(), key=lambda item: item[1]):
        mm_obj = Object(prog, "struct mm_struct *", mm)
        for class_id, name in enumerate(classes):
            asi = mm_obj.asi[class_id]
            if asi and asi.pgd:
                out.append((f"pid {pid} {name}", asi.pgd.value_(), mm_obj.pgd.value_(), name))
    return out


def direct_map_state(layout: Layout, pgd: int, max_pfn: int) -> bytearray:
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

# MemMap.free_state() codes.
FREE_BUDDY, FREE_PCP, FREE_NS = 1, 2, 4
FREE_BUDDY_BYTES = bytes((FREE_BUDDY,))

def static_key_on(prog: Program, name: str) -> bool:
    return has(prog, name) and prog[name].key.enabled.counter.value_() > 0


def asi_mode(prog: Program) -> str:
    """'off', 'freelist', 'pageflag', or 'none' (ASI on, no allocator mode)."""
    if asi_pgd(prog) is None:
        return "off"
    if static_key_on(prog, "asi_freelist_key"):
        return "freelist"
    if static_key_on(prog, "asi_pageflag_key"):
        return "pageflag"
    return "none"


def require_asi(prog: Program, script: str, need_mode: bool = True) -> str:
    """The allocator mode; exits (status 2) with one line when the kernel has
    no debug info, is built without ASI, runs with ASI off or (need_mode)
    has no allocator mode."""
    try:
        prog.type("struct page")
    except LookupError:
        sys.exit(f"{script}: no debug info for this kernel: give drgn the build's vmlinux "
                 "(drgn -s build/out-asi/vmlinux ...)")
    if not has(prog, "asi_global_nonsensitive"):
        sys.exit(f"{script}: this kernel is built without ASI "
                 "(CONFIG_MITIGATION_ADDRESS_SPACE_ISOLATION=n)")
    mode = asi_mode(prog)
    if mode == "off":
        sys.exit(f"{script}: ASI is off in this kernel (boot with asi=on)")
    if mode == "none" and need_mode:
        sys.exit(f"{script}: ASI is on but the page allocator has no ASI mode "
                 "(kernel without asi_freelist_key/asi_pageflag_key?)")
    return mode


# The enum vm_event_item prefixes of the ASI transition counters; the other
# ASI_ counters are the page allocator's.
TRANSITION_EVENTS = ("ASI_ENTER", "ASI_RESTORE", "ASI_EXITS_", "ASI_FLUSH_")


def asi_vm_events(prog: Program) -> list:
    """(enumerator, /proc/vmstat name, total over CPUs) of each ASI event
    counter (ASI_EXITS_PAGE_FAULT is /proc/vmstat's asi_exit_page_fault)."""
    out = []
    for enumerator, item in prog.type("enum vm_event_item").enumerators:
        if not enumerator.startswith("ASI_"):
            continue
        name = enumerator.lower().replace("asi_exits_", "asi_exit_")
        total = sum(per_cpu(prog["vm_event_states"], cpu).event[item].value_()
                    for cpu in for_each_possible_cpu(prog))
        out.append((enumerator, name, total))
    return out


def vmcoreinfo(prog: Program) -> dict:
    """The kernel's VMCOREINFO as a dict, e.g. 'NUMBER(SECTION_SIZE_BITS)': '27'."""
    try:
        text = prog.read(prog["vmcoreinfo_data"].value_(),
                         prog["vmcoreinfo_size"].value_()).decode(errors="replace")
    except (KeyError, FaultError):
        return {}
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def system_ram(prog: Program) -> list:
    """Sorted [first pfn, end pfn) ranges of the top-level "System RAM"
    resources in /proc/iomem."""
    sysram = 0x01000000   # IORESOURCE_SYSRAM
    out = []
    res = prog["iomem_resource"].child
    while res:
        if res.flags.value_() & sysram:
            start, end = res.start.value_(), res.end.value_() + 1
            out.append(((start + PAGE_SIZE - 1) >> PAGE_SHIFT, end >> PAGE_SHIFT))
        res = res.sibling
    return sorted(out)


def zones(prog: Program) -> Iterator[Object]:
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


def zone_span(zone: Object) -> tuple:
    start = zone.zone_start_pfn.value_()
    return start, start + zone.spanned_pages.value_()


class MemMap:
    """Sections, pageblock flags and struct pages of all pfns below max_pfn,
    read a section at a time (SPARSEMEM, VMEMMAP for struct pages)."""

    def __init__(self, prog: Program):
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
        self.pgty_zsmalloc = (prog["PGTY_zsmalloc"].value_() if has(prog, "PGTY_zsmalloc")
                              else 0xf6)

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
    def section(self, nr: int) -> Optional[Object]:
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

    def online(self, pfn: int) -> bool:
        """Whether pfn's section is online (offline memory keeps a memmap,
        poisoned, until it is removed)."""
        s = self.section(pfn >> self.section_shift)
        bit = 1 << self.prog["SECTION_IS_ONLINE_BIT"].value_()
        return s is not None and bool(s.section_mem_map.value_() & bit)

    def valid(self, pfn: int) -> bool:
        return 0 <= pfn < self.max_pfn and self.section(pfn >> self.section_shift) is not None

    def sections(self) -> Iterator:
        """(first pfn, number of pfns) of every section with a memmap."""
        for nr in range((self.max_pfn + self.per_section - 1) >> self.section_shift):
            if self.section(nr) is not None:
                base = nr << self.section_shift
                yield base, min(self.per_section, self.max_pfn - base)

    def holes(self) -> Iterator:
        """(first pfn, number of pfns) of every section without a memmap."""
        for nr in range((self.max_pfn + self.per_section - 1) >> self.section_shift):
            if self.section(nr) is None:
                base = nr << self.section_shift
                yield base, min(self.per_section, self.max_pfn - base)

    def block_flags(self) -> list:
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

    def block_char(self, flags: Optional[int]) -> str:
        """One character: migratetype initial, lowercase when nonsensitive."""
        if flags is None:
            return "-"
        mt = flags & self.mt_mask
        c = self.mt_names[mt][0].upper() if mt < len(self.mt_names) else "?"
        return c.lower() if flags & self.pb_ns else c

    # Struct pages.
    def flag_names(self, flags: int) -> str:
        """'PG_a|PG_b' for the page-flag bits of flags, one (the first) name
        per bit although enum pageflags has aliases; '(none)' if none."""
        if not hasattr(self, "_flag_names"):
            self._flag_names = {}
            for name, value in self.prog.type("enum pageflags").enumerators:
                if value < self.nr_pageflags and not name.startswith("__"):
                    self._flag_names.setdefault(value, name)
        names = [n for bit, n in sorted(self._flag_names.items()) if flags >> bit & 1]
        return "|".join(names) or "(none)"

    def section_pages(self, base: int) -> memoryview:
        """memoryview of u64 words over the struct pages of the section at pfn base."""
        if base not in self._pages:
            n = min(self.per_section, self.max_pfn - base)
            data = self.prog.read(self.vmemmap + base * self.page_size, n * self.page_size)
            self._pages[base] = memoryview(data).cast("Q")
        return self._pages[base]

    def field(self, pfn: int, name: str) -> int:
        """A struct page field of pfn (u64 words; 32-bit fields masked)."""
        q = self.section_pages(pfn & ~(self.per_section - 1))
        off = self.off[name]
        word = q[(pfn & (self.per_section - 1)) * (self.page_size // 8) + off // 8]
        if name in ("page_type", "_refcount"):
            word = (word >> ((off % 8) * 8)) & 0xffffffff
            if name == "_refcount" and word & 0x80000000:
                word -= 1 << 32
        return word

    def live_page_type(self, page: int) -> int:
        """The page type (PGTY_*, page_type's top byte) of the struct page
        at address page, read now rather than from the section snapshot."""
        off = self.off["page_type"]
        return (self.prog.read_u64(page + off - off % 8) >> ((off % 8) * 8 + 24)) & 0xff

    def column(self, base: int, name: str) -> list:
        """A field of every page of the section at base, as a list (raw u64 words)."""
        q = self.section_pages(base)
        return q[self.off[name] // 8::self.page_size // 8].tolist()

    def head_pfn(self, pfn: int) -> int:
        """pfn of the compound head for a tail page, else pfn."""
        head = self.field(pfn, "compound_head")
        return (head - 1 - self.vmemmap) // self.page_size if head & 1 else pfn

    def is_buddy(self, pfn: int) -> bool:
        return self.field(pfn, "page_type") >> 24 == self.pgty_buddy

    def buddy_of(self, pfn: int) -> Optional[tuple]:
        """(head pfn, order) of the free buddy block holding pfn (in the
        memmap snapshot), or None."""
        for order in range(self.block_order + 8):
            head = pfn & ~((1 << order) - 1)
            if self.valid(head) and self.is_buddy(head) and self.field(head, "private") >= order:
                return head, self.field(head, "private")
        return None

    def pfn_of_page(self, addr: int) -> int:
        return (addr - self.vmemmap) // self.page_size

    # Free pages.
    def list_pfns(self, head: int, cap: int = 1 << 20, pcp: bool = False) -> list:
        """pfns of the struct pages on the list at address head, linked
        through buddy_list (pcp_list with pcp=True), following raw pointers;
        each page must look free now (PageBuddy; on a per-CPU list,
        refcount 0)."""
        off = self.off["buddy_list"]
        others = self.list_heads().keys() - {head}
        field = self.off["_refcount" if pcp else "page_type"]
        word, shift = field - field % 8, (field % 8) * 8

        def looks_free(page: int) -> bool:
            v = self.prog.read_u64(page + word) >> shift
            return v & 0xffffffff == 0 if pcp else (v >> 24) & 0xff == self.pgty_buddy

        # The kernel runs on: a page leaving the list meanwhile can leave a
        # stale pointer (NULL, poison) or lead into the list it moved to
        # (another free list's head, or an allocated page's list, round
        # which the walk would go for ever). Read the list again, and after
        # three tries settle for what was read up to there.
        for _ in range(3):
            out = []
            try:
                p = self.prog.read_u64(head)
                while p != head and p not in others and len(out) < cap:
                    if not looks_free(p - off):
                        break
                    out.append(self.pfn_of_page(p - off))
                    p = self.prog.read_u64(p)
                if p == head:
                    return out
            except FaultError:
                continue
        return out

    def list_heads(self) -> dict:
        """{address of a buddy free-list head: (zone, order, migratetype,
        sensitivity index)}, for every populated zone."""
        if getattr(self, "_heads", None) is None:
            self._heads = {}
            free_list = self.prog.type("struct free_area").member("free_list").type
            nr_mt, nr_sens = free_list.length, free_list.type.length
            for zone in zones(self.prog):
                name = f"node {zone.zone_pgdat.node_id.value_()} {zone.name.string_().decode()}"
                for order in range(zone.free_area.type_.length):
                    for mt in range(nr_mt):
                        for s in range(nr_sens if nr_sens > 1 else 0):
                            head = zone.free_area[order].free_list[mt][s].address_
                            self._heads[head] = (name, order, mt, s)
        return self._heads

    def buddy_list_of(self, pfn: int, cap: int = 1 << 16) -> Optional[tuple]:
        """(zone, order, migratetype, sensitivity index) of the free list
        that the free buddy block headed by pfn is on, found by following
        its list from the page itself to the list's head; None when it is
        no longer a free buddy block or the list cannot be followed. A whole
        list walk (free_state()) can lose its way while the kernel edits the
        list; one page's own links, read a moment apart twice with the same
        answer, settle it."""
        heads, off = self.list_heads(), self.off["buddy_list"]
        page = self.vmemmap + pfn * self.page_size

        def live_order() -> Optional[int]:
            """The block's order now (not the section snapshot), or None."""
            if self.live_page_type(page) != self.pgty_buddy:
                return None
            return self.prog.read_u64(page + self.off["private"])

        answers = []
        for _ in range(4):
            try:
                order = live_order()
                if order is None:
                    return None
                start = page + off
                p, steps = self.prog.read_u64(start), 0
                while p not in heads and p != start and steps < cap:
                    p, steps = self.prog.read_u64(p), steps + 1
                if steps >= cap:
                    return None     # lost (round a per-CPU list, say)
                if live_order() != order:
                    continue
            except FaultError:
                continue
            where = heads.get(p)
            if where is not None and where[1] == order:
                answers.append(where)
                if len(answers) >= 2 and answers[-1] == answers[-2]:
                    return where
        return None

    def free_state(self) -> bytearray:
        """bytearray, one byte per pfn below max_pfn: 0 when the page is not
        free, else FREE_BUDDY (in a free buddy block: its head is PageBuddy
        with the order in private) or FREE_PCP (on a per-CPU list), with
        FREE_NS added when that block or list is a nonsensitive one."""
        out = bytearray(self.max_pfn)
        shift = (self.off["page_type"] % 8) * 8 + 24   # page_type's top byte
        pgty = self.pgty_buddy
        for base, n in self.sections():
            types = self.column(base, "page_type")
            heads = [i for i, w in enumerate(types) if (w >> shift) & 0xff == pgty]
            if not heads:
                continue
            private = self.column(base, "private")
            for i in heads:
                order = private[i]
                if order < 32:
                    end = min(i + (1 << order), n)
                    out[base + i:base + end] = FREE_BUDDY_BYTES * (end - i)
        free_list = self.prog.type("struct free_area").member("free_list").type
        nr_mt, nr_sens = free_list.length, free_list.type.length
        for zone in zones(self.prog):
            # Heads on the nonsensitive free lists (sensitivity index 1).
            for order in range(zone.free_area.type_.length if nr_sens > 1 else 0):
                for mt in range(nr_mt):
                    head = zone.free_area[order].free_list[mt][1].address_
                    for pfn in self.list_pfns(head):
                        end = min(pfn + (1 << order), self.max_pfn)
                        if 0 <= pfn < end:
                            out[pfn:end] = bytes(b | FREE_NS for b in out[pfn:end])
            self._pcp_free(zone, nr_sens, out)
        return out

    def _pcp_free(self, zone: Object, nr_sens: int, out: bytearray) -> None:
        lists = self.prog.type("struct per_cpu_pages").member("lists").type.length
        per_sens = lists // nr_sens
        pcptypes = self.prog["MIGRATE_PCPTYPES"].value_()
        low = pcptypes * (3 + 1)   # PAGE_ALLOC_COSTLY_ORDER + 1 orders each
        for cpu in for_each_possible_cpu(self.prog):
            pcp = per_cpu_ptr(zone.per_cpu_pageset, cpu)
            base = pcp.lists.address_
            for pindex in range(lists):
                i = pindex % per_sens
                # pindex_to_order(): the lists past the low orders are THP's.
                order = i // pcptypes if i < low else self.block_order
                mark = FREE_PCP | (FREE_NS if pindex // per_sens else 0)
                for pfn in self.list_pfns(base + 16 * pindex, cap=1 << 16, pcp=True):
                    end = min(pfn + (1 << order), self.max_pfn)
                    if 0 <= pfn < end:
                        out[pfn:end] = bytes((mark,)) * (end - pfn)
