// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Methods of an application's own from JavaScript: add_method() with a
// params schema as a plain object, a notification handler given plain
// params, invocation.notify(), and the server's identity.
//
//   gjs -m test-methods.js          runs the checks; starts itself as a server
//   gjs -m test-methods.js serve    a stdio server on standard input and output

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

Gio._promisify(Gio.Subprocess.prototype, 'communicate_utf8_async', 'communicate_utf8_finish');

const META = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {}};
const failures = [];

function check(condition, message) {
    if (!condition) {
        failures.push(message);
        print(`not ok - ${message}`);
    }
}

function makeServer() {
    const server = Snodo.Server.new('gjs-methods', '1.0');
    const notes = [];
    server.set_description('Methods of its own');
    server.set_icons([{src: 'https://example.org/icon.png', mimeType: 'image/png'}]);
    server.add_notification_handler('example.org/note', {type: 'object', required: ['text']},
        (_server, _method, params) => notes.push(params.text));
    server.add_method('example.org/add', {type: 'object', properties: {a: {type: 'integer'}, b: {type: 'integer'}},
        required: ['a', 'b']}, inv => {
        const params = inv.get_params();
        inv.notify('example.org/adding', {a: params.a});
        inv.return_result({sum: params.a + params.b, notes});
    });
    return server;
}

function serve() {
    const transport = Snodo.StdioTransport.new_for_stdio(makeServer());
    const loop = new GLib.MainLoop(null, false);
    transport.connect('closed', () => loop.quit());
    transport.start();
    loop.run();
}

async function checkAll() {
    const server = makeServer();
    let refused = false;
    try {
        server.add_method('tools/mine', null, () => {});
    } catch {
        refused = true;
    }
    check(refused, 'an MCP name was taken');
    check(server.get_icons()[0].mimeType === 'image/png', `icons: ${JSON.stringify(server.get_icons())}`);
    const document = server.dup_server_json('org.example/gjs-methods');
    check(document.name === 'org.example/gjs-methods' && document.description === 'Methods of its own' &&
        document.version === '1.0', `server.json: ${JSON.stringify(document)}`);

    const lines = [
        {jsonrpc: '2.0', method: 'example.org/note', params: {text: 'hi', _meta: META}},
        {jsonrpc: '2.0', id: 1, method: 'example.org/add', params: {a: 2, b: 3, _meta: META}},
        {jsonrpc: '2.0', id: 2, method: 'example.org/add', params: {a: 'x', b: 3, _meta: META}},
        {jsonrpc: '2.0', id: 3, method: 'example.org/none', params: {_meta: META}},
    ];
    const script = GLib.filename_from_uri(import.meta.url)[0];
    const child = Gio.Subprocess.new(['gjs', '-m', script, 'serve'],
        Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE);
    const [stdout] = await child.communicate_utf8_async(lines.map(l => `${JSON.stringify(l)}\n`).join(''), null);
    const messages = stdout.split('\n').filter(l => l !== '').map(l => JSON.parse(l));
    check(messages.length === 4, `messages: ${stdout}`);
    const sent = messages.filter(m => !('id' in m));
    check(JSON.stringify(sent) === '[{"jsonrpc":"2.0","method":"example.org/adding","params":{"a":2}}]',
        `notifications: ${JSON.stringify(sent)}`);
    check(messages.indexOf(sent[0]) < messages.findIndex(m => m.id === 1),
        `the notification after its answer: ${stdout}`);
    const answers = Object.fromEntries(messages.filter(m => 'id' in m).map(m => [m.id, m]));
    check(answers[1]?.result?.sum === 5 && JSON.stringify(answers[1]?.result?.notes) === '["hi"]',
        `answer 1: ${JSON.stringify(answers[1])}`);
    check(answers[2]?.error?.code === -32602, `answer 2: ${JSON.stringify(answers[2])}`);
    check(answers[3]?.error?.code === -32601, `answer 3: ${JSON.stringify(answers[3])}`);
}

if (ARGV[0] === 'serve') {
    serve();
} else {
    const loop = new GLib.MainLoop(null, false);
    checkAll().catch(e => check(false, `${e}\n${e.stack}`)).finally(() => loop.quit());
    loop.run();
    if (failures.length > 0)
        System.exit(1);
    print('ok - methods of its own from JavaScript');
}
