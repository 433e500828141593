#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""Issue 7, item 5: what ten concurrent large calls make snodo-demo hold.

    bench/live-bytes.py [--demo PATH] [--calls 10] [--bytes 1999999] [-- DEMO-OPTIONS...]

Starts snodo-demo over standard I/O (2025-11-25), sends --calls `sleep`
calls of 4 s at once, each a line of --bytes bytes whose arguments carry
an array of one-digit numbers (about 42 times the line once decoded),
reads the server's VmRSS and VmHWM (/proc/PID/status) 2.5 s later, while
the admitted calls still sleep, and prints how many calls ran and how many
were refused with -32010. Options after `--` go to snodo-demo, for
instance `-- --max-live-bytes=1000000000000` to measure without the
budget. Nothing is timed; run it under `nice` on a shared machine.
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--demo', default=os.path.join(here, '..', '_build', 'examples', 'snodo-demo'))
    parser.add_argument('--calls', type=int, default=10)
    parser.add_argument('--bytes', type=int, default=1999999)
    parser.add_argument('extra', nargs='*')
    args = parser.parse_args()

    demo = subprocess.Popen([args.demo] + args.extra, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)

    def send(text):
        demo.stdin.write(text.encode() + b'\n')
        demo.stdin.flush()

    send(json.dumps({'jsonrpc': '2.0', 'id': 0, 'method': 'initialize',
                     'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                                'clientInfo': {'name': 'live-bytes', 'version': '1'}}}))
    demo.stdout.readline()
    send('{"jsonrpc":"2.0","method":"notifications/initialized"}')

    answers = []

    def read():
        for line in demo.stdout:
            answers.append(json.loads(line))

    threading.Thread(target=read, daemon=True).start()

    tail = ']}}}'
    for i in range(1, args.calls + 1):
        head = ('{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep",'
                '"arguments":{"ms":4000,"pad":[1' % i)
        n = max(0, (args.bytes - len(head) - len(tail)) // 2)
        send(head + ',1' * n + tail)

    time.sleep(2.5)
    with open('/proc/%d/status' % demo.pid) as f:
        status = dict(line.split(':', 1) for line in f if line.startswith(('VmRSS', 'VmHWM')))
    deadline = time.monotonic() + 30
    while len(answers) < args.calls and time.monotonic() < deadline:
        time.sleep(0.1)
    demo.stdin.close()
    demo.wait()

    refused = sum(1 for a in answers if a.get('error', {}).get('code') == -32010)
    ran = sum(1 for a in answers if 'result' in a)
    print('%d calls of %d bytes: %d ran, %d refused with -32010; VmRSS %s, VmHWM %s (exit %d)'
          % (args.calls, args.bytes, ran, refused, status['VmRSS'].strip(), status['VmHWM'].strip(),
             demo.returncode))
    return 0 if ran + refused == args.calls and demo.returncode == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
