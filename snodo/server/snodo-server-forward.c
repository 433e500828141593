/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <glib/gi18n-lib.h>

#include "snodo-base-private.h"
#include "snodo-connection-private.h"
#include "snodo-error.h"
#include "snodo-executor.h"
#include "snodo-executor-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-internal.h"
#include "snodo-invocation-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-server-private.h"
#include "snodo-session.h"
#include "snodo-wire-private.h"

/*
 * A forwarding server: every request goes to one function of the
 * application, which answers it as it is (snodo_invocation_return_forwarded()),
 * for a proxy in front of another server. The transports work as they do
 * for any server (sessions, streams, limits, authorization); the server
 * only picks the dialect, admits the work, pins the era of a connection
 * and, from the answer to initialize, its version. What belongs to a
 * connection rather than to a request goes through its SnodoSession
 * (snodo-session.c).
 */

/**
 * snodo_server_set_forward_func:
 * @self: a server
 * @func: (scope notified) (closure user_data) (destroy destroy) (nullable):
 *   the function that answers every request, or %NULL for none
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data
 *
 * Makes @self a forwarding server: every request of its clients, of any
 * method, `initialize` and the protocol's own methods included, is handed
 * to @func as it came (its params untouched, the 2026-07-28 `_meta`
 * envelope with them), and answered as @func answers it, typically with
 * [method@Snodo.Invocation.return_forwarded] with what another server
 * answered ([method@Snodo.Client.forward_async]). The server's tools,
 * resources, prompts, methods, hooks and tasks are then not used.
 *
 * The transports work as for any server: over HTTP the sessions,
 * streams, resumption, limits and authorization are the transport's. The
 * server still picks the protocol version of each request among those it
 * enables ([property@Snodo.Server:protocol-versions]), so enable those the
 * other server speaks. A session of the initialize era takes its version
 * from the `protocolVersion` of the answer to its `initialize`, and the
 * client's capabilities from that request. `notifications/cancelled` of
 * the client fires the cancellable of the request it names
 * ([method@Snodo.Invocation.get_cancellable]); the client's other
 * notifications come as [signal@Snodo.Session::notification] of the
 * session of the request ([method@Snodo.Invocation.get_session]), which
 * also says when the client is gone.
 *
 * Requests are admitted by the transport's executor as any other; the
 * handler timeout does not apply.
 *
 * Since: 0.1
 */
void
snodo_server_set_forward_func (SnodoServer      *self,
                               SnodoForwardFunc  func,
                               gpointer          user_data,
                               GDestroyNotify    destroy)
{
  SnodoServerForward *forward;

  g_return_if_fail (SNODO_IS_SERVER (self));

  forward = snodo_server_get_forward (self);
  snodo_server_forward_clear (forward);
  forward->func = func;
  forward->user_data = user_data;
  forward->destroy = destroy;
}

void
snodo_server_forward_clear (SnodoServerForward *forward)
{
  GDestroyNotify destroy = forward->destroy;
  gpointer user_data = forward->user_data;

  forward->func = NULL;
  forward->user_data = NULL;
  forward->destroy = NULL;
  if (destroy != NULL)
    destroy (user_data);
}

/* The table entry of a method the dialect does not know, which lives as
 * long as its invocation. */
typedef struct
{
  SnodoMethod  method;
  char        *name;
} ForwardMethod;

static void
forward_method_free (gpointer data)
{
  ForwardMethod *entry = data;

  g_free (entry->name);
  g_free (entry);
}

static void
snodo_server_forward_free_cb (gpointer data)
{
  g_clear_object (&data);
}

static void
snodo_server_forward_run_cb (SnodoWork *work,
                             gpointer   user_data)
{
  SnodoInvocation **slot = user_data;
  SnodoInvocation *invocation = g_steal_pointer (slot);
  SnodoServerForward *forward = snodo_server_get_forward (snodo_invocation_get_server (invocation));

  snodo_invocation_set_work (invocation, work);
  if (forward->func != NULL)
    forward->func (invocation, forward->user_data);
  else
    snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                           _("The server forwards no more"));
}

static void
snodo_server_forward_slot_free (gpointer data)
{
  SnodoInvocation **slot = data;

  snodo_server_forward_free_cb (*slot);
  g_free (slot);
}

void
snodo_server_forward_request (SnodoServer        *self,
                              SnodoConnection    *connection,
                              const SnodoDialect *dialect,
                              SnodoFrame         *frame,
                              SnodoRequestMeta   *meta,
                              gsize               cost)
{
  g_autoptr(GError) error = NULL;
  const SnodoMethod *method = snodo_dialect_lookup (dialect, frame->method);
  ForwardMethod *own = NULL;
  SnodoExecutor *executor = connection->executor;
  SnodoInvocation **slot;
  gboolean listen;

  if (method == NULL)
    {
      own = g_new0 (ForwardMethod, 1);
      own->name = g_strdup (frame->method);
      own->method.name = own->name;
      own->method.id = SNODO_N_METHODS;
      own->method.flags = SNODO_METHOD_FLAGS_NONE;
      own->method.needs = SNODO_NEEDS_NOTHING;
      method = &own->method;
    }

  /* The era is pinned as the request is read, as the dispatch of a
   * server of its own does; the version waits for the answer. */
  if (dialect->stateless && connection->persistent && method->id != SNODO_METHOD_DISCOVER)
    connection->era = SNODO_ERA_MODERN;
  else if (!dialect->stateless && connection->persistent && method->id == SNODO_METHOD_INITIALIZE)
    {
      connection->era = SNODO_ERA_LEGACY;
      connection->legacy_version = snodo_protocol_negotiate (snodo_server_get_enabled_versions (self),
                                                             snodo_json_object_get_string (snodo_frame_get_params (frame),
                                                                                           "protocolVersion"));
    }

  slot = g_new0 (SnodoInvocation *, 1);
  *slot = snodo_invocation_new (self, connection, dialect, method, NULL, frame->message, frame->id, frame->key,
                                frame->params_node, frame->params_unbuilt ? &frame->params_members : NULL, meta);
  if (own != NULL)
    g_object_set_data_full (G_OBJECT (*slot), "snodo-forward-method", own, forward_method_free);

  listen = method->id == SNODO_METHOD_SUBSCRIPTIONS_LISTEN;
  if (connection->stream_executor != NULL && frame->key != NULL)
    {
      SnodoExecutor *other = listen ? executor : connection->stream_executor;

      if (listen)
        executor = connection->stream_executor;
      if (snodo_executor_has_key (other, connection->owner, frame->key))
        g_set_error_literal (&error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY, "");
    }
  if (error == NULL &&
      snodo_executor_submit (executor, connection->owner, frame->key, SNODO_WORK_KIND_ASYNC, cost + frame->size,
                             snodo_server_forward_run_cb, slot, snodo_server_forward_slot_free, &error))
    return;

  /* A refused submission leaves the invocation to us: answered here, it
   * is not answered again when it goes. */
  if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY))
    snodo_invocation_return_error_literal (g_steal_pointer (slot), SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_REQUEST,
                                           _("Invalid request: the id is already in use by a request in progress"));
  else
    {
      g_autofree char *message = g_strdup_printf (_("Server overloaded: %s"), error->message);

      snodo_invocation_return_error_literal (g_steal_pointer (slot), SNODO_RPC_ERROR,
                                             SNODO_RPC_ERROR_SERVER_OVERLOADED, message);
    }
  snodo_server_forward_slot_free (slot);
}

/* The answer to a forwarded initialize settles the version of its
 * connection, and the client's capabilities, as the server's own
 * initialize does. */
static void
snodo_invocation_forward_negotiated (SnodoInvocation *self,
                                     JsonObject      *result)
{
  SnodoConnection *connection = self->connection;
  const char *text = snodo_json_object_get_string (result, "protocolVersion");
  SnodoProtocolVersion version = text != NULL ? snodo_protocol_version_from_string (text)
                                              : SNODO_PROTOCOL_VERSION_UNKNOWN;
  JsonNode *capabilities = snodo_invocation_get_param (self, "capabilities");

  if (version == SNODO_PROTOCOL_VERSION_UNKNOWN || snodo_protocol_version_is_stateless (version))
    return;
  snodo_connection_set_client_capabilities (connection,
                                            capabilities != NULL && JSON_NODE_HOLDS_OBJECT (capabilities)
                                            ? json_node_get_object (capabilities) : NULL);
  connection->legacy_version = version;
  if (connection->persistent)
    connection->era = SNODO_ERA_LEGACY;
  snodo_connection_negotiated (connection, version);
}

/**
 * snodo_invocation_return_forwarded:
 * @self: (transfer full): an invocation
 * @answer: an object holding `result` (an object) or `error` (`code`,
 *   `message` and perhaps `data`), as [method@Snodo.Client.forward_finish]
 *   returns it
 *
 * Answers the request with what another server answered, as it is: a
 * result of any kind (a 2026-07-28 `input_required` too), with nothing
 * added, or an error keeping its code, message and data. Callable once,
 * from any thread, except for `initialize`.
 *
 * The answer to `initialize` of a session of the initialize era, given on
 * the server's main context, sets the session's version: its
 * `protocolVersion`, which should be one the server enables.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_forwarded (SnodoInvocation *self,
                                JsonObject      *answer)
{
  g_autoptr(GBytes) line = NULL;
  JsonNode *result;
  JsonNode *error;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (self->server != NULL);  /* made bare, for no request */
  if (answer == NULL)
    {
      g_return_if_fail_warning (G_LOG_DOMAIN, G_STRFUNC, "answer != NULL");
      snodo_invocation_end (self, _("Internal error: the handler answered with invalid arguments"));
      g_object_unref (self);
      return;
    }

  result = json_object_get_member (answer, "result");
  error = json_object_get_member (answer, "error");
  if (error != NULL && JSON_NODE_HOLDS_OBJECT (error))
    {
      JsonObject *object = json_node_get_object (error);
      JsonNode *code = json_object_get_member (object, "code");
      const char *message = snodo_json_object_get_string (object, "message");

      if (code == NULL || !JSON_NODE_HOLDS_VALUE (code) || json_node_get_value_type (code) != G_TYPE_INT64)
        code = NULL;
      line = snodo_frame_encode_error (self->id, code != NULL ? (int) json_node_get_int (code)
                                                              : SNODO_RPC_ERROR_INTERNAL_ERROR,
                                       message != NULL ? message : _("Internal error"),
                                       json_object_get_member (object, "data"));
    }
  else if (result != NULL && JSON_NODE_HOLDS_OBJECT (result))
    {
      if (!self->dialect->stateless && self->method_entry->id == SNODO_METHOD_INITIALIZE)
        snodo_invocation_forward_negotiated (self, json_node_get_object (result));
      line = snodo_frame_encode_result (self->id, result);
    }
  else
    line = snodo_frame_encode_error (self->id, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                     _("Internal error: the answer holds neither a result nor an error"), NULL);

  if (!snodo_invocation_claim (self))
    return;
  snodo_invocation_finish (self, line);
}

/**
 * snodo_invocation_get_session:
 * @self: an invocation
 *
 * Gets the session of the request: its client's connection, which lasts
 * as long as the client's HTTP session of the initialize era or its
 * standard input and output connection (a stateless request has one of
 * its own). See [class@Snodo.Session].
 *
 * Returns: (transfer none): the session
 *
 * Since: 0.1
 */
SnodoSession *
snodo_invocation_get_session (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  g_return_val_if_fail (self->connection != NULL, NULL);

  return snodo_connection_get_session (self->connection, snodo_server_get_request_timeout (self->server));
}
