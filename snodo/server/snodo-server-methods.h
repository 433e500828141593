/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-catalog-private.h"
#include "snodo-invocation.h"
#include "snodo-types.h"

G_BEGIN_DECLS

/*
 * The server's method handlers, which the dialect tables name, and what
 * they share. Each runs on the server's main context and answers its
 * invocation, at once or through the handler it calls.
 */

/* The server's catalog: its resources, resource templates, prompts and
 * completion handler. */
SnodoCatalog *snodo_server_get_catalog (SnodoServer *server);

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
