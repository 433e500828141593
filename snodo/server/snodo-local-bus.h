/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-bus.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_LOCAL_BUS (snodo_local_bus_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoLocalBus, snodo_local_bus, SNODO, LOCAL_BUS, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoLocalBus *snodo_local_bus_new (void);

G_END_DECLS
