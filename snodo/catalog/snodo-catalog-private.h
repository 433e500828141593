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

/* Checks an icons array (src an absolute URI, mimeType, sizes, theme);
 * @owner names the item in the error. NULL is fine. */
gboolean      snodo_catalog_check_icons      (JsonNode     *icons,
                                              const char   *owner,
                                              GError      **error);

/* The server's catalog. */
SnodoCatalog *snodo_server_get_catalog           (SnodoServer     *server);

/* Registration, on the server's main context (see snodo_server_add_*()).
 * Every handler has this signature; each answers its invocation once. On
 * failure @destroy is called at once. An entry's @destroy runs once it is
 * removed and its last invocation is gone. */
typedef void (*SnodoCatalogFunc) (SnodoInvocation *invocation,
                                  gpointer         user_data);

gboolean      snodo_catalog_add_resource             (SnodoCatalog          *self,
                                                      SnodoResource         *resource,
                                                      SnodoCatalogFunc       func,
                                                      gpointer               user_data,
                                                      GDestroyNotify         destroy,
                                                      GError               **error);
gboolean      snodo_catalog_remove_resource          (SnodoCatalog          *self,
                                                      const char            *uri);
gboolean      snodo_catalog_add_resource_template    (SnodoCatalog          *self,
                                                      SnodoResourceTemplate *resource_template,
                                                      SnodoCatalogFunc       func,
                                                      gpointer               user_data,
                                                      GDestroyNotify         destroy,
                                                      GError               **error);
gboolean      snodo_catalog_remove_resource_template (SnodoCatalog          *self,
                                                      const char            *uri_template);
gboolean      snodo_catalog_add_prompt               (SnodoCatalog          *self,
                                                      SnodoPrompt           *prompt,
                                                      SnodoCatalogFunc       func,
                                                      gpointer               user_data,
                                                      GDestroyNotify         destroy,
                                                      GError               **error);
gboolean      snodo_catalog_remove_prompt            (SnodoCatalog          *self,
                                                      const char            *name);
/* @func NULL removes the completion handler. */
void          snodo_catalog_set_completion_func      (SnodoCatalog          *self,
                                                      SnodoCatalogFunc       func,
                                                      gpointer               user_data,
                                                      GDestroyNotify         destroy);

/* How many items a page of a list holds (at least 1; 100 by default). */
guint         snodo_catalog_get_page_size            (SnodoCatalog          *self);
void          snodo_catalog_set_page_size            (SnodoCatalog          *self,
                                                      guint                  page_size);

/* Reads the "cursor" of a list request's @params (absent, null or "" is the
 * first page) and gives the page [*start, *end) of a list of @length items,
 * and the cursor of the next page, or NULL when none remains. A cursor that
 * is not a string, was not made for @list, or is past the end is an error
 * -32602 (SNODO_RPC_ERROR_INVALID_PARAMS). For tools/list as well. */
gboolean      snodo_catalog_paginate                 (SnodoCatalog          *self,
                                                      const char            *list,
                                                      JsonObject            *params,
                                                      guint                  length,
                                                      guint                 *start,
                                                      guint                 *end,
                                                      char                 **next_cursor,
                                                      GError               **error);

/* For the description types: replace *@field by a copy of @value (sealed,
 * for JSON); TRUE when the value changed. */
gboolean      snodo_catalog_set_string               (char                 **field,
                                                      const char            *value);
gboolean      snodo_catalog_set_json                 (JsonNode             **field,
                                                      JsonNode              *value);

G_END_DECLS
