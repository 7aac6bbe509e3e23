# SPDX-License-Identifier: GPL-2.0
"""region_host.py - what the scripted hosts of tests/e2e share
(hist_host.py, byname_host.py): the region file of an ivshmem-plain
guest, little-endian loads, a host control block that a guest binds to,
and the "ok - ..." / "FAIL - ..." lines take_checks (tests/e2e/lib.sh)
counts.
"""
import mmap
import os
import struct
import sys
import time

SIZE = 16 << 20
CTRL = 0x1000
STATUS = 0x200
CTRL_MAGIC = 0x313054534f485247
REGION_MAGIC = 0x3159414c45525247


class Region:
    """The region file at PATH, created (SIZE bytes) with create."""

    def __init__(self, path, create):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        if create:
            os.ftruncate(fd, SIZE)
        self.m = mmap.mmap(fd, SIZE)

    def u16(self, o):
        return struct.unpack_from("<H", self.m, o)[0]

    def u32(self, o):
        return struct.unpack_from("<I", self.m, o)[0]

    def u64(self, o):
        return struct.unpack_from("<Q", self.m, o)[0]

    def init_ctrl(self, abi_minor, features):
        """A zeroed region with a host block: FEATURES, tracing 0, no
        event enabled, no doorbell peer, seq 1, magic last."""
        m = self.m
        m[0:SIZE] = bytes(SIZE)
        struct.pack_into("<HHI", m, CTRL + 8, 1, abi_minor, 512)
        struct.pack_into("<Q", m, CTRL + 16, features)
        struct.pack_into("<I", m, CTRL + 92, 0xffffffff)
        struct.pack_into("<Q", m, CTRL + 24, 1)
        struct.pack_into("<Q", m, CTRL, CTRL_MAGIC)


def check(cond, name, why=""):
    print(("ok - %s" % name) if cond else ("FAIL - %s: %s" % (name, why)))
    sys.stdout.flush()
    return cond


def wait(cond, secs):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False
