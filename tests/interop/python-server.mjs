// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A server written in Python with the overrides (introspection/test-native.py
// serve), driven by the MCP TypeScript SDK v2 client pinned to 2026-07-28,
// which validates every result strictly: structured results (from
// return_structured(), and from return_result() with structuredContent
// alone, which Snodo completes with "content": []), and handlers that raise
// (-32603 at once, and the server goes on).
//
//   node tests/interop/python-server.mjs PYTHON SCRIPT
//
// The environment must let PYTHON find the typelib and the overrides (meson
// sets GI_TYPELIB_PATH, LD_LIBRARY_PATH and PYTHONPATH). Output is TAP.

import { format } from 'node:util';
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

const [python, script] = process.argv.slice(2);
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

const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! timed out\n');
  process.exit(1);
}, 100000);

const transport = new StdioClientTransport({
  command: python, args: [script, 'serve'], stderr: 'inherit', env: { ...process.env },
});
const client = new Client({ name: 'snodo-interop-python', version: '0.1.0' }, {
  capabilities: {},
  versionNegotiation: { mode: { pin: '2026-07-28' } },
});

await check('connects in 2026-07-28', async () => {
  await client.connect(transport);
  expect(client.getNegotiatedProtocolVersion() === '2026-07-28',
    `negotiated ${client.getNegotiatedProtocolVersion()}`);
});

await check('tools/list shows the output schema', async () => {
  const { tools } = await client.listTools();
  const stats = tools.find(t => t.name === 'stats');
  expect(stats?.outputSchema?.required?.[0] === 'n', JSON.stringify(stats));
});

await check('a result with structuredContent alone is valid (content: [])', async () => {
  const result = await client.callTool({ name: 'only', arguments: {} });
  expect(JSON.stringify(result.structuredContent) === '{"ok":true}', JSON.stringify(result));
  expect(Array.isArray(result.content) && result.content.length === 0, JSON.stringify(result));
});

await check('return_structured() fits the output schema and repeats it as text', async () => {
  const result = await client.callTool({ name: 'stats', arguments: { values: [1, 2, 3, 4] } });
  expect(JSON.stringify(result.structuredContent) === '{"n":4,"mean":2.5}', JSON.stringify(result));
  expect(JSON.parse(result.content[0].text).mean === 2.5, JSON.stringify(result));
});

await check('return_structured() of a list (2026-07-28: any JSON value)', async () => {
  const result = await client.callTool({ name: 'listing', arguments: {} });
  expect(JSON.stringify(result.structuredContent) === '[1,"two",null,{"three":3.5}]', JSON.stringify(result));
});

await check('a handler that raises is answered with -32603 at once', async () => {
  try {
    await client.callTool({ name: 'shout', arguments: {} });
  } catch (e) {
    expect(e instanceof ProtocolError && e.code === -32603, `${e?.constructor?.name} ${e?.code}: ${e?.message}`);
    expect(e.message.includes("The handler of tool 'shout' failed: KeyError: 'text'"), e.message);
    return;
  }
  throw new Error('the call succeeded');
});

await check('the server keeps serving after that', async () => {
  const result = await client.callTool({ name: 'shout', arguments: { text: 'still here' } });
  expect(result.content?.[0]?.text === 'STILL HERE', JSON.stringify(result));
});

await check('the client closes cleanly', async () => {
  await client.close();
});

clearTimeout(watchdog);
process.stdout.write(`1..${count}\n`);
process.exit(failed > 0 ? 1 : 0);
