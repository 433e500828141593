// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Serving from the running instance, with examples/gtk-notes.c: gtk-notes
// runs with its window open (serving HTTP too, which the test uses to watch
// its document); then the official TypeScript SDK client starts
// `gtk-notes --mcp-stdio` as an assistant does. That second process hands
// its standard input and output to the running instance, so the client
// reads the text of the window already open and edits it, and the window's
// document changes (read back over HTTP). Closing the client ends the
// second process, leaving no orphan; SIGTERM then ends the application with
// status 0. Through that second process the client also uses the
// application's actions as tools (app.insert-text with a string parameter,
// the stateful app.wrap and its state resource, app.restore offered only
// after app.clear, followed through notifications/tools/list_changed), and
// its GSettings key font-size: read, subscribed to, set by its tool, a
// value out of range refused. Run it on a display and a private session bus (the test runs
// it under `dbus-run-session -- xvfb-run -a`). One line per check; exits 1
// if one failed, 77 (skipped) if SNODO_EXAMPLE_SKIP says why it cannot run.
//
//   node tests/interop/example-gtk-notes-remote.mjs path/to/gtk-notes

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema,
         ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

if (process.env.SNODO_EXAMPLE_SKIP) {
  process.stdout.write(`skipped: ${process.env.SNODO_EXAMPLE_SKIP}\n`);
  process.exit(77);
}

const app = process.argv[2];
if (!app) {
  console.error('usage: example-gtk-notes-remote.mjs path/to/gtk-notes');
  process.exit(2);
}

const DOCUMENT = 'note://document';
const WRAP = 'action:app.wrap';
const FONT_SIZE = 'settings://org.snodo.examples.Notes/font-size';
const SET_FONT_SIZE = 'org.snodo.examples.Notes.set-font-size';
const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! the whole run took longer than 100 s\n');
  primary.kill('SIGKILL');
  process.exit(1);
}, 100000);

const primary = spawn(app, ['--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
const exited = new Promise((resolveExit) => primary.once('exit', (code, signal) => resolveExit({ code, signal })));
const url = await new Promise((resolveUrl, reject) => {
  const lines = createInterface({ input: primary.stdout });
  lines.once('line', (line) => resolveUrl(new URL(line.trim())));
  primary.once('exit', (code) => reject(new Error(`gtk-notes exited (${code}) before printing its URL`)));
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

async function readDocument(client) {
  const { contents } = await client.readResource({ uri: DOCUMENT });
  return contents[0].text;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// The window's side: over HTTP, which also tells that the primary
// instance's main loop runs (it is registered on the bus by then).
const watcher = new ClientV1({ name: 'gtk-notes-watcher', version: '0.1.0' }, { capabilities: {} });
await check('the running gtk-notes serves its window over HTTP', async () => {
  await watcher.connect(new StreamableHTTPClientTransport(url));
  expect((await readDocument(watcher)).startsWith('Welcome to Notes.\n'), 'the welcome text');
});

const ADDED = '\nAdded by a second gtk-notes --mcp-stdio\n';
const client = new ClientV1({ name: 'gtk-notes-remote-test', version: '0.1.0' }, { capabilities: {} });
const transport = new StdioClientTransport({ command: app, args: ['--mcp-stdio'], stderr: 'inherit',
                                             env: { ...process.env } });
// What the server sent: resources/updated by URI, and list_changed.
const updated = [];
let listChanged = 0;
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
  updated.push(notification.params.uri);
});
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  listChanged++;
});

async function until(cond, what, ms = 10000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end)
      throw new Error(`no ${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function toolsByName() {
  const { tools } = await client.listTools();
  return new Map(tools.map((tool) => [tool.name, tool]));
}

async function readText(uri) {
  const { contents } = await client.readResource({ uri });
  expect(contents[0].mimeType === 'application/json', JSON.stringify(contents));
  return contents[0].text;
}

let connected = false;
await check('a client starts gtk-notes --mcp-stdio and connects', async () => {
  await client.connect(transport);
  connected = true;
  expect(client.getServerVersion()?.name === 'gtk-notes', JSON.stringify(client.getServerVersion()));
});

if (connected) {
  await check('it reads the text of the window already open', async () => {
    const before = await readDocument(watcher);
    const text = await readDocument(client);
    expect(text === before, JSON.stringify(text));
  });

  await check('append_text edits the window already open', async () => {
    const before = await readDocument(watcher);
    const result = await client.callTool({ name: 'append_text', arguments: { text: ADDED } });
    expect(!result.isError, JSON.stringify(result));
    const after = await readDocument(watcher);
    expect(after === before + ADDED, JSON.stringify(after));
  });

  await check('tools/list shows the actions and the setter with the mapped schemas', async () => {
    const tools = await toolsByName();
    const insert = tools.get('app.insert-text');
    expect(insert, `no app.insert-text in ${[...tools.keys()]}`);
    expect(insert.description === 'Inserts text at the cursor of the document', insert.description);
    expect(insert.inputSchema.properties?.parameter?.type === 'string', JSON.stringify(insert.inputSchema));
    expect(JSON.stringify(insert.inputSchema.required) === '["parameter"]', JSON.stringify(insert.inputSchema));
    for (const name of ['app.wrap', 'app.clear']) {
      const tool = tools.get(name);
      expect(tool, `no ${name}`);
      expect(Object.keys(tool.inputSchema.properties ?? {}).length === 0, JSON.stringify(tool.inputSchema));
    }
    expect(!tools.has('app.restore'), 'app.restore is offered while it is disabled');
    const value = tools.get(SET_FONT_SIZE)?.inputSchema?.properties?.value;
    expect(value?.type === 'integer' && value.minimum === 6 && value.maximum === 72 && value.default === 14,
           JSON.stringify(value));
  });

  await check('app.insert-text inserts its string parameter in the window already open', async () => {
    const before = await readDocument(watcher);
    const INSERTED = '[inserted by app.insert-text]';
    const result = await client.callTool({ name: 'app.insert-text', arguments: { parameter: INSERTED } });
    expect(!result.isError, JSON.stringify(result));
    const after = await readDocument(client);
    expect(after.length === before.length + INSERTED.length && after.includes(INSERTED), JSON.stringify(after));
    expect(await readDocument(watcher) === after, 'the window shows another text');
  });

  await check('app.wrap: its state resource is read, subscribed to, and follows a call', async () => {
    expect(await readText(WRAP) === 'true', 'wrapping is on at first');
    await client.subscribeResource({ uri: WRAP });
    const result = await client.callTool({ name: 'app.wrap', arguments: {} });
    expect(!result.isError, JSON.stringify(result));
    await until(() => updated.includes(WRAP), `resources/updated for ${WRAP}`);
    expect(await readText(WRAP) === 'false', 'the call toggled it off');
  });

  await check('app.restore appears after app.clear, with tools/list_changed, and restores', async () => {
    const before = await readDocument(watcher);
    const seen = listChanged;
    const result = await client.callTool({ name: 'app.clear', arguments: {} });
    expect(!result.isError, JSON.stringify(result));
    expect(await readDocument(watcher) === '', 'the window is not empty');
    await until(() => listChanged > seen, 'notifications/tools/list_changed');
    expect((await toolsByName()).has('app.restore'), 'app.restore is not offered once enabled');
    const seenAgain = listChanged;
    const restored = await client.callTool({ name: 'app.restore', arguments: {} });
    expect(!restored.isError, JSON.stringify(restored));
    expect(await readDocument(watcher) === before, 'the text is not back');
    await until(() => listChanged > seenAgain, 'notifications/tools/list_changed when it is disabled again');
    expect(!(await toolsByName()).has('app.restore'), 'app.restore is still offered');
  });

  await check('the font-size setting is read, subscribed to and set through its tool', async () => {
    expect(await readText(FONT_SIZE) === '14', 'the default');
    await client.subscribeResource({ uri: FONT_SIZE });
    const result = await client.callTool({ name: SET_FONT_SIZE, arguments: { value: 20 } });
    expect(!result.isError, JSON.stringify(result));
    await until(() => updated.includes(FONT_SIZE), `resources/updated for ${FONT_SIZE}`);
    expect(await readText(FONT_SIZE) === '20', 'the value set');
  });

  await check('a font size out of range is refused, the key left as it was', async () => {
    const result = await client.callTool({ name: SET_FONT_SIZE, arguments: { value: 100 } });
    expect(result.isError === true, JSON.stringify(result));
    expect(await readText(FONT_SIZE) === '20', 'the key changed');
  });

  await check('closing the client ends the second process, leaving no orphan', async () => {
    const pid = transport.pid;
    expect(pid && pid !== primary.pid, `pid ${pid}`);
    await client.close();
    const end = Date.now() + 10000;
    while (alive(pid) && Date.now() < end)
      await new Promise((r) => setTimeout(r, 50));
    expect(!alive(pid), `${pid} still runs`);
    expect(alive(primary.pid), 'the running gtk-notes ended too');
  });
}

await watcher.close();
await check('SIGTERM ends gtk-notes with status 0', async () => {
  primary.kill('SIGTERM');
  const { code, signal } = await exited;
  expect(code === 0, `code ${code}, signal ${signal}`);
});

clearTimeout(watchdog);
process.stdout.write(`1..${n}\n`);
process.exit(failed ? 1 : 0);
