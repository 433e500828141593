#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""Serving from the running instance, on a private session bus (the test
runs under dbus-run-session): snodo-test-app runs as the primary instance,
then a second `snodo-test-app --mcp-stdio`, started as an assistant would,
hands its standard input and output to it. The calls are served by the
primary (its process, its counter, which it reports on its own output);
closing the input ends the second process with status 0 while the primary
runs on; a second process killed or stopped with SIGTERM leaves no
connection behind; a non-unique application serves on its own. TAP.

    dbus-run-session -- tests/test-application-remote.py path/to/snodo-test-app
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

APP = sys.argv[1] if len(sys.argv) > 1 else os.environ.get('SNODO_TEST_APP')
APP_ID = f'org.snodo.TestRemote{os.getpid()}'
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


class Primary:
    """The running instance; its output lines are read on a thread."""

    def __init__(self):
        env = dict(os.environ, SNODO_TEST_APP_ID=APP_ID)
        self.proc = subprocess.Popen([APP, '--stay'], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            self.lines.put(line.decode().strip())

    def wait_for(self, wanted, timeout=20):
        """Reads lines until @wanted; the lines read."""
        seen = []
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                break
            seen.append(line)
            if line == wanted:
                return True, seen
        return False, seen


def start_second(**env):
    return subprocess.Popen([APP, '--mcp-stdio'], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=dict(os.environ, SNODO_TEST_APP_ID=APP_ID, **env))


def send(proc, message):
    proc.stdin.write((json.dumps(message) + '\n').encode())
    proc.stdin.flush()


def receive(proc):
    line = proc.stdout.readline()
    return json.loads(line) if line else None


def handshake(proc):
    send(proc, {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                'params': {'protocolVersion': '2025-06-18', 'capabilities': {},
                           'clientInfo': {'name': 'test-application-remote', 'version': '1'}}})
    answer = receive(proc)
    send(proc, {'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    return answer


def call(proc, n, name):
    send(proc, {'jsonrpc': '2.0', 'id': n, 'method': 'tools/call', 'params': {'name': name, 'arguments': {}}})
    answer = receive(proc)
    return answer['result']['content'][0]['text'] if answer and 'result' in answer else answer


def wait(proc, timeout=30):
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return 'still running'


def main():
    if not APP:
        print('1..0 # SKIP no snodo-test-app given')
        return
    if not os.environ.get('DBUS_SESSION_BUS_ADDRESS'):
        print('1..0 # SKIP no session bus: run it under dbus-run-session')
        return

    primary = Primary()
    ok, seen = primary.wait_for('ready')
    report(ok, 'the primary instance is registered', seen)

    # An assistant starts the application on its own pipes.
    second = start_second()
    answer = handshake(second)
    report(answer is not None and 'result' in answer, 'the second instance answers initialize', answer)
    send(second, {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/list'})
    answer = receive(second)
    names = sorted(t['name'] for t in answer['result']['tools']) if answer and 'result' in answer else answer
    report(names == ['count', 'get', 'noisy', 'pid'], 'tools/list is answered', names)
    served_by = call(second, 3, 'pid')
    report(served_by == str(primary.proc.pid), 'the calls are served by the primary instance',
           f'served by {served_by}, primary {primary.proc.pid}, second {second.pid}')
    report(call(second, 4, 'count') == '1', 'a tool edits the live state')
    ok, seen = primary.wait_for('count=1')
    report(ok, "the primary's own state changed", seen)
    report(call(second, 5, 'noisy') == 'quiet', "the primary's prints stay off the connection")
    second.stdin.close()
    status = wait(second)
    err = second.stderr.read().decode()
    report(status == 0, 'closing the input ends the second instance with status 0', f'{status} {err}')
    ok, seen = primary.wait_for('serving=0')
    report(ok, 'the primary closes the connection', seen)
    report(primary.proc.poll() is None, 'the primary runs on')

    # Killed: its connection does not outlive it.
    second = start_second()
    handshake(second)
    report(call(second, 2, 'count') == '2', 'a new connection sees the same state')
    second.kill()
    second.wait()
    ok, seen = primary.wait_for('serving=0')
    report(ok, 'a killed second instance leaves no connection behind', seen)
    rest = second.stdout.read()
    report(rest == b'', 'and its output is closed', rest)

    # SIGTERM: a clean end.
    second = start_second()
    handshake(second)
    report(call(second, 2, 'get') == '2', 'a third connection is served')
    second.send_signal(signal.SIGTERM)
    status = wait(second)
    report(status == 0, 'SIGTERM ends the second instance with status 0', status)
    ok, seen = primary.wait_for('serving=0')
    report(ok, 'and the primary closes its connection', seen)

    # A non-unique application serves on its own.
    second = start_second(SNODO_TEST_APP_NON_UNIQUE='1')
    handshake(second)
    served_by = call(second, 2, 'pid')
    report(served_by == str(second.pid) and call(second, 3, 'get') == '0',
           'a non-unique application serves on its own', served_by)
    second.stdin.close()
    report(wait(second) == 0, 'and ends with status 0')

    primary.proc.send_signal(signal.SIGTERM)
    status = wait(primary.proc)
    report(status == 0, 'the primary ends with status 0 on SIGTERM', status)
    print(f'1..{checks}')
    sys.exit(1 if failed else 0)


main()
