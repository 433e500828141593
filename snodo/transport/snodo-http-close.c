/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* How SnodoHttpTransport closes: close_async() stops new requests, lets
 * the exchanges in progress end (their streams within write-timeout, then
 * aborted), ends every peer, and returns from the main loop once nothing
 * of libsoup's is on the stack. snodo-http-transport-private.h says which
 * file holds what. */

#include "config.h"

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-executor.h"
#include "snodo-http-listener-private.h"
#include "snodo-http-transport.h"
#include "snodo-http-transport-private.h"

/* From the main loop, once closed: the calls of close_async() return,
 * and the transport lets go of itself. The source holds a reference. */
static gboolean
snodo_http_transport_closed_cb (gpointer user_data)
{
  SnodoHttpTransport *self = user_data;
  g_autoptr(GPtrArray) tasks = g_steal_pointer (&self->close_tasks);

  self->close_tasks = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < tasks->len; i++)
    g_task_return_boolean (g_ptr_array_index (tasks, i), TRUE);

  if (self->holds_self)
    {
      self->holds_self = FALSE;
      g_object_unref (self);
    }
  return G_SOURCE_REMOVE;
}

/* Entry: CLOSING. Completes once no exchange is left. */
void
snodo_http_transport_check_closed (SnodoHttpTransport *self)
{
  GSource *source;

  if (self->state != STATE_CLOSING || g_hash_table_size (self->exchanges) > 0)
    return;

  self->state = STATE_CLOSED;
  g_clear_pointer (&self->close_timeout_source, snodo_source_destroy_and_unref);
  g_hash_table_remove_all (self->sessions);
  while (self->stateless->len > 0)
    snodo_http_peer_end (g_ptr_array_index (self->stateless, 0), TRUE);
  if (self->soup != NULL)
    {
      if (self->listener != NULL)
        snodo_http_listener_stop (self->listener);
      soup_server_remove_handler (self->soup, self->path);
      snodo_http_auth_stop (self);
      snodo_http_decode_stop (self);
      /* A server the transport was attached to is the application's: it
       * keeps serving its own paths and connections. */
      if (self->mounted)
        g_signal_handlers_disconnect_by_func (self->soup, snodo_http_exchange_finished_cb, self);
      else
        soup_server_disconnect (self->soup);
    }

  /* The last exchange usually ends inside libsoup's emission of
   * request-finished, and libsoup goes on using the SoupServer once its
   * handlers return. The callbacks of close_async() may drop the
   * application's reference, and then ours would be the last one: the
   * transport, and the SoupServer with it, would be finalized under
   * libsoup's feet. So they run from the main loop, where no libsoup
   * frame is left, and the source's reference keeps the transport alive
   * until then. */
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] http closed");
  g_source_set_callback (source, snodo_http_transport_closed_cb, g_object_ref (self), g_object_unref);
  g_source_attach (source, self->context);
  g_source_unref (source);
}

static void
abort_all (SnodoHttpTransport *self)
{
  GHashTableIter iter;
  gpointer value;
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (all, value);
  for (guint i = 0; i < self->stateless->len; i++)
    g_ptr_array_add (all, g_ptr_array_index (self->stateless, i));

  for (guint i = 0; i < all->len; i++)
    {
      Peer *peer = g_ptr_array_index (all, i);
      GHashTableIter ex_iter;
      gpointer ex;

      snodo_executor_cancel_owner (self->executor, peer->owner);
      g_hash_table_iter_init (&ex_iter, peer->exchanges);
      while (g_hash_table_iter_next (&ex_iter, NULL, &ex))
        snodo_http_exchange_abort (ex);
      if (peer->standalone != NULL)
        snodo_http_exchange_abort (peer->standalone);
    }
}

static gboolean
snodo_http_transport_close_timeout_cb (gpointer user_data)
{
  SnodoHttpTransport *self = user_data;

  g_clear_pointer (&self->close_timeout_source, g_source_unref);
  g_debug ("HTTP streams did not finish in %u ms; ending them", self->write_timeout);
  abort_all (self);
  return G_SOURCE_REMOVE;
}

/**
 * snodo_http_transport_close_async:
 * @self: a transport
 * @cancellable: (nullable): a cancellable, which only stops waiting
 * @callback: (scope async) (closure user_data): called when the transport has closed
 * @user_data: data for @callback
 *
 * Closes the transport: new requests are refused (503), subscriptions end
 * gracefully (with their result), session streams end, and requests in
 * progress may finish and write their answers. Whatever has not finished
 * after [property@Snodo.HttpTransport:write-timeout] is cancelled and its
 * connection closed. Then the transport stops listening.
 *
 * Since: 0.1
 */
void
snodo_http_transport_close_async (SnodoHttpTransport  *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) peers = NULL;
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_http_transport_close_async);
  g_task_set_name (task, G_STRFUNC);
  g_task_set_return_on_cancel (task, TRUE);

  switch (self->state)
    {
    case STATE_CLOSED:
      g_task_return_boolean (task, TRUE);
      return;

    case STATE_CLOSING:
      g_ptr_array_add (self->close_tasks, g_steal_pointer (&task));
      return;

    case STATE_NEW:
    case STATE_LISTENING:
    default:
      break;
    }

  g_ptr_array_add (self->close_tasks, g_steal_pointer (&task));
  self->state = STATE_CLOSING;
  g_clear_pointer (&self->sweep_source, snodo_source_destroy_and_unref);

  peers = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (peers, value);
  for (guint i = 0; i < self->stateless->len; i++)
    g_ptr_array_add (peers, g_ptr_array_index (self->stateless, i));

  for (guint i = 0; i < peers->len; i++)
    {
      Peer *peer = g_ptr_array_index (peers, i);

      /* Subscriptions answer now, which ends their streams. */
      snodo_server_connection_draining (self->server, peer->connection);
      if (peer->standalone != NULL)
        snodo_http_exchange_end (peer->standalone, SOUP_STATUS_OK);
    }

  self->close_timeout_source = g_timeout_source_new (self->write_timeout);
  g_source_set_static_name (self->close_timeout_source, "[snodo] http close timeout");
  g_source_set_callback (self->close_timeout_source, snodo_http_transport_close_timeout_cb, self, NULL);
  g_source_attach (self->close_timeout_source, self->context);

  snodo_http_transport_check_closed (self);
}

/**
 * snodo_http_transport_close_finish:
 * @self: a transport
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [method@Snodo.HttpTransport.close_async].
 *
 * Returns: %TRUE once closed; %FALSE only if the wait was cancelled
 *
 * Since: 0.1
 */
gboolean
snodo_http_transport_close_finish (SnodoHttpTransport  *self,
                                   GAsyncResult        *result,
                                   GError             **error)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
