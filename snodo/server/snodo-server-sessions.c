/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-catalog-private.h"
#include "snodo-connection-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-server-tasks-private.h"
#include "snodo-server-methods.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

/*
 * What SnodoServer keeps per connection beyond single requests:
 * subscriptions/listen (2026-07-28), the connections being served, and the
 * announcements of changes that reach them. The requests the server sends
 * to a client (2025 era) are the connection's (snodo-connection.c).
 */

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
  /* Task ids (the tasks extension) -> NULL, or NULL. */
  GHashTable      *task_ids;
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
  g_clear_pointer (&subscription->task_ids, g_hash_table_unref);
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
  JsonNode *task_ids_node = NULL;
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
          /* The tasks extension: status of these tasks. */
          task_ids_node = json_object_get_member (filters, "taskIds");
          if (message == NULL && task_ids_node != NULL &&
              !snodo_server_tasks_check_listen (self, invocation, task_ids_node, &message))
            return;
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

  if (task_ids_node != NULL)
    {
      JsonArray *ids = json_node_get_array (task_ids_node);
      JsonArray *copy = json_array_new ();

      subscription->task_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      for (guint i = 0; i < json_array_get_length (ids); i++)
        {
          const char *id = json_array_get_string_element (ids, i);

          /* Only the tasks this server knows. */
          if (g_hash_table_contains (subscription->task_ids, id) || !snodo_server_tasks_knows (self, id))
            continue;
          json_array_add_string_element (copy, id);
          g_hash_table_add (subscription->task_ids, g_strdup (id));
        }
      json_object_set_array_member (honoured, "taskIds", copy);
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

void
snodo_server_connection_draining (SnodoServer     *self,
                                  SnodoConnection *connection)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  connection->ending = TRUE;
  end_subscriptions (connection, TRUE);
  /* The client can no longer answer: the work waiting for it goes on at
   * once rather than at its timeout. */
  snodo_connection_fail_requests (connection, _("The client's input ended before it answered"));
}

void
snodo_server_connection_ended (SnodoServer     *self,
                               SnodoConnection *connection,
                               gboolean         graceful)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  connection->ending = TRUE;
  end_subscriptions (connection, FALSE);
  snodo_connection_fail_requests (connection, _("The connection is closed"));

  g_hash_table_remove_all (connection->resource_subscriptions);
  g_ptr_array_remove (snodo_server_get_connections (self), connection);
  if (G_UNLIKELY (connection->session != NULL))
    snodo_connection_end_session (connection);
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

/* Announces the change @method (with @uri for
 * notifications/resources/updated) to this server's clients: FALSE, and
 * nothing announced, if @method is no change a server announces. */
gboolean
snodo_server_announce_change (SnodoServer *self,
                              const char  *method,
                              const char  *uri)
{
  g_autoptr(JsonNode) params = NULL;
  JsonObject *object;

  if (g_str_equal (method, "notifications/tools/list_changed"))
    snodo_server_announce (self, method, NULL, wants_tools, NULL, NULL);
  else if (g_str_equal (method, "notifications/prompts/list_changed"))
    snodo_server_announce (self, method, NULL, wants_prompts, NULL, NULL);
  else if (g_str_equal (method, "notifications/resources/list_changed"))
    snodo_server_announce (self, method, NULL, wants_resources, NULL, NULL);
  else if (g_str_equal (method, "notifications/resources/updated") && uri != NULL)
    {
      object = json_object_new ();
      json_object_set_string_member (object, "uri", uri);
      params = snodo_json_node_take_object (object);
      snodo_server_announce (self, method, params, wants_uri, (gpointer) uri, uri);
    }
  else
    return FALSE;
  return TRUE;
}

/**
 * snodo_server_notify_tools_changed:
 * @self: a server
 *
 * Tells clients that the list of tools changed: every 2025 client with
 * `notifications/tools/list_changed`, and every 2026-07-28 subscription
 * that asked for tool changes. Adding or removing a tool does this by
 * itself; call it when a tool's description changed in another way. Call
 * it on the server's main context. With a bus ([method@Snodo.Server.set_bus])
 * the change goes through the bus, to the clients of every server that
 * shares it.
 *
 * Since: 0.1
 */
void
snodo_server_notify_tools_changed (SnodoServer *self)
{
  g_return_if_fail (SNODO_IS_SERVER (self));
  snodo_server_publish_change (self, "notifications/tools/list_changed", NULL);
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
  snodo_server_publish_change (self, "notifications/prompts/list_changed", NULL);
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
  snodo_server_publish_change (self, "notifications/resources/list_changed", NULL);
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
  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (uri != NULL);

  snodo_server_publish_change (self, "notifications/resources/updated", uri);
}

/**
 * snodo_server_log:
 * @self: a server
 * @level: how severe the message is
 * @logger: (nullable): the name of what logs
 * @data: any JSON value to log
 *
 * Sends a log message (`notifications/message`) about no request in
 * particular, such as the state of something the server depends on, to
 * each client of the initialize era (2025-06-18, 2025-11-25) that wants
 * messages of @level: at or above the level it set with
 * `logging/setLevel`, every level until it does. A 2026-07-28 client gets
 * log messages only about its requests
 * ([method@Snodo.Invocation.log]). Call it on the server's main context.
 *
 * Returns: %TRUE if the message was sent to at least one client
 *
 * Since: 0.1
 */
gboolean
snodo_server_log (SnodoServer   *self,
                  SnodoLogLevel  level,
                  const char    *logger,
                  JsonNode      *data)
{
  g_autoptr(GBytes) line = NULL;
  gboolean sent = FALSE;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (data != NULL, FALSE);

  for (guint i = 0; i < snodo_server_get_connections (self)->len; i++)
    {
      SnodoConnection *connection = g_ptr_array_index (snodo_server_get_connections (self), i);

      if (connection->era != SNODO_ERA_LEGACY || !connection->initialized ||
          (int) level < g_atomic_int_get (&connection->log_level))
        continue;
      if (line == NULL)
        line = snodo_server_encode_log (level, logger, data);
      snodo_connection_send (connection, line, NULL, NULL);
      sent = TRUE;
    }
  return sent;
}

/* The tasks extension: @task (a DetailedTask, as tasks/get answers) to
 * every subscription that listens to its id. */
void
snodo_server_announce_task (SnodoServer *self,
                            const char  *task_id,
                            JsonObject  *task)
{
  for (guint i = 0; i < snodo_server_get_connections (self)->len; i++)
    {
      SnodoConnection *connection = g_ptr_array_index (snodo_server_get_connections (self), i);

      for (guint j = 0; j < connection->subscriptions->len; j++)
        {
          Subscription *subscription = g_ptr_array_index (connection->subscriptions, j);
          g_autoptr(JsonNode) params = NULL;
          g_autoptr(GBytes) line = NULL;
          JsonObjectIter iter;
          const char *name;
          JsonNode *member;

          if (subscription->task_ids == NULL || !g_hash_table_contains (subscription->task_ids, task_id) ||
              g_cancellable_is_cancelled (snodo_invocation_get_cancellable (subscription->invocation)))
            continue;
          params = subscription_meta (subscription);
          json_object_iter_init (&iter, task);
          while (json_object_iter_next (&iter, &name, &member))
            json_object_set_member (json_node_get_object (params), name, json_node_copy (member));
          line = snodo_frame_encode_notification ("notifications/tasks", params);
          snodo_connection_send_related (connection, snodo_invocation_get_key (subscription->invocation),
                                         line, NULL, NULL);
        }
    }
}
