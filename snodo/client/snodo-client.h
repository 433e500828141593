/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "snodo-protocol-version.h"
#include "snodo-server-request.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_CLIENT (snodo_client_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoClient, snodo_client, SNODO, CLIENT, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoClient          *snodo_client_new                     (GInputStream         *input,
                                                            GOutputStream        *output);
SNODO_AVAILABLE_IN_ALL
SnodoClient          *snodo_client_new_for_argv            (const char * const   *argv,
                                                            GError              **error);

SNODO_AVAILABLE_IN_ALL
SnodoClient          *snodo_client_new_for_uri             (const char           *uri,
                                                            GError              **error);

SNODO_AVAILABLE_IN_ALL
GSubprocess          *snodo_client_get_subprocess          (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
const char           *snodo_client_get_uri                 (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_set_http_header         (SnodoClient          *self,
                                                            const char           *name,
                                                            const char           *value);
SNODO_AVAILABLE_IN_ALL
GTlsDatabase         *snodo_client_get_tls_database        (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_set_tls_database        (SnodoClient          *self,
                                                            GTlsDatabase         *database);
SNODO_AVAILABLE_IN_ALL
SnodoProtocolVersion  snodo_client_get_protocol_version    (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
SnodoProtocolVersion  snodo_client_get_pinned_version      (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_set_pinned_version      (SnodoClient          *self,
                                                            SnodoProtocolVersion  version);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_get_server_info         (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_get_server_capabilities (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
const char           *snodo_client_get_instructions        (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
guint                 snodo_client_get_write_timeout       (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_set_write_timeout       (SnodoClient          *self,
                                                            guint                 write_timeout);
SNODO_AVAILABLE_IN_ALL
guint64               snodo_client_get_max_line_bytes      (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_set_max_line_bytes      (SnodoClient          *self,
                                                            guint64               max_line_bytes);
SNODO_AVAILABLE_IN_ALL
guint                 snodo_client_get_request_timeout     (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_set_request_timeout     (SnodoClient          *self,
                                                            guint                 request_timeout);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_get_capabilities        (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_set_capabilities        (SnodoClient          *self,
                                                            JsonObject           *capabilities);
SNODO_AVAILABLE_IN_ALL
const char           *snodo_client_get_log_level           (SnodoClient          *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_set_log_level           (SnodoClient          *self,
                                                            const char           *log_level);

SNODO_AVAILABLE_IN_ALL
void                  snodo_client_connect_async           (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_client_connect_finish          (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_request_async           (SnodoClient          *self,
                                                            const char           *method,
                                                            JsonObject           *params,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_request_finish          (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_forward_async           (SnodoClient          *self,
                                                            const char           *id,
                                                            const char           *method,
                                                            JsonObject           *params,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_forward_finish          (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_notify                  (SnodoClient          *self,
                                                            const char           *method,
                                                            JsonObject           *params);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_ping_async              (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_client_ping_finish             (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_list_tools_async        (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonArray            *snodo_client_list_tools_finish       (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_call_tool_async         (SnodoClient          *self,
                                                            const char           *name,
                                                            JsonObject           *arguments,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_call_tool_finish        (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_list_resources_async    (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonArray            *snodo_client_list_resources_finish   (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_list_resource_templates_async
                                                           (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonArray            *snodo_client_list_resource_templates_finish
                                                           (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_read_resource_async     (SnodoClient          *self,
                                                            const char           *uri,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_read_resource_finish    (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_list_skills_async       (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonArray            *snodo_client_list_skills_finish      (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_get_skill_async         (SnodoClient          *self,
                                                            const char           *uri,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_get_skill_finish        (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_read_skill_file_async   (SnodoClient          *self,
                                                            JsonObject           *skill,
                                                            const char           *uri,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
GBytes               *snodo_client_read_skill_file_finish  (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_read_directory_async    (SnodoClient          *self,
                                                            const char           *uri,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonArray            *snodo_client_read_directory_finish   (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_list_prompts_async      (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonArray            *snodo_client_list_prompts_finish     (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_get_prompt_async        (SnodoClient          *self,
                                                            const char           *name,
                                                            JsonObject           *arguments,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_get_prompt_finish       (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_complete_async          (SnodoClient          *self,
                                                            JsonObject           *ref,
                                                            const char           *argument,
                                                            const char           *value,
                                                            JsonObject           *context_arguments,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_complete_finish         (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_subscribe_resource_async
                                                           (SnodoClient          *self,
                                                            const char           *uri,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_client_subscribe_resource_finish
                                                           (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_unsubscribe_resource_async
                                                           (SnodoClient          *self,
                                                            const char           *uri,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_client_unsubscribe_resource_finish
                                                           (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_listen_async            (SnodoClient          *self,
                                                            JsonObject           *notifications,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_client_listen_finish           (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_client_close_async             (SnodoClient          *self,
                                                            GCancellable         *cancellable,
                                                            GAsyncReadyCallback   callback,
                                                            gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_client_close_finish            (SnodoClient          *self,
                                                            GAsyncResult         *result,
                                                            GError              **error);

G_END_DECLS
