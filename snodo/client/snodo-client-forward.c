/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient: a request forwarded as it is, for a proxy that stands
 * between another client and the server (snodo proxy): the caller's params
 * go unchanged, and the whole answer comes back. */

#include "config.h"

#include "snodo-client-private.h"

/**
 * snodo_client_forward_async:
 * @self: a connected client
 * @id: the id to send the request with, unique among the requests the
 *   caller forwards that are in flight (the client's own ids are integers,
 *   never strings)
 * @method: the method, any the server may know
 * @params: (nullable): the params as the other client sent them, with its
 *   own `_meta` (its 2026-07-28 envelope, its `progressToken`); not
 *   modified
 * @cancellable: (nullable): a #GCancellable; cancelling tells the server,
 *   as for any request
 * @callback: (scope async) (closure user_data): called with the answer
 * @user_data: data for @callback
 *
 * Sends a request for another client, as it is: unlike
 * [method@Snodo.Client.request_async], the client adds no envelope and no
 * progress token of its own, and does not answer an `input_required`
 * result itself. The server's progress and other notifications about it
 * are emitted as [signal@Snodo.Client::notification], with the other
 * client's token; those naming the request by its id (a subscription's
 * `io.modelcontextprotocol/subscriptionId`, the server's
 * `notifications/cancelled` of a `subscriptions/listen`) name it by @id.
 *
 * Over HTTP the request carries the headers of the version spoken, as any
 * request does, so the params should be of that version.
 *
 * Since: 0.1
 */
void
snodo_client_forward_async (SnodoClient         *self,
                            const char          *id,
                            const char          *method,
                            JsonObject          *params,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task;
  JsonObject *copy = NULL;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (id != NULL);
  g_return_if_fail (method != NULL && *method != '\0');
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_client_forward_async);
  g_task_set_name (task, G_STRFUNC);

  if (params != NULL)
    copy = snodo_client_copy_params (params);
  snodo_client_start_raw_request (self, id, method, copy, cancellable, task);
}

/**
 * snodo_client_forward_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.forward_async].
 *
 * Returns: (transfer full): the server's answer: an object holding either
 *   `result`, whatever its `resultType`, or `error` (`code`, `message`,
 *   `data`), as the server sent it; or %NULL with @error set when no answer
 *   came (the connection failed, the request was cancelled or timed out)
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_forward_finish (SnodoClient   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == snodo_client_forward_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
