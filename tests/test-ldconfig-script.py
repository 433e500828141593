#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   test-ldconfig-script.py build-aux/ldconfig-after-install.py
#
# The script meson install runs after installing the library, against a
# stand-in ldconfig first on PATH (which lists the directories and cache
# the case says, and records being run): it runs ldconfig after an install
# into a directory the loader's cache covers, and only then; never for a
# DESTDIR; says what to do when ldconfig fails or the directory is not
# one the loader searches; and never fails the install. Output is TAP.

import os
import subprocess
import sys
import tempfile

FAKE_LDCONFIG = '''#!/bin/sh
case "$*" in
  -p) printf '%s' "$FAKE_CACHE" ;;
  "-v -N -X") printf '%s' "$FAKE_DIRS" ;;
  "") echo ran >> "$FAKE_LOG"; exit "${FAKE_STATUS:-0}" ;;
  *) exit 3 ;;
esac
'''


def main():
    script = sys.argv[1]
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        bindir = os.path.join(tmp, 'bin')
        libdir = os.path.realpath(os.path.join(tmp, 'lib'))
        os.makedirs(bindir)
        os.makedirs(libdir)
        ldconfig = os.path.join(bindir, 'ldconfig')
        with open(ldconfig, 'w') as f:
            f.write(FAKE_LDCONFIG)
        os.chmod(ldconfig, 0o755)
        log = os.path.join(tmp, 'log')
        covered = '/usr/lib/x86_64-linux-gnu: (from /etc/ld.so.conf.d/x.conf:3)\n' \
                  '\tlibc.so.6 -> libc.so.6\n' \
                  '%s: (from /etc/ld.so.conf.d/libc.conf:2)\n' % libdir
        cached = '1 libs found in cache `/etc/ld.so.cache\'\n' \
                 '\tlibsnodo-1.so.0 (libc6,x86-64) => %s/libsnodo-1.so.0\n' % libdir
        cases = [
            # name, environment, ran, what the output must hold
            ('an install into a directory the cache covers runs ldconfig',
             {'FAKE_DIRS': covered}, True, 'Ran ldconfig'),
            ('a DESTDIR install does not', {'FAKE_DIRS': covered, 'DESTDIR': '/stage'}, False, None),
            ('nor one the cache already knows', {'FAKE_DIRS': covered, 'FAKE_CACHE': cached}, False, None),
            ('a directory the loader does not search is told, not ldconfig\'d',
             {'FAKE_DIRS': '/usr/lib: (from <builtin>:0)\n'}, False, 'LD_LIBRARY_PATH=' + libdir),
            ('ldconfig failing (not root) is told, and the install goes on',
             {'FAKE_DIRS': covered, 'FAKE_STATUS': '1'}, True, 'run it as root'),
        ]
        for number, (name, extra, ran, said) in enumerate(cases, 1):
            if os.path.exists(log):
                os.unlink(log)
            env = {'PATH': bindir + ':/usr/bin:/bin', 'FAKE_LOG': log, 'FAKE_CACHE': ''}
            env.update(extra)
            result = subprocess.run([sys.executable, script, libdir, 'libsnodo-1.so.0'], env=env,
                                    capture_output=True, text=True, timeout=30)
            problems = []
            if result.returncode != 0:
                problems.append('exit status %d' % result.returncode)
            if os.path.exists(log) != ran:
                problems.append('ldconfig was %srun' % ('not ' if ran else ''))
            if said is not None and said not in result.stdout:
                problems.append('does not say %r' % said)
            if said is None and result.stdout != '':
                problems.append('says something')
            if problems:
                failures += 1
                print('not ok %d - %s' % (number, name))
                print('# ' + '; '.join(problems))
                for line in (result.stdout + result.stderr).splitlines():
                    print('# ' + line)
            else:
                print('ok %d - %s' % (number, name))
        print('1..%d' % len(cases))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
