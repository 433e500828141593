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

#define SNODO_TYPE_REDIS_BUS (snodo_redis_bus_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoRedisBus, snodo_redis_bus, SNODO, REDIS_BUS, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoRedisBus *snodo_redis_bus_new           (const char     *url,
                                              const char     *channel,
                                              GError        **error);
SNODO_AVAILABLE_IN_ALL
const char    *snodo_redis_bus_get_url       (SnodoRedisBus  *self);
SNODO_AVAILABLE_IN_ALL
const char    *snodo_redis_bus_get_channel   (SnodoRedisBus  *self);
SNODO_AVAILABLE_IN_ALL
gboolean       snodo_redis_bus_get_connected (SnodoRedisBus  *self);
SNODO_AVAILABLE_IN_ALL
guint64        snodo_redis_bus_get_n_dropped (SnodoRedisBus  *self);

G_END_DECLS
