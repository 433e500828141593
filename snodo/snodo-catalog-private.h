/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-invocation.h"
#include "snodo-server.h"

G_BEGIN_DECLS

/*
 * The catalog: what a server offers besides tools (resources, resource
 * templates, prompts, completion), and the methods that serve it. One per
 * server, used on the server's main context.
 *
 * Results are returned plain (as in 2025-06-18); the dialect layer adds what
 * a protocol version needs (2026-07-28: resultType, serverInfo, ttlMs,
 * cacheScope) and maps error codes (-32002 becomes -32602 with data.uri in
 * 2026-07-28), so the catalog's methods never look at the version except
 * where a field exists only in some versions.
 */

typedef struct _SnodoCatalog SnodoCatalog;

SnodoCatalog *snodo_catalog_new              (SnodoServer  *server);
void          snodo_catalog_free             (SnodoCatalog *self);

/* Adds "resources", "prompts" and "completions" to a capabilities object
 * when the catalog has something of that kind. */
void          snodo_catalog_add_capabilities (SnodoCatalog *self,
                                              JsonObject   *capabilities);
gboolean      snodo_catalog_has_resources    (SnodoCatalog *self);
gboolean      snodo_catalog_has_prompts      (SnodoCatalog *self);
gboolean      snodo_catalog_has_completion   (SnodoCatalog *self);

/* Opaque pagination cursors, shared by every list method (tools/list too).
 * An invalid cursor is -32602. @list names the list ("tools", "prompts", …)
 * so that a cursor of one list is not accepted by another. */
char         *snodo_cursor_encode            (const char   *list,
                                              guint         offset);
gboolean      snodo_cursor_decode            (const char   *list,
                                              const char   *cursor,
                                              guint        *offset,
                                              GError      **error);

/* The methods (see snodo-dialect-private.h). */
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

/* The server's catalog. */
SnodoCatalog *snodo_server_get_catalog           (SnodoServer     *server);

/* For the description types: replace *@field by a copy of @value (sealed,
 * for JSON); TRUE when the value changed. */
gboolean      snodo_catalog_set_string       (char        **field,
                                              const char   *value);
gboolean      snodo_catalog_set_json         (JsonNode    **field,
                                              JsonNode     *value);

G_END_DECLS
