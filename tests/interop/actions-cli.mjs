// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// `snodo actions BUS-NAME` driven by the MCP TypeScript SDK v1 client over
// stdio: tests/actions-app.py, a GApplication, owns org.snodo.TestActions
// on a session bus (run this under dbus-run-session); the client lists its
// actions as tools, calls one (the application prints the activation),
// follows an action the application enables, and reads and subscribes to
// a state. Prints TAP.
//
//   node tests/interop/actions-cli.mjs SNODO PYTHON3 ACTIONS-APP

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

const [snodo, python, appScript] = process.argv.slice(2);
if (!appScript) {
  console.error('usage: actions-cli.mjs SNODO PYTHON3 ACTIONS-APP');
  process.exit(2);
}

const app = spawn(python, [appScript], { stdio: ['ignore', 'pipe', 'inherit'] });
const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! the whole run took longer than 50 s\n');
  app.kill('SIGKILL');
  process.exit(1);
}, 50000);

// The application's lines, in order, waited for one at a time.
const lines = [];
let waiter = null;
createInterface({ input: app.stdout }).on('line', (line) => {
  if (waiter) {
    const w = waiter;
    waiter = null;
    w(line);
  } else {
    lines.push(line);
  }
});
const appLine = () => (lines.length > 0 ? Promise.resolve(lines.shift())
  : new Promise((resolve) => { waiter = resolve; }));

let n = 0;
let failed = 0;
async function check(name, fn) {
  n++;
  try {
    await fn();
    process.stdout.write(`ok ${n} - ${name}\n`);
  } catch (e) {
    failed++;
    process.stdout.write(`not ok ${n} - ${name}: ${e.message}\n`);
  }
}
function assert(condition, message) {
  if (!condition)
    throw new Error(message);
}

await check('the application is on the bus', async () => assert(await appLine() === 'ready', 'no ready line'));

const client = new Client({ name: 'snodo-actions-interop', version: '0.1.0' });
const transport = new StdioClientTransport({ command: snodo, args: ['actions', 'org.snodo.TestActions'],
  // The SDK passes on only a few variables by default; snodo needs the bus's address.
  env: { ...process.env }, stderr: 'inherit' });
let listChanged = null;
const listChangedSeen = new Promise((resolve) => { listChanged = resolve; });
let updated = null;
const updatedSeen = new Promise((resolve) => { updated = resolve; });
client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged());
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated(n.params.uri));
await client.connect(transport);

await check('the enabled actions are tools with mapped schemas', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert(JSON.stringify(names) === '["app.dark","app.greet","app.unlock"]', `tools ${names}`);
  const greet = tools.find((t) => t.name === 'app.greet');
  assert(JSON.stringify(greet.inputSchema.properties.parameter) === '{"type":"string"}', 'greet takes a string');
  assert(greet.inputSchema.required[0] === 'parameter', 'the parameter is required');
});

await check('a call activates the action in the application', async () => {
  const result = await client.callTool({ name: 'app.greet', arguments: { parameter: 'sdk' } });
  assert(!result.isError, 'the call failed');
  const line = await appLine();
  assert(line === 'greet sdk', `the application printed ${line}`);
});

await check('an action the application enables is announced and listed', async () => {
  await client.callTool({ name: 'app.unlock', arguments: {} });
  assert(await appLine() === 'unlock', 'unlock not activated');
  await listChangedSeen;
  const { tools } = await client.listTools();
  assert(tools.some((t) => t.name === 'app.save'), 'app.save is not listed');
});

await check('a state is a resource, and its subscriber is told of a change', async () => {
  let read = await client.readResource({ uri: 'action:app.dark' });
  assert(read.contents[0].text === 'false', `state ${read.contents[0].text}`);
  await client.subscribeResource({ uri: 'action:app.dark' });
  await client.callTool({ name: 'app.dark', arguments: {} });
  assert(await appLine() === 'dark True', 'the state did not change in the application');
  assert(await updatedSeen === 'action:app.dark', 'no update for action:app.dark');
  read = await client.readResource({ uri: 'action:app.dark' });
  assert(read.contents[0].text === 'true', `state ${read.contents[0].text}`);
});

await client.close();
app.kill('SIGTERM');
clearTimeout(watchdog);
process.stdout.write(`1..${n}\n`);
process.exit(failed > 0 ? 1 : 0);
