/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The wire layer, for the layers above: JSON reading and writing, JSON-RPC
 * frames, the line framer and the bounded writer. It knows no MCP. */

#pragma once

#include "snodo-frame-private.h"
#include "snodo-json-private.h"
#include "snodo-line-framer-private.h"
#include "snodo-writer-private.h"
