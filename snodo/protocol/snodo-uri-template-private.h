/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * URI templates of RFC 6570 level 1, and matching URIs against them. Pure:
 * no I/O, no state.
 *
 * Parsing: the only expressions are `{name}`, where name is one or more of
 * `A-Z a-z 0-9 _`; a name occurs at most once; every `{` is closed by a `}`
 * before any other brace, and a `}` outside an expression is an error. With
 * every expression replaced by a letter, the template must be a valid
 * absolute URI. Errors are SNODO_ERROR_INVALID_SCHEMA.
 *
 * Matching is the reverse of level-1 expansion: literal text must appear
 * as it is; each variable takes a non-empty run of characters that contains
 * no `/`, which is then percent-decoded (a run that does not decode to valid
 * UTF-8 without U+0000 does not match). When several splits are possible
 * (`{a}.{b}` against `x.y.z`), variables from left to right take the
 * shortest run that lets the rest match (a = "x", b = "y.z"). The time and
 * memory taken are linear in the length of the URI for a given template.
 */

typedef struct _SnodoUriTemplate SnodoUriTemplate;

SnodoUriTemplate *snodo_uri_template_parse       (const char        *text,
                                                  GError           **error);
void              snodo_uri_template_free        (SnodoUriTemplate  *self);
/* The number of variables. */
guint             snodo_uri_template_get_n_variables (SnodoUriTemplate *self);
/* A new object mapping each variable to its decoded value, or NULL when
 * @uri does not match. */
JsonObject       *snodo_uri_template_match       (SnodoUriTemplate  *self,
                                                  const char        *uri);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoUriTemplate, snodo_uri_template_free)

G_END_DECLS
