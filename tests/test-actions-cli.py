#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""snodo actions BUS-NAME serves a running application's actions: on a
private session bus (run under dbus-run-session), actions-app.py owns
org.snodo.TestActions, and an MCP client on snodo's pipes lists, calls and
follows them.

Usage: test-actions-cli.py SNODO ACTIONS-APP   (TAP on standard output)"""

import json
import os
import select
import subprocess
import sys

TIMEOUT = 10


def read_line(stream, what):
    # The streams are unbuffered (bufsize=0), so that select() sees every
    # line not read yet: a buffered reader could hold a second line that
    # came in the same read, and select() would wait for it in vain.
    ready, _, _ = select.select([stream], [], [], TIMEOUT)
    if not ready:
        raise AssertionError('no %s within %d s' % (what, TIMEOUT))
    line = stream.readline()
    if not line:
        raise AssertionError('end of output instead of %s' % what)
    return line.decode() if isinstance(line, bytes) else line


class Client:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.next_id = 1
        self.pending = []

    def send(self, message):
        self.proc.stdin.write((json.dumps(message) + '\n').encode())
        self.proc.stdin.flush()

    def request(self, method, params=None):
        id_ = self.next_id
        self.next_id += 1
        self.send({'jsonrpc': '2.0', 'id': id_, 'method': method, 'params': params or {}})
        while True:
            message = json.loads(read_line(self.proc.stdout, 'the answer to ' + method))
            if message.get('id') == id_:
                return message
            self.pending.append(message)

    def notification(self, method):
        while True:
            for i, message in enumerate(self.pending):
                if message.get('method') == method:
                    return self.pending.pop(i)
            self.pending.append(json.loads(read_line(self.proc.stdout, method)))


def main():
    snodo, app_script = sys.argv[1:3]
    n = 0

    def ok(condition, message):
        nonlocal n
        n += 1
        print('%s %d - %s' % ('ok' if condition else 'not ok', n, message), flush=True)
        if not condition:
            raise SystemExit(1)

    app = subprocess.Popen([sys.executable, app_script], stdout=subprocess.PIPE, bufsize=0)
    try:
        ok(read_line(app.stdout, 'the application').strip() == 'ready', 'the application is on the bus')

        client = Client([snodo, 'actions', 'org.snodo.TestActions'])
        init = client.request('initialize', {'protocolVersion': '2025-11-25', 'capabilities': {},
                                             'clientInfo': {'name': 't', 'version': '1'}})
        ok(init['result']['serverInfo']['name'] == 'org.snodo.TestActions', 'snodo serves the application')
        client.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})

        tools = {t['name']: t for t in client.request('tools/list')['result']['tools']}
        ok(sorted(tools) == ['app.dark', 'app.greet', 'app.unlock'],
           'the enabled actions are tools: %s' % sorted(tools))
        ok(tools['app.greet']['inputSchema']['properties']['parameter'] == {'type': 'string'},
           'a parameter of type s is a string')

        answer = client.request('tools/call', {'name': 'app.greet', 'arguments': {'parameter': 'bus'}})
        ok(not answer['result'].get('isError'), 'a call succeeds')
        ok(read_line(app.stdout, 'the activation').strip() == 'greet bus',
           'the action was activated in the application')

        answer = client.request('tools/call', {'name': 'app.greet', 'arguments': {'parameter': 3}})
        ok('error' in answer or answer['result'].get('isError'), 'a parameter of the wrong type is refused')

        client.request('tools/call', {'name': 'app.unlock', 'arguments': {}})
        ok(read_line(app.stdout, 'the activation').strip() == 'unlock', 'unlock was activated')
        client.notification('notifications/tools/list_changed')
        tools = [t['name'] for t in client.request('tools/list')['result']['tools']]
        ok('app.save' in tools, 'an action the application enabled becomes a tool')

        state = client.request('resources/read', {'uri': 'action:app.dark'})
        ok(state['result']['contents'][0]['text'] == 'false', 'the state is a resource')
        client.request('resources/subscribe', {'uri': 'action:app.dark'})
        client.request('tools/call', {'name': 'app.dark', 'arguments': {}})
        ok(read_line(app.stdout, 'the state change').strip() == 'dark True', 'the state changed in the application')
        updated = client.notification('notifications/resources/updated')
        ok(updated['params']['uri'] == 'action:app.dark', 'the subscriber is told')
        state = client.request('resources/read', {'uri': 'action:app.dark'})
        ok(state['result']['contents'][0]['text'] == 'true', 'the new state is read')

        client.proc.stdin.close()
        ok(client.proc.wait(TIMEOUT) == 0, 'snodo exits with status 0 when the client leaves')
    finally:
        app.terminate()
        app.wait(TIMEOUT)
    print('1..%d' % n)


if __name__ == '__main__':
    main()
