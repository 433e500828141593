/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-base-private.h"
#include "snodo-catalog-private.h"
#include "snodo-connection-private.h"
#include "snodo-description.h"
#include "snodo-invocation.h"
#include "snodo-invocation-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-server-methods.h"
#include "snodo-server-tasks-private.h"
#include "snodo-tool.h"
#include "snodo-wire-private.h"

/*
 * The protocol's own methods: the handshake (initialize, server/discover),
 * ping, logging/setLevel, tools/list and resources/(un)subscribe. The
 * dispatch of snodo-server.c runs them, as work admitted by the executor,
 * by the identifier of the dialect's table; they answer through their
 * invocation. subscriptions/listen is in snodo-server-sessions.c with what
 * it keeps, and the catalog's in snodo-server-catalog-methods.c.
 */

/* What the server offers, for initialize and server/discover alike; the
 * extensions registered (snodo_server_add_extension()) are in
 * "extensions", in both eras. */
static JsonObject *
snodo_server_dup_capabilities (SnodoServer *self)
{
  JsonObject *capabilities = json_object_new ();
  JsonObject *tools = json_object_new ();

  json_object_set_boolean_member (tools, "listChanged", TRUE);
  json_object_set_object_member (capabilities, "tools", tools);
  json_object_set_object_member (capabilities, "logging", json_object_new ());
  snodo_catalog_add_capabilities (snodo_server_get_catalog (self), capabilities);
  return capabilities;
}

/* initialize: see snodo_protocol_negotiate(). */
void
snodo_server_method_initialize (SnodoServer     *self,
                                SnodoInvocation *invocation)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  SnodoConnection *connection = snodo_invocation_get_connection (invocation);
  const char *requested = snodo_json_object_get_string (params, "protocolVersion");
  JsonNode *capabilities = json_object_get_member (params, "capabilities");
  SnodoProtocolVersion version;
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object;

  if (requested == NULL)
    {
      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR,
                                             SNODO_RPC_ERROR_INVALID_PARAMS,
                                             _("Invalid params: \"protocolVersion\" must be a string"));
      return;
    }
  if (capabilities != NULL && !JSON_NODE_HOLDS_OBJECT (capabilities))
    {
      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR,
                                             SNODO_RPC_ERROR_INVALID_PARAMS,
                                             _("Invalid params: \"capabilities\" must be an object"));
      return;
    }

  version = snodo_protocol_negotiate (snodo_server_get_enabled_versions (self), requested);

  object = json_object_new ();
  json_object_set_string_member (object, "protocolVersion", snodo_protocol_version_to_string (version));
  {
    JsonObject *capabilities_object = snodo_server_dup_capabilities (self);

    snodo_server_tasks_add_capabilities (self, capabilities_object, version);
    json_object_set_object_member (object, "capabilities", capabilities_object);
  }
  {
    JsonObject *info = snodo_server_dup_info (self);

    /* Members of Implementation that 2025-11-25 added. */
    if (version < SNODO_PROTOCOL_VERSION_2025_11_25)
      {
        json_object_remove_member (info, "description");
        json_object_remove_member (info, "icons");
        json_object_remove_member (info, "websiteUrl");
      }
    json_object_set_object_member (object, "serverInfo", info);
  }
  if (snodo_server_get_instructions (self) != NULL)
    json_object_set_string_member (object, "instructions", snodo_server_get_instructions (self));
  result = snodo_json_node_take_object (object);

  snodo_connection_set_client_capabilities (connection,
                                            capabilities ? json_node_get_object (capabilities) : NULL);
  connection->legacy_version = version;
  if (connection->persistent)
    connection->era = SNODO_ERA_LEGACY;
  snodo_connection_negotiated (connection, version);

  snodo_invocation_return_result (invocation, result);
}

/* server/discover (2026-07-28): what the server serves. */
void
snodo_server_method_discover (SnodoServer     *self,
                              SnodoInvocation *invocation)
{
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object = json_object_new ();

  json_object_set_member (object, "supportedVersions", snodo_protocol_versions_dup_modern (snodo_server_get_enabled_versions (self)));
  json_object_set_object_member (object, "capabilities", snodo_server_dup_capabilities (self));
  if (snodo_server_get_instructions (self) != NULL)
    json_object_set_string_member (object, "instructions", snodo_server_get_instructions (self));
  result = snodo_json_node_take_object (object);
  snodo_invocation_return_result (invocation, result);
}

void
snodo_server_method_logging_set_level (SnodoServer     *self,
                                       SnodoInvocation *invocation)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  int level = snodo_log_level_from_string (snodo_json_object_get_string (params, "level"));
  g_autoptr(JsonNode) result = NULL;

  if (level < 0)
    {
      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR,
                                             SNODO_RPC_ERROR_INVALID_PARAMS,
                                             _("Invalid params: \"level\" must be a log level"));
      return;
    }
  g_atomic_int_set (&snodo_invocation_get_connection (invocation)->log_level, level);
  result = snodo_json_node_take_object (json_object_new ());
  snodo_invocation_return_result (invocation, result);
}

static void
subscribe_or_unsubscribe (SnodoInvocation *invocation,
                          gboolean         subscribe)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  SnodoConnection *connection = snodo_invocation_get_connection (invocation);
  const char *uri = snodo_json_object_get_string (params, "uri");
  g_autoptr(JsonNode) result = NULL;

  if (uri == NULL)
    {
      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR,
                                             SNODO_RPC_ERROR_INVALID_PARAMS,
                                             _("Invalid params: \"uri\" must be a string"));
      return;
    }
  if (subscribe)
    {
      g_autofree char *message = snodo_server_subscription_refusal (uri,
          g_hash_table_size (connection->resource_subscriptions),
          g_hash_table_contains (connection->resource_subscriptions, uri));

      if (message != NULL)
        {
          snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                                                 message);
          return;
        }
    }
  if (subscribe)
    g_hash_table_replace (connection->resource_subscriptions, g_strdup (uri), NULL);
  else
    g_hash_table_remove (connection->resource_subscriptions, uri);
  result = snodo_json_node_take_object (json_object_new ());
  snodo_invocation_return_result (invocation, result);
}

void
snodo_server_method_resources_subscribe (SnodoServer     *self,
                                         SnodoInvocation *invocation)
{
  subscribe_or_unsubscribe (invocation, TRUE);
}

void
snodo_server_method_resources_unsubscribe (SnodoServer     *self,
                                           SnodoInvocation *invocation)
{
  subscribe_or_unsubscribe (invocation, FALSE);
}

void
snodo_server_method_ping (SnodoServer     *self,
                          SnodoInvocation *invocation)
{
  g_autoptr(JsonNode) result = snodo_json_node_take_object (json_object_new ());

  snodo_invocation_return_result (invocation, result);
}

static JsonObject *
tool_to_json (SnodoTool *tool,
              gboolean   with_icons,
              gboolean   with_execution)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "name", snodo_tool_get_name (tool));
  if (snodo_tool_get_title (tool) != NULL)
    json_object_set_string_member (object, "title", snodo_tool_get_title (tool));
  if (snodo_tool_get_description (tool) != NULL)
    json_object_set_string_member (object, "description", snodo_tool_get_description (tool));
  json_object_set_member (object, "inputSchema", json_node_copy (snodo_tool_get_input_schema (tool)));
  if (snodo_tool_get_output_schema (tool) != NULL)
    json_object_set_member (object, "outputSchema", json_node_copy (snodo_tool_get_output_schema (tool)));
  if (snodo_tool_get_annotations (tool) != NULL)
    json_object_set_member (object, "annotations", json_node_copy (snodo_tool_get_annotations (tool)));
  if (with_icons && snodo_tool_get_icons (tool) != NULL)
    json_object_set_member (object, "icons", json_node_copy (snodo_tool_get_icons (tool)));
  /* 2025-11-25, when the server serves tasks. */
  if (with_execution)
    {
      static const char * const support[] = { "forbidden", "optional", "required" };
      JsonObject *execution = json_object_new ();

      json_object_set_string_member (execution, "taskSupport", support[snodo_tool_get_task_support (tool)]);
      json_object_set_object_member (object, "execution", execution);
    }
  /* In every version, as the catalog's descriptions. */
  if (snodo_description_get_meta (SNODO_DESCRIPTION (tool)) != NULL)
    json_object_set_member (object, "_meta", json_node_copy (snodo_description_get_meta (SNODO_DESCRIPTION (tool))));
  return object;
}

void
snodo_server_method_tools_list (SnodoServer     *self,
                                SnodoInvocation *invocation)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *next_cursor = NULL;
  JsonObject *object;
  JsonArray *tools;
  guint start, end;

  if (!snodo_catalog_paginate (snodo_server_get_catalog (self), "tools", params, snodo_server_get_n_tools (self),
                               &start, &end, &next_cursor, &error))
    {
      snodo_invocation_return_gerror (invocation, error);
      return;
    }

  object = json_object_new ();
  tools = json_array_new ();
  for (guint i = start; i < end; i++)
    {
      json_array_add_object_element (tools, tool_to_json (snodo_server_get_nth_tool (self, i),
                                                          snodo_invocation_get_protocol_version (invocation) >=
                                                          SNODO_PROTOCOL_VERSION_2025_11_25,
                                                          snodo_server_get_tasks (self) != NULL &&
                                                          snodo_invocation_get_protocol_version (invocation) ==
                                                          SNODO_PROTOCOL_VERSION_2025_11_25));
    }
  json_object_set_array_member (object, "tools", tools);
  if (next_cursor != NULL)
    json_object_set_string_member (object, "nextCursor", next_cursor);
  result = snodo_json_node_take_object (object);
  snodo_invocation_return_result (invocation, result);
}
