/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Resumable GET streams of sessions (2025-06-18, 2025-11-25): every event
 * of a session's GET stream goes to the transport's event store first and
 * carries the id the store gave it; a client that comes back with
 * Last-Event-ID gets what followed; a 2025-11-25 stream starts with a
 * priming event (an id, empty data, a retry field), after which the
 * transport may close the connection at will (SEP-1699): after
 * get-stream-lifetime seconds. The POST streams of requests are not
 * resumable: they carry no ids, so clients do not try to resume them.
 * snodo-http-transport-private.h says which file holds what. */

#include "config.h"

#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-event-store.h"
#include "snodo-http-rules-private.h"
#include "snodo-http-transport.h"
#include "snodo-http-transport-private.h"

enum {
  RESUME_PROP_EVENT_STORE,
  RESUME_PROP_STREAM_RETRY,
  RESUME_PROP_GET_STREAM_LIFETIME,
  RESUME_N_PROPS
};

static guint resume_first_id;

void
snodo_http_transport_install_resume_properties (GObjectClass *klass,
                                                guint         first_id)
{
  resume_first_id = first_id;

  /**
   * SnodoHttpTransport:event-store: (getter get_event_store) (setter set_event_store)
   *
   * Where the events of sessions' GET streams are kept, so that a client
   * of the initialize era that lost its stream can open it again with
   * `Last-Event-ID` and get the events it missed (events sent while no
   * stream was open included). Every such event carries an SSE `id`. By
   * default a [class@Snodo.MemoryEventStore] of the transport's own
   * (1024 events, 8 MiB); %NULL turns resumability off. The streams of
   * POST requests are never resumable. Set it before listening.
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + RESUME_PROP_EVENT_STORE,
    g_param_spec_object ("event-store", NULL, NULL, SNODO_TYPE_EVENT_STORE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoHttpTransport:stream-retry: (getter get_stream_retry) (setter set_stream_retry)
   *
   * The SSE `retry` field (milliseconds) of the priming event that starts
   * a 2025-11-25 session's GET stream when the transport has an
   * [property@Snodo.HttpTransport:event-store]: how long a client waits
   * before it comes back after the transport closed the stream. 0 sends
   * none. The default is 1000.
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + RESUME_PROP_STREAM_RETRY,
    g_param_spec_uint ("stream-retry", NULL, NULL, 0, G_MAXINT32, 1000,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));

  /**
   * SnodoHttpTransport:get-stream-lifetime: (getter get_get_stream_lifetime) (setter set_get_stream_lifetime)
   *
   * How many seconds a 2025-11-25 session's GET stream stays open before
   * the transport closes it, when the transport has an
   * [property@Snodo.HttpTransport:event-store] (SEP-1699: the client
   * comes back after the priming event's `retry` with `Last-Event-ID` and
   * misses nothing). This bounds how long a connection is held by one
   * stream, for proxies that cut long responses. 0 (the default) keeps
   * streams open until the client leaves.
   *
   * Since: 0.1
   */
  g_object_class_install_property (klass, first_id + RESUME_PROP_GET_STREAM_LIFETIME,
    g_param_spec_uint ("get-stream-lifetime", NULL, NULL, 0, G_MAXUINT / 1000, 0,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
}

gboolean
snodo_http_transport_resume_get_property (SnodoHttpTransport *self,
                                          guint               id,
                                          GValue             *value)
{
  switch (id - resume_first_id)
    {
    case RESUME_PROP_EVENT_STORE:
      g_value_set_object (value, self->event_store);
      return TRUE;

    case RESUME_PROP_STREAM_RETRY:
      g_value_set_uint (value, self->stream_retry);
      return TRUE;

    case RESUME_PROP_GET_STREAM_LIFETIME:
      g_value_set_uint (value, self->get_stream_lifetime);
      return TRUE;

    default:
      return FALSE;
    }
}

gboolean
snodo_http_transport_resume_set_property (SnodoHttpTransport *self,
                                          guint               id,
                                          const GValue       *value)
{
  switch (id - resume_first_id)
    {
    case RESUME_PROP_EVENT_STORE:
      snodo_http_transport_set_event_store (self, g_value_get_object (value));
      return TRUE;

    case RESUME_PROP_STREAM_RETRY:
      snodo_http_transport_set_stream_retry (self, g_value_get_uint (value));
      return TRUE;

    case RESUME_PROP_GET_STREAM_LIFETIME:
      snodo_http_transport_set_get_stream_lifetime (self, g_value_get_uint (value));
      return TRUE;

    default:
      return FALSE;
    }
}

/**
 * snodo_http_transport_get_event_store:
 * @self: a transport
 *
 * Gets where the events of sessions' GET streams are kept.
 *
 * Returns: (transfer none) (nullable): the store, or %NULL if GET streams
 *   are not resumable
 *
 * Since: 0.1
 */
SnodoEventStore *
snodo_http_transport_get_event_store (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return self->event_store;
}

/**
 * snodo_http_transport_set_event_store:
 * @self: a transport
 * @store: (nullable): the store, or %NULL for no resumability
 *
 * Sets where the events of sessions' GET streams are kept; see
 * [property@Snodo.HttpTransport:event-store].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_event_store (SnodoHttpTransport *self,
                                      SnodoEventStore    *store)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (store == NULL || SNODO_IS_EVENT_STORE (store));

  if (g_set_object (&self->event_store, store))
    g_object_notify (G_OBJECT (self), "event-store");
}

/**
 * snodo_http_transport_get_stream_retry:
 * @self: a transport
 *
 * Gets the `retry` field of priming events.
 *
 * Returns: milliseconds, or 0 for none
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_stream_retry (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->stream_retry;
}

/**
 * snodo_http_transport_set_stream_retry:
 * @self: a transport
 * @stream_retry: milliseconds, or 0 for none
 *
 * Sets the `retry` field of priming events; see
 * [property@Snodo.HttpTransport:stream-retry].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_stream_retry (SnodoHttpTransport *self,
                                       guint               stream_retry)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (stream_retry <= G_MAXINT32);

  if (self->stream_retry == stream_retry)
    return;
  self->stream_retry = stream_retry;
  g_object_notify (G_OBJECT (self), "stream-retry");
}

/**
 * snodo_http_transport_get_get_stream_lifetime:
 * @self: a transport
 *
 * Gets how long a resumable GET stream stays open.
 *
 * Returns: seconds, or 0 for as long as the client stays
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_get_stream_lifetime (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->get_stream_lifetime;
}

/**
 * snodo_http_transport_set_get_stream_lifetime:
 * @self: a transport
 * @get_stream_lifetime: seconds, or 0 for as long as the client stays
 *
 * Sets how long a resumable GET stream stays open; see
 * [property@Snodo.HttpTransport:get-stream-lifetime]. Applies to streams
 * opened later.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_get_stream_lifetime (SnodoHttpTransport *self,
                                              guint               get_stream_lifetime)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (get_stream_lifetime <= G_MAXUINT / 1000);

  if (self->get_stream_lifetime == get_stream_lifetime)
    return;
  self->get_stream_lifetime = get_stream_lifetime;
  g_object_notify (G_OBJECT (self), "get-stream-lifetime");
}

/* ---- The streams ------------------------------------------------------------ */

/* The id of @peer's GET stream in the event store. */
static char *
peer_stream_id (Peer *peer)
{
  return g_strconcat (peer->session_id, "/get", NULL);
}

/* A line for @peer's GET stream (an announcement, or a request to the
 * client whose POST is gone): kept in the store, then written if the
 * stream is open. FALSE when the GET stream is not resumable (the caller
 * sends it as before). Takes @line when it returns TRUE. */
gboolean
snodo_http_resume_send (Peer          *peer,
                        const char    *related,
                        GBytes        *line,
                        SnodoSendFunc  func,
                        gpointer       user_data)
{
  SnodoHttpTransport *self = peer->transport;
  g_autofree char *stream_id = NULL;
  g_autofree char *event_id = NULL;

  if (self->event_store == NULL || peer->session_id == NULL)
    return FALSE;
  /* What belongs to a request whose POST is gone (a request to the client,
   * its progress) is not kept while no stream is open: it fails at once,
   * as it would without resumability. */
  if (peer->standalone == NULL && related != NULL)
    return FALSE;
  stream_id = peer_stream_id (peer);
  event_id = snodo_event_store_store_event (self->event_store, stream_id, line);
  if (peer->standalone != NULL)
    {
      snodo_http_exchange_send_event (peer->standalone, event_id, line, func, user_data);
      return TRUE;
    }
  /* Kept for the client's return: as good as written. */
  snodo_http_send_fail_later (self->context, func, user_data, NULL);
  g_bytes_unref (line);
  return TRUE;
}

/* Before a GET stream opens: a Last-Event-ID must name an event of this
 * session's stream (else 400, and FALSE). An id the store no longer knows
 * opens the stream without replay. */
gboolean
snodo_http_resume_check (Peer               *peer,
                         SoupServerMessage  *msg,
                         char              **last_event_id)
{
  SnodoHttpTransport *self = peer->transport;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *given = snodo_http_get_request_header (headers, "Last-Event-ID");
  g_autofree char *stream_id = NULL;
  g_autofree char *ours = NULL;

  *last_event_id = NULL;
  if (self->event_store == NULL || given == NULL)
    return TRUE;
  if (given == SNODO_HTTP_HEADER_REPEATED)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Bad request: the Last-Event-ID header is given more than once"));
      return FALSE;
    }
  stream_id = snodo_event_store_get_stream_id (self->event_store, given);
  if (stream_id == NULL)
    {
      g_debug ("Last-Event-ID %s is not kept any more; the stream starts afresh", given);
      return TRUE;
    }
  ours = peer_stream_id (peer);
  if (!g_str_equal (stream_id, ours))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Bad request: the Last-Event-ID is not an event of this session’s stream"));
      return FALSE;
    }
  *last_event_id = g_strdup (given);
  return TRUE;
}

static void
replay_cb (const char *event_id,
           GBytes     *message,
           gpointer    user_data)
{
  Peer *peer = user_data;

  snodo_http_exchange_send_event (peer->standalone, event_id, g_bytes_ref (message), NULL, NULL);
}

static gboolean
lifetime_cb (gpointer user_data)
{
  Exchange *ex = user_data;

  g_clear_pointer (&ex->lifetime_source, g_source_unref);
  g_debug ("Closing a GET stream after its lifetime; its client comes back with Last-Event-ID");
  snodo_http_exchange_end (ex, SOUP_STATUS_OK);
  return G_SOURCE_REMOVE;
}

/* The session's GET stream has opened: what the client missed after
 * @last_event_id (if not NULL), then the priming event (2025-11-25), and
 * the end of the stream after get-stream-lifetime. */
void
snodo_http_resume_begin (Peer       *peer,
                         const char *last_event_id)
{
  SnodoHttpTransport *self = peer->transport;
  Exchange *ex = peer->standalone;
  g_autofree char *stream_id = NULL;
  g_autofree char *priming_id = NULL;
  g_autoptr(GBytes) empty = NULL;

  if (self->event_store == NULL || ex == NULL)
    return;
  if (last_event_id != NULL)
    snodo_event_store_replay_after (self->event_store, last_event_id, replay_cb, peer);
  if (peer->standalone != ex || g_strcmp0 (peer->protocol_version, "2025-11-25") != 0)
    return;

  stream_id = peer_stream_id (peer);
  empty = g_bytes_new_static ("", 0);
  priming_id = snodo_event_store_store_event (self->event_store, stream_id, empty);
  snodo_http_exchange_send_event (ex, priming_id, g_bytes_ref (empty), NULL, NULL);
  if (self->get_stream_lifetime > 0 && peer->standalone == ex)
    {
      ex->lifetime_source = g_timeout_source_new (self->get_stream_lifetime * 1000);
      g_source_set_static_name (ex->lifetime_source, "[snodo] http get stream lifetime");
      g_source_set_callback (ex->lifetime_source, lifetime_cb, ex, NULL);
      g_source_attach (ex->lifetime_source, self->context);
    }
}

/* The session ended: its events go. */
void
snodo_http_resume_forget (Peer *peer)
{
  g_autofree char *stream_id = NULL;

  if (peer->transport->event_store == NULL || peer->session_id == NULL)
    return;
  stream_id = peer_stream_id (peer);
  snodo_event_store_forget_stream (peer->transport->event_store, stream_id);
}
