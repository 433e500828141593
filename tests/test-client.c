/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient against snodo-demo over stdio, in both eras; cancellation,
 * timeouts, the end of the server it started (closing it, and the
 * client's process being killed). */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <glib-unix.h>
#include <snodo/snodo.h>

#include "snodo-test-util.h"

static const char *
demo_path (void)
{
  const char *demo = g_getenv ("SNODO_DEMO");

  g_assert_nonnull (demo);
  return demo;
}

static SnodoClient *
connect_demo (SnodoProtocolVersion pinned)
{
  const char *argv[] = { demo_path (), NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  SnodoClient *client;

  client = snodo_client_new_for_argv (argv, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, pinned);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &result);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_no_error (error);
  return client;
}

static gboolean
array_has_name (JsonArray  *array,
                const char *member,
                const char *name)
{
  for (guint i = 0; i < json_array_get_length (array); i++)
    {
      JsonObject *item = json_array_get_object_element (array, i);

      if (g_strcmp0 (json_object_get_string_member_with_default (item, member, NULL), name) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
run_features (SnodoClient *client)
{
  g_autoptr(GError) error = NULL;
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
  g_autoptr(JsonArray) templates = NULL;
  g_autoptr(JsonArray) prompts = NULL;
  g_autoptr(JsonObject) arguments = snodo_test_parse_object ("{\"text\":\"hi\"}");
  g_autoptr(JsonObject) called = NULL;
  g_autoptr(JsonObject) read = NULL;
  g_autoptr(JsonObject) prompt = NULL;
  g_autoptr(JsonObject) prompt_arguments = snodo_test_parse_object ("{\"name\":\"Ada\"}");
  g_autoptr(JsonObject) sum = NULL;
  g_autoptr(JsonObject) add_params = snodo_test_parse_object ("{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}}");
  g_autofree char *text = NULL;

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &r1);
  snodo_client_call_tool_async (client, "echo", arguments, NULL, snodo_test_store_result_cb, &r2);
  snodo_client_list_resources_async (client, NULL, snodo_test_store_result_cb, &r3);
  snodo_client_list_resource_templates_async (client, NULL, snodo_test_store_result_cb, &r4);
  snodo_client_read_resource_async (client, "demo://readme", NULL, snodo_test_store_result_cb, &r5);
  snodo_client_list_prompts_async (client, NULL, snodo_test_store_result_cb, &r6);
  snodo_client_get_prompt_async (client, "greet", prompt_arguments, NULL, snodo_test_store_result_cb, &r7);
  snodo_client_request_async (client, "tools/call", add_params, NULL, snodo_test_store_result_cb, &r8);

  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (tools, "name", "echo"));
  g_assert_true (array_has_name (tools, "name", "sleep"));

  called = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (called);
  g_assert_cmpstr (text, ==, "hi");
  /* The caller's object is not touched by the envelope. */
  g_assert_cmpuint (json_object_get_size (arguments), ==, 1);

  resources = snodo_client_list_resources_finish (client, snodo_test_wait_result (&r3), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (resources, "uri", "demo://readme"));
  templates = snodo_client_list_resource_templates_finish (client, snodo_test_wait_result (&r4), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (templates, "uriTemplate", "demo://echo/{text}"));
  read = snodo_client_read_resource_finish (client, snodo_test_wait_result (&r5), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (read, "contents"));
  prompts = snodo_client_list_prompts_finish (client, snodo_test_wait_result (&r6), &error);
  g_assert_no_error (error);
  g_assert_true (array_has_name (prompts, "name", "greet"));
  prompt = snodo_client_get_prompt_finish (client, snodo_test_wait_result (&r7), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_has_member (prompt, "messages"));
  sum = snodo_client_request_finish (client, snodo_test_wait_result (&r8), &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (sum, "structuredContent"), "sum"), ==, 42);
  g_assert_false (json_object_has_member (add_params, "_meta"));

  /* A _meta of the caller that is no object is left alone: the server
   * says what it thinks of it. */
  {
    g_autoptr(JsonObject) odd = snodo_test_parse_object ("{\"_meta\":3}");
    g_autoptr(GAsyncResult) r9 = NULL;
    g_autoptr(JsonObject) answer = NULL;

    snodo_client_request_async (client, "tools/list", odd, NULL, snodo_test_store_result_cb, &r9);
    answer = snodo_client_request_finish (client, snodo_test_wait_result (&r9), &error);
    g_test_message ("tools/list with _meta 3: %s", error != NULL ? error->message : "answered");
    g_clear_error (&error);
  }
}

static void
test_demo_version (gconstpointer data)
{
  SnodoProtocolVersion pinned = GPOINTER_TO_INT (data);
  SnodoProtocolVersion expected = pinned != SNODO_PROTOCOL_VERSION_UNKNOWN ? pinned : SNODO_PROTOCOL_VERSION_2026_07_28;
  g_autoptr(SnodoClient) client = connect_demo (pinned);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *info;

  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, expected);
  info = snodo_client_get_server_info (client);
  g_assert_nonnull (info);
  g_assert_cmpstr (json_object_get_string_member (info, "name"), ==, "snodo-demo");
  g_assert_true (json_object_has_member (snodo_client_get_server_capabilities (client), "tools"));

  run_features (client);

  snodo_client_ping_async (client, NULL, snodo_test_store_result_cb, &result);
  g_assert_true (snodo_client_ping_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_no_error (error);

  snodo_test_close_client (client);
  g_assert_true (g_subprocess_get_if_exited (snodo_client_get_subprocess (client)));
}

/* A server that offers only the initialize era: the probe fails and the
 * client falls back; pinning 2026-07-28 then fails. */
static void
test_demo_fallback (void)
{
  const char *argv[] = { demo_path (), "--protocol-versions=2025-06-18", NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) result2 = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(SnodoClient) pinned = NULL;

  client = snodo_client_new_for_argv (argv, &error);
  g_assert_no_error (error);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &result);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_06_18);
  run_features (client);
  snodo_test_close_client (client);

  pinned = snodo_client_new_for_argv (argv, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (pinned, SNODO_PROTOCOL_VERSION_2026_07_28);
  snodo_client_connect_async (pinned, NULL, snodo_test_store_result_cb, &result2);
  g_assert_false (snodo_client_connect_finish (pinned, snodo_test_wait_result (&result2), &error));
  g_assert_nonnull (error);
  g_test_message ("pinned to 2026-07-28: %s", error->message);
  snodo_test_close_client (pinned);
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

  g_assert_cmpstr (method, ==, "tools/call");
  (*count)++;
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

static void
test_cancel (gconstpointer data)
{
  g_autoptr(SnodoClient) client = connect_demo (GPOINTER_TO_INT (data));
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) sleep_args = snodo_test_parse_object ("{\"ms\":30000}");
  g_autoptr(JsonObject) echo_args = snodo_test_parse_object ("{\"text\":\"after\"}");
  g_autoptr(JsonObject) progress_args = snodo_test_parse_object ("{\"steps\":3}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) result2 = NULL;
  g_autoptr(GAsyncResult) result3 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) echoed = NULL;
  g_autoptr(JsonObject) progressed = NULL;
  g_autofree char *text = NULL;
  gint64 start = g_get_monotonic_time ();
  guint progress_count = 0;

  snodo_client_call_tool_async (client, "sleep", sleep_args, cancellable, snodo_test_store_result_cb, &result);
  g_timeout_add (200, cancel_cb, cancellable);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_clear_error (&error);

  /* The connection goes on. */
  snodo_client_call_tool_async (client, "echo", echo_args, NULL, snodo_test_store_result_cb, &result2);
  echoed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&result2), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (echoed);
  g_assert_cmpstr (text, ==, "after");

  g_signal_connect (client, "progress", G_CALLBACK (progress_cb), &progress_count);
  snodo_client_call_tool_async (client, "progress", progress_args, NULL, snodo_test_store_result_cb, &result3);
  progressed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&result3), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (progress_count, >=, 1);

  snodo_test_close_client (client);
}

static void
log_message_cb (SnodoClient *client,
                const char  *level,
                const char  *logger,
                JsonNode    *data,
                gpointer     user_data)
{
  GPtrArray *seen = user_data;

  g_ptr_array_add (seen, g_strdup_printf ("%s %s", level,
                                          data != NULL && JSON_NODE_HOLDS_VALUE (data) ? json_node_get_string (data) : "?"));
}

/* Log messages are asked for with log-level: in the envelope in
 * 2026-07-28, with logging/setLevel in the initialize era, at the
 * handshake and whenever it changes. */
static void
test_log (gconstpointer data)
{
  const char *argv[] = { demo_path (), NULL };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(JsonObject) arguments = snodo_test_parse_object ("{\"level\":\"warning\",\"text\":\"careful\"}");
  g_autoptr(JsonObject) debug_arguments = snodo_test_parse_object ("{\"level\":\"debug\",\"text\":\"noise\"}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) r1 = NULL;
  g_autoptr(GAsyncResult) r2 = NULL;
  g_autoptr(JsonObject) logged = NULL;
  g_autoptr(JsonObject) logged2 = NULL;
  g_autoptr(GAsyncResult) r3 = NULL;
  g_autoptr(JsonObject) logged3 = NULL;
  g_autoptr(GError) error = NULL;

  client = snodo_client_new_for_argv (argv, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, GPOINTER_TO_INT (data));
  snodo_client_set_log_level (client, "info");
  g_signal_connect (client, "log-message", G_CALLBACK (log_message_cb), seen);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &result);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_no_error (error);

  snodo_client_call_tool_async (client, "log", debug_arguments, NULL, snodo_test_store_result_cb, &r1);
  logged = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r1), &error);
  g_assert_no_error (error);
  snodo_client_call_tool_async (client, "log", arguments, NULL, snodo_test_store_result_cb, &r2);
  logged2 = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r2), &error);
  g_assert_no_error (error);
  /* The message comes before the result on the same stream. */
  g_assert_cmpuint (seen->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (seen, 0), ==, "warning careful");

  /* A new level while connected reaches the server before the next call
   * (logging/setLevel in the initialize era, the envelope in 2026-07-28). */
  snodo_client_set_log_level (client, "debug");
  snodo_client_call_tool_async (client, "log", debug_arguments, NULL, snodo_test_store_result_cb, &r3);
  logged3 = snodo_client_call_tool_finish (client, snodo_test_wait_result (&r3), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (seen->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (seen, 1), ==, "debug noise");
  snodo_test_close_client (client);
}

static void
test_request_timeout (void)
{
  g_autoptr(SnodoClient) client = connect_demo (SNODO_PROTOCOL_VERSION_UNKNOWN);
  g_autoptr(JsonObject) sleep_args = snodo_test_parse_object ("{\"ms\":30000}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  snodo_client_set_request_timeout (client, 300);
  snodo_client_call_tool_async (client, "sleep", sleep_args, NULL, snodo_test_store_result_cb, &result);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  snodo_test_close_client (client);
}

static void
test_errors (void)
{
  g_autoptr(SnodoClient) client = connect_demo (SNODO_PROTOCOL_VERSION_2025_11_25);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) result2 = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) failed = NULL;

  snodo_client_request_async (client, "no/such/method", NULL, NULL, snodo_test_store_result_cb, &result);
  g_assert_null (snodo_client_request_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_METHOD_NOT_FOUND);
  g_clear_error (&error);

  /* A failing tool is a result. */
  snodo_client_call_tool_async (client, "fail", NULL, NULL, snodo_test_store_result_cb, &result2);
  failed = snodo_client_call_tool_finish (client, snodo_test_wait_result (&result2), &error);
  g_assert_no_error (error);
  g_assert_true (json_object_get_boolean_member (failed, "isError"));
  snodo_test_close_client (client);
}

/* A server whose output ends: pending requests fail, closed is emitted. */
static void
closed_cb (SnodoClient  *client,
           const GError *error,
           gpointer      user_data)
{
  gboolean *closed = user_data;

  g_assert_error ((GError *) error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  *closed = TRUE;
}

static void
test_server_exits (void)
{
  const char *argv[] = { "sh", "-c", "read line; exit 0", NULL };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;
  gboolean closed = FALSE;

  client = snodo_client_new_for_argv (argv, &error);
  g_assert_no_error (error);
  g_signal_connect (client, "closed", G_CALLBACK (closed_cb), &closed);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &result);
  g_assert_false (snodo_client_connect_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  g_assert_true (closed);
  snodo_test_close_client (client);
}

/* A server that ignores the end of its input and SIGTERM is killed. */
static void
test_close_escalates (void)
{
  const char *argv[] = { "sh", "-c", "trap '' TERM; exec 0</dev/null; while :; do sleep 1; done", NULL };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start;

  client = snodo_client_new_for_argv (argv, &error);
  g_assert_no_error (error);
  start = g_get_monotonic_time ();
  snodo_test_close_client (client);
  g_assert_true (g_subprocess_get_if_signaled (snodo_client_get_subprocess (client)));
  g_assert_cmpint (g_subprocess_get_term_sig (snodo_client_get_subprocess (client)), ==, SIGKILL);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 3 * G_USEC_PER_SEC);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
}

/* A scripted server on a pipe pair, to see the client's lines. */
typedef struct
{
  GDataInputStream *from_client;
  GOutputStream *to_client;
} Peer;

static void
read_line_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  char **line = user_data;
  g_autoptr(GError) error = NULL;

  *line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (*line);
}

static JsonObject *
peer_read (Peer       *peer,
           const char *method)
{
  g_autofree char *line = NULL;
  JsonObject *message;

  g_data_input_stream_read_line_async (peer->from_client, G_PRIORITY_DEFAULT, NULL, read_line_cb, &line);
  while (line == NULL)
    g_main_context_iteration (NULL, TRUE);
  message = snodo_test_parse_object (line);
  if (method != NULL)
    g_assert_cmpstr (json_object_get_string_member_with_default (message, "method", ""), ==, method);
  return message;
}

static void
peer_write (Peer       *peer,
            const char *line)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (g_output_stream_write_all (peer->to_client, line, strlen (line), NULL, NULL, &error));
  g_assert_true (g_output_stream_write_all (peer->to_client, "\n", 1, NULL, NULL, &error));
  g_assert_no_error (error);
}

static SnodoClient *
peer_client (Peer *peer)
{
  int to_server[2];
  int to_client[2];
  g_autoptr(GInputStream) client_in = NULL;
  g_autoptr(GOutputStream) client_out = NULL;
  g_autoptr(GInputStream) server_in = NULL;

  g_assert_true (g_unix_open_pipe (to_server, FD_CLOEXEC, NULL));
  g_assert_true (g_unix_open_pipe (to_client, FD_CLOEXEC, NULL));
  client_in = g_unix_input_stream_new (to_client[0], TRUE);
  client_out = g_unix_output_stream_new (to_server[1], TRUE);
  server_in = g_unix_input_stream_new (to_server[0], TRUE);
  peer->from_client = g_data_input_stream_new (server_in);
  peer->to_client = g_unix_output_stream_new (to_client[1], TRUE);
  return snodo_client_new (client_in, client_out);
}

static void
peer_clear (Peer *peer)
{
  g_clear_object (&peer->from_client);
  g_clear_object (&peer->to_client);
}

static void
oversized_cb (SnodoClient  *client,
              const GError *error,
              gpointer      user_data)
{
  gboolean *closed = user_data;

  g_assert_error ((GError *) error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE);
  *closed = TRUE;
}

/* What the client writes: the fallback handshake, a cancellation on the
 * wire, a late answer ignored, progress, a ping of the server answered,
 * pages followed, and a line too long. */
static void
test_wire (void)
{
  Peer peer = { 0, };
  g_autoptr(SnodoClient) client = peer_client (&peer);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GAsyncResult) called = NULL;
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) discover = NULL;
  g_autoptr(JsonObject) initialize = NULL;
  g_autoptr(JsonObject) initialized = NULL;
  g_autoptr(JsonObject) call = NULL;
  g_autoptr(JsonObject) cancelled = NULL;
  g_autoptr(JsonObject) pong = NULL;
  g_autoptr(JsonObject) page1 = NULL;
  g_autoptr(JsonObject) page2 = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autofree char *line = NULL;
  g_autofree char *big = NULL;
  gint64 id;
  guint progress_count = 0;
  gboolean closed = FALSE;

  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &result);
  discover = peer_read (&peer, "server/discover");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_object_get_object_member (discover, "params"), "_meta"),
                                                  "io.modelcontextprotocol/protocolVersion"), ==, "2026-07-28");
  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}",
                          json_object_get_int_member (discover, "id"));
  peer_write (&peer, line);
  g_clear_pointer (&line, g_free);
  initialize = peer_read (&peer, "initialize");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (initialize, "params"), "protocolVersion"), ==, "2025-11-25");
  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"protocolVersion\":\"2025-06-18\","
                          "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"peer\",\"version\":\"1\"},\"instructions\":\"be kind\"}}",
                          json_object_get_int_member (initialize, "id"));
  peer_write (&peer, line);
  g_clear_pointer (&line, g_free);
  initialized = peer_read (&peer, "notifications/initialized");
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_06_18);
  g_assert_cmpstr (snodo_client_get_instructions (client), ==, "be kind");

  /* Progress, then cancellation on the wire; the late answer is ignored. */
  g_signal_connect (client, "progress", G_CALLBACK (progress_cb), &progress_count);
  snodo_client_call_tool_async (client, "slow", NULL, cancellable, snodo_test_store_result_cb, &called);
  call = peer_read (&peer, "tools/call");
  id = json_object_get_int_member (call, "id");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_object_get_object_member (call, "params"), "_meta"),
                                               "progressToken"), ==, id);
  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%" G_GINT64_FORMAT ",\"progress\":1,\"total\":2}}", id);
  peer_write (&peer, line);
  g_clear_pointer (&line, g_free);
  while (progress_count == 0)
    g_main_context_iteration (NULL, TRUE);
  g_cancellable_cancel (cancellable);
  cancelled = peer_read (&peer, "notifications/cancelled");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (cancelled, "params"), "requestId"), ==, id);
  g_assert_null (snodo_client_call_tool_finish (client, snodo_test_wait_result (&called), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);
  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"content\":[]}}", id);
  peer_write (&peer, line);
  g_clear_pointer (&line, g_free);

  /* The server's ping is answered. */
  peer_write (&peer, "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}");
  pong = peer_read (&peer, NULL);
  g_assert_cmpstr (json_object_get_string_member (pong, "id"), ==, "s1");
  g_assert_true (json_object_has_member (pong, "result"));

  /* Pages are followed. */
  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &listed);
  page1 = peer_read (&peer, "tools/list");
  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"tools\":[{\"name\":\"a\"}],\"nextCursor\":\"c2\"}}",
                          json_object_get_int_member (page1, "id"));
  peer_write (&peer, line);
  g_clear_pointer (&line, g_free);
  page2 = peer_read (&peer, "tools/list");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (page2, "params"), "cursor"), ==, "c2");
  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":{\"tools\":[{\"name\":\"b\"}]}}",
                          json_object_get_int_member (page2, "id"));
  peer_write (&peer, line);
  g_clear_pointer (&line, g_free);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&listed), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 2);

  /* A line longer than max-line-bytes ends the connection. */
  snodo_client_set_max_line_bytes (client, 64);
  g_signal_connect (client, "closed", G_CALLBACK (oversized_cb), &closed);
  big = g_strnfill (100, 'x');
  peer_write (&peer, big);
  while (!closed)
    g_main_context_iteration (NULL, TRUE);

  snodo_test_close_client (client);
  peer_clear (&peer);
}

/* Whether the process @pid is gone (a zombie counts: it runs no more). */
static gboolean
process_gone (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *stat = NULL;
  const char *end;

  if (kill (pid, 0) != 0 && errno == ESRCH)
    return TRUE;
  /* Without /proc a zombie counts as running. */
  if (!g_file_test ("/proc/self/stat", G_FILE_TEST_EXISTS))
    return FALSE;
  if (!g_file_get_contents (path, &stat, NULL, NULL))
    return TRUE;
  end = strrchr (stat, ')');
  return end != NULL && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
}

static GPid
start_holder (GSubprocess **holder,
              gboolean      connect,
              gboolean      thread,
              const char   *const *server)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *program = g_build_filename (g_getenv ("G_TEST_BUILDDIR"), "snodo-client-holder", NULL);
  g_autoptr(GDataInputStream) in = NULL;

  g_ptr_array_add (argv, program);
  if (connect)
    g_ptr_array_add (argv, (char *) "--connect");
  if (thread)
    g_ptr_array_add (argv, (char *) "--thread");
  g_ptr_array_add (argv, (char *) "--");
  for (guint i = 0; server[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) server[i]);
  g_ptr_array_add (argv, NULL);

  *holder = g_subprocess_newv ((const char * const *) argv->pdata, G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (*holder));
  line = g_data_input_stream_read_line (in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  return (GPid) g_ascii_strtoll (line, NULL, 10);
}

static void
test_orphan (gconstpointer data)
{
  gboolean connect = GPOINTER_TO_INT (data);
  const char *sleeper[] = { "sleep", "600", NULL };
  const char *demo[] = { demo_path (), NULL };
  g_autoptr(GSubprocess) holder = NULL;
  GPid server;
  gint64 killed;
  gint64 gone = 0;

  /* sleep never reads its input: only the parent-death signal ends it. */
  server = start_holder (&holder, connect, FALSE, connect ? demo : sleeper);
  g_assert_cmpint (server, >, 0);
  g_assert_false (process_gone (server));

  killed = g_get_monotonic_time ();
#if !defined(HAVE_PR_SET_PDEATHSIG) && !defined(HAVE_PROCCTL_PDEATHSIG)
  /* Without a parent-death signal (macOS), the documented fallback: a
   * server that reads its input (snodo-demo) sees it end and exits; one
   * that never reads it outlives its client. */
  if (!connect)
    {
      g_subprocess_send_signal (holder, SIGKILL);
      g_assert_true (g_subprocess_wait (holder, NULL, NULL));
      g_usleep (G_USEC_PER_SEC / 2);
      g_assert_false (process_gone (server));
      g_test_message ("without a parent-death signal, a server that never reads its input "
                      "outlives its client, as documented");
      kill (server, SIGKILL);
      return;
    }
#endif
  g_subprocess_send_signal (holder, SIGKILL);
  while (g_get_monotonic_time () - killed < G_USEC_PER_SEC)
    {
      if (process_gone (server))
        {
          gone = g_get_monotonic_time ();
          break;
        }
      g_usleep (1000);
    }
  if (gone == 0)
    kill (server, SIGKILL);
  g_assert_cmpint (gone, !=, 0);
  g_test_message ("the server was gone %.1f ms after its client's process was killed",
                  (gone - killed) / 1000.0);
  g_assert_true (g_subprocess_wait (holder, NULL, NULL));
}

/* The parent-death signal follows the thread that started the server:
 * a client made in a thread that ends loses its server then. */
static void
test_orphan_thread_caveat (void)
{
  const char *sleeper[] = { "sleep", "600", NULL };
  g_autoptr(GSubprocess) holder = NULL;
  GPid server;
  gint64 start = g_get_monotonic_time ();

  server = start_holder (&holder, FALSE, TRUE, sleeper);
#ifndef HAVE_PR_SET_PDEATHSIG
  /* Elsewhere nothing follows the thread: the server lives on as long as
   * its client's process does. */
  g_usleep (G_USEC_PER_SEC / 2);
  g_assert_false (process_gone (server));
  g_test_message ("without Linux's parent-death signal, a server started from a thread that "
                  "ended lives on with its client");
  kill (server, SIGKILL);
  g_subprocess_force_exit (holder);
  g_assert_true (g_subprocess_wait (holder, NULL, NULL));
  return;
#endif
  while (!process_gone (server) && g_get_monotonic_time () - start < 5 * G_USEC_PER_SEC)
    g_usleep (1000);
  g_assert_true (process_gone (server));
  g_test_message ("a server started from a thread that ended was gone after %.1f ms, its client still running",
                  (g_get_monotonic_time () - start) / 1000.0);
  g_subprocess_force_exit (holder);
  g_assert_true (g_subprocess_wait (holder, NULL, NULL));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/snodo/client/demo/auto", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_UNKNOWN), test_demo_version);
  g_test_add_data_func ("/snodo/client/demo/2026-07-28", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2026_07_28), test_demo_version);
  g_test_add_data_func ("/snodo/client/demo/2025-11-25", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_11_25), test_demo_version);
  g_test_add_data_func ("/snodo/client/demo/2025-06-18", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_06_18), test_demo_version);
  g_test_add_func ("/snodo/client/demo/fallback", test_demo_fallback);
  g_test_add_data_func ("/snodo/client/cancel/2026-07-28", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2026_07_28), test_cancel);
  g_test_add_data_func ("/snodo/client/cancel/2025-11-25", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_11_25), test_cancel);
  g_test_add_data_func ("/snodo/client/log/2026-07-28", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2026_07_28), test_log);
  g_test_add_data_func ("/snodo/client/log/2025-11-25", GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_11_25), test_log);
  g_test_add_func ("/snodo/client/request-timeout", test_request_timeout);
  g_test_add_func ("/snodo/client/wire", test_wire);
  g_test_add_func ("/snodo/client/errors", test_errors);
  g_test_add_func ("/snodo/client/server-exits", test_server_exits);
  g_test_add_func ("/snodo/client/close-escalates", test_close_escalates);
  g_test_add_data_func ("/snodo/client/orphan/sigkill", GINT_TO_POINTER (FALSE), test_orphan);
  g_test_add_data_func ("/snodo/client/orphan/sigkill-connected", GINT_TO_POINTER (TRUE), test_orphan);
  g_test_add_func ("/snodo/client/orphan/thread-caveat", test_orphan_thread_caveat);

  return g_test_run ();
}
