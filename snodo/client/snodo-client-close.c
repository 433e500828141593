/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Closing a SnodoClient: the pending requests fail, the server's input is
 * closed, and a server the client started is given a grace period, then
 * SIGTERM, then SIGKILL (snodo_client_close_async()). */

#include "config.h"

#include <glib.h>

#ifdef G_OS_UNIX
# include <signal.h>
#endif

#include "snodo-client.h"
#include "snodo-client-private.h"

#include "snodo-base-private.h"
#include "snodo-features.h"
#include "snodo-wire-private.h"

#define CLIENT_CLOSE_GRACE_MS   2000

typedef struct
{
  /* The grace timer, attached to the client's context. Owned. */
  GSource *timer;
  /* 0: the server's input is closed; 1: SIGTERM sent; 2: SIGKILL sent. */
  guint stage;
} CloseState;

static void
close_state_free (CloseState *state)
{
  g_clear_pointer (&state->timer, snodo_source_destroy_and_unref);
  g_free (state);
}

static void snodo_client_close_arm (GTask *task);

static gboolean
snodo_client_close_timer_cb (gpointer user_data)
{
  GTask *task = user_data;
  SnodoClient *self = g_task_get_source_object (task);
  CloseState *state = g_task_get_task_data (task);

  g_clear_pointer (&state->timer, g_source_unref);
  if (state->stage == 0)
    {
      g_debug ("The server did not exit when its input ended: SIGTERM");
#ifdef G_OS_UNIX
      g_subprocess_send_signal (self->subprocess, SIGTERM);
#else
      g_subprocess_force_exit (self->subprocess);
#endif
      state->stage = 1;
      snodo_client_close_arm (task);
    }
  else
    {
      g_debug ("The server did not exit on SIGTERM: SIGKILL");
      g_subprocess_force_exit (self->subprocess);
      state->stage = 2;
    }
  return G_SOURCE_REMOVE;
}

static void
snodo_client_close_arm (GTask *task)
{
  SnodoClient *self = g_task_get_source_object (task);
  CloseState *state = g_task_get_task_data (task);

  state->timer = g_timeout_source_new (CLIENT_CLOSE_GRACE_MS);
  g_source_set_static_name (state->timer, "[snodo] client close grace");
  /* The wait holds the task; the timer never outlives it. */
  g_source_set_callback (state->timer, snodo_client_close_timer_cb, task, NULL);
  g_source_attach (state->timer, self->context);
}

static void
snodo_client_close_wait_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  CloseState *state = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&state->timer, snodo_source_destroy_and_unref);
  if (!g_subprocess_wait_finish (G_SUBPROCESS (source), result, &error))
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_boolean (task, TRUE);
}

static void
snodo_client_close_stream_cb (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  g_autoptr(GError) error = NULL;

  /* A stream that a writer thread still uses may refuse: the connection
   * is over all the same. */
  if (!g_output_stream_close_finish (G_OUTPUT_STREAM (source), result, &error))
    g_debug ("Closing the server's input: %s", error->message);
  g_task_return_boolean (task, TRUE);
}

/**
 * snodo_client_close_async:
 * @self: a client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called when the client is closed
 * @user_data: data for @callback
 *
 * Ends the connection: every pending request fails with
 * %G_IO_ERROR_CLOSED and the server's input is closed. For a server the
 * client started, the operation finishes when the server has exited: it
 * gets `SIGTERM` when it is still running two seconds after its input
 * ended, and `SIGKILL` two seconds after that.
 *
 * Since: 0.1
 */
void
snodo_client_close_async (SnodoClient         *self,
                          GCancellable        *cancellable,
                          GAsyncReadyCallback  callback,
                          gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GError) error = NULL;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_client_close_async);
  g_task_set_name (task, G_STRFUNC);

  error = g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED, _("The client was closed"));
  snodo_client_stop (self, error);

#if SNODO_HAS_HTTP_TRANSPORT
  if (self->http != NULL)
    {
      snodo_client_http_close (self, g_steal_pointer (&task));
      return;
    }
#endif
  if (self->subprocess != NULL)
    {
      g_task_set_task_data (task, g_new0 (CloseState, 1), (GDestroyNotify) close_state_free);
      /* Closing a pipe does not block. */
      g_output_stream_close (self->output, NULL, NULL);
      snodo_client_close_arm (task);
      g_subprocess_wait_async (self->subprocess, NULL, snodo_client_close_wait_cb,
                               g_steal_pointer (&task));
    }
  else
    g_output_stream_close_async (self->output, G_PRIORITY_DEFAULT, NULL,
                                 snodo_client_close_stream_cb, g_steal_pointer (&task));
}

/**
 * snodo_client_close_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.close_async].
 *
 * Returns: %TRUE once the connection is closed (and a server the client
 *   started has exited)
 *
 * Since: 0.1
 */
gboolean
snodo_client_close_finish (SnodoClient   *self,
                           GAsyncResult  *result,
                           GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
