#!/usr/bin/env python3
"""tunem.py -- netem's delay, loss, reordering and duplication in user space, between two TUN devices.

Usage: tunem.py NETNS_A DEV_A NETNS_B DEV_B DELAY_MS LOSS REORDER DUPLICATE SEED

For kernels built without sch_netem (tc answers "Specified qdisc kind is
unknown"), the distributed harness makes an impaired point-to-point link
from two TUN devices instead of a veth pair: this program creates DEV_A in
network namespace NETNS_A and DEV_B in NETNS_B (the namespaces' files under
/run/netns), and forwards every IP packet read from one to the other with
the impairment `tc qdisc add dev X root netem delay D loss L reorder R
duplicate P` applies to each direction, as netem(8) describes it:

  - loss L: the packet is dropped with probability L;
  - duplicate P: with probability P it is sent twice;
  - reorder R: with probability R it goes at once, otherwise after D ms,
    so that packets sent at once overtake delayed ones (netem's gap 1);
  - at most LIMIT (1000, netem's default) packets wait per direction; past
    that, packets are dropped, as netem's queue limit does.

Addresses and link state are the harness's business (ip addr/link on the
devices). The program prints "ready" once both devices exist, then runs
until SIGTERM, until its standard input closes, or until its parent dies
(PR_SET_PDEATHSIG): nothing outlives the test that started it. A packet
written to a device that is down is dropped, like a frame sent on a veth
whose peer is down. On exit it prints its counters on standard error.
"""
import ctypes
import fcntl
import heapq
import os
import random
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
LIMIT = 1000

libc = ctypes.CDLL(None, use_errno=True)


def setns(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "setns %s: %s" % (path, os.strerror(e)))
    finally:
        os.close(fd)


def open_tun(netns, name):
    """A TUN device `name` created in namespace `netns`; its fd (non-blocking)."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        setns("/run/netns/" + netns)
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
        return fd
    finally:
        if libc.setns(home, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), "setns back")
        os.close(home)


class Direction:
    """One way of the link: packets read from src, written to dst after the impairment."""

    def __init__(self, src, dst, rng, delay, loss, reorder, dup):
        self.src, self.dst = src, dst
        self.rng, self.delay, self.loss, self.reorder, self.dup = rng, delay, loss, reorder, dup
        self.waiting = 0
        self.counts = dict(read=0, sent=0, lost=0, duplicated=0, reordered=0, overflow=0, down=0)

    def take(self, pkt, now, heap, seq):
        self.counts["read"] += 1
        if self.rng.random() < self.loss:
            self.counts["lost"] += 1
            return seq
        copies = 1
        if self.rng.random() < self.dup:
            copies = 2
            self.counts["duplicated"] += 1
        for _ in range(copies):
            if self.waiting >= LIMIT:
                self.counts["overflow"] += 1
                continue
            due = now + self.delay
            if self.rng.random() < self.reorder:
                due = now
                self.counts["reordered"] += 1
            heapq.heappush(heap, (due, seq, self, pkt))
            self.waiting += 1
            seq += 1
        return seq

    def send(self, pkt):
        self.waiting -= 1
        try:
            os.write(self.dst, pkt)
            self.counts["sent"] += 1
        except OSError:  # the device is down (EIO) or its queue is full: the packet is lost
            self.counts["down"] += 1


def main(argv):
    if len(argv) != 10:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    ns_a, dev_a, ns_b, dev_b = argv[1:5]
    delay, loss, reorder, dup = float(argv[5]) / 1000.0, float(argv[6]), float(argv[7]), float(argv[8])
    rng = random.Random(int(argv[9]))
    libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() == 1:
        return 1
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    fa = open_tun(ns_a, dev_a)
    fb = open_tun(ns_b, dev_b)
    ways = {fa: Direction(fa, fb, rng, delay, loss, reorder, dup),
            fb: Direction(fb, fa, rng, delay, loss, reorder, dup)}
    print("ready", flush=True)
    heap, seq = [], 0
    stdin = sys.stdin.fileno()
    while not stop:
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            _, _, way, pkt = heapq.heappop(heap)
            way.send(pkt)
        timeout = max(0.0, heap[0][0] - now) if heap else 0.5
        try:
            ready, _, _ = select.select([fa, fb, stdin], [], [], timeout)
        except InterruptedError:
            continue
        if stdin in ready and not os.read(stdin, 4096):
            break
        now = time.monotonic()
        for fd in ready:
            if fd == stdin:
                continue
            for _ in range(64):  # a bounded burst per device, then the timers again
                try:
                    pkt = os.read(fd, 65536)
                except BlockingIOError:
                    break
                except OSError:
                    break
                seq = ways[fd].take(pkt, now, heap, seq)
    for name, way in ((dev_a + "->" + dev_b, ways[fa]), (dev_b + "->" + dev_a, ways[fb])):
        sys.stderr.write("tunem %s %s\n" % (name, " ".join("%s=%d" % kv for kv in way.counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
