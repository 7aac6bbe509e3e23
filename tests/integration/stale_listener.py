#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""stale_listener.py - UNIX sockets that a dead process listens on

  stale_listener.py SECONDS PATH...

Replaces each PATH (a stale socket file) with a listening socket created
by a child process that then exits, while this process keeps the
sockets open for SECONDS (or until SIGTERM). A connect() to PATH then
succeeds, but SO_PEERCRED names a process that no longer exists: the
state a SIGKILLed agent leaves for a moment, while the kernel tears down
its io_uring, whose pending polls still hold the listening sockets.
Prints "ready" once the sockets listen.
"""
import os
import signal
import socket
import sys
import time


def main():
    if len(sys.argv) < 3:
        print(__doc__.split("\n\n")[1].strip())
        return 2
    secs = float(sys.argv[1])
    paths = sys.argv[2:]
    parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    pid = os.fork()
    if pid == 0:
        socks = []
        for p in paths:
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(p)
            s.listen(8)
            socks.append(s)
        socket.send_fds(child, [b"x"], [s.fileno() for s in socks])
        os._exit(0)
    _, fds, _, _ = socket.recv_fds(parent, 1, len(paths))
    os.waitpid(pid, 0)          # the listener's process is gone
    held = [socket.socket(fileno=fd) for fd in fds]
    print("ready", flush=True)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    time.sleep(secs)
    del held
    return 0


if __name__ == "__main__":
    sys.exit(main())
