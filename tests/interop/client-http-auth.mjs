// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Drives `snodo-demo --http 0 --bearer-token-file FILE` with the MCP
// TypeScript SDKs: the SDK's own discovery of the protected resource
// metadata (v1's discoverOAuthProtectedResourceMetadata, which validates
// the document, and its check that the resource fits the server's URL),
// its reading of the WWW-Authenticate challenges, and clients of v1 (an
// OAuthClientProvider that has a token) and v2 (a minimal AuthProvider, in
// the 2025-11-25 and 2026-07-28 eras) that connect with a bearer token and
// call the tool whoami. Output is TAP on stdout.
//
//   node tests/interop/client-http-auth.mjs [path/to/snodo-demo]

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { format } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { discoverOAuthProtectedResourceMetadata, extractWWWAuthenticateParams, selectResourceURL }
  from '@modelcontextprotocol/sdk/client/auth.js';

for (const name of ['log', 'info', 'debug', 'warn'])
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');

const demo = process.argv[2] ?? process.env.SNODO_DEMO;
if (!demo) {
  console.error('usage: client-http-auth.mjs path/to/snodo-demo (or set SNODO_DEMO)');
  process.exit(2);
}

const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! the whole run took longer than 100 s\n');
  process.exit(1);
}, 100000);

const dir = mkdtempSync(join(tmpdir(), 'snodo-interop-auth-'));
const tokenFile = join(dir, 'tokens');
writeFileSync(tokenFile, 'tok-ada ada mcp:read mcp:tools\ntok-bob bob mcp:read\n');

const child = spawn(demo, ['--http', '0', '--bearer-token-file', tokenFile,
                           '--authorization-server=https://auth.example.com', '--required-scopes=mcp:read',
                           '--tool-scope=whoami:mcp:tools'],
                    { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolveUrl, reject) => {
  const lines = createInterface({ input: child.stdout });
  lines.once('line', (line) => resolveUrl(new URL(line.trim())));
  child.once('exit', (code) => reject(new Error(`snodo-demo exited (${code}) before printing its URI`)));
});

let n = 0;
let failed = 0;
async function check(name, fn) {
  n++;
  try {
    await fn();
    process.stdout.write(`ok ${n} - ${name}\n`);
  } catch (e) {
    failed++;
    process.stdout.write(`not ok ${n} - ${name}\n`);
    for (const line of String(e?.stack ?? e).split('\n'))
      process.stdout.write(`# ${line}\n`);
  }
}

function expect(cond, message) {
  if (!cond)
    throw new Error(message);
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'interop', version: '1' } } });

function post(token) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (token)
    headers.Authorization = `Bearer ${token}`;
  return fetch(url, { method: 'POST', headers, body: INITIALIZE });
}

await check('no token: 401, and the SDK reads the challenge (metadata URL, scope)', async () => {
  const response = await post(null);
  await response.text();
  expect(response.status === 401, `status ${response.status}`);
  const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
  expect(resourceMetadataUrl?.href === new URL('/.well-known/oauth-protected-resource/mcp', url).href,
         `resource_metadata ${resourceMetadataUrl}`);
  expect(scope === 'mcp:read', `scope ${scope}`);
  expect(error === undefined, `error ${error}`);
});

await check('an unknown token: 401 invalid_token', async () => {
  const response = await post('tok-eve');
  await response.text();
  expect(response.status === 401, `status ${response.status}`);
  expect(extractWWWAuthenticateParams(response).error === 'invalid_token', 'no invalid_token');
});

await check('the SDK discovers and validates the protected resource metadata', async () => {
  const metadata = await discoverOAuthProtectedResourceMetadata(url);
  expect(metadata.resource === url.href, `resource ${metadata.resource}`);
  expect(JSON.stringify(metadata.authorization_servers) === '["https://auth.example.com"]',
         `authorization_servers ${JSON.stringify(metadata.authorization_servers)}`);
  expect(JSON.stringify(metadata.scopes_supported) === '["mcp:read","mcp:tools"]',
         `scopes_supported ${JSON.stringify(metadata.scopes_supported)}`);
  expect(JSON.stringify(metadata.bearer_methods_supported) === '["header"]', 'bearer_methods_supported');
  // What the SDK would ask the authorization server a token for.
  const resource = await selectResourceURL(url, {}, metadata);
  expect(resource?.href === url.href, `resource URL ${resource}`);
});

function providerV1(token) {
  return {
    get redirectUrl() { return 'http://127.0.0.1/callback'; },
    get clientMetadata() { return { redirect_uris: ['http://127.0.0.1/callback'], client_name: 'interop' }; },
    clientInformation: () => ({ client_id: 'interop' }),
    tokens: () => ({ access_token: token, token_type: 'Bearer' }),
    saveTokens: () => {},
    redirectToAuthorization: () => { throw new Error('no authorization flow in this test'); },
    saveCodeVerifier: () => {},
    codeVerifier: () => 'unused',
  };
}

const clients = [
  { label: 'v1 (OAuthClientProvider)', version: '2025-11-25',
    make: () => new ClientV1({ name: 'snodo-interop-auth-v1', version: '0.1.0' }, { capabilities: {} }),
    transport: (token) => new TransportV1(url, { authProvider: providerV1(token) }),
    // Without a provider: with one, v1 answers a 403 insufficient_scope by
    // starting a step-up authorization, which would leave the loopback.
    refused: (token) => new TransportV1(url, { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    forbidden: (e) => e?.code === 403 },
  { label: 'v2 legacy (AuthProvider)', version: '2025-11-25',
    make: () => new Client({ name: 'snodo-interop-auth-v2', version: '0.1.0' },
                           { capabilities: {}, versionNegotiation: { mode: 'legacy' } }),
    transport: (token) => new StreamableHTTPClientTransport(url, { authProvider: { token: async () => token } }),
    forbidden: (e) => /Insufficient scope: required "mcp:read mcp:tools"/.test(String(e?.message)) },
  { label: 'v2 pinned 2026-07-28 (requestInit headers)', version: '2026-07-28',
    make: () => new Client({ name: 'snodo-interop-auth-v2', version: '0.1.0' },
                           { capabilities: {}, versionNegotiation: { mode: { pin: '2026-07-28' } } }),
    transport: (token) => new StreamableHTTPClientTransport(url,
                                                            { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
    forbidden: (e) => /Insufficient scope: required "mcp:read mcp:tools"/.test(String(e?.message)) },
];

for (const c of clients) {
  const client = c.make();
  let connected = false;

  await check(`${c.label}: connects with ada's token and negotiates ${c.version}`, async () => {
    const transport = c.transport('tok-ada');
    await client.connect(transport);
    connected = true;
    const version = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
    expect(version === c.version, `negotiated ${version}`);
  });
  if (!connected)
    continue;

  await check(`${c.label}: whoami sees the principal and scopes`, async () => {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.structuredContent?.principal === 'ada', `got ${JSON.stringify(result)}`);
    expect(JSON.stringify(result.structuredContent?.scopes) === '["mcp:read","mcp:tools"]',
           `got ${JSON.stringify(result)}`);
  });

  await check(`${c.label}: close`, async () => {
    await client.close();
  });

  const bob = c.make();
  await check(`${c.label}: bob's token lacks whoami's scope: the call is refused, 403 insufficient_scope`, async () => {
    await bob.connect((c.refused ?? c.transport)('tok-bob'));
    const { tools } = await bob.listTools();
    expect(tools.some((t) => t.name === 'whoami'), 'no whoami');
    let error = null;
    try {
      const result = await bob.callTool({ name: 'whoami', arguments: {} });
      error = new Error(`served: ${JSON.stringify(result)}`);
    } catch (e) {
      expect(c.forbidden(e), `not a 403 insufficient_scope: ${e?.message}`);
    }
    if (error)
      throw error;
  });
  await bob.close().catch(() => {});
}

await check('snodo-demo exits 0 on SIGTERM', async () => {
  const code = await new Promise((resolveCode) => {
    child.once('exit', (status) => resolveCode(status));
    child.kill('SIGTERM');
  });
  expect(code === 0, `exit status ${code}`);
});

rmSync(dir, { recursive: true, force: true });
process.stdout.write(`1..${n}\n`);
clearTimeout(watchdog);
process.exit(failed > 0 ? 1 : 0);
