"""test_harness.py -- the harness itself: quads in namespaces over TCP with tokens, faults, teardown."""
import os
import shutil
import signal
import subprocess
import tempfile
import time

import pytest

import distnet
from distnet import Impairment, Net, RssWatch
from scenario import Collector, capacity_for, drain, fill_queue, item, pump
from qua import QuaError
from qua.testing import die_with_parent


def chain(net, names="ABC", impair=None):
    nodes = [net.node(n) for n in names]
    for a, b in zip(nodes, nodes[1:]):
        net.connect(a, b, impair)
    return nodes


def test_quads_in_namespaces_talk_over_tcp_with_tokens(net):
    a, b, c = chain(net)
    with b.tcp_client_from(a) as cb:
        q = cb.create("queue", {"capacity": 8})
        cb.put(q, 5)
        assert cb.get(q) == 5
    with c.tcp_client_from(b) as cc:
        assert cc.stats().connections >= 1
    with pytest.raises(QuaError) as e:
        b.tcp_client_from(a, token="tok-wrong")
    assert e.value.name == "EAUTH"
    # Links are point to point: A has no route to C's address.
    with pytest.raises(QuaError) as e:
        b.addrs["A"] = c.addrs["B"]  # C's address, as if B were there
        b.tcp_client_from(a, timeout=2.0)
    assert e.value.name == "ECONN"
    # The addresses exist only inside the namespaces.
    assert "10.77." not in distnet.run("ip", "-o", "addr")
    assert "10.77.1.1/30" in a.sh("ip", "-o", "addr")


def test_teardown_removes_namespaces_processes_and_folders():
    net = Net()
    try:
        a, b = chain(net, "AB")
        pids = [a.daemon.pid, b.daemon.pid]
        dirs = [a.daemon.dir, b.daemon.dir]
        names = [a.ns, b.ns]
        b.daemon.send_signal(signal.SIGSTOP)  # a stopped quad goes too
    finally:
        assert net.close() == []
    assert net.close() == []
    assert not any(os.path.exists("/proc/%d" % p) for p in pids)
    assert not any(os.path.exists(d) for d in dirs)
    assert not set(names) & set(distnet.netns_list())


def test_stale_namespaces_of_a_dead_test_are_removed():
    dead = subprocess.Popen(["true"])
    dead.wait()
    # A prefix of its own, so that other test processes starting meanwhile
    # (meson runs them in parallel) do not clean this one up first.
    prefix = distnet.PREFIX + "T"
    ns = "%s%dn1-X" % (prefix, dead.pid)
    distnet.run("ip", "netns", "add", ns)
    folder = tempfile.mkdtemp(prefix="%s%d-X-" % (prefix, dead.pid))
    sleeper = subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "30"], preexec_fn=die_with_parent)
    try:
        end = time.monotonic() + 5
        while not distnet.run("ip", "netns", "pids", ns).strip() and time.monotonic() < end:
            time.sleep(0.02)
        mine = Net()
        mine.node("Y")
        try:
            assert distnet.cleanup_stale(prefix) == [ns]
            assert not os.path.exists(folder)
            assert ns not in distnet.netns_list()
            # A live test's namespaces are kept.
            assert mine.nodes["Y"].ns not in distnet.cleanup_stale()
            assert mine.nodes["Y"].ns in distnet.netns_list()
            assert sleeper.wait(5) == -signal.SIGKILL
        finally:
            assert mine.close() == []
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
        distnet.run("ip", "netns", "delete", ns, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def test_delayed_link_delays_every_round_trip(net):
    a, b = chain(net, "AB", impair=Impairment(delay_ms=20, loss=0, reorder=0, duplicate=0))
    with b.tcp_client_from(a, timeout=20.0) as cb:
        rtts = []
        for _ in range(5):
            t0 = time.monotonic()
            cb.stats()
            rtts.append(time.monotonic() - t0)
        # 20 ms each way: no request can come back in less than 40 ms.
        assert min(rtts) >= 0.039, "round trips %s: the delay is not applied" % rtts


def test_impaired_link_still_delivers_in_order(net):
    a, b = chain(net, "AB", impair=Impairment(delay_ms=20, loss=0.05, reorder=0.25, duplicate=0.02))
    with b.tcp_client_from(a, timeout=20.0) as cb:
        q = cb.create("queue", {"capacity": 512})
        for base in (0, 100, 200):
            res = cb.invoke_batch([(q, "put", i) for i in range(base + 1, base + 101)])
            assert all(r.status == 0 for r in res)
        got = []
        for _ in range(3):
            got += [r.result for r in cb.invoke_batch([(q, "get")] * 100)]
        assert got == list(range(1, 301))


def test_link_down_stops_traffic_and_up_restores_it(net):
    a, b = chain(net, "AB")
    cb = b.tcp_client_from(a, timeout=10.0)
    try:
        cb.stats()
        cb.timeout = 1.0
        net.link_down(a, b)
        with pytest.raises(QuaError) as e:
            cb.stats()
        assert e.value.name == "ETIMEDOUT"
        net.link_up(a, b)
        cb.timeout = 10.0
        # The reply was only delayed: TCP retransmits it once the link is up.
        cb.recv("Stats", cb._next_id - 1)
        assert cb.stats().connections >= 1
    finally:
        cb.close()


def test_killed_connection_is_econn(net):
    a, b = chain(net, "AB")
    with b.tcp_client_from(a, timeout=5.0) as cb:
        cb.stats()
        assert net.kill_connections(a, b.addrs["A"]) == 1
        with pytest.raises(QuaError) as e:
            cb.stats()
        assert e.value.name == "ECONN"
    with b.tcp_client_from(a, timeout=5.0) as cb:
        assert cb.stats().connections >= 1


def test_stopped_quad_answers_after_sigcont(net):
    (a,) = [net.node("A")]
    with a.client(timeout=0.5) as c:
        a.daemon.send_signal(signal.SIGSTOP)
        with pytest.raises(QuaError) as e:
            c.stats()
        assert e.value.name == "ETIMEDOUT"
        a.daemon.send_signal(signal.SIGCONT)
        c.timeout = 10.0
        c.recv("Stats", c._next_id - 1)
        assert c.stats().requests >= 2


def test_collector_flags_duplicates_gaps_and_strangers():
    c = Collector([1, 2], 3)
    for w in (item(1, 1), item(2, 1), item(1, 2)):
        c.take(w)
    with pytest.raises(AssertionError, match="duplicate"):
        c.take(item(1, 2))
    with pytest.raises(AssertionError, match="gap"):
        c.take(item(2, 3))
    with pytest.raises(AssertionError, match="unknown source"):
        c.take(item(3, 1))
    c.take(item(1, 3))
    c.take(item(2, 2))
    assert not c.complete()
    c.take(item(2, 3))
    assert c.complete()
    with pytest.raises(AssertionError, match="past the last"):
        c.take(item(2, 4))


def test_drain_checks_a_pump_chain_in_one_quad(net):
    a = net.node("A")
    n = 20000
    with a.client() as c:
        src = c.create("queue", {"capacity": capacity_for(n)})
        mid = c.create("queue", {"capacity": 1024})
        c.create("queue", {"capacity": 1024}, name="out")
        out = c.open("out")
        fill_queue(c, src, 1, n)
        rss = RssWatch([a], limit_kb=16 * 1024)
        pump(c, src, mid, n)
        pump(c, mid, out, n)
        drain(a, "out", Collector([1], n), n, rss=rss, deadline=60)
        rss.check()
