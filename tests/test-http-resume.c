/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Resumable streams of 2025-era sessions, through real sockets. The GET
 * stream: the priming event, event ids, Last-Event-ID replaying what was
 * sent while the stream was down, ids of another session refused, the
 * server closing a stream after get-stream-lifetime (SEP-1699), and no ids
 * without an event store. The event stream answering a POST: its priming
 * event and ids, a break mid-answer resumed with GET and Last-Event-ID
 * (what was missed of that stream only, the answer included, then the
 * end), a client back on a new connection while the old one is open, the
 * handler closing the stream (snodo_invocation_close_stream()), ids of
 * another session refused, and the bounds on what is kept. The time
 * bounds are generous. */

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
  /* The invocation a tool of the test holds unanswered, or NULL; what
   * snodo_invocation_close_stream() said. */
  SnodoInvocation    *held;
  gboolean            closed;
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

/* A session of @version, initialized: its id. */
static char *
new_session_for (Fixture    *fixture,
                 const char *version)
{
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                           "{\"protocolVersion\":\"%s\",\"capabilities\":{},"
                                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", version);
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
                                 "MCP-Protocol-Version: %s\r\nContent-Length: %zu\r\n\r\n%s",
                                 fixture->port, session_id, version, strlen (note), note);
  accepted = request (fixture, initialized);
  g_assert_true (g_str_has_prefix (accepted, "HTTP/1.1 202"));
  return g_steal_pointer (&session_id);
}

/* One request on a new connection: the head of its answer (enough for
 * one without a body). */
static char *
request_head (Fixture    *fixture,
              const char *text)
{
  g_autoptr(GSocket) socket = raw_connect (fixture);
  g_autoptr(GString) in = g_string_new (NULL);

  raw_send (socket, text);
  g_assert_true (raw_read_until (socket, in, has_text, "\r\n\r\n", 20000));
  return g_string_free (g_steal_pointer (&in), FALSE);
}

/* A 2025-11-25 session, initialized: its id. */
static char *
new_session (Fixture *fixture)
{
  return new_session_for (fixture, "2025-11-25");
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

/* ---- The streams answering POSTs ------------------------------------------------ */

/* Reports progress "one", then holds the invocation for the test. */
static void
held_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  Fixture *fixture = user_data;

  g_assert_null (fixture->held);
  g_assert_true (snodo_invocation_report_progress (invocation, 1, -1, "one"));
  fixture->held = invocation;
}

/* Reports progress "one", closes its stream, and is held. */
static void
closing_cb (SnodoInvocation *invocation,
            gpointer         user_data)
{
  Fixture *fixture = user_data;

  g_assert_null (fixture->held);
  g_assert_true (snodo_invocation_report_progress (invocation, 1, -1, "one"));
  fixture->closed = snodo_invocation_close_stream (invocation);
  fixture->held = invocation;
}

static gpointer
closing_thread (gpointer data)
{
  SnodoInvocation *invocation = data;

  /* Several reports, so that the close has sends in transit before it. */
  for (int i = 1; i <= 3; i++)
    g_assert_true (snodo_invocation_report_progress (invocation, i, -1, i == 3 ? "one" : NULL));
  g_assert_true (snodo_invocation_close_stream (invocation));
  return NULL;
}

/* The same from another thread: the close comes after the reports. */
static void
closing_thread_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  Fixture *fixture = user_data;
  GThread *thread = g_thread_new ("closing", closing_thread, invocation);

  g_thread_join (thread);
  fixture->closed = TRUE;
  fixture->held = invocation;
}

/* Reports progress "one", then answers "quick" at once. */
static void
quick_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  g_assert_true (snodo_invocation_report_progress (invocation, 1, -1, "one"));
  snodo_invocation_return_text (invocation, "quick");
}

static void
add_handler (Fixture       *fixture,
             const char    *name,
             SnodoToolFunc  func)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new (name, NULL);

  g_assert_true (snodo_server_add_tool (fixture->server, tool, func, fixture, NULL, NULL));
}

/* The held invocation: progress "two", then the answer "finished". */
static void
finish_held (Fixture *fixture)
{
  g_assert_nonnull (fixture->held);
  g_assert_true (snodo_invocation_report_progress (fixture->held, 2, -1, "two"));
  snodo_invocation_return_text (g_steal_pointer (&fixture->held), "finished");
}

/* POSTs a call of @tool with a progress token, id @id, in @session_id. */
static GSocket *
post_call (Fixture    *fixture,
           const char *session_id,
           const char *version,
           int         id,
           const char *tool)
{
  GSocket *socket = raw_connect (fixture);
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":"
                                           "{\"name\":\"%s\",\"arguments\":{},\"_meta\":{\"progressToken\":\"p\"}}}",
                                           id, tool);
  g_autofree char *text = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                           "Accept: application/json, text/event-stream\r\n"
                                           "Content-Type: application/json\r\nMcp-Session-Id: %s\r\n"
                                           "MCP-Protocol-Version: %s\r\nContent-Length: %zu\r\n\r\n%s",
                                           fixture->port, session_id, version, strlen (body), body);

  raw_send (socket, text);
  return socket;
}

/* A call of echo, id @id, in @session_id: its whole answer. */
static char *
post_echo (Fixture    *fixture,
           const char *session_id,
           int         id)
{
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
                                           "\"params\":{\"name\":\"echo\"}}", id);
  g_autofree char *text = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                           "Accept: application/json, text/event-stream\r\n"
                                           "Content-Type: application/json\r\nMcp-Session-Id: %s\r\n"
                                           "MCP-Protocol-Version: 2025-11-25\r\nContent-Length: %zu\r\n\r\n%s",
                                           fixture->port, session_id, strlen (body), body);

  return request (fixture, text);
}

static gint64
id_number (const char *id)
{
  return g_ascii_strtoll (id, NULL, 10);
}

static void
test_post_ids (Fixture       *fixture,
               gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GSocket) post = NULL;
  g_autofree char *priming_id = NULL;
  g_autofree char *one_id = NULL;
  g_autofree char *two_id = NULL;
  g_autofree char *answer_id = NULL;
  g_autofree char *plain = NULL;
  const char *body;

  g_test_summary ("The event stream answering a 2025-11-25 POST starts with a priming event "
                  "(id, retry, empty data) and every event has an id; an answer that comes first "
                  "is one JSON body without ids");

  add_handler (fixture, "held", held_cb);
  add_tool (fixture, "echo");
  session_id = new_session (fixture);
  post = post_call (fixture, session_id, "2025-11-25", 2, "held");
  g_assert_true (raw_read_until (post, in, has_text, "\"one\"", 20000));
  g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 200"));
  g_assert_nonnull (strstr (in->str, "Content-Type: text/event-stream"));
  body = strstr (in->str, "\r\n\r\n");
  g_assert_nonnull (body);
  /* The first event of the body is the priming event. */
  g_assert_true (g_regex_match_simple ("^\\r\\n\\r\\n[0-9a-f]+\\r\\nid: [0-9]+\\nretry: 1000\\ndata: \\n\\n",
                                       body, 0, 0));
  priming_id = event_id_of (in, "retry: ");
  one_id = event_id_of (in, "\"one\"");

  finish_held (fixture);
  g_assert_true (raw_read_until (post, in, has_stream_end, NULL, 20000));
  two_id = event_id_of (in, "\"two\"");
  answer_id = event_id_of (in, "\"finished\"");
  g_assert_cmpint (id_number (priming_id), <, id_number (one_id));
  g_assert_cmpint (id_number (one_id), <, id_number (two_id));
  g_assert_cmpint (id_number (two_id), <, id_number (answer_id));

  plain = post_echo (fixture, session_id, 3);
  g_assert_true (g_str_has_prefix (plain, "HTTP/1.1 200"));
  g_assert_nonnull (strstr (plain, "Content-Type: application/json"));
  g_assert_nonnull (strstr (plain, "\"ok\""));
  g_assert_null (strstr (plain, "id: "));
}

static void
test_post_replay (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GString) again = g_string_new (NULL);
  g_autoptr(GString) twice = g_string_new (NULL);
  g_autoptr(GSocket) resumed = NULL;
  g_autoptr(GSocket) resumed_twice = NULL;
  g_autofree char *one_id = NULL;
  g_autofree char *answer_id = NULL;
  g_autofree char *over_text = NULL;
  g_autofree char *over = NULL;
  GSocket *post;
  const char *two;

  g_test_summary ("A POST's event stream that broke mid-answer is resumed with GET and the "
                  "Last-Event-ID it saw: what was sent meanwhile on that stream only, the answer "
                  "last, then the end; the same again later");

  add_handler (fixture, "held", held_cb);
  session_id = new_session (fixture);
  post = post_call (fixture, session_id, "2025-11-25", 2, "held");
  g_assert_true (raw_read_until (post, in, has_text, "\"one\"", 20000));
  one_id = event_id_of (in, "\"one\"");

  /* The connection breaks; the request goes on, and so does the session. */
  g_object_unref (post);
  run_for (300);
  finish_held (fixture);
  add_tool (fixture, "meanwhile");
  run_for (100);

  resumed = open_get (fixture, session_id, one_id);
  g_assert_true (raw_read_until (resumed, again, has_stream_end, NULL, 20000));
  g_assert_true (g_str_has_prefix (again->str, "HTTP/1.1 200"));
  two = strstr (again->str, "\"two\"");
  g_assert_nonnull (two);
  g_assert_nonnull (strstr (two, "\"finished\""));
  g_assert_null (strstr (again->str, "\"one\""));
  /* The session's own announcements are not that stream's. */
  g_assert_null (strstr (again->str, "list_changed"));
  g_assert_null (strstr (again->str, "retry: "));

  /* The events stay: a client that lost this answer too gets it again. */
  resumed_twice = open_get (fixture, session_id, one_id);
  g_assert_true (raw_read_until (resumed_twice, twice, has_stream_end, NULL, 20000));
  g_assert_nonnull (strstr (twice->str, "\"finished\""));

  /* After the answer's own id, the stream is over: nothing to poll. */
  answer_id = event_id_of (twice, "\"finished\"");
  over_text = g_strdup_printf ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                               "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
                               "MCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: %s\r\n\r\n",
                               fixture->port, session_id, answer_id);
  over = request_head (fixture, over_text);
  g_assert_true (g_str_has_prefix (over, "HTTP/1.1 204"));
}

static void
test_post_resume_live (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GString) again = g_string_new (NULL);
  g_autoptr(GSocket) post = NULL;
  g_autoptr(GSocket) resumed = NULL;
  g_autofree char *priming_id = NULL;
  const char *one;

  g_test_summary ("A client back on a new connection while the old one is open: the old stream "
                  "ends, the new one gets what followed the Last-Event-ID, then what the request "
                  "sends as it sends it, and ends after the answer");

  add_handler (fixture, "held", held_cb);
  session_id = new_session (fixture);
  post = post_call (fixture, session_id, "2025-11-25", 2, "held");
  g_assert_true (raw_read_until (post, in, has_text, "\"one\"", 20000));
  priming_id = event_id_of (in, "retry: ");

  resumed = open_get (fixture, session_id, priming_id);
  g_assert_true (raw_read_until (resumed, again, has_text, "\"one\"", 20000));
  g_assert_true (raw_read_until (post, in, has_stream_end, NULL, 20000));
  g_assert_null (strstr (in->str, "\"two\""));

  g_assert_true (snodo_invocation_report_progress (fixture->held, 2, -1, "two"));
  g_assert_true (raw_read_until (resumed, again, has_text, "\"two\"", 20000));
  g_assert_false (has_stream_end (again, NULL));
  snodo_invocation_return_text (g_steal_pointer (&fixture->held), "finished");
  g_assert_true (raw_read_until (resumed, again, has_stream_end, NULL, 20000));
  one = strstr (again->str, "\"one\"");
  g_assert_true (one < strstr (again->str, "\"two\""));
  g_assert_true (strstr (again->str, "\"two\"") < strstr (again->str, "\"finished\""));
  /* Each event once. */
  g_assert_null (strstr (one + 1, "\"one\""));
}

static void
test_post_close (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *old_session = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GString) again = g_string_new (NULL);
  g_autoptr(GString) old_in = g_string_new (NULL);
  g_autoptr(GSocket) post = NULL;
  g_autoptr(GSocket) resumed = NULL;
  g_autoptr(GSocket) old_post = NULL;
  g_autofree char *one_id = NULL;
  g_autofree char *duplicate = NULL;
  gint64 start;

  g_test_summary ("snodo_invocation_close_stream() ends the POST's stream after what was sent "
                  "(SEP-1699) while the request goes on; its id stays taken; GET with "
                  "Last-Event-ID gets the rest and the answer. Not for 2025-06-18");

  snodo_http_transport_set_stream_retry (fixture->transport, 250);
  add_handler (fixture, "closing", closing_cb);
  session_id = new_session (fixture);
  start = g_get_monotonic_time ();
  post = post_call (fixture, session_id, "2025-11-25", 2, "closing");
  g_assert_true (raw_read_until (post, in, has_stream_end, NULL, 20000));
  g_assert_cmpint (g_get_monotonic_time () - start, <, 10 * G_USEC_PER_SEC);
  g_assert_true (fixture->closed);
  g_assert_nonnull (strstr (in->str, "retry: 250\n"));
  one_id = event_id_of (in, "\"one\"");
  g_assert_nonnull (fixture->held);

  /* The request goes on: its id is still in use. */
  duplicate = post_echo (fixture, session_id, 2);
  g_assert_nonnull (strstr (duplicate, "already in use"));

  /* Closing what is closed already is no harm. */
  g_assert_true (snodo_invocation_close_stream (fixture->held));
  finish_held (fixture);
  run_for (100);
  resumed = open_get (fixture, session_id, one_id);
  g_assert_true (raw_read_until (resumed, again, has_stream_end, NULL, 20000));
  g_assert_true (strstr (again->str, "\"two\"") < strstr (again->str, "\"finished\""));
  g_assert_null (strstr (again->str, "\"one\""));

  /* From another thread, the close comes after what was sent before it. */
  add_handler (fixture, "closing-thread", closing_thread_cb);
  g_string_truncate (in, 0);
  g_clear_object (&post);
  post = post_call (fixture, session_id, "2025-11-25", 3, "closing-thread");
  g_assert_true (raw_read_until (post, in, has_stream_end, NULL, 20000));
  g_assert_nonnull (strstr (in->str, "\"one\""));
  snodo_invocation_return_text (g_steal_pointer (&fixture->held), "finished");

  /* 2025-06-18 clients do not come back: the stream stays; its events have
   * ids, without a priming event. */
  fixture->closed = TRUE;
  old_session = new_session_for (fixture, "2025-06-18");
  old_post = post_call (fixture, old_session, "2025-06-18", 2, "closing");
  g_assert_true (raw_read_until (old_post, old_in, has_text, "\"one\"", 20000));
  g_assert_false (fixture->closed);
  g_assert_null (strstr (old_in->str, "retry: "));
  g_assert_nonnull (strstr (old_in->str, "id: "));
  finish_held (fixture);
  g_assert_true (raw_read_until (old_post, old_in, has_stream_end, NULL, 20000));
  g_assert_nonnull (strstr (old_in->str, "\"finished\""));
}

static void
test_post_other_session (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *session_id = NULL;
  g_autofree char *other_id = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GSocket) post = NULL;
  g_autofree char *one_id = NULL;
  g_autofree char *refused_text = NULL;
  g_autofree char *refused = NULL;

  g_test_summary ("The Last-Event-ID of another session's POST stream is refused (400)");

  add_handler (fixture, "held", held_cb);
  session_id = new_session (fixture);
  other_id = new_session (fixture);
  post = post_call (fixture, session_id, "2025-11-25", 2, "held");
  g_assert_true (raw_read_until (post, in, has_text, "\"one\"", 20000));
  one_id = event_id_of (in, "\"one\"");

  refused_text = g_strdup_printf ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                  "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
                                  "MCP-Protocol-Version: 2025-11-25\r\nLast-Event-ID: %s\r\n\r\n",
                                  fixture->port, other_id, one_id);
  refused = request (fixture, refused_text);
  g_assert_true (g_str_has_prefix (refused, "HTTP/1.1 400"));
  finish_held (fixture);
  g_assert_true (raw_read_until (post, in, has_stream_end, NULL, 20000));
}

static void
test_post_bounds (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(SnodoMemoryEventStore) small = snodo_memory_event_store_new ();
  g_autoptr(SnodoMemoryEventStore) store = snodo_memory_event_store_new ();
  g_autofree char *session_id = NULL;
  g_autofree char *second_session = NULL;
  g_autofree char *priming_id = NULL;
  g_autofree char *first_id = NULL;
  g_autofree char *second_id = NULL;
  g_autofree char *delete_text = NULL;
  g_autofree char *deleted = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GString) afresh = g_string_new (NULL);
  g_autoptr(GString) early = g_string_new (NULL);
  g_autoptr(GString) kept = g_string_new (NULL);
  g_autoptr(GSocket) get = NULL;
  g_autoptr(GSocket) early_get = NULL;
  g_autoptr(GSocket) kept_get = NULL;
  GSocket *post;

  g_test_summary ("What a POST stream keeps is bounded: by the store (an id it dropped opens the "
                  "session's GET stream afresh), by the 32 newest answered streams of a session, "
                  "and a session's end forgets all of its events");

  /* A store of 8 events: a long answer pushes out its start. */
  snodo_memory_event_store_set_max_events (small, 8);
  snodo_http_transport_set_event_store (fixture->transport, SNODO_EVENT_STORE (small));
  add_handler (fixture, "held", held_cb);
  add_handler (fixture, "quick", quick_cb);
  session_id = new_session (fixture);
  post = post_call (fixture, session_id, "2025-11-25", 2, "held");
  g_assert_true (raw_read_until (post, in, has_text, "\"one\"", 20000));
  priming_id = event_id_of (in, "retry: ");
  g_object_unref (post);
  run_for (300);
  for (int i = 2; i <= 12; i++)
    {
      g_assert_true (snodo_invocation_report_progress (fixture->held, i, -1, NULL));
      run_for (5);
    }
  snodo_invocation_return_text (g_steal_pointer (&fixture->held), "finished");
  run_for (100);
  g_assert_cmpuint (snodo_memory_event_store_get_n_events (small), ==, 8);
  get = open_get (fixture, session_id, priming_id);
  g_assert_true (raw_read_until (get, afresh, has_text, "data: \n\n", 20000));
  g_assert_true (g_str_has_prefix (afresh->str, "HTTP/1.1 200"));
  g_assert_null (strstr (afresh->str, "progress"));
  g_clear_object (&get);

  /* A session keeps the streams of its 32 newest answers. */
  snodo_http_transport_set_event_store (fixture->transport, SNODO_EVENT_STORE (store));
  second_session = new_session (fixture);
  for (int i = 0; i < 33; i++)
    {
      g_autoptr(GString) answer = g_string_new (NULL);
      g_autoptr(GSocket) quick = post_call (fixture, second_session, "2025-11-25", 10 + i, "quick");

      g_assert_true (raw_read_until (quick, answer, has_stream_end, NULL, 20000));
      g_assert_nonnull (strstr (answer->str, "\"quick\""));
      if (i == 0)
        first_id = event_id_of (answer, "retry: ");
      else if (i == 1)
        second_id = event_id_of (answer, "retry: ");
    }
  /* A priming event, a progress report and the answer each. */
  g_assert_cmpuint (snodo_memory_event_store_get_n_events (store), ==, 32 * 3);
  early_get = open_get (fixture, second_session, first_id);
  g_assert_true (raw_read_until (early_get, early, has_text, "data: \n\n", 20000));
  g_assert_null (strstr (early->str, "\"quick\""));
  g_clear_object (&early_get);
  run_for (200);
  kept_get = open_get (fixture, second_session, second_id);
  g_assert_true (raw_read_until (kept_get, kept, has_stream_end, NULL, 20000));
  g_assert_nonnull (strstr (kept->str, "\"quick\""));

  delete_text = g_strdup_printf ("DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                 "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
                                 fixture->port, second_session);
  deleted = request (fixture, delete_text);
  g_assert_true (g_str_has_prefix (deleted, "HTTP/1.1 200"));
  g_assert_cmpuint (snodo_memory_event_store_get_n_events (store), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/snodo/http/resume/last-event-id", Fixture, NULL, fixture_setup, test_resume, fixture_teardown);
  g_test_add ("/snodo/http/resume/lifetime", Fixture, NULL, fixture_setup, test_lifetime, fixture_teardown);
  g_test_add ("/snodo/http/resume/no-store", Fixture, NULL, fixture_setup, test_no_store, fixture_teardown);
  g_test_add ("/snodo/http/resume/post/ids", Fixture, NULL, fixture_setup, test_post_ids, fixture_teardown);
  g_test_add ("/snodo/http/resume/post/replay", Fixture, NULL, fixture_setup, test_post_replay, fixture_teardown);
  g_test_add ("/snodo/http/resume/post/live", Fixture, NULL, fixture_setup, test_post_resume_live, fixture_teardown);
  g_test_add ("/snodo/http/resume/post/close", Fixture, NULL, fixture_setup, test_post_close, fixture_teardown);
  g_test_add ("/snodo/http/resume/post/other-session", Fixture, NULL, fixture_setup, test_post_other_session,
              fixture_teardown);
  g_test_add ("/snodo/http/resume/post/bounds", Fixture, NULL, fixture_setup, test_post_bounds, fixture_teardown);

  return g_test_run ();
}
