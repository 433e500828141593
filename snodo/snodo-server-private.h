/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-connection-private.h"
#include "snodo-frame-private.h"
#include "snodo-server.h"

G_BEGIN_DECLS

/* The header a transport attaches once a version was negotiated; HTTP
 * requests carry it as a real header. Names in @headers are lower case. */
#define SNODO_HEADER_PROTOCOL_VERSION "mcp-protocol-version"

/*
 * Hands one decoded message (REQUEST, NOTIFICATION or RESPONSE) to the
 * server, on the connection's context. The server answers through the
 * connection; it never blocks. @headers (nullable) maps lower-case header
 * names to values. @cost is the size of the message, which the executor
 * counts while the request waits for a slot.
 */
void snodo_server_dispatch         (SnodoServer     *self,
                                    SnodoConnection *connection,
                                    SnodoFrame      *frame,
                                    GHashTable      *headers,
                                    gsize            cost);

/* The transport of @connection ended; @graceful when it drains (EOF, close)
 * rather than failed. Ends the connection's subscriptions. */
void snodo_server_connection_ended (SnodoServer     *self,
                                    SnodoConnection *connection,
                                    gboolean         graceful);

G_END_DECLS
