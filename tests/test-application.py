#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""A GApplication served through SnodoApplicationBinding (snodo-test-app),
through real pipes, sockets and signals: --mcp-stdio answers initialize,
tools/list and tools/call, its standard output carries the protocol only
(what the application prints goes to standard error), the end of input and
SIGTERM end it with status 0, a failed standard output with 1; --mcp-http
prints its URL and serves; --print-server-json prints server.json; wrong
options end it with 2; without any MCP option it runs as normal. TAP.

    tests/test-application.py path/to/snodo-test-app
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

APP = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('SNODO_TEST_APP')
checks = 0
failed = 0
serial = 0


def report(ok, name, why=''):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {checks} - {name}")
    if why and not ok:
        for line in str(why).splitlines():
            print(f'# {line}')
    sys.stdout.flush()


def start(*args, stdout=subprocess.PIPE):
    """snodo-test-app with @args, under an application id of its own (the
    tests may share a session bus)."""
    global serial
    serial += 1
    env = dict(os.environ, SNODO_TEST_APP_ID=f'org.snodo.TestApp{os.getpid()}x{serial}')
    return subprocess.Popen([APP, *args], stdin=subprocess.PIPE, stdout=stdout, stderr=subprocess.PIPE, env=env)


def send(proc, message):
    proc.stdin.write((json.dumps(message) + '\n').encode())
    proc.stdin.flush()


def receive(proc):
    line = proc.stdout.readline()
    return json.loads(line) if line else None


INITIALIZE = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
              'params': {'protocolVersion': '2025-06-18', 'capabilities': {},
                         'clientInfo': {'name': 'test-application', 'version': '1'}}}


def handshake(proc):
    send(proc, INITIALIZE)
    answer = receive(proc)
    send(proc, {'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    return answer


def call(proc, n, name):
    send(proc, {'jsonrpc': '2.0', 'id': n, 'method': 'tools/call', 'params': {'name': name, 'arguments': {}}})
    answer = receive(proc)
    return answer['result']['content'][0]['text'] if answer and 'result' in answer else answer


def test_stdio():
    proc = start('--mcp-stdio')
    answer = handshake(proc)
    report(answer is not None and answer.get('result', {}).get('serverInfo', {}).get('name') == 'test-app',
           '--mcp-stdio: initialize is answered', answer)
    send(proc, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'})
    answer = receive(proc)
    names = sorted(t['name'] for t in answer['result']['tools']) if answer and 'result' in answer else answer
    report(names == ['count', 'get', 'noisy', 'pid'], '--mcp-stdio: tools/list lists the tools', names)
    report(call(proc, 3, 'noisy') == 'quiet', 'a tool that prints with g_print() is answered')
    report(call(proc, 4, 'count') == '1' and call(proc, 5, 'get') == '1', 'the state is kept between calls')
    proc.stdin.close()
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = 'still running'
    rest = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    report(status == 0, 'the end of input ends the application with status 0', f'status {status}\n{err}')
    report(rest == '', 'standard output carries the protocol only', repr(rest))
    report('noise' in err and 'activated' in err and 'count=1' in err,
           "what the application prints goes to standard error", err)


def test_sigterm():
    proc = start('--mcp-stdio')
    handshake(proc)
    report(call(proc, 2, 'count') == '1', 'SIGTERM: serving before the signal')
    proc.send_signal(signal.SIGTERM)
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = 'still running'
    err = proc.stderr.read().decode()
    report(status == 0, 'SIGTERM ends the application cleanly, with status 0', f'status {status}\n{err}')
    report('serving=0' in err, 'SIGTERM closes the transport first', err)
    proc.stdin.close()


def test_output_fails():
    proc = start('--mcp-stdio')
    proc.stdout.close()
    send(proc, INITIALIZE)
    proc.stdin.close()
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = 'still running'
    err = proc.stderr.read().decode()
    report(status == 1, 'a failed standard output ends it with status 1', f'status {status}\n{err}')


def post(url, method, params):
    params = dict(params, _meta={'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                                 'io.modelcontextprotocol/clientCapabilities': {}})
    body = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': method, 'params': params}).encode()
    request = urllib.request.Request(url, data=body, method='POST', headers={
        'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': method,
        **({'Mcp-Name': params['name']} if 'name' in params else {})})
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
    if text.lstrip().startswith('{'):
        return json.loads(text)
    for line in text.splitlines():
        if line.startswith('data:'):
            return json.loads(line[5:])
    return None


def test_http(option):
    proc = start(option, stdout=subprocess.PIPE)
    url = proc.stdout.readline().decode().strip()
    report(url.startswith('http://127.0.0.1:') and url.endswith('/mcp') and not url.endswith(':0/mcp'),
           f'{option} prints its URL', url)
    try:
        answer = post(url, 'tools/list', {})
        names = sorted(t['name'] for t in answer['result']['tools'])
        text = post(url, 'tools/call', {'name': 'count', 'arguments': {}})['result']['content'][0]['text']
    except Exception as e:  # noqa: BLE001
        names, text = repr(e), None
    report(names == ['count', 'get', 'noisy', 'pid'] and text == '1', f'{option} serves', f'{names} {text}')
    proc.send_signal(signal.SIGTERM)
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = 'still running'
    report(status == 0, f'{option}: SIGTERM ends it with status 0', f'status {status}')


def test_no_option():
    proc = start()
    proc.stdin.close()
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = 'still running'
    out = proc.stdout.read().decode()
    report(status == 0 and out == 'activated\n',
           'without an MCP option the application runs as normal, serving nothing', f'{status} {out!r}')


def test_print_server_json():
    proc = start('--print-server-json')
    out, err = proc.communicate(timeout=30)
    try:
        name = json.loads(out)['name']
    except (ValueError, KeyError) as e:
        name = repr(e)
    report(proc.returncode == 0 and name.startswith('org.snodo/TestApp'),
           '--print-server-json prints server.json, named from the application id', f'{name} {err}')


def test_wrong_options():
    for args in (['--mcp-http=nonsense'], ['--mcp-unix-mode=0600'], ['--mcp-tls-key=x', '--mcp-http'],
                 ['--mcp-allowed-hosts=a'], ['--mcp-http', '--mcp-unix=/tmp/x']):
        proc = start(*args)
        out, err = proc.communicate(timeout=30)
        report(proc.returncode == 2 and err.strip() != b'', f'{" ".join(args)}: status 2, with a reason',
               f'{proc.returncode} {err}')


def test_cannot_listen():
    proc = start('--mcp-http')
    url = proc.stdout.readline().decode().strip()
    port = url.rsplit(':', 1)[1].split('/', 1)[0]
    other = start(f'--mcp-http=127.0.0.1:{port}')
    out, err = other.communicate(timeout=30)
    report(other.returncode == 3, 'a port taken: status 3', f'{other.returncode} {err}')
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)


def main():
    if not APP:
        print('1..0 # SKIP no snodo-test-app given')
        return
    test_stdio()
    test_sigterm()
    test_output_fails()
    help_text = subprocess.run([APP, '--help-mcp'], capture_output=True, text=True).stdout
    if '--mcp-http' in help_text:
        test_http('--mcp-http')
        test_http('--mcp-http=127.0.0.1:0')
    test_no_option()
    test_print_server_json()
    test_wrong_options()
    if '--mcp-http' in help_text:
        test_cannot_listen()
    else:
        print('# a build without HTTP: --mcp-http is not tested')
    print(f'1..{checks}')
    sys.exit(1 if failed else 0)


main()
