/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-bus.h"

/**
 * SnodoBus:
 *
 * Carries the announcements of changes (a list of tools, prompts or
 * resources changed, a resource was updated) between the servers that
 * serve the same clients: several instances behind a load balancer, or
 * several [class@Snodo.Server]s in one process.
 *
 * A server given a bus with [method@Snodo.Server.set_bus] publishes every
 * change on it instead of announcing it at once, and announces what the
 * bus delivers to its own clients (2025 clients that initialized, 2026-07-28
 * `subscriptions/listen` streams). A server without a bus announces its
 * changes to its own clients only.
 *
 * An implementation publishes with its
 * [vfunc@Snodo.Bus.publish] and calls [method@Snodo.Bus.deliver] for each
 * message, which emits [signal@Snodo.Bus::message]. Its contract:
 *
 * - every message published is delivered at most once to each subscriber,
 *   in every process that shares the bus, the publishing one included;
 * - messages are delivered on the main context that was the thread-default
 *   one when the bus was made, which must be the servers' main context;
 * - delivery is best effort: a message published while the bus cannot
 *   reach its peers may be lost, and the bus never queues without bound.
 *
 * [class@Snodo.LocalBus] delivers within the process;
 * [class@Snodo.RedisBus] (built with `-Dredis=enabled`) through Redis
 * publish/subscribe.
 *
 * Since: 0.1
 */

G_DEFINE_INTERFACE (SnodoBus, snodo_bus, G_TYPE_OBJECT)

enum {
  MESSAGE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
snodo_bus_default_init (SnodoBusInterface *iface)
{
  /**
   * SnodoBus::message:
   * @self: the bus
   * @message: the bytes that were published
   *
   * A message published on the bus, by this process or another, reached
   * this process. Emitted once per message, on the bus's main context.
   *
   * Since: 0.1
   */
  signals[MESSAGE] =
    g_signal_new ("message",
                  G_TYPE_FROM_INTERFACE (iface),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_BYTES);
}

/**
 * snodo_bus_publish:
 * @self: a bus
 * @message: the bytes to send
 *
 * Sends @message to every subscriber of the bus: those of this process
 * (through [signal@Snodo.Bus::message], perhaps before this returns) and
 * those of every other process that shares the bus. Best effort: see
 * [iface@Snodo.Bus]. Call it on the bus's main context.
 *
 * Since: 0.1
 */
void
snodo_bus_publish (SnodoBus *self,
                   GBytes   *message)
{
  SnodoBusInterface *iface;

  g_return_if_fail (SNODO_IS_BUS (self));
  g_return_if_fail (message != NULL);

  iface = SNODO_BUS_GET_IFACE (self);
  g_return_if_fail (iface->publish != NULL);
  iface->publish (self, message);
}

/**
 * snodo_bus_deliver:
 * @self: a bus
 * @message: the bytes that arrived
 *
 * For implementations: emits [signal@Snodo.Bus::message] for @message, a
 * message published on the bus. Call it once per message and subscriber
 * process, on the bus's main context.
 *
 * Since: 0.1
 */
void
snodo_bus_deliver (SnodoBus *self,
                   GBytes   *message)
{
  g_return_if_fail (SNODO_IS_BUS (self));
  g_return_if_fail (message != NULL);

  g_signal_emit (self, signals[MESSAGE], 0, message);
}
