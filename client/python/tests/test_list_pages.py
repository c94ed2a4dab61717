"""test_list_pages.py -- Client.ls() gathers every page of List, not only the first."""
import pytest

from qua.testing import Daemon


@pytest.fixture(scope="module")
def small_frames():
    """A quad whose 2 KiB frames hold only a few quajects per List page."""
    d = Daemon(args=["--max-frame", "2048"], prefix="qua-pytest-pages-")
    yield d
    assert d.stop() == 0, d.log_text()


def test_ls_gathers_every_page(small_frames):
    with small_frames.client(timeout=10.0) as c:
        names = ["page-%02d-%s" % (i, "x" * 40) for i in range(40)]
        for n in names:
            c.create("counter", name=n)
        first = c.rpc("List")
        assert first.more and 0 < len(first.quajects) < 40  # more than one page
        got = c.ls()
        assert sorted(x.name for x in got) == names
        ids = [x.id for x in got]
        assert ids == sorted(ids) and len(set(ids)) == 40  # in id order, each once


def test_ls_of_one_page(small_frames):
    with small_frames.client(timeout=10.0) as c:
        before = {x.id for x in c.ls()}
        h = c.create("queue")
        qid = c.describe(h).id
        assert {x.id for x in c.ls()} == before | {qid}
