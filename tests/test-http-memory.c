/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* What a request holds over HTTP is counted against max-live-bytes until it
 * is answered, through a real socket on the loopback interface: a large
 * answer that its client does not read yet counts, and is given back once
 * written. (The flood of large bodies is
 * tests/http-flood.py.) */

#include "config.h"

#include <string.h>
#include <sys/socket.h>

#include <json-glib/json-glib.h>

#include "snodo-executor.h"
#include "snodo-http-transport.h"
#include "snodo-invocation.h"
#include "snodo-server.h"
#include "snodo-test-util.h"
#include "snodo-tool.h"

#define ENVELOPE "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                 "\"io.modelcontextprotocol/clientCapabilities\":{}}"
/* More than the socket buffers of the loopback interface take. */
#define TEXT_BYTES (16 * 1024 * 1024)

/* big: answers TEXT_BYTES of text. */
static void
big_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  g_autofree char *text = g_malloc (TEXT_BYTES + 1);

  memset (text, 'y', TEXT_BYTES);
  text[TEXT_BYTES] = '\0';
  snodo_invocation_return_text (invocation, text);
}

static gboolean
run_until (gboolean (*check) (SnodoExecutor *executor),
           SnodoExecutor *executor,
           guint          timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_TIME_SPAN_MILLISECOND;

  while (!check (executor))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  return TRUE;
}

/* The answer is counted: the request itself costs a few hundred bytes. */
static gboolean
answer_held (SnodoExecutor *executor)
{
  return snodo_executor_get_live_bytes (executor) >= TEXT_BYTES;
}

static gboolean
nothing_held (SnodoExecutor *executor)
{
  return snodo_executor_get_live_bytes (executor) == 0;
}

static void
test_answer_counted (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
  g_autoptr(SnodoTool) big = snodo_tool_new ("big", NULL);
  g_autoptr(SnodoExecutor) executor = snodo_executor_new ();
  g_autoptr(SnodoHttpTransport) transport = NULL;
  g_autoptr(GSocket) socket = NULL;
  g_autoptr(GSocketAddress) address = NULL;
  const char *body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"big\",\"arguments\":{}," ENVELOPE "}}";
  g_autoptr(GString) request = g_string_new (NULL);
  g_autoptr(GString) in = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  gsize sent = 0;
  gint64 deadline;

  g_test_summary ("A large answer its client has not read yet counts against max-live-bytes "
                  "(its request is small), and is given back once written");

  g_assert_true (snodo_server_add_tool (server, big, big_cb, NULL, NULL, NULL));
  transport = g_object_new (SNODO_TYPE_HTTP_TRANSPORT, "server", server, "executor", executor, NULL);
  g_assert_true (snodo_http_transport_listen_local (transport, 0, &error));
  g_assert_no_error (error);

  g_string_printf (request, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n"
                   "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: big\r\n"
                   "Content-Length: %zu\r\n\r\n%s", strlen (body), body);

  socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error);
  g_assert_no_error (error);
  g_socket_set_option (socket, SOL_SOCKET, SO_RCVBUF, 65536, NULL);
  address = g_inet_socket_address_new_from_string ("127.0.0.1", snodo_http_transport_get_port (transport));
  g_assert_true (g_socket_connect (socket, address, NULL, &error));
  g_assert_no_error (error);
  g_socket_set_blocking (socket, FALSE);

  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (sent < request->len)
    {
      gssize n = g_socket_send (socket, request->str + sent, request->len - sent, NULL, NULL);

      if (n > 0)
        sent += n;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
    }

  /* The client reads nothing: the answer waits in the server, once it
   * has begun to be written. */
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  for (;;)
    {
      char byte;

      if (g_socket_receive_message (socket, NULL, &(GInputVector) { &byte, 1 }, 1, NULL, NULL,
                                    &(int) { MSG_PEEK }, NULL, NULL) == 1)
        break;
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_true (run_until (answer_held, executor, 20000));
  g_test_message ("live bytes with the answer unread: %" G_GUINT64_FORMAT,
                  snodo_executor_get_live_bytes (executor));

  /* Read whole, it is given back. */
  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (in->len < TEXT_BYTES)
    {
      char buf[65536];
      gssize n = g_socket_receive (socket, buf, sizeof buf, NULL, NULL);

      if (n > 0)
        g_string_append_len (in, buf, n);
      if (n == 0)
        g_error ("closed after %zu bytes: %.300s", in->len, in->str);
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, FALSE);
    }
  g_assert_true (g_str_has_prefix (in->str, "HTTP/1.1 200"));
  g_assert_true (run_until (nothing_held, executor, 20000));

  g_socket_close (socket, NULL);
  {
    g_autoptr(GAsyncResult) result = NULL;

    snodo_http_transport_close_async (transport, NULL, snodo_test_store_result_cb, &result);
    g_assert_true (snodo_http_transport_close_finish (transport, snodo_test_wait_result (&result), NULL));
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/http/memory/answer-counted", test_answer_counted);

  return g_test_run ();
}
