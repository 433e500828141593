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
  char     *id;
  char     *text;
  gsize     len;
  gint64    expires_at;
  gboolean  terminal;
  GList     link;
} Entry;

struct _SnodoMemoryTaskStore
{
  GObject     parent_instance;

  guint       max_tasks;
  gsize       max_bytes;
  gsize       n_bytes;
  /* id -> Entry; order: oldest first. */
  GHashTable *entries;
  GQueue      order;
};

static void snodo_memory_task_store_iface_init (SnodoTaskStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoMemoryTaskStore, snodo_memory_task_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_TASK_STORE, snodo_memory_task_store_iface_init))

static void
entry_free (Entry *entry)
{
  g_free (entry->id);
  g_free (entry->text);
  g_free (entry);
}

static void
memory_drop (SnodoMemoryTaskStore *self,
             Entry                *entry)
{
  g_queue_unlink (&self->order, &entry->link);
  self->n_bytes -= entry->len;
  g_hash_table_remove (self->entries, entry->id);
}

/* Makes room for @len more bytes and, if @adding, one more task: expired
 * tasks go first, then finished ones, oldest first; never @keep. */
static gboolean
memory_make_room (SnodoMemoryTaskStore *self,
                  gsize                 len,
                  gboolean              adding,
                  Entry                *keep)
{
  gint64 now = g_get_real_time ();
  GList *l, *next;

#define FITS() (self->n_bytes + len <= self->max_bytes && \
                (!adding || g_hash_table_size (self->entries) < self->max_tasks))

  if (FITS ())
    return TRUE;
  for (l = self->order.head; l != NULL; l = next)
    {
      Entry *entry = l->data;

      next = l->next;
      if (entry != keep && entry->expires_at <= now)
        memory_drop (self, entry);
    }
  for (l = self->order.head; l != NULL && !FITS (); l = next)
    {
      Entry *entry = l->data;

      next = l->next;
      if (entry != keep && entry->terminal)
        memory_drop (self, entry);
    }
  return FITS ();
#undef FITS
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
  Entry *entry = g_hash_table_lookup (self->entries, task_id);
  gsize len = 0;
  char *text = snodo_json_to_string (record, &len);
  gsize old = entry != NULL ? entry->len : 0;

  if (entry != NULL)
    self->n_bytes -= old;
  if (!memory_make_room (self, len, entry == NULL, entry))
    {
      if (entry != NULL)
        self->n_bytes += old;
      g_free (text);
      /* The number as text: a format macro cannot stand in a translation. */
      bytes = g_strdup_printf ("%" G_GSIZE_FORMAT, (gsize) self->max_bytes);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   _("The task store is full (%u tasks, %s bytes at most)"),
                   self->max_tasks, bytes);
      return FALSE;
    }

  if (entry == NULL)
    {
      entry = g_new0 (Entry, 1);
      entry->id = g_strdup (task_id);
      entry->link.data = entry;
      g_hash_table_insert (self->entries, entry->id, entry);
      g_queue_push_tail_link (&self->order, &entry->link);
    }
  g_free (entry->text);
  entry->text = text;
  entry->len = len;
  entry->expires_at = expires_at;
  entry->terminal = snodo_task_record_is_terminal (json_node_get_object (record));
  self->n_bytes += len;
  return TRUE;
}

static JsonNode *
snodo_memory_task_store_load (SnodoTaskStore *store,
                              const char     *task_id)
{
  SnodoMemoryTaskStore *self = SNODO_MEMORY_TASK_STORE (store);
  Entry *entry = g_hash_table_lookup (self->entries, task_id);

  if (entry == NULL)
    return NULL;
  if (entry->expires_at <= g_get_real_time ())
    {
      memory_drop (self, entry);
      return NULL;
    }
  return json_from_string (entry->text, NULL);
}

static void
snodo_memory_task_store_remove (SnodoTaskStore *store,
                                const char     *task_id)
{
  SnodoMemoryTaskStore *self = SNODO_MEMORY_TASK_STORE (store);
  Entry *entry = g_hash_table_lookup (self->entries, task_id);

  if (entry != NULL)
    memory_drop (self, entry);
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

  g_queue_init (&self->order);
  g_clear_pointer (&self->entries, g_hash_table_unref);

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
  self->entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) entry_free);
  g_queue_init (&self->order);
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

  self->max_tasks = max_tasks > 0 ? max_tasks : SNODO_TASK_STORE_DEFAULT_MAX_TASKS;
  self->max_bytes = max_bytes > 0 ? max_bytes : SNODO_TASK_STORE_DEFAULT_MAX_BYTES;
  return SNODO_TASK_STORE (self);
}
