/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

/**
 * SnodoWorkKind:
 * @SNODO_WORK_KIND_ASYNC: the work function is called on the main context that
 *   was the thread-default one when the work was submitted, must not block, and
 *   completes later by calling [method@Snodo.Work.complete] from any thread
 * @SNODO_WORK_KIND_BLOCKING: the work function is called on one of the
 *   executor's worker threads and may block
 *
 * How a piece of work runs.
 *
 * Since: 0.1
 */
typedef enum
{
  SNODO_WORK_KIND_ASYNC,
  SNODO_WORK_KIND_BLOCKING,
} SnodoWorkKind;

#define SNODO_TYPE_WORK (snodo_work_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoWork, snodo_work, SNODO, WORK, GObject)

SNODO_AVAILABLE_IN_ALL
GCancellable  *snodo_work_get_cancellable (SnodoWork *self);
SNODO_AVAILABLE_IN_ALL
const char    *snodo_work_get_key         (SnodoWork *self);
SNODO_AVAILABLE_IN_ALL
SnodoWorkKind  snodo_work_get_kind        (SnodoWork *self);
SNODO_AVAILABLE_IN_ALL
gboolean       snodo_work_is_cancelled    (SnodoWork *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_work_complete        (SnodoWork *self);

G_END_DECLS
