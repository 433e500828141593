/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-test-util.h"
#include "snodo-executor-private.h"

/* Iterates the thread-default main context without blocking until @cond
 * holds, failing the test after @timeout_ms. For conditions that another
 * thread makes true (snodo_test_wait_for() sleeps until a source fires). */
#define WAIT_UNTIL(cond, timeout_ms)                                              \
  G_STMT_START {                                                                  \
    gint64 wait_end_ = g_get_monotonic_time () +                                  \
                       (gint64) (timeout_ms) * G_TIME_SPAN_MILLISECOND;           \
    while (!(cond))                                                               \
      {                                                                           \
        g_assert_cmpint (g_get_monotonic_time (), <, wait_end_);                  \
        while (g_main_context_iteration (g_main_context_get_thread_default (),    \
                                         FALSE))                                  \
          ;                                                                       \
        g_usleep (500);                                                           \
      }                                                                           \
  } G_STMT_END

/* Lets a context run for about @ms, for checks that something does *not*
 * happen. */
static void
iterate_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < end)
    {
      while (g_main_context_iteration (g_main_context_get_thread_default (), FALSE))
        ;
      g_usleep (1000);
    }
}

typedef struct _Fixture Fixture;

typedef struct
{
  Fixture      *f;
  guint         id;
  /* Set by the submit helper: submit() returned TRUE. */
  gboolean      admitted;
  /* ASYNC: keep the work in @work for the test to complete.
   * BLOCKING: return without completing, keeping the work in @work. */
  gboolean      hold;
  /* ASYNC: complete from a timer after this long. BLOCKING: sleep this
   * long before completing. */
  guint         delay_ms;

  /* Written by the function (atomically where other threads look). */
  gint          ran;
  gint          destroyed;
  gint          work_finalized;
  gboolean      ran_in_submit;
  GThread      *thread;
  GMainContext *context;
  GThread      *destroy_thread;
  /* A reference on the work while the test holds it. */
  SnodoWork    *work;
} Job;

struct _Fixture
{
  SnodoExecutor *executor;
  GObject       *owner;
  GObject       *other_owner;
  GThread       *main_thread;
  gboolean       in_submit;

  gint           finalized;
  GThread       *finalize_thread;

  /* Job (owned): every job of the test, checked in the teardown. */
  GPtrArray     *jobs;

  /* Guards everything below. */
  GMutex         lock;
  GCond          cond;
  gboolean       gate_open;
  guint          running;
  guint          peak;
  guint          blocking_running;
  guint          blocking_peak;
  /* Job ids in the order the functions started. */
  GArray        *order;
};

static void
executor_finalized_cb (gpointer  data,
                       GObject  *where_the_object_was)
{
  Fixture *f = data;

  f->finalize_thread = g_thread_self ();
  g_atomic_int_set (&f->finalized, TRUE);
}

static void
fixture_setup (Fixture       *f,
               gconstpointer  data)
{
  f->executor = snodo_executor_new ();
  g_object_weak_ref (G_OBJECT (f->executor), executor_finalized_cb, f);
  f->owner = g_object_new (G_TYPE_OBJECT, NULL);
  f->other_owner = g_object_new (G_TYPE_OBJECT, NULL);
  f->main_thread = g_thread_self ();
  f->jobs = g_ptr_array_new_with_free_func (g_free);
  g_mutex_init (&f->lock);
  g_cond_init (&f->cond);
  f->gate_open = TRUE;
  f->order = g_array_new (FALSE, FALSE, sizeof (guint));
}

static void
fixture_teardown (Fixture       *f,
                  gconstpointer  data)
{
  /* The last reference may be dropped by a worker thread a moment after the
   * test saw its work finish. */
  g_clear_object (&f->executor);
  WAIT_UNTIL (g_atomic_int_get (&f->finalized), 5000);

  for (guint i = 0; i < f->jobs->len; i++)
    {
      Job *job = g_ptr_array_index (f->jobs, i);

      g_assert_null (job->work);
      g_assert_cmpint (g_atomic_int_get (&job->ran), <=, 1);
      /* A worker thread may drop its reference just after the executor's. */
      if (g_atomic_int_get (&job->ran))
        WAIT_UNTIL (g_atomic_int_get (&job->work_finalized), 5000);
      /* Exactly once for admitted work, in every path; never for refused
       * work, which stays the caller's. */
      g_assert_cmpint (g_atomic_int_get (&job->destroyed), ==, job->admitted ? 1 : 0);
    }

  g_assert_finalize_object (f->owner);
  g_assert_finalize_object (f->other_owner);
  g_ptr_array_unref (f->jobs);
  g_array_unref (f->order);
  g_mutex_clear (&f->lock);
  g_cond_clear (&f->cond);
}

static Job *
job_new (Fixture *f)
{
  Job *job = g_new0 (Job, 1);

  job->f = f;
  job->id = f->jobs->len;
  g_ptr_array_add (f->jobs, job);

  return job;
}

static void
job_destroy (gpointer data)
{
  Job *job = data;

  job->destroy_thread = g_thread_self ();
  g_atomic_int_inc (&job->destroyed);
}

static void
work_finalized_cb (gpointer  data,
                   GObject  *where_the_object_was)
{
  Job *job = data;

  g_atomic_int_set (&job->work_finalized, TRUE);
}

static void
job_enter (Job       *job,
           SnodoWork *work)
{
  Fixture *f = job->f;

  job->thread = g_thread_self ();
  job->context = g_main_context_get_thread_default ();
  job->ran_in_submit = job->thread == f->main_thread && f->in_submit;
  g_object_weak_ref (G_OBJECT (work), work_finalized_cb, job);

  g_mutex_lock (&f->lock);
  f->running++;
  f->peak = MAX (f->peak, f->running);
  if (snodo_work_get_kind (work) == SNODO_WORK_KIND_BLOCKING)
    {
      f->blocking_running++;
      f->blocking_peak = MAX (f->blocking_peak, f->blocking_running);
    }
  g_array_append_val (f->order, job->id);
  g_mutex_unlock (&f->lock);

  g_atomic_int_inc (&job->ran);
}

static void
job_leave (Job           *job,
           SnodoWorkKind  kind)
{
  Fixture *f = job->f;

  g_mutex_lock (&f->lock);
  f->running--;
  if (kind == SNODO_WORK_KIND_BLOCKING)
    f->blocking_running--;
  g_mutex_unlock (&f->lock);
}

/* Completes a work the test holds. */
static void
job_complete (Job *job)
{
  g_assert_nonnull (job->work);
  job_leave (job, snodo_work_get_kind (job->work));
  snodo_work_complete (job->work);
  g_clear_object (&job->work);
}

static gboolean
async_job_timeout_cb (gpointer data)
{
  Job *job = data;

  job_complete (job);

  return G_SOURCE_REMOVE;
}

static void
async_job_func (SnodoWork *work,
                gpointer   user_data)
{
  Job *job = user_data;

  job_enter (job, work);

  if (job->delay_ms > 0)
    {
      GSource *source = g_timeout_source_new (job->delay_ms);

      job->work = g_object_ref (work);
      g_source_set_callback (source, async_job_timeout_cb, job, NULL);
      g_source_attach (source, g_main_context_get_thread_default ());
      g_source_unref (source);
    }
  else if (job->hold)
    {
      job->work = g_object_ref (work);
    }
  else
    {
      job_leave (job, SNODO_WORK_KIND_ASYNC);
      snodo_work_complete (work);
    }
}

static void
gate_set (Fixture  *f,
          gboolean  open)
{
  g_mutex_lock (&f->lock);
  f->gate_open = open;
  g_cond_broadcast (&f->cond);
  g_mutex_unlock (&f->lock);
}

static guint
fixture_get_blocking_running (Fixture *f)
{
  guint ret;

  g_mutex_lock (&f->lock);
  ret = f->blocking_running;
  g_mutex_unlock (&f->lock);

  return ret;
}

static void
blocking_job_func (SnodoWork *work,
                   gpointer   user_data)
{
  Job *job = user_data;
  Fixture *f = job->f;

  job_enter (job, work);

  g_mutex_lock (&f->lock);
  while (!f->gate_open)
    g_cond_wait (&f->cond, &f->lock);
  g_mutex_unlock (&f->lock);

  if (job->delay_ms > 0)
    g_usleep (job->delay_ms * G_TIME_SPAN_MILLISECOND);

  if (job->hold)
    {
      /* The thread is given back; the test completes the work later (and
       * then updates the counters). */
      g_atomic_pointer_set (&job->work, g_object_ref (work));
      return;
    }

  job_leave (job, SNODO_WORK_KIND_BLOCKING);
  snodo_work_complete (work);
}

static gboolean
submit_job (Fixture        *f,
            GObject        *owner,
            const char     *key,
            SnodoWorkKind   kind,
            gsize           cost_bytes,
            Job            *job,
            GError        **error)
{
  gboolean ret;

  f->in_submit = TRUE;
  ret = snodo_executor_submit (f->executor, owner, key, kind, cost_bytes,
                               kind == SNODO_WORK_KIND_ASYNC ? async_job_func : blocking_job_func,
                               job, job_destroy, error);
  f->in_submit = FALSE;
  job->admitted = ret;

  return ret;
}

/* Submits a job that must be admitted. */
static Job *
submit_new_job (Fixture       *f,
                GObject       *owner,
                const char    *key,
                SnodoWorkKind  kind,
                gboolean       hold)
{
  g_autoptr(GError) error = NULL;
  Job *job = job_new (f);

  job->hold = hold;
  g_assert_true (submit_job (f, owner, key, kind, 0, job, &error));
  g_assert_no_error (error);

  return job;
}

static void
notify_cb (GObject    *object,
           GParamSpec *pspec,
           gpointer    user_data)
{
  guint *count = user_data;

  (*count)++;
}

static void
test_defaults (Fixture       *f,
               gconstpointer  data)
{
  guint n_notify = 0;
  guint max_running = 0;

  g_test_summary ("The limits have their documented defaults, and setting one notifies "
                  "only when its value changes");

  g_assert_cmpuint (snodo_executor_get_max_threads (f->executor), ==,
                    MAX (4, 4 * g_get_num_processors ()));
  g_assert_cmpuint (snodo_executor_get_max_running (f->executor), ==, 1024);
  g_assert_cmpuint (snodo_executor_get_max_queued (f->executor), ==, 256);
  g_assert_cmpuint (snodo_executor_get_max_queued_bytes (f->executor), ==, 64 * 1024 * 1024);
  g_assert_cmpuint (snodo_executor_get_max_live_bytes (f->executor), ==, 256 * 1024 * 1024);
  g_assert_cmpuint (snodo_executor_get_live_bytes (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_admitted (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 0);

  g_signal_connect (f->executor, "notify::max-running", G_CALLBACK (notify_cb), &n_notify);
  snodo_executor_set_max_running (f->executor, 5);
  g_assert_cmpuint (n_notify, ==, 1);
  snodo_executor_set_max_running (f->executor, 5);
  g_assert_cmpuint (n_notify, ==, 1);
  g_object_set (f->executor, "max-running", 6, NULL);
  g_assert_cmpuint (n_notify, ==, 2);
  g_object_get (f->executor, "max-running", &max_running, NULL);
  g_assert_cmpuint (max_running, ==, 6);

  snodo_executor_set_max_threads (f->executor, 2);
  g_assert_cmpuint (snodo_executor_get_max_threads (f->executor), ==, 2);
  snodo_executor_set_max_queued (f->executor, 0);
  g_assert_cmpuint (snodo_executor_get_max_queued (f->executor), ==, 0);
  snodo_executor_set_max_queued_bytes (f->executor, G_MAXUINT64);
  g_assert_cmpuint (snodo_executor_get_max_queued_bytes (f->executor), ==, G_MAXUINT64);
}

static void
test_async_sleeps (Fixture       *f,
                   gconstpointer  data)
{
  const guint n = 200;
  gint64 start;
  gint64 elapsed;

  g_test_summary ("With the default limits, 200 asynchronous works that each wait 100 ms "
                  "on a timer all run at once and finish together");

  start = g_get_monotonic_time ();
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      Job *job = job_new (f);

      job->delay_ms = 100;
      g_assert_true (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 1024, job, &error));
      g_assert_no_error (error);
    }

  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 0);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == n, 10000);
  elapsed = g_get_monotonic_time () - start;
  g_test_message ("%u sleeps of 100 ms took %" G_GINT64_FORMAT " ms", n, elapsed / 1000);

  g_assert_cmpuint (f->peak, ==, n);
  g_assert_cmpint (elapsed, <, 3 * G_TIME_SPAN_SECOND);
  g_assert_cmpuint (snodo_executor_get_admitted (f->executor), ==, n);
  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      Job *job = g_ptr_array_index (f->jobs, i);

      g_assert_cmpint (job->destroyed, ==, 1);
      g_assert_false (job->ran_in_submit);
    }
}

static void
test_overload (Fixture       *f,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  Job *jobs[3];
  Job *refused;
  gint64 start;

  g_test_summary ("When the running and queued slots are full, submit() fails at once "
                  "with SNODO_ERROR_OVERLOADED; queued work then starts in FIFO order");

  snodo_executor_set_max_running (f->executor, 1);
  snodo_executor_set_max_queued (f->executor, 2);

  for (guint i = 0; i < 3; i++)
    jobs[i] = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);

  refused = job_new (f);
  start = g_get_monotonic_time ();
  g_assert_false (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 0, refused, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, G_TIME_SPAN_SECOND);
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_admitted (f->executor), ==, 3);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 2);
  g_assert_cmpint (refused->destroyed, ==, 0);

  /* Blocking work is refused the same way. */
  refused = job_new (f);
  g_assert_false (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_BLOCKING, 0, refused, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED);
  g_clear_error (&error);
  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, 2);

  for (guint i = 0; i < 3; i++)
    {
      WAIT_UNTIL (g_atomic_int_get (&jobs[i]->ran), 5000);
      for (guint j = i + 1; j < 3; j++)
        g_assert_false (g_atomic_int_get (&jobs[j]->ran));
      job_complete (jobs[i]);
    }

  g_assert_cmpuint (f->order->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    g_assert_cmpuint (g_array_index (f->order, guint, i), ==, jobs[i]->id);
  g_assert_cmpuint (f->peak, ==, 1);
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 3);
}

static void
test_queued_bytes (Fixture       *f,
                   gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  Job *running;
  Job *queued[2];
  Job *refused;

  g_test_summary ("The costs of queued work add up to at most max-queued-bytes; the cost of "
                  "work that starts at once does not count");

  snodo_executor_set_max_running (f->executor, 1);
  snodo_executor_set_max_queued_bytes (f->executor, 100);

  running = job_new (f);
  running->hold = TRUE;
  g_assert_true (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 1000, running, &error));
  g_assert_no_error (error);

  queued[0] = job_new (f);
  queued[0]->hold = TRUE;
  g_assert_true (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 60, queued[0], &error));
  g_assert_no_error (error);

  refused = job_new (f);
  g_assert_false (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 41, refused, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED);
  g_test_message ("%s", error->message);
  g_clear_error (&error);

  queued[1] = job_new (f);
  queued[1]->hold = TRUE;
  g_assert_true (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 40, queued[1], &error));
  g_assert_no_error (error);

  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 2);
  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, 1);

  /* Once a queued work starts, its cost no longer counts. */
  WAIT_UNTIL (g_atomic_int_get (&running->ran), 5000);
  job_complete (running);
  WAIT_UNTIL (g_atomic_int_get (&queued[0]->ran), 5000);
  refused = job_new (f);
  refused->hold = TRUE;
  g_assert_true (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 60, refused, &error));
  g_assert_no_error (error);

  job_complete (queued[0]);
  WAIT_UNTIL (g_atomic_int_get (&queued[1]->ran), 5000);
  job_complete (queued[1]);
  WAIT_UNTIL (g_atomic_int_get (&refused->ran), 5000);
  job_complete (refused);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 4, 5000);
}

static void
test_live_bytes (Fixture       *f,
                 gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  Job *running[2];
  Job *queued;
  Job *refused;
  Job *later;

  g_test_summary ("The costs of live work, running and queued, add up to at most "
                  "max-live-bytes, even with running slots free; a cost is given back when "
                  "the work finishes or is dropped from the queue");

  snodo_executor_set_max_running (f->executor, 2);
  snodo_executor_set_max_live_bytes (f->executor, 100);

  running[0] = job_new (f);
  running[0]->hold = TRUE;
  g_assert_true (submit_job (f, f->owner, "a", SNODO_WORK_KIND_ASYNC, 60, running[0], &error));
  g_assert_no_error (error);
  g_assert_cmpuint (snodo_executor_get_live_bytes (f->executor), ==, 60);

  /* A running slot is free, but the budget is not. */
  refused = job_new (f);
  g_assert_false (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 41, refused, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  refused = job_new (f);
  g_assert_false (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_BLOCKING, 41, refused, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED);
  g_clear_error (&error);
  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, 2);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 1);

  running[1] = job_new (f);
  running[1]->hold = TRUE;
  g_assert_true (submit_job (f, f->owner, "b", SNODO_WORK_KIND_ASYNC, 30, running[1], &error));
  g_assert_no_error (error);

  /* Queued work counts too, until it is dropped. */
  queued = job_new (f);
  g_assert_true (submit_job (f, f->owner, "c", SNODO_WORK_KIND_ASYNC, 10, queued, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_live_bytes (f->executor), ==, 100);
  refused = job_new (f);
  g_assert_false (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 1, refused, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED);
  g_clear_error (&error);
  g_assert_true (snodo_executor_cancel (f->executor, f->owner, "c"));
  g_assert_cmpint (queued->destroyed, ==, 1);
  g_assert_cmpuint (snodo_executor_get_live_bytes (f->executor), ==, 90);

  /* A running work's cost is given back when it finishes. */
  WAIT_UNTIL (g_atomic_int_get (&running[0]->ran), 5000);
  job_complete (running[0]);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 1, 5000);
  g_assert_cmpuint (snodo_executor_get_live_bytes (f->executor), ==, 30);

  later = job_new (f);
  later->hold = TRUE;
  g_assert_true (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 70, later, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (snodo_executor_get_live_bytes (f->executor), ==, 100);

  /* Lowering the budget refuses new work and cancels nothing. */
  snodo_executor_set_max_live_bytes (f->executor, 50);
  refused = job_new (f);
  g_assert_false (submit_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 0, refused, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED);
  g_clear_error (&error);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 2);

  WAIT_UNTIL (g_atomic_int_get (&running[1]->ran), 5000);
  job_complete (running[1]);
  WAIT_UNTIL (g_atomic_int_get (&later->ran), 5000);
  job_complete (later);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 3, 5000);
  g_assert_cmpuint (snodo_executor_get_live_bytes (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, 4);
}

static void
test_blocking_threads (Fixture       *f,
                       gconstpointer  data)
{
  const guint n = 10;

  g_test_summary ("Blocking work runs on worker threads, never the main thread, and never "
                  "more than max-threads at once");

  snodo_executor_set_max_threads (f->executor, 3);
  gate_set (f, FALSE);

  for (guint i = 0; i < n; i++)
    {
      Job *job = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_BLOCKING, FALSE);

      job->delay_ms = 20;
    }

  /* The first three start and wait at the gate; the others must not start
   * while they do. */
  WAIT_UNTIL (fixture_get_blocking_running (f) >= 3, 5000);
  iterate_for (50);
  g_assert_cmpuint (fixture_get_blocking_running (f), ==, 3);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 3);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, n - 3);

  gate_set (f, TRUE);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == n, 10000);

  g_mutex_lock (&f->lock);
  g_assert_cmpuint (f->blocking_peak, ==, 3);
  g_mutex_unlock (&f->lock);

  for (guint i = 0; i < n; i++)
    {
      Job *job = g_ptr_array_index (f->jobs, i);

      g_assert_cmpint (g_atomic_int_get (&job->ran), ==, 1);
      g_assert_true (job->thread != f->main_thread);
    }
}

static void
test_blocking_does_not_hold_async (Fixture       *f,
                                   gconstpointer  data)
{
  Job *a;
  Job *b;
  Job *c;
  Job *d;

  g_test_summary ("A blocking work waiting for a thread does not delay asynchronous work "
                  "submitted after it, whether it starts at once or from the queue");

  snodo_executor_set_max_threads (f->executor, 1);
  snodo_executor_set_max_running (f->executor, 2);
  gate_set (f, FALSE);

  a = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_BLOCKING, FALSE);
  WAIT_UNTIL (fixture_get_blocking_running (f) == 1, 5000);

  /* B waits for the only thread; C starts at once anyway. */
  b = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_BLOCKING, FALSE);
  c = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 1);
  WAIT_UNTIL (g_atomic_int_get (&c->ran), 5000);

  /* Both slots are taken: D queues behind B. When C completes, B still has
   * no thread, so D starts first. */
  d = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 2);
  job_complete (c);
  WAIT_UNTIL (g_atomic_int_get (&d->ran), 5000);
  g_assert_false (g_atomic_int_get (&b->ran));
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 1);

  /* When A finishes, both its slot and its thread are free: B starts. */
  gate_set (f, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->destroyed), 5000);
  WAIT_UNTIL (g_atomic_int_get (&b->ran), 5000);
  job_complete (d);

  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 4, 5000);
  g_assert_cmpuint (f->order->len, ==, 4);
  g_assert_cmpuint (g_array_index (f->order, guint, 0), ==, a->id);
  g_assert_cmpuint (g_array_index (f->order, guint, 1), ==, c->id);
  g_assert_cmpuint (g_array_index (f->order, guint, 2), ==, d->id);
  g_assert_cmpuint (g_array_index (f->order, guint, 3), ==, b->id);
}

static void
test_blocking_returns_before_complete (Fixture       *f,
                                       gconstpointer  data)
{
  Job *a;
  Job *b;

  g_test_summary ("A blocking function that returns before completing gives its thread "
                  "back but keeps its running slot until it completes");

  snodo_executor_set_max_threads (f->executor, 1);

  a = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_BLOCKING, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);
  b = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_BLOCKING, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&b->ran), 5000);

  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 2);
  /* The work pointer is published after the function's bookkeeping. */
  WAIT_UNTIL (g_atomic_pointer_get (&a->work) != NULL, 5000);
  WAIT_UNTIL (g_atomic_pointer_get (&b->work) != NULL, 5000);
  g_assert_cmpint (a->destroyed, ==, 0);

  /* Completed here, after the function returned: finished here too. */
  snodo_work_complete (a->work);
  g_clear_object (&a->work);
  g_assert_cmpint (a->destroyed, ==, 1);
  g_assert_true (a->destroy_thread == f->main_thread);
  snodo_work_complete (b->work);
  g_clear_object (&b->work);

  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 2);
}

static void
nested_submit_func (SnodoWork *work,
                    gpointer   user_data)
{
  Job *job = user_data;
  Fixture *f = job->f;
  Job *inner;

  job_enter (job, work);

  inner = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, FALSE);
  g_assert_false (g_atomic_int_get (&inner->ran));

  job_leave (job, SNODO_WORK_KIND_ASYNC);
  snodo_work_complete (work);
}

static void
test_async_context (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  GMainContext *context = g_main_context_new ();
  Job *job;
  Job *outer;

  g_test_summary ("Asynchronous work runs on the thread-default main context of the "
                  "submitter, from a source, never inside submit()");

  g_main_context_push_thread_default (context);

  job = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, FALSE);
  g_assert_false (g_atomic_int_get (&job->ran));

  /* The global default context does not run it. */
  for (guint i = 0; i < 10; i++)
    g_main_context_iteration (g_main_context_default (), FALSE);
  g_assert_false (g_atomic_int_get (&job->ran));

  WAIT_UNTIL (g_atomic_int_get (&job->ran), 5000);
  g_assert_true (job->context == context);
  g_assert_true (job->thread == f->main_thread);
  g_assert_false (job->ran_in_submit);

  /* Submitting from inside a work function does not run the new work
   * there either. */
  outer = job_new (f);
  f->in_submit = TRUE;
  outer->admitted = snodo_executor_submit (f->executor, f->owner, NULL, SNODO_WORK_KIND_ASYNC,
                                           0, nested_submit_func, outer, job_destroy, &error);
  f->in_submit = FALSE;
  g_assert_no_error (error);
  g_assert_true (outer->admitted);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 3, 5000);

  for (guint i = 0; i < f->jobs->len; i++)
    {
      Job *j = g_ptr_array_index (f->jobs, i);

      g_assert_true (j->context == context);
      g_assert_false (j->ran_in_submit);
    }

  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
}

static void
test_cancel_queued (Fixture       *f,
                    gconstpointer  data)
{
  Job *a;
  Job *b;

  g_test_summary ("Cancelling queued work drops it: its function never runs and its "
                  "destroy notify is called at once");

  snodo_executor_set_max_running (f->executor, 1);

  a = submit_new_job (f, f->owner, "a", SNODO_WORK_KIND_ASYNC, TRUE);
  b = submit_new_job (f, f->owner, "b", SNODO_WORK_KIND_ASYNC, FALSE);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->owner), ==, 2);

  g_assert_true (snodo_executor_cancel (f->executor, f->owner, "b"));
  g_assert_cmpint (b->destroyed, ==, 1);
  g_assert_true (b->destroy_thread == f->main_thread);
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->owner), ==, 1);

  g_assert_false (snodo_executor_cancel (f->executor, f->owner, "b"));
  g_assert_false (snodo_executor_cancel (f->executor, f->owner, "nope"));
  g_assert_false (snodo_executor_cancel (f->executor, f->other_owner, "a"));
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 1);

  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);
  job_complete (a);
  iterate_for (20);

  g_assert_false (g_atomic_int_get (&b->ran));
  g_assert_cmpint (b->destroyed, ==, 1);
  g_assert_cmpuint (snodo_executor_get_admitted (f->executor), ==, 2);
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->owner), ==, 0);
}

static void
count_cb (GCancellable *cancellable,
          gpointer      user_data)
{
  guint *count = user_data;

  (*count)++;
}

static void
test_cancel_running (Fixture       *f,
                     gconstpointer  data)
{
  Job *a;
  guint n_cancelled = 0;

  g_test_summary ("Cancelling running work cancels its cancellable once; the work still "
                  "completes and counts as completed");

  a = submit_new_job (f, f->owner, "a", SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);

  g_assert_true (snodo_work_get_kind (a->work) == SNODO_WORK_KIND_ASYNC);
  g_assert_cmpstr (snodo_work_get_key (a->work), ==, "a");
  g_assert_false (snodo_work_is_cancelled (a->work));
  g_signal_connect (snodo_work_get_cancellable (a->work), "cancelled",
                    G_CALLBACK (count_cb), &n_cancelled);

  g_assert_true (snodo_executor_cancel (f->executor, f->owner, "a"));
  g_assert_cmpuint (n_cancelled, ==, 1);
  g_assert_true (snodo_work_is_cancelled (a->work));
  g_assert_true (g_cancellable_is_cancelled (snodo_work_get_cancellable (a->work)));
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 1);

  /* Still live: found again, but neither cancelled nor counted twice. */
  g_assert_true (snodo_executor_cancel (f->executor, f->owner, "a"));
  g_assert_cmpuint (snodo_executor_cancel_owner (f->executor, f->owner), ==, 1);
  g_assert_cmpuint (n_cancelled, ==, 1);
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 1);
  g_assert_cmpint (a->destroyed, ==, 0);

  job_complete (a);
  g_assert_cmpint (a->destroyed, ==, 1);
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 0);
  g_assert_false (snodo_executor_cancel (f->executor, f->owner, "a"));
}

static gpointer
get_cancellable_thread (gpointer data)
{
  return snodo_work_get_cancellable (data);
}

static void
test_cancel_before_cancellable (Fixture       *f,
                                gconstpointer  data)
{
  Job *a;
  Job *b;
  GThread *threads[4];
  GCancellable *cancellable;

  g_test_summary ("A work's cancellable is made when first asked for: one for every "
                  "caller, whatever the thread, and already cancelled if the work was");

  a = submit_new_job (f, f->owner, "a", SNODO_WORK_KIND_ASYNC, TRUE);
  b = submit_new_job (f, f->owner, "b", SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran) && g_atomic_int_get (&b->ran), 5000);

  /* Cancelled before anyone asked for the cancellable. */
  g_assert_true (snodo_executor_cancel (f->executor, f->owner, "a"));
  g_assert_true (snodo_work_is_cancelled (a->work));
  cancellable = snodo_work_get_cancellable (a->work);
  g_assert_true (G_IS_CANCELLABLE (cancellable));
  g_assert_true (g_cancellable_is_cancelled (cancellable));
  g_assert_true (snodo_work_get_cancellable (a->work) == cancellable);

  /* Asked for from several threads at once: the same one. */
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("get-cancellable", get_cancellable_thread, b->work);
  cancellable = snodo_work_get_cancellable (b->work);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    g_assert_true (g_thread_join (threads[i]) == cancellable);
  g_assert_false (snodo_work_is_cancelled (b->work));

  /* Cancelled through the cancellable itself. */
  g_cancellable_cancel (cancellable);
  g_assert_true (snodo_work_is_cancelled (b->work));

  job_complete (a);
  job_complete (b);
  g_assert_cmpint (a->destroyed, ==, 1);
  g_assert_cmpint (b->destroyed, ==, 1);
}

static void
test_cancel_owner (Fixture       *f,
                   gconstpointer  data)
{
  Job *a1;
  Job *b1;
  Job *a2;
  Job *b2;
  Job *a3;

  g_test_summary ("cancel_owner() cancels all of one owner's live work, queued or running, "
                  "keyed or not, and nothing of another owner's");

  snodo_executor_set_max_running (f->executor, 2);

  a1 = submit_new_job (f, f->owner, "1", SNODO_WORK_KIND_ASYNC, TRUE);
  b1 = submit_new_job (f, f->other_owner, "1", SNODO_WORK_KIND_ASYNC, TRUE);
  a2 = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  b2 = submit_new_job (f, f->other_owner, "2", SNODO_WORK_KIND_BLOCKING, FALSE);
  a3 = submit_new_job (f, f->owner, "3", SNODO_WORK_KIND_BLOCKING, FALSE);
  WAIT_UNTIL (g_atomic_int_get (&a1->ran) && g_atomic_int_get (&b1->ran), 5000);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 3);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->owner), ==, 3);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->other_owner), ==, 2);

  g_assert_cmpuint (snodo_executor_cancel_owner (f->executor, f->owner), ==, 3);
  g_assert_true (snodo_work_is_cancelled (a1->work));
  g_assert_false (snodo_work_is_cancelled (b1->work));
  g_assert_cmpint (a2->destroyed, ==, 1);
  g_assert_cmpint (a3->destroyed, ==, 1);
  g_assert_cmpint (b2->destroyed, ==, 0);
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 3);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->owner), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->other_owner), ==, 2);

  job_complete (a1);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->owner), ==, 0);
  g_assert_cmpuint (snodo_executor_cancel_owner (f->executor, f->owner), ==, 0);

  WAIT_UNTIL (g_atomic_int_get (&b2->destroyed), 5000);
  job_complete (b1);
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->other_owner), ==, 0);
  g_assert_false (g_atomic_int_get (&a2->ran));
  g_assert_false (g_atomic_int_get (&a3->ran));
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 3);
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 3);
}

static void
test_duplicate_key (Fixture       *f,
                    gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  Job *x;
  Job *dup;

  g_test_summary ("An owner cannot have two live works with the same key; the key is free "
                  "again once the work has finished");

  snodo_executor_set_max_running (f->executor, 1);

  x = submit_new_job (f, f->owner, "x", SNODO_WORK_KIND_ASYNC, TRUE);
  /* Queued, still live. */
  submit_new_job (f, f->owner, "y", SNODO_WORK_KIND_ASYNC, FALSE);

  dup = job_new (f);
  g_assert_false (submit_job (f, f->owner, "x", SNODO_WORK_KIND_ASYNC, 0, dup, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  dup = job_new (f);
  g_assert_false (submit_job (f, f->owner, "y", SNODO_WORK_KIND_BLOCKING, 0, dup, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY);
  g_clear_error (&error);
  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, 0);

  /* Same key, other owner; and no key at all, twice. */
  submit_new_job (f, f->other_owner, "x", SNODO_WORK_KIND_ASYNC, FALSE);
  submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, FALSE);
  submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, FALSE);

  WAIT_UNTIL (g_atomic_int_get (&x->ran), 5000);
  job_complete (x);
  /* Finished inside complete(), as the function returned long ago. */
  submit_new_job (f, f->owner, "x", SNODO_WORK_KIND_ASYNC, FALSE);

  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 6, 5000);
  g_assert_cmpuint (snodo_executor_get_admitted (f->executor), ==, 6);
}

typedef struct
{
  gboolean  done;
  gboolean  result;
  GError   *error;
  GThread  *thread;
  GMainContext *context;
} WaitResult;

static void
wait_owner_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  WaitResult *wait = user_data;

  wait->result = snodo_executor_wait_owner_finish (SNODO_EXECUTOR (object), result, &wait->error);
  wait->thread = g_thread_self ();
  wait->context = g_main_context_get_thread_default ();
  wait->done = TRUE;
}

static gpointer
complete_thread_func (gpointer data)
{
  Job *job = data;

  job_complete (job);

  return NULL;
}

static void
test_wait_owner (Fixture       *f,
                 gconstpointer  data)
{
  GMainContext *context = g_main_context_new ();
  WaitResult wait = { 0, };
  GThread *thread;
  Job *a;
  Job *b;

  g_test_summary ("wait_owner_async() completes once the owner's last work has finished, "
                  "in the caller's context, and never from inside the call");

  g_main_context_push_thread_default (context);

  a = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  b = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  submit_new_job (f, f->other_owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (snodo_executor_get_n_running (f->executor) == 3 && f->order->len == 3, 5000);

  snodo_executor_wait_owner_async (f->executor, f->owner, NULL, wait_owner_cb, &wait);
  iterate_for (20);
  g_assert_false (wait.done);

  job_complete (a);
  iterate_for (20);
  g_assert_false (wait.done);

  /* The last one completes on another thread; the callback still comes
   * here. */
  thread = g_thread_new ("complete", complete_thread_func, b);
  g_thread_join (thread);
  g_assert_true (snodo_test_wait_for (&wait.done, 5000));
  g_assert_no_error (wait.error);
  g_assert_true (wait.result);
  g_assert_true (wait.thread == f->main_thread);
  g_assert_true (wait.context == context);
  g_assert_cmpint (b->destroyed, ==, 1);

  /* No live work: completes, but not synchronously. */
  memset (&wait, 0, sizeof wait);
  snodo_executor_wait_owner_async (f->executor, f->owner, NULL, wait_owner_cb, &wait);
  g_assert_false (wait.done);
  g_assert_true (snodo_test_wait_for (&wait.done, 5000));
  g_assert_no_error (wait.error);
  g_assert_true (wait.result);

  /* The other owner's work is still running. */
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->other_owner), ==, 1);
  job_complete (g_ptr_array_index (f->jobs, 2));

  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
}

static void
test_wait_owner_cancel (Fixture       *f,
                        gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCancellable) cancelled = g_cancellable_new ();
  WaitResult wait = { 0, };
  Job *a;

  g_test_summary ("A cancelled wait_owner_async() fails with G_IO_ERROR_CANCELLED and "
                  "leaves the work alone");

  a = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);

  snodo_executor_wait_owner_async (f->executor, f->owner, cancellable, wait_owner_cb, &wait);
  iterate_for (10);
  g_assert_false (wait.done);
  g_cancellable_cancel (cancellable);
  g_assert_false (wait.done);
  g_assert_true (snodo_test_wait_for (&wait.done, 5000));
  g_assert_error (wait.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (wait.result);
  g_clear_error (&wait.error);
  g_assert_false (snodo_work_is_cancelled (a->work));

  /* Already cancelled, with and without live work. */
  memset (&wait, 0, sizeof wait);
  g_cancellable_cancel (cancelled);
  snodo_executor_wait_owner_async (f->executor, f->owner, cancelled, wait_owner_cb, &wait);
  g_assert_false (wait.done);
  g_assert_true (snodo_test_wait_for (&wait.done, 5000));
  g_assert_error (wait.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&wait.error);

  job_complete (a);

  memset (&wait, 0, sizeof wait);
  snodo_executor_wait_owner_async (f->executor, f->owner, cancelled, wait_owner_cb, &wait);
  g_assert_true (snodo_test_wait_for (&wait.done, 5000));
  g_assert_error (wait.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&wait.error);
}

static void
test_complete_other_thread (Fixture       *f,
                            gconstpointer  data)
{
  GThread *thread;
  Job *a;

  g_test_summary ("A work may be completed from another thread after its function "
                  "returned; it is finished, destroy notify included, in that thread");

  a = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);

  thread = g_thread_new ("complete", complete_thread_func, a);
  g_thread_join (thread);

  g_assert_cmpint (a->destroyed, ==, 1);
  g_assert_true (a->destroy_thread == thread);
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 1);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 0);
}

static void
test_complete_twice (Fixture       *f,
                     gconstpointer  data)
{
  g_autoptr(SnodoWork) work = NULL;
  Job *a;

  g_test_summary ("Completing a work twice is a programmer error, reported as a critical");

  a = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);

  work = g_object_ref (a->work);
  job_complete (a);
  g_assert_cmpint (a->destroyed, ==, 1);

  g_test_expect_message ("Snodo", G_LOG_LEVEL_CRITICAL, "*already completed*");
  snodo_work_complete (work);
  g_test_assert_expected_messages ();

  g_assert_cmpint (a->destroyed, ==, 1);
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 1);
}

static void
test_run_dispose (Fixture       *f,
                  gconstpointer  data)
{
  Job *a;
  Job *b;
  Job *c;

  g_test_summary ("Disposing of an executor by force drops its queued work and cancels "
                  "its running work, which still completes");

  snodo_executor_set_max_running (f->executor, 1);

  a = submit_new_job (f, f->owner, "a", SNODO_WORK_KIND_ASYNC, TRUE);
  b = submit_new_job (f, f->owner, "b", SNODO_WORK_KIND_ASYNC, FALSE);
  c = submit_new_job (f, f->other_owner, NULL, SNODO_WORK_KIND_BLOCKING, FALSE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);

  g_object_run_dispose (G_OBJECT (f->executor));
  g_assert_cmpint (b->destroyed, ==, 1);
  g_assert_cmpint (c->destroyed, ==, 1);
  g_assert_true (snodo_work_is_cancelled (a->work));
  g_assert_cmpuint (snodo_executor_get_cancelled (f->executor), ==, 3);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 0);

  job_complete (a);
  g_assert_false (g_atomic_int_get (&b->ran));
  g_assert_false (g_atomic_int_get (&c->ran));
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 1);
}

static void
test_finalize_in_worker (Fixture       *f,
                         gconstpointer  data)
{
  Job *a;

  g_test_summary ("Live work keeps its executor alive; the last reference may be dropped "
                  "on a worker thread");

  gate_set (f, FALSE);
  a = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_BLOCKING, FALSE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);

  g_clear_object (&f->executor);
  iterate_for (10);
  g_assert_false (g_atomic_int_get (&f->finalized));

  gate_set (f, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&f->finalized), 5000);
  g_assert_true (f->finalize_thread != f->main_thread);
  g_assert_cmpint (g_atomic_int_get (&a->destroyed), ==, 1);
}

typedef struct
{
  Fixture *f;
  GObject *owner;
  GRand   *rand;
  guint    first_job;
  guint    n_jobs;
  guint    n_admitted;
  guint    n_rejected;
  gint     done;
} StressThread;

static gpointer
stress_thread_func (gpointer data)
{
  StressThread *st = data;
  Fixture *f = st->f;

  for (guint i = 0; i < st->n_jobs; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *key = g_strdup_printf ("%u", i);
      Job *job = g_ptr_array_index (f->jobs, st->first_job + i);
      SnodoWorkKind kind = g_rand_boolean (st->rand) ? SNODO_WORK_KIND_ASYNC
                                                     : SNODO_WORK_KIND_BLOCKING;

      job->delay_ms = kind == SNODO_WORK_KIND_BLOCKING ? g_rand_int_range (st->rand, 0, 2) : 0;
      job->admitted = snodo_executor_submit (f->executor, st->owner, key, kind, 10,
                                             kind == SNODO_WORK_KIND_ASYNC ? async_job_func
                                                                           : blocking_job_func,
                                             job, job_destroy, &error);
      if (job->admitted)
        {
          st->n_admitted++;
        }
      else
        {
          g_assert_error (error, SNODO_ERROR, SNODO_ERROR_OVERLOADED);
          st->n_rejected++;
        }

      if (g_rand_int_range (st->rand, 0, 4) == 0)
        {
          g_autofree char *victim = g_strdup_printf ("%u", g_rand_int_range (st->rand, 0, i + 1));

          snodo_executor_cancel (f->executor, st->owner, victim);
        }
      /* Leave the workers some room, so that most work is admitted. */
      g_usleep (g_rand_int_range (st->rand, 0, 200));
    }

  g_atomic_int_set (&st->done, TRUE);

  return NULL;
}

static void
test_stress (Fixture       *f,
             gconstpointer  data)
{
  const guint n_threads = 4;
  const guint n_jobs = 300;
  StressThread st[4];
  GThread *threads[4];
  guint64 n_admitted = 0;
  guint64 n_rejected = 0;
  guint64 n_ran = 0;
  guint64 n_destroyed;

  g_test_summary ("Submitting, cancelling and completing from several threads at once keeps "
                  "the limits and the counters consistent");

  snodo_executor_set_max_threads (f->executor, 3);
  snodo_executor_set_max_running (f->executor, 8);
  snodo_executor_set_max_queued (f->executor, 16);

  for (guint t = 0; t < n_threads; t++)
    {
      st[t].f = f;
      st[t].owner = g_object_new (G_TYPE_OBJECT, NULL);
      st[t].rand = g_rand_new_with_seed (g_test_rand_int ());
      st[t].first_job = f->jobs->len;
      st[t].n_jobs = n_jobs;
      st[t].n_admitted = 0;
      st[t].n_rejected = 0;
      st[t].done = FALSE;
      for (guint i = 0; i < n_jobs; i++)
        job_new (f);
    }

  /* ASYNC work from the submitting threads runs on the global default
   * context, which WAIT_UNTIL iterates here. */
  for (guint t = 0; t < n_threads; t++)
    threads[t] = g_thread_new ("stress", stress_thread_func, &st[t]);
  for (guint t = 0; t < n_threads; t++)
    WAIT_UNTIL (g_atomic_int_get (&st[t].done), 30000);
  for (guint t = 0; t < n_threads; t++)
    {
      g_thread_join (threads[t]);
      n_admitted += st[t].n_admitted;
      n_rejected += st[t].n_rejected;
    }
  for (guint t = 0; t < n_threads; t++)
    WAIT_UNTIL (snodo_executor_get_n_live_for_owner (f->executor, st[t].owner) == 0, 30000);

  do
    {
      n_destroyed = 0;
      for (guint i = 0; i < f->jobs->len; i++)
        n_destroyed += g_atomic_int_get (&((Job *) g_ptr_array_index (f->jobs, i))->destroyed);
      if (n_destroyed < n_admitted)
        iterate_for (1);
    }
  while (n_destroyed < n_admitted);

  for (guint i = 0; i < f->jobs->len; i++)
    n_ran += g_atomic_int_get (&((Job *) g_ptr_array_index (f->jobs, i))->ran);

  g_test_message ("admitted %" G_GUINT64_FORMAT ", rejected %" G_GUINT64_FORMAT
                  ", ran %" G_GUINT64_FORMAT ", cancelled %" G_GUINT64_FORMAT,
                  n_admitted, n_rejected, n_ran, snodo_executor_get_cancelled (f->executor));

  g_assert_cmpuint (n_admitted + n_rejected, ==, n_threads * n_jobs);
  g_assert_cmpuint (snodo_executor_get_admitted (f->executor), ==, n_admitted);
  g_assert_cmpuint (snodo_executor_get_rejected (f->executor), ==, n_rejected);
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, n_ran);
  g_assert_cmpuint (snodo_executor_get_n_running (f->executor), ==, 0);
  g_assert_cmpuint (snodo_executor_get_n_queued (f->executor), ==, 0);
  g_assert_cmpuint (n_destroyed, ==, n_admitted);
  g_mutex_lock (&f->lock);
  g_assert_cmpuint (f->peak, <=, 8);
  g_assert_cmpuint (f->blocking_peak, <=, 3);
  g_mutex_unlock (&f->lock);

  for (guint t = 0; t < n_threads; t++)
    {
      g_assert_finalize_object (st[t].owner);
      g_rand_free (st[t].rand);
    }
}

/* run_started(): a callback of the context that submits works and runs
 * them at once. */
typedef struct
{
  Fixture *f;
  guint    n_submit;
  guint    n_ran_after_submit;
  guint    n_run;
  gboolean done;
} RunStarted;

static gboolean
run_started_cb (gpointer user_data)
{
  RunStarted *rs = user_data;

  for (guint i = 0; i < rs->n_submit; i++)
    submit_new_job (rs->f, rs->f->owner, NULL, SNODO_WORK_KIND_ASYNC, FALSE);
  rs->n_ran_after_submit = rs->f->order->len;
  rs->n_run = snodo_executor_run_started (rs->f->executor, g_main_context_get_thread_default ());
  rs->done = TRUE;

  return G_SOURCE_REMOVE;
}

static void
run_started_from_idle (Fixture    *f,
                       RunStarted *rs)
{
  GSource *source = g_idle_source_new ();

  rs->f = f;
  g_source_set_callback (source, run_started_cb, rs, NULL);
  g_source_attach (source, g_main_context_get_thread_default ());
  g_source_unref (source);
  WAIT_UNTIL (rs->done, 5000);
}

/* Submits another work, then tries to run it (and iterates the context)
 * from inside this work function: neither may run it here. */
static void
nested_run_started_func (SnodoWork *work,
                         gpointer   user_data)
{
  Job *job = user_data;
  Fixture *f = job->f;
  Job *inner;

  job_enter (job, work);
  inner = submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, FALSE);
  g_assert_cmpuint (snodo_executor_run_started (f->executor, g_main_context_get_thread_default ()), ==, 0);
  for (guint i = 0; i < 5; i++)
    g_main_context_iteration (g_main_context_get_thread_default (), FALSE);
  g_assert_false (g_atomic_int_get (&inner->ran));
  job_leave (job, SNODO_WORK_KIND_ASYNC);
  snodo_work_complete (work);
}

static gboolean
nested_run_started_cb (gpointer user_data)
{
  Job *outer = user_data;
  Fixture *f = outer->f;
  g_autoptr(GError) error = NULL;

  outer->admitted = snodo_executor_submit (f->executor, f->owner, NULL, SNODO_WORK_KIND_ASYNC, 0,
                                           nested_run_started_func, outer, job_destroy, &error);
  g_assert_no_error (error);
  /* Runs the outer work, which submits the inner one and tries to run it. */
  g_assert_cmpuint (snodo_executor_run_started (f->executor, g_main_context_get_thread_default ()), ==, 1);

  return G_SOURCE_REMOVE;
}

static gpointer
run_started_thread_func (gpointer data)
{
  Fixture *f = data;
  /* Where the first job ran. */
  GMainContext *context = ((Job *) g_ptr_array_index (f->jobs, 0))->context;

  return GUINT_TO_POINTER (snodo_executor_run_started (f->executor, context));
}

static void
test_run_started (Fixture       *f,
                  gconstpointer  data)
{
  GMainContext *context = g_main_context_new ();
  RunStarted rs = { 0, };
  GSource *source;
  GThread *thread;
  Job *outer;

  g_test_summary ("run_started() runs the works started for a context from a callback of that "
                  "context, in order, after submit() returned, a batch at most, never inside a "
                  "work function, and nothing on a thread that does not run the context");

  g_main_context_push_thread_default (context);

  /* From a callback of the context: at once, in order. */
  rs.n_submit = 3;
  run_started_from_idle (f, &rs);
  g_assert_cmpuint (rs.n_ran_after_submit, ==, 0);
  g_assert_cmpuint (rs.n_run, ==, 3);
  g_assert_cmpuint (f->order->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      Job *job = g_ptr_array_index (f->jobs, i);

      g_assert_cmpuint (g_array_index (f->order, guint, i), ==, i);
      g_assert_false (job->ran_in_submit);
      g_assert_true (job->context == context);
      g_assert_cmpint (job->destroyed, ==, 1);
    }
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 3);

  /* A batch at most; the rest runs from the executor's own source. */
  memset (&rs, 0, sizeof rs);
  rs.n_submit = 40;
  run_started_from_idle (f, &rs);
  g_assert_cmpuint (rs.n_run, ==, 32);
  g_assert_cmpuint (rs.n_ran_after_submit, ==, 3);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 43, 5000);
  for (guint i = 0; i < f->order->len; i++)
    g_assert_cmpuint (g_array_index (f->order, guint, i), ==, i);

  /* Not from a thread that does not own the context (this one does: it
   * pushed it). */
  submit_new_job (f, f->owner, NULL, SNODO_WORK_KIND_ASYNC, FALSE);
  thread = g_thread_new ("run-started", run_started_thread_func, f);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_thread_join (thread)), ==, 0);
  g_assert_cmpuint (f->order->len, ==, 43);
  /* Nor for a context with nothing started for it. */
  g_assert_cmpuint (snodo_executor_run_started (f->executor, g_main_context_default ()), ==, 0);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 44, 5000);

  /* Never inside a work function, even one that iterates the context. */
  outer = job_new (f);
  source = g_idle_source_new ();
  g_source_set_callback (source, nested_run_started_cb, outer, NULL);
  g_source_attach (source, context);
  g_source_unref (source);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == 46, 5000);
  g_assert_cmpuint (snodo_executor_get_admitted (f->executor), ==, 46);

  g_main_context_pop_thread_default (context);
  g_main_context_unref (context);
}

static void
test_owner_reuse (Fixture       *f,
                  gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  WaitResult wait = { 0, };
  Job *a;
  Job *b;
  Job *dup;

  g_test_summary ("An owner whose work has all ended has no live work, whether or not another "
                  "owner came since; keys are freed by release_key() and by the end of the work, "
                  "and a key released and taken again stays with the newer work");

  for (guint round = 0; round < 3; round++)
    {
      GObject *owner = round % 2 == 0 ? f->owner : f->other_owner;

      a = submit_new_job (f, owner, "k", SNODO_WORK_KIND_ASYNC, TRUE);
      WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);
      g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, owner), ==, 1);
      g_assert_true (snodo_executor_has_key (f->executor, owner, "k"));
      job_complete (a);
      g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->owner), ==, 0);
      g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->other_owner), ==, 0);
      g_assert_false (snodo_executor_has_key (f->executor, owner, "k"));
      g_assert_false (snodo_executor_cancel (f->executor, owner, "k"));
      g_assert_cmpuint (snodo_executor_cancel_owner (f->executor, owner), ==, 0);

      memset (&wait, 0, sizeof wait);
      snodo_executor_wait_owner_async (f->executor, owner, NULL, wait_owner_cb, &wait);
      g_assert_true (snodo_test_wait_for (&wait.done, 5000));
      g_assert_no_error (wait.error);
      g_assert_true (wait.result);
    }

  /* A released key may be taken by new work while the old work is live;
   * when the old one ends, the new one keeps it. */
  a = submit_new_job (f, f->owner, "k", SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);
  snodo_executor_release_key (f->executor, a->work);
  g_assert_false (snodo_executor_has_key (f->executor, f->owner, "k"));
  /* Twice is harmless. */
  snodo_executor_release_key (f->executor, a->work);
  b = submit_new_job (f, f->owner, "k", SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&b->ran), 5000);
  job_complete (a);
  g_assert_true (snodo_executor_has_key (f->executor, f->owner, "k"));
  dup = job_new (f);
  g_assert_false (submit_job (f, f->owner, "k", SNODO_WORK_KIND_ASYNC, 0, dup, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY);
  g_clear_error (&error);
  g_assert_true (snodo_executor_cancel (f->executor, f->owner, "k"));
  g_assert_true (snodo_work_is_cancelled (b->work));
  job_complete (b);
  g_assert_false (snodo_executor_has_key (f->executor, f->owner, "k"));

  /* A key longer than fits in the work, and one released before the work
   * ends. */
  a = submit_new_job (f, f->other_owner, "a-key-that-is-longer-than-twenty-four-bytes",
                      SNODO_WORK_KIND_ASYNC, TRUE);
  WAIT_UNTIL (g_atomic_int_get (&a->ran), 5000);
  g_assert_cmpstr (snodo_work_get_key (a->work), ==, "a-key-that-is-longer-than-twenty-four-bytes");
  g_assert_true (snodo_executor_has_key (f->executor, f->other_owner,
                                         "a-key-that-is-longer-than-twenty-four-bytes"));
  job_complete (a);
  g_assert_false (snodo_executor_has_key (f->executor, f->other_owner,
                                          "a-key-that-is-longer-than-twenty-four-bytes"));
  g_assert_cmpuint (snodo_executor_get_completed (f->executor), ==, 6);
}

static void
test_many_keys (Fixture       *f,
                gconstpointer  data)
{
  const guint n = 600;
  g_autoptr(GRand) rand = g_rand_new_with_seed (8);
  g_autofree gboolean *done = g_new0 (gboolean, n);
  g_autofree guint *order = g_new (guint, n);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) held = g_ptr_array_new ();

  g_test_summary ("Many live keys of one owner, finished in random order: each is found while "
                  "its work is live, and only then");

  for (guint i = 0; i < n; i++)
    {
      /* Some longer than fit in the work. */
      g_ptr_array_add (keys, i % 7 == 0 ? g_strdup_printf ("a-much-longer-key-than-the-others-%u", i)
                                        : g_strdup_printf ("%u", i));
      g_ptr_array_add (held, submit_new_job (f, f->owner, keys->pdata[i], SNODO_WORK_KIND_ASYNC, TRUE));
      order[i] = i;
    }
  WAIT_UNTIL (f->order->len == n, 5000);

  for (guint i = n - 1; i > 0; i--)
    {
      guint j = g_rand_int_range (rand, 0, i + 1);
      guint t = order[i];

      order[i] = order[j];
      order[j] = t;
    }

  for (guint step = 0; step < n; step++)
    {
      guint victim = order[step];

      /* Half of them released first, as an answer on its way does. */
      if (step % 2 == 0)
        snodo_executor_release_key (f->executor, ((Job *) held->pdata[victim])->work);
      job_complete (held->pdata[victim]);
      done[victim] = TRUE;

      if (step % 10 == 0 || step > n - 20)
        for (guint i = 0; i < n; i++)
          g_assert_cmpint (snodo_executor_has_key (f->executor, f->owner, keys->pdata[i]), ==, !done[i]);
    }
  g_assert_cmpuint (snodo_executor_get_n_live_for_owner (f->executor, f->owner), ==, 0);

  /* Every key is free again, and taken again. */
  for (guint i = 0; i < n; i += 50)
    submit_new_job (f, f->owner, keys->pdata[i], SNODO_WORK_KIND_ASYNC, FALSE);
  WAIT_UNTIL (snodo_executor_get_completed (f->executor) == n + n / 50, 5000);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, func) \
  g_test_add ("/snodo/executor/" path, Fixture, NULL, fixture_setup, func, fixture_teardown)

  ADD ("defaults", test_defaults);
  ADD ("async-sleeps", test_async_sleeps);
  ADD ("overload", test_overload);
  ADD ("queued-bytes", test_queued_bytes);
  ADD ("live-bytes", test_live_bytes);
  ADD ("blocking-threads", test_blocking_threads);
  ADD ("blocking-does-not-hold-async", test_blocking_does_not_hold_async);
  ADD ("blocking-returns-before-complete", test_blocking_returns_before_complete);
  ADD ("async-context", test_async_context);
  ADD ("cancel-queued", test_cancel_queued);
  ADD ("cancel-running", test_cancel_running);
  ADD ("cancel-before-cancellable", test_cancel_before_cancellable);
  ADD ("cancel-owner", test_cancel_owner);
  ADD ("duplicate-key", test_duplicate_key);
  ADD ("wait-owner", test_wait_owner);
  ADD ("wait-owner-cancel", test_wait_owner_cancel);
  ADD ("complete-other-thread", test_complete_other_thread);
  ADD ("complete-twice", test_complete_twice);
  ADD ("run-dispose", test_run_dispose);
  ADD ("finalize-in-worker", test_finalize_in_worker);
  ADD ("stress", test_stress);
  ADD ("run-started", test_run_started);
  ADD ("owner-reuse", test_owner_reuse);
  ADD ("many-keys", test_many_keys);

#undef ADD

  return g_test_run ();
}
