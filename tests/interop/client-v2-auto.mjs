// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Drives snodo-demo through the MCP TypeScript SDK v2
// (@modelcontextprotocol/client) with versionNegotiation mode 'auto': the
// client probes with server/discover (on stdio in a short-lived sibling
// process) and, as snodo-demo serves 2026-07-28, must end up speaking it,
// never sending initialize.
//
//   node tests/interop/client-v2-auto.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { v2Auto } from './adapters.mjs';
import { runContract } from './mcp-contract.mjs';

await runContract(v2Auto);
