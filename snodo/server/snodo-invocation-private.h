/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-catalog-private.h"
#include "snodo-invocation.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-server-private.h"
#include "snodo-work.h"

G_BEGIN_DECLS

/*
 * What the server folder does with an invocation besides its public API.
 */

/* A request to answer, made by the dispatch: @key is the frame's id key
 * (snodo_frame_id_key()); @stamp (transfer full) is
 * what a 2026-07-28 answer says of the server, NULL in the initialize era;
 * @meta, the _meta of @params, is moved into the invocation, and so are
 * @members, params not built, when not NULL (then @params is NULL). */
SnodoInvocation    *snodo_invocation_new             (SnodoServer        *server,
                                                      SnodoConnection    *connection,
                                                      const SnodoDialect *dialect,
                                                      const SnodoMethod  *method_entry,
                                                      SnodoStamp         *stamp,
                                                      JsonNode           *message,
                                                      JsonNode           *id,
                                                      const char         *key,
                                                      JsonNode           *params,
                                                      SnodoJsonMembers   *members,
                                                      SnodoRequestMeta   *meta);
/* Marks this thread as running @self's handler, for the trace context of
 * client requests made from it; NULL when the handler returned. */
void                snodo_invocation_enter_handler   (SnodoInvocation    *self);
/* Whether the request has a span (snodo-invocation-trace.c). */
gboolean            snodo_invocation_has_span        (SnodoInvocation    *self);
/* Ends the span of a request refused before its handler ran, with the
 * error it was answered. */
void                snodo_invocation_refuse_span     (SnodoInvocation    *self,
                                                      int                 code,
                                                      const char         *message);
/* The member @name of params (built or not); NULL when absent. */
JsonNode           *snodo_invocation_get_param       (SnodoInvocation    *self,
                                                      const char         *name);
void                snodo_invocation_set_work        (SnodoInvocation    *self,
                                                      SnodoWork          *work);
void                snodo_invocation_set_name        (SnodoInvocation    *self,
                                                      const char         *name);
void                snodo_invocation_set_ref_name    (SnodoInvocation    *self,
                                                      char               *name);
void                snodo_invocation_set_tool_call   (SnodoInvocation    *self,
                                                      gboolean            tool_call);
SnodoConnection    *snodo_invocation_get_connection  (SnodoInvocation    *self);
const SnodoDialect *snodo_invocation_get_dialect     (SnodoInvocation    *self);
SnodoServer        *snodo_invocation_get_server      (SnodoInvocation    *self);
void                snodo_invocation_set_output_schema (SnodoInvocation  *self,
                                                        JsonNode         *schema);
const char         *snodo_invocation_get_key         (SnodoInvocation    *self);
/* 2026-07-28: the answers to earlier input requests (from the verified
 * requestState and this request's inputResponses). */
void                snodo_invocation_set_input_answers (SnodoInvocation  *self,
                                                        JsonObject       *answers);
void                snodo_invocation_set_unrequested_answers (SnodoInvocation *self,
                                                              JsonObject      *answers);
/* 2026-07-28: the answers a retry of @frame brings (snodo-invocation-input.c). */
gboolean            snodo_invocation_collect_answers (SnodoRequestStateKey  *key,
                                                      SnodoFrame            *frame,
                                                      const char            *principal,
                                                      JsonObject           **answers,
                                                      JsonObject           **unrequested,
                                                      GError               **error);
/* Arms the handler's deadline (0: none); before the handler runs. */
void                snodo_invocation_start_deadline  (SnodoInvocation    *self,
                                                      guint               timeout);
/* After the request hooks ran: if one refused the request, answers it with
 * that error and returns TRUE. */
gboolean            snodo_invocation_answer_rejection (SnodoInvocation   *self);
/* Makes the invocation the handler's of a task (snodo-server-tasks.c),
 * before the handler runs: it moves onto the task's own @connection. */
void                snodo_invocation_set_task        (SnodoInvocation    *self,
                                                      GObject            *task_run,
                                                      SnodoConnection    *connection);
GObject            *snodo_invocation_get_task        (SnodoInvocation    *self);
/* Ends the invocation without an answer (a cancelled request). */
void                snodo_invocation_drop            (SnodoInvocation    *self);

/* Set by the catalog before a handler runs. @arguments: the string map of
 * prompts/get, or context.arguments of completion/complete; @variables: the
 * values of a template's variables for resources/read. Both sealed. */
void                snodo_invocation_set_arguments   (SnodoInvocation    *self,
                                                      JsonObject         *arguments);
void                snodo_invocation_set_variables   (SnodoInvocation    *self,
                                                      JsonObject         *variables);
/* The catalog entry (tool, resource, template or prompt) whose handler
 * serves the invocation: kept alive, with its user data, as long as the
 * invocation is; NULL for the server's own methods. */
void                snodo_invocation_set_catalog_entry (SnodoInvocation   *self,
                                                        SnodoCatalogEntry *entry);
SnodoCatalogEntry  *snodo_invocation_get_catalog_entry (SnodoInvocation   *self);

G_END_DECLS
