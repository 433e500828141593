/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Methods of an application's own (snodo_server_add_method(),
 * snodo_server_add_notification_handler(), snodo_invocation_notify()) and
 * what a server says of itself (serverInfo, server.json): the names MCP
 * keeps, a notification handler that is never answered, the request hooks
 * and the executor's admission, over real pipes; SnodoClient calling
 * snodo-demo's demo/info over stdio and HTTP in both eras, and receiving a
 * notification of the server's own; a request forwarded as it is
 * (snodo_client_forward_async()); snodo-demo --print-server-json. */

#include "config.h"

#include <string.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <snodo/snodo.h>
#if SNODO_HAS_HTTP_TRANSPORT
# include <libsoup/soup.h>
#endif

#include "snodo-test-util.h"

static void
answer_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  g_autoptr(JsonNode) result = json_from_string ("{\"answered\":true}", NULL);

  snodo_invocation_return_result (invocation, result);
}

static void
count_destroy (gpointer data)
{
  (*(guint *) data)++;
}

static void
test_names (void)
{
  static const char * const refused[] = {
    "tools/mine", "skills/mine", "notifications/mine", "ping", "initialize", "server/discover", "tasks/anything",
    "io.modelcontextprotocol/x", "com.mcp/x", "noprefix", "a//b", "a/", "/a", "a b/c", "é/x", "",
  };
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(JsonNode) bad_schema = json_from_string ("[1]", NULL);
  guint destroyed = 0;

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(GError) error = NULL;

      g_assert_false (snodo_server_add_method (server, refused[i], NULL, answer_cb, &destroyed, count_destroy,
                                               &error));
      g_assert_nonnull (error);
      g_assert_cmpuint (destroyed, ==, i + 1);
    }
  destroyed = 0;
  {
    g_autoptr(GError) error = NULL;

    g_assert_true (snodo_server_add_method (server, "example.org/do-it", NULL, answer_cb, &destroyed,
                                            count_destroy, &error));
    g_assert_no_error (error);
    g_assert_false (snodo_server_add_method (server, "example.org/do-it", NULL, answer_cb, NULL, NULL, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
    g_clear_error (&error);
    g_assert_false (snodo_server_add_method (server, "example.org/schema", bad_schema, answer_cb, NULL, NULL,
                                             &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
    g_clear_error (&error);
    /* A notification of the same name is another table. */
    g_assert_true (snodo_server_add_notification_handler (server, "example.org/do-it", NULL,
                                                          (SnodoNotificationFunc) answer_cb, NULL, NULL, &error));
    g_assert_no_error (error);
  }
  g_assert_cmpuint (destroyed, ==, 0);
  g_assert_finalize_object (g_steal_pointer (&server));
  g_assert_cmpuint (destroyed, ==, 1);
}

typedef struct
{
  GPtrArray *notes;
} Notes;

static void
note_cb (SnodoServer *server,
         const char  *method,
         JsonObject  *params,
         gpointer     user_data)
{
  Notes *notes = user_data;

  g_ptr_array_add (notes->notes, g_strdup_printf ("%s %s", method,
                                                  json_object_get_string_member_with_default (params, "text", "-")));
}

static void
test_notification (gconstpointer data)
{
  gboolean modern = GPOINTER_TO_INT (data);
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(JsonNode) schema = json_from_string ("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                                                 "\"required\":[\"text\"]}", NULL);
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  Notes notes = { g_ptr_array_new_with_free_func (g_free) };
  SnodoTestPipe pipe;

  g_assert_true (snodo_server_add_notification_handler (server, "example.org/note", schema, note_cb, &notes, NULL,
                                                        &error));
  g_assert_no_error (error);
  snodo_test_pipe_set_up_for (&pipe, server);
  if (!modern)
    {
      answer = snodo_test_pipe_call (&pipe, FALSE, "initialize",
                                     "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                                     "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}");
      snodo_test_get_result (answer);
      g_clear_pointer (&answer, json_node_unref);
    }

  snodo_test_pipe_write (&pipe, modern
                         ? "{\"jsonrpc\":\"2.0\",\"method\":\"example.org/note\",\"params\":{\"text\":\"one\","
                           "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                           "\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n"
                         : "{\"jsonrpc\":\"2.0\",\"method\":\"example.org/note\",\"params\":{\"text\":\"one\"}}\n");
  /* Not fitting the schema: dropped. */
  snodo_test_pipe_write (&pipe, "{\"jsonrpc\":\"2.0\",\"method\":\"example.org/note\",\"params\":{\"text\":2}}\n");
  /* Nobody's: dropped. */
  snodo_test_pipe_write (&pipe, "{\"jsonrpc\":\"2.0\",\"method\":\"example.org/other\"}\n");
  snodo_test_pipe_write (&pipe, "{\"jsonrpc\":\"2.0\",\"method\":\"example.org/note\",\"params\":{\"text\":\"two\"}}\n");
  /* The next line the server writes answers the request after them: the
   * notifications were not answered. */
  answer = snodo_test_pipe_call (&pipe, modern, "tools/list", NULL);
  snodo_test_get_result (answer);
  g_assert_cmpuint (notes.notes->len, ==, 2);
  g_assert_cmpstr (notes.notes->pdata[0], ==, "example.org/note one");
  g_assert_cmpstr (notes.notes->pdata[1], ==, "example.org/note two");

  g_clear_object (&server);
  snodo_test_pipe_tear_down (&pipe);
  g_ptr_array_unref (notes.notes);
}

static void
reject_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  if (g_str_equal (snodo_invocation_get_method (invocation), "example.org/guarded"))
    snodo_invocation_reject (invocation, -32001, "Not for you");
}

/* Holds its invocations unanswered, until the test answers them. */
static void
hold_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  g_ptr_array_add (user_data, invocation);
}

static void
test_hooks_admission (gconstpointer data)
{
  gboolean modern = GPOINTER_TO_INT (data);
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(GPtrArray) held = g_ptr_array_new ();
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  SnodoExecutor *executor;
  SnodoTestPipe pipe;
  JsonObject *object;

  g_assert_true (snodo_server_add_method (server, "example.org/guarded", NULL, answer_cb, NULL, NULL, &error));
  g_assert_true (snodo_server_add_method (server, "example.org/hold", NULL, hold_cb, held, NULL, &error));
  g_assert_no_error (error);
  snodo_server_add_request_hook (server, reject_cb, NULL, NULL);
  snodo_test_pipe_set_up_for (&pipe, server);
  if (!modern)
    {
      answer = snodo_test_pipe_call (&pipe, FALSE, "initialize",
                                     "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                                     "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}");
      snodo_test_get_result (answer);
      g_clear_pointer (&answer, json_node_unref);
    }

  /* The hook refuses it before its handler. */
  answer = snodo_test_pipe_call (&pipe, modern, "example.org/guarded", NULL);
  object = json_node_get_object (answer);
  g_assert_true (json_object_has_member (object, "error"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "error"), "code"), ==, -32001);
  g_clear_pointer (&answer, json_node_unref);

  /* One may run, none may wait: the second is refused as overloaded. */
  executor = snodo_stdio_transport_get_executor (pipe.transport);
  snodo_executor_set_max_running (executor, 1);
  snodo_executor_set_max_queued (executor, 0);
  snodo_test_pipe_write (&pipe, modern
                         ? "{\"jsonrpc\":\"2.0\",\"id\":\"h1\",\"method\":\"example.org/hold\",\"params\":{\"_meta\":"
                           "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                           "\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n"
                         : "{\"jsonrpc\":\"2.0\",\"id\":\"h1\",\"method\":\"example.org/hold\"}\n");
  while (held->len == 0)
    g_main_context_iteration (NULL, TRUE);
  answer = snodo_test_pipe_call (&pipe, modern, "example.org/hold", NULL);
  object = json_node_get_object (answer);
  g_assert_true (json_object_has_member (object, "error"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "error"), "code"), ==,
                   SNODO_RPC_ERROR_SERVER_OVERLOADED);
  g_clear_pointer (&answer, json_node_unref);

  /* The one held answers once. */
  {
    g_autoptr(JsonNode) result = json_from_string ("{\"done\":1}", NULL);

    snodo_invocation_return_result (held->pdata[0], result);
  }
  answer = snodo_test_pipe_read (&pipe);
  g_assert_cmpstr (json_object_get_string_member (json_node_get_object (answer), "id"), ==, "h1");
  g_assert_cmpint (json_object_get_int_member (snodo_test_get_result (answer), "done"), ==, 1);
  g_clear_pointer (&answer, json_node_unref);

  /* The handler timeout applies: one that does not answer in time gets
   * -32603, and a late answer is dropped. */
  snodo_server_set_handler_timeout (server, 100);
  g_test_expect_message ("Snodo", G_LOG_LEVEL_WARNING, "*example.org/hold did not answer within 100 ms*");
  answer = snodo_test_pipe_call (&pipe, modern, "example.org/hold", NULL);
  g_test_assert_expected_messages ();
  object = json_node_get_object (answer);
  g_assert_true (json_object_has_member (object, "error"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "error"), "code"), ==,
                   SNODO_RPC_ERROR_INTERNAL_ERROR);
  g_assert_cmpuint (held->len, ==, 2);
  {
    g_autoptr(JsonNode) result = json_from_string ("{\"late\":1}", NULL);

    snodo_invocation_return_result (held->pdata[1], result);
  }

  g_clear_object (&server);
  snodo_test_pipe_tear_down (&pipe);
}

/* example.org/chatty: a notification of the server's own, then the
 * answer. */
static void
chatty_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  g_autoptr(JsonObject) params = json_object_new ();
  g_autoptr(JsonNode) result = json_from_string ("{\"said\":1}", NULL);

  json_object_set_string_member (params, "text", "hello");
  g_assert_true (snodo_invocation_notify (invocation, "example.org/said", params));
  snodo_invocation_return_result (invocation, result);
  g_assert_false (snodo_invocation_notify (invocation, "example.org/said", NULL));
}

static void
client_notification_cb (SnodoClient *client,
                        const char  *method,
                        JsonObject  *params,
                        gpointer     user_data)
{
  g_ptr_array_add (user_data, g_strdup_printf ("%s %s", method,
                                               json_object_get_string_member_with_default (params, "text", "-")));
}

typedef struct
{
  SnodoProtocolVersion pinned;
  gboolean             http;
} Case;

static void
test_client_notification (gconstpointer data)
{
  const Case *c = data;
  SnodoProtocolVersion pinned = c->pinned;
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(SnodoStdioTransport) transport = NULL;
#if SNODO_HAS_HTTP_TRANSPORT
  g_autoptr(SnodoHttpTransport) http = NULL;
#endif
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GInputStream) client_in = NULL, server_in = NULL;
  g_autoptr(GOutputStream) client_out = NULL, server_out = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) answered = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GError) error = NULL;
  int to_server[2], to_client[2];
  Notes notes = { g_ptr_array_new_with_free_func (g_free) };

  g_assert_true (snodo_server_add_method (server, "example.org/chatty", NULL, chatty_cb, NULL, NULL, &error));
  g_assert_true (snodo_server_add_notification_handler (server, "example.org/note", NULL, note_cb, &notes, NULL,
                                                        &error));
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
  snodo_client_set_pinned_version (client, pinned);
  g_signal_connect (client, "notification::example.org/said", G_CALLBACK (client_notification_cb), seen);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);

  snodo_client_request_async (client, "example.org/chatty", NULL, NULL, snodo_test_store_result_cb, &answered);
  result = snodo_client_request_finish (client, snodo_test_wait_result (&answered), &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (result, "said"), ==, 1);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_cmpuint (seen->len, ==, 1);
  g_assert_cmpstr (seen->pdata[0], ==, "example.org/said hello");

  /* The client sends one of the server's own. */
    {
      g_autoptr(JsonObject) params = snodo_test_parse_object ("{\"text\":\"from the client\"}");
      g_autoptr(GAsyncResult) again = NULL;
      g_autoptr(JsonObject) second = NULL;

      snodo_client_notify (client, "example.org/note", params);
      snodo_client_request_async (client, "example.org/chatty", NULL, NULL, snodo_test_store_result_cb, &again);
      second = snodo_client_request_finish (client, snodo_test_wait_result (&again), &error);
      g_assert_no_error (error);
      /* Over HTTP the two POSTs race: wait for the notification. */
      {
        gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

        while (notes.notes->len == 0 && g_get_monotonic_time () < end)
          g_main_context_iteration (NULL, FALSE);
      }
      g_assert_cmpuint (notes.notes->len, ==, 1);
      g_assert_cmpstr (notes.notes->pdata[0], ==, "example.org/note from the client");
    }

  snodo_test_close_client (client);
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
  g_ptr_array_unref (notes.notes);
}

/* SnodoClient calls snodo-demo's demo/info: answered in the era of the
 * connection; params its schema refuses are -32602; a method nobody
 * added is -32601. */
static void
test_demo_info (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autofree char *uri = NULL;
  const char *expected = c->pinned == SNODO_PROTOCOL_VERSION_UNKNOWN ? "2026-07-28"
                                                                     : snodo_protocol_version_to_string (c->pinned);

  if (c->http)
    {
      demo = snodo_test_demo_http_start (NULL, &uri);
      client = snodo_client_new_for_uri (uri, &error);
    }
  else
    client = snodo_client_new_for_argv ((const char *[]) { g_getenv ("SNODO_DEMO"), NULL }, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, c->pinned);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);

  {
    g_autoptr(GAsyncResult) answered = NULL;
    g_autoptr(JsonObject) result = NULL;

    snodo_client_request_async (client, "demo/info", NULL, NULL, snodo_test_store_result_cb, &answered);
    result = snodo_client_request_finish (client, snodo_test_wait_result (&answered), &error);
    g_assert_no_error (error);
    g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, expected);
    g_assert_cmpstr (json_object_get_string_member (result, "version"), ==, SNODO_VERSION_S);
    g_assert_cmpfloat (json_object_get_double_member (result, "uptime"), >=, 0);
  }
  {
    g_autoptr(GAsyncResult) answered = NULL;
    g_autoptr(JsonObject) params = snodo_test_parse_object ("{\"verbose\":true}");
    g_autoptr(JsonObject) result = NULL;

    snodo_client_request_async (client, "demo/info", params, NULL, snodo_test_store_result_cb, &answered);
    result = snodo_client_request_finish (client, snodo_test_wait_result (&answered), &error);
    g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
    g_assert_null (result);
    g_clear_error (&error);
  }
  {
    g_autoptr(GAsyncResult) answered = NULL;
    g_autoptr(JsonObject) result = NULL;

    snodo_client_request_async (client, "demo/missing", NULL, NULL, snodo_test_store_result_cb, &answered);
    result = snodo_client_request_finish (client, snodo_test_wait_result (&answered), &error);
    g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_METHOD_NOT_FOUND);
    g_assert_null (result);
    g_clear_error (&error);
  }

  snodo_test_close_client (client);
  if (demo != NULL)
    snodo_test_demo_stop (demo);
}

static void
count_progress_cb (SnodoClient *client,
                   const char  *method,
                   JsonObject  *params,
                   gpointer     user_data)
{
  GPtrArray *tokens = user_data;

  if (g_str_equal (method, "notifications/progress") && json_object_has_member (params, "progressToken"))
    g_ptr_array_add (tokens, g_strdup (json_object_get_string_member (params, "progressToken")));
}

/* Forwards @text (params) as @method under @id; the whole answer. */
static JsonObject *
forward (SnodoClient *client,
         const char  *id,
         const char  *method,
         const char  *text)
{
  g_autoptr(GAsyncResult) answered = NULL;
  g_autoptr(JsonObject) params = text != NULL ? snodo_test_parse_object (text) : NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *answer;

  snodo_client_forward_async (client, id, method, params, NULL, snodo_test_store_result_cb, &answered);
  answer = snodo_client_forward_finish (client, snodo_test_wait_result (&answered), &error);
  g_assert_no_error (error);
  g_assert_nonnull (answer);
  return answer;
}

/* snodo_client_forward_async(), what a proxy sends its client's requests
 * with: the params as they are (the caller's envelope and progress token),
 * the whole answer back, an error with its data, an input_required result
 * as it is. */
static void
test_forward (gconstpointer data)
{
  const Case *c = data;
  gboolean modern = c->pinned == SNODO_PROTOCOL_VERSION_UNKNOWN;
  const char *envelope = modern ? ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                                  "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}},"
                                  "\"progressToken\":\"tok\"}"
                                : ",\"_meta\":{\"progressToken\":\"tok\"}";
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GPtrArray) tokens = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *uri = NULL;
  g_autofree char *text = NULL;

  if (c->http)
    {
      demo = snodo_test_demo_http_start (NULL, &uri);
      client = snodo_client_new_for_uri (uri, &error);
    }
  else
    client = snodo_client_new_for_argv ((const char *[]) { g_getenv ("SNODO_DEMO"), NULL }, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, c->pinned);
  g_signal_connect (client, "notification", G_CALLBACK (count_progress_cb), tokens);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));

  {
    g_autoptr(JsonObject) answer = NULL;

    text = g_strdup_printf ("{\"x\":1%s}", envelope);
    answer = forward (client, "a", "demo/missing", text);
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (answer, "error"), "code"), ==, -32601);
    g_assert_false (json_object_has_member (answer, "result"));
    g_clear_pointer (&text, g_free);
  }
  {
    g_autoptr(JsonObject) answer = NULL;

    text = g_strdup_printf ("{\"name\":\"progress\",\"arguments\":{\"steps\":2}%s}", envelope);
    answer = forward (client, "b", "tools/call", text);
    g_assert_true (json_object_has_member (answer, "result"));
    g_assert_cmpuint (tokens->len, ==, 2);
    g_assert_cmpstr (g_ptr_array_index (tokens, 0), ==, "tok");
    g_assert_cmpstr (g_ptr_array_index (tokens, 1), ==, "tok");
    g_clear_pointer (&text, g_free);
  }
  if (modern)
    {
      g_autoptr(JsonObject) answer = NULL;
      JsonObject *error_object;

      text = g_strdup_printf ("{\"name\":\"ask\",\"arguments\":{}%s}", envelope);
      answer = forward (client, "c", "tools/call", text);
      /* Not answered by the client: the caller's client answers. */
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (answer, "result"), "resultType"),
                       ==, "input_required");
      g_clear_pointer (&answer, json_object_unref);

      answer = forward (client, "d", "tools/list",
                        "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2099-01-01\","
                        "\"io.modelcontextprotocol/clientCapabilities\":{}}}");
      error_object = json_object_get_object_member (answer, "error");
      g_assert_cmpint (json_object_get_int_member (error_object, "code"), ==, -32022);
      g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (error_object, "data"), "requested"),
                       ==, "2099-01-01");
    }

  snodo_test_close_client (client);
  if (demo != NULL)
    snodo_test_demo_stop (demo);
}

#if SNODO_HAS_HTTP_TRANSPORT
/* POSTs @body to @uri with the 2026-07-28 version header and @mcp_method
 * (or none); returns the HTTP status and sets *@code to the JSON-RPC error
 * code (0 for a result). */
static guint
post_modern (SoupSession *session,
             const char  *uri,
             const char  *body,
             const char  *mcp_method,
             int         *code)
{
  g_autoptr(SoupMessage) msg = soup_message_new ("POST", uri);
  g_autoptr(GBytes) request = g_bytes_new (body, strlen (body));
  g_autoptr(GBytes) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  JsonObject *object;

  soup_message_set_request_body_from_bytes (msg, "application/json", request);
  soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  soup_message_headers_replace (headers, "MCP-Protocol-Version", "2026-07-28");
  if (mcp_method != NULL)
    soup_message_headers_replace (headers, "Mcp-Method", mcp_method);
  answer = soup_session_send_and_read (session, msg, NULL, &error);
  g_assert_no_error (error);
  node = json_from_string (g_bytes_get_data (answer, NULL), &error);
  g_assert_no_error (error);
  object = json_node_get_object (node);
  *code = json_object_has_member (object, "error")
          ? (int) json_object_get_int_member (json_object_get_object_member (object, "error"), "code") : 0;
  return soup_message_get_status (msg);
}

/* The Streamable HTTP rules of 2026-07-28 for a method of one's own:
 * Mcp-Method must agree with the body, an unknown method is 404. */
static void
test_http_rules (void)
{
  const char *info = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"demo/info\",\"params\":{\"_meta\":"
                     "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                     "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  const char *bad = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"demo/info\",\"params\":{\"x\":1,\"_meta\":"
                    "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  const char *missing = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"demo/missing\",\"params\":{\"_meta\":"
                        "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                        "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(SoupSession) session = soup_session_new ();
  g_autofree char *uri = NULL;
  int code = 0;

  demo = snodo_test_demo_http_start (NULL, &uri);
  g_assert_cmpuint (post_modern (session, uri, info, "demo/info", &code), ==, 200);
  g_assert_cmpint (code, ==, 0);
  g_assert_cmpuint (post_modern (session, uri, info, "tools/list", &code), ==, 400);
  g_assert_cmpint (code, ==, -32020);
  g_assert_cmpuint (post_modern (session, uri, info, NULL, &code), ==, 400);
  g_assert_cmpint (code, ==, -32020);
  g_assert_cmpuint (post_modern (session, uri, bad, "demo/info", &code), ==, 400);
  g_assert_cmpint (code, ==, -32602);
  g_assert_cmpuint (post_modern (session, uri, missing, "demo/missing", &code), ==, 404);
  g_assert_cmpint (code, ==, -32601);
  snodo_test_demo_stop (demo);
}
#endif

/* snodo-demo --print-server-json: what the MCP Registry's schema
 * (2025-12-11) requires, and the identity serverInfo carries. */
static void
test_server_json (void)
{
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autoptr(JsonNode) node = NULL;
  JsonObject *object;
  const char *name;
  const char *slash;

  demo = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, g_getenv ("SNODO_DEMO"),
                           "--print-server-json", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (demo, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (demo));
  g_assert_cmpint (g_subprocess_get_exit_status (demo), ==, 0);

  node = json_from_string (out, &error);
  g_assert_no_error (error);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "$schema"), ==,
                   "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json");
  /* Required: name (reverse-DNS, one slash, at most 200), description (1
   * to 100 characters), version (at most 255, not "latest"). */
  name = json_object_get_string_member (object, "name");
  g_assert_nonnull (name);
  slash = strchr (name, '/');
  g_assert_nonnull (slash);
  g_assert_null (strchr (slash + 1, '/'));
  g_assert_cmpuint (strlen (name), <=, 200);
  g_assert_nonnull (memchr (name, '.', slash - name));
  g_assert_cmpuint (g_utf8_strlen (json_object_get_string_member (object, "description"), -1), >=, 1);
  g_assert_cmpuint (g_utf8_strlen (json_object_get_string_member (object, "description"), -1), <=, 100);
  g_assert_cmpstr (json_object_get_string_member (object, "version"), ==, SNODO_VERSION_S);
  g_assert_cmpstr (json_object_get_string_member (object, "title"), ==, "Snodo demo");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (object, "websiteUrl"), "https://"));
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (object, "icons"), 0), "mimeType"), ==, "image/svg+xml");
}

static void
test_server_json_api (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("app", "2.0");
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *long_text = g_strnfill (150, 'x');
  JsonObject *object;

  g_assert_null (snodo_server_dup_server_json (server, "no-slash", &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  g_assert_null (snodo_server_dup_server_json (server, "a/b/c", &error));
  g_clear_error (&error);

  /* Without a description, the name stands for one; a long one is cut. */
  node = snodo_server_dup_server_json (server, "org.example/app", &error);
  g_assert_no_error (error);
  object = json_node_get_object (node);
  g_assert_cmpstr (json_object_get_string_member (object, "description"), ==, "app");
  g_assert_false (json_object_has_member (object, "websiteUrl"));
  g_clear_pointer (&node, json_node_unref);
  snodo_server_set_description (server, long_text);
  node = snodo_server_dup_server_json (server, "org.example/app", &error);
  g_assert_cmpuint (g_utf8_strlen (json_object_get_string_member (json_node_get_object (node), "description"), -1),
                    ==, 100);
}

int
main (int   argc,
      char *argv[])
{
  static const Case cases[] = {
    { SNODO_PROTOCOL_VERSION_UNKNOWN, FALSE },
    { SNODO_PROTOCOL_VERSION_2025_11_25, FALSE },
    { SNODO_PROTOCOL_VERSION_UNKNOWN, TRUE },
    { SNODO_PROTOCOL_VERSION_2025_11_25, TRUE },
  };

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/custom/names", test_names);
  g_test_add_data_func ("/custom/notification/2025-11-25", GINT_TO_POINTER (FALSE), test_notification);
  g_test_add_data_func ("/custom/notification/2026-07-28", GINT_TO_POINTER (TRUE), test_notification);
  g_test_add_data_func ("/custom/hooks-admission/2025-11-25", GINT_TO_POINTER (FALSE), test_hooks_admission);
  g_test_add_data_func ("/custom/hooks-admission/2026-07-28", GINT_TO_POINTER (TRUE), test_hooks_admission);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = NULL;
      g_autofree char *notification_path = NULL;

#if !SNODO_HAS_HTTP_TRANSPORT
      if (cases[i].http)
        continue;
#endif
      path = g_strdup_printf ("/custom/demo-info/%s/%s", cases[i].http ? "http" : "stdio",
                              cases[i].pinned == SNODO_PROTOCOL_VERSION_UNKNOWN
                              ? "2026-07-28" : snodo_protocol_version_to_string (cases[i].pinned));
      g_test_add_data_func (path, &cases[i], test_demo_info);
      notification_path = g_strdup_printf ("/custom/client-notification/%s/%s", cases[i].http ? "http" : "stdio",
                                           cases[i].pinned == SNODO_PROTOCOL_VERSION_UNKNOWN
                                           ? "2026-07-28" : snodo_protocol_version_to_string (cases[i].pinned));
      g_test_add_data_func (notification_path, &cases[i], test_client_notification);
      g_free (path);
      path = g_strdup_printf ("/custom/forward/%s/%s", cases[i].http ? "http" : "stdio",
                              cases[i].pinned == SNODO_PROTOCOL_VERSION_UNKNOWN
                              ? "2026-07-28" : snodo_protocol_version_to_string (cases[i].pinned));
      g_test_add_data_func (path, &cases[i], test_forward);
    }
#if SNODO_HAS_HTTP_TRANSPORT
  g_test_add_func ("/custom/http-rules/2026-07-28", test_http_rules);
#endif
  g_test_add_func ("/custom/server-json/demo", test_server_json);
  g_test_add_func ("/custom/server-json/api", test_server_json_api);

  return g_test_run ();
}
