/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-protocol-private.h"
#include "snodo-skill.h"

G_BEGIN_DECLS

/*
 * Inside the server folder: what the skills of snodo-server-skills.c ask of
 * SnodoSkill (snodo-skill.c). The front matter parser, the digest and the
 * name check are the protocol layer's (snodo-skill-frontmatter.c), since
 * clients use them too.
 */

/* The limits on what is read of a skill (introspection/skills.md). */
#define SNODO_SKILL_MAX_FILES        512
#define SNODO_SKILL_MAX_BYTES        (16 * 1024 * 1024)
#define SNODO_SKILL_MAX_DEPTH        16
#define SNODO_SKILLS_MAX_PER_DIRECTORY 1024

/* The files of a skill, in the order of its entry: relative paths. */
const char * const *snodo_skill_get_file_paths (SnodoSkill *self,
                                                guint      *n_files);
/* The URI of one of the skill's files, by its relative path. */
char        *snodo_skill_dup_file_uri      (SnodoSkill  *self,
                                            const char  *path);
/* The MIME type the skill serves a file with. */
const char  *snodo_skill_get_file_mime_type (SnodoSkill *self,
                                             const char *path);
/* Whether @prefix is NULL or '/'-separated segments of letters, digits,
 * '-', '.', '_' and '~', none "." or "..". */
gboolean     snodo_skill_prefix_is_valid   (const char  *prefix);
/* Once a server serves the skill it takes no more files. */
void         snodo_skill_seal              (SnodoSkill  *self);

G_END_DECLS
