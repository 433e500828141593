#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# The run-time version API through the typelib: bindings have no headers,
# so this is how a script learns which Snodo it runs with.

import sys

import gi

gi.require_version('Snodo', '1')
from gi.repository import Snodo  # noqa: E402


def main():
    expected = sys.argv[1]
    version = (Snodo.get_major_version(), Snodo.get_minor_version(), Snodo.get_micro_version())
    if '%d.%d.%d' % version != expected:
        print('not ok - the typelib reports %r, the build is %s' % (version, expected))
        return 1
    if '%d.%d.%d' % version != Snodo.VERSION_S:
        print('not ok - VERSION_S is %s' % Snodo.VERSION_S)
        return 1
    if Snodo.check_version(*version) is not None:
        print('not ok - check_version rejects its own version')
        return 1
    message = Snodo.check_version(version[0] + 1, 0, 0)
    if not isinstance(message, str) or not message:
        print('not ok - check_version accepts the next major version: %r' % message)
        return 1
    print('ok - Snodo %s: check_version() says %r about %d.0.0' % (expected, message, version[0] + 1))
    return 0


if __name__ == '__main__':
    sys.exit(main())
