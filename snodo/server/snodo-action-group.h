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

SNODO_AVAILABLE_IN_ALL
gboolean snodo_server_add_action_group (SnodoServer         *self,
                                        GActionGroup        *group,
                                        const char          *prefix,
                                        const char * const  *allowed,
                                        GVariant            *hints,
                                        GMenuModel          *menu,
                                        GError             **error);

G_END_DECLS
