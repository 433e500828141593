// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The short form of the GJS overrides: tools, resources and prompts as
// plain functions, server.tool({name, description, input, output},
// async (args, ctx) => value), with schemas given as JSON Schema or in a
// compact form ({a: 'number', b: {type: 'string', optional: true}}), the
// return value as the result, Snodo.ToolError as a failed result, a context
// for progress, logging, cancellation and elicitation, and server.run().
// Loaded by overrides/Snodo.js, which calls install(); see
// introspection/python-and-javascript.md.

const {GLib, Gio} = imports.gi;

const TYPES = ['string', 'number', 'integer', 'boolean', 'array', 'object', 'null'];

// A field of the compact form: 'number', 'string?', ['string'] (an array
// of strings) or a JSON Schema with `optional: true` allowed.
function fieldSchema(field, where) {
    if (typeof field === 'string') {
        const name = field.endsWith('?') ? field.slice(0, -1) : field;
        if (name === 'any')
            return [{}, field.endsWith('?')];
        if (!TYPES.includes(name))
            throw new TypeError(`${where}: '${field}' is not a JSON type (${TYPES.join(', ')}, any)`);
        return [{type: name}, field.endsWith('?')];
    }
    if (Array.isArray(field)) {
        if (field.length !== 1)
            throw new TypeError(`${where}: an array field is written [itemType]`);
        return [{type: 'array', items: fieldSchema(field[0], `${where}[]`)[0]}, false];
    }
    if (field && typeof field === 'object') {
        const {optional, ...schema} = field;
        if (typeof schema.type === 'string' && !TYPES.includes(schema.type))
            throw new TypeError(`${where}: '${schema.type}' is not a JSON type`);
        return [schema, Boolean(optional) || 'default' in schema];
    }
    throw new TypeError(`${where}: a field is a type name, [type] or a schema object, not ${typeof field}`);
}

// The JSON Schema of an input or output: a schema of type object as it
// is, or the compact form (field name -> field).
function objectSchema(description, where) {
    if (description === undefined || description === null)
        return {type: 'object', properties: {}};
    if (typeof description !== 'object' || Array.isArray(description))
        throw new TypeError(`${where}: give a JSON Schema or an object of fields`);
    if (description.type === 'object' || '$schema' in description)
        return description;
    const properties = {};
    const required = [];
    for (const [name, field] of Object.entries(description)) {
        const [schema, optional] = fieldSchema(field, `${where}: field '${name}'`);
        properties[name] = schema;
        if (!optional)
            required.push(name);
    }
    const schema = {type: 'object', properties};
    if (required.length > 0)
        schema.required = required;
    return schema;
}

function base64(data) {
    if (typeof data === 'string')
        return data;
    return GLib.base64_encode(data);
}

var install = function (Snodo) {
    class ToolError extends Error {
        constructor(message) {
            super(message);
            this.name = 'ToolError';
        }
    }

    // Rejects what a cancelled request awaits (ctx.sleep(), ctx.elicit()).
    class Cancelled extends Error {
        constructor() {
            super('Cancelled');
            this.name = 'Cancelled';
        }
    }

    class Content {}
    class Text extends Content {
        constructor(text) {
            super();
            this.text = text;
        }

        toBlock() {
            return {type: 'text', text: this.text};
        }
    }
    class Image extends Content {
        constructor(data, mimeType = 'image/png') {
            super();
            this.data = data;
            this.mimeType = mimeType;
        }

        toBlock() {
            return {type: 'image', data: base64(this.data), mimeType: this.mimeType};
        }
    }
    class Audio extends Content {
        constructor(data, mimeType = 'audio/wav') {
            super();
            this.data = data;
            this.mimeType = mimeType;
        }

        toBlock() {
            return {type: 'audio', data: base64(this.data), mimeType: this.mimeType};
        }
    }
    class EmbeddedResource extends Content {
        constructor(uri, {text, blob, mimeType} = {}) {
            super();
            Object.assign(this, {uri, text, blob, mimeType});
        }

        toBlock() {
            const resource = {uri: this.uri};
            if (this.mimeType)
                resource.mimeType = this.mimeType;
            if (this.blob !== undefined)
                resource.blob = base64(this.blob);
            else
                resource.text = this.text ?? '';
            return {type: 'resource', resource};
        }
    }
    class ResourceLink extends Content {
        constructor(uri, name, {description, mimeType} = {}) {
            super();
            Object.assign(this, {uri, name, description, mimeType});
        }

        toBlock() {
            const block = {type: 'resource_link', uri: this.uri, name: this.name};
            if (this.description)
                block.description = this.description;
            if (this.mimeType)
                block.mimeType = this.mimeType;
            return block;
        }
    }

    // A promise resolved after @ms milliseconds; rejected with Cancelled
    // when @cancellable (if any) fires first.
    function sleep(ms, cancellable = null) {
        return new Promise((resolve, reject) => {
            if (cancellable?.is_cancelled()) {
                reject(new Cancelled());
                return;
            }
            let handler = 0;
            const source = GLib.timeout_add(GLib.PRIORITY_DEFAULT, Math.max(0, ms), () => {
                if (handler)
                    cancellable.disconnect(handler);
                resolve();
                return GLib.SOURCE_REMOVE;
            });
            if (cancellable) {
                handler = cancellable.connect(() => {
                    GLib.source_remove(source);
                    // The handler runs inside the cancellation: settle later.
                    GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
                        reject(new Cancelled());
                        return GLib.SOURCE_REMOVE;
                    });
                });
            }
        });
    }

    const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

    class Context {
        constructor(invocation) {
            this.invocation = invocation;
            this._asked = 0;
        }

        get cancellable() {
            return this.invocation.get_cancellable();
        }

        isCancelled() {
            return this.invocation.get_cancellable().is_cancelled();
        }

        get principal() {
            return this.invocation.get_principal();
        }

        get scopes() {
            return this.invocation.get_scopes() ?? [];
        }

        hasScope(scope) {
            return this.invocation.has_scope(scope);
        }

        get protocolVersion() {
            return this.invocation.get_protocol_version();
        }

        reportProgress(progress, total = null, message = null) {
            return this.invocation.report_progress(progress, total ?? -1, message);
        }

        log(level, message, logger = null) {
            if (typeof level === 'string') {
                if (!LEVELS.includes(level))
                    throw new RangeError(`'${level}' is not a log level: use one of ${LEVELS.join(', ')}`);
                level = LEVELS.indexOf(level);
            }
            if (typeof message === 'string')
                return this.invocation.log_text(level, logger, message);
            return this.invocation.log(level, logger, message);
        }

        sleep(ms) {
            return sleep(ms, this.cancellable);
        }

        _ask(what, method, params) {
            this._asked++;
            const key = `${what}-${this._asked}`;
            return new Promise((resolve, reject) => {
                this.invocation.request_input_async(key, method, params, this.cancellable, (invocation, result) => {
                    try {
                        resolve(invocation.request_input_finish(result));
                    } catch (error) {
                        if (error instanceof GLib.Error && error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                            reject(new Cancelled());
                        else
                            reject(error);
                    }
                });
            });
        }

        // Asks the user; @schema is a JSON Schema or the compact form.
        // Resolves to {action, content}.
        elicit(message, schema = {}) {
            return this._ask('elicit', 'elicitation/create',
                {message, requestedSchema: objectSchema(schema, 'the schema of elicit()')});
        }

        sample(messages, {maxTokens = 1000, systemPrompt, temperature, ...params} = {}) {
            if (typeof messages === 'string')
                messages = [{role: 'user', content: {type: 'text', text: messages}}];
            const request = {messages, maxTokens, ...params};
            if (systemPrompt !== undefined)
                request.systemPrompt = systemPrompt;
            if (temperature !== undefined)
                request.temperature = temperature;
            return this._ask('sample', 'sampling/createMessage', request);
        }

        async listRoots() {
            return (await this._ask('roots', 'roots/list', {})).roots ?? [];
        }
    }

    function isInputRequired(error) {
        return error instanceof GLib.Error && error.matches(Snodo.error_quark(), Snodo.Error.INPUT_REQUIRED);
    }

    function describe(error) {
        return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }

    // Calls @func; done(value, error) once it returned or its promise
    // settled.
    function call(func, args, ctx, done) {
        let returned;
        try {
            returned = func(args, ctx);
        } catch (error) {
            done(undefined, error);
            return;
        }
        if (returned && typeof returned.then === 'function')
            returned.then(value => done(value, null), error => done(undefined, error ?? new Error('rejected')));
        else
            done(returned, null);
    }

    function failureMessage(server, kind, name, error) {
        printerr(`Snodo-WARNING: the ${kind} '${name}' failed: ${describe(error)}`);
        if (error instanceof Error && error.stack)
            printerr(error.stack);
        if (server._snodoMaskErrors)
            return `The ${kind} '${name}' failed`;
        return describe(error);
    }

    // Answers for the failures every kind shares; true if it answered.
    function commonFailure(invocation, error) {
        if (invocation.get_answered())
            return true;
        if (isInputRequired(error)) {
            invocation.return_gerror(error);
            return true;
        }
        if (error instanceof Cancelled) {
            // Not sent: the client gave the request up.
            invocation.return_error_literal(Snodo.rpc_error_quark(), Snodo.RpcError.INTERNAL_ERROR, 'Cancelled');
            return true;
        }
        return false;
    }

    function toolResult(value) {
        if (value === undefined || value === null)
            return [{content: []}, undefined];
        if (typeof value === 'string')
            return [{content: [{type: 'text', text: value}]}, undefined];
        if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
            return [{content: [{type: 'text', text: String(value)}]}, undefined];
        if (value instanceof Content)
            return [{content: [value.toBlock()]}, undefined];
        if (Array.isArray(value) && value.length > 0 && value.every(item => item instanceof Content))
            return [{content: value.map(item => item.toBlock())}, undefined];
        if (value instanceof Uint8Array || value instanceof GLib.Bytes)
            throw new TypeError('a tool returns bytes as Snodo.Image, Snodo.Audio or Snodo.EmbeddedResource');
        return [undefined, value];
    }

    function describeItem(item, options) {
        for (const [option, setter] of [['title', 'set_title'], ['annotations', 'set_annotations'],
            ['icons', 'set_icons'], ['meta', 'set_meta'], ['mimeType', 'set_mime_type']]) {
            if (options[option] !== undefined && item[setter])
                item[setter](options[option]);
        }
    }

    const server = Snodo.Server.prototype;

    // server.tool({name, description, input, output, ...}, func) or
    // server.tool(name, {description, ...}, func).
    server.tool = function (options, func, more) {
        if (typeof options === 'string')
            [options, func] = [{...func, name: options}, more];
        if (typeof func !== 'function')
            throw new TypeError('server.tool() takes its options and a function');
        const name = options.name ?? func.name;
        if (!name)
            throw new TypeError('server.tool(): give the tool a name');
        if (options.runInThread)
            throw new TypeError('a tool written in JavaScript runs on the main context, not in a thread');
        const tool = Snodo.Tool.new(name, options.description ?? null);
        tool.set_input_schema(objectSchema(options.input, `tool '${name}' input`));
        if (options.output !== undefined)
            tool.set_output_schema(objectSchema(options.output, `tool '${name}' output`));
        describeItem(tool, options);
        if (options.taskSupport !== undefined) {
            tool.set_task_support(typeof options.taskSupport === 'string'
                ? Snodo.TaskSupport[options.taskSupport.toUpperCase()] : options.taskSupport);
        }
        if (options.handlerTimeout !== undefined)
            tool.set_handler_timeout(options.handlerTimeout);
        const self = this;
        this.add_tool(tool, invocation => {
            call(func, invocation.get_arguments() ?? {}, new Context(invocation), (value, error) => {
                if (!error) {
                    if (invocation.get_answered())
                        return;
                    try {
                        const [result, structured] = toolResult(value);
                        if (structured !== undefined)
                            invocation.return_structured(structured);
                        else
                            invocation.return_result(result);
                        return;
                    } catch (failure) {
                        error = failure;
                    }
                }
                if (commonFailure(invocation, error))
                    return;
                if (error instanceof ToolError)
                    invocation.return_tool_error(error.message);
                else
                    invocation.return_tool_error(failureMessage(self, 'tool', name, error));
            });
        });
        return tool;
    };

    // server.resource(uri, {name, description, mimeType, ...}, func): a
    // URI with {variables} is a template, whose variables func gets as its
    // first argument. func returns a string (text), a Uint8Array or
    // GLib.Bytes (a blob), another JSON value (JSON text), or null (not
    // found).
    server.resource = function (uri, options, func) {
        if (typeof options === 'function')
            [options, func] = [{}, options];
        const name = options.name ?? func.name ?? uri;
        const template = /\{[^}]+\}/.test(uri);
        const item = template ? Snodo.ResourceTemplate.new(uri, name) : Snodo.Resource.new(uri, name);
        if (options.description !== undefined)
            item.set_description(options.description);
        describeItem(item, options);
        const mimeType = options.mimeType;
        const self = this;
        const handler = invocation => {
            const variables = template ? invocation.get_variables() ?? {} : {};
            call(func, variables, new Context(invocation), (value, error) => {
                if (!error) {
                    if (invocation.get_answered())
                        return;
                    try {
                        if (value === null || value === undefined) {
                            invocation.return_resource_not_found();
                        } else if (value instanceof GLib.Bytes || value instanceof Uint8Array) {
                            const bytes = value instanceof GLib.Bytes ? value : new GLib.Bytes(value);
                            invocation.return_resource_blob(null, mimeType ?? 'application/octet-stream', bytes);
                        } else if (typeof value === 'string') {
                            invocation.return_resource_text(null, mimeType ?? 'text/plain', value);
                        } else {
                            invocation.return_resource_text(null, mimeType ?? 'application/json',
                                JSON.stringify(value));
                        }
                        return;
                    } catch (failure) {
                        error = failure;
                    }
                }
                if (commonFailure(invocation, error))
                    return;
                invocation.return_error_literal(Snodo.rpc_error_quark(), Snodo.RpcError.INTERNAL_ERROR,
                    failureMessage(self, 'resource', uri, error));
            });
        };
        if (template)
            this.add_resource_template(item, handler);
        else
            this.add_resource(item, handler);
        return item;
    };

    // server.prompt({name, description, arguments: {code: 'string',
    // language: {description: '…', optional: true}}}, func): func gets the
    // arguments (strings) and returns a string (one user message) or a list
    // of messages (objects, or strings as user messages).
    server.prompt = function (options, func) {
        const name = options.name ?? func.name;
        const prompt = Snodo.Prompt.new(name, options.description ?? null);
        for (const [argument, field] of Object.entries(options.arguments ?? {})) {
            const described = typeof field === 'object' && field !== null;
            const optional = described ? Boolean(field.optional) : String(field).endsWith('?');
            prompt.add_argument(argument, described ? field.description ?? null : null, !optional);
        }
        describeItem(prompt, options);
        const self = this;
        this.add_prompt(prompt, invocation => {
            call(func, invocation.get_arguments() ?? {}, new Context(invocation), (value, error) => {
                if (!error) {
                    if (invocation.get_answered())
                        return;
                    const items = Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
                    try {
                        invocation.return_prompt(null, items.map(item => {
                            if (typeof item === 'string')
                                return {role: 'user', content: {type: 'text', text: item}};
                            if (item instanceof Content)
                                return {role: 'user', content: item.toBlock()};
                            return item;
                        }));
                        return;
                    } catch (failure) {
                        error = failure;
                    }
                }
                if (commonFailure(invocation, error))
                    return;
                invocation.return_error_literal(Snodo.rpc_error_quark(), Snodo.RpcError.INTERNAL_ERROR,
                    failureMessage(self, 'prompt', name, error));
            });
        });
        return prompt;
    };

    server.set_mask_errors = function (mask) {
        this._snodoMaskErrors = Boolean(mask);
    };

    // server.run(): serves standard input and output until their end, or
    // Streamable HTTP ({http: 'HOST:PORT'}, or --http PORT on the command
    // line) until SIGINT/SIGTERM. Returns 0; exits 1 when the output fails.
    server.run = function ({http = null, argv = null} = {}) {
        const System = imports.system;
        const args = argv ?? System.programArgs;
        const prog = GLib.path_get_basename(System.programInvocationName ?? 'server');
        const options = {};
        const known = ['http', 'http-address', 'http-unix', 'allowed-hosts', 'allowed-origins', 'instance-id',
            'handler-timeout', 'request-timeout', 'protocol-versions', 'write-timeout'];
        for (let i = 0; i < args.length; i++) {
            const match = /^--([a-z-]+)(?:=(.*))?$/.exec(args[i]);
            if (!match || !known.includes(match[1])) {
                printerr(`${prog}: unknown option ${args[i]} (known: ${known.map(k => `--${k}`).join(' ')})`);
                System.exit(2);
            }
            options[match[1]] = match[2] ?? args[++i];
        }
        GLib.log_writer_default_set_use_stderr(true);
        if (options['handler-timeout'] !== undefined)
            this.set_handler_timeout(Number(options['handler-timeout']));
        if (options['request-timeout'] !== undefined)
            this.set_request_timeout(Number(options['request-timeout']));
        if (options['protocol-versions'] !== undefined)
            this.set_protocol_versions(options['protocol-versions'].split(',').map(s => s.trim()).filter(s => s));

        let address = null;
        if (http !== null) {
            const match = /^(?:\[?([^\]]*)\]?:)?(\d+)$/.exec(String(http));
            if (!match) {
                printerr(`${prog}: '${http}' is not HOST:PORT`);
                System.exit(2);
            }
            address = [match[1] || '127.0.0.1', Number(match[2])];
        } else if (options.http !== undefined) {
            address = [options['http-address'] ?? '127.0.0.1', Number(options.http)];
        }

        const loop = new GLib.MainLoop(null, false);
        let failure = null;
        let transport;
        if (address || options['http-unix'] !== undefined) {
            transport = Snodo.HttpTransport.new(this);
            for (const name of ['allowed-hosts', 'allowed-origins']) {
                if (options[name] !== undefined)
                    transport[`set_${name.replace('-', '_')}`](options[name].split(',').map(s => s.trim()));
            }
            if (options['instance-id'] !== undefined)
                transport.set_instance_id(options['instance-id']);
            try {
                if (options['http-unix'] !== undefined) {
                    transport.listen(Gio.UnixSocketAddress.new(options['http-unix']));
                    print(`http+unix://${options['http-unix']}${transport.get_path()}`);
                } else {
                    const where = Gio.InetSocketAddress.new_from_string(address[0], address[1]);
                    if (!where)
                        throw new Error(`'${address[0]}' is not an IP address`);
                    transport.listen(where);
                    print(transport.dup_uri());
                }
            } catch (error) {
                printerr(`${prog}: ${error.message}`);
                System.exit(1);
            }
        } else {
            transport = Snodo.StdioTransport.new_for_stdio(this);
            if (options['write-timeout'] !== undefined)
                transport.set_write_timeout(Number(options['write-timeout']));
            transport.connect('closed', (_transport, error) => {
                // null after the end of input, once every answer is written.
                if (error)
                    failure = error.message;
                loop.quit();
            });
            transport.start();
        }
        let stopping = false;
        const stop = () => {
            if (!stopping) {
                stopping = true;
                transport.close_async(null).catch(() => {}).finally(() => loop.quit());
            }
            return GLib.SOURCE_CONTINUE;
        };
        const sources = [2, 15].map(signal => GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal, stop));
        loop.run();
        for (const source of sources)
            GLib.source_remove(source);
        if (failure) {
            printerr(`${prog}: ${failure}`);
            System.exit(1);
        }
        return 0;
    };

    Object.assign(Snodo, {
        ToolError, Cancelled, Context, Text, Image, Audio, EmbeddedResource, ResourceLink, sleep,
        compactSchema: objectSchema,
    });
};
