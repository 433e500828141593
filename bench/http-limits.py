#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors

"""What hostile or careless HTTP clients cost snodo-demo --http: its
resident set (VmRSS) before and after each workload, and what the other
clients get meanwhile. Loopback only; nothing is timed.

    bench/http-limits.py [--demo PATH] [--only NAME,...]

Workloads:
  readers      10 subscriptions/listen streams read everything while
               5,000 tool-list changes are announced
  non-readers  200 listen streams that never read, then 2,000 changes
  bodies       300 connections each stopping 1.9 MB into a 2,000,000-byte
               body
  listeners    --max-running=8 --max-queued=0: 8 idle listen streams,
               then 20 echo calls (how many are refused)
  sessions     1,000 abandoned 2025 initialize calls, then a new client
               (its status)
"""

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import time

ENVELOPE = ('"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
            '"io.modelcontextprotocol/clientCapabilities":{}}')


class Demo:
    def __init__(self, path, *args):
        self.proc = subprocess.Popen([path, "--http", "0", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.port = int(re.search(r":(\d+)/", self.proc.stdout.readline()).group(1))

    def rss_kb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))

    def close(self):
        self.proc.terminate()
        self.proc.wait()

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port))

    def post(self, sock, body, method=None, name=None, session=None):
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n")
        if method:
            head += f"MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}\r\n"
        if name:
            head += f"Mcp-Name: {name}\r\n"
        if session:
            head += f"Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25\r\n"
        data = body.encode()
        sock.sendall(head.encode() + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)

    def call(self, tool, arguments="{}"):
        """A 2026-07-28 tools/call on a new connection: (status, body)."""
        with self.connect() as sock:
            self.post(sock, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
                      f'{{"name":"{tool}","arguments":{arguments},{ENVELOPE}}}}}',
                      method="tools/call", name=tool)
            return read_response(sock)

    def listen(self, ident):
        sock = self.connect()
        self.post(sock, f'{{"jsonrpc":"2.0","id":"{ident}","method":"subscriptions/listen","params":'
                  f'{{"notifications":{{"toolsListChanged":true}},{ENVELOPE}}}}}',
                  method="subscriptions/listen")
        return sock


def read_response(sock, timeout=20):
    """One response with a Content-Length: (status, body); (0, '') if the
    connection ended first."""
    sock.settimeout(timeout)
    data = b""
    while True:
        end = data.find(b"\r\n\r\n")
        if end >= 0:
            m = re.search(rb"Content-Length: (\d+)", data[:end])
            if m and len(data) >= end + 4 + int(m.group(1)):
                return int(data[9:12]), data[end + 4:end + 4 + int(m.group(1))].decode()
        try:
            chunk = sock.recv(65536)
        except (ConnectionError, socket.timeout):
            chunk = b""
        if not chunk:
            return 0, ""
        data += chunk


def read_until(sock, needle, timeout=20):
    sock.settimeout(timeout)
    data = b""
    while needle not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    return data


def settle(demo):
    time.sleep(1.0)
    return demo.rss_kb()


def readers(path):
    demo = Demo(path)
    socks = [demo.listen(f"r{i}") for i in range(10)]
    for s in socks:
        read_until(s, b"acknowledged")
        s.setblocking(False)
    before = settle(demo)
    for n in range(5000):
        demo.call("toggle")
        if n % 50 == 0:
            for s in socks:
                try:
                    while s.recv(1 << 20):
                        pass
                except BlockingIOError:
                    pass
    for s in socks:
        try:
            while s.recv(1 << 20):
                pass
        except BlockingIOError:
            pass
    after = settle(demo)
    demo.close()
    return f"RSS {before} kB -> {after} kB ({after - before:+d} kB)"


def non_readers(path):
    demo = Demo(path)
    socks = []
    for i in range(200):
        s = demo.listen(f"q{i}")
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        socks.append(s)
    before = settle(demo)
    for n in range(2000):
        demo.call("toggle")
    after = settle(demo)
    demo.close()
    return f"RSS {before} kB -> {after} kB ({after - before:+d} kB)"


def bodies(path):
    demo = Demo(path)
    before = settle(demo)
    socks, refused = [], 0
    head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{demo.port}\r\n"
            "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
            "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"
            "Content-Length: 2000000\r\n\r\n").encode()
    filler = b" " * 1900000
    for i in range(300):
        s = demo.connect()
        try:
            s.sendall(head)
            s.settimeout(5)
            s.sendall(filler)
        except (ConnectionError, socket.timeout):
            refused += 1
        socks.append(s)
    after = settle(demo)
    answered = 0
    for s in socks:
        s.setblocking(False)
        try:
            if s.recv(12).startswith(b"HTTP/1.1 503"):
                answered += 1
        except (BlockingIOError, ConnectionError):
            pass
    demo.close()
    return (f"RSS {before} kB -> {after} kB ({after - before:+d} kB); "
            f"{answered} answered 503 at once, {refused} cut off while sending")


def listeners(path):
    demo = Demo(path, "--max-running=8", "--max-queued=0")
    socks = [demo.listen(f"l{i}") for i in range(8)]
    for s in socks:
        read_until(s, b"acknowledged")
    statuses = [demo.call("echo", '{"text":"x"}')[0] for _ in range(20)]
    demo.close()
    return f"20 echo calls beside 8 idle listeners: {statuses.count(200)} answered 200, " \
           f"{statuses.count(503)} refused 503"


def sessions(path):
    demo = Demo(path)
    init = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
            '"capabilities":{},"clientInfo":{"name":"b","version":"1"}}}')
    ok = 0
    for _ in range(1000):
        with demo.connect() as s:
            demo.post(s, init)
            ok += read_response(s)[0] == 200
    with demo.connect() as s:
        demo.post(s, init)
        status = read_response(s)[0]
    demo.close()
    return f"{ok} of 1000 abandoned initialize answered 200; then a new client: {status}"


WORKLOADS = {"readers": readers, "non-readers": non_readers, "bodies": bodies,
             "listeners": listeners, "sessions": sessions}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--demo", default=os.path.join(here, "..", "_build", "examples", "snodo-demo"))
    parser.add_argument("--only", default=",".join(WORKLOADS))
    args = parser.parse_args()
    for name in args.only.split(","):
        print(f"{name:12} {WORKLOADS[name](args.demo)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
