#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   actions-gnome.py NODE INSPECTOR SNODO
#
# `snodo actions` against a GNOME application from Debian's packages that
# knows nothing of Snodo: gnome-calculator, in a virtual X display
# (xvfb-run) on a private session bus (run under dbus-run-session). It is
# NON_UNIQUE, so it owns no well-known name: snodo is given its unique name
# and its object path. The MCP Inspector's command line lists its actions
# as tools in both eras; the TypeScript SDK client lists them and calls
# app.quit, and the calculator quits. Output is TAP.

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

node, inspector, snodo = sys.argv[1:4]
OBJECT_PATH = '/org/gnome/Calculator'
count = 0
failed = 0


def check(name, ok, detail=''):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print('%s %d - %s' % ('ok' if ok else 'not ok', count, name), flush=True)
    if not ok and detail:
        print('# ' + str(detail).replace('\n', '\n# ')[:3000])


def bus(method, *args):
    out = subprocess.run(['gdbus', 'call', '--session', '--dest', 'org.freedesktop.DBus',
                          '--object-path', '/org/freedesktop/DBus', '--method', 'org.freedesktop.DBus.' + method,
                          *args], capture_output=True, text=True, timeout=10)
    return out.stdout


def unique_name_of(pid):
    names = [n.strip(" '") for n in bus('ListNames').strip('()[],\n').split(',')]
    for name in names:
        if not name.startswith(':'):
            continue
        out = bus('GetConnectionUnixProcessID', name)
        if out.strip('()\n ,').replace('uint32 ', '') == str(pid):
            return name
    return None


def exports_actions(name):
    out = subprocess.run(['gdbus', 'introspect', '--session', '--dest', name, '--object-path', OBJECT_PATH],
                         capture_output=True, text=True, timeout=10)
    return 'org.gtk.Actions' in out.stdout


calculator = shutil.which('gnome-calculator')
check('gnome-calculator is installed (.ci/install-deps --tests installs it)', calculator is not None)
if calculator is None:
    print('1..%d' % count)
    sys.exit(1)

# No accessibility bus: its registry, started by the bus, would print on
# this test's output.
env = dict(os.environ, GSETTINGS_BACKEND='memory', NO_AT_BRIDGE='1', GTK_A11Y='none')
display = subprocess.Popen(['xvfb-run', '-a', calculator], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
name = None
pid = None
try:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and name is None:
        found = subprocess.run(['pidof', 'gnome-calculator'], capture_output=True, text=True).stdout.split()
        if found:
            pid = int(found[0])
            candidate = unique_name_of(pid)
            if candidate is not None and exports_actions(candidate):
                name = candidate
        if name is None:
            time.sleep(0.3)
    check('gnome-calculator is on the bus with its actions', name is not None, pid)
    if name is None:
        raise SystemExit

    for era in ('legacy', 'modern'):
        with tempfile.TemporaryDirectory() as catalog:
            done = subprocess.run([node, inspector, '--cli', '--protocol-era', era, '--format', 'json', '-q',
                                   '-e', 'DBUS_SESSION_BUS_ADDRESS=' + os.environ['DBUS_SESSION_BUS_ADDRESS'],
                                   '--method', 'tools/list', '--', snodo, 'actions', name, OBJECT_PATH],
                                  capture_output=True, text=True, timeout=90,
                                  env=dict(os.environ, MCP_CATALOG_PATH=os.path.join(catalog, 'mcp.json')))
        try:
            tools = {t['name']: t for t in json.loads(done.stdout.splitlines()[0])['result']['tools']}
        except (IndexError, ValueError, KeyError):
            tools = {}
        check('the Inspector CLI lists the calculator\'s actions (%s era)' % era,
              {'app.quit', 'app.about', 'app.new-window'} <= set(tools), (done.stdout[:1500], done.stderr[-1500:]))
        check('a parameterless action takes an empty object (%s era)' % era,
              tools.get('app.quit', {}).get('inputSchema', {}).get('type') == 'object', tools.get('app.quit'))

    done = subprocess.run([node, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'actions-gnome.mjs'),
                           snodo, name, OBJECT_PATH, 'app.quit'],
                          capture_output=True, text=True, timeout=90)
    try:
        answer = json.loads(done.stdout.splitlines()[-1])
    except (IndexError, ValueError):
        answer = {}
    check('the SDK client lists the actions', 'app.quit' in answer.get('tools', []), (done.stdout, done.stderr))
    check('and calls app.quit', answer.get('result', {}).get('isError') is False or
          ('result' in answer and not answer['result'].get('isError')), answer)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and os.path.exists('/proc/%d' % pid):
        time.sleep(0.2)
    check('the calculator quit', not os.path.exists('/proc/%d' % pid))
finally:
    # xvfb-run ends its X server when its program ends, not on SIGTERM.
    if pid is not None and os.path.exists('/proc/%d' % pid):
        subprocess.run(['kill', str(pid)])
    try:
        display.wait(20)
    except subprocess.TimeoutExpired:
        display.terminate()
        display.wait(20)

print('1..%d' % count)
sys.exit(1 if failed else 0)
