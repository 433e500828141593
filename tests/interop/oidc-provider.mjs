// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// A real OAuth 2 / OpenID authorization server on loopback, for
// oauth-e2e.py: oidc-provider (a certified OpenID Provider) with dynamic
// client registration, PKCE (required for public clients), resource
// indicators (RFC 8707), refresh tokens, token introspection (RFC 7662),
// revocation (RFC 7009) and its development login and consent pages, which
// plain HTTP form posts complete.
//
//   node oidc-provider.mjs ISSUED-FILE ACCESS-TOKEN-TTL SECRET-FILE
//
// Prints its issuer URL on stdout and runs until its standard input ends.
// The resource is any http://127.0.0.1 URL, with the scopes mcp:read and
// mcp:tools; access tokens for it are opaque, live ACCESS-TOKEN-TTL seconds
// and have the resource as their audience (aud).
//
// snodo-demo checks them at the introspection endpoint as the confidential
// client `snodo-demo`, whose secret is the first line of SECRET-FILE
// (client_secret_basic); that client may introspect and revoke any token.
// For the test to see what was issued, every access token issued for a
// resource is appended to ISSUED-FILE as a JSON line: {"grant", "token",
// "aud", "account", "scope"}.

import { appendFileSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import Provider from 'oidc-provider';

const [issuedFile, ttlText, secretFile] = process.argv.slice(2);
const accessTokenTTL = Number(ttlText);
if (!issuedFile || !(accessTokenTTL > 0) || !secretFile) {
  console.error('usage: oidc-provider.mjs ISSUED-FILE ACCESS-TOKEN-TTL SECRET-FILE');
  process.exit(2);
}
const RESOURCE_SERVER = 'snodo-demo';
const resourceServerSecret = readFileSync(secretFile, 'utf8').split('\n')[0];

const RESOURCE_SCOPES = 'mcp:read mcp:tools';

const server = createServer();
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  // The resource server: it only introspects (and, for the test, revokes).
  clients: [{
    client_id: RESOURCE_SERVER,
    client_secret: resourceServerSecret,
    grant_types: [],
    response_types: [],
    redirect_uris: [],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    introspection: {
      enabled: true,
      allowedPolicy: (ctx, client) => client.clientId === RESOURCE_SERVER,
    },
    revocation: {
      enabled: true,
      allowedPolicy: (ctx, client, token) => client.clientId === RESOURCE_SERVER
        || client.clientId === token.clientId,
    },
    resourceIndicators: {
      enabled: true,
      defaultResource: (ctx, client, oneOf) => oneOf,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => {
        if (!/^http:\/\/127\.0\.0\.1:[0-9]+\//.test(resource))
          throw new Provider.errors.InvalidTarget();
        // The audience is the resource identifier itself.
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
  if (!token.aud)
    return;
  appendFileSync(issuedFile, JSON.stringify({
    grant: token.gty, token: token.jti, aud: token.aud, account: token.accountId, scope: token.scope,
  }) + '\n');
});
provider.on('server_error', (ctx, error) => console.error('oidc-provider:', error));

server.on('request', provider.callback());
console.log(issuer);

// Until the test ends.
const lines = createInterface({ input: process.stdin });
lines.on('line', () => {});
lines.on('close', () => process.exit(0));
