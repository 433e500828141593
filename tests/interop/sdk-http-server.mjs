// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A Streamable HTTP MCP server written on the official TypeScript SDK, for
// the tests of SnodoClient over HTTP against servers nobody here wrote.
// Listens on 127.0.0.1 (any free port) and prints its URL.
//
//   node sdk-http-server.mjs v1   @modelcontextprotocol/sdk 1.x: one session
//                                 per initialize, SSE answers with event ids
//                                 (the SDK's in-memory event store), so a
//                                 broken answer can be resumed
//   node sdk-http-server.mjs v2   @modelcontextprotocol/server 2.x with
//                                 createMcpHandler() (2026-07-28, and the
//                                 SDK's stateless handling of 2025 traffic)
//
// Tools:
//   echo      {text: string}  one text content equal to text
//   sleep     {ms: integer}   waits, then the text "slept <ms>" (cancellable)
//   deploy    {env: string}   v2 only: asks for a confirmation with the
//                             SDK's inputRequired() (input_required in
//                             2026-07-28, elicitation/create in 2025), then
//                             "deployed to <env>" or "not deployed"
//   interrupt {}              v1 only: closes its own answer stream, then
//                             answers "resumed" 300 ms later (the client
//                             must resume with Last-Event-ID to see it)

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';
import { z } from 'zod';

const which = process.argv[2];

async function sleep(ms, signal) {
  await new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => { clearTimeout(timer); reject(new Error('cancelled')); });
  });
  return { content: [{ type: 'text', text: `slept ${ms}` }] };
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function listen(httpServer) {
  httpServer.listen(0, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${httpServer.address().port}/mcp`);
  });
  process.on('SIGINT', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

if (which === 'v1') {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
  const { InMemoryEventStore } = await import('@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js');

  const makeServer = () => {
    const server = new McpServer({ name: 'sdk-v1-http', version: '0.1.0' });
    server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text }] }));
    server.registerTool('sleep', { description: 'Waits', inputSchema: { ms: z.number().int().min(0) } },
      async ({ ms }, extra) => sleep(ms, extra?.signal));
    server.registerTool('interrupt', { description: 'Breaks its answer stream, then answers', inputSchema: {} },
      async (_args, extra) => {
        if (!extra.closeSSEStream)
          throw new Error('no closeSSEStream: the client did not speak 2025-11-25');
        extra.closeSSEStream();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { content: [{ type: 'text', text: 'resumed' }] };
      });
    return server;
  };

  const transports = new Map();
  listen(http.createServer(async (req, res) => {
    try {
      const sessionId = req.headers['mcp-session-id'];
      let body;
      if (req.method === 'POST') {
        try {
          body = JSON.parse(await readBody(req));
        } catch {
          res.writeHead(400).end();
          return;
        }
      }
      let transport = sessionId ? transports.get(sessionId) : undefined;
      if (!transport) {
        if (sessionId || req.method !== 'POST' || !isInitializeRequest(body)) {
          res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'No valid session' } }));
          return;
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          eventStore: new InMemoryEventStore(),
          retryInterval: 100,
          onsessioninitialized: (id) => transports.set(id, transport),
        });
        transport.onclose = () => {
          if (transport.sessionId)
            transports.delete(transport.sessionId);
        };
        await makeServer().connect(transport);
      }
      await transport.handleRequest(req, res, body);
    } catch (e) {
      if (!res.headersSent)
        res.writeHead(500).end();
    }
  }));
} else if (which === 'v2') {
  const { McpServer, createMcpHandler, localhostAllowedHostnames, hostHeaderValidationResponse,
          inputRequired, acceptedContent } = await import('@modelcontextprotocol/server');

  const makeServer = () => {
    const server = new McpServer({ name: 'sdk-v2-http', version: '0.1.0' }, { capabilities: { tools: {} } });
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
  };

  // The handler's fetch() face on node:http.
  const handler = createMcpHandler(makeServer);
  const hosts = localhostAllowedHostnames();
  listen(http.createServer(async (req, res) => {
    try {
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers))
        headers.set(k, Array.isArray(v) ? v.join(', ') : v);
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const controller = new AbortController();
      res.on('close', () => controller.abort());
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method, headers, signal: controller.signal,
        body: hasBody ? Readable.toWeb(req) : undefined, duplex: hasBody ? 'half' : undefined,
      });
      const response = hostHeaderValidationResponse(request, hosts) ?? await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (response.body) {
        for await (const chunk of response.body)
          res.write(chunk);
      }
      res.end();
    } catch (e) {
      if (!res.headersSent)
        res.writeHead(500);
      res.end();
    }
  }));
} else {
  console.error('usage: sdk-http-server.mjs v1|v2');
  process.exit(2);
}
