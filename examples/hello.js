// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// hello.js: a small MCP server in JavaScript (GJS), through the Snodo-1
// typelib.
//
//   greet {name: string}  the text "Hello, <name>!"
//   about {}              one line about this server
//
// Each tool is a function given with its name, description and input (a
// JSON Schema, or fields in a compact form); its return value is the
// answer. server.run() serves standard input and output (or Streamable HTTP
// with --http PORT) and exits 0 at the end of input, once every answer is
// written. Uninstalled, run it from a build directory's environment:
// meson devenv -C _build gjs -m examples/hello.js

import Snodo from 'gi://Snodo?version=1';

const server = Snodo.Server.new('hello-js', '1.0');

server.tool({name: 'greet', description: 'Greets someone by name', input: {name: 'string'}},
    ({name}) => `Hello, ${name}!`);

server.tool({name: 'about', description: 'Says what this server is'},
    () => `A hello server written in JavaScript with Snodo ${Snodo.VERSION_S}`);

server.run();
