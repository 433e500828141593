/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "snodo-protocol-version.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_SESSION (snodo_session_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoSession, snodo_session, SNODO, SESSION, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoProtocolVersion snodo_session_get_protocol_version (SnodoSession        *self);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_session_is_closed            (SnodoSession        *self);
SNODO_AVAILABLE_IN_ALL
gboolean             snodo_session_notify               (SnodoSession        *self,
                                                         const char          *method,
                                                         JsonObject          *params);
SNODO_AVAILABLE_IN_ALL
void                 snodo_session_request_async        (SnodoSession        *self,
                                                         const char          *method,
                                                         JsonObject          *params,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject          *snodo_session_request_finish       (SnodoSession        *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);

G_END_DECLS
