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

#define SNODO_TYPE_CREDENTIAL_STORE (snodo_credential_store_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (SnodoCredentialStore, snodo_credential_store, SNODO, CREDENTIAL_STORE, GObject)

/**
 * SnodoCredentialStoreInterface:
 * @lookup_async: starts looking up the blob stored under a key
 * @lookup_finish: the blob, or %NULL with no error when there is none
 * @store_async: starts storing a blob under a key, replacing any
 * @store_finish: whether the blob was stored
 * @clear_async: starts forgetting the blob of a key
 * @clear_finish: whether it was forgotten (or there was none)
 *
 * The virtual methods of [iface@Snodo.CredentialStore]. Each operation
 * completes in the thread-default main context of its start.
 */
struct _SnodoCredentialStoreInterface
{
  GTypeInterface g_iface;

  void      (*lookup_async)  (SnodoCredentialStore  *self,
                              const char            *key,
                              GCancellable          *cancellable,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data);
  char     *(*lookup_finish) (SnodoCredentialStore  *self,
                              GAsyncResult          *result,
                              GError               **error);
  void      (*store_async)   (SnodoCredentialStore  *self,
                              const char            *key,
                              const char            *blob,
                              GCancellable          *cancellable,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data);
  gboolean  (*store_finish)  (SnodoCredentialStore  *self,
                              GAsyncResult          *result,
                              GError               **error);
  void      (*clear_async)   (SnodoCredentialStore  *self,
                              const char            *key,
                              GCancellable          *cancellable,
                              GAsyncReadyCallback    callback,
                              gpointer               user_data);
  gboolean  (*clear_finish)  (SnodoCredentialStore  *self,
                              GAsyncResult          *result,
                              GError               **error);

  /*< private >*/
  gpointer _reserved[8];
};

SNODO_AVAILABLE_IN_ALL
SnodoCredentialStore *snodo_credential_store_new_file       (const char            *directory);
SNODO_AVAILABLE_IN_ALL
SnodoCredentialStore *snodo_credential_store_new_default    (void);
SNODO_AVAILABLE_IN_ALL
void                  snodo_credential_store_lookup_async   (SnodoCredentialStore  *self,
                                                             const char            *key,
                                                             GCancellable          *cancellable,
                                                             GAsyncReadyCallback    callback,
                                                             gpointer               user_data);
SNODO_AVAILABLE_IN_ALL
char                 *snodo_credential_store_lookup_finish  (SnodoCredentialStore  *self,
                                                             GAsyncResult          *result,
                                                             GError               **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_credential_store_store_async    (SnodoCredentialStore  *self,
                                                             const char            *key,
                                                             const char            *blob,
                                                             GCancellable          *cancellable,
                                                             GAsyncReadyCallback    callback,
                                                             gpointer               user_data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_credential_store_store_finish   (SnodoCredentialStore  *self,
                                                             GAsyncResult          *result,
                                                             GError               **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_credential_store_clear_async    (SnodoCredentialStore  *self,
                                                             const char            *key,
                                                             GCancellable          *cancellable,
                                                             GAsyncReadyCallback    callback,
                                                             gpointer               user_data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_credential_store_clear_finish   (SnodoCredentialStore  *self,
                                                             GAsyncResult          *result,
                                                             GError               **error);

G_END_DECLS
