/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-answer.h"

G_BEGIN_DECLS

/* A view of @line (a JSON-RPC answer Snodo encoded, newline included) to
 * the request whose id is @id (nullable: then read from the line when
 * asked for). */
SnodoAnswer *snodo_answer_new (GBytes   *line,
                               JsonNode *id);

G_END_DECLS
