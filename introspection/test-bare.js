// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Ordinary construction from JavaScript must never crash.
//
//   gjs -m test-bare.js add     every public type made bare (new Snodo.Tool()
//                               and so on); descriptions without their
//                               construct-only properties are refused by
//                               add_*() with a GLib.Error that names what is
//                               missing (run with G_DEBUG=fatal-criticals).
//   gjs -m test-bare.js calls   every public function and method, found
//                               through GIRepository, called on a bare
//                               instance with null for every pointer
//                               argument. A CRITICAL from a precondition is
//                               fine; a crash fails the test and names the
//                               method. The calls run in child processes that
//                               start again after a crash.

import GIRepository from 'gi://GIRepository?version=2.0';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gio from 'gi://Gio';
import Snodo from 'gi://Snodo?version=1';
import System from 'system';

const failures = [];

function check(condition, message) {
    if (!condition) {
        failures.push(message);
        print(`not ok - ${message}`);
    }
}

function expectRefused(what, add, fragment) {
    try {
        add();
    } catch (error) {
        check(error instanceof GLib.Error && error.matches(Snodo.error_quark(), error.code),
            `${what}: not a Snodo error: ${error}`);
        check(String(error.message).includes(fragment),
            `${what}: "${error.message}" does not name ${fragment}`);
        return;
    }
    check(false, `${what} was accepted`);
}

function addMode() {
    const server = new Snodo.Server();
    check(server.name === 'snodo', 'a bare server has a default name');
    const nothing = () => {};

    expectRefused('a bare tool', () => server.add_tool(new Snodo.Tool(), nothing), '“name”');
    expectRefused('a bare prompt', () => server.add_prompt(new Snodo.Prompt(), nothing), '“name”');
    expectRefused('a bare resource', () => server.add_resource(new Snodo.Resource(), nothing), '“uri”');
    expectRefused('a resource without a name',
        () => server.add_resource(new Snodo.Resource({uri: 'app://x'}), nothing), '“name”');
    expectRefused('a bare resource template',
        () => server.add_resource_template(new Snodo.ResourceTemplate(), nothing), '“uri-template”');

    check(server.add_tool(new Snodo.Tool({name: 'hello'}), inv => inv.return_text('hi')),
        'a tool made with properties');
    check(server.add_prompt(new Snodo.Prompt({name: 'p'}), nothing), 'a prompt made with properties');

    // Every public type (from the typelib, so new ones are covered), bare:
    // made, inspected and dropped.
    const repository = GIRepository.Repository.get_default();
    for (let i = 0; i < repository.get_n_infos('Snodo'); i++) {
        const info = repository.get_info('Snodo', i);
        if (info.get_type() !== GIRepository.InfoType.OBJECT)
            continue;
        const Type = Snodo[info.get_name()];
        if (GIRepository.object_info_get_abstract(info)) {
            let made = true;
            try {
                new Type();
            } catch (e) {
                made = false;
            }
            check(!made, `the abstract Snodo.${info.get_name()} was made`);
            continue;
        }
        const object = new Type();
        for (const pspec of GObject.Object.list_properties.call(Type))
            if (pspec.flags & GObject.ParamFlags.READABLE)
                void object[pspec.get_name().replace(/-/g, '_')];
    }
    System.gc();

    const http = new Snodo.HttpTransport();
    try {
        http.listen_local(0);
        check(false, 'a bare HTTP transport listened');
    } catch (error) {
        check(error instanceof GLib.Error, `listen_local of a bare HTTP transport: ${error}`);
    }
}

// ---- calls ----

const T = GIRepository.TypeTag;

function jsArguments(callable) {
    const n = GIRepository.callable_info_get_n_args(callable);
    const args = [];
    const hidden = new Set();
    for (let i = 0; i < n; i++)
        args.push(GIRepository.callable_info_get_arg(callable, i));
    for (const arg of args) {
        const closure = GIRepository.arg_info_get_closure(arg);
        const destroy = GIRepository.arg_info_get_destroy(arg);
        const length = GIRepository.type_info_get_array_length(GIRepository.arg_info_get_type(arg));
        for (const index of [closure, destroy, length])
            if (index >= 0)
                hidden.add(index);
    }
    const values = [];
    args.forEach((arg, index) => {
        if (hidden.has(index) || GIRepository.arg_info_get_direction(arg) === GIRepository.Direction.OUT)
            return;
        const type = GIRepository.arg_info_get_type(arg);
        const tag = GIRepository.type_info_get_tag(type);
        if (tag === T.BOOLEAN) {
            values.push(false);
        } else if (tag >= T.INT8 && tag <= T.DOUBLE) {
            values.push(0);
        } else if (tag === T.INTERFACE) {
            const iface = GIRepository.type_info_get_interface(type);
            const kind = iface.get_type();
            if (kind === GIRepository.InfoType.CALLBACK)
                values.push(() => {});
            else if (kind === GIRepository.InfoType.ENUM || kind === GIRepository.InfoType.FLAGS)
                values.push(0);
            else
                values.push(null);
        } else {
            values.push(null);
        }
    });
    return values;
}

function enumerateCalls() {
    const repository = GIRepository.Repository.get_default();
    const calls = [];
    const n = repository.get_n_infos('Snodo');
    for (let i = 0; i < n; i++) {
        const info = repository.get_info('Snodo', i);
        const kind = info.get_type();
        if (kind === GIRepository.InfoType.OBJECT) {
            const Type = Snodo[info.get_name()];
            // The methods of an abstract type are called on a bare instance
            // of a type that derives from it.
            let Bare = Type;
            for (let k = 0; GIRepository.object_info_get_abstract(info) && k < n; k++) {
                const other = repository.get_info('Snodo', k);
                if (other.get_type() === GIRepository.InfoType.OBJECT &&
                    !GIRepository.object_info_get_abstract(other) &&
                    Snodo[other.get_name()].prototype instanceof Type) {
                    Bare = Snodo[other.get_name()];
                    break;
                }
            }
            const nMethods = GIRepository.object_info_get_n_methods(info);
            for (let j = 0; j < nMethods; j++) {
                const method = GIRepository.object_info_get_method(info, j);
                const name = method.get_name();
                const values = jsArguments(method);
                const isMethod = GIRepository.callable_info_is_method(method);
                calls.push([`Snodo.${info.get_name()}.${name}`,
                    isMethod ? () => Type.prototype[name].call(new Bare(), ...values)
                        : () => Type[name](...values)]);
            }
        } else if (kind === GIRepository.InfoType.FUNCTION) {
            const name = info.get_name();
            const values = jsArguments(info);
            calls.push([`Snodo.${name}`, () => Snodo[name](...values)]);
        }
    }
    return calls;
}

function callsChild(start) {
    const calls = enumerateCalls();
    const context = GLib.MainContext.default();
    for (const [label, call] of calls.slice(start)) {
        print(`CALL ${label}`);
        try {
            call();
        } catch (error) {
            print(`  threw ${error}`);
        }
        System.gc();
        for (let k = 0; k < 10 && context.iteration(false); k++)
            ;
    }
    print(`END ${calls.length}`);
}

function callsMode() {
    const script = GLib.filename_from_uri(import.meta.url)[0];
    let start = 0;
    let total = null;
    const called = [];
    const crashed = [];
    while (total === null || start < total) {
        const launcher = new Gio.SubprocessLauncher({
            flags: Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_SILENCE,
        });
        launcher.unsetenv('G_DEBUG');
        const child = launcher.spawnv(['gjs', '-m', script, 'calls-child', String(start)]);
        const [, stdout] = child.communicate_utf8(null, null);
        let last = null;
        for (const line of stdout.split('\n')) {
            if (line.startsWith('CALL ')) {
                last = line.slice(5);
                called.push(last);
                start++;
            } else if (line.startsWith('END ')) {
                total = Number(line.slice(4));
            }
        }
        const ok = child.get_if_exited() && child.get_exit_status() === 0;
        if (!ok || total === null) {
            crashed.push(`${last} (${child.get_if_signaled() ? `signal ${child.get_term_sig()}`
                : `status ${child.get_exit_status()}`})`);
            if (last === null)
                break;
        }
    }
    for (const label of crashed)
        check(false, `calling ${label} with null arguments on a bare instance crashed`);
    check(called.length > 100, `only ${called.length} functions were called`);
    if (crashed.length === 0)
        print(`# ${called.length} functions and methods called`);
}

const [mode = 'add', startArg] = ARGV;
if (mode === 'calls-child') {
    callsChild(Number(startArg));
} else {
    if (mode === 'add')
        addMode();
    else if (mode === 'calls')
        callsMode();
    if (failures.length > 0)
        System.exit(1);
    print(`ok - bare construction (${mode}) from JavaScript`);
}
