#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""A tiny MCP server of the initialize era on stdio, for test-cli-elicit.py:
its one tool, form, asks the client for a form with a string, an integer,
a number, an enum, a titled choice, a boolean and an optional field with
a default, and answers with the client's whole answer as its text. It
speaks only 2025-06-18 (a server/discover probe is refused)."""

import json
import sys

SCHEMA = {
    'type': 'object',
    'properties': {
        'name': {'type': 'string', 'title': 'Name', 'description': 'Who you are'},
        'age': {'type': 'integer'},
        'height': {'type': 'number'},
        'colour': {'type': 'string', 'enum': ['red', 'green', 'blue']},
        'size': {'type': 'string', 'oneOf': [{'const': 's', 'title': 'Small'}, {'const': 'l', 'title': 'Large'}]},
        'agree': {'type': 'boolean'},
        'note': {'type': 'string', 'default': 'none'},
    },
    'required': ['name', 'age', 'agree'],
}


def send(message):
    sys.stdout.write(json.dumps(message) + '\n')
    sys.stdout.flush()


pending_call = None
for line in sys.stdin:
    message = json.loads(line)
    method = message.get('method')
    if method == 'initialize':
        send({'jsonrpc': '2.0', 'id': message['id'],
              'result': {'protocolVersion': '2025-06-18', 'capabilities': {'tools': {}},
                         'serverInfo': {'name': 'elicit-server', 'version': '1'}}})
    elif method == 'tools/call':
        pending_call = message['id']
        send({'jsonrpc': '2.0', 'id': 'ask-1', 'method': 'elicitation/create',
              'params': {'message': 'Tell me about you', 'requestedSchema': SCHEMA}})
    elif method is None and message.get('id') == 'ask-1':
        send({'jsonrpc': '2.0', 'id': pending_call,
              'result': {'content': [{'type': 'text', 'text': json.dumps(message.get('result'), sort_keys=True)}]}})
    elif method is not None and 'id' in message:
        send({'jsonrpc': '2.0', 'id': message['id'], 'error': {'code': -32601, 'message': 'Method not found'}})
