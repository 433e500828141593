#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# A forwarding server from Python: set_forward_func() gets every request,
# initialize included, with its params and id as they came; the answer
# goes out as given (return_forwarded() of a dict), initialize's setting
# the version; the session carries the client's notifications, the
# server's own and a request to the client.
#
#   test-forward.py          runs the checks; starts itself as a server
#   test-forward.py serve    a stdio server on standard input and output

import json
import subprocess
import sys

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('not ok - ' + message)


def serve():
    server = Snodo.Server.new('py-front', '1')
    sessions = []

    def noticed(session, method, params):
        session.notify('example.org/seen', {'method': method})

    def forward(inv):
        method = inv.get_method()
        if method == 'initialize':
            session = inv.get_session()
            session.connect('notification', noticed)
            sessions.append(session)
            inv.return_forwarded({'result': {'protocolVersion': '2025-06-18', 'capabilities': {'tools': {}},
                                             'serverInfo': {'name': 'py-back', 'version': '2'}}})
        elif method == 'example.org/ask':
            def asked(session, result):
                inv.return_forwarded({'result': {'asked': session.request_finish(result)}})
            inv.get_session().request_async('roots/list', None, None, asked)
        elif method == 'example.org/fails':
            inv.return_forwarded({'error': {'code': -32099, 'message': 'nope', 'data': {'why': [1, 2]}}})
        else:
            inv.return_forwarded({'result': {'id': inv.get_id(), 'method': method,
                                             'params': inv.get_params(),
                                             'version': Snodo.protocol_version_to_string(
                                                 inv.get_session().get_protocol_version())}})

    server.set_forward_func(forward)
    transport = Snodo.StdioTransport.new_for_stdio(server)
    loop = GLib.MainLoop()
    transport.connect('closed', lambda _t, _error: loop.quit())
    transport.start()
    loop.run()


def main():
    child = subprocess.Popen([sys.executable, __file__, 'serve'], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)

    def send(message):
        child.stdin.write(json.dumps(dict(message, jsonrpc='2.0')) + '\n')
        child.stdin.flush()

    def read():
        return json.loads(child.stdout.readline())

    send({'id': 1, 'method': 'initialize', 'params': {'protocolVersion': '2025-11-25',
                                                      'capabilities': {'roots': {}},
                                                      'clientInfo': {'name': 'py', 'version': '1'}}})
    answer = read()
    check(answer == {'jsonrpc': '2.0', 'id': 1,
                     'result': {'protocolVersion': '2025-06-18', 'capabilities': {'tools': {}},
                                'serverInfo': {'name': 'py-back', 'version': '2'}}},
          'initialize is answered as the function answered: %r' % answer)
    send({'method': 'notifications/initialized'})

    send({'id': 'x', 'method': 'tools/call', 'params': {'name': 'any', 'arguments': {'a': 1}}})
    answer = read()
    check(answer.get('id') == 'x' and answer.get('result') ==
          {'id': 'x', 'method': 'tools/call', 'params': {'name': 'any', 'arguments': {'a': 1}},
           'version': '2025-06-18'},
          'a request reaches the function with its id and params; the session has the answered version: %r'
          % answer)

    send({'id': 3, 'method': 'example.org/fails'})
    answer = read()
    check(answer.get('error') == {'code': -32099, 'message': 'nope', 'data': {'why': [1, 2]}},
          'an error goes out with its code and data: %r' % answer)

    send({'method': 'notifications/roots/list_changed'})
    answer = read()
    check(answer == {'jsonrpc': '2.0', 'method': 'example.org/seen',
                     'params': {'method': 'notifications/roots/list_changed'}},
          'the client\'s notification reaches the session, which notifies: %r' % answer)

    send({'id': 4, 'method': 'example.org/ask'})
    question = read()
    check(question.get('method') == 'roots/list' and 'id' in question,
          'the session asks the client: %r' % question)
    send({'id': question.get('id'), 'result': {'roots': [{'uri': 'file:///here'}]}})
    answer = read()
    check(answer.get('id') == 4 and answer.get('result') == {'asked': {'roots': [{'uri': 'file:///here'}]}},
          'the client\'s answer comes back to the session: %r' % answer)

    child.stdin.close()
    check(child.wait(20) == 0, 'the server exits 0 at the end of input')
    if failures:
        sys.exit(1)
    print('ok - a forwarding server from Python')


if __name__ == '__main__':
    if sys.argv[1:] == ['serve']:
        serve()
    else:
        main()
