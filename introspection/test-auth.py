#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# The authorization hook from Python, through the typelib: a server on
# HTTP whose validate-token handler answers later (from a main-loop timer),
# and a tool handler that reads the principal and scopes of its
# invocation. A client in a thread sends real HTTP requests.

import json
import sys
import threading
import urllib.error
import urllib.request

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

ENVELOPE = {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {}}
TOKENS = {'tok-ada': ('ada', ['mcp:read', 'mcp:tools']), 'tok-bob': ('bob', ['mcp:read'])}


def fail(message):
    print('not ok - ' + message)
    sys.exit(1)


def post(uri, token, tool):
    body = {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
            'params': {'name': tool, 'arguments': {}, '_meta': ENVELOPE}}
    headers = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream',
               'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': tool}
    if token is not None:
        headers['Authorization'] = 'Bearer ' + token
    request = urllib.request.Request(uri, data=json.dumps(body).encode(), method='POST', headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def main():
    server = Snodo.Server.new('py-auth', '1.0')
    tool = Snodo.Tool.new('whoami', None)
    seen = []

    def whoami(invocation):
        seen.append((invocation.get_principal(), list(invocation.get_scopes()),
                     invocation.has_scope('mcp:tools')))
        invocation.return_text(invocation.get_principal())

    server.add_tool(tool, whoami)

    authorization = Snodo.HttpAuthorization.new()
    authorization.set_authorization_servers(['https://auth.example.com'])
    authorization.require_tool_scopes('whoami', ['mcp:tools'])
    if authorization.get_tool_scopes('whoami') != ['mcp:tools']:
        fail('get_tool_scopes: %r' % authorization.get_tool_scopes('whoami'))
    checked = []

    def validate(authorization, request):
        token = request.get_token()
        checked.append(token)
        if not request.get_resource().endswith('/mcp'):
            fail('get_resource: ' + request.get_resource())

        def later():
            entry = TOKENS.get(token)
            if entry is None:
                request.refuse('unknown token')
            else:
                request.accept(*entry)
            return GLib.SOURCE_REMOVE

        GLib.timeout_add(30, later)
        return True

    authorization.connect('validate-token', validate)
    transport = Snodo.HttpTransport.new(server)
    transport.set_authorization(authorization)
    if transport.get_authorization() is not authorization:
        fail('get_authorization')
    transport.listen_local(0)
    uri = transport.dup_uri()

    loop = GLib.MainLoop()
    results = {}

    def client():
        try:
            results['none'] = post(uri, None, 'whoami')
            results['unknown'] = post(uri, 'tok-eve', 'whoami')
            results['bob'] = post(uri, 'tok-bob', 'whoami')
            results['ada'] = post(uri, 'tok-ada', 'whoami')
        finally:
            GLib.idle_add(loop.quit)

    thread = threading.Thread(target=client)
    thread.start()
    GLib.timeout_add_seconds(60, loop.quit)
    loop.run()
    thread.join()

    status, headers, _ = results['none']
    if status != 401 or 'resource_metadata=' not in headers['WWW-Authenticate']:
        fail('no token: %s %s' % (status, headers['WWW-Authenticate']))
    status, headers, _ = results['unknown']
    if status != 401 or 'error="invalid_token"' not in headers['WWW-Authenticate'] \
            or 'unknown token' not in headers['WWW-Authenticate']:
        fail('unknown token: %s %s' % (status, headers['WWW-Authenticate']))
    status, headers, _ = results['bob']
    if status != 403 or 'error="insufficient_scope"' not in headers['WWW-Authenticate'] \
            or 'scope="mcp:tools"' not in headers['WWW-Authenticate']:
        fail('bob: %s %s' % (status, headers['WWW-Authenticate']))
    status, _, body = results['ada']
    if status != 200 or '"ada"' not in body:
        fail('ada: %s %s' % (status, body))
    if seen != [('ada', ['mcp:read', 'mcp:tools'], True)]:
        fail('the handler saw %r' % seen)
    if checked != ['tok-eve', 'tok-bob', 'tok-ada']:
        fail('checked %d tokens' % len(checked))
    print('ok - the validate-token hook from Python')


if __name__ == '__main__':
    main()
