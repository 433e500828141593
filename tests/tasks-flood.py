#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""A flood of tasks against snodo-demo --task-store=memory, whose store
keeps 1,000 tasks at most (SNODO_TASK_STORE_DEFAULT_MAX_TASKS): a call is
refused with -32010 while the store is full of running tasks, the oldest
finished tasks are evicted, the newest are kept, and the process's memory
stays bounded. Memory is measured (VmRSS after 4,000 calls and after
20,000), not timed. TAP output.

    tests/tasks-flood.py path/to/snodo-demo   (or $SNODO_DEMO)
"""

import json
import os
import subprocess
import sys
import time

TOTAL = 20000
WARM = 4000
BATCH = 250
# What 16,000 more tasks may add once the store is full: far less than
# keeping them all would take (their records alone are ~6 MB as JSON,
# several times that as json-glib trees).
MAX_GROWTH_KB = 3 * 1024

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}},
}

checks = 0
failed = 0


def report(ok, name, why=""):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {checks} - {name}")
    if not ok and why:
        print(f"# {why}")
    sys.stdout.flush()


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


class Demo:
    def __init__(self, path):
        self.proc = subprocess.Popen([path, "--task-store=memory"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, bufsize=0)
        self.next_id = 1
        self.buffer = b""
        self.refused = 0
        self.unexpected = []

    def send(self, method, params):
        request_id = self.next_id
        self.next_id += 1
        params = dict(params, _meta=META)
        line = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        self.proc.stdin.write(line.encode() + b"\n")
        return request_id

    def read(self):
        while b"\n" not in self.buffer:
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise EOFError("snodo-demo ended its output")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def answers(self, ids):
        wanted = set(ids)
        got = {}
        while wanted:
            message = self.read()
            if message.get("id") in wanted:
                wanted.discard(message["id"])
                got[message["id"]] = message
        return got

    def call(self, method, params):
        request_id = self.send(method, params)
        return self.answers([request_id])[request_id]

    def flood(self, n):
        ids = []
        created = []
        for _ in range(n):
            ids.append(self.send("tools/call", {"name": "job", "arguments": {"steps": 1, "step_ms": 1, "ask": False}}))
            if len(ids) == BATCH:
                created += self.collect(ids)
                ids = []
        created += self.collect(ids)
        return created

    def collect(self, ids):
        got = self.answers(ids)
        created = []
        for i in ids:
            answer = got[i]
            if answer.get("result", {}).get("resultType") == "task":
                created.append(answer["result"]["taskId"])
            elif answer.get("error", {}).get("code") == -32010:
                self.refused += 1
            else:
                self.unexpected.append(answer)
        return created

    def wait_done(self, task_id):
        for _ in range(400):
            answer = self.call("tasks/get", {"taskId": task_id})
            if answer.get("result", {}).get("status") == "completed":
                return True
            time.sleep(0.05)
        return False


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("SNODO_DEMO")
    if not path:
        print("Bail out! no snodo-demo: pass its path or set SNODO_DEMO")
        return 1
    with open(path, "rb") as f:
        sanitized = b"__asan_init" in f.read()

    print("TAP version 13")
    demo = Demo(path)
    try:
        first = demo.flood(WARM)
        report(len(first) >= 1000 and not demo.unexpected,
               f"the first {WARM} calls: {len(first)} tasks, {demo.refused} refused with -32010, nothing else",
               json.dumps(demo.unexpected[:1])[:300])
        report(demo.wait_done(first[-1]), "the last task completes")
        warm_rss = status_kb(demo.proc.pid, "VmRSS")

        rest = demo.flood(TOTAL - WARM)
        report(len(rest) >= 1001 and not demo.unexpected,
               f"{TOTAL - WARM} more calls: {len(rest)} tasks, {demo.refused} refused in all, nothing else",
               json.dumps(demo.unexpected[:1])[:300])
        report(demo.wait_done(rest[-1]), "the last task completes")
        rss = status_kb(demo.proc.pid, "VmRSS")
        hwm = status_kb(demo.proc.pid, "VmHWM")
        print(f"# VmRSS after {WARM} calls: {warm_rss} kB; after {TOTAL}: {rss} kB (VmHWM {hwm} kB); "
              f"{len(first) + len(rest)} tasks made, {demo.refused} calls refused")

        oldest = demo.call("tasks/get", {"taskId": first[0]})
        report(oldest.get("error", {}).get("code") == -32602,
               "the oldest finished task was evicted (-32602)", json.dumps(oldest)[:300])
        newest = demo.call("tasks/get", {"taskId": rest[-1]})
        report(newest.get("result", {}).get("status") == "completed", "the newest is kept", json.dumps(newest)[:300])
        kept = sum(1 for task_id in rest[-1000:]
                   if demo.call("tasks/get", {"taskId": task_id}).get("result", {}).get("status") == "completed")
        report(kept == 1000, "the 1,000 newest tasks are all kept", f"{kept} kept")
        gone = demo.call("tasks/get", {"taskId": rest[-1001]})
        report("error" in gone, "the 1,001st newest is not", json.dumps(gone)[:300])

        if sanitized:
            print("ok %d - memory stays bounded # SKIP under AddressSanitizer" % (checks + 1))
            globals()["checks"] += 1
        else:
            report(rss - warm_rss <= MAX_GROWTH_KB,
                   f"memory stays bounded: {rss - warm_rss} kB more after {TOTAL - WARM} more tasks "
                   f"(at most {MAX_GROWTH_KB} kB)")
    finally:
        demo.proc.stdin.close()
        status = demo.proc.wait(timeout=30)
    report(status == 0, "snodo-demo exits 0 at the end of input", f"status {status}")
    print(f"1..{checks}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
