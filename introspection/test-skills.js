// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The Skills extension from GJS through the overrides: a Snodo.Skill made
// of GLib.Bytes, and a SnodoClient on snodo-demo --skills-dir (SNODO_DEMO)
// over stdio in 2026-07-28 and 2025-11-25, listing, getting and reading
// skills with promises and plain objects.
//
//   gjs -m test-skills.js

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

const failures = [];
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function check(condition, message) {
    print(`${condition ? 'ok' : 'not ok'} - ${message}`);
    if (!condition)
        failures.push(message);
}

const SKILL_MD = '---\nname: greeting\ndescription: Greets people\n---\n\n# Greeting\n';
const dir = GLib.dir_make_tmp('snodo-gjs-skills-XXXXXX');
GLib.mkdir_with_parents(`${dir}/greeting/templates`, 0o700);
GLib.file_set_contents(`${dir}/greeting/SKILL.md`, SKILL_MD);
GLib.file_set_contents(`${dir}/greeting/templates/hello.txt`, 'Hello, {name}!\n');

// A skill made in JavaScript.
const skill = Snodo.Skill.new('team', new GLib.Bytes(encoder.encode(SKILL_MD)));
skill.add_file('notes.txt', new GLib.Bytes(encoder.encode('notes\n')), null);
check(skill.get_uri() === 'skill://team/greeting/SKILL.md', `a skill's URI: ${skill.get_uri()}`);
check(skill.dup_entry().get_object().get_array_member('resources').get_length() === 2, 'its entry lists two files');

async function run(pinned) {
    const client = Snodo.Client.new_for_argv([GLib.getenv('SNODO_DEMO'), `--skills-dir=${dir}`]);
    client.set_pinned_version(pinned);
    check(await client.connect_async(null), 'connects');
    const version = Snodo.protocol_version_to_string(client.get_protocol_version());

    const skills = await client.list_skills_async(null);
    check(skills.length === 1 && skills[0].frontmatter.name === 'greeting', `skills/list (${version})`);
    const entry = await client.get_skill_async('skill://greeting/SKILL.md', null);
    check(entry.resources.length === 2, `skills/get (${version})`);
    const content = await client.read_skill_file_async(entry, 'skill://greeting/templates/hello.txt', null);
    check(decoder.decode(content.toArray()) === 'Hello, {name}!\n', `a file read and checked (${version})`);
    const children = await client.read_directory_async('skill://greeting', null);
    check(children.map(c => c.name).join(',') === 'SKILL.md,templates', `a directory (${version})`);
    check(await client.close_async(null), `closes (${version})`);
}

const loop = new GLib.MainLoop(null, false);
let status = 0;
(async () => {
    try {
        await run(Snodo.ProtocolVersion.UNKNOWN);
        await run(Snodo.protocol_version_from_string('2025-11-25'));
    } catch (error) {
        printerr(`${error}\n${error.stack}`);
        status = 1;
    }
    loop.quit();
})();
loop.run();
for (const path of ['greeting/templates/hello.txt', 'greeting/SKILL.md', 'greeting/templates', 'greeting', ''])
    Gio.File.new_for_path(`${dir}/${path}`).delete(null);
System.exit(status !== 0 || failures.length > 0 ? 1 : 0);
