"""test_link_down.py -- scenario 3: the network link A-B down for 2 s mid-stream, then up.

The test feeds A's source queue at 10,000 items a second, a pump on A
feeds link toB, the test drains B. When a third of the items
have arrived, `ip link set toB down` in A, 2 s later up again; all the
while A answers requests and `qua show toB` comes to say down. A watcher
(another connection on A) bound to toB's "down" and "up" hears "down",
then "up", alternating, and nothing before the fault. Every item arrives
once and in order; VmRSS stays bounded.
"""
import threading
import time

from distnet import RssWatch
from scenario import Feeder, Line, Watcher

N = 30000
RSS_LIMIT_KB = 16 * 1024
OUTAGE_S = 2.0


def test_link_down_for_2s_midstream(net):
    # The items are fed to A at 10,000 a second, so that the stream lasts
    # 3 s and items are in flight when the path dies.
    with Line(net, ["A", "B"], N, fill=False) as line:
        a, b = line.nodes
        watcher = Watcher(a, ["toB"])
        states = []
        failures = []

        def outage():
            # A link never blocks quad's loop: A answers (within 2 s each)
            # all through the outage, and shows the link's state.
            try:
                with a.client(timeout=2.0) as look:
                    net.link_down(a, b)
                    t0 = time.monotonic()
                    while time.monotonic() - t0 < OUTAGE_S:
                        states.append(look.describe("toB").state)
                        time.sleep(0.05)
            except Exception as e:  # reported by the test's thread
                failures.append(e)
            finally:
                net.link_up(a, b)

        thread = threading.Thread(target=outage)

        def take_link_down():
            assert watcher.quiet(), "the watcher heard something before the fault"
            thread.start()

        try:
            rss = RssWatch(line.nodes, RSS_LIMIT_KB)
            line.start()
            feeder = Feeder(a, line.sources, N).start()
            took = line.drain(rss=rss, faults=[(N // 3, take_link_down)], deadline=150)
            feeder.join()
            thread.join(OUTAGE_S + 10)
            assert not thread.is_alive() and not failures, failures
            rss.check()
            assert states, "the fault was not injected"
            assert any(" state=down " in st for st in states), \
                "qua show never said down during the outage: %s" % states[-1]
            heard = dict(watcher.collect())
            print("link down: %d items in %.1f s; heard %s; VmRSS growth (KiB) %s; links %s"
                  % (N, took, heard, rss.growth(), line.link_states()))
            watcher.assert_down_then_up()
        finally:
            if thread.is_alive():
                thread.join(OUTAGE_S + 10)
            watcher.close()
