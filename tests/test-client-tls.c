/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* HTTPS with a private certificate authority: SnodoClient's tls-database
 * and snodo --cacert against snodo-demo serving a certificate that a CA
 * made at test time signed, and what a client that does not trust it is
 * told. */

#include "config.h"

#include <signal.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gio/gio.h>
#include <snodo/snodo.h>

#include "snodo-test-util.h"

typedef struct
{
  char        *dir;
  char        *ca_file;
  GSubprocess *demo;
  char        *uri;
} Fixture;

static void
fixture_setup (Fixture       *fixture,
               gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  fixture->dir = g_dir_make_tmp ("snodo-tls-XXXXXX", &error);
  g_assert_no_error (error);
  fixture->ca_file = g_build_filename (fixture->dir, "ca.pem", NULL);
}

static void
fixture_teardown (Fixture       *fixture,
                  gconstpointer  data)
{
  if (fixture->demo != NULL)
    snodo_test_demo_stop (fixture->demo);
  g_clear_object (&fixture->demo);
  snodo_test_remove_dir (fixture->dir);
  g_free (fixture->dir);
  g_free (fixture->ca_file);
  g_free (fixture->uri);
}

/* Starts snodo-demo over HTTPS with a certificate the fixture's CA
 * signed; FALSE when the case is skipped. */
static gboolean
start_demo (Fixture *fixture)
{
  g_autofree char *certificate = NULL;
  g_autofree char *key = NULL;
  g_autofree char *certificate_option = NULL;
  g_autofree char *key_option = NULL;

#ifdef __SANITIZE_ADDRESS__
  /* LeakSanitizer (GCC 12, glibc 2.36) crashes at exit scanning the
   * thread-local storage of the GnuTLS that glib-networking loads at run
   * time: as in test-http-listen, the TLS cases run in the plain build. */
  g_test_skip ("LeakSanitizer cannot scan the TLS of GnuTLS loaded at run time");
  return FALSE;
#endif
  if (!g_tls_backend_supports_tls (g_tls_backend_get_default ()))
    {
      g_test_skip ("GIO has no TLS backend (glib-networking is not installed)");
      return FALSE;
    }
  if (!snodo_test_make_tls_files (fixture->dir))
    return FALSE;
  certificate = g_build_filename (fixture->dir, "server.pem", NULL);
  key = g_build_filename (fixture->dir, "server-key.pem", NULL);
  certificate_option = g_strconcat ("--tls-certificate=", certificate, NULL);
  key_option = g_strconcat ("--tls-key=", key, NULL);
  fixture->demo = snodo_test_demo_http_start ((const char *[]) { certificate_option, key_option, NULL },
                                              &fixture->uri);
  g_assert_true (g_str_has_prefix (fixture->uri, "https://127.0.0.1:"));
  return TRUE;
}

static gboolean
connect_client (SnodoClient  *client,
                GError      **error)
{
  GAsyncResult *result = NULL;
  gboolean connected;

  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &result);
  connected = snodo_client_connect_finish (client, snodo_test_wait_result (&result), error);
  g_object_unref (result);
  return connected;
}

static void
test_client_database (Fixture       *fixture,
                      gconstpointer  data)
{
  g_autoptr(SnodoClient) untrusting = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GTlsDatabase) database = NULL;
  g_autoptr(GError) error = NULL;
  GAsyncResult *result = NULL;
  g_autoptr(JsonArray) tools = NULL;

  g_test_summary ("A client given the private CA as its tls-database is served; one without it "
                  "fails with G_TLS_ERROR_BAD_CERTIFICATE saying the certificate is not trusted, and "
                  "not that the server refused anything");

  if (!start_demo (fixture))
    return;

  untrusting = snodo_client_new_for_uri (fixture->uri, &error);
  g_assert_no_error (error);
  g_assert_null (snodo_client_get_tls_database (untrusting));
  g_assert_false (connect_client (untrusting, &error));
  g_assert_error (error, G_TLS_ERROR, G_TLS_ERROR_BAD_CERTIFICATE);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "is not trusted"));
  g_assert_nonnull (strstr (error->message, "no certificate authority the client trusts signed it"));
  g_assert_nonnull (strstr (error->message, fixture->uri));
  g_assert_null (strstr (error->message, "refused"));
  g_clear_error (&error);
  snodo_test_close_client (untrusting);

  database = g_tls_file_database_new (fixture->ca_file, &error);
  g_assert_no_error (error);
  client = snodo_client_new_for_uri (fixture->uri, &error);
  g_assert_no_error (error);
  g_object_set (client, "tls-database", database, NULL);
  g_assert_true (snodo_client_get_tls_database (client) == database);
  g_assert_true (connect_client (client, &error));
  g_assert_no_error (error);
  snodo_client_list_tools_async (client, NULL, snodo_test_store_result_cb, &result);
  tools = snodo_client_list_tools_finish (client, snodo_test_wait_result (&result), &error);
  g_object_unref (result);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (tools), >, 0);
  snodo_test_close_client (client);
}

static void
run_snodo (const char * const *args,
           int                 expected_status,
           char              **out,
           char              **err)
{
  g_assert_cmpint (snodo_test_run_snodo (args, out, err), ==, expected_status);
}

static void
test_cli_cacert (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *missing = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err2 = NULL;
  g_autofree char *out3 = NULL;
  g_autofree char *err3 = NULL;
  g_autofree char *out4 = NULL;
  g_autofree char *err4 = NULL;

  g_test_summary ("snodo --cacert FILE trusts the CA in FILE; without it, one line says that the "
                  "server's certificate is not trusted and why");

  if (!start_demo (fixture))
    return;

  run_snodo ((const char *[]) { "list", "--http", fixture->uri, NULL }, 1, &out, &err);
  g_assert_cmpstr (out, ==, "");
  g_assert_true (strchr (err, '\n') == err + strlen (err) - 1);
  g_assert_nonnull (strstr (err, "is not trusted: no certificate authority the client trusts signed it"));
  g_assert_null (strstr (err, "refused"));

  run_snodo ((const char *[]) { "call", "--http", fixture->uri, "--cacert", fixture->ca_file, "tools/call",
                                "{\"name\":\"echo\",\"arguments\":{\"text\":\"over TLS\"}}", NULL }, 0, &out2, &err2);
  g_assert_nonnull (strstr (out2, "over TLS"));

  missing = g_build_filename (fixture->dir, "missing.pem", NULL);
  run_snodo ((const char *[]) { "list", "--http", fixture->uri, "--cacert", missing, NULL }, 1, &out3, &err3);
  g_assert_true (g_str_has_prefix (err3, "snodo: --cacert: "));

  run_snodo ((const char *[]) { "list", "--cacert", fixture->ca_file, "--", "true", NULL }, 2, &out4, &err4);
  g_assert_nonnull (strstr (err4, "--cacert go with --http"));
}

/* Copies the file @name of @from over the one of @to. */
static void
copy_over (const char *from,
           const char *to,
           const char *name)
{
  g_autofree char *source = g_build_filename (from, name, NULL);
  g_autofree char *target = g_build_filename (to, name, NULL);
  g_autofree char *contents = NULL;
  gsize len;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_file_get_contents (source, &contents, &len, &error));
  g_assert_true (g_file_set_contents (target, contents, len, &error));
  g_assert_no_error (error);
}

static void
test_demo_reload (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autofree char *other = NULL;
  g_autofree char *other_ca = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = -1;

  g_test_summary ("snodo-demo reads its certificate again on SIGHUP: a renewed certificate, from "
                  "another CA, is served to the next connections, without a restart");

  if (!start_demo (fixture))
    return;
  other = g_dir_make_tmp ("snodo-tls-XXXXXX", &error);
  g_assert_no_error (error);
  other_ca = g_build_filename (other, "ca.pem", NULL);
  g_assert_true (snodo_test_make_tls_files (other));
  run_snodo ((const char *[]) { "list", "--http", fixture->uri, "--cacert", other_ca, NULL }, 1, &out, &err);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  copy_over (other, fixture->dir, "server.pem");
  copy_over (other, fixture->dir, "server-key.pem");
  g_subprocess_send_signal (fixture->demo, SIGHUP);
  /* The signal is handled on the demo's main loop: soon. */
  for (int i = 0; i < 50 && status != 0; i++)
    {
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      status = snodo_test_run_snodo ((const char *[]) { "list", "--http", fixture->uri, "--cacert", other_ca, NULL },
                                 &out, &err);
      if (status != 0)
        g_usleep (100 * G_TIME_SPAN_MILLISECOND);
    }
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (out, "echo"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  run_snodo ((const char *[]) { "list", "--http", fixture->uri, "--cacert", fixture->ca_file, NULL }, 1, &out, &err);
  g_assert_nonnull (strstr (err, "is not trusted"));

  snodo_test_remove_dir (other);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add ("/snodo/client-tls/database", Fixture, NULL, fixture_setup, test_client_database, fixture_teardown);
  g_test_add ("/snodo/client-tls/cli-cacert", Fixture, NULL, fixture_setup, test_cli_cacert, fixture_teardown);
  g_test_add ("/snodo/client-tls/demo-reload", Fixture, NULL, fixture_setup, test_demo_reload, fixture_teardown);

  return g_test_run ();
}
