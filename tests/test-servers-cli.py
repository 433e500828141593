#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""snodo servers finds the applications that offer MCP
(introspection/discovery.md): in a temporary XDG_DATA_DIRS, the desktop
files and D-Bus service file of mcp-app.py, a Flatpak-exported one and one
that offers nothing, on a private session bus (dbus-run-session). It lists
them, prints their configurations in the three formats, the printed
command serves MCP (run by hand and by snodo list), D-Bus activation
starts the application, and then it is listed as running, as is a name
this script owns.

Usage: test-servers-cli.py SNODO MCP-APP DBUS-RUN-SESSION   (TAP on stdout)"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

TIMEOUT = 20
results = []


def report(ok, name, detail=''):
    results.append(ok)
    print('%s %d - %s' % ('ok' if ok else 'not ok', len(results), name))
    if not ok and detail:
        for line in str(detail).splitlines():
            print('# ' + line)


def snodo(*args):
    done = subprocess.run([SNODO] + list(args), capture_output=True, text=True, timeout=TIMEOUT)
    return done.returncode, done.stdout, done.stderr


def listed(out):
    rows = {}
    for line in out.splitlines():
        fields = line.split('\t')
        if len(fields) == 4:
            rows[fields[0]] = fields
    return rows


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


def outside(mcp_app, dbus_run_session):
    """Makes the data directories, then runs the checks on a private bus."""
    work = tempfile.mkdtemp(prefix='snodo-servers-')
    try:
        share = os.path.join(work, 'share')
        python = sys.executable
        write(os.path.join(share, 'applications', 'org.snodo.TestApp.desktop'),
              '[Desktop Entry]\nType=Application\nName=Snodo Test App\nExec=%s %s org.snodo.TestApp\n'
              'DBusActivatable=true\nImplements=org.gtk.Actions;io.snodo.Mcp;\n\n'
              '[X-Snodo Mcp]\nExec=%s %s --mcp-stdio\n' % (python, mcp_app, python, mcp_app))
        write(os.path.join(share, 'dbus-1', 'services', 'org.snodo.TestApp.service'),
              '[D-BUS Service]\nName=org.snodo.TestApp\nExec=%s %s org.snodo.TestApp\n' % (python, mcp_app))
        # As flatpak exports it: the Exec of [X-Snodo Mcp] runs in the sandbox.
        write(os.path.join(share, 'applications', 'org.snodo.Flat.desktop'),
              '[Desktop Entry]\nType=Application\nName=Flat\n'
              # flatpak's own command, made one that exists here (GLib
              # leaves out an application whose program is missing).
              'Exec=%s --branch=stable --command=flat org.snodo.Flat\n'
              'X-Flatpak=org.snodo.Flat\nImplements=io.snodo.Mcp;\n\n'
              '[X-Snodo Mcp]\nExec=flat --mcp-stdio --quiet\n' % python)
        write(os.path.join(share, 'applications', 'org.snodo.Plain.desktop'),
              '[Desktop Entry]\nType=Application\nName=Plain\nExec=plain\nImplements=org.gtk.Actions;\n')
        env = dict(os.environ, XDG_DATA_DIRS=share, XDG_DATA_HOME=os.path.join(work, 'home'),
                   XDG_CONFIG_HOME=os.path.join(work, 'config'))
        env.pop('DBUS_SESSION_BUS_ADDRESS', None)
        done = subprocess.run([dbus_run_session, '--', sys.executable, os.path.abspath(__file__), '--inside',
                               SNODO, mcp_app], env=env, timeout=120)
        return done.returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


def initialize(command):
    """Runs @command and initializes it; its answer."""
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        out, _ = child.communicate(json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
            'protocolVersion': '2025-11-25', 'capabilities': {},
            'clientInfo': {'name': 't', 'version': '1'}}}) + '\n', timeout=TIMEOUT)
    finally:
        child.kill() if child.poll() is None else None
    return json.loads(out.splitlines()[0]) if out else None


def inside(mcp_app):
    from gi.repository import Gio, GLib

    python = sys.executable
    stdio_command = [python, mcp_app, '--mcp-stdio']

    status, out, err = snodo('servers')
    rows = listed(out)
    app = rows.get('org.snodo.TestApp')
    report(status == 0 and app is not None and app[1] == 'installed,activatable' and app[2] == 'Snodo Test App'
           and app[3] == '%s %s --mcp-stdio' % (python, mcp_app), 'the installed application is listed', out + err)
    flat = rows.get('org.snodo.Flat')
    report(flat is not None and flat[1] == 'installed'
           and flat[3] == 'flatpak run --command=flat org.snodo.Flat --mcp-stdio --quiet',
           'a Flatpak application runs its command with flatpak run', out)
    report('org.snodo.Plain' not in rows, 'an application that does not implement io.snodo.Mcp is not listed', out)

    expected = {
        'claude-desktop': {'mcpServers': {'org.snodo.TestApp': {'command': python,
                                                                'args': [mcp_app, '--mcp-stdio']}}},
        'mcp-servers': {'mcpServers': {'org.snodo.TestApp': {'type': 'stdio', 'command': python,
                                                             'args': [mcp_app, '--mcp-stdio']}}},
        'vscode': {'servers': {'org.snodo.TestApp': {'type': 'stdio', 'command': python,
                                                     'args': [mcp_app, '--mcp-stdio']}}},
    }
    config = None
    for form, want in expected.items():
        status, out, err = snodo('servers', '--config', form, 'org.snodo.TestApp')
        try:
            got = json.loads(out)
        except ValueError:
            got = None
        report(status == 0 and got == want, 'the %s configuration' % form, out + err)
        if form == 'mcp-servers':
            config = got
    status, out, err = snodo('servers', '--config', 'mcp-servers')
    everyone = json.loads(out) if status == 0 else {}
    report(set(everyone.get('mcpServers', {})) == {'org.snodo.TestApp', 'org.snodo.Flat'},
           'without IDs, the configuration of every server', out + err)
    status, out, err = snodo('servers', '--config', 'nope')
    report(status == 2 and 'nope' in err, 'an unknown format is a usage error', '%d %s' % (status, err))
    status, out, err = snodo('servers', 'org.snodo.Nobody')
    report(status == 1 and 'org.snodo.Nobody' in err, 'an unknown ID is an error', '%d %s' % (status, err))

    # The printed command serves MCP: by hand, and to snodo's own client.
    entry = (config or {}).get('mcpServers', {}).get('org.snodo.TestApp', {})
    command = [entry.get('command', 'false')] + entry.get('args', [])
    answer = initialize(command)
    report(answer is not None and answer.get('result', {}).get('serverInfo', {}).get('name') == 'mcp-app',
           'the configured command answers initialize', answer)
    status, out, err = snodo('list', '--', *command)
    report(status == 0 and 'hello' in out, 'snodo list runs the configured command', out + err)

    # D-Bus activation: asking the name starts the application.
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)

    def has_owner(name):
        return bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                             'NameHasOwner', GLib.Variant('(s)', (name,)), None, Gio.DBusCallFlags.NONE,
                             5000, None).unpack()[0]

    report(not has_owner('org.snodo.TestApp'), 'the application is not running before it is asked for')
    try:
        reply = bus.call_sync('org.snodo.TestApp', '/org/snodo/TestApp', 'org.freedesktop.DBus.Properties', 'Get',
                              GLib.Variant('(ss)', ('io.snodo.Mcp', 'StdioCommand')), None,
                              Gio.DBusCallFlags.NONE, TIMEOUT * 1000, None).unpack()[0]
    except GLib.Error as error:
        reply = error.message
    report(reply == stdio_command and has_owner('org.snodo.TestApp'),
           'D-Bus activation starts the application, which exports io.snodo.Mcp', reply)

    # A running application that is not installed, with its command.
    with open(os.path.join(os.path.dirname(os.path.abspath(mcp_app)), '..', 'data', 'io.snodo.Mcp.xml')) as f:
        interface = Gio.DBusNodeInfo.new_for_xml(f.read()).interfaces[0]
    bus.register_object('/org/snodo/Running', interface, None,
                        lambda *args: GLib.Variant('as', stdio_command), None)
    bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',
                  GLib.Variant('(su)', ('org.snodo.Running', 0)), None, Gio.DBusCallFlags.NONE, 5000, None)
    # A name without the interface is not listed.
    bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',
                  GLib.Variant('(su)', ('org.snodo.Silent', 0)), None, Gio.DBusCallFlags.NONE, 5000, None)

    # snodo asks while this script serves its own name: it answers on a
    # thread of the main context, so snodo runs on another one.
    context = GLib.MainContext.default()
    child = subprocess.Popen([SNODO, 'servers'], stdout=subprocess.PIPE, text=True)
    while child.poll() is None:
        context.iteration(False)
    rows = listed(child.stdout.read())
    app = rows.get('org.snodo.TestApp')
    report(app is not None and app[1] == 'installed,activatable,running', 'the activated application is running',
           rows)
    running = rows.get('org.snodo.Running')
    report(running is not None and running[1] == 'running' and running[3].endswith('--mcp-stdio'),
           'a running application that is not installed is listed with its command', rows)
    report('org.snodo.Silent' not in rows, 'a name without io.snodo.Mcp is not listed', rows)

    child = subprocess.Popen([SNODO, 'servers', '--config', 'claude-desktop', 'org.snodo.Running'],
                             stdout=subprocess.PIPE, text=True)
    while child.poll() is None:
        context.iteration(False)
    got = json.loads(child.stdout.read() or 'null')
    report(got == {'mcpServers': {'org.snodo.Running': {'command': python, 'args': stdio_command[1:]}}},
           'the configuration of a running application comes from its StdioCommand', got)

    print('1..%d' % len(results))
    return 0 if all(results) else 1


if __name__ == '__main__':
    if sys.argv[1] == '--inside':
        SNODO = sys.argv[2]
        sys.exit(inside(sys.argv[3]))
    SNODO = sys.argv[1]
    sys.exit(outside(os.path.abspath(sys.argv[2]), sys.argv[3]))
