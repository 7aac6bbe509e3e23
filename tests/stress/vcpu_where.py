#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where is every vCPU of a (hung) QEMU guest?

Usage: vcpu_where.py QMP_SOCKET KALLSYMS [SAMPLES]

Asks QEMU's monitor (over QMP, human-monitor-command) for each vCPU's
registers SAMPLES times (default 3), 1 s apart, and prints per vCPU its
RIP as symbol+offset, whether it is halted and has interrupts enabled,
and the kernel text addresses found in the 64 words above its stack
pointer (a poor man's backtrace, innermost first, symbolized). KALLSYMS
is the guest's /proc/kallsyms (System.map format, module symbols with
their [module]; Debian's System.map is only a placeholder without the
-dbg package) taken in an earlier boot by /gr/kallsyms: the guest runs
with nokaslr, so the kernel and its modules have those addresses in every
boot that loads the same modules in the same order.
"""
import bisect
import json
import re
import socket
import sys
import time


class Qmp:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.buf = b""
        self.read()                     # the greeting
        self.cmd("qmp_capabilities")

    def read(self):
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                msg = json.loads(line)
                if "event" not in msg:
                    return msg
            data = self.sock.recv(65536)
            if not data:
                raise EOFError("QMP closed")
            self.buf += data

    def cmd(self, name, **args):
        req = {"execute": name}
        if args:
            req["arguments"] = args
        self.sock.sendall(json.dumps(req).encode() + b"\n")
        msg = self.read()
        if "error" in msg:
            raise RuntimeError(msg["error"].get("desc", str(msg)))
        return msg["return"]

    def hmp(self, line, cpu):
        return self.cmd("human-monitor-command", **{"command-line": line,
                                                    "cpu-index": cpu})


class Symbols:
    def __init__(self, path):
        pairs = []
        with open(path, errors="replace") as f:
            for line in f:
                p = line.split()
                if len(p) < 3 or p[1] not in "tTwW":
                    continue
                try:
                    a = int(p[0], 16)
                except ValueError:
                    continue
                pairs.append((a, p[2] + (" " + p[3] if len(p) > 3 else "")))
        pairs.sort()
        self.addrs = [a for a, _ in pairs]
        self.names = [n for _, n in pairs]
        kern = [a for a, n in pairs if "[" not in n]
        mods = [a for a, n in pairs if "[" in n]
        etext = [a for a, n in pairs if n == "_etext"]
        self.ranges = []
        if kern:
            self.ranges.append((kern[0], etext[0] if etext else kern[-1]))
        if mods:
            self.ranges.append((mods[0], mods[-1] + 0x1000))

    def is_text(self, a):
        return any(lo <= a < hi for lo, hi in self.ranges)

    def name(self, a):
        i = bisect.bisect_right(self.addrs, a) - 1
        if i < 0 or not self.is_text(a):
            return "0x%x" % a
        return "%s+0x%x" % (self.names[i], a - self.addrs[i])


def regs(text):
    r = {}
    for k in ("RIP", "RSP", "RFL", "CR3"):
        m = re.search(r"\b%s=([0-9a-f]+)" % k, text)
        r[k] = int(m.group(1), 16) if m else 0
    m = re.search(r"\bHLT=(\d)", text)
    r["HLT"] = int(m.group(1)) if m else 0
    m = re.search(r"\bCPL=(\d)", text)
    r["CPL"] = int(m.group(1)) if m else -1
    return r


def stack(q, cpu, rsp, syms):
    out = q.hmp("x /64gx 0x%x" % rsp, cpu)
    found = []
    for line in out.splitlines():
        for w in line.split(":", 1)[-1].split():
            try:
                a = int(w, 16)
            except ValueError:
                continue
            if syms.is_text(a):
                found.append(a)
    return found


def code_bytes(q, cpu, a):
    out = q.hmp("x /6bx 0x%x" % a, cpu)
    return [int(w, 16) for w in re.findall(r"0x([0-9a-f]{2})\b",
                                           out.split(":", 1)[-1])]


def trapped_at(q, cpu, found, syms):
    """A vCPU in the int3 handler: what memory holds where it trapped.
    The exception frame's IP follows asm_exc_int3 on the stack; the int3
    was the byte before it (or at it, once a handler rewound the IP). No
    0xcc at either: memory no longer has the breakpoint the vCPU keeps
    executing (text_poke_bp finished), i.e. it runs a stale translation.
    """
    names = [syms.name(a) for a in found]
    for k, n in enumerate(names):
        if not n.startswith("asm_exc_int3") or k + 1 >= len(found):
            continue
        a = found[k + 1]
        got = {b: code_bytes(q, cpu, b) for b in (a - 1, a)}
        lines = ["%s: %s" % (syms.name(b), " ".join("%02x" % x for x in g))
                 for b, g in got.items()]
        held = any(g[:1] == [0xcc] for g in got.values())
        return ("memory at the trap: " + "; ".join(lines) +
                (" (int3 in memory: a patch in progress)" if held else
                 " (no int3 in memory: the vCPU runs a stale translation)"))
    return None


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    sock, symfile = sys.argv[1], sys.argv[2]
    samples = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    syms = Symbols(symfile)
    q = Qmp(sock)
    cpus = q.cmd("query-cpus-fast")
    for s in range(samples):
        if s:
            time.sleep(1)
        print("sample %d" % (s + 1))
        for c in cpus:
            i = c["cpu-index"]
            r = regs(q.hmp("info registers", i))
            print("  vCPU %d (thread %d): RIP %s CPL %d %s IF=%d" % (
                i, c.get("thread-id", 0), syms.name(r["RIP"]), r["CPL"],
                "halted" if r["HLT"] else "running",
                (r["RFL"] >> 9) & 1))
            if s == samples - 1 and r["CPL"] == 0:
                found = stack(q, i, r["RSP"], syms)
                print("    stack: " + " < ".join(syms.name(a)
                                                   for a in found))
                t = trapped_at(q, i, found, syms)
                if t:
                    print("    " + t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
