#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-doc-snippets.py SRCDIR BUILDDIR CC SNODO-DEMO
#
# The examples of the documentation, as a reader finds them: the fenced
# blocks of the doc comments in snodo/ (the class and method pages of the
# API reference), of introspection/*.md and of README.md.
#
# - Every Python and JavaScript example is a whole program, run as it is
#   shown: a server is sent a short exchange on standard input (or a
#   request over HTTP, when it prints its URI) and must give the expected
#   answer and end by itself at the end of its input; a client runs with
#   snodo-demo on its PATH and must end by itself, having printed what it
#   promises.
# - Every C example compiles without a warning against the uninstalled
#   library: a whole program (it has a main ()) as it is, and a client among
#   them runs as the Python and JavaScript ones do; a fragment with the
#   declarations of what it uses from the program around it (C_CONTEXT).
# - No example of any language shows an error box: gi-docgen highlights
#   fenced blocks with Pygments, which marks what its lexer cannot read
#   (such as a line of `…` in C) as an error.
# - Each main class's page has a Python and a JavaScript example, and the
#   namespace's description says it is a client as well as a server.

import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

from pygments.lexers import get_lexer_by_name
from pygments.token import Error

# The classes whose pages show their use in Python and JavaScript.
CLASS_PAGES = ['SnodoServer', 'SnodoDescription', 'SnodoTool', 'SnodoResource', 'SnodoResourceTemplate',
               'SnodoPrompt', 'SnodoInvocation', 'SnodoStdioTransport', 'SnodoHttpTransport',
               'SnodoHttpAuthorization', 'SnodoClient', 'SnodoServerRequest']


def call(method, params):
    return {'jsonrpc': '2.0', 'id': 2, 'method': method, 'params': params}


def tool(name, arguments=None, **params):
    return call('tools/call', dict(params, name=name, arguments=arguments or {}))


# How to run an example: the first whose key it holds. A server on stdio
# gets (request, text its answer holds); HTTP, the headers of its request;
# a client, the text it prints.
RUNS = [
    ("'server-request::elicitation/create'", 'client', 'confirmed'),
    ('Snodo.Client.new_for_argv', 'client', 'done 3 steps'),
    ('HttpAuthorization', 'http', {'Authorization': 'Bearer example-token'}),
    ('HttpTransport', 'http', {}),
    ("'slow-echo'", 'stdio', (tool('slow-echo', {'text': 'later'}, _meta={'progressToken': 7}), '"later"')),
    ("'stats'", 'stdio', (tool('stats', {'values': [1, 2, 6]}), '"mean":3')),
    ("'chart'", 'stdio', (tool('chart', {'values': [1]}), '"drawn"')),
    ("'clock'", 'stdio', (call('resources/read', {'uri': 'ui://my-app/clock'}), 'The time')),
    ("'ask'", 'stdio', (tool('ask', {}), 'did not declare the capability')),
    ("'delete_everything'", 'stdio', (tool('delete_everything'), '-32001')),
    ("'flaky_weather'", 'stdio', (tool('flaky_weather'), '"sunny"')),
    ('brand(', 'stdio', (call('tools/list', {}), '"title":"Notes: today"')),
    ('def add(', 'stdio', (tool('add', {'a': 2, 'b': 40}), '"42')),
    ("'add'", 'stdio', (tool('add', {'a': 2, 'b': 40}), '"42"')),
    ("'app://readme'", 'stdio', (call('resources/read', {'uri': 'app://readme'}), '"# My app"')),
    ("'app://notes/{day}'", 'stdio', (call('resources/read', {'uri': 'app://notes/monday'}),
                                      '"Notes of monday"')),
    ('def review(', 'stdio', (call('prompts/get', {'name': 'review', 'arguments': {'change': 'v2'}}),
                              '"Please review v2"')),
    ("'review'", 'stdio', (call('prompts/get', {'name': 'review', 'arguments': {'change': 'v2'}}),
                           '"Please review v2"')),
    ('def greet(', 'stdio', (tool('greet', {'name': 'Ada'}), '"Hello, Ada!"')),
    ("name: 'greet'", 'stdio', (tool('greet', {'name': 'Ada'}), '"Hello, Ada!"')),
    ('def shout(', 'stdio', (tool('shout', {'text': 'hello'}), '"HELLO"')),
    ('def echo(', 'stdio', (tool('echo', {'text': 'hello'}), '"text":"hello"')),
    ("'shout'", 'stdio', (tool('shout', {'text': 'hello'}), '"HELLO"')),
    ("'echo'", 'stdio', (tool('echo', {'text': 'hello'}), '"text":"hello"')),
    ('Snodo.Skill.new', 'stdio', (call('skills/list', {}), '"uri":"skill://greeting/SKILL.md"')),
    ('StdioTransport.new_for_stdio(server)', 'stdio', (call('ping', {}), '"result":{}')),
]

INITIALIZE = [
    {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
     'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                'clientInfo': {'name': 'doc-test', 'version': '1'}}},
    {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
]

# What a program that went wrong leaves on standard error.
TROUBLE = re.compile(r'Traceback|WARNING|CRITICAL|ERROR|Error:')

failures = 0
reports = 0


def report(ok, message):
    global failures, reports
    reports += 1
    if not ok:
        failures += 1
    print('%s - %s' % ('ok' if ok else 'not ok', message.replace('\n', ' ')))


def examples(srcdir):
    """Yields (where, page, language, text) for each fenced block."""
    paths = []
    for folder, _, names in os.walk(os.path.join(srcdir, 'snodo')):
        paths += [os.path.join(folder, name) for name in names if name.endswith(('.c', '.h'))]
    for path in sorted(paths):
        with open(path, encoding='utf-8') as f:
            source = f.read()
        for comment in re.finditer(r'/\*\*\n(.*?)\*/', source, re.DOTALL):
            text = '\n'.join(re.sub(r'^\s*\*( |$)', '', line) for line in comment.group(1).split('\n'))
            head = re.match(r'\s*(Snodo[A-Za-z]+):\n', text)
            page = head.group(1) if head else None
            line = source.count('\n', 0, comment.start()) + 2
            for block in re.finditer(r'```(\w+)\n(.*?)```', text, re.DOTALL):
                yield ('%s:%d' % (os.path.relpath(path, srcdir), line + text.count('\n', 0, block.start())),
                       page, block.group(1), block.group(2))
    docs = [os.path.join(srcdir, 'introspection', name)
            for name in sorted(os.listdir(os.path.join(srcdir, 'introspection'))) if name.endswith('.md')]
    for path in docs + [os.path.join(srcdir, 'README.md')]:
        with open(path, encoding='utf-8') as f:
            text = f.read()
        for block in re.finditer(r'```(\w+)\n(.*?)```', text, re.DOTALL):
            line = text.count('\n', 0, block.start()) + 1
            yield ('%s:%d' % (os.path.relpath(path, srcdir), line), None, block.group(1), block.group(2))


def command(language, path):
    if language == 'python':
        return ['/usr/bin/python3', path]
    if language == 'js':
        return ['gjs', '-m', path]
    return [path]


def run_stdio(where, language, path, request, expected, env):
    lines = ''.join(json.dumps(m) + '\n' for m in INITIALIZE + [request])
    try:
        result = subprocess.run(command(language, path), input=lines, capture_output=True,
                                text=True, timeout=30, env=env)
    except subprocess.TimeoutExpired:
        report(False, '%s: did not end at the end of its input' % where)
        return
    answer = next((line for line in result.stdout.splitlines() if '"id":2' in line), '')
    report(result.returncode == 0 and expected in answer and not TROUBLE.search(result.stderr),
           '%s: %s (status %d) %s' % (where, answer, result.returncode, result.stderr.strip()[-500:]))


def run_http(where, language, path, headers, env):
    process = subprocess.Popen(command(language, path), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=env)
    try:
        uri = process.stdout.readline().strip()
        body = json.dumps(INITIALIZE[0]).encode()
        request = urllib.request.Request(uri, data=body, method='POST', headers={
            'Content-Type': 'application/json',
            'Accept': 'application/json, text/event-stream', **headers})
        with urllib.request.urlopen(request, timeout=20) as response:
            answer = response.read().decode()
        report('"serverInfo"' in answer, '%s: %s answered %s' % (where, uri, answer))
    except (OSError, ValueError) as e:
        report(False, '%s: %s (%s)' % (where, e, process.stderr.read() if process.poll() is not None else ''))
    finally:
        process.terminate()
        process.wait(timeout=10)


def run_client(where, language, path, expected, env):
    try:
        result = subprocess.run(command(language, path), stdin=subprocess.DEVNULL, capture_output=True,
                                text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        report(False, '%s: did not end by itself' % where)
        return
    report(result.returncode == 0 and expected in result.stdout and not TROUBLE.search(result.stderr),
           '%s: printed %r (status %d) %s' % (where, result.stdout.strip()[-300:], result.returncode,
                                               result.stderr.strip()[-500:]))


def run(where, language, path, snippet, env):
    for key, kind, data in RUNS:
        if key in snippet:
            if kind == 'stdio':
                run_stdio(where, language, path, data[0], data[1], env)
            elif kind == 'http':
                run_http(where, language, path, data, env)
            else:
                run_client(where, language, path, data, env)
            return
    report(False, '%s: a %s example this test does not know how to run' % (where, language))


def lexes(where, language, snippet):
    """No error box: Pygments reads the whole block."""
    try:
        lexer = get_lexer_by_name(language)
    except Exception:  # noqa: BLE001 - a language Pygments does not know is shown plain
        return
    errors = [value for token, value in lexer.get_tokens(snippet) if token in Error]
    if errors:
        report(False, '%s: the %s block shows error boxes on %r' % (where, language, errors))


# What the C fragments use without defining: the objects of the program
# around them and the callbacks they name, so that each compiles as it is.
C_CONTEXT = '''#include <snodo/snodo.h>
#if SNODO_HAS_HTTP_TRANSPORT
# include <libsoup/soup.h>
extern SnodoHttpTransport *transport;
extern SoupServer *soup_server;
#endif
extern SnodoServer *server;
extern SnodoTool *tool;
extern SnodoClient *client;
extern JsonObject *arguments;
extern GMainLoop *loop;
extern GError *error;
extern GBytes *secret;
extern const char *const *hosts;
void echo_cb (SnodoInvocation *invocation, gpointer user_data);
void greet_cb (SnodoInvocation *invocation, gpointer user_data);
void review_cb (SnodoInvocation *invocation, gpointer user_data);
void read_notes_cb (SnodoInvocation *invocation, gpointer user_data);
void clock_cb (SnodoInvocation *invocation, gpointer user_data);
void long_job_cb (SnodoInvocation *invocation, gpointer user_data);
void connected_cb (GObject *source, GAsyncResult *result, gpointer user_data);
void called_cb (GObject *source, GAsyncResult *result, gpointer user_data);
void closed_cb (GObject *source, GAsyncResult *result, gpointer user_data);
/* The placeholders of the transport sketched on SnodoExecutor's page. */
typedef struct { SnodoExecutor *executor; } Transport;
typedef struct { const char *id; gsize size; char *reply; } Request;
char *compute_reply (Request *request, GCancellable *cancellable);
void send_reply (Request *request);
void send_error (Request *request, const GError *error);
void request_free (Request *request);
'''


def c_fragment(snippet):
    """A translation unit of a C fragment: its function definitions as they
    are, its other lines in a function of their own."""
    functions, statements = [], []
    lines = snippet.split('\n')
    i = 0
    while i < len(lines):
        line = lines[i]
        if (re.match(r'^(static )?[A-Za-z_][\w ]*\**$', line) and i + 1 < len(lines) and
                re.match(r'^\w+ \(', lines[i + 1])):
            end = lines.index('}', i)
            functions += lines[i:end + 1] + ['']
            i = end + 1
            continue
        statements.append(line)
        i += 1
    # Outside a real program a blocking SnodoRedisBus may be missing.
    body = '\n'.join(statements)
    if 'snodo_redis_bus_new' in body:
        body = '#if SNODO_HAS_REDIS_BUS\n' + body.replace('bus = ', 'SnodoRedisBus *bus = ', 1) + '\n#endif\n'
    defined = '\n' + '\n'.join(functions)
    context = ''.join(line + '\n' for line in C_CONTEXT.split('\n')
                      if not (re.match(r'^void (\w+) \(', line) and
                              '\n%s (' % re.match(r'^void (\w+) \(', line).group(1) in defined))
    return context + '\n'.join(functions) + '\nvoid example (void);\nvoid\nexample (void)\n{\n' + body + '\n}\n'


def compile_c_fragment(where, snippet, tmp, cc, flags):
    path = os.path.join(tmp, 'fragment.c')
    with open(path, 'w', encoding='utf-8') as f:
        f.write(c_fragment(snippet))
    # A fragment's helpers are used by code it does not show.
    result = subprocess.run([cc, '-std=gnu11', '-Wall', '-Wextra', '-Wno-unused-parameter',
                             '-Wno-unused-function', '-Werror', '-c', path, '-o', path + '.o'] + flags, capture_output=True, text=True)
    report(result.returncode == 0, '%s: the C fragment compiles without warnings %s' % (where, result.stderr))


def compile_c(where, path, tmp, cc, flags):
    program = path[:-2]
    result = subprocess.run([cc, '-std=gnu11', '-Wall', '-Wextra', '-Wno-unused-parameter', '-Werror',
                             path, '-o', program] + flags, capture_output=True, text=True)
    report(result.returncode == 0, '%s: the C program compiles without warnings %s' % (where, result.stderr))
    return program if result.returncode == 0 else None


def main():
    srcdir, builddir, cc, demo = sys.argv[1:5]
    env = dict(os.environ, PATH=os.path.dirname(os.path.abspath(demo)) + os.pathsep + os.environ['PATH'],
               LD_LIBRARY_PATH=os.path.join(builddir, 'snodo') + os.pathsep + os.environ.get('LD_LIBRARY_PATH', ''))
    pkg_env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(builddir, 'meson-uninstalled'))
    flags = subprocess.run(['pkg-config', '--cflags', '--libs', 'snodo-1'], env=pkg_env,
                           capture_output=True, text=True, check=True).stdout.split()
    pages = set()
    with tempfile.TemporaryDirectory() as tmp:
        for n, (where, page, language, snippet) in enumerate(examples(srcdir)):
            lexes(where, language, snippet)
            if language == 'c' and re.search(r'^main \(', snippet, re.MULTILINE):
                path = os.path.join(tmp, 'example%d.c' % n)
                with open(path, 'w', encoding='utf-8') as f:
                    f.write(snippet)
                program = compile_c(where, path, tmp, cc, flags)
                if program is not None and 'snodo_client_new' in snippet:
                    run(where, 'c', program, snippet, env)
                continue
            if language == 'c':
                compile_c_fragment(where, snippet, tmp, cc, flags)
                continue
            if language not in ('python', 'js'):
                continue
            if page is not None:
                pages.add((page, language))
            whole = 'import gi' in snippet if language == 'python' else "from 'gi://" in snippet
            if not whole:
                report(False, '%s: the %s example is not a whole program (it imports nothing)' % (where, language))
                continue
            path = os.path.join(tmp, 'example%d.%s' % (n, 'py' if language == 'python' else 'js'))
            with open(path, 'w', encoding='utf-8') as f:
                f.write(snippet)
            run(where, language, path, snippet, env)
    # The namespace's blurb on the reference's front page and in
    # pkg-config: the library is a server and a client.
    for path, pattern in (('introspection/Snodo.toml.in', r'^description = "(.*)"'),
                          ('snodo/meson.build', r"^\s*description: '(.*)'")):
        with open(os.path.join(srcdir, path), encoding='utf-8') as f:
            blurb = re.search(pattern, f.read(), re.MULTILINE).group(1)
        report('server' in blurb and 'client' in blurb, '%s describes a server and client library: %s' % (path, blurb))
    for page in CLASS_PAGES:
        for language in ('python', 'js'):
            report((page, language) in pages, 'the page of %s has a %s example' % (page, language))
    print('1..%d' % reports)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
