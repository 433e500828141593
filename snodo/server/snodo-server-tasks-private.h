/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-connection-private.h"
#include "snodo-protocol-private.h"
#include "snodo-task-store.h"
#include "snodo-tool.h"

G_BEGIN_DECLS

/* Tasks (snodo-server-tasks.c): what the server keeps of them. */
typedef struct _SnodoServerTasks SnodoServerTasks;

SnodoServerTasks *snodo_server_tasks_new    (SnodoTaskStore *store);
void              snodo_server_tasks_free   (SnodoServerTasks *self);

/* The server's tasks, or NULL when it serves none (snodo-server.c). */
SnodoServerTasks *snodo_server_get_tasks    (SnodoServer      *server);
void              snodo_server_set_tasks    (SnodoServer      *server,
                                             SnodoServerTasks *tasks);

/* At dispatch, for a tools/call of @tool: the connection its handler runs
 * on: @connection for a plain call, the task's own for a task (the
 * request answered with it, @invocation moved onto it); NULL when the
 * request was answered with an error. */
SnodoConnection  *snodo_server_tasks_divert (SnodoServer        *server,
                                             SnodoConnection    *connection,
                                             const SnodoDialect *dialect,
                                             SnodoFrame         *frame,
                                             SnodoTool          *tool,
                                             SnodoInvocation    *invocation);
/* The executor refused the task's work: the task fails with @error. */
void              snodo_server_tasks_refused (SnodoServer     *server,
                                              SnodoConnection *task_connection,
                                              const GError    *error);
/* A handler of a task asks for input (any thread; @task transfer full). */
void              snodo_server_tasks_request_input (GObject      *task_run,
                                                    const char   *key,
                                                    const char   *method,
                                                    JsonNode     *params,
                                                    GCancellable *cancellable,
                                                    GTask        *task);
/* subscriptions/listen with notifications.taskIds (2026-07-28): FALSE
 * with @message set when they are not an array of strings, FALSE with
 * the request answered (-32021) when the client did not declare the
 * extension. */
gboolean          snodo_server_tasks_check_listen (SnodoServer     *server,
                                                   SnodoInvocation *invocation,
                                                   JsonNode        *task_ids,
                                                   char           **message);
/* Whether a task of this id is kept. */
gboolean          snodo_server_tasks_knows  (SnodoServer      *server,
                                             const char       *task_id);
/* notifications/tasks to the subscriptions listening to @task_id
 * (snodo-server-sessions.c). */
void              snodo_server_announce_task (SnodoServer     *server,
                                              const char      *task_id,
                                              JsonObject      *task);
void              snodo_server_tasks_add_capabilities (SnodoServer          *server,
                                                       JsonObject           *capabilities,
                                                       SnodoProtocolVersion  version);

G_END_DECLS
