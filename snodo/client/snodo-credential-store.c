/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib/gstdio.h>

#include "snodo-credential-store.h"
#include "snodo-client-oauth-private.h"

#include "snodo-base-private.h"

/**
 * SnodoCredentialStore:
 *
 * Where a [class@Snodo.ClientOAuth] keeps what a sign-in got — the
 * client's registration and its tokens — as one JSON text per server,
 * for the next process to use.
 *
 * [func@Snodo.CredentialStore.new_default] gives the user's store: the
 * Secret Service (through libsecret) where Snodo was built with it and
 * one answers, else files. Applications may implement the interface to
 * keep them elsewhere. Keys are server URIs; blobs are secrets.
 */

G_DEFINE_INTERFACE (SnodoCredentialStore, snodo_credential_store, G_TYPE_OBJECT)

static void
snodo_credential_store_default_init (SnodoCredentialStoreInterface *iface)
{
}

/* The file store: one file per key, named by the key's SHA-256, 0600 in
 * a 0700 folder, replaced atomically. */

#define SNODO_TYPE_FILE_CREDENTIAL_STORE (snodo_file_credential_store_get_type ())
G_DECLARE_FINAL_TYPE (SnodoFileCredentialStore, snodo_file_credential_store, SNODO, FILE_CREDENTIAL_STORE, GObject)

struct _SnodoFileCredentialStore
{
  GObject parent_instance;
  /* The folder; owned, immutable. */
  char *directory;
};

static void snodo_file_credential_store_iface_init (SnodoCredentialStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoFileCredentialStore, snodo_file_credential_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_CREDENTIAL_STORE,
                                                      snodo_file_credential_store_iface_init))

static char *
file_store_path (SnodoFileCredentialStore *self,
                 const char               *key)
{
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
  g_autofree char *name = g_strconcat (hash, ".json", NULL);

  return g_build_filename (self->directory, name, NULL);
}

typedef struct
{
  char *path;
  char *blob;
} FileOp;

static void
file_op_free (gpointer data)
{
  FileOp *op = data;

  g_free (op->path);
  if (op->blob != NULL)
    memset (op->blob, 0, strlen (op->blob));
  g_free (op->blob);
  g_free (op);
}

static void
file_lookup_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  FileOp *op = task_data;
  g_autoptr(GError) error = NULL;
  char *contents = NULL;

  if (!g_file_get_contents (op->path, &contents, NULL, &error))
    {
      if (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_task_return_pointer (task, NULL, NULL);
      else
        g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_task_return_pointer (task, contents, g_free);
}

static void
file_store_thread (GTask        *task,
                   gpointer      source_object,
                   gpointer      task_data,
                   GCancellable *cancellable)
{
  SnodoFileCredentialStore *self = source_object;
  FileOp *op = task_data;
  GError *error = NULL;

  if (g_mkdir_with_parents (self->directory, 0700) != 0)
    {
      int saved_errno = errno;

      g_task_return_new_error (task, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                               _("Could not create %s: %s"), self->directory, g_strerror (saved_errno));
      return;
    }
  if (op->blob == NULL)
    {
      if (g_unlink (op->path) != 0 && errno != ENOENT)
        {
          int saved_errno = errno;

          g_task_return_new_error (task, G_IO_ERROR, g_io_error_from_errno (saved_errno),
                                   _("Could not remove %s: %s"), op->path, g_strerror (saved_errno));
          return;
        }
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (!g_file_set_contents_full (op->path, op->blob, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_ONLY_EXISTING,
                                 0600, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
file_run (SnodoFileCredentialStore *self,
          const char               *key,
          const char               *blob,
          GTaskThreadFunc           func,
          gpointer                  tag,
          GCancellable             *cancellable,
          GAsyncReadyCallback       callback,
          gpointer                  user_data)
{
  g_autoptr(GTask) task = g_task_new (self, cancellable, callback, user_data);
  FileOp *op = g_new0 (FileOp, 1);

  g_task_set_source_tag (task, tag);
  g_task_set_name (task, "[snodo] credential file");
  op->path = file_store_path (self, key);
  op->blob = g_strdup (blob);
  g_task_set_task_data (task, op, file_op_free);
  g_task_run_in_thread (task, func);
}

static void
file_lookup_async (SnodoCredentialStore *store,
                   const char           *key,
                   GCancellable         *cancellable,
                   GAsyncReadyCallback   callback,
                   gpointer              user_data)
{
  file_run (SNODO_FILE_CREDENTIAL_STORE (store), key, NULL, file_lookup_thread, file_lookup_async,
            cancellable, callback, user_data);
}

static char *
file_lookup_finish (SnodoCredentialStore  *store,
                    GAsyncResult          *result,
                    GError               **error)
{
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
file_store_async (SnodoCredentialStore *store,
                  const char           *key,
                  const char           *blob,
                  GCancellable         *cancellable,
                  GAsyncReadyCallback   callback,
                  gpointer              user_data)
{
  file_run (SNODO_FILE_CREDENTIAL_STORE (store), key, blob, file_store_thread, file_store_async,
            cancellable, callback, user_data);
}

static gboolean
file_boolean_finish (SnodoCredentialStore  *store,
                     GAsyncResult          *result,
                     GError               **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
file_clear_async (SnodoCredentialStore *store,
                  const char           *key,
                  GCancellable         *cancellable,
                  GAsyncReadyCallback   callback,
                  gpointer              user_data)
{
  file_run (SNODO_FILE_CREDENTIAL_STORE (store), key, NULL, file_store_thread, file_clear_async,
            cancellable, callback, user_data);
}

static void
snodo_file_credential_store_iface_init (SnodoCredentialStoreInterface *iface)
{
  iface->lookup_async = file_lookup_async;
  iface->lookup_finish = file_lookup_finish;
  iface->store_async = file_store_async;
  iface->store_finish = file_boolean_finish;
  iface->clear_async = file_clear_async;
  iface->clear_finish = file_boolean_finish;
}

static void
snodo_file_credential_store_finalize (GObject *object)
{
  SnodoFileCredentialStore *self = SNODO_FILE_CREDENTIAL_STORE (object);

  g_free (self->directory);
  G_OBJECT_CLASS (snodo_file_credential_store_parent_class)->finalize (object);
}

static void
snodo_file_credential_store_class_init (SnodoFileCredentialStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = snodo_file_credential_store_finalize;
}

static void
snodo_file_credential_store_init (SnodoFileCredentialStore *self)
{
}

/**
 * snodo_credential_store_new_file:
 * @directory: (nullable) (type filename): a folder, or %NULL for
 *   `snodo/oauth` in the user's state folder ([func@GLib.get_user_state_dir])
 *
 * Creates a store that keeps each blob in a file of its own, readable by
 * the user only (0600 in a 0700 folder), replaced atomically. The blobs
 * hold tokens: where a Secret Service is available, the default store
 * is safer.
 *
 * Returns: (transfer full): a new [iface@Snodo.CredentialStore]
 */
SnodoCredentialStore *
snodo_credential_store_new_file (const char *directory)
{
  SnodoFileCredentialStore *self = g_object_new (SNODO_TYPE_FILE_CREDENTIAL_STORE, NULL);

  self->directory = directory != NULL ? g_strdup (directory)
                                      : g_build_filename (g_get_user_state_dir (), "snodo", "oauth", NULL);
  return SNODO_CREDENTIAL_STORE (self);
}

/**
 * snodo_credential_store_new_default:
 *
 * Creates the user's store: the Secret Service where Snodo was built
 * with libsecret, else files ([func@Snodo.CredentialStore.new_file]).
 *
 * Returns: (transfer full): a new [iface@Snodo.CredentialStore]
 */
SnodoCredentialStore *
snodo_credential_store_new_default (void)
{
#ifdef HAVE_LIBSECRET
  return snodo_credential_store_new_secret ();
#else
  return snodo_credential_store_new_file (NULL);
#endif
}

/**
 * snodo_credential_store_lookup_async:
 * @self: a [iface@Snodo.CredentialStore]
 * @key: the key, a server's URI
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: (closure callback): data for @callback
 *
 * Looks up the blob stored under @key.
 */
void
snodo_credential_store_lookup_async (SnodoCredentialStore *self,
                                     const char           *key,
                                     GCancellable         *cancellable,
                                     GAsyncReadyCallback   callback,
                                     gpointer              user_data)
{
  g_return_if_fail (SNODO_IS_CREDENTIAL_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  SNODO_CREDENTIAL_STORE_GET_IFACE (self)->lookup_async (self, key, cancellable, callback, user_data);
}

/**
 * snodo_credential_store_lookup_finish:
 * @self: a [iface@Snodo.CredentialStore]
 * @result: the result
 * @error: return location for an error
 *
 * Finishes [method@Snodo.CredentialStore.lookup_async].
 *
 * Returns: (transfer full) (nullable): the blob, or %NULL (without an
 *   error when there is none)
 */
char *
snodo_credential_store_lookup_finish (SnodoCredentialStore  *self,
                                      GAsyncResult          *result,
                                      GError               **error)
{
  g_return_val_if_fail (SNODO_IS_CREDENTIAL_STORE (self), NULL);

  return SNODO_CREDENTIAL_STORE_GET_IFACE (self)->lookup_finish (self, result, error);
}

/**
 * snodo_credential_store_store_async:
 * @self: a [iface@Snodo.CredentialStore]
 * @key: the key, a server's URI
 * @blob: the JSON text to keep
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: (closure callback): data for @callback
 *
 * Stores @blob under @key, replacing what was there.
 */
void
snodo_credential_store_store_async (SnodoCredentialStore *self,
                                    const char           *key,
                                    const char           *blob,
                                    GCancellable         *cancellable,
                                    GAsyncReadyCallback   callback,
                                    gpointer              user_data)
{
  g_return_if_fail (SNODO_IS_CREDENTIAL_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (blob != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  SNODO_CREDENTIAL_STORE_GET_IFACE (self)->store_async (self, key, blob, cancellable, callback, user_data);
}

/**
 * snodo_credential_store_store_finish:
 * @self: a [iface@Snodo.CredentialStore]
 * @result: the result
 * @error: return location for an error
 *
 * Finishes [method@Snodo.CredentialStore.store_async].
 *
 * Returns: whether the blob was stored
 */
gboolean
snodo_credential_store_store_finish (SnodoCredentialStore  *self,
                                     GAsyncResult          *result,
                                     GError               **error)
{
  g_return_val_if_fail (SNODO_IS_CREDENTIAL_STORE (self), FALSE);

  return SNODO_CREDENTIAL_STORE_GET_IFACE (self)->store_finish (self, result, error);
}

/**
 * snodo_credential_store_clear_async:
 * @self: a [iface@Snodo.CredentialStore]
 * @key: the key, a server's URI
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async): called when done
 * @user_data: (closure callback): data for @callback
 *
 * Forgets the blob stored under @key (signing out of that server).
 */
void
snodo_credential_store_clear_async (SnodoCredentialStore *self,
                                    const char           *key,
                                    GCancellable         *cancellable,
                                    GAsyncReadyCallback   callback,
                                    gpointer              user_data)
{
  g_return_if_fail (SNODO_IS_CREDENTIAL_STORE (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  SNODO_CREDENTIAL_STORE_GET_IFACE (self)->clear_async (self, key, cancellable, callback, user_data);
}

/**
 * snodo_credential_store_clear_finish:
 * @self: a [iface@Snodo.CredentialStore]
 * @result: the result
 * @error: return location for an error
 *
 * Finishes [method@Snodo.CredentialStore.clear_async].
 *
 * Returns: whether the blob was forgotten (or there was none)
 */
gboolean
snodo_credential_store_clear_finish (SnodoCredentialStore  *self,
                                     GAsyncResult          *result,
                                     GError               **error)
{
  g_return_val_if_fail (SNODO_IS_CREDENTIAL_STORE (self), FALSE);

  return SNODO_CREDENTIAL_STORE_GET_IFACE (self)->clear_finish (self, result, error);
}
