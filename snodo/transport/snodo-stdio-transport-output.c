/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The stdio transport's output: the connection's send, the lines waiting
 * for their turn, the batches handed to the writer one at a time, and the
 * deadline of each write, past which the transport fails. See
 * snodo-stdio-transport-private.h for how this file relates to the other
 * two. */

#include "config.h"

#include <string.h>

#include "snodo-stdio-transport.h"
#include "snodo-stdio-transport-private.h"
#include "snodo-base-private.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

/* Lines waiting for their turn beyond which reading pauses until half of
 * them are written. Only answers the transport or the server produce
 * without admitted work (errors for garbage, overload answers) can pile up
 * here; this keeps a flood of garbage from growing memory while the output
 * is slow. The write timeout still bounds how long the output may stall. */
#define MAX_PENDING_LINES 1024
/* Lines waiting together are written in one go, up to this many bytes (a
 * single longer line goes alone): fewer wake-ups of the helper when many
 * answers are ready at once. */
#define MAX_BATCH_BYTES (64 * 1024)
#define MAX_BATCH_LINES 64

static void snodo_stdio_transport_pump (SnodoStdioTransport *self);

PendingSend *
snodo_stdio_transport_pop_pending (SnodoStdioTransport *self)
{
  GList *link = g_queue_pop_head_link (&self->pending);

  return link != NULL ? link->data : NULL;
}

/* Tells the sender of @send, and lets go of its line. */
static void
pending_send_tell (PendingSend  *send,
                   const GError *error)
{
  if (send->func != NULL)
    send->func (error, send->user_data);
  g_clear_pointer (&send->line, g_bytes_unref);
}

void
snodo_stdio_transport_finish_send (PendingSend  *send,
                                   const GError *error)
{
  pending_send_tell (send, error);
  g_free (send);
}

typedef struct
{
  PendingSend *send;
  GError      *error;
} FinishLater;

static gboolean
finish_later_cb (gpointer data)
{
  FinishLater *later = data;

  snodo_stdio_transport_finish_send (later->send, later->error);
  g_clear_error (&later->error);
  g_free (later);
  return G_SOURCE_REMOVE;
}

/* Fails a send from the main loop, never from inside the send itself. */
static void
pending_send_finish_later (SnodoStdioTransport *self,
                           PendingSend         *send,
                           const GError        *error)
{
  FinishLater *later = g_new0 (FinishLater, 1);
  GSource *source = g_idle_source_new ();

  later->send = send;
  later->error = g_error_copy (error);
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_callback (source, finish_later_cb, later, NULL);
  g_source_attach (source, self->context);
  g_source_unref (source);
}

/* Sends kept for reuse: enough for a batch of short answers. */
#define MAX_SPARE_SENDS 64

static PendingSend *
snodo_stdio_transport_new_send (SnodoStdioTransport *self)
{
  GList *link = g_queue_pop_head_link (&self->spare_sends);
  PendingSend *send;

  if (link == NULL)
    return g_new0 (PendingSend, 1);

  send = link->data;
  memset (send, 0, sizeof *send);
  return send;
}

void
snodo_stdio_transport_free_spare_sends (SnodoStdioTransport *self)
{
  GList *link;

  while ((link = g_queue_pop_head_link (&self->spare_sends)) != NULL)
    g_free (link->data);
}

/* The lines in flight are written (error NULL), or never will be. */
void
snodo_stdio_transport_finish_in_flight (SnodoStdioTransport *self,
                                        const GError        *error)
{
  /* Taken first: finishing a send may send again, and start a write. */
  GPtrArray *sends = g_steal_pointer (&self->in_flight);

  for (guint i = 0; i < sends->len; i++)
    {
      PendingSend *send = g_ptr_array_index (sends, i);

      pending_send_tell (send, error);
      /* Its link is free: it left @pending for the write. */
      if (self->spare_sends.length < MAX_SPARE_SENDS)
        g_queue_push_head_link (&self->spare_sends, &send->link);
      else
        g_free (send);
    }

  /* Kept for the next write, unless one was meanwhile. */
  g_ptr_array_set_size (sends, 0);
  if (self->spare_in_flight == NULL)
    self->spare_in_flight = sends;
  else
    g_ptr_array_unref (sends);
}

void
snodo_stdio_transport_clear_write_deadline (SnodoStdioTransport *self)
{
  if (self->write_deadline != NULL)
    snodo_connection_remove_deadline (self->connection, g_steal_pointer (&self->write_deadline));
}

/* The connection's deadline source: on the context, with a reference. */
static void
snodo_stdio_transport_write_timeout_cb (GObject *target)
{
  SnodoStdioTransport *self = SNODO_STDIO_TRANSPORT (target);
  g_autoptr(GError) error = NULL;

  /* Deadlines that passed together fire one after the other: whatever ran
   * before this one may have ended the write, and taken its deadline. */
  if (self->write_deadline == NULL || g_get_monotonic_time () < self->write_deadline_time)
    return;

  snodo_stdio_transport_clear_write_deadline (self);
  error = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                       _("Writing a message to the output took longer than %u ms"),
                       self->write_timeout);
  snodo_stdio_transport_fail (self, error);
}

static void
snodo_stdio_transport_write_done_cb (const GError *error,
                                     gpointer      user_data)
{
  SnodoStdioTransport *self = user_data;

  if (self->state == STATE_FAILED || self->state == STATE_CLOSED)
    return;

  snodo_stdio_transport_clear_write_deadline (self);

  if (error != NULL)
    {
      g_autoptr(GError) prefixed = g_error_copy (error);

      g_prefix_error (&prefixed, "%s", _("Could not write to the output: "));
      snodo_stdio_transport_finish_in_flight (self, prefixed);
      snodo_stdio_transport_fail (self, prefixed);
      return;
    }

  snodo_stdio_transport_finish_in_flight (self, NULL);
  snodo_stdio_transport_pump (self);
}

/* How many writes that finish at once one report goes through: the
 * report of one batch writes the next, which may finish at once too.
 * Beyond this many batches (up to MAX_BATCH_LINES lines or MAX_BATCH_BYTES
 * each), the rest is reported by the report source on the next turn of
 * the main loop, so that a long run of output does not hold it up. */
#define MAX_REPORTS 8

void
snodo_stdio_transport_report (SnodoStdioTransport *self)
{
  for (guint i = 0; i < MAX_REPORTS && self->report_pending; i++)
    {
      g_autoptr(GError) error = g_steal_pointer (&self->report_error);

      self->report_pending = FALSE;
      snodo_stdio_transport_write_done_cb (error, self);
    }
}

/* The transport's report source: ready while a report is pending. Only
 * the thread that runs the context sets that (every send is made there),
 * and GLib asks prepare() before it polls, so no wake-up is needed. */
typedef struct
{
  GSource              source;
  /* Not referenced: the transport destroys this source before it goes. */
  SnodoStdioTransport *transport;
} ReportSource;

static gboolean
report_source_check (GSource *source)
{
  return ((ReportSource *) source)->transport->report_pending;
}

static gboolean
report_source_prepare (GSource *source,
                       gint    *timeout)
{
  *timeout = -1;
  return report_source_check (source);
}

static gboolean
report_source_dispatch (GSource     *source,
                        GSourceFunc  callback,
                        gpointer     user_data)
{
  g_autoptr(SnodoStdioTransport) self = g_object_ref (((ReportSource *) source)->transport);

  snodo_stdio_transport_report (self);
  return G_SOURCE_CONTINUE;
}

static GSourceFuncs report_source_funcs = {
  .prepare = report_source_prepare,
  .check = report_source_check,
  .dispatch = report_source_dispatch,
};

/* Entry: any state. Starts the next write if none is in flight. */
static void
snodo_stdio_transport_pump (SnodoStdioTransport *self)
{
  g_autoptr(GError) error = NULL;
  SnodoWriterStatus status;

  if (self->in_flight == NULL &&
      (self->state == STATE_OPEN || self->state == STATE_DRAINING) &&
      !g_queue_is_empty (&self->pending))
    {
      GPtrArray *lines;
      gsize bytes = 0;

      if (self->write_lines == NULL)
        self->write_lines = g_ptr_array_new ();
      lines = self->write_lines;
      self->in_flight = self->spare_in_flight != NULL ? g_steal_pointer (&self->spare_in_flight)
                                                      : g_ptr_array_new ();
      while (!g_queue_is_empty (&self->pending) && self->in_flight->len < MAX_BATCH_LINES)
        {
          PendingSend *send = g_queue_peek_head (&self->pending);
          gsize len = g_bytes_get_size (send->line);

          if (self->in_flight->len > 0 && bytes + len > MAX_BATCH_BYTES)
            break;
          snodo_stdio_transport_pop_pending (self);
          g_ptr_array_add (self->in_flight, send);
          g_ptr_array_add (lines, send->line);
          bytes += len;

          if (self->debug_wire)
            {
              const char *data = g_bytes_get_data (send->line, &len);

              snodo_stdio_transport_wire_log (self, ">>>", data, len);
            }
        }

      /* The write may take write-timeout ms from its start, no longer. */
      self->write_deadline_time = g_get_monotonic_time () + (gint64) self->write_timeout * 1000;
      /* No reference for the helper: it never calls back once abandoned,
       * which the transport does at the latest when it is finalized. */
      status = snodo_writer_write (self->writer, lines,
                                   snodo_stdio_transport_write_done_cb, self, &error);
      /* The writer keeps none of them: its helper thread takes its own. */
      g_ptr_array_set_size (lines, 0);
      switch (status)
        {
        case SNODO_WRITER_PENDING:
          /* The device is behind: the deadline starts to count. */
          self->write_deadline = snodo_connection_add_deadline (self->connection,
                                                                self->write_deadline_time,
                                                                G_OBJECT (self),
                                                                snodo_stdio_transport_write_timeout_cb);
          break;

        case SNODO_WRITER_DONE:
        case SNODO_WRITER_FAILED:
        default:
          /* Done already, without blocking; reported later (this may be
           * inside a send). */
          self->report_error = g_steal_pointer (&error);
          self->report_pending = TRUE;
          if (self->report_source == NULL)
            {
              self->report_source = g_source_new (&report_source_funcs, sizeof (ReportSource));
              ((ReportSource *) self->report_source)->transport = self;
              g_source_set_priority (self->report_source, G_PRIORITY_DEFAULT);
              g_source_set_static_name (self->report_source, "[snodo] write done");
              g_source_attach (self->report_source, self->context);
            }
          break;
        }
    }

  if (self->read_paused && g_queue_get_length (&self->pending) <= MAX_PENDING_LINES / 2)
    {
      self->read_paused = FALSE;
      if (self->state == STATE_OPEN)
        snodo_stdio_transport_read (self);
    }

  snodo_stdio_transport_check_done (self);
}

/* The connection's send: on the context. */
void
snodo_stdio_transport_send (gpointer       transport,
                            const char    *related,
                            GBytes        *line,
                            SnodoSendFunc  func,
                            gpointer       user_data)
{
  SnodoStdioTransport *self = transport;
  PendingSend *send;
  g_autoptr(GError) error = NULL;

  send = snodo_stdio_transport_new_send (self);
  send->line = line;
  send->func = func;
  send->user_data = user_data;
  send->link.data = send;

  switch (self->state)
    {
    case STATE_NEW:
    case STATE_OPEN:
    case STATE_DRAINING:
      g_queue_push_tail_link (&self->pending, &send->link);
      if (g_queue_get_length (&self->pending) > MAX_PENDING_LINES)
        self->read_paused = TRUE;
      snodo_stdio_transport_pump (self);
      return;

    case STATE_FAILED:
      pending_send_finish_later (self, send, self->error);
      return;

    case STATE_CLOSING:
    case STATE_CLOSED:
    default:
      error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, _("The transport is closed"));
      pending_send_finish_later (self, send, error);
      return;
    }
}
