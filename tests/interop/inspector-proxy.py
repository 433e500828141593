#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   inspector-proxy.py NODE INSPECTOR SNODO SNODO-DEMO [SERVER-EVERYTHING]
#
# The MCP Inspector's command line (`mcp-inspector --cli`) against
# `snodo proxy URL` (URL: a `snodo-demo --http 0` this script runs) and
# `snodo proxy -- snodo-demo` (also one that speaks only 2025-11-25, or
# only 2026-07-28, which the proxy maps), in the initialize era and in
# 2026-07-28:
# the tools listed, a call answered, the readme read, the prompt answered,
# each in the era asked for (a 2026-07-28 result names the server in its
# _meta; an initialize-era one does not). And the other way round: the
# Inspector at the URL of `snodo proxy --http 127.0.0.1:0 -- snodo-demo`
# (also of one era only). With SERVER-EVERYTHING (the npm server's
# dist/index.js), the same server, which speaks the initialize era only,
# behind the proxy each way: listed and called in both eras. Output is
# TAP.

import json
import os
import subprocess
import sys
import tempfile

node, inspector, snodo, demo = sys.argv[1:5]
everything = sys.argv[5] if len(sys.argv) > 5 else None
count = 0
failed = 0


def check(name, ok, detail=''):
    global count, failed
    count += 1
    if not ok:
        failed += 1
    print('%s %d - %s' % ('ok' if ok else 'not ok', count, name), flush=True)
    if not ok and detail:
        print('# ' + str(detail).replace('\n', '\n# ')[:3000], flush=True)


def inspect(target, era, *args):
    """Runs the Inspector's CLI once on `snodo proxy TARGET`; returns (its
    JSON answer, stderr)."""
    command = [node, inspector, '--cli', '--protocol-era', era, '--format', 'json', '-q']
    if target[0] == '--server-url':
        command += [*target, *args]
    else:
        command += [*args, '--', snodo, 'proxy', *target]
    with tempfile.TemporaryDirectory() as catalog:
        result = subprocess.run(command, capture_output=True, text=True, timeout=90,
                                env=dict(os.environ, MCP_CATALOG_PATH=os.path.join(catalog, 'mcp.json')))
    try:
        return json.loads(result.stdout.splitlines()[0]), result.stderr
    except (IndexError, ValueError):
        return {'unreadable': result.stdout}, result.stderr


def in_era(result, era, server='snodo-demo'):
    """Whether @result is of @era: a 2026-07-28 result names the server in
    its _meta (the Inspector drops resultType), an initialize-era one not."""
    named = result.get('_meta', {}).get('io.modelcontextprotocol/serverInfo', {}).get('name') == server
    return named if era == 'modern' else not named


def run_everything_checks(where, target):
    for era in ('legacy', 'modern'):
        label = '%s, %s era' % (where, era)
        answer, err = inspect(target, era, '--method', 'tools/list')
        names = [t.get('name') for t in answer.get('result', {}).get('tools', [])]
        check('%s: the tools listed' % label, 'echo' in names and len(names) > 3, (answer, err))
        answer, err = inspect(target, era, '--method', 'tools/call', '--tool-name', 'echo',
                              '--tool-args-json', json.dumps({'message': 'h\u00e9llo'}))
        result = answer.get('result', {})
        check('%s: a call answered' % label,
              'h\u00e9llo' in result.get('content', [{}])[0].get('text', '') and
              in_era(result, era, 'mcp-servers/everything'), (answer, err))


def run_checks(where, target):
    for era in ('legacy', 'modern'):
        label = '%s, %s era' % (where, era)
        answer, err = inspect(target, era, '--method', 'tools/list')
        result = answer.get('result', {})
        names = [t.get('name') for t in result.get('tools', [])]
        check('%s: the tools listed' % label, 'echo' in names and 'ask' in names,
              (answer, err))

        answer, err = inspect(target, era, '--method', 'tools/call', '--tool-name', 'echo',
                              '--tool-args-json', json.dumps({'text': 'h\u00e9llo'}))
        result = answer.get('result', {})
        check('%s: a call answered' % label,
              result.get('content', [{}])[0].get('text') == 'h\u00e9llo' and in_era(result, era), (answer, err))

        answer, err = inspect(target, era, '--method', 'resources/read', '--uri', 'demo://readme')
        result = answer.get('result', {})
        contents = result.get('contents', [{}])
        check('%s: the readme read' % label,
              contents[0].get('uri') == 'demo://readme' and contents[0].get('mimeType') == 'text/markdown' and
              in_era(result, era), (answer, err))

        answer, err = inspect(target, era, '--method', 'prompts/get', '--prompt-name', 'greet',
                              '--prompt-args', 'name=Ada')
        result = answer.get('result', {})
        messages = result.get('messages', [])
        check('%s: the prompt answered' % label,
              len(messages) == 1 and 'Ada' in json.dumps(messages) and in_era(result, era), (answer, err))


print('TAP version 13', flush=True)
run_checks('to snodo-demo as a child', ['--', demo])
# Between eras: each era against a server of the other only.
run_checks('to a snodo-demo of 2025-11-25 only', ['--', demo, '--protocol-versions', '2025-11-25'])
run_checks('to a snodo-demo of 2026-07-28 only', ['--', demo, '--protocol-versions', '2026-07-28'])
server = subprocess.Popen([demo, '--http', '0'], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
try:
    uri = server.stdout.readline().strip()
    check('snodo-demo --http 0 prints its URL', uri.startswith('http://'), uri)
    if uri.startswith('http'):
        run_checks('to snodo-demo over HTTP', [uri])
finally:
    server.kill()
    server.wait()
for where, only in (('', []), (' of 2025-11-25 only', ['--protocol-versions', '2025-11-25']),
                    (' of 2026-07-28 only', ['--protocol-versions', '2026-07-28'])):
    server = subprocess.Popen([snodo, 'proxy', '--http', '127.0.0.1:0', '--', demo, *only],
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        uri = server.stdout.readline().strip()
        check('snodo proxy --http 127.0.0.1:0 prints its URL', uri.startswith('http://'), uri)
        if uri.startswith('http'):
            run_checks('at snodo proxy --http, to snodo-demo%s' % where, ['--server-url', uri])
    finally:
        server.kill()
        server.wait()

if everything:
    run_everything_checks('to server-everything as a child', ['--', node, everything])
    server = subprocess.Popen([snodo, 'proxy', '--http', '127.0.0.1:0', '--', node, everything],
                              stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True)
    try:
        uri = server.stdout.readline().strip()
        check('snodo proxy --http 127.0.0.1:0 -- server-everything prints its URL', uri.startswith('http://'), uri)
        if uri.startswith('http'):
            run_everything_checks('at snodo proxy --http, to server-everything', ['--server-url', uri])
    finally:
        server.terminate()
        server.wait()

print('1..%d' % count)
sys.exit(1 if failed else 0)
