/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient over the HTTP+SSE transport of MCP 2024-11-05, for servers
 * that speak only that: when the server answers the initialize POST with
 * 400, 404 or 405 (snodo-client-http.c), a GET at the server's URL opens
 * an event stream whose first event, `endpoint`, names (relative to that
 * URL, on the same origin) where every message of the client is POSTed;
 * the answers to those POSTs carry nothing, and every message of the
 * server comes on the stream as a `message` event. The stream is the
 * session: when it ends, the connection does. Events are bounded by
 * max-line-bytes (snodo-client-sse.c). See snodo-client-private.h. */

#include "config.h"

#include <string.h>

#include "snodo-client-legacy-sse.h"

#include "snodo-base-private.h"

#define LEGACY_READ_SIZE 65536

struct _SnodoClientLegacy
{
  SnodoClient *client;
  SoupSession *session;
  GUri *uri;
  /* Cancels the stream and every POST. Owned. */
  GCancellable *cancellable;
  SoupMessage *get;
  GInputStream *body;
  SnodoSseParser parser;
  /* Where messages are POSTed, from the endpoint event; NULL before. */
  GUri *endpoint;
  /* The messages sent before the endpoint came (Waiting). */
  GQueue waiting;
  /* The request whose POST was refused (the initialize), failed with
   * @refused when no event stream opens. Owned. */
  char *key;
  GError *refused;
};

typedef struct
{
  GBytes *line;
  char *key;
} Waiting;

typedef struct
{
  SnodoClient *client;
  char *key;
  SoupMessage *message;
} Post;

static void
waiting_free (Waiting *waiting)
{
  g_bytes_unref (waiting->line);
  g_free (waiting->key);
  g_free (waiting);
}

static void
post_free (Post *post)
{
  g_object_unref (post->message);
  g_object_unref (post->client);
  g_free (post->key);
  g_free (post);
}

static void
set_headers (SnodoClient *self,
             SoupMessage *message)
{
  GHashTableIter iter;
  gpointer name;
  gpointer value;

  /* The application's own, Authorization among them. */
  g_hash_table_iter_init (&iter, self->http_headers);
  while (g_hash_table_iter_next (&iter, &name, &value))
    soup_message_headers_replace (soup_message_get_request_headers (message), name, value);
}

static void
legacy_body_closed_cb (GObject      *source,
                       GAsyncResult *result,
                       gpointer      user_data)
{
  g_input_stream_close_finish (G_INPUT_STREAM (source), result, NULL);
}

static void
legacy_posted_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  Post *post = user_data;
  SnodoClient *self = post->client;
  g_autoptr(GInputStream) body = NULL;
  g_autoptr(GError) error = NULL;
  guint status;

  /* The answer says only whether the message was taken: 202 or 200. Its
   * body, if any, is skipped, not kept. */
  body = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  if (body != NULL)
    g_input_stream_close_async (body, G_PRIORITY_DEFAULT, NULL, legacy_body_closed_cb, NULL);
  if (body == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_prefix_error (&error, _("Could not reach the server at %s: "), self->uri);
    }
  else if (!SOUP_STATUS_IS_SUCCESSFUL (status = soup_message_get_status (post->message)))
    error = g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED, _("The server answered a message with HTTP %u"), status);
  if (error != NULL && self->state != STATE_CLOSED)
    {
      if (post->key != NULL)
        snodo_client_fail_request (self, post->key, error);
      else
        g_debug ("Sending to the server over HTTP+SSE failed: %s", error->message);
    }
  post_free (post);
}

static void
legacy_send (SnodoClientLegacy *legacy,
             GBytes            *line,
             const char        *key)
{
  Post *post = g_new0 (Post, 1);

  post->client = g_object_ref (legacy->client);
  post->key = g_strdup (key);
  post->message = soup_message_new_from_uri ("POST", legacy->endpoint);
  set_headers (legacy->client, post->message);
  soup_message_set_request_body_from_bytes (post->message, "application/json", line);
  soup_session_send_async (legacy->session, post->message, G_PRIORITY_DEFAULT,
                           legacy->cancellable, legacy_posted_cb, post);
}

void
snodo_client_legacy_post (SnodoClientLegacy *legacy,
                          GBytes            *line,
                          const char        *key)
{
  if (legacy->endpoint == NULL)
    {
      Waiting *waiting = g_new0 (Waiting, 1);

      waiting->line = line;
      waiting->key = g_strdup (key);
      g_queue_push_tail (&legacy->waiting, waiting);
      return;
    }
  legacy_send (legacy, line, key);
  g_bytes_unref (line);
}

/* The endpoint event: where to POST, relative to the server's URL and on
 * its origin (a server does not send the client's headers elsewhere). */
static gboolean
legacy_endpoint (SnodoClientLegacy  *legacy,
                 const char         *data,
                 GError            **error)
{
  g_autoptr(GUri) endpoint = NULL;

  endpoint = g_uri_parse_relative (legacy->uri, data, G_URI_FLAGS_ENCODED, error);
  if (endpoint == NULL)
    return FALSE;
  if (g_ascii_strcasecmp (g_uri_get_scheme (endpoint), g_uri_get_scheme (legacy->uri)) != 0 ||
      g_strcmp0 (g_uri_get_host (endpoint), g_uri_get_host (legacy->uri)) != 0 ||
      g_uri_get_port (endpoint) != g_uri_get_port (legacy->uri))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("The server named an endpoint on another origin: %s"), data);
      return FALSE;
    }
  legacy->endpoint = g_steal_pointer (&endpoint);
  g_clear_pointer (&legacy->key, g_free);
  g_clear_error (&legacy->refused);
  while (!g_queue_is_empty (&legacy->waiting))
    {
      Waiting *waiting = g_queue_pop_head (&legacy->waiting);

      legacy_send (legacy, waiting->line, waiting->key);
      waiting_free (waiting);
    }
  return TRUE;
}

typedef struct
{
  SnodoClientLegacy *legacy;
  GError *error;
} EventData;

static gboolean
legacy_event_cb (const char *event,
                 const char *data,
                 gsize       len,
                 const char *last_event_id,
                 gpointer    user_data)
{
  EventData *event_data = user_data;
  SnodoClientLegacy *legacy = event_data->legacy;
  SnodoClient *self = legacy->client;

  if (g_str_equal (event, "endpoint"))
    {
      /* The first one counts. */
      if (legacy->endpoint == NULL && !legacy_endpoint (legacy, data, &event_data->error))
        return FALSE;
      return TRUE;
    }
  if (!g_str_equal (event, "message") || len == 0)
    return TRUE;
  snodo_client_receive (self, data, len);
  return self->state != STATE_CLOSED;
}

/* The stream ended: so did the session, and the connection. */
static void
legacy_end (SnodoClientLegacy *legacy,
            GError            *error)
{
  SnodoClient *self = legacy->client;

  if (self->state == STATE_CLOSED || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (legacy->refused != NULL && legacy->key != NULL)
    {
      /* No stream at all: the initialize POST's own refusal, with why
       * the fallback failed. */
      g_autoptr(GError) failed = g_error_new (legacy->refused->domain, legacy->refused->code,
                                              _("%s; the HTTP+SSE transport of 2024-11-05 failed too: %s"),
                                              legacy->refused->message,
                                              error != NULL ? error->message : _("no endpoint event"));

      snodo_client_fail_request (self, legacy->key, failed);
      return;
    }
  if (error == NULL)
    {
      g_autoptr(GError) closed = g_error_new (G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                                              _("The server at %s ended its event stream"), self->uri);

      snodo_client_fail (self, closed);
    }
  else
    snodo_client_fail (self, error);
}

static void
legacy_read_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  SnodoClient *self = user_data;
  SnodoClientLegacy *legacy;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) error = NULL;
  EventData event_data = { NULL, NULL };

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, &error);
  legacy = self->http != NULL ? snodo_client_http_get_legacy (self) : NULL;
  if (legacy == NULL)
    {
      g_object_unref (self);
      return;
    }
  if (self->state == STATE_CLOSED)
    {
      /* Closing the client ends the stream. */
      g_input_stream_close (legacy->body, NULL, NULL);
      g_clear_object (&legacy->body);
      g_clear_object (&legacy->get);
      g_object_unref (self);
      return;
    }
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    {
      legacy_end (legacy, error);
      g_object_unref (self);
      return;
    }
  event_data.legacy = legacy;
  if (!snodo_sse_parser_push (&legacy->parser, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                              legacy_event_cb, &event_data, &error))
    {
      if (error == NULL)
        error = event_data.error;
      else
        g_clear_error (&event_data.error);
      g_input_stream_close (legacy->body, NULL, NULL);
      legacy_end (legacy, error);
      g_object_unref (self);
      return;
    }
  g_input_stream_read_bytes_async (legacy->body, LEGACY_READ_SIZE, G_PRIORITY_DEFAULT,
                                   legacy->cancellable, legacy_read_cb, self);
}

static void
legacy_opened_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  SnodoClient *self = user_data;
  SnodoClientLegacy *legacy;
  g_autoptr(GInputStream) body = NULL;
  g_autoptr(GError) error = NULL;
  const char *content_type;
  guint status;

  body = soup_session_send_finish (SOUP_SESSION (source), result, &error);
  legacy = self->http != NULL ? snodo_client_http_get_legacy (self) : NULL;
  if (legacy == NULL || self->state == STATE_CLOSED)
    {
      g_object_unref (self);
      return;
    }
  if (body == NULL)
    {
      legacy_end (legacy, error);
      g_object_unref (self);
      return;
    }
  status = soup_message_get_status (legacy->get);
  content_type = soup_message_headers_get_content_type (soup_message_get_response_headers (legacy->get), NULL);
  if (!SOUP_STATUS_IS_SUCCESSFUL (status) || g_strcmp0 (content_type, "text/event-stream") != 0)
    {
      error = g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("a GET opened no event stream (HTTP %u)"), status);
      g_input_stream_close (body, NULL, NULL);
      legacy_end (legacy, error);
      g_object_unref (self);
      return;
    }
  legacy->body = g_steal_pointer (&body);
  g_input_stream_read_bytes_async (legacy->body, LEGACY_READ_SIZE, G_PRIORITY_DEFAULT,
                                   legacy->cancellable, legacy_read_cb, self);
}

SnodoClientLegacy *
snodo_client_legacy_new (SnodoClient  *self,
                         SoupSession  *session,
                         GUri         *uri,
                         GBytes       *line,
                         const char   *key,
                         const GError *refused)
{
  SnodoClientLegacy *legacy = g_new0 (SnodoClientLegacy, 1);

  g_debug ("The server at %s refused a Streamable HTTP initialize (%s); trying HTTP+SSE",
           self->uri, refused->message);
  legacy->client = self;
  legacy->session = g_object_ref (session);
  legacy->uri = g_uri_ref (uri);
  legacy->cancellable = g_cancellable_new ();
  legacy->key = g_strdup (key);
  legacy->refused = g_error_copy (refused);
  g_queue_init (&legacy->waiting);
  snodo_sse_parser_init (&legacy->parser, (gsize) MIN (self->max_line_bytes, G_MAXSIZE / 2));
  snodo_client_legacy_post (legacy, g_bytes_ref (line), key);

  legacy->get = soup_message_new_from_uri ("GET", uri);
  soup_message_headers_replace (soup_message_get_request_headers (legacy->get), "Accept", "text/event-stream");
  set_headers (self, legacy->get);
  soup_session_send_async (session, legacy->get, G_PRIORITY_DEFAULT, legacy->cancellable,
                           legacy_opened_cb, g_object_ref (self));
  return legacy;
}

void
snodo_client_legacy_stop (SnodoClientLegacy *legacy)
{
  /* The read under way ends with it; the stream's connection is
   * closed, not read to its end (it has none). */
  g_cancellable_cancel (legacy->cancellable);
  soup_session_abort (legacy->session);
  g_queue_clear_full (&legacy->waiting, (GDestroyNotify) waiting_free);
}

void
snodo_client_legacy_free (SnodoClientLegacy *legacy)
{
  snodo_client_legacy_stop (legacy);
  g_clear_object (&legacy->cancellable);
  g_clear_object (&legacy->get);
  g_clear_object (&legacy->body);
  g_clear_object (&legacy->session);
  g_clear_pointer (&legacy->uri, g_uri_unref);
  g_clear_pointer (&legacy->endpoint, g_uri_unref);
  snodo_sse_parser_clear (&legacy->parser);
  g_free (legacy->key);
  g_clear_error (&legacy->refused);
  g_free (legacy);
}
