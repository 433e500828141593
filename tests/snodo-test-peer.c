/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-test-peer.h"

struct _TestProcess
{
  GSubprocess      *process;
  GOutputStream    *stdin_pipe;
  GDataInputStream *stdout_data;
  GInputStream     *stderr_pipe;
  GString          *stderr_text;
  guint8            stderr_buffer[4096];
  gboolean          stderr_done;
  GCancellable     *cancellable;
  /* The raw text of the last message read. */
  char             *last_line;
};

static void stderr_read (TestProcess *self);

static void
stderr_read_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  TestProcess *self = user_data;
  g_autoptr(GError) error = NULL;
  gssize n = g_input_stream_read_finish (G_INPUT_STREAM (object), result, &error);

  if (n <= 0)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        self->stderr_done = TRUE;
      return;
    }
  g_string_append_len (self->stderr_text, (const char *) self->stderr_buffer, n);
  /* Pass it on, so that a failing test shows what the server said. */
  g_test_message ("server stderr: %.*s", (int) n, (const char *) self->stderr_buffer);
  stderr_read (self);
}

static void
stderr_read (TestProcess *self)
{
  g_input_stream_read_async (self->stderr_pipe, self->stderr_buffer, sizeof self->stderr_buffer,
                             G_PRIORITY_DEFAULT, self->cancellable, stderr_read_cb, self);
}

TestProcess *
test_process_spawn (const char * const *argv)
{
  g_autoptr(GError) error = NULL;
  TestProcess *self = g_new0 (TestProcess, 1);

  self->process = g_subprocess_newv (argv,
                                     G_SUBPROCESS_FLAGS_STDIN_PIPE |
                                     G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                     G_SUBPROCESS_FLAGS_STDERR_PIPE,
                                     &error);
  g_assert_no_error (error);
  self->stdin_pipe = g_object_ref (g_subprocess_get_stdin_pipe (self->process));
  self->stdout_data = g_data_input_stream_new (g_subprocess_get_stdout_pipe (self->process));
  g_data_input_stream_set_newline_type (self->stdout_data, G_DATA_STREAM_NEWLINE_TYPE_LF);
  g_buffered_input_stream_set_buffer_size (G_BUFFERED_INPUT_STREAM (self->stdout_data), 1 << 20);
  self->stderr_pipe = g_object_ref (g_subprocess_get_stderr_pipe (self->process));
  self->stderr_text = g_string_new (NULL);
  self->cancellable = g_cancellable_new ();
  stderr_read (self);
  return self;
}

TestProcess *
test_process_spawn_program (const char *program_variable,
                            const char *first_option,
                            ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  const char *program = g_getenv (program_variable);
  va_list args;

  g_assert_nonnull (program);
  g_ptr_array_add (argv, (gpointer) program);
  va_start (args, first_option);
  for (const char *option = first_option; option != NULL; option = va_arg (args, const char *))
    g_ptr_array_add (argv, (gpointer) option);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  return test_process_spawn ((const char * const *) argv->pdata);
}

JsonNode *
test_process_call_tool (TestProcess *self,
                        gint64       id,
                        const char  *tool,
                        const char  *arguments_json,
                        guint        timeout_ms)
{
  g_autofree char *line = test_tool_call (id, tool, arguments_json);

  test_process_send (self, line);
  return test_process_read_id (self, id, timeout_ms);
}

void
test_process_free (TestProcess *self)
{
  if (g_subprocess_get_identifier (self->process) != NULL)
    {
      g_subprocess_force_exit (self->process);
      g_subprocess_wait (self->process, NULL, NULL);
    }
  g_cancellable_cancel (self->cancellable);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_object (&self->stdin_pipe);
  g_clear_object (&self->stdout_data);
  g_clear_object (&self->stderr_pipe);
  g_clear_object (&self->process);
  g_clear_object (&self->cancellable);
  g_string_free (self->stderr_text, TRUE);
  g_free (self->last_line);
  g_free (self);
}

GPid
test_process_get_pid (TestProcess *self)
{
  const char *id = g_subprocess_get_identifier (self->process);

  g_assert_nonnull (id);
  return (GPid) g_ascii_strtoll (id, NULL, 10);
}

void
test_process_send_bytes (TestProcess *self,
                         const void  *data,
                         gsize        len)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_write_all (self->stdin_pipe, data, len, NULL, NULL, &error);
  g_assert_no_error (error);
}

void
test_process_send (TestProcess *self,
                   const char  *line)
{
  test_process_send_bytes (self, line, strlen (line));
  if (line[0] == '\0' || line[strlen (line) - 1] != '\n')
    test_process_send_bytes (self, "\n", 1);
}

void
test_process_close_stdin (TestProcess *self)
{
  g_autoptr(GError) error = NULL;

  g_output_stream_close (self->stdin_pipe, NULL, &error);
  g_assert_no_error (error);
}

/* Closes the test's read end of the server's standard output: every later
 * write of the server fails with EPIPE. */
void
test_process_close_stdout (TestProcess *self)
{
  g_autoptr(GError) error = NULL;

  g_input_stream_close (G_INPUT_STREAM (self->stdout_data), NULL, &error);
  g_assert_no_error (error);
}

typedef struct
{
  gboolean  done;
  char     *line;
  gsize     len;
  GError   *error;
} ReadLine;

static void
read_line_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  ReadLine *read = user_data;

  read->line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object), result,
                                                     &read->len, &read->error);
  read->done = TRUE;
}

static gboolean
flag_timeout_cb (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

char *
test_process_read_line (TestProcess *self,
                        guint        timeout_ms,
                        gboolean    *timed_out)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  ReadLine read = { 0, };
  gboolean expired = FALSE;
  guint timeout_id;

  g_data_input_stream_read_line_async (self->stdout_data, G_PRIORITY_DEFAULT, cancellable,
                                       read_line_cb, &read);
  timeout_id = g_timeout_add (timeout_ms, flag_timeout_cb, &expired);
  while (!read.done && !expired)
    g_main_context_iteration (NULL, TRUE);
  if (!expired)
    g_source_remove (timeout_id);
  if (!read.done)
    {
      g_cancellable_cancel (cancellable);
      while (!read.done)
        g_main_context_iteration (NULL, TRUE);
    }

  if (timed_out != NULL)
    *timed_out = read.line == NULL && expired;
  if (read.line == NULL)
    {
      g_clear_error (&read.error);
      return NULL;
    }

  g_free (self->last_line);
  self->last_line = g_strdup (read.line);
  return read.line;
}

JsonNode *
test_process_read (TestProcess *self,
                   guint        timeout_ms)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = test_process_read_line (self, timeout_ms, NULL);
  JsonNode *node;

  if (line == NULL)
    return NULL;
  node = json_from_string (line, &error);
  if (node == NULL)
    g_error ("The server wrote a line that is not JSON (%s): %.200s", error ? error->message : "empty", line);
  return node;
}

JsonNode *
test_process_read_id (TestProcess *self,
                      gint64       id,
                      guint        timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  for (;;)
    {
      gint64 left = (deadline - g_get_monotonic_time ()) / 1000;
      JsonNode *node;

      if (left <= 0)
        return NULL;
      node = test_process_read (self, (guint) left);
      if (node == NULL)
        return NULL;
      if (test_message_get_id (node) == id)
        return node;
      json_node_unref (node);
    }
}

static void
wait_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  *(gboolean *) user_data = TRUE;
}

int
test_process_wait (TestProcess *self,
                   guint        timeout_ms)
{
  gboolean exited = FALSE;
  gboolean timed_out = FALSE;
  guint timeout_id;

  g_subprocess_wait_async (self->process, NULL, wait_cb, &exited);
  timeout_id = g_timeout_add (timeout_ms, flag_timeout_cb, &timed_out);
  while (!exited && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (timeout_id);
  if (!exited)
    return -1;

  /* Collect what is left on standard error. */
  timed_out = FALSE;
  timeout_id = g_timeout_add (2000, flag_timeout_cb, &timed_out);
  while (!self->stderr_done && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (!timed_out)
    g_source_remove (timeout_id);

  if (g_subprocess_get_if_signaled (self->process))
    return 128 + g_subprocess_get_term_sig (self->process);
  return g_subprocess_get_exit_status (self->process);
}

const char *
test_process_get_last_line (TestProcess *self)
{
  return self->last_line;
}

char *
test_process_dup_stderr (TestProcess *self)
{
  return g_strdup (self->stderr_text->str);
}

GBytes *
test_process_read_rest (TestProcess *self,
                        guint        timeout_ms)
{
  GByteArray *bytes = g_byte_array_new ();
  GInputStream *stream = G_INPUT_STREAM (self->stdout_data);
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  guint8 buffer[65536];

  /* The stream is blocking; only called once the process has exited. */
  while (g_get_monotonic_time () < deadline)
    {
      gssize n = g_input_stream_read (stream, buffer, sizeof buffer, NULL, NULL);

      if (n <= 0)
        break;
      g_byte_array_append (bytes, buffer, n);
    }
  return g_byte_array_free_to_bytes (bytes);
}

gint64
test_process_status_kb (TestProcess *self,
                        const char  *field)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) test_process_get_pid (self));
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  gsize field_len = strlen (field);

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return -1;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strncmp (lines[i], field, field_len) == 0 && lines[i][field_len] == ':')
      return g_ascii_strtoll (lines[i] + field_len + 1, NULL, 10);
  return -1;
}

void
test_process_initialize (TestProcess *self,
                         const char  *version)
{
  g_autofree char *line = NULL;
  g_autoptr(JsonNode) answer = NULL;

  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
                          "{\"protocolVersion\":\"%s\",\"capabilities\":{},"
                          "\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}",
                          version);
  test_process_send (self, line);
  answer = test_process_read_id (self, 0, 10000);
  g_assert_nonnull (answer);
  g_assert_true (json_object_has_member (json_node_get_object (answer), "result"));
  test_process_send (self, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
}

gint64
test_message_get_id (JsonNode *message)
{
  JsonNode *id = json_object_get_member (json_node_get_object (message), "id");

  if (id == NULL || !JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_INT64)
    return G_MININT64;
  return json_node_get_int (id);
}

gboolean
test_message_id_is_null (JsonNode *message)
{
  JsonNode *id = json_object_get_member (json_node_get_object (message), "id");

  return id != NULL && JSON_NODE_HOLDS_NULL (id);
}

gint64
test_message_get_error_code (JsonNode *message)
{
  JsonObject *object = json_node_get_object (message);
  JsonObject *error;

  if (!json_object_has_member (object, "error"))
    return 0;
  error = json_object_get_object_member (object, "error");
  return json_object_get_int_member (error, "code");
}

const char *
test_message_get_text (JsonNode *message)
{
  JsonObject *object = json_node_get_object (message);
  JsonObject *result;
  JsonArray *content;

  if (!json_object_has_member (object, "result"))
    return NULL;
  result = json_object_get_object_member (object, "result");
  content = json_object_get_array_member (result, "content");
  if (content == NULL || json_array_get_length (content) != 1)
    return NULL;
  return json_object_get_string_member (json_array_get_object_element (content, 0), "text");
}

gboolean
test_message_is_tool_error (JsonNode *message)
{
  JsonObject *object = json_node_get_object (message);
  JsonObject *result;

  if (!json_object_has_member (object, "result"))
    return FALSE;
  result = json_object_get_object_member (object, "result");
  return json_object_has_member (result, "isError") &&
         json_object_get_boolean_member (result, "isError");
}

char *
test_tool_call (gint64      id,
                const char *tool,
                const char *arguments_json)
{
  return g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tools/call\","
                          "\"params\":{\"name\":\"%s\",\"arguments\":%s}}",
                          id, tool, arguments_json);
}
