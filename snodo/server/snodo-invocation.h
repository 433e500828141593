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

/**
 * SnodoLogLevel:
 * @SNODO_LOG_LEVEL_DEBUG: detailed debugging information
 * @SNODO_LOG_LEVEL_INFO: general information
 * @SNODO_LOG_LEVEL_NOTICE: normal but significant events
 * @SNODO_LOG_LEVEL_WARNING: warnings
 * @SNODO_LOG_LEVEL_ERROR: errors
 * @SNODO_LOG_LEVEL_CRITICAL: critical conditions
 * @SNODO_LOG_LEVEL_ALERT: action must be taken at once
 * @SNODO_LOG_LEVEL_EMERGENCY: the system is unusable
 *
 * The severities of MCP log messages (those of RFC 5424), from the least to
 * the most severe.
 *
 * Since: 0.1
 */
typedef enum
{
  SNODO_LOG_LEVEL_DEBUG,
  SNODO_LOG_LEVEL_INFO,
  SNODO_LOG_LEVEL_NOTICE,
  SNODO_LOG_LEVEL_WARNING,
  SNODO_LOG_LEVEL_ERROR,
  SNODO_LOG_LEVEL_CRITICAL,
  SNODO_LOG_LEVEL_ALERT,
  SNODO_LOG_LEVEL_EMERGENCY,
} SnodoLogLevel;

#define SNODO_TYPE_INVOCATION (snodo_invocation_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoInvocation, snodo_invocation, SNODO, INVOCATION, GObject)

SNODO_AVAILABLE_IN_ALL
const char           *snodo_invocation_get_method           (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
char                 *snodo_invocation_dup_traceparent      (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
const char           *snodo_invocation_get_name             (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
JsonNode             *snodo_invocation_get_params           (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_invocation_get_arguments        (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
GCancellable         *snodo_invocation_get_cancellable      (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
SnodoProtocolVersion  snodo_invocation_get_protocol_version (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_report_progress      (SnodoInvocation *self,
                                                             double           progress,
                                                             double           total,
                                                             const char      *message);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_close_stream         (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_log                  (SnodoInvocation *self,
                                                             SnodoLogLevel    level,
                                                             const char      *logger,
                                                             JsonNode        *data);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_log_text             (SnodoInvocation *self,
                                                             SnodoLogLevel    level,
                                                             const char      *logger,
                                                             const char      *text);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_invocation_dup_client_capabilities
                                                            (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_request_input_async  (SnodoInvocation     *self,
                                                             const char          *key,
                                                             const char          *method,
                                                             JsonNode            *params,
                                                             GCancellable        *cancellable,
                                                             GAsyncReadyCallback  callback,
                                                             gpointer             user_data);
SNODO_AVAILABLE_IN_ALL
JsonNode             *snodo_invocation_request_input_finish (SnodoInvocation  *self,
                                                             GAsyncResult     *result,
                                                             GError          **error);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_notify               (SnodoInvocation *self,
                                                             const char      *method,
                                                             JsonObject      *params);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_result        (SnodoInvocation *self,
                                                             JsonNode        *result);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_return_result_from_string
                                                            (SnodoInvocation *self,
                                                             const char      *json,
                                                             GError         **error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_text          (SnodoInvocation *self,
                                                             const char      *text);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_tool_error    (SnodoInvocation *self,
                                                             const char      *message);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_gerror        (SnodoInvocation *self,
                                                             const GError    *error);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_error_literal (SnodoInvocation *self,
                                                             GQuark           domain,
                                                             int              code,
                                                             const char      *message);

SNODO_AVAILABLE_IN_ALL
JsonNode             *snodo_invocation_get_id               (SnodoInvocation *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_forwarded     (SnodoInvocation *self,
                                                             JsonObject      *answer);
SNODO_AVAILABLE_IN_ALL
SnodoSession         *snodo_invocation_get_session          (SnodoInvocation *self);

SNODO_AVAILABLE_IN_ALL
const char           *snodo_invocation_get_uri              (SnodoInvocation    *self);
SNODO_AVAILABLE_IN_ALL
JsonObject           *snodo_invocation_get_variables        (SnodoInvocation    *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_resource_text (SnodoInvocation    *self,
                                                             const char         *uri,
                                                             const char         *mime_type,
                                                             const char         *text);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_resource_blob (SnodoInvocation    *self,
                                                             const char         *uri,
                                                             const char         *mime_type,
                                                             GBytes             *blob);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_resource_not_found
                                                            (SnodoInvocation    *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_prompt        (SnodoInvocation    *self,
                                                             const char         *description,
                                                             JsonNode           *messages);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_completion    (SnodoInvocation    *self,
                                                             const char * const *values,
                                                             gint                total,
                                                             gboolean            has_more);

SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_structured    (SnodoInvocation    *self,
                                                             JsonNode           *structured);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_get_answered         (SnodoInvocation    *self);

SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_set_accepts_unrequested_input (SnodoInvocation *self,
                                                                      gboolean         accepts);

SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_is_task              (SnodoInvocation    *self);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_return_task          (SnodoInvocation    *self);

SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_reject               (SnodoInvocation    *self,
                                                             int                 code,
                                                             const char         *message);
SNODO_AVAILABLE_IN_ALL
void                  snodo_invocation_set_annotation       (SnodoInvocation    *self,
                                                             const char         *key,
                                                             JsonNode           *value);
SNODO_AVAILABLE_IN_ALL
JsonNode             *snodo_invocation_get_annotation       (SnodoInvocation    *self,
                                                             const char         *key);

SNODO_AVAILABLE_IN_ALL
const char           *snodo_invocation_get_principal        (SnodoInvocation    *self);
SNODO_AVAILABLE_IN_ALL
const char * const   *snodo_invocation_get_scopes           (SnodoInvocation    *self);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_invocation_has_scope            (SnodoInvocation    *self,
                                                             const char         *scope);

G_END_DECLS
