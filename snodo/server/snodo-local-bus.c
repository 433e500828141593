/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-local-bus.h"

/**
 * SnodoLocalBus:
 *
 * A [iface@Snodo.Bus] within one process: what is published is delivered
 * at once, before [method@Snodo.Bus.publish] returns, to the servers that
 * share the bus. Give one to several [class@Snodo.Server]s that serve the
 * same clients (on several transports, say) so that a change made on one
 * reaches the clients of all.
 *
 * Since: 0.1
 */

struct _SnodoLocalBus
{
  GObject parent_instance;
};

static void snodo_local_bus_iface_init (SnodoBusInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoLocalBus, snodo_local_bus, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_BUS, snodo_local_bus_iface_init))

static void
snodo_local_bus_publish (SnodoBus *bus,
                         GBytes   *message)
{
  snodo_bus_deliver (bus, message);
}

static void
snodo_local_bus_iface_init (SnodoBusInterface *iface)
{
  iface->publish = snodo_local_bus_publish;
}

static void
snodo_local_bus_class_init (SnodoLocalBusClass *klass)
{
}

static void
snodo_local_bus_init (SnodoLocalBus *self)
{
}

/**
 * snodo_local_bus_new:
 *
 * Makes a bus that delivers within this process.
 *
 * Returns: (transfer full): a new [class@Snodo.LocalBus]
 *
 * Since: 0.1
 */
SnodoLocalBus *
snodo_local_bus_new (void)
{
  return g_object_new (SNODO_TYPE_LOCAL_BUS, NULL);
}
