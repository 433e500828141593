# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# Type hints to JSON Schema, and JSON values to and from the annotated
# Python types: the part of the short form (server.tool() and friends)
# that reads a function's signature.

import collections.abc
import dataclasses
import enum
import inspect
import re
import types
import typing

__all__ = ['SchemaError', 'schema_for', 'from_json', 'to_json', 'parse_docstring']


class SchemaError(TypeError):
    """An annotation that has no JSON Schema."""


_NONE_TYPE = type(None)
_SIMPLE = {str: 'string', int: 'integer', float: 'number', bool: 'boolean'}
_SEQUENCES = (list, set, frozenset, collections.abc.Sequence)


def _is_typeddict(annotation):
    return isinstance(annotation, type) and issubclass(annotation, dict) and \
        hasattr(annotation, '__required_keys__') and hasattr(annotation, '__annotations__')


def _is_union(origin):
    return origin is typing.Union or origin is types.UnionType


def _hints(cls):
    return typing.get_type_hints(cls, include_extras=True)


def _typed_enum(values):
    schema = {}
    kinds = {type(value) for value in values}
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind in _SIMPLE:
            schema['type'] = _SIMPLE[kind]
        elif kind is _NONE_TYPE:
            schema['type'] = 'null'
    schema['enum'] = list(values)
    return schema


def schema_for(annotation, where, _seen=()):
    """The JSON Schema of @annotation, a type hint; @where names the
    parameter for the error raised when the hint has none."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any or annotation is object:
        return {}
    if annotation is None or annotation is _NONE_TYPE:
        return {'type': 'null'}
    if isinstance(annotation, type) and annotation in _SIMPLE:
        return {'type': _SIMPLE[annotation]}
    if annotation is list or annotation is tuple:
        return {'type': 'array'}
    if annotation is dict:
        return {'type': 'object'}

    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        schema = dict(schema_for(args[0], where, _seen))
        for extra in args[1:]:
            if isinstance(extra, str):
                schema['description'] = extra
            elif isinstance(extra, dict):
                schema.update(extra)
        return schema
    if _is_union(origin):
        members = [schema_for(arg, where, _seen) for arg in args]
        return {'anyOf': members}
    if origin is typing.Literal:
        return _typed_enum(args)
    if origin in _SEQUENCES:
        schema = {'type': 'array'}
        if args:
            schema['items'] = schema_for(args[0], where, _seen)
        return schema
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {'type': 'array', 'items': schema_for(args[0], where, _seen)}
        if args == ((),):
            args = ()
        return {'type': 'array', 'prefixItems': [schema_for(arg, where, _seen) for arg in args],
                'minItems': len(args), 'maxItems': len(args)}
    if origin is dict:
        if args and args[0] is not str:
            raise SchemaError('%s: the keys of a JSON object are strings, not %s'
                              % (where, getattr(args[0], '__name__', args[0])))
        schema = {'type': 'object'}
        if args:
            schema['additionalProperties'] = schema_for(args[1], where, _seen)
        return schema

    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return _typed_enum([member.value for member in annotation])
    if annotation in _seen:
        raise SchemaError('%s: %s refers to itself, which a JSON Schema here cannot say'
                          % (where, annotation.__name__))
    if _is_typeddict(annotation):
        hints = _hints(annotation)
        schema = {'type': 'object',
                  'properties': {name: schema_for(hint, '%s.%s' % (where, name), _seen + (annotation,))
                                 for name, hint in hints.items()}}
        required = [name for name in hints if name in annotation.__required_keys__]
        if required:
            schema['required'] = required
        return schema
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        hints = _hints(annotation)
        properties = {}
        required = []
        for field in dataclasses.fields(annotation):
            prop = schema_for(hints.get(field.name, inspect.Parameter.empty),
                              '%s.%s' % (where, field.name), _seen + (annotation,))
            if field.default is not dataclasses.MISSING:
                prop = dict(prop, default=to_json(field.default))
            elif field.default_factory is dataclasses.MISSING:
                required.append(field.name)
            properties[field.name] = prop
        schema = {'type': 'object', 'properties': properties}
        if required:
            schema['required'] = required
        return schema

    raise SchemaError('%s: the type %s has no JSON Schema (use str, int, float, bool, None, list, tuple, '
                      'dict[str, T], a union, Literal, an Enum, a TypedDict or a dataclass)'
                      % (where, getattr(annotation, '__name__', repr(annotation))))


def _fail(where, expected, value):
    raise ValueError('%s must be %s, not %s' % (where, expected, _json_name(value)))


def _json_name(value):
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'a boolean'
    if isinstance(value, (int, float)):
        return 'a number'
    if isinstance(value, str):
        return 'a string'
    if isinstance(value, list):
        return 'an array'
    return 'an object'


def from_json(annotation, value, where):
    """@value, a JSON value (dict, list, str, int, float, bool or None),
    converted to @annotation: dataclasses and enums built, integral numbers
    made int. Raises ValueError naming @where when it does not fit."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any or annotation is object:
        return value
    if annotation is None or annotation is _NONE_TYPE:
        if value is not None:
            _fail(where, 'null', value)
        return None
    if annotation is bool:
        if not isinstance(value, bool):
            _fail(where, 'a boolean', value)
        return value
    if annotation is int:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                (isinstance(value, float) and not value.is_integer()):
            _fail(where, 'an integer', value)
        return int(value)
    if annotation is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            _fail(where, 'a number', value)
        return float(value)
    if annotation is str:
        if not isinstance(value, str):
            _fail(where, 'a string', value)
        return value
    if annotation in (list, tuple, dict):
        expected = dict if annotation is dict else list
        if not isinstance(value, expected):
            _fail(where, 'an object' if annotation is dict else 'an array', value)
        return annotation(value)

    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return from_json(args[0], value, where)
    if _is_union(origin):
        # None first, then the members in order: the first that fits.
        if value is None and _NONE_TYPE in args:
            return None
        problems = []
        for arg in args:
            try:
                return from_json(arg, value, where)
            except ValueError as error:
                problems.append(str(error))
        raise ValueError('; '.join(problems))
    if origin is typing.Literal:
        for arg in args:
            if arg == value and type(arg) is type(value):
                return arg
        raise ValueError('%s must be one of %s' % (where, ', '.join(repr(arg) for arg in args)))
    if origin is tuple:
        if not isinstance(value, list):
            _fail(where, 'an array', value)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_json(args[0], item, '%s[%d]' % (where, i)) for i, item in enumerate(value))
        if args == ((),):
            args = ()
        if len(value) != len(args):
            raise ValueError('%s must have %d items, not %d' % (where, len(args), len(value)))
        return tuple(from_json(arg, item, '%s[%d]' % (where, i)) for i, (arg, item) in enumerate(zip(args, value)))
    if origin in _SEQUENCES:
        if not isinstance(value, list):
            _fail(where, 'an array', value)
        items = [from_json(args[0], item, '%s[%d]' % (where, i)) if args else item
                 for i, item in enumerate(value)]
        return origin(items) if origin in (set, frozenset) else items
    if origin is dict:
        if not isinstance(value, dict):
            _fail(where, 'an object', value)
        if not args:
            return dict(value)
        return {key: from_json(args[1], item, '%s.%s' % (where, key)) for key, item in value.items()}

    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        for member in annotation:
            if member.value == value and type(member.value) is type(value):
                return member
        raise ValueError('%s must be one of %s' % (where, ', '.join(repr(m.value) for m in annotation)))
    if _is_typeddict(annotation):
        if not isinstance(value, dict):
            _fail(where, 'an object', value)
        hints = _hints(annotation)
        result = {}
        for key, item in value.items():
            result[key] = from_json(hints[key], item, '%s.%s' % (where, key)) if key in hints else item
        missing = [key for key in annotation.__required_keys__ if key not in value]
        if missing:
            raise ValueError('%s lacks %s' % (where, ', '.join(sorted(missing))))
        return result
    if dataclasses.is_dataclass(annotation) and isinstance(annotation, type):
        if not isinstance(value, dict):
            _fail(where, 'an object', value)
        hints = _hints(annotation)
        fields = {field.name: field for field in dataclasses.fields(annotation)}
        kwargs = {}
        for key, item in value.items():
            if key in fields and fields[key].init:
                kwargs[key] = from_json(hints.get(key, inspect.Parameter.empty), item, '%s.%s' % (where, key))
        try:
            return annotation(**kwargs)
        except TypeError as error:
            raise ValueError('%s: %s' % (where, error)) from None
    return value


def to_json(value):
    """@value as plain JSON values: dataclasses as dicts, enums as their
    values, tuples and sets as lists; other values as they are."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: to_json(getattr(value, field.name)) for field in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if isinstance(value, dict):
        return {key: to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json(item) for item in value]
    return value


_SECTION = re.compile(r'^(Args|Arguments|Parameters|Returns|Return|Yields|Raises|Examples?|Notes?|'
                      r'Attributes|See Also|Warnings?)\s*:\s*$')
_ARG = re.compile(r'^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$')


def parse_docstring(doc):
    """(description, {parameter: description}) from a docstring: its first
    paragraph, and the entries of a Google-style Args: section."""
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    paragraph = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()):
            if paragraph:
                break
            continue
        paragraph.append(line.strip())
    description = ' '.join(paragraph) or None

    params = {}
    in_args = False
    current = None
    indent = None
    for line in lines:
        stripped = line.strip()
        match = _SECTION.match(stripped)
        if match and (len(line) - len(line.lstrip())) == 0:
            in_args = match.group(1) in ('Args', 'Arguments', 'Parameters')
            current = None
            indent = None
            continue
        if not in_args or not stripped:
            continue
        depth = len(line) - len(line.lstrip())
        if indent is None:
            indent = depth
        arg = _ARG.match(stripped)
        if depth <= indent and arg:
            current = arg.group(1).lstrip('*')
            params[current] = arg.group(3).strip()
        elif current is not None and depth > indent:
            params[current] = (params[current] + ' ' + stripped).strip()
    return description, params
