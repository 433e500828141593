// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// hello.js: a small MCP server in JavaScript (GJS), on standard input and
// output, through the Snodo-1 typelib.
//
//   greet {name: string}  the text "Hello, <name>!"
//   about {}              one line about this server
//
// It exits 0 at the end of input, once every answer is written. Uninstalled,
// run it from a build directory's environment:  meson devenv -C _build
// gjs -m examples/hello.js

import GLib from 'gi://GLib';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

const GREET_SCHEMA = {
    type: 'object',
    properties: {name: {type: 'string', description: 'Who to greet'}},
    required: ['name'],
};

function greet(invocation) {
    // A plain object, checked against GREET_SCHEMA already. Should this
    // throw, the client gets an error answer at once and the server goes on.
    const {name} = invocation.get_arguments();
    invocation.return_text(`Hello, ${name}!`);
}

function about(invocation) {
    invocation.return_text(`A hello server written in JavaScript with Snodo ${Snodo.VERSION_S}`);
}

// Standard output carries the protocol: keep GLib's logs off it.
GLib.log_writer_default_set_use_stderr(true);

const server = Snodo.Server.new('hello-js', '1.0');
const greetTool = Snodo.Tool.new('greet', 'Greets someone by name');
greetTool.set_input_schema(GREET_SCHEMA);
server.add_tool(greetTool, greet);
server.add_tool(Snodo.Tool.new('about', 'Says what this server is'), about);

const loop = new GLib.MainLoop(null, false);
let status = 0;
const transport = Snodo.StdioTransport.new_for_stdio(server);
transport.connect('closed', (_transport, error) => {
    // null after the end of input; an error when the output failed.
    if (error) {
        printerr(`hello.js: ${error.message}`);
        status = 1;
    }
    loop.quit();
});
transport.start();
loop.run();
System.exit(status);
