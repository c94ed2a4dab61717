"""test_chain.py -- scenario 1: 100,000 items through a chain A -> B -> C of links and pumps.

A: queue src1 (filled with items 1..N), a pump src1.get -> toB.put, link
toB to B's published queue inB. B: a pump inB.get -> toC.put, link toC to
C's published queue inC. C: the test drains inC. At the end every item
arrived once and in order, and each quad's VmRSS grew by less than
RSS_LIMIT_KB over the run.
"""
from distnet import RssWatch
from scenario import Line

N = 100000
RSS_LIMIT_KB = 16 * 1024


def test_chain_of_100000_items(net):
    with Line(net, ["A", "B", "C"], N) as line:
        rss = RssWatch(line.nodes, RSS_LIMIT_KB)
        line.start()
        took = line.drain(rss=rss, deadline=150)
        rss.check()
        print("chain: %d items in %.1f s; VmRSS growth (KiB) %s; links %s"
              % (N, took, rss.growth(), line.link_states()))
