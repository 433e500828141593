/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient: the requests of the server's features, on
 * snodo_client_start_request() of snodo-client-connection.c (see
 * snodo-client-private.h). */

#include "config.h"

#include "snodo-client-private.h"

#include "snodo-base-private.h"
#include "snodo-features.h"
#include "snodo-wire-private.h"

/* A server that pages forever is not followed forever. */
#define CLIENT_MAX_PAGES 10000

/* The server's Implementation in a 2026-07-28 result's _meta. */
#define CLIENT_META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

GTask *
snodo_client_task_new (SnodoClient         *self,
                       gpointer             source_tag,
                       const char          *name,
                       GCancellable        *cancellable,
                       GAsyncReadyCallback  callback,
                       gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  g_task_set_name (task, name);
  return task;
}

gpointer
snodo_client_task_finish (SnodoClient   *self,
                          GAsyncResult  *result,
                          gpointer       source_tag,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == source_tag, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* One request whose result is the caller's. */
static void
snodo_client_simple_async (SnodoClient         *self,
                           const char          *method,
                           JsonObject          *params,
                           gpointer             source_tag,
                           const char          *name,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  GTask *task = snodo_client_task_new (self, source_tag, name, cancellable, callback, user_data);

  snodo_client_start_request (self, method, params, cancellable, task);
}

/* @result (taken) in the shape of every era: without what only 2026-07-28
 * puts in a result, its `resultType` (the client handled any other than
 * "complete") and the server's `io.modelcontextprotocol/serverInfo` in
 * `_meta` (which snodo_client_get_server_info() gives); a `_meta` left
 * empty goes too. */
static JsonObject *
snodo_client_plain_result (JsonObject *result)
{
  JsonObject *plain;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (result == NULL)
    return NULL;
  member = json_object_get_member (result, "_meta");
  if (!json_object_has_member (result, "resultType") &&
      (member == NULL || !JSON_NODE_HOLDS_OBJECT (member) ||
       !json_object_has_member (json_node_get_object (member), CLIENT_META_SERVER_INFO)))
    return result;

  plain = json_object_new ();
  json_object_iter_init (&iter, result);
  while (json_object_iter_next (&iter, &name, &member))
    {
      if (g_str_equal (name, "resultType"))
        continue;
      if (g_str_equal (name, "_meta") && JSON_NODE_HOLDS_OBJECT (member))
        {
          JsonObject *meta = json_object_new ();
          JsonObjectIter meta_iter;
          const char *key;
          JsonNode *value;

          json_object_iter_init (&meta_iter, json_node_get_object (member));
          while (json_object_iter_next (&meta_iter, &key, &value))
            if (!g_str_equal (key, CLIENT_META_SERVER_INFO))
              json_object_set_member (meta, key, json_node_copy (value));
          if (json_object_get_size (meta) > 0)
            json_object_set_object_member (plain, name, meta);
          else
            json_object_unref (meta);
          continue;
        }
      json_object_set_member (plain, name, json_node_copy (member));
    }
  json_object_unref (result);
  return plain;
}

static JsonObject *
snodo_client_simple_finish (SnodoClient   *self,
                            GAsyncResult  *result,
                            gpointer       source_tag,
                            GError       **error)
{
  return snodo_client_plain_result (snodo_client_task_finish (self, result, source_tag, error));
}

typedef struct
{
  /* The list's method and the member of its result that holds the items. */
  const char *method;
  const char *member;
  /* The directory read (resources/directory/read), or NULL. Owned. */
  char *uri;
  /* The items of the pages so far. Owned. */
  JsonArray *items;
  guint pages;
} ListState;

static void
list_state_free (ListState *state)
{
  g_free (state->uri);
  g_clear_pointer (&state->items, json_array_unref);
  g_free (state);
}

static void snodo_client_list_page_cb (GObject      *source,
                                       GAsyncResult *result,
                                       gpointer      user_data);

static void
snodo_client_list_page (SnodoClient *self,
                        GTask       *task,
                        const char  *cursor)
{
  ListState *state = g_task_get_task_data (task);
  JsonObject *params = json_object_new ();
  GTask *request;

  if (state->uri != NULL)
    json_object_set_string_member (params, "uri", state->uri);
  if (cursor != NULL)
    json_object_set_string_member (params, "cursor", cursor);
  request = g_task_new (self, NULL, snodo_client_list_page_cb, task);
  snodo_client_start_request (self, state->method, params, g_task_get_cancellable (task), request);
}

static void
snodo_client_list_page_cb (GObject      *source,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  SnodoClient *self = SNODO_CLIENT (source);
  g_autoptr(GTask) task = user_data;
  ListState *state = g_task_get_task_data (task);
  g_autoptr(JsonObject) page = NULL;
  g_autoptr(GError) error = NULL;
  JsonNode *items;
  JsonNode *next;

  page = g_task_propagate_pointer (G_TASK (result), &error);
  if (page == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  items = json_object_get_member (page, state->member);
  if (items == NULL || !JSON_NODE_HOLDS_ARRAY (items))
    {
      g_task_return_new_error (task, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_REQUEST,
                               _("The server answered %s without the array %s"),
                               state->method, state->member);
      return;
    }
#if SNODO_HAS_HTTP_TRANSPORT
  if (self->http != NULL && g_str_equal (state->method, "tools/list"))
    snodo_client_http_learn_tools (self, json_node_get_array (items));
#endif
  for (guint i = 0; i < json_array_get_length (json_node_get_array (items)); i++)
    json_array_add_element (state->items, json_array_dup_element (json_node_get_array (items), i));

  next = json_object_get_member (page, "nextCursor");
  if (snodo_json_node_is_string (next))
    {
      if (++state->pages >= CLIENT_MAX_PAGES)
        {
          g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_FAILED,
                                   _("The server answered %s with more than %u pages"),
                                   state->method, CLIENT_MAX_PAGES);
          return;
        }
      snodo_client_list_page (self, g_steal_pointer (&task), json_node_get_string (next));
      return;
    }

  g_task_return_pointer (task, json_array_ref (state->items), (GDestroyNotify) json_array_unref);
}

void
snodo_client_list_async (SnodoClient         *self,
                         const char          *method,
                         const char          *member,
                         const char          *uri,
                         gpointer             source_tag,
                         const char          *name,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  GTask *task = snodo_client_task_new (self, source_tag, name, cancellable, callback, user_data);
  ListState *state = g_new0 (ListState, 1);

  state->method = method;
  state->member = member;
  state->uri = g_strdup (uri);
  state->items = json_array_new ();
  g_task_set_task_data (task, state, (GDestroyNotify) list_state_free);
  snodo_client_list_page (self, task, NULL);
}

JsonArray *
snodo_client_list_finish (SnodoClient   *self,
                          GAsyncResult  *result,
                          gpointer       source_tag,
                          GError       **error)
{
  return snodo_client_task_finish (self, result, source_tag, error);
}

/**
 * snodo_client_ping_async:
 * @self: a connected client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the answer
 * @user_data: data for @callback
 *
 * Checks that the server answers: `ping` in the initialize era; in
 * 2026-07-28, which has no `ping`, `server/discover`.
 *
 * Since: 0.1
 */
void
snodo_client_ping_async (SnodoClient         *self,
                         GCancellable        *cancellable,
                         GAsyncReadyCallback  callback,
                         gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_simple_async (self,
                             snodo_protocol_version_is_stateless (snodo_client_get_protocol_version (self))
                               ? "server/discover" : "ping",
                             NULL, snodo_client_ping_async, G_STRFUNC,
                             cancellable, callback, user_data);
}

/**
 * snodo_client_ping_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.ping_async].
 *
 * Returns: %TRUE when the server answered
 *
 * Since: 0.1
 */
gboolean
snodo_client_ping_finish (SnodoClient   *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_autoptr(JsonObject) answer = NULL;

  g_return_val_if_fail (SNODO_IS_CLIENT (self), FALSE);

  answer = snodo_client_simple_finish (self, result, snodo_client_ping_async, error);
  return answer != NULL;
}

/**
 * snodo_client_list_tools_async:
 * @self: a connected client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the tools
 * @user_data: data for @callback
 *
 * Lists the server's tools (`tools/list`), every page of them.
 *
 * Since: 0.1
 */
void
snodo_client_list_tools_async (SnodoClient         *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_list_async (self, "tools/list", "tools", NULL, snodo_client_list_tools_async, G_STRFUNC,
                           cancellable, callback, user_data);
}

/**
 * snodo_client_list_tools_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.list_tools_async].
 *
 * Returns: (transfer full): the `Tool` objects, or %NULL with @error set
 *
 * Since: 0.1
 */
JsonArray *
snodo_client_list_tools_finish (SnodoClient   *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_list_finish (self, result, snodo_client_list_tools_async, error);
}

/**
 * snodo_client_call_tool_async:
 * @self: a connected client
 * @name: the tool's name
 * @arguments: (nullable): the tool's arguments; not modified
 * @cancellable: (nullable): a #GCancellable; cancelling it cancels the
 *   call on the server too
 * @callback: (scope async) (closure user_data): called with the result
 * @user_data: data for @callback
 *
 * Calls a tool (`tools/call`).
 *
 * Since: 0.1
 */
void
snodo_client_call_tool_async (SnodoClient         *self,
                              const char          *name,
                              JsonObject          *arguments,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  JsonObject *params;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  params = json_object_new ();
  json_object_set_string_member (params, "name", name);
  json_object_set_object_member (params, "arguments",
                                 arguments != NULL ? json_object_ref (arguments) : json_object_new ());
  snodo_client_simple_async (self, "tools/call", params, snodo_client_call_tool_async, G_STRFUNC,
                             cancellable, callback, user_data);
}

/**
 * snodo_client_call_tool_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.call_tool_async]. A tool that failed
 * gives a result with `isError` set, not an error.
 *
 * The result has the same shape in every protocol version: what only
 * 2026-07-28 puts in a result, its `resultType` and the server's
 * `io.modelcontextprotocol/serverInfo` in `_meta`, is left out (the
 * server's information is [method@Snodo.Client.get_server_info]); the
 * other members of `_meta` are kept. The same holds for the results of
 * [method@Snodo.Client.read_resource_finish],
 * [method@Snodo.Client.get_prompt_finish] and
 * [method@Snodo.Client.complete_finish]; [method@Snodo.Client.request_finish]
 * gives the result as the server sent it.
 *
 * Returns: (transfer full): the `CallToolResult` object, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_call_tool_finish (SnodoClient   *self,
                               GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_simple_finish (self, result, snodo_client_call_tool_async, error);
}

/**
 * snodo_client_list_resources_async:
 * @self: a connected client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the resources
 * @user_data: data for @callback
 *
 * Lists the server's resources (`resources/list`), every page of them.
 *
 * Since: 0.1
 */
void
snodo_client_list_resources_async (SnodoClient         *self,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_list_async (self, "resources/list", "resources", NULL, snodo_client_list_resources_async,
                           G_STRFUNC, cancellable, callback, user_data);
}

/**
 * snodo_client_list_resources_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.list_resources_async].
 *
 * Returns: (transfer full): the `Resource` objects, or %NULL with @error
 *   set
 *
 * Since: 0.1
 */
JsonArray *
snodo_client_list_resources_finish (SnodoClient   *self,
                                    GAsyncResult  *result,
                                    GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_list_finish (self, result, snodo_client_list_resources_async, error);
}

/**
 * snodo_client_list_resource_templates_async:
 * @self: a connected client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the templates
 * @user_data: data for @callback
 *
 * Lists the server's resource templates (`resources/templates/list`),
 * every page of them.
 *
 * Since: 0.1
 */
void
snodo_client_list_resource_templates_async (SnodoClient         *self,
                                            GCancellable        *cancellable,
                                            GAsyncReadyCallback  callback,
                                            gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_list_async (self, "resources/templates/list", "resourceTemplates", NULL,
                           snodo_client_list_resource_templates_async, G_STRFUNC,
                           cancellable, callback, user_data);
}

/**
 * snodo_client_list_resource_templates_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.list_resource_templates_async].
 *
 * Returns: (transfer full): the `ResourceTemplate` objects, or %NULL with
 *   @error set
 *
 * Since: 0.1
 */
JsonArray *
snodo_client_list_resource_templates_finish (SnodoClient   *self,
                                             GAsyncResult  *result,
                                             GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_list_finish (self, result, snodo_client_list_resource_templates_async, error);
}

/**
 * snodo_client_read_resource_async:
 * @self: a connected client
 * @uri: the resource's URI
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the contents
 * @user_data: data for @callback
 *
 * Reads a resource (`resources/read`).
 *
 * Since: 0.1
 */
void
snodo_client_read_resource_async (SnodoClient         *self,
                                  const char          *uri,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  JsonObject *params;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (uri != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  params = json_object_new ();
  json_object_set_string_member (params, "uri", uri);
  snodo_client_simple_async (self, "resources/read", params, snodo_client_read_resource_async,
                             G_STRFUNC, cancellable, callback, user_data);
}

/**
 * snodo_client_read_resource_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.read_resource_async].
 *
 * Returns: (transfer full): the `ReadResourceResult` object (its
 *   `contents`), or %NULL with @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_read_resource_finish (SnodoClient   *self,
                                   GAsyncResult  *result,
                                   GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_simple_finish (self, result, snodo_client_read_resource_async, error);
}

/**
 * snodo_client_list_prompts_async:
 * @self: a connected client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the prompts
 * @user_data: data for @callback
 *
 * Lists the server's prompts (`prompts/list`), every page of them.
 *
 * Since: 0.1
 */
void
snodo_client_list_prompts_async (SnodoClient         *self,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_list_async (self, "prompts/list", "prompts", NULL, snodo_client_list_prompts_async,
                           G_STRFUNC, cancellable, callback, user_data);
}

/**
 * snodo_client_list_prompts_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.list_prompts_async].
 *
 * Returns: (transfer full): the `Prompt` objects, or %NULL with @error set
 *
 * Since: 0.1
 */
JsonArray *
snodo_client_list_prompts_finish (SnodoClient   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_list_finish (self, result, snodo_client_list_prompts_async, error);
}

/**
 * snodo_client_get_prompt_async:
 * @self: a connected client
 * @name: the prompt's name
 * @arguments: (nullable): the prompt's arguments, strings by name; not
 *   modified
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the prompt
 * @user_data: data for @callback
 *
 * Gets a prompt (`prompts/get`).
 *
 * Since: 0.1
 */
void
snodo_client_get_prompt_async (SnodoClient         *self,
                               const char          *name,
                               JsonObject          *arguments,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  JsonObject *params;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  params = json_object_new ();
  json_object_set_string_member (params, "name", name);
  if (arguments != NULL)
    json_object_set_object_member (params, "arguments", json_object_ref (arguments));
  snodo_client_simple_async (self, "prompts/get", params, snodo_client_get_prompt_async,
                             G_STRFUNC, cancellable, callback, user_data);
}

/**
 * snodo_client_get_prompt_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.get_prompt_async].
 *
 * Returns: (transfer full): the `GetPromptResult` object (its
 *   `messages`), or %NULL with @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_get_prompt_finish (SnodoClient   *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_simple_finish (self, result, snodo_client_get_prompt_async, error);
}

/**
 * snodo_client_complete_async:
 * @self: a connected client
 * @ref: the prompt or resource template whose argument is completed:
 *   `{"type": "ref/prompt", "name": …}` or
 *   `{"type": "ref/resource", "uri": …}`; not modified
 * @argument: the argument's name
 * @value: what the user typed of it so far
 * @context_arguments: (nullable): the values of the other arguments,
 *   strings by name; not modified
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the completion
 * @user_data: data for @callback
 *
 * Asks the server how an argument may go on (`completion/complete`).
 *
 * Since: 0.1
 */
void
snodo_client_complete_async (SnodoClient         *self,
                             JsonObject          *ref,
                             const char          *argument,
                             const char          *value,
                             JsonObject          *context_arguments,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  JsonObject *params;
  JsonObject *member;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (ref != NULL);
  g_return_if_fail (argument != NULL);
  g_return_if_fail (value != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  params = json_object_new ();
  json_object_set_object_member (params, "ref", snodo_client_copy_params (ref));
  member = json_object_new ();
  json_object_set_string_member (member, "name", argument);
  json_object_set_string_member (member, "value", value);
  json_object_set_object_member (params, "argument", member);
  if (context_arguments != NULL)
    {
      JsonObject *context = json_object_new ();

      json_object_set_object_member (context, "arguments", snodo_client_copy_params (context_arguments));
      json_object_set_object_member (params, "context", context);
    }
  snodo_client_simple_async (self, "completion/complete", params, snodo_client_complete_async,
                             G_STRFUNC, cancellable, callback, user_data);
}

/**
 * snodo_client_complete_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.complete_async].
 *
 * Returns: (transfer full): the result's `completion` object (`values`,
 *   and `total` and `hasMore` when the server says), or %NULL with @error
 *   set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_complete_finish (SnodoClient   *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_autoptr(JsonObject) answer = NULL;
  JsonNode *completion;

  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  answer = snodo_client_simple_finish (self, result, snodo_client_complete_async, error);
  if (answer == NULL)
    return NULL;
  completion = json_object_get_member (answer, "completion");
  if (completion == NULL || !JSON_NODE_HOLDS_OBJECT (completion))
    {
      g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("The server answered %s without the object %s"), "completion/complete", "completion");
      return NULL;
    }
  return json_object_ref (json_node_get_object (completion));
}

/* Subscriptions. */

static void
snodo_client_uri_async (SnodoClient         *self,
                        const char          *method,
                        const char          *uri,
                        gpointer             source_tag,
                        GCancellable        *cancellable,
                        GAsyncReadyCallback  callback,
                        gpointer             user_data)
{
  JsonObject *params;

  if (snodo_protocol_version_is_stateless (self->protocol_version))
    {
      g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);

      g_task_set_source_tag (task, source_tag);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("%s does not exist in protocol version %s: use subscriptions/listen"),
                               method, snodo_protocol_version_to_string (self->protocol_version));
      return;
    }
  params = json_object_new ();
  json_object_set_string_member (params, "uri", uri);
  snodo_client_simple_async (self, method, params, source_tag, method, cancellable, callback, user_data);
}

/**
 * snodo_client_subscribe_resource_async:
 * @self: a connected client
 * @uri: the resource's URI
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called when subscribed
 * @user_data: data for @callback
 *
 * Asks to be told when a resource changes (`resources/subscribe`): each
 * change is a `notifications/resources/updated` notification
 * ([signal@Snodo.Client::notification]). The initialize era only: in
 * 2026-07-28 it fails with %G_IO_ERROR_NOT_SUPPORTED, and
 * [method@Snodo.Client.listen_async] does it.
 *
 * Since: 0.1
 */
void
snodo_client_subscribe_resource_async (SnodoClient         *self,
                                       const char          *uri,
                                       GCancellable        *cancellable,
                                       GAsyncReadyCallback  callback,
                                       gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (uri != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_uri_async (self, "resources/subscribe", uri, snodo_client_subscribe_resource_async,
                          cancellable, callback, user_data);
}

/**
 * snodo_client_subscribe_resource_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.subscribe_resource_async].
 *
 * Returns: %TRUE once subscribed
 *
 * Since: 0.1
 */
gboolean
snodo_client_subscribe_resource_finish (SnodoClient   *self,
                                        GAsyncResult  *result,
                                        GError       **error)
{
  g_autoptr(JsonObject) answer = NULL;

  g_return_val_if_fail (SNODO_IS_CLIENT (self), FALSE);

  answer = snodo_client_simple_finish (self, result, snodo_client_subscribe_resource_async, error);
  return answer != NULL;
}

/**
 * snodo_client_unsubscribe_resource_async:
 * @self: a connected client
 * @uri: the resource's URI
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called when unsubscribed
 * @user_data: data for @callback
 *
 * Undoes [method@Snodo.Client.subscribe_resource_async]
 * (`resources/unsubscribe`).
 *
 * Since: 0.1
 */
void
snodo_client_unsubscribe_resource_async (SnodoClient         *self,
                                         const char          *uri,
                                         GCancellable        *cancellable,
                                         GAsyncReadyCallback  callback,
                                         gpointer             user_data)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (uri != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  snodo_client_uri_async (self, "resources/unsubscribe", uri, snodo_client_unsubscribe_resource_async,
                          cancellable, callback, user_data);
}

/**
 * snodo_client_unsubscribe_resource_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.unsubscribe_resource_async].
 *
 * Returns: %TRUE once unsubscribed
 *
 * Since: 0.1
 */
gboolean
snodo_client_unsubscribe_resource_finish (SnodoClient   *self,
                                          GAsyncResult  *result,
                                          GError       **error)
{
  g_autoptr(JsonObject) answer = NULL;

  g_return_val_if_fail (SNODO_IS_CLIENT (self), FALSE);

  answer = snodo_client_simple_finish (self, result, snodo_client_unsubscribe_resource_async, error);
  return answer != NULL;
}

/**
 * snodo_client_listen_async:
 * @self: a connected client
 * @notifications: what to be told of: `{"toolsListChanged": true,
 *   "promptsListChanged": true, "resourcesListChanged": true,
 *   "resourceSubscriptions": [URI, …]}`, each member optional; not
 *   modified
 * @cancellable: (nullable): a #GCancellable, which ends the subscription
 * @callback: (scope async) (closure user_data): called when the
 *   subscription ends
 * @user_data: data for @callback
 *
 * Subscribes to the server's change notifications in 2026-07-28
 * (`subscriptions/listen`). The server first sends
 * `notifications/subscriptions/acknowledged` with what it will honour,
 * then each change; every one is emitted as
 * [signal@Snodo.Client::notification] and carries the subscription's id
 * (the request's) in `_meta["io.modelcontextprotocol/subscriptionId"]`.
 * The request timeout does not apply.
 *
 * Over HTTP, a stream that is lost (the connection cut, the server
 * restarted) does not end the subscription: the client sends the request
 * again, at once and then after waits that grow to 5 seconds while the
 * server cannot be reached (at most 10 attempts in a row that are not
 * acknowledged). The new subscription has a new id, and the server
 * acknowledges it again; changes made while no stream stood are not told,
 * so an application that must not miss one fetches its lists again on
 * each acknowledgement after the first. Cancelling @cancellable ends the
 * subscription (the client tells the server on stdio, and closes the
 * stream over HTTP): the operation then fails with %G_IO_ERROR_CANCELLED.
 * A server that ends it answers, and the operation returns that answer.
 *
 * In the initialize era it fails with %G_IO_ERROR_NOT_SUPPORTED: list
 * changes arrive unasked there, and
 * [method@Snodo.Client.subscribe_resource_async] subscribes to a resource.
 *
 * Since: 0.1
 */
void
snodo_client_listen_async (SnodoClient         *self,
                           JsonObject          *notifications,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  GTask *task;
  JsonObject *params;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (notifications != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = snodo_client_task_new (self, snodo_client_listen_async, G_STRFUNC, cancellable, callback, user_data);
  if (self->state == STATE_READY && !snodo_protocol_version_is_stateless (self->protocol_version))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                               _("%s does not exist in protocol version %s"), "subscriptions/listen",
                               snodo_protocol_version_to_string (self->protocol_version));
      g_object_unref (task);
      return;
    }
  if (self->state != STATE_READY)
    {
      /* The same refusal as any request's. */
      snodo_client_start_request (self, "subscriptions/listen", NULL, cancellable, task);
      return;
    }
  params = json_object_new ();
  json_object_set_object_member (params, "notifications", snodo_client_copy_params (notifications));
  /* Following tasks needs their extension (snodo-client-tasks.c). */
  if (json_object_has_member (notifications, "taskIds"))
    snodo_client_add_tasks_extension (self, params);
#if SNODO_HAS_HTTP_TRANSPORT
  /* Over HTTP a lost stream is listened to again (snodo-client-listen.c). */
  if (self->http != NULL)
    {
      snodo_client_listen_again (self, params, cancellable, task);
      return;
    }
#endif
  /* A subscription lasts: no timeout. */
  snodo_client_send_request (self, "subscriptions/listen", params, TRUE, 0, cancellable, task);
}

/**
 * snodo_client_listen_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.listen_async].
 *
 * Returns: (transfer full): the server's answer when it ended the
 *   subscription, or %NULL with @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_listen_finish (SnodoClient   *self,
                            GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_task_finish (self, result, snodo_client_listen_async, error);
}

/**
 * snodo_client_notify:
 * @self: a client
 * @method: the notification's method, such as one of the server's own
 *   (`vendor/name`)
 * @params: (nullable): its params, or %NULL for none
 *
 * Sends a notification to the server, as it is: a notification has no
 * answer, and one the server does not know is dropped there. Nothing is
 * sent once the client is closed or failed.
 */
void
snodo_client_notify (SnodoClient *self,
                     const char  *method,
                     JsonObject  *params)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (method != NULL);

  snodo_client_send_notification (self, method, params);
}
