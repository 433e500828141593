// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// How each SDK client is driven, as the adapters that mcp-contract.mjs
// takes (see runContract there for what an adapter holds): the v1 SDK
// (@modelcontextprotocol/sdk), and the v2 SDK (@modelcontextprotocol/client)
// in each of its versionNegotiation modes.

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';

function capabilities(options) {
  return options.elicitation ? { elicitation: options.elicitation } : {};
}

export const v1 = {
  sdk: '@modelcontextprotocol/sdk (v1) Client',
  era: 'legacy',
  StdioClientTransport: StdioClientTransportV1,
  newClient: (options) => new ClientV1({ name: 'snodo-interop-v1', version: '0.1.0' },
    { capabilities: capabilities(options) }),
  // v1 exposes the negotiated version only by handing it to the transport.
  prepare(session) {
    session.transport.setProtocolVersion = (version) => { session.protocolVersion = version; };
  },
  negotiatedVersion: (session) => session.protocolVersion,
  // v1: callTool(params, resultSchema, options); options.onprogress sets a
  // progressToken.
  callTool: (client, params, options) => client.callTool(params, undefined, options),
  // v1 takes handlers by request and notification schema.
  onElicit: (client, handler) => client.setRequestHandler(ElicitRequestSchema, (request) => handler(request.params)),
  onToolsChanged: (client, handler) => client.setNotificationHandler(ToolListChangedNotificationSchema, handler),
  isRpcError: (e) => e instanceof McpError,
};

// The result of demo/info, as a Standard Schema (what v2's request()
// validates a result with), written out rather than with a schema library.
const demoInfoSchema = {
  '~standard': {
    version: 1,
    vendor: 'snodo-interop',
    validate(value) {
      const ok = value !== null && typeof value === 'object' && typeof value.version === 'string' &&
        typeof value.uptime === 'number' && typeof value.protocolVersion === 'string';
      return ok ? { value: { version: value.version, uptime: value.uptime, protocolVersion: value.protocolVersion } }
        : { issues: [{ message: `not a demo/info result: ${JSON.stringify(value)}` }] };
    },
  },
};

function v2(mode, era, sdk, name) {
  return {
    sdk: `@modelcontextprotocol/client (v2) Client, ${sdk}`,
    era,
    StdioClientTransport: StdioClientTransportV2,
    newClient: (options) => new ClientV2({ name, version: '0.1.0' }, {
      capabilities: capabilities(options),
      versionNegotiation: { mode },
    }),
    negotiatedVersion: (session) => session.client.getNegotiatedProtocolVersion(),
    // v2: callTool(params, options); options.onprogress sets a progressToken.
    callTool: (client, params, options) => client.callTool(params, options),
    // v2 takes handlers by method name. In 2026-07-28 the same handler
    // fulfils the elicitations of an input_required result, and the client
    // sends the call again.
    onElicit: (client, handler) => client.setRequestHandler('elicitation/create', (request) => handler(request.params)),
    onToolsChanged: (client, handler) => client.setNotificationHandler('notifications/tools/list_changed', handler),
    listen: (client, filter) => client.listen(filter),
    // v2 rejects a JSON-RPC error answer with ProtocolError (code = wire code).
    isRpcError: (e) => e instanceof ProtocolError,
    async extraChecks(check, session) {
      await check(`v2: the connection is in the ${era} era`, () => {
        const got = session.client.getProtocolEra?.();
        if (got !== era)
          throw new Error(`getProtocolEra() is ${JSON.stringify(got)}, expected "${era}"`);
      });
      await check('v2: client.request() calls demo/info, a method of snodo-demo\'s own, with a result schema of its own',
        async () => {
          const result = await session.client.request({ method: 'demo/info' }, demoInfoSchema);
          const expected = session.client.getNegotiatedProtocolVersion();
          if (result.protocolVersion !== expected)
            throw new Error(`demo/info answered ${JSON.stringify(result)}, expected protocolVersion ${expected}`);
          return `uptime ${result.uptime} s`;
        });
      await check('v2: serverInfo carries description, icons and websiteUrl', () => {
        const info = session.client.getServerVersion();
        if (typeof info?.description !== 'string' || !Array.isArray(info?.icons) || info.icons.length !== 1 ||
            !info?.websiteUrl?.startsWith('https://'))
          throw new Error(`serverInfo is ${JSON.stringify(info)}`);
      });
      if (era === 'modern') {
        await check('v2: the server/discover result lists 2026-07-28', () => {
          const discover = session.client.getDiscoverResult?.();
          if (!discover?.supportedVersions?.includes('2026-07-28'))
            throw new Error(`getDiscoverResult() is ${JSON.stringify(discover)}`);
        });
      }
    },
  };
}

// The 2025 initialize handshake, no server/discover probe.
export const v2Legacy = v2('legacy', 'legacy', 'versionNegotiation legacy', 'snodo-interop-v2-legacy');
// A server/discover probe (on stdio in a short-lived sibling process), then
// 2026-07-28 if the server offers it, else initialize.
export const v2Auto = v2('auto', 'modern', 'versionNegotiation auto', 'snodo-interop-v2-auto');
// 2026-07-28 or nothing.
export const v2Modern = v2({ pin: '2026-07-28' }, 'modern', 'versionNegotiation pinned to 2026-07-28',
  'snodo-interop-v2-modern');
