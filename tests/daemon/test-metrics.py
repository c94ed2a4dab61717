#!/usr/bin/env python3
"""test-metrics.py QUAD QUA -- quad's Prometheus endpoint, scraped and parsed line by line.

Every line of a scrape must be a comment (# HELP / # TYPE) or a sample in the
text format 0.0.4; the numbers must be the daemon's: the quajects created,
requests by method and status (a refusal counted by its status), each
quaject's state numbers, synthesis counts. Other paths and methods, a head
too long, and a scraper that sends nothing are each answered or cut off as
documented, and quad exits 0. Loopback only; every wait bounded.
"""
import atexit
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

QUAD, QUA = sys.argv[1], sys.argv[2]
failures = []

NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:\\.|[^"\\])*"'
SAMPLE = re.compile(r'^(%s)(\{%s(?:,%s)*\})? (-?[0-9.eE+-]+|NaN|[+-]Inf)$' % (NAME, LABEL, LABEL))
COMMENT = re.compile(r'^# (HELP|TYPE) (%s) (.*)$' % NAME)


def check(cond, what):
    print(('ok: ' if cond else 'FAIL: ') + what, flush=True)
    if not cond:
        failures.append(what)


def parse(text):
    """{(name, frozenset(labels)): value}, failing on any line that is neither."""
    out, types = {}, {}
    bad = []
    for line in text.splitlines():
        m = COMMENT.match(line)
        if m:
            if m.group(1) == 'TYPE':
                types[m.group(2)] = m.group(3)
            continue
        m = SAMPLE.match(line)
        if not m:
            bad.append(line)
            continue
        labels = frozenset(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\.|[^"\\])*)"',
                                      m.group(2) or ''))
        out[(m.group(1), labels)] = float(m.group(3))
        if m.group(1) not in types:
            bad.append('(no TYPE before) ' + line)
    check(not bad, 'every line is a comment or a sample (%r)' % bad[:3])
    return out


def get(samples, metric, **labels):
    return samples.get((metric, frozenset(labels.items())))


def main():
    with tempfile.TemporaryDirectory(prefix='qua-metrics-') as d:
        sock = os.path.join(d, 'quad.sock')
        # A bad address is a usage error, before anything starts.
        r = subprocess.run([QUAD, '--socket', sock, '--metrics-listen', 'nowhere'],
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=10)
        check(r.returncode == 2 and '--metrics-listen' in r.stderr,
              'a malformed --metrics-listen is a usage error naming the option')
        log = open(os.path.join(d, 'quad.log'), 'w+')
        p = subprocess.Popen([QUAD, '--socket', sock, '--metrics-listen', '127.0.0.1:0'],
                             stderr=log)
        atexit.register(lambda: p.poll() is None and (p.kill(), p.wait()))
        port = None
        end = time.monotonic() + 15
        while port is None and time.monotonic() < end:
            log.seek(0)
            m = re.search(r'metrics on http://127\.0\.0\.1:(\d+)/metrics', log.read())
            port = int(m.group(1)) if m else None
            time.sleep(0.05)
        check(port is not None, 'quad logs the metrics address')
        if port is None:
            p.kill()
            return 1
        url = 'http://127.0.0.1:%d/metrics' % port

        def qua(*a):
            return subprocess.run([QUA, '--socket', sock] + list(a), stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, timeout=30).returncode

        qua('create', 'queue', 'mq', 'capacity=8')
        qua('create', 'counter', 'mc')
        qua('put', 'mq', '1', '2', '3')
        qua('call', 'mc', 'add', '5')
        check(qua('show', 'nosuch') == 1, 'a refused request (ENOTFOUND) for the count')
        with urllib.request.urlopen(url, timeout=10) as resp:
            ctype = resp.headers.get('Content-Type', '')
            text = resp.read().decode()
        check(ctype.startswith('text/plain; version=0.0.4'), 'the text format 0.0.4 (%s)' % ctype)
        s = parse(text)
        check(get(s, 'qua_quajects') == 2, 'qua_quajects is 2')
        check((get(s, 'qua_connections') or 0) >= 0, 'qua_connections is there')
        ok_create = get(s, 'qua_requests_total', method='Create', status='OK')
        check(ok_create == 2, 'two Creates counted OK (%s)' % ok_create)
        nf = sum(v for (n, l), v in s.items()
                 if n == 'qua_requests_total' and ('status', 'ENOTFOUND') in l)
        check(nf >= 1, 'the refusal is counted as ENOTFOUND (%s)' % nf)
        check(get(s, 'qua_quaject_value', id='1', name='mq', type='queue', key='count') == 3,
              'the queue\'s count is 3')
        check(get(s, 'qua_quaject_value', id='2', name='mc', type='counter', key='value') == 5,
              'the counter\'s value is 5')
        check((get(s, 'qua_synth_total') or 0) >= 1, 'synthesis is counted')
        check(get(s, 'qua_synth_seconds_total') is not None, 'synthesis time is there')
        check(get(s, 'qua_events_dropped_total') == 0, 'no events dropped')
        # Not /metrics, not GET.
        try:
            urllib.request.urlopen('http://127.0.0.1:%d/other' % port, timeout=10)
            check(False, '/other is 404')
        except urllib.error.HTTPError as e:
            check(e.code == 404, '/other is 404 (%d)' % e.code)
        try:
            urllib.request.urlopen(urllib.request.Request(url, data=b'x', method='POST'),
                                   timeout=10)
            check(False, 'POST is 405')
        except urllib.error.HTTPError as e:
            check(e.code == 405, 'POST is 405 (%d)' % e.code)
        # A head past 4 KiB: 431, and the connection is closed.
        c = socket.create_connection(('127.0.0.1', port), timeout=10)
        c.sendall(b'GET /metrics HTTP/1.1\r\nX: ' + b'a' * 5000)
        reply = c.recv(200)
        c.close()
        check(reply.startswith(b'HTTP/1.1 431'), 'a head too long is 431 (%r)' % reply[:20])
        # Eight scrapers at a time: a ninth is closed at once, and once
        # they go, a scrape is served again.
        held = [socket.create_connection(('127.0.0.1', port), timeout=10) for _ in range(8)]
        time.sleep(0.2)
        ninth = socket.create_connection(('127.0.0.1', port), timeout=10)
        check(ninth.recv(10) == b'', 'a ninth scraper is closed at once')
        ninth.close()
        for h in held:
            h.close()
        time.sleep(0.2)
        with urllib.request.urlopen(url, timeout=10) as resp:
            check(resp.status == 200, 'after them, a scrape is served')
        # A scraper that says nothing is cut off (5 s), and meanwhile a
        # SIGTERM still ends quad promptly with status 0.
        idle = socket.create_connection(('127.0.0.1', port), timeout=10)
        t0 = time.monotonic()
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=10)
        check(rc == 0 and time.monotonic() - t0 < 5,
              'SIGTERM with an idle scraper: exit %s in %.1f s' % (rc, time.monotonic() - t0))
        idle.close()
    print('%d failed' % len(failures) if failures else 'metrics: all checks passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
