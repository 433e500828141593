#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Traces across processes: a SnodoClient in this process calls snodo-demo
# (SNODO_DEMO), whose ask tool calls the client back (an elicitation in the
# initialize era, input_required in 2026-07-28), over stdio and over HTTP.
# Both processes export their spans over OTLP/HTTP (JSON) to a receiver in
# this test, which checks one trace id and the parent/child links, and the
# attributes of each span. Then: tracing off in the server, a traceparent
# passed on unchanged; and an OTLP protocol Snodo does not speak refused
# with a warning, the server still serving.

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

spans = []
spans_lock = threading.Lock()
posts = []


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', '0')))
        posts.append((self.path, self.headers.get('Content-Type')))
        request = json.loads(body)
        with spans_lock:
            for resource in request['resourceSpans']:
                service = next(a['value']['stringValue'] for a in resource['resource']['attributes']
                               if a['key'] == 'service.name')
                for scope in resource['scopeSpans']:
                    for span in scope['spans']:
                        span['service'] = service
                        span['attrs'] = {a['key']: list(a['value'].values())[0] for a in span['attributes']}
                        spans.append(span)
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', '2')
        self.end_headers()
        self.wfile.write(b'{}')

    def log_message(self, *args):
        pass


receiver = ThreadingHTTPServer(('127.0.0.1', 0), Receiver)
threading.Thread(target=receiver.serve_forever, daemon=True).start()
endpoint = 'http://127.0.0.1:%d' % receiver.server_address[1]

# Read when the first span is made, in this process and in the server.
os.environ['OTEL_TRACES_EXPORTER'] = 'otlp'
os.environ['OTEL_EXPORTER_OTLP_ENDPOINT'] = endpoint
os.environ['OTEL_EXPORTER_OTLP_PROTOCOL'] = 'http/json'
os.environ['OTEL_BSP_SCHEDULE_DELAY'] = '100'
os.environ['OTEL_SERVICE_NAME'] = 'trace-client'

import gi  # noqa: E402

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

failures = []
demo = os.environ['SNODO_DEMO']


def check(condition, message):
    print(('ok - ' if condition else 'not ok - ') + message)
    if not condition:
        failures.append(message)


def wait(start):
    box = []
    start(lambda source, result, *args: box.append(result))
    context = GLib.MainContext.default()
    while not box:
        context.iteration(True)
    return box[0]


def wait_for(predicate, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with spans_lock:
            if predicate():
                return True
        GLib.MainContext.default().iteration(False)
        time.sleep(0.05)
    return False


def find(service, name, kind, trace=None):
    return [s for s in spans if s['service'] == service and s['name'] == name and s['kind'] == kind
            and (trace is None or s['traceId'] == trace)]


def connect(client, asked):
    def on_request(client, request):
        asked.append(request.get_params())
        request.return_result({'action': 'accept', 'content': {'confirm': True}})
        return True

    client.set_capabilities({'elicitation': {'form': {}}})
    client.connect('server-request::elicitation/create', on_request)
    check(client.connect_finish(wait(lambda cb: client.connect_async(None, cb))), 'connects')


def close(client):
    check(client.close_finish(wait(lambda cb: client.close_async(None, cb))), 'closes')


def call_ask(client):
    answer = client.call_tool_finish(wait(lambda cb: client.call_tool_async('ask', {'question': 'Sure?'}, None, cb)))
    check(answer['content'][0]['text'] == 'confirmed', 'ask answered: %r' % answer)


def stdio_legacy():
    del spans[:]
    asked = []
    client = Snodo.Client.new_for_argv(['env', 'OTEL_SERVICE_NAME=trace-server', demo])
    client.set_pinned_version(Snodo.protocol_version_from_string('2025-11-25'))
    connect(client, asked)
    call_ask(client)
    close(client)
    Snodo.telemetry_flush(2000)

    # The client's call, the server's handling of it, the server's
    # elicitation back, the client's answer: one trace.
    check(wait_for(lambda: find('trace-server', 'tools/call ask', 2) and find('trace-client', 'elicitation/create', 2)),
          'stdio 2025-11-25: the spans of both processes arrive')
    with spans_lock:
        client_call = find('trace-client', 'tools/call ask', 3)
        server_call = find('trace-server', 'tools/call ask', 2)
        answered = find('trace-client', 'elicitation/create', 2)
    check(len(client_call) == 1 and len(server_call) == 1 and len(answered) == 1,
          'one span each: %d %d %d' % (len(client_call), len(server_call), len(answered)))
    if failures:
        return
    trace = client_call[0]['traceId']
    check('parentSpanId' not in client_call[0], 'the client call starts the trace')
    check(server_call[0]['traceId'] == trace and server_call[0]['parentSpanId'] == client_call[0]['spanId'],
          'the server span is the child of the client span')
    check(answered[0]['traceId'] == trace and answered[0]['parentSpanId'] == server_call[0]['spanId'],
          'the elicitation the client answers is the child of the server span')
    check(asked[0]['_meta']['traceparent'] == '00-%s-%s-01' % (trace, server_call[0]['spanId']),
          'the elicitation request carried the server span as traceparent: %r' % asked[0].get('_meta'))
    attrs = server_call[0]['attrs']
    check(attrs.get('mcp.method.name') == 'tools/call' and attrs.get('gen_ai.tool.name') == 'ask' and
          attrs.get('network.transport') == 'pipe' and attrs.get('mcp.protocol.version') == '2025-11-25' and
          attrs.get('jsonrpc.request.id') is not None,
          'the server span says method, tool, transport, version and id: %r' % attrs)
    check(int(server_call[0]['endTimeUnixNano']) >= int(server_call[0]['startTimeUnixNano']) > 0,
          'the server span has its times')
    check(client_call[0]['attrs'].get('gen_ai.tool.name') == 'ask', 'the client span names the tool')
    check(all(p[0] == '/v1/traces' and p[1] == 'application/json' for p in posts),
          'spans go to /v1/traces as JSON: %r' % posts[:3])
    # Other requests (initialize, tools/list…) have spans of their own.
    check(find('trace-server', 'initialize', 2), 'initialize has a server span')


def stdio_modern():
    del spans[:]
    asked = []
    client = Snodo.Client.new_for_argv(['env', 'OTEL_SERVICE_NAME=trace-server', demo])
    connect(client, asked)
    call_ask(client)
    # Errors: an unknown tool (-32602, refused before a handler runs) and
    # an unknown resource (answered by the handler).
    for start, finish in ((lambda cb: client.call_tool_async('no-such-tool', {}, None, cb), client.call_tool_finish),
                          (lambda cb: client.read_resource_async('demo://nothing', None, cb),
                           client.read_resource_finish)):
        try:
            finish(wait(start))
            check(False, 'an error is an error')
        except GLib.Error:
            pass
    close(client)
    Snodo.telemetry_flush(2000)

    check(wait_for(lambda: len(find('trace-server', 'tools/call ask', 2)) == 2),
          '2026-07-28: two rounds of ask reach the server')
    with spans_lock:
        client_calls = find('trace-client', 'tools/call ask', 3)
        server_calls = find('trace-server', 'tools/call ask', 2)
        refused = [s for s in spans if s['service'] == 'trace-server' and s['attrs'].get('rpc.response.status_code')]
    client_ids = {s['spanId'] for s in client_calls}
    check(len({s['traceId'] for s in client_calls + server_calls}) == 1,
          'input_required rounds are one trace')
    check(all(s['parentSpanId'] in client_ids for s in server_calls),
          'each server round is the child of a client span')
    check(all(s['attrs'].get('mcp.protocol.version') == '2026-07-28' for s in server_calls),
          'the server spans say 2026-07-28')
    codes = sorted((r['name'], r['attrs']['rpc.response.status_code']) for r in refused)
    check([c[0] for c in codes] == ['resources/read', 'tools/call'] and codes[1][1] == '-32602' and
          all(r['status'].get('code') == 2 and r['attrs'].get('error.type') for r in refused),
          'an error answer is a failed span with its code: %r' % codes)


def http():
    del spans[:]
    asked = []
    env = dict(os.environ, OTEL_SERVICE_NAME='trace-http')
    server = subprocess.Popen([demo, '--http=0'], stdout=subprocess.PIPE, env=env, text=True)
    try:
        url = server.stdout.readline().strip()
        client = Snodo.Client.new_for_uri(url)
        client.set_pinned_version(Snodo.protocol_version_from_string('2025-11-25'))
        connect(client, asked)
        call_ask(client)
        close(client)
    finally:
        server.terminate()
        server.wait(10)
    Snodo.telemetry_flush(2000)
    check(wait_for(lambda: find('trace-http', 'tools/call ask', 2) and find('trace-client', 'tools/call ask', 3)),
          'HTTP: the spans of both processes arrive')
    with spans_lock:
        client_call = find('trace-client', 'tools/call ask', 3)
        server_call = find('trace-http', 'tools/call ask', 2)
        answered = find('trace-client', 'elicitation/create', 2)
    if not client_call or not server_call or not answered:
        check(False, 'HTTP spans found')
        return
    check(server_call[0]['traceId'] == client_call[0]['traceId'] and
          server_call[0]['parentSpanId'] == client_call[0]['spanId'],
          'HTTP: the server span is the child of the client span')
    check(answered[0]['parentSpanId'] == server_call[0]['spanId'], 'HTTP: the elicitation is the server span\'s child')
    check(server_call[0]['attrs'].get('network.transport') == 'tcp', 'HTTP: network.transport is tcp')


def server_off():
    """The server exports nothing, but passes the context on unchanged."""
    asked = []
    client = Snodo.Client.new_for_argv(['env', '-u', 'OTEL_TRACES_EXPORTER', demo])
    client.set_pinned_version(Snodo.protocol_version_from_string('2025-11-25'))
    connect(client, asked)
    parent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'
    del spans[:]
    result = client.request_finish(wait(lambda cb: client.request_async(
        'tools/call', {'name': 'ask', 'arguments': {}, '_meta': {'traceparent': parent, 'tracestate': 'x=1'}},
        None, cb)))
    check(result['content'][0]['text'] == 'confirmed', 'a request with its own traceparent')
    close(client)
    Snodo.telemetry_flush(2000)
    check(wait_for(lambda: find('trace-client', 'tools/call ask', 3)), 'the client span arrives')
    with spans_lock:
        client_call = find('trace-client', 'tools/call ask', 3)
    check(client_call[0]['traceId'] == '0af7651916cd43dd8448eb211c80319c' and
          client_call[0]['parentSpanId'] == 'b7ad6b7169203331',
          'the client span is the child of the caller\'s traceparent')
    meta = asked[0].get('_meta', {})
    check(meta.get('traceparent') == '00-0af7651916cd43dd8448eb211c80319c-%s-01' % client_call[0]['spanId'] and
          meta.get('tracestate') == 'x=1',
          'a server that exports nothing passes the context on unchanged: %r' % meta)


def protocol_refused():
    env = dict(os.environ, OTEL_EXPORTER_OTLP_PROTOCOL='grpc')
    exchange = ('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
                '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
                '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
                '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}\n')
    done = subprocess.run([demo], input=exchange, capture_output=True, text=True, env=env, timeout=30)
    check(done.returncode == 0 and '"hi"' in done.stdout, 'a server asked for gRPC still serves')
    check('only http/json' in done.stderr, 'and says on stderr that it exports nothing: %r' % done.stderr[-300:])


stdio_legacy()
stdio_modern()
http()
server_off()
protocol_refused()
receiver.shutdown()
sys.exit(1 if failures else 0)
