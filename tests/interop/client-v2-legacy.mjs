// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 Snodo Developers
//
// Drives snodo-demo through the MCP TypeScript SDK v2
// (@modelcontextprotocol/client) with versionNegotiation mode 'legacy':
// the 2025 initialize handshake, no server/discover probe.
//
//   node tests/interop/client-v2-legacy.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { runContract } from './mcp-contract.mjs';

await runContract({
  sdk: '@modelcontextprotocol/client (v2) Client, versionNegotiation legacy',
  StdioClientTransport,
  newClient: () => new Client({ name: 'snodo-interop-v2-legacy', version: '0.1.0' }, {
    capabilities: {},
    versionNegotiation: { mode: 'legacy' },
  }),
  negotiatedVersion: (session) => session.client.getNegotiatedProtocolVersion(),
  // v2: callTool(params, options)
  callTool: (client, params, options) => client.callTool(params, options),
  // v2 rejects a JSON-RPC error answer with ProtocolError (code = wire code).
  isRpcError: (e) => e instanceof ProtocolError,
  async extraChecks(check, session) {
    await check('v2 legacy: the connection is in the legacy era', () => {
      const era = session.client.getProtocolEra?.();
      if (era !== 'legacy')
        throw new Error(`getProtocolEra() is ${JSON.stringify(era)}, expected "legacy"`);
    });
  },
});
