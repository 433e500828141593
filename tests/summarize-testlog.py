#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""Summarize a meson testlog.json as one plain line: "N passed, N failed".

    tests/summarize-testlog.py BUILDDIR/meson-logs/testlog.json

meson 1.0 writes one JSON object per test run to testlog.json, with the
keys name, stdout, result, starttime, duration, returncode, env, command
(and stderr when there was any). It does not record the test protocol, so
that is read from BUILDDIR/meson-info/intro-tests.json when it is there,
and guessed from the output otherwise.

Counting:

- A TAP test counts each top-level subtest line of its stdout:
  "ok N ..." passes, "ok N ... # SKIP" is skipped, "not ok N ..." fails
  (also with "# TODO" or "# SKIP"; "ok N ... # TODO" passes). A TAP test
  without subtest lines counts once, by its meson result. A test that meson
  marked FAIL, ERROR, TIMEOUT, INTERRUPT or UNEXPECTEDPASS counts at least
  one failure even when its output was cut short.
- Any other test (exitcode protocol) counts once: OK and EXPECTEDFAIL pass,
  SKIP is skipped, anything else fails.

Failures are listed first; the last line printed is the summary,
"N passed, N failed" plus ", N skipped" when something was skipped.
Skips never count as passes. Exit status: 1 if anything failed (or there
were no results at all), else 0.
"""

import json
import os
import re
import sys

BAD_RESULTS = {'FAIL', 'TIMEOUT', 'INTERRUPT', 'UNEXPECTEDPASS', 'ERROR'}
GOOD_RESULTS = {'OK', 'EXPECTEDFAIL'}

# The same grammar meson's own TAP parser accepts: only lines at column 0
# (indented lines are nested subtests or YAML blocks).
TAP_TEST = re.compile(r'(not ok|ok)\b\s*(?:[0-9]+\s*)?([^#]*)'
                      r'(?:#\s*([Ss][Kk][Ii][Pp]\S*|[Tt][Oo][Dd][Oo])\b.*)?')
TAP_PLAN = re.compile(r'1\.\.[0-9]+')


class Totals:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.problems = []

    def line(self):
        text = f'{self.passed} passed, {self.failed} failed'
        if self.skipped:
            text += f', {self.skipped} skipped'
        return text


def load_protocols(testlog_path):
    """Map (test name, pretty suite prefix) -> protocol from intro-tests.json."""
    builddir = os.path.dirname(os.path.dirname(os.path.abspath(testlog_path)))
    intro = os.path.join(builddir, 'meson-info', 'intro-tests.json')
    try:
        with open(intro, encoding='utf-8') as f:
            tests = json.load(f)
    except (OSError, ValueError):
        return None
    table = {}
    for t in tests:
        suites = t.get('suite') or []
        prefix = ''
        if suites:
            project = suites[0].split(':', 1)[0]
            names = '+'.join(s.split(':', 1)[1] if ':' in s else '' for s in suites)
            prefix = project + (':' + names if names else '')
        table.setdefault(t['name'], []).append((prefix, t.get('protocol', 'exitcode')))
    return table


def protocol_of(entry, protocols):
    pretty = entry.get('name', '')
    if ' / ' in pretty:
        prefix, name = pretty.split(' / ', 1)
    else:
        prefix, name = None, pretty
    if protocols is not None and name in protocols:
        candidates = protocols[name]
        if len(candidates) == 1:
            return candidates[0][1]
        for p, proto in candidates:
            if p == prefix:
                return proto
    # No introspection data: TAP if the output looks like TAP.
    # A plan or a version line is required: a bare "ok" proves little.
    for line in (entry.get('stdout') or '').splitlines():
        if TAP_PLAN.match(line) or line.startswith('TAP version'):
            return 'tap'
    return 'exitcode'


def count_tap(entry, totals):
    passed = failed = skipped = 0
    todo_passed = bailed_out = False
    failures = []
    for line in (entry.get('stdout') or '').splitlines():
        if line.startswith('Bail out!'):
            bailed_out = True
        m = TAP_TEST.match(line.rstrip())
        if not m:
            continue
        ok = m.group(1) == 'ok'
        directive = (m.group(3) or '').upper()
        if not ok:
            failed += 1
            failures.append(line.strip())
        elif directive.startswith('SKIP'):
            skipped += 1
        else:
            passed += 1
            todo_passed = todo_passed or directive == 'TODO'

    result = entry.get('result', 'ERROR')
    if passed + failed + skipped == 0:
        count_once(entry, totals)
        return
    # meson fails a TAP test whose TODO subtest passed; here that subtest is
    # a pass, so only count the test's result when something else explains it.
    explained_by_todo = (result == 'FAIL' and todo_passed and not bailed_out
                         and entry.get('returncode') == 0)
    if result in BAD_RESULTS and failed == 0 and not explained_by_todo:
        failed = 1
        failures.append(f'(meson result {result}, exit status {entry.get("returncode")})')
    totals.passed += passed
    totals.failed += failed
    totals.skipped += skipped
    if failed:
        totals.problems.append((entry.get('name', '?'), result, failures))


def count_once(entry, totals):
    result = entry.get('result', 'ERROR')
    if result in GOOD_RESULTS:
        totals.passed += 1
    elif result == 'SKIP':
        totals.skipped += 1
    else:
        totals.failed += 1
        totals.problems.append((entry.get('name', '?'), result,
                                [f'(exit status {entry.get("returncode")})']))


def main(argv):
    if len(argv) != 2:
        print(f'usage: {argv[0]} BUILDDIR/meson-logs/testlog.json', file=sys.stderr)
        return 2
    path = argv[1]
    totals = Totals()
    entries = []
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            for lineno, raw in enumerate(f, 1):
                if not raw.strip():
                    continue
                try:
                    entries.append(json.loads(raw))
                except ValueError as e:
                    totals.failed += 1
                    totals.problems.append((f'{path}:{lineno}', 'UNREADABLE', [str(e)]))
    except OSError as e:
        print(f'cannot read the test log: {e}', file=sys.stderr)
        totals.failed += 1
        print(totals.line())
        return 1

    if not entries and not totals.problems:
        print(f'no test results in {path}', file=sys.stderr)
        totals.failed += 1
        print(totals.line())
        return 1

    protocols = load_protocols(path)
    for entry in entries:
        if protocol_of(entry, protocols) == 'tap':
            count_tap(entry, totals)
        else:
            count_once(entry, totals)

    for name, result, details in totals.problems:
        print(f'FAILED {name} ({result})')
        for d in details:
            print(f'    {d}')
    print(totals.line())
    return 1 if totals.failed > 0 else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
