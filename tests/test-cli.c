/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The snodo command, black-box, against snodo-demo. */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gio/gio.h>
#include <json-glib/json-glib.h>
#include <snodo/snodo.h>

#if SNODO_HAS_HTTP_TRANSPORT
# include <libsoup/soup.h>
#endif

#include "snodo-test-util.h"

static const char *
demo_path (void)
{
  const char *demo = g_getenv ("SNODO_DEMO");

  g_assert_nonnull (demo);
  return demo;
}

static void
run_snodo (const char * const *args,
           int                 expected_status,
           char              **out,
           char              **err)
{
  int status = snodo_test_run_snodo (args, out, err);

  if (status != expected_status)
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
  result = snodo_test_parse_object (out);
  text = snodo_test_first_text (result);
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
  const char *no_server[] = { "list", "--http", "http://127.0.0.1:1/mcp", NULL };
  const char *bad_uri[] = { "list", "--http", "ftp://example.org/mcp", NULL };
  const char *const *cases[] = { unknown, bad_json, no_command, bad_version, no_server, bad_uri };

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

#if SNODO_HAS_HTTP_TRANSPORT
static void
test_cli_http (void)
{
  g_autofree char *uri = NULL;
  g_autoptr(GSubprocess) demo = snodo_test_demo_http_start (NULL, &uri);
  const char *list[] = { "list", "--http", uri, NULL };
  const char *call[] = { "call", "--http", uri, "tools/call",
                         "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi over HTTP\"}}", NULL };
  const char *legacy[] = { "call", "--protocol-version=2025-11-25", "--http", uri, "tools/call",
                           "{\"name\":\"version\"}", NULL };
  const char *tools[] = { "call", "--http", uri, "tools/list", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err2 = NULL;
  g_autofree char *out3 = NULL;
  g_autofree char *err3 = NULL;
  g_autofree char *out4 = NULL;
  g_autofree char *err4 = NULL;
  g_autoptr(JsonObject) result = NULL;
  g_autofree char *text = NULL;

  run_snodo (list, 0, &out, &err);
  g_assert_nonnull (strstr (out, "protocol 2026-07-28"));
  g_assert_nonnull (strstr (out, "echo"));
  g_assert_nonnull (strstr (out, "demo://echo/{text}"));

  run_snodo (call, 0, &out2, &err2);
  result = snodo_test_parse_object (out2);
  text = snodo_test_first_text (result);
  g_assert_cmpstr (text, ==, "hi over HTTP");

  run_snodo (legacy, 0, &out3, &err3);
  g_assert_nonnull (strstr (out3, "\"2025-11-25\""));

  run_snodo (tools, 0, &out4, &err4);
  g_assert_nonnull (strstr (out4, "\"inputSchema\""));

  snodo_test_demo_stop (demo);
}

/* A server in this process that wants a bearer token and a header: 401
 * without them; discover and one tool call with them. */
static void
auth_server_cb (SoupServer        *server,
                SoupServerMessage *message,
                const char        *path,
                GHashTable        *query,
                gpointer           user_data)
{
  SoupMessageHeaders *headers = soup_server_message_get_request_headers (message);
  SoupMessageBody *body = soup_server_message_get_request_body (message);
  g_autoptr(GBytes) bytes = soup_message_body_flatten (body);
  g_autofree char *text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  g_autoptr(JsonNode) node = json_from_string (text, NULL);
  JsonObject *request = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  const char *method = request != NULL ? json_object_get_string_member_with_default (request, "method", "") : "";
  gint64 id = request != NULL ? json_object_get_int_member_with_default (request, "id", 0) : 0;
  g_autofree char *answer = NULL;

  if (g_strcmp0 (soup_message_headers_get_one (headers, "Authorization"), "Bearer open-sesame") != 0 ||
      g_strcmp0 (soup_message_headers_get_one (headers, "X-Tenant"), "blue") != 0)
    {
      soup_message_headers_replace (soup_server_message_get_response_headers (message), "WWW-Authenticate",
                                    "Bearer resource_metadata=\"https://auth.example/.well-known/oauth-protected-resource\"");
      soup_server_message_set_status (message, 401, NULL);
      return;
    }
  if (g_str_equal (method, "server/discover"))
    answer = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":"
                              "{\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}}}}", id);
  else
    answer = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"result\":"
                              "{\"content\":[{\"type\":\"text\",\"text\":\"let in\"}]}}", id);
  soup_server_message_set_status (message, 200, NULL);
  soup_server_message_set_response (message, "application/json", SOUP_MEMORY_COPY, answer, strlen (answer));
}

typedef struct
{
  gboolean done;
  char *out;
  char *err;
  int status;
} AsyncRun;

static void
communicated_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  AsyncRun *run = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_communicate_utf8_finish (G_SUBPROCESS (source), result, &run->out, &run->err, &error));
  g_assert_no_error (error);
  run->status = g_subprocess_get_exit_status (G_SUBPROCESS (source));
  run->done = TRUE;
}

/* Runs snodo while this process's main context serves. */
static void
run_snodo_serving (const char * const *args,
                   AsyncRun           *run)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) process = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (char *) g_getenv ("SNODO_CLI"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  process = g_subprocess_newv ((const char * const *) argv->pdata,
                               G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (process, NULL, NULL, communicated_cb, run);
  while (!run->done)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_cli_http_auth (void)
{
  g_autoptr(SoupServer) server = soup_server_new (NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GSList) uris = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *token_file = NULL;
  g_autofree char *empty_file = NULL;
  const char *call = "{\"name\":\"door\",\"arguments\":{}}";
  AsyncRun bare = { 0, };
  AsyncRun header_only = { 0, };
  AsyncRun both = { 0, };
  AsyncRun empty = { 0, };
  int fd;

  soup_server_add_handler (server, "/mcp", auth_server_cb, NULL, NULL);
  g_assert_true (soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error));
  g_assert_no_error (error);
  uris = soup_server_get_uris (server);
  uri = g_strdup_printf ("http://127.0.0.1:%d/mcp", g_uri_get_port (uris->data));
  g_slist_free_full (g_steal_pointer (&uris), (GDestroyNotify) g_uri_unref);

  fd = g_file_open_tmp ("snodo-token-XXXXXX", &token_file, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_set_contents (token_file, "open-sesame\n", -1, &error));
  g_assert_no_error (error);
  close (fd);
  fd = g_file_open_tmp ("snodo-token-XXXXXX", &empty_file, &error);
  g_assert_no_error (error);
  close (fd);

  /* No token: one line naming the resource metadata, status 1. */
  run_snodo_serving ((const char *[]) { "call", "--http", uri, "tools/call", call, NULL }, &bare);
  g_assert_cmpint (bare.status, ==, 1);
  g_assert_cmpstr (bare.out, ==, "");
  g_assert_nonnull (strstr (bare.err, "401"));
  g_assert_nonnull (strstr (bare.err, "https://auth.example/.well-known/oauth-protected-resource"));
  g_assert_true (strchr (bare.err, '\n') == bare.err + strlen (bare.err) - 1);

  run_snodo_serving ((const char *[]) { "call", "--http", uri, "--header", "X-Tenant: blue", "tools/call", call, NULL },
                     &header_only);
  g_assert_cmpint (header_only.status, ==, 1);

  run_snodo_serving ((const char *[]) { "call", "--http", uri, "-H", "X-Tenant:blue", "--bearer-token-file", token_file,
                                        "tools/call", call, NULL }, &both);
  g_assert_cmpint (both.status, ==, 0);
  g_assert_nonnull (strstr (both.out, "let in"));

  run_snodo_serving ((const char *[]) { "list", "--http", uri, "--bearer-token-file", empty_file, NULL }, &empty);
  g_assert_cmpint (empty.status, ==, 1);
  g_assert_nonnull (strstr (empty.err, "no token"));

  g_unlink (token_file);
  g_unlink (empty_file);
  for (AsyncRun *run = &bare; run != NULL; run = run == &bare ? &header_only : run == &header_only ? &both : run == &both ? &empty : NULL)
    {
      g_free (run->out);
      g_free (run->err);
    }
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/cli/call", test_cli_call);
  g_test_add_func ("/snodo/cli/list", test_cli_list);
  g_test_add_func ("/snodo/cli/errors", test_cli_errors);
#if SNODO_HAS_HTTP_TRANSPORT
  g_test_add_func ("/snodo/cli/http", test_cli_http);
  g_test_add_func ("/snodo/cli/http/auth", test_cli_http_auth);
#endif

  return g_test_run ();
}
