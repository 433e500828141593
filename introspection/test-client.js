// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// SnodoClient from GJS through the overrides: snodo-demo (SNODO_DEMO) over
// stdio in 2026-07-28 and 2025-11-25, with plain objects for JSON and
// promises, and its ask tool's elicitation answered by a JS handler of
// server-request.
//
//   gjs -m test-client.js

import GLib from 'gi://GLib';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

const failures = [];

function check(condition, message) {
    print(`${condition ? 'ok' : 'not ok'} - ${message}`);
    if (!condition)
        failures.push(message);
}

async function run(pinned) {
    const client = Snodo.Client.new_for_argv([GLib.getenv('SNODO_DEMO')]);
    client.set_pinned_version(pinned);
    client.set_capabilities({elicitation: {form: {}}});
    check(JSON.stringify(client.get_capabilities()) === '{"elicitation":{"form":{}}}', 'capabilities are an object');
    const asked = [];
    client.connect('server-request::elicitation/create', (_client, request) => {
        asked.push([request.get_method(), request.get_params()]);
        request.return_result({action: 'accept', content: {confirm: true}});
        return true;
    });
    check(await client.connect_async(null), 'connects');
    const version = Snodo.protocol_version_to_string(client.get_protocol_version());
    check(client.get_server_info().name === 'snodo-demo', `server info is an object (${version})`);

    const tools = await client.list_tools_async(null);
    check(tools.some(tool => tool.name === 'echo'), `tools are an array of objects (${version})`);

    const echoed = await client.call_tool_async('echo', {text: 'from GJS'}, null);
    check(echoed.content[0].text === 'from GJS', `a call with an object (${version})`);

    const answer = await client.call_tool_async('ask', {question: 'Sure?'}, null);
    check(answer.content[0].text === 'confirmed', `elicitation answered from GJS (${version}): ${JSON.stringify(answer)}`);
    check(asked.length === 1 && asked[0][0] === 'elicitation/create' && asked[0][1].message === 'Sure?',
        `the handler saw the request as an object (${version})`);

    const completion = await client.complete_async({type: 'ref/prompt', name: 'greet'}, 'name', 'g', null, null);
    check(JSON.stringify(completion.values) === '["Grace"]', `completion is an object (${version})`);

    check(await client.close_async(null), `closes (${version})`);
}

const loop = new GLib.MainLoop(null, false);
let status = 0;
(async () => {
    try {
        await run(Snodo.ProtocolVersion.UNKNOWN);
        await run(Snodo.protocol_version_from_string('2025-11-25'));
    } catch (error) {
        printerr(`${error}\n${error.stack}`);
        status = 1;
    }
    loop.quit();
})();
loop.run();
System.exit(status !== 0 || failures.length > 0 ? 1 : 0);
