"""test_client.py -- the Python client against a real quad: calls, callbacks, events, errors, TCP."""
import os
import socket
import struct

import pytest

import qua
from qua import Client, QuaError, qua_pb2


def test_hello_reports_the_server(client):
    info = client.hello()
    assert info.version == qua.PROTOCOL_VERSION
    assert info.server.startswith("quad ")
    assert info.max_frame == 1 << 20
    assert client.max_frame == info.max_frame


def test_methods_come_from_the_service_descriptor():
    # The index of each method is its place in service Qua of qua.proto.
    service = qua_pb2.DESCRIPTOR.services_by_name["Qua"]
    assert [m.name for m in service.methods] == sorted(qua.METHODS, key=lambda n: qua.METHODS[n][0])
    assert qua.METHODS["Hello"][0] == 0 and qua.METHODS["Close"][0] == 17


def test_status_table_is_the_c_table():
    assert qua.ECLOSED == -14 and qua.status_name(-14) == "ECLOSED"
    assert qua.strerror(qua.ENOTFOUND) == "no such published name"
    assert qua.status_name(0) == "OK" and qua.status_name(-999) == "EUNKNOWN"
    assert [c for c, _, _ in qua.STATUSES] == list(range(-1, -len(qua.STATUSES) - 1, -1))


def test_types_list_the_queue_and_its_members(client):
    types = {t.name: t for t in client.types()}
    q = types["queue"]
    assert {e.name for e in q.entries} >= {"put", "get", "count"}
    assert {c.name for c in q.callbacks} >= {"full", "notfull", "empty", "notempty", "closed"}
    assert "pump" in types


def test_create_put_get_round_trip(client):
    q = client.create("queue", {"capacity": 8})
    for v in (1, 2, (1 << 64) - 1):
        r = client.put(q, v)
        assert r.status == 0 and not r.diverted and r.fired == []
    assert client.call(q, "count") == 3
    assert [client.get(q) for _ in range(3)] == [1, 2, (1 << 64) - 1]


def test_get_from_empty_queue_reports_empty(client):
    q = client.create("queue", ["capacity=4"])
    r = client.invoke(q, "get")
    assert r.diverted and r.result is None
    assert r.fired_names() == ["empty"]


def test_full_callback_reported_by_invoke(client):
    q = client.create("queue", {"capacity": 2})
    assert client.put(q, 10).status == 0
    assert client.put(q, 11).status == 0
    r = client.put(q, 12)
    assert r.status == qua.DIVERTED
    assert [(f.callback, f.arg) for f in r.fired] == [("full", 12)]
    assert [client.get(q), client.get(q), client.get(q)] == [10, 11, None]


def test_invoke_batch_runs_in_order_and_reports_each_call(client):
    q = client.create("queue", {"capacity": 2})
    res = client.invoke_batch([(q, "put", 5), (q, "put", 6), (q, "put", 7), (9999, "get"),
                               (q, "get")])
    assert [r.status for r in res] == [0, 0, qua.DIVERTED, qua.EHANDLE, 0]
    assert res[2].fired_names() == ["full"]
    assert res[4].result == 5


def test_bind_iterator_receives_notempty(client):
    q = client.create("queue", {"capacity": 4})
    b = client.bind(q, callback="notempty")
    # The events come while the puts' responses are awaited: the client
    # files them by binding and the calls still get their responses.
    client.put(q, 1)
    client.put(q, 2)
    client.get(q)
    client.get(q)
    client.put(q, 3)
    events = [next(b), next(b)]
    assert [(e.callback, e.seq, e.handle, e.binding) for e in events] == \
        [("notempty", 1, q, b.id), ("notempty", 2, q, b.id)]
    assert b.next(timeout=0.2) is None  # once per transition
    b.unbind()
    with pytest.raises(QuaError) as e:
        b.next(timeout=0)
    assert e.value.name == "EHANDLE"


def test_events_of_two_bindings_keep_their_own_order(client):
    q = client.create("queue", {"capacity": 2})
    ne = client.bind(q, callback="notempty")
    nf = client.bind(q, callback="notfull")
    client.put(q, 1)
    client.put(q, 2)
    client.get(q)  # full -> not full
    ev1 = client.poll(timeout=5)
    ev2 = client.poll(timeout=5)
    assert (ev1.callback, ev1.binding) == ("notempty", ne.id)
    assert (ev2.callback, ev2.binding) == ("notfull", nf.id)
    assert client.poll(timeout=0.1) is None


def test_drain_with_credits(client):
    q = client.create("queue", {"capacity": 64})
    res = client.invoke_batch([(q, "put", i) for i in range(1, 41)])
    assert all(r.status == 0 for r in res)
    d = client.bind(q, callout="get", credits=10)
    first = [next(d) for _ in range(10)]
    assert [(e.callback, e.seq, e.dropped) for e in first] == [("get", i, 0) for i in range(1, 11)]
    got = [e.arg for e in first]
    assert got == list(range(1, 11))
    # No credit, no item: the rest stays in the queue.
    assert d.next(timeout=0.3) is None
    assert client.call(q, "count") == 30
    d.credit(30)
    got += [next(d).arg for _ in range(30)]
    assert got == list(range(1, 41))
    client.close_queue(q)
    closed = next(d)
    assert (closed.callback, closed.arg) == ("closed", 0)
    assert list(d) == []  # nothing follows "closed"


def test_closed_queue_refuses_put_with_eclosed(client):
    q = client.create("queue", {"capacity": 4})
    client.put(q, 1)
    client.close_queue(q)
    client.close_queue(q)  # twice is not an error
    with pytest.raises(QuaError) as e:
        client.put(q, 2)
    assert (e.value.code, e.value.name) == (-14, "ECLOSED")
    assert client.get(q) == 1
    with pytest.raises(QuaError) as e:
        client.get(q)
    assert e.value.name == "ECLOSED"


def test_errors_carry_status_name_code_and_message(client):
    with pytest.raises(QuaError) as e:
        client.open("no-such-name")
    assert e.value.name == "ENOTFOUND" and e.value.code == qua.ENOTFOUND
    assert "no-such-name" in e.value.message
    with pytest.raises(QuaError) as e:
        client.create("no-such-type")
    assert e.value.name == "ENOTYPE"
    with pytest.raises(QuaError) as e:
        client.create("queue", {"capacity": 3})
    assert e.value.name == "ERANGE" and "power of two" in e.value.message
    with pytest.raises(QuaError) as e:
        client.invoke(12345, "get")
    assert e.value.name == "EHANDLE"
    q = client.create("queue")
    with pytest.raises(QuaError) as e:
        client.invoke(q, "nope")
    assert e.value.name == "ENOENTRY"
    with pytest.raises(QuaError) as e:
        client.wire(q, "nope", q, "put")
    assert e.value.name in ("ENOCALLOUT", "ESELF")
    with pytest.raises(QuaError) as e:
        client.bind(q, callback="notempty", callout="get")
    assert e.value.name == "EINVAL"
    # The connection is still good after every refusal.
    assert client.put(q, 1).status == 0


def test_publish_open_describe_ls_stats(quad, client):
    q = client.create("queue", {"capacity": 16}, name="pyq")
    try:
        with quad.client() as other:
            h = other.open("pyq")
            other.put(h, 42)
            info = other.describe("pyq")
            assert info.type == "queue" and info.name == "pyq"
            assert "count=1" in info.state
            assert any(x.name == "pyq" for x in other.ls())
        assert client.get(q) == 42  # published: it outlived the other connection's use
        assert client.show(q).name == "pyq"
        st = client.stats()
        assert st.connections >= 1 and st.requests > 0
    finally:
        client.destroy(q)
    with pytest.raises(QuaError) as e:
        client.describe("pyq")
    assert e.value.name == "ENOTFOUND"


def test_wire_a_pump_between_two_queues(client):
    a = client.create("queue", {"capacity": 128})
    b = client.create("queue", {"capacity": 128})
    p = client.create("pump", {"count": 50})
    client.wire(p, "source", a, "get")
    client.wire(p, "sink", b, "put")
    client.invoke_batch([(a, "put", i) for i in range(1, 51)])
    d = client.bind(b, callout="get", credits=50)
    assert [next(d).arg for _ in range(50)] == list(range(1, 51))
    client.unwire(p, "sink")
    with pytest.raises(QuaError) as e:
        client.unwire(p, "sink")
    assert e.value.name == "ENOTWIRED"


def test_unpublished_quajects_go_with_their_connection(quad, client):
    with quad.client() as other:
        h = other.create("queue")
        qid = other.describe(h).id
    assert all(x.id != qid for x in client.ls())


def test_default_socket_follows_qua_socket(quad, monkeypatch):
    monkeypatch.setenv("QUA_SOCKET", quad.socket)
    assert qua.default_socket() == quad.socket
    with Client.unix() as c:
        assert c.server.version == 1
    monkeypatch.setenv("QUA_SOCKET", "")
    with pytest.raises(QuaError) as e:
        qua.default_socket()
    assert e.value.name == "EINVAL" and "QUA_SOCKET" in e.value.message
    monkeypatch.delenv("QUA_SOCKET")
    if os.geteuid() == 0:
        assert qua.default_socket() == "/run/qua/quad.sock"


def test_tcp_with_token(quad):
    with quad.tcp_client() as c:
        assert c.server.server.startswith("quad ")
        q = c.create("queue", {"capacity": 4})
        c.put(q, 9)
        assert c.get(q) == 9


def test_tcp_wrong_token_refused(quad):
    with pytest.raises(QuaError) as e:
        quad.tcp_client(token="not-the-token")
    assert e.value.name == "EAUTH"
    with pytest.raises(QuaError) as e:
        quad.tcp_client(token="")
    assert e.value.name == "EAUTH"


def test_no_daemon_is_econn(tmp_path):
    with pytest.raises(QuaError) as e:
        Client.unix(str(tmp_path / "nothing.sock"))
    assert e.value.name == "ECONN"
    with pytest.raises(QuaError) as e:  # nothing listens on port 1 of loopback
        Client.tcp("127.0.0.1", 1, token="t")
    assert e.value.name == "ECONN"


def test_oversized_frame_from_the_daemon_is_refused(tmp_path):
    # A fake server announcing a 4 GiB frame: the client refuses it with
    # EPROTO instead of buffering it.
    path = str(tmp_path / "fake.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(path)
    conn, _ = srv.accept()
    conn.sendall(struct.pack(">I", 0xFFFFFFF0))
    client = Client(c, timeout=2.0)
    with pytest.raises(QuaError) as e:
        client.stats()
    assert e.value.name == "EPROTO"
    assert client.sock is None  # the connection is dropped
    conn.close()
    srv.close()


def test_no_response_is_etimedout(tmp_path):
    path = str(tmp_path / "mute.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    with pytest.raises(QuaError) as e:
        Client.unix(path, timeout=0.3)
    assert e.value.name == "ETIMEDOUT"
    srv.close()


def test_pipelined_requests_and_interleaved_events(client):
    # Fifty puts sent without waiting into a queue this connection drains:
    # items come back as events between the responses, and every response
    # still finds its request by id.
    q = client.create("queue", {"capacity": 64})
    d = client.bind(q, callout="get", credits=100)
    ids = [client.send("Invoke", qua_pb2.InvokeRequest(handle=q, entry="put", args=[i]))
           for i in range(1, 51)]
    replies = [client.recv("Invoke", rid) for rid in reversed(ids)]
    assert all(r.status == 0 for r in replies)
    assert [next(d).arg for _ in range(50)] == list(range(1, 51))
    assert d.next(timeout=0.2) is None
