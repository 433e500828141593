/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-private.h"

/* A placeholder until resources, prompts and completion land: an empty
 * catalog. */

struct _SnodoCatalog
{
  SnodoServer *server;
};

SnodoCatalog *
snodo_catalog_new (SnodoServer *server)
{
  SnodoCatalog *self = g_new0 (SnodoCatalog, 1);

  self->server = server;
  return self;
}

void
snodo_catalog_free (SnodoCatalog *self)
{
  g_free (self);
}

void
snodo_catalog_add_capabilities (SnodoCatalog *self,
                                JsonObject   *capabilities)
{
}

gboolean
snodo_catalog_has_resources (SnodoCatalog *self)
{
  return FALSE;
}

gboolean
snodo_catalog_has_prompts (SnodoCatalog *self)
{
  return FALSE;
}

gboolean
snodo_catalog_has_completion (SnodoCatalog *self)
{
  return FALSE;
}

char *
snodo_cursor_encode (const char *list,
                     guint       offset)
{
  return g_strdup_printf ("%s:%u", list, offset);
}

gboolean
snodo_cursor_decode (const char  *list,
                     const char  *cursor,
                     guint       *offset,
                     GError     **error)
{
  g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
               _("Invalid params: invalid cursor"));
  return FALSE;
}

gboolean
snodo_catalog_set_string (char       **field,
                          const char  *value)
{
  if (g_strcmp0 (*field, value) == 0)
    return FALSE;
  g_free (*field);
  *field = g_strdup (value);
  return TRUE;
}

gboolean
snodo_catalog_set_json (JsonNode **field,
                        JsonNode  *value)
{
  if (*field == value || (*field != NULL && value != NULL && json_node_equal (*field, value)))
    return FALSE;
  g_clear_pointer (field, json_node_unref);
  if (value != NULL)
    {
      *field = json_node_copy (value);
      json_node_seal (*field);
    }
  return TRUE;
}

static void
not_yet (SnodoInvocation *invocation)
{
  snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_METHOD_NOT_FOUND,
                                         _("Method not found"));
}

void
snodo_server_method_resources_list (SnodoServer     *server,
                                    SnodoInvocation *invocation)
{
  not_yet (invocation);
}

void
snodo_server_method_resources_templates_list (SnodoServer     *server,
                                              SnodoInvocation *invocation)
{
  not_yet (invocation);
}

void
snodo_server_method_resources_read (SnodoServer     *server,
                                    SnodoInvocation *invocation)
{
  not_yet (invocation);
}

void
snodo_server_method_prompts_list (SnodoServer     *server,
                                  SnodoInvocation *invocation)
{
  not_yet (invocation);
}

void
snodo_server_method_prompts_get (SnodoServer     *server,
                                 SnodoInvocation *invocation)
{
  not_yet (invocation);
}

void
snodo_server_method_completion_complete (SnodoServer     *server,
                                         SnodoInvocation *invocation)
{
  not_yet (invocation);
}
