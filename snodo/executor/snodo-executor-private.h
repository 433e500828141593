/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The executor layer, for the layers above: what a server or a transport
 * needs of the executor beyond its public API. It knows no MCP and no JSON.
 * The work's record and its life inside the executor stay in the layer
 * (snodo-work-private.h, snodo-executor-core-private.h). */

#pragma once

#include "snodo-executor.h"
#include "snodo-work.h"

G_BEGIN_DECLS

/* How many live works of @owner have not been cancelled (by
 * snodo_executor_cancel(), snodo_executor_cancel_owner() or through their
 * cancellable): the ones a transport that drains still waits for without a
 * bound. Any thread. */
guint snodo_executor_get_n_uncancelled_for_owner (SnodoExecutor *self,
                                                  GObject       *owner);

/* Frees the key of @work, a live work of @self, while the work itself stays
 * live: its answer is decided and on its way, so the client may reuse the
 * id as soon as it reads it. The work can no longer be cancelled by key.
 * Any thread. */
void  snodo_executor_release_key                 (SnodoExecutor *self,
                                                  SnodoWork     *work);

/* Whether @owner has live work with @key. Any thread. */
gboolean snodo_executor_has_key                  (SnodoExecutor *self,
                                                  GObject       *owner,
                                                  const char    *key);

/* Takes @bytes of max-live-bytes for something that is not work yet (a
 * request body being decoded, before it is submitted), as submit() would:
 * FALSE (nothing taken, counted as rejected) when they do not fit.
 * hold takes them whether they fit or not (what is held already, such
 * as an answer being written, which new work must leave room for).
 * release gives them back. Any thread. */
gboolean snodo_executor_reserve_live_bytes       (SnodoExecutor *self,
                                                  guint64        bytes);
void     snodo_executor_hold_live_bytes          (SnodoExecutor *self,
                                                  guint64        bytes);
void     snodo_executor_release_live_bytes       (SnodoExecutor *self,
                                                  guint64        bytes);

/* Runs now, one batch at most, the ASYNC works started for @context that
 * wait for their turn on its dispatch source, in order, as that source
 * would on the next turn of the main loop: for a transport that has just
 * submitted work from one of its own callbacks on @context, to spare that
 * turn. Call it on the thread that runs @context, from a callback that
 * @context dispatches, never from inside submit() or a work function:
 * while works of the source run, it runs none (nor when @context is not
 * owned by this thread). The caller holds a reference on @self. Returns
 * how many works ran. */
guint snodo_executor_run_started                 (SnodoExecutor *self,
                                                  GMainContext  *context);

G_END_DECLS
