"""qua.client -- a synchronous client of quad's protocol (service qua.v1.Qua).

A Client owns one connection (unix socket or TCP with a token). Every call
sends one request and reads frames until its response arrives; events that
arrive meanwhile (a bound callback fired, an item on a bound callout) are
queued per binding and handed out by Binding iterators or Client.poll().
Methods are named and numbered by the service descriptor of the classes
protoc generated from proto/qua.proto (qua_pb2), never by a list written
here. Framing (proto/README.md): a 4-byte big-endian length, then one
Frame message.

A Client is used by one thread at a time.
"""
import collections
import os
import socket
import struct
import time
from dataclasses import dataclass, field

from . import qua_pb2 as pb
from .errors import DIVERTED, QuaError, status_code, strerror

PROTOCOL_VERSION = 1
# The daemon's default frame limit; the Hello reply gives the real one.
DEFAULT_MAX_FRAME = 1 << 20
DEFAULT_TIMEOUT = 30.0

_ECONN = status_code("ECONN")
_ETIMEDOUT = status_code("ETIMEDOUT")
_EPROTO = status_code("EPROTO")
_EINVAL = status_code("EINVAL")

_LEN = struct.Struct(">I")


def _methods():
    """name -> (index, input class, output class), from the service descriptor."""
    service = pb.DESCRIPTOR.services_by_name["Qua"]
    return {
        m.name: (m.index, getattr(pb, m.input_type.name), getattr(pb, m.output_type.name))
        for m in service.methods
    }


METHODS = _methods()


def default_socket():
    """The daemon's socket when none is given, as qua finds it: $QUA_SOCKET
    (set but empty is an error), else $XDG_RUNTIME_DIR/qua/quad.sock for a
    user other than root, else /run/qua/quad.sock."""
    env = os.environ.get("QUA_SOCKET")
    if env is not None:
        if env == "":
            raise QuaError(_EINVAL, "QUA_SOCKET is set but empty: set it to quad's socket "
                           "path, unset it, or give a path")
        return env
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if os.geteuid() != 0 and xdg:
        return os.path.join(xdg, "qua", "quad.sock")
    return "/run/qua/quad.sock"


@dataclass(frozen=True)
class Event:
    """A bound callback fired (callback is its name), or an item arrived on a
    bound callout (callback is the callout's name, arg the item)."""
    binding: int
    handle: int
    callback: str
    arg: int
    seq: int
    dropped: int


@dataclass(frozen=True)
class Fired:
    """An invoker callback that fired during an Invoke ("full", "empty")."""
    callback: str
    arg: int


@dataclass
class InvokeResult:
    """The outcome of one callentry call: status 0, DIVERTED (1: the call
    ended in a callback, see fired) or negative (batch calls only; a single
    invoke raises instead); result is the returned word or None."""
    status: int
    result: object = None
    fired: list = field(default_factory=list)

    @property
    def diverted(self):
        return self.status == DIVERTED

    def fired_names(self):
        return [f.callback for f in self.fired]


def _invoke_result(reply):
    return InvokeResult(status=reply.status,
                        result=reply.result if reply.has_result else None,
                        fired=[Fired(f.callback, f.arg) for f in reply.fired])


class Binding:
    """A bound callback or callout. Iterating gives its events in order,
    waiting at most the client's timeout for each (QuaError ETIMEDOUT past
    it); a callout binding's iteration ends after its "closed" event (the
    drained queue was closed and emptied: nothing follows it)."""

    def __init__(self, client, binding, handle, name, is_callout):
        self.client = client
        self.id = binding
        self.handle = handle
        self.name = name
        self.is_callout = is_callout
        self.ended = False

    def __iter__(self):
        return self

    def __next__(self):
        if self.ended:
            raise StopIteration
        ev = self.next(self.client.timeout)
        if ev is None:
            raise QuaError(_ETIMEDOUT, "no event on binding %d (%s) within %.1f s"
                           % (self.id, self.name, self.client.timeout))
        return ev

    def next(self, timeout=None):
        """The next event of this binding, waiting at most `timeout` seconds
        (None: the client's timeout; 0: only what has arrived); None when
        none came in time."""
        ev = self.client._next_event(self.id, self.client.timeout if timeout is None else timeout)
        if ev is not None and self.is_callout and ev.callback == "closed":
            self.ended = True
        return ev

    def pending(self):
        """Events of this binding already read and queued."""
        return len(self.client._queues.get(self.id, ()))

    def credit(self, credits):
        """Grants a callout binding `credits` more items."""
        self.client.credit(self.id, credits)

    def unbind(self):
        """Stops the binding; its queued events are discarded."""
        self.client.unbind(self.id)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.client.sock is not None and self.id in self.client._queues:
            self.unbind()


class Client:
    """One connection to quad. Use Client.unix() or Client.tcp(); close()
    (or a with block) ends it, and the daemon then destroys the quajects
    this connection created and did not publish."""

    def __init__(self, sock, timeout=DEFAULT_TIMEOUT):
        self.sock = sock
        self.timeout = timeout
        self.max_frame = DEFAULT_MAX_FRAME
        self.server = None
        self._rbuf = bytearray()
        self._next_id = 1
        self._responses = {}                    # id -> Frame read before its call asked
        self._queues = {}                       # binding -> deque of (arrival, Event)
        self._arrivals = 0
        self._orphans = collections.deque()     # events of unknown bindings

    # --- Connecting -----------------------------------------------------------------------

    @classmethod
    def unix(cls, path=None, client="qua-python", timeout=DEFAULT_TIMEOUT):
        """Connects to the unix socket `path` (default: default_socket()) and
        says Hello. QuaError ECONN when nothing answers there."""
        path = path or default_socket()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        return cls._open(s, path, "", client, timeout, path)

    @classmethod
    def tcp(cls, host, port, token, client="qua-python", timeout=DEFAULT_TIMEOUT, family=0):
        """Connects to host:port over TCP and says Hello with `token`; a wrong
        or missing token is QuaError EAUTH (the daemon closes the connection)."""
        try:
            af, kind, proto, _, addr = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM)[0]
        except OSError as e:
            raise QuaError(_ECONN, "cannot resolve %s: %s" % (host, e.strerror or e)) from None
        s = socket.socket(af, kind, proto)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls._open(s, addr, token, client, timeout, "%s:%s" % (host, port))

    @classmethod
    def _open(cls, s, addr, token, client, timeout, where):
        try:
            s.settimeout(timeout)
            s.connect(addr)
        except OSError as e:
            s.close()
            raise QuaError(_ECONN, "cannot connect to %s: %s" % (where, e.strerror or e)) from None
        c = cls(s, timeout)
        try:
            c.hello(token=token, client=client)
        except BaseException:
            c.close()
            raise
        return c

    def close(self):
        """Closes the connection (idempotent)."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def fileno(self):
        return self.sock.fileno()

    # --- Frames ---------------------------------------------------------------------------

    def _fail(self, code, message):
        self.close()
        raise QuaError(code, message)

    def _send(self, frame):
        if self.sock is None:
            raise QuaError(_ECONN, "the connection is closed")
        data = frame.SerializeToString()
        try:
            self.sock.sendall(_LEN.pack(len(data)) + data)
        except OSError as e:
            self._fail(_ECONN, "cannot send to the daemon: %s" % (e.strerror or e))

    def _read_frame(self, deadline):
        """The next frame, or None when `deadline` (time.monotonic()) passed."""
        while True:
            if len(self._rbuf) >= 4:
                n = _LEN.unpack_from(self._rbuf)[0]
                if n > self.max_frame:
                    self._fail(_EPROTO, "the daemon sent a frame of %d bytes, over the %d "
                               "bytes it announced" % (n, self.max_frame))
                if len(self._rbuf) >= 4 + n:
                    f = pb.Frame()
                    try:
                        f.ParseFromString(bytes(self._rbuf[4:4 + n]))
                    except Exception as e:  # protobuf's DecodeError and kin
                        self._fail(_EPROTO, "undecodable frame from the daemon: %s" % e)
                    del self._rbuf[:4 + n]
                    return f
            if self.sock is None:
                raise QuaError(_ECONN, "the connection is closed")
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                return None
            except OSError as e:
                self._fail(_ECONN, "connection to the daemon failed: %s" % (e.strerror or e))
            if not chunk:
                self._fail(_ECONN, "the daemon closed the connection")
            self._rbuf += chunk

    def _dispatch(self, f):
        """Files a frame that is not the one being waited for."""
        if f.kind == pb.Frame.EVENT:
            e = f.event
            ev = Event(e.binding, e.handle, e.callback, e.arg, e.seq, e.dropped)
            self._arrivals += 1
            q = self._queues.get(ev.binding)
            if q is None:
                self._orphans.append(ev)
            else:
                q.append((self._arrivals, ev))
        elif f.kind == pb.Frame.RESPONSE:
            if f.id == 0:  # the daemon's answer to a frame it could not read
                self._fail(f.status or _EPROTO, f.message or "the daemon refused a frame")
            self._responses[f.id] = f

    def send(self, method, request):
        """Sends a request without waiting (pipelining); returns its id."""
        index = METHODS[method][0]
        rid = self._next_id
        self._next_id += 1
        self._send(pb.Frame(kind=pb.Frame.REQUEST, id=rid, method=index,
                            body=request.SerializeToString()))
        return rid

    def recv(self, method, rid, timeout=None):
        """Waits for the response to request `rid` of `method` and returns its
        output message; QuaError with the daemon's status and message when it
        refused the request, ETIMEDOUT when none came within `timeout`."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        while rid not in self._responses:
            f = self._read_frame(deadline)
            if f is None:
                raise QuaError(_ETIMEDOUT, "no response to %s within %.1f s" % (method, timeout))
            self._dispatch(f)
        f = self._responses.pop(rid)
        if f.status != 0:
            raise QuaError(f.status, f.message or None)
        out = METHODS[method][2]()
        try:
            out.ParseFromString(f.body)
        except Exception as e:
            self._fail(_EPROTO, "undecodable %s reply: %s" % (method, e))
        return out

    def rpc(self, method, request=None, **fields):
        """Calls `method` (a name of service Qua: "Describe") with `request`,
        or a request built from `fields`, and returns the output message."""
        if request is None:
            request = METHODS[method][1](**fields)
        return self.recv(method, self.send(method, request))

    # --- Events ---------------------------------------------------------------------------

    def _next_event(self, binding, timeout):
        deadline = time.monotonic() + timeout
        while True:
            q = self._queues.get(binding)
            if q is None:
                raise QuaError(status_code("EHANDLE"), "binding %d is not bound" % binding)
            if q:
                return q.popleft()[1]
            f = self._read_frame(deadline)
            if f is None:
                return None
            self._dispatch(f)

    def poll(self, timeout=0.0):
        """The next event of any binding in arrival order (events of bindings
        this client does not know, such as late ones after unbind, are
        included), waiting at most `timeout` seconds; None when none came."""
        deadline = time.monotonic() + timeout
        while True:
            if self._orphans:
                return self._orphans.popleft()
            first = None
            for q in self._queues.values():
                if q and (first is None or q[0][0] < first[0][0]):
                    first = q
            if first is not None:
                return first.popleft()[1]
            f = self._read_frame(deadline)
            if f is None:
                return None
            self._dispatch(f)

    # --- The service's methods ------------------------------------------------------------

    def hello(self, token="", client="qua-python"):
        """Says Hello (done by unix() and tcp()); returns the HelloReply and
        takes the daemon's frame limit from it."""
        reply = self.rpc("Hello", version=PROTOCOL_VERSION, token=token, client=client)
        self.server = reply
        if reply.max_frame:
            self.max_frame = reply.max_frame
        return reply

    def types(self):
        """The daemon's quaject types (TypeInfo messages)."""
        return list(self.rpc("ListTypes").types)

    def create(self, type, params=(), name=None):
        """Creates a quaject from parameters (a dict, or "key=value" strings),
        published as `name` when given; returns its handle."""
        if isinstance(params, dict):
            params = ["%s=%s" % kv for kv in params.items()]
        return self.rpc("Create", type=type, params=list(params), name=name or "").handle

    def destroy(self, handle, force=False):
        self.rpc("Destroy", handle=handle, force=force)

    def publish(self, handle, name):
        self.rpc("Publish", handle=handle, name=name)

    def unpublish(self, name):
        self.rpc("Unpublish", name=name)

    def open(self, name):
        """A handle on the quaject published as `name` (ENOTFOUND otherwise)."""
        return self.rpc("Open", name=name).handle

    def wire(self, src, callout, dst, entry):
        """Wires src's callout to dst's callentry."""
        self.rpc("Wire", src=src, callout=callout, dst=dst, entry=entry)

    def unwire(self, src, callout):
        self.rpc("Unwire", src=src, callout=callout)

    def invoke(self, handle, entry, *args):
        """Calls a callentry with word arguments; returns an InvokeResult
        (status 0, or DIVERTED with the callbacks in fired). A negative
        status of the callentry (ECLOSED...) is raised as QuaError."""
        reply = self.rpc("Invoke", handle=handle, entry=entry, args=list(args))
        if reply.status < 0:
            raise QuaError(reply.status, "%s on handle %d: %s" % (entry, handle,
                                                                   strerror(reply.status)))
        return _invoke_result(reply)

    def put(self, handle, word):
        """put(word): the InvokeResult tells whether it fired "full"."""
        return self.invoke(handle, "put", word)

    def get(self, handle):
        """get(): the word taken, or None when the call fired "empty"."""
        return self.invoke(handle, "get").result

    def call(self, handle, entry, *args):
        """Invokes a callentry and returns its result word (None if it has
        none or the call ended in a callback)."""
        return self.invoke(handle, entry, *args).result

    def invoke_batch(self, calls):
        """Runs calls, each (handle, entry, *args), in one request, in order;
        returns an InvokeResult per call. A call that could not run (EHANDLE)
        or failed has its negative status in its own result, and the others
        still run; only a refusal of the whole request raises."""
        req = pb.InvokeBatchRequest(calls=[
            pb.InvokeRequest(handle=c[0], entry=c[1], args=list(c[2:])) for c in calls])
        return [_invoke_result(r) for r in self.rpc("InvokeBatch", req).replies]

    def bind(self, handle, callback=None, callout=None, credits=0):
        """Binds a callback (an event per firing) or a callout (the client is
        its target; one credit per item) of a quaject; returns a Binding."""
        if (callback is None) == (callout is None):
            raise QuaError(_EINVAL, "bind takes exactly one of callback and callout")
        reply = self.rpc("Bind", handle=handle, callback=callback or "",
                         callout=callout or "", credits=credits)
        self._queues[reply.binding] = collections.deque()
        return Binding(self, reply.binding, handle, callback or callout, callout is not None)

    def unbind(self, binding):
        self.rpc("Unbind", binding=binding)
        self._queues.pop(binding, None)

    def credit(self, binding, credits):
        self.rpc("Credit", binding=binding, credits=credits)

    def close_queue(self, handle):
        """Closes a queue (Close): puts then fail with ECLOSED."""
        self.rpc("Close", handle=handle)

    def ls(self):
        """Every quaject this connection may see (QuajectInfo messages), in id
        order. List comes in pages that fit a frame: this asks for each page
        after the last id seen until the daemon says there is no more."""
        out, after = [], 0
        while True:
            page = self.rpc("List", after_id=after)
            out.extend(page.quajects)
            if not page.more:
                return out
            if not page.quajects or page.quajects[-1].id <= after:
                raise QuaError(_EPROTO,
                               "List said more but gave no quaject past #%d" % after)
            after = page.quajects[-1].id

    def describe(self, what):
        """QuajectInfo of a handle (int) or a published name (str)."""
        if isinstance(what, str):
            return self.rpc("Describe", name=what).quaject
        return self.rpc("Describe", handle=what).quaject

    show = describe

    def stats(self):
        return self.rpc("Stats")
