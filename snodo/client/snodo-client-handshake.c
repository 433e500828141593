/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient's handshake: what the client says of itself (its
 * clientInfo, and the 2026-07-28 envelope of every request), the
 * server/discover probe and the fallback to initialize, and
 * connect_async(), which starts reading and negotiates the protocol
 * version. See snodo-client-private.h for how this file relates to the
 * others. */

#include "config.h"

#include <string.h>

#include "snodo-client-private.h"

#include "snodo-base-private.h"
#include "snodo-features.h"
#include "snodo-wire-private.h"

#define CLIENT_PROBE_TIMEOUT_MS 5000

static JsonObject *
snodo_client_client_info (void)
{
  JsonObject *info = json_object_new ();
  const char *name = g_get_prgname ();

  json_object_set_string_member (info, "name", name != NULL ? name : "snodo-client");
  json_object_set_string_member (info, "version", PACKAGE_VERSION);
  return info;
}

/* The 2026-07-28 envelope, added to @params. */
void
snodo_client_add_envelope (SnodoClient *self,
                           JsonObject  *params)
{
  JsonObject *meta;

  if (json_object_has_member (params, "_meta") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (params, "_meta")))
    meta = json_object_get_object_member (params, "_meta");
  else
    {
      meta = json_object_new ();
      json_object_set_object_member (params, "_meta", meta);
    }
  json_object_set_string_member (meta, "io.modelcontextprotocol/protocolVersion",
                                 snodo_protocol_version_to_string (SNODO_PROTOCOL_VERSION_2026_07_28));
  /* Capabilities already there are the request's own (such as the tasks
   * extension, snodo-client-tasks.c). Otherwise the client's, without the
   * tasks extension: declared, it lets the server answer with a task, and
   * only the requests of the tasks API take one. */
  if (!json_object_has_member (meta, "io.modelcontextprotocol/clientCapabilities"))
    {
      JsonObject *capabilities = snodo_client_dup_capabilities (self);
      JsonNode *extensions = json_object_get_member (capabilities, "extensions");

      if (extensions != NULL && JSON_NODE_HOLDS_OBJECT (extensions))
        json_object_remove_member (json_node_get_object (extensions), "io.modelcontextprotocol/tasks");
      json_object_set_object_member (meta, "io.modelcontextprotocol/clientCapabilities", capabilities);
    }
  json_object_set_object_member (meta, "io.modelcontextprotocol/clientInfo",
                                 snodo_client_client_info ());
  if (self->log_level != NULL)
    json_object_set_string_member (meta, "io.modelcontextprotocol/logLevel", self->log_level);
}

/* The handshake. */

static JsonObject *
object_member (JsonObject *object,
               const char *name)
{
  JsonNode *node;

  if (object == NULL)
    return NULL;
  node = json_object_get_member (object, name);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  return json_node_get_object (node);
}

static void snodo_client_initialize_cb (GObject      *source,
                                        GAsyncResult *result,
                                        gpointer      user_data);

static void
snodo_client_send_initialize (SnodoClient *self,
                              GTask       *task)
{
  SnodoProtocolVersion wanted = self->pinned_version;
  JsonObject *params = json_object_new ();
  GTask *request;

  if (wanted == SNODO_PROTOCOL_VERSION_UNKNOWN)
    wanted = SNODO_PROTOCOL_VERSION_2025_11_25;
  json_object_set_string_member (params, "protocolVersion", snodo_protocol_version_to_string (wanted));
  json_object_set_object_member (params, "capabilities", snodo_client_dup_capabilities (self));
  json_object_set_object_member (params, "clientInfo", snodo_client_client_info ());

  request = g_task_new (self, NULL, snodo_client_initialize_cb, task);
  snodo_client_send_request (self, "initialize", params, FALSE, self->request_timeout,
                             g_task_get_cancellable (task), request);
}

static void
snodo_client_set_level_cb (GObject      *source,
                           GAsyncResult *result,
                           gpointer      user_data)
{
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer == NULL)
    g_debug ("logging/setLevel: %s", error->message);
}

static void
snodo_client_initialize_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  SnodoClient *self = SNODO_CLIENT (source);
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  SnodoProtocolVersion version;
  const char *version_string;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer == NULL)
    {
      /* Only an answer refuses; a connection that failed says why itself. */
      if (error->domain == SNODO_RPC_ERROR)
        g_prefix_error (&error, "%s", _("The server refused to initialize: "));
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  version_string = snodo_json_object_get_string (answer, "protocolVersion");
  version = snodo_protocol_version_from_string (version_string);
  if (version == SNODO_PROTOCOL_VERSION_UNKNOWN || snodo_protocol_version_is_stateless (version) ||
      (self->pinned_version != SNODO_PROTOCOL_VERSION_UNKNOWN && version != self->pinned_version))
    {
      g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_FAILED,
                               _("The server answered initialize with protocol version %s, which the client does not speak"),
                               version_string != NULL ? version_string : "(none)");
      return;
    }

  snodo_client_set_agreed (self, version,
                           object_member (answer, "capabilities"),
                           object_member (answer, "serverInfo"),
                           snodo_json_object_get_string (answer, "instructions"));
  snodo_client_send_notification (self, "notifications/initialized", NULL);
#if SNODO_HAS_HTTP_TRANSPORT
  /* The server's own messages, on the stream a GET opens. */
  if (self->http != NULL)
    snodo_client_http_listen (self);
#endif
  /* Answered before any later request: the server reads in order. */
  snodo_client_send_log_level (self);
  g_task_return_boolean (task, TRUE);
}

/* In the initialize era, once agreed, asks a server that logs for the
 * client's log-level (2026-07-28 carries it in every request instead). */
void
snodo_client_send_log_level (SnodoClient *self)
{
  JsonObject *params;

  if (self->log_level == NULL || self->server_capabilities == NULL ||
      snodo_protocol_version_is_stateless (self->protocol_version) ||
      !json_object_has_member (self->server_capabilities, "logging"))
    return;

  params = json_object_new ();
  json_object_set_string_member (params, "level", self->log_level);
  snodo_client_send_request (self, "logging/setLevel", params, FALSE, self->request_timeout, NULL,
                             g_task_new (self, NULL, snodo_client_set_level_cb, NULL));
}

static gboolean
string_array_contains (JsonObject *object,
                       const char *member,
                       const char *wanted)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, member) : NULL;
  JsonArray *array;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonNode *element = json_array_get_element (array, i);

      if (snodo_json_node_is_string (element) && g_str_equal (json_node_get_string (element), wanted))
        return TRUE;
    }
  return FALSE;
}

static void
snodo_client_discover_cb (GObject      *source,
                          GAsyncResult *result,
                          gpointer      user_data)
{
  SnodoClient *self = SNODO_CLIENT (source);
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  const char *modern = snodo_protocol_version_to_string (SNODO_PROTOCOL_VERSION_2026_07_28);
  gboolean pinned = self->pinned_version == SNODO_PROTOCOL_VERSION_2026_07_28;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer != NULL && string_array_contains (answer, "supportedVersions", modern))
    {
      snodo_client_set_agreed (self, SNODO_PROTOCOL_VERSION_2026_07_28,
                               object_member (answer, "capabilities"),
                               object_member (object_member (answer, "_meta"),
                                              "io.modelcontextprotocol/serverInfo"),
                               snodo_json_object_get_string (answer, "instructions"));
      g_task_return_boolean (task, TRUE);
      return;
    }

  if (self->state == STATE_CLOSED || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* Over HTTP, what is no answer (refused authorization, no server, a
   * certificate not trusted) tells nothing of the era, and initialize
   * would fare no better. */
  if (self->http != NULL && error != NULL &&
      ((error->domain == G_IO_ERROR && error->code != G_IO_ERROR_FAILED && error->code != G_IO_ERROR_TIMED_OUT) ||
       error->domain == G_TLS_ERROR))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  /* An error of the 2026-07-28 era: a modern server that does not speak
   * our version, not one of the initialize era. */
  if (error != NULL && error->domain == SNODO_RPC_ERROR && error->code == -32022 &&
      strstr (error->message, modern) != NULL &&
      g_object_get_data (G_OBJECT (task), "snodo-discover-again") == NULL)
    {
      GTask *request;

      /* It named our version among those it supports: asked once more,
       * with that version (a version it supports is the client's pick). */
      g_object_set_data (G_OBJECT (task), "snodo-discover-again", GINT_TO_POINTER (TRUE));
      request = g_task_new (self, NULL, snodo_client_discover_cb, g_object_ref (task));
      snodo_client_send_request (self, "server/discover", NULL, TRUE,
                                 self->request_timeout, g_task_get_cancellable (task), request);
      return;
    }
  if (error != NULL && error->domain == SNODO_RPC_ERROR &&
      (error->code == -32020 || error->code == -32021 || error->code == -32022))
    {
      g_prefix_error (&error, "%s", _("The server refused server/discover: "));
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }

  if (pinned)
    {
      g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_FAILED,
                               _("The server does not speak protocol version %s%s%s"), modern,
                               error != NULL ? ": " : "", error != NULL ? error->message : "");
      return;
    }

  g_debug ("server/discover gave no modern version (%s); sending initialize",
           error != NULL ? error->message : "no 2026-07-28 in supportedVersions");
  snodo_client_send_initialize (self, g_steal_pointer (&task));
}

/* A new session (HTTP, the initialize era). */

static void
snodo_client_reinitialized_cb (GObject      *source,
                               GAsyncResult *result,
                               gpointer      user_data)
{
  SnodoClient *self = SNODO_CLIENT (source);
  g_autoptr(GTask) task = user_data;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (snodo_protocol_version_from_string (snodo_json_object_get_string (answer, "protocolVersion")) !=
      self->protocol_version)
    {
      g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_FAILED,
                               _("The server answered initialize with another protocol version than before"));
      return;
    }
  snodo_client_send_notification (self, "notifications/initialized", NULL);
  g_task_return_boolean (task, TRUE);
}

void
snodo_client_reinitialize_async (SnodoClient         *self,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  GTask *task = g_task_new (self, NULL, callback, user_data);
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "protocolVersion", snodo_protocol_version_to_string (self->protocol_version));
  json_object_set_object_member (params, "capabilities", snodo_client_dup_capabilities (self));
  json_object_set_object_member (params, "clientInfo", snodo_client_client_info ());
  snodo_client_send_request (self, "initialize", params, FALSE, self->request_timeout, NULL,
                             g_task_new (self, NULL, snodo_client_reinitialized_cb, task));
}

gboolean
snodo_client_reinitialize_finish (SnodoClient   *self,
                                  GAsyncResult  *result,
                                  GError       **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

/**
 * snodo_client_connect_async:
 * @self: a client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called when the handshake is done
 * @user_data: data for @callback
 *
 * Starts reading from the server and agrees on a protocol version with it
 * (see the class documentation); for the initialize era this is the
 * `initialize` handshake. Call it once.
 *
 * Since: 0.1
 */
void
snodo_client_connect_async (SnodoClient         *self,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SnodoProtocolVersion pinned;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_client_connect_async);
  g_task_set_name (task, G_STRFUNC);

  if (self->state != STATE_NEW)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED,
                               _("The client is already connected, or closed"));
      return;
    }
  self->state = STATE_CONNECTING;
  snodo_client_read (self);

  pinned = self->pinned_version;
  if (pinned == SNODO_PROTOCOL_VERSION_UNKNOWN || snodo_protocol_version_is_stateless (pinned))
    {
      GTask *request = g_task_new (self, NULL, snodo_client_discover_cb, g_steal_pointer (&task));
      guint timeout = CLIENT_PROBE_TIMEOUT_MS;

      /* A pinned client waits as long as for any request; a negotiating
       * one falls back when an old server keeps silent. */
      if (pinned != SNODO_PROTOCOL_VERSION_UNKNOWN || (self->request_timeout > 0 && self->request_timeout < timeout))
        timeout = self->request_timeout;
      snodo_client_send_request (self, "server/discover", NULL, TRUE, timeout, cancellable, request);
    }
  else
    snodo_client_send_initialize (self, g_steal_pointer (&task));
}

/**
 * snodo_client_connect_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.connect_async].
 *
 * Returns: %TRUE once a version is agreed on
 *
 * Since: 0.1
 */
gboolean
snodo_client_connect_finish (SnodoClient   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
