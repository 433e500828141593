/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * GVariant values as JSON, by the table of introspection/actions.md: the
 * JSON Schema of a GVariantType, a JSON value turned into a GVariant of
 * exactly that type, and a GVariant turned into JSON. Pure: no I/O.
 *
 * The largest integer JSON carries exactly is 2^53 − 1, so `x` and `t` are
 * kept within ±(2^53 − 1) going in. `v` and `h` have no schema (a `v`
 * takes the type its describer gives instead); nor do maybes of maybes
 * (`null` could not tell their two empty levels apart).
 */

/* The largest integer a JSON number holds exactly. */
#define SNODO_VARIANT_MAX_SAFE_INTEGER G_GINT64_CONSTANT (9007199254740991)

/* The schema of @type, new; NULL and @error (SNODO_ERROR_INVALID_SCHEMA)
 * for a type without one. */
JsonNode *snodo_variant_type_to_schema (const GVariantType  *type,
                                        GError             **error);

/* @node as a GVariant of @type, floating reference sunk (full); NULL and
 * @error (SNODO_RPC_ERROR_INVALID_PARAMS) naming the place as @path (the
 * JSON pointer of @node, "" for the root) followed by the member or index
 * that does not fit, e.g. "/parameter/1: expected an integer". */
GVariant *snodo_variant_from_json      (const GVariantType  *type,
                                        JsonNode            *node,
                                        const char          *path,
                                        GError             **error);

/* @value as JSON, new; NULL and @error (SNODO_ERROR_FAILED) for a value
 * holding a handle. A `v` is its value; a `t` above 2^63 − 1 and a
 * double that is not finite, which JSON has no integer or number for,
 * become a number and null. */
JsonNode *snodo_variant_to_json        (GVariant            *value,
                                        GError             **error);

G_END_DECLS
