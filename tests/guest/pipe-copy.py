#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pass data through a pipe and check that it arrives intact.

    pipe-copy.py [--writers W] [--chunks N] [--size S] [--hold]

W writing processes each write N chunks of S bytes (S <= PIPE_BUF, so a
chunk is never interleaved with another's); each chunk names its writer and
sequence number and carries a pattern derived from both. The reader reads a
chunk at a time and checks each one and every writer's order. Prints

    pipe-copy: N chunks from W writers intact

and exits 0, or names the first bad chunk and exits 1. --hold then prints
"pipe-copy: holding" and waits for end of input before exiting, keeping the
process (and its restricted space) alive for an inspection.
"""
import argparse
import os
import select
import struct
import sys

HEADER = struct.Struct("<II")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--writers", type=int, default=1)
    ap.add_argument("--chunks", type=int, default=20000)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--hold", action="store_true")
    args = ap.parse_args()
    if not 1 <= args.writers <= 64 or args.chunks < 1:
        ap.error("--writers must be 1..64 and --chunks at least 1")
    if not HEADER.size < args.size <= select.PIPE_BUF:
        ap.error(f"--size must be {HEADER.size + 1}..{select.PIPE_BUF} (PIPE_BUF)")

    body = args.size - HEADER.size
    base = bytes(i & 0xFF for i in range(body + 256))

    def chunk(w: int, seq: int) -> bytes:
        start = (w * 31 + seq) & 0xFF
        return HEADER.pack(w, seq) + base[start:start + body]

    r, wr = os.pipe()
    pids = []
    for w in range(args.writers):
        pid = os.fork()
        if pid == 0:
            os.close(r)
            for seq in range(args.chunks):
                if os.write(wr, chunk(w, seq)) != args.size:
                    os._exit(2)
            os._exit(0)
        pids.append(pid)
    os.close(wr)

    nxt = [0] * args.writers
    total = args.writers * args.chunks
    for n in range(total):
        data = b""
        while len(data) < args.size:
            part = os.read(r, args.size - len(data))
            if not part:
                print(f"pipe-copy: FAIL: end of data after {n} of {total} chunks")
                return 1
            data += part
        w, seq = HEADER.unpack_from(data)
        if w >= args.writers or seq != nxt[w] or data != chunk(w, seq):
            print(f"pipe-copy: FAIL: chunk {n} (writer {w}, sequence {seq}, "
                  f"expected {nxt[w] if w < args.writers else '?'}) is corrupt")
            return 1
        nxt[w] += 1
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        if status:
            print(f"pipe-copy: FAIL: a writer exited with status {status:#x}")
            return 1
    print(f"pipe-copy: {total} chunks from {args.writers} writers intact", flush=True)
    if args.hold:
        print("pipe-copy: holding", flush=True)
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
