/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * Checks a JSON value against a JSON Schema (draft 2020-12), for the
 * arguments of a tool before its handler runs. Pure: no I/O, no network.
 *
 * The keywords checked are the ones tool schemas use: type (one or a list;
 * "integer" accepts a number with no fraction), enum, const, properties,
 * required, additionalProperties (false or a schema), items (a schema),
 * minItems, maxItems, minLength, maxLength (in characters), minimum,
 * maximum, exclusiveMinimum, exclusiveMaximum, multipleOf, allOf, anyOf,
 * oneOf and not. Every other keyword ($ref, pattern, format, …) is left
 * unchecked rather than refused: a schema the checker does not fully
 * understand never rejects a value a full validator would accept, except by
 * the keywords above. `true` accepts everything, `false` nothing.
 *
 * On failure, @error (SNODO_RPC_ERROR_INVALID_PARAMS) names the place, as a
 * path from the root (e.g. "/text: expected a string").
 *
 * A sealed schema (json_node_seal(), as tools keep theirs) is read once and
 * kept read, with a reference, in a small cache (16 schemas at most): the
 * common shape (an object of typed properties, a required list,
 * additionalProperties) is then checked without walking the schema again.
 * The answer and the message are the same either way.
 */

gboolean snodo_schema_validate (JsonNode  *schema,
                                JsonNode  *instance,
                                GError   **error);
/* The same for an object, without a node around it when it is valid. */
gboolean snodo_schema_validate_object (JsonNode    *schema,
                                       JsonObject  *instance,
                                       GError     **error);

G_END_DECLS
