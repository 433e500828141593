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

#define SNODO_TYPE_PROMPT (snodo_prompt_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoPrompt, snodo_prompt, SNODO, PROMPT, SnodoDescription)

SNODO_AVAILABLE_IN_ALL
SnodoPrompt *snodo_prompt_new             (const char  *name,
                                           const char  *description);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_prompt_get_name        (SnodoPrompt *self);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_prompt_get_title       (SnodoPrompt *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_prompt_set_title       (SnodoPrompt *self,
                                           const char  *title);
SNODO_AVAILABLE_IN_ALL
const char  *snodo_prompt_get_description (SnodoPrompt *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_prompt_set_description (SnodoPrompt *self,
                                           const char  *description);
SNODO_AVAILABLE_IN_ALL
JsonNode    *snodo_prompt_get_icons       (SnodoPrompt *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_prompt_set_icons       (SnodoPrompt *self,
                                           JsonNode    *icons);
SNODO_AVAILABLE_IN_ALL
void         snodo_prompt_add_argument    (SnodoPrompt *self,
                                           const char  *name,
                                           const char  *description,
                                           gboolean     required);
SNODO_AVAILABLE_IN_ALL
JsonNode    *snodo_prompt_get_arguments   (SnodoPrompt *self);

G_END_DECLS
