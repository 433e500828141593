// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The benchmark peer on the MCP TypeScript SDK v1 (@modelcontextprotocol/sdk),
// with the same tools snodo-demo has for the benchmark workloads:
//
//   echo  {text: string}  one text content equal to text
//   sleep {ms: integer}   waits, then the text "slept <ms>"
//
//   node ts-v1-server.mjs            stdio (2025 era: v1 does not serve 2026-07-28)
//   node ts-v1-server.mjs --http 0   Streamable HTTP on 127.0.0.1 (0: any free
//                                    port), one session per initialize, as the
//                                    SDK's own examples wire it; prints the URL
//
// Written the way the SDK's documentation shows, with no tuning, so that it
// stands for what a typical v1 server does.

import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

function makeServer() {
  const server = new McpServer({ name: 'bench-ts-v1', version: '0.1.0' });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('sleep', { description: 'Waits', inputSchema: { ms: z.number().int().min(0) } },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `slept ${ms}` }] };
    });
  return server;
}

async function serveStdioV1() {
  const server = makeServer();
  await server.connect(new StdioServerTransport());
  // Leave at the end of input, as a stdio server should.
  process.stdin.on('end', () => process.exit(0));
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function serveHttpV1(port) {
  const transports = new Map();
  const httpServer = http.createServer(async (req, res) => {
    try {
      const sessionId = req.headers['mcp-session-id'];
      let body;
      if (req.method === 'POST') {
        const text = await readBody(req);
        try {
          body = JSON.parse(text);
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
  });
  httpServer.listen(port, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${httpServer.address().port}/mcp`);
  });
  const stop = () => httpServer.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', () => process.exit(0));
}

const i = process.argv.indexOf('--http');
if (i >= 0)
  serveHttpV1(Number(process.argv[i + 1] ?? 0));
else
  serveStdioV1();
