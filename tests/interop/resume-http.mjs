// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The MCP TypeScript SDK v1 client (2025-11-25) against
// `snodo-demo --http 0 --get-stream-lifetime=1 --stream-retry=1500`: the
// server closes the session's GET stream every second (SEP-1699), the
// client comes back 1.5 s later with Last-Event-ID, and every
// tools/list_changed announced meanwhile still reaches it. Then the tool
// interrupt closes the event stream of its own answer half-way: the client
// comes back with GET and Last-Event-ID and gets the rest of that stream,
// the result included, whether the result came before it was back (a
// replay) or after (live on the resumed stream). Output is TAP; the
// process exits 1 if a check failed.
//
//   node tests/interop/resume-http.mjs [path/to/snodo-demo]

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

const demo = process.argv[2] ?? process.env.SNODO_DEMO;
if (!demo) {
  console.error('usage: resume-http.mjs path/to/snodo-demo (or set SNODO_DEMO)');
  process.exit(2);
}

const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! the whole run took longer than 100 s\n');
  process.exit(1);
}, 100000);

const child = spawn(demo, ['--http', '0', '--get-stream-lifetime=1', '--stream-retry=1500'],
                    { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolveUrl, reject) => {
  const lines = createInterface({ input: child.stdout });
  lines.once('line', (line) => resolveUrl(new URL(line.trim())));
  child.once('exit', (code) => reject(new Error(`snodo-demo --http exited (${code}) before printing its URI`)));
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

const sleep = (ms) => new Promise((resolveSleep) => setTimeout(resolveSleep, ms));

const client = new Client({ name: 'snodo-interop-resume', version: '0.1.0' }, { capabilities: {} });
const transport = new StreamableHTTPClientTransport(url);
let changes = 0;
const errors = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changes++; });
client.onerror = (e) => errors.push(String(e));

await check('v1 connects over 2025-11-25', async () => {
  await client.connect(transport);
  expect(transport.protocolVersion === '2025-11-25', `negotiated ${transport.protocolVersion}`);
});

const TOGGLES = 16;
await check(`${TOGGLES} changes over 4 s, the GET stream closed every second: all arrive`, async () => {
  // Let the GET stream open first.
  await sleep(500);
  for (let i = 0; i < TOGGLES; i++) {
    const result = await client.callTool({ name: 'toggle', arguments: {} });
    expect(/extra/.test(result.content?.[0]?.text ?? ''), JSON.stringify(result));
    await sleep(250);
  }
  const deadline = Date.now() + 20000;
  while (changes < TOGGLES && Date.now() < deadline)
    await sleep(100);
  expect(changes === TOGGLES, `${changes} of ${TOGGLES} announcements arrived`);
});

// The result comes 3 s after the stream closed: the client is back (after
// 1.5 s) before it, and gets it on the resumed stream.
await check('interrupt {ms: 3000}: its stream closed, the result comes on the resumed stream', async () => {
  const progress = [];
  const start = Date.now();
  const result = await client.callTool({ name: 'interrupt', arguments: { ms: 3000 } }, undefined,
    { onprogress: (p) => progress.push(p.progress), timeout: 30000 });
  expect(result.content?.[0]?.text === 'interrupted', JSON.stringify(result));
  expect(Date.now() - start >= 2900, `answered after ${Date.now() - start} ms`);
  expect(progress.join(',') === '1,2', `progress ${JSON.stringify(progress)}`);
});

// The result comes 200 ms after the stream closed, while the client waits
// its 1.5 s: it is kept, and replayed when the client comes back.
await check('interrupt {ms: 200}: the result kept while the client was away is replayed', async () => {
  const progress = [];
  const start = Date.now();
  const result = await client.callTool({ name: 'interrupt', arguments: { ms: 200 } }, undefined,
    { onprogress: (p) => progress.push(p.progress), timeout: 30000 });
  expect(result.content?.[0]?.text === 'interrupted', JSON.stringify(result));
  expect(Date.now() - start >= 1400, `answered after ${Date.now() - start} ms: not through a resumption`);
  expect(progress[0] === 1, `progress ${JSON.stringify(progress)}`);
});

await check('the client came back (no reconnection gave up)', async () => {
  expect(!errors.some((e) => /Maximum reconnection attempts|Failed to reconnect/.test(e)), errors.join('; '));
});

await check('close', async () => {
  await client.close();
});

await check('snodo-demo --http exits 0 on SIGTERM', async () => {
  const code = await new Promise((resolveCode) => {
    child.once('exit', (status) => resolveCode(status));
    child.kill('SIGTERM');
  });
  expect(code === 0, `exit status ${code}`);
});

process.stdout.write(`1..${n}\n`);
clearTimeout(watchdog);
process.exit(failed > 0 ? 1 : 0);
