/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
# include <sys/prctl.h>
#endif

#include <glib-unix.h>
#include <glib/gstdio.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>

#include "snodo-test-util.h"

JsonNode *
snodo_test_parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

static gboolean
values_equal (JsonNode *a,
              JsonNode *b)
{
  GType ta = json_node_get_value_type (a);
  GType tb = json_node_get_value_type (b);

  if ((ta == G_TYPE_INT64 || ta == G_TYPE_DOUBLE) && (tb == G_TYPE_INT64 || tb == G_TYPE_DOUBLE))
    {
      if (ta == G_TYPE_INT64 && tb == G_TYPE_INT64)
        return json_node_get_int (a) == json_node_get_int (b);
      return json_node_get_double (a) == json_node_get_double (b);
    }
  if (ta != tb)
    return FALSE;
  if (ta == G_TYPE_STRING)
    return g_strcmp0 (json_node_get_string (a), json_node_get_string (b)) == 0;
  if (ta == G_TYPE_BOOLEAN)
    return json_node_get_boolean (a) == json_node_get_boolean (b);
  return FALSE;
}

gboolean
snodo_test_json_equal (JsonNode *a,
                       JsonNode *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (JSON_NODE_TYPE (a) != JSON_NODE_TYPE (b))
    return FALSE;

  switch (JSON_NODE_TYPE (a))
    {
    case JSON_NODE_NULL:
      return TRUE;
    case JSON_NODE_VALUE:
      return values_equal (a, b);
    case JSON_NODE_ARRAY:
      {
        JsonArray *aa = json_node_get_array (a);
        JsonArray *ab = json_node_get_array (b);
        guint n = json_array_get_length (aa);

        if (n != json_array_get_length (ab))
          return FALSE;
        for (guint i = 0; i < n; i++)
          if (!snodo_test_json_equal (json_array_get_element (aa, i), json_array_get_element (ab, i)))
            return FALSE;
        return TRUE;
      }
    case JSON_NODE_OBJECT:
      {
        JsonObject *oa = json_node_get_object (a);
        JsonObject *ob = json_node_get_object (b);
        g_autoptr(GList) members = json_object_get_members (oa);

        if (json_object_get_size (oa) != json_object_get_size (ob))
          return FALSE;
        for (const GList *l = members; l; l = l->next)
          {
            if (!json_object_has_member (ob, l->data))
              return FALSE;
            if (!snodo_test_json_equal (json_object_get_member (oa, l->data),
                                        json_object_get_member (ob, l->data)))
              return FALSE;
          }
        return TRUE;
      }
    default:
      return FALSE;
    }
}

static gboolean
wait_timeout_cb (gpointer data)
{
  gboolean *timed_out = data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
snodo_test_wait_for (const gboolean *flag,
                     guint           timeout_ms)
{
  GMainContext *context = g_main_context_get_thread_default ();
  gboolean timed_out = FALSE;
  GSource *source = g_timeout_source_new (timeout_ms);

  g_source_set_callback (source, wait_timeout_cb, &timed_out, NULL);
  g_source_attach (source, context);
  while (!*flag && !timed_out)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (source);
  g_source_unref (source);
  return *flag;
}

#define PIPE_ANSWER_TIMEOUT 10000

static void
pipe_closed_cb (SnodoStdioTransport *transport,
                const GError        *error,
                SnodoTestPipe       *pipe)
{
  g_assert_no_error ((GError *) error);
  pipe->closed = TRUE;
}

void
snodo_test_pipe_set_up (SnodoTestPipe *pipe)
{
  snodo_test_pipe_set_up_for (pipe, NULL);
}

void
snodo_test_pipe_set_up_for (SnodoTestPipe *pipe,
                            SnodoServer   *server)
{
  g_autoptr(GInputStream) input = NULL;
  g_autoptr(GOutputStream) output = NULL;
  g_autoptr(GInputStream) answers = NULL;
  int in_fds[2];
  int out_fds[2];

  g_assert_true (g_unix_open_pipe (in_fds, FD_CLOEXEC, NULL));
  g_assert_true (g_unix_open_pipe (out_fds, FD_CLOEXEC, NULL));
  input = g_unix_input_stream_new (in_fds[0], TRUE);
  output = g_unix_output_stream_new (out_fds[1], TRUE);
  answers = g_unix_input_stream_new (out_fds[0], TRUE);
  pipe->write_fd = in_fds[1];
  pipe->answers = g_data_input_stream_new (answers);
  g_data_input_stream_set_newline_type (pipe->answers, G_DATA_STREAM_NEWLINE_TYPE_LF);
  pipe->next_id = 1;
  pipe->closed = FALSE;

  pipe->server = server != NULL ? g_object_ref (server) : snodo_server_new ("test", "1");
  pipe->transport = snodo_stdio_transport_new (pipe->server, input, output);
  g_signal_connect (pipe->transport, "closed", G_CALLBACK (pipe_closed_cb), pipe);
  snodo_stdio_transport_start (pipe->transport);
}

void
snodo_test_pipe_close (SnodoTestPipe *pipe)
{
  close (pipe->write_fd);
  g_assert_true (snodo_test_wait_for (&pipe->closed, PIPE_ANSWER_TIMEOUT));
  g_clear_object (&pipe->transport);
  g_clear_object (&pipe->server);
  g_clear_object (&pipe->answers);
}

void
snodo_test_pipe_tear_down (SnodoTestPipe *pipe)
{
  close (pipe->write_fd);
  g_assert_true (snodo_test_wait_for (&pipe->closed, PIPE_ANSWER_TIMEOUT));
  g_clear_object (&pipe->transport);
  for (guint i = 0; i < 50; i++)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (1000);
    }
  g_assert_finalize_object (pipe->server);
  g_clear_object (&pipe->answers);
}

void
snodo_test_pipe_write (SnodoTestPipe *pipe,
                       const char    *line)
{
  gsize len = strlen (line);

  g_assert_cmpint (write (pipe->write_fd, line, len), ==, (gssize) len);
}

typedef struct
{
  gboolean  done;
  char     *line;
} ReadLine;

static void
pipe_read_line_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  ReadLine *read = user_data;

  read->line = g_data_input_stream_read_line_finish (G_DATA_INPUT_STREAM (object), result, NULL, NULL);
  read->done = TRUE;
}

JsonNode *
snodo_test_pipe_read (SnodoTestPipe *pipe)
{
  ReadLine read = { 0, };
  JsonNode *node;

  g_data_input_stream_read_line_async (pipe->answers, G_PRIORITY_DEFAULT, NULL, pipe_read_line_cb, &read);
  g_assert_true (snodo_test_wait_for (&read.done, PIPE_ANSWER_TIMEOUT));
  g_assert_nonnull (read.line);
  node = snodo_test_parse (read.line);
  g_free (read.line);
  return node;
}

void
snodo_test_store_result_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  GAsyncResult **slot = user_data;

  *slot = g_object_ref (result);
}

GAsyncResult *
snodo_test_wait_result (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

JsonObject *
snodo_test_parse_object (const char *text)
{
  g_autoptr(JsonNode) node = json_from_string (text, NULL);

  g_assert_nonnull (node);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (node));
  return json_node_dup_object (node);
}

char *
snodo_test_first_text (JsonObject *result)
{
  JsonArray *content = json_object_get_array_member (result, "content");
  JsonObject *block = json_array_get_object_element (content, 0);

  return g_strdup (json_object_get_string_member (block, "text"));
}

void
snodo_test_close_client (SnodoClient *client)
{
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(GError) error = NULL;

  snodo_client_close_async (client, NULL, snodo_test_store_result_cb, &result);
  g_assert_true (snodo_client_close_finish (client, snodo_test_wait_result (&result), &error));
  g_assert_no_error (error);
}

#define SNODO_TEST_MODERN_META \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}"

JsonNode *
snodo_test_pipe_call (SnodoTestPipe *pipe,
                      gboolean       modern,
                      const char    *method,
                      const char    *params)
{
  g_autofree char *line = NULL;
  JsonNode *answer;

  if (modern)
    line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"%s\",\"params\":{%s%s%s}}\n",
                            pipe->next_id, method, params ? params : "", params ? "," : "",
                            SNODO_TEST_MODERN_META);
  else
    line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"%s\",\"params\":{%s}}\n",
                            pipe->next_id, method, params ? params : "");
  snodo_test_pipe_write (pipe, line);
  answer = snodo_test_pipe_read (pipe);
  g_assert_true (JSON_NODE_HOLDS_OBJECT (answer));
  g_assert_cmpint (json_object_get_int_member_with_default (json_node_get_object (answer), "id", -1),
                   ==, pipe->next_id);
  pipe->next_id++;
  return answer;
}

JsonObject *
snodo_test_get_result (JsonNode *message)
{
  JsonObject *object = json_node_get_object (message);

  if (!json_object_has_member (object, "result"))
    g_error ("Expected a result, got %s", json_to_string (message, FALSE));
  return json_object_get_object_member (object, "result");
}

#ifdef __linux__
static void
die_with_parent (gpointer user_data)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}
#endif

GSubprocess *
snodo_test_demo_http_start (const char * const *extra_args,
                            char              **uri)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  const char *path = g_getenv ("SNODO_DEMO");
  GSubprocess *demo;

  g_assert_nonnull (path);
  g_ptr_array_add (argv, (gpointer) path);
  g_ptr_array_add (argv, (gpointer) "--http=0");
  for (guint i = 0; extra_args != NULL && extra_args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra_args[i]);
  g_ptr_array_add (argv, NULL);

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
#ifdef __linux__
  /* A failed assertion must not leave the server running (holding the
   * test's standard error open). */
  g_subprocess_launcher_set_child_setup (launcher, die_with_parent, NULL, NULL);
#endif
  demo = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (demo));
  *uri = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (*uri);
  g_assert_true (g_str_has_prefix (*uri, "http://") || g_str_has_prefix (*uri, "https://"));
  return demo;
}

static void
run_openssl (const char         *dir,
             const char * const *args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int status = 0;

  g_ptr_array_add (argv, (gpointer) "openssl");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (dir, (char **) argv->pdata, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                NULL, &err, &status, &error);
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("openssl %s: %s", args[0], err);
}

gboolean
snodo_test_make_tls_files (const char *dir)
{
  g_autofree char *openssl = g_find_program_in_path ("openssl");
  g_autofree char *extensions = g_build_filename (dir, "server.ext", NULL);
  g_autoptr(GError) error = NULL;
  const char *ci = g_getenv ("CI");

  if (openssl == NULL)
    {
      g_assert_true (ci == NULL || *ci == '\0' || g_str_equal (ci, "false") || g_str_equal (ci, "0"));
      g_test_skip ("openssl is not installed: no certificates to test with");
      return FALSE;
    }
  g_file_set_contents (extensions,
                       "basicConstraints=CA:FALSE\n"
                       "keyUsage=digitalSignature\n"
                       "extendedKeyUsage=serverAuth\n"
                       "subjectAltName=IP:127.0.0.1,DNS:localhost\n", -1, &error);
  g_assert_no_error (error);
  run_openssl (dir, (const char *[]) { "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                       "-nodes", "-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2",
                                       "-subj", "/CN=Snodo test CA",
                                       "-addext", "basicConstraints=critical,CA:TRUE",
                                       "-addext", "keyUsage=critical,keyCertSign,cRLSign", NULL });
  run_openssl (dir, (const char *[]) { "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                                       "-nodes", "-keyout", "server-key.pem", "-out", "server.csr",
                                       "-subj", "/CN=localhost", NULL });
  run_openssl (dir, (const char *[]) { "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem",
                                       "-set_serial", "2", "-days", "2", "-extfile", "server.ext",
                                       "-out", "server.pem", NULL });
  return TRUE;
}

void
snodo_test_demo_stop (GSubprocess *demo)
{
  g_autoptr(GError) error = NULL;

  g_subprocess_send_signal (demo, SIGTERM);
  g_assert_true (g_subprocess_wait (demo, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_subprocess_get_if_exited (demo));
  g_assert_cmpint (g_subprocess_get_exit_status (demo), ==, 0);
}

void
snodo_test_remove_dir (const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

int
snodo_test_run_snodo (const char * const  *args,
                      char               **out,
                      char               **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;
  const char *snodo = g_getenv ("SNODO_CLI");

  g_assert_nonnull (snodo);
  g_ptr_array_add (argv, (char *) snodo);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (process, NULL, NULL, out, err, &error));
  g_assert_no_error (error);
  g_test_message ("snodo %s: %s", args[0], *err);
  g_assert_true (g_subprocess_get_if_exited (process));
  return g_subprocess_get_exit_status (process);
}
