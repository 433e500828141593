// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Middlewares and answer view hooks from JavaScript, through a real stdio
// server: a middleware that times calls, one that answers itself, one
// that retries a failing handler once, the order of two, one that throws
// (a clean error answer, the server goes on), and an answer hook given a
// Snodo.Answer.
//
//   gjs -m test-middleware.js          runs the checks; starts itself as a server
//   gjs -m test-middleware.js serve    a stdio server on standard input and output

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

function log(line) {
    printerr(line);
}

function serve() {
    const server = Snodo.Server.new('gjs-middleware', '1.0');
    let flakyCalls = 0;
    const echo = inv => {
        log(`handler ${inv.get_name()}`);
        inv.return_text(inv.get_arguments().text ?? '');
    };
    const slow = inv => {
        log('handler slow');
        GLib.timeout_add(GLib.PRIORITY_DEFAULT, 50, () => {
            inv.return_text('late');
            return GLib.SOURCE_REMOVE;
        });
    };
    const flaky = inv => {
        flakyCalls++;
        log(`handler flaky ${flakyCalls}`);
        if (flakyCalls === 1)
            throw new Error('first call fails');
        inv.return_text('second time lucky');
    };
    for (const [name, func] of [['echo', echo], ['first', echo], ['slow', slow], ['flaky', flaky], ['cached', echo],
        ['boom', echo], ['boomlater', echo]])
        server.add_tool(Snodo.Tool.new(name, name), func);

    // Outermost: times every tools/call.
    server.add_middleware('tools/call', (inv, next) => {
        const started = GLib.get_monotonic_time();
        next.call(inv, (_next, inv2, answer) => {
            const ms = Math.floor((GLib.get_monotonic_time() - started) / 1000);
            log(`timed ${inv2.get_name()} ${ms} ms ${answer.is_error() ? 'error' : 'result'}`);
            inv2.return_answer(answer);
        });
    });
    // Then: "cached" is answered here; "boom" throws here; "boomlater"
    // throws once the answer is back.
    server.add_middleware(null, (inv, next) => {
        log(`short> ${inv.get_name()}`);
        if (inv.get_name() === 'cached') {
            inv.return_text('from the middleware');
            return;
        }
        if (inv.get_name() === 'boom')
            throw new TypeError('boom');
        next.call(inv, (_next, inv2, answer) => {
            log(`<short ${inv2.get_name()}`);
            if (inv2.get_name() === 'boomlater')
                throw new RangeError('after the handler');
            inv2.return_answer(answer);
        });
    });
    // Innermost: retries once an answer that is an error.
    server.add_middleware('tools/call', (inv, next) => {
        let tries = 0;
        const done = (next2, inv2, answer) => {
            tries++;
            if (answer.is_error() && tries === 1) {
                log(`retry ${inv2.get_name()} after ${answer.get_error_code()}`);
                next2.call(inv2, done);
                return;
            }
            inv2.return_answer(answer);
        };
        next.call(inv, done);
    });
    server.add_answer_view_hook((_inv, answer) => {
        const tree = answer.is_error() ? answer.get_tree() : null;
        log(`view ${answer.get_id()} ${answer.is_error() ? 'error' : 'result'} ${answer.get_error_code()} ` +
            `${tree ? tree.error.message : '-'}`);
        JSON.parse(answer.get_line());
    });

    const transport = Snodo.StdioTransport.new_for_stdio(server);
    const loop = new GLib.MainLoop(null, false);
    transport.connect('closed', () => loop.quit());
    transport.start();
    loop.run();
}

async function checkAll() {
    const call = (id, name, text = '') => ({jsonrpc: '2.0', id, method: 'tools/call',
        params: {name, arguments: {text}, _meta: META}});
    const lines = [call(1, 'first', 'hi'), call(2, 'slow'), call(3, 'cached'), call(4, 'flaky'),
        call(5, 'boom'), call(6, 'boomlater'), call(7, 'echo', 'still here'),
        {jsonrpc: '2.0', id: 8, method: 'tools/list', params: {_meta: META}}];
    const script = GLib.filename_from_uri(import.meta.url)[0];
    const child = Gio.Subprocess.new(['gjs', '-m', script, 'serve'],
        Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE);
    const [stdout, stderr] = await child.communicate_utf8_async(
        lines.map(l => `${JSON.stringify(l)}\n`).join(''), null);
    const messages = stdout.split('\n').filter(l => l !== '').map(l => JSON.parse(l));
    const err = stderr.split('\n');
    check(child.get_successful(), `the server failed: ${stderr}`);
    check(JSON.stringify(messages.map(m => m.id).sort()) === '[1,2,3,4,5,6,7,8]', `one answer each: ${stdout}`);
    const answers = Object.fromEntries(messages.map(m => [m.id, m]));
    const text = id => answers[id]?.result?.content?.[0]?.text;

    check(text(1) === 'hi', `echo: ${JSON.stringify(answers[1])}`);
    // Timing: the slow handler's answer came back 50 ms later.
    const timed = err.filter(l => l.startsWith('timed slow '));
    check(timed.length === 1 && Number(timed[0].split(' ')[2]) >= 45 && text(2) === 'late',
        `timing: ${timed} ${JSON.stringify(answers[2])}`);
    // Short-circuit: no handler ran for "cached".
    check(text(3) === 'from the middleware' && !err.includes('handler cached'),
        `short-circuit: ${JSON.stringify(answers[3])}`);
    // Retry: the handler ran twice, the client got the second answer.
    check(text(4) === 'second time lucky' && err.includes('handler flaky 2') &&
        err.some(l => l.startsWith('retry flaky after -32603')), `retry: ${JSON.stringify(answers[4])}`);
    // Order: timing (outermost), short, retry, handler; back the other way.
    const order = err.filter(l => l.endsWith(' first') || l.startsWith('timed first'));
    check(JSON.stringify(order.slice(0, 3)) === '["short> first","handler first","<short first"]' &&
        order.length === 4 && order[3].startsWith('timed first'), `order: ${order}`);
    // A middleware that throws: a clean -32603 naming the error; the server
    // goes on.
    for (const [id, what] of [[5, 'TypeError'], [6, 'RangeError']]) {
        const error = answers[id]?.error;
        check(error?.code === -32603 && error.message.includes(what), `thrown: ${JSON.stringify(answers[id])}`);
    }
    check(!err.includes('handler boom'), 'boom reached its handler');
    check(text(7) === 'still here' && 'result' in (answers[8] ?? {}), `after: ${stdout}`);
    const views = err.filter(l => l.startsWith('view '));
    check(views.length === 8 && views.some(l => l.startsWith('view 5 error -32603')) && views.includes('view 1 result 0 -'),
        `view hook: ${views}`);
    if (failures.length > 0)
        printerr(stderr);
}

if (ARGV[0] === 'serve') {
    serve();
} else {
    const loop = new GLib.MainLoop(null, false);
    checkAll().catch(e => check(false, `${e}\n${e.stack}`)).finally(() => loop.quit());
    loop.run();
    if (failures.length > 0)
        System.exit(1);
    print('ok - middlewares from JavaScript');
}
