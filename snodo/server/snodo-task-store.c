/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-task-store.h"
#include "snodo-task-store-private.h"
#include "snodo-wire-private.h"

/**
 * SnodoTaskStore:
 *
 * Where a server keeps its tasks ([method@Snodo.Server.enable_tasks]):
 * their status and, once they end, their result, until their time to live
 * is over. Snodo makes two: one in memory
 * ([func@Snodo.TaskStore.new_memory], the default) and one in files
 * ([func@Snodo.TaskStore.new_file]), whose finished results survive a
 * restart of the application. An application may bring its own (a
 * database, a cache shared by several processes) by implementing this
 * interface.
 *
 * Both of Snodo's stores are bounded by a number of tasks and a number of
 * bytes (the JSON text of their records). When a new task would not fit,
 * they first forget expired tasks, then finished tasks, oldest first; if
 * the task still does not fit (every task kept is still running), they
 * refuse it with %G_IO_ERROR_NO_SPACE, which the client sees as error
 * -32010 (server overloaded). A record is never kept past its time to live.
 *
 * Since: 0.1
 */

G_DEFINE_INTERFACE (SnodoTaskStore, snodo_task_store, G_TYPE_OBJECT)

static void
snodo_task_store_default_init (SnodoTaskStoreInterface *iface)
{
}

/**
 * snodo_task_store_save:
 * @self: a task store
 * @task_id: the task's identifier
 * @record: the task's record, a JSON object
 * @expires_at: when the record may be forgotten (wall-clock microseconds,
 *   as g_get_real_time())
 * @error: return location for an error
 *
 * Stores @record under @task_id, replacing what was there.
 *
 * Returns: %TRUE if it was stored
 *
 * Since: 0.1
 */
gboolean
snodo_task_store_save (SnodoTaskStore  *self,
                       const char      *task_id,
                       JsonNode        *record,
                       gint64           expires_at,
                       GError         **error)
{
  g_return_val_if_fail (SNODO_IS_TASK_STORE (self), FALSE);
  g_return_val_if_fail (task_id != NULL, FALSE);
  g_return_val_if_fail (record != NULL && JSON_NODE_HOLDS_OBJECT (record), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return SNODO_TASK_STORE_GET_IFACE (self)->save (self, task_id, record, expires_at, error);
}

/**
 * snodo_task_store_load:
 * @self: a task store
 * @task_id: the task's identifier
 *
 * Reads the record of @task_id.
 *
 * Returns: (transfer full) (nullable): the record, or %NULL when the task
 *   is unknown or expired
 *
 * Since: 0.1
 */
JsonNode *
snodo_task_store_load (SnodoTaskStore *self,
                       const char     *task_id)
{
  g_return_val_if_fail (SNODO_IS_TASK_STORE (self), NULL);
  g_return_val_if_fail (task_id != NULL, NULL);

  return SNODO_TASK_STORE_GET_IFACE (self)->load (self, task_id);
}

/**
 * snodo_task_store_remove:
 * @self: a task store
 * @task_id: the task's identifier
 *
 * Forgets @task_id.
 *
 * Since: 0.1
 */
void
snodo_task_store_remove (SnodoTaskStore *self,
                         const char     *task_id)
{
  g_return_if_fail (SNODO_IS_TASK_STORE (self));
  g_return_if_fail (task_id != NULL);

  SNODO_TASK_STORE_GET_IFACE (self)->remove (self, task_id);
}

gboolean
snodo_task_record_is_terminal (JsonObject *record)
{
  const char *status = snodo_json_object_get_string (record, "status");

  return status != NULL && (g_str_equal (status, "completed") || g_str_equal (status, "failed") ||
                            g_str_equal (status, "cancelled"));
}

/* The memory store. */

typedef struct
{
  SnodoTaskSlot slot;
  char         *text;
} Entry;

struct _SnodoMemoryTaskStore
{
  GObject     parent_instance;

  SnodoTaskBounds bounds;
};

static void snodo_memory_task_store_iface_init (SnodoTaskStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoMemoryTaskStore, snodo_memory_task_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_TASK_STORE, snodo_memory_task_store_iface_init))

static void
entry_free (Entry *entry)
{
  g_free (entry->slot.id);
  g_free (entry->text);
  g_free (entry);
}

static void
memory_drop (gpointer       store,
             SnodoTaskSlot *slot)
{
  SnodoMemoryTaskStore *self = store;

  snodo_task_bounds_forget (&self->bounds, slot);
}

static gboolean
snodo_memory_task_store_save (SnodoTaskStore  *store,
                              const char      *task_id,
                              JsonNode        *record,
                              gint64           expires_at,
                              GError         **error)
{
  SnodoMemoryTaskStore *self = SNODO_MEMORY_TASK_STORE (store);
  g_autofree char *bytes = NULL;
  Entry *entry = g_hash_table_lookup (self->bounds.entries, task_id);
  gsize len = 0;
  char *text = snodo_json_to_string (record, &len);
  gsize old = entry != NULL ? entry->slot.len : 0;

  if (entry != NULL)
    self->bounds.n_bytes -= old;
  if (!snodo_task_bounds_make_room (&self->bounds, len, entry == NULL, entry != NULL ? &entry->slot : NULL,
                                    memory_drop, self))
    {
      if (entry != NULL)
        self->bounds.n_bytes += old;
      g_free (text);
      /* The number as text: a format macro cannot stand in a translation. */
      bytes = g_strdup_printf ("%" G_GSIZE_FORMAT, (gsize) self->bounds.max_bytes);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   _("The task store is full (%u tasks, %s bytes at most)"),
                   self->bounds.max_tasks, bytes);
      return FALSE;
    }

  if (entry == NULL)
    {
      entry = g_new0 (Entry, 1);
      entry->slot.id = g_strdup (task_id);
      entry->slot.link.data = entry;
      g_hash_table_insert (self->bounds.entries, entry->slot.id, entry);
      g_queue_push_tail_link (&self->bounds.order, &entry->slot.link);
    }
  g_free (entry->text);
  entry->text = text;
  entry->slot.len = len;
  entry->slot.expires_at = expires_at;
  entry->slot.terminal = snodo_task_record_is_terminal (json_node_get_object (record));
  self->bounds.n_bytes += len;
  return TRUE;
}

static JsonNode *
snodo_memory_task_store_load (SnodoTaskStore *store,
                              const char     *task_id)
{
  SnodoMemoryTaskStore *self = SNODO_MEMORY_TASK_STORE (store);
  Entry *entry = g_hash_table_lookup (self->bounds.entries, task_id);

  if (entry == NULL)
    return NULL;
  if (entry->slot.expires_at <= g_get_real_time ())
    {
      memory_drop (self, &entry->slot);
      return NULL;
    }
  return json_from_string (entry->text, NULL);
}

static void
snodo_memory_task_store_remove (SnodoTaskStore *store,
                                const char     *task_id)
{
  SnodoMemoryTaskStore *self = SNODO_MEMORY_TASK_STORE (store);
  Entry *entry = g_hash_table_lookup (self->bounds.entries, task_id);

  if (entry != NULL)
    memory_drop (self, &entry->slot);
}

static void
snodo_memory_task_store_iface_init (SnodoTaskStoreInterface *iface)
{
  iface->save = snodo_memory_task_store_save;
  iface->load = snodo_memory_task_store_load;
  iface->remove = snodo_memory_task_store_remove;
}

static void
snodo_memory_task_store_finalize (GObject *object)
{
  SnodoMemoryTaskStore *self = SNODO_MEMORY_TASK_STORE (object);

  g_queue_init (&self->bounds.order);
  g_clear_pointer (&self->bounds.entries, g_hash_table_unref);

  G_OBJECT_CLASS (snodo_memory_task_store_parent_class)->finalize (object);
}

static void
snodo_memory_task_store_class_init (SnodoMemoryTaskStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = snodo_memory_task_store_finalize;
}

static void
snodo_memory_task_store_init (SnodoMemoryTaskStore *self)
{
  self->bounds.entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) entry_free);
  g_queue_init (&self->bounds.order);
}

/**
 * snodo_task_store_new_memory:
 * @max_tasks: how many tasks it keeps at most, or 0 for
 *   %SNODO_TASK_STORE_DEFAULT_MAX_TASKS
 * @max_bytes: how many bytes of records it keeps at most, or 0 for
 *   %SNODO_TASK_STORE_DEFAULT_MAX_BYTES
 *
 * Makes a task store in memory: what [method@Snodo.Server.enable_tasks]
 * uses when given none. It forgets everything when the application ends.
 *
 * Returns: (transfer full): a new task store
 *
 * Since: 0.1
 */
SnodoTaskStore *
snodo_task_store_new_memory (guint max_tasks,
                             gsize max_bytes)
{
  SnodoMemoryTaskStore *self = g_object_new (SNODO_TYPE_MEMORY_TASK_STORE, NULL);

  self->bounds.max_tasks = max_tasks > 0 ? max_tasks : SNODO_TASK_STORE_DEFAULT_MAX_TASKS;
  self->bounds.max_bytes = max_bytes > 0 ? max_bytes : SNODO_TASK_STORE_DEFAULT_MAX_BYTES;
  return SNODO_TASK_STORE (self);
}

void
snodo_task_bounds_forget (SnodoTaskBounds *bounds,
                          SnodoTaskSlot   *slot)
{
  g_queue_unlink (&bounds->order, &slot->link);
  bounds->n_bytes -= slot->len;
  g_hash_table_remove (bounds->entries, slot->id);
}

static gboolean
snodo_task_bounds_fit (SnodoTaskBounds *bounds,
                       gsize            len,
                       gboolean         adding)
{
  return bounds->n_bytes + len <= bounds->max_bytes &&
         (!adding || g_hash_table_size (bounds->entries) < bounds->max_tasks);
}

gboolean
snodo_task_bounds_make_room (SnodoTaskBounds *bounds,
                             gsize            len,
                             gboolean         adding,
                             SnodoTaskSlot   *keep,
                             void           (*drop) (gpointer       store,
                                                     SnodoTaskSlot *slot),
                             gpointer         store)
{
  gint64 now = g_get_real_time ();
  GList *l, *next;

  if (snodo_task_bounds_fit (bounds, len, adding))
    return TRUE;
  for (l = bounds->order.head; l != NULL; l = next)
    {
      SnodoTaskSlot *slot = l->data;

      next = l->next;
      if (slot != keep && slot->expires_at <= now)
        drop (store, slot);
    }
  for (l = bounds->order.head; l != NULL && !snodo_task_bounds_fit (bounds, len, adding); l = next)
    {
      SnodoTaskSlot *slot = l->data;

      next = l->next;
      if (slot != keep && slot->terminal)
        drop (store, slot);
    }
  return snodo_task_bounds_fit (bounds, len, adding);
}
