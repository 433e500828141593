#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""Round trips per second of MCP tools/call "echo" over stdio.

Spawns a stdio MCP server, performs initialize + notifications/initialized,
checks that tools/list offers the echo tool, warms up, then times N
tools/call echo requests written as newline-delimited JSON to the server's
stdin, each answer read back from its stdout and checked. By default the
requests go one at a time (sequential round trips); with --concurrency K,
K requests are kept in flight.

It measures snodo-demo and, in the same run, a peer: the reference
"everything" server of the MCP TypeScript SDK
(@modelcontextprotocol/server-everything, installed by
`npm ci --prefix tests/interop`). It prints both rates and the ratio
snodo/peer. Any wrong answer stops the run with an error.

    bench/echo-rtt.py                       # both, 20000 sequential calls each
    bench/echo-rtt.py -n 5000 --concurrency 16
    bench/echo-rtt.py --only peer
    bench/echo-rtt.py --demo _build/examples/snodo-demo --demo-args '--max-running=32'
"""

import argparse
import json
import os
import queue
import shlex
import statistics
import subprocess
import sys
import tempfile
import threading
import time

SRCDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER_ENTRY = os.path.join(SRCDIR, 'tests', 'interop', 'node_modules', '@modelcontextprotocol',
                          'server-everything', 'dist', 'index.js')
PROTOCOL_VERSION = '2025-11-25'


class BenchError(Exception):
    pass


class Server:
    """One server: how to start it and how its echo tool is called and answers."""

    def __init__(self, label, argv, argument, expect):
        self.label = label
        self.argv = argv
        self.argument = argument   # name of the echo tool's string argument
        self.expect = expect       # text sent -> text the tool answers


def snodo_server(args):
    demo = args.demo or os.environ.get('SNODO_DEMO') or os.path.join(SRCDIR, '_build', 'examples', 'snodo-demo')
    if not os.path.isfile(demo) or not os.access(demo, os.X_OK):
        raise BenchError(f'snodo-demo not found at {demo} (build it: meson setup _build && ninja -C _build, '
                         'or pass --demo PATH)')
    return Server('snodo-demo', [demo] + shlex.split(args.demo_args), 'text', lambda t: t)


def peer_server(args):
    label = 'server-everything'
    if args.peer_cmd:
        argv = shlex.split(args.peer_cmd)
        label = 'peer'
    else:
        if not os.path.isfile(PEER_ENTRY):
            raise BenchError(f'{PEER_ENTRY} is missing: run npm ci --prefix tests/interop')
        argv = [args.node, PEER_ENTRY, 'stdio']
    # server-everything's echo takes "message" and answers "Echo: <message>".
    return Server(label, argv, 'message', lambda t: 'Echo: ' + t)


class Connection:
    """A spawned server and the newline-delimited JSON-RPC pipes to it."""

    def __init__(self, server):
        self.server = server
        self.stderr = tempfile.TemporaryFile()
        try:
            # Buffered pipes: readline() on an unbuffered pipe reads one
            # byte per system call. Every write is flushed at once.
            self.proc = subprocess.Popen(server.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.stderr, bufsize=65536)
        except OSError as e:
            raise BenchError(f'{server.label}: cannot start {server.argv[0]}: {e}') from e
        self.out = self.proc.stdout
        self.inp = self.proc.stdin
        self.notifications = 0
        self.error_hint = ''

    def stderr_tail(self, limit=2000):
        try:
            self.stderr.seek(0)
            data = self.stderr.read().decode('utf-8', 'replace')
        except (OSError, ValueError):
            return ''
        return data[-limit:]

    def fail(self, message):
        tail = self.stderr_tail()
        status = self.proc.poll()
        extra = f' (server exited with status {status})' if status is not None else ''
        if tail:
            extra += '\n--- server stderr (end) ---\n' + tail.rstrip()
        raise BenchError(f'{self.server.label}: {message}{extra}')

    def write(self, data):
        try:
            self.inp.write(data)
            self.inp.flush()
        except (BrokenPipeError, ValueError, OSError) as e:
            self.fail(f'writing a request failed: {e}')

    def read_message(self):
        """Next JSON-RPC response; notifications are counted and skipped,
        requests from the server are refused."""
        while True:
            line = self.out.readline()
            if not line:
                try:
                    self.proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    pass
                self.fail('the server closed its stdout')
            try:
                msg = json.loads(line)
            except ValueError:
                self.fail(f'unparseable line on stdout: {line[:200]!r}')
            if not isinstance(msg, dict):
                self.fail(f'a line that is not a JSON-RPC object: {line[:200]!r}')
            if 'method' in msg:
                if 'id' in msg:
                    self.write(json.dumps({'jsonrpc': '2.0', 'id': msg['id'],
                                           'error': {'code': -32601, 'message': 'Method not found'}},
                                          separators=(',', ':')).encode() + b'\n')
                else:
                    self.notifications += 1
                continue
            return msg

    def call(self, req_id, method, params):
        self.write(json.dumps({'jsonrpc': '2.0', 'id': req_id, 'method': method, 'params': params},
                              separators=(',', ':')).encode() + b'\n')
        msg = self.read_message()
        if msg.get('id') != req_id:
            self.fail(f'{method}: answer for id {msg.get("id")!r}, expected {req_id}: {msg}')
        if 'error' in msg:
            self.fail(f'{method}: error {msg["error"]}')
        return msg.get('result')

    def handshake(self):
        result = self.call(0, 'initialize', {
            'protocolVersion': PROTOCOL_VERSION,
            'capabilities': {},
            'clientInfo': {'name': 'snodo-echo-rtt', 'version': '0.1.0'},
        })
        if not isinstance(result, dict) or 'protocolVersion' not in result:
            self.fail(f'bad initialize result: {result}')
        self.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        tools = self.call(1, 'tools/list', {})
        echo = next((t for t in (tools or {}).get('tools', []) if t.get('name') == 'echo'), None)
        if echo is None:
            self.fail('tools/list has no "echo" tool')
        props = (echo.get('inputSchema') or {}).get('properties') or {}
        if self.server.argument not in props:
            self.fail(f'the echo tool takes {sorted(props)}, not "{self.server.argument}"')
        return result

    def close(self):
        """Close stdin; give the server 5 s to exit, then terminate it.
        Returns a note on how it ended."""
        try:
            self.inp.close()
        except OSError:
            pass
        note = None
        try:
            status = self.proc.wait(timeout=5)
            if status != 0:
                note = f'exited with status {status} after stdin EOF'
        except subprocess.TimeoutExpired:
            self.proc.terminate()
            note = 'still running 5 s after stdin EOF; terminated'
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()
        self.stderr.close()
        return note


def request_line(argument, text, req_id):
    return ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{%s:%s}}}\n'
            % (req_id, json.dumps(argument), json.dumps(text, ensure_ascii=False))).encode()


def check_answer(conn, msg, req_id, expected):
    if msg.get('id') != req_id:
        conn.fail(f'answer for id {msg.get("id")!r}, expected {req_id}')
    if 'error' in msg:
        conn.fail(f'request {req_id}: error answer {json.dumps(msg["error"], ensure_ascii=False)[:300]}'
                  + conn.error_hint)
    result = msg.get('result')
    if not isinstance(result, dict):
        conn.fail(f'request {req_id}: no result: {json.dumps(msg)[:300]}')
    content = result.get('content')
    if (result.get('isError') or not isinstance(content, list) or len(content) != 1
            or content[0].get('type') != 'text' or content[0].get('text') != expected):
        conn.fail(f'request {req_id}: wrong answer {json.dumps(result, ensure_ascii=False)[:300]}, '
                  f'expected one text block {expected!r}')


def run_sequential(conn, first_id, count, text, expected, latencies=None):
    argument = conn.server.argument
    for req_id in range(first_id, first_id + count):
        t0 = time.perf_counter()
        conn.write(request_line(argument, text, req_id))
        msg = conn.read_message()
        if latencies is not None:
            latencies.append(time.perf_counter() - t0)
        check_answer(conn, msg, req_id, expected)


def run_concurrent(conn, first_id, count, text, expected, in_flight):
    """Keep `in_flight` requests outstanding; a writer thread sends while
    this thread reads, so neither pipe can fill up and stall both sides."""
    argument = conn.server.argument
    slots = threading.Semaphore(in_flight)
    errors = queue.Queue()
    last = first_id + count

    def writer():
        try:
            for req_id in range(first_id, last):
                slots.acquire()
                conn.write(request_line(argument, text, req_id))
        except BenchError as e:
            errors.put(e)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    pending = set(range(first_id, last))
    while pending:
        msg = conn.read_message()
        req_id = msg.get('id')
        if req_id not in pending:
            conn.fail(f'answer for unknown or repeated id {req_id!r}')
        pending.discard(req_id)
        check_answer(conn, msg, req_id, expected)
        slots.release()
    thread.join()
    if not errors.empty():
        raise errors.get()


def measure(server, args):
    conn = Connection(server)
    if args.concurrency > 1 and server.label == 'snodo-demo':
        conn.error_hint = (f' (an overload answer? let the demo admit {args.concurrency} requests: '
                           f'--demo-args "--max-running={args.concurrency} --max-queued={args.concurrency}")')
    try:
        info = conn.handshake()
        expected = server.expect(args.text)
        next_id = 2
        if args.concurrency > 1:
            run_concurrent(conn, next_id, args.warmup, args.text, expected, args.concurrency)
        else:
            run_sequential(conn, next_id, args.warmup, args.text, expected)
        next_id += args.warmup

        latencies = [] if args.concurrency == 1 else None
        t0 = time.perf_counter()
        if args.concurrency > 1:
            run_concurrent(conn, next_id, args.count, args.text, expected, args.concurrency)
        else:
            run_sequential(conn, next_id, args.count, args.text, expected, latencies)
        elapsed = time.perf_counter() - t0
    except BaseException:
        conn.close()
        raise
    note = conn.close()
    return {
        'server': info.get('serverInfo', {}),
        'version': info.get('protocolVersion'),
        'rate': args.count / elapsed,
        'elapsed': elapsed,
        'latencies': latencies,
        'note': note,
    }


def describe(label, r):
    line = f'{label:22s} {r["rate"]:8.0f} round trips/s  ({args_count} in {r["elapsed"]:.2f} s'
    if r['latencies']:
        lat = sorted(r['latencies'])
        p50 = lat[len(lat) // 2] * 1e6
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1e6
        line += f'; latency p50 {p50:.0f} us, p99 {p99:.0f} us'
    line += ')'
    return line


args_count = 0


def main():
    global args_count
    p = argparse.ArgumentParser(description='Round trips per second of MCP tools/call echo over stdio, '
                                            'snodo-demo against the MCP reference server.')
    p.add_argument('-n', '--count', type=int, default=20000, help='timed calls per run (default 20000)')
    p.add_argument('-w', '--warmup', type=int, default=1000, help='untimed calls first (default 1000)')
    p.add_argument('-c', '--concurrency', type=int, default=1, metavar='K',
                   help='requests kept in flight (default 1: sequential round trips)')
    p.add_argument('-r', '--repeat', type=int, default=1,
                   help='runs per server, alternating; the median rate is reported (default 1)')
    p.add_argument('--text', default='hello, world', help='text to echo (default "hello, world")')
    p.add_argument('--only', choices=['snodo', 'peer'], help='measure one server only')
    p.add_argument('--demo', help='snodo-demo to run (default $SNODO_DEMO or _build/examples/snodo-demo)')
    p.add_argument('--demo-args', default='', help='extra arguments for snodo-demo, e.g. "--max-running=32"')
    p.add_argument('--node', default='node', help='node for the peer (default: node on PATH)')
    p.add_argument('--peer-cmd', help='command line of another peer server whose echo tool takes "message" '
                                      'and answers "Echo: <message>"')
    args = p.parse_args()
    if args.count < 1 or args.warmup < 0 or args.concurrency < 1 or args.repeat < 1:
        p.error('--count, --concurrency and --repeat must be at least 1, --warmup at least 0')
    args_count = args.count

    try:
        servers = []
        if args.only != 'peer':
            servers.append(snodo_server(args))
        if args.only != 'snodo':
            servers.append(peer_server(args))

        mode = 'sequential' if args.concurrency == 1 else f'{args.concurrency} in flight'
        print(f'echo round trips over stdio: {args.count} timed calls after {args.warmup} warm-up calls, '
              f'{mode}, text {args.text!r}')
        rates = {s.label: [] for s in servers}
        last = {}
        for run in range(args.repeat):
            for s in servers:
                r = measure(s, args)
                rates[s.label].append(r['rate'])
                last[s.label] = r
                tag = f'{s.label}' + (f' #{run + 1}' if args.repeat > 1 else '')
                print(describe(tag, r), flush=True)
                if r['note']:
                    print(f'    note: {s.label} {r["note"]}')

        print()
        for s in servers:
            r = last[s.label]
            name = r['server'].get('name', '?')
            version = r['server'].get('version', '?')
            median = statistics.median(rates[s.label])
            print(f'{s.label}: {median:.0f} round trips/s'
                  + (f' (median of {args.repeat})' if args.repeat > 1 else '')
                  + f'  [{name} {version}, protocol {r["version"]}]')
        if len(servers) == 2:
            snodo = statistics.median(rates[servers[0].label])
            peer = statistics.median(rates[servers[1].label])
            print(f'ratio snodo/peer: {snodo / peer:.2f}')
    except BenchError as e:
        print(f'echo-rtt: error: {e}', file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == '__main__':
    sys.exit(main())
