#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# SnodoClient from Python through the overrides: snodo-demo (SNODO_DEMO)
# over stdio in 2026-07-28 and 2025-11-25, with dicts for JSON, and its ask
# tool's elicitation answered by a Python handler of server-request.

import os
import sys

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

failures = []


def check(condition, message):
    print(('ok - ' if condition else 'not ok - ') + message)
    if not condition:
        failures.append(message)


def wait(start):
    """Runs start(callback) and iterates the main context until its result."""
    box = []
    start(lambda source, result, *args: box.append(result))
    context = GLib.MainContext.default()
    while not box:
        context.iteration(True)
    return box[0]


def run(pinned):
    client = Snodo.Client.new_for_argv([os.environ['SNODO_DEMO']])
    client.set_pinned_version(pinned)
    client.set_capabilities({'elicitation': {'form': {}}})
    check(client.get_capabilities() == {'elicitation': {'form': {}}}, 'capabilities are a dict')
    asked = []

    def on_request(client, request):
        asked.append((request.get_method(), request.get_params()))
        request.return_result({'action': 'accept', 'content': {'confirm': True}})
        return True

    client.connect('server-request::elicitation/create', on_request)
    result = wait(lambda cb: client.connect_async(None, cb))
    check(client.connect_finish(result), 'connects')
    version = Snodo.protocol_version_to_string(client.get_protocol_version())
    check(client.get_server_info()['name'] == 'snodo-demo', 'server info is a dict (%s)' % version)

    tools = client.list_tools_finish(wait(lambda cb: client.list_tools_async(None, cb)))
    check(any(tool['name'] == 'echo' for tool in tools), 'tools are a list of dicts (%s)' % version)

    echoed = client.call_tool_finish(wait(lambda cb: client.call_tool_async('echo', {'text': 'from Python'}, None, cb)))
    check(echoed['content'][0]['text'] == 'from Python', 'a call with a dict (%s)' % version)

    answer = client.call_tool_finish(wait(lambda cb: client.call_tool_async('ask', {'question': 'Sure?'}, None, cb)))
    check(answer['content'][0]['text'] == 'confirmed', 'elicitation answered from Python (%s): %r' % (version, answer))
    check(len(asked) == 1 and asked[0][0] == 'elicitation/create' and asked[0][1]['message'] == 'Sure?',
          'the handler saw the request as a dict (%s)' % version)

    completion = client.complete_finish(wait(lambda cb: client.complete_async(
        {'type': 'ref/prompt', 'name': 'greet'}, 'name', 'g', None, None, cb)))
    check(completion['values'] == ['Grace'], 'completion is a dict (%s): %r' % (version, completion))

    result = wait(lambda cb: client.close_async(None, cb))
    check(client.close_finish(result), 'closes (%s)' % version)


run(Snodo.ProtocolVersion.UNKNOWN)
run(Snodo.protocol_version_from_string('2025-11-25'))
sys.exit(1 if failures else 0)
