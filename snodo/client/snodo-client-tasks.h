/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "snodo-client.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

SNODO_AVAILABLE_IN_ALL
void                  snodo_client_call_tool_as_task_async (SnodoClient          *self,
                                                            const char           *name,
                                                            JsonObject           *arguments,
                                                            guint                 ttl_ms,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_call_tool_as_task_finish (SnodoClient         *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_get_task_async          (SnodoClient          *self,
                                                            const char           *task_id,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_get_task_finish         (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_get_task_result_async   (SnodoClient          *self,
                                                            const char           *task_id,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_get_task_result_finish  (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_cancel_task_async       (SnodoClient          *self,
                                                            const char           *task_id,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_client_cancel_task_finish      (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_list_tasks_async        (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonArray            *snodo_client_list_tasks_finish       (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);

G_END_DECLS
