"""test_chain.py -- scenario 1: 100,000 items through a chain A -> B -> C of links and pumps.

A: queue src1 (filled with items 1..N), a pump src1.get -> toB.put, link
toB to B's published queue inB. B: a pump inB.get -> toC.put, link toC to
C's published queue inC. C: the test drains inC. At the end every item
arrived once and in order, each quad's VmRSS grew by less than
RSS_LIMIT_KB over the run, and A's and B's ls and stats show their link
with every item acknowledged.
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
        # Each link is in its quad's ls and stats: every item acknowledged.
        states = line.link_states()
        assert sorted(states) == ["A.toB", "B.toC"], states
        for node in line.nodes[:2]:
            with node.client() as c:
                st = c.stats()
            assert (st.links, st.link_items_acked) == (1, N), "%s: %s" % (node.name, st)
            assert st.link_items_sent >= N
        print("chain: %d items in %.1f s; VmRSS growth (KiB) %s; links %s"
              % (N, took, rss.growth(), states))
