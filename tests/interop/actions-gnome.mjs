// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The MCP TypeScript SDK v1 client on `snodo actions BUS-NAME OBJECT-PATH`:
// lists the tools and calls the one named, then prints one JSON line
// {"tools": [names], "result": the call's result} on standard output.
//
//   node tests/interop/actions-gnome.mjs SNODO BUS-NAME OBJECT-PATH TOOL

import { format } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

const [snodo, busName, objectPath, tool] = process.argv.slice(2);
const client = new Client({ name: 'actions-gnome', version: '1.0.0' });
// The SDK passes on only a few variables of its own: the bus is named.
const transport = new StdioClientTransport({ command: snodo, args: ['actions', busName, objectPath],
                                             env: { ...process.env }, stderr: 'inherit' });
await client.connect(transport);
const tools = (await client.listTools()).tools;
const result = await client.callTool({ name: tool, arguments: {} });
process.stdout.write(JSON.stringify({ tools: tools.map((t) => t.name), schema: tools.find((t) => t.name === tool)?.inputSchema,
                                      result }) + '\n');
await client.close();
