/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A POST to the HTTP transport: its body (bounded by max-body-bytes), the
 * checks of its headers, the era it belongs to (the body decides), and its
 * dispatch to the server, on a stateless peer (2026-07-28) or on a session
 * (the initialize era, snodo-http-session.c). Its answer then comes through
 * an exchange (snodo-http-exchange.c). */

#include "config.h"

#include <string.h>

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

/* An unguessable session id: 32 hex digits from the system's CSPRNG,
 * after the transport's instance-id and a dot if it has one. */
static char *
new_session_id (SnodoHttpTransport  *self,
                GError             **error)
{
  guint8 buf[16];
  GString *out;

  if (!snodo_random_fill (buf, sizeof buf, error))
    return NULL;
  out = g_string_sized_new (SNODO_HTTP_INSTANCE_ID_MAX + 34);
  if (self->instance_id != NULL)
    g_string_append_printf (out, "%s.", self->instance_id);
  for (guint i = 0; i < sizeof buf; i++)
    g_string_append_printf (out, "%02x", buf[i]);
  return g_string_free (out, FALSE);
}

/* ---- Bodies in progress -------------------------------------------------- */

/* Bytes of bodies being received, on all connections, against
 * max-bodies-bytes. Shared by the transport and each body's reservation
 * (a message may outlive its transport). */
struct _BodyBudget
{
  guint64 used;
};

BodyBudget *
snodo_http_body_budget_new (void)
{
  return g_rc_box_new0 (BodyBudget);
}

void
snodo_http_body_budget_unref (BodyBudget *budget)
{
  g_rc_box_release (budget);
}

/* Takes @bytes of the budget; FALSE if that would go over @limit. */
static gboolean
body_budget_take (BodyBudget *budget,
                  guint64     limit,
                  guint64     bytes)
{
  if (bytes > limit || budget->used > limit - bytes)
    return FALSE;
  budget->used += bytes;
  return TRUE;
}

/* A body's share of the budget, given back when the body has been read
 * (the handler runs) or its message goes. */
typedef struct
{
  BodyBudget *budget;
  guint64     bytes;
} Reservation;

static GQuark reservation_quark;

static void
reservation_free (gpointer data)
{
  Reservation *reservation = data;

  reservation->budget->used -= reservation->bytes;
  g_rc_box_release (reservation->budget);
  g_free (reservation);
}

/* A body accumulated by us: one of no announced length, at most
 * max-body-bytes of it; or a large one of announced length, into a
 * buffer of that length (libsoup would keep it in chunks, and their
 * flattened copy beside them for a while). */
typedef struct
{
  /* No announced length: what came so far (NULL once refused). */
  GByteArray *data;
  Reservation reservation;
  /* Else the Content-Length, whose share of the budget was taken at once,
   * and its buffer (NULL once taken) with what came so far. */
  guint64     announced;
  char       *fixed;
  gsize       fixed_len;
} Body;

static void
body_free (Body *body)
{
  g_clear_pointer (&body->data, g_byte_array_unref);
  g_free (body->fixed);
  body->reservation.budget->used -= body->reservation.bytes;
  g_rc_box_release (body->reservation.budget);
  g_free (body);
}

/* What is left of a connection once its answer is out: what the client
 * still sends is read and dropped, so that closing does not reset the
 * connection under the answer, for at most LINGER_MS. */
#define LINGER_MS 2000

typedef struct
{
  GIOStream *stream;
  GSocket   *socket;
  GSource   *read_source;
  GSource   *timeout_source;
} Linger;

static void
linger_end (Linger *linger)
{
  g_clear_pointer (&linger->read_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&linger->timeout_source, snodo_source_destroy_and_unref);
  /* Closes the connection (and lets the listener forget it). */
  g_io_stream_close (linger->stream, NULL, NULL);
  g_object_unref (linger->stream);
  g_object_unref (linger->socket);
  g_free (linger);
}

static gboolean
linger_read_cb (GSocket      *socket,
                GIOCondition  condition,
                gpointer      user_data)
{
  Linger *linger = user_data;

  for (;;)
    {
      char buf[16384];
      gssize n = g_socket_receive_with_blocking (socket, buf, sizeof buf, FALSE, NULL, NULL);

      if (n > 0)
        continue;
      if (n < 0 && g_socket_condition_check (socket, G_IO_IN | G_IO_HUP | G_IO_ERR) == 0)
        return G_SOURCE_CONTINUE;
      break;
    }
  linger_end (linger);
  return G_SOURCE_REMOVE;
}

static gboolean
linger_timeout_cb (gpointer user_data)
{
  linger_end (user_data);
  return G_SOURCE_REMOVE;
}

/* Answers @msg at once, before its body is read, and closes the
 * connection: libsoup would read the whole body before any answer. The
 * connection is taken from libsoup (soup_server_message_steal_connection(),
 * which ends the message there); the answer is small enough for the
 * socket's buffer. FALSE (nothing done) when the transport has no socket
 * for @msg. */
static gboolean
snodo_http_refuse_now (SnodoHttpTransport *self,
                       SoupServerMessage  *msg,
                       guint               status,
                       int                 code,
                       const char         *message)
{
  GSocket *socket = snodo_http_transport_get_socket (self, msg);
  g_autoptr(GBytes) line = NULL;
  g_autoptr(GString) response = NULL;
  const char *data;
  gsize len;
  Linger *linger;

  if (socket == NULL || self->listener == NULL)
    return FALSE;

  line = snodo_frame_encode_error (NULL, code, message, NULL);
  data = g_bytes_get_data (line, &len);
  len--;
  response = g_string_new (NULL);
  g_string_append_printf (response, "HTTP/1.1 %u %s\r\nConnection: close\r\n"
                          "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                          status, soup_status_get_phrase (status), len);
  g_string_append_len (response, data, len);

  linger = g_new0 (Linger, 1);
  linger->socket = g_object_ref (socket);
  linger->stream = soup_server_message_steal_connection (msg);
  if (linger->stream == NULL)
    {
      g_object_unref (linger->socket);
      g_free (linger);
      return FALSE;
    }
  /* Through the connection's stream, which speaks TLS when the
   * connection does (the socket itself would carry plain text into it). */
  {
    GOutputStream *output = g_io_stream_get_output_stream (linger->stream);

    if (G_IS_POLLABLE_OUTPUT_STREAM (output))
      g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (output), response->str,
                                                  response->len, NULL, NULL);
    else
      g_socket_send_with_blocking (socket, response->str, response->len, FALSE, NULL, NULL);
  }
  g_socket_shutdown (socket, FALSE, TRUE, NULL);

  linger->read_source = g_socket_create_source (socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_static_name (linger->read_source, "[snodo] http linger");
  g_source_set_callback (linger->read_source, G_SOURCE_FUNC (linger_read_cb), linger, NULL);
  g_source_attach (linger->read_source, self->context);
  linger->timeout_source = g_timeout_source_new (LINGER_MS);
  g_source_set_static_name (linger->timeout_source, "[snodo] http linger timeout");
  g_source_set_callback (linger->timeout_source, linger_timeout_cb, linger, NULL);
  g_source_attach (linger->timeout_source, self->context);
  return TRUE;
}

static char *
body_too_large_message (SnodoHttpTransport *self)
{
  /* A string for the number: gettext cannot see through G_GUINT64_FORMAT. */
  g_autofree char *limit = g_strdup_printf ("%" G_GUINT64_FORMAT, self->max_body_bytes);

  return g_strdup_printf (_("Invalid request: the body is larger than the limit of %s bytes"), limit);
}

/* Refuses @msg at once: its body is larger than max-body-bytes (413), or
 * would take more than is left of max-bodies-bytes (503). */
static gboolean
snodo_http_refuse_body (SnodoHttpTransport *self,
                        SoupServerMessage  *msg,
                        gboolean            too_large)
{
  g_autofree char *message = NULL;

  if (too_large)
    {
      message = body_too_large_message (self);
      return snodo_http_refuse_now (self, msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE,
                                    SNODO_RPC_ERROR_INVALID_REQUEST, message);
    }
  message = g_strdup (_("Server overloaded: too many request bodies in progress"));
  return snodo_http_refuse_now (self, msg, SOUP_STATUS_SERVICE_UNAVAILABLE,
                                SNODO_RPC_ERROR_SERVER_OVERLOADED, message);
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
  gboolean too_large;

  if (body != NULL && body->announced > 0)
    {
      /* libsoup reads no more than the length announced. */
      if (body->fixed != NULL && len <= body->announced - body->fixed_len)
        {
          memcpy (body->fixed + body->fixed_len, data, len);
          body->fixed_len += len;
        }
      return;
    }
  if (body == NULL || body->data == NULL)
    return;
  too_large = body->data->len + len > self->max_body_bytes;
  if (too_large || !body_budget_take (body->reservation.budget, self->max_bodies_bytes, len))
    {
      /* Answered at once; failing that, the rest is read and dropped, and
       * the handler answers 413. Memory stays bounded either way. */
      body->reservation.budget->used -= body->reservation.bytes;
      body->reservation.bytes = 0;
      g_clear_pointer (&body->data, g_byte_array_unref);
      snodo_http_refuse_body (self, msg, too_large);
      return;
    }
  body->reservation.bytes += len;
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

/* Before the body is read: keep memory bounded by max-body-bytes for one
 * body and max-bodies-bytes for all of them.
 *
 * A body of announced length within the limits (what clients send) is
 * left to libsoup, which accumulates it, with its share of the budget
 * taken at once. One announced as larger, or that the budget cannot
 * hold, is answered at once (413, 503). A chunked body may grow without
 * bound, so we accumulate it ourselves, taking the budget chunk by
 * chunk. */
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
    {
      /* No other method has a body worth keeping: it is read and dropped. */
      if (soup_message_headers_get_encoding (headers) != SOUP_ENCODING_NONE)
        soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
      return;
    }

  if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
    {
      guint64 length = soup_message_headers_get_content_length (headers);
      gboolean too_large = length > self->max_body_bytes;
      Reservation *reservation;

      if (length == 0)
        return;
      if (too_large || !body_budget_take (self->body_budget, self->max_bodies_bytes, length))
        {
          if (!snodo_http_refuse_body (self, msg, too_large))
            soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
          return;
        }
      if (length >= SNODO_HTTP_DECODE_OFF_LOOP_BYTES)
        {
          /* Large: read into one buffer of its length (only what arrives
           * takes memory), which the decoder then reads in place and
           * lets go of before the request runs. */
          body = g_new0 (Body, 1);
          body->fixed = g_malloc (length);
          body->announced = length;
          body->reservation.budget = g_rc_box_acquire (self->body_budget);
          body->reservation.bytes = length;
          g_object_set_data_full (G_OBJECT (msg), "snodo-body", body, (GDestroyNotify) body_free);
          soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
          g_signal_connect_object (msg, "got-chunk", G_CALLBACK (body_got_chunk_cb), self, 0);
          return;
        }
      if (reservation_quark == 0)
        reservation_quark = g_quark_from_static_string ("snodo-body-reservation");
      reservation = g_new (Reservation, 1);
      reservation->budget = g_rc_box_acquire (self->body_budget);
      reservation->bytes = length;
      g_object_set_qdata_full (G_OBJECT (msg), reservation_quark, reservation, reservation_free);
      return;
    }

  body = g_new0 (Body, 1);
  body->data = g_byte_array_new ();
  body->reservation.budget = g_rc_box_acquire (self->body_budget);
  g_object_set_data_full (G_OBJECT (msg), "snodo-body", body, (GDestroyNotify) body_free);
  soup_message_body_set_accumulate (soup_server_message_get_request_body (msg), FALSE);
  g_signal_connect_object (msg, "got-chunk", G_CALLBACK (body_got_chunk_cb), self, 0);
}

/* ---- Request handling ---------------------------------------------------- */

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
  gboolean listen;
  Peer *peer;
  Exchange *ex;

  if (frame->kind != SNODO_FRAME_REQUEST)
    {
      if (frame->kind == SNODO_FRAME_RESPONSE)
        snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                                _("Invalid request: responses are not accepted here"));
      else
        {
          /* Only an application's own notification has a use here. */
          snodo_server_dispatch_custom_notification (self->server, frame);
          snodo_http_reply_status (msg, SOUP_STATUS_ACCEPTED);
        }
      return;
    }

  /* A subscription lasts as long as its stream: it is bounded by
   * max-streams, and runs on the stream executor rather than holding a
   * slot of the executor that admits work. */
  if (!snodo_http_auth_check_tool (self, msg, frame))
    return;
  listen = g_str_equal (frame->method, "subscriptions/listen");
  if (listen && !snodo_http_transport_admit_stream (self, msg, frame->id))
    return;

  peer = snodo_http_peer_new_full (self, TRUE, listen ? self->stream_executor : self->executor);
  g_ptr_array_add (self->stateless, peer);
  ex = snodo_http_exchange_new (self, peer, msg, frame->key);
  ex->cancel_on_close = TRUE;
  ex->stream_only = listen;
  if (listen)
    snodo_http_exchange_count_stream (ex);
  g_hash_table_insert (peer->exchanges, g_strdup (frame->key), ex);
  snodo_http_exchange_watch_hangup (ex);

  headers = new_headers (protocol_version);
  snodo_http_auth_bind (peer, msg);
  snodo_server_dispatch (self->server, peer->connection, frame, headers, cost);
}

/* The body of @msg is read (and decoded, or about to be): its share of
 * max-bodies-bytes goes back. */
void
snodo_http_transport_release_body (SoupServerMessage *msg)
{
  Body *body;

  if (reservation_quark != 0)
    g_object_set_qdata (G_OBJECT (msg), reservation_quark, NULL);
  body = g_object_get_data (G_OBJECT (msg), "snodo-body");
  if (body != NULL)
    {
      body->reservation.budget->used -= body->reservation.bytes;
      body->reservation.bytes = 0;
    }
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
  /* flat is ours alone, and may be written to. */
  gboolean writable = FALSE;
  Body *body = g_object_get_data (G_OBJECT (msg), "snodo-body");
  const char *accept;
  const char *content_type;
  g_auto(SnodoFrame) frame = { 0, };

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
  if (body != NULL && body->announced > 0)
    {
      /* Accumulated by us, in a buffer of its length: taken from the
       * message, which would keep it until it is answered, so that the
       * request lets go of it once decoded. */
      too_large = body->fixed == NULL;
      if (!too_large)
        {
          len = body->fixed_len;
          flat = g_bytes_new_take (g_steal_pointer (&body->fixed), len);
          data = g_bytes_get_data (flat, NULL);
          writable = TRUE;
        }
    }
  else if (body != NULL)
    {
      /* Accumulated by us (see the early handler). */
      too_large = body->data == NULL;
      if (!too_large)
        {
          data = (const char *) body->data->data;
          len = body->data->len;
          if (len >= SNODO_HTTP_DECODE_OFF_LOOP_BYTES)
            {
              /* Taken from the message, which would keep it until it is
               * answered: the request lets go of it once decoded. */
              flat = g_byte_array_free_to_bytes (g_steal_pointer (&body->data));
              data = g_bytes_get_data (flat, &len);
              writable = TRUE;
            }
        }
    }
  else if (soup_message_headers_get_encoding (headers) == SOUP_ENCODING_CONTENT_LENGTH)
    {
      /* Accumulated by libsoup (see the early handler). */
      SoupMessageBody *request_body = soup_server_message_get_request_body (msg);

      too_large = snodo_http_transport_length_too_large (self, headers) ||
                  !soup_message_body_get_accumulate (request_body);
      if (!too_large)
        {
          flat = soup_message_body_flatten (request_body);
          data = g_bytes_get_data (flat, &len);
          /* libsoup keeps the chunks besides the flat copy: one copy of
           * the body is enough. */
          soup_message_body_truncate (request_body);
        }
    }
  else
    too_large = TRUE;
  if (too_large)
    {
      g_autofree char *message = body_too_large_message (self);

      snodo_http_transport_release_body (msg);
      snodo_http_reply_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST, message);
      return;
    }

  /* A large body is decoded off the main loop (snodo-http-decode.c); it
   * keeps its share of max-bodies-bytes until then. */
  if (len >= SNODO_HTTP_DECODE_OFF_LOOP_BYTES)
    {
      snodo_http_decode_start (self, msg, g_steal_pointer (&flat), writable);
      return;
    }
  snodo_http_transport_release_body (msg);
  snodo_dialect_decode (data, len, &frame);
  snodo_http_transport_serve_post (self, msg, &frame, len);
}

/* The rest of a POST, its body decoded into @frame (of @len bytes): the
 * checks of its headers, its era, its dispatch. */
void
snodo_http_transport_serve_post (SnodoHttpTransport *self,
                                 SoupServerMessage  *msg,
                                 SnodoFrame         *frame,
                                 gsize               len)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *version_header;
  const char *session_id;
  SnodoProtocolVersion header_version = SNODO_PROTOCOL_VERSION_UNKNOWN;
  gboolean legacy_served;
  Peer *peer;

  switch (frame->kind)
    {
    case SNODO_FRAME_IGNORE:
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_PARSE_ERROR,
                              _("Parse error: the body is empty"));
      return;
    case SNODO_FRAME_ERROR:
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame->id, frame->error_code, frame->error_message);
      return;
    case SNODO_FRAME_DROP:
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              frame->error_message ? frame->error_message : _("Invalid request"));
      return;
    case SNODO_FRAME_REQUEST:
    case SNODO_FRAME_NOTIFICATION:
    case SNODO_FRAME_RESPONSE:
    default:
      break;
    }

  version_header = snodo_http_get_request_header (headers, "MCP-Protocol-Version");
  if (version_header == SNODO_HTTP_HEADER_REPEATED)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame->id, SNODO_RPC_ERROR_HEADER_MISMATCH,
                              _("Header mismatch: the MCP-Protocol-Version header is given more than once"));
      return;
    }
  if (version_header != NULL)
    header_version = snodo_protocol_version_from_string (version_header);
  session_id = snodo_http_get_request_header (headers, SESSION_HEADER);
  if (session_id == SNODO_HTTP_HEADER_REPEATED)
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame->id, SNODO_RPC_ERROR_HEADER_MISMATCH,
                              _("Header mismatch: the Mcp-Session-Id header is given more than once"));
      return;
    }

  /* The body decides the era (mcp-wire §8.4). */
  if (frame->kind != SNODO_FRAME_RESPONSE &&
      snodo_server_is_version_enabled (self->server, SNODO_PROTOCOL_VERSION_2026_07_28) &&
      snodo_dialect_has_envelope (frame))
    {
      g_autofree char *mismatch = NULL;

      if (frame->kind == SNODO_FRAME_NOTIFICATION)
        {
          /* Only an application's own notification has a use here. */
          snodo_server_dispatch_custom_notification (self->server, frame);
          snodo_http_reply_status (msg, SOUP_STATUS_ACCEPTED);
          return;
        }
      if (version_header == NULL)
        {
          snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame->id, SNODO_RPC_ERROR_HEADER_MISMATCH,
                                  _("Header mismatch: the MCP-Protocol-Version header is missing"));
          return;
        }
      mismatch = snodo_http_check_standard_headers (self->server, snodo_http_get_request_header, headers, frame);
      if (mismatch != NULL)
        {
          snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame->id, SNODO_RPC_ERROR_HEADER_MISMATCH, mismatch);
          return;
        }
      snodo_http_transport_serve_stateless (self, msg, frame, version_header, len, TRUE);
      return;
    }

  /* The initialize era; or, for a server that serves none of it, or a
   * request claiming 2026-07-28 by its header only, a stateless answer
   * from the server explaining what is wrong. */
  legacy_served = snodo_server_get_oldest_legacy (self->server) != SNODO_PROTOCOL_VERSION_UNKNOWN;
  if (!legacy_served || snodo_protocol_version_is_stateless (header_version))
    {
      snodo_http_transport_serve_stateless (self, msg, frame, version_header, len, FALSE);
      return;
    }

  if (session_id == NULL)
    {
      if (frame->kind == SNODO_FRAME_REQUEST && g_str_equal (frame->method, "initialize"))
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(GHashTable) dispatch_headers = NULL;
          Exchange *ex;

          if (version_header != NULL &&
              (header_version == SNODO_PROTOCOL_VERSION_UNKNOWN ||
               !snodo_server_is_version_enabled (self->server, header_version)))
            {
              snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame->id, SNODO_RPC_ERROR_INVALID_REQUEST,
                                      _("Bad request: unsupported MCP-Protocol-Version"));
              return;
            }
          /* At the limit, the session idle the longest makes room: clients
           * that never come back must not lock the others out. */
          while (g_hash_table_size (self->sessions) >= self->max_sessions &&
                 snodo_http_transport_evict_idle_session (self))
            ;
          if (g_hash_table_size (self->sessions) >= self->max_sessions)
            {
              /* A text for the number: gettext cannot see through G_GUINT*. */
              g_autofree char *limit = g_strdup_printf ("%u", self->max_sessions);
              g_autofree char *message = g_strdup_printf (_("Server overloaded: too many sessions (at most %s)"),
                                                          limit);

              snodo_http_reply_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, frame->id,
                                      SNODO_RPC_ERROR_SERVER_OVERLOADED, message);
              return;
            }
          peer = snodo_http_peer_new (self, FALSE);
          peer->session_id = new_session_id (self, &error);
          if (peer->session_id == NULL)
            {
              peer->ended = TRUE;
              snodo_connection_detach (peer->connection);
              snodo_server_connection_ended (self->server, peer->connection, FALSE);
              g_clear_object (&peer->owner);
              snodo_http_peer_free (peer);
              snodo_http_reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, frame->id, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                      error->message);
              return;
            }
          peer->last_active = g_get_monotonic_time ();
          g_hash_table_insert (self->sessions, g_strdup (peer->session_id), peer);

          ex = snodo_http_exchange_new (self, peer, msg, frame->key);
          ex->is_initialize = TRUE;
          g_hash_table_insert (peer->exchanges, g_strdup (frame->key), ex);
          soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                        SESSION_HEADER, peer->session_id);
          dispatch_headers = new_headers (header_version != SNODO_PROTOCOL_VERSION_UNKNOWN ? version_header : NULL);
          snodo_http_auth_bind (peer, msg);
          snodo_server_dispatch (self->server, peer->connection, frame, dispatch_headers, len);
          return;
        }

      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame->id, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Bad request: the Mcp-Session-Id header is missing (send initialize first)"));
      return;
    }

  peer = g_hash_table_lookup (self->sessions, session_id);
  /* Another principal's session does not exist, for this one. */
  if (peer == NULL || !snodo_http_auth_owns_session (peer, msg))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_NOT_FOUND, frame->id, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Session not found"));
      return;
    }
  peer->last_active = g_get_monotonic_time ();
  if (version_header != NULL &&
      (header_version == SNODO_PROTOCOL_VERSION_UNKNOWN ||
       snodo_protocol_version_is_stateless (header_version) ||
       !snodo_server_is_version_enabled (self->server, header_version)))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame->id, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Bad request: unsupported MCP-Protocol-Version"));
      return;
    }

  {
    g_autoptr(GHashTable) dispatch_headers =
      new_headers (version_header != NULL ? version_header : peer->protocol_version);

    if (!snodo_http_auth_check_tool (self, msg, frame))
      return;
    snodo_http_auth_bind (peer, msg);

    switch (frame->kind)
      {
      case SNODO_FRAME_REQUEST:
        {
          Exchange *ex;

          /* Its answer's stream may be closed, the request still going
           * (snodo-http-resume.c). */
          if (g_hash_table_contains (peer->exchanges, frame->key) ||
              snodo_http_resume_has_request (peer, frame->key))
            {
              snodo_http_reply_error (msg, SOUP_STATUS_OK, frame->id, SNODO_RPC_ERROR_INVALID_REQUEST,
                                      _("Invalid request: the id is already in use by a request in progress"));
              return;
            }
          ex = snodo_http_exchange_new (self, peer, msg, frame->key);
          ex->is_initialize = g_str_equal (frame->method, "initialize");
          g_hash_table_insert (peer->exchanges, g_strdup (frame->key), ex);
          snodo_http_exchange_watch_hangup (ex);
          snodo_server_dispatch (self->server, peer->connection, frame, dispatch_headers, len);
          return;
        }

      case SNODO_FRAME_NOTIFICATION:
        snodo_server_dispatch (self->server, peer->connection, frame, dispatch_headers, len);
        snodo_http_reply_status (msg, SOUP_STATUS_ACCEPTED);
        return;

      case SNODO_FRAME_RESPONSE:
        snodo_server_dispatch (self->server, peer->connection, frame, dispatch_headers, len);
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
