// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A stdio MCP server written on the official TypeScript SDK, for the tests
// of SnodoClient against servers nobody here wrote:
//
//   node sdk-stdio-server.mjs v1   @modelcontextprotocol/sdk 1.x (2025 era)
//   node sdk-stdio-server.mjs v2   @modelcontextprotocol/server 2.x with
//                                  serveStdio() (both eras)
//
// Tools, as the SDKs' documentation wires them:
//   echo  {text: string}  one text content equal to text
//   sleep {ms: integer}   waits, then the text "slept <ms>" (cancellable)
//   deploy {env: string}  v2 only: asks for a confirmation with the SDK's
//                         inputRequired() (input_required in 2026-07-28,
//                         elicitation/create in 2025), then "deployed to
//                         <env>" or "not deployed"

import { z } from 'zod';

const which = process.argv[2];

async function sleep(ms, signal) {
  await new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('cancelled')); });
  });
  return { content: [{ type: 'text', text: `slept ${ms}` }] };
}

if (which === 'v1') {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = new McpServer({ name: 'sdk-v1-stdio', version: '0.1.0' });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('sleep', { description: 'Waits', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }, extra) => sleep(ms, extra?.signal));
  await server.connect(new StdioServerTransport());
} else if (which === 'v2') {
  const { McpServer, inputRequired, acceptedContent } = await import('@modelcontextprotocol/server');
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  serveStdio(() => {
    const server = new McpServer({ name: 'sdk-v2-stdio', version: '0.1.0' }, { capabilities: { tools: {} } });
    server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('sleep', { description: 'Waits', inputSchema: z.object({ ms: z.number().int().min(0) }) },
      async ({ ms }, extra) => sleep(ms, extra?.signal));
    // As the SDK documents inputRequired(): 2026-07-28 returns it to the
    // client; for a 2025 client the SDK sends a real elicitation request.
    server.registerTool('deploy', { description: 'Deploys after a confirmation',
                                    inputSchema: z.object({ env: z.string() }) },
      async ({ env }, ctx) => {
        const confirmation = z.object({ confirm: z.boolean() });
        const confirmed = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
        if (confirmed === undefined)
          return inputRequired({
            inputRequests: {
              confirm: inputRequired.elicit({ message: `Deploy to ${env}?`, requestedSchema: confirmation }),
            },
          });
        return { content: [{ type: 'text', text: confirmed.confirm ? `deployed to ${env}` : 'not deployed' }] };
      });
    return server;
  });
} else {
  console.error('usage: sdk-stdio-server.mjs v1|v2');
  process.exit(2);
}
// Leave at the end of input, as a stdio server should.
process.stdin.on('end', () => process.exit(0));
