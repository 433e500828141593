// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A server written as plain functions (examples/notes.py or notes.js, the
// short form of the overrides), driven by the TypeScript SDK v1 and v2 clients
// over stdio and Streamable HTTP, in both protocol eras: the tools listed
// with the schemas derived from the type hints, calls answered with
// structured results, progress and log messages received, an elicitation
// answered, a ToolError seen as isError, a resource template and a prompt
// read, and a cancelled async tool's coroutine ended.
//
//   node tests/interop/functions-example.mjs COMMAND [ARG...]
//
// COMMAND ARG... starts the server (--http 0 is added for HTTP). The
// environment must let it find the typelib and the overrides (meson sets
// GI_TYPELIB_PATH, LD_LIBRARY_PATH, PYTHONPATH and GJS_PATH). Output is TAP.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { v1, v2Legacy, v2Modern, v2Auto } from './adapters.mjs';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

const [command, ...commandArgs] = process.argv.slice(2);
let count = 0;
let failed = 0;
process.stdout.write('TAP version 13\n');

async function check(name, fn) {
  count++;
  try {
    await fn();
    process.stdout.write(`ok ${count} - ${name}\n`);
  } catch (e) {
    failed++;
    process.stdout.write(`not ok ${count} - ${name}\n# ${String(e?.stack ?? e).replace(/\n/g, '\n# ')}\n`);
  }
}

function expect(cond, message) {
  if (!cond)
    throw new Error(message);
}

function same(got, expected, what) {
  expect(JSON.stringify(got) === JSON.stringify(expected),
    `${what}: ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
}

const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! timed out\n');
  process.exit(1);
}, 110000);

const env = { ...process.env };

// What the server wrote on stderr, and a promise for a line matching.
function watchStderr(stream) {
  const lines = [];
  const waiters = [];
  createInterface({ input: stream }).on('line', line => {
    process.stderr.write(`server: ${line}\n`);
    lines.push(line);
    for (const w of waiters.filter(w => w.re.test(line)))
      w.resolve(line);
  });
  return re => new Promise((resolve, reject) => {
    const found = lines.find(l => re.test(l));
    if (found)
      return resolve(found);
    waiters.push({ re, resolve });
    setTimeout(() => reject(new Error(`no line matching ${re} on the server's stderr`)), 10000);
  });
}

async function startStdio(adapter) {
  const transport = new adapter.StdioClientTransport({ command, args: commandArgs, stderr: 'pipe', env });
  const waitStderr = watchStderr(transport.stderr);
  return { transport, waitStderr, stop: async () => {} };
}

async function startHttp(adapter) {
  const child = spawn(command, [...commandArgs, '--http', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const waitStderr = watchStderr(child.stderr);
  const uri = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', status => reject(new Error(`the server exited with ${status}`)));
  });
  const url = new URL(uri);
  const transport = adapter === v1 ? new TransportV1(url) : new StreamableHTTPClientTransport(url);
  const stop = () => new Promise(resolve => {
    child.once('exit', (status, signal) => resolve({ status, signal }));
    child.kill('SIGTERM');
  });
  return { transport, waitStderr, stop };
}

async function drive(label, adapter, start) {
  const { transport, waitStderr, stop } = await start(adapter);
  const client = adapter.newClient({ elicitation: {} });
  const session = { client, transport };
  adapter.prepare?.(session);
  const logs = [];
  if (adapter === v1)
    client.setNotificationHandler(LoggingMessageNotificationSchema, n => logs.push(n.params));
  else
    client.setNotificationHandler('notifications/message', n => logs.push(n.params));
  adapter.onElicit(client, params => {
    expect(params.requestedSchema?.properties?.sure?.type === 'boolean', JSON.stringify(params));
    return { action: 'accept', content: { sure: true } };
  });

  await check(`${label}: connects`, async () => {
    await client.connect(transport);
  });

  await check(`${label}: the tools have the schemas of their type hints`, async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map(t => [t.name, t]));
    same(Object.keys(byName).sort(), ['add_note', 'clear_notes', 'count_words', 'get_note'], 'tools');
    same(byName.add_note.inputSchema, {
      type: 'object',
      properties: { title: { type: 'string' }, text: { type: 'string', description: 'What the note says' } },
      required: ['title', 'text'],
    }, 'add_note inputSchema');
    same(byName.add_note.outputSchema, {
      type: 'object',
      properties: { id: { type: 'integer' }, title: { type: 'string' }, text: { type: 'string' },
        words: { type: 'integer' } },
      required: ['id', 'title', 'text', 'words'],
    }, 'add_note outputSchema');
    same(byName.count_words.inputSchema, {
      type: 'object',
      properties: { pause_ms: { type: 'integer', description: 'How long to pause after each note, in milliseconds.',
        default: 0 } },
    }, 'count_words inputSchema (no ctx)');
    same(byName.add_note.description, 'Adds a note and gives it an id.', 'description from the docstring');
  });

  await check(`${label}: a dataclass result is structured content`, async () => {
    for (const [title, text] of [['one', 'a b c'], ['two', 'd e'], ['three', 'f']]) {
      const result = await adapter.callTool(client, { name: 'add_note', arguments: { title, text } });
      expect(result.structuredContent?.title === title && !result.isError, JSON.stringify(result));
    }
    const result = await adapter.callTool(client, { name: 'get_note', arguments: { id: 2 } });
    same(result.structuredContent, { id: 2, title: 'two', text: 'd e', words: 2 }, 'get_note');
    same(JSON.parse(result.content[0].text), result.structuredContent, 'its text');
  });

  await check(`${label}: a ToolError is a result with isError`, async () => {
    const result = await adapter.callTool(client, { name: 'get_note', arguments: { id: 99 } });
    same([result.content, result.isError], [[{ type: 'text', text: 'There is no note 99' }], true],
      'get_note 99');
  });

  await check(`${label}: progress and a log message from an async tool`, async () => {
    const progress = [];
    // 20 ms apart: v1 hands notifications on a microtask later than
    // answers, so a report written just before the answer would be lost.
    // 2026-07-28 sends log messages only to a request that asks for them.
    const result = await adapter.callTool(client, { name: 'count_words', arguments: { pause_ms: 20 },
      _meta: { 'io.modelcontextprotocol/logLevel': 'info' } },
      { onprogress: p => progress.push([p.progress, p.total, p.message]) });
    same(result.structuredContent, { notes: 3, words: 6 }, 'count_words');
    same(progress, [[1, 3, 'counted one'], [2, 3, 'counted two'], [3, 3, 'counted three']], 'progress');
    expect(logs.some(l => l.level === 'info' && l.data === '6 words in 3 notes'), JSON.stringify(logs));
  });

  await check(`${label}: a resource template and a prompt`, async () => {
    const read = await client.readResource({ uri: 'notes://1' });
    same(read.contents, [{ uri: 'notes://1', mimeType: 'text/plain', text: 'a b c' }], 'notes://1');
    const prompt = await client.getPrompt({ name: 'summarize', arguments: { id: '3' } });
    same(prompt.messages, [{ role: 'user', content: { type: 'text',
      text: 'Summarize this note in one sentence:\n\nf' } }], 'summarize');
  });

  await check(`${label}: a cancelled async tool's coroutine ends`, async () => {
    const controller = new AbortController();
    const call = adapter.callTool(client, { name: 'count_words', arguments: { pause_ms: 10000 } },
      { signal: controller.signal, onprogress: () => controller.abort() });
    await call.then(r => { throw new Error(`answered: ${JSON.stringify(r)}`); }, () => {});
    await waitStderr(/count_words cancelled after 0 notes/);
  });

  await check(`${label}: an elicitation answered`, async () => {
    const result = await adapter.callTool(client, { name: 'clear_notes', arguments: {} });
    same(result.content, [{ type: 'text', text: 'Deleted 3 notes' }], 'clear_notes');
  });

  await check(`${label}: closes`, async () => {
    await client.close();
    const end = await stop();
    if (end)
      expect(end.status === 0, `exit ${JSON.stringify(end)}`);
  });
}

await drive('v1 stdio', v1, startStdio);
await drive('v2 legacy stdio', v2Legacy, startStdio);
await drive('v2 2026-07-28 stdio', v2Modern, startStdio);
await drive('v1 HTTP', v1, startHttp);
await drive('v2 auto HTTP', v2Auto, startHttp);

clearTimeout(watchdog);
process.stdout.write(`1..${count}\n`);
process.exit(failed > 0 ? 1 : 0);
