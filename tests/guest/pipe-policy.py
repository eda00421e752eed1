#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check when a pipe's copies go through an ASI local mapping.

A local mapping exposes a whole buffer page to the process, so fs/pipe.c
maps a page only if all of it is the pipe's own data and the process may
read all of that: a reader only while no other process ever took data out
of the pipe (pipe_read() or splice()), a writer only while no other process
ever wrote to it, and never a page that came from another pipe or that
another pipe wrote to; nor in a read or write with more than 32 KiB to go
(the smaller of the buffer and what the pipe holds). Each case makes one
read() or write() and reads /proc/vmstat's asi_local_map around it: 1
means the copy was mapped (1 per page for larger reads), 0 that it went
through the direct map. A case that wants a mapping may try three times
(an interrupt that exits the space first makes the copy use the direct
map).
Prints one line per case, at the end, and exits 1 if any differs from the
policy. Needs ASI on, a quiet system (the counter is global) and this
process single-threaded (a multi-threaded process is never mapped).
"""
import ctypes
import fcntl
import os
import sys

SIZE = 512
PAGE = 4096
lines = []
failed = 0
libc = ctypes.CDLL(None, use_errno=True)


def local_maps() -> int:
    with open("/proc/vmstat") as f:
        for line in f:
            key, value = line.split()
            if key == "asi_local_map":
                return int(value)
    sys.exit("pipe-policy: no asi_local_map in /proc/vmstat")


def maps(op) -> int:
    before = local_maps()
    try:
        op()
    except BlockingIOError:     # an empty pipe: a retry found no data left
        pass
    return local_maps() - before


def record(name: str, got: int, want: int) -> None:
    global failed
    failed += got != want
    lines.append(f"pipe-policy: {'ok' if got == want else 'FAIL'}: {name}: "
                 f"{got} mapped, want {want}")


def case(name: str, op, want: int) -> None:
    for _ in range(3 if want else 1):
        got = maps(op)
        if got == want:
            break
    record(name, got, want)


def pipe() -> tuple:
    """A pipe whose reads never block: a case that went wrong fails instead."""
    r, w = os.pipe()
    os.set_blocking(r, False)
    return r, w


def in_child(op) -> None:
    pid = os.fork()
    if pid == 0:
        op()
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status:
        sys.exit(f"pipe-policy: child exited with {status:#x}")


def tee(fd_in: int, fd_out: int, n: int) -> None:
    if libc.tee(fd_in, fd_out, ctypes.c_size_t(n), 0) != n:
        sys.exit(f"pipe-policy: tee: {os.strerror(ctypes.get_errno())}")


def main() -> int:
    chunk = b"x" * SIZE

    # Warm up: the process's first copy allocates its slot tables.
    r, w = pipe()
    os.write(w, chunk)
    os.read(r, SIZE)

    # Each pipe's first write allocates its page, and zeroing the new page
    # exits the space: the cases measure writes that add to that page.
    r, w = pipe()
    os.write(w, chunk)
    case("sole writer writes", lambda: os.write(w, chunk), 1)
    case("sole reader reads", lambda: os.read(r, SIZE), 1)
    in_child(lambda: os.write(w, chunk))
    case("writer after another process wrote", lambda: os.write(w, chunk), 0)
    case("sole reader after another process wrote", lambda: os.read(r, SIZE), 1)

    r, w = pipe()
    os.write(w, chunk * 4)
    in_child(lambda: os.read(r, SIZE))
    case("reader after another process read", lambda: os.read(r, SIZE), 0)

    a_r, a_w = pipe()
    b_r, b_w = pipe()
    os.write(a_w, chunk * 2)
    os.splice(a_r, b_w, SIZE)
    case("reader after a splice out of the pipe", lambda: os.read(a_r, SIZE), 0)
    case("page spliced in from another pipe", lambda: os.read(b_r, SIZE), 0)

    # A's page goes to B by tee(), which takes nothing out of A. Once both
    # have read it, it is B's cached page; B's next write fills it with B's
    # data and a splice brings it back to A, whose only reader must not map
    # it: B's write took it away from A for good.
    # A's reader still maps A's pages after the tee, so the last case's 0 is
    # B's write's doing. A holds one chunk, read once: new pipes per try.
    for _ in range(3):
        a_r, a_w = pipe()
        b_r, b_w = pipe()
        os.write(a_w, chunk)
        tee(a_r, b_w, SIZE)
        got = maps(lambda: os.read(a_r, SIZE))
        if got == 1:
            break
    record("reader after a tee out of the pipe", got, 1)
    os.read(b_r, SIZE)
    os.write(b_w, chunk)
    os.splice(b_r, a_w, SIZE)
    case("page another pipe wrote to, spliced back", lambda: os.read(a_r, SIZE), 0)

    # Copies of up to 32 KiB go through local mappings page by page; one
    # with more to go exits instead (each page mapped costs an
    # invalidation). The destination is touched beforehand: a fault on it
    # would exit (the new page is zeroed) and leave the rest unmapped.
    r, w = pipe()
    fcntl.fcntl(w, fcntl.F_SETPIPE_SZ, 64 * PAGE)
    for _ in range(40):
        os.write(w, b"y" * PAGE)
    buf = bytearray(b"z" * 16 * PAGE)
    case("a 64 KiB read, over the cap", lambda: os.readv(r, [buf]), 0)
    case("a 32 KiB read", lambda: os.readv(r, [memoryview(buf)[:8 * PAGE]]), 8)
    # What counts is what the read can take: a 64 KiB read of a pipe that
    # holds 16 KiB is mapped. A pipe per try, filled beforehand.
    ready = []
    for _ in range(3):
        r, w = pipe()
        for _ in range(4):
            os.write(w, b"y" * PAGE)
        ready.append(r)
    case("a 64 KiB read of 16 KiB", lambda: os.readv(ready.pop(), [buf]), 4)

    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
