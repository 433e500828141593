/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

#include "snodo-executor.h"
#include "snodo-protocol-version.h"

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

/* Called on the connection's context once (if not NULL), when the line has been written
 * (error NULL) or can never be (error set). */
typedef void (*SnodoSendFunc) (const GError *error,
                               gpointer      user_data);

typedef struct
{
  /* Writes @line (one whole message ending with '\n'; ownership is taken)
   * and calls @func once, later, never from inside send. */
  void (*send)       (gpointer              transport,
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

  /* Protocol state, touched on the context only. */
  SnodoProtocolVersion         legacy_version;
  guint                        initialized : 1;
};

SnodoConnection *snodo_connection_new    (const SnodoConnectionVTable *vtable,
                                          gpointer                     transport,
                                          GObject                     *owner,
                                          SnodoExecutor               *executor,
                                          GMainContext                *context);
SnodoConnection *snodo_connection_ref    (SnodoConnection             *self);
void             snodo_connection_unref  (SnodoConnection             *self);
void             snodo_connection_detach (SnodoConnection             *self);
void             snodo_connection_negotiated (SnodoConnection     *self,
                                              SnodoProtocolVersion version);
guint            snodo_connection_get_n_in_transit (SnodoConnection  *self);
void             snodo_connection_send   (SnodoConnection             *self,
                                          GBytes                      *line,
                                          SnodoSendFunc                func,
                                          gpointer                     user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoConnection, snodo_connection_unref)

G_END_DECLS
