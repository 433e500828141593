/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Black-box tests of snodo-demo that use nothing but GLib and GIO
 * (GSubprocess, its pipes, files), so that they build and run on Windows
 * as well as on Unix: .ci/cross-windows runs them under wine. Each case is
 * one of the things that differ on Windows: standard input and output as
 * pipes or disk files, where logs go, the write deadline, the line limit,
 * the end of input, concurrent handlers, both protocol eras, HTTP. */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#ifdef G_OS_WIN32
# include <windows.h>
# include <gio/gwin32inputstream.h>
#else
# include <errno.h>
# include <signal.h>
# include <sys/mman.h>
#endif
#include <json-glib/json-glib.h>
#ifdef HAVE_LIBFFI
# include <ffi.h>
#endif

#include "snodo/snodo.h"

/* Generous bounds: a loaded 2-core machine running wine must pass. */
#define ANSWER_TIMEOUT 20000

#define MODERN_META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

static const char *const readme_requests[] = {
  "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"readme\",\"version\":\"1\"}}}",
  "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}}}",
  "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}",
};

typedef struct
{
  GSubprocess      *process;
  GOutputStream    *in;
  GDataInputStream *out;
  char             *dir;
  /* Standard error, read as it comes into @err. */
  GOutputStream    *err;
  gboolean          err_done;
} Demo;

static const char *
demo_path (void)
{
  const char *path = g_getenv ("SNODO_DEMO");

  g_assert_nonnull (path);
  return path;
}

/* A scratch folder, removed with its files by remove_dir(). */
static char *
make_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("snodo-test-windows-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

static void
err_spliced_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  Demo *demo = user_data;

  g_output_stream_splice_finish (G_OUTPUT_STREAM (object), result, NULL);
  demo->err_done = TRUE;
}

/* Starts snodo-demo with @args (NULL-terminated) and @env (NAME=VALUE
 * pairs, NULL-terminated, or NULL), standard input and output as pipes
 * and standard error to a file. */
static Demo *
demo_spawn_env (const char * const *args,
                const char * const *env)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                                                      G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                                                      G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  Demo *demo = g_new0 (Demo, 1);

  demo->dir = make_dir ();
  for (guint i = 0; env != NULL && env[i] != NULL; i++)
    {
      g_auto(GStrv) pair = g_strsplit (env[i], "=", 2);

      g_subprocess_launcher_setenv (launcher, pair[0], pair[1], TRUE);
    }
  g_ptr_array_add (argv, (gpointer) demo_path ());
  for (guint i = 0; args != NULL && args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  demo->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  demo->err = g_memory_output_stream_new_resizable ();
  g_output_stream_splice_async (demo->err, g_subprocess_get_stderr_pipe (demo->process),
                                G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, G_PRIORITY_DEFAULT, NULL,
                                err_spliced_cb, demo);
  demo->in = g_subprocess_get_stdin_pipe (demo->process);
  demo->out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (demo->process));
  g_data_input_stream_set_newline_type (demo->out, G_DATA_STREAM_NEWLINE_TYPE_LF);
  return demo;
}

static Demo *
demo_spawn (const char *first_arg, ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  va_list ap;

  va_start (ap, first_arg);
  for (const char *arg = first_arg; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (gpointer) arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);
  return demo_spawn_env ((const char * const *) args->pdata, NULL);
}

static void
demo_send (Demo       *demo,
           const char *line)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (demo->in, line, strlen (line), NULL, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write_all (demo->in, "\n", 1, NULL, NULL, &error);
  g_assert_no_error (error);
}

static void
demo_close_stdin (Demo *demo)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_close (demo->in, NULL, &error);
  g_assert_no_error (error);
}

static gboolean
flag_timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Iterates the main context until *done, or fails the test after
 * @timeout_ms. */
static void
wait_until (const gboolean *done,
            guint           timeout_ms,
            const char     *what)
{
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, flag_timeout_cb, &timed_out);

  while (!*done && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  if (!*done)
    g_error ("No %s after %u ms", what, timeout_ms);
}

typedef struct
{
  gboolean  done;
  char     *line;
  GError   *error;
} LineRead;

static void
read_line_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  LineRead *read = user_data;

  read->line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object), result, NULL, &read->error);
  read->done = TRUE;
}

/* The next line of the output, or NULL at its end. */
static char *
demo_read_line (Demo *demo)
{
  LineRead read = { 0, };

  g_data_input_stream_read_line_async (demo->out, G_PRIORITY_DEFAULT, NULL, read_line_cb, &read);
  wait_until (&read.done, ANSWER_TIMEOUT, "answer");
  g_assert_no_error (read.error);
  return read.line;
}

/* The next message, parsed, or NULL at the end of the output. */
static JsonNode *
demo_read (Demo *demo)
{
  g_autofree char *line = demo_read_line (demo);
  g_autoptr(GError) error = NULL;
  JsonNode *node;

  if (line == NULL)
    return NULL;
  node = json_from_string (line, &error);
  if (node == NULL)
    g_error ("Not a JSON message: %s (%s)", line, error->message);
  return node;
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

/* Waits for @process to exit: its exit status; fails the test (after
 * killing it) if it is still there after @timeout_ms. */
static int
wait_process (GSubprocess *process,
              guint        timeout_ms)
{
  gboolean done = FALSE;
  gboolean timed_out = FALSE;
  guint id = g_timeout_add (timeout_ms, flag_timeout_cb, &timed_out);

  g_subprocess_wait_async (process, NULL, wait_cb, &done);
  while (!done && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (id);
  if (!done)
    {
      g_subprocess_force_exit (process);
      g_error ("The process did not exit within %u ms", timeout_ms);
    }
  g_assert_true (g_subprocess_get_if_exited (process));
  return g_subprocess_get_exit_status (process);
}

/* All that the demo wrote to standard error (it must have exited). */
static char *
demo_dup_stderr (Demo *demo)
{
  GMemoryOutputStream *err = G_MEMORY_OUTPUT_STREAM (demo->err);

  wait_until (&demo->err_done, ANSWER_TIMEOUT, "end of standard error");
  return g_strndup (g_memory_output_stream_get_data (err), g_memory_output_stream_get_data_size (err));
}

static void
demo_free (Demo *demo)
{
  if (!g_subprocess_get_if_exited (demo->process))
    {
      g_subprocess_force_exit (demo->process);
      g_subprocess_wait (demo->process, NULL, NULL);
    }
  g_clear_object (&demo->out);
  /* The splice ends with the process's standard error. */
  wait_until (&demo->err_done, ANSWER_TIMEOUT, "end of standard error");
  g_clear_object (&demo->err);
  g_clear_object (&demo->process);
  remove_dir (demo->dir);
  g_free (demo->dir);
  g_free (demo);
}

static gint64
message_id (JsonNode *message)
{
  JsonObject *object = json_node_get_object (message);

  if (json_object_get_null_member (object, "id"))
    return -1;
  return json_object_get_int_member_with_default (object, "id", 0);
}

static JsonObject *
message_result (JsonNode *message)
{
  JsonObject *object = json_node_get_object (message);

  if (!json_object_has_member (object, "result"))
    g_error ("Expected a result, got %s", json_to_string (message, FALSE));
  return json_object_get_object_member (object, "result");
}

/* The text of the first content block of a tool result. */
static const char *
message_text (JsonNode *message)
{
  JsonArray *content = json_object_get_array_member (message_result (message), "content");

  return json_object_get_string_member (json_array_get_object_element (content, 0), "text");
}

static char *
tool_call (gint64      id,
           const char *tool,
           const char *arguments)
{
  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tools/call\","
                          "\"params\":{\"name\":\"%s\",\"arguments\":%s}}", id, tool, arguments);
}

/* Checks the four answers of the README's exchange, in any order. */
static void
assert_readme_answers (JsonNode **answers)
{
  gboolean seen[5] = { FALSE, };

  for (guint i = 0; i < 4; i++)
    {
      gint64 id = message_id (answers[i]);

      if (id < 1 || id > 4)
        g_error ("An answer to no request: %s", json_to_string (answers[i], FALSE));
      g_assert_false (seen[id]);
      seen[id] = TRUE;
      switch (id)
        {
        case 1:
          g_assert_cmpstr (json_object_get_string_member (message_result (answers[i]), "protocolVersion"),
                           ==, "2025-11-25");
          break;
        case 2:
          g_assert_cmpuint (json_array_get_length (json_object_get_array_member (message_result (answers[i]),
                                                                                 "tools")), ==, 12);
          break;
        case 3:
          g_assert_cmpstr (message_text (answers[i]), ==, "42");
          break;
        default:
          g_assert_cmpstr (message_text (answers[i]), ==, "hello");
          break;
        }
    }
}

static void
test_readme_exchange (void)
{
  Demo *demo = demo_spawn (NULL);
  JsonNode *answers[4];

  g_test_summary ("The README's exchange through pipes: four answers, then exit 0 at the end of input");

  for (guint i = 0; i < G_N_ELEMENTS (readme_requests); i++)
    demo_send (demo, readme_requests[i]);
  for (guint i = 0; i < 4; i++)
    {
      answers[i] = demo_read (demo);
      g_assert_nonnull (answers[i]);
    }
  assert_readme_answers (answers);
  for (guint i = 0; i < 4; i++)
    json_node_unref (answers[i]);
  demo_close_stdin (demo);
  g_assert_null (demo_read (demo));
  g_assert_cmpint (wait_process (demo->process, ANSWER_TIMEOUT), ==, 0);
  demo_free (demo);
}

static void
test_file_stdio (void)
{
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) requests = g_string_new (NULL);
  g_autofree char *dir = make_dir ();
  g_autofree char *in_path = g_build_filename (dir, "requests.txt", NULL);
  g_autofree char *out_path = g_build_filename (dir, "answers.txt", NULL);
  g_autofree char *output = NULL;
  g_auto(GStrv) lines = NULL;
  JsonNode *answers[4];

  g_test_summary ("Standard input and output that are disk files: the requests are read once, "
                  "the four answers written one after the other, then exit 0");

  for (guint i = 0; i < G_N_ELEMENTS (readme_requests); i++)
    g_string_append_printf (requests, "%s\n", readme_requests[i]);
  g_assert_true (g_file_set_contents (in_path, requests->str, requests->len, NULL));
#ifdef G_OS_WIN32
  /* GSubprocessLauncher cannot redirect to files on Windows: the command
   * interpreter opens them, as it does for a user. */
  g_assert_null (strchr (demo_path (), ' '));
  g_assert_null (strchr (dir, ' '));
  process = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, &error, "cmd.exe", "/c", demo_path (),
                              "<", in_path, ">", out_path, NULL);
#else
  {
    g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_NONE);

    g_subprocess_launcher_set_stdin_file_path (launcher, in_path);
    g_subprocess_launcher_set_stdout_file_path (launcher, out_path);
    process = g_subprocess_launcher_spawn (launcher, &error, demo_path (), NULL);
  }
#endif
  g_assert_no_error (error);
  /* Read again and again from the file's start, the input never ends. */
  g_assert_cmpint (wait_process (process, ANSWER_TIMEOUT), ==, 0);

  g_assert_true (g_file_get_contents (out_path, &output, NULL, NULL));
  g_test_message ("output: %s", output);
  g_assert_true (g_str_has_suffix (output, "}\n"));
  lines = g_strsplit (output, "\n", -1);
  /* Four lines and the empty string after the last newline. */
  g_assert_cmpuint (g_strv_length (lines), ==, 5);
  for (guint i = 0; i < 4; i++)
    {
      answers[i] = json_from_string (lines[i], &error);
      g_assert_no_error (error);
    }
  assert_readme_answers (answers);
  for (guint i = 0; i < 4; i++)
    json_node_unref (answers[i]);
  remove_dir (dir);
}

static void
test_logs_to_stderr (void)
{
  static const char *const env[] = { "G_MESSAGES_DEBUG=all", NULL };
  Demo *demo = demo_spawn_env (NULL, env);
  g_autofree char *err = NULL;
  JsonNode *answers[4];
  JsonNode *extra;

  g_test_summary ("With every debug message on, standard output carries only the protocol; "
                  "the messages go to standard error, with no critical warning");

  for (guint i = 0; i < G_N_ELEMENTS (readme_requests); i++)
    demo_send (demo, readme_requests[i]);
  demo_close_stdin (demo);
  /* demo_read() fails the test on a line that is not JSON. */
  for (guint i = 0; i < 4; i++)
    {
      answers[i] = demo_read (demo);
      g_assert_nonnull (answers[i]);
    }
  extra = demo_read (demo);
  g_assert_null (extra);
  assert_readme_answers (answers);
  for (guint i = 0; i < 4; i++)
    json_node_unref (answers[i]);
  g_assert_cmpint (wait_process (demo->process, ANSWER_TIMEOUT), ==, 0);
  err = demo_dup_stderr (demo);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "End of input"));
  g_assert_null (strstr (err, "CRITICAL"));
  demo_free (demo);
}

static void
test_eof_drain (void)
{
  Demo *demo = demo_spawn (NULL);
  guint answers = 0;

  g_test_summary ("End of input with work in flight: every answer arrives, then exit 0");

  demo_send (demo, readme_requests[0]);
  json_node_unref (demo_read (demo));
  for (gint64 id = 10; id < 15; id++)
    {
      g_autofree char *line = tool_call (id, "sleep", "{\"ms\":300}");

      demo_send (demo, line);
    }
  demo_close_stdin (demo);
  for (;;)
    {
      g_autoptr(JsonNode) answer = demo_read (demo);

      if (answer == NULL)
        break;
      g_assert_cmpstr (message_text (answer), ==, "slept 300");
      answers++;
    }
  g_assert_cmpuint (answers, ==, 5);
  g_assert_cmpint (wait_process (demo->process, ANSWER_TIMEOUT), ==, 0);
  demo_free (demo);
}

static void
test_concurrent (void)
{
  Demo *demo = demo_spawn (NULL);
  gboolean seen[22] = { FALSE, };
  gint64 start, elapsed, first_id = 0;

  g_test_summary ("20 concurrent 500 ms sleeps and an echo: the echo comes back first, "
                  "all are done well before 10 s");

  demo_send (demo, readme_requests[0]);
  json_node_unref (demo_read (demo));
  start = g_get_monotonic_time ();
  for (gint64 id = 1; id <= 21; id++)
    {
      g_autofree char *line = id <= 20 ? tool_call (id, "sleep", "{\"ms\":500}")
                                       : tool_call (id, "echo", "{\"text\":\"quick\"}");

      demo_send (demo, line);
    }
  for (guint answers = 0; answers < 21; answers++)
    {
      g_autoptr(JsonNode) answer = demo_read (demo);
      gint64 id;

      g_assert_nonnull (answer);
      id = message_id (answer);
      g_assert_cmpint (id, >=, 1);
      g_assert_cmpint (id, <=, 21);
      g_assert_false (seen[id]);
      seen[id] = TRUE;
      if (answers == 0)
        first_id = id;
    }
  elapsed = (g_get_monotonic_time () - start) / 1000;
  g_test_message ("20 x 500 ms sleeps + echo: %" G_GINT64_FORMAT " ms", elapsed);
  g_assert_cmpint (first_id, ==, 21);
  g_assert_cmpint (elapsed, >=, 480);
  g_assert_cmpint (elapsed, <, 5000);
  demo_close_stdin (demo);
  g_assert_cmpint (wait_process (demo->process, ANSWER_TIMEOUT), ==, 0);
  demo_free (demo);
}

static void
test_line_limit (void)
{
  Demo *demo = demo_spawn ("--max-line-bytes=1000", NULL);
  g_autofree char *padding = g_strnfill (2000, 'x');
  g_autofree char *over = NULL;
  g_autofree char *echo = tool_call (2, "echo", "{\"text\":\"next\"}");
  g_autoptr(JsonNode) refused = NULL;
  g_autoptr(JsonNode) served = NULL;
  JsonObject *error;

  g_test_summary ("A line over --max-line-bytes is answered -32600 with id null; the next one is served");

  over = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                          "{\"name\":\"echo\",\"arguments\":{\"text\":\"%s\"}}}", padding);
  demo_send (demo, over);
  demo_send (demo, echo);
  refused = demo_read (demo);
  g_assert_nonnull (refused);
  g_assert_cmpint (message_id (refused), ==, -1);
  error = json_object_get_object_member (json_node_get_object (refused), "error");
  g_assert_cmpint (json_object_get_int_member (error, "code"), ==, -32600);
  served = demo_read (demo);
  g_assert_nonnull (served);
  g_assert_cmpint (message_id (served), ==, 2);
  g_assert_cmpstr (message_text (served), ==, "next");
  demo_close_stdin (demo);
  g_assert_cmpint (wait_process (demo->process, ANSWER_TIMEOUT), ==, 0);
  demo_free (demo);
}

static void
test_write_deadline (void)
{
  Demo *demo = demo_spawn ("--write-timeout=300", NULL);
  g_autofree char *blob = tool_call (1, "blob", "{\"bytes\":4000000}");
  g_autofree char *echo = tool_call (2, "echo", "{\"text\":\"after\"}");
  g_autofree char *err = NULL;

  g_test_summary ("A reader that stops reading: the write times out, exit status 1 with one line on stderr");

  demo_send (demo, blob);
  g_usleep (100 * 1000);
  demo_send (demo, echo);
  g_assert_cmpint (wait_process (demo->process, ANSWER_TIMEOUT), ==, 1);
  err = demo_dup_stderr (demo);
  g_test_message ("stderr: %s", err);
  g_assert_nonnull (strstr (err, "took longer than 300 ms"));
  demo_free (demo);
}

static void
test_eras (void)
{
  Demo *demo = demo_spawn (NULL);
  g_autofree char *modern = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                                             "{\"name\":\"version\",\"arguments\":{}," MODERN_META "}}");
  g_autoptr(JsonNode) init = NULL;
  g_autoptr(JsonNode) legacy = NULL;

  g_test_summary ("Both eras on one pipe: a 2025-06-18 session, then a 2026-07-28 request that "
                  "carries its version in _meta");

  demo_send (demo, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                   "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                   "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
  init = demo_read (demo);
  g_assert_cmpstr (json_object_get_string_member (message_result (init), "protocolVersion"), ==, "2025-06-18");
  demo_send (demo, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  {
    g_autofree char *line = tool_call (2, "version", "{}");

    demo_send (demo, line);
  }
  legacy = demo_read (demo);
  g_assert_cmpint (message_id (legacy), ==, 2);
  g_assert_cmpstr (message_text (legacy), ==, "2025-06-18");
  demo_close_stdin (demo);
  g_assert_cmpint (wait_process (demo->process, ANSWER_TIMEOUT), ==, 0);
  demo_free (demo);

  demo = demo_spawn (NULL);
  demo_send (demo, modern);
  {
    g_autoptr(JsonNode) answer = demo_read (demo);

    g_assert_nonnull (answer);
    g_assert_cmpint (message_id (answer), ==, 3);
    g_assert_cmpstr (message_text (answer), ==, "2026-07-28");
    g_assert_true (json_object_has_member (message_result (answer), "resultType"));
  }
  demo_close_stdin (demo);
  g_assert_cmpint (wait_process (demo->process, ANSWER_TIMEOUT), ==, 0);
  demo_free (demo);
}

#ifdef HAVE_SOUP
/* POSTs @body on @connection (HTTP/1.1 by hand, so that the test sees the
 * connection itself): the answer's status; its body in *@answer, and its
 * Mcp-Session-Id in *@new_session_id. Fails the test if the server says it
 * closes the connection. */
static guint
http_post (GSocketConnection  *connection,
           GDataInputStream   *in,
           const char         *authority,
           const char         *session_id,
           const char         *body,
           char              **answer,
           char              **new_session_id)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *request = NULL;
  g_autofree char *status_line = NULL;
  gsize length = 0;
  guint status;

  request = g_strdup_printf ("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                             "Accept: application/json, text/event-stream\r\nContent-Length: %" G_GSIZE_FORMAT "\r\n"
                             "%s%s%s\r\n%s",
                             authority, strlen (body),
                             session_id != NULL ? "Mcp-Session-Id: " : "",
                             session_id != NULL ? session_id : "",
                             session_id != NULL ? "\r\n" : "", body);
  g_output_stream_write_all (g_io_stream_get_output_stream (G_IO_STREAM (connection)),
                             request, strlen (request), NULL, NULL, &error);
  g_assert_no_error (error);

  status_line = g_data_input_stream_read_line (in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (status_line);
  g_assert_true (g_str_has_prefix (status_line, "HTTP/1.1 "));
  status = (guint) g_ascii_strtoull (status_line + 9, NULL, 10);
  for (;;)
    {
      g_autofree char *line = g_data_input_stream_read_line (in, NULL, NULL, &error);

      g_assert_no_error (error);
      g_assert_nonnull (line);
      if (line[0] == '\0')
        break;
      if (g_ascii_strncasecmp (line, "Content-Length:", 15) == 0)
        length = g_ascii_strtoull (line + 15, NULL, 10);
      else if (g_ascii_strncasecmp (line, "Mcp-Session-Id:", 15) == 0 && new_session_id != NULL)
        *new_session_id = g_strstrip (g_strdup (line + 15));
      else if (g_ascii_strncasecmp (line, "Connection:", 11) == 0)
        g_assert_null (strstr (line, "close"));
    }
  if (answer != NULL)
    {
      *answer = g_malloc0 (length + 1);
      g_input_stream_read_all (G_INPUT_STREAM (in), *answer, length, NULL, NULL, &error);
      g_assert_no_error (error);
    }
  else
    g_input_stream_skip (G_INPUT_STREAM (in), length, NULL, &error);
  g_assert_no_error (error);
  return status;
}

static void
test_http_loopback (void)
{
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  g_autoptr(GSocketConnection) connection = NULL;
  g_autoptr(GDataInputStream) in = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *authority = NULL;
  g_autofree char *session_id = NULL;
  g_autofree char *init = NULL;
  g_autofree char *add = NULL;

  g_test_summary ("snodo-demo --http 0 on loopback: initialize, a session, a tool call, "
                  "all three on one connection kept alive");

  demo = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, demo_path (), "--http=0", NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (demo));
  uri = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (uri);
  g_strstrip (uri);
  g_test_message ("uri: %s", uri);
  g_assert_true (g_str_has_prefix (uri, "http://127.0.0.1:"));
  g_assert_true (g_str_has_suffix (uri, "/mcp"));
  authority = g_strndup (uri + 7, strlen (uri) - 7 - 4);

  connection = g_socket_client_connect_to_host (client, authority, 0, NULL, &error);
  g_assert_no_error (error);
  in = g_data_input_stream_new (g_io_stream_get_input_stream (G_IO_STREAM (connection)));
  g_data_input_stream_set_newline_type (in, G_DATA_STREAM_NEWLINE_TYPE_CR_LF);
  g_filter_input_stream_set_close_base_stream (G_FILTER_INPUT_STREAM (in), FALSE);

  g_assert_cmpuint (http_post (connection, in, authority, NULL, readme_requests[0], &init, &session_id), ==, 200);
  g_assert_nonnull (strstr (init, "\"protocolVersion\":\"2025-11-25\""));
  g_assert_nonnull (session_id);
  g_assert_cmpuint (http_post (connection, in, authority, session_id, readme_requests[1], NULL, NULL), ==, 202);
  g_assert_cmpuint (http_post (connection, in, authority, session_id, readme_requests[3], &add, NULL), ==, 200);
  g_test_message ("add: %s", add);
  g_assert_nonnull (strstr (add, "\"text\":\"42\""));

  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  g_subprocess_force_exit (demo);
  g_subprocess_wait (demo, NULL, NULL);
}
#endif

/* Where a parent-death mechanism exists: the documented fallback (macOS,
 * and the portable build) is checked by test-client. */
#if defined(G_OS_WIN32) || defined(HAVE_PR_SET_PDEATHSIG) || defined(HAVE_PROCCTL_PDEATHSIG)
/* Whether process @pid ends within @timeout_ms. */
static gboolean
process_ends (guint64 pid,
              guint   timeout_ms)
{
#ifdef G_OS_WIN32
  HANDLE process = OpenProcess (SYNCHRONIZE, FALSE, (DWORD) pid);
  DWORD waited;

  if (process == NULL)
    return TRUE;
  waited = WaitForSingleObject (process, timeout_ms);
  CloseHandle (process);
  return waited == WAIT_OBJECT_0;
#else
  gint64 deadline = g_get_monotonic_time () + timeout_ms * G_GINT64_CONSTANT (1000);

  while (g_get_monotonic_time () < deadline)
    {
      if (kill ((pid_t) pid, 0) != 0 && errno == ESRCH)
        return TRUE;
      g_usleep (20 * 1000);
    }
  return FALSE;
#endif
}

static void
kill_process (guint64 pid)
{
#ifdef G_OS_WIN32
  HANDLE process = OpenProcess (PROCESS_TERMINATE, FALSE, (DWORD) pid);

  if (process != NULL)
    {
      TerminateProcess (process, 1);
      CloseHandle (process);
    }
#else
  kill ((pid_t) pid, SIGKILL);
#endif
}

static void
test_server_dies_with_client (void)
{
  const char *holder_path = g_getenv ("SNODO_CLIENT_HOLDER");
  g_autoptr(GSubprocess) holder = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  guint64 server_pid;

  g_test_summary ("The server a SnodoClient started ends when the client's process is killed "
                  "outright (TerminateProcess on Windows, SIGKILL on Linux)");

  g_assert_nonnull (holder_path);
  /* A server that does not read its standard input (--http): the end of
   * its input, when the client's process dies, does not end it. */
#ifdef HAVE_SOUP
  holder = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, holder_path, "--",
                             demo_path (), "--http=0", NULL);
#else
  holder = g_subprocess_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error, holder_path, "--connect", "--",
                             demo_path (), NULL);
#endif
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (holder));
  line = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  g_strstrip (line);
  server_pid = g_ascii_strtoull (line, NULL, 10);
  g_assert_cmpuint (server_pid, >, 0);
  g_assert_false (process_ends (server_pid, 300));

  g_subprocess_force_exit (holder);
  g_subprocess_wait (holder, NULL, NULL);
  if (!process_ends (server_pid, 5000))
    {
      kill_process (server_pid);
      g_error ("The server outlived its client's process");
    }
}
#endif

static void
native_handler (SnodoInvocation *invocation,
                gpointer         user_data)
{
}

/* Adds a run-in-thread tool named @name whose handler is at @address. */
static gboolean
add_thread_tool (SnodoServer *server,
                 const char  *name,
                 gpointer     address,
                 GError     **error)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new (name, NULL);

  snodo_tool_set_run_in_thread (tool, TRUE);
  return snodo_server_add_tool (server, tool, (SnodoToolFunc) address, NULL, NULL, error);
}

static void
test_handler_native (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("native", "1");
  g_autoptr(GError) error = NULL;
  gsize size = 4096;
  guint8 *code;

  g_test_summary ("A run-in-thread tool: a handler in the program is taken; one in memory that no "
                  "loaded module holds, or a libffi closure's (as a language binding's handler is), is refused");

  g_assert_true (add_thread_tool (server, "in-program", (gpointer) native_handler, &error));
  g_assert_no_error (error);

  /* Executable memory of no module, holding a lone return instruction. */
#ifdef G_OS_WIN32
  code = VirtualAlloc (NULL, size, MEM_COMMIT | MEM_RESERVE, PAGE_EXECUTE_READWRITE);
  g_assert_nonnull (code);
#else
  code = mmap (NULL, size, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  g_assert_true (code != MAP_FAILED);
#endif
  code[0] = 0xc3;
  g_assert_false (add_thread_tool (server, "in-memory", code, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
  g_test_message ("refused: %s", error->message);
  g_clear_error (&error);
#ifdef G_OS_WIN32
  VirtualFree (code, 0, MEM_RELEASE);
#else
  munmap (code, size);
#endif

#ifdef HAVE_LIBFFI
  /* The code of a libffi closure, as PyGObject and GJS make for a handler
   * written in Python or JavaScript. */
  {
    void *closure_code = NULL;
    ffi_closure *closure = ffi_closure_alloc (sizeof (ffi_closure), &closure_code);

    g_assert_nonnull (closure);
    g_assert_false (add_thread_tool (server, "in-closure", closure_code, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
    g_clear_error (&error);
    ffi_closure_free (closure);
  }
#endif
}

#ifdef G_OS_WIN32
static void
transport_closed_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  g_assert_true (snodo_stdio_transport_close_finish (SNODO_STDIO_TRANSPORT (object), result, NULL));
  *(gboolean *) user_data = TRUE;
}

static gboolean
iterate_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static void
test_close_parked_read (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("parked", "1");
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = g_memory_output_stream_new_resizable ();
  SnodoStdioTransport *transport;
  gpointer weak;
  HANDLE pipe_read, pipe_write;
  gboolean closed = FALSE;
  gint64 deadline;
  guint tick;

  g_test_summary ("Closing a stdio transport whose read of a pipe is parked in a worker thread's "
                  "ReadFile(): the close finishes at once, and the transport is freed when the "
                  "read returns (end of input), with no crash");

  g_assert_true (CreatePipe (&pipe_read, &pipe_write, NULL, 0));
  input = g_win32_input_stream_new (pipe_read, TRUE);
  transport = snodo_stdio_transport_new (server, input, output);
  weak = transport;
  g_object_add_weak_pointer (G_OBJECT (transport), &weak);
  snodo_stdio_transport_start (transport);
  /* Let the read park. */
  tick = g_timeout_add (10, iterate_cb, NULL);
  deadline = g_get_monotonic_time () + 300 * 1000;
  while (g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);

  snodo_stdio_transport_close_async (transport, NULL, transport_closed_cb, &closed);
  g_object_unref (transport);
  wait_until (&closed, 5000, "close of the transport");
  /* The read still holds it, parked. */
  g_assert_nonnull (weak);

  CloseHandle (pipe_write);
  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (weak != NULL && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_source_remove (tick);
  g_assert_null (weak);
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/windows/readme-exchange", test_readme_exchange);
  g_test_add_func ("/snodo/windows/file-stdio", test_file_stdio);
  g_test_add_func ("/snodo/windows/logs-to-stderr", test_logs_to_stderr);
  g_test_add_func ("/snodo/windows/eof-drain", test_eof_drain);
  g_test_add_func ("/snodo/windows/concurrent", test_concurrent);
  g_test_add_func ("/snodo/windows/line-limit", test_line_limit);
  g_test_add_func ("/snodo/windows/write-deadline", test_write_deadline);
  g_test_add_func ("/snodo/windows/eras", test_eras);
  g_test_add_func ("/snodo/windows/handler-native", test_handler_native);
#ifdef G_OS_WIN32
  g_test_add_func ("/snodo/windows/close-parked-read", test_close_parked_read);
#endif
#ifdef HAVE_SOUP
  g_test_add_func ("/snodo/windows/http-loopback", test_http_loopback);
#endif
#if defined(G_OS_WIN32) || defined(HAVE_PR_SET_PDEATHSIG) || defined(HAVE_PROCCTL_PDEATHSIG)
  g_test_add_func ("/snodo/windows/server-dies-with-client", test_server_dies_with_client);
#endif

  return g_test_run ();
}
