#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""Checks that every call not all POSIX systems have sits behind its guard.

Each such identifier (a function, a flag, a header) may appear in the C
sources only inside a preprocessor branch taken when its HAVE_ macro is
defined: `#ifdef HAVE_X`, `#if defined(HAVE_X) ...`, `#elif defined(...)`,
or the `#else` of `#ifndef HAVE_X`. meson.build sets that macro after
probing for the call, and never with -Dportable=true, so the build then
takes the path for systems without it (introspection/platforms.md). A
guard macro that meson.build does not probe is reported too. Under tests/,
`__linux__` also counts as a guard (test helpers may use Linux's calls
on Linux only). Comments and strings are not looked at.

Usage: check-portable.py SOURCE_ROOT [FILE…]   (TAP on standard output)
"""

import os
import re
import sys

# identifier -> the macro meson.build sets when the system has it.
GUARDS = {
    'sigtimedwait': 'HAVE_SIGTIMEDWAIT',
    'sigwaitinfo': 'HAVE_SIGTIMEDWAIT',
    'MSG_NOSIGNAL': 'HAVE_MSG_NOSIGNAL',
    'SOCK_CLOEXEC': 'HAVE_SOCK_CLOEXEC',
    'SOCK_NONBLOCK': 'HAVE_SOCK_CLOEXEC',
    'accept4': 'HAVE_SOCK_CLOEXEC',
    'getrandom': 'HAVE_GETRANDOM',
    'preadv2': 'HAVE_PWRITEV2',
    'pwritev2': 'HAVE_PWRITEV2',
    'RWF_NOWAIT': 'HAVE_PWRITEV2',
    'prctl': 'HAVE_PR_SET_PDEATHSIG',
    'PR_SET_PDEATHSIG': 'HAVE_PR_SET_PDEATHSIG',
    'procctl': 'HAVE_PROCCTL_PDEATHSIG',
    'PROC_PDEATHSIG_CTL': 'HAVE_PROCCTL_PDEATHSIG',
    # Linux's, with no probe yet: add one to meson.build before using them.
    'pipe2': 'HAVE_PIPE2',
    'dup3': 'HAVE_DUP3',
    'epoll_create1': 'HAVE_EPOLL',
    'epoll_ctl': 'HAVE_EPOLL',
    'epoll_wait': 'HAVE_EPOLL',
    'eventfd': 'HAVE_EVENTFD',
    'signalfd': 'HAVE_SIGNALFD',
    'memfd_create': 'HAVE_MEMFD_CREATE',
    'splice': 'HAVE_SPLICE',
    'sendfile': 'HAVE_SENDFILE',
    'inotify_init1': 'HAVE_INOTIFY',
    'SO_PEERCRED': 'HAVE_SO_PEERCRED',
}

FOLDERS = ['snodo', 'cli', 'examples', 'tests']
WORD = re.compile(r'[A-Za-z_][A-Za-z0-9_]*')


def strip_comments_and_strings(text):
    """The text with comments, string and character literals blanked,
    newlines kept (so line numbers stay)."""
    out = []
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:end]))
            i = end
        elif text.startswith('//', i):
            end = text.find('\n', i)
            end = n if end < 0 else end
            i = end
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            out.append(c + ' ' * (min(j, n) - i - 1) + (c if j < n else ''))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def positive_macros(expression):
    """The macros an #if or #elif expression requires to be defined (those
    under `defined`, not negated; a bare name counts too). With `||` none
    is required."""
    found = set()
    if '||' in expression:
        return found
    for m in re.finditer(r'(!\s*)?(?:defined\s*\(?\s*)?\b([A-Za-z_][A-Za-z0-9_]*)\b', expression):
        if m.group(2) == 'defined':
            continue
        if m.group(1):
            continue
        found.add(m.group(2))
    return found


def negative_macros(expression):
    """The macros an #if expression requires to be undefined (`!defined (X)`)."""
    return set(re.findall(r'!\s*defined\s*\(?\s*([A-Za-z_][A-Za-z0-9_]*)', expression))


def check_file(path, allowed_extra):
    """The problems of one file: (line, identifier, guard) for each use
    outside its guard."""
    with open(path, encoding='utf-8', errors='replace') as f:
        text = strip_comments_and_strings(f.read())
    # Join continued preprocessor lines, keeping the line count.
    lines = text.split('\n')
    problems = []
    # Each frame: [macros the current branch requires, macros the branches
    # before it required not to be defined (for #else)].
    stack = []
    logical = ''
    for number, raw in enumerate(lines, 1):
        line = logical + raw
        if line.rstrip().endswith('\\'):
            logical = line.rstrip()[:-1] + ' '
            continue
        logical = ''
        directive = re.match(r'\s*#\s*(\w+)\s*(.*)', line)
        if directive:
            name, rest = directive.group(1), directive.group(2)
            if name == 'ifdef':
                stack.append([{rest.split()[0]}, set()])
            elif name == 'ifndef':
                stack.append([set(), {rest.split()[0]}])
            elif name == 'if':
                stack.append([positive_macros(rest), negative_macros(rest)])
            elif name == 'elif' and stack:
                stack[-1] = [positive_macros(rest), stack[-1][1] | negative_macros(rest)]
            elif name == 'else' and stack:
                stack[-1] = [stack[-1][1], set()]
            elif name == 'endif' and stack:
                stack.pop()
            if name not in ('include', 'define'):
                continue
        guards = set()
        for frame in stack:
            guards |= frame[0]
        for word in WORD.findall(line):
            guard = GUARDS.get(word)
            if guard is not None and guard not in guards and not (guards & allowed_extra):
                problems.append((number, word, guard))
    return problems


def main():
    root = sys.argv[1]
    with open(os.path.join(root, 'meson.build'), encoding='utf-8') as f:
        probed = set(re.findall(r"'(HAVE_[A-Z0-9_]+)'", f.read()))

    files = []
    for folder in FOLDERS:
        for directory, _, entries in os.walk(os.path.join(root, folder)):
            if os.sep + 'node_modules' in directory or os.path.basename(directory).startswith('_build'):
                continue
            for entry in sorted(entries):
                if entry.endswith('.c') or entry.endswith('.h'):
                    files.append(os.path.relpath(os.path.join(directory, entry), root))
    files.sort()
    if len(sys.argv) > 2:
        wanted = {os.path.normpath(p) for p in sys.argv[2:]}
        files = [p for p in files if os.path.normpath(p) in wanted]

    n = 0
    failures = 0

    def report(ok, message):
        nonlocal n, failures
        n += 1
        if not ok:
            failures += 1
        print('%s %d - %s' % ('ok' if ok else 'not ok', n, message))

    report(bool(files), 'there are sources to check')
    for path in files:
        extra = {'__linux__'} if path.split(os.sep)[0] == 'tests' else set()
        problems = check_file(os.path.join(root, path), extra)
        unprobed = sorted({g for _, _, g in problems} - probed)
        messages = ['%s:%d: %s outside #ifdef %s' % (path, line, word, guard)
                    for line, word, guard in problems]
        report(not problems, path + ('' if not problems else ': ' + '; '.join(messages)
                                     + ('' if not unprobed else
                                        ' (meson.build probes none of ' + ', '.join(unprobed) + ')')))
    # A guard the sources use must be one meson.build sets.
    used = set()
    for path in files:
        with open(os.path.join(root, path), encoding='utf-8', errors='replace') as f:
            used |= set(re.findall(r'\b(HAVE_[A-Z0-9_]+)\b', f.read()))
    guards = set(GUARDS.values())
    unprobed = sorted((used & guards) - probed)
    report(not unprobed, 'every guard used is probed by meson.build'
           + ('' if not unprobed else ': not ' + ', '.join(unprobed)))

    print('1..%d' % n)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
