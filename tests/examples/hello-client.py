#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Drives one of the hello examples (examples/hello.c, hello.py, hello.js)
# the way an MCP client does, through real pipes: initialize, tools/list,
# tools/call, then the end of input, after which the server must exit 0.
# Output is TAP.
#
#   hello-client.py SERVER-NAME COMMAND [ARG...]

import json
import queue
import subprocess
import sys
import threading

TIMEOUT = 20


class Failed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise Failed(message)


def main():
    if len(sys.argv) < 3:
        print('usage: hello-client.py SERVER-NAME COMMAND [ARG...]', file=sys.stderr)
        return 2
    server_name = sys.argv[1]
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lines = queue.Queue()

    def read_lines():
        for line in child.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read_lines, daemon=True).start()
    next_id = 0

    def send(message):
        child.stdin.write(json.dumps(message).encode() + b'\n')
        child.stdin.flush()

    def request(method, params=None):
        nonlocal next_id
        next_id += 1
        message = {'jsonrpc': '2.0', 'id': next_id, 'method': method}
        if params is not None:
            message['params'] = params
        send(message)
        try:
            line = lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise Failed(f'no answer to {method} within {TIMEOUT} s')
        expect(line is not None, f'the output ended before the answer to {method}')
        answer = json.loads(line)
        expect(answer.get('id') == next_id, f'an answer to another request: {answer!r}')
        expect('result' in answer, f'{method}: {answer!r}')
        return answer['result']

    def call(name, arguments):
        return request('tools/call', {'name': name, 'arguments': arguments})

    n = 0
    failed = 0

    def check(name, fn):
        nonlocal n, failed
        n += 1
        try:
            fn()
            print(f'ok {n} - {name}')
        except Exception as error:  # report and go on with the next check
            failed += 1
            print(f'not ok {n} - {name}')
            print(f'# {error}')
        sys.stdout.flush()

    def initialize():
        result = request('initialize', {
            'protocolVersion': '2025-11-25',
            'capabilities': {},
            'clientInfo': {'name': 'hello-client', 'version': '1'},
        })
        expect(result['protocolVersion'] == '2025-11-25', f'version: {result!r}')
        expect(result['serverInfo']['name'] == server_name, f'serverInfo: {result!r}')
        expect('tools' in result['capabilities'], f'capabilities: {result!r}')
        send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})

    def list_tools():
        tools = {t['name']: t for t in request('tools/list')['tools']}
        expect(sorted(tools) == ['about', 'greet'], f'tools: {sorted(tools)!r}')
        schema = tools['greet']['inputSchema']
        expect(schema['required'] == ['name'], f'greet schema: {schema!r}')
        expect(schema['properties']['name']['type'] == 'string', f'greet schema: {schema!r}')

    def greet():
        result = call('greet', {'name': 'Ada ✓ "quoted"'})
        expect(result['content'] == [{'type': 'text', 'text': 'Hello, Ada ✓ "quoted"!'}],
               f'greet: {result!r}')
        expect(not result.get('isError'), f'greet: {result!r}')

    def greet_without_name():
        result = call('greet', {})
        expect(result.get('isError') is True, f'greet without a name: {result!r}')

    def about():
        result = call('about', {})
        text = result['content'][0]['text']
        expect(text.startswith('A hello server written in '), f'about: {result!r}')

    def end_of_input():
        child.stdin.close()
        try:
            status = child.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            child.kill()
            raise Failed(f'still running {TIMEOUT} s after the end of its input')
        expect(lines.get(timeout=TIMEOUT) is None, 'more output after the last answer')
        expect(status == 0, f'exit status {status}')

    try:
        check(f'initialize: serverInfo.name is {server_name}', initialize)
        check('tools/list: greet with its input schema, and about', list_tools)
        check('tools/call greet keeps the name intact', greet)
        check('tools/call greet without a name is a tool error', greet_without_name)
        check('tools/call about', about)
    finally:
        check('exits 0 at the end of input', end_of_input)
    print(f'1..{n}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
