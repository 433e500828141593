#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""snodo-demo's HTTP limits follow its options: --max-streams is also the
bound from one address unless --max-streams-per-address says otherwise
(every client on the loopback interface has the same address), and a body
of up to --max-line-bytes is received even when it is larger than the
64 MiB the bodies in progress may take by default. TAP output.

    tests/demo-http-options.py path/to/snodo-demo   (or $SNODO_DEMO)
"""

import json
import os
import resource
import socket
import subprocess
import sys
import time

checks = 0
failed = 0

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}


def report(ok, name, why=""):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {checks} - {name}")
    if why:
        print(f"# {why}")
    sys.stdout.flush()


class Demo:
    def __init__(self, path, *args):
        self.proc = subprocess.Popen([path, "--http=0", *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE)
        line = self.proc.stdout.readline().decode().strip()
        self.port = int(line.rsplit(":", 1)[1].split("/", 1)[0])

    def post(self, method, body, sock=None):
        """Sends a 2026-07-28 POST of @body (bytes) on a new connection
        (or @sock); returns the socket."""
        s = sock or socket.create_connection(("127.0.0.1", self.port), timeout=30)
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n").encode()
        s.sendall(head + body)
        return s

    def listen(self, n):
        body = json.dumps({"jsonrpc": "2.0", "id": n, "method": "subscriptions/listen",
                           "params": {"notifications": {"toolsListChanged": True},
                                      "_meta": ENVELOPE}}).encode()
        return self.post("subscriptions/listen", body)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def status_of(s):
    """The status code of the answer on @s, read up to its first line."""
    got = b""
    while b"\r\n" not in got:
        chunk = s.recv(4096)
        if not chunk:
            break
        got += chunk
    try:
        return int(got.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def open_streams(demo, n):
    """Opens @n listen streams; returns their sockets and the statuses."""
    sockets = [demo.listen(i) for i in range(n)]
    return sockets, [status_of(s) for s in sockets]


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SNODO_DEMO")
    if not path:
        print("Bail out! no snodo-demo given")
        return 1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 1024:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))

    # --max-streams=300: 260 streams from the loopback are all served.
    demo = Demo(path, "--max-streams=300")
    try:
        sockets, statuses = open_streams(demo, 260)
        refused = [i for i, st in enumerate(statuses) if st != 200]
        report(not refused, "--max-streams=300 serves 260 streams from one address",
               f"refused: {len(refused)} (first {refused[:1]}, status {statuses[refused[0]]})" if refused else "")
        for s in sockets:
            s.close()
    finally:
        demo.stop()

    # --max-streams-per-address=2 bounds them below --max-streams.
    demo = Demo(path, "--max-streams=10", "--max-streams-per-address=2")
    try:
        # Sent at once on three connections: served in any order.
        sockets, statuses = open_streams(demo, 3)
        report(sorted(statuses) == [200, 200, 503], "--max-streams-per-address=2: one of three streams is 503",
               f"statuses {statuses}")
        for s in sockets:
            s.close()
    finally:
        demo.stop()

    # A body of 70 MB, over the default 64 MiB of bodies in progress, under
    # --max-line-bytes=80000000.
    demo = Demo(path, "--max-line-bytes=80000000")
    try:
        pad = "x" * 70000000
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                           "params": {"_meta": ENVELOPE, "pad": pad}}).encode()
        start = time.monotonic()
        s = demo.post("tools/list", body)
        status = status_of(s)
        s.close()
        report(status == 200, "--max-line-bytes=80000000: a 70 MB body is served",
               f"status {status} after {time.monotonic() - start:.1f} s")
    finally:
        demo.stop()

    print(f"1..{checks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
