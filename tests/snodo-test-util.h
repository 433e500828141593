/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <snodo/snodo.h>

G_BEGIN_DECLS

/* Parses @json strictly with json-glib, aborting the test on error. */
JsonNode *snodo_test_parse (const char *json);

/* Compares two JSON documents structurally (member order does not matter;
 * integer 1 and double 1.0 are equal). */
gboolean  snodo_test_json_equal (JsonNode *a,
                                 JsonNode *b);

/* Iterates the thread-default main context until *flag is TRUE or
 * @timeout_ms passed; returns *flag. */
gboolean  snodo_test_wait_for (const gboolean *flag,
                               guint           timeout_ms);

G_END_DECLS
