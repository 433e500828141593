/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Resumable GET streams of 2025-era sessions, through real sockets: the
 * priming event, event ids, Last-Event-ID replaying what was sent while
 * the stream was down, ids of another session refused, the server closing
 * a stream after get-stream-lifetime (SEP-1699), and no ids without an
 * event store. The bounds are generous. */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "snodo-event-store.h"
#include "snodo-http-transport.h"
#include "snodo-invocation.h"
#include "snodo-server.h"
#include "snodo-test-util.h"
#include "snodo-tool.h"

typedef struct
{
  SnodoServer        *server;
  SnodoHttpTransport *transport;
  guint16             port;
} Fixture;

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  snodo_invocation_return_text (invocation, "ok");
}

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->server = snodo_server_new ("test", "1");
  fixture->transport = snodo_http_transport_new (fixture->server);
  g_assert_true (snodo_http_transport_listen_local (fixture->transport, 0, &error));
  g_assert_no_error (error);
  fixture->port = snodo_http_transport_get_port (fixture->transport);
}

static void
close_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_assert_true (snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL));
  *(gboolean *) user_data = TRUE;
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  gboolean done = FALSE;

  snodo_http_transport_close_async (fixture->transport, NULL, close_cb, &done);
  g_assert_true (snodo_test_wait_for (&done, 10000));
  g_assert_finalize_object (fixture->transport);
  g_assert_finalize_object (fixture->server);
}

/* ---- A raw client ------------------------------------------------------------ */

static GSocket *
raw_connect (Fixture *fixture)
{
  g_autoptr(GSocketAddress) address = g_inet_socket_address_new_from_string ("127.0.0.1", fixture->port);
  g_autoptr(GError) error = NULL;
  GSocket *socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);

  g_assert_no_error (error);
  g_assert_true (g_socket_connect (socket, address, NULL, &error));
  g_assert_no_error (error);
  g_socket_set_blocking (socket, FALSE);
  return socket;
}

static void
raw_send (GSocket    *socket,
          const char *data)
{
  g_assert_cmpint (g_socket_send (socket, data, strlen (data), NULL, NULL), ==, (gssize) strlen (data));
}

/* Runs the main context, reading into @in, until @done says so or the
 * connection ends; whether @done said so within @timeout_ms. */
static gboolean
raw_read_until (GSocket      *socket,
                GString      *in,
                gboolean    (*done) (GString *in, gconstpointer data),
                gconstpointer data,
                guint         timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (!done (in, data))
    {
      char buf[16384];
      gssize n;

      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      n = g_socket_receive (socket, buf, sizeof buf, NULL, NULL);
      if (n > 0)
        g_string_append_len (in, buf, n);
      else if (n == 0)
        return done (in, data);
      else
        g_usleep (500);
    }
  return TRUE;
}

static gboolean
has_text (GString      *in,
          gconstpointer data)
{
  return strstr (in->str, data) != NULL;
}

static gboolean
has_whole_answer (GString      *in,
                  gconstpointer data)
{
  const char *end = strstr (in->str, "\r\n\r\n");
  const char *length;

  if (end == NULL)
    return FALSE;
  length = g_strstr_len (in->str, end - in->str, "Content-Length: ");
  return length != NULL && in->len >= (gsize) (end + 4 - in->str) + strtoul (length + 16, NULL, 10);
}

/* One request on a new connection: its whole answer. */
static char *
request (Fixture    *fixture,
         const char *text)
{
  g_autoptr(GSocket) socket = raw_connect (fixture);
  g_autoptr(GString) in = g_string_new (NULL);

  raw_send (socket, text);
  g_assert_true (raw_read_until (socket, in, has_whole_answer, NULL, 20000));
  return g_string_free (g_steal_pointer (&in), FALSE);
}

/* A 2025-11-25 session, initialized: its id. */
static char *
new_session (Fixture *fixture)
{
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
                             "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
  static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
  g_autofree char *head = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                           "Accept: application/json, text/event-stream\r\n"
                                           "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                                           fixture->port, strlen (body), body);
  g_autofree char *answer = request (fixture, head);
  const char *header = strstr (answer, "Mcp-Session-Id: ");
  g_autofree char *session_id = NULL;
  g_autofree char *initialized = NULL;
  g_autofree char *accepted = NULL;

  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
  g_assert_nonnull (header);
  session_id = g_strndup (header + 16, strcspn (header + 16, "\r"));
  initialized = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                 "Accept: application/json, text/event-stream\r\n"
                                 "Content-Type: application/json\r\nMcp-Session-Id: %s\r\n"
                                 "MCP-Protocol-Version: 2025-11-25\r\nContent-Length: %zu\r\n\r\n%s",
                                 fixture->port, session_id, strlen (note), note);
  accepted = request (fixture, initialized);
  g_assert_true (g_str_has_prefix (accepted, "HTTP/1.1 202"));
  return g_steal_pointer (&session_id);
}

/* Opens the session's GET stream (with @last_event_id if not NULL). */
static GSocket *
open_get (Fixture    *fixture,
          const char *session_id,
          const char *last_event_id)
{
  GSocket *socket = raw_connect (fixture);
  g_autofree char *last = last_event_id ? g_strdup_printf ("Last-Event-ID: %s\r\n", last_event_id) : g_strdup ("");
  g_autofree char *text = g_strdup_printf ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                           "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
                                           "MCP-Protocol-Version: 2025-11-25\r\n%s\r\n",
                                           fixture->port, session_id, last);

  raw_send (socket, text);
  return socket;
}

/* The id of the event whose text holds @needle, in @in. */
static char *
event_id_of (GString    *in,
             const char *needle)
{
  const char *at = strstr (in->str, needle);
  const char *id;

  g_assert_nonnull (at);
  /* The last "id: " before it. */
  for (id = at; id > in->str && !g_str_has_prefix (id, "id: "); id--)
    ;
  g_assert_true (g_str_has_prefix (id, "id: "));
  return g_strndup (id + 4, strcspn (id + 4, "\n"));
}

static void
add_tool (Fixture    *fixture,
          const char *name)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new (name, NULL);

  g_assert_true (snodo_server_add_tool (fixture->server, tool, echo_cb, NULL, NULL, NULL));
}

static void
run_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* ---- Tests --------------------------------------------------------------------- */

static void
test_resume (Fixture       *fixture,
             gconstpointer  data)
{
  g_autofree char *session_id = new_session (fixture);
  g_autofree char *other_id = new_session (fixture);
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GString) again = g_string_new (NULL);
  g_autoptr(GString) other = g_string_new (NULL);
  g_autofree char *priming_id = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *missed_id = NULL;
  g_autofree char *other_priming = NULL;
  g_autofree char *refused = NULL;
  g_autofree char *refused_text = NULL;
  GSocket *stream;
  const char *missed;

  g_test_summary ("A 2025-11-25 GET stream starts with a priming event (id, retry, empty data); "
                  "each event has an id; after the stream is lost, GET with Last-Event-ID gets "
                  "what was announced meanwhile; an id of another session's stream is refused");

  stream = open_get (fixture, session_id, NULL);
  g_assert_true (raw_read_until (stream, in, has_text, "data: \n\n", 20000));
  g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 200"));
  g_assert_nonnull (strstr (in->str, "retry: 1000\n"));
  priming_id = event_id_of (in, "retry: ");

  add_tool (fixture, "first");
  g_assert_true (raw_read_until (stream, in, has_text, "list_changed", 20000));
  first_id = event_id_of (in, "list_changed");
  g_assert_cmpstr (first_id, !=, priming_id);

  /* The client loses its stream; a change comes meanwhile. */
  g_object_unref (stream);
  run_for (300);
  add_tool (fixture, "second");
  run_for (100);

  /* An id of the other session's stream is not this session's. */
  stream = open_get (fixture, other_id, NULL);
  g_assert_true (raw_read_until (stream, other, has_text, "data: \n\n", 20000));
  other_priming = event_id_of (other, "retry: ");
  refused_text = g_strdup_printf ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                  "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
                                  "MCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: %s\r\n\r\n",
                                  fixture->port, session_id, other_priming);
  refused = request (fixture, refused_text);
  g_assert_true (g_str_has_prefix (refused, "HTTP/1.1 400"));
  g_object_unref (stream);

  /* Back with the last id seen: the missed change, then a new priming
   * event. */
  stream = open_get (fixture, session_id, first_id);
  g_assert_true (raw_read_until (stream, again, has_text, "data: \n\n", 20000));
  g_assert_true (g_str_has_prefix (again->str, "HTTP/1.1 200"));
  missed = strstr (again->str, "list_changed");
  g_assert_nonnull (missed);
  g_assert_true (missed < strstr (again->str, "data: \n\n"));
  missed_id = event_id_of (again, "list_changed");
  g_assert_cmpint (g_ascii_strtoll (missed_id, NULL, 10), >, g_ascii_strtoll (first_id, NULL, 10));
  /* Only what followed: the first change is not sent again. */
  g_assert_null (strstr (missed + 1, "list_changed"));
  g_object_unref (stream);
}

static gboolean
has_stream_end (GString      *in,
                gconstpointer data)
{
  return g_str_has_suffix (in->str, "\r\n0\r\n\r\n");
}

static void
test_lifetime (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *session_id = new_session (fixture);
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GString) again = g_string_new (NULL);
  g_autoptr(GSocket) stream = NULL;
  g_autoptr(GSocket) resumed = NULL;
  g_autofree char *priming_id = NULL;
  gint64 start;

  g_test_summary ("With get-stream-lifetime the server ends a GET stream after its priming event "
                  "(SEP-1699); the client comes back with its id and gets what came meanwhile");

  snodo_http_transport_set_get_stream_lifetime (fixture->transport, 1);
  snodo_http_transport_set_stream_retry (fixture->transport, 250);
  start = g_get_monotonic_time ();
  stream = open_get (fixture, session_id, NULL);
  g_assert_true (raw_read_until (stream, in, has_stream_end, NULL, 20000));
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 900 * G_TIME_SPAN_MILLISECOND);
  g_assert_nonnull (strstr (in->str, "retry: 250\n"));
  priming_id = event_id_of (in, "retry: ");

  add_tool (fixture, "meanwhile");
  run_for (100);
  resumed = open_get (fixture, session_id, priming_id);
  g_assert_true (raw_read_until (resumed, again, has_text, "list_changed", 20000));
}

static void
test_no_store (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GSocket) stream = NULL;

  g_test_summary ("Without an event store a GET stream has no priming event and no ids");

  g_assert_nonnull (snodo_http_transport_get_event_store (fixture->transport));
  snodo_http_transport_set_event_store (fixture->transport, NULL);
  session_id = new_session (fixture);
  stream = open_get (fixture, session_id, NULL);
  g_assert_true (raw_read_until (stream, in, has_text, "\r\n\r\n", 20000));
  add_tool (fixture, "plain");
  g_assert_true (raw_read_until (stream, in, has_text, "list_changed", 20000));
  g_assert_null (strstr (in->str, "id: "));
  g_assert_null (strstr (in->str, "retry: "));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/snodo/http/resume/last-event-id", Fixture, NULL, fixture_setup, test_resume, fixture_teardown);
  g_test_add ("/snodo/http/resume/lifetime", Fixture, NULL, fixture_setup, test_lifetime, fixture_teardown);
  g_test_add ("/snodo/http/resume/no-store", Fixture, NULL, fixture_setup, test_no_store, fixture_teardown);

  return g_test_run ();
}
