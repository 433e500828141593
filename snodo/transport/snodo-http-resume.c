/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Resumable streams of sessions (2025-06-18, 2025-11-25): the session's
 * GET stream, and the stream that answers each POSTed request (its
 * progress, logs, requests to the client, then its answer). Every event
 * of such a stream goes to the transport's event store first, under the
 * stream's id there, and carries the id the store gave it; a client that
 * comes back with GET and Last-Event-ID gets what followed on that stream
 * only. A 2025-11-25 stream starts with a priming event (an id, empty
 * data, a retry field), after which the transport may close the
 * connection at will (SEP-1699): a GET stream after get-stream-lifetime,
 * a request's stream when its handler says so
 * (snodo_invocation_close_stream()). The request goes on meanwhile; what
 * it sends is kept, and goes to the GET that resumes its stream, which
 * ends after the answer as the POST would have. An answer that comes
 * first still goes as one JSON body: no stream, nothing kept.
 * snodo-http-transport-private.h says which file holds what. */

#include "config.h"

#include <string.h>

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

guint
snodo_http_transport_install_resume_properties (GObjectClass *klass,
                                                guint         first_id)
{
  resume_first_id = first_id;

  /**
   * SnodoHttpTransport:event-store: (getter get_event_store) (setter set_event_store)
   *
   * Where the events of sessions' streams are kept, so that a client of
   * the initialize era that lost a stream can come back with GET and
   * `Last-Event-ID` and get the events of that stream it missed (events
   * sent while no connection was open included): the session's GET
   * stream, and the event stream that answers a POSTed request, whose
   * resumption ends after the answer. Every such event carries an SSE
   * `id`. A session keeps the events of the streams of its last 32
   * answered requests at most; the store's own bounds may drop them
   * sooner. By default a [class@Snodo.MemoryEventStore] of the
   * transport's own (1024 events, 8 MiB); %NULL turns resumability off.
   * Set it before listening.
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
   * each stream of a 2025-11-25 session (its GET stream, and the event
   * stream answering a request) when the transport has an
   * [property@Snodo.HttpTransport:event-store]: how long a client waits
   * before it comes back after the transport closed the stream (after
   * [property@Snodo.HttpTransport:get-stream-lifetime], or
   * [method@Snodo.Invocation.close_stream]). 0 sends none. The default is
   * 1000.
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
  return first_id + RESUME_N_PROPS;
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
 * Gets where the events of sessions' streams are kept.
 *
 * Returns: (transfer none) (nullable): the store, or %NULL if streams are
 *   not resumable
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
 * Sets where the events of sessions' streams are kept; see
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

/* Whether @peer's streams start with a priming event: 2025-11-25 only,
 * whose clients know an event without data. */
static gboolean
peer_primes (Peer *peer)
{
  return g_strcmp0 (peer->protocol_version, "2025-11-25") == 0;
}

/* ---- The answers to requests -------------------------------------------------- */

/* How many streams of answered requests a session keeps the events of:
 * the oldest beyond are forgotten. A client resumes the answers it waits
 * for, which are among the newest. */
#define ANSWERED_STREAMS_KEPT 32

/* The resumable stream of a request's answer, from its first event until
 * its answer is kept. */
typedef struct
{
  /* The request's key (the key of its entry in peer->request_streams). */
  char     *key;
  /* Its id in the event store: the session's id, "/post/", a number. */
  char     *stream_id;
  /* What writes it to the client: the POST, or the GET that resumed it;
   * NULL while no connection is open for it. Borrowed: the exchange
   * clears it when it goes (snodo_http_resume_exchange_gone()). */
  Exchange *ex;
} RequestStream;

static void
request_stream_free (RequestStream *rs)
{
  g_free (rs->key);
  g_free (rs->stream_id);
  g_free (rs);
}

/* Whether @stream_id is the stream of the answer to a request of @peer
 * (answered or not). */
static gboolean
is_request_stream_of (Peer       *peer,
                      const char *stream_id)
{
  gsize len = strlen (peer->session_id);

  return strncmp (stream_id, peer->session_id, len) == 0 && g_str_has_prefix (stream_id + len, "/post/");
}

static RequestStream *
find_request_stream (Peer       *peer,
                     const char *stream_id)
{
  GHashTableIter iter;
  gpointer value;

  if (peer->request_streams == NULL)
    return NULL;
  g_hash_table_iter_init (&iter, peer->request_streams);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    if (g_str_equal (((RequestStream *) value)->stream_id, stream_id))
      return value;
  return NULL;
}

/* @ex, a POST waiting for its first line, answers with a resumable event
 * stream from now on; a 2025-11-25 one starts with its priming event. */
static RequestStream *
request_stream_open (Peer     *peer,
                     Exchange *ex)
{
  SnodoHttpTransport *self = peer->transport;
  RequestStream *rs = g_new0 (RequestStream, 1);

  rs->key = g_strdup (ex->key);
  rs->stream_id = g_strdup_printf ("%s/post/%" G_GUINT64_FORMAT, peer->session_id, ++peer->next_stream);
  rs->ex = ex;
  ex->resumable = TRUE;
  if (peer->request_streams == NULL)
    peer->request_streams = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                                   (GDestroyNotify) request_stream_free);
  g_hash_table_insert (peer->request_streams, rs->key, rs);

  if (peer_primes (peer))
    {
      g_autoptr(GBytes) empty = g_bytes_new_static ("", 0);
      g_autofree char *priming_id = snodo_event_store_store_event (self->event_store, rs->stream_id, empty);

      snodo_http_exchange_send_event (ex, priming_id, g_bytes_ref (empty), NULL, NULL);
    }
  return rs;
}

/* The connection writing @rs is let go: it ends once what it holds is
 * written, and is no business of the session any more. The request goes
 * on; its lines are kept for the client's return. */
static void
request_stream_detach (Peer          *peer,
                       RequestStream *rs)
{
  Exchange *ex = g_steal_pointer (&rs->ex);

  if (ex == NULL)
    return;
  if (g_hash_table_lookup (peer->exchanges, rs->key) == ex)
    g_hash_table_remove (peer->exchanges, rs->key);
  ex->peer = NULL;
  ex->resumable = FALSE;
  snodo_http_exchange_finish (ex);
}

/* @rs's answer is kept: the stream is complete. Its events stay for a
 * client that lost the answer, until ANSWERED_STREAMS_KEPT newer ones. */
static void
request_stream_answered (Peer          *peer,
                         RequestStream *rs)
{
  g_queue_push_tail (&peer->answered_streams, g_strdup (rs->stream_id));
  while (peer->answered_streams.length > ANSWERED_STREAMS_KEPT)
    {
      g_autofree char *old = g_queue_pop_head (&peer->answered_streams);

      snodo_event_store_forget_stream (peer->transport->event_store, old);
    }
  g_hash_table_steal (peer->request_streams, rs->key);
  request_stream_free (rs);
}

/* A line of the request @related (its progress, a log, a request to the
 * client, its answer) when its answer's stream is resumable: kept in the
 * store, then written if a connection is open for the stream. The stream
 * starts with the first line that is not the answer; an answer that comes
 * first is one JSON body, and FALSE is returned (the caller sends it as
 * before), as it is for a request whose POST is gone with no stream, and
 * without an event store. Takes @line when it returns TRUE. */
gboolean
snodo_http_resume_send_related (Peer          *peer,
                                const char    *related,
                                GBytes        *line,
                                SnodoSendFunc  func,
                                gpointer       user_data)
{
  SnodoHttpTransport *self = peer->transport;
  RequestStream *rs = NULL;
  g_autofree char *event_id = NULL;
  Exchange *ex;
  gboolean answer;
  int code;

  if (self->event_store == NULL || peer->session_id == NULL)
    return FALSE;
  if (peer->request_streams != NULL)
    rs = g_hash_table_lookup (peer->request_streams, related);
  answer = snodo_http_line_is_response (line, &code);
  if (rs == NULL)
    {
      ex = g_hash_table_lookup (peer->exchanges, related);
      if (ex == NULL || answer || ex->is_initialize || ex->state != EXCHANGE_WAITING)
        return FALSE;
      rs = request_stream_open (peer, ex);
    }

  event_id = snodo_event_store_store_event (self->event_store, rs->stream_id, line);
  ex = rs->ex;
  if (ex != NULL && (ex->aborted || ex->state == EXCHANGE_DONE))
    {
      /* Its client left; it goes with its message. */
      request_stream_detach (peer, rs);
      ex = NULL;
    }
  if (answer)
    request_stream_answered (peer, rs);
  if (ex != NULL)
    {
      snodo_http_exchange_send_event (ex, event_id, line, func, user_data);
      return TRUE;
    }
  /* Kept for the client's return: as good as written. */
  snodo_http_send_fail_later (self->context, func, user_data, NULL);
  g_bytes_unref (line);
  return TRUE;
}

/* Whether @key is a request of @peer whose answer's stream is resumable
 * and which is not answered yet. */
gboolean
snodo_http_resume_has_request (Peer       *peer,
                               const char *key)
{
  return peer->request_streams != NULL && g_hash_table_contains (peer->request_streams, key);
}

/* @ex, which wrote the stream of its request's answer, goes. */
void
snodo_http_resume_exchange_gone (Exchange *ex)
{
  Peer *peer = ex->peer;
  RequestStream *rs;

  if (peer->request_streams == NULL || ex->key == NULL)
    return;
  rs = g_hash_table_lookup (peer->request_streams, ex->key);
  if (rs != NULL && rs->ex == ex)
    rs->ex = NULL;
}

/* The connection's close_stream (snodo_invocation_close_stream()): the
 * connection carrying the stream of @related's answer ends after what it
 * holds, the request going on, so that the client comes back with
 * Last-Event-ID after the priming event's retry (SEP-1699). A POST still
 * waiting for its first line starts its stream for this, with its
 * priming event. Only for 2025-11-25, whose clients come back. */
void
snodo_http_resume_close_stream (gpointer    transport,
                                const char *related)
{
  Peer *peer = transport;
  RequestStream *rs = NULL;

  if (peer->transport->event_store == NULL || peer->session_id == NULL || !peer_primes (peer))
    return;
  if (peer->request_streams != NULL)
    rs = g_hash_table_lookup (peer->request_streams, related);
  if (rs == NULL)
    {
      Exchange *ex = g_hash_table_lookup (peer->exchanges, related);

      if (ex == NULL || ex->is_initialize || ex->state != EXCHANGE_WAITING)
        return;
      rs = request_stream_open (peer, ex);
    }
  if (rs->ex != NULL)
    g_debug ("Closing the stream of the answer to a request that goes on; its client comes back with Last-Event-ID");
  request_stream_detach (peer, rs);
}

typedef struct
{
  GPtrArray *ids;
  GPtrArray *messages;
} Replay;

static void
replay_gather_cb (const char *event_id,
                  GBytes     *message,
                  gpointer    user_data)
{
  Replay *replay = user_data;

  g_ptr_array_add (replay->ids, g_strdup (event_id));
  g_ptr_array_add (replay->messages, g_bytes_ref (message));
}

/* A GET with the Last-Event-ID @last_event_id of @stream_id, the stream
 * of the answer to a request of @peer: what followed the id, then, while
 * the request goes on, what it sends, up to its answer. A connection
 * still open for the stream ends: the client is back on this one. A
 * request answered already gets what followed, its answer last, and the
 * end of the stream; or, when nothing followed (the client saw the end,
 * an error answer, which the TypeScript SDK's client does not count as
 * the end of its stream), 204 No Content: nothing more comes, and no
 * client polls a stream that is over. */
static void
resume_request_stream (Peer              *peer,
                       SoupServerMessage *msg,
                       const char        *stream_id,
                       const char        *last_event_id)
{
  SnodoHttpTransport *self = peer->transport;
  RequestStream *rs = find_request_stream (peer, stream_id);
  g_autoptr(GPtrArray) ids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) messages = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  Replay replay = { ids, messages };
  Exchange *ex;

  snodo_event_store_replay_after (self->event_store, last_event_id, replay_gather_cb, &replay);
  if (rs == NULL && ids->len == 0)
    {
      snodo_http_reply_status (msg, SOUP_STATUS_NO_CONTENT);
      return;
    }
  if (!snodo_http_transport_admit_stream (self, msg, NULL))
    return;
  if (rs != NULL)
    request_stream_detach (peer, rs);

  ex = snodo_http_exchange_new (self, peer, msg, rs != NULL ? rs->key : NULL);
  ex->stream_only = TRUE;
  snodo_http_exchange_count_stream (ex);
  snodo_http_exchange_start_stream (ex);
  snodo_http_exchange_watch_hangup (ex);
  for (guint i = 0; i < ids->len; i++)
    snodo_http_exchange_send_event (ex, g_ptr_array_index (ids, i),
                                    g_bytes_ref (g_ptr_array_index (messages, i)), NULL, NULL);
  if (rs != NULL)
    {
      rs->ex = ex;
      ex->resumable = TRUE;
      g_hash_table_insert (peer->exchanges, g_strdup (rs->key), ex);
    }
  else
    {
      /* Nothing more comes for it: no business of the session's. */
      ex->peer = NULL;
      snodo_http_exchange_finish (ex);
    }
  /* Send the headers now; events follow as they come. */
  soup_server_message_unpause (msg);
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
 * session's streams (else 400, and FALSE). One of its GET stream is left
 * in @last_event_id for snodo_http_resume_begin(); one of the stream of a
 * request's answer resumes that stream here (FALSE: @msg is taken). An id
 * the store no longer knows opens the GET stream without replay. */
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
  if (g_str_equal (stream_id, ours))
    {
      *last_event_id = g_strdup (given);
      return TRUE;
    }
  if (is_request_stream_of (peer, stream_id))
    {
      resume_request_stream (peer, msg, stream_id, given);
      return FALSE;
    }
  snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                          _("Bad request: the Last-Event-ID is not an event of this session’s streams"));
  return FALSE;
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

/* The session ended: the events of its streams go. */
void
snodo_http_resume_forget (Peer *peer)
{
  SnodoEventStore *store = peer->transport->event_store;
  g_autofree char *stream_id = NULL;

  if (store == NULL || peer->session_id == NULL)
    return;
  stream_id = peer_stream_id (peer);
  snodo_event_store_forget_stream (store, stream_id);
  if (peer->request_streams != NULL)
    {
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, peer->request_streams);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        snodo_event_store_forget_stream (store, ((RequestStream *) value)->stream_id);
    }
  for (GList *l = peer->answered_streams.head; l != NULL; l = l->next)
    snodo_event_store_forget_stream (store, l->data);
}
