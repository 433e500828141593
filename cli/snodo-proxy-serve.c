/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo proxy --serve NAME=COMMAND|URL …: several servers behind one.
 *
 * Unlike snodo proxy URL, which passes messages through, this is a
 * SnodoServer of its own on standard input and output, whose catalog
 * mirrors its backends: each a SnodoClient (a command's child, or a
 * Streamable HTTP server), spoken to in the initialize era (2025-11-25).
 * Tools and prompts are named NAME_original; resources and resource
 * templates keep their URIs (the first NAME on the command line wins a
 * URI two backends have). A call is forwarded with
 * snodo_client_forward_async() under an id of its own, which is also its
 * progress token, and its answer returned whole; what the backend asks of
 * the client during a call goes to the front client through that call's
 * invocation. A backend's list change re-lists it; a backend that fails is
 * reported and its items removed, and the others go on (see
 * introspection/proxy.md). */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <snodo/snodo.h>

#ifdef G_OS_UNIX
#include <glib-unix.h>
#endif

#include "snodo-cli.h"

/* How long serving waits for the backends to answer at startup. */
#define SERVE_STARTUP_TIMEOUT_S 10
/* A backend that fails after it answered is started again after 1, 2, 4,
 * 8 and 16 seconds; after that it stays failed. The count starts again
 * once it has served for a minute. */
#define SERVE_RESTARTS 5
#define SERVE_RESTART_RESET_S 60
/* The backends are spoken to in the initialize era, whose server requests
 * and progress go with the calls they are about: 2025-11-25, else
 * 2025-06-18. */

typedef struct _Serve Serve;

typedef enum
{
  BACKEND_STARTING,
  BACKEND_LISTING,
  BACKEND_READY,
  BACKEND_FAILED,
  BACKEND_CLOSED,
} BackendState;

typedef enum
{
  KIND_TOOLS,
  KIND_PROMPTS,
  KIND_RESOURCES,
  KIND_TEMPLATES,
  N_KINDS
} Kind;

typedef struct
{
  Serve *serve;
  char *name;
  char *uri;
  GStrv argv;
  SnodoClient *client;
  BackendState state;
  /* The lists still being asked for (BACKEND_LISTING). */
  guint listing;
  /* What the backend listed, by front name (tools, prompts) or URI
   * (resources, templates): the descriptions as it gave them, JsonNode.
   * Only those in the front catalog. */
  GHashTable *items[N_KINDS];
  /* A list asked for again while it was being listed. */
  gboolean relist[N_KINDS];
  gboolean listing_kind[N_KINDS];
  /* The calls in flight, by key: Call. */
  GHashTable *calls;
  /* What it listed last, for each kind (JsonArray, NULL for nothing). */
  JsonArray *listed[N_KINDS];
  /* The URIs it has that another backend has too, said once. */
  GHashTable *shadowed;
  /* Subscribed resources, so as not to subscribe twice, and to subscribe
   * again when it is started again. */
  GHashTable *subscribed;
  /* The version asked for. */
  SnodoProtocolVersion version;
  /* Restarts in a row, the one waiting, and since when it serves. */
  guint restarts;
  guint restart_id;
  gint64 ready_since;
} Backend;

struct _Serve
{
  GApplication *app;
  GVariantDict *options;
  GPtrArray *backends;
  SnodoServer *server;
  SnodoStdioTransport *transport;
  guint startup_id;
  guint64 next_call;
  /* Backends still to close at the end. */
  guint closing;
  gboolean ended;
  gboolean released;
  int status;
};

typedef struct
{
  Backend *backend;
  char *name;
} Item;

typedef struct
{
  Backend *backend;
  SnodoInvocation *invocation;
  char *key;
  char *method;
  GCancellable *cancellable;
  gulong cancelled_id;
  guint questions;
  gint64 started;
} Call;

typedef struct
{
  Backend *backend;
  SnodoServerRequest *request;
} Question;

static Serve *the_serve;

static void serve_backend_fail (Backend *backend, const GError *error);

static void serve_backend_list (Backend *backend, Kind kind);

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

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return node != NULL && JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING
         ? json_node_get_string (node) : NULL;
}

static JsonNode *
member (JsonObject *object,
        const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  return node != NULL && !JSON_NODE_HOLDS_NULL (node) ? node : NULL;
}

static void
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

static void
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
          const char *message = string_member (error_object, "message");

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

static void
serve_tool_cb (SnodoInvocation *invocation,
               gpointer         user_data)
{
  Item *item = user_data;
  JsonObject *params = serve_params_new (invocation);
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  json_object_set_string_member (params, "name", item->name);
  if (arguments != NULL)
    json_object_set_object_member (params, "arguments", json_object_ref (arguments));
  serve_forward (item->backend, invocation, "tools/call", params);
}

static void
serve_prompt_cb (SnodoInvocation *invocation,
                 gpointer         user_data)
{
  Item *item = user_data;
  JsonObject *params = serve_params_new (invocation);
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  json_object_set_string_member (params, "name", item->name);
  if (arguments != NULL)
    json_object_set_object_member (params, "arguments", json_object_ref (arguments));
  serve_forward (item->backend, invocation, "prompts/get", params);
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
static void
serve_complete_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  Serve *serve = user_data;
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  JsonNode *ref_node = json_object_get_member (params, "ref");
  JsonObject *ref = ref_node != NULL && JSON_NODE_HOLDS_OBJECT (ref_node) ? json_node_get_object (ref_node) : NULL;
  const char *type = string_member (ref, "type");
  Backend *backend = NULL;
  const char *original = NULL;
  JsonObject *forwarded;
  JsonObject *forwarded_ref;
  JsonObjectIter iter;
  const char *name;
  JsonNode *value;

  if (g_strcmp0 (type, "ref/prompt") == 0 && string_member (ref, "name") != NULL)
    {
      backend = serve_lookup_name (serve, string_member (ref, "name"), &original);
      if (backend != NULL && !g_hash_table_contains (backend->items[KIND_PROMPTS], string_member (ref, "name")))
        backend = NULL;
    }
  else if (g_strcmp0 (type, "ref/resource") == 0 && string_member (ref, "uri") != NULL)
    for (guint i = 0; i < serve->backends->len && backend == NULL; i++)
      {
        Backend *candidate = g_ptr_array_index (serve->backends, i);

        if (g_hash_table_contains (candidate->items[KIND_TEMPLATES], string_member (ref, "uri")) ||
            g_hash_table_contains (candidate->items[KIND_RESOURCES], string_member (ref, "uri")))
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

static void
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
  if (params != NULL && string_member (params, "uri") != NULL)
    serve_subscribe_uri (serve, string_member (params, "uri"), subscribe);
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

  if (string_member (json, "title") != NULL)
    snodo_description_set_title (description, string_member (json, "title"));
  if (string_member (json, "description") != NULL)
    snodo_description_set_description (description, string_member (json, "description"));
  if ((node = member (json, "icons")) != NULL)
    snodo_description_set_icons (description, node);
  if ((node = member (json, "_meta")) != NULL)
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
            if ((node = member (json, "inputSchema")) != NULL &&
                !snodo_tool_set_input_schema (tool, node, &error))
              break;
            if ((node = member (json, "outputSchema")) != NULL &&
                !snodo_tool_set_output_schema (tool, node, &error))
              break;
            if ((node = member (json, "annotations")) != NULL)
              snodo_tool_set_annotations (tool, node);
            if (!with_meta)
              snodo_description_set_meta (SNODO_DESCRIPTION (tool), NULL);
            added = snodo_server_add_tool (serve->server, tool, serve_tool_cb,
                                           item_new (backend, string_member (json, "name")), item_free, &error);
          }
          break;
        case KIND_PROMPTS:
          {
            g_autoptr(SnodoPrompt) prompt = snodo_prompt_new (key, NULL);
            JsonNode *arguments = member (json, "arguments");

            serve_set_common (SNODO_DESCRIPTION (prompt), json);
            if (arguments != NULL && JSON_NODE_HOLDS_ARRAY (arguments))
              for (guint i = 0; i < json_array_get_length (json_node_get_array (arguments)); i++)
                {
                  JsonNode *argument = json_array_get_element (json_node_get_array (arguments), i);
                  JsonObject *object = JSON_NODE_HOLDS_OBJECT (argument) ? json_node_get_object (argument) : NULL;

                  if (string_member (object, "name") != NULL)
                    snodo_prompt_add_argument (prompt, string_member (object, "name"),
                                               string_member (object, "description"),
                                               json_object_get_boolean_member_with_default (object, "required",
                                                                                            FALSE));
                }
            if (!with_meta)
              snodo_description_set_meta (SNODO_DESCRIPTION (prompt), NULL);
            added = snodo_server_add_prompt (serve->server, prompt, serve_prompt_cb,
                                             item_new (backend, string_member (json, "name")), item_free, &error);
          }
          break;
        case KIND_RESOURCES:
          {
            const char *name = string_member (json, "name");
            g_autoptr(SnodoResource) resource = snodo_resource_new (key, name != NULL ? name : key);

            serve_set_common (SNODO_DESCRIPTION (resource), json);
            if (string_member (json, "mimeType") != NULL)
              snodo_resource_set_mime_type (resource, string_member (json, "mimeType"));
            if ((node = member (json, "size")) != NULL && JSON_NODE_HOLDS_VALUE (node))
              snodo_resource_set_size (resource, json_node_get_int (node));
            if ((node = member (json, "annotations")) != NULL)
              snodo_resource_set_annotations (resource, node);
            if (!with_meta)
              snodo_description_set_meta (SNODO_DESCRIPTION (resource), NULL);
            added = snodo_server_add_resource (serve->server, resource, serve_resource_cb,
                                               item_new (backend, key), item_free, &error);
          }
          break;
        case KIND_TEMPLATES:
          {
            const char *name = string_member (json, "name");
            g_autoptr(SnodoResourceTemplate) template = snodo_resource_template_new (key, name != NULL ? name : key);

            serve_set_common (SNODO_DESCRIPTION (template), json);
            if (string_member (json, "mimeType") != NULL)
              snodo_resource_template_set_mime_type (template, string_member (json, "mimeType"));
            if ((node = member (json, "annotations")) != NULL)
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
      const char *id = string_member (object, keys[kind]);
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
static void
serve_backend_sync (Backend   *backend,
                    Kind       kind,
                    JsonArray *items)
{
  g_clear_pointer (&backend->listed[kind], json_array_unref);
  if (items != NULL)
    backend->listed[kind] = json_array_ref (items);
  serve_sync (backend->serve, kind);
}

/* ---- Backends --------------------------------------------------------- */

static void serve_start (Serve *serve);

static gboolean
serve_all_answered (Serve *serve)
{
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      if (backend->state == BACKEND_STARTING || backend->state == BACKEND_LISTING)
        return FALSE;
    }
  return TRUE;
}

static gboolean serve_backend_start (Backend *backend, GError **error);

static void
serve_old_client_closed_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  snodo_client_close_finish (SNODO_CLIENT (source), result, NULL);
  g_object_unref (source);
}

static gboolean
serve_backend_restart_cb (gpointer user_data)
{
  Backend *backend = user_data;
  g_autoptr(GError) error = NULL;

  backend->restart_id = 0;
  if (!serve_backend_start (backend, &error))
    serve_backend_fail (backend, error);
  return G_SOURCE_REMOVE;
}

static void
serve_backend_fail (Backend      *backend,
                    const GError *error)
{
  Serve *serve = backend->serve;
  g_autofree char *text = NULL;
  /* It served once: it is started again, even if it fails to start
   * again. */
  gboolean served = backend->ready_since != 0 || backend->restarts > 0;

  if (backend->state == BACKEND_FAILED || backend->state == BACKEND_CLOSED)
    return;
  backend->state = BACKEND_FAILED;
  if (backend->client != NULL)
    {
      /* Its child reaped, whatever is left of it ended. */
      g_signal_handlers_disconnect_by_data (backend->client, backend);
      snodo_client_close_async (g_steal_pointer (&backend->client), NULL, serve_old_client_closed_cb, NULL);
    }
  if (backend->ready_since != 0 &&
      g_get_monotonic_time () - backend->ready_since > SERVE_RESTART_RESET_S * G_USEC_PER_SEC)
    backend->restarts = 0;
  backend->ready_since = 0;
  if (!serve->ended)
    {
      const char *reason = error != NULL ? error->message : "it closed the connection";

      if (served && backend->restarts < SERVE_RESTARTS)
        {
          guint delay = 1u << backend->restarts;

          text = g_strdup_printf ("the server failed, its tools, prompts and resources are removed; "
                                  "starting it again in %u s: %s", delay, reason);
          backend->restarts++;
          backend->restart_id = g_timeout_add_seconds (delay, serve_backend_restart_cb, backend);
        }
      else if (served)
        text = g_strdup_printf ("the server failed %u times in a row, its tools, prompts and resources are removed; "
                                "it is not started again: %s", SERVE_RESTARTS + 1, reason);
      else
        text = g_strdup_printf ("the server failed, its tools, prompts and resources are removed: %s", reason);
      serve_report (serve, SNODO_LOG_LEVEL_ERROR, backend->name, text);
    }
  for (Kind kind = 0; kind < N_KINDS; kind++)
    serve_backend_sync (backend, kind, NULL);
  /* The calls in flight fail with the connection (serve_forwarded_cb). */
  serve_start (serve);
}

static void
serve_backend_closed_cb (SnodoClient  *client,
                         const GError *error,
                         gpointer      user_data)
{
  Backend *backend = user_data;

  if (client == backend->client)
    serve_backend_fail (backend, error);
}

/* The backend answered and listed: it serves. */
static void
serve_backend_ready (Backend *backend)
{
  GHashTableIter iter;
  gpointer uri;

  backend->state = BACKEND_READY;
  backend->ready_since = g_get_monotonic_time ();
  if (backend->restarts > 0)
    {
      serve_report (backend->serve, SNODO_LOG_LEVEL_NOTICE, backend->name, "the server was started again and serves");
    }
  /* The subscriptions of the server that failed, to the new one. */
  g_hash_table_iter_init (&iter, backend->subscribed);
  while (g_hash_table_iter_next (&iter, &uri, NULL))
    snodo_client_subscribe_resource_async (backend->client, uri, NULL, NULL, NULL);
  serve_start (backend->serve);
}

typedef struct
{
  Backend *backend;
  Kind kind;
} Listing;

static void
serve_listed_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Listing *listing = user_data;
  Backend *backend = listing->backend;
  Kind kind = listing->kind;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) items = NULL;
  SnodoClient *client = SNODO_CLIENT (source);

  g_free (listing);
  switch (kind)
    {
    case KIND_TOOLS:
      items = snodo_client_list_tools_finish (client, result, &error);
      break;
    case KIND_PROMPTS:
      items = snodo_client_list_prompts_finish (client, result, &error);
      break;
    case KIND_RESOURCES:
      items = snodo_client_list_resources_finish (client, result, &error);
      break;
    case KIND_TEMPLATES:
      items = snodo_client_list_resource_templates_finish (client, result, &error);
      break;
    case N_KINDS:
    default:
      g_assert_not_reached ();
    }
  backend->listing_kind[kind] = FALSE;
  if (client != backend->client || backend->state == BACKEND_FAILED || backend->state == BACKEND_CLOSED)
    {
      g_object_unref (client);
      return;
    }
  g_object_unref (client);
  if (items == NULL)
    {
      g_autofree char *text = g_strdup_printf ("listing failed: %s", error->message);

      serve_report (backend->serve, SNODO_LOG_LEVEL_WARNING, backend->name, text);
    }
  else
    serve_backend_sync (backend, kind, items);
  if (backend->relist[kind])
    {
      backend->relist[kind] = FALSE;
      serve_backend_list (backend, kind);
    }
  if (backend->state == BACKEND_LISTING && --backend->listing == 0)
    serve_backend_ready (backend);
}

/* Whether the backend offers the lists of @kind. */
static gboolean
serve_backend_offers (Backend *backend,
                      Kind     kind)
{
  static const char * const capabilities[] = { "tools", "prompts", "resources", "resources" };
  JsonObject *offered = snodo_client_get_server_capabilities (backend->client);

  return offered != NULL && json_object_has_member (offered, capabilities[kind]);
}

static void
serve_backend_list (Backend *backend,
                    Kind     kind)
{
  static void (*const start[]) (SnodoClient *, GCancellable *, GAsyncReadyCallback, gpointer) = {
    snodo_client_list_tools_async, snodo_client_list_prompts_async,
    snodo_client_list_resources_async, snodo_client_list_resource_templates_async,
  };
  Listing *listing;

  if (backend->listing_kind[kind])
    {
      backend->relist[kind] = TRUE;
      return;
    }
  listing = g_new0 (Listing, 1);
  listing->backend = backend;
  listing->kind = kind;
  backend->listing_kind[kind] = TRUE;
  if (backend->state == BACKEND_LISTING)
    backend->listing++;
  start[kind] (g_object_ref (backend->client), NULL, serve_listed_cb, listing);
}

static void
serve_backend_connected_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  Backend *backend = user_data;
  g_autoptr(GError) error = NULL;

  if (!snodo_client_connect_finish (SNODO_CLIENT (source), result, &error))
    {
      if (SNODO_CLIENT (source) != backend->client)
        return;
      /* A server of 2025-06-18 answers initialize with its version. */
      if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_FAILED) &&
          backend->version == SNODO_PROTOCOL_VERSION_2025_11_25)
        {
          g_autoptr(GError) again = NULL;

          g_signal_handlers_disconnect_by_data (backend->client, backend);
          snodo_client_close_async (g_steal_pointer (&backend->client), NULL, serve_old_client_closed_cb, NULL);
          backend->version = SNODO_PROTOCOL_VERSION_2025_06_18;
          if (!serve_backend_start (backend, &again))
            serve_backend_fail (backend, again);
          return;
        }
      serve_backend_fail (backend, error);
      return;
    }
  if (SNODO_CLIENT (source) != backend->client || backend->state != BACKEND_STARTING)
    return;
  backend->state = BACKEND_LISTING;
  backend->listing = 1;
  for (Kind kind = 0; kind < N_KINDS; kind++)
    if (serve_backend_offers (backend, kind))
      serve_backend_list (backend, kind);
  if (--backend->listing == 0)
    serve_backend_ready (backend);
}

/* The most recent call in flight to @backend: the one a server's request
 * or log message of the initialize era, which names no request, is about. */
static Call *
serve_backend_current_call (Backend *backend)
{
  GHashTableIter iter;
  gpointer value;
  Call *newest = NULL;

  g_hash_table_iter_init (&iter, backend->calls);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Call *call = value;

      if (!snodo_invocation_get_answered (call->invocation) &&
          (newest == NULL || call->started > newest->started ||
           (call->started == newest->started && strcmp (call->key, newest->key) > 0)))
        newest = call;
    }
  return newest;
}

static void
serve_backend_notification_cb (SnodoClient *client,
                               const char  *method,
                               JsonObject  *params,
                               gpointer     user_data)
{
  Backend *backend = user_data;

  if (client != backend->client)
    return;
  if (g_str_equal (method, "notifications/tools/list_changed"))
    serve_backend_list (backend, KIND_TOOLS);
  else if (g_str_equal (method, "notifications/prompts/list_changed"))
    serve_backend_list (backend, KIND_PROMPTS);
  else if (g_str_equal (method, "notifications/resources/list_changed"))
    {
      serve_backend_list (backend, KIND_RESOURCES);
      serve_backend_list (backend, KIND_TEMPLATES);
    }
  else if (g_str_equal (method, "notifications/resources/updated"))
    {
      const char *uri = string_member (params, "uri");

      if (uri != NULL && g_hash_table_contains (backend->items[KIND_RESOURCES], uri))
        snodo_server_notify_resource_updated (backend->serve->server, uri);
    }
  else if (g_str_equal (method, "notifications/progress"))
    {
      const char *token = string_member (params, "progressToken");
      Call *call = token != NULL ? g_hash_table_lookup (backend->calls, token) : NULL;
      JsonNode *progress = json_object_get_member (params, "progress");
      JsonNode *total = json_object_get_member (params, "total");

      if (call != NULL && progress != NULL && JSON_NODE_HOLDS_VALUE (progress))
        snodo_invocation_report_progress (call->invocation, json_node_get_double (progress),
                                          total != NULL && JSON_NODE_HOLDS_VALUE (total)
                                          ? json_node_get_double (total) : -1,
                                          string_member (params, "message"));
    }
  else if (g_str_equal (method, "notifications/message"))
    {
      Call *call = serve_backend_current_call (backend);
      int level = SNODO_LOG_LEVEL_INFO;
      static const char * const levels[] = { "debug", "info", "notice", "warning", "error", "critical", "alert",
                                              "emergency" };
      const char *logger = string_member (params, "logger");
      JsonNode *data = json_object_get_member (params, "data");

      for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
        if (g_strcmp0 (string_member (params, "level"), levels[i]) == 0)
          level = (int) i;
      if (data == NULL)
        return;
      if (call != NULL)
        snodo_invocation_log (call->invocation, (SnodoLogLevel) level, logger != NULL ? logger : backend->name, data);
      else
        snodo_server_log (backend->serve->server, (SnodoLogLevel) level, logger != NULL ? logger : backend->name,
                          data);
    }
}

static void
question_free (Question *question)
{
  g_object_unref (question->request);
  g_free (question);
}

static void
serve_answered_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Question *question = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = NULL;

  answer = snodo_invocation_request_input_finish (SNODO_INVOCATION (source), result, &error);
  if (answer != NULL && JSON_NODE_HOLDS_OBJECT (answer))
    snodo_server_request_return_result (question->request, json_node_get_object (answer));
  else
    {
      /* 2026-07-28: the front client is asked by the answer to its
       * request, and sends it again with its answer: this call ends, and
       * the next one asks the same question, answered at once. */
      if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED))
        {
          GHashTableIter iter;
          gpointer value;

          g_hash_table_iter_init (&iter, question->backend->calls);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            if (((Call *) value)->invocation == SNODO_INVOCATION (source))
              g_cancellable_cancel (((Call *) value)->cancellable);
          if (!snodo_invocation_get_answered (SNODO_INVOCATION (source)))
            snodo_invocation_return_gerror (SNODO_INVOCATION (source), error);
        }
      snodo_server_request_return_error (question->request,
                                         error != NULL && error->domain == SNODO_RPC_ERROR
                                         ? error->code : SNODO_RPC_ERROR_INTERNAL_ERROR,
                                         error != NULL ? error->message : "The client gave no answer");
    }
  g_object_unref (source);
  question_free (question);
}

/* What the backend asks of the client (elicitation, sampling, roots) is
 * asked of the front client through the call it is about. */
static gboolean
serve_backend_request_cb (SnodoClient        *client,
                          SnodoServerRequest *request,
                          gpointer            user_data)
{
  Backend *backend = user_data;
  Call *call = serve_backend_current_call (backend);
  JsonObject *params = snodo_server_request_get_params (request);
  g_autoptr(JsonNode) params_node = NULL;
  g_autofree char *key = NULL;
  Question *question;

  if (call == NULL)
    {
      snodo_server_request_return_error (request, SNODO_RPC_ERROR_INVALID_REQUEST,
                                         "The proxy asks its client only during a call");
      return TRUE;
    }
  question = g_new0 (Question, 1);
  question->backend = backend;
  question->request = g_object_ref (request);
  key = g_strdup_printf ("%s-%u", backend->name, ++call->questions);
  if (params != NULL)
    {
      params_node = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (params_node, params);
    }
  snodo_invocation_request_input_async (g_object_ref (call->invocation), key,
                                        snodo_server_request_get_method (request), params_node,
                                        call->cancellable, serve_answered_cb, question);
  return TRUE;
}

static gboolean
serve_backend_start (Backend  *backend,
                     GError  **error)
{
  Serve *serve = backend->serve;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(JsonObject) capabilities = json_object_new ();
  JsonObject *elicitation = json_object_new ();

  if (backend->uri != NULL)
    client = snodo_client_new_for_uri (backend->uri, error);
  else
    client = snodo_client_new_for_argv ((const char * const *) backend->argv, error);
  if (client == NULL)
    return FALSE;
  /* The front client times its requests out itself, and cancels them. */
  snodo_client_set_request_timeout (client, 0);
  if (!snodo_cli_apply_client_options (client, serve->options, error))
    return FALSE;
  /* Signing in to a server at a URL, unless the user gave the token. */
  if (backend->uri != NULL && !snodo_cli_has_own_authorization (serve->options) &&
      !snodo_cli_set_up_oauth (client, serve->options, error))
    return FALSE;
  snodo_client_set_pinned_version (client, backend->version);
  json_object_set_object_member (elicitation, "form", json_object_new ());
  json_object_set_object_member (elicitation, "url", json_object_new ());
  json_object_set_object_member (capabilities, "elicitation", elicitation);
  json_object_set_object_member (capabilities, "sampling", json_object_new ());
  json_object_set_object_member (capabilities, "roots", json_object_new ());
  snodo_client_set_capabilities (client, capabilities);
  g_signal_connect (client, "notification", G_CALLBACK (serve_backend_notification_cb), backend);
  g_signal_connect (client, "server-request", G_CALLBACK (serve_backend_request_cb), backend);
  g_signal_connect (client, "closed", G_CALLBACK (serve_backend_closed_cb), backend);
  backend->client = g_steal_pointer (&client);
  backend->state = BACKEND_STARTING;
  snodo_client_connect_async (backend->client, NULL, serve_backend_connected_cb, backend);
  return TRUE;
}

static void
backend_free (Backend *backend)
{
  g_clear_handle_id (&backend->restart_id, g_source_remove);
  if (backend->client != NULL)
    g_signal_handlers_disconnect_by_data (backend->client, backend);
  g_clear_object (&backend->client);
  for (Kind kind = 0; kind < N_KINDS; kind++)
    {
      g_clear_pointer (&backend->items[kind], g_hash_table_unref);
      g_clear_pointer (&backend->listed[kind], json_array_unref);
    }
  g_clear_pointer (&backend->shadowed, g_hash_table_unref);
  g_clear_pointer (&backend->calls, g_hash_table_unref);
  g_clear_pointer (&backend->subscribed, g_hash_table_unref);
  g_strfreev (backend->argv);
  g_free (backend->uri);
  g_free (backend->name);
  g_free (backend);
}

/* ---- Serving and the end ---------------------------------------------- */

static void
serve_free (Serve *serve)
{
  g_clear_handle_id (&serve->startup_id, g_source_remove);
  if (serve->transport != NULL)
    g_signal_handlers_disconnect_by_data (serve->transport, serve);
  g_clear_object (&serve->transport);
  /* The backends' items go before the backends. */
  g_clear_object (&serve->server);
  g_clear_pointer (&serve->backends, g_ptr_array_unref);
  g_clear_pointer (&serve->options, g_variant_dict_unref);
  g_free (serve);
}

static void
serve_release (Serve *serve)
{
  if (serve->released)
    return;
  serve->released = TRUE;
  g_application_release (serve->app);
}

static void
serve_backend_closed_done_cb (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  Serve *serve = user_data;

  snodo_client_close_finish (SNODO_CLIENT (source), result, NULL);
  g_object_unref (source);
  if (--serve->closing == 0)
    serve_release (serve);
}

/* The front client is gone: every backend is closed, then the proxy
 * exits. */
static void
serve_end (Serve *serve)
{
  if (serve->ended)
    return;
  serve->ended = TRUE;
  serve->closing = 1;
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      g_clear_handle_id (&backend->restart_id, g_source_remove);
      if (backend->client == NULL)
        continue;
      backend->state = BACKEND_CLOSED;
      serve->closing++;
      snodo_client_close_async (g_object_ref (backend->client), NULL, serve_backend_closed_done_cb, serve);
    }
  if (--serve->closing == 0)
    serve_release (serve);
}

static void
serve_transport_closed_cb (SnodoStdioTransport *transport,
                           const GError        *error,
                           gpointer             user_data)
{
  Serve *serve = user_data;

  if (error != NULL)
    {
      g_printerr ("snodo: %s\n", error->message);
      serve->status = 1;
    }
  serve_end (serve);
}

/* The instructions of the backends that answered, each under its name:
 * what a client reads once, at the start. */
static void
serve_set_instructions (Serve *serve)
{
  g_autoptr(GString) instructions = g_string_new (NULL);

  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);
      const char *text = backend->client != NULL && backend->state == BACKEND_READY
                         ? snodo_client_get_instructions (backend->client) : NULL;

      if (text == NULL || *text == '\0')
        continue;
      g_string_append_printf (instructions, "%s## %s (tools and prompts named %s_…)\n\n%s\n",
                              instructions->len > 0 ? "\n" : "", backend->name, backend->name, text);
    }
  if (instructions->len > 0)
    snodo_server_set_instructions (serve->server, instructions->str);
}

static void
serve_serve (Serve *serve)
{
  g_clear_handle_id (&serve->startup_id, g_source_remove);
  serve_set_instructions (serve);
  serve->transport = snodo_stdio_transport_new_for_stdio (serve->server);
  g_signal_connect (serve->transport, "closed", G_CALLBACK (serve_transport_closed_cb), serve);
  snodo_stdio_transport_start (serve->transport);
}

/* Serving begins once every backend answered or failed, or after the
 * startup timeout. */
static void
serve_start (Serve *serve)
{
  if (serve->transport != NULL || serve->ended || !serve_all_answered (serve))
    return;
  serve_serve (serve);
}

static gboolean
serve_startup_timeout_cb (gpointer user_data)
{
  Serve *serve = user_data;

  serve->startup_id = 0;
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      if (backend->state == BACKEND_STARTING || backend->state == BACKEND_LISTING)
        g_printerr ("snodo: %s: no answer after %d seconds; serving without it until it answers\n",
                    backend->name, SERVE_STARTUP_TIMEOUT_S);
    }
  serve_serve (serve);
  return G_SOURCE_REMOVE;
}

#ifdef G_OS_UNIX
static gboolean
serve_signal_cb (gpointer user_data)
{
  Serve *serve = user_data;

  if (serve->transport != NULL)
    snodo_stdio_transport_close_async (serve->transport, NULL, NULL, NULL);
  else
    serve_end (serve);
  return G_SOURCE_CONTINUE;
}
#endif

int
snodo_cli_proxy_serve_status (void)
{
  int status = the_serve != NULL ? the_serve->status : 0;

  g_clear_pointer (&the_serve, serve_free);
  return status;
}

static int
serve_usage_error (const char *message)
{
  g_printerr ("snodo: %s (see snodo --help)\n", message);
  return 2;
}

/* NAME: letters, digits and '-', so that NAME_tool stays a name every
 * client takes. */
static gboolean
serve_name_is_valid (const char *name,
                     gsize       length)
{
  if (length == 0)
    return FALSE;
  for (gsize i = 0; i < length; i++)
    if (!g_ascii_isalnum (name[i]) && name[i] != '-')
      return FALSE;
  return TRUE;
}

int
snodo_cli_proxy_serve (GApplication *app,
                       GVariantDict *options,
                       int           argc,
                       char        **argv)
{
  g_autofree const char **serves = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) backends = NULL;
  gboolean http = FALSE;
  Serve *serve;

  if (!g_variant_dict_lookup (options, "serve", "^a&s", &serves) || serves[0] == NULL)
    return serve_usage_error ("--serve needs NAME=COMMAND or NAME=URL");
  if (argc > 0 && !(argc == 1 && g_str_equal (argv[0], "--")))
    return serve_usage_error ("proxy --serve goes without a URL or command: each is in a --serve");
  if (g_variant_dict_contains (options, "protocol-version"))
    return serve_usage_error ("--protocol-version does not go with proxy: the client's first message chooses the version");

  backends = g_ptr_array_new_with_free_func ((GDestroyNotify) backend_free);
  for (guint i = 0; serves[i] != NULL; i++)
    {
      const char *equal = strchr (serves[i], '=');
      const char *target = equal != NULL ? equal + 1 : NULL;
      Backend *backend;

      if (equal == NULL || !serve_name_is_valid (serves[i], equal - serves[i]))
        {
          g_autofree char *message = g_strdup_printf ("--serve %s: NAME=COMMAND or NAME=URL, with a NAME of letters, "
                                                      "digits and -", serves[i]);

          return serve_usage_error (message);
        }
      backend = g_new0 (Backend, 1);
      backend->name = g_strndup (serves[i], equal - serves[i]);
      for (guint j = 0; j < backends->len; j++)
        if (g_str_equal (((Backend *) g_ptr_array_index (backends, j))->name, backend->name))
          {
            g_autofree char *message = g_strdup_printf ("--serve: the name %s is given twice", backend->name);

            backend_free (backend);
            return serve_usage_error (message);
          }
      g_ptr_array_add (backends, backend);
      if (g_str_has_prefix (target, "http://") || g_str_has_prefix (target, "https://"))
        {
          backend->uri = g_strdup (target);
          http = TRUE;
        }
      else if (!g_shell_parse_argv (target, NULL, &backend->argv, &error))
        {
          g_autofree char *message = g_strdup_printf ("--serve %s: %s", serves[i], error->message);

          return serve_usage_error (message);
        }
    }
  if (!snodo_cli_check_client_options (options, http, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      return g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE) ? 2 : 1;
    }

  serve = g_new0 (Serve, 1);
  the_serve = serve;
  serve->app = app;
  serve->options = g_variant_dict_ref (options);
  serve->backends = g_steal_pointer (&backends);
  serve->server = snodo_server_new ("snodo-proxy", SNODO_VERSION_S);
  snodo_server_set_title (serve->server, "snodo proxy");
  snodo_server_set_completion_func (serve->server, serve_complete_cb, serve, NULL);
  snodo_server_add_middleware (serve->server, "resources/subscribe", serve_subscribe_middleware, serve, NULL);
  snodo_server_add_middleware (serve->server, "subscriptions/listen", serve_subscribe_middleware, serve, NULL);
  /* The backends' own time limits apply; the front client cancels. */
  snodo_server_set_handler_timeout (serve->server, 0);

  g_application_hold (app);
  /* Every backend set up before any starts: one that fails at once
   * changes the catalog, which looks at them all. */
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      backend->serve = serve;
      for (Kind kind = 0; kind < N_KINDS; kind++)
        backend->items[kind] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) json_node_unref);
      backend->calls = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) call_free);
      backend->subscribed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      backend->shadowed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      backend->version = SNODO_PROTOCOL_VERSION_2025_11_25;
    }
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      if (!serve_backend_start (backend, &error))
        {
          backend->state = BACKEND_FAILED;
          g_printerr ("snodo: %s: the server failed: %s\n", backend->name, error->message);
          g_clear_error (&error);
        }
    }
#ifdef G_OS_UNIX
  g_unix_signal_add (SIGTERM, serve_signal_cb, serve);
  g_unix_signal_add (SIGINT, serve_signal_cb, serve);
#endif
  serve->startup_id = g_timeout_add_seconds (SERVE_STARTUP_TIMEOUT_S, serve_startup_timeout_cb, serve);
  serve_start (serve);
  return 0;
}
