#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
"""snodo call answers the server's elicitation on a terminal: driven
through a pseudo-terminal (its standard input and error), it shows the
question, takes accept, decline or cancel, asks for each field of the
form (re-asking on a bad value), and the result on standard output
carries the answer. Without a terminal it declares no elicitation.

Usage: test-cli-elicit.py SNODO SNODO-DEMO ELICIT-SERVER   (TAP)"""

import json
import os
import pty
import select
import subprocess
import sys
import time

SNODO, DEMO, ELICIT_SERVER = sys.argv[1:4]
TIMEOUT = 15


class Terminal:
    def __init__(self, args):
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([SNODO] + args, stdin=slave, stdout=subprocess.PIPE,
                                     stderr=slave, close_fds=True)
        os.close(slave)
        self.seen = ''

    def expect(self, text):
        end = time.monotonic() + TIMEOUT
        while text not in self.seen:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError('no %r on the terminal; it showed %r' % (text, self.seen))
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 4096)
                except OSError:
                    chunk = b''
                if not chunk:
                    raise AssertionError('the terminal closed before %r; it showed %r' % (text, self.seen))
                self.seen += chunk.decode(errors='replace')
        # What follows is for the next expectation.
        self.seen = self.seen[self.seen.index(text) + len(text):]

    def type(self, line):
        os.write(self.master, (line + '\n').encode())

    def finish(self):
        out, _ = self.proc.communicate(timeout=TIMEOUT)
        os.close(self.master)
        return self.proc.returncode, out.decode()


def ask(version):
    return ['call', '--protocol-version=' + version, '--', DEMO, 'tools/call',
            '{"name":"ask","arguments":{"question":"Really go on?"}}']


def result_text(out):
    return json.loads(out)['content'][0]['text']


def test_demo(version, answers, expected):
    term = Terminal(ask(version))
    term.expect('The server asks: Really go on?')
    term.expect('[a]ccept, [d]ecline or [c]ancel: ')
    term.type(answers[0])
    if answers[0] == 'a':
        term.expect('Confirm (required)')
        term.expect('confirm [y/n]: ')
        term.type('maybe')
        term.expect('Not a valid boolean.')
        term.expect('confirm [y/n]: ')
        term.type(answers[1])
    status, out = term.finish()
    assert status == 0, (status, out)
    assert result_text(out) == expected, out


def test_form():
    term = Terminal(['call', '--', sys.executable, ELICIT_SERVER, 'tools/call', '{"name":"form","arguments":{}}'])
    term.expect('The server asks: Tell me about you')
    term.expect('[c]ancel: ')
    term.type('accept')
    term.expect('Name: Who you are (required)')
    term.expect('name: ')
    term.type('')
    term.expect('A value is required.')
    term.type('Zoë Müller')
    term.expect('age (integer): ')
    term.type('4.5')
    term.expect('Not a valid integer.')
    term.type('42')
    term.expect('height (number): ')
    term.type('1.75')
    term.expect('3) "blue"')
    term.expect('colour (number or value): ')
    term.type('purple')
    term.expect('Not one of the choices.')
    term.type('2')
    term.expect('"l"  Large')
    term.expect('size (number or value): ')
    term.type('l')
    term.expect('agree [y/n]: ')
    term.type('no')
    term.expect('note [')
    term.type('')
    status, out = term.finish()
    assert status == 0, (status, out)
    answer = json.loads(result_text(out))
    assert answer == {'action': 'accept',
                      'content': {'name': 'Zoë Müller', 'age': 42, 'height': 1.75, 'colour': 'green',
                                  'size': 'l', 'agree': False, 'note': 'none'}}, answer


def test_end_of_input():
    # The terminal's end of input (^D) in the middle of the form cancels.
    term = Terminal(['call', '--', sys.executable, ELICIT_SERVER, 'tools/call', '{"name":"form","arguments":{}}'])
    term.expect('[c]ancel: ')
    term.type('a')
    term.expect('name: ')
    os.write(term.master, b'\x04')
    status, out = term.finish()
    assert status == 0, (status, out)
    assert json.loads(result_text(out)) == {'action': 'cancel'}, out


def test_not_a_terminal():
    # Not a terminal: no elicitation declared, as before.
    proc = subprocess.run([SNODO] + ask('2025-11-25'), stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 0, proc
    result = json.loads(proc.stdout)
    assert result.get('isError') is True, result
    assert 'did not declare the capability' in result_text(proc.stdout.decode()), result
    assert b'The server asks' not in proc.stderr, proc.stderr
    proc = subprocess.run([SNODO] + ask('2026-07-28'), stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 1, proc
    assert b'did not declare the capability' in proc.stderr, proc.stderr


TESTS = [
    ('2025-11-25 accept yes', lambda: test_demo('2025-11-25', ['a', 'y'], 'confirmed')),
    ('2025-11-25 decline', lambda: test_demo('2025-11-25', ['d'], 'declined')),
    ('2026-07-28 accept no', lambda: test_demo('2026-07-28', ['a', 'n'], 'not confirmed')),
    ('2026-07-28 accept yes', lambda: test_demo('2026-07-28', ['a', 'yes'], 'confirmed')),
    ('2026-07-28 cancel', lambda: test_demo('2026-07-28', ['c'], 'cancelled')),
    ('a form of every field type', test_form),
    ('end of input cancels', test_end_of_input),
    ('not a terminal', test_not_a_terminal),
]

print('1..%d' % len(TESTS))
failed = 0
for number, (name, test) in enumerate(TESTS, 1):
    try:
        test()
        print('ok %d %s' % (number, name))
    except Exception as error:  # noqa: BLE001 - reported as a failed case
        failed += 1
        print('not ok %d %s' % (number, name))
        for line in repr(error).splitlines():
            print('# ' + line)
sys.exit(1 if failed else 0)
