#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""2025-11-25 tasks over Streamable HTTP, black-box against
snodo-demo --http 0 --task-store=memory through real sockets:

- a task's status notifications and its request for input travel on the
  session's standalone GET stream; the client answers the request with a
  POST and fetches the result with tasks/result;
- a task belongs to the session that made it: tasks/get, tasks/result and
  tasks/cancel from another session, or from a 2026-07-28 request (no
  session), are answered as for an unknown task (-32602, the same
  message), and tasks/list of another session does not show it.

TAP output.

    tests/tasks-http.py path/to/snodo-demo   (or $SNODO_DEMO)
"""

import http.client
import json
import os
import queue
import subprocess
import sys
import threading
import time
import urllib.parse

TIMEOUT = 30.0
LEGACY = "2025-11-25"
MODERN = "2026-07-28"

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


def bail(why):
    print(f"Bail out! {why}")
    sys.exit(1)


def parse_body(resp):
    """The JSON-RPC messages of a POST's answer: a JSON body or an event stream."""
    body = resp.read().decode()
    ctype = resp.getheader("Content-Type", "")
    if ctype.startswith("application/json"):
        return [json.loads(body)]
    if ctype.startswith("text/event-stream"):
        messages = []
        for event in body.split("\n\n"):
            data = "\n".join(line[5:].lstrip() for line in event.split("\n") if line.startswith("data:"))
            if data:
                messages.append(json.loads(data))
        return messages
    return []


class Server:
    def __init__(self, path):
        self.proc = subprocess.Popen([path, "--http", "0", "--task-store=memory"],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://"):
            bail(f"snodo-demo printed {line!r}, not its URL")
        url = urllib.parse.urlsplit(line)
        self.host, self.port, self.path = url.hostname, url.port, url.path

    def post(self, message, headers):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT)
        conn.request("POST", self.path, body=json.dumps(message),
                     headers={"Content-Type": "application/json",
                              "Accept": "application/json, text/event-stream", **headers})
        resp = conn.getresponse()
        messages = parse_body(resp)
        conn.close()
        return resp, messages

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Session:
    """A 2025-11-25 session: initialize, its id, requests by POST, and
    (once opened) its standalone GET stream read by a thread."""

    def __init__(self, server, name):
        self.server = server
        self.next_id = 1
        self.stream = queue.Queue()
        self.get_conn = None
        resp, messages = server.post({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                                      "params": {"protocolVersion": LEGACY,
                                                 "capabilities": {"elicitation": {}},
                                                 "clientInfo": {"name": name, "version": "1"}}}, {})
        self.id = resp.getheader("Mcp-Session-Id")
        if resp.status != 200 or self.id is None or not messages or "result" not in messages[-1]:
            bail(f"initialize: {resp.status} {messages}")
        self.capabilities = messages[-1]["result"].get("capabilities", {})
        resp, _ = server.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, self.headers())
        if resp.status != 202:
            bail(f"notifications/initialized: {resp.status}")

    def headers(self):
        return {"Mcp-Session-Id": self.id, "MCP-Protocol-Version": LEGACY}

    def request(self, method, params=None):
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        self.next_id += 1
        if params is not None:
            message["params"] = params
        resp, messages = self.server.post(message, self.headers())
        answers = [m for m in messages if m.get("id") == message["id"] and "method" not in m]
        if resp.status != 200 or len(answers) != 1:
            raise AssertionError(f"{method}: HTTP {resp.status}, {messages}")
        return answers[0]

    def respond(self, request_id, result):
        resp, _ = self.server.post({"jsonrpc": "2.0", "id": request_id, "result": result}, self.headers())
        return resp.status

    def open_stream(self):
        self.get_conn = http.client.HTTPConnection(self.server.host, self.server.port, timeout=TIMEOUT)
        self.get_conn.request("GET", self.server.path,
                              headers={"Accept": "text/event-stream", **self.headers()})
        resp = self.get_conn.getresponse()
        if resp.status != 200 or not resp.getheader("Content-Type", "").startswith("text/event-stream"):
            return resp.status
        threading.Thread(target=self._read_stream, args=(resp,), daemon=True).start()
        return resp.status

    def _read_stream(self, resp):
        data = []
        try:
            while True:
                line = resp.readline()
                if not line:
                    break
                line = line.decode().rstrip("\r\n")
                if line.startswith("data:"):
                    data.append(line[5:].lstrip())
                elif line == "":
                    # A priming event (id and retry, empty data) carries
                    # no message: SSE clients skip it.
                    if "".join(data):
                        self.stream.put(json.loads("\n".join(data)))
                    data = []
        except (OSError, ValueError):
            pass

    def next_on_stream(self, deadline):
        try:
            return self.stream.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None


def error_of(answer):
    error = answer.get("error") or {}
    return error.get("code"), error.get("message", "")


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SNODO_DEMO")
    if not path:
        bail("no snodo-demo: give its path or set SNODO_DEMO")
    print("TAP version 13")
    server = Server(path)
    try:
        run(server)
    finally:
        server.close()
    print(f"1..{checks}")
    return 1 if failed else 0


def run(server):
    a = Session(server, "a")
    report("tasks" in a.capabilities and "list" in a.capabilities["tasks"],
           "initialize: the tasks capability", a.capabilities)

    status = a.open_stream()
    report(status == 200, "the session's standalone GET stream opens", status)

    created = a.request("tools/call", {"name": "job", "arguments": {"steps": 4, "step_ms": 100},
                                       "task": {"ttl": 60000}})
    task = created.get("result", {}).get("task", {})
    job = task.get("taskId")
    report(job is not None and task.get("status") == "working",
           "tools/call with a task param is answered with the task at once", created)

    # The question and the statuses come on the GET stream.
    deadline = time.monotonic() + TIMEOUT
    question = None
    statuses = []
    others = []
    while question is None and time.monotonic() < deadline:
        message = a.next_on_stream(deadline)
        if message is None:
            break
        if message.get("method") == "elicitation/create":
            question = message
        elif message.get("method") == "notifications/tasks/status":
            statuses.append(message["params"])
        else:
            others.append(message)
    related = (question or {}).get("params", {}).get("_meta", {}).get("io.modelcontextprotocol/related-task", {})
    report(question is not None and "id" in question and related.get("taskId") == job,
           "the task's elicitation/create comes on the GET stream, naming its task",
           f"question {question}, statuses {statuses}, others {others}")
    if question is None:
        return

    status = a.respond(question["id"], {"action": "accept", "content": {"continue": True}})
    report(status == 202, "the answer to it is accepted by a POST (202)", status)

    answer = a.request("tasks/result", {"taskId": job})
    result = answer.get("result", {})
    text = (result.get("content") or [{}])[0].get("text")
    report(text == "job done: 4 steps" and
           result.get("_meta", {}).get("io.modelcontextprotocol/related-task", {}).get("taskId") == job,
           "tasks/result gives the job's result, with its related task", answer)

    deadline = time.monotonic() + TIMEOUT
    while not any(s.get("status") == "completed" for s in statuses) and time.monotonic() < deadline:
        message = a.next_on_stream(deadline)
        if message is None:
            break
        if message.get("method") == "notifications/tasks/status":
            statuses.append(message["params"])
    mine = [s.get("status") for s in statuses if s.get("taskId") == job]
    report(mine == ["input_required", "working", "completed"],
           "notifications/tasks/status on the GET stream: input_required, working, completed", statuses)

    # A task belongs to the session that made it.
    b = Session(server, "b")
    unknown = "0123456789abcdef0123456789abcdef"
    for method in ("tasks/get", "tasks/result", "tasks/cancel"):
        theirs = b.request(method, {"taskId": job})
        none = b.request(method, {"taskId": unknown})
        code, message = error_of(theirs)
        code_none, message_none = error_of(none)
        report(code == -32602 and code_none == -32602 and
               message.replace(job, "ID") == message_none.replace(unknown, "ID"),
               f"{method} of another session's task: -32602, as for an unknown task", f"{theirs} / {none}")
    listed = b.request("tasks/list").get("result", {}).get("tasks")
    report(listed == [], "tasks/list of another session does not show it", listed)

    def modern_get(task_id):
        messages = server.post({"jsonrpc": "2.0", "id": 1, "method": "tasks/get",
                                "params": {"taskId": task_id, "_meta": {
                                    "io.modelcontextprotocol/protocolVersion": MODERN,
                                    "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                                    "io.modelcontextprotocol/clientCapabilities": {
                                        "extensions": {"io.modelcontextprotocol/tasks": {}}}}}},
                               {"MCP-Protocol-Version": MODERN, "Mcp-Method": "tasks/get", "Mcp-Name": task_id})[1]
        return messages[-1] if messages else {}

    theirs, none = modern_get(job), modern_get(unknown)
    code, message = error_of(theirs)
    code_none, message_none = error_of(none)
    report(code == -32602 and code_none == -32602 and
           message.replace(job, "ID") == message_none.replace(unknown, "ID"),
           "tasks/get of it in 2026-07-28 (no session): -32602, as for an unknown task", f"{theirs} / {none}")

    got = a.request("tasks/get", {"taskId": job})
    report(got.get("result", {}).get("status") == "completed" and "boundToSession" not in got.get("result", {}),
           "its own session still gets it", got)

    # A running task: another session cannot cancel it; its own can.
    created = a.request("tools/call", {"name": "job", "arguments": {"steps": 100, "step_ms": 60000, "ask": False},
                                       "task": {}})
    running = created.get("result", {}).get("task", {}).get("taskId")
    refused = b.request("tasks/cancel", {"taskId": running})
    still = a.request("tasks/get", {"taskId": running})
    report(error_of(refused)[0] == -32602 and still.get("result", {}).get("status") == "working",
           "tasks/cancel from another session is refused and the task runs on", f"{refused} / {still}")
    cancelled = a.request("tasks/cancel", {"taskId": running})
    report(cancelled.get("result", {}).get("status") == "cancelled", "its own session cancels it", cancelled)


if __name__ == "__main__":
    sys.exit(main())
