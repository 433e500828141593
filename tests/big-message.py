#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""One large message through snodo-demo, black-box over a pipe and over
HTTP (real sockets): it comes back exactly, it costs at most 2.5 times its
size in peak resident memory above the server's baseline (two copies: its
tree and its answer, never the text beside them), and the budgets still
refuse what they must (max-live-bytes over both transports,
max-bodies-bytes for a large body of announced length).

Memory is measured, not timed: VmHWM from /proc/PID/status, reset after
the baseline with /proc/PID/clear_refs. Those checks are skipped under
AddressSanitizer (its allocator keeps freed memory) and where /proc is
missing. The figures at 10 and 100 MiB are in bench/README.md
(bench/memory --only message).

TAP output.

    tests/big-message.py path/to/snodo-demo   (or $SNODO_DEMO)
"""

import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

SIZE = 32 * 1024 * 1024
BOUND = 2.5
TIMEOUT = 120.0
V2025 = "2025-11-25"
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}

checks = 0
failed = 0


def report(ok, name, why=""):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {checks} - {name}")
    if not ok and why:
        print("# " + str(why).replace("\n", "\n# "))
    sys.stdout.flush()


def skip(name, why):
    global checks
    checks += 1
    print(f"ok {checks} - {name} # SKIP {why}")
    sys.stdout.flush()


def bail(why):
    print(f"Bail out! {why}")
    sys.exit(1)


def plain_text(n):
    unit = "abcdefghijklmnopqrstuvwxyz0123456789"
    return (unit * (n // len(unit) + 1))[:n]


def escaped_text(n):
    """Text whose JSON has escapes all along (read the slow way)."""
    unit = 'line "quoted" \\ tab\t\u00e9\u4e2d\U0001f600\n'
    return (unit * (n // len(unit) + 1))[:n]


def call(rid, text, meta=None):
    params = {"name": "echo", "arguments": {"text": text}}
    if meta:
        params["_meta"] = meta
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": params},
                      separators=(",", ":")).encode()


def text_of(message):
    try:
        return message["result"]["content"][0]["text"]
    except (KeyError, IndexError, TypeError):
        return None


def status_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            m = re.search(field + r":\s+(\d+)", f.read())
        return int(m.group(1)) if m else None
    except OSError:
        return None


def reset_peak(pid):
    try:
        with open(f"/proc/{pid}/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


class Peak:
    """VmRSS now; later, the peak above it per byte of the message."""

    def __init__(self, pid, sanitized):
        self.pid = pid
        self.why = ("under AddressSanitizer, whose allocator holds freed memory" if sanitized else None)
        self.baseline = status_kb(pid, "VmRSS")
        if self.why is None and (self.baseline is None or not reset_peak(pid)):
            self.why = "no /proc/PID/status and clear_refs here"

    def check(self, name, size=SIZE, bound=BOUND):
        if self.why is not None:
            skip(name, self.why)
            return
        peak = status_kb(self.pid, "VmHWM")
        ratio = (peak - self.baseline) * 1024 / size
        print(f"# VmRSS {self.baseline} kB before, peak {peak} kB: {ratio:.2f} x the message")
        report(ratio <= bound, name, f"{ratio:.2f} x")


def sanitized(demo_path):
    with open(demo_path, "rb") as f:
        return b"__asan_init" in f.read()


# ---------------------------------------------------------------- stdio

class Stdio:
    def __init__(self, demo_path, *options):
        self.proc = subprocess.Popen([demo_path, f"--max-line-bytes={2 * SIZE}", *options],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.send(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                              "params": {"protocolVersion": V2025, "capabilities": {},
                                         "clientInfo": {"name": "big-message", "version": "1"}}}).encode())
        self.proc.stdout.readline()
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')

    def send(self, line):
        # Written from a thread: the answer may come while a long line is
        # still being written.
        def write():
            self.proc.stdin.write(line + b"\n")
            self.proc.stdin.flush()
        writer = threading.Thread(target=write)
        writer.start()
        return writer

    def call(self, rid, text):
        writer = self.send(call(rid, text))
        answer = json.loads(self.proc.stdout.readline())
        writer.join()
        return answer

    def close(self):
        self.proc.stdin.close()
        err = self.proc.stderr.read()
        self.proc.wait(timeout=TIMEOUT)
        return self.proc.returncode, err.decode(errors="replace")


def run_stdio(demo_path, is_sanitized):
    server = Stdio(demo_path)
    try:
        peak = Peak(server.proc.pid, is_sanitized)
        text = plain_text(SIZE)
        answer = server.call(1, text)
        report(text_of(answer) == text, "stdio: a 32 MiB echo comes back exactly",
               json.dumps(answer)[:300])
        peak.check(f"stdio: its peak memory stays within {BOUND} x its size")
        del text, answer

        # Its line is 28 MB, its string 16 MB: the line, the string decoded
        # beside it and another copy in a scratch buffer made 2.2 x the line.
        text = escaped_text(16 * 1024 * 1024)
        line_size = len(call(2, text))
        peak = Peak(server.proc.pid, is_sanitized)
        answer = server.call(2, text)
        report(text_of(answer) == text, "stdio: a 16 MiB echo full of escapes comes back exactly",
               json.dumps(answer)[:300])
        peak.check("stdio: its peak memory stays within 2 x the size of its line", line_size, 2.0)
        answer = server.call(3, "after")
        report(text_of(answer) == "after", "stdio: a small echo after them is answered", answer)
    finally:
        status, err = server.close()
    report(status == 0, "stdio: snodo-demo exits with status 0 at the end of its input", status)
    warnings = [l for l in err.splitlines() if "CRITICAL" in l or "WARNING" in l]
    report(not warnings, "stdio: snodo-demo writes no warning", "\n".join(warnings[:5]))

    # What the decoded request would hold is over max-live-bytes: refused.
    server = Stdio(demo_path, "--max-live-bytes=16000000")
    try:
        answer = server.call(1, plain_text(SIZE))
        report(answer.get("id") == 1 and answer.get("error", {}).get("code") == -32010,
               "stdio: a 32 MiB call over max-live-bytes (16 MB) is refused with -32010",
               json.dumps(answer)[:300])
        answer = server.call(2, "after")
        report(text_of(answer) == "after", "stdio: a small echo after the refusal is answered", answer)
    finally:
        server.close()


# ---------------------------------------------------------------- HTTP

class Http:
    def __init__(self, demo_path, *options):
        self.proc = subprocess.Popen([demo_path, "--http", "0", f"--max-line-bytes={2 * SIZE}", *options],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r":(\d+)/", line)
        if not m:
            self.proc.kill()
            bail(f"no address printed: {line!r}")
        self.port = int(m.group(1))

    def head(self, length=None):
        head = (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n")
        head += f"Content-Length: {length}\r\n" if length is not None else "Transfer-Encoding: chunked\r\n"
        return (head + "\r\n").encode()

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=TIMEOUT)

    @staticmethod
    def response(sock):
        """(status, JSON body) of the response on @sock."""
        got = b""
        while b"\r\n\r\n" not in got:
            chunk = sock.recv(1 << 20)
            if not chunk:
                return None, None
            got += chunk
        head, _, rest = got.partition(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        m = re.search(rb"(?i)content-length:\s*(\d+)", head)
        length = int(m.group(1)) if m else None
        parts = [rest]
        have = len(rest)
        while length is None or have < length:
            chunk = sock.recv(1 << 20)
            if not chunk:
                break
            parts.append(chunk)
            have += len(chunk)
        body = b"".join(parts)
        try:
            return status, json.loads(body)
        except ValueError:
            return status, None

    def call(self, body, chunked=False):
        with self.connect() as sock:
            def send():
                try:
                    if chunked:
                        sock.sendall(self.head())
                        for i in range(0, len(body), 1 << 20):
                            piece = body[i:i + (1 << 20)]
                            sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
                        sock.sendall(b"0\r\n\r\n")
                    else:
                        sock.sendall(self.head(len(body)) + body)
                except OSError:
                    pass
            sender = threading.Thread(target=send)
            sender.start()
            result = self.response(sock)
            sender.join()
            return result

    def close(self):
        self.proc.terminate()
        _, err = self.proc.communicate(timeout=TIMEOUT)
        return self.proc.returncode, err


def run_http(demo_path, is_sanitized):
    server = Http(demo_path)
    try:
        server.call(call(0, "warm", META))
        peak = Peak(server.proc.pid, is_sanitized)
        text = plain_text(SIZE)
        status, answer = server.call(call(1, text, META))
        report(status == 200 and text_of(answer) == text,
               "HTTP: a 32 MiB echo (Content-Length) comes back exactly", f"{status} {json.dumps(answer)[:300]}")
        peak.check(f"HTTP: its peak memory stays within {BOUND} x its size")

        peak = Peak(server.proc.pid, is_sanitized)
        status, answer = server.call(call(2, text, META), chunked=True)
        report(status == 200 and text_of(answer) == text,
               "HTTP: a 32 MiB echo (chunked) comes back exactly", f"{status} {json.dumps(answer)[:300]}")
        peak.check(f"HTTP: its peak memory stays within {BOUND} x its size, chunked")
        del text, answer

        text = escaped_text(16 * 1024 * 1024)
        body = call(3, text, META)
        peak = Peak(server.proc.pid, is_sanitized)
        status, answer = server.call(body)
        report(status == 200 and text_of(answer) == text,
               "HTTP: a 16 MiB echo full of escapes comes back exactly", f"{status} {json.dumps(answer)[:300]}")
        peak.check("HTTP: its peak memory stays within 2 x the size of its body", len(body), 2.0)
    finally:
        status, err = server.close()
    report(status == 0, "HTTP: snodo-demo exits with status 0 on SIGTERM", status)
    warnings = [l for l in err.splitlines() if "CRITICAL" in l or "WARNING" in l]
    report(not warnings, "HTTP: snodo-demo writes no warning", "\n".join(warnings[:5]))

    server = Http(demo_path, "--max-live-bytes=16000000")
    try:
        status, answer = server.call(call(1, plain_text(SIZE), META))
        report(status == 503 and (answer or {}).get("error", {}).get("code") == -32010,
               "HTTP: a 32 MiB call over max-live-bytes (16 MB) is refused: 503, -32010",
               f"{status} {json.dumps(answer)[:300]}")

        # max-bodies-bytes is 64 MiB (snodo-demo's default): a body of 40 MiB
        # announced while another of 40 MiB is still arriving is refused at
        # once; the first is then served.
        big = call(2, plain_text(40 * 1024 * 1024), META)
        first = server.connect()
        first.sendall(server.head(len(big)) + big[:1024 * 1024])
        # Not timed: the server must only have read the first's headers
        # before the second's come.
        time.sleep(1.0)
        with server.connect() as second:
            second.sendall(server.head(len(big)))
            status, answer = server.response(second)
        error = (answer or {}).get("error", {})
        report(status == 503 and error.get("code") == -32010 and "bodies" in error.get("message", ""),
               "HTTP: a body beyond what is left of max-bodies-bytes is refused at once: 503, -32010",
               f"{status} {json.dumps(answer)[:300]}")
        with first:
            first.sendall(big[1024 * 1024:])
            status, answer = server.response(first)
        report(status == 503 and (answer or {}).get("error", {}).get("code") == -32010,
               "HTTP: the first body, once whole, is then refused by max-live-bytes: 503, -32010",
               f"{status} {json.dumps(answer)[:300]}")
        status, answer = server.call(call(3, "after", META))
        report(status == 200 and text_of(answer) == "after", "HTTP: a small echo after the refusals is answered",
               f"{status} {answer}")
    finally:
        server.close()


def main():
    demo_path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SNODO_DEMO")
    if not demo_path:
        bail("no snodo-demo given")
    is_sanitized = sanitized(demo_path)
    run_stdio(demo_path, is_sanitized)
    run_http(demo_path, is_sanitized)
    print(f"1..{checks}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
