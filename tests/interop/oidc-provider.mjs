// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A real OAuth 2 / OpenID authorization server on loopback, for
// oauth-e2e.py: oidc-provider (a certified OpenID Provider) with dynamic
// client registration, PKCE (required for public clients), resource
// indicators (RFC 8707), refresh tokens and its development login and
// consent pages, which plain HTTP form posts complete.
//
//   node oidc-provider.mjs TOKEN-FILE ACCESS-TOKEN-TTL
//
// Prints its issuer URL on stdout, then reads the process id of the
// snodo-demo that serves the resource from stdin. The resource is any
// http://127.0.0.1 URL, with the scopes mcp:read and mcp:tools (tokens for
// it are opaque and live ACCESS-TOKEN-TTL seconds).
//
// snodo-demo validates bearer tokens from a file (--bearer-token-file, read
// again on SIGHUP): every access token issued for the resource is appended
// to TOKEN-FILE as `TOKEN ACCOUNT SCOPE...` after a comment that names the
// grant that issued it (`# grant refresh_token`), snodo-demo is sent SIGHUP, and
// the token response waits a little so that the reload is done before the
// client uses the token.

import { appendFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import Provider from 'oidc-provider';

const [tokenFile, ttlText] = process.argv.slice(2);
const accessTokenTTL = Number(ttlText);
if (!tokenFile || !(accessTokenTTL > 0)) {
  console.error('usage: oidc-provider.mjs TOKEN-FILE ACCESS-TOKEN-TTL');
  process.exit(2);
}

const RESOURCE_SCOPES = 'mcp:read mcp:tools';
let demoPid = 0;

const server = createServer();
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: (ctx, client, oneOf) => oneOf,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => {
        if (!/^http:\/\/127\.0\.0\.1:[0-9]+\//.test(resource))
          throw new Provider.errors.InvalidTarget();
        return { scope: RESOURCE_SCOPES, accessTokenFormat: 'opaque', accessTokenTTL };
      },
    },
  },
  // A public client that may use refresh tokens gets one, offline_access
  // or not.
  issueRefreshToken: (ctx, client) => client.grantTypeAllowed('refresh_token'),
  pkce: { required: () => true },
  // Any login is an account, as devInteractions accepts any.
  findAccount: (ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
  cookies: { keys: ['snodo-interop-oidc-provider'] },
});

provider.on('access_token.saved', (token) => {
  if (!token.aud || demoPid === 0)
    return;
  appendFileSync(tokenFile, `# grant ${token.gty}\n${token.jti} ${token.accountId} ${token.scope}\n`);
  process.kill(demoPid, 'SIGHUP');
});
provider.on('server_error', (ctx, error) => console.error('oidc-provider:', error));

provider.use(async (ctx, next) => {
  await next();
  if (ctx.path === '/token' && ctx.status === 200)
    await new Promise((resolve) => setTimeout(resolve, 300));
});

server.on('request', provider.callback());
console.log(issuer);

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  demoPid = Number(line.trim());
});
lines.on('close', () => process.exit(0));
