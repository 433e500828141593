/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient against a server of the HTTP+SSE transport of 2024-11-05,
 * made here with SoupServer: POST at the server's URL is refused (405),
 * GET there opens the event stream whose endpoint event names where
 * messages go, and every answer comes on the stream. The client falls
 * back to it, initializes, lists and calls tools, gets a notification,
 * answers the server's ping by POST, and closing it ends the stream. A
 * Streamable HTTP server is not probed with GET before its initialize
 * answer. */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <snodo/snodo.h>

#include "snodo-test-util.h"

typedef struct
{
  SoupServer *server;
  char *uri;
  /* Legacy: the open event stream, or NULL. */
  SoupServerMessage *stream;
  gboolean legacy;
  /* The protocol version initialize answers, or NULL for the client's. */
  const char *answer_version;
  guint base_posts;
  guint gets;
  guint gets_before_initialize;
  guint endpoint_posts;
  gboolean initialize_answered;
  gboolean initialized;
  gboolean pong;
  gboolean stream_ended;
  gboolean peer_closed;
  char *notification;
} Fixture;

static void
stream_send (Fixture    *fixture,
             const char *event,
             const char *data)
{
  g_autofree char *text = g_strdup_printf ("event: %s\ndata: %s\n\n", event, data);
  SoupMessageBody *body;

  g_assert_nonnull (fixture->stream);
  body = soup_server_message_get_response_body (fixture->stream);
  soup_message_body_append (body, SOUP_MEMORY_COPY, text, strlen (text));
  soup_server_message_unpause (fixture->stream);
}

static void
stream_finished_cb (SoupServerMessage *message,
                    gpointer           user_data)
{
  Fixture *fixture = user_data;

  fixture->stream = NULL;
  fixture->stream_ended = TRUE;
}

static char *
result_text (JsonNode   *id,
             const char *result)
{
  g_autofree char *id_text = json_to_string (id, FALSE);

  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}", id_text, result);
}

/* The answer to one message of the client, or NULL for none. */
static char *
answer_message (Fixture    *fixture,
                const char *text)
{
  g_autoptr(JsonObject) message = snodo_test_parse_object (text);
  const char *method = json_object_has_member (message, "method")
                       ? json_object_get_string_member (message, "method") : NULL;
  JsonNode *id = json_object_get_member (message, "id");

  if (method == NULL)
    {
      /* The client's answer to the server's ping. */
      g_assert_cmpstr (json_node_get_string (id), ==, "srv-1");
      g_assert_true (json_object_has_member (message, "result"));
      fixture->pong = TRUE;
      return NULL;
    }
  if (g_str_equal (method, "initialize"))
    {
      JsonObject *params = json_object_get_object_member (message, "params");
      const char *version = fixture->answer_version != NULL
                            ? fixture->answer_version
                            : json_object_get_string_member (params, "protocolVersion");
      g_autofree char *result = g_strdup_printf ("{\"protocolVersion\":\"%s\",\"capabilities\":{\"tools\":{}},"
                                                 "\"serverInfo\":{\"name\":\"old-sse\",\"version\":\"1\"}}",
                                                 version);

      fixture->initialize_answered = TRUE;
      return result_text (id, result);
    }
  if (g_str_equal (method, "notifications/initialized"))
    {
      fixture->initialized = TRUE;
      return NULL;
    }
  if (g_str_equal (method, "tools/list"))
    return result_text (id, "{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}");
  if (g_str_equal (method, "tools/call"))
    {
      JsonObject *arguments = json_object_get_object_member (json_object_get_object_member (message, "params"),
                                                             "arguments");
      g_autofree char *result = g_strdup_printf ("{\"content\":[{\"type\":\"text\",\"text\":\"echo: %s\"}]}",
                                                 json_object_get_string_member (arguments, "text"));

      return result_text (id, result);
    }
  if (id != NULL)
    {
      g_autofree char *id_text = json_to_string (id, FALSE);

      return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":-32601,\"message\":\"no\"}}",
                              id_text);
    }
  return NULL;
}

static void
server_cb (SoupServer        *server,
           SoupServerMessage *message,
           const char        *path,
           GHashTable        *query,
           gpointer           user_data)
{
  Fixture *fixture = user_data;
  const char *method = soup_server_message_get_method (message);
  SoupMessageBody *request = soup_server_message_get_request_body (message);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (request);
  g_autofree char *text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));

  if (g_str_equal (path, "/sse") && g_str_equal (method, "GET"))
    {
      SoupMessageHeaders *headers = soup_server_message_get_response_headers (message);

      fixture->gets++;
      if (!fixture->initialize_answered && !fixture->legacy)
        fixture->gets_before_initialize++;
      if (!fixture->legacy || fixture->stream != NULL)
        {
          soup_server_message_set_status (message, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
          return;
        }
      soup_server_message_set_status (message, SOUP_STATUS_OK, NULL);
      soup_message_headers_set_content_type (headers, "text/event-stream", NULL);
      soup_message_headers_set_encoding (headers, SOUP_ENCODING_CHUNKED);
      fixture->stream = message;
      g_signal_connect (message, "finished", G_CALLBACK (stream_finished_cb), fixture);
      /* A comment first, then the endpoint, relative to the URL. */
      soup_message_body_append (soup_server_message_get_response_body (message), SOUP_MEMORY_STATIC,
                                ": hello\n\n", strlen (": hello\n\n"));
      stream_send (fixture, "endpoint", "/messages?sessionId=X");
      return;
    }

  if (g_str_equal (path, "/sse") && g_str_equal (method, "POST"))
    {
      fixture->base_posts++;
      if (fixture->legacy)
        {
          soup_server_message_set_status (message, SOUP_STATUS_METHOD_NOT_ALLOWED, NULL);
          return;
        }
      /* Streamable HTTP of 2025-11-25: JSON answers. */
      {
        g_autoptr(JsonObject) parsed = snodo_test_parse_object (text);
        const char *rpc_method = json_object_has_member (parsed, "method")
                                 ? json_object_get_string_member (parsed, "method") : "";
        g_autofree char *answer = NULL;

        if (g_str_equal (rpc_method, "server/discover"))
          {
            soup_server_message_set_status (message, SOUP_STATUS_BAD_REQUEST, NULL);
            answer = g_strdup ("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32000,"
                               "\"message\":\"Bad Request: Server not initialized\"}}");
          }
        else
          {
            answer = answer_message (fixture, text);
            soup_server_message_set_status (message, answer != NULL ? SOUP_STATUS_OK : SOUP_STATUS_ACCEPTED, NULL);
          }
        if (answer != NULL)
          soup_server_message_set_response (message, "application/json", SOUP_MEMORY_COPY,
                                            answer, strlen (answer));
      }
      return;
    }

  if (g_str_equal (path, "/messages") && g_str_equal (method, "POST") && fixture->legacy)
    {
      g_autofree char *answer = NULL;
      gboolean was_initialized = fixture->initialized;

      g_assert_nonnull (query);
      g_assert_cmpstr (g_hash_table_lookup (query, "sessionId"), ==, "X");
      fixture->endpoint_posts++;
      soup_server_message_set_status (message, SOUP_STATUS_ACCEPTED, NULL);
      answer = answer_message (fixture, text);
      if (answer != NULL)
        stream_send (fixture, "message", answer);
      if (!was_initialized && fixture->initialized)
        {
          /* The server's own: a notification and a request. */
          stream_send (fixture, "message",
                       "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
          stream_send (fixture, "message", "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}");
        }
      return;
    }
  soup_server_message_set_status (message, SOUP_STATUS_NOT_FOUND, NULL);
}

static void
fixture_start (Fixture  *fixture,
               gboolean  legacy)
{
  g_autoptr(GError) error = NULL;
  g_autoslist(GUri) uris = NULL;
  g_autofree char *base = NULL;

  fixture->legacy = legacy;
  fixture->server = soup_server_new (NULL, NULL);
  soup_server_add_handler (fixture->server, NULL, server_cb, fixture, NULL);
  g_assert_true (soup_server_listen_local (fixture->server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (fixture->server);
  base = g_uri_to_string (uris->data);
  fixture->uri = g_strconcat (base, base[strlen (base) - 1] == '/' ? "sse" : "/sse", NULL);
}

static void
fixture_stop (Fixture *fixture)
{
  soup_server_disconnect (fixture->server);
  g_clear_object (&fixture->server);
  g_clear_pointer (&fixture->uri, g_free);
  g_clear_pointer (&fixture->notification, g_free);
}

static void
notification_cb (SnodoClient *client,
                 const char  *method,
                 JsonObject  *params,
                 gpointer     user_data)
{
  Fixture *fixture = user_data;

  g_free (fixture->notification);
  fixture->notification = g_strdup (method);
}

static void
run_until (gboolean *flag)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

  while (!*flag && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (*flag);
}

/* The client closed its side of the stream's connection: it asks
 * nothing more there, so what is readable is the end. */
static gboolean
peer_closed_cb (gpointer user_data)
{
  Fixture *fixture = user_data;
  GSocket *socket = fixture->stream != NULL ? soup_server_message_get_socket (fixture->stream) : NULL;

  if (socket != NULL && g_socket_condition_check (socket, G_IO_IN | G_IO_HUP | G_IO_ERR) != 0)
    fixture->peer_closed = TRUE;
  return G_SOURCE_CONTINUE;
}

static void
test_legacy (void)
{
  Fixture fixture = { 0, };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GAsyncResult) called = NULL;
  g_autoptr(GAsyncResult) closed = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) arguments = json_object_new ();
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *text = NULL;
  guint watch;

  g_test_summary ("SnodoClient falls back to the HTTP+SSE transport of 2024-11-05 when the server "
                  "refuses the initialize POST, and speaks it");

  fixture_start (&fixture, TRUE);
  client = snodo_client_new_for_uri (fixture.uri, &error);
  g_assert_no_error (error);
  g_signal_connect (client, "notification", G_CALLBACK (notification_cb), &fixture);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_11_25);
  /* server/discover and initialize at the URL, refused; one stream. */
  g_assert_cmpuint (fixture.base_posts, ==, 2);
  g_assert_cmpuint (fixture.gets, ==, 1);

  /* The server's notification and ping, once initialized. */
  run_until (&fixture.pong);
  g_assert_cmpstr (fixture.notification, ==, "notifications/tools/list_changed");

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &listed);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&listed), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (tools, 0), "name"), ==, "echo");

  json_object_set_string_member (arguments, "text", "hi");
  snodo_client_call_tool_async (client, "echo", arguments, NULL, snodo_test_store_result_cb, &called);
  answer = snodo_client_call_tool_finish (client, snodo_test_wait_result (&called), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (answer);
  g_assert_cmpstr (text, ==, "echo: hi");
  /* initialize, initialized, the pong, tools/list, tools/call (and no
   * more POSTs at the URL). */
  g_assert_cmpuint (fixture.endpoint_posts, ==, 5);
  g_assert_cmpuint (fixture.base_posts, ==, 2);

  g_assert_false (fixture.stream_ended);
  snodo_client_close_async (client, NULL, snodo_test_store_result_cb, &closed);
  g_assert_true (snodo_client_close_finish (client, snodo_test_wait_result (&closed), &error));
  g_assert_no_error (error);
  /* The client closed the stream's connection, with nothing more sent
   * on the stream to wake it. */
  watch = g_timeout_add (50, peer_closed_cb, &fixture);
  run_until (&fixture.peer_closed);
  g_source_remove (watch);
  g_assert_cmpuint (fixture.gets, ==, 1);

  g_clear_object (&client);
  fixture_stop (&fixture);
}

static void
test_legacy_old_version (void)
{
  Fixture fixture = { 0, };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GError) error = NULL;

  g_test_summary ("A server of the HTTP+SSE transport that answers initialize with 2024-11-05 is "
                  "refused with an error that names the version");

  fixture_start (&fixture, TRUE);
  fixture.answer_version = "2024-11-05";
  client = snodo_client_new_for_uri (fixture.uri, &error);
  g_assert_no_error (error);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_false (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "2024-11-05"));
  /* The answer came on the stream the fallback opened. */
  g_assert_cmpuint (fixture.gets, ==, 1);
  g_assert_cmpuint (fixture.endpoint_posts, ==, 1);

  snodo_test_close_client (client);
  g_clear_object (&client);
  fixture_stop (&fixture);
}

static void
test_no_stream (void)
{
  Fixture fixture = { 0, };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GError) error = NULL;

  g_test_summary ("A server that refuses initialize and opens no event stream: the error says both");

  /* Streamable mode, but nothing answers at another path. */
  fixture_start (&fixture, FALSE);
  g_free (fixture.uri);
  {
    g_autoslist(GUri) uris = soup_server_get_uris (fixture.server);
    g_autofree char *base = g_uri_to_string (uris->data);

    fixture.uri = g_strconcat (base, base[strlen (base) - 1] == '/' ? "nothing" : "/nothing", NULL);
  }
  client = snodo_client_new_for_uri (fixture.uri, &error);
  g_assert_no_error (error);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_false (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, "HTTP 404"));
  g_assert_nonnull (strstr (error->message, "2024-11-05"));

  snodo_test_close_client (client);
  g_clear_object (&client);
  fixture_stop (&fixture);
}

static void
test_streamable (void)
{
  Fixture fixture = { 0, };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;

  g_test_summary ("A Streamable HTTP server (which refuses server/discover with 400) is not taken "
                  "for one of HTTP+SSE: no GET before its initialize answer");

  fixture_start (&fixture, FALSE);
  client = snodo_client_new_for_uri (fixture.uri, &error);
  g_assert_no_error (error);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2025_11_25);

  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &listed);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&listed), &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), ==, 1);
  g_assert_cmpuint (fixture.gets_before_initialize, ==, 0);
  g_assert_cmpuint (fixture.endpoint_posts, ==, 0);

  snodo_test_close_client (client);
  g_clear_object (&client);
  fixture_stop (&fixture);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/client/legacy-sse/fallback", test_legacy);
  g_test_add_func ("/client/legacy-sse/old-version", test_legacy_old_version);
  g_test_add_func ("/client/legacy-sse/no-stream", test_no_stream);
  g_test_add_func ("/client/legacy-sse/streamable", test_streamable);
  return g_test_run ();
}
