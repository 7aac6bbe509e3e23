#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""vmsync_check.py - the vmsync pairs of a guest trace and its host stream

Reads GUEST_DIR (a session, or a chunk of one) and HOST_DIR (its host/)
with babeltrace2 and checks the records of spec 9.8, as Trace Compass's
VM event matching pairs them by (vm_uid, cnt):

  - both traces are read by babeltrace2 without an error
  - every vmsync record carries one vm_uid, not 0, the same on both sides
  - vmsync_hg_* have even cnt (2q), vmsync_gh_* odd (2q + 1), and no cnt
    appears twice in one of the four events
  - every request q is in all four events (one-to-one pairs), but for the
    last one, which may be in flight when a trace ends; at least --min
    requests are
  - Trace Compass's layout (LttngKernelTrace.validate(), getTracerFromEnv(),
    CtfTmfTrace's host id; read with the search tool, none of it copied):
    each trace's env has domain "kernel", tracer_name "lttng-modules",
    tracer 2.9 or later and a hostname; with --distinct-hosts the two
    hostnames differ (Trace Compass matches a cause only with an effect
    of another host); the four events declare cnt and vm_uid as integers
    (TSDL names "_cnt" and "_vm_uid": a reader drops the leading "_")
  - on the mapped clocks (the metadata's offsets, babeltrace2's
    --clock-seconds): the host's send precedes the guest's receive, and
    the guest's send the host's receive, within the two clocks' stated
    error bounds (env clock_error_ns of each); in the guest,
    vmsync_hg_guest <= vmsync_gh_guest

Prints a summary line, then "OK" or the problems (at most 10); exits 0
when all holds, 1 when a check failed, 2 when a trace cannot be read.
"""
import argparse
import re
import subprocess
import sys

EVENTS = ("vmsync_hg_host", "vmsync_hg_guest", "vmsync_gh_guest",
          "vmsync_gh_host")
LINE = re.compile(r"^\[(\d+)\.(\d{9})\] .*?(vmsync_[a-z]+_[a-z]+): "
                  r".*\{ cnt = (\d+), vm_uid = (\d+) \}")


def read(path, events):
    """babeltrace2's text of @path: its vmsync records into @events"""
    p = subprocess.run(["babeltrace2", "--clock-seconds", "--no-delta",
                        path], capture_output=True, text=True, timeout=120,
                       check=False)
    if p.returncode or "ERROR" in p.stderr:
        print("babeltrace2 %s: exit %d: %s" % (path, p.returncode,
                                                p.stderr[-600:]))
        sys.exit(2)
    for line in p.stdout.splitlines():
        m = LINE.match(line)
        if m and m.group(3) in events:
            events[m.group(3)].append((int(m.group(1)) * 10**9 +
                                       int(m.group(2)), int(m.group(4)),
                                       int(m.group(5))))


def metadata(path):
    """the text of the trace's metadata"""
    with open(path + "/metadata", encoding="utf-8") as f:
        return f.read()


def env_of(text):
    """the metadata's env block, key to value (quotes dropped)"""
    m = re.search(r"\benv \{(.*?)\};", text, re.S)
    return dict((k, v.strip('"')) for k, v in
                re.findall(r"(\w+) = (\"[^\"]*\"|[^;]+);", m.group(1) if m
                           else ""))


def layout(name, text, events, bad):
    """Trace Compass's checks of an LTTng kernel trace, on @text"""
    env = env_of(text)
    if (env.get("domain") != "kernel" or
            env.get("tracer_name") != "lttng-modules" or
            (int(env.get("tracer_major", 0)), int(env.get("tracer_minor", 0)))
            < (2, 9) or not env.get("hostname")):
        bad.append("%s env is not an LTTng 2.9+ kernel trace's: %s" % (
            name, {k: env.get(k) for k in ("domain", "tracer_name",
                                           "tracer_major", "tracer_minor",
                                           "hostname")}))
    for e in events:
        m = re.search(r'event \{\s*name = "?%s"?;.*?fields := struct \{(.*?)'
                      r'\n\t\};' % e, text, re.S)
        if not m or not all(re.search(r"integer \{[^}]*\} _?%s;" % f,
                                      m.group(1)) for f in ("cnt", "vm_uid")):
            bad.append("%s declares no %s with integers cnt and vm_uid" % (
                name, e))
    return env


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("guest")
    ap.add_argument("host")
    ap.add_argument("--min", type=int, default=1,
                    help="requests recorded on both sides, at least")
    ap.add_argument("--distinct-hosts", action="store_true",
                    help="the two traces' hostnames differ (a real guest)")
    a = ap.parse_args()
    ev = {e: [] for e in EVENTS}
    read(a.guest, ev)
    read(a.host, ev)
    bad = []
    genv = layout("the guest trace", metadata(a.guest), EVENTS[1:3], bad)
    henv = layout("the host stream", metadata(a.host),
                  (EVENTS[0], EVENTS[3]), bad)
    if a.distinct_hosts and genv.get("hostname") == henv.get("hostname"):
        bad.append("both traces are of host %r" % genv.get("hostname"))
    bound = (int(genv.get("clock_error_ns", 0)) +
             int(henv.get("clock_error_ns", 0)))

    uids = {u for e in EVENTS for _, _, u in ev[e]}
    if len(uids) != 1 or 0 in uids:
        bad.append("vm_uid values %s" % sorted(uids)[:4])
    by = {}
    for e in EVENTS:
        gh = "_gh_" in e
        by[e] = {}
        for t, cnt, _ in ev[e]:
            if cnt % 2 != gh:
                bad.append("%s cnt %d of the wrong parity" % (e, cnt))
            if cnt // 2 in by[e]:
                bad.append("%s cnt %d twice" % (e, cnt))
            by[e][cnt // 2] = t
    reqs = set().union(*(set(by[e]) for e in EVENTS))
    last = max(reqs, default=0)
    both = {q for q in reqs if all(q in by[e] for e in EVENTS)}
    for q in sorted(reqs - both - {last})[:5]:
        bad.append("request %d only in %s" % (
            q, [e for e in EVENTS if q in by[e]]))
    if len(both) < a.min:
        bad.append("%d requests paired, fewer than %d" % (len(both), a.min))
    worst = 0
    for q in sorted(both):
        t1, rg, sg, t3 = (by[e][q] for e in EVENTS)
        late = max(t1 - rg, sg - t3)
        worst = max(worst, late)
        if late > bound:
            bad.append("request %d: host send %d, guest receive %d, guest "
                       "send %d, host receive %d: %d ns beyond the bound" % (
                           q, t1, rg, sg, t3, late - bound))
        if rg > sg:
            bad.append("request %d: the guest's receive after its send" % q)
    print("# hosts %r and %r" % (genv.get("hostname"), henv.get("hostname")))
    print("# vmsync: vm_uid %s; %d requests in all four events of %d; "
          "records %s; bound %d ns, the worst send after its receive by "
          "%d ns" % (sorted(uids)[:1], len(both), len(reqs),
                     [len(ev[e]) for e in EVENTS], bound, worst))
    print("OK" if not bad else "FAIL " + "; ".join(bad[:10]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
