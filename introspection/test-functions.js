// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The server of the GJS half of test-functions.py: tools, resources and
// prompts as plain functions (overrides/_SnodoFunctions.js), one tool per
// row of its tables. test-functions.py starts it and checks the answers.
//
//   gjs -m test-functions.js     serves on standard input and output

import GLib from 'gi://GLib';
import Snodo from 'gi://Snodo?version=1';

const server = Snodo.Server.new('gjs-functions', '1.0');
if (GLib.getenv('MASK_ERRORS'))
    server.set_mask_errors(true);

// Compact fields (and a JSON Schema) -> schemas: the rows of GJS_SCHEMAS
// in test-functions.py, in the same order.
const FIELDS = [
    'string', 'number', 'integer', 'boolean', 'array', 'object', 'null', 'any',
    'string?', ['integer'], {type: 'string', description: 'Who'}, {type: 'integer', optional: true},
    {type: 'number', default: 1}, {enum: ['a', 'b']},
];
FIELDS.forEach((field, i) => server.tool({name: `schema${i}`, input: {v: field}}, ({v}) => ({v: v ?? null})));
server.tool({
    name: 'schema_full', description: 'A JSON Schema as it is',
    input: {type: 'object', properties: {n: {type: 'integer', minimum: 0}}, required: ['n']},
}, ({n}) => n);
server.tool({name: 'add', title: 'Adds', annotations: {readOnlyHint: true},
    input: {a: 'number', b: 'number'}, output: {sum: 'number'}}, ({a, b}) => ({sum: a + b}));

// Return values.
const RETURNS = {
    r_str: () => 'text',
    r_int: () => 42,
    r_float: () => 2.5,
    r_bool: () => true,
    r_null: () => null,
    r_undefined: () => undefined,
    r_object: () => ({a: [1, null]}),
    r_array: () => [1, 'two'],
    r_image: () => new Snodo.Image(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), 'image/png'),
    r_audio: () => new Snodo.Audio(new Uint8Array([0x52, 0x49, 0x46, 0x46]), 'audio/wav'),
    r_resource: () => new Snodo.EmbeddedResource('demo://a', {text: 'A', mimeType: 'text/plain'}),
    r_blocks: () => [new Snodo.Text('one'), new Snodo.ResourceLink('demo://b', 'b')],
    r_bytes: () => new Uint8Array([1, 2]),
    r_async: async () => {
        await Snodo.sleep(1);
        return {later: true};
    },
};
for (const [name, func] of Object.entries(RETURNS))
    server.tool({name}, func);
server.tool({name: 'r_wrong', output: {n: 'integer'}}, () => ({n: 'not a number'}));

// Failures.
server.tool({name: 'fails_tool_error'}, () => {
    throw new Snodo.ToolError('no such city');
});
server.tool({name: 'fails_other'}, () => {
    throw new RangeError('out of range');
});
server.tool({name: 'fails_async'}, async ctx => {
    await Snodo.sleep(1);
    throw new Snodo.ToolError('later, no');
});
server.tool({name: 'fails_string'}, () => {
    throw 'a string';  // eslint-disable-line no-throw-literal
});

// The context.
server.tool({name: 'progress', input: {steps: 'integer'}}, ({steps}, ctx) => {
    for (let step = 1; step <= steps; step++)
        ctx.reportProgress(step, steps, `step ${step}`);
    ctx.log('info', `all ${steps} done`);
    ctx.log('warning', {steps});
    return 'done';
});
server.tool({name: 'slow', input: {ms: 'integer'}}, async ({ms}, ctx) => {
    ctx.reportProgress(0, 2);
    await ctx.sleep(ms);
    ctx.reportProgress(1, 2);
    await ctx.sleep(ms);
    return `slept ${ms} twice`;
});
let ended = 'running';
server.tool({name: 'cancellable'}, async (_args, ctx) => {
    try {
        await ctx.sleep(60000);
    } catch (error) {
        ended = error instanceof Snodo.Cancelled ? 'cancelled' : `${error}`;
        throw error;
    }
    return 'never';
});
server.tool({name: 'ended_how'}, () => ended);
server.tool({name: 'ask'}, async (_args, ctx) => {
    const answer = await ctx.elicit('Sure?', {sure: 'boolean', why: {type: 'string', optional: true}});
    return answer.action === 'accept' ? `sure: ${answer.content.sure}` : answer.action;
});
server.tool({name: 'ask_model'}, async (_args, ctx) => {
    const roots = await ctx.listRoots();
    const answer = await ctx.sample('Name a colour', {maxTokens: 5, systemPrompt: 'Be brief'});
    return {roots: roots.map(root => root.uri), said: answer.content.text};
});
server.tool({name: 'whoami'}, (_args, ctx) => ({principal: ctx.principal, scopes: ctx.scopes,
    cancelled: ctx.isCancelled()}));

// Resources and prompts.
server.resource('demo://readme', {name: 'readme', description: 'The read-me.', mimeType: 'text/markdown'},
    () => '# Demo');
server.resource('demo://notes/{id}', {name: 'note', description: 'A note by number.'},
    ({id}) => Number(id) < 10 ? {id: Number(id), text: `note ${id}`} : null);
server.resource('demo://blob/{name}', {name: 'blob'}, async ({name}) => {
    await Snodo.sleep(1);
    return new TextEncoder().encode(name);
});
server.prompt({name: 'review', description: 'Asks for a review.',
    arguments: {code: {description: 'The code to review'}, language: 'string?'}},
({code, language = 'javascript'}) => `Review this ${language}:\n${code}`);
server.prompt({name: 'dialogue', arguments: {topic: 'string'}}, ({topic}) => [
    {role: 'assistant', content: {type: 'text', text: 'Ready.'}}, `Talk about ${topic}`]);

// Refused at registration, naming the field.
for (const [input, words] of [[{when: 'date'}, "field 'when': 'date' is not a JSON type"],
    [{list: ['a', 'b']}, 'an array field is written [itemType]'], [{n: 3}, "field 'n': a field is"]]) {
    try {
        server.tool({name: 'bad', input}, () => null);
        printerr(`not refused: ${JSON.stringify(input)}`);
        imports.system.exit(3);
    } catch (error) {
        if (!error.message.includes(words)) {
            printerr(`refused as "${error.message}", expected "${words}"`);
            imports.system.exit(3);
        }
    }
}

server.run();
