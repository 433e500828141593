/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The HTTP transport's limits under hostile or careless clients, through
 * real sockets on the loopback interface: what a stream holds, how many
 * streams there are, the table of sessions, request bodies. The bounds
 * are generous: the machine may be loaded, and nothing here times how
 * fast the server is. */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "snodo-error.h"
#include "snodo-executor.h"
#include "snodo-http-listener-private.h"
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
  guint16             port;
} Fixture;

/* ---- Tools ----------------------------------------------------------------- */

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  snodo_invocation_return_text (invocation, json_object_get_string_member_with_default (arguments, "text", ""));
}

static gboolean
slow_answer_cb (gpointer user_data)
{
  SnodoInvocation *invocation = user_data;
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  snodo_invocation_return_text (invocation, json_object_get_string_member_with_default (arguments, "text", ""));
  return G_SOURCE_REMOVE;
}

/* slow {text}: echoes after 2.5 s. */
static void
slow_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  g_timeout_add (2500, slow_answer_cb, invocation);
}

/* ---- Fixture --------------------------------------------------------------- */

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(SnodoTool) echo = snodo_tool_new ("echo", NULL);
  g_autoptr(SnodoTool) slow = snodo_tool_new ("slow", NULL);
  g_autoptr(GError) error = NULL;

  fixture->server = snodo_server_new ("test", "1");
  g_assert_true (snodo_server_add_tool (fixture->server, echo, echo_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_tool (fixture->server, slow, slow_cb, NULL, NULL, NULL));
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
  gboolean *done = user_data;

  g_assert_true (snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL));
  *done = TRUE;
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  gboolean done = FALSE;

  snodo_http_transport_close_async (fixture->transport, NULL, close_cb, &done);
  g_assert_true (snodo_test_wait_for (&done, 20000));
  g_assert_finalize_object (fixture->transport);
  for (int i = 0; i < 10; i++)
    g_main_context_iteration (NULL, FALSE);
  g_clear_object (&fixture->server);
}

/* ---- Raw clients ----------------------------------------------------------- */

/* A plain TCP client socket on the transport, non-blocking. */
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

/* Sends all of @data, running the main context while the socket is full;
 * FALSE if the server closed the connection first. */
static gboolean
raw_send (GSocket    *socket,
          const char *data,
          gsize       len)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  gsize sent = 0;

  while (sent < len)
    {
      g_autoptr(GError) error = NULL;
      gssize n = g_socket_send (socket, data + sent, len - sent, NULL, &error);

      if (n > 0)
        sent += n;
      else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        {
          g_assert_cmpint (g_get_monotonic_time (), <, deadline);
          g_main_context_iteration (NULL, FALSE);
          g_usleep (200);
        }
      else
        return FALSE;
    }
  return TRUE;
}

/* Sends a POST of @body with the headers of a 2026-07-28 request of
 * @method. */
static void
raw_post_modern (Fixture    *fixture,
                 GSocket    *socket,
                 const char *method,
                 const char *body)
{
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n"
                                              "MCP-Protocol-Version: 2026-07-28\r\n"
                                              "Mcp-Method: %s\r\nContent-Length: %zu\r\n\r\n%s",
                                              fixture->port, method, strlen (body), body);

  g_assert_true (raw_send (socket, request, strlen (request)));
}

/* Sends a POST of a 2025-11-25 @body, on @session_id if not NULL. */
static void
raw_post_legacy (Fixture    *fixture,
                 GSocket    *socket,
                 const char *session_id,
                 const char *body)
{
  g_autofree char *session = session_id ? g_strdup_printf ("Mcp-Session-Id: %s\r\n"
                                                           "MCP-Protocol-Version: 2025-11-25\r\n", session_id)
                                        : g_strdup ("");
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n%s"
                                              "Content-Length: %zu\r\n\r\n%s",
                                              fixture->port, session, strlen (body), body);

  g_assert_true (raw_send (socket, request, strlen (request)));
}

/* Opens a 2026-07-28 subscriptions/listen for tool changes with @id on a
 * new connection. */
static GSocket *
open_listen (Fixture    *fixture,
             const char *id)
{
  GSocket *socket = raw_connect (fixture);
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"subscriptions/listen\","
                                           "\"params\":{\"notifications\":{\"toolsListChanged\":true},"
                                           ENVELOPE "}}", id);

  raw_post_modern (fixture, socket, "subscriptions/listen", body);
  return socket;
}

/* Reads what has come on @socket into @in, without waiting; FALSE once
 * the server has closed it. */
static gboolean
raw_read_some (GSocket *socket,
               GString *in)
{
  for (;;)
    {
      char buf[16384];
      g_autoptr(GError) error = NULL;
      gssize n = g_socket_receive (socket, buf, sizeof buf, NULL, &error);

      if (n > 0)
        {
          g_string_append_len (in, buf, n);
          continue;
        }
      if (n == 0)
        return FALSE;
      return g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
    }
}

/* Runs the main context until @in holds @needle, or the connection ends;
 * whether it holds it. */
static gboolean
raw_wait_for (GSocket    *socket,
              GString    *in,
              const char *needle,
              guint       timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (strstr (in->str, needle) == NULL)
    {
      gboolean open;

      g_main_context_iteration (NULL, FALSE);
      open = raw_read_some (socket, in);
      if (strstr (in->str, needle) != NULL)
        break;
      if (!open || g_get_monotonic_time () > deadline)
        return FALSE;
      g_usleep (200);
    }
  return TRUE;
}

/* Runs the main context until one whole response with a Content-Length
 * has come on @socket, and returns it; NULL if the connection ended
 * first. */
static char *
raw_receive (GSocket *socket,
             guint    timeout_ms)
{
  g_autoptr(GString) in = g_string_new (NULL);
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (g_get_monotonic_time () < deadline)
    {
      const char *end;
      gboolean open;

      g_main_context_iteration (NULL, FALSE);
      open = raw_read_some (socket, in);
      end = strstr (in->str, "\r\n\r\n");
      if (end != NULL)
        {
          const char *length = strstr (in->str, "Content-Length: ");

          g_assert_nonnull (length);
          if (in->len >= (gsize) (end + 4 - in->str) + g_ascii_strtoull (length + 16, NULL, 10))
            return g_string_free (g_steal_pointer (&in), FALSE);
        }
      if (!open)
        return NULL;
      g_usleep (200);
    }
  g_assert_not_reached ();
}

/* A 2026-07-28 echo of @text on a new connection: its whole response. */
static char *
call_echo (Fixture    *fixture,
           const char *text)
{
  g_autoptr(GSocket) socket = raw_connect (fixture);
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                                           "{\"name\":\"echo\",\"arguments\":{\"text\":\"%s\"}," ENVELOPE "}}",
                                           text);
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n"
                                              "MCP-Protocol-Version: 2026-07-28\r\n"
                                              "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"
                                              "Content-Length: %zu\r\n\r\n%s",
                                              fixture->port, strlen (body), body);

  g_assert_true (raw_send (socket, request, strlen (request)));
  return raw_receive (socket, 20000);
}

/* Runs the main context until the server has closed @socket, reading and
 * dropping what comes. */
static gboolean
raw_wait_closed (GSocket *socket,
                 guint    timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;
  g_autoptr(GString) in = g_string_new (NULL);

  while (g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      if (!raw_read_some (socket, in))
        return TRUE;
      g_string_truncate (in, 0);
      g_usleep (1000);
    }
  return FALSE;
}

/* The size of the resident set of this process, in bytes. */
static gsize
resident_bytes (void)
{
  g_autofree char *statm = NULL;
  unsigned long size = 0, resident = 0;

  g_assert_true (g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL));
  g_assert_cmpint (sscanf (statm, "%lu %lu", &size, &resident), ==, 2);
  return (gsize) resident * (gsize) sysconf (_SC_PAGESIZE);
}

/* ---- Streams: what each one holds --------------------------------------- */

#define N_READERS 10
#define N_EVENTS 5000

/* Counts the events in @in (each "data: " line), dropping what is
 * counted; a partial event stays for the next read. */
static guint
count_events (GString *in)
{
  guint count = 0;
  const char *end;

  while ((end = strstr (in->str, "\n\n")) != NULL)
    {
      gsize len = end + 2 - in->str;

      if (g_strstr_len (in->str, len, "data: ") != NULL)
        count++;
      g_string_erase (in, 0, len);
    }
  return count;
}

static void
test_stream_memory_readers (Fixture       *fixture,
                            gconstpointer  data)
{
  GSocket *sockets[N_READERS];
  GString *in[N_READERS];
  guint events[N_READERS] = { 0, };
  gsize before = 0, after;
  guint sent = 0;
  gint64 deadline;

  g_test_summary ("An event written to a stream is not kept: ten clients reading "
                  "5000 announcements each leave the server's memory where it was");

  for (guint i = 0; i < N_READERS; i++)
    {
      g_autofree char *id = g_strdup_printf ("sub%u", i);

      sockets[i] = open_listen (fixture, id);
      in[i] = g_string_new (NULL);
      g_assert_true (raw_wait_for (sockets[i], in[i], "acknowledged", 10000));
      g_string_truncate (in[i], 0);
    }

  /* Warm up (the allocator's pools, the sockets' buffers), then measure.
   * Announcements go in batches that a stream's queue holds. */
  for (int round = 0; round < 2; round++)
    {
      if (round == 1)
        before = resident_bytes ();
      while (sent < (round == 0 ? 1000 : 1000 + N_EVENTS))
        {
          for (guint n = 0; n < 50; n++, sent++)
            snodo_server_notify_tools_changed (fixture->server);
          deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
          for (guint i = 0; i < N_READERS; i++)
            while (events[i] < sent)
              {
                g_assert_cmpint (g_get_monotonic_time (), <, deadline);
                g_main_context_iteration (NULL, FALSE);
                g_assert_true (raw_read_some (sockets[i], in[i]));
                events[i] += count_events (in[i]);
              }
        }
    }
  after = resident_bytes ();

  g_test_message ("resident set: %zu kB before %u events to each of %u streams, %zu kB after",
                  before / 1024, N_EVENTS, N_READERS, after / 1024);
  for (guint i = 0; i < N_READERS; i++)
    g_assert_cmpuint (events[i], ==, sent);
  /* Keeping the events took about 18 MB here. AddressSanitizer keeps freed
   * memory in quarantine, so under it the resident set says nothing of
   * what the server keeps: the bound is asserted in the plain build. */
#ifndef __SANITIZE_ADDRESS__
  g_assert_cmpuint (after, <, before + 6 * 1024 * 1024);
#endif

  for (guint i = 0; i < N_READERS; i++)
    {
      g_socket_close (sockets[i], NULL);
      g_object_unref (sockets[i]);
      g_string_free (in[i], TRUE);
    }
}

static void
test_stream_memory_non_reader (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GString) in = g_string_new (NULL);

  g_test_summary ("A stream whose client does not read ends once more than max-stream-bytes "
                  "would wait for it, however long the write timeout");

  /* Only the byte bound can end the stream here. */
  snodo_http_transport_set_write_timeout (fixture->transport, 600000);
  snodo_http_transport_set_max_stream_bytes (fixture->transport, 8192);
  g_assert_cmpuint (snodo_http_transport_get_max_stream_bytes (fixture->transport), ==, 8192);

  socket = raw_connect (fixture);
  g_socket_set_option (socket, SOL_SOCKET, SO_RCVBUF, 4096, NULL);
  raw_post_modern (fixture, socket, "subscriptions/listen",
                   "{\"jsonrpc\":\"2.0\",\"id\":\"quiet\",\"method\":\"subscriptions/listen\","
                   "\"params\":{\"notifications\":{\"toolsListChanged\":true}," ENVELOPE "}}");
  g_assert_true (raw_wait_for (socket, in, "acknowledged", 10000));

  /* The client stops reading; the server's socket buffers fill, then the
   * stream's queue. Each announcement is about 150 bytes, so the byte
   * bound comes before the bound on the number of messages. */
  for (guint i = 0; i < 200000 && snodo_http_transport_get_n_connections (fixture->transport) > 0; i++)
    {
      snodo_server_notify_tools_changed (fixture->server);
      g_main_context_iteration (NULL, FALSE);
    }
  /* The server closed the connection; what it had handed to the system
   * before still trickles to the client, which is none of its memory. */
  g_assert_cmpuint (snodo_http_transport_get_n_connections (fixture->transport), ==, 0);
}

/* ---- Streams: how many ------------------------------------------------- */

#define N_LISTENERS 6

static void
test_streams_hold_no_slot (Fixture       *fixture,
                           gconstpointer  data)
{
  SnodoExecutor *executor = snodo_http_transport_get_executor (fixture->transport);
  GSocket *listeners[N_LISTENERS];
  g_autoptr(GSocket) refused = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autofree char *answer = NULL;
  g_autofree char *retry = NULL;
  gboolean admitted = FALSE;
  gint64 deadline;

  g_test_summary ("Idle subscriptions/listen streams hold no executor slot: with 2 running "
                  "and none queued, 6 listeners leave requests served; max-streams bounds "
                  "them instead, and a stream that ends makes room");

  snodo_executor_set_max_running (executor, 2);
  snodo_executor_set_max_queued (executor, 0);
  snodo_http_transport_set_max_streams (fixture->transport, N_LISTENERS);
  g_assert_cmpuint (snodo_http_transport_get_max_streams (fixture->transport), ==, N_LISTENERS);

  for (guint i = 0; i < N_LISTENERS; i++)
    {
      g_autofree char *id = g_strdup_printf ("idle%u", i);

      listeners[i] = open_listen (fixture, id);
      g_string_truncate (in, 0);
      g_assert_true (raw_wait_for (listeners[i], in, "acknowledged", 10000));
    }
  g_assert_cmpuint (snodo_executor_get_n_running (executor), ==, 0);

  for (int i = 0; i < 5; i++)
    {
      g_autofree char *echoed = call_echo (fixture, "served");

      g_assert_nonnull (echoed);
      g_assert_true (g_str_has_prefix (echoed, "HTTP/1.1 200"));
      g_assert_nonnull (strstr (echoed, "served"));
    }

  /* One more stream than max-streams. */
  refused = open_listen (fixture, "one-too-many");
  answer = raw_receive (refused, 10000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 503"));
  g_assert_nonnull (strstr (answer, "-32010"));
  g_assert_nonnull (strstr (answer, "\"id\":\"one-too-many\""));

  /* A listener leaves; its place is free once the server has seen it go. */
  g_socket_close (listeners[0], NULL);
  g_clear_object (&listeners[0]);
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (!admitted)
    {
      g_autoptr(GSocket) again = open_listen (fixture, "again");

      g_string_truncate (in, 0);
      g_assert_true (raw_wait_for (again, in, "\r\n\r\n", 10000));
      admitted = g_str_has_prefix (in->str, "HTTP/1.1 200");
      if (admitted)
        {
          g_assert_true (raw_wait_for (again, in, "acknowledged", 10000));
          listeners[0] = g_steal_pointer (&again);
        }
      else
        {
          g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 503"));
          g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        }
    }

  for (guint i = 0; i < N_LISTENERS; i++)
    g_clear_object (&listeners[i]);
}

static void
test_streams_per_address (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autoptr(GSocket) first = NULL;
  g_autoptr(GSocket) second = NULL;
  g_autoptr(GSocket) get = NULL;
  g_autoptr(GSocket) init = NULL;
  g_autoptr(GString) in = g_string_new (NULL);
  g_autofree char *answer = NULL;
  g_autofree char *initialized = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *request = NULL;
  const char *header;

  g_test_summary ("max-streams-per-address bounds the streams of one client address, "
                  "GET streams of sessions included");

  snodo_http_transport_set_max_streams_per_address (fixture->transport, 1);
  g_assert_cmpuint (snodo_http_transport_get_max_streams_per_address (fixture->transport), ==, 1);

  first = open_listen (fixture, "first");
  g_assert_true (raw_wait_for (first, in, "acknowledged", 10000));
  second = open_listen (fixture, "second");
  answer = raw_receive (second, 10000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 503"));
  g_assert_nonnull (strstr (answer, "-32010"));

  /* A session's GET stream is a stream too. */
  init = raw_connect (fixture);
  raw_post_legacy (fixture, init, NULL,
                   "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                   "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                   "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  initialized = raw_receive (init, 10000);
  g_assert_nonnull (initialized);
  header = strstr (initialized, "Mcp-Session-Id: ");
  g_assert_nonnull (header);
  session_id = g_strndup (header + 16, strcspn (header + 16, "\r"));
  get = raw_connect (fixture);
  request = g_strdup_printf ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nAccept: text/event-stream\r\n"
                             "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
                             fixture->port, session_id);
  g_assert_true (raw_send (get, request, strlen (request)));
  g_clear_pointer (&answer, g_free);
  answer = raw_receive (get, 10000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 503"));
}

/* ---- Sessions ------------------------------------------------------------ */

#define INITIALIZE "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":" \
                   "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}," \
                   "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"

/* A 2025-11-25 POST of @body on @session_id (or none) on a new
 * connection: its whole response, or NULL. */
static char *
legacy_post (Fixture    *fixture,
             const char *session_id,
             const char *body)
{
  g_autoptr(GSocket) socket = raw_connect (fixture);

  raw_post_legacy (fixture, socket, session_id, body);
  return raw_receive (socket, 20000);
}

/* A new session's id, or NULL if initialize was refused (503, -32010). */
static char *
try_initialize (Fixture *fixture)
{
  g_autofree char *answer = legacy_post (fixture, NULL, INITIALIZE);
  const char *header;

  g_assert_nonnull (answer);
  if (g_str_has_prefix (answer, "HTTP/1.1 503"))
    {
      g_assert_nonnull (strstr (answer, "-32010"));
      g_assert_null (strstr (answer, "Mcp-Session-Id"));
      return NULL;
    }
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
  header = strstr (answer, "Mcp-Session-Id: ");
  g_assert_nonnull (header);
  return g_strndup (header + 16, strcspn (header + 16, "\r"));
}

/* The status of a ping on @session_id. */
static guint
ping (Fixture    *fixture,
      const char *session_id)
{
  g_autofree char *answer = legacy_post (fixture, session_id, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");

  g_assert_nonnull (answer);
  return (guint) g_ascii_strtoull (answer + 9, NULL, 10);
}

/* Opens the GET stream of @session_id. */
static GSocket *
open_get (Fixture    *fixture,
          const char *session_id)
{
  GSocket *socket = raw_connect (fixture);
  g_autoptr(GString) in = g_string_new (NULL);
  g_autofree char *request = g_strdup_printf ("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: text/event-stream\r\nMcp-Session-Id: %s\r\n"
                                              "MCP-Protocol-Version: 2025-11-25\r\n\r\n",
                                              fixture->port, session_id);

  g_assert_true (raw_send (socket, request, strlen (request)));
  g_assert_true (raw_wait_for (socket, in, "\r\n\r\n", 10000));
  g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 200"));
  return socket;
}

static void
test_sessions_evict_idle (Fixture       *fixture,
                          gconstpointer  data)
{
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  g_autofree char *c = NULL;
  g_autofree char *d = NULL;
  g_autofree char *e = NULL;
  g_autofree char *late = NULL;
  GSocket *streams[3];

  g_test_summary ("At max-sessions, initialize ends the session idle the longest; only when "
                  "every session has a request or a stream open is it refused (503, -32010); "
                  "abandoned initialize calls lock no one out");

  snodo_http_transport_set_max_sessions (fixture->transport, 3);
  a = try_initialize (fixture);
  b = try_initialize (fixture);
  c = try_initialize (fixture);
  g_assert_nonnull (a);
  g_assert_nonnull (b);
  g_assert_nonnull (c);
  /* a is used again: b is now the one idle the longest. */
  g_assert_cmpuint (ping (fixture, a), ==, 200);

  d = try_initialize (fixture);
  g_assert_nonnull (d);
  g_assert_cmpuint (ping (fixture, b), ==, 404);
  g_assert_cmpuint (ping (fixture, a), ==, 200);
  g_assert_cmpuint (ping (fixture, c), ==, 200);
  g_assert_cmpuint (ping (fixture, d), ==, 200);

  /* Every session has its stream open: none is idle. */
  streams[0] = open_get (fixture, a);
  streams[1] = open_get (fixture, c);
  streams[2] = open_get (fixture, d);
  e = try_initialize (fixture);
  g_assert_null (e);
  g_assert_cmpuint (ping (fixture, a), ==, 200);
  g_assert_cmpuint (ping (fixture, c), ==, 200);
  g_assert_cmpuint (ping (fixture, d), ==, 200);
  for (guint i = 0; i < G_N_ELEMENTS (streams); i++)
    {
      g_socket_close (streams[i], NULL);
      g_object_unref (streams[i]);
    }

  /* A flood of initialize calls that are never used again, once the
   * server has seen the streams go. */
  for (guint i = 0; i < 200; i++)
    {
      g_autofree char *abandoned = NULL;
      gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;

      while ((abandoned = try_initialize (fixture)) == NULL)
        g_assert_cmpint (g_get_monotonic_time (), <, deadline);
    }
  late = try_initialize (fixture);
  g_assert_nonnull (late);
  g_assert_cmpuint (ping (fixture, late), ==, 200);
}

/* ---- Bodies ------------------------------------------------------------- */

/* Sends the headers of a 2026-07-28 echo whose body has @length bytes,
 * and the first @sent bytes of it: of @data, or spaces. */
static void
send_partial_body (Fixture    *fixture,
                   GSocket    *socket,
                   gsize       length,
                   gsize       sent,
                   const char *data)
{
  g_autofree char *headers = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n"
                                              "MCP-Protocol-Version: 2026-07-28\r\n"
                                              "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"
                                              "Content-Length: %zu\r\n\r\n",
                                              fixture->port, length);
  g_autofree char *body = g_malloc (sent);

  if (data != NULL)
    memcpy (body, data, sent);
  else
    memset (body, ' ', sent);
  g_assert_true (raw_send (socket, headers, strlen (headers)));
  g_assert_true (raw_send (socket, body, sent));
}

/* A 2026-07-28 echo body of exactly @length bytes. */
static char *
echo_body (gsize length)
{
  g_autofree char *head = g_strdup ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                                    "{\"name\":\"echo\",\"arguments\":{\"text\":\"");
  const char *tail = "\"}," ENVELOPE "}}";
  GString *body = g_string_new (head);

  g_assert_cmpuint (length, >, strlen (head) + strlen (tail));
  while (body->len < length - strlen (tail))
    g_string_append_c (body, 'y');
  g_string_append (body, tail);
  return g_string_free (body, FALSE);
}

static void
test_bodies_length_at_once (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(GSocket) socket = raw_connect (fixture);
  g_autoptr(GSocket) chunked = raw_connect (fixture);
  g_autofree char *answer = NULL;
  g_autofree char *chunked_answer = NULL;
  g_autofree char *request = NULL;
  g_autofree char *filler = g_malloc0 (3000);

  g_test_summary ("A Content-Length over max-body-bytes is answered 413 before the body, and "
                  "a chunked body as soon as it goes over; the connection is closed");

  snodo_http_transport_set_max_body_bytes (fixture->transport, 1000);
  /* 100 MB announced, 10 bytes sent: the answer cannot wait for the rest. */
  send_partial_body (fixture, socket, 100 * 1000 * 1000, 10, NULL);
  answer = raw_receive (socket, 20000);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 413"));
  g_assert_nonnull (strstr (answer, "-32600"));
  g_assert_nonnull (strstr (answer, "Connection: close"));
  g_assert_true (raw_wait_closed (socket, 20000));

  /* One huge chunk, never finished. */
  memset (filler, 'z', 2999);
  request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                             "Accept: application/json, text/event-stream\r\n"
                             "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                             "ffffff\r\n%s", fixture->port, filler);
  g_assert_true (raw_send (chunked, request, strlen (request)));
  chunked_answer = raw_receive (chunked, 20000);
  g_assert_nonnull (chunked_answer);
  g_assert_true (g_str_has_prefix (chunked_answer, "HTTP/1.1 413"));
  g_assert_true (raw_wait_closed (chunked, 20000));

  /* The transport goes on. */
  g_clear_pointer (&answer, g_free);
  answer = call_echo (fixture, "after");
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
}

#define N_STALLED 40
#define BODY_LENGTH 200000

static void
test_bodies_budget (Fixture       *fixture,
                    gconstpointer  data)
{
  GSocket *stalled[N_STALLED];
  guint refused = 0, admitted = 0;
  g_autofree char *body = echo_body (BODY_LENGTH);
  gsize before, after;
  gint64 deadline;

  g_test_summary ("max-bodies-bytes bounds the bodies in progress on all connections: beyond "
                  "it a body is answered 503 (-32010) at once; a body read or abandoned "
                  "gives its share back");

  snodo_http_transport_set_max_bodies_bytes (fixture->transport, 1000000);
  g_assert_cmpuint (snodo_http_transport_get_max_bodies_bytes (fixture->transport), ==, 1000000);

  /* Clients that stop in the middle of their bodies. */
  before = resident_bytes ();
  for (guint i = 0; i < N_STALLED; i++)
    {
      stalled[i] = raw_connect (fixture);
      send_partial_body (fixture, stalled[i], BODY_LENGTH, BODY_LENGTH - 1000, body);
    }
  deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
  while (refused + admitted < N_STALLED)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      refused = 0;
      for (guint i = 0; i < N_STALLED; i++)
        {
          char byte;

          if (recv (g_socket_get_fd (stalled[i]), &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
            refused++;
        }
      /* The others are held: their share is taken. */
      admitted = N_STALLED - refused <= 5 ? N_STALLED - refused : 0;
      g_usleep (1000);
    }
  after = resident_bytes ();
  g_test_message ("%u clients stopping %u bytes into a body: %u held, %u refused; resident set "
                  "%zu kB before, %zu kB after", N_STALLED, BODY_LENGTH - 1000, admitted, refused,
                  before / 1024, after / 1024);
  /* 1000000 / 200000 */
  g_assert_cmpuint (admitted, ==, 5);
  for (guint i = 0; i < N_STALLED; i++)
    {
      char byte;

      if (recv (g_socket_get_fd (stalled[i]), &byte, 1, MSG_PEEK | MSG_DONTWAIT) > 0)
        {
          g_autofree char *answer = raw_receive (stalled[i], 10000);

          g_assert_nonnull (answer);
          g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 503"));
          g_assert_nonnull (strstr (answer, "-32010"));
          g_clear_object (&stalled[i]);
        }
    }

  /* One held body is finished: it is served, and its share comes back;
   * one is abandoned: its share comes back too. */
  for (guint i = 0, done = 0; i < N_STALLED && done < 2; i++)
    if (stalled[i] != NULL)
      {
        if (done == 0)
          {
            g_autofree char *answer = NULL;

            g_assert_true (raw_send (stalled[i], body + BODY_LENGTH - 1000, 1000));
            answer = raw_receive (stalled[i], 20000);
            g_assert_nonnull (answer);
            g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
          }
        g_socket_close (stalled[i], NULL);
        g_clear_object (&stalled[i]);
        done++;
      }

  /* Two bodies fit again, once the server has seen the client go. */
  for (guint n = 0; n < 2; n++)
    {
      g_autofree char *answer = NULL;

      deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
      for (;;)
        {
          g_autoptr(GSocket) socket = raw_connect (fixture);
          g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                                      "Accept: application/json, text/event-stream\r\n"
                                                      "Content-Type: application/json\r\n"
                                                      "MCP-Protocol-Version: 2026-07-28\r\n"
                                                      "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"
                                                      "Content-Length: %u\r\n\r\n%s",
                                                      fixture->port, BODY_LENGTH, body);

          raw_send (socket, request, strlen (request));
          answer = raw_receive (socket, 20000);
          g_assert_nonnull (answer);
          if (g_str_has_prefix (answer, "HTTP/1.1 200"))
            break;
          g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 503"));
          g_assert_cmpint (g_get_monotonic_time (), <, deadline);
          g_clear_pointer (&answer, g_free);
        }
    }

  for (guint i = 0; i < N_STALLED; i++)
    g_clear_object (&stalled[i]);
}

/* Sends @data one byte at a time, every 20 ms, until the server closes
 * the connection; whether it did within @timeout_ms. */
static gboolean
trickle_until_closed (GSocket    *socket,
                      const char *data,
                      guint       timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;
  gsize len = strlen (data);

  for (gsize i = 0; g_get_monotonic_time () < deadline; i = (i + 1) % len)
    {
      g_autoptr(GString) in = g_string_new (NULL);
      gint64 next = g_get_monotonic_time () + 20 * G_TIME_SPAN_MILLISECOND;

      if (g_socket_send (socket, data + i, 1, NULL, NULL) != 1)
        return TRUE;
      while (g_get_monotonic_time () < next)
        {
          g_main_context_iteration (NULL, FALSE);
          if (!raw_read_some (socket, in))
            return TRUE;
          g_usleep (1000);
        }
    }
  return FALSE;
}

/* Runs the main context for @ms milliseconds. */
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

/* Trickles @data on @socket until the server closes it: the time that
 * took, in ms, asserted below @timeout_ms. */
static gint64
trickle_timed (GSocket    *socket,
               const char *data,
               guint       timeout_ms)
{
  gint64 start = g_get_monotonic_time ();

  g_assert_true (trickle_until_closed (socket, data, timeout_ms));
  return (g_get_monotonic_time () - start) / G_TIME_SPAN_MILLISECOND;
}

static void
test_read_deadline (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(GSocket) headers = raw_connect (fixture);
  g_autoptr(GSocket) body = raw_connect (fixture);
  g_autofree char *answer = NULL;
  g_autofree char *head = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                           "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n",
                                           fixture->port);
  gint64 took;

  g_test_summary ("A request must arrive whole within request-read-timeout of its first byte, "
                  "whatever connection-idle-timeout says: a client sending its headers, or its "
                  "body, a byte at a time is closed at the deadline, not before");

  g_assert_cmpuint (snodo_http_transport_get_request_read_timeout (fixture->transport), ==, 30);
  snodo_http_transport_set_connection_idle_timeout (fixture->transport, 0);
  snodo_http_transport_set_request_read_timeout (fixture->transport, 2);
  g_assert_cmpuint (snodo_http_transport_get_request_read_timeout (fixture->transport), ==, 2);

  took = trickle_timed (headers, "POST /mcp HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 20000);
  g_assert_cmpint (took, >=, 1900);
  g_assert_true (raw_send (body, head, strlen (head)));
  took = trickle_timed (body, "                    ", 20000);
  g_assert_cmpint (took, >=, 1500);

  answer = call_echo (fixture, "after");
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
}

/* Sends a 2026-07-28 call of @tool with @text on @socket and waits for its
 * whole answer. */
static char *
call_on (Fixture    *fixture,
         GSocket    *socket,
         const char *tool,
         const char *text)
{
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                                           "{\"name\":\"%s\",\"arguments\":{\"text\":\"%s\"}," ENVELOPE "}}",
                                           tool, text);
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n"
                                              "MCP-Protocol-Version: 2026-07-28\r\n"
                                              "Mcp-Method: tools/call\r\nMcp-Name: %s\r\n"
                                              "Content-Length: %zu\r\n\r\n%s",
                                              fixture->port, tool, strlen (body), body);

  g_assert_true (raw_send (socket, request, strlen (request)));
  return raw_receive (socket, 20000);
}

static void
test_read_deadline_keep_alive (Fixture       *fixture,
                               gconstpointer  data)
{
  g_autoptr(GSocket) socket = raw_connect (fixture);
  g_autoptr(GSocket) split = raw_connect (fixture);
  g_autofree char *first = NULL;
  g_autofree char *slow = NULL;
  g_autofree char *again = NULL;
  g_autofree char *whole = NULL;
  g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":"
                                           "{\"name\":\"echo\",\"arguments\":{\"text\":\"split\"}," ENVELOPE "}}");
  g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                              "Accept: application/json, text/event-stream\r\n"
                                              "Content-Type: application/json\r\n"
                                              "MCP-Protocol-Version: 2026-07-28\r\n"
                                              "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"
                                              "Content-Length: %zu\r\n\r\n%s",
                                              fixture->port, strlen (body), body);
  gsize half = strlen (request) / 2;

  g_test_summary ("request-read-timeout counts only the reading of a request: a kept-alive "
                  "connection quiet between requests, a handler slower than the deadline, and "
                  "a request sent in two parts within it are all served");

  snodo_http_transport_set_connection_idle_timeout (fixture->transport, 0);
  snodo_http_transport_set_request_read_timeout (fixture->transport, 1);

  first = call_on (fixture, socket, "echo", "one");
  g_assert_nonnull (first);
  g_assert_true (g_str_has_prefix (first, "HTTP/1.1 200"));
  /* Quiet for three deadlines between two requests. */
  run_for (3000);
  slow = call_on (fixture, socket, "slow", "two");
  g_assert_nonnull (slow);
  g_assert_true (g_str_has_prefix (slow, "HTTP/1.1 200"));
  g_assert_nonnull (strstr (slow, "two"));
  again = call_on (fixture, socket, "echo", "three");
  g_assert_nonnull (again);
  g_assert_nonnull (strstr (again, "three"));

  /* Half a request, a pause well under the deadline, the rest. */
  g_assert_true (raw_send (split, request, half));
  run_for (300);
  g_assert_true (raw_send (split, request + half, strlen (request) - half));
  whole = raw_receive (split, 20000);
  g_assert_nonnull (whole);
  g_assert_nonnull (strstr (whole, "split"));
}

/* A client socket connected to @address (TCP or Unix), non-blocking. */
static GSocket *
raw_connect_to (GSocketAddress *address)
{
  g_autoptr(GError) error = NULL;
  GSocket *socket = g_socket_new (g_socket_address_get_family (address), G_SOCKET_TYPE_STREAM,
                                  G_SOCKET_PROTOCOL_DEFAULT, &error);

  g_assert_no_error (error);
  g_assert_true (g_socket_connect (socket, address, NULL, &error));
  g_assert_no_error (error);
  g_socket_set_blocking (socket, FALSE);
  return socket;
}

static void
test_read_deadline_listeners (Fixture       *fixture,
                              gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("snodo-deadline-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "mcp.sock", NULL);
  g_autoptr(GSocketAddress) unix_address = g_unix_socket_address_new (path);
  g_autoptr(GSocketAddress) any = g_inet_socket_address_new_from_string ("127.0.0.1", 0);
  g_autoptr(GSocket) listening = NULL;
  g_autoptr(GSocketAddress) bound = NULL;
  SnodoHttpTransport *transports[2];
  GSocketAddress *addresses[2];

  g_test_summary ("The read deadline holds on a Unix socket and on a socket the application "
                  "passes in (as systemd's LISTEN_FDS gives one)");

  g_assert_no_error (error);
  listening = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_true (g_socket_bind (listening, any, TRUE, &error));
  g_assert_true (g_socket_listen (listening, &error));
  g_assert_no_error (error);
  bound = g_socket_get_local_address (listening, &error);
  g_assert_no_error (error);

  transports[0] = snodo_http_transport_new (fixture->server);
  g_assert_true (snodo_http_transport_listen (transports[0], unix_address, &error));
  g_assert_no_error (error);
  addresses[0] = unix_address;
  transports[1] = snodo_http_transport_new (fixture->server);
  g_assert_true (snodo_http_transport_listen_socket (transports[1], listening, &error));
  g_assert_no_error (error);
  addresses[1] = bound;

  for (guint i = 0; i < G_N_ELEMENTS (transports); i++)
    {
      g_autoptr(GSocket) socket = raw_connect_to (addresses[i]);
      gboolean done = FALSE;
      gint64 took;

      snodo_http_transport_set_connection_idle_timeout (transports[i], 0);
      snodo_http_transport_set_request_read_timeout (transports[i], 1);
      took = trickle_timed (socket, "POST /mcp HTTP/1.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 20000);
      g_assert_cmpint (took, >=, 900);
      snodo_http_transport_close_async (transports[i], NULL, close_cb, &done);
      g_assert_true (snodo_test_wait_for (&done, 10000));
      g_assert_finalize_object (transports[i]);
    }
  g_rmdir (dir);
}

static void
test_bodies_budget_chunked (Fixture       *fixture,
                            gconstpointer  data)
{
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"subscriptions/listen\",\"params\":"
                     "{\"notifications\":{\"toolsListChanged\":true}," ENVELOPE "}}";
  GSocket *sockets[4];
  gsize len = strlen (body);

  g_test_summary ("A chunked body gives its share of max-bodies-bytes back once read, "
                  "even when its request lasts: streams opened with chunked bodies leave "
                  "room for more");

  snodo_http_transport_set_max_bodies_bytes (fixture->transport, 2 * len + len / 2);
  for (guint i = 0; i < G_N_ELEMENTS (sockets); i++)
    {
      g_autoptr(GString) in = g_string_new (NULL);
      g_autofree char *request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                                  "Accept: application/json, text/event-stream\r\n"
                                                  "Content-Type: application/json\r\n"
                                                  "MCP-Protocol-Version: 2026-07-28\r\n"
                                                  "Mcp-Method: subscriptions/listen\r\n"
                                                  "Transfer-Encoding: chunked\r\n\r\n%zx\r\n%s\r\n0\r\n\r\n",
                                                  fixture->port, len, body);

      sockets[i] = raw_connect (fixture);
      g_assert_true (raw_send (sockets[i], request, strlen (request)));
      g_assert_true (raw_wait_for (sockets[i], in, "acknowledged", 10000));
      g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 200"));
    }
  for (guint i = 0; i < G_N_ELEMENTS (sockets); i++)
    g_object_unref (sockets[i]);
}

/* ---- Clients that reset their connection ----------------------------------- */

static void
test_reset_after_answer (Fixture       *fixture,
                         gconstpointer  data)
{
  g_autofree char *text = g_strnfill (1000000, 'r');
  g_autofree char *answer = NULL;
  gint64 deadline;

  g_test_summary ("A client that closes its kept-alive connection before reading its whole answer "
                  "(the kernel resets the connection) is forgotten: its connection and descriptor "
                  "go, and more such clients than max-connections do not lock others out "
                  "(libsoup 3.2 forgot such connections without closing them)");

  snodo_http_transport_set_max_connections (fixture->transport, 4);
  for (guint i = 0; i < 12; i++)
    {
      g_autoptr(GSocket) socket = raw_connect (fixture);
      g_autoptr(GString) in = g_string_new (NULL);
      g_autofree char *body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":"
                                               "{\"name\":\"echo\",\"arguments\":{\"text\":\"%s\"}," ENVELOPE "}}",
                                               text);

      raw_post_modern (fixture, socket, "tools/call\r\nMcp-Name: echo", body);
      /* The first bytes of the answer only. */
      deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
      while (in->len == 0)
        {
          char buf[1024];
          gssize n = g_socket_receive (socket, buf, sizeof buf, NULL, NULL);

          if (n > 0)
            g_string_append_len (in, buf, n);
          g_assert_cmpint (g_get_monotonic_time (), <, deadline);
          g_main_context_iteration (NULL, FALSE);
        }
      g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 200"));
      /* Let the server write all of it, then close with most of it unread. */
      run_for (200);
      g_socket_close (socket, NULL);
    }
  deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
  while (snodo_http_transport_get_n_connections (fixture->transport) > 0)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      run_for (10);
    }
  answer = call_echo (fixture, "after");
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
}

/* ---- Malformed chunked bodies ---------------------------------------------- */

/* Sends a 2026-07-28 echo whose chunked body is @chunks, with LEN
 * replaced by the JSON body's length in hexadecimal and BODY by the body,
 * on a new connection; returns its socket. */
static GSocket *
send_chunked (Fixture    *fixture,
              const char *chunks)
{
  static const char body[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                             "{\"name\":\"echo\",\"arguments\":{\"text\":\"chunky\"}," ENVELOPE "}}";
  GSocket *socket = raw_connect (fixture);
  g_autoptr(GString) framed = g_string_new (chunks);
  g_autofree char *length = g_strdup_printf ("%zx", strlen (body));
  g_autofree char *request = NULL;

  g_string_replace (framed, "LEN", length, 0);
  g_string_replace (framed, "BODY", body, 0);
  request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                             "Accept: application/json, text/event-stream\r\n"
                             "Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n"
                             "Mcp-Method: tools/call\r\nMcp-Name: echo\r\n"
                             "Transfer-Encoding: chunked\r\n\r\n%s", fixture->port, framed->str);
  g_assert_true (raw_send (socket, request, strlen (request)));
  return socket;
}

static void
test_chunks_malformed (Fixture       *fixture,
                       gconstpointer  data)
{
  /* Framing libsoup 3.2 misreads (the first three as the last chunk, the
   * fourth by dropping the rest of the line) or cannot read (the fifth):
   * answered 400 by the transport. */
  static const char *const malformed[] = {
    "zz\r\nBODY\r\n0\r\n\r\n",
    "-5\r\nBODY\r\n0\r\n\r\n",
    "ffffffffffffffff\r\nBODY\r\n0\r\n\r\n",
    "LEN\r\nBODYXX\r\n0\r\n\r\n",
    "LEN;ext=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\nBODY\r\n0\r\n\r\n",
    "LEN zz\r\nBODY\r\n0\r\n\r\n",
  };
  /* Well formed, if unusual: served. */
  static const char *const unusual[] = {
    "LEN;name=value\r\nBODY\r\n0\r\n\r\n",
    "LEN\nBODY\n0\n\n",
    "LEN\r\nBODY\r\n0\r\nX-Trailer: 1\r\n\r\n",
    "0000000000000000000LEN\r\nBODY\r\n0\r\n\r\n",
  };
  /* Cut short: closed at the read deadline. */
  static const char *const truncated[] = {
    "LEN\r\n{\"jsonrpc\"",
    "LEN\r\nBODY\r\n",
    "10\r\n",
  };
  g_autofree char *good = NULL;

  g_test_summary ("Malformed chunked bodies are answered 400 (-32700) and their connection closed; "
                  "a size beyond max-body-bytes gets 413 at once; a body cut short is closed at "
                  "request-read-timeout; well-formed chunks (extensions, bare LF, trailers) are served, "
                  "and a kept-alive connection serves a chunked request after another");

  snodo_http_transport_set_connection_idle_timeout (fixture->transport, 0);
  snodo_http_transport_set_request_read_timeout (fixture->transport, 1);

  {
    g_autoptr(GSocket) socket = send_chunked (fixture, "LEN\r\nBODY\r\n0\r\n\r\n");
    g_autofree char *second = NULL;

    good = raw_receive (socket, 20000);
    g_assert_nonnull (good);
    g_assert_true (g_str_has_prefix (good, "HTTP/1.1 200"));
    g_assert_nonnull (strstr (good, "chunky"));
    /* The same connection, a plain request next. */
    second = call_on (fixture, socket, "echo", "again");
    g_assert_nonnull (second);
    g_assert_nonnull (strstr (second, "again"));
  }
  for (guint i = 0; i < G_N_ELEMENTS (unusual); i++)
    {
      g_autoptr(GSocket) socket = send_chunked (fixture, unusual[i]);
      g_autofree char *answer = raw_receive (socket, 20000);

      g_assert_nonnull (answer);
      if (!g_str_has_prefix (answer, "HTTP/1.1 200"))
        g_error ("%s: %s", unusual[i], answer);
      g_assert_nonnull (strstr (answer, "chunky"));
    }
  for (guint i = 0; i < G_N_ELEMENTS (malformed); i++)
    {
      g_autoptr(GSocket) socket = send_chunked (fixture, malformed[i]);
      g_autofree char *answer = raw_receive (socket, 20000);

      g_assert_nonnull (answer);
      if (!g_str_has_prefix (answer, "HTTP/1.1 400"))
        g_error ("%s: %s", malformed[i], answer);
      g_assert_nonnull (strstr (answer, "-32700"));
      g_assert_true (raw_wait_closed (socket, 20000));
    }
  {
    g_autoptr(GSocket) socket = send_chunked (fixture, "fffffffffffffff\r\nBODY");
    g_autoptr(GString) in = g_string_new (NULL);
    g_autofree char *filler = g_strnfill (100000, ' ');

    for (guint i = 0; i < 25 && raw_send (socket, filler, strlen (filler)); i++)
      ;
    g_assert_true (raw_wait_for (socket, in, "\r\n\r\n", 20000));
    g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 413"));
  }
  for (guint i = 0; i < G_N_ELEMENTS (truncated); i++)
    {
      g_autoptr(GSocket) socket = send_chunked (fixture, truncated[i]);
      gint64 start = g_get_monotonic_time ();

      g_assert_true (raw_wait_closed (socket, 20000));
      g_assert_cmpint (g_get_monotonic_time () - start, >=, 900 * G_TIME_SPAN_MILLISECOND);
    }
}

/* ---- Repeated headers ------------------------------------------------------ */

/* Sends the whole HTTP @request on a new connection: its whole response. */
static char *
raw_request (Fixture    *fixture,
             const char *request)
{
  g_autoptr(GSocket) socket = raw_connect (fixture);

  g_assert_true (raw_send (socket, request, strlen (request)));
  return raw_receive (socket, 20000);
}

/* @answer is a 400 with a -32020 error in a JSON-RPC body. */
static void
assert_header_refused (const char *answer)
{
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 400"));
  g_assert_nonnull (strstr (answer, "Content-Type: application/json"));
  g_assert_nonnull (strstr (answer, "\"code\":-32020"));
  g_assert_nonnull (strstr (answer, "more than once"));
}

static void
test_headers_repeated (Fixture       *fixture,
                       gconstpointer  data)
{
  static const char * const methods[] = { "GET", "DELETE" };
  g_autofree char *session_id = NULL;
  g_autofree char *answer = NULL;
  g_autofree char *request = NULL;

  g_test_summary ("A repeated Mcp-Session-Id (POST, GET, DELETE) or MCP-Protocol-Version "
                  "(GET, DELETE) is refused with 400 and -32020, even when the copies agree; "
                  "the session is untouched");

  session_id = try_initialize (fixture);
  g_assert_nonnull (session_id);

  /* POST of the initialize era. */
  request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                             "Accept: application/json, text/event-stream\r\n"
                             "Content-Type: application/json\r\n"
                             "Mcp-Session-Id: %s\r\nMcp-Session-Id: %s\r\n"
                             "MCP-Protocol-Version: 2025-11-25\r\nContent-Length: 40\r\n\r\n"
                             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}",
                             fixture->port, session_id, session_id);
  answer = raw_request (fixture, request);
  assert_header_refused (answer);
  g_assert_nonnull (strstr (answer, "Mcp-Session-Id header"));
  g_clear_pointer (&answer, g_free);
  g_clear_pointer (&request, g_free);

  /* POST of 2026-07-28: the session header means nothing there, but two
   * copies are refused all the same. */
  request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                             "Accept: application/json, text/event-stream\r\n"
                             "Content-Type: application/json\r\n"
                             "Mcp-Session-Id: a\r\nMcp-Session-Id: b\r\n"
                             "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: ping\r\n"
                             "Content-Length: %zu\r\n\r\n%s",
                             fixture->port,
                             strlen ("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{" ENVELOPE "}}"),
                             "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":{" ENVELOPE "}}");
  answer = raw_request (fixture, request);
  assert_header_refused (answer);
  g_assert_nonnull (strstr (answer, "\"id\":3"));
  g_clear_pointer (&answer, g_free);
  g_clear_pointer (&request, g_free);

  for (guint i = 0; i < G_N_ELEMENTS (methods); i++)
    {
      request = g_strdup_printf ("%s /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                 "Accept: text/event-stream\r\n"
                                 "Mcp-Session-Id: %s\r\nmcp-session-id: %s\r\n"
                                 "MCP-Protocol-Version: 2025-11-25\r\n\r\n",
                                 methods[i], fixture->port, session_id, session_id);
      answer = raw_request (fixture, request);
      assert_header_refused (answer);
      g_assert_nonnull (strstr (answer, "Mcp-Session-Id header"));
      g_clear_pointer (&answer, g_free);
      g_clear_pointer (&request, g_free);

      request = g_strdup_printf ("%s /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                                 "Accept: text/event-stream\r\n"
                                 "Mcp-Session-Id: %s\r\n"
                                 "MCP-Protocol-Version: 2025-11-25\r\n"
                                 "MCP-Protocol-Version: 2026-07-28\r\n\r\n",
                                 methods[i], fixture->port, session_id);
      answer = raw_request (fixture, request);
      assert_header_refused (answer);
      g_assert_nonnull (strstr (answer, "MCP-Protocol-Version header"));
      g_clear_pointer (&answer, g_free);
      g_clear_pointer (&request, g_free);
    }

  /* None of it touched the session; one copy of each still ends it. */
  g_assert_cmpuint (ping (fixture, session_id), ==, 200);
  request = g_strdup_printf ("DELETE /mcp HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                             "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n",
                             fixture->port, session_id);
  answer = raw_request (fixture, request);
  g_assert_nonnull (answer);
  g_assert_true (g_str_has_prefix (answer, "HTTP/1.1 200"));
  g_assert_cmpuint (ping (fixture, session_id), ==, 404);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/snodo/http/limits/stream-memory/readers", Fixture, NULL, fixture_setup,
              test_stream_memory_readers, fixture_teardown);
  g_test_add ("/snodo/http/limits/stream-memory/non-reader", Fixture, NULL, fixture_setup,
              test_stream_memory_non_reader, fixture_teardown);

  g_test_add ("/snodo/http/limits/streams/no-executor-slot", Fixture, NULL, fixture_setup,
              test_streams_hold_no_slot, fixture_teardown);
  g_test_add ("/snodo/http/limits/streams/per-address", Fixture, NULL, fixture_setup,
              test_streams_per_address, fixture_teardown);

  g_test_add ("/snodo/http/limits/sessions/evict-idle", Fixture, NULL, fixture_setup,
              test_sessions_evict_idle, fixture_teardown);

  g_test_add ("/snodo/http/limits/bodies/refused-at-once", Fixture, NULL, fixture_setup,
              test_bodies_length_at_once, fixture_teardown);
  g_test_add ("/snodo/http/limits/bodies/budget", Fixture, NULL, fixture_setup,
              test_bodies_budget, fixture_teardown);

  g_test_add ("/snodo/http/limits/bodies/budget-chunked", Fixture, NULL, fixture_setup,
              test_bodies_budget_chunked, fixture_teardown);
  g_test_add ("/snodo/http/limits/read-deadline/headers-and-body", Fixture, NULL, fixture_setup,
              test_read_deadline, fixture_teardown);
  g_test_add ("/snodo/http/limits/read-deadline/keep-alive", Fixture, NULL, fixture_setup,
              test_read_deadline_keep_alive, fixture_teardown);
  g_test_add ("/snodo/http/limits/read-deadline/listeners", Fixture, NULL, fixture_setup,
              test_read_deadline_listeners, fixture_teardown);

  g_test_add ("/snodo/http/limits/bodies/chunks-malformed", Fixture, NULL, fixture_setup,
              test_chunks_malformed, fixture_teardown);
  g_test_add ("/snodo/http/limits/connections/reset-after-answer", Fixture, NULL, fixture_setup,
              test_reset_after_answer, fixture_teardown);
  g_test_add ("/snodo/http/limits/headers/repeated", Fixture, NULL, fixture_setup,
              test_headers_repeated, fixture_teardown);

  return g_test_run ();
}
