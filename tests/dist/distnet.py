"""distnet.py -- the distributed harness: quads in network namespaces the test makes, and faults.

A Net is one test's world. Each node is a network namespace named
"qdist<pid>n<k>-<node>" (the test process's pid, a counter, the node's
name) running one quad: its unix socket in a private folder (the test's
control path, from the root namespace) and TCP on port 7070 of its
namespace with a token file of its own. Nodes are joined by point-to-point
links with addresses 10.77.<link>.1/30 and .2/30 that exist only inside the
two namespaces; nothing routes between links, so traffic stays between
the namespaces the test made.

A link is a veth pair, or, when asked for an impairment, a veth pair with
`tc qdisc ... netem` on both ends; on a kernel without sch_netem the same
impairment comes from tunem.py, a user-space forwarder between two TUN
devices (see its header). Faults: link_down/link_up (ip link set DEV
down/up), kill_connections (ss -K in a namespace), and SIGSTOP/SIGCONT of a
quad (Node.daemon.send_signal).

Teardown (Net.close, run by the test's fixture even when the test fails):
quads stopped (SIGCONT first, SIGTERM, SIGKILL after 10 s), forwarders
stopped, namespaces deleted (which deletes their devices), folders removed.
Every process the harness starts has PR_SET_PDEATHSIG, and cleanup_stale()
removes namespaces left by a test process that is gone (killed before its
teardown), killing what still runs in them. Every wait here is bounded.
"""
import ctypes
import itertools
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager

from qua import Client
from qua.testing import Daemon, die_with_parent, vmrss_kb

PREFIX = "qdist"
PORT = 7070
CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)
_counter = itertools.count(1)
_HERE = os.path.dirname(os.path.abspath(__file__))


def run(*argv, check=True, timeout=20.0):
    """Runs a command (bounded); its stdout. CalledProcessError with stderr on failure."""
    p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=timeout)
    if check and p.returncode != 0:
        raise subprocess.CalledProcessError(p.returncode, argv, p.stdout, p.stderr)
    return p.stdout


def _setns_fd(fd, what):
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "setns %s: %s" % (what, os.strerror(e)))


def enter_netns(name):
    """Moves the calling thread into network namespace `name` (for a child
    before exec)."""
    fd = os.open("/run/netns/" + name, os.O_RDONLY)
    try:
        _setns_fd(fd, name)
    finally:
        os.close(fd)


@contextmanager
def in_netns(name):
    """Runs a block with this thread in namespace `name`: sockets created
    there belong to it for their whole life. The thread returns after."""
    home = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        enter_netns(name)
        try:
            yield
        finally:
            _setns_fd(home, "back")
    finally:
        os.close(home)


def netns_list():
    """Names of the network namespaces under /run/netns."""
    out = run("ip", "netns", "list", check=False)
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def _owner_pid(ns, prefix=PREFIX):
    m = re.match(prefix + r"(\d+)n\d+-", ns)
    return int(m.group(1)) if m else None


def _kill_netns_processes(ns):
    for pid in run("ip", "netns", "pids", ns, check=False).split():
        try:
            os.kill(int(pid), signal.SIGCONT)
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


def _delete_netns(ns, deadline=5.0):
    """Kills what runs in ns and deletes it; True when it is gone."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        _kill_netns_processes(ns)
        run("ip", "netns", "delete", ns, check=False)
        if ns not in netns_list():
            return True
        time.sleep(0.05)
    return False


def _dead(pid):
    return pid is not None and pid != os.getpid() and not os.path.exists("/proc/%d" % pid)


def cleanup_stale(prefix=PREFIX):
    """Deletes namespaces of this harness (named prefix<pid>n<k>-...) whose
    test process is gone, and its quads' folders (prefix<pid>-<node>-...
    in the temporary folder); returns the namespaces' names."""
    gone = []
    for ns in netns_list():
        if _dead(_owner_pid(ns, prefix)):
            _delete_netns(ns)
            gone.append(ns)
    tmp = tempfile.gettempdir()
    for name in os.listdir(tmp):
        m = re.match(prefix + r"(\d+)-", name)
        if m and _dead(int(m.group(1))):
            shutil.rmtree(os.path.join(tmp, name), ignore_errors=True)
    return gone


def has_netem():
    """Whether the kernel has sch_netem: tried on a dummy device in a scratch namespace."""
    ns = "%s%dn0-probe" % (PREFIX, os.getpid())
    run("ip", "netns", "add", ns)
    try:
        run("ip", "-n", ns, "link", "add", "probe0", "type", "veth", "peer", "name", "probe1")
        p = subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "probe0",
                            "root", "netem", "delay", "1ms"],
                           capture_output=True, text=True, timeout=10)
        return p.returncode == 0
    finally:
        _delete_netns(ns)


class Impairment:
    """netem's parameters for both directions of a link."""

    def __init__(self, delay_ms=20, loss=0.05, reorder=0.25, duplicate=0.02):
        self.delay_ms, self.loss, self.reorder, self.duplicate = delay_ms, loss, reorder, duplicate

    def netem_args(self):
        return ["netem", "delay", "%gms" % self.delay_ms, "loss", "%g%%" % (self.loss * 100),
                "reorder", "%g%%" % (self.reorder * 100), "duplicate",
                "%g%%" % (self.duplicate * 100)]


class Node:
    """One namespace and its quad."""

    def __init__(self, net, name):
        self.net = net
        self.name = name
        self.ns = "%s%dn%d-%s" % (PREFIX, os.getpid(), net.id, name)
        self.daemon = None
        self.addrs = {}  # peer node name -> this node's address on the link to it
        self.devs = {}   # peer node name -> this node's device on the link to it

    def start(self, args=()):
        self.daemon = Daemon(listen="0.0.0.0:%d" % PORT, args=args, token="tok-" + self.ns,
                             prefix="%s%d-%s-" % (PREFIX, os.getpid(), self.name),
                             name="quad " + self.name, preexec=lambda: enter_netns(self.ns))
        return self

    @property
    def token_file(self):
        return self.daemon.token_file

    def client(self, timeout=30.0):
        """A client on the node's unix socket (from the root namespace)."""
        return self.daemon.client(timeout)

    def tcp_client_from(self, other, token=None, timeout=30.0):
        """A client over TCP to this node's quad, from inside node `other`'s
        namespace, to this node's address on their link."""
        with in_netns(other.ns):
            return Client.tcp(self.addrs[other.name], PORT,
                              self.daemon.token if token is None else token,
                              client="qdist-" + other.name, timeout=timeout)

    def peer_param(self, other):
        """peer=HOST:PORT for a link quaject on `other` that reaches this node."""
        return "%s:%d" % (self.addrs[other.name], PORT)

    def rss_kb(self):
        return vmrss_kb(self.daemon.pid)

    def tcp_retransmits(self):
        """Segments retransmitted by the TCP connections open in the
        namespace (the totals of `ss -ti`'s retrans:N/TOTAL)."""
        out = self.sh("ss", "-t", "-i", "-n")
        return sum(int(m) for m in re.findall(r"\bretrans:\d+/(\d+)", out))

    def sh(self, *argv, check=True):
        """Runs a command in the node's namespace (ip netns exec)."""
        return run("ip", "netns", "exec", self.ns, *argv, check=check)


class Net:
    """One test's namespaces, links, quads and forwarders; close() removes them all."""

    def __init__(self):
        self.id = next(_counter)
        self.nodes = {}
        self.links = []
        self.procs = []
        self._netem = None
        self.closed = False
        self.tunem_counters = ""

    def node(self, name, args=()):
        """A new namespace `name` with lo up and a quad in it (started at once)."""
        n = Node(self, name)
        run("ip", "netns", "add", n.ns)
        self.nodes[name] = n
        run("ip", "-n", n.ns, "link", "set", "lo", "up")
        return n.start(args)

    def connect(self, a, b, impair=None):
        """A point-to-point link between nodes a and b: 10.77.<k>.1 on a,
        .2 on b. Devices are named after the other end ("toB" in a).
        With `impair`, netem on both ends (or tunem.py without sch_netem)."""
        k = len(self.links) + 1
        dev_a, dev_b = "to" + b.name, "to" + a.name
        a.addrs[b.name], b.addrs[a.name] = "10.77.%d.1" % k, "10.77.%d.2" % k
        a.devs[b.name], b.devs[a.name] = dev_a, dev_b
        tun = impair is not None and not self.netem_available()
        if tun:
            self._start_tunem(a, dev_a, b, dev_b, impair, seed=k)
            for n, dev, peer in ((a, dev_a, b), (b, dev_b, a)):
                run("ip", "-n", n.ns, "addr", "add", n.addrs[peer.name], "peer",
                    peer.addrs[n.name], "dev", dev)
        else:
            run("ip", "link", "add", dev_a, "netns", a.ns, "type", "veth",
                "peer", "name", dev_b, "netns", b.ns)
            for n, dev, peer in ((a, dev_a, b), (b, dev_b, a)):
                run("ip", "-n", n.ns, "addr", "add", n.addrs[peer.name] + "/30", "dev", dev)
        for n, dev in ((a, dev_a), (b, dev_b)):
            run("ip", "-n", n.ns, "link", "set", dev, "up")
            if impair is not None and not tun:
                n.sh("tc", "qdisc", "add", "dev", dev, "root", *impair.netem_args())
        self.links.append((a, b, "tunem" if tun else ("netem" if impair else "veth")))
        return k

    def netem_available(self):
        if self._netem is None:
            self._netem = has_netem()
        return self._netem

    def _start_tunem(self, a, dev_a, b, dev_b, imp, seed):
        p = subprocess.Popen(
            [sys.executable, os.path.join(_HERE, "tunem.py"), a.ns, dev_a, b.ns, dev_b, str(imp.delay_ms),
             str(imp.loss), str(imp.reorder), str(imp.duplicate), str(seed)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            preexec_fn=die_with_parent, text=True)
        self.procs.append(p)
        line = _readline_bounded(p, 10.0)
        if line.strip() != "ready":
            raise RuntimeError("tunem.py did not start: %r %s" % (line, p.stderr.read()
                                                                  if p.poll() is not None else ""))

    def link_down(self, a, b):
        run("ip", "-n", a.ns, "link", "set", a.devs[b.name], "down")

    def link_up(self, a, b):
        run("ip", "-n", a.ns, "link", "set", a.devs[b.name], "up")

    def kill_connections(self, node, dst):
        """ss -K in node's namespace: kills its TCP sockets to address dst;
        returns how many it killed (ss prints each)."""
        out = node.sh("ss", "-K", "-t", "-n", "dst", dst)
        return sum(1 for line in out.splitlines()[1:] if line.strip())

    def close(self):
        """Tears everything down; returns the problems seen (empty when clean)."""
        problems = []
        if self.closed:
            return problems
        self.closed = True
        for n in self.nodes.values():
            if n.daemon is not None:
                st = n.daemon.stop()
                if st is None:
                    problems.append("quad %s had to be killed" % n.name)
                elif st != 0:
                    problems.append("quad %s exited with status %d" % (n.name, st))
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(5.0)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait(5.0)
            self.tunem_counters += p.stderr.read()
        for n in self.nodes.values():
            if not _delete_netns(n.ns):
                problems.append("namespace %s could not be deleted" % n.ns)
        return problems


def _readline_bounded(p, timeout):
    """The first line of a child's stdout, read within `timeout` seconds."""
    end = time.monotonic() + timeout
    fd = p.stdout.fileno()
    buf = b""
    while time.monotonic() < end and b"\n" not in buf:
        r, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if not r:
            break
        chunk = os.read(fd, 256)
        if not chunk:
            break
        buf += chunk
    return buf.decode(errors="replace")


class RssWatch:
    """Samples the quads' VmRSS; check() says whether each stayed within
    `limit_kb` of its first sample."""

    def __init__(self, nodes, limit_kb):
        self.nodes = list(nodes)
        # QUA_DIST_RSS_SCALE (default 1) widens the bound for sanitizer
        # builds, whose quarantine of freed memory and shadow pages make
        # RSS growth say nothing of quad's own; .ci/run sets it for ASan
        # only, and the plain make test run checks the real bound.
        self.limit_kb = limit_kb * int(os.environ.get("QUA_DIST_RSS_SCALE", "1"))
        self.first = {n.name: n.rss_kb() for n in self.nodes}
        self.peak = dict(self.first)

    def sample(self):
        for n in self.nodes:
            kb = n.rss_kb()
            if kb is not None and kb > self.peak[n.name]:
                self.peak[n.name] = kb

    def growth(self):
        return {name: self.peak[name] - self.first[name] for name in self.first}

    def check(self):
        self.sample()
        bad = {k: v for k, v in self.growth().items() if v > self.limit_kb}
        assert not bad, "quad VmRSS grew past %d KiB: %s (first %s, peak %s)" % (
            self.limit_kb, bad, self.first, self.peak)
