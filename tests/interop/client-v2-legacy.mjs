// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Drives snodo-demo through the MCP TypeScript SDK v2
// (@modelcontextprotocol/client) with versionNegotiation mode 'legacy':
// the 2025 initialize handshake, no server/discover probe.
//
//   node tests/interop/client-v2-legacy.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { v2Legacy } from './adapters.mjs';
import { runContract } from './mcp-contract.mjs';

await runContract(v2Legacy);
