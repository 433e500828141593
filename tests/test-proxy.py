#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-proxy.py SNODO SNODO-DEMO [NODE SERVER-EVERYTHING]
#
# `snodo proxy` driven with raw JSON-RPC lines, to `snodo-demo --http 0`
# and to snodo-demo as its child: a method of the server's own and an
# unknown one, ids of both kinds kept, an error's data passed on whole, a
# cancelled request left unanswered, the answer of a request in flight
# written before exit at the end of input; and killing the proxy (SIGKILL,
# SIGTERM) leaves no child behind. With NODE and the path of
# @modelcontextprotocol/server-everything's dist/index.js: that server as
# the proxy's child instead, and what it asks of the client. Output is TAP.

import json
import os
import select
import signal
import subprocess
import sys
import time

snodo, demo = sys.argv[1:3]
count = 0
failed = 0
ENVELOPE = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {}}


def check(name, ok, detail=''):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print('%s %d - %s' % ('ok' if ok else 'not ok', count, name), flush=True)
    if not ok and detail:
        print('# ' + str(detail).replace('\n', '\n# ')[:3000], flush=True)


def skip(name, why):
    global count
    count += 1
    print('ok %d - %s # SKIP %s' % (count, name, why), flush=True)


class Proxy:
    def __init__(self, *target):
        self.process = subprocess.Popen([snodo, 'proxy', *target], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buffer = b''

    def send(self, message):
        self.process.stdin.write((message if isinstance(message, str) else json.dumps(message)).encode() + b'\n')
        self.process.stdin.flush()

    def read(self, timeout=10.0):
        """The next message, or None after @timeout seconds or at EOF."""
        deadline = time.monotonic() + timeout
        while b'\n' not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.process.stdout], [], [], left)[0]:
                return None
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b'\n', 1)
        return json.loads(line)

    def answer(self, id, timeout=10.0):
        """The answer to @id, skipping notifications."""
        while True:
            message = self.read(timeout)
            if message is None or message.get('id') == id and 'method' not in message:
                return message

    def request(self, id, method, params=None):
        self.send({'jsonrpc': '2.0', 'id': id, 'method': method, **({'params': params} if params else {})})
        return self.answer(id)

    def initialize(self, version='2025-11-25'):
        answer = self.request(0, 'initialize', {'protocolVersion': version, 'capabilities': {},
                                                'clientInfo': {'name': 'test-proxy', 'version': '1'}})
        self.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
        return answer

    def end(self, timeout=10):
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


def children(pid):
    """The pids whose parent is @pid (from /proc)."""
    found = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry) as f:
                    stat = f.read()
            except OSError:
                continue
            if int(stat.rsplit(')', 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def gone(pid, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open('/proc/%d/stat' % pid) as f:
                if f.read().rsplit(')', 1)[1].split()[0] == 'Z':
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def forwarding_checks(label, target):
    p = Proxy(*target)
    answer = p.initialize()
    result = (answer or {}).get('result', {})
    check('%s: initialize answered with the server\'s info and version' % label,
          result.get('serverInfo', {}).get('name') == 'snodo-demo' and
          result.get('protocolVersion') == '2025-11-25', answer)
    answer = p.request('info', 'demo/info')
    check('%s: a method of the server\'s own, under a string id' % label,
          answer is not None and answer.get('result', {}).get('protocolVersion') == '2025-11-25', answer)
    answer = p.request(7, 'no/such-method')
    check('%s: an unknown method is the server\'s -32601, under its integer id' % label,
          answer is not None and answer.get('error', {}).get('code') == -32601 and answer.get('id') == 7, answer)
    p.send('{"jsonrpc":"2.0","id":')
    answer = p.read()
    check('%s: a line that is no JSON is -32700 with a null id' % label,
          answer is not None and answer.get('error', {}).get('code') == -32700 and answer.get('id') is None, answer)
    p.send('{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"echo","arguments":{"text":"' +
           'x' * 2100000 + '"}}}')
    answer = p.read()
    after = p.request(98, 'ping')
    check('%s: a line over 2,000,000 bytes is -32600 with a null id, and the next one is served' % label,
          answer is not None and answer.get('error', {}).get('code') == -32600 and answer.get('id') is None and
          after is not None and after.get('result') == {}, (answer, after))
    p.send({'jsonrpc': '2.0', 'id': 8, 'method': 'tools/call',
            'params': {'name': 'progress', 'arguments': {'steps': 2}, '_meta': {'progressToken': 'mine'}}})
    tokens = []
    while True:
        message = p.read()
        if message is None or message.get('id') == 8:
            break
        if message.get('method') == 'notifications/progress':
            tokens.append(message['params']['progressToken'])
    check('%s: progress comes with the client\'s own token' % label,
          tokens == ['mine', 'mine'] and message is not None and 'result' in message, (tokens, message))
    p.send({'jsonrpc': '2.0', 'id': 9, 'method': 'tools/call', 'params': {'name': 'sleep', 'arguments': {'ms': 700}}})
    time.sleep(0.1)
    t0 = time.monotonic()
    status = p.end()
    rest = []
    while True:
        message = p.read(1)
        if message is None:
            break
        rest.append(message)
    check('%s: at the end of input the request in flight is answered, then exit status 0' % label,
          status == 0 and any(m.get('id') == 9 and 'result' in m for m in rest),
          (status, rest, time.monotonic() - t0, p.process.stderr.read()[-2000:]))

    p = Proxy(*target)
    answer = p.request(1, 'tools/list', {'_meta': dict(ENVELOPE, **{
        'io.modelcontextprotocol/protocolVersion': '2026-07-28'})})
    check('%s: 2026-07-28: a first request with the envelope is forwarded in that era' % label,
          answer is not None and answer.get('result', {}).get('resultType') == 'complete', answer)
    answer = p.request(2, 'tools/list', {'_meta': dict(ENVELOPE, **{
        'io.modelcontextprotocol/protocolVersion': '2099-01-01'})})
    error = (answer or {}).get('error', {})
    check('%s: 2026-07-28: the server\'s error comes with its data whole' % label,
          error.get('code') == -32022 and error.get('data', {}).get('requested') == '2099-01-01' and
          '2026-07-28' in error.get('data', {}).get('supported', []), answer)
    p.send({'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call',
            'params': {'name': 'sleep', 'arguments': {'ms': 30000}, '_meta': ENVELOPE}})
    time.sleep(0.3)
    p.send({'jsonrpc': '2.0', 'method': 'notifications/cancelled', 'params': {'requestId': 3}})
    answer = p.request(4, 'tools/call', {'name': 'echo', 'arguments': {'text': 'after'}, '_meta': ENVELOPE})
    late = p.read(1)
    check('%s: 2026-07-28: a cancelled request is not answered, the next one is' % label,
          answer is not None and answer.get('result', {}).get('content', [{}])[0].get('text') == 'after' and
          late is None, (answer, late))
    t0 = time.monotonic()
    status = p.end()
    check('%s: the proxy exits at once once nothing is in flight' % label,
          status == 0 and time.monotonic() - t0 < 5, (status, time.monotonic() - t0))


def kill_checks():
    for how in (signal.SIGKILL, signal.SIGTERM):
        name = 'killing the proxy with %s leaves no child' % how.name
        if not os.path.exists('/proc/self/stat'):
            skip(name, 'no /proc to find the child by')
            continue
        p = Proxy('--', demo)
        answer = p.initialize()
        kids = children(p.process.pid)
        if answer is None or len(kids) != 1:
            check(name, False, ('no child found', answer, kids))
            p.process.kill()
            p.process.wait()
            continue
        p.process.send_signal(how)
        status = p.process.wait(10)
        check(name, gone(kids[0]), ('the child %d is still running' % kids[0], status))
        if how == signal.SIGTERM:
            check('SIGTERM: the proxy ends with status 0', status == 0, status)
        try:
            os.kill(kids[0], signal.SIGKILL)
        except OSError:
            pass


def everything_checks(node, everything):
    """@modelcontextprotocol/server-everything as the proxy's child: what it
    asks of the client (sampling, elicitation) reaches the proxy's client
    under an id of the proxy's, and the answers go back."""
    p = Proxy('--', node, everything, 'stdio')
    answer = p.request(1, 'initialize', {'protocolVersion': '2025-06-18',
                                         'capabilities': {'sampling': {}, 'elicitation': {}},
                                         'clientInfo': {'name': 'test-proxy', 'version': '1'}})
    check('server-everything: initialize answered in 2025-06-18',
          (answer or {}).get('result', {}).get('protocolVersion') == '2025-06-18', answer)
    p.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    answer = p.request(2, 'tools/call', {'name': 'echo', 'arguments': {'message': 'h\u00e9llo'}})
    check('server-everything: echo', 'h\u00e9llo' in json.dumps((answer or {}).get('result', {}), ensure_ascii=False),
          answer)

    for tool, method, arguments, reply, expected in (
            ('trigger-sampling-request', 'sampling/createMessage', {'prompt': 'hi', 'maxTokens': 10},
             {'role': 'assistant', 'content': {'type': 'text', 'text': 'sampled by the test'},
              'model': 'test', 'stopReason': 'endTurn'}, 'sampled by the test'),
            ('trigger-elicitation-request', 'elicitation/create', {},
             {'action': 'decline'}, 'decline')):
        p.send({'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call', 'params': {'name': tool, 'arguments': arguments}})
        asked = None
        while True:
            message = p.read()
            if message is None or message.get('id') == 3 and 'method' not in message:
                break
            if message.get('method') == method and 'id' in message:
                asked = message
                p.send({'jsonrpc': '2.0', 'id': message['id'], 'result': reply})
        check('server-everything: %s asks %s of the proxy\'s client, and has its answer' % (tool, method),
              asked is not None and message is not None and
              expected in json.dumps(message.get('result', {})), (asked, message))
    check('server-everything: the proxy ends with status 0 at the end of input', p.end() == 0)


print('TAP version 13', flush=True)
if len(sys.argv) > 3:
    everything_checks(*sys.argv[3:5])
    print('1..%d' % count)
    sys.exit(1 if failed else 0)
server = subprocess.Popen([demo, '--http', '0'], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
try:
    uri = server.stdout.readline().strip()
    check('snodo-demo --http 0 prints its URL', uri.startswith('http://'), uri)
    forwarding_checks('HTTP', [uri])
finally:
    server.kill()
    server.wait()
forwarding_checks('stdio', ['--', demo])

def wait_for(p, predicate, timeout=10.0):
    """The first message @predicate accepts, answering elicitations on the
    way with accept; None if none comes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        message = p.read(deadline - time.monotonic())
        if message is None:
            return None
        if predicate(message):
            return message


def era_checks():
    # A 2026-07-28 client, a server of the initialize era only.
    p = Proxy('--', demo, '--protocol-versions', '2025-11-25')
    answer = p.request(1, 'server/discover', {'_meta': ENVELOPE})
    result = (answer or {}).get('result', {})
    check('2026-07-28 client, 2025 server: server/discover answered from the server\'s initialize',
          result.get('supportedVersions') == ['2026-07-28'] and result.get('resultType') == 'complete' and
          result.get('_meta', {}).get('io.modelcontextprotocol/serverInfo', {}).get('name') == 'snodo-demo' and
          'tools' in result.get('capabilities', {}), answer)
    answer = p.request(2, 'tools/call', {'name': 'version', 'arguments': {}, '_meta': ENVELOPE})
    result = (answer or {}).get('result', {})
    check('2026-07-28 client, 2025 server: a call is served in 2025-11-25 and answered as of 2026-07-28',
          '2025-11-25' in json.dumps(result.get('content')) and result.get('resultType') == 'complete' and
          'io.modelcontextprotocol/serverInfo' in result.get('_meta', {}), answer)
    answer = p.request(3, 'tools/list', {'_meta': ENVELOPE})
    result = (answer or {}).get('result', {})
    check('2026-07-28 client, 2025 server: a list has the cache fields',
          result.get('ttlMs') == 0 and result.get('cacheScope') == 'private' and result.get('tools'), answer)
    answer = p.request(4, 'resources/read', {'uri': 'demo://nothing', '_meta': ENVELOPE})
    check('2026-07-28 client, 2025 server: a resource not found is -32602',
          (answer or {}).get('error', {}).get('code') == -32602, answer)
    p.send({'jsonrpc': '2.0', 'id': 5, 'method': 'subscriptions/listen',
            'params': {'notifications': {'toolsListChanged': True}, '_meta': ENVELOPE}})
    ack = wait_for(p, lambda m: m.get('method') == 'notifications/subscriptions/acknowledged')
    check('2026-07-28 client, 2025 server: subscriptions/listen is acknowledged under its id',
          ack is not None and ack['params']['_meta'].get('io.modelcontextprotocol/subscriptionId') == 5 and
          ack['params']['notifications'] == {'toolsListChanged': True}, ack)
    p.send({'jsonrpc': '2.0', 'id': 6, 'method': 'tools/call', 'params': {'name': 'toggle', 'arguments': {},
                                                                          '_meta': ENVELOPE}})
    changed = wait_for(p, lambda m: m.get('method') == 'notifications/tools/list_changed')
    check('2026-07-28 client, 2025 server: a list change comes on the subscription',
          changed is not None and
          changed.get('params', {}).get('_meta', {}).get('io.modelcontextprotocol/subscriptionId') == 5, changed)
    t0 = time.monotonic()
    status = p.end()
    check('2026-07-28 client, 2025 server: at the end of input the proxy exits with status 0',
          status == 0 and time.monotonic() - t0 < 5, status)

    # An initialize-era client, a 2026-07-28 server only.
    p = Proxy('--', demo, '--protocol-versions', '2026-07-28')
    answer = p.request(0, 'initialize', {'protocolVersion': '2025-06-18', 'capabilities': {'elicitation': {}},
                                         'clientInfo': {'name': 'test-proxy', 'version': '1'}})
    result = (answer or {}).get('result', {})
    check('2025 client, 2026-07-28 server: initialize answered with the version asked, no subscribe',
          result.get('protocolVersion') == '2025-06-18' and
          result.get('serverInfo', {}).get('name') == 'snodo-demo' and
          'subscribe' not in result.get('capabilities', {}).get('resources', {}), answer)
    p.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    answer = p.request(1, 'ping')
    check('2025 client, 2026-07-28 server: ping', (answer or {}).get('result') == {}, answer)
    answer = p.request(2, 'tools/call', {'name': 'version', 'arguments': {}})
    result = (answer or {}).get('result', {})
    check('2025 client, 2026-07-28 server: a call is served in 2026-07-28 and answered as of 2025',
          '2026-07-28' in json.dumps(result.get('content')) and 'resultType' not in result and
          'io.modelcontextprotocol/serverInfo' not in result.get('_meta', {}), answer)
    p.send({'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call', 'params': {'name': 'ask', 'arguments': {}}})
    asked = wait_for(p, lambda m: m.get('method') == 'elicitation/create' and 'id' in m)
    if asked is not None:
        p.send({'jsonrpc': '2.0', 'id': asked['id'], 'result': {'action': 'accept', 'content': {'confirm': True}}})
    answer = p.answer(3)
    check('2025 client, 2026-07-28 server: input_required is asked as elicitation/create, and the call completes',
          asked is not None and 'confirmed' in json.dumps((answer or {}).get('result', {})), (asked, answer))
    p.send({'jsonrpc': '2.0', 'id': 4, 'method': 'tools/call', 'params': {'name': 'toggle', 'arguments': {}}})
    changed = wait_for(p, lambda m: m.get('method') == 'notifications/tools/list_changed')
    check('2025 client, 2026-07-28 server: list changes come unasked',
          changed is not None and
          'io.modelcontextprotocol/subscriptionId' not in changed.get('params', {}).get('_meta', {}), changed)
    answer = p.request(5, 'resources/subscribe', {'uri': 'demo://readme'})
    check('2025 client, 2026-07-28 server: resources/subscribe is -32601, saying why',
          (answer or {}).get('error', {}).get('code') == -32601 and
          '2026-07-28' in answer['error'].get('message', ''), answer)
    t0 = time.monotonic()
    status = p.end()
    check('2025 client, 2026-07-28 server: at the end of input the proxy exits with status 0',
          status == 0 and time.monotonic() - t0 < 5, (status, p.process.stderr.read()[-2000:]))


era_checks()


def eof_while_asking(label, target):
    """The client ends its input while the server waits for its answer to
    elicitation/create: the server is told no, its call ends, and so does
    the proxy."""
    p = Proxy(*target)
    p.request(0, 'initialize', {'protocolVersion': '2025-11-25', 'capabilities': {'elicitation': {}},
                                'clientInfo': {'name': 'test-proxy', 'version': '1'}})
    p.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
    p.send({'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {'name': 'ask', 'arguments': {}}})
    asked = wait_for(p, lambda m: m.get('method') == 'elicitation/create' and 'id' in m)
    t0 = time.monotonic()
    status = p.end()
    rest = []
    while True:
        message = p.read(1)
        if message is None:
            break
        rest.append(message)
    check('%s: the end of input while the server asks: the call is answered, exit status 0' % label,
          asked is not None and status == 0 and time.monotonic() - t0 < 8 and
          any(m.get('id') == 1 for m in rest), (asked, status, rest))


eof_while_asking('2025 server', ['--', demo])
eof_while_asking('2026-07-28 server', ['--', demo, '--protocol-versions', '2026-07-28'])
kill_checks()

print('1..%d' % count)
sys.exit(1 if failed else 0)
