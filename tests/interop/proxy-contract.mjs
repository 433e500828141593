// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The contract of mcp-contract.mjs, through `snodo proxy`: the SDK client
// starts `snodo proxy URL` (URL: a `snodo-demo --http 0` this
// script runs) or `snodo proxy -- snodo-demo`, and every check of the
// demo holds through it: each tool, progress, elicitation, list changes
// (subscriptions/listen in 2026-07-28), resources, prompts, completion,
// cancellation, concurrency, the answer written before exit at the end of
// input.
//
//   node tests/interop/proxy-contract.mjs SNODO ADAPTER http|stdio SNODO-DEMO
//
// ADAPTER is one of adapters.mjs: v1, v2Legacy, v2Modern.
//
// Mode serve: the URL is that of `snodo proxy --http 127.0.0.1:0 --
// snodo-demo` instead, so that every check goes through the HTTP front of
// the proxy too (SDK -> snodo proxy URL -> snodo proxy --http -> snodo-demo).

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import * as adapters from './adapters.mjs';
import { runContract } from './mcp-contract.mjs';

const [snodo, adapterName, mode, demo] = process.argv.slice(2);
const adapter = adapters[adapterName];
if (!snodo || !adapter || !['http', 'serve', 'stdio'].includes(mode) || !demo) {
  process.stdout.write('Bail out! usage: proxy-contract.mjs SNODO v1|v2Legacy|v2Modern http|serve|stdio SNODO-DEMO\n');
  process.exit(1);
}

let args;
if (mode === 'http' || mode === 'serve') {
  const server = mode === 'http' ? spawn(demo, ['--http', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
                                 // One pooled server: the contract's state (toggle, then the
                                 // list change on its subscription) is one server's.
                                 : spawn(snodo, ['proxy', '--http', '127.0.0.1:0', '--pool-size', '1', '--', demo],
                                         { stdio: ['ignore', 'pipe', 'inherit'] });
  process.on('exit', () => server.kill('SIGKILL'));
  const url = await new Promise((resolveUrl, reject) => {
    const lines = createInterface({ input: server.stdout });
    lines.once('line', (line) => resolveUrl(line.trim()));
    server.once('exit', (code) => reject(new Error(`the HTTP server exited (${code}) before printing its URL`)));
  });
  args = ['proxy', url];
} else {
  args = ['proxy', '--', demo];
}
process.env.SNODO_DEMO_ARGS = JSON.stringify(args);

await runContract(adapter);
