#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# The Skills extension from Python: a server made of Snodo.Skill objects
# (SKILL.md and a file as GLib.Bytes), served over stdio by this script
# itself, and a Snodo.Client listing the skills, getting one, reading its
# files checked against their digests and a directory, in both eras.
#
#   test-skills.py          runs the checks; starts itself as a server
#   test-skills.py serve    a stdio server on standard input and output

import hashlib
import sys

import gi

gi.require_version('GLib', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, Snodo  # noqa: E402

SKILL_MD = b'---\nname: greeting\ndescription: Greets people\nmetadata:\n  version: "1.0"\n---\n\n# Greeting\n'
TEMPLATE = b'Hello, {name}!\n'
failures = []


def check(condition, message):
    print(('ok - ' if condition else 'not ok - ') + message)
    if not condition:
        failures.append(message)


def wait(start):
    """Runs start(callback) and iterates the main context until its result."""
    box = []
    start(lambda source, result, *args: box.append(result))
    context = GLib.MainContext.default()
    while not box:
        context.iteration(True)
    return box[0]


def serve():
    server = Snodo.Server.new('py-skills', '1.0')
    skill = Snodo.Skill.new('team', GLib.Bytes.new(SKILL_MD))
    skill.add_file('templates/hello.txt', GLib.Bytes.new(TEMPLATE), None)
    server.add_skill(skill)
    transport = Snodo.StdioTransport.new_for_stdio(server)
    loop = GLib.MainLoop()
    transport.connect('closed', lambda _t, _error: loop.quit())
    transport.start()
    loop.run()


def run(pinned):
    client = Snodo.Client.new_for_argv([sys.executable, __file__, 'serve'])
    client.set_pinned_version(pinned)
    check(client.connect_finish(wait(lambda cb: client.connect_async(None, cb))), 'connects (%s)' % pinned)
    extensions = client.get_server_capabilities().get('extensions', {})
    check(extensions.get('io.modelcontextprotocol/skills') == {'directoryRead': True},
          'the extension is advertised: %r' % extensions)

    skills = client.list_skills_finish(wait(lambda cb: client.list_skills_async(None, cb)))
    check(len(skills) == 1 and skills[0]['uri'] == 'skill://team/greeting/SKILL.md'
          and skills[0]['frontmatter'] == {'name': 'greeting', 'description': 'Greets people',
                                           'metadata': {'version': '1.0'}},
          'skills: %r' % skills)
    skill = client.get_skill_finish(wait(lambda cb: client.get_skill_async('skill://team/greeting/SKILL.md', None, cb)))
    digests = {r['uri']: (r['digest'], r['size']) for r in skill['resources']}
    check(digests == {'skill://team/greeting/SKILL.md': ('sha256:' + hashlib.sha256(SKILL_MD).hexdigest(),
                                                         len(SKILL_MD)),
                      'skill://team/greeting/templates/hello.txt': ('sha256:' + hashlib.sha256(TEMPLATE).hexdigest(),
                                                                    len(TEMPLATE))},
          'digests: %r' % digests)
    content = client.read_skill_file_finish(wait(lambda cb: client.read_skill_file_async(
        skill, 'skill://team/greeting/templates/hello.txt', None, cb)))
    check(content.get_data() == TEMPLATE, 'read: %r' % content.get_data())
    try:
        client.read_skill_file_finish(wait(lambda cb: client.read_skill_file_async(
            skill, 'skill://team/greeting/other.txt', None, cb)))
        check(False, 'an unlisted file was read')
    except GLib.Error:
        pass
    children = client.read_directory_finish(wait(lambda cb: client.read_directory_async(
        'skill://team/greeting', None, cb)))
    check([c['name'] for c in children] == ['SKILL.md', 'templates'], 'directory: %r' % children)
    try:
        client.get_skill_finish(wait(lambda cb: client.get_skill_async('skill://team/none/SKILL.md', None, cb)))
        check(False, 'an unknown skill was got')
    except GLib.Error as error:
        check(error.code == -32602, 'unknown skill: %s' % error.message)
    check(client.close_finish(wait(lambda cb: client.close_async(None, cb))), 'closes (%s)' % pinned)


def main():
    if sys.argv[1:] == ['serve']:
        serve()
        return
    try:
        Snodo.Skill.new(None, GLib.Bytes.new(b'# no front matter\n'))
        check(False, 'a SKILL.md without front matter was taken')
    except GLib.Error:
        pass
    run(Snodo.ProtocolVersion.UNKNOWN)
    run(Snodo.protocol_version_from_string('2025-11-25'))
    if failures:
        sys.exit(1)
    print('ok')


main()
