/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoExecutor, the GObject and its public API: limits, statistics,
 * submit, cancel and release of keys (waiting for an owner is
 * snodo-executor-wait.c). Each call takes
 * the lock, makes its state change with the transitions of
 * snodo-executor-core.c, and runs what they ask for once the lock is
 * released. The core also runs started work, on its context or a worker
 * thread, and takes its completion; it calls nothing of this file. */

#include "config.h"

#include "snodo-executor.h"
#include "snodo-base-private.h"
#include "snodo-executor-core-private.h"
#include "snodo-executor-private.h"
#include "snodo-work-private.h"

/**
 * SnodoExecutor:
 *
 * Transport-neutral admission of work: how many handlers run at once, how
 * many may wait, and what happens when both are full.
 *
 * Applications rarely call this API directly: every transport makes an
 * executor of its own, and an application at most changes its limits
 * (through [method@Snodo.StdioTransport.get_executor] or
 * [method@Snodo.HttpTransport.get_executor]). Submitting work is for
 * transports.
 *
 * A transport decodes a request and hands the work of answering it to an
 * executor with [method@Snodo.Executor.submit]. The call never blocks and
 * never runs the work itself: the work is either started, queued, or
 * refused at once with %SNODO_ERROR_OVERLOADED, so the transport can answer
 * with an error and go on reading (cancellations and end of input always get
 * through).
 *
 * ## Two kinds of work
 *
 * - %SNODO_WORK_KIND_ASYNC: the function is called on the [struct@GLib.MainContext]
 *   that was the thread-default one when submit() was called (the global
 *   default context if none was pushed), from a source attached to it: the
 *   executor's own, or the callback of the transport that submitted the
 *   work, once its submissions are done (which spares a turn of the main
 *   loop). Never from inside submit(), and never from inside another work
 *   function of that context, even one that iterates it. It must not block;
 *   it starts
 *   its work (a timer, a socket, a subprocess…) and completes it later. This
 *   is how handlers written in Python or JavaScript run. That context must
 *   keep being iterated until the work completes.
 * - %SNODO_WORK_KIND_BLOCKING: the function is called on one of the
 *   executor's own worker threads and may block.
 *
 * Either way the function must call [method@Snodo.Work.complete] exactly once,
 * from any thread, before or after it returns.
 *
 * ## Running and queued work
 *
 * A work is *running* from the moment it is handed to its context or thread
 * until it has been completed *and* its function has returned. At most
 * [property@Snodo.Executor:max-running] works run at once, and at most
 * [property@Snodo.Executor:max-threads] blocking functions execute at once.
 *
 * Work that cannot start at once waits in a FIFO queue, as long as fewer than
 * [property@Snodo.Executor:max-queued] works wait and their `cost_bytes`
 * (the memory each request holds, as the transport estimates it) add up to
 * at most [property@Snodo.Executor:max-queued-bytes]. Otherwise submit()
 * fails with %SNODO_ERROR_OVERLOADED and [property@Snodo.Executor:rejected]
 * grows.
 *
 * The costs of all live work, queued and running, add up to at most
 * [property@Snodo.Executor:max-live-bytes]: a work that would go beyond it
 * is refused the same way, even when a running slot is free. Its cost is
 * given back when it is no longer live.
 *
 * Whenever a running slot or a thread frees up, queued works start in FIFO
 * order among those that can start: a blocking work waiting for a thread does
 * not hold back asynchronous work queued behind it.
 *
 * The limits may be changed at any time from any thread; they apply to
 * later admissions (raising a limit also starts queued work at once).
 *
 * ## Owners, keys and cancellation
 *
 * Each work belongs to an *owner*, typically the transport or session that
 * submitted it. The owner is only an identity: the executor does not
 * reference it and never uses it as an object. A work may also carry a *key*
 * (the JSON-RPC request id, say): one owner cannot have two live (queued or
 * running) works with the same key, and submit() fails with
 * %SNODO_ERROR_DUPLICATE_KEY if it tries.
 *
 * Each work has its own [class@Gio.Cancellable].
 * [method@Snodo.Executor.cancel] addresses one work by owner and key:
 *
 * - a queued work is dropped: its cancellable is cancelled, its function is
 *   never called and its destroy notify is called;
 * - a running work has its cancellable cancelled (once), and must still
 *   complete normally.
 *
 * Both count once in [property@Snodo.Executor:cancelled].
 * [method@Snodo.Executor.cancel_owner] does the same for all of an owner's
 * live work (a transport that closes), and
 * [method@Snodo.Executor.wait_owner_async] tells when the owner has no live
 * work left.
 *
 * ## Threads and lifetime
 *
 * Every method may be called from any thread. The executor never calls a
 * work function, a destroy notify or a cancellable handler while it holds its
 * lock, so any of them may call back into the executor.
 *
 * The destroy notify of a work's user data is called once the work is no
 * longer live: in the thread that completed it or where its function
 * returned, whichever came last (or in the thread that cancelled it while it
 * was queued). It is never called when submit() fails: then the caller keeps
 * the user data.
 *
 * Every live work holds a reference on its executor, so an executor is only
 * disposed of once all its work has finished; it may then be finalized on one
 * of its worker threads. If [method@GObject.Object.run_dispose] is called
 * earlier, queued work is dropped and running work is cancelled, as by
 * cancel_owner() on every owner.
 *
 * ## Example
 *
 * ```c
 * static void
 * handle_request (SnodoWork *work,
 *                 gpointer   user_data)
 * {
 *   Request *request = user_data;
 *
 *   // A worker thread: blocking calls are fine here
 *   request->reply = compute_reply (request, snodo_work_get_cancellable (work));
 *   send_reply (request);
 *   snodo_work_complete (work);
 * }
 *
 * static void
 * on_request (Transport *transport,
 *             Request   *request)
 * {
 *   g_autoptr(GError) error = NULL;
 *
 *   if (!snodo_executor_submit (transport->executor, G_OBJECT (transport),
 *                               request->id, SNODO_WORK_KIND_BLOCKING,
 *                               request->size, handle_request,
 *                               request, (GDestroyNotify) request_free,
 *                               &error))
 *     {
 *       // Still ours: answer at once and keep reading
 *       send_error (request, error);
 *       request_free (request);
 *     }
 * }
 * ```
 *
 * Since: 0.1
 */

#define DEFAULT_MAX_RUNNING      1024
#define DEFAULT_MAX_QUEUED       256
#define DEFAULT_MAX_QUEUED_BYTES (G_GUINT64_CONSTANT (64) * 1024 * 1024)
#define DEFAULT_MAX_LIVE_BYTES   (G_GUINT64_CONSTANT (256) * 1024 * 1024)
G_DEFINE_FINAL_TYPE (SnodoExecutor, snodo_executor, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_MAX_THREADS,
  PROP_MAX_RUNNING,
  PROP_MAX_QUEUED,
  PROP_MAX_QUEUED_BYTES,
  PROP_MAX_LIVE_BYTES,
  PROP_LIVE_BYTES,
  PROP_N_RUNNING,
  PROP_N_QUEUED,
  PROP_ADMITTED,
  PROP_REJECTED,
  PROP_CANCELLED,
  PROP_COMPLETED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static guint
snodo_executor_default_max_threads (void)
{
  return MAX (4, 4 * g_get_num_processors ());
}


static void
snodo_executor_dispose (GObject *object)
{
  SnodoExecutor *self = (SnodoExecutor *)object;
  SnodoExecutorActions actions = { { 0, }, };
  GList *owners;

  /* Only reached with live work through g_object_run_dispose(), as every
   * live work holds a reference; the caller of that holds another, so
   * running the actions cannot finalize @self here. */
  g_mutex_lock (&self->lock);
  owners = g_hash_table_get_keys (self->owners);
  for (const GList *l = owners; l != NULL; l = l->next)
    snodo_executor_cancel_owner_locked (self, l->data, &actions);
  g_mutex_unlock (&self->lock);
  g_list_free (owners);

  snodo_executor_actions_run (self, &actions);

  G_OBJECT_CLASS (snodo_executor_parent_class)->dispose (object);
}

static void
snodo_executor_finalize (GObject *object)
{
  SnodoExecutor *self = (SnodoExecutor *)object;

  /* At most the idle entry, without live work. */
  g_warn_if_fail (g_hash_table_size (self->owners) == (self->idle_owner != NULL ? 1 : 0));
  g_warn_if_fail (self->waiters.length == 0);
  g_warn_if_fail (self->n_running == 0);
  g_warn_if_fail (self->n_threads == 0);

  /* Without waiting: this may run on one of the pool's threads, right after
   * the last work function returned. The pool is freed by its last thread. */
  g_thread_pool_free (self->pool, FALSE, FALSE);
  g_hash_table_unref (self->owners);
  g_clear_pointer (&self->spare_owner, snodo_executor_owner_free);
  g_hash_table_unref (self->dispatch_sources);
  g_mutex_clear (&self->lock);

  G_OBJECT_CLASS (snodo_executor_parent_class)->finalize (object);
}

static void
snodo_executor_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  SnodoExecutor *self = SNODO_EXECUTOR (object);

  switch (prop_id)
    {
    case PROP_MAX_THREADS:
      g_value_set_uint (value, snodo_executor_get_max_threads (self));
      break;

    case PROP_MAX_RUNNING:
      g_value_set_uint (value, snodo_executor_get_max_running (self));
      break;

    case PROP_MAX_QUEUED:
      g_value_set_uint (value, snodo_executor_get_max_queued (self));
      break;

    case PROP_MAX_QUEUED_BYTES:
      g_value_set_uint64 (value, snodo_executor_get_max_queued_bytes (self));
      break;

    case PROP_MAX_LIVE_BYTES:
      g_value_set_uint64 (value, snodo_executor_get_max_live_bytes (self));
      break;

    case PROP_LIVE_BYTES:
      g_value_set_uint64 (value, snodo_executor_get_live_bytes (self));
      break;

    case PROP_N_RUNNING:
      g_value_set_uint (value, snodo_executor_get_n_running (self));
      break;

    case PROP_N_QUEUED:
      g_value_set_uint (value, snodo_executor_get_n_queued (self));
      break;

    case PROP_ADMITTED:
      g_value_set_uint64 (value, snodo_executor_get_admitted (self));
      break;

    case PROP_REJECTED:
      g_value_set_uint64 (value, snodo_executor_get_rejected (self));
      break;

    case PROP_CANCELLED:
      g_value_set_uint64 (value, snodo_executor_get_cancelled (self));
      break;

    case PROP_COMPLETED:
      g_value_set_uint64 (value, snodo_executor_get_completed (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_executor_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  SnodoExecutor *self = SNODO_EXECUTOR (object);

  switch (prop_id)
    {
    case PROP_MAX_THREADS:
      snodo_executor_set_max_threads (self, g_value_get_uint (value));
      break;

    case PROP_MAX_RUNNING:
      snodo_executor_set_max_running (self, g_value_get_uint (value));
      break;

    case PROP_MAX_QUEUED:
      snodo_executor_set_max_queued (self, g_value_get_uint (value));
      break;

    case PROP_MAX_QUEUED_BYTES:
      snodo_executor_set_max_queued_bytes (self, g_value_get_uint64 (value));
      break;

    case PROP_MAX_LIVE_BYTES:
      snodo_executor_set_max_live_bytes (self, g_value_get_uint64 (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_executor_class_init (SnodoExecutorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = snodo_executor_dispose;
  object_class->finalize = snodo_executor_finalize;
  object_class->get_property = snodo_executor_get_property;
  object_class->set_property = snodo_executor_set_property;

  /**
   * SnodoExecutor:max-threads: (getter get_max_threads) (setter set_max_threads)
   *
   * The largest number of blocking work functions that execute at once,
   * each on its own worker thread. Blocking work that finds them all busy
   * waits in the queue; asynchronous work is not affected.
   *
   * The default, `MAX (4, 4 * g_get_num_processors ())`, is a few threads per
   * core: blocking handlers spend much of their time waiting on I/O rather
   * than computing.
   *
   * It may be set from any thread; the notification is emitted in that
   * thread.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_THREADS] =
    g_param_spec_uint ("max-threads", NULL, NULL,
                       1, G_MAXINT, snodo_executor_default_max_threads (),
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:max-running: (getter get_max_running) (setter set_max_running)
   *
   * The largest number of works running at once, of both kinds. A work
   * runs from the moment it is handed to its context or thread until it has
   * been completed and its function has returned.
   *
   * The default is 1024: a running asynchronous work that waits on a timer
   * or a socket costs little more than its memory, so the limit is there to
   * bound memory, not to ration the processor (which
   * [property@Snodo.Executor:max-threads] does for blocking work).
   *
   * It may be set from any thread; the notification is emitted in that
   * thread.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_RUNNING] =
    g_param_spec_uint ("max-running", NULL, NULL,
                       1, G_MAXUINT, DEFAULT_MAX_RUNNING,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:max-queued: (getter get_max_queued) (setter set_max_queued)
   *
   * The largest number of works waiting to start. When it is reached,
   * [method@Snodo.Executor.submit] fails with %SNODO_ERROR_OVERLOADED instead
   * of queuing more. Zero means that work which cannot start at once is
   * refused.
   *
   * The default is 256: enough to absorb a burst, short enough that a
   * client is told quickly that the server is busy rather than waiting
   * behind a long line.
   *
   * It may be set from any thread; the notification is emitted in that
   * thread.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_QUEUED] =
    g_param_spec_uint ("max-queued", NULL, NULL,
                       0, G_MAXUINT, DEFAULT_MAX_QUEUED,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:max-queued-bytes: (getter get_max_queued_bytes) (setter set_max_queued_bytes)
   *
   * The largest sum of the `cost_bytes` of the works waiting to start. A
   * work that would take the sum over it is refused with
   * %SNODO_ERROR_OVERLOADED. The cost of a work counts here only while it
   * waits ([property@Snodo.Executor:max-live-bytes] counts it while it runs
   * too).
   *
   * The default is 64 MiB, which bounds the memory held by requests that
   * are waiting (a transport passes what each request holds once decoded)
   * whatever their number.
   *
   * It may be set from any thread; the notification is emitted in that
   * thread.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_QUEUED_BYTES] =
    g_param_spec_uint64 ("max-queued-bytes", NULL, NULL,
                         0, G_MAXUINT64, DEFAULT_MAX_QUEUED_BYTES,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:max-live-bytes: (getter get_max_live_bytes) (setter set_max_live_bytes)
   *
   * The largest sum of the `cost_bytes` of the live works, queued and
   * running. A work that would take the sum over it is refused with
   * %SNODO_ERROR_OVERLOADED, whether it could start at once or not; the
   * cost of a work counts from its admission until it is no longer live
   * (it finished, or was dropped from the queue).
   *
   * The transports pass as the cost what a request holds in memory while
   * it is answered: its decoded tree, estimated as it is read, which is
   * tens of times the size of the message for a long array of small
   * numbers. This is the budget that bounds the memory of admitted work;
   * [property@Snodo.Executor:max-running] alone would let a thousand large
   * requests hold gigabytes.
   *
   * The default is 256 MiB: the worst request a transport accepts by
   * default (a 2,000,000-byte message of small numbers, about 80 MB once
   * decoded) still fits three times over, and usual requests, a few
   * kilobytes once decoded, never come near it.
   *
   * It may be set from any thread; the notification is emitted in that
   * thread.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_LIVE_BYTES] =
    g_param_spec_uint64 ("max-live-bytes", NULL, NULL,
                         0, G_MAXUINT64, DEFAULT_MAX_LIVE_BYTES,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:live-bytes: (getter get_live_bytes)
   *
   * The sum of the `cost_bytes` of the live works now, queued and running.
   *
   * It changes from any thread at any time and is never notified: read it
   * when you need it.
   *
   * Since: 0.1
   */
  properties[PROP_LIVE_BYTES] =
    g_param_spec_uint64 ("live-bytes", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:n-running: (getter get_n_running)
   *
   * The number of works running now.
   *
   * It changes from any thread at any time and is never notified: read it
   * when you need it.
   *
   * Since: 0.1
   */
  properties[PROP_N_RUNNING] =
    g_param_spec_uint ("n-running", NULL, NULL,
                       0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:n-queued: (getter get_n_queued)
   *
   * The number of works waiting to start.
   *
   * It changes from any thread at any time and is never notified: read it
   * when you need it.
   *
   * Since: 0.1
   */
  properties[PROP_N_QUEUED] =
    g_param_spec_uint ("n-queued", NULL, NULL,
                       0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:admitted: (getter get_admitted)
   *
   * The number of works accepted by [method@Snodo.Executor.submit] so far.
   *
   * It changes from any thread at any time and is never notified: read it
   * when you need it.
   *
   * Since: 0.1
   */
  properties[PROP_ADMITTED] =
    g_param_spec_uint64 ("admitted", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:rejected: (getter get_rejected)
   *
   * The number of submissions refused with %SNODO_ERROR_OVERLOADED so far.
   * Duplicate keys are not counted.
   *
   * It changes from any thread at any time and is never notified: read it
   * when you need it.
   *
   * Since: 0.1
   */
  properties[PROP_REJECTED] =
    g_param_spec_uint64 ("rejected", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:cancelled: (getter get_cancelled)
   *
   * The number of works cancelled so far, queued or running; each work
   * counts at most once however often it is cancelled. A running work that
   * was cancelled also counts in [property@Snodo.Executor:completed] once it
   * completes.
   *
   * It changes from any thread at any time and is never notified: read it
   * when you need it.
   *
   * Since: 0.1
   */
  properties[PROP_CANCELLED] =
    g_param_spec_uint64 ("cancelled", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoExecutor:completed: (getter get_completed)
   *
   * The number of works that ran and finished (were completed and whose
   * function returned) so far.
   *
   * It changes from any thread at any time and is never notified: read it
   * when you need it.
   *
   * Since: 0.1
   */
  properties[PROP_COMPLETED] =
    g_param_spec_uint64 ("completed", NULL, NULL,
                         0, G_MAXUINT64, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_executor_init (SnodoExecutor *self)
{
  g_mutex_init (&self->lock);

  self->max_threads = snodo_executor_default_max_threads ();
  self->max_running = DEFAULT_MAX_RUNNING;
  self->max_queued = DEFAULT_MAX_QUEUED;
  self->max_queued_bytes = DEFAULT_MAX_QUEUED_BYTES;
  self->max_live_bytes = DEFAULT_MAX_LIVE_BYTES;

  self->owners = g_hash_table_new_full (NULL, NULL, NULL,
                                        (GDestroyNotify) snodo_executor_owner_free);
  self->dispatch_sources = g_hash_table_new_full (NULL, NULL, (GDestroyNotify) g_main_context_unref,
                                                  (GDestroyNotify) snodo_source_destroy_and_unref);

  /* Not exclusive, so this cannot fail. */
  self->pool = g_thread_pool_new (snodo_executor_thread_cb, NULL,
                                  (int) self->max_threads, FALSE, NULL);
}

/**
 * snodo_executor_new:
 *
 * Creates an executor with the default limits.
 *
 * Returns: (transfer full): a new executor
 *
 * Since: 0.1
 */
SnodoExecutor *
snodo_executor_new (void)
{
  return g_object_new (SNODO_TYPE_EXECUTOR, NULL);
}

/**
 * snodo_executor_get_max_threads: (get-property max-threads)
 * @self: an executor
 *
 * Gets the largest number of blocking work functions that execute at once.
 *
 * Returns: the thread limit
 *
 * Since: 0.1
 */
guint
snodo_executor_get_max_threads (SnodoExecutor *self)
{
  guint ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->max_threads;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_set_max_threads: (set-property max-threads)
 * @self: an executor
 * @max_threads: the new limit, at least 1
 *
 * Sets the largest number of blocking work functions that execute at once.
 * Functions already executing are not interrupted when it is lowered;
 * queued blocking work starts at once when it is raised.
 *
 * Since: 0.1
 */
void
snodo_executor_set_max_threads (SnodoExecutor *self,
                                guint          max_threads)
{
  SnodoExecutorActions actions = { { 0, }, };
  gboolean changed;

  g_return_if_fail (SNODO_IS_EXECUTOR (self));
  g_return_if_fail (max_threads >= 1 && max_threads <= G_MAXINT);

  g_mutex_lock (&self->lock);
  changed = self->max_threads != max_threads;
  if (changed)
    {
      g_autoptr(GError) error = NULL;

      self->max_threads = max_threads;
      /* Under the lock so that concurrent setters leave the pool with the
       * last value; the pool never calls back into the executor while it
       * holds its own lock. Only a failure to create a thread for a task
       * already in the pool can be reported here. */
      if (!g_thread_pool_set_max_threads (self->pool, (int) max_threads, &error))
        g_warning ("Could not start a worker thread: %s", error->message);
      snodo_executor_take_startable_locked (self, &actions);
    }
  g_mutex_unlock (&self->lock);

  snodo_executor_actions_run (self, &actions);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_THREADS]);
}

/**
 * snodo_executor_get_max_running: (get-property max-running)
 * @self: an executor
 *
 * Gets the largest number of works running at once.
 *
 * Returns: the running limit
 *
 * Since: 0.1
 */
guint
snodo_executor_get_max_running (SnodoExecutor *self)
{
  guint ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->max_running;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_set_max_running: (set-property max-running)
 * @self: an executor
 * @max_running: the new limit, at least 1
 *
 * Sets the largest number of works running at once. Running work is not
 * affected when it is lowered; queued work starts at once when it is raised.
 *
 * Since: 0.1
 */
void
snodo_executor_set_max_running (SnodoExecutor *self,
                                guint          max_running)
{
  SnodoExecutorActions actions = { { 0, }, };
  gboolean changed;

  g_return_if_fail (SNODO_IS_EXECUTOR (self));
  g_return_if_fail (max_running >= 1);

  g_mutex_lock (&self->lock);
  changed = self->max_running != max_running;
  if (changed)
    {
      self->max_running = max_running;
      snodo_executor_take_startable_locked (self, &actions);
    }
  g_mutex_unlock (&self->lock);

  snodo_executor_actions_run (self, &actions);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_RUNNING]);
}

/**
 * snodo_executor_get_max_queued: (get-property max-queued)
 * @self: an executor
 *
 * Gets the largest number of works waiting to start.
 *
 * Returns: the queue limit
 *
 * Since: 0.1
 */
guint
snodo_executor_get_max_queued (SnodoExecutor *self)
{
  guint ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->max_queued;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_set_max_queued: (set-property max-queued)
 * @self: an executor
 * @max_queued: the new limit
 *
 * Sets the largest number of works waiting to start. Lowering it does not
 * drop work that is already queued; it only refuses new work until the
 * queue is short enough.
 *
 * Since: 0.1
 */
void
snodo_executor_set_max_queued (SnodoExecutor *self,
                               guint          max_queued)
{
  gboolean changed;

  g_return_if_fail (SNODO_IS_EXECUTOR (self));

  g_mutex_lock (&self->lock);
  changed = self->max_queued != max_queued;
  self->max_queued = max_queued;
  g_mutex_unlock (&self->lock);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_QUEUED]);
}

/**
 * snodo_executor_get_max_queued_bytes: (get-property max-queued-bytes)
 * @self: an executor
 *
 * Gets the largest sum of the costs of the works waiting to start.
 *
 * Returns: the queue limit, in bytes
 *
 * Since: 0.1
 */
guint64
snodo_executor_get_max_queued_bytes (SnodoExecutor *self)
{
  guint64 ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->max_queued_bytes;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_set_max_queued_bytes: (set-property max-queued-bytes)
 * @self: an executor
 * @max_queued_bytes: the new limit, in bytes
 *
 * Sets the largest sum of the costs of the works waiting to start. Lowering
 * it does not drop work that is already queued.
 *
 * Since: 0.1
 */
void
snodo_executor_set_max_queued_bytes (SnodoExecutor *self,
                                     guint64        max_queued_bytes)
{
  gboolean changed;

  g_return_if_fail (SNODO_IS_EXECUTOR (self));

  g_mutex_lock (&self->lock);
  changed = self->max_queued_bytes != max_queued_bytes;
  self->max_queued_bytes = max_queued_bytes;
  g_mutex_unlock (&self->lock);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_QUEUED_BYTES]);
}

/**
 * snodo_executor_get_max_live_bytes: (get-property max-live-bytes)
 * @self: an executor
 *
 * Gets the largest sum of the costs of the live works, queued and running.
 *
 * Returns: the budget of live work, in bytes
 *
 * Since: 0.1
 */
guint64
snodo_executor_get_max_live_bytes (SnodoExecutor *self)
{
  guint64 ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->max_live_bytes;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_set_max_live_bytes: (set-property max-live-bytes)
 * @self: an executor
 * @max_live_bytes: the new budget, in bytes
 *
 * Sets the largest sum of the costs of the live works, queued and running.
 * Lowering it does not cancel live work; it only refuses new work until
 * enough of it has finished.
 *
 * Since: 0.1
 */
void
snodo_executor_set_max_live_bytes (SnodoExecutor *self,
                                   guint64        max_live_bytes)
{
  gboolean changed;

  g_return_if_fail (SNODO_IS_EXECUTOR (self));

  g_mutex_lock (&self->lock);
  changed = self->max_live_bytes != max_live_bytes;
  self->max_live_bytes = max_live_bytes;
  g_mutex_unlock (&self->lock);

  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_LIVE_BYTES]);
}

/**
 * snodo_executor_get_live_bytes: (get-property live-bytes)
 * @self: an executor
 *
 * Gets the sum of the costs of the live works, queued and running.
 *
 * Returns: the bytes held by live work, as their costs say
 *
 * Since: 0.1
 */
guint64
snodo_executor_get_live_bytes (SnodoExecutor *self)
{
  guint64 ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->live_bytes;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_submit:
 * @self: an executor
 * @owner: the identity the work belongs to, such as the submitting transport
 *   (not referenced; only compared)
 * @key: (nullable): the key of the work among @owner's live work, such as
 *   the request id, or %NULL if the work need not be addressed
 * @kind: how the work runs
 * @cost_bytes: the memory the work holds while it is live, usually what
 *   the decoded request takes; counted against
 *   [property@Snodo.Executor:max-queued-bytes] while it waits and against
 *   [property@Snodo.Executor:max-live-bytes] until it is no longer live
 * @func: (scope notified) (closure user_data) (destroy destroy): the work
 *   function
 * @user_data: data for @func
 * @destroy: (nullable): called on @user_data once the work is no longer live
 * @error: return location for a #GError
 *
 * Admits a piece of work. It starts at once if a running slot (and, for
 * blocking work, a thread) is free, is queued if the queue has room, and is
 * refused otherwise. This function never blocks and never calls @func
 * itself.
 *
 * Asynchronous work runs on the thread-default main context of the caller,
 * captured now; blocking work runs on a worker thread. See
 * [class@Snodo.Executor] for the rules.
 *
 * On success the executor owns @user_data and calls @destroy on it exactly
 * once, when the work has finished or was cancelled before it started. On
 * failure, @destroy is not called and the caller keeps @user_data.
 *
 * Returns: %TRUE if the work was admitted; %FALSE with
 *   %SNODO_ERROR_OVERLOADED if there is no room for it, or with
 *   %SNODO_ERROR_DUPLICATE_KEY if @owner has live work with the same @key
 *
 * Since: 0.1
 */
gboolean
snodo_executor_submit (SnodoExecutor   *self,
                       GObject         *owner,
                       const char      *key,
                       SnodoWorkKind    kind,
                       gsize            cost_bytes,
                       SnodoWorkFunc    func,
                       gpointer         user_data,
                       GDestroyNotify   destroy,
                       GError         **error)
{
  SnodoExecutorActions actions = { { 0, }, };
  SnodoExecutorOwner *entry;
  SnodoWork *work;
  gboolean can_start;
  guint n_running;
  guint n_queued;
  guint64 queued_bytes;
  guint64 max_queued_bytes;
  guint64 live_bytes;
  guint64 max_live_bytes;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), FALSE);
  g_return_val_if_fail (owner != NULL, FALSE);
  g_return_val_if_fail (kind == SNODO_WORK_KIND_ASYNC || kind == SNODO_WORK_KIND_BLOCKING, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  g_mutex_lock (&self->lock);

  entry = g_hash_table_lookup (self->owners, owner);

  if (key != NULL && entry != NULL &&
      snodo_key_table_lookup (&entry->keys, key) != NULL)
    {
      g_mutex_unlock (&self->lock);
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY,
                   _("Work with the key “%s” is already in progress"), key);
      return FALSE;
    }

  /* No queued work can start (see take_startable), so a new work that can
   * start does not overtake any. */
  can_start = self->n_running < self->max_running &&
              (kind == SNODO_WORK_KIND_ASYNC || self->n_threads < self->max_threads);

  n_running = self->n_running;
  n_queued = self->queued_async.length + self->queued_blocking.length;
  queued_bytes = self->queued_bytes;
  max_queued_bytes = self->max_queued_bytes;
  live_bytes = self->live_bytes;
  max_live_bytes = self->max_live_bytes;

  if (!can_start && n_queued >= self->max_queued)
    {
      self->rejected++;
      g_mutex_unlock (&self->lock);
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED,
                   _("Too much work in progress: %u running and %u waiting"),
                   n_running, n_queued);
      return FALSE;
    }

  if (!can_start &&
      (queued_bytes > max_queued_bytes || cost_bytes > max_queued_bytes - queued_bytes))
    {
      g_autofree char *limit = NULL;

      self->rejected++;
      g_mutex_unlock (&self->lock);
      limit = g_format_size_full (max_queued_bytes, G_FORMAT_SIZE_IEC_UNITS);
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED,
                   _("Too much work in progress: the waiting work would take more than %s"),
                   limit);
      return FALSE;
    }

  if (live_bytes > max_live_bytes || cost_bytes > max_live_bytes - live_bytes)
    {
      g_autofree char *limit = NULL;

      self->rejected++;
      g_mutex_unlock (&self->lock);
      limit = g_format_size_full (max_live_bytes, G_FORMAT_SIZE_IEC_UNITS);
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED,
                   _("Too much work in progress: the admitted work would hold more than %s"),
                   limit);
      return FALSE;
    }

  work = snodo_work_new (owner, key, kind, cost_bytes, func, user_data, destroy,
                         snodo_executor_work_completed);
  work->executor = g_object_ref (self);
  work->seq = self->next_seq++;

  entry = snodo_executor_get_owner_locked (self, owner);
  work->owner_entry = entry;
  g_queue_push_tail_link (&entry->works, &work->owner_link);
  if (key != NULL)
    {
      snodo_key_table_add (&entry->keys, work);
      work->key_held = TRUE;
    }

  self->admitted++;
  self->live_bytes += cost_bytes;

  if (can_start)
    {
      snodo_executor_start_locked (self, work, &actions);
    }
  else
    {
      g_queue_push_tail_link (snodo_executor_queue_for (self, work), &work->queue_link);
      self->queued_bytes += cost_bytes;
    }

  g_mutex_unlock (&self->lock);

  snodo_executor_actions_run (self, &actions);

  return TRUE;
}

/**
 * snodo_executor_cancel:
 * @self: an executor
 * @owner: the owner the work was submitted for
 * @key: the key the work was submitted with
 *
 * Cancels the live work of @owner with @key.
 *
 * If it is queued, it is dropped: its cancellable is cancelled, its function
 * is never called and its destroy notify is called before this function
 * returns. If it is running, its cancellable is cancelled (the first time
 * only) and it still completes as usual. Either way it counts once in
 * [property@Snodo.Executor:cancelled].
 *
 * Returns: %TRUE if @owner had live work with @key
 *
 * Since: 0.1
 */
gboolean
snodo_executor_cancel (SnodoExecutor *self,
                       GObject       *owner,
                       const char    *key)
{
  SnodoExecutorActions actions = { { 0, }, };
  SnodoExecutorOwner *entry;
  SnodoWork *work = NULL;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), FALSE);
  g_return_val_if_fail (owner != NULL, FALSE);
  g_return_val_if_fail (key != NULL, FALSE);

  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->owners, owner);
  if (entry != NULL)
    work = snodo_key_table_lookup (&entry->keys, key);
  if (work != NULL)
    snodo_executor_cancel_work_locked (self, work, &actions);
  g_mutex_unlock (&self->lock);

  snodo_executor_actions_run (self, &actions);

  return work != NULL;
}

/* Takes @bytes of max-live-bytes for what is not work yet (see
 * snodo-executor-private.h). */
gboolean
snodo_executor_reserve_live_bytes (SnodoExecutor *self,
                                   guint64        bytes)
{
  gboolean ok;

  g_mutex_lock (&self->lock);
  ok = self->live_bytes <= self->max_live_bytes && bytes <= self->max_live_bytes - self->live_bytes;
  if (ok)
    self->live_bytes += bytes;
  else
    self->rejected++;
  g_mutex_unlock (&self->lock);
  return ok;
}

void
snodo_executor_hold_live_bytes (SnodoExecutor *self,
                                guint64        bytes)
{
  g_mutex_lock (&self->lock);
  self->live_bytes += bytes;
  g_mutex_unlock (&self->lock);
}

void
snodo_executor_release_live_bytes (SnodoExecutor *self,
                                   guint64        bytes)
{
  g_mutex_lock (&self->lock);
  g_assert (self->live_bytes >= bytes);
  self->live_bytes -= bytes;
  g_mutex_unlock (&self->lock);
}

/* Whether @owner has live work with @key (see snodo-executor-private.h). */
gboolean
snodo_executor_has_key (SnodoExecutor *self,
                        GObject       *owner,
                        const char    *key)
{
  SnodoExecutorOwner *entry;
  gboolean found = FALSE;

  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->owners, owner);
  if (entry != NULL)
    found = snodo_key_table_lookup (&entry->keys, key) != NULL;
  g_mutex_unlock (&self->lock);
  return found;
}

/*
 * snodo_executor_release_key:
 * @self: an executor
 * @work: a live work
 *
 * Frees @work's key while the work itself stays live: its answer is
 * decided and on its way, so the client may reuse the id as soon as it
 * reads it. The work can no longer be cancelled by key.
 */
void
snodo_executor_release_key (SnodoExecutor *self,
                            SnodoWork     *work)
{
  if (work->key == NULL)
    return;

  g_mutex_lock (&self->lock);
  snodo_executor_drop_key_locked (self, work);
  g_mutex_unlock (&self->lock);
}

/**
 * snodo_executor_cancel_owner:
 * @self: an executor
 * @owner: the owner whose work to cancel
 *
 * Cancels all the live work of @owner, with or without a key, as
 * [method@Snodo.Executor.cancel] does for one work: queued work is dropped,
 * running work has its cancellable cancelled and completes as usual. A
 * transport calls this when it closes, then waits with
 * [method@Snodo.Executor.wait_owner_async].
 *
 * Returns: the number of live works @owner had
 *
 * Since: 0.1
 */
guint
snodo_executor_cancel_owner (SnodoExecutor *self,
                             GObject       *owner)
{
  SnodoExecutorActions actions = { { 0, }, };
  guint n;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);
  g_return_val_if_fail (owner != NULL, 0);

  g_mutex_lock (&self->lock);
  n = snodo_executor_cancel_owner_locked (self, owner, &actions);
  g_mutex_unlock (&self->lock);

  snodo_executor_actions_run (self, &actions);

  return n;
}

/**
 * snodo_executor_get_n_live_for_owner:
 * @self: an executor
 * @owner: an owner
 *
 * Counts the live (queued or running) works of @owner.
 *
 * Returns: the number of live works of @owner
 *
 * Since: 0.1
 */
guint
snodo_executor_get_n_live_for_owner (SnodoExecutor *self,
                                     GObject       *owner)
{
  SnodoExecutorOwner *entry;
  guint ret = 0;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);
  g_return_val_if_fail (owner != NULL, 0);

  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->owners, owner);
  if (entry != NULL)
    ret = entry->works.length;
  g_mutex_unlock (&self->lock);

  return ret;
}

/* See snodo-executor-private.h. */
guint
snodo_executor_get_n_uncancelled_for_owner (SnodoExecutor *self,
                                            GObject       *owner)
{
  SnodoExecutorOwner *entry;
  guint ret = 0;

  g_mutex_lock (&self->lock);
  entry = g_hash_table_lookup (self->owners, owner);
  if (entry != NULL)
    for (GList *l = entry->works.head; l != NULL; l = l->next)
      {
        SnodoWork *work = l->data;

        if (!work->cancel_requested && !snodo_work_is_cancelled (work))
          ret++;
      }
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_get_n_running: (get-property n-running)
 * @self: an executor
 *
 * Gets the number of works running now.
 *
 * Returns: the number of running works
 *
 * Since: 0.1
 */
guint
snodo_executor_get_n_running (SnodoExecutor *self)
{
  guint ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->n_running;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_get_n_queued: (get-property n-queued)
 * @self: an executor
 *
 * Gets the number of works waiting to start.
 *
 * Returns: the number of queued works
 *
 * Since: 0.1
 */
guint
snodo_executor_get_n_queued (SnodoExecutor *self)
{
  guint ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->queued_async.length + self->queued_blocking.length;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_get_admitted: (get-property admitted)
 * @self: an executor
 *
 * Gets the number of works admitted so far.
 *
 * Returns: the number of admitted works
 *
 * Since: 0.1
 */
guint64
snodo_executor_get_admitted (SnodoExecutor *self)
{
  guint64 ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->admitted;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_get_rejected: (get-property rejected)
 * @self: an executor
 *
 * Gets the number of submissions refused because the executor was full.
 *
 * Returns: the number of rejected submissions
 *
 * Since: 0.1
 */
guint64
snodo_executor_get_rejected (SnodoExecutor *self)
{
  guint64 ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->rejected;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_get_cancelled: (get-property cancelled)
 * @self: an executor
 *
 * Gets the number of works cancelled so far.
 *
 * Returns: the number of cancelled works
 *
 * Since: 0.1
 */
guint64
snodo_executor_get_cancelled (SnodoExecutor *self)
{
  guint64 ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->cancelled;
  g_mutex_unlock (&self->lock);

  return ret;
}

/**
 * snodo_executor_get_completed: (get-property completed)
 * @self: an executor
 *
 * Gets the number of works that ran and finished so far.
 *
 * Returns: the number of completed works
 *
 * Since: 0.1
 */
guint64
snodo_executor_get_completed (SnodoExecutor *self)
{
  guint64 ret;

  g_return_val_if_fail (SNODO_IS_EXECUTOR (self), 0);

  g_mutex_lock (&self->lock);
  ret = self->completed;
  g_mutex_unlock (&self->lock);

  return ret;
}
