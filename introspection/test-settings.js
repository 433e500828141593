// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The server of the GJS half of test-settings.py: the settings of
// tests/data/org.snodo.Test.gschema.xml and a Gio.SimpleActionGroup, served
// on standard input and output, exactly as test-settings.py serve does.
//
//   gjs -m test-settings.js

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Snodo from 'gi://Snodo?version=1';

// Before the first thread (GSettings starts some): logs to stderr.
Snodo.StdioTransport.log_to_stderr();
const server = Snodo.Server.new('gjs-settings', '1.0');
const settings = Gio.Settings.new('org.snodo.Test');
server.add_settings(settings, null, Snodo.SettingsFlags.WRITABLE);

const group = new Gio.SimpleActionGroup();
const greet = Gio.SimpleAction.new('greet', new GLib.VariantType('s'));
greet.connect('activate', (action, parameter) => settings.set_string('name', parameter.unpack()));
group.add_action(greet);
group.add_action(Gio.SimpleAction.new_stateful('dark', null, GLib.Variant.new_boolean(false)));
const move = Gio.SimpleAction.new('move', new GLib.VariantType('(ii)'));
move.connect('activate', (action, parameter) => {
    const [x, y] = parameter.deepUnpack();
    settings.set_int('volume', x + y);
});
group.add_action(move);
server.add_action_group(group, 'app', null, null, null);

// server.run() would set up logging again, after GSettings' threads.
const transport = Snodo.StdioTransport.new_for_stdio(server);
const loop = new GLib.MainLoop(null, false);
transport.connect('closed', () => loop.quit());
transport.start();
loop.run();
