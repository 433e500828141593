/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The most of a SKILL.md read for its front matter. */
#define SNODO_SKILL_MAX_FRONTMATTER  (64 * 1024)

/* The front matter of a SKILL.md: the YAML block between its first line,
 * `---`, and the next `---` (or `...`) line, as a JSON object (a subset of
 * YAML 1.2 with the core schema: block mappings and sequences, plain,
 * quoted and block scalars, one-line flow collections, comments). NULL,
 * with @error set, when there is none or it is not of that subset. A
 * server reads it to list a skill; a client, to compare a SKILL.md with
 * the skill's entry. */
JsonNode    *snodo_skill_parse_frontmatter (const char  *text,
                                            gsize        length,
                                            GError     **error);

/* `sha256:` and the 64 lowercase hexadecimal digits of the digest of
 * @bytes. */
char        *snodo_skill_digest            (GBytes      *bytes);

/* Whether @name is a skill name of the Agent Skills specification: 1 to 64
 * lowercase letters, digits and hyphens, neither first nor last, never two
 * in a row. */
gboolean     snodo_skill_name_is_valid     (const char  *name);

G_END_DECLS
