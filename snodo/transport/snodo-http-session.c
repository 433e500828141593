/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Peers: what the server sees as a connection of the HTTP transport, a
 * session of the initialize era (2025-06-18, 2025-11-25) or one stateless
 * request. A peer routes the server's lines to its exchanges
 * (snodo-http-exchange.c). Sessions live in the transport's table, made by
 * an initialize POST (snodo-http-post.c) and ended by DELETE, by closing,
 * or after session-idle-timeout; a session's GET stream is here too. */

#include "config.h"

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-executor.h"
#include "snodo-http-rules-private.h"
#include "snodo-http-transport-private.h"
#include "snodo-protocol-version.h"
#include "snodo-server-private.h"

/* ---- Peers --------------------------------------------------------------- */

/* The connection's send: on the context. Routes by the request key. */
static void
peer_send (gpointer       transport,
           const char    *related,
           GBytes        *line,
           SnodoSendFunc  func,
           gpointer       user_data)
{
  Peer *peer = transport;
  Exchange *ex = NULL;
  int code;

  if (related != NULL)
    {
      /* The resumable stream of the request's answer keeps the line,
       * whether a connection is open for it or not. */
      if (snodo_http_resume_send_related (peer, related, line, func, user_data))
        return;
      ex = g_hash_table_lookup (peer->exchanges, related);
    }
  /* Lines of no request (announcements), and requests to the client whose
   * POST is gone, go on the session's GET stream if one is open. */
  if (ex == NULL && (related == NULL || !snodo_http_line_is_response (line, &code)))
    {
      /* A resumable stream keeps it even while no connection is open. */
      if (snodo_http_resume_send (peer, related, line, func, user_data))
        return;
      ex = peer->standalone;
    }

  if (ex == NULL)
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                                                     _("No HTTP stream is open for this message"));

      snodo_http_send_fail_later (peer->transport->context, func, user_data, error);
      g_bytes_unref (line);
      return;
    }
  snodo_http_exchange_send (ex, line, func, user_data);
}

static void
peer_negotiated (gpointer             transport,
                 SnodoProtocolVersion version)
{
  Peer *peer = transport;
  const char *string = snodo_protocol_version_to_string (version);

  if (string != NULL)
    {
      g_free (peer->protocol_version);
      peer->protocol_version = g_strdup (string);
    }
}

static const SnodoConnectionVTable http_connection_vtable = {
  .send = peer_send,
  .negotiated = peer_negotiated,
  .close_stream = snodo_http_resume_close_stream,
  .network_transport = "tcp",
};

Peer *
snodo_http_peer_new (SnodoHttpTransport *self,
                     gboolean            stateless)
{
  return snodo_http_peer_new_full (self, stateless, self->executor);
}

/* A peer whose work goes to @executor, the transport's or its stream
 * executor. */
Peer *
snodo_http_peer_new_full (SnodoHttpTransport *self,
                          gboolean            stateless,
                          SnodoExecutor      *executor)
{
  Peer *peer = g_new0 (Peer, 1);

  peer->transport = self;
  peer->executor = executor;
  peer->owner = g_object_new (G_TYPE_OBJECT, NULL);
  peer->exchanges = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  peer->stateless = stateless;
  peer->connection = snodo_connection_new (&http_connection_vtable, peer, peer->owner,
                                           executor, self->context);
  snodo_connection_set_persistent (peer->connection, !stateless);
  snodo_connection_set_streams_resumable (peer->connection, !stateless && self->event_store != NULL);
  snodo_server_connection_started (self->server, peer->connection);
  return peer;
}

static void
peer_owner_done_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  g_autoptr(GObject) owner = user_data;

  snodo_executor_wait_owner_finish (SNODO_EXECUTOR (object), result, NULL);
}

void
snodo_http_peer_free (Peer *peer)
{
  g_assert (peer->ended);
  g_hash_table_unref (peer->exchanges);
  g_clear_pointer (&peer->request_streams, g_hash_table_unref);
  g_queue_clear_full (&peer->answered_streams, g_free);
  g_clear_pointer (&peer->connection, snodo_connection_unref);
  g_free (peer->session_id);
  g_free (peer->protocol_version);
  g_free (peer->principal);
  g_free (peer);
}

/* Ends @peer: its exchanges end, its work is cancelled (graceful or not:
 * no one is left to answer), the server hears the connection ended. The
 * peer is freed once its exchanges are. */
void
snodo_http_peer_end (Peer     *peer,
                     gboolean  graceful)
{
  SnodoHttpTransport *self = peer->transport;
  GList *exchanges;
  GObject *owner;

  if (peer->ended)
    return;
  peer->ended = TRUE;

  snodo_connection_detach (peer->connection);
  snodo_server_connection_ended (self->server, peer->connection, graceful);
  owner = g_steal_pointer (&peer->owner);
  /* Cancelling says how much live work there was. */
  if (snodo_executor_cancel_owner (peer->executor, owner) > 0)
    snodo_executor_wait_owner_async (peer->executor, owner, NULL, peer_owner_done_cb, owner);
  else
    {
      /* Nothing to cancel or wait for: the usual end of a stateless
       * request, whose work is done once its answer is written. This
       * saves a task and a main-loop round per request. */
      g_object_unref (owner);
    }

  /* The exchanges still reference the peer until they finish; cut them
   * loose and end them. */
  exchanges = g_hash_table_get_values (peer->exchanges);
  if (peer->standalone != NULL)
    exchanges = g_list_prepend (exchanges, peer->standalone);
  /* Frees the keys; the exchanges are ended below. */
  g_hash_table_remove_all (peer->exchanges);
  peer->standalone = NULL;
  for (GList *l = exchanges; l != NULL; l = l->next)
    {
      Exchange *ex = l->data;

      ex->peer = NULL;
      if (ex->state == EXCHANGE_STREAMING && !ex->aborted)
        snodo_http_exchange_end (ex, SOUP_STATUS_NOT_FOUND);
      else if (ex->state == EXCHANGE_WAITING)
        snodo_http_exchange_end (ex, SOUP_STATUS_NOT_FOUND);
    }
  g_list_free (exchanges);

  if (peer->stateless)
    g_ptr_array_remove_fast (self->stateless, peer);
  else
    snodo_http_resume_forget (peer);
  snodo_http_peer_free (peer);
}

/* ---- GET and DELETE ------------------------------------------------------ */

void
snodo_http_transport_handle_get_or_delete (SnodoHttpTransport *self,
                                           SoupServerMessage  *msg,
                                           gboolean            is_get)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *session_id = snodo_http_get_request_header (headers, SESSION_HEADER);
  const char *version_header = snodo_http_get_request_header (headers, "MCP-Protocol-Version");
  gboolean legacy_served = snodo_server_get_oldest_legacy (self->server) != SNODO_PROTOCOL_VERSION_UNKNOWN;
  g_autofree char *last_event_id = NULL;
  Peer *peer;

  /* A proxy that reads one copy and the transport another would see
   * different requests. */
  if (session_id == SNODO_HTTP_HEADER_REPEATED || version_header == SNODO_HTTP_HEADER_REPEATED)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_HEADER_MISMATCH,
                              session_id == SNODO_HTTP_HEADER_REPEATED
                              ? _("Header mismatch: the Mcp-Session-Id header is given more than once")
                              : _("Header mismatch: the MCP-Protocol-Version header is given more than once"));
      return;
    }

  /* 2026-07-28 is POST only; so is a server that serves nothing older. */
  if (!legacy_served ||
      (version_header != NULL &&
       snodo_protocol_version_is_stateless (snodo_protocol_version_from_string (version_header))))
    {
      snodo_http_reply_method_not_allowed (msg, "POST");
      return;
    }
  if (session_id == NULL)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Bad request: the Mcp-Session-Id header is missing"));
      return;
    }
  peer = g_hash_table_lookup (self->sessions, session_id);
  /* Another principal's session does not exist, for this one. */
  if (peer == NULL || !snodo_http_auth_owns_session (peer, msg))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Session not found"));
      return;
    }
  peer->last_active = g_get_monotonic_time ();

  if (!is_get)
    {
      g_hash_table_remove (self->sessions, session_id);
      snodo_http_reply_status (msg, SOUP_STATUS_OK);
      return;
    }

  if (!snodo_http_accepts (soup_message_headers_get_list (headers, "Accept"), "text/event-stream"))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Not acceptable: the client must accept text/event-stream"));
      return;
    }
  /* A Last-Event-ID of the stream of a request's answer resumes that
   * stream, beside the session's GET stream. */
  if (!snodo_http_resume_check (peer, msg, &last_event_id))
    return;
  if (peer->standalone != NULL)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_CONFLICT, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Conflict: the session already has a stream open"));
      return;
    }
  if (!snodo_http_transport_admit_stream (self, msg, NULL))
    return;

  peer->standalone = snodo_http_exchange_new (self, peer, msg, NULL);
  peer->standalone->stream_only = TRUE;
  snodo_http_exchange_count_stream (peer->standalone);
  snodo_http_exchange_start_stream (peer->standalone);
  snodo_http_exchange_watch_hangup (peer->standalone);
  /* What the client missed, and a priming event. */
  snodo_http_resume_begin (peer, last_event_id);
  /* Send the headers now; events follow as they come. */
  soup_server_message_unpause (msg);
}

/* ---- Idle sessions ------------------------------------------------------- */

/* Ends the sessions that have had no request, and have none in progress
 * and no stream open, for session-idle-timeout seconds: a client that
 * never sends DELETE must not hold its session for ever. */
static gboolean
snodo_http_transport_sweep_cb (gpointer user_data)
{
  SnodoHttpTransport *self = user_data;
  gint64 limit = g_get_monotonic_time () - (gint64) self->session_idle_timeout * G_USEC_PER_SEC;
  GHashTableIter iter;
  gpointer value;
  g_autoptr(GPtrArray) idle = g_ptr_array_new_with_free_func (g_free);

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Peer *peer = value;

      if (peer->last_active < limit && peer->standalone == NULL && g_hash_table_size (peer->exchanges) == 0)
        g_ptr_array_add (idle, g_strdup (peer->session_id));
    }
  for (guint i = 0; i < idle->len; i++)
    {
      g_debug ("Ending session %s after %u s without a request",
               (const char *) g_ptr_array_index (idle, i), self->session_idle_timeout);
      g_hash_table_remove (self->sessions, g_ptr_array_index (idle, i));
    }
  return G_SOURCE_CONTINUE;
}

/* At max-sessions: ends the session idle the longest (no request in
 * progress, no work of it left, no stream open) to make room for a new
 * one, as its idle timeout would have later; its client gets 404 and
 * initializes again. FALSE if no session is idle. */
gboolean
snodo_http_transport_evict_idle_session (SnodoHttpTransport *self)
{
  GHashTableIter iter;
  gpointer value;
  Peer *oldest = NULL;

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Peer *peer = value;

      if (peer->standalone == NULL && g_hash_table_size (peer->exchanges) == 0 &&
          (oldest == NULL || peer->last_active < oldest->last_active) &&
          snodo_executor_get_n_live_for_owner (peer->executor, peer->owner) == 0)
        oldest = peer;
    }
  if (oldest == NULL)
    return FALSE;
  g_debug ("Ending session %s, idle the longest, to make room for a new one", oldest->session_id);
  g_hash_table_remove (self->sessions, oldest->session_id);
  return TRUE;
}

/* Entry: any state. (Re)starts the sweep while listening. */
void
snodo_http_transport_arm_sweep (SnodoHttpTransport *self)
{
  guint interval;

  g_clear_pointer (&self->sweep_source, snodo_source_destroy_and_unref);
  if (self->state != STATE_LISTENING || self->session_idle_timeout == 0)
    return;
  /* Sessions end between one and one and a half timeouts after their last
   * request, at most a minute late. */
  interval = CLAMP (self->session_idle_timeout * 500, 250, 60000);
  self->sweep_source = g_timeout_source_new (interval);
  g_source_set_static_name (self->sweep_source, "[snodo] http idle sessions");
  g_source_set_callback (self->sweep_source, snodo_http_transport_sweep_cb, self, NULL);
  g_source_attach (self->sweep_source, self->context);
}
