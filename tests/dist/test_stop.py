"""test_stop.py -- scenario 4: the receiving quad stopped (SIGSTOP) until the sender's window fills.

The test is the producer: it invokes put on link toB (window W) on A, as a
pump would, retrying an item refused with "full" after "notfull". B's
queue inB holds every item. With B stopped the link cannot get acks: at
most W more puts succeed, then a put reports "full" (Invoke's fired) and
the item is not taken; nothing says "notfull" while B stays stopped.
After SIGCONT, "notfull" comes (bound as an event), the rest of the items
go, and the test drains B: every item once and in order.
"""
import signal
import time

import pytest

from distnet import RssWatch
from scenario import Collector, capacity_for, create_link, drain, item

N = 5000
W = 64
RSS_LIMIT_KB = 16 * 1024
STALL_S = 10.0


def put_until_full(c, link, nxt, last, notfull, bound):
    """Puts items nxt.. until one reports "full" or `last` is put; at most
    `bound` puts. Returns (next item to put, whether it ended on full)."""
    for _ in range(bound):
        if nxt > last:
            return nxt, False
        r = c.put(link, item(1, nxt))
        if r.status == 0:
            nxt += 1
            continue
        assert r.fired_names() == ["full"], "put %d: %s" % (nxt, r)
        return nxt, True
    return nxt, False


def produce(c, link, nxt, last, notfull, deadline=60.0):
    """Puts items nxt..last, waiting for "notfull" after each "full"; all
    within `deadline` seconds."""
    end = time.monotonic() + deadline
    while nxt <= last:
        assert time.monotonic() < end, "items %d..%d not taken within %.0f s" % (nxt, last, deadline)
        nxt, full = put_until_full(c, link, nxt, last, notfull, last - nxt + 1)
        if full:
            assert notfull.next(timeout=STALL_S) is not None, \
                "no notfull within %.0f s of full (item %d)" % (STALL_S, nxt)


def test_stopped_receiver_fills_the_window(net):
    a, b = net.node("A"), net.node("B")
    net.connect(a, b)
    with b.client() as cb:
        cb.create("queue", {"capacity": capacity_for(N)}, name="inB")
    with a.client() as c:
        link = create_link(c, a, b, "inB", "toB", window=W)
        notfull = c.bind(link, callback="notfull")
        rss = RssWatch([a, b], RSS_LIMIT_KB)
        # Phase 1: B runs.
        produce(c, link, 1, N // 2, notfull)
        # Phase 2: B stopped; the window fills.
        time.sleep(0.5)  # let B acknowledge what it has
        while notfull.next(timeout=0) is not None:
            pass
        b.daemon.send_signal(signal.SIGSTOP)
        nxt, full = put_until_full(c, link, N // 2 + 1, N, notfull, W + 1)
        taken = nxt - (N // 2 + 1)
        assert full, "with B stopped, %d puts were taken and none reported full (window %d)" % (taken, W)
        assert 0 < taken <= W, "%d puts taken with B stopped, window %d" % (taken, W)
        with a.client() as look:
            state_stopped = look.describe("toB").state
        r = c.put(link, item(1, nxt))
        assert r.fired_names() == ["full"], "still stopped, a put gave %s" % r
        assert notfull.next(timeout=1.0) is None, "notfull while B is stopped"
        # Phase 3: B continues; notfull, then the rest.
        b.daemon.send_signal(signal.SIGCONT)
        assert notfull.next(timeout=STALL_S) is not None, "no notfull within %.0f s of SIGCONT" % STALL_S
        produce(c, link, nxt, N, notfull)
        took = drain(b, "inB", Collector([1], N), N, rss=rss, deadline=60)
        rss.check()
        print("stop: window %d, %d puts taken while stopped; state then: %s; now: %s; drain %.1f s"
              % (W, taken, state_stopped, c.describe(link).state, took))


def test_remote_full_is_full_for_the_producer(net):
    """B's queue holds 8 items and nobody drains it yet. Once link toB
    (window 64) has heard B's queue refuse an item (its state says
    remote=full), a put reports "full" and takes nothing; when B is drained
    every item taken arrives, once and in order."""
    a, b = net.node("A"), net.node("B")
    net.connect(a, b)
    with b.client() as cb:
        cb.create("queue", {"capacity": 8}, name="inB")
    with a.client() as c:
        link = create_link(c, a, b, "inB", "toB", window=W)
        nxt = 1
        for _ in range(12):  # 8 fit; the 9th is refused by B's queue
            r = c.put(link, item(1, nxt))
            if r.status != 0:  # the link heard B refuse already
                assert r.fired_names() == ["full"], "put: %s" % r
                break
            nxt += 1
        assert nxt > 9, "only %d puts taken before full" % (nxt - 1)
        end = time.monotonic() + STALL_S
        while "remote=full" not in c.describe(link).state:
            assert time.monotonic() < end, "no remote=full: %s" % c.describe(link).state
            time.sleep(0.01)
        r = c.put(link, item(1, nxt))
        assert r.status != 0 and r.fired_names() == ["full"], "put with the remote full: %s" % r
        taken = nxt - 1
        took = drain(b, "inB", Collector([1], taken), taken, deadline=30)
        print("remote full: %d items taken, put then gave %s; drain %.1f s; %s"
              % (taken, r, took, c.describe(link).state))

