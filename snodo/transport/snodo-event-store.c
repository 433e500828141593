/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Where the HTTP transport keeps the events of resumable streams
 * (SnodoEventStore), and the store it uses unless given another: in
 * memory, bounded in events and bytes (SnodoMemoryEventStore). */

#include "config.h"

#include <string.h>

#include "snodo-event-store.h"

/**
 * SnodoEventStore:
 *
 * Keeps the events a [class@Snodo.HttpTransport] sent on resumable
 * streams, so that a client that lost its connection can come back with
 * the `Last-Event-ID` of the last event it saw and get the ones it missed
 * (the resumability of Streamable HTTP, 2025-06-18 and 2025-11-25).
 *
 * Each event is a JSON-RPC message of one stream, with an id the store
 * makes. The transport stores every event of a session's GET stream, and
 * of the event stream answering each of its requests, before it writes it
 * (whether a connection is open or not), asks the store which stream an
 * id belongs to, and replays what followed it on that stream. Stream ids
 * start with the session's id.
 *
 * [class@Snodo.MemoryEventStore] is the transport's default. Another
 * implementation (a database shared by several instances) implements the
 * four functions of [struct@Snodo.EventStoreInterface]; they are called on
 * the transport's context and should answer quickly, since the transport
 * waits for them.
 *
 * Since: 0.1
 */

G_DEFINE_INTERFACE (SnodoEventStore, snodo_event_store, G_TYPE_OBJECT)

static void
snodo_event_store_default_init (SnodoEventStoreInterface *iface)
{
}

/**
 * snodo_event_store_store_event: (virtual store_event)
 * @self: a store
 * @stream_id: the stream the event belongs to
 * @message: the JSON-RPC message, or an empty one for a marker that is
 *   never replayed
 *
 * Keeps @message as the newest event of @stream_id.
 *
 * Returns: (transfer full): the id of the new event, unique in the store
 *
 * Since: 0.1
 */
char *
snodo_event_store_store_event (SnodoEventStore *self,
                               const char      *stream_id,
                               GBytes          *message)
{
  g_return_val_if_fail (SNODO_IS_EVENT_STORE (self), NULL);
  g_return_val_if_fail (stream_id != NULL, NULL);
  g_return_val_if_fail (message != NULL, NULL);

  return SNODO_EVENT_STORE_GET_IFACE (self)->store_event (self, stream_id, message);
}

/**
 * snodo_event_store_get_stream_id: (virtual get_stream_id)
 * @self: a store
 * @event_id: an event id
 *
 * Finds the stream of an event.
 *
 * Returns: (transfer full) (nullable): the stream of @event_id, or %NULL
 *   if the store does not know it
 *
 * Since: 0.1
 */
char *
snodo_event_store_get_stream_id (SnodoEventStore *self,
                                 const char      *event_id)
{
  g_return_val_if_fail (SNODO_IS_EVENT_STORE (self), NULL);
  g_return_val_if_fail (event_id != NULL, NULL);

  return SNODO_EVENT_STORE_GET_IFACE (self)->get_stream_id (self, event_id);
}

/**
 * snodo_event_store_replay_after: (virtual replay_after)
 * @self: a store
 * @event_id: the last event the client saw
 * @func: (scope call) (closure user_data): called for each event after it
 * @user_data: data for @func
 *
 * Calls @func for each event of the stream of @event_id that was stored
 * after it, oldest first, markers left out.
 *
 * Returns: %FALSE if the store does not know @event_id (then @func is
 *   not called)
 *
 * Since: 0.1
 */
gboolean
snodo_event_store_replay_after (SnodoEventStore      *self,
                                const char           *event_id,
                                SnodoEventReplayFunc  func,
                                gpointer              user_data)
{
  g_return_val_if_fail (SNODO_IS_EVENT_STORE (self), FALSE);
  g_return_val_if_fail (event_id != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  return SNODO_EVENT_STORE_GET_IFACE (self)->replay_after (self, event_id, func, user_data);
}

/**
 * snodo_event_store_forget_stream: (virtual forget_stream)
 * @self: a store
 * @stream_id: a stream
 *
 * Drops the events of @stream_id: its session has ended, or the stream
 * answered a request older than the session keeps the streams of.
 *
 * Since: 0.1
 */
void
snodo_event_store_forget_stream (SnodoEventStore *self,
                                 const char      *stream_id)
{
  g_return_if_fail (SNODO_IS_EVENT_STORE (self));
  g_return_if_fail (stream_id != NULL);

  SNODO_EVENT_STORE_GET_IFACE (self)->forget_stream (self, stream_id);
}

/* ---- In memory ------------------------------------------------------------ */

/* What one event costs beyond its message and stream id: the record, its
 * id, the queue link and the hash table entry. */
#define EVENT_OVERHEAD 128

typedef struct
{
  char   *id;
  char   *stream_id;
  GBytes *message;
  gsize   cost;
} Event;

/**
 * SnodoMemoryEventStore:
 *
 * An [iface@Snodo.EventStore] in the process's memory, bounded: it keeps
 * at most [property@Snodo.MemoryEventStore:max-events] events and
 * [property@Snodo.MemoryEventStore:max-bytes] bytes over all streams, and
 * drops the oldest events first when more come. A client that comes back
 * after its last event was dropped gets a new stream without what it
 * missed. Event ids are decimal numbers, increasing over the store.
 *
 * It serves one process: instances behind a load balancer need a shared
 * store, or session affinity (which 2025 sessions need anyway).
 *
 * Since: 0.1
 */
struct _SnodoMemoryEventStore
{
  GObject     parent_instance;

  /* Event, oldest first (owned). */
  GQueue      events;
  /* id -> its GList link in events (borrowed keys). */
  GHashTable *by_id;
  guint64     next_id;
  guint64     bytes;
  guint       max_events;
  guint64     max_bytes;
};

static void snodo_memory_event_store_iface_init (SnodoEventStoreInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoMemoryEventStore, snodo_memory_event_store, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (SNODO_TYPE_EVENT_STORE, snodo_memory_event_store_iface_init))

enum {
  PROP_0,
  PROP_MAX_EVENTS,
  PROP_MAX_BYTES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
event_free (Event *event)
{
  g_free (event->id);
  g_free (event->stream_id);
  g_bytes_unref (event->message);
  g_free (event);
}

static void
memory_drop_link (SnodoMemoryEventStore *self,
                  GList                 *link)
{
  Event *event = link->data;

  g_hash_table_remove (self->by_id, event->id);
  g_queue_delete_link (&self->events, link);
  self->bytes -= event->cost;
  event_free (event);
}

/* Drops the oldest events until the store is within its bounds. */
static void
memory_trim (SnodoMemoryEventStore *self)
{
  while (self->events.head != NULL &&
         (self->events.length > self->max_events || self->bytes > self->max_bytes))
    memory_drop_link (self, self->events.head);
}

static char *
memory_store_event (SnodoEventStore *store,
                    const char      *stream_id,
                    GBytes          *message)
{
  SnodoMemoryEventStore *self = SNODO_MEMORY_EVENT_STORE (store);
  Event *event = g_new0 (Event, 1);

  event->id = g_strdup_printf ("%" G_GUINT64_FORMAT, ++self->next_id);
  event->stream_id = g_strdup (stream_id);
  event->message = g_bytes_ref (message);
  event->cost = g_bytes_get_size (message) + strlen (stream_id) + EVENT_OVERHEAD;
  g_queue_push_tail (&self->events, event);
  g_hash_table_insert (self->by_id, event->id, self->events.tail);
  self->bytes += event->cost;
  memory_trim (self);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, self->next_id);
}

static char *
memory_get_stream_id (SnodoEventStore *store,
                      const char      *event_id)
{
  SnodoMemoryEventStore *self = SNODO_MEMORY_EVENT_STORE (store);
  GList *link = g_hash_table_lookup (self->by_id, event_id);

  return link != NULL ? g_strdup (((Event *) link->data)->stream_id) : NULL;
}

static gboolean
memory_replay_after (SnodoEventStore      *store,
                     const char           *event_id,
                     SnodoEventReplayFunc  func,
                     gpointer              user_data)
{
  SnodoMemoryEventStore *self = SNODO_MEMORY_EVENT_STORE (store);
  GList *link = g_hash_table_lookup (self->by_id, event_id);
  g_autoptr(GPtrArray) ids = NULL;
  g_autoptr(GPtrArray) messages = NULL;
  const char *stream_id;

  if (link == NULL)
    return FALSE;
  /* Gathered first: @func may store events. */
  ids = g_ptr_array_new_with_free_func (g_free);
  messages = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  stream_id = ((Event *) link->data)->stream_id;
  for (GList *l = link->next; l != NULL; l = l->next)
    {
      Event *event = l->data;

      if (g_bytes_get_size (event->message) == 0 || !g_str_equal (event->stream_id, stream_id))
        continue;
      g_ptr_array_add (ids, g_strdup (event->id));
      g_ptr_array_add (messages, g_bytes_ref (event->message));
    }
  for (guint i = 0; i < ids->len; i++)
    func (g_ptr_array_index (ids, i), g_ptr_array_index (messages, i), user_data);
  return TRUE;
}

static void
memory_forget_stream (SnodoEventStore *store,
                      const char      *stream_id)
{
  SnodoMemoryEventStore *self = SNODO_MEMORY_EVENT_STORE (store);
  GList *link = self->events.head;

  while (link != NULL)
    {
      GList *next = link->next;

      if (g_str_equal (((Event *) link->data)->stream_id, stream_id))
        memory_drop_link (self, link);
      link = next;
    }
}

static void
snodo_memory_event_store_iface_init (SnodoEventStoreInterface *iface)
{
  iface->store_event = memory_store_event;
  iface->get_stream_id = memory_get_stream_id;
  iface->replay_after = memory_replay_after;
  iface->forget_stream = memory_forget_stream;
}

static void
snodo_memory_event_store_finalize (GObject *object)
{
  SnodoMemoryEventStore *self = SNODO_MEMORY_EVENT_STORE (object);

  g_hash_table_unref (self->by_id);
  g_queue_clear_full (&self->events, (GDestroyNotify) event_free);

  G_OBJECT_CLASS (snodo_memory_event_store_parent_class)->finalize (object);
}

static void
snodo_memory_event_store_get_property (GObject    *object,
                                       guint       prop_id,
                                       GValue     *value,
                                       GParamSpec *pspec)
{
  SnodoMemoryEventStore *self = SNODO_MEMORY_EVENT_STORE (object);

  switch (prop_id)
    {
    case PROP_MAX_EVENTS:
      g_value_set_uint (value, self->max_events);
      break;

    case PROP_MAX_BYTES:
      g_value_set_uint64 (value, self->max_bytes);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_memory_event_store_set_property (GObject      *object,
                                       guint         prop_id,
                                       const GValue *value,
                                       GParamSpec   *pspec)
{
  SnodoMemoryEventStore *self = SNODO_MEMORY_EVENT_STORE (object);

  switch (prop_id)
    {
    case PROP_MAX_EVENTS:
      snodo_memory_event_store_set_max_events (self, g_value_get_uint (value));
      break;

    case PROP_MAX_BYTES:
      snodo_memory_event_store_set_max_bytes (self, g_value_get_uint64 (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_memory_event_store_class_init (SnodoMemoryEventStoreClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_memory_event_store_finalize;
  object_class->get_property = snodo_memory_event_store_get_property;
  object_class->set_property = snodo_memory_event_store_set_property;

  /**
   * SnodoMemoryEventStore:max-events: (getter get_max_events) (setter set_max_events)
   *
   * The most events kept, over all streams; the oldest go first. At
   * least 1; the default is 1024.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_EVENTS] =
    g_param_spec_uint ("max-events", NULL, NULL,
                       1, G_MAXUINT, 1024,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoMemoryEventStore:max-bytes: (getter get_max_bytes) (setter set_max_bytes)
   *
   * The most bytes the kept events may take, over all streams: their
   * messages, stream ids and 128 bytes of bookkeeping each; the oldest go
   * first. The default is 8 MiB.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_BYTES] =
    g_param_spec_uint64 ("max-bytes", NULL, NULL,
                         0, G_MAXUINT64, 8 * 1024 * 1024,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_memory_event_store_init (SnodoMemoryEventStore *self)
{
  g_queue_init (&self->events);
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
}

/**
 * snodo_memory_event_store_new:
 *
 * Makes an empty store with the default bounds.
 *
 * Returns: (transfer full): a new store
 *
 * Since: 0.1
 */
SnodoMemoryEventStore *
snodo_memory_event_store_new (void)
{
  return g_object_new (SNODO_TYPE_MEMORY_EVENT_STORE, NULL);
}

/**
 * snodo_memory_event_store_get_max_events:
 * @self: a store
 *
 * Gets the most events kept.
 *
 * Returns: the limit
 *
 * Since: 0.1
 */
guint
snodo_memory_event_store_get_max_events (SnodoMemoryEventStore *self)
{
  g_return_val_if_fail (SNODO_IS_MEMORY_EVENT_STORE (self), 0);
  return self->max_events;
}

/**
 * snodo_memory_event_store_set_max_events:
 * @self: a store
 * @max_events: the limit, at least 1
 *
 * Sets the most events kept; see
 * [property@Snodo.MemoryEventStore:max-events].
 *
 * Since: 0.1
 */
void
snodo_memory_event_store_set_max_events (SnodoMemoryEventStore *self,
                                         guint                  max_events)
{
  g_return_if_fail (SNODO_IS_MEMORY_EVENT_STORE (self));
  g_return_if_fail (max_events >= 1);

  if (self->max_events == max_events)
    return;
  self->max_events = max_events;
  memory_trim (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_EVENTS]);
}

/**
 * snodo_memory_event_store_get_max_bytes:
 * @self: a store
 *
 * Gets the most bytes the kept events may take.
 *
 * Returns: the limit
 *
 * Since: 0.1
 */
guint64
snodo_memory_event_store_get_max_bytes (SnodoMemoryEventStore *self)
{
  g_return_val_if_fail (SNODO_IS_MEMORY_EVENT_STORE (self), 0);
  return self->max_bytes;
}

/**
 * snodo_memory_event_store_set_max_bytes:
 * @self: a store
 * @max_bytes: the limit
 *
 * Sets the most bytes the kept events may take; see
 * [property@Snodo.MemoryEventStore:max-bytes].
 *
 * Since: 0.1
 */
void
snodo_memory_event_store_set_max_bytes (SnodoMemoryEventStore *self,
                                        guint64                max_bytes)
{
  g_return_if_fail (SNODO_IS_MEMORY_EVENT_STORE (self));

  if (self->max_bytes == max_bytes)
    return;
  self->max_bytes = max_bytes;
  memory_trim (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_BYTES]);
}

/**
 * snodo_memory_event_store_get_n_events:
 * @self: a store
 *
 * Gets how many events the store holds now.
 *
 * Returns: the number of events
 *
 * Since: 0.1
 */
guint
snodo_memory_event_store_get_n_events (SnodoMemoryEventStore *self)
{
  g_return_val_if_fail (SNODO_IS_MEMORY_EVENT_STORE (self), 0);
  return self->events.length;
}
