/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-description.h"
#include "snodo-prompt.h"
#include "snodo-resource.h"
#include "snodo-resource-template.h"
#include "snodo-types.h"

G_BEGIN_DECLS

/*
 * The catalog: what a server offers besides tools (resources, resource
 * templates, prompts, completion, and the extensions it advertises). It keeps the entries in the order they
 * were registered, finds them (a resource by its URI, else the first
 * template that matches it), pages their lists and checks descriptions. It
 * knows nobody who serves it: whoever does reads the requests, finds their
 * entries here and calls the entries' handlers. Used on one main context.
 *
 * Lists are written plain (as in 2025-06-18); the dialect layer adds what a
 * protocol version needs.
 */

typedef struct _SnodoCatalog SnodoCatalog;

SnodoCatalog *snodo_catalog_new              (void);
void          snodo_catalog_free             (SnodoCatalog *self);

/* Adds "resources", "prompts" and "completions" to a capabilities object
 * when the catalog has something of that kind, and "extensions" when an
 * extension is registered. */
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

/* Checks an icons array (src an absolute URI, mimeType, sizes, theme);
 * @owner names the item in the error. NULL is fine. */
gboolean      snodo_catalog_check_icons      (JsonNode     *icons,
                                              const char   *owner,
                                              GError      **error);

/* Checks a description's _meta: a JSON object whose keys are named as MCP
 * names them ([prefix "/"] name) and whose prefixes are not reserved for
 * MCP; @owner names the item in the error. NULL is fine. */
gboolean      snodo_catalog_check_meta       (JsonNode     *meta,
                                              const char   *owner,
                                              GError      **error);
/* Checks an extension identifier: a prefix of labels, a slash and a
 * non-empty name, such as "io.modelcontextprotocol/ui". */
gboolean      snodo_catalog_check_extension_name (const char *name,
                                                  GError    **error);

/* The extensions the server advertises in its capabilities (the
 * "extensions" object of snodo_catalog_add_capabilities()), in the order
 * they were added. @settings: a JSON object, or NULL for {}; a sealed copy
 * is kept. Fails if @name is not a valid identifier or is taken. */
gboolean      snodo_catalog_add_extension    (SnodoCatalog *self,
                                              const char   *name,
                                              JsonNode     *settings,
                                              GError      **error);
gboolean      snodo_catalog_remove_extension (SnodoCatalog *self,
                                              const char   *name);
/* The settings of an extension, or NULL. (transfer none) */
JsonNode     *snodo_catalog_get_extension    (SnodoCatalog *self,
                                              const char   *name);

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

/* A registered entry: a description (NULL for the completion handler) and
 * its handler. Reference-counted, on any thread: whoever runs the handler
 * keeps a reference while the request lives, so that the handler's user
 * data outlives it even when the entry is removed meanwhile. */
typedef struct _SnodoCatalogEntry SnodoCatalogEntry;

SnodoCatalogEntry *snodo_catalog_entry_ref        (SnodoCatalogEntry  *entry);
void               snodo_catalog_entry_unref      (SnodoCatalogEntry  *entry);
/* The SnodoResource, SnodoResourceTemplate or SnodoPrompt; NULL for the
 * completion handler. */
SnodoDescription  *snodo_catalog_entry_get_description (SnodoCatalogEntry *entry);
SnodoCatalogFunc   snodo_catalog_entry_get_func        (SnodoCatalogEntry *entry,
                                                        gpointer          *user_data);

/* The entry that reads @uri: the resource of that exact URI, else the first
 * template, in the order they were added, that matches it; NULL if none.
 * @variables: the values of the template's variables (an empty object for a
 * resource), sealed. (transfer none) */
SnodoCatalogEntry *snodo_catalog_find_resource    (SnodoCatalog       *self,
                                                   const char         *uri,
                                                   JsonObject        **variables);
/* (transfer none) (nullable) */
SnodoCatalogEntry *snodo_catalog_find_prompt      (SnodoCatalog       *self,
                                                   const char         *name);
/* The completion handler's entry, or NULL. (transfer none) */
SnodoCatalogEntry *snodo_catalog_get_completion   (SnodoCatalog       *self);

typedef enum
{
  SNODO_CATALOG_RESOURCES,
  SNODO_CATALOG_RESOURCE_TEMPLATES,
  SNODO_CATALOG_PROMPTS,
} SnodoCatalogList;

/* The result of a list method: one page of @list, as {MEMBER: [...],
 * nextCursor?} ("resources", "resourceTemplates" or "prompts"), the page
 * chosen by the "cursor" of @params (see snodo_catalog_paginate()).
 * @with_icons: whether items carry their icons (from 2025-11-25 on). */
JsonNode          *snodo_catalog_list_page        (SnodoCatalog       *self,
                                                   SnodoCatalogList    list,
                                                   JsonObject         *params,
                                                   gboolean            with_icons,
                                                   GError            **error);

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

G_END_DECLS
