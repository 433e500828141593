/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * The helper that performs each write of the stdio transport: a thread of its
 * own that writes whole lines with a blocking g_output_stream_writev_all()
 * (one line, or several consecutive ones at once when they are waiting) and
 * reports back on the coordinator's context.
 *
 * The write is never cancellable: a line is written whole or the stream has
 * failed. The coordinator bounds how long it waits with a timer; if that
 * fires it abandons the writer, which then never calls back again. The thread
 * keeps the stream (and only the stream) alive until its write returns, which
 * for a reader that never reads may be never; it never closes the stream.
 */

typedef struct _SnodoWriter SnodoWriter;

/* @error is NULL on success; owned by the caller of the function. */
typedef void (*SnodoWriterFunc) (const GError *error,
                                 gpointer      user_data);

SnodoWriter *snodo_writer_new     (GOutputStream   *stream,
                                   GMainContext    *context);
void         snodo_writer_write   (SnodoWriter     *self,
                                   GPtrArray       *lines,
                                   SnodoWriterFunc  func,
                                   gpointer         user_data);
gboolean     snodo_writer_is_busy (SnodoWriter     *self);
void         snodo_writer_abandon (SnodoWriter     *self);

G_END_DECLS
