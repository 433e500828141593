/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <glib.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

/**
 * SNODO_ERROR:
 *
 * The error domain for conditions of the library itself.
 *
 * Since: 0.1
 */
#define SNODO_ERROR (snodo_error_quark ())

/**
 * SNODO_RPC_ERROR:
 *
 * The error domain whose codes are the JSON-RPC and MCP wire error codes, so
 * that a #GError maps one to one onto an error response.
 *
 * Since: 0.1
 */
#define SNODO_RPC_ERROR (snodo_rpc_error_quark ())

/**
 * SnodoError:
 * @SNODO_ERROR_FAILED: a failure with no more specific code
 * @SNODO_ERROR_OVERLOADED: the executor has no running or waiting slot left
 * @SNODO_ERROR_DUPLICATE_KEY: work with the same key is already live for the owner
 * @SNODO_ERROR_INVALID_SCHEMA: a JSON schema or other description is not usable
 * @SNODO_ERROR_ALREADY_REGISTERED: an item with that name is already registered
 * @SNODO_ERROR_CLIENT_ERROR: the client answered a request of the server with
 *   an error; for a tool, a failure of the tool rather than of the protocol
 * @SNODO_ERROR_INPUT_REQUIRED: the request was answered with `input_required`
 *   (2026-07-28): the client will send it again with the input, and the
 *   handler will run again; the handler must not answer now
 *
 * Errors of the library itself. More codes may be added in later versions.
 *
 * Since: 0.1
 */
typedef enum
{
  SNODO_ERROR_FAILED = 0,
  SNODO_ERROR_OVERLOADED,
  SNODO_ERROR_DUPLICATE_KEY,
  SNODO_ERROR_INVALID_SCHEMA,
  SNODO_ERROR_ALREADY_REGISTERED,
  SNODO_ERROR_INPUT_REQUIRED,
  SNODO_ERROR_CLIENT_ERROR,
} SnodoError;

/**
 * SnodoRpcError:
 * @SNODO_RPC_ERROR_PARSE_ERROR: -32700, the message is not JSON (or not UTF-8)
 * @SNODO_RPC_ERROR_INVALID_REQUEST: -32600, not a valid JSON-RPC request
 * @SNODO_RPC_ERROR_METHOD_NOT_FOUND: -32601, unknown or unavailable method
 * @SNODO_RPC_ERROR_INVALID_PARAMS: -32602, invalid parameters
 * @SNODO_RPC_ERROR_INTERNAL_ERROR: -32603, an unexpected failure in the server
 * @SNODO_RPC_ERROR_SERVER_OVERLOADED: -32010, the server cannot admit more work
 *   now; an implementation-defined code of the -32000..-32019 range
 * @SNODO_RPC_ERROR_RESOURCE_NOT_FOUND: -32002, a resource does not exist
 *   (2025 protocol versions only)
 * @SNODO_RPC_ERROR_HEADER_MISMATCH: -32020, HTTP headers disagree with the body
 * @SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY: -32021, the request did
 *   not declare a client capability that serving it needs
 * @SNODO_RPC_ERROR_UNSUPPORTED_PROTOCOL_VERSION: -32022, the requested protocol
 *   version is not served
 * @SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED: -32042, the client must complete a
 *   URL elicitation first (2025-11-25 only)
 *
 * Error codes of JSON-RPC 2.0 and MCP. The value of each member is the code
 * written on the wire.
 *
 * Since: 0.1
 */
typedef enum
{
  SNODO_RPC_ERROR_PARSE_ERROR = -32700,
  SNODO_RPC_ERROR_INVALID_REQUEST = -32600,
  SNODO_RPC_ERROR_METHOD_NOT_FOUND = -32601,
  SNODO_RPC_ERROR_INVALID_PARAMS = -32602,
  SNODO_RPC_ERROR_INTERNAL_ERROR = -32603,
  SNODO_RPC_ERROR_SERVER_OVERLOADED = -32010,
  SNODO_RPC_ERROR_RESOURCE_NOT_FOUND = -32002,
  SNODO_RPC_ERROR_HEADER_MISMATCH = -32020,
  SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY = -32021,
  SNODO_RPC_ERROR_UNSUPPORTED_PROTOCOL_VERSION = -32022,
  SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED = -32042,
} SnodoRpcError;

SNODO_AVAILABLE_IN_ALL
GQuark snodo_error_quark     (void);
SNODO_AVAILABLE_IN_ALL
GQuark snodo_rpc_error_quark (void);

G_END_DECLS
