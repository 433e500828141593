#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-install.py SRCDIR BUILDDIR PREFIX LIBDIR CC PYTHON-GI GJS
#
# `meson install` gives a working install: the build is installed into a
# scratch DESTDIR, and from there, with only the environment that the
# README's install paragraph tells a user to set (its `export NAME=VALUE`
# lines, their paths taken under the DESTDIR), the installed snodo-demo
# answers the README's exchange, examples/hello.c built with the installed
# pkg-config file serves, and examples/hello.py and hello.js serve through
# the installed typelib and overrides.
#
# A staged install is not the system: the few places the system searches
# by itself, and that an install into the prefix fills, are given under
# the DESTDIR as well, each standing for one of them and nothing else:
# LD_LIBRARY_PATH for the loader's cache (which the install's ldconfig
# updates), PYTHONPATH for the prefix's dist-packages that Debian's Python
# searches, XDG_DATA_DIRS for GJS's $datadir/gjs-1.0, and
# PKG_CONFIG_PATH for pkg-config's own
# directories (a copy of snodo-1.pc whose prefix is the DESTDIR's). Output
# is TAP.

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

failures = 0
count = 0


def report(ok, message, detail=''):
    global failures, count
    count += 1
    if ok:
        print('ok %d - %s' % (count, message))
    else:
        failures += 1
        print('not ok %d - %s' % (count, message))
        for line in detail.splitlines():
            print('# ' + line)


def readme_environment(srcdir):
    """The NAME=VALUE of the `export` lines of the README's install
    paragraph (the section on building and installing)."""
    with open(os.path.join(srcdir, 'README.md'), encoding='utf-8') as f:
        text = f.read()
    start = text.index('## Building, installing')
    end = text.find('\n## ', start + 1)
    section = text[start:end if end >= 0 else None]
    variables = {}
    for block in re.findall(r'```sh\n(.*?)```', section, re.DOTALL):
        for line in block.splitlines():
            words = shlex.split(line)
            if words[:1] == ['export']:
                for word in words[1:]:
                    name, _, value = word.partition('=')
                    variables[name] = value
    return variables


def under(destdir, path):
    return destdir + path if os.path.isabs(path) else path


def run(argv, env, stdin=None, cwd=None):
    return subprocess.run(argv, env=env, input=stdin, capture_output=True, text=True, timeout=60, cwd=cwd)


def main():
    srcdir, builddir, prefix, libdir, cc, python_gi, gjs = sys.argv[1:8]
    libdir = os.path.join(prefix, libdir)
    with tempfile.TemporaryDirectory() as tmp:
        destdir = os.path.join(tmp, 'dest')
        result = subprocess.run(['meson', 'install', '-C', builddir, '--no-rebuild', '--quiet',
                                 '--destdir', destdir], capture_output=True, text=True, timeout=120)
        report(result.returncode == 0, 'meson install --destdir', result.stdout + result.stderr)
        if result.returncode != 0:
            return 1

        told = readme_environment(srcdir)
        print('# the README tells a user to set: %s' % json.dumps(told))
        if prefix == '/usr/local':
            typelib_dir = os.path.join(libdir, 'girepository-1.0')
            report(os.path.isfile(os.path.join(destdir + typelib_dir, 'Snodo-1.typelib')),
                   'the typelib is installed in %s' % typelib_dir)

        site = run(['/usr/bin/python3', os.path.join(srcdir, 'introspection', 'python-site-dir.py'), prefix],
                   dict(os.environ)).stdout.strip()
        env = {name: os.environ[name] for name in ('PATH', 'HOME', 'LANG', 'TMPDIR') if name in os.environ}
        env.update({name: ':'.join(under(destdir, p) for p in value.split(':'))
                    for name, value in told.items()})
        # What the system searches by itself, under the DESTDIR.
        env['LD_LIBRARY_PATH'] = destdir + libdir
        if site:
            env['PYTHONPATH'] = destdir + site
        env['XDG_DATA_DIRS'] = destdir + os.path.join(prefix, 'share') + ':/usr/local/share:/usr/share'
        env['PYTHONDONTWRITEBYTECODE'] = '1'
        # pkg-config's own directories, where the prefix is the DESTDIR's.
        pc_dir = os.path.join(tmp, 'pkgconfig')
        os.makedirs(pc_dir)
        with open(destdir + os.path.join(libdir, 'pkgconfig', 'snodo-1.pc'), encoding='utf-8') as f:
            pc = f.read()
        with open(os.path.join(pc_dir, 'snodo-1.pc'), 'w', encoding='utf-8') as f:
            f.write(re.sub(r'^prefix=.*$', 'prefix=' + destdir + prefix, pc, count=1, flags=re.MULTILINE))
        build_env = dict(env, PKG_CONFIG_PATH=pc_dir)

        # The installed snodo-demo and the README's exchange.
        lines = [
            {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
             'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
                        'clientInfo': {'name': 'readme', 'version': '1'}}},
            {'jsonrpc': '2.0', 'method': 'notifications/initialized'},
            {'jsonrpc': '2.0', 'id': 2, 'method': 'tools/call',
             'params': {'name': 'add', 'arguments': {'a': 2, 'b': 40}}},
        ]
        demo = destdir + os.path.join(prefix, 'bin', 'snodo-demo')
        result = run([demo], env, ''.join(json.dumps(line) + '\n' for line in lines))
        report(result.returncode == 0 and '"text":"42"' in result.stdout.replace(' ', ''),
               'the installed snodo-demo answers', result.stdout + result.stderr)

        # examples/hello.c, built as the README says (pkg-config snodo-1).
        flags = run(['pkg-config', '--cflags', '--libs', 'snodo-1'], build_env)
        report(flags.returncode == 0, 'pkg-config finds the installed snodo-1', flags.stderr)
        hello = os.path.join(tmp, 'hello')
        result = run([cc, '-std=gnu11', os.path.join(srcdir, 'examples', 'hello.c'), '-o', hello]
                     + flags.stdout.split(), build_env)
        report(result.returncode == 0, 'examples/hello.c builds against the installed headers and library',
               result.stderr)
        client = os.path.join(srcdir, 'tests', 'examples', 'hello-client.py')
        examples = [('hello-c', [hello])]
        if python_gi != '':
            examples.append(('hello-py', [python_gi, os.path.join(srcdir, 'examples', 'hello.py')]))
        if gjs != '':
            examples.append(('hello-js', [gjs, '-m', os.path.join(srcdir, 'examples', 'hello.js')]))
        for name, argv in examples:
            # Away from the source tree, whose overrides must not be used.
            result = run([sys.executable, client, name] + argv, env, cwd=tmp)
            report(result.returncode == 0, '%s serves with the installed library' % name,
                   result.stdout + result.stderr)

    print('1..%d' % count)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
