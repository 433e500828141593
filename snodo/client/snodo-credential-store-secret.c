/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The Secret Service store (libsecret): each blob is a secret of the
 * schema org.snodo.OAuth, whose attribute "server" is the key, in the
 * default collection (the user's login keyring). Where no Secret Service
 * answers (a headless machine, a sandbox without the portal), each
 * operation goes to the file store instead, so that signing in still
 * works. */

#include "config.h"

#include <libsecret/secret.h>

#include "snodo-credential-store.h"
#include "snodo-client-oauth-private.h"

#include "snodo-base-private.h"

#define SNODO_TYPE_SECRET_CREDENTIAL_STORE (snodo_secret_credential_store_get_type ())
G_DECLARE_FINAL_TYPE (SnodoSecretCredentialStore, snodo_secret_credential_store, SNODO, SECRET_CREDENTIAL_STORE,
                      GObject)

struct _SnodoSecretCredentialStore
{
  GObject parent_instance;
  /* Where blobs go when no Secret Service answers. Owned. */
  SnodoCredentialStore *fallback;
};

static void snodo_secret_credential_store_iface_init (SnodoCredentialStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoSecretCredentialStore, snodo_secret_credential_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_CREDENTIAL_STORE,
                                                      snodo_secret_credential_store_iface_init))

static const SecretSchema *
secret_schema (void)
{
  static const SecretSchema schema = {
    "org.snodo.OAuth", SECRET_SCHEMA_NONE,
    {
      { "server", SECRET_SCHEMA_ATTRIBUTE_STRING },
      { NULL, 0 },
    },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
  };

  return &schema;
}

typedef enum
{
  OP_LOOKUP,
  OP_STORE,
  OP_CLEAR,
} Op;

typedef struct
{
  Op op;
  char *key;
  char *blob;
} SecretOp;

static void
secret_op_free (gpointer data)
{
  SecretOp *op = data;

  g_free (op->key);
  g_free (op->blob);
  g_free (op);
}

static void
fallback_done_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SecretOp *op = g_task_get_task_data (task);
  SnodoCredentialStore *store = SNODO_CREDENTIAL_STORE (source);
  GError *error = NULL;

  if (op->op == OP_LOOKUP)
    {
      char *blob = snodo_credential_store_lookup_finish (store, result, &error);

      if (error != NULL)
        g_task_return_error (task, error);
      else
        g_task_return_pointer (task, blob, g_free);
      return;
    }
  if ((op->op == OP_STORE ? snodo_credential_store_store_finish (store, result, &error)
                          : snodo_credential_store_clear_finish (store, result, &error)))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

/* The Secret Service did not answer: the same operation on files. */
static void
use_fallback (GTask        *task,
              const GError *why)
{
  SnodoSecretCredentialStore *self = g_task_get_source_object (task);
  SecretOp *op = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  g_debug ("The Secret Service did not answer (%s): using files", why->message);
  switch (op->op)
    {
    case OP_LOOKUP:
      snodo_credential_store_lookup_async (self->fallback, op->key, cancellable, fallback_done_cb, task);
      break;
    case OP_STORE:
      snodo_credential_store_store_async (self->fallback, op->key, op->blob, cancellable, fallback_done_cb, task);
      break;
    case OP_CLEAR:
    default:
      snodo_credential_store_clear_async (self->fallback, op->key, cancellable, fallback_done_cb, task);
      break;
    }
}

static void
secret_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SecretOp *op = g_task_get_task_data (task);
  g_autoptr(GError) error = NULL;

  if (op->op == OP_LOOKUP)
    {
      char *blob = secret_password_lookup_finish (result, &error);

      if (error == NULL)
        {
          g_task_return_pointer (task, blob, (GDestroyNotify) secret_password_free);
          return;
        }
    }
  else if (op->op == OP_STORE ? secret_password_store_finish (result, &error)
                              : (secret_password_clear_finish (result, &error), error == NULL))
    {
      g_task_return_boolean (task, TRUE);
      return;
    }
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  use_fallback (g_steal_pointer (&task), error);
}

static GTask *
secret_task (gpointer             self,
             Op                   kind,
             const char          *key,
             const char          *blob,
             GCancellable        *cancellable,
             GAsyncReadyCallback  callback,
             gpointer             user_data)
{
  GTask *task = g_task_new (self, cancellable, callback, user_data);
  SecretOp *op = g_new0 (SecretOp, 1);

  g_task_set_name (task, "[snodo] Secret Service credentials");
  op->op = kind;
  op->key = g_strdup (key);
  op->blob = g_strdup (blob);
  g_task_set_task_data (task, op, secret_op_free);
  return task;
}

static void
secret_lookup_async (SnodoCredentialStore *store,
                     const char           *key,
                     GCancellable         *cancellable,
                     GAsyncReadyCallback   callback,
                     gpointer              user_data)
{
  GTask *task = secret_task (store, OP_LOOKUP, key, NULL, cancellable, callback, user_data);

  secret_password_lookup (secret_schema (), cancellable, secret_done_cb, task, "server", key, NULL);
}

static char *
secret_lookup_finish (SnodoCredentialStore  *store,
                      GAsyncResult          *result,
                      GError               **error)
{
  char *blob = g_task_propagate_pointer (G_TASK (result), error);
  char *copy = g_strdup (blob);

  /* Secret memory is freed as libsecret says; the caller gets g_free's. */
  if (blob != NULL)
    secret_password_free (blob);
  return copy;
}

static void
secret_store_async (SnodoCredentialStore *store,
                    const char           *key,
                    const char           *blob,
                    GCancellable         *cancellable,
                    GAsyncReadyCallback   callback,
                    gpointer              user_data)
{
  GTask *task = secret_task (store, OP_STORE, key, blob, cancellable, callback, user_data);
  g_autofree char *label = g_strdup_printf ("MCP sign-in for %s", key);

  secret_password_store (secret_schema (), SECRET_COLLECTION_DEFAULT, label, blob, cancellable, secret_done_cb,
                         task, "server", key, NULL);
}

static gboolean
secret_boolean_finish (SnodoCredentialStore  *store,
                       GAsyncResult          *result,
                       GError               **error)
{
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
secret_clear_async (SnodoCredentialStore *store,
                    const char           *key,
                    GCancellable         *cancellable,
                    GAsyncReadyCallback   callback,
                    gpointer              user_data)
{
  GTask *task = secret_task (store, OP_CLEAR, key, NULL, cancellable, callback, user_data);

  secret_password_clear (secret_schema (), cancellable, secret_done_cb, task, "server", key, NULL);
}

static void
snodo_secret_credential_store_iface_init (SnodoCredentialStoreInterface *iface)
{
  iface->lookup_async = secret_lookup_async;
  iface->lookup_finish = secret_lookup_finish;
  iface->store_async = secret_store_async;
  iface->store_finish = secret_boolean_finish;
  iface->clear_async = secret_clear_async;
  iface->clear_finish = secret_boolean_finish;
}

static void
snodo_secret_credential_store_dispose (GObject *object)
{
  SnodoSecretCredentialStore *self = SNODO_SECRET_CREDENTIAL_STORE (object);

  g_clear_object (&self->fallback);
  G_OBJECT_CLASS (snodo_secret_credential_store_parent_class)->dispose (object);
}

static void
snodo_secret_credential_store_class_init (SnodoSecretCredentialStoreClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = snodo_secret_credential_store_dispose;
}

static void
snodo_secret_credential_store_init (SnodoSecretCredentialStore *self)
{
  self->fallback = snodo_credential_store_new_file (NULL);
}

SnodoCredentialStore *
snodo_credential_store_new_secret (void)
{
  return g_object_new (SNODO_TYPE_SECRET_CREDENTIAL_STORE, NULL);
}
