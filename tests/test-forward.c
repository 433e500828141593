/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A forwarding server (snodo_server_set_forward_func()), through real
 * transports (HTTP on loopback, stdio on pipes) with SnodoClient at the
 * other end: every request reaches the function as it came, initialize
 * and unknown methods included, the 2026-07-28 envelope with it; answers
 * go out as given (a result with nothing added, an error with its code and
 * data); the answer to initialize sets the session's version; the
 * session carries the client's notifications, the server's own
 * notifications and requests, and says when the client is gone. */

#include "config.h"

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <snodo/snodo.h>

#include "snodo-test-util.h"

#define ENVELOPE "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                 "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"t\",\"version\":\"1\"}," \
                 "\"io.modelcontextprotocol/clientCapabilities\":{}"

typedef struct
{
  /* Methods seen, in order. */
  GPtrArray    *methods;
  /* The params of the last tools/call. */
  JsonNode     *call_params;
  /* The session of initialize (legacy), with what it saw. */
  SnodoSession *session;
  GPtrArray    *notes;
  gboolean      closed;
  gboolean      modern;
} Backend;

static void
session_closed_cb (SnodoSession *session,
                   Backend      *backend)
{
  g_assert_true (snodo_session_is_closed (session));
  backend->closed = TRUE;
}

static void
session_note_cb (SnodoSession *session,
                 const char   *method,
                 JsonObject   *params,
                 Backend      *backend)
{
  g_ptr_array_add (backend->notes, g_strdup (method));
}

static void
answer_with (SnodoInvocation *invocation,
             const char      *json)
{
  g_autoptr(JsonObject) answer = snodo_test_parse_object (json);

  snodo_invocation_return_forwarded (invocation, answer);
}

static void
forward_cb (SnodoInvocation *invocation,
            gpointer         user_data)
{
  Backend *backend = user_data;
  const char *method = snodo_invocation_get_method (invocation);

  g_ptr_array_add (backend->methods, g_strdup (method));
  if (g_str_equal (method, "initialize"))
    {
      SnodoSession *session = snodo_invocation_get_session (invocation);

      g_assert_true (SNODO_IS_SESSION (session));
      /* Until answered: the version the client asked for. */
      g_assert_cmpint (snodo_session_get_protocol_version (session), ==, SNODO_PROTOCOL_VERSION_2025_11_25);
      g_set_object (&backend->session, session);
      g_signal_connect (session, "closed", G_CALLBACK (session_closed_cb), backend);
      g_signal_connect (session, "notification", G_CALLBACK (session_note_cb), backend);
      /* An older version than the client asked for: the session takes
       * the answer's. */
      answer_with (invocation, "{\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
                               "\"serverInfo\":{\"name\":\"back\",\"version\":\"9\"}}}");
    }
  else if (g_str_equal (method, "tools/call"))
    {
      g_clear_pointer (&backend->call_params, json_node_unref);
      backend->call_params = json_node_copy (snodo_invocation_get_params (invocation));
      answer_with (invocation, "{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"as is\"}],\"extra\":1}}");
    }
  else if (g_str_equal (method, "server/discover") && !backend->modern)
    answer_with (invocation, "{\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}");
  else if (g_str_equal (method, "server/discover"))
    answer_with (invocation, "{\"result\":{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
                             "\"resultType\":\"complete\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":"
                             "{\"name\":\"back\",\"version\":\"9\"}}}}");
  else if (g_str_equal (method, "example.org/fails"))
    answer_with (invocation, "{\"error\":{\"code\":-32099,\"message\":\"nope\",\"data\":{\"why\":[1,2]}}}");
  else
    answer_with (invocation, "{\"result\":{}}");
}

static JsonObject *
forward (SnodoClient *client,
         const char  *method,
         const char  *params)
{
  g_autoptr(JsonObject) object = params != NULL ? snodo_test_parse_object (params) : NULL;
  g_autoptr(GAsyncResult) done = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *answer;

  snodo_client_forward_async (client, "k1", method, object, NULL, snodo_test_store_result_cb, &done);
  answer = snodo_client_forward_finish (client, snodo_test_wait_result (&done), &error);
  g_assert_no_error (error);
  g_assert_nonnull (answer);
  return answer;
}

static gboolean
client_asked_cb (SnodoClient        *client,
                 SnodoServerRequest *request,
                 gpointer            user_data)
{
  g_autoptr(JsonObject) result = snodo_test_parse_object ("{\"roots\":[{\"uri\":\"file:///here\"}]}");

  g_assert_cmpstr (snodo_server_request_get_method (request), ==, "roots/list");
  snodo_server_request_return_result (request, result);
  return TRUE;
}

static void
client_said_cb (SnodoClient *client,
                const char  *method,
                JsonObject  *params,
                GPtrArray   *seen)
{
  g_ptr_array_add (seen, g_strdup (method));
}

typedef struct
{
  gboolean http;
  gboolean modern;
} Case;

static void
test_forward (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(SnodoServer) server = snodo_server_new ("front", "1");
  g_autoptr(SnodoStdioTransport) transport = NULL;
#if SNODO_HAS_HTTP_TRANSPORT
  g_autoptr(SnodoHttpTransport) http = NULL;
#endif
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GInputStream) client_in = NULL, server_in = NULL;
  g_autoptr(GOutputStream) client_out = NULL, server_out = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answer = NULL;
  Backend backend = { g_ptr_array_new_with_free_func (g_free), NULL, NULL, g_ptr_array_new_with_free_func (g_free) };
  int to_server[2], to_client[2];

  backend.modern = c->modern;
  snodo_server_set_forward_func (server, forward_cb, &backend, NULL);
#if SNODO_HAS_HTTP_TRANSPORT
  if (c->http)
    {
      g_autofree char *uri = NULL;

      http = snodo_http_transport_new (server);
      g_assert_true (snodo_http_transport_listen_local (http, 0, &error));
      g_assert_no_error (error);
      uri = snodo_http_transport_dup_uri (http);
      client = snodo_client_new_for_uri (uri, &error);
      g_assert_no_error (error);
    }
  else
#endif
    {
      g_assert_true (g_unix_open_pipe (to_server, FD_CLOEXEC, NULL));
      g_assert_true (g_unix_open_pipe (to_client, FD_CLOEXEC, NULL));
      client_in = g_unix_input_stream_new (to_client[0], TRUE);
      client_out = g_unix_output_stream_new (to_server[1], TRUE);
      server_in = g_unix_input_stream_new (to_server[0], TRUE);
      server_out = g_unix_output_stream_new (to_client[1], TRUE);
      transport = snodo_stdio_transport_new (server, server_in, server_out);
      snodo_stdio_transport_start (transport);
      client = snodo_client_new (client_in, client_out);
    }
  /* In the initialize era the client takes the version the server
   * answers. */
  if (c->modern)
    snodo_client_set_pinned_version (client, SNODO_PROTOCOL_VERSION_2026_07_28);
  else
    {
      g_autoptr(JsonObject) capabilities = snodo_test_parse_object ("{\"roots\":{}}");

      snodo_client_set_capabilities (client, capabilities);
    }
  g_signal_connect (client, "server-request", G_CALLBACK (client_asked_cb), NULL);
  g_signal_connect (client, "notification", G_CALLBACK (client_said_cb), seen);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error);
  g_assert_no_error (error);
  if (!c->modern)
    {
      /* The server's information is the function's, not the front's. */
      g_assert_cmpstr (json_object_get_string_member (snodo_client_get_server_info (client), "name"), ==, "back");
      /* The version of the forwarded answer, which the session keeps
       * (its later requests carry it as their header over HTTP). */
      g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_06_18);
      g_assert_nonnull (backend.session);
      g_assert_cmpint (snodo_session_get_protocol_version (backend.session), ==, SNODO_PROTOCOL_VERSION_2025_06_18);
    }

  /* A result goes out as it is: nothing added or taken. */
  /* Forwarded as they are, the params carry their envelope themselves. */
  answer = forward (client, "tools/call",
                    c->modern ? "{\"name\":\"anything\",\"arguments\":{\"a\":1},\"_meta\":{" ENVELOPE "}}"
                              : "{\"name\":\"anything\",\"arguments\":{\"a\":1}}");
  {
    JsonObject *result = json_object_get_object_member (answer, "result");

    g_assert_cmpint (json_object_get_int_member (result, "extra"), ==, 1);
    g_assert_false (json_object_has_member (result, "_meta"));
    g_assert_false (json_object_has_member (result, "resultType"));
  }
  /* The params came as the client sent them, the envelope with them in
   * 2026-07-28. */
  {
    JsonObject *params = json_node_get_object (backend.call_params);
    JsonObject *meta = json_object_has_member (params, "_meta") ? json_object_get_object_member (params, "_meta")
                                                                : NULL;

    g_assert_cmpstr (json_object_get_string_member (params, "name"), ==, "anything");
    if (c->modern)
      g_assert_cmpstr (json_object_get_string_member (meta, "io.modelcontextprotocol/protocolVersion"), ==,
                       "2026-07-28");
    else
      g_assert_true (meta == NULL || !json_object_has_member (meta, "io.modelcontextprotocol/protocolVersion"));
  }
  g_clear_pointer (&answer, json_object_unref);

  /* A method nobody knows reaches the function; its error keeps its
   * code and data. */
  answer = forward (client, "example.org/fails", c->modern ? "{\"_meta\":{" ENVELOPE "}}" : "{}");
  {
    JsonObject *rpc_error = json_object_get_object_member (answer, "error");

    g_assert_cmpint (json_object_get_int_member (rpc_error, "code"), ==, -32099);
    g_assert_cmpstr (json_object_get_string_member (rpc_error, "message"), ==, "nope");
    g_assert_cmpint (json_array_get_length (json_object_get_array_member (
                       json_object_get_object_member (rpc_error, "data"), "why")), ==, 2);
  }
  g_clear_pointer (&answer, json_object_unref);

  if (!c->modern)
    {
      g_autoptr(GAsyncResult) asked = NULL;
      g_autoptr(JsonObject) roots = NULL;
      g_autoptr(JsonObject) params = snodo_test_parse_object ("{\"text\":\"hello\"}");
      gint64 end;

      g_assert_true (g_ptr_array_find_with_equal_func (backend.methods, "initialize", g_str_equal, NULL));
      /* The client's notification comes to the session. */
      snodo_client_notify (client, "notifications/roots/list_changed", NULL);
      /* The server's own, and a request of its own, reach the client. */
      g_assert_true (snodo_session_notify (backend.session, "example.org/said", params));
      snodo_session_request_async (backend.session, "roots/list", NULL, NULL, snodo_test_store_result_cb, &asked);
      roots = snodo_session_request_finish (backend.session, snodo_test_wait_result (&asked), &error);
      g_assert_no_error (error);
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (roots, "roots")), ==, 1);
      end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
      while ((backend.notes->len == 0 || seen->len == 0) && g_get_monotonic_time () < end)
        g_main_context_iteration (NULL, TRUE);
      g_assert_cmpuint (backend.notes->len, ==, 1);
      g_assert_cmpstr (backend.notes->pdata[0], ==, "notifications/roots/list_changed");
      g_assert_true (g_ptr_array_find_with_equal_func (seen, "example.org/said", g_str_equal, NULL));
      g_assert_false (backend.closed);
    }
  else
    g_assert_false (g_ptr_array_find_with_equal_func (backend.methods, "initialize", g_str_equal, NULL));

  /* The end of the client (DELETE over HTTP, the end of input on stdio)
   * closes its session. */
  snodo_test_close_client (client);
  if (!c->modern)
    {
      gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

      while (!backend.closed && g_get_monotonic_time () < end)
        g_main_context_iteration (NULL, TRUE);
      g_assert_true (backend.closed);
      g_assert_false (snodo_session_notify (backend.session, "example.org/said", NULL));
    }
  if (transport != NULL)
    {
      g_autoptr(GAsyncResult) closed = NULL;

      snodo_stdio_transport_close_async (transport, NULL, snodo_test_store_result_cb, &closed);
      snodo_stdio_transport_close_finish (transport, snodo_test_wait_result (&closed), NULL);
    }
#if SNODO_HAS_HTTP_TRANSPORT
  if (http != NULL)
    {
      g_autoptr(GAsyncResult) closed = NULL;

      snodo_http_transport_close_async (http, NULL, snodo_test_store_result_cb, &closed);
      snodo_http_transport_close_finish (http, snodo_test_wait_result (&closed), NULL);
    }
#endif
  g_clear_object (&backend.session);
  g_clear_pointer (&backend.call_params, json_node_unref);
  g_ptr_array_unref (backend.methods);
  g_ptr_array_unref (backend.notes);
}

int
main (int   argc,
      char *argv[])
{
  static const Case stdio_legacy = { FALSE, FALSE }, stdio_modern = { FALSE, TRUE };
#if SNODO_HAS_HTTP_TRANSPORT
  static const Case http_legacy = { TRUE, FALSE }, http_modern = { TRUE, TRUE };
#endif

  g_test_init (&argc, &argv, NULL);
  g_test_add_data_func ("/forward/stdio/2025-11-25", &stdio_legacy, test_forward);
  g_test_add_data_func ("/forward/stdio/2026-07-28", &stdio_modern, test_forward);
#if SNODO_HAS_HTTP_TRANSPORT
  g_test_add_data_func ("/forward/http/2025-11-25", &http_legacy, test_forward);
  g_test_add_data_func ("/forward/http/2026-07-28", &http_modern, test_forward);
#endif
  return g_test_run ();
}
