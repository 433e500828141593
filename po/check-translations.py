#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   check-translations.py SNODO-DEMO PO-SRCDIR PO-BUILDDIR
#
# Every catalog in LINGUAS passes `msgfmt -c --check-format` (so a
# translation can never break a printf format), has been built, and is
# complete; and snodo-demo, run uninstalled under LANGUAGE=de with
# SNODO_LOCALEDIR pointing at the built catalogs (what `meson devenv` sets),
# answers an unknown method in German, and in English without LANGUAGE.

import json
import os
import subprocess
import sys

failures = []


def fail(message):
    failures.append(message)
    print('not ok - ' + message)


def check_catalogs(srcdir, builddir):
    with open(os.path.join(srcdir, 'LINGUAS'), encoding='utf-8') as f:
        languages = [w for line in f if not line.startswith('#') for w in line.split()]
    if not languages:
        fail('LINGUAS names no language')
    for lang in languages:
        po = os.path.join(srcdir, lang + '.po')
        result = subprocess.run(['msgfmt', '-c', '--check-format', '--statistics', '-o', os.devnull, po],
                                capture_output=True, text=True, env=dict(os.environ, LC_ALL='C'))
        stats = result.stderr.strip()
        if result.returncode != 0:
            fail('msgfmt -c --check-format %s.po:\n%s' % (lang, stats))
        elif 'untranslated' in stats or 'fuzzy' in stats:
            fail('%s.po is not complete: %s' % (lang, stats))
        else:
            print('ok - %s.po: %s' % (lang, stats))
        mo = os.path.join(builddir, lang, 'LC_MESSAGES', 'snodo-1.mo')
        if not os.path.exists(mo):
            fail('%s was not built' % mo)


def answer(demo, env):
    request = '{"jsonrpc":"2.0","id":1,"method":"no/such"}\n'
    result = subprocess.run([demo], input=request, capture_output=True, text=True,
                            env=env, timeout=30)
    if result.returncode != 0:
        fail('snodo-demo exited with %d: %s' % (result.returncode, result.stderr))
        return None
    return json.loads(result.stdout.splitlines()[0])['error']['message']


def check_demo(demo, builddir):
    env = {k: v for k, v in os.environ.items() if not k.startswith('LC_') and k not in ('LANG', 'LANGUAGE')}
    env['LC_ALL'] = 'C.UTF-8'
    env['SNODO_LOCALEDIR'] = builddir

    german = answer(demo, dict(env, LANGUAGE='de'))
    if german != 'Methode nicht gefunden: no/such':
        fail('under LANGUAGE=de snodo-demo said %r' % german)
    else:
        print('ok - LANGUAGE=de: %s' % german)

    english = answer(demo, env)
    if english != 'Method not found: no/such':
        fail('without LANGUAGE snodo-demo said %r' % english)
    else:
        print('ok - no LANGUAGE: %s' % english)


def main():
    demo, srcdir, builddir = sys.argv[1:4]
    check_catalogs(srcdir, builddir)
    check_demo(demo, builddir)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
