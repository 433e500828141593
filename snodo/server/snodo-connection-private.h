/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "snodo-executor.h"
#include "snodo-session.h"
#include "snodo-protocol-private.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

G_BEGIN_DECLS

/*
 * Inside the server folder: what a SnodoConnection holds (a transport sees
 * only the type and the functions of snodo-server-private.h), and the
 * requests the server sends on it.
 */

struct _SnodoConnection
{
  gatomicrefcount              ref_count;
  const SnodoConnectionVTable *vtable;
  /* Protects transport only. */
  GMutex                       lock;
  /* The transport; NULL once detached. Not referenced: the transport
   * detaches before it goes away. */
  gpointer                     transport;
  /* Identity of this connection's work in the executor. */
  GObject                     *owner;
  /* Owned. */
  SnodoExecutor               *executor;
  /* Where subscriptions/listen runs instead, so that streams, which last,
   * hold no slot of the executor that admits work (owned), or NULL. */
  SnodoExecutor               *stream_executor;
  /* Owned; where vtable functions and send callbacks run. */
  GMainContext                *context;
  /* Sends on their way to the context (atomic). */
  gint                         n_in_transit;

  /* Protocol state, touched on the context only unless said otherwise. */
  SnodoEra                     era;
  SnodoProtocolVersion         legacy_version;
  guint                        initialized : 1;
  /* The connection carries many requests (stdio), so its era is pinned;
   * FALSE for a connection made for one stateless request. */
  guint                        persistent : 1;
  /* The transport is draining or gone: no new subscriptions. */
  guint                        ending : 1;
  /* The transport closes requests' streams for their clients to resume
   * them (snodo_connection_close_stream()); set before the first request. */
  guint                        streams_resumable : 1;
  /* From initialize; sealed. Read from any thread under lock. */
  JsonObject                  *client_capabilities;
  /* logging/setLevel's minimum, a SnodoLogLevel (atomic). */
  gint                         log_level;
  /* resources/subscribe: URI -> URI. */
  GHashTable                  *resource_subscriptions;
  /* Requests this server sent (2025 era), id key -> pending request,
   * owned by the server. Under lock. */
  GHashTable                  *outgoing;
  gint64                       next_outgoing_id;
  /* subscriptions/listen in progress (2026-07-28), owned by the server. */
  GPtrArray                   *subscriptions;
  /* Who the requests dispatched now come from (owned), or NULL without
   * authorization; see snodo_connection_set_auth(). On the context. */
  SnodoAuthInfo               *auth;
  /* What a forwarding server's application sees of the connection
   * (snodo-session.c): made with the first ask, owned until the
   * connection ends; NULL otherwise. On the context. */
  SnodoSession                *session;

  /* Deadlines (SnodoDeadline), earliest first, under deadline_lock, and the
   * one source that fires for them (made with the first), whose ready time
   * is at most the earliest deadline: a request's deadline costs a list
   * link, not a GSource of its own. */
  GMutex                       deadline_lock;
  GQueue                       deadlines;
  GSource                     *deadline_source;
};

void             snodo_connection_negotiated (SnodoConnection     *self,
                                              SnodoProtocolVersion version);
JsonObject      *snodo_connection_dup_client_capabilities (SnodoConnection *self);
void             snodo_connection_set_client_capabilities (SnodoConnection *self,
                                                           JsonObject      *capabilities);
/* Asks the transport to close the stream of the client request @related
 * (after the lines sent for it before); FALSE if it cannot. Any thread. */
gboolean         snodo_connection_close_stream (SnodoConnection       *self,
                                                const char            *related);
void             snodo_connection_send_related (SnodoConnection       *self,
                                                const char            *related,
                                                GBytes                *line,
                                                SnodoSendFunc          func,
                                                gpointer               user_data);

/* Sends a request to the client (2025 era) and completes @task (transfer
 * full) with its result (a JsonNode) or error: when @cancellable or the
 * task's fires, after @timeout milliseconds, or when the connection ends.
 * @related is the key of the client request it is made for. Any thread. */
void             snodo_connection_request_input   (SnodoConnection   *self,
                                                   const char        *related,
                                                   const char        *method,
                                                   JsonNode          *params,
                                                   GCancellable      *cancellable,
                                                   guint              timeout,
                                                   GTask             *task);
/* On the context: a client's answer to a request of the server. */
void             snodo_connection_handle_response (SnodoConnection   *self,
                                                   SnodoFrame        *frame);
/* Fails every request of the server on @self that is unanswered. */
void             snodo_connection_fail_requests   (SnodoConnection   *self,
                                                   const char        *message);

/* snodo-session.c */
SnodoSession    *snodo_connection_get_session     (SnodoConnection   *connection,
                                                   guint              request_timeout);
void             snodo_connection_end_session     (SnodoConnection   *connection);
void             snodo_session_emit_notification  (SnodoSession      *self,
                                                   SnodoFrame        *frame);

G_END_DECLS
