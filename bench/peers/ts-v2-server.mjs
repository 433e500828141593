// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The benchmark peer on the MCP TypeScript SDK v2 (@modelcontextprotocol/server),
// with the same tools as ts-v1-server.mjs (echo {text}, sleep {ms}). It
// serves both eras: 2025-11-25 (initialize) and 2026-07-28 (stateless).
//
//   node ts-v2-server.mjs            stdio, with serveStdio()
//   node ts-v2-server.mjs --http 0   Streamable HTTP on 127.0.0.1 with
//                                    createMcpHandler() (2026-07-28, and the
//                                    SDK's stateless fallback for 2025 traffic);
//                                    prints the URL
//
// For HTTP the handler's web-standard fetch() face is mounted on node:http
// by a few lines below (the SDK's own adapter lives in @modelcontextprotocol/node,
// which the benchmark does not need otherwise).

import http from 'node:http';
import { Readable } from 'node:stream';
import { McpServer, createMcpHandler, localhostAllowedHostnames, hostHeaderValidationResponse } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

function makeServer() {
  const server = new McpServer({ name: 'bench-ts-v2', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { description: 'Echoes text', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('sleep', { description: 'Waits', inputSchema: z.object({ ms: z.number().int().min(0) }) },
    async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { content: [{ type: 'text', text: `slept ${ms}` }] };
    });
  return server;
}

function serveHttpV2(port) {
  const handler = createMcpHandler(makeServer);
  const hosts = localhostAllowedHostnames();
  const httpServer = http.createServer(async (req, res) => {
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
  });
  httpServer.listen(port, '127.0.0.1', () => {
    console.log(`http://127.0.0.1:${httpServer.address().port}/mcp`);
  });
  process.on('SIGINT', () => process.exit(0));
  process.on('SIGTERM', () => process.exit(0));
}

const i = process.argv.indexOf('--http');
if (i >= 0) {
  serveHttpV2(Number(process.argv[i + 1] ?? 0));
} else {
  serveStdio(makeServer);
  process.stdin.on('end', () => process.exit(0));
}
