#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-c-example.py CC SRCDIR BUILDDIR
#
# The complete C program of the overview page ("A server in C") must be the
# one of the README ("Using it from C"), must compile without a warning
# the way the README says to build it (pkg-config snodo-1, here the
# uninstalled one), and must serve: its echo tool answers, and its input
# schema turns away a call without "text".

import json
import os
import re
import subprocess
import sys
import tempfile


def example(path, heading):
    with open(path, encoding='utf-8') as f:
        text = f.read()
    section = text[text.index(heading):]
    return re.search(r'```c\n(.*?)```', section, re.DOTALL).group(1)


def main():
    cc, srcdir, builddir = sys.argv[1:4]
    overview = example(os.path.join(srcdir, 'introspection', 'overview.md'), '## A server in C')
    readme = example(os.path.join(srcdir, 'README.md'), '## Using it from C')
    if overview != readme:
        print('not ok - the C programs of overview.md and README.md differ')
        return 1
    print('ok - overview.md and README.md show the same C program')

    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(builddir, 'meson-uninstalled'))
    flags = subprocess.run(['pkg-config', '--cflags', '--libs', 'snodo-1'], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, 'echo.c')
        program = os.path.join(tmp, 'echo')
        with open(source, 'w', encoding='utf-8') as f:
            f.write(overview)
        result = subprocess.run([cc, '-std=gnu11', '-Wall', '-Wextra', '-Wno-unused-parameter', '-Werror',
                                 source, '-o', program] + flags, capture_output=True, text=True)
        if result.returncode != 0:
            print('not ok - the C program does not compile:\n' + result.stderr)
            return 1
        print('ok - the C program compiles without warnings')

        meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {}}
        requests = [
            {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
             'params': {'name': 'echo', 'arguments': {'text': 'hi'}, '_meta': meta}},
            {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
             'params': {'name': 'echo', 'arguments': {}, '_meta': meta}},
        ]
        run_env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(builddir, 'snodo'))
        result = subprocess.run([program], input=''.join(json.dumps(r) + '\n' for r in requests),
                                capture_output=True, text=True, env=run_env, timeout=30)
        answers = {m['id']: m for m in map(json.loads, result.stdout.splitlines())}
        echoed = answers.get(1, {}).get('result', {}).get('content')
        refused = answers.get(2, {}).get('result', {})
        if result.returncode != 0 or echoed != [{'type': 'text', 'text': 'hi'}] or not refused.get('isError'):
            print('not ok - the C program answered %r (status %d, %s)' % (answers, result.returncode, result.stderr))
            return 1
        print('ok - the C program serves echo and checks its arguments against the schema')
    return 0


if __name__ == '__main__':
    sys.exit(main())
