/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "snodo-executor.h"
#include "snodo-protocol-private.h"

G_BEGIN_DECLS

/*
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
} SnodoConnectionVTable;

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

  /* Deadlines (SnodoDeadline), earliest first, under deadline_lock, and the
   * one source that fires for them (made with the first), whose ready time
   * is at most the earliest deadline: a request's deadline costs a list
   * link, not a GSource of its own. */
  GMutex                       deadline_lock;
  GQueue                       deadlines;
  GSource                     *deadline_source;
};

SnodoConnection *snodo_connection_new    (const SnodoConnectionVTable *vtable,
                                          gpointer                     transport,
                                          GObject                     *owner,
                                          SnodoExecutor               *executor,
                                          GMainContext                *context);
SnodoConnection *snodo_connection_ref    (SnodoConnection             *self);
SnodoDeadline   *snodo_connection_add_deadline    (SnodoConnection   *self,
                                                   gint64             ready_time,
                                                   GObject           *target,
                                                   SnodoDeadlineFunc  func);
void             snodo_connection_remove_deadline (SnodoConnection   *self,
                                                   SnodoDeadline     *deadline);
void             snodo_connection_unref  (SnodoConnection             *self);
void             snodo_connection_detach (SnodoConnection             *self);
void             snodo_connection_negotiated (SnodoConnection     *self,
                                              SnodoProtocolVersion version);
JsonObject      *snodo_connection_dup_client_capabilities (SnodoConnection *self);
void             snodo_connection_set_client_capabilities (SnodoConnection *self,
                                                           JsonObject      *capabilities);
guint            snodo_connection_get_n_in_transit (SnodoConnection  *self);
void             snodo_connection_send   (SnodoConnection             *self,
                                          GBytes                      *line,
                                          SnodoSendFunc                func,
                                          gpointer                     user_data);
void             snodo_connection_send_related (SnodoConnection       *self,
                                                const char            *related,
                                                GBytes                *line,
                                                SnodoSendFunc          func,
                                                gpointer               user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoConnection, snodo_connection_unref)

G_END_DECLS
