#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""Checks the #include lines of snodo/ against introspection/architecture.md.

The page's table of layers says which layers each one may use. A file of a
layer may include:
  - any header of its own folder;
  - a public header (one installed: not *-private.h) of a layer it may use;
  - the private header of a layer it may use, snodo-LAYER-private.h;
  - config.h, the generated headers (version, features, enum types), and
    headers outside the project, except libraries the page keeps from it.
Anything else, including snodo.h and another layer's per-file private
headers, is reported with the line that includes it.

Usage: check-layers.py SOURCE_ROOT [FILE…]   (TAP on standard output)
"""

import os
import re
import sys

GENERATED = {'config.h', 'snodo-version.h', 'snodo-features.h', 'snodo-enum-types.h'}


def read_layers(page):
    """The table under '## The layers': name -> (folder, may use, libraries it must not include)."""
    with open(page, encoding='utf-8') as f:
        text = f.read()
    section = text.split('\n## The layers\n', 1)[1].split('\n## ', 1)[0]
    layers = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) < 4 or not cells[0].startswith('`'):
            continue
        name = cells[0].strip('`')
        folder = re.search(r'`([^`]+)`', cells[1]).group(1).rstrip('/')
        uses = set(re.findall(r'`([a-z]+)`', cells[2]))
        never = set(re.findall(r'`<([^>]+)>`', cells[3]))
        layers[name] = (folder, uses, never)
    return layers


def main():
    root = sys.argv[1]
    layers = read_layers(os.path.join(root, 'introspection', 'architecture.md'))
    folder_layer = {folder: name for name, (folder, _, _) in layers.items()}

    where = {}  # header name -> layer
    files = []
    for name, (folder, _, _) in layers.items():
        path = os.path.join(root, folder)
        for entry in sorted(os.listdir(path)):
            if entry.endswith('.h') or entry.endswith('.h.in'):
                where[entry.replace('.h.in', '.h')] = name
            if entry.endswith('.c') or entry.endswith('.h'):
                files.append((name, os.path.join(folder, entry)))
    unplaced = [e for e in os.listdir(os.path.join(root, 'snodo'))
                if e.endswith('.c') or (e.endswith('.h') and e != 'snodo.h')]

    if len(sys.argv) > 2:
        wanted = {os.path.normpath(p) for p in sys.argv[2:]}
        files = [(l, p) for l, p in files if os.path.normpath(p) in wanted]

    n = 0
    failures = 0

    def report(ok, message):
        nonlocal n, failures
        n += 1
        if not ok:
            failures += 1
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, message))

    report(not unplaced, 'every source file of snodo/ is in a layer folder'
           + ('' if not unplaced else ': not ' + ', '.join(sorted(unplaced))))

    for layer, path in files:
        _, uses, never = layers[layer]
        problems = []
        with open(os.path.join(root, path), encoding='utf-8') as f:
            for number, line in enumerate(f, 1):
                m = re.match(r'\s*#\s*include\s+([<"])([^>"]+)[>"]', line)
                if not m:
                    continue
                header = m.group(2)
                if m.group(1) == '<':
                    library = header.split('/')[0]
                    if library in never:
                        problems.append('%d: <%s>: the %s layer never uses %s' % (number, header, layer, library))
                    continue
                if header in GENERATED:
                    continue
                owner = where.get(header)
                if owner is None:
                    problems.append('%d: "%s" is no header of a layer' % (number, header))
                elif owner == layer:
                    continue
                elif owner not in uses:
                    problems.append('%d: "%s" is of the %s layer, which the %s layer may not use'
                                    % (number, header, owner, layer))
                elif header.endswith('-private.h') and header != 'snodo-%s-private.h' % owner:
                    problems.append('%d: "%s" is inside the %s layer; use snodo-%s-private.h'
                                    % (number, header, owner, owner))
        report(not problems, '%s (%s)%s' % (path, layer, ''.join('\n#   ' + p for p in problems)))

    print('1..%d' % n)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
