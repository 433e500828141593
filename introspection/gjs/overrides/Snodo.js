// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// GJS overrides for Snodo: JSON as plain JavaScript values wherever the C
// API takes or gives a JsonNode or JsonObject, handlers that always answer
// (also async functions), and promises from the _async methods. GJS loads
// this file for `gi://Snodo` (and imports.gi.Snodo) from overrides/ in its
// search path; it is installed as $datadir/gjs-1.0/overrides/Snodo.js. See
// introspection/python-and-javascript.md.

const {GLib, GObject, Gio, Json} = imports.gi;

const INT64_MAX = 2 ** 63;

function toJsonNode(value) {
    if (value instanceof Json.Node)
        return value;
    const node = Json.Node.alloc();
    if (value === null || value === undefined) {
        node.init_null();
    } else if (typeof value === 'boolean') {
        node.init_boolean(value);
    } else if (typeof value === 'number') {
        if (!Number.isFinite(value))
            throw new RangeError(`${value} is not a JSON number`);
        if (Number.isSafeInteger(value))
            node.init_int(value);
        else
            node.init_double(value);
    } else if (typeof value === 'bigint') {
        if (value < -INT64_MAX || value >= INT64_MAX)
            throw new RangeError(`${value} does not fit in a 64-bit JSON integer`);
        node.init_int(Number(value));
    } else if (typeof value === 'string') {
        if (value.includes('\0'))
            throw new RangeError('a JSON string for Snodo cannot hold U+0000');
        node.init_string(value);
    } else if (Array.isArray(value)) {
        const array = Json.Array.new();
        for (const element of value)
            array.add_element(toJsonNode(element));
        node.init_array(array);
    } else if (value instanceof Json.Object) {
        node.init_object(value);
    } else if (value instanceof Json.Array) {
        node.init_array(value);
    } else if (typeof value === 'object') {
        if (typeof value.toJSON === 'function')
            return toJsonNode(value.toJSON());
        const object = Json.Object.new();
        for (const [key, member] of Object.entries(value)) {
            if (member !== undefined && typeof member !== 'function')
                object.set_member(key, toJsonNode(member));
        }
        node.init_object(object);
    } else {
        throw new TypeError(`a ${typeof value} is not JSON`);
    }
    return node;
}

function objectToPlain(object) {
    const plain = {};
    for (const name of object.get_members() ?? [])
        plain[name] = fromJsonNode(object.get_member(name));
    return plain;
}

function fromJsonNode(node) {
    if (node === null || node === undefined)
        return null;
    if (node instanceof Json.Object)
        return objectToPlain(node);
    if (node instanceof Json.Array)
        return (node.get_elements() ?? []).map(fromJsonNode);
    switch (node.get_node_type()) {
    case Json.NodeType.OBJECT:
        return objectToPlain(node.get_object());
    case Json.NodeType.ARRAY:
        return fromJsonNode(node.get_array());
    case Json.NodeType.NULL:
        return null;
    default:
        switch (GObject.type_name(node.get_value_type())) {
        case 'gint64':
            return node.get_int();
        case 'gdouble':
            return node.get_double();
        case 'gboolean':
            return node.get_boolean();
        default:
            return node.get_string();
        }
    }
}

function nodeOrNull(value) {
    return value === null || value === undefined ? null : toJsonNode(value);
}

function describe(error) {
    if (error instanceof Error)
        return `${error.name}: ${error.message}`;
    return String(error);
}

function _init() {
    const Snodo = this;

    Snodo.toJsonNode = toJsonNode;
    Snodo.fromJsonNode = fromJsonNode;

    // A failed handler answers its request at once with -32603 (unless it
    // answered before failing), and its stack goes to stderr. An error of
    // Snodo's own that the handler let through (the input_required error
    // of request_input_async(), or one of the Snodo.RpcError domain such
    // as its missing client capability) is answered as return_gerror()
    // answers it, as a handler in C passes it on.
    function answerFailure(invocation, kind, name, error) {
        if (error instanceof GLib.Error &&
            (error.matches(Snodo.error_quark(), Snodo.Error.INPUT_REQUIRED) ||
             error.domain === Snodo.rpc_error_quark())) {
            if (!invocation.get_answered())
                invocation.return_gerror(error);
            return;
        }
        const message = `The handler of ${kind} '${name ?? invocation.get_name()}' failed: ${describe(error)}`;
        printerr(`Snodo-WARNING: ${message}`);
        if (error instanceof Error && error.stack)
            printerr(error.stack);
        if (!invocation.get_answered()) {
            invocation.return_error_literal(Snodo.rpc_error_quark(), Snodo.RpcError.INTERNAL_ERROR,
                message);
        }
    }

    // A tool's handler may also return (or resolve to) its result instead
    // of answering, if nothing answered yet: a string is answered as text
    // (return_text()), any other value but undefined as the structured
    // result (return_structured()).
    function guard(kind, name, func) {
        if (!func)
            return func;
        return function (invocation, ...rest) {
            let returned;
            try {
                returned = func.call(this, invocation, ...rest);
            } catch (error) {
                answerFailure(invocation, kind, name, error);
                return;
            }
            const settle = value => {
                if (kind !== 'tool' || value === undefined || invocation.get_answered())
                    return;
                if (typeof value === 'string')
                    invocation.return_text(value);
                else
                    invocation.return_structured(value);
            };
            if (returned && typeof returned.then === 'function')
                returned.then(settle, error => answerFailure(invocation, kind, name, error));
            else
                settle(returned);
        };
    }

    const server = Snodo.Server.prototype;
    const addTool = server.add_tool;
    const addResource = server.add_resource;
    const addResourceTemplate = server.add_resource_template;
    const addPrompt = server.add_prompt;
    const setCompletionFunc = server.set_completion_func;
    server.add_tool = function (tool, func) {
        return addTool.call(this, tool, guard('tool', tool?.get_name(), func));
    };
    server.add_resource = function (resource, func) {
        return addResource.call(this, resource, guard('resource', resource?.get_uri(), func));
    };
    server.add_resource_template = function (template, func) {
        return addResourceTemplate.call(this, template,
            guard('resource template', template?.get_uri_template(), func));
    };
    server.add_prompt = function (prompt, func) {
        return addPrompt.call(this, prompt, guard('prompt', prompt?.get_name(), func));
    };
    server.set_completion_func = function (func) {
        return setCompletionFunc.call(this, guard('completion', 'completion/complete', func));
    };
    const addExtension = server.add_extension;
    const getExtension = server.get_extension;
    const addApp = server.add_app;
    server.add_extension = function (name, settings) {
        return addExtension.call(this, name, nodeOrNull(settings));
    };
    server.get_extension = function (name) {
        return fromJsonNode(getExtension.call(this, name));
    };
    server.add_app = function (tool, resource, html, ui) {
        return addApp.call(this, tool, resource, html, nodeOrNull(ui));
    };
    // Methods of the application's own: schemas and params as plain
    // values; a notification handler that throws is logged.
    const addMethod = server.add_method;
    const addNotificationHandler = server.add_notification_handler;
    const setIcons = server.set_icons;
    const getIcons = server.get_icons;
    const dupServerJson = server.dup_server_json;
    server.add_method = function (method, paramsSchema, func) {
        return addMethod.call(this, method, nodeOrNull(paramsSchema), guard('method', method, func));
    };
    server.add_notification_handler = function (method, paramsSchema, func) {
        return addNotificationHandler.call(this, method, nodeOrNull(paramsSchema), (srv, name, params) => {
            try {
                func(srv, name, fromJsonNode(params));
            } catch (error) {
                logError(error, `Snodo: the handler of notification ${name} failed`);
            }
        });
    };
    // A forwarding server: one function answers every request.
    const setForwardFunc = server.set_forward_func;
    server.set_forward_func = function (func) {
        return setForwardFunc.call(this, guard('forwarded request', null, func));
    };
    server.set_icons = function (icons) {
        return setIcons.call(this, nodeOrNull(icons));
    };
    server.get_icons = function () {
        return fromJsonNode(getIcons.call(this));
    };
    server.dup_server_json = function (registryName) {
        return fromJsonNode(dupServerJson.call(this, registryName));
    };
    // A request hook that throws refuses the request (-32603); an answer
    // hook is given the answer as a plain value, and what it throws is
    // logged.
    const addRequestHook = server.add_request_hook;
    const addAnswerHook = server.add_answer_hook;
    server.add_request_hook = function (func) {
        return addRequestHook.call(this, invocation => {
            try {
                func(invocation);
            } catch (error) {
                const message = `A request hook failed: ${error}`;
                logError(error, 'Snodo');
                invocation.reject(Snodo.RpcError.INTERNAL_ERROR, message);
            }
        });
    };
    server.add_answer_hook = function (func) {
        return addAnswerHook.call(this, (invocation, answer) => {
            try {
                func(invocation, fromJsonNode(answer));
            } catch (error) {
                logError(error, 'Snodo: an answer hook failed');
            }
        });
    };
    const addAnswerViewHook = server.add_answer_view_hook;
    server.add_answer_view_hook = function (func) {
        return addAnswerViewHook.call(this, (invocation, answer) => {
            try {
                func(invocation, answer);
            } catch (error) {
                logError(error, 'Snodo: an answer hook failed');
            }
        });
    };
    // A middleware is given next as an object with call(invocation, done);
    // what it or done throws before the request is passed on or answered
    // is answered with -32603.
    const addMiddleware = server.add_middleware;
    server.add_middleware = function (method, func) {
        return addMiddleware.call(this, method, (invocation, next) => {
            const proxy = middlewareNext(next);
            try {
                func(invocation, proxy);
            } catch (error) {
                middlewareFailed(invocation, proxy, error);
            }
        });
    };

    function middlewareFailed(invocation, proxy, error) {
        const message = `Internal error: a middleware failed: ${error}`;
        logError(error, 'Snodo');
        if (!proxy.passed && !invocation.get_answered())
            invocation.return_error_literal(Snodo.rpc_error_quark(), Snodo.RpcError.INTERNAL_ERROR, message);
    }
    function middlewareNext(next) {
        const proxy = {
            passed: false,
            call(invocation, done) {
                proxy.passed = true;
                next.call(invocation, (_next, inv, answer) => {
                    proxy.passed = false;
                    try {
                        done(proxy, inv, answer);
                    } catch (error) {
                        middlewareFailed(inv, proxy, error);
                    }
                });
            },
        };
        return proxy;
    }

    // An answer's tree and id as plain values.
    const answerProto = Snodo.Answer.prototype;
    for (const name of ['get_tree', 'get_id']) {
        const original = answerProto[name];
        answerProto[name] = function () {
            return fromJsonNode(original.call(this));
        };
    }

    const invocation = Snodo.Invocation.prototype;
    for (const name of ['get_arguments', 'get_variables', 'get_params', 'dup_client_capabilities',
        'request_input_finish']) {
        const original = invocation[name];
        invocation[name] = function (...args) {
            return fromJsonNode(original.apply(this, args));
        };
    }
    const notify = invocation.notify;
    invocation.notify = function (method, params) {
        return notify.call(this, method, params === undefined || params === null ? null
            : toJsonNode(params).get_object());
    };
    const getId = invocation.get_id;
    invocation.get_id = function () {
        return fromJsonNode(getId.call(this));
    };
    const returnForwarded = invocation.return_forwarded;
    invocation.return_forwarded = function (answer) {
        return returnForwarded.call(this, toJsonNode(answer).get_object());
    };
    const returnResult = invocation.return_result;
    invocation.return_result = function (result) {
        return returnResult.call(this, toJsonNode(result));
    };
    const returnStructured = invocation.return_structured;
    invocation.return_structured = function (value) {
        return returnStructured.call(this, toJsonNode(value));
    };
    const returnPrompt = invocation.return_prompt;
    invocation.return_prompt = function (description, messages) {
        return returnPrompt.call(this, description, toJsonNode(messages));
    };
    const setAnnotation = invocation.set_annotation;
    invocation.set_annotation = function (key, value) {
        return setAnnotation.call(this, key, nodeOrNull(value));
    };
    const getAnnotation = invocation.get_annotation;
    invocation.get_annotation = function (key) {
        return fromJsonNode(getAnnotation.call(this, key));
    };
    const log = invocation.log;
    invocation.log = function (level, logger, data) {
        return log.call(this, level, logger, toJsonNode(data));
    };
    const requestInput = invocation.request_input_async;
    invocation.request_input_async = function (key, method, params, ...rest) {
        return requestInput.call(this, key, method, nodeOrNull(params), ...rest);
    };

    // get_/set_ pairs of JSON properties take and give plain values, and
    // so does construction (new Snodo.Tool({name, input_schema: {...}})).
    const accessors = [
        [Snodo.Description, ['icons', 'meta']],
        [Snodo.Tool, ['input_schema', 'output_schema', 'annotations', 'icons']],
        [Snodo.Resource, ['annotations', 'icons']],
        [Snodo.ResourceTemplate, ['annotations', 'icons']],
        [Snodo.Prompt, ['icons']],
    ];
    for (const [type, names] of accessors) {
        for (const name of names) {
            const get = type.prototype[`get_${name}`];
            const set = type.prototype[`set_${name}`];
            type.prototype[`get_${name}`] = function () {
                return fromJsonNode(get.call(this));
            };
            type.prototype[`set_${name}`] = function (value, ...rest) {
                return set.call(this, nodeOrNull(value), ...rest);
            };
        }
    }
    const jsonProperties = new Set(['icons', 'meta', 'input_schema', 'output_schema', 'annotations']);
    const spelled = name => name.replace(/-/g, '_').replace(/[A-Z]/g, c => `_${c.toLowerCase()}`);
    const descriptionInit = Snodo.Description.prototype._init;
    Snodo.Description.prototype._init = function (properties, ...rest) {
        if (properties && typeof properties === 'object') {
            properties = {...properties};
            for (const [key, value] of Object.entries(properties)) {
                if (jsonProperties.has(spelled(key)))
                    properties[key] = nodeOrNull(value);
            }
        }
        return descriptionInit.call(this, properties, ...rest);
    };
    const templateExpand = Snodo.ResourceTemplate.prototype.expand;
    Snodo.ResourceTemplate.prototype.expand = function (values) {
        return templateExpand.call(this, nodeOrNull(values)?.get_object() ?? null);
    };
    const promptArguments = Snodo.Prompt.prototype.get_arguments;
    Snodo.Prompt.prototype.get_arguments = function () {
        return fromJsonNode(promptArguments.call(this));
    };

    // The client: plain values in and out, and promises.
    const client = Snodo.Client.prototype;
    const wrapIn = (name, positions) => {
        const original = client[name];
        client[name] = function (...args) {
            for (const i of positions)
                args[i] = nodeOrNull(args[i])?.get_object() ?? null;
            return original.call(this, ...args);
        };
    };
    const wrapOut = name => {
        const original = client[name];
        client[name] = function (...args) {
            return fromJsonNode(original.call(this, ...args));
        };
    };
    wrapIn('set_capabilities', [0]);
    wrapIn('request_async', [1]);
    wrapIn('call_tool_async', [1]);
    wrapIn('get_prompt_async', [1]);
    wrapIn('complete_async', [0, 3]);
    wrapIn('listen_async', [0]);
    wrapIn('read_skill_file_async', [0]);
    for (const name of ['get_capabilities', 'get_server_info', 'get_server_capabilities', 'request_finish',
        'call_tool_finish', 'get_prompt_finish', 'read_resource_finish', 'complete_finish', 'listen_finish',
        'list_tools_finish', 'list_resources_finish', 'list_resource_templates_finish', 'list_prompts_finish',
        'list_skills_finish', 'get_skill_finish', 'read_directory_finish'])
        wrapOut(name);
    for (const name of ['connect', 'close', 'ping', 'request', 'call_tool', 'get_prompt', 'read_resource',
        'complete', 'listen', 'subscribe_resource', 'unsubscribe_resource', 'list_tools', 'list_resources',
        'list_resource_templates', 'list_prompts', 'list_skills', 'get_skill', 'read_skill_file', 'read_directory'])
        Gio._promisify(client, `${name}_async`, `${name}_finish`);
    const requestParams = Snodo.ServerRequest.prototype.get_params;
    Snodo.ServerRequest.prototype.get_params = function () {
        return fromJsonNode(requestParams.call(this));
    };
    const requestReturnResult = Snodo.ServerRequest.prototype.return_result;
    Snodo.ServerRequest.prototype.return_result = function (result) {
        return requestReturnResult.call(this, toJsonNode(result).get_object());
    };

    // A client's connection to a forwarding server, with plain values.
    const session = Snodo.Session.prototype;
    const sessionNotify = session.notify;
    session.notify = function (method, params) {
        return sessionNotify.call(this, method, params === undefined || params === null ? null
            : toJsonNode(params).get_object());
    };
    const sessionRequest = session.request_async;
    session.request_async = function (method, params, ...rest) {
        return sessionRequest.call(this, method, params === undefined || params === null ? null
            : toJsonNode(params).get_object(), ...rest);
    };
    const sessionRequestFinish = session.request_finish;
    session.request_finish = function (result) {
        return fromJsonNode(sessionRequestFinish.call(this, result));
    };
    Gio._promisify(session, 'request_async', 'request_finish');

    // Without a callback, these return a promise.
    Gio._promisify(Snodo.Invocation.prototype, 'request_input_async', 'request_input_finish');
    Gio._promisify(Snodo.StdioTransport.prototype, 'close_async', 'close_finish');
    Gio._promisify(Snodo.Executor.prototype, 'wait_owner_async', 'wait_owner_finish');
    if (Snodo.HttpTransport)
        Gio._promisify(Snodo.HttpTransport.prototype, 'close_async', 'close_finish');

    // The short form: tools, resources and prompts as plain functions, and
    // server.run() (overrides/_SnodoFunctions.js).
    imports.overrides._SnodoFunctions.install(Snodo);
}
