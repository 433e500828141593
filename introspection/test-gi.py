#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# A small server written in Python through the typelib, served over a pipe.
# Its handler answers asynchronously, from a main-loop timer.

import json
import os
import sys

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Gio', '2.0')
gi.require_version('Json', '1.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Gio, Json, Snodo  # noqa: E402


def fail(message):
    print('not ok - ' + message)
    sys.exit(1)


def main():
    server = Snodo.Server.new('py-server', '1.0')
    tool = Snodo.Tool.new('shout', 'Upper-cases its text, a little later')
    tool.set_input_schema_from_string(
        '{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}')

    calls = []

    def shout(invocation):
        calls.append(invocation.get_name())
        arguments = invocation.get_arguments()
        if not arguments.has_member('text'):
            invocation.return_tool_error('text is required')
            return
        text = arguments.get_string_member('text')

        def later():
            invocation.return_text(text.upper())
            return GLib.SOURCE_REMOVE

        GLib.timeout_add(20, later)

    server.add_tool(tool, shout)

    broken = Snodo.Tool.new('broken', None)

    def broken_handler(invocation):
        invocation.return_gerror(GLib.Error.new_literal(Gio.io_error_quark(), 'it broke',
                                                        Gio.IOErrorEnum.FAILED))

    server.add_tool(broken, broken_handler)

    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    input_stream = Gio.UnixInputStream.new(in_read, True)
    output_stream = Gio.UnixOutputStream.new(out_write, True)
    transport = Snodo.StdioTransport.new(server, input_stream, output_stream)
    assert transport.props.write_timeout == 5000
    assert transport.props.max_line_bytes == 2000000

    loop = GLib.MainLoop()
    closed = []

    def on_closed(_transport, error):
        closed.append(error)
        loop.quit()

    transport.connect('closed', on_closed)
    transport.start()

    requests = [
        {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
         'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                    'clientInfo': {'name': 'py', 'version': '1'}}},
        {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
        {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'},
        {'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call',
         'params': {'name': 'shout', 'arguments': {'text': 'héllo'}}},
        {'jsonrpc': '2.0', 'id': 4, 'method': 'tools/call',
         'params': {'name': 'broken', 'arguments': {}}},
    ]
    os.write(in_write, ''.join(json.dumps(r) + '\n' for r in requests).encode())
    os.close(in_write)

    GLib.timeout_add_seconds(20, lambda: (closed.append('timeout'), loop.quit()))
    loop.run()

    if closed != [None]:
        fail('the transport did not close cleanly: %r' % (closed,))
    if transport.props.protocol_version != '2025-11-25':
        fail('protocol-version is %r' % transport.props.protocol_version)

    # The transport never closes the streams; drop them to end the pipe.
    del transport
    output_stream.close(None)
    data = b''
    while True:
        chunk = os.read(out_read, 65536)
        if not chunk:
            break
        data += chunk
    answers = {m['id']: m for m in (json.loads(line) for line in data.decode().splitlines())}

    if sorted(answers) != [1, 2, 3, 4]:
        fail('unexpected answers: %r' % data)
    if answers[1]['result']['serverInfo']['name'] != 'py-server':
        fail('serverInfo: %r' % answers[1])
    names = [t['name'] for t in answers[2]['result']['tools']]
    if names != ['shout', 'broken']:
        fail('tools/list: %r' % names)
    if answers[3]['result']['content'] != [{'type': 'text', 'text': 'HÉLLO'}]:
        fail('shout: %r' % answers[3])
    if not answers[4]['result'].get('isError') or answers[4]['result']['content'][0]['text'] != 'it broke':
        fail('broken: %r' % answers[4])
    if calls != ['shout']:
        fail('calls: %r' % calls)
    print('ok - a Python server answered over a pipe')


if __name__ == '__main__':
    main()
