/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <json-glib/json-glib.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

/**
 * SnodoCacheScope:
 * @SNODO_CACHE_SCOPE_PRIVATE: the result depends on who asks (on the
 *   caller's authorization): only that caller may reuse it
 * @SNODO_CACHE_SCOPE_PUBLIC: the result is the same for every caller:
 *   shared caches may keep it
 *
 * Who may reuse a 2026-07-28 result (its `cacheScope`), see
 * [method@Snodo.Server.set_cache_hint] and the `cache-scope` of
 * [class@Snodo.Resource] and [class@Snodo.ResourceTemplate].
 *
 * Since: 0.1
 */
typedef enum
{
  SNODO_CACHE_SCOPE_PRIVATE,
  SNODO_CACHE_SCOPE_PUBLIC,
} SnodoCacheScope;

#define SNODO_TYPE_DESCRIPTION (snodo_description_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_DERIVABLE_TYPE (SnodoDescription, snodo_description, SNODO, DESCRIPTION, GObject)

/**
 * SnodoDescriptionClass:
 * @parent_class: the parent class
 *
 * The class of [class@Snodo.Description]. It has no virtual functions;
 * only the library's own description types derive from it.
 *
 * Since: 0.1
 */
struct _SnodoDescriptionClass
{
  GObjectClass parent_class;

  /*< private >*/
  gpointer padding[8];
};

SNODO_AVAILABLE_IN_ALL
const char *snodo_description_get_name        (SnodoDescription *self);
SNODO_AVAILABLE_IN_ALL
const char *snodo_description_get_title       (SnodoDescription *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_description_set_title       (SnodoDescription *self,
                                               const char       *title);
SNODO_AVAILABLE_IN_ALL
const char *snodo_description_get_description (SnodoDescription *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_description_set_description (SnodoDescription *self,
                                               const char       *description);
SNODO_AVAILABLE_IN_ALL
JsonNode   *snodo_description_get_icons       (SnodoDescription *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_description_set_icons       (SnodoDescription *self,
                                               JsonNode         *icons);
SNODO_AVAILABLE_IN_ALL
JsonNode   *snodo_description_get_meta        (SnodoDescription *self);
SNODO_AVAILABLE_IN_ALL
void        snodo_description_set_meta        (SnodoDescription *self,
                                               JsonNode         *meta);

G_END_DECLS
