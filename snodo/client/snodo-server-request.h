/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_SERVER_REQUEST (snodo_server_request_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoServerRequest, snodo_server_request, SNODO, SERVER_REQUEST, GObject)

SNODO_AVAILABLE_IN_ALL
const char *snodo_server_request_get_method    (SnodoServerRequest *self);
SNODO_AVAILABLE_IN_ALL
JsonObject *snodo_server_request_get_params    (SnodoServerRequest *self);
SNODO_AVAILABLE_IN_ALL
gboolean    snodo_server_request_is_answered   (SnodoServerRequest *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_server_request_return_result (SnodoServerRequest *self,
                                                JsonObject         *result);
SNODO_AVAILABLE_IN_ALL
void        snodo_server_request_return_error  (SnodoServerRequest *self,
                                                int                 code,
                                                const char         *message);

G_END_DECLS
