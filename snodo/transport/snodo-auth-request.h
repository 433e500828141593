/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_AUTH_REQUEST (snodo_auth_request_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoAuthRequest, snodo_auth_request, SNODO, AUTH_REQUEST, GObject)

SNODO_AVAILABLE_IN_ALL
const char   *snodo_auth_request_get_token       (SnodoAuthRequest   *self);
SNODO_AVAILABLE_IN_ALL
const char   *snodo_auth_request_get_resource    (SnodoAuthRequest   *self);
SNODO_AVAILABLE_IN_ALL
GCancellable *snodo_auth_request_get_cancellable (SnodoAuthRequest   *self);
SNODO_AVAILABLE_IN_ALL
void          snodo_auth_request_accept          (SnodoAuthRequest   *self,
                                                  const char         *principal,
                                                  const char * const *scopes);
SNODO_AVAILABLE_IN_ALL
void          snodo_auth_request_refuse          (SnodoAuthRequest   *self,
                                                  const char         *description);
SNODO_AVAILABLE_IN_ALL
gboolean      snodo_auth_request_get_completed   (SnodoAuthRequest   *self);

G_END_DECLS
