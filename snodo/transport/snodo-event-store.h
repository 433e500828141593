/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_EVENT_STORE (snodo_event_store_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_INTERFACE (SnodoEventStore, snodo_event_store, SNODO, EVENT_STORE, GObject)

/**
 * SnodoEventReplayFunc:
 * @event_id: the id of the event
 * @message: the message of the event, one JSON-RPC message
 * @user_data: the data given to [method@Snodo.EventStore.replay_after]
 *
 * Called by [method@Snodo.EventStore.replay_after] for each event after the
 * one named, oldest first.
 *
 * Since: 0.1
 */
typedef void (*SnodoEventReplayFunc) (const char *event_id,
                                      GBytes     *message,
                                      gpointer    user_data);

/**
 * SnodoEventStoreInterface:
 * @store_event: keeps @message as the next event of @stream_id and returns
 *   its new id, unique in the store; an empty @message is a marker that
 *   is never replayed
 * @get_stream_id: the stream an event id belongs to, or %NULL if the store
 *   does not know it (never did, or dropped it)
 * @replay_after: calls @func for each event of the stream of @event_id
 *   stored after it, oldest first; %FALSE if the store does not know
 *   @event_id
 * @forget_stream: drops the events of @stream_id (its session ended, or
 *   the stream is older than the session keeps)
 *
 * The virtual functions of [iface@Snodo.EventStore]. They are called on
 * the transport's context and must not block for long.
 *
 * Since: 0.1
 */
struct _SnodoEventStoreInterface
{
  GTypeInterface g_iface;

  char     *(*store_event)   (SnodoEventStore      *self,
                              const char           *stream_id,
                              GBytes               *message);
  char     *(*get_stream_id) (SnodoEventStore      *self,
                              const char           *event_id);
  gboolean  (*replay_after)  (SnodoEventStore      *self,
                              const char           *event_id,
                              SnodoEventReplayFunc  func,
                              gpointer              user_data);
  void      (*forget_stream) (SnodoEventStore      *self,
                              const char           *stream_id);
};

SNODO_AVAILABLE_IN_ALL
char     *snodo_event_store_store_event   (SnodoEventStore      *self,
                                           const char           *stream_id,
                                           GBytes               *message);
SNODO_AVAILABLE_IN_ALL
char     *snodo_event_store_get_stream_id (SnodoEventStore      *self,
                                           const char           *event_id);
SNODO_AVAILABLE_IN_ALL
gboolean  snodo_event_store_replay_after  (SnodoEventStore      *self,
                                           const char           *event_id,
                                           SnodoEventReplayFunc  func,
                                           gpointer              user_data);
SNODO_AVAILABLE_IN_ALL
void      snodo_event_store_forget_stream (SnodoEventStore      *self,
                                           const char           *stream_id);

#define SNODO_TYPE_MEMORY_EVENT_STORE (snodo_memory_event_store_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoMemoryEventStore, snodo_memory_event_store, SNODO, MEMORY_EVENT_STORE, GObject)

SNODO_AVAILABLE_IN_ALL
SnodoMemoryEventStore *snodo_memory_event_store_new           (void);
SNODO_AVAILABLE_IN_ALL
guint                  snodo_memory_event_store_get_max_events (SnodoMemoryEventStore *self);
SNODO_AVAILABLE_IN_ALL
void                   snodo_memory_event_store_set_max_events (SnodoMemoryEventStore *self,
                                                                guint                  max_events);
SNODO_AVAILABLE_IN_ALL
guint64                snodo_memory_event_store_get_max_bytes  (SnodoMemoryEventStore *self);
SNODO_AVAILABLE_IN_ALL
void                   snodo_memory_event_store_set_max_bytes  (SnodoMemoryEventStore *self,
                                                                guint64                max_bytes);
SNODO_AVAILABLE_IN_ALL
guint                  snodo_memory_event_store_get_n_events   (SnodoMemoryEventStore *self);

G_END_DECLS
