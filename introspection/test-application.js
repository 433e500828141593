// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A Gio.Application in JavaScript served through Snodo.ApplicationBinding,
// for test-application.py --gjs: a counter, and a tool that prints.

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

const server = Snodo.Server.new('gjs-app', '1.0');
let count = 0;
server.add_tool(Snodo.Tool.new('count', 'Counts'), () => String(++count));
server.add_tool(Snodo.Tool.new('noisy', 'Prints, then answers'), () => {
    print('noise');
    return 'quiet';
});

const app = new Gio.Application({application_id: `org.snodo.GjsApp${GLib.random_int()}`});
app.connect('activate', () => print('activated'));
const binding = Snodo.ApplicationBinding.new(app, server);
const status = app.run([System.programInvocationName, ...ARGV]);
System.exit(status || binding.get_exit_status());
