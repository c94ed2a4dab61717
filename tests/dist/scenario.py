"""scenario.py -- what the distributed scenarios share: sources, links, pumps, the drain and its checks.

Items are words (source << 40) | n, n counting 1..N per source, so that
the last stage can check that every source's items arrived exactly once
and in order (Collector). A source is a queue filled before its pump runs,
or fed at a steady rate while it runs (Feeder); the last stage is a queue the test drains through a callout binding with
credits (at most CREDITS items granted ahead), sampling the quads' VmRSS as
it goes. Faults are injected from the drain loop at given item counts, so
they hit mid-stream; Watcher hears the links' down and up. Every wait is bounded: DRAIN_STALL seconds without an
item fails the test, and so does the test's overall deadline.
"""
import threading
import time

SOURCE_SHIFT = 40
CREDITS = 4096
DRAIN_STALL = 30.0
FILL_BATCH = 1024  # quad takes at most 1024 calls per InvokeBatch


def item(source, n):
    return (source << SOURCE_SHIFT) | n


class Collector:
    """Checks items as they arrive: per source, exactly n + 1 after n."""

    def __init__(self, sources, per_source):
        self.next = {s: 1 for s in sources}
        self.per_source = per_source
        self.count = 0

    def take(self, word):
        s, n = word >> SOURCE_SHIFT, word & ((1 << SOURCE_SHIFT) - 1)
        assert s in self.next, "item %#x from unknown source %d (after %d items)" % (word, s, self.count)
        want = self.next[s]
        if n != want:
            what = "a duplicate" if n < want else "a gap (items %d..%d missing)" % (want, n - 1)
            raise AssertionError("source %d: item %d arrived where %d was due: %s (after %d items)"
                                 % (s, n, want, what, self.count))
        assert n <= self.per_source, "source %d: item %d past the last (%d)" % (s, n, self.per_source)
        self.next[s] = n + 1
        self.count += 1

    def complete(self):
        return all(v == self.per_source + 1 for v in self.next.values())


def capacity_for(n):
    """The smallest power of two >= n (queue capacities are powers of two)."""
    c = 1
    while c < n:
        c <<= 1
    return c


def fill_queue(client, queue, source, n):
    """Puts items 1..n of `source` into a queue that has room for them."""
    for base in range(0, n, FILL_BATCH):
        calls = [(queue, "put", item(source, i)) for i in range(base + 1, min(n, base + FILL_BATCH) + 1)]
        res = client.invoke_batch(calls)
        bad = [(i, r) for i, r in enumerate(res) if r.status != 0]
        assert not bad, "filling source %d: put %d gave %s" % (source, base + bad[0][0] + 1, bad[0][1])


def link_params(src, dst, remote, window=None, entry=None):
    """Parameters of a link on node src to the quaject `remote` published on dst."""
    p = {"peer": dst.peer_param(src), "remote": remote, "token-file": dst.token_file}
    if window is not None:
        p["window"] = window
    if entry is not None:
        p["entry"] = entry
    return p


def create_link(client, src, dst, remote, name, window=None):
    """A link quaject on src (published as `name`) to `remote` on dst."""
    return client.create("link", link_params(src, dst, remote, window), name=name)


def pump(client, source_queue, sink, count, name=None):
    """A pump moving `count` items from a queue's get to sink's put
    (published as `name` when given, so that it outlives the client)."""
    p = client.create("pump", {"count": count}, name=name)
    client.wire(p, "source", source_queue, "get")
    client.wire(p, "sink", sink, "put")
    return p


def drain(node, queue_name, collector, total, rss=None, faults=(), deadline=240.0, linger=1.0):
    """Drains the queue published as `queue_name` on node until `total` items
    came, checking each with `collector`. faults: (count, fn) pairs, fn()
    called once when `count` items have arrived. After the last item, waits
    `linger` seconds more: any further item is a duplicate. Returns the
    seconds the drain took."""
    faults = sorted(faults, key=lambda f: f[0])
    t0 = time.monotonic()
    end = t0 + deadline
    with node.client(timeout=30.0) as c:
        h = c.open(queue_name)
        b = c.bind(h, callout="get", credits=CREDITS)
        granted = CREDITS
        while collector.count < total:
            while faults and collector.count >= faults[0][0]:
                faults.pop(0)[1]()
            left = end - time.monotonic()
            assert left > 0, "drain of %s: %d of %d items after %.0f s" % (
                queue_name, collector.count, total, deadline)
            ev = b.next(timeout=min(DRAIN_STALL, left))
            assert ev is not None, "drain of %s: no item for %.0f s after %d of %d" % (
                queue_name, min(DRAIN_STALL, left), collector.count, total)
            assert ev.callback == "get", "drain of %s: unexpected event %s" % (queue_name, ev)
            collector.take(ev.arg)
            if granted - collector.count <= CREDITS // 2:
                b.credit(CREDITS // 2)
                granted += CREDITS // 2
            if rss is not None and collector.count % 1000 == 0:
                rss.sample()
        took = time.monotonic() - t0
        extra = b.next(timeout=linger)
        assert extra is None, "drain of %s: an item past the last: %#x" % (queue_name, extra.arg)
    assert collector.complete()
    return took


class Line:
    """Nodes in a line, names[0] -> names[1] -> ..., each joined to the next by
    a network link and a link quaject. The last node has the published queue
    in<Last> that the test drains; each node between has a published queue
    in<X>, a link to<Next> to the next one's queue and a pump between them.
    The first node has one queue src<s> per source, filled with that
    source's items 1..n, and for each a link (to<Next>, or to<Next><s> with
    several sources) to the next node's queue; its pumps are made by
    start(), so that the flow begins only then. With fill=False the source
    queues start empty (a Feeder fills them). The first node's client
    stays open (self.client) until close()."""

    def __init__(self, net, names, n, sources=(1,), impair=None, window=None, capacity=4096,
                 fill=True):
        self.nodes = [net.node(x) for x in names]
        self.n, self.sources = n, list(sources)
        for a, b in zip(self.nodes, self.nodes[1:]):
            net.connect(a, b, impair)
        total = n * len(self.sources)
        last = self.nodes[-1]
        with last.client() as c:
            c.create("queue", {"capacity": capacity}, name="in" + last.name)
        for x, nxt in reversed(list(zip(self.nodes[1:-1], self.nodes[2:]))):
            with x.client() as c:
                q = c.create("queue", {"capacity": capacity}, name="in" + x.name)
                link = create_link(c, x, nxt, "in" + nxt.name, "to" + nxt.name, window)
                pump(c, q, link, total, name="p" + x.name)
        first, second = self.nodes[0], self.nodes[1]
        self.client = first.client()
        self.links = []
        self.srcs = []
        for s in self.sources:
            q = self.client.create("queue", {"capacity": capacity_for(n)}, name="src%d" % s)
            if fill:
                fill_queue(self.client, q, s, n)
            name = "to" + second.name + ("%d" % s if len(self.sources) > 1 else "")
            self.links.append(name)
            self.srcs.append(q)
            create_link(self.client, first, second, "in" + second.name, name, window)
        self.wait_up()

    def wait_up(self, timeout=10.0):
        """Waits until every link of the line is up (its first "up" is then
        behind us: a watcher bound after this hears only later changes)."""
        end = time.monotonic() + timeout
        while True:
            states = self.link_states()
            if all(" state=up " in st for st in states.values()):
                return
            assert time.monotonic() < end, "links not up within %.0f s: %s" % (timeout, states)
            time.sleep(0.02)

    @property
    def total(self):
        return self.n * len(self.sources)

    @property
    def sink(self):
        return "in" + self.nodes[-1].name

    def start(self):
        """Starts the first node's pumps: items begin to flow."""
        for q, name in zip(self.srcs, self.links):
            pump(self.client, q, self.client.open(name), self.n)

    def collector(self):
        return Collector(self.sources, self.n)

    def drain(self, **kw):
        """Drains the last node's queue, checking every source's items."""
        return drain(self.nodes[-1], self.sink, self.collector(), self.total, **kw)

    def link_states(self):
        """{node.link: qua show's state line} for every link of the line."""
        out = {}
        for x, nxt in zip(self.nodes, self.nodes[1:]):
            with x.client() as c:
                for q in c.ls():
                    if q.type == "link":
                        out["%s.%s" % (x.name, q.name)] = q.state
        return out

    def close(self):
        self.client.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Feeder:
    """Puts each source's items 1..n into its queue on `node` (the queues
    published as src<s>), `batch` items per source every 1/rate_batches
    seconds, from a thread with a connection of its own: a producer that
    keeps producing while faults happen. join() waits for it (bounded) and
    raises what went wrong in it."""

    def __init__(self, node, sources, n, batch=100, rate_batches=100.0):
        self.node, self.sources, self.n = node, list(sources), n
        self.batch, self.period = batch, 1.0 / rate_batches
        self.error = None
        self.thread = threading.Thread(target=self._run, name="feeder")

    def _run(self):
        try:
            with self.node.client(timeout=30.0) as c:
                queues = {s: c.open("src%d" % s) for s in self.sources}
                due = time.monotonic()
                for base in range(0, self.n, self.batch):
                    for s, q in queues.items():
                        top = min(self.n, base + self.batch)
                        res = c.invoke_batch([(q, "put", item(s, i)) for i in range(base + 1, top + 1)])
                        assert all(r.status == 0 for r in res), "feeding src%d: %s" % (s, res)
                    due += self.period
                    time.sleep(max(0.0, due - time.monotonic()))
        except BaseException as e:  # raised again by join()
            self.error = e

    def start(self):
        self.thread.start()
        return self

    def join(self, timeout=60.0):
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the feeder did not finish within %.0f s" % timeout
        if self.error is not None:
            raise self.error


class Watcher:
    """A connection of its own on `node` bound to the "down" and "up"
    callbacks of the links published as `links`."""

    def __init__(self, node, links):
        self.client = node.client()
        self.names = {}
        for name in links:
            h = self.client.open(name)
            self.names[h] = name
            for cb in ("down", "up"):
                self.client.bind(h, callback=cb)
        self.heard = {name: [] for name in links}
        self.settled = False

    def quiet(self):
        """True when nothing was heard so far."""
        return self.client.poll(timeout=0) is None and not any(self.heard.values())

    def collect(self, settle=10.0):
        """Collects every event that has come, then waits until each link's
        last one is "up" (at most `settle` seconds, the first time);
        returns {link: [callbacks in order]}."""
        end = time.monotonic() + (0.0 if self.settled else settle)
        self.settled = True
        while True:
            done = all(h and h[-1] == "up" for h in self.heard.values())
            ev = self.client.poll(timeout=0 if done else max(0.0, end - time.monotonic()))
            if ev is None:
                return self.heard
            self.heard[self.names[ev.handle]].append(ev.callback)

    def assert_down_then_up(self):
        """Each link heard "down" first, "up" last, the two alternating."""
        for name, h in self.collect().items():
            assert h[:1] == ["down"], "%s: the watcher heard %s, not down first" % (name, h)
            assert h[-1:] == ["up"], "%s: the watcher heard %s, not up last" % (name, h)
            assert all(x != y for x, y in zip(h, h[1:])), "%s: down and up do not alternate: %s" % (
                name, h)

    def close(self):
        self.client.close()
