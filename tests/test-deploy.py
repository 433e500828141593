#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""Two snodo-demo instances behind real proxies, with a real Redis between them.

    test-deploy.py        (TAP on standard output; SNODO_DEMO names the demo)

Starts, on loopback ports found free, in a temporary directory that holds
every configuration, log and pid file:

- redis-server (no persistence), when snodo-demo was built with --redis;
- two `snodo-demo --http` instances, node-a and node-b, with one
  --request-state-secret-file, --allowed-hosts for the public name the
  clients use, and --redis (node-a over TCP, node-b over a Unix socket);
- one more instance, node-tls, on a Unix socket given the group of
  nginx's workers and mode 0660 (--http-unix-group, --http-unix-mode),
  requiring bearer tokens, with --resource naming its public https URL;
- haproxy with the map recipe, haproxy with the stick-table recipe, and
  nginx, each in the foreground, each from the files of data/deploy/ as
  shipped (haproxy-map.cfg with mcp-instances.map, haproxy-stick.cfg;
  nginx.conf with nginx-mcp.conf and nginx-mcp-tls.conf in its
  sites-enabled/), only the placeholders their comments name replaced:
  ports, paths, the certificate (tests/data/tls/).

Then checks through each proxy: 2026-07-28 calls reach both instances;
multi-round-trip retries succeed whichever instance they reach; 2025-11-25
sessions keep to their instance; a `subscriptions/listen` stream and a
2025 GET stream receive, promptly, a change made on the other instance
(through Redis), and the publishing instance's own stream receives it once.
Through nginx's TLS site: a request without a token is answered 401, the
resource_metadata URL it names is served through nginx (200), and a request
with a token reaches node-tls over its Unix socket.

A program that is not installed skips the checks that need it, saying so;
under CI (CI set and not "false") it fails them instead, since CI installs
them all (.ci/install-deps --tests).
"""

import grp
import http.client
import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.parse

# Generous bounds: a loaded 2-core machine must pass.
START_TIMEOUT = 20.0
ANSWER_TIMEOUT = 20.0
# A change must reach a stream through a proxy within this many seconds.
# Promptly means well under this: without haproxy's http-no-delay each
# event waits ~200 ms, and a buffering proxy holds it until the stream ends.
EVENT_TIMEOUT = 5.0
# How long to wait for a second copy of an event that must come once.
DUPLICATE_WAIT = 1.5
ROUNDS = 10
PUBLIC_HOST = 'mcp.example.com'
META = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {'elicitation': {}}}
IN_CI = os.environ.get('CI', '') not in ('', 'false', '0')

results = []
processes = []
# proxy -> seconds from a change to its event on a stream through it
latencies = {}
# The fastest event through a proxy must come within this: without
# haproxy's http-no-delay every event waits ~200 ms (measured: 208-216 ms).
PROMPT_BOUND = 0.15


def report(ok, name, detail=''):
    results.append(ok)
    line = '%s %d - %s' % ('ok' if ok else 'not ok', len(results), name)
    print(line, flush=True)
    for text in detail.splitlines():
        print('# ' + text, flush=True)


def skip(name, why):
    """A check that cannot run here: a skip, or under CI a failure."""
    if IN_CI:
        report(False, name, 'CI is set, so this may not be skipped: ' + why)
    else:
        results.append(True)
        print('ok %d - %s # SKIP %s' % (len(results), name, why), flush=True)


def note(text):
    print('# ' + text, flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def wait_for_port(port, process, name):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError('%s exited with status %s' % (name, process.returncode))
        try:
            with socket.create_connection(('127.0.0.1', port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError('%s did not listen on port %d within %.0f s' % (name, port, START_TIMEOUT))


def die_with_test():
    """In the child: killed when the test is, even by SIGKILL (Linux)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def start(name, argv, workdir, **kwargs):
    log = open(os.path.join(workdir, name + '.log'), 'wb')
    process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=kwargs.pop('stdout', log),
                               stderr=log, cwd=workdir, start_new_session=True,
                               preexec_fn=die_with_test, **kwargs)
    process.snodo_name = name
    process.snodo_log = log.name
    processes.append(process)
    return process


def stop_all():
    for process in processes:
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + 5
    for process in processes:
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def log_tail(process, n=15):
    try:
        with open(process.snodo_log, 'rb') as f:
            lines = f.read().decode('utf-8', 'replace').splitlines()
        return '\n'.join('%s: %s' % (process.snodo_name, l) for l in lines[-n:])
    except OSError:
        return ''


# ---- HTTP ------------------------------------------------------------------

class Answer:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)


def post(port, body, headers, host=PUBLIC_HOST):
    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=ANSWER_TIMEOUT)
    try:
        all_headers = {'Host': '%s:%d' % (host, port), 'Content-Type': 'application/json',
                       'Accept': 'application/json, text/event-stream'}
        all_headers.update(headers)
        connection.request('POST', '/mcp', json.dumps(body).encode(), all_headers)
        response = connection.getresponse()
        data = response.read()
        if response.getheader('Content-Type', '').startswith('text/event-stream'):
            # One answer in an event stream: its last data line.
            data = [l for l in data.split(b'\n') if l.startswith(b'data:')][-1][5:]
        return Answer(response.status, response, data)
    finally:
        connection.close()


def modern_call(port, tool, arguments, request_id=1, extra=None, host=PUBLIC_HOST):
    params = {'name': tool, 'arguments': arguments, '_meta': META}
    params.update(extra or {})
    return post(port, {'jsonrpc': '2.0', 'id': request_id, 'method': 'tools/call', 'params': params},
                {'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': tool},
                host=host)


def served_by(answer, ports):
    """Which instance answered, by the header the proxy adds."""
    response = answer.headers if isinstance(answer, Answer) else answer
    value = response.getheader('X-Mcp-Upstream') or ''
    for name, port in ports.items():
        if value == name or value.endswith(':%d' % port):
            return name
    raise AssertionError('no instance in X-Mcp-Upstream: %r' % value)


class Stream:
    """An event stream read line by line, with a deadline per read."""

    def __init__(self, port, method, body, headers, host=PUBLIC_HOST):
        self.connection = http.client.HTTPConnection('127.0.0.1', port, timeout=ANSWER_TIMEOUT)
        all_headers = {'Host': '%s:%d' % (host, port), 'Accept': 'application/json, text/event-stream'}
        all_headers.update(headers)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            all_headers['Content-Type'] = 'application/json'
        self.connection.request(method, '/mcp', data, all_headers)
        self.response = self.connection.getresponse()
        if self.response.status != 200:
            raise AssertionError('the stream was answered %d: %r' % (self.response.status, self.response.read()[:300]))
        content_type = self.response.getheader('Content-Type', '')
        if not content_type.startswith('text/event-stream'):
            raise AssertionError('the stream is %r, not text/event-stream' % content_type)

    def next_message(self, timeout):
        """The next JSON-RPC message of the stream, or None after @timeout s."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self.connection.sock.settimeout(left)
            try:
                line = self.response.readline()
            except (socket.timeout, TimeoutError):
                return None
            if not line:
                raise AssertionError('the stream ended')
            # A priming event (an id and a retry, empty data) carries no
            # message: SSE clients skip it.
            if line.startswith(b'data:') and line[5:].strip():
                return json.loads(line[5:])

    def close(self):
        self.connection.close()


# ---- Configurations ----------------------------------------------------------

# The recipes of data/deploy/, run as shipped: only the placeholders each
# file's comments name are replaced (ports, paths, certificate).
DATA = os.environ.get('SNODO_DATA') or os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'data')
TLS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'tls')


def shipped(name, replacements):
    """The text of data/deploy/@name with each (old, new) of
    @replacements done; each old text must be there."""
    with open(os.path.join(DATA, 'deploy', name)) as f:
        text = f.read()
    for old, new in replacements:
        assert old in text, '%s has no %r to replace' % (name, old)
        text = text.replace(old, new)
    return text


def instance_ports(ports):
    return [('127.0.0.1:8081', '127.0.0.1:%d' % ports['node-a']),
            ('127.0.0.1:8082', '127.0.0.1:%d' % ports['node-b'])]


def haproxy_map_config(port, ports, workdir):
    map_path = os.path.join(workdir, 'mcp-instances.map')
    with open(map_path, 'w') as f:
        f.write(shipped('mcp-instances.map', []))
    return shipped('haproxy-map.cfg', [('bind :8080', 'bind 127.0.0.1:%d' % port),
                                       ('/etc/haproxy/mcp-instances.map', map_path)] + instance_ports(ports))


def haproxy_stick_config(port, ports, workdir):
    return shipped('haproxy-stick.cfg', [('bind :8080', 'bind 127.0.0.1:%d' % port)] + instance_ports(ports))


def nginx_config(port, ports, workdir, production=None):
    """nginx.conf, with nginx-mcp.conf in its sites-enabled/, and with
    @production (tls_port, socket_path, group), nginx-mcp-tls.conf too."""
    sites = os.path.join(workdir, 'nginx-sites-enabled')
    os.makedirs(sites, exist_ok=True)
    with open(os.path.join(sites, 'nginx-mcp.conf'), 'w') as f:
        f.write(shipped('nginx-mcp.conf', [('listen 8080;', 'listen 127.0.0.1:%d;' % port)] + instance_ports(ports)))
    if production is not None:
        tls_port, socket_path = production
        with open(os.path.join(sites, 'nginx-mcp-tls.conf'), 'w') as f:
            f.write(shipped('nginx-mcp-tls.conf', [
                ('listen 443 ssl;', 'listen 127.0.0.1:%d ssl;' % tls_port),
                ('/etc/ssl/certs/mcp.example.com.pem', os.path.join(TLS_DIR, 'test-cert.pem')),
                ('/etc/ssl/private/mcp.example.com.key', os.path.join(TLS_DIR, 'test-key.pem')),
                ('unix:/run/snodo/mcp.sock', 'unix:' + socket_path)]))
    return shipped('nginx.conf', [('/run/nginx.pid', os.path.join(workdir, 'nginx.pid')),
                                  ('/var/log/nginx/', os.path.join(workdir, 'nginx-')),
                                  ('/var/lib/nginx/', os.path.join(workdir, 'nginx-')),
                                  ('/etc/nginx/sites-enabled/', sites + '/')])


# ---- Checks ----------------------------------------------------------------

def check_modern_balance(proxy, port, ports):
    seen = {}
    for i in range(ROUNDS * 2):
        answer = modern_call(port, 'echo', {'text': 'hi %d' % i}, request_id=i + 1)
        assert answer.status == 200, 'status %d: %r' % (answer.status, answer.body[:300])
        result = answer.json()['result']
        assert result['content'][0]['text'] == 'hi %d' % i, result
        name = served_by(answer, ports)
        seen[name] = seen.get(name, 0) + 1
    assert set(seen) == set(ports), 'only %s answered' % seen
    return '%d calls: %s' % (ROUNDS * 2, ', '.join('%s %d' % kv for kv in sorted(seen.items())))


def check_mrtr(proxy, port, ports):
    crossed = 0
    for i in range(ROUNDS * 2):
        asked = modern_call(port, 'ask', {'question': 'Go on?'}, request_id=1)
        assert asked.status == 200, 'status %d: %r' % (asked.status, asked.body[:300])
        result = asked.json()['result']
        assert result['resultType'] == 'input_required', result
        first = served_by(asked, ports)
        retry = modern_call(port, 'ask', {'question': 'Go on?'}, request_id=2, extra={
            'inputResponses': {'confirm': {'action': 'accept', 'content': {'confirm': True}}},
            'requestState': result['requestState']})
        assert retry.status == 200, 'retry %d: status %d: %r' % (i, retry.status, retry.body[:300])
        answer = retry.json()
        assert 'result' in answer and answer['result'].get('resultType', 'complete') == 'complete', answer
        if served_by(retry, ports) != first:
            crossed += 1
    assert crossed > 0, 'no retry reached the other instance'
    return '%d retries succeeded, %d of them on the other instance' % (ROUNDS * 2, crossed)


INITIALIZE = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
              'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                         'clientInfo': {'name': 'test-deploy', 'version': '1'}}}


def legacy_session_at(port, host):
    answer = post(port, INITIALIZE, {}, host=host)
    assert answer.status == 200, 'initialize: status %d: %r' % (answer.status, answer.body[:300])
    session = answer.headers.getheader('Mcp-Session-Id')
    assert session and session.split('.')[0] in ('node-a', 'node-b'), 'session id %r' % session
    headers = {'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-11-25'}
    answer = post(port, {'jsonrpc': '2.0', 'method': 'notifications/initialized'}, headers, host=host)
    assert answer.status == 202, 'notifications/initialized: status %d' % answer.status
    return session, headers


def legacy_session(port):
    return legacy_session_at(port, PUBLIC_HOST)


def check_prompt(proxy, port, ports):
    times = latencies.get(proxy, [])
    assert times, 'no event came through %s' % proxy
    fastest = min(times)
    assert fastest < PROMPT_BOUND, 'the fastest of %d events took %.0f ms' % (len(times), fastest * 1000)
    return 'the fastest of %d events: %.0f ms, the slowest %.0f ms' % (len(times), fastest * 1000, max(times) * 1000)


def check_legacy_sessions(proxy, port, ports):
    tags = {}
    for i in range(ROUNDS):
        session, headers = legacy_session(port)
        tag = session.split('.')[0]
        tags[tag] = tags.get(tag, 0) + 1
        for j in range(3):
            answer = post(port, {'jsonrpc': '2.0', 'id': 10 + j, 'method': 'tools/call',
                                 'params': {'name': 'echo', 'arguments': {'text': 'x'}}}, headers)
            assert answer.status == 200, 'session %s, call %d: status %d: %r' % (
                session, j, answer.status, answer.body[:200])
            assert served_by(answer, ports) == tag, 'session %s served by %s' % (session, served_by(answer, ports))
    assert set(tags) == set(ports), 'sessions only on %s' % tags
    return '%d sessions (%s), 3 calls each, all on their instance' % (
        ROUNDS, ', '.join('%s %d' % kv for kv in sorted(tags.items())))


def touch(name, ports, uri):
    """Touches @uri on instance @name, straight, not through a proxy: when
    the call was sent."""
    sent = time.monotonic()
    answer = modern_call(ports[name], 'touch', {'uri': uri}, host='127.0.0.1')
    assert answer.status == 200, 'touch: status %d: %r' % (answer.status, answer.body[:200])
    return sent


def expect_event(stream, method, uri, what):
    started = time.monotonic()
    while True:
        message = stream.next_message(EVENT_TIMEOUT - (time.monotonic() - started))
        if message is None:
            raise AssertionError('%s: no %s within %.0f s' % (what, method, EVENT_TIMEOUT))
        if message.get('method') == method and message.get('params', {}).get('uri') == uri:
            return time.monotonic()


def expect_no_event(stream, method, uri, what):
    """No such event for DUPLICATE_WAIT s; the stream cannot be read after."""
    deadline = time.monotonic() + DUPLICATE_WAIT
    while time.monotonic() < deadline:
        message = stream.next_message(deadline - time.monotonic())
        if message is None:
            return
        if message.get('method') == method and message.get('params', {}).get('uri') == uri:
            raise AssertionError('%s: %s %s came twice' % (what, method, uri))


def listen_stream(port, uri, host=PUBLIC_HOST):
    stream = Stream(port, 'POST', {
        'jsonrpc': '2.0', 'id': 'listen', 'method': 'subscriptions/listen',
        'params': {'notifications': {'resourceSubscriptions': [uri]}, '_meta': META}},
        {'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'subscriptions/listen'}, host=host)
    ack = stream.next_message(ANSWER_TIMEOUT)
    assert ack is not None and ack.get('method') == 'notifications/subscriptions/acknowledged', ack
    return stream


def check_modern_stream(proxy, port, ports):
    """A listen stream through the proxy gets a change made on the other
    instance; a stream on that instance gets it too, once."""
    lines = []
    for i in range(2):
        uri = 'demo://deploy/%s/%d' % (proxy, i)
        stream = listen_stream(port, uri)
        here = served_by(stream.response, ports)
        other = [n for n in ports if n != here][0]
        local = listen_stream(ports[other], uri, host='127.0.0.1')
        try:
            sent = touch(other, ports, uri)
            arrived = expect_event(stream, 'notifications/resources/updated', uri, 'through ' + proxy)
            expect_event(local, 'notifications/resources/updated', uri, 'on the publishing instance')
            expect_no_event(local, 'notifications/resources/updated', uri, 'on the publishing instance')
            expect_no_event(stream, 'notifications/resources/updated', uri, 'through ' + proxy)
            latencies.setdefault(proxy, []).append(arrived - sent)
            lines.append('stream on %s, change on %s: %.0f ms' % (here, other, (arrived - sent) * 1000))
        finally:
            stream.close()
            local.close()
    return '; '.join(lines)


def check_legacy_stream(proxy, port, ports):
    """A 2025 GET stream through the proxy gets a change made on the other
    instance."""
    lines = []
    for i in range(2):
        uri = 'demo://deploy/%s/legacy/%d' % (proxy, i)
        session, headers = legacy_session(port)
        here = session.split('.')[0]
        other = [n for n in ports if n != here][0]
        answer = post(port, {'jsonrpc': '2.0', 'id': 5, 'method': 'resources/subscribe',
                             'params': {'uri': uri}}, headers)
        assert answer.status == 200 and 'result' in answer.json(), 'subscribe: %d %r' % (answer.status, answer.body[:200])
        # A session on the publishing instance, straight.
        local_session, local_headers = legacy_session_at(ports[other], '127.0.0.1')
        answer = post(ports[other], {'jsonrpc': '2.0', 'id': 5, 'method': 'resources/subscribe',
                                     'params': {'uri': uri}}, local_headers, host='127.0.0.1')
        assert answer.status == 200 and 'result' in answer.json(), 'subscribe: %d %r' % (answer.status, answer.body[:200])
        stream = Stream(port, 'GET', None, headers)
        local = Stream(ports[other], 'GET', None, local_headers, host='127.0.0.1')
        try:
            assert served_by(stream.response, ports) == here
            # A GET stream is open once its headers came; give the
            # instances a moment to attach them before the change.
            time.sleep(0.2)
            sent = touch(other, ports, uri)
            arrived = expect_event(stream, 'notifications/resources/updated', uri, 'GET through ' + proxy)
            expect_event(local, 'notifications/resources/updated', uri, 'GET on the publishing instance')
            expect_no_event(local, 'notifications/resources/updated', uri, 'GET on the publishing instance')
            expect_no_event(stream, 'notifications/resources/updated', uri, 'GET through ' + proxy)
            latencies.setdefault(proxy, []).append(arrived - sent)
            lines.append('session on %s, change on %s: %.0f ms' % (here, other, (arrived - sent) * 1000))
        finally:
            stream.close()
            local.close()
    return '; '.join(lines)


def wait_for_log(process, text, count):
    """Whether @text appears @count times in @process's log in time."""
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        with open(process.snodo_log, 'rb') as f:
            if f.read().count(text.encode()) >= count:
                return True
        time.sleep(0.05)
    return False


def check_redis_outage(redis, redis_argv, workdir, demos, ports):
    """Redis goes away and comes back: meanwhile each instance serves and
    announces its own changes; afterwards the buses are connected again."""
    uri = 'demo://deploy/outage'
    redis.terminate()
    redis.wait(10)
    for name, demo in demos.items():
        assert wait_for_log(demo, 'is disconnected', 1), '%s never said its bus was disconnected' % name
    # A stream that timed out waiting cannot be read again (http.client):
    # each waits for nothing only at its end.
    a = listen_stream(ports['node-a'], uri, host='127.0.0.1')
    b = listen_stream(ports['node-b'], uri, host='127.0.0.1')
    try:
        touch('node-b', ports, uri)
        expect_event(b, 'notifications/resources/updated', uri, 'on node-b, Redis down')
        expect_no_event(a, 'notifications/resources/updated', uri, 'on node-a, Redis down')
    finally:
        a.close()
        b.close()
    answer = modern_call(ports['node-a'], 'echo', {'text': 'still here'}, host='127.0.0.1')
    assert answer.status == 200, 'node-a without Redis: status %d' % answer.status

    started = time.monotonic()
    again = start('redis-again', redis_argv, workdir)
    wait_for_port(int(redis_argv[redis_argv.index('--port') + 1]), again, 'redis-server (again)')
    for name, demo in demos.items():
        assert wait_for_log(demo, 'is connected', 2), '%s did not connect again' % name
    reconnected = time.monotonic() - started
    a = listen_stream(ports['node-a'], uri, host='127.0.0.1')
    b = listen_stream(ports['node-b'], uri, host='127.0.0.1')
    try:
        touch('node-b', ports, uri)
        expect_event(a, 'notifications/resources/updated', uri, 'on node-a, Redis back')
        expect_event(b, 'notifications/resources/updated', uri, 'on node-b, Redis back')
        expect_no_event(b, 'notifications/resources/updated', uri, 'on node-b, Redis back')
    finally:
        a.close()
        b.close()
    return 'both buses connected again %.1f s after redis-server restarted' % reconnected


IDLE_SECONDS = 20


def check_idle_streams(running, demos, ports):
    """Streams through every proxy stay open while idle for longer than the
    15 s between keep-alive comments, and so do the buses' connections."""
    streams = []
    try:
        for proxy, port in running:
            uri = 'demo://deploy/idle/' + proxy
            stream = listen_stream(port, uri)
            streams.append((proxy, uri, stream, served_by(stream.response, ports)))
        time.sleep(IDLE_SECONDS)
        for proxy, uri, stream, here in streams:
            other = [n for n in ports if n != here][0]
            touch(other, ports, uri)
            expect_event(stream, 'notifications/resources/updated', uri, 'idle stream through ' + proxy)
    finally:
        for _, _, stream, _ in streams:
            stream.close()
    for name, demo in demos.items():
        with open(demo.snodo_log, 'rb') as f:
            log = f.read().decode('utf-8', 'replace')
        assert 'disconnected' not in log and log.count('is connected') == 1, \
            '%s lost its bus:\n%s' % (name, log_tail(demo))
    return '%d streams idle for %d s, then each got a change; no bus disconnected' % (len(streams), IDLE_SECONDS)


def check_page_matches_files():
    """Every configuration quoted in introspection/deploy.md (a fenced block
    without a language) is taken from one file of data/deploy/: each of its
    lines, comments aside, is a line of that file."""
    page = os.path.join(os.path.dirname(DATA), 'introspection', 'deploy.md')
    blocks = []
    inside = keep = False
    with open(page) as f:
        for line in f:
            if line.startswith('```'):
                if inside and keep:
                    blocks.append(''.join(lines))
                # Only blocks without a language: sh and c are not files.
                inside, keep, lines = not inside, line.strip() == '```', []
            elif inside:
                lines.append(line)
    files = {}
    folder = os.path.join(DATA, 'deploy')
    for name in os.listdir(folder):
        with open(os.path.join(folder, name)) as f:
            files[name] = {line.strip() for line in f}
    assert blocks, 'no configuration in deploy.md'
    found = []
    for block in blocks:
        lines = {line.strip() for line in block.splitlines()} - {''}
        lines = {line for line in lines if not line.startswith('#')}
        sources = [name for name, content in sorted(files.items()) if lines <= content]
        assert sources, 'a block of deploy.md is in no file of data/deploy/:\n' + block
        found.append(sources[0])
    return 'the %d configurations of the page are from %s' % (len(blocks), ', '.join(found))


# ---- The production shape: TLS, a Unix socket, bearer tokens ------------------

TOKEN = 'tok-deploy'


def start_production(demo, workdir):
    """snodo-demo on a Unix socket that nginx's workers may use (their
    group, mode 0660), requiring a bearer token, as nginx-mcp-tls.conf
    describes it; returns what the checks need."""
    port = free_port()
    path = os.path.join(workdir, 'mcp.sock')
    tokens = os.path.join(workdir, 'tokens')
    with open(tokens, 'w') as f:
        f.write('%s ops mcp:tools\n' % TOKEN)
    os.chmod(tokens, 0o600)
    # nginx.conf's workers run as www-data when nginx starts as root;
    # otherwise as this user.
    group = 'www-data' if os.geteuid() == 0 else grp.getgrgid(os.getegid()).gr_name
    resource = 'https://%s:%d/mcp' % (PUBLIC_HOST, port)
    argv = [demo, '--http-unix=' + path, '--http-unix-group=' + group, '--http-unix-mode=0660',
            '--allowed-hosts=' + PUBLIC_HOST, '--bearer-token-file=' + tokens,
            '--authorization-server=https://auth.example.com', '--resource=' + resource]
    out = open(os.path.join(workdir, 'node-tls.uri'), 'w+b')
    process = start('node-tls', argv, workdir, stdout=out)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and not os.path.exists(path):
        if process.poll() is not None:
            raise SystemExit('Bail out! node-tls exited: %s' % log_tail(process))
        time.sleep(0.05)
    note('node-tls: %s, group %s, mode 0660' % (path, group))
    return {'port': port, 'socket': path, 'resource': resource, 'process': process}


def tls_request(port, method, path, body=None, headers=None):
    """A request through nginx's TLS port, as a client of the public name
    (the test certificate is its own issuer: not verified)."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection('127.0.0.1', port, timeout=ANSWER_TIMEOUT, context=context)
    try:
        all_headers = {'Host': '%s:%d' % (PUBLIC_HOST, port)}
        all_headers.update(headers or {})
        connection.request(method, path, json.dumps(body).encode() if body is not None else None, all_headers)
        response = connection.getresponse()
        return Answer(response.status, response, response.read())
    finally:
        connection.close()


ECHO_CALL = {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
             'params': {'name': 'echo', 'arguments': {'text': 'through TLS'}, '_meta': META}}
ECHO_HEADERS = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
                'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'echo'}


def check_production_metadata(production):
    port = production['port']
    answer = tls_request(port, 'POST', '/mcp', ECHO_CALL, ECHO_HEADERS)
    assert answer.status == 401, 'without a token: %d %r' % (answer.status, answer.body[:200])
    challenge = answer.headers.getheader('WWW-Authenticate') or ''
    match = re.search(r'resource_metadata="([^"]+)"', challenge)
    assert match, 'no resource_metadata in %r' % challenge
    url = urllib.parse.urlsplit(match.group(1))
    assert url.scheme == 'https' and url.netloc == '%s:%d' % (PUBLIC_HOST, port), match.group(1)
    metadata = tls_request(port, 'GET', url.path)
    assert metadata.status == 200, 'GET %s through nginx: %d %r' % (url.path, metadata.status, metadata.body[:200])
    document = metadata.json()
    assert document.get('resource') == production['resource'], document
    assert 'https://auth.example.com' in document.get('authorization_servers', []), document
    return '401 names %s; it answers 200 through nginx' % match.group(1)


def check_production_call(production):
    headers = dict(ECHO_HEADERS)
    headers['Authorization'] = 'Bearer ' + TOKEN
    answer = tls_request(production['port'], 'POST', '/mcp', ECHO_CALL, headers)
    assert answer.status == 200, 'with a token: %d %r' % (answer.status, answer.body[:300])
    assert answer.json()['result']['content'][0]['text'] == 'through TLS', answer.body[:300]
    return 'served over the Unix socket upstream'


def run_check(name, func, *args):
    try:
        detail = func(*args)
        report(True, name, detail or '')
    except Exception as e:  # noqa: BLE001 - every failure is reported
        report(False, name, '%s: %s' % (type(e).__name__, e))


def main():
    demo = os.environ.get('SNODO_DEMO')
    if not demo:
        print('1..0 # SKIP SNODO_DEMO is not set')
        return 0

    # A timeout of the test runner (SIGTERM) or Ctrl-C still stops the
    # proxies, Redis and the instances, with their process groups.
    def interrupted(signum, frame):
        raise SystemExit(1)
    signal.signal(signal.SIGTERM, interrupted)

    workdir = tempfile.mkdtemp(prefix='snodo-deploy-')
    # nginx's workers may run as another user (when started as root).
    os.chmod(workdir, 0o755)
    try:
        return run(demo, workdir)
    finally:
        stop_all()
        if all(results):
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            note('kept the logs in ' + workdir)


def run(demo, workdir):
    help_text = subprocess.run([demo, '--help-all'], capture_output=True, text=True, timeout=20).stdout
    has_redis_option = '--redis=' in help_text
    # Debian puts nginx and haproxy in /usr/sbin, which a user's PATH may lack.
    path = os.environ.get('PATH', os.defpath) + ':/usr/local/sbin:/usr/sbin:/sbin'
    redis_server = shutil.which('redis-server', path=path)
    haproxy = shutil.which('haproxy', path=path)
    nginx = shutil.which('nginx', path=path)
    note('redis-server: %s; haproxy: %s; nginx: %s; snodo-demo --redis: %s' % (
        redis_server or 'missing', haproxy or 'missing', nginx or 'missing',
        'yes' if has_redis_option else 'no (built without hiredis)'))

    run_check('the configurations of introspection/deploy.md are those of data/deploy/', check_page_matches_files)

    secret = os.path.join(workdir, 'secret')
    with open(secret, 'w') as f:
        f.write(os.urandom(32).hex() + '\n')
    os.chmod(secret, 0o600)

    redis_url = None
    if redis_server and has_redis_option:
        redis_port = free_port()
        redis_socket = os.path.join(workdir, 'redis.sock')
        redis_argv = [redis_server, '--port', str(redis_port), '--bind', '127.0.0.1',
                      '--unixsocket', redis_socket, '--unixsocketperm', '700',
                      '--save', '', '--appendonly', 'no', '--dir', workdir, '--daemonize', 'no']
        redis = start('redis', redis_argv, workdir)
        wait_for_port(redis_port, redis, 'redis-server')
        # node-a over TCP, node-b over the Unix socket.
        redis_urls = {'node-a': 'redis://127.0.0.1:%d' % redis_port, 'node-b': 'unix:' + redis_socket}
        redis_url = redis_urls['node-a']

    ports = {}
    demos = {}
    for name in ('node-a', 'node-b'):
        argv = [demo, '--http=0', '--instance-id=' + name, '--request-state-secret-file=' + secret,
                '--allowed-hosts=%s,127.0.0.1' % PUBLIC_HOST]
        if redis_url:
            argv.append('--redis=' + redis_urls[name])
        out = open(os.path.join(workdir, name + '.uri'), 'w+b')
        demos[name] = start(name, argv, workdir, stdout=out)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            out.seek(0)
            uri = out.read().decode()
            if uri.endswith('\n'):
                break
            if demos[name].poll() is not None:
                raise SystemExit('Bail out! %s exited: %s' % (name, log_tail(demos[name])))
            time.sleep(0.05)
        out.seek(0)
        uri = out.read().decode().strip()
        if not uri.startswith('http://127.0.0.1:'):
            print('Bail out! %s printed no URI: %r\n%s' % (name, uri, log_tail(demos[name])))
            return 1
        ports[name] = int(uri.split(':')[2].split('/')[0])
    note('instances: ' + ', '.join('%s on %d' % kv for kv in sorted(ports.items())))

    if redis_url:
        # Each instance says when its bus is connected.
        deadline = time.monotonic() + START_TIMEOUT
        pending = set(demos)
        while pending and time.monotonic() < deadline:
            for name in list(pending):
                with open(demos[name].snodo_log, 'rb') as f:
                    if b'the Redis bus %s is connected' % redis_urls[name].encode() in f.read():
                        pending.discard(name)
            time.sleep(0.05)
        report(not pending, 'both instances connected their bus to redis-server (TCP and Unix socket)',
               '' if not pending else '\n'.join(log_tail(demos[n]) for n in pending))

    # The production shape: one instance on a Unix socket, with bearer
    # tokens, behind nginx with TLS (nginx-mcp-tls.conf).
    production = None
    if nginx is not None:
        production = start_production(demo, workdir)

    proxies = []
    for name, program, make_config in (('haproxy-map', haproxy, haproxy_map_config),
                                       ('haproxy-stick', haproxy, haproxy_stick_config),
                                       ('nginx', nginx, nginx_config)):
        if program is None:
            proxies.append((name, None, '%s is not installed' % os.path.basename(name.split('-')[0])))
            continue
        port = free_port()
        config = os.path.join(workdir, name + '.cfg')
        with open(config, 'w') as f:
            if program == nginx:
                f.write(make_config(port, ports, workdir, (production['port'], production['socket'])))
            else:
                f.write(make_config(port, ports, workdir))
        if program == nginx:
            argv = [nginx, '-p', workdir, '-e', os.path.join(workdir, 'nginx-error.log'), '-c', config,
                    '-g', 'daemon off;']
        else:
            argv = [haproxy, '-db', '-f', config]
        process = start(name, argv, workdir)
        try:
            wait_for_port(port, process, name)
            if program == nginx:
                wait_for_port(production['port'], process, name + ' (TLS)')
            proxies.append((name, port, None))
        except RuntimeError as e:
            report(False, '%s starts' % name, '%s\n%s' % (e, log_tail(process)))
            proxies.append((name, None, 'it did not start'))

    nginx_up = [port for name, port, _ in proxies if name == 'nginx' and port is not None]
    for title, func in (
            ('through nginx with TLS to an instance on a Unix socket: a request without a token is answered '
             '401, and its resource_metadata URL is served (200)', check_production_metadata),
            ('through nginx with TLS to an instance on a Unix socket: a request with a token is served',
             check_production_call)):
        if nginx_up:
            run_check(title, func, production)
        else:
            skip(title, 'nginx is not installed' if nginx is None else 'nginx did not start')

    for proxy, port, why in proxies:
        checks = [
            ('2026-07-28 calls through %s reach both instances', check_modern_balance),
            ('2026-07-28 retries (input_required, then requestState) through %s all succeed', check_mrtr),
            ('2025-11-25 sessions through %s keep to their instance', check_legacy_sessions),
        ]
        if redis_url:
            checks += [
                ('a subscriptions/listen stream through %s gets a change made on the other instance, once',
                 check_modern_stream),
                ('a 2025-11-25 GET stream through %s gets a change made on the other instance, once',
                 check_legacy_stream),
                ('events through %s arrive promptly', check_prompt),
            ]
        for title, func in checks:
            if port is None:
                skip(title % proxy, why)
            else:
                run_check(title % proxy, func, proxy, port, ports)
        if port is not None:
            process = [p for p in processes if p.snodo_name == proxy][0]
            report(process.poll() is None, '%s is still running' % proxy, log_tail(process))

    running = [(proxy, port) for proxy, port, _ in proxies if port is not None]
    if redis_url and running:
        run_check('streams through the proxies and the buses survive %d idle seconds' % IDLE_SECONDS,
                  check_idle_streams, running, demos, ports)
    if redis_url:
        run_check('while Redis is down each instance announces its own changes; then the buses connect again',
                  check_redis_outage, redis, redis_argv, workdir, demos, ports)
    else:
        why = ('redis-server is not installed' if has_redis_option
               else 'snodo-demo was built without hiredis (-Dredis)')
        skip('change notifications between instances through Redis', why)

    if production is not None:
        demos['node-tls'] = production['process']
    for name, process in demos.items():
        report(process.poll() is None, '%s is still running' % name, log_tail(process))
    # Stopped as a service manager would; under the sanitizers a leak or
    # an error shows in the status.
    for name, process in demos.items():
        process.terminate()
        try:
            status = process.wait(START_TIMEOUT)
        except subprocess.TimeoutExpired:
            status = 'still running'
        report(status == 0, '%s exits with status 0 on SIGTERM' % name,
               '' if status == 0 else 'status %s\n%s' % (status, log_tail(process)))
    return 0


if __name__ == '__main__':
    status = 1
    try:
        status = main()
    finally:
        print('1..%d' % len(results))
    sys.exit(status if status else (0 if all(results) else 1))
