/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

/**
 * SNODO_SKILLS_EXTENSION:
 *
 * The identifier of the Skills extension, `io.modelcontextprotocol/skills`,
 * which [method@Snodo.Server.add_skill] advertises.
 *
 * Since: 0.1
 */
#define SNODO_SKILLS_EXTENSION "io.modelcontextprotocol/skills"

#define SNODO_TYPE_SKILL (snodo_skill_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoSkill, snodo_skill, SNODO, SKILL, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoSkill  *snodo_skill_new                (const char    *prefix,
                                             GBytes        *skill_md,
                                             GError       **error);
SNODO_AVAILABLE_IN_ALL
SnodoSkill  *snodo_skill_new_from_directory (GFile         *directory,
                                             const char    *prefix,
                                             GCancellable  *cancellable,
                                             GError       **error);
SNODO_AVAILABLE_IN_ALL
gboolean     snodo_skill_add_file           (SnodoSkill    *self,
                                             const char    *path,
                                             GBytes        *content,
                                             const char    *mime_type,
                                             GError       **error);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_skill_get_name           (SnodoSkill    *self);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_skill_get_description    (SnodoSkill    *self);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_skill_get_path           (SnodoSkill    *self);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_skill_get_uri            (SnodoSkill    *self);
SNODO_AVAILABLE_IN_ALL
JsonNode    *snodo_skill_get_frontmatter    (SnodoSkill    *self);
SNODO_AVAILABLE_IN_ALL
GBytes      *snodo_skill_lookup_file        (SnodoSkill    *self,
                                             const char    *path);
SNODO_AVAILABLE_IN_ALL
JsonNode    *snodo_skill_dup_entry          (SnodoSkill    *self);

G_END_DECLS
