/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-client.h"
#include "snodo-credential-store.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_CLIENT_OAUTH (snodo_client_oauth_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoClientOAuth, snodo_client_oauth, SNODO, CLIENT_OAUTH, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoClientOAuth    *snodo_client_oauth_new                      (void);
SNODO_AVAILABLE_IN_ALL
void                 snodo_client_oauth_set_client               (SnodoClientOAuth    *self,
                                                                  const char          *client_id,
                                                                  const char          *client_secret);
SNODO_AVAILABLE_IN_ALL
const char          *snodo_client_oauth_get_client_id            (SnodoClientOAuth    *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_client_oauth_set_client_metadata_url  (SnodoClientOAuth    *self,
                                                                  const char          *url);
SNODO_AVAILABLE_IN_ALL
const char          *snodo_client_oauth_get_client_metadata_url  (SnodoClientOAuth    *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_client_oauth_set_client_credentials   (SnodoClientOAuth    *self,
                                                                  gboolean             client_credentials);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_client_oauth_get_client_credentials   (SnodoClientOAuth    *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_client_oauth_set_scope                (SnodoClientOAuth    *self,
                                                                  const char          *scope);
SNODO_AVAILABLE_IN_ALL
const char          *snodo_client_oauth_get_scope                (SnodoClientOAuth    *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_client_oauth_set_redirect_port        (SnodoClientOAuth    *self,
                                                                  guint                port);
SNODO_AVAILABLE_IN_ALL
guint                snodo_client_oauth_get_redirect_port        (SnodoClientOAuth    *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_client_oauth_set_open_browser         (SnodoClientOAuth    *self,
                                                                  gboolean             open_browser);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_client_oauth_get_open_browser         (SnodoClientOAuth    *self);
SNODO_AVAILABLE_IN_ALL
void                 snodo_client_oauth_set_store                (SnodoClientOAuth    *self,
                                                                  SnodoCredentialStore *store);
SNODO_AVAILABLE_IN_ALL
SnodoCredentialStore *snodo_client_oauth_get_store               (SnodoClientOAuth    *self);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_client_oauth_complete_authorization   (SnodoClientOAuth    *self,
                                                                  const char          *redirect_uri);

SNODO_AVAILABLE_IN_ALL
void                 snodo_client_set_oauth                      (SnodoClient         *client,
                                                                  SnodoClientOAuth    *oauth);
SNODO_AVAILABLE_IN_ALL
SnodoClientOAuth    *snodo_client_get_oauth                      (SnodoClient         *client);

G_END_DECLS
