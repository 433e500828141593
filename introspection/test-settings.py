#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Settings and actions from Python and JavaScript: a server made in the
# language serves the settings of tests/data/org.snodo.Test.gschema.xml
# (compiled with glib-compile-schemas into a temporary directory, on the
# keyfile backend) with Server.add_settings() and a Gio.SimpleActionGroup
# with Server.add_action_group(), on standard input and output. This
# script talks to it over the pipes, in the 2025 and the 2026-07-28 eras,
# and changes the key file from outside, as another program would.
#
#   test-settings.py               checks the Python server
#   test-settings.py --gjs GJS     checks test-settings.js run by GJS
#   test-settings.py serve         the Python server

import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SCHEMA = 'org.snodo.Test'
HERE = os.path.dirname(os.path.abspath(__file__))
MODERN_META = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
               'io.modelcontextprotocol/clientCapabilities': {}}

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('not ok - ' + message)


def serve():
    import gi
    gi.require_version('Gio', '2.0')
    gi.require_version('Snodo', '1')
    from gi.repository import Gio, GLib, Snodo

    # Before the first thread (GSettings starts some): logs to stderr.
    Snodo.StdioTransport.log_to_stderr()
    server = Snodo.Server.new('py-settings', '1.0')
    settings = Gio.Settings.new(SCHEMA)
    server.add_settings(settings, None, Snodo.SettingsFlags.WRITABLE)

    group = Gio.SimpleActionGroup()
    greet = Gio.SimpleAction.new('greet', GLib.VariantType.new('s'))
    greet.connect('activate', lambda action, parameter: settings.set_string('name', parameter.get_string()))
    group.add_action(greet)
    group.add_action(Gio.SimpleAction.new_stateful('dark', None, GLib.Variant('b', False)))
    move = Gio.SimpleAction.new('move', GLib.VariantType.new('(ii)'))
    move.connect('activate', lambda action, parameter: settings.set_int('volume', sum(parameter.unpack())))
    group.add_action(move)
    server.add_action_group(group, 'app', None, None, None)
    # server.run() would set up logging again, after GSettings' threads.
    transport = Snodo.StdioTransport.new_for_stdio(server)
    loop = GLib.MainLoop()
    transport.connect('closed', lambda *_: loop.quit())
    transport.start()
    loop.run()


class Peer:
    """The server, started on a pipe: request() answers, notes collect the
    notifications."""

    def __init__(self, command, env):
        self.child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True, env=env)
        self.lines = queue.Queue()
        self.stderr = []
        self.notes = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.child.stderr), daemon=True).start()
        self.next_id = 0
        self.modern = False

    def _read(self):
        for line in self.child.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, message):
        self.child.stdin.write(json.dumps(message) + '\n')
        self.child.stdin.flush()

    def recv(self, timeout=20):
        message = self.lines.get(timeout=timeout)
        if message is None:
            raise EOFError('the server ended: ' + ''.join(self.stderr)[-2000:])
        return message

    def request(self, method, params=None):
        self.next_id += 1
        params = dict(params or {})
        if self.modern:
            params['_meta'] = MODERN_META
        self.send({'jsonrpc': '2.0', 'id': self.next_id, 'method': method, 'params': params})
        while True:
            message = self.recv()
            if message.get('id') == self.next_id and 'method' not in message:
                return message
            self.notes.append(message)

    def result(self, method, params=None):
        answer = self.request(method, params)
        check('result' in answer, '%s %r: %r' % (method, params, answer))
        return answer.get('result', {})

    def read(self, uri):
        contents = self.result('resources/read', {'uri': uri}).get('contents', [{}])
        return contents[0].get('text')

    def call(self, name, arguments):
        return self.result('tools/call', {'name': name, 'arguments': arguments})

    def wait_note(self, method, uri, timeout=20):
        """The notification @method about @uri, received or coming."""
        deadline = time.monotonic() + timeout
        while True:
            for note in self.notes:
                if note.get('method') == method and note.get('params', {}).get('uri') == uri:
                    self.notes.remove(note)
                    return note
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                self.notes.append(self.recv(timeout=left))
            except queue.Empty:
                return None

    def close(self):
        self.child.stdin.close()
        return self.child.wait(timeout=20)


def keyfile_write(env, text):
    path = os.path.join(env['XDG_CONFIG_HOME'], 'glib-2.0', 'settings', 'keyfile')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + '.new', 'w') as f:
        f.write(text)
    os.rename(path + '.new', path)


def keyfile_read(env):
    try:
        with open(os.path.join(env['XDG_CONFIG_HOME'], 'glib-2.0', 'settings', 'keyfile')) as f:
            return f.read()
    except FileNotFoundError:
        return ''


def wait_for(predicate, timeout=10):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def uri(key):
    return 'settings://%s/%s' % (SCHEMA, key)


def check_classic(command, env, language):
    peer = Peer(command, env)
    answer = peer.request('initialize', {'protocolVersion': '2025-11-25', 'capabilities': {},
                                         'clientInfo': {'name': 'test', 'version': '1'}})
    check('result' in answer, '%s: initialize: %r' % (language, answer))
    peer.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})

    resources = {r['uri']: r for r in peer.result('resources/list').get('resources', [])}
    volume = resources.get(uri('volume'), {})
    check(volume.get('title') == 'Volume' and volume.get('description') == 'How loud sounds are, in percent.'
          and volume.get('mimeType') == 'application/json', '%s: the volume resource: %r' % (language, volume))
    check('action:app.dark' in resources, '%s: the state of app.dark is a resource: %r' % (language, list(resources)))

    tools = {t['name']: t for t in peer.result('tools/list').get('tools', [])}
    value = tools.get(SCHEMA + '.set-volume', {}).get('inputSchema', {}).get('properties', {}).get('value')
    check(value == {'type': 'integer', 'minimum': 0, 'maximum': 100, 'description': 'Volume', 'default': 50},
          '%s: the schema of set-volume: %r' % (language, value))
    theme = tools.get(SCHEMA + '.set-theme', {}).get('inputSchema', {}).get('properties', {}).get('value', {})
    check(theme.get('enum') == ['light', 'dark', 'auto'], '%s: the schema of set-theme: %r' % (language, theme))
    check({'app.greet', 'app.move', 'app.dark'} <= set(tools), '%s: the actions: %r' % (language, list(tools)))

    check(peer.read(uri('volume')) == '50', '%s: the default volume' % language)
    peer.result('resources/subscribe', {'uri': uri('volume')})

    # Another program writes the key file.
    keyfile_write(env, '[org/snodo/test]\nvolume=42\n')
    check(peer.wait_note('notifications/resources/updated', uri('volume')) is not None,
          '%s: no resources/updated after the key file changed' % language)
    check(peer.read(uri('volume')) == '42', '%s: the volume from the key file' % language)

    # Through the tool: the key file is written, subscribers are told.
    result = peer.call(SCHEMA + '.set-volume', {'value': 7})
    check(not result.get('isError'), '%s: set-volume: %r' % (language, result))
    check(peer.wait_note('notifications/resources/updated', uri('volume')) is not None,
          '%s: no resources/updated after set-volume' % language)
    check(wait_for(lambda: 'volume=7' in keyfile_read(env)), '%s: the key file: %r' % (language, keyfile_read(env)))

    # Refused writes leave the key alone.
    for name, arguments in [('set-volume', {'value': 101}), ('set-volume', {'value': 'loud'}),
                            ('set-theme', {'value': 'neon'})]:
        result = peer.call(SCHEMA + '.' + name, arguments)
        check(result.get('isError') is True, '%s: %s %r accepted: %r' % (language, name, arguments, result))
    check(peer.read(uri('volume')) == '7', '%s: the volume after refused writes' % language)

    # The actions: a parameter converted, the application's handler sets a
    # key; a state toggled.
    result = peer.call('app.greet', {'parameter': 'Grace'})
    check(not result.get('isError'), '%s: app.greet: %r' % (language, result))
    check(peer.read(uri('name')) == '"Grace"', '%s: app.greet set the name' % language)
    result = peer.call('app.move', {'parameter': [30, 12]})
    check(not result.get('isError'), '%s: app.move: %r' % (language, result))
    check(peer.wait_note('notifications/resources/updated', uri('volume')) is not None,
          '%s: no resources/updated after app.move' % language)
    check(peer.read(uri('volume')) == '42', '%s: app.move set the volume' % language)
    answer = peer.request('tools/call', {'name': 'app.move', 'arguments': {'parameter': [30, 'twelve']}})
    check(answer.get('error', {}).get('code') == -32602 or answer.get('result', {}).get('isError'),
          '%s: app.move with a string: %r' % (language, answer))
    check(peer.read('action:app.dark') == 'false', '%s: the state of app.dark' % language)
    peer.call('app.dark', {})
    check(peer.read('action:app.dark') == 'true', '%s: app.dark toggled' % language)

    check(peer.close() == 0, '%s: exit status at the end of input' % language)


def check_modern(command, env, language):
    peer = Peer(command, env)
    peer.modern = True
    peer.send({'jsonrpc': '2.0', 'id': 500, 'method': 'subscriptions/listen',
               'params': {'_meta': MODERN_META, 'notifications': {'resourceSubscriptions': [uri('name')]}}})
    ack = peer.recv()
    check(ack.get('method') == 'notifications/subscriptions/acknowledged', '%s: listen: %r' % (language, ack))
    check(peer.read(uri('name')) == '"Grace"', '%s: 2026-07-28 read' % language)

    keyfile_write(env, '[org/snodo/test]\nname=\'Lin\'\n')
    note = peer.wait_note('notifications/resources/updated', uri('name'))
    check(note is not None and note['params'].get('_meta', {}).get('io.modelcontextprotocol/subscriptionId') == 500,
          '%s: 2026-07-28 update on the listen stream: %r' % (language, note))
    result = peer.call(SCHEMA + '.set-name', {'value': 'Ada'})
    check(not result.get('isError'), '%s: 2026-07-28 set-name: %r' % (language, result))
    check(peer.wait_note('notifications/resources/updated', uri('name')) is not None,
          '%s: 2026-07-28 update after set-name' % language)
    check(peer.read(uri('name')) == '"Ada"', '%s: 2026-07-28 read after set-name' % language)
    check(peer.close() == 0, '%s: 2026-07-28 exit status' % language)


def main():
    if sys.argv[1:2] == ['serve']:
        serve()
        return
    if sys.argv[1:2] == ['--gjs']:
        command, language = [sys.argv[2], '-m', os.path.join(HERE, 'test-settings.js')], 'gjs'
    else:
        command, language = [sys.executable, os.path.abspath(__file__), 'serve'], 'python'

    work = tempfile.mkdtemp(prefix='snodo-settings-')
    try:
        shutil.copy(os.path.join(HERE, '..', 'tests', 'data', SCHEMA + '.gschema.xml'), work)
        subprocess.run([os.environ.get('GLIB_COMPILE_SCHEMAS', 'glib-compile-schemas'), '--strict', work],
                       check=True)
        env = dict(os.environ, GSETTINGS_SCHEMA_DIR=work, GSETTINGS_BACKEND='keyfile',
                   XDG_CONFIG_HOME=os.path.join(work, 'config'))
        check_classic(command, env, language)
        check_modern(command, env, language)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    if failures:
        print('%d failures' % len(failures))
        sys.exit(1)
    print('ok - %s: settings and actions served, read, followed and set' % language)


if __name__ == '__main__':
    main()
