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

#define SNODO_TYPE_RESOURCE_TEMPLATE (snodo_resource_template_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoResourceTemplate, snodo_resource_template, SNODO, RESOURCE_TEMPLATE, SnodoDescription)

SNODO_AVAILABLE_IN_ALL
SnodoResourceTemplate *snodo_resource_template_new             (const char            *uri_template,
                                                                const char            *name);
SNODO_AVAILABLE_IN_ALL
const char            *snodo_resource_template_get_uri_template (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
char                  *snodo_resource_template_expand          (SnodoResourceTemplate *self,
                                                                JsonObject            *values,
                                                                GError               **error);
SNODO_AVAILABLE_IN_ALL
const char            *snodo_resource_template_get_name        (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
const char            *snodo_resource_template_get_title       (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
void                   snodo_resource_template_set_title       (SnodoResourceTemplate *self,
                                                                const char            *title);
SNODO_AVAILABLE_IN_ALL
const char            *snodo_resource_template_get_description (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
void                   snodo_resource_template_set_description (SnodoResourceTemplate *self,
                                                                const char            *description);
SNODO_AVAILABLE_IN_ALL
const char            *snodo_resource_template_get_mime_type   (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
void                   snodo_resource_template_set_mime_type   (SnodoResourceTemplate *self,
                                                                const char            *mime_type);
SNODO_AVAILABLE_IN_ALL
JsonNode              *snodo_resource_template_get_annotations (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
void                   snodo_resource_template_set_annotations (SnodoResourceTemplate *self,
                                                                JsonNode              *annotations);
SNODO_AVAILABLE_IN_ALL
JsonNode              *snodo_resource_template_get_icons       (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
void                   snodo_resource_template_set_icons       (SnodoResourceTemplate *self,
                                                                JsonNode              *icons);
SNODO_AVAILABLE_IN_ALL
int             snodo_resource_template_get_cache_ttl   (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
void            snodo_resource_template_set_cache_ttl   (SnodoResourceTemplate *self,
                                                         int                   cache_ttl);
SNODO_AVAILABLE_IN_ALL
SnodoCacheScope snodo_resource_template_get_cache_scope (SnodoResourceTemplate *self);
SNODO_AVAILABLE_IN_ALL
void            snodo_resource_template_set_cache_scope (SnodoResourceTemplate *self,
                                                         SnodoCacheScope       cache_scope);

G_END_DECLS
