/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#ifdef G_OS_UNIX
# include <unistd.h>
# include <glib-unix.h>
# include <gio/gunixinputstream.h>
# include <gio/gunixoutputstream.h>
#endif
#ifdef G_OS_WIN32
# include <windows.h>
# include <gio/gwin32inputstream.h>
# include <gio/gwin32outputstream.h>
#endif

#include "snodo-stdio-transport.h"
#include "snodo-base-private.h"
#include "snodo-executor-private.h"
#include "snodo-protocol-version.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

/**
 * SnodoStdioTransport:
 *
 * Serves a [class@Snodo.Server] over newline-delimited JSON-RPC on a pair of
 * streams: the process's standard input and output, or any
 * [class@Gio.InputStream] and [class@Gio.OutputStream].
 *
 * The transport is the coordinator of the connection. It reads its input in
 * chunks, frames lines, decodes each message and hands requests to the
 * server, which admits them through a [class@Snodo.Executor]; it never waits
 * for a handler, so a slow tool never delays another request, a
 * cancellation or the end of input.
 *
 * ## Input
 *
 * A line may be at most [property@Snodo.StdioTransport:max-line-bytes] long,
 * its newline counted. A longer line is answered with error -32600 and
 * `"id": null` without being decoded; the rest of it is discarded as it
 * arrives and the next line is served normally. Whatever the input is, the
 * transport holds at most that many bytes of a line plus one read buffer.
 * Unparseable lines and invalid UTF-8 are answered with -32700, JSON that is
 * not a request object with -32600 (with the request's id when it can be
 * read); notifications are never answered; blank lines and a trailing `\r`
 * are ignored; a last line without a newline is served.
 *
 * `notifications/cancelled` is acted on at once: the request's
 * [class@Gio.Cancellable] fires and the request gets no answer.
 *
 * ## Output
 *
 * Every message is encoded as one line before it reaches the transport, and
 * lines are written whole, one at a time, in the order they are completed:
 * on the transport's main context, never blocking it, when the output is a
 * pipe, a socket or another stream that can say whether it would block
 * (its file descriptor never gets `O_NONBLOCK`: standard output may be
 * shared), and by a helper thread otherwise. There is no detached output
 * buffer: a message is sent when its line has been written, so a slow
 * reader slows the producers. A write that takes longer than
 * [property@Snodo.StdioTransport:write-timeout] milliseconds, or fails, is
 * terminal: all work of the transport is cancelled, nothing more is written
 * (the stream may hold part of a line, so nothing is retried), and
 * [signal@Snodo.StdioTransport::closed] reports the error.
 *
 * The transport never closes the streams it was given, on any path. (GIO
 * closes a stream when its last reference is dropped, so keep a reference of
 * your own if a stream must outlive the transport.)
 *
 * ## End of input
 *
 * End of input is a half-close: the transport stops reading and admitting,
 * lets the admitted work finish and write its answers, and then reports a
 * clean close. `printf '…' | my-server` prints every answer.
 *
 * ## Lifetime
 *
 * Once started, the transport keeps itself alive until it has closed and its
 * work has finished, so an application may drop its reference right after
 * [method@Snodo.StdioTransport.start] and wait for the
 * [signal@Snodo.StdioTransport::closed] signal.
 *
 * ```c
 * static void
 * closed_cb (SnodoStdioTransport *transport,
 *            const GError        *error,
 *            GMainLoop           *loop)
 * {
 *   if (error != NULL)
 *     g_printerr ("%s\n", error->message);
 *   g_main_loop_quit (loop);
 * }
 *
 * g_autoptr(SnodoStdioTransport) transport = snodo_stdio_transport_new_for_stdio (server);
 * g_signal_connect (transport, "closed", G_CALLBACK (closed_cb), loop);
 * snodo_stdio_transport_start (transport);
 * g_main_loop_run (loop);
 * ```
 *
 * The transport lives on the main context that is the thread-default one
 * when it is created; its signals are emitted there.
 *
 * In Python:
 *
 * ```python
 * transport = Snodo.StdioTransport.new_for_stdio(server)
 * transport.props.write_timeout = 2000
 * loop = GLib.MainLoop()
 *
 * def on_closed(transport, error):
 *     if error is not None:
 *         print(error.message, file=sys.stderr)
 *     loop.quit()
 *
 * transport.connect('closed', on_closed)
 * transport.start()
 * loop.run()
 * ```
 *
 * In JavaScript:
 *
 * ```js
 * const transport = Snodo.StdioTransport.new_for_stdio(server);
 * transport.write_timeout = 2000;
 * const loop = new GLib.MainLoop(null, false);
 * transport.connect('closed', (_transport, error) => {
 *     if (error !== null)
 *         printerr(error.message);
 *     loop.quit();
 * });
 * transport.start();
 * loop.run();
 * ```
 *
 * Since: 0.1
 */

#define READ_BUFFER_SIZE (64 * 1024)
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

typedef enum
{
  STATE_NEW,
  /* Reading and serving. */
  STATE_OPEN,
  /* End of input: admitted work finishes and its answers are written. */
  STATE_DRAINING,
  /* close_async(): waiting for the line in flight, at most write-timeout. */
  STATE_CLOSING,
  STATE_CLOSED,
  /* A write timed out or failed; nothing more is written. */
  STATE_FAILED,
} State;

typedef struct
{
  GBytes        *line;
  SnodoSendFunc  func;
  gpointer       user_data;
} PendingSend;

typedef enum
{
  /* g_input_stream_read_async(), one read after the other. */
  READ_MODE_ASYNC,
  /* A GUnixInputStream on a pipe or socket: a persistent watch on its
   * descriptor, read without blocking and without O_NONBLOCK. */
  READ_MODE_FD,
  /* Another GPollableInputStream: a persistent pollable source and
   * g_pollable_input_stream_read_nonblocking(). */
  READ_MODE_POLLABLE,
} ReadMode;

struct _SnodoStdioTransport
{
  GObject          parent_instance;

  /* Construct-only, owned. */
  SnodoServer     *server;
  SnodoExecutor   *executor;
  GInputStream    *input;
  GOutputStream   *output;
  /* The context the transport was created in; everything below is only
   * touched there. */
  GMainContext    *context;

  /* What the server sees of this transport; detached when it closes. */
  SnodoConnection *connection;
  SnodoLineFramer *framer;
  /* Created by start(); abandoned when a write times out. */
  SnodoWriter     *writer;
  /* How the input is read, chosen by start(). */
  ReadMode         read_mode;
  /* READ_MODE_FD: the input's descriptor (not owned), what it is, and
   * whether preadv2() takes RWF_NOWAIT for it. */
  int              read_fd;
  int              read_fd_kind;
  gboolean         read_nowait;
  /* READ_MODE_FD and READ_MODE_POLLABLE: the persistent watch on the
   * input while reading, or NULL (paused, or stopped). Owned. */
  GSource         *read_source;
  /* Cancels the read in progress when the transport stops reading. */
  GCancellable    *read_cancellable;
  guint8          *read_buffer;

  State            state;
  /* Lines waiting for their turn, oldest first (PendingSend). Each holds
   * its own line: this is not a buffer the device has accepted. */
  GQueue           pending;
  /* The lines being written (PendingSend), in order, or NULL. */
  GPtrArray       *in_flight;
  /* When the write of in_flight started (monotonic µs). */
  gint64           write_started;
  /* Fires write-timeout ms after the line in flight was started, while
   * the writer waits for the device. */
  GSource         *write_timeout_source;
  /* A write that finished at once (error set if it failed) is reported
   * from here, on the next turn of the main loop, never from inside a send;
   * until then its lines count as in flight, so that lines sent meanwhile
   * wait and go out together. Holds a reference on the transport. */
  GSource         *report_source;
  GError          *report_error;
  /* While draining with only cancelled work left: fires write-timeout ms
   * later, when that work is abandoned. */
  GSource         *abandon_source;

  guint            write_timeout;
  guint64          max_line_bytes;

  /* A read is outstanding. */
  guint            reading : 1;
  /* Reading waits for the output to catch up (see MAX_PENDING_LINES). */
  guint            read_paused : 1;
  /* The transport serves the process's own stdio. */
  guint            for_stdio : 1;
  guint            protect_stdout : 1;
  /* closed was emitted. */
  guint            closed_emitted : 1;
  /* The reference the transport holds on itself while started. */
  guint            holds_self : 1;
  /* Waiting for the executor to finish this transport's work. */
  guint            waiting_work : 1;
  guint            debug_wire : 1;

  /* fd 1 as it was before start(), to be restored; -1 when fd 1 was not
   * redirected. */
  int              saved_stdout_fd;

  /* The negotiated version once an initialize result was sent, and the
   * headers every later message is handed to the server with. */
  char            *protocol_version;
  GHashTable      *headers;

  /* Why the input ended with an error, reported after draining. */
  GError          *input_error;
  /* The terminal error, once failed. */
  GError          *error;
  /* close_async() calls waiting for the transport to close (GTask). */
  GPtrArray       *close_tasks;
};

G_DEFINE_FINAL_TYPE (SnodoStdioTransport, snodo_stdio_transport, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SERVER,
  PROP_EXECUTOR,
  PROP_INPUT_STREAM,
  PROP_OUTPUT_STREAM,
  PROP_WRITE_TIMEOUT,
  PROP_MAX_LINE_BYTES,
  PROP_PROTECT_STDOUT,
  PROP_PROTOCOL_VERSION,
  N_PROPS
};

enum {
  CLOSED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void snodo_stdio_transport_read        (SnodoStdioTransport *self);
static void snodo_stdio_transport_pump        (SnodoStdioTransport *self);
static void snodo_stdio_transport_check_done  (SnodoStdioTransport *self);
static void snodo_stdio_transport_fail        (SnodoStdioTransport *self,
                                               const GError        *error);
static void snodo_stdio_transport_write_done_cb (const GError *error,
                                                 gpointer      user_data);

/* Any state: no read is outstanding or watched any more. */
static void
snodo_stdio_transport_stop_reading (SnodoStdioTransport *self)
{
  g_cancellable_cancel (self->read_cancellable);
  g_clear_pointer (&self->read_source, snodo_source_destroy_and_unref);
}

static gboolean
snodo_deadline_source_dispatch (GSource     *source,
                                GSourceFunc  callback,
                                gpointer     user_data)
{
  return callback (user_data);
}

static GSourceFuncs snodo_deadline_source_funcs = {
  NULL, NULL, snodo_deadline_source_dispatch, NULL, NULL, NULL,
};

static void
pending_send_finish (PendingSend  *send,
                     const GError *error)
{
  if (send->func != NULL)
    send->func (error, send->user_data);
  g_clear_pointer (&send->line, g_bytes_unref);
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

  pending_send_finish (later->send, later->error);
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

/* The lines in flight are written (error NULL), or never will be. */
static void
finish_in_flight (SnodoStdioTransport *self,
                  const GError        *error)
{
  g_autoptr(GPtrArray) sends = g_steal_pointer (&self->in_flight);

  for (guint i = 0; i < sends->len; i++)
    pending_send_finish (g_ptr_array_index (sends, i), error);
}

static void
snodo_stdio_transport_wire_log (SnodoStdioTransport *self,
                                const char          *direction,
                                const char          *data,
                                gsize                len)
{
  if (len > 0 && data[len - 1] == '\n')
    len--;
  if (len > 4096)
    g_printerr ("snodo %s %.*s… (%" G_GSIZE_FORMAT " bytes)\n", direction, 4096, data, len);
  else
    g_printerr ("snodo %s %.*s\n", direction, (int) len, data);
}

/* Restores fd 1 if start() pointed it at stderr. */
static void
snodo_stdio_transport_restore_stdout (SnodoStdioTransport *self)
{
#ifdef G_OS_UNIX
  if (self->saved_stdout_fd >= 0)
    {
      while (dup2 (self->saved_stdout_fd, STDOUT_FILENO) < 0 && errno == EINTR)
        ;
      g_close (self->saved_stdout_fd, NULL);
      self->saved_stdout_fd = -1;
    }
#endif
}

/* Entry: the transport has written its last line (or never will). Drops the
 * self reference once the executor holds no work of this transport, so that
 * no later transport can be mistaken for this one by the executor. */
static void
snodo_stdio_transport_wait_work_cb (GObject      *object,
                                    GAsyncResult *result,
                                    gpointer      user_data)
{
  g_autoptr(SnodoStdioTransport) self = user_data;

  snodo_executor_wait_owner_finish (SNODO_EXECUTOR (object), result, NULL);
  self->waiting_work = FALSE;
  if (self->holds_self)
    {
      self->holds_self = FALSE;
      g_object_unref (self);
    }
}

/* Entry: state is CLOSED or FAILED. Reports the end once. */
static void
snodo_stdio_transport_emit_closed (SnodoStdioTransport *self,
                                   const GError        *error)
{
  g_autoptr(GPtrArray) tasks = NULL;

  if (self->closed_emitted)
    return;
  self->closed_emitted = TRUE;

  g_object_ref (self);
  g_clear_pointer (&self->abandon_source, snodo_source_destroy_and_unref);

  snodo_stdio_transport_stop_reading (self);
  snodo_connection_detach (self->connection);
  snodo_stdio_transport_restore_stdout (self);
  snodo_server_connection_ended (self->server, self->connection, error == NULL);

  g_signal_emit (self, signals[CLOSED], 0, error);

  tasks = g_steal_pointer (&self->close_tasks);
  self->close_tasks = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < tasks->len; i++)
    g_task_return_boolean (g_ptr_array_index (tasks, i), TRUE);

  if (self->holds_self && !self->waiting_work)
    {
      self->waiting_work = TRUE;
      snodo_executor_wait_owner_async (self->executor, G_OBJECT (self), NULL,
                                       snodo_stdio_transport_wait_work_cb,
                                       g_object_ref (self));
    }

  g_object_unref (self);
}

/* Entry: any state but CLOSED and FAILED. Terminal: nothing is written
 * after this, nothing is retried. */
static void
snodo_stdio_transport_fail (SnodoStdioTransport *self,
                            const GError        *error)
{
  PendingSend *send;

  if (self->state == STATE_CLOSED || self->state == STATE_FAILED)
    return;

  g_debug ("Transport failed: %s", error->message);
  self->state = STATE_FAILED;
  self->error = g_error_copy (error);

  snodo_stdio_transport_stop_reading (self);
  g_clear_pointer (&self->write_timeout_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->report_source, snodo_source_destroy_and_unref);
  g_clear_error (&self->report_error);
  if (self->writer != NULL && snodo_writer_is_busy (self->writer))
    {
      /* The helper may be stuck in the write for ever, or the device may
       * never take the rest; let it go, nothing more is written. */
      g_clear_pointer (&self->writer, snodo_writer_abandon);
    }

  snodo_executor_cancel_owner (self->executor, G_OBJECT (self));

  if (self->in_flight != NULL)
    finish_in_flight (self, self->error);
  while ((send = g_queue_pop_head (&self->pending)))
    pending_send_finish (send, self->error);

  snodo_stdio_transport_emit_closed (self, self->error);
}

static gboolean
snodo_stdio_transport_write_timeout_cb (gpointer user_data)
{
  SnodoStdioTransport *self = user_data;
  g_autoptr(GError) error = NULL;

  g_clear_pointer (&self->write_timeout_source, g_source_unref);
  error = g_error_new (G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                       _("Writing a message to the output took longer than %u ms"),
                       self->write_timeout);
  snodo_stdio_transport_fail (self, error);
  return G_SOURCE_REMOVE;
}

static void
snodo_stdio_transport_write_done_cb (const GError *error,
                                     gpointer      user_data)
{
  SnodoStdioTransport *self = user_data;

  if (self->state == STATE_FAILED || self->state == STATE_CLOSED)
    return;

  g_clear_pointer (&self->write_timeout_source, snodo_source_destroy_and_unref);

  if (error != NULL)
    {
      g_autoptr(GError) prefixed = g_error_copy (error);

      g_prefix_error (&prefixed, "%s", _("Could not write to the output: "));
      finish_in_flight (self, prefixed);
      snodo_stdio_transport_fail (self, prefixed);
      return;
    }

  finish_in_flight (self, NULL);
  snodo_stdio_transport_pump (self);
}

static gboolean
snodo_stdio_transport_report_cb (gpointer user_data)
{
  SnodoStdioTransport *self = user_data;
  g_autoptr(GError) error = g_steal_pointer (&self->report_error);

  g_clear_pointer (&self->report_source, g_source_unref);
  snodo_stdio_transport_write_done_cb (error, self);
  return G_SOURCE_REMOVE;
}

/* Entry: any state. Starts the next write if none is in flight. */
static void
snodo_stdio_transport_pump (SnodoStdioTransport *self)
{
  g_autoptr(GError) error = NULL;

  if (self->in_flight == NULL &&
      (self->state == STATE_OPEN || self->state == STATE_DRAINING) &&
      !g_queue_is_empty (&self->pending))
    {
      g_autoptr(GPtrArray) lines = g_ptr_array_new ();
      gsize bytes = 0;

      self->in_flight = g_ptr_array_new ();
      while (!g_queue_is_empty (&self->pending) && self->in_flight->len < MAX_BATCH_LINES)
        {
          PendingSend *send = g_queue_peek_head (&self->pending);
          gsize len = g_bytes_get_size (send->line);

          if (self->in_flight->len > 0 && bytes + len > MAX_BATCH_BYTES)
            break;
          g_queue_pop_head (&self->pending);
          g_ptr_array_add (self->in_flight, send);
          g_ptr_array_add (lines, send->line);
          bytes += len;

          if (self->debug_wire)
            {
              const char *data = g_bytes_get_data (send->line, &len);

              snodo_stdio_transport_wire_log (self, ">>>", data, len);
            }
        }

      self->write_started = g_get_monotonic_time ();
      /* No reference for the helper: it never calls back once abandoned,
       * which the transport does at the latest when it is finalized. */
      switch (snodo_writer_write (self->writer, lines,
                                  snodo_stdio_transport_write_done_cb, self, &error))
        {
        case SNODO_WRITER_PENDING:
          /* The device is behind: the write may take write-timeout ms
           * from its start, no longer. */
          self->write_timeout_source = g_source_new (&snodo_deadline_source_funcs, sizeof (GSource));
          g_source_set_ready_time (self->write_timeout_source,
                                   self->write_started + (gint64) self->write_timeout * 1000);
          g_source_set_static_name (self->write_timeout_source, "[snodo] write timeout");
          g_source_set_callback (self->write_timeout_source,
                                 snodo_stdio_transport_write_timeout_cb, self, NULL);
          g_source_attach (self->write_timeout_source, self->context);
          break;

        case SNODO_WRITER_DONE:
        case SNODO_WRITER_FAILED:
        default:
          /* Done already, without blocking; reported on the next turn of
           * the main loop (this may be inside a send). */
          self->report_error = g_steal_pointer (&error);
          self->report_source = g_idle_source_new ();
          g_source_set_priority (self->report_source, G_PRIORITY_DEFAULT);
          g_source_set_static_name (self->report_source, "[snodo] write done");
          g_source_set_callback (self->report_source, snodo_stdio_transport_report_cb,
                                 g_object_ref (self), g_object_unref);
          g_source_attach (self->report_source, self->context);
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
static void
snodo_stdio_transport_send (gpointer       transport,
                            const char    *related,
                            GBytes        *line,
                            SnodoSendFunc  func,
                            gpointer       user_data)
{
  SnodoStdioTransport *self = transport;
  PendingSend *send;
  g_autoptr(GError) error = NULL;

  send = g_new0 (PendingSend, 1);
  send->line = line;
  send->func = func;
  send->user_data = user_data;

  switch (self->state)
    {
    case STATE_NEW:
    case STATE_OPEN:
    case STATE_DRAINING:
      g_queue_push_tail (&self->pending, send);
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

static void
snodo_stdio_transport_negotiated (gpointer             transport,
                                  SnodoProtocolVersion version)
{
  SnodoStdioTransport *self = transport;
  const char *string = snodo_protocol_version_to_string (version);

  if (string == NULL || g_strcmp0 (string, self->protocol_version) == 0)
    return;

  g_free (self->protocol_version);
  self->protocol_version = g_strdup (string);
  g_clear_pointer (&self->headers, g_hash_table_unref);
  self->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert (self->headers, g_strdup (SNODO_HEADER_PROTOCOL_VERSION), g_strdup (string));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROTOCOL_VERSION]);
}

static const SnodoConnectionVTable stdio_connection_vtable = {
  .send = snodo_stdio_transport_send,
  .negotiated = snodo_stdio_transport_negotiated,
};

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

  snodo_frame_decode (line, len, &frame);

  switch (frame.kind)
    {
    case SNODO_FRAME_IGNORE:
      break;

    case SNODO_FRAME_DROP:
      g_debug ("Dropped a malformed notification");
      break;

    case SNODO_FRAME_ERROR:
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

  n_live = snodo_executor_get_n_live_for_owner (self->executor, G_OBJECT (self));
  if (n_live > 0 && snodo_executor_get_n_uncancelled_for_owner (self->executor, G_OBJECT (self)) == 0)
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
static void
snodo_stdio_transport_check_done (SnodoStdioTransport *self)
{
  if (self->state == STATE_DRAINING)
    {
      if (self->in_flight != NULL || !g_queue_is_empty (&self->pending))
        return;
      if (snodo_executor_get_n_live_for_owner (self->executor, G_OBJECT (self)) > 0)
        {
          /* Work that was cancelled (by the client, by its deadline) and
           * does not end is waited for write-timeout ms, no longer: the
           * end of input never waits for ever on a handler that ignores
           * its cancellable. */
          if (self->abandon_source == NULL &&
              snodo_executor_get_n_uncancelled_for_owner (self->executor, G_OBJECT (self)) == 0)
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
  snodo_stdio_transport_check_done (self);
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
static void
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
static void
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

static void
snodo_stdio_transport_constructed (GObject *object)
{
  SnodoStdioTransport *self = SNODO_STDIO_TRANSPORT (object);

  G_OBJECT_CLASS (snodo_stdio_transport_parent_class)->constructed (object);

  if (self->executor == NULL)
    self->executor = snodo_executor_new ();

  /* Made without streams: the process's own standard input and output. */
  self->for_stdio = (self->input == NULL && self->output == NULL);

  if (self->for_stdio)
    {
#ifdef G_OS_UNIX
      int out_fd = STDOUT_FILENO;

      if (self->protect_stdout)
        {
          /* The protocol gets a private duplicate of stdout, so that fd 1
           * can point at stderr while serving. */
          out_fd = dup (STDOUT_FILENO);
          if (out_fd < 0)
            {
              g_warning ("Could not duplicate standard output (%s); stray writes to it will not be kept off the protocol stream",
                         g_strerror (errno));
              out_fd = STDOUT_FILENO;
              self->protect_stdout = FALSE;
            }
        }
      self->input = g_unix_input_stream_new (STDIN_FILENO, FALSE);
      self->output = g_unix_output_stream_new (out_fd, out_fd != STDOUT_FILENO);
#elif defined(G_OS_WIN32)
      self->protect_stdout = FALSE;
      self->input = g_win32_input_stream_new (GetStdHandle (STD_INPUT_HANDLE), FALSE);
      self->output = g_win32_output_stream_new (GetStdHandle (STD_OUTPUT_HANDLE), FALSE);
#else
# error "No standard I/O streams for this platform"
#endif
    }

  /* A transport made without a server (g_object_new(), or a binding's
   * bare constructor) is harmless until started: start() refuses it. */
  g_return_if_fail (G_IS_INPUT_STREAM (self->input));
  g_return_if_fail (G_IS_OUTPUT_STREAM (self->output));

  self->connection = snodo_connection_new (&stdio_connection_vtable, self, G_OBJECT (self),
                                           self->executor, self->context);
}

static void
snodo_stdio_transport_dispose (GObject *object)
{
  SnodoStdioTransport *self = SNODO_STDIO_TRANSPORT (object);

  /* A started transport holds itself until it is closed, so this runs for a
   * transport that was never started, or has ended. */
  snodo_stdio_transport_stop_reading (self);
  if (self->connection != NULL)
    snodo_connection_detach (self->connection);
  snodo_stdio_transport_restore_stdout (self);

  G_OBJECT_CLASS (snodo_stdio_transport_parent_class)->dispose (object);
}

static void
snodo_stdio_transport_finalize (GObject *object)
{
  SnodoStdioTransport *self = SNODO_STDIO_TRANSPORT (object);
  PendingSend *send;

  g_assert (self->in_flight == NULL);
  while ((send = g_queue_pop_head (&self->pending)))
    pending_send_finish (send, self->error);

  g_clear_pointer (&self->write_timeout_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->abandon_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->read_source, snodo_source_destroy_and_unref);
  g_assert (self->report_source == NULL);
  g_clear_error (&self->report_error);
  g_clear_pointer (&self->writer, snodo_writer_abandon);
  g_clear_pointer (&self->connection, snodo_connection_unref);
  g_clear_pointer (&self->framer, snodo_line_framer_free);
  g_clear_pointer (&self->read_buffer, g_free);
  g_clear_pointer (&self->protocol_version, g_free);
  g_clear_pointer (&self->headers, g_hash_table_unref);
  g_clear_pointer (&self->close_tasks, g_ptr_array_unref);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_error (&self->input_error);
  g_clear_error (&self->error);
  g_clear_object (&self->read_cancellable);
  g_clear_object (&self->input);
  g_clear_object (&self->output);
  g_clear_object (&self->executor);
  g_clear_object (&self->server);

  G_OBJECT_CLASS (snodo_stdio_transport_parent_class)->finalize (object);
}

static void
snodo_stdio_transport_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  SnodoStdioTransport *self = SNODO_STDIO_TRANSPORT (object);

  switch (prop_id)
    {
    case PROP_SERVER:
      g_value_set_object (value, self->server);
      break;

    case PROP_EXECUTOR:
      g_value_set_object (value, self->executor);
      break;

    case PROP_INPUT_STREAM:
      g_value_set_object (value, self->input);
      break;

    case PROP_OUTPUT_STREAM:
      g_value_set_object (value, self->output);
      break;

    case PROP_WRITE_TIMEOUT:
      g_value_set_uint (value, self->write_timeout);
      break;

    case PROP_MAX_LINE_BYTES:
      g_value_set_uint64 (value, self->max_line_bytes);
      break;

    case PROP_PROTECT_STDOUT:
      g_value_set_boolean (value, self->protect_stdout);
      break;

    case PROP_PROTOCOL_VERSION:
      g_value_set_string (value, self->protocol_version);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_stdio_transport_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  SnodoStdioTransport *self = SNODO_STDIO_TRANSPORT (object);

  switch (prop_id)
    {
    case PROP_SERVER:
      self->server = g_value_dup_object (value);
      break;

    case PROP_EXECUTOR:
      self->executor = g_value_dup_object (value);
      break;

    case PROP_INPUT_STREAM:
      self->input = g_value_dup_object (value);
      break;

    case PROP_OUTPUT_STREAM:
      self->output = g_value_dup_object (value);
      break;

    case PROP_WRITE_TIMEOUT:
      snodo_stdio_transport_set_write_timeout (self, g_value_get_uint (value));
      break;

    case PROP_MAX_LINE_BYTES:
      snodo_stdio_transport_set_max_line_bytes (self, g_value_get_uint64 (value));
      break;

    case PROP_PROTECT_STDOUT:
      self->protect_stdout = g_value_get_boolean (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_stdio_transport_class_init (SnodoStdioTransportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = snodo_stdio_transport_constructed;
  object_class->dispose = snodo_stdio_transport_dispose;
  object_class->finalize = snodo_stdio_transport_finalize;
  object_class->get_property = snodo_stdio_transport_get_property;
  object_class->set_property = snodo_stdio_transport_set_property;

  /**
   * SnodoStdioTransport:server: (getter get_server)
   *
   * The server whose tools the transport serves.
   *
   * Since: 0.1
   */
  properties[PROP_SERVER] =
    g_param_spec_object ("server", NULL, NULL,
                         SNODO_TYPE_SERVER,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoStdioTransport:executor: (getter get_executor)
   *
   * The executor that admits the transport's work. When none is given at
   * construction, the transport makes one with the default limits.
   *
   * Since: 0.1
   */
  properties[PROP_EXECUTOR] =
    g_param_spec_object ("executor", NULL, NULL,
                         SNODO_TYPE_EXECUTOR,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoStdioTransport:input-stream: (getter get_input_stream)
   *
   * The stream messages are read from. The transport never closes it.
   *
   * Since: 0.1
   */
  properties[PROP_INPUT_STREAM] =
    g_param_spec_object ("input-stream", NULL, NULL,
                         G_TYPE_INPUT_STREAM,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoStdioTransport:output-stream: (getter get_output_stream)
   *
   * The stream messages are written to. The transport never closes it.
   *
   * Since: 0.1
   */
  properties[PROP_OUTPUT_STREAM] =
    g_param_spec_object ("output-stream", NULL, NULL,
                         G_TYPE_OUTPUT_STREAM,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoStdioTransport:write-timeout: (getter get_write_timeout) (setter set_write_timeout)
   *
   * How long, in milliseconds, writing one message may take. A write that
   * takes longer ends the transport with %G_IO_ERROR_TIMED_OUT. At least 1;
   * the default is 5000.
   *
   * Since: 0.1
   */
  properties[PROP_WRITE_TIMEOUT] =
    g_param_spec_uint ("write-timeout", NULL, NULL,
                       1, G_MAXUINT, 5000,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoStdioTransport:max-line-bytes: (getter get_max_line_bytes) (setter set_max_line_bytes)
   *
   * The largest message accepted, in bytes, its newline included. The
   * default, 2000000, matches the HTTP transport's body limit. A change
   * applies from the next line on.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_LINE_BYTES] =
    g_param_spec_uint64 ("max-line-bytes", NULL, NULL,
                         2, G_MAXSSIZE, 2000000,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoStdioTransport:protect-stdout: (getter get_protect_stdout)
   *
   * For a transport made with [ctor@Snodo.StdioTransport.new_for_stdio]:
   * whether file descriptor 1 points at standard error while the transport
   * serves, so that a stray `printf()` cannot corrupt the protocol stream,
   * which is written to a private duplicate of standard output. File
   * descriptor 1 is restored when the transport closes. %TRUE by default
   * there; ignored for other transports, and unsupported on Windows.
   *
   * Since: 0.1
   */
  properties[PROP_PROTECT_STDOUT] =
    g_param_spec_boolean ("protect-stdout", NULL, NULL,
                          FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoStdioTransport:protocol-version: (getter get_protocol_version)
   *
   * The protocol version negotiated by `initialize`, or %NULL before one
   * was (and for the stateless 2026-07-28 protocol, which has none). Once
   * set, every later message is handed to the server with an
   * `mcp-protocol-version` header, as an HTTP request would carry it.
   *
   * Since: 0.1
   */
  properties[PROP_PROTOCOL_VERSION] =
    g_param_spec_string ("protocol-version", NULL, NULL,
                         NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SnodoStdioTransport::closed:
   * @self: the transport
   * @error: (nullable): why the transport ended, or %NULL after the end of
   *   input or [method@Snodo.StdioTransport.close_async]
   *
   * Emitted once, on the transport's main context, when the transport has
   * ended: after the end of input once every answer was written, after
   * [method@Snodo.StdioTransport.close_async], or at once when a write
   * timed out or failed (then @error is %G_IO_ERROR_TIMED_OUT or the output
   * error, and nothing more is written).
   *
   * Since: 0.1
   */
  signals[CLOSED] =
    g_signal_new ("closed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0,
                  NULL, NULL,
                  NULL,
                  G_TYPE_NONE, 1, G_TYPE_ERROR);
}

static void
snodo_stdio_transport_init (SnodoStdioTransport *self)
{
  const char *debug = g_getenv ("SNODO_DEBUG");

  self->context = g_main_context_ref_thread_default ();
  self->read_cancellable = g_cancellable_new ();
  self->write_timeout = 5000;
  self->max_line_bytes = 2000000;
  self->saved_stdout_fd = -1;
  self->close_tasks = g_ptr_array_new_with_free_func (g_object_unref);
  g_queue_init (&self->pending);

  if (debug != NULL)
    {
      static const GDebugKey keys[] = { { "wire", 1 } };

      self->debug_wire = (g_parse_debug_string (debug, keys, G_N_ELEMENTS (keys)) & 1) != 0;
    }
}

/**
 * snodo_stdio_transport_new:
 * @server: the server to serve
 * @input: the stream to read messages from
 * @output: the stream to write messages to
 *
 * Makes a transport that serves @server over a pair of streams, with a
 * default executor. Call [method@Snodo.StdioTransport.start] to begin.
 *
 * Returns: (transfer full): a new transport
 *
 * Since: 0.1
 */
SnodoStdioTransport *
snodo_stdio_transport_new (SnodoServer   *server,
                           GInputStream  *input,
                           GOutputStream *output)
{
  g_return_val_if_fail (SNODO_IS_SERVER (server), NULL);
  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), NULL);

  return g_object_new (SNODO_TYPE_STDIO_TRANSPORT,
                       "server", server,
                       "input-stream", input,
                       "output-stream", output,
                       NULL);
}

/**
 * snodo_stdio_transport_new_for_stdio:
 * @server: the server to serve
 *
 * Makes a transport that serves @server on the process's standard input and
 * output, with [property@Snodo.StdioTransport:protect-stdout] on.
 *
 * Returns: (transfer full): a new transport
 *
 * Since: 0.1
 */
SnodoStdioTransport *
snodo_stdio_transport_new_for_stdio (SnodoServer *server)
{
  SnodoStdioTransport *self;

  g_return_val_if_fail (SNODO_IS_SERVER (server), NULL);

  self = g_object_new (SNODO_TYPE_STDIO_TRANSPORT,
                       "server", server,
                       "protect-stdout", TRUE,
                       NULL);
  return self;
}

/**
 * snodo_stdio_transport_get_server:
 * @self: a transport
 *
 * Gets the server the transport serves.
 *
 * Returns: (transfer none): the server
 *
 * Since: 0.1
 */
SnodoServer *
snodo_stdio_transport_get_server (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), NULL);
  return self->server;
}

/**
 * snodo_stdio_transport_get_executor:
 * @self: a transport
 *
 * Gets the executor that admits the transport's work.
 *
 * Returns: (transfer none): the executor
 *
 * Since: 0.1
 */
SnodoExecutor *
snodo_stdio_transport_get_executor (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), NULL);
  return self->executor;
}

/**
 * snodo_stdio_transport_get_input_stream:
 * @self: a transport
 *
 * Gets the stream the transport reads.
 *
 * Returns: (transfer none): the input stream
 *
 * Since: 0.1
 */
GInputStream *
snodo_stdio_transport_get_input_stream (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), NULL);
  return self->input;
}

/**
 * snodo_stdio_transport_get_output_stream:
 * @self: a transport
 *
 * Gets the stream the transport writes.
 *
 * Returns: (transfer none): the output stream
 *
 * Since: 0.1
 */
GOutputStream *
snodo_stdio_transport_get_output_stream (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), NULL);
  return self->output;
}

/**
 * snodo_stdio_transport_get_write_timeout:
 * @self: a transport
 *
 * Gets how long writing one message may take.
 *
 * Returns: the limit in milliseconds
 *
 * Since: 0.1
 */
guint
snodo_stdio_transport_get_write_timeout (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), 0);
  return self->write_timeout;
}

/**
 * snodo_stdio_transport_set_write_timeout:
 * @self: a transport
 * @write_timeout: the limit in milliseconds, at least 1
 *
 * Sets how long writing one message may take. It applies from the next
 * write on.
 *
 * Since: 0.1
 */
void
snodo_stdio_transport_set_write_timeout (SnodoStdioTransport *self,
                                         guint                write_timeout)
{
  g_return_if_fail (SNODO_IS_STDIO_TRANSPORT (self));
  g_return_if_fail (write_timeout >= 1);

  if (self->write_timeout == write_timeout)
    return;
  self->write_timeout = write_timeout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WRITE_TIMEOUT]);
}

/**
 * snodo_stdio_transport_get_max_line_bytes:
 * @self: a transport
 *
 * Gets the largest message accepted.
 *
 * Returns: the limit in bytes, the newline included
 *
 * Since: 0.1
 */
guint64
snodo_stdio_transport_get_max_line_bytes (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), 0);
  return self->max_line_bytes;
}

/**
 * snodo_stdio_transport_set_max_line_bytes:
 * @self: a transport
 * @max_line_bytes: the limit in bytes, the newline included, at least 2
 *
 * Sets the largest message accepted. It applies from the next line on.
 *
 * Since: 0.1
 */
void
snodo_stdio_transport_set_max_line_bytes (SnodoStdioTransport *self,
                                          guint64              max_line_bytes)
{
  g_return_if_fail (SNODO_IS_STDIO_TRANSPORT (self));
  g_return_if_fail (max_line_bytes >= 2 && max_line_bytes <= G_MAXSSIZE);

  if (self->max_line_bytes == max_line_bytes)
    return;
  self->max_line_bytes = max_line_bytes;
  if (self->framer != NULL)
    snodo_line_framer_set_max_line_bytes (self->framer, max_line_bytes);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_LINE_BYTES]);
}

/**
 * snodo_stdio_transport_get_protect_stdout:
 * @self: a transport
 *
 * Gets whether file descriptor 1 is kept off the protocol stream while the
 * transport serves.
 *
 * Returns: %TRUE if stray writes to standard output go to standard error
 *
 * Since: 0.1
 */
gboolean
snodo_stdio_transport_get_protect_stdout (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), FALSE);
  return self->protect_stdout;
}

/**
 * snodo_stdio_transport_get_protocol_version:
 * @self: a transport
 *
 * Gets the protocol version negotiated by `initialize` on this transport.
 *
 * Returns: (nullable): the version, or %NULL if none was negotiated
 *
 * Since: 0.1
 */
const char *
snodo_stdio_transport_get_protocol_version (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), NULL);
  return self->protocol_version;
}

/**
 * snodo_stdio_transport_start:
 * @self: a transport
 *
 * Starts reading and serving. The transport keeps a reference on itself
 * until it has closed and its work has finished. Call it once.
 *
 * Since: 0.1
 */
void
snodo_stdio_transport_start (SnodoStdioTransport *self)
{
  g_return_if_fail (SNODO_IS_STDIO_TRANSPORT (self));
  g_return_if_fail (self->state == STATE_NEW);
  g_return_if_fail (SNODO_IS_SERVER (self->server));
  g_return_if_fail (self->connection != NULL);

  self->state = STATE_OPEN;
  self->holds_self = TRUE;
  g_object_ref (self);

  self->framer = snodo_line_framer_new (self->max_line_bytes);
  self->read_buffer = g_malloc (READ_BUFFER_SIZE);
  self->writer = snodo_writer_new (self->output, self->context);
  snodo_stdio_transport_choose_read_mode (self);
  snodo_server_connection_started (self->server, self->connection);

#ifdef G_OS_UNIX
  if (self->for_stdio && self->protect_stdout)
    {
      self->saved_stdout_fd = dup (STDOUT_FILENO);
      if (self->saved_stdout_fd < 0 || dup2 (STDERR_FILENO, STDOUT_FILENO) < 0)
        {
          g_warning ("Could not point standard output at standard error (%s)", g_strerror (errno));
          if (self->saved_stdout_fd >= 0)
            g_close (self->saved_stdout_fd, NULL);
          self->saved_stdout_fd = -1;
        }
    }
#endif

  snodo_stdio_transport_read (self);
}

/**
 * snodo_stdio_transport_close_async:
 * @self: a transport
 * @cancellable: (nullable): a cancellable, which only stops waiting
 * @callback: (scope async) (closure user_data): called when the transport has closed
 * @user_data: data for @callback
 *
 * Closes the transport: it stops reading, cancels its work (cancelled
 * requests get no answer), waits for the line being written, at most
 * [property@Snodo.StdioTransport:write-timeout], and then reports
 * [signal@Snodo.StdioTransport::closed]. Lines not yet started are not
 * written. The streams are not closed.
 *
 * Closing a transport that has already ended completes at once.
 *
 * Since: 0.1
 */
void
snodo_stdio_transport_close_async (SnodoStdioTransport *self,
                                   GCancellable        *cancellable,
                                   GAsyncReadyCallback  callback,
                                   gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  PendingSend *send;

  g_return_if_fail (SNODO_IS_STDIO_TRANSPORT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_stdio_transport_close_async);
  g_task_set_name (task, G_STRFUNC);
  g_task_set_return_on_cancel (task, TRUE);

  switch (self->state)
    {
    case STATE_NEW:
      self->state = STATE_CLOSED;
      snodo_stdio_transport_emit_closed (self, NULL);
      g_task_return_boolean (task, TRUE);
      return;

    case STATE_CLOSED:
    case STATE_FAILED:
      g_task_return_boolean (task, TRUE);
      return;

    case STATE_CLOSING:
      g_ptr_array_add (self->close_tasks, g_steal_pointer (&task));
      return;

    case STATE_OPEN:
    case STATE_DRAINING:
    default:
      break;
    }

  g_ptr_array_add (self->close_tasks, g_steal_pointer (&task));
  self->state = STATE_CLOSING;
  snodo_stdio_transport_stop_reading (self);
  snodo_connection_detach (self->connection);
  snodo_executor_cancel_owner (self->executor, G_OBJECT (self));

  {
    g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                   _("The transport was closed"));

    while ((send = g_queue_pop_head (&self->pending)))
      pending_send_finish (send, error);
  }

  snodo_stdio_transport_check_done (self);
}

/**
 * snodo_stdio_transport_close_finish:
 * @self: a transport
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [method@Snodo.StdioTransport.close_async].
 *
 * Returns: %TRUE once closed; %FALSE only if the wait was cancelled
 *
 * Since: 0.1
 */
gboolean
snodo_stdio_transport_close_finish (SnodoStdioTransport  *self,
                                    GAsyncResult         *result,
                                    GError              **error)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}
