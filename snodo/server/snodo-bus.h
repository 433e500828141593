/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_BUS (snodo_bus_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (SnodoBus, snodo_bus, SNODO, BUS, GObject)

/**
 * SnodoBusInterface:
 * @g_iface: the parent interface
 * @publish: sends a message to every subscriber of the bus, in this process
 *   and in the others that share it; see [method@Snodo.Bus.publish]
 *
 * The virtual functions of [iface@Snodo.Bus].
 *
 * Since: 0.1
 */
struct _SnodoBusInterface
{
  GTypeInterface g_iface;

  void (*publish) (SnodoBus *self,
                   GBytes   *message);

  /*< private >*/
  gpointer _reserved[8];
};

SNODO_AVAILABLE_IN_ALL
void snodo_bus_publish (SnodoBus *self,
                        GBytes   *message);
SNODO_AVAILABLE_IN_ALL
void snodo_bus_deliver (SnodoBus *self,
                        GBytes   *message);

G_END_DECLS
