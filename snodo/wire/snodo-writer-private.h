/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * The helper that performs each write of the stdio transport: whole lines
 * (one, or several consecutive ones at once when they are waiting), one
 * batch at a time, never cancellable half-way (a line is written whole or
 * the stream has failed), and never closing the stream.
 *
 * How depends on the stream, chosen once:
 *
 * - On the coordinator's context, without ever blocking it, when the
 *   stream can say whether it would block: a GUnixOutputStream on a pipe or
 *   a socket (its file descriptor is written directly: pwritev2() with
 *   RWF_NOWAIT, or send() with MSG_DONTWAIT, or else poll() and then at
 *   most PIPE_BUF bytes, which a pipe that polls writable takes without
 *   sleeping), or a GPollableOutputStream with nothing to flush (its
 *   non-blocking write; at most PIPE_BUF bytes a call when that is GIO's
 *   emulation, a poll() followed by a blocking write). The file descriptor
 *   never gets O_NONBLOCK: it may be shared. snodo_writer_write() first
 *   writes what the device takes at once; the rest waits on a source for
 *   the device to take more, at most MAX_BYTES_PER_DISPATCH a turn of the
 *   main loop.
 *
 * - Otherwise on a thread of its own, with a blocking
 *   g_output_stream_writev_all() and a flush, reporting back on the
 *   coordinator's context.
 *
 * The coordinator bounds how long a write may take with a timer; if that
 * fires it abandons the writer, which then never calls back again and never
 * writes another byte. An abandoned thread keeps the stream (and only the
 * stream) alive until its write returns, which for a reader that never
 * reads may be never.
 */

typedef struct _SnodoWriter SnodoWriter;

typedef enum
{
  /* Written whole, at once; the function is not called. */
  SNODO_WRITER_DONE,
  /* The stream failed, at once (error set); the function is not called. */
  SNODO_WRITER_FAILED,
  /* In progress: the function is called once, later, on the context. */
  SNODO_WRITER_PENDING,
} SnodoWriterStatus;

/* @error is NULL on success; owned by the caller of the function. */
typedef void (*SnodoWriterFunc) (const GError *error,
                                 gpointer      user_data);

SnodoWriter       *snodo_writer_new          (GOutputStream    *stream,
                                              GMainContext     *context);
SnodoWriterStatus  snodo_writer_write        (SnodoWriter      *self,
                                              GPtrArray        *lines,
                                              SnodoWriterFunc   func,
                                              gpointer          user_data,
                                              GError          **error);
gboolean           snodo_writer_is_busy      (SnodoWriter      *self);
void               snodo_writer_abandon      (SnodoWriter      *self);

#ifdef G_OS_UNIX
/* Non-blocking I/O on a descriptor that stays blocking (it may be shared),
 * also used by the transport to read its input. The switch turns
 * RWF_NOWAIT off for descriptors set up afterwards (tests use it to run the
 * paths of kernels without it). */
typedef enum
{
  SNODO_FD_OTHER,
  SNODO_FD_PIPE,
  SNODO_FD_SOCKET,
} SnodoFdKind;

SnodoFdKind        snodo_fd_get_kind         (int               fd);
void               snodo_fd_set_nowait_enabled (gboolean        enabled);
gboolean           snodo_fd_get_nowait_enabled (void);
gssize             snodo_fd_read_nonblocking (int               fd,
                                              SnodoFdKind       kind,
                                              gboolean         *nowait,
                                              void             *buffer,
                                              gsize             size,
                                              GError          **error);
#endif

G_END_DECLS
