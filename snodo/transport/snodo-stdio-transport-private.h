/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

#include "snodo-stdio-transport.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

G_BEGIN_DECLS

/*
 * The stdio transport's instance, shared by its three files and nothing
 * else. Everything runs on the transport's context.
 *
 * - snodo-stdio-transport.c: the GObject and its public API, and the life
 *   of the transport: start(), close_async(), a terminal failure
 *   (snodo_stdio_transport_fail()) and the one closed signal
 *   (snodo_stdio_transport_emit_closed()).
 * - snodo-stdio-transport-input.c: reading (three read modes), framing,
 *   decoding and handing messages to the server; the end of input, and
 *   the drain that follows it until nothing is left to write
 *   (snodo_stdio_transport_check_done()).
 * - snodo-stdio-transport-output.c: the connection's send, the lines
 *   waiting for their turn, their batches through the writer, and the
 *   write deadline.
 *
 * The input sends the transport's own error answers through the output;
 * the output resumes reading once it caught up and looks whether a drain
 * is done; both end the transport through the first file.
 */

#define READ_BUFFER_SIZE (64 * 1024)

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
  /* Its link in the transport's @pending; data is the send. */
  GList          link;
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
  /* Where subscriptions/listen runs (owned): max-streams at once, none
   * waiting, so that streams hold no slot of the executor. Made by
   * constructed(). */
  SnodoExecutor   *stream_executor;
  guint            max_streams;
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
  /* Lines waiting for their turn, oldest first (PendingSend, linked
   * through their own link: take them with
   * snodo_stdio_transport_pop_pending()). Each holds its own line: this is
   * not a buffer the device has accepted. */
  GQueue           pending;
  /* The lines being written (PendingSend), in order, or NULL. */
  GPtrArray       *in_flight;
  /* Owned, nullable: an empty array kept for the next @in_flight, and the
   * lines of a batch as the writer takes them (borrowed from @in_flight,
   * emptied after each write). */
  GPtrArray       *spare_in_flight;
  GPtrArray       *write_lines;
  /* Owned: written sends kept for the next ones, a few at most, linked
   * through their link. */
  GQueue           spare_sends;
  /* While the writer waits for the device: the deadline of the lines in
   * flight, on the connection's deadline source, at @write_deadline_time
   * (monotonic µs), write-timeout ms after their write started. */
  SnodoDeadline   *write_deadline;
  gint64           write_deadline_time;
  /* A write that finished at once (@report_pending, @report_error set if
   * it failed) is reported later, never from inside a send: by the
   * transport's own input callback once it has run the work it started
   * (snodo_stdio_transport_report()), or else by @report_source on the next
   * turn of the main loop. Until then its lines count as in flight, so that
   * lines sent meanwhile wait and go out together. @report_source is made
   * by the first write and kept (it is ready while a report is pending, so
   * waking it costs nothing); it holds no reference on the transport, which
   * destroys it when it fails or goes. */
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
  /* A write finished at once and is not reported yet. */
  guint            report_pending : 1;

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

/* snodo-stdio-transport.c */
void snodo_stdio_transport_wire_log             (SnodoStdioTransport *self,
                                                 const char          *direction,
                                                 const char          *data,
                                                 gsize                len);
/* Entry: state is CLOSED or FAILED. Reports the end once. */
void snodo_stdio_transport_emit_closed          (SnodoStdioTransport *self,
                                                 const GError        *error);
/* Entry: any state. Terminal: nothing is written after this, nothing is
 * retried. */
void snodo_stdio_transport_fail                 (SnodoStdioTransport *self,
                                                 const GError        *error);

/* snodo-stdio-transport-input.c */
void snodo_stdio_transport_choose_read_mode     (SnodoStdioTransport *self);
void snodo_stdio_transport_read                 (SnodoStdioTransport *self);
void snodo_stdio_transport_stop_reading         (SnodoStdioTransport *self);
void snodo_stdio_transport_check_done           (SnodoStdioTransport *self);
/* The transport's live and uncancelled work, on both its executors. */
guint snodo_stdio_transport_get_n_live          (SnodoStdioTransport *self);
guint snodo_stdio_transport_get_n_uncancelled   (SnodoStdioTransport *self);

/* snodo-stdio-transport-output.c */
/* The connection's send (SnodoConnectionVTable). */
void snodo_stdio_transport_send                 (gpointer             transport,
                                                 const char          *related,
                                                 GBytes              *line,
                                                 SnodoSendFunc        func,
                                                 gpointer             user_data);
/* The oldest line waiting for its turn, taken off @pending, or NULL. */
PendingSend *snodo_stdio_transport_pop_pending (SnodoStdioTransport *self);
/* Tells the sender of a line that it was written (error NULL), or never
 * will be, and frees it. */
void snodo_stdio_transport_finish_send          (PendingSend         *send,
                                                 const GError        *error);
/* Frees the sends kept for reuse. */
void snodo_stdio_transport_free_spare_sends     (SnodoStdioTransport *self);
/* The same for every line in flight. */
void snodo_stdio_transport_finish_in_flight     (SnodoStdioTransport *self,
                                                 const GError        *error);
/* Entry: not inside a send (nor inside anything a send may be made from
 * that does not expect the sent callbacks to run). Reports now the write
 * that finished at once, if one is waiting to be, and the few that finish
 * at once after it. */
void snodo_stdio_transport_report               (SnodoStdioTransport *self);
/* Takes the deadline of the lines in flight away, if they have one. */
void snodo_stdio_transport_clear_write_deadline (SnodoStdioTransport *self);

G_END_DECLS
