// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Drives snodo-demo through the MCP TypeScript SDK v2
// (@modelcontextprotocol/client) with versionNegotiation pinned to
// 2026-07-28: no fallback to initialize; connecting fails unless the
// server offers that version.
//
//   node tests/interop/client-v2-modern.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { v2Modern } from './adapters.mjs';
import { runContract } from './mcp-contract.mjs';

await runContract(v2Modern);
