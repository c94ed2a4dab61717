"""qua -- a Python client of quad, the quaject daemon (protocol qua.v1).

    import qua
    with qua.Client.unix("/run/qua/quad.sock") as c:
        q = c.create("queue", {"capacity": 4})
        c.put(q, 7)
        for ev in c.bind(q, callout="get", credits=1):
            print(ev.arg)   # 7
            break

Errors are QuaError, carrying the daemon's status name, code and message;
the codes are also module constants (qua.ENOTFOUND). The protocol classes
(qua.qua_pb2) are generated from proto/qua.proto at build time.
"""
from .client import (DEFAULT_TIMEOUT, METHODS, PROTOCOL_VERSION, Binding, Client, Event, Fired,
                     InvokeResult, default_socket)
from .errors import DIVERTED, STATUSES, QuaError, status_code, status_name, strerror
from .errors import _BY_NAME as _codes

globals().update(_codes)
