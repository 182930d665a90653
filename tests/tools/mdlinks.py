#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mdlinks.py ROOT FILE.md...: the links of Markdown files that would not
work in a clone of the repository at ROOT.

A clone has nothing beside it, so a link must stay inside ROOT: a relative
link to a file or folder that does not exist, one that leaves ROOT
(../shared/DESIGN.md), an absolute path or a file: URL is a problem, and so
is a #fragment that names no heading of its target (GitHub's heading ids:
lower case, punctuation dropped, blanks to hyphens, -1, -2 ... for
repeats).  http(s) and mailto links are not checked (no network here).
Code blocks and code spans are not links.

Prints one line per problem, "FILE:LINE: reason", and exits 1 when there
is any, 0 when there is none.
"""
import os
import re
import sys

LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
REFDEF = re.compile(r'^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$')
FENCE = re.compile(r'^\s{0,3}(```|~~~)')


def outside_fences(lines):
    """The lines, each None inside a fenced code block (fences included)."""
    fence = None
    for line in lines:
        m = FENCE.match(line)
        if fence:
            if m and line.strip().startswith(fence):
                fence = None
            yield None
        elif m:
            fence = m.group(1)
            yield None
        else:
            yield line


def strip_code(lines):
    """The lines with fenced blocks blanked and code spans removed."""
    return [re.sub(r'(`+)(?:(?!\1).)+?\1', '', line) if line is not None
            else '' for line in outside_fences(lines)]


def slug(heading):
    """GitHub's id of a heading's text."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)
    text = text.replace('`', '').strip().lower()
    text = re.sub(r'[^\w\- ]', '', text, flags=re.UNICODE)
    return text.replace(' ', '-')


def anchors(path):
    ids = set()
    seen = {}
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for line in outside_fences(lines):
        if line is None:
            continue
        h = re.match(r'^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not h:
            continue
        base = slug(h.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        ids.add(base if n == 0 else '%s-%d' % (base, n))
    return ids


def check(root, md):
    problems = []
    root = os.path.realpath(root)
    try:
        with open(md, encoding='utf-8') as f:
            lines = strip_code(f.read().split('\n'))
    except (OSError, UnicodeError) as e:
        return ['%s: cannot read: %s' % (md, e)]
    here = os.path.dirname(os.path.realpath(md))
    for no, line in enumerate(lines, 1):
        targets = [m.group(1) for m in LINK.finditer(line)]
        r = REFDEF.match(line)
        if r:
            targets.append(r.group(1))
        for t in targets:
            where = '%s:%d' % (md, no)
            if re.match(r'^(https?|mailto):', t, re.I):
                continue
            if re.match(r'^[a-z][a-z0-9+.-]*:', t, re.I):
                problems.append('%s: %s: a URL outside the repository' %
                                (where, t))
                continue
            path, _, frag = t.partition('#')
            if path.startswith('/'):
                problems.append('%s: %s: an absolute path, outside a clone'
                                % (where, t))
                continue
            target = os.path.realpath(os.path.join(here, path)) if path \
                else os.path.realpath(md)
            if os.path.commonpath([root, target]) != root:
                problems.append('%s: %s: leaves the repository' % (where, t))
                continue
            if not os.path.exists(target):
                problems.append('%s: %s: no such file' % (where, t))
                continue
            if frag:
                if not target.endswith('.md') or os.path.isdir(target):
                    problems.append('%s: %s: a fragment of a file that is '
                                    'not Markdown' % (where, t))
                elif frag not in anchors(target):
                    problems.append('%s: %s: no heading #%s in %s' %
                                    (where, t, frag,
                                     os.path.relpath(target, root)))
    return problems


def main(argv):
    if len(argv) < 3:
        print('usage: mdlinks.py ROOT FILE.md...', file=sys.stderr)
        return 2
    problems = []
    for md in argv[2:]:
        problems += check(argv[1], md)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
