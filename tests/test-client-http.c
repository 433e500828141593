/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient over Streamable HTTP: against snodo-demo --http in both
 * eras, and against a scripted raw HTTP server (a thread of this process
 * answering with bytes a test chose) for what a demo does not do on its
 * own: the 2026-07-28 headers, a 401 with its resource metadata, custom
 * and bearer headers, a broken event stream resumed with Last-Event-ID,
 * the session ended with DELETE, oversized answers and events, a
 * cancellation that closes the answer, a request of the server on the GET
 * stream. And the event stream parser by itself. */

#include "config.h"

#include <string.h>

#include <snodo/snodo.h>

#include "snodo-client-private.h"
#include "snodo-test-util.h"

static gboolean
connect_client (SnodoClient  *client,
                GError      **error)
{
  g_autoptr(GAsyncResult) result = NULL;

  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &result);
  return snodo_client_connect_finish (client, snodo_test_wait_result (&result), error);
}

/* snodo-demo --http=0. */

typedef struct
{
  GSubprocess *process;
  char *uri;
} Demo;

static void
demo_start (Demo *demo)
{
  demo->process = snodo_test_demo_http_start (NULL, &demo->uri);
}

static void
demo_stop (Demo *demo)
{
  snodo_test_demo_stop (demo->process);
  g_clear_object (&demo->process);
  g_clear_pointer (&demo->uri, g_free);
}

static void
progress_cb (SnodoClient *client,
             const char  *method,
             double       progress,
             double       total,
             const char  *message,
             gpointer     user_data)
{
  guint *count = user_data;

  (*count)++;
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_demo (gconstpointer data)
{
  SnodoProtocolVersion pinned = GPOINTER_TO_INT (data);
  Demo demo = { 0, };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) echo_args = snodo_test_parse_object ("{\"text\":\"über HTTP\"}");
  g_autoptr(JsonObject) version_args = snodo_test_parse_object ("{}");
  g_autoptr(JsonObject) sleep_args = snodo_test_parse_object ("{\"ms\":30000}");
  g_autoptr(JsonObject) progress_args = snodo_test_parse_object ("{\"steps\":3}");
  g_autoptr(JsonObject) echoed = NULL;
  g_autoptr(JsonObject) served = NULL;
  g_autoptr(JsonObject) progressed = NULL;
  g_autoptr(JsonObject) after = NULL;
  g_autoptr(JsonObject) read = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(GAsyncResult) r3 = NULL;
  g_autoptr(GAsyncResult) r4 = NULL;
  g_autoptr(GAsyncResult) r5 = NULL;
  g_autoptr(GAsyncResult) r6 = NULL;
  g_autoptr(GAsyncResult) r7 = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autofree char *text = NULL;
  g_autofree char *version_text = NULL;
  guint progress_count = 0;
  gint64 start;

  demo_start (&demo);
  client = snodo_client_new_for_uri (demo.uri, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (snodo_client_get_uri (client), ==, demo.uri);
  snodo_client_set_pinned_version (client, pinned);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==,
                   pinned != SNODO_PROTOCOL_VERSION_UNKNOWN ? pinned : SNODO_PROTOCOL_VERSION_2026_07_28);
  g_assert_cmpstr (json_object_get_string_member (snodo_client_get_server_info (client), "name"), ==, "snodo-demo");

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &r1);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), >=, 5);

  snodo_client_call_tool_async (client, "echo", echo_args, NULL, snodo_test_store_result_cb, &r2);
  echoed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (echoed);
  g_assert_cmpstr (text, ==, "über HTTP");

  /* The server serves the call under the version agreed on. */
  snodo_client_call_tool_async (client, "version", version_args, NULL, snodo_test_store_result_cb, &r3);
  served = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r3), &error);
  g_assert_no_error (error);
  version_text = snodo_test_first_text (served);
  g_assert_cmpstr (version_text, ==, snodo_protocol_version_to_string (snodo_client_get_protocol_version (client)));

  /* Progress comes on the request's own event stream. */
  g_signal_connect (client, "progress", G_CALLBACK (progress_cb), &progress_count);
  snodo_client_call_tool_async (client, "progress", progress_args, NULL, snodo_test_store_result_cb, &r4);
  progressed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r4), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (progress_count, >=, 1);

  start = g_get_monotonic_time ();
  snodo_client_call_tool_async (client, "sleep", sleep_args, cancellable, snodo_test_store_result_cb, &r5);
  g_timeout_add (200, cancel_cb, cancellable);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&r5), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_clear_error (&error);

  snodo_client_call_tool_async (client, "echo", echo_args, NULL, snodo_test_store_result_cb, &r6);
  after = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r6), &error);
  g_assert_no_error (error);

  snodo_client_read_resource_async (client, "demo://readme", NULL, snodo_test_store_result_cb, &r7);
  read = snodo_client_read_resource_finish (client, snodo_test_wait_result (&r7), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (read, "contents"));

  snodo_test_close_client (client);
  demo_stop (&demo);
}

/* A scripted server: a thread of its own answers each HTTP request with
 * what the test's responder writes, then closes the connection. */

typedef struct
{
  char *method;
  /* The headers, lowercased names. */
  GHashTable *headers;
  char *body;
  /* The JSON-RPC method of the body, or NULL. */
  char *rpc_method;
  gint64 rpc_id;
} Request;

static void
request_free (Request *request)
{
  g_free (request->method);
  g_hash_table_unref (request->headers);
  g_free (request->body);
  g_free (request->rpc_method);
  g_free (request);
}

typedef struct _Script Script;
/* Writes the answer to @request on @out; @in is still readable. */
typedef void (*Responder) (Script        *script,
                           Request       *request,
                           GInputStream  *in,
                           GOutputStream *out);

struct _Script
{
  GSocketService *service;
  char *uri;
  Responder responder;
  gpointer data;
  GMutex lock;
  GPtrArray *requests;
  /* Set by a responder when the client closed the connection. */
  gboolean client_closed;
};

static const char *
header (Request    *request,
        const char *name)
{
  return g_hash_table_lookup (request->headers, name);
}

static gboolean
script_run_cb (GThreadedSocketService *service,
               GSocketConnection      *connection,
               GObject                *source,
               gpointer                user_data)
{
  Script *script = user_data;
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  g_autoptr(GDataInputStream) data = g_data_input_stream_new (in);
  Request *request = g_new0 (Request, 1);
  g_autofree char *first = NULL;
  g_auto(GStrv) parts = NULL;
  guint64 length = 0;
  char *line;

  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (data), FALSE);
  request->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  first = g_data_input_stream_read_line (data, NULL, NULL, NULL);
  if (first == NULL)
    {
      request_free (request);
      return TRUE;
    }
  parts = g_strsplit (first, " ", 3);
  request->method = g_strdup (parts[0]);
  while ((line = g_data_input_stream_read_line (data, NULL, NULL, NULL)) != NULL)
    {
      char *colon;

      g_strchomp (line);
      if (*line == '\0')
        {
          g_free (line);
          break;
        }
      colon = strchr (line, ':');
      if (colon != NULL)
        {
          *colon = '\0';
          g_hash_table_replace (request->headers, g_ascii_strdown (line, -1), g_strdup (g_strstrip (colon + 1)));
        }
      g_free (line);
    }
  if (header (request, "content-length") != NULL)
    g_ascii_string_to_unsigned (header (request, "content-length"), 10, 0, 1 << 24, &length, NULL);
  request->body = g_malloc0 (length + 1);
  if (length > 0)
    g_input_stream_read_all (G_INPUT_STREAM (data), request->body, length, NULL, NULL, NULL);
  if (length > 0)
    {
      g_autoptr(JsonNode) node = json_from_string (request->body, NULL);

      if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
        {
          JsonObject *object = json_node_get_object (node);

          request->rpc_method = g_strdup (json_object_get_string_member_with_default (object, "method", NULL));
          request->rpc_id = json_object_get_int_member_with_default (object, "id", -1);
        }
    }

  g_mutex_lock (&script->lock);
  g_ptr_array_add (script->requests, request);
  g_mutex_unlock (&script->lock);

  script->responder (script, request, G_INPUT_STREAM (data), out);
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  return TRUE;
}

static void
script_destroy (Script *script)
{
  g_ptr_array_unref (script->requests);
  g_mutex_clear (&script->lock);
  g_free (script->uri);
  g_free (script);
}

static Script *
script_new (Responder responder)
{
  Script *script = g_new0 (Script, 1);
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
  g_autoptr(GSocketAddress) bound = NULL;
  g_autoptr(GError) error = NULL;

  g_mutex_init (&script->lock);
  script->requests = g_ptr_array_new_with_free_func ((GDestroyNotify) request_free);
  script->responder = responder;
  script->service = g_threaded_socket_service_new (4);
  g_socket_listener_add_address (G_SOCKET_LISTENER (script->service), address, G_SOCKET_TYPE_STREAM,
                                 G_SOCKET_PROTOCOL_TCP, NULL, &bound, &error);
  g_assert_no_error (error);
  g_signal_connect (script->service, "run", G_CALLBACK (script_run_cb), script);
  g_object_set_data_full (G_OBJECT (script->service), "script", script, (GDestroyNotify) script_destroy);
  g_socket_service_start (script->service);
  script->uri = g_strdup_printf ("http://127.0.0.1:%u/mcp",
                                 g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
  return script;
}

/* Stops listening. A connection the server thread still serves (a late
 * request of a client that is gone) holds the service, which holds the
 * script until then. */
static void
script_free (Script *script)
{
  GSocketService *service = g_steal_pointer (&script->service);

  g_socket_service_stop (service);
  g_socket_listener_close (G_SOCKET_LISTENER (service));
  g_object_unref (service);
}

/* The @n-th request (0 first) whose JSON-RPC method or HTTP method is
 * @what, or NULL. */
static Request *
script_find (Script     *script,
             const char *what,
             guint       n)
{
  Request *found = NULL;

  g_mutex_lock (&script->lock);
  for (guint i = 0; i < script->requests->len && found == NULL; i++)
    {
      Request *request = script->requests->pdata[i];

      if (g_strcmp0 (request->rpc_method, what) == 0 ||
          (request->rpc_method == NULL && g_str_equal (request->method, what)))
        {
          if (n == 0)
            found = request;
          else
            n--;
        }
    }
  g_mutex_unlock (&script->lock);
  return found;
}

static void
write_text (GOutputStream *out,
            const char    *text)
{
  g_output_stream_write_all (out, text, strlen (text), NULL, NULL, NULL);
}

static void
answer_json (GOutputStream *out,
             guint          status,
             const char    *extra_headers,
             const char    *body)
{
  g_autofree char *head = g_strdup_printf ("HTTP/1.1 %u X\r\nContent-Type: application/json\r\n"
                                           "Content-Length: %zu\r\nConnection: close\r\n%s\r\n",
                                           status, strlen (body), extra_headers != NULL ? extra_headers : "");

  write_text (out, head);
  write_text (out, body);
}

static void
answer_empty (GOutputStream *out,
              guint          status)
{
  g_autofree char *head = g_strdup_printf ("HTTP/1.1 %u X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                                           status);

  write_text (out, head);
}

/* An event stream until the connection closes: its body is @events. */
static void
answer_sse (GOutputStream *out,
            const char    *events)
{
  write_text (out, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n");
  write_text (out, events);
}

static char *
result_for (Request    *request,
            const char *result)
{
  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":%s}", request->rpc_id, result);
}

#define DISCOVER_RESULT \
  "{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}}," \
  "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"scripted\",\"version\":\"1\"}}}"
#define TOOL_RESULT "{\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}"

/* 2026-07-28, every answer JSON; a tool call needs the bearer token. */
static void
modern_responder (Script        *script,
                  Request       *request,
                  GInputStream  *in,
                  GOutputStream *out)
{
  if (g_strcmp0 (request->rpc_method, "server/discover") == 0)
    {
      g_autofree char *body = result_for (request, DISCOVER_RESULT);

      answer_json (out, 200, NULL, body);
    }
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0 &&
           g_strcmp0 (header (request, "authorization"), "Bearer sesame") != 0)
    answer_json (out, 401,
                 "WWW-Authenticate: Bearer error=\"invalid_token\", "
                 "resource_metadata=\"http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp\"\r\n",
                 "{}");
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0)
    {
      g_autofree char *body = result_for (request, TOOL_RESULT);

      answer_json (out, 200, NULL, body);
    }
  else
    answer_json (out, 404, NULL, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32601,\"message\":\"no\"}}");
}

static void
test_modern_headers (void)
{
  Script *script = script_new (modern_responder);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{}");
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(JsonObject) called = NULL;
  g_autofree char *encoded = NULL;
  g_autofree char *expected = NULL;
  Request *discover;
  Request *call;

  client = snodo_client_new_for_uri (script->uri, &error);
  g_assert_no_error (error);
  snodo_client_set_http_header (client, "X-Custom", "yes");
  snodo_client_set_http_header (client, "X-Gone", "no");
  snodo_client_set_http_header (client, "x-gone", NULL);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2026_07_28);
  g_assert_cmpstr (json_object_get_string_member (snodo_client_get_server_info (client), "name"), ==, "scripted");

  discover = script_find (script, "server/discover", 0);
  g_assert_nonnull (discover);
  g_assert_cmpstr (discover->method, ==, "POST");
  g_assert_cmpstr (header (discover, "mcp-protocol-version"), ==, "2026-07-28");
  g_assert_cmpstr (header (discover, "mcp-method"), ==, "server/discover");
  g_assert_null (header (discover, "mcp-name"));
  g_assert_null (header (discover, "mcp-session-id"));
  g_assert_cmpstr (header (discover, "x-custom"), ==, "yes");
  g_assert_null (header (discover, "x-gone"));
  g_assert_nonnull (strstr (header (discover, "accept"), "application/json"));
  g_assert_nonnull (strstr (header (discover, "accept"), "text/event-stream"));

  /* No token: a 401 that names the resource metadata. */
  snodo_client_call_tool_async (client, "grüß dich", args, NULL, snodo_test_store_result_cb, &r1);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_nonnull (strstr (error->message, "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"));
  g_assert_nonnull (strstr (error->message, "401"));
  g_clear_error (&error);

  snodo_client_set_http_header (client, "Authorization", "Bearer sesame");
  snodo_client_call_tool_async (client, "grüß dich", args, NULL, snodo_test_store_result_cb, &r2);
  called = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (called, "content"));

  call = script_find (script, "tools/call", 1);
  g_assert_nonnull (call);
  g_assert_cmpstr (header (call, "mcp-method"), ==, "tools/call");
  /* Not plain ASCII: base64 in the sentinel. */
  encoded = g_base64_encode ((const guchar *) "grüß dich", strlen ("grüß dich"));
  expected = g_strconcat ("=?base64?", encoded, "?=", NULL);
  g_assert_cmpstr (header (call, "mcp-name"), ==, expected);
  g_assert_cmpstr (header (call, "authorization"), ==, "Bearer sesame");
  g_assert_cmpstr (header (call, "x-custom"), ==, "yes");

  snodo_test_close_client (client);
  /* Stateless: no session, nothing to DELETE. */
  g_assert_null (script_find (script, "DELETE", 0));
  g_clear_object (&client);
  script_free (script);
}

/* A 401 on the first request ends the negotiation: no initialize. */
static void
unauthorized_responder (Script        *script,
                        Request       *request,
                        GInputStream  *in,
                        GOutputStream *out)
{
  answer_json (out, 401, "WWW-Authenticate: Bearer resource_metadata=\"https://auth.example/meta\"\r\n", "");
}

static void
test_unauthorized (void)
{
  Script *script = script_new (unauthorized_responder);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;

  client = snodo_client_new_for_uri (script->uri, &error);
  g_assert_no_error (error);
  g_assert_false (connect_client (client, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
  g_assert_nonnull (strstr (error->message, "https://auth.example/meta"));
  g_assert_null (script_find (script, "initialize", 0));
  g_assert_nonnull (script_find (script, "server/discover", 0));
  snodo_test_close_client (client);
  g_clear_object (&client);
  script_free (script);
}

/* The initialize era with a session: the answer to tools/call breaks
 * after its second event, and the GET with Last-Event-ID gives the
 * result; the GET stream is refused (405); close DELETEs the session. */
static void
legacy_responder (Script        *script,
                  Request       *request,
                  GInputStream  *in,
                  GOutputStream *out)
{
  if (g_strcmp0 (request->rpc_method, "server/discover") == 0)
    answer_json (out, 400, NULL,
                 "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":\"Bad Request: Server not initialized\"}}");
  else if (g_strcmp0 (request->rpc_method, "initialize") == 0)
    {
      g_autofree char *body = result_for (request, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
                                          "\"serverInfo\":{\"name\":\"legacy\",\"version\":\"1\"}}");

      answer_json (out, 200, "Mcp-Session-Id: session-1\r\n", body);
    }
  else if (g_strcmp0 (request->rpc_method, "notifications/initialized") == 0)
    answer_empty (out, 202);
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0)
    {
      g_autofree char *events = g_strdup_printf (
        "id: e1\ndata: \n\n"
        ": a comment\r\n"
        "id: e2\r\nevent: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\","
        "\"params\":{\"progressToken\":%" G_GINT64_FORMAT ",\"progress\":1}}\r\n\r\n"
        "retry: 50\n\n", request->rpc_id);

      answer_sse (out, events);
    }
  else if (g_str_equal (request->method, "GET") && header (request, "last-event-id") != NULL)
    {
      Request *call = script_find (script, "tools/call", 0);
      g_autofree char *result = result_for (call, TOOL_RESULT);
      g_autofree char *events = g_strdup_printf ("id: e3\ndata: %s\n\n", result);

      answer_sse (out, events);
    }
  else if (g_str_equal (request->method, "GET"))
    answer_empty (out, 405);
  else if (g_str_equal (request->method, "DELETE"))
    answer_empty (out, 200);
  else
    answer_empty (out, 400);
}

static void
test_legacy_resume (void)
{
  Script *script = script_new (legacy_responder);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{}");
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(JsonObject) called = NULL;
  g_autofree char *text = NULL;
  guint progress_count = 0;
  Request *initialized;
  Request *call;
  Request *resume;
  Request *delete;

  client = snodo_client_new_for_uri (script->uri, &error);
  g_assert_no_error (error);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_11_25);

  g_assert_null (header (script_find (script, "initialize", 0), "mcp-session-id"));
  g_assert_null (header (script_find (script, "initialize", 0), "mcp-method"));

  g_signal_connect (client, "progress", G_CALLBACK (progress_cb), &progress_count);
  snodo_client_call_tool_async (client, "work", args, NULL, snodo_test_store_result_cb, &r1);
  called = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (called);
  g_assert_cmpstr (text, ==, "done");
  g_assert_cmpuint (progress_count, ==, 1);

  initialized = script_find (script, "notifications/initialized", 0);
  g_assert_nonnull (initialized);
  g_assert_cmpstr (header (initialized, "mcp-session-id"), ==, "session-1");
  g_assert_cmpstr (header (initialized, "mcp-protocol-version"), ==, "2025-11-25");
  call = script_find (script, "tools/call", 0);
  g_assert_cmpstr (header (call, "mcp-session-id"), ==, "session-1");
  g_assert_cmpstr (header (call, "mcp-protocol-version"), ==, "2025-11-25");
  g_assert_null (header (call, "mcp-method"));
  /* The GET stream (refused), then the resumption from e2. */
  g_assert_null (header (script_find (script, "GET", 0), "last-event-id"));
  resume = script_find (script, "GET", 1);
  g_assert_nonnull (resume);
  g_assert_cmpstr (header (resume, "last-event-id"), ==, "e2");
  g_assert_cmpstr (header (resume, "mcp-session-id"), ==, "session-1");
  g_assert_cmpstr (header (resume, "accept"), ==, "text/event-stream");
  /* 405: the GET stream is not asked for again. */
  g_assert_null (script_find (script, "GET", 2));

  snodo_test_close_client (client);
  delete = script_find (script, "DELETE", 0);
  g_assert_nonnull (delete);
  g_assert_cmpstr (header (delete, "mcp-session-id"), ==, "session-1");
  g_clear_object (&client);
  script_free (script);
}

/* 2026-07-28: tools/call "big" answers 5000 bytes of JSON, "stream" an
 * event of 5000 bytes, "hang" an event stream that never ends. */
static void
bounds_responder (Script        *script,
                  Request       *request,
                  GInputStream  *in,
                  GOutputStream *out)
{
  if (g_strcmp0 (request->rpc_method, "server/discover") == 0)
    {
      g_autofree char *body = result_for (request, DISCOVER_RESULT);

      answer_json (out, 200, NULL, body);
    }
  else if (strstr (request->body, "\"big\"") != NULL)
    {
      g_autofree char *padding = g_strnfill (5000, 'x');
      g_autofree char *text = g_strdup_printf ("{\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}", padding);
      g_autofree char *body = result_for (request, text);

      answer_json (out, 200, NULL, body);
    }
  else if (strstr (request->body, "\"stream\"") != NULL)
    {
      g_autofree char *padding = g_strnfill (5000, 'x');
      g_autofree char *events = g_strdup_printf ("data: {\"padding\":\"%s\"}\n\n", padding);

      answer_sse (out, events);
    }
  else if (strstr (request->body, "\"hang\"") != NULL)
    {
      char buffer[64];

      write_text (out, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n: open\n\n");
      /* Until the client closes the connection (or 20 s pass). */
      for (int i = 0; i < 200; i++)
        {
          gssize got;

          got = g_input_stream_read (in, buffer, sizeof buffer, NULL, NULL);
          if (got <= 0)
            {
              g_mutex_lock (&script->lock);
              script->client_closed = TRUE;
              g_mutex_unlock (&script->lock);
              break;
            }
        }
    }
  else
    answer_empty (out, 400);
}

static void
test_bounds (void)
{
  Script *script = script_new (bounds_responder);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{}");
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;

  client = snodo_client_new_for_uri (script->uri, &error);
  g_assert_no_error (error);
  snodo_client_set_max_line_bytes (client, 4096);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);

  snodo_client_call_tool_async (client, "big", args, NULL, snodo_test_store_result_cb, &r1);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_clear_error (&error);

  snodo_client_call_tool_async (client, "stream", args, NULL, snodo_test_store_result_cb, &r2);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_clear_error (&error);

  snodo_test_close_client (client);
  g_clear_object (&client);
  script_free (script);
}

static gboolean
script_client_closed (Script *script)
{
  gboolean closed;

  g_mutex_lock (&script->lock);
  closed = script->client_closed;
  g_mutex_unlock (&script->lock);
  return closed;
}

/* 2026-07-28: a cancelled request closes its answer, and no
 * notifications/cancelled is POSTed; the request timeout does the same. */
static void
test_modern_cancel (void)
{
  Script *script = script_new (bounds_responder);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{}");
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  gint64 start;

  client = snodo_client_new_for_uri (script->uri, &error);
  g_assert_no_error (error);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);

  snodo_client_call_tool_async (client, "hang", args, cancellable, snodo_test_store_result_cb, &r1);
  g_timeout_add (300, cancel_cb, cancellable);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  start = g_get_monotonic_time ();
  while (!script_client_closed (script) && g_get_monotonic_time () - start < 10 * G_USEC_PER_SEC)
    g_main_context_iteration (NULL, FALSE), g_usleep (10000);
  g_assert_true (script_client_closed (script));
  g_assert_null (script_find (script, "notifications/cancelled", 0));

  script->client_closed = FALSE;
  snodo_client_set_request_timeout (client, 300);
  snodo_client_call_tool_async (client, "hang", args, NULL, snodo_test_store_result_cb, &r2);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  start = g_get_monotonic_time ();
  while (!script_client_closed (script) && g_get_monotonic_time () - start < 10 * G_USEC_PER_SEC)
    g_main_context_iteration (NULL, FALSE), g_usleep (10000);
  g_assert_true (script_client_closed (script));
  g_assert_null (script_find (script, "notifications/cancelled", 0));

  snodo_test_close_client (client);
  g_clear_object (&client);
  script_free (script);
}

/* The initialize era: the server's GET stream carries a ping request,
 * which the client answers with a POST. */
static void
stream_responder (Script        *script,
                  Request       *request,
                  GInputStream  *in,
                  GOutputStream *out)
{
  if (g_strcmp0 (request->rpc_method, "server/discover") == 0)
    answer_json (out, 404, NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}");
  else if (g_strcmp0 (request->rpc_method, "initialize") == 0)
    {
      g_autofree char *body = result_for (request, "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                                          "\"serverInfo\":{\"name\":\"legacy\",\"version\":\"1\"}}");

      answer_json (out, 200, "Mcp-Session-Id: s2\r\n", body);
    }
  else if (g_str_equal (request->method, "GET") && script_find (script, "GET", 1) == NULL)
    answer_sse (out, "id: g1\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}\n\n");
  else if (g_str_equal (request->method, "GET"))
    answer_empty (out, 405);
  else
    answer_empty (out, 202);
}

static void
test_server_stream (void)
{
  Script *script = script_new (stream_responder);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  Request *answer = NULL;
  gint64 start;

  client = snodo_client_new_for_uri (script->uri, &error);
  g_assert_no_error (error);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_06_18);

  start = g_get_monotonic_time ();
  while (g_get_monotonic_time () - start < 10 * G_USEC_PER_SEC)
    {
      g_mutex_lock (&script->lock);
      for (guint i = 0; i < script->requests->len; i++)
        {
          Request *request = script->requests->pdata[i];

          if (g_str_equal (request->method, "POST") && strstr (request->body, "\"srv-1\"") != NULL)
            answer = request;
        }
      g_mutex_unlock (&script->lock);
      if (answer != NULL)
        break;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
  g_assert_nonnull (answer);
  g_assert_nonnull (strstr (answer->body, "\"result\""));
  g_assert_cmpstr (header (answer, "mcp-session-id"), ==, "s2");
  g_assert_cmpstr (header (answer, "mcp-protocol-version"), ==, "2025-06-18");
  /* The stream ended; it was opened again (from g1), and refused. */
  start = g_get_monotonic_time ();
  while (script_find (script, "GET", 1) == NULL && g_get_monotonic_time () - start < 10 * G_USEC_PER_SEC)
    g_main_context_iteration (NULL, FALSE), g_usleep (10000);
  g_assert_cmpstr (header (script_find (script, "GET", 1), "last-event-id"), ==, "g1");

  snodo_test_close_client (client);
  g_clear_object (&client);
  script_free (script);
}

/* 2026-07-28: tools/call answered input_required twice (three inputs,
 * then requestState alone), then complete. */
static void
input_responder (Script        *script,
                 Request       *request,
                 GInputStream  *in,
                 GOutputStream *out)
{
  if (g_strcmp0 (request->rpc_method, "server/discover") == 0)
    {
      g_autofree char *body = result_for (request, DISCOVER_RESULT);

      answer_json (out, 200, NULL, body);
    }
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0 && strstr (request->body, "requestState") == NULL)
    {
      g_autofree char *body = result_for (request,
        "{\"resultType\":\"input_required\",\"requestState\":\"state-1 \\u00e9\","
        "\"inputRequests\":{"
        "\"visit\":{\"method\":\"elicitation/create\",\"params\":{\"mode\":\"url\",\"message\":\"Sign in\","
        "\"url\":\"https://example.org/login\"}},"
        "\"where\":{\"method\":\"roots/list\"},"
        "\"think\":{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":5}}}}");

      answer_json (out, 200, NULL, body);
    }
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0 && strstr (request->body, "state-2") == NULL)
    {
      g_autofree char *body = result_for (request, "{\"resultType\":\"input_required\",\"requestState\":\"state-2\"}");

      answer_json (out, 200, NULL, body);
    }
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0)
    {
      g_autofree char *body = result_for (request, TOOL_RESULT);

      answer_json (out, 200, NULL, body);
    }
  else
    answer_empty (out, 400);
}

static gboolean
input_request_cb (SnodoClient        *client,
                  SnodoServerRequest *request,
                  gpointer            user_data)
{
  const char *method = snodo_server_request_get_method (request);
  guint *asked = user_data;
  g_autoptr(JsonObject) result = NULL;

  (*asked)++;
  if (g_str_equal (method, "elicitation/create"))
    {
      g_assert_cmpstr (json_object_get_string_member (snodo_server_request_get_params (request), "mode"), ==, "url");
      result = snodo_test_parse_object ("{\"action\":\"accept\"}");
    }
  else if (g_str_equal (method, "roots/list"))
    result = snodo_test_parse_object ("{\"roots\":[{\"uri\":\"file:///home/me\"}]}");
  else
    result = snodo_test_parse_object ("{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hm\"},\"model\":\"m\"}");
  snodo_server_request_return_result (request, result);
  return TRUE;
}

static void
test_modern_input (void)
{
  Script *script = script_new (input_responder);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{\"x\":1}");
  g_autoptr(JsonObject) capabilities = snodo_test_parse_object ("{\"elicitation\":{\"url\":{}},\"roots\":{},\"sampling\":{}}");
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(JsonObject) called = NULL;
  g_autoptr(JsonNode) first_node = NULL;
  g_autoptr(JsonNode) retry_node = NULL;
  g_autoptr(JsonNode) last_node = NULL;
  JsonObject *retry_params;
  JsonObject *responses;
  JsonObject *last_params;
  guint asked = 0;

  client = snodo_client_new_for_uri (script->uri, &error);
  g_assert_no_error (error);
  snodo_client_set_capabilities (client, capabilities);
  g_signal_connect (client, "server-request", G_CALLBACK (input_request_cb), &asked);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);

  snodo_client_call_tool_async (client, "work", args, NULL, snodo_test_store_result_cb, &r1);
  called = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (called, "content"));
  g_assert_cmpuint (asked, ==, 3);

  /* The capabilities went in the envelope. */
  first_node = json_from_string (script_find (script, "tools/call", 0)->body, NULL);
  g_assert_true (json_object_has_member (json_object_get_object_member (
    json_object_get_object_member (json_object_get_object_member (json_node_get_object (first_node), "params"), "_meta"),
    "io.modelcontextprotocol/clientCapabilities"), "roots"));

  /* The retry: a new id, the same arguments, the three answers and the
   * state as it came. */
  retry_node = json_from_string (script_find (script, "tools/call", 1)->body, NULL);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (retry_node), "id"), !=,
                   json_object_get_int_member (json_node_get_object (first_node), "id"));
  retry_params = json_object_get_object_member (json_node_get_object (retry_node), "params");
  g_assert_cmpstr (json_object_get_string_member (retry_params, "name"), ==, "work");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (retry_params, "arguments"), "x"), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (retry_params, "requestState"), ==, "state-1 \u00e9");
  responses = json_object_get_object_member (retry_params, "inputResponses");
  g_assert_cmpuint (json_object_get_size (responses), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (responses, "visit"), "action"), ==, "accept");
  g_assert_true (json_object_has_member (json_object_get_object_member (responses, "where"), "roots"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (responses, "think"), "model"), ==, "m");
  g_assert_cmpstr (header (script_find (script, "tools/call", 1), "mcp-name"), ==, "work");

  /* requestState alone: sent back without inputResponses. */
  last_node = json_from_string (script_find (script, "tools/call", 2)->body, NULL);
  last_params = json_object_get_object_member (json_node_get_object (last_node), "params");
  g_assert_cmpstr (json_object_get_string_member (last_params, "requestState"), ==, "state-2");
  g_assert_false (json_object_has_member (last_params, "inputResponses"));
  g_assert_null (script_find (script, "tools/call", 3));

  snodo_test_close_client (client);
  g_clear_object (&client);
  script_free (script);
}

/* 2026-07-28 over a SnodoServer's own HTTP transport, which refuses a
 * tools/call whose Mcp-Param-* headers disagree with its arguments: the
 * client sends them for the tool that tools/list described, and leaves
 * out a tool whose marks break the rules. */
static void
route_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  g_autofree char *text = g_strdup_printf ("%s %" G_GINT64_FORMAT " %s",
                                           json_object_get_string_member (arguments, "region"),
                                           json_object_get_int_member (arguments, "n"),
                                           json_object_get_boolean_member (arguments, "flag") ? "yes" : "no");

  snodo_invocation_return_text (invocation, text);
}

static void
transport_closed_cb (GObject      *source,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  gboolean *done = user_data;

  snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (source), result, NULL);
  *done = TRUE;
}

static void
test_param_headers (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("params", "1");
  g_autoptr(SnodoTool) route = snodo_tool_new ("route", NULL);
  g_autoptr(SnodoTool) bad = snodo_tool_new ("bad", NULL);
  g_autoptr(SnodoHttpTransport) transport = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(GAsyncResult) r3 = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{\"region\":\"eu west\",\"n\":42,\"flag\":true}");
  g_autoptr(JsonObject) routed = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *text = NULL;
  gboolean closed = FALSE;

  g_assert_true (snodo_tool_set_input_schema_from_string (route,
      "{\"type\":\"object\",\"properties\":{"
      "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
      "\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"},"
      "\"flag\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"}}}", &error));
  g_assert_no_error (error);
  g_assert_true (snodo_server_add_tool (server, route, route_cb, NULL, NULL, NULL));
  /* Not a token: a client over HTTP leaves the tool out. */
  g_assert_true (snodo_tool_set_input_schema_from_string (bad,
      "{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\",\"x-mcp-header\":\"a b\"}}}", &error));
  g_assert_no_error (error);
  g_assert_true (snodo_server_add_tool (server, bad, route_cb, NULL, NULL, NULL));
  transport = snodo_http_transport_new (server);
  g_assert_true (snodo_http_transport_listen_local (transport, 0, &error));
  g_assert_no_error (error);
  uri = snodo_http_transport_dup_uri (transport);

  client = snodo_client_new_for_uri (uri, &error);
  g_assert_no_error (error);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2026_07_28);

  /* Before tools/list the client knows no marks: the server refuses. */
  snodo_client_call_tool_async (client, "route", args, NULL, snodo_test_store_result_cb, &r1);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error));
  g_assert_error (error, SNODO_RPC_ERROR, -32020);
  g_clear_error (&error);

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &r2);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 0), "name"), ==, "route");

  snodo_client_call_tool_async (client, "route", args, NULL, snodo_test_store_result_cb, &r3);
  routed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r3), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (routed);
  g_assert_cmpstr (text, ==, "eu west 42 yes");

  snodo_test_close_client (client);
  snodo_http_transport_close_async (transport, NULL, transport_closed_cb, &closed);
  while (!closed)
    g_main_context_iteration (NULL, TRUE);
}

/* 2025-11-25: tools/call fails with -32042 naming a URL to visit; once
 * the application accepted it, the client sends the call again. */
static void
url_responder (Script        *script,
               Request       *request,
               GInputStream  *in,
               GOutputStream *out)
{
  if (g_strcmp0 (request->rpc_method, "server/discover") == 0)
    answer_json (out, 400, NULL, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":\"no session\"}}");
  else if (g_strcmp0 (request->rpc_method, "initialize") == 0)
    {
      g_autofree char *body = result_for (request, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
                                          "\"serverInfo\":{\"name\":\"url\",\"version\":\"1\"}}");

      answer_json (out, 200, NULL, body);
    }
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0 && script_find (script, "tools/call", 1) == NULL)
    {
      g_autofree char *body = g_strdup_printf (
        "{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"error\":{\"code\":-32042,"
        "\"message\":\"Sign in first\",\"data\":{\"elicitations\":[{\"mode\":\"url\",\"elicitationId\":\"el-1\","
        "\"url\":\"https://example.org/sign-in\",\"message\":\"Sign in\"}]}}}", request->rpc_id);

      answer_json (out, 200, NULL, body);
    }
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0)
    {
      g_autofree char *body = result_for (request, TOOL_RESULT);

      answer_json (out, 200, NULL, body);
    }
  else if (g_str_equal (request->method, "GET"))
    answer_empty (out, 405);
  else
    answer_empty (out, 202);
}

static gboolean
visit_cb (SnodoClient        *client,
          SnodoServerRequest *request,
          gpointer            user_data)
{
  const char **action = user_data;
  JsonObject *params = snodo_server_request_get_params (request);
  g_autoptr(JsonObject) result = json_object_new ();

  g_assert_cmpstr (json_object_get_string_member (params, "mode"), ==, "url");
  g_assert_cmpstr (json_object_get_string_member (params, "url"), ==, "https://example.org/sign-in");
  json_object_set_string_member (result, "action", *action);
  snodo_server_request_return_result (request, result);
  return TRUE;
}

static void
test_url_required (void)
{
  const char *actions[] = { "accept", "decline" };

  for (guint i = 0; i < G_N_ELEMENTS (actions); i++)
    {
      Script *script = script_new (url_responder);
      g_autoptr(SnodoClient) client = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonObject) args = snodo_test_parse_object ("{}");
      g_autoptr(JsonObject) capabilities = snodo_test_parse_object ("{\"elicitation\":{\"url\":{}}}");
      g_autoptr(GAsyncResult) r1 = NULL;
      g_autoptr(JsonObject) called = NULL;
      const char *action = actions[i];

      client = snodo_client_new_for_uri (script->uri, &error);
      g_assert_no_error (error);
      snodo_client_set_capabilities (client, capabilities);
      g_signal_connect (client, "server-request::elicitation/create", G_CALLBACK (visit_cb), &action);
      g_assert_true (connect_client (client, &error));
      g_assert_no_error (error);
      g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_11_25);

      snodo_client_call_tool_async (client, "private", args, NULL, snodo_test_store_result_cb, &r1);
      called = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error);
      if (g_str_equal (action, "accept"))
        {
          g_assert_no_error (error);
          g_assert_true (json_object_has_member (called, "content"));
          g_assert_cmpint (script_find (script, "tools/call", 1)->rpc_id, !=, script_find (script, "tools/call", 0)->rpc_id);
        }
      else
        {
          g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED);
          g_assert_nonnull (strstr (error->message, "Sign in first"));
          g_assert_null (script_find (script, "tools/call", 1));
        }
      snodo_test_close_client (client);
      g_clear_object (&client);
      script_free (script);
    }
}

/* The initialize era: the server forgets the session (404); the client
 * starts another and sends the call again in it. */
static void
session_responder (Script        *script,
                   Request       *request,
                   GInputStream  *in,
                   GOutputStream *out)
{
  const char *session = header (request, "mcp-session-id");

  if (g_strcmp0 (request->rpc_method, "server/discover") == 0)
    answer_json (out, 400, NULL, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,\"message\":\"no session\"}}");
  else if (g_strcmp0 (request->rpc_method, "initialize") == 0)
    {
      g_autofree char *body = result_for (request, "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
                                          "\"serverInfo\":{\"name\":\"sessions\",\"version\":\"1\"}}");
      g_autofree char *id = g_strdup_printf ("Mcp-Session-Id: s-%u\r\n", script_find (script, "initialize", 1) != NULL ? 2 : 1);

      answer_json (out, 200, id, body);
    }
  else if (g_strcmp0 (session, "s-2") != 0 &&
           (g_strcmp0 (request->rpc_method, "tools/call") == 0 || script->data != NULL))
    answer_json (out, 404, NULL, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}");
  else if (g_strcmp0 (request->rpc_method, "tools/call") == 0)
    {
      g_autofree char *body = result_for (request, TOOL_RESULT);

      answer_json (out, 200, NULL, body);
    }
  else if (g_str_equal (request->method, "GET"))
    answer_empty (out, 405);
  else
    answer_empty (out, 202);
}

/* @data: the session ends at once, before notifications/initialized,
 * which then starts the new one while the call is under way. */
static void
test_session_ended (gconstpointer data)
{
  Script *script = script_new (session_responder);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{}");
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(JsonObject) called = NULL;
  Request *first;
  Request *again;
  gint64 start;

  script->data = (gpointer) data;
  client = snodo_client_new_for_uri (script->uri, &error);
  g_assert_no_error (error);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);

  snodo_client_call_tool_async (client, "work", args, NULL, snodo_test_store_result_cb, &r1);
  called = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (called, "content"));

  g_assert_nonnull (script_find (script, "initialize", 1));
  g_assert_null (script_find (script, "initialize", 2));
  first = script_find (script, "tools/call", 0);
  again = script_find (script, "tools/call", 1);
  g_assert_cmpstr (header (first, "mcp-session-id"), ==, "s-1");
  g_assert_cmpstr (header (again, "mcp-session-id"), ==, "s-2");
  g_assert_cmpint (again->rpc_id, ==, first->rpc_id);
  /* The second initialized is the new session's (or the first one's,
   * sent again in it); it is not waited for, so it may come after. */
  start = g_get_monotonic_time ();
  while (script_find (script, "notifications/initialized", 1) == NULL &&
         g_get_monotonic_time () - start < 10 * G_USEC_PER_SEC)
    g_main_context_iteration (NULL, FALSE), g_usleep (2000);
  g_assert_nonnull (script_find (script, "notifications/initialized", 1));
  g_assert_cmpstr (header (script_find (script, "notifications/initialized", 1), "mcp-session-id"), ==, "s-2");

  snodo_test_close_client (client);
  g_assert_cmpstr (header (script_find (script, "DELETE", 0), "mcp-session-id"), ==, "s-2");
  g_clear_object (&client);
  script_free (script);
}

static void
test_bad_uri (void)
{
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;

  client = snodo_client_new_for_uri ("ftp://127.0.0.1/mcp", &error);
  g_assert_null (client);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  client = snodo_client_new_for_uri ("not a uri", &error);
  g_assert_null (client);
  g_assert_nonnull (error);
}

static void
test_refused (void)
{
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  /* A port nobody listens on: bound and closed at once. */
  Script *script = script_new (unauthorized_responder);
  g_autofree char *uri = g_strdup (script->uri);

  script_free (script);
  client = snodo_client_new_for_uri (uri, &error);
  g_assert_no_error (error);
  g_assert_false (connect_client (client, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED);
  g_assert_nonnull (strstr (error->message, uri));
  snodo_test_close_client (client);
}

/* The event stream parser. */

typedef struct
{
  GPtrArray *events;
  guint stop_after;
} Collected;

static gboolean
collect_cb (const char *event,
            const char *data,
            gsize       len,
            const char *last_event_id,
            gpointer    user_data)
{
  Collected *collected = user_data;

  g_assert_cmpuint (strlen (data), ==, len);
  g_ptr_array_add (collected->events, g_strdup_printf ("%s|%s|%s", event, data,
                                                       last_event_id != NULL ? last_event_id : "-"));
  return collected->stop_after == 0 || collected->events->len < collected->stop_after;
}

/* Pushes @stream in chunks of @step bytes. */
static GPtrArray *
parse_stream (const char *stream,
              gsize       step,
              gsize       max,
              GError    **error,
              gint64     *retry)
{
  SnodoSseParser parser;
  Collected collected = { g_ptr_array_new_with_free_func (g_free), 0 };
  gsize len = strlen (stream);

  snodo_sse_parser_init (&parser, max);
  for (gsize i = 0; i < len; i += step)
    if (!snodo_sse_parser_push (&parser, stream + i, MIN (step, len - i), collect_cb, &collected, error))
      break;
  if (retry != NULL)
    *retry = parser.retry_ms;
  snodo_sse_parser_clear (&parser);
  return collected.events;
}

static void
test_sse_parser (void)
{
  const char *stream =
    "\xEF\xBB\xBF: comment\n"
    "id: 1\n"
    "data: {\"a\":1}\n"
    "\n"
    "event: other\r\n"
    "data:first\r\n"
    "data: second\r\n"
    "\r\n"
    "id\r"
    "data\r"
    "\r"
    "id: 7\n"
    "data: \n"
    "\n"
    "retry: 1500\n"
    "retry: soon\n"
    "unknown: field\n"
    "data:  two spaces\n"
    "\n"
    "data: unfinished";
  const char *expected[] = {
    "message|{\"a\":1}|1",
    "other|first\nsecond|1",
    /* "id" alone clears the id; "data" alone is an empty line of data. */
    "message||-",
    /* One empty line of data is an event still (the client skips it). */
    "message||7",
    "message| two spaces|7",
  };

  /* Whole, then in chunks of 1, 2, 3…: line ends split between chunks. */
  for (gsize step = 1; step <= strlen (stream); step++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GPtrArray) events = NULL;
      gint64 retry = 0;

      events = parse_stream (stream, step, 1024, &error, &retry);
      g_assert_no_error (error);
      g_assert_cmpuint (events->len, ==, G_N_ELEMENTS (expected));
      for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
        g_assert_cmpstr (events->pdata[i], ==, expected[i]);
      g_assert_cmpint (retry, ==, 1500);
    }
}

static void
test_sse_bounds (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) events = NULL;
  g_autofree char *padding = g_strnfill (2000, 'x');
  g_autofree char *long_line = g_strdup_printf ("data: %s\n\n", padding);
  g_autoptr(GString) many = g_string_new (NULL);

  events = parse_stream (long_line, 7, 1000, &error, NULL);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  g_assert_cmpuint (events->len, ==, 0);
  g_clear_error (&error);
  g_clear_pointer (&events, g_ptr_array_unref);

  /* Many short lines of one event. */
  for (int i = 0; i < 300; i++)
    g_string_append (many, "data: 0123456789\n");
  g_string_append (many, "\n");
  events = parse_stream (many->str, 100, 1000, &error, NULL);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/client-http/sse/parser", test_sse_parser);
  g_test_add_func ("/client-http/sse/bounds", test_sse_bounds);
  g_test_add_func ("/client-http/bad-uri", test_bad_uri);
  g_test_add_func ("/client-http/refused", test_refused);
  g_test_add_data_func ("/client-http/demo/negotiated", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_UNKNOWN), test_demo);
  g_test_add_data_func ("/client-http/demo/2025-11-25", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_11_25), test_demo);
  g_test_add_data_func ("/client-http/demo/2025-06-18", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_06_18), test_demo);
  g_test_add_func ("/client-http/modern-headers", test_modern_headers);
  g_test_add_func ("/client-http/unauthorized", test_unauthorized);
  g_test_add_func ("/client-http/legacy-resume", test_legacy_resume);
  g_test_add_func ("/client-http/bounds", test_bounds);
  g_test_add_func ("/client-http/modern-cancel", test_modern_cancel);
  g_test_add_func ("/client-http/server-stream", test_server_stream);
  g_test_add_func ("/client-http/modern-input", test_modern_input);
  g_test_add_func ("/client-http/param-headers", test_param_headers);
  g_test_add_func ("/client-http/url-required", test_url_required);
  g_test_add_data_func ("/client-http/session-ended", NULL, test_session_ended);
  g_test_add_data_func ("/client-http/session-ended/at-once", "at once", test_session_ended);

  return g_test_run ();
}
