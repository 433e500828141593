/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <snodo/snodo.h>

/* --task-store: serves tasks, kept in @store_kind ("memory" or "file"),
 * and adds the tool job. */
gboolean demo_add_tasks (SnodoServer  *server,
                         const char   *store_kind,
                         GError      **error);
