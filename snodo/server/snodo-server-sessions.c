/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-server.h"
#include "snodo-invocation-private.h"
#include "snodo-private.h"

/*
 * What SnodoServer keeps per connection beyond single requests:
 * subscriptions/listen (2026-07-28), the requests the server sends to a
 * client (2025 era), the connections being served, and the announcements
 * of changes that reach both.
 */

/* A request this server sent to a client (2025 era). */
typedef struct
{
  SnodoServer     *server;
  SnodoConnection *connection;
  /* The key of the client request this one is made for. */
  char            *related;
  GTask           *task;
  char            *method;
  JsonNode        *params;
  JsonNode        *id;
  char            *key;
  GCancellable    *cancellable;
  GSource         *timeout_source;
  GSource         *cancel_source;
} Outgoing;

/* A subscriptions/listen in progress (2026-07-28). */
typedef struct
{
  /* The listen request; its reference is the one a handler would own. */
  SnodoInvocation *invocation;
  SnodoConnection *connection;
  gboolean         tools;
  gboolean         prompts;
  gboolean         resources;
  /* URI -> URI, or NULL. */
  GHashTable      *uris;
  GSource         *cancel_source;
} Subscription;

/* ---- subscriptions/listen (2026-07-28) ---------------------------------- */

static JsonNode *
subscription_meta (Subscription *subscription)
{
  JsonObject *meta = json_object_new ();
  JsonObject *params = json_object_new ();

  json_object_set_member (meta, SNODO_META_SUBSCRIPTION_ID,
                          json_node_copy (snodo_invocation_get_id (subscription->invocation)));
  json_object_set_object_member (params, "_meta", meta);
  return snodo_json_node_take_object (params);
}

static void
subscription_free (Subscription *subscription)
{
  g_clear_pointer (&subscription->cancel_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&subscription->uris, g_hash_table_unref);
  g_clear_pointer (&subscription->connection, snodo_connection_unref);
  g_free (subscription);
}

/* Ends a subscription: @graceful with its result (the server ends it),
 * else without an answer (cancelled, or its transport is gone). */
static void
subscription_end (Subscription *subscription,
                  gboolean      graceful)
{
  SnodoInvocation *invocation = g_steal_pointer (&subscription->invocation);

  g_ptr_array_remove (subscription->connection->subscriptions, subscription);
  if (graceful)
    {
      JsonObject *meta = json_object_new ();
      JsonObject *result = json_object_new ();
      g_autoptr(JsonNode) node = NULL;

      json_object_set_member (meta, SNODO_META_SUBSCRIPTION_ID,
                              json_node_copy (snodo_invocation_get_id (invocation)));
      json_object_set_object_member (result, "_meta", meta);
      node = snodo_json_node_take_object (result);
      snodo_invocation_return_result (invocation, node);
    }
  else
    snodo_invocation_drop (invocation);
  subscription_free (subscription);
}

static gboolean
subscription_cancelled_cb (GCancellable *cancellable,
                           gpointer      user_data)
{
  Subscription *subscription = user_data;

  g_clear_pointer (&subscription->cancel_source, g_source_unref);
  subscription_end (subscription, FALSE);
  return G_SOURCE_REMOVE;
}

static gboolean
get_bool_filter (JsonObject  *filters,
                 const char  *name,
                 gboolean    *out,
                 char       **message)
{
  JsonNode *node = json_object_get_member (filters, name);

  *out = FALSE;
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    {
      *message = g_strdup_printf (_("Invalid params: \"notifications.%s\" must be a boolean"), name);
      return FALSE;
    }
  *out = json_node_get_boolean (node);
  return TRUE;
}

/* Whether a connection that keeps @n_kept resource subscriptions may
 * subscribe to @uri too (@kept: it is one of them already; @uri NULL: its
 * length is not in question): NULL if so, else why not. Both eras keep to
 * the same bounds. */
char *
snodo_server_subscription_refusal (const char *uri,
                                   guint       n_kept,
                                   gboolean    kept)
{
  if (uri != NULL && strlen (uri) > SNODO_MAX_SUBSCRIBED_URI_BYTES)
    return g_strdup_printf (_("Invalid params: a subscribed URI is at most %u bytes long"),
                            SNODO_MAX_SUBSCRIBED_URI_BYTES);
  if (!kept && n_kept >= SNODO_MAX_RESOURCE_SUBSCRIPTIONS)
    return g_strdup_printf (_("Invalid params: a client may subscribe to at most %u resources"),
                            SNODO_MAX_RESOURCE_SUBSCRIPTIONS);
  return NULL;
}

void
snodo_server_method_subscriptions_listen (SnodoServer     *self,
                                          SnodoInvocation *invocation)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  SnodoConnection *connection = snodo_invocation_get_connection (invocation);
  JsonNode *filters_node = json_object_get_member (params, "notifications");
  JsonObject *filters = NULL;
  JsonNode *uris_node = NULL;
  g_autofree char *message = NULL;
  gboolean tools = FALSE, prompts = FALSE, resources = FALSE;
  Subscription *subscription;
  JsonObject *honoured;
  g_autoptr(JsonNode) ack = NULL;
  g_autoptr(GBytes) line = NULL;
  gboolean can_subscribe = snodo_catalog_has_resources (snodo_server_get_catalog (self));

  if (filters_node != NULL && !JSON_NODE_HOLDS_OBJECT (filters_node))
    message = g_strdup (_("Invalid params: \"notifications\" must be an object"));
  else if (filters_node != NULL)
    {
      filters = json_node_get_object (filters_node);
      if (get_bool_filter (filters, "toolsListChanged", &tools, &message) &&
          get_bool_filter (filters, "promptsListChanged", &prompts, &message) &&
          get_bool_filter (filters, "resourcesListChanged", &resources, &message))
        {
          uris_node = json_object_get_member (filters, "resourceSubscriptions");
          if (uris_node != NULL && !JSON_NODE_HOLDS_ARRAY (uris_node))
            message = g_strdup (_("Invalid params: \"notifications.resourceSubscriptions\" must be an array of strings"));
          for (guint i = 0; message == NULL && uris_node != NULL &&
               i < json_array_get_length (json_node_get_array (uris_node)); i++)
            {
              JsonNode *uri = json_array_get_element (json_node_get_array (uris_node), i);

              if (!JSON_NODE_HOLDS_VALUE (uri) || json_node_get_value_type (uri) != G_TYPE_STRING)
                message = g_strdup (_("Invalid params: \"notifications.resourceSubscriptions\" must be an array of strings"));
              else
                message = snodo_server_subscription_refusal (json_node_get_string (uri), 0, TRUE);
            }
          /* The last URI, after all the others. */
          if (message == NULL && uris_node != NULL && json_array_get_length (json_node_get_array (uris_node)) > 0)
            message = snodo_server_subscription_refusal (NULL, json_array_get_length (json_node_get_array (uris_node)) - 1,
                                                         FALSE);
        }
    }
  if (message != NULL)
    {
      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, message);
      return;
    }

  subscription = g_new0 (Subscription, 1);
  subscription->invocation = invocation;
  subscription->connection = snodo_connection_ref (connection);
  /* Only what the server can serve is honoured. */
  subscription->tools = tools;
  subscription->prompts = prompts && snodo_catalog_has_prompts (snodo_server_get_catalog (self));
  subscription->resources = resources && can_subscribe;

  honoured = json_object_new ();
  if (subscription->tools)
    json_object_set_boolean_member (honoured, "toolsListChanged", TRUE);
  if (subscription->prompts)
    json_object_set_boolean_member (honoured, "promptsListChanged", TRUE);
  if (subscription->resources)
    json_object_set_boolean_member (honoured, "resourcesListChanged", TRUE);
  if (uris_node != NULL && can_subscribe && json_array_get_length (json_node_get_array (uris_node)) > 0)
    {
      JsonArray *uris = json_node_get_array (uris_node);
      JsonArray *copy = json_array_new ();

      subscription->uris = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; i < json_array_get_length (uris); i++)
        {
          const char *uri = json_array_get_string_element (uris, i);

          if (!g_hash_table_contains (subscription->uris, uri))
            json_array_add_string_element (copy, uri);
          g_hash_table_replace (subscription->uris, g_strdup (uri), NULL);
        }
      json_object_set_array_member (honoured, "resourceSubscriptions", copy);
    }

  /* The acknowledgement comes first. */
  ack = subscription_meta (subscription);
  json_object_set_object_member (json_node_get_object (ack), "notifications", honoured);
  line = snodo_frame_encode_notification ("notifications/subscriptions/acknowledged", ack);
  snodo_connection_send_related (connection, snodo_invocation_get_key (invocation), line, NULL, NULL);

  g_ptr_array_add (connection->subscriptions, subscription);

  if (connection->ending)
    {
      subscription_end (subscription, TRUE);
      return;
    }

  subscription->cancel_source = g_cancellable_source_new (snodo_invocation_get_cancellable (invocation));
  g_source_set_callback (subscription->cancel_source, G_SOURCE_FUNC (subscription_cancelled_cb),
                         subscription, NULL);
  g_source_attach (subscription->cancel_source, connection->context);
}

/* ---- Requests to the client (2025 era) ---------------------------------- */

static void
outgoing_free (Outgoing *outgoing)
{
  g_clear_pointer (&outgoing->timeout_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&outgoing->cancel_source, snodo_source_destroy_and_unref);
  g_clear_object (&outgoing->server);
  g_clear_pointer (&outgoing->connection, snodo_connection_unref);
  g_clear_object (&outgoing->task);
  g_clear_object (&outgoing->cancellable);
  g_clear_pointer (&outgoing->method, g_free);
  g_clear_pointer (&outgoing->related, g_free);
  g_clear_pointer (&outgoing->params, json_node_unref);
  g_clear_pointer (&outgoing->id, json_node_unref);
  g_clear_pointer (&outgoing->key, g_free);
  g_free (outgoing);
}

/* Takes @outgoing out of its connection's table; FALSE if it was gone. */
static gboolean
outgoing_take (Outgoing *outgoing)
{
  SnodoConnection *connection = outgoing->connection;
  gboolean found;

  if (outgoing->key == NULL)
    return TRUE;
  g_mutex_lock (&connection->lock);
  found = g_hash_table_lookup (connection->outgoing, outgoing->key) == outgoing;
  if (found)
    g_hash_table_remove (connection->outgoing, outgoing->key);
  g_mutex_unlock (&connection->lock);
  return found;
}

/* The request will not be answered: tells the client so, and fails. */
static void
outgoing_abandon (Outgoing   *outgoing,
                  GError     *error,
                  const char *reason)
{
  if (reason != NULL)
    {
      JsonObject *params = json_object_new ();
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GBytes) line = NULL;

      json_object_set_member (params, "requestId", json_node_copy (outgoing->id));
      json_object_set_string_member (params, "reason", reason);
      node = snodo_json_node_take_object (params);
      line = snodo_frame_encode_notification ("notifications/cancelled", node);
      snodo_connection_send_related (outgoing->connection, outgoing->related, line, NULL, NULL);
    }
  g_task_return_error (outgoing->task, error);
  outgoing_free (outgoing);
}

static gboolean
outgoing_timeout_cb (gpointer user_data)
{
  Outgoing *outgoing = user_data;

  g_clear_pointer (&outgoing->timeout_source, g_source_unref);
  if (!outgoing_take (outgoing))
    return G_SOURCE_REMOVE;
  outgoing_abandon (outgoing,
                    g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                                 _("The client did not answer %s within %u ms"),
                                 outgoing->method, snodo_server_get_request_timeout (outgoing->server)),
                    "timed out");
  return G_SOURCE_REMOVE;
}

static gboolean
outgoing_cancelled_cb (GCancellable *cancellable,
                       gpointer      user_data)
{
  Outgoing *outgoing = user_data;

  g_clear_pointer (&outgoing->cancel_source, g_source_unref);
  if (!outgoing_take (outgoing))
    return G_SOURCE_REMOVE;
  outgoing_abandon (outgoing,
                    g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The request was cancelled")),
                    "cancelled");
  return G_SOURCE_REMOVE;
}

static gboolean
outgoing_start_cb (gpointer user_data)
{
  Outgoing *outgoing = user_data;
  SnodoConnection *connection = outgoing->connection;
  g_autoptr(GBytes) line = NULL;
  gboolean attached;

  g_mutex_lock (&connection->lock);
  attached = connection->transport != NULL && !connection->ending;
  if (attached)
    {
      outgoing->id = json_node_init_int (json_node_alloc (), connection->next_outgoing_id++);
      outgoing->key = snodo_frame_id_key (outgoing->id);
      g_hash_table_insert (connection->outgoing, g_strdup (outgoing->key), outgoing);
    }
  g_mutex_unlock (&connection->lock);

  if (!attached)
    {
      outgoing_abandon (outgoing,
                        g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, _("The connection is closed")),
                        NULL);
      return G_SOURCE_REMOVE;
    }

  outgoing->timeout_source = g_timeout_source_new (snodo_server_get_request_timeout (outgoing->server));
  g_source_set_callback (outgoing->timeout_source, outgoing_timeout_cb, outgoing, NULL);
  g_source_attach (outgoing->timeout_source, connection->context);
  if (outgoing->cancellable != NULL)
    {
      outgoing->cancel_source = g_cancellable_source_new (outgoing->cancellable);
      g_source_set_callback (outgoing->cancel_source, G_SOURCE_FUNC (outgoing_cancelled_cb), outgoing, NULL);
      g_source_attach (outgoing->cancel_source, connection->context);
    }

  line = snodo_frame_encode_request (outgoing->id, outgoing->method, outgoing->params);
  snodo_connection_send_related (connection, outgoing->related, line, NULL, NULL);
  return G_SOURCE_REMOVE;
}

void
snodo_server_request_input (SnodoServer     *self,
                            SnodoConnection *connection,
                            const char      *related,
                            const char      *method,
                            JsonNode        *params,
                            GCancellable    *cancellable,
                            GTask           *task)
{
  Outgoing *outgoing = g_new0 (Outgoing, 1);
  GCancellable *task_cancellable = g_task_get_cancellable (task);

  outgoing->server = g_object_ref (self);
  outgoing->connection = snodo_connection_ref (connection);
  outgoing->task = task;
  outgoing->related = g_strdup (related);
  outgoing->method = g_strdup (method);
  outgoing->params = params ? json_node_copy (params) : NULL;
  /* Either the caller's cancellable or the request's ends the wait. */
  if (task_cancellable != NULL && cancellable != NULL)
    {
      outgoing->cancellable = g_cancellable_new ();
      g_signal_connect_object (task_cancellable, "cancelled", G_CALLBACK (g_cancellable_cancel),
                               outgoing->cancellable, G_CONNECT_SWAPPED);
      g_signal_connect_object (cancellable, "cancelled", G_CALLBACK (g_cancellable_cancel),
                               outgoing->cancellable, G_CONNECT_SWAPPED);
      if (g_cancellable_is_cancelled (task_cancellable) || g_cancellable_is_cancelled (cancellable))
        g_cancellable_cancel (outgoing->cancellable);
    }
  else if (task_cancellable != NULL || cancellable != NULL)
    outgoing->cancellable = g_object_ref (task_cancellable ? task_cancellable : cancellable);

  g_main_context_invoke_full (connection->context, G_PRIORITY_DEFAULT, outgoing_start_cb, outgoing, NULL);
}

/* On the context: a response from the client to one of our requests. */
void
snodo_server_handle_response (SnodoServer     *self,
                              SnodoConnection *connection,
                              SnodoFrame      *frame)
{
  JsonObject *message = json_node_get_object (frame->message);
  Outgoing *outgoing;

  g_mutex_lock (&connection->lock);
  outgoing = frame->key ? g_hash_table_lookup (connection->outgoing, frame->key) : NULL;
  if (outgoing != NULL)
    g_hash_table_remove (connection->outgoing, frame->key);
  g_mutex_unlock (&connection->lock);

  if (outgoing == NULL)
    {
      g_debug ("Ignored a response to no request of ours (%s)", frame->key);
      return;
    }

  if (frame->has_nul)
    g_task_return_new_error (outgoing->task, SNODO_ERROR, SNODO_ERROR_CLIENT_ERROR,
                             _("The client answered %s with a string that holds U+0000"), outgoing->method);
  else if (json_object_has_member (message, "result"))
    g_task_return_pointer (outgoing->task, json_node_copy (json_object_get_member (message, "result")),
                           (GDestroyNotify) json_node_unref);
  else
    {
      JsonObject *error = json_object_get_object_member (message, "error");
      const char *text = snodo_json_object_get_string (error, "message");

      /* Not our protocol error: a handler that passes it on reports a
       * failure of its own (for a tool, a failed result). */
      g_task_return_new_error (outgoing->task, SNODO_ERROR, SNODO_ERROR_CLIENT_ERROR,
                               _("The client answered %s with error %d: %s"),
                               outgoing->method, (int) json_object_get_int_member (error, "code"),
                               text != NULL ? text : "");
    }
  outgoing_free (outgoing);
}

/* ---- Connections and announcements --------------------------------------- */

void
snodo_server_connection_started (SnodoServer     *self,
                                 SnodoConnection *connection)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  g_ptr_array_add (snodo_server_get_connections (self), snodo_connection_ref (connection));
}

static void
end_subscriptions (SnodoConnection *connection,
                   gboolean         graceful)
{
  while (connection->subscriptions->len > 0)
    subscription_end (g_ptr_array_index (connection->subscriptions, 0), graceful);
}

/* Fails every request the server sent on @connection that is unanswered. */
static void
fail_outgoing (SnodoConnection *connection,
               const char      *message)
{
  g_autoptr(GList) pending = NULL;

  g_mutex_lock (&connection->lock);
  pending = g_hash_table_get_values (connection->outgoing);
  /* Frees the keys; the requests are ours to fail. */
  g_hash_table_remove_all (connection->outgoing);
  g_mutex_unlock (&connection->lock);
  for (GList *l = pending; l != NULL; l = l->next)
    outgoing_abandon (l->data, g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, message), NULL);
}

void
snodo_server_connection_draining (SnodoServer     *self,
                                  SnodoConnection *connection)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  connection->ending = TRUE;
  end_subscriptions (connection, TRUE);
  /* The client can no longer answer: the work waiting for it goes on at
   * once rather than at its timeout. */
  fail_outgoing (connection, _("The client's input ended before it answered"));
}

void
snodo_server_connection_ended (SnodoServer     *self,
                               SnodoConnection *connection,
                               gboolean         graceful)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  connection->ending = TRUE;
  end_subscriptions (connection, FALSE);
  fail_outgoing (connection, _("The connection is closed"));

  g_hash_table_remove_all (connection->resource_subscriptions);
  g_ptr_array_remove (snodo_server_get_connections (self), connection);
}

/* Sends @method to every 2025 connection that completed initialize, and to
 * every 2026 subscription that @wants it. */
static void
snodo_server_announce (SnodoServer *self,
                       const char  *method,
                       JsonNode    *legacy_params,
                       gboolean   (*wants) (Subscription *subscription,
                                            gpointer      data),
                       gpointer     data,
                       const char  *uri)
{
  g_autoptr(GBytes) legacy_line = NULL;

  for (guint i = 0; i < snodo_server_get_connections (self)->len; i++)
    {
      SnodoConnection *connection = g_ptr_array_index (snodo_server_get_connections (self), i);

      if (connection->era == SNODO_ERA_LEGACY && connection->initialized &&
          (uri == NULL || g_hash_table_contains (connection->resource_subscriptions, uri)))
        {
          if (legacy_line == NULL)
            legacy_line = snodo_frame_encode_notification (method, legacy_params);
          snodo_connection_send (connection, legacy_line, NULL, NULL);
        }

      for (guint j = 0; j < connection->subscriptions->len; j++)
        {
          Subscription *subscription = g_ptr_array_index (connection->subscriptions, j);
          g_autoptr(JsonNode) params = NULL;
          g_autoptr(GBytes) line = NULL;

          /* A cancelled subscription gets nothing more, even before
           * its cancellation has been dispatched. */
          if (!wants (subscription, data) ||
              g_cancellable_is_cancelled (snodo_invocation_get_cancellable (subscription->invocation)))
            continue;
          params = subscription_meta (subscription);
          if (uri != NULL)
            json_object_set_string_member (json_node_get_object (params), "uri", uri);
          line = snodo_frame_encode_notification (method, params);
          snodo_connection_send_related (connection, snodo_invocation_get_key (subscription->invocation),
                                         line, NULL, NULL);
        }
    }
}

static gboolean
wants_tools (Subscription *subscription,
             gpointer      data)
{
  return subscription->tools;
}

static gboolean
wants_prompts (Subscription *subscription,
               gpointer      data)
{
  return subscription->prompts;
}

static gboolean
wants_resources (Subscription *subscription,
                 gpointer      data)
{
  return subscription->resources;
}

static gboolean
wants_uri (Subscription *subscription,
           gpointer      data)
{
  return subscription->uris != NULL && g_hash_table_contains (subscription->uris, data);
}

/**
 * snodo_server_notify_tools_changed:
 * @self: a server
 *
 * Tells clients that the list of tools changed: every 2025 client with
 * `notifications/tools/list_changed`, and every 2026-07-28 subscription
 * that asked for tool changes. Adding or removing a tool does this by
 * itself; call it when a tool's description changed in another way. Call
 * it on the server's main context.
 *
 * Since: 0.1
 */
void
snodo_server_notify_tools_changed (SnodoServer *self)
{
  g_return_if_fail (SNODO_IS_SERVER (self));
  snodo_server_announce (self, "notifications/tools/list_changed", NULL, wants_tools, NULL, NULL);
}

/**
 * snodo_server_notify_prompts_changed:
 * @self: a server
 *
 * Tells clients that the list of prompts changed, like
 * [method@Snodo.Server.notify_tools_changed].
 *
 * Since: 0.1
 */
void
snodo_server_notify_prompts_changed (SnodoServer *self)
{
  g_return_if_fail (SNODO_IS_SERVER (self));
  snodo_server_announce (self, "notifications/prompts/list_changed", NULL, wants_prompts, NULL, NULL);
}

/**
 * snodo_server_notify_resources_changed:
 * @self: a server
 *
 * Tells clients that the list of resources changed, like
 * [method@Snodo.Server.notify_tools_changed].
 *
 * Since: 0.1
 */
void
snodo_server_notify_resources_changed (SnodoServer *self)
{
  g_return_if_fail (SNODO_IS_SERVER (self));
  snodo_server_announce (self, "notifications/resources/list_changed", NULL, wants_resources, NULL, NULL);
}

/**
 * snodo_server_notify_resource_updated:
 * @self: a server
 * @uri: the resource that changed
 *
 * Tells the clients that subscribed to @uri that it changed:
 * `notifications/resources/updated` to 2025 clients that used
 * `resources/subscribe`, and to 2026-07-28 subscriptions that listed it.
 * Call it on the server's main context.
 *
 * Since: 0.1
 */
void
snodo_server_notify_resource_updated (SnodoServer *self,
                                      const char  *uri)
{
  g_autoptr(JsonNode) params = NULL;
  JsonObject *object;

  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (uri != NULL);

  object = json_object_new ();
  json_object_set_string_member (object, "uri", uri);
  params = snodo_json_node_take_object (object);
  snodo_server_announce (self, "notifications/resources/updated", params, wants_uri, (gpointer) uri, uri);
}
