/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-executor.h"
#include "snodo-work-private.h"

G_BEGIN_DECLS

/*
 * The executor's state, shared by its two files and nothing else:
 *
 * - snodo-executor-core.c: the state machine under the lock (admitted,
 *   queued, running, finished; owners and keys; the queues), what it asks
 *   for once the lock is released (SnodoExecutorActions), and the delivery
 *   of started work: the per-context dispatch source for ASYNC work, the
 *   worker threads for BLOCKING work, and the work's completion hook.
 * - snodo-executor.c: the GObject and the public API (limits, statistics,
 *   submit, cancel, waiting for an owner), which takes the lock, calls the
 *   transitions of the core and runs their actions.
 *
 * The core calls nothing of snodo-executor.c; both call snodo-work.c,
 * which calls neither.
 */

/* The works of one owner that hold their key, found by key: open
 * addressing with linear probing, and deletion by shifting back what
 * follows, so that a key table through which a key comes and goes at
 * every request never fills with deleted slots to skip and to clean up
 * (GHashTable's did, and grew and shrank again with every batch of
 * requests). All zero is an empty table. */
typedef struct
{
  /* The number of slots minus one (a power of two minus one); 0 while
   * @slots is NULL. */
  guint       mask;
  guint       count;
  /* Nullable, owned: mask + 1 slots, each a work (borrowed) or NULL. A
   * work's hash is work->key_hash. */
  SnodoWork **slots;
} SnodoKeyTable;

/* The work of the table with @key, or NULL. */
SnodoWork *snodo_key_table_lookup (SnodoKeyTable *table,
                                   const char    *key);
/* Adds @work, whose key the table does not have. */
void       snodo_key_table_add    (SnodoKeyTable *table,
                                   SnodoWork     *work);
/* Takes out @work, which the table has. */
void       snodo_key_table_remove (SnodoKeyTable *table,
                                   SnodoWork     *work);
void       snodo_key_table_clear  (SnodoKeyTable *table);

/* The live works of one owner. */
typedef struct _SnodoExecutorOwner
{
  /* The owner's identity: its key in the executor's @owners. */
  GObject *owner;
  /* Every live work of the owner, oldest first, linked through
   * work->owner_link. Holds the executor's strong reference on each work. */
  GQueue works;
  /* The live works that hold their key. */
  SnodoKeyTable keys;
} SnodoExecutorOwner;

/* A list of pointers that keeps its first few items in place: every
 * submit and every completion fills one or two lists, and a GPtrArray cost
 * two allocations and two frees each time. All zero is an empty list. */
#define ACTION_LIST_INLINE 4

typedef struct
{
  guint    len;
  guint    size;
  /* NULL while the items fit in @inline_items. */
  gpointer *heap;
  gpointer  inline_items[ACTION_LIST_INLINE];
} ActionList;

#define action_list_index(list, i) ((list)->heap != NULL ? (list)->heap : (list)->inline_items)[i]

/* What a state change asks for once the lock is released. Every list is
 * empty until needed. */
typedef struct
{
  /* SnodoWork, one reference each: to cancel (snodo_work_cancel()). */
  ActionList cancel;
  /* SnodoWork, one reference each: just moved to RUNNING, to hand to their
   * context or to the thread pool (the reference goes with them). */
  ActionList start;
  /* SnodoWork, borrowed (kept alive by @unref): no longer live; their
   * destroy notify is to be called. */
  ActionList finished;
  /* GTask, one reference each: wait_owner_async() calls to complete. */
  ActionList waiters;
  /* GObject, one reference each: dropped last, which may finalize the
   * executor itself. */
  ActionList unref;
} SnodoExecutorActions;

/* The task data of snodo_executor_wait_owner_async(). */
typedef struct
{
  /* The owner waited for; identity only. */
  GObject *owner;
  /* Owned, nullable: watches the task's cancellable; destroyed when the
   * task completes otherwise. */
  GSource *cancel_source;
} WaitOwnerState;

struct _SnodoExecutor
{
  GObject parent_instance;

  /* Guards every field below except @pool, and the executor's part of each
   * live work (see snodo-work-private.h). Never held while calling a work
   * function, a destroy notify, g_cancellable_cancel(), a GTask return,
   * g_object_notify() or while attaching a source. */
  GMutex lock;

  /* Owned; thread-safe on its own. The worker threads of BLOCKING work.
   * Not exclusive, so threads are created on demand and shared with other
   * pools when idle. Its thread limit follows @max_threads. Freed without
   * waiting in finalize, which may run on one of its own threads. */
  GThreadPool *pool;

  /* The limits (properties). */
  guint max_threads;
  guint max_running;
  guint max_queued;
  guint64 max_queued_bytes;
  guint64 max_live_bytes;

  /* Works in the RUNNING state. */
  guint n_running;
  /* BLOCKING works handed to the pool whose thread has not yet been given
   * back: from the push until the function returned and the work's
   * bookkeeping (destroy notify included) is done. */
  guint n_threads;

  /* Queued works in admission order, one queue per kind (linked through
   * work->queue_link), so that the next startable work is always at the
   * head of one of them; works that are not startable wait behind the same
   * limit. Borrowed: the owner lists hold the references. */
  GQueue queued_async;
  GQueue queued_blocking;
  /* Sum of cost_bytes of the queued works. */
  guint64 queued_bytes;
  /* Sum of cost_bytes of the live works, queued and running. */
  guint64 live_bytes;
  /* Admission counter for work->seq. */
  guint64 next_seq;

  /* Owned. Owner (identity, not referenced) → SnodoExecutorOwner (owned).
   * An owner is present while it has live work; besides, the owner whose
   * work ended last stays, with no live work (@idle_owner), as a
   * transport that served one request usually submits another: its entry
   * (and key table) is not made and freed for every request. An entry
   * without live work holds nothing of its owner, so an object that
   * happens to reuse the address of a dead owner finds it empty, as it
   * should. */
  GHashTable *owners;
  /* Nullable, in @owners, without live work: see @owners. Taken out when
   * another owner's work ends. */
  SnodoExecutorOwner *idle_owner;
  /* Nullable, owned, not in @owners: an entry taken out, kept empty for the
   * next owner that comes. */
  SnodoExecutorOwner *spare_owner;
  /* GTask, one reference each: pending wait_owner_async() calls whose owner
   * has live work. */
  GQueue waiters;

  /* Owned. GMainContext (referenced) → DispatchSource (a reference,
   * attached to that context): where started ASYNC works wait for their
   * context to run them. */
  GHashTable *dispatch_sources;
  /* The last context looked up there and its source (borrowed; kept by
   * @dispatch_sources until the executor is finalized), or NULL. */
  GMainContext *last_context;
  gpointer      last_dispatch;

  /* Statistics (read-only properties). */
  guint64 admitted;
  guint64 rejected;
  guint64 cancelled;
  guint64 completed;
};

/* snodo-executor-core.c. The *_locked functions run with @self->lock
 * held and record in @actions what is to be done once it is released,
 * by snodo_executor_actions_run(). */
void     snodo_executor_actions_run           (SnodoExecutor        *self,
                                               SnodoExecutorActions *actions);
GQueue  *snodo_executor_queue_for             (SnodoExecutor        *self,
                                               SnodoWork            *work);
void     snodo_executor_start_locked          (SnodoExecutor        *self,
                                               SnodoWork            *work,
                                               SnodoExecutorActions *actions);
void     snodo_executor_take_startable_locked (SnodoExecutor        *self,
                                               SnodoExecutorActions *actions);
void     snodo_executor_cancel_work_locked    (SnodoExecutor        *self,
                                               SnodoWork            *work,
                                               SnodoExecutorActions *actions);
guint    snodo_executor_cancel_owner_locked   (SnodoExecutor        *self,
                                               GObject              *owner,
                                               SnodoExecutorActions *actions);
/* The entry of @owner, made if it has none. */
SnodoExecutorOwner *snodo_executor_get_owner_locked (SnodoExecutor *self,
                                                     GObject       *owner);
/* Whether @owner has live work. */
gboolean snodo_executor_has_live_work_locked   (SnodoExecutor        *self,
                                               GObject              *owner);
/* Takes @work's key out of its owner's key table, if it still holds it. */
void     snodo_executor_drop_key_locked       (SnodoExecutor        *self,
                                               SnodoWork            *work);
void     snodo_executor_owner_free            (SnodoExecutorOwner   *owner);
/* The thread pool's function: runs one BLOCKING work. */
void     snodo_executor_thread_cb             (gpointer              data,
                                               gpointer              user_data);
/* The completion hook every work of an executor is made with. */
void     snodo_executor_work_completed        (SnodoWork            *work);

G_END_DECLS
