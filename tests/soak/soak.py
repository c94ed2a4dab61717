#!/usr/bin/env python3
"""soak.py -- 1,000 connections to one quad for a given time: every reply checked, no leak, RSS bounded.

One process drives every connection from one selector loop (non-blocking
sockets, the protocol's frames built from the generated classes of package
qua), so 1,000 connections cost a file descriptor each and nothing more.
Each connection keeps a model of what it owns, so every reply is checked
against what was asked:

  workers   one request at a time, at random: create a queue or a counter,
            put and get (the value, "full" and "empty" as the model says),
            ls (exactly the quajects it owns), watch (bind "notempty": one
            event per empty-to-not-empty transition, in sequence), wire a
            counter's out to a queue and pass items through it (a wired
            queue refuses Destroy with EBUSY), unwire, destroy (the handle
            then gives EHANDLE), and requests that must be refused
            (unknown type ENOTYPE, a foreign handle EHANDLE).
  slow      pipeline 200 put/get pairs (past quad's 64 in flight), then
  readers   read nothing for 1-3 s, then check every reply and event.
  abrupt    send a request, or half a frame, and close at once; a fresh
  leavers   connection takes the place.

Before and after (all clients gone but the observer's connection): quad's
open descriptors (/proc/PID/fd) and its quaject and connection counts
(Stats) must be what they were. quad's RSS is sampled each second and must
stay under the bound (QUA_SOAK_RSS_MB, default 320, times
QUA_SOAK_RSS_SCALE for sanitizer builds). What quad holds is mostly per
connection: a connection with a binding has an event ring of --max-events
(4,096) records and two index queues, about 200 KiB once used, against some
4 KiB per live queue (measured: 4,000 queues on one connection, 19 MiB);
1,000 connections, most with bindings, and at most 4,000 quajects stay under
320 MiB (measured peaks 160-220 MiB). RSS must also level off once every
worker has bound and filled its quajects (about 20 s): in runs of 45 s or
more the last third may add at most a quarter (and 8 MiB) to the RSS at
two thirds, or something grows with time. Environment: QUA_SOAK_SECONDS
(default 60), QUA_SOAK_CONNECTIONS (default 1000), QUAD (meson sets it).
The soft RLIMIT_NOFILE is raised for this process and quad (which inherits
it): 1,000 connections need more than the usual 1,024.
"""
import collections
import os
import random
import resource
import selectors
import socket
import struct
import sys
import time

from qua.client import METHODS, PROTOCOL_VERSION, Client
from qua.client import pb
from qua.errors import DIVERTED, status_code, status_name
from qua.testing import Daemon, vmrss_kb

SECONDS = float(os.environ.get("QUA_SOAK_SECONDS", "60"))
NCONN = int(os.environ.get("QUA_SOAK_CONNECTIONS", "1000"))
RSS_BOUND_KB = int(float(os.environ.get("QUA_SOAK_RSS_MB", "320")) * 1024
                   * float(os.environ.get("QUA_SOAK_RSS_SCALE", "1")))
SLOW_SHARE = 0.05    # of the connections: slow readers
ABRUPT_SHARE = 0.002  # chance per step that a worker leaves abruptly
MAX_OWNED = 4        # quajects a worker keeps: at most 4,000 live
PIPELINE = 200

EHANDLE = status_code("EHANDLE")
ENOTYPE = status_code("ENOTYPE")
EBUSY = status_code("EBUSY")
_LEN = struct.Struct(">I")


class SoakFailure(Exception):
    pass


def fail(conn, what):
    raise SoakFailure("connection %d (%s): %s" % (conn.n, conn.role, what))


class Conn:
    """One client connection and the model of what it owns."""

    def __init__(self, soak, n, role):
        self.soak, self.n, self.role = soak, n, role
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(soak.daemon.socket)
        self.sock.setblocking(False)
        self.rbuf = bytearray()
        self.wbuf = bytearray()
        self.next_id = 1
        self.inflight = collections.OrderedDict()  # id -> (method, check)
        self.queues = {}      # handle -> {"cap", "items" deque, "binding", "fires"}
        self.counters = {}    # handle -> {"wired": queue handle or None, "value"}
        self.ids = {}         # handle -> daemon id
        self.bindings = {}    # binding -> {"queue", "seq", "got"}
        self.dead = set()     # destroyed handles, to probe once
        self.value = n << 32
        self.paused_until = 0.0
        self.closing = False
        self.ready = False
        self.ended = set()    # bindings of destroyed queues: their last events may come
        soak.sel.register(self.sock, selectors.EVENT_READ, self)
        self.mask = selectors.EVENT_READ
        self.send("Hello", pb.HelloRequest(version=PROTOCOL_VERSION, client="soak"),
                  self.on_hello)

    # --- frames ---------------------------------------------------------------------------

    def send(self, method, req, check):
        rid = self.next_id
        self.next_id += 1
        body = pb.Frame(kind=pb.Frame.REQUEST, id=rid, method=METHODS[method][0],
                        body=req.SerializeToString()).SerializeToString()
        self.wbuf += _LEN.pack(len(body)) + body
        self.inflight[rid] = (method, check)
        self.soak.sent += 1
        self.flush()

    def interest(self):
        m = 0 if time.monotonic() < self.paused_until else selectors.EVENT_READ
        if self.wbuf:
            m |= selectors.EVENT_WRITE
        if m != self.mask:
            if m == 0:
                self.soak.sel.unregister(self.sock)
            elif self.mask == 0:
                self.soak.sel.register(self.sock, m, self)
            else:
                self.soak.sel.modify(self.sock, m, self)
            self.mask = m

    def flush(self):
        if self.wbuf:
            try:
                k = self.sock.send(self.wbuf)
                del self.wbuf[:k]
            except BlockingIOError:
                pass
            except OSError as e:
                fail(self, "send: %s" % e)
        self.interest()

    def readable(self):
        try:
            chunk = self.sock.recv(1 << 16)
        except BlockingIOError:
            return
        except OSError as e:
            fail(self, "recv: %s" % e)
        if not chunk:
            fail(self, "quad closed the connection with %d requests unanswered"
                 % len(self.inflight))
        self.rbuf += chunk
        while len(self.rbuf) >= 4:
            n = _LEN.unpack_from(self.rbuf)[0]
            if len(self.rbuf) < 4 + n:
                break
            f = pb.Frame()
            f.ParseFromString(bytes(self.rbuf[4:4 + n]))
            del self.rbuf[:4 + n]
            self.frame(f)

    def frame(self, f):
        if f.kind == pb.Frame.EVENT:
            self.event(f.event)
            return
        if f.kind != pb.Frame.RESPONSE or f.id not in self.inflight:
            fail(self, "a frame of kind %d for request %d, which is not in flight" % (f.kind, f.id))
        method, check = self.inflight.pop(f.id)
        out = None
        if f.status == 0:
            out = METHODS[method][2]()
            out.ParseFromString(f.body)
        self.soak.replies += 1
        check(f.status, f.message, out)
        if not self.inflight and self.role != "slow":
            self.step()

    def event(self, e):
        b = self.bindings.get(e.binding)
        if e.binding in self.ended:
            if e.callback not in ("notempty", "destroyed"):
                fail(self, "binding %d of a destroyed queue: event %s" % (e.binding, e.callback))
            return
        if b is None:
            fail(self, "an event for binding %d, which it never bound" % e.binding)
        if e.callback == "destroyed" and e.handle == b["queue"] and b.get("destroying"):
            self.ended.add(e.binding)  # the Destroy's reply follows
            return
        if e.callback != "notempty" or e.handle != b["queue"]:
            fail(self, "binding %d: event %s on handle %d, bound notempty on %d"
                 % (e.binding, e.callback, e.handle, b["queue"]))
        if e.seq != b["seq"] + 1 + e.dropped:
            fail(self, "binding %d: event seq %d after %d with %d dropped"
                 % (e.binding, e.seq, b["seq"], e.dropped))
        b["seq"] = e.seq
        b["got"] += 1 + e.dropped
        self.soak.events += 1

    # --- checks -------------------------------------------------------------------------

    def expect_ok(self, what):
        def check(status, message, out):
            if status != 0:
                fail(self, "%s: %s %s" % (what, status_name(status), message))
        return check

    def expect_status(self, what, code):
        def check(status, message, out):
            if status != code:
                fail(self, "%s: %s (%s), expected %s" % (what, status_name(status), message,
                                                         status_name(code)))
        return check

    def on_hello(self, status, message, out):
        if status != 0:
            fail(self, "Hello: %s %s" % (status_name(status), message))
        self.ready = True

    # --- the worker's verbs ------------------------------------------------------------

    def step(self):
        if self.closing or not self.ready or time.monotonic() > self.soak.end:
            return
        if self.role == "worker" and random.random() < ABRUPT_SHARE:
            self.soak.abrupt(self)
            return
        if self.dead:
            h = self.dead.pop()
            self.send("Invoke", pb.InvokeRequest(handle=h, entry="get"),
                      self.expect_status("get on destroyed handle %d" % h, EHANDLE))
            return
        owned = len(self.queues) + len(self.counters)
        r = random.random()
        if owned == 0 or (r < 0.06 and owned < MAX_OWNED):
            self.create()
        elif r < 0.40:
            self.put()
        elif r < 0.70:
            self.get()
        elif r < 0.75:
            self.ls()
        elif r < 0.80:
            self.watch()
        elif r < 0.88:
            self.wire_or_pass()
        elif r < 0.93:
            self.destroy()
        elif r < 0.96:
            self.send("Create", pb.CreateRequest(type="no-such-type"),
                      self.expect_status("create of an unknown type", ENOTYPE))
        else:
            self.send("Invoke", pb.InvokeRequest(handle=1 << 40, entry="get"),
                      self.expect_status("get on a handle never given", EHANDLE))

    def create(self):
        if random.random() < 0.7 or not self.queues:
            cap = random.choice([1, 2, 8, 64])

            def made(status, message, out):
                self.expect_ok("create queue")(status, message, out)
                self.new_handle(out.handle)
                self.queues[out.handle] = {"cap": cap, "items": collections.deque(),
                                           "binding": None, "fires": 0}
            self.send("Create", pb.CreateRequest(type="queue", params=["capacity=%d" % cap]),
                      made)
        else:
            def made(status, message, out):
                self.expect_ok("create counter")(status, message, out)
                self.new_handle(out.handle)
                self.counters[out.handle] = {"wired": None, "value": 0}
            self.send("Create", pb.CreateRequest(type="counter"), made)

    def new_handle(self, h):
        if h == 0 or h in self.queues or h in self.counters:
            fail(self, "Create gave handle %d, zero or already in use" % h)

    def put(self, h=None):
        h = h or random.choice(list(self.queues)) if self.queues else None
        if h is None:
            return self.create()
        q = self.queues[h]
        v = self.value
        self.value += 1
        room = len(q["items"]) < q["cap"]

        def check(status, message, out):
            if room:
                if status != 0 or out.status != 0:
                    fail(self, "put %d into %d/%d: %d/%s" % (v, len(q["items"]), q["cap"],
                                                             out.status if out else 0,
                                                             status_name(status)))
                if not q["items"] and q["binding"] is not None:
                    q["fires"] += 1
                q["items"].append(v)
            elif status != 0 or out.status != DIVERTED or \
                    [c.callback for c in out.fired] != ["full"]:
                fail(self, "put into a full queue: %s %s" % (status_name(status), out))
        self.send("Invoke", pb.InvokeRequest(handle=h, entry="put", args=[v]), check)

    def get(self):
        if not self.queues:
            return self.create()
        h = random.choice(list(self.queues))
        q = self.queues[h]
        want = q["items"][0] if q["items"] else None

        def check(status, message, out):
            if status != 0:
                fail(self, "get: %s %s" % (status_name(status), message))
            if want is None:
                if out.status != DIVERTED or [c.callback for c in out.fired] != ["empty"]:
                    fail(self, "get from an empty queue: %s" % out)
            else:
                if out.status != 0 or not out.has_result or out.result != want:
                    fail(self, "get: %s, expected %d" % (out, want))
                q["items"].popleft()
        self.send("Invoke", pb.InvokeRequest(handle=h, entry="get"), check)

    def ls(self):
        def check(status, message, out):
            self.expect_ok("ls")(status, message, out)
            seen = {qi.handle for qi in out.quajects}
            mine = set(self.queues) | set(self.counters)
            if seen != mine or out.more:
                fail(self, "ls shows handles %s, it owns %s" % (sorted(seen), sorted(mine)))
        self.send("List", pb.ListRequest(), check)

    def watch(self):
        free = [h for h, q in self.queues.items() if q["binding"] is None]
        if not free:
            return self.put()
        h = random.choice(free)

        def check(status, message, out):
            self.expect_ok("bind notempty")(status, message, out)
            self.queues[h]["binding"] = out.binding
            self.bindings[out.binding] = {"queue": h, "seq": 0, "got": 0}
        self.send("Bind", pb.BindRequest(handle=h, callback="notempty"), check)

    def wire_or_pass(self):
        if not self.counters or not self.queues:
            return self.create()
        c = random.choice(list(self.counters))
        k = self.counters[c]
        if k["wired"] is None:
            h = random.choice(list(self.queues))

            def wired(status, message, out):
                self.expect_ok("wire counter.out to queue.put")(status, message, out)
                k["wired"] = h
            self.send("Wire", pb.WireRequest(src=c, callout="out", dst=h, entry="put"), wired)
            return
        h = k["wired"]
        q = self.queues[h]
        r = random.random()
        if r < 0.2:
            def unwired(status, message, out):
                self.expect_ok("unwire")(status, message, out)
                k["wired"] = None
            self.send("Unwire", pb.UnwireRequest(src=c, callout="out"), unwired)
        elif r < 0.3:
            self.send("Destroy", pb.DestroyRequest(handle=h),
                      self.expect_status("destroy of a queue a counter is wired to", EBUSY))
        elif len(q["items"]) < q["cap"]:
            v = self.value
            self.value += 1

            def passed(status, message, out):
                if status != 0 or out.status != 0:
                    fail(self, "pass %d through the counter: %s %s" % (v, status_name(status), out))
                if not q["items"] and q["binding"] is not None:
                    q["fires"] += 1
                q["items"].append(v)
                k["value"] += 1
            self.send("Invoke", pb.InvokeRequest(handle=c, entry="pass", args=[v]), passed)
        else:
            want = k["value"]

            def read(status, message, out):
                if status != 0 or out.status != 0 or out.result != want:
                    fail(self, "counter read %s, expected %d" % (out, want))
            self.send("Invoke", pb.InvokeRequest(handle=c, entry="read"), read)

    def destroy(self):
        wired_to = {k["wired"] for k in self.counters.values()}
        victims = [h for h in self.queues if h not in wired_to] + list(self.counters)
        if not victims:
            return self.put()
        h = random.choice(victims)
        if h in self.queues and self.queues[h]["binding"] is not None:
            self.bindings[self.queues[h]["binding"]]["destroying"] = True

        def gone(status, message, out):
            self.expect_ok("destroy %d" % h)(status, message, out)
            q = self.queues.pop(h, None)
            if q is not None and q["binding"] is not None:
                self.bindings.pop(q["binding"], None)
                self.ended.add(q["binding"])
            self.counters.pop(h, None)
            self.dead.add(h)
        self.send("Destroy", pb.DestroyRequest(handle=h), gone)

    # --- slow readers -------------------------------------------------------------------

    def slow_round(self):
        """Pipelines PIPELINE put/get pairs on its own queue, then stops reading."""
        if not self.queues:
            cap = 4

            def made(status, message, out):
                self.expect_ok("create queue")(status, message, out)
                self.queues[out.handle] = {"cap": cap, "items": collections.deque(),
                                           "binding": None, "fires": 0}

                def bound(status, message, out2):
                    self.expect_ok("bind notempty")(status, message, out2)
                    self.queues[out.handle]["binding"] = out2.binding
                    self.bindings[out2.binding] = {"queue": out.handle, "seq": 0, "got": 0}
                self.send("Bind", pb.BindRequest(handle=out.handle, callback="notempty"), bound)
            self.send("Create", pb.CreateRequest(type="queue", params=["capacity=%d" % cap]), made)
            return
        h = next(iter(self.queues))
        for _ in range(PIPELINE):
            self.put(h)
            q = self.queues[h]
            v = self.value - 1

            def got(status, message, out, v=v, q=q):
                if status != 0 or out.status != 0 or out.result != v:
                    fail(self, "pipelined get: %s %s, expected %d" % (status_name(status), out, v))
                q["items"].popleft()
            self.send("Invoke", pb.InvokeRequest(handle=h, entry="get"), got)
        self.paused_until = time.monotonic() + random.uniform(1.0, 3.0)
        self.interest()


class Soak:
    def __init__(self, daemon, obs):
        self.daemon, self.obs = daemon, obs
        self.timeline = []  # (seconds, RSS KiB, quajects live), every 10 s
        self.sel = selectors.DefaultSelector()
        self.sent = self.replies = self.events = self.abrupts = 0
        self.conns = []
        self.end = 0.0

    def connect(self, n, role):
        c = Conn(self, n, role)
        self.conns[n] = c
        return c

    def abrupt(self, c):
        """Closes c abruptly (after a request, or half a frame) and opens another."""
        body = pb.Frame(kind=pb.Frame.REQUEST, id=c.next_id, method=METHODS["List"][0],
                        body=b"").SerializeToString()
        frame = _LEN.pack(len(body)) + body
        try:
            c.sock.send(frame if random.random() < 0.5 else frame[:len(frame) // 2])
        except OSError:
            pass
        c.closing = True
        if c.mask:
            self.sel.unregister(c.sock)
        c.sock.close()
        self.abrupts += 1
        self.connect(c.n, "worker")

    def run(self):
        nslow = max(1, int(NCONN * SLOW_SHARE))
        self.conns = [None] * NCONN
        for n in range(NCONN):
            self.connect(n, "slow" if n < nslow else "worker")
        self.t0 = time.monotonic()
        self.end = self.t0 + SECONDS
        next_sample = next_scan = 0.0
        self.peak_kb = 0
        while True:
            now = time.monotonic()
            if now >= self.end and now >= next_scan and not any(c.inflight for c in self.conns):
                break
            if now > self.end + 30:
                stuck = [c for c in self.conns if c.inflight]
                raise SoakFailure("%d connections still wait for replies 30 s after the end "
                                  "(first: %d, %s)" % (len(stuck), stuck[0].n,
                                                       list(stuck[0].inflight.values())[:1]))
            if now >= next_sample:
                rss = vmrss_kb(self.daemon.pid)
                if rss is None:
                    raise SoakFailure("quad is gone")
                self.peak_kb = max(self.peak_kb, rss)
                if rss > RSS_BOUND_KB:
                    raise SoakFailure("quad's RSS %d KiB is over the bound %d KiB"
                                      % (rss, RSS_BOUND_KB))
                if not self.timeline or now - self.t0 >= 10 * len(self.timeline):
                    self.timeline.append((now - self.t0, rss, self.obs.stats().quajects))
                next_sample = now + 1.0
            for key, mask in self.sel.select(timeout=0.05):
                c = key.data
                if c.closing:
                    continue
                if mask & selectors.EVENT_WRITE:
                    c.flush()
                if mask & selectors.EVENT_READ:
                    c.readable()
            if now < next_scan:
                continue
            next_scan = now + 0.1
            for c in self.conns:
                if now >= c.paused_until and not c.mask & selectors.EVENT_READ:
                    c.interest()  # a slow reader's pause is over
                if c.ready and not c.inflight and now < self.end:
                    if c.role == "slow":
                        if now >= c.paused_until:
                            c.slow_round()
                    else:
                        c.step()

        self.timeline.append((time.monotonic() - self.t0, vmrss_kb(self.daemon.pid),
                              self.obs.stats().quajects))

    def settle_events(self, timeout=10.0):
        """Waits until every bound queue's transitions have come as events."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            short = [(c, b) for c in self.conns for b in c.bindings.values()
                     if b["got"] < c.queues[b["queue"]]["fires"]]
            if not short:
                return
            for key, mask in self.sel.select(timeout=0.05):
                if mask & selectors.EVENT_READ:
                    key.data.readable()
        c, b = short[0]
        raise SoakFailure("connection %d: binding on %d has %d notempty events, %d transitions"
                          % (c.n, b["queue"], b["got"], c.queues[b["queue"]]["fires"]))


def fd_count(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = NCONN + 256
    if hard != resource.RLIM_INFINITY and hard < need:
        print("soak: RLIMIT_NOFILE hard limit %d is under the %d needed" % (hard, need))
        return 1
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
    d = Daemon(prefix="qua-soak-")
    status = None
    try:
        obs = Client.unix(d.socket, timeout=30.0)
        # Warm up what quad makes once (code memory, worker threads), so
        # that the baseline holds it too.
        q, k = obs.create("queue", ["capacity=4"]), obs.create("counter")
        b = obs.bind(q, callback="notempty")
        obs.wire(k, "out", q, "put")
        obs.call(k, "pass", 1)
        obs.get(q)
        obs.unwire(k, "out")
        obs.unbind(b.id)
        obs.destroy(q)
        obs.destroy(k)
        time.sleep(0.2)
        st0, fd0, rss0 = obs.stats(), fd_count(d.pid), vmrss_kb(d.pid)
        soak = Soak(d, obs)
        t0 = time.monotonic()
        soak.run()
        soak.settle_events()
        mid = obs.stats()
        for c in soak.conns:
            if c.mask:
                soak.sel.unregister(c.sock)
            c.sock.close()
        # quad tears connections down on its loop: wait for the counts to return.
        end = time.monotonic() + 20
        while time.monotonic() < end:
            st1, fd1 = obs.stats(), fd_count(d.pid)
            if (st1.connections, st1.quajects, fd1) == (st0.connections, st0.quajects, fd0):
                break
            time.sleep(0.1)
        rss1 = vmrss_kb(d.pid)
        took = time.monotonic() - t0
        print("soak: %d connections (%d slow readers), %.0f s: %d requests, %d replies checked, "
              "%d events, %d abrupt disconnects; %d quajects live at the end"
              % (NCONN, max(1, int(NCONN * SLOW_SHARE)), took, soak.sent, soak.replies,
                 soak.events, soak.abrupts, mid.quajects))
        print("soak: quad RSS %d KiB before, peak %d KiB (bound %d KiB), %d KiB after; "
              "fds %d before, %d after; quajects %d before, %d after; connections %d before, "
              "%d after" % (rss0, soak.peak_kb, RSS_BOUND_KB, rss1, fd0, fd1, st0.quajects,
                            st1.quajects, st0.connections, st1.connections))
        print("soak: RSS over time: %s" % ", ".join("%.0f s %d KiB (%d quajects)" % t
                                                  for t in soak.timeline))
        print("BENCH soak_rss_peak %d KiB" % soak.peak_kb)
        print("BENCH soak_requests_per_s %.0f req/s" % (soak.replies / took))
        half = [t for t in soak.timeline if t[0] >= SECONDS * 2 / 3]
        if SECONDS >= 45 and half and soak.timeline[-1][1] > half[0][1] * 1.25 + 8192:
            raise SoakFailure("quad's RSS grew from %d KiB at %.0f s to %d KiB at %.0f s"
                              % (half[0][1], half[0][0], soak.timeline[-1][1],
                                 soak.timeline[-1][0]))
        if fd1 != fd0:
            raise SoakFailure("quad holds %d descriptors, %d before the soak" % (fd1, fd0))
        if st1.quajects != st0.quajects or st1.connections != st0.connections:
            raise SoakFailure("quad counts %d quajects and %d connections, %d and %d before"
                              % (st1.quajects, st1.connections, st0.quajects, st0.connections))
        if soak.replies < NCONN:
            raise SoakFailure("only %d replies in all" % soak.replies)
        obs.close()
    except SoakFailure as e:
        print("soak: FAILED: %s" % e)
        d.stop()
        sys.stdout.write("--- quad's log (end)\n%s" % d.log_text()[-1500:])
        return 1
    finally:
        status = d.stop()
    if status != 0:
        print("soak: quad exited with status %s on SIGTERM:\n%s" % (status, d.log_text()[-4000:]))
        return 1
    print("soak: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
