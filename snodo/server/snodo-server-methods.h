/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-invocation.h"
#include "snodo-server.h"

G_BEGIN_DECLS

/*
 * The handlers of the protocol's methods, inside the server folder. The
 * dialect tables name methods by identifier (SnodoMethodId); the server's
 * dispatch maps each to one of these. Each runs as work admitted by the
 * executor and answers through its invocation, now or later.
 */

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

G_END_DECLS
