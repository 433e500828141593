#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""Black-box mutation fuzzing of snodo-demo, over a pipe or over HTTP.

    bench/fuzz-demo.py --transport=stdio|http --seconds=N [--seed=S]
                       [--findings=DIR] path/to/snodo-demo

A small mutator takes JSON-RPC messages a client sends (initialize, every
demo tool, ping, lists, cancellations, answers to the server's own
requests, and the malformed shapes found before) and mutates them at the
JSON level (ids swapped for those of requests in progress or of the
server's requests, members dropped, added or retyped, values replaced) and
at the byte level (bytes flipped, cut, repeated, newlines and NULs put in).

Over stdio, one process gets every line on one pipe; over HTTP, each
mutated message is POSTed (2026-07-28 headers, or a 2025-11-25 session's)
on kept-alive connections. The checks:

  - the process stays alive, and exits cleanly once its input ends (stdio);
  - every answer's id is that of a message the client sent with a "method"
    (a request, however malformed), or null: never an id of a message
    without "method", never an id nobody sent;
  - no id is answered more often than requests with it were sent (each
    request with an id answered at most once);
  - over HTTP, a POST is answered with its own id or null, never another;
  - standard error holds no AddressSanitizer or UBSan report.

Prints one summary line (JSON) on standard output: executions (messages
sent), answers, the seconds run, and the findings; the inputs of a finding
are kept under --findings. Exit status 1 when something was found.
"""

import argparse
import copy
import http.client
import json
import os
import random
import re
import select
import subprocess
import sys
import time

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}

TOOLS = [
    ("echo", {"text": "hi"}),
    ("add", {"a": 2, "b": 40}),
    ("sleep", {"ms": 50}),
    ("fail", {}),
    ("blob", {"bytes": 1000}),
    ("progress", {"steps": 3}),
    ("ask", {"question": "Go on?"}),
    ("log", {"level": "info", "text": "x"}),
    ("toggle", {}),
    ("touch", {}),
    ("version", {}),
    ("chart", {"values": [1, 2, 3]}),
]

INTERESTING = [0, -1, 1, 2, 2**31, 2**63 - 1, -2**63, 2**63, 1.5, 1e308, "", "1", "\u0000",
               "\U0001F600", None, True, False, [], {}, [1, [2, [3]]], {"a": {"b": {}}},
               "x" * 300]


class Mutator:
    def __init__(self, rng):
        self.rng = rng
        self.next_id = 1
        # Ids of the client's requests sent and not known to be answered,
        # and of the server's requests seen.
        self.live = []
        self.server_ids = []

    def interesting(self):
        return copy.deepcopy(self.rng.choice(INTERESTING))

    def fresh_id(self):
        self.next_id += 1
        if self.rng.random() < 0.2:
            return f"s{self.next_id}"
        return self.next_id

    def some_id(self):
        r = self.rng.random()
        if r < 0.3 and self.server_ids:
            return self.rng.choice(self.server_ids[-8:])
        if r < 0.5 and self.live:
            return self.rng.choice(self.live[-8:])
        if r < 0.55:
            return self.interesting()
        return self.fresh_id()

    def base(self, modern):
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            name, arguments = rng.choice(TOOLS)
            params = {"name": name, "arguments": dict(arguments)}
            if rng.random() < 0.3:
                params["_meta"] = {"progressToken": self.fresh_id()}
            msg = {"jsonrpc": "2.0", "id": self.some_id(), "method": "tools/call", "params": params}
        elif r < 0.55:
            method = rng.choice(["ping", "tools/list", "prompts/list", "resources/list",
                                 "resources/templates/list", "logging/setLevel", "completion/complete",
                                 "resources/read", "prompts/get", "resources/subscribe", "no/such"])
            msg = {"jsonrpc": "2.0", "id": self.some_id(), "method": method, "params": {}}
        elif r < 0.65:
            msg = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": self.some_id(), "reason": "fuzz"}}
        elif r < 0.8:
            answer = rng.choice([{"result": {"action": "accept", "content": {"confirm": True}}},
                                 {"result": {"action": "decline"}},
                                 {"error": {"code": -1, "message": "no"}}, {}])
            msg = {"jsonrpc": "2.0", "id": self.some_id(), **answer}
        elif r < 0.9:
            # The id-only shapes, with the id of a request in progress.
            msg = rng.choice([{"jsonrpc": "2.0", "id": self.some_id()}, {"id": self.some_id()}])
        else:
            msg = {"jsonrpc": "2.0", "method": rng.choice(["notifications/initialized",
                                                           "notifications/roots/list_changed",
                                                           "notifications/whatever"])}
        if modern and "method" in msg and isinstance(msg.get("params"), dict):
            msg["params"]["_meta"] = dict(ENVELOPE, **msg["params"].get("_meta", {}))
        return msg

    def mutate_json(self, msg):
        rng = self.rng
        for _ in range(rng.randint(0, 3)):
            r = rng.random()
            keys = list(msg.keys())
            if r < 0.25 and keys:
                del msg[rng.choice(keys)]
            elif r < 0.5:
                msg[rng.choice(["id", "method", "params", "result", "error", "jsonrpc", "x"])] = \
                    (self.interesting() if rng.random() < 0.8 else self.some_id())
            elif r < 0.7 and isinstance(msg.get("params"), dict):
                params = msg["params"]
                target = params.get("arguments") if isinstance(params.get("arguments"), dict) else params
                if target:
                    target[rng.choice(list(target.keys()))] = self.interesting()
                else:
                    target["k"] = self.interesting()
            elif r < 0.85:
                msg["id"] = self.some_id()
            else:
                depth = rng.randint(1, 200)
                msg.setdefault("params", {})
                if isinstance(msg["params"], dict):
                    msg["params"]["deep"] = json.loads("[" * depth + "]" * depth)
        return msg

    def mutate_bytes(self, data):
        rng = self.rng
        data = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if not data:
                break
            i = rng.randrange(len(data))
            if r < 0.3:
                data[i] = rng.randrange(256)
            elif r < 0.5:
                del data[i:i + rng.randint(1, 8)]
            elif r < 0.65:
                data[i:i] = rng.choice([b"\x00", b"\r", b"\"", b"\\", b"{", b"}", b"[", b",", b"\xff",
                                        b"\xc3", b"\\u0000", b"\\ud800", b"1e999", b"-0"])
            elif r < 0.8:
                j = rng.randrange(len(data))
                data[i:i] = data[min(i, j):max(i, j)][:64]
            else:
                del data[i:]
        return bytes(data)

    def next(self, modern):
        """A message: (bytes without newline, its JSON or None)."""
        msg = copy.deepcopy(self.base(modern))
        if self.rng.random() < 0.5:
            msg = self.mutate_json(msg)
        data = json.dumps(msg, separators=(",", ":")).encode()
        if self.rng.random() < 0.25:
            data = self.mutate_bytes(data)
        data = data.replace(b"\n", b" ")
        return data


def strict_parse(data):
    """What Snodo would read as a message: a dict, or None when unreadable
    (Python is more lenient in places: duplicate keys, NaN; those count as
    unreadable)."""
    def pairs(items):
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate")
        return dict(items)

    def constant(name):
        raise ValueError(name)
    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=pairs, parse_constant=constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def id_key(value):
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int) and -2**63 <= value < 2**63:
        return f"i:{value}"
    if isinstance(value, str):
        return "s:" + value
    return None


ID_RE = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')


def allowed_keys(data, msg):
    """The id keys an answer to @data may carry: its id when it has a
    "method"; for an unreadable line, any id it seems to hold (lenient)."""
    if msg is not None:
        if "method" in msg:
            key = id_key(msg.get("id"))
            return [key] if key else []
        return []
    keys = []
    for m in ID_RE.finditer(data):
        try:
            keys.append(id_key(json.loads(m.group(1))))
        except ValueError:
            pass
    return [k for k in keys if k]


SANITIZER_RE = re.compile(r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|"
                          r"\bCRITICAL\b|\*\*\s*\n?ERROR")


class Findings:
    def __init__(self, directory, transport):
        self.items = []
        self.more = 0
        self.directory = directory
        self.transport = transport

    def add(self, what, inputs):
        # The first 20 are kept whole; the rest only counted.
        if len(self.items) >= 20:
            self.more += 1
            return
        self.items.append(what)
        if self.directory:
            os.makedirs(self.directory, exist_ok=True)
            path = os.path.join(self.directory, f"{self.transport}-{len(self.items)}")
            with open(path, "wb") as f:
                f.write(b"\n".join(inputs[-200:]) + b"\n")
            self.items[-1] += f" (inputs: {path})"


def fuzz_stdio(demo, seconds, rng, findings):
    proc = subprocess.Popen([demo], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, bufsize=0)
    os.set_blocking(proc.stdout.fileno(), False)
    os.set_blocking(proc.stderr.fileno(), False)
    os.set_blocking(proc.stdin.fileno(), False)
    mutator = Mutator(rng)
    sent = []
    allowance = {}
    answers = {}
    n_answers = 0
    pending = b""
    stderr = b""
    reported = set()

    def note_answers(block):
        nonlocal pending, n_answers
        pending += block
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            try:
                msg = json.loads(line)
            except ValueError:
                findings.add(f"stdio: a line that is not JSON: {line[:100]!r}", sent)
                continue
            if not isinstance(msg, dict):
                findings.add(f"stdio: a line that is not an object: {line[:100]!r}", sent)
                continue
            if "method" in msg:
                key = id_key(msg.get("id"))
                if key:
                    mutator.server_ids.append(msg["id"])
                continue
            if "id" not in msg:
                findings.add(f"stdio: an answer without id: {line[:100]!r}", sent)
                continue
            n_answers += 1
            key = id_key(msg["id"])
            if key is None:
                continue
            answers[key] = answers.get(key, 0) + 1
            if key in mutator_live_keys:
                mutator_live_keys.discard(key)
            if answers[key] > allowance.get(key, 0) and key not in reported:
                reported.add(key)
                findings.add(f"stdio: id {msg['id']!r} answered {answers[key]} times for "
                             f"{allowance.get(key, 0)} requests: {line[:160]!r}", sent)

    def drain(timeout):
        nonlocal stderr
        ready, _, _ = select.select([proc.stdout, proc.stderr], [], [], timeout)
        for f in ready:
            try:
                block = f.read(1 << 20)
            except BlockingIOError:
                continue
            if not block:
                continue
            if f is proc.stdout:
                note_answers(block)
            else:
                stderr += block

    mutator_live_keys = set()
    initialize = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                             "clientInfo": {"name": "fuzz", "version": "1"}}}
    for line in (json.dumps(initialize).encode(),
                 b'{"jsonrpc":"2.0","method":"notifications/initialized"}'):
        sent.append(line)
        allowance["i:0"] = 1
        os.write(proc.stdin.fileno(), line + b"\n")
    end = time.monotonic() + seconds
    executions = 0
    alive = True
    while time.monotonic() < end:
        data = mutator.next(modern=rng.random() < 0.2)
        msg = strict_parse(data)
        for key in allowed_keys(data, msg):
            allowance[key] = allowance.get(key, 0) + 1
            mutator_live_keys.add(key)
        if msg is not None and "method" in msg and id_key(msg.get("id")):
            mutator.live.append(msg["id"])
            mutator.live = mutator.live[-64:]
        sent.append(data)
        sent[:] = sent[-2000:]
        out = data + b"\n"
        try:
            while out:
                # Never blocked writing while the demo waits for its own
                # output to be read (it would end at --write-timeout).
                _, writable, _ = select.select([], [proc.stdin], [], 0.05)
                if writable:
                    out = out[os.write(proc.stdin.fileno(), out):]
                drain(0)
                if proc.poll() is not None:
                    break
        except (BrokenPipeError, OSError):
            alive = False
            break
        executions += 1
        if proc.poll() is not None:
            alive = False
            break
    if not alive or proc.poll() is not None:
        findings.add(f"stdio: the process ended during the run (status {proc.poll()})", sent)
    else:
        try:
            proc.stdin.close()
        except OSError:
            pass
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            drain(0.1)
        if proc.poll() is None:
            proc.kill()
            findings.add("stdio: the process did not exit within 60 s of the end of its input", sent)
        else:
            drain(0)
            if proc.returncode != 0:
                findings.add(f"stdio: exit status {proc.returncode} at the end of input", sent)
    os.set_blocking(proc.stdout.fileno(), True)
    os.set_blocking(proc.stderr.fileno(), True)
    note_answers(proc.stdout.read() or b"")
    stderr += proc.stderr.read() or b""
    text = stderr.decode(errors="replace")
    if SANITIZER_RE.search(text):
        findings.add("stdio: standard error holds a sanitizer report or a critical: "
                     + SANITIZER_RE.search(text).group(0), sent)
    return executions, n_answers, text


def fuzz_http(demo, seconds, rng, findings):
    proc = subprocess.Popen([demo, "--http=0"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    url = proc.stdout.readline().decode().strip()
    port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
    mutator = Mutator(rng)
    sent = []
    executions = 0
    n_answers = 0
    connections = [None] * 4

    def connection(i):
        if connections[i] is None:
            connections[i] = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        return connections[i]

    end = time.monotonic() + seconds
    while time.monotonic() < end:
        modern = True
        data = mutator.next(modern)
        msg = strict_parse(data)
        sent.append(data)
        sent[:] = sent[-2000:]
        method = msg.get("method") if msg is not None and isinstance(msg.get("method"), str) else "x"
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                   "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method.encode("ascii", "replace")
                   .decode().replace("\r", " ").replace("\n", " ")[:200] or "x"}
        if method == "tools/call" and isinstance(msg.get("params"), dict) and \
                isinstance(msg["params"].get("name"), str):
            headers["Mcp-Name"] = msg["params"]["name"].encode("ascii", "replace").decode()[:200] or "x"
        i = rng.randrange(len(connections))
        try:
            c = connection(i)
            c.request("POST", "/mcp", body=data, headers=headers)
            response = c.getresponse()
            body = response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as e:
            connections[i] = None
            if proc.poll() is not None:
                findings.add(f"http: the process ended (status {proc.returncode}) at {e!r}", sent)
                break
            continue
        executions += 1
        allowed = allowed_keys(data, msg)
        for block in answers_of(body):
            n_answers += 1
            if not isinstance(block, dict) or "method" in block:
                continue
            key = id_key(block.get("id"))
            if key is not None and key not in allowed:
                findings.add(f"http: a POST answered with id {block.get('id')!r} (status {status}): "
                             f"{data[:160]!r}", sent)
    for c in connections:
        if c is not None:
            c.close()
    if proc.poll() is not None:
        findings.add(f"http: the process ended during the run (status {proc.returncode})", sent)
    else:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            findings.add("http: the process did not end within 30 s of SIGTERM", sent)
        if proc.returncode not in (0, None):
            findings.add(f"http: exit status {proc.returncode} after SIGTERM", sent)
    _, err = proc.communicate()
    text = err.decode(errors="replace")
    if SANITIZER_RE.search(text):
        findings.add("http: standard error holds a sanitizer report or a critical: "
                     + SANITIZER_RE.search(text).group(0), sent)
    return executions, n_answers, text


def answers_of(body):
    """The JSON-RPC messages of an HTTP answer: one JSON object, or the data
    of the events of an event stream."""
    body = body.strip()
    if not body:
        return []
    if body.startswith(b"{"):
        try:
            return [json.loads(body)]
        except ValueError:
            return [None]
    out = []
    for line in body.split(b"\n"):
        if line.startswith(b"data:"):
            payload = line[5:].strip()
            if payload:
                try:
                    out.append(json.loads(payload))
                except ValueError:
                    out.append(None)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--findings", default=None)
    parser.add_argument("demo")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(2**32)
    rng = random.Random(seed)
    findings = Findings(args.findings, args.transport)
    start = time.monotonic()
    if args.transport == "stdio":
        executions, answers, _ = fuzz_stdio(args.demo, args.seconds, rng, findings)
    else:
        executions, answers, _ = fuzz_http(args.demo, args.seconds, rng, findings)
    print(json.dumps({"transport": args.transport, "seed": seed, "seconds": round(time.monotonic() - start, 1),
                      "executions": executions, "answers": answers, "findings": findings.items,
                      "more_findings": findings.more}))
    return 1 if findings.items else 0


if __name__ == "__main__":
    sys.exit(main())
