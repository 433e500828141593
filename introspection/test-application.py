#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# A Gio.Application written in Python (or, with --gjs GJS, in JavaScript:
# test-application.js) serves its server through Snodo.ApplicationBinding:
# started with --mcp-stdio on real pipes, it answers initialize and
# tools/list, a tool that prints to standard output does not corrupt the
# protocol, and the end of input ends it with status 0. Started without
# an MCP option, it runs as normal and serves nothing. TAP.
#
#   test-application.py [--gjs GJS]

import json
import os
import subprocess
import sys

checks = 0
failed = 0


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


def app():
    """The application: a counter, and a tool that prints."""
    import gi
    gi.require_version('Gio', '2.0')
    gi.require_version('Snodo', '1')
    from gi.repository import Gio, Snodo

    server = Snodo.Server.new('py-app', '1.0')
    state = {'count': 0}

    def count(invocation):
        state['count'] += 1
        invocation.return_text(str(state['count']))

    def noisy(invocation):
        print('noise', flush=True)
        invocation.return_text('quiet')

    server.add_tool(Snodo.Tool.new('count', 'Counts'), count)
    server.add_tool(Snodo.Tool.new('noisy', 'Prints, then answers'), noisy)

    application = Gio.Application(application_id=f'org.snodo.PyApp{os.getpid()}')
    application.connect('activate', lambda a: print('activated', flush=True))
    binding = Snodo.ApplicationBinding.new(application, server)
    status = application.run(sys.argv[1:])
    sys.exit(status or binding.get_exit_status())


def send(proc, message):
    proc.stdin.write((json.dumps(message) + '\n').encode())
    proc.stdin.flush()


def receive(proc):
    line = proc.stdout.readline()
    try:
        return json.loads(line)
    except ValueError:
        return line


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--app':
        app()
        return
    if len(sys.argv) > 2 and sys.argv[1] == '--gjs':
        command = [sys.argv[2], '-m', os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                   'test-application.js')]
        language = 'GJS'
    else:
        command = [sys.executable, os.path.abspath(__file__), '--app']
        language = 'Python'

    proc = subprocess.Popen(command + ['--mcp-stdio'], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    send(proc, {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                'params': {'protocolVersion': '2025-06-18', 'capabilities': {},
                           'clientInfo': {'name': 'test-application', 'version': '1'}}})
    answer = receive(proc)
    report(isinstance(answer, dict) and 'result' in answer, f'{language}: --mcp-stdio answers initialize', answer)
    send(proc, {'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    send(proc, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'})
    answer = receive(proc)
    names = sorted(t['name'] for t in answer['result']['tools']) if isinstance(answer, dict) else answer
    report(names == ['count', 'noisy'], f'{language}: a client lists the tools', names)
    for n, (tool, text) in enumerate([('noisy', 'quiet'), ('count', '1'), ('count', '2')], start=3):
        send(proc, {'jsonrpc': '2.0', 'id': n, 'method': 'tools/call', 'params': {'name': tool, 'arguments': {}}})
        answer = receive(proc)
        got = answer['result']['content'][0]['text'] if isinstance(answer, dict) and 'result' in answer else answer
        report(got == text, f'{language}: tools/call {tool} is answered {text}', got)
    proc.stdin.close()
    try:
        status = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = 'still running'
    rest = proc.stdout.read().decode()
    err = proc.stderr.read().decode()
    report(status == 0, f'{language}: the end of input ends it with status 0', f'{status} {err}')
    report(rest == '' and 'noise' in err and 'activated' in err,
           f'{language}: what it prints goes to standard error, not into the protocol', f'{rest!r} {err!r}')

    proc = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    report(proc.returncode == 0 and proc.stdout == b'activated\n',
           f'{language}: without an MCP option it runs as normal', proc)
    print(f'1..{checks}')
    sys.exit(1 if failed else 0)


main()
