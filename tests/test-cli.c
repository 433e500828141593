/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The snodo command, black-box, against snodo-demo. */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <json-glib/json-glib.h>

static const char *
demo_path (void)
{
  const char *demo = g_getenv ("SNODO_DEMO");

  g_assert_nonnull (demo);
  return demo;
}

static JsonObject *
parse_object (const char *text)
{
  g_autoptr(JsonNode) node = json_from_string (text, NULL);

  g_assert_nonnull (node);
  return json_node_dup_object (node);
}

static char *
first_text (JsonObject *result)
{
  JsonArray *content = json_object_get_array_member (result, "content");
  JsonObject *block = json_array_get_object_element (content, 0);

  return g_strdup (json_object_get_string_member (block, "text"));
}

static void
run_snodo (const char * const *args,
           int                 expected_status,
           char              **out,
           char              **err)
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
  if (!g_subprocess_get_if_exited (process) || g_subprocess_get_exit_status (process) != expected_status)
    g_error ("snodo %s: expected status %d; stderr: %s", args[0], expected_status, *err);
}

static void
test_cli_call (void)
{
  const char *args[] = { "call", "--", demo_path (), "tools/call",
                         "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}", NULL };
  const char *legacy[] = { "call", "--protocol-version=2025-06-18", "--", demo_path (), "tools/call",
                           "{\"name\":\"version\"}", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err2 = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *text = NULL;

  run_snodo (args, 0, &out, &err);
  result = parse_object (out);
  text = first_text (result);
  g_assert_cmpstr (text, ==, "hi");

  run_snodo (legacy, 0, &out2, &err2);
  g_assert_nonnull (strstr (out2, "2025-06-18"));
}

static void
test_cli_list (void)
{
  const char *args[] = { "list", "--", demo_path (), NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  run_snodo (args, 0, &out, &err);
  g_assert_nonnull (strstr (out, "echo"));
  g_assert_nonnull (strstr (out, "demo://readme"));
  g_assert_nonnull (strstr (out, "demo://echo/{text}"));
  g_assert_nonnull (strstr (out, "greet"));
}

static void
test_cli_errors (void)
{
  const char *unknown[] = { "call", "--", demo_path (), "no/such", NULL };
  const char *bad_json[] = { "call", "--", demo_path (), "tools/call", "{nope", NULL };
  const char *no_command[] = { "call", "--", "/nonexistent/server", "ping", NULL };
  const char *bad_version[] = { "list", "--protocol-version=1999-01-01", "--", demo_path (), NULL };
  const char *const *cases[] = { unknown, bad_json, no_command, bad_version };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;

      run_snodo (cases[i], 1, &out, &err);
      g_assert_cmpstr (out, ==, "");
      /* One line. */
      g_assert_true (g_str_has_suffix (err, "\n"));
      g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
      g_test_message ("%s", err);
    }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/cli/call", test_cli_call);
  g_test_add_func ("/snodo/cli/list", test_cli_list);
  g_test_add_func ("/snodo/cli/errors", test_cli_errors);

  return g_test_run ();
}
