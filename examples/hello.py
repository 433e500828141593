#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# hello.py: a small MCP server in Python, through the Snodo-1 typelib.
#
#   greet {name: string}  the text "Hello, <name>!"
#   about {}              one line about this server
#
# Each tool is a function: its type hints give the input schema, its
# docstring the description, its return value the answer. server.run()
# serves standard input and output (or Streamable HTTP with --http PORT) and
# exits 0 at the end of input, once every answer is written. Uninstalled,
# run it from a build directory's environment:  meson devenv -C _build
# /usr/bin/python3 examples/hello.py

import gi

gi.require_version('Snodo', '1')
from gi.repository import Snodo  # noqa: E402

server = Snodo.Server.new('hello-py', '1.0')


@server.tool()
def greet(name: str) -> str:
    """Greets someone by name."""
    return f'Hello, {name}!'


@server.tool()
def about() -> str:
    """Says what this server is."""
    return f'A hello server written in Python with Snodo {Snodo.VERSION_S}'


server.run()
