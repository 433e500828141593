#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# hello.py: a small MCP server in Python, on standard input and output,
# through the Snodo-1 typelib.
#
#   greet {name: string}  the text "Hello, <name>!"
#   about {}              one line about this server
#
# It exits 0 at the end of input, once every answer is written. Uninstalled,
# run it from a build directory's environment:  meson devenv -C _build
# /usr/bin/python3 examples/hello.py

import sys

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

GREET_SCHEMA = {
    'type': 'object',
    'properties': {'name': {'type': 'string', 'description': 'Who to greet'}},
    'required': ['name'],
}


def greet(invocation):
    # A dict, checked against GREET_SCHEMA already. Should this raise, the
    # client gets an error answer at once and the server goes on.
    name = invocation.get_arguments()['name']
    invocation.return_text(f'Hello, {name}!')


def about(invocation):
    invocation.return_text(f'A hello server written in Python with Snodo {Snodo.VERSION_S}')


def main():
    # Standard output carries the protocol: keep GLib's logs off it.
    GLib.log_writer_default_set_use_stderr(True)

    server = Snodo.Server.new('hello-py', '1.0')
    greet_tool = Snodo.Tool.new('greet', 'Greets someone by name')
    greet_tool.set_input_schema(GREET_SCHEMA)
    server.add_tool(greet_tool, greet)
    server.add_tool(Snodo.Tool.new('about', 'Says what this server is'), about)

    loop = GLib.MainLoop()
    status = 0

    def on_closed(_transport, error):
        # None after the end of input; an error when the output failed.
        nonlocal status
        if error is not None:
            print(f'hello.py: {error.message}', file=sys.stderr)
            status = 1
        loop.quit()

    transport = Snodo.StdioTransport.new_for_stdio(server)
    transport.connect('closed', on_closed)
    transport.start()
    loop.run()
    return status


if __name__ == '__main__':
    sys.exit(main())
