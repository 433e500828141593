/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-task-store.h"

G_BEGIN_DECLS

/* The stores Snodo makes (snodo-task-store.c, snodo-task-store-file.c). */
#define SNODO_TYPE_MEMORY_TASK_STORE (snodo_memory_task_store_get_type ())
G_DECLARE_FINAL_TYPE (SnodoMemoryTaskStore, snodo_memory_task_store, SNODO, MEMORY_TASK_STORE, GObject)
#define SNODO_TYPE_FILE_TASK_STORE (snodo_file_task_store_get_type ())
G_DECLARE_FINAL_TYPE (SnodoFileTaskStore, snodo_file_task_store, SNODO, FILE_TASK_STORE, GObject)

/* What both stores keep of a task to bound themselves: the first member
 * of their entries. */
typedef struct
{
  char     *id;
  gsize     len;
  gint64    expires_at;
  gboolean  terminal;
  GList     link;
} SnodoTaskSlot;

/* Both stores' bounds: their entries by id (the table owns them) and in
 * the order they were saved, oldest first. */
typedef struct
{
  guint       max_tasks;
  gsize       max_bytes;
  gsize       n_bytes;
  GHashTable *entries;
  GQueue      order;
} SnodoTaskBounds;

/* Forgets @slot's entry: a store drops what it keeps elsewhere first. */
void     snodo_task_bounds_forget    (SnodoTaskBounds *bounds,
                                      SnodoTaskSlot   *slot);
/* Makes room for @len more bytes and, if @adding, one more task: expired
 * tasks go first, then finished ones, oldest first; never @keep. Each goes
 * through @drop, which must call snodo_task_bounds_forget(). */
gboolean snodo_task_bounds_make_room (SnodoTaskBounds *bounds,
                                      gsize            len,
                                      gboolean         adding,
                                      SnodoTaskSlot   *keep,
                                      void           (*drop) (gpointer       store,
                                                              SnodoTaskSlot *slot),
                                      gpointer         store);

/* Whether a record's status is completed, failed or cancelled. */
gboolean snodo_task_record_is_terminal (JsonObject *record);

G_END_DECLS
