/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

/* For SnodoWorkFunc only: nothing of the executor is called from here. */
#include "snodo-executor.h"
#include "snodo-work.h"

G_BEGIN_DECLS

/*
 * The record of one admitted piece of work, inside the executor layer only.
 *
 * snodo-work.c is the lower of the executor's files: it makes the record,
 * answers its public accessors and takes snodo_work_complete(), which it
 * hands to the completion hook the executor gave the work at creation. It
 * calls nothing of the executor. The executor (snodo-executor.c and
 * snodo-executor-core.c) keeps one strong reference on the work while it
 * is live (queued or running) and moves it through its states under its
 * own lock.
 */

/* What the executor does when a work is completed: called by the first
 * snodo_work_complete() of @work, exactly once, from any thread, while the
 * work is running. */
typedef void (*SnodoWorkCompleteFunc) (SnodoWork *work);

/*
 * SnodoWorkState:
 * @SNODO_WORK_STATE_QUEUED: admitted, waiting in the executor's queue
 * @SNODO_WORK_STATE_RUNNING: handed to its context or thread, until it has
 *   been completed and its function has returned
 * @SNODO_WORK_STATE_FINISHED: no longer live: it finished, or was dropped
 *   from the queue by a cancellation
 */
typedef enum
{
  SNODO_WORK_STATE_QUEUED,
  SNODO_WORK_STATE_RUNNING,
  SNODO_WORK_STATE_FINISHED,
} SnodoWorkState;

struct _SnodoWork
{
  GObject parent_instance;

  /* Fixed at construction; readable from any thread without a lock. */

  /* The submitter's identity. Not referenced and never dereferenced: the
   * executor only compares pointers, so the owner may die before its work. */
  GObject *owner;
  /* Nullable. NULL means the work cannot be addressed by cancel(). Points
   * at @key_inline when the key fits there (most request ids do: a
   * malloc and a free less per request), owned otherwise. */
  char *key;
  char key_inline[24];
  /* g_str_hash() of @key. */
  guint key_hash;
  SnodoWorkKind kind;
  /* Counted against max-queued-bytes while the work is queued, and
   * against max-live-bytes while it is live. */
  gsize cost_bytes;
  /* Owned, made on first use by snodo_work_get_cancellable() (most work
   * never asks for it: a GObject less per request), then fixed; read and
   * set with atomic operations, from any thread. */
  GCancellable *cancellable;
  /* Atomic: set by snodo_work_cancel(), before it cancels @cancellable if
   * there is one; a cancellable made later comes out cancelled. */
  gint cancelled;
  /* Owned. For ASYNC work, the thread-default context of submit(), where
   * the function is dispatched; NULL for BLOCKING work. */
  GMainContext *context;
  /* Order of admission, to keep the two per-kind queues FIFO as a whole. */
  guint64 seq;
  SnodoWorkFunc func;
  /* Given back to @destroy once the work is no longer live, by whichever
   * thread made it so; both are cleared then. */
  gpointer user_data;
  GDestroyNotify destroy;
  /* The executor's side of snodo_work_complete(). */
  SnodoWorkCompleteFunc complete;

  /* Set by the first snodo_work_complete() with an atomic
   * compare-and-exchange, so that a second call is caught even after the
   * executor has let go of the work. */
  gint complete_called;

  /* Everything below is the executor's, set by it after snodo_work_new()
   * and guarded by its lock. */

  /* Strong reference while the work is live (so the executor outlives all
   * of its work); stolen when the work finishes. */
  SnodoExecutor *executor;
  SnodoWorkState state;
  /* The executor has seen snodo_work_complete(). */
  gboolean completed;
  /* The function has returned. */
  gboolean returned;
  /* cancel() already cancelled @cancellable and counted it. */
  gboolean cancel_requested;
  /* @key is in the owner's key table, mapped to this work (no other live
   * work of the owner can have it): until the work finishes or the key is
   * released. */
  gboolean key_held;
  /* The owner's entry in the executor, valid while the work is live (an
   * entry is only freed when its owner has no live work). */
  struct _SnodoExecutorOwner *owner_entry;
  /* Link in the executor's queue for @kind while QUEUED, then in the
   * dispatch source of its context until it runs (ASYNC); data is the work. */
  GList queue_link;
  /* Link in the owner's list of live work while live; data is the work.
   * This list holds the executor's strong reference on the work. */
  GList owner_link;
};

/* A new work in the QUEUED state, of no executor yet: the caller sets the
 * executor's part. @complete is called by the first snodo_work_complete(). */
SnodoWork *snodo_work_new    (GObject               *owner,
                              const char            *key,
                              SnodoWorkKind          kind,
                              gsize                  cost_bytes,
                              SnodoWorkFunc          func,
                              gpointer               user_data,
                              GDestroyNotify         destroy,
                              SnodoWorkCompleteFunc  complete);
/* Cancels the work's cancellable, or the one it will make. Any thread;
 * the executor calls it without its lock, as handlers may run. */
void       snodo_work_cancel (SnodoWork             *self);

G_END_DECLS
