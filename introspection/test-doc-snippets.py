#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-doc-snippets.py SNODO-SRCDIR
#
# Runs the Python and JavaScript examples of the class documentation (the
# ```python and ```js blocks of each class's doc comment) against the
# typelib, so that they stay right as the API changes. A complete example
# (one that imports gi itself) runs as it is; a fragment gets the imports
# and a `server` before it and, unless it runs a main loop itself, a stdio
# transport after it. Each is then sent a short exchange on standard input
# and must give the expected answer; the HTTP examples print their URI and
# are sent a request over HTTP.

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

PY_PRELUDE = '''import json
import sys

import gi
gi.require_version('Json', '1.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Json, Snodo

server = Snodo.Server.new('doc-example', '1.0')
'''
PY_EPILOGUE = '''
_transport = Snodo.StdioTransport.new_for_stdio(server)
_loop = GLib.MainLoop()
_transport.connect('closed', lambda *_: _loop.quit())
_transport.start()
_loop.run()
'''
JS_PRELUDE = '''import GLib from 'gi://GLib';
import Json from 'gi://Json';
import Snodo from 'gi://Snodo?version=1';

const server = Snodo.Server.new('doc-example', '1.0');
'''
JS_EPILOGUE = '''
const _transport = Snodo.StdioTransport.new_for_stdio(server);
const _loop = new GLib.MainLoop(null, false);
_transport.connect('closed', () => _loop.quit());
_transport.start();
_loop.run();
'''


def call(method, params):
    return {'jsonrpc': '2.0', 'id': 2, 'method': method, 'params': params}


# class: (request, text the answer must contain)
EXCHANGES = {
    'SnodoServer': (call('tools/call', {'name': 'echo', 'arguments': {'text': 'hello'}}), '"hello"'),
    'SnodoDescription': (call('tools/list', {}), '"title":"Notes: today"'),
    'SnodoTool': (call('tools/call', {'name': 'add', 'arguments': {'a': 2, 'b': 40}}), '"42"'),
    'SnodoInvocation': (call('tools/call', {'name': 'slow-echo', 'arguments': {'text': 'later'},
                                            '_meta': {'progressToken': 7}}), '"later"'),
    'SnodoStdioTransport': (call('ping', {}), '"result":{}'),
    'SnodoResource': (call('resources/read', {'uri': 'app://readme'}), '"# My app"'),
    'SnodoResourceTemplate': (call('resources/read', {'uri': 'app://notes/monday'}),
                              '"Notes of monday"'),
    'SnodoPrompt': (call('prompts/get', {'name': 'review', 'arguments': {'change': 'v2'}}),
                    '"Please review v2"'),
    'SnodoHttpTransport': None,
    # HTTP with a bearer token: the headers the request carries.
    'SnodoHttpAuthorization': {'Authorization': 'Bearer example-token'},
}

INITIALIZE = [
    {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
     'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                'clientInfo': {'name': 'doc-test', 'version': '1'}}},
    {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
]

failures = 0
reports = 0


def report(ok, message):
    global failures, reports
    reports += 1
    if not ok:
        failures += 1
    print('%s - %s' % ('ok' if ok else 'not ok', message))


def class_comments(srcdir):
    """Yields (class name, text of its doc comment without the ' * ' margin)."""
    paths = []
    for folder, _, names in os.walk(srcdir):
        paths += [os.path.join(folder, name) for name in names if name.endswith('.c')]
    for path in sorted(paths):
        with open(path, encoding='utf-8') as f:
            source = f.read()
        for match in re.finditer(r'/\*\*\n \* (Snodo[A-Za-z]+):\n(.*?)\n \*/', source, re.DOTALL):
            text = '\n'.join(re.sub(r'^ \*( |$)', '', line) for line in match.group(2).split('\n'))
            yield match.group(1), text


def program(language, snippet):
    if language == 'python':
        complete = 'import gi' in snippet
        prelude, epilogue = PY_PRELUDE, PY_EPILOGUE
    else:
        complete = "from 'gi://" in snippet
        prelude, epilogue = JS_PRELUDE, JS_EPILOGUE
    if complete:
        return snippet
    return prelude + snippet + ('' if '.run()' in snippet else epilogue)


def command(language, path):
    if language == 'python':
        return ['/usr/bin/python3', path]
    return [shutil.which('gjs'), '-m', path]


def run_stdio(cls, language, path):
    request, expected = EXCHANGES[cls]
    lines = ''.join(json.dumps(m) + '\n' for m in INITIALIZE + [request])
    result = subprocess.run(command(language, path), input=lines, capture_output=True,
                            text=True, timeout=30)
    answer = next((line for line in result.stdout.splitlines() if '"id":2' in line), '')
    if result.stderr:
        answer += ' (standard error: %s)' % result.stderr.strip()[-500:]
    report(result.returncode == 0 and expected in answer and not result.stderr,
           '%s %s: %s' % (cls, language, answer or result.stderr.strip()[-500:]))


def run_http(cls, language, path, headers=None):
    process = subprocess.Popen(command(language, path), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    try:
        uri = process.stdout.readline().strip()
        body = json.dumps(INITIALIZE[0]).encode()
        request = urllib.request.Request(uri, data=body, method='POST', headers={
            'Content-Type': 'application/json',
            'Accept': 'application/json, text/event-stream', **(headers or {})})
        with urllib.request.urlopen(request, timeout=20) as response:
            answer = response.read().decode()
        report('"serverInfo"' in answer, '%s %s: %s answered %s' % (cls, language, uri, answer))
    except (OSError, ValueError) as e:
        report(False, '%s %s: %s (%s)' % (cls, language, e, process.stderr.read() if process.poll() is not None else ''))
    finally:
        process.terminate()
        process.wait(timeout=10)


def main():
    srcdir = sys.argv[1]
    seen = set()
    with tempfile.TemporaryDirectory() as tmp:
        for cls, text in class_comments(srcdir):
            for language, snippet in re.findall(r'```(python|js)\n(.*?)```', text, re.DOTALL):
                if cls not in EXCHANGES:
                    report(False, '%s has a %s example this test does not know how to run' % (cls, language))
                    continue
                seen.add((cls, language))
                path = os.path.join(tmp, '%s.%s' % (cls, 'py' if language == 'python' else 'js'))
                with open(path, 'w', encoding='utf-8') as f:
                    f.write(program(language, snippet))
                if EXCHANGES[cls] is None or isinstance(EXCHANGES[cls], dict):
                    run_http(cls, language, path, EXCHANGES[cls])
                else:
                    run_stdio(cls, language, path)
    for cls in EXCHANGES:
        for language in ('python', 'js'):
            if (cls, language) not in seen:
                report(False, '%s has no %s example' % (cls, language))
    print('1..%d' % reports)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
