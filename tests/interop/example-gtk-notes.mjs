// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Drives the GTK example, examples/gtk-notes.c, the way an assistant would:
// the official TypeScript SDK client connects to the URL the application
// prints, lists and reads its document, subscribes to it, edits it with the
// tools, sees the change announced and read back; a 2026-07-28 client reads
// it too. Then SIGTERM must end the application with status 0. Run it on a
// display (the test runs it under `xvfb-run -a`). Prints one line per check;
// exits 1 if one failed, 77 (skipped) if SNODO_EXAMPLE_SKIP says why it
// cannot run here.
//
//   node tests/interop/example-gtk-notes.mjs path/to/gtk-notes

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

if (process.env.SNODO_EXAMPLE_SKIP) {
  process.stdout.write(`skipped: ${process.env.SNODO_EXAMPLE_SKIP}\n`);
  process.exit(77);
}

const app = process.argv[2];
if (!app) {
  console.error('usage: example-gtk-notes.mjs path/to/gtk-notes');
  process.exit(2);
}

const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! the whole run took longer than 100 s\n');
  child.kill('SIGKILL');
  process.exit(1);
}, 100000);

const DOCUMENT = 'note://document';
const child = spawn(app, ['--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const exited = new Promise((resolveExit) => child.once('exit', (code, signal) => resolveExit({ code, signal })));
const url = await new Promise((resolveUrl, reject) => {
  const lines = createInterface({ input: child.stdout });
  lines.once('line', (line) => resolveUrl(new URL(line.trim())));
  child.once('exit', (code) => reject(new Error(`gtk-notes exited (${code}) before printing its URL`)));
});

let n = 0;
let failed = 0;
async function check(name, fn) {
  n++;
  try {
    await fn();
    process.stdout.write(`ok ${n} - ${name}\n`);
  } catch (e) {
    failed++;
    process.stdout.write(`not ok ${n} - ${name}\n`);
    for (const line of String(e?.stack ?? e).split('\n'))
      process.stdout.write(`# ${line}\n`);
  }
}

function expect(cond, message) {
  if (!cond)
    throw new Error(message);
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms); }),
  ]).finally(() => clearTimeout(timer));
}

async function readDocument(client) {
  const { contents } = await client.readResource({ uri: DOCUMENT });
  expect(contents.length === 1, `contents: ${JSON.stringify(contents)}`);
  expect(contents[0].mimeType === 'text/plain', `mimeType: ${contents[0].mimeType}`);
  return contents[0].text;
}

const ADDED = '\nAdded over MCP: h\u00e9llo \ud83d\udc27 "quoted"\n';
const client = new ClientV1({ name: 'gtk-notes-test', version: '0.1.0' }, { capabilities: {} });
let updates = 0;
let announced;
const nextUpdate = () => new Promise((resolveUpdate) => { announced = resolveUpdate; });
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
  if (notification.params.uri === DOCUMENT) {
    updates++;
    announced?.();
  }
});

let connected = false;
await check('connects to the URL gtk-notes printed (2025-11-25)', async () => {
  await client.connect(new TransportV1(url));
  connected = true;
  expect(client.getServerVersion()?.name === 'gtk-notes', JSON.stringify(client.getServerVersion()));
  expect(client.getServerCapabilities()?.resources?.subscribe === true,
         JSON.stringify(client.getServerCapabilities()));
});

if (connected) {
  await check('resources/list has the document, as text/plain', async () => {
    const { resources } = await client.listResources();
    const document = resources.find((r) => r.uri === DOCUMENT);
    expect(document?.mimeType === 'text/plain', JSON.stringify(resources));
  });

  await check('resources/read gives the text of the window', async () => {
    const text = await readDocument(client);
    expect(text.startsWith('Welcome to Notes.\n'), JSON.stringify(text));
  });

  await check('tools/list has append_text and replace_text with their schemas', async () => {
    const { tools } = await client.listTools();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(JSON.stringify(byName.append_text?.inputSchema?.required) === '["text"]', JSON.stringify(tools));
    expect(JSON.stringify(byName.replace_text?.inputSchema?.required) === '["search","replacement"]',
           JSON.stringify(tools));
  });

  await check('resources/subscribe to the document', async () => {
    await client.subscribeResource({ uri: DOCUMENT });
  });

  await check('append_text edits the document, which is announced as updated and read back', async () => {
    const before = await readDocument(client);
    const update = nextUpdate();
    const result = await client.callTool({ name: 'append_text', arguments: { text: ADDED } });
    expect(!result.isError && /^Appended \d+ characters/.test(result.content?.[0]?.text),
           JSON.stringify(result));
    await withTimeout(update, 10000, 'notifications/resources/updated');
    const after = await readDocument(client);
    expect(after === before + ADDED, JSON.stringify(after));
  });

  await check('replace_text replaces, and leaves the replacement alone', async () => {
    const update = nextUpdate();
    const result = await client.callTool({ name: 'replace_text',
                                           arguments: { search: 'Notes', replacement: 'Snodo Notes' } });
    expect(result.content?.[0]?.text === 'Replaced 1 occurrence', JSON.stringify(result));
    await withTimeout(update, 10000, 'notifications/resources/updated');
    const text = await readDocument(client);
    expect(text.startsWith('Welcome to Snodo Notes.\n') && text.endsWith(ADDED), JSON.stringify(text));
  });

  await check('replace_text goes on after each replacement', async () => {
    const result = await client.callTool({ name: 'replace_text', arguments: { search: '_text', replacement: '-text' } });
    expect(result.content?.[0]?.text === 'Replaced 2 occurrences', JSON.stringify(result));
    const text = await readDocument(client);
    expect(text.includes('the tools append-text and replace-text.'), JSON.stringify(text));
  });

  await check('replace_text of a text that is not there is a tool error, and changes nothing', async () => {
    const before = await readDocument(client);
    const result = await client.callTool({ name: 'replace_text',
                                           arguments: { search: 'no such text', replacement: 'x' } });
    expect(result.isError === true, JSON.stringify(result));
    expect(await readDocument(client) === before, 'the document changed');
  });

  await check('append_text without text is refused by its schema', async () => {
    const result = await client.callTool({ name: 'append_text', arguments: {} });
    expect(result.isError === true, JSON.stringify(result));
  });

  await check('a 2026-07-28 client reads the same document', async () => {
    const modern = new Client({ name: 'gtk-notes-test-v2', version: '0.1.0' },
                              { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await modern.connect(new StreamableHTTPClientTransport(url));
    expect(modern.getNegotiatedProtocolVersion() === '2026-07-28', modern.getNegotiatedProtocolVersion());
    const text = await readDocument(modern);
    expect(text === await readDocument(client), JSON.stringify(text));
    await modern.close();
  });

  await check(`every edit was announced (${updates} so far)`, async () => {
    expect(updates >= 2, `${updates} notifications/resources/updated`);
  });

  await check('close', async () => {
    await client.close();
  });
}

await check('gtk-notes exits 0 on SIGTERM', async () => {
  child.kill('SIGTERM');
  const { code, signal } = await withTimeout(exited, 20000, 'exit');
  expect(code === 0, `exit status ${code}, signal ${signal}`);
});

process.stdout.write(`1..${n}\n`);
clearTimeout(watchdog);
process.exit(failed > 0 ? 1 : 0);
