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

#define SNODO_TYPE_ANSWER (snodo_answer_get_type ())

typedef struct _SnodoAnswer SnodoAnswer;

SNODO_AVAILABLE_IN_ALL
GType        snodo_answer_get_type         (void) G_GNUC_CONST;
SNODO_AVAILABLE_IN_ALL
SnodoAnswer *snodo_answer_ref              (SnodoAnswer *self);
SNODO_AVAILABLE_IN_ALL
void         snodo_answer_unref            (SnodoAnswer *self);

SNODO_AVAILABLE_IN_ALL
GBytes     *snodo_answer_get_bytes         (SnodoAnswer *self);
SNODO_AVAILABLE_IN_ALL
const char *snodo_answer_get_line          (SnodoAnswer *self);
SNODO_AVAILABLE_IN_ALL
JsonNode   *snodo_answer_get_id            (SnodoAnswer *self);
SNODO_AVAILABLE_IN_ALL
gboolean    snodo_answer_is_error          (SnodoAnswer *self);
SNODO_AVAILABLE_IN_ALL
gint64      snodo_answer_get_error_code    (SnodoAnswer *self);
SNODO_AVAILABLE_IN_ALL
JsonNode   *snodo_answer_get_tree          (SnodoAnswer *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoAnswer, snodo_answer_unref)

G_END_DECLS
