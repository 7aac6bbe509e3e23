#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""relay_check.py CONSOLE MSGS MSGS2 CHANNELS MSGS5 STATUS_JSON - check /gr/e2e-relay's
console lines and the client channels the host stored under CHANNELS
(<session>/channels)

The example client grclient.ko (guest-module/examples/grclient/grclient.c)
writes message k of CPU c as a 12-byte head {0x6772636c, c, k} and
k % 61 pattern bytes (c * 7 + k + j) & 0xff. From that this script knows
what every relay file must hold, byte for byte:
  load1 (no-overwrite, 64 x 4096): all MSGS messages of the CPU in order;
  (CPU 0's file of load1 and load2 is read from its mapping, sub-buffer
  by sub-buffer with GR_RELAY_GET_SUBBUF / PUT_SUBBUF, by grread mmap);
  load2 (overwrite, 4 x 4096): the newest 3 finished sub-buffers, the
  packing simulated as the relay core does it (a message that does not fit
  starts the next sub-buffer; the flush at load finishes the last one);
  load3: as load1, read with poll()/mmap()/read() and sendfile() by the
  example's reader grread ("GR: GRREAD" lines: its own checks).
and compares sizes and sha256 with what the guest read, and that a second
read returned nothing. load4 is published to the host (spec 16): the
guest's open() of its relay file is refused and the host's
grclient/grclient_<cpu> holds all MSGS messages of the CPU, byte for byte.
load5 ("grloss", 4 x 4096, MSGS5 messages per CPU) was written while the
agent was stopped: the host stored a whole prefix of each CPU's messages,
and the rest are exactly the lost_full of its `status --json` entry
(STATUS_JSON) and the client's own dropped count. load6 ("grunbind") was
published while the agent was stopped, then the device unbound: its
relay files in the guest hold every message, the host stored none.
The klog channel, stored by the host as text (klog/klog_0.txt, "<guest
timestamp> <text>"), must hold the client's lines of loads 1-5 in
order, with non-decreasing timestamps.
Prints "ok - ..." / "FAIL - ..." lines for take_checks (tests/e2e/lib.sh).
"""
import hashlib
import json
import re
import struct
import sys

SUBBUF = 4096


def msg(c, k):
    head = struct.pack('<III', 0x6772636c, c, k)
    return head + bytes((c * 7 + k + j) & 0xff for j in range(k % 61))


def subbufs(c, count):
    """The finished sub-buffers of CPU c's ring after count messages."""
    out, cur = [], b''
    for k in range(count):
        m = msg(c, k)
        if len(cur) + len(m) > SUBBUF:
            out.append(cur)
            cur = b''
        cur += m
    if cur:
        out.append(cur)
    return out


def cpus(spec):
    res = []
    for part in spec.split(','):
        a, _, b = part.partition('-')
        res.extend(range(int(a), int(b or a) + 1))
    return res


def check(ok, name, why=''):
    print(('ok - %s' % name) if ok else ('FAIL - %s: %s' % (name, why)))


def prefix_of(data, c):
    """How many of CPU c's messages data holds from message 0 on, or -1
    if it holds anything else."""
    k, off = 0, 0
    while off < len(data):
        m = msg(c, k)
        if data[off:off + len(m)] != m:
            return -1
        off += len(m)
        k += 1
    return k


def check_load5(log, online, chans, msgs5, status_path):
    """load5: written while the agent was stopped; returns the client's
    dropped count"""
    check('GR: RELAY load5 ok' in log and 'GR: RELAY unload5 ok' in log,
          'grloss (load5, agent stopped) loaded and unloaded')
    m = re.search(r'GR: RELAY load5 (\d+) messages per CPU written, '
                  r'(\d+) dropped', log)
    dropped = int(m.group(2)) if m else -1
    check(m is not None and int(m.group(1)) == msgs5,
          'load5: the client says how many it dropped',
          m.group(0) if m else 'no line')
    kept = 0
    for c in online:
        try:
            got = open('%s/grloss/grloss_%d' % (chans, c), 'rb').read()
        except OSError:
            got = b''
        n = prefix_of(got, c)
        check(0 < n < msgs5, 'load5 cpu %d: the host stored exactly the '
              'first messages, whole (%d of %d)' % (c, n, msgs5),
              '%d bytes are not a prefix of the messages' % len(got))
        kept += max(n, 0)
    try:
        st = json.load(open(status_path))
        st = st['vms'][0] if 'vms' in st else st
        ch = [x for x in st['channels'] if x['name'] == 'grloss']
    except (OSError, ValueError, KeyError, IndexError) as e:
        ch = []
        print('# status: %s' % e)
    ch = ch[0] if ch else {}
    lost = ch.get('lost_full', -1)
    written = msgs5 * len(online)
    check(lost > 0 and lost == dropped and kept + lost == written,
          'load5: stored + lost_full = written exactly (%d + %d = %d), and '
          'lost_full is what the client dropped' % (kept, lost, written),
          'stored %d, lost_full %d, client dropped %d' % (kept, lost,
                                                          dropped))
    others = {k: ch.get(k, -1) for k in (
        'lost_too_big', 'lost_nested', 'overwritten', 'lost_back',
        'invalid', 'skipped', 'write_errors')}
    check(all(v == 0 for v in others.values()),
          'load5: no loss of another cause, nothing invalid', repr(others))
    return dropped


def check_load6(log, online, chans, msgs):
    """load6: published while the agent was stopped, then unbound"""
    check('GR: RELAY load6 ok' in log and 'GR: RELAY load6 unbound' in log
          and 'GR: RELAY unload6 ok' in log,
          'grunbind (load6) loaded, the device unbound, unloaded')
    check('GR: RELAY load6 open' not in log,
          'load6: the relay files open once the device is gone')
    for c in online:
        want = b''.join(msg(c, k) for k in range(msgs))
        m = re.search(r'GR: RELAY load6 cpu %d bytes (\d+) sha256 (\w+) '
                      r'again (\d+)' % c, log)
        v = (int(m.group(1)), m.group(2), int(m.group(3))) if m else \
            (-1, '', -1)
        check(v[0] == len(want) and
              v[1] == hashlib.sha256(want).hexdigest() and v[2] == 0,
              'load6 cpu %d: back in guest memory at unbind, the relay '
              'file holds every message (%d bytes)' % (c, len(want)),
              m.group(0) if m else 'no line')
    stored = 0
    for c in online:
        try:
            stored += len(open('%s/grunbind/grunbind_%d' % (chans, c),
                               'rb').read())
        except OSError:
            pass
    check(stored == 0, 'load6: the stopped host stored none of it',
          '%d bytes stored' % stored)


def main():
    log = open(sys.argv[1], 'rb').read().decode('latin-1')
    msgs, msgs2 = int(sys.argv[2]), int(sys.argv[3])
    m = re.search(r'GR: RELAY online (\S+)', log)
    online = cpus(m.group(1)) if m else []
    check(bool(online), 'the guest said which CPUs are online')
    files = {}
    for load, cpu, nbytes, sha, again in re.findall(
            r'GR: RELAY (load\d) cpu (\d+) bytes (\d+) sha256 (\w+) '
            r'again (\d+)', log):
        files[(load, int(cpu))] = (int(nbytes), sha, int(again))
    for load in ('load1', 'load2', 'load3'):
        check('GR: RELAY %s ok' % load in log, 'grclient %s loaded' % load)
        mine = sorted(c for (ld, c) in files if ld == load)
        check(set(online) <= set(mine),
              '%s: a relay file per online CPU' % load,
              'files %s, online %s' % (mine, online))
        for c in online:
            if (load, c) not in files:
                continue
            if load != 'load2':
                want = b''.join(msg(c, k) for k in range(msgs))
            else:
                want = b''.join(subbufs(c, msgs2)[-3:])
            nbytes, sha, again = files[(load, c)]
            check(nbytes == len(want) and
                  sha == hashlib.sha256(want).hexdigest(),
                  '%s cpu %d: the relay file holds exactly what the '
                  'client wrote (%d bytes, padding removed)' %
                  (load, c, len(want)),
                  'read %d bytes sha256 %s' % (nbytes, sha))
            check(again == 0, '%s cpu %d: read() consumed it' % (load, c),
                  '%d bytes on a second read' % again)
    m = re.search(r'GR: GRREAD read poll-ready (\d) mmap-ro (\d) '
                  r'mmap-rw-refused (\d) mmap-matches-read (\d) bytes (\d+) '
                  r'poll-after (\d)', log)
    v = [int(x) for x in m.groups()] if m else [0] * 6
    check(v[0] == 1, 'poll(): readable once sub-buffers are finished')
    check(v[1] == 1 and v[2] == 1,
          'mmap(): the whole buffer maps read-only, a writable map is '
          'refused', 'ro %d rw-refused %d' % (v[1], v[2]))
    check(v[3] == 1, 'mmap(): the mapping shows what read() returned')
    check(v[5] == 0, 'poll(): not readable once read() consumed all')
    maps = re.findall(r'GR: GRREAD mmap poll-ready (\d) subbufs (\d+) '
                      r'bytes (\d+) stale (\d+) lost (\d+) poll-after (\d) '
                      r'(\S+)', log)
    check(len(maps) == 2 and all(x[6] == 'ok' and x[3] == '0'
                                 for x in maps),
          'mmap() with GR_RELAY_GET_SUBBUF/PUT_SUBBUF: CPU 0\'s file of '
          'load1 and load2 (no-overwrite, overwrite) read sub-buffer by '
          'sub-buffer from the mapping', repr(maps))
    check(len(maps) == 2 and all(x[0] == '1' and x[5] == '0'
                                 for x in maps),
          'poll() in both modes: readable before, not after they were '
          'consumed', repr(maps))
    m = re.search(r'GR: GRREAD sendfile bytes (\d+) (\S+)', log)
    check(len(online) < 2 or (m and m.group(2) == 'ok'),
          'sendfile() copies a relay file', m.group(0) if m else 'no line')
    check('GR: RELAY files left' not in log,
          'the relay files went away with the client')

    chans = sys.argv[4]
    check('GR: RELAY load4 ok' in log and 'GR: RELAY unload4 ok' in log,
          'grclient load4 (published to the host) loaded and unloaded')
    check('GR: RELAY load4 guest-open refused' in log,
          'load4: the guest reader is refused while the host consumes')
    for c in online:
        want = b''.join(msg(c, k) for k in range(msgs))
        try:
            got = open('%s/grclient/grclient_%d' % (chans, c), 'rb').read()
        except OSError as e:
            got = str(e).encode()
        check(got == want, 'load4 cpu %d: the host stored exactly what the '
              'client wrote (%d bytes, padding removed)' % (c, len(want)),
              '%d bytes stored' % len(got))

    try:
        lines = open('%s/klog/klog_0.txt' % chans, 'rb').read().decode(
            'latin-1').splitlines()
    except OSError:
        lines = []
    recs = []
    for line in lines:
        ts, _, text = line.partition(' ')
        recs.append((int(ts) if ts.isdigit() else -1, text))
    check(bool(recs), 'klog: the host stored %d text lines' % len(recs))
    dropped = check_load5(log, online, chans, int(sys.argv[5]),
                          sys.argv[6])
    check_load6(log, online, chans, msgs)
    want = []
    for n, count, drop in ((64, msgs, 0), (4, msgs2, 0), (64, msgs, 0),
                           (64, msgs, 0), (4, int(sys.argv[5]), dropped)):
        want.append('grclient: open, %d x 4096 bytes per buffer' % n)
        want.append(sorted('grclient: cpu %d wrote %d messages' %
                           (c, count) for c in online))
        want.append('grclient: done, %d dropped' % drop)
    got = [r[1] for r in recs]
    flat, i = [], 0
    for w in want:
        if isinstance(w, list):
            flat.append(sorted(got[i:i + len(w)]))
            i += len(w)
        else:
            flat.append(got[i] if i < len(got) else None)
            i += 1
    check(flat == want and i == len(got),
          'klog: the client\'s lines of loads 1-5, in order', repr(got))
    ts = [r[0] for r in recs]
    check(all(t > 0 for t in ts) and ts == sorted(ts),
          'klog: every line has a guest timestamp, in order', repr(ts))

main()
