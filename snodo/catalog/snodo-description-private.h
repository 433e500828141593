/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-description.h"

G_BEGIN_DECLS

/* For the description types, whose setters notify only on a change:
 * replace *@field by a copy of @value (sealed, for JSON); TRUE when the
 * value changed. */
gboolean snodo_description_replace_string (char       **field,
                                           const char  *value);
gboolean snodo_description_replace_json   (JsonNode   **field,
                                           JsonNode    *value);

G_END_DECLS
