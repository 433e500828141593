#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Checks what data/ ships:
#   check-data.py SNODO-DEMO MANPAGE CONFIG.json...
# - every sample client configuration is JSON in one of the shapes MCP
#   clients read, and names snodo-demo or its HTTP endpoint;
# - the manual page renders without a single groff warning;
# - it documents every option `snodo-demo --help` lists, and shows each
#   in its SYNOPSIS.
# Exits 77 (skipped) only when groff itself is not installed.

import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def fail(message):
    failures.append(message)
    print('not ok - ' + message)


def check_server(path, name, entry):
    if not isinstance(entry, dict):
        fail('%s: %s is not an object' % (path, name))
        return
    kind = entry.get('type', 'stdio')
    if kind == 'stdio':
        if entry.get('command') != 'snodo-demo':
            fail('%s: %s does not run snodo-demo' % (path, name))
        if not isinstance(entry.get('args', []), list):
            fail('%s: %s has args that are not a list' % (path, name))
    elif kind == 'http':
        if not re.fullmatch(r'http://127\.0\.0\.1:\d+/mcp', entry.get('url', '')):
            fail('%s: %s has no loopback /mcp url' % (path, name))
    else:
        fail('%s: %s has an unknown type %r' % (path, name, kind))


def check_config(path):
    try:
        with open(path, encoding='utf-8') as f:
            config = json.load(f)
    except (OSError, ValueError) as e:
        fail('%s does not parse: %s' % (path, e))
        return
    # Claude Desktop and most clients: mcpServers; VS Code: servers.
    servers = config.get('mcpServers', config.get('servers'))
    if not isinstance(servers, dict) or not servers:
        fail('%s has neither mcpServers nor servers' % path)
        return
    for name, entry in servers.items():
        check_server(path, name, entry)
    print('ok - %s: %s' % (os.path.basename(path), ', '.join(servers)))


def check_man(demo, man):
    groff = shutil.which('groff')
    if groff is None:
        print('# groff is not installed')
        return False
    env = dict(os.environ, LC_ALL='C.UTF-8')
    result = subprocess.run([groff, '-ww', '-b', '-z', '-Tutf8', '-man', man],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0 or result.stderr:
        fail('groff warns about %s (status %d):\n%s' % (man, result.returncode, result.stderr))
    else:
        print('ok - %s renders without warnings' % os.path.basename(man))

    rendered = subprocess.run([groff, '-Tutf8', '-man', '-P', '-cbou', man],
                              capture_output=True, text=True, env=env).stdout
    rendered = rendered.replace('\u2010', '-')
    help_text = subprocess.run([demo, '--help'], capture_output=True, text=True, env=env).stdout
    options = re.findall(r'^\s+(--[a-z-]+)=', help_text, re.MULTILINE)
    if not options:
        fail('snodo-demo --help lists no options')
    synopsis = ' '.join(rendered[rendered.index('SYNOPSIS'):rendered.index('DESCRIPTION')].split())
    for option in options:
        if option + '=' not in rendered:
            fail('the manual page does not document %s' % option)
        if option + '=' not in synopsis:
            fail('the SYNOPSIS of the manual page does not show %s' % option)
    print('ok - the manual page documents %s, and its SYNOPSIS shows them' % ' '.join(options))
    return True


def main():
    demo, man, configs = sys.argv[1], sys.argv[2], sys.argv[3:]
    for path in configs:
        check_config(path)
    had_groff = check_man(demo, man)
    if failures:
        return 1
    return 0 if had_groff else 77


if __name__ == '__main__':
    sys.exit(main())
