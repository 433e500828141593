/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-executor.h"
#include "snodo-server.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_STDIO_TRANSPORT (snodo_stdio_transport_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoStdioTransport, snodo_stdio_transport, SNODO, STDIO_TRANSPORT, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoStdioTransport *snodo_stdio_transport_new                (SnodoServer          *server,
                                                               GInputStream         *input,
                                                               GOutputStream        *output);
SNODO_AVAILABLE_IN_ALL
SnodoStdioTransport *snodo_stdio_transport_new_for_stdio      (SnodoServer          *server);
SNODO_AVAILABLE_IN_ALL
SnodoServer         *snodo_stdio_transport_get_server         (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
SnodoExecutor       *snodo_stdio_transport_get_executor       (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
GInputStream        *snodo_stdio_transport_get_input_stream   (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
GOutputStream       *snodo_stdio_transport_get_output_stream  (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
guint                snodo_stdio_transport_get_write_timeout  (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_stdio_transport_set_write_timeout  (SnodoStdioTransport  *self,
                                                               guint                 write_timeout);
SNODO_AVAILABLE_IN_ALL
guint64              snodo_stdio_transport_get_max_line_bytes (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_stdio_transport_set_max_line_bytes (SnodoStdioTransport  *self,
                                                               guint64               max_line_bytes);
SNODO_AVAILABLE_IN_ALL
guint                snodo_stdio_transport_get_max_streams    (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_stdio_transport_set_max_streams    (SnodoStdioTransport  *self,
                                                               guint                 max_streams);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_stdio_transport_get_protect_stdout (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
const char          *snodo_stdio_transport_get_protocol_version
                                                              (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_stdio_transport_log_to_stderr      (void);
SNODO_AVAILABLE_IN_ALL
void                 snodo_stdio_transport_start              (SnodoStdioTransport  *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_stdio_transport_close_async        (SnodoStdioTransport  *self,
                                                               GCancellable         *cancellable,
                                                               GAsyncReadyCallback   callback,
                                                               gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_stdio_transport_close_finish       (SnodoStdioTransport  *self,
                                                               GAsyncResult         *result,
                                                               GError              **error);

G_END_DECLS
