/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoHttpTransport itself: its properties and public API, and the
 * routing of each request by its method (POST to snodo-http-post.c, GET
 * and DELETE to snodo-http-session.c); where it listens is
 * snodo-http-listen.c, how it closes snodo-http-close.c. snodo-http-transport-private.h says which file
 * holds what. */

#include "config.h"

#include <gio/gio.h>
#include <libsoup/soup.h>

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-executor.h"
#include "snodo-http-listener-private.h"
#include "snodo-http-rules-private.h"
#include "snodo-http-transport.h"
#include "snodo-http-transport-private.h"
#include "snodo-protocol-version.h"
#include "snodo-server.h"
#include "snodo-server-private.h"

/**
 * SnodoHttpTransport:
 *
 * Serves a [class@Snodo.Server] over MCP's Streamable HTTP transport, on a
 * `SoupServer` listening on the loopback interface
 * ([method@Snodo.HttpTransport.listen_local]), or on any address, a Unix
 * socket or an inherited socket ([method@Snodo.HttpTransport.listen],
 * [method@Snodo.HttpTransport.listen_socket]), with TLS when given a
 * [property@Snodo.HttpTransport:tls-certificate].
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
 * ([property@Snodo.HttpTransport:allowed-origins], 403), a present `Host`
 * must be allowed ([property@Snodo.HttpTransport:allowed-hosts], the
 * loopback names by default; 421), a POST must
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
 * No stream can hang the server: no write to a client may stay blocked
 * longer than [property@Snodo.HttpTransport:write-timeout] milliseconds, and a stream
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
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 * transport = Snodo.HttpTransport.new(server)
 * transport.listen_local(0)  # 0: any free port; raises GLib.Error on failure
 * print(transport.dup_uri(), flush=True)  # http://127.0.0.1:PORT/mcp
 * GLib.MainLoop().run()
 * ```
 *
 * In JavaScript:
 *
 * ```js
 * import GLib from 'gi://GLib';
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 *
 * const transport = Snodo.HttpTransport.new(server);
 * transport.listen_local(0);  // 0: any free port; throws on failure
 * print(transport.dup_uri());  // http://127.0.0.1:PORT/mcp
 * new GLib.MainLoop(null, false).run();
 * ```
 *
 * Since: 0.1
 */

#define DEFAULT_PATH "/mcp"

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
  PROP_REQUEST_READ_TIMEOUT,
  PROP_MAX_CONNECTIONS,
  PROP_TLS_CERTIFICATE,
  PROP_ALLOWED_HOSTS,
  PROP_MAX_STREAM_BYTES,
  PROP_MAX_STREAMS,
  PROP_MAX_STREAMS_PER_ADDRESS,
  PROP_MAX_BODIES_BYTES,
  PROP_INSTANCE_ID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

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

/* ---- Routing ------------------------------------------------------------- */

void
snodo_http_transport_handler_cb (SoupServer        *server,
                                 SoupServerMessage *msg,
                                 const char        *path,
                                 GHashTable        *query,
                                 gpointer           user_data)
{
  SnodoHttpTransport *self = user_data;
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (msg);
  const char *origin = soup_message_headers_get_one (headers, "Origin");
  const char *host = soup_message_headers_get_one (headers, "Host");

  /* libsoup before 3.3 never notices a client closing an idle kept-alive
   * connection: each one would stay in CLOSE_WAIT, holding its socket for
   * ever. Where the transport does not manage its connections itself (see
   * snodo-http-listener.c: an application's server it is attached to, or
   * a system where the listener cannot), one request per connection. */
#if defined(G_OS_UNIX) || defined(G_OS_WIN32)
  if (self->mounted && soup_get_major_version () == 3 && soup_get_minor_version () < 3)
#else
  if (soup_get_major_version () == 3 && soup_get_minor_version () < 3)
#endif
    soup_message_headers_replace (soup_server_message_get_response_headers (msg), "Connection", "close");

  if (!g_str_equal (path, self->path))
    {
      snodo_http_reply_status (msg, SOUP_STATUS_NOT_FOUND);
      return;
    }
  if (origin != NULL && !snodo_http_transport_origin_allowed (self, origin))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_FORBIDDEN, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Forbidden: the Origin is not allowed"));
      return;
    }
  if (self->check_host && host != NULL &&
      !snodo_http_transport_host_allowed (self, host))
    {
      snodo_http_reply_error (msg, SOUP_STATUS_MISDIRECTED_REQUEST, NULL, SNODO_RPC_ERROR_INVALID_REQUEST,
                              _("Misdirected request: the Host is not this server"));
      return;
    }
  if (self->state != STATE_LISTENING)
    {
      snodo_http_reply_status (msg, SOUP_STATUS_SERVICE_UNAVAILABLE);
      return;
    }
  /* Bearer tokens (snodo-http-auth.c): routed below, or once checked. */
  if (G_UNLIKELY (self->authorization != NULL) && !snodo_http_transport_authorize (self, msg))
    return;
  snodo_http_transport_route (self, msg);
}

/* A request of the endpoint, checked, by its method. */
void
snodo_http_transport_route (SnodoHttpTransport *self,
                            SoupServerMessage  *msg)
{
  const char *method = soup_server_message_get_method (msg);

  if (g_str_equal (method, "POST"))
    snodo_http_transport_handle_post (self, msg);
  else if (g_str_equal (method, "GET"))
    snodo_http_transport_handle_get_or_delete (self, msg, TRUE);
  else if (g_str_equal (method, "DELETE"))
    snodo_http_transport_handle_get_or_delete (self, msg, FALSE);
  else
    snodo_http_reply_method_not_allowed (msg, snodo_server_get_oldest_legacy (self->server) != SNODO_PROTOCOL_VERSION_UNKNOWN
                                              ? "GET, POST, DELETE" : "POST");
}

/* ---- Closing ------------------------------------------------------------- */

static void
session_peer_destroy (gpointer data)
{
  snodo_http_peer_end (data, TRUE);
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
    snodo_http_peer_end (g_ptr_array_index (self->stateless, 0), FALSE);
  /* What is left belongs to no peer; its messages must not call back into
   * a transport that is going away. */
  while (self->exchanges != NULL && g_hash_table_size (self->exchanges) > 0)
    {
      GHashTableIter iter;
      gpointer value;

      g_hash_table_iter_init (&iter, self->exchanges);
      g_hash_table_iter_next (&iter, NULL, &value);
      snodo_http_exchange_free (value);
    }
  if (self->soup != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->soup, snodo_http_exchange_finished_cb, self);
      if (self->listener != NULL)
        snodo_http_listener_stop (self->listener);
      soup_server_remove_handler (self->soup, self->path);
      snodo_http_auth_stop (self);
      snodo_http_decode_stop (self);
      if (!self->mounted)
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
  g_clear_object (&self->local_address);
  g_clear_object (&self->tls_certificate);
  g_clear_pointer (&self->unix_socket_group, g_free);
  g_clear_pointer (&self->sessions, g_hash_table_unref);
  g_clear_pointer (&self->stateless, g_ptr_array_unref);
  g_clear_pointer (&self->exchanges, g_hash_table_unref);
  g_clear_pointer (&self->close_tasks, g_ptr_array_unref);
  g_clear_pointer (&self->allowed_origins, g_strfreev);
  g_clear_pointer (&self->allowed_hosts, g_strfreev);
  g_clear_pointer (&self->instance_id, g_free);
  g_clear_object (&self->authorization);
  g_clear_pointer (&self->path, g_free);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_clear_object (&self->executor);
  g_clear_object (&self->stream_executor);
  g_clear_object (&self->event_store);
  g_clear_pointer (&self->streams_per_address, g_hash_table_unref);
  g_clear_pointer (&self->body_budget, snodo_http_body_budget_unref);
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

    case PROP_REQUEST_READ_TIMEOUT:
      g_value_set_uint (value, self->request_read_timeout);
      break;

    case PROP_MAX_CONNECTIONS:
      g_value_set_uint (value, self->max_connections);
      break;

    case PROP_TLS_CERTIFICATE:
      g_value_set_object (value, self->tls_certificate);
      break;

    case PROP_ALLOWED_HOSTS:
      g_value_set_boxed (value, self->allowed_hosts);
      break;

    case PROP_MAX_STREAM_BYTES:
      g_value_set_uint64 (value, self->max_stream_bytes);
      break;

    case PROP_MAX_STREAMS:
      g_value_set_uint (value, self->max_streams);
      break;

    case PROP_MAX_STREAMS_PER_ADDRESS:
      g_value_set_uint (value, self->max_streams_per_address);
      break;

    case PROP_MAX_BODIES_BYTES:
      g_value_set_uint64 (value, self->max_bodies_bytes);
      break;

    case PROP_INSTANCE_ID:
      g_value_set_string (value, self->instance_id);
      break;

    default:
      if (!snodo_http_transport_resume_get_property (self, prop_id, value) &&
          !snodo_http_transport_listen_get_property (self, prop_id, value))
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

    case PROP_REQUEST_READ_TIMEOUT:
      snodo_http_transport_set_request_read_timeout (self, g_value_get_uint (value));
      break;

    case PROP_MAX_CONNECTIONS:
      snodo_http_transport_set_max_connections (self, g_value_get_uint (value));
      break;

    case PROP_TLS_CERTIFICATE:
      snodo_http_transport_set_tls_certificate (self, g_value_get_object (value));
      break;

    case PROP_ALLOWED_HOSTS:
      snodo_http_transport_set_allowed_hosts (self, g_value_get_boxed (value));
      break;

    case PROP_MAX_STREAM_BYTES:
      snodo_http_transport_set_max_stream_bytes (self, g_value_get_uint64 (value));
      break;

    case PROP_MAX_STREAMS:
      snodo_http_transport_set_max_streams (self, g_value_get_uint (value));
      break;

    case PROP_MAX_STREAMS_PER_ADDRESS:
      snodo_http_transport_set_max_streams_per_address (self, g_value_get_uint (value));
      break;

    case PROP_MAX_BODIES_BYTES:
      snodo_http_transport_set_max_bodies_bytes (self, g_value_get_uint64 (value));
      break;

    case PROP_INSTANCE_ID:
      snodo_http_transport_set_instance_id (self, g_value_get_string (value));
      break;

    default:
      if (!snodo_http_transport_resume_set_property (self, prop_id, value) &&
          !snodo_http_transport_listen_set_property (self, prop_id, value))
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
   * 413 as soon as that is known (from its `Content-Length`, or as a
   * chunked body grows), before the rest is read, and its connection is
   * closed; it is not kept in memory. The default, 2000000, matches the
   * stdio transport's line limit.
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
   * How long, in milliseconds, writing one message to a client may stay
   * blocked (the client takes no more bytes). A stream whose write is
   * blocked longer ends (its request is cancelled), so a stuck client
   * never holds the server; an answer that only waits for its turn (a busy
   * main loop) is not counted against it. It is also how long
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
   * The most sessions of the initialize era at once, so that clients that
   * never end their sessions cannot grow the server without bound. At the
   * limit, an `initialize` ends the session idle the longest (one with no
   * request in progress and no stream open), as its idle timeout would
   * have later: its client gets 404 and initializes again. Only when no
   * session is idle is the `initialize` answered 503 with error -32010.
   * At least 1; the default is 1000.
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
   * whatever this says. Until a request has arrived whole, headers and
   * body, its connection also counts as idle; a request that arrives
   * slowly is bounded first by
   * [property@Snodo.HttpTransport:request-read-timeout]. 0 keeps idle
   * connections until the client closes them. The default is 60.
   *
   * Since: 0.1
   */
  properties[PROP_CONNECTION_IDLE_TIMEOUT] =
    g_param_spec_uint ("connection-idle-timeout", NULL, NULL,
                       0, G_MAXUINT / 1000, 60,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:request-read-timeout: (getter get_request_read_timeout) (setter set_request_read_timeout)
   *
   * How many seconds a client may take to send one request whole, from its
   * first byte to the end of its head and body; over HTTPS, also how long
   * the TLS handshake may take. A connection whose request is not complete
   * by then is closed without an answer, so that a client sending a byte
   * at a time (its headers or its body) holds a connection for no longer.
   * Time between requests on a kept-alive connection does not count (that
   * is [property@Snodo.HttpTransport:connection-idle-timeout]), nor does
   * the time a handler takes or a stream stays open. Connections are
   * checked every eighth of the shorter of the two timeouts, so one may
   * be closed up to that much later. 0 sets no limit. The default is 30.
   *
   * Since: 0.1
   */
  properties[PROP_REQUEST_READ_TIMEOUT] =
    g_param_spec_uint ("request-read-timeout", NULL, NULL,
                       0, G_MAXUINT / 1000, 30,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:max-connections: (getter get_max_connections) (setter set_max_connections)
   *
   * The most client connections open at once. At the limit the connection
   * idle the longest is closed to make room; when none is idle, new
   * clients wait in the listening socket's backlog (4096 connections, as
   * the system allows) until one closes. Fewer are kept when the soft
   * limit of open files (`RLIMIT_NOFILE`) leaves less room: 64
   * descriptors below it, said in the log when listening. At least 1; the
   * default is 1024.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_CONNECTIONS] =
    g_param_spec_uint ("max-connections", NULL, NULL,
                       1, G_MAXUINT, 1024,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:tls-certificate: (getter get_tls_certificate) (setter set_tls_certificate)
   *
   * The certificate, with its private key, that the transport serves
   * HTTPS with on the sockets it listens on; %NULL, the default, for
   * plain HTTP. Set it before listening; while listening with one,
   * another may replace it (the connections accepted from then on use
   * it). TLS needs a GIO TLS backend (glib-networking): without one,
   * listening fails.
   *
   * Since: 0.1
   */
  properties[PROP_TLS_CERTIFICATE] =
    g_param_spec_object ("tls-certificate", NULL, NULL,
                         G_TYPE_TLS_CERTIFICATE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:allowed-hosts: (getter get_allowed_hosts) (setter set_allowed_hosts)
   *
   * The hosts a request's `Host` header may name, so that DNS rebinding
   * cannot turn a browser against the server. An entry is a name or an
   * address (an IPv6 one in brackets, `[::1]`), compared without regard to
   * case and with any port; an entry with a port (`mcp.example:8443`)
   * wants that port; `*` accepts any host. When %NULL, the default,
   * `localhost`, `127.0.0.1` and `[::1]` are accepted, and the address
   * the transport listens on with its port, as
   * [method@Snodo.HttpTransport.dup_uri] names it (`127.0.0.2:8080`; not
   * an address of every interface, `0.0.0.0` or `::`): behind a reverse
   * proxy, or where clients use a name, list the names they use (a list
   * replaces the default; add `localhost` to keep it). A request with any
   * other `Host` is answered 421 Misdirected Request; one without `Host`
   * is not refused for it.
   *
   * Since: 0.1
   */
  properties[PROP_ALLOWED_HOSTS] =
    g_param_spec_boxed ("allowed-hosts", NULL, NULL,
                        G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:max-stream-bytes: (getter get_max_stream_bytes) (setter set_max_stream_bytes)
   *
   * The most bytes of messages waiting to be written to one event stream
   * (a request's stream, a `subscriptions/listen` or a session's GET
   * stream), behind the one being written; at most 256 messages wait
   * too. A client that does not keep up loses its stream once more would
   * wait: the stream ends without its final answer, and a 2026-07-28
   * request (a `subscriptions/listen` too) is cancelled. An event written
   * is not kept, so this bounds what a stream holds, whether its client
   * reads or not. At least 1; the default is 16777216 (16 MiB).
   *
   * Since: 0.1
   */
  properties[PROP_MAX_STREAM_BYTES] =
    g_param_spec_uint64 ("max-stream-bytes", NULL, NULL,
                         1, G_MAXSSIZE, 16 * 1024 * 1024,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:max-streams: (getter get_max_streams) (setter set_max_streams)
   *
   * The most long-lived streams open at once: `subscriptions/listen`
   * (2026-07-28) and the GET streams of sessions. One beyond is answered
   * 503 with error -32010. A subscription is not work: it holds no slot
   * of the executor, so idle listeners never keep requests out; this
   * bounds them instead. Keep it below
   * [property@Snodo.HttpTransport:max-connections], as each stream holds
   * a connection. At least 1; the default is 256.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_STREAMS] =
    g_param_spec_uint ("max-streams", NULL, NULL,
                       1, G_MAXUINT, 256,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:max-streams-per-address: (getter get_max_streams_per_address) (setter set_max_streams_per_address)
   *
   * The most streams (see [property@Snodo.HttpTransport:max-streams]) open
   * at once from one client address; one beyond is answered 503 with
   * error -32010. On the loopback interface every client has the same
   * address, so the default, 256, is max-streams' own. At least 1.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_STREAMS_PER_ADDRESS] =
    g_param_spec_uint ("max-streams-per-address", NULL, NULL,
                       1, G_MAXUINT, 256,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:max-bodies-bytes: (getter get_max_bodies_bytes) (setter set_max_bodies_bytes)
   *
   * The most bytes of request bodies being received at once, on all
   * connections: a body takes its announced `Content-Length` when its
   * headers arrive (a chunked one, each chunk as it comes) and gives it
   * back once it has been read. A body that would go beyond is answered
   * 503 with error -32010 at once, before it is read, and its connection
   * is closed; so is one announced as larger than
   * [property@Snodo.HttpTransport:max-body-bytes] (413). Many clients
   * that stop in the middle of their bodies thus hold at most this much.
   * At least 1; the default is 67108864 (64 MiB).
   *
   * Since: 0.1
   */
  properties[PROP_MAX_BODIES_BYTES] =
    g_param_spec_uint64 ("max-bodies-bytes", NULL, NULL,
                         1, G_MAXSSIZE, 64 * 1024 * 1024,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoHttpTransport:instance-id: (getter get_instance_id) (setter set_instance_id)
   *
   * A short tag naming this instance among several that serve the same
   * clients, or %NULL (the default) for none. The `Mcp-Session-Id` of
   * each session the transport issues then starts with it and a dot
   * (`a1.` and 32 hexadecimal digits for the tag `a1`), so that a load
   * balancer sends a session's requests to the instance that has it
   * without learning anything from responses. A session id with another
   * tag is unknown here (404), as any other. From 1 to 32 ASCII letters,
   * digits and `-` (see snodo_http_transport_instance_id_is_valid());
   * a change applies to sessions made after it.
   *
   * Since: 0.1
   */
  properties[PROP_INSTANCE_ID] =
    g_param_spec_string ("instance-id", NULL, NULL,
                         NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
  snodo_http_transport_install_listen_properties (object_class,
                                                  snodo_http_transport_install_resume_properties (object_class,
                                                                                                  N_PROPS));
}

static void
snodo_http_transport_init (SnodoHttpTransport *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->event_store = SNODO_EVENT_STORE (snodo_memory_event_store_new ());
  self->max_body_bytes = 2000000;
  self->write_timeout = 5000;
  self->session_idle_timeout = 1800;
  self->max_sessions = 1000;
  self->max_stream_bytes = 16 * 1024 * 1024;
  self->max_streams = 256;
  self->max_streams_per_address = 256;
  self->max_bodies_bytes = 64 * 1024 * 1024;
  self->body_budget = snodo_http_body_budget_new ();
  self->streams_per_address = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  /* Admits every subscription at once: max-streams bounds them. */
  self->stream_executor = snodo_executor_new ();
  snodo_executor_set_max_running (self->stream_executor, G_MAXUINT);
  snodo_executor_set_max_queued (self->stream_executor, 0);
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
 * snodo_http_transport_get_allowed_hosts:
 * @self: a transport
 *
 * Gets the hosts a request's `Host` header may name.
 *
 * Returns: (transfer none) (nullable) (array zero-terminated=1): the
 *   hosts, or %NULL for the loopback names only
 *
 * Since: 0.1
 */
const char * const *
snodo_http_transport_get_allowed_hosts (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return (const char * const *) self->allowed_hosts;
}

/**
 * snodo_http_transport_set_allowed_hosts:
 * @self: a transport
 * @allowed_hosts: (nullable) (array zero-terminated=1): the hosts, such as
 *   `mcp.example.com`, or %NULL for the loopback names only
 *
 * Sets the hosts a request's `Host` header may name; see
 * [property@Snodo.HttpTransport:allowed-hosts]. It applies to requests
 * that arrive later.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_allowed_hosts (SnodoHttpTransport *self,
                                        const char * const *allowed_hosts)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));

  if (allowed_hosts == NULL && self->allowed_hosts == NULL)
    return;
  if (allowed_hosts != NULL && self->allowed_hosts != NULL &&
      g_strv_equal (allowed_hosts, (const char * const *) self->allowed_hosts))
    return;
  g_strfreev (self->allowed_hosts);
  self->allowed_hosts = g_strdupv ((char **) allowed_hosts);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALLOWED_HOSTS]);
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
 * snodo_http_transport_get_tls_certificate:
 * @self: a transport
 *
 * Gets the certificate the transport serves HTTPS with.
 *
 * Returns: (transfer none) (nullable): the certificate, or %NULL for plain
 *   HTTP
 *
 * Since: 0.1
 */
GTlsCertificate *
snodo_http_transport_get_tls_certificate (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return self->tls_certificate;
}

/**
 * snodo_http_transport_set_tls_certificate:
 * @self: a transport
 * @certificate: (nullable): a certificate with its private key, or %NULL
 *   for plain HTTP
 *
 * Sets the certificate the transport serves HTTPS with; see
 * [property@Snodo.HttpTransport:tls-certificate]. Call it before
 * listening; while the transport listens with one, another replaces it
 * (a renewed certificate), for the connections accepted from then on
 * (on Unix, where the transport accepts its connections itself; elsewhere
 * libsoup keeps the one it listened with).
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_tls_certificate (SnodoHttpTransport *self,
                                          GTlsCertificate    *certificate)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (certificate == NULL || G_IS_TLS_CERTIFICATE (certificate));
  g_return_if_fail (self->state == STATE_NEW ||
                    (self->listener != NULL && self->tls_certificate != NULL && certificate != NULL));

  if (!g_set_object (&self->tls_certificate, certificate))
    return;
  if (self->listener != NULL)
    snodo_http_listener_set_tls_certificate (self->listener, certificate);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TLS_CERTIFICATE]);
}

/**
 * snodo_http_transport_get_max_stream_bytes:
 * @self: a transport
 *
 * Gets the most bytes of messages waiting to be written to one stream.
 *
 * Returns: the limit in bytes
 *
 * Since: 0.1
 */
guint64
snodo_http_transport_get_max_stream_bytes (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->max_stream_bytes;
}

/**
 * snodo_http_transport_set_max_stream_bytes:
 * @self: a transport
 * @max_stream_bytes: the limit in bytes, at least 1
 *
 * Sets the most bytes of messages waiting to be written to one stream; see
 * [property@Snodo.HttpTransport:max-stream-bytes]. It applies from the
 * next message on.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_max_stream_bytes (SnodoHttpTransport *self,
                                           guint64             max_stream_bytes)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (max_stream_bytes >= 1 && max_stream_bytes <= G_MAXSSIZE);

  if (self->max_stream_bytes == max_stream_bytes)
    return;
  self->max_stream_bytes = max_stream_bytes;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_STREAM_BYTES]);
}

/**
 * snodo_http_transport_get_max_streams:
 * @self: a transport
 *
 * Gets the most long-lived streams open at once.
 *
 * Returns: the limit
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_max_streams (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->max_streams;
}

/**
 * snodo_http_transport_set_max_streams:
 * @self: a transport
 * @max_streams: the limit, at least 1
 *
 * Sets the most long-lived streams open at once; see
 * [property@Snodo.HttpTransport:max-streams]. Streams already open are
 * kept.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_max_streams (SnodoHttpTransport *self,
                                      guint               max_streams)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (max_streams >= 1);

  if (self->max_streams == max_streams)
    return;
  self->max_streams = max_streams;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_STREAMS]);
}

/**
 * snodo_http_transport_get_max_streams_per_address:
 * @self: a transport
 *
 * Gets the most long-lived streams open at once from one client address.
 *
 * Returns: the limit
 *
 * Since: 0.1
 */
guint
snodo_http_transport_get_max_streams_per_address (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->max_streams_per_address;
}

/**
 * snodo_http_transport_set_max_streams_per_address:
 * @self: a transport
 * @max_streams_per_address: the limit, at least 1
 *
 * Sets the most long-lived streams open at once from one client address;
 * see [property@Snodo.HttpTransport:max-streams-per-address]. Streams
 * already open are kept.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_max_streams_per_address (SnodoHttpTransport *self,
                                                  guint               max_streams_per_address)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (max_streams_per_address >= 1);

  if (self->max_streams_per_address == max_streams_per_address)
    return;
  self->max_streams_per_address = max_streams_per_address;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_STREAMS_PER_ADDRESS]);
}

/**
 * snodo_http_transport_get_max_bodies_bytes:
 * @self: a transport
 *
 * Gets the most bytes of request bodies being received at once.
 *
 * Returns: the limit in bytes
 *
 * Since: 0.1
 */
guint64
snodo_http_transport_get_max_bodies_bytes (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);
  return self->max_bodies_bytes;
}

/**
 * snodo_http_transport_set_max_bodies_bytes:
 * @self: a transport
 * @max_bodies_bytes: the limit in bytes, at least 1
 *
 * Sets the most bytes of request bodies being received at once; see
 * [property@Snodo.HttpTransport:max-bodies-bytes]. It applies to bodies
 * that arrive later.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_max_bodies_bytes (SnodoHttpTransport *self,
                                           guint64             max_bodies_bytes)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (max_bodies_bytes >= 1 && max_bodies_bytes <= G_MAXSSIZE);

  if (self->max_bodies_bytes == max_bodies_bytes)
    return;
  self->max_bodies_bytes = max_bodies_bytes;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_BODIES_BYTES]);
}

/**
 * snodo_http_transport_instance_id_is_valid:
 * @instance_id: a candidate for [property@Snodo.HttpTransport:instance-id]
 *
 * Checks that @instance_id may tag session ids: from 1 to 32 ASCII
 * letters, digits and `-`.
 *
 * Returns: %TRUE if it may
 *
 * Since: 0.1
 */
gboolean
snodo_http_transport_instance_id_is_valid (const char *instance_id)
{
  gsize len = 0;

  g_return_val_if_fail (instance_id != NULL, FALSE);

  for (; instance_id[len] != '\0'; len++)
    if (!g_ascii_isalnum (instance_id[len]) && instance_id[len] != '-')
      return FALSE;
  return len >= 1 && len <= SNODO_HTTP_INSTANCE_ID_MAX;
}

/**
 * snodo_http_transport_get_instance_id:
 * @self: a transport
 *
 * Gets the tag that starts the session ids the transport issues.
 *
 * Returns: (nullable): the tag, or %NULL for none
 *
 * Since: 0.1
 */
const char *
snodo_http_transport_get_instance_id (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);
  return self->instance_id;
}

/**
 * snodo_http_transport_set_instance_id:
 * @self: a transport
 * @instance_id: (nullable): the tag, valid for
 *   snodo_http_transport_instance_id_is_valid(), or %NULL for none
 *
 * Sets the tag that starts the session ids the transport issues; see
 * [property@Snodo.HttpTransport:instance-id]. Sessions already there keep
 * their ids.
 *
 * Since: 0.1
 */
void
snodo_http_transport_set_instance_id (SnodoHttpTransport *self,
                                      const char         *instance_id)
{
  g_return_if_fail (SNODO_IS_HTTP_TRANSPORT (self));
  g_return_if_fail (instance_id == NULL || snodo_http_transport_instance_id_is_valid (instance_id));

  if (g_strcmp0 (self->instance_id, instance_id) == 0)
    return;
  g_free (self->instance_id);
  self->instance_id = g_strdup (instance_id);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INSTANCE_ID]);
}

/* For tests: the connections the transport has open. */
guint
snodo_http_transport_get_n_connections (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), 0);

  return self->listener != NULL ? snodo_http_listener_get_n_connections (self->listener) : 0;
}

/* For tests: the executor of subscriptions/listen. */
SnodoExecutor *
snodo_http_transport_get_stream_executor (SnodoHttpTransport *self)
{
  g_return_val_if_fail (SNODO_IS_HTTP_TRANSPORT (self), NULL);

  return self->stream_executor;
}
