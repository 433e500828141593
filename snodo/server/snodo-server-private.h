/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

#include "snodo-executor.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-wire-private.h"

G_BEGIN_DECLS

/*
 * The server layer, for the transports: the connection a transport makes
 * for each peer, and the server calls that serve it. (SNODO_HEADER_PROTOCOL_VERSION
 * comes with the protocol layer's header.)
 *
 * SnodoConnection is what SnodoServer sees of a transport: where to send
 * lines, which executor admits work, and the per-connection protocol state.
 * Every transport creates one per peer (stdio: one per transport; HTTP: one
 * per session or per stateless request). It is reference counted and may
 * outlive its transport: once detached, sends fail with G_IO_ERROR_CLOSED.
 *
 * Threading: snodo_connection_send() may be called from any thread; the
 * vtable functions are always called on the connection's context.
 */

typedef struct _SnodoConnection SnodoConnection;

/* A deadline of a connection (see snodo_connection_add_deadline()). */
typedef struct _SnodoDeadline SnodoDeadline;

/* Called on the connection's context with a strong reference to the
 * target of a deadline that passed. */
typedef void (*SnodoDeadlineFunc) (GObject *target);

/* Called on the connection's context once (if not NULL), when the line has been written
 * (error NULL) or can never be (error set). */
typedef void (*SnodoSendFunc) (const GError *error,
                               gpointer      user_data);

typedef struct
{
  /* Writes @line (one whole message ending with '\n'; ownership is taken)
   * and calls @func once, later, never from inside send. @related is the
   * key of the client request the line belongs to (its answer, its
   * progress and logs, a request made on its behalf), or NULL for a line
   * of no request (a change announcement); a transport with one stream per
   * request (HTTP) routes by it. */
  void (*send)       (gpointer              transport,
                      const char           *related,
                      GBytes               *line,
                      SnodoSendFunc         func,
                      gpointer              user_data);
  /* An initialize result negotiating @version is about to be sent. */
  void (*negotiated) (gpointer              transport,
                      SnodoProtocolVersion  version);
  /* Closes the stream that carries the answer of the client request
   * @related, which goes on: the client comes back for the rest (SEP-1699,
   * snodo_invocation_close_stream()). Called after the lines sent for it
   * before. NULL for a transport without such streams. */
  void (*close_stream) (gpointer            transport,
                        const char         *related);
  /* What spans say the transport is (OpenTelemetry's network.transport:
   * "pipe", "tcp"), or NULL. */
  const char *network_transport;
} SnodoConnectionVTable;

SnodoConnection *snodo_connection_new    (const SnodoConnectionVTable *vtable,
                                          gpointer                     transport,
                                          GObject                     *owner,
                                          SnodoExecutor               *executor,
                                          GMainContext                *context);
SnodoConnection *snodo_connection_ref    (SnodoConnection             *self);
void             snodo_connection_unref  (SnodoConnection             *self);
/* The connection carries many requests (stdio, an HTTP session), so its
 * era is settled by its first real request; TRUE by default, FALSE for a
 * connection made for one stateless request. */
void             snodo_connection_set_persistent (SnodoConnection     *self,
                                                  gboolean             persistent);
/* subscriptions/listen on this connection runs on @executor (with the
 * same owner) rather than on the one that admits work: a transport whose
 * one connection carries streams and requests alike (stdio) bounds its
 * streams on their own this way. Before the first request. */
void             snodo_connection_set_stream_executor (SnodoConnection *self,
                                                       SnodoExecutor   *executor);
/* The transport can close a request's stream for its client to resume it
 * (the vtable's close_stream does something on this connection): an HTTP
 * session with an event store. Before the first request. */
void             snodo_connection_set_streams_resumable (SnodoConnection *self,
                                                         gboolean         resumable);
void             snodo_connection_detach (SnodoConnection             *self);
guint            snodo_connection_get_n_in_transit (SnodoConnection  *self);
/* Whether a request the server sent on @self under the id key @key awaits
 * its answer (a message of that id without "method" is a malformed
 * response, never answered). Any thread. */
gboolean         snodo_connection_awaits (SnodoConnection             *self,
                                          const char                  *key);
void             snodo_connection_send   (SnodoConnection             *self,
                                          GBytes                      *line,
                                          SnodoSendFunc                func,
                                          gpointer                     user_data);
/* Calls @func with @target on the connection's context at @ready_time
 * (monotonic) unless removed first: the deadlines of a connection share
 * one source. */
SnodoDeadline   *snodo_connection_add_deadline    (SnodoConnection   *self,
                                                   gint64             ready_time,
                                                   GObject           *target,
                                                   SnodoDeadlineFunc  func);
void             snodo_connection_remove_deadline (SnodoConnection   *self,
                                                   SnodoDeadline     *deadline);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoConnection, snodo_connection_unref)

/* Who a request comes from, as a transport's authorization found it
 * (snodo-invocation-auth.c): a principal and its scopes, immutable and
 * shared by reference from any thread. */
typedef struct _SnodoAuthInfo SnodoAuthInfo;

SnodoAuthInfo      *snodo_auth_info_new           (const char         *principal,
                                                   const char * const *scopes);
SnodoAuthInfo      *snodo_auth_info_ref           (SnodoAuthInfo      *self);
void                snodo_auth_info_unref         (SnodoAuthInfo      *self);
const char         *snodo_auth_info_get_principal (SnodoAuthInfo      *self);
const char * const *snodo_auth_info_get_scopes    (SnodoAuthInfo      *self);
gboolean            snodo_auth_info_has_scope     (SnodoAuthInfo      *self,
                                                   const char         *scope);
/* On the context: the authorization of the requests dispatched on
 * @connection from now on (nullable; a reference is taken). Each
 * invocation keeps the one its request was dispatched with. */
void                snodo_connection_set_auth     (SnodoConnection    *self,
                                                   SnodoAuthInfo      *auth);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoAuthInfo, snodo_auth_info_unref)

/*
 * Hands one decoded message (REQUEST, NOTIFICATION or RESPONSE) to the
 * server, on the connection's context. The server answers through the
 * connection; it never blocks. @headers (nullable) maps lower-case header
 * names to values. @cost is what the transport keeps of the message while
 * it is answered (its size); the server adds what the decoded message
 * holds (frame->size) and the executor counts the sum against its budgets
 * while the request is live.
 */
void snodo_server_dispatch         (SnodoServer     *self,
                                    SnodoConnection *connection,
                                    SnodoFrame      *frame,
                                    GHashTable      *headers,
                                    gsize            cost);
/* Hands a notification to the application's handler of its method, if
 * any (snodo-server-custom.c): what a 2026-07-28 notification over HTTP,
 * which has no connection, gets. */
void snodo_server_dispatch_custom_notification (SnodoServer *self,
                                                SnodoFrame  *frame);

/* A transport starts serving @connection: it hears of changes. */
void snodo_server_connection_started  (SnodoServer     *self,
                                       SnodoConnection *connection);
/* The input of @connection ended: no new subscriptions, and the current
 * ones end gracefully (with their result) so that the transport can drain. */
void snodo_server_connection_draining (SnodoServer     *self,
                                       SnodoConnection *connection);
/* The transport of @connection ended; @graceful when it drains (EOF, close)
 * rather than failed. Ends the connection's subscriptions. */
void snodo_server_connection_ended    (SnodoServer     *self,
                                       SnodoConnection *connection,
                                       gboolean         graceful);

/* Which versions the server serves, for a transport's own answers. */
gboolean             snodo_server_is_version_enabled (SnodoServer          *self,
                                                      SnodoProtocolVersion  version);
/* The oldest served version of the initialize era, or UNKNOWN. */
SnodoProtocolVersion snodo_server_get_oldest_legacy  (SnodoServer          *self);

/* The cache hint of @method (snodo_server_set_cache_hint()), or FALSE when
 * it has none. Any thread. */
gboolean             snodo_server_get_cache_hint     (SnodoServer          *self,
                                                      SnodoMethodId         method,
                                                      guint                *ttl_ms,
                                                      SnodoCacheScope      *scope);

G_END_DECLS
