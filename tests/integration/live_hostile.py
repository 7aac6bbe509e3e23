#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile viewers of the agent's LTTng-live server (test_live.sh).

  live_hostile.py PORT garbage        requests outside the protocol: each
                                      connection must be closed by the agent
  live_hostile.py PORT flood N        N connections held open at once: past
                                      the agent's limit they are closed at once
  live_hostile.py PORT stuck SECS VM  attaches VM's session, then asks for
                                      packets for SECS seconds without ever
                                      reading a reply
Prints one line per finding; exits 0 if the agent behaved, 1 if not.
"""
import socket
import struct
import sys
import time

HOST = '127.0.0.1'


def cmd(c, payload=b'', version=0):
    return struct.pack('>QII', len(payload), c, version) + payload


def connect(port):
    s = socket.create_connection((HOST, port), timeout=5)
    s.sendall(cmd(1, struct.pack('>QIII', 0, 2, 4, 1)))
    rep = recv_exact(s, 20)
    return s, rep


def recv_exact(s, n):
    buf = b''
    while len(buf) < n:
        part = s.recv(n - len(buf))
        if not part:
            raise EOFError('closed after %d of %d bytes' % (len(buf), n))
        buf += part
    return buf


def closed_by_peer(s, secs=5):
    """True if the agent closes @s within @secs."""
    s.settimeout(secs)
    try:
        while True:
            if not s.recv(4096):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def garbage(port):
    bad = 0
    cases = {
        'no-handshake': cmd(2),
        'huge-size': struct.pack('>QII', 1 << 40, 4, 0),
        'unknown-command': None,
        'major-3': cmd(1, struct.pack('>QIII', 0, 3, 0, 1)),
        'random': bytes(range(256)) * 4,
    }
    for name, data in cases.items():
        if data is None:
            s, _ = connect(port)
            data = cmd(77, b'\0' * 8)
        else:
            s = socket.create_connection((HOST, port), timeout=5)
        try:
            s.sendall(data)
        except OSError:
            pass
        if closed_by_peer(s):
            print('garbage %s: closed by the agent' % name)
        else:
            print('garbage %s: NOT closed' % name)
            bad += 1
        s.close()
    return bad


def flood(port, n):
    socks, refused = [], 0
    for _ in range(n):
        socks.append(socket.create_connection((HOST, port), timeout=5))
    time.sleep(0.5)
    for s in socks:
        s.setblocking(False)
        try:
            if s.recv(1) == b'':
                refused += 1
        except BlockingIOError:
            pass
        except ConnectionResetError:
            refused += 1
    for s in socks:
        s.close()
    print('flood %d: %d refused' % (n, refused))
    return 0 if refused >= 1 else 1


def stuck(port, secs, vm):
    s, _ = connect(port)
    s.sendall(cmd(2))
    count, = struct.unpack('>I', recv_exact(s, 4))
    sid = None
    for _ in range(count):
        rec = recv_exact(s, 339)
        name = rec[84:].split(b'\0')[0].decode()
        if name == vm:
            sid = struct.unpack('>Q', rec[:8])[0]
    if sid is None:
        print('stuck: no session for %s' % vm)
        return 1
    s.sendall(cmd(8))
    recv_exact(s, 4)
    s.sendall(cmd(3, struct.pack('>QQI', sid, 0, 1)))
    status, nst = struct.unpack('>II', recv_exact(s, 8))
    streams = [struct.unpack('>QQI', recv_exact(s, 4371)[:20])
               for _ in range(nst)]
    data = [sid_ for sid_, _, md in streams if not md]
    # requests, never a reply read: the agent must stop reading them
    s.setblocking(False)
    sent, end = 0, time.time() + secs
    while time.time() < end:
        for st in data:
            try:
                sent += s.send(cmd(4, struct.pack('>Q', st)) +
                               cmd(5, struct.pack('>QQI', st, 0, 65536)))
            except BlockingIOError:
                time.sleep(0.05)
    print('stuck %s: attach status %d, %d streams, %d request bytes sent '
          'and no reply read' % (vm, status, nst, sent))
    s.close()
    return 0 if status == 1 else 1


def main():
    port, what = int(sys.argv[1]), sys.argv[2]
    if what == 'garbage':
        sys.exit(1 if garbage(port) else 0)
    if what == 'flood':
        sys.exit(flood(port, int(sys.argv[3])))
    if what == 'stuck':
        sys.exit(stuck(port, float(sys.argv[3]), sys.argv[4]))
    sys.exit(2)


if __name__ == '__main__':
    main()
