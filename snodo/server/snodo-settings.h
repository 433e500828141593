/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-server.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

/**
 * SnodoSettingsFlags:
 * @SNODO_SETTINGS_FLAGS_NONE: the keys are resources only: clients read
 *   them and subscribe to them
 * @SNODO_SETTINGS_FLAGS_WRITABLE: each key is also a tool that sets it
 *
 * How [method@Snodo.Server.add_settings] offers a `GSettings`.
 *
 * Since: 0.1
 */
typedef enum /*< flags >*/
{
  SNODO_SETTINGS_FLAGS_NONE     = 0,
  SNODO_SETTINGS_FLAGS_WRITABLE = 1 << 0,
} SnodoSettingsFlags;

SNODO_AVAILABLE_IN_ALL
gboolean snodo_server_add_settings (SnodoServer         *self,
                                    GSettings           *settings,
                                    const char * const  *keys,
                                    SnodoSettingsFlags   flags,
                                    GError             **error);

G_END_DECLS
