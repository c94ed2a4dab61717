#!/usr/bin/env python3
"""mkman.py -- a man page from a program's own --help text, so the two cannot drift.

    mkman.py [--verbs] --section N --summary TEXT [--see-also PAGE ...] \
             --out FILE -- PROGRAM [ARG ...]

Runs PROGRAM ARG... (normally `PROG --help`) and turns its text into roff
(man(7) macros). With --verbs (for qua), the "Verbs:" overview is replaced
by each verb's full manual, read from `PROGRAM help VERB`, and the JSON
description from `PROGRAM help json` becomes its own section.

The help texts follow one layout, which is what makes this possible:

 1. "Usage: ..." (or "usage:") first: the SYNOPSIS; the paragraphs up to
    the first heading: the DESCRIPTION.
 2. A heading is a line at column 0 that is a short label and a colon
    ("Options:", "Verb options:", "Exit status: 0 after ..."); text after
    the colon starts the section's body. A parenthesis in the label
    ("Device page (32-bit registers ...):") becomes the body's first line.
 3. In a body, a line at column 0 is paragraph text. An indented line at the
    body's item indent starts an item: its term runs to the first gap of two
    or more spaces, its description follows (on the line, or on deeper
    lines). A description line at the description's own column is text;
    one that starts with '-' there is a nested option item; a deeper line,
    or one with a gap of three or more spaces inside (a table), is kept
    as it is (literal, .nf).
"""
import argparse
import datetime
import os
import re
import subprocess
import sys

HEADING = re.compile(r'^([A-Z][A-Za-z ]{1,24}?)(?: \(([^)]*)\))?:(?:\s+(.*))?$')
GAP2 = re.compile(r'\S(\s{2,})\S')
GAP3 = re.compile(r'\S\s{3,}\S')


def run(argv):
    env = dict(os.environ, ASAN_OPTIONS='detect_leaks=0', COLUMNS='80')
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       universal_newlines=True)
    if r.returncode != 0:
        sys.exit('mkman: %s exited %d: %s' % (' '.join(argv), r.returncode, r.stderr.strip()))
    return r.stdout.rstrip('\n').split('\n')


def esc(s):
    """Roff-escapes text: backslashes, hyphens that are options, leading dots."""
    s = s.replace('\\', '\\e')
    s = re.sub(r'(?<![\w])-', r'\\-', s)
    if s.startswith(('.', "'")):
        s = '\\&' + s
    return s


def indent_of(line):
    return len(line) - len(line.lstrip(' '))


class Out:
    def __init__(self):
        self.lines = []
        self.literal = False

    def emit(self, s):
        self.lines.append(s)

    def text(self, s):
        self.end_literal()
        self.emit(esc(s.strip()))

    def lit(self, s):
        if not self.literal:
            self.emit('.nf')
            self.emit('.in +4n')
            self.literal = True
        self.emit(esc(s) if s.strip() else '')

    def end_literal(self):
        if self.literal:
            self.emit('.in')
            self.emit('.fi')
            self.literal = False

    def macro(self, m, arg=None):
        self.end_literal()
        self.emit(m if arg is None else '%s %s' % (m, arg))


def split_sections(lines):
    """[(title or None, [body lines])], title None for the description."""
    out = [(None, [])]
    for line in lines:
        m = HEADING.match(line) if line[:1].isupper() else None
        if m and len(m.group(1).split()) <= 3:
            body = []
            if m.group(2):
                body.append(m.group(2)[0].upper() + m.group(2)[1:] + '.')
            if m.group(3):
                # "Exit status: the program's ..." reads as a sentence;
                # "ALGO: counter-cas ..." names a metavariable's values.
                t = m.group(3)
                body.append(t if m.group(1).isupper() else t[0].upper() + t[1:])
            out.append((m.group(1).upper(), body))
        else:
            out[-1][1].append(line)
    return out


def table_blocks(body):
    """Indices of lines in indented blocks that are tables: a block (indented
    lines between blank or column-0 lines) where a line that is not an
    option has a gap of three or more spaces after its first column."""
    out, block = set(), []

    def close():
        top = min((indent_of(l) for l in block), default=0)
        for l in block:
            t = l.strip()
            m = GAP2.search(t)
            if indent_of(l) == top and not t.startswith('-') and m and GAP3.search(t[m.end(1):]):
                out.update(i for i, _ in enumerate(body) if body[i] in block)
                break

    for line in body:
        if line.strip() and indent_of(line) > 0:
            block.append(line)
        else:
            close()
            block = []
    close()
    return out


def render_body(o, body):
    """Paragraphs, items and literal lines of one section (rule 3)."""
    tables = table_blocks(body)
    top = None        # indent of this list's items
    top_desc = None   # column of the current item's description
    nest = None       # indent of a nested option list's items (.RS), or None
    nest_desc = None
    lit_min = None    # a literal run goes on while lines are at least this deep,
    lit_base = None   # shown from this column
    para = False

    def end_nest():
        nonlocal nest, nest_desc
        if nest is not None:
            o.macro('.RE')
            nest = nest_desc = None

    for n, line in enumerate(body):
        if not line.strip():
            if o.literal:
                o.lit('')
            para = False
            continue
        ind = indent_of(line)
        s = line.strip()
        if n in tables:
            end_nest()
            top = top_desc = lit_min = None
            o.lit(line[2:] if line.startswith('  ') else line)
            continue
        if ind == 0:
            end_nest()
            if not para:
                o.macro('.PP')
                para = True
            top = top_desc = lit_min = None
            o.text(s)
            continue
        para = False
        if o.literal and lit_min is not None and ind >= lit_min:
            o.lit(line[lit_base:])
            continue
        lit_min = None
        if (top is None or ind <= top) and not GAP2.search(s) and not deeper_next(body, n):
            # An indented line that is neither an item nor followed by
            # its description: an example, kept literal with what follows
            # at its depth. An option there is a help text's mistake.
            if s.startswith('-'):
                sys.exit('mkman: option line without two spaces before its help: %r' % s)
            end_nest()
            top = top_desc = None
            lit_min = lit_base = ind
            o.lit(line[ind:])
            continue
        if top is None or ind <= top:
            end_nest()
            top = ind
            top_desc, table = start_item(o, line, ind)
            lit_min = lit_base = top_desc if table else None
            continue
        if top_desc is None:
            top_desc = ind
        is_opt = s.startswith('-') and GAP2.search(s)
        if is_opt and ind == (nest if nest is not None else top_desc):
            if nest is None:
                o.macro('.RS')
                nest = ind
            nest_desc, table = start_item(o, line, ind)
            lit_min = lit_base = nest_desc if table else None
            continue
        if nest is not None and ind < nest_desc:
            end_nest()
        desc = nest_desc if nest is not None else top_desc
        if ind > desc:
            o.lit(line[desc:])
            lit_min, lit_base = desc + 1, desc
        else:
            o.text(s)
    end_nest()
    o.end_literal()


def deeper_next(body, n):
    """Whether the next non-blank line after body[n] is indented deeper."""
    for line in body[n + 1:]:
        if line.strip():
            return indent_of(line) > indent_of(body[n])
    return False


def start_item(o, line, ind):
    """Starts a .TP item from an item line. Returns its description's column
    (None when the description starts on the next line) and whether the
    description is a table (a gap of three or more spaces inside), which is
    then kept literal."""
    s = line[ind:]
    m = GAP2.search(s)
    o.macro('.TP')
    if m is None:
        o.emit('.B %s' % esc(s.strip()))
        return None, False
    term, desc = s[:m.start(1)].strip(), s[m.end(1):]
    o.emit('.B %s' % esc(term))
    table = bool(GAP3.search(desc))
    if table:
        o.lit(desc)
    else:
        o.text(desc)
    return ind + m.end(1), table


def verb_manual(o, prog, verb):
    """One verb's manual (`prog help VERB`) as a subsection."""
    lines = run([prog, 'help', verb])
    sections, cur = {}, None
    for line in lines:
        if line and not line[0].isspace() and line.isupper():
            cur = line
            sections[cur] = []
        elif cur is not None:
            sections[cur].append(line)
    synopsis = ' '.join(s.strip() for s in sections.get('SYNOPSIS', []) if s.strip())
    synopsis = synopsis.replace('qua [OPTIONS] ', 'qua ')
    o.macro('.SS', '"%s"' % esc(synopsis).replace('"', '\\(dq'))
    desc = sections.get('DESCRIPTION', [])
    base = min((indent_of(l) for l in desc if l.strip()), default=0)
    body = [l[base:] if l.strip() else '' for l in desc]
    # Column-0 text after dedenting is the description; deeper lines are
    # examples (literal) or option items.
    render_body(o, body)


def main():
    ap = argparse.ArgumentParser(description='Make a man page from a --help text.')
    ap.add_argument('--section', required=True)
    ap.add_argument('--summary', required=True)
    ap.add_argument('--see-also', nargs='*', default=[])
    ap.add_argument('--verbs', action='store_true')
    ap.add_argument('--sub', nargs='*', default=[],
                    help='commands whose own --help becomes a section of the page')
    ap.add_argument('--out', required=True)
    ap.add_argument('argv', nargs='+')
    a = ap.parse_args()

    prog = a.argv[0]
    name = os.path.basename(prog)
    lines = run(a.argv)
    version = run([prog, '--version'])[0]
    date = datetime.datetime.utcfromtimestamp(
        int(os.environ.get('SOURCE_DATE_EPOCH', '0')) or os.path.getmtime(__file__))

    o = Out()
    o.emit('.\\" Made by doc/mkman.py from `%s`; edit the program\'s help text, not this.'
           % ' '.join([name] + a.argv[1:]))
    o.emit('.TH %s %s "%s" "%s" "qua"' % (name.upper(), a.section, date.strftime('%Y-%m-%d'),
                                          esc(version)))
    o.macro('.SH', 'NAME')
    o.emit('%s \\- %s' % (name, esc(a.summary)))

    # Usage lines (rule 1): the first line, and any line after it that
    # starts with the program's name or "or:"/spaces up to the first blank.
    o.macro('.SH', 'SYNOPSIS')
    i = 0
    while i < len(lines) and lines[i].strip():
        s = re.sub(r'^\s*(usage|Usage):\s*', '', lines[i]).strip()
        s = re.sub(r'\s{2,}\(.*\)$', '', s)
        if i > 0 and not s.startswith(name):
            break
        o.emit('.B %s' % esc(s.split(' ', 1)[0]))
        if ' ' in s:
            o.text(s.split(' ', 1)[1])
        o.emit('.br')
        i += 1
    rest = lines[i:]
    sections = split_sections(rest)
    o.macro('.SH', 'DESCRIPTION')
    render_body(o, sections[0][1])
    for title, body in sections[1:]:
        if a.verbs and title == 'VERBS':
            verbs = [l.split()[0] for l in body if l.strip()]
            o.macro('.SH', 'VERBS')
            for v in verbs:
                verb_manual(o, prog, v)
            continue
        o.macro('.SH', title)
        render_body(o, body)
    for cmd in a.sub:
        # `PROG CMD --help`: its usage joins the SYNOPSIS's meaning, its
        # text becomes a section, its headings subsections.
        sub = run([prog, cmd, '--help'])
        usage = re.sub(r'^\s*(usage|Usage):\s*', '', sub[0]).strip()
        o.macro('.SH', '"%s %s"' % (name.upper(), cmd.upper()))
        o.emit('.B %s' % esc(usage))
        subs = split_sections(sub[1:])
        render_body(o, subs[0][1])
        for title, body in subs[1:]:
            o.macro('.SS', '"%s"' % (title if title.split()[0] in sub[0] else title.capitalize()))
            render_body(o, body)
    if a.verbs:
        j = run([prog, 'help', 'json'])
        o.macro('.SH', 'JSON OUTPUT')
        first = []
        while j and j[0].strip():
            first.append(j.pop(0))
        o.macro('.PP')
        for l in first:
            o.text(l)
        for l in j:
            o.lit(l)
        o.end_literal()
    if a.see_also:
        o.macro('.SH', 'SEE ALSO')
        o.emit(',\n'.join('.BR %s (%s)' % tuple(p.rstrip(')').split('(')) for p in a.see_also))
    o.end_literal()
    with open(a.out, 'w') as f:
        f.write('\n'.join(o.lines) + '\n')


if __name__ == '__main__':
    main()
