// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A small server written in JavaScript through the typelib, served over
// pipes (two `cat` processes carry the bytes both ways). Its handler
// answers asynchronously, from a main-loop timer.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

function fail(message) {
    print(`not ok - ${message}`);
    System.exit(1);
}

function cat() {
    return Gio.Subprocess.new(['cat'],
        Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE);
}

const server = Snodo.Server.new('gjs-server', '1.0');
const tool = Snodo.Tool.new('reverse', 'Reverses its text, a little later');
tool.set_input_schema({type: 'object', properties: {text: {type: 'string'}}, required: ['text']});
server.add_tool(tool, invocation => {
    const {text} = invocation.get_arguments();
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, 20, () => {
        invocation.return_text([...text].reverse().join(''));
        return GLib.SOURCE_REMOVE;
    });
});

const toServer = cat();
const fromServer = cat();
const transport = Snodo.StdioTransport.new(server,
    toServer.get_stdout_pipe(), fromServer.get_stdin_pipe());

const loop = new GLib.MainLoop(null, false);
let closedWith;
transport.connect('closed', (_t, error) => {
    closedWith = error;
    loop.quit();
});
transport.start();

const requests = [
    {jsonrpc: '2.0', id: 1, method: 'initialize', params: {
        protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'gjs', version: '1'},
    }},
    {jsonrpc: '2.0', method: 'notifications/initialized'},
    {jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'reverse', arguments: {text: 'snodo ✓'}}},
    {jsonrpc: '2.0', id: 3, method: 'tools/call', params: {name: 'missing', arguments: {}}},
];
const payload = new TextEncoder().encode(requests.map(r => `${JSON.stringify(r)}\n`).join(''));
const input = toServer.get_stdin_pipe();
input.write_all(payload, null);
input.close(null);

GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 20, () => {
    closedWith = 'timeout';
    loop.quit();
    return GLib.SOURCE_REMOVE;
});
loop.run();

if (closedWith !== null)
    fail(`the transport did not close cleanly: ${closedWith}`);

// The transport never closes its streams: end the second pipe ourselves.
fromServer.get_stdin_pipe().close(null);
const stdoutPipe = fromServer.get_stdout_pipe();
const chunks = [];
for (;;) {
    const bytes = stdoutPipe.read_bytes(65536, null);
    if (bytes.get_size() === 0)
        break;
    chunks.push(...bytes.toArray());
}
const lines = new TextDecoder().decode(new Uint8Array(chunks)).trim().split('\n');
const answers = {};
for (const line of lines) {
    const message = JSON.parse(line);
    answers[message.id] = message;
}

if (answers[1]?.result?.protocolVersion !== '2025-06-18')
    fail(`initialize: ${JSON.stringify(answers[1])}`);
if (answers[2]?.result?.content?.[0]?.text !== '✓ odons')
    fail(`reverse: ${JSON.stringify(answers[2])}`);
if (answers[3]?.error?.code !== -32602)
    fail(`missing tool: ${JSON.stringify(answers[3])}`);
toServer.force_exit();
print('ok - a JavaScript server answered over pipes');
