#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# The short form of the Python overrides (gi/overrides/_snodo): tools,
# resources and prompts from functions. Tables of annotation -> schema,
# return value -> result and failure -> answer, checked over a real pipe;
# the Context (progress, log, elicitation, cancellation) and coroutines on
# the main loop; registration errors.
#
#   test-functions.py          runs the checks; starts itself as a server
#   test-functions.py serve    the server, on standard input and output

import dataclasses
import enum
import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import typing
import urllib.request
from typing import Annotated, Literal, Optional, TypedDict

import gi

gi.require_version('Snodo', '1')
from gi.repository import Snodo  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('not ok - ' + message)


class Color(enum.Enum):
    RED = 'red'
    GREEN = 'green'


class Level(enum.Enum):
    LOW = 1
    HIGH = 2


class Movie(TypedDict):
    title: str
    year: int


class Partial(TypedDict, total=False):
    note: str


@dataclasses.dataclass
class Point:
    x: float
    y: float
    label: str = 'origin'


@dataclasses.dataclass
class Stats:
    n: int
    mean: float


# (annotation, schema): every supported annotation, as one parameter 'v'.
SCHEMAS = [
    (str, {'type': 'string'}),
    (int, {'type': 'integer'}),
    (float, {'type': 'number'}),
    (bool, {'type': 'boolean'}),
    (None, {'type': 'null'}),
    (list, {'type': 'array'}),
    (list[int], {'type': 'array', 'items': {'type': 'integer'}}),
    (typing.List[str], {'type': 'array', 'items': {'type': 'string'}}),
    (tuple[int, str], {'type': 'array', 'prefixItems': [{'type': 'integer'}, {'type': 'string'}],
                       'minItems': 2, 'maxItems': 2}),
    (tuple[float, ...], {'type': 'array', 'items': {'type': 'number'}}),
    (dict, {'type': 'object'}),
    (dict[str, int], {'type': 'object', 'additionalProperties': {'type': 'integer'}}),
    (int | None, {'anyOf': [{'type': 'integer'}, {'type': 'null'}]}),
    (Optional[str], {'anyOf': [{'type': 'string'}, {'type': 'null'}]}),
    (int | str, {'anyOf': [{'type': 'integer'}, {'type': 'string'}]}),
    (Literal['a', 'b'], {'type': 'string', 'enum': ['a', 'b']}),
    (Literal[1, 'x'], {'enum': [1, 'x']}),
    (Color, {'type': 'string', 'enum': ['red', 'green']}),
    (Level, {'type': 'integer', 'enum': [1, 2]}),
    (Movie, {'type': 'object', 'properties': {'title': {'type': 'string'}, 'year': {'type': 'integer'}},
             'required': ['title', 'year']}),
    (Partial, {'type': 'object', 'properties': {'note': {'type': 'string'}}}),
    (Point, {'type': 'object', 'properties': {'x': {'type': 'number'}, 'y': {'type': 'number'},
                                              'label': {'type': 'string', 'default': 'origin'}},
             'required': ['x', 'y']}),
    (Annotated[int, 'How many'], {'type': 'integer', 'description': 'How many'}),
    (Annotated[int, {'minimum': 0}], {'type': 'integer', 'minimum': 0}),
    (typing.Any, {}),
]


def schema_tool_name(i):
    return 'schema%d' % i


def make_server():
    server = Snodo.Server.new('py-functions', '1.0')

    # One tool per row of SCHEMAS; each returns what it was given, as
    # Python sees it (type name and JSON form).
    def echo_of(annotation):
        def echo(v):
            return {'type': type(v).__name__, 'value': Snodo_to_json(v)}
        echo.__annotations__ = {'v': annotation}
        return echo
    for i, (annotation, _schema) in enumerate(SCHEMAS):
        server.tool(echo_of(annotation), name=schema_tool_name(i))

    @server.tool()
    def untyped(v, w=3):
        """Takes anything.

        Args:
            v: Any JSON value
               at all.
            w: A count.
        """
        return {'v': v, 'w': w}

    @server.tool(title='Adds', annotations={'readOnlyHint': True})
    def add(a: int, b: Annotated[float, 'The second'] = 0.5) -> float:
        """Adds two numbers.

        Returns the sum; this paragraph is not the description.
        """
        return a + b

    # Return values.
    returns = {
        'r_str': lambda: 'text',
        'r_int': lambda: 42,
        'r_float': lambda: 2.5,
        'r_bool': lambda: True,
        'r_none': lambda: None,
        'r_dict': lambda: {'a': [1, None]},
        'r_list': lambda: [1, 'two'],
        'r_image': lambda: Snodo.Image(b'\x89PNG', 'image/png'),
        'r_audio': lambda: Snodo.Audio(b'RIFF', 'audio/wav'),
        'r_resource': lambda: Snodo.EmbeddedResource('demo://a', text='A', mime_type='text/plain'),
        'r_blocks': lambda: [Snodo.Text('one'), Snodo.ResourceLink('demo://b', 'b')],
        'r_bytes': lambda: b'raw',
    }
    for name, func in returns.items():
        server.tool(func, name=name)

    @server.tool()
    def r_dataclass(n: int) -> Stats:
        """Statistics."""
        return Stats(n, n / 2)

    @server.tool()
    def r_typeddict() -> Movie:
        return {'title': 'Alien', 'year': 1979}

    @server.tool()
    def r_wrong() -> Stats:
        return {'n': 'not a number', 'mean': 0.0}

    # Arguments converted to the annotated types.
    @server.tool()
    def convert(p: Point, c: Color, lv: Level, t: tuple[int, str], n: int, f: float,
                o: Optional[Point] = None, m: list[Movie] = ()):
        return {'p': repr(p), 'c': repr(c), 'lv': repr(lv), 't': repr(t), 'n': repr(n), 'f': repr(f),
                'o': repr(o), 'm': repr(m)}

    # Failures.
    @server.tool()
    def fails_tool_error():
        raise Snodo.ToolError('no such city')

    @server.tool()
    def fails_other(x: int = 0):
        return {}['missing']

    @server.tool()
    async def fails_async():
        await Snodo.sleep(1)
        raise Snodo.ToolError('later, no')

    # The Context, and coroutines.
    @server.tool()
    def progress(ctx: Snodo.Context, steps: int = 3) -> str:
        for step in range(1, steps + 1):
            ctx.report_progress(step, steps, 'step %d' % step)
        ctx.log('info', 'all %d done' % steps)
        ctx.log('warning', {'steps': steps})
        return 'done'

    @server.tool()
    async def slow(ms: int, ctx: Snodo.Context) -> str:
        ctx.report_progress(0, 2)
        await Snodo.sleep(ms)
        ctx.report_progress(1, 2)
        await Snodo.sleep(ms)
        return 'slept %d twice' % ms

    ended = {}

    @server.tool()
    async def cancellable(ctx: Snodo.Context) -> str:
        try:
            await Snodo.sleep(60000)
        except Snodo.Cancelled:
            ended['cancellable'] = 'cancelled'
            raise
        finally:
            ended.setdefault('cancellable', 'ended')
        return 'never'

    @server.tool(handler_timeout=200)
    async def too_slow() -> str:
        try:
            await Snodo.sleep(60000)
        except Snodo.Cancelled:
            ended['too_slow'] = 'cancelled'
            raise
        return 'never'

    @server.tool()
    def ended_how(which: str = 'cancellable') -> str:
        return ended.get(which, 'running')

    @server.tool()
    async def ask(ctx: Snodo.Context) -> str:
        answer = await ctx.elicit('Which point?', Point)
        if answer.action != 'accept':
            return answer.action
        return repr(answer.data)

    @server.tool()
    async def ask_name(ctx: Snodo.Context) -> str:
        answer = await ctx.elicit('Your name?', str)
        return 'Hello, %s' % answer.data if answer.action == 'accept' else answer.action

    @server.tool()
    async def ask_model(ctx: Snodo.Context) -> dict:
        roots = await ctx.list_roots()
        answer = await ctx.sample('Name a colour', max_tokens=5, system_prompt='Be brief')
        return {'roots': [root['uri'] for root in roots], 'said': answer['content']['text']}

    @server.tool()
    def whoami(ctx: Snodo.Context) -> dict:
        return {'principal': ctx.principal, 'scopes': ctx.scopes, 'cancelled': ctx.is_cancelled()}

    @server.tool()
    async def read_file(path: str) -> str:
        from gi.repository import Gio
        _ok, contents, _etag = await Snodo.call_async(Gio.File.new_for_path(path), 'load_contents_async')
        return contents.decode()

    @server.tool()
    async def not_snodo():
        import asyncio
        await asyncio.sleep(0)

    # Resources and prompts.
    @server.resource('demo://readme', mime_type='text/markdown')
    def readme() -> str:
        """The read-me."""
        return '# Demo'

    @server.resource('demo://notes/{id}')
    def note(id: int) -> dict:
        """A note by number."""
        return {'id': id, 'text': 'note %d' % id} if id < 10 else None

    @server.resource('demo://blob/{name}')
    async def blob(name: str):
        await Snodo.sleep(1)
        return name.encode()

    @server.prompt()
    def review(code: str, language: str = 'python') -> str:
        """Asks for a review.

        Args:
            code: The code to review
        """
        return 'Review this %s:\n%s' % (language, code)

    @server.prompt()
    def dialogue(topic: str):
        return [{'role': 'assistant', 'content': {'type': 'text', 'text': 'Ready.'}}, 'Talk about ' + topic]

    return server


def Snodo_to_json(value):
    if dataclasses.is_dataclass(value):
        return {'dataclass': type(value).__name__, **dataclasses.asdict(value)}
    if isinstance(value, enum.Enum):
        return {'enum': value.name}
    if isinstance(value, tuple):
        return {'tuple': list(value)}
    return value


def serve(argv):
    server = make_server()
    if os.environ.get('MASK_ERRORS'):
        server.set_mask_errors(True)
    sys.exit(server.run(argv=argv))


# FastMCP's hello world, line for line.
FASTMCP_HELLO = '''from gi.repository import Snodo

mcp = Snodo.Server.new("hello", "1.0")

@mcp.tool()
def greet(name: str) -> str:
    """Greets someone by name."""
    return f"Hello, {name}!"

mcp.run()
'''


def check_fastmcp_hello():
    with tempfile.NamedTemporaryFile('w', suffix='.py') as script:
        script.write(FASTMCP_HELLO)
        script.flush()
        peer = Peer(command=[sys.executable, script.name])
        answer = peer.initialize()
        check(answer.get('result', {}).get('serverInfo') == {'name': 'hello', 'version': '1.0'},
              'FastMCP hello: %r' % answer)
        answer = peer.request('tools/list')
        check(answer.get('result', {}).get('tools') == [{
            'name': 'greet', 'description': 'Greets someone by name.',
            'inputSchema': {'type': 'object', 'properties': {'name': {'type': 'string'}}, 'required': ['name']}}],
            'FastMCP hello tools: %r' % answer)
        answer = peer.call('greet', {'name': 'Ada'})
        check(answer.get('result') == {'content': [{'type': 'text', 'text': 'Hello, Ada!'}]},
              'FastMCP hello call: %r' % answer)
        check(peer.close() == 0, 'FastMCP hello exit status')


def post(uri, message, headers):
    request = urllib.request.Request(uri, json.dumps(message).encode(), dict({
        'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'}, **headers))
    with urllib.request.urlopen(request, timeout=20) as response:
        body = response.read().decode()
        if response.headers.get('Content-Type', '').startswith('text/event-stream'):
            body = [line[5:].strip() for line in body.splitlines() if line.startswith('data:')][-1]
        return response.headers, json.loads(body) if body else None


def check_doc_programs():
    """The complete servers of the short form in the Python/JS page and the
    README run, list their tool and answer a call."""
    here = os.path.dirname(os.path.abspath(__file__))
    gjs = shutil.which('gjs')
    found = 0
    for page in (os.path.join(here, 'python-and-javascript.md'), os.path.join(here, '..', 'README.md')):
        with open(page, encoding='utf-8') as f:
            text = f.read()
        for language, code in re.findall(r'```(python|js)\n(.*?)```', text, re.DOTALL):
            if '.run()' not in code or '.tool(' not in code:
                continue
            found += 1
            if language == 'js' and gjs is None:
                check(False, 'no gjs to run the JavaScript example of %s' % page)
                continue
            with tempfile.NamedTemporaryFile('w', suffix='.py' if language == 'python' else '.js') as program:
                program.write(code)
                program.flush()
                peer = Peer(command=[sys.executable, program.name] if language == 'python'
                            else [gjs, '-m', program.name])
                peer.initialize()
                tools = peer.request('tools/list').get('result', {}).get('tools', [])
                check(len(tools) == 1 and tools[0]['inputSchema'].get('required'),
                      '%s example of %s: %r' % (language, page, tools))
                if tools:
                    answer = peer.call(tools[0]['name'], {tools[0]['inputSchema']['required'][0]: 'Ada'})
                    check('ada' in (text_of(answer) or '').lower(),
                          '%s example of %s answered %r' % (language, page, answer))
                check(peer.close() == 0, '%s example of %s: exit status' % (language, page))
    check(found == 4, '%d complete examples in the pages, not 4' % found)


def check_http():
    child = subprocess.Popen([sys.executable, __file__, 'serve', '--http', '0'],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    try:
        uri = child.stdout.readline().strip()
        check(uri.startswith('http://127.0.0.1:') and uri.endswith('/mcp'), 'the URI printed: %r' % uri)
        # 2025-11-25: a session.
        headers, answer = post(uri, {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {
            'protocolVersion': '2025-11-25', 'capabilities': {}, 'clientInfo': {'name': 't', 'version': '1'}}}, {})
        session = {'Mcp-Session-Id': headers['Mcp-Session-Id'], 'MCP-Protocol-Version': '2025-11-25'}
        post(uri, {'jsonrpc': '2.0', 'method': 'notifications/initialized'}, session)
        _, answer = post(uri, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
                               'params': {'name': 'add', 'arguments': {'a': 1, 'b': 2}}}, session)
        check(answer.get('result') == {'content': [{'type': 'text', 'text': '3.0'}]}, 'HTTP 2025-11-25: %r' % answer)
        # 2026-07-28: stateless.
        meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientCapabilities': {}}
        _, answer = post(uri, {'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call', 'params': {
            'name': 'r_list', 'arguments': {}, '_meta': meta}},
            {'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'r_list'})
        result = answer.get('result', {})
        check(result.get('structuredContent') == [1, 'two'] and result.get('resultType') == 'complete',
              'HTTP 2026-07-28, an array as structuredContent: %r' % answer)
        child.send_signal(signal.SIGTERM)
        check(child.wait(timeout=20) == 0, 'exit status after SIGTERM')
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


class Peer:
    """The server, started on a pipe: send() a message, recv() the next."""

    def __init__(self, env=None, command=None):
        self.child = subprocess.Popen(command or [sys.executable, __file__, 'serve'], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                      env=dict(os.environ, **(env or {})))
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self.stderr.extend(self.child.stderr), daemon=True).start()
        self.next_id = 100

    def _read(self):
        for line in self.child.stdout:
            self.lines.put(json.loads(line))
        self.lines.put(None)

    def send(self, message):
        self.child.stdin.write(json.dumps(message) + '\n')
        self.child.stdin.flush()

    def recv(self, timeout=20):
        return self.lines.get(timeout=timeout)

    def request(self, method, params=None, notes=None):
        """Sends a request; returns its answer; notifications before it go
        to @notes."""
        self.next_id += 1
        id_ = self.next_id
        self.send({'jsonrpc': '2.0', 'id': id_, 'method': method, 'params': params or {}})
        while True:
            message = self.recv()
            if message is None:
                raise EOFError('the server ended')
            if message.get('id') == id_ and 'method' not in message:
                return message
            if notes is not None:
                notes.append(message)

    def initialize(self, capabilities=None):
        answer = self.request('initialize', {'protocolVersion': '2025-11-25',
                                             'capabilities': capabilities or {},
                                             'clientInfo': {'name': 'test', 'version': '1'}})
        self.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
        return answer

    def call(self, name, arguments=None, notes=None, meta=None):
        params = {'name': name, 'arguments': arguments or {}}
        if meta:
            params['_meta'] = meta
        return self.request('tools/call', params, notes)

    def close(self):
        self.child.stdin.close()
        status = self.child.wait(timeout=20)
        return status


def text_of(answer):
    return answer.get('result', {}).get('content', [{}])[0].get('text')


def check_schemas(peer, tools):
    for i, (annotation, schema) in enumerate(SCHEMAS):
        listed = tools.get(schema_tool_name(i), {}).get('inputSchema')
        expected = {'type': 'object', 'properties': {'v': schema}, 'required': ['v']}
        check(listed == expected, 'schema of %r: %r, not %r' % (annotation, listed, expected))
    check(tools['untyped'] == {
        'name': 'untyped', 'description': 'Takes anything.',
        'inputSchema': {'type': 'object', 'properties': {
            'v': {'description': 'Any JSON value at all.'},
            'w': {'description': 'A count.', 'default': 3}}, 'required': ['v']}},
        'untyped: %r' % tools['untyped'])
    check(tools['add'] == {
        'name': 'add', 'title': 'Adds', 'description': 'Adds two numbers.',
        'inputSchema': {'type': 'object', 'properties': {
            'a': {'type': 'integer'},
            'b': {'type': 'number', 'description': 'The second', 'default': 0.5}}, 'required': ['a']},
        'annotations': {'readOnlyHint': True}}, 'add: %r' % tools['add'])
    check(tools['r_dataclass'].get('outputSchema') == {
        'type': 'object', 'properties': {'n': {'type': 'integer'}, 'mean': {'type': 'number'}},
        'required': ['n', 'mean']}, 'dataclass output schema: %r' % tools['r_dataclass'])
    check(tools['r_typeddict'].get('outputSchema', {}).get('required') == ['title', 'year'],
          'TypedDict output schema: %r' % tools['r_typeddict'])
    check('outputSchema' not in tools['whoami'] or tools['whoami']['outputSchema'] == {'type': 'object'},
          'dict output schema: %r' % tools['whoami'])
    for name in ('progress', 'ask', 'whoami'):
        check('ctx' not in tools[name]['inputSchema'].get('properties', {}),
              'the Context is not in the schema of %s: %r' % (name, tools[name]))

    # Values as the function sees them, each row once.
    values = [('red', {'enum': 'RED'}), (3.0, 3), ([1, 'x'], {'tuple': [1, 'x']})]
    for (value, seen), index in zip(values, (17, 1, 8)):
        answer = peer.call(schema_tool_name(index), {'v': value})
        check(answer.get('result', {}).get('structuredContent', {}).get('value') == seen,
              'schema%d given %r: %r' % (index, value, answer))
    answer = peer.call(schema_tool_name(1), {'v': 2.5})
    check(answer.get('result', {}).get('isError') is True, 'a non-integral number for int: %r' % answer)


RESULTS = {
    'r_str': {'content': [{'type': 'text', 'text': 'text'}]},
    'r_int': {'content': [{'type': 'text', 'text': '42'}]},
    'r_float': {'content': [{'type': 'text', 'text': '2.5'}]},
    'r_bool': {'content': [{'type': 'text', 'text': 'true'}]},
    'r_none': {'content': []},
    'r_dict': {'content': [{'type': 'text', 'text': '{"a":[1,null]}'}], 'structuredContent': {'a': [1, None]}},
    # 2025-11-25: structuredContent is an object; an array is the text alone.
    'r_list': {'content': [{'type': 'text', 'text': '[1,"two"]'}]},
    'r_image': {'content': [{'type': 'image', 'data': 'iVBORw==', 'mimeType': 'image/png'}]},
    'r_audio': {'content': [{'type': 'audio', 'data': 'UklGRg==', 'mimeType': 'audio/wav'}]},
    'r_resource': {'content': [{'type': 'resource', 'resource': {'uri': 'demo://a', 'mimeType': 'text/plain',
                                                                 'text': 'A'}}]},
    'r_blocks': {'content': [{'type': 'text', 'text': 'one'},
                             {'type': 'resource_link', 'uri': 'demo://b', 'name': 'b'}]},
    'r_typeddict': {'content': [{'type': 'text', 'text': '{"title":"Alien","year":1979}'}],
                    'structuredContent': {'title': 'Alien', 'year': 1979}},
}


def check_results(peer):
    for name, expected in RESULTS.items():
        answer = peer.call(name)
        check(answer.get('result') == expected, '%s: %r, not %r' % (name, answer, expected))
    answer = peer.call('r_dataclass', {'n': 3})
    check(answer.get('result') == {'content': [{'type': 'text', 'text': '{"n":3,"mean":1.5}'}],
                                   'structuredContent': {'n': 3, 'mean': 1.5}}, 'dataclass: %r' % answer)
    answer = peer.call('r_bytes')
    check(answer.get('result', {}).get('isError') is True and 'TypeError' in text_of(answer),
          'bytes: %r' % answer)
    answer = peer.call('r_wrong')
    check(answer.get('result', {}).get('isError') is True, 'a result against its schema: %r' % answer)
    answer = peer.call('add', {'a': 2})
    check(answer.get('result') == {'content': [{'type': 'text', 'text': '2.5'}]}, 'a default: %r' % answer)

    answer = peer.call('convert', {'p': {'x': 1, 'y': 2.5}, 'c': 'green', 'lv': 2, 't': [1, 'a'], 'n': 4.0,
                                   'f': 3, 'o': None, 'm': [{'title': 'A', 'year': 1}]})
    check(answer.get('result', {}).get('structuredContent') == {
        'p': "Point(x=1.0, y=2.5, label='origin')", 'c': '<Color.GREEN: \'green\'>', 'lv': '<Level.HIGH: 2>',
        't': "(1, 'a')", 'n': '4', 'f': '3.0', 'o': 'None', 'm': "[{'title': 'A', 'year': 1}]"},
        'converted arguments: %r' % answer)
    answer = peer.call('convert', {'p': {'x': 1, 'y': 2}, 'c': 'green', 'lv': 2, 't': [1, 2], 'n': 4, 'f': 3})
    check(answer.get('result', {}).get('isError') is True and 't[1] must be a string' in text_of(answer),
          'a conversion that fails is an invalid-arguments result: %r' % answer)


def check_failures(peer, masked):
    answer = peer.call('fails_tool_error')
    check(answer.get('result') == {'content': [{'type': 'text', 'text': 'no such city'}], 'isError': True},
          'ToolError: %r' % answer)
    answer = peer.call('fails_other')
    expected = "The tool 'fails_other' failed" if masked else "KeyError: 'missing'"
    check(answer.get('result') == {'content': [{'type': 'text', 'text': expected}], 'isError': True},
          'another exception (masked: %s): %r' % (masked, answer))
    answer = peer.call('fails_async')
    check(answer.get('result') == {'content': [{'type': 'text', 'text': 'later, no'}], 'isError': True},
          'ToolError from a coroutine: %r' % answer)
    answer = peer.call('not_snodo')
    check(answer.get('result', {}).get('isError') is True or 'error' in answer,
          'awaiting asyncio fails: %r' % answer)
    answer = peer.call('nonesuch')
    check(answer.get('error', {}).get('code') == -32602, 'unknown tool: %r' % answer)
    answer = peer.call('add', {'a': 'two'})
    check(answer.get('result', {}).get('isError') is True and
          text_of(answer).startswith('Invalid arguments'), 'bad arguments: %r' % answer)


def check_context(peer):
    notes = []
    answer = peer.call('progress', {'steps': 2}, notes, meta={'progressToken': 'p1'})
    check(text_of(answer) == 'done', 'progress: %r' % answer)
    check([(n['method'], n['params'].get('progress'), n['params'].get('total'), n['params'].get('message'))
           for n in notes if n['method'] == 'notifications/progress'] ==
          [('notifications/progress', 1, 2, 'step 1'), ('notifications/progress', 2, 2, 'step 2')],
          'progress notifications: %r' % notes)
    logs = [(n['params']['level'], n['params']['data']) for n in notes if n['method'] == 'notifications/message']
    check(logs == [('info', 'all 2 done'), ('warning', {'steps': 2})], 'log messages: %r' % logs)

    notes = []
    answer = peer.call('slow', {'ms': 10}, notes, meta={'progressToken': 7})
    check(text_of(answer) == 'slept 10 twice', 'an async tool: %r' % answer)
    check([n['params']['progress'] for n in notes] == [0, 1], 'async progress: %r' % notes)

    # Two at once: coroutines interleave on the one main loop.
    peer.send({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {'name': 'slow', 'arguments': {'ms': 300}}})
    peer.send({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {'name': 'slow', 'arguments': {'ms': 1}}})
    first, second = peer.recv(), peer.recv()
    check(first.get('id') == 2 and second.get('id') == 1, 'the quick one answered first: %r %r' % (first, second))

    # Cancelled while it awaits: Cancelled raised in the coroutine.
    peer.send({'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call', 'params': {'name': 'cancellable', 'arguments': {}}})
    answer = peer.call('ended_how')
    check(text_of(answer) == 'running', 'still running: %r' % answer)
    peer.send({'jsonrpc': '2.0', 'method': 'notifications/cancelled', 'params': {'requestId': 3}})
    for _ in range(50):
        answer = peer.call('ended_how')
        if text_of(answer) != 'running':
            break
        time.sleep(0.05)
    check(text_of(answer) == 'cancelled', 'the cancelled coroutine ended with Cancelled: %r' % answer)

    with tempfile.NamedTemporaryFile('w', suffix='.txt') as f:
        f.write('read on the main loop')
        f.flush()
        answer = peer.call('read_file', {'path': f.name})
    check(text_of(answer) == 'read on the main loop', 'Snodo.call_async() of a GIO method: %r' % answer)
    answer = peer.call('read_file', {'path': '/nonexistent/file'})
    check(answer.get('result', {}).get('isError') is True and 'No such file' in text_of(answer),
          'its error raised in the coroutine: %r' % answer)

    # A handler timeout cancels the coroutine too.
    answer = peer.call('too_slow')
    check(answer.get('error', {}).get('code') == -32603, 'past its handler timeout: %r' % answer)
    for _ in range(50):
        answer = peer.call('ended_how', {'which': 'too_slow'})
        if text_of(answer) != 'running':
            break
        time.sleep(0.05)
    check(text_of(answer) == 'cancelled', 'the coroutine past its timeout ended with Cancelled: %r' % answer)

    answer = peer.call('whoami')
    check(answer.get('result', {}).get('structuredContent') == {'principal': None, 'scopes': [], 'cancelled': False},
          'principal, scopes: %r' % answer)

    # Elicitation: the server asks, the test answers as a client would.
    for name, content, expected in (('ask', {'x': 1, 'y': 2}, "Point(x=1.0, y=2.0, label='origin')"),
                                    ('ask_name', {'value': 'Ada'}, 'Hello, Ada'),
                                    ('ask', None, 'decline')):
        peer.send({'jsonrpc': '2.0', 'id': 4, 'method': 'tools/call', 'params': {'name': name, 'arguments': {}}})
        question = peer.recv()
        check(question.get('method') == 'elicitation/create', 'elicitation asked: %r' % question)
        schema = question.get('params', {}).get('requestedSchema', {})
        if name == 'ask':
            check(schema.get('required') == ['x', 'y'], 'the dataclass asked for: %r' % schema)
        else:
            check(schema == {'type': 'object', 'properties': {'value': {'type': 'string'}}, 'required': ['value']},
                  'a str asked for as value: %r' % schema)
        answer = {'action': 'accept', 'content': content} if content else {'action': 'decline'}
        peer.send({'jsonrpc': '2.0', 'id': question.get('id'), 'result': answer})
        answer = peer.recv()
        check(answer.get('id') == 4 and text_of(answer) == expected, 'elicited %s: %r' % (name, answer))


def check_input_required():
    """2026-07-28: an elicitation is an input_required answer; the call
    sent again with the answer runs the function again, which gets it."""
    peer = Peer()
    meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {'elicitation': {}}}
    answer = peer.request('tools/call', {'name': 'ask_name', 'arguments': {}, '_meta': meta})
    result = answer.get('result', {})
    check(result.get('resultType') == 'input_required' and
          result.get('inputRequests', {}).get('elicit-1', {}).get('method') == 'elicitation/create',
          'input_required in 2026-07-28: %r' % answer)
    answer = peer.request('tools/call', {
        'name': 'ask_name', 'arguments': {}, '_meta': meta, 'requestState': result.get('requestState'),
        'inputResponses': {'elicit-1': {'action': 'accept', 'content': {'value': 'Grace'}}}})
    check(text_of(answer) == 'Hello, Grace', 'the call sent again with the answer: %r' % answer)
    check(peer.close() == 0, 'exit status (2026-07-28)')


def check_sampling_roots(peer):
    peer.send({'jsonrpc': '2.0', 'id': 5, 'method': 'tools/call', 'params': {'name': 'ask_model', 'arguments': {}}})
    question = peer.recv()
    check(question.get('method') == 'roots/list', 'roots asked: %r' % question)
    peer.send({'jsonrpc': '2.0', 'id': question.get('id'), 'result': {'roots': [{'uri': 'file:///src'}]}})
    question = peer.recv()
    check(question.get('method') == 'sampling/createMessage' and question.get('params') == {
        'messages': [{'role': 'user', 'content': {'type': 'text', 'text': 'Name a colour'}}],
        'maxTokens': 5, 'systemPrompt': 'Be brief'}, 'sampling asked: %r' % question)
    peer.send({'jsonrpc': '2.0', 'id': question.get('id'), 'result': {
        'role': 'assistant', 'model': 'm', 'content': {'type': 'text', 'text': 'teal'}}})
    answer = peer.recv()
    check(answer.get('id') == 5 and answer.get('result', {}).get('structuredContent') == {
        'roots': ['file:///src'], 'said': 'teal'}, 'roots and sampling: %r' % answer)


def check_resources_prompts(peer, language='python'):
    answer = peer.request('resources/list')
    check(answer.get('result', {}).get('resources') == [
        {'uri': 'demo://readme', 'name': 'readme', 'description': 'The read-me.', 'mimeType': 'text/markdown'}],
        'resources: %r' % answer)
    answer = peer.request('resources/templates/list')
    templates = {t['uriTemplate']: t for t in answer.get('result', {}).get('resourceTemplates', [])}
    check(templates.get('demo://notes/{id}') == {'uriTemplate': 'demo://notes/{id}', 'name': 'note',
                                                 'description': 'A note by number.'},
          'templates: %r' % answer)
    answer = peer.request('resources/read', {'uri': 'demo://readme'})
    check(answer.get('result', {}).get('contents') == [{'uri': 'demo://readme', 'mimeType': 'text/markdown',
                                                        'text': '# Demo'}], 'readme: %r' % answer)
    answer = peer.request('resources/read', {'uri': 'demo://notes/4'})
    check(answer.get('result', {}).get('contents') == [{'uri': 'demo://notes/4', 'mimeType': 'application/json',
                                                        'text': '{"id":4,"text":"note 4"}'}],
          'a template, its variable an int: %r' % answer)
    for uri in ('demo://notes/12', 'demo://notes/x'):
        answer = peer.request('resources/read', {'uri': uri})
        check(answer.get('error', {}).get('code') in (-32002, -32602), 'not found %s: %r' % (uri, answer))
    answer = peer.request('resources/read', {'uri': 'demo://blob/abc'})
    check(answer.get('result', {}).get('contents') == [{'uri': 'demo://blob/abc',
                                                        'mimeType': 'application/octet-stream', 'blob': 'YWJj'}],
          'bytes from an async resource: %r' % answer)

    answer = peer.request('prompts/list')
    prompts = {p['name']: p for p in answer.get('result', {}).get('prompts', [])}
    check(prompts.get('review') == {'name': 'review', 'description': 'Asks for a review.', 'arguments': [
        {'name': 'code', 'description': 'The code to review', 'required': True},
        {'name': 'language'}]}, 'prompt arguments: %r' % prompts)
    answer = peer.request('prompts/get', {'name': 'review', 'arguments': {'code': 'x = 1'}})
    check(answer.get('result', {}).get('messages') == [
        {'role': 'user', 'content': {'type': 'text', 'text': 'Review this %s:\nx = 1' % language}}],
        'a str prompt: %r' % answer)
    answer = peer.request('prompts/get', {'name': 'dialogue', 'arguments': {'topic': 'GLib'}})
    check(answer.get('result', {}).get('messages') == [
        {'role': 'assistant', 'content': {'type': 'text', 'text': 'Ready.'}},
        {'role': 'user', 'content': {'type': 'text', 'text': 'Talk about GLib'}}], 'a list prompt: %r' % answer)


def check_registration():
    server = Snodo.Server.new('registration', '1.0')

    def bad_type(when: complex):
        pass

    def bad_nested(points: list[set]):
        pass

    def bad_key(d: dict[int, str]):
        pass

    def varargs(*names: str):
        pass

    for func, words in ((bad_type, "parameter 'when' of tool 'bad_type': the type complex has no JSON Schema"),
                        (bad_nested, "parameter 'points' of tool 'bad_nested'"),
                        (bad_key, "the keys of a JSON object are strings"),
                        (varargs, "*args and **kwargs")):
        try:
            server.tool(func)
            check(False, '%s was accepted' % func.__name__)
        except Snodo.SchemaError as error:
            check(words in str(error), 'the error names the parameter: %s' % error)
        check(server.lookup_tool(func.__name__) is None, '%s was not added' % func.__name__)
    try:
        server.tool(lambda: None, name='threaded', run_in_thread=True)
        check(False, 'run_in_thread accepted')
    except ValueError as error:
        check('main context' in str(error), 'run_in_thread refused: %s' % error)
    try:
        server.resource('demo://x/{id}', lambda name: name)
        check(False, 'a resource whose parameter is no variable was accepted')
    except Snodo.SchemaError as error:
        check('name' in str(error), 'resource parameters: %s' % error)
    # The forms: decorator with and without parentheses, and a plain call.
    server.tool(lambda: 'x', name='plain')

    @server.tool
    def bare():
        return 1
    check(server.lookup_tool('plain') is not None and server.lookup_tool('bare') is not None, 'tool forms')


# GJS: compact fields -> schemas, the rows of FIELDS in test-functions.js.
GJS_SCHEMAS = [
    ({'type': 'string'}, True), ({'type': 'number'}, True), ({'type': 'integer'}, True),
    ({'type': 'boolean'}, True), ({'type': 'array'}, True), ({'type': 'object'}, True),
    ({'type': 'null'}, True), ({}, True), ({'type': 'string'}, False),
    ({'type': 'array', 'items': {'type': 'integer'}}, True), ({'type': 'string', 'description': 'Who'}, True),
    ({'type': 'integer'}, False), ({'type': 'number', 'default': 1}, False), ({'enum': ['a', 'b']}, True),
]

GJS_RESULTS = dict(RESULTS, r_null={'content': []}, r_undefined={'content': []},
                   r_object=RESULTS['r_dict'], r_array=RESULTS['r_list'],
                   r_async={'content': [{'type': 'text', 'text': '{"later":true}'}],
                            'structuredContent': {'later': True}})
for _name in ('r_none', 'r_dict', 'r_list', 'r_typeddict'):
    del GJS_RESULTS[_name]


def check_gjs(gjs):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'test-functions.js')
    for masked in (False, True):
        peer = Peer({'MASK_ERRORS': '1'} if masked else {}, command=[gjs, '-m', script])
        answer = peer.initialize({'elicitation': {}, 'sampling': {}, 'roots': {}})
        check(answer.get('result', {}).get('serverInfo', {}).get('name') == 'gjs-functions', 'gjs: %r' % answer)
        answer = peer.call('fails_tool_error')
        check(answer.get('result') == {'content': [{'type': 'text', 'text': 'no such city'}], 'isError': True},
              'gjs ToolError: %r' % answer)
        for name, text in (('fails_other', 'RangeError: out of range'), ('fails_string', 'a string')):
            answer = peer.call(name)
            expected = "The tool '%s' failed" % name if masked else text
            check(answer.get('result') == {'content': [{'type': 'text', 'text': expected}], 'isError': True},
                  'gjs %s (masked: %s): %r' % (name, masked, answer))
        if masked:
            check(peer.close() == 0, 'gjs exit status (masked)')
            break
        answer = peer.call('fails_async')
        check(answer.get('result') == {'content': [{'type': 'text', 'text': 'later, no'}], 'isError': True},
              'gjs ToolError from an async function: %r' % answer)
        answer = peer.call('nonesuch')
        check(answer.get('error', {}).get('code') == -32602, 'gjs unknown tool: %r' % answer)
        answer = peer.call('add', {'a': 'two', 'b': 1})
        check(answer.get('result', {}).get('isError') is True and text_of(answer).startswith('Invalid arguments'),
              'gjs bad arguments: %r' % answer)

        tools = {t['name']: t for t in peer.request('tools/list').get('result', {}).get('tools', [])}
        for i, (schema, required) in enumerate(GJS_SCHEMAS):
            expected = {'type': 'object', 'properties': {'v': schema}}
            if required:
                expected['required'] = ['v']
            listed = tools.get('schema%d' % i, {}).get('inputSchema')
            check(listed == expected, 'gjs schema row %d: %r, not %r' % (i, listed, expected))
        check(tools['schema_full']['inputSchema'] == {'type': 'object', 'properties': {
            'n': {'type': 'integer', 'minimum': 0}}, 'required': ['n']}, 'gjs JSON Schema: %r' % tools['schema_full'])
        check(tools['add'] == {'name': 'add', 'title': 'Adds', 'inputSchema': {
            'type': 'object', 'properties': {'a': {'type': 'number'}, 'b': {'type': 'number'}}, 'required': ['a', 'b']},
            'outputSchema': {'type': 'object', 'properties': {'sum': {'type': 'number'}}, 'required': ['sum']},
            'annotations': {'readOnlyHint': True}}, 'gjs add: %r' % tools['add'])
        answer = peer.call('schema10', {'v': 'Ada'})
        check(answer.get('result', {}).get('structuredContent') == {'v': 'Ada'}, 'gjs arguments: %r' % answer)

        for name, expected in GJS_RESULTS.items():
            answer = peer.call(name)
            check(answer.get('result') == expected, 'gjs %s: %r, not %r' % (name, answer, expected))
        answer = peer.call('add', {'a': 2, 'b': 0.5})
        check(answer.get('result') == {'content': [{'type': 'text', 'text': '{"sum":2.5}'}],
                                       'structuredContent': {'sum': 2.5}}, 'gjs add: %r' % answer)
        for name in ('r_bytes', 'r_wrong'):
            answer = peer.call(name)
            check(answer.get('result', {}).get('isError') is True, 'gjs %s: %r' % (name, answer))

        notes = []
        answer = peer.call('progress', {'steps': 2}, notes, meta={'progressToken': 'p1'})
        check(text_of(answer) == 'done', 'gjs progress: %r' % answer)
        check([(n['params'].get('progress'), n['params'].get('total'), n['params'].get('message'))
               for n in notes if n['method'] == 'notifications/progress'] == [(1, 2, 'step 1'), (2, 2, 'step 2')],
              'gjs progress notifications: %r' % notes)
        check([(n['params']['level'], n['params']['data']) for n in notes if n['method'] == 'notifications/message']
              == [('info', 'all 2 done'), ('warning', {'steps': 2})], 'gjs log messages: %r' % notes)
        peer.send({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {'name': 'slow', 'arguments': {'ms': 300}}})
        peer.send({'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call', 'params': {'name': 'slow', 'arguments': {'ms': 1}}})
        first, second = peer.recv(), peer.recv()
        check(first.get('id') == 2 and text_of(second) == 'slept 300 twice', 'gjs async: %r %r' % (first, second))
        peer.send({'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call', 'params': {'name': 'cancellable', 'arguments': {}}})
        check(text_of(peer.call('ended_how')) == 'running', 'gjs still running')
        peer.send({'jsonrpc': '2.0', 'method': 'notifications/cancelled', 'params': {'requestId': 3}})
        for _ in range(50):
            answer = peer.call('ended_how')
            if text_of(answer) != 'running':
                break
            time.sleep(0.05)
        check(text_of(answer) == 'cancelled', 'gjs: the cancelled function ended with Cancelled: %r' % answer)
        answer = peer.call('whoami')
        check(answer.get('result', {}).get('structuredContent') == {'principal': None, 'scopes': [],
                                                                   'cancelled': False}, 'gjs whoami: %r' % answer)
        peer.send({'jsonrpc': '2.0', 'id': 4, 'method': 'tools/call', 'params': {'name': 'ask', 'arguments': {}}})
        question = peer.recv()
        check(question.get('params', {}).get('requestedSchema') == {
            'type': 'object', 'properties': {'sure': {'type': 'boolean'}, 'why': {'type': 'string'}},
            'required': ['sure']}, 'gjs elicitation: %r' % question)
        peer.send({'jsonrpc': '2.0', 'id': question.get('id'), 'result': {'action': 'accept',
                                                                         'content': {'sure': True}}})
        answer = peer.recv()
        check(text_of(answer) == 'sure: true', 'gjs elicited: %r' % answer)

        check_sampling_roots(peer)
        check_resources_prompts(peer, 'javascript')
        check(peer.close() == 0, 'gjs exit status at the end of input')


def main():
    if sys.argv[1:2] == ['--gjs']:
        check_gjs(sys.argv[2])
        if failures:
            print('%d failures' % len(failures))
            sys.exit(1)
        print('ok - JavaScript functions as tools, resources and prompts')
        return
    check_registration()

    peer = Peer()
    answer = peer.initialize({'elicitation': {}, 'sampling': {}, 'roots': {}})
    check(answer.get('result', {}).get('serverInfo', {}).get('name') == 'py-functions', 'initialize: %r' % answer)
    tools = {t['name']: t for t in peer.request('tools/list').get('result', {}).get('tools', [])}
    check_schemas(peer, tools)
    check_results(peer)
    check_failures(peer, masked=False)
    check_context(peer)
    check_sampling_roots(peer)
    check_resources_prompts(peer)
    status = peer.close()
    check(status == 0, 'exit status %r at the end of input' % status)
    stderr = ''.join(peer.stderr)
    check("Traceback" in stderr and "KeyError: 'missing'" in stderr, 'the traceback on stderr: %r' % stderr[-800:])

    peer = Peer({'MASK_ERRORS': '1'})
    peer.initialize()
    check_failures(peer, masked=True)
    check(peer.close() == 0, 'exit status of the masking server')

    check_input_required()
    check_fastmcp_hello()
    check_doc_programs()
    check_http()

    if failures:
        print('%d failures' % len(failures))
        sys.exit(1)
    print('ok - Python functions as tools, resources and prompts')


if __name__ == '__main__':
    if sys.argv[1:2] == ['serve']:
        serve(sys.argv[2:])
    else:
        main()
