// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The TypeScript SDK clients (v1, v2 in the legacy era, v2 pinned to
// 2026-07-28) reach @modelcontextprotocol/server-everything, a server of
// the initialize era only, through `snodo proxy` each way: as the child
// of `snodo proxy -- NODE EVERYTHING` on standard input and output, and at
// the URL of `snodo proxy --http 127.0.0.1:0 -- NODE EVERYTHING`. Each
// lists the tools, calls echo and get-sum, and reads a resource; a
// 2026-07-28 client is served by mapping to the server's era.
//
//   node tests/interop/proxy-everything.mjs SNODO NODE EVERYTHING
//
// Output is TAP.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [snodo, node, everything] = process.argv.slice(2);
if (!snodo || !node || !everything) {
  process.stdout.write('Bail out! usage: proxy-everything.mjs SNODO NODE EVERYTHING\n');
  process.exit(1);
}

let count = 0;
let failed = 0;
process.stdout.write('TAP version 13\n');

async function check(name, body) {
  count++;
  try {
    await body();
    process.stdout.write(`ok ${count} - ${name}\n`);
  } catch (error) {
    failed++;
    process.stdout.write(`not ok ${count} - ${name}\n# ${String(error?.stack ?? error).replace(/\n/g, '\n# ')}\n`);
  }
}

function text(result) {
  return (result?.content ?? []).map((block) => block.text ?? '').join('');
}

// The proxy over HTTP, and its URL.
const front = spawn(snodo, ['proxy', '--http', '127.0.0.1:0', '--', node, everything],
  { stdio: ['ignore', 'pipe', 'ignore'] });
process.on('exit', () => front.kill('SIGKILL'));
const url = await new Promise((resolve, reject) => {
  createInterface({ input: front.stdout }).once('line', (line) => resolve(new URL(line.trim())));
  front.once('exit', (code) => reject(new Error(`snodo proxy --http exited (${code}) before printing its URL`)));
});

const stdioArgs = ['proxy', '--', node, everything];
const clients = [
  { label: 'v1', version: '2025-11-25',
    make: () => new ClientV1({ name: 'snodo-interop-v1', version: '0.1.0' }, { capabilities: {} }),
    stdio: () => new StdioClientTransportV1({ command: snodo, args: stdioArgs, stderr: 'ignore' }),
    http: () => new HttpTransportV1(url) },
  { label: 'v2 legacy', version: '2025-11-25',
    make: () => new Client({ name: 'snodo-interop-v2', version: '0.1.0' },
      { capabilities: {}, versionNegotiation: { mode: 'legacy' } }),
    stdio: () => new StdioClientTransport({ command: snodo, args: stdioArgs, stderr: 'ignore' }),
    http: () => new StreamableHTTPClientTransport(url) },
  { label: 'v2 pinned 2026-07-28', version: '2026-07-28',
    make: () => new Client({ name: 'snodo-interop-v2', version: '0.1.0' },
      { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    stdio: () => new StdioClientTransport({ command: snodo, args: stdioArgs, stderr: 'ignore' }),
    http: () => new StreamableHTTPClientTransport(url) },
];

for (const c of clients) {
  for (const way of ['stdio', 'http']) {
    const label = `${c.label}, ${way === 'stdio' ? 'snodo proxy -- server-everything' : 'snodo proxy --http -- server-everything'}`;
    const client = c.make();
    let connected = false;

    await check(`${label}: connects`, async () => {
      await client.connect(c[way]());
      connected = true;
      const version = client.getNegotiatedProtocolVersion?.();
      if (version !== undefined && version !== c.version)
        throw new Error(`negotiated ${version}, expected ${c.version}`);
    });
    if (!connected)
      continue;
    await check(`${label}: lists the tools`, async () => {
      const { tools } = await client.listTools();
      const names = tools.map((tool) => tool.name);
      if (!names.includes('echo') || !names.includes('get-sum'))
        throw new Error(`tools ${JSON.stringify(names)}`);
    });
    await check(`${label}: calls echo and get-sum`, async () => {
      const echo = await client.callTool({ name: 'echo', arguments: { message: 'h\u00e9llo' } });
      const sum = await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } });
      if (!text(echo).includes('h\u00e9llo') || !text(sum).includes('42'))
        throw new Error(`answers ${JSON.stringify([echo, sum])}`);
    });
    await check(`${label}: reads a resource`, async () => {
      const { resources } = await client.listResources();
      if (resources.length === 0)
        throw new Error('no resources');
      const read = await client.readResource({ uri: resources[0].uri });
      if (read.contents?.[0]?.uri !== resources[0].uri)
        throw new Error(`read ${JSON.stringify(read).slice(0, 300)}`);
    });
    await client.close();
  }
}

front.kill('SIGTERM');
process.stdout.write(`1..${count}\n`);
process.exit(failed ? 1 : 0);
