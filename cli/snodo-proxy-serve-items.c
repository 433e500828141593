/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo proxy --serve: the calls of the front client, forwarded to the
 * backend of the item they name, and the front catalog, made of what the
 * backends list (see snodo-proxy-serve.c). */

#include "config.h"

#include <string.h>

#include <snodo/snodo.h>

#include "snodo-proxy-serve.h"

/* ---- Items ------------------------------------------------------------ */

static Item *
item_new (Backend    *backend,
          const char *name)
{
  Item *item = g_new0 (Item, 1);

  item->backend = backend;
  item->name = g_strdup (name);
  return item;
}

static void
item_free (gpointer data)
{
  Item *item = data;

  g_free (item->name);
  g_free (item);
}

const char *
serve_string_member (JsonObject *object,
                     const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

JsonNode *
serve_member (JsonObject *object,
              const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node != NULL && !JSON_NODE_HOLDS_NULL (node) ? node : NULL;
}

void
serve_report (Serve         *serve,
              SnodoLogLevel  level,
              const char    *name,
              const char    *text)
{
  g_autoptr(JsonNode) data = json_node_new (JSON_NODE_VALUE);

  g_printerr ("snodo: %s: %s\n", name, text);
  json_node_set_string (data, text);
  snodo_server_log (serve->server, level, name, data);
}

/* ---- Calls ------------------------------------------------------------ */

void
call_free (Call *call)
{
  if (call->cancelled_id != 0)
    g_cancellable_disconnect (snodo_invocation_get_cancellable (call->invocation), call->cancelled_id);
  g_clear_object (&call->invocation);
  g_clear_object (&call->cancellable);
  g_free (call->method);
  g_free (call->key);
  g_free (call);
}

static void
call_cancelled_cb (GCancellable *cancellable,
                   gpointer      user_data)
{
  g_cancellable_cancel (G_CANCELLABLE (user_data));
}

/* The answer of the backend, whole: a result as it is, an error with its
 * code and message. */
static void
serve_forwarded_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Call *call = user_data;
  Backend *backend = call->backend;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  JsonNode *node;

  answer = snodo_client_forward_finish (SNODO_CLIENT (source), result, &error);
  if (!snodo_invocation_get_answered (call->invocation))
    {
      if (answer == NULL)
        {
          if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
            snodo_invocation_return_gerror (call->invocation, error);
          else
            {
              g_autofree char *text = g_strdup_printf ("The server %s did not answer: %s",
                                                       backend->name, error->message);

              snodo_invocation_return_error_literal (call->invocation, SNODO_RPC_ERROR,
                                                     SNODO_RPC_ERROR_INTERNAL_ERROR, text);
            }
        }
      else if ((node = json_object_get_member (answer, "result")) != NULL && JSON_NODE_HOLDS_OBJECT (node))
        snodo_invocation_return_result (call->invocation, node);
      else
        {
          JsonNode *error_node = json_object_get_member (answer, "error");
          JsonObject *error_object = error_node != NULL && JSON_NODE_HOLDS_OBJECT (error_node)
                                     ? json_node_get_object (error_node) : NULL;
          int code = error_object != NULL
                     ? (int) json_object_get_int_member_with_default (error_object, "code",
                                                                     SNODO_RPC_ERROR_INTERNAL_ERROR)
                     : SNODO_RPC_ERROR_INTERNAL_ERROR;
          const char *message = serve_string_member (error_object, "message");

          snodo_invocation_return_error_literal (call->invocation, SNODO_RPC_ERROR,
                                                 code != 0 ? code : SNODO_RPC_ERROR_INTERNAL_ERROR,
                                                 message != NULL ? message : "The server's answer is not valid");
        }
    }
  g_hash_table_remove (backend->calls, call->key);
  /* No answer at all: the server is gone (over HTTP, nothing else tells). */
  if (answer == NULL && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) &&
      SNODO_CLIENT (source) == backend->client)
    serve_backend_fail (backend, error);
}

/* A _meta of the front client's request, without what is between it and
 * the proxy (its progress token, its 2026-07-28 envelope). */
static JsonObject *
serve_params_new (SnodoInvocation *invocation)
{
  JsonNode *params_node = snodo_invocation_get_params (invocation);
  JsonObject *params = params_node != NULL && JSON_NODE_HOLDS_OBJECT (params_node)
                       ? json_node_get_object (params_node) : NULL;
  JsonNode *front_meta = params != NULL ? json_object_get_member (params, "_meta") : NULL;
  JsonObject *copy = json_object_new ();
  JsonObject *meta = json_object_new ();

  if (front_meta != NULL && JSON_NODE_HOLDS_OBJECT (front_meta))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *value;

      json_object_iter_init (&iter, json_node_get_object (front_meta));
      while (json_object_iter_next (&iter, &name, &value))
        if (!g_str_equal (name, "progressToken") && !g_str_has_prefix (name, "io.modelcontextprotocol/"))
          json_object_set_member (meta, name, json_node_copy (value));
    }
  json_object_set_object_member (copy, "_meta", meta);
  return copy;
}

/* Sends @method with @params (taken) to @backend for @invocation. */
static void
serve_forward (Backend         *backend,
               SnodoInvocation *invocation,
               const char      *method,
               JsonObject      *params)
{
  Serve *serve = backend->serve;
  Call *call;

  if (backend->state != BACKEND_READY && backend->state != BACKEND_LISTING)
    {
      g_autofree char *text = g_strdup_printf ("The server %s is not available", backend->name);

      json_object_unref (params);
      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INTERNAL_ERROR, text);
      return;
    }
  call = g_new0 (Call, 1);
  call->backend = backend;
  /* The handler's reference goes with the answer; the call keeps its own. */
  call->invocation = g_object_ref (invocation);
  call->method = g_strdup (method);
  call->key = g_strdup_printf ("snodo-proxy-%" G_GUINT64_FORMAT, ++serve->next_call);
  call->cancellable = g_cancellable_new ();
  call->started = g_get_monotonic_time ();
  call->cancelled_id = g_cancellable_connect (snodo_invocation_get_cancellable (invocation),
                                              G_CALLBACK (call_cancelled_cb),
                                              g_object_ref (call->cancellable), g_object_unref);
  json_object_set_string_member (json_object_get_object_member (params, "_meta"), "progressToken", call->key);
  g_hash_table_insert (backend->calls, call->key, call);
  snodo_client_forward_async (backend->client, call->key, method, params, call->cancellable,
                              serve_forwarded_cb, call);
  json_object_unref (params);
}

/* A call of a named item (tool, prompt): its backend's name for it and
 * the arguments as they came. */
static void
serve_named (Item            *item,
             SnodoInvocation *invocation,
             const char      *method)
{
  JsonObject *params = serve_params_new (invocation);
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  json_object_set_string_member (params, "name", item->name);
  if (arguments != NULL)
    json_object_set_object_member (params, "arguments", json_object_ref (arguments));
  serve_forward (item->backend, invocation, method, params);
}

static void
serve_tool_cb (SnodoInvocation *invocation,
               gpointer         user_data)
{
  serve_named (user_data, invocation, "tools/call");
}

static void
serve_prompt_cb (SnodoInvocation *invocation,
                 gpointer         user_data)
{
  serve_named (user_data, invocation, "prompts/get");
}

static void
serve_resource_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  Item *item = user_data;
  JsonObject *params = serve_params_new (invocation);

  json_object_set_string_member (params, "uri", snodo_invocation_get_uri (invocation));
  serve_forward (item->backend, invocation, "resources/read", params);
}

/* The backend of a front tool or prompt name, and the name it knows. */
static Backend *
serve_lookup_name (Serve       *serve,
                   const char  *front,
                   const char **original)
{
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);
      size_t length = strlen (backend->name);

      if (strncmp (front, backend->name, length) == 0 && front[length] == '_')
        {
          *original = front + length + 1;
          return backend;
        }
    }
  return NULL;
}

/* completion/complete: routed by its ref, a prompt by its front name, a
 * resource template by its URI template. */
void
serve_complete_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  Serve *serve = user_data;
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  JsonNode *ref_node = json_object_get_member (params, "ref");
  JsonObject *ref = ref_node != NULL && JSON_NODE_HOLDS_OBJECT (ref_node) ? json_node_get_object (ref_node) : NULL;
  const char *type = serve_string_member (ref, "type");
  Backend *backend = NULL;
  const char *original = NULL;
  JsonObject *forwarded;
  JsonObject *forwarded_ref;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (g_strcmp0 (type, "ref/prompt") == 0 && serve_string_member (ref, "name") != NULL)
    {
      backend = serve_lookup_name (serve, serve_string_member (ref, "name"), &original);
      if (backend != NULL && !g_hash_table_contains (backend->items[KIND_PROMPTS], serve_string_member (ref, "name")))
        backend = NULL;
    }
  else if (g_strcmp0 (type, "ref/resource") == 0 && serve_string_member (ref, "uri") != NULL)
    for (guint i = 0; i < serve->backends->len && backend == NULL; i++)
      {
        Backend *candidate = g_ptr_array_index (serve->backends, i);

        if (g_hash_table_contains (candidate->items[KIND_TEMPLATES], serve_string_member (ref, "uri")) ||
            g_hash_table_contains (candidate->items[KIND_RESOURCES], serve_string_member (ref, "uri")))
          backend = candidate;
      }
  if (backend == NULL)
    {
      snodo_invocation_return_completion (invocation, NULL, 0, FALSE);
      return;
    }

  forwarded = serve_params_new (invocation);
  json_object_iter_init (&iter, params);
  while (json_object_iter_next (&iter, &name, &value))
    if (!g_str_equal (name, "_meta") && !g_str_equal (name, "ref"))
      json_object_set_member (forwarded, name, json_node_copy (value));
  forwarded_ref = json_object_new ();
  json_object_iter_init (&iter, ref);
  while (json_object_iter_next (&iter, &name, &value))
    json_object_set_member (forwarded_ref, name, json_node_copy (value));
  if (original != NULL)
    json_object_set_string_member (forwarded_ref, "name", original);
  json_object_set_object_member (forwarded, "ref", forwarded_ref);
  serve_forward (backend, invocation, "completion/complete", forwarded);
}

/* resources/subscribe (or a 2026-07-28 subscriptions/listen with
 * resourceSubscriptions) of the front client: the backend that has each
 * resource is subscribed to it too (once), before the front client's
 * request goes on, so that the updates that follow its answer come. */
typedef struct
{
  SnodoInvocation *invocation;
  SnodoMiddlewareNext *next;
  guint outstanding;
} Subscribe;

static void
serve_subscribe_done (SnodoMiddlewareNext *next,
                      SnodoInvocation     *invocation,
                      SnodoAnswer         *answer,
                      gpointer             user_data)
{
  snodo_invocation_return_answer (invocation, answer);
}

static void
serve_subscribe_next (Subscribe *subscribe)
{
  if (--subscribe->outstanding > 0)
    return;
  snodo_middleware_next_call (subscribe->next, subscribe->invocation, serve_subscribe_done, NULL, NULL);
  g_object_unref (subscribe->next);
  g_free (subscribe);
}

static void
serve_subscribed_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  snodo_client_subscribe_resource_finish (SNODO_CLIENT (source), result, NULL);
  serve_subscribe_next (user_data);
}

static void
serve_subscribe_uri (Serve      *serve,
                     const char *uri,
                     Subscribe  *subscribe)
{
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);
      JsonObject *capabilities;
      JsonNode *resources;

      if (backend->state != BACKEND_READY && backend->state != BACKEND_LISTING)
        continue;
      if (!g_hash_table_contains (backend->items[KIND_RESOURCES], uri) || g_hash_table_contains (backend->subscribed, uri))
        continue;
      capabilities = snodo_client_get_server_capabilities (backend->client);
      resources = capabilities != NULL ? json_object_get_member (capabilities, "resources") : NULL;
      if (resources == NULL || !JSON_NODE_HOLDS_OBJECT (resources) ||
          !json_object_get_boolean_member_with_default (json_node_get_object (resources), "subscribe", FALSE))
        continue;
      g_hash_table_add (backend->subscribed, g_strdup (uri));
      subscribe->outstanding++;
      snodo_client_subscribe_resource_async (backend->client, uri, NULL, serve_subscribed_cb, subscribe);
    }
}

void
serve_subscribe_middleware (SnodoInvocation     *invocation,
                            SnodoMiddlewareNext *next,
                            gpointer             user_data)
{
  Serve *serve = user_data;
  JsonNode *params_node = snodo_invocation_get_params (invocation);
  JsonObject *params = params_node != NULL && JSON_NODE_HOLDS_OBJECT (params_node)
                       ? json_node_get_object (params_node) : NULL;
  Subscribe *subscribe = g_new0 (Subscribe, 1);

  subscribe->invocation = invocation;
  subscribe->next = g_object_ref (next);
  /* One for the loop, so that nothing goes on before it ends. */
  subscribe->outstanding = 1;
  if (params != NULL && serve_string_member (params, "uri") != NULL)
    serve_subscribe_uri (serve, serve_string_member (params, "uri"), subscribe);
  else if (params != NULL)
    {
      JsonNode *notifications = json_object_get_member (params, "notifications");
      JsonNode *uris = notifications != NULL && JSON_NODE_HOLDS_OBJECT (notifications)
                       ? json_object_get_member (json_node_get_object (notifications), "resourceSubscriptions")
                       : NULL;

      if (uris != NULL && JSON_NODE_HOLDS_ARRAY (uris))
        for (guint i = 0; i < json_array_get_length (json_node_get_array (uris)); i++)
          {
            JsonNode *uri = json_array_get_element (json_node_get_array (uris), i);

            if (JSON_NODE_HOLDS_VALUE (uri) && json_node_get_value_type (uri) == G_TYPE_STRING)
              serve_subscribe_uri (serve, json_node_get_string (uri), subscribe);
          }
    }
  serve_subscribe_next (subscribe);
}

/* ---- The front catalog ------------------------------------------------ */

static gboolean
serve_set_common (SnodoDescription *description,
                  JsonObject       *json)
{
  JsonNode *node;

  if (serve_string_member (json, "title") != NULL)
    snodo_description_set_title (description, serve_string_member (json, "title"));
  if (serve_string_member (json, "description") != NULL)
    snodo_description_set_description (description, serve_string_member (json, "description"));
  if ((node = serve_member (json, "icons")) != NULL)
    snodo_description_set_icons (description, node);
  if ((node = serve_member (json, "_meta")) != NULL)
    snodo_description_set_meta (description, node);
  return TRUE;
}

/* Adds the item @json of @backend under @key (a front name or URI) to the
 * front catalog; FALSE, said on standard error, when it cannot be. */
static gboolean
serve_add_item (Backend    *backend,
                Kind        kind,
                const char *key,
                JsonObject *json)
{
  Serve *serve = backend->serve;
  g_autoptr(GError) error = NULL;
  gboolean added = FALSE;
  JsonNode *node;

  for (int attempt = 0; attempt < 2 && !added; attempt++)
    {
      /* A _meta the front refuses (a reserved prefix) is left out on the
       * second attempt. */
      gboolean with_meta = attempt == 0;

      g_clear_error (&error);
      switch (kind)
        {
        case KIND_TOOLS:
          {
            g_autoptr(SnodoTool) tool = snodo_tool_new (key, NULL);

            serve_set_common (SNODO_DESCRIPTION (tool), json);
            if ((node = serve_member (json, "inputSchema")) != NULL &&
                !snodo_tool_set_input_schema (tool, node, &error))
              break;
            if ((node = serve_member (json, "outputSchema")) != NULL &&
                !snodo_tool_set_output_schema (tool, node, &error))
              break;
            if ((node = serve_member (json, "annotations")) != NULL)
              snodo_tool_set_annotations (tool, node);
            if (!with_meta)
              snodo_description_set_meta (SNODO_DESCRIPTION (tool), NULL);
            added = snodo_server_add_tool (serve->server, tool, serve_tool_cb,
                                           item_new (backend, serve_string_member (json, "name")), item_free, &error);
          }
          break;
        case KIND_PROMPTS:
          {
            g_autoptr(SnodoPrompt) prompt = snodo_prompt_new (key, NULL);
            JsonNode *arguments = serve_member (json, "arguments");

            serve_set_common (SNODO_DESCRIPTION (prompt), json);
            if (arguments != NULL && JSON_NODE_HOLDS_ARRAY (arguments))
              for (guint i = 0; i < json_array_get_length (json_node_get_array (arguments)); i++)
                {
                  JsonNode *argument = json_array_get_element (json_node_get_array (arguments), i);
                  JsonObject *object = JSON_NODE_HOLDS_OBJECT (argument) ? json_node_get_object (argument) : NULL;

                  if (serve_string_member (object, "name") != NULL)
                    snodo_prompt_add_argument (prompt, serve_string_member (object, "name"),
                                               serve_string_member (object, "description"),
                                               json_object_get_boolean_member_with_default (object, "required",
                                                                                            FALSE));
                }
            if (!with_meta)
              snodo_description_set_meta (SNODO_DESCRIPTION (prompt), NULL);
            added = snodo_server_add_prompt (serve->server, prompt, serve_prompt_cb,
                                             item_new (backend, serve_string_member (json, "name")), item_free, &error);
          }
          break;
        case KIND_RESOURCES:
          {
            const char *name = serve_string_member (json, "name");
            g_autoptr(SnodoResource) resource = snodo_resource_new (key, name != NULL ? name : key);

            serve_set_common (SNODO_DESCRIPTION (resource), json);
            if (serve_string_member (json, "mimeType") != NULL)
              snodo_resource_set_mime_type (resource, serve_string_member (json, "mimeType"));
            if ((node = serve_member (json, "size")) != NULL && JSON_NODE_HOLDS_VALUE (node))
              snodo_resource_set_size (resource, json_node_get_int (node));
            if ((node = serve_member (json, "annotations")) != NULL)
              snodo_resource_set_annotations (resource, node);
            if (!with_meta)
              snodo_description_set_meta (SNODO_DESCRIPTION (resource), NULL);
            added = snodo_server_add_resource (serve->server, resource, serve_resource_cb,
                                               item_new (backend, key), item_free, &error);
          }
          break;
        case KIND_TEMPLATES:
          {
            const char *name = serve_string_member (json, "name");
            g_autoptr(SnodoResourceTemplate) template = snodo_resource_template_new (key, name != NULL ? name : key);

            serve_set_common (SNODO_DESCRIPTION (template), json);
            if (serve_string_member (json, "mimeType") != NULL)
              snodo_resource_template_set_mime_type (template, serve_string_member (json, "mimeType"));
            if ((node = serve_member (json, "annotations")) != NULL)
              snodo_resource_template_set_annotations (template, node);
            if (!with_meta)
              snodo_description_set_meta (SNODO_DESCRIPTION (template), NULL);
            added = snodo_server_add_resource_template (serve->server, template, serve_resource_cb,
                                                        item_new (backend, key), item_free, &error);
          }
          break;
        case N_KINDS:
        default:
          g_assert_not_reached ();
        }
      if (error != NULL && !g_error_matches (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA))
        break;
    }
  if (!added)
    {
      g_autofree char *text = g_strdup_printf ("%s is not offered: %s", key,
                                               error != NULL ? error->message : "it cannot be added");

      serve_report (serve, SNODO_LOG_LEVEL_WARNING, backend->name, text);
    }
  return added;
}

static void
serve_remove_item (Backend    *backend,
                   Kind        kind,
                   const char *key)
{
  SnodoServer *server = backend->serve->server;

  switch (kind)
    {
    case KIND_TOOLS:
      snodo_server_remove_tool (server, key);
      break;
    case KIND_PROMPTS:
      snodo_server_remove_prompt (server, key);
      break;
    case KIND_RESOURCES:
      snodo_server_remove_resource (server, key);
      break;
    case KIND_TEMPLATES:
      snodo_server_remove_resource_template (server, key);
      break;
    case N_KINDS:
    default:
      g_assert_not_reached ();
    }
}

/* What each backend wants in the front catalog for @kind: a table of
 * front name or URI -> description (JsonNode), and their order. A URI is
 * wanted only by the first backend on the command line that lists it. */
static GHashTable *
serve_wanted (Backend    *backend,
              Kind        kind,
              GHashTable *claimed,
              GPtrArray  *order)
{
  static const char * const keys[] = { "name", "name", "uri", "uriTemplate" };
  GHashTable *wanted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_node_unref);
  JsonArray *items = backend->state == BACKEND_READY || backend->state == BACKEND_LISTING ? backend->listed[kind] : NULL;
  guint length = items != NULL ? json_array_get_length (items) : 0;

  for (guint i = 0; i < length; i++)
    {
      JsonNode *node = json_array_get_element (items, i);
      JsonObject *object = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
      const char *id = serve_string_member (object, keys[kind]);
      char *front;

      if (id == NULL)
        continue;
      if (kind == KIND_TOOLS || kind == KIND_PROMPTS)
        front = g_strconcat (backend->name, "_", id, NULL);
      else
        {
          Backend *owner = g_hash_table_lookup (claimed, id);

          if (owner != NULL && owner != backend)
            {
              if (!g_hash_table_contains (backend->shadowed, id))
                {
                  g_hash_table_add (backend->shadowed, g_strdup (id));
                  g_printerr ("snodo: %s: %s is not offered: %s has it too, and comes first\n",
                              backend->name, id, owner->name);
                }
              continue;
            }
          g_hash_table_insert (claimed, g_strdup (id), backend);
          front = g_strdup (id);
        }
      if (g_hash_table_contains (wanted, front))
        {
          g_free (front);
          continue;
        }
      g_hash_table_insert (wanted, front, json_node_ref (node));
      g_ptr_array_add (order, g_strdup (front));
    }
  return wanted;
}

/* Makes the front catalog hold, for @kind, what the backends list now:
 * removes what went or changed, then adds what came or changed. Each
 * change is a list change for the front client. */
static void
serve_sync (Serve *serve,
            Kind   kind)
{
  g_autoptr(GHashTable) claimed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) wanted = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  g_autoptr(GPtrArray) orders = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);

  for (guint b = 0; b < serve->backends->len; b++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, b);
      GPtrArray *order = g_ptr_array_new_with_free_func (g_free);

      g_ptr_array_add (wanted, serve_wanted (backend, kind, claimed, order));
      g_ptr_array_add (orders, order);
    }
  /* What went or changed, for every backend first: a URI may go from one
   * to another. */
  for (guint b = 0; b < serve->backends->len; b++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, b);
      GHashTable *now = g_ptr_array_index (wanted, b);
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, backend->items[kind]);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          JsonNode *node = g_hash_table_lookup (now, key);

          if (node == NULL || !json_node_equal (node, value))
            {
              serve_remove_item (backend, kind, key);
              g_hash_table_iter_remove (&iter);
            }
        }
    }
  /* What came or changed, in the backends' order. */
  for (guint b = 0; b < serve->backends->len; b++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, b);
      GHashTable *now = g_ptr_array_index (wanted, b);
      GPtrArray *order = g_ptr_array_index (orders, b);

      for (guint i = 0; i < order->len; i++)
        {
          const char *front = g_ptr_array_index (order, i);
          JsonNode *node = g_hash_table_lookup (now, front);

          if (g_hash_table_contains (backend->items[kind], front))
            continue;
          if (serve_add_item (backend, kind, front, json_node_get_object (node)))
            g_hash_table_insert (backend->items[kind], g_strdup (front), json_node_ref (node));
        }
    }
}

/* @backend lists @items (NULL: nothing, it failed) for @kind. */
void
serve_backend_sync (Backend   *backend,
                    Kind       kind,
                    JsonArray *items)
{
  g_clear_pointer (&backend->listed[kind], json_array_unref);
  if (items != NULL)
    backend->listed[kind] = json_array_ref (items);
  serve_sync (backend->serve, kind);
}

