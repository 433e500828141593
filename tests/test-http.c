/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>

#include "snodo-error.h"
#include "snodo-executor.h"
#include "snodo-http-listener-private.h"
#include "snodo-http-transport-private.h"
#include "snodo-http-transport.h"
#include "snodo-invocation.h"
#include "snodo-server.h"
#include "snodo-test-util.h"
#include "snodo-tool.h"

#define ENVELOPE "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                 "\"io.modelcontextprotocol/clientCapabilities\":{}}"

typedef struct
{
  SnodoServer        *server;
  SnodoHttpTransport *transport;
  SoupSession        *session;
  char               *uri;
  /* The sleep tool saw its request cancelled. */
  gboolean            sleep_started;
  gboolean            sleep_cancelled;
} Fixture;

typedef struct
{
  guint  status;
  char  *content_type;
  char  *session_id;
  char  *allow;
  char  *body;
} Response;

static void
response_clear (Response *response)
{
  g_clear_pointer (&response->content_type, g_free);
  g_clear_pointer (&response->session_id, g_free);
  g_clear_pointer (&response->allow, g_free);
  g_clear_pointer (&response->body, g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Response, response_clear)

/* ---- Tools ----------------------------------------------------------------- */

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  /* Answering takes the handler's reference. */
  snodo_invocation_return_text (invocation, json_object_get_string_member_with_default (arguments, "text", ""));
}

typedef struct
{
  SnodoInvocation *invocation;
  int              step;
} Progress;

static gboolean
progress_step_cb (gpointer user_data)
{
  Progress *progress = user_data;

  progress->step++;
  snodo_invocation_report_progress (progress->invocation, progress->step, 2, NULL);
  if (progress->step < 2)
    return G_SOURCE_CONTINUE;
  snodo_invocation_return_text (progress->invocation, "done");
  g_free (progress);
  return G_SOURCE_REMOVE;
}

static void
progress_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  Progress *progress = g_new0 (Progress, 1);

  progress->invocation = invocation;
  g_timeout_add (20, progress_step_cb, progress);
}

typedef struct
{
  Fixture         *fixture;
  SnodoInvocation *invocation;
  GSource         *timeout;
  GSource         *cancel;
} Sleep;

static void
sleep_end (Sleep    *sleep,
           gboolean  cancelled)
{
  if (cancelled)
    sleep->fixture->sleep_cancelled = TRUE;
  g_source_destroy (sleep->timeout);
  g_source_unref (sleep->timeout);
  g_source_destroy (sleep->cancel);
  g_source_unref (sleep->cancel);
  snodo_invocation_return_text (sleep->invocation, cancelled ? "cancelled" : "slept");
  g_free (sleep);
}

static gboolean
sleep_timeout_cb (gpointer user_data)
{
  sleep_end (user_data, FALSE);
  return G_SOURCE_REMOVE;
}

static gboolean
sleep_cancelled_cb (GCancellable *cancellable,
                    gpointer      user_data)
{
  sleep_end (user_data, TRUE);
  return G_SOURCE_REMOVE;
}

static void
sleep_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  Sleep *sleep = g_new0 (Sleep, 1);
  gint64 ms = json_object_get_int_member_with_default (snodo_invocation_get_arguments (invocation), "ms", 100);

  gint64 shout = json_object_get_int_member_with_default (snodo_invocation_get_arguments (invocation), "shout", 0);

  if (shout > 0)
    {
      /* One huge progress message first, for a client that does not read. */
      g_autofree char *message = g_malloc (shout + 1);

      memset (message, 'x', shout);
      message[shout] = '\0';
      snodo_invocation_report_progress (invocation, 1, -1, message);
    }

  sleep->fixture = user_data;
  sleep->fixture->sleep_started = TRUE;
  sleep->invocation = invocation;
  sleep->timeout = g_timeout_source_new ((guint) ms);
  g_source_set_callback (sleep->timeout, sleep_timeout_cb, sleep, NULL);
  g_source_attach (sleep->timeout, NULL);
  sleep->cancel = g_cancellable_source_new (snodo_invocation_get_cancellable (invocation));
  g_source_set_callback (sleep->cancel, G_SOURCE_FUNC (sleep_cancelled_cb), sleep, NULL);
  g_source_attach (sleep->cancel, NULL);
}

static void
ask_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = snodo_invocation_request_input_finish (invocation, result, &error);

  if (answer == NULL)
    {
      if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED))
        return;
      snodo_invocation_return_gerror (invocation, error);
      return;
    }
  snodo_invocation_return_text (invocation,
                                json_object_get_string_member_with_default (json_node_get_object (answer),
                                                                            "action", "?"));
}

static void
ask_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  g_autoptr(JsonNode) params = snodo_test_parse ("{\"message\":\"Sure?\",\"requestedSchema\":"
                                                 "{\"type\":\"object\",\"properties\":{}}}");

  snodo_invocation_request_input_async (invocation, "confirm", "elicitation/create", params, NULL,
                                        ask_done_cb, NULL);
}

/* ---- Fixture --------------------------------------------------------------- */

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SnodoTool) echo = snodo_tool_new ("echo", NULL);
  g_autoptr(SnodoTool) progress = snodo_tool_new ("progress", NULL);
  g_autoptr(SnodoTool) sleep = snodo_tool_new ("sleep", NULL);
  g_autoptr(SnodoTool) ask = snodo_tool_new ("ask", NULL);
  g_autoptr(GError) error = NULL;

  fixture->server = snodo_server_new ("test", "1");
  g_assert_true (snodo_server_add_tool (fixture->server, echo, echo_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_tool (fixture->server, progress, progress_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_tool (fixture->server, sleep, sleep_cb, fixture, NULL, NULL));
  g_assert_true (snodo_server_add_tool (fixture->server, ask, ask_cb, NULL, NULL, NULL));

  fixture->transport = snodo_http_transport_new (fixture->server);
  g_assert_true (snodo_http_transport_listen_local (fixture->transport, 0, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (snodo_http_transport_get_port (fixture->transport), >, 0);
  fixture->uri = snodo_http_transport_dup_uri (fixture->transport);
  fixture->session = soup_session_new ();
}

static void
close_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  gboolean *done = user_data;

  g_assert_true (snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL));
  *done = TRUE;
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  gboolean done = FALSE;

  if (fixture->transport != NULL)
    {
      snodo_http_transport_close_async (fixture->transport, NULL, close_cb, &done);
      g_assert_true (snodo_test_wait_for (&done, 10000));
      g_assert_finalize_object (fixture->transport);
    }
  g_clear_object (&fixture->session);
  /* Let the executor let go of finished work. */
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_clear_object (&fixture->server);
  g_clear_pointer (&fixture->uri, g_free);
}

/* ---- Client helpers -------------------------------------------------------- */

static SoupMessage *
new_message (Fixture    *fixture,
             const char *method,
             const char *body,
             ...) G_GNUC_NULL_TERMINATED;

/* A message with the usual POST headers, then name/value pairs (a NULL
 * value removes the header). */
static SoupMessage *
new_message (Fixture    *fixture,
             const char *method,
             const char *body,
             ...)
{
  SoupMessage *msg = soup_message_new (method, fixture->uri);
  SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
  const char *name;
  va_list args;

  if (g_str_equal (method, "POST"))
    soup_message_headers_replace (headers, "Accept", "application/json, text/event-stream");
  if (body != NULL)
    {
      g_autoptr(GBytes) bytes = g_bytes_new (body, strlen (body));

      soup_message_set_request_body_from_bytes (msg, "application/json", bytes);
    }

  va_start (args, body);
  while ((name = va_arg (args, const char *)) != NULL)
    {
      const char *value = va_arg (args, const char *);

      if (value == NULL)
        soup_message_headers_remove (headers, name);
      else
        soup_message_headers_replace (headers, name, value);
    }
  va_end (args);
  return msg;
}

typedef struct
{
  GBytes  *bytes;
  GError  *error;
  gboolean done;
} ReadState;

static void
send_and_read_cb (GObject      *object,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  ReadState *state = user_data;

  state->bytes = soup_session_send_and_read_finish (SOUP_SESSION (object), result, &state->error);
  state->done = TRUE;
}

/* Sends @msg (taking it) and reads the whole response. */
static void
exchange (Fixture     *fixture,
          SoupMessage *msg,
          Response    *response)
{
  g_autoptr(SoupMessage) owned = msg;
  ReadState state = { 0, };
  SoupMessageHeaders *headers;

  soup_session_send_and_read_async (fixture->session, msg, G_PRIORITY_DEFAULT, NULL, send_and_read_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_no_error (state.error);

  headers = soup_message_get_response_headers (msg);
  response->status = soup_message_get_status (msg);
  response->content_type = g_strdup (soup_message_headers_get_content_type (headers, NULL));
  response->session_id = g_strdup (soup_message_headers_get_one (headers, "Mcp-Session-Id"));
  response->allow = g_strdup (soup_message_headers_get_one (headers, "Allow"));
  response->body = g_strndup (g_bytes_get_size (state.bytes) > 0 ? g_bytes_get_data (state.bytes, NULL) : "",
                              g_bytes_get_size (state.bytes));
  g_bytes_unref (state.bytes);
}

/* The JSON body of a response with one message. */
static JsonObject *
response_json (Response *response)
{
  g_autoptr(JsonNode) node = snodo_test_parse (response->body);

  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_object_ref (json_node_get_object (node));
}

static int
error_code (Response *response)
{
  g_autoptr(JsonObject) object = response_json (response);

  g_assert_true (json_object_has_member (object, "error"));
  return (int) json_object_get_int_member (json_object_get_object_member (object, "error"), "code");
}

static void
assert_error (Response   *response,
              guint       status,
              int         code)
{
  g_assert_cmpuint (response->status, ==, status);
  g_assert_cmpstr (response->content_type, ==, "application/json");
  g_assert_cmpint (error_code (response), ==, code);
}

/* The text of the first content item of a tools/call result. */
static char *
result_text (JsonObject *message)
{
  JsonObject *result = json_object_get_object_member (message, "result");
  JsonArray *content = json_object_get_array_member (result, "content");

  return g_strdup (json_object_get_string_member (json_array_get_object_element (content, 0), "text"));
}

static char *
initialize (Fixture *fixture)
{
  g_auto(Response) response = { 0, };

  exchange (fixture,
            new_message (fixture, "POST",
                         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                         "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                         "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                         NULL),
            &response);
  g_assert_cmpuint (response.status, ==, SOUP_STATUS_OK);
  g_assert_cmpstr (response.content_type, ==, "application/json");
  g_assert_nonnull (response.session_id);
  g_assert_cmpuint (strlen (response.session_id), >=, 32);
  for (const char *p = response.session_id; *p; p++)
    g_assert_true (*p >= 0x21 && *p <= 0x7e);
  {
    g_autoptr(JsonObject) message = response_json (&response);
    JsonObject *result = json_object_get_object_member (message, "result");

    g_assert_cmpstr (json_object_get_string_member (result, "protocolVersion"), ==, "2025-11-25");
  }
  return g_steal_pointer (&response.session_id);
}

/* ---- Tests: the initialize era ------------------------------------------- */

static void
test_legacy_session (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_auto(Response) r1 = { 0, };
  g_auto(Response) r2 = { 0, };
  g_auto(Response) r3 = { 0, };
  g_auto(Response) r4 = { 0, };
  g_auto(Response) r5 = { 0, };
  g_auto(Response) r6 = { 0, };
  g_autoptr(JsonObject) message = NULL;
  g_autofree char *text = NULL;

  g_test_summary ("initialize makes a session whose id later requests carry; "
                  "DELETE ends it and later requests get 404");

  session_id = initialize (fixture);

  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                         "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &r1);
  g_assert_cmpuint (r1.status, ==, SOUP_STATUS_ACCEPTED);
  g_assert_cmpstr (r1.body, ==, "");

  exchange (fixture,
            new_message (fixture, "POST",
                         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                         "{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}",
                         "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &r2);
  g_assert_cmpuint (r2.status, ==, SOUP_STATUS_OK);
  g_assert_cmpstr (r2.content_type, ==, "application/json");
  message = response_json (&r2);
  g_assert_cmpint (json_object_get_int_member (message, "id"), ==, 2);
  text = result_text (message);
  g_assert_cmpstr (text, ==, "hello");
  g_assert_false (json_object_has_member (json_object_get_object_member (message, "result"), "resultType"));

  /* No session id: 400; an unsupported version header: 400. */
  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}",
                         "MCP-Protocol-Version", "2025-11-25", NULL),
            &r3);
  g_assert_cmpuint (r3.status, ==, SOUP_STATUS_BAD_REQUEST);
  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}",
                         "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "1999-01-01", NULL),
            &r4);
  g_assert_cmpuint (r4.status, ==, SOUP_STATUS_BAD_REQUEST);

  exchange (fixture, new_message (fixture, "DELETE", NULL, "Mcp-Session-Id", session_id, NULL), &r5);
  g_assert_cmpuint (r5.status, ==, SOUP_STATUS_OK);

  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}",
                         "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &r6);
  g_assert_cmpuint (r6.status, ==, SOUP_STATUS_NOT_FOUND);
}

/* Splits an SSE body into the JSON of its events. */
static GPtrArray *
sse_events (const char *body)
{
  GPtrArray *events = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) lines = g_strsplit (body, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "data: "))
      g_ptr_array_add (events, g_strdup (lines[i] + 6));
  return events;
}

static void
test_legacy_progress (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autofree char *session_id = initialize (fixture);
  g_auto(Response) response = { 0, };
  g_autoptr(GPtrArray) events = NULL;
  g_autoptr(JsonNode) last = NULL;
  g_autofree char *text = NULL;

  g_test_summary ("A request with progress is answered with an event stream: a priming "
                  "event (2025-11-25, resumable), its notifications, then its answer, then the end");

  exchange (fixture,
            new_message (fixture, "POST",
                         "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                         "{\"name\":\"progress\",\"arguments\":{},\"_meta\":{\"progressToken\":\"p\"}}}",
                         "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &response);
  g_assert_cmpuint (response.status, ==, SOUP_STATUS_OK);
  g_assert_cmpstr (response.content_type, ==, "text/event-stream");
  g_assert_nonnull (strstr (response.body, "event: message\n"));

  events = sse_events (response.body);
  g_assert_cmpuint (events->len, ==, 4);
  g_assert_cmpstr (g_ptr_array_index (events, 0), ==, "");
  g_assert_true (g_str_has_prefix (response.body, "id: "));
  g_assert_nonnull (strstr (g_ptr_array_index (events, 1), "notifications/progress"));
  g_assert_nonnull (strstr (g_ptr_array_index (events, 2), "notifications/progress"));
  last = snodo_test_parse (g_ptr_array_index (events, 3));
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (last), "id"), ==, 7);
  text = result_text (json_node_get_object (last));
  g_assert_cmpstr (text, ==, "done");
}

/* ---- Tests: 2026-07-28 ---------------------------------------------------- */

static void
test_modern_tools (Fixture       *fixture,
                   gconstpointer  data)
{
  g_auto(Response) r1 = { 0, };
  g_auto(Response) r2 = { 0, };
  g_auto(Response) r3 = { 0, };
  g_autoptr(JsonObject) list = NULL;
  g_autoptr(JsonObject) call = NULL;
  g_autoptr(JsonObject) call2 = NULL;
  g_autofree char *text = NULL;
  g_autofree char *text2 = NULL;

  g_test_summary ("2026-07-28 requests are served statelessly, with the standard headers");

  exchange (fixture,
            new_message (fixture, "POST",
                         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}",
                         "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list", NULL),
            &r1);
  g_assert_cmpuint (r1.status, ==, SOUP_STATUS_OK);
  g_assert_cmpstr (r1.content_type, ==, "application/json");
  g_assert_null (r1.session_id);
  list = response_json (&r1);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (list, "result"), "resultType"),
                   ==, "complete");

  exchange (fixture,
            new_message (fixture, "POST",
                         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                         "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}," ENVELOPE "}}",
                         "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "echo", NULL),
            &r2);
  g_assert_cmpuint (r2.status, ==, SOUP_STATUS_OK);
  call = response_json (&r2);
  text = result_text (call);
  g_assert_cmpstr (text, ==, "hi");

  /* The name in the base64 form. */
  exchange (fixture,
            new_message (fixture, "POST",
                         "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                         "{\"name\":\"echo\",\"arguments\":{\"text\":\"b64\"}," ENVELOPE "}}",
                         "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call",
                         "Mcp-Name", "=?base64?ZWNobw==?=", NULL),
            &r3);
  g_assert_cmpuint (r3.status, ==, SOUP_STATUS_OK);
  call2 = response_json (&r3);
  text2 = result_text (call2);
  g_assert_cmpstr (text2, ==, "b64");
}

static void
test_modern_headers (Fixture       *fixture,
                     gconstpointer  data)
{
  const char *v999 = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\",\"params\":{\"_meta\":"
                     "{\"io.modelcontextprotocol/protocolVersion\":\"v999.0.0\","
                     "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  const char *call = "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"echo\",\"arguments\":{}," ENVELOPE "}}";
  g_auto(Response) r1 = { 0, };
  g_auto(Response) r2 = { 0, };
  g_auto(Response) r3 = { 0, };
  g_auto(Response) r4 = { 0, };
  g_auto(Response) r5 = { 0, };
  g_auto(Response) r6 = { 0, };
  g_autoptr(JsonObject) object = NULL;

  g_test_summary ("Header/body disagreement is -32020 (before version support, -32022), HTTP 400");

  exchange (fixture, new_message (fixture, "POST", v999, "MCP-Protocol-Version", "2026-07-28",
                                  "Mcp-Method", "tools/list", NULL), &r1);
  assert_error (&r1, SOUP_STATUS_BAD_REQUEST, -32020);
  object = response_json (&r1);
  g_assert_cmpint (json_object_get_int_member (object, "id"), ==, 5);

  exchange (fixture, new_message (fixture, "POST", v999, "MCP-Protocol-Version", "v999.0.0",
                                  "Mcp-Method", "tools/list", NULL), &r2);
  assert_error (&r2, SOUP_STATUS_BAD_REQUEST, -32022);

  /* Missing version header, missing or wrong Mcp-Method, wrong Mcp-Name. */
  exchange (fixture, new_message (fixture, "POST", call, "Mcp-Method", "tools/call", "Mcp-Name", "echo", NULL), &r3);
  assert_error (&r3, SOUP_STATUS_BAD_REQUEST, -32020);
  exchange (fixture, new_message (fixture, "POST", call, "MCP-Protocol-Version", "2026-07-28",
                                  "Mcp-Name", "echo", NULL), &r4);
  assert_error (&r4, SOUP_STATUS_BAD_REQUEST, -32020);
  exchange (fixture, new_message (fixture, "POST", call, "MCP-Protocol-Version", "2026-07-28",
                                  "Mcp-Method", "tools/list", "Mcp-Name", "echo", NULL), &r5);
  assert_error (&r5, SOUP_STATUS_BAD_REQUEST, -32020);
  exchange (fixture, new_message (fixture, "POST", call, "MCP-Protocol-Version", "2026-07-28",
                                  "Mcp-Method", "tools/call", "Mcp-Name", "other", NULL), &r6);
  assert_error (&r6, SOUP_STATUS_BAD_REQUEST, -32020);

  /* A header given twice: a proxy reading the first copy and the server
   * the last would see different requests. */
  {
    const char *repeated[] = { "Mcp-Name", "Mcp-Method", "MCP-Protocol-Version" };
    const char *first[] = { "other", "tools/list", "2025-11-25" };

    for (guint i = 0; i < G_N_ELEMENTS (repeated); i++)
      {
        g_auto(Response) r = { 0, };
        SoupMessage *msg = new_message (fixture, "POST", call, "MCP-Protocol-Version", "2026-07-28",
                                        "Mcp-Method", "tools/call", "Mcp-Name", "echo", NULL);
        SoupMessageHeaders *headers = soup_message_get_request_headers (msg);
        g_autofree char *last = g_strdup (soup_message_headers_get_one (headers, repeated[i]));

        /* The first copy differs; the last is the right one. */
        soup_message_headers_remove (headers, repeated[i]);
        soup_message_headers_append (headers, repeated[i], first[i]);
        soup_message_headers_append (headers, repeated[i], last);
        exchange (fixture, msg, &r);
        g_test_message ("%s twice: %u", repeated[i], r.status);
        assert_error (&r, SOUP_STATUS_BAD_REQUEST, -32020);
      }
  }

  /* An initialize (no envelope) under a 2026-07-28 header contradicts it. */
  {
    const char *init = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"initialize\",\"params\":"
                       "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                       "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    g_auto(Response) r7 = { 0, };

    exchange (fixture, new_message (fixture, "POST", init, "MCP-Protocol-Version", "2026-07-28",
                                    "Mcp-Method", "initialize", NULL), &r7);
    assert_error (&r7, SOUP_STATUS_BAD_REQUEST, -32020);
  }
}

static void
test_modern_status (Fixture       *fixture,
                    gconstpointer  data)
{
  g_auto(Response) r1 = { 0, };
  g_auto(Response) r2 = { 0, };
  g_auto(Response) r3 = { 0, };
  g_auto(Response) r4 = { 0, };
  g_auto(Response) r5 = { 0, };

  g_test_summary ("-32601 is 404, GET and DELETE are 405, notifications 202, bad _meta 400");

  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{" ENVELOPE "}}",
                         "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "ping", NULL),
            &r1);
  assert_error (&r1, SOUP_STATUS_NOT_FOUND, -32601);

  exchange (fixture, new_message (fixture, "GET", NULL, "Accept", "text/event-stream",
                                  "MCP-Protocol-Version", "2026-07-28", NULL), &r2);
  g_assert_cmpuint (r2.status, ==, SOUP_STATUS_METHOD_NOT_ALLOWED);
  g_assert_cmpstr (r2.allow, ==, "POST");

  exchange (fixture, new_message (fixture, "DELETE", NULL, "MCP-Protocol-Version", "2026-07-28", NULL), &r3);
  g_assert_cmpuint (r3.status, ==, SOUP_STATUS_METHOD_NOT_ALLOWED);

  exchange (fixture,
            new_message (fixture, "POST",
                         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{" ENVELOPE "}}",
                         "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "notifications/progress", NULL),
            &r4);
  g_assert_cmpuint (r4.status, ==, SOUP_STATUS_ACCEPTED);

  /* A claim by header only: the body lacks its envelope. */
  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}",
                         "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list", NULL),
            &r5);
  assert_error (&r5, SOUP_STATUS_BAD_REQUEST, -32602);
}

static void
test_checks (Fixture       *fixture,
             gconstpointer  data)
{
  const char *list = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" ENVELOPE "}}";
  g_autoptr(GString) big = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"pad\":\"");
  g_auto(Response) r1 = { 0, };
  g_auto(Response) r2 = { 0, };
  g_auto(Response) r3 = { 0, };
  g_auto(Response) r4 = { 0, };
  g_auto(Response) r5 = { 0, };
  g_auto(Response) r6 = { 0, };
  g_auto(Response) r7 = { 0, };
  g_auto(Response) r8 = { 0, };
  g_auto(Response) r9 = { 0, };
  g_auto(Response) r10 = { 0, };
  g_auto(Response) r11 = { 0, };
  SoupMessage *msg;

  g_test_summary ("Origin, Host, Accept, Content-Type, size, parse errors and batches");

  exchange (fixture, new_message (fixture, "POST", list, "MCP-Protocol-Version", "2026-07-28",
                                  "Mcp-Method", "tools/list", "Origin", "https://evil.example", NULL), &r1);
  g_assert_cmpuint (r1.status, ==, SOUP_STATUS_FORBIDDEN);
  exchange (fixture, new_message (fixture, "POST", list, "MCP-Protocol-Version", "2026-07-28",
                                  "Mcp-Method", "tools/list", "Origin", "http://localhost:3000", NULL), &r2);
  g_assert_cmpuint (r2.status, ==, SOUP_STATUS_OK);
  exchange (fixture, new_message (fixture, "POST", list, "MCP-Protocol-Version", "2026-07-28",
                                  "Mcp-Method", "tools/list", "Host", "evil.example", NULL), &r3);
  g_assert_cmpuint (r3.status, >=, 400);
  g_assert_cmpuint (r3.status, <, 500);

  exchange (fixture, new_message (fixture, "POST", list, "Accept", "application/json", NULL), &r4);
  g_assert_cmpuint (r4.status, ==, SOUP_STATUS_NOT_ACCEPTABLE);

  msg = new_message (fixture, "POST", NULL, NULL);
  {
    g_autoptr(GBytes) bytes = g_bytes_new_static (list, strlen (list));

    soup_message_set_request_body_from_bytes (msg, "text/plain", bytes);
  }
  exchange (fixture, msg, &r5);
  g_assert_cmpuint (r5.status, ==, SOUP_STATUS_UNSUPPORTED_MEDIA_TYPE);

  snodo_http_transport_set_max_body_bytes (fixture->transport, 1000);
  for (int i = 0; i < 2000; i++)
    g_string_append_c (big, 'x');
  g_string_append (big, "\"}}");
  exchange (fixture, new_message (fixture, "POST", big->str, NULL), &r6);
  g_assert_cmpuint (r6.status, ==, SOUP_STATUS_REQUEST_ENTITY_TOO_LARGE);
  snodo_http_transport_set_max_body_bytes (fixture->transport, 2000000);

  exchange (fixture, new_message (fixture, "POST", "{\"jsonrpc\":", NULL), &r7);
  assert_error (&r7, SOUP_STATUS_BAD_REQUEST, -32700);
  exchange (fixture, new_message (fixture, "POST", "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", NULL), &r8);
  assert_error (&r8, SOUP_STATUS_BAD_REQUEST, -32600);

  exchange (fixture, new_message (fixture, "POST", list, NULL), &r9);
  g_assert_cmpuint (r9.status, ==, SOUP_STATUS_BAD_REQUEST);

  /* An id but no method, result or error: no request, answered with id
   * null (its id may be that of a request of the client's in progress). */
  exchange (fixture, new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"id\":1}", NULL), &r10);
  assert_error (&r10, SOUP_STATUS_BAD_REQUEST, -32600);
  exchange (fixture, new_message (fixture, "POST", "{\"id\":1}", NULL), &r11);
  assert_error (&r11, SOUP_STATUS_BAD_REQUEST, -32600);
  {
    g_autoptr(JsonObject) a = response_json (&r10);
    g_autoptr(JsonObject) b = response_json (&r11);

    g_assert_true (json_object_has_member (a, "id") && json_object_get_null_member (a, "id"));
    g_assert_true (json_object_has_member (b, "id") && json_object_get_null_member (b, "id"));
  }
}

/* ---- Streams ------------------------------------------------------------- */

typedef struct
{
  GInputStream     *stream;
  GDataInputStream *data;
  GError           *error;
  char             *line;
  gboolean          done;
} StreamState;

static void
send_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  StreamState *state = user_data;

  state->stream = soup_session_send_finish (SOUP_SESSION (object), result, &state->error);
  state->done = TRUE;
}

static void
read_line_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  StreamState *state = user_data;

  state->line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (object), result, NULL, &state->error);
  state->done = TRUE;
}

/* The JSON of the next event of the stream, or NULL at its end. Events
 * with empty data (priming events) are not messages: skipped, as SSE
 * clients do. */
static char *
next_event (StreamState *state)
{
  for (;;)
    {
      char *line;

      state->done = FALSE;
      g_data_input_stream_read_line_async (state->data, G_PRIORITY_DEFAULT, NULL, read_line_cb, state);
      g_assert_true (snodo_test_wait_for (&state->done, 10000));
      g_assert_no_error (state->error);
      line = g_steal_pointer (&state->line);
      if (line == NULL)
        return NULL;
      if (g_str_has_prefix (line, "data: ") && line[6] != '\0')
        {
          char *json = g_strdup (line + 6);

          g_free (line);
          return json;
        }
      g_free (line);
    }
}

static void
open_stream (Fixture     *fixture,
             SoupMessage *msg,
             StreamState *state)
{
  soup_session_send_async (fixture->session, msg, G_PRIORITY_DEFAULT, NULL, send_cb, state);
  g_assert_true (snodo_test_wait_for (&state->done, 10000));
  g_assert_no_error (state->error);
  g_assert_cmpuint (soup_message_get_status (msg), ==, SOUP_STATUS_OK);
  g_assert_cmpstr (soup_message_headers_get_content_type (soup_message_get_response_headers (msg), NULL),
                   ==, "text/event-stream");
  g_assert_cmpstr (soup_message_headers_get_one (soup_message_get_response_headers (msg), "X-Accel-Buffering"),
                   ==, "no");
  state->data = g_data_input_stream_new (state->stream);
}

static void
stream_state_clear (StreamState *state)
{
  g_clear_object (&state->data);
  g_clear_object (&state->stream);
  g_clear_error (&state->error);
}

static void
test_modern_listen (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(SoupMessage) msg = NULL;
  StreamState state = { 0, };
  g_autofree char *ack = NULL;
  g_autofree char *change = NULL;
  g_autofree char *end = NULL;
  g_autoptr(SnodoTool) tool = snodo_tool_new ("late", NULL);
  gboolean closed = FALSE;

  g_test_summary ("subscriptions/listen is a stream: the acknowledgement, then the "
                  "changes asked for; closing the transport ends it with its result");

  msg = new_message (fixture, "POST",
                     "{\"jsonrpc\":\"2.0\",\"id\":\"sub\",\"method\":\"subscriptions/listen\",\"params\":"
                     "{\"notifications\":{\"toolsListChanged\":true}," ENVELOPE "}}",
                     "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen", NULL);
  open_stream (fixture, msg, &state);

  ack = next_event (&state);
  g_assert_nonnull (strstr (ack, "notifications/subscriptions/acknowledged"));

  g_assert_true (snodo_server_add_tool (fixture->server, tool, echo_cb, NULL, NULL, NULL));
  change = next_event (&state);
  g_assert_nonnull (strstr (change, "notifications/tools/list_changed"));
  g_assert_nonnull (strstr (change, "\"io.modelcontextprotocol/subscriptionId\":\"sub\""));

  /* A graceful close answers the subscription, which ends the stream. */
  snodo_http_transport_close_async (fixture->transport, NULL, close_cb, &closed);
  end = next_event (&state);
  g_assert_nonnull (end);
  g_assert_nonnull (strstr (end, "\"id\":\"sub\""));
  g_assert_nonnull (strstr (end, "\"result\""));
  g_assert_true (snodo_test_wait_for (&closed, 10000));
  g_assert_null (next_event (&state));
  stream_state_clear (&state);
}

static void
test_modern_cancel_on_close (Fixture       *fixture,
                             gconstpointer  data)
{
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  StreamState state = { 0, };

  g_test_summary ("A 2026-07-28 client that goes away cancels its request");

  msg = new_message (fixture, "POST",
                     "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"sleep\",\"arguments\":{\"ms\":20000}," ENVELOPE "}}",
                     "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "sleep", NULL);
  soup_session_send_async (fixture->session, msg, G_PRIORITY_DEFAULT, cancellable, send_cb, &state);
  g_assert_true (snodo_test_wait_for (&fixture->sleep_started, 10000));
  g_cancellable_cancel (cancellable);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_error (state.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_true (snodo_test_wait_for (&fixture->sleep_cancelled, 5000));
  stream_state_clear (&state);
}

static void
test_legacy_stream (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autofree char *session_id = initialize (fixture);
  g_autoptr(SoupMessage) msg = NULL;
  g_autoptr(SnodoTool) tool = snodo_tool_new ("late", NULL);
  StreamState state = { 0, };
  g_autofree char *change = NULL;
  g_auto(Response) r1 = { 0, };
  g_auto(Response) r2 = { 0, };

  g_test_summary ("A session's GET stream carries announcements; DELETE ends it");

  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                         "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &r1);
  g_assert_cmpuint (r1.status, ==, SOUP_STATUS_ACCEPTED);

  msg = new_message (fixture, "GET", NULL, "Accept", "text/event-stream", "Mcp-Session-Id", session_id,
                     "MCP-Protocol-Version", "2025-11-25", NULL);
  open_stream (fixture, msg, &state);

  g_assert_true (snodo_server_add_tool (fixture->server, tool, echo_cb, NULL, NULL, NULL));
  change = next_event (&state);
  g_assert_nonnull (strstr (change, "notifications/tools/list_changed"));

  exchange (fixture, new_message (fixture, "DELETE", NULL, "Mcp-Session-Id", session_id, NULL), &r2);
  g_assert_cmpuint (r2.status, ==, SOUP_STATUS_OK);
  g_assert_null (next_event (&state));
  stream_state_clear (&state);
}

static void
test_legacy_elicitation (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autoptr(SoupMessage) msg = NULL;
  StreamState state = { 0, };
  g_autofree char *request = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *reply = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) request_node = NULL;
  g_autoptr(JsonNode) answer_node = NULL;
  g_auto(Response) r1 = { 0, };
  g_auto(Response) r2 = { 0, };
  g_autoptr(GString) id = g_string_new (NULL);
  JsonObject *request_object;

  g_test_summary ("A request the server makes of a 2025 client goes on the stream of the "
                  "POST it belongs to; the client POSTs its answer (202) and the result follows");

  {
    g_auto(Response) response = { 0, };

    exchange (fixture,
              new_message (fixture, "POST",
                           "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                           "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}",
                           NULL),
              &response);
    g_assert_cmpuint (response.status, ==, SOUP_STATUS_OK);
    session_id = g_steal_pointer (&response.session_id);
  }
  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                         "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &r1);
  g_assert_cmpuint (r1.status, ==, SOUP_STATUS_ACCEPTED);

  msg = new_message (fixture, "POST",
                     "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\"}}",
                     "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL);
  open_stream (fixture, msg, &state);

  request = next_event (&state);
  request_node = snodo_test_parse (request);
  request_object = json_node_get_object (request_node);
  g_assert_cmpstr (json_object_get_string_member (request_object, "method"), ==, "elicitation/create");
  g_string_append_printf (id, "%" G_GINT64_FORMAT, json_object_get_int_member (request_object, "id"));

  reply = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"action\":\"accept\",\"content\":{}}}", id->str);
  exchange (fixture,
            new_message (fixture, "POST", reply, "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &r2);
  g_assert_cmpuint (r2.status, ==, SOUP_STATUS_ACCEPTED);

  answer = next_event (&state);
  answer_node = snodo_test_parse (answer);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (answer_node), "id"), ==, 2);
  text = result_text (json_node_get_object (answer_node));
  g_assert_cmpstr (text, ==, "accept");
  g_assert_null (next_event (&state));
  stream_state_clear (&state);
}

static gboolean
executor_idle (gpointer data)
{
  return snodo_executor_get_n_running (data) == 0;
}

static gboolean
executor_busy (gpointer data)
{
  return snodo_executor_get_n_running (data) > 0;
}

static gboolean
wait_until (gboolean (*predicate) (gpointer),
            gpointer   data,
            guint      timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (!predicate (data))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return TRUE;
}

static void
test_modern_stuck_client (Fixture       *fixture,
                          gconstpointer  data)
{
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":"
                     "{\"notifications\":{\"toolsListChanged\":true}," ENVELOPE "}}";
  /* subscriptions/listen runs on the transport's stream executor. */
  SnodoExecutor *executor = snodo_http_transport_get_stream_executor (fixture->transport);
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = NULL;
  g_autofree char *request = NULL;
  g_autoptr(GError) error = NULL;
  gboolean closed = FALSE;
  gint64 start;

  g_test_summary ("A client that stops reading its stream loses it within write-timeout "
                  "(or once its queue is full); the server goes on and closes promptly");

  snodo_http_transport_set_write_timeout (fixture->transport, 200);

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_socket_set_option (socket, SOL_SOCKET, SO_RCVBUF, 2048, NULL);
  address = g_inet_socket_address_new (loopback, snodo_http_transport_get_port (fixture->transport));
  g_assert_true (g_socket_connect (socket, address, NULL, &error));
  request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Accept: application/json, text/event-stream\r\n"
                             "Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                             "Mcp-Method: subscriptions/listen\r\nContent-Length: %zu\r\n\r\n%s",
                             strlen (body), body);
  g_assert_cmpint (g_socket_send (socket, request, strlen (request), NULL, &error), ==, (gssize) strlen (request));

  /* The subscription is live; the client never reads. */
  g_assert_true (wait_until (G_SOURCE_FUNC (executor_busy), executor, 5000));
  for (int i = 0; i < 20000 && snodo_executor_get_n_running (executor) > 0; i++)
    {
      snodo_server_notify_tools_changed (fixture->server);
      g_main_context_iteration (NULL, FALSE);
    }
  g_assert_true (wait_until (G_SOURCE_FUNC (executor_idle), executor, 5000));

  start = g_get_monotonic_time ();
  snodo_http_transport_close_async (fixture->transport, NULL, close_cb, &closed);
  g_assert_true (snodo_test_wait_for (&closed, 5000));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 2 * G_USEC_PER_SEC);
}

static void
test_modern_write_timeout (Fixture       *fixture,
                           gconstpointer  data)
{
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"sleep\",\"arguments\":{\"ms\":20000,\"shout\":8000000},"
                     "\"_meta\":{\"progressToken\":1,\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                     "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = NULL;
  g_autofree char *request = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start;

  g_test_summary ("A message a client does not take within write-timeout ends its stream "
                  "and cancels its request");

  snodo_http_transport_set_write_timeout (fixture->transport, 300);

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_socket_set_option (socket, SOL_SOCKET, SO_RCVBUF, 2048, NULL);
  address = g_inet_socket_address_new (loopback, snodo_http_transport_get_port (fixture->transport));
  g_assert_true (g_socket_connect (socket, address, NULL, &error));
  request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                             "Accept: application/json, text/event-stream\r\n"
                             "Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                             "Mcp-Method: tools/call\r\nMcp-Name: sleep\r\nContent-Length: %zu\r\n\r\n%s",
                             strlen (body), body);
  g_assert_cmpint (g_socket_send (socket, request, strlen (request), NULL, &error), ==, (gssize) strlen (request));

  g_assert_true (snodo_test_wait_for (&fixture->sleep_started, 5000));
  start = g_get_monotonic_time ();
  g_assert_true (snodo_test_wait_for (&fixture->sleep_cancelled, 5000));
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 250 * G_TIME_SPAN_MILLISECOND);
}

static void
test_modern_param_headers (Fixture       *fixture,
                           gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("route", NULL);
  g_autoptr(GError) error = NULL;
  const char *call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                     "{\"name\":\"route\",\"arguments\":{\"text\":\"h\u00e9\",\"region\":\"eu\",\"n\":42,\"flag\":true},"
                     ENVELOPE "}}";
  struct {
    const char *region, *n, *flag;
    guint status;
  } cases[] = {
    { "eu", "42", "true", SOUP_STATUS_OK },
    { "=?base64?ZXU=?=", "42.0", "true", SOUP_STATUS_OK },
    { NULL, "42", "true", SOUP_STATUS_BAD_REQUEST },
    { "us", "42", "true", SOUP_STATUS_BAD_REQUEST },
    { "eu", "43", "true", SOUP_STATUS_BAD_REQUEST },
    { "eu", "42", "false", SOUP_STATUS_BAD_REQUEST },
    { "e\x01u", "42", "true", SOUP_STATUS_BAD_REQUEST },
  };

  g_test_summary ("Arguments marked x-mcp-header must agree with their Mcp-Param-* headers");

  g_assert_true (snodo_tool_set_input_schema_from_string (tool,
      "{\"type\":\"object\",\"properties\":{"
      "\"text\":{\"type\":\"string\"},"
      "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
      "\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"},"
      "\"flag\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"},"
      "\"absent\":{\"type\":\"string\",\"x-mcp-header\":\"Absent\"}}}", &error));
  g_assert_no_error (error);
  g_assert_true (snodo_server_add_tool (fixture->server, tool, echo_cb, NULL, NULL, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(Response) response = { 0, };
      SoupMessage *msg = new_message (fixture, "POST", call, "MCP-Protocol-Version", "2026-07-28",
                                      "Mcp-Method", "tools/call", "Mcp-Name", "route",
                                      "Mcp-Param-N", cases[i].n, "Mcp-Param-Flag", cases[i].flag, NULL);

      if (cases[i].region != NULL)
        soup_message_headers_replace (soup_message_get_request_headers (msg), "Mcp-Param-Region", cases[i].region);
      exchange (fixture, msg, &response);
      g_assert_cmpuint (response.status, ==, cases[i].status);
      if (cases[i].status != SOUP_STATUS_OK)
        g_assert_cmpint (error_code (&response), ==, -32020);
    }

  /* A header for an argument that is not there. */
  {
    g_auto(Response) response = { 0, };

    exchange (fixture,
              new_message (fixture, "POST", call, "MCP-Protocol-Version", "2026-07-28",
                           "Mcp-Method", "tools/call", "Mcp-Name", "route", "Mcp-Param-Region", "eu",
                           "Mcp-Param-N", "42", "Mcp-Param-Flag", "true", "Mcp-Param-Absent", "x", NULL),
              &response);
    assert_error (&response, SOUP_STATUS_BAD_REQUEST, -32020);
  }
}

static void
test_dispose_busy (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(SoupMessage) listen = NULL;
  g_autoptr(SoupMessage) call = NULL;
  StreamState listen_state = { 0, };
  StreamState call_state = { 0, };
  g_autofree char *ack = NULL;
  gint64 deadline;

  g_test_summary ("Disposing a listening transport while streams and requests are live "
                  "ends them without calling back into the finalized transport");

  listen = new_message (fixture, "POST",
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":"
                        "{\"notifications\":{\"toolsListChanged\":true}," ENVELOPE "}}",
                        "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen", NULL);
  open_stream (fixture, listen, &listen_state);
  ack = next_event (&listen_state);
  g_assert_nonnull (ack);

  call = new_message (fixture, "POST",
                      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                      "{\"name\":\"sleep\",\"arguments\":{\"ms\":20000}," ENVELOPE "}}",
                      "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "sleep", NULL);
  soup_session_send_async (fixture->session, call, G_PRIORITY_DEFAULT, NULL, send_cb, &call_state);
  g_assert_true (snodo_test_wait_for (&fixture->sleep_started, 10000));

  /* A listening transport holds itself: only disposing it ends it. */
  g_object_run_dispose (G_OBJECT (fixture->transport));
  g_assert_finalize_object (g_steal_pointer (&fixture->transport));
  g_assert_true (snodo_test_wait_for (&fixture->sleep_cancelled, 5000));

  /* Both clients see their exchange end one way or another. */
  deadline = g_get_monotonic_time () + 2 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  stream_state_clear (&listen_state);
  stream_state_clear (&call_state);
}

typedef struct
{
  Fixture    *fixture;
  /* The transport's SoupServer, seen in its request-finished (weak). */
  SoupServer *soup;
  /* The close callback ran inside an emission of the SoupServer. */
  gboolean    inside_emission;
  gboolean    done;
} CloseState;

static gboolean
find_soup_server_hook (GSignalInvocationHint *hint,
                       guint                  n_values,
                       const GValue          *values,
                       gpointer               user_data)
{
  CloseState *state = user_data;

  if (state->soup == NULL)
    {
      state->soup = g_value_get_object (&values[0]);
      g_object_add_weak_pointer (G_OBJECT (state->soup), (gpointer *) &state->soup);
    }
  return TRUE;
}

static void
close_drop_transport_cb (GObject      *object,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  CloseState *state = user_data;

  g_assert_true (snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL));
  state->inside_emission = state->soup != NULL && g_signal_get_invocation_hint (state->soup) != NULL;
  /* What an application may do: let go of the transport right here. */
  g_clear_object (&state->fixture->transport);
  state->done = TRUE;
}

static void
test_close_drop_in_callback (Fixture       *fixture,
                             gconstpointer  data)
{
  guint signal_id = g_signal_lookup ("request-finished", SOUP_TYPE_SERVER);
  g_autoptr(SoupMessage) listen = NULL;
  StreamState listen_state = { 0, };
  CloseState state = { fixture, };
  g_autofree char *ack = NULL;
  g_autofree char *answer = NULL;
  gulong hook_id;
  gint64 deadline;

  g_test_summary ("A close callback that drops the last reference to the transport, when "
                  "closing ends a stream, runs outside libsoup's emissions, and the transport "
                  "and its SoupServer go away once libsoup is done");

  hook_id = g_signal_add_emission_hook (signal_id, 0, find_soup_server_hook, &state, NULL);
  listen = new_message (fixture, "POST",
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":"
                        "{\"notifications\":{\"toolsListChanged\":true}," ENVELOPE "}}",
                        "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "subscriptions/listen", NULL);
  open_stream (fixture, listen, &listen_state);
  ack = next_event (&listen_state);
  g_assert_nonnull (ack);

  /* Closing answers the subscription, which ends its stream: the close
   * completes once libsoup has finished that message. */
  snodo_http_transport_close_async (fixture->transport, NULL, close_drop_transport_cb, &state);
  g_assert_true (snodo_test_wait_for (&state.done, 10000));
  g_assert_null (fixture->transport);
  g_assert_false (state.inside_emission);

  answer = next_event (&listen_state);
  g_assert_nonnull (answer);
  g_assert_nonnull (strstr (answer, "\"result\""));

  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (state.soup != NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
  g_assert_null (state.soup);

  g_signal_remove_emission_hook (signal_id, hook_id);
  stream_state_clear (&listen_state);
}

static void
test_legacy_idle_session (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *busy_id = NULL;
  g_auto(Response) r1 = { 0, };
  g_auto(Response) r2 = { 0, };
  g_autoptr(SoupMessage) msg = NULL;
  StreamState state = { 0, };
  gint64 deadline;

  g_test_summary ("A session with no request for session-idle-timeout seconds ends (404 after); "
                  "one with a stream open does not");

  snodo_http_transport_set_session_idle_timeout (fixture->transport, 1);
  session_id = initialize (fixture);
  busy_id = initialize (fixture);
  msg = new_message (fixture, "GET", NULL, "Accept", "text/event-stream", "Mcp-Session-Id", busy_id,
                     "MCP-Protocol-Version", "2025-11-25", NULL);
  open_stream (fixture, msg, &state);

  deadline = g_get_monotonic_time () + 2200 * G_TIME_SPAN_MILLISECOND;
  while (g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }

  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}",
                         "Mcp-Session-Id", session_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &r1);
  g_assert_cmpuint (r1.status, ==, SOUP_STATUS_NOT_FOUND);
  exchange (fixture,
            new_message (fixture, "POST", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}",
                         "Mcp-Session-Id", busy_id, "MCP-Protocol-Version", "2025-11-25", NULL),
            &r2);
  g_assert_cmpuint (r2.status, ==, SOUP_STATUS_OK);

  /* The teardown's close ends the open stream. */
  stream_state_clear (&state);
}


/* ---- Kept-alive connections, raw ------------------------------------------- */

/* A plain TCP client socket on the transport, non-blocking. */
static GSocket *
raw_connect (Fixture *fixture)
{
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string (
    "127.0.0.1", snodo_http_transport_get_port (fixture->transport));
  g_autoptr(GError) error = NULL;
  GSocket *socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);

  g_assert_no_error (error);
  g_assert_true (g_socket_connect (socket, address, NULL, &error));
  g_assert_no_error (error);
  g_socket_set_blocking (socket, FALSE);
  return socket;
}

/* Sends one 2026-07-28 tools/call of @tool with @arguments. */
static void
raw_send_call (GSocket    *socket,
               guint16     port,
               const char *tool,
               const char *arguments)
{
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                                           "{\"name\":\"%s\",\"arguments\":%s," ENVELOPE "}}", tool, arguments);
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n"
                                              "MCP-Protocol-Version: 2026-07-28\r\n"
                                              "Mcp-Method: tools/call\r\nMcp-Name: %s\r\n"
                                              "Content-Length: %zu\r\n\r\n%s",
                                              port, tool, strlen (body), body);
  g_autoptr(GError) error = NULL;

  /* A small request always fits in the socket's buffer. */
  g_assert_cmpint (g_socket_send (socket, request, strlen (request), NULL, &error), ==, (gssize) strlen (request));
  g_assert_no_error (error);
}

/* Runs the main context until one whole response with a Content-Length
 * has come, and returns it; NULL if the connection ended first. */
static char *
raw_receive (GSocket *socket,
             guint    timeout_ms)
{
  g_autoptr(GString) in = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < deadline)
    {
      char buf[4096];
      const char *end;
      gssize n;

      g_main_context_iteration (NULL, FALSE);
      n = g_socket_receive (socket, buf, sizeof buf, NULL, NULL);
      if (n == 0)
        return NULL;
      if (n < 0)
        {
          if (g_socket_condition_check (socket, G_IO_HUP | G_IO_ERR))
            return NULL;
          g_usleep (500);
          continue;
        }
      g_string_append_len (in, buf, n);
      end = strstr (in->str, "\r\n\r\n");
      if (end != NULL)
        {
          const char *length = strstr (in->str, "Content-Length: ");

          g_assert_nonnull (length);
          if (in->len >= (gsize) (end + 4 - in->str) + g_ascii_strtoull (length + 16, NULL, 10))
            return g_string_free (g_steal_pointer (&in), FALSE);
        }
    }
  g_assert_not_reached ();
}

/* Runs the main context until the server has closed @socket. */
static gboolean
raw_wait_closed (GSocket *socket,
                 guint    timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < deadline)
    {
      char buf[256];
      g_autoptr(GError) error = NULL;
      gssize n;

      g_main_context_iteration (NULL, FALSE);
      n = g_socket_receive (socket, buf, sizeof buf, NULL, &error);
      if (n == 0 || (n < 0 && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK)))
        return TRUE;
      g_usleep (1000);
    }
  return FALSE;
}

/* Runs the main context until the transport has @n connections open. */
static gboolean
wait_for_connections (Fixture *fixture,
                      guint    n,
                      guint    timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (snodo_http_transport_get_n_connections (fixture->transport) != n)
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (500);
    }
  return TRUE;
}

/* How many sockets on the transport's port are in CLOSE_WAIT (Linux), or
 * -1 where that cannot be told. */
static int
count_close_wait (guint16 port)
{
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  g_autofree char *suffix = g_strdup_printf (":%04X", port);
  int count = 0;

  if (!g_file_get_contents ("/proc/net/tcp", &contents, NULL, NULL))
    return -1;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      char local[64], remote[64], state[8];

      /* "sl local_address rem_address st ..."; 08 is CLOSE_WAIT. */
      if (sscanf (lines[i], "%*s %63s %63s %7s", local, remote, state) == 3 &&
          g_str_has_suffix (local, suffix) && g_str_equal (state, "08"))
        count++;
    }
  return count;
}

static void
test_keepalive_client_closes (Fixture       *fixture,
                              gconstpointer  data)
{
  guint16 port = snodo_http_transport_get_port (fixture->transport);
  g_autoptr(GSocket) first = NULL;
  g_autoptr(GSocket) second = NULL;
  char *answer;

  g_test_summary ("Connections stay open between requests, and one that the client closes "
                  "while idle is closed by the server at once (libsoup before 3.3 left it in "
                  "CLOSE_WAIT for ever)");

  first = raw_connect (fixture);
  second = raw_connect (fixture);
  for (int round = 0; round < 3; round++)
    {
      raw_send_call (first, port, "echo", "{\"text\":\"again\"}");
      answer = raw_receive (first, 5000);
      g_assert_nonnull (answer);
      g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
      g_assert_nonnull (strstr (answer, "again"));
      g_assert_null (strstr (answer, "Connection: close"));
      g_free (answer);
    }
  raw_send_call (second, port, "echo", "{\"text\":\"two\"}");
  answer = raw_receive (second, 5000);
  g_assert_nonnull (strstr (answer, "two"));
  g_free (answer);
  g_assert_cmpuint (snodo_http_transport_get_n_connections (fixture->transport), ==, 2);

  /* The client closes while the connection is idle. */
  g_socket_close (first, NULL);
  g_assert_true (wait_for_connections (fixture, 1, 2000));
  g_socket_close (second, NULL);
  g_assert_true (wait_for_connections (fixture, 0, 2000));
  g_assert_cmpint (count_close_wait (port), <=, 0);

  /* One that never sent anything. */
  g_object_unref (first);
  first = raw_connect (fixture);
  g_assert_true (wait_for_connections (fixture, 1, 2000));
  g_socket_close (first, NULL);
  g_assert_true (wait_for_connections (fixture, 0, 2000));
  g_assert_cmpint (count_close_wait (port), <=, 0);
}

static void
test_keepalive_idle_timeout (Fixture       *fixture,
                             gconstpointer  data)
{
  guint16 port = snodo_http_transport_get_port (fixture->transport);
  g_autoptr(GSocket) idle = NULL;
  g_autoptr(GSocket) busy = NULL;
  g_autoptr(GSocket) silent = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *slept = NULL;

  g_test_summary ("A connection idle for connection-idle-timeout seconds is closed; one with "
                  "a request in progress is not");

  snodo_http_transport_set_connection_idle_timeout (fixture->transport, 1);
  g_assert_cmpuint (snodo_http_transport_get_connection_idle_timeout (fixture->transport), ==, 1);
  idle = raw_connect (fixture);
  raw_send_call (idle, port, "echo", "{\"text\":\"x\"}");
  answer = raw_receive (idle, 5000);
  g_assert_nonnull (answer);
  /* A client that connects and never sends anything is idle too. */
  silent = raw_connect (fixture);
  busy = raw_connect (fixture);
  raw_send_call (busy, port, "sleep", "{\"ms\":2000}");

  g_assert_true (raw_wait_closed (idle, 3000));
  g_assert_true (raw_wait_closed (silent, 3000));
  slept = raw_receive (busy, 5000);
  g_assert_nonnull (slept);
  g_assert_nonnull (strstr (slept, "slept"));
  g_socket_close (busy, NULL);
  g_assert_true (wait_for_connections (fixture, 0, 2000));
}

static void
test_keepalive_max_connections (Fixture       *fixture,
                                gconstpointer  data)
{
  guint16 port = snodo_http_transport_get_port (fixture->transport);
  g_autoptr(GSocket) a = NULL;
  g_autoptr(GSocket) b = NULL;
  g_autoptr(GSocket) c = NULL;
  gint64 until;
  char *answer;

  g_test_summary ("At max-connections the connection idle the longest makes room for a new "
                  "client, which waits in the backlog until then");

  snodo_http_transport_set_max_connections (fixture->transport, 2);
  g_assert_cmpuint (snodo_http_transport_get_max_connections (fixture->transport), ==, 2);
  a = raw_connect (fixture);
  raw_send_call (a, port, "echo", "{\"text\":\"a\"}");
  answer = raw_receive (a, 5000);
  g_assert_nonnull (answer);
  g_free (answer);
  b = raw_connect (fixture);
  raw_send_call (b, port, "sleep", "{\"ms\":1500}");
  /* Let a be idle a while. */
  until = g_get_monotonic_time () + 700 * G_TIME_SPAN_MILLISECOND;
  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);

  c = raw_connect (fixture);
  raw_send_call (c, port, "echo", "{\"text\":\"c\"}");
  answer = raw_receive (c, 5000);
  g_assert_nonnull (answer);
  g_assert_nonnull (strstr (answer, "\"c\""));
  g_free (answer);
  g_assert_true (raw_wait_closed (a, 1000));
  g_assert_cmpuint (snodo_http_transport_get_n_connections (fixture->transport), <=, 2);
  answer = raw_receive (b, 5000);
  g_assert_nonnull (strstr (answer, "slept"));
  g_free (answer);
}

static void
test_keepalive_half_close (Fixture       *fixture,
                           gconstpointer  data)
{
  static const char request[] = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                "Accept: application/json, text/event-stream\r\n"
                                "Content-Type: application/json\r\nContent-Length: 1\r\n\r\n{";
  g_autoptr(GSocket) socket = raw_connect (fixture);
  g_autoptr(GString) in = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  const char *second;

  g_test_summary ("A client that half-closes after its request gets its answer, then the end "
                  "of the connection, and nothing else");

  g_assert_cmpint (g_socket_send (socket, request, sizeof request - 1, NULL, NULL), ==, sizeof request - 1);
  g_assert_true (g_socket_shutdown (socket, FALSE, TRUE, NULL));
  for (;;)
    {
      char buf[4096];
      gssize n;

      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      n = g_socket_receive (socket, buf, sizeof buf, NULL, NULL);
      if (n == 0)
        break;
      if (n > 0)
        g_string_append_len (in, buf, n);
      else
        g_usleep (500);
    }
  g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 400"));
  g_assert_nonnull (strstr (in->str, "-32700"));
  second = strstr (in->str + 1, "HTTP/1.");
  g_assert_null (second);
  g_assert_true (wait_for_connections (fixture, 0, 2000));
}

static void
test_keepalive_head (Fixture       *fixture,
                     gconstpointer  data)
{
  static const char head[] = "HEAD /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  guint16 port = snodo_http_transport_get_port (fixture->transport);
  g_autoptr(GSocket) socket = raw_connect (fixture);
  g_autoptr(GString) in = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  g_autofree char *answer = NULL;

  g_test_summary ("A response without its body (HEAD) still leaves at once, and the next "
                  "request on the connection gets a clean answer");

  g_assert_cmpint (g_socket_send (socket, head, sizeof head - 1, NULL, NULL), ==, sizeof head - 1);
  while (strstr (in->str, "\r\n\r\n") == NULL)
    {
      char buf[1024];
      gssize n;

      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      n = g_socket_receive (socket, buf, sizeof buf, NULL, NULL);
      g_assert_cmpint (n, !=, 0);
      if (n > 0)
        g_string_append_len (in, buf, n);
      else
        g_usleep (500);
    }
  g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 405"));
  g_assert_true (g_str_has_suffix (in->str, "\r\n\r\n"));

  raw_send_call (socket, port, "echo", "{\"text\":\"after\"}");
  answer = raw_receive (socket, 5000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
  g_assert_nonnull (strstr (answer, "after"));
}

/* Sends a 2026-07-28 echo of @text with a chunked body, in two chunks. */
static void
raw_send_chunked_echo (GSocket    *socket,
                       guint16     port,
                       const char *text)
{
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                                           "{\"name\":\"echo\",\"arguments\":{\"text\":\"%s\"}," ENVELOPE "}}",
                                           text);
  gsize half = strlen (body) / 2;
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n"
                                              "MCP-Protocol-Version: 2026-07-28\r\n"
                                              "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"
                                              "Transfer-Encoding: chunked\r\n\r\n"
                                              "%zx\r\n%.*s\r\n%zx\r\n%s\r\n0\r\n\r\n",
                                              port, half, (int) half, body, strlen (body) - half, body + half);
  gsize sent = 0;

  while (sent < strlen (request))
    {
      gssize n = g_socket_send (socket, request + sent, strlen (request) - sent, NULL, NULL);

      if (n > 0)
        sent += n;
      else
        g_main_context_iteration (NULL, FALSE);
    }
}

static void
test_body_limits (Fixture       *fixture,
                  gconstpointer  data)
{
  guint16 port = snodo_http_transport_get_port (fixture->transport);
  g_autoptr(GSocket) socket = raw_connect (fixture);
  g_autoptr(GString) big = g_string_new (NULL);
  g_autofree char *arguments = NULL;
  char *answer;

  g_test_summary ("max-body-bytes holds for bodies of announced length and for chunked ones; "
                  "a refusal comes before the rest of the body and closes the connection");

  for (int i = 0; i < 2000; i++)
    g_string_append_c (big, 'x');

  raw_send_chunked_echo (socket, port, "chunked");
  answer = raw_receive (socket, 5000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
  g_assert_nonnull (strstr (answer, "chunked"));
  g_free (answer);

  snodo_http_transport_set_max_body_bytes (fixture->transport, 1000);

  raw_send_chunked_echo (socket, port, big->str);
  answer = raw_receive (socket, 5000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 413"));
  g_free (answer);
  g_assert_true (raw_wait_closed (socket, 5000));
  g_object_unref (socket);
  socket = raw_connect (fixture);

  arguments = g_strdup_printf ("{\"text\":\"%s\"}", big->str);
  raw_send_call (socket, port, "echo", arguments);
  answer = raw_receive (socket, 5000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 413"));
  g_free (answer);
  g_assert_true (raw_wait_closed (socket, 5000));
  g_object_unref (socket);
  socket = raw_connect (fixture);

  raw_send_call (socket, port, "echo", "{\"text\":\"small\"}");
  answer = raw_receive (socket, 5000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
  g_assert_nonnull (strstr (answer, "small"));
  g_free (answer);

  snodo_http_transport_set_max_body_bytes (fixture->transport, 2000000);
}

static void
test_modern_cancel_one_of_many (Fixture       *fixture,
                                gconstpointer  data)
{
  guint16 port = snodo_http_transport_get_port (fixture->transport);
  GSocket *sockets[3];
  char *answer;

  g_test_summary ("Of several 2026-07-28 requests waiting for their answers, the one whose client "
                  "leaves is cancelled, and the others are answered");

  for (guint i = 0; i < G_N_ELEMENTS (sockets); i++)
    {
      sockets[i] = raw_connect (fixture);
      raw_send_call (sockets[i], port, "sleep", "{\"ms\":1500}");
    }
  g_assert_true (snodo_test_wait_for (&fixture->sleep_started, 10000));
  /* Past the delay after which waiting requests watch their sockets. */
  g_usleep (100 * G_TIME_SPAN_MILLISECOND);
  g_socket_close (sockets[1], NULL);
  g_assert_true (snodo_test_wait_for (&fixture->sleep_cancelled, 5000));

  for (guint i = 0; i < G_N_ELEMENTS (sockets); i += 2)
    {
      answer = raw_receive (sockets[i], 10000);
      g_assert_nonnull (answer);
      g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
      g_assert_nonnull (strstr (answer, "slept"));
      g_free (answer);
    }
  for (guint i = 0; i < G_N_ELEMENTS (sockets); i++)
    g_object_unref (sockets[i]);
}

#define BURST 200

static void
test_keepalive_burst (Fixture       *fixture,
                      gconstpointer  data)
{
  guint16 port = snodo_http_transport_get_port (fixture->transport);
  GSocket *sockets[BURST];
  gint64 start = g_get_monotonic_time ();
  gint64 elapsed;

  g_test_summary ("200 clients that connect at once are all accepted without waiting for "
                  "SYN retransmissions (a backlog of 10 made them wait 1 to 7 s), and all "
                  "200 concurrent 100 ms calls are answered");

  /* Connects complete in the kernel's backlog while the server is not
   * running. */
  for (guint i = 0; i < BURST; i++)
    {
      sockets[i] = raw_connect (fixture);
      raw_send_call (sockets[i], port, "sleep", "{\"ms\":100}");
    }
  for (guint i = 0; i < BURST; i++)
    {
      g_autofree char *answer = raw_receive (sockets[i], 10000);

      g_assert_nonnull (answer);
      g_assert_nonnull (strstr (answer, "slept"));
    }
  elapsed = g_get_monotonic_time () - start;
  g_test_message ("%d calls of 100 ms answered in %.3f s", BURST, elapsed / 1e6);
  /* Generous, for slow and sanitized builds; without a backlog this took
   * many seconds. */
  g_assert_cmpint (elapsed, <, 3 * G_USEC_PER_SEC);
  for (guint i = 0; i < BURST; i++)
    g_object_unref (sockets[i]);
  g_assert_true (wait_for_connections (fixture, 0, 5000));
}

/* ---- snodo-demo --http, a real process ---------------------------------- */

/* Connects to 127.0.0.1:@port; reads and writes block for at most 10 s. */
static GSocket *
demo_connect (guint16 port)
{
  g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, port);
  g_autoptr(GError) error = NULL;
  GSocket *socket;

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_socket_set_timeout (socket, 10);
  g_assert_true (g_socket_connect (socket, address, NULL, &error));
  g_assert_no_error (error);
  return socket;
}

/* Sends a POST of @body to /mcp; @headers are extra header lines. */
static void
demo_post (GSocket    *socket,
           const char *headers,
           const char *body)
{
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n%s"
                                              "Content-Length: %zu\r\n\r\n%s",
                                              headers, strlen (body), body);
  g_autoptr(GError) error = NULL;

  g_assert_cmpint (g_socket_send (socket, request, strlen (request), NULL, &error), ==, (gssize) strlen (request));
  g_assert_no_error (error);
}

/* Reads into @buffer until it holds @needle (TRUE), or until the end of
 * the stream, an error or the socket's timeout (FALSE). @needle NULL
 * reads to the end. */
static gboolean
demo_read_until (GSocket    *socket,
                 GString    *buffer,
                 const char *needle)
{
  char chunk[4096];

  while (needle == NULL || strstr (buffer->str, needle) == NULL)
    {
      gssize n = g_socket_receive (socket, chunk, sizeof chunk, NULL, NULL);

      if (n <= 0)
        return FALSE;
      g_string_append_len (buffer, chunk, n);
    }
  return TRUE;
}

static void
demo_exited_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  gboolean *exited = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *exited = TRUE;
}

static void
test_demo_sigterm_streams (void)
{
  const char *demo = g_getenv ("SNODO_DEMO");
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GSocket) listen = NULL;
  g_autoptr(GSocket) init = NULL;
  g_autoptr(GSocket) get = NULL;
  g_autoptr(GString) listen_data = g_string_new (NULL);
  g_autoptr(GString) init_data = g_string_new (NULL);
  g_autoptr(GString) get_data = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *session_header = NULL;
  g_autofree char *get_request = NULL;
  g_autofree char *err = NULL;
  const char *port_start;
  const char *id_start;
  gboolean exited = FALSE;
  guint16 port;

  g_test_summary ("SIGTERM to snodo-demo --http while clients hold a subscriptions/listen stream "
                  "and a session's GET stream: both streams end, the process exits 0, and "
                  "nothing is written to standard error");

  if (demo == NULL)
    {
      g_test_skip ("SNODO_DEMO is not set");
      return;
    }

  /* Freed objects really freed (and, with MALLOC_PERTURB_, scribbled
   * over), so that a use after free shows. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_setenv (launcher, "G_SLICE", "always-malloc", TRUE);
  g_subprocess_launcher_unsetenv (launcher, "G_MESSAGES_DEBUG");
  process = g_subprocess_launcher_spawn (launcher, &error, demo, "--http", "0", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (process));
  uri = g_data_input_stream_read_line (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (uri);
  port_start = strrchr (uri, ':');
  g_assert_nonnull (port_start);
  port = (guint16) g_ascii_strtoull (port_start + 1, NULL, 10);
  g_assert_cmpuint (port, >, 0);

  /* A 2026-07-28 subscription, live once acknowledged. */
  listen = demo_connect (port);
  demo_post (listen, "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: subscriptions/listen\r\n",
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"subscriptions/listen\",\"params\":"
             "{\"notifications\":{\"toolsListChanged\":true}," ENVELOPE "}}");
  g_assert_true (demo_read_until (listen, listen_data, "notifications/subscriptions/acknowledged"));

  /* A 2025-11-25 session (its connection stays open, idle) and its GET
   * stream. */
  init = demo_connect (port);
  demo_post (init, "",
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
             "\"capabilities\":{},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}");
  g_assert_true (demo_read_until (init, init_data, "\"result\""));
  id_start = strstr (init_data->str, "Mcp-Session-Id: ");
  g_assert_nonnull (id_start);
  id_start += strlen ("Mcp-Session-Id: ");
  session_header = g_strndup (id_start, strcspn (id_start, "\r\n"));
  get = demo_connect (port);
  get_request = g_strdup_printf ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                                 "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
                                 session_header);
  g_assert_cmpint (g_socket_send (get, get_request, strlen (get_request), NULL, &error), ==,
                   (gssize) strlen (get_request));
  g_assert_no_error (error);
  g_assert_true (demo_read_until (get, get_data, "\r\n\r\n"));
  g_assert_true (g_str_has_prefix (get_data->str, "HTTP/1.1 200"));

  g_subprocess_send_signal (process, SIGTERM);

  /* The subscription ends with its result, the GET stream with the end
   * of its body; then the process exits. */
  g_assert_true (demo_read_until (listen, listen_data, "\"id\":1,\"result\""));
  demo_read_until (listen, listen_data, NULL);
  demo_read_until (get, get_data, NULL);
  g_assert_true (g_str_has_suffix (get_data->str, "0\r\n\r\n"));

  g_subprocess_wait_async (process, NULL, demo_exited_cb, &exited);
  g_assert_true (snodo_test_wait_for (&exited, 20000));
  g_assert_true (g_subprocess_get_if_exited (process));
  g_assert_cmpint (g_subprocess_get_exit_status (process), ==, 0);

  g_subprocess_communicate_utf8 (process, NULL, NULL, NULL, &err, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (err, ==, "");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/snodo/http/legacy/session", Fixture, NULL, fixture_setup, test_legacy_session, fixture_teardown);
  g_test_add ("/snodo/http/legacy/progress", Fixture, NULL, fixture_setup, test_legacy_progress, fixture_teardown);
  g_test_add ("/snodo/http/legacy/stream", Fixture, NULL, fixture_setup, test_legacy_stream, fixture_teardown);
  g_test_add ("/snodo/http/legacy/idle-session", Fixture, NULL, fixture_setup, test_legacy_idle_session,
              fixture_teardown);
  g_test_add ("/snodo/http/legacy/elicitation", Fixture, NULL, fixture_setup, test_legacy_elicitation,
              fixture_teardown);
  g_test_add ("/snodo/http/modern/stuck-client/queue", Fixture, NULL, fixture_setup,
              test_modern_stuck_client, fixture_teardown);
  g_test_add ("/snodo/http/modern/stuck-client/write-timeout", Fixture, NULL, fixture_setup,
              test_modern_write_timeout, fixture_teardown);
  g_test_add ("/snodo/http/modern/tools", Fixture, NULL, fixture_setup, test_modern_tools, fixture_teardown);
  g_test_add ("/snodo/http/modern/headers", Fixture, NULL, fixture_setup, test_modern_headers, fixture_teardown);
  g_test_add ("/snodo/http/modern/param-headers", Fixture, NULL, fixture_setup, test_modern_param_headers,
              fixture_teardown);
  g_test_add ("/snodo/http/modern/status", Fixture, NULL, fixture_setup, test_modern_status, fixture_teardown);
  g_test_add ("/snodo/http/modern/listen", Fixture, NULL, fixture_setup, test_modern_listen, fixture_teardown);
  g_test_add ("/snodo/http/modern/cancel-on-close", Fixture, NULL, fixture_setup,
              test_modern_cancel_on_close, fixture_teardown);
  g_test_add ("/snodo/http/modern/cancel-one-of-many", Fixture, NULL, fixture_setup,
              test_modern_cancel_one_of_many, fixture_teardown);
  g_test_add ("/snodo/http/dispose-busy", Fixture, NULL, fixture_setup, test_dispose_busy, fixture_teardown);
  g_test_add ("/snodo/http/close/drop-in-callback", Fixture, NULL, fixture_setup, test_close_drop_in_callback,
              fixture_teardown);
  g_test_add ("/snodo/http/checks", Fixture, NULL, fixture_setup, test_checks, fixture_teardown);
  g_test_add ("/snodo/http/body-limits", Fixture, NULL, fixture_setup, test_body_limits, fixture_teardown);
  g_test_add ("/snodo/http/keep-alive/client-closes", Fixture, NULL, fixture_setup,
              test_keepalive_client_closes, fixture_teardown);
  g_test_add ("/snodo/http/keep-alive/idle-timeout", Fixture, NULL, fixture_setup,
              test_keepalive_idle_timeout, fixture_teardown);
  g_test_add ("/snodo/http/keep-alive/max-connections", Fixture, NULL, fixture_setup,
              test_keepalive_max_connections, fixture_teardown);
  g_test_add ("/snodo/http/keep-alive/half-close", Fixture, NULL, fixture_setup,
              test_keepalive_half_close, fixture_teardown);
  g_test_add ("/snodo/http/keep-alive/head", Fixture, NULL, fixture_setup,
              test_keepalive_head, fixture_teardown);
  g_test_add ("/snodo/http/keep-alive/burst", Fixture, NULL, fixture_setup,
              test_keepalive_burst, fixture_teardown);
  g_test_add_func ("/snodo/http/demo/sigterm-streams", test_demo_sigterm_streams);

  return g_test_run ();
}
