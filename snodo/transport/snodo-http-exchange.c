/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Answering one HTTP request of the transport (an Exchange): at once
 * (snodo_http_reply_*()), with one JSON body, or with a text/event-stream
 * of the lines the server sends for it; keep-alive comments, the write
 * timeout, the bound on what waits, and noticing a client that left. The
 * exchanges are made by snodo-http-post.c (a POST) and
 * snodo-http-session.c (a session's GET stream), which route the server's
 * lines to them. */

#include "config.h"

#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#ifdef G_OS_UNIX
# include <sys/socket.h>
# include <errno.h>
#endif

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-executor.h"
#include "snodo-executor-private.h"
#include "snodo-http-listener-private.h"
#include "snodo-http-rules-private.h"
#include "snodo-http-transport-private.h"
#include "snodo-server-private.h"
#include "snodo-wire-private.h"

/* Messages waiting to be written to one stream, beyond which the client is
 * taken to be stuck and the stream ends; their bytes are bounded by the
 * transport's max-stream-bytes. */
#define MAX_STREAM_PENDING 256
/* A JSON answer of at least this many bytes is written without a copy,
 * and counted against max-live-bytes until written. */
#define ANSWER_HELD_BYTES (64 * 1024)
/* How often an idle stream gets an SSE comment. */
#define KEEPALIVE_MS 15000
/* How long an answer may take before the socket is watched for the client
 * leaving (see snodo_http_exchange_watch_hangup()). */
#define HANGUP_WATCH_DELAY_MS 20

static void exchange_pump (Exchange *ex);

/* ---- Small helpers -------------------------------------------------------- */

typedef struct
{
  SnodoSendFunc  func;
  gpointer       user_data;
  GError        *error;
} FailLater;

static gboolean
fail_later_cb (gpointer data)
{
  FailLater *later = data;

  later->func (later->error, later->user_data);
  g_clear_error (&later->error);
  g_free (later);
  return G_SOURCE_REMOVE;
}

/* Completes a send with @error from the main loop, never from inside send. */
void
snodo_http_send_fail_later (GMainContext  *context,
                            SnodoSendFunc  func,
                            gpointer       user_data,
                            const GError  *error)
{
  FailLater *later;
  GSource *source;

  if (func == NULL)
    return;
  later = g_new0 (FailLater, 1);
  later->func = func;
  later->user_data = user_data;
  later->error = error != NULL ? g_error_copy (error) : NULL;
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] http send failed");
  g_source_set_callback (source, fail_later_cb, later, NULL);
  g_source_attach (source, context);
  g_source_unref (source);
}

static void
pending_send_finish (PendingSend  *send,
                     const GError *error)
{
  if (send->func != NULL)
    send->func (error, send->user_data);
  g_clear_pointer (&send->line, g_bytes_unref);
  g_free (send->event_id);
  g_free (send);
}

/* Answers @msg at once with a JSON-RPC error body (no id when @id is NULL). */
void
snodo_http_reply_error (SoupServerMessage *msg,
                        guint              status,
                        JsonNode          *id,
                        int                code,
                        const char        *message)
{
  g_autoptr(GBytes) line = snodo_frame_encode_error (id, code, message, NULL);
  gsize len;
  const char *data = g_bytes_get_data (line, &len);

  /* libsoup 3.2 knows no phrase for 421 ("Unknown Error"). */
  soup_server_message_set_status (msg, status,
                                  status == SOUP_STATUS_MISDIRECTED_REQUEST ? "Misdirected Request" : NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, data, len - 1);
}

/* Answers @msg at once with an empty body. */
void
snodo_http_reply_status (SoupServerMessage *msg,
                         guint              status)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_message_body_complete (soup_server_message_get_response_body (msg));
}

/* Answers @msg at once with 405, naming the methods allowed. */
void
snodo_http_reply_method_not_allowed (SoupServerMessage *msg,
                                     const char        *allow)
{
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow", allow);
  snodo_http_reply_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                          _("Method not allowed"));
}

/* The socket of @msg's connection, or NULL. */
GSocket *
snodo_http_transport_get_socket (SnodoHttpTransport *self,
                                 SoupServerMessage  *msg)
{
  if (self->listener != NULL)
    return snodo_http_listener_get_socket (self->listener, msg);
  return soup_server_message_get_socket (msg);
}

/* ---- Exchanges ----------------------------------------------------------- */

/* Stops watching for the client leaving (or waiting to). */
static void
exchange_unwatch_hangup (Exchange *ex)
{
  if (ex->hangup_queued)
    {
      g_queue_unlink (&ex->transport->hangup_waiting, &ex->hangup_link);
      ex->hangup_queued = FALSE;
    }
  g_clear_pointer (&ex->hangup_source, snodo_source_destroy_and_unref);
}

static void
exchange_disarm (Exchange *ex)
{
  g_clear_pointer (&ex->write_timeout_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&ex->writable_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&ex->keepalive_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&ex->lifetime_source, snodo_source_destroy_and_unref);
  exchange_unwatch_hangup (ex);
}

/* Fails every send not yet written. */
static void
exchange_fail_sends (Exchange     *ex,
                     const GError *error)
{
  PendingSend *send;

  if (ex->in_flight != NULL)
    pending_send_finish (g_steal_pointer (&ex->in_flight), error);
  while ((send = g_queue_pop_head (&ex->pending)))
    pending_send_finish (send, error);
  ex->pending_bytes = 0;
}

/* Entry: the message finished (or the transport goes away). */
void
snodo_http_exchange_free (Exchange *ex)
{
  Peer *peer = ex->peer;
  SnodoHttpTransport *self = ex->transport;

  exchange_disarm (ex);
  /* Usually every send is done by now: no error (and no translated
   * message) to make. */
  if (ex->in_flight != NULL || !g_queue_is_empty (&ex->pending))
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                     _("The HTTP stream is closed"));

      exchange_fail_sends (ex, error);
    }

  g_clear_signal_handler (&ex->wrote_chunk_id, ex->msg);
  g_hash_table_remove (self->exchanges, ex->msg);
  if (self->listener != NULL)
    snodo_http_listener_release (self->listener, ex->msg);

  if (peer != NULL)
    {
      if (ex->resumable)
        snodo_http_resume_exchange_gone (ex);
      if (peer->standalone == ex)
        peer->standalone = NULL;
      else if (ex->key != NULL && g_hash_table_lookup (peer->exchanges, ex->key) == ex)
        g_hash_table_remove (peer->exchanges, ex->key);

      /* The client left before the answer: 2026-07-28 reads that as
       * cancellation. */
      if (ex->cancel_on_close && ex->key != NULL && !peer->ended &&
          (ex->state != EXCHANGE_DONE || ex->aborted))
        snodo_executor_cancel (peer->executor, peer->owner, ex->key);
    }
  if (ex->stream_address != NULL)
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (self->streams_per_address, ex->stream_address));

      if (n > 1)
        g_hash_table_insert (self->streams_per_address, g_strdup (ex->stream_address), GUINT_TO_POINTER (n - 1));
      else
        g_hash_table_remove (self->streams_per_address, ex->stream_address);
      self->n_streams--;
      g_free (ex->stream_address);
    }

  if (ex->held_bytes > 0)
    {
      snodo_executor_release_live_bytes (self->executor, ex->held_bytes);
      snodo_memory_give_back (ex->held_bytes);
    }
  g_clear_object (&ex->msg);
  g_free (ex->key);
  g_free (ex);

  if (peer != NULL && peer->stateless)
    snodo_http_peer_end (peer, TRUE);
  snodo_http_transport_check_closed (self);
}

/* The server's request-finished and request-aborted, emitted right after
 * the message's own "finished". */
void
snodo_http_exchange_finished_cb (SoupServer        *server,
                                 SoupServerMessage *msg,
                                 gpointer           user_data)
{
  SnodoHttpTransport *self = user_data;
  Exchange *ex = g_hash_table_lookup (self->exchanges, msg);

  if (ex == NULL)
    return;
  if (ex->in_flight != NULL && ex->state == EXCHANGE_DONE && !ex->aborted)
    {
      /* The JSON answer went out. */
      pending_send_finish (g_steal_pointer (&ex->in_flight), NULL);
    }
  snodo_http_exchange_free (ex);
}

static void exchange_arm_write_timeout (Exchange *ex);

/* The socket became writable again while a write was blocked: the client
 * reads, the deadline starts over. */
static gboolean
exchange_writable_cb (GSocket      *socket,
                      GIOCondition  condition,
                      gpointer      user_data)
{
  Exchange *ex = user_data;

  g_clear_pointer (&ex->writable_source, g_source_unref);
  exchange_arm_write_timeout (ex);
  return G_SOURCE_REMOVE;
}

/* The write deadline runs while a write is blocked, not while an answer
 * waits for its turn (a main loop busy elsewhere): when it comes and the
 * socket can take more bytes, it starts over; when the socket is full, a
 * second one starts, which the client ends by reading. */
static gboolean
exchange_write_timeout_cb (gpointer user_data)
{
  Exchange *ex = user_data;
  GSocket *socket = snodo_http_transport_get_socket (ex->transport, ex->msg);

  g_clear_pointer (&ex->write_timeout_source, g_source_unref);
  if (socket != NULL && ex->writable_source == NULL)
    {
      if (g_socket_condition_check (socket, G_IO_OUT) & G_IO_OUT)
        {
          exchange_arm_write_timeout (ex);
          return G_SOURCE_REMOVE;
        }
      ex->writable_source = g_socket_create_source (socket, G_IO_OUT, NULL);
      g_source_set_static_name (ex->writable_source, "[snodo] http write blocked");
      g_source_set_callback (ex->writable_source, G_SOURCE_FUNC (exchange_writable_cb), ex, NULL);
      g_source_attach (ex->writable_source, ex->transport->context);
      ex->write_timeout_source = g_timeout_source_new (ex->transport->write_timeout);
      g_source_set_static_name (ex->write_timeout_source, "[snodo] http write timeout");
      g_source_set_callback (ex->write_timeout_source, exchange_write_timeout_cb, ex, NULL);
      g_source_attach (ex->write_timeout_source, ex->transport->context);
      return G_SOURCE_REMOVE;
    }
  g_debug ("A write to an HTTP client was blocked longer than %u ms; ending its stream",
           ex->transport->write_timeout);
  snodo_http_exchange_abort (ex);
  return G_SOURCE_REMOVE;
}

static void
exchange_arm_write_timeout (Exchange *ex)
{
  g_clear_pointer (&ex->write_timeout_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&ex->writable_source, snodo_source_destroy_and_unref);
  ex->write_timeout_source = g_timeout_source_new (ex->transport->write_timeout);
  g_source_set_static_name (ex->write_timeout_source, "[snodo] http write timeout");
  g_source_set_callback (ex->write_timeout_source, exchange_write_timeout_cb, ex, NULL);
  g_source_attach (ex->write_timeout_source, ex->transport->context);
}

/* Entry: any state. The client is gone or stuck, or the transport ends the
 * exchange: nothing more is written, the sends fail, the socket is shut so
 * that libsoup finishes the message. */
void
snodo_http_exchange_abort (Exchange *ex)
{
  g_autoptr(GError) error = NULL;
  GSocket *socket;

  if (ex->aborted)
    return;
  ex->aborted = TRUE;
  exchange_disarm (ex);
  error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED, _("The HTTP stream was ended"));
  exchange_fail_sends (ex, error);

  socket = snodo_http_transport_get_socket (ex->transport, ex->msg);
  if (socket != NULL)
    g_socket_shutdown (socket, TRUE, TRUE, NULL);

  if (ex->state == EXCHANGE_WAITING)
    soup_server_message_set_status (ex->msg, SOUP_STATUS_SERVICE_UNAVAILABLE, NULL);
  else
    soup_message_body_complete (soup_server_message_get_response_body (ex->msg));
  ex->state = EXCHANGE_DONE;
  soup_server_message_unpause (ex->msg);
}

/* Entry: STREAMING or WAITING. Ends the exchange gracefully: a waiting one
 * with @status, a stream after what is already handed to libsoup. */
void
snodo_http_exchange_end (Exchange *ex,
                         guint     status)
{
  g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                 _("The HTTP stream was ended"));
  PendingSend *send;

  if (ex->state == EXCHANGE_DONE)
    return;
  g_clear_pointer (&ex->keepalive_source, snodo_source_destroy_and_unref);
  exchange_unwatch_hangup (ex);
  while ((send = g_queue_pop_head (&ex->pending)))
    pending_send_finish (send, error);
  ex->pending_bytes = 0;

  if (ex->state == EXCHANGE_WAITING)
    snodo_http_reply_status (ex->msg, status);
  else
    soup_message_body_complete (soup_server_message_get_response_body (ex->msg));
  ex->state = EXCHANGE_DONE;
  soup_server_message_unpause (ex->msg);
}

static gboolean
exchange_keepalive_cb (gpointer user_data)
{
  Exchange *ex = user_data;

  if (ex->in_flight == NULL && g_queue_is_empty (&ex->pending) && ex->state == EXCHANGE_STREAMING)
    {
      static const char comment[] = ": keepalive\n\n";

      ex->in_flight = g_new0 (PendingSend, 1);
      soup_message_body_append (soup_server_message_get_response_body (ex->msg),
                                SOUP_MEMORY_STATIC, comment, sizeof comment - 1);
      exchange_arm_write_timeout (ex);
      soup_server_message_unpause (ex->msg);
    }
  return G_SOURCE_CONTINUE;
}

static void
exchange_wrote_chunk_cb (SoupServerMessage *msg,
                         gpointer           user_data)
{
  Exchange *ex = user_data;

  if (ex->in_flight == NULL || ex->state != EXCHANGE_STREAMING)
    return;
  g_clear_pointer (&ex->write_timeout_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&ex->writable_source, snodo_source_destroy_and_unref);
  pending_send_finish (g_steal_pointer (&ex->in_flight), NULL);
  exchange_pump (ex);
}

#ifdef G_OS_UNIX
/* While a request waits for its answer libsoup does not read the socket;
 * this notices a client that closed its end, which cancels a 2026-07-28
 * request. Data from the client (a pipelined request) stops the watch. */
static gboolean
exchange_hangup_cb (GSocket      *socket,
                    GIOCondition  condition,
                    gpointer      user_data)
{
  Exchange *ex = user_data;
  char byte;
  gssize n;

  n = recv (g_socket_get_fd (socket), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
    return G_SOURCE_CONTINUE;
  g_clear_pointer (&ex->hangup_source, g_source_unref);
  if (n > 0)
    return G_SOURCE_REMOVE;
  g_debug ("An HTTP client left before its answer");
  snodo_http_exchange_abort (ex);
  return G_SOURCE_REMOVE;
}
#endif

#ifdef G_OS_UNIX
static void
exchange_watch_hangup_now (Exchange *ex)
{
  GSocket *socket = snodo_http_transport_get_socket (ex->transport, ex->msg);

  if (socket == NULL)
    return;
  ex->hangup_source = g_socket_create_source (socket, G_IO_IN | G_IO_HUP | G_IO_ERR, NULL);
  g_source_set_static_name (ex->hangup_source, "[snodo] http hangup");
  g_source_set_callback (ex->hangup_source, G_SOURCE_FUNC (exchange_hangup_cb), ex, NULL);
  g_source_attach (ex->hangup_source, ex->transport->context);
}

/* Gives the exchanges that have waited long enough their socket watch. */
static gboolean
snodo_http_transport_hangup_tick_cb (gpointer user_data)
{
  SnodoHttpTransport *self = user_data;
  gint64 due = g_get_monotonic_time () - HANGUP_WATCH_DELAY_MS * G_TIME_SPAN_MILLISECOND;
  GList *link;

  while ((link = g_queue_peek_head_link (&self->hangup_waiting)) != NULL &&
         ((Exchange *) link->data)->waiting_since <= due)
    {
      Exchange *ex = link->data;

      g_queue_unlink (&self->hangup_waiting, link);
      ex->hangup_queued = FALSE;
      exchange_watch_hangup_now (ex);
    }
  if (g_queue_is_empty (&self->hangup_waiting))
    {
      g_clear_pointer (&self->hangup_tick_source, g_source_unref);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}
#endif

/* Watches for the client leaving while the answer is awaited, once the
 * answer has taken HANGUP_WATCH_DELAY_MS (to twice that): most answers
 * come sooner, and adding and removing a socket's watch costs the main
 * loop two wakeups. Until then the exchange only joins a queue, which
 * one timer for all of them looks at. */
void
snodo_http_exchange_watch_hangup (Exchange *ex)
{
#ifdef G_OS_UNIX
  SnodoHttpTransport *self = ex->transport;

  if (ex->hangup_queued || ex->hangup_source != NULL)
    return;
  ex->waiting_since = g_get_monotonic_time ();
  ex->hangup_link.data = ex;
  g_queue_push_tail_link (&self->hangup_waiting, &ex->hangup_link);
  ex->hangup_queued = TRUE;
  if (self->hangup_tick_source == NULL)
    {
      self->hangup_tick_source = g_timeout_source_new (HANGUP_WATCH_DELAY_MS);
      g_source_set_static_name (self->hangup_tick_source, "[snodo] http hangup delay");
      g_source_set_callback (self->hangup_tick_source, snodo_http_transport_hangup_tick_cb, self, NULL);
      g_source_attach (self->hangup_tick_source, self->context);
    }
#endif
}

/* Entry: WAITING. Commits to a text/event-stream. */
void
snodo_http_exchange_start_stream (Exchange *ex)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (ex->msg);

  ex->state = EXCHANGE_STREAMING;
  soup_server_message_set_status (ex->msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
  /* An event written is forgotten: by default the body keeps every chunk
   * until the message ends, which a stream that lives for hours turns into
   * memory without bound. */
  soup_message_body_set_accumulate (soup_server_message_get_response_body (ex->msg), FALSE);
  ex->wrote_chunk_id = g_signal_connect (ex->msg, "wrote-chunk", G_CALLBACK (exchange_wrote_chunk_cb), ex);

  ex->keepalive_source = g_timeout_source_new (KEEPALIVE_MS);
  g_source_set_static_name (ex->keepalive_source, "[snodo] http keepalive");
  g_source_set_callback (ex->keepalive_source, exchange_keepalive_cb, ex, NULL);
  g_source_attach (ex->keepalive_source, ex->transport->context);
}

/* Entry: STREAMING. Hands the next line to libsoup if none is in flight. */
static void
exchange_pump (Exchange *ex)
{
  g_autoptr(GBytes) bytes = NULL;
  PendingSend *send;
  GString *chunk;
  gsize len;
  const char *data;

  if (ex->state != EXCHANGE_STREAMING || ex->in_flight != NULL)
    return;

  send = g_queue_pop_head (&ex->pending);
  if (send == NULL)
    {
      if (ex->answer_queued)
        {
          /* The answer is written: the stream ends. */
          soup_message_body_complete (soup_server_message_get_response_body (ex->msg));
          ex->state = EXCHANGE_DONE;
          g_clear_pointer (&ex->keepalive_source, snodo_source_destroy_and_unref);
          soup_server_message_unpause (ex->msg);
        }
      return;
    }

  data = g_bytes_get_data (send->line, &len);
  ex->pending_bytes -= len;
  if (len > 0 && data[len - 1] == '\n')
    len--;
  chunk = g_string_sized_new (len + 48);
  if (send->event_id != NULL && len == 0)
    {
      /* A priming event: an id, no data, and when to come back. */
      g_string_append_printf (chunk, "id: %s\n", send->event_id);
      if (ex->transport->stream_retry > 0)
        g_string_append_printf (chunk, "retry: %u\n", ex->transport->stream_retry);
      g_string_append (chunk, "data: \n\n");
      goto write;
    }
  if (send->event_id != NULL)
    g_string_append_printf (chunk, "id: %s\n", send->event_id);
  g_string_append_len (chunk, "event: message\ndata: ", 21);
  g_string_append_len (chunk, data, len);
  g_string_append_len (chunk, "\n\n", 2);

write:
  ex->in_flight = send;
  bytes = g_string_free_to_bytes (chunk);
  soup_message_body_append_bytes (soup_server_message_get_response_body (ex->msg), bytes);
  exchange_arm_write_timeout (ex);
  soup_server_message_unpause (ex->msg);
}

/* Entry: any state. Ends a stream once what is queued is written, as
 * after an answer: the transport closes it for its client to resume it. */
void
snodo_http_exchange_finish (Exchange *ex)
{
  if (ex->state != EXCHANGE_STREAMING || ex->aborted)
    return;
  ex->answer_queued = TRUE;
  exchange_pump (ex);
}

/* Entry: WAITING. Answers with one JSON body. */
static void
exchange_answer_json (Exchange    *ex,
                      PendingSend *send,
                      int          code)
{
  gsize len;
  const char *data = g_bytes_get_data (send->line, &len);
  guint status = SOUP_STATUS_OK;

  if (ex->cancel_on_close)
    status = snodo_http_status_for_code (code);
  if (len > 0 && data[len - 1] == '\n')
    len--;

  exchange_unwatch_hangup (ex);
  soup_server_message_set_status (ex->msg, status, NULL);
  if (len < ANSWER_HELD_BYTES)
    soup_server_message_set_response (ex->msg, "application/json", SOUP_MEMORY_COPY, data, len);
  else
    {
      SoupMessageBody *body = soup_server_message_get_response_body (ex->msg);
      g_autoptr(GBytes) answer = g_bytes_new_from_bytes (send->line, 0, len);

      /* Written from the line itself, no copy; until it is written, it
       * counts against max-live-bytes, as the work that made it did. */
      soup_message_headers_set_content_type (soup_server_message_get_response_headers (ex->msg),
                                             "application/json", NULL);
      soup_message_body_append_bytes (body, answer);
      soup_message_body_complete (body);
      ex->held_bytes = len;
      snodo_executor_hold_live_bytes (ex->transport->executor, ex->held_bytes);
    }
  ex->state = EXCHANGE_DONE;
  ex->in_flight = send;
  exchange_arm_write_timeout (ex);
  soup_server_message_unpause (ex->msg);
}

/* Entry: any state. Queues @line on @ex. Takes @line. */
void
snodo_http_exchange_send (Exchange      *ex,
                          GBytes        *line,
                          SnodoSendFunc  func,
                          gpointer       user_data)
{
  snodo_http_exchange_send_event (ex, NULL, line, func, user_data);
}

/* The same, as the SSE event @event_id (NULL: none); an empty @line with
 * an id is a priming event. */
void
snodo_http_exchange_send_event (Exchange      *ex,
                                const char    *event_id,
                                GBytes        *line,
                                SnodoSendFunc  func,
                                gpointer       user_data)
{
  PendingSend *send;
  gboolean is_answer;
  int code = 0;

  if (ex->state == EXCHANGE_DONE || ex->aborted)
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CLOSED,
                                                     _("The HTTP stream is closed"));

      snodo_http_send_fail_later (ex->transport->context, func, user_data, error);
      g_bytes_unref (line);
      return;
    }

  send = g_new0 (PendingSend, 1);
  send->line = line;
  send->func = func;
  send->user_data = user_data;
  send->event_id = g_strdup (event_id);
  is_answer = ex->key != NULL && g_bytes_get_size (line) > 0 && snodo_http_line_is_response (line, &code);

  if (is_answer && ex->is_initialize && code != 0 && ex->peer != NULL && ex->peer->session_id != NULL)
    {
      g_autofree char *session_id = g_strdup (ex->peer->session_id);

      /* A failed initialize makes no session; its answer still goes out. */
      soup_message_headers_remove (soup_server_message_get_response_headers (ex->msg), SESSION_HEADER);
      g_hash_table_remove (ex->peer->exchanges, ex->key);
      ex->peer = NULL;
      g_hash_table_remove (ex->transport->sessions, session_id);
    }

  if (ex->state == EXCHANGE_WAITING)
    {
      if (is_answer && !ex->stream_only)
        {
          exchange_answer_json (ex, send, code);
          return;
        }
      snodo_http_exchange_start_stream (ex);
    }

  g_queue_push_tail (&ex->pending, send);
  ex->pending_bytes += g_bytes_get_size (line);
  if (is_answer)
    ex->answer_queued = TRUE;

  if (g_queue_get_length (&ex->pending) > MAX_STREAM_PENDING ||
      ex->pending_bytes > ex->transport->max_stream_bytes)
    {
      g_debug ("An HTTP client does not keep up with its stream; ending it");
      snodo_http_exchange_abort (ex);
      return;
    }
  exchange_pump (ex);
}

/* Whether one more subscriptions/listen or GET stream may open for @msg's
 * client: at most max-streams at once, and max-streams-per-address from
 * one address. If not, answers 503 with error -32010 (and @id). */
gboolean
snodo_http_transport_admit_stream (SnodoHttpTransport *self,
                                   SoupServerMessage  *msg,
                                   JsonNode           *id)
{
  const char *address = soup_server_message_get_remote_host (msg);
  guint from_address = 0;
  g_autofree char *limit = NULL;
  g_autofree char *message = NULL;

  if (address != NULL)
    from_address = GPOINTER_TO_UINT (g_hash_table_lookup (self->streams_per_address, address));
  if (self->n_streams < self->max_streams && from_address < self->max_streams_per_address)
    return TRUE;

  /* A text for the number: gettext cannot see through G_GUINT*. */
  if (self->n_streams >= self->max_streams)
    {
      limit = g_strdup_printf ("%u", self->max_streams);
      message = g_strdup_printf (_("Server overloaded: too many streams (at most %s)"), limit);
    }
  else
    {
      limit = g_strdup_printf ("%u", self->max_streams_per_address);
      message = g_strdup_printf (_("Server overloaded: too many streams from one address (at most %s)"), limit);
    }
  snodo_http_reply_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, id, SNODO_RPC_ERROR_SERVER_OVERLOADED, message);
  return FALSE;
}

/* Counts @ex, a stream admitted by snodo_http_transport_admit_stream(),
 * until it is freed. */
void
snodo_http_exchange_count_stream (Exchange *ex)
{
  SnodoHttpTransport *self = ex->transport;
  const char *address = soup_server_message_get_remote_host (ex->msg);
  guint n;

  ex->stream_address = g_strdup (address != NULL ? address : "");
  n = GPOINTER_TO_UINT (g_hash_table_lookup (self->streams_per_address, ex->stream_address));
  g_hash_table_insert (self->streams_per_address, g_strdup (ex->stream_address), GUINT_TO_POINTER (n + 1));
  self->n_streams++;
}

Exchange *
snodo_http_exchange_new (SnodoHttpTransport *self,
                         Peer               *peer,
                         SoupServerMessage  *msg,
                         const char         *key)
{
  Exchange *ex = g_new0 (Exchange, 1);

  ex->transport = self;
  ex->peer = peer;
  ex->msg = g_object_ref (msg);
  ex->key = g_strdup (key);
  ex->state = EXCHANGE_WAITING;
  g_queue_init (&ex->pending);
  g_hash_table_insert (self->exchanges, msg, ex);
  /* Its connection is busy, not idle, until the exchange ends. */
  if (self->listener != NULL)
    snodo_http_listener_hold (self->listener, msg);

  /* No handler on the message itself: connecting and disconnecting
   * them was a good share of the transport's own cost per request. The
   * server's request-finished/aborted end the exchange; a JSON answer's
   * send completes there too, right after libsoup wrote it. */
  soup_server_message_pause (msg);
  return ex;
}
