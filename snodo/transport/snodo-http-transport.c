/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include <glib.h>

#ifdef G_OS_UNIX
# include <sys/socket.h>
# include <errno.h>
#endif

#include <libsoup/soup.h>

#include "snodo-http-transport.h"
#include "snodo-http-listener-private.h"
#include "snodo-http-rules-private.h"
#include "snodo-private.h"

/**
 * SnodoHttpTransport:
 *
 * Serves a [class@Snodo.Server] over MCP's Streamable HTTP transport, on a
 * `SoupServer` listening on the loopback interface.
 *
 * One endpoint ([property@Snodo.HttpTransport:path], `/mcp` by default)
 * serves all three protocol versions, classified by the body of each POST:
 *
 * - A request whose `params._meta` carries
 *   `io.modelcontextprotocol/protocolVersion` is a 2026-07-28 request and is
 *   served statelessly, on a connection of its own. It must carry the
 *   `MCP-Protocol-Version`, `Mcp-Method` and (for `tools/call`,
 *   `prompts/get` and `resources/read`) `Mcp-Name` headers, which must agree
 *   with the body (HTTP 400, error -32020). Errors about the request itself
 *   are answered with HTTP 400, an unknown method with 404. Closing the
 *   response stream cancels the request.
 * - `initialize` starts a session of the initialize era (2025-06-18,
 *   2025-11-25): the answer carries an `Mcp-Session-Id` header, which every
 *   later request of the session must carry. A GET opens the session's
 *   stream for messages that belong to no request, and DELETE ends the
 *   session.
 *
 * A request is answered with a JSON body when its answer is the only
 * message that belongs to it, and with a `text/event-stream` otherwise (as
 * soon as a progress notification, a log message or a request to the client
 * comes before the answer). `subscriptions/listen` always gets a stream,
 * kept alive with comments until the subscription ends.
 *
 * Every request is checked: a present `Origin` must be allowed
 * ([property@Snodo.HttpTransport:allowed-origins], 403), the `Host` of a
 * loopback server must name the loopback interface (421), a POST must
 * accept both `application/json` and `text/event-stream` (406), have a JSON
 * body (415) of at most [property@Snodo.HttpTransport:max-body-bytes]
 * (413).
 *
 * Connections are kept alive between requests. One that the client closes
 * is closed at once; one idle for
 * [property@Snodo.HttpTransport:connection-idle-timeout] seconds is closed
 * by the transport; at most [property@Snodo.HttpTransport:max-connections]
 * are open at once. The listening socket has a backlog of 4096 (as far as
 * the system allows), so a burst of clients connecting at once waits for
 * no retransmission.
 *
 * No stream can hang the server: each write to a client must finish within
 * [property@Snodo.HttpTransport:write-timeout] milliseconds, and a stream
 * holds a bounded number of messages waiting to be written; a client that
 * does not keep up loses its stream (and its request is cancelled).
 *
 * The transport lives on the main context that is the thread-default one
 * when it is created. While it listens it holds a reference to itself, so
 * it keeps serving when its creator lets go of it (as a Python or
 * JavaScript function that starts a server and returns does); end it with
 * [method@Snodo.HttpTransport.close_async], which releases that reference
 * once the transport has closed.
 *
 * In Python:
 *
 * ```python
 * transport = Snodo.HttpTransport.new(server)
 * transport.listen_local(0)  # 0: any free port; raises GLib.Error on failure
 * print(transport.dup_uri(), flush=True)  # http://127.0.0.1:PORT/mcp
 * GLib.MainLoop().run()
 * ```
 *
 * In JavaScript:
 *
 * ```js
 * const transport = Snodo.HttpTransport.new(server);
 * transport.listen_local(0);  // 0: any free port; throws on failure
 * print(transport.dup_uri());  // http://127.0.0.1:PORT/mcp
 * new GLib.MainLoop(null, false).run();
 * ```
 *
 * Since: 0.1
 */

#define DEFAULT_PATH "/mcp"
#define SESSION_HEADER "Mcp-Session-Id"
/* Messages waiting to be written to one stream, beyond which the client is
 * taken to be stuck and the stream ends. */
#define MAX_STREAM_PENDING 256
#define MAX_STREAM_PENDING_BYTES (16 * 1024 * 1024)
/* How often an idle stream gets an SSE comment. */
#define KEEPALIVE_MS 15000
/* How long an answer may take before the socket is watched for the client
 * leaving (see exchange_watch_hangup()). */
#define HANGUP_WATCH_DELAY_MS 20

typedef enum
{
  STATE_NEW,
  STATE_LISTENING,
  /* close_async(): subscriptions end, streams finish. */
  STATE_CLOSING,
  STATE_CLOSED,
} State;

typedef enum
{
  /* Paused, nothing sent yet: the answer may still be a JSON body. */
  EXCHANGE_WAITING,
  /* Headers of a text/event-stream are out; lines go as events. */
  EXCHANGE_STREAMING,
  /* The last byte is handed to libsoup; waiting for "finished". */
  EXCHANGE_DONE,
} ExchangeState;

typedef struct _Peer Peer;

typedef struct
{
  GBytes        *line;
  SnodoSendFunc  func;
  gpointer       user_data;
} PendingSend;

/* One HTTP request being answered: a POSTed request, or a session's GET
 * stream. Freed on the message's "finished". */
typedef struct
{
  SnodoHttpTransport *transport;
  /* Owned by the exchange until it ends; the peer outlives the exchange. */
  Peer               *peer;
  SoupServerMessage  *msg;
  /* The key of the client request, NULL for a session's GET stream. */
  char               *key;
  ExchangeState       state;
  /* Always a stream: subscriptions/listen, GET. */
  guint               stream_only : 1;
  /* The answer is queued: the stream ends after it. */
  guint               answer_queued : 1;
  /* initialize: the answer tells whether the session lives. */
  guint               is_initialize : 1;
  /* Closing the stream cancels the request (2026-07-28). */
  guint               cancel_on_close : 1;
  /* Ended by the transport or the client, not by the answer. */
  guint               aborted : 1;
  /* Lines waiting for their turn (PendingSend), and their size. */
  GQueue              pending;
  gsize               pending_bytes;
  /* The line handed to libsoup and not yet written, or NULL. An entry
   * with a NULL line is a keep-alive comment. */
  PendingSend        *in_flight;
  GSource            *write_timeout_source;
  GSource            *keepalive_source;
  /* Watches the socket while waiting, to notice a client that left. */
  GSource            *hangup_source;
  /* Until then, the exchange's place in the transport's hangup_waiting
   * (data is the exchange; linked while hangup_queued), and since when it
   * waits (monotonic time). */
  GList               hangup_link;
  gint64              waiting_since;
  guint               hangup_queued : 1;
  /* Connected for a stream only; the end of the exchange comes through
   * the server's request-finished/aborted (see exchange_new()). */
  gulong              wrote_chunk_id;
} Exchange;

/* What the server sees as a connection: a session (initialize era) or one
 * stateless request. */
struct _Peer
{
  SnodoHttpTransport *transport;
  SnodoConnection    *connection;
  /* The identity of the peer's work in the executor; kept until the
   * executor holds no work of it. */
  GObject            *owner;
  /* key -> Exchange (borrowed; the exchange removes itself). */
  GHashTable         *exchanges;
  /* The session's GET stream, or NULL. */
  Exchange           *standalone;
  /* NULL for a stateless peer. */
  char               *session_id;
  /* The version initialize negotiated, or NULL. */
  char               *protocol_version;
  /* When the session last had a request (monotonic time). */
  gint64              last_active;
  /* A stateless peer ends with its one exchange. */
  guint               stateless : 1;
  guint               ended : 1;
};

struct _SnodoHttpTransport
{
  GObject          parent_instance;

  /* Construct-only, owned. */
  SnodoServer     *server;
  SnodoExecutor   *executor;
  char            *path;
  /* The context the transport was created in; everything is touched there. */
  GMainContext    *context;

  /* Owned, from listen_local(). */
  SoupServer      *soup;
  /* Owned, from listen_local(): the listening socket and the connections
   * handed to soup. */
  SnodoHttpListener *listener;
  guint16          port;
  /* Host headers must name the loopback interface. */
  guint            check_host : 1;
  /* From listen_local() until closed: the transport holds a reference to
   * itself, as a started stdio transport does. */
  guint            holds_self : 1;

  State            state;
  /* session id -> Peer (owned). */
  GHashTable      *sessions;
  /* Stateless peers (owned), each ending with its exchange. */
  GPtrArray       *stateless;
  /* SoupServerMessage -> its live Exchange (borrowed; each removes
   * itself when freed). */
  GHashTable      *exchanges;

  guint64          max_body_bytes;
  guint            write_timeout;
  /* NULL: only the loopback origins. */
  char           **allowed_origins;
  /* Seconds a session may stay idle; 0 for ever. */
  guint            session_idle_timeout;
  /* The most sessions at once; a new one beyond is refused (503). */
  guint            max_sessions;
  guint            connection_idle_timeout;
  guint            max_connections;
  /* Ends idle sessions, while listening. */
  GSource         *sweep_source;
  /* Exchanges waiting for their answer without a socket watch yet,
   * oldest first (their hangup_link), and the timer that gives them one
   * once they have waited HANGUP_WATCH_DELAY_MS: one timer for all,
   * running only while some wait, rather than one per request. */
  GQueue           hangup_waiting;
  GSource         *hangup_tick_source;

  /* close_async() calls waiting (GTask), and the grace timer. */
  GPtrArray       *close_tasks;
  GSource         *close_timeout_source;
};

G_DEFINE_FINAL_TYPE (SnodoHttpTransport, snodo_http_transport, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_SERVER,
  PROP_EXECUTOR,
  PROP_PATH,
  PROP_MAX_BODY_BYTES,
  PROP_WRITE_TIMEOUT,
  PROP_ALLOWED_ORIGINS,
  PROP_SESSION_IDLE_TIMEOUT,
  PROP_MAX_SESSIONS,
  PROP_CONNECTION_IDLE_TIMEOUT,
  PROP_MAX_CONNECTIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void exchange_pump         (Exchange           *ex);
static void exchange_abort        (Exchange           *ex);
static void peer_end              (Peer               *peer,
                                   gboolean            graceful);
static void snodo_http_transport_check_closed (SnodoHttpTransport *self);

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
static void
send_fail_later (GMainContext  *context,
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
  later->error = g_error_copy (error);
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
  g_free (send);
}

/* Answers @msg at once with a JSON-RPC error body (no id when @id is NULL). */
static void
reply_error (SoupServerMessage *msg,
             guint              status,
             JsonNode          *id,
             int                code,
             const char        *message)
{
  g_autoptr(GBytes) line = snodo_frame_encode_error (id, code, message, NULL);
  gsize len;
  const char *data = g_bytes_get_data (line, &len);

  soup_server_message_set_status (msg, status, NULL);
  soup_server_message_set_response (msg, "application/json", SOUP_MEMORY_COPY, data, len - 1);
}

/* Answers @msg at once with an empty body. */
static void
reply_status (SoupServerMessage *msg,
              guint              status)
{
  soup_server_message_set_status (msg, status, NULL);
  soup_message_body_complete (soup_server_message_get_response_body (msg));
}

static gboolean
snodo_http_transport_origin_allowed (SnodoHttpTransport *self,
                                     const char         *origin)
{
  if (self->allowed_origins != NULL)
    {
      for (guint i = 0; self->allowed_origins[i] != NULL; i++)
        if (g_str_equal (self->allowed_origins[i], "*") ||
            g_ascii_strcasecmp (self->allowed_origins[i], origin) == 0)
          return TRUE;
      return FALSE;
    }
  return snodo_http_origin_is_loopback (origin);
}

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

/* The socket of @msg's connection, or NULL. */
static GSocket *
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
  g_clear_pointer (&ex->keepalive_source, snodo_source_destroy_and_unref);
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
static void
exchange_free (Exchange *ex)
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
      if (peer->standalone == ex)
        peer->standalone = NULL;
      else if (ex->key != NULL && g_hash_table_lookup (peer->exchanges, ex->key) == ex)
        g_hash_table_remove (peer->exchanges, ex->key);

      /* The client left before the answer: 2026-07-28 reads that as
       * cancellation. */
      if (ex->cancel_on_close && ex->key != NULL && !peer->ended &&
          (ex->state != EXCHANGE_DONE || ex->aborted))
        snodo_executor_cancel (self->executor, peer->owner, ex->key);
    }

  g_clear_object (&ex->msg);
  g_free (ex->key);
  g_free (ex);

  if (peer != NULL && peer->stateless)
    peer_end (peer, TRUE);
  snodo_http_transport_check_closed (self);
}

/* The server's request-finished and request-aborted, emitted right after
 * the message's own "finished". */
static void
exchange_finished_cb (SoupServer        *server,
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
  exchange_free (ex);
}

static gboolean
exchange_write_timeout_cb (gpointer user_data)
{
  Exchange *ex = user_data;

  g_clear_pointer (&ex->write_timeout_source, g_source_unref);
  g_debug ("A write to an HTTP client took longer than %u ms; ending its stream",
           ex->transport->write_timeout);
  exchange_abort (ex);
  return G_SOURCE_REMOVE;
}

static void
exchange_arm_write_timeout (Exchange *ex)
{
  g_clear_pointer (&ex->write_timeout_source, snodo_source_destroy_and_unref);
  ex->write_timeout_source = g_timeout_source_new (ex->transport->write_timeout);
  g_source_set_static_name (ex->write_timeout_source, "[snodo] http write timeout");
  g_source_set_callback (ex->write_timeout_source, exchange_write_timeout_cb, ex, NULL);
  g_source_attach (ex->write_timeout_source, ex->transport->context);
}

/* Entry: any state. The client is gone or stuck, or the transport ends the
 * exchange: nothing more is written, the sends fail, the socket is shut so
 * that libsoup finishes the message. */
static void
exchange_abort (Exchange *ex)
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
static void
exchange_end (Exchange *ex,
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
    reply_status (ex->msg, status);
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
  exchange_abort (ex);
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
static void
exchange_watch_hangup (Exchange *ex)
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
static void
exchange_start_stream (Exchange *ex)
{
  SoupMessageHeaders *headers = soup_server_message_get_response_headers (ex->msg);

  ex->state = EXCHANGE_STREAMING;
  soup_server_message_set_status (ex->msg, SOUP_STATUS_OK, NULL);
  soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
  soup_message_headers_replace (headers, "Cache-Control", "no-cache");
  soup_message_headers_replace (headers, "X-Accel-Buffering", "no");
  soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
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
  chunk = g_string_sized_new (len + 24);
  g_string_append_len (chunk, "event: message\ndata: ", 21);
  g_string_append_len (chunk, data, len);
  g_string_append_len (chunk, "\n\n", 2);

  ex->in_flight = send;
  bytes = g_string_free_to_bytes (chunk);
  soup_message_body_append_bytes (soup_server_message_get_response_body (ex->msg), bytes);
  exchange_arm_write_timeout (ex);
  soup_server_message_unpause (ex->msg);
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
  soup_server_message_set_response (ex->msg, "application/json", SOUP_MEMORY_COPY, data, len);
  ex->state = EXCHANGE_DONE;
  ex->in_flight = send;
  exchange_arm_write_timeout (ex);
  soup_server_message_unpause (ex->msg);
}

/* Entry: any state. Queues @line on @ex. Takes @line. */
static void
exchange_send (Exchange      *ex,
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

      send_fail_later (ex->transport->context, func, user_data, error);
      g_bytes_unref (line);
      return;
    }

  send = g_new0 (PendingSend, 1);
  send->line = line;
  send->func = func;
  send->user_data = user_data;
  is_answer = ex->key != NULL && snodo_http_line_is_response (line, &code);

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
      exchange_start_stream (ex);
    }

  g_queue_push_tail (&ex->pending, send);
  ex->pending_bytes += g_bytes_get_size (line);
  if (is_answer)
    ex->answer_queued = TRUE;

  if (g_queue_get_length (&ex->pending) > MAX_STREAM_PENDING ||
      ex->pending_bytes > MAX_STREAM_PENDING_BYTES)
    {
      g_debug ("An HTTP client does not keep up with its stream; ending it");
      exchange_abort (ex);
      return;
    }
  exchange_pump (ex);
}

static Exchange *
exchange_new (SnodoHttpTransport *self,
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
    ex = g_hash_table_lookup (peer->exchanges, related);
  /* Lines of no request (announcements), and requests to the client whose
   * POST is gone, go on the session's GET stream if one is open. */
  if (ex == NULL && peer->standalone != NULL && (related == NULL || !snodo_http_line_is_response (line, &code)))
    ex = peer->standalone;

  if (ex == NULL)
    {
      g_autoptr(GError) error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                                                     _("No HTTP stream is open for this message"));

      send_fail_later (peer->transport->context, func, user_data, error);
      g_bytes_unref (line);
      return;
    }
  exchange_send (ex, line, func, user_data);
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
};

static Peer *
peer_new (SnodoHttpTransport *self,
          gboolean            stateless)
{
  Peer *peer = g_new0 (Peer, 1);

  peer->transport = self;
  peer->owner = g_object_new (G_TYPE_OBJECT, NULL);
  peer->exchanges = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  peer->stateless = stateless;
  peer->connection = snodo_connection_new (&http_connection_vtable, peer, peer->owner,
                                           self->executor, self->context);
  snodo_connection_set_persistent (peer->connection, !stateless);
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

static void
peer_free (Peer *peer)
{
  g_assert (peer->ended);
  g_hash_table_unref (peer->exchanges);
  g_clear_pointer (&peer->connection, snodo_connection_unref);
  g_free (peer->session_id);
  g_free (peer->protocol_version);
  g_free (peer);
}

/* Ends @peer: its exchanges end, its work is cancelled (graceful or not:
 * no one is left to answer), the server hears the connection ended. The
 * peer is freed once its exchanges are. */
static void
peer_end (Peer     *peer,
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
  if (snodo_executor_cancel_owner (self->executor, owner) > 0)
    snodo_executor_wait_owner_async (self->executor, owner, NULL, peer_owner_done_cb, owner);
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
        exchange_end (ex, SOUP_STATUS_NOT_FOUND);
      else if (ex->state == EXCHANGE_WAITING)
        exchange_end (ex, SOUP_STATUS_NOT_FOUND);
    }
  g_list_free (exchanges);

  if (peer->stateless)
    g_ptr_array_remove_fast (self->stateless, peer);
  peer_free (peer);
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
static void
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
        reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                     _("Invalid request: responses are not accepted here"));
      else
        reply_status (msg, SOUP_STATUS_ACCEPTED);
      return;
    }

  peer = peer_new (self, TRUE);
  g_ptr_array_add (self->stateless, peer);
  ex = exchange_new (self, peer, msg, frame->key);
  ex->cancel_on_close = TRUE;
  ex->stream_only = g_str_equal (frame->method, "subscriptions/listen");
  g_hash_table_insert (peer->exchanges, g_strdup (frame->key), ex);
  exchange_watch_hangup (ex);

  headers = new_headers (protocol_version);
  snodo_server_dispatch (self->server, peer->connection, frame, headers, cost);
}

static void
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
      reply_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Not acceptable: the client must accept both application/json and text/event-stream"));
      return;
    }
  content_type = soup_message_headers_get_content_type (headers, NULL);
  if (content_type == NULL || g_ascii_strcasecmp (content_type, "application/json") != 0)
    {
      reply_error (msg, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
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

      reply_error (msg, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST, message);
      return;
    }

  snodo_frame_decode (data, len, &frame);
  switch (frame.kind)
    {
    case SNODO_FRAME_IGNORE:
      reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_PARSE_ERROR,
                   _("Parse error: the body is empty"));
      return;
    case SNODO_FRAME_ERROR:
      reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, frame.error_code, frame.error_message);
      return;
    case SNODO_FRAME_DROP:
      reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
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
      reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_HEADER_MISMATCH,
                   _("Header mismatch: the MCP-Protocol-Version header is given more than once"));
      return;
    }
  if (version_header != NULL)
    header_version = snodo_protocol_version_from_string (version_header);

  /* The body decides the era (mcp-wire §8.4). */
  if (frame.kind != SNODO_FRAME_RESPONSE &&
      snodo_server_is_version_enabled (self->server, SNODO_PROTOCOL_VERSION_2026_07_28) &&
      snodo_dialect_get_envelope (frame.params) != NULL)
    {
      g_autofree char *mismatch = NULL;

      if (frame.kind == SNODO_FRAME_NOTIFICATION)
        {
          reply_status (msg, SOUP_STATUS_ACCEPTED);
          return;
        }
      if (version_header == NULL)
        {
          reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_HEADER_MISMATCH,
                       _("Header mismatch: the MCP-Protocol-Version header is missing"));
          return;
        }
      mismatch = snodo_http_check_standard_headers (self->server, get_request_header, headers, &frame);
      if (mismatch != NULL)
        {
          reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_HEADER_MISMATCH, mismatch);
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
              reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                           _("Bad request: unsupported MCP-Protocol-Version"));
              return;
            }
          if (g_hash_table_size (self->sessions) >= self->max_sessions)
            {
              /* A text for the number: gettext cannot see through G_GUINT*. */
              g_autofree char *limit = g_strdup_printf ("%u", self->max_sessions);
              g_autofree char *message = g_strdup_printf (_("Server overloaded: too many sessions (at most %s)"),
                                                          limit);

              reply_error (msg, SOUP_STATUS_SERVICE_UNAVAILABLE, frame.id,
                           SNODO_RPC_ERROR_SERVER_OVERLOADED, message);
              return;
            }
          peer = peer_new (self, FALSE);
          peer->session_id = new_session_id (&error);
          if (peer->session_id == NULL)
            {
              peer->ended = TRUE;
              snodo_connection_detach (peer->connection);
              snodo_server_connection_ended (self->server, peer->connection, FALSE);
              g_clear_object (&peer->owner);
              peer_free (peer);
              reply_error (msg, SOUP_STATUS_INTERNAL_SERVER_ERROR, frame.id, SNODO_RPC_ERROR_INTERNAL_ERROR,
                           error->message);
              return;
            }
          peer->last_active = g_get_monotonic_time ();
          g_hash_table_insert (self->sessions, g_strdup (peer->session_id), peer);

          ex = exchange_new (self, peer, msg, frame.key);
          ex->is_initialize = TRUE;
          g_hash_table_insert (peer->exchanges, g_strdup (frame.key), ex);
          soup_message_headers_replace (soup_server_message_get_response_headers (msg),
                                        SESSION_HEADER, peer->session_id);
          dispatch_headers = new_headers (header_version != SNODO_PROTOCOL_VERSION_UNKNOWN ? version_header : NULL);
          snodo_server_dispatch (self->server, peer->connection, &frame, dispatch_headers, len);
          return;
        }

      reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Bad request: the Mcp-Session-Id header is missing (send initialize first)"));
      return;
    }

  peer = g_hash_table_lookup (self->sessions, session_id);
  if (peer == NULL)
    {
      reply_error (msg, SOUP_STATUS_NOT_FOUND, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Session not found"));
      return;
    }
  peer->last_active = g_get_monotonic_time ();
  if (version_header != NULL &&
      (header_version == SNODO_PROTOCOL_VERSION_UNKNOWN ||
       snodo_protocol_version_is_stateless (header_version) ||
       !snodo_server_is_version_enabled (self->server, header_version)))
    {
      reply_error (msg, SOUP_STATUS_BAD_REQUEST, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
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
              reply_error (msg, SOUP_STATUS_OK, frame.id, SNODO_RPC_ERROR_INVALID_REQUEST,
                           _("Invalid request: the id is already in use by a request in progress"));
              return;
            }
          ex = exchange_new (self, peer, msg, frame.key);
          ex->is_initialize = g_str_equal (frame.method, "initialize");
          g_hash_table_insert (peer->exchanges, g_strdup (frame.key), ex);
          exchange_watch_hangup (ex);
          snodo_server_dispatch (self->server, peer->connection, &frame, dispatch_headers, len);
          return;
        }

      case SNODO_FRAME_NOTIFICATION:
        snodo_server_dispatch (self->server, peer->connection, &frame, dispatch_headers, len);
        reply_status (msg, SOUP_STATUS_ACCEPTED);
        return;

      case SNODO_FRAME_RESPONSE:
        snodo_server_dispatch (self->server, peer->connection, &frame, dispatch_headers, len);
        reply_status (msg, SOUP_STATUS_ACCEPTED);
        return;

      case SNODO_FRAME_IGNORE:
      case SNODO_FRAME_ERROR:
      case SNODO_FRAME_DROP:
      default:
        g_assert_not_reached ();
      }
  }
}

static void
reply_method_not_allowed (SoupServerMessage *msg,
                          const char        *allow)
{
  soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Allow", allow);
  reply_error (msg, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
               _("Method not allowed"));
}

static void
snodo_http_transport_handle_get_or_delete (SnodoHttpTransport *self,
                                           SoupServerMessage  *msg,
                                           gboolean            is_get)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *session_id = soup_message_headers_get_one (headers, SESSION_HEADER);
  const char *version_header = soup_message_headers_get_one (headers, "MCP-Protocol-Version");
  gboolean legacy_served = snodo_server_get_oldest_legacy (self->server) != SNODO_PROTOCOL_VERSION_UNKNOWN;
  Peer *peer;

  /* 2026-07-28 is POST only; so is a server that serves nothing older. */
  if (!legacy_served ||
      (version_header != NULL &&
       snodo_protocol_version_is_stateless (snodo_protocol_version_from_string (version_header))))
    {
      reply_method_not_allowed (msg, "POST");
      return;
    }
  if (session_id == NULL)
    {
      reply_error (msg, SOUP_STATUS_BAD_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Bad request: the Mcp-Session-Id header is missing"));
      return;
    }
  peer = g_hash_table_lookup (self->sessions, session_id);
  if (peer == NULL)
    {
      reply_error (msg, SOUP_STATUS_NOT_FOUND, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Session not found"));
      return;
    }
  peer->last_active = g_get_monotonic_time ();

  if (!is_get)
    {
      g_hash_table_remove (self->sessions, session_id);
      reply_status (msg, SOUP_STATUS_OK);
      return;
    }

  if (!snodo_http_accepts (soup_message_headers_get_list (headers, "Accept"), "text/event-stream"))
    {
      reply_error (msg, SOUP_STATUS_NOT_ACCEPTABLE, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Not acceptable: the client must accept text/event-stream"));
      return;
    }
  if (peer->standalone != NULL)
    {
      reply_error (msg, SOUP_STATUS_CONFLICT, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Conflict: the session already has a stream open"));
      return;
    }

  peer->standalone = exchange_new (self, peer, msg, NULL);
  peer->standalone->stream_only = TRUE;
  exchange_start_stream (peer->standalone);
  exchange_watch_hangup (peer->standalone);
  /* Send the headers now; events follow as they come. */
  soup_server_message_unpause (msg);
}

static void
snodo_http_transport_handler_cb (SoupServer        *server,
                                 SoupServerMessage *msg,
                                 const char        *path,
                                 GHashTable        *query,
                                 gpointer           user_data)
{
  SnodoHttpTransport *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *method = soup_server_message_get_method (msg);
  const char *origin = soup_message_headers_get_one (headers, "Origin");
  const char *host = soup_message_headers_get_one (headers, "Host");

#ifndef G_OS_UNIX
  /* libsoup before 3.3 never notices a client closing an idle kept-alive
   * connection: each one would stay in CLOSE_WAIT, holding its socket for
   * ever. Where the transport does not manage its connections itself (see
   * snodo-http-listener.c), one request per connection. */
  if (soup_get_major_version () == 3 && soup_get_minor_version () < 3)
    soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");
#endif

  if (!g_str_equal (path, self->path))
    {
      reply_status (msg, SOUP_STATUS_NOT_FOUND);
      return;
    }
  if (origin != NULL && !snodo_http_transport_origin_allowed (self, origin))
    {
      reply_error (msg, SOUP_STATUS_FORBIDDEN, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Forbidden: the Origin is not allowed"));
      return;
    }
  if (self->check_host && host != NULL && !snodo_http_host_header_is_loopback (host))
    {
      reply_error (msg, SOUP_STATUS_MISDIRECTED_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                   _("Misdirected request: the Host is not this server"));
      return;
    }
  if (self->state != STATE_LISTENING)
    {
      reply_status (msg, SOUP_STATUS_SERVICE_UNAVAILABLE);
      return;
    }

  if (g_str_equal (method, "POST"))
    snodo_http_transport_handle_post (self, msg);
  else if (g_str_equal (method, "GET"))
    snodo_http_transport_handle_get_or_delete (self, msg, TRUE);
  else if (g_str_equal (method, "DELETE"))
    snodo_http_transport_handle_get_or_delete (self, msg, FALSE);
  else
    reply_method_not_allowed (msg, snodo_server_get_oldest_legacy (self->server) != SNODO_PROTOCOL_VERSION_UNKNOWN
                                   ? "GET, POST, DELETE" : "POST");
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

/* Entry: any state. (Re)starts the sweep while listening. */
static void
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

/* ---- Closing ------------------------------------------------------------- */

static void
session_peer_destroy (gpointer data)
{
  peer_end (data, TRUE);
}

/* Entry: CLOSING. Completes once no exchange is left. */
static void
snodo_http_transport_check_closed (SnodoHttpTransport *self)
{
  g_autoptr(GPtrArray) tasks = NULL;

  if (self->state != STATE_CLOSING || g_hash_table_size (self->exchanges) > 0)
    return;

  self->state = STATE_CLOSED;
  g_clear_pointer (&self->close_timeout_source, snodo_source_destroy_and_unref);
  g_hash_table_remove_all (self->sessions);
  while (self->stateless->len > 0)
    peer_end (g_ptr_array_index (self->stateless, 0), TRUE);
  if (self->soup != NULL)
    {
      if (self->listener != NULL)
        snodo_http_listener_stop (self->listener);
      soup_server_remove_handler (self->soup, self->path);
      soup_server_disconnect (self->soup);
    }

  tasks = g_steal_pointer (&self->close_tasks);
  self->close_tasks = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < tasks->len; i++)
    g_task_return_boolean (g_ptr_array_index (tasks, i), TRUE);

  /* Last: this may drop the last reference (the tasks hold their own). */
  if (self->holds_self)
    {
      self->holds_self = FALSE;
      g_object_unref (self);
    }
}

static void
abort_all (SnodoHttpTransport *self)
{
  GHashTableIter iter;
  gpointer value;
  g_autoptr(GPtrArray) all = g_ptr_array_new ();

  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (all, value);
  for (guint i = 0; i < self->stateless->len; i++)
    g_ptr_array_add (all, g_ptr_array_index (self->stateless, i));

  for (guint i = 0; i < all->len; i++)
    {
      Peer *peer = g_ptr_array_index (all, i);
      GHashTableIter ex_iter;
      gpointer ex;

      snodo_executor_cancel_owner (self->executor, peer->owner);
      g_hash_table_iter_init (&ex_iter, peer->exchanges);
      while (g_hash_table_iter_next (&ex_iter, NULL, &ex))
        exchange_abort (ex);
      if (peer->standalone != NULL)
        exchange_abort (peer->standalone);
    }
}

static gboolean
snodo_http_transport_close_timeout_cb (gpointer user_data)
{
  SnodoHttpTransport *self = user_data;

  g_clear_pointer (&self->close_timeout_source, g_source_unref);
  g_debug ("HTTP streams did not finish in %u ms; ending them", self->write_timeout);
  abort_all (self);
  return G_SOURCE_REMOVE;
}

/* ---- GObject ------------------------------------------------------------- */

static void
snodo_http_transport_constructed (GObject *object)
{
  SnodoHttpTransport *self = SNODO_HTTP_TRANSPORT (object);

  G_OBJECT_CLASS (snodo_http_transport_parent_class)->constructed (object);

  if (self->executor == NULL)
    self->executor = snodo_executor_new ();
  if (self->path == NULL)
    self->path = g_strdup (DEFAULT_PATH);
  /* Without a server (g_object_new(), or a binding's bare constructor)
   * the transport is harmless: listen_local() refuses it. */
}

static void
snodo_http_transport_dispose (GObject *object)
{
  SnodoHttpTransport *self = SNODO_HTTP_TRANSPORT (object);

  /* Peers and exchanges end while their messages still have their
   * connections (soup_server_disconnect() drops those). */
  if (self->sessions != NULL)
    g_hash_table_remove_all (self->sessions);
  while (self->stateless != NULL && self->stateless->len > 0)
    peer_end (g_ptr_array_index (self->stateless, 0), FALSE);
  /* What is left belongs to no peer; its messages must not call back into
   * a transport that is going away. */
  while (self->exchanges != NULL && g_hash_table_size (self->exchanges) > 0)
    {
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, self->exchanges);
      g_hash_table_iter_next (&iter, NULL, &value);
      exchange_free (value);
    }
  if (self->soup != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->soup, exchange_finished_cb, self);
      if (self->listener != NULL)
        snodo_http_listener_stop (self->listener);
      soup_server_remove_handler (self->soup, self->path);
      soup_server_disconnect (self->soup);
    }
  g_clear_pointer (&self->listener, snodo_http_listener_free);
  g_clear_pointer (&self->close_timeout_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->sweep_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&self->hangup_tick_source, snodo_source_destroy_and_unref);

  /* Only g_object_run_dispose() gets here while listening; the caller of
   * that holds a reference of its own. */
  if (self->holds_self)
    {
      self->holds_self = FALSE;
      g_object_unref (self);
    }

  G_OBJECT_CLASS (snodo_http_transport_parent_class)->dispose (object);
}

static void
snodo_http_transport_finalize (GObject *object)
{
  SnodoHttpTransport *self = SNODO_HTTP_TRANSPORT (object);

  g_clear_object (&self->soup);
  g_clear_pointer (&self->sessions, g_hash_table_unref);
  g_clear_pointer (&self->stateless, g_ptr_array_unref);
  g_clear_pointer (&self->exchanges, g_hash_table_unref);
  g_clear_pointer (&self->close_tasks, g_ptr_array_unref);
  g_clear_pointer (&self->allowed_origins, g_strfreev);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_object (&self->executor);
  g_clear_object (&self->server);

  G_OBJECT_CLASS (snodo_http_transport_parent_class)->finalize (object);
}

static void
snodo_http_transport_get_property (GObject    *object,
                                   guint       prop_id,
                                   GValue     *value,
                                   GParamSpec *pspec)
{
  SnodoHttpTransport *self = SNODO_HTTP_TRANSPORT (object);

  switch (prop_id)
    {
    case PROP_SERVER:
      g_value_set_object (value, self->server);
      break;

    case PROP_EXECUTOR:
      g_value_set_object (value, self->executor);
      break;

    case PROP_PATH:
      g_value_set_string (value, self->path);
      break;

    case PROP_MAX_BODY_BYTES:
      g_value_set_uint64 (value, self->max_body_bytes);
      break;

    case PROP_WRITE_TIMEOUT:
      g_value_set_uint (value, self->write_timeout);
      break;

    case PROP_ALLOWED_ORIGINS:
      g_value_set_boxed (value, self->allowed_origins);
      break;

    case PROP_SESSION_IDLE_TIMEOUT:
      g_value_set_uint (value, self->session_idle_timeout);
      break;

    case PROP_MAX_SESSIONS:
      g_value_set_uint (value, self->max_sessions);
      break;

    case PROP_CONNECTION_IDLE_TIMEOUT:
      g_value_set_uint (value, self->connection_idle_timeout);
      break;

    case PROP_MAX_CONNECTIONS:
      g_value_set_uint (value, self->max_connections);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_http_transport_set_property (GObject      *object,
                                   guint         prop_id,
                                   const GValue *value,
                                   GParamSpec   *pspec)
{
  SnodoHttpTransport *self = SNODO_HTTP_TRANSPORT (object);

  switch (prop_id)
    {
    case PROP_SERVER:
      self->server = g_value_dup_object (value);
      break;

    case PROP_EXECUTOR:
      self->executor = g_value_dup_object (value);
      break;

    case PROP_PATH:
      self->path = g_value_dup_string (value);
      break;

    case PROP_MAX_BODY_BYTES:
      snodo_http_transport_set_max_body_bytes (self, g_value_get_uint64 (value));
      break;

    case PROP_WRITE_TIMEOUT:
      snodo_http_transport_set_write_timeout (self, g_value_get_uint (value));
      break;

    case PROP_ALLOWED_ORIGINS:
      snodo_http_transport_set_allowed_origins (self, g_value_get_boxed (value));
      break;

    case PROP_SESSION_IDLE_TIMEOUT:
      snodo_http_transport_set_session_idle_timeout (self, g_value_get_uint (value));
      break;

    case PROP_MAX_SESSIONS:
      snodo_http_transport_set_max_sessions (self, g_value_get_uint (value));
      break;

    case PROP_CONNECTION_IDLE_TIMEOUT:
      snodo_http_transport_set_connection_idle_timeout (self, g_value_get_uint (value));
      break;

    case PROP_MAX_CONNECTIONS:
      snodo_http_transport_set_max_connections (self, g_value_get_uint (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_http_transport_class_init (SnodoHttpTransportClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->constructed = snodo_http_transport_constructed;
  object_class->dispose = snodo_http_transport_dispose;
  object_class->finalize = snodo_http_transport_finalize;
  object_class->get_property = snodo_http_transport_get_property;
  object_class->set_property = snodo_http_transport_set_property;

  /**
   * SnodoHttpTransport:server: (getter get_server)
   *
   * The server whose tools the transport serves.
   *
   * Since: 0.1
   */
  properties[PROP_SERVER] =
    g_param_spec_object ("server", NULL, NULL,
                         SNODO_TYPE_SERVER,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:executor: (getter get_executor)
   *
   * The executor that admits the transport's work. When none is given at
   * construction, the transport makes one with the default limits.
   *
   * Since: 0.1
   */
  properties[PROP_EXECUTOR] =
    g_param_spec_object ("executor", NULL, NULL,
                         SNODO_TYPE_EXECUTOR,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:path: (getter get_path)
   *
   * The path of the MCP endpoint, `/mcp` by default. Other paths are
   * answered 404.
   *
   * Since: 0.1
   */
  properties[PROP_PATH] =
    g_param_spec_string ("path", NULL, NULL,
                         DEFAULT_PATH,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:max-body-bytes: (getter get_max_body_bytes) (setter set_max_body_bytes)
   *
   * The largest request body accepted, in bytes; a larger one is answered
   * 413 and is not kept in memory. The default, 2000000, matches the stdio
   * transport's line limit.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_BODY_BYTES] =
    g_param_spec_uint64 ("max-body-bytes", NULL, NULL,
                         1, G_MAXSSIZE, 2000000,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:write-timeout: (getter get_write_timeout) (setter set_write_timeout)
   *
   * How long, in milliseconds, writing one message to a client may take.
   * A stream whose write takes longer ends (its request is cancelled), so
   * a stuck client never holds the server. It is also how long
   * [method@Snodo.HttpTransport.close_async] lets streams finish. At least
   * 1; the default is 5000.
   *
   * Since: 0.1
   */
  properties[PROP_WRITE_TIMEOUT] =
    g_param_spec_uint ("write-timeout", NULL, NULL,
                       1, G_MAXUINT, 5000,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:allowed-origins: (getter get_allowed_origins) (setter set_allowed_origins)
   *
   * The `Origin` header values accepted (compared without regard to case;
   * `*` accepts any). When %NULL, the default, only `http` and `https`
   * origins on `localhost`, `127.0.0.1` and `[::1]`, with any port, are
   * accepted. A request with any other `Origin` is answered 403; a request
   * without one is not refused for it.
   *
   * Since: 0.1
   */
  properties[PROP_ALLOWED_ORIGINS] =
    g_param_spec_boxed ("allowed-origins", NULL, NULL,
                        G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:session-idle-timeout: (getter get_session_idle_timeout) (setter set_session_idle_timeout)
   *
   * How many seconds a session of the initialize era may go without a
   * request (and without a request in progress or a stream open) before
   * the transport ends it, as DELETE would; later requests with its id get
   * 404 and the client initializes again. 0 keeps sessions until DELETE or
   * close. The default is 1800.
   *
   * Since: 0.1
   */
  properties[PROP_SESSION_IDLE_TIMEOUT] =
    g_param_spec_uint ("session-idle-timeout", NULL, NULL,
                       0, G_MAXUINT / 1000, 1800,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:max-sessions: (getter get_max_sessions) (setter set_max_sessions)
   *
   * The most sessions of the initialize era at once. An `initialize`
   * beyond it is answered 503 with error -32010, so that clients that never
   * end their sessions cannot grow the server without bound (the idle
   * timeout ends them in time). At least 1; the default is 1000.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_SESSIONS] =
    g_param_spec_uint ("max-sessions", NULL, NULL,
                       1, G_MAXUINT, 1000,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:connection-idle-timeout: (getter get_connection_idle_timeout) (setter set_connection_idle_timeout)
   *
   * How many seconds a kept-alive connection may go without a request
   * (and without a request in progress or a stream open) before the
   * transport closes it. A connection the client closes is closed at once,
   * whatever this says. 0 keeps idle connections until the client closes
   * them. The default is 60.
   *
   * Since: 0.1
   */
  properties[PROP_CONNECTION_IDLE_TIMEOUT] =
    g_param_spec_uint ("connection-idle-timeout", NULL, NULL,
                       0, G_MAXUINT / 1000, 60,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:max-connections: (getter get_max_connections) (setter set_max_connections)
   *
   * The most client connections open at once. At the limit the connection
   * idle the longest is closed to make room; when none is idle, new
   * clients wait in the listening socket's backlog (4096 connections, as
   * the system allows) until one closes. At least 1; the default is 1024.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_CONNECTIONS] =
    g_param_spec_uint ("max-connections", NULL, NULL,
                       1, G_MAXUINT, 1024,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_http_transport_init (SnodoHttpTransport *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->max_body_bytes = 2000000;
  self->write_timeout = 5000;
  self->session_idle_timeout = 1800;
  self->max_sessions = 1000;
  self->sessions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, session_peer_destroy);
  self->stateless = g_ptr_array_new ();
  self->exchanges = g_hash_table_new (g_direct_hash, g_direct_equal);
  self->close_tasks = g_ptr_array_new_with_free_func (g_object_unref);
}

/* ---- Public API ---------------------------------------------------------- */

/**
 * snodo_http_transport_new:
 * @server: the server to serve
 *
 * Makes a transport that serves @server over HTTP, with a default executor.
 * Call [method@Snodo.HttpTransport.listen_local] to begin.
 *
 * Returns: (transfer full): a new transport
 *
 * Since: 0.1
 */
SnodoHttpTransport *
snodo_http_transport_new (SnodoServer *server)
{
  g_return_val_if_fail (SNODO_IS_SERVER (server), NULL);

  return g_object_new (SNODO_TYPE_HTTP_TRANSPORT, "server", server, NULL);
}

/**
 * snodo_http_transport_get_server:
 * @self: a transport
 *
 * Gets the server the transport serves.
 *
 * Returns: (transfer none): the server
 *
 * Since: 0.1
 */
SnodoServer *
snodo_http_transport_get_server (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return self->server;
}

/**
 * snodo_http_transport_get_executor:
 * @self: a transport
 *
 * Gets the executor that admits the transport's work.
 *
 * Returns: (transfer none): the executor
 *
 * Since: 0.1
 */
SnodoExecutor *
snodo_http_transport_get_executor (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return self->executor;
}

/**
 * snodo_http_transport_get_path:
 * @self: a transport
 *
 * Gets the path of the MCP endpoint.
 *
 * Returns: (transfer none): the path, such as `/mcp`
 *
 * Since: 0.1
 */
const char *
snodo_http_transport_get_path (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return self->path;
}

/**
 * snodo_http_transport_get_max_body_bytes:
 * @self: a transport
 *
 * Gets the largest request body accepted.
 *
 * Returns: the limit in bytes
 *
 * Since: 0.1
 */
guint64
snodo_http_transport_get_max_body_bytes (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->max_body_bytes;
}

/**
 * snodo_http_transport_set_max_body_bytes:
 * @self: a transport
 * @max_body_bytes: the limit in bytes, at least 1
 *
 * Sets the largest request body accepted. It applies to requests that
 * arrive later.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_max_body_bytes (SnodoHttpTransport *self,
                                         guint64             max_body_bytes)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (max_body_bytes >= 1 && max_body_bytes <= G_MAXSSIZE);

  if (self->max_body_bytes == max_body_bytes)
    return;
  self->max_body_bytes = max_body_bytes;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_BODY_BYTES]);
}

/**
 * snodo_http_transport_get_write_timeout:
 * @self: a transport
 *
 * Gets how long writing one message to a client may take.
 *
 * Returns: the limit in milliseconds
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_write_timeout (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->write_timeout;
}

/**
 * snodo_http_transport_set_write_timeout:
 * @self: a transport
 * @write_timeout: the limit in milliseconds, at least 1
 *
 * Sets how long writing one message to a client may take. It applies from
 * the next write on.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_write_timeout (SnodoHttpTransport *self,
                                        guint               write_timeout)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (write_timeout >= 1);

  if (self->write_timeout == write_timeout)
    return;
  self->write_timeout = write_timeout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WRITE_TIMEOUT]);
}

/**
 * snodo_http_transport_get_allowed_origins:
 * @self: a transport
 *
 * Gets the `Origin` header values accepted.
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the
 *   origins, or %NULL for the loopback origins only
 *
 * Since: 0.1
 */
const char * const *
snodo_http_transport_get_allowed_origins (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return (const char * const *) self->allowed_origins;
}

/**
 * snodo_http_transport_set_allowed_origins:
 * @self: a transport
 * @allowed_origins: (nullable) (array zero-terminated=1): the origins, such
 *   as `https://app.example`, or %NULL for the loopback origins only
 *
 * Sets the `Origin` header values accepted; see
 * [property@Snodo.HttpTransport:allowed-origins].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_allowed_origins (SnodoHttpTransport *self,
                                          const char * const *allowed_origins)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));

  if (allowed_origins == NULL && self->allowed_origins == NULL)
    return;
  if (allowed_origins != NULL && self->allowed_origins != NULL &&
      g_strv_equal (allowed_origins, (const char * const *) self->allowed_origins))
    return;
  g_strfreev (self->allowed_origins);
  self->allowed_origins = g_strdupv ((char **) allowed_origins);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALLOWED_ORIGINS]);
}

/**
 * snodo_http_transport_get_session_idle_timeout:
 * @self: a transport
 *
 * Gets how long a session may stay idle.
 *
 * Returns: the limit in seconds, or 0 for none
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_session_idle_timeout (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->session_idle_timeout;
}

/**
 * snodo_http_transport_set_session_idle_timeout:
 * @self: a transport
 * @session_idle_timeout: the limit in seconds, or 0 for none
 *
 * Sets how long a session may stay idle; see
 * [property@Snodo.HttpTransport:session-idle-timeout].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_session_idle_timeout (SnodoHttpTransport *self,
                                               guint               session_idle_timeout)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (session_idle_timeout <= G_MAXUINT / 1000);

  if (self->session_idle_timeout == session_idle_timeout)
    return;
  self->session_idle_timeout = session_idle_timeout;
  snodo_http_transport_arm_sweep (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION_IDLE_TIMEOUT]);
}

/**
 * snodo_http_transport_get_max_sessions:
 * @self: a transport
 *
 * Gets the most sessions at once.
 *
 * Returns: the limit
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_max_sessions (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->max_sessions;
}

/**
 * snodo_http_transport_set_max_sessions:
 * @self: a transport
 * @max_sessions: the limit, at least 1
 *
 * Sets the most sessions at once; see
 * [property@Snodo.HttpTransport:max-sessions]. Sessions already there are
 * kept.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_max_sessions (SnodoHttpTransport *self,
                                       guint               max_sessions)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (max_sessions >= 1);

  if (self->max_sessions == max_sessions)
    return;
  self->max_sessions = max_sessions;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_SESSIONS]);
}

/**
 * snodo_http_transport_get_connection_idle_timeout:
 * @self: a transport
 *
 * Gets how long a kept-alive connection may stay idle.
 *
 * Returns: the limit in seconds, or 0 for none
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_connection_idle_timeout (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->connection_idle_timeout;
}

/**
 * snodo_http_transport_set_connection_idle_timeout:
 * @self: a transport
 * @connection_idle_timeout: the limit in seconds, or 0 for none
 *
 * Sets how long a kept-alive connection may stay idle; see
 * [property@Snodo.HttpTransport:connection-idle-timeout].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_connection_idle_timeout (SnodoHttpTransport *self,
                                                  guint               connection_idle_timeout)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (connection_idle_timeout <= G_MAXUINT / 1000);

  if (self->connection_idle_timeout == connection_idle_timeout)
    return;
  self->connection_idle_timeout = connection_idle_timeout;
  if (self->listener != NULL)
    snodo_http_listener_set_idle_timeout (self->listener, connection_idle_timeout);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CONNECTION_IDLE_TIMEOUT]);
}

/**
 * snodo_http_transport_get_max_connections:
 * @self: a transport
 *
 * Gets the most client connections open at once.
 *
 * Returns: the limit
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_max_connections (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->max_connections;
}

/**
 * snodo_http_transport_set_max_connections:
 * @self: a transport
 * @max_connections: the limit, at least 1
 *
 * Sets the most client connections open at once; see
 * [property@Snodo.HttpTransport:max-connections].
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_max_connections (SnodoHttpTransport *self,
                                          guint               max_connections)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (max_connections >= 1);

  if (self->max_connections == max_connections)
    return;
  self->max_connections = max_connections;
  if (self->listener != NULL)
    snodo_http_listener_set_max_connections (self->listener, max_connections);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_CONNECTIONS]);
}

/**
 * snodo_http_transport_listen_local:
 * @self: a transport
 * @port: the TCP port, or 0 for any free one
 * @error: return location for an error
 *
 * Starts serving on the IPv4 loopback interface (127.0.0.1), never on
 * other interfaces. Requests whose `Host` header does not name the
 * loopback interface are refused, which defeats DNS rebinding. Call it
 * once.
 *
 * From now until [method@Snodo.HttpTransport.close_async] has closed it,
 * the transport holds a reference to itself: it serves even when the
 * caller keeps none.
 *
 * Returns: %TRUE if the transport listens; %FALSE if it has no server or
 *   the port could not be used
 *
 * Since: 0.1
 */
gboolean
snodo_http_transport_listen_local (SnodoHttpTransport  *self,
                                   guint16              port,
                                   GError             **error)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), FALSE);
  g_return_val_if_fail (self->state == STATE_NEW, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (self->server == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED,
                           _("The transport has no server to serve (its “server” property)"));
      return FALSE;
    }

  self->soup = g_object_new (SOUP_TYPE_SERVER, NULL);
  soup_server_add_early_handler (self->soup, self->path, snodo_http_transport_early_cb, self, NULL);
  soup_server_add_handler (self->soup, self->path, snodo_http_transport_handler_cb, self, NULL);
  g_signal_connect (self->soup, "request-finished", G_CALLBACK (exchange_finished_cb), self);
  g_signal_connect (self->soup, "request-aborted", G_CALLBACK (exchange_finished_cb), self);
  /* The transport's own listening socket, with a real backlog, and its own
   * management of kept-alive connections (see snodo-http-listener.c). */
  self->listener = snodo_http_listener_new (self->soup, self->context);
  snodo_http_listener_set_idle_timeout (self->listener, self->connection_idle_timeout);
  snodo_http_listener_set_max_connections (self->listener, self->max_connections);
  if (!snodo_http_listener_listen_loopback (self->listener, port, &self->port, error))
    {
      g_clear_pointer (&self->listener, snodo_http_listener_free);
      soup_server_disconnect (self->soup);
      g_clear_object (&self->soup);
      return FALSE;
    }

  self->check_host = TRUE;
  self->state = STATE_LISTENING;
  self->holds_self = TRUE;
  g_object_ref (self);
  snodo_http_transport_arm_sweep (self);
  return TRUE;
}

/**
 * snodo_http_transport_get_port:
 * @self: a transport
 *
 * Gets the TCP port the transport listens on.
 *
 * Returns: the port, or 0 if the transport does not listen
 *
 * Since: 0.1
 */
guint16
snodo_http_transport_get_port (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->port;
}

/**
 * snodo_http_transport_dup_uri:
 * @self: a transport
 *
 * Gets the URI of the MCP endpoint, such as `http://127.0.0.1:8080/mcp`.
 *
 * Returns: (transfer full) (nullable): the URI, or %NULL if the transport
 *   does not listen
 *
 * Since: 0.1
 */
char *
snodo_http_transport_dup_uri (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);

  if (self->port == 0)
    return NULL;
  return g_strdup_printf ("http://127.0.0.1:%u%s", self->port, self->path);
}

/**
 * snodo_http_transport_close_async:
 * @self: a transport
 * @cancellable: (nullable): a cancellable, which only stops waiting
 * @callback: (scope async) (closure user_data): called when the transport has closed
 * @user_data: data for @callback
 *
 * Closes the transport: new requests are refused (503), subscriptions end
 * gracefully (with their result), session streams end, and requests in
 * progress may finish and write their answers. Whatever has not finished
 * after [property@Snodo.HttpTransport:write-timeout] is cancelled and its
 * connection closed. Then the transport stops listening.
 *
 * Since: 0.1
 */
void
snodo_http_transport_close_async (SnodoHttpTransport  *self,
                                  GCancellable        *cancellable,
                                  GAsyncReadyCallback  callback,
                                  gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(GPtrArray) peers = NULL;
  GHashTableIter iter;
  gpointer value;

  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_http_transport_close_async);
  g_task_set_name (task, G_STRFUNC);
  g_task_set_return_on_cancel (task, TRUE);

  switch (self->state)
    {
    case STATE_CLOSED:
      g_task_return_boolean (task, TRUE);
      return;

    case STATE_CLOSING:
      g_ptr_array_add (self->close_tasks, g_steal_pointer (&task));
      return;

    case STATE_NEW:
    case STATE_LISTENING:
    default:
      break;
    }

  g_ptr_array_add (self->close_tasks, g_steal_pointer (&task));
  self->state = STATE_CLOSING;
  g_clear_pointer (&self->sweep_source, snodo_source_destroy_and_unref);

  peers = g_ptr_array_new ();
  g_hash_table_iter_init (&iter, self->sessions);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_ptr_array_add (peers, value);
  for (guint i = 0; i < self->stateless->len; i++)
    g_ptr_array_add (peers, g_ptr_array_index (self->stateless, i));

  for (guint i = 0; i < peers->len; i++)
    {
      Peer *peer = g_ptr_array_index (peers, i);

      /* Subscriptions answer now, which ends their streams. */
      snodo_server_connection_draining (self->server, peer->connection);
      if (peer->standalone != NULL)
        exchange_end (peer->standalone, SOUP_STATUS_OK);
    }

  self->close_timeout_source = g_timeout_source_new (self->write_timeout);
  g_source_set_static_name (self->close_timeout_source, "[snodo] http close timeout");
  g_source_set_callback (self->close_timeout_source, snodo_http_transport_close_timeout_cb, self, NULL);
  g_source_attach (self->close_timeout_source, self->context);

  snodo_http_transport_check_closed (self);
}

/**
 * snodo_http_transport_close_finish:
 * @self: a transport
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [method@Snodo.HttpTransport.close_async].
 *
 * Returns: %TRUE once closed; %FALSE only if the wait was cancelled
 *
 * Since: 0.1
 */
gboolean
snodo_http_transport_close_finish (SnodoHttpTransport  *self,
                                   GAsyncResult        *result,
                                   GError             **error)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);

  return g_task_propagate_boolean (G_TASK (result), error);
}

/* For tests: the connections the transport has open. */
guint
snodo_http_transport_get_n_connections (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);

  return self->listener != NULL ? snodo_http_listener_get_n_connections (self->listener) : 0;
}
