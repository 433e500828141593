/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_TASK_STORE (snodo_task_store_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (SnodoTaskStore, snodo_task_store, SNODO, TASK_STORE, GObject)

/**
 * SnodoTaskStoreInterface:
 * @save: stores @record (a JSON object) under @task_id, replacing what was
 *   there, until @expires_at (wall-clock microseconds); may refuse with an
 *   error (%G_IO_ERROR_NO_SPACE when full)
 * @load: the record of @task_id (transfer full), or %NULL when it is
 *   unknown or expired
 * @remove: forgets @task_id
 *
 * Where a server keeps the state of its tasks: what `tasks/get` reads.
 * Called on the server's main context.
 *
 * Since: 0.1
 */
struct _SnodoTaskStoreInterface
{
  GTypeInterface g_iface;

  gboolean  (*save)   (SnodoTaskStore  *self,
                       const char      *task_id,
                       JsonNode        *record,
                       gint64           expires_at,
                       GError         **error);
  JsonNode *(*load)   (SnodoTaskStore  *self,
                       const char      *task_id);
  void      (*remove) (SnodoTaskStore  *self,
                       const char      *task_id);

  /*< private >*/
  gpointer padding[8];
};

SNODO_AVAILABLE_IN_ALL
gboolean        snodo_task_store_save       (SnodoTaskStore  *self,
                                             const char      *task_id,
                                             JsonNode        *record,
                                             gint64           expires_at,
                                             GError         **error);
SNODO_AVAILABLE_IN_ALL
JsonNode       *snodo_task_store_load       (SnodoTaskStore  *self,
                                             const char      *task_id);
SNODO_AVAILABLE_IN_ALL
void            snodo_task_store_remove     (SnodoTaskStore  *self,
                                             const char      *task_id);

/**
 * SNODO_TASK_STORE_DEFAULT_MAX_TASKS:
 *
 * How many tasks the stores Snodo makes keep at most, unless told
 * otherwise: 1,000.
 *
 * Since: 0.1
 */
#define SNODO_TASK_STORE_DEFAULT_MAX_TASKS 1000
/**
 * SNODO_TASK_STORE_DEFAULT_MAX_BYTES:
 *
 * How many bytes of records (their JSON text) the stores Snodo makes keep
 * at most, unless told otherwise: 64 MiB.
 *
 * Since: 0.1
 */
#define SNODO_TASK_STORE_DEFAULT_MAX_BYTES (64 * 1024 * 1024)

SNODO_AVAILABLE_IN_ALL
SnodoTaskStore *snodo_task_store_new_memory (guint        max_tasks,
                                             gsize        max_bytes);
SNODO_AVAILABLE_IN_ALL
SnodoTaskStore *snodo_task_store_new_file   (const char  *directory,
                                             guint        max_tasks,
                                             gsize        max_bytes,
                                             GError     **error);
SNODO_AVAILABLE_IN_ALL
SnodoTaskStore *snodo_task_store_new_for_application
                                            (const char  *application,
                                             GError     **error);

G_END_DECLS
