"""qua.testing -- a private quad for tests: started in a fresh folder, stopped for sure.

Daemon starts quad (the program named by $QUAD, as meson passes it) with
its unix socket in a private folder and, when asked, a TCP listener with a
token file; its standard error goes to quad.log there. The daemon gets
PR_SET_PDEATHSIG, so it dies with the test process even when that one is
killed; stop() ends it (SIGTERM, then SIGKILL after 10 s) and removes the
folder. `preexec` runs in the child before quad starts (the distributed
harness enters a network namespace there). Every wait is bounded.
"""
import ctypes
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from .client import Client
from .errors import QuaError

_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def die_with_parent():
    """For a child: SIGKILL when the process (thread) that started it goes."""
    _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def quad_path():
    """The quad program under test: $QUAD (set by meson)."""
    path = os.environ.get("QUAD")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError("set QUAD to the quad program to test (meson does)")
    return path


def vmrss_kb(pid):
    """VmRSS of a process in KiB, from /proc; None when it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def write_token(path, token):
    """Writes a token file readable by its owner only, as quad requires."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")


_TCP_LINE = re.compile(r"listening on tcp (\[[^\]]+\]|[^ ]+):(\d+)")


class Daemon:
    """A quad in its own folder. listen="ADDR:PORT" (port 0 picks one) adds
    TCP with a fresh token; `args` are more quad options."""

    def __init__(self, listen=None, args=(), token="qua-test-token", prefix="qua-py-",
                 preexec=None, name="quad"):
        self.name = name
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.socket = os.path.join(self.dir, "quad.sock")
        self.log = os.path.join(self.dir, "quad.log")
        self.token_file = os.path.join(self.dir, "token")
        self.token = token
        self.tcp_host = None
        self.tcp_port = None
        self.proc = None
        self._final_log = ""
        write_token(self.token_file, token)
        argv = [quad_path(), "--socket", self.socket]
        if listen is not None:
            argv += ["--listen", listen, "--token-file", self.token_file]
        argv += list(args)
        self.argv = argv

        def child_setup():
            die_with_parent()
            if preexec is not None:
                preexec()

        try:
            with open(self.log, "wb") as log:
                self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL, stderr=log,
                                             preexec_fn=child_setup, close_fds=True)
            self._wait_ready(listen is not None)
        except BaseException:
            self.stop()
            raise

    @property
    def pid(self):
        return self.proc.pid

    def _wait_ready(self, tcp, timeout=20.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise RuntimeError("%s exited at start (status %d):\n%s"
                                   % (self.name, self.proc.returncode, self.log_text()))
            if tcp and self.tcp_port is None:
                m = _TCP_LINE.search(self.log_text())
                if m:
                    self.tcp_host, self.tcp_port = m.group(1).strip("[]"), int(m.group(2))
            if not tcp or self.tcp_port is not None:
                try:
                    Client.unix(self.socket, timeout=2.0).close()
                    return
                except QuaError:
                    pass
            time.sleep(0.01)
        raise RuntimeError("%s did not accept within %.0f s:\n%s"
                           % (self.name, timeout, self.log_text()))

    def log_text(self):
        """The daemon's log so far (kept after stop() removed the folder)."""
        if self.dir is None:
            return self._final_log
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def client(self, timeout=30.0):
        """A new client on the unix socket."""
        return Client.unix(self.socket, client="qua-test", timeout=timeout)

    def tcp_client(self, token=None, timeout=30.0):
        """A new client over TCP (from this process's network namespace)."""
        return Client.tcp(self.tcp_host, self.tcp_port, self.token if token is None else token,
                          client="qua-test", timeout=timeout)

    def rss_kb(self):
        return vmrss_kb(self.proc.pid)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def send_signal(self, sig):
        self.proc.send_signal(sig)

    def stop(self, sig=signal.SIGTERM, timeout=10.0):
        """Stops the daemon (also a stopped one) and removes its folder.
        Returns its exit status, or None when it had to be killed."""
        status = None
        if self.proc is not None and self.proc.poll() is None:
            try:
                # SIGCONT first, for a stopped daemon; never after `sig`: it
                # would land in the exit path (LeakSanitizer's stop-the-world
                # there hangs on it in an ASan build).
                self.proc.send_signal(signal.SIGCONT)
                self.proc.send_signal(sig)
                status = self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10.0)
        elif self.proc is not None:
            status = self.proc.returncode
        if self.dir is not None:
            self._final_log = self.log_text()
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        return status
