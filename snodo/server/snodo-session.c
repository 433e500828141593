/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "snodo-base-private.h"
#include "snodo-connection-private.h"
#include "snodo-error.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-session.h"
#include "snodo-wire-private.h"

/**
 * SnodoSession:
 *
 * One connection of a client to a [class@Snodo.Server] that forwards its
 * requests (see [method@Snodo.Server.set_forward_func]): a standard input
 * and output connection, an HTTP session of the initialize era
 * (2025-06-18, 2025-11-25), or the one request of a stateless HTTP
 * exchange (2026-07-28).
 *
 * A forwarding application gets it with
 * [method@Snodo.Invocation.get_session], keeps what it needs per client
 * with it (for example the server it forwards to), and learns from
 * [signal@Snodo.Session::closed] when the client is gone: the session was
 * deleted, expired, or its transport closed.
 *
 * The session sends what belongs to no request of the client: the
 * server's notifications ([method@Snodo.Session.notify]: list changes,
 * resource updates, logs) and, in the initialize era, the server's
 * requests ([method@Snodo.Session.request_async]). Those that belong to a
 * request go with its invocation ([method@Snodo.Invocation.notify],
 * [method@Snodo.Invocation.request_input_async]). The notifications of the
 * client come as [signal@Snodo.Session::notification] once the session
 * was asked for (by the forward function of its first request,
 * `initialize` in the initialize era), except
 * `notifications/initialized` and `notifications/cancelled`, which the
 * server handles itself (the cancellable of the request cancelled fires).
 *
 * A session is used on the server's main context.
 *
 * Since: 0.1
 */

struct _SnodoSession
{
  GObject          parent_instance;

  /* Owned until the session is closed; the connection owns the session
   * until then too, a cycle that closing breaks. */
  SnodoConnection *connection;
  guint            request_timeout;
  gboolean         closed;
};

G_DEFINE_FINAL_TYPE (SnodoSession, snodo_session, G_TYPE_OBJECT)

enum
{
  SIGNAL_NOTIFICATION,
  SIGNAL_CLOSED,
  N_SIGNALS,
};

static guint signals[N_SIGNALS];

static void
snodo_session_finalize (GObject *object)
{
  SnodoSession *self = SNODO_SESSION (object);

  g_clear_pointer (&self->connection, snodo_connection_unref);
  G_OBJECT_CLASS (snodo_session_parent_class)->finalize (object);
}

static void
snodo_session_class_init (SnodoSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_session_finalize;

  /**
   * SnodoSession::notification:
   * @self: the session
   * @method: the notification's method, also the signal's detail
   * @params: the notification's params (an empty object when it had none)
   *
   * The client sent a notification, for example
   * `notifications/roots/list_changed`.
   *
   * Since: 0.1
   */
  signals[SIGNAL_NOTIFICATION] =
    g_signal_new ("notification",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2,
                  G_TYPE_STRING, JSON_TYPE_OBJECT);

  /**
   * SnodoSession::closed:
   * @self: the session
   *
   * The client is gone: its HTTP session was deleted or expired, or the
   * transport closed. Nothing more is sent or received on the session.
   * Emitted once.
   *
   * Since: 0.1
   */
  signals[SIGNAL_CLOSED] =
    g_signal_new ("closed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);
}

static void
snodo_session_init (SnodoSession *self)
{
}

/* The session of @connection, made with the first ask. On the context. */
SnodoSession *
snodo_connection_get_session (SnodoConnection *connection,
                              guint            request_timeout)
{
  if (connection->session == NULL)
    {
      SnodoSession *session = g_object_new (SNODO_TYPE_SESSION, NULL);

      session->connection = snodo_connection_ref (connection);
      session->request_timeout = request_timeout;
      session->closed = connection->ending;
      connection->session = session;
    }
  return connection->session;
}

/* A notification of the client on the connection of @self. */
void
snodo_session_emit_notification (SnodoSession *self,
                                 SnodoFrame   *frame)
{
  g_autoptr(JsonObject) empty = NULL;
  JsonObject *params = snodo_frame_get_params (frame);

  if (self->closed)
    return;
  if (params == NULL)
    params = empty = json_object_new ();
  g_signal_emit (self, signals[SIGNAL_NOTIFICATION], g_quark_from_string (frame->method), frame->method, params);
}

/* The connection ended: the session says so, once, and lets go of it. */
void
snodo_connection_end_session (SnodoConnection *connection)
{
  g_autoptr(SnodoSession) session = g_steal_pointer (&connection->session);
  g_autoptr(SnodoConnection) owned = NULL;

  if (session == NULL)
    return;
  owned = g_steal_pointer (&session->connection);
  if (!session->closed)
    {
      session->closed = TRUE;
      g_signal_emit (session, signals[SIGNAL_CLOSED], 0);
    }
}

/**
 * snodo_session_get_protocol_version:
 * @self: a session
 *
 * Gets the protocol version of a session of the initialize era: the one
 * the answer to its `initialize` negotiated (while that answer is
 * awaited, the one the client asked for, if the server enables it).
 *
 * Returns: the version, or %SNODO_PROTOCOL_VERSION_UNKNOWN before
 *   `initialize` and for a 2026-07-28 connection
 *
 * Since: 0.1
 */
SnodoProtocolVersion
snodo_session_get_protocol_version (SnodoSession *self)
{
  g_return_val_if_fail (SNODO_IS_SESSION (self), SNODO_PROTOCOL_VERSION_UNKNOWN);

  if (self->connection == NULL || self->connection->era != SNODO_ERA_LEGACY)
    return SNODO_PROTOCOL_VERSION_UNKNOWN;
  return self->connection->legacy_version;
}

/**
 * snodo_session_is_closed:
 * @self: a session
 *
 * Whether [signal@Snodo.Session::closed] was emitted.
 *
 * Returns: %TRUE once the client is gone
 *
 * Since: 0.1
 */
gboolean
snodo_session_is_closed (SnodoSession *self)
{
  g_return_val_if_fail (SNODO_IS_SESSION (self), TRUE);

  return self->closed;
}

/**
 * snodo_session_notify:
 * @self: a session
 * @method: the notification's method
 * @params: (nullable): its params, or %NULL for none
 *
 * Sends a notification to the client that belongs to none of its requests
 * (over HTTP, on the session's own stream, which the client opens with
 * GET), as it is: a list change, a resource update, a log message.
 *
 * Returns: %FALSE if the session is closed, so nothing was sent
 *
 * Since: 0.1
 */
gboolean
snodo_session_notify (SnodoSession *self,
                      const char   *method,
                      JsonObject   *params)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GBytes) line = NULL;

  g_return_val_if_fail (SNODO_IS_SESSION (self), FALSE);
  g_return_val_if_fail (method != NULL, FALSE);

  if (self->closed || self->connection == NULL)
    return FALSE;
  if (params != NULL)
    node = json_node_init_object (json_node_alloc (), params);
  line = snodo_frame_encode_notification (method, node);
  snodo_connection_send (self->connection, line, NULL, NULL);
  return TRUE;
}

static void
snodo_session_requested_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;
  JsonNode *answer = g_task_propagate_pointer (G_TASK (result), &error);

  if (answer == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else if (!JSON_NODE_HOLDS_OBJECT (answer))
    {
      json_node_unref (answer);
      g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_CLIENT_ERROR,
                               _("The client answered with a result that is not an object"));
    }
  else
    {
      g_task_return_pointer (task, json_node_dup_object (answer), (GDestroyNotify) json_object_unref);
      json_node_unref (answer);
    }
}

/**
 * snodo_session_request_async:
 * @self: a session
 * @method: the request's method, such as `roots/list`
 * @params: (nullable): its params, or %NULL for none
 * @cancellable: (nullable): a #GCancellable, to give the request up (the
 *   client is told with `notifications/cancelled`)
 * @callback: called with the client's answer
 * @user_data: data for @callback
 *
 * Sends a request to the client of a session of the initialize era, that
 * belongs to none of its requests (over HTTP, on the session's own
 * stream), bounded by [property@Snodo.Server:request-timeout]. A request
 * that belongs to one of the client's requests goes with
 * [method@Snodo.Invocation.request_input_async] instead.
 *
 * Since: 0.1
 */
void
snodo_session_request_async (SnodoSession        *self,
                             const char          *method,
                             JsonObject          *params,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonNode) node = NULL;
  GTask *inner;

  g_return_if_fail (SNODO_IS_SESSION (self));
  g_return_if_fail (method != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_session_request_async);
  if (self->closed || self->connection == NULL || self->connection->era != SNODO_ERA_LEGACY)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                               _("The session has no client to ask: it is closed, or not of the initialize era"));
      return;
    }
  if (params != NULL)
    node = json_node_init_object (json_node_alloc (), params);
  inner = g_task_new (self, NULL, snodo_session_requested_cb, g_steal_pointer (&task));
  snodo_connection_request_input (self->connection, NULL, method, node, cancellable, self->request_timeout, inner);
}

/**
 * snodo_session_request_finish:
 * @self: a session
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [method@Snodo.Session.request_async].
 *
 * Returns: (transfer full): the client's result, or %NULL with @error set
 *   (%SNODO_ERROR_CLIENT_ERROR when the client answered with an error)
 *
 * Since: 0.1
 */
JsonObject *
snodo_session_request_finish (SnodoSession  *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (SNODO_IS_SESSION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
