"""test_netem.py -- scenario 2: the chain A -> B -> C over links with netem on both ends.

Every link runs `netem delay 20ms loss 5% reorder 25% duplicate 2%` in
both directions (tunem.py makes the same impairment when the kernel has no
sch_netem). N is smaller than scenario 1's: over a lossy 40 ms round trip
TCP itself is slow. Checks as in scenario 1: every item once and in
order, VmRSS bounded.
"""
from distnet import Impairment, RssWatch
from scenario import Line

N = 20000
RSS_LIMIT_KB = 16 * 1024


def test_chain_under_netem(net):
    imp = Impairment(delay_ms=20, loss=0.05, reorder=0.25, duplicate=0.02)
    with Line(net, ["A", "B", "C"], N, impair=imp) as line:
        rss = RssWatch(line.nodes, RSS_LIMIT_KB)
        line.start()
        took = line.drain(rss=rss, deadline=150)
        rss.check()
        # The impairment was there: TCP had to retransmit on the links.
        retrans = sum(n.tcp_retransmits() for n in line.nodes)
        assert retrans > 0, "no TCP retransmission over links with 5% loss"
        print("netem (%s): %d items in %.1f s; %d TCP retransmissions; VmRSS growth (KiB) %s; "
              "links %s" % (net.links[0][2], N, took, retrans, rss.growth(), line.link_states()))
