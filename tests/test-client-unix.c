/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient and snodo --http over a Unix socket: snodo-demo
 * --http-unix=PATH prints http+unix://PATH/mcp (the path
 * percent-encoded), and the client reaches it in both eras through the
 * socket; URIs without a path are refused. */

#include "config.h"

#include <string.h>

#include <snodo/snodo.h>

#include "snodo-test-util.h"

typedef struct
{
  char *dir;
  GSubprocess *demo;
  char *uri;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GDataInputStream) out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *option = NULL;
  const char *demo = g_getenv ("SNODO_DEMO");

  g_assert_nonnull (demo);
  /* A space and a percent sign in the path: both must be encoded. */
  fixture->dir = g_dir_make_tmp ("snodo-unix 100%-XXXXXX", &error);
  g_assert_no_error (error);
  option = g_strdup_printf ("--http-unix=%s/s.sock", fixture->dir);
  fixture->demo = g_subprocess_launcher_spawn (launcher, &error, demo, option, NULL);
  g_assert_no_error (error);
  out = g_data_input_stream_new (g_subprocess_get_stdout_pipe (fixture->demo));
  fixture->uri = g_data_input_stream_read_line_utf8 (out, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (fixture->uri);
  g_assert_true (g_str_has_prefix (fixture->uri, "http+unix://%2F"));
  g_assert_true (g_str_has_suffix (fixture->uri, "/mcp"));
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  snodo_test_demo_stop (fixture->demo);
  g_clear_object (&fixture->demo);
  snodo_test_remove_dir (fixture->dir);
  g_clear_pointer (&fixture->dir, g_free);
  g_clear_pointer (&fixture->uri, g_free);
}

static void
test_client (Fixture       *fixture,
             gconstpointer  data)
{
  SnodoProtocolVersion version = GPOINTER_TO_INT (data);
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) called = NULL;
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{\"text\":\"through the socket\"}");
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *text = NULL;

  client = snodo_client_new_for_uri (fixture->uri, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, version);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);
  g_assert_cmpint (snodo_client_get_protocol_version (client), ==, version);
  g_assert_cmpstr (json_object_get_string_member (snodo_client_get_server_info (client), "name"), ==, "snodo-demo");

  snodo_client_call_tool_async (client, "echo", args, NULL, snodo_test_store_result_cb, &called);
  result = snodo_client_call_tool_finish (client, snodo_test_wait_result (&called), &error);
  g_assert_no_error (error);
  text = snodo_test_first_text (result);
  g_assert_cmpstr (text, ==, "through the socket");
  snodo_test_close_client (client);
}

static void
test_cli (Fixture       *fixture,
          gconstpointer  data)
{
  const char *list[] = { "list", "--http", fixture->uri, NULL };
  const char *call[] = { "call", "--http", fixture->uri, "tools/call",
                         "{\"name\":\"echo\",\"arguments\":{\"text\":\"cli on a socket\"}}", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *call_out = NULL;
  g_autofree char *call_err = NULL;

  g_assert_cmpint (snodo_test_run_snodo (list, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "Server: snodo-demo"));
  g_assert_nonnull (strstr (out, "echo"));
  g_assert_cmpint (snodo_test_run_snodo (call, &call_out, &call_err), ==, 0);
  g_assert_nonnull (strstr (call_out, "cli on a socket"));
}

static void
test_bad_uri (void)
{
  const char *bad[] = { "http+unix:///mcp", "http+unix://%2Ftmp%2Fs.sock:80/mcp", "http+unix://u@%2Fs/mcp" };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SnodoClient) client = snodo_client_new_for_uri (bad[i], &error);

      g_assert_null (client);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/client-unix/2025-11-25", Fixture, GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_11_25),
              fixture_set_up, test_client, fixture_tear_down);
  g_test_add ("/client-unix/2026-07-28", Fixture, GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2026_07_28),
              fixture_set_up, test_client, fixture_tear_down);
  g_test_add ("/client-unix/cli", Fixture, NULL, fixture_set_up, test_cli, fixture_tear_down);
  g_test_add_func ("/client-unix/bad-uri", test_bad_uri);

  return g_test_run ();
}
