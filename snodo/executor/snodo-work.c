/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoWork, the record of one admitted piece of work: made by the
 * executor, read by the work function, completed through the hook the
 * executor gave it. The lowest of the executor's files: it calls nothing of
 * snodo-executor.c or snodo-executor-core.c. */

#include "config.h"

#include <string.h>

#include "snodo-work.h"
#include "snodo-work-private.h"

/**
 * SnodoWork:
 *
 * One piece of work admitted by a [class@Snodo.Executor].
 *
 * This is not for applications: a tool's handler gets a
 * [class@Snodo.Invocation], never a `SnodoWork`. It is for code that
 * submits work to an executor, such as a transport.
 *
 * A `SnodoWork` is created by [method@Snodo.Executor.submit] and handed to
 * the work function when the work starts. The function finds the work's
 * [class@Gio.Cancellable], key and kind here, and reports the end of the
 * work with [method@Snodo.Work.complete], exactly once, from any thread,
 * before or after it returns.
 *
 * The executor keeps the work alive until it has been completed and its
 * function has returned, so a function that completes the work later (from
 * a timer or another thread) does not need a reference of its own to do so.
 * Take one with g_object_ref() to use the work after completing it.
 *
 * Since: 0.1
 */

/* The instance struct is in snodo-work-private.h: the executor that owns
 * the work manages most of it under its own lock. This file calls nothing
 * of the executor: snodo_work_complete() goes through the hook the work
 * was made with. */

G_DEFINE_FINAL_TYPE (SnodoWork, snodo_work, G_TYPE_OBJECT)

static void
snodo_work_finalize (GObject *object)
{
  SnodoWork *self = (SnodoWork *)object;

  /* The executor holds a reference on every live work, so a work can only
   * be finalized once it has finished and given its user data back (or if
   * it never belonged to an executor: made with g_object_new(), or a
   * binding's bare constructor). */
  g_warn_if_fail (self->state == SNODO_WORK_STATE_FINISHED || self->func == NULL);
  g_warn_if_fail (self->executor == NULL);
  g_warn_if_fail (self->destroy == NULL);

  if (self->key != self->key_inline)
    g_free (self->key);
  self->key = NULL;
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (snodo_work_parent_class)->finalize (object);
}

static void
snodo_work_class_init (SnodoWorkClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_work_finalize;
}

static void
snodo_work_init (SnodoWork *self)
{
  self->state = SNODO_WORK_STATE_QUEUED;
  self->queue_link.data = self;
  self->owner_link.data = self;
}

/*
 * snodo_work_new:
 *
 * Creates the record of one admitted piece of work, and captures the
 * caller's thread-default main context for ASYNC work. The executor's part
 * (its reference, the order of admission) is for the caller to set.
 *
 * Returns: (transfer full): a new work, in the QUEUED state
 */
SnodoWork *
snodo_work_new (GObject               *owner,
                const char            *key,
                SnodoWorkKind          kind,
                gsize                  cost_bytes,
                SnodoWorkFunc          func,
                gpointer               user_data,
                GDestroyNotify         destroy,
                SnodoWorkCompleteFunc  complete)
{
  SnodoWork *self;

  g_return_val_if_fail (func != NULL, NULL);
  g_return_val_if_fail (complete != NULL, NULL);

  self = g_object_new (SNODO_TYPE_WORK, NULL);
  self->owner = owner;
  if (key != NULL)
    {
      gsize len = strlen (key);

      if (len < sizeof self->key_inline)
        self->key = memcpy (self->key_inline, key, len + 1);
      else
        self->key = g_strdup (key);
      self->key_hash = g_str_hash (self->key);
    }
  self->kind = kind;
  self->cost_bytes = cost_bytes;
  self->func = func;
  self->user_data = user_data;
  self->destroy = destroy;
  self->complete = complete;

  if (kind == SNODO_WORK_KIND_ASYNC)
    self->context = g_main_context_ref_thread_default ();

  return self;
}

/**
 * snodo_work_get_cancellable:
 * @self: a work
 *
 * The cancellable of this work. The executor cancels it when the work is
 * cancelled with [method@Snodo.Executor.cancel] or
 * [method@Snodo.Executor.cancel_owner]; a well-behaved function then ends
 * early, but it still calls [method@Snodo.Work.complete].
 *
 * The cancellable is made by the first call (from any thread); if the work
 * was cancelled before, it comes out cancelled.
 *
 * Returns: (transfer none): the work's cancellable
 *
 * Since: 0.1
 */
GCancellable *
snodo_work_get_cancellable (SnodoWork *self)
{
  GCancellable *cancellable;

  g_return_val_if_fail (SNODO_IS_WORK (self), NULL);

  cancellable = g_atomic_pointer_get (&self->cancellable);
  if (cancellable == NULL)
    {
      GCancellable *made = g_cancellable_new ();

      if (g_atomic_pointer_compare_and_exchange (&self->cancellable, NULL, made))
        {
          cancellable = made;
          /* snodo_work_cancel() sets the flag before it looks for a
           * cancellable: one of the two sees the other. */
          if (g_atomic_int_get (&self->cancelled))
            g_cancellable_cancel (cancellable);
        }
      else
        {
          g_object_unref (made);
          cancellable = g_atomic_pointer_get (&self->cancellable);
        }
    }
  return cancellable;
}

void
snodo_work_cancel (SnodoWork *self)
{
  GCancellable *cancellable;

  g_atomic_int_set (&self->cancelled, TRUE);
  cancellable = g_atomic_pointer_get (&self->cancellable);
  if (cancellable != NULL)
    g_cancellable_cancel (cancellable);
}

/**
 * snodo_work_get_key:
 * @self: a work
 *
 * The key the work was submitted with, which addresses it in
 * [method@Snodo.Executor.cancel].
 *
 * Returns: (nullable): the key, or %NULL if the work has none
 *
 * Since: 0.1
 */
const char *
snodo_work_get_key (SnodoWork *self)
{
  g_return_val_if_fail (SNODO_IS_WORK (self), NULL);

  return self->key;
}

/**
 * snodo_work_get_kind:
 * @self: a work
 *
 * How the work runs: on the submitter's main context or on a worker thread.
 *
 * Returns: the kind of the work
 *
 * Since: 0.1
 */
SnodoWorkKind
snodo_work_get_kind (SnodoWork *self)
{
  g_return_val_if_fail (SNODO_IS_WORK (self), SNODO_WORK_KIND_ASYNC);

  return self->kind;
}

/**
 * snodo_work_is_cancelled:
 * @self: a work
 *
 * Whether the work's cancellable has been cancelled. This is a shortcut for
 * g_cancellable_is_cancelled() on [method@Snodo.Work.get_cancellable], and
 * may be called from any thread.
 *
 * Returns: %TRUE if the work has been cancelled
 *
 * Since: 0.1
 */
gboolean
snodo_work_is_cancelled (SnodoWork *self)
{
  GCancellable *cancellable;

  g_return_val_if_fail (SNODO_IS_WORK (self), FALSE);

  if (g_atomic_int_get (&self->cancelled))
    return TRUE;
  /* Someone may have cancelled the cancellable itself. */
  cancellable = g_atomic_pointer_get (&self->cancellable);
  return cancellable != NULL && g_cancellable_is_cancelled (cancellable);
}

/**
 * snodo_work_complete:
 * @self: a work
 *
 * Reports that the work is done. Every work function must call this exactly
 * once, whether the work succeeded, failed or was cancelled; calling it a
 * second time is a programmer error.
 *
 * It may be called from any thread, inside the work function or after it
 * returned. Once the work has been completed and its function has returned,
 * the executor frees the running slot, calls the destroy notify given to
 * [method@Snodo.Executor.submit] (in the thread that does this, with no
 * lock held) and starts queued work.
 *
 * Since: 0.1
 */
void
snodo_work_complete (SnodoWork *self)
{
  g_return_if_fail (SNODO_IS_WORK (self));
  /* A work that no executor admitted (a binding's bare constructor). */
  g_return_if_fail (self->complete != NULL);

  if (!g_atomic_int_compare_and_exchange (&self->complete_called, FALSE, TRUE))
    {
      g_critical ("%s: the work %p (key “%s”) was already completed",
                  G_STRFUNC, self, self->key ? self->key : "(none)");
      return;
    }

  self->complete (self);
}
