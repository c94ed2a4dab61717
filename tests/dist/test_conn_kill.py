"""test_conn_kill.py -- scenario 5: the sender's connections killed (ss -K) while items are in flight.

Two sources on A, each a queue, a pump and a link (toB1, toB2) to B's
queue inB, which the test drains. At every ninth of the items,
`ss -K dst <B's address>` in A kills A's sockets to B (the links'
connections). Each link resends what B did not acknowledge and B drops
what it already applied: every source's items arrive once and in order.
A watcher on A hears each link go "down" and come back "up".
"""
import re
import time

from distnet import RssWatch
from scenario import Line, Watcher

N = 50000
RSS_LIMIT_KB = 16 * 1024
KILLS = 8


def test_connections_killed_in_flight(net):
    with Line(net, ["A", "B"], N, sources=(1, 2)) as line:
        a, b = line.nodes
        killed = []

        def kill():
            # The links may be reconnecting just then: try for at most 2 s.
            end = time.monotonic() + 2.0
            n = 0
            while n == 0 and time.monotonic() < end:
                n = net.kill_connections(a, b.addrs["A"])
                if n == 0:
                    time.sleep(0.01)
            killed.append(n)

        watcher = Watcher(a, line.links)
        try:
            rss = RssWatch(line.nodes, RSS_LIMIT_KB)
            line.start()
            total = line.total
            faults = [(total * k // (KILLS + 1), kill) for k in range(1, KILLS + 1)]
            took = line.drain(rss=rss, faults=faults, deadline=150)
            rss.check()
            assert len(killed) == KILLS and all(killed), "sockets killed per fault: %s" % killed
            watcher.assert_down_then_up()
            # Items were in flight when connections died: the links wrote
            # some again (qua show's resent).
            states = line.link_states()
            resent = sum(int(re.search(r"\bresent=(\d+)", st).group(1)) for st in states.values())
            assert resent > 0, "no item was resent: %s" % states
            print("conn kill: %d items in %.1f s; killed %s; heard %s; VmRSS growth (KiB) %s; "
                  "links %s" % (total, took, killed, watcher.heard, rss.growth(), states))
        finally:
            watcher.close()
