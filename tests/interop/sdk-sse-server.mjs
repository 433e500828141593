// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A server of the older HTTP+SSE transport (protocol version 2024-11-05's)
// written on the official TypeScript SDK v1 (SSEServerTransport), for the
// test of SnodoClient's fallback to it. Listens on 127.0.0.1 (any free
// port) and prints its URL, http://127.0.0.1:PORT/sse: GET there opens the
// event stream, whose endpoint event names /messages?sessionId=...; POST
// there is refused with 405, as such servers do.
//
// Tools:
//   echo  {text: string}  one text content equal to text

import http from 'node:http';
import { URL } from 'node:url';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';

const transports = new Map();

const httpServer = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (url.pathname === '/sse' && req.method === 'GET') {
    const transport = new SSEServerTransport('/messages', res);
    const server = new McpServer({ name: 'sdk-v1-sse', version: '0.1.0' });
    server.registerTool('echo', { description: 'Echoes text', inputSchema: { text: z.string() } },
      async ({ text }) => ({ content: [{ type: 'text', text }] }));
    transports.set(transport.sessionId, transport);
    res.on('close', () => transports.delete(transport.sessionId));
    await server.connect(transport);
    return;
  }
  if (url.pathname === '/messages' && req.method === 'POST') {
    const transport = transports.get(url.searchParams.get('sessionId'));
    if (!transport) {
      res.writeHead(404).end('no such session');
      return;
    }
    await transport.handlePostMessage(req, res);
    return;
  }
  res.writeHead(url.pathname === '/sse' ? 405 : 404).end();
});

httpServer.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${httpServer.address().port}/sse`);
});
process.on('SIGINT', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
