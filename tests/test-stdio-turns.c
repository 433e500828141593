/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoStdioTransport over real pipes, turn by turn of the main loop: a
 * request whose handler answers at once is read, run, answered and
 * finished in one turn, and handlers still never run inside one another. */

#include "config.h"

#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>

#include "snodo-test-util.h"

/* Handlers running now; the most seen at once. */
static guint depth;
static guint max_depth;
/* What the next nest_cb writes to the input (the test's end) before it
 * iterates the context. */
static int nest_write_fd = -1;
static char *nest_line;

static void
now_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  max_depth = MAX (max_depth, depth + 1);
  snodo_invocation_return_text (invocation, "now");
}

/* Iterates the context from inside the handler (which a handler should not
 * do, but may), with another call arriving meanwhile: no other handler may
 * run inside this one. */
static void
nest_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  depth++;
  max_depth = MAX (max_depth, depth);
  if (nest_line != NULL)
    {
      g_autofree char *line = g_steal_pointer (&nest_line);

      g_assert_cmpint (write (nest_write_fd, line, strlen (line)), ==, (gssize) strlen (line));
    }
  for (guint i = 0; i < 10; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  depth--;
  snodo_invocation_return_text (invocation, "nested");
}

static SnodoServer *
make_server (void)
{
  g_autoptr(SnodoTool) now_tool = snodo_tool_new ("now", NULL);
  g_autoptr(SnodoTool) nest_tool = snodo_tool_new ("nest", NULL);
  SnodoServer *server = snodo_server_new ("test", "1");

  g_assert_true (snodo_server_add_tool (server, now_tool, now_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_tool (server, nest_tool, nest_cb, NULL, NULL, NULL));
  return server;
}

static char *
call_line (gint64      id,
           const char *tool)
{
  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tools/call\","
                          "\"params\":{\"name\":\"%s\",\"arguments\":{},"
                          "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                          "\"io.modelcontextprotocol/clientCapabilities\":{}}}}\n",
                          id, tool);
}

/* Whether the server's answers can be read now, without waiting. */
static gboolean
answer_readable (SnodoTestPipe *pipe)
{
  GInputStream *base = g_filter_input_stream_get_base_stream (G_FILTER_INPUT_STREAM (pipe->answers));
  struct pollfd pfd = { .fd = g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (base)), .events = POLLIN };

  /* Nothing may sit in the reader's buffer: answers are read one by one. */
  g_assert_cmpuint (g_buffered_input_stream_get_available (G_BUFFERED_INPUT_STREAM (pipe->answers)), ==, 0);
  return poll (&pfd, 1, 0) == 1 && (pfd.revents & POLLIN) != 0;
}

/* Writes @n calls of @tool in one go, then runs the main loop until the
 * turn that read them; returns how many works finished in that turn. */
static guint64
send_and_turn (SnodoTestPipe *pipe,
               const char    *tool,
               guint          n)
{
  SnodoExecutor *executor = snodo_stdio_transport_get_executor (pipe->transport);
  g_autoptr(GString) lines = g_string_new (NULL);
  guint64 admitted;
  guint64 completed;
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  /* Nothing left over from before. */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  admitted = snodo_executor_get_admitted (executor);
  completed = snodo_executor_get_completed (executor);
  g_assert_false (answer_readable (pipe));

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *line = call_line (pipe->next_id + i, tool);

      g_string_append (lines, line);
    }
  g_assert_cmpint (write (pipe->write_fd, lines->str, lines->len), ==, (gssize) lines->len);

  /* Whatever else the context has to do, the turn that reads the calls
   * admits them all (they are one write, far below a read's size; a
   * handler may have had one more read meanwhile). */
  while (snodo_executor_get_admitted (executor) == admitted)
    {
      g_assert_cmpint (g_get_monotonic_time (), <, deadline);
      g_main_context_iteration (NULL, TRUE);
    }
  g_assert_cmpuint (snodo_executor_get_admitted (executor), >=, admitted + n);

  return snodo_executor_get_completed (executor) - completed;
}

static void
read_answers (SnodoTestPipe *pipe,
              guint          n,
              const char    *text)
{
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(JsonNode) answer = snodo_test_pipe_read (pipe);
      g_autofree char *got = NULL;

      g_assert_cmpint (json_object_get_int_member (json_node_get_object (answer), "id"), ==, pipe->next_id);
      got = snodo_test_first_text (snodo_test_get_result (answer));
      g_assert_cmpstr (got, ==, text);
      pipe->next_id++;
    }
}

static void
test_one_turn (void)
{
  g_autoptr(SnodoServer) server = make_server ();
  SnodoTestPipe pipe = { 0, };

  g_test_summary ("A call whose handler answers at once is read, run, written and finished in "
                  "one turn of the main loop, one at a time or several in one read");

  snodo_test_pipe_set_up_for (&pipe, server);
  /* The first call makes what the transport keeps for the next ones. */
  g_assert_cmpuint (send_and_turn (&pipe, "now", 1), ==, 1);
  read_answers (&pipe, 1, "now");

  for (guint round = 0; round < 5; round++)
    {
      g_assert_cmpuint (send_and_turn (&pipe, "now", 1), ==, 1);
      g_assert_true (answer_readable (&pipe));
      read_answers (&pipe, 1, "now");
    }

  /* Sixteen at once: their answers go out in batches, and all of them are
   * reported in the same turn. */
  g_assert_cmpuint (send_and_turn (&pipe, "now", 16), ==, 16);
  read_answers (&pipe, 16, "now");

  /* More than the executor runs in one go: the rest follows on the next
   * turns, in order. */
  g_assert_cmpuint (send_and_turn (&pipe, "now", 40), >=, 32);
  read_answers (&pipe, 40, "now");

  g_clear_object (&server);
  snodo_test_pipe_tear_down (&pipe);
}

static void
test_no_nesting (void)
{
  g_autoptr(SnodoServer) server = make_server ();
  SnodoTestPipe pipe = { 0, };

  g_test_summary ("A handler that iterates the main context does not get the handlers of the "
                  "calls read with it run inside it");

  snodo_test_pipe_set_up_for (&pipe, server);
  depth = max_depth = 0;
  send_and_turn (&pipe, "nest", 4);
  read_answers (&pipe, 4, "nested");
  g_assert_cmpuint (max_depth, ==, 1);

  /* A call that arrives while a handler iterates the context is read
   * there, but it runs after that handler has returned. */
  for (guint i = 0; i < 3; i++)
    {
      nest_write_fd = pipe.write_fd;
      nest_line = call_line (pipe.next_id + 1, "now");
      send_and_turn (&pipe, "nest", 1);
      g_assert_null (nest_line);
      read_answers (&pipe, 1, "nested");
      read_answers (&pipe, 1, "now");
      g_assert_cmpuint (max_depth, ==, 1);
    }

  g_clear_object (&server);
  snodo_test_pipe_tear_down (&pipe);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/stdio-turns/one-turn", test_one_turn);
  g_test_add_func ("/snodo/stdio-turns/no-nesting", test_no_nesting);

  return g_test_run ();
}
