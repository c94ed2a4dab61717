"""conftest.py -- fixtures of the Python client's suite: a private quad per test module.

The quad program comes from $QUAD and the package from $PYTHONPATH, both
set by meson (client/python/meson.build). Without python3-protobuf the
meson test skips before pytest runs; here the package must import.
"""
import sys

import pytest

from qua.testing import Daemon


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if rep.failed:
        item.qua_failed = True


@pytest.fixture(scope="module")
def quad(request):
    """A quad on a private socket and on TCP at 127.0.0.1 (a port it picks),
    with a token; its log is printed when a test of the module failed."""
    d = Daemon(listen="127.0.0.1:0", prefix="qua-pytest-")
    yield d
    if any(getattr(i, "qua_failed", False) for i in request.session.items
           if i.module is request.module):
        sys.stderr.write("--- %s\n%s" % (d.log, d.log_text()))
    status = d.stop()
    assert status == 0, "quad exited with status %s:\n%s" % (status, d.log_text())


@pytest.fixture
def client(quad):
    """A fresh unix-socket connection to the module's quad."""
    with quad.client(timeout=10.0) as c:
        yield c
