// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// Clients that declared only URL-mode elicitation, through every SDK
// client: the demo's ask (a form) must not be put to them.
//
//   node tests/interop/elicitation-url-only.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { v1, v2Auto, v2Legacy, v2Modern } from './adapters.mjs';
import { runUrlOnlyElicitation } from './mcp-contract.mjs';

await runUrlOnlyElicitation([v1, v2Legacy, v2Auto, v2Modern]);
