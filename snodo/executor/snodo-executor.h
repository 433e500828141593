/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-types.h"
#include "snodo-version-macros.h"
#include "snodo-work.h"

G_BEGIN_DECLS

/**
 * SnodoWorkFunc:
 * @work: the piece of work being run
 * @user_data: the data given to [method@Snodo.Executor.submit]
 *
 * Runs one piece of work. It must call [method@Snodo.Work.complete] on @work
 * exactly once, before or after it returns, from any thread.
 *
 * Since: 0.1
 */
typedef void (*SnodoWorkFunc) (SnodoWork *work,
                               gpointer   user_data);

#define SNODO_TYPE_EXECUTOR (snodo_executor_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoExecutor, snodo_executor, SNODO, EXECUTOR, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoExecutor *snodo_executor_new                  (void);
SNODO_AVAILABLE_IN_ALL
guint          snodo_executor_get_max_threads      (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_executor_set_max_threads      (SnodoExecutor        *self,
                                                    guint                 max_threads);
SNODO_AVAILABLE_IN_ALL
guint          snodo_executor_get_max_running      (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_executor_set_max_running      (SnodoExecutor        *self,
                                                    guint                 max_running);
SNODO_AVAILABLE_IN_ALL
guint          snodo_executor_get_max_queued       (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_executor_set_max_queued       (SnodoExecutor        *self,
                                                    guint                 max_queued);
SNODO_AVAILABLE_IN_ALL
guint64        snodo_executor_get_max_queued_bytes (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_executor_set_max_queued_bytes (SnodoExecutor        *self,
                                                    guint64               max_queued_bytes);
SNODO_AVAILABLE_IN_ALL
guint64        snodo_executor_get_max_live_bytes   (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_executor_set_max_live_bytes   (SnodoExecutor        *self,
                                                    guint64               max_live_bytes);
SNODO_AVAILABLE_IN_ALL
guint64        snodo_executor_get_live_bytes       (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
gboolean       snodo_executor_submit               (SnodoExecutor        *self,
                                                    GObject              *owner,
                                                    const char           *key,
                                                    SnodoWorkKind         kind,
                                                    gsize                 cost_bytes,
                                                    SnodoWorkFunc         func,
                                                    gpointer              user_data,
                                                    GDestroyNotify        destroy,
                                                    GError              **error);
SNODO_AVAILABLE_IN_ALL
gboolean       snodo_executor_cancel               (SnodoExecutor        *self,
                                                    GObject              *owner,
                                                    const char           *key);
SNODO_AVAILABLE_IN_ALL
guint          snodo_executor_cancel_owner         (SnodoExecutor        *self,
                                                    GObject              *owner);
SNODO_AVAILABLE_IN_ALL
guint          snodo_executor_get_n_live_for_owner (SnodoExecutor        *self,
                                                    GObject              *owner);
SNODO_AVAILABLE_IN_ALL
void           snodo_executor_wait_owner_async     (SnodoExecutor        *self,
                                                    GObject              *owner,
                                                    GCancellable         *cancellable,
                                                    GAsyncReadyCallback   callback,
                                                    gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean       snodo_executor_wait_owner_finish    (SnodoExecutor        *self,
                                                    GAsyncResult         *result,
                                                    GError              **error);
SNODO_AVAILABLE_IN_ALL
guint          snodo_executor_get_n_running        (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
guint          snodo_executor_get_n_queued         (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
guint64        snodo_executor_get_admitted         (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
guint64        snodo_executor_get_rejected         (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
guint64        snodo_executor_get_cancelled        (SnodoExecutor        *self);
SNODO_AVAILABLE_IN_ALL
guint64        snodo_executor_get_completed        (SnodoExecutor        *self);

G_END_DECLS
