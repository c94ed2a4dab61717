"""conftest.py -- fixtures of the distributed suite: a Net per test, torn down whatever happens.

The suite needs root (network namespaces), ip and ss (iproute2) and the
quad under test ($QUAD, set by meson); without them the whole run exits 77,
which meson reports as skipped. At the start, namespaces left behind by a
test process that no longer exists are removed (cleanup_stale).
"""
import os
import shutil
import signal
import sys

import pytest

import distnet


def _interrupt(sig, frame):
    raise KeyboardInterrupt("SIGTERM")


def pytest_sessionstart(session):
    missing = []
    if os.geteuid() != 0:
        missing.append("root (network namespaces)")
    for prog in ("ip", "ss"):
        if shutil.which(prog) is None:
            missing.append(prog + " (iproute2)")
    if missing:
        pytest.exit("skipped: the distributed suite needs " + ", ".join(missing), returncode=77)
    try:
        distnet.run("ip", "netns", "list")
    except Exception as e:  # no permission for namespaces in this container
        pytest.exit("skipped: ip netns does not work here: %s" % e, returncode=77)
    # meson's timeout sends SIGTERM: turn it into an interruption, so that
    # the fixtures' finalizers still tear the test's world down.
    signal.signal(signal.SIGTERM, _interrupt)
    gone = distnet.cleanup_stale()
    if gone:
        sys.stderr.write("distnet: removed stale namespaces %s\n" % " ".join(gone))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if outcome.get_result().failed:
        item.qua_failed = True


@pytest.fixture
def net(request):
    """A fresh Net; closed after the test, with the quads' logs printed
    when it failed. A teardown that leaves something behind fails the test."""
    n = distnet.Net()
    yield n
    if getattr(request.node, "qua_failed", False):
        for node in n.nodes.values():
            if node.daemon is not None:
                sys.stderr.write("--- quad %s (%s)\n%s" % (node.name, node.ns,
                                                           node.daemon.log_text()[-20000:]))
    problems = n.close()
    if n.tunem_counters:
        sys.stderr.write(n.tunem_counters)
    if problems:
        for node in n.nodes.values():
            sys.stderr.write("--- quad %s\n%s" % (node.name, node.daemon.log_text()[-20000:]))
    assert not problems, problems
