// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
//   gjs -m test-agree.js            (SNODO_DEMO names snodo-demo)
//   gjs -m test-agree.js serve      (the GJS server the first form runs)
//
// GJS answers as C does. A handler's awaited request for input that the
// client's capabilities do not allow gets the answer snodo-demo's `ask`
// (in C) gets, in each protocol era; a handler that returns a string
// answers with that text; tools are made with plain values for their JSON
// properties; and SnodoClient hands GJS the request of each progress
// report, and results of one shape in both eras.

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

const ELICIT = {message: 'Sure?', requestedSchema: {type: 'object', properties: {confirm: {type: 'boolean'}}}};
const SCHEMA = {type: 'object', properties: {text: {type: 'string'}}, required: ['text']};
const OUTPUT = {type: 'object', properties: {length: {type: 'integer'}}, required: ['length']};

const failures = [];

function check(condition, message) {
    print(`${condition ? 'ok' : 'not ok'} - ${message}`);
    if (!condition)
        failures.push(message);
}

// Deep equality of two JSON values (key order aside).
function same(a, b) {
    if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
        return a === b;
    if (Array.isArray(a) !== Array.isArray(b))
        return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every(key => same(a[key], b[key]));
}

function serve() {
    const server = Snodo.Server.new('agree', '1.0');
    // The documented form: await, and let what fails fail.
    server.add_tool(Snodo.Tool.new('ask', 'Asks'), async invocation => {
        const answer = await invocation.request_input_async('confirm', 'elicitation/create', ELICIT, null);
        return {action: answer.action};
    });
    server.add_tool(Snodo.Tool.new('hello', 'Returns a string'), () => 'hello');
    server.add_tool(Snodo.Tool.new('hello-later', 'Resolves to a string'), async () => 'hello');
    // Made with plain values for the JSON properties (if that fails, the
    // calls of the tool fail; the other tools are served all the same).
    try {
        server.add_tool(new Snodo.Tool({
            name: 'length', description: 'Measures',
            input_schema: SCHEMA, outputSchema: OUTPUT, annotations: {readOnlyHint: true},
        }), invocation => ({length: invocation.get_arguments().text.length}));
    } catch (error) {
        printerr(`cannot make the tool: ${error}`);
    }

    const transport = Snodo.StdioTransport.new_for_stdio(server);
    const loop = new GLib.MainLoop(null, false);
    transport.connect('closed', () => loop.quit());
    transport.start();
    loop.run();
}

// Sends tools/call with each of @calls to @argv in @version, without client
// capabilities; resolves to the answers in order, without their id and the
// server's name (which differ), and the standard error.
async function exchange(argv, version, calls) {
    let lines;
    if (version === '2026-07-28') {
        const _meta = {
            'io.modelcontextprotocol/protocolVersion': version,
            'io.modelcontextprotocol/clientCapabilities': {},
        };
        lines = calls.map((call, i) => ({jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: {...call, _meta}}));
    } else {
        lines = [
            {
                jsonrpc: '2.0', id: 1, method: 'initialize',
                params: {protocolVersion: version, capabilities: {}, clientInfo: {name: 'agree', version: '1'}},
            },
            {jsonrpc: '2.0', method: 'notifications/initialized'},
            ...calls.map((call, i) => ({jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: call})),
        ];
    }
    const process = Gio.Subprocess.new(argv,
        Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE);
    const [stdout, stderr] = await new Promise((resolve, reject) => {
        process.communicate_utf8_async(lines.map(line => `${JSON.stringify(line)}\n`).join(''), null,
            (_process, result) => {
                try {
                    const [, out, err] = process.communicate_utf8_finish(result);
                    resolve([out, err]);
                } catch (error) {
                    reject(error);
                }
            });
    });
    const answers = {};
    for (const line of stdout.split('\n').filter(l => l)) {
        const message = JSON.parse(line);
        const meta = message.result?._meta;
        if (meta) {
            delete meta['io.modelcontextprotocol/serverInfo'];
            if (Object.keys(meta).length === 0)
                delete message.result._meta;
        }
        answers[message.id] = message;
        delete message.id;
    }
    return [calls.map((_, i) => answers[i + 2] ?? null), stderr];
}

async function checkServer() {
    const me = ['gjs', '-m', GLib.build_filenamev([GLib.path_get_dirname(import.meta.url.replace('file://', '')),
        'test-agree.js']), 'serve'];
    for (const version of ['2025-11-25', '2026-07-28']) {
        const ask = {name: 'ask', arguments: {question: 'Sure?'}};
        const [[cAnswer]] = await exchange([GLib.getenv('SNODO_DEMO')], version, [ask]);
        const [answers, stderr] = await exchange(me, version, [
            ask, {name: 'hello', arguments: {}}, {name: 'hello-later', arguments: {}},
            {name: 'length', arguments: {text: 'four'}}, {name: 'length', arguments: {}},
        ]);
        const right = version === '2026-07-28'
            ? cAnswer?.error?.code === -32021 &&
              same(cAnswer.error.data, {requiredCapabilities: {elicitation: {}}})
            : cAnswer?.result?.isError === true;
        check(right, `C answers a request for input the client cannot take as its era says (${version}): ${
            JSON.stringify(cAnswer)}`);
        check(same(answers[0], cAnswer), `GJS awaiting request_input_async answers as C (${version}): ${
            JSON.stringify(answers[0])}`);
        check(!stderr.includes('failed'), `and warns of no failure (${version}): ${stderr.slice(-300)}`);
        for (const i of [1, 2]) {
            check(same(answers[i]?.result?.content, [{type: 'text', text: 'hello'}]) &&
                  answers[i].result.structuredContent === undefined,
                `a handler returning a string answers with that text (${version}): ${JSON.stringify(answers[i])}`);
        }
        check(same(answers[3]?.result?.structuredContent, {length: 4}),
            `a tool made with objects for its schemas answers (${version}): ${JSON.stringify(answers[3])}`);
        check(answers[4]?.result?.isError === true,
            `and its input schema holds (${version}): ${JSON.stringify(answers[4])}`);
    }

    const tool = new Snodo.Tool({name: 't', input_schema: SCHEMA, 'output-schema': OUTPUT});
    check(same(tool.get_input_schema(), SCHEMA) && same(tool.get_output_schema(), OUTPUT),
        'new Snodo.Tool({input_schema, output-schema}) keeps them');
    const resource = new Snodo.Resource({uri: 'app://x', name: 'x', annotations: {priority: 0.5}, meta: {a: 1}});
    check(same(resource.get_annotations(), {priority: 0.5}) && same(resource.get_meta(), {a: 1}),
        'new Snodo.Resource({annotations, meta}) keeps them');
}

async function checkClient() {
    const results = {};
    for (const pinned of ['2026-07-28', '2025-11-25']) {
        const client = Snodo.Client.new_for_argv([GLib.getenv('SNODO_DEMO')]);
        client.set_pinned_version(Snodo.protocol_version_from_string(pinned));
        check(await client.connect_async(null), `connects (${pinned})`);
        // eslint-disable-next-line no-await-in-loop
        results[pinned] = await client.call_tool_async('echo', {text: 'same'}, null);

        // Two calls in flight, each reporting progress: each report comes
        // with its own request.
        const reports = [];
        client.connect('request-progress::tools/call', (_client, request, progress, total) =>
            reports.push([Snodo.fromJsonNode(request), progress, total]));
        const old = [];
        client.connect('progress', (_client, method) => old.push(method));
        await Promise.all([
            client.call_tool_async('progress', {steps: 2}, null),
            client.call_tool_async('progress', {steps: 3}, null),
        ]);
        check(reports.length === 5 && reports.every(([r, , total]) => r.params.arguments.steps === total),
            `each progress report names its own request (${pinned}): ${JSON.stringify(reports)}`);
        check(new Set(reports.map(([r]) => r.id)).size === 2 &&
              reports.every(([r]) => r.method === 'tools/call' && r.params.name === 'progress'),
        `with its id, method and params (${pinned})`);
        check(old.length === 5 && old.every(method => method === 'tools/call'),
            `progress is still emitted with the method (${pinned})`);
        await client.close_async(null);
    }
    check(same(results['2026-07-28'], results['2025-11-25']) &&
          same(results['2025-11-25'], {content: [{type: 'text', text: 'same'}]}),
    `a call_tool result has the same shape in both eras: ${JSON.stringify(results)}`);
}

if (ARGV[0] === 'serve') {
    serve();
} else {
    const loop = new GLib.MainLoop(null, false);
    let status = 0;
    (async () => {
        try {
            await checkServer();
            await checkClient();
        } catch (error) {
            printerr(`${error}\n${error.stack}`);
            status = 1;
        }
        loop.quit();
    })();
    loop.run();
    System.exit(status !== 0 || failures.length > 0 ? 1 : 0);
}
