#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bt_check.py - check a guestrelay trace of a fake guest with python3-bt2

Reads one or more trace directories with bt2 (the library behind
babeltrace2) and checks the fake guest's events (tests/fakeguest):

  fake_seq  cpu = N, tag = "cpuN", data = 'a' + (seq + i) % 26 for its
            bytes i >= 32, the packet's cpu_id = N (0 with --global), and
            per CPU: clock snapshots never go back and seq only grows
  fake_str  msg = "fakeguest cpu N n SEQ " + SEQ % 48 times 'x'

and, against the fake guest's --stats files (one per guest, --stats may
repeat; CPUs are told apart by the cpu field), per CPU:

  --expect exact    the fake_seq numbers are exactly seq_first..seq_last,
                    each once, none dropped by the guest; every event id
                    appears event.ID.written times, in all total.written
  --expect written  exactly the fake_seq numbers the guest wrote, each
                    once (the guest may have dropped some: its own count);
                    the counts per event id equal the guest's
  --expect subset   no duplicate, nothing the guest did not write (for
                    traces of hostile guests, which lose packets)
  --expect recent   a snapshot: per CPU one run of consecutive numbers
                    without a duplicate, ending at seq_last (the run's
                    length is printed; --min-run N asks for at least N)
  --expect none     only the per-event checks

Prints a summary line per CPU, then "OK" or the problems (at most 20),
and exits 0 when everything holds, 1 when a check failed, 2 when bt2
cannot read the trace.
"""
import argparse
import collections
import sys

try:
    import bt2
except ImportError:
    print("bt_check.py: python3-bt2 is not installed")
    sys.exit(2)


ALPHA = "abcdefghijklmnopqrstuvwxyz" * 2600  # fake_seq data, <= 64 KiB


def read_stats(paths):
    """Merge fake guest --stats files: {cpu: {key: value}}, totals."""
    cpus = collections.defaultdict(dict)
    tot = collections.Counter()
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 2 or not parts[1].isdigit():
                    continue
                key, val = parts[0], int(parts[1])
                k = key.split(".")
                if k[0] == "cpu" and len(k) == 3:
                    cpus[int(k[1])][k[2]] = val
                elif k[0] == "event" and len(k) == 3 and k[2] == "written":
                    tot["event." + k[1]] += val
                elif key in ("total.written", "total.seq_written",
                             "total.seq_dropped", "total.lost"):
                    tot[key] += val
    return cpus, tot


def chars(field):
    """A CHARS field: a bt2 string, or an array of byte integers."""
    try:
        return str(field)
    except Exception:
        return "".join(chr(int(c)) for c in field).split("\0")[0]


class Checker:
    def __init__(self, args):
        self.args = args
        self.errors = []
        self.seqs = collections.defaultdict(list)     # cpu -> [seq]
        self.last_ts = {}                             # cpu -> ns
        self.counts = collections.Counter()           # event name
        self.ids = collections.Counter()              # event id
        self.total = 0
        self.last_ns = None
        self.first_ns = None

    def error(self, msg):
        self.errors.append(msg)

    def event(self, msg):
        ev = msg.event
        self.total += 1
        self.counts[ev.name] += 1
        self.ids[ev.cls.id] += 1
        ns = msg.default_clock_snapshot.ns_from_origin
        if self.first_ns is None:
            self.first_ns = ns
        self.last_ns = ns
        p = ev.payload_field
        pkt_cpu = int(ev.packet.context_field["cpu_id"])
        if ev.name == "fake_seq":
            cpu, seq = int(p["cpu"]), int(p["seq"])
            tag = chars(p["tag"])
            if tag != "cpu%d" % cpu:
                self.error("fake_seq cpu %d seq %d: tag %r" % (cpu, seq, tag))
            want_pkt = 0 if self.args.glob else cpu
            if pkt_cpu != want_pkt:
                self.error("fake_seq cpu %d seq %d: in a packet of cpu_id %d"
                           % (cpu, seq, pkt_cpu))
            if "data" in p:
                data = chars(p["data"])
                start = (seq + 32) % 26
                want = ALPHA[start:start + len(data)]
                if data != want or not data:
                    self.error("fake_seq cpu %d seq %d: data %r"
                               % (cpu, seq, data[:40]))
            prev = self.last_ts.get(cpu)
            if prev is not None and ns < prev:
                self.error("fake_seq cpu %d seq %d: time goes back "
                           "(%d < %d)" % (cpu, seq, ns, prev))
            self.last_ts[cpu] = ns
            s = self.seqs[cpu]
            if s and seq <= s[-1]:
                self.error("fake_seq cpu %d: seq %d after %d" %
                           (cpu, seq, s[-1]))
            s.append(seq)
        elif ev.name == "fake_str":
            cpu, seq, text = int(p["cpu"]), int(p["seq"]), str(p["msg"])
            want = "fakeguest cpu %d n %d %s" % (cpu, seq, "x" * (seq % 48))
            if text != want:
                self.error("fake_str cpu %d n %d: msg %r" % (cpu, seq, text))

    def run(self):
        it = bt2.TraceCollectionMessageIterator(self.args.trace)
        for msg in it:
            if type(msg) is bt2._EventMessageConst:
                self.event(msg)

    def against(self, cpus, tot):
        mode = self.args.expect
        for cpu in sorted(set(cpus) | set(self.seqs)):
            st = cpus.get(cpu)
            got = self.seqs.get(cpu, [])
            run = 0
            if got:
                run = 1
                for a, b in zip(reversed(got[:-1]), reversed(got[1:])):
                    if b != a + 1:
                        break
                    run += 1
            print("cpu %d: %d fake_seq in the trace (%s), last run %d; "
                  "guest wrote %s (%s..%s), dropped %s" %
                  (cpu, len(got),
                   "%d..%d" % (got[0], got[-1]) if got else "none", run,
                   st.get("seq_written") if st else "?",
                   st.get("seq_first") if st else "?",
                   st.get("seq_last") if st else "?",
                   st.get("seq_dropped") if st else "?"))
            if mode == "none":
                continue
            if st is None:
                self.error("cpu %d: in the trace, unknown to the guest" % cpu)
                continue
            first, last = st["seq_first"], st["seq_last"]
            written = st["seq_written"]
            dups = len(got) - len(set(got))
            if dups:
                self.error("cpu %d: %d duplicate fake_seq" % (cpu, dups))
            outside = [s for s in got if s < first or s > last]
            if written and outside:
                self.error("cpu %d: %d fake_seq outside %d..%d, e.g. %d" %
                           (cpu, len(outside), first, last, outside[0]))
            if not written and got:
                self.error("cpu %d: fake_seq in the trace, none written"
                           % cpu)
            if mode == "exact":
                if st.get("seq_dropped", 0):
                    self.error("cpu %d: the guest dropped %d fake_seq" %
                               (cpu, st["seq_dropped"]))
                want = list(range(first, last + 1)) if written else []
                if got != want:
                    missing = sorted(set(want) - set(got))
                    self.error("cpu %d: not exactly %d..%d: %d missing%s" %
                               (cpu, first, last, len(missing),
                                " (first %d)" % missing[0]
                                if missing else ""))
                if len(got) != written:
                    self.error("cpu %d: %d fake_seq stored, %d written" %
                               (cpu, len(got), written))
            elif mode == "written":
                if len(got) != written:
                    missing = len(set(range(first, last + 1)) - set(got))
                    self.error("cpu %d: %d fake_seq stored, %d written "
                               "(%d numbers of %d..%d absent)" %
                               (cpu, len(got), written, missing, first, last))
            elif mode == "recent":
                if not got:
                    self.error("cpu %d: no fake_seq in the snapshot" % cpu)
                    continue
                if got[-1] != last:
                    self.error("cpu %d: the snapshot ends at %d, the guest "
                               "wrote up to %d" % (cpu, got[-1], last))
                if run != len(got):
                    self.error("cpu %d: %d fake_seq but the last run of "
                               "consecutive numbers is %d" %
                               (cpu, len(got), run))
                if run < self.args.min_run:
                    self.error("cpu %d: run of %d < %d" %
                               (cpu, run, self.args.min_run))
        if mode in ("exact", "written"):
            if self.total != tot["total.written"]:
                self.error("%d events in the trace, the guest wrote %d" %
                           (self.total, tot["total.written"]))
            for key in sorted(k for k in tot if k.startswith("event.")):
                i = int(key.split(".")[1])
                if self.ids[i] != tot[key]:
                    self.error("event id %d: %d in the trace, %d written" %
                               (i, self.ids[i], tot[key]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace", nargs="+", help="trace directories")
    ap.add_argument("--stats", action="append", default=[],
                    help="a fake guest --stats file (repeatable)")
    ap.add_argument("--expect", default="exact",
                    choices=["exact", "written", "subset", "recent", "none"])
    ap.add_argument("--global", dest="glob", action="store_true",
                    help="one global ring: every packet has cpu_id 0")
    ap.add_argument("--min-run", type=int, default=1)
    args = ap.parse_args()
    if args.expect != "none" and not args.stats:
        ap.error("--expect %s needs --stats" % args.expect)

    c = Checker(args)
    try:
        c.run()
    except Exception as e:  # bt2 raises its own error types
        print("bt2 cannot read %s: %s: %s" %
              (" ".join(args.trace), type(e).__name__,
               str(e).strip().splitlines()[-1] if str(e).strip() else ""))
        return 2
    cpus, tot = read_stats(args.stats) if args.stats else ({}, {})
    print("%d events (%s)" % (c.total, ", ".join(
        "%s %d" % kv for kv in sorted(c.counts.items()))))
    if c.last_ns is not None:
        print("first_ns %d last_ns %d" % (c.first_ns, c.last_ns))
    c.against(cpus, collections.Counter(tot))
    if c.errors:
        for e in c.errors[:20]:
            print("ERROR " + e)
        if len(c.errors) > 20:
            print("ERROR ... %d more" % (len(c.errors) - 20))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
