# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# What a function given to server.tool() (and resource(), prompt()) may ask
# for: a Context, the request's side of the conversation, and coroutines
# run on the GLib main loop without asyncio. An `async def` handler awaits
# operations of this module (Snodo.sleep(), ctx.elicit(), ...); each starts
# a GLib operation and suspends the coroutine until its callback, from the
# main loop, resumes it.

import dataclasses
import sys
import threading
import traceback

from gi.repository import Gio, GLib, GObject

from .schema import from_json, schema_for, to_json

__all__ = ['Cancelled', 'Context', 'ElicitResult', 'Operation', 'run_coroutine', 'sleep', 'call_async']

Snodo = None  # the overridden module, set by install()


class Cancelled(BaseException):
    """Raised in a coroutine whose request was cancelled (by the client, a
    handler timeout or the end of the transport), where it was suspended.
    Like asyncio.CancelledError it is not an Exception, so that
    `except Exception` lets it through."""


class Operation:
    """Something an `async def` handler may await: start(resume) begins it
    and calls resume(value) or resume(error=exception) from the main loop;
    cancel() stops it without resuming."""

    def __await__(self):
        return (yield self)

    def start(self, resume):
        raise NotImplementedError

    def cancel(self):
        pass


class _Sleep(Operation):
    def __init__(self, ms):
        self.ms = ms
        self.source = 0

    def start(self, resume):
        def done():
            self.source = 0
            resume(None)
            return GLib.SOURCE_REMOVE
        self.source = GLib.timeout_add(max(0, int(self.ms)), done)

    def cancel(self):
        if self.source:
            GLib.source_remove(self.source)
            self.source = 0


def sleep(ms):
    """An operation to await: resumes after @ms milliseconds, from the main
    loop (asyncio.sleep() needs an asyncio loop, which a handler does not
    run in)."""
    return _Sleep(ms)


class _GioCall(Operation):
    """A GIO-style _async method: called with a cancellable and a callback,
    its _finish called with the result."""

    def __init__(self, method, args, finish):
        self.method = method
        self.args = args
        self.finish = finish
        self.cancellable = Gio.Cancellable()

    def start(self, resume):
        def done(_source, result, *_data):
            if self.cancellable.is_cancelled():
                return
            try:
                value = self.finish(result)
            except BaseException as error:  # noqa: BLE001 - handed to the coroutine
                resume(error=error)
                return
            resume(value)
        self.method(*self.args, self.cancellable, done)

    def cancel(self):
        self.cancellable.cancel()


def call_async(target, *args, finish=None):
    """An operation to await for a GIO-style method: `await
    Snodo.call_async(file, 'load_contents_async')` calls
    file.load_contents_async(cancellable, callback) and gives what
    file.load_contents_finish() returns (or raises what it raises). A bound
    method of a Python class (an override's) may be given instead of the
    object and the name; @finish names another finishing function."""
    if isinstance(target, GObject.Object) and args and isinstance(args[0], str):
        owner, name, args = target, args[0], args[1:]
        method = getattr(owner, name)
    else:
        method = target
        owner = getattr(target, '__self__', None)
        name = getattr(target, '__name__', '')
    if finish is None:
        if owner is None or not name.endswith('_async'):
            raise ValueError('give call_async() the object and the name of its _async method, or finish=')
        finish = getattr(owner, name[:-len('_async')] + '_finish')
    return _GioCall(method, args, finish)


def _input_required(error):
    return isinstance(error, GLib.Error) and error.matches(Snodo.error_quark(), Snodo.Error.INPUT_REQUIRED)


class _Runner:
    """Runs a coroutine to its end on the main loop; done(value, error) is
    called once, with what it returned or raised."""

    def __init__(self, coro, cancellable, done):
        self.coro = coro
        self.cancellable = cancellable
        self.done = done
        self.pending = None
        self.finished = False
        self.cancel_handler = 0

    def start(self):
        if self.cancellable is not None:
            # The signal may come from another thread: then resume from
            # the loop. (Gio.Cancellable.connect() is g_cancellable_connect().)
            thread = threading.get_ident()

            def cancelled(_cancellable):
                if threading.get_ident() == thread:
                    self._cancelled()
                else:
                    GLib.idle_add(self._cancelled, priority=GLib.PRIORITY_DEFAULT)
            self.cancel_handler = GObject.Object.connect(self.cancellable, 'cancelled', cancelled)
        self._step(None, None)

    def _cancelled(self):
        if not self.finished and self.pending is not None:
            operation, self.pending = self.pending, None
            operation.cancel()
            self._step(None, Cancelled())
        return GLib.SOURCE_REMOVE

    def _finish(self, value, error):
        self.finished = True
        if self.cancel_handler:
            GObject.signal_handler_disconnect(self.cancellable, self.cancel_handler)
            self.cancel_handler = 0
        self.done(value, error)

    def _step(self, value, error):
        try:
            if error is not None:
                awaited = self.coro.throw(error)
            else:
                awaited = self.coro.send(value)
        except StopIteration as stop:
            self._finish(stop.value, None)
            return
        except BaseException as failure:  # noqa: BLE001 - the request is answered with it
            self._finish(None, failure)
            return
        if not isinstance(awaited, Operation):
            self._step(None, TypeError('a Snodo handler can await Snodo operations (Snodo.sleep(), '
                                       'ctx.elicit(), Snodo.call_async(), ...), not %r: it runs on the '
                                       'GLib main loop, not asyncio' % (awaited,)))
            return
        self.pending = awaited

        def resume(result=None, error=None):
            if self.pending is not awaited or self.finished:
                return
            self.pending = None
            if _input_required(error):
                # 2026-07-28: the request was answered with input_required;
                # the client sends it again with the answers, and the
                # function runs again from its start.
                self.coro.close()
                self._finish(None, error)
                return
            self._step(result, error)

        if self.cancellable is not None and self.cancellable.is_cancelled():
            self.pending = None
            self._step(None, Cancelled())
            return
        try:
            awaited.start(resume)
        except BaseException as failure:  # noqa: BLE001
            if self.pending is awaited:
                self.pending = None
                self._step(None, failure)


def run_coroutine(coro, cancellable, done):
    """Runs @coro on the main loop, cancelled with @cancellable; calls
    done(value, error) at its end."""
    _Runner(coro, cancellable, done).start()


@dataclasses.dataclass
class ElicitResult:
    """What the user answered: action is 'accept', 'decline' or 'cancel';
    data, when accepted, the content converted to the type asked for."""
    action: str
    content: dict = None
    data: object = None


class _Input(Operation):
    """A request of the server's own, made with request_input_async()."""

    def __init__(self, invocation, key, method, params, convert):
        self.invocation = invocation
        self.key = key
        self.method = method
        self.params = params
        self.convert = convert
        self.cancellable = Gio.Cancellable()

    def start(self, resume):
        def done(invocation, result, *_data):
            if self.cancellable.is_cancelled():
                return
            try:
                value = self.convert(invocation.request_input_finish(result))
            except BaseException as error:  # noqa: BLE001 - handed to the coroutine
                resume(error=error)
                return
            resume(value)
        self.invocation.request_input_async(self.key, self.method, self.params, self.cancellable, done)

    def cancel(self):
        self.cancellable.cancel()


_LEVELS = ('debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency')


class Context:
    """The request a tool, resource or prompt function serves; a parameter
    annotated Snodo.Context is given one, and is not part of the schema."""

    def __init__(self, invocation):
        self.invocation = invocation
        self._asked = 0

    # What the request is.
    @property
    def cancellable(self):
        """The request's Gio.Cancellable."""
        return self.invocation.get_cancellable()

    def is_cancelled(self):
        return self.invocation.get_cancellable().is_cancelled()

    @property
    def principal(self):
        """Who the request's credentials name (None without authorization)."""
        return self.invocation.get_principal()

    @property
    def scopes(self):
        """The scopes the request's credentials grant, a list."""
        return list(self.invocation.get_scopes() or [])

    def has_scope(self, scope):
        return self.invocation.has_scope(scope)

    @property
    def protocol_version(self):
        return self.invocation.get_protocol_version()

    @property
    def client_capabilities(self):
        return self.invocation.dup_client_capabilities()

    # Telling the client: plain calls, that return at once.
    def report_progress(self, progress, total=None, message=None):
        """Reports progress, if the client asked for it; True if sent."""
        return self.invocation.report_progress(progress, -1 if total is None else total, message)

    def log(self, level, message, logger=None):
        """Sends a log message at @level ('debug', 'info', ... or a
        Snodo.LogLevel); @message is a str or any JSON value."""
        if isinstance(level, str):
            if level not in _LEVELS:
                raise ValueError('%r is not a log level: use one of %s' % (level, ', '.join(_LEVELS)))
            level = Snodo.LogLevel(_LEVELS.index(level))
        if isinstance(message, str):
            return self.invocation.log_text(level, logger, message)
        return self.invocation.log(level, logger, to_json(message))

    def debug(self, message, logger=None):
        return self.log('debug', message, logger)

    def info(self, message, logger=None):
        return self.log('info', message, logger)

    def warning(self, message, logger=None):
        return self.log('warning', message, logger)

    def error(self, message, logger=None):
        return self.log('error', message, logger)

    # Asking the client: operations to await.
    def _key(self, what):
        self._asked += 1
        return '%s-%d' % (what, self._asked)

    def elicit(self, message, schema=None):
        """Asks the user: @schema is a JSON Schema (a dict) for the answer,
        or a dataclass or TypedDict whose fields are asked, or a plain type
        (str, int, float, bool, Literal or an Enum) asked as one field,
        'value'. Await it for an ElicitResult whose data is the answer
        converted to that type (None unless accepted)."""
        if schema is None:
            requested, kind, wrapped = {'type': 'object', 'properties': {}}, None, False
        elif isinstance(schema, dict):
            requested, kind, wrapped = schema, None, False
        else:
            requested = schema_for(schema, 'the schema of elicit()')
            wrapped = requested.get('type') != 'object'
            if wrapped:
                requested = {'type': 'object', 'properties': {'value': requested}, 'required': ['value']}
            kind = schema

        def convert(answer):
            action = answer.get('action')
            content = answer.get('content')
            data = None
            if action == 'accept':
                data = content
                if kind is not None:
                    data = from_json(kind, content.get('value') if wrapped else content, 'the answer')
            return ElicitResult(action, content, data)

        return _Input(self.invocation, self._key('elicit'), 'elicitation/create',
                      {'message': message, 'requestedSchema': requested}, convert)

    def sample(self, messages, max_tokens=1000, system_prompt=None, temperature=None, **params):
        """Asks the client's model: @messages is a str (one user message) or
        a list of sampling messages. Await it for the CreateMessageResult,
        a dict."""
        if isinstance(messages, str):
            messages = [{'role': 'user', 'content': {'type': 'text', 'text': messages}}]
        request = {'messages': messages, 'maxTokens': max_tokens}
        if system_prompt is not None:
            request['systemPrompt'] = system_prompt
        if temperature is not None:
            request['temperature'] = temperature
        request.update(params)
        return _Input(self.invocation, self._key('sample'), 'sampling/createMessage', request, lambda a: a)

    def list_roots(self):
        """Asks the client for its roots. Await it for a list of dicts."""
        return _Input(self.invocation, self._key('roots'), 'roots/list', {},
                      lambda answer: answer.get('roots', []))


def print_failure(what, error):
    sys.stderr.write('Snodo-WARNING: %s failed: %s: %s\n' % (what, type(error).__name__, error))
    traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
