#!/usr/bin/env python3
"""test-systemd.py QUAD QUA notify|none -- quad as systemd runs it.

Readiness and status (sd_notify over NOTIFY_SOCKET, as Type=notify reads
them), a socket handed over by socket activation (systemd-socket-activate
plays quad.socket), and log lines with journald priorities when stderr is
the journal (JOURNAL_STREAM). Every wait is bounded; quad must exit 0.
"""
import atexit
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time

QUAD, QUA, MODE = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []
children = []  # killed at exit, whatever happened


@atexit.register
def _reap():
    for p in children:
        if p.poll() is None:
            p.kill()
            p.wait()


def check(cond, what):
    if not cond:
        failures.append(what)
        print('FAIL: ' + what, flush=True)
    else:
        print('ok: ' + what, flush=True)


def wait_for(pred, secs=10.0):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.02)
    return False


def listening(path):
    """Whether a unix socket at path accepts. Under socket activation the
    probe starts quad, which sees a client that leaves at once."""
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(path)
        return True
    except OSError:
        return False
    finally:
        c.close()


def qua(sock, *args):
    return subprocess.run([QUA, '--socket', sock] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=30)


def stop(p, what):
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = 'hung'
    check(rc == 0, '%s: quad exits 0 on SIGTERM (got %s)' % (what, rc))


def test_notify(d):
    ns = os.path.join(d, 'notify')
    n = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    n.bind(ns)
    n.settimeout(10)
    sock = os.path.join(d, 'n.sock')
    env = dict(os.environ, NOTIFY_SOCKET=ns)
    p = subprocess.Popen([QUAD, '--socket', sock], env=env, stderr=subprocess.DEVNULL)
    children.append(p)
    msgs = []

    def recv_until(word, secs):
        end = time.monotonic() + secs
        while time.monotonic() < end:
            try:
                msgs.append(n.recv(4096).decode())
            except socket.timeout:
                break
            if word in msgs[-1]:
                return msgs[-1]
        return None

    ready = recv_until('READY=1', 10)
    check(ready is not None, 'notify: READY=1 once quad serves')
    check(ready is not None and os.path.exists(sock) and qua(sock, 'ping').returncode == 0,
          'notify: the socket answers when READY=1 is sent')
    check(ready is not None and 'STATUS=serving: 0 connections, 0 quajects' in ready,
          'notify: STATUS with the counts comes with READY (%r)' % ready)
    check(qua(sock, 'create', 'queue', 'sq').returncode == 0, 'notify: a quaject is created')
    status = recv_until('1 quajects', 6)
    check(status is not None, 'notify: STATUS follows the quajects within its period (%r)' % msgs[-1:])
    p.send_signal(signal.SIGTERM)
    stopping = recv_until('STOPPING=1', 10)
    check(stopping is not None, 'notify: STOPPING=1 on SIGTERM')
    rc = p.wait(timeout=10)
    check(rc == 0, 'notify: quad exits 0 (got %s)' % rc)
    n.close()


def test_activation(d):
    sock = os.path.join(d, 'act.sock')
    log = open(os.path.join(d, 'act.log'), 'w+')
    # systemd-socket-activate binds the socket and, at the first
    # connection, becomes quad with it passed (LISTEN_FDS=1).
    p = subprocess.Popen(['systemd-socket-activate', '-l', sock, QUAD, '--socket',
                          os.path.join(d, 'other.sock')], stderr=log)
    children.append(p)
    check(wait_for(lambda: os.path.exists(sock)), 'activation: the socket is bound before quad runs')
    wait_for(lambda: listening(sock))
    os.chmod(sock, 0o660)
    r = qua(sock, 'ping')
    check(r.returncode == 0, 'activation: a client is answered by the quad the socket started '
          '(%s)' % r.stderr.strip())
    check(qua(sock, 'create', 'counter', 'ac').returncode == 0, 'activation: quad serves on')
    log.seek(0)
    text = log.read()
    check('passed by systemd' in text, 'activation: quad says it serves the passed socket')
    check('not ' + os.path.join(d, 'other.sock') in text,
          'activation: quad says the passed socket wins over --socket')
    check(not os.path.exists(os.path.join(d, 'other.sock')), 'activation: --socket is not bound')
    stop(p, 'activation')
    check(os.path.exists(sock) and stat.S_ISSOCK(os.stat(sock).st_mode),
          'activation: the socket file is systemd\'s: quad leaves it')
    # Two sockets: refused, naming what was passed.
    two = subprocess.Popen(['systemd-socket-activate', '-l', os.path.join(d, 'a.sock'), '-l',
                            os.path.join(d, 'b.sock'), QUAD], stderr=subprocess.PIPE,
                           universal_newlines=True)
    children.append(two)
    c = socket.socket(socket.AF_UNIX)

    def connected():
        try:
            c.connect(os.path.join(d, 'a.sock'))
            return True
        except OSError:
            return False

    check(wait_for(connected), 'activation: the two sockets are listening')
    try:
        _, err = two.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        two.kill()
        _, err = two.communicate()
    c.close()
    check(two.returncode == 1 and 'passed 2 sockets' in err,
          'activation: two sockets are refused by name (status %s: %r)' % (two.returncode,
                                                                           err.strip()[-200:]))


def test_journal(d):
    path = os.path.join(d, 'journal.log')
    f = open(path, 'w')
    st = os.fstat(f.fileno())
    sock = os.path.join(d, 'j.sock')
    env = dict(os.environ, JOURNAL_STREAM='%d:%d' % (st.st_dev, st.st_ino))
    p = subprocess.Popen([QUAD, '--socket', sock], env=env, stderr=f)
    children.append(p)
    wait_for(lambda: os.path.exists(sock))
    stop(p, 'journal')
    f.close()
    lines = open(path).read().splitlines()
    check(lines and all(l[:3] in ('<3>', '<4>', '<6>', '<7>') for l in lines),
          'journal: every line carries its priority (%r)' % lines[:3])
    check(any(l.startswith('<6>') and 'listening on unix' in l for l in lines),
          'journal: info lines are <6>')
    check(not any('quad[' in l for l in lines), 'journal: no pid or level words (journald adds them)')
    # Not the journal (another file's inode): plain lines.
    path2 = os.path.join(d, 'plain.log')
    g = open(path2, 'w')
    p = subprocess.Popen([QUAD, '--socket', sock], env=env, stderr=g)
    children.append(p)
    wait_for(lambda: os.path.exists(sock))
    time.sleep(0.2)
    stop(p, 'plain')
    g.close()
    plain = open(path2).read().splitlines()
    check(plain and all(l.startswith('quad[') for l in plain),
          'journal: a stderr that is not the journal gets plain lines (%r)' % plain[:2])


def main():
    with tempfile.TemporaryDirectory(prefix='qua-systemd-') as d:
        test_journal(d)
        if MODE == 'notify':
            test_notify(d)
            if subprocess.run(['sh', '-c', 'command -v systemd-socket-activate'],
                              stdout=subprocess.DEVNULL).returncode == 0:
                test_activation(d)
            else:
                print('skipped: activation (no systemd-socket-activate)')
        else:
            print('skipped: notify and activation (quad built without libsystemd)')
    if failures:
        print('%d failed' % len(failures))
        return 1
    print('systemd: all checks passed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
