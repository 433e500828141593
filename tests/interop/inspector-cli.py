#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   inspector-cli.py NODE INSPECTOR COMMAND [ARG...]
#
# The MCP Inspector's command line (inspector 2, `mcp-inspector --cli`)
# against a server written as plain functions (examples/notes.py or
# notes.js), over stdio and over Streamable HTTP (COMMAND ARG... --http 0,
# whose first line of output is its URI), in the initialize era and in
# 2026-07-28: the tools listed with the schemas derived from the code, a
# call answered with its structured result, a ToolError seen as isError, the
# resource template listed and read, and the prompt answered. The
# environment must let the server find the typelib and the overrides; it is
# handed to the server with -e, as the Inspector passes on only a few
# variables of its own. Output is TAP.

import json
import os
import subprocess
import sys
import tempfile

node, inspector, *server = sys.argv[1:]
ENV_NAMES = ('GI_TYPELIB_PATH', 'LD_LIBRARY_PATH', 'PYTHONPATH', 'GJS_PATH')
count = 0
failed = 0


def check(name, ok, detail=''):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print('%s %d - %s' % ('ok' if ok else 'not ok', count, name))
    if not ok and detail:
        print('# ' + str(detail).replace('\n', '\n# ')[:3000])


def inspect(target, era, *args):
    """Runs the Inspector's CLI once; returns (its JSON answer, stderr)."""
    env_args = []
    if target is None:
        for name in ENV_NAMES:
            if name in os.environ:
                env_args += ['-e', '%s=%s' % (name, os.environ[name])]
    command = [node, inspector, '--cli', '--protocol-era', era, '--format', 'json', '-q', *env_args]
    # The target before the options whose values are lists, after '--'
    # when it is a command.
    command += [*args, '--', *server] if target is None else [target, *args]
    with tempfile.TemporaryDirectory() as catalog:
        result = subprocess.run(command, capture_output=True, text=True, timeout=90,
                                env=dict(os.environ, MCP_CATALOG_PATH=os.path.join(catalog, 'mcp.json')))
    try:
        return json.loads(result.stdout.splitlines()[0]), result.stderr
    except (IndexError, ValueError):
        return {'unreadable': result.stdout}, result.stderr


def run_checks(where, target):
    for era in ('legacy', 'modern'):
        label = '%s, %s era' % (where, era)
        answer, err = inspect(target, era, '--method', 'tools/list')
        tools = {t['name']: t for t in answer.get('result', {}).get('tools', [])}
        add = tools.get('add_note', {})
        schema = add.get('inputSchema', {})
        check('%s: tools listed with the derived input schema' % label,
              set(schema.get('properties', {})) == {'title', 'text'} and
              sorted(schema.get('required', [])) == ['text', 'title'] and
              schema['properties']['title'] == {'type': 'string'}, (answer, err))
        check('%s: the output schema from the result type' % label,
              add.get('outputSchema', {}).get('properties', {}).get('words') == {'type': 'integer'},
              answer)

        answer, err = inspect(target, era, '--method', 'tools/call', '--tool-name', 'add_note',
                              '--tool-args-json', json.dumps({'title': 'Plan', 'text': 'one two three'}))
        result = answer.get('result', {})
        check('%s: a call answered with its structured result' % label,
              result.get('structuredContent', {}).get('words') == 3 and not result.get('isError'),
              (answer, err))

        answer, err = inspect(target, era, '--method', 'tools/call', '--tool-name', 'get_note',
                              '--tool-args-json', json.dumps({'id': 999}))
        result = answer.get('result', {})
        check('%s: a ToolError is seen as isError with its message' % label,
              result.get('isError') is True and
              result.get('content', [{}])[0].get('text') == 'There is no note 999', (answer, err))

        answer, err = inspect(target, era, '--method', 'resources/templates/list')
        templates = answer.get('result', {}).get('resourceTemplates', [])
        check('%s: the resource template listed' % label,
              [t.get('uriTemplate') for t in templates] == ['notes://{id}'], (answer, err))

        # Over stdio each run is a new server, with no note yet: no
        # note 1 is an error that says so. Over HTTP, the note added above.
        answer, err = inspect(target, era, '--method', 'resources/read', '--uri', 'notes://1')
        contents = answer.get('result', {}).get('contents', [{}])
        if target is None:
            check('%s: the template read, with no such note' % label,
                  'result' not in answer and 'Resource not found: notes://1' in err, (answer, err))
        else:
            check('%s: the template read' % label,
                  contents[0].get('uri') == 'notes://1' and contents[0].get('text') == 'one two three',
                  (answer, err))

        answer, err = inspect(target, era, '--method', 'prompts/get', '--prompt-name', 'summarize',
                              '--prompt-args', 'id=1')
        messages = answer.get('result', {}).get('messages', [])
        check('%s: the prompt answered' % label,
              len(messages) == 1 and messages[0].get('role') == 'user', (answer, err))


print('TAP version 13')
run_checks('stdio', None)

process = subprocess.Popen(server + ['--http', '0'], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, text=True)
try:
    uri = process.stdout.readline().strip()
    check('HTTP: the server prints its URI', uri.startswith('http://127.0.0.1:') and uri.endswith('/mcp'), uri)
    if uri.startswith('http'):
        run_checks('HTTP', uri)
finally:
    process.terminate()
    try:
        status = process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        status = process.wait()
check('HTTP: the server ends with status 0 on SIGTERM', status == 0, process.stderr.read()[-2000:])

print('1..%d' % count)
sys.exit(1 if failed else 0)
