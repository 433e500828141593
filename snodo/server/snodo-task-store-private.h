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

/* Whether a record's status is completed, failed or cancelled. */
gboolean snodo_task_record_is_terminal (JsonObject *record);

G_END_DECLS
