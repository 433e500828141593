/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoExecutor: waiting until an owner has no live work
 * (snodo_executor_wait_owner_async()). A wait is queued under the lock and
 * completed by the transitions of snodo-executor-core.c when the owner's
 * last work ends; a wait for an owner with no live work completes from an
 * idle source, never from inside the call. */

#include "config.h"

#include "snodo-executor.h"
#include "snodo-base-private.h"
#include "snodo-executor-core-private.h"
#include "snodo-executor-private.h"

static gboolean snodo_executor_wait_owner_idle_cb     (gpointer      user_data);
static gboolean snodo_executor_wait_owner_cancelled_cb (GCancellable *cancellable,
                                                        gpointer      user_data);

static void
wait_owner_state_free (gpointer data)
{
  WaitOwnerState *state = data;

  g_clear_pointer (&state->cancel_source, g_source_unref);
  g_free (state);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WaitOwnerState, wait_owner_state_free)

/**
 * snodo_executor_wait_owner_async:
 * @self: an executor
 * @owner: the owner to wait for
 * @cancellable: (nullable): a cancellable
 * @callback: (scope async) (closure user_data): called when @owner has no
 *   live work
 * @user_data: data for @callback
 *
 * Waits until @owner has no live work: every work submitted for it has
 * finished (its destroy notify included) or was dropped from the queue.
 * If @owner has no live work now, the wait completes at the next iteration of
 * the main context, never from inside this call.
 *
 * Waiting does not stop new work from being admitted; a transport that
 * closes cancels its work with [method@Snodo.Executor.cancel_owner] and stops
 * submitting first. @callback is called in the thread-default main context
 * of the caller.
 *
 * Since: 0.1
 */
void
snodo_executor_wait_owner_async (SnodoExecutor       *self,
                                 GObject             *owner,
                                 GCancellable        *cancellable,
                                 GAsyncReadyCallback  callback,
                                 gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  WaitOwnerState *state;
  gboolean waiting = FALSE;

  g_return_if_fail (SNODO_IS_EXECUTOR (self));
  g_return_if_fail (owner != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_executor_wait_owner_async);
  g_task_set_name (task, G_STRFUNC);

  state = g_new0 (WaitOwnerState, 1);
  state->owner = owner;
  g_task_set_task_data (task, state, wait_owner_state_free);

  /* Attach the cancellation watch before the task can be completed by
   * another thread. It only fires after the cancellable has been cancelled,
   * so checking the cancellable under the lock below is enough to never
   * miss a cancellation. */
  if (cancellable != NULL)
    {
      state->cancel_source = g_cancellable_source_new (cancellable);
      g_task_attach_source (task, state->cancel_source,
                            G_SOURCE_FUNC (snodo_executor_wait_owner_cancelled_cb));
    }

  g_mutex_lock (&self->lock);
  if (snodo_executor_has_live_work_locked (self, owner) &&
      !g_cancellable_is_cancelled (cancellable))
    {
      g_queue_push_tail (&self->waiters, g_object_ref (task));
      waiting = TRUE;
    }
  g_mutex_unlock (&self->lock);

  if (!waiting)
    {
      GSource *source;

      if (state->cancel_source != NULL)
        g_source_destroy (state->cancel_source);

      /* Completes with TRUE, or with G_IO_ERROR_CANCELLED if @cancellable
       * is cancelled by then (the task checks it). */
      source = g_idle_source_new ();
      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_task_attach_source (task, source, snodo_executor_wait_owner_idle_cb);
      g_source_unref (source);
    }
}

static gboolean
snodo_executor_wait_owner_idle_cb (gpointer user_data)
{
  GTask *task = user_data;

  g_task_return_boolean (task, TRUE);

  return G_SOURCE_REMOVE;
}

static gboolean
snodo_executor_wait_owner_cancelled_cb (GCancellable *cancellable,
                                        gpointer      user_data)
{
  GTask *task = user_data;
  SnodoExecutor *self = g_task_get_source_object (task);
  gboolean found;

  /* If the owner's last work finished meanwhile, the task has been taken
   * from the queue and completes (with the cancellation error, since the
   * task checks its cancellable); otherwise complete it here. */
  g_mutex_lock (&self->lock);
  found = g_queue_remove (&self->waiters, task);
  g_mutex_unlock (&self->lock);

  if (found)
    {
      g_task_return_error_if_cancelled (task);
      g_object_unref (task);
    }

  return G_SOURCE_REMOVE;
}

/**
 * snodo_executor_wait_owner_finish:
 * @self: an executor
 * @result: the result given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Executor.wait_owner_async].
 *
 * Returns: %TRUE once the owner has no live work; %FALSE with
 *   %G_IO_ERROR_CANCELLED if the wait was cancelled
 *
 * Since: 0.1
 */
gboolean
snodo_executor_wait_owner_finish (SnodoExecutor  *self,
                                  GAsyncResult   *result,
                                  GError        **error)
{
  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == snodo_executor_wait_owner_async,
                        FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
