/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo proxy, between eras.
 *
 * When the server does not speak the era of the local client, the other
 * side speaks the server's, and the proxy maps what maps:
 *
 * - an initialize-era client of a 2026-07-28 server: initialize is
 *   answered with the version asked; each request is sent with
 *   snodo_client_request_async(), which adds the envelope and answers an
 *   input_required result itself, asking the local client each question
 *   (elicitation/create, sampling/createMessage, roots/list) as the server
 *   would have; the results lose what 2026-07-28 added; ping and
 *   logging/setLevel are the proxy's; list changes come from a
 *   subscriptions/listen of the proxy's own. Not mapped: resources/subscribe
 *   (the capability is not offered), progress (its token is the client's).
 * - a 2026-07-28 client of an initialize-era server: server/discover is
 *   answered from the server's initialize; each request is sent as it is
 *   without its envelope, and its result gains resultType, the server's
 *   serverInfo and the cache fields; -32002 becomes -32602;
 *   subscriptions/listen is acknowledged and served from the server's list
 *   changes and resources/subscribe. Not mapped: what the server asks of
 *   the client, which a 2026-07-28 client is never asked (the server's
 *   question is refused). */

#include "config.h"

#include "snodo-proxy.h"

static JsonObject *
copy_object (JsonObject *object)
{
  g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), object);
  g_autoptr(JsonNode) copy = json_node_copy (node);

  return json_node_dup_object (copy);
}

static void
proxy_send_result (Proxy      *proxy,
                   JsonNode   *id,
                   JsonObject *result)
{
  JsonObject *message = message_new (id);

  json_object_set_object_member (message, "result", result);
  proxy_send (proxy, message);
}

static void
proxy_listened_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  g_autoptr(JsonObject) end = snodo_client_listen_finish (SNODO_CLIENT (source), result, NULL);
}

/* Mapped, once connected. */
void
proxy_mapped_start (Proxy *proxy)
{
  JsonObject *capabilities = snodo_client_get_server_capabilities (proxy->client);
  g_autoptr(JsonObject) notifications = json_object_new ();
  static const struct { const char *capability; const char *member; } lists[] = {
    { "tools", "toolsListChanged" },
    { "prompts", "promptsListChanged" },
    { "resources", "resourcesListChanged" },
  };

  if (proxy->local_modern)
    return;
  for (guint i = 0; i < G_N_ELEMENTS (lists); i++)
    {
      JsonObject *capability = object_member (capabilities, lists[i].capability);

      if (capability != NULL && json_object_get_boolean_member_with_default (capability, "listChanged", FALSE))
        json_object_set_boolean_member (notifications, lists[i].member, TRUE);
    }
  if (json_object_get_size (notifications) == 0)
    return;
  proxy->listen_cancellable = g_cancellable_new ();
  snodo_client_listen_async (proxy->client, notifications, proxy->listen_cancellable,
                             proxy_listened_cb, NULL);
}

/* Mapped, at the end: the proxy's subscription ends, and so do the local
 * client's, each with its result. */
void
proxy_mapped_finish (Proxy *proxy)
{
  GHashTableIter iter;
  gpointer value;

  if (proxy->listen_cancellable != NULL)
    g_cancellable_cancel (proxy->listen_cancellable);
  g_hash_table_iter_init (&iter, proxy->listens);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      JsonObject *result = json_object_new ();

      json_object_set_string_member (result, "resultType", "complete");
      proxy_send_result (proxy, ((Listen *) value)->id, result);
    }
  g_hash_table_remove_all (proxy->listens);
}

/* Mapped: a notification of the server, as @params (a copy, may be
 * changed); FALSE to drop it. */
gboolean
proxy_mapped_notification (Proxy      *proxy,
                           const char *method,
                           JsonObject *params)
{
  JsonObject *meta = object_member (params, "_meta");
  GHashTableIter iter;
  gpointer value;

  if (!proxy->local_modern)
    {
      /* Of the proxy's own subscription: unasked, as in the initialize era. */
      if (g_str_equal (method, "notifications/subscriptions/acknowledged"))
        return FALSE;
      if (meta != NULL)
        {
          json_object_remove_member (meta, SUBSCRIPTION_KEY);
          if (json_object_get_size (meta) == 0)
            json_object_remove_member (params, "_meta");
        }
      return TRUE;
    }

  /* Changes reach the 2026-07-28 client only on the subscriptions that
   * asked for them. */
  if (!g_str_has_suffix (method, "/list_changed") && !g_str_equal (method, "notifications/resources/updated"))
    return TRUE;
  g_hash_table_iter_init (&iter, proxy->listens);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Listen *listen = value;
      gboolean wanted;
      JsonObject *message;
      JsonObject *copy;

      if (g_str_equal (method, "notifications/tools/list_changed"))
        wanted = listen->tools;
      else if (g_str_equal (method, "notifications/prompts/list_changed"))
        wanted = listen->prompts;
      else if (g_str_equal (method, "notifications/resources/list_changed"))
        wanted = listen->resources;
      else
        wanted = listen->uris != NULL && string_member (params, "uri") != NULL &&
                 g_strv_contains ((const char * const *) listen->uris, string_member (params, "uri"));
      if (!wanted)
        continue;
      copy = params != NULL ? copy_object (params) : json_object_new ();
      if (object_member (copy, "_meta") == NULL)
        json_object_set_object_member (copy, "_meta", json_object_new ());
      json_object_set_member (object_member (copy, "_meta"), SUBSCRIPTION_KEY, json_node_copy (listen->id));
      message = message_new (NULL);
      json_object_set_string_member (message, "method", method);
      json_object_set_object_member (message, "params", copy);
      proxy_send (proxy, message);
    }
  return FALSE;
}

/* Mapped, a 2026-07-28 client: the answer of an initialize-era server,
 * @message, made one of 2026-07-28. */
void
proxy_mapped_answer (Proxy      *proxy,
                     Forward    *forward,
                     JsonObject *message)
{
  static const char * const cacheable[] = {
    "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read", NULL
  };
  JsonObject *result = object_member (message, "result");
  JsonObject *error = object_member (message, "error");
  JsonObject *info = snodo_client_get_server_info (proxy->client);
  JsonObject *meta;

  if (!proxy->local_modern)
    return;
  if (error != NULL)
    {
      /* Resource not found is -32602 in 2026-07-28. */
      if (json_object_get_int_member_with_default (error, "code", 0) == -32002)
        json_object_set_int_member (error, "code", -32602);
      return;
    }
  if (result == NULL)
    return;
  json_object_set_string_member (result, "resultType", "complete");
  meta = object_member (result, "_meta");
  if (meta == NULL)
    {
      meta = json_object_new ();
      json_object_set_object_member (result, "_meta", meta);
    }
  if (info != NULL)
    json_object_set_object_member (meta, "io.modelcontextprotocol/serverInfo", copy_object (info));
  if (g_strv_contains (cacheable, forward->method))
    {
      json_object_set_int_member (result, "ttlMs", 0);
      json_object_set_string_member (result, "cacheScope", "private");
    }
}

static void
proxy_requested_cb (GObject      *source,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Forward *forward = user_data;
  Proxy *proxy = forward->proxy;
  g_autoptr(GError) error = NULL;
  JsonObject *answer;

  answer = snodo_client_request_finish (SNODO_CLIENT (source), result, &error);
  if (answer != NULL)
    {
      JsonObject *meta = object_member (answer, "_meta");

      /* What 2026-07-28 added. */
      json_object_remove_member (answer, "resultType");
      json_object_remove_member (answer, "ttlMs");
      json_object_remove_member (answer, "cacheScope");
      if (meta != NULL)
        {
          json_object_remove_member (meta, "io.modelcontextprotocol/serverInfo");
          if (json_object_get_size (meta) == 0)
            json_object_remove_member (answer, "_meta");
        }
      proxy_send_result (proxy, forward->id, answer);
    }
  else if (error->domain == SNODO_RPC_ERROR)
    proxy_send_error (proxy, forward->id, error->code, error->message, NULL);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    proxy_send_error (proxy, forward->id, -32603, error->message, NULL);
  g_hash_table_remove (proxy->forwards, forward->key);
  proxy_maybe_finish (proxy);
}

static void
proxy_subscribed_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  if (!snodo_client_subscribe_resource_finish (SNODO_CLIENT (source), result, &error))
    g_debug ("resources/subscribe failed: %s", error->message);
}

/* Mapped, a 2026-07-28 client: subscriptions/listen, served from the
 * initialize-era server's unasked list changes and resources/subscribe. */
static void
proxy_mapped_listen (Proxy      *proxy,
                     JsonNode   *id,
                     JsonObject *params)
{
  JsonObject *asked = object_member (params, "notifications");
  JsonObject *capabilities = snodo_client_get_server_capabilities (proxy->client);
  JsonObject *resources = object_member (capabilities, "resources");
  JsonObject *honoured = json_object_new ();
  JsonObject *ack = json_object_new ();
  JsonObject *meta = json_object_new ();
  JsonObject *message;
  g_autofree char *key = proxy_id_key (id);
  Listen *listen;
  JsonNode *uris = asked != NULL ? json_object_get_member (asked, "resourceSubscriptions") : NULL;

  listen = g_new0 (Listen, 1);
  listen->id = json_node_copy (id);
#define PROXY_HONOUR(member, capability, field) \
  if (asked != NULL && json_object_get_boolean_member_with_default (asked, member, FALSE) && \
      object_member (capabilities, capability) != NULL && \
      json_object_get_boolean_member_with_default (object_member (capabilities, capability), "listChanged", FALSE)) \
    { \
      listen->field = TRUE; \
      json_object_set_boolean_member (honoured, member, TRUE); \
    }
  PROXY_HONOUR ("toolsListChanged", "tools", tools)
  PROXY_HONOUR ("promptsListChanged", "prompts", prompts)
  PROXY_HONOUR ("resourcesListChanged", "resources", resources)
#undef PROXY_HONOUR
  if (uris != NULL && JSON_NODE_HOLDS_ARRAY (uris) && resources != NULL &&
      json_object_get_boolean_member_with_default (resources, "subscribe", FALSE))
    {
      JsonArray *array = json_node_get_array (uris);
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      JsonArray *kept = json_array_new ();

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (JSON_NODE_TYPE (element) != JSON_NODE_VALUE || json_node_get_value_type (element) != G_TYPE_STRING)
            continue;
          g_strv_builder_add (builder, json_node_get_string (element));
          json_array_add_string_element (kept, json_node_get_string (element));
          snodo_client_subscribe_resource_async (proxy->client, json_node_get_string (element), NULL,
                                                 proxy_subscribed_cb, NULL);
        }
      listen->uris = g_strv_builder_end (builder);
      json_object_set_array_member (honoured, "resourceSubscriptions", kept);
    }
  g_hash_table_replace (proxy->listens, g_steal_pointer (&key), listen);

  json_object_set_member (meta, SUBSCRIPTION_KEY, json_node_copy (id));
  json_object_set_object_member (ack, "_meta", meta);
  json_object_set_object_member (ack, "notifications", honoured);
  message = message_new (NULL);
  json_object_set_string_member (message, "method", "notifications/subscriptions/acknowledged");
  json_object_set_object_member (message, "params", ack);
  proxy_send (proxy, message);
}

/* Mapped, a 2026-07-28 client: server/discover, from the initialize-era
 * server's answer to initialize. */
static void
proxy_mapped_discover (Proxy    *proxy,
                       JsonNode *id)
{
  JsonObject *result = json_object_new ();
  JsonArray *versions = json_array_new ();
  JsonObject *capabilities = snodo_client_get_server_capabilities (proxy->client);
  JsonObject *info = snodo_client_get_server_info (proxy->client);
  const char *instructions = snodo_client_get_instructions (proxy->client);
  JsonObject *meta = json_object_new ();
  JsonObject *copy = capabilities != NULL ? copy_object (capabilities) : json_object_new ();

  /* Tasks are an extension in 2026-07-28, which this server does not offer. */
  json_object_remove_member (copy, "tasks");
  json_object_set_string_member (result, "resultType", "complete");
  json_array_add_string_element (versions, snodo_protocol_version_to_string (SNODO_PROTOCOL_VERSION_2026_07_28));
  json_object_set_array_member (result, "supportedVersions", versions);
  json_object_set_object_member (result, "capabilities", copy);
  if (instructions != NULL)
    json_object_set_string_member (result, "instructions", instructions);
  if (info != NULL)
    json_object_set_object_member (meta, "io.modelcontextprotocol/serverInfo", copy_object (info));
  json_object_set_object_member (result, "_meta", meta);
  json_object_set_int_member (result, "ttlMs", 0);
  json_object_set_string_member (result, "cacheScope", "private");
  proxy_send_result (proxy, id, result);
}

/* Mapped: a request of the local client, on a ready connection. */
void
proxy_mapped_request (Proxy      *proxy,
                      JsonNode   *id,
                      const char *method,
                      JsonObject *params)
{
  g_autoptr(JsonObject) copy = params != NULL ? copy_object (params) : json_object_new ();
  JsonObject *meta = object_member (copy, "_meta");
  Forward *forward;

  if (proxy->local_modern)
    {
      static const char * const envelope[] = {
        PROXY_VERSION_KEY, PROXY_CAPABILITIES_KEY, "io.modelcontextprotocol/clientInfo",
        "io.modelcontextprotocol/logLevel",
      };

      if (g_str_equal (method, "server/discover"))
        {
          proxy_mapped_discover (proxy, id);
          return;
        }
      if (g_str_equal (method, "subscriptions/listen"))
        {
          proxy_mapped_listen (proxy, id, copy);
          return;
        }
      for (guint i = 0; meta != NULL && i < G_N_ELEMENTS (envelope); i++)
        json_object_remove_member (meta, envelope[i]);
      if (meta != NULL && json_object_get_size (meta) == 0)
        json_object_remove_member (copy, "_meta");
      forward = proxy_forward_new (proxy, id, method);
      if (forward != NULL)
        snodo_client_forward_async (proxy->client, forward->key, method,
                                    json_object_get_size (copy) > 0 ? copy : NULL,
                                    forward->cancellable, proxy_forwarded_cb, forward);
      return;
    }

  if (g_str_equal (method, "ping"))
    {
      proxy_send_result (proxy, id, json_object_new ());
      return;
    }
  if (g_str_equal (method, "logging/setLevel"))
    {
      snodo_client_set_log_level (proxy->client, string_member (copy, "level"));
      proxy_send_result (proxy, id, json_object_new ());
      return;
    }
  if (g_str_equal (method, "resources/subscribe") || g_str_equal (method, "resources/unsubscribe"))
    {
      g_autofree char *text = g_strdup_printf ("Method not found: %s (the server behind the proxy speaks 2026-07-28, which has no such method)", method);

      proxy_send_error (proxy, id, -32601, text, NULL);
      return;
    }
  /* Progress has the client's token; the server's, in 2026-07-28, is the
   * proxy's request, whose progress is not passed on. */
  if (meta != NULL)
    {
      json_object_remove_member (meta, "progressToken");
      if (json_object_get_size (meta) == 0)
        json_object_remove_member (copy, "_meta");
    }
  forward = proxy_forward_new (proxy, id, method);
  if (forward != NULL)
    snodo_client_request_async (proxy->client, method, copy, forward->cancellable, proxy_requested_cb, forward);
}

void
listen_free (Listen *listen)
{
  json_node_unref (listen->id);
  g_strfreev (listen->uris);
  g_free (listen);
}
