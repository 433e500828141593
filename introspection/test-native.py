#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# The Python overrides (gi/overrides/Snodo.py): JSON as dicts and lists,
# handlers that raise answered with -32603 at once, and an HTTP transport
# that keeps serving after the function that started it returned.
#
#   test-native.py          runs the checks; starts itself as a server
#   test-native.py serve    a stdio server on standard input and output

import gc
import json
import subprocess
import time
import sys
import threading
import urllib.request

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Json', '1.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Json, Snodo  # noqa: E402

failures = []

META = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {'elicitation': {}}}


def check(condition, message):
    if not condition:
        failures.append(message)
        print('not ok - ' + message)


def make_server():
    server = Snodo.Server.new('py-native', '1.0')

    shout = Snodo.Tool.new('shout', 'Upper-cases its text')
    shout.set_input_schema({'type': 'object', 'properties': {'text': {'type': 'string'}}})
    server.add_tool(shout, lambda inv: inv.return_text(inv.get_arguments()['text'].upper()))

    stats = Snodo.Tool.new('stats', 'Structured statistics of its numbers')
    stats.set_input_schema({'type': 'object', 'properties': {'values': {'type': 'array'}},
                            'required': ['values']})
    stats.set_output_schema({'type': 'object', 'properties': {'n': {'type': 'integer'},
                                                              'mean': {'type': 'number'}},
                             'required': ['n']})
    stats.set_annotations({'readOnlyHint': True})

    def stats_cb(inv):
        values = inv.get_arguments()['values']
        inv.return_structured({'n': len(values), 'mean': sum(values) / len(values)})
    server.add_tool(stats, stats_cb)

    listing = Snodo.Tool.new('listing', 'A structured list')
    server.add_tool(listing, lambda inv: inv.return_structured([1, 'two', None, {'three': 3.5}]))

    only = Snodo.Tool.new('only', 'structuredContent and nothing else')
    server.add_tool(only, lambda inv: inv.return_result({'structuredContent': {'ok': True}}))

    def answered_then_raised(inv):
        inv.return_text('answered')
        raise RuntimeError('after answering')
    late = Snodo.Tool.new('late', 'Answers, then raises')
    server.add_tool(late, answered_then_raised)

    echo_args = Snodo.Tool.new('args', 'Returns its arguments and params as they look in Python')
    server.add_tool(echo_args, lambda inv: inv.return_structured(
        {'arguments': inv.get_arguments(), 'has_meta': '_meta' in inv.get_params(),
         'capabilities': inv.dup_client_capabilities()}))

    def confirm_cb(inv):
        def answered(inv, result):
            try:
                inv.return_structured(inv.request_input_finish(result))
            except GLib.Error as error:
                inv.return_gerror(error)
        inv.request_input_async('ok', 'elicitation/create',
                                {'message': 'Sure?', 'requestedSchema': {'type': 'object', 'properties': {}}},
                                None, answered)
    server.add_tool(Snodo.Tool.new('confirm', 'Asks'), confirm_cb)

    readme = Snodo.Resource.new('py://readme', 'readme')
    readme.set_annotations({'audience': ['user'], 'priority': 0.5})
    server.add_resource(readme, lambda inv: {}['missing'])

    notes = Snodo.ResourceTemplate.new('py://notes/{day}', 'notes')
    server.add_resource_template(notes, lambda inv: inv.return_resource_text(
        None, 'text/plain', json.dumps(inv.get_variables())))

    greet = Snodo.Prompt.new('greet', 'Greets')
    greet.add_argument('name', 'Who', True)
    server.add_prompt(greet, lambda inv: inv.return_prompt(None, [
        {'role': 'user', 'content': {'type': 'text', 'text': 'Hello ' + inv.get_arguments()['name']}}]))

    def complete(inv):
        raise ValueError('no suggestions today')
    server.set_completion_func(complete)

    # _meta as dicts: on a description, on a result; an extension; an app.
    traced = Snodo.Tool.new('traced', 'Has _meta, and answers with _meta')
    traced.set_meta({'com.example/owner': 'py', 'tags': ['a', 1]})
    server.add_tool(traced, lambda inv: inv.return_result(
        {'content': [{'type': 'text', 'text': 'traced'}], '_meta': {'com.example/trace': 't-1'}}))
    server.add_extension('com.example/py', {'level': 2})
    view = Snodo.Resource.new('ui://py/view', 'view')
    server.add_app(traced, view, '<!DOCTYPE html><html></html>',
                   {'csp': {'resourceDomains': ['https://cdn.example.com']}, 'visibility': ['app']})

    # Hooks: a tool refused by name, an annotation its handler reads, and
    # every answer seen (on stderr, for the test to read).
    def request_hook(inv):
        if inv.get_name() == 'guarded':
            inv.reject(-32001, 'Not for you')
        elif inv.get_name() == 'hookraises':
            raise PermissionError('no entry')
        inv.set_annotation('who', {'name': 'ada', 'method': inv.get_method()})
    server.add_request_hook(request_hook)
    server.add_answer_hook(lambda inv, answer: sys.stderr.write(
        'answer-hook %s %s\n' % (answer['id'], 'error' if 'error' in answer else 'result')))
    server.add_tool(Snodo.Tool.new('guarded', 'Refused by a hook'), lambda inv: inv.return_text('no'))
    server.add_tool(Snodo.Tool.new('hookraises', 'Refused by a hook that raises'), lambda inv: inv.return_text('no'))
    server.add_tool(Snodo.Tool.new('whoami', 'Reads what a hook attached'),
                    lambda inv: inv.return_structured(inv.get_annotation('who')))
    return server


def serve():
    server = make_server()
    transport = Snodo.StdioTransport.new_for_stdio(server)
    loop = GLib.MainLoop()
    status = []
    transport.connect('closed', lambda _t, error: (status.append(error), loop.quit()))
    transport.start()
    loop.run()
    sys.exit(0 if status == [None] else 1)


def call(id_, name, arguments, meta=True):
    params = {'name': name, 'arguments': arguments}
    if meta:
        params['_meta'] = META
    return {'jsonrpc': '2.0', 'id': id_, 'method': 'tools/call', 'params': params}


def request(id_, method, params):
    return {'jsonrpc': '2.0', 'id': id_, 'method': method, 'params': dict(params, _meta=META)}


def check_stdio():
    requests = [
        call(1, 'shout', {}),                     # KeyError: 'text'
        call(2, 'shout', {'text': 'still here'}),
        call(3, 'stats', {'values': [1, 2, 3, 4]}),
        call(4, 'listing', {}),
        call(5, 'only', {}),
        call(6, 'late', {}),
        call(7, 'args', {'a': [1, {'b': None}], 'c': 'é'}),
        call(8, 'confirm', {}),
        request(9, 'resources/read', {'uri': 'py://readme'}),
        request(10, 'resources/read', {'uri': 'py://notes/monday'}),
        request(11, 'prompts/get', {'name': 'greet', 'arguments': {'name': 'Ada'}}),
        request(12, 'completion/complete', {'ref': {'type': 'ref/prompt', 'name': 'greet'},
                                            'argument': {'name': 'name', 'value': 'A'}}),
        request(13, 'tools/list', {}),
        request(14, 'resources/list', {}),
        call(15, 'shout', {'text': 'cut \u0000 here'}),  # U+0000 never reaches Python
        call(16, 'traced', {}),
        request(17, 'server/discover', {}),
        request(18, 'resources/read', {'uri': 'ui://py/view'}),
        call(19, 'guarded', {}),
        call(20, 'whoami', {}),
        call(21, 'hookraises', {}),
    ]
    start = time.monotonic()
    child = subprocess.run([sys.executable, __file__, 'serve'],
                           input=''.join(json.dumps(r) + '\n' for r in requests),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    elapsed = time.monotonic() - start
    check(child.returncode == 0, 'the server exited with %d at the end of input' % child.returncode)
    # Every request is answered at once, the failed ones included: the
    # process ends soon after its input does (generous for a loaded machine).
    check(elapsed < 5, 'the server exited %.2f s after it started, its input all given at once' % elapsed)
    answers = {}
    for line in child.stdout.splitlines():
        message = json.loads(line)
        check(message['id'] not in answers, 'two answers to %r' % message['id'])
        answers[message['id']] = message
    check(sorted(answers) == list(range(1, 22)), 'answers: %r' % sorted(answers))

    def error_of(id_):
        return answers.get(id_, {}).get('error', {})

    def result_of(id_):
        return answers.get(id_, {}).get('result', {})

    # Hooks: refused with the hook's error, the annotation read by the
    # handler, and every admitted request's answer seen (not 15's: the
    # server refused it before the hooks).
    check(error_of(19) == {'code': -32001, 'message': 'Not for you'}, 'refused by a hook: %r' % answers.get(19))
    check(result_of(20).get('structuredContent') == {'name': 'ada', 'method': 'tools/call'},
          'annotation: %r' % answers.get(20))
    seen = {}
    for line in child.stderr.splitlines():
        if line.startswith('answer-hook '):
            _, id_, kind = line.split()
            seen[int(id_)] = kind
    check(sorted(seen) == [i for i in range(1, 22) if i != 15], 'answers the hook saw: %r' % sorted(seen))
    check(seen.get(19) == 'error' and seen.get(20) == 'result', 'what the hook saw: %r' % seen)
    check(error_of(21).get('code') == -32603 and 'PermissionError: no entry' in error_of(21).get('message', ''),
          'refused by a hook that raised: %r' % answers.get(21))

    check(error_of(1) == {'code': -32603, 'message': "The handler of tool 'shout' failed: KeyError: 'text'"},
          'a raising handler: %r' % answers.get(1))
    check("Traceback" in child.stderr and "KeyError: 'text'" in child.stderr,
          'the traceback went to stderr: %r' % child.stderr[:500])
    check(result_of(2).get('content') == [{'type': 'text', 'text': 'STILL HERE'}],
          'served after a failure: %r' % answers.get(2))

    stats = result_of(3)
    check(stats.get('structuredContent') == {'n': 4, 'mean': 2.5}, 'stats: %r' % stats)
    check(json.loads(stats['content'][0]['text']) == {'n': 4, 'mean': 2.5}, 'stats text: %r' % stats)
    listing = result_of(4)
    check(listing.get('structuredContent') == [1, 'two', None, {'three': 3.5}], 'listing: %r' % listing)
    check(result_of(5) == {'structuredContent': {'ok': True}, 'content': [], 'resultType': 'complete',
                           '_meta': result_of(5).get('_meta')},
          'a result without content gets "content": []: %r' % answers.get(5))
    check(result_of(6).get('content') == [{'type': 'text', 'text': 'answered'}],
          'answered, then raised: %r' % answers.get(6))
    check(result_of(7).get('structuredContent') == {
        'arguments': {'a': [1, {'b': None}], 'c': 'é'}, 'has_meta': True,
        'capabilities': {'elicitation': {}}}, 'arguments as Python values: %r' % answers.get(7))
    confirm = result_of(8)
    check(confirm.get('resultType') == 'input_required' and
          confirm['inputRequests']['ok']['params']['message'] == 'Sure?', 'confirm: %r' % confirm)
    check(error_of(9).get('code') == -32603 and
          error_of(9).get('message') == "The handler of resource 'py://readme' failed: KeyError: 'missing'",
          'a raising resource handler: %r' % answers.get(9))
    check(json.loads(result_of(10)['contents'][0]['text']) == {'day': 'monday'},
          'template variables: %r' % answers.get(10))
    check(result_of(11).get('messages', [{}])[0].get('content', {}).get('text') == 'Hello Ada',
          'prompt: %r' % answers.get(11))
    check(error_of(12).get('code') == -32603 and 'ValueError: no suggestions today' in error_of(12)['message'],
          'a raising completion handler: %r' % answers.get(12))
    check(error_of(15).get('code') == -32602, 'a string with U+0000: %r' % answers.get(15))
    tools = {t['name']: t for t in result_of(13).get('tools', [])}
    check(tools.get('stats', {}).get('annotations') == {'readOnlyHint': True}, 'annotations: %r' % tools)
    check(tools.get('stats', {}).get('outputSchema', {}).get('required') == ['n'], 'output schema listed')
    resources = result_of(14).get('resources', [])
    check(resources and resources[0].get('annotations') == {'audience': ['user'], 'priority': 0.5},
          'resource annotations: %r' % resources)
    check(tools.get('traced', {}).get('_meta') == {
        'com.example/owner': 'py', 'tags': ['a', 1], 'ui': {'resourceUri': 'ui://py/view', 'visibility': ['app']}},
        'a tool\'s _meta from a dict, with its view: %r' % tools.get('traced'))
    check(resources[-1:] == [{'uri': 'ui://py/view', 'name': 'view', 'mimeType': 'text/html;profile=mcp-app',
                              '_meta': {'ui': {'csp': {'resourceDomains': ['https://cdn.example.com']}}}}],
          'the view listed: %r' % resources)
    traced = result_of(16)
    check(traced.get('_meta', {}).get('com.example/trace') == 't-1' and
          traced['_meta'].get('io.modelcontextprotocol/serverInfo', {}).get('name') == 'py-native',
          'a result\'s _meta merged with serverInfo: %r' % traced)
    check(result_of(17).get('capabilities', {}).get('extensions') == {
        'com.example/py': {'level': 2}, 'io.modelcontextprotocol/ui': {}},
        'extensions in server/discover: %r' % answers.get(17))
    content = (result_of(18).get('contents') or [{}])[0]
    check(content.get('mimeType') == Snodo.APP_MIME_TYPE and content.get('text') == '<!DOCTYPE html><html></html>',
          'the view read: %r' % content)


def check_values():
    tool = Snodo.Tool.new('t', None)
    schema = {'type': 'object', 'properties': {'x': {'type': 'integer', 'minimum': -(1 << 62)}},
              'required': ['x']}
    tool.set_input_schema(schema)
    check(tool.get_input_schema() == schema, 'input schema round trip: %r' % tool.get_input_schema())
    check(tool.get_output_schema() is None, 'no output schema')
    tool.set_output_schema({'type': 'object'})
    check(tool.get_output_schema() == {'type': 'object'}, 'output schema round trip')
    tool.set_output_schema(None)
    check(tool.get_output_schema() is None, 'output schema removed')
    tool.set_icons([{'src': 'https://example.org/i.png'}])
    check(tool.get_icons() == [{'src': 'https://example.org/i.png'}], 'icons round trip')
    try:
        tool.set_input_schema({'type': 'string'})
        check(False, 'a schema that is not for an object was accepted')
    except GLib.Error:
        pass
    for bad in ({1: 2}, float('nan'), 1 << 64, object(), 'a\0b'):
        try:
            Snodo.to_json_node(bad)
            check(False, '%r was taken as JSON' % (bad,))
        except (TypeError, ValueError):
            pass
    node = Json.from_string('{"kept":true}')
    check(Snodo.to_json_node(node) is node, 'a Json.Node is taken as it is')
    prompt = Snodo.Prompt.new('p', None)
    prompt.add_argument('a', None, False)
    check(prompt.get_arguments() == [{'name': 'a'}], 'prompt arguments: %r' % prompt.get_arguments())

    # RFC 6570 expansion takes a dict, lists and maps.
    search = Snodo.ResourceTemplate.new('app://s{/seg*}{?q,page}', 's')
    uri = search.expand({'seg': ['a', 'b c'], 'q': 'x&y', 'page': 2})
    check(uri == 'app://s/a/b%20c?q=x%26y&page=2', 'expand: %r' % uri)
    check(search.expand(None) == 'app://s' and search.expand({}) == 'app://s', 'expand without values')
    try:
        search.expand({'q': [['nested']]})
        check(False, 'expand took a list of lists')
    except GLib.Error as error:
        check(error.matches(Snodo.error_quark(), Snodo.Error.INVALID_SCHEMA), 'expand error: %s' % error)

    # What the four description types share, through their base.
    icons = [{'src': 'https://example.org/i.png'}]
    for description in (Snodo.Tool.new('t', None), Snodo.Resource.new('app://r', 'r'),
                        Snodo.ResourceTemplate.new('app://r/{x}', 'r'), Snodo.Prompt.new('p', None)):
        kind = type(description).__name__
        check(isinstance(description, Snodo.Description), '%s is a Snodo.Description' % kind)
        notified = []
        description.connect('notify::title', lambda *_: notified.append(True))
        Snodo.Description.set_title(description, 'Title')
        description.set_title('Title')
        check(description.get_title() == 'Title' and description.props.title == 'Title' and notified == [True],
              '%s: the title through the base, notified once: %r' % (kind, notified))
        Snodo.Description.set_icons(description, icons)
        check(description.get_icons() == icons and Snodo.Description.get_icons(description) == icons,
              '%s: icons through the base: %r' % (kind, description.get_icons()))
        check(Snodo.Description.get_name(description) == description.props.name,
              '%s: the name through the base' % kind)
        meta = {'com.example/k': [1, {'x': None}], 'ui': {'resourceUri': 'ui://a/b'}}
        description.set_meta(meta)
        check(description.get_meta() == meta and Snodo.Description.get_meta(description) == meta,
              '%s: _meta through the base: %r' % (kind, description.get_meta()))
        description.set_meta(None)
        check(description.get_meta() is None, '%s: _meta removed' % kind)

    server = Snodo.Server.new('ext', '1')
    check(server.add_extension('com.example/e') and server.get_extension('com.example/e') == {},
          'an extension with no settings')
    check(server.get_extension('com.example/none') is None, 'no such extension')
    for name, settings in (('no-prefix', None), ('com.example/e', None), ('com.example/f', [1])):
        try:
            server.add_extension(name, settings)
            check(False, 'the extension %r %r was added' % (name, settings))
        except GLib.Error:
            pass
    tool = Snodo.Tool.new('t', None)
    tool.set_meta({'io.modelcontextprotocol/mine': 1})
    try:
        server.add_tool(tool, lambda inv: inv.return_text('never'))
        check(False, 'a _meta key of a reserved prefix was accepted')
    except GLib.Error as error:
        check('reserved' in error.message, 'reserved prefix: %s' % error.message)
    try:
        server.add_app(Snodo.Tool.new('t', None), Snodo.Resource.new('ui://v', 'v'), '<html></html>',
                       {'visibility': ['everyone']})
        check(False, 'a visibility of nobody was accepted')
    except GLib.Error:
        pass

    try:
        Snodo.Description()
        check(False, 'the abstract Snodo.Description was made')
    except (TypeError, NotImplementedError):
        pass


def start_http():
    """Starts a server on a free port and keeps no reference to it."""
    transport = Snodo.HttpTransport.new(make_server())
    transport.listen_local(0)
    return transport.get_port()


def check_http():
    port = start_http()
    gc.collect()
    loop = GLib.MainLoop()
    outcome = []

    def client():
        body = json.dumps(call(1, 'shout', {'text': 'over http'})).encode()
        headers = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
                   'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'shout'}
        try:
            req = urllib.request.Request('http://127.0.0.1:%d/mcp' % port, body, headers)
            with urllib.request.urlopen(req, timeout=20) as response:
                outcome.append(json.loads(response.read()))
        except Exception as error:  # noqa: BLE001
            outcome.append(error)
        GLib.idle_add(loop.quit)

    threading.Thread(target=client, daemon=True).start()
    GLib.timeout_add_seconds(30, loop.quit)
    loop.run()
    answer = outcome[0] if outcome else None
    check(isinstance(answer, dict) and
          answer.get('result', {}).get('content') == [{'type': 'text', 'text': 'OVER HTTP'}],
          'the HTTP transport kept serving after its function returned: %r' % (answer,))


def check_run_in_thread():
    # A Python callback cannot run on a worker thread: refused when added.
    server = Snodo.Server.new('threads', '1')
    tool = Snodo.Tool.new('blocking', 'Would block')
    tool.set_run_in_thread(True)
    try:
        server.add_tool(tool, lambda inv: inv.return_text('never'))
        check(False, 'a run-in-thread tool with a Python handler was added')
    except GLib.Error as error:
        check('not a C function' in error.message, 'run-in-thread refused: %s' % error.message)
    check(server.lookup_tool('blocking') is None, 'the refused tool is not registered')


def serve_tasks():
    """A Python tool whose calls run as tasks when the client can take one."""
    server = Snodo.Server.new('py-tasks', '1')
    server.enable_tasks(None)
    tool = Snodo.Tool.new('later', 'Answers after a moment, saying whether it ran as a task')
    tool.props.task_support = Snodo.TaskSupport.OPTIONAL

    def later(inv):
        def answer():
            inv.return_text('task' if inv.is_task() else 'plain')
            return GLib.SOURCE_REMOVE
        GLib.timeout_add(10, answer)
    server.add_tool(tool, later)
    transport = Snodo.StdioTransport.new_for_stdio(server)
    loop = GLib.MainLoop()
    transport.connect('closed', lambda _t, error: loop.quit())
    transport.start()
    loop.run()


def check_tasks():
    tool = Snodo.Tool.new('t', None)
    check(tool.get_task_support() == Snodo.TaskSupport.FORBIDDEN, 'task support is forbidden by default')
    tool.set_task_support(Snodo.TaskSupport.REQUIRED)
    check(tool.props.task_support == Snodo.TaskSupport.REQUIRED, 'task support set from Python')

    child = subprocess.Popen([sys.executable, __file__, 'serve-tasks'], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    tasks_meta = dict(META, **{'io.modelcontextprotocol/clientCapabilities': {
        'extensions': {'io.modelcontextprotocol/tasks': {}}}})

    def ask(message):
        child.stdin.write(json.dumps(message) + '\n')
        child.stdin.flush()
        return json.loads(child.stdout.readline())

    plain = ask(call(1, 'later', {}))
    check(plain.get('result', {}).get('content') == [{'type': 'text', 'text': 'plain'}],
          'a plain call of a task tool: %r' % plain)
    created = ask({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
                   'params': {'name': 'later', 'arguments': {}, '_meta': tasks_meta}})
    task_id = created.get('result', {}).get('taskId')
    check(created.get('result', {}).get('resultType') == 'task' and task_id, 'a task: %r' % created)
    status = None
    for i in range(200):
        got = ask({'jsonrpc': '2.0', 'id': 3 + i, 'method': 'tasks/get',
                   'params': {'taskId': task_id, '_meta': tasks_meta}})
        status = got.get('result', {}).get('status')
        if status == 'completed':
            check(got['result'].get('result', {}).get('content') == [{'type': 'text', 'text': 'task'}],
                  'the task\'s result: %r' % got)
            break
        time.sleep(0.02)
    check(status == 'completed', 'the task completed: %r' % status)
    child.stdin.close()
    check(child.wait(timeout=30) == 0, 'the tasks server exited 0')


def main():
    if sys.argv[1:] == ['serve']:
        serve()
        return
    if sys.argv[1:] == ['serve-tasks']:
        serve_tasks()
        return
    check_values()
    check_run_in_thread()
    check_stdio()
    check_tasks()
    check_http()
    if failures:
        sys.exit(1)
    print('ok - native JSON, failing handlers and a kept-alive HTTP transport from Python')


if __name__ == '__main__':
    main()
