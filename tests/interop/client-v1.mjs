// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 Snodo Developers
//
// Drives snodo-demo through the MCP TypeScript SDK v1
// (@modelcontextprotocol/sdk): Client + StdioClientTransport.
//
//   node tests/interop/client-v1.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { runContract } from './mcp-contract.mjs';

await runContract({
  sdk: '@modelcontextprotocol/sdk (v1) Client',
  StdioClientTransport,
  newClient: () => new Client({ name: 'snodo-interop-v1', version: '0.1.0' }, { capabilities: {} }),
  // v1 exposes the negotiated version only by handing it to the transport.
  prepare(session) {
    session.transport.setProtocolVersion = (version) => { session.protocolVersion = version; };
  },
  negotiatedVersion: (session) => session.protocolVersion,
  // v1: callTool(params, resultSchema, options)
  callTool: (client, params, options) => client.callTool(params, undefined, options),
  isRpcError: (e) => e instanceof McpError,
});
