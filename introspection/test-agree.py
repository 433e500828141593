#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-agree.py            (SNODO_DEMO names snodo-demo)
#   test-agree.py serve      (the Python server the first form runs)
#
# Python answers as C does. A Python handler's request for input that the
# client's capabilities do not allow gets the answer snodo-demo's `ask`
# (in C) gets, in each protocol era; tools are made with plain values for
# their JSON properties; and SnodoClient hands Python the request of each
# progress report, and results of one shape in both eras.

import json
import os
import subprocess
import sys

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

ELICIT = {'message': 'Sure?',
          'requestedSchema': {'type': 'object', 'properties': {'confirm': {'type': 'boolean'}}}}
SCHEMA = {'type': 'object', 'properties': {'text': {'type': 'string'}}, 'required': ['text']}
OUTPUT = {'type': 'object', 'properties': {'length': {'type': 'integer'}}, 'required': ['length']}

failures = []


def check(condition, message):
    print(('ok - ' if condition else 'not ok - ') + message)
    if not condition:
        failures.append(message)


def serve():
    server = Snodo.Server.new('agree', '1.0')

    # The documented form: the callback passes an error on to return_gerror().
    def ask(invocation):
        def answered(inv, result):
            try:
                inv.return_text(inv.request_input_finish(result)['action'])
            except GLib.Error as error:
                inv.return_gerror(error)
        invocation.request_input_async('confirm', 'elicitation/create', ELICIT, None, answered)
    server.add_tool(Snodo.Tool.new('ask', 'Asks, passing errors on'), ask)

    # The same, letting the error through.
    def ask_raising(invocation):
        invocation.request_input_async(
            'confirm', 'elicitation/create', ELICIT, None,
            lambda inv, result: inv.return_text(inv.request_input_finish(result)['action']))
    server.add_tool(Snodo.Tool.new('ask-raising', 'Asks, letting errors through'), ask_raising)

    # Made with plain values for the JSON properties (if that fails, the
    # calls of the tool fail; the other tools are served all the same).
    try:
        length = Snodo.Tool(name='length', description='Measures', input_schema=SCHEMA,
                            output_schema=OUTPUT, annotations={'readOnlyHint': True})
        server.add_tool(length, lambda inv: inv.return_structured({'length': len(inv.get_arguments()['text'])}))
    except TypeError as error:
        print('cannot make the tool: %s' % error, file=sys.stderr)

    transport = Snodo.StdioTransport.new_for_stdio(server)
    loop = GLib.MainLoop()
    transport.connect('closed', lambda *_: loop.quit())
    transport.start()
    loop.run()
    return 0


def exchange(command, version, calls):
    """Sends @calls (tools/call params) to @command in @version, without
    client capabilities; gives the answers in order, without their id
    and the server's name (which differ)."""
    if version == '2026-07-28':
        meta = {'io.modelcontextprotocol/protocolVersion': version,
                'io.modelcontextprotocol/clientCapabilities': {}}
        lines = [{'jsonrpc': '2.0', 'id': i + 2, 'method': 'tools/call', 'params': dict(call, _meta=meta)}
                 for i, call in enumerate(calls)]
    else:
        lines = [{'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                  'params': {'protocolVersion': version, 'capabilities': {},
                             'clientInfo': {'name': 'agree', 'version': '1'}}},
                 {'jsonrpc': '2.0', 'method': 'notifications/initialized'}]
        lines += [{'jsonrpc': '2.0', 'id': i + 2, 'method': 'tools/call', 'params': call}
                  for i, call in enumerate(calls)]
    result = subprocess.run(command, input=''.join(json.dumps(line) + '\n' for line in lines),
                            capture_output=True, text=True, timeout=60)
    answers = {}
    for line in result.stdout.splitlines():
        message = json.loads(line)
        message.get('result', {}).get('_meta', {}).pop('io.modelcontextprotocol/serverInfo', None)
        if message.get('result', {}).get('_meta') == {}:
            del message['result']['_meta']
        answers[message.pop('id', None)] = message
    return [answers.get(i + 2) for i in range(len(calls))], result.stderr


def check_server():
    me = ['/usr/bin/python3', os.path.abspath(__file__), 'serve']
    for version in ('2025-11-25', '2026-07-28'):
        ask = {'name': 'ask', 'arguments': {'question': 'Sure?'}}
        (c_answer,), _ = exchange([os.environ['SNODO_DEMO']], version, [ask])
        answers, stderr = exchange(me, version, [
            ask, dict(ask, name='ask-raising'),
            {'name': 'length', 'arguments': {'text': 'four'}},
            {'name': 'length', 'arguments': {}}])
        if version == '2026-07-28':
            right = c_answer.get('error', {}).get('code') == -32021 and \
                c_answer['error'].get('data') == {'requiredCapabilities': {'elicitation': {}}}
        else:
            right = c_answer.get('result', {}).get('isError') is True
        check(right, 'C answers a request for input the client cannot take as its era says (%s): %s'
              % (version, json.dumps(c_answer)))
        check(answers[0] == c_answer, 'Python passing the error on answers as C (%s): %s'
              % (version, json.dumps(answers[0])))
        check(answers[1] == c_answer, 'Python letting the error through answers as C (%s): %s'
              % (version, json.dumps(answers[1])))
        check('Traceback' not in stderr and 'failed' not in stderr,
              'and with no traceback (%s): %s' % (version, stderr[-300:]))
        length = (answers[2] or {}).get('result', {})
        check(length.get('structuredContent') == {'length': 4},
              'a tool made with dicts for its schemas answers (%s): %s' % (version, json.dumps(answers[2])))
        check((answers[3] or {}).get('result', {}).get('isError') is True,
              'and its input schema holds (%s): %s' % (version, json.dumps(answers[3])))

    tool = Snodo.Tool(name='t', input_schema=SCHEMA, output_schema=OUTPUT)
    check(tool.get_input_schema() == SCHEMA and tool.get_output_schema() == OUTPUT,
          'Snodo.Tool(input_schema=dict, output_schema=dict) keeps them')
    resource = Snodo.Resource(uri='app://x', name='x', annotations={'priority': 0.5}, meta={'a': 1})
    check(resource.get_annotations() == {'priority': 0.5} and resource.get_meta() == {'a': 1},
          'Snodo.Resource(annotations=dict, meta=dict) keeps them')


def wait(start):
    box = []
    start(lambda source, result, *args: box.append(result))
    while not box:
        GLib.MainContext.default().iteration(True)
    return box[0]


def check_client():
    results = {}
    for pinned in ('2026-07-28', '2025-11-25'):
        client = Snodo.Client.new_for_argv([os.environ['SNODO_DEMO']])
        client.set_pinned_version(Snodo.protocol_version_from_string(pinned))
        check(client.connect_finish(wait(lambda cb: client.connect_async(None, cb))), 'connects (%s)' % pinned)
        results[pinned] = client.call_tool_finish(wait(
            lambda cb: client.call_tool_async('echo', {'text': 'same'}, None, cb)))

        # Two calls in flight, each reporting progress: each report comes
        # with its own request.
        reports = []
        client.connect('request-progress::tools/call', lambda _client, request, progress, total, message:
                       reports.append((Snodo.from_json_node(request), progress, total)))
        old = []
        client.connect('progress', lambda _client, method, progress, total, message: old.append(method))
        done = []
        client.call_tool_async('progress', {'steps': 2}, None, lambda *args: done.append(1))
        client.call_tool_async('progress', {'steps': 3}, None, lambda *args: done.append(1))
        while len(done) < 2:
            GLib.MainContext.default().iteration(True)
        check(len(reports) == 5 and all(r['params']['arguments']['steps'] == total for r, _, total in reports),
              'each progress report names its own request (%s): %r' % (pinned, reports))
        check(len({r['id'] for r, _, _ in reports}) == 2 and
              all(r['method'] == 'tools/call' and r['params']['name'] == 'progress' for r, _, _ in reports),
              'with its id, method and params (%s)' % pinned)
        check(old == ['tools/call'] * 5, 'progress is still emitted with the method (%s): %r' % (pinned, old))
        client.close_finish(wait(lambda cb: client.close_async(None, cb)))
    check(results['2026-07-28'] == results['2025-11-25'] == {'content': [{'type': 'text', 'text': 'same'}]},
          'a call_tool result has the same shape in both eras: %r' % results)


def main():
    if sys.argv[1:] == ['serve']:
        return serve()
    check_server()
    check_client()
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
