/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-base-private.h"
#include "snodo-catalog-private.h"
#include "snodo-description.h"
#include "snodo-error.h"
#include "snodo-invocation.h"
#include "snodo-invocation-private.h"
#include "snodo-prompt.h"
#include "snodo-protocol-version.h"
#include "snodo-server-methods.h"
#include "snodo-wire-private.h"

/*
 * The methods that serve the catalog: resources/list,
 * resources/templates/list, resources/read, prompts/list, prompts/get and
 * completion/complete. They check a request's params, find what it asks
 * for in the server's catalog, and answer or hand the invocation to the
 * entry's handler. Results are returned plain (as in 2025-06-18); the
 * dialect layer shapes them for the protocol version and maps error codes
 * (-32002 becomes -32602 with data.uri in 2026-07-28), so the methods never
 * look at the version except where a field exists only in some versions.
 */

/* ---- Helpers ------------------------------------------------------------ */

static JsonObject *
get_params (SnodoInvocation *invocation)
{
  return json_node_get_object (snodo_invocation_get_params (invocation));
}

static JsonObject *
get_object (JsonObject *object,
            const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
}

/* A JSON object, absent, or null; with every member a string. */
static gboolean
is_string_map (JsonNode *node)
{
  JsonObjectIter iter;
  JsonNode *value;

  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return FALSE;
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, NULL, &value))
    if (!snodo_json_node_is_string (value))
      return FALSE;
  return TRUE;
}

static void
return_invalid_params (SnodoInvocation *invocation,
                       const char      *message)
{
  snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR,
                                         SNODO_RPC_ERROR_INVALID_PARAMS, message);
}

/* Keeps @entry (and so its user data) alive while @invocation is, then
 * hands @invocation (transfer full) to the entry's handler. */
static void
call_entry (SnodoCatalogEntry *entry,
            SnodoInvocation   *invocation)
{
  SnodoCatalogFunc func;
  gpointer user_data;

  snodo_invocation_set_catalog_entry (invocation, entry);
  func = snodo_catalog_entry_get_func (entry, &user_data);
  func (invocation, user_data);
}

/* ---- Lists -------------------------------------------------------------- */

/* Answers a list method with one page of @list. */
static void
return_page (SnodoServer      *server,
             SnodoInvocation  *invocation,
             SnodoCatalogList  list)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  gboolean with_icons;

  /* Icons exist from 2025-11-25 on. */
  with_icons = snodo_invocation_get_protocol_version (invocation) >= SNODO_PROTOCOL_VERSION_2025_11_25;
  result = snodo_catalog_list_page (snodo_server_get_catalog (server), list,
                                    get_params (invocation), with_icons, &error);
  if (result == NULL)
    snodo_invocation_return_gerror (invocation, error);
  else
    snodo_invocation_return_result (invocation, result);
}

void
snodo_server_method_resources_list (SnodoServer     *server,
                                    SnodoInvocation *invocation)
{
  return_page (server, invocation, SNODO_CATALOG_RESOURCES);
}

void
snodo_server_method_resources_templates_list (SnodoServer     *server,
                                              SnodoInvocation *invocation)
{
  return_page (server, invocation, SNODO_CATALOG_RESOURCE_TEMPLATES);
}

void
snodo_server_method_prompts_list (SnodoServer     *server,
                                  SnodoInvocation *invocation)
{
  return_page (server, invocation, SNODO_CATALOG_PROMPTS);
}

/* ---- Reading, getting, completing --------------------------------------- */

/* resources/read: the resource of that exact URI, else the first template,
 * in the order they were added, that matches. */
void
snodo_server_method_resources_read (SnodoServer     *server,
                                    SnodoInvocation *invocation)
{
  g_autoptr(JsonObject) variables = NULL;
  const char *uri = snodo_json_object_get_string (get_params (invocation), "uri");
  SnodoCatalogEntry *entry;

  if (uri == NULL)
    {
      return_invalid_params (invocation, _("Invalid params: \"uri\" must be a string"));
      return;
    }
  if (!g_uri_is_valid (uri, G_URI_FLAGS_NONE, NULL))
    {
      return_invalid_params (invocation, _("Invalid params: \"uri\" must be an absolute URI"));
      return;
    }

  entry = snodo_catalog_find_resource (snodo_server_get_catalog (server), uri, &variables);
  if (entry == NULL)
    {
      snodo_invocation_return_resource_not_found (invocation);
      return;
    }

  snodo_invocation_set_variables (invocation, variables);
  snodo_invocation_set_name (invocation,
                             snodo_description_get_name (snodo_catalog_entry_get_description (entry)));
  call_entry (entry, invocation);
}

/* Checks a {string: string} map of arguments. */
static gboolean
check_string_map (JsonNode    *node,
                  const char  *what,
                  char       **message)
{
  JsonObjectIter iter;
  const char *name = NULL;
  JsonNode *value;

  if (is_string_map (node))
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      *message = g_strdup_printf (_("Invalid params: \"%s\" must be an object"), what);
      return FALSE;
    }
  json_object_iter_init (&iter, json_node_get_object (node));
  while (json_object_iter_next (&iter, &name, &value))
    if (!snodo_json_node_is_string (value))
      break;
  *message = g_strdup_printf (_("Invalid params: argument “%s” must be a string"), name);
  return FALSE;
}

/* The sealed object of @node, or a new empty one when it is absent or
 * null. */
static JsonObject *
dup_map (JsonNode *node)
{
  JsonObject *object;

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    return json_object_ref (json_node_get_object (node));
  object = json_object_new ();
  json_object_seal (object);
  return object;
}

void
snodo_server_method_prompts_get (SnodoServer     *server,
                                 SnodoInvocation *invocation)
{
  JsonObject *params = get_params (invocation);
  const char *name = snodo_json_object_get_string (params, "name");
  JsonNode *node = json_object_get_member (params, "arguments");
  g_autoptr(JsonObject) arguments = NULL;
  g_autofree char *message = NULL;
  SnodoCatalogEntry *entry;
  SnodoPrompt *prompt;
  JsonArray *declared;

  if (name == NULL)
    {
      return_invalid_params (invocation, _("Invalid params: \"name\" must be a string"));
      return;
    }
  entry = snodo_catalog_find_prompt (snodo_server_get_catalog (server), name);
  if (entry == NULL)
    message = g_strdup_printf (_("Unknown prompt: %s"), name);
  else if (check_string_map (node, "arguments", &message))
    {
      arguments = dup_map (node);
      prompt = SNODO_PROMPT (snodo_catalog_entry_get_description (entry));
      declared = json_node_get_array (snodo_prompt_get_arguments (prompt));
      for (guint i = 0; i < json_array_get_length (declared) && message == NULL; i++)
        {
          JsonObject *argument = json_array_get_object_element (declared, i);
          const char *argument_name = json_object_get_string_member (argument, "name");

          if (json_object_has_member (argument, "required") &&
              !json_object_has_member (arguments, argument_name))
            message = g_strdup_printf (_("Invalid params: missing required argument “%s”"),
                                       argument_name);
        }
    }

  if (message != NULL)
    {
      return_invalid_params (invocation, message);
      return;
    }

  snodo_invocation_set_arguments (invocation, arguments);
  snodo_invocation_set_name (invocation, name);
  call_entry (entry, invocation);
}

/* completion/complete {ref, argument: {name, value}, context?: {arguments?}} */
void
snodo_server_method_completion_complete (SnodoServer     *server,
                                         SnodoInvocation *invocation)
{
  SnodoCatalogEntry *completion = snodo_catalog_get_completion (snodo_server_get_catalog (server));
  JsonObject *params = get_params (invocation);
  JsonObject *ref = get_object (params, "ref");
  JsonObject *argument = get_object (params, "argument");
  JsonNode *context_node = json_object_get_member (params, "context");
  JsonObject *context = get_object (params, "context");
  JsonNode *context_arguments = NULL;
  g_autoptr(JsonObject) arguments = NULL;
  g_autofree char *message = NULL;
  const char *type = snodo_json_object_get_string (ref, "type");

  if (context != NULL)
    context_arguments = json_object_get_member (context, "arguments");

  if (ref == NULL)
    message = g_strdup (_("Invalid params: \"ref\" must be an object"));
  else if (g_strcmp0 (type, "ref/prompt") == 0 && snodo_json_object_get_string (ref, "name") == NULL)
    message = g_strdup (_("Invalid params: a “ref/prompt” reference needs a string \"name\""));
  else if (g_strcmp0 (type, "ref/resource") == 0 && snodo_json_object_get_string (ref, "uri") == NULL)
    message = g_strdup (_("Invalid params: a “ref/resource” reference needs a string \"uri\""));
  else if (g_strcmp0 (type, "ref/prompt") != 0 && g_strcmp0 (type, "ref/resource") != 0)
    message = g_strdup (_("Invalid params: \"ref.type\" must be “ref/prompt” or “ref/resource”"));
  else if (snodo_json_object_get_string (argument, "name") == NULL || snodo_json_object_get_string (argument, "value") == NULL)
    message = g_strdup (_("Invalid params: \"argument\" must be an object with string "
                          "\"name\" and \"value\""));
  else if (context == NULL && context_node != NULL && !JSON_NODE_HOLDS_NULL (context_node))
    message = g_strdup (_("Invalid params: \"context\" must be an object"));
  else
    check_string_map (context_arguments, "context.arguments", &message);

  if (message != NULL)
    {
      return_invalid_params (invocation, message);
      return;
    }

  if (completion == NULL)
    {
      /* The dialect layer hides the method without the capability; this is
       * only a safe answer should a request get here anyway. */
      snodo_invocation_return_completion (invocation, NULL, -1, FALSE);
      return;
    }

  arguments = dup_map (context_arguments);
  snodo_invocation_set_arguments (invocation, arguments);
  call_entry (completion, invocation);
}
