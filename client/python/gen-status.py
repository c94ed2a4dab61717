#!/usr/bin/env python3
"""gen-status.py -- writes the Python status table from include/qua-status.h.

Usage: gen-status.py QUA_STATUS_H OUT_PY

QUA_STATUS_MAP in qua-status.h is the one table of statuses shared by libqua,
the protocol and the clients. This build-time tool reads its XX(NAME, NUM,
"message") rows and writes a module with STATUSES, a tuple of
(code, name, message) with code = -NUM, so that the Python client never
carries a copy made by hand. A header without rows is an error.
"""
import re
import sys

ROW = re.compile(r'XX\(\s*([A-Z][A-Z0-9_]*)\s*,\s*([0-9]+)\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)')


def main(argv):
    if len(argv) != 3:
        sys.stderr.write("usage: gen-status.py QUA_STATUS_H OUT_PY\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        text = f.read()
    start = text.find("#define QUA_STATUS_MAP(XX)")
    if start < 0:
        sys.stderr.write("gen-status.py: %s has no QUA_STATUS_MAP\n" % argv[1])
        return 1
    # The map ends at the first line that does not continue with a backslash.
    lines = []
    for line in text[start:].splitlines():
        lines.append(line)
        if not line.rstrip().endswith("\\"):
            break
    rows = ROW.findall("\n".join(lines))
    if not rows:
        sys.stderr.write("gen-status.py: no XX(...) rows in QUA_STATUS_MAP of %s\n" % argv[1])
        return 1
    with open(argv[2], "w", encoding="utf-8") as out:
        out.write("# Generated from include/qua-status.h by gen-status.py; do not edit.\n")
        out.write("STATUSES = (\n")
        for name, num, msg in rows:
            out.write("    (%d, %r, %r),\n" % (-int(num), name, msg.encode().decode("unicode_escape")))
        out.write(")\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
