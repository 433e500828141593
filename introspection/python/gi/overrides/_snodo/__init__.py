# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# The short form of the Python overrides: tools, resources and prompts
# written as plain functions (server.tool(), server.resource(),
# server.prompt()), a Context for what they ask of the client, coroutines
# on the GLib main loop, and server.run(). Loaded by gi/overrides/Snodo.py,
# which calls install(); see introspection/python-and-javascript.md.

from . import context, functions, run
from .context import Cancelled, Context, ElicitResult, Operation, call_async, sleep
from .functions import Audio, EmbeddedResource, Image, ResourceLink, Text, ToolError
from .schema import SchemaError

# The names the short form adds to the Snodo module.
EXPORTS = {
    'ToolError': ToolError,
    'Context': Context,
    'ElicitResult': ElicitResult,
    'Cancelled': Cancelled,
    'Operation': Operation,
    'SchemaError': SchemaError,
    'Text': Text,
    'Image': Image,
    'Audio': Audio,
    'EmbeddedResource': EmbeddedResource,
    'ResourceLink': ResourceLink,
    'sleep': sleep,
    'call_async': call_async,
}


def _server_methods():
    def tool(self, func=None, **options):
        """Adds a function as a tool: @server.tool(), @server.tool(name=…)
        or server.tool(func). The input schema comes from its type hints,
        the description from its docstring; see python-and-javascript.md."""
        return functions.tool(self, func, **options)

    def resource(self, uri, func=None, **options):
        """Adds a function as a resource (a template when @uri has
        {variables}): @server.resource('demo://notes/{id}')."""
        return functions.resource(self, uri, func, **options)

    def prompt(self, func=None, **options):
        """Adds a function as a prompt: @server.prompt()."""
        return functions.prompt(self, func, **options)

    def middleware(self, func=None, *, method=None):
        """Installs a function as a middleware (see Server.add_middleware):
        @server.middleware, or @server.middleware(method='tools/call') for
        one method's requests only. The function is returned unchanged."""
        def install(f):
            self.add_middleware(method, f)
            return f
        return install(func) if func is not None else install

    def set_mask_errors(self, mask):
        """Whether a function's failure (other than Snodo.ToolError) is
        answered without the exception's type and message."""
        functions.set_mask_errors(self, mask)

    def run_(self, http=None, argv=None):
        """Serves until the end of input, or over HTTP: see run.run()."""
        return run.run(self, http, argv)
    run_.__name__ = 'run'

    return {'tool': tool, 'resource': resource, 'prompt': prompt, 'middleware': middleware,
            'set_mask_errors': set_mask_errors, 'run': run_}


def install(module_globals):
    """Adds the short form to the Snodo override module whose globals are
    @module_globals: the methods of Server, and the names of EXPORTS."""
    context.Snodo = _ModuleView(module_globals)
    server = module_globals['Server']
    for name, method in _server_methods().items():
        setattr(server, name, method)
    module_globals.update(EXPORTS)
    module_globals['__all__'].extend(EXPORTS)


class _ModuleView:
    """The Snodo module as the override sees it: its overridden classes
    first, then the introspected ones."""

    def __init__(self, module_globals):
        self._globals = module_globals

    def __getattr__(self, name):
        if name in self._globals and name in self._globals.get('__all__', ()):
            return self._globals[name]
        return getattr(self._globals['Snodo'], name)
