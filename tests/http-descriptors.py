#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""A flood of HTTP connections beyond the descriptors of snodo-demo.

snodo-demo --http=0 runs with a soft RLIMIT_NOFILE of 512 (set between fork
and exec, as `prlimit --nofile=512` would), below max-connections (1,024).
600 connections are opened and kept: half send nothing, half send a request
head one byte a second. Meanwhile legitimate clients connect one after the
other and call a tool: each must be answered within a few seconds, all the
time, not only once the flood's connections time out (30 s, 60 s).

Twice: with the demo's own descriptors only (the connections are bounded
below the soft limit, which the demo says in its log), and with 150 more
descriptors inherited from its parent (the bound leaves too little room:
accept fails with EMFILE, and the longest-idle connection makes room).
TAP output.

    tests/http-descriptors.py path/to/snodo-demo   (or $SNODO_DEMO)
"""

import json
import os
import resource
import select
import socket
import subprocess
import sys
import threading
import time

SOFT_LIMIT = 512
FLOOD = 600
LEGITIMATE = 8
# A legitimate call's deadline from its connect to its answer.
ANSWER_WITHIN = 5.0

checks = 0
failed = 0


def report(ok, name, why=""):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {checks} - {name}")
    if why:
        print(f"# {why}")
    sys.stdout.flush()


def limit_descriptors():
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT_LIMIT, hard))


def start_demo(path, extra_fds):
    proc = subprocess.Popen([path, "--http=0"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=limit_descriptors,
                            pass_fds=extra_fds, close_fds=True)
    line = proc.stdout.readline().decode().strip()
    # http://127.0.0.1:PORT/mcp
    port = int(line.rsplit(":", 1)[1].split("/", 1)[0])
    return proc, port


BODY = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "tools/call",
    "params": {"name": "echo", "arguments": {"text": "served"},
               "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                         "io.modelcontextprotocol/clientCapabilities": {}}},
}).encode()


def call_echo(port):
    """One legitimate client: connect, call echo, read the answer. Returns
    (seconds taken, None) or (seconds, what went wrong)."""
    start = time.monotonic()
    deadline = start + ANSWER_WITHIN
    request = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
               "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
               "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"
               f"Connection: close\r\nContent-Length: {len(BODY)}\r\n\r\n").encode() + BODY
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=ANSWER_WITHIN)
    except OSError as e:
        return time.monotonic() - start, f"connect: {e}"
    with s:
        s.settimeout(max(deadline - time.monotonic(), 0.01))
        got = b""
        try:
            s.sendall(request)
            while b'"served"' not in got:
                s.settimeout(max(deadline - time.monotonic(), 0.01))
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except OSError as e:
            return time.monotonic() - start, f"{e} after {got[:80]!r}"
        taken = time.monotonic() - start
        if not got.startswith(b"HTTP/1.1 200") or b'"served"' not in got:
            return taken, f"answered {got[:120]!r}"
        return taken, None


class Flood:
    """FLOOD connections kept open: even ones silent, odd ones sending a
    request head a byte a second."""

    HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 200

    def __init__(self, port):
        self.sockets = []
        self.stop = threading.Event()
        for i in range(FLOOD):
            s = socket.socket()
            s.setblocking(False)
            s.connect_ex(("127.0.0.1", port))
            self.sockets.append(s)
        self.thread = threading.Thread(target=self.drip, daemon=True)
        self.thread.start()

    def drip(self):
        offset = 0
        while not self.stop.wait(1.0):
            for s in self.sockets[1::2]:
                try:
                    s.send(self.HEAD[offset % len(self.HEAD):offset % len(self.HEAD) + 1])
                except OSError:
                    pass
            offset += 1

    def close(self):
        self.stop.set()
        self.thread.join()
        for s in self.sockets:
            s.close()


def run(path, name, extra):
    fds = []
    for _ in range(extra):
        fds.append(os.open(os.devnull, os.O_RDONLY))
    proc, port = start_demo(path, fds)
    for fd in fds:
        os.close(fd)
    errors = []
    try:
        taken, error = call_echo(port)
        report(error is None, f"{name}: served before the flood", error or f"{taken:.2f} s")

        flood = Flood(port)
        try:
            # Let the flood fill the connections, and their descriptors.
            time.sleep(2.0)
            times = []
            for i in range(LEGITIMATE):
                taken, error = call_echo(port)
                times.append(taken)
                if error is not None:
                    errors.append(f"call {i}: {error} ({taken:.2f} s)")
                time.sleep(0.5)
            report(not errors, f"{name}: {LEGITIMATE} legitimate clients served during the flood, "
                   f"each within {ANSWER_WITHIN} s",
                   "; ".join(errors) if errors else
                   "slowest %.2f s, median %.2f s" % (max(times), sorted(times)[len(times) // 2]))
            report(proc.poll() is None, f"{name}: the server is alive")
        finally:
            flood.close()
        taken, error = call_echo(port)
        report(error is None, f"{name}: served after the flood", error or f"{taken:.2f} s")
    finally:
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    return err.decode(errors="replace")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SNODO_DEMO")
    if not path:
        print("Bail out! no snodo-demo given")
        return 1
    # The flood needs descriptors of its own.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < FLOOD + 200:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))

    log = run(path, "bounded", 0)
    report("HTTP connections are limited to 448, not 1024" in log,
           "the bound below the soft limit of open files is logged",
           log.strip().replace("\n", "\n# ")[:600])
    run(path, "out of descriptors", 150)

    print(f"1..{checks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
