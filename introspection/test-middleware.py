#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Middlewares and answer view hooks from Python, through a real stdio
# server: a middleware that times calls, one that answers itself, one
# that retries a failing handler once, the order of two, one that raises
# (a clean error answer, the server goes on), and an answer hook given a
# Snodo.Answer.
#
#   test-middleware.py          runs the checks; starts itself as a server
#   test-middleware.py serve    a stdio server on standard input and output

import json
import subprocess
import sys
import time

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

META = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {}}
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('not ok - ' + message)


def log(line):
    sys.stderr.write(line + '\n')
    sys.stderr.flush()


def serve():
    server = Snodo.Server.new('py-middleware', '1.0')
    flaky_calls = [0]

    def echo(inv):
        log('handler %s' % inv.get_name())
        inv.return_text(inv.get_arguments().get('text', ''))

    def slow(inv):
        log('handler slow')
        GLib.timeout_add(50, lambda: inv.return_text('late') and False)

    def flaky(inv):
        flaky_calls[0] += 1
        log('handler flaky %d' % flaky_calls[0])
        if flaky_calls[0] == 1:
            raise RuntimeError('first call fails')
        inv.return_text('second time lucky')

    for name, func in (('echo', echo), ('first', echo), ('slow', slow), ('flaky', flaky), ('cached', echo),
                       ('boom', echo), ('boomlater', echo)):
        server.add_tool(Snodo.Tool.new(name, name), func)

    # Outermost: times every tools/call.
    def timing(inv, next_):
        started = time.monotonic()

        def done(next_, inv, answer):
            log('timed %s %d ms %s' % (inv.get_name(), (time.monotonic() - started) * 1000,
                                       'error' if answer.is_error() else 'result'))
            inv.return_answer(answer)
        next_.call(inv, done)
    server.add_middleware('tools/call', timing)

    # Then: "cached" is answered here; "boom" raises here; "boomlater"
    # raises once the answer is back.
    def short(inv, next_):
        log('short> %s' % inv.get_name())
        if inv.get_name() == 'cached':
            inv.return_text('from the middleware')
            return
        if inv.get_name() == 'boom':
            raise KeyError('boom')

        def done(next_, inv, answer):
            log('<short %s' % inv.get_name())
            if inv.get_name() == 'boomlater':
                raise ValueError('after the handler')
            inv.return_answer(answer)
        next_.call(inv, done)
    server.add_middleware(None, short)

    # Innermost: retries once an answer that is an error (installed with the
    # short form's decorator).
    @server.middleware(method='tools/call')
    def retry(inv, next_):
        tries = [0]

        def done(next_, inv, answer):
            tries[0] += 1
            if answer.is_error() and tries[0] == 1:
                log('retry %s after %d' % (inv.get_name(), answer.get_error_code()))
                next_.call(inv, done)
                return
            inv.return_answer(answer)
        next_.call(inv, done)

    def view(inv, answer):
        tree = answer.get_tree() if answer.is_error() else None
        log('view %s %s %d %s' % (answer.get_id(), 'error' if answer.is_error() else 'result',
                                  answer.get_error_code(), tree['error']['message'] if tree else '-'))
        json.loads(answer.get_line())
    server.add_answer_view_hook(view)

    transport = Snodo.StdioTransport.new_for_stdio(server)
    loop = GLib.MainLoop()
    transport.connect('closed', lambda _t, _error: loop.quit())
    transport.start()
    loop.run()


def main():
    if sys.argv[1:] == ['serve']:
        serve()
        return

    def call(i, name, text=''):
        return {'jsonrpc': '2.0', 'id': i, 'method': 'tools/call',
                'params': {'name': name, 'arguments': {'text': text}, '_meta': META}}
    lines = [call(1, 'first', 'hi'), call(2, 'slow'), call(3, 'cached'), call(4, 'flaky'),
             call(5, 'boom'), call(6, 'boomlater'), call(7, 'echo', 'still here'),
             {'jsonrpc': '2.0', 'id': 8, 'method': 'tools/list', 'params': {'_meta': META}}]
    child = subprocess.run([sys.executable, __file__, 'serve'],
                           input=''.join(json.dumps(line) + '\n' for line in lines),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    messages = [json.loads(line) for line in child.stdout.splitlines()]
    err = child.stderr.splitlines()
    check(child.returncode == 0, 'the server exited with %d' % child.returncode)
    check(sorted(m.get('id') for m in messages) == list(range(1, 9)), 'one answer each: %r' % messages)
    answers = {m['id']: m for m in messages}

    def text(i):
        return answers.get(i, {}).get('result', {}).get('content', [{}])[0].get('text')

    check(text(1) == 'hi', 'echo: %r' % answers.get(1))
    # Timing: the slow handler's answer came back to the timing middleware
    # 50 ms later.
    timed = [line for line in err if line.startswith('timed slow ')]
    check(len(timed) == 1 and int(timed[0].split()[2]) >= 45 and text(2) == 'late',
          'timing: %r %r' % (timed, answers.get(2)))
    # Short-circuit: no handler ran for "cached".
    check(text(3) == 'from the middleware' and 'handler cached' not in err,
          'short-circuit: %r' % answers.get(3))
    # Retry: the handler ran twice, the client got the second answer.
    check(text(4) == 'second time lucky' and 'handler flaky 2' in err
          and any(line.startswith('retry flaky after -32603') for line in err),
          'retry: %r' % answers.get(4))
    # Order: timing (outermost), short, retry, handler; back the other way.
    order = [line for line in err if line.split()[-1] == 'first' or line.startswith('timed first')]
    check(order[:3] == ['short> first', 'handler first', '<short first'] and len(order) == 4 and
          order[3].startswith('timed first'), 'order: %r' % order)
    # A middleware that raises: a clean -32603 naming the error, before and
    # after passing the request on; the server goes on (7 and 8 answered).
    for i, what in ((5, 'KeyError'), (6, 'ValueError')):
        error = answers.get(i, {}).get('error', {})
        check(error.get('code') == -32603 and what in error.get('message', ''), 'raised: %r' % answers.get(i))
    check('handler boom' not in err, 'boom reached its handler')
    check(text(7) == 'still here' and 'result' in answers.get(8, {}), 'after: %r %r' % (answers.get(7), answers.get(8)))
    # The view hook: every answer, errors read with their code.
    views = [line for line in err if line.startswith('view ')]
    check(len(views) == 8 and 'view 5 error -32603' in ' | '.join(views) and 'view 1 result 0 -' in views,
          'view hook: %r' % views)
    if failures:
        sys.stderr.write(child.stderr)
        sys.exit(1)
    print('ok')


main()
