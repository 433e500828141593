#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""An application that offers MCP, for test-servers-cli.py: what its
desktop file and D-Bus service file (introspection/discovery.md) start.

  mcp-app.py --mcp-stdio   serves MCP on standard input and output (a tool
                           "hello"), until the end of its input
  mcp-app.py BUS-NAME      owns BUS-NAME on the session bus (as D-Bus
                           activation starts it) and exports io.snodo.Mcp
                           at its object path, until the bus goes away"""

import json
import os
import sys


def serve_stdio():
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        if 'id' not in message:
            continue
        method = message.get('method')
        if method == 'initialize':
            result = {'protocolVersion': message['params']['protocolVersion'],
                      'capabilities': {'tools': {}},
                      'serverInfo': {'name': 'mcp-app', 'version': '1'}}
        elif method == 'tools/list':
            result = {'tools': [{'name': 'hello', 'description': 'Says hello',
                                 'inputSchema': {'type': 'object', 'properties': {}}}]}
        elif method == 'tools/call':
            result = {'content': [{'type': 'text', 'text': 'hello'}]}
        elif method in ('resources/list', 'prompts/list', 'resources/templates/list'):
            key = {'resources/list': 'resources', 'prompts/list': 'prompts',
                   'resources/templates/list': 'resourceTemplates'}[method]
            result = {key: []}
        elif method == 'ping':
            result = {}
        else:
            print(json.dumps({'jsonrpc': '2.0', 'id': message['id'],
                              'error': {'code': -32601, 'message': 'Method not found'}}), flush=True)
            continue
        print(json.dumps({'jsonrpc': '2.0', 'id': message['id'], 'result': result}), flush=True)


def serve_bus(bus_name):
    from gi.repository import Gio, GLib

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, '..', 'data', 'io.snodo.Mcp.xml')) as f:
        interface = Gio.DBusNodeInfo.new_for_xml(f.read()).interfaces[0]
    command = [sys.executable, os.path.abspath(__file__), '--mcp-stdio']
    loop = GLib.MainLoop()

    def get_property(connection, sender, path, interface_name, name):
        return GLib.Variant('as', command) if name == 'StdioCommand' else None

    # On the connection, before the name: the message that activated the
    # application comes as soon as it owns the name.
    def bus_acquired(connection, name):
        path = '/' + bus_name.replace('.', '/').replace('-', '_')
        connection.register_object(path, interface, None, get_property, None)

    Gio.bus_own_name(Gio.BusType.SESSION, bus_name, Gio.BusNameOwnerFlags.NONE, bus_acquired, None,
                     lambda *_: loop.quit())
    # Not for ever if the bus stays.
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()


if __name__ == '__main__':
    if sys.argv[1:] == ['--mcp-stdio']:
        serve_stdio()
    else:
        serve_bus(sys.argv[1])
