# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Tools, resources and prompts from plain functions: server.tool(),
# server.resource() and server.prompt(). The schema comes from the type
# hints and the description from the docstring; the arguments arrive as
# keyword arguments of the annotated types; the return value becomes the
# result; ToolError and other exceptions become failed results.

import base64
import dataclasses
import inspect
import json
import re
import typing

from gi.repository import GLib

from . import context
from .context import Cancelled, Context, print_failure, run_coroutine
from .schema import SchemaError, from_json, parse_docstring, schema_for, to_json

__all__ = ['ToolError', 'Text', 'Image', 'Audio', 'EmbeddedResource', 'ResourceLink',
           'tool', 'resource', 'prompt', 'set_mask_errors']


class ToolError(Exception):
    """Raised by a tool function: the call is answered with a failed result
    (isError: true) whose text is the message, for the model to read."""


class _Content:
    def to_block(self):
        raise NotImplementedError


@dataclasses.dataclass
class Text(_Content):
    """A text content block."""
    text: str

    def to_block(self):
        return {'type': 'text', 'text': self.text}


def _base64(data):
    if isinstance(data, str):
        return data
    return base64.b64encode(bytes(data)).decode('ascii')


@dataclasses.dataclass
class Image(_Content):
    """An image content block: @data is the bytes of the image (or their
    base64 text), @mime_type its type, such as 'image/png'."""
    data: bytes
    mime_type: str = 'image/png'

    def to_block(self):
        return {'type': 'image', 'data': _base64(self.data), 'mimeType': self.mime_type}


@dataclasses.dataclass
class Audio(_Content):
    """An audio content block: @data is the bytes of the sound (or their
    base64 text), @mime_type its type, such as 'audio/wav'."""
    data: bytes
    mime_type: str = 'audio/wav'

    def to_block(self):
        return {'type': 'audio', 'data': _base64(self.data), 'mimeType': self.mime_type}


@dataclasses.dataclass
class EmbeddedResource(_Content):
    """A resource embedded in a result: its @uri and either @text or
    @blob (bytes)."""
    uri: str
    text: str = None
    blob: bytes = None
    mime_type: str = None

    def to_block(self):
        contents = {'uri': self.uri}
        if self.mime_type is not None:
            contents['mimeType'] = self.mime_type
        if self.blob is not None:
            contents['blob'] = _base64(self.blob)
        else:
            contents['text'] = self.text or ''
        return {'type': 'resource', 'resource': contents}


@dataclasses.dataclass
class ResourceLink(_Content):
    """A link to a resource, in a result."""
    uri: str
    name: str
    description: str = None
    mime_type: str = None

    def to_block(self):
        block = {'type': 'resource_link', 'uri': self.uri, 'name': self.name}
        if self.description is not None:
            block['description'] = self.description
        if self.mime_type is not None:
            block['mimeType'] = self.mime_type
        return block


def set_mask_errors(server, mask):
    """Whether a failure other than ToolError shows only that the function
    failed (True), or also the exception's type and message (False, the
    default). The traceback goes to stderr either way."""
    server._snodo_mask_errors = bool(mask)


def _masked(server):
    return getattr(server, '_snodo_mask_errors', False)


def _is_context(annotation):
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return isinstance(annotation, type) and issubclass(annotation, Context)


class _Signature:
    """What a function's signature says: its parameters (with schemas),
    which one takes the Context, its return annotation."""

    def __init__(self, func, kind, name):
        self.func = func
        try:
            hints = typing.get_type_hints(func, include_extras=True)
        except Exception as error:  # noqa: BLE001 - a hint that does not resolve
            raise SchemaError('the type hints of %s %r do not resolve: %s' % (kind, name, error)) from None
        signature = inspect.signature(func)
        self.description, docs = parse_docstring(inspect.getdoc(func))
        self.context = None
        self.params = []  # (name, annotation, default)
        properties = {}
        required = []
        for param in signature.parameters.values():
            annotation = hints.get(param.name, inspect.Parameter.empty)
            if _is_context(annotation):
                self.context = param.name
                continue
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise SchemaError('parameter %r of %s %r: *args and **kwargs have no JSON Schema'
                                  % (param.name, kind, name))
            if param.kind is param.POSITIONAL_ONLY:
                raise SchemaError('parameter %r of %s %r is positional-only: arguments come by name'
                                  % (param.name, kind, name))
            schema = dict(schema_for(annotation, 'parameter %r of %s %r' % (param.name, kind, name)))
            if 'description' not in schema and param.name in docs:
                schema['description'] = docs[param.name]
            if param.default is inspect.Parameter.empty:
                required.append(param.name)
            else:
                try:
                    schema['default'] = to_json(param.default)
                    json.dumps(schema['default'], allow_nan=False)
                except (TypeError, ValueError):
                    del schema['default']
            properties[param.name] = schema
            self.params.append((param.name, annotation, param.default))
        self.input_schema = {'type': 'object', 'properties': properties}
        if required:
            self.input_schema['required'] = required
        self.returns = hints.get('return', inspect.Parameter.empty)

    def output_schema(self, kind, name):
        """The schema of the structured result, if the return annotation
        has one of type object."""
        annotation = self.returns
        if annotation is inspect.Parameter.empty or annotation is None or annotation is type(None):
            return None
        try:
            schema = schema_for(annotation, 'the return value of %s %r' % (kind, name))
        except SchemaError:
            return None
        return schema if schema.get('type') == 'object' else None

    def arguments(self, values, invocation, convert=from_json):
        """The keyword arguments for a call with @values (a dict)."""
        kwargs = {}
        for name, annotation, default in self.params:
            if name in values:
                kwargs[name] = convert(annotation, values[name], name)
            elif default is inspect.Parameter.empty:
                raise ValueError('%s is required' % name)
        if self.context is not None:
            kwargs[self.context] = Context(invocation)
        return kwargs


def _call(func, kwargs, invocation, done):
    """Calls @func; done(value, error) with what it returns or raises, at
    once for a plain function, at the coroutine's end for an async one."""
    try:
        returned = func(**kwargs)
    except BaseException as error:  # noqa: BLE001 - answered with it
        if isinstance(error, (KeyboardInterrupt, SystemExit)):
            raise
        done(None, error)
        return
    if inspect.iscoroutine(returned):
        run_coroutine(returned, invocation.get_cancellable(), done)
    else:
        done(returned, None)


def _answer_common_failure(invocation, error):
    """Answers for the failures every kind shares; True if it answered."""
    if invocation.get_answered():
        return True
    if isinstance(error, GLib.Error) and error.matches(context.Snodo.error_quark(),
                                                        context.Snodo.Error.INPUT_REQUIRED):
        invocation.return_gerror(error)
        return True
    if isinstance(error, Cancelled):
        # Not sent: the client gave the request up.
        invocation.return_error_literal(context.Snodo.rpc_error_quark(),
                                        context.Snodo.RpcError.INTERNAL_ERROR, 'Cancelled')
        return True
    return False


def _failure_message(server, kind, name, error):
    print_failure('%s %r' % (kind, name), error)
    if _masked(server):
        return 'The %s %r failed' % (kind, name)
    return '%s: %s' % (type(error).__name__, error)


def tool_result(value):
    """The CallToolResult for a tool function's return value, as
    (result dict, structured value or None)."""
    if value is None:
        return {'content': []}, None
    if isinstance(value, str):
        return {'content': [{'type': 'text', 'text': value}]}, None
    if isinstance(value, (bool, int, float)):
        return {'content': [{'type': 'text', 'text': json.dumps(value, allow_nan=False)}]}, None
    if isinstance(value, _Content):
        return {'content': [value.to_block()]}, None
    if isinstance(value, (list, tuple)) and value and all(isinstance(item, _Content) for item in value):
        return {'content': [item.to_block() for item in value]}, None
    if isinstance(value, (bytes, bytearray)):
        raise TypeError('a tool returns bytes as Snodo.Image(), Snodo.Audio() or Snodo.EmbeddedResource()')
    return None, to_json(value)


def tool(server, func=None, *, name=None, title=None, description=None, annotations=None,
         task_support=None, handler_timeout=None, run_in_thread=False, output_schema=None,
         icons=None, meta=None):
    """Adds @func as a tool: server.tool(func), or as a decorator,
    @server.tool() or @server.tool(name=...). Returns @func."""
    if run_in_thread:
        raise ValueError('a tool written in Python runs on the main context, not in a thread: '
                         'make it async and await what it waits for')

    def register(func):
        tool_name = name or func.__name__
        signature = _Signature(func, 'tool', tool_name)
        item = context.Snodo.Tool.new(tool_name, description or signature.description)
        item.set_input_schema(signature.input_schema)
        schema = output_schema if output_schema is not None else signature.output_schema('tool', tool_name)
        if schema is not None:
            item.set_output_schema(schema)
        if title is not None:
            item.set_title(title)
        if annotations is not None:
            item.set_annotations(annotations)
        if icons is not None:
            item.set_icons(icons)
        if meta is not None:
            item.set_meta(meta)
        if task_support is not None:
            if isinstance(task_support, str):
                task_support_value = getattr(context.Snodo.TaskSupport, task_support.upper())
            else:
                task_support_value = task_support
            item.set_task_support(task_support_value)
        if handler_timeout is not None:
            item.set_handler_timeout(handler_timeout)

        def handler(invocation):
            try:
                kwargs = signature.arguments(invocation.get_arguments(), invocation)
            except ValueError as error:
                invocation.return_tool_error('Invalid arguments: %s' % error)
                return

            def done(value, error):
                if error is None:
                    if invocation.get_answered():
                        return
                    try:
                        result, structured = tool_result(value)
                    except (TypeError, ValueError) as failure:
                        error = failure
                    else:
                        if structured is not None:
                            invocation.return_structured(structured)
                        else:
                            invocation.return_result(result)
                        return
                if _answer_common_failure(invocation, error):
                    return
                if isinstance(error, ToolError):
                    invocation.return_tool_error(str(error))
                else:
                    invocation.return_tool_error(_failure_message(server, 'tool', tool_name, error))
            _call(func, kwargs, invocation, done)

        server.add_tool(item, handler)
        return func

    if func is not None:
        return register(func)
    return register


def _from_text(annotation, value, where):
    """A URI variable or a prompt argument (a string) as @annotation."""
    base = annotation
    if typing.get_origin(base) is typing.Annotated:
        base = typing.get_args(base)[0]
    try:
        if base is int:
            return int(value)
        if base is float:
            return float(value)
    except ValueError:
        raise ValueError('%s must be a number, not %r' % (where, value)) from None
    if base is bool:
        if value.lower() in ('true', '1', 'yes'):
            return True
        if value.lower() in ('false', '0', 'no'):
            return False
        raise ValueError('%s must be true or false, not %r' % (where, value))
    return from_json(annotation, value, where)


def _text_params_error(signature, kind, name):
    for param, annotation, _default in signature.params:
        base = annotation
        if typing.get_origin(base) is typing.Annotated:
            base = typing.get_args(base)[0]
        schema = schema_for(base, 'parameter %r of %s %r' % (param, kind, name))
        if schema.get('type') in ('object', 'array') or 'anyOf' in schema and \
                any(member.get('type') in ('object', 'array') for member in schema['anyOf']):
            raise SchemaError('parameter %r of %s %r: its value comes as text, so it takes a str, int, '
                              'float, bool, Literal or an Enum' % (param, kind, name))


_VARIABLE = re.compile(r'\{[+#./;?&]?([^}]*)\}')


def resource(server, uri, func=None, *, name=None, title=None, description=None, mime_type=None,
             annotations=None, icons=None, meta=None):
    """Adds @func as a resource at @uri (a decorator when @func is not
    given). A URI with {variables} is a template, whose variables are
    @func's parameters. The return value is the content: a str as text,
    bytes as a blob, any other JSON value as JSON text; None is 'not
    found'."""

    def register(func):
        resource_name = name or func.__name__
        signature = _Signature(func, 'resource', uri)
        variables = set()
        for match in _VARIABLE.finditer(uri):
            variables.update(part.split(':')[0].rstrip('*') for part in match.group(1).split(','))
        params = {param for param, _annotation, _default in signature.params}
        if params - variables:
            raise SchemaError('resource %r: parameter %s is not a variable of the URI'
                              % (uri, ', '.join(sorted(params - variables))))
        if variables - params:
            raise SchemaError('resource %r: the URI variable %s is not a parameter of %s()'
                              % (uri, ', '.join(sorted(variables - params)), func.__name__))
        _text_params_error(signature, 'resource', uri)
        if variables:
            item = context.Snodo.ResourceTemplate.new(uri, resource_name)
        else:
            item = context.Snodo.Resource.new(uri, resource_name)
        if description or signature.description:
            item.set_description(description or signature.description)
        if title is not None:
            item.set_title(title)
        if mime_type is not None:
            item.set_mime_type(mime_type)
        if annotations is not None:
            item.set_annotations(annotations)
        if icons is not None:
            item.set_icons(icons)
        if meta is not None:
            item.set_meta(meta)

        def handler(invocation):
            try:
                kwargs = signature.arguments(invocation.get_variables() or {}, invocation, _from_text)
            except ValueError:
                invocation.return_resource_not_found()
                return

            def done(value, error):
                if error is None:
                    if invocation.get_answered():
                        return
                    if value is None:
                        invocation.return_resource_not_found()
                    elif isinstance(value, (bytes, bytearray, GLib.Bytes)):
                        blob = value if isinstance(value, GLib.Bytes) else GLib.Bytes.new(bytes(value))
                        invocation.return_resource_blob(None, mime_type or 'application/octet-stream', blob)
                    elif isinstance(value, str):
                        invocation.return_resource_text(None, mime_type or 'text/plain', value)
                    else:
                        try:
                            text = json.dumps(to_json(value), ensure_ascii=False, allow_nan=False,
                                              separators=(',', ':'))
                        except (TypeError, ValueError) as failure:
                            error = failure
                        else:
                            invocation.return_resource_text(None, mime_type or 'application/json', text)
                            return
                    if error is None:
                        return
                if _answer_common_failure(invocation, error):
                    return
                invocation.return_error_literal(context.Snodo.rpc_error_quark(),
                                                context.Snodo.RpcError.INTERNAL_ERROR,
                                                _failure_message(server, 'resource', uri, error))
            _call(func, kwargs, invocation, done)

        if variables:
            server.add_resource_template(item, handler)
        else:
            server.add_resource(item, handler)
        return func

    if func is not None:
        return register(func)
    return register


def _message(item):
    if isinstance(item, str):
        return {'role': 'user', 'content': {'type': 'text', 'text': item}}
    if isinstance(item, _Content):
        return {'role': 'user', 'content': item.to_block()}
    return to_json(item)


def prompt(server, func=None, *, name=None, title=None, description=None, icons=None, meta=None):
    """Adds @func as a prompt: its parameters are the prompt's arguments
    (required unless they have a default); it returns a str (one user
    message) or a list of messages (dicts, or strs as user messages)."""

    def register(func):
        prompt_name = name or func.__name__
        signature = _Signature(func, 'prompt', prompt_name)
        _text_params_error(signature, 'prompt', prompt_name)
        item = context.Snodo.Prompt.new(prompt_name, description or signature.description)
        for param, _annotation, default in signature.params:
            item.add_argument(param, signature.input_schema['properties'][param].get('description'),
                              default is inspect.Parameter.empty)
        if title is not None:
            item.set_title(title)
        if icons is not None:
            item.set_icons(icons)
        if meta is not None:
            item.set_meta(meta)

        def handler(invocation):
            try:
                kwargs = signature.arguments(invocation.get_arguments() or {}, invocation, _from_text)
            except ValueError as error:
                invocation.return_error_literal(context.Snodo.rpc_error_quark(),
                                                context.Snodo.RpcError.INVALID_PARAMS,
                                                'Invalid arguments: %s' % error)
                return

            def done(value, error):
                if error is None:
                    if invocation.get_answered():
                        return
                    messages = [value] if isinstance(value, (str, dict, _Content)) else list(value or [])
                    try:
                        invocation.return_prompt(None, [_message(item) for item in messages])
                        return
                    except (TypeError, ValueError) as failure:
                        error = failure
                if _answer_common_failure(invocation, error):
                    return
                invocation.return_error_literal(context.Snodo.rpc_error_quark(),
                                                context.Snodo.RpcError.INTERNAL_ERROR,
                                                _failure_message(server, 'prompt', prompt_name, error))
            _call(func, kwargs, invocation, done)

        server.add_prompt(item, handler)
        return func

    if func is not None:
        return register(func)
    return register
