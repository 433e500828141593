/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-dialect-private.h"
#include "snodo-private.h"

/* The initialize era: 2025-06-18 and 2025-11-25 share their methods. */
static const SnodoMethod legacy_methods[] = {
  { "initialize", snodo_server_method_initialize, 0, SNODO_NEEDS_NOTHING },
  { "ping", snodo_server_method_ping, 0, SNODO_NEEDS_NOTHING },
  { "tools/list", snodo_server_method_tools_list, 0, SNODO_NEEDS_NOTHING },
  { "tools/call", NULL, SNODO_METHOD_FLAGS_TOOL_CALL, SNODO_NEEDS_NOTHING },
  { "resources/list", snodo_server_method_resources_list, 0, SNODO_NEEDS_RESOURCES },
  { "resources/templates/list", snodo_server_method_resources_templates_list, 0, SNODO_NEEDS_RESOURCES },
  { "resources/read", snodo_server_method_resources_read, 0, SNODO_NEEDS_RESOURCES },
  { "prompts/list", snodo_server_method_prompts_list, 0, SNODO_NEEDS_PROMPTS },
  { "prompts/get", snodo_server_method_prompts_get, 0, SNODO_NEEDS_PROMPTS },
  { "completion/complete", snodo_server_method_completion_complete, 0, SNODO_NEEDS_COMPLETIONS },
  { NULL, NULL, 0, SNODO_NEEDS_NOTHING },
};

static const SnodoDialect dialect_2025_06_18 = {
  .version = SNODO_PROTOCOL_VERSION_2025_06_18,
  .methods = legacy_methods,
};

static const SnodoDialect dialect_2025_11_25 = {
  .version = SNODO_PROTOCOL_VERSION_2025_11_25,
  .methods = legacy_methods,
};

const SnodoDialect *
snodo_dialect_for_version (SnodoProtocolVersion version)
{
  switch (version)
    {
    case SNODO_PROTOCOL_VERSION_2025_06_18:
      return &dialect_2025_06_18;
    case SNODO_PROTOCOL_VERSION_2025_11_25:
      return &dialect_2025_11_25;
    case SNODO_PROTOCOL_VERSION_2026_07_28:
    case SNODO_PROTOCOL_VERSION_UNKNOWN:
    default:
      return NULL;
    }
}

const SnodoMethod *
snodo_dialect_lookup (const SnodoDialect *self,
                      const char         *method)
{
  for (const SnodoMethod *m = self->methods; m->name != NULL; m++)
    if (g_str_equal (m->name, method))
      return m;
  return NULL;
}

/*
 * The one place where a request's protocol version is decided.
 *
 * - With an `mcp-protocol-version` header (stamped by the stdio transport
 *   after initialize, or sent by an HTTP client), that version, which must
 *   be one of the initialize era;
 * - otherwise, before any initialize, the oldest version of the initialize
 *   era, so that `initialize` itself and a lenient client's early requests
 *   are served. A `server/discover` probe is then answered -32601, which
 *   tells a 2026 client to fall back to initialize.
 */
const SnodoDialect *
snodo_dialect_select (SnodoServer      *server,
                      SnodoConnection  *connection,
                      SnodoFrame       *frame,
                      GHashTable       *headers,
                      GError          **error)
{
  const char *header = NULL;
  SnodoProtocolVersion version;
  const SnodoDialect *dialect;

  if (headers != NULL)
    header = g_hash_table_lookup (headers, SNODO_HEADER_PROTOCOL_VERSION);

  if (header == NULL)
    return &dialect_2025_06_18;

  version = snodo_protocol_version_from_string (header);
  dialect = snodo_dialect_for_version (version);
  if (dialect == NULL)
    {
      g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Unsupported protocol version in the %s header: %s"),
                   SNODO_HEADER_PROTOCOL_VERSION, header);
      return NULL;
    }
  return dialect;
}
