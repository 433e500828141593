/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-connection-private.h"
#include "snodo-invocation-private.h"
#include "snodo-frame-private.h"
#include "snodo-request-state-private.h"
#include "snodo-server.h"
#include "snodo-server-methods.h"

G_BEGIN_DECLS

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

/* A transport starts serving @connection: it hears of changes. */
void snodo_server_connection_started  (SnodoServer     *self,
                                       SnodoConnection *connection);
/* The input of @connection ended: no new subscriptions, and the current
 * ones end gracefully (with their result) so that the transport can drain. */
void snodo_server_connection_draining (SnodoServer     *self,
                                       SnodoConnection *connection);

GPtrArray            *snodo_server_get_connections       (SnodoServer          *self);
/* On the context: a client's answer to a request of the server. */
char                 *snodo_server_subscription_refusal  (const char           *uri,
                                                          guint                 n_kept,
                                                          gboolean              kept);
void                  snodo_server_handle_response       (SnodoServer          *self,
                                                          SnodoConnection      *connection,
                                                          SnodoFrame           *frame);
gboolean              snodo_server_is_version_enabled    (SnodoServer          *self,
                                                          SnodoProtocolVersion  version);
SnodoProtocolVersion  snodo_server_get_oldest_legacy     (SnodoServer          *self);
JsonObject           *snodo_server_dup_info              (SnodoServer          *self);
SnodoStamp           *snodo_server_ref_stamp             (SnodoServer          *self);

/* Sends a request to the client (2025 era) and completes @task (transfer
 * full) with its result (a JsonNode) or error. Any thread. */
void snodo_server_request_input (SnodoServer     *self,
                                 SnodoConnection *connection,
                                 const char      *related,
                                 const char      *method,
                                 JsonNode        *params,
                                 GCancellable    *cancellable,
                                 GTask           *task);

/* The transport of @connection ended; @graceful when it drains (EOF, close)
 * rather than failed. Ends the connection's subscriptions. */
void snodo_server_connection_ended (SnodoServer     *self,
                                    SnodoConnection *connection,
                                    gboolean         graceful);

G_END_DECLS
