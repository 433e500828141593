#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Ordinary construction from Python must never crash.
#
#   test-bare.py add     every public type made bare (Snodo.Tool() and so
#                        on); descriptions without their construct-only
#                        properties are refused by add_*() with a GLib.Error
#                        that names what is missing (run with
#                        G_DEBUG=fatal-criticals: no critical either).
#   test-bare.py calls   every public function and method, found through
#                        the typelib, called on a bare instance with None for
#                        every pointer argument. A CRITICAL from a
#                        precondition is fine here; a crash is reported as a
#                        failure that names the method. The calls run in
#                        child processes that start again after a crash.

import gc
import json
import os
import subprocess
import sys

import gi
import gi._gi as GIInfo  # the typelib reader (libgirepository) PyGObject itself uses

gi.require_version('GLib', '2.0')
gi.require_version('GObject', '2.0')
gi.require_version('Gio', '2.0')
gi.require_version('Snodo', '1')
from gi.repository import GLib, GObject, Gio, Snodo  # noqa: E402

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print('not ok - ' + message)


def expect_refused(what, add, fragment):
    try:
        add()
    except GLib.Error as error:
        check(error.domain == GLib.quark_to_string(Snodo.error_quark()),
              '%s: error domain %s' % (what, error.domain))
        check(fragment in error.message, '%s: %r does not name %r' % (what, error.message, fragment))
        return
    check(False, '%s was accepted' % what)


def add_mode():
    server = Snodo.Server()
    check(server.props.name == 'snodo', 'a bare server has a default name')

    expect_refused('a bare tool', lambda: server.add_tool(Snodo.Tool(), lambda inv: None), '“name”')
    expect_refused('a bare prompt', lambda: server.add_prompt(Snodo.Prompt(), lambda inv: None),
                   '“name”')
    expect_refused('a bare resource', lambda: server.add_resource(Snodo.Resource(), lambda inv: None),
                   '“uri”')
    expect_refused('a resource without a name',
                   lambda: server.add_resource(Snodo.Resource(uri='app://x'), lambda inv: None),
                   '“name”')
    expect_refused('a bare resource template',
                   lambda: server.add_resource_template(Snodo.ResourceTemplate(), lambda inv: None),
                   '“uri-template”')
    expect_refused('a resource template without a name',
                   lambda: server.add_resource_template(Snodo.ResourceTemplate(uri_template='app://{x}'),
                                                        lambda inv: None),
                   '“name”')

    # Descriptions made with properties instead of new() work like new().
    tool = Snodo.Tool(name='hello', description='Says hello')
    check(server.add_tool(tool, lambda inv: inv.return_text('hi')), 'a tool made with properties')
    check(server.add_prompt(Snodo.Prompt(name='p'), lambda inv: None), 'a prompt made with properties')
    check(server.add_resource(Snodo.Resource(uri='app://r', name='r'), lambda inv: None),
          'a resource made with properties')
    check(server.add_resource_template(Snodo.ResourceTemplate(uri_template='app://t/{x}', name='t'),
                                       lambda inv: None),
          'a resource template made with properties')
    server.set_completion_func(None)

    # Every public type (from the typelib, so new ones are covered), bare:
    # made, inspected and dropped.
    for info in gi.Repository.get_default().get_infos('Snodo'):
        if not isinstance(info, GIInfo.ObjectInfo):
            continue
        if info.get_abstract():
            try:
                getattr(Snodo, info.get_name())()
                check(False, 'the abstract Snodo.%s was made' % info.get_name())
            except (TypeError, NotImplementedError):
                pass
            continue
        obj = getattr(Snodo, info.get_name())()
        for pspec in obj.list_properties():
            if pspec.flags & GObject.ParamFlags.READABLE:
                obj.get_property(pspec.name)
        del obj
        gc.collect()

    # A bare server, served by a transport made with properties.
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    output = Gio.UnixOutputStream.new(out_write, True)
    transport = Snodo.StdioTransport(server=server, input_stream=Gio.UnixInputStream.new(in_read, True),
                                     output_stream=output)
    loop = GLib.MainLoop()
    transport.connect('closed', lambda *_: loop.quit())
    transport.start()
    request = {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call',
               'params': {'name': 'hello', 'arguments': {},
                          '_meta': {'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                                    'io.modelcontextprotocol/clientCapabilities': {}}}}
    os.write(in_write, (json.dumps(request) + '\n').encode())
    os.close(in_write)
    GLib.timeout_add_seconds(20, loop.quit)
    loop.run()
    del transport
    output.close(None)
    answer = json.loads(os.read(out_read, 65536).decode())
    check(answer.get('result', {}).get('content') == [{'type': 'text', 'text': 'hi'}],
          'a bare server answered: %r' % answer)

    # A bare HTTP transport has no server to serve: listening is refused.
    http = Snodo.HttpTransport()
    try:
        http.listen_local(0)
        check(False, 'a bare HTTP transport listened')
    except (GLib.Error, TypeError):
        pass
    except Exception as error:  # noqa: BLE001
        check(False, 'listen_local of a bare HTTP transport: %r' % error)


# ---- calls ----

TAG_BOOLEAN = 1
TAG_FLOAT = 10
TAG_DOUBLE = 11
TAG_INTERFACE = 16


def python_arguments(callable_info):
    """The arguments a Python caller passes: pointers as None, numbers as 0,
    callbacks as a do-nothing function."""
    args = callable_info.get_arguments()
    hidden = set()
    for arg in args:
        if arg.get_closure() >= 0:
            hidden.add(arg.get_closure())
        if arg.get_destroy() >= 0:
            hidden.add(arg.get_destroy())
        length = arg.get_type().get_array_length()
        if length >= 0:
            hidden.add(length)
    values = []
    for index, arg in enumerate(args):
        if index in hidden or arg.get_direction() == GIInfo.Direction.OUT:
            continue
        type_info = arg.get_type()
        tag = type_info.get_tag()
        if tag == TAG_BOOLEAN:
            values.append(False)
        elif tag in (TAG_FLOAT, TAG_DOUBLE):
            values.append(0.0)
        elif 2 <= tag <= 9:
            values.append(0)
        elif tag == TAG_INTERFACE:
            iface = type_info.get_interface()
            if isinstance(iface, GIInfo.CallbackInfo):
                values.append(lambda *a: None)
            elif isinstance(iface, GIInfo.EnumInfo):
                values.append(0)
            else:
                values.append(None)
        else:
            values.append(None)
    return values


def enumerate_calls():
    """(label, call) for every public function and method of Snodo."""
    calls = []
    repository = gi.Repository.get_default()
    infos = repository.get_infos('Snodo')
    for info in infos:
        if isinstance(info, GIInfo.ObjectInfo):
            cls = getattr(Snodo, info.get_name())
            bare = cls
            if info.get_abstract():
                # Its methods are called on a bare instance of a type that
                # derives from it.
                bare = next(getattr(Snodo, other.get_name()) for other in infos
                            if isinstance(other, GIInfo.ObjectInfo) and not other.get_abstract() and
                            issubclass(getattr(Snodo, other.get_name()), cls))
            for method in info.get_methods():
                name = method.get_name()
                label = 'Snodo.%s.%s' % (info.get_name(), name)
                values = python_arguments(method)
                if method.is_method():
                    def call(cls=cls, bare=bare, name=name, values=values):
                        getattr(cls, name)(bare(), *values)
                else:
                    def call(cls=cls, name=name, values=values):
                        getattr(cls, name)(*values)
                calls.append((label, call))
        elif isinstance(info, GIInfo.FunctionInfo):
            name = info.get_name()
            values = python_arguments(info)

            def call(name=name, values=values):
                getattr(Snodo, name)(*values)
            calls.append(('Snodo.' + name, call))
    return calls


def calls_child(start):
    calls = enumerate_calls()
    context = GLib.MainContext.default()
    for label, call in calls[start:]:
        print('CALL ' + label, flush=True)
        try:
            call()
        except (TypeError, ValueError, GLib.Error, AttributeError, NotImplementedError) as error:
            print('  raised %s: %s' % (type(error).__name__, error), flush=True)
        gc.collect()
        for _ in range(10):
            if not context.iteration(False):
                break
    print('END %d' % len(calls), flush=True)


def calls_mode():
    env = dict(os.environ)
    env.pop('G_DEBUG', None)
    start = 0
    total = None
    called = []
    crashed = []
    while total is None or start < total:
        child = subprocess.run([sys.executable, __file__, 'calls-child', str(start)], env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, timeout=120)
        last = None
        for line in child.stdout.splitlines():
            if line.startswith('CALL '):
                last = line[5:]
                called.append(last)
                start += 1
            elif line.startswith('END '):
                total = int(line[4:])
        if child.returncode != 0 or total is None:
            crashed.append('%s (status %d)' % (last, child.returncode))
            if last is None:
                break
    for label in crashed:
        check(False, 'calling %s with None arguments on a bare instance crashed' % label)
    check(len(called) > 100, 'only %d functions were called' % len(called))
    if not crashed:
        print('# %d functions and methods called' % len(called))


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else 'add'
    if mode == 'calls-child':
        calls_child(int(sys.argv[2]))
        return
    if mode == 'add':
        add_mode()
    elif mode == 'calls':
        calls_mode()
    if failures:
        sys.exit(1)
    print('ok - bare construction (%s) from Python' % mode)


if __name__ == '__main__':
    main()
