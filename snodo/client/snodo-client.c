/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient: one connection to an MCP server over a pair of streams,
 * usually the standard input and output of a server it started. This file
 * is the GObject, its properties and public API, and the start and end of
 * a spawned server (which never outlives the client; closing it is in
 * snodo-client-close.c). The connection
 * itself, whose lines are cut by the wire layer's framer, decoded by its
 * frame module and written by its bounded writer, as the stdio transport
 * does, with the pending requests, is in snodo-client-connection.c; the
 * handshake of each era in snodo-client-handshake.c; the requests of each
 * server feature in snodo-client-methods.c. See snodo-client-private.h. */

#include "config.h"

#include <string.h>

#include <glib.h>

#ifdef G_OS_UNIX
# include <signal.h>
# include <unistd.h>
#endif
#if defined(HAVE_PR_SET_PDEATHSIG)
# include <sys/prctl.h>
#elif defined(HAVE_PROCCTL_PDEATHSIG)
# include <sys/types.h>
# include <sys/procctl.h>
#endif

#include "snodo-client.h"
#include "snodo-client-private.h"
#ifdef G_OS_WIN32
# include "snodo-client-win32-private.h"
#endif

#include "snodo-base-private.h"
#include "snodo-enum-types.h"
#include "snodo-features.h"
#include "snodo-wire-private.h"

/**
 * SnodoClient:
 *
 * A client of one Model Context Protocol server.
 *
 * A `SnodoClient` speaks newline-delimited JSON-RPC over a pair of
 * streams: the standard input and output of a server it starts itself
 * ([ctor@Snodo.Client.new_for_argv]), or any other pair
 * ([ctor@Snodo.Client.new]); or Streamable HTTP to a server's URL
 * ([ctor@Snodo.Client.new_for_uri]). [method@Snodo.Client.connect_async] negotiates
 * the protocol version; then every request is an `_async`/`_finish` pair,
 * answered in the main context that was the thread default when the client
 * was made.
 *
 * ```c
 * client = snodo_client_new_for_argv ((const char *[]) { "snodo-demo", NULL }, &error);
 * snodo_client_connect_async (client, NULL, connected_cb, NULL);
 *
 * // then, in connected_cb ():
 * snodo_client_call_tool_async (client, "echo", arguments, NULL, called_cb, NULL);
 *
 * // and in called_cb (), when done:
 * snodo_client_close_async (client, NULL, closed_cb, NULL);
 * ```
 *
 * In Python, a call of the demonstration server's `progress` tool, with its
 * progress reports:
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * loop = GLib.MainLoop()
 * client = Snodo.Client.new_for_argv(['snodo-demo'])
 *
 * def on_progress(client, request, progress, total, message):
 *     print(Snodo.from_json_node(request)['params']['name'], message)
 *
 * def called(client, result):
 *     print(client.call_tool_finish(result)['content'][0]['text'])
 *     client.close_async(None, lambda client, result: loop.quit())
 *
 * def connected(client, result):
 *     client.connect_finish(result)
 *     client.call_tool_async('progress', {'steps': 3}, None, called)
 *
 * client.connect('request-progress::tools/call', on_progress)
 * client.connect_async(None, connected)
 * loop.run()
 * ```
 *
 * In JavaScript, where the `_async` methods return promises:
 *
 * ```js
 * import GLib from 'gi://GLib';
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const client = Snodo.Client.new_for_argv(['snodo-demo']);
 * client.connect('request-progress::tools/call', (_client, request, progress, total, message) =>
 *     print(Snodo.fromJsonNode(request).params.name, message));
 *
 * const loop = new GLib.MainLoop(null, false);
 * client.connect_async(null).then(async () => {
 *     const result = await client.call_tool_async('progress', {steps: 3}, null);
 *     print(result.content[0].text);
 *     await client.close_async(null);
 * }).catch(logError).finally(() => loop.quit());
 * loop.run();
 * ```
 *
 * ## Version negotiation
 *
 * Unless a version is pinned with [property@Snodo.Client:pinned-version],
 * the client first asks `server/discover` and speaks 2026-07-28 when the
 * server offers it. A server of the initialize era answers that probe with
 * an error (or not at all within five seconds), and the client then sends
 * `initialize` with 2025-11-25, accepting 2025-06-18 when that is what the
 * server answers. An error of the 2026-07-28 era, such as an unsupported
 * version, ends the negotiation: that server is not of the initialize era.
 * The version spoken is [property@Snodo.Client:protocol-version].
 *
 * ## Requests
 *
 * The lists (`tools/list` and the others) are followed page by page to
 * their end. A request whose cancellable is cancelled fails at once with
 * %G_IO_ERROR_CANCELLED, and the server is told with
 * `notifications/cancelled` (in every version: on stdio, 2026-07-28 cancels
 * the same way). A request that outlives
 * [property@Snodo.Client:request-timeout] fails with %G_IO_ERROR_TIMED_OUT
 * and is cancelled the same way. An error answer of the server is a
 * [error@Snodo.RpcError] whose code is the JSON-RPC code (which may be one
 * the enumeration does not name). A failing tool is not an error: its
 * result has `isError` set.
 *
 * Progress notifications of a request are emitted as
 * [signal@Snodo.Client::request-progress], with the request, and
 * [signal@Snodo.Client::progress], log messages as
 * [signal@Snodo.Client::log-message], and every notification of the
 * server as [signal@Snodo.Client::notification].
 *
 * ## What the server asks
 *
 * A server may ask the application for input: a form or a URL
 * (`elicitation/create`), a completion of a language model
 * (`sampling/createMessage`), the client's roots (`roots/list`). The
 * client declares what it answers with
 * [method@Snodo.Client.set_capabilities], and each request comes as a
 * [class@Snodo.ServerRequest] to [signal@Snodo.Client::server-request],
 * answered now or later. In the initialize era these are requests of the
 * server; in 2026-07-28 they come in an `input_required` result, and the
 * client sends the request again with the answers until it completes: the
 * caller of [method@Snodo.Client.call_tool_async] sees only the result.
 *
 * ## Change notifications
 *
 * In 2026-07-28 [method@Snodo.Client.listen_async] subscribes to list
 * changes and resource updates (`subscriptions/listen`) until it is
 * cancelled; in the initialize era list changes come unasked, and
 * [method@Snodo.Client.subscribe_resource_async] subscribes to one
 * resource. Either way the notifications are emitted as
 * [signal@Snodo.Client::notification].
 *
 * ## Streamable HTTP
 *
 * A client made with [ctor@Snodo.Client.new_for_uri] POSTs each message
 * to the server's URL and reads the answer, one JSON message or an event
 * stream of messages ending with the result. The negotiation is the same;
 * a server of the initialize era that wants a session refuses the
 * `server/discover` probe, and the client falls back to `initialize`.
 *
 * - In 2026-07-28 every request carries the `MCP-Protocol-Version`,
 *   `Mcp-Method` and (for `tools/call`, `prompts/get` and
 *   `resources/read`) `Mcp-Name` headers, a value that is not plain ASCII
 *   in base64. A cancelled or timed-out request closes its answer, which
 *   is how the server learns of it. The arguments whose property in a
 *   tool's input schema is marked `x-mcp-header` go in `Mcp-Param-*`
 *   headers too, for the tools that [method@Snodo.Client.list_tools_async]
 *   listed (top-level properties); a tool whose marks break the rules is
 *   left out of that list.
 * - In the initialize era, the session id of the server's answer to
 *   `initialize` goes with every later request, with the version agreed
 *   on; a GET opens the stream of the server's own messages (reopened
 *   when it ends, five times in a row at most; not at all after a 405);
 *   an answer whose event stream ends before its result is asked again
 *   with a GET carrying `Last-Event-ID`, when the server numbered its
 *   events (after the stream's `retry` delay, at most ten seconds, five
 *   times at most); [method@Snodo.Client.close_async] ends the session
 *   with DELETE. When the server ended the session (HTTP 404), the
 *   client starts another (`initialize` again, with the version spoken)
 *   and sends the request again in it, once; the GET stream follows.
 * - A server of the older HTTP+SSE transport (protocol version
 *   2024-11-05's) refuses the `initialize` POST with HTTP 400, 404 or 405;
 *   the client then opens a GET event stream at the URL, waits for its
 *   `endpoint` event (a URL relative to the server's, on the same origin),
 *   POSTs every message there and reads every answer and message of the
 *   server from the stream, whose events are bounded like the others'.
 *   The stream is the session: when it ends the connection does
 *   ([signal@Snodo.Client::closed]), and closing the client closes it.
 *   The version agreed is still one the client speaks: a server that
 *   answers `initialize` with 2024-11-05 fails the handshake, whose error
 *   names the version. Sign-ins of [class@Snodo.ClientOAuth] are not
 *   tried on this transport; the headers of
 *   [method@Snodo.Client.set_http_header] go with every request.
 *
 * [method@Snodo.Client.set_http_header] adds headers of the
 * application's, such as `Authorization: Bearer TOKEN`. An answer of HTTP
 * 401 fails the request with %G_IO_ERROR_PERMISSION_DENIED, whose message
 * names the `resource_metadata` URL of the server's `WWW-Authenticate`
 * header, where the application learns how to get a token; the client
 * runs no OAuth flow itself. [property@Snodo.Client:tls-database] names
 * the certificate authorities to trust over HTTPS, such as a private
 * one's. Every message of an answer, and every event
 * of a stream, is bounded by [property@Snodo.Client:max-line-bytes]; a
 * request by [property@Snodo.Client:request-timeout]; a notification,
 * response or DELETE by thirty seconds.
 *
 * ## Lifetime and the server process
 *
 * While it is reading (over HTTP: while any request, answer or the GET
 * stream is under way), the client holds a reference on itself, until the
 * server's output ends or [method@Snodo.Client.close_async] finishes; a
 * connected client must be closed.
 *
 * A server the client started never outlives it. Closing the client closes
 * the server's standard input, and a server that has not exited two seconds
 * later gets `SIGTERM`, then two seconds later `SIGKILL`. If the client's
 * process dies instead, even by `SIGKILL`, Linux ends the server with
 * `SIGKILL`: the server is started with the parent-death signal set
 * (`PR_SET_PDEATHSIG`). The kernel sends that signal when the *thread*
 * that started the server ends, not the process: make the client in a
 * thread that lives as long as it does, such as the one running the main
 * loop. FreeBSD does the same with `procctl (PROC_PDEATHSIG_CTL)`, when
 * the client's process ends, and Windows with a Job Object that kills the
 * server when the client's process ends, however it ends. On macOS only
 * the end of the server's standard input tells it that the client is
 * gone, which a server that reads its input (as MCP servers do) notices
 * at once; one that never reads it outlives the client.
 *
 * Since: 0.1
 */

static void snodo_client_initable_iface_init (GInitableIface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SnodoClient, snodo_client, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_INITABLE,
                                                      snodo_client_initable_iface_init))

enum
{
  PROP_0,
  PROP_INPUT_STREAM,
  PROP_OUTPUT_STREAM,
  PROP_ARGV,
  PROP_SUBPROCESS,
  PROP_URI,
  PROP_PINNED_VERSION,
  PROP_PROTOCOL_VERSION,
  PROP_SERVER_INFO,
  PROP_SERVER_CAPABILITIES,
  PROP_INSTRUCTIONS,
  PROP_WRITE_TIMEOUT,
  PROP_MAX_LINE_BYTES,
  PROP_REQUEST_TIMEOUT,
  PROP_LOG_LEVEL,
  PROP_TLS_DATABASE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

guint snodo_client_signals[N_SIGNALS];

/* Spawning. */

#ifdef G_OS_UNIX
/* In the child, between fork and exec. */
static void
snodo_client_child_setup (gpointer user_data)
{
#if defined(HAVE_PR_SET_PDEATHSIG) || defined(HAVE_PROCCTL_PDEATHSIG)
  pid_t parent = (pid_t) GPOINTER_TO_INT (user_data);
# if defined(HAVE_PR_SET_PDEATHSIG)
  /* Sent when the thread that forked ends: with the process, whatever
   * ends it. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
# elif defined(HAVE_PROCCTL_PDEATHSIG)
  int signum = SIGKILL;

  /* Sent when the parent process ends, whatever ends it. */
  procctl (P_PID, 0, PROC_PDEATHSIG_CTL, &signum);
# endif
  /* The client died before the line above: nobody would send it. */
  if (getppid () != parent)
    _exit (1);
#endif
}
#endif

static gboolean
snodo_client_initable_init (GInitable     *initable,
                            GCancellable  *cancellable,
                            GError       **error)
{
  SnodoClient *self = SNODO_CLIENT (initable);

  if (self->uri != NULL)
    {
      if (self->http != NULL)
        return TRUE;
#if SNODO_HAS_HTTP_TRANSPORT
      self->http = snodo_client_http_new (self, error);
      return self->http != NULL;
#else
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("This build of Snodo has no HTTP: %s cannot be reached"), self->uri);
      return FALSE;
#endif
    }

  if (self->argv != NULL && self->subprocess == NULL)
    {
      g_autoptr(GSubprocessLauncher) launcher = NULL;

      if (self->argv[0] == NULL)
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                               _("No command to start the server with"));
          return FALSE;
        }
      launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                            G_SUBPROCESS_FLAGS_STDOUT_PIPE);
#ifdef G_OS_UNIX
      g_subprocess_launcher_set_child_setup (launcher, snodo_client_child_setup,
                                             GINT_TO_POINTER ((int) getpid ()), NULL);
#endif
      self->subprocess = g_subprocess_launcher_spawnv (launcher, (const char * const *) self->argv, error);
      if (self->subprocess == NULL)
        {
          g_prefix_error (error, _("Could not start %s: "), self->argv[0]);
          return FALSE;
        }
#ifdef G_OS_WIN32
      snodo_client_win32_tie_to_job (self->subprocess);
#endif
      g_set_object (&self->input, g_subprocess_get_stdout_pipe (self->subprocess));
      g_set_object (&self->output, g_subprocess_get_stdin_pipe (self->subprocess));
    }

  if (self->input == NULL || self->output == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("A client needs a command or a pair of streams"));
      return FALSE;
    }

  if (self->writer == NULL && self->state == STATE_NEW)
    self->writer = snodo_writer_new (self->output, self->context);
  return TRUE;
}

static void
snodo_client_initable_iface_init (GInitableIface *iface)
{
  iface->init = snodo_client_initable_init;
}

static void
snodo_client_dispose (GObject *object)
{
  SnodoClient *self = SNODO_CLIENT (object);
  g_autoptr(GError) error = NULL;

  error = g_error_new (G_IO_ERROR, G_IO_ERROR_CLOSED, _("The client was disposed"));
  snodo_client_stop (self, error);

  /* A server nobody closed: its input ends, and it gets SIGTERM. */
  if (self->subprocess != NULL)
    {
      GOutputStream *stdin_pipe = g_subprocess_get_stdin_pipe (self->subprocess);

      if (stdin_pipe != NULL)
        g_output_stream_close (stdin_pipe, NULL, NULL);
#ifdef G_OS_UNIX
      g_subprocess_send_signal (self->subprocess, SIGTERM);
#else
      g_subprocess_force_exit (self->subprocess);
#endif
    }

  g_clear_object (&self->subprocess);
  g_clear_object (&self->input);
  g_clear_object (&self->output);
#if SNODO_HAS_HTTP_TRANSPORT
  g_clear_pointer (&self->http, snodo_client_http_free);
#endif

  G_OBJECT_CLASS (snodo_client_parent_class)->dispose (object);
}

static void
snodo_client_finalize (GObject *object)
{
  SnodoClient *self = SNODO_CLIENT (object);

  g_clear_pointer (&self->pending, g_hash_table_unref);
  g_clear_pointer (&self->framer, snodo_line_framer_free);
  g_clear_object (&self->read_cancellable);
  g_clear_pointer (&self->server_info, json_object_unref);
  g_clear_pointer (&self->server_capabilities, json_object_unref);
  g_clear_pointer (&self->instructions, g_free);
  g_clear_pointer (&self->log_level, g_free);
  g_clear_pointer (&self->capabilities, json_object_unref);
  g_clear_pointer (&self->argv, g_strfreev);
  g_clear_pointer (&self->uri, g_free);
  g_clear_pointer (&self->http_headers, g_hash_table_unref);
  g_clear_object (&self->tls_database);
  g_clear_object (&self->oauth);
  g_clear_pointer (&self->context, g_main_context_unref);

  G_OBJECT_CLASS (snodo_client_parent_class)->finalize (object);
}

static void
snodo_client_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  SnodoClient *self = SNODO_CLIENT (object);

  switch (prop_id)
    {
    case PROP_INPUT_STREAM:
      g_value_set_object (value, self->input);
      break;

    case PROP_OUTPUT_STREAM:
      g_value_set_object (value, self->output);
      break;

    case PROP_ARGV:
      g_value_set_boxed (value, self->argv);
      break;

    case PROP_SUBPROCESS:
      g_value_set_object (value, self->subprocess);
      break;

    case PROP_URI:
      g_value_set_string (value, self->uri);
      break;

    case PROP_PINNED_VERSION:
      g_value_set_enum (value, self->pinned_version);
      break;

    case PROP_PROTOCOL_VERSION:
      g_value_set_enum (value, self->protocol_version);
      break;

    case PROP_SERVER_INFO:
      g_value_set_boxed (value, self->server_info);
      break;

    case PROP_SERVER_CAPABILITIES:
      g_value_set_boxed (value, self->server_capabilities);
      break;

    case PROP_INSTRUCTIONS:
      g_value_set_string (value, self->instructions);
      break;

    case PROP_WRITE_TIMEOUT:
      g_value_set_uint (value, self->write_timeout);
      break;

    case PROP_MAX_LINE_BYTES:
      g_value_set_uint64 (value, self->max_line_bytes);
      break;

    case PROP_REQUEST_TIMEOUT:
      g_value_set_uint (value, self->request_timeout);
      break;

    case PROP_LOG_LEVEL:
      g_value_set_string (value, self->log_level);
      break;

    case PROP_TLS_DATABASE:
      g_value_set_object (value, self->tls_database);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_client_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  SnodoClient *self = SNODO_CLIENT (object);

  switch (prop_id)
    {
    case PROP_INPUT_STREAM:
      self->input = g_value_dup_object (value);
      break;

    case PROP_OUTPUT_STREAM:
      self->output = g_value_dup_object (value);
      break;

    case PROP_ARGV:
      self->argv = g_value_dup_boxed (value);
      break;

    case PROP_URI:
      self->uri = g_value_dup_string (value);
      break;

    case PROP_PINNED_VERSION:
      snodo_client_set_pinned_version (self, g_value_get_enum (value));
      break;

    case PROP_WRITE_TIMEOUT:
      snodo_client_set_write_timeout (self, g_value_get_uint (value));
      break;

    case PROP_MAX_LINE_BYTES:
      snodo_client_set_max_line_bytes (self, g_value_get_uint64 (value));
      break;

    case PROP_REQUEST_TIMEOUT:
      snodo_client_set_request_timeout (self, g_value_get_uint (value));
      break;

    case PROP_LOG_LEVEL:
      snodo_client_set_log_level (self, g_value_get_string (value));
      break;

    case PROP_TLS_DATABASE:
      snodo_client_set_tls_database (self, g_value_get_object (value));
      break;

    case PROP_SUBPROCESS:
    case PROP_PROTOCOL_VERSION:
    case PROP_SERVER_INFO:
    case PROP_SERVER_CAPABILITIES:
    case PROP_INSTRUCTIONS:
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_client_class_init (SnodoClientClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = snodo_client_dispose;
  object_class->finalize = snodo_client_finalize;
  object_class->get_property = snodo_client_get_property;
  object_class->set_property = snodo_client_set_property;

  /**
   * SnodoClient:input-stream:
   *
   * The stream the server's messages are read from: the server's standard
   * output. For a client made with [ctor@Snodo.Client.new_for_argv], the
   * pipe of the server it started.
   *
   * Since: 0.1
   */
  properties[PROP_INPUT_STREAM] =
    g_param_spec_object ("input-stream", NULL, NULL,
                         G_TYPE_INPUT_STREAM,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:output-stream:
   *
   * The stream the client's messages are written to: the server's
   * standard input. For a client made with
   * [ctor@Snodo.Client.new_for_argv], the pipe of the server it started.
   *
   * Since: 0.1
   */
  properties[PROP_OUTPUT_STREAM] =
    g_param_spec_object ("output-stream", NULL, NULL,
                         G_TYPE_OUTPUT_STREAM,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:argv:
   *
   * The command that starts the server, looked up in `PATH`; %NULL for a
   * client of a stream pair. The server's standard error is the client's.
   *
   * Since: 0.1
   */
  properties[PROP_ARGV] =
    g_param_spec_boxed ("argv", NULL, NULL,
                        G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:subprocess: (getter get_subprocess)
   *
   * The server the client started, or %NULL for a client of a stream pair.
   *
   * Since: 0.1
   */
  properties[PROP_SUBPROCESS] =
    g_param_spec_object ("subprocess", NULL, NULL,
                         G_TYPE_SUBPROCESS,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:uri: (getter get_uri)
   *
   * The `http` or `https` URI of a server reached over Streamable HTTP,
   * such as `http://127.0.0.1:8080/mcp`; %NULL for a client of streams.
   *
   * Since: 0.1
   */
  properties[PROP_URI] =
    g_param_spec_string ("uri", NULL, NULL,
                         NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:pinned-version: (getter get_pinned_version) (setter set_pinned_version)
   *
   * The only protocol version the client will speak, or
   * %SNODO_PROTOCOL_VERSION_UNKNOWN (the default) to negotiate the newest
   * the server speaks. Read by [method@Snodo.Client.connect_async].
   *
   * Since: 0.1
   */
  properties[PROP_PINNED_VERSION] =
    g_param_spec_enum ("pinned-version", NULL, NULL,
                       SNODO_TYPE_PROTOCOL_VERSION, SNODO_PROTOCOL_VERSION_UNKNOWN,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:protocol-version: (getter get_protocol_version)
   *
   * The protocol version the client and the server agreed on, or
   * %SNODO_PROTOCOL_VERSION_UNKNOWN before they did.
   *
   * Since: 0.1
   */
  properties[PROP_PROTOCOL_VERSION] =
    g_param_spec_enum ("protocol-version", NULL, NULL,
                       SNODO_TYPE_PROTOCOL_VERSION, SNODO_PROTOCOL_VERSION_UNKNOWN,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:server-info: (getter get_server_info)
   *
   * The server's `Implementation` object (`name`, `version`, …) as it
   * introduced itself, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_SERVER_INFO] =
    g_param_spec_boxed ("server-info", NULL, NULL,
                        JSON_TYPE_OBJECT,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:server-capabilities: (getter get_server_capabilities)
   *
   * The capabilities the server declared, or %NULL before the handshake.
   *
   * Since: 0.1
   */
  properties[PROP_SERVER_CAPABILITIES] =
    g_param_spec_boxed ("server-capabilities", NULL, NULL,
                        JSON_TYPE_OBJECT,
                        G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:instructions: (getter get_instructions)
   *
   * The instructions the server gave for using it, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_INSTRUCTIONS] =
    g_param_spec_string ("instructions", NULL, NULL,
                         NULL,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:write-timeout: (getter get_write_timeout) (setter set_write_timeout)
   *
   * How long, in milliseconds, writing to the server may take. A write
   * that takes longer ends the connection with %G_IO_ERROR_TIMED_OUT. At
   * least 1; the default is 5000.
   *
   * Since: 0.1
   */
  properties[PROP_WRITE_TIMEOUT] =
    g_param_spec_uint ("write-timeout", NULL, NULL,
                       1, G_MAXUINT, 5000,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:max-line-bytes: (getter get_max_line_bytes) (setter set_max_line_bytes)
   *
   * The largest message accepted from the server, in bytes, its newline
   * included. A larger one ends the connection with
   * %G_IO_ERROR_MESSAGE_TOO_LARGE. The default is 2000000.
   *
   * Since: 0.1
   */
  properties[PROP_MAX_LINE_BYTES] =
    g_param_spec_uint64 ("max-line-bytes", NULL, NULL,
                         2, G_MAXSSIZE, 2000000,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:request-timeout: (getter get_request_timeout) (setter set_request_timeout)
   *
   * How long, in milliseconds, the client waits for the answer to a
   * request before it gives up with %G_IO_ERROR_TIMED_OUT and cancels the
   * request; 0 waits for ever. The default is 60000. A change applies to
   * the requests sent afterwards.
   *
   * Since: 0.1
   */
  properties[PROP_REQUEST_TIMEOUT] =
    g_param_spec_uint ("request-timeout", NULL, NULL,
                       0, G_MAXUINT, 60000,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:log-level: (getter get_log_level) (setter set_log_level)
   *
   * The lowest level of the server's log messages the client asks for
   * (`debug`, `info`, `notice`, `warning`, `error`, `critical`, `alert`
   * or `emergency`), or %NULL (the default) to ask for none. In
   * 2026-07-28 every later request carries it; in the initialize era the
   * handshake sends `logging/setLevel` when the server has the `logging`
   * capability, and again whenever it changes while connected (a change
   * to %NULL asks nothing: the server keeps the last level). The messages
   * are emitted as
   * [signal@Snodo.Client::log-message].
   *
   * Since: 0.1
   */
  properties[PROP_LOG_LEVEL] =
    g_param_spec_string ("log-level", NULL, NULL,
                         NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoClient:tls-database: (getter get_tls_database) (setter set_tls_database)
   *
   * The certificate authorities whose certificates the client trusts over
   * HTTPS, such as a private CA's from g_tls_file_database_new(); %NULL,
   * the default, for the system's. A server whose certificate they do not
   * vouch for fails the request with %G_TLS_ERROR_BAD_CERTIFICATE, whose
   * message says what was wrong with it.
   *
   * Since: 0.1
   */
  properties[PROP_TLS_DATABASE] =
    g_param_spec_object ("tls-database", NULL, NULL,
                         G_TYPE_TLS_DATABASE,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * SnodoClient::progress:
   * @self: the client
   * @method: the method of the request the progress is about
   * @progress: the progress so far
   * @total: the total to reach, or -1 when the server did not say
   * @message: (nullable): what the server said about it
   *
   * Emitted in the client's main context for every progress notification
   * of a pending request. It names only the method:
   * [signal@Snodo.Client::request-progress], emitted just before it,
   * gives the request itself.
   *
   * Since: 0.1
   */
  snodo_client_signals[SIGNAL_PROGRESS] =
    g_signal_new ("progress",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 4,
                  G_TYPE_STRING, G_TYPE_DOUBLE, G_TYPE_DOUBLE, G_TYPE_STRING);

  /**
   * SnodoClient::log-message:
   * @self: the client
   * @level: the message's level (`debug`, `info`, … `emergency`)
   * @logger: (nullable): the logger's name
   * @data: (nullable): what was logged: a string or any JSON value
   *
   * Emitted in the client's main context for every log message
   * (`notifications/message`) of the server.
   *
   * Since: 0.1
   */
  snodo_client_signals[SIGNAL_LOG_MESSAGE] =
    g_signal_new ("log-message",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 3,
                  G_TYPE_STRING, G_TYPE_STRING, JSON_TYPE_NODE);

  /**
   * SnodoClient::notification:
   * @self: the client
   * @method: the notification's method, also the signal's detail
   * @params: the notification's params (an empty object when it had none)
   *
   * Emitted in the client's main context for every notification of the
   * server, after the more specific signals; connect to
   * `notification::notifications/tools/list_changed` for one of them.
   *
   * Since: 0.1
   */
  snodo_client_signals[SIGNAL_NOTIFICATION] =
    g_signal_new ("notification",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2,
                  G_TYPE_STRING, JSON_TYPE_OBJECT);

  /**
   * SnodoClient::closed:
   * @self: the client
   * @error: why the connection ended
   *
   * Emitted in the client's main context when the connection ends other
   * than by [method@Snodo.Client.close_async]: the server closed its
   * output (it exited), a write failed or took too long, or a message was
   * too large. Every pending request has failed with the same error.
   *
   * Since: 0.1
   */
  snodo_client_install_input_signal (object_class);
  snodo_client_install_progress_signal (object_class);
  snodo_client_install_task_signal (object_class);

  snodo_client_signals[SIGNAL_CLOSED] =
    g_signal_new ("closed",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1,
                  G_TYPE_ERROR);
}

static void
snodo_client_init (SnodoClient *self)
{
  self->context = g_main_context_ref_thread_default ();
  self->state = STATE_NEW;
  self->framer = snodo_line_framer_new (2000000);
  self->read_cancellable = g_cancellable_new ();
  self->pending = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_queue_init (&self->out);
  self->next_id = 1;
  self->http_headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/**
 * snodo_client_new:
 * @input: the stream to read the server's messages from
 * @output: the stream to write the client's messages to
 *
 * Makes a client of the server at the other end of @input and @output;
 * nothing is read or written before [method@Snodo.Client.connect_async].
 *
 * Returns: (transfer full): the new client
 *
 * Since: 0.1
 */
SnodoClient *
snodo_client_new (GInputStream  *input,
                  GOutputStream *output)
{
  g_return_val_if_fail (G_IS_INPUT_STREAM (input), NULL);
  g_return_val_if_fail (G_IS_OUTPUT_STREAM (output), NULL);

  return g_initable_new (SNODO_TYPE_CLIENT, NULL, NULL,
                         "input-stream", input,
                         "output-stream", output,
                         NULL);
}

/**
 * snodo_client_new_for_argv:
 * @argv: (array zero-terminated=1): the command that starts the server
 *   and its arguments
 * @error: return location for a #GError
 *
 * Starts a server and makes a client of it, talking to its standard input
 * and output. The server never outlives the client (see the class
 * documentation).
 *
 * Returns: (transfer full): the new client, or %NULL when the server could
 *   not be started
 *
 * Since: 0.1
 */
SnodoClient *
snodo_client_new_for_argv (const char * const  *argv,
                           GError             **error)
{
  g_return_val_if_fail (argv != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_initable_new (SNODO_TYPE_CLIENT, NULL, error,
                         "argv", argv,
                         NULL);
}

/**
 * snodo_client_new_for_uri:
 * @uri: the server's endpoint, an `http` or `https` URI, or an
 *   `http+unix` URI whose host is the percent-encoded path of a Unix
 *   socket (`http+unix://%2Frun%2Fapp.sock/mcp`, as a server listening
 *   on a socket prints it; not on Windows)
 * @error: return location for a #GError
 *
 * Makes a client of the server at @uri, over Streamable HTTP (see the
 * class documentation); nothing is sent before
 * [method@Snodo.Client.connect_async]. Fails with %G_IO_ERROR_NOT_SUPPORTED
 * in a build of Snodo without HTTP.
 *
 * Returns: (transfer full): the new client, or %NULL when @uri is not
 *   one the client can reach
 *
 * Since: 0.1
 */
SnodoClient *
snodo_client_new_for_uri (const char  *uri,
                          GError     **error)
{
  g_return_val_if_fail (uri != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  return g_initable_new (SNODO_TYPE_CLIENT, NULL, error,
                         "uri", uri,
                         NULL);
}

/**
 * snodo_client_get_uri: (get-property uri)
 * @self: a client
 *
 * Gets the URI of the server reached over HTTP.
 *
 * Returns: (nullable): the URI, or %NULL for a client of streams
 *
 * Since: 0.1
 */
const char *
snodo_client_get_uri (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return self->uri;
}

/**
 * snodo_client_set_http_header:
 * @self: a client
 * @name: the header's name, such as `Authorization`
 * @value: (nullable): its value, such as `Bearer` and a token, or %NULL
 *   to send the header no more
 *
 * Sends a header of the application's with every HTTP request of the
 * client from now on, replacing any the client would send by that name.
 * A bearer token is one: `Authorization: Bearer TOKEN`. A server that
 * wants a token it did not get answers HTTP 401, which fails the request
 * with %G_IO_ERROR_PERMISSION_DENIED naming the server's resource
 * metadata when it gives one. Nothing happens for a client of streams.
 *
 * Since: 0.1
 */
void
snodo_client_set_http_header (SnodoClient *self,
                              const char  *name,
                              const char  *value)
{
  g_autofree char *lower = NULL;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (name != NULL && *name != '\0');

  lower = g_ascii_strdown (name, -1);
  if (value == NULL)
    g_hash_table_remove (self->http_headers, lower);
  else
    g_hash_table_replace (self->http_headers, g_steal_pointer (&lower), g_strdup (value));
}

/**
 * snodo_client_get_tls_database: (get-property tls-database)
 * @self: a client
 *
 * Gets the certificate authorities the client trusts over HTTPS.
 *
 * Returns: (transfer none) (nullable): the database, or %NULL for the
 *   system's
 *
 * Since: 0.1
 */
GTlsDatabase *
snodo_client_get_tls_database (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return self->tls_database;
}

/**
 * snodo_client_set_tls_database: (set-property tls-database)
 * @self: a client
 * @database: (nullable): the certificate authorities to trust, or %NULL
 *   for the system's
 *
 * Sets the certificate authorities the client trusts over HTTPS from now
 * on; see [property@Snodo.Client:tls-database].
 *
 * Since: 0.1
 */
void
snodo_client_set_tls_database (SnodoClient  *self,
                               GTlsDatabase *database)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (database == NULL || G_IS_TLS_DATABASE (database));

  if (!g_set_object (&self->tls_database, database))
    return;
#if SNODO_HAS_HTTP_TRANSPORT
  if (self->http != NULL)
    snodo_client_http_set_tls_database (self);
#endif
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TLS_DATABASE]);
}

/**
 * snodo_client_get_subprocess: (get-property subprocess)
 * @self: a client
 *
 * Gets the server the client started.
 *
 * Returns: (transfer none) (nullable): the server's process, or %NULL
 *
 * Since: 0.1
 */
GSubprocess *
snodo_client_get_subprocess (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return self->subprocess;
}

/**
 * snodo_client_get_protocol_version: (get-property protocol-version)
 * @self: a client
 *
 * Gets the protocol version agreed on with the server.
 *
 * Returns: the version, or %SNODO_PROTOCOL_VERSION_UNKNOWN before the
 *   handshake
 *
 * Since: 0.1
 */
SnodoProtocolVersion
snodo_client_get_protocol_version (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), SNODO_PROTOCOL_VERSION_UNKNOWN);

  return self->protocol_version;
}

/**
 * snodo_client_get_pinned_version: (get-property pinned-version)
 * @self: a client
 *
 * Gets the only version the client will speak.
 *
 * Returns: the version, or %SNODO_PROTOCOL_VERSION_UNKNOWN when it
 *   negotiates
 *
 * Since: 0.1
 */
SnodoProtocolVersion
snodo_client_get_pinned_version (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), SNODO_PROTOCOL_VERSION_UNKNOWN);

  return self->pinned_version;
}

/**
 * snodo_client_set_pinned_version: (set-property pinned-version)
 * @self: a client
 * @version: the only version to speak, or %SNODO_PROTOCOL_VERSION_UNKNOWN
 *   to negotiate
 *
 * Pins the protocol version, before [method@Snodo.Client.connect_async].
 *
 * Since: 0.1
 */
void
snodo_client_set_pinned_version (SnodoClient          *self,
                                 SnodoProtocolVersion  version)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));

  if (self->pinned_version == version)
    return;
  self->pinned_version = version;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PINNED_VERSION]);
}

/**
 * snodo_client_get_server_info: (get-property server-info)
 * @self: a client
 *
 * Gets the server's `Implementation` object.
 *
 * Returns: (transfer none) (nullable): the object, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_get_server_info (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return self->server_info;
}

/**
 * snodo_client_get_server_capabilities: (get-property server-capabilities)
 * @self: a client
 *
 * Gets the capabilities the server declared.
 *
 * Returns: (transfer none) (nullable): the capabilities, or %NULL
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_get_server_capabilities (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return self->server_capabilities;
}

/**
 * snodo_client_get_instructions: (get-property instructions)
 * @self: a client
 *
 * Gets the instructions the server gave.
 *
 * Returns: (transfer none) (nullable): the instructions, or %NULL
 *
 * Since: 0.1
 */
const char *
snodo_client_get_instructions (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return self->instructions;
}

/**
 * snodo_client_get_write_timeout: (get-property write-timeout)
 * @self: a client
 *
 * Gets how long a write may take.
 *
 * Returns: the time in milliseconds
 *
 * Since: 0.1
 */
guint
snodo_client_get_write_timeout (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), 0);

  return self->write_timeout;
}

/**
 * snodo_client_set_write_timeout: (set-property write-timeout)
 * @self: a client
 * @write_timeout: the time in milliseconds, at least 1
 *
 * Sets how long a write may take, from the next write on.
 *
 * Since: 0.1
 */
void
snodo_client_set_write_timeout (SnodoClient *self,
                                guint        write_timeout)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (write_timeout >= 1);

  if (self->write_timeout == write_timeout)
    return;
  self->write_timeout = write_timeout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WRITE_TIMEOUT]);
}

/**
 * snodo_client_get_max_line_bytes: (get-property max-line-bytes)
 * @self: a client
 *
 * Gets the largest message accepted from the server.
 *
 * Returns: the size in bytes, its newline included
 *
 * Since: 0.1
 */
guint64
snodo_client_get_max_line_bytes (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), 0);

  return self->max_line_bytes;
}

/**
 * snodo_client_set_max_line_bytes: (set-property max-line-bytes)
 * @self: a client
 * @max_line_bytes: the size in bytes, its newline included, at least 2
 *
 * Sets the largest message accepted from the server, from the next line on.
 *
 * Since: 0.1
 */
void
snodo_client_set_max_line_bytes (SnodoClient *self,
                                 guint64      max_line_bytes)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (max_line_bytes >= 2 && max_line_bytes <= G_MAXSSIZE);

  if (self->max_line_bytes == max_line_bytes)
    return;
  self->max_line_bytes = max_line_bytes;
  snodo_line_framer_set_max_line_bytes (self->framer, (gsize) max_line_bytes);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MAX_LINE_BYTES]);
}

/**
 * snodo_client_get_request_timeout: (get-property request-timeout)
 * @self: a client
 *
 * Gets how long the client waits for an answer.
 *
 * Returns: the time in milliseconds; 0 for ever
 *
 * Since: 0.1
 */
guint
snodo_client_get_request_timeout (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), 0);

  return self->request_timeout;
}

/**
 * snodo_client_set_request_timeout: (set-property request-timeout)
 * @self: a client
 * @request_timeout: the time in milliseconds; 0 for ever
 *
 * Sets how long the client waits for the answer to each later request.
 *
 * Since: 0.1
 */
void
snodo_client_set_request_timeout (SnodoClient *self,
                                  guint        request_timeout)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));

  if (self->request_timeout == request_timeout)
    return;
  self->request_timeout = request_timeout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REQUEST_TIMEOUT]);
}

/**
 * snodo_client_get_log_level: (get-property log-level)
 * @self: a client
 *
 * Gets the level of the log messages asked for.
 *
 * Returns: (nullable): the level, or %NULL for none
 *
 * Since: 0.1
 */
const char *
snodo_client_get_log_level (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return self->log_level;
}

/**
 * snodo_client_set_log_level: (set-property log-level)
 * @self: a client
 * @log_level: (nullable): the lowest level asked for, or %NULL for none
 *
 * Sets the level of the server's log messages the client asks for; see
 * [property@Snodo.Client:log-level].
 *
 * Since: 0.1
 */
void
snodo_client_set_log_level (SnodoClient *self,
                            const char  *log_level)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));

  if (g_strcmp0 (self->log_level, log_level) == 0)
    return;
  g_free (self->log_level);
  self->log_level = g_strdup (log_level);
  /* A change once connected reaches an initialize-era server at once. */
  snodo_client_send_log_level (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOG_LEVEL]);
}

/* A copy of @params deep enough for the envelope and the progress token
 * not to reach the caller's object: its members, and those of its _meta. */
JsonObject *
snodo_client_copy_params (JsonObject *params)
{
  JsonObject *copy = json_object_new ();
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  json_object_iter_init (&iter, params);
  while (json_object_iter_next (&iter, &name, &member))
    {
      if (g_str_equal (name, "_meta") && JSON_NODE_HOLDS_OBJECT (member))
        json_object_set_object_member (copy, name, snodo_client_copy_params (json_node_get_object (member)));
      else
        json_object_set_member (copy, name, json_node_copy (member));
    }
  return copy;
}

/* The end of the handshake (snodo-client-handshake.c). */

void
snodo_client_set_agreed (SnodoClient          *self,
                         SnodoProtocolVersion  version,
                         JsonObject           *capabilities,
                         JsonObject           *server_info,
                         const char           *instructions)
{
  self->protocol_version = version;
  g_clear_pointer (&self->server_capabilities, json_object_unref);
  g_clear_pointer (&self->server_info, json_object_unref);
  g_clear_pointer (&self->instructions, g_free);
  self->server_capabilities = capabilities != NULL ? json_object_ref (capabilities) : json_object_new ();
  self->server_info = server_info != NULL ? json_object_ref (server_info) : NULL;
  self->instructions = g_strdup (instructions);
  self->state = STATE_READY;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROTOCOL_VERSION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVER_CAPABILITIES]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SERVER_INFO]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INSTRUCTIONS]);
}

/**
 * snodo_client_request_async:
 * @self: a client
 * @method: the method, such as `completion/complete`
 * @params: (nullable): the params, without the 2026-07-28 `_meta`
 *   envelope, which the client adds; not modified
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the answer
 * @user_data: data for @callback
 *
 * Sends any request to the server, for what has no method of its own.
 *
 * Since: 0.1
 */
void
snodo_client_request_async (SnodoClient         *self,
                            const char          *method,
                            JsonObject          *params,
                            GCancellable        *cancellable,
                            GAsyncReadyCallback  callback,
                            gpointer             user_data)
{
  GTask *task;
  JsonObject *copy = NULL;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (method != NULL && *method != '\0');
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_client_request_async);
  g_task_set_name (task, G_STRFUNC);

  if (params != NULL)
    copy = snodo_client_copy_params (params);
  snodo_client_start_request (self, method, copy, cancellable, task);
}

/**
 * snodo_client_request_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.request_async].
 *
 * Returns: (transfer full): the result object, or %NULL with @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_request_finish (SnodoClient   *self,
                             GAsyncResult  *result,
                             GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
