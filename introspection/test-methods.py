#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Methods of an application's own from Python: add_method() with a params
# schema as a dict, a notification handler given params as a dict,
# invocation.notify(), and the server's identity (icons, server.json).
#
#   test-methods.py          runs the checks; starts itself as a server
#   test-methods.py serve    a stdio server on standard input and output

import json
import subprocess
import sys

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

META = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {}}
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('not ok - ' + message)


def make_server():
    server = Snodo.Server.new('py-methods', '1.0')
    server.set_description('Methods of its own')
    server.set_icons([{'src': 'https://example.org/icon.png', 'mimeType': 'image/png'}])
    notes = []

    def note(_server, method, params):
        notes.append(params['text'])

    def add(inv):
        params = inv.get_params()
        inv.notify('example.org/adding', {'a': params['a']})
        inv.return_result({'sum': params['a'] + params['b'], 'notes': notes})

    server.add_notification_handler('example.org/note', {'type': 'object', 'required': ['text']}, note)
    server.add_method('example.org/add', {'type': 'object', 'properties': {'a': {'type': 'integer'},
                                                                          'b': {'type': 'integer'}},
                                          'required': ['a', 'b']}, add)
    return server


def serve():
    server = make_server()
    transport = Snodo.StdioTransport.new_for_stdio(server)
    loop = GLib.MainLoop()
    transport.connect('closed', lambda _t, _error: loop.quit())
    transport.start()
    loop.run()


def main():
    if sys.argv[1:] == ['serve']:
        serve()
        return

    server = make_server()
    try:
        server.add_method('tools/mine', None, lambda inv: None)
        check(False, 'an MCP name was taken')
    except GLib.Error:
        pass
    check(server.get_icons()[0]['mimeType'] == 'image/png', 'icons: %r' % server.get_icons())
    document = server.dup_server_json('org.example/py-methods')
    check(document['name'] == 'org.example/py-methods' and document['description'] == 'Methods of its own'
          and document['version'] == '1.0', 'server.json: %r' % document)

    lines = [
        {'jsonrpc': '2.0', 'method': 'example.org/note', 'params': {'text': 'hi', '_meta': META}},
        {'jsonrpc': '2.0', 'id': 1, 'method': 'example.org/add', 'params': {'a': 2, 'b': 3, '_meta': META}},
        {'jsonrpc': '2.0', 'id': 2, 'method': 'example.org/add', 'params': {'a': 'x', 'b': 3, '_meta': META}},
        {'jsonrpc': '2.0', 'id': 3, 'method': 'example.org/none', 'params': {'_meta': META}},
    ]
    child = subprocess.run([sys.executable, __file__, 'serve'],
                           input=''.join(json.dumps(line) + '\n' for line in lines),
                           stdout=subprocess.PIPE, text=True, timeout=60)
    messages = [json.loads(line) for line in child.stdout.splitlines()]
    check(len(messages) == 4, 'messages: %r' % messages)
    sent = [m for m in messages if 'id' not in m]
    check(sent == [{'jsonrpc': '2.0', 'method': 'example.org/adding', 'params': {'a': 2}}],
          'notifications: %r' % sent)
    # The notification comes before the answer of its request.
    check(messages.index(sent[0]) < [m.get('id') for m in messages].index(1) if sent else False,
          'the notification after its answer: %r' % messages)
    answers = {m['id']: m for m in messages if 'id' in m}
    result = answers.get(1, {}).get('result', {})
    check(result.get('sum') == 5 and result.get('notes') == ['hi'], 'answer 1: %r' % answers.get(1))
    check(answers.get(2, {}).get('error', {}).get('code') == -32602, 'answer 2: %r' % answers.get(2))
    check(answers.get(3, {}).get('error', {}).get('code') == -32601, 'answer 3: %r' % answers.get(3))
    if failures:
        sys.exit(1)
    print('ok')


main()
