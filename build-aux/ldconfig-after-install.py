#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
#   ldconfig-after-install.py LIBDIR SONAME
#
# Run by `meson install` (meson.add_install_script) on Linux, so that the
# dynamic loader finds the library that was just installed into LIBDIR, as
# installed software is found: newer meson runs ldconfig itself after an
# install, meson 1.0 does not. It does nothing for a staged install
# (DESTDIR) or a dry run, nor when the loader's cache already maps SONAME
# to LIBDIR (installed before). When LIBDIR is a directory the loader's
# cache covers (/etc/ld.so.conf), it runs ldconfig, and says so if that
# fails (not root); when it is not, it says how programs can find the
# library instead. An install never fails because of it.

import os
import shutil
import subprocess
import sys


def find_ldconfig():
    found = shutil.which('ldconfig')
    if found:
        return found
    for path in ('/sbin/ldconfig', '/usr/sbin/ldconfig'):
        if os.access(path, os.X_OK):
            return path
    return None


def cached_paths(ldconfig, soname):
    """The files the loader's cache maps @soname to."""
    listing = subprocess.run([ldconfig, '-p'], capture_output=True, text=True)
    paths = []
    for line in listing.stdout.splitlines():
        name, _, target = line.strip().partition(' => ')
        if target and name.split(' ')[0] == soname:
            paths.append(os.path.realpath(os.path.dirname(target)))
    return paths


def covered_dirs(ldconfig):
    """The directories ldconfig scans (it changes nothing with -N -X)."""
    listing = subprocess.run([ldconfig, '-v', '-N', '-X'], capture_output=True, text=True)
    dirs = set()
    for line in listing.stdout.splitlines():
        if line and not line[0].isspace() and ':' in line:
            dirs.add(os.path.realpath(line.split(':', 1)[0]))
    return dirs


def main():
    libdir, soname = sys.argv[1:3]
    if os.environ.get('DESTDIR') or os.environ.get('MESON_INSTALL_DRY_RUN'):
        return 0
    ldconfig = find_ldconfig()
    if ldconfig is None:
        return 0
    real = os.path.realpath(libdir)
    if real in cached_paths(ldconfig, soname):
        return 0
    if real not in covered_dirs(ldconfig):
        print('%s is not a directory the dynamic loader searches: programs find %s there only '
              'with LD_LIBRARY_PATH=%s, or once it is listed in /etc/ld.so.conf.d/ and ldconfig '
              'has run' % (libdir, soname, libdir))
        return 0
    result = subprocess.run([ldconfig], capture_output=True, text=True)
    if result.returncode != 0:
        print('Could not run ldconfig (%s): run it as root, or programs will not find %s in %s'
              % (result.stderr.strip() or 'status %d' % result.returncode, soname, libdir))
    else:
        print('Ran ldconfig: the dynamic loader finds %s in %s' % (soname, libdir))
    return 0


if __name__ == '__main__':
    sys.exit(main())
