/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient against servers written with the official MCP TypeScript
 * SDKs: over stdio server-everything (SDK v1, initialize era), and
 * sdk-stdio-server.mjs on SDK v1 (initialize era) and on SDK v2
 * (serveStdio, both eras); over Streamable HTTP sdk-http-server.mjs on
 * SDK v1 (sessions, resumable SSE) and on SDK v2 (createMcpHandler, both
 * eras); over the older HTTP+SSE transport sdk-sse-server.mjs on SDK v1;
 * all from tests/interop/node_modules. */

#include "config.h"

#include <string.h>

#include <snodo/snodo.h>

#include "snodo-test-util.h"

static gboolean
array_has_name (JsonArray  *array,
                const char *name)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (g_strcmp0 (json_object_get_string_member_with_default (json_array_get_object_element (array, i),
                                                               "name", NULL), name) == 0)
      return TRUE;
  return FALSE;
}

/* The server's command line: node, a script and its argument. */
static GStrv
server_argv (const char *which)
{
  const char *node = g_getenv ("INTEROP_NODE");
  g_autofree char *script = NULL;
  const char *mode = NULL;

  g_assert_nonnull (node);
  if (g_str_equal (which, "everything"))
    {
      script = g_strdup (g_getenv ("SERVER_EVERYTHING"));
      mode = "stdio";
    }
  else
    {
      const char *dir = g_getenv ("INTEROP_DIR");

      g_assert_nonnull (dir);
      script = g_build_filename (dir, "sdk-stdio-server.mjs", NULL);
      mode = g_str_equal (which, "v1") ? "v1" : "v2";
    }
  g_assert_nonnull (script);
  return g_strdupv ((char *[]) { (char *) node, script, (char *) mode, NULL });
}

static SnodoClient *
start (const char            *which,
       SnodoProtocolVersion   pinned,
       GError               **error)
{
  g_auto(GStrv) argv = server_argv (which);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(JsonObject) capabilities = snodo_test_parse_object ("{\"elicitation\":{\"form\":{}}}");

  client = snodo_client_new_for_argv ((const char * const *) argv, error);
  g_assert_nonnull (client);
  snodo_client_set_pinned_version (client, pinned);
  snodo_client_set_capabilities (client, capabilities);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &result);
  if (!snodo_client_connect_finish (client, snodo_test_wait_result (&result), error))
    {
      g_autoptr(GAsyncResult) closed = NULL;

      snodo_client_close_async (client, NULL, snodo_test_store_result_cb, &closed);
      g_assert_true (snodo_client_close_finish (client, snodo_test_wait_result (&closed), NULL));
      return NULL;
    }
  return g_steal_pointer (&client);
}

static void
finish (SnodoClient *client)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  snodo_client_close_async (client, NULL, snodo_test_store_result_cb, &result);
  g_assert_true (snodo_client_close_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_object_unref (client);
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
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

/* A call cancelled 300 ms in fails at once, and the connection goes on. */
static void
check_cancel (SnodoClient *client,
              const char  *tool,
              const char  *arguments_json,
              const char  *echo_json,
              const char  *expected)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) arguments = snodo_test_parse_object (arguments_json);
  g_autoptr(JsonObject) echo = snodo_test_parse_object (echo_json);
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) echoed = NULL;
  g_autofree char *text = NULL;
  gint64 start_time = g_get_monotonic_time ();

  snodo_client_call_tool_async (client, tool, arguments, cancellable, snodo_test_store_result_cb, &r1);
  g_timeout_add (300, cancel_cb, cancellable);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start_time, <, 5 * G_USEC_PER_SEC);
  g_clear_error (&error);

  snodo_client_call_tool_async (client, "echo", echo, NULL, snodo_test_store_result_cb, &r2);
  echoed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (echoed);
  g_assert_cmpstr (text, ==, expected);
}

/* Confirms every elicitation the server asks for. */
static gboolean
confirm_cb (SnodoClient        *client,
            SnodoServerRequest *request,
            gpointer            user_data)
{
  guint *asked = user_data;
  g_autoptr(JsonObject) result = snodo_test_parse_object ("{\"action\":\"accept\",\"content\":{\"confirm\":true}}");

  (*asked)++;
  g_assert_true (json_object_has_member (snodo_server_request_get_params (request), "requestedSchema"));
  snodo_server_request_return_result (request, result);
  return TRUE;
}

/* The v2 SDK's deploy tool returns inputRequired(): the client answers the
 * elicitation (input_required in 2026-07-28, a request in 2025) and sees
 * the final result. */
static void
check_deploy (SnodoClient *client)
{
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{\"env\":\"staging\"}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) deployed = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  guint asked = 0;
  gulong id;

  id = g_signal_connect (client, "server-request::elicitation/create", G_CALLBACK (confirm_cb), &asked);
  snodo_client_call_tool_async (client, "deploy", args, NULL, snodo_test_store_result_cb, &result);
  deployed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&result), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (deployed);
  g_assert_cmpstr (text, ==, "deployed to staging");
  g_assert_cmpuint (asked, ==, 1);
  g_signal_handler_disconnect (client, id);
}

static void
test_everything (void)
{
  g_autoptr(GError) error = NULL;
  SnodoClient *client = start ("everything", SNODO_PROTOCOL_VERSION_UNKNOWN, &error);
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(GAsyncResult) r3 = NULL;
  g_autoptr(GAsyncResult) r4 = NULL;
  g_autoptr(GAsyncResult) r5 = NULL;
  g_autoptr(GAsyncResult) r6 = NULL;
  g_autoptr(GAsyncResult) r7 = NULL;
  g_autoptr(GAsyncResult) r8 = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonArray) resources = NULL;
  g_autoptr(JsonArray) prompts = NULL;
  g_autoptr(JsonObject) echoed = NULL;
  g_autoptr(JsonObject) read = NULL;
  g_autoptr(JsonObject) prompt = NULL;
  g_autoptr(JsonObject) long_run = NULL;
  g_autoptr(JsonObject) echo_args = snodo_test_parse_object ("{\"message\":\"hello from snodo\"}");
  g_autoptr(JsonObject) long_args = snodo_test_parse_object ("{\"duration\":0.3,\"steps\":3}");
  g_autofree char *text = NULL;
  guint progress_count = 0;

  g_assert_no_error (error);
  /* The probe is refused (-32601) and the client falls back. */
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_11_25);
  g_assert_cmpstr (json_object_get_string_member (snodo_client_get_server_info (client), "name"), ==,
                   "mcp-servers/everything");

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &r1);
  snodo_client_call_tool_async (client, "echo", echo_args, NULL, snodo_test_store_result_cb, &r2);
  snodo_client_list_resources_async (client, NULL, snodo_test_store_result_cb, &r3);
  snodo_client_list_prompts_async (client, NULL, snodo_test_store_result_cb, &r4);
  snodo_client_get_prompt_async (client, "simple-prompt", NULL, NULL, snodo_test_store_result_cb, &r5);
  snodo_client_ping_async (client, NULL, snodo_test_store_result_cb, &r6);

  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (tools, "echo"));
  g_assert_true (array_has_name (tools, "get-sum"));
  echoed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (echoed);
  g_assert_cmpstr (text, ==, "Echo: hello from snodo");
  resources = snodo_client_list_resources_finish (client, snodo_test_wait_result (&r3), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (resources), >, 0);
  prompts = snodo_client_list_prompts_finish (client, snodo_test_wait_result (&r4), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (prompts, "simple-prompt"));
  prompt = snodo_client_get_prompt_finish (client, snodo_test_wait_result (&r5), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (prompt, "messages"));
  g_assert_true (snodo_client_ping_finish (client, snodo_test_wait_result (&r6), &error));
  g_assert_no_error (error);

  snodo_client_read_resource_async (client,
                                    json_object_get_string_member (json_array_get_object_element (resources, 0), "uri"),
                                    NULL, snodo_test_store_result_cb, &r7);
  read = snodo_client_read_resource_finish (client, snodo_test_wait_result (&r7), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (read, "contents"));

  /* Progress comes back as signals. */
  g_signal_connect (client, "progress", G_CALLBACK (progress_cb), &progress_count);
  snodo_client_call_tool_async (client, "trigger-long-running-operation", long_args, NULL, snodo_test_store_result_cb, &r8);
  long_run = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r8), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (progress_count, ==, 3);

  check_cancel (client, "trigger-long-running-operation", "{\"duration\":30,\"steps\":3}",
                "{\"message\":\"still here\"}", "Echo: still here");
  finish (client);
}

static void
test_everything_pinned_modern (void)
{
  g_autoptr(GError) error = NULL;
  SnodoClient *client = start ("everything", SNODO_PROTOCOL_VERSION_2026_07_28, &error);

  g_assert_null (client);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
}

/* server-everything's tools that ask the client (they exist only for a
 * client that declares roots, sampling and elicitation), answered by
 * SnodoClient::server-request handlers. */
static gboolean
everything_request_cb (SnodoClient        *client,
                       SnodoServerRequest *request,
                       gpointer            user_data)
{
  GPtrArray *asked = user_data;
  const char *method = snodo_server_request_get_method (request);
  g_autoptr(JsonObject) result = NULL;

  g_ptr_array_add (asked, g_strdup (method));
  if (g_str_equal (method, "roots/list"))
    result = snodo_test_parse_object ("{\"roots\":[{\"uri\":\"file:///srv/snodo-root\",\"name\":\"snodo-root\"}]}");
  else if (g_str_equal (method, "sampling/createMessage"))
    {
      g_assert_true (json_object_has_member (snodo_server_request_get_params (request), "messages"));
      result = snodo_test_parse_object ("{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"sampled by snodo\"},"
                             "\"model\":\"snodo-test\"}");
    }
  else if (g_str_equal (method, "elicitation/create"))
    {
      g_assert_true (json_object_has_member (snodo_server_request_get_params (request), "requestedSchema"));
      result = snodo_test_parse_object ("{\"action\":\"accept\",\"content\":{\"name\":\"Ada Snodo\"}}");
    }
  else
    return FALSE;
  snodo_server_request_return_result (request, result);
  return TRUE;
}

static char *
all_text (JsonObject *result)
{
  JsonArray *content = json_object_get_array_member (result, "content");
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (content); i++)
    g_string_append (text, json_object_get_string_member_with_default (json_array_get_object_element (content, i),
                                                                       "text", ""));
  return g_string_free (text, FALSE);
}

static void
test_everything_input (void)
{
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) argv = server_argv ("everything");
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(JsonObject) capabilities = snodo_test_parse_object ("{\"roots\":{},\"sampling\":{},\"elicitation\":{\"form\":{}}}");
  g_autoptr(GPtrArray) asked = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GAsyncResult) connected = NULL;
  static const struct { const char *tool; const char *arguments; const char *method; const char *expected; } calls[] = {
    { "get-roots-list", "{}", "roots/list", "file:///srv/snodo-root" },
    { "trigger-sampling-request", "{\"prompt\":\"hi\"}", "sampling/createMessage", "sampled by snodo" },
    { "trigger-elicitation-request", "{}", "elicitation/create", "Ada Snodo" },
  };

  client = snodo_client_new_for_argv ((const char * const *) argv, &error);
  g_assert_no_error (error);
  snodo_client_set_capabilities (client, capabilities);
  g_signal_connect (client, "server-request", G_CALLBACK (everything_request_cb), asked);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);

  for (guint i = 0; i < G_N_ELEMENTS (calls); i++)
    {
      g_autoptr(JsonObject) arguments = snodo_test_parse_object (calls[i].arguments);
      g_autoptr(GAsyncResult) result = NULL;
      g_autoptr(JsonObject) answer = NULL;
      g_autofree char *text = NULL;
      gboolean seen = FALSE;

      snodo_client_call_tool_async (client, calls[i].tool, arguments, NULL, snodo_test_store_result_cb, &result);
      answer = snodo_client_call_tool_finish (client, snodo_test_wait_result (&result), &error);
      g_assert_no_error (error);
      text = all_text (answer);
      g_test_message ("%s: %s", calls[i].tool, text);
      g_assert_nonnull (strstr (text, calls[i].expected));
      for (guint j = 0; j < asked->len; j++)
        seen |= g_str_equal (asked->pdata[j], calls[i].method);
      g_assert_true (seen);
    }

  finish (g_steal_pointer (&client));
}

static void
test_peer (gconstpointer data)
{
  const char *which = data;
  g_autoptr(GError) error = NULL;
  SnodoClient *client;
  SnodoProtocolVersion expected;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) echoed = NULL;
  g_autoptr(JsonObject) echo_args = snodo_test_parse_object ("{\"text\":\"hi\"}");
  g_autofree char *text = NULL;
  gboolean legacy = g_str_has_suffix (which, "-legacy");

  client = start (g_str_has_prefix (which, "v1") ? "v1" : "v2",
                  legacy ? SNODO_PROTOCOL_VERSION_2025_11_25 : SNODO_PROTOCOL_VERSION_UNKNOWN, &error);
  g_assert_no_error (error);
  expected = g_str_equal (which, "v2") ? SNODO_PROTOCOL_VERSION_2026_07_28 : SNODO_PROTOCOL_VERSION_2025_11_25;
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, expected);

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &r1);
  snodo_client_call_tool_async (client, "echo", echo_args, NULL, snodo_test_store_result_cb, &r2);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (tools, "sleep"));
  echoed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (echoed);
  g_assert_cmpstr (text, ==, "hi");

  if (!g_str_has_prefix (which, "v1"))
    check_deploy (client);
  check_cancel (client, "sleep", "{\"ms\":30000}", "{\"text\":\"after\"}", "after");
  finish (client);
}

/* Over Streamable HTTP: sdk-http-server.mjs on v1 (sessions, SSE with
 * event ids) or v2 (createMcpHandler). */

typedef struct
{
  GSubprocess *process;
  char *uri;
} HttpPeer;

static void
http_peer_start (HttpPeer   *peer,
                 const char *which)
{
  const char *node = g_getenv ("INTEROP_NODE");
  const char *dir = g_getenv ("INTEROP_DIR");
  g_autofree char *script = NULL;
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (node);
  g_assert_nonnull (dir);
  script = g_build_filename (dir, g_str_equal (which, "sse") ? "sdk-sse-server.mjs" : "sdk-http-server.mjs", NULL);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  /* The SDK's packages are found from the script's folder. */
  g_subprocess_launcher_set_cwd (launcher, dir);
  peer->process = g_subprocess_launcher_spawn (launcher, &error, node, script, which, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (peer->process));
  peer->uri = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (peer->uri);
  g_assert_true (g_str_has_prefix (peer->uri, "http://127.0.0.1:"));
}

static void
http_peer_stop (HttpPeer *peer)
{
  g_subprocess_force_exit (peer->process);
  g_subprocess_wait (peer->process, NULL, NULL);
  g_clear_object (&peer->process);
  g_clear_pointer (&peer->uri, g_free);
}

static void
test_http_peer (gconstpointer data)
{
  const char *which = data;
  gboolean legacy = g_str_has_suffix (which, "-legacy");
  HttpPeer peer = { 0, };
  g_autoptr(GError) error = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(GAsyncResult) r3 = NULL;
  g_autoptr(GAsyncResult) closed = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) echoed = NULL;
  g_autoptr(JsonObject) resumed = NULL;
  g_autoptr(JsonObject) echo_args = snodo_test_parse_object ("{\"text\":\"grüß dich über HTTP\"}");
  g_autoptr(JsonObject) no_args = snodo_test_parse_object ("{}");
  g_autoptr(JsonObject) capabilities = snodo_test_parse_object ("{\"elicitation\":{\"form\":{}}}");
  g_autofree char *text = NULL;
  g_autofree char *resumed_text = NULL;
  SnodoProtocolVersion expected;

  http_peer_start (&peer, g_str_has_prefix (which, "v1") ? "v1" : "v2");
  client = snodo_client_new_for_uri (peer.uri, &error);
  g_assert_no_error (error);
  if (legacy)
    snodo_client_set_pinned_version (client, SNODO_PROTOCOL_VERSION_2025_11_25);
  snodo_client_set_capabilities (client, capabilities);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);
  /* v1 refuses the probe without a session (400) and the client falls
   * back to initialize; v2 speaks 2026-07-28. */
  expected = g_str_equal (which, "v2") ? SNODO_PROTOCOL_VERSION_2026_07_28 : SNODO_PROTOCOL_VERSION_2025_11_25;
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, expected);

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &r1);
  snodo_client_call_tool_async (client, "echo", echo_args, NULL, snodo_test_store_result_cb, &r2);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (tools, "sleep"));
  echoed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (echoed);
  g_assert_cmpstr (text, ==, "grüß dich über HTTP");

  if (g_str_equal (which, "v1"))
    {
      /* The server closes the answer's stream before the result: the
       * client resumes it with Last-Event-ID and gets the result. */
      snodo_client_call_tool_async (client, "interrupt", no_args, NULL, snodo_test_store_result_cb, &r3);
      resumed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r3), &error);
      g_assert_no_error (error);
      resumed_text = snodo_test_first_text (resumed);
      g_assert_cmpstr (resumed_text, ==, "resumed");
    }

  /* The SDK's handler answers 2025 traffic statelessly, where it cannot
   * ask the client anything: only 2026-07-28 asks over HTTP. */
  if (g_str_equal (which, "v2"))
    check_deploy (client);
  check_cancel (client, "sleep", "{\"ms\":30000}", "{\"text\":\"after\"}", "after");

  snodo_client_close_async (client, NULL, snodo_test_store_result_cb, &closed);
  g_assert_true (snodo_client_close_finish (client, snodo_test_wait_result (&closed), &error));
  g_assert_no_error (error);
  http_peer_stop (&peer);
}

/* sdk-sse-server.mjs: the older HTTP+SSE transport (SDK v1's
 * SSEServerTransport), which the client falls back to. */
static void
test_sse_peer (void)
{
  HttpPeer peer = { 0, };
  g_autoptr(GError) error = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(GAsyncResult) closed = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) echoed = NULL;
  g_autoptr(JsonObject) echo_args = snodo_test_parse_object ("{\"text\":\"grüß dich über SSE\"}");
  g_autofree char *text = NULL;

  http_peer_start (&peer, "sse");
  client = snodo_client_new_for_uri (peer.uri, &error);
  g_assert_no_error (error);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_11_25);
  g_assert_cmpstr (json_object_get_string_member (snodo_client_get_server_info (client), "name"), ==, "sdk-v1-sse");

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &r1);
  snodo_client_call_tool_async (client, "echo", echo_args, NULL, snodo_test_store_result_cb, &r2);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (tools, "echo"));
  echoed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (echoed);
  g_assert_cmpstr (text, ==, "grüß dich über SSE");

  snodo_client_close_async (client, NULL, snodo_test_store_result_cb, &closed);
  g_assert_true (snodo_client_close_finish (client, snodo_test_wait_result (&closed), &error));
  g_assert_no_error (error);
  http_peer_stop (&peer);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/client-interop/everything", test_everything);
  g_test_add_func ("/snodo/client-interop/everything/pinned-2026-07-28", test_everything_pinned_modern);
  g_test_add_func ("/snodo/client-interop/everything/server-requests", test_everything_input);
  g_test_add_data_func ("/snodo/client-interop/ts-v1", "v1", test_peer);
  g_test_add_data_func ("/snodo/client-interop/ts-v2", "v2", test_peer);
  g_test_add_data_func ("/snodo/client-interop/ts-v2/2025-11-25", "v2-legacy", test_peer);
#if SNODO_HAS_HTTP_TRANSPORT
  g_test_add_data_func ("/snodo/client-interop/http/ts-v1", "v1", test_http_peer);
  g_test_add_func ("/snodo/client-interop/http/ts-v1-sse", test_sse_peer);
  g_test_add_data_func ("/snodo/client-interop/http/ts-v2", "v2", test_http_peer);
  g_test_add_data_func ("/snodo/client-interop/http/ts-v2/2025-11-25", "v2-legacy", test_http_peer);
#endif

  return g_test_run ();
}
