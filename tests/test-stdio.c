/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoStdioTransport in-process, with streams that record what is done to
 * them. */

#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib-unix.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>

#include "snodo-test-util.h"
#include "snodo-writer-private.h"

/* ---- An output stream that records writes and closes ------------------ */

typedef enum
{
  OUTPUT_OK,
  OUTPUT_FAIL,
  OUTPUT_BLOCK,
} OutputMode;

#define TEST_TYPE_OUTPUT (test_output_get_type ())
G_DECLARE_FINAL_TYPE (TestOutput, test_output, TEST, OUTPUT, GOutputStream)

struct _TestOutput
{
  GOutputStream  parent_instance;
  GMutex         lock;
  GCond          cond;
  OutputMode     mode;
  gboolean       released;
  GString       *data;
  guint          n_writes;
  guint          n_closes;
};

G_DEFINE_FINAL_TYPE (TestOutput, test_output, G_TYPE_OUTPUT_STREAM)

static gssize
test_output_write (GOutputStream  *stream,
                   const void     *buffer,
                   gsize           count,
                   GCancellable   *cancellable,
                   GError        **error)
{
  TestOutput *self = TEST_OUTPUT (stream);
  gssize result = count;

  g_mutex_lock (&self->lock);
  self->n_writes++;
  switch (self->mode)
    {
    case OUTPUT_FAIL:
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE, "the pipe is gone");
      result = -1;
      break;
    case OUTPUT_BLOCK:
      while (!self->released)
        g_cond_wait (&self->cond, &self->lock);
      g_string_append_len (self->data, buffer, count);
      break;
    case OUTPUT_OK:
    default:
      g_string_append_len (self->data, buffer, count);
      break;
    }
  g_mutex_unlock (&self->lock);
  return result;
}

static gboolean
test_output_close (GOutputStream  *stream,
                   GCancellable   *cancellable,
                   GError        **error)
{
  TestOutput *self = TEST_OUTPUT (stream);

  g_mutex_lock (&self->lock);
  self->n_closes++;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static void
test_output_finalize (GObject *object)
{
  TestOutput *self = TEST_OUTPUT (object);

  g_string_free (self->data, TRUE);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  G_OBJECT_CLASS (test_output_parent_class)->finalize (object);
}

static void
test_output_class_init (TestOutputClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_output_finalize;
  G_OUTPUT_STREAM_CLASS (klass)->write_fn = test_output_write;
  G_OUTPUT_STREAM_CLASS (klass)->close_fn = test_output_close;
}

static void
test_output_init (TestOutput *self)
{
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->data = g_string_new (NULL);
}

static void
test_output_release (TestOutput *self)
{
  g_mutex_lock (&self->lock);
  self->released = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
}

static char *
test_output_dup_data (TestOutput *self)
{
  char *data;

  g_mutex_lock (&self->lock);
  data = g_strdup (self->data->str);
  g_mutex_unlock (&self->lock);
  return data;
}

static guint
test_output_count_lines (TestOutput *self)
{
  g_autofree char *data = test_output_dup_data (self);
  guint n = 0;

  for (const char *p = data; *p; p++)
    n += (*p == '\n');
  return n;
}

/* ---- An input stream over a pipe that records closes ----------------- */

#define TEST_TYPE_INPUT (test_input_get_type ())
G_DECLARE_FINAL_TYPE (TestInput, test_input, TEST, INPUT, GFilterInputStream)

struct _TestInput
{
  GFilterInputStream  parent_instance;
  guint               n_closes;
};

G_DEFINE_FINAL_TYPE (TestInput, test_input, G_TYPE_FILTER_INPUT_STREAM)

static gboolean
test_input_close (GInputStream  *stream,
                  GCancellable  *cancellable,
                  GError       **error)
{
  TEST_INPUT (stream)->n_closes++;
  return TRUE;
}

static void
test_input_class_init (TestInputClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->close_fn = test_input_close;
}

static void
test_input_init (TestInput *self)
{
}

/* ---- Fixture ------------------------------------------------------------ */

typedef struct
{
  SnodoServer         *server;
  SnodoStdioTransport *transport;
  TestInput           *input;
  TestOutput          *output;
  /* The test's end of the input pipe. */
  int                  write_fd;
  gboolean             closed;
  GError              *closed_error;
} Fixture;

static void
protocol_version_cb (SnodoInvocation *invocation,
                     gpointer         user_data)
{
  snodo_invocation_return_text (invocation,
                                snodo_protocol_version_to_string (snodo_invocation_get_protocol_version (invocation)));
}

static void
thread_name_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  GThread *main_thread = user_data;

  snodo_invocation_return_text (invocation, g_thread_self () == main_thread ? "main" : "worker");
}

static void
bad_structure_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  const char *kind = json_object_get_string_member (snodo_invocation_get_arguments (invocation), "kind");

  if (g_str_equal (kind, "good"))
    snodo_invocation_return_result_from_string (invocation,
                                                "{\"content\":[],\"structuredContent\":{\"n\":1}}", NULL);
  else if (g_str_equal (kind, "bad"))
    snodo_invocation_return_result_from_string (invocation,
                                                "{\"content\":[],\"structuredContent\":{\"n\":\"x\"}}", NULL);
  else
    snodo_invocation_return_result_from_string (invocation, "{\"content\":[]}", NULL);
}

static void
closed_cb (SnodoStdioTransport *transport,
           const GError        *error,
           Fixture             *fixture)
{
  g_assert_false (fixture->closed);
  fixture->closed = TRUE;
  if (error != NULL)
    fixture->closed_error = g_error_copy (error);
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(SnodoTool) version_tool = snodo_tool_new ("version", NULL);
  g_autoptr(SnodoTool) thread_tool = snodo_tool_new ("thread", NULL);
  g_autoptr(GInputStream) base = NULL;
  int fds[2];

  fixture->server = snodo_server_new ("test", "1");
  g_assert_true (snodo_server_add_tool (fixture->server, version_tool, protocol_version_cb, NULL, NULL, NULL));
  snodo_tool_set_run_in_thread (thread_tool, TRUE);
  g_assert_true (snodo_server_add_tool (fixture->server, thread_tool, thread_name_cb, g_thread_self (), NULL, NULL));
  {
    g_autoptr(SnodoTool) structured_tool = snodo_tool_new ("structured", NULL);
    g_autoptr(JsonNode) output = snodo_test_parse ("{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},"
                                                   "\"required\":[\"n\"]}");

    g_assert_true (snodo_tool_set_output_schema (structured_tool, output, NULL));
    g_assert_true (snodo_server_add_tool (fixture->server, structured_tool, bad_structure_cb, NULL, NULL, NULL));
  }

  g_assert_true (g_unix_open_pipe (fds, FD_CLOEXEC, NULL));
  base = g_unix_input_stream_new (fds[0], TRUE);
  fixture->write_fd = fds[1];
  fixture->input = g_object_new (TEST_TYPE_INPUT, "base-stream", base, "close-base-stream", FALSE, NULL);
  fixture->output = g_object_new (TEST_TYPE_OUTPUT, NULL);
  fixture->output->mode = GPOINTER_TO_INT (data);

  fixture->transport = snodo_stdio_transport_new (fixture->server,
                                                  G_INPUT_STREAM (fixture->input),
                                                  G_OUTPUT_STREAM (fixture->output));
  g_signal_connect (fixture->transport, "closed", G_CALLBACK (closed_cb), fixture);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  if (fixture->write_fd >= 0)
    close (fixture->write_fd);
  test_output_release (fixture->output);
  g_clear_error (&fixture->closed_error);
  g_clear_object (&fixture->transport);
  g_clear_object (&fixture->server);
  /* Let the transport finish with the streams, then check that nothing of
   * the library keeps them. */
  for (guint i = 0; i < 50; i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (2000);
    }
  g_assert_finalize_object (fixture->input);
  g_assert_finalize_object (fixture->output);
}

static void
fixture_send (Fixture    *fixture,
              const char *line)
{
  gsize len = strlen (line);

  g_assert_cmpint (write (fixture->write_fd, line, len), ==, (gssize) len);
  g_assert_cmpint (write (fixture->write_fd, "\n", 1), ==, 1);
}

static void
fixture_end_input (Fixture *fixture)
{
  close (fixture->write_fd);
  fixture->write_fd = -1;
}

static gboolean
wait_lines (Fixture *fixture,
            guint    n,
            guint    timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (test_output_count_lines (fixture->output) < n && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
  return test_output_count_lines (fixture->output) >= n;
}

static void
test_eof_never_closes (Fixture       *fixture,
                       gconstpointer  data)
{
  GWeakRef weak;

  g_test_summary ("After end of input every answer is written, closed reports no error, "
                  "neither stream is closed, and the transport goes away");

  snodo_stdio_transport_start (fixture->transport);
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  fixture_end_input (fixture);

  /* The transport holds itself while it serves. */
  g_weak_ref_init (&weak, fixture->transport);
  g_clear_object (&fixture->transport);

  g_assert_true (snodo_test_wait_for (&fixture->closed, 10000));
  g_assert_no_error (fixture->closed_error);
  g_assert_cmpuint (test_output_count_lines (fixture->output), ==, 2);
  g_assert_cmpuint (fixture->output->n_closes, ==, 0);
  g_assert_cmpuint (fixture->input->n_closes, ==, 0);
  g_assert_false (g_output_stream_is_closed (G_OUTPUT_STREAM (fixture->output)));
  g_assert_false (g_input_stream_is_closed (G_INPUT_STREAM (fixture->input)));

  for (guint i = 0; i < 2000; i++)
    {
      GObject *alive = g_weak_ref_get (&weak);

      if (alive == NULL)
        break;
      g_object_unref (alive);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (g_weak_ref_get (&weak));
  g_weak_ref_clear (&weak);
}

static void
close_done_cb (GObject      *object,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (snodo_stdio_transport_close_finish (SNODO_STDIO_TRANSPORT (object), result, &error));
  g_assert_no_error (error);
  *(gboolean *) user_data = TRUE;
}

static void
test_close_async (Fixture       *fixture,
                  gconstpointer  data)
{
  gboolean done = FALSE;

  g_test_summary ("close_async() ends a transport whose input is still open, without closing any stream");

  snodo_stdio_transport_start (fixture->transport);
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  g_assert_true (wait_lines (fixture, 1, 10000));

  snodo_stdio_transport_close_async (fixture->transport, NULL, close_done_cb, &done);
  g_assert_true (snodo_test_wait_for (&done, 10000));
  g_assert_true (fixture->closed);
  g_assert_no_error (fixture->closed_error);
  g_assert_cmpuint (fixture->output->n_closes, ==, 0);
  g_assert_cmpuint (fixture->input->n_closes, ==, 0);

  /* Input after the close is not read. */
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  for (guint i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (2000);
  g_assert_cmpuint (test_output_count_lines (fixture->output), ==, 1);
}

static void
test_output_error (Fixture       *fixture,
                   gconstpointer  data)
{
  g_test_summary ("An output error is terminal: closed carries it, nothing more is written, "
                  "no stream is closed");

  snodo_stdio_transport_start (fixture->transport);
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  g_assert_true (snodo_test_wait_for (&fixture->closed, 10000));
  g_assert_error (fixture->closed_error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE);
  g_assert_true (g_str_has_prefix (fixture->closed_error->message, "Could not write to the output"));

  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (2000);
  g_assert_cmpuint (fixture->output->n_writes, ==, 1);
  g_assert_cmpuint (fixture->output->n_closes, ==, 0);
  g_assert_cmpuint (fixture->input->n_closes, ==, 0);
}

static void
test_write_timeout (Fixture       *fixture,
                    gconstpointer  data)
{
  gint64 start, elapsed;

  g_test_summary ("A write that blocks longer than write-timeout is terminal: G_IO_ERROR_TIMED_OUT, "
                  "nothing written after, not retried, no stream closed");

  snodo_stdio_transport_set_write_timeout (fixture->transport, 200);
  snodo_stdio_transport_start (fixture->transport);
  start = g_get_monotonic_time ();
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  g_assert_true (snodo_test_wait_for (&fixture->closed, 10000));
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_assert_error (fixture->closed_error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (elapsed, >=, 190);
  g_assert_cmpint (elapsed, <, 5000);

  /* The stuck write completes later; nothing follows it. */
  test_output_release (fixture->output);
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
  for (guint i = 0; i < 100; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (2000);
  g_assert_cmpuint (fixture->output->n_writes, ==, 1);
  g_assert_cmpuint (test_output_count_lines (fixture->output), ==, 1);
  g_assert_cmpuint (fixture->output->n_closes, ==, 0);
  g_assert_cmpuint (fixture->input->n_closes, ==, 0);
}

static JsonNode *
output_line (Fixture *fixture,
             guint    index)
{
  g_autofree char *data = test_output_dup_data (fixture->output);
  g_auto(GStrv) lines = g_strsplit (data, "\n", -1);

  g_assert_cmpuint (g_strv_length (lines), >, index);
  return snodo_test_parse (lines[index]);
}

static const char *
result_text (JsonNode *message)
{
  JsonObject *result = json_object_get_object_member (json_node_get_object (message), "result");
  JsonArray *content = json_object_get_array_member (result, "content");

  return json_object_get_string_member (json_array_get_object_element (content, 0), "text");
}

static void
test_version_header (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(JsonNode) before = NULL;
  g_autoptr(JsonNode) after = NULL;

  g_test_summary ("After a successful initialize, the transport hands every message to the "
                  "server with an mcp-protocol-version header, which selects the dialect");

  snodo_stdio_transport_start (fixture->transport);
  g_assert_null (snodo_stdio_transport_get_protocol_version (fixture->transport));

  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"version\"}}");
  g_assert_true (wait_lines (fixture, 1, 10000));
  before = output_line (fixture, 0);
  g_assert_cmpstr (result_text (before), ==, "2025-06-18");

  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":"
                         "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                         "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  g_assert_true (wait_lines (fixture, 2, 10000));
  g_assert_cmpstr (snodo_stdio_transport_get_protocol_version (fixture->transport), ==, "2025-11-25");

  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"version\"}}");
  g_assert_true (wait_lines (fixture, 3, 10000));
  after = output_line (fixture, 2);
  g_assert_cmpstr (result_text (after), ==, "2025-11-25");
}

static void
test_threaded_tool (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(JsonNode) answer = NULL;

  g_test_summary ("A tool with run-in-thread runs on a worker thread and answers from there");

  snodo_stdio_transport_start (fixture->transport);
  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"thread\"}}");
  g_assert_true (wait_lines (fixture, 1, 10000));
  answer = output_line (fixture, 0);
  g_assert_cmpstr (result_text (answer), ==, "worker");
}

static void
test_output_schema (Fixture       *fixture,
                    gconstpointer  data)
{
  static const char * const kinds[] = { "good", "bad", "none" };

  g_test_summary ("A tool result whose structuredContent does not fit the output schema goes out as "
                  "a failed result (with a warning), never as it was");

  snodo_stdio_transport_start (fixture->transport);
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/call\","
                                               "\"params\":{\"name\":\"structured\",\"arguments\":{\"kind\":\"%s\"}}}",
                                               i + 1, kinds[i]);
      g_autoptr(JsonNode) answer = NULL;
      JsonObject *result;

      if (i > 0)
        g_test_expect_message ("Snodo", G_LOG_LEVEL_WARNING, "*does not match its output schema*");
      fixture_send (fixture, line);
      g_assert_true (wait_lines (fixture, i + 1, 10000));
      g_test_assert_expected_messages ();
      answer = output_line (fixture, i);
      result = json_object_get_object_member (json_node_get_object (answer), "result");
      if (i == 0)
        g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (result, "structuredContent"), "n"),
                         ==, 1);
      else
        {
          g_assert_true (json_object_get_boolean_member (result, "isError"));
          g_assert_false (json_object_has_member (result, "structuredContent"));
        }
    }
}

static void
noop_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  snodo_invocation_return_text (invocation, "noop");
}

static void
test_tools_pagination (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autofree char *cursor = NULL;
  guint seen = 0;
  guint lines = 0;

  g_test_summary ("tools/list pages through many tools with opaque cursors, in the order they "
                  "were added; a forged cursor is -32602");

  /* Three tools are there already. */
  for (guint i = 0; i < 247; i++)
    {
      g_autofree char *name = g_strdup_printf ("tool-%03u", i);
      g_autoptr(SnodoTool) tool = snodo_tool_new (name, NULL);

      g_assert_true (snodo_server_add_tool (fixture->server, tool, noop_cb, NULL, NULL, NULL));
    }
  snodo_stdio_transport_start (fixture->transport);

  do
    {
      g_autofree char *line = NULL;
      g_autoptr(JsonNode) answer = NULL;
      JsonObject *result;
      JsonArray *tools;

      if (cursor != NULL)
        line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/list\","
                                "\"params\":{\"cursor\":\"%s\"}}", lines + 1, cursor);
      else
        line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/list\"}", lines + 1);
      fixture_send (fixture, line);
      g_assert_true (wait_lines (fixture, lines + 1, 10000));
      answer = output_line (fixture, lines++);
      result = json_object_get_object_member (json_node_get_object (answer), "result");
      tools = json_object_get_array_member (result, "tools");
      for (guint i = 0; i < json_array_get_length (tools); i++, seen++)
        {
          const char *name = json_object_get_string_member (json_array_get_object_element (tools, i), "name");
          g_autofree char *expected = seen < 3 ? NULL : g_strdup_printf ("tool-%03u", seen - 3);

          g_assert_cmpstr (name, ==, seen == 0 ? "version" : seen == 1 ? "thread" :
                                     seen == 2 ? "structured" : expected);
        }
      g_clear_pointer (&cursor, g_free);
      if (json_object_has_member (result, "nextCursor"))
        cursor = g_strdup (json_object_get_string_member (result, "nextCursor"));
    }
  while (cursor != NULL);

  g_assert_cmpuint (seen, ==, 250);
  g_assert_cmpuint (lines, ==, 3);

  fixture_send (fixture, "{\"jsonrpc\":\"2.0\",\"id\":99,\"method\":\"tools/list\",\"params\":{\"cursor\":\"dG9vbHM6Nw\"}}");
  g_assert_true (wait_lines (fixture, lines + 1, 10000));
  {
    g_autoptr(JsonNode) answer = output_line (fixture, lines);
    JsonObject *error = json_object_get_object_member (json_node_get_object (answer), "error");

    g_assert_nonnull (error);
    g_assert_cmpint (json_object_get_int_member (error, "code"), ==, -32602);
  }
}

static void
test_protect_stdout (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(SnodoServer) server = snodo_server_new ("test", "1");
      g_autoptr(SnodoStdioTransport) transport = snodo_stdio_transport_new_for_stdio (server);
      Fixture fixture = { 0, };

      g_assert_true (snodo_stdio_transport_get_protect_stdout (transport));
      g_signal_connect (transport, "closed", G_CALLBACK (closed_cb), &fixture);
      snodo_stdio_transport_start (transport);
      printf ("stray output\n");
      fflush (stdout);
      /* Standard input is /dev/null: the transport ends at once. */
      g_assert_true (snodo_test_wait_for (&fixture.closed, 10000));
      printf ("restored output\n");
      fflush (stdout);
      return;
    }

  g_test_summary ("While the transport serves the process's stdio, a stray printf goes to stderr; "
                  "fd 1 is restored afterwards");

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("restored output\n");
  g_test_trap_assert_stderr ("*stray output*");
}

/* ---- Streams that can say whether they would block -------------------- */

/* A pollable output stream that takes at most a few bytes a call and says
 * "would block" every other call (PARTIAL), or takes a few bytes once and
 * then never more (STUCK). */
typedef enum
{
  POLLABLE_PARTIAL,
  POLLABLE_STUCK,
} PollableMode;

#define TEST_TYPE_POLLABLE (test_pollable_get_type ())
G_DECLARE_FINAL_TYPE (TestPollable, test_pollable, TEST, POLLABLE, GOutputStream)

struct _TestPollable
{
  GOutputStream  parent_instance;
  PollableMode   mode;
  GString       *data;
  guint          n_calls;
  guint          n_would_block;
  guint          n_closes;
};

static void test_pollable_iface_init (GPollableOutputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestPollable, test_pollable, G_TYPE_OUTPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_OUTPUT_STREAM, test_pollable_iface_init))

static gssize
test_pollable_write_nonblocking (GPollableOutputStream  *stream,
                                 const void             *buffer,
                                 gsize                   count,
                                 GError                **error)
{
  TestPollable *self = TEST_POLLABLE (stream);
  gsize n = MIN (count, 7);

  self->n_calls++;
  if ((self->mode == POLLABLE_PARTIAL && self->n_calls % 2 == 0) ||
      (self->mode == POLLABLE_STUCK && self->n_calls > 1))
    {
      self->n_would_block++;
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK, "full");
      return -1;
    }
  g_string_append_len (self->data, buffer, n);
  return n;
}

static gssize
test_pollable_write (GOutputStream  *stream,
                     const void     *buffer,
                     gsize           count,
                     GCancellable   *cancellable,
                     GError        **error)
{
  g_assert_not_reached ();
  return -1;
}

static gboolean
test_pollable_is_writable (GPollableOutputStream *stream)
{
  return TEST_POLLABLE (stream)->mode == POLLABLE_PARTIAL;
}

static GSource *
test_pollable_create_source (GPollableOutputStream *stream,
                             GCancellable          *cancellable)
{
  g_autoptr(GSource) child = NULL;

  /* A stuck stream never becomes writable again. */
  if (TEST_POLLABLE (stream)->mode == POLLABLE_STUCK)
    return g_pollable_source_new (G_OBJECT (stream));
  child = g_timeout_source_new (1);
  return g_pollable_source_new_full (stream, child, cancellable);
}

static gboolean
test_pollable_close (GOutputStream  *stream,
                     GCancellable   *cancellable,
                     GError        **error)
{
  TEST_POLLABLE (stream)->n_closes++;
  return TRUE;
}

static void
test_pollable_finalize (GObject *object)
{
  g_string_free (TEST_POLLABLE (object)->data, TRUE);
  G_OBJECT_CLASS (test_pollable_parent_class)->finalize (object);
}

static void
test_pollable_iface_init (GPollableOutputStreamInterface *iface)
{
  iface->is_writable = test_pollable_is_writable;
  iface->create_source = test_pollable_create_source;
  iface->write_nonblocking = test_pollable_write_nonblocking;
}

static void
test_pollable_class_init (TestPollableClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_pollable_finalize;
  G_OUTPUT_STREAM_CLASS (klass)->write_fn = test_pollable_write;
  G_OUTPUT_STREAM_CLASS (klass)->close_fn = test_pollable_close;
}

static void
test_pollable_init (TestPollable *self)
{
  self->data = g_string_new (NULL);
}

/* A pollable output stream that leaves its non-blocking write to GIO's
 * emulation: is_writable(), then a (here never blocking) write_fn. */
#define TEST_TYPE_EMULATED (test_emulated_get_type ())
G_DECLARE_FINAL_TYPE (TestEmulated, test_emulated, TEST, EMULATED, GOutputStream)

struct _TestEmulated
{
  GOutputStream  parent_instance;
  GString       *data;
  gsize          largest;
};

static void test_emulated_iface_init (GPollableOutputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestEmulated, test_emulated, G_TYPE_OUTPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_OUTPUT_STREAM, test_emulated_iface_init))

static gssize
test_emulated_write (GOutputStream  *stream,
                     const void     *buffer,
                     gsize           count,
                     GCancellable   *cancellable,
                     GError        **error)
{
  TestEmulated *self = TEST_EMULATED (stream);

  self->largest = MAX (self->largest, count);
  g_string_append_len (self->data, buffer, count);
  return count;
}

static gboolean
test_emulated_is_writable (GPollableOutputStream *stream)
{
  return TRUE;
}

static GSource *
test_emulated_create_source (GPollableOutputStream *stream,
                             GCancellable          *cancellable)
{
  g_autoptr(GSource) child = g_timeout_source_new (0);

  return g_pollable_source_new_full (stream, child, cancellable);
}

static void
test_emulated_finalize (GObject *object)
{
  g_string_free (TEST_EMULATED (object)->data, TRUE);
  G_OBJECT_CLASS (test_emulated_parent_class)->finalize (object);
}

static void
test_emulated_iface_init (GPollableOutputStreamInterface *iface)
{
  iface->is_writable = test_emulated_is_writable;
  iface->create_source = test_emulated_create_source;
}

static void
test_emulated_class_init (TestEmulatedClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = test_emulated_finalize;
  G_OUTPUT_STREAM_CLASS (klass)->write_fn = test_emulated_write;
}

static void
test_emulated_init (TestEmulated *self)
{
  self->data = g_string_new (NULL);
}

/* ---- Fixture: any pair of streams -------------------------------------- */

typedef struct
{
  SnodoServer         *server;
  SnodoStdioTransport *transport;
  GInputStream        *input;
  GOutputStream       *output;
  /* The test's end of an input pipe, or -1. */
  int                  input_fd;
  /* The test's end of an output pipe (non-blocking: it is the test's own),
   * or -1. */
  int                  output_fd;
  /* What was read from the output pipe. */
  GString             *received;
  gboolean             closed;
  GError              *closed_error;
} Streams;

static void
blob_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  gint64 bytes = json_object_get_int_member (snodo_invocation_get_arguments (invocation), "bytes");
  g_autofree char *text = g_malloc (bytes + 1);

  memset (text, 'b', bytes);
  text[bytes] = '\0';
  snodo_invocation_return_text (invocation, text);
}

static void
streams_closed_cb (SnodoStdioTransport *transport,
                   const GError        *error,
                   Streams             *streams)
{
  g_assert_false (streams->closed);
  streams->closed = TRUE;
  if (error != NULL)
    streams->closed_error = g_error_copy (error);
}

/* Takes @input and @output. */
static void
streams_set_up (Streams       *streams,
                GInputStream  *input,
                GOutputStream *output)
{
  g_autoptr(SnodoTool) blob_tool = snodo_tool_new ("blob", NULL);

  streams->server = snodo_server_new ("test", "1");
  g_assert_true (snodo_server_add_tool (streams->server, blob_tool, blob_cb, NULL, NULL, NULL));
  streams->input = input;
  streams->output = output;
  streams->received = g_string_new (NULL);
  if (streams->input_fd == 0)
    streams->input_fd = -1;
  if (streams->output_fd == 0)
    streams->output_fd = -1;
  streams->transport = snodo_stdio_transport_new (streams->server, input, output);
  g_signal_connect (streams->transport, "closed", G_CALLBACK (streams_closed_cb), streams);
}

/* Pipes on both sides, as a client process would give them. */
static void
streams_set_up_pipes (Streams *streams)
{
  int in[2], out[2];

  g_assert_true (g_unix_open_pipe (in, FD_CLOEXEC, NULL));
  g_assert_true (g_unix_open_pipe (out, FD_CLOEXEC, NULL));
  g_assert_true (g_unix_set_fd_nonblocking (out[0], TRUE, NULL));
  streams->input_fd = in[1];
  streams->output_fd = out[0];
  streams_set_up (streams, g_unix_input_stream_new (in[0], TRUE), g_unix_output_stream_new (out[1], TRUE));
}

/* Stream sockets on both sides, as a Node.js client gives them. */
static void
streams_set_up_sockets (Streams *streams)
{
  int in[2], out[2];

  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM, 0, in), ==, 0);
  g_assert_cmpint (socketpair (AF_UNIX, SOCK_STREAM, 0, out), ==, 0);
  for (int i = 0; i < 2; i++)
    {
      g_assert_cmpint (fcntl (in[i], F_SETFD, FD_CLOEXEC), ==, 0);
      g_assert_cmpint (fcntl (out[i], F_SETFD, FD_CLOEXEC), ==, 0);
    }
  g_assert_true (g_unix_set_fd_nonblocking (out[0], TRUE, NULL));
  streams->input_fd = in[1];
  streams->output_fd = out[0];
  streams_set_up (streams, g_unix_input_stream_new (in[0], TRUE), g_unix_output_stream_new (out[1], TRUE));
}

static void
streams_tear_down (Streams *streams)
{
  g_assert_false (g_input_stream_is_closed (streams->input));
  g_assert_false (g_output_stream_is_closed (streams->output));
  if (streams->input_fd >= 0)
    close (streams->input_fd);
  if (streams->output_fd >= 0)
    close (streams->output_fd);
  g_clear_error (&streams->closed_error);
  g_clear_object (&streams->transport);
  g_clear_object (&streams->server);
  for (guint i = 0; i < 50; i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (1000);
    }
  g_assert_finalize_object (streams->input);
  g_assert_finalize_object (streams->output);
  g_string_free (streams->received, TRUE);
}

static void
streams_send (Streams    *streams,
              const char *line)
{
  gsize len = strlen (line);

  g_assert_cmpint (write (streams->input_fd, line, len), ==, (gssize) len);
  g_assert_cmpint (write (streams->input_fd, "\n", 1), ==, 1);
}

static char *
blob_call (guint id,
           guint bytes)
{
  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"tools/call\","
                          "\"params\":{\"name\":\"blob\",\"arguments\":{\"bytes\":%u}}}", id, bytes);
}

/* Reads what the output pipe holds, at most @max bytes. */
static gsize
streams_read_some (Streams *streams,
                   gsize    max)
{
  char buffer[16 * 1024];
  gssize n = read (streams->output_fd, buffer, MIN (max, sizeof buffer));

  if (n > 0)
    g_string_append_len (streams->received, buffer, n);
  return n > 0 ? n : 0;
}

static guint
count_lines (const char *data,
             gsize       len)
{
  guint n = 0;

  for (gsize i = 0; i < len; i++)
    n += (data[i] == '\n');
  return n;
}

/* The answers in @data, one per line, parsed. */
static GPtrArray *
split_answers (const char *data)
{
  g_auto(GStrv) lines = g_strsplit (data, "\n", -1);
  GPtrArray *answers = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);

  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      g_ptr_array_add (answers, snodo_test_parse (lines[i]));
  return answers;
}

static gboolean
writer_thread_exists (void)
{
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/task", 0, NULL);
  const char *name;

  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename ("/proc/self/task", name, "comm", NULL);
      g_autofree char *comm = NULL;

      if (g_file_get_contents (path, &comm, NULL, NULL) && g_str_has_prefix (comm, "snodo-writer"))
        return TRUE;
    }
  return FALSE;
}

typedef struct
{
  Streams *streams;
  guint    ticks;
} SlowReader;

/* How the pipe tests run. */
enum
{
  DEVICE_NOWAIT  = 1 << 0,
  DEVICE_SOCKETS = 1 << 1,
};

/* Reads a little of the output every millisecond, on the same main
 * context as the transport: if a write ever blocked the context, this
 * would never run again and the test would time out. */
static gboolean
slow_reader_cb (gpointer user_data)
{
  SlowReader *reader = user_data;

  reader->ticks++;
  if (reader->streams->output_fd >= 0)
    streams_read_some (reader->streams, 3000);
  return G_SOURCE_CONTINUE;
}

static void
test_pipe_slow_reader (gconstpointer data)
{
  Streams streams = { 0, };
  SlowReader reader = { &streams, 0 };
  g_autofree char *blob = blob_call (1, 300000);
  g_autoptr(GPtrArray) answers = NULL;
  GSource *source;
  gint64 deadline;

  g_test_summary ("Pipes on both sides: a line much longer than PIPE_BUF goes to a slow reader "
                  "whole, without a helper thread, while the main context keeps running; "
                  "the next answer follows it");

  snodo_fd_set_nowait_enabled ((GPOINTER_TO_INT (data) & DEVICE_NOWAIT) != 0);
  if (GPOINTER_TO_INT (data) & DEVICE_SOCKETS)
    streams_set_up_sockets (&streams);
  else
    streams_set_up_pipes (&streams);
  snodo_stdio_transport_start (streams.transport);

  source = g_timeout_source_new (1);
  g_source_set_callback (source, slow_reader_cb, &reader, NULL);
  g_source_attach (source, NULL);

  streams_send (&streams, blob);
  streams_send (&streams, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");

  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (count_lines (streams.received->str, streams.received->len) < 2 && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (source);
  g_source_unref (source);

  g_test_message ("%u reader ticks for %" G_GSIZE_FORMAT " bytes", reader.ticks, streams.received->len);
  g_assert_cmpuint (count_lines (streams.received->str, streams.received->len), ==, 2);
  g_assert_cmpuint (reader.ticks, >, 10);
  g_assert_false (streams.closed);
  g_assert_false (writer_thread_exists ());

  answers = split_answers (streams.received->str);
  g_assert_cmpuint (answers->len, ==, 2);
  g_assert_cmpuint (strlen (result_text (g_ptr_array_index (answers, 0))), ==, 300000);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (answers, 1)), "id"), ==, 2);

  close (streams.input_fd);
  streams.input_fd = -1;
  g_assert_true (snodo_test_wait_for (&streams.closed, 10000));
  g_assert_no_error (streams.closed_error);
  streams_tear_down (&streams);
  snodo_fd_set_nowait_enabled (TRUE);
}

static void
test_pipe_batches (void)
{
  Streams streams = { 0, };
  SlowReader reader = { &streams, 0 };
  g_autoptr(GString) input = g_string_new (NULL);
  g_autoptr(GPtrArray) answers = NULL;
  GSource *source;
  gint64 deadline;
  const guint n_calls = 30;

  g_test_summary ("Answers written in batches of several lines, some batches far larger than "
                  "others, to a slow reader: every answer arrives whole, once");

  streams_set_up_pipes (&streams);
  snodo_stdio_transport_start (streams.transport);

  source = g_timeout_source_new (1);
  g_source_set_callback (source, slow_reader_cb, &reader, NULL);
  g_source_attach (source, NULL);

  /* All at once, so that answers queue up and go out joined. */
  for (guint id = 1; id <= n_calls; id++)
    {
      g_autofree char *call = blob_call (id, id % 3 == 0 ? 40000 : id);

      g_string_append (input, call);
      g_string_append_c (input, '\n');
    }
  g_assert_cmpint (write (streams.input_fd, input->str, input->len), ==, (gssize) input->len);

  deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  while (count_lines (streams.received->str, streams.received->len) < n_calls &&
         g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (source);
  g_source_unref (source);

  g_assert_cmpuint (count_lines (streams.received->str, streams.received->len), ==, n_calls);
  answers = split_answers (streams.received->str);
  g_assert_cmpuint (answers->len, ==, n_calls);
  {
    g_autofree gboolean *seen = g_new0 (gboolean, n_calls + 1);

    for (guint i = 0; i < answers->len; i++)
      {
        JsonNode *answer = g_ptr_array_index (answers, i);
        gint64 id = json_object_get_int_member (json_node_get_object (answer), "id");

        g_assert_cmpint (id, >=, 1);
        g_assert_cmpint (id, <=, n_calls);
        g_assert_false (seen[id]);
        seen[id] = TRUE;
        g_assert_cmpuint (strlen (result_text (answer)), ==, id % 3 == 0 ? 40000 : (guint) id);
      }
  }

  close (streams.input_fd);
  streams.input_fd = -1;
  g_assert_true (snodo_test_wait_for (&streams.closed, 10000));
  g_assert_no_error (streams.closed_error);
  streams_tear_down (&streams);
}

static gboolean
tick_cb (gpointer user_data)
{
  (*(guint *) user_data)++;
  return G_SOURCE_CONTINUE;
}

static void
test_pipe_write_timeout (gconstpointer data)
{
  Streams streams = { 0, };
  g_autofree char *blob = blob_call (1, 1000000);
  gint64 start, elapsed;
  guint ticks = 0;
  gsize reached;
  GSource *ticker;

  g_test_summary ("A pipe nobody reads: the write waits on the main context, which keeps running, "
                  "times out after write-timeout (G_IO_ERROR_TIMED_OUT), leaves part of the line "
                  "and writes nothing more");

  snodo_fd_set_nowait_enabled (GPOINTER_TO_INT (data));
  streams_set_up_pipes (&streams);
  snodo_stdio_transport_set_write_timeout (streams.transport, 200);
  snodo_stdio_transport_start (streams.transport);

  ticker = g_timeout_source_new (10);
  g_source_set_callback (ticker, tick_cb, &ticks, NULL);
  g_source_attach (ticker, NULL);

  start = g_get_monotonic_time ();
  streams_send (&streams, blob);
  g_assert_true (snodo_test_wait_for (&streams.closed, 10000));
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_source_destroy (ticker);
  g_source_unref (ticker);

  g_test_message ("timed out after %" G_GINT64_FORMAT " ms, %u ticks meanwhile", elapsed, ticks);
  g_assert_error (streams.closed_error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (elapsed, >=, 190);
  g_assert_cmpint (elapsed, <, 5000);
  /* The context ran while the write waited: a write that blocked it would
   * leave the 10 ms ticker at 0 or 1. A loaded machine may give fewer
   * ticks than the 19 it could, so only "more than once" is asserted. */
  g_assert_cmpuint (ticks, >=, 2);
  g_assert_false (writer_thread_exists ());

  /* Part of the line, no newline; and nothing more, even once the pipe
   * has room again. */
  while (streams_read_some (&streams, G_MAXSIZE) > 0)
    ;
  reached = streams.received->len;
  g_assert_cmpuint (reached, >, 0);
  g_assert_cmpuint (reached, <, 1000000);
  g_assert_null (memchr (streams.received->str, '\n', reached));
  streams_send (&streams, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (2000);
  streams_read_some (&streams, G_MAXSIZE);
  g_assert_cmpuint (streams.received->len, ==, reached);

  streams_tear_down (&streams);
  snodo_fd_set_nowait_enabled (TRUE);
}

static gboolean
read_output_cb (gpointer user_data)
{
  Streams *streams = user_data;

  while (streams_read_some (streams, G_MAXSIZE) > 0)
    ;
  return G_SOURCE_CONTINUE;
}

typedef struct
{
  int          fd;
  const char  *data;
  gsize        len;
  gsize        fed;
} Feeder;

/* Writes what the input pipe takes, without blocking (the test's own end). */
static gboolean
feeder_cb (gpointer user_data)
{
  Feeder *feeder = user_data;

  while (feeder->fed < feeder->len)
    {
      gssize n = write (feeder->fd, feeder->data + feeder->fed, feeder->len - feeder->fed);

      if (n <= 0)
        break;
      feeder->fed += n;
    }
  return G_SOURCE_CONTINUE;
}

static void
iterate_for (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE), g_usleep (500);
}

static void
test_pipe_read_paused (gconstpointer data)
{
  Streams streams = { 0, };
  g_autoptr(GPtrArray) answers = NULL;
  const guint n_lines = 5000;
  g_autofree char *garbage = g_malloc (100);
  GString *input = g_string_new (NULL);
  Feeder feeder = { 0, };
  GSource *feeding, *reader;
  gsize stuck_at;

  g_test_summary ("Pipes on both sides: a flood of garbage while nobody reads the answers pauses "
                  "reading (the client's writes stall, the waiting lines stay bounded) and "
                  "resumes it once the reader catches up; every line is answered, then end of "
                  "input closes cleanly");

  memset (garbage, 'x', 99);
  garbage[99] = '\n';
  for (guint i = 0; i < n_lines; i++)
    g_string_append_len (input, garbage, 100);

  snodo_fd_set_nowait_enabled (GPOINTER_TO_INT (data));
  streams_set_up_pipes (&streams);
  g_assert_true (g_unix_set_fd_nonblocking (streams.input_fd, TRUE, NULL));
  snodo_stdio_transport_start (streams.transport);

  feeder.fd = streams.input_fd;
  feeder.data = input->str;
  feeder.len = input->len;
  feeding = g_timeout_source_new (1);
  g_source_set_callback (feeding, feeder_cb, &feeder, NULL);
  g_source_attach (feeding, NULL);

  /* Nobody reads the answers: the output fills up, lines wait, reading
   * pauses, and the client's writes stall (however slow the machine). */
  for (guint waited = 0; waited < 10000; waited += 100)
    {
      stuck_at = feeder.fed;
      iterate_for (100);
      if (feeder.fed == stuck_at)
        break;
    }
  g_test_message ("%" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT " bytes taken while paused", feeder.fed, feeder.len);
  g_assert_cmpuint (feeder.fed, ==, stuck_at);
  g_assert_cmpuint (feeder.fed, <, feeder.len);
  g_assert_false (streams.closed);

  reader = g_timeout_source_new (1);
  g_source_set_callback (reader, read_output_cb, &streams, NULL);
  g_source_attach (reader, NULL);
  while (feeder.fed < feeder.len)
    g_main_context_iteration (NULL, TRUE);
  g_source_destroy (feeding);
  g_source_unref (feeding);
  close (streams.input_fd);
  streams.input_fd = -1;

  g_assert_true (snodo_test_wait_for (&streams.closed, 20000));
  g_source_destroy (reader);
  g_source_unref (reader);
  read_output_cb (&streams);

  g_assert_no_error (streams.closed_error);
  answers = split_answers (streams.received->str);
  g_assert_cmpuint (answers->len, ==, n_lines);
  for (guint i = 0; i < answers->len; i++)
    {
      JsonObject *error = json_object_get_object_member (json_node_get_object (g_ptr_array_index (answers, i)),
                                                         "error");

      g_assert_cmpint (json_object_get_int_member (error, "code"), ==, -32700);
    }

  g_string_free (input, TRUE);
  streams_tear_down (&streams);
  snodo_fd_set_nowait_enabled (TRUE);
}

static void
test_pollable_partial (void)
{
  Streams streams = { 0, };
  TestPollable *output = g_object_new (TEST_TYPE_POLLABLE, NULL);
  g_autofree char *blob = blob_call (3, 10000);
  g_autofree char *input = NULL;
  g_autoptr(GPtrArray) answers = NULL;

  g_test_summary ("A pollable output that takes a few bytes at a time and often would block: "
                  "every line arrives whole and in order");

  output->mode = POLLABLE_PARTIAL;
  input = g_strconcat ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n", blob, "\n"
                       "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}", NULL);
  streams_set_up (&streams, g_memory_input_stream_new_from_data (g_strdup (input), -1, g_free),
                  G_OUTPUT_STREAM (output));
  snodo_stdio_transport_start (streams.transport);
  g_assert_true (snodo_test_wait_for (&streams.closed, 20000));
  g_assert_no_error (streams.closed_error);

  g_test_message ("%u calls, %u would block", output->n_calls, output->n_would_block);
  g_assert_cmpuint (output->n_would_block, >, 100);
  answers = split_answers (output->data->str);
  g_assert_cmpuint (answers->len, ==, 4);
  for (guint i = 0; i < answers->len; i++)
    g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (answers, i)), "id"),
                     ==, i + 1);
  g_assert_cmpuint (strlen (result_text (g_ptr_array_index (answers, 2))), ==, 10000);
  g_assert_cmpuint (output->n_closes, ==, 0);
  streams_tear_down (&streams);
}

static void
test_pollable_timeout (void)
{
  Streams streams = { 0, };
  TestPollable *output = g_object_new (TEST_TYPE_POLLABLE, NULL);
  int in[2];
  gint64 start, elapsed;

  g_test_summary ("A pollable output that stops taking bytes: the write times out after "
                  "write-timeout, the part already taken stays, nothing more is written");

  output->mode = POLLABLE_STUCK;
  g_assert_true (g_unix_open_pipe (in, FD_CLOEXEC, NULL));
  streams.input_fd = in[1];
  streams_set_up (&streams, g_unix_input_stream_new (in[0], TRUE), G_OUTPUT_STREAM (output));
  snodo_stdio_transport_set_write_timeout (streams.transport, 200);
  snodo_stdio_transport_start (streams.transport);

  start = g_get_monotonic_time ();
  streams_send (&streams, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  g_assert_true (snodo_test_wait_for (&streams.closed, 10000));
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_assert_error (streams.closed_error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_assert_cmpint (elapsed, >=, 190);
  g_assert_cmpint (elapsed, <, 5000);

  streams_send (&streams, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (2000);
  g_assert_cmpuint (output->data->len, ==, 7);
  g_assert_cmpuint (output->n_calls, ==, 2);
  g_assert_cmpuint (output->n_closes, ==, 0);
  streams_tear_down (&streams);
}

/* A pollable input that gives one line, then fails. */
#define TEST_TYPE_FAILING_INPUT (test_failing_input_get_type ())
G_DECLARE_FINAL_TYPE (TestFailingInput, test_failing_input, TEST, FAILING_INPUT, GInputStream)

struct _TestFailingInput
{
  GInputStream  parent_instance;
  guint         n_reads;
};

static void test_failing_input_iface_init (GPollableInputStreamInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (TestFailingInput, test_failing_input, G_TYPE_INPUT_STREAM,
                               G_IMPLEMENT_INTERFACE (G_TYPE_POLLABLE_INPUT_STREAM, test_failing_input_iface_init))

static gssize
test_failing_input_read_nonblocking (GPollableInputStream  *stream,
                                     void                  *buffer,
                                     gsize                  count,
                                     GError               **error)
{
  static const char line[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
  TestFailingInput *self = TEST_FAILING_INPUT (stream);

  if (self->n_reads++ == 0)
    {
      g_assert_cmpuint (count, >=, sizeof line - 1);
      memcpy (buffer, line, sizeof line - 1);
      return sizeof line - 1;
    }
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED, "the peer went away");
  return -1;
}

static gssize
test_failing_input_read (GInputStream  *stream,
                         void          *buffer,
                         gsize          count,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_assert_not_reached ();
  return -1;
}

static gboolean
test_failing_input_is_readable (GPollableInputStream *stream)
{
  return TRUE;
}

static GSource *
test_failing_input_create_source (GPollableInputStream *stream,
                                  GCancellable         *cancellable)
{
  g_autoptr(GSource) child = g_timeout_source_new (0);

  return g_pollable_source_new_full (stream, child, cancellable);
}

static void
test_failing_input_iface_init (GPollableInputStreamInterface *iface)
{
  iface->is_readable = test_failing_input_is_readable;
  iface->create_source = test_failing_input_create_source;
  iface->read_nonblocking = test_failing_input_read_nonblocking;
}

static void
test_failing_input_class_init (TestFailingInputClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->read_fn = test_failing_input_read;
}

static void
test_failing_input_init (TestFailingInput *self)
{
}

static void
test_pollable_input_error (void)
{
  Streams streams = { 0, };
  g_autoptr(GPtrArray) answers = NULL;

  g_test_summary ("A read error on a pollable input is handled as before: a warning, the lines "
                  "read are answered, and closed reports the error");

  streams_set_up (&streams, g_object_new (TEST_TYPE_FAILING_INPUT, NULL), g_memory_output_stream_new_resizable ());
  g_test_expect_message ("Snodo", G_LOG_LEVEL_WARNING, "Could not read the input: the peer went away");
  snodo_stdio_transport_start (streams.transport);
  g_assert_true (snodo_test_wait_for (&streams.closed, 10000));
  g_test_assert_expected_messages ();
  g_assert_error (streams.closed_error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED);
  g_assert_cmpuint (TEST_FAILING_INPUT (streams.input)->n_reads, ==, 2);

  g_assert_true (g_output_stream_write_all (streams.output, "", 1, NULL, NULL, NULL));
  answers = split_answers (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (streams.output)));
  g_assert_cmpuint (answers->len, ==, 1);
  g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (answers, 0)), "id"), ==, 1);
  streams_tear_down (&streams);
}

static void
test_pollable_emulated (void)
{
  Streams streams = { 0, };
  TestEmulated *output = g_object_new (TEST_TYPE_EMULATED, NULL);
  g_autofree char *blob = blob_call (1, 50000);
  g_autoptr(GPtrArray) answers = NULL;

  g_test_summary ("A pollable output whose non-blocking write is GIO's emulation (a readiness "
                  "check, then a blocking write) is never asked for more than PIPE_BUF bytes "
                  "at a time; the line arrives whole");

  streams_set_up (&streams, g_memory_input_stream_new_from_data (g_strdup (blob), -1, g_free),
                  G_OUTPUT_STREAM (output));
  snodo_stdio_transport_start (streams.transport);
  g_assert_true (snodo_test_wait_for (&streams.closed, 20000));
  g_assert_no_error (streams.closed_error);

  g_assert_cmpuint (output->largest, >, 0);
  g_assert_cmpuint (output->largest, <=, PIPE_BUF);
  answers = split_answers (output->data->str);
  g_assert_cmpuint (answers->len, ==, 1);
  g_assert_cmpuint (strlen (result_text (g_ptr_array_index (answers, 0))), ==, 50000);
  streams_tear_down (&streams);
}

static void
test_memory_streams (void)
{
  Streams streams = { 0, };
  GString *input = g_string_new (NULL);
  g_autofree char *blob = blob_call (1, 600000);
  g_autoptr(GPtrArray) answers = NULL;
  const char *data;
  gsize len;

  g_test_summary ("Memory streams (pollable, never blocking) on both sides: many lines and one "
                  "longer than a turn of the main loop writes are all answered, in order, "
                  "without a helper thread; a last line without newline is served");

  g_string_append_printf (input, "%s\n", blob);
  for (guint i = 2; i <= 200; i++)
    g_string_append_printf (input, "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"ping\"}%s", i, i < 200 ? "\n" : "");
  streams_set_up (&streams,
                  g_memory_input_stream_new_from_data (g_string_free (input, FALSE), -1, g_free),
                  g_memory_output_stream_new_resizable ());
  snodo_stdio_transport_start (streams.transport);
  g_assert_true (snodo_test_wait_for (&streams.closed, 20000));
  g_assert_no_error (streams.closed_error);
  g_assert_false (writer_thread_exists ());

  g_assert_true (g_output_stream_write_all (streams.output, "", 1, NULL, NULL, NULL));
  data = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (streams.output));
  len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (streams.output));
  g_assert_cmpuint (count_lines (data, len), ==, 200);
  answers = split_answers (data);
  g_assert_cmpuint (answers->len, ==, 200);
  g_assert_cmpuint (strlen (result_text (g_ptr_array_index (answers, 0))), ==, 600000);
  for (guint i = 0; i < answers->len; i++)
    g_assert_cmpint (json_object_get_int_member (json_node_get_object (g_ptr_array_index (answers, i)), "id"),
                     ==, i + 1);
  streams_tear_down (&streams);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

#define ADD(path, mode, func) \
  g_test_add ("/snodo/stdio/" path, Fixture, GINT_TO_POINTER (mode), fixture_set_up, func, fixture_tear_down)

  ADD ("eof-never-closes", OUTPUT_OK, test_eof_never_closes);
  ADD ("close-async", OUTPUT_OK, test_close_async);
  ADD ("output-error", OUTPUT_FAIL, test_output_error);
  ADD ("write-timeout", OUTPUT_BLOCK, test_write_timeout);
  ADD ("version-header", OUTPUT_OK, test_version_header);
  ADD ("threaded-tool", OUTPUT_OK, test_threaded_tool);
  ADD ("tools-pagination", OUTPUT_OK, test_tools_pagination);
  ADD ("output-schema", OUTPUT_OK, test_output_schema);
#undef ADD
  g_test_add_func ("/snodo/stdio/protect-stdout", test_protect_stdout);
  g_test_add_data_func ("/snodo/stdio/pipe-slow-reader", GINT_TO_POINTER (DEVICE_NOWAIT), test_pipe_slow_reader);
  g_test_add_data_func ("/snodo/stdio/pipe-slow-reader/poll", GINT_TO_POINTER (0), test_pipe_slow_reader);
  g_test_add_data_func ("/snodo/stdio/socket-slow-reader", GINT_TO_POINTER (DEVICE_NOWAIT | DEVICE_SOCKETS),
                        test_pipe_slow_reader);
  g_test_add_data_func ("/snodo/stdio/socket-slow-reader/dontwait", GINT_TO_POINTER (DEVICE_SOCKETS),
                        test_pipe_slow_reader);
  g_test_add_func ("/snodo/stdio/pipe-batches", test_pipe_batches);
  g_test_add_func ("/snodo/stdio/pollable-input-error", test_pollable_input_error);
  g_test_add_data_func ("/snodo/stdio/pipe-write-timeout", GINT_TO_POINTER (TRUE), test_pipe_write_timeout);
  g_test_add_data_func ("/snodo/stdio/pipe-write-timeout/poll", GINT_TO_POINTER (FALSE), test_pipe_write_timeout);
  g_test_add_data_func ("/snodo/stdio/pipe-read-paused", GINT_TO_POINTER (TRUE), test_pipe_read_paused);
  g_test_add_data_func ("/snodo/stdio/pipe-read-paused/poll", GINT_TO_POINTER (FALSE), test_pipe_read_paused);
  g_test_add_func ("/snodo/stdio/pollable-partial", test_pollable_partial);
  g_test_add_func ("/snodo/stdio/pollable-timeout", test_pollable_timeout);
  g_test_add_func ("/snodo/stdio/pollable-emulated", test_pollable_emulated);
  g_test_add_func ("/snodo/stdio/memory-streams", test_memory_streams);

  return g_test_run ();
}
