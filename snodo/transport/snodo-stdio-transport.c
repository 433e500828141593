/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoStdioTransport: the GObject, its public API, and the life of the
 * transport (start, close, failure, the closed signal). Its input, with the
 * end-of-input drain, is in snodo-stdio-transport-input.c; its output, with
 * the write deadline, in snodo-stdio-transport-output.c. The three share the
 * instance struct of snodo-stdio-transport-private.h and nothing else. */

#include "config.h"

#include <errno.h>

#include <glib.h>
#include <glib/gstdio.h>

#ifdef G_OS_UNIX
# include <unistd.h>
# include <gio/gunixinputstream.h>
# include <gio/gunixoutputstream.h>
#endif
#ifdef G_OS_WIN32
# include "snodo-stdio-win32-private.h"
#endif

#include "snodo-stdio-transport.h"
#include "snodo-stdio-transport-private.h"
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
 * import sys
 *
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
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
 * import GLib from 'gi://GLib';
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 *
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
  PROP_MAX_STREAMS,
  N_PROPS
};

enum {
  CLOSED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

void
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

/* The work of this transport live on its two executors (requests, and
 * subscriptions on the stream executor). */
guint
snodo_stdio_transport_get_n_live (SnodoStdioTransport *self)
{
  return snodo_executor_get_n_live_for_owner (self->executor, G_OBJECT (self)) +
         snodo_executor_get_n_live_for_owner (self->stream_executor, G_OBJECT (self));
}

guint
snodo_stdio_transport_get_n_uncancelled (SnodoStdioTransport *self)
{
  return snodo_executor_get_n_uncancelled_for_owner (self->executor, G_OBJECT (self)) +
         snodo_executor_get_n_uncancelled_for_owner (self->stream_executor, G_OBJECT (self));
}

static void
snodo_stdio_transport_cancel_work (SnodoStdioTransport *self)
{
  snodo_executor_cancel_owner (self->stream_executor, G_OBJECT (self));
  snodo_executor_cancel_owner (self->executor, G_OBJECT (self));
}

/* The subscriptions have ended: now the requests. */
static void
snodo_stdio_transport_wait_streams_cb (GObject      *object,
                                       GAsyncResult *result,
                                       gpointer      user_data)
{
  g_autoptr(SnodoStdioTransport) self = user_data;

  snodo_executor_wait_owner_finish (SNODO_EXECUTOR (object), result, NULL);
  snodo_executor_wait_owner_async (self->executor, G_OBJECT (self), NULL,
                                   snodo_stdio_transport_wait_work_cb, g_object_ref (self));
}

/* Entry: state is CLOSED or FAILED. Reports the end once. */
void
snodo_stdio_transport_emit_closed (SnodoStdioTransport *self,
                                   const GError        *error)
{
  g_autoptr(GPtrArray) tasks = NULL;

  if (self->closed_emitted)
    return;
  self->closed_emitted = TRUE;

  g_object_ref (self);
  g_clear_pointer (&self->abandon_source, snodo_source_destroy_and_unref);
  /* Nothing is written any more (nor in flight). */
  g_clear_pointer (&self->report_source, snodo_source_destroy_and_unref);

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
      snodo_executor_wait_owner_async (self->stream_executor, G_OBJECT (self), NULL,
                                       snodo_stdio_transport_wait_streams_cb,
                                       g_object_ref (self));
    }

  g_object_unref (self);
}

/* Entry: any state but CLOSED and FAILED. Terminal: nothing is written
 * after this, nothing is retried. */
void
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
  snodo_stdio_transport_clear_write_deadline (self);
  g_clear_pointer (&self->report_source, snodo_source_destroy_and_unref);
  g_clear_error (&self->report_error);
  self->report_pending = FALSE;
  if (self->writer != NULL && snodo_writer_is_busy (self->writer))
    {
      /* The helper may be stuck in the write for ever, or the device may
       * never take the rest; let it go, nothing more is written. */
      g_clear_pointer (&self->writer, snodo_writer_abandon);
    }

  snodo_stdio_transport_cancel_work (self);

  if (self->in_flight != NULL)
    snodo_stdio_transport_finish_in_flight (self, self->error);
  while ((send = snodo_stdio_transport_pop_pending (self)))
    snodo_stdio_transport_finish_send (send, self->error);

  snodo_stdio_transport_emit_closed (self, self->error);
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
  .network_transport = "pipe",
};

static void
snodo_stdio_transport_constructed (GObject *object)
{
  SnodoStdioTransport *self = SNODO_STDIO_TRANSPORT (object);

  G_OBJECT_CLASS (snodo_stdio_transport_parent_class)->constructed (object);

  if (self->executor == NULL)
    self->executor = snodo_executor_new ();
  self->stream_executor = snodo_executor_new ();
  snodo_executor_set_max_running (self->stream_executor, self->max_streams);
  snodo_executor_set_max_queued (self->stream_executor, 0);

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
      self->input = snodo_win32_stdin_stream_new ();
      self->output = snodo_win32_stdout_stream_new ();
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
  snodo_connection_set_stream_executor (self->connection, self->stream_executor);
}

static void
snodo_stdio_transport_dispose (GObject *object)
{
  SnodoStdioTransport *self = SNODO_STDIO_TRANSPORT (object);

  /* A started transport holds itself until it is closed, so this runs for a
   * transport that was never started, or has ended. */
  snodo_stdio_transport_stop_reading (self);
  g_clear_pointer (&self->report_source, snodo_source_destroy_and_unref);
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
  while ((send = snodo_stdio_transport_pop_pending (self)))
    snodo_stdio_transport_finish_send (send, self->error);

  snodo_stdio_transport_clear_write_deadline (self);
  g_clear_pointer (&self->abandon_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->read_source, snodo_source_destroy_and_unref);
  g_assert (self->report_source == NULL);
  g_clear_error (&self->report_error);
  g_clear_pointer (&self->spare_in_flight, g_ptr_array_unref);
  snodo_stdio_transport_free_spare_sends (self);
  g_clear_pointer (&self->write_lines, g_ptr_array_unref);
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
  g_clear_object (&self->stream_executor);
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

    case PROP_MAX_STREAMS:
      g_value_set_uint (value, self->max_streams);
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

    case PROP_MAX_STREAMS:
      snodo_stdio_transport_set_max_streams (self, g_value_get_uint (value));
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

  /**
   * SnodoStdioTransport:max-streams: (getter get_max_streams) (setter set_max_streams)
   *
   * The most `subscriptions/listen` requests open at once on this
   * transport. A subscription lasts until it is cancelled or the input
   * ends, so it does not take a slot of the
   * [property@Snodo.StdioTransport:executor] (idle subscriptions would
   * otherwise keep other requests out): it is counted against this bound
   * instead, and one beyond it is answered with error -32010. At least 1;
   * the default is 256, as the HTTP transport's
   * [property@Snodo.HttpTransport:max-streams].
   *
   * Since: 0.1
   */
  properties[PROP_MAX_STREAMS] =
    g_param_spec_uint ("max-streams", NULL, NULL,
                       1, G_MAXUINT, 256,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

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
 * snodo_stdio_transport_get_max_streams:
 * @self: a transport
 *
 * Gets the most `subscriptions/listen` requests open at once.
 *
 * Returns: the limit
 *
 * Since: 0.1
 */
guint
snodo_stdio_transport_get_max_streams (SnodoStdioTransport *self)
{
  g_return_val_if_fail (SNODO_IS_STDIO_TRANSPORT (self), 0);
  return self->max_streams;
}

/**
 * snodo_stdio_transport_set_max_streams:
 * @self: a transport
 * @max_streams: the limit, at least 1
 *
 * Sets the most `subscriptions/listen` requests open at once; see
 * [property@Snodo.StdioTransport:max-streams]. Subscriptions already open
 * beyond a lowered limit stay.
 *
 * Since: 0.1
 */
void
snodo_stdio_transport_set_max_streams (SnodoStdioTransport *self,
                                       guint                max_streams)
{
  g_return_if_fail (SNODO_IS_STDIO_TRANSPORT (self));
  g_return_if_fail (max_streams >= 1);

  if (self->max_streams == max_streams)
    return;
  self->max_streams = max_streams;
  if (self->stream_executor != NULL)
    snodo_executor_set_max_running (self->stream_executor, max_streams);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_STREAMS]);
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
  snodo_stdio_transport_cancel_work (self);

  {
    g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                   _("The transport was closed"));

    while ((send = snodo_stdio_transport_pop_pending (self)))
      snodo_stdio_transport_finish_send (send, error);
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

