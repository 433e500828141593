/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A POST to the HTTP transport: its body (bounded by max-body-bytes), the
 * checks of its headers, the era it belongs to (the body decides), and its
 * dispatch to the server, on a stateless peer (2026-07-28) or on a session
 * (the initialize era, snodo-http-session.c). Its answer then comes through
 * an exchange (snodo-http-exchange.c). */

#include "config.h"

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-http-rules-private.h"
#include "snodo-http-transport-private.h"
#include "snodo-protocol-private.h"
#include "snodo-protocol-version.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

static const char *
get_request_header (gpointer    data,
                    const char *name)
{
  SoupMessageHeadersIter iter;
  const char *header_name, *value, *found = NULL;

  /* A header given more than once is reported as such (see
   * SNODO_HTTP_HEADER_REPEATED), never as its first or last copy. */
  soup_message_headers_iter_init (&iter, data);
  while (soup_message_headers_iter_next (&iter, &header_name, &value))
    if (g_ascii_strcasecmp (header_name, name) == 0)
      {
        if (found != NULL)
          return SNODO_HTTP_HEADER_REPEATED;
        found = value;
      }
  return found;
}

/* An unguessable session id: 32 hex digits from the system's CSPRNG. */
static char *
new_session_id (GError **error)
{
  guint8 buf[16];
  GString *out;

  if (!snodo_random_fill (buf, sizeof buf, error))
    return NULL;
  out = g_string_sized_new (33);
  for (guint i = 0; i < sizeof buf; i++)
    g_string_append_printf (out, "%02x", buf[i]);
  return g_string_free (out, FALSE);
}

/* ---- Request handling ---------------------------------------------------- */

typedef struct
{
  /* The body so far, at most max_body_bytes. */
  GByteArray *data;
  gboolean    too_large;
} Body;

static void
body_free (Body *body)
{
  g_byte_array_unref (body->data);
  g_free (body);
}

static void
body_got_chunk_cb (SoupServerMessage *msg,
                   GBytes            *chunk,
                   gpointer           user_data)
{
  Body *body = g_object_get_data (G_OBJECT (msg), "snodo-body");
  SnodoHttpTransport *self = user_data;
  gsize len;
  const guint8 *data = g_bytes_get_data (chunk, &len);

  if (body == NULL || body->too_large)
    return;
  if (body->data->len + len > self->max_body_bytes)
    {
      /* The rest is read and dropped; memory stays bounded. */
      body->too_large = TRUE;
      g_byte_array_set_size (body->data, 0);
      return;
    }
  g_byte_array_append (body->data, data, len);
}

/* Whether @msg announces a body larger than max-body-bytes. */
static gboolean
snodo_http_transport_length_too_large (SnodoHttpTransport *self,
                                       SoupMessageHeaders *headers)
{
  return soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH &&
         (guint64) soup_message_headers_get_content_length (headers) > self->max_body_bytes;
}

/* Before the body is read: keep memory bounded by max-body-bytes.
 *
 * A body of announced length within the limit (what clients send) is
 * left to libsoup, which accumulates it: that costs no signal handler or
 * bookkeeping of our own per request. One announced as larger is read and
 * dropped. A chunked body may grow without bound, so we accumulate it
 * ourselves, at most max-body-bytes of it. */
void
snodo_http_transport_early_cb (SoupServer        *server,
                               SoupServerMessage *msg,
                               const char        *path,
                               GHashTable        *query,
                               gpointer           user_data)
{
  SnodoHttpTransport *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  Body *body;

  if (!g_str_equal (soup_server_message_get_method (msg), "POST"))
    return;

  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
    {
      if (snodo_http_transport_length_too_large (self, headers))
        soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
      return;
    }

  body = g_new0 (Body, 1);
  body->data = g_byte_array_new ();
  g_object_set_data_full (G_OBJECT (msg), "snodo-body", body, (GDestroyNotify) body_free);
  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  g_signal_connect_object (msg, "got-chunk", G_CALLBACK (body_got_chunk_cb), self, 0);
}

/* The headers snodo_server_dispatch() reads. It only looks them up while
 * it runs, so they borrow @protocol_version (from the request's headers,
 * or the session's). */
static GHashTable *
new_headers (const char *protocol_version)
{
  GHashTable *headers = g_hash_table_new (g_str_hash, g_str_equal);

  if (protocol_version != NULL)
    g_hash_table_insert (headers, (char *) SNODO_HEADER_PROTOCOL_VERSION, (char *) protocol_version);
  return headers;
}

/* A request (or notification) to be served statelessly. */
static void
snodo_http_transport_serve_stateless (SnodoHttpTransport *self,
                                      SoupServerMessage  *msg,
                                      SnodoFrame         *frame,
                                      const char         *protocol_version,
                                      gsize               cost,
                                      gboolean            modern)
{
  g_autoptr(GHashTable) headers = NULL;
  Peer *peer;
  Exchange *ex;

  if (frame->kind != SNODO_FRAME_REQUEST)
    {
      if (frame->kind == SNODO_FRAME_RESPONSE)
        snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                                _("Invalid request: responses are not accepted here"));
      else
        snodo_http_reply_status (msg, SOUP_STATUS_ACCEPTED);
      return;
    }

  peer = snodo_http_peer_new (self, TRUE);
  g_ptr_array_add (self->stateless, peer);
  ex = snodo_http_exchange_new (self, peer, msg, frame->key);
  ex->cancel_on_close = TRUE;
  ex->stream_only = g_str_equal (frame->method, "subscriptions/listen");
  g_hash_table_insert (peer->exchanges, g_strdup (frame->key), ex);
  snodo_http_exchange_watch_hangup (ex);

  headers = new_headers (protocol_version);
  snodo_server_dispatch (self->server, peer->connection, frame, headers, cost);
}

void
snodo_http_transport_handle_post (SnodoHttpTransport *self,
                                  SoupServerMessage  *msg)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  g_autoptr(GBytes) flat = NULL;
  const char *data = NULL;
  gsize len = 0;
  gboolean too_large;
  const char *accept;
  const char *content_type;
  const char *version_header;
  const char *session_id;
  g_auto(SnodoFrame) frame = { 0, };
  SnodoProtocolVersion header_version = SNODO_PROTOCOL_VERSION_UNKNOWN;
  gboolean legacy_served;
  Peer *peer;

  accept = soup_message_headers_get_list (headers, "Accept");
  if (!snodo_http_accepts (accept, "application/json") || !snodo_http_accepts (accept, "text/event-stream"))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Not acceptable: the client must accept both application/json and text/event-stream"));
      return;
    }
  content_type = soup_message_headers_get_content_type (headers, NULL);
  if (content_type == NULL || g_ascii_strcasecmp (content_type, "application/json") != 0)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Unsupported media type: the body must be application/json"));
      return;
    }
  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
    {
      /* Accumulated by libsoup (see the early handler). */
      SoupMessageBody *request_body = soup_server_message_get_request_body (msg);

      too_large = snodo_http_transport_length_too_large (self, headers) ||
                  !soup_message_body_get_accumulate (request_body);
      if (!too_large)
        {
          flat = soup_message_body_flatten (request_body);
          data = g_bytes_get_data (flat, &len);
        }
    }
  else
    {
      Body *body = g_object_get_data (G_OBJECT (msg), "snodo-body");

      too_large = body == NULL || body->too_large;
      if (!too_large)
        {
          data = (const char *) body->data->data;
          len = body->data->len;
        }
    }
  if (too_large)
    {
      /* A string for the number: gettext cannot see through G_GUINT64_FORMAT. */
      g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, self->max_body_bytes);
      g_autofree char *message = g_strdup_printf (_("Invalid request: the body is larger than the limit of %s bytes"),
                                                  limit);

      snodo_http_reply_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST, message);
      return;
    }

  snodo_dialect_decode (data, len, &frame);
  switch (frame.kind)
    {
    case SNODO_FRAME_IGNORE:
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_PARSE_ERROR,
                              _("Parse error: the body is empty"));
      return;
    case SNODO_FRAME_ERROR:
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, frame.error_code, frame.error_message);
      return;
    case SNODO_FRAME_DROP:
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              frame.error_message ? frame.error_message : _("Invalid request"));
      return;
    case SNODO_FRAME_REQUEST:
    case SNODO_FRAME_NOTIFICATION:
    case SNODO_FRAME_RESPONSE:
    default:
      break;
    }

  version_header = get_request_header (headers, "MCP-Protocol-Version");
  if (version_header == SNODO_HTTP_HEADER_REPEATED)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_HEADER_MISMATCH,
                              _("Header mismatch: the MCP-Protocol-Version header is given more than once"));
      return;
    }
  if (version_header != NULL)
    header_version = snodo_protocol_version_from_string (version_header);

  /* The body decides the era (mcp-wire §8.4). */
  if (frame.kind != SNODO_FRAME_RESPONSE &&
      snodo_server_is_version_enabled (self->server, SNODO_PROTOCOL_VERSION_2026_07_28) &&
      snodo_dialect_has_envelope (&frame))
    {
      g_autofree char *mismatch = NULL;

      if (frame.kind == SNODO_FRAME_NOTIFICATION)
        {
          snodo_http_reply_status (msg, SOUP_STATUS_ACCEPTED);
          return;
        }
      if (version_header == NULL)
        {
          snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_HEADER_MISMATCH,
                                  _("Header mismatch: the MCP-Protocol-Version header is missing"));
          return;
        }
      mismatch = snodo_http_check_standard_headers (self->server, get_request_header, headers, &frame);
      if (mismatch != NULL)
        {
          snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_HEADER_MISMATCH, mismatch);
          return;
        }
      snodo_http_transport_serve_stateless (self, msg, &frame, version_header, len, TRUE);
      return;
    }

  /* The initialize era; or, for a server that serves none of it, or a
   * request claiming 2026-07-28 by its header only, a stateless answer
   * from the server explaining what is wrong. */
  legacy_served = snodo_server_get_oldest_legacy (self->server) != SNODO_PROTOCOL_VERSION_UNKNOWN;
  session_id = soup_message_headers_get_one (headers, SESSION_HEADER);
  if (!legacy_served || snodo_protocol_version_is_stateless (header_version))
    {
      snodo_http_transport_serve_stateless (self, msg, &frame, version_header, len, FALSE);
      return;
    }

  if (session_id == NULL)
    {
      if (frame.kind == SNODO_FRAME_REQUEST && g_str_equal (frame.method, "initialize"))
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GHashTable) dispatch_headers = NULL;
          Exchange *ex;

          if (version_header != NULL &&
              (header_version == SNODO_PROTOCOL_VERSION_UNKNOWN ||
               !snodo_server_is_version_enabled (self->server, header_version)))
            {
              snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                                      _("Bad request: unsupported MCP-Protocol-Version"));
              return;
            }
          if (g_hash_table_size (self->sessions) >= self->max_sessions)
            {
              /* A text for the number: gettext cannot see through G_GUINT*. */
              g_autofree char *limit = g_strdup_printf ("%u", self->max_sessions);
              g_autofree char *message = g_strdup_printf (_("Server overloaded: too many sessions (at most %s)"),
                                                          limit);

              snodo_http_reply_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, frame.id,
                                      SNODO_RPC_ERROR_SERVER_OVERLOADED, message);
              return;
            }
          peer = snodo_http_peer_new (self, FALSE);
          peer->session_id = new_session_id (&error);
          if (peer->session_id == NULL)
            {
              peer->ended = TRUE;
              snodo_connection_detach (peer->connection);
              snodo_server_connection_ended (self->server, peer->connection, FALSE);
              g_clear_object (&peer->owner);
              snodo_http_peer_free (peer);
              snodo_http_reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, frame.id, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                      error->message);
              return;
            }
          peer->last_active = g_get_monotonic_time ();
          g_hash_table_insert (self->sessions, g_strdup (peer->session_id), peer);

          ex = snodo_http_exchange_new (self, peer, msg, frame.key);
          ex->is_initialize = TRUE;
          g_hash_table_insert (peer->exchanges, g_strdup (frame.key), ex);
          soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                        SESSION_HEADER, peer->session_id);
          dispatch_headers = new_headers (header_version != SNODO_PROTOCOL_VERSION_UNKNOWN ? version_header : NULL);
          snodo_server_dispatch (self->server, peer->connection, &frame, dispatch_headers, len);
          return;
        }

      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Bad request: the Mcp-Session-Id header is missing (send initialize first)"));
      return;
    }

  peer = g_hash_table_lookup (self->sessions, session_id);
  if (peer == NULL)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_NOT_FOUND, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Session not found"));
      return;
    }
  peer->last_active = g_get_monotonic_time ();
  if (version_header != NULL &&
      (header_version == SNODO_PROTOCOL_VERSION_UNKNOWN ||
       snodo_protocol_version_is_stateless (header_version) ||
       !snodo_server_is_version_enabled (self->server, header_version)))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Bad request: unsupported MCP-Protocol-Version"));
      return;
    }

  {
    g_autoptr(GHashTable) dispatch_headers =
      new_headers (version_header != NULL ? version_header : peer->protocol_version);

    switch (frame.kind)
      {
      case SNODO_FRAME_REQUEST:
        {
          Exchange *ex;

          if (g_hash_table_contains (peer->exchanges, frame.key))
            {
              snodo_http_reply_error (msg, SOUP_STATUS_OK, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                                      _("Invalid request: the id is already in use by a request in progress"));
              return;
            }
          ex = snodo_http_exchange_new (self, peer, msg, frame.key);
          ex->is_initialize = g_str_equal (frame.method, "initialize");
          g_hash_table_insert (peer->exchanges, g_strdup (frame.key), ex);
          snodo_http_exchange_watch_hangup (ex);
          snodo_server_dispatch (self->server, peer->connection, &frame, dispatch_headers, len);
          return;
        }

      case SNODO_FRAME_NOTIFICATION:
        snodo_server_dispatch (self->server, peer->connection, &frame, dispatch_headers, len);
        snodo_http_reply_status (msg, SOUP_STATUS_ACCEPTED);
        return;

      case SNODO_FRAME_RESPONSE:
        snodo_server_dispatch (self->server, peer->connection, &frame, dispatch_headers, len);
        snodo_http_reply_status (msg, SOUP_STATUS_ACCEPTED);
        return;

      case SNODO_FRAME_IGNORE:
      case SNODO_FRAME_ERROR:
      case SNODO_FRAME_DROP:
      default:
        g_assert_not_reached ();
      }
  }
}
