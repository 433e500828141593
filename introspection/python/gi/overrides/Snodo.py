# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# PyGObject overrides for Snodo: JSON as plain Python values (dict, list,
# str, int, float, bool, None) wherever the C API takes or gives a JsonNode
# or JsonObject, and handlers that always answer. Installed as
# gi/overrides/Snodo.py; see introspection/python-and-javascript.md.

import math
import sys
import traceback

from gi.repository import GLib, GObject, Json

from ..module import get_introspection_module
from ..overrides import override

Snodo = get_introspection_module('Snodo')

__all__ = ['to_json_node', 'from_json_node']

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1


def to_json_node(value):
    """Builds a Json.Node from a Python value: dict (with str keys), list or
    tuple, str, int (within 64 bits), finite float, bool or None. A
    Json.Node, Json.Object or Json.Array is taken as it is. Raises
    TypeError or ValueError for anything JSON cannot hold."""
    if isinstance(value, Json.Node):
        return value
    node = Json.Node.alloc()
    if value is None:
        node.init_null()
    elif isinstance(value, bool):
        node.init_boolean(value)
    elif isinstance(value, int):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError('%d does not fit in a 64-bit JSON integer' % value)
        node.init_int(value)
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError('%r is not a JSON number' % value)
        node.init_double(value)
    elif isinstance(value, str):
        if '\0' in value:
            raise ValueError('a JSON string for Snodo cannot hold U+0000')
        node.init_string(value)
    elif isinstance(value, dict):
        obj = Json.Object.new()
        for key, member in value.items():
            if not isinstance(key, str):
                raise TypeError('JSON object keys must be str, not %s' % type(key).__name__)
            obj.set_member(key, to_json_node(member))
        node.init_object(obj)
    elif isinstance(value, (list, tuple)):
        array = Json.Array.new()
        for element in value:
            array.add_element(to_json_node(element))
        node.init_array(array)
    elif isinstance(value, Json.Object):
        node.init_object(value)
    elif isinstance(value, Json.Array):
        node.init_array(value)
    else:
        raise TypeError('%s is not JSON: use dict, list, str, int, float, bool or None'
                        % type(value).__name__)
    return node


def _object_to_dict(obj):
    return {name: from_json_node(obj.get_member(name)) for name in obj.get_members() or []}


def from_json_node(node):
    """The Python value of a Json.Node (or Json.Object, or None)."""
    if node is None:
        return None
    if isinstance(node, Json.Object):
        return _object_to_dict(node)
    if isinstance(node, Json.Array):
        return [from_json_node(element) for element in node.get_elements() or []]
    kind = node.get_node_type()
    if kind == Json.NodeType.OBJECT:
        return _object_to_dict(node.get_object())
    if kind == Json.NodeType.ARRAY:
        return from_json_node(node.get_array())
    if kind == Json.NodeType.NULL:
        return None
    value_type = node.get_value_type()
    if value_type == GObject.TYPE_INT64:
        return node.get_int()
    if value_type == GObject.TYPE_DOUBLE:
        return node.get_double()
    if value_type == GObject.TYPE_BOOLEAN:
        return node.get_boolean()
    return node.get_string()


def _node_or_none(value):
    return None if value is None else to_json_node(value)


def _guard(kind, name, func):
    """Wraps a handler: if it raises before answering, the request is
    answered at once (see _answer_exception)."""
    if func is None:
        return None

    def handler(invocation, *user_data):
        try:
            func(invocation, *user_data)
        except Exception as error:  # noqa: BLE001 - any failure must be answered
            _answer_exception(invocation, kind, name, error)
    return handler


def _answer_exception(invocation, kind, name, error):
    """Answers for a handler that raised @error. An error of Snodo's own
    that the handler let through (the input_required error or an error of
    the Snodo.RpcError domain, such as the missing client capability of
    request_input_finish()) is answered as return_gerror() answers it, as
    a handler in C passes it on; anything else is error -32603, with the
    traceback on stderr."""
    if isinstance(error, GLib.Error) and (
            error.matches(Snodo.error_quark(), Snodo.Error.INPUT_REQUIRED) or
            error.domain == GLib.quark_to_string(Snodo.rpc_error_quark())):
        if not invocation.get_answered():
            invocation.return_gerror(error)
        return
    _answer_failure(invocation, kind, name, error)


def _answer_failure(invocation, kind, name, error):
    message = 'The handler of %s %r failed: %s: %s' % (
        kind, name if name is not None else invocation.get_name(), type(error).__name__, error)
    sys.stderr.write('Snodo-WARNING: %s\n' % message)
    traceback.print_exception(type(error), error, error.__traceback__, file=sys.stderr)
    if not invocation.get_answered():
        invocation.return_error_literal(Snodo.rpc_error_quark(), Snodo.RpcError.INTERNAL_ERROR, message)


class Server(Snodo.Server):
    def add_tool(self, tool, func, *user_data):
        return super().add_tool(tool, _guard('tool', tool.get_name() if tool else None, func), *user_data)

    def add_resource(self, resource, func, *user_data):
        return super().add_resource(resource,
                                    _guard('resource', resource.get_uri() if resource else None, func),
                                    *user_data)

    def add_resource_template(self, resource_template, func, *user_data):
        name = resource_template.get_uri_template() if resource_template else None
        return super().add_resource_template(resource_template, _guard('resource template', name, func),
                                             *user_data)

    def add_prompt(self, prompt, func, *user_data):
        return super().add_prompt(prompt, _guard('prompt', prompt.get_name() if prompt else None, func),
                                  *user_data)

    def set_completion_func(self, func, *user_data):
        return super().set_completion_func(_guard('completion', 'completion/complete', func), *user_data)

    def add_method(self, method, params_schema, func, *user_data):
        """Serves @method (vendor/name), a method of the application's own:
        @func(invocation, *user_data) answers it; @params_schema is a dict
        (a JSON Schema its params must fit) or None."""
        return super().add_method(method, _node_or_none(params_schema), _guard('method', method, func),
                                  *user_data)

    def set_forward_func(self, func, *user_data):
        """Makes a forwarding server: @func(invocation, *user_data) answers
        every request, with invocation.return_forwarded()."""
        return super().set_forward_func(_guard('forwarded request', None, func), *user_data)

    def add_notification_handler(self, method, params_schema, func, *user_data):
        """Calls @func(server, method, params, *user_data), params a dict,
        for every notification @method of the application's own."""
        def handler(server, name, params, *data):
            try:
                func(server, name, from_json_node(params), *data)
            except Exception:  # noqa: BLE001 - a notification has no answer to fail
                sys.stderr.write('Snodo-WARNING: the handler of notification %r failed\n' % name)
                traceback.print_exc(file=sys.stderr)
        return super().add_notification_handler(method, _node_or_none(params_schema), handler, *user_data)

    def set_icons(self, icons):
        """Sets the icons of serverInfo, a list of dicts (None for none)."""
        return super().set_icons(_node_or_none(icons))

    def get_icons(self):
        return from_json_node(super().get_icons())

    def dup_server_json(self, registry_name):
        """The MCP Registry's server.json of the server, as a dict."""
        return from_json_node(super().dup_server_json(registry_name))

    def add_extension(self, name, settings=None):
        """Advertises an extension; @settings is a dict (None for {})."""
        return super().add_extension(name, _node_or_none(settings))

    def get_extension(self, name):
        """The settings of an advertised extension, as a dict, or None."""
        return from_json_node(super().get_extension(name))

    def add_app(self, tool, resource, html, ui=None):
        """Gives @tool a view: @resource (a ui:// resource) serving @html;
        @ui is a dict of the view's _meta.ui settings, or None."""
        return super().add_app(tool, resource, html, _node_or_none(ui))

    def add_request_hook(self, func, *user_data):
        """Installs @func(invocation, *user_data), called with every request
        before it is admitted. If it raises, the request is refused with
        error -32603 (a hook that decides who may call what fails closed)."""
        def hook(invocation, *data):
            try:
                func(invocation, *data)
            except Exception as error:  # noqa: BLE001 - the request must be refused
                message = 'A request hook failed: %s: %s' % (type(error).__name__, error)
                sys.stderr.write('Snodo-WARNING: %s\n' % message)
                traceback.print_exc(file=sys.stderr)
                invocation.reject(Snodo.RpcError.INTERNAL_ERROR, message)
        return super().add_request_hook(hook, *user_data)

    def add_answer_hook(self, func, *user_data):
        """Installs @func(invocation, answer, *user_data), called with every
        answer before it is written; @answer is the JSON-RPC message as a
        dict. What it raises is reported on stderr; the answer goes out."""
        def hook(invocation, answer, *data):
            try:
                func(invocation, from_json_node(answer), *data)
            except Exception:  # noqa: BLE001 - the answer is written all the same
                sys.stderr.write('Snodo-WARNING: an answer hook failed\n')
                traceback.print_exc(file=sys.stderr)
        return super().add_answer_hook(hook, *user_data)

    def add_answer_view_hook(self, func, *user_data):
        """Installs @func(invocation, answer, *user_data), called with every
        answer before it is written; @answer is a Snodo.Answer (the line,
        is_error(), get_error_code(), get_id(), get_tree() parsed only if
        called). What it raises is reported on stderr; the answer goes out."""
        def hook(invocation, answer, *data):
            try:
                func(invocation, answer, *data)
            except Exception:  # noqa: BLE001 - the answer is written all the same
                sys.stderr.write('Snodo-WARNING: an answer hook failed\n')
                traceback.print_exc(file=sys.stderr)
        return super().add_answer_view_hook(hook, *user_data)

    def add_middleware(self, method, func, *user_data):
        """Installs @func(invocation, next, *user_data) around the handlers of
        @method (None: every request). It answers the invocation itself, or
        passes it on with next.call(invocation, done, *data), and then
        done(next, invocation, answer, *data) answers it: with
        invocation.return_answer(answer), another answer, or next.call()
        again. What @func or done raise before the request is passed on or
        answered is answered with error -32603 (traceback on stderr)."""
        def middleware(invocation, next_, *data):
            proxy = _MiddlewareNext(next_)
            try:
                func(invocation, proxy, *data)
            except Exception as error:  # noqa: BLE001 - the request must be answered
                _middleware_failed(invocation, proxy, error)
        return super().add_middleware(method, middleware, *user_data)


Server = override(Server)
__all__.append('Server')


class _MiddlewareNext:
    """What a Python middleware is given as next: Snodo.MiddlewareNext, and
    whether the request is passed on (then a failure of the middleware
    leaves it to what comes next)."""

    def __init__(self, next_):
        self._next = next_
        self.passed = False

    def call(self, invocation, done, *user_data):
        def finished(_next, inv, answer, *data):
            self.passed = False
            try:
                done(self, inv, answer, *data)
            except Exception as error:  # noqa: BLE001 - the request must be answered
                _middleware_failed(inv, self, error)
        self.passed = True
        self._next.call(invocation, finished, *user_data)


def _middleware_failed(invocation, proxy, error):
    message = 'Internal error: a middleware failed: %s: %s' % (type(error).__name__, error)
    sys.stderr.write('Snodo-WARNING: %s\n' % message)
    traceback.print_exc(file=sys.stderr)
    if not proxy.passed and not invocation.get_answered():
        invocation.return_error_literal(Snodo.rpc_error_quark(), Snodo.RpcError.INTERNAL_ERROR, message)


class Invocation(Snodo.Invocation):
    def get_arguments(self):
        """The arguments of the request, as a dict."""
        return from_json_node(super().get_arguments())

    def get_variables(self):
        """The variables of a resource template's URI, as a dict."""
        return from_json_node(super().get_variables())

    def get_params(self):
        """The params of the request, as a dict."""
        return from_json_node(super().get_params())

    def dup_client_capabilities(self):
        return from_json_node(super().dup_client_capabilities())

    def return_result(self, result):
        """Answers with @result, a dict (for a tool, a CallToolResult)."""
        return super().return_result(to_json_node(result))

    def notify(self, method, params=None):
        """Sends the notification @method with @params, a dict, related to
        the request."""
        return super().notify(method, _object_or_none(params))

    def return_structured(self, value):
        """Answers a tool call with @value (any JSON value) as its
        structuredContent, and its JSON text as the content."""
        return super().return_structured(to_json_node(value))

    def return_prompt(self, description, messages):
        return super().return_prompt(description, to_json_node(messages))

    def log(self, level, logger, data):
        return super().log(level, logger, to_json_node(data))

    def request_input_async(self, key, method, params, cancellable, callback, *user_data):
        """Asks the client for input; @callback(invocation, result,
        *user_data) is guarded as handlers are: what it raises answers the
        request (an error of request_input_finish() let through is
        answered as return_gerror() would)."""
        def answered(invocation, result, *data):
            try:
                callback(invocation, result, *data)
            except Exception as error:  # noqa: BLE001 - any failure must be answered
                _answer_exception(invocation, 'request', None, error)
        return super().request_input_async(key, method, _node_or_none(params), cancellable,
                                           answered if callback is not None else None, *user_data)

    def request_input_finish(self, result):
        """The client's answer, as a dict."""
        return from_json_node(super().request_input_finish(result))

    def get_id(self):
        """The request's id, as the client sent it (a str or an int)."""
        return from_json_node(super().get_id())

    def return_forwarded(self, answer):
        """Answers with @answer, a dict holding 'result' or 'error', as
        another server answered."""
        return super().return_forwarded(_object_or_none(answer))

    def set_annotation(self, key, value):
        """In a request hook: attaches @value (any JSON value; None removes
        it) for the handler."""
        return super().set_annotation(key, _node_or_none(value))

    def get_annotation(self, key):
        """What a request hook attached under @key, or None."""
        return from_json_node(super().get_annotation(key))


Invocation = override(Invocation)


class Answer(Snodo.Answer):
    def get_tree(self):
        """The answer parsed, as a dict (parsed on the first call)."""
        return from_json_node(super().get_tree())

    def get_id(self):
        """The id of the request answered (int, str or None)."""
        return from_json_node(super().get_id())


Answer = override(Answer)
__all__.append('Answer')
__all__.append('Invocation')


def _json_accessors(cls, names):
    """Gives @cls's get_<name>/set_<name> pairs Python values."""
    for name in names:
        getter = getattr(cls, 'get_' + name)
        setter = getattr(cls, 'set_' + name)

        def get(self, _getter=getter):
            return from_json_node(_getter(self))

        def set_(self, value, *rest, _setter=setter):
            return _setter(self, _node_or_none(value), *rest)

        get.__name__ = 'get_' + name
        get.__doc__ = 'The %s, as Python values (None if unset).' % name.replace('_', ' ')
        set_.__name__ = 'set_' + name
        set_.__doc__ = 'Sets the %s from Python values (None to unset).' % name.replace('_', ' ')
        setattr(cls, 'get_' + name, get)
        setattr(cls, 'set_' + name, set_)


def _json_construction(cls, names):
    """Lets @cls(prop=value, ...) take Python values for the JSON
    properties @names, as their setters do."""
    spellings = {spelling: name for name in names for spelling in (name, name.replace('_', '-'))}
    init = cls.__init__

    def __init__(self, *args, **properties):
        for key, value in properties.items():
            if key in spellings:
                properties[key] = _node_or_none(value)
        init(self, *args, **properties)

    cls.__init__ = __init__


class Description(Snodo.Description):
    pass


_json_accessors(Description, ['icons', 'meta'])
_json_construction(Description, ['icons', 'meta'])
Description = override(Description)
__all__.append('Description')


class Tool(Snodo.Tool):
    pass


_json_accessors(Tool, ['input_schema', 'output_schema', 'annotations', 'icons'])
_json_construction(Tool, ['input_schema', 'output_schema', 'annotations', 'icons', 'meta'])
Tool = override(Tool)
__all__.append('Tool')


class Resource(Snodo.Resource):
    pass


_json_accessors(Resource, ['annotations', 'icons'])
_json_construction(Resource, ['annotations', 'icons', 'meta'])
Resource = override(Resource)
__all__.append('Resource')


class ResourceTemplate(Snodo.ResourceTemplate):
    def expand(self, values=None):
        """The URI for @values, a dict of str, int, float, bool, or lists
        and dicts of those (RFC 6570 expansion)."""
        return super().expand(_object_or_none(values))


_json_accessors(ResourceTemplate, ['annotations', 'icons'])
_json_construction(ResourceTemplate, ['annotations', 'icons', 'meta'])
ResourceTemplate = override(ResourceTemplate)
__all__.append('ResourceTemplate')


class Prompt(Snodo.Prompt):
    def get_arguments(self):
        """The prompt's arguments, as a list of dicts."""
        return from_json_node(super().get_arguments())


_json_accessors(Prompt, ['icons'])
_json_construction(Prompt, ['icons', 'meta'])
Prompt = override(Prompt)
__all__.append('Prompt')


def _object_or_none(value):
    if value is None:
        return None
    if isinstance(value, Json.Object):
        return value
    if not isinstance(value, dict):
        raise TypeError('%s is not a JSON object: use a dict' % type(value).__name__)
    return to_json_node(value).get_object()


class Client(Snodo.Client):
    """SnodoClient with dicts and lists for JSON."""

    def get_capabilities(self):
        return from_json_node(super().get_capabilities())

    def set_capabilities(self, capabilities):
        """What the client declares, a dict such as {'elicitation': {}}."""
        return super().set_capabilities(_object_or_none(capabilities))

    def get_server_info(self):
        return from_json_node(super().get_server_info())

    def get_server_capabilities(self):
        return from_json_node(super().get_server_capabilities())

    def request_async(self, method, params, cancellable, callback, *user_data):
        return super().request_async(method, _object_or_none(params), cancellable, callback, *user_data)

    def request_finish(self, result):
        return from_json_node(super().request_finish(result))

    def call_tool_async(self, name, arguments, cancellable, callback, *user_data):
        return super().call_tool_async(name, _object_or_none(arguments), cancellable, callback, *user_data)

    def call_tool_finish(self, result):
        return from_json_node(super().call_tool_finish(result))

    def get_prompt_async(self, name, arguments, cancellable, callback, *user_data):
        return super().get_prompt_async(name, _object_or_none(arguments), cancellable, callback, *user_data)

    def get_prompt_finish(self, result):
        return from_json_node(super().get_prompt_finish(result))

    def read_resource_finish(self, result):
        return from_json_node(super().read_resource_finish(result))

    def list_tools_finish(self, result):
        return from_json_node(super().list_tools_finish(result))

    def list_resources_finish(self, result):
        return from_json_node(super().list_resources_finish(result))

    def list_resource_templates_finish(self, result):
        return from_json_node(super().list_resource_templates_finish(result))

    def list_prompts_finish(self, result):
        return from_json_node(super().list_prompts_finish(result))

    def list_skills_finish(self, result):
        return from_json_node(super().list_skills_finish(result))

    def get_skill_finish(self, result):
        return from_json_node(super().get_skill_finish(result))

    def read_skill_file_async(self, skill, uri, cancellable, callback, *user_data):
        return super().read_skill_file_async(_object_or_none(skill), uri, cancellable, callback, *user_data)

    def read_directory_finish(self, result):
        return from_json_node(super().read_directory_finish(result))

    def complete_async(self, ref, argument, value, context_arguments, cancellable, callback, *user_data):
        return super().complete_async(_object_or_none(ref), argument, value, _object_or_none(context_arguments),
                                      cancellable, callback, *user_data)

    def complete_finish(self, result):
        return from_json_node(super().complete_finish(result))

    def listen_async(self, notifications, cancellable, callback, *user_data):
        return super().listen_async(_object_or_none(notifications), cancellable, callback, *user_data)

    def listen_finish(self, result):
        return from_json_node(super().listen_finish(result))


Client = override(Client)
__all__.append('Client')


class ServerRequest(Snodo.ServerRequest):
    """A request of the server for the application, with dicts."""

    def get_params(self):
        return from_json_node(super().get_params())

    def return_result(self, result):
        """Answers with @result, a dict (an ElicitResult, for instance)."""
        return super().return_result(_object_or_none(result))


ServerRequest = override(ServerRequest)
__all__.append('ServerRequest')


class Session(Snodo.Session):
    """A client's connection to a forwarding server, with dicts."""

    def notify(self, method, params=None):
        """Sends the notification @method with @params, a dict."""
        return super().notify(method, _object_or_none(params))

    def request_async(self, method, params, cancellable, callback, *user_data):
        return super().request_async(method, _object_or_none(params), cancellable, callback, *user_data)

    def request_finish(self, result):
        """The client's result, as a dict."""
        return from_json_node(super().request_finish(result))


Session = override(Session)
__all__.append('Session')


# The short form: tools, resources and prompts from plain functions, and
# server.run() (gi/overrides/_snodo/).
from ._snodo import install as _install_short_form  # noqa: E402

_install_short_form(globals())
