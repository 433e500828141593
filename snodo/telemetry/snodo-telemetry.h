/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <glib.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

SNODO_AVAILABLE_IN_ALL
gboolean snodo_telemetry_is_enabled (void);
SNODO_AVAILABLE_IN_ALL
void     snodo_telemetry_flush      (guint timeout_ms);

G_END_DECLS
