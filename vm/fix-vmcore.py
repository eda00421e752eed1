# SPDX-License-Identifier: GPL-2.0
"""Make a QEMU dump-guest-memory ELF dump readable as a kernel dump by drgn.

    python3 vm/fix-vmcore.py DUMP [--paddr ADDR]

QEMU's dump (without -p) has the guest's physical memory, CPU notes and,
only when the guest kernel told QEMU where it is, the kernel's VMCOREINFO
note: that takes QEMU's -device vmcoreinfo and a guest kernel with
CONFIG_FW_CFG_SYSFS, whose qemu_fw_cfg driver hands the note's address to
the device. drgn (0.0.22) wants the note, and then reads the kernel's page
tables through the kernel image mapping, which QEMU's segments (physical
addresses only) do not give. This adds both, as kdump's /proc/vmcore has
them:

  - the guest's VMCOREINFO note, copied from guest memory: at physical
    address ADDR (the guest's /sys/kernel/vmcoreinfo) or, without --paddr,
    the page that starts with a VMCOREINFO note whose text starts with
    OSRELEASE=;
  - a PT_LOAD segment for the kernel image mapping (__START_KERNEL_map,
    KERNEL_IMAGE_SIZE bytes from phys_base, both from VMCOREINFO) over the
    same file bytes as the physical memory.

The file is rewritten (the memory moves up by what the headers grew); what
the dump has already is not added again. crash reads the dump with or
without this. Exit status 0 on success; 1 with a one-line error.
"""
import argparse
import mmap
import os
import shutil
import struct
import sys

EHDR = struct.Struct("<16sHHIQQQIHHHHHH")   # e_phoff [5], e_shoff [6], e_phnum [10]
PHDR = struct.Struct("<IIQQQQQQ")    # type, flags, offset, vaddr, paddr, filesz, memsz, align
SHDR = struct.Struct("<IIQQQQIIQQ")  # name, type, flags, addr, offset [4], size [5], ...
NHDR = struct.Struct("<III")         # namesz, descsz, type
PT_LOAD, PT_NOTE, PF_RWX = 1, 4, 7
SHT_NOBITS = 8
NAME = b"VMCOREINFO\0"
START_KERNEL_MAP = 0xFFFFFFFF80000000
PAGE_SIZE = 4096


def align4(n: int) -> int:
    return (n + 3) & ~3


def vmcoreinfo_at(mem, off: int) -> bytes:
    """The whole VMCOREINFO note at file offset off, or b"" if none is there."""
    if off < 0 or off + NHDR.size + 22 > len(mem):
        return b""
    namesz, descsz, ntype = NHDR.unpack_from(mem, off)
    name = off + NHDR.size
    if namesz != len(NAME) or ntype != 0 or not 0 < descsz <= PAGE_SIZE or \
            mem[name:name + 22] != NAME + b"\0OSRELEASE=":
        return b""
    return bytes(mem[off:name + 12 + align4(descsz)])


def vmcoreinfo_text(note: bytes) -> dict:
    text = note[NHDR.size + 12:].split(b"\0", 1)[0].decode(errors="replace")
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


class Dump:
    def __init__(self, path: str):
        self.path = path
        self.file = open(path, "rb")
        self.mem = mmap.mmap(self.file.fileno(), 0, access=mmap.ACCESS_READ)
        ehdr = EHDR.unpack_from(self.mem)
        if ehdr[0][:5] != b"\x7fELF\x02" or ehdr[1] != 4:
            sys.exit(f"fix-vmcore.py: {path} is not a 64-bit ELF core dump")
        self.ehdr = list(ehdr)
        self.phdrs = [list(PHDR.unpack_from(self.mem, ehdr[5] + i * PHDR.size))
                      for i in range(ehdr[10])]
        self.shdrs = [list(SHDR.unpack_from(self.mem, ehdr[6] + i * SHDR.size))
                      for i in range(ehdr[12])]
        found = [p for p in self.phdrs if p[0] == PT_NOTE]
        if len(found) != 1:
            sys.exit(f"fix-vmcore.py: {path} has {len(found)} PT_NOTE segments, expected 1")
        self.note = found[0]
        self.loads = [p for p in self.phdrs if p[0] == PT_LOAD]

    def own_vmcoreinfo(self) -> bytes:
        """The dump's own VMCOREINFO note (QEMU's), or b""."""
        off, end = self.note[2], self.note[2] + self.note[5]
        while off + NHDR.size <= end:
            namesz, descsz, _ = NHDR.unpack_from(self.mem, off)
            size = NHDR.size + align4(namesz) + align4(descsz)
            if self.mem[off + NHDR.size:off + NHDR.size + namesz] == NAME:
                return bytes(self.mem[off:off + size])
            off += size
        return b""

    def maps_image(self) -> bool:
        return any(p[3] <= START_KERNEL_MAP < p[3] + p[5] for p in self.loads)

    def find_vmcoreinfo(self, paddr) -> bytes:
        """The guest kernel's VMCOREINFO note: at paddr, or searched for."""
        if paddr is not None:
            off = next((p[2] + paddr - p[4] for p in self.loads
                        if p[4] <= paddr < p[4] + p[5]), -1)
            note = vmcoreinfo_at(self.mem, off)
            if not note:
                sys.exit(f"fix-vmcore.py: no VMCOREINFO note at guest physical address "
                         f"{paddr:#x} in {self.path}")
            return note
        needle = NAME + b"\0OSRELEASE="
        for p in self.loads:
            pos = self.mem.find(needle, p[2], p[2] + p[5])
            while pos >= 0:
                off = pos - NHDR.size
                if (p[4] + off - p[2]) % PAGE_SIZE == 0 and vmcoreinfo_at(self.mem, off):
                    return vmcoreinfo_at(self.mem, off)
                pos = self.mem.find(needle, pos + 1, p[2] + p[5])
        sys.exit(f"fix-vmcore.py: no VMCOREINFO note in the guest memory of {self.path}")

    def image_loads(self, info: dict) -> list:
        """PT_LOADs mapping the kernel image's virtual addresses onto the
        physical memory segments."""
        try:
            phys_base = int(info["NUMBER(phys_base)"], 0)
            size = int(info.get("NUMBER(KERNEL_IMAGE_SIZE)", str(512 << 20)), 0)
        except (KeyError, ValueError):
            sys.exit("fix-vmcore.py: VMCOREINFO has no NUMBER(phys_base): not an x86-64 kernel?")
        out = []
        for p in self.loads:
            start, end = max(p[4], phys_base), min(p[4] + p[5], phys_base + size)
            if start < end:
                out.append([PT_LOAD, PF_RWX, p[2] + start - p[4],
                            START_KERNEL_MAP + start - phys_base, start,
                            end - start, end - start, 0])
        return out

    def rewrite(self, note: bytes, loads: list):
        """Write the dump again: ELF header, program headers (with loads),
        section headers, the notes with note added, then the data."""
        old_end = self.note[2] + self.note[5]
        data = [p[2] for p in self.loads] + \
            [s[4] for s in self.shdrs if s[5] and s[1] != SHT_NOBITS]
        if min(data, default=old_end) < old_end:
            sys.exit(f"fix-vmcore.py: {self.path}: unexpected layout (data before the notes)")
        notes = bytes(self.mem[self.note[2]:old_end]) + note
        self.phdrs += loads
        phoff = EHDR.size
        shoff = phoff + len(self.phdrs) * PHDR.size
        note_off = shoff + len(self.shdrs) * SHDR.size
        delta = note_off + len(notes) - old_end
        for p in self.phdrs:
            if p[0] == PT_LOAD:
                p[2] += delta
        for s in self.shdrs:
            if s[5] and s[1] != SHT_NOBITS:
                s[4] += delta
        self.note[2], self.note[5], self.note[6] = note_off, len(notes), len(notes)
        self.ehdr[5], self.ehdr[10] = phoff, len(self.phdrs)
        self.ehdr[6] = shoff if self.shdrs else 0
        head = EHDR.pack(*self.ehdr) + b"".join(PHDR.pack(*p) for p in self.phdrs) + \
            b"".join(SHDR.pack(*s) for s in self.shdrs) + notes
        tmp = self.path + ".tmp"
        with open(tmp, "wb") as out:
            out.write(head)
            copy_range(self.file, out, old_end, len(self.mem) - old_end)
        shutil.copymode(self.path, tmp)
        os.replace(tmp, self.path)


def copy_range(src, dst, offset: int, count: int):
    """Append count bytes of src from offset to dst, in the kernel when it
    can (copy_file_range)."""
    dst.flush()
    pos = dst.tell()
    try:
        while count:
            n = os.copy_file_range(src.fileno(), dst.fileno(), count, offset, pos)
            if not n:
                break
            offset, pos, count = offset + n, pos + n, count - n
    except OSError:
        pass
    src.seek(offset)
    dst.seek(pos)
    while count:
        chunk = src.read(min(count, 16 << 20))
        if not chunk:
            sys.exit("fix-vmcore.py: the dump ends early")
        dst.write(chunk)
        count -= len(chunk)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dump", help="ELF dump written by QEMU's dump-guest-memory")
    p.add_argument("--paddr", type=lambda s: int(s, 0), metavar="ADDR",
                   help="guest physical address of the note (/sys/kernel/vmcoreinfo)")
    args = p.parse_args()
    try:
        dump = Dump(args.dump)
    except (OSError, ValueError, struct.error) as e:
        sys.exit(f"fix-vmcore.py: cannot read {args.dump}: {e}")
    note = dump.own_vmcoreinfo()
    added = b"" if note else dump.find_vmcoreinfo(args.paddr)
    info = vmcoreinfo_text(note or added)
    loads = [] if dump.maps_image() else dump.image_loads(info)
    if not added and not loads:
        print(f"fix-vmcore.py: {args.dump} has VMCOREINFO and the kernel image mapping: left alone")
        return
    try:
        dump.rewrite(added, loads)
    except OSError as e:
        sys.exit(f"fix-vmcore.py: cannot rewrite {args.dump}: {e}")
    what = ["the guest's VMCOREINFO note"] if added else []
    what += [f"{len(loads)} kernel image segment(s)"] if loads else []
    print(f"fix-vmcore.py: {args.dump} (OSRELEASE={info.get('OSRELEASE', '?')}): added "
          + " and ".join(what))

if __name__ == "__main__":
    main()
