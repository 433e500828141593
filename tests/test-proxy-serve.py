#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-proxy-serve.py SNODO SNODO-DEMO
#
# `snodo proxy --serve NAME=COMMAND|URL …` driven with raw JSON-RPC lines:
# two snodo-demo children and a `snodo-demo --http 0` behind one proxy.
# The lists prefixed and merged, calls routed with their progress, logs
# and elicitation, a backend's list change reaching the client, a backend
# killed (reported, its tools gone, the others answering), both eras on
# the front, usage errors, and no child left when the proxy is killed.
# Output is TAP.

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
            'io.modelcontextprotocol/clientCapabilities': {'elicitation': {}}}


def check(name, ok, detail=''):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print('%s %d - %s' % ('ok' if ok else 'not ok', count, name), flush=True)
    if not ok and detail:
        print('# ' + str(detail).replace('\n', '\n# ')[:3000], flush=True)


class Proxy:
    def __init__(self, *arguments):
        self.process = subprocess.Popen([snodo, 'proxy', *arguments], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buffer = b''
        self.seen = []

    def send(self, message):
        self.process.stdin.write(json.dumps(message).encode() + b'\n')
        self.process.stdin.flush()

    def read(self, timeout=15.0):
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
        message = json.loads(line)
        self.seen.append(message)
        return message

    def answer(self, id, timeout=15.0):
        """The answer to @id; what comes before it is in self.seen."""
        while True:
            message = self.read(timeout)
            if message is None or message.get('id') == id and 'method' not in message:
                return message

    def request(self, id, method, params=None):
        self.send({'jsonrpc': '2.0', 'id': id, 'method': method, **({'params': params} if params else {})})
        return self.answer(id)

    def initialize(self, capabilities=None):
        answer = self.request(0, 'initialize', {'protocolVersion': '2025-11-25', 'capabilities': capabilities or {},
                                                'clientInfo': {'name': 'test-proxy-serve', 'version': '1'}})
        self.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})
        return answer

    def wait_for(self, predicate, timeout=15.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.read(deadline - time.monotonic())
            if message is None:
                return None
            if predicate(message):
                return message

    def end(self, timeout=15):
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

    def stderr(self):
        return self.process.stderr.read().decode(errors='replace')


# The children of the proxy are found in /proc (Linux); without it, what
# needs them is skipped.
HAVE_PROC = os.path.exists('/proc/self/stat')


def skip(name, why):
    global count
    count += 1
    print('ok %d - %s # SKIP %s' % (count, name, why), flush=True)


def children(pid):
    """The pids whose parent is @pid, with their command lines (from /proc)."""
    found = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry) as f:
                    stat = f.read()
                if int(stat.rsplit(')', 1)[1].split()[1]) != pid:
                    continue
                with open('/proc/%s/cmdline' % entry, 'rb') as f:
                    found[int(entry)] = f.read().split(b'\0')
            except OSError:
                continue
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


def names(answer, key='tools', field='name'):
    return [item.get(field) for item in (answer or {}).get('result', {}).get(key, [])]


def text_of(answer):
    return ''.join(c.get('text', '') for c in (answer or {}).get('result', {}).get('content', []))


def usage_checks():
    for arguments, why in ((['--serve', 'a b=%s' % demo], 'a NAME with a space'),
                           (['--serve', 'a_b=%s' % demo], 'a NAME with _'),
                           (['--serve', 'a=%s' % demo, '--serve', 'a=%s' % demo], 'a NAME given twice'),
                           (['--serve', '%s' % demo], 'no NAME=')):
        p = subprocess.run([snodo, 'proxy', *arguments], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=30)
        check('usage: %s is refused with status 2 and a message' % why,
              p.returncode == 2 and '--serve' in p.stderr and p.stdout == '', (p.returncode, p.stderr))


    p = subprocess.run([snodo, 'list', '--serve', 'a=' + demo], stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=30)
    check('usage: --serve without proxy is refused with status 2', p.returncode == 2 and '--serve' in p.stderr,
          (p.returncode, p.stderr))


def main_checks(uri):
    # a answers last, yet its resources are those served: it comes first.
    p = Proxy('--serve', 'a=sh -c \'sleep 0.5; exec "$0"\' ' + demo,
              '--serve', 'b=%s --protocol-versions 2025-11-25' % demo, '--serve', 'web=' + uri)
    answer = p.initialize({'elicitation': {}})
    check('initialize is answered by the proxy itself',
          (answer or {}).get('result', {}).get('serverInfo', {}).get('name') == 'snodo-proxy', answer)
    instructions = (answer or {}).get('result', {}).get('instructions', '')
    check('initialize: the instructions of every backend, each under its name',
          all('## %s (tools and prompts named %s_' % (n, n) in instructions for n in ('a', 'b', 'web')) and
          instructions.count('A demonstration server') == 3, instructions)

    answer = p.request(1, 'tools/list')
    tools = names(answer)
    echo = [t for t in answer['result']['tools'] if t['name'] == 'a_echo'] if answer else []
    check('tools/list: every backend\'s tools, prefixed with its NAME',
          all('%s_%s' % (n, t) in tools for n in ('a', 'b', 'web') for t in ('echo', 'ask', 'toggle')) and
          'echo' not in tools, tools)
    check('tools/list: a tool keeps its description, schema and icons',
          echo and echo[0].get('description') == 'Returns its text unchanged' and
          echo[0].get('inputSchema', {}).get('required') == ['text'] and echo[0].get('icons'), echo)
    answer = p.request(2, 'prompts/list')
    check('prompts/list: prefixed', sorted(names(answer, 'prompts')) == ['a_greet', 'b_greet', 'web_greet'], answer)
    answer = p.request(3, 'resources/list')
    uris = names(answer, 'resources', 'uri')
    check('resources/list: URIs kept, one of each on a collision', uris.count('demo://readme') == 1, answer)
    answer = p.request(4, 'resources/read', {'uri': 'demo://readme'})
    check('resources/read is routed to the backend that has the URI',
          'snodo-demo' in json.dumps((answer or {}).get('result', {}).get('contents', [])), answer)
    answer = p.request(5, 'resources/read', {'uri': 'demo://echo/hello'})
    check('resources/read of a template URI is routed',
          'hello' in json.dumps((answer or {}).get('result', {}).get('contents', [])), answer)

    for name in ('a', 'b', 'web'):
        answer = p.request(10, 'tools/call', {'name': name + '_version', 'arguments': {}})
        check('tools/call %s_version is routed to %s' % (name, name), text_of(answer) == '2025-11-25', answer)
    answer = p.request(11, 'tools/call', {'name': 'web_echo', 'arguments': {'text': 'h\u00e9llo'}})
    check('tools/call: the result comes back whole', answer is not None and
          answer.get('result') == {'content': [{'type': 'text', 'text': 'h\u00e9llo'}]}, answer)
    answer = p.request(12, 'tools/call', {'name': 'b_add', 'arguments': {'a': 2, 'b': 3}})
    check('tools/call: structuredContent kept',
          (answer or {}).get('result', {}).get('structuredContent') == {'sum': 5}, answer)
    answer = p.request(13, 'tools/call', {'name': 'a_fail', 'arguments': {}})
    check('tools/call: isError kept', (answer or {}).get('result', {}).get('isError') is True, answer)
    answer = p.request(14, 'prompts/get', {'name': 'b_greet', 'arguments': {'name': 'Zo\u00e9'}})
    check('prompts/get is routed', 'Zo\u00e9' in json.dumps((answer or {}).get('result', {}), ensure_ascii=False),
          answer)
    answer = p.request(15, 'completion/complete', {'ref': {'type': 'ref/prompt', 'name': 'a_greet'},
                                                    'argument': {'name': 'name', 'value': ''}})
    check('completion/complete of a prompt is routed',
          len((answer or {}).get('result', {}).get('completion', {}).get('values', [])) > 0, answer)

    for name in ('b', 'web'):
        p.seen = []
        answer = p.request(20, 'tools/call', {'name': name + '_progress', 'arguments': {'steps': 3},
                                              '_meta': {'progressToken': 'tok'}})
        progress = [m['params'] for m in p.seen if m.get('method') == 'notifications/progress']
        check('%s: progress comes with the client\'s token' % name,
              [x.get('progressToken') for x in progress] == ['tok'] * 3 and
              [x.get('progress') for x in progress] == [1, 2, 3] and 'result' in (answer or {}),
              (progress, answer))

    p.seen = []
    answer = p.request(21, 'tools/call', {'name': 'a_log', 'arguments': {'level': 'warning', 'text': 'careful'}})
    logs = [m['params'] for m in p.seen if m.get('method') == 'notifications/message']
    check('a log message about a call reaches the client',
          text_of(answer) == 'logged' and any(x.get('data') == 'careful' for x in logs), (logs, answer))

    for name in ('a', 'web'):
        p.send({'jsonrpc': '2.0', 'id': 22, 'method': 'tools/call',
                'params': {'name': name + '_ask', 'arguments': {'question': 'Sure?'}}})
        asked = p.wait_for(lambda m: m.get('method') == 'elicitation/create' and 'id' in m)
        if asked is not None:
            p.send({'jsonrpc': '2.0', 'id': asked['id'], 'result': {'action': 'accept', 'content': {'confirm': True}}})
        answer = p.answer(22)
        check('%s: the backend\'s elicitation is asked of the client, and its answer goes back' % name,
              asked is not None and asked['params'].get('message') == 'Sure?' and
              'confirmed' in text_of(answer), (asked, answer))

    p.send({'jsonrpc': '2.0', 'id': 23, 'method': 'tools/call', 'params': {'name': 'b_toggle', 'arguments': {}}})
    changed = p.wait_for(lambda m: m.get('method') == 'notifications/tools/list_changed')
    answer = p.answer(23)
    tools = []
    deadline = time.monotonic() + 10
    while 'b_extra' not in tools and time.monotonic() < deadline:
        tools = names(p.request(24, 'tools/list'))
    check('a backend\'s list change reaches the client, and the list has its new tool',
          changed is not None and 'b_extra' in tools and 'a_extra' not in tools, (changed, answer, tools))

    p.send({'jsonrpc': '2.0', 'id': 25, 'method': 'tools/call', 'params': {'name': 'a_sleep', 'arguments': {'ms': 30000}}})
    time.sleep(0.3)
    p.send({'jsonrpc': '2.0', 'method': 'notifications/cancelled', 'params': {'requestId': 25}})
    answer = p.request(26, 'tools/call', {'name': 'a_echo', 'arguments': {'text': 'after'}})
    late = p.read(1)
    check('a cancelled call is not answered, and the backend serves the next one',
          text_of(answer) == 'after' and late is None, (answer, late))

    answer = p.request(27, 'resources/subscribe', {'uri': 'demo://readme'})
    p.send({'jsonrpc': '2.0', 'id': 28, 'method': 'tools/call',
            'params': {'name': 'a_touch', 'arguments': {'uri': 'demo://readme'}}})
    updated = p.wait_for(lambda m: m.get('method') == 'notifications/resources/updated')
    check('resources/updated of a subscribed URI is relayed, from the first backend that has it',
          answer is not None and 'result' in answer and updated is not None and
          updated['params'].get('uri') == 'demo://readme', (answer, updated))

    # A backend killed.
    kids = children(p.process.pid) if HAVE_PROC else {}
    if not HAVE_PROC:
        skip('a backend killed', 'no /proc to find the proxy\'s children by')
    b = [pid for pid, cmdline in kids.items() if b'--protocol-versions' in cmdline]
    if HAVE_PROC:
        check('each command backend is a child of the proxy', len(kids) == 2 and len(b) == 1, kids)
    if b:
        p.seen = []
        os.kill(b[0], signal.SIGKILL)
        log = p.wait_for(lambda m: m.get('method') == 'notifications/message' and m['params'].get('logger') == 'b')
        changed = p.wait_for(lambda m: m.get('method') == 'notifications/tools/list_changed')
        check('a backend killed: a log message names it and says so',
              log is not None and log['params'].get('level') == 'error', (log, p.seen))
        tools = names(p.request(30, 'tools/list'))
        check('a backend killed: its tools are gone with a list change, the others stay',
              changed is not None and not any(t.startswith('b_') for t in tools) and 'a_echo' in tools and
              'web_echo' in tools, (changed, tools))
        answer = p.request(31, 'tools/call', {'name': 'a_echo', 'arguments': {'text': 'still'}})
        check('a backend killed: the others still answer', text_of(answer) == 'still', answer)
        answer = p.request(32, 'prompts/list')
        check('a backend killed: its prompts are gone', sorted(names(answer, 'prompts')) == ['a_greet', 'web_greet'], answer)
        check('a backend killed: the log message says it is started again in 1 s',
              log is not None and 'starting it again in 1 s' in str(log['params'].get('data')), log)
        back = p.wait_for(lambda m: m.get('method') == 'notifications/message' and
                          m['params'].get('logger') == 'b' and 'started again' in str(m['params'].get('data')))
        tools = names(p.request(33, 'tools/list'))
        answer = p.request(34, 'tools/call', {'name': 'b_echo', 'arguments': {'text': 'back'}})
        restarted = [pid for pid, cmdline in children(p.process.pid).items() if b'--protocol-versions' in cmdline]
        check('a backend killed is started again: its tools are back and answer',
              back is not None and 'b_echo' in tools and text_of(answer) == 'back' and
              len(restarted) == 1 and restarted != b, (back, tools, answer, restarted))
        kids = children(p.process.pid)

    p.send({'jsonrpc': '2.0', 'id': 40, 'method': 'tools/call', 'params': {'name': 'web_sleep', 'arguments': {'ms': 700}}})
    time.sleep(0.1)
    status = p.end()
    rest = []
    while True:
        message = p.read(1)
        if message is None:
            break
        rest.append(message)
    err = p.stderr()
    check('at the end of input the call in flight is answered, then exit status 0',
          status == 0 and any(m.get('id') == 40 and 'result' in m for m in rest), (status, rest, err[-2000:]))
    check('the failing backend was reported on standard error with its name',
          'snodo: b: ' in err and 'failed' in err, err[-2000:])
    check('no warning or critical of GLib on standard error', 'CRITICAL' not in err and 'WARNING' not in err,
          err[-2000:])
    check('the other backends\' children are gone', all(gone(pid) for pid in kids), kids)


def modern_checks(uri):
    p = Proxy('--serve', 'a=' + demo, '--serve', 'web=' + uri)
    answer = p.request(1, 'tools/list', {'_meta': ENVELOPE})
    check('2026-07-28: a stateless tools/list is answered with the prefixed tools',
          (answer or {}).get('result', {}).get('resultType') == 'complete' and 'web_echo' in names(answer), answer)
    answer = p.request(2, 'tools/call', {'name': 'a_version', 'arguments': {}, '_meta': ENVELOPE})
    check('2026-07-28: a call is routed', text_of(answer) == '2025-11-25' and
          answer['result'].get('resultType') == 'complete', answer)
    params = {'name': 'web_ask', 'arguments': {}, '_meta': ENVELOPE}
    answer = p.request(3, 'tools/call', params)
    result = (answer or {}).get('result', {})
    requests = result.get('inputRequests', {})
    check('2026-07-28: the backend\'s elicitation is an input_required answer',
          result.get('resultType') == 'input_required' and len(requests) == 1 and
          list(requests.values())[0].get('method') == 'elicitation/create', answer)
    if requests:
        again = dict(params, inputResponses={k: {'action': 'accept', 'content': {'confirm': True}} for k in requests})
        if 'requestState' in result:
            again['requestState'] = result['requestState']
        answer = p.request(4, 'tools/call', again)
        check('2026-07-28: sent again with the answer, the call completes',
              'confirmed' in text_of(answer) and answer['result'].get('resultType') == 'complete', answer)
    p.send({'jsonrpc': '2.0', 'id': 5, 'method': 'subscriptions/listen',
            'params': {'notifications': {'toolsListChanged': True, 'resourceSubscriptions': ['demo://readme']},
                       '_meta': ENVELOPE}})
    ack = p.wait_for(lambda m: m.get('method') == 'notifications/subscriptions/acknowledged')
    p.send({'jsonrpc': '2.0', 'id': 6, 'method': 'tools/call',
            'params': {'name': 'a_touch', 'arguments': {'uri': 'demo://readme'}, '_meta': ENVELOPE}})
    updated = p.wait_for(lambda m: m.get('method') == 'notifications/resources/updated')
    check('2026-07-28: subscriptions/listen gets the updates of a backend\'s resource',
          ack is not None and updated is not None and updated['params'].get('uri') == 'demo://readme' and
          updated['params'].get('_meta', {}).get('io.modelcontextprotocol/subscriptionId') == 5, (ack, updated))
    p.send({'jsonrpc': '2.0', 'id': 7, 'method': 'tools/call',
            'params': {'name': 'web_toggle', 'arguments': {}, '_meta': ENVELOPE}})
    changed = p.wait_for(lambda m: m.get('method') == 'notifications/tools/list_changed')
    answer = p.answer(7)
    tools = names(p.request(8, 'tools/list', {'_meta': ENVELOPE}))
    check('2026-07-28: a backend\'s list change comes on the subscription',
          changed is not None and
          changed['params'].get('_meta', {}).get('io.modelcontextprotocol/subscriptionId') == 5 and
          'web_extra' in tools, (changed, answer, tools))
    status = p.end()
    check('2026-07-28: the proxy exits with status 0 at the end of input', status == 0, (status, p.stderr()[-2000:]))


def failing_checks():
    p = Proxy('--serve', 'a=' + demo, '--serve', 'gone=/nonexistent/server --flag',
              '--serve', 'dead=sh -c "exit 3"', '--serve', 'old=%s --protocol-versions 2025-06-18' % demo)
    answer = p.initialize()
    tools = names(p.request(1, 'tools/list'))
    version = p.request(2, 'tools/call', {'name': 'old_version', 'arguments': {}})
    check('a backend of 2025-06-18 only is served in 2025-06-18', text_of(version) == '2025-06-18', version)
    check('backends that fail to start do not keep the others from being served',
          answer is not None and 'a_echo' in tools and not any(t.startswith(('gone_', 'dead_')) for t in tools),
          (answer, tools))
    status = p.end()
    err = p.stderr()
    check('each backend that failed to start is reported with its name',
          'snodo: gone: ' in err and 'snodo: dead: ' in err and status == 0, (status, err[-2000:]))


def http_failure_checks():
    server = subprocess.Popen([demo, '--http', '0'], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    uri = server.stdout.readline().strip()
    p = Proxy('--serve', 'a=' + demo, '--serve', 'web=' + uri)
    p.initialize()
    before = names(p.request(1, 'tools/list'))
    server.kill()
    server.wait()
    answer = p.request(2, 'tools/call', {'name': 'web_echo', 'arguments': {'text': 'x'}})
    check('HTTP: a call to a server gone is an error that names it',
          'web_echo' in before and 'web' in (answer or {}).get('error', {}).get('message', ''), answer)
    log = p.wait_for(lambda m: m.get('method') == 'notifications/message' and m['params'].get('logger') == 'web')
    tools = names(p.request(3, 'tools/list'))
    check('HTTP: the server gone is reported, its tools removed, the others kept',
          log is not None and not any(t.startswith('web_') for t in tools) and 'a_echo' in tools, (log, tools))
    # The server back at its address: it is served again.
    server = subprocess.Popen([demo, '--http', uri.rsplit(':', 1)[1].split('/')[0]], stdout=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True)
    try:
        back = p.wait_for(lambda m: m.get('method') == 'notifications/message' and m['params'].get('logger') == 'web' and
                          'started again' in str(m['params'].get('data')), timeout=30)
        answer = p.request(4, 'tools/call', {'name': 'web_echo', 'arguments': {'text': 'back'}})
        check('HTTP: the server back at its address is served again', back is not None and text_of(answer) == 'back',
              (back, answer))
        check('HTTP: the proxy exits with status 0 at the end of input', p.end() == 0)
    finally:
        server.kill()
        server.wait()


def kill_checks():
    if not HAVE_PROC:
        skip('killing the proxy leaves no child', 'no /proc to find the proxy\'s children by')
        return
    p = Proxy('--serve', 'a=' + demo, '--serve', 'b=' + demo)
    answer = p.initialize()
    kids = children(p.process.pid)
    if answer is None or len(kids) != 2:
        check('SIGKILL of the proxy leaves no child', False, ('no children found', answer, kids))
        p.process.kill()
        p.process.wait()
        return
    p.process.send_signal(signal.SIGKILL)
    p.process.wait(10)
    check('SIGKILL of the proxy leaves no child', all(gone(pid) for pid in kids), kids)
    for pid in kids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    p = Proxy('--serve', 'a=' + demo)
    p.initialize()
    kids = children(p.process.pid)
    p.process.send_signal(signal.SIGTERM)
    status = p.process.wait(10)
    check('SIGTERM: the proxy ends with status 0, its child gone', status == 0 and kids and
          all(gone(pid) for pid in kids), (status, kids))


print('TAP version 13', flush=True)
usage_checks()
server = subprocess.Popen([demo, '--http', '0'], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
try:
    uri = server.stdout.readline().strip()
    check('snodo-demo --http 0 prints its URL', uri.startswith('http://'), uri)
    main_checks(uri)
    modern_checks(uri)
finally:
    server.kill()
    server.wait()
failing_checks()
http_failure_checks()
kill_checks()
print('1..%d' % count)
sys.exit(1 if failed else 0)
