#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""A GApplication with actions, for test-actions-cli.py: it owns
org.snodo.TestActions on the session bus and prints each activation on
standard output, one line each ("ready" once it is registered)."""

import sys

import gi
gi.require_version('Gio', '2.0')
from gi.repository import Gio, GLib  # noqa: E402


def main():
    app = Gio.Application(application_id='org.snodo.TestActions', flags=Gio.ApplicationFlags.DEFAULT_FLAGS)

    def say(text):
        print(text, flush=True)

    greet = Gio.SimpleAction.new('greet', GLib.VariantType.new('s'))
    greet.connect('activate', lambda a, p: say('greet ' + p.unpack()))
    save = Gio.SimpleAction.new('save', None)
    save.set_enabled(False)
    save.connect('activate', lambda a, p: say('save'))
    unlock = Gio.SimpleAction.new('unlock', None)
    unlock.connect('activate', lambda a, p: (save.set_enabled(True), say('unlock')))
    dark = Gio.SimpleAction.new_stateful('dark', None, GLib.Variant('b', False))
    dark.connect('change-state', lambda a, v: (a.set_state(v), say('dark %s' % v.unpack())))
    for action in (greet, save, unlock, dark):
        app.add_action(action)

    app.connect('activate', lambda a: None)
    app.connect('startup', lambda a: (a.hold(), say('ready')))
    app.run([sys.argv[0]])


main()
