/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The stdio transport's input: how it reads (a watch on a pipe or socket,
 * a pollable stream, or one asynchronous read after the other), the lines
 * it frames and hands to the server, and the end of input, after which the
 * transport drains: admitted work finishes and its answers are written
 * before it closes. See snodo-stdio-transport-private.h for how this file
 * relates to the other two. */

#include "config.h"

#include <glib.h>

#ifdef G_OS_UNIX
# include <glib-unix.h>
# include <gio/gunixinputstream.h>
#endif

#include "snodo-stdio-transport-private.h"
#include "snodo-base-private.h"
#include "snodo-executor-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

/* Any state: no read is outstanding or watched any more. */
void
snodo_stdio_transport_stop_reading (SnodoStdioTransport *self)
{
  g_cancellable_cancel (self->read_cancellable);
  g_clear_pointer (&self->read_source, snodo_source_destroy_and_unref);
}

/* Sends an answer of the transport's own (not of admitted work). */
static void
snodo_stdio_transport_send_error (SnodoStdioTransport *self,
                                  JsonNode            *id,
                                  int                  code,
                                  const char          *message)
{
  snodo_stdio_transport_send (self, NULL, snodo_frame_encode_error (id, code, message, NULL), NULL, NULL);
}

static void
snodo_stdio_transport_line_cb (SnodoLineFramerEvent  event,
                               const char           *line,
                               gsize                 len,
                               gpointer              user_data)
{
  SnodoStdioTransport *self = user_data;
  g_auto(SnodoFrame) frame = { 0, };

  if (self->state != STATE_OPEN && self->state != STATE_DRAINING)
    return;

  if (event == SNODO_LINE_FRAMER_OVERSIZED)
    {
      g_autofree char *message = NULL;
      g_autofree char *limit = NULL;

      if (self->debug_wire)
        g_printerr ("snodo <<< (a line over %" G_GUINT64_FORMAT " bytes, discarded)\n",
                    self->max_line_bytes);
      /* A string for the number: gettext cannot see through G_GUINT64_FORMAT. */
      limit = g_strdup_printf ("%" G_GUINT64_FORMAT, self->max_line_bytes);
      message = g_strdup_printf (_("Invalid request: the message is longer than the limit of %s bytes"), limit);
      snodo_stdio_transport_send_error (self, NULL, SNODO_RPC_ERROR_INVALID_REQUEST, message);
      return;
    }

  if (self->debug_wire)
    snodo_stdio_transport_wire_log (self, "<<<", line, len);

  /* The line is in the transport's read buffer or in the framer's, and
   * nothing reads it after this: decoded in place (written over), then
   * let go of before the request runs, so that a long line is not in
   * memory beside its tree and its answer. */
  snodo_dialect_decode_in_place ((char *) line, len, TRUE, &frame);
  snodo_line_framer_release_line (self->framer);
  line = NULL;

  switch (frame.kind)
    {
    case SNODO_FRAME_IGNORE:
      break;

    case SNODO_FRAME_DROP:
      g_debug ("Dropped a malformed notification");
      break;

    case SNODO_FRAME_ERROR:
      if (frame.response_key != NULL && snodo_connection_awaits (self->connection, frame.response_key))
        {
          /* A malformed answer to a request of ours: an answer of ours
           * would reach nobody, or the client's own request of that id. */
          g_debug ("Dropped a malformed response: %s", frame.error_message);
          break;
        }
      snodo_stdio_transport_send_error (self, frame.id, frame.error_code, frame.error_message);
      break;

    case SNODO_FRAME_NOTIFICATION:
      /* Handed over at once (notifications/cancelled acts there), never
       * queued behind work. */
      snodo_server_dispatch (self->server, self->connection, &frame, self->headers, len);
      break;

    case SNODO_FRAME_REQUEST:
    case SNODO_FRAME_RESPONSE:
      snodo_server_dispatch (self->server, self->connection, &frame, self->headers, len);
      break;

    default:
      g_assert_not_reached ();
    }
}

static gboolean
snodo_stdio_transport_abandon_cb (gpointer user_data)
{
  SnodoStdioTransport *self = user_data;
  guint n_live;

  g_clear_pointer (&self->abandon_source, g_source_unref);
  if (self->state != STATE_DRAINING || self->in_flight != NULL || !g_queue_is_empty (&self->pending))
    return G_SOURCE_REMOVE;

  n_live = snodo_stdio_transport_get_n_live (self);
  if (n_live > 0 && snodo_stdio_transport_get_n_uncancelled (self) == 0)
    {
      g_warning (snodo_ngettext ("%u cancelled request did not end within %u ms of the end of input; "
                                 "closing without it",
                                 "%u cancelled requests did not end within %u ms of the end of input; "
                                 "closing without them", n_live),
                 n_live, self->write_timeout);
      self->state = STATE_CLOSED;
      snodo_stdio_transport_emit_closed (self, self->input_error);
    }
  else
    snodo_stdio_transport_check_done (self);

  return G_SOURCE_REMOVE;
}

/* Entry: DRAINING, CLOSING or any. Closes once nothing is left to do. */
void
snodo_stdio_transport_check_done (SnodoStdioTransport *self)
{
  if (self->state == STATE_DRAINING)
    {
      if (self->in_flight != NULL || !g_queue_is_empty (&self->pending))
        return;
      if (snodo_stdio_transport_get_n_live (self) > 0)
        {
          /* Work that was cancelled (by the client, by its deadline) and
           * does not end is waited for write-timeout ms, no longer: the
           * end of input never waits for ever on a handler that ignores
           * its cancellable. */
          if (self->abandon_source == NULL &&
              snodo_stdio_transport_get_n_uncancelled (self) == 0)
            {
              self->abandon_source = g_timeout_source_new (self->write_timeout);
              g_source_set_static_name (self->abandon_source, "[snodo] abandon cancelled work");
              g_source_set_callback (self->abandon_source, snodo_stdio_transport_abandon_cb, self, NULL);
              g_source_attach (self->abandon_source, self->context);
            }
          return;
        }
      if (snodo_connection_get_n_in_transit (self->connection) > 0)
        return;

      self->state = STATE_CLOSED;
      snodo_stdio_transport_emit_closed (self, self->input_error);
    }
  else if (self->state == STATE_CLOSING)
    {
      if (self->in_flight != NULL)
        return;
      self->state = STATE_CLOSED;
      snodo_stdio_transport_emit_closed (self, NULL);
    }
}

static void
snodo_stdio_transport_drain_work_cb (GObject      *object,
                                     GAsyncResult *result,
                                     gpointer      user_data)
{
  g_autoptr(SnodoStdioTransport) self = user_data;

  snodo_executor_wait_owner_finish (SNODO_EXECUTOR (object), result, NULL);
  snodo_stdio_transport_check_done (self);
}

/* Entry: OPEN, input ended (error NULL for a clean EOF). */
static void
snodo_stdio_transport_begin_drain (SnodoStdioTransport *self,
                                   const GError        *error)
{
  self->state = STATE_DRAINING;
  if (error != NULL)
    self->input_error = g_error_copy (error);
  g_debug ("End of input; draining");
  /* Subscriptions end gracefully now, or the drain would wait for them. */
  snodo_server_connection_draining (self->server, self->connection);
  snodo_executor_wait_owner_async (self->executor, G_OBJECT (self), NULL,
                                   snodo_stdio_transport_drain_work_cb, g_object_ref (self));
  snodo_executor_wait_owner_async (self->stream_executor, G_OBJECT (self), NULL,
                                   snodo_stdio_transport_drain_work_cb, g_object_ref (self));
  snodo_stdio_transport_check_done (self);
}

/* After a read was taken, from the input's own callback (no send, no work
 * function and no framer push is under way): runs the work the read
 * started, here rather than on the executor's source on the next turn of
 * the main loop, and reports the writes of its answers that finished at
 * once, rather than on yet another turn. A request answered at once costs
 * one turn of the main loop, not three. */
static void
snodo_stdio_transport_run_started (SnodoStdioTransport *self)
{
  if (self->state != STATE_OPEN && self->state != STATE_DRAINING)
    return;
  snodo_executor_run_started (self->executor, self->context);
  snodo_stdio_transport_report (self);
}

/* Entry: OPEN. Takes the result of one read: @n bytes in the read buffer,
 * 0 at end of input, or -1 with @error. */
static void
snodo_stdio_transport_take_input (SnodoStdioTransport *self,
                                  gssize               n,
                                  GError              *error)
{
  if (n < 0)
    {
      g_prefix_error (&error, "%s", _("Could not read the input: "));
      g_warning ("%s", error->message);
      snodo_line_framer_finish (self->framer, snodo_stdio_transport_line_cb, self);
      snodo_stdio_transport_begin_drain (self, error);
      return;
    }

  if (n == 0)
    {
      snodo_line_framer_finish (self->framer, snodo_stdio_transport_line_cb, self);
      if (self->state == STATE_OPEN)
        snodo_stdio_transport_begin_drain (self, NULL);
      return;
    }

  snodo_line_framer_push (self->framer, self->read_buffer, n, snodo_stdio_transport_line_cb, self);
}

static void
snodo_stdio_transport_read_cb (GObject      *object,
                               GAsyncResult *result,
                               gpointer      user_data)
{
  g_autoptr(SnodoStdioTransport) self = user_data;
  g_autoptr(GError) error = NULL;
  gssize n;

  self->reading = FALSE;
  n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);

  if (self->state != STATE_OPEN)
    return;

  snodo_stdio_transport_take_input (self, n, error);
  snodo_stdio_transport_run_started (self);

  if (self->state == STATE_OPEN && !self->read_paused)
    snodo_stdio_transport_read (self);
}

/* The persistent watch: the input has something (or an end, or an error).
 * One read of at most READ_BUFFER_SIZE a turn of the main loop, so that a
 * client that never pauses cannot starve the rest; the watch fires again on
 * the next turn if more is there. */
static gboolean
snodo_stdio_transport_readable_cb (gpointer user_data)
{
  SnodoStdioTransport *self = user_data;
  g_autoptr(GError) error = NULL;
  gssize n;

  if (self->state != STATE_OPEN)
    {
      g_clear_pointer (&self->read_source, snodo_source_destroy_and_unref);
      return G_SOURCE_REMOVE;
    }

#ifdef G_OS_UNIX
  if (self->read_mode == READ_MODE_FD)
    {
      if (g_input_stream_is_closed (self->input))
        {
          n = -1;
          g_set_error_literal (&error, G_IO_ERROR, G_IO_ERROR_CLOSED, "Stream is already closed");
        }
      else
        n = snodo_fd_read_nonblocking (self->read_fd, self->read_fd_kind, &self->read_nowait,
                                       self->read_buffer, READ_BUFFER_SIZE, &error);
    }
  else
#endif
    n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (self->input),
                                                  self->read_buffer, READ_BUFFER_SIZE, NULL, &error);

  /* Someone else took it, or a spurious wake-up. */
  if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return G_SOURCE_CONTINUE;

  g_object_ref (self);
  snodo_stdio_transport_take_input (self, n, error);
  snodo_stdio_transport_run_started (self);
  /* Ended, failed, or paused until the output catches up. */
  if (self->state != STATE_OPEN || self->read_paused)
    g_clear_pointer (&self->read_source, snodo_source_destroy_and_unref);
  g_object_unref (self);

  return G_SOURCE_CONTINUE;
}

#ifdef G_OS_UNIX
static gboolean
snodo_stdio_transport_fd_readable_cb (int           fd,
                                      GIOCondition  condition,
                                      gpointer      user_data)
{
  return snodo_stdio_transport_readable_cb (user_data);
}
#endif

static gboolean
snodo_stdio_transport_pollable_readable_cb (GObject  *stream,
                                            gpointer  user_data)
{
  return snodo_stdio_transport_readable_cb (user_data);
}

/* Entry: OPEN, not paused. Reads on, if that is not already so. */
void
snodo_stdio_transport_read (SnodoStdioTransport *self)
{
  switch (self->read_mode)
    {
    case READ_MODE_FD:
    case READ_MODE_POLLABLE:
      if (self->read_source != NULL)
        return;
#ifdef G_OS_UNIX
      if (self->read_mode == READ_MODE_FD)
        {
          self->read_source = g_unix_fd_source_new (self->read_fd, G_IO_IN);
          g_source_set_callback (self->read_source, G_SOURCE_FUNC (snodo_stdio_transport_fd_readable_cb),
                                 self, NULL);
        }
      else
#endif
        {
          self->read_source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (self->input), NULL);
          g_source_set_callback (self->read_source, G_SOURCE_FUNC (snodo_stdio_transport_pollable_readable_cb),
                                 self, NULL);
        }
      /* No reference: the watch is destroyed when reading stops, which a
       * started transport does before it lets itself go. */
      g_source_set_static_name (self->read_source, "[snodo] input readable");
      /* Its callback never iterates the context, so GLib need not block the
       * watch while dispatching it: blocking takes the descriptor out of
       * the poll set and back, two wake-ups of the context (eventfd writes,
       * then a read) on every read. */
      g_source_set_can_recurse (self->read_source, TRUE);
      g_source_attach (self->read_source, self->context);
      return;

    case READ_MODE_ASYNC:
    default:
      if (self->reading)
        return;
      self->reading = TRUE;
      g_input_stream_read_async (self->input, self->read_buffer, READ_BUFFER_SIZE,
                                 G_PRIORITY_DEFAULT, self->read_cancellable,
                                 snodo_stdio_transport_read_cb, g_object_ref (self));
      return;
    }
}

/* Chooses how to read the input: without a thread hand-off or a new source
 * per read whenever the input can say whether it would block. */
void
snodo_stdio_transport_choose_read_mode (SnodoStdioTransport *self)
{
  self->read_mode = READ_MODE_ASYNC;

#ifdef G_OS_UNIX
  /* Exactly GIO's own type: a subclass may read otherwise. */
  if (G_OBJECT_TYPE (self->input) == G_TYPE_UNIX_INPUT_STREAM)
    {
      self->read_fd = g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (self->input));
      self->read_fd_kind = snodo_fd_get_kind (self->read_fd);
      self->read_nowait = snodo_fd_get_nowait_enabled ();
      if (self->read_fd_kind != SNODO_FD_OTHER)
        {
          self->read_mode = READ_MODE_FD;
          return;
        }
    }
#endif

  if (G_IS_POLLABLE_INPUT_STREAM (self->input) &&
      g_pollable_input_stream_can_poll (G_POLLABLE_INPUT_STREAM (self->input)))
    self->read_mode = READ_MODE_POLLABLE;
}
