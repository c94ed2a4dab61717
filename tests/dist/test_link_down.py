"""test_link_down.py -- scenario 3: the network link A-B down for 2 s mid-stream, then up.

A pump on A feeds link toB; the test drains B. When a third of the items
have arrived, `ip link set toB down` in A, 2 s later up again. A watcher
(another connection on A) bound to toB's "down" and "up" hears "down",
then "up", alternating, and nothing before the fault. Every item arrives
once and in order; VmRSS stays bounded.
"""
import time

from distnet import RssWatch
from scenario import Line, Watcher

N = 30000
RSS_LIMIT_KB = 16 * 1024
OUTAGE_S = 2.0


def test_link_down_for_2s_midstream(net):
    with Line(net, ["A", "B"], N) as line:
        a, b = line.nodes
        watcher = Watcher(a, ["toB"])
        outage = []

        def take_link_down():
            assert watcher.quiet(), "the watcher heard something before the fault"
            net.link_down(a, b)
            outage.append(time.monotonic())
            time.sleep(OUTAGE_S)
            net.link_up(a, b)

        try:
            rss = RssWatch(line.nodes, RSS_LIMIT_KB)
            line.start()
            took = line.drain(rss=rss, faults=[(N // 3, take_link_down)], deadline=150)
            rss.check()
            assert outage, "the fault was not injected"
            heard = dict(watcher.collect())
            print("link down: %d items in %.1f s; heard %s; VmRSS growth (KiB) %s; links %s"
                  % (N, took, heard, rss.growth(), line.link_states()))
            watcher.assert_down_then_up()
        finally:
            watcher.close()
