/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "snodo-description.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

/**
 * SnodoTaskSupport:
 * @SNODO_TASK_SUPPORT_FORBIDDEN: calls of the tool are never tasks
 * @SNODO_TASK_SUPPORT_OPTIONAL: a call runs as a task when the client can
 *   take one: in 2025-11-25 when it asks (a `task` in the call's params), in
 *   2026-07-28 whenever it declared the `io.modelcontextprotocol/tasks`
 *   extension; otherwise as a plain call
 * @SNODO_TASK_SUPPORT_REQUIRED: every call runs as a task; a client that
 *   cannot take one is refused
 *
 * Whether the calls of a tool run as tasks (see
 * [method@Snodo.Server.enable_tasks]). 2025-11-25 lists it as the tool's
 * `execution.taskSupport`.
 *
 * Since: 0.1
 */
typedef enum
{
  SNODO_TASK_SUPPORT_FORBIDDEN,
  SNODO_TASK_SUPPORT_OPTIONAL,
  SNODO_TASK_SUPPORT_REQUIRED,
} SnodoTaskSupport;

#define SNODO_TYPE_TOOL (snodo_tool_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoTool, snodo_tool, SNODO, TOOL, SnodoDescription)

SNODO_AVAILABLE_IN_ALL
SnodoTool  *snodo_tool_new                          (const char  *name,
                                                     const char  *description);
SNODO_AVAILABLE_IN_ALL
const char *snodo_tool_get_name                     (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
const char *snodo_tool_get_title                    (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_tool_set_title                    (SnodoTool   *self,
                                                     const char  *title);
SNODO_AVAILABLE_IN_ALL
const char *snodo_tool_get_description              (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_tool_set_description              (SnodoTool   *self,
                                                     const char  *description);
SNODO_AVAILABLE_IN_ALL
JsonNode   *snodo_tool_get_input_schema             (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
gboolean    snodo_tool_set_input_schema             (SnodoTool   *self,
                                                     JsonNode    *schema,
                                                     GError     **error);
SNODO_AVAILABLE_IN_ALL
gboolean    snodo_tool_set_input_schema_from_string (SnodoTool   *self,
                                                     const char  *json,
                                                     GError     **error);
SNODO_AVAILABLE_IN_ALL
JsonNode   *snodo_tool_get_output_schema            (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
gboolean    snodo_tool_set_output_schema            (SnodoTool   *self,
                                                     JsonNode    *schema,
                                                     GError     **error);
SNODO_AVAILABLE_IN_ALL
gboolean    snodo_tool_set_output_schema_from_string
                                                    (SnodoTool   *self,
                                                     const char  *json,
                                                     GError     **error);
SNODO_AVAILABLE_IN_ALL
JsonNode   *snodo_tool_get_annotations              (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_tool_set_annotations              (SnodoTool   *self,
                                                     JsonNode    *annotations);
SNODO_AVAILABLE_IN_ALL
JsonNode   *snodo_tool_get_icons                    (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_tool_set_icons                    (SnodoTool   *self,
                                                     JsonNode    *icons);
SNODO_AVAILABLE_IN_ALL
gboolean    snodo_tool_get_run_in_thread            (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
SnodoTaskSupport snodo_tool_get_task_support        (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_tool_set_task_support             (SnodoTool        *self,
                                                     SnodoTaskSupport  task_support);
SNODO_AVAILABLE_IN_ALL
void        snodo_tool_set_run_in_thread            (SnodoTool   *self,
                                                     gboolean     run_in_thread);
SNODO_AVAILABLE_IN_ALL
int         snodo_tool_get_handler_timeout          (SnodoTool   *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_tool_set_handler_timeout          (SnodoTool   *self,
                                                     int          handler_timeout);

G_END_DECLS
