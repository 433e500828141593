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
gi.require_version('Snodo', '1')
from gi.repository import GLib, Gio, Snodo  # noqa: E402


def fail(message):
    print('not ok - ' + message)
    sys.exit(1)


def main():
    server = Snodo.Server.new('py-server', '1.0')
    tool = Snodo.Tool.new('shout', 'Upper-cases its text, a little later')
    tool.set_input_schema({'type': 'object', 'properties': {'text': {'type': 'string'}},
                           'required': ['text']})

    calls = []

    def shout(invocation):
        calls.append(invocation.get_name())
        arguments = invocation.get_arguments()
        if 'text' not in arguments:
            invocation.return_tool_error('text is required')
            return
        text = arguments['text']

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

    # A resource, and a tool that asks the client for input; from Python
    # the one call serves both eras (here 2026-07-28: input_required).
    readme = Snodo.Resource.new('py://readme', 'readme')
    # Cache hints: the resource's own beats the server's for every read.
    server.set_cache_hint('resources/read', 5, Snodo.CacheScope.PRIVATE)
    readme.props.cache_ttl = 60000
    readme.props.cache_scope = Snodo.CacheScope.PUBLIC
    readme.set_mime_type('text/plain')
    server.add_resource(readme, lambda inv: inv.return_resource_text(None, 'text/plain', 'hello from Python'))

    confirm = Snodo.Tool.new('confirm', 'Asks the user to confirm')
    input_errors = []

    def confirm_handler(invocation):
        params = {'message': 'Sure?',
                  'requestedSchema': {'type': 'object', 'properties': {'ok': {'type': 'boolean'}}}}

        def answered(inv, result):
            try:
                answer = inv.request_input_finish(result)
                inv.return_text('answered: ' + answer['action'])
            except GLib.Error as error:
                input_errors.append((error.domain, error.code))
                inv.return_gerror(error)

        invocation.request_input_async('ok', 'elicitation/create', params, None, answered)

    server.add_tool(confirm, confirm_handler)

    def serve(requests, expect_version):
        """Serves @requests on a fresh transport over pipes; returns the answers by id."""
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
        os.write(in_write, ''.join(json.dumps(r) + '\n' for r in requests).encode())
        os.close(in_write)

        GLib.timeout_add_seconds(20, lambda: (closed.append('timeout'), loop.quit()))
        loop.run()

        if closed != [None]:
            fail('the transport did not close cleanly: %r' % (closed,))
        if transport.props.protocol_version != expect_version:
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
        os.close(out_read)
        return {m['id']: m for m in (json.loads(line) for line in data.decode().splitlines())}

    answers = serve([
        {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
         'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                    'clientInfo': {'name': 'py', 'version': '1'}}},
        {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
        {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'},
        {'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call',
         'params': {'name': 'shout', 'arguments': {'text': 'héllo'}}},
        {'jsonrpc': '2.0', 'id': 4, 'method': 'tools/call',
         'params': {'name': 'broken', 'arguments': {}}},
        {'jsonrpc': '2.0', 'id': 5, 'method': 'resources/read', 'params': {'uri': 'py://readme'}},
    ], '2025-11-25')
    # A 2026-07-28 client on a connection of its own.
    answers.update(serve([
        {'jsonrpc': '2.0', 'id': 6, 'method': 'tools/call',
         'params': {'name': 'confirm', 'arguments': {},
                    '_meta': {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                              'io.modelcontextprotocol/clientCapabilities': {'elicitation': {}}}}},
        {'jsonrpc': '2.0', 'id': 7, 'method': 'resources/read',
         'params': {'uri': 'py://readme',
                    '_meta': {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                              'io.modelcontextprotocol/clientCapabilities': {}}}},
    ], None))
    for key, value in answers.items():
        if 'result' not in value:
            fail('answer %r: %r' % (key, value))

    if sorted(answers) != [1, 2, 3, 4, 5, 6, 7]:
        fail('unexpected answers: %r' % data)
    if answers[1]['result']['serverInfo']['name'] != 'py-server':
        fail('serverInfo: %r' % answers[1])
    names = [t['name'] for t in answers[2]['result']['tools']]
    if names != ['shout', 'broken', 'confirm']:
        fail('tools/list: %r' % names)
    if answers[3]['result']['content'] != [{'type': 'text', 'text': 'HÉLLO'}]:
        fail('shout: %r' % answers[3])
    if not answers[4]['result'].get('isError') or answers[4]['result']['content'][0]['text'] != 'it broke':
        fail('broken: %r' % answers[4])
    if answers[5]['result']['contents'] != [{'uri': 'py://readme', 'mimeType': 'text/plain',
                                              'text': 'hello from Python'}]:
        fail('resource: %r' % answers[5])
    if (answers[7]['result'].get('ttlMs'), answers[7]['result'].get('cacheScope')) != (60000, 'public'):
        fail('cache hint: %r' % answers[7])
    confirm_result = answers[6]['result']
    if (confirm_result.get('resultType') != 'input_required' or
            confirm_result['inputRequests']['ok']['method'] != 'elicitation/create' or
            not confirm_result.get('requestState')):
        fail('confirm: %r' % answers[6])
    if input_errors != [(GLib.quark_to_string(Snodo.error_quark()), Snodo.Error.INPUT_REQUIRED)]:
        fail('input errors: %r' % input_errors)
    if calls != ['shout']:
        fail('calls: %r' % calls)
    print('ok - a Python server answered over a pipe')


if __name__ == '__main__':
    main()
