// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The GJS overrides (overrides/Snodo.js): JSON as plain objects, handlers
// that throw or reject answered with -32603 at once, async tool handlers
// whose value is the structured result, promises from the _async methods,
// and an HTTP transport that keeps serving after the function that
// started it returned.
//
//   gjs -m test-native.js          runs the checks; starts itself as a server
//   gjs -m test-native.js serve    a stdio server on standard input and output

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Soup from 'gi://Soup?version=3.0';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

Gio._promisify(Gio.Subprocess.prototype, 'communicate_utf8_async', 'communicate_utf8_finish');
Gio._promisify(Soup.Session.prototype, 'send_and_read_async', 'send_and_read_finish');

const META = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {elicitation: {}},
};
const failures = [];

function check(condition, message) {
    if (!condition) {
        failures.push(message);
        print(`not ok - ${message}`);
    }
}

function sleep(ms) {
    return new Promise(resolve => GLib.timeout_add(GLib.PRIORITY_DEFAULT, ms, () => {
        resolve();
        return GLib.SOURCE_REMOVE;
    }));
}

function makeServer() {
    const server = Snodo.Server.new('gjs-native', '1.0');

    const shout = Snodo.Tool.new('shout', 'Upper-cases its text');
    shout.set_input_schema({type: 'object', properties: {text: {type: 'string'}}});
    server.add_tool(shout, inv => inv.return_text(inv.get_arguments().text.toUpperCase()));

    const later = Snodo.Tool.new('later', 'Resolves to its structured result');
    later.set_output_schema({type: 'object', properties: {n: {type: 'integer'}}, required: ['n']});
    server.add_tool(later, async inv => {
        await sleep(10);
        return {n: inv.get_arguments().values.length, list: inv.get_arguments().values};
    });

    server.add_tool(Snodo.Tool.new('reject', 'Rejects'), async () => {
        await sleep(5);
        throw new Error('nope');
    });

    server.add_tool(Snodo.Tool.new('answers', 'Answers itself, then resolves'), async inv => {
        await sleep(5);
        inv.return_structured(['answered']);
        return {ignored: true};
    });

    server.add_tool(Snodo.Tool.new('only', 'structuredContent alone'),
        inv => inv.return_result({structuredContent: {ok: true}}));

    server.add_tool(Snodo.Tool.new('confirm', 'Asks, with a promise'), async inv => {
        const answer = await inv.request_input_async('ok', 'elicitation/create',
            {message: 'Sure?', requestedSchema: {type: 'object', properties: {}}}, null);
        return answer;
    });

    const readme = Snodo.Resource.new('gjs://readme', 'readme');
    readme.set_annotations({audience: ['user']});
    server.add_resource(readme, () => {
        throw new TypeError('no readme');
    });

    const greet = Snodo.Prompt.new('greet', 'Greets');
    greet.add_argument('name', 'Who', true);
    server.add_prompt(greet, inv => inv.return_prompt(null, [
        {role: 'user', content: {type: 'text', text: `Hello ${inv.get_arguments().name}`}}]));

    // _meta as objects: on a description, on a result; an extension; an app.
    const traced = Snodo.Tool.new('traced', 'Has _meta, and answers with _meta');
    traced.set_meta({'com.example/owner': 'gjs', 'tags': ['a', 1]});
    server.add_tool(traced, inv => inv.return_result(
        {content: [{type: 'text', text: 'traced'}], _meta: {'com.example/trace': 't-1'}}));
    server.add_extension('com.example/gjs', {level: 2});
    server.add_app(traced, Snodo.Resource.new('ui://gjs/view', 'view'), '<!DOCTYPE html><html></html>',
        {prefersBorder: false, visibility: ['model']});

    // Hooks: a tool refused by name, one that throws (refused with
    // -32603), an annotation its handler reads, every answer seen (on
    // stderr, for the test to read).
    server.add_request_hook(inv => {
        if (inv.get_name() === 'guarded')
            inv.reject(-32001, 'Not for you');
        else if (inv.get_name() === 'hookthrows')
            throw new Error('no entry');
        inv.set_annotation('who', {name: 'ada', method: inv.get_method()});
    });
    server.add_answer_hook((_inv, answer) => printerr(`answer-hook ${answer.id} ${'error' in answer ? 'error' : 'result'}`));
    server.add_tool(Snodo.Tool.new('guarded', 'Refused by a hook'), inv => inv.return_text('no'));
    server.add_tool(Snodo.Tool.new('hookthrows', 'Refused by a hook that throws'), inv => inv.return_text('no'));
    server.add_tool(Snodo.Tool.new('whoami', 'Reads what a hook attached'),
        inv => inv.return_structured(inv.get_annotation('who')));
    return server;
}

function serve() {
    const transport = Snodo.StdioTransport.new_for_stdio(makeServer());
    const loop = new GLib.MainLoop(null, false);
    let status = 1;
    transport.connect('closed', (_t, error) => {
        status = error === null ? 0 : 1;
        loop.quit();
    });
    transport.start();
    loop.run();
    System.exit(status);
}

const call = (id, name, args) => ({jsonrpc: '2.0', id, method: 'tools/call',
    params: {name, arguments: args, _meta: META}});
const request = (id, method, params) => ({jsonrpc: '2.0', id, method, params: {...params, _meta: META}});

async function checkStdio() {
    const requests = [
        call(1, 'shout', {}),
        call(2, 'shout', {text: 'still here'}),
        call(3, 'later', {values: [1, 2, 3]}),
        call(4, 'reject', {}),
        call(5, 'answers', {}),
        call(6, 'only', {}),
        call(7, 'confirm', {}),
        request(8, 'resources/read', {uri: 'gjs://readme'}),
        request(9, 'prompts/get', {name: 'greet', arguments: {name: 'Ada'}}),
        request(10, 'resources/list', {}),
        call(11, 'traced', {}),
        request(12, 'server/discover', {}),
        request(13, 'resources/read', {uri: 'ui://gjs/view'}),
        request(14, 'tools/list', {}),
        call(15, 'guarded', {}),
        call(16, 'hookthrows', {}),
        call(17, 'whoami', {}),
    ];
    const script = GLib.filename_from_uri(import.meta.url)[0];
    const child = Gio.Subprocess.new(['gjs', '-m', script, 'serve'],
        Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE);
    const start = GLib.get_monotonic_time();
    const [stdout, stderr] = await child.communicate_utf8_async(
        requests.map(r => `${JSON.stringify(r)}\n`).join(''), null);
    const elapsed = (GLib.get_monotonic_time() - start) / 1e6;
    check(child.get_if_exited() && child.get_exit_status() === 0,
        `the server exited with ${child.get_exit_status()} at the end of input`);
    // Every request is answered at once, the failed ones included: the
    // process ends soon after its input does (generous for a loaded machine).
    check(elapsed < 5, `the server exited ${elapsed.toFixed(2)} s after it started, its input all given at once`);
    const answers = {};
    for (const line of stdout.trim().split('\n')) {
        const message = JSON.parse(line);
        check(!(message.id in answers), `two answers to ${message.id}`);
        answers[message.id] = message;
    }
    check(Object.keys(answers).length === requests.length, `answers: ${Object.keys(answers)}`);
    check(answers[15]?.error?.code === -32001 && answers[15].error.message === 'Not for you',
        `refused by a hook: ${JSON.stringify(answers[15])}`);
    check(answers[16]?.error?.code === -32603 && answers[16].error.message.includes('no entry'),
        `refused by a hook that threw: ${JSON.stringify(answers[16])}`);
    check(JSON.stringify(answers[17]?.result?.structuredContent) === '{"name":"ada","method":"tools/call"}',
        `annotation: ${JSON.stringify(answers[17])}`);
    const seen = stderr.split('\n').filter(l => l.startsWith('answer-hook ')).map(l => l.split(' '));
    check(seen.length === requests.length && seen.some(([, id, kind]) => id === '15' && kind === 'error'),
        `answers the hook saw: ${JSON.stringify(seen)}`);
    const show = id => JSON.stringify(answers[id]);

    check(answers[1]?.error?.code === -32603 &&
        answers[1].error.message.startsWith("The handler of tool 'shout' failed: TypeError:"),
    `a throwing handler: ${show(1)}`);
    check(stderr.includes("Snodo-WARNING: The handler of tool 'shout' failed"), `stderr: ${stderr}`);
    check(answers[2]?.result?.content?.[0]?.text === 'STILL HERE', `served after a failure: ${show(2)}`);
    check(JSON.stringify(answers[3]?.result?.structuredContent) === '{"n":3,"list":[1,2,3]}' &&
        JSON.parse(answers[3].result.content[0].text).n === 3, `an async handler's value: ${show(3)}`);
    check(answers[4]?.error?.code === -32603 &&
        answers[4].error.message === "The handler of tool 'reject' failed: Error: nope",
    `a rejected promise: ${show(4)}`);
    check(JSON.stringify(answers[5]?.result?.structuredContent) === '["answered"]',
        `answered, then resolved: ${show(5)}`);
    check(JSON.stringify(answers[6]?.result?.content) === '[]' && answers[6].result.structuredContent.ok,
        `a result without content gets "content": []: ${show(6)}`);
    check(answers[7]?.result?.resultType === 'input_required' &&
        answers[7].result.inputRequests.ok.params.message === 'Sure?',
    `an awaited request_input_async in 2026-07-28: ${show(7)}`);
    check(answers[8]?.error?.code === -32603 &&
        answers[8].error.message === "The handler of resource 'gjs://readme' failed: TypeError: no readme",
    `a throwing resource handler: ${show(8)}`);
    check(answers[9]?.result?.messages?.[0]?.content?.text === 'Hello Ada', `prompt: ${show(9)}`);
    check(JSON.stringify(answers[10]?.result?.resources?.[0]?.annotations) === '{"audience":["user"]}',
        `resource annotations: ${show(10)}`);
    check(JSON.stringify(answers[10]?.result?.resources?.[1]) === JSON.stringify({uri: 'ui://gjs/view',
        name: 'view', mimeType: 'text/html;profile=mcp-app', _meta: {ui: {prefersBorder: false}}}),
    `the view listed: ${show(10)}`);
    check(answers[11]?.result?._meta?.['com.example/trace'] === 't-1' &&
        answers[11].result._meta['io.modelcontextprotocol/serverInfo']?.name === 'gjs-native',
    `a result's _meta merged with serverInfo: ${show(11)}`);
    check(JSON.stringify(answers[12]?.result?.capabilities?.extensions) ===
        '{"com.example/gjs":{"level":2},"io.modelcontextprotocol/ui":{}}', `extensions in discover: ${show(12)}`);
    check(answers[13]?.result?.contents?.[0]?.mimeType === Snodo.APP_MIME_TYPE &&
        answers[13].result.contents[0].text === '<!DOCTYPE html><html></html>', `the view read: ${show(13)}`);
    const tracedTool = answers[14]?.result?.tools?.find(t => t.name === 'traced');
    check(JSON.stringify(tracedTool?._meta) === JSON.stringify({'com.example/owner': 'gjs', tags: ['a', 1],
        ui: {resourceUri: 'ui://gjs/view', visibility: ['model']}}), `a tool's _meta: ${show(14)}`);
}

// A JavaScript callback cannot run on a worker thread: refused when added.
function checkTasks() {
    const tool = Snodo.Tool.new('t', null);
    check(tool.get_task_support() === Snodo.TaskSupport.FORBIDDEN, 'task support is forbidden by default');
    tool.task_support = Snodo.TaskSupport.OPTIONAL;
    check(tool.get_task_support() === Snodo.TaskSupport.OPTIONAL, 'task support set from JavaScript');
    const server = Snodo.Server.new('js-tasks', '1');
    check(server.enable_tasks(Snodo.TaskStore.new_memory(10, 0)), 'tasks enabled with a store from JavaScript');
    server.add_tool(tool, inv => inv.return_text(inv.is_task() ? 'task' : 'plain'));
    check(server.lookup_tool('t').task_support === Snodo.TaskSupport.OPTIONAL, 'the tool keeps its task support');
}

function checkRunInThread() {
    const server = Snodo.Server.new('threads', '1');
    const tool = Snodo.Tool.new('blocking', 'Would block');
    tool.set_run_in_thread(true);
    try {
        server.add_tool(tool, inv => inv.return_text('never'));
        check(false, 'a run-in-thread tool with a JavaScript handler was added');
    } catch (e) {
        check(String(e.message).includes('not a C function'), `run-in-thread refused: ${e.message}`);
    }
    check(server.lookup_tool('blocking') === null, 'the refused tool is not registered');
}

function checkValues() {
    const tool = Snodo.Tool.new('t', null);
    const schema = {type: 'object', properties: {x: {type: 'integer'}}, required: ['x']};
    tool.set_input_schema(schema);
    check(JSON.stringify(tool.get_input_schema()) === JSON.stringify(schema), 'input schema round trip');
    check(tool.get_output_schema() === null, 'no output schema');
    tool.set_output_schema({type: 'object'});
    check(tool.get_output_schema()?.type === 'object', 'output schema round trip');
    tool.set_output_schema(null);
    check(tool.get_output_schema() === null, 'output schema removed');
    for (const bad of [NaN, Infinity, 'a\0b', () => 1, 2n ** 70n]) {
        let threw = false;
        try {
            Snodo.toJsonNode(bad);
        } catch (e) {
            threw = true;
        }
        check(threw, `${String(bad)} was taken as JSON`);
    }
    check(JSON.stringify(Snodo.fromJsonNode(Snodo.toJsonNode({a: [1, 2.5, true, null, 'é'], b: {}}))) ===
        '{"a":[1,2.5,true,null,"é"],"b":{}}', 'values round trip');

    // RFC 6570 expansion takes an object, arrays and maps.
    const search = Snodo.ResourceTemplate.new('app://s{/seg*}{?q,page}', 's');
    const uri = search.expand({seg: ['a', 'b c'], q: 'x&y', page: 2});
    check(uri === 'app://s/a/b%20c?q=x%26y&page=2', `expand: ${uri}`);
    check(search.expand(null) === 'app://s' && search.expand({}) === 'app://s', 'expand without values');
    let expandThrew = false;
    try {
        search.expand({q: [['nested']]});
    } catch (e) {
        expandThrew = e.matches(Snodo.error_quark(), Snodo.Error.INVALID_SCHEMA);
    }
    check(expandThrew, 'expand refuses a list of lists');

    // What the four description types share, through their base.
    const icons = [{src: 'https://example.org/i.png'}];
    for (const description of [Snodo.Tool.new('t', null), Snodo.Resource.new('app://r', 'r'),
        Snodo.ResourceTemplate.new('app://r/{x}', 'r'), Snodo.Prompt.new('p', null)]) {
        const kind = description.constructor.name;
        check(description instanceof Snodo.Description, `${kind} is a Snodo.Description`);
        let notified = 0;
        description.connect('notify::title', () => notified++);
        Snodo.Description.prototype.set_title.call(description, 'Title');
        description.set_title('Title');
        check(description.get_title() === 'Title' && description.title === 'Title' && notified === 1,
            `${kind}: the title through the base, notified ${notified} times`);
        Snodo.Description.prototype.set_icons.call(description, icons);
        check(JSON.stringify(description.get_icons()) === JSON.stringify(icons) &&
            JSON.stringify(Snodo.Description.prototype.get_icons.call(description)) === JSON.stringify(icons),
        `${kind}: icons through the base`);
        check(Snodo.Description.prototype.get_name.call(description) === description.name,
            `${kind}: the name through the base`);
        const meta = {'com.example/k': [1, {x: null}], ui: {resourceUri: 'ui://a/b'}};
        description.set_meta(meta);
        check(JSON.stringify(description.get_meta()) === JSON.stringify(meta) &&
            JSON.stringify(Snodo.Description.prototype.get_meta.call(description)) === JSON.stringify(meta),
        `${kind}: _meta through the base`);
        description.set_meta(null);
        check(description.get_meta() === null, `${kind}: _meta removed`);
    }
    const server = Snodo.Server.new('ext', '1');
    check(server.add_extension('com.example/e', null) && JSON.stringify(server.get_extension('com.example/e')) === '{}',
        'an extension with no settings');
    check(server.get_extension('com.example/none') === null, 'no such extension');
    for (const [name, settings] of [['no-prefix', null], ['com.example/e', {}], ['com.example/f', [1]]]) {
        let threw = false;
        try {
            server.add_extension(name, settings);
        } catch (e) {
            threw = true;
        }
        check(threw, `the extension ${name} ${JSON.stringify(settings)} was added`);
    }
    const reserved = Snodo.Tool.new('t', null);
    reserved.set_meta({'io.modelcontextprotocol/mine': 1});
    try {
        server.add_tool(reserved, inv => inv.return_text('never'));
        check(false, 'a _meta key of a reserved prefix was accepted');
    } catch (e) {
        check(String(e.message).includes('reserved'), `reserved prefix: ${e.message}`);
    }
    let made = true;
    try {
        new Snodo.Description();
    } catch (e) {
        made = false;
    }
    check(!made, 'the abstract Snodo.Description was made');
}

function startHttp() {
    const transport = Snodo.HttpTransport.new(makeServer());
    transport.listen_local(0);
    return transport.get_port();
}

async function checkHttp() {
    const port = startHttp();
    System.gc();
    const message = Soup.Message.new('POST', `http://127.0.0.1:${port}/mcp`);
    const headers = message.get_request_headers();
    headers.append('Accept', 'application/json, text/event-stream');
    headers.append('MCP-Protocol-Version', '2026-07-28');
    headers.append('Mcp-Method', 'tools/call');
    headers.append('Mcp-Name', 'shout');
    message.set_request_body_from_bytes('application/json',
        new GLib.Bytes(new TextEncoder().encode(JSON.stringify(call(1, 'shout', {text: 'over http'})))));
    const session = new Soup.Session();
    const bytes = await session.send_and_read_async(message, GLib.PRIORITY_DEFAULT, null);
    const answer = JSON.parse(new TextDecoder().decode(bytes.toArray()));
    check(answer?.result?.content?.[0]?.text === 'OVER HTTP',
        `the HTTP transport kept serving after its function returned: ${JSON.stringify(answer)}`);

    // close_async() without a callback gives a promise.
    const other = Snodo.HttpTransport.new(makeServer());
    other.listen_local(0);
    check(await other.close_async(null) === true, 'close_async() as a promise');
}

if (ARGV[0] === 'serve') {
    serve();
} else {
    const loop = new GLib.MainLoop(null, false);
    (async () => {
        try {
            checkValues();
            checkTasks();
            checkRunInThread();
            await checkStdio();
            await checkHttp();
        } catch (e) {
            check(false, `${e}\n${e.stack}`);
        }
        loop.quit();
    })();
    GLib.timeout_add_seconds(GLib.PRIORITY_DEFAULT, 60, () => {
        check(false, 'timed out');
        loop.quit();
        return GLib.SOURCE_REMOVE;
    });
    loop.run();
    if (failures.length > 0)
        System.exit(1);
    print('ok - native JSON, failing handlers, promises and a kept-alive HTTP transport from JavaScript');
}
