#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-proxy-http.py SNODO SNODO-DEMO [NODE SERVER-EVERYTHING]
#
# `snodo proxy --http 127.0.0.1:0 -- snodo-demo`, driven with raw HTTP: the
# URL on the first line of its output; a child per session of the
# initialize era, started by initialize and ended by DELETE; progress on
# the request's stream; 2026-07-28 requests on a pool of children that
# never grows past --pool-size; accepted bearer tokens; a Unix socket;
# SIGTERM and SIGKILL of the proxy leave no child; and a child that speaks
# only the other era. With NODE and the path of
# @modelcontextprotocol/server-everything's dist/index.js: that server as
# the child, in both eras. Output is TAP.

import atexit
import base64
import http.client
import http.server
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

snodo, demo = sys.argv[1:3]
everything = sys.argv[3:5] if len(sys.argv) >= 5 else None
count = 0
failed = 0
LEGACY = '2025-11-25'
MODERN = '2026-07-28'
ENVELOPE = {'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientInfo': {'name': 'test', 'version': '1'},
            'io.modelcontextprotocol/clientCapabilities': {}}


def check(name, ok, detail=''):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print('%s %d - %s' % ('ok' if ok else 'not ok', count, name), flush=True)
    if not ok and detail:
        print('# ' + str(detail).replace('\n', '\n# ')[:3000], flush=True)


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
            fields = stat.rsplit(')', 1)[1].split()
            if int(fields[1]) == pid and fields[0] != 'Z':
                found.append(int(entry))
    return sorted(found)


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


class UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__('localhost', timeout=20)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(20)
        self.sock.connect(self.path)


started = []


@atexit.register
def kill_started():
    """A check that raised leaves no proxy behind."""
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()


class Proxy:
    def __init__(self, *options, child=None, cafile=None):
        self.cafile = cafile
        self.process = subprocess.Popen([snodo, 'proxy', *options, '--', *(child or [demo])],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        started.append(self.process)
        self.url = self.process.stdout.readline().decode().strip()
        parsed = urllib.parse.urlsplit(self.url)
        self.unix = urllib.parse.unquote(parsed.netloc) if parsed.scheme == 'http+unix' else None
        self.host, self.port, self.path = parsed.hostname, parsed.port, parsed.path

    def connection(self):
        if self.unix:
            return UnixConnection(self.unix)
        if self.url.startswith('https://'):
            context = ssl.create_default_context(cafile=self.cafile)
            return http.client.HTTPSConnection(self.host, self.port, timeout=20, context=context)
        return http.client.HTTPConnection(self.host, self.port, timeout=20)

    def post(self, message, headers=None, version=None, session=None):
        """(status, response headers, messages): the messages of a JSON
        answer or an event stream."""
        h = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'}
        if version:
            h['MCP-Protocol-Version'] = version
        if session:
            h['Mcp-Session-Id'] = session
        if version == MODERN and 'method' in message:
            h['Mcp-Method'] = message['method']
            name = message.get('params', {}).get('name') or message.get('params', {}).get('uri')
            if name:
                h['Mcp-Name'] = name
        h.update(headers or {})
        c = self.connection()
        try:
            c.request('POST', self.path, json.dumps(message), h)
            r = c.getresponse()
            body = r.read().decode()
            return r.status, r, parse(r.getheader('Content-Type') or '', body)
        finally:
            c.close()

    def delete(self, session):
        c = self.connection()
        try:
            c.request('DELETE', self.path, headers={'Mcp-Session-Id': session, 'MCP-Protocol-Version': LEGACY})
            r = c.getresponse()
            r.read()
            return r.status
        finally:
            c.close()

    def initialize(self, version=LEGACY, headers=None):
        status, r, messages = self.post({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                                         'params': {'protocolVersion': version, 'capabilities': {},
                                                    'clientInfo': {'name': 'test', 'version': '1'}}},
                                        headers=headers)
        session = r.getheader('Mcp-Session-Id')
        if session:
            self.post({'jsonrpc': '2.0', 'method': 'notifications/initialized'}, headers=headers,
                      version=version, session=session)
        return session, dict(messages[-1] if messages else {}, http_status=status)

    def call(self, session, name, arguments, id=2, meta=None):
        params = {'name': name, 'arguments': arguments}
        if meta:
            params['_meta'] = meta
        return self.post({'jsonrpc': '2.0', 'id': id, 'method': 'tools/call', 'params': params},
                         version=LEGACY, session=session)[2]

    def modern(self, name, arguments, id=7, meta=None):
        params = {'name': name, 'arguments': arguments, '_meta': dict(ENVELOPE, **(meta or {}))}
        return self.post({'jsonrpc': '2.0', 'id': id, 'method': 'tools/call', 'params': params},
                         version=MODERN)[2]

    def stop(self, how=signal.SIGTERM):
        self.process.send_signal(how)
        try:
            return self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            return self.process.wait()


def parse(content_type, body):
    if content_type.startswith('text/event-stream'):
        messages = []
        for event in body.split('\n\n'):
            data = '\n'.join(line[5:].lstrip() for line in event.split('\n') if line.startswith('data:'))
            if data.strip():
                messages.append(json.loads(data))
        return messages
    return [json.loads(body)] if body.strip() else []


def text_of(messages):
    answer = messages[-1] if messages else {}
    try:
        return answer['result']['content'][0]['text']
    except (KeyError, IndexError, TypeError):
        return None


def sessions_and_pool():
    p = Proxy('--http', '127.0.0.1:0', '--pool-size', '2')
    check('the first line of output is the URL', p.url.startswith('http://127.0.0.1:') and p.url.endswith('/mcp'),
          p.url)
    check('no child before a client comes', children(p.process.pid) == [], children(p.process.pid))

    a, answer = p.initialize()
    result = answer.get('result', {})
    check('initialize (2025-11-25): the child\'s answer, with a session id',
          a is not None and result.get('protocolVersion') == LEGACY and
          result.get('serverInfo', {}).get('name') == 'snodo-demo', answer)
    kids_a = children(p.process.pid)
    check('the session has a child of its own', len(kids_a) == 1, kids_a)
    check('tools/call in the session is the child\'s answer', text_of(p.call(a, 'echo', {'text': 'h\u00e9llo'})) ==
          'h\u00e9llo')
    messages = p.call(a, 'progress', {'steps': 3}, id='p', meta={'progressToken': 'tok'})
    progress = [m for m in messages if m.get('method') == 'notifications/progress']
    check('progress comes on the request\'s stream with the client\'s token, then the result',
          len(progress) == 3 and all(m['params']['progressToken'] == 'tok' for m in progress) and
          text_of(messages) == 'done 3 steps' and messages[-1].get('id') == 'p', messages)

    b, answer = p.initialize()
    kids = children(p.process.pid)
    check('a second session has a second child', b is not None and b != a and len(kids) == 2, kids)
    kid_b = [k for k in kids if k not in kids_a]
    status, _, messages = p.post({'jsonrpc': '2.0', 'id': 3, 'method': 'tools/call',
                                  'params': {'name': 'echo', 'arguments': {'text': 'b'}}},
                                 version=LEGACY, session=b)
    check('the second session is served', text_of(messages) == 'b', messages)

    check('DELETE ends the session', p.delete(a) in (200, 204))
    check('... and its child, not the other',
          wait_for(lambda: not alive(kids_a[0])) and kid_b and alive(kid_b[0]), children(p.process.pid))
    status, _, messages = p.post({'jsonrpc': '2.0', 'id': 4, 'method': 'ping'}, version=LEGACY, session=a)
    check('the ended session is not found (404)', status == 404, (status, messages))

    # 2026-07-28: no session; concurrent requests on at most two children.
    results = []

    def one(i):
        results.append(text_of(p.modern('sleep', {'ms': 400}, id=i)))
    threads = [threading.Thread(target=one, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    peak = 0
    while any(t.is_alive() for t in threads):
        peak = max(peak, len(children(p.process.pid)) - 1)
        time.sleep(0.02)
    for t in threads:
        t.join()
    check('2026-07-28 requests are answered by the pool', results == ['slept 400'] * 5, results)
    check('the pool never grows past --pool-size 2', peak == 2 and len(children(p.process.pid)) == 3,
          (peak, children(p.process.pid)))
    messages = p.modern('progress', {'steps': 2}, id='m', meta={'progressToken': 9})
    progress = [m for m in messages if m.get('method') == 'notifications/progress']
    check('2026-07-28: progress on the request\'s stream with the client\'s token',
          len(progress) == 2 and all(m['params']['progressToken'] == 9 for m in progress) and
          messages[-1].get('id') == 'm' and messages[-1].get('result', {}).get('resultType') == 'complete',
          messages)

    pooled = [k for k in children(p.process.pid) if k not in kid_b]
    os.kill(pooled[0], signal.SIGKILL)
    wait_for(lambda: not alive(pooled[0]))
    time.sleep(0.5)  # the proxy sees its output end
    answers = [text_of(p.modern('echo', {'text': 'again %d' % i}, id=i)) for i in range(3)]
    check('a pooled server that dies is replaced', answers == ['again 0', 'again 1', 'again 2'] and
          len(children(p.process.pid)) <= 3, (answers, children(p.process.pid)))

    kids = children(p.process.pid)
    code = p.stop(signal.SIGTERM)
    check('SIGTERM: the proxy exits 0', code == 0, code)
    check('SIGTERM: no child is left', wait_for(lambda: not any(alive(k) for k in kids)),
          [k for k in kids if alive(k)])


def killed():
    p = Proxy('--http', '127.0.0.1:0')
    p.initialize()
    p.modern('echo', {'text': 'x'})
    kids = children(p.process.pid)
    p.stop(signal.SIGKILL)
    check('SIGKILL: no child is left (a session\'s, the pool\'s)',
          len(kids) == 2 and wait_for(lambda: not any(alive(k) for k in kids)), kids)


def limits_and_auth():
    with tempfile.TemporaryDirectory() as folder:
        tokens = os.path.join(folder, 'tokens')
        with open(tokens, 'w') as f:
            f.write('# TOKEN PRINCIPAL SCOPE...\nsecret-1 alice mcp\n')
        where = os.path.join(folder, 'mcp.sock')
        p = Proxy('--http-unix', where, '--max-sessions', '1', '--accept-bearer-token-file', tokens,
                  '--authorization-server', 'https://auth.example.org')
        check('--http-unix: the URL is http+unix', p.url.startswith('http+unix://') and p.unix == where, p.url)
        session, answer = p.initialize()
        check('a request without a token is refused (401), no child started',
              session is None and answer.get('http_status') == 401 and children(p.process.pid) == [], answer)
        good = {'Authorization': 'Bearer secret-1'}
        session, answer = p.initialize(headers=good)
        check('with an accepted token: served', session is not None and 'result' in answer, answer)
        first = children(p.process.pid)
        second, answer = p.initialize(headers=good)
        check('--max-sessions 1: a second session evicts the idle first, and its child ends',
              second is not None and len(first) == 1 and wait_for(lambda: not alive(first[0])) and
              len(children(p.process.pid)) == 1, (first, children(p.process.pid), answer))
        status, _, messages = p.post({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                                      'params': {'protocolVersion': LEGACY, 'capabilities': {},
                                                 'clientInfo': {'name': 'test', 'version': '1'}}},
                                     headers={'Authorization': 'Bearer wrong'})
        check('a wrong token is refused (401)', status == 401, (status, messages))
        p.stop()


def introspection():
    """--token-introspection: a fake endpoint on loopback says which tokens
    are active, and for which audience."""
    asked = []

    class Endpoint(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            form = urllib.parse.parse_qs(self.rfile.read(int(self.headers['Content-Length'])).decode())
            asked.append((self.headers.get('Authorization'), form))
            token = form.get('token', [''])[0]
            if token == 'live':
                answer = {'active': True, 'sub': 'bob', 'scope': 'mcp', 'aud': proxy_url[0]}
            elif token == 'elsewhere':
                answer = {'active': True, 'sub': 'eve', 'aud': 'https://other.example.org/mcp'}
            else:
                answer = {'active': False}
            body = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    proxy_url = ['']
    endpoint = http.server.HTTPServer(('127.0.0.1', 0), Endpoint)
    threading.Thread(target=endpoint.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as folder:
        secret = os.path.join(folder, 'secret')
        with open(secret, 'w') as f:
            f.write('s3cret\n')
        p = Proxy('--http', '127.0.0.1:0', '--authorization-server', 'https://auth.example.org',
                  '--token-introspection', 'http://127.0.0.1:%d/introspect' % endpoint.server_port,
                  '--introspection-client-id', 'proxy', '--introspection-client-secret-file', secret)
        proxy_url[0] = p.url
        session, answer = p.initialize(headers={'Authorization': 'Bearer live'})
        check('--token-introspection: an active token for this server is served',
              session is not None and 'result' in answer, answer)
        check('--token-introspection: the endpoint was asked as the proxy\'s client',
              any(a == 'Basic ' + base64.b64encode(b'proxy:s3cret').decode() and f.get('token') == ['live']
                  for a, f in asked), asked)
        for token, why in (('elsewhere', 'a token for another audience'), ('dead', 'an inactive token')):
            status, _, messages = p.post({'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
                                          'params': {'protocolVersion': LEGACY, 'capabilities': {},
                                                     'clientInfo': {'name': 'test', 'version': '1'}}},
                                         headers={'Authorization': 'Bearer ' + token})
            check('--token-introspection: %s is refused (401)' % why, status == 401, (status, messages))
        p.stop()
    endpoint.shutdown()


def tls():
    if shutil.which('openssl') is None:
        check('TLS # SKIP no openssl to make a certificate with', True)
        return
    with tempfile.TemporaryDirectory() as folder:
        cert, key = os.path.join(folder, 'cert.pem'), os.path.join(folder, 'key.pem')
        subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj',
                        '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost',
                        '-keyout', key, '-out', cert], check=True, capture_output=True)
        p = Proxy('--http', '127.0.0.1:0', '--tls-certificate', cert, '--tls-key', key, cafile=cert)
        check('--tls-certificate: the URL is https', p.url.startswith('https://127.0.0.1:'), p.url)
        session, answer = p.initialize()
        check('over TLS: a session served by its child',
              session is not None and text_of(p.call(session, 'echo', {'text': 'sealed'})) == 'sealed', answer)
        p.stop()


def other_era(only, label, legacy_expected=True):
    p = Proxy('--http', '127.0.0.1:0', child=[demo, '--protocol-versions=' + only])
    session, answer = p.initialize()
    check('%s: a 2025-11-25 session is served' % label,
          session is not None and answer.get('result', {}).get('protocolVersion') == LEGACY and
          text_of(p.call(session, 'echo', {'text': 'old'})) == 'old', answer)
    messages = p.modern('echo', {'text': 'new'})
    check('%s: a 2026-07-28 request is served' % label,
          text_of(messages) == 'new' and messages[-1]['result'].get('resultType') == 'complete', messages)
    p.stop()


def server_everything():
    node, script = everything
    p = Proxy('--http', '127.0.0.1:0', child=[node, script])
    session, answer = p.initialize()
    check('server-everything: initialize through the proxy',
          session is not None and 'everything' in answer.get('result', {}).get('serverInfo', {}).get('name', ''),
          answer)
    messages = p.call(session, 'echo', {'message': 'hi'})
    check('server-everything: tools/call echo in 2025-11-25', 'hi' in (text_of(messages) or ''), messages)
    messages = p.modern('echo', {'message': 'hey'})
    check('server-everything: tools/call echo in 2026-07-28 (mapped to its era)',
          'hey' in (text_of(messages) or '') and messages[-1]['result'].get('resultType') == 'complete', messages)
    kids = children(p.process.pid)
    p.stop()
    check('server-everything: no child left', wait_for(lambda: not any(alive(k) for k in kids)), kids)


def usage():
    def status(*args):
        r = subprocess.run([snodo, 'proxy', *args], capture_output=True, text=True, timeout=20)
        return r.returncode, r.stdout, r.stderr
    for args, why in ((['--http', '1.2.3', '--', demo], 'a bad address'),
                      (['--pool-size', '2', '--', demo], '--pool-size without --http'),
                      (['--http', '127.0.0.1:0', 'http://127.0.0.1:1/mcp'], 'a URL to serve'),
                      (['--http', '127.0.0.1:0', '--tls-key', 'key.pem', '--', demo], '--tls-key alone'),
                      (['--http', '127.0.0.1:0', '--accept-bearer-token-file', demo, '--', demo],
                       'tokens without --authorization-server'),
                      (['--http', '127.0.0.1:0', '--authorization-server', 'https://a.example.org',
                        '--token-introspection', 'http://127.0.0.1:1/i', '--', demo],
                       '--token-introspection without its client'),
                      (['--token-introspection', 'http://127.0.0.1:1/i', '--', demo],
                       '--token-introspection without --http')):
        code, out, err = status(*args)
        check('%s: status 2, nothing served' % why, code == 2 and out == '' and 'snodo:' in err, (code, out, err))
    taken = socket.socket()
    taken.bind(('127.0.0.1', 0))
    taken.listen(1)
    code, out, err = status('--http', '127.0.0.1:%d' % taken.getsockname()[1], '--', demo)
    taken.close()
    check('a port taken: status 3', code == 3 and out == '', (code, out, err))


if not os.path.exists('/proc/self/stat'):
    print('1..0 # SKIP no /proc to find the children by')
    sys.exit(0)
usage()
sessions_and_pool()
killed()
limits_and_auth()
introspection()
tls()
other_era(MODERN, 'a child of 2026-07-28 only')
other_era(LEGACY, 'a child of 2025-11-25 only')
if everything:
    server_everything()
print('1..%d' % count)
sys.exit(1 if failed else 0)
