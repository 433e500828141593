// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Drives `snodo-demo --http 0` through the Streamable HTTP client transports
// of the MCP TypeScript SDKs: v1 (2025-11-25), v2 in legacy mode, v2 in
// auto mode (a server/discover probe, then 2026-07-28) and v2 pinned to
// 2026-07-28. Output is TAP on stdout; the process exits 1 if a check
// failed.
//
//   node tests/interop/client-http.mjs [path/to/snodo-demo]
//
// With SNODO_HTTP_SERVER set to a JSON array (a command line, which
// prints its URL as its first line), that server instead: `snodo proxy
// --http 127.0.0.1:0 -- snodo-demo`, the same checks through the proxy.

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

const demo = process.argv[2] ?? process.env.SNODO_DEMO;
if (!demo) {
  console.error('usage: client-http.mjs path/to/snodo-demo (or set SNODO_DEMO)');
  process.exit(2);
}

const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! the whole run took longer than 100 s\n');
  process.exit(1);
}, 100000);

const command = process.env.SNODO_HTTP_SERVER ? JSON.parse(process.env.SNODO_HTTP_SERVER) : [demo, '--http', '0'];
const serverName = process.env.SNODO_HTTP_SERVER ? 'snodo proxy --http' : 'snodo-demo --http';
const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolveUrl, reject) => {
  const lines = createInterface({ input: child.stdout });
  lines.once('line', (line) => resolveUrl(new URL(line.trim())));
  child.once('exit', (code) => reject(new Error(`${serverName} exited (${code}) before printing its URI`)));
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

const TEXT = 'h\u00e9llo \ud83d\udc27 "quoted" \\ and a\nnewline';

const clients = [
  { label: 'v1', version: '2025-11-25',
    make: () => new ClientV1({ name: 'snodo-interop-http-v1', version: '0.1.0' }, { capabilities: {} }),
    transport: () => new TransportV1(url) },
  { label: 'v2 legacy', version: '2025-11-25',
    make: () => new Client({ name: 'snodo-interop-http-v2', version: '0.1.0' },
                           { capabilities: {}, versionNegotiation: { mode: 'legacy' } }),
    transport: () => new StreamableHTTPClientTransport(url) },
  { label: 'v2 auto', version: '2026-07-28',
    make: () => new Client({ name: 'snodo-interop-http-v2', version: '0.1.0' },
                           { capabilities: {}, versionNegotiation: { mode: 'auto' } }),
    transport: () => new StreamableHTTPClientTransport(url) },
  { label: 'v2 pinned 2026-07-28', version: '2026-07-28',
    make: () => new Client({ name: 'snodo-interop-http-v2', version: '0.1.0' },
                           { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    transport: () => new StreamableHTTPClientTransport(url) },
];

for (const c of clients) {
  const client = c.make();
  let connected = false;

  await check(`${c.label}: connects and negotiates ${c.version}`, async () => {
    const transport = c.transport();
    await client.connect(transport);
    connected = true;
    const version = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
    expect(version === c.version, `negotiated ${version}`);
  });
  if (!connected)
    continue;

  await check(`${c.label}: tools/list`, async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['echo', 'add', 'sleep', 'progress'])
      expect(names.includes(name), `no ${name} in ${JSON.stringify(names)}`);
  });

  await check(`${c.label}: tools/call echo keeps the text intact`, async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: TEXT } });
    expect(result.content?.[0]?.text === TEXT, `got ${JSON.stringify(result)}`);
  });

  await check(`${c.label}: tools/call progress (an event stream) ends with its result`, async () => {
    const result = await client.callTool({ name: 'progress', arguments: { steps: 3 } });
    expect(result.content?.[0]?.text === 'done 3 steps', `got ${JSON.stringify(result)}`);
  });

  await check(`${c.label}: an unknown tool is an error`, async () => {
    let threw = false;
    try {
      const result = await client.callTool({ name: 'no-such-tool', arguments: {} });
      threw = result?.isError === true;
    } catch {
      threw = true;
    }
    expect(threw, 'no error');
  });

  await check(`${c.label}: concurrent calls run side by side`, async () => {
    const start = Date.now();
    const results = await Promise.all(Array.from({ length: 8 }, () =>
      client.callTool({ name: 'sleep', arguments: { ms: 300 } })));
    const elapsed = Date.now() - start;
    expect(results.every((r) => r.content?.[0]?.text === 'slept 300'), JSON.stringify(results[0]));
    expect(elapsed < 2000, `took ${elapsed} ms`);
  });

  await check(`${c.label}: close`, async () => {
    await client.close();
  });
}

// A Windows build (run under wine by .ci/cross-windows) has no signals to
// stop on: SNODO_DEMO_NO_SIGNALS=1 reports the check as skipped.
if (process.env.SNODO_DEMO_NO_SIGNALS === '1') {
  n++;
  process.stdout.write(`ok ${n} - ${serverName} exits 0 on SIGTERM # SKIP no signals on Windows\n`);
  child.kill('SIGKILL');
} else {
  await check(`${serverName} exits 0 on SIGTERM`, async () => {
    const code = await new Promise((resolveCode) => {
      child.once('exit', (status) => resolveCode(status));
      child.kill('SIGTERM');
    });
    expect(code === 0, `exit status ${code}`);
  });
}

process.stdout.write(`1..${n}\n`);
clearTimeout(watchdog);
process.exit(failed > 0 ? 1 : 0);
