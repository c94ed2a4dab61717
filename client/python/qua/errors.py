"""qua.errors -- QuaError and the status table, generated from include/qua-status.h.

Every status the daemon sends (Frame.status, InvokeReply.status) is 0 or a
negative code of QUA_STATUS_MAP; _status.py is generated from that table at
build time (gen-status.py), so the names and messages are the C code's.
The module also exports each code by name: qua.ENOTFOUND == -25.
"""
from ._status import STATUSES

_BY_CODE = {code: (name, msg) for code, name, msg in STATUSES}
_BY_NAME = {name: code for code, name, _ in STATUSES}

# qua.EINVAL, qua.ECLOSED, ...: the codes by name.
globals().update(_BY_NAME)

# A callentry's return when the call ended in a callback (QUA_DIVERTED).
DIVERTED = 1


def status_name(code):
    """The name of a status without prefix: "OK", "ENOTFOUND", or "EUNKNOWN"
    for a code not in the table (as qua_status_name)."""
    if code == 0:
        return "OK"
    return _BY_CODE.get(code, ("EUNKNOWN", ""))[0]


def strerror(code):
    """The table's message: "success" for 0, "unknown error" when not in it."""
    if code == 0:
        return "success"
    return _BY_CODE.get(code, ("", "unknown error"))[1]


def status_code(name):
    """The code of a status name ("EHANDLE" -> -22); KeyError when unknown."""
    return _BY_NAME[name]


class QuaError(Exception):
    """A request the daemon refused, or a client-side failure (ECONN, ETIMEDOUT,
    EPROTO). `code` is the negative status, `name` its name ("EHANDLE"),
    `message` the daemon's words when it gave some, else the table's."""

    def __init__(self, code, message=None):
        self.code = code
        self.name = status_name(code)
        self.message = message or strerror(code)
        super().__init__("%s: %s" % (self.name, self.message))
