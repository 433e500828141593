/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * URI templates of RFC 6570, all four levels: expanding them, and matching
 * URIs against them. Pure: no I/O, no state.
 *
 * Parsing: an expression is `{` an optional operator (`+ # . / ; ? &`) and
 * one or more comma-separated variables `}`; a variable is a name (of
 * `A-Z a-z 0-9 _`, percent escapes, and single dots between them) with an
 * optional prefix `:N` (1 to 9999) or explode `*`. Every `{` is closed by
 * a `}` before any other brace, and a `}` outside an expression is an
 * error. With snodo_uri_template_parse(), the template with every
 * expression replaced by an example must also be a valid absolute URI.
 * Errors are SNODO_ERROR_INVALID_SCHEMA.
 *
 * Matching is the reverse of expansion, read from left to right. Outside
 * the expressions the text must appear as it is. Inside an expression:
 *
 * - Each variable may be absent (undefined): it is then missing from the
 *   result. Variables are taken present first, from left to right.
 * - A value is a run of characters, percent-decoded (a run that does not
 *   decode to valid UTF-8 without U+0000 does not match). The run never
 *   holds `/` in `{x}`, `{.x}`, `{/x}`; never `/` or `;` in `{;x}`; never
 *   `&` or `#` in `{?x}` and `{&x}`; anything in `{+x}` and `{#x}`.
 * - In `{x}` and `{+x}` expressions (no leading character) the first
 *   value present is not empty, so such an expression never matches the
 *   empty string: with a single variable this is level 1's rule.
 * - A variable without explode is always a string: a list or map expanded
 *   into it comes back as its text (`{list}` gives "red,green,blue").
 * - An exploded variable is one or more non-empty items split at the
 *   operator's separator (`,` for `{x*}`, `{+x*}`, `{#x*}`). With `;`, `?`
 *   and `&` every item is `name=value` (or `name` alone with `;`): when
 *   every name is the variable's, the value is a JSON array of the values,
 *   otherwise a JSON object of names to values. Without a named operator,
 *   when every item holds a `=` the value is a JSON object (split at the
 *   first `=`), otherwise a JSON array of the items.
 * - A prefix `{x:N}` is a value of at most N characters.
 * - A variable used more than once is matched as if each use were its own
 *   variable; then the values must agree (equal, or a prefix use equal to
 *   the start of the others).
 * - When several splits are possible (`{a}.{b}` against `x.y.z`), the
 *   choices are made from left to right, each taking the shortest run (and
 *   the fewest items) that lets the rest match (a = "x", b = "y.z").
 *
 * The template is compiled to a small automaton whose only loops consume
 * a character; matching runs it backwards once over the URI (which state
 * can reach the end from which position, a bit each) and then forwards
 * once, taking at each choice the first branch that can still reach the
 * end. Both passes visit each (state, position) pair at most once, so the
 * time and memory are linear in the length of the URI for a given
 * template, with no backtracking.
 */

typedef struct _SnodoUriTemplate SnodoUriTemplate;

SnodoUriTemplate *snodo_uri_template_parse       (const char        *text,
                                                  GError           **error);
/* Like snodo_uri_template_parse(), for templates that need not make an
 * absolute URI (as for expansion, `{+base}index`). */
SnodoUriTemplate *snodo_uri_template_parse_relative (const char     *text,
                                                  GError           **error);
void              snodo_uri_template_free        (SnodoUriTemplate  *self);
/* The number of distinct variables. */
guint             snodo_uri_template_get_n_variables (SnodoUriTemplate *self);
/* Whether a value from snodo_uri_template_match() may expand to a URI
 * that matches with other values: some variable is used twice; an
 * expression without names holds more than one variable (`{a,b}` with
 * only b defined reads as a); an expression whose separator stays
 * unencoded in values (`{+a,b}`, `{#x*}`, `{.x*}`) holds more than one
 * variable or an explode; or an expression is followed by another one
 * without a reserved character between them. */
gboolean          snodo_uri_template_is_ambiguous (SnodoUriTemplate *self);
/* A new object mapping each variable present to its decoded value (a
 * string, or for an exploded variable an array or object of strings), or
 * NULL when @uri does not match. */
JsonObject       *snodo_uri_template_match       (SnodoUriTemplate  *self,
                                                  const char        *uri);
/* The same, counting in *@steps (which it adds to) the automaton steps
 * taken: at most 2 × (length of @uri + 1) × the number of states, plus the
 * forward walk. */
JsonObject       *snodo_uri_template_match_counted (SnodoUriTemplate *self,
                                                  const char        *uri,
                                                  guint64           *steps);
/* The number of states of the matching automaton. */
guint             snodo_uri_template_get_n_states (SnodoUriTemplate *self);
/* RFC 6570 expansion. A value is a string, number or boolean (its text), an
 * array of those (a list) or an object of those (a map); a missing member,
 * null, an empty array and an empty object are undefined. NULL with
 * SNODO_ERROR_INVALID_SCHEMA for a value of another kind, or a prefix on a
 * list or map. @values may be NULL. */
char             *snodo_uri_template_expand      (SnodoUriTemplate  *self,
                                                  JsonObject        *values,
                                                  GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoUriTemplate, snodo_uri_template_free)

G_END_DECLS
