/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-writer-private.h"

/* Shared between the coordinator and the writer thread; every field but the
 * immutable ones is protected by lock. */
struct _SnodoWriter
{
  gatomicrefcount  ref_count;
  GMutex           lock;
  GCond            cond;
  /* Immutable after creation; owned. */
  GOutputStream   *stream;
  GMainContext    *context;
  /* The lines (GBytes) to write next, in order; set by the coordinator,
   * taken by the thread. */
  GPtrArray       *lines;
  SnodoWriterFunc  func;
  gpointer         user_data;
  /* TRUE from snodo_writer_write() until the result was reported. */
  gboolean         busy;
  /* Set once by snodo_writer_abandon(): the thread exits after its current
   * write and no callback runs any more. */
  gboolean         abandoned;
};

typedef struct
{
  SnodoWriter     *writer;
  SnodoWriterFunc  func;
  gpointer         user_data;
  GError          *error;
} WriteResult;

static void
snodo_writer_unref (SnodoWriter *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_clear_pointer (&self->lines, g_ptr_array_unref);
  g_clear_object (&self->stream);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}

static void
write_result_free (WriteResult *result)
{
  g_clear_pointer (&result->writer, snodo_writer_unref);
  g_clear_error (&result->error);
  g_free (result);
}

static gboolean
snodo_writer_report_cb (gpointer data)
{
  WriteResult *result = data;
  SnodoWriter *self = result->writer;
  gboolean abandoned;

  g_mutex_lock (&self->lock);
  abandoned = self->abandoned;
  self->busy = FALSE;
  g_mutex_unlock (&self->lock);

  if (!abandoned)
    result->func (result->error, result->user_data);

  return G_SOURCE_REMOVE;
}

static gpointer
snodo_writer_thread (gpointer data)
{
  SnodoWriter *self = data;

  for (;;)
    {
      g_autoptr(GPtrArray) lines = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree GOutputVector *vectors = NULL;
      WriteResult *result;
      GSource *source;
      gsize written = 0;

      g_mutex_lock (&self->lock);
      while (self->lines == NULL && !self->abandoned)
        g_cond_wait (&self->cond, &self->lock);
      if (self->abandoned)
        {
          g_mutex_unlock (&self->lock);
          break;
        }
      lines = g_steal_pointer (&self->lines);
      result = g_new0 (WriteResult, 1);
      result->func = self->func;
      result->user_data = self->user_data;
      g_mutex_unlock (&self->lock);

      vectors = g_new0 (GOutputVector, lines->len);
      for (guint i = 0; i < lines->len; i++)
        vectors[i].buffer = g_bytes_get_data (g_ptr_array_index (lines, i), &vectors[i].size);

      /* No cancellable on purpose: lines go out whole or not at all. */
      if (g_output_stream_writev_all (self->stream, vectors, lines->len, &written, NULL, &error))
        g_output_stream_flush (self->stream, NULL, &error);

      result->error = g_steal_pointer (&error);
      g_atomic_ref_count_inc (&self->ref_count);
      result->writer = self;

      source = g_idle_source_new ();
      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_static_name (source, "[snodo] write done");
      g_source_set_callback (source, snodo_writer_report_cb, result, (GDestroyNotify) write_result_free);
      g_source_attach (source, self->context);
      g_source_unref (source);
    }

  snodo_writer_unref (self);
  return NULL;
}

SnodoWriter *
snodo_writer_new (GOutputStream *stream,
                  GMainContext  *context)
{
  SnodoWriter *self = g_new0 (SnodoWriter, 1);
  GThread *thread;

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->stream = g_object_ref (stream);
  self->context = g_main_context_ref (context);

  /* One reference for the coordinator, one for the thread. */
  g_atomic_ref_count_inc (&self->ref_count);
  thread = g_thread_new ("snodo-writer", snodo_writer_thread, self);
  g_thread_unref (thread);

  return self;
}

/* Entry: no write in progress (the coordinator has at most one). */
void
snodo_writer_write (SnodoWriter     *self,
                    GPtrArray       *lines,
                    SnodoWriterFunc  func,
                    gpointer         user_data)
{
  g_mutex_lock (&self->lock);
  g_assert (!self->busy);
  g_assert (!self->abandoned);
  g_assert (lines->len > 0);
  self->busy = TRUE;
  /* The thread's own references: the coordinator may drop its lines while
   * an abandoned write still uses them. */
  self->lines = g_ptr_array_new_full (lines->len, (GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < lines->len; i++)
    g_ptr_array_add (self->lines, g_bytes_ref (g_ptr_array_index (lines, i)));
  self->func = func;
  self->user_data = user_data;
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
}

gboolean
snodo_writer_is_busy (SnodoWriter *self)
{
  gboolean busy;

  g_mutex_lock (&self->lock);
  busy = self->busy;
  g_mutex_unlock (&self->lock);
  return busy;
}

/* Drops the coordinator's reference. A write in progress finishes in the
 * thread (or never does) without calling back. */
void
snodo_writer_abandon (SnodoWriter *self)
{
  g_mutex_lock (&self->lock);
  self->abandoned = TRUE;
  g_clear_pointer (&self->lines, g_ptr_array_unref);
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);
  snodo_writer_unref (self);
}
