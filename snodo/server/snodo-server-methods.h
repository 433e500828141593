/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-catalog-private.h"
#include "snodo-invocation.h"
#include "snodo-types.h"

G_BEGIN_DECLS

/*
 * The server's method handlers, inside the server folder, and what they
 * share. The dialect tables name methods by identifier (SnodoMethodId); the
 * server's dispatch maps each to one of these. Each runs on the server's
 * main context, as work admitted by the executor, and answers its
 * invocation, at once or through the handler it calls.
 */

/* The server's catalog: its resources, resource templates, prompts and
 * completion handler. */
SnodoCatalog *snodo_server_get_catalog (SnodoServer *server);

/* The protocol's own methods (snodo-server-methods.c, snodo-server-sessions.c). */
void snodo_server_method_initialize            (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_ping                  (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_discover              (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_logging_set_level     (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_tools_list            (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_resources_subscribe   (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_resources_unsubscribe (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_subscriptions_listen  (SnodoServer     *server,
                                                SnodoInvocation *invocation);

/* Tasks (snodo-server-tasks.c). */
void snodo_server_method_tasks_get             (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_tasks_result          (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_tasks_list            (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_tasks_update          (SnodoServer     *server,
                                                SnodoInvocation *invocation);
void snodo_server_method_tasks_cancel          (SnodoServer     *server,
                                                SnodoInvocation *invocation);

/* Resources, resource templates, prompts and completion
 * (snodo-server-catalog-methods.c). */
void snodo_server_method_resources_list           (SnodoServer     *server,
                                                   SnodoInvocation *invocation);
void snodo_server_method_resources_templates_list (SnodoServer     *server,
                                                   SnodoInvocation *invocation);
void snodo_server_method_resources_read           (SnodoServer     *server,
                                                   SnodoInvocation *invocation);
void snodo_server_method_prompts_list             (SnodoServer     *server,
                                                   SnodoInvocation *invocation);
void snodo_server_method_prompts_get              (SnodoServer     *server,
                                                   SnodoInvocation *invocation);
void snodo_server_method_completion_complete      (SnodoServer     *server,
                                                   SnodoInvocation *invocation);

G_END_DECLS
