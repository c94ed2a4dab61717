#!/usr/bin/env python3
"""mkman-header.py -- libquaclient(3) from client/quaclient.h, the header that reads as its manual.

    mkman-header.py --header client/quaclient.h --readme README.md --version V --out FILE

The header's opening comment is the DESCRIPTION; each "--- Section ---"
comment starts a section, in which every comment and the declarations
after it (prototypes, structs, macros) become one entry: the declarations
literal, the comment as text. The README's first C example after the
"libquaclient" heading is the EXAMPLE. Nothing is written twice: change
the header, and the page follows at the next build.
"""
import argparse
import datetime
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mkman import Out, esc  # noqa: E402


def comment_text(block):
    """The text of a /* ... */ comment: lines without their ' * '."""
    lines = []
    for line in block.split('\n'):
        line = re.sub(r'^\s*/\*+ ?', '', line)
        line = re.sub(r'\s*\*+/\s*$', '', line)
        line = re.sub(r'^\s*\* ?', '', line)
        lines.append(line.rstrip())
    return lines


def paragraphs(lines):
    out, cur = [], []
    for line in lines:
        if line.strip():
            cur.append(line.strip())
        elif cur:
            out.append(' '.join(cur))
            cur = []
    if cur:
        out.append(' '.join(cur))
    return out


def tokens(src):
    """The header as a list of ('comment', text) and ('code', text) pieces,
    code split at blank lines; preprocessor guards and includes dropped."""
    out = []
    pos = 0
    for m in re.finditer(r'/\*.*?\*/', src, re.S):
        line_start = src.rfind('\n', 0, m.start()) + 1
        if src[line_start:m.start()].strip():
            continue  # a comment after code on its line stays with the code
        out.extend(code_pieces(src[pos:m.start()]))
        out.append(('comment', m.group(0)))
        pos = m.end()
    out.extend(code_pieces(src[pos:]))
    return out


def code_pieces(text):
    pieces, cur = [], []
    for line in text.split('\n'):
        if re.match(r'\s*#\s*(ifndef|endif|include|define QUACLIENT_H|define QUAC_API)', line):
            continue
        if line.strip():
            cur.append(line.replace('QUAC_API ', ''))
        elif cur:
            pieces.append(('code', '\n'.join(cur)))
            cur = []
    if cur:
        pieces.append(('code', '\n'.join(cur)))
    return pieces


def main():
    ap = argparse.ArgumentParser(description='libquaclient(3) from its header.')
    ap.add_argument('--header', required=True)
    ap.add_argument('--readme', required=True)
    ap.add_argument('--version', required=True)
    ap.add_argument('--out', required=True)
    a = ap.parse_args()
    src = open(a.header).read()
    toks = tokens(src)
    if not toks or toks[0][0] != 'comment':
        sys.exit('mkman-header: %s does not open with its comment' % a.header)

    date = datetime.datetime.utcfromtimestamp(
        int(os.environ.get('SOURCE_DATE_EPOCH', '0')) or os.path.getmtime(a.header))
    o = Out()
    o.emit('.\\" Made by doc/mkman-header.py from client/quaclient.h; edit the header, not this.')
    o.emit('.TH LIBQUACLIENT 3 "%s" "qua %s" "qua"' % (date.strftime('%Y-%m-%d'), a.version))
    top = comment_text(toks[0][1])
    summary = top[0].split('--', 1)[1].strip() if '--' in top[0] else top[0]
    summary = re.sub(r'^libquaclient:\s*', '', summary)
    o.macro('.SH', 'NAME')
    o.emit('libquaclient \\- %s' % esc(summary))
    o.macro('.SH', 'SYNOPSIS')
    o.emit('.nf')
    o.emit('.B #include <qua/quaclient.h>')
    o.emit('.PP')
    o.emit('.B cc prog.c $(pkg\\-config \\-\\-cflags \\-\\-libs quaclient)')
    o.emit('.fi')
    o.macro('.SH', 'DESCRIPTION')
    for p in paragraphs(top[1:]):
        o.macro('.PP')
        o.text(p)

    pending = None  # the comment waiting for its declarations
    in_section = False
    for kind, text in toks[1:]:
        if kind == 'comment':
            body = comment_text(text)
            m = re.match(r'^-+\s*(.*?)\s*-+$', ' '.join(body).strip())
            if m:
                o.macro('.SH', m.group(1).upper())
                pending = None
                in_section = True
                continue
            if pending is not None:
                o.macro('.PP')
                o.text(' '.join(pending))
            pending = [l.strip() for l in body if l.strip()]
            continue
        # Declarations: literal, then the comment that came before them.
        if not in_section:
            o.macro('.SH', 'CONSTANTS')
            in_section = True
        o.macro('.PP')
        for line in text.split('\n'):
            o.lit(line)
        o.end_literal()
        if pending is not None:
            o.macro('.RS')
            o.text(' '.join(pending))
            o.macro('.RE')
            pending = None

    readme = open(a.readme).read()
    part = readme.split('libquaclient', 1)
    m = re.search(r'```c\n(.*?)```', part[1] if len(part) > 1 else '', re.S)
    if m is None:
        sys.exit('mkman-header: no C example after "libquaclient" in %s' % a.readme)
    o.macro('.SH', 'EXAMPLE')
    for line in m.group(1).rstrip('\n').split('\n'):
        o.lit(line)
    o.end_literal()
    o.macro('.SH', 'SEE ALSO')
    o.emit('.BR qua (1),')
    o.emit('.BR quad (8)')
    with open(a.out, 'w') as f:
        f.write('\n'.join(o.lines) + '\n')


if __name__ == '__main__':
    main()
