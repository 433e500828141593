// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A forwarding server from JavaScript: set_forward_func() gets every
// request, initialize included, with its params and id as they came; the
// answer goes out as given (return_forwarded() of a plain object),
// initialize's setting the version of the session.
//
//   gjs -m test-forward.js          runs the checks; starts itself as a server
//   gjs -m test-forward.js serve    a stdio server on standard input and output

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

Gio._promisify(Gio.Subprocess.prototype, 'communicate_utf8_async', 'communicate_utf8_finish');

const failures = [];

function check(condition, message) {
    if (!condition) {
        failures.push(message);
        print(`not ok - ${message}`);
    }
}

function serve() {
    const server = Snodo.Server.new('gjs-front', '1');
    server.set_forward_func(inv => {
        const method = inv.get_method();
        if (method === 'initialize') {
            inv.return_forwarded({result: {protocolVersion: '2025-06-18', capabilities: {tools: {}},
                serverInfo: {name: 'gjs-back', version: '2'}}});
        } else if (method === 'example.org/fails') {
            inv.return_forwarded({error: {code: -32099, message: 'nope', data: {why: [1, 2]}}});
        } else {
            inv.return_forwarded({result: {id: inv.get_id(), method, params: inv.get_params(),
                version: Snodo.protocol_version_to_string(inv.get_session().get_protocol_version())}});
        }
    });
    const transport = Snodo.StdioTransport.new_for_stdio(server);
    const loop = new GLib.MainLoop(null, false);
    transport.connect('closed', () => loop.quit());
    transport.start();
    loop.run();
}

async function checkAll() {
    const lines = [
        {jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-11-25', capabilities: {},
            clientInfo: {name: 'gjs', version: '1'}}},
        {jsonrpc: '2.0', method: 'notifications/initialized'},
        {jsonrpc: '2.0', id: 'x', method: 'tools/call', params: {name: 'any', arguments: {a: 1}}},
        {jsonrpc: '2.0', id: 3, method: 'example.org/fails'},
    ];
    const script = GLib.filename_from_uri(import.meta.url)[0];
    const child = Gio.Subprocess.new(['gjs', '-m', script, 'serve'],
        Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE);
    const [stdout] = await child.communicate_utf8_async(lines.map(l => `${JSON.stringify(l)}\n`).join(''), null);
    const messages = stdout.split('\n').filter(l => l !== '').map(l => JSON.parse(l));
    const answers = Object.fromEntries(messages.filter(m => 'id' in m).map(m => [m.id, m]));
    check(JSON.stringify(answers[1]?.result) === JSON.stringify({protocolVersion: '2025-06-18',
        capabilities: {tools: {}}, serverInfo: {name: 'gjs-back', version: '2'}}),
    `initialize: ${JSON.stringify(answers[1])}`);
    check(JSON.stringify(answers.x?.result) === JSON.stringify({id: 'x', method: 'tools/call',
        params: {name: 'any', arguments: {a: 1}}, version: '2025-06-18'}),
    `tools/call: ${JSON.stringify(answers.x)}`);
    check(JSON.stringify(answers[3]?.error) === JSON.stringify({code: -32099, message: 'nope', data: {why: [1, 2]}}),
        `error: ${JSON.stringify(answers[3])}`);
    check(messages.length === 3, `three answers: ${stdout}`);
}

if (ARGV[0] === 'serve') {
    serve();
} else {
    const loop = new GLib.MainLoop(null, false);
    checkAll().catch(e => check(false, `${e}\n${e.stack}`)).finally(() => loop.quit());
    loop.run();
    if (failures.length > 0)
        System.exit(1);
    print('ok - a forwarding server from JavaScript');
}
