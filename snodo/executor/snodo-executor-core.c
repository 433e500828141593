/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The executor's core: its state machine under the lock, and the delivery
 * of started work to its main context (one dispatch source per context)
 * or to a worker thread. snodo-executor.c, the GObject and its public API,
 * drives it; it calls nothing of that file (see
 * snodo-executor-core-private.h). */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-executor.h"
#include "snodo-executor-core-private.h"
#include "snodo-executor-private.h"
#include "snodo-work-private.h"

static void snodo_executor_run_work (SnodoWork *work);

static void
snodo_executor_actions_add (ActionList *list,
                            gpointer    item)
{
  if (list->heap == NULL && list->len < ACTION_LIST_INLINE)
    {
      list->inline_items[list->len++] = item;
      return;
    }
  if (list->heap == NULL)
    {
      list->size = 2 * ACTION_LIST_INLINE;
      list->heap = g_new (gpointer, list->size);
      memcpy (list->heap, list->inline_items, sizeof list->inline_items);
    }
  else if (list->len == list->size)
    {
      list->size *= 2;
      list->heap = g_renew (gpointer, list->heap, list->size);
    }
  list->heap[list->len++] = item;
}

static void
action_list_clear (ActionList *list)
{
  /* The inline items need no clearing: @len says what is there. */
  g_clear_pointer (&list->heap, g_free);
  list->len = 0;
  list->size = 0;
}

/* Moves @work from its queue (or from nowhere, for a new work) to RUNNING,
 * taking a running slot and, for BLOCKING work, a thread. */
void
snodo_executor_start_locked (SnodoExecutor        *self,
                             SnodoWork            *work,
                             SnodoExecutorActions *actions)
{
  work->state = SNODO_WORK_STATE_RUNNING;
  self->n_running++;
  if (work->kind == SNODO_WORK_KIND_BLOCKING)
    self->n_threads++;
  snodo_executor_actions_add (&actions->start, g_object_ref (work));
}

GQueue *
snodo_executor_queue_for (SnodoExecutor *self,
                          SnodoWork     *work)
{
  return work->kind == SNODO_WORK_KIND_BLOCKING ? &self->queued_blocking : &self->queued_async;
}

/* Starts queued works, oldest first, while they can start. Called after
 * anything that frees a running slot or a thread, or raises a limit, so that
 * no queued work is ever startable once the lock is released. */
void
snodo_executor_take_startable_locked (SnodoExecutor        *self,
                                      SnodoExecutorActions *actions)
{
  while (self->n_running < self->max_running)
    {
      SnodoWork *async = g_queue_peek_head (&self->queued_async);
      SnodoWork *blocking = NULL;
      SnodoWork *next;

      if (self->n_threads < self->max_threads)
        blocking = g_queue_peek_head (&self->queued_blocking);

      if (async != NULL && blocking != NULL)
        next = async->seq < blocking->seq ? async : blocking;
      else
        next = async != NULL ? async : blocking;

      if (next == NULL)
        break;

      g_queue_unlink (snodo_executor_queue_for (self, next), &next->queue_link);
      self->queued_bytes -= next->cost_bytes;
      snodo_executor_start_locked (self, next, actions);
    }
}

/* A work that costs this much has its memory given back to the system
 * when it ends (snodo_memory_give_back()). */
#define SNODO_EXECUTOR_LARGE_WORK_BYTES (1024 * 1024)

#define KEY_TABLE_MIN_SLOTS 16
/* An empty table larger than this gives its memory back. */
#define KEY_TABLE_KEEP_SLOTS 256

SnodoWork *
snodo_key_table_lookup (SnodoKeyTable *table,
                        const char    *key)
{
  guint hash;

  if (table->count == 0)
    return NULL;

  /* As snodo_work_new() hashes the keys of works. */
  hash = g_str_hash (key);

  for (guint i = hash & table->mask; table->slots[i] != NULL; i = (i + 1) & table->mask)
    {
      SnodoWork *work = table->slots[i];

      if (work->key_hash == hash && strcmp (work->key, key) == 0)
        return work;
    }
  return NULL;
}

static void
snodo_key_table_put (SnodoKeyTable *table,
                     SnodoWork     *work)
{
  guint i = work->key_hash & table->mask;

  while (table->slots[i] != NULL)
    i = (i + 1) & table->mask;
  table->slots[i] = work;
}

void
snodo_key_table_add (SnodoKeyTable *table,
                     SnodoWork     *work)
{
  /* At most half full. */
  if (table->slots == NULL || 2 * (table->count + 1) > table->mask + 1)
    {
      SnodoWork **old = table->slots;
      guint n_old = old != NULL ? table->mask + 1 : 0;
      guint n = MAX (KEY_TABLE_MIN_SLOTS, 2 * n_old);

      table->slots = g_new0 (SnodoWork *, n);
      table->mask = n - 1;
      for (guint i = 0; i < n_old; i++)
        if (old[i] != NULL)
          snodo_key_table_put (table, old[i]);
      g_free (old);
    }

  snodo_key_table_put (table, work);
  table->count++;
}

void
snodo_key_table_remove (SnodoKeyTable *table,
                        SnodoWork     *work)
{
  guint i = work->key_hash & table->mask;
  guint j;

  while (table->slots[i] != work)
    {
      g_assert (table->slots[i] != NULL);
      i = (i + 1) & table->mask;
    }

  /* Shift back the works after the hole that would not be found past it
   * any more: those whose home slot is not in (hole, their slot]. */
  table->slots[i] = NULL;
  for (j = (i + 1) & table->mask; table->slots[j] != NULL; j = (j + 1) & table->mask)
    {
      guint home = table->slots[j]->key_hash & table->mask;
      gboolean stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);

      if (stays)
        continue;
      table->slots[i] = table->slots[j];
      table->slots[j] = NULL;
      i = j;
    }

  table->count--;
  if (table->count == 0 && table->mask + 1 > KEY_TABLE_KEEP_SLOTS)
    snodo_key_table_clear (table);
}

void
snodo_key_table_clear (SnodoKeyTable *table)
{
  g_clear_pointer (&table->slots, g_free);
  table->mask = 0;
  table->count = 0;
}

void
snodo_executor_owner_free (SnodoExecutorOwner *owner)
{
  g_assert (owner->works.length == 0);
  snodo_key_table_clear (&owner->keys);
  g_free (owner);
}

SnodoExecutorOwner *
snodo_executor_get_owner_locked (SnodoExecutor *self,
                                 GObject       *owner)
{
  SnodoExecutorOwner *entry = g_hash_table_lookup (self->owners, owner);

  if (entry == NULL)
    {
      entry = g_steal_pointer (&self->spare_owner);
      if (entry == NULL)
        entry = g_new0 (SnodoExecutorOwner, 1);
      entry->owner = owner;
      g_hash_table_insert (self->owners, owner, entry);
    }
  else if (entry == self->idle_owner)
    self->idle_owner = NULL;

  return entry;
}

gboolean
snodo_executor_has_live_work_locked (SnodoExecutor *self,
                                     GObject       *owner)
{
  SnodoExecutorOwner *entry = g_hash_table_lookup (self->owners, owner);

  return entry != NULL && entry->works.length > 0;
}

void
snodo_executor_drop_key_locked (SnodoExecutor *self,
                                SnodoWork     *work)
{
  if (!work->key_held)
    return;
  /* Held: the table maps the key to this work, as no other live work of
   * the owner may take it meanwhile. */
  work->key_held = FALSE;
  snodo_key_table_remove (&work->owner_entry->keys, work);
}

/* @entry has no live work left: it stays in @owners as the idle one, and
 * the idle one before it is taken out. */
static void
snodo_executor_owner_idle_locked (SnodoExecutor      *self,
                                  SnodoExecutorOwner *entry)
{
  SnodoExecutorOwner *old = self->idle_owner;

  self->idle_owner = entry;
  if (old == NULL || old == entry)
    return;

  g_hash_table_steal (self->owners, old->owner);
  old->owner = NULL;
  if (self->spare_owner == NULL)
    self->spare_owner = old;
  else
    snodo_executor_owner_free (old);
}

/* Takes @work off its owner's list; @work is no longer live. Completes the
 * wait_owner_async() calls of the owner if it has no live work left. The
 * executor's reference on @work and @work's reference on the executor go to
 * @actions. */
static void
snodo_executor_retire_locked (SnodoExecutor        *self,
                              SnodoWork            *work,
                              SnodoExecutorActions *actions)
{
  SnodoExecutorOwner *owner = work->owner_entry;

  g_assert (owner != NULL);

  work->state = SNODO_WORK_STATE_FINISHED;
  self->live_bytes -= work->cost_bytes;
  /* What a large request held is freed with it: the system gets it back. */
  if (G_UNLIKELY (work->cost_bytes >= SNODO_EXECUTOR_LARGE_WORK_BYTES))
    snodo_memory_give_back (work->cost_bytes);

  g_queue_unlink (&owner->works, &work->owner_link);
  snodo_executor_drop_key_locked (self, work);
  work->owner_entry = NULL;

  if (owner->works.length == 0)
    {
      GList *l = self->waiters.head;

      snodo_executor_owner_idle_locked (self, owner);

      while (l != NULL)
        {
          GList *next = l->next;
          GTask *task = l->data;
          WaitOwnerState *state = g_task_get_task_data (task);

          if (state->owner == work->owner)
            {
              g_queue_delete_link (&self->waiters, l);
              snodo_executor_actions_add (&actions->waiters, task);
            }
          l = next;
        }
    }

  snodo_executor_actions_add (&actions->finished, work);
  snodo_executor_actions_add (&actions->unref, work);
  snodo_executor_actions_add (&actions->unref, g_steal_pointer (&work->executor));
}

/* State on entry: RUNNING, completed and returned. */
static void
snodo_executor_finish_locked (SnodoExecutor        *self,
                              SnodoWork            *work,
                              SnodoExecutorActions *actions)
{
  g_assert (work->state == SNODO_WORK_STATE_RUNNING);
  g_assert (work->completed && work->returned);

  self->n_running--;
  self->completed++;
  snodo_executor_retire_locked (self, work, actions);
  snodo_executor_take_startable_locked (self, actions);
}

/* State on entry: QUEUED or RUNNING. */
void
snodo_executor_cancel_work_locked (SnodoExecutor        *self,
                                   SnodoWork            *work,
                                   SnodoExecutorActions *actions)
{
  switch (work->state)
    {
    case SNODO_WORK_STATE_QUEUED:
      g_queue_unlink (snodo_executor_queue_for (self, work), &work->queue_link);
      self->queued_bytes -= work->cost_bytes;
      self->cancelled++;
      snodo_executor_actions_add (&actions->cancel, g_object_ref (work));
      snodo_executor_retire_locked (self, work, actions);
      break;

    case SNODO_WORK_STATE_RUNNING:
      if (!work->cancel_requested)
        {
          work->cancel_requested = TRUE;
          self->cancelled++;
          snodo_executor_actions_add (&actions->cancel, g_object_ref (work));
        }
      break;

    case SNODO_WORK_STATE_FINISHED:
    default:
      g_assert_not_reached ();
    }
}

/* Cancels every live work of @owner; returns how many there were. */
guint
snodo_executor_cancel_owner_locked (SnodoExecutor        *self,
                                    GObject              *owner,
                                    SnodoExecutorActions *actions)
{
  SnodoExecutorOwner *entry = g_hash_table_lookup (self->owners, owner);
  GList *l;
  guint n;

  if (entry == NULL)
    return 0;

  n = entry->works.length;

  /* Dropping a queued work unlinks it, and dropping the last one frees
   * @entry: read the next link first, and never touch @entry again after
   * the last element. */
  l = entry->works.head;
  while (l != NULL)
    {
      GList *next = l->next;

      snodo_executor_cancel_work_locked (self, l->data, actions);
      l = next;
    }

  return n;
}

/* One source per main context that runs the ASYNC works started for it,
 * in order, a bounded batch per dispatch so that I/O sources of the same
 * priority get their turn: one wake-up for many works, instead of an idle
 * source made and freed for each.
 *
 * It is ready while its queue holds work (prepare and check look, and GLib
 * calls them without the context locked). A work started from the thread
 * that runs the context needs no wake-up, as the context looks again
 * before it polls; one started from another thread wakes it.
 *
 * The transport that submitted the works may also run them itself, from
 * its own callback on the same context once its submissions are done
 * (snodo_executor_run_started()), which spares a turn of the main loop.
 * Either way the works of one source never run inside one another: while a
 * batch runs, the source is not ready and run_started() runs nothing, as
 * GLib keeps a source that is being dispatched from being dispatched again
 * by a work function that iterates the context. */
typedef struct
{
  GSource        source;
  GMutex         lock;
  /* SnodoWork, one reference each, linked through their queue_link (free
   * once a work runs). Under @lock. */
  GQueue         works;
  /* A batch is running. Only touched on the thread that runs the
   * context. */
  gboolean       running;
} DispatchSource;

#define DISPATCH_BATCH 32

/* On the thread that runs the context, not running already. Runs one
 * batch; returns how many works ran. */
static guint
dispatch_source_run (DispatchSource *self)
{
  SnodoWork *batch[DISPATCH_BATCH];
  guint n = 0;

  g_mutex_lock (&self->lock);
  while (n < DISPATCH_BATCH && !g_queue_is_empty (&self->works))
    batch[n++] = g_queue_pop_head_link (&self->works)->data;
  g_mutex_unlock (&self->lock);

  if (n == 0)
    return 0;

  /* A work that finishes may drop the last reference on the executor,
   * which destroys this source: the caller holds it. */
  self->running = TRUE;
  for (guint i = 0; i < n; i++)
    {
      snodo_executor_run_work (batch[i]);
      g_object_unref (batch[i]);
    }
  self->running = FALSE;

  return n;
}

static gboolean
dispatch_source_dispatch (GSource     *source,
                          GSourceFunc  callback,
                          gpointer     user_data)
{
  /* The context holds @source while it dispatches it. */
  dispatch_source_run ((DispatchSource *) source);

  return G_SOURCE_CONTINUE;
}

static gboolean
dispatch_source_check (GSource *source)
{
  DispatchSource *self = (DispatchSource *) source;
  gboolean ready;

  if (self->running)
    return FALSE;

  g_mutex_lock (&self->lock);
  ready = !g_queue_is_empty (&self->works);
  g_mutex_unlock (&self->lock);

  return ready;
}

static gboolean
dispatch_source_prepare (GSource *source,
                         gint    *timeout)
{
  gboolean ready = dispatch_source_check (source);

  *timeout = ready ? 0 : -1;
  return ready;
}

static void
dispatch_source_finalize (GSource *source)
{
  DispatchSource *self = (DispatchSource *) source;

  GList *link;

  while ((link = g_queue_pop_head_link (&self->works)) != NULL)
    g_object_unref (link->data);
  g_mutex_clear (&self->lock);
}

static GSourceFuncs dispatch_source_funcs = {
  .prepare = dispatch_source_prepare,
  .check = dispatch_source_check,
  .dispatch = dispatch_source_dispatch,
  .finalize = dispatch_source_finalize,
};

static DispatchSource *
snodo_executor_get_dispatch_source (SnodoExecutor *self,
                                    GMainContext  *context)
{
  DispatchSource *found;
  GSource *source;

  g_mutex_lock (&self->lock);
  if (context == self->last_context)
    found = self->last_dispatch;
  else
    found = g_hash_table_lookup (self->dispatch_sources, context);
  if (found != NULL)
    {
      self->last_context = context;
      self->last_dispatch = found;
    }
  g_mutex_unlock (&self->lock);
  if (found != NULL)
    return found;

  /* Made and attached without the lock; another thread may win the race. */
  source = g_source_new (&dispatch_source_funcs, sizeof (DispatchSource));
  g_mutex_init (&((DispatchSource *) source)->lock);
  g_queue_init (&((DispatchSource *) source)->works);
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] executor work");
  g_source_attach (source, context);

  g_mutex_lock (&self->lock);
  found = g_hash_table_lookup (self->dispatch_sources, context);
  if (found == NULL)
    {
      g_hash_table_insert (self->dispatch_sources, g_main_context_ref (context), source);
      found = (DispatchSource *) source;
      source = NULL;
    }
  g_mutex_unlock (&self->lock);

  if (source != NULL)
    {
      g_source_destroy (source);
      g_source_unref (source);
    }
  return found;
}

/* Hands a work that just started to its main context or to a worker thread.
 * Takes the reference in @work. */
static void
snodo_executor_deliver (SnodoExecutor *self,
                        SnodoWork     *work)
{
  if (work->kind == SNODO_WORK_KIND_ASYNC)
    {
      DispatchSource *source = snodo_executor_get_dispatch_source (self, work->context);

      GMainContext *context = work->context;
      gboolean wake;

      g_mutex_lock (&source->lock);
      g_queue_push_tail_link (&source->works, &work->queue_link);
      wake = source->works.length == 1;
      g_mutex_unlock (&source->lock);

      if (wake && !g_main_context_is_owner (context))
        g_main_context_wakeup (context);
    }
  else
    {
      g_autoptr(GError) error = NULL;

      /* On failure the work stays in the pool's queue for a thread that
       * already exists; say so, there is nothing better to do. */
      if (!g_thread_pool_push (self->pool, work, &error))
        g_warning ("Could not start a worker thread: %s", error->message);
    }
}

/* See snodo-executor-private.h. */
guint
snodo_executor_run_started (SnodoExecutor *self,
                            GMainContext  *context)
{
  DispatchSource *source;
  guint n = 0;

  /* The caller's reference keeps @self, and so its sources, alive. */
  g_mutex_lock (&self->lock);
  if (context == self->last_context)
    source = self->last_dispatch;
  else
    source = g_hash_table_lookup (self->dispatch_sources, context);
  g_mutex_unlock (&self->lock);

  if (source != NULL && !source->running && g_main_context_is_owner (context))
    n = dispatch_source_run (source);

  return n;
}

/* Does, without the lock, what the state changes recorded in @actions ask
 * for, and resets @actions. @self may be finalized by the last step, so the
 * caller must not touch it afterwards unless it holds a reference. */
void
snodo_executor_actions_run (SnodoExecutor        *self,
                            SnodoExecutorActions *actions)
{
  /* Often nothing: a work whose function returned before it completed. A
   * list that is empty holds no memory either. */
  if ((actions->cancel.len | actions->start.len | actions->finished.len |
       actions->waiters.len | actions->unref.len) == 0)
    return;

  if (actions->cancel.len > 0)
    {
      for (guint i = 0; i < actions->cancel.len; i++)
        {
          SnodoWork *work = action_list_index (&actions->cancel, i);

          snodo_work_cancel (work);
          g_object_unref (work);
        }
    }
  action_list_clear (&actions->cancel);

  for (guint i = 0; i < actions->start.len; i++)
    snodo_executor_deliver (self, action_list_index (&actions->start, i));
  action_list_clear (&actions->start);

  for (guint i = 0; i < actions->finished.len; i++)
    {
      SnodoWork *work = action_list_index (&actions->finished, i);
      GDestroyNotify destroy = g_steal_pointer (&work->destroy);
      gpointer user_data = g_steal_pointer (&work->user_data);

      work->func = NULL;
      if (destroy != NULL)
        destroy (user_data);
    }
  action_list_clear (&actions->finished);

  /* After the destroy notifies: an owner that waited for its work may free
   * what the user data pointed to. */
  for (guint i = 0; i < actions->waiters.len; i++)
    {
      GTask *task = action_list_index (&actions->waiters, i);
      WaitOwnerState *state = g_task_get_task_data (task);

      if (state->cancel_source != NULL)
        g_source_destroy (state->cancel_source);
      g_task_return_boolean (task, TRUE);
      g_object_unref (task);
    }
  action_list_clear (&actions->waiters);

  if (actions->unref.len > 0)
    {
      /* Taken out first: the last unref may finalize the executor. */
      ActionList unref = actions->unref;

      memset (&actions->unref, 0, sizeof actions->unref);
      for (guint i = 0; i < unref.len; i++)
        g_object_unref (action_list_index (&unref, i));
      g_free (unref.heap);
    }
}

/* Calls the function of a RUNNING work, in its context or worker thread.
 * @work is kept alive by the caller. */
static void
snodo_executor_run_work (SnodoWork *work)
{
  /* Stable until the work finishes, which needs the function to return. */
  SnodoExecutor *self = g_object_ref (work->executor);
  SnodoExecutorActions actions = { { 0, }, };

  work->func (work, work->user_data);

  g_mutex_lock (&self->lock);
  work->returned = TRUE;
  if (work->completed)
    snodo_executor_finish_locked (self, work, &actions);
  g_mutex_unlock (&self->lock);

  snodo_executor_actions_run (self, &actions);

  /* The thread is given back only now, after the destroy notify that may
   * have run above, so that no more than max-threads pool threads are ever
   * busy with this executor. */
  if (work->kind == SNODO_WORK_KIND_BLOCKING)
    {
      g_mutex_lock (&self->lock);
      self->n_threads--;
      snodo_executor_take_startable_locked (self, &actions);
      g_mutex_unlock (&self->lock);

      snodo_executor_actions_run (self, &actions);
    }

  g_object_unref (self);
}

void
snodo_executor_thread_cb (gpointer data,
                          gpointer user_data)
{
  g_autoptr(SnodoWork) work = data;

  snodo_executor_run_work (work);
}

/*
 * snodo_executor_work_completed:
 *
 * The executor's side of snodo_work_complete(): the hook every work is made
 * with. State on entry: RUNNING and not yet completed.
 */
void
snodo_executor_work_completed (SnodoWork *work)
{
  /* Stable while the work runs: it is only taken when the work finishes. */
  SnodoExecutor *self = work->executor;
  SnodoExecutorActions actions = { { 0, }, };

  /* Finishing drops the executor's reference on @work and @work's on
   * @self: keep both alive until the end. */
  g_object_ref (self);
  g_object_ref (work);

  g_mutex_lock (&self->lock);
  g_assert (work->state == SNODO_WORK_STATE_RUNNING);
  g_assert (!work->completed);
  work->completed = TRUE;
  if (work->returned)
    snodo_executor_finish_locked (self, work, &actions);
  g_mutex_unlock (&self->lock);

  snodo_executor_actions_run (self, &actions);

  g_object_unref (work);
  g_object_unref (self);
}
