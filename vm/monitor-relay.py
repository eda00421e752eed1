# SPDX-License-Identifier: GPL-2.0
"""Relay QEMU monitor commands from a vm/run.sh guest (started by --monitor).

    python3 vm/monitor-relay.py QMP_SOCKET DIR

The guest writes one HMP command line to DIR/<id>.req (via the output share);
this runs it through QMP's human-monitor-command and writes the monitor's
reply to DIR/<id>.rsp, or "error: ..." when QMP refused it. It exits when
QEMU does. A guest that has to hot-plug memory needs the host's monitor:
nothing inside the guest can reach it.
"""
import json
import os
import select
import socket
import sys
import time


def connect(path):
    for _ in range(600):
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.1)
    sys.exit(f"monitor-relay: no QMP socket at {path}")


class Qmp:
    def __init__(self, path):
        self.sock = connect(path)
        self.buf = b""
        self.recv()  # greeting
        self.call({"execute": "qmp_capabilities"})

    def recv(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def closed(self, timeout):
        """Wait up to timeout seconds; True once QEMU closed the socket."""
        if select.select([self.sock], [], [], timeout)[0]:
            data = self.sock.recv(65536)  # events, kept for recv()
            if not data:
                return True
            self.buf += data
        return False

    def call(self, cmd):
        self.sock.sendall(json.dumps(cmd).encode() + b"\n")
        while True:
            msg = self.recv()
            if "return" in msg or "error" in msg:  # skip events
                return msg


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: monitor-relay.py QMP_SOCKET DIR")
    qmp = Qmp(sys.argv[1])
    reqdir = sys.argv[2]
    try:
        while True:
            for name in sorted(os.listdir(reqdir)):
                if not name.endswith(".req"):
                    continue
                req = os.path.join(reqdir, name)
                with open(req) as f:
                    line = f.read().strip()
                reply = qmp.call({"execute": "human-monitor-command",
                                  "arguments": {"command-line": line}})
                if "error" in reply:
                    text = "error: " + reply["error"].get("desc", "?") + "\n"
                else:
                    text = reply["return"]
                print(f"monitor-relay: {line!r} -> {text.strip()!r}", file=sys.stderr)
                rsp = req[:-4] + ".rsp"
                with open(rsp + ".tmp", "w") as f:
                    f.write(text)
                os.rename(rsp + ".tmp", rsp)
                os.unlink(req)
            # Idle: notice QEMU going away even when no request comes.
            if qmp.closed(0.2):
                break
    except (EOFError, ConnectionError):
        pass


if __name__ == "__main__":
    main()
