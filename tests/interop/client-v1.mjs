// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Drives snodo-demo through the MCP TypeScript SDK v1
// (@modelcontextprotocol/sdk): Client + StdioClientTransport.
//
//   node tests/interop/client-v1.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { v1 } from './adapters.mjs';
import { runContract } from './mcp-contract.mjs';

await runContract(v1);
