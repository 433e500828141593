/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "snodo-base-private.h"
#include "snodo-task-store.h"
#include "snodo-task-store-private.h"
#include "snodo-wire-private.h"

/*
 * The file store: a record a file, DIR/ID.json, holding
 * {"expiresAt": <microseconds>, "terminal": <bool>, "record": {...}},
 * written whole with g_file_set_contents() (a temporary file renamed into
 * place), so that a crash leaves the old record or the new one, never half
 * of one. What it holds is counted once, when it is made, and kept up to
 * date as it writes; another process writing the same directory is not
 * foreseen.
 */

typedef struct
{
  SnodoTaskSlot slot;
} FileEntry;

struct _SnodoFileTaskStore
{
  GObject     parent_instance;

  char       *directory;
  SnodoTaskBounds bounds;
};

static void snodo_file_task_store_iface_init (SnodoTaskStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoFileTaskStore, snodo_file_task_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_TASK_STORE, snodo_file_task_store_iface_init))

/* Task ids name files: only letters, digits and '-' are taken. */
static gboolean
id_is_safe (const char *id)
{
  if (*id == '\0' || strlen (id) > 128)
    return FALSE;
  for (const char *p = id; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-')
      return FALSE;
  return TRUE;
}

static char *
file_path (SnodoFileTaskStore *self,
           const char         *id)
{
  g_autofree char *name = g_strconcat (id, ".json", NULL);

  return g_build_filename (self->directory, name, NULL);
}

static void
file_entry_free (FileEntry *entry)
{
  g_free (entry->slot.id);
  g_free (entry);
}

static void
file_drop (gpointer       store,
           SnodoTaskSlot *slot)
{
  SnodoFileTaskStore *self = store;
  g_autofree char *path = file_path (self, slot->id);

  if (g_unlink (path) != 0 && errno != ENOENT)
    g_warning ("Could not remove the task record %s: %s", path, g_strerror (errno));
  snodo_task_bounds_forget (&self->bounds, slot);
}

static FileEntry *
file_track (SnodoFileTaskStore *self,
            const char         *id)
{
  FileEntry *entry = g_new0 (FileEntry, 1);

  entry->slot.id = g_strdup (id);
  entry->slot.link.data = entry;
  g_hash_table_insert (self->bounds.entries, entry->slot.id, entry);
  g_queue_push_tail_link (&self->bounds.order, &entry->slot.link);
  return entry;
}

static gboolean
snodo_file_task_store_save (SnodoTaskStore  *store,
                            const char      *task_id,
                            JsonNode        *record,
                            gint64           expires_at,
                            GError         **error)
{
  SnodoFileTaskStore *self = SNODO_FILE_TASK_STORE (store);
  FileEntry *entry;
  g_autoptr(JsonNode) wrapper = NULL;
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  g_autofree char *bytes = NULL;
  JsonObject *object;
  gboolean terminal = snodo_task_record_is_terminal (json_node_get_object (record));
  gsize len = 0, old;

  if (!id_is_safe (task_id))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("Not a task id this store takes: %s"), task_id);
      return FALSE;
    }

  object = json_object_new ();
  json_object_set_int_member (object, "expiresAt", expires_at);
  json_object_set_boolean_member (object, "terminal", terminal);
  json_object_set_member (object, "record", json_node_copy (record));
  wrapper = snodo_json_node_take_object (object);
  text = snodo_json_to_string (wrapper, &len);

  entry = g_hash_table_lookup (self->bounds.entries, task_id);
  old = entry != NULL ? entry->slot.len : 0;
  if (entry != NULL)
    self->bounds.n_bytes -= old;
  if (!snodo_task_bounds_make_room (&self->bounds, len, entry == NULL, entry != NULL ? &entry->slot : NULL,
                                    file_drop, self))
    {
      if (entry != NULL)
        self->bounds.n_bytes += old;
      /* The number as text: a format macro cannot stand in a translation. */
      bytes = g_strdup_printf ("%" G_GSIZE_FORMAT, (gsize) self->bounds.max_bytes);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                   _("The task store is full (%u tasks, %s bytes at most)"),
                   self->bounds.max_tasks, bytes);
      return FALSE;
    }

  path = file_path (self, task_id);
  if (!g_file_set_contents_full (path, text, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
    {
      if (entry != NULL)
        self->bounds.n_bytes += old;
      return FALSE;
    }
  if (entry == NULL)
    entry = file_track (self, task_id);
  entry->slot.len = len;
  entry->slot.expires_at = expires_at;
  entry->slot.terminal = terminal;
  self->bounds.n_bytes += len;
  return TRUE;
}

/* The wrapper of @path, if it is one. */
static JsonObject *
file_read (const char *path,
           gsize      *len)
{
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonNode *record;

  if (!g_file_get_contents (path, &text, len, NULL))
    return NULL;
  node = json_from_string (text, NULL);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return NULL;
  record = json_object_get_member (json_node_get_object (node), "record");
  if (record == NULL || !JSON_NODE_HOLDS_OBJECT (record))
    return NULL;
  return json_object_ref (json_node_get_object (node));
}

static JsonNode *
snodo_file_task_store_load (SnodoTaskStore *store,
                            const char     *task_id)
{
  SnodoFileTaskStore *self = SNODO_FILE_TASK_STORE (store);
  FileEntry *entry;
  g_autofree char *path = NULL;
  g_autoptr(JsonObject) wrapper = NULL;
  gsize len;

  if (!id_is_safe (task_id) || (entry = g_hash_table_lookup (self->bounds.entries, task_id)) == NULL)
    return NULL;
  if (entry->slot.expires_at <= g_get_real_time ())
    {
      file_drop (self, &entry->slot);
      return NULL;
    }
  path = file_path (self, task_id);
  wrapper = file_read (path, &len);
  if (wrapper == NULL)
    return NULL;
  return json_node_copy (json_object_get_member (wrapper, "record"));
}

static void
snodo_file_task_store_remove (SnodoTaskStore *store,
                              const char     *task_id)
{
  SnodoFileTaskStore *self = SNODO_FILE_TASK_STORE (store);
  FileEntry *entry = id_is_safe (task_id) ? g_hash_table_lookup (self->bounds.entries, task_id) : NULL;

  if (entry != NULL)
    file_drop (self, &entry->slot);
}

static void
snodo_file_task_store_iface_init (SnodoTaskStoreInterface *iface)
{
  iface->save = snodo_file_task_store_save;
  iface->load = snodo_file_task_store_load;
  iface->remove = snodo_file_task_store_remove;
}

static void
snodo_file_task_store_finalize (GObject *object)
{
  SnodoFileTaskStore *self = SNODO_FILE_TASK_STORE (object);

  g_queue_init (&self->bounds.order);
  g_clear_pointer (&self->bounds.entries, g_hash_table_unref);
  g_free (self->directory);

  G_OBJECT_CLASS (snodo_file_task_store_parent_class)->finalize (object);
}

static void
snodo_file_task_store_class_init (SnodoFileTaskStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = snodo_file_task_store_finalize;
}

static void
snodo_file_task_store_init (SnodoFileTaskStore *self)
{
  self->bounds.entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) file_entry_free);
  g_queue_init (&self->bounds.order);
}

typedef struct
{
  char   *id;
  gint64  mtime;
} Found;

static int
found_compare (gconstpointer a,
               gconstpointer b)
{
  const Found *fa = a, *fb = b;

  return (fa->mtime > fb->mtime) - (fa->mtime < fb->mtime);
}

/**
 * snodo_task_store_new_file:
 * @directory: the directory of the records; made if missing (mode 0700)
 * @max_tasks: how many tasks it keeps at most, or 0 for
 *   %SNODO_TASK_STORE_DEFAULT_MAX_TASKS
 * @max_bytes: how many bytes of records it keeps at most, or 0 for
 *   %SNODO_TASK_STORE_DEFAULT_MAX_BYTES
 * @error: return location for an error
 *
 * Makes a task store that keeps each task in a file of @directory, written
 * atomically, so that the results of finished tasks survive a restart of
 * the application. The records found in @directory are taken up (expired
 * ones are removed); a task that was still running when the application
 * ended is reported as failed, as no one is left to finish it.
 *
 * Returns: (transfer full): a new task store, or %NULL if @directory
 *   cannot be made or read
 *
 * Since: 0.1
 */
SnodoTaskStore *
snodo_task_store_new_file (const char  *directory,
                           guint        max_tasks,
                           gsize        max_bytes,
                           GError     **error)
{
  g_autoptr(SnodoFileTaskStore) self = NULL;
  g_autoptr(GDir) dir = NULL;
  g_autoptr(GArray) found = NULL;
  const char *name;
  gint64 now = g_get_real_time ();

  g_return_val_if_fail (directory != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_mkdir_with_parents (directory, 0700) != 0)
    {
      int saved_errno = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                   _("Could not make the task directory %s: %s"), directory, g_strerror (saved_errno));
      return NULL;
    }
  dir = g_dir_open (directory, 0, error);
  if (dir == NULL)
    return NULL;

  self = g_object_new (SNODO_TYPE_FILE_TASK_STORE, NULL);
  self->directory = g_strdup (directory);
  self->bounds.max_tasks = max_tasks > 0 ? max_tasks : SNODO_TASK_STORE_DEFAULT_MAX_TASKS;
  self->bounds.max_bytes = max_bytes > 0 ? max_bytes : SNODO_TASK_STORE_DEFAULT_MAX_BYTES;

  /* Oldest first, as they were written. */
  found = g_array_new (FALSE, FALSE, sizeof (Found));
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      GStatBuf st;
      Found f;

      if (!g_str_has_suffix (name, ".json"))
        continue;
      f.id = g_strndup (name, strlen (name) - strlen (".json"));
      path = g_build_filename (directory, name, NULL);
      if (!id_is_safe (f.id) || g_stat (path, &st) != 0)
        {
          g_free (f.id);
          continue;
        }
      f.mtime = (gint64) st.st_mtime;
      g_array_append_val (found, f);
    }
  g_array_sort (found, found_compare);

  for (guint i = 0; i < found->len; i++)
    {
      Found *f = &g_array_index (found, Found, i);
      g_autofree char *path = file_path (self, f->id);
      g_autoptr(JsonObject) wrapper = NULL;
      gsize len = 0;
      gint64 expires_at;

      wrapper = file_read (path, &len);
      expires_at = wrapper != NULL ? json_object_get_int_member_with_default (wrapper, "expiresAt", 0) : 0;
      if (wrapper == NULL || expires_at <= now)
        g_unlink (path);
      else if (!json_object_get_boolean_member_with_default (wrapper, "terminal", FALSE))
        {
          /* Its handler ended with the application that ran it. */
          JsonObject *record = json_object_get_object_member (wrapper, "record");
          g_autoptr(JsonNode) node = NULL;
          JsonObject *failure = json_object_new ();
          g_autoptr(GError) local_error = NULL;

          json_object_set_string_member (record, "status", "failed");
          json_object_set_string_member (record, "statusMessage", "The server restarted while the task ran");
          json_object_remove_member (record, "inputRequests");
          json_object_set_int_member (failure, "code", -32603);
          json_object_set_string_member (failure, "message", "The server restarted while the task ran");
          json_object_set_object_member (record, "error", failure);
          node = json_node_init_object (json_node_alloc (), record);
          if (!snodo_file_task_store_save (SNODO_TASK_STORE (self), f->id, node, expires_at, &local_error))
            g_warning ("Could not update the task record %s: %s", path, local_error->message);
        }
      else
        {
          FileEntry *entry = file_track (self, f->id);

          entry->slot.len = len;
          entry->slot.expires_at = expires_at;
          entry->slot.terminal = TRUE;
          self->bounds.n_bytes += len;
        }
      g_free (f->id);
    }

  return SNODO_TASK_STORE (g_steal_pointer (&self));
}

/**
 * snodo_task_store_new_for_application:
 * @application: the application's name, such as its application id
 * @error: return location for an error
 *
 * Makes a file task store (see [func@Snodo.TaskStore.new_file]) in
 * `$XDG_STATE_HOME/APPLICATION/tasks` (`~/.local/state/APPLICATION/tasks`
 * by default), with the default bounds.
 *
 * Returns: (transfer full): a new task store, or %NULL on error
 *
 * Since: 0.1
 */
SnodoTaskStore *
snodo_task_store_new_for_application (const char  *application,
                                      GError     **error)
{
  g_autofree char *directory = NULL;

  g_return_val_if_fail (application != NULL && *application != '\0', NULL);
  g_return_val_if_fail (strchr (application, G_DIR_SEPARATOR) == NULL, NULL);

  directory = g_build_filename (g_get_user_state_dir (), application, "tasks", NULL);
  return snodo_task_store_new_file (directory, 0, 0, error);
}
