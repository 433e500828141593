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

#define SNODO_TYPE_RESOURCE (snodo_resource_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoResource, snodo_resource, SNODO, RESOURCE, SnodoDescription)

SNODO_AVAILABLE_IN_ALL
SnodoResource *snodo_resource_new             (const char    *uri,
                                               const char    *name);
SNODO_AVAILABLE_IN_ALL
const char    *snodo_resource_get_uri         (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
const char    *snodo_resource_get_name        (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
const char    *snodo_resource_get_title       (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_resource_set_title       (SnodoResource *self,
                                               const char    *title);
SNODO_AVAILABLE_IN_ALL
const char    *snodo_resource_get_description (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_resource_set_description (SnodoResource *self,
                                               const char    *description);
SNODO_AVAILABLE_IN_ALL
const char    *snodo_resource_get_mime_type   (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_resource_set_mime_type   (SnodoResource *self,
                                               const char    *mime_type);
SNODO_AVAILABLE_IN_ALL
gint64         snodo_resource_get_size        (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_resource_set_size        (SnodoResource *self,
                                               gint64         size);
SNODO_AVAILABLE_IN_ALL
JsonNode      *snodo_resource_get_annotations (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_resource_set_annotations (SnodoResource *self,
                                               JsonNode      *annotations);
SNODO_AVAILABLE_IN_ALL
JsonNode      *snodo_resource_get_icons       (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
void           snodo_resource_set_icons       (SnodoResource *self,
                                               JsonNode      *icons);
SNODO_AVAILABLE_IN_ALL
int             snodo_resource_get_cache_ttl   (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
void            snodo_resource_set_cache_ttl   (SnodoResource *self,
                                                int           cache_ttl);
SNODO_AVAILABLE_IN_ALL
SnodoCacheScope snodo_resource_get_cache_scope (SnodoResource *self);
SNODO_AVAILABLE_IN_ALL
void            snodo_resource_set_cache_scope (SnodoResource  *self,
                                                SnodoCacheScope cache_scope);

G_END_DECLS
